/*!
Consolidation as the cascades see it: a [`Consolidation`] handle in every [`crate::CascadeCtx`],
shared by all requests. Lookups are synchronous index searches, so they run on the blocking
thread pool, all of a request's items in one task, bounded by `timeout`: past it the items
stay as extracted (a lookup never fails a request). When there is no index (the folder is
absent or empty) or the configured service has no client in this build, every call is a
no-op and [`Applied`] says so, so that the TEI can say what was done.
*/

use std::sync::Arc;
use std::time::Duration;

use quire::consolidation::{merge, Consolidator, Extracted, Mode, Record, EMBEDDED};
use quire::document::HeaderRecord;
use quire::models::citation::Citation;

use crate::CascadeCtx;

/// The shared consolidation backend of the service.
#[derive(Clone)]
pub struct Consolidation {
    backend: Option<Arc<Consolidator>>,
    /// Why there is no backend (shown in the TEI and the logs).
    absent: String,
    timeout: Duration,
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
        }
    }

    /// No backend; `why` says so in every answer that asked for consolidation.
    pub fn none(why: &str) -> Consolidation {
        Consolidation {
            backend: None,
            absent: why.to_string(),
            timeout: Duration::from_secs(60),
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
        let work = CascadeCtx::blocking("consolidation", move || {
            Ok(items
                .iter()
                .map(|e| match backend.find(e, doi_only) {
                    Ok(found) => found.map(|o| o.record),
                    Err(err) => {
                        tracing::warn!("consolidation lookup failed: {err}");
                        None
                    }
                })
                .collect::<Vec<_>>())
        });
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
        let mut consolidated = 0;
        for (c, record) in targets.iter_mut().zip(&found) {
            if let Some(r) = record {
                merge::citation(c, r, mode, EMBEDDED);
                consolidated += 1;
            }
        }
        Applied {
            value,
            looked_up: targets.len(),
            consolidated,
            note: Some(EMBEDDED.to_string()),
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
                note: Some(EMBEDDED.to_string()),
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
            note: Some(EMBEDDED.to_string()),
        }
    }
}
