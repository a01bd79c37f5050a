//! Consolidation end to end: `quire biblio import` builds an embedded index from Crossref
//! records written here (JSON Lines with a malformed line, and a gzip data file of the
//! `{"items": [...]}` shape), `biblio stats` and `biblio lookup` read it, and a server over it
//! answers processCitation / processCitationList with each `consolidateCitations` value. A
//! server without an index answers as extracted.

use std::io::Write as _;
use std::path::Path;
use std::process::Command;

use crate::common::{models_present, Server};

const MODELS: [&str; 3] = ["citation", "name-citation", "date"];

/// No DOI printed: found by title, authors and year.
const REF: &str = "Smith, J. A. and van der Berg, K. (2019). Deep parsing of references. J. Doc. Eng. 12(3): 45-67.";
/// Prints a DOI whose record is another paper: refused, and no other record matches.
const WRONG_DOI: &str =
    "Wang, L. (2005). Graph colouring with ant colonies. Opt. Lett. 3: 1-9. doi:10.5555/deep.2019";

fn work(doi: &str, title: &str, authors: &[(&str, &str)], year: i32) -> serde_json::Value {
    serde_json::json!({
        "DOI": doi,
        "title": [title],
        "author": authors.iter().map(|(g, f)| serde_json::json!({"given": g, "family": f})).collect::<Vec<_>>(),
        "container-title": ["Journal of Document Engineering"],
        "volume": "12", "issue": "3", "page": "45-67",
        "issued": {"date-parts": [[year]]},
        "publisher": "Test Press", "type": "journal-article"
    })
}

fn quire(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_quire"))
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .expect("run quire");
    let mut text = String::from_utf8_lossy(&out.stdout).to_string();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

/// Writes the two record files and imports them into `dir/index`; returns the import's output.
fn build_index(dir: &Path) -> String {
    let jsonl = dir.join("works.jsonl");
    let mut deep = work(
        "10.5555/DEEP.2019",
        "Deep Parsing of References",
        &[("John A.", "Smith"), ("Katrien", "van der Berg")],
        2019,
    );
    // Open access from publication: its full-text PDF becomes the record's open-access link.
    deep["license"] = serde_json::json!([{"URL": "http://creativecommons.org/licenses/by/4.0/", "delay-in-days": 0}]);
    deep["link"] = serde_json::json!([{"URL": "https://press.example/deep.pdf", "content-type": "application/pdf"}]);
    let lines = [
        deep.to_string(),
        "{\"DOI\": \"10.5555/broken\", \"title\": [".to_string(),
        serde_json::json!({"title": ["A record without DOI"]}).to_string(),
    ];
    std::fs::write(&jsonl, lines.join("\n")).expect("write jsonl");
    let items = serde_json::json!({"items": [
        work("10.5555/other.2005", "Deep parsing of references", &[("Li", "Wang")], 2005),
        work("10.5555/ants", "Shortest paths with ant colonies", &[("Li", "Wang")], 2005),
    ]});
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(items.to_string().as_bytes()).expect("gzip");
    std::fs::write(dir.join("part-0.json.gz"), gz.finish().expect("gzip")).expect("write gz");

    let index = dir.join("index");
    let (ok, out) = quire(&[
        "biblio",
        "import",
        "--index-dir",
        index.to_str().expect("utf-8"),
        jsonl.to_str().expect("utf-8"),
        dir.join("part-0.json.gz").to_str().expect("utf-8"),
    ]);
    assert!(ok, "{out}");
    out
}

/// A server with the repository's models over an index built by [`build_index`] (the folder
/// lives as long as the returned guard).
fn server_over_index() -> (tempfile::TempDir, Server) {
    let dir = tempfile::tempdir().expect("temp dir");
    build_index(dir.path());
    let index = dir.path().join("index");
    let s = Server::builder()
        .repo_models()
        .consolidation_index(&index)
        .start();
    (dir, s)
}

fn citation(s: &Server, text: &str, consolidate: &str) -> String {
    let r = s.post_form(
        "/api/processCitation",
        &[("citations", text), ("consolidateCitations", consolidate)],
    );
    assert_eq!(r.status().as_u16(), 200);
    r.text().expect("body")
}

#[test]
fn import_counts_rejections_and_resumes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = build_index(dir.path());
    assert!(out.contains("read: 5"), "{out}");
    assert!(out.contains("indexed: 3"), "{out}");
    assert!(out.contains("invalid-json: 1"), "{out}");
    assert!(out.contains("no-doi: 1"), "{out}");
    let index = dir.path().join("index");
    let index = index.to_str().expect("utf-8");

    let (ok, stats) = quire(&["biblio", "stats", "--index-dir", index]);
    assert!(ok && stats.contains("records: 3"), "{stats}");
    let (ok, found) = quire(&[
        "biblio",
        "lookup",
        "--index-dir",
        index,
        "--doi",
        "doi:10.5555/deep.2019",
    ]);
    assert!(
        ok && found.contains("Deep Parsing of References"),
        "{found}"
    );
    let (ok, by_title) = quire(&[
        "biblio",
        "lookup",
        "--index-dir",
        index,
        "--title",
        "Shortest paths with ant colonies",
        "--author",
        "Wang",
        "--year",
        "2005",
    ]);
    assert!(
        ok && by_title.contains("\"doi\": \"10.5555/ants\""),
        "{by_title}"
    );
    let (ok, none) = quire(&[
        "biblio",
        "lookup",
        "--index-dir",
        index,
        "--doi",
        "10.5555/absent",
    ]);
    assert!(!ok && none.contains("no record"), "{none}");

    // The same files again: everything is skipped, nothing read twice.
    let again = build_index(dir.path());
    assert!(again.contains("read: 0"), "{again}");
    assert!(again.contains("skipped (imported before): 5"), "{again}");
    assert!(again.contains("records in the index: 3"), "{again}");
}

#[test]
fn process_citation_applies_each_consolidation_value() {
    if !models_present(&MODELS) {
        return;
    }
    let (_dir, s) = server_over_index();

    let none = citation(&s, REF, "0");
    assert!(
        none.starts_with("<biblStruct status=\"extracted\"  >"),
        "{none}"
    );
    assert!(!none.contains("10.5555"), "{none}");

    // 1: the record is merged; what it lacks stays as extracted.
    let merged = citation(&s, REF, "1");
    assert!(
        merged.starts_with("<biblStruct status=\"consolidated\"  >"),
        "{merged}"
    );
    assert!(
        merged.contains("<idno type=\"DOI\">10.5555/deep.2019</idno>"),
        "{merged}"
    );
    assert!(
        merged.contains("<title level=\"j\">Journal of Document Engineering</title>"),
        "{merged}"
    );
    assert!(
        merged.contains("<publisher>Test Press</publisher>"),
        "{merged}"
    );
    assert!(
        merged.contains("<forename type=\"first\">John</forename>"),
        "{merged}"
    );
    assert!(
        merged.contains("<note type=\"consolidation\">embedded</note>"),
        "{merged}"
    );
    assert!(
        merged.contains("<ptr type=\"open-access\" target=\"https://press.example/deep.pdf\" />"),
        "{merged}"
    );

    // 2: the DOI only; the extracted journal stays.
    let doi_only = citation(&s, REF, "2");
    assert!(
        doi_only.starts_with("<biblStruct status=\"consolidated\"  >"),
        "{doi_only}"
    );
    assert!(
        doi_only.contains("<idno type=\"DOI\">10.5555/deep.2019</idno>"),
        "{doi_only}"
    );
    assert!(
        !doi_only.contains("Journal of Document Engineering"),
        "{doi_only}"
    );
    assert!(!doi_only.contains("Test Press"), "{doi_only}");
    assert!(!doi_only.contains("open-access"), "{doi_only}");

    // A printed DOI whose record is another paper is refused; nothing else matches.
    let wrong = citation(&s, WRONG_DOI, "1");
    assert!(
        wrong.starts_with("<biblStruct status=\"extracted\"  >"),
        "{wrong}"
    );
    assert!(!wrong.contains("Deep Parsing"), "{wrong}");

    // The list endpoint consolidates each string, in order.
    let r = s.post_form(
        "/api/processCitationList",
        &[
            ("citations", WRONG_DOI),
            ("citations", REF),
            ("consolidateCitations", "1"),
        ],
    );
    assert_eq!(r.status().as_u16(), 200);
    let list = r.text().expect("body");
    assert!(
        list.contains("<biblStruct status=\"extracted\"  xml:id=\"b0\">"),
        "{list}"
    );
    assert!(
        list.contains("<biblStruct status=\"consolidated\"  xml:id=\"b1\">"),
        "{list}"
    );
}

#[test]
fn without_an_index_consolidation_is_a_no_op() {
    if !models_present(&MODELS) {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let s = Server::builder()
        .repo_models()
        .consolidation_index(&dir.path().join("absent"))
        .start();
    let body = citation(&s, REF, "1");
    assert!(
        body.starts_with("<biblStruct status=\"extracted\"  >"),
        "{body}"
    );
}

/// processHeaderDocument on a generated article (no DOI printed) with each
/// `consolidateHeader` value, against an index holding the article's record.
#[test]
fn process_header_applies_each_consolidation_value() {
    let needed = [
        "segmentation",
        "header",
        "name-header",
        "affiliation-address",
        "date",
    ];
    if !models_present(&needed) {
        return;
    }
    let Some(pdfium) = crate::common::pdfium_lib() else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let works = dir.path().join("works.jsonl");
    let mut record = work(
        "10.5555/soil.2021",
        "Estimating soil moisture from satellite images",
        &[("Maria", "Lopez"), ("Thomas", "Berger")],
        2021,
    );
    record["container-title"] = serde_json::json!(["Journal of Hydrology Tests"]);
    std::fs::write(&works, record.to_string()).expect("write");
    let index = dir.path().join("index");
    let (ok, out) = quire(&[
        "biblio",
        "import",
        "--index-dir",
        index.to_str().expect("utf-8"),
        works.to_str().expect("utf-8"),
    ]);
    assert!(ok && out.contains("indexed: 1"), "{out}");
    let s = Server::builder()
        .repo_models()
        .pdfium(&pdfium)
        .consolidation_index(&index)
        .start();
    let pdf = crate::header::one_column().build();
    let header = |value: &str| -> String {
        let (status, _, tei) = s.post_pdf(
            "/api/processHeaderDocument",
            pdf.clone(),
            &[("consolidateHeader", value)],
            None,
        );
        assert_eq!(status, 200, "{tei}");
        tei
    };
    let doi = "<idno type=\"DOI\">10.5555/soil.2021</idno>";
    let journal = "Journal of Hydrology Tests";

    let none = header("0");
    assert!(!none.contains(doi) && !none.contains(journal), "{none}");
    assert!(none.contains("consolidateHeader=0"), "{none}");
    assert!(!none.contains("consolidation="), "{none}");

    let merged = header("1");
    assert!(merged.contains(doi), "{merged}");
    assert!(merged.contains(journal), "{merged}");
    // The extracted affiliation stays with its author.
    assert!(merged.contains("University of Lisbon"), "{merged}");
    assert!(
        merged.contains("consolidateHeader=1") && merged.contains("consolidation=embedded"),
        "{merged}"
    );

    let doi_only = header("2");
    assert!(doi_only.contains(doi), "{doi_only}");
    assert!(!doi_only.contains(journal), "{doi_only}");

    // 3: only with an extracted DOI; the page prints none, so nothing is looked up.
    let by_doi = header("3");
    assert!(
        !by_doi.contains(doi) && !by_doi.contains(journal),
        "{by_doi}"
    );
    assert!(by_doi.contains("consolidateHeader=3"), "{by_doi}");
}

/// consolidateTEI: a processCitationList answer written without consolidation is consolidated
/// in place (the matched reference rewritten, the other left byte for byte), a header record
/// without DOI gains the DOI of its record, and broken input gets its error.
#[test]
fn consolidate_tei_enriches_existing_tei_in_place() {
    if !models_present(&MODELS) {
        return;
    }
    let (_dir, s) = server_over_index();
    let r = s.post_form(
        "/api/processCitationList",
        &[
            ("citations", WRONG_DOI),
            ("citations", REF),
            ("includeRawCitations", "1"),
        ],
    );
    assert_eq!(r.status().as_u16(), 200);
    let old = r.text().expect("body");
    assert_eq!(old.matches("status=\"extracted\"").count(), 2, "{old}");

    let r = s.post_form("/api/consolidateTEI", &[("input", old.as_str())]);
    assert_eq!(r.status().as_u16(), 200);
    let said = r
        .headers()
        .get("X-Quire-Consolidation")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    assert_eq!(said, "embedded; references: 1 of 2 consolidated", "{said}");
    let new = r.text().expect("body");
    assert!(
        new.contains("<biblStruct status=\"consolidated\"  xml:id=\"b1\">"),
        "{new}"
    );
    assert!(
        new.contains("<idno type=\"DOI\">10.5555/deep.2019</idno>"),
        "{new}"
    );
    assert!(new.contains("<publisher>Test Press</publisher>"), "{new}");
    assert!(new.contains(REF), "the raw reference stays: {new}");
    // The unmatched reference and the envelope are unchanged.
    let b0 = |xml: &str| {
        let start = xml
            .find("<biblStruct status=\"extracted\"  xml:id=\"b0\">")
            .expect("b0");
        let end = start + xml[start..].find("</biblStruct>").expect("end");
        xml[start..end].to_string()
    };
    assert_eq!(b0(&new), b0(&old));
    assert_eq!(
        new[..new.find("<biblStruct").expect("bibl")],
        old[..old.find("<biblStruct").expect("bibl")]
    );
    // consolidateCitations=0: nothing changes.
    let r = s.post_form(
        "/api/consolidateTEI",
        &[("input", old.as_str()), ("consolidateCitations", "0")],
    );
    assert_eq!(r.text().expect("body"), old);

    // A header record without DOI gains the DOI of its record.
    let header = "<TEI xmlns=\"http://www.tei-c.org/ns/1.0\">\n\t<teiHeader>\n\t\t<fileDesc>\n\t\t\t<sourceDesc>\n\t\t\t\t<biblStruct>\n\t\t\t\t\t<analytic>\n\t\t\t\t\t\t<author>\n\t\t\t\t\t\t\t<persName><forename type=\"first\">Li</forename><surname>Wang</surname></persName>\n\t\t\t\t\t\t\t<affiliation><orgName>Test University</orgName></affiliation>\n\t\t\t\t\t\t</author>\n\t\t\t\t\t\t<title level=\"a\" type=\"main\">Shortest paths with ant colonies</title>\n\t\t\t\t\t</analytic>\n\t\t\t\t\t<monogr>\n\t\t\t\t\t\t<imprint>\n\t\t\t\t\t\t\t<date type=\"published\" when=\"2005\" />\n\t\t\t\t\t\t</imprint>\n\t\t\t\t\t</monogr>\n\t\t\t\t</biblStruct>\n\t\t\t</sourceDesc>\n\t\t</fileDesc>\n\t</teiHeader>\n</TEI>\n";
    let r = s.post_form("/api/consolidateTEI", &[("input", header)]);
    assert_eq!(r.status().as_u16(), 200);
    let said = r
        .headers()
        .get("X-Quire-Consolidation")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    assert!(said.ends_with("header DOI added: 10.5555/ants"), "{said}");
    let out = r.text().expect("body");
    assert_eq!(
        out,
        header.replace(
            "\t\t\t\t\t</analytic>",
            "\t\t\t\t\t\t<idno type=\"DOI\">10.5555/ants</idno>\n\t\t\t\t\t</analytic>"
        )
    );

    // Broken or missing input.
    let r = s.post_form(
        "/api/consolidateTEI",
        &[("input", "<TEI><biblStruct><title>x</biblStruct>")],
    );
    let status = r.status().as_u16();
    let body = r.text().expect("body");
    // A processing error, as the interface gives BAD_INPUT_DATA: 500 with its code.
    assert_eq!(status, 500);
    assert!(
        body.starts_with("[BAD_INPUT_DATA]") && body.contains("not well-formed"),
        "{body}"
    );
    let r = s.post_form("/api/consolidateTEI", &[("consolidateCitations", "1")]);
    assert_eq!(r.status().as_u16(), 400);
    let r = s.post_form(
        "/api/consolidateTEI",
        &[("input", old.as_str()), ("consolidateCitations", "3")],
    );
    assert_eq!(r.status().as_u16(), 400);
}

/// `consolidateFunders` against a Funder Registry imported with `quire biblio
/// import-funders` (a Crossref `/funders` answer written here): 1 writes the registry's name,
/// the printed acronym and the DOI, 2 only the DOI, 0 nothing; the parameters label says what
/// was done, and a server without a registry says why nothing was.
#[test]
fn process_fulltext_applies_each_funder_consolidation_value() {
    if !models_present(&crate::fulltext::NEEDED) {
        return;
    }
    let Some(pdfium) = crate::common::pdfium_lib() else {
        return;
    };
    let pdfium = format!("pdfium_lib = {:?}", pdfium.display().to_string());
    let dir = tempfile::tempdir().expect("temp dir");
    let answer = serde_json::json!({"status": "ok", "message-type": "funder-list", "message": {"items": [
        {"id": "100000001", "location": "United States", "name": "National Science Foundation",
         "alt-names": ["NSF", "US NSF"], "uri": "http://dx.doi.org/10.13039/100000001",
         "replaces": [], "replaced-by": [], "tokens": ["national", "science", "foundation"]},
        {"id": "501100001809", "location": "China", "name": "National Natural Science Foundation of China",
         "alt-names": ["NSFC"], "uri": "http://dx.doi.org/10.13039/501100001809"},
        {"name": "a funder without id"}
    ]}});
    let file = dir.path().join("funders.json");
    std::fs::write(&file, answer.to_string()).expect("write funders");
    let index = dir.path().join("index");
    let index_s = index.to_str().expect("utf-8");
    let (ok, out) = quire(&[
        "biblio",
        "import-funders",
        "--index-dir",
        index_s,
        file.to_str().expect("utf-8"),
    ]);
    assert!(ok, "{out}");
    assert!(
        out.contains("3 read, 2 added, 0 updated, 1 rejected") && out.contains("no-funder-id"),
        "{out}"
    );
    let (ok, out) = quire(&["biblio", "funder", "--index-dir", index_s, "NSF"]);
    assert!(
        ok && out.contains("10.13039/100000001") && out.contains("altname"),
        "{out}"
    );
    let (ok, out) = quire(&["biblio", "funder", "--index-dir", index_s, "Acme Trust"]);
    assert!(!ok && out.contains("no funder"), "{out}");

    let s = Server::builder()
        .repo_models()
        .set("models", &pdfium)
        .set("consolidation", &format!("index_dir = {index_s:?}"))
        .start();
    let pdf = crate::fulltext_article::rich_article();
    let tei = |value: &str| -> String {
        let (status, _, xml) = s.post_pdf(
            "/api/processFulltextDocument",
            pdf.clone(),
            &[("consolidateFunders", value)],
            None,
        );
        assert_eq!(status, 200, "{xml}");
        xml
    };
    let merged = tei("1");
    assert!(
        merged.contains("<funder ref=\"#funding_0\"><orgName type=\"full\">National Science Foundation</orgName><idno type=\"DOI\" subtype=\"crossref\">10.13039/100000001</idno></funder>"),
        "{merged}"
    );
    assert!(
        merged.contains("consolidateFunders=1") && merged.contains("funders=funder-registry"),
        "{merged}"
    );
    let doi_only = tei("2");
    assert!(
        doi_only.contains("<idno type=\"DOI\" subtype=\"crossref\">10.13039/100000001</idno>"),
        "{doi_only}"
    );
    assert!(doi_only.contains("consolidateFunders=2"), "{doi_only}");
    let none = tei("0");
    assert!(!none.contains("10.13039"), "{none}");
    assert!(none.contains("consolidateFunders=0"), "{none}");

    // No registry: the value asked for is not applied, and the label says why.
    let bare = Server::builder()
        .repo_models()
        .set("models", &pdfium)
        .start();
    let (status, _, xml) = bare.post_pdf(
        "/api/processFulltextDocument",
        pdf,
        &[("consolidateFunders", "1")],
        None,
    );
    assert_eq!(status, 200);
    assert!(
        xml.contains("consolidateFunders=0") && xml.contains("funders=none (no funder registry)"),
        "{xml}"
    );
}
