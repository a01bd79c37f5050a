//! The PDF worker pool as the service starts it: a PDF sent over HTTP is laid out in a
//! `quire worker` child process reached through the pool and the coordinator, a broken PDF
//! fails only its request, and `/api/health` reports the workers.

use quire::testutil::PdfBuilder;
use reqwest::blocking::multipart::{Form, Part};

use crate::common::{pdfium_lib, Server};

fn post_pdf(s: &Server, bytes: Vec<u8>) -> reqwest::blocking::Response {
    let form = Form::new().part("input", Part::bytes(bytes).file_name("paper.pdf"));
    s.client
        .post(s.url("/debug/layout"))
        .multipart(form)
        .send()
        .expect("POST")
}

#[test]
fn a_pdf_is_laid_out_in_a_worker_process_and_a_broken_one_fails_alone() {
    if pdfium_lib().is_none() {
        return;
    }
    let s = Server::builder()
        .with_model("date")
        .test_routes()
        .set("pool", "pdf_workers = 1")
        .start();
    let h: serde_json::Value = s.get("/api/health").json().expect("json");
    assert_eq!(h["checks"]["pdf_workers"]["ok"], true, "{h}");

    let pdf = PdfBuilder::new()
        .page(612.0, 792.0)
        .text(72.0, 700.0, "Helvetica", 12.0, "Hello quire world")
        .page(612.0, 792.0)
        .text(72.0, 700.0, "Helvetica", 12.0, "Second page")
        .build();
    let res = post_pdf(&s, pdf.clone());
    assert_eq!(res.status(), 200, "{}", s.log());
    let doc: serde_json::Value = res.json().expect("json");
    assert_eq!(doc["pages"], 2, "{doc}");
    assert!(doc["tokens"].as_u64().unwrap_or(0) >= 5, "{doc}");

    let res = post_pdf(&s, b"%PDF-1.4 this is not really a PDF".to_vec());
    assert_eq!(res.status(), 500);
    let text = res.text().unwrap_or_default();
    assert!(
        text.starts_with("[PDFTOOL_CONVERSION_FAILURE]") || text.starts_with("[BAD_INPUT_DATA]"),
        "{text}"
    );

    // The pool still serves, and health counts the started worker.
    assert_eq!(post_pdf(&s, pdf).status(), 200);
    let h: serde_json::Value = s.get("/api/health").json().expect("json");
    assert_eq!(h["checks"]["pdf_workers"]["ok"], true, "{h}");
    assert!(
        h["checks"]["pdf_workers"]["detail"]
            .as_str()
            .unwrap_or("")
            .starts_with('1'),
        "{h}"
    );
    assert_eq!(h["status"], "ready");
    assert!(
        s.prometheus_value("quire_pdf_workers_started_total ")
            .unwrap_or(0.0)
            >= 1.0
    );
    let m: serde_json::Value = s.admin_get("/metrics").json().expect("json");
    assert!(
        m["pdf_workers"]["started"].as_i64().unwrap_or(0) >= 1,
        "{m}"
    );
}
