/*!
Service checks: `/api/version` (version and git revision, fixed at build time by `build.rs`),
`/api/isalive` (`true` once initialization completed and at least one model is usable, else
`false` with 503) and `/api/health` (readiness: initialization state, pool metrics under our
names and GROBID's, per-model state and the configuration checks; 200 when ready, else 503).
The console page is served at `/`.
*/

use actix_web::http::header::ContentType;
use actix_web::{web, HttpResponse};
use quire_actors::{InitState, ModelState, PoolStats};

use crate::app::{AppState, Check, State};

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/api/version", web::get().to(version))
        .route("/api/isalive", web::get().to(isalive))
        .route("/api/health", web::get().to(health))
        .route("/", web::get().to(console_index))
        .route("/console/{file}", web::get().to(console_file));
}

/// `<tag>-<N>-g<hash>` from `git describe` at build time (`build.rs`), or `unknown` outside
/// git or when the build script's output is unavailable.
pub const REVISION: &str = match option_env!("QUIRE_REVISION") {
    Some(r) => r,
    None => "unknown",
};

async fn version() -> HttpResponse {
    HttpResponse::Ok().json(serde_json::json!({
        "version": env!("CARGO_PKG_VERSION"),
        "revision": REVISION,
    }))
}

/// How many models are present in the models directory (files found) and how many of them can
/// be used (loaded, or loadable on first use).
fn model_counts(state: &AppState) -> (usize, usize) {
    let states = state.models.states();
    let present = states
        .iter()
        .filter(|(_, s)| !matches!(s, ModelState::Absent { .. }))
        .count();
    let usable = states
        .iter()
        .filter(|(_, s)| matches!(s, ModelState::Ready | ModelState::Unloaded))
        .count();
    (present, usable)
}

/// `/api/isalive`'s answer: initialization finished without failure and at least one model
/// is usable (a server with a missing or empty models directory can answer nothing).
pub fn is_alive(state: &AppState) -> bool {
    state.models.init_state() == InitState::Ready && model_counts(state).1 > 0
}

async fn isalive(state: State) -> HttpResponse {
    if is_alive(&state) {
        HttpResponse::Ok()
            .content_type(ContentType::plaintext())
            .body("true")
    } else {
        HttpResponse::ServiceUnavailable()
            .content_type(ContentType::plaintext())
            .body("false")
    }
}

async fn health(state: State) -> HttpResponse {
    let (ready, mut body) = health_report(&state);
    // The API port is public: folders are cut to their names (the admin `/healthcheck`, on
    // loopback by default, keeps them whole).
    scrub_json(&mut body);
    let mut res = if ready {
        HttpResponse::Ok()
    } else {
        HttpResponse::ServiceUnavailable()
    };
    res.json(body)
}

/// Every string of `v` with its absolute paths cut ([`crate::error::scrub_paths`]).
fn scrub_json(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::String(s) => *s = crate::error::scrub_paths(s),
        serde_json::Value::Array(items) => items.iter_mut().for_each(scrub_json),
        serde_json::Value::Object(map) => map.values_mut().for_each(scrub_json),
        _ => {}
    }
}

/// Whether the service is ready, and the JSON report behind `/api/health` and the admin
/// `/healthcheck`.
pub fn health_report(state: &AppState) -> (bool, serde_json::Value) {
    let init = state.models.init_state();
    let (present, usable) = model_counts(state);
    let mut checks: Vec<(&str, Check)> = vec![
        (
            "models_dir",
            models_dir_check(&state.config.models.dir, present, usable),
        ),
        ("pdfium", pdfium_check(state.engine.pdfium_lib.as_deref())),
        (
            "model_actors",
            Check {
                ok: state.models.all_connected(),
                detail: "every model actor accepts messages".to_string(),
                required: true,
            },
        ),
    ];
    for (name, hook) in &state.health_hooks {
        checks.push((name, hook()));
    }
    let checks_ok = checks.iter().all(|(_, c)| c.ok || !c.required);
    let ready = init == InitState::Ready && checks_ok;
    let versions = state.models.versions();
    let architectures = state.models.architectures();
    let models: serde_json::Map<String, serde_json::Value> = state
        .models
        .states()
        .into_iter()
        .map(|(k, s)| {
            let mut v = serde_json::to_value(s).unwrap_or_default();
            // 1 for the files found at start-up, one more per live swap after training.
            v["version"] = versions.get(&k).copied().unwrap_or_default().into();
            if let Some(a) = architectures.get(&k) {
                v["architecture"] = (*a).into();
            }
            (k, v)
        })
        .collect();
    let checks: serde_json::Map<String, serde_json::Value> = checks
        .into_iter()
        .map(|(k, c)| (k.to_string(), serde_json::to_value(c).unwrap_or_default()))
        .collect();
    let body = serde_json::json!({
        "status": if ready { "ready" } else { "not_ready" },
        // GROBID's name (grobid-client-python warns when it is false).
        "ready": ready,
        "init": init,
        "pool": pool_json(state.pool.stats()),
        "models": models,
        "checks": checks,
        "version": env!("CARGO_PKG_VERSION"),
        "uptime_s": quire_actors::metrics::metrics().uptime().as_secs_f64(),
    });
    (ready, body)
}

/// The pool under our names (`active`, `idle`, `max`, `waiting`) and GROBID's engine-pool names
/// beside them (`maxActive`, read by grobid-client-python to compare its concurrency with the
/// server's; `numActive`, `numIdle`, `numWaiters` as the pool's getters name them).
pub fn pool_json(stats: PoolStats) -> serde_json::Value {
    serde_json::json!({
        "active": stats.active,
        "idle": stats.idle,
        "max": stats.max,
        "waiting": stats.waiting,
        "maxActive": stats.max,
        "numActive": stats.active,
        "numIdle": stats.idle,
        "numWaiters": stats.waiting,
    })
}

/// The models directory must be readable and hold at least one usable model.
fn models_dir_check(dir: &std::path::Path, present: usize, usable: usize) -> Check {
    const HOW: &str = "set `models.dir` (relative paths in the config file are resolved against \
                       the file's folder, from QUIRE_MODELS_DIR against the working directory)";
    let (ok, detail) = match std::fs::read_dir(dir) {
        Err(e) => (
            false,
            format!("{} is not readable: {e}; {HOW}", dir.display()),
        ),
        Ok(_) if present == 0 => (
            false,
            format!(
                "{} holds no model (no <model>/model.crf): nothing can be processed; {HOW}",
                dir.display()
            ),
        ),
        Ok(_) if usable == 0 => (
            false,
            format!(
                "{}: none of its {present} model(s) is usable (see `models`)",
                dir.display()
            ),
        ),
        Ok(_) => (
            true,
            format!(
                "{} readable, {usable} of {present} model(s) usable",
                dir.display()
            ),
        ),
    };
    Check {
        ok,
        detail,
        required: true,
    }
}

fn pdfium_check(lib: Option<&std::path::Path>) -> Check {
    match lib {
        Some(p) if p.is_file() => Check {
            ok: true,
            detail: format!("{} found", p.display()),
            required: true,
        },
        Some(p) => Check {
            ok: false,
            detail: format!(
                "{} not found; run `make run` (installs it) or set `models.pdfium_lib` / QUIRE_PDFIUM_LIB",
                p.display()
            ),
            required: true,
        },
        None => Check {
            ok: false,
            detail: "no libpdfium configured".to_string(),
            required: true,
        },
    }
}

/// The console's files, compiled into the binary.
const CONSOLE: &[(&str, &str, &str)] = &[
    (
        "index.html",
        "text/html; charset=utf-8",
        include_str!("../../console/index.html"),
    ),
    (
        "console.js",
        "text/javascript; charset=utf-8",
        include_str!("../../console/console.js"),
    ),
    (
        "tei-convert.js",
        "text/javascript; charset=utf-8",
        include_str!("../../console/tei-convert.js"),
    ),
    (
        "console.css",
        "text/css; charset=utf-8",
        include_str!("../../console/console.css"),
    ),
];

fn console_asset(name: &str) -> HttpResponse {
    match CONSOLE.iter().find(|(n, _, _)| *n == name) {
        Some((_, mime, body)) => HttpResponse::Ok()
            .insert_header(("Content-Type", *mime))
            .body(*body),
        None => HttpResponse::NotFound()
            .content_type(ContentType::plaintext())
            .body(format!("[NOT_FOUND] no console file `{name}`")),
    }
}

async fn console_index() -> HttpResponse {
    console_asset("index.html")
}

async fn console_file(path: web::Path<String>) -> HttpResponse {
    console_asset(&path)
}
