/*!
One actor per trained model. Each model runs on its own `SyncArbiter` (one thread by default),
so CRF tagging never runs on an HTTP worker. The measured actix facts (rust-stack §5) shape it:

- A panic would kill a sync worker thread for good, so every handler body runs inside
  `catch_unwind`; a caught panic counts in `quire_model_panics_total`, returns
  [`Error::Panicked`] for that request only, and calls `ctx.stop()` so `SyncContext` rebuilds
  the actor from its factory (counted in `quire_model_restarts_total`).
- The `SyncArbiter` mailbox is unbounded, so [`ModelHandle::ask`] bounds the queue itself with
  an in-flight counter (a guard type) checked before `send`, and always sends under a timeout.
- A model whose files are missing is `Absent`: the server still starts, health lists it, and a
  request that needs it fails with a message naming it.

The [`Panic`] message exists for the restart test: it is always compiled, and the web layer
only exposes it through the debug route enabled by `debug.allow_panic_route` in the config.
*/

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix::{Actor, Addr, Handler, Message, SyncArbiter, SyncContext};
use quire::features::{Row, Rows};
use quire::flavor::Flavor;
use quire::labels::Labels;
use quire::models::ModelName;
use quire::tagger::{self, Tagger};

use crate::metrics::metrics;
use crate::Error;

/// Where a model stands, as `/api/health` reports it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum ModelState {
    /// Nothing to load: no files in the models directory, or no model definition in Quire.
    Absent { reason: String },
    /// Files present, not loaded yet (`modelPreload = false`): loads on first use.
    Unloaded,
    /// Loaded and answering.
    Ready,
    /// Loading failed; requests fail with this reason.
    Failed { reason: String },
}

/// How the model actors are set up (from the service configuration).
#[derive(Debug, Clone)]
pub struct ModelSettings {
    pub models_dir: PathBuf,
    /// Load every present model at start-up (`modelPreload`).
    pub preload: bool,
    /// Sync threads per model.
    pub threads: usize,
    /// Messages allowed in one model's queue (running included) before answering busy.
    pub queue_bound: usize,
    /// Longest wait for a model's answer.
    pub timeout: Duration,
}

impl Default for ModelSettings {
    fn default() -> Self {
        ModelSettings {
            models_dir: PathBuf::from("models"),
            preload: true,
            threads: 1,
            queue_bound: 64,
            timeout: Duration::from_secs(120),
        }
    }
}

/// State shared by a model's actor threads and by the handle (health, queue bound).
pub struct ModelSlot {
    /// Folder name under the models directory (`header`, `header-article-light`).
    pub key: String,
    name: ModelName,
    dir: PathBuf,
    feature_version: Option<u32>,
    inner: Mutex<(ModelState, Option<Arc<Tagger>>)>,
    load_lock: Mutex<()>,
    in_flight: AtomicUsize,
    starts: AtomicUsize,
    /// 1 for the files found at start-up, +1 at each live swap ([`ModelSlot::install`]).
    version: AtomicU64,
    threads: usize,
    queue_bound: usize,
}

impl ModelSlot {
    fn new(name: ModelName, flavor: Option<Flavor>, settings: &ModelSettings) -> ModelSlot {
        let key = name.dir_name(flavor);
        let dir = name.dir(&settings.models_dir, flavor);
        let feature_version = quire::models::feature_version(name, flavor);
        let state = if feature_version.is_none() {
            ModelState::Absent {
                reason: format!("Quire has no definition of model `{key}` yet"),
            }
        } else {
            // The folder's serving.json says which architecture serves (the CRF by default).
            match tagger::served_architecture(&dir) {
                Err(e) => ModelState::Failed {
                    reason: e.to_string(),
                },
                Ok(arch) if !tagger::weights_file(&dir, arch).is_file() => ModelState::Absent {
                    reason: format!(
                        "no trained model: {} does not exist",
                        tagger::weights_file(&dir, arch).display()
                    ),
                },
                Ok(_) => ModelState::Unloaded,
            }
        };
        ModelSlot {
            key,
            name,
            dir,
            feature_version,
            inner: Mutex::new((state, None)),
            load_lock: Mutex::new(()),
            in_flight: AtomicUsize::new(0),
            starts: AtomicUsize::new(0),
            version: AtomicU64::new(1),
            threads: settings.threads.max(1),
            queue_bound: settings.queue_bound.max(1),
        }
    }

    pub fn name(&self) -> ModelName {
        self.name
    }

    pub fn state(&self) -> ModelState {
        self.lock().0.clone()
    }

    /// Which version of the model serves: 1 for the files found at start-up, one more after
    /// each live swap.
    pub fn version(&self) -> u64 {
        self.version.load(Ordering::SeqCst)
    }

    /// The architecture of the loaded model (`CRF`, `BiLSTM-CRF`); `None` until loaded.
    pub fn architecture(&self) -> Option<&'static str> {
        self.lock().1.as_ref().map(|t| t.architecture())
    }

    /// The folder the model's files are served from (`<models>/<key>`).
    pub fn dir(&self) -> &std::path::Path {
        &self.dir
    }

    /// The feature version a model for this slot must have been trained with.
    pub fn feature_version(&self) -> Option<u32> {
        self.feature_version
    }

    /// Live swap: from now on every message is tagged with `model`. Messages already being
    /// tagged hold their own reference to the previous model and finish with it. Answers the
    /// new version.
    pub fn install(&self, model: Tagger) -> u64 {
        let model = Arc::new(model);
        let _loading = self.load_lock.lock().unwrap_or_else(|p| p.into_inner());
        *self.lock() = (ModelState::Ready, Some(model));
        let version = self.version.fetch_add(1, Ordering::SeqCst) + 1;
        metrics()
            .model_version
            .with_label_values(&[&self.key])
            .set(version as i64);
        tracing::info!(model = %self.key, version, "model swapped");
        version
    }

    /// Messages queued or running right now.
    pub fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::SeqCst)
    }

    /// How many times the actor was rebuilt after a panic.
    pub fn restarts(&self) -> usize {
        self.starts
            .load(Ordering::SeqCst)
            .saturating_sub(self.threads)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (ModelState, Option<Arc<Tagger>>)> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The loaded model, loading it first if needed. Runs on the model's own thread.
    fn ensure_loaded(&self) -> Result<Arc<Tagger>, Error> {
        if let Some(model) = self.ready_model()? {
            return Ok(model);
        }
        let _loading = self.load_lock.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(model) = self.ready_model()? {
            return Ok(model);
        }
        let version = self.feature_version.unwrap_or_default();
        let started = std::time::Instant::now();
        let loaded = catch_unwind(AssertUnwindSafe(|| Tagger::load(&self.dir, version)));
        let mut inner = self.lock();
        match loaded {
            Ok(Ok(model)) => {
                let model = Arc::new(model);
                tracing::info!(model = %self.key, architecture = model.architecture(), ms = started.elapsed().as_millis() as u64, "model loaded");
                *inner = (ModelState::Ready, Some(model.clone()));
                Ok(model)
            }
            Ok(Err(e)) => {
                tracing::error!(model = %self.key, "model failed to load: {e}");
                inner.0 = ModelState::Failed {
                    reason: e.to_string(),
                };
                Err(self.unavailable(e.to_string()))
            }
            Err(payload) => {
                let reason = format!("loading panicked: {}", panic_message(&*payload));
                tracing::error!(model = %self.key, "model failed to load: {reason}");
                inner.0 = ModelState::Failed {
                    reason: reason.clone(),
                };
                Err(self.unavailable(reason))
            }
        }
    }

    /// `Ok(Some)` when loaded, `Ok(None)` when it still has to be loaded, `Err` when it can't be.
    fn ready_model(&self) -> Result<Option<Arc<Tagger>>, Error> {
        let inner = self.lock();
        match &inner.0 {
            ModelState::Ready => Ok(inner.1.clone()),
            ModelState::Unloaded => Ok(None),
            ModelState::Absent { reason } | ModelState::Failed { reason } => {
                Err(self.unavailable(reason.clone()))
            }
        }
    }

    fn unavailable(&self, reason: String) -> Error {
        Error::ModelAbsent {
            model: self.key.clone(),
            reason,
        }
    }
}

/// The text of a panic payload.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic payload".to_string()
    }
}

/// The actor: a thin shell around the shared slot.
pub struct ModelActor {
    slot: Arc<ModelSlot>,
}

impl Actor for ModelActor {
    type Context = SyncContext<Self>;

    fn started(&mut self, _ctx: &mut Self::Context) {
        let n = self.slot.starts.fetch_add(1, Ordering::SeqCst);
        if n >= self.slot.threads {
            metrics()
                .model_restarts
                .with_label_values(&[&self.slot.key])
                .inc();
            tracing::warn!(model = %self.slot.key, "model actor restarted");
        }
    }
}

impl ModelActor {
    /// Runs `f` under `catch_unwind`; a panic is counted, the actor is rebuilt, and the request
    /// gets [`Error::Panicked`].
    fn guarded<T>(
        &mut self,
        ctx: &mut SyncContext<Self>,
        f: impl FnOnce(&ModelSlot) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let slot = self.slot.clone();
        match catch_unwind(AssertUnwindSafe(|| f(&slot))) {
            Ok(result) => result,
            Err(payload) => {
                metrics().model_panics.with_label_values(&[&slot.key]).inc();
                tracing::error!(model = %slot.key, panic = %panic_message(&*payload), "model actor panicked; restarting it");
                actix::ActorContext::stop(ctx);
                Err(Error::Panicked {
                    model: slot.key.clone(),
                })
            }
        }
    }
}

/// Label sequences: feature rows per token per sequence in, one label per token out.
#[derive(Debug)]
pub struct Label {
    pub seqs: Vec<Rows>,
    /// Set when the asker stopped waiting ([`Waiting`] dropped: its request timed out); the
    /// actor then tags no further sequence of this message, queued or under way.
    pub abandoned: Arc<AtomicBool>,
}

impl Label {
    /// A message for `seqs` and the guard that marks it abandoned when dropped: keep the
    /// guard alive while awaiting the answer.
    pub fn new(seqs: Vec<Rows>) -> (Label, Waiting) {
        let abandoned = Arc::new(AtomicBool::new(false));
        (
            Label {
                seqs,
                abandoned: abandoned.clone(),
            },
            Waiting(abandoned),
        )
    }
}

/// Held by whoever awaits a [`Label`] answer; dropping it (the awaiting future was dropped at
/// its deadline, or the answer came) tells the actor to stop.
#[derive(Debug)]
pub struct Waiting(Arc<AtomicBool>);

impl Drop for Waiting {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

impl Message for Label {
    type Result = Result<Vec<Labels>, Error>;
}

impl Handler<Label> for ModelActor {
    type Result = Result<Vec<Labels>, Error>;

    fn handle(&mut self, msg: Label, ctx: &mut Self::Context) -> Self::Result {
        self.guarded(ctx, |slot| {
            let model = slot.ensure_loaded()?;
            let mut out = Vec::with_capacity(msg.seqs.len());
            // The CRF tags one sequence at a time, the deep model a batch; the abandon flag
            // is checked before each step either way.
            let step = match &*model {
                Tagger::Crf(_) => 1,
                Tagger::Deep(_) | Tagger::Combined(_) => DEEP_BATCH,
            };
            for (c, chunk) in msg.seqs.chunks(step).enumerate() {
                if msg.abandoned.load(Ordering::SeqCst) {
                    metrics()
                        .model_abandoned
                        .with_label_values(&[&slot.key])
                        .inc_by((msg.seqs.len() - c * step) as u64);
                    return Err(Error::Timeout {
                        stage: format!("model `{}` (request abandoned)", slot.key),
                    });
                }
                let rows: Vec<&[Row]> = chunk.iter().map(Vec::as_slice).collect();
                for (rows, labels) in chunk.iter().zip(model.label_many(&rows)?) {
                    if labels.len() != rows.len() {
                        return Err(Error::Engine(quire::Error::Tagging {
                            model: slot.key.clone(),
                            reason: format!("{} labels for {} tokens", labels.len(), rows.len()),
                        }));
                    }
                    out.push(labels);
                }
            }
            Ok(out)
        })
    }
}

/// Sequences a deep model tags in one batch.
const DEEP_BATCH: usize = 128;

/// Load the model now (start-up preloading); answers the resulting state.
#[derive(Debug)]
pub struct Load;

impl Message for Load {
    type Result = ModelState;
}

impl Handler<Load> for ModelActor {
    type Result = actix::MessageResult<Load>;

    fn handle(&mut self, _msg: Load, ctx: &mut Self::Context) -> Self::Result {
        let loaded = self.guarded(ctx, |slot| {
            if matches!(slot.state(), ModelState::Unloaded) {
                // A failure is recorded in the slot's state, which is what we answer.
                let _ = slot.ensure_loaded();
            }
            Ok(())
        });
        if let Err(e) = loaded {
            tracing::error!("preloading {}: {e}", self.slot.key);
        }
        actix::MessageResult(self.slot.state())
    }
}

/// Liveness probe of the actor itself: answers how many times the actor has been started.
#[derive(Debug)]
pub struct Ping;

impl Message for Ping {
    type Result = usize;
}

impl Handler<Ping> for ModelActor {
    type Result = usize;

    fn handle(&mut self, _msg: Ping, _ctx: &mut Self::Context) -> usize {
        self.slot.starts.load(Ordering::SeqCst)
    }
}

/// Test-only: panics inside the handler, to prove the actor is rebuilt. Sent only by unit tests
/// and by the debug route enabled with `debug.allow_panic_route = true`.
#[derive(Debug)]
pub struct Panic;

impl Message for Panic {
    type Result = Result<(), Error>;
}

impl Handler<Panic> for ModelActor {
    type Result = Result<(), Error>;

    fn handle(&mut self, _msg: Panic, ctx: &mut Self::Context) -> Self::Result {
        self.guarded(ctx, |slot| {
            panic!("test panic requested for model `{}`", slot.key)
        })
    }
}

/// A model's address plus its shared state; cloned into every request.
#[derive(Clone)]
pub struct ModelHandle {
    pub slot: Arc<ModelSlot>,
    addr: Addr<ModelActor>,
    timeout: Duration,
}

/// Holds one place in a model's queue; released on drop.
struct InFlight {
    slot: Arc<ModelSlot>,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.slot.in_flight.fetch_sub(1, Ordering::SeqCst);
        metrics()
            .model_in_flight
            .with_label_values(&[&self.slot.key])
            .dec();
    }
}

impl ModelHandle {
    /// Starts the model's `SyncArbiter`. Must run inside an actix `System`.
    pub fn start(name: ModelName, flavor: Option<Flavor>, settings: &ModelSettings) -> ModelHandle {
        let slot = Arc::new(ModelSlot::new(name, flavor, settings));
        let factory_slot = slot.clone();
        let addr = SyncArbiter::start(slot.threads, move || ModelActor {
            slot: factory_slot.clone(),
        });
        metrics()
            .model_in_flight
            .with_label_values(&[&slot.key])
            .set(0);
        metrics()
            .model_restarts
            .with_label_values(&[&slot.key])
            .inc_by(0);
        metrics()
            .model_version
            .with_label_values(&[&slot.key])
            .set(slot.version() as i64);
        metrics()
            .model_panics
            .with_label_values(&[&slot.key])
            .inc_by(0);
        ModelHandle {
            slot,
            addr,
            timeout: settings.timeout,
        }
    }

    /// Sends `msg` if the queue has room, waiting at most the configured timeout for the answer.
    pub async fn ask<M>(&self, msg: M) -> Result<M::Result, Error>
    where
        M: Message + Send + 'static,
        M::Result: Send,
        ModelActor: Handler<M>,
    {
        let _place = self.enter()?;
        match tokio::time::timeout(self.timeout, self.addr.send(msg)).await {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(_mailbox)) => Err(Error::Panicked {
                model: self.slot.key.clone(),
            }),
            Err(_elapsed) => Err(Error::Timeout {
                stage: format!("model `{}`", self.slot.key),
            }),
        }
    }

    fn enter(&self) -> Result<InFlight, Error> {
        let slot = &self.slot;
        let before = slot.in_flight.fetch_add(1, Ordering::SeqCst);
        let place = InFlight { slot: slot.clone() };
        metrics()
            .model_in_flight
            .with_label_values(&[&slot.key])
            .inc();
        if before >= slot.queue_bound {
            drop(place);
            metrics()
                .model_rejected
                .with_label_values(&[&slot.key])
                .inc();
            return Err(Error::Busy {
                what: format!("model `{}`", slot.key),
                retry_after_s: 1,
            });
        }
        Ok(place)
    }

    /// Whether the actor's mailbox still accepts messages.
    pub fn connected(&self) -> bool {
        self.addr.connected()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(dir: &std::path::Path) -> ModelSettings {
        ModelSettings {
            models_dir: dir.to_path_buf(),
            queue_bound: 2,
            timeout: Duration::from_secs(5),
            ..ModelSettings::default()
        }
    }

    #[actix::test]
    async fn absent_model_fails_with_its_name_and_the_actor_survives_a_panic() {
        let dir = std::env::temp_dir().join(format!("quire-model-test-{}", std::process::id()));
        let handle = ModelHandle::start(ModelName::Date, None, &settings(&dir));
        assert!(matches!(handle.slot.state(), ModelState::Absent { .. }));

        let err = handle
            .ask(Label::new(vec![vec![vec!["2001".into()]]]).0)
            .await
            .and_then(|r| r)
            .expect_err("absent model must fail");
        assert!(
            matches!(&err, Error::ModelAbsent { model, .. } if model == "date"),
            "{err}"
        );

        assert_eq!(handle.ask(Ping).await.ok(), Some(1));
        let restarts_before = metrics().model_restarts.with_label_values(&["date"]).get();
        let panicked = handle.ask(Panic).await.and_then(|r| r);
        assert!(
            matches!(panicked, Err(Error::Panicked { .. })),
            "{panicked:?}"
        );
        // The same address answers again, from a rebuilt actor.
        assert_eq!(handle.ask(Ping).await.ok(), Some(2));
        assert_eq!(handle.slot.restarts(), 1);
        assert_eq!(
            metrics().model_restarts.with_label_values(&["date"]).get(),
            restarts_before + 1
        );
        assert_eq!(handle.slot.in_flight(), 0);
    }

    #[actix::test]
    async fn a_request_that_stops_waiting_stops_the_tagging() {
        // The committed date model (the repository's models/ folder).
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../models");
        let mut s = settings(&dir);
        s.queue_bound = 8;
        let handle = ModelHandle::start(ModelName::Date, None, &s);
        let row = |t: &str| vec![quire::features::Feature::from(t); 30];
        let seq = || vec![row("12"), row("May"), row("2001")];
        // Answered while someone waits.
        let (msg, waiting) = Label::new(vec![seq(), seq()]);
        let labels = handle.ask(msg).await.and_then(|r| r).expect("tagged");
        assert_eq!(labels.len(), 2);
        drop(waiting);
        // Abandoned before the actor reached it: nothing is tagged, every sequence counted.
        let before = metrics().model_abandoned.with_label_values(&["date"]).get();
        let (msg, waiting) = Label::new(vec![seq(); 5]);
        drop(waiting);
        let out = handle.ask(msg).await.and_then(|r| r);
        assert!(matches!(out, Err(Error::Timeout { .. })), "{out:?}");
        assert_eq!(
            metrics().model_abandoned.with_label_values(&["date"]).get(),
            before + 5
        );
        // Abandoned once sent: a batch far longer than the wait is not tagged to its end
        // (how far it got depends on when the actor's thread ran).
        let (msg, waiting) = Label::new(vec![seq(); 200_000]);
        let send = handle.addr.send(msg);
        tokio::time::sleep(Duration::from_millis(20)).await;
        drop(waiting);
        let out = send.await.expect("delivered");
        assert!(matches!(out, Err(Error::Timeout { .. })), "{out:?}");
        let skipped = metrics().model_abandoned.with_label_values(&["date"]).get() - before - 5;
        assert!(skipped > 0, "{skipped}");
    }

    #[actix::test]
    async fn a_full_queue_answers_busy_without_enqueueing() {
        let dir = std::env::temp_dir();
        let handle = ModelHandle::start(ModelName::Citation, None, &settings(&dir));
        let a = handle.enter().expect("first place");
        let b = handle.enter().expect("second place");
        let refused = handle.enter().err().expect("third must be refused");
        assert!(refused.is_busy(), "{refused}");
        drop((a, b));
        assert_eq!(handle.slot.in_flight(), 0);
        assert!(handle.enter().is_ok());
    }
}
