/*!
One reader for request parameters. GROBID clients send the same parameters as
`application/x-www-form-urlencoded` or as `multipart/form-data` (and `GET` ones in the query
string), so every handler takes [`Params`] and asks for fields by name with typed accessors:
`text`, `required_text`, `texts` (repeated fields), `file`, `bool01`, `int_range`. Sizes are
enforced while reading: the whole body against `limits.max_upload_mb`, each text field against
`limits.max_field_kb`; both answer 413 naming what was too large.
*/

use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::web::{Bytes, BytesMut};
use actix_web::{FromRequest, HttpRequest};
use futures::future::LocalBoxFuture;
use futures::{StreamExt, TryStreamExt};

use crate::error::ApiError;

/// Size caps for [`Params`]; registered as app data (defaults apply when absent).
#[derive(Debug, Clone, Copy)]
pub struct ParamLimits {
    pub max_body_bytes: usize,
    pub max_field_bytes: usize,
    /// Time the client has to send the whole body (`limits.body_timeout_s`).
    pub body_timeout: std::time::Duration,
    /// Strings one raw-string request may carry (`limits.max_strings`).
    pub max_strings: usize,
    /// Tokens one raw string may hold (`limits.max_string_tokens`).
    pub max_string_tokens: usize,
    /// Tokens all the raw strings of one request may hold together (`limits.max_request_tokens`).
    pub max_request_tokens: usize,
    /// Bytes of one text or XML document (patent text, ST.36, consolidateTEI input), as a field
    /// or a file part (`limits.max_text_kb`).
    pub max_text_bytes: usize,
    /// Elements of one XML document (ST.36 paragraphs, TEI references; `limits.max_xml_elements`).
    pub max_xml_elements: usize,
}

impl Default for ParamLimits {
    fn default() -> Self {
        ParamLimits::from_config(&crate::config::Config::default())
    }
}

impl ParamLimits {
    pub fn from_config(c: &crate::config::Config) -> ParamLimits {
        ParamLimits {
            max_body_bytes: (c.limits.max_upload_mb * 1024 * 1024) as usize,
            max_field_bytes: (c.limits.max_field_kb * 1024) as usize,
            body_timeout: std::time::Duration::from_secs(c.limits.body_timeout_s),
            max_strings: c.limits.max_strings,
            max_string_tokens: c.limits.max_string_tokens,
            max_request_tokens: c.limits.max_request_tokens,
            max_text_bytes: (c.limits.max_text_kb * 1024) as usize,
            max_xml_elements: c.limits.max_xml_elements,
        }
    }
}

/// Bytes read past an over-limit body so the client sees the 413 instead of a reset.
const DRAIN_CAP: usize = 64 * 1024 * 1024;

/// One received field.
#[derive(Debug, Clone)]
pub struct Field {
    pub name: String,
    pub data: Bytes,
    /// Set for multipart file parts.
    pub filename: Option<String>,
    pub content_type: Option<String>,
}

/// The parameters of one request, in the order received (query string first).
#[derive(Debug, Clone, Default)]
pub struct Params {
    fields: Vec<Field>,
    limits: ParamLimits,
}

impl Params {
    /// Builds parameters from name/value pairs (tests, internal calls).
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Params {
        Params {
            fields: pairs
                .into_iter()
                .map(|(n, v)| Field {
                    name: n.to_string(),
                    data: Bytes::copy_from_slice(v.as_bytes()),
                    filename: None,
                    content_type: None,
                })
                .collect(),
            limits: ParamLimits::default(),
        }
    }

    pub fn fields(&self) -> &[Field] {
        &self.fields
    }

    fn first(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    pub fn has(&self, name: &str) -> bool {
        self.first(name).is_some()
    }

    /// The first value of `name` as text; invalid UTF-8 is a 400 naming the field.
    pub fn text(&self, name: &str) -> Result<Option<&str>, ApiError> {
        self.first(name)
            .map(|f| {
                std::str::from_utf8(&f.data).map_err(|_| ApiError::invalid(name, "not UTF-8 text"))
            })
            .transpose()
    }

    /// The first value of `name`; missing or blank is a 400 naming it.
    pub fn required_text(&self, name: &str) -> Result<&str, ApiError> {
        match self.text(name)? {
            Some(v) if !v.trim().is_empty() => Ok(v),
            _ => Err(ApiError::missing(name)),
        }
    }

    /// A raw string to parse (`required_text`, within `limits.max_string_tokens`).
    pub fn raw_string(&self, name: &str) -> Result<&str, ApiError> {
        let text = self.required_text(name)?;
        self.check_tokens(name, text)?;
        Ok(text)
    }

    /// Every raw string of a repeated field, within `limits.max_strings` strings and
    /// `limits.max_string_tokens` tokens each.
    pub fn raw_strings(&self, name: &str) -> Result<Vec<&str>, ApiError> {
        let texts = self.texts(name)?;
        if texts.len() > self.limits.max_strings {
            return Err(ApiError::TooLarge(format!(
                "{} strings in `{name}`; the limit is {} (`limits.max_strings`)",
                texts.len(),
                self.limits.max_strings
            )));
        }
        for text in &texts {
            self.check_tokens(name, text)?;
        }
        // All the strings together: cheap bound first (a string has at most as many tokens as
        // bytes), then the real count.
        let limit = self.limits.max_request_tokens;
        if texts.iter().map(|t| t.len()).sum::<usize>() > limit {
            let tokens: usize = texts
                .iter()
                .map(|t| quire::tokenizer::tokenize(t).len())
                .sum();
            if tokens > limit {
                return Err(ApiError::TooLarge(format!(
                    "the strings in `{name}` hold {tokens} tokens together; the limit is {limit} \
                     (`limits.max_request_tokens`)"
                )));
            }
        }
        Ok(texts)
    }

    /// A text document sent as field or file part `name` (patent description, ST.36 or TEI
    /// XML): UTF-8, not blank, within `limits.max_text_kb` bytes; `xml` documents also within
    /// `limits.max_xml_elements` elements. Over a limit: 413 naming the setting.
    pub fn text_document(&self, name: &str, xml: bool) -> Result<String, ApiError> {
        let f = self.required_file(name)?;
        let limit = self.limits.max_text_bytes;
        if f.data.len() > limit {
            return Err(ApiError::TooLarge(format!(
                "`{name}` holds {} bytes; the limit is {limit} bytes (`limits.max_text_kb`)",
                f.data.len()
            )));
        }
        let text =
            std::str::from_utf8(&f.data).map_err(|_| ApiError::invalid(name, "not UTF-8 text"))?;
        if text.trim().is_empty() {
            return Err(ApiError::missing(name));
        }
        if xml {
            let elements = xml_elements(text);
            let limit = self.limits.max_xml_elements;
            if elements > limit {
                return Err(ApiError::TooLarge(format!(
                    "`{name}` holds {elements} XML elements; the limit is {limit} \
                     (`limits.max_xml_elements`)"
                )));
            }
        }
        Ok(text.to_string())
    }

    fn check_tokens(&self, name: &str, text: &str) -> Result<(), ApiError> {
        let limit = self.limits.max_string_tokens;
        // Cheap bound first: a string has at most as many tokens as bytes.
        if text.len() <= limit {
            return Ok(());
        }
        let tokens = quire::tokenizer::tokenize(text).len();
        if tokens > limit {
            return Err(ApiError::TooLarge(format!(
                "a string in `{name}` holds {tokens} tokens; the limit is {limit} (`limits.max_string_tokens`)"
            )));
        }
        Ok(())
    }

    /// Every value of a repeated field, in order.
    pub fn texts(&self, name: &str) -> Result<Vec<&str>, ApiError> {
        self.fields
            .iter()
            .filter(|f| f.name == name)
            .map(|f| {
                std::str::from_utf8(&f.data).map_err(|_| ApiError::invalid(name, "not UTF-8 text"))
            })
            .collect()
    }

    /// The bytes of `name` (a file part, or a plain field).
    pub fn file(&self, name: &str) -> Option<&Field> {
        self.first(name)
    }

    /// The bytes of `name`; missing or empty is a 400 naming it (an empty upload says so).
    pub fn required_file(&self, name: &str) -> Result<&Field, ApiError> {
        match self.first(name) {
            None => Err(ApiError::missing(name)),
            Some(f) if f.data.is_empty() => Err(ApiError::invalid(
                name,
                match &f.filename {
                    Some(file) => format!("the uploaded file `{file}` is empty (0 bytes)"),
                    None => "the uploaded file is empty (0 bytes)".to_string(),
                },
            )),
            Some(f) => Ok(f),
        }
    }

    /// The bytes of the required file `name`, taken out of the parameters (checked as
    /// [`Params::required_file`] does): the upload's buffer becomes the vector without a copy
    /// when nothing else holds it, so a PDF of megabytes is not copied and touched again
    /// before it goes to the layout worker. The field stays, empty.
    pub fn take_file(&mut self, name: &str) -> Result<Vec<u8>, ApiError> {
        self.required_file(name)?;
        let data = match self.fields.iter_mut().find(|f| f.name == name) {
            Some(field) => std::mem::take(&mut field.data),
            None => return Err(ApiError::missing(name)),
        };
        Ok(Vec::from(data))
    }

    /// GROBID's booleans: true only for `1` or `true`; absent is false.
    pub fn bool01(&self, name: &str) -> Result<bool, ApiError> {
        Ok(matches!(
            self.text(name)?.map(str::trim),
            Some("1") | Some("true")
        ))
    }

    /// An integer in `[min, max]`, `default` when absent or empty; otherwise a 400 naming it.
    pub fn int_range(&self, name: &str, default: i64, min: i64, max: i64) -> Result<i64, ApiError> {
        let Some(raw) = self.text(name)?.map(str::trim).filter(|v| !v.is_empty()) else {
            return Ok(default);
        };
        let value: i64 = raw
            .parse()
            .map_err(|_| ApiError::invalid(name, format!("`{raw}` is not an integer")))?;
        if value < min || value > max {
            return Err(ApiError::invalid(
                name,
                format!("{value} is outside {min}..={max}"),
            ));
        }
        Ok(value)
    }

    /// Reads the query string and the body of `req`.
    pub async fn read(req: &HttpRequest, payload: Payload) -> Result<Params, ApiError> {
        let limits = req.app_data::<ParamLimits>().copied().unwrap_or_default();
        let mut params = Params {
            fields: Vec::new(),
            limits,
        };
        params.push_urlencoded(req.query_string().as_bytes(), &limits)?;
        // A body that trickles in must not hold its connection (and memory) forever.
        match tokio::time::timeout(limits.body_timeout, params.read_parts(req, payload)).await {
            Ok(result) => result.map(|()| params),
            Err(_) => Err(ApiError::RequestTimeout(format!(
                "the request body did not arrive within {} s (`limits.body_timeout_s`)",
                limits.body_timeout.as_secs()
            ))),
        }
    }

    async fn read_parts(
        &mut self,
        req: &HttpRequest,
        mut payload: Payload,
    ) -> Result<(), ApiError> {
        let limits = self.limits;
        let params = self;

        let declared = req
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<usize>().ok());
        if declared.is_some_and(|n| n > limits.max_body_bytes) {
            // A client that waits for `100 Continue` has sent nothing yet: don't ask for the
            // body just to throw it away (the connection closes after the 413).
            if !req.head().expect() {
                drain(&mut payload).await;
            }
            return Err(body_too_large(&limits));
        }
        let content_type = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        if content_type.starts_with("multipart/form-data") {
            params
                .read_multipart(req, payload, &limits, declared)
                .await?;
        } else {
            let body = read_body(&mut payload, limits.max_body_bytes, declared).await?;
            if content_type.starts_with("application/x-www-form-urlencoded")
                || (content_type.is_empty() && !body.is_empty())
            {
                params.push_urlencoded(&body, &limits)?;
            } else if !body.is_empty() {
                return Err(ApiError::BadRequest(format!(
                    "unsupported content type `{content_type}`; send multipart/form-data or application/x-www-form-urlencoded"
                )));
            }
        }
        Ok(())
    }

    fn push_urlencoded(&mut self, bytes: &[u8], limits: &ParamLimits) -> Result<(), ApiError> {
        for (name, value) in form_urlencoded::parse(bytes) {
            if value.len() > limits.max_field_bytes {
                return Err(field_too_large(&name, limits));
            }
            self.fields.push(Field {
                name: name.into_owned(),
                data: Bytes::from(value.into_owned()),
                filename: None,
                content_type: None,
            });
        }
        Ok(())
    }

    async fn read_multipart(
        &mut self,
        req: &HttpRequest,
        payload: Payload,
        limits: &ParamLimits,
        declared: Option<usize>,
    ) -> Result<(), ApiError> {
        let mut multipart = actix_multipart::Multipart::new(req.headers(), payload);
        let mut total = 0usize;
        let mut sized = false;
        loop {
            let next = multipart.try_next().await;
            let mut part = match next {
                Ok(Some(part)) => part,
                Ok(None) => break,
                Err(e) => {
                    return Err(ApiError::BadRequest(format!(
                        "malformed multipart body: {e}"
                    )))
                }
            };
            let name = part
                .content_disposition()
                .and_then(|cd| cd.get_name())
                .map(str::to_string)
                .ok_or_else(|| ApiError::BadRequest("a multipart part has no name".into()))?;
            let filename = part
                .content_disposition()
                .and_then(|cd| cd.get_filename())
                .map(str::to_string);
            let content_type = part.content_type().map(|m| m.to_string());
            let field_cap = if filename.is_some() {
                usize::MAX
            } else {
                limits.max_field_bytes
            };
            // The first file (the PDF, megabytes) is sized from what the body declares is
            // left, checked against the body cap above, so it is read without regrowing.
            // Only the first: a body of many small files reserves no more than its size.
            let mut data = match (&filename, declared) {
                (Some(_), Some(n)) if !sized => {
                    sized = true;
                    BytesMut::with_capacity(n.saturating_sub(total))
                }
                _ => BytesMut::new(),
            };
            while let Some(chunk) = part.next().await {
                let chunk = chunk
                    .map_err(|e| ApiError::BadRequest(format!("reading part `{name}`: {e}")))?;
                total += chunk.len();
                if total > limits.max_body_bytes {
                    drop(part);
                    drain_multipart(&mut multipart).await;
                    return Err(body_too_large(limits));
                }
                if data.len() + chunk.len() > field_cap {
                    drop(part);
                    drain_multipart(&mut multipart).await;
                    return Err(field_too_large(&name, limits));
                }
                data.extend_from_slice(&chunk);
            }
            self.fields.push(Field {
                name,
                data: data.freeze(),
                filename,
                content_type,
            });
        }
        Ok(())
    }
}

/// Start tags in `xml` (a `<` followed by a name character), counted before any parsing.
fn xml_elements(xml: &str) -> usize {
    xml.as_bytes()
        .windows(2)
        .filter(|w| w[0] == b'<' && (w[1].is_ascii_alphabetic() || w[1] == b'_' || w[1] >= 0x80))
        .count()
}

fn body_too_large(limits: &ParamLimits) -> ApiError {
    ApiError::TooLarge(format!(
        "the request body is larger than {} bytes; raise `limits.max_upload_mb`",
        limits.max_body_bytes
    ))
}

fn field_too_large(name: &str, limits: &ParamLimits) -> ApiError {
    ApiError::TooLarge(format!(
        "field `{name}` is larger than {} bytes; raise `limits.max_field_kb`",
        limits.max_field_bytes
    ))
}

async fn read_body(
    payload: &mut Payload,
    cap: usize,
    declared: Option<usize>,
) -> Result<Bytes, ApiError> {
    let mut body = BytesMut::with_capacity(declared.unwrap_or(0).min(cap));
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| ApiError::BadRequest(format!("reading the body: {e}")))?;
        if body.len() + chunk.len() > cap {
            drain(payload).await;
            return Err(ApiError::TooLarge(format!(
                "the request body is larger than {cap} bytes; raise `limits.max_upload_mb`"
            )));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}

/// Reads and discards what is left of the body (up to [`DRAIN_CAP`]).
async fn drain(payload: &mut Payload) {
    let mut seen = 0usize;
    while let Some(Ok(chunk)) = payload.next().await {
        seen += chunk.len();
        if seen > DRAIN_CAP {
            break;
        }
    }
}

async fn drain_multipart(multipart: &mut actix_multipart::Multipart) {
    let mut seen = 0usize;
    while let Ok(Some(mut part)) = multipart.try_next().await {
        while let Some(Ok(chunk)) = part.next().await {
            seen += chunk.len();
            if seen > DRAIN_CAP {
                return;
            }
        }
    }
}

impl FromRequest for Params {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Params, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let req = req.clone();
        let payload = payload.take();
        Box::pin(async move { Params::read(&req, payload).await })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    async fn read(req: TestRequest) -> Result<Params, ApiError> {
        let (req, payload) = req.to_http_parts();
        Params::read(&req, payload).await
    }

    #[actix_web::test]
    async fn form_and_query_fields_with_typed_access() {
        let p = read(
            TestRequest::post()
                .uri("/x?consolidateCitations=2")
                .insert_header((header::CONTENT_TYPE, "application/x-www-form-urlencoded"))
                .set_payload("citations=A%20b&citations=C&includeRawCitations=1&start=x"),
        )
        .await
        .expect("parsed");
        assert_eq!(p.texts("citations").ok(), Some(vec!["A b", "C"]));
        assert_eq!(p.int_range("consolidateCitations", 0, 0, 2).ok(), Some(2));
        assert_eq!(p.bool01("includeRawCitations").ok(), Some(true));
        assert_eq!(p.bool01("includeRawAffiliations").ok(), Some(false));
        assert_eq!(p.int_range("end", -1, -1, 10_000).ok(), Some(-1));
        let bad = p.int_range("start", -1, -1, 10_000).unwrap_err();
        assert!(bad.to_string().contains("`start`"), "{bad}");
        let missing = p.required_text("date").unwrap_err();
        assert!(matches!(missing, ApiError::MissingParam(ref n) if n == "date"));
    }

    #[actix_web::test]
    async fn multipart_text_and_file_parts() {
        let body = "--XX\r\nContent-Disposition: form-data; name=\"input\"; filename=\"a.pdf\"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4 bytes\r\n--XX\r\nContent-Disposition: form-data; name=\"consolidateHeader\"\r\n\r\n0\r\n--XX\r\nContent-Disposition: form-data; name=\"teiCoordinates\"\r\n\r\npersName\r\n--XX\r\nContent-Disposition: form-data; name=\"teiCoordinates\"\r\n\r\nfigure\r\n--XX--\r\n";
        let p = read(
            TestRequest::post()
                .insert_header((header::CONTENT_TYPE, "multipart/form-data; boundary=XX"))
                .set_payload(body),
        )
        .await
        .expect("parsed");
        let input = p.required_file("input").expect("file");
        assert_eq!(&input.data[..], b"%PDF-1.4 bytes");
        assert_eq!(input.filename.as_deref(), Some("a.pdf"));
        assert_eq!(p.int_range("consolidateHeader", 1, 0, 3).ok(), Some(0));
        assert_eq!(
            p.texts("teiCoordinates").ok(),
            Some(vec!["persName", "figure"])
        );
        // Taking the file hands over the upload's own buffer, not a copy.
        let mut p = p;
        let at = p.required_file("input").expect("file").data.as_ptr();
        let pdf = p.take_file("input").expect("taken");
        assert_eq!(pdf, b"%PDF-1.4 bytes");
        assert_eq!(pdf.as_ptr(), at, "the file's bytes were copied");
        assert!(matches!(
            p.take_file("input"),
            Err(ApiError::InvalidParam { .. })
        ));
    }

    #[actix_web::test]
    async fn oversized_bodies_and_fields_are_413_naming_them() {
        let limits = ParamLimits {
            max_body_bytes: 100,
            max_field_bytes: 10,
            ..ParamLimits::default()
        };
        let field = read(
            TestRequest::post()
                .app_data(limits)
                .insert_header((header::CONTENT_TYPE, "application/x-www-form-urlencoded"))
                .set_payload("date=12345678901234"),
        )
        .await
        .unwrap_err();
        assert!(
            matches!(&field, ApiError::TooLarge(m) if m.contains("`date`")),
            "{field}"
        );
        let body = read(
            TestRequest::post()
                .app_data(limits)
                .insert_header((header::CONTENT_TYPE, "application/x-www-form-urlencoded"))
                .set_payload("a=1&".repeat(40)),
        )
        .await
        .unwrap_err();
        assert!(
            matches!(&body, ApiError::TooLarge(m) if m.contains("max_upload_mb")),
            "{body}"
        );
        let part = read(
            TestRequest::post()
                .app_data(limits)
                .insert_header((header::CONTENT_TYPE, "multipart/form-data; boundary=XX"))
                .set_payload("--XX\r\nContent-Disposition: form-data; name=\"names\"\r\n\r\nJohn Smith and more\r\n--XX--\r\n"),
        )
        .await
        .unwrap_err();
        assert!(
            matches!(&part, ApiError::TooLarge(m) if m.contains("`names`")),
            "{part}"
        );
    }

    proptest::proptest! {
        #[test]
        fn any_form_round_trips(pairs in proptest::collection::vec(("[a-zA-Z]{1,8}", "\\PC{0,40}"), 0..8)) {
            let mut ser = form_urlencoded::Serializer::new(String::new());
            for (n, v) in &pairs {
                ser.append_pair(n, v);
            }
            let body = ser.finish();
            let parsed = actix_web::rt::System::new().block_on(read(
                TestRequest::post()
                    .insert_header((header::CONTENT_TYPE, "application/x-www-form-urlencoded"))
                    .set_payload(body),
            ));
            let params = parsed.map_err(|e| proptest::test_runner::TestCaseError::fail(e.to_string()))?;
            for (n, _) in &pairs {
                let expected: Vec<&str> = pairs.iter().filter(|(m, _)| m == n).map(|(_, v)| v.as_str()).collect();
                proptest::prop_assert_eq!(params.texts(n).ok(), Some(expected));
            }
            proptest::prop_assert_eq!(params.fields().len(), pairs.len());
        }
    }
}
