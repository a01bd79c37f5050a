/*!
Quire's actor system, between the HTTP layer (`quire-web`) and the synchronous engine (`quire`):

- `model`: one actor per model on its own `SyncArbiter` thread, panic-proof, bounded queue;
  [`Models`] is the handle that finds a model's actor and labels sequences with it.
- `coordinator`: the pipeline coordinators (one per CPU) that run each request's [`Cascade`]
  (`cascade/`).
- `pool`: request admission (at most `concurrency` requests processing, 503 after the wait).
- `consolidation`: the shared consolidation backend (the embedded bibliographic index).
- `trainer`: the registry of training runs (tokens, one training per model and flavour).
- `metrics`: the Prometheus registry and the admin rate tables.
- `trace`: the `debugMode` dump of every model invocation.
- `workers`: the pool of `quire worker` processes that run pdfium, isolated from the server.

Nothing here speaks HTTP; [`Error`] says what failed and the web crate chooses the status.
*/

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod cascade;
pub mod consolidation;
pub mod coordinator;
pub mod error;
pub mod labeler;
pub mod metrics;
pub mod model;
pub mod pool;
pub mod trace;
pub mod trainer;
pub mod workers;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

use quire::flavor::Flavor;
use quire::models::ModelName;

pub use consolidation::{Applied, Consolidation};
pub use coordinator::{Cascade, CascadeCtx, Pipeline};
pub use error::{Error, Result};
pub use labeler::Labeler;
pub use model::{ModelSettings, ModelState};
pub use pool::{Pool, PoolGuard, PoolStats};
pub use trace::{format_debug_dump, parse_models_filter, DebugTrace};

use model::{Label, Load, ModelHandle, Panic, Ping};

/// Start-up state of the model set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InitState {
    /// Preloading is still running.
    Loading,
    /// Every present model loaded (or loads lazily): the service is alive.
    Ready,
    /// A present model failed to load at start-up.
    Failed,
}

/// All model actors, one per (model, flavour). Cheap to clone.
#[derive(Clone)]
pub struct Models {
    inner: Arc<ModelsInner>,
}

struct ModelsInner {
    handles: BTreeMap<(ModelName, Option<Flavor>), ModelHandle>,
    init: AtomicU8,
}

const INIT_LOADING: u8 = 0;
const INIT_READY: u8 = 1;
const INIT_FAILED: u8 = 2;

impl Models {
    /// Starts every model actor. With `settings.preload`, loading starts at once in the
    /// background and [`Models::init_state`] reports `Loading` until it ends. Must run inside an
    /// actix `System`.
    pub fn start(settings: &ModelSettings) -> Models {
        let mut handles = BTreeMap::new();
        for name in ModelName::ALL {
            handles.insert((name, None), ModelHandle::start(name, None, settings));
            // A flavour's actor starts only when its trained files exist
            // (`models/<model>-<flavour with - for />/`); otherwise the standard model serves it.
            for flavor in Flavor::MODELS {
                let dir = name.dir(&settings.models_dir, Some(flavor));
                let served = quire::tagger::served_architecture(&dir).unwrap_or("CRF");
                if quire::tagger::weights_file(&dir, served).is_file() {
                    handles.insert(
                        (name, Some(flavor)),
                        ModelHandle::start(name, Some(flavor), settings),
                    );
                }
            }
        }
        let init = if settings.preload {
            INIT_LOADING
        } else {
            INIT_READY
        };
        let models = Models {
            inner: Arc::new(ModelsInner {
                handles,
                init: AtomicU8::new(init),
            }),
        };
        if settings.preload {
            let m = models.clone();
            actix::spawn(async move { m.preload().await });
        }
        models
    }

    async fn preload(&self) {
        let started = std::time::Instant::now();
        let loads = self.inner.handles.values().map(|h| h.ask(Load));
        let states = futures::future::join_all(loads).await;
        let failed = states
            .iter()
            .any(|s| !matches!(s, Ok(ModelState::Ready) | Ok(ModelState::Absent { .. })));
        let state = if failed { INIT_FAILED } else { INIT_READY };
        self.inner.init.store(state, Ordering::SeqCst);
        tracing::info!(
            ms = started.elapsed().as_millis() as u64,
            failed,
            "model preloading finished"
        );
    }

    pub fn init_state(&self) -> InitState {
        match self.inner.init.load(Ordering::SeqCst) {
            INIT_LOADING => InitState::Loading,
            INIT_READY => InitState::Ready,
            _ => InitState::Failed,
        }
    }

    /// The actor serving `model` with `flavor`: the flavour's own model when installed, else
    /// the standard one.
    fn handle(&self, model: ModelName, flavor: Option<Flavor>) -> Result<&ModelHandle> {
        let flavored = flavor.and_then(|f| {
            self.inner
                .handles
                .iter()
                .find(|((m, fl), _)| *m == model && *fl == Some(f))
                .map(|(_, h)| h)
        });
        let usable = flavored.filter(|h| !matches!(h.slot.state(), ModelState::Absent { .. }));
        usable
            .or_else(|| self.inner.handles.get(&(model, None)))
            .ok_or_else(|| Error::ModelAbsent {
                model: model.as_str().to_string(),
                reason: "no actor for this model".to_string(),
            })
    }

    /// Labels `seqs` (feature rows per token per sequence) with the model; one label per token.
    pub async fn label(
        &self,
        model: ModelName,
        flavor: Option<Flavor>,
        seqs: Vec<quire::features::Rows>,
    ) -> Result<Vec<quire::labels::Labels>> {
        if seqs.is_empty() {
            return Ok(Vec::new());
        }
        let handle = self.handle(model, flavor)?;
        // Dropped with this future when the request's deadline passes: the actor stops.
        let (msg, _waiting) = Label::new(seqs);
        handle.ask(msg).await?
    }

    /// Live swap: loads the model files in `dir` (a new version written beside the served
    /// one) on the calling thread, and when they load, makes `model` (with `flavor`) serve them
    /// from now on. Answers the slot (its served folder) and the new version. Requests being
    /// tagged finish on the model they started with; a failed load changes nothing.
    pub fn install_from(
        &self,
        model: ModelName,
        flavor: Option<Flavor>,
        dir: &std::path::Path,
    ) -> Result<(Arc<model::ModelSlot>, u64)> {
        let handle = self.handle_for(model, flavor)?;
        let slot = handle.slot.clone();
        let Some(feature_version) = slot.feature_version() else {
            return Err(Error::ModelAbsent {
                model: slot.key.clone(),
                reason: "Quire has no definition of this model".to_string(),
            });
        };
        let loaded = quire::tagger::Tagger::load(dir, feature_version)?;
        let version = slot.install(loaded);
        Ok((slot, version))
    }

    /// Live swap of a labeller loaded by the caller (a new BiLSTM-CRF checked against the
    /// slot's feature version); answers the new version.
    pub fn install_tagger(
        &self,
        model: ModelName,
        flavor: Option<Flavor>,
        tagger: quire::tagger::Tagger,
    ) -> Result<u64> {
        let handle = self.handle_for(model, flavor)?;
        Ok(handle.slot.install(tagger))
    }

    /// The actor that serves exactly `model` with `flavor`, for a live swap.
    fn handle_for(&self, model: ModelName, flavor: Option<Flavor>) -> Result<&ModelHandle> {
        self.inner
            .handles
            .iter()
            .find(|((m, f), _)| *m == model && *f == flavor)
            .map(|(_, h)| h)
            .ok_or_else(|| Error::ModelAbsent {
                model: model.dir_name(flavor),
                reason: "no model actor runs for this flavour (it starts at start-up when the \
                         flavour's files exist); restart the service to serve it"
                    .to_string(),
            })
    }

    /// Whether an actor serves exactly `model` with `flavor` (a flavour's actor starts only when
    /// its files exist at start-up).
    pub fn has_actor(&self, model: ModelName, flavor: Option<Flavor>) -> bool {
        self.inner
            .handles
            .keys()
            .any(|(m, f)| *m == model && *f == flavor)
    }

    /// Every model's served version, keyed by its folder name.
    pub fn versions(&self) -> BTreeMap<String, u64> {
        self.inner
            .handles
            .values()
            .map(|h| (h.slot.key.clone(), h.slot.version()))
            .collect()
    }

    /// The architecture each loaded model serves, keyed by its folder name.
    pub fn architectures(&self) -> BTreeMap<String, &'static str> {
        self.inner
            .handles
            .values()
            .filter_map(|h| Some((h.slot.key.clone(), h.slot.architecture()?)))
            .collect()
    }

    /// Every model's state, keyed by its folder name, for `/api/health`.
    pub fn states(&self) -> Vec<(String, ModelState)> {
        self.inner
            .handles
            .values()
            .map(|h| (h.slot.key.clone(), h.slot.state()))
            .collect()
    }

    /// Whether a model can be used (loaded, or present and loadable on first use).
    pub fn is_available(&self, model: ModelName) -> bool {
        self.handle(model, None)
            .map(|h| matches!(h.slot.state(), ModelState::Ready | ModelState::Unloaded))
            .unwrap_or(false)
    }

    /// Asks the model's actor to answer; returns how many times it has been started.
    pub async fn ping(&self, model: ModelName) -> Result<usize> {
        self.handle(model, None)?.ask(Ping).await
    }

    /// Test-only: makes the model's actor panic (see `model::Panic`).
    pub async fn panic_for_test(&self, model: ModelName) -> Result<()> {
        self.handle(model, None)?.ask(Panic).await?
    }

    /// Times each model's actor was rebuilt after a panic.
    pub fn restarts(&self, model: ModelName) -> usize {
        self.handle(model, None)
            .map(|h| h.slot.restarts())
            .unwrap_or(0)
    }

    /// Whether every model actor still accepts messages.
    pub fn all_connected(&self) -> bool {
        self.inner.handles.values().all(|h| h.connected())
    }
}

/// A builder for an outgoing HTTP client (the online consolidation services, the `quire
/// strings` command, tests). HTTPS goes through rustls with its `ring` provider, installed
/// here as the process default before the first client is built (reqwest refuses to build a
/// client without one); every client of the workspace is made through this function.
pub fn http_client() -> reqwest::blocking::ClientBuilder {
    static PROVIDER: std::sync::Once = std::sync::Once::new();
    PROVIDER.call_once(|| {
        // Fails only when another provider is already the default, which serves as well.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
    reqwest::blocking::Client::builder()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[actix::test]
    async fn an_empty_models_dir_starts_ready_with_every_model_absent() {
        let settings = ModelSettings {
            models_dir: std::env::temp_dir().join("quire-models-test-empty"),
            preload: true,
            ..ModelSettings::default()
        };
        let models = Models::start(&settings);
        for _ in 0..100 {
            if models.init_state() != InitState::Loading {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        assert_eq!(models.init_state(), InitState::Ready);
        let states = models.states();
        assert_eq!(states.len(), ModelName::ALL.len());
        assert!(states
            .iter()
            .all(|(_, s)| matches!(s, ModelState::Absent { .. })));
        assert!(!models.is_available(ModelName::Header));
        assert!(models.all_connected());
        // A flavour with no files of its own falls back to the standard model's actor.
        let err = models
            .label(
                ModelName::Header,
                Some(Flavor::ArticleLight),
                vec![vec![vec!["A".into()]]],
            )
            .await
            .expect_err("absent");
        assert!(
            matches!(&err, Error::ModelAbsent { model, .. } if model == "header"),
            "{err}"
        );
        assert_eq!(models.ping(ModelName::Header).await.ok(), Some(1));
    }
}
