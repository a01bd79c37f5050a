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
use quire::models::ModelName;

use crate::model::panic_message;
use crate::Error;

/// The job: receives a sink for progress lines, returns the evaluation (or a reason).
pub type TrainingJob = Box<dyn FnOnce(ProgressSink) -> Result<serde_json::Value, String> + Send>;

/// Where a training run stands, as `/api/trainingResult` reports it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum TrainingState {
    Ongoing { progress: String },
    Done { result: serde_json::Value },
    Failed { error: String },
}

struct Run {
    model: ModelName,
    flavor: Option<String>,
    state: TrainingState,
}

/// The registry actor.
#[derive(Default)]
pub struct TrainerRegistry {
    runs: HashMap<String, Run>,
    active: HashSet<(ModelName, Option<String>)>,
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

/// Sends progress lines from the training thread back to the registry.
#[derive(Clone)]
pub struct ProgressSink {
    token: String,
    registry: Addr<TrainerRegistry>,
}

impl ProgressSink {
    pub fn report(&self, line: impl Into<String>) {
        self.registry.do_send(Progress {
            token: self.token.clone(),
            line: line.into(),
        });
    }

    pub fn token(&self) -> &str {
        &self.token
    }
}

/// Start a training; answers its token, or `TrainingInProgress`.
pub struct StartTraining {
    pub model: ModelName,
    pub flavor: Option<String>,
    pub job: TrainingJob,
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

#[derive(Message)]
#[rtype(result = "()")]
struct Progress {
    token: String,
    line: String,
}

#[derive(Message)]
#[rtype(result = "()")]
struct Finished {
    token: String,
    outcome: Result<serde_json::Value, String>,
}

fn new_token() -> String {
    format!("{:016x}", rand::random::<u64>())
}

impl Handler<StartTraining> for TrainerRegistry {
    type Result = Result<String, Error>;

    fn handle(&mut self, msg: StartTraining, ctx: &mut Self::Context) -> Self::Result {
        let key = (msg.model, msg.flavor.clone());
        if self.active.contains(&key) {
            let token = self
                .runs
                .iter()
                .find(|(_, r)| {
                    r.model == msg.model
                        && r.flavor == msg.flavor
                        && matches!(r.state, TrainingState::Ongoing { .. })
                })
                .map(|(t, _)| t.clone())
                .unwrap_or_default();
            return Err(Error::TrainingInProgress {
                model: msg.model.dir_name(msg.flavor.as_deref()),
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
        tracing::info!(model = %msg.model, token = %token, "training started");
        self.active.insert(key);
        self.runs.insert(
            token.clone(),
            Run {
                model: msg.model,
                flavor: msg.flavor,
                state: TrainingState::Ongoing {
                    progress: "started".to_string(),
                },
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

impl Handler<Progress> for TrainerRegistry {
    type Result = ();

    fn handle(&mut self, msg: Progress, _ctx: &mut Self::Context) {
        if let Some(run) = self.runs.get_mut(&msg.token) {
            if let TrainingState::Ongoing { progress } = &mut run.state {
                *progress = msg.line;
            }
        }
    }
}

impl Handler<Finished> for TrainerRegistry {
    type Result = ();

    fn handle(&mut self, msg: Finished, _ctx: &mut Self::Context) {
        if let Some(run) = self.runs.get_mut(&msg.token) {
            run.state = match msg.outcome {
                Ok(result) => TrainingState::Done { result },
                Err(error) => TrainingState::Failed { error },
            };
            self.active.remove(&(run.model, run.flavor.clone()));
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
                job,
            })
            .await
            .expect("alive")
            .expect("first training starts");
        assert_eq!(token.len(), 16);

        // Same model: refused with the running token. Another model or flavour: accepted.
        let again = reg
            .send(StartTraining {
                model: ModelName::Date,
                flavor: None,
                job: Box::new(|_| Ok(serde_json::Value::Null)),
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
                flavor: Some("article/light".into()),
                job: Box::new(|_| Ok(serde_json::Value::Null)),
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
                job,
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
}
