/*!
What every request shares: [`AppState`] (configuration, model actors, pool, coordinator,
trainer registry, health checks), the request middleware [`observe`] (one tracing span per
request, metrics, JSON errors for clients that prefer JSON, `Retry-After` on every 503) and
the CORS policy built from the configuration.
*/

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use actix::Addr;
use actix_cors::Cors;
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{web, HttpResponse};
use quire_actors::trainer::TrainerRegistry;
use quire_actors::{metrics::metrics, Models, Pipeline, Pool};
use tracing::Instrument;

use crate::config::{split_list, Config};
use crate::error::{prefers_json, ApiError};

/// One configuration or subsystem check reported by `/api/health`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Check {
    pub ok: bool,
    pub detail: String,
    /// A failing required check makes the service not ready (503).
    pub required: bool,
}

/// A check contributed by a subsystem started in `serve` (e.g. the PDF worker pool).
pub type HealthHook = Arc<dyn Fn() -> Check + Send + Sync>;

/// Shared by every handler as `web::Data<AppState>`.
pub struct AppState {
    pub config: Arc<Config>,
    pub engine: Arc<quire::EngineConfig>,
    pub models: Models,
    pub pool: Pool,
    pub pipeline: Pipeline,
    pub trainer: Addr<TrainerRegistry>,
    /// Extra health checks, by name; subsystems push theirs when they start.
    pub health_hooks: Vec<(&'static str, HealthHook)>,
}

static REQUEST_IDS: AtomicU64 = AtomicU64::new(1);

/// Request middleware: span, metrics, error content negotiation, `Retry-After`.
pub async fn observe(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = Instant::now();
    let id = REQUEST_IDS.fetch_add(1, Ordering::Relaxed);
    let method = req.method().to_string();
    let path = req.path().to_string();
    let wants_json = req
        .headers()
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(prefers_json);
    let span = tracing::info_span!(
        "request",
        id,
        method = %method,
        path = %path,
        status = tracing::field::Empty,
        code = tracing::field::Empty,
    );
    async move {
        let mut res = next.call(req).await?.map_into_boxed_body();
        let endpoint = res
            .request()
            .match_pattern()
            .unwrap_or_else(|| "unmatched".to_string());
        let api_error = res
            .response()
            .error()
            .and_then(|e| e.as_error::<ApiError>())
            .map(|e| {
                (
                    e.code_str(),
                    e.to_string(),
                    wants_json.then(|| e.json_response()),
                    matches!(e, ApiError::Busy { .. }),
                )
            });
        if let Some((code, message, json, busy)) = api_error {
            tracing::Span::current().record("code", code);
            if let Some(json) = json {
                res = res.into_response(json.map_into_boxed_body());
            }
            let status = res.status();
            if status.is_server_error() && !busy {
                tracing::error!(%status, "{message}");
            } else {
                tracing::info!(%status, "{message}");
            }
            if busy {
                let wait = quire_actors::pool::retry_after_s(&path);
                res.headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from(wait));
            }
        }
        let status = res.status();
        if status == actix_web::http::StatusCode::SERVICE_UNAVAILABLE
            && !res.headers().contains_key(header::RETRY_AFTER)
        {
            let wait = quire_actors::pool::retry_after_s(&path);
            res.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(wait));
        }
        tracing::Span::current().record("status", status.as_u16());
        let elapsed = started.elapsed();
        metrics().observe_request(&endpoint, &method, status.as_u16(), elapsed);
        tracing::debug!(ms = elapsed.as_secs_f64() * 1000.0, "done");
        Ok(res)
    }
    .instrument(span)
    .await
}

/// The CORS policy from `[cors]` (validated at load, so every value here parses).
pub fn cors(config: &Config) -> Cors {
    let c = &config.cors;
    let mut cors = Cors::default().max_age(3600);
    let origins = split_list(&c.allowed_origins);
    if origins.contains(&"*") {
        cors = cors.allow_any_origin().send_wildcard();
    } else {
        for o in origins {
            cors = cors.allowed_origin(o);
        }
    }
    let methods = split_list(&c.allowed_methods);
    if methods.contains(&"*") {
        cors = cors.allow_any_method();
    } else {
        let parsed: Vec<actix_web::http::Method> = methods
            .iter()
            .filter_map(|m| actix_web::http::Method::from_bytes(m.as_bytes()).ok())
            .collect();
        cors = cors.allowed_methods(parsed);
    }
    let headers = split_list(&c.allowed_headers);
    if headers.contains(&"*") {
        cors = cors.allow_any_header();
    } else {
        let parsed: Vec<header::HeaderName> = headers
            .iter()
            .filter_map(|h| header::HeaderName::from_bytes(h.as_bytes()).ok())
            .collect();
        cors = cors.allowed_headers(parsed);
    }
    cors
}

/// Fallback for unknown routes: 404 through the common error path.
pub async fn not_found(req: actix_web::HttpRequest) -> Result<HttpResponse, ApiError> {
    Err(ApiError::NotFound(format!(
        "no endpoint {} {}; the API is listed at /",
        req.method(),
        req.path()
    )))
}

/// The main application's shared state handle.
pub type State = web::Data<AppState>;
