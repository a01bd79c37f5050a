//! GROBID 0.9's other routes (docs/grobid-routes.md): processHeaderFundingDocument,
//! processFundingAcknowledgement, `grobid`, the training names `allTraining` and
//! `killTraining`, the declared-but-unbound paths' coded 404s; and the OpenAPI document
//! following the configuration.

use crate::common::Server;
use crate::fulltext::NEEDED;
use crate::references::article;

#[test]
fn unbound_grobid_paths_answer_a_coded_404_naming_what_to_use() {
    let s = Server::start();
    for (path, hint) in [
        (
            "/api/processFulltextDocumentHTML",
            "processFulltextDocument",
        ),
        ("/api/processHeaderDocumentHTML", "processHeaderDocument"),
        ("/api/sha1", "digest"),
        ("/api/allProperties", "config.toml"),
        ("/api/changePropertyValue", "config.toml"),
        ("/api/processCitationPatentTEI", "processCitationPatentST36"),
    ] {
        let r = s.post_form(path, &[("input", "x")]);
        assert_eq!(r.status().as_u16(), 404, "{path}");
        let body = r.text().expect("body");
        assert!(body.starts_with("[NOT_FOUND] "), "{path}: {body}");
        assert!(body.contains(hint), "{path}: {body}");
    }
    let r = s.get("/api/grobid");
    assert_eq!(r.status().as_u16(), 200);
    assert!(r.text().expect("body").contains("/api/openapi.json"));
}

/// The training token of the servers here with training on.
const TOKEN: &str = "grobid-routes-token";

/// `s` with a client that sends `Authorization: Bearer TOKEN` on every request.
fn with_bearer(mut s: Server) -> Server {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        reqwest::header::AUTHORIZATION,
        reqwest::header::HeaderValue::from_str(&format!("Bearer {TOKEN}")).expect("header"),
    );
    s.client = quire_actors::http_client()
        .timeout(std::time::Duration::from_secs(60))
        .default_headers(headers)
        .build()
        .expect("http client");
    s
}

#[test]
fn grobid_training_names_reach_the_listing_and_the_cancellation() {
    let off = Server::start();
    for path in ["/api/allTraining", "/api/killTraining"] {
        let r = off.post_form(path, &[("token", "abcdefghjk")]);
        assert_eq!(r.status().as_u16(), 404, "{path}");
        assert!(r.text().expect("body").contains("training.enabled"));
    }
    let s = with_bearer(
        Server::builder()
            .set("training", "enabled = true")
            .set("training", &format!("token = {TOKEN:?}"))
            .start(),
    );
    let r = s.get("/api/allTraining");
    assert_eq!(r.status().as_u16(), 200);
    let list: serde_json::Value = r.json().expect("json");
    assert_eq!(
        list,
        s.get("/api/training")
            .json::<serde_json::Value>()
            .expect("json")
    );
    assert!(list.is_array() || list.is_object(), "{list}");
    // killTraining: the token is required and checked as DELETE /api/training/{token} does.
    let r = s.post_form("/api/killTraining", &[]);
    assert_eq!(r.status().as_u16(), 400);
    assert!(r.text().expect("body").contains("token"));
    let by_kill = s.post_form("/api/killTraining", &[("token", "abcdefghjk")]);
    let by_delete = s
        .client
        .delete(s.url("/api/training/abcdefghjk"))
        .send()
        .expect("DELETE");
    assert_eq!(by_kill.status(), by_delete.status());
    assert_eq!(by_kill.status().as_u16(), 400);
    let text = by_kill.text().expect("body");
    assert!(text.contains("does not match any training"), "{text}");
    let by_query = s
        .client
        .delete(s.url("/api/killTraining?token=abcdefghjk"))
        .send()
        .expect("DELETE");
    assert_eq!(by_query.status().as_u16(), 400);
}

#[test]
fn openapi_describes_what_the_configuration_serves() {
    let s = Server::start();
    let doc: serde_json::Value = s.get("/api/openapi.json").json().expect("json");
    let paths = doc["paths"].as_object().expect("paths");
    assert!(paths.keys().all(|p| !p.starts_with("/debug/")), "{paths:?}");
    assert!(!paths.contains_key("/api/modelTraining"));
    assert!(paths.contains_key("/api/processHeaderFundingDocument"));
    assert!(!doc.to_string().contains("\"required\":[]"));
    let on = Server::builder()
        .test_routes()
        .set("training", "enabled = true")
        .set("training", &format!("token = {TOKEN:?}"))
        .start();
    let doc: serde_json::Value = on.get("/api/openapi.json").json().expect("json");
    assert_eq!(doc["paths"]["/debug/sleep"]["get"]["tags"][0], "test-only");
    assert!(doc["paths"]["/api/killTraining"]["post"].is_object());
}

#[test]
fn funding_acknowledgement_text_comes_back_as_a_paragraph_with_entities() {
    let Some(s) = Server::with_models(&["funding-acknowledgement"]) else {
        return;
    };
    let text = "This work was supported by the National Science Foundation under grant \
                DMS-0604394 and by the Wellcome Trust. We thank Maria Costa for her help.";
    let r = s.post_form("/api/processFundingAcknowledgement", &[("text", text)]);
    assert_eq!(r.status().as_u16(), 200);
    assert!(r
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|c| c.starts_with("application/xml")));
    let xml = r.text().expect("body");
    assert!(
        xml.starts_with("<p xmlns=\"http://www.tei-c.org/ns/1.0\">"),
        "{xml}"
    );
    assert!(xml.contains("<rs type=\""), "no entity found: {xml}");
    // The text comes back whole: only tags were added.
    let stripped: String = {
        let mut out = String::new();
        let mut in_tag = false;
        for c in xml.chars() {
            match c {
                '<' => in_tag = true,
                '>' => in_tag = false,
                c if !in_tag => out.push(c),
                _ => {}
            }
        }
        out
    };
    assert_eq!(stripped, text, "{xml}");
    let r = s.post_form(
        "/api/processFundingAcknowledgement",
        &[
            ("text", text),
            ("segmentSentences", "1"),
            ("generateIDs", "1"),
        ],
    );
    let xml = r.text().expect("body");
    assert_eq!(xml.matches("<s xml:id=\"_").count(), 2, "{xml}");
    // A blank statement is a missing one, as for the other raw-string services.
    let r = s.post_form("/api/processFundingAcknowledgement", &[("text", "  ")]);
    assert_eq!(r.status().as_u16(), 400);
    assert!(r.text().expect("body").contains("`text`"));
}

#[test]
fn header_funding_document_has_the_header_and_no_body_or_bibliography() {
    let Some(s) = Server::with_models(&NEEDED) else {
        return;
    };
    let (status, ctype, xml) = s.post_pdf(
        "/api/processHeaderFundingDocument",
        article(),
        &[("consolidateFunders", "0"), ("includeDiscardedText", "0")],
        None,
    );
    assert_eq!(status, 200, "{xml}");
    assert!(ctype.starts_with("application/xml"), "{ctype}");
    assert!(
        xml.contains(">Estimating Soil Moisture from Satellite Images</title>"),
        "{xml}"
    );
    assert!(!xml.contains("<biblStruct xml:id"), "{xml}");
    assert!(!xml.contains("<listBibl>"), "{xml}");
    // The full text of the same PDF has a body and references; this answer has neither.
    let (_, _, full) = s.post_pdf("/api/processFulltextDocument", article(), &[], None);
    assert!(full.contains("<listBibl>"), "{full}");
    let body = crate::common::all_between(&xml, "<body>", "</body>");
    assert!(body.iter().all(|b| !b.contains("<p")), "{xml}");
    // A bad parameter is refused before any work.
    let (status, _, body) = s.post_pdf(
        "/api/processHeaderFundingDocument",
        article(),
        &[("consolidateFunders", "7")],
        None,
    );
    assert_eq!(status, 400, "{body}");
}
