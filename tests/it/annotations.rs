//! `/api/referenceAnnotations` and `/api/annotatePDF` end to end over HTTP, on the generated
//! rich article of `fulltext_article` (callouts to references, a figure, a table and an
//! equation; references on page 3): GROBID's JSON shape, boxes that are the TEI's boxes, the
//! annotated PDF read back by pdfium (same pages, same text) and by lopdf (the new links and
//! where they lead), the original bytes kept as the file's first revision, and the errors.

use lopdf::{Document, Object};
use serde_json::Value;
use std::collections::BTreeMap;

use crate::common::{all_between, Server};
use crate::fulltext::{worker_pool, NEEDED};
use crate::fulltext_article::{rich_article, rich_article_with};

const ANNOTATIONS: &str = "/api/referenceAnnotations";
const ANNOTATE: &str = "/api/annotatePDF";

/// The rich article with a DOI in its first reference and an arXiv id in its second.
fn linked_article() -> Vec<u8> {
    rich_article_with(&[
        "[1] Smith J, Brown A. Measuring the moisture of soils from space. Journal of Hydrology 12(3):45-67, 2001. doi:10.1016/j.jhydrol.2001.01.004",
        "[2] Garcia M, Chen L. A statistical correction for satellite radiometers. arXiv:1501.00042, 2015.",
        "[3] Okafor E. Water and energy exchange at the land surface. Cambridge University Press, 2009.",
    ])
}

/// (p, x, y, w, h) of a JSON box.
fn json_box(b: &Value) -> (u64, f64, f64, f64, f64) {
    let f = |k: &str| b[k].as_f64().unwrap_or_else(|| panic!("{k} in {b}"));
    (b["p"].as_u64().expect("p"), f("x"), f("y"), f("w"), f("h"))
}

/// The boxes of the TEI `coords` of every `<ref type="bibr"…>` as (target, p, x, y, w, h).
fn tei_bibr_boxes(xml: &str) -> Vec<(String, u64, f64, f64, f64, f64)> {
    all_between(xml, "<ref type=\"bibr\"", ">")
        .iter()
        .flat_map(|attrs| {
            // Every entry the ref points at (`#b1 #b2` for a range), else one unresolved id.
            let mut targets: Vec<String> = all_between(attrs, "target=\"", "\"")
                .first()
                .map(|t| {
                    t.split(' ')
                        .map(|x| x.trim_start_matches('#').to_string())
                        .collect()
                })
                .unwrap_or_default();
            if targets.is_empty() {
                targets.push(String::new());
            }
            let coords = all_between(attrs, "coords=\"", "\"").concat();
            targets
                .into_iter()
                .flat_map(|target| {
                    coords
                        .split(';')
                        .filter(|c| !c.is_empty())
                        .map(|c| {
                            let v: Vec<f64> =
                                c.split(',').map(|n| n.parse().expect("number")).collect();
                            (target.clone(), v[0] as u64, v[1], v[2], v[3], v[4])
                        })
                        .collect::<Vec<_>>()
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn reference_annotations_have_grobids_shape_and_the_teis_boxes() {
    let Some(s) = Server::with_models(&NEEDED) else {
        return;
    };
    let (status, ctype, body) = s.post_pdf(ANNOTATIONS, linked_article(), &[], None);
    assert_eq!(status, 200, "{body}");
    assert!(ctype.starts_with("application/json"), "{ctype}");
    // Keys in GROBID's order, no figures or tables unless asked.
    let keys: Vec<usize> = [
        "\"pages\"",
        "\"refBibs\"",
        "\"refMarkers\"",
        "\"formulas\"",
        "\"formulaMarkers\"",
    ]
    .iter()
    .map(|k| body.find(k).unwrap_or_else(|| panic!("{k}: {body}")))
    .collect();
    assert!(keys.windows(2).all(|w| w[0] < w[1]), "{body}");
    assert!(!body.contains("\"figures\"") && !body.contains("\"tables\""));
    let json: Value = serde_json::from_str(&body).expect("JSON");

    let pages = json["pages"].as_array().expect("pages");
    assert_eq!(pages.len(), 3);
    assert_eq!(pages[0]["page_height"], 792.0);
    assert_eq!(pages[0]["page_width"], 612.0);

    // Three references b0..b2 on page 3, each one line; URLs from the DOI and arXiv id.
    let bibs = json["refBibs"].as_array().expect("refBibs");
    let ids: Vec<&str> = bibs.iter().map(|b| b["id"].as_str().expect("id")).collect();
    assert_eq!(ids, ["b0", "b1", "b2"]);
    assert_eq!(
        bibs[0]["url"],
        "https://dx.doi.org/10.1016/j.jhydrol.2001.01.004"
    );
    assert_eq!(bibs[1]["url"], "https://arxiv.org/abs/1501.00042");
    assert!(bibs[2].get("url").is_none(), "{}", bibs[2]);
    // Printed at baselines 640, 624, 608 (9 pt): tops near 792 - 640 - 9 = 143, 159, 175.
    for (b, top) in bibs.iter().zip([143.0, 159.0, 175.0]) {
        let pos = b["pos"].as_array().expect("pos");
        let (p, x, y, w, _) = json_box(&pos[0]);
        assert_eq!(p, 3, "{b}");
        assert!((x - 72.0).abs() < 2.0 && (y - top).abs() < 4.0, "{b}");
        assert!(w > 200.0, "{b}");
    }

    // Callout markers: exactly the boxes the TEI gives its bibr refs, once under each target.
    let (_, _, xml) = s.post_pdf(
        "/api/processFulltextDocument",
        linked_article(),
        &[("teiCoordinates", "ref")],
        None,
    );
    let tei = tei_bibr_boxes(&xml);
    let markers: Vec<(String, u64, f64, f64, f64, f64)> = json["refMarkers"]
        .as_array()
        .expect("refMarkers")
        .iter()
        .map(|m| {
            let (p, x, y, w, h) = json_box(m);
            let id = m["id"].as_str().unwrap_or("").to_string();
            (id, p, x, y, w, h)
        })
        .collect();
    assert_eq!(markers.len(), tei.len(), "{markers:?} vs {tei:?}");
    for (m, t) in markers.iter().zip(&tei) {
        assert_eq!((&m.0, m.1), (&t.0, t.1), "{m:?} vs {t:?}");
        for (a, b) in [(m.2, t.2), (m.3, t.3), (m.4, t.4), (m.5, t.5)] {
            assert!((a - b).abs() < 0.01, "{m:?} vs {t:?}");
        }
    }
    // `[1]` on page 2, left column, third line of the method paragraph, pointing at b0.
    let one = markers
        .iter()
        .find(|m| m.0 == "b0")
        .expect("a marker of b0");
    assert_eq!(one.1, 2);
    assert!(
        one.2 > 56.0 && one.2 < 300.0 && (one.3 - 105.0).abs() < 6.0,
        "{one:?}"
    );

    // The numbered equation and its callouts `Equation (1)`.
    let formulas = json["formulas"].as_array().expect("formulas");
    assert_eq!(formulas[0]["id"], "formula_0");
    let (p, _, y, _, _) = json_box(&formulas[0]["pos"][0]);
    assert_eq!(p, 2);
    // Baseline 470, 10 pt: top near 792 - 470 - 10 = 312.
    assert!((y - 312.0).abs() < 5.0, "{}", formulas[0]);
    // One formula marker per box of each TEI `ref type="formula"`.
    let fm = json["formulaMarkers"].as_array().expect("formulaMarkers");
    let tei_formula_boxes: usize = all_between(&xml, "<ref type=\"formula\"", ">")
        .iter()
        .map(|attrs| {
            all_between(attrs, "coords=\"", "\"")
                .concat()
                .split(';')
                .count()
        })
        .sum();
    assert_eq!(fm.len(), tei_formula_boxes, "{fm:?}");
}

/// With `consolidateCitations=1`, a reference matched to a record under a Creative Commons
/// licence links to the record's open-access PDF (GROBID's first URL choice), in the JSON and
/// as `<ptr type="open-access">` in the TEI; without consolidation it has no URL.
#[test]
fn a_consolidated_reference_links_to_its_open_access_copy() {
    if !crate::common::models_present(&NEEDED) {
        return;
    }
    let Some(pdfium) = crate::common::pdfium_lib() else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let works = dir.path().join("works.jsonl");
    let record = serde_json::json!({
        "DOI": "10.5555/water.2009",
        "title": ["Water and energy exchange at the land surface"],
        "author": [{"given": "Emeka", "family": "Okafor"}],
        "container-title": ["Journal of Land Surface Studies"],
        "issued": {"date-parts": [[2009]]},
        "type": "journal-article",
        "license": [{"URL": "https://creativecommons.org/licenses/by/4.0/", "delay-in-days": 0}],
        "link": [{"URL": "https://press.example/water-2009.pdf", "content-type": "application/pdf"}]
    });
    std::fs::write(&works, record.to_string()).expect("write works");
    let index = dir.path().join("index");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_quire"))
        .args(["biblio", "import", "--index-dir"])
        .args([&index, &works])
        .output()
        .expect("run quire biblio import");
    assert!(out.status.success(), "{out:?}");
    let s = Server::builder()
        .repo_models()
        .pdfium(&pdfium)
        .consolidation_index(&index)
        .start();
    let url_of_b2 = |consolidate: &str| {
        let (status, _, body) = s.post_pdf(
            ANNOTATIONS,
            linked_article(),
            &[("consolidateCitations", consolidate)],
            None,
        );
        assert_eq!(status, 200, "{body}");
        let json: Value = serde_json::from_str(&body).expect("JSON");
        json["refBibs"][2].get("url").cloned()
    };
    assert_eq!(url_of_b2("0"), None);
    assert_eq!(
        url_of_b2("1"),
        Some(Value::from("https://press.example/water-2009.pdf"))
    );
    let (status, _, tei) = s.post_pdf(
        "/api/processReferences",
        linked_article(),
        &[("consolidateCitations", "1")],
        None,
    );
    assert_eq!(status, 200, "{tei}");
    assert!(
        tei.contains(r#"<ptr type="open-access" target="https://press.example/water-2009.pdf" />"#),
        "{tei}"
    );
}

#[test]
fn figures_and_tables_come_with_include_figures_tables() {
    let Some(s) = Server::with_models(&NEEDED) else {
        return;
    };
    let (status, _, body) = s.post_pdf(
        ANNOTATIONS,
        rich_article(),
        &[("includeFiguresTables", "1"), ("includeRawCitations", "1")],
        None,
    );
    assert_eq!(status, 200, "{body}");
    let at = |k: &str| body.find(k).unwrap_or_else(|| panic!("{k}: {body}"));
    assert!(at("\"formulaMarkers\"") < at("\"figures\""));
    assert!(at("\"figures\"") < at("\"figureMarkers\""));
    assert!(at("\"figureMarkers\"") < at("\"tables\""));
    assert!(at("\"tables\"") < at("\"tableMarkers\""));
    let json: Value = serde_json::from_str(&body).expect("JSON");
    // The figure: the bitmap drawn at (76, 520) 200 × 120 and its caption, on page 2.
    let fig = &json["figures"][0];
    assert_eq!(fig["id"], "fig_0");
    let (p, x, _, w, _) = json_box(&fig["pos"][0]);
    assert_eq!(p, 2);
    assert!(x < 77.0 && w >= 199.0, "{fig}");
    assert_eq!(json["tables"][0]["id"], "tab_0");
    assert_eq!(json["tables"][0]["pos"][0]["p"], 2);
    // `Figure 1` and `Table 1` in the text point at them.
    let fig_markers = json["figureMarkers"].as_array().expect("figureMarkers");
    assert!(
        fig_markers.iter().all(|m| m["id"] == "fig_0"),
        "{fig_markers:?}"
    );
    assert!(!fig_markers.is_empty());
    let tab_markers = json["tableMarkers"].as_array().expect("tableMarkers");
    assert!(
        tab_markers.iter().any(|m| m["id"] == "tab_0"),
        "{tab_markers:?}"
    );
}

/// POSTs `pdf` to annotatePDF; (status, content type, body bytes).
fn annotate(s: &Server, pdf: Vec<u8>, fields: &[(&str, &str)]) -> (u16, String, Vec<u8>) {
    s.post_pdf_bytes(ANNOTATE, pdf, fields, None)
}

/// A link annotation read back: its Rect, and its URI (`Ok`) or destination page (`Err`).
type ReadLink = ([f32; 4], Result<String, u32>);

/// Every link annotation of `doc`, per page number.
fn links(doc: &Document) -> BTreeMap<u32, Vec<ReadLink>> {
    let pages = doc.get_pages();
    let number_of = |id| pages.iter().find(|(_, p)| **p == id).map(|(n, _)| *n);
    let mut out = BTreeMap::new();
    for (n, id) in &pages {
        let page = doc.get_dictionary(*id).expect("page");
        let Ok(annots) = page.get(b"Annots").and_then(Object::as_array) else {
            continue;
        };
        for a in annots {
            let a = doc
                .dereference(a)
                .and_then(|(_, o)| o.as_dict())
                .expect("annotation");
            assert_eq!(
                a.get(b"Subtype").and_then(Object::as_name).ok(),
                Some(&b"Link"[..])
            );
            let rect: Vec<f32> = a
                .get(b"Rect")
                .and_then(Object::as_array)
                .expect("Rect")
                .iter()
                .map(|v| v.as_float().expect("number"))
                .collect();
            let target = if let Ok(action) = a.get(b"A").and_then(Object::as_dict) {
                let uri = action.get(b"URI").and_then(Object::as_str).expect("URI");
                Ok(String::from_utf8_lossy(uri).to_string())
            } else {
                let dest = a.get(b"Dest").and_then(Object::as_array).expect("Dest");
                let to = dest[0].as_reference().expect("page reference");
                Err(number_of(to).expect("a page of the document"))
            };
            out.entry(*n)
                .or_insert_with(Vec::new)
                .push(([rect[0], rect[1], rect[2], rect[3]], target));
        }
    }
    out
}

#[test]
fn annotate_pdf_adds_links_and_keeps_the_pages_and_their_text() {
    let Some(s) = Server::with_models(&NEEDED) else {
        return;
    };
    let Some(workers) = worker_pool() else {
        return;
    };
    let original = linked_article();
    let (status, ctype, out) = annotate(&s, original.clone(), &[("consolidateCitations", "0")]);
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&out));
    assert_eq!(ctype, "application/pdf");
    // An incremental update: the upload is the file's first revision, byte for byte.
    assert!(out.len() > original.len() && out.starts_with(&original));

    // pdfium reads it with the same pages and the same text.
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let range = quire::layout::PageRange::default();
    let before = rt
        .block_on(workers.layout(original.clone(), range))
        .expect("layout of the original");
    let after = rt
        .block_on(workers.layout(out.clone(), range))
        .expect("pdfium opens the annotated PDF");
    assert_eq!(after.pages.len(), 3);
    let text = |d: &quire::layout::Document| -> Vec<String> {
        d.pages
            .iter()
            .flat_map(|p| p.blocks.iter().flat_map(|b| b.lines.iter()))
            .flat_map(|l| l.tokens.iter().map(|t| t.text.clone()))
            .collect()
    };
    assert_eq!(text(&after), text(&before));
    assert!(text(&after).iter().any(|t| t == "Measuring"));

    // The links: b0's line links to its DOI, b1's to arXiv, b2 (no identifier) to nothing;
    // every callout on page 2 leads to page 3 (references) or stays on page 2 (figure, table,
    // equation).
    let doc = Document::load_mem(&out).expect("lopdf reads it");
    let links = links(&doc);
    let uris: Vec<&String> = links
        .values()
        .flatten()
        .filter_map(|(_, t)| t.as_ref().ok())
        .collect();
    assert_eq!(
        uris,
        [
            "https://dx.doi.org/10.1016/j.jhydrol.2001.01.004",
            "https://arxiv.org/abs/1501.00042"
        ]
    );
    let page3 = &links[&3];
    // b0's link lies on its printed line (baseline 640, 9 pt), in PDF user space.
    let (rect, _) = &page3[0];
    assert!(
        (rect[0] - 72.0).abs() < 2.0 && rect[1] > 630.0 && rect[3] < 655.0,
        "{rect:?}"
    );
    let to_references = links[&2].iter().filter(|(_, t)| *t == Err(3)).count();
    let in_page = links[&2].iter().filter(|(_, t)| *t == Err(2)).count();
    // `[1]`, `[2,` and `3]`; `Figure 1`, `Table 1` (twice), `Equation (1)` (twice).
    assert!(to_references >= 3, "{links:?}");
    assert!(in_page >= 3, "{links:?}");
    // The `[1]` link covers the callout on the third line of the method paragraph (baseline
    // 678).
    assert!(
        links[&2].iter().any(|(r, t)| *t == Err(3)
            && r[0] > 56.0
            && r[2] < 300.0
            && r[1] < 680.0
            && r[3] > 676.0),
        "{links:?}"
    );
}

#[test]
fn bad_requests_and_unreadable_pdfs_get_codes_and_the_server_keeps_serving() {
    let Some(s) = Server::with_models(&NEEDED) else {
        return;
    };
    for (path, field, value) in [
        (ANNOTATIONS, "includeFiguresTables", "2"),
        (ANNOTATIONS, "includeRawCitations", "yes"),
        (ANNOTATIONS, "consolidateCitations", "3"),
        (ANNOTATE, "consolidateCitations", "-1"),
    ] {
        let (status, _, body) = s.post_pdf(path, rich_article(), &[(field, value)], None);
        assert_eq!(status, 400, "{path} {field}={value}: {body}");
        assert!(body.contains(field), "{body}");
    }
    let missing = s.post_form(ANNOTATE, &[("consolidateCitations", "0")]);
    assert_eq!(missing.status().as_u16(), 400);
    for path in [ANNOTATIONS, ANNOTATE] {
        let (status, _, body) = s.post_pdf(path, b"no PDF here".to_vec(), &[], None);
        assert_eq!(status, 500, "{body}");
        assert!(body.contains("BAD_INPUT_DATA"), "{path}: {body}");
    }
    let (status, _, out) = annotate(&s, rich_article(), &[]);
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&out));
}

#[test]
fn a_pdf_the_writer_cannot_read_fails_in_the_worker_with_a_code() {
    let Some(workers) = worker_pool() else {
        return;
    };
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let link = quire::annotations::Link {
        page: 1,
        bbox: quire::layout::BBox {
            x: 72.0,
            y: 100.0,
            w: 20.0,
            h: 10.0,
        },
        target: quire::annotations::LinkTarget::Uri("https://example.org/".into()),
    };
    let err = rt
        .block_on(workers.annotate(b"%PDF-1.7 truncated".to_vec(), vec![link.clone()]))
        .expect_err("no PDF to rewrite");
    assert_eq!(err.code(), quire::ErrorCode::ParsingError, "{err}");
    // The same worker pool rewrites the next PDF.
    let pdf = rich_article();
    let out = rt
        .block_on(workers.annotate(pdf.clone(), vec![link]))
        .expect("annotated");
    let doc = Document::load_mem(&out).expect("lopdf reads it");
    assert_eq!(doc.get_pages().len(), 3);
    assert_eq!(self::links(&doc)[&1].len(), 1);
}
