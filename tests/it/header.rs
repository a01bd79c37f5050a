//! `/api/processHeaderDocument` end to end: generated PDFs (several layouts) come back with
//! their title, authors, affiliations, abstract and keywords; BibTeX; the debug dump and its
//! `models` filter; page ranges; bad PDFs answer with the layout codes. These need the trained
//! models under `models/` and libpdfium; without them each test reports a skip (fails under
//! `CI=true`).
//! Gated on `../shared`: every sample article yields a title.

use std::path::PathBuf;

use quire::testutil::PdfBuilder;
use reqwest::blocking::multipart::{Form, Part};

use crate::common::{all_between, Server};

const NEEDED: [&str; 5] = [
    "segmentation",
    "header",
    "name-header",
    "affiliation-address",
    "date",
];

/// A server over the repository's trained models, or why it cannot run.
fn server() -> Option<Server> {
    Server::with_models(&NEEDED)
}

fn post(
    s: &Server,
    pdf: Vec<u8>,
    fields: &[(&str, &str)],
    accept: Option<&str>,
) -> (u16, String, String) {
    s.post_pdf("/api/processHeaderDocument", pdf, fields, accept)
}

/// The text of the first element named `tag` (with attributes), entities decoded.
fn first(xml: &str, open: &str, close: &str) -> Option<String> {
    let a = xml.find(open)? + open.len();
    let b = xml[a..].find(close)? + a;
    Some(
        xml[a..b]
            .replace("&amp;", "&")
            .replace("&lt;", "<")
            .replace("&gt;", ">"),
    )
}

fn all(xml: &str, open: &str, close: &str) -> Vec<String> {
    all_between(xml, open, close)
}

const ABSTRACT: [&str; 4] = [
    "We present a method for estimating the moisture of soils from satellite",
    "images. The method combines a physical model with a statistical correction",
    "and is evaluated on three continents, where it reduces the error by a third",
    "compared with the best previous approaches.",
];

/// A one-column article page: title, authors, affiliations, abstract, keywords, body.
pub(crate) fn one_column() -> PdfBuilder {
    PdfBuilder::new()
        .page(612.0, 792.0)
        .text(
            120.0,
            700.0,
            "Helvetica-Bold",
            17.0,
            "Estimating Soil Moisture from Satellite Images",
        )
        .text(
            200.0,
            665.0,
            "Helvetica",
            11.0,
            "Maria Lopez and Thomas Berger",
        )
        .text(
            150.0,
            648.0,
            "Helvetica",
            9.0,
            "Department of Geography, University of Lisbon, Portugal",
        )
        .text(230.0, 636.0, "Helvetica", 9.0, "maria.lopez@example.org")
        .text(280.0, 600.0, "Helvetica-Bold", 10.0, "Abstract")
        .paragraph(90.0, 585.0, "Times-Roman", 10.0, 12.0, &ABSTRACT)
        .text(
            90.0,
            530.0,
            "Times-Roman",
            10.0,
            "Keywords: soil moisture; remote sensing; regression",
        )
        .text(72.0, 495.0, "Helvetica-Bold", 12.0, "1 Introduction")
        .paragraph(
            72.0,
            478.0,
            "Times-Roman",
            10.0,
            12.0,
            &[
                "Soil moisture controls the exchange of water and energy between the land and the",
                "atmosphere. Measuring it over large areas has long been a challenge for hydrology",
                "and many methods were proposed over the last decades, with mixed results so far.",
                "In this paper we describe a simple and robust approach that works at large scale.",
            ],
        )
}

/// A layout with the title on the left, authors one per line with numbered affiliations.
fn stacked_authors() -> PdfBuilder {
    PdfBuilder::new()
        .page(595.0, 842.0)
        .text(60.0, 760.0, "Times-Bold", 20.0, "Graph Neural Networks for Protein Folding")
        .text(60.0, 728.0, "Times-Roman", 12.0, "Anna Schmidt 1, Kenji Watanabe 2")
        .text(60.0, 710.0, "Times-Italic", 9.0, "1 Max Planck Institute for Biology, Berlin, Germany")
        .text(60.0, 698.0, "Times-Italic", 9.0, "2 Department of Chemistry, Kyoto University, Kyoto, Japan")
        .text(60.0, 660.0, "Times-Bold", 11.0, "Abstract")
        .paragraph(
            60.0,
            644.0,
            "Times-Roman",
            10.0,
            12.0,
            &[
                "Predicting the structure of proteins is a central problem of biology. We show that",
                "graph neural networks trained on known structures predict contacts accurately and",
                "that the predicted contacts improve folding simulations on a standard benchmark.",
            ],
        )
        .text(60.0, 596.0, "Times-Bold", 12.0, "1. Introduction")
        .paragraph(
            60.0,
            580.0,
            "Times-Roman",
            10.0,
            12.0,
            &[
                "Proteins fold into complex three-dimensional shapes that determine their function.",
                "Experimental methods to find these shapes are slow and expensive, which motivates",
                "computational approaches that can be applied to many proteins at the same time.",
            ],
        )
}

/// Author blocks side by side (name, affiliation, address, e-mail in each column), a centred
/// abstract heading, keywords after the abstract, a two-column body.
fn side_by_side_authors() -> PdfBuilder {
    let blocks = [
        (
            72.0,
            "Chidi Okafor",
            "Department of Computer Science",
            "University of Toronto",
            "Toronto, Canada",
            "okafor@cs.toronto.edu",
        ),
        (
            242.0,
            "Ingrid Lindqvist",
            "School of Electrical Engineering",
            "KTH Royal Institute of Technology",
            "Stockholm, Sweden",
            "lindqvist@kth.se",
        ),
        (
            412.0,
            "Paul Moreau",
            "Parietal team",
            "Inria Saclay",
            "Palaiseau, France",
            "paul.moreau@inria.fr",
        ),
    ];
    let mut b = PdfBuilder::new().page(612.0, 792.0).text(
        110.0,
        720.0,
        "Times-Bold",
        16.0,
        "Sparse Coding of Natural Sounds with Learned Dictionaries",
    );
    for (x, name, unit, org, place, email) in blocks {
        b = b
            .text(x, 684.0, "Times-Bold", 11.0, name)
            .text(x, 671.0, "Times-Roman", 9.0, unit)
            .text(x, 660.0, "Times-Roman", 9.0, org)
            .text(x, 649.0, "Times-Roman", 9.0, place)
            .text(x, 637.0, "Courier", 8.0, email);
    }
    b.text(160.0, 600.0, "Times-Bold", 12.0, "Abstract")
        .paragraph(
            72.0,
            584.0,
            "Times-Roman",
            10.0,
            12.0,
            &[
                "We learn dictionaries of sound atoms from",
                "recordings of natural environments and show",
                "that sparse codes over these dictionaries",
                "separate overlapping sources better than",
                "codes over fixed wavelet bases do.",
            ],
        )
        .text(
            72.0,
            516.0,
            "Times-Italic",
            10.0,
            "Keywords: sparse coding; audio; dictionary learning",
        )
        .text(72.0, 488.0, "Times-Bold", 12.0, "1 Introduction")
        .paragraph(
            72.0,
            472.0,
            "Times-Roman",
            10.0,
            12.0,
            &[
                "Natural sounds are made of events that",
                "overlap in time and in frequency, which makes",
                "them hard to separate with fixed bases.",
            ],
        )
        .paragraph(
            320.0,
            600.0,
            "Times-Roman",
            10.0,
            12.0,
            &[
                "Dictionary learning adapts the basis to the",
                "data: each atom is fitted to recurring shapes",
                "in the signal, so that a few atoms explain",
                "each frame. We follow this line of work and",
                "study how the learned atoms generalise.",
            ],
        )
}

#[test]
fn generated_articles_come_back_with_their_header_fields() {
    let Some(s) = server() else { return };
    let (status, ctype, tei) = post(&s, one_column().build(), &[], None);
    assert_eq!(status, 200, "{tei}\n{}", s.log());
    assert!(ctype.starts_with("application/xml"), "{ctype}");
    assert_eq!(
        first(&tei, "<title level=\"a\" type=\"main\">", "</title>").as_deref(),
        Some("Estimating Soil Moisture from Satellite Images"),
        "{tei}"
    );
    let surnames = all(&tei, "<surname>", "</surname>");
    assert_eq!(surnames, vec!["Lopez", "Berger"], "{tei}");
    let abs = first(&tei, "<abstract>", "</abstract>").unwrap_or_default();
    assert!(abs.contains("estimating the moisture of soils"), "{tei}");
    assert!(abs.contains("best previous approaches."), "{tei}");
    assert!(
        !abs.contains("Introduction"),
        "abstract stops before the body: {tei}"
    );
    let terms = all(&tei, "<term>", "</term>");
    assert_eq!(
        terms,
        vec!["soil moisture", "remote sensing", "regression"],
        "{tei}"
    );
    assert!(tei.contains("University of Lisbon"), "{tei}");
    assert!(
        tei.contains("<email>maria.lopez@example.org</email>"),
        "{tei}"
    );
    assert!(tei.contains("ident=\"Quire\""), "{tei}");
    // Empty, with the document's language as GROBID writes it.
    assert!(
        tei.contains("<text xml:lang=\"en\">\n\t</text>"),
        "empty text: {tei}"
    );

    let (status, _, tei) = post(&s, stacked_authors().build(), &[], None);
    assert_eq!(status, 200, "{tei}");
    assert_eq!(
        first(&tei, "<title level=\"a\" type=\"main\">", "</title>").as_deref(),
        Some("Graph Neural Networks for Protein Folding"),
        "{tei}"
    );
    assert_eq!(
        all(&tei, "<surname>", "</surname>"),
        vec!["Schmidt", "Watanabe"],
        "{tei}"
    );
    assert!(tei.contains("Kyoto University"), "{tei}");
    assert!(
        first(&tei, "<abstract>", "</abstract>")
            .unwrap_or_default()
            .contains("graph neural networks trained on known structures"),
        "{tei}"
    );

    let (status, _, tei) = post(&s, side_by_side_authors().build(), &[], None);
    assert_eq!(status, 200, "{tei}");
    assert_eq!(
        first(&tei, "<title level=\"a\" type=\"main\">", "</title>").as_deref(),
        Some("Sparse Coding of Natural Sounds with Learned Dictionaries"),
        "{tei}"
    );
    // Each author element holds that column's e-mail and affiliation.
    let authors = all(&tei, "<author>", "</author>");
    assert_eq!(authors.len(), 3, "{tei}");
    for (author, (surname, email, org)) in authors.iter().zip([
        ("Okafor", "okafor@cs.toronto.edu", "University of Toronto"),
        (
            "Lindqvist",
            "lindqvist@kth.se",
            "KTH Royal Institute of Technology",
        ),
        ("Moreau", "paul.moreau@inria.fr", "Inria Saclay"),
    ]) {
        assert!(
            author.contains(&format!("<surname>{surname}</surname>")),
            "{author}"
        );
        assert!(
            author.contains(&format!("<email>{email}</email>")),
            "{author}"
        );
        assert!(author.contains(org), "{surname}: {author}");
    }
    assert!(
        tei.contains("<country key=\"SE\">Sweden</country>"),
        "{tei}"
    );
    assert_eq!(
        all(&tei, "<term>", "</term>"),
        vec!["sparse coding", "audio", "dictionary learning"],
        "{tei}"
    );
    let abs = first(&tei, "<abstract>", "</abstract>").unwrap_or_default();
    assert!(
        abs.contains("We learn dictionaries of sound atoms"),
        "{tei}"
    );
    assert!(abs.contains("fixed wavelet bases do."), "{tei}");
    assert!(!abs.contains("Dictionary learning adapts"), "{tei}");
}

#[test]
fn raw_affiliations_bibtex_and_parameter_checks() {
    let Some(s) = server() else { return };
    let (status, _, tei) = post(
        &s,
        one_column().build(),
        &[("includeRawAffiliations", "1")],
        None,
    );
    assert_eq!(status, 200, "{tei}");
    assert!(tei.contains("<note type=\"raw_affiliation\">"), "{tei}");
    assert!(tei.contains("includeRawAffiliations=true"), "{tei}");

    let (status, ctype, bib) = post(&s, one_column().build(), &[], Some("application/x-bibtex"));
    assert_eq!(status, 200, "{bib}");
    assert!(ctype.starts_with("application/x-bibtex"), "{ctype}");
    assert!(
        bib.starts_with("@misc{-1,\n  author = {Lopez, Maria and Berger, Thomas},"),
        "{bib}"
    );
    assert!(
        bib.contains("  title = {Estimating Soil Moisture from Satellite Images}"),
        "{bib}"
    );
    assert!(
        bib.contains("\nkeywords = {soil moisture, remote sensing, regression}"),
        "{bib}"
    );

    for (k, v) in [
        ("consolidateHeader", "4"),
        ("includeRawAffiliations", "yes"),
        ("start", "x"),
        ("debugMode", "maybe"),
    ] {
        let (status, _, body) = post(&s, one_column().build(), &[(k, v)], None);
        assert_eq!(status, 400, "{k}={v}: {body}");
        assert!(body.contains(k), "{body}");
    }
    // consolidateHeader 0-3 are accepted (no lookup is performed).
    let (status, _, _) = post(
        &s,
        one_column().build(),
        &[("consolidateHeader", "3")],
        None,
    );
    assert_eq!(status, 200);
    let res = s
        .client
        .post(s.url("/api/processHeaderDocument"))
        .multipart(Form::new().text("consolidateHeader", "0"))
        .send()
        .expect("POST");
    assert_eq!(res.status().as_u16(), 400, "input is required");
    // PUT works like POST.
    let form = Form::new().part(
        "input",
        Part::bytes(one_column().build()).file_name("a.pdf"),
    );
    let res = s
        .client
        .put(s.url("/api/processHeaderDocument"))
        .multipart(form)
        .send()
        .expect("PUT");
    assert_eq!(res.status().as_u16(), 200);
}

#[test]
fn debug_dump_lists_every_model_and_filters_by_name() {
    let Some(s) = server() else { return };
    let (status, ctype, dump) = post(&s, stacked_authors().build(), &[("debugMode", "1")], None);
    assert_eq!(status, 200, "{dump}");
    assert_eq!(ctype, "text/plain; charset=UTF-8");
    assert!(dump.starts_with("=== model: segmentation ===\n"), "{dump}");
    assert!(dump.contains("\n=== model: header ===\n"), "{dump}");
    assert!(
        dump.contains("=== model: affiliation-address ==="),
        "{dump}"
    );
    // Each token line: the token, tab-separated features, the label last.
    let header = dump
        .split("=== model: header ===\n")
        .nth(1)
        .and_then(|s| s.lines().next())
        .unwrap_or_default();
    let cols: Vec<&str> = header.split('\t').collect();
    assert_eq!(cols[0], "Graph", "{header}");
    assert_eq!(cols.len(), 33, "32 feature columns and the label: {header}");
    assert!(cols[32].ends_with("<title>"), "{header}");

    let (status, _, only) = post(
        &s,
        stacked_authors().build(),
        &[("debugMode", "true"), ("models", "header,name-header")],
        None,
    );
    assert_eq!(status, 200);
    assert!(!only.contains("=== model: segmentation"), "{only}");
    assert!(only.contains("=== model: header ==="), "{only}");
    assert!(only.contains("=== model: name-header"), "{only}");

    // One name-header call per author span: repeated sections are numbered.
    let (status, _, names) = post(
        &s,
        side_by_side_authors().build(),
        &[("debugMode", "1"), ("models", "name-header")],
        None,
    );
    assert_eq!(status, 200, "{names}");
    let heads: Vec<&str> = names.lines().filter(|l| l.starts_with("=== ")).collect();
    assert_eq!(
        heads,
        vec![
            "=== model: name-header (occurrence 1 of 3) ===",
            "=== model: name-header (occurrence 2 of 3) ===",
            "=== model: name-header (occurrence 3 of 3) ===",
        ],
        "{names}"
    );
    let second = names
        .split("(occurrence 2 of 3) ===\n")
        .nth(1)
        .unwrap_or_default();
    let rows: Vec<Vec<&str>> = second
        .lines()
        .take_while(|l| !l.is_empty() && !l.starts_with("==="))
        .map(|l| l.split('\t').collect())
        .collect();
    assert_eq!(rows.len(), 2, "{second}");
    assert_eq!(rows[0][0], "Ingrid");
    assert!(rows[0].last().unwrap().ends_with("<forename>"), "{second}");
    assert_eq!(rows[1][0], "Lindqvist");
    assert!(rows[1].last().unwrap().ends_with("<surname>"), "{second}");
    assert!(
        rows.iter()
            .all(|r| r.len() == rows[0].len() && r.len() > 10),
        "tab-separated features: {second}"
    );

    let (status, _, body) = post(
        &s,
        stacked_authors().build(),
        &[("debugMode", "1"), ("models", "header,headr")],
        None,
    );
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("headr"), "{body}");
}

#[test]
fn page_range_selects_the_pages_read() {
    let Some(s) = server() else { return };
    let mut pdf = PdfBuilder::new();
    for i in 1..=2 {
        pdf = pdf.page(612.0, 792.0).paragraph(
            72.0,
            700.0,
            "Times-Roman",
            10.0,
            12.0,
            &[&format!(
                "Filler page {i} with some running text that is not a header at all."
            )],
        );
    }
    let pdf = {
        let b = pdf.page(612.0, 792.0);
        let b = one_column_on(b);
        b.build()
    };
    // Default pages 1-2: the article on page 3 is not seen.
    let (status, _, tei) = post(&s, pdf.clone(), &[], None);
    assert!(
        status == 204 || !tei.contains("Estimating Soil Moisture"),
        "{status}: {tei}"
    );
    let (status, _, tei) = post(&s, pdf, &[("start", "3"), ("end", "3")], None);
    assert_eq!(status, 200, "{tei}");
    assert!(
        tei.contains("Estimating Soil Moisture from Satellite Images"),
        "{tei}"
    );
    assert!(tei.contains("startPage=3, endPage=3"), "{tei}");
}

/// The one-column article drawn on the builder's current page.
fn one_column_on(b: PdfBuilder) -> PdfBuilder {
    b.text(
        120.0,
        700.0,
        "Helvetica-Bold",
        17.0,
        "Estimating Soil Moisture from Satellite Images",
    )
    .text(
        200.0,
        665.0,
        "Helvetica",
        11.0,
        "Maria Lopez and Thomas Berger",
    )
    .text(280.0, 600.0, "Helvetica-Bold", 10.0, "Abstract")
    .paragraph(90.0, 585.0, "Times-Roman", 10.0, 12.0, &ABSTRACT)
}

#[test]
fn bad_pdfs_answer_with_layout_codes() {
    let Some(s) = server() else { return };
    let cases: [(&str, Vec<u8>, &str); 5] = [
        (
            "garbage",
            quire::testutil::garbage_bytes(4000),
            "[BAD_INPUT_DATA] bad input: ",
        ),
        (
            "truncated",
            one_column().build_truncated(0.4),
            "[BAD_INPUT_DATA] bad input: ",
        ),
        (
            "encrypted",
            one_column().build_encrypted(),
            "[BAD_INPUT_DATA] bad input: ",
        ),
        (
            "empty page",
            PdfBuilder::new().page(612.0, 792.0).build(),
            "[NO_BLOCKS] ",
        ),
        (
            "image only",
            PdfBuilder::new()
                .page(612.0, 792.0)
                .image(0.0, 0.0, 100.0, 100.0)
                .build(),
            "[NO_BLOCKS] ",
        ),
    ];
    for (name, pdf, prefix) in cases {
        let (status, ctype, body) = post(&s, pdf, &[], None);
        assert_eq!(status, 500, "{name}: {body}");
        assert!(ctype.starts_with("text/plain"), "{name}: {ctype}");
        assert!(body.starts_with(prefix), "{name}: {body}");
        // The worker's message is not prefixed twice.
        assert!(!body.contains("bad input: bad input"), "{name}: {body}");
    }
    // JSON errors on request.
    let (status, ctype, body) = post(
        &s,
        quire::testutil::garbage_bytes(4000),
        &[],
        Some("application/json"),
    );
    assert_eq!(status, 500);
    assert!(ctype.starts_with("application/json"), "{ctype}");
    assert!(body.contains("\"code\":\"BAD_INPUT_DATA\""), "{body}");
}

#[test]
fn every_sample_article_yields_a_title() {
    let Some(dir) = crate::common::require_shared("pdfs/articles") else {
        return;
    };
    let Some(s) = server() else { return };
    let mut pdfs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("articles dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "pdf"))
        .collect();
    pdfs.sort();
    assert!(!pdfs.is_empty());
    let mut missing = Vec::new();
    for p in &pdfs {
        let (status, _, tei) = post(&s, std::fs::read(p).expect("read pdf"), &[], None);
        let title =
            first(&tei, "<title level=\"a\" type=\"main\">", "</title>").unwrap_or_default();
        if status != 200 || title.trim().is_empty() {
            missing.push(format!("{} ({status})", p.display()));
        }
    }
    assert!(missing.is_empty(), "no title for: {missing:?}");
}
