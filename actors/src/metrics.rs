/*!
Process-wide metrics: one Prometheus registry for the whole service plus the small per-endpoint
rate tables behind the admin `/metrics` JSON. Everything here is a counter or gauge updated with
atomics; the HTTP layer calls [`Metrics::observe_request`] once per request, the pool and the
model actors update their gauges, and [`install_panic_hook`] counts every panic in the process.
*/

use std::collections::BTreeMap;
use std::sync::{LazyLock, Mutex};
use std::time::{Duration, Instant};

use prometheus::{
    Encoder, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge, IntGaugeVec, Opts,
    Registry, TextEncoder,
};

/// Latency buckets (seconds), from raw-string calls (ms) to full-text PDFs (tens of seconds).
const LATENCY_BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0,
];

/// Seconds kept for the one-minute rates of the admin JSON.
const WINDOW_S: usize = 60;

/// All of the service's metrics. Get the process-wide instance with [`metrics`].
pub struct Metrics {
    registry: Registry,
    pub http_requests: IntCounterVec,
    pub http_latency: HistogramVec,
    pub pool_active: IntGauge,
    pub pool_max: IntGauge,
    pub pool_waiting: IntGauge,
    pub pool_rejected: IntCounterVec,
    pub model_in_flight: IntGaugeVec,
    pub model_rejected: IntCounterVec,
    pub model_panics: IntCounterVec,
    pub model_restarts: IntCounterVec,
    /// Which version of each model serves (1 at start-up, +1 per live swap after training).
    pub model_version: IntGaugeVec,
    pub panics: IntCounter,
    pub cascades_cancelled: IntCounter,
    pub model_sequences: IntCounterVec,
    pub model_abandoned: IntCounterVec,
    pub stage_seconds: HistogramVec,
    pub pdf_workers_started: IntGauge,
    pub pdf_workers_lost: IntGauge,
    pub pdf_workers_idle: IntGauge,
    endpoints: Mutex<BTreeMap<String, EndpointStats>>,
    started: Instant,
}

static METRICS: LazyLock<Metrics> = LazyLock::new(Metrics::new);

/// The process-wide metrics.
pub fn metrics() -> &'static Metrics {
    &METRICS
}

fn counter_vec(name: &str, help: &str, labels: &[&str]) -> IntCounterVec {
    IntCounterVec::new(Opts::new(name, help), labels).unwrap_or_else(|e| unreachable(name, e))
}

fn gauge(name: &str, help: &str) -> IntGauge {
    IntGauge::new(name, help).unwrap_or_else(|e| unreachable(name, e))
}

/// Metric construction only fails on a malformed name, which is a bug in this file.
fn unreachable<T>(name: &str, e: prometheus::Error) -> T {
    panic!("metric `{name}` is malformed: {e}")
}

impl Metrics {
    fn new() -> Metrics {
        let registry = Registry::new();
        let http_requests = counter_vec(
            "quire_http_requests_total",
            "HTTP requests by endpoint, method and status",
            &["endpoint", "method", "status"],
        );
        let http_latency = HistogramVec::new(
            HistogramOpts::new(
                "quire_http_request_duration_seconds",
                "HTTP request latency by endpoint",
            )
            .buckets(LATENCY_BUCKETS.to_vec()),
            &["endpoint"],
        )
        .unwrap_or_else(|e| unreachable("quire_http_request_duration_seconds", e));
        let pool_active = gauge("quire_pool_active", "Requests holding a processing slot");
        let pool_max = gauge(
            "quire_pool_max",
            "Processing slots (config pool.concurrency)",
        );
        let pool_waiting = gauge(
            "quire_pool_waiting",
            "Requests waiting for a processing slot",
        );
        let pool_rejected = counter_vec(
            "quire_pool_rejected_total",
            "Requests answered 503 because no slot freed up in time",
            &["endpoint"],
        );
        let model_in_flight = IntGaugeVec::new(
            Opts::new(
                "quire_model_in_flight",
                "Messages queued or running in a model actor's mailbox",
            ),
            &["model"],
        )
        .unwrap_or_else(|e| unreachable("quire_model_in_flight", e));
        let model_rejected = counter_vec(
            "quire_model_rejected_total",
            "Messages refused because a model actor's queue was full",
            &["model"],
        );
        let model_abandoned = counter_vec(
            "quire_model_sequences_abandoned_total",
            "Sequences a model actor did not tag because their request had stopped waiting (timeout)",
            &["model"],
        );
        let model_panics = counter_vec(
            "quire_model_panics_total",
            "Panics caught inside model actors",
            &["model"],
        );
        let model_restarts = counter_vec(
            "quire_model_restarts_total",
            "Model actors rebuilt after a panic",
            &["model"],
        );
        let model_version = IntGaugeVec::new(
            Opts::new(
                "quire_model_version",
                "Version of each served model: 1 at start-up, one more per live swap after training",
            ),
            &["model"],
        )
        .unwrap_or_else(|e| unreachable("quire_model_version", e));
        let panics = IntCounter::new("quire_panics_total", "Panics anywhere in the process")
            .unwrap_or_else(|e| unreachable("quire_panics_total", e));

        let cascades_cancelled = IntCounter::new(
            "quire_cascades_cancelled_total",
            "Request cascades stopped at their time limit (no model call starts after it)",
        )
        .unwrap_or_else(|e| unreachable("quire_cascades_cancelled_total", e));
        let model_sequences = counter_vec(
            "quire_model_sequences_labelled_total",
            "Sequences labelled by each model",
            &["model"],
        );
        let stage_seconds = HistogramVec::new(
            HistogramOpts::new(
                "quire_stage_duration_seconds",
                "Wall time of each document pipeline stage (layout, segment, header, \
                 references, body), model waits included",
            )
            .buckets(LATENCY_BUCKETS.to_vec()),
            &["stage"],
        )
        .unwrap_or_else(|e| unreachable("quire_stage_duration_seconds", e));

        let pdf_workers_started = gauge(
            "quire_pdf_workers_started",
            "PDF layout worker processes started since start-up",
        );
        let pdf_workers_lost = gauge(
            "quire_pdf_workers_lost",
            "PDF layout workers that died, timed out or broke the protocol (each is replaced)",
        );
        let pdf_workers_idle = gauge(
            "quire_pdf_workers_idle",
            "PDF layout workers waiting for a job",
        );
        let collectors: Vec<Box<dyn prometheus::core::Collector>> = vec![
            Box::new(http_requests.clone()),
            Box::new(http_latency.clone()),
            Box::new(pool_active.clone()),
            Box::new(pool_max.clone()),
            Box::new(pool_waiting.clone()),
            Box::new(pool_rejected.clone()),
            Box::new(model_in_flight.clone()),
            Box::new(model_rejected.clone()),
            Box::new(model_panics.clone()),
            Box::new(model_restarts.clone()),
            Box::new(model_version.clone()),
            Box::new(panics.clone()),
            Box::new(cascades_cancelled.clone()),
            Box::new(model_sequences.clone()),
            Box::new(model_abandoned.clone()),
            Box::new(stage_seconds.clone()),
            Box::new(pdf_workers_started.clone()),
            Box::new(pdf_workers_lost.clone()),
            Box::new(pdf_workers_idle.clone()),
            Box::new(prometheus::process_collector::ProcessCollector::for_self()),
        ];
        for c in collectors {
            if let Err(e) = registry.register(c) {
                tracing::warn!("metric registration failed: {e}");
            }
        }
        Metrics {
            registry,
            http_requests,
            http_latency,
            pool_active,
            pool_max,
            pool_waiting,
            pool_rejected,
            model_in_flight,
            model_rejected,
            model_panics,
            model_restarts,
            model_version,
            panics,
            cascades_cancelled,
            model_sequences,
            model_abandoned,
            stage_seconds,
            pdf_workers_started,
            pdf_workers_lost,
            pdf_workers_idle,
            endpoints: Mutex::new(BTreeMap::new()),
            started: Instant::now(),
        }
    }

    /// Records one finished HTTP request. `endpoint` is the route pattern (never the raw path,
    /// which would let clients create unbounded label sets).
    pub fn observe_request(&self, endpoint: &str, method: &str, status: u16, elapsed: Duration) {
        self.http_requests
            .with_label_values(&[endpoint, method, &status.to_string()])
            .inc();
        self.http_latency
            .with_label_values(&[endpoint])
            .observe(elapsed.as_secs_f64());
        let now_s = self.started.elapsed().as_secs();
        let mut table = self.endpoints.lock().unwrap_or_else(|p| p.into_inner());
        table
            .entry(endpoint.to_string())
            .or_default()
            .record(now_s, status, elapsed);
    }

    /// The Prometheus text exposition of every metric.
    pub fn prometheus_text(&self) -> String {
        let mut buf = Vec::new();
        if let Err(e) = TextEncoder::new().encode(&self.registry.gather(), &mut buf) {
            tracing::warn!("prometheus encoding failed: {e}");
        }
        String::from_utf8_lossy(&buf).into_owned()
    }

    pub fn uptime(&self) -> Duration {
        self.started.elapsed()
    }

    /// Per-endpoint request rate and throughput, for the admin `/metrics` JSON.
    pub fn endpoints_json(&self) -> serde_json::Value {
        let now_s = self.started.elapsed().as_secs();
        let uptime = self.started.elapsed().as_secs_f64().max(1e-3);
        let table = self.endpoints.lock().unwrap_or_else(|p| p.into_inner());
        let map: serde_json::Map<String, serde_json::Value> = table
            .iter()
            .map(|(name, s)| (name.clone(), s.to_json(now_s, uptime)))
            .collect();
        serde_json::Value::Object(map)
    }
}

/// Counters behind one endpoint's entry in the admin JSON.
struct EndpointStats {
    count: u64,
    errors: u64,
    total_s: f64,
    max_s: f64,
    /// One bucket per second of the last minute: (second, requests, successful requests).
    window: [(u64, u32, u32); WINDOW_S],
}

impl Default for EndpointStats {
    fn default() -> Self {
        EndpointStats {
            count: 0,
            errors: 0,
            total_s: 0.0,
            max_s: 0.0,
            window: [(0, 0, 0); WINDOW_S],
        }
    }
}

impl EndpointStats {
    fn record(&mut self, now_s: u64, status: u16, elapsed: Duration) {
        let ok = status < 400;
        self.count += 1;
        if !ok {
            self.errors += 1;
        }
        let secs = elapsed.as_secs_f64();
        self.total_s += secs;
        self.max_s = self.max_s.max(secs);
        let slot = &mut self.window[(now_s % WINDOW_S as u64) as usize];
        if slot.0 != now_s {
            *slot = (now_s, 0, 0);
        }
        slot.1 += 1;
        slot.2 += u32::from(ok);
    }

    fn to_json(&self, now_s: u64, uptime_s: f64) -> serde_json::Value {
        let recent = self
            .window
            .iter()
            .filter(|(s, _, _)| now_s.saturating_sub(*s) < WINDOW_S as u64);
        let (reqs, oks) = recent.fold((0u64, 0u64), |(r, o), (_, n, k)| {
            (r + u64::from(*n), o + u64::from(*k))
        });
        let window = (WINDOW_S as f64).min(uptime_s.max(1.0));
        serde_json::json!({
            "count": self.count,
            "errors": self.errors,
            "mean_rate_per_s": self.count as f64 / uptime_s,
            "rate_1m_per_s": reqs as f64 / window,
            "throughput_1m_per_s": oks as f64 / window,
            "mean_latency_ms": if self.count == 0 { 0.0 } else { 1000.0 * self.total_s / self.count as f64 },
            "max_latency_ms": 1000.0 * self.max_s,
        })
    }
}

/// Installs (once) a panic hook that counts every panic in the process, logs it, and then runs
/// the previous hook. Panics caught by `catch_unwind` in model actors are counted too.
pub fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            metrics().panics.inc();
            tracing::error!(panic = %info, "panic");
            previous(info);
        }));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_show_up_in_both_exports() {
        let m = metrics();
        m.observe_request("/test/metrics", "GET", 200, Duration::from_millis(3));
        m.observe_request("/test/metrics", "GET", 503, Duration::from_millis(1));
        let text = m.prometheus_text();
        assert!(
            text.contains(
                r#"quire_http_requests_total{endpoint="/test/metrics",method="GET",status="503"} 1"#
            ),
            "{text}"
        );
        assert!(text.contains("process_resident_memory_bytes"), "{text}");
        let json = m.endpoints_json();
        let e = &json["/test/metrics"];
        assert_eq!(e["count"], 2);
        assert_eq!(e["errors"], 1);
        assert!(e["rate_1m_per_s"].as_f64().unwrap_or(0.0) > 0.0, "{e}");
        assert!(
            e["throughput_1m_per_s"].as_f64().unwrap_or(0.0) > 0.0,
            "{e}"
        );
    }

    #[test]
    fn window_forgets_old_seconds() {
        let mut s = EndpointStats::default();
        s.record(5, 200, Duration::from_millis(1));
        s.record(200, 200, Duration::from_millis(1));
        let json = s.to_json(200, 200.0);
        assert_eq!(json["count"], 2);
        assert!((json["rate_1m_per_s"].as_f64().unwrap_or(0.0) - 1.0 / 60.0).abs() < 1e-9);
    }
}
