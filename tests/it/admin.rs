//! The admin server: ping, healthcheck, heartbeat, metrics JSON, Prometheus exposition.

use crate::common::Server;

#[test]
fn ping_healthcheck_and_heartbeat() {
    let s = Server::builder().with_model("date").start();
    let ping = s.admin_get("/ping");
    assert_eq!(ping.status(), 200);
    assert_eq!(ping.text().unwrap_or_default().trim(), "pong");
    let hc = s.admin_get("/healthcheck");
    assert_eq!(hc.status(), 200);
    let hc: serde_json::Value = hc.json().expect("json");
    assert_eq!(hc["healthy"], true, "{hc}");
    assert_eq!(hc["service"]["init"], "ready");
    let hb: serde_json::Value = s.admin_get("/heartbeat").json().expect("json");
    assert_eq!(hb["alive"], true);
    assert!(hb["uptime_s"].as_f64().unwrap_or(-1.0) >= 0.0);
    let index = s.admin_get("/").text().unwrap_or_default();
    assert!(index.contains("metrics/prometheus"));
}

#[test]
fn metrics_json_gives_rate_and_throughput_per_entry_point() {
    let s = Server::start();
    for _ in 0..3 {
        assert_eq!(s.get("/api/version").status(), 200);
    }
    assert_eq!(s.get("/api/noSuchEndpoint").status(), 404);
    let m: serde_json::Value = s.admin_get("/metrics").json().expect("json");
    let v = &m["endpoints"]["/api/version"];
    assert_eq!(v["count"], 3, "{m}");
    assert_eq!(v["errors"], 0);
    assert!(v["rate_1m_per_s"].as_f64().unwrap_or(0.0) > 0.0, "{v}");
    assert!(
        v["throughput_1m_per_s"].as_f64().unwrap_or(0.0) > 0.0,
        "{v}"
    );
    assert!(v["mean_latency_ms"].as_f64().is_some());
    assert_eq!(m["endpoints"]["unmatched"]["errors"], 1, "{m}");
    assert_eq!(m["pool"]["max"], 10);
    assert_eq!(m["models"]["header"]["restarts"], 0);
}

/// Parses the Prometheus text format strictly enough to catch malformed output: every sample
/// line is `name{labels} value` with a float value, and every family has HELP and TYPE.
fn parse_prometheus(text: &str) -> Vec<(String, String, f64)> {
    let mut samples = Vec::new();
    let mut typed = std::collections::HashSet::new();
    for line in text.lines() {
        if line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let mut parts = rest.split(' ');
            let name = parts.next().unwrap_or("").to_string();
            let kind = parts.next().unwrap_or("");
            assert!(
                ["counter", "gauge", "histogram", "summary", "untyped"].contains(&kind),
                "{line}"
            );
            typed.insert(name);
            continue;
        }
        if line.starts_with('#') {
            assert!(line.starts_with("# HELP "), "{line}");
            continue;
        }
        let (series, value) = line
            .rsplit_once(' ')
            .unwrap_or_else(|| panic!("no value: {line}"));
        let value: f64 = value
            .parse()
            .unwrap_or_else(|_| panic!("bad value: {line}"));
        let (name, labels) = match series.split_once('{') {
            Some((n, l)) => {
                assert!(l.ends_with('}'), "unclosed labels: {line}");
                (n.to_string(), l.trim_end_matches('}').to_string())
            }
            None => (series.to_string(), String::new()),
        };
        assert!(
            name.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':'),
            "bad name: {line}"
        );
        let family = ["_bucket", "_sum", "_count"]
            .iter()
            .find_map(|suffix| name.strip_suffix(suffix).filter(|f| typed.contains(*f)))
            .unwrap_or(&name)
            .to_string();
        assert!(typed.contains(&family), "sample without TYPE: {line}");
        samples.push((name, labels, value));
    }
    samples
}

#[test]
fn prometheus_text_parses_and_has_the_expected_families() {
    let s = Server::start();
    assert_eq!(s.get("/api/version").status(), 200);
    let res = s.admin_get("/metrics/prometheus");
    assert_eq!(res.status(), 200);
    assert!(res.headers()["content-type"]
        .to_str()
        .unwrap_or("")
        .starts_with("text/plain"));
    let samples = parse_prometheus(&res.text().unwrap_or_default());
    let has = |name: &str, label: &str| {
        samples
            .iter()
            .any(|(n, l, _)| n == name && l.contains(label))
    };
    assert!(has(
        "quire_http_requests_total",
        "endpoint=\"/api/version\",method=\"GET\",status=\"200\""
    ));
    assert!(has(
        "quire_http_request_duration_seconds_bucket",
        "endpoint=\"/api/version\""
    ));
    assert!(has("quire_pool_max", ""));
    assert!(has("quire_pool_active", ""));
    assert!(has("quire_model_in_flight", "model=\"header\""));
    assert!(has("quire_model_restarts_total", "model=\"citation\""));
    assert!(has("quire_panics_total", ""));
    for process in [
        "process_resident_memory_bytes",
        "process_cpu_seconds_total",
        "process_threads",
        "process_open_fds",
    ] {
        assert!(has(process, ""), "missing {process}");
    }
    let rss = samples
        .iter()
        .find(|(n, _, _)| n == "process_resident_memory_bytes")
        .map(|(_, _, v)| *v)
        .unwrap_or(0.0);
    assert!(rss > 1e6, "resident memory {rss}");
}
