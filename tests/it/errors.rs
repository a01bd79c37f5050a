//! Error responses: 400 naming the parameter, 500 `[CODE] message`, JSON when `Accept`
//! prefers it, and 413 for oversized bodies and fields.

use crate::common::Server;

#[test]
fn a_missing_parameter_is_400_as_text_or_json() {
    let s = Server::builder().test_routes().start();
    let res = s.post_form("/debug/label", &[("model", "date")]);
    assert_eq!(res.status(), 400);
    assert!(res.headers()["content-type"]
        .to_str()
        .unwrap_or("")
        .starts_with("text/plain"));
    assert_eq!(
        res.text().unwrap_or_default(),
        "[MISSING_PARAMETER] missing parameter `rows`"
    );

    let res = s
        .client
        .post(s.url("/debug/label"))
        .header("Accept", "application/json")
        .form(&[("model", "date")])
        .send()
        .expect("POST");
    assert_eq!(res.status(), 400);
    assert!(res.headers()["content-type"]
        .to_str()
        .unwrap_or("")
        .starts_with("application/json"));
    let body: serde_json::Value = res.json().expect("json body");
    assert_eq!(body["code"], "MISSING_PARAMETER");
    assert_eq!(body["status"], 400);
    assert!(body["message"].as_str().unwrap_or("").contains("`rows`"));
}

#[test]
fn an_invalid_parameter_is_400_naming_it() {
    let s = Server::builder().test_routes().start();
    let res = s.post_form("/debug/label", &[("model", "headr"), ("rows", "a")]);
    assert_eq!(res.status(), 400);
    let text = res.text().unwrap_or_default();
    assert!(
        text.starts_with("[INVALID_PARAMETER] invalid value for parameter `model`"),
        "{text}"
    );
    assert!(text.contains("headr"), "{text}");
    let res = s.post_form("/debug/sleep", &[("ms", "soon")]);
    assert_eq!(res.status(), 400);
    assert!(res.text().unwrap_or_default().contains("`ms`"));
}

#[test]
fn a_processing_error_is_500_with_the_interface_code() {
    let s = Server::builder().test_routes().start();
    let res = s.post_form(
        "/debug/label",
        &[("model", "citation"), ("rows", "Smith\tsmith")],
    );
    assert_eq!(res.status(), 500);
    let text = res.text().unwrap_or_default();
    assert!(
        text.starts_with("[TAGGING_ERROR] model `citation` is not available"),
        "{text}"
    );

    let res = s
        .client
        .post(s.url("/debug/label"))
        .header("Accept", "application/json, text/plain;q=0.5")
        .form(&[("model", "citation"), ("rows", "Smith")])
        .send()
        .expect("POST");
    assert_eq!(res.status(), 500);
    let body: serde_json::Value = res.json().expect("json body");
    assert_eq!(body["code"], "TAGGING_ERROR");
    assert_eq!(body["status"], 500);
    // XML-preferring clients (GROBID's) keep the text body.
    let res = s
        .client
        .post(s.url("/debug/label"))
        .header("Accept", "application/xml")
        .form(&[("model", "citation"), ("rows", "Smith")])
        .send()
        .expect("POST");
    assert!(res
        .text()
        .unwrap_or_default()
        .starts_with("[TAGGING_ERROR] "));
}

#[test]
fn oversized_bodies_and_fields_are_413() {
    let s = Server::builder()
        .test_routes()
        .set("limits", "max_upload_mb = 1")
        .set("limits", "max_field_kb = 4")
        .start();
    let big = "x".repeat(2 * 1024 * 1024);
    let res = s.post_form("/debug/label", &[("model", "date"), ("rows", &big)]);
    assert_eq!(res.status(), 413);
    assert!(res
        .text()
        .unwrap_or_default()
        .starts_with("[PAYLOAD_TOO_LARGE] "));

    let part = reqwest::blocking::multipart::Part::bytes(big.into_bytes()).file_name("big.pdf");
    let form = reqwest::blocking::multipart::Form::new().part("input", part);
    let res = s
        .client
        .post(s.url("/debug/label"))
        .multipart(form)
        .send()
        .expect("POST");
    assert_eq!(res.status(), 413);

    let field = "y".repeat(5 * 1024);
    let res = s.post_form("/debug/label", &[("model", "date"), ("rows", &field)]);
    assert_eq!(res.status(), 413);
    let text = res.text().unwrap_or_default();
    assert!(
        text.contains("field `rows`") && text.contains("max_field_kb"),
        "{text}"
    );

    // Just under the limits still goes through to the handler (absent model: 500).
    let ok = "z".repeat(3 * 1024);
    let res = s.post_form("/debug/label", &[("model", "date"), ("rows", &ok)]);
    assert_eq!(res.status(), 500);
}
