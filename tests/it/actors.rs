//! Model actors behind HTTP: a panicking actor is rebuilt and the next request succeeds, an
//! absent model fails with a message naming it, a model that fails to load keeps the service
//! from being alive (with `modelPreload`).

use quire::models::ModelName;

use crate::common::Server;

#[test]
fn a_panicking_model_actor_is_restarted_and_the_next_request_succeeds() {
    let s = Server::builder()
        .with_model("date")
        .test_routes()
        .set("debug", "allow_panic_route = true")
        .start();
    let ping = s.post_form("/debug/ping?model=date", &[]);
    assert_eq!(ping.status(), 200);
    assert!(ping
        .text()
        .unwrap_or_default()
        .contains("started 1 time(s), restarted 0"));
    let restarts = "quire_model_restarts_total{model=\"date\"}";
    assert_eq!(s.prometheus_value(restarts), Some(0.0));

    let res = s.post_form("/debug/panic?model=date", &[]);
    assert_eq!(res.status(), 500);
    let text = res.text().unwrap_or_default();
    assert!(
        text.starts_with("[GENERAL] model `date` failed unexpectedly (panic)"),
        "{text}"
    );

    // The same actor address answers again, from a rebuilt actor.
    let ping = s.post_form("/debug/ping?model=date", &[]);
    assert_eq!(ping.status(), 200);
    let text = ping.text().unwrap_or_default();
    assert!(text.contains("started 2 time(s), restarted 1"), "{text}");
    assert_eq!(s.prometheus_value(restarts), Some(1.0));
    assert_eq!(
        s.prometheus_value("quire_model_panics_total{model=\"date\"}"),
        Some(1.0)
    );
    assert!(s.prometheus_value("quire_panics_total").unwrap_or(0.0) >= 1.0);
    // Other models were not touched, and the service stays healthy.
    assert_eq!(
        s.prometheus_value("quire_model_restarts_total{model=\"header\"}"),
        Some(0.0)
    );
    assert_eq!(s.get("/api/health").status(), 200);
    let m: serde_json::Value = s.admin_get("/metrics").json().expect("json");
    assert_eq!(m["models"]["date"]["restarts"], 1);
}

#[test]
fn the_panic_route_needs_its_own_flag() {
    let s = Server::builder().test_routes().start();
    assert_eq!(s.post_form("/debug/panic?model=date", &[]).status(), 404);
    assert_eq!(s.post_form("/debug/ping?model=date", &[]).status(), 200);
}

#[test]
fn an_absent_model_fails_with_a_message_naming_it() {
    let s = Server::builder().test_routes().start();
    let res = s.post_form(
        "/debug/label",
        &[("model", "affiliation-address"), ("rows", "MIT\tmit")],
    );
    assert_eq!(res.status(), 500);
    let text = res.text().unwrap_or_default();
    assert!(
        text.contains("model `affiliation-address` is not available"),
        "{text}"
    );
    let h: serde_json::Value = s.get("/api/health").json().expect("json");
    assert_eq!(h["models"]["affiliation-address"]["state"], "absent");
}

/// A model Quire defines (has a spec for), whose files we can fake.
fn defined_model() -> ModelName {
    ModelName::ALL
        .into_iter()
        .find(|m| quire::models::feature_version(*m, None).is_some())
        .expect("some model has a definition (quire::models::feature_version)")
}

#[test]
fn a_model_that_fails_to_load_keeps_isalive_at_503_with_preload() {
    let model = defined_model();
    let key = model.as_str();
    let builder = Server::builder().no_wait_alive();
    let dir = builder.dir().join("models").join(model.dir_name(None));
    std::fs::create_dir_all(&dir).expect("model dir");
    std::fs::write(dir.join("model.crf"), b"not a CRF model").expect("fake model");
    let s = builder.start();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut health: serde_json::Value = serde_json::Value::Null;
    while std::time::Instant::now() < deadline {
        health = s.get("/api/health").json().expect("json");
        if health["init"] != "loading" {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(health["init"], "failed", "{health}");
    assert_eq!(health["models"][key]["state"], "failed", "{health}");
    let alive = s.get("/api/isalive");
    assert_eq!(alive.status(), 503);
    assert_eq!(alive.text().unwrap_or_default(), "false");
    assert_eq!(s.get("/api/health").status(), 503);
}

#[test]
fn without_preload_a_broken_model_fails_only_the_requests_that_need_it() {
    let model = defined_model();
    let key = model.as_str();
    assert_ne!(key, "date", "the sound model below must be another one");
    // Another, sound model keeps the service alive while the broken one fails.
    let builder = Server::builder()
        .with_model("date")
        .test_routes()
        .set("models", "preload = false");
    let dir = builder.dir().join("models").join(model.dir_name(None));
    std::fs::create_dir_all(&dir).expect("model dir");
    std::fs::write(dir.join("model.crf"), b"not a CRF model").expect("fake model");
    let s = builder.start();
    let h: serde_json::Value = s.get("/api/health").json().expect("json");
    assert_eq!(h["models"][key]["state"], "unloaded", "{h}");
    let res = s.post_form("/debug/label", &[("model", key), ("rows", "a")]);
    assert_eq!(res.status(), 500);
    let text = res.text().unwrap_or_default();
    assert!(
        text.contains(&format!("model `{key}` is not available")),
        "{text}"
    );
    let h: serde_json::Value = s.get("/api/health").json().expect("json");
    assert_eq!(h["models"][key]["state"], "failed", "{h}");
    assert_eq!(s.get("/api/isalive").status(), 200);
}

#[test]
fn a_real_model_labels_through_pool_coordinator_and_actor_even_after_a_panic() {
    let models = crate::common::repo_root().join("models");
    assert!(quire::models::feature_version(ModelName::Date, None).is_some());
    if !crate::common::models_present(&["date"]) {
        return;
    }
    let s = Server::builder()
        .test_routes()
        .set("debug", "allow_panic_route = true")
        .set(
            "models",
            &format!("dir = {:?}", models.display().to_string()),
        )
        .start();
    let h: serde_json::Value = s.get("/api/health").json().expect("json");
    assert_eq!(h["models"]["date"]["state"], "ready", "{h}");
    let label = || {
        let res = s.post_form(
            "/debug/label",
            &[("model", "date"), ("text", "September 16, 2001")],
        );
        assert_eq!(res.status(), 200);
        res.text().unwrap_or_default()
    };
    let before = label();
    let year = before.lines().find(|l| l.starts_with("2001\t"));
    assert!(year.is_some_and(|l| l.ends_with("<year>")), "{before}");
    assert_eq!(s.post_form("/debug/panic?model=date", &[]).status(), 500);
    // The rebuilt actor shares the loaded model: the next request gives the same labels.
    assert_eq!(label(), before);
    assert_eq!(
        s.prometheus_value("quire_model_restarts_total{model=\"date\"}"),
        Some(1.0)
    );
}
