/*!
What every request shares: [`AppState`] (configuration, model actors, pool, coordinator,
trainer registry, health checks), the request middleware [`observe`] (one tracing span per
request, metrics, JSON errors for clients that prefer JSON, `Retry-After` on every 503),
[`head_as_get`] (every GET route answers HEAD) and the CORS policy built from the
configuration.
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
use actix_web::{web, HttpMessage as _, HttpResponse};
use futures::FutureExt;
use quire_actors::trainer::TrainerRegistry;
use quire_actors::workers::WorkerPool;
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
    /// The PDF layout worker processes (also in every `CascadeCtx`), for health and metrics.
    pub pdf_workers: Option<WorkerPool>,
    /// Extra health checks, by name; subsystems push theirs when they start.
    pub health_hooks: Vec<(&'static str, HealthHook)>,
}

impl AppState {
    /// Copies the worker pool's counters into the metrics gauges (called before exporting).
    pub fn refresh_gauges(&self) {
        if let Some(w) = &self.pdf_workers {
            let stats = w.stats();
            let m = metrics();
            quire_actors::metrics::set_counter(&m.pdf_workers_started, stats.spawned);
            quire_actors::metrics::set_counter(&m.pdf_workers_lost, stats.lost);
            quire_actors::metrics::set_counter(&m.pdf_workers_recycled, stats.recycled);
            m.pdf_workers_idle.set(stats.idle as i64);
        }
    }
}

static REQUEST_IDS: AtomicU64 = AtomicU64::new(1);

/// Set in a request's extensions when it arrived as HEAD and is routed as GET.
#[derive(Debug, Clone, Copy)]
pub struct ArrivedAsHead;

/// Middleware (on both servers, innermost): a HEAD request is routed as the GET request for the
/// same URL, so every GET route answers HEAD with the GET's status and headers. The body is
/// not sent: the HTTP/1 encoder knows the request was HEAD (it read it before any middleware)
/// and writes the headers only, `Content-Length` included.
pub async fn head_as_get(
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    if req.method() == actix_web::http::Method::HEAD {
        req.head_mut().method = actix_web::http::Method::GET;
        req.extensions_mut().insert(ArrivedAsHead);
    }
    next.call(req).await
}

/// Requests in the API server's handlers right now.
static IN_FLIGHT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
/// One giving back of freed memory at a time, and none missed.
static TRIMS: Coalesced = Coalesced::new();

/// Work asked for from many threads that runs on one at a time and is never lost: a request
/// made while a run is in progress makes that run go once more (the last request to end while
/// a trim was running still gets its memory given back).
struct Coalesced {
    running: std::sync::atomic::AtomicBool,
    again: std::sync::atomic::AtomicBool,
}

impl Coalesced {
    const fn new() -> Coalesced {
        Coalesced {
            running: std::sync::atomic::AtomicBool::new(false),
            again: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Asks for a run: true when the caller must start the runner ([`Coalesced::run`]),
    /// false when a runner is at work and will run once more for this request.
    fn ask(&self) -> bool {
        self.again.store(true, Ordering::SeqCst);
        !self.running.swap(true, Ordering::SeqCst)
    }

    /// Runs `f` until no request is pending, then gives the runner's place back; a request
    /// made between the last check and that moment is served by taking the place again.
    fn run(&self, f: impl Fn()) {
        loop {
            while self.again.swap(false, Ordering::SeqCst) {
                f();
            }
            self.running.store(false, Ordering::SeqCst);
            if !self.again.load(Ordering::SeqCst) || self.running.swap(true, Ordering::SeqCst) {
                break;
            }
        }
    }
}

/// Counts a request in flight; when the last one in flight ends, the allocator's free memory
/// is given back to the system now rather than after mimalloc's purge delay (with glibc's
/// allocator, a server that reached 3 GB kept 1.9 GB idle until `malloc_trim`).
struct InFlight;

impl InFlight {
    fn enter() -> InFlight {
        IN_FLIGHT.fetch_add(1, Ordering::SeqCst);
        InFlight
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if IN_FLIGHT.fetch_sub(1, Ordering::SeqCst) == 1 {
            give_memory_back();
        }
    }
}

/// [`crate::allocator::give_back`] on a blocking thread (one at a time; a request that ends
/// during one gets one more).
fn give_memory_back() {
    if !TRIMS.ask() {
        return;
    }
    let trim = || TRIMS.run(crate::allocator::give_back);
    if tokio::runtime::Handle::try_current().is_ok() {
        tokio::task::spawn_blocking(trim);
    } else {
        trim();
    }
}

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
    let in_flight = InFlight::enter();
    async move {
        let _in_flight = in_flight;
        // A panicking handler would otherwise drop the connection without a response: answer
        // 500 instead (the panic hook has already counted and logged it).
        let called = std::panic::AssertUnwindSafe(next.call(req))
            .catch_unwind()
            .await;
        let mut res = match called {
            Ok(res) => res?.map_into_boxed_body(),
            Err(payload) => {
                let reason = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                tracing::Span::current().record("status", 500);
                tracing::error!("handler panicked: {reason}");
                metrics().observe_request("panicked", &method, 500, started.elapsed());
                return Err(ApiError::Processing {
                    code: quire::ErrorCode::General,
                    message: format!("internal error (handler panicked: {reason})"),
                }
                .into());
            }
        };
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
                let wait = crate::routes::retry_after_s(&path);
                res.headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from(wait));
            }
        }
        let status = res.status();
        if status == actix_web::http::StatusCode::SERVICE_UNAVAILABLE
            && !res.headers().contains_key(header::RETRY_AFTER)
        {
            let wait = crate::routes::retry_after_s(&path);
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

/// Whether `path` is a training endpoint: CORS never applies to those.
pub fn is_training_path(path: &str) -> bool {
    path == "/api/modelTraining"
        || path == "/api/trainingResult"
        || path == "/api/training"
        || path.starts_with("/api/training/")
        || path == "/api/model"
}

/// Whether `origin` (an `Origin` header) names the host the request was sent to (`host`, the
/// `Host` header), whatever the scheme.
fn same_origin(origin: &str, host: Option<&str>) -> bool {
    let Some(host) = host else { return false };
    origin
        .split_once("://")
        .is_some_and(|(_, rest)| rest.trim_end_matches('/').eq_ignore_ascii_case(host))
}

/// Outermost request middleware, around the CORS policy:
/// - training endpoints are outside CORS: a preflight for one is refused (403), a request whose
///   `Origin` is another site's is refused (403) whatever its credentials, and no
///   `Access-Control-*` header is ever added to their answers;
/// - a preflight the CORS policy refuses answers its 400 with a coded `[CORS_REFUSED] why`
///   body (or the JSON form) instead of actix-cors' bare text.
pub async fn cors_guard(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<actix_web::body::BoxBody>, actix_web::Error> {
    let preflight = req.method() == actix_web::http::Method::OPTIONS
        && req
            .headers()
            .contains_key(header::ACCESS_CONTROL_REQUEST_METHOD);
    let wants_json = req
        .headers()
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(prefers_json);
    let answer = |req: ServiceRequest, e: ApiError| {
        let res = if wants_json {
            e.json_response()
        } else {
            actix_web::ResponseError::error_response(&e)
        };
        Ok(req.into_response(res))
    };
    if is_training_path(req.path()) {
        if preflight {
            let e = ApiError::Forbidden(format!(
                "{} is a training endpoint: CORS does not apply to it (call it from a                  server-side client with `Authorization: Bearer <training.token>`)",
                req.path()
            ));
            return answer(req, e);
        }
        let origin = req
            .headers()
            .get(header::ORIGIN)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let host = req
            .headers()
            .get(header::HOST)
            .and_then(|v| v.to_str().ok());
        if let Some(origin) = origin.filter(|o| !same_origin(o, host)) {
            let e = ApiError::Forbidden(format!(
                "{} is a training endpoint: it takes no cross-origin request (Origin {origin})",
                req.path()
            ));
            return answer(req, e);
        }
        let mut res = next.call(req).await?.map_into_boxed_body();
        let cors_headers: Vec<header::HeaderName> = res
            .headers()
            .keys()
            .filter(|k| k.as_str().starts_with("access-control-"))
            .cloned()
            .collect();
        for k in cors_headers {
            res.headers_mut().remove(k);
        }
        return Ok(res);
    }
    let res = next.call(req).await?.map_into_boxed_body();
    if !(preflight && res.status() == actix_web::http::StatusCode::BAD_REQUEST) {
        return Ok(res);
    }
    let (req, res) = res.into_parts();
    let why = actix_web::body::to_bytes(res.into_body())
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_string())
        .unwrap_or_default();
    let why = if why.is_empty() {
        "the CORS settings refuse this preflight".to_string()
    } else {
        why
    };
    let e = ApiError::CorsRefused(format!("CORS preflight refused: {why} (see `[cors]`)"));
    let res = if wants_json {
        e.json_response()
    } else {
        actix_web::ResponseError::error_response(&e)
    };
    Ok(ServiceResponse::new(req, res))
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

/// Fallback for unknown routes: 405 when the path exists with other methods, else 404, both
/// through the common error path.
pub async fn not_found(req: actix_web::HttpRequest) -> Result<HttpResponse, ApiError> {
    let method = if req.extensions().get::<ArrivedAsHead>().is_some() {
        "HEAD".to_string()
    } else {
        req.method().to_string()
    };
    if req.match_pattern().is_some() {
        return Err(ApiError::MethodNotAllowed(format!(
            "{method} is not accepted on {}",
            req.path()
        )));
    }
    Err(ApiError::NotFound(format!(
        "no endpoint {method} {}; the API is listed at /",
        req.path()
    )))
}

/// The main application's shared state handle.
pub type State = web::Data<AppState>;

/// The trim coalescing, apart from the HTTP tests (whose `test` import is actix's).
#[cfg(test)]
mod trim_tests {
    use super::*;

    #[test]
    fn a_request_made_during_a_run_gets_one_more_run() {
        use std::sync::atomic::AtomicUsize;
        let c = Coalesced::new();
        let runs = AtomicUsize::new(0);
        assert!(c.ask(), "the first request starts the runner");
        c.run(|| {
            // A second request ends while the first run is in progress: it must not start a
            // runner of its own, and it must not be lost.
            if runs.fetch_add(1, Ordering::SeqCst) == 0 {
                assert!(!c.ask());
            }
        });
        assert_eq!(runs.load(Ordering::SeqCst), 2);
        // With the runner gone, the next request starts one again.
        assert!(c.ask());
        c.run(|| {
            runs.fetch_add(1, Ordering::SeqCst);
        });
        assert_eq!(runs.load(Ordering::SeqCst), 3);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::{middleware, test, App};

    async fn boom() -> HttpResponse {
        panic!("handler bug")
    }

    async fn busy() -> Result<HttpResponse, ApiError> {
        Err(ApiError::Busy {
            message: "all slots busy".into(),
            retry_after_s: 1,
        })
    }

    async fn hello() -> HttpResponse {
        HttpResponse::Ok()
            .insert_header(("X-Probe", "1"))
            .body("hello")
    }

    #[actix_web::test]
    async fn head_is_routed_as_get_and_named_head_in_errors() {
        let app = test::init_service(
            App::new()
                .wrap(middleware::from_fn(head_as_get))
                .route("/hello", web::get().to(hello))
                .route("/post-only", web::post().to(hello))
                .default_service(web::to(not_found)),
        )
        .await;
        let head = |uri: &str| {
            test::TestRequest::default()
                .method(actix_web::http::Method::HEAD)
                .uri(uri)
                .to_request()
        };
        let res = test::call_service(&app, head("/hello")).await;
        assert_eq!(res.status(), 200);
        assert_eq!(
            res.headers().get("x-probe").and_then(|v| v.to_str().ok()),
            Some("1")
        );
        // (The body is dropped by the HTTP/1 encoder, which this test harness bypasses.)
        let res = test::call_service(&app, head("/post-only")).await;
        assert_eq!(res.status(), 405);
        let body = test::read_body(res).await;
        assert!(
            body.starts_with(b"[METHOD_NOT_ALLOWED] HEAD is not accepted on /post-only"),
            "{body:?}"
        );
    }

    #[actix_web::test]
    async fn panics_become_500_and_busy_gets_the_endpoint_retry_after() {
        let app = test::init_service(
            App::new()
                .wrap(middleware::from_fn(observe))
                .route("/boom", web::get().to(boom))
                .route("/api/processHeaderDocument", web::post().to(busy)),
        )
        .await;
        // The server answers a service error with the error's response, as here.
        let err = test::try_call_service(&app, test::TestRequest::get().uri("/boom").to_request())
            .await
            .err()
            .map(|e| e.error_response());
        let res = err.expect("a panicking handler becomes an error response");
        assert_eq!(res.status(), 500);
        let body = actix_web::body::to_bytes(res.into_body())
            .await
            .unwrap_or_default();
        assert!(body.starts_with(b"[GENERAL] internal error (handler panicked: handler bug)"));

        let req = test::TestRequest::post()
            .uri("/api/processHeaderDocument")
            .insert_header((header::ACCEPT, "application/json"))
            .to_request();
        let res = test::call_service(&app, req).await;
        assert_eq!(res.status(), 503);
        assert_eq!(
            res.headers()
                .get(header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok()),
            Some("2")
        );
        let json: serde_json::Value = test::read_body_json(res).await;
        assert_eq!(json["code"], "SERVICE_UNAVAILABLE");
    }
}
