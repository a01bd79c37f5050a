/*!
The online consolidation sources: Crossref's REST API and biblio-glutton's lookup API, as
[`Source`]s for the engine's [`quire::consolidation::Consolidator`], which applies the same
matching to their answers as to the embedded index's.

Each source is one shared blocking HTTP client (built on first use, on the blocking pool) with:
- a per-lookup timeout (`consolidation.lookup_timeout_s`);
- Crossref's polite-pool manners: `mailto` as a query parameter and in the `User-Agent`, the
  Plus token as `Crossref-Plus-API-Token: Bearer …` when configured;
- one retry after a `429 Too Many Requests`, after the `Retry-After` the service asks for when
  that fits in the lookup timeout;
- a circuit breaker: after [`FAILURES_TO_OPEN`] failed lookups in a row the source is skipped
  for [`OPEN_FOR`], then tried again; a dead service costs one timeout per lookup only until
  the breaker opens;
- an LRU cache of answers (DOI lookups and searches), so a reference cited by many documents
  is asked for once.

Every lookup is counted in `quire_consolidation_lookups_total{source, outcome}` (outcome:
`found`, `not_found`, `cached`, `error`, `skipped`). The number of lookups in flight is bounded
by the caller ([`super::Consolidation`]).
*/

use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use lru::LruCache;
use quire::consolidation::{parse_work, Extracted, Record, Source};
use quire::doi::normalize as normalize_doi;
use serde_json::Value;

use crate::metrics::metrics;

/// Failed lookups in a row that open the circuit breaker.
pub const FAILURES_TO_OPEN: u32 = 5;
/// How long an open breaker skips the source.
pub const OPEN_FOR: Duration = Duration::from_secs(30);
/// Answers kept in the cache.
const CACHE_ENTRIES: usize = 20_000;

/// Which online service.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Service {
    Crossref,
    Glutton,
}

impl Service {
    pub fn name(self) -> &'static str {
        match self {
            Service::Crossref => "crossref",
            Service::Glutton => "glutton",
        }
    }
}

/// How to reach an online service.
#[derive(Debug, Clone)]
pub struct OnlineConfig {
    pub service: Service,
    /// Base URL: Crossref's API root, or the glutton server's root.
    pub base_url: String,
    /// Crossref polite pool: a contact address.
    pub mailto: String,
    /// Crossref Plus token.
    pub token: String,
    pub lookup_timeout: Duration,
}

/// An online [`Source`].
pub struct OnlineSource {
    cfg: OnlineConfig,
    client: OnceLock<Result<reqwest::blocking::Client, String>>,
    cache: Mutex<LruCache<String, Vec<Record>>>,
    failures: AtomicU32,
    open_until: Mutex<Option<Instant>>,
}

/// Why a lookup failed.
fn failure(service: Service, what: impl std::fmt::Display) -> quire::Error {
    quire::Error::General(format!("{} lookup failed: {what}", service.name()))
}

impl OnlineSource {
    pub fn new(cfg: OnlineConfig) -> OnlineSource {
        OnlineSource {
            cfg,
            client: OnceLock::new(),
            cache: Mutex::new(LruCache::new(
                NonZeroUsize::new(CACHE_ENTRIES).unwrap_or(NonZeroUsize::MIN),
            )),
            failures: AtomicU32::new(0),
            open_until: Mutex::new(None),
        }
    }

    fn client(&self) -> quire::Result<&reqwest::blocking::Client> {
        let built = self.client.get_or_init(|| {
            let agent = if self.cfg.mailto.is_empty() {
                format!("quire/{}", env!("CARGO_PKG_VERSION"))
            } else {
                format!(
                    "quire/{} (mailto:{})",
                    env!("CARGO_PKG_VERSION"),
                    self.cfg.mailto
                )
            };
            let mut headers = reqwest::header::HeaderMap::new();
            if !self.cfg.token.is_empty() {
                let value = format!("Bearer {}", self.cfg.token);
                let value = reqwest::header::HeaderValue::from_str(&value)
                    .map_err(|e| format!("crossref_token: {e}"))?;
                headers.insert("Crossref-Plus-API-Token", value);
            }
            crate::http_client()
                .user_agent(agent)
                .default_headers(headers)
                .timeout(self.cfg.lookup_timeout)
                .connect_timeout(self.cfg.lookup_timeout)
                .build()
                .map_err(|e| e.to_string())
        });
        built
            .as_ref()
            .map_err(|e| failure(self.cfg.service, format!("no HTTP client: {e}")))
    }

    /// Whether the breaker lets a lookup through now.
    fn closed(&self) -> bool {
        let mut open = self.open_until.lock().unwrap_or_else(|p| p.into_inner());
        match *open {
            Some(until) if Instant::now() < until => false,
            Some(_) => {
                // Half-open: let lookups through again; one more failure reopens it.
                *open = None;
                self.failures
                    .store(FAILURES_TO_OPEN.saturating_sub(1), Ordering::Relaxed);
                true
            }
            None => true,
        }
    }

    fn record_outcome(&self, ok: bool) {
        if ok {
            self.failures.store(0, Ordering::Relaxed);
            return;
        }
        let n = self.failures.fetch_add(1, Ordering::Relaxed) + 1;
        if n >= FAILURES_TO_OPEN {
            let mut open = self.open_until.lock().unwrap_or_else(|p| p.into_inner());
            if open.is_none() {
                tracing::warn!(
                    source = self.cfg.service.name(),
                    "{n} consolidation lookups failed in a row; skipping the service for {} s",
                    OPEN_FOR.as_secs()
                );
                *open = Some(Instant::now() + OPEN_FOR);
            }
        }
    }

    fn count(&self, outcome: &str) {
        metrics()
            .consolidation_lookups
            .with_label_values(&[self.cfg.service.name(), outcome])
            .inc();
    }

    /// One GET: `Ok(Some(json))` for 200, `Ok(None)` for 404, an error otherwise. A 429 is
    /// retried once after its `Retry-After` when that fits in the lookup timeout.
    fn get(&self, url: reqwest::Url) -> quire::Result<Option<Value>> {
        let service = self.cfg.service;
        let client = self.client()?;
        let mut retried = false;
        loop {
            let resp = client
                .get(url.clone())
                .header(reqwest::header::ACCEPT, "application/json")
                .send()
                .map_err(|e| failure(service, e))?;
            let status = resp.status();
            if status == reqwest::StatusCode::NOT_FOUND {
                return Ok(None);
            }
            if status == reqwest::StatusCode::TOO_MANY_REQUESTS && !retried {
                let wait = resp
                    .headers()
                    .get(reqwest::header::RETRY_AFTER)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.trim().parse::<f64>().ok())
                    .map_or(Duration::from_secs(1), Duration::from_secs_f64);
                if wait <= self.cfg.lookup_timeout {
                    std::thread::sleep(wait);
                    retried = true;
                    continue;
                }
            }
            if !status.is_success() {
                return Err(failure(service, format!("HTTP {status}")));
            }
            return resp
                .json::<Value>()
                .map(Some)
                .map_err(|e| failure(service, format!("the answer is not JSON: {e}")));
        }
    }

    /// A URL under the base with `segments` appended and `query` pairs (the polite pool's
    /// `mailto` added for Crossref).
    fn url(&self, segments: &[&str], query: &[(&str, String)]) -> quire::Result<reqwest::Url> {
        let mut url =
            reqwest::Url::parse(self.cfg.base_url.trim_end_matches('/')).map_err(|e| {
                failure(
                    self.cfg.service,
                    format!("bad URL `{}`: {e}", self.cfg.base_url),
                )
            })?;
        url.path_segments_mut()
            .map_err(|_| failure(self.cfg.service, "the base URL cannot take a path"))?
            .pop_if_empty()
            .extend(segments);
        {
            let mut pairs = url.query_pairs_mut();
            for (k, v) in query {
                pairs.append_pair(k, v);
            }
            if self.cfg.service == Service::Crossref && !self.cfg.mailto.is_empty() {
                pairs.append_pair("mailto", &self.cfg.mailto);
            }
        }
        if url.query() == Some("") {
            url.set_query(None);
        }
        Ok(url)
    }

    /// Looks `key` up through the cache and the breaker; `fetch` asks the service.
    fn lookup(
        &self,
        key: String,
        fetch: impl FnOnce() -> quire::Result<Vec<Record>>,
    ) -> quire::Result<Vec<Record>> {
        if let Some(hit) = self
            .cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
        {
            self.count("cached");
            return Ok(hit.clone());
        }
        if !self.closed() {
            self.count("skipped");
            return Err(failure(
                self.cfg.service,
                "skipped: the service failed repeatedly (circuit breaker open)",
            ));
        }
        match fetch() {
            Ok(records) => {
                self.record_outcome(true);
                self.count(if records.is_empty() {
                    "not_found"
                } else {
                    "found"
                });
                self.cache
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .put(key, records.clone());
                Ok(records)
            }
            Err(e) => {
                self.record_outcome(false);
                self.count("error");
                Err(e)
            }
        }
    }
}

/// A work object out of a service's answer: Crossref wraps it in `message`, glutton does not.
fn work_of(v: &Value) -> Option<Record> {
    let work = v.get("message").filter(|m| m.is_object()).unwrap_or(v);
    parse_work(work).ok()
}

/// The words Crossref's `query.bibliographic` gets: title, container, year, volume, page.
fn bibliographic_query(e: &Extracted) -> String {
    let year = e.year.map(|y| y.to_string());
    [
        e.title.as_deref(),
        e.container.as_deref(),
        year.as_deref(),
        e.volume.as_deref(),
        e.first_page.as_deref(),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(" ")
}

impl Source for OnlineSource {
    fn name(&self) -> &str {
        self.cfg.service.name()
    }

    fn by_doi(&self, doi: &str) -> quire::Result<Option<Record>> {
        let Some(doi) = normalize_doi(doi) else {
            return Ok(None);
        };
        let found = self.lookup(format!("doi:{doi}"), || {
            let url = match self.cfg.service {
                Service::Crossref => self.url(&["works", &doi], &[])?,
                Service::Glutton => self.url(&["service", "lookup"], &[("doi", doi.clone())])?,
            };
            Ok(self
                .get(url)?
                .as_ref()
                .and_then(work_of)
                .into_iter()
                .collect())
        })?;
        Ok(found.into_iter().next())
    }

    fn search(&self, e: &Extracted, limit: usize) -> quire::Result<Vec<Record>> {
        let mut query: Vec<(&str, String)> = Vec::new();
        match self.cfg.service {
            Service::Crossref => {
                query.push(("query.bibliographic", bibliographic_query(e)));
                if let Some(a) = &e.first_author {
                    query.push(("query.author", a.clone()));
                }
                query.push(("rows", limit.to_string()));
            }
            Service::Glutton => {
                let fields = [
                    ("atitle", e.title.clone()),
                    ("firstAuthor", e.first_author.clone()),
                    ("jtitle", e.container.clone()),
                    ("volume", e.volume.clone()),
                    ("firstPage", e.first_page.clone()),
                ];
                query.extend(fields.into_iter().filter_map(|(k, v)| v.map(|v| (k, v))));
            }
        }
        let key = format!(
            "search:{}",
            query
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join("&")
        );
        self.lookup(key, || {
            let url = match self.cfg.service {
                Service::Crossref => self.url(&["works"], &query)?,
                Service::Glutton => self.url(&["service", "lookup"], &query)?,
            };
            let Some(answer) = self.get(url)? else {
                return Ok(Vec::new());
            };
            Ok(match self.cfg.service {
                // A list answer: `message.items`.
                Service::Crossref => answer
                    .pointer("/message/items")
                    .and_then(Value::as_array)
                    .map(|items| {
                        items
                            .iter()
                            .filter_map(|w| parse_work(w).ok())
                            .take(limit)
                            .collect()
                    })
                    .unwrap_or_default(),
                // glutton answers with its one best record.
                Service::Glutton => work_of(&answer).into_iter().collect(),
            })
        })
    }
}
