//! HTTP tests of the raw-string endpoints against the real `quire` binary and the committed
//! text models (`models/date`, `name-header`, `name-citation`, `affiliation-address`,
//! `citation` and `models/lexicon`): parsed fields, BibTeX, every error path, and a proptest
//! that any Unicode input gives well-formed XML (or 204/400), never a 500.

use std::io::Read;
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use reqwest::blocking::{multipart, Client, Response};

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .unwrap_or_default()
}

const MODELS: [&str; 6] = [
    "date",
    "name-header",
    "name-citation",
    "affiliation-address",
    "citation",
    "lexicon",
];

/// The service, started once for this module, killed when the test process ends.
struct TextServer {
    base: String,
    child: Child,
}

impl Drop for TextServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(18_570)
}

fn server() -> Option<&'static str> {
    static SERVER: OnceLock<Option<TextServer>> = OnceLock::new();
    SERVER
        .get_or_init(|| {
            let models = repo_root().join("models");
            if let Some(missing) = MODELS.iter().find(|m| !models.join(m).is_dir()) {
                eprintln!("skipped: models/{missing} is not trained");
                return None;
            }
            let (port, admin) = (free_port(), free_port());
            let mut child = Command::new(env!("CARGO_BIN_EXE_quire"))
                .args(["serve", "--port", &port.to_string()])
                .args(["--admin-port", &admin.to_string()])
                .current_dir(repo_root())
                .env("QUIRE_MODELS_DIR", &models)
                .env("QUIRE_SERVER_HOST", "127.0.0.1")
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("start quire");
            let base = format!("http://127.0.0.1:{port}");
            let client = Client::new();
            let started = Instant::now();
            while started.elapsed() < Duration::from_secs(60) {
                let alive = client
                    .get(format!("{base}/api/isalive"))
                    .send()
                    .map(|r| r.status().as_u16() == 200)
                    .unwrap_or(false);
                if alive {
                    return Some(TextServer { base, child });
                }
                if let Ok(Some(status)) = child.try_wait() {
                    let mut err = String::new();
                    if let Some(mut e) = child.stderr.take() {
                        let _ = e.read_to_string(&mut err);
                    }
                    panic!("quire exited with {status}: {err}");
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            let _ = child.kill();
            panic!("quire did not become alive in 60 s");
        })
        .as_ref()
        .map(|s| s.base.as_str())
}

fn post(path: &str, form: &[(&str, &str)]) -> Option<Response> {
    let base = server()?;
    Some(
        Client::new()
            .post(format!("{base}{path}"))
            .form(form)
            .send()
            .expect("request"),
    )
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
    let Some(r) = post("/api/processDate", &[("date", "Received 5 September 2001")]) else {
        return;
    };
    assert_eq!(ok_body(r), "<date when=\"2001-09-05\" />");
    let Some(r) = post("/api/processDate", &[("date", "March 2019")]) else {
        return;
    };
    assert_eq!(ok_body(r), "<date when=\"2019-03\" />");
    let base = server().unwrap_or_default();
    let r = Client::new()
        .put(format!("{base}/api/processDate"))
        .multipart(multipart::Form::new().text("date", "12 March 2019"))
        .send()
        .expect("put");
    assert_eq!(ok_body(r), "<date when=\"2019-03-12\" />");
}

#[test]
fn process_names_header_and_citation() {
    let Some(r) = post(
        "/api/processHeaderNames",
        &[("names", "Dr. John A. Smith Jr. and Marie Curie")],
    ) else {
        return;
    };
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

    let Some(r) = post(
        "/api/processCitationNames",
        &[("names", "Smith, J. A. and van der Berg, K.")],
    ) else {
        return;
    };
    let body = ok_body(r);
    let f = well_formed(&body).expect("xml");
    assert!(has(&f, "surname", "Smith"), "{body}");
    assert!(has(&f, "surname", "van der Berg"), "{body}");
    assert!(has(&f, "forename[type=first]", "K"), "{body}");
}

#[test]
fn process_affiliations_one_and_several() {
    let Some(r) = post(
        "/api/processAffiliations",
        &[(
            "affiliations",
            "Department of Computer Science, University of Oxford, Parks Road, Oxford OX1 3QD, United Kingdom",
        )],
    ) else {
        return;
    };
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

    let Some(r) = post(
        "/api/processAffiliations",
        &[(
            "affiliations",
            "1 Institut Pasteur, Paris, France\n2 Department of Physics, Kyoto University, Kyoto, Japan",
        )],
    ) else {
        return;
    };
    let body = ok_body(r);
    assert!(body.starts_with("<xml>\n"), "{body}");
    let f = well_formed(&body).expect("xml");
    assert!(has(&f, "country[key=FR]", "France"), "{body}");
    assert!(has(&f, "country[key=JP]", "Japan"), "{body}");
}

#[test]
fn process_citation_fields_raw_and_bibtex() {
    let Some(r) = post(
        "/api/processCitation",
        &[("citations", REF), ("includeRawCitations", "1")],
    ) else {
        return;
    };
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
    assert!(has(&f, "monogr/title[level=j]", "J. Doc. Eng"), "{body}");
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

    let base = server().unwrap_or_default();
    let r = Client::new()
        .post(format!("{base}/api/processCitation"))
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
    let r = Client::new()
        .post(format!("{base}/api/processCitation"))
        .multipart(multipart::Form::new().text("citations", REF))
        .send()
        .expect("multipart");
    assert!(ok_body(r).contains("<biblScope unit=\"volume\">12</biblScope>"));
}

#[test]
fn process_citation_list_keeps_order_and_empty_entries() {
    let second = "Doe, J. (2020). A book about things. Springer, Berlin.";
    let Some(r) = post(
        "/api/processCitationList",
        &[("citations", REF), ("citations", ""), ("citations", second)],
    ) else {
        return;
    };
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

    let base = server().unwrap_or_default();
    let r = Client::new()
        .post(format!("{base}/api/processCitationList"))
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
    for (path, field) in [
        ("/api/processDate", "date"),
        ("/api/processHeaderNames", "names"),
        ("/api/processCitationNames", "names"),
        ("/api/processAffiliations", "affiliations"),
        ("/api/processCitation", "citations"),
        ("/api/processCitationList", "citations"),
    ] {
        let Some(r) = post(path, &[("other", "x")]) else {
            return;
        };
        assert_eq!(r.status().as_u16(), 400, "{path}");
        let msg = r.text().unwrap_or_default();
        assert!(msg.contains(field), "{path}: {msg}");
    }
    let Some(r) = post(
        "/api/processCitation",
        &[("citations", REF), ("consolidateCitations", "7")],
    ) else {
        return;
    };
    assert_eq!(r.status().as_u16(), 400);
    assert!(r
        .text()
        .unwrap_or_default()
        .contains("consolidateCitations"));
    let Some(r) = post(
        "/api/processCitation",
        &[("citations", REF), ("includeRawCitations", "maybe")],
    ) else {
        return;
    };
    assert_eq!(r.status().as_u16(), 400);
    let Some(r) = post(
        "/api/processCitation",
        &[("citations", REF), ("consolidateCitations", "2")],
    ) else {
        return;
    };
    assert_eq!(r.status().as_u16(), 200);
    let Some(r) = post("/api/processDate", &[("date", ";;; ,")]) else {
        return;
    };
    assert_eq!(r.status().as_u16(), 204);
    assert!(r.text().unwrap_or_default().is_empty());
    let huge = "a".repeat(2 * 1024 * 1024);
    let Some(r) = post("/api/processCitation", &[("citations", &huge)]) else {
        return;
    };
    assert_eq!(r.status().as_u16(), 413);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    fn any_unicode_gives_xml_or_no_content_never_500(s in "\\PC{0,80}", ctl in "[\\x00-\\x1f&<>\"']{0,6}") {
        let input = format!("{s}{ctl} Smith J. 2019. {ctl}Title & <more>. Nature 1:2-3");
        for (path, field) in [
            ("/api/processCitation", "citations"),
            ("/api/processDate", "date"),
            ("/api/processHeaderNames", "names"),
            ("/api/processAffiliations", "affiliations"),
        ] {
            let Some(r) = post(path, &[(field, input.as_str())]) else { return Ok(()); };
            let status = r.status().as_u16();
            prop_assert!(matches!(status, 200 | 204 | 400), "{path}: {status}");
            if status == 200 {
                let body = r.text().unwrap_or_default();
                prop_assert!(well_formed(&body).is_ok(), "{path}: {body}");
            }
        }
    }
}
