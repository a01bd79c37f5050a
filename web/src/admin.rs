/*!
The admin server (default port 8071), as GROBID's Dropwizard admin connector: `/` lists the
links, `/ping` answers `pong`, `/healthcheck` gives the health report as JSON, `/metrics` the
request rate and throughput per entry point as JSON, `/metrics/prometheus` every metric in the
Prometheus text format, and `/heartbeat` a small liveness record with the uptime.
*/

use actix_web::http::header::ContentType;
use actix_web::{web, HttpResponse};
use quire_actors::metrics::metrics;

use crate::app::State;
use crate::routes::service::health_report;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/", web::get().to(index))
        .route("/ping", web::get().to(ping))
        .route("/healthcheck", web::get().to(healthcheck))
        .route("/metrics", web::get().to(metrics_json))
        .route("/metrics/prometheus", web::get().to(prometheus))
        .route("/heartbeat", web::get().to(heartbeat));
}

async fn index() -> HttpResponse {
    HttpResponse::Ok().content_type(ContentType::html()).body(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Quire admin</title></head>\
         <body><h1>Quire admin</h1><ul>\
         <li><a href=\"ping\">ping</a></li>\
         <li><a href=\"healthcheck\">healthcheck</a></li>\
         <li><a href=\"metrics\">metrics</a> (rate and throughput per entry point)</li>\
         <li><a href=\"metrics/prometheus\">metrics/prometheus</a></li>\
         <li><a href=\"heartbeat\">heartbeat</a></li>\
         </ul></body></html>",
    )
}

async fn ping() -> HttpResponse {
    HttpResponse::Ok()
        .content_type(ContentType::plaintext())
        .body("pong\n")
}

async fn healthcheck(state: State) -> HttpResponse {
    let (ready, report) = health_report(&state);
    let body = serde_json::json!({
        "healthy": ready,
        "service": report,
    });
    if ready {
        HttpResponse::Ok().json(body)
    } else {
        HttpResponse::InternalServerError().json(body)
    }
}

async fn metrics_json(state: State) -> HttpResponse {
    state.refresh_gauges();
    let m = metrics();
    let models: serde_json::Map<String, serde_json::Value> = state
        .models
        .states()
        .into_iter()
        .map(|(key, s)| {
            let restarts = m.model_restarts.with_label_values(&[&key]).get();
            let panics = m.model_panics.with_label_values(&[&key]).get();
            let in_flight = m.model_in_flight.with_label_values(&[&key]).get();
            let version = m.model_version.with_label_values(&[&key]).get();
            (
                key,
                serde_json::json!({"state": s, "version": version, "in_flight": in_flight, "restarts": restarts, "panics": panics}),
            )
        })
        .collect();
    HttpResponse::Ok().json(serde_json::json!({
        "uptime_s": m.uptime().as_secs_f64(),
        "endpoints": m.endpoints_json(),
        "pool": state.pool.stats(),
        "models": models,
        "panics": m.panics.get(),
        "pdf_workers": {
            "started": m.pdf_workers_started.get(),
            "lost": m.pdf_workers_lost.get(),
            "idle": m.pdf_workers_idle.get(),
        },
    }))
}

async fn prometheus(state: State) -> HttpResponse {
    state.refresh_gauges();
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(metrics().prometheus_text())
}

async fn heartbeat(state: State) -> HttpResponse {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    HttpResponse::Ok().json(serde_json::json!({
        "alive": true,
        "initialized": state.models.init_state() == quire_actors::InitState::Ready,
        "uptime_s": metrics().uptime().as_secs_f64(),
        "time_unix_s": now,
        "pool": state.pool.stats(),
    }))
}
