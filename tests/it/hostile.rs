//! Faults found when the service was attacked as a hostile user would (issue 40): training
//! reachable without a token or from another site, the admin port on every interface, absolute
//! paths in public answers, refused CORS preflights without a coded body. (The worker sandbox:
//! `sandbox.rs`; memory bounds: `errors.rs` and `patents.rs`.)

use crate::common::Server;

#[test]
fn fault6_training_enabled_without_a_token_refuses_to_start() {
    let (ok, log) = Server::builder()
        .set("training", "enabled = true")
        .run_to_exit();
    assert!(
        !ok,
        "the service started with open training endpoints:\n{log}"
    );
    assert!(log.contains("training.token"), "{log}");
    assert!(log.contains("Authorization: Bearer"), "{log}");
    // A blank token is no token.
    let (ok, log) = Server::builder()
        .set("training", "enabled = true")
        .set("training", "token = \"   \"")
        .run_to_exit();
    assert!(!ok, "{log}");
}

fn training_server() -> Server {
    Server::builder()
        .with_model("date")
        .set("training", "enabled = true")
        .set("training", "token = \"s3cret\"")
        .start()
}

#[test]
fn fault6_training_takes_only_a_bearer_header_never_a_field_or_another_site() {
    let s = training_server();
    // The token as a form field or a query parameter opens nothing.
    for form in [
        vec![("model", "date"), ("token", "s3cret")],
        vec![("model", "date"), ("authorization", "Bearer s3cret")],
    ] {
        let r = s.post_form("/api/modelTraining", &form);
        assert_eq!(r.status().as_u16(), 401, "{form:?}");
    }
    let r = s
        .client
        .get(s.url("/api/training?token=s3cret&access_token=s3cret"))
        .send()
        .expect("GET");
    assert_eq!(r.status().as_u16(), 401);
    // A page on another site: its form POST (a "simple" request, no preflight) is refused
    // whatever it carries, and a preflight for the routes is refused with no CORS header.
    let r = s
        .client
        .post(s.url("/api/modelTraining"))
        .header("Origin", "https://evil.example")
        .header("Authorization", "Bearer s3cret")
        .form(&[("model", "date")])
        .send()
        .expect("POST");
    assert_eq!(r.status().as_u16(), 403);
    assert!(r.headers().get("access-control-allow-origin").is_none());
    assert!(
        r.text().unwrap_or_default().starts_with("[FORBIDDEN] "),
        "coded body"
    );
    let r = s
        .client
        .request(reqwest::Method::OPTIONS, s.url("/api/modelTraining"))
        .header("Origin", "https://evil.example")
        .header("Access-Control-Request-Method", "POST")
        .header("Access-Control-Request-Headers", "authorization")
        .send()
        .expect("preflight");
    assert_eq!(r.status().as_u16(), 403);
    assert!(r.headers().get("access-control-allow-origin").is_none());
    assert!(r.headers().get("access-control-allow-headers").is_none());
    // The service's own callers (no Origin, or its own) with the header get in, and the answer
    // carries no CORS header even though `[cors]` allows any origin.
    let own = format!("http://127.0.0.1:{}", s.port);
    let r = s
        .client
        .get(s.url("/api/training"))
        .header("Origin", own)
        .header("Authorization", "Bearer s3cret")
        .send()
        .expect("GET");
    assert_eq!(r.status().as_u16(), 200);
    assert!(r.headers().get("access-control-allow-origin").is_none());
    // Other routes keep their CORS.
    let r = s
        .client
        .get(s.url("/api/version"))
        .header("Origin", "https://evil.example")
        .send()
        .expect("GET");
    assert_eq!(r.headers()["access-control-allow-origin"], "*");
}

/// The local address (hex, as /proc/net/tcp writes it) of the socket listening on `port`.
fn listening_address(port: u16) -> Vec<String> {
    let mut out = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let text = std::fs::read_to_string(table).unwrap_or_default();
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.len() < 4 || f[3] != "0A" {
                continue;
            }
            let Some((addr, p)) = f[1].split_once(':') else {
                continue;
            };
            if u16::from_str_radix(p, 16).ok() == Some(port) {
                out.push(addr.to_string());
            }
        }
    }
    out
}

#[test]
fn fault7_the_admin_port_listens_on_loopback_unless_told_otherwise() {
    let s = Server::start();
    let admin = listening_address(s.admin_port);
    assert_eq!(
        admin,
        vec!["0100007F".to_string()],
        "admin port bound to {admin:?}"
    );
    assert_eq!(s.admin_get("/ping").status().as_u16(), 200);
    let s = Server::builder()
        .set("server", "admin_host = \"0.0.0.0\"")
        .start();
    assert_eq!(
        listening_address(s.admin_port),
        vec!["00000000".to_string()]
    );
}

#[test]
fn fault7_public_answers_name_no_folder() {
    let builder = Server::builder().with_model("date");
    let folder = builder.dir().to_path_buf();
    let s = builder
        .set("models", "pdfium_lib = \"/nonexistent/lib/libpdfium.so\"")
        .start();
    let body = s.get("/api/health").text().unwrap_or_default();
    let folder = folder.display().to_string();
    assert!(!body.contains(&folder), "{body}");
    assert!(!body.contains("/nonexistent/lib"), "{body}");
    assert!(body.contains("libpdfium.so"), "{body}");
    // The admin port (loopback) keeps the whole paths for the operator.
    let admin = s.admin_get("/healthcheck").text().unwrap_or_default();
    assert!(admin.contains(&folder), "{admin}");
}

#[test]
fn fault8_a_refused_preflight_answers_a_coded_body() {
    let s = Server::builder()
        .set("cors", "allowed_origins = \"https://allowed.example\"")
        .start();
    let r = s
        .client
        .request(reqwest::Method::OPTIONS, s.url("/api/processDate"))
        .header("Origin", "https://other.example")
        .header("Access-Control-Request-Method", "POST")
        .send()
        .expect("preflight");
    assert_eq!(r.status().as_u16(), 400);
    let body = r.text().unwrap_or_default();
    assert!(body.starts_with("[CORS_REFUSED] "), "{body}");
    assert!(body.contains("cors"), "{body}");
    let r = s
        .client
        .request(reqwest::Method::OPTIONS, s.url("/api/processDate"))
        .header("Origin", "https://other.example")
        .header("Access-Control-Request-Method", "POST")
        .header("Accept", "application/json")
        .send()
        .expect("preflight");
    assert_eq!(r.status().as_u16(), 400);
    let v: serde_json::Value = r.json().expect("json");
    assert_eq!(v["code"], "CORS_REFUSED");
}

/// A multipart body with one file part `input`.
fn file_part(bytes: Vec<u8>, name: &str) -> reqwest::blocking::multipart::Form {
    reqwest::blocking::multipart::Form::new().part(
        "input",
        reqwest::blocking::multipart::Part::bytes(bytes).file_name(name.to_string()),
    )
}

fn small_limits() -> Server {
    Server::builder()
        .set("limits", "max_text_kb = 4")
        .set("limits", "max_xml_elements = 50")
        .set("limits", "max_request_tokens = 100")
        .start()
}

fn assert_413(res: reqwest::blocking::Response, setting: &str) {
    assert_eq!(res.status().as_u16(), 413);
    let body = res.text().unwrap_or_default();
    assert!(body.starts_with("[PAYLOAD_TOO_LARGE] "), "{body}");
    assert!(body.contains(setting), "{setting} not named: {body}");
}

#[test]
fn faults2_3_text_and_xml_inputs_are_bounded_whatever_their_form() {
    let s = small_limits();
    let text = "A device as in US 5,123,456. ".repeat(200); // 5.8 KB
                                                            // Patent text as a file part (was unbounded) and as a form field.
    let res = s
        .client
        .post(s.url("/api/processCitationPatentTXT"))
        .multipart(file_part(text.clone().into_bytes(), "p.txt"))
        .send()
        .expect("POST");
    assert_413(res, "limits.max_text_kb");
    assert_413(
        s.post_form("/api/processCitationPatentTXT", &[("input", &text)]),
        "limits.max_text_kb",
    );
    // ST.36: small in bytes, too many paragraphs; and too many bytes.
    let st36 = format!(
        "<patent-document><description>{}</description></patent-document>",
        "<p>a</p>".repeat(60)
    );
    let res = s
        .client
        .post(s.url("/api/processCitationPatentST36"))
        .multipart(file_part(st36.into_bytes(), "p.xml"))
        .send()
        .expect("POST");
    assert_413(res, "limits.max_xml_elements");
    let big = format!("<patent-document>{}</patent-document>", " ".repeat(5000));
    let res = s
        .client
        .post(s.url("/api/processCitationPatentST36"))
        .multipart(file_part(big.into_bytes(), "p.xml"))
        .send()
        .expect("POST");
    assert_413(res, "limits.max_text_kb");
    // consolidateTEI: too many references.
    let tei = format!(
        "<TEI><text><back><listBibl>{}</listBibl></back></text></TEI>",
        "<biblStruct/>".repeat(60)
    );
    let res = s
        .client
        .post(s.url("/api/consolidateTEI"))
        .multipart(file_part(tei.into_bytes(), "t.xml"))
        .send()
        .expect("POST");
    assert_413(res, "limits.max_xml_elements");
}

#[test]
fn fault4_a_citation_list_is_bounded_as_a_whole() {
    let s = small_limits();
    // 30 strings of 10 tokens: each within max_string_tokens, 300 together over 100.
    let one = "Smith J. A study of things. Journal of Examples 2019";
    let form: Vec<(&str, &str)> = (0..30).map(|_| ("citations", one)).collect();
    assert_413(
        s.post_form("/api/processCitationList", &form),
        "limits.max_request_tokens",
    );
}

#[test]
fn fault10_isalive_answers_while_slow_connections_fill_every_slot() {
    use std::io::{Read as _, Write as _};
    // One HTTP worker with 8 connection slots; 24 connections that never finish their head.
    let s = Server::builder()
        .with_model("date")
        .set("server", "workers = 1")
        .set("server", "max_connections = 8")
        .set("server", "header_timeout_s = 30")
        .start();
    let addr = format!("127.0.0.1:{}", s.port);
    let mut slow = Vec::new();
    for _ in 0..24 {
        let mut c = std::net::TcpStream::connect(&addr).expect("connect");
        let _ = c.write_all(b"GET /api/isalive HTTP/1.1\r\nHost: x\r\n");
        slow.push(c);
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    let started = std::time::Instant::now();
    let mut probe = std::net::TcpStream::connect(&addr).expect("connect");
    probe
        .set_read_timeout(Some(std::time::Duration::from_secs(20)))
        .expect("timeout");
    probe
        .write_all(b"GET /api/isalive HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .expect("write");
    let mut answer = Vec::new();
    let _ = probe.read_to_end(&mut answer);
    let waited = started.elapsed();
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    // Without the budget the probe waited for the flood's header timeout (30 s here).
    assert!(
        waited < std::time::Duration::from_secs(5),
        "/api/isalive took {waited:?}"
    );
    drop(slow);
}
