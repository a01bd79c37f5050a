//! Service checks (version, isalive, health), the console, unknown routes, CORS, and start-up
//! configuration handling.

use crate::common::Server;

#[test]
fn version_reports_the_package_version_and_a_git_revision() {
    let s = Server::start();
    let res = s.get("/api/version");
    assert_eq!(res.status(), 200);
    assert!(res.headers()["content-type"]
        .to_str()
        .unwrap_or("")
        .starts_with("application/json"));
    let v: serde_json::Value = res.json().expect("json");
    assert_eq!(v["version"], env!("CARGO_PKG_VERSION"));
    let rev = v["revision"].as_str().expect("revision string");
    let well_formed = rev == "unknown" || {
        // <tag>-<N>-g<hash>: split from the right, the tag itself may contain dashes.
        let mut parts = rev.rsplitn(3, '-');
        let hash = parts.next().unwrap_or("");
        let n = parts.next().unwrap_or("");
        let tag = parts.next().unwrap_or("");
        !tag.is_empty()
            && n.chars().all(|c| c.is_ascii_digit())
            && !n.is_empty()
            && hash.len() >= 8
            && hash.starts_with('g')
            && hash[1..].chars().all(|c| c.is_ascii_hexdigit())
    };
    assert!(well_formed, "revision `{rev}`");
}

#[test]
fn isalive_is_true_once_initialized() {
    let s = Server::builder().with_model("date").start();
    let res = s.get("/api/isalive");
    assert_eq!(res.status(), 200);
    assert!(res.headers()["content-type"]
        .to_str()
        .unwrap_or("")
        .starts_with("text/plain"));
    assert_eq!(res.text().unwrap_or_default(), "true");
}

#[test]
fn health_reports_init_pool_models_and_checks() {
    let s = Server::builder()
        .with_model("date")
        .set("pool", "concurrency = 3")
        .start();
    let res = s.get("/api/health");
    assert_eq!(res.status(), 200);
    let h: serde_json::Value = res.json().expect("json");
    assert_eq!(h["status"], "ready", "{h}");
    assert_eq!(h["ready"], true, "{h}");
    assert_eq!(h["init"], "ready");
    assert_eq!(h["pool"]["max"], 3);
    assert_eq!(h["pool"]["idle"], 3);
    assert_eq!(h["pool"]["active"], 0);
    assert_eq!(h["pool"]["waiting"], 0);
    let models = h["models"].as_object().expect("models object");
    assert_eq!(models["date"]["state"], "ready", "{h}");
    for key in [
        "segmentation",
        "header",
        "citation",
        "name-header",
        "patent-citation",
    ] {
        assert_eq!(models[key]["state"], "absent", "{key}: {h}");
    }
    assert!(models["header"]["reason"]
        .as_str()
        .unwrap_or("")
        .contains("header"));
    for check in ["models_dir", "pdfium", "model_actors", "pdf_workers"] {
        assert_eq!(h["checks"][check]["ok"], true, "{check}: {h}");
    }
}

/// grobid-client-python reads GROBID's names from `/api/health`: `pool.maxActive` (to compare
/// its concurrency with the server's) and `ready`.
#[test]
fn health_carries_grobids_pool_names_beside_ours() {
    let s = Server::builder()
        .with_model("date")
        .set("pool", "concurrency = 4")
        .start();
    let h: serde_json::Value = s.get("/api/health").json().expect("json");
    let pool = &h["pool"];
    assert_eq!(pool["maxActive"], 4, "{h}");
    assert!(
        pool["maxActive"].is_u64(),
        "an integer, as the client checks: {h}"
    );
    assert_eq!(pool["numActive"], pool["active"], "{h}");
    assert_eq!(pool["numIdle"], 4, "{h}");
    assert_eq!(pool["numWaiters"], 0, "{h}");
    assert_eq!(h["ready"], h["status"] == "ready", "{h}");
    // The admin healthcheck embeds the same report.
    let hc: serde_json::Value = s.admin_get("/healthcheck").json().expect("json");
    assert_eq!(hc["service"]["pool"]["maxActive"], 4, "{hc}");
}

/// With no usable model nothing can be processed: never alive, and health says why.
#[test]
fn an_empty_or_missing_models_dir_is_not_alive_and_health_says_why() {
    let s = Server::start();
    let alive = s.get("/api/isalive");
    assert_eq!(alive.status(), 503);
    assert_eq!(alive.text().unwrap_or_default(), "false");
    let res = s.get("/api/health");
    assert_eq!(res.status(), 503);
    let h: serde_json::Value = res.json().expect("json");
    assert_eq!(h["init"], "ready", "start-up is over: {h}");
    assert_eq!(h["ready"], false, "{h}");
    assert_eq!(h["checks"]["models_dir"]["ok"], false, "{h}");
    let detail = h["checks"]["models_dir"]["detail"].as_str().unwrap_or("");
    assert!(detail.contains("holds no model"), "{detail}");
    assert!(detail.contains("models.dir"), "{detail}");

    let s = Server::builder()
        .set("models", "dir = \"/nonexistent/models\"")
        .start();
    let alive = s.get("/api/isalive");
    assert_eq!(alive.status(), 503);
    assert_eq!(alive.text().unwrap_or_default(), "false");
    // The public answer names the folder without where it is; the admin port's in full.
    let h: serde_json::Value = s.get("/api/health").json().expect("json");
    let detail = h["checks"]["models_dir"]["detail"].as_str().unwrap_or("");
    assert!(detail.contains("…/models is not readable"), "{detail}");
    assert!(!detail.contains("/nonexistent"), "{detail}");
    let h: serde_json::Value = s.admin_get("/healthcheck").json().expect("json");
    let detail = h["service"]["checks"]["models_dir"]["detail"]
        .as_str()
        .unwrap_or("");
    assert!(
        detail.contains("/nonexistent/models is not readable"),
        "{detail}"
    );
    assert!(
        s.log().contains("the models directory does not exist"),
        "{}",
        s.log()
    );
}

/// Relative paths in the config file are resolved against the file's folder, not against the
/// working directory the server runs in (issue #12: `quire serve --config /elsewhere/...`).
#[test]
fn relative_paths_in_the_config_file_follow_the_file() {
    let elsewhere = tempfile::tempdir().expect("temp dir");
    let builder = Server::builder().with_model("date");
    let folder = builder.dir().to_path_buf();
    std::fs::rename(folder.join("models"), folder.join("my-models")).expect("rename");
    // A libpdfium stand-in beside the config: only the health check looks at it here.
    std::fs::create_dir_all(folder.join("lib")).expect("lib dir");
    std::fs::write(folder.join("lib/libpdfium.so"), b"stand-in").expect("stand-in");
    let s = builder
        .set("models", "dir = \"my-models\"")
        .set("models", "pdfium_lib = \"lib/libpdfium.so\"")
        .cwd(elsewhere.path())
        .start();
    let h: serde_json::Value = s.admin_get("/healthcheck").json().expect("json");
    let h = h["service"].clone();
    assert_eq!(h["models"]["date"]["state"], "ready", "{h}");
    assert_eq!(h["checks"]["models_dir"]["ok"], true, "{h}");
    assert_eq!(h["checks"]["pdfium"]["ok"], true, "{h}");
    let pdfium = h["checks"]["pdfium"]["detail"].as_str().unwrap_or("");
    assert!(
        pdfium.contains(&folder.join("lib/libpdfium.so").display().to_string()),
        "{pdfium}"
    );
    assert_eq!(s.get("/api/isalive").status(), 200);
    // The resolved (absolute) models folder is logged at start-up.
    let logged = format!("models_dir={}", folder.join("my-models").display());
    assert!(s.log().contains(&logged), "{logged} not in:\n{}", s.log());
}

#[test]
fn health_is_503_when_pdfium_or_the_models_dir_is_missing() {
    let s = Server::builder()
        .with_model("date")
        .set("models", "pdfium_lib = \"/nonexistent/libpdfium.so\"")
        .start();
    // Alive (initialized, a model usable) but not ready.
    assert_eq!(s.get("/api/isalive").status(), 200);
    let res = s.get("/api/health");
    assert_eq!(res.status(), 503);
    let h: serde_json::Value = res.json().expect("json");
    assert_eq!(h["status"], "not_ready");
    assert_eq!(h["checks"]["pdfium"]["ok"], false);
    assert!(h["checks"]["pdfium"]["detail"]
        .as_str()
        .unwrap_or("")
        .contains("…/libpdfium.so"));

    let s = Server::builder()
        .set("models", "dir = \"/nonexistent/models\"")
        .start();
    let res = s.get("/api/health");
    assert_eq!(res.status(), 503);
    let h: serde_json::Value = res.json().expect("json");
    assert_eq!(h["checks"]["models_dir"]["ok"], false, "{h}");
    assert_eq!(s.get("/api/isalive").status(), 503);
}

#[test]
fn unknown_routes_and_disabled_debug_routes_are_404_wrong_methods_405() {
    let s = Server::start();
    let res = s.get("/api/noSuchEndpoint");
    assert_eq!(res.status(), 404);
    assert!(res.text().unwrap_or_default().starts_with("[NOT_FOUND] "));
    assert_eq!(s.post_form("/debug/sleep", &[("ms", "1")]).status(), 404);
    let wrong_method = s
        .client
        .delete(s.url("/api/version"))
        .send()
        .expect("DELETE");
    assert_eq!(wrong_method.status(), 405);
    assert!(wrong_method
        .text()
        .unwrap_or_default()
        .starts_with("[METHOD_NOT_ALLOWED] DELETE"));
    assert_eq!(s.post_form("/debug/panic?model=date", &[]).status(), 404);
}

#[test]
fn the_console_is_served_at_the_root() {
    let s = Server::start();
    let res = s.get("/");
    assert_eq!(res.status(), 200);
    assert!(res.headers()["content-type"]
        .to_str()
        .unwrap_or("")
        .starts_with("text/html"));
    let html = res.text().unwrap_or_default();
    for needle in [
        "/api/processDate",
        "/api/processCitation",
        "/api/processReferences",
        "value=\"processReferences\"",
        "value=\"processFulltextDocument\"",
        "value=\"processFulltextAssetDocument\"",
        "/api/processFulltextAssetDocument",
        "value=\"article/light-ref\"",
        "value=\"persName\"",
        "segmentSentences",
        "generateIDs",
        "debugMode",
        "<form",
        "console.js",
    ] {
        assert!(html.contains(needle), "console lacks {needle}");
    }
    let js = s.get("/console/console.js");
    assert_eq!(js.status(), 200);
    let js = js.text().unwrap_or_default();
    assert!(js.contains("fetch("));
    // The full-text form sends every teiCoordinates box as its own field.
    assert!(js.contains("body.append(\"teiCoordinates\""), "{js}");
}

#[test]
fn cors_preflight_follows_the_config() {
    let open = Server::start();
    let res = open
        .client
        .request(reqwest::Method::OPTIONS, open.url("/api/processDate"))
        .header("Origin", "https://somewhere.example")
        .header("Access-Control-Request-Method", "POST")
        .send()
        .expect("preflight");
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["access-control-allow-origin"], "*");
    let methods = res.headers()["access-control-allow-methods"]
        .to_str()
        .unwrap_or("")
        .to_string();
    assert!(
        methods.contains("POST") && methods.contains("PUT"),
        "{methods}"
    );

    let closed = Server::builder()
        .set("cors", "allowed_origins = \"https://allowed.example\"")
        .start();
    let preflight = |origin: &str| {
        closed
            .client
            .request(reqwest::Method::OPTIONS, closed.url("/api/processDate"))
            .header("Origin", origin)
            .header("Access-Control-Request-Method", "POST")
            .send()
            .expect("preflight")
    };
    let ok = preflight("https://allowed.example");
    assert_eq!(ok.status(), 200);
    assert_eq!(
        ok.headers()["access-control-allow-origin"],
        "https://allowed.example"
    );
    let refused = preflight("https://other.example");
    assert!(refused
        .headers()
        .get("access-control-allow-origin")
        .is_none());
    assert_ne!(refused.status(), 200);
}

#[test]
fn a_bad_config_stops_start_up_naming_the_key() {
    let (ok, log) = Server::builder()
        .set("pool", "concurrency = 0")
        .run_to_exit();
    assert!(!ok);
    assert!(log.contains("pool.concurrency"), "{log}");
    let (ok, log) = Server::builder().set("server", "colour = 1").run_to_exit();
    assert!(!ok);
    assert!(log.contains("colour"), "{log}");
    let (ok, log) = Server::builder()
        .env("QUIRE_LIMITS_TOKENS_MAX", "0")
        .run_to_exit();
    assert!(!ok);
    assert!(log.contains("limits.tokens_max"), "{log}");
}

#[test]
fn environment_variables_override_the_file() {
    let s = Server::builder()
        .set("pool", "concurrency = 3")
        .env("QUIRE_POOL_CONCURRENCY", "5")
        .start();
    let h: serde_json::Value = s.get("/api/health").json().expect("json");
    assert_eq!(h["pool"]["max"], 5);
}

#[test]
fn json_logs_are_json_lines_with_a_span_per_request() {
    let s = Server::builder().arg("--json-logs").start();
    assert_eq!(s.get("/api/noSuchEndpoint").status(), 404);
    std::thread::sleep(std::time::Duration::from_millis(200));
    let log = s.log();
    let lines: Vec<serde_json::Value> = log
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    assert!(!lines.is_empty());
    let request_line = lines
        .iter()
        .find(|v| v["span"]["name"] == "request" && v["span"]["path"] == "/api/noSuchEndpoint");
    assert!(request_line.is_some(), "{log}");
}

/// Every GET route answers HEAD (CORS advertises it): the GET's status and headers, no body.
#[test]
fn every_get_route_answers_head_with_the_gets_status_and_headers() {
    let s = Server::builder().with_model("date").start();
    let head = |url: String| s.client.head(url).send().expect("HEAD");
    let get = |url: String| s.client.get(url).send().expect("GET");
    let header = |res: &reqwest::blocking::Response, name: &str| {
        res.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let urls = [
        (s.url("/"), true),
        (s.url("/console/console.js"), true),
        (s.url("/api/version"), true),
        (s.url("/api/isalive"), true),
        (s.url("/api/health"), false),
        (s.admin_url("/"), true),
        (s.admin_url("/ping"), true),
        (s.admin_url("/healthcheck"), false),
        (s.admin_url("/heartbeat"), false),
        (s.admin_url("/metrics"), false),
        (s.admin_url("/metrics/prometheus"), false),
    ];
    for (url, fixed_body) in urls {
        let g = get(url.clone());
        let g_status = g.status();
        let g_type = header(&g, "content-type");
        let g_body = g.bytes().expect("GET body");
        let h = head(url.clone());
        assert_eq!(h.status(), g_status, "HEAD {url}");
        assert_eq!(header(&h, "content-type"), g_type, "HEAD {url}");
        if fixed_body {
            assert_eq!(
                header(&h, "content-length"),
                Some(g_body.len().to_string()),
                "HEAD {url}: the GET's Content-Length"
            );
        }
        assert!(
            h.bytes().expect("HEAD body").is_empty(),
            "HEAD {url}: no body"
        );
    }
    // The same connection still serves normally after the HEAD requests.
    assert_eq!(
        get(s.url("/api/isalive")).text().unwrap_or_default(),
        "true"
    );
    // Not-ready still answers 503 to HEAD, like GET.
    let down = Server::start();
    assert_eq!(
        down.client
            .head(down.url("/api/isalive"))
            .send()
            .expect("HEAD")
            .status(),
        503
    );
    // HEAD where GET is not served: 405 on a POST-only route, 404 on an unknown one.
    assert_eq!(head(s.url("/api/processDate")).status(), 405);
    assert_eq!(head(s.url("/api/noSuchEndpoint")).status(), 404);
}
