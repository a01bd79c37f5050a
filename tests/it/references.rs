//! `/api/processReferences` end to end over HTTP: a generated article whose last page holds a
//! numbered reference list comes back as GROBID's `listBibl` envelope with the right entries
//! (titles, first authors, years, a DOI printed and a DOI given only by a link annotation),
//! as BibTeX, as the debug dump; a document without references gives an empty `listBibl`;
//! bad parameters are 400. Needs the trained models under `models/` and libpdfium; without
//! them each test reports a skip (fails under `CI=true`).

use quire::testutil::PdfBuilder;
use reqwest::blocking::multipart::Form;

use crate::common::{all_between, Server};

const NEEDED: [&str; 6] = [
    "segmentation",
    "reference-segmenter",
    "citation",
    "name-citation",
    "date",
    "header",
];

fn post(
    s: &Server,
    pdf: Vec<u8>,
    fields: &[(&str, &str)],
    accept: Option<&str>,
) -> (u16, String, String) {
    s.post_pdf("/api/processReferences", pdf, fields, accept)
}

fn all(xml: &str, open: &str, close: &str) -> Vec<String> {
    all_between(xml, open, close)
}

/// The references of the generated article: (printed line(s), title, first surname, year).
const REFS: [(&[&str], &str, &str, &str); 4] = [
    (
        &["[1] Smith J, Brown A. Measuring the moisture of soils from space. Journal of Hydrology"],
        "Measuring the moisture of soils from space",
        "Smith",
        "2001",
    ),
    (
        &[
            "[2] Garcia M, Chen L, Novak P. A statistical correction for satellite radiometers. Remote",
            "Sensing of Environment 45(2):101-117, 2015. doi:10.1016/j.rse.2015.01.002",
        ],
        "A statistical correction for satellite radiometers",
        "Garcia",
        "2015",
    ),
    (
        &["[3] Okafor E. Water and energy exchange at the land surface. Cambridge University Press, 2009."],
        "Water and energy exchange at the land surface",
        "Okafor",
        "2009",
    ),
    (
        &["[4] Larsen K, Ito H. Soil water from microwave sensors. Water Resources Research 52:33-48, 2016."],
        "Soil water from microwave sensors",
        "Larsen",
        "2016",
    ),
];

/// A two-page article: header and body on page 1, body and the numbered references on page 2;
/// reference 4 carries a DOI only as a link annotation over its line.
pub(crate) fn article() -> Vec<u8> {
    let body = [
        "Soil moisture controls the exchange of water and energy between the land and the",
        "atmosphere [1]. Measuring it over large areas has long been a challenge for hydrology",
        "and many methods were proposed over the last decades, with mixed results [2, 3].",
        "In this paper we describe a simple and robust approach that works at large scale.",
    ];
    // Page 1 is the header tests' one-column article (title, authors, abstract, body).
    let mut b = crate::header::one_column()
        .page(612.0, 792.0)
        .paragraph(72.0, 740.0, "Times-Roman", 10.0, 12.0, &body)
        .text(72.0, 680.0, "Helvetica-Bold", 12.0, "References");
    let mut y = 660.0;
    for (i, (lines, ..)) in REFS.iter().enumerate() {
        let mut lines: Vec<&str> = lines.to_vec();
        if i == 0 {
            lines.push("12(3):45-67, 2001.");
        }
        b = b.paragraph(72.0, y, "Times-Roman", 9.0, 11.0, &lines);
        if i == 3 {
            b = b.link(
                72.0,
                y - 2.0,
                450.0,
                11.0,
                "https://doi.org/10.1029/2015WR017001",
            );
        }
        y -= 11.0 * lines.len() as f32 + 6.0;
    }
    b.build()
}

#[test]
fn a_numbered_reference_list_comes_back_as_list_bibl_bibtex_and_dump() {
    let Some(s) = Server::with_models(&NEEDED) else {
        return;
    };
    let (status, ctype, xml) = post(&s, article(), &[("includeRawCitations", "1")], None);
    assert_eq!(status, 200, "{xml}");
    assert!(ctype.starts_with("application/xml"), "{ctype}");
    assert!(
        xml.starts_with("<TEI xmlns=\"http://www.tei-c.org/ns/1.0\""),
        "{xml}"
    );
    let bibls = all(&xml, "<biblStruct ", "</biblStruct>");
    assert_eq!(bibls.len(), REFS.len(), "{xml}");
    for (i, (b, (_, title, surname, year))) in bibls.iter().zip(REFS).enumerate() {
        assert!(b.contains(&format!("xml:id=\"b{i}\"")), "{b}");
        assert!(
            b.contains(&format!(">{title}</title>")),
            "reference {i}: {b}"
        );
        let first = all(b, "<surname>", "</surname>");
        assert_eq!(first.first().map(String::as_str), Some(surname), "{b}");
        assert!(b.contains(&format!("when=\"{year}")), "reference {i}: {b}");
        assert!(b.contains("<note type=\"raw_reference\">"), "{b}");
    }
    assert!(
        bibls[1].contains("<idno type=\"DOI\">10.1016/j.rse.2015.01.002</idno>"),
        "{}",
        bibls[1]
    );
    // Printed nowhere: the DOI comes from the link annotation over the reference.
    assert!(
        bibls[3].contains("<idno type=\"DOI\">10.1029/2015WR017001</idno>"),
        "{}",
        bibls[3]
    );
    // The reference markers are not part of any field.
    assert!(!xml.contains("[1]") && !xml.contains(">1]"), "{xml}");

    let (status, ctype, bib) = post(&s, article(), &[], Some("application/x-bibtex"));
    assert_eq!(status, 200, "{bib}");
    assert!(ctype.starts_with("application/x-bibtex"), "{ctype}");
    for i in 0..REFS.len() {
        assert!(bib.contains(&format!("{{{i},\n")), "entry {i}: {bib}");
    }
    assert!(bib.contains("doi = {10.1029/2015WR017001}"), "{bib}");

    let (status, _, dump) = post(
        &s,
        article(),
        &[
            ("debugMode", "1"),
            ("models", "reference-segmenter,citation"),
        ],
        None,
    );
    assert_eq!(status, 200, "{dump}");
    assert!(
        dump.contains("=== model: reference-segmenter ==="),
        "{dump}"
    );
    assert!(dump.contains("=== model: citation ==="), "{dump}");
    assert!(!dump.contains("=== model: segmentation ==="), "{dump}");
    assert!(dump.contains("<reference>"), "{dump}");
}

#[test]
fn no_references_gives_an_empty_list_and_bad_parameters_are_400() {
    let Some(s) = Server::with_models(&NEEDED) else {
        return;
    };
    let pdf = PdfBuilder::new()
        .page(612.0, 792.0)
        .text(
            120.0,
            700.0,
            "Helvetica-Bold",
            17.0,
            "A Short Note Without Any References",
        )
        .paragraph(
            72.0,
            650.0,
            "Times-Roman",
            10.0,
            12.0,
            &[
                "This note reports a single observation made in the field during the summer and",
                "discusses it briefly; it cites no earlier work and has no bibliography at all.",
            ],
        )
        .build();
    let (status, _, xml) = post(&s, pdf.clone(), &[], None);
    assert_eq!(status, 200, "{xml}");
    assert!(xml.contains("<listBibl/>"), "{xml}");
    assert!(!xml.contains("<biblStruct"), "{xml}");

    let (status, _, body) = post(&s, pdf.clone(), &[("consolidateCitations", "7")], None);
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("consolidateCitations"), "{body}");
    let (status, _, body) = post(&s, pdf, &[("models", "citatoin")], None);
    assert_eq!(status, 400, "{body}");
    let res = s
        .client
        .post(s.url("/api/processReferences"))
        .multipart(Form::new().text("consolidateCitations", "0"))
        .send()
        .expect("POST");
    assert_eq!(res.status().as_u16(), 400);
    assert!(res.text().unwrap_or_default().contains("input"));
}
