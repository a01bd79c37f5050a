/*!
The trainer registry: an actor that hands out training tokens, refuses a second training of a
model (and flavour) that is still running (`Error::TrainingInProgress`, HTTP 409), keeps each
run's latest progress line, and its final result or failure. The training itself is a closure
given in [`StartTraining`]; it runs on its own OS thread (training is long and CPU-bound) and
reports progress through a [`ProgressSink`].
*/

use std::collections::{HashMap, HashSet};
use std::panic::{catch_unwind, AssertUnwindSafe};

use actix::{Actor, Addr, AsyncContext, Context, Handler, Message};
use quire::flavor::Flavor;
use quire::models::ModelName;

use crate::model::panic_message;
use crate::Error;

/// The job: receives a sink for progress reports, returns the result (or a reason).
pub type TrainingJob = Box<dyn FnOnce(ProgressSink) -> Result<serde_json::Value, String> + Send>;

/// Stops a running job (e.g. kills its training process); answers false when it is too late
/// (the job has finished and is installing what it wrote), and the job then runs to its end.
pub type Canceller = Box<dyn Fn() -> bool + Send>;

/// Where a training run stands, as `/api/trainingResult` reports it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum TrainingState {
    Ongoing { progress: serde_json::Value },
    Done { result: serde_json::Value },
    Failed { error: String },
    Cancelled,
}

impl TrainingState {
    pub fn is_ongoing(&self) -> bool {
        matches!(self, TrainingState::Ongoing { .. })
    }
}

struct Run {
    model: ModelName,
    flavor: Option<Flavor>,
    kind: String,
    started_unix_s: u64,
    state: TrainingState,
    cancel: Option<Canceller>,
}

/// One line of `GET /api/training`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TrainingSummary {
    pub token: String,
    pub model: String,
    pub flavor: Option<Flavor>,
    #[serde(rename = "type")]
    pub kind: String,
    pub started_unix_s: u64,
    #[serde(flatten)]
    pub state: TrainingState,
}

/// The registry actor.
#[derive(Default)]
pub struct TrainerRegistry {
    runs: HashMap<String, Run>,
    active: HashSet<(ModelName, Option<Flavor>)>,
}

impl Actor for TrainerRegistry {
    type Context = Context<Self>;
}

impl TrainerRegistry {
    /// Starts the registry on the current arbiter.
    pub fn launch() -> Addr<TrainerRegistry> {
        TrainerRegistry::default().start()
    }
}

/// Sends progress reports from the training thread back to the registry.
#[derive(Clone)]
pub struct ProgressSink {
    token: String,
    registry: Addr<TrainerRegistry>,
}

impl ProgressSink {
    pub fn report(&self, progress: impl Into<serde_json::Value>) {
        self.registry.do_send(Progress {
            token: self.token.clone(),
            progress: progress.into(),
        });
    }

    pub fn token(&self) -> &str {
        &self.token
    }
}

/// Start a training; answers its token, or `TrainingInProgress`.
pub struct StartTraining {
    pub model: ModelName,
    pub flavor: Option<Flavor>,
    /// The training type (`full`, `holdout`, `split`, `nfold`), for listings.
    pub kind: String,
    pub job: TrainingJob,
    /// How [`CancelTraining`] stops the job; without one a cancelled run is only marked.
    pub cancel: Option<Canceller>,
}

impl Message for StartTraining {
    type Result = Result<String, Error>;
}

/// Where the training with this token stands.
pub struct TrainingStatus {
    pub token: String,
}

impl Message for TrainingStatus {
    type Result = Result<TrainingState, Error>;
}

/// Every training since start-up, oldest first.
pub struct ListTrainings;

impl Message for ListTrainings {
    type Result = Vec<TrainingSummary>;
}

/// Cancel an ongoing training: its canceller runs and its state becomes `Cancelled` (the model
/// stays busy for a new training until the job has returned). Answers the state after the
/// call; a finished training is left as it is, and so is one whose canceller says it is too
/// late (its state stays ongoing until it finishes).
pub struct CancelTraining {
    pub token: String,
}

impl Message for CancelTraining {
    type Result = Result<TrainingState, Error>;
}

#[derive(Message)]
#[rtype(result = "()")]
struct Progress {
    token: String,
    progress: serde_json::Value,
}

#[derive(Message)]
#[rtype(result = "()")]
struct Finished {
    token: String,
    outcome: Result<serde_json::Value, String>,
}

/// GROBID's token alphabet: no i, l, o, I, L, O, 0, 1.
const TOKEN_ALPHABET: &[u8] = b"abcdefghjkmnpqrstuvwxyzABCDEFGHJKMNPQRSTUVWXYZ23456789";

/// A token as GROBID makes them: 10 characters of [`TOKEN_ALPHABET`].
fn new_token() -> String {
    (0..10)
        .map(|_| TOKEN_ALPHABET[rand::random_range(0..TOKEN_ALPHABET.len())] as char)
        .collect()
}

/// Whether `token` could be one of ours (checked before any lookup).
pub fn token_is_well_formed(token: &str) -> bool {
    token.len() == 10 && token.bytes().all(|b| TOKEN_ALPHABET.contains(&b))
}

impl Handler<StartTraining> for TrainerRegistry {
    type Result = Result<String, Error>;

    fn handle(&mut self, msg: StartTraining, ctx: &mut Self::Context) -> Self::Result {
        let key = (msg.model, msg.flavor);
        if self.active.contains(&key) {
            let token = self
                .runs
                .iter()
                .find(|(_, r)| {
                    r.model == msg.model && r.flavor == msg.flavor && r.state.is_ongoing()
                })
                .map(|(t, _)| t.clone())
                .unwrap_or_default();
            return Err(Error::TrainingInProgress {
                model: msg.model.dir_name(msg.flavor),
                token,
            });
        }
        let mut token = new_token();
        while self.runs.contains_key(&token) {
            token = new_token();
        }
        let sink = ProgressSink {
            token: token.clone(),
            registry: ctx.address(),
        };
        let registry = ctx.address();
        let job = msg.job;
        let thread_token = token.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("train-{}", msg.model))
            .spawn(move || {
                let outcome = match catch_unwind(AssertUnwindSafe(|| job(sink))) {
                    Ok(outcome) => outcome,
                    Err(payload) => Err(format!("training panicked: {}", panic_message(&*payload))),
                };
                registry.do_send(Finished {
                    token: thread_token,
                    outcome,
                });
            });
        if let Err(e) = spawned {
            return Err(Error::Engine(quire::Error::General(format!(
                "could not start a training thread: {e}"
            ))));
        }
        tracing::info!(model = %msg.model, token = %token, kind = %msg.kind, "training started");
        self.active.insert(key);
        let started_unix_s = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or_default();
        self.runs.insert(
            token.clone(),
            Run {
                model: msg.model,
                flavor: msg.flavor,
                kind: msg.kind,
                started_unix_s,
                state: TrainingState::Ongoing {
                    progress: serde_json::json!({"phase": "starting"}),
                },
                cancel: msg.cancel,
            },
        );
        Ok(token)
    }
}

impl Handler<TrainingStatus> for TrainerRegistry {
    type Result = Result<TrainingState, Error>;

    fn handle(&mut self, msg: TrainingStatus, _ctx: &mut Self::Context) -> Self::Result {
        self.runs
            .get(&msg.token)
            .map(|r| r.state.clone())
            .ok_or(Error::UnknownToken { token: msg.token })
    }
}

impl Handler<ListTrainings> for TrainerRegistry {
    type Result = actix::MessageResult<ListTrainings>;

    fn handle(&mut self, _msg: ListTrainings, _ctx: &mut Self::Context) -> Self::Result {
        let mut list: Vec<TrainingSummary> = self
            .runs
            .iter()
            .map(|(token, r)| TrainingSummary {
                token: token.clone(),
                model: r.model.dir_name(r.flavor),
                flavor: r.flavor,
                kind: r.kind.clone(),
                started_unix_s: r.started_unix_s,
                state: r.state.clone(),
            })
            .collect();
        list.sort_by(|a, b| (a.started_unix_s, &a.token).cmp(&(b.started_unix_s, &b.token)));
        actix::MessageResult(list)
    }
}

impl Handler<CancelTraining> for TrainerRegistry {
    type Result = Result<TrainingState, Error>;

    fn handle(&mut self, msg: CancelTraining, _ctx: &mut Self::Context) -> Self::Result {
        let Some(run) = self.runs.get_mut(&msg.token) else {
            return Err(Error::UnknownToken { token: msg.token });
        };
        if run.state.is_ongoing() {
            let stopped = run.cancel.as_ref().is_none_or(|cancel| cancel());
            if stopped {
                run.cancel = None;
                run.state = TrainingState::Cancelled;
                tracing::info!(model = %run.model, token = %msg.token, "training cancelled");
            } else {
                tracing::info!(model = %run.model, token = %msg.token, "too late to cancel");
            }
        }
        Ok(run.state.clone())
    }
}

impl Handler<Progress> for TrainerRegistry {
    type Result = ();

    fn handle(&mut self, msg: Progress, _ctx: &mut Self::Context) {
        if let Some(run) = self.runs.get_mut(&msg.token) {
            if let TrainingState::Ongoing { progress } = &mut run.state {
                *progress = msg.progress;
            }
        }
    }
}

impl Handler<Finished> for TrainerRegistry {
    type Result = ();

    fn handle(&mut self, msg: Finished, _ctx: &mut Self::Context) {
        if let Some(run) = self.runs.get_mut(&msg.token) {
            // A cancelled run stays cancelled whatever its job answered on the way out.
            if run.state.is_ongoing() {
                run.state = match msg.outcome {
                    Ok(result) => TrainingState::Done { result },
                    Err(error) => TrainingState::Failed { error },
                };
            }
            run.cancel = None;
            self.active.remove(&(run.model, run.flavor));
            tracing::info!(model = %run.model, token = %msg.token, "training finished");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    async fn status(reg: &Addr<TrainerRegistry>, token: &str) -> TrainingState {
        reg.send(TrainingStatus {
            token: token.to_string(),
        })
        .await
        .expect("registry alive")
        .expect("known token")
    }

    async fn wait_until_done(reg: &Addr<TrainerRegistry>, token: &str) -> TrainingState {
        for _ in 0..200 {
            let s = status(reg, token).await;
            if !matches!(s, TrainingState::Ongoing { .. }) {
                return s;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        status(reg, token).await
    }

    #[actix::test]
    async fn one_training_per_model_tokens_track_progress_and_results() {
        let reg = TrainerRegistry::launch();
        let (go_tx, go_rx) = mpsc::channel::<()>();
        let (reported_tx, reported_rx) = mpsc::channel::<()>();
        let job: TrainingJob = Box::new(move |sink| {
            sink.report("iteration 1");
            let _ = reported_tx.send(());
            go_rx.recv().map_err(|e| e.to_string())?;
            Ok(serde_json::json!({"f1": 0.5}))
        });
        let token = reg
            .send(StartTraining {
                model: ModelName::Date,
                flavor: None,
                kind: "split".into(),
                job,
                cancel: None,
            })
            .await
            .expect("alive")
            .expect("first training starts");
        assert!(token_is_well_formed(&token), "{token}");

        // Same model: refused with the running token. Another model or flavour: accepted.
        let again = reg
            .send(StartTraining {
                model: ModelName::Date,
                flavor: None,
                kind: "split".into(),
                job: Box::new(|_| Ok(serde_json::Value::Null)),
                cancel: None,
            })
            .await
            .expect("alive");
        assert!(
            matches!(&again, Err(Error::TrainingInProgress { token: t, .. }) if *t == token),
            "{again:?}"
        );
        let other = reg
            .send(StartTraining {
                model: ModelName::Date,
                flavor: Some(Flavor::ArticleLight),
                kind: "split".into(),
                job: Box::new(|_| Ok(serde_json::Value::Null)),
                cancel: None,
            })
            .await
            .expect("alive");
        assert!(other.is_ok());

        reported_rx
            .recv_timeout(Duration::from_secs(5))
            .expect("job reported");
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(
            status(&reg, &token).await,
            TrainingState::Ongoing {
                progress: "iteration 1".into()
            }
        );
        go_tx.send(()).expect("job waiting");
        assert_eq!(
            wait_until_done(&reg, &token).await,
            TrainingState::Done {
                result: serde_json::json!({"f1": 0.5})
            }
        );

        // Finished: the model can train again; unknown tokens are refused.
        let job: TrainingJob = Box::new(|_| panic!("trainer bug"));
        let t2 = reg
            .send(StartTraining {
                model: ModelName::Date,
                flavor: None,
                kind: "full".into(),
                job,
                cancel: None,
            })
            .await
            .expect("alive")
            .expect("model free again");
        assert!(
            matches!(wait_until_done(&reg, &t2).await, TrainingState::Failed { error } if error.contains("trainer bug"))
        );
        let unknown = reg
            .send(TrainingStatus {
                token: "nope".into(),
            })
            .await
            .expect("alive");
        assert!(matches!(unknown, Err(Error::UnknownToken { .. })));
    }

    #[actix::test]
    async fn a_cancel_refused_as_too_late_leaves_the_run_to_finish() {
        let reg = TrainerRegistry::launch();
        let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
        let cancel_asked = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let asked = cancel_asked.clone();
        let token = reg
            .send(StartTraining {
                model: ModelName::Date,
                flavor: None,
                kind: "full".into(),
                job: Box::new(move |_| {
                    go_rx.recv().ok();
                    Ok(serde_json::json!({"installed": true}))
                }),
                cancel: Some(Box::new(move || {
                    asked.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    false
                })),
            })
            .await
            .expect("alive")
            .expect("started");
        let state = reg
            .send(CancelTraining {
                token: token.clone(),
            })
            .await
            .expect("alive")
            .expect("known token");
        assert!(state.is_ongoing(), "{state:?}");
        assert_eq!(cancel_asked.load(std::sync::atomic::Ordering::SeqCst), 1);
        go_tx.send(()).expect("job waiting");
        assert_eq!(
            wait_until_done(&reg, &token).await,
            TrainingState::Done {
                result: serde_json::json!({"installed": true})
            }
        );
    }
}
