//! Metadata of GROBID 0.8-0.9 (docs/metadata.md) on a generated bilingual article: the
//! languages of the document and of each abstract, a Creative Commons licence printed and
//! linked, an ORCID iD linked from an author's name (and one with a bad check digit, not
//! written), a conflict-of-interest section and a CRediT contribution statement, in the
//! header-only and the full-text answers.

use quire::testutil::PdfBuilder;

use crate::common::{all_between, Server};
use crate::fulltext::NEEDED;

const ABSTRACT_EN: [&str; 4] = [
    "We present a method for estimating the moisture of soils from satellite",
    "images. The method combines a physical model with a statistical correction",
    "and is evaluated on three continents, where it reduces the error by a third",
    "compared with the best previous approaches.",
];

const ABSTRACT_PT: [&str; 4] = [
    "Apresentamos um método para estimar a umidade dos solos a partir de imagens",
    "de satélite. O método combina um modelo físico com uma correção estatística",
    "e é avaliado em três continentes, onde reduz o erro em um terço em relação",
    "às melhores abordagens anteriores publicadas na literatura da área.",
];

/// Lopez's iD with its last digit wrong (…-0098 for …-0097 would be right).
const BAD_ORCID: &str = "0000-0002-1825-0098";
const GOOD_ORCID: &str = "0000-0001-5109-3700";

/// Page 1: title, two authors each followed by an ORCID link (Lopez's iD invalid), an English
/// and a Portuguese abstract, the introduction and a CC BY 4.0 line with its link. Page 2: the
/// conclusion, a conflict-of-interest section and a CRediT contribution statement.
fn bilingual_article() -> Vec<u8> {
    PdfBuilder::new()
        .page(612.0, 792.0)
        .text(120.0, 720.0, "Helvetica-Bold", 17.0, "Estimating Soil Moisture from Satellite Images")
        .text(200.0, 690.0, "Helvetica", 11.0, "Maria Lopez")
        .link(263.0, 688.0, 9.0, 10.0, &format!("https://orcid.org/{BAD_ORCID}"))
        .text(276.0, 690.0, "Helvetica", 11.0, "and Thomas Berger")
        .link(372.0, 688.0, 9.0, 10.0, &format!("https://orcid.org/{GOOD_ORCID}"))
        .text(150.0, 674.0, "Helvetica", 9.0, "Department of Geography, University of Lisbon, Portugal")
        .text(280.0, 640.0, "Helvetica-Bold", 10.0, "Abstract")
        .paragraph(90.0, 625.0, "Times-Roman", 10.0, 12.0, &ABSTRACT_EN)
        .text(280.0, 565.0, "Helvetica-Bold", 10.0, "Resumo")
        .paragraph(90.0, 550.0, "Times-Roman", 10.0, 12.0, &ABSTRACT_PT)
        .text(72.0, 480.0, "Helvetica-Bold", 12.0, "1 Introduction")
        .paragraph(
            72.0,
            463.0,
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
        .paragraph(
            72.0,
            80.0,
            "Times-Roman",
            8.0,
            10.0,
            &[
                "© The Author(s) 2024. This article is licensed under a Creative Commons Attribution 4.0",
                "International License, https://creativecommons.org/licenses/by/4.0/",
            ],
        )
        .link(72.0, 68.0, 250.0, 10.0, "https://creativecommons.org/licenses/by/4.0/")
        .text(300.0, 40.0, "Times-Roman", 9.0, "1")
        .page(612.0, 792.0)
        .text(72.0, 720.0, "Helvetica-Bold", 12.0, "2 Conclusion")
        .paragraph(
            72.0,
            702.0,
            "Times-Roman",
            10.0,
            12.0,
            &[
                "The method estimates soil moisture well on all continents and can be used by",
                "agencies that monitor droughts with the satellite images they already receive.",
            ],
        )
        .text(72.0, 660.0, "Helvetica-Bold", 12.0, "Conflict of interest")
        .paragraph(
            72.0,
            642.0,
            "Times-Roman",
            10.0,
            12.0,
            &["The authors declare that they have no competing interests of any kind."],
        )
        .text(72.0, 610.0, "Helvetica-Bold", 12.0, "Author contributions")
        .paragraph(
            72.0,
            592.0,
            "Times-Roman",
            10.0,
            12.0,
            &[
                "Maria Lopez: Conceptualization, Methodology, Writing – original draft.",
                "Thomas Berger: Software, Validation, Writing – review & editing.",
            ],
        )
        .text(300.0, 40.0, "Times-Roman", 9.0, "2")
        .build()
}

/// The text of the first `<div type="KIND">` of the answer.
fn statement(tei: &str, kind: &str) -> String {
    all_between(
        tei,
        &format!("<div type=\"{kind}\">"),
        "</div>\n\t\t\t</div>",
    )
    .into_iter()
    .next()
    .unwrap_or_default()
}

fn check_header_metadata(tei: &str) {
    assert!(tei.contains("<teiHeader xml:lang=\"en\">"), "{tei}");
    // Each abstract with its own language: the document's (`en`, unmarked as GROBID writes
    // it) and Portuguese.
    let en = all_between(tei, "<abstract>", "</abstract>");
    let pt = all_between(tei, "<abstract xml:lang=\"pt\">", "</abstract>");
    assert_eq!(en.len(), 1, "{tei}");
    assert!(en[0].contains("satellite images"), "{tei}");
    assert_eq!(pt.len(), 1, "{tei}");
    assert!(pt[0].contains("umidade dos solos"), "{tei}");
    assert!(!en[0].contains("umidade"), "{tei}");
    // The licence: CC BY 4.0, the authors hold the copyright; the raw statement asked for.
    assert!(
        tei.contains("<availability resp=\"authors\" status=\"restricted\">"),
        "{tei}"
    );
    assert!(
        tei.contains(
            "<licence target=\"https://creativecommons.org/licenses/by/4.0/\">CC-BY</licence>"
        ),
        "{tei}"
    );
    assert!(
        tei.contains("<p type=\"raw\">© The Author(s) 2024."),
        "{tei}"
    );
    // Berger's iD in his author element; Lopez's, with a bad check digit, nowhere.
    let authors = all_between(tei, "<author>", "</author>");
    let berger = authors
        .iter()
        .find(|a| a.contains("Berger"))
        .expect("Berger");
    assert!(
        berger.contains(&format!("<idno type=\"ORCID\">{GOOD_ORCID}</idno>")),
        "{tei}"
    );
    assert!(!tei.contains(BAD_ORCID), "{tei}");
    assert_eq!(tei.matches("type=\"ORCID\"").count(), 1, "{tei}");
    // The statements in GROBID's back-matter divs.
    let coi = statement(tei, "conflict");
    assert!(coi.contains("no competing interests"), "{tei}");
    let contrib = statement(tei, "contribution");
    assert!(contrib.contains("Conceptualization, Methodology"), "{tei}");
    assert!(contrib.contains("Software, Validation"), "{tei}");
}

#[test]
fn fulltext_carries_language_licence_orcid_and_statements() {
    let Some(s) = Server::with_models(&NEEDED) else {
        return;
    };
    let (status, _, tei) = s.post_pdf(
        "/api/processFulltextDocument",
        bilingual_article(),
        &[("includeRawCopyrights", "1")],
        None,
    );
    assert_eq!(status, 200, "{tei}");
    check_header_metadata(&tei);
    assert!(tei.contains("<text xml:lang=\"en\">"), "{tei}");
    // The statements left the body.
    let body = all_between(&tei, "<body>", "</body>").concat();
    assert!(!body.contains("competing interests"), "{tei}");
}

#[test]
fn header_answer_carries_language_licence_orcid_and_statements() {
    let Some(s) = Server::with_models(&NEEDED) else {
        return;
    };
    let (status, _, tei) = s.post_pdf(
        "/api/processHeaderDocument",
        bilingual_article(),
        &[("includeRawCopyrights", "1")],
        None,
    );
    assert_eq!(status, 200, "{tei}");
    check_header_metadata(&tei);
}
