//! Request admission: at most `concurrency` requests in processing; a request that cannot get
//! a slot within `poolMaxWait` gets 503 with the endpoint's `Retry-After`, never an HTML page.

use std::time::{Duration, Instant};

use crate::common::Server;

fn wait_for_active(s: &Server, active: u64) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        let h: serde_json::Value = s.get("/api/health").json().expect("json");
        if h["pool"]["active"] == active {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("pool never reached {active} active");
}

/// A server with one processing slot and a 0.2 s wait for it, and a request holding that slot
/// for 3 s (its thread answers the request's status).
pub(crate) fn server_with_its_slot_held() -> (Server, std::thread::JoinHandle<reqwest::Result<u16>>)
{
    let s = Server::builder()
        .test_routes()
        .set("pool", "concurrency = 1")
        .set("pool", "max_wait_s = 0.2")
        .start();
    let slow = {
        let client = s.client.clone();
        let url = s.url("/debug/sleep");
        std::thread::spawn(move || {
            client
                .post(url)
                .form(&[("ms", "3000")])
                .send()
                .map(|r| r.status().as_u16())
        })
    };
    wait_for_active(&s, 1);
    (s, slow)
}

#[test]
fn a_full_pool_answers_503_with_retry_after() {
    let (s, slow) = server_with_its_slot_held();

    let started = Instant::now();
    let res = s.post_form("/debug/sleep", &[("ms", "1")]);
    assert_eq!(res.status(), 503);
    assert!(
        started.elapsed() >= Duration::from_millis(150),
        "answered before the wait"
    );
    assert_eq!(res.headers()["retry-after"], "1");
    let ctype = res.headers()["content-type"]
        .to_str()
        .unwrap_or("")
        .to_string();
    assert!(ctype.starts_with("text/plain"), "{ctype}");
    let body = res.text().unwrap_or_default();
    assert!(body.starts_with("[SERVICE_UNAVAILABLE] "), "{body}");
    assert!(!body.contains("<html"));

    let res = s
        .client
        .post(s.url("/debug/sleep"))
        .header("Accept", "application/json")
        .form(&[("ms", "1")])
        .send()
        .expect("POST");
    assert_eq!(res.status(), 503);
    assert_eq!(res.headers()["retry-after"], "1");
    let json: serde_json::Value = res.json().expect("json");
    assert_eq!(json["status"], 503);

    let h: serde_json::Value = s.get("/api/health").json().expect("json");
    assert_eq!(h["pool"]["idle"], 0);
    assert_eq!(h["pool"]["max"], 1);
    assert!(
        s.prometheus_value("quire_pool_rejected_total{endpoint=\"debug/sleep\"}")
            .unwrap_or(0.0)
            >= 2.0
    );

    assert_eq!(slow.join().ok().and_then(|r| r.ok()), Some(200));
    // The slot is free again.
    assert_eq!(s.post_form("/debug/sleep", &[("ms", "1")]).status(), 200);
}

#[test]
fn a_request_that_gets_a_slot_within_the_wait_succeeds() {
    let s = Server::builder()
        .test_routes()
        .set("pool", "concurrency = 1")
        .set("pool", "max_wait_s = 5")
        .start();
    let first = {
        let client = s.client.clone();
        let url = s.url("/debug/sleep");
        std::thread::spawn(move || {
            client
                .post(url)
                .form(&[("ms", "400")])
                .send()
                .map(|r| r.status().as_u16())
        })
    };
    wait_for_active(&s, 1);
    let started = Instant::now();
    let res = s.post_form("/debug/sleep", &[("ms", "1")]);
    assert_eq!(res.status(), 200);
    assert!(
        started.elapsed() >= Duration::from_millis(100),
        "it should have waited for the slot"
    );
    assert_eq!(first.join().ok().and_then(|r| r.ok()), Some(200));
}

/// A request whose processing outlasts `pool.request_timeout_s` is answered 500 `[TIMEOUT]`
/// at the limit (the cascade is stopped and counted), its slot is freed, and the server goes
/// on serving.
#[test]
fn processing_past_the_request_time_limit_answers_timeout() {
    let s = Server::builder()
        .test_routes()
        .set("pool", "concurrency = 1")
        .set("pool", "request_timeout_s = 1")
        .start();
    let res = s.post_form("/debug/sleep", &[("ms", "30000"), ("pipeline", "1")]);
    assert_eq!(res.status(), 500);
    let body = res.text().unwrap_or_default();
    assert!(body.starts_with("[TIMEOUT] "), "{body}");
    // The one slot is free again at once, and the stopped cascade is counted.
    let h: serde_json::Value = s.get("/api/health").json().expect("json");
    assert_eq!(h["pool"]["active"], 0, "{h}");
    assert_eq!(
        s.prometheus_value("quire_cascades_cancelled_total"),
        Some(1.0)
    );
    let res = s.post_form("/debug/sleep", &[("ms", "1"), ("pipeline", "1")]);
    assert_eq!(res.status(), 200);
}
