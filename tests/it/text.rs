//! HTTP tests of the raw-string endpoints against the real `quire` binary and the committed
//! text models (`models/date`, `name-header`, `name-citation`, `affiliation-address`,
//! `citation` and `models/lexicon`): parsed fields, BibTeX, every error path, and a proptest
//! that any Unicode input gives well-formed XML (or 204/400), never a 500.

use proptest::prelude::*;
use reqwest::blocking::{multipart, Response};

use crate::common::{models_present, repo_root, Server};

const MODELS: [&str; 5] = [
    "date",
    "name-header",
    "name-citation",
    "affiliation-address",
    "citation",
];

/// A server on the repository's committed models, or `None` (the test is skipped, or fails
/// under `CI=true`) when they are missing.
fn text_server() -> Option<Server> {
    models_present(&MODELS).then(|| Server::builder().repo_models().start())
}

fn post(s: &Server, path: &str, form: &[(&str, &str)]) -> Response {
    s.post_form(path, form)
}

fn ok_body(r: Response) -> String {
    assert_eq!(r.status().as_u16(), 200);
    let ct = r
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    assert!(ct.starts_with("application/xml"), "{ct}");
    r.text().expect("body")
}

/// Parses the XML (fails the test when malformed) and returns (element path, text) pairs
/// plus the attributes seen, for field checks.
fn well_formed(xml: &str) -> Result<Vec<(String, String)>, String> {
    use quick_xml::events::Event;
    let wrapped = format!("<root>{xml}</root>");
    let mut r = quick_xml::Reader::from_str(&wrapped);
    let mut stack: Vec<String> = Vec::new();
    let mut out = Vec::new();
    loop {
        match r.read_event().map_err(|e| e.to_string())? {
            Event::Start(e) => {
                let mut name = e.name().as_ref().to_string();
                for a in e.attributes().flatten() {
                    let k = a.key.as_ref().to_string();
                    if k != "xmlns" && !k.starts_with("xmlns:") {
                        let v = a.value.to_string();
                        name.push_str(&format!("[{k}={v}]"));
                    }
                }
                stack.push(name);
            }
            Event::Empty(e) => {
                let mut name = e.name().as_ref().to_string();
                for a in e.attributes().flatten() {
                    let k = a.key.as_ref().to_string();
                    let v = a.value.to_string();
                    name.push_str(&format!("[{k}={v}]"));
                }
                out.push((format!("{}/{name}", stack.join("/")), String::new()));
            }
            Event::End(_) => {
                stack.pop();
            }
            Event::Text(t) => {
                let text = t.xml10_content().trim().to_string();
                if !text.is_empty() {
                    out.push((stack.join("/"), text));
                }
            }
            Event::GeneralRef(_) => {}
            Event::Eof => break,
            _ => {}
        }
    }
    if !stack.is_empty() {
        return Err("unclosed elements".into());
    }
    Ok(out)
}

fn has(fields: &[(String, String)], path_end: &str, text: &str) -> bool {
    fields
        .iter()
        .any(|(p, t)| p.ends_with(path_end) && t == text)
}

const REF: &str = "Smith, J. A. and van der Berg, K. (2019). Deep parsing of references. J. Doc. Eng. 12(3): 45-67. doi:10.1000/xyz";

#[test]
fn process_date_normalises_to_iso() {
    let Some(s) = text_server() else {
        return;
    };
    let r = post(
        &s,
        "/api/processDate",
        &[("date", "Received 5 September 2001")],
    );
    assert_eq!(ok_body(r), "<date when=\"2001-09-05\" />");
    let r = post(&s, "/api/processDate", &[("date", "March 2019")]);
    assert_eq!(ok_body(r), "<date when=\"2019-03\" />");
    let r = s
        .client
        .put(s.url("/api/processDate"))
        .multipart(multipart::Form::new().text("date", "12 March 2019"))
        .send()
        .expect("put");
    assert_eq!(ok_body(r), "<date when=\"2019-03-12\" />");
}

#[test]
fn process_names_header_and_citation() {
    let Some(s) = text_server() else {
        return;
    };
    let r = post(
        &s,
        "/api/processHeaderNames",
        &[("names", "Dr. John A. Smith Jr. and Marie Curie")],
    );
    let body = ok_body(r);
    assert_eq!(
        body.matches("<persName xmlns=\"http://www.tei-c.org/ns/1.0\">")
            .count(),
        2,
        "{body}"
    );
    let f = well_formed(&body).expect("xml");
    assert!(has(&f, "roleName", "Dr"), "{body}");
    assert!(has(&f, "forename[type=first]", "John"), "{body}");
    assert!(has(&f, "forename[type=middle]", "A"), "{body}");
    assert!(has(&f, "surname", "Smith"), "{body}");
    assert!(has(&f, "surname", "Curie"), "{body}");

    let r = post(
        &s,
        "/api/processCitationNames",
        &[("names", "Smith, J. A. and van der Berg, K.")],
    );
    let body = ok_body(r);
    let f = well_formed(&body).expect("xml");
    assert!(has(&f, "surname", "Smith"), "{body}");
    assert!(has(&f, "surname", "van der Berg"), "{body}");
    assert!(has(&f, "forename[type=first]", "K"), "{body}");
}

#[test]
fn process_affiliations_one_and_several() {
    let Some(s) = text_server() else {
        return;
    };
    let r = post(&s, "/api/processAffiliations",
        &[(
            "affiliations",
            "Department of Computer Science, University of Oxford, Parks Road, Oxford OX1 3QD, United Kingdom",
        )],);
    let body = ok_body(r);
    assert!(body.starts_with("\t<affiliation>"), "{body}");
    let f = well_formed(&body).expect("xml");
    assert!(
        has(
            &f,
            "orgName[type=department]",
            "Department of Computer Science"
        ),
        "{body}"
    );
    assert!(
        has(&f, "orgName[type=institution]", "University of Oxford"),
        "{body}"
    );
    assert!(
        has(&f, "address/country[key=GB]", "United Kingdom"),
        "{body}"
    );
    assert!(has(&f, "address/settlement", "Oxford"), "{body}");

    let r = post(&s, "/api/processAffiliations",
        &[(
            "affiliations",
            "1 Institut Pasteur, Paris, France\n2 Department of Physics, Kyoto University, Kyoto, Japan",
        )],);
    let body = ok_body(r);
    assert!(body.starts_with("<xml>\n"), "{body}");
    let f = well_formed(&body).expect("xml");
    assert!(has(&f, "country[key=FR]", "France"), "{body}");
    assert!(has(&f, "country[key=JP]", "Japan"), "{body}");
}

#[test]
fn process_citation_fields_raw_and_bibtex() {
    let Some(s) = text_server() else {
        return;
    };
    let r = post(
        &s,
        "/api/processCitation",
        &[("citations", REF), ("includeRawCitations", "1")],
    );
    let body = ok_body(r);
    assert!(
        body.starts_with("<biblStruct status=\"extracted\"  >"),
        "{body}"
    );
    let f = well_formed(&body).expect("xml");
    assert!(
        has(
            &f,
            "analytic/title[level=a][type=main]",
            "Deep parsing of references"
        ),
        "{body}"
    );
    assert!(
        has(&f, "analytic/author/persName/surname", "Smith"),
        "{body}"
    );
    assert!(
        has(&f, "analytic/author/persName/surname", "van der Berg"),
        "{body}"
    );
    assert!(has(&f, "monogr/title[level=j]", "J. Doc. Eng."), "{body}");
    // The DOI once, typed; no second untyped `<idno>doi: 10. 1000/xyz</idno>`.
    assert!(has(&f, "analytic/idno[type=DOI]", "10.1000/xyz"), "{body}");
    assert_eq!(body.matches("<idno").count(), 1, "{body}");
    assert!(has(&f, "biblScope[unit=volume]", "12"), "{body}");
    assert!(has(&f, "biblScope[unit=issue]", "3"), "{body}");
    assert!(
        f.iter()
            .any(|(p, _)| p.ends_with("biblScope[unit=page][from=45][to=67]")),
        "{body}"
    );
    assert!(
        f.iter()
            .any(|(p, _)| p.ends_with("date[type=published][when=2019]")),
        "{body}"
    );
    assert!(has(&f, "idno[type=DOI]", "10.1000/xyz"), "{body}");
    assert!(has(&f, "note[type=raw_reference]", REF), "{body}");

    let r = s
        .client
        .post(s.url("/api/processCitation"))
        .header("Accept", "application/x-bibtex")
        .form(&[("citations", REF)])
        .send()
        .expect("bibtex");
    assert_eq!(r.status().as_u16(), 200);
    let ct = r.headers()["content-type"]
        .to_str()
        .unwrap_or_default()
        .to_string();
    assert!(ct.starts_with("application/x-bibtex"), "{ct}");
    let bib = r.text().unwrap_or_default();
    assert!(bib.starts_with("@article{-1,\n"), "{bib}");
    assert!(bib.contains("  pages = {45--67}"), "{bib}");
    assert!(bib.contains("  volume = {12}"), "{bib}");
    assert!(bib.contains("  number = {3}"), "{bib}");
    assert!(bib.contains("  year = {2019}"), "{bib}");
    assert!(
        bib.contains("author = {Smith, J A and van der Berg, K}"),
        "{bib}"
    );

    // Multipart bodies (older clients) work too.
    let r = s
        .client
        .post(s.url("/api/processCitation"))
        .multipart(multipart::Form::new().text("citations", REF))
        .send()
        .expect("multipart");
    assert!(ok_body(r).contains("<biblScope unit=\"volume\">12</biblScope>"));
}

#[test]
fn process_citation_list_keeps_order_and_empty_entries() {
    let Some(s) = text_server() else {
        return;
    };
    let second = "Doe, J. (2020). A book about things. Springer, Berlin.";
    let r = post(
        &s,
        "/api/processCitationList",
        &[("citations", REF), ("citations", ""), ("citations", second)],
    );
    let body = ok_body(r);
    well_formed(&body).expect("xml");
    assert!(
        body.starts_with("<TEI xmlns=\"http://www.tei-c.org/ns/1.0\""),
        "{body}"
    );
    let b0 = body.find("xml:id=\"b0\"").expect("b0");
    let b1 = body.find("xml:id=\"b1\"").expect("b1");
    let b2 = body.find("xml:id=\"b2\"").expect("b2");
    assert!(b0 < b1 && b1 < b2);
    assert!(body[b0..b1].contains("Deep parsing of references"));
    assert!(!body[b1..b2].contains("<title"), "entry b1 must be empty");
    assert!(body[b2..].contains("Doe"));
    assert!(body.contains("<listBibl>"));

    let r = s
        .client
        .post(s.url("/api/processCitationList"))
        .header("Accept", "application/x-bibtex")
        .form(&[("citations", REF), ("citations", second)])
        .send()
        .expect("bibtex");
    let bib = r.text().unwrap_or_default();
    assert!(bib.starts_with("@article{0,"), "{bib}");
    assert!(bib.contains("\n\n@") && bib.contains("{1,\n"), "{bib}");
}

#[test]
fn errors_missing_invalid_empty_and_too_large() {
    let Some(s) = text_server() else {
        return;
    };
    for (path, field) in [
        ("/api/processDate", "date"),
        ("/api/processHeaderNames", "names"),
        ("/api/processCitationNames", "names"),
        ("/api/processAffiliations", "affiliations"),
        ("/api/processCitation", "citations"),
        ("/api/processCitationList", "citations"),
    ] {
        let r = post(&s, path, &[("other", "x")]);
        assert_eq!(r.status().as_u16(), 400, "{path}");
        let msg = r.text().unwrap_or_default();
        assert!(msg.contains(field), "{path}: {msg}");
    }
    let r = post(
        &s,
        "/api/processCitation",
        &[("citations", REF), ("consolidateCitations", "7")],
    );
    assert_eq!(r.status().as_u16(), 400);
    assert!(r
        .text()
        .unwrap_or_default()
        .contains("consolidateCitations"));
    let r = post(
        &s,
        "/api/processCitation",
        &[("citations", REF), ("includeRawCitations", "maybe")],
    );
    assert_eq!(r.status().as_u16(), 400);
    let r = post(
        &s,
        "/api/processCitation",
        &[("citations", REF), ("consolidateCitations", "2")],
    );
    assert_eq!(r.status().as_u16(), 200);
    let r = post(&s, "/api/processDate", &[("date", ";;; ,")]);
    assert_eq!(r.status().as_u16(), 204);
    assert!(r.text().unwrap_or_default().is_empty());
    let huge = "a".repeat(2 * 1024 * 1024);
    let r = post(&s, "/api/processCitation", &[("citations", &huge)]);
    assert_eq!(r.status().as_u16(), 413);
}

#[test]
fn any_unicode_gives_xml_or_no_content_never_500() {
    let Some(s) = text_server() else {
        return;
    };
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 24,
        ..ProptestConfig::default()
    });
    let strategy = ("\\PC{0,80}", "[\\x00-\\x1f&<>\"']{0,6}");
    runner
        .run(&strategy, |(text, ctl)| {
            let input = format!("{text}{ctl} Smith J. 2019. {ctl}Title & <more>. Nature 1:2-3");
            for (path, field) in [
                ("/api/processCitation", "citations"),
                ("/api/processCitationList", "citations"),
                ("/api/processDate", "date"),
                ("/api/processHeaderNames", "names"),
                ("/api/processCitationNames", "names"),
                ("/api/processAffiliations", "affiliations"),
            ] {
                let r = post(&s, path, &[(field, input.as_str())]);
                let status = r.status().as_u16();
                prop_assert!(matches!(status, 200 | 204 | 400), "{}: {}", path, status);
                if status == 200 {
                    let body = r.text().unwrap_or_default();
                    prop_assert!(well_formed(&body).is_ok(), "{}: {}", path, body);
                }
            }
            Ok(())
        })
        .expect("any input gives XML, 204 or 400");
}

/// `quire eval MODEL --url`: the value-level figure of the endpoint's in-process path and of
/// the same items over HTTP come from one scorer and must agree answer for answer. The
/// evaluation files are written here (a tiny dataset with GROBID's folder layout).
#[test]
fn eval_over_http_equals_in_process() {
    let Some(s) = text_server() else {
        return;
    };
    let ds = tempfile::tempdir().expect("tempdir");
    let write = |sub: &str, xml: &str| {
        let dir = ds.path().join(sub);
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join("eval.tei.xml"), xml).expect("write");
    };
    write(
        "date/evaluation",
        "<dates>\n\t<date><day>5</day> <month>March</month> <year>2019</year></date>\n\t<date><month>June</month>\n <year>1992</year> <lb/></date>\n\t<date>Received <day>12</day> <month>November</month> <year>2006</year></date>\n</dates>",
    );
    write(
        "citation/evaluation",
        &format!(
            "<listBibl><bibl><author>Smith, J. A. and van der Berg, K.</author> (<date>2019</date>). <title level=\"a\">Deep parsing of references</title>. <title level=\"j\">J. Doc. Eng.</title> <biblScope unit=\"volume\">12</biblScope>(<biblScope unit=\"issue\">3</biblScope>): <biblScope unit=\"page\">45-67</biblScope>. doi:10.1000/xyz</bibl><bibl>{}</bibl></listBibl>",
            "&lt;odd &amp; \"quoted\"&gt; text"
        ),
    );
    for (model, items) in [("date", 3), ("citation", 2)] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_quire"))
            .arg("eval")
            .arg(model)
            .arg("--dataset")
            .arg(ds.path())
            .arg("--models-dir")
            .arg(repo_root().join("models"))
            .arg("--url")
            .arg(s.url(""))
            .arg("--min-requests")
            .arg("20")
            .output()
            .expect("run quire eval");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            stdout.contains(&format!(
                "{items} items, 0 failed\nfield                P       R      F1  support"
            )),
            "{stdout}"
        );
        assert_eq!(
            stdout
                .matches(&format!(
                    "0 of {items} items answered differently from in-process"
                ))
                .count(),
            3,
            "{stdout}"
        );
        assert!(
            stdout.contains("equal, the service adds no loss"),
            "{stdout}"
        );
        if model == "date" {
            assert!(stdout.contains("decoded micro F1 100.00"), "{stdout}");
            assert!(stdout.contains("HTTP micro F1 100.00"), "{stdout}");
        }
    }
}
