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
    pub consolidation_lookups: IntCounterVec,
    pub pdf_workers_started: IntCounter,
    pub pdf_workers_lost: IntCounter,
    pub pdf_workers_recycled: IntCounter,
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

fn counter(name: &str, help: &str) -> IntCounter {
    IntCounter::new(name, help).unwrap_or_else(|e| unreachable(name, e))
}

/// Raises `counter` to `total` (a cumulative count kept elsewhere, e.g. by the worker pool).
pub fn set_counter(counter: &IntCounter, total: u64) {
    let now = counter.get();
    if total > now {
        counter.inc_by(total - now);
    }
}

/// The standard `process_*` metrics of this process, read from `/proc/self` at each scrape.
/// Unlike the prometheus crate's process collector, `process_cpu_seconds_total` keeps its
/// fraction (clock-tick resolution) instead of whole seconds.
struct ProcessMetrics {
    cpu: prometheus::Counter,
    resident: IntGauge,
    virtual_bytes: IntGauge,
    open_fds: IntGauge,
    max_fds: IntGauge,
    threads: IntGauge,
    start_time: prometheus::Gauge,
    descs: Vec<prometheus::core::Desc>,
}

impl ProcessMetrics {
    fn new() -> ProcessMetrics {
        let float_gauge = |name: &str, help: &str| {
            prometheus::Gauge::new(name, help).unwrap_or_else(|e| unreachable(name, e))
        };
        let m = ProcessMetrics {
            cpu: prometheus::Counter::new(
                "process_cpu_seconds_total",
                "Total user and system CPU time spent in seconds",
            )
            .unwrap_or_else(|e| unreachable("process_cpu_seconds_total", e)),
            resident: gauge(
                "process_resident_memory_bytes",
                "Resident memory size in bytes",
            ),
            virtual_bytes: gauge(
                "process_virtual_memory_bytes",
                "Virtual memory size in bytes",
            ),
            open_fds: gauge("process_open_fds", "Number of open file descriptors"),
            max_fds: gauge("process_max_fds", "Maximum number of open file descriptors"),
            threads: gauge("process_threads", "Number of OS threads in the process"),
            start_time: float_gauge(
                "process_start_time_seconds",
                "Start time of the process since unix epoch in seconds",
            ),
            descs: Vec::new(),
        };
        let descs = m
            .parts()
            .iter()
            .flat_map(|c| c.desc().into_iter().cloned())
            .collect();
        ProcessMetrics { descs, ..m }
    }

    fn parts(&self) -> [&dyn prometheus::core::Collector; 7] {
        [
            &self.cpu,
            &self.resident,
            &self.virtual_bytes,
            &self.open_fds,
            &self.max_fds,
            &self.threads,
            &self.start_time,
        ]
    }

    fn refresh(&self) {
        // SAFETY: sysconf has no preconditions.
        let (hz, page) = unsafe {
            (
                libc::sysconf(libc::_SC_CLK_TCK).max(1) as f64,
                libc::sysconf(libc::_SC_PAGESIZE).max(1) as i64,
            )
        };
        if let Ok(stat) = std::fs::read_to_string("/proc/self/stat") {
            // Fields after the command name: index 0 is field 3 (state).
            let rest = stat.rfind(')').map(|i| &stat[i + 1..]).unwrap_or("");
            let f: Vec<&str> = rest.split_whitespace().collect();
            let num = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
            let cpu = (num(11) + num(12)) / hz;
            let delta = cpu - self.cpu.get();
            if delta > 0.0 {
                self.cpu.inc_by(delta);
            }
            self.threads.set(num(17) as i64);
            self.virtual_bytes.set(num(20) as i64);
            self.resident.set(num(21) as i64 * page);
            let boot = std::fs::read_to_string("/proc/stat")
                .ok()
                .and_then(|s| {
                    s.lines()
                        .find_map(|l| l.strip_prefix("btime "))
                        .and_then(|v| v.trim().parse::<f64>().ok())
                })
                .unwrap_or(0.0);
            self.start_time.set(boot + num(19) / hz);
        }
        if let Ok(dir) = std::fs::read_dir("/proc/self/fd") {
            self.open_fds.set(dir.count() as i64);
        }
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes into the struct it is given.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } == 0 {
            self.max_fds.set(lim.rlim_cur as i64);
        }
    }
}

impl prometheus::core::Collector for ProcessMetrics {
    fn desc(&self) -> Vec<&prometheus::core::Desc> {
        self.descs.iter().collect()
    }

    fn collect(&self) -> Vec<prometheus::proto::MetricFamily> {
        self.refresh();
        self.parts().iter().flat_map(|c| c.collect()).collect()
    }
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
        let consolidation_lookups = counter_vec(
            "quire_consolidation_lookups_total",
            "Lookups in an online consolidation service by outcome (found, not_found, cached, \
             error, skipped while its circuit breaker is open)",
            &["source", "outcome"],
        );

        let pdf_workers_started = counter(
            "quire_pdf_workers_started_total",
            "PDF layout worker processes started since start-up",
        );
        let pdf_workers_lost = counter(
            "quire_pdf_workers_lost_total",
            "PDF layout workers that died, timed out, broke the protocol or failed their health \
             check before a job (each is replaced)",
        );
        let pdf_workers_recycled = counter(
            "quire_pdf_workers_recycled_total",
            "PDF layout workers ended on purpose after a job (memory held or jobs run)",
        );
        let build_info = IntGaugeVec::new(
            Opts::new(
                "quire_build_info",
                "Always 1; the labels say which build of quire is running",
            ),
            &["version", "target"],
        )
        .unwrap_or_else(|e| unreachable("quire_build_info", e));
        build_info
            .with_label_values(&[
                env!("CARGO_PKG_VERSION"),
                &format!("{}-{}", std::env::consts::ARCH, std::env::consts::OS),
            ])
            .set(1);
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
            Box::new(consolidation_lookups.clone()),
            Box::new(pdf_workers_started.clone()),
            Box::new(pdf_workers_lost.clone()),
            Box::new(pdf_workers_recycled.clone()),
            Box::new(pdf_workers_idle.clone()),
            Box::new(build_info),
            Box::new(ProcessMetrics::new()),
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
            consolidation_lookups,
            pdf_workers_started,
            pdf_workers_lost,
            pdf_workers_recycled,
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
        assert!(
            text.contains("# TYPE quire_pdf_workers_started_total counter"),
            "{text}"
        );
        assert!(
            text.contains("# TYPE quire_pdf_workers_lost_total counter"),
            "{text}"
        );
        assert!(text.contains("quire_build_info{"), "{text}");
        assert!(
            text.contains("# TYPE process_cpu_seconds_total counter"),
            "{text}"
        );
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
    fn process_cpu_seconds_keep_their_fraction() {
        // Burn some CPU so the counter is not zero, then read it back as a float.
        let mut x = 0u64;
        let start = Instant::now();
        while start.elapsed() < Duration::from_millis(300) {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
        }
        let p = ProcessMetrics::new();
        p.refresh();
        let cpu = p.cpu.get();
        assert!(cpu > 0.0, "{cpu}");
        // Clock ticks are 1/100 s here: a whole number of seconds would be a coincidence, and
        // two reads 50 ms of CPU apart must differ.
        let start = Instant::now();
        while start.elapsed() < Duration::from_millis(100) {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
        }
        p.refresh();
        assert!(p.cpu.get() > cpu, "{} then {cpu}", p.cpu.get());
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
