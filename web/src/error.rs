/*!
`ApiError`, the service's only `actix_web::ResponseError`: every failure a handler can meet
becomes one of its variants, and this file alone decides status, body and headers.

- missing or invalid parameter, unknown `models` name → 400;
- nothing could be extracted → 204 with no body;
- body or field over the configured size → 413 naming what was too large;
- training already running → 409;
- busy (pool or model queue) → 503 with `Retry-After`, never an HTML page;
- engine and actor failures → 500 with the interface's code.

The body is `[CODE] message` as `text/plain`, as GROBID does; when the request's `Accept`
prefers `application/json`, the request middleware (see `app.rs`) asks [`ApiError::json_response`]
for `{"code", "message", "status"}` instead.
*/

use actix_web::http::header::{self, HeaderValue};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use quire::ErrorCode;

/// Everything a handler can answer besides success.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("missing parameter `{0}`")]
    MissingParam(String),
    #[error("invalid value for parameter `{name}`: {reason}")]
    InvalidParam { name: String, reason: String },
    #[error("{0}")]
    BadRequest(String),
    #[error("no content could be extracted")]
    NoContent,
    #[error("{0}")]
    TooLarge(String),
    #[error("{0}")]
    RequestTimeout(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    MethodNotAllowed(String),
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    Unauthorized(String),
    #[error("{0}")]
    Forbidden(String),
    /// A CORS preflight the `[cors]` settings refuse (400).
    #[error("{0}")]
    CorsRefused(String),
    #[error("{message}")]
    Busy { message: String, retry_after_s: u64 },
    #[error("{message}")]
    Processing { code: ErrorCode, message: String },
}

impl ApiError {
    pub fn missing(name: &str) -> ApiError {
        ApiError::MissingParam(name.to_string())
    }

    pub fn invalid(name: &str, reason: impl Into<String>) -> ApiError {
        ApiError::InvalidParam {
            name: name.to_string(),
            reason: reason.into(),
        }
    }

    /// The code printed in the body: the interface's processing code for 500s, a short
    /// HTTP-level name otherwise.
    pub fn code_str(&self) -> &'static str {
        match self {
            ApiError::MissingParam(_) => "MISSING_PARAMETER",
            ApiError::InvalidParam { .. } => "INVALID_PARAMETER",
            ApiError::BadRequest(_) => "BAD_REQUEST",
            ApiError::NoContent => "NO_CONTENT",
            ApiError::TooLarge(_) => "PAYLOAD_TOO_LARGE",
            ApiError::RequestTimeout(_) => "REQUEST_TIMEOUT",
            ApiError::NotFound(_) => "NOT_FOUND",
            ApiError::MethodNotAllowed(_) => "METHOD_NOT_ALLOWED",
            ApiError::Conflict(_) => "CONFLICT",
            ApiError::Unauthorized(_) => "UNAUTHORIZED",
            ApiError::Forbidden(_) => "FORBIDDEN",
            ApiError::CorsRefused(_) => "CORS_REFUSED",
            ApiError::Busy { .. } => "SERVICE_UNAVAILABLE",
            ApiError::Processing { code, .. } => code.as_str(),
        }
    }

    /// The text body: `[CODE] message`.
    pub fn text_body(&self) -> String {
        format!("[{}] {}", self.code_str(), self)
    }

    /// The JSON body: `{"code", "message", "status"}`.
    pub fn json_body(&self) -> serde_json::Value {
        serde_json::json!({
            "code": self.code_str(),
            "message": self.to_string(),
            "status": self.status_code().as_u16(),
        })
    }

    fn base(&self) -> actix_web::HttpResponseBuilder {
        let mut builder = HttpResponse::build(self.status_code());
        if let ApiError::Busy { retry_after_s, .. } = self {
            builder.insert_header((header::RETRY_AFTER, retry_after_s.to_string()));
        }
        if let ApiError::Unauthorized(_) = self {
            builder.insert_header((header::WWW_AUTHENTICATE, "Bearer"));
        }
        builder
    }

    /// The JSON variant of the response, for clients whose `Accept` prefers JSON.
    pub fn json_response(&self) -> HttpResponse {
        if matches!(self, ApiError::NoContent) {
            return self.error_response();
        }
        self.base()
            .content_type("application/json")
            .body(self.json_body().to_string())
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::MissingParam(_)
            | ApiError::InvalidParam { .. }
            | ApiError::BadRequest(_)
            | ApiError::CorsRefused(_) => StatusCode::BAD_REQUEST,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NoContent => StatusCode::NO_CONTENT,
            ApiError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::RequestTimeout(_) => StatusCode::REQUEST_TIMEOUT,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::Busy { .. } => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Processing { .. } => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        if matches!(self, ApiError::NoContent) {
            return HttpResponse::NoContent().finish();
        }
        let mut res = self.base().body(self.text_body());
        res.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        res
    }
}

impl From<quire_actors::Error> for ApiError {
    fn from(e: quire_actors::Error) -> ApiError {
        use quire_actors::Error as E;
        match e {
            E::Busy {
                what,
                retry_after_s,
            } => ApiError::Busy {
                message: format!("{what} busy; retry in {retry_after_s} s"),
                retry_after_s,
            },
            E::TrainingInProgress { .. } => ApiError::Conflict(e.to_string()),
            E::UnknownToken { .. } => ApiError::BadRequest(e.to_string()),
            other => ApiError::Processing {
                code: other.code(),
                message: other.to_string(),
            },
        }
    }
}

impl From<quire::Error> for ApiError {
    fn from(e: quire::Error) -> ApiError {
        ApiError::Processing {
            code: e.code(),
            message: e.to_string(),
        }
    }
}

/// Whether an `Accept` header value prefers JSON over plain text / XML: JSON must be listed
/// with the highest quality of the listed types (ties go to JSON only when it comes first).
pub fn prefers_json(accept: &str) -> bool {
    let mut best: Option<(f32, bool)> = None;
    for item in accept.split(',') {
        let mut parts = item.split(';');
        let mime = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        if mime.is_empty() {
            continue;
        }
        let q = parts
            .filter_map(|p| p.trim().strip_prefix("q="))
            .find_map(|v| v.trim().parse::<f32>().ok())
            .unwrap_or(1.0);
        let json = mime == "application/json" || mime.ends_with("+json");
        if best.is_none_or(|(bq, _)| q > bq) {
            best = Some((q, json));
        }
    }
    best.is_some_and(|(q, json)| json && q > 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::body::MessageBody;
    use proptest::prelude::*;

    fn body_text(res: HttpResponse) -> String {
        let bytes = res.into_body().try_into_bytes().unwrap_or_default();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    #[test]
    fn statuses_follow_the_interface() {
        assert_eq!(ApiError::missing("date").status_code(), 400);
        assert_eq!(ApiError::NoContent.status_code(), 204);
        assert_eq!(ApiError::TooLarge("x".into()).status_code(), 413);
        assert_eq!(ApiError::Conflict("x".into()).status_code(), 409);
        let busy: ApiError = quire_actors::Error::Busy {
            what: "processHeaderDocument".into(),
            retry_after_s: 2,
        }
        .into();
        let res = busy.error_response();
        assert_eq!(res.status(), 503);
        assert_eq!(
            res.headers()
                .get(header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok()),
            Some("2")
        );
        assert!(body_text(res).starts_with("[SERVICE_UNAVAILABLE] "));
        for code in ErrorCode::ALL {
            let e = ApiError::Processing {
                code,
                message: "m".into(),
            };
            assert_eq!(e.status_code(), 500);
            assert_eq!(body_text(e.error_response()), format!("[{code}] m"));
        }
        let e: ApiError = quire::Error::NoBlocks.into();
        assert!(e.text_body().starts_with("[NO_BLOCKS] "));
        let e: ApiError = quire_actors::Error::TrainingInProgress {
            model: "date".into(),
            token: "t".into(),
        }
        .into();
        assert_eq!(e.status_code(), 409);
        assert_eq!(ApiError::NoContent.error_response().status(), 204);
        assert!(body_text(ApiError::NoContent.json_response()).is_empty());
    }

    #[test]
    fn accept_negotiation() {
        assert!(prefers_json("application/json"));
        assert!(prefers_json("application/json, text/plain;q=0.5"));
        assert!(prefers_json("text/plain;q=0.2, application/json"));
        assert!(!prefers_json("application/xml, application/json"));
        assert!(!prefers_json("*/*"));
        assert!(!prefers_json(""));
        assert!(!prefers_json("application/json;q=0"));
    }

    proptest! {
        #[test]
        fn bodies_carry_code_and_message(message in "\\PC{0,80}", idx in 0usize..ErrorCode::ALL.len()) {
            let code = ErrorCode::ALL[idx];
            let e = ApiError::Processing { code, message: message.clone() };
            prop_assert_eq!(e.text_body(), format!("[{}] {}", code.as_str(), message));
            let json: serde_json::Value = serde_json::from_str(&body_text(e.json_response()))
                .map_err(|err| TestCaseError::fail(err.to_string()))?;
            prop_assert_eq!(json["code"].as_str(), Some(code.as_str()));
            prop_assert_eq!(json["message"].as_str(), Some(message.as_str()));
            prop_assert_eq!(json["status"].as_u64(), Some(500));
        }

        #[test]
        fn param_errors_name_the_parameter(name in "[a-zA-Z]{1,20}") {
            let e = ApiError::missing(&name);
            let quoted = format!("`{}`", name);
            prop_assert!(e.text_body().contains(&quoted));
            prop_assert_eq!(e.status_code(), StatusCode::BAD_REQUEST);
        }
    }
}

/// `text` with every absolute file path of two or more components cut to `…/` and its last
/// two components (its last one when it has two: `/srv/q/models/header/model.crf` becomes
/// `…/header/model.crf`): public answers (the API port's `/api/health`, training errors) must not show
/// where the service keeps its files. URLs (`scheme://…`) are left alone.
pub fn scrub_paths(text: &str) -> String {
    let starts =
        |prev: Option<char>| prev.is_none_or(|p| p.is_whitespace() || "('\"`=,[".contains(p));
    let ends = |c: char| c.is_whitespace() || ")'\"`,;]:".contains(c);
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let prev = i.checked_sub(1).map(|j| chars[j]);
        if chars[i] == '/' && starts(prev) {
            let mut j = i;
            while j < chars.len() && !ends(chars[j]) {
                j += 1;
            }
            let path: String = chars[i..j].iter().collect();
            let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
            if parts.len() >= 2 {
                out.push_str("…/");
                if parts.len() >= 3 {
                    out.push_str(parts[parts.len() - 2]);
                    out.push('/');
                }
                out.push_str(parts[parts.len() - 1]);
                if path.ends_with('/') {
                    out.push('/');
                }
            } else {
                out.push_str(&path);
            }
            i = j;
            continue;
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

#[cfg(test)]
mod scrub_tests {
    use super::scrub_paths;

    #[test]
    fn absolute_paths_lose_their_folders_and_urls_stay() {
        assert_eq!(
            scrub_paths("/root/.cache/quire/x.crf is missing (see /tmp/a/b/)"),
            "…/quire/x.crf is missing (see …/a/b/)"
        );
        assert_eq!(
            scrub_paths("cannot load `/opt/libpdfium.so`: no"),
            "cannot load `…/libpdfium.so`: no"
        );
        assert_eq!(
            scrub_paths("http://localhost:8080/api/x and /api"),
            "http://localhost:8080/api/x and /api"
        );
    }
}
