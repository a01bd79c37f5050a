/*!
Consolidation as the cascades see it: a [`Consolidation`] handle in every [`crate::CascadeCtx`],
shared by all requests, over one [`Consolidator`] whose source is the embedded index or an
online service ([`online`]: Crossref, biblio-glutton). Lookups are synchronous, so they run on
the blocking thread pool: the embedded index's all in one task (they take microseconds), an
online service's one task per item, at most `max_in_flight` at once across all requests. A
request's lookups are bounded by `timeout`: past it the items stay as extracted (a lookup never
fails a request). When there is no index (the folder is absent or empty), every call is a
no-op and [`Applied`] says so, so that the TEI can say what was done.
*/

pub mod online;

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt as _;
use quire::consolidation::{funders, merge, Consolidator, Extracted, FunderRegistry, Mode, Record};
use quire::document::{Funding, HeaderRecord};
use quire::models::citation::Citation;
use tokio::sync::Semaphore;

use crate::CascadeCtx;

/// The shared consolidation backend of the service.
#[derive(Clone)]
pub struct Consolidation {
    backend: Option<Arc<Consolidator>>,
    /// Why there is no backend (shown in the TEI and the logs).
    absent: String,
    timeout: Duration,
    /// Online sources: lookups in flight at once, across requests (`None`: the embedded
    /// index, all of a request's lookups in one task).
    in_flight: Option<Arc<Semaphore>>,
    /// The Crossref Funder Registry (`consolidateFunders`), in memory, whatever the works
    /// backend is.
    funders: Option<Arc<FunderRegistry>>,
}

impl Default for Consolidation {
    fn default() -> Self {
        Consolidation::none("no bibliographic index")
    }
}

/// What a consolidation step did, for the TEI's parameters label.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Applied {
    /// The value applied (0 when nothing could be looked up).
    pub value: i64,
    /// Items looked up and items consolidated.
    pub looked_up: usize,
    pub consolidated: usize,
    /// What the label says: the source (`embedded`), or why nothing was done.
    pub note: Option<String>,
}

impl Consolidation {
    /// The embedded index as the backend.
    pub fn embedded(consolidator: Consolidator, timeout: Duration) -> Consolidation {
        Consolidation {
            backend: Some(Arc::new(consolidator)),
            absent: String::new(),
            timeout,
            in_flight: None,
            funders: None,
        }
    }

    /// The same backend, with `registry` answering `consolidateFunders`.
    pub fn with_funders(mut self, registry: Option<FunderRegistry>) -> Consolidation {
        self.funders = registry.filter(|r| !r.is_empty()).map(Arc::new);
        self
    }

    /// An online service (Crossref, biblio-glutton) as the backend, with at most
    /// `max_in_flight` lookups at once across all requests.
    pub fn online(
        cfg: online::OnlineConfig,
        timeout: Duration,
        max_in_flight: usize,
    ) -> Consolidation {
        Consolidation {
            backend: Some(Arc::new(Consolidator::new(Box::new(
                online::OnlineSource::new(cfg),
            )))),
            absent: String::new(),
            timeout,
            in_flight: Some(Arc::new(Semaphore::new(max_in_flight.max(1)))),
            funders: None,
        }
    }

    /// The source's name as the TEI notes it (`embedded`, `crossref`, `glutton`).
    fn source(&self) -> String {
        self.backend
            .as_ref()
            .map_or_else(String::new, |b| b.source_name().to_string())
    }

    /// No backend; `why` says so in every answer that asked for consolidation.
    pub fn none(why: &str) -> Consolidation {
        Consolidation {
            backend: None,
            absent: why.to_string(),
            timeout: Duration::from_secs(60),
            in_flight: None,
            funders: None,
        }
    }

    pub fn is_available(&self) -> bool {
        self.backend.is_some()
    }

    /// Looks every item up on the blocking pool within the timeout; `None` per item not
    /// found. A timeout or a failure leaves all items unmatched (logged).
    async fn find_all(&self, items: Vec<Extracted>, doi_only: bool) -> Vec<Option<Record>> {
        let n = items.len();
        let Some(backend) = self.backend.clone() else {
            return vec![None; n];
        };
        let find = move |backend: &Consolidator, e: &Extracted| match backend.find(e, doi_only) {
            Ok(found) => found.map(|o| o.record),
            Err(err) => {
                tracing::warn!("consolidation lookup failed: {err}");
                None
            }
        };
        let work = async {
            match &self.in_flight {
                None => {
                    CascadeCtx::blocking("consolidation", move || {
                        Ok(items.iter().map(|e| find(&backend, e)).collect::<Vec<_>>())
                    })
                    .await
                }
                Some(slots) => {
                    // One blocking task per item, each holding one of the shared slots; the
                    // answers come back in the items' order.
                    let lookups = items.into_iter().map(|e| {
                        let backend = backend.clone();
                        let slots = slots.clone();
                        async move {
                            let Ok(_slot) = slots.acquire_owned().await else {
                                return None;
                            };
                            CascadeCtx::blocking("consolidation", move || Ok(find(&backend, &e)))
                                .await
                                .ok()
                                .flatten()
                        }
                    });
                    Ok(futures::stream::iter(lookups)
                        .buffered(n.max(1))
                        .collect::<Vec<_>>()
                        .await)
                }
            }
        };
        match tokio::time::timeout(self.timeout, work).await {
            Ok(Ok(found)) => found,
            Ok(Err(e)) => {
                tracing::warn!("consolidation failed: {e}");
                vec![None; n]
            }
            Err(_) => {
                tracing::warn!(
                    items = n,
                    "consolidation took longer than {} s; items left as extracted",
                    self.timeout.as_secs()
                );
                vec![None; n]
            }
        }
    }

    fn unavailable(&self, value: i64) -> Applied {
        Applied {
            value: 0,
            note: (value != 0).then(|| format!("none ({})", self.absent)),
            ..Applied::default()
        }
    }

    /// Consolidates citations with `value` (`consolidateCitations`: 1 merge, 2 DOI only;
    /// another value does nothing). Empty citations are not looked up.
    pub async fn citations<'c>(
        &self,
        cits: impl IntoIterator<Item = &'c mut Citation>,
        value: i64,
    ) -> Applied {
        let Some(mode) = Mode::from_value(value, false) else {
            return Applied::default();
        };
        if !self.is_available() {
            return self.unavailable(value);
        }
        let mut targets: Vec<&mut Citation> = cits.into_iter().filter(|c| !c.is_empty()).collect();
        let items = targets
            .iter()
            .map(|c| Extracted::from_citation(c))
            .collect();
        let found = self.find_all(items, false).await;
        let source = self.source();
        let mut consolidated = 0;
        for (c, record) in targets.iter_mut().zip(&found) {
            if let Some(r) = record {
                merge::citation(c, r, mode, &source);
                consolidated += 1;
            }
        }
        Applied {
            value,
            looked_up: targets.len(),
            consolidated,
            note: Some(source),
        }
    }

    /// Consolidates the funders of `fundings` with `value` (`consolidateFunders`: 1 the
    /// registry's record replaces the printed name, 2 adds only its DOI) against the Funder
    /// Registry. The registry is in memory: lookups take microseconds and run in place.
    pub fn funders(&self, fundings: &mut [Funding], value: i64) -> Applied {
        let Some(mode) = Mode::from_value(value, false) else {
            return Applied::default();
        };
        let Some(registry) = self.funders.as_ref() else {
            return Applied {
                value: 0,
                note: Some("none (no funder registry)".into()),
                ..Applied::default()
            };
        };
        let mut looked_up = 0;
        let mut consolidated = 0;
        for f in fundings.iter_mut() {
            let Some(name) = f.funder.as_deref() else {
                continue;
            };
            looked_up += 1;
            if let Some((record, _)) = registry.lookup(name) {
                funders::merge(f, record, mode);
                consolidated += 1;
            }
        }
        Applied {
            value,
            looked_up,
            consolidated,
            note: Some("funder-registry".into()),
        }
    }

    /// Consolidates a header with `value` (`consolidateHeader`: 1 merge, 2 DOI only, 3 merge
    /// from an extracted DOI only).
    pub async fn header(&self, h: &mut HeaderRecord, value: i64) -> Applied {
        let Some(mode) = Mode::from_value(value, true) else {
            return Applied::default();
        };
        if !self.is_available() {
            return self.unavailable(value);
        }
        if h.is_empty() {
            return Applied {
                value,
                note: Some(self.source()),
                ..Applied::default()
            };
        }
        let found = self
            .find_all(vec![Extracted::from_header(h)], mode.doi_lookup_only())
            .await;
        let mut consolidated = 0;
        if let Some(Some(r)) = found.first() {
            merge::header(h, r, mode);
            consolidated = 1;
        }
        Applied {
            value,
            looked_up: 1,
            consolidated,
            note: Some(self.source()),
        }
    }
}
