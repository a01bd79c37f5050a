//! A generated article with every structure full text knows (numbered sections, a two-column
//! page, a figure with its caption, a ruled table, a numbered equation, a footnote, numbered
//! callouts), posted to processFulltextDocument and checked element by element.

use crate::common::{all_between, Server};
use crate::fulltext::NEEDED;

const PATH: &str = "/api/processFulltextDocument";

const REFS: [&str; 3] = [
    "[1] Smith J, Brown A. Measuring the moisture of soils from space. Journal of Hydrology 12(3):45-67, 2001.",
    "[2] Garcia M, Chen L. A statistical correction for satellite radiometers. Remote Sensing of Environment 45(2):101-117, 2015.",
    "[3] Okafor E. Water and energy exchange at the land surface. Cambridge University Press, 2009.",
];

/// Page 1: the header tests' article (title, authors, abstract, `1 Introduction`). Page 2:
/// two columns, `2 Method` with callouts, a figure (bitmap and caption) and a numbered
/// equation on the left, `3 Results`, a ruled table and a footnote on the right. Page 3: the
/// references.
pub(crate) fn rich_article() -> Vec<u8> {
    rich_article_with(&REFS)
}

/// [`rich_article`] with `refs` printed as its references (one line each).
pub(crate) fn rich_article_with(refs: &[&str]) -> Vec<u8> {
    let left = 56.0;
    let right = 316.0;
    let method = [
        "We estimate soil moisture from the brightness",
        "temperature of each pixel with a linear model",
        "as done before [1]. Figure 1 shows the images",
        "and Table 1 gives the fitted coefficients [2, 3].",
        "The model is the regression of Equation (1).",
    ];
    let results = [
        "Using Equation (1) we obtain the values given",
        "in Table 1 for the three sites of the study area",
        "and the errors stay small across all seasons1.",
        "The method therefore works at a regional scale",
        "and can be applied to other regions of Europe.",
    ];
    let mut b = crate::header::one_column()
        .text(300.0, 40.0, "Times-Roman", 9.0, "1")
        .page(612.0, 792.0)
        .text(
            left,
            765.0,
            "Times-Italic",
            8.0,
            "Lopez and Berger: Soil Moisture from Satellite Images",
        )
        .text(300.0, 40.0, "Times-Roman", 9.0, "2")
        .text(left, 720.0, "Helvetica-Bold", 12.0, "2 Method")
        .paragraph(left, 702.0, "Times-Roman", 10.0, 12.0, &method)
        .image(left + 20.0, 520.0, 200.0, 120.0)
        .text(
            left,
            505.0,
            "Times-Roman",
            9.0,
            "Figure 1: Soil moisture estimated from the satellite images.",
        )
        .text(left + 70.0, 470.0, "Times-Italic", 10.0, "m = a x + b")
        .text(left + 215.0, 470.0, "Times-Roman", 10.0, "(1)")
        .text(right, 720.0, "Helvetica-Bold", 12.0, "3 Results")
        .paragraph(right, 702.0, "Times-Roman", 10.0, 12.0, &results)
        .text(
            right,
            640.0,
            "Times-Roman",
            9.0,
            "Table 1: Regression coefficients per site.",
        )
        .rect(right, 560.0, 240.0, 70.0)
        .rect(right, 560.0, 240.0, 47.0)
        .rect(right, 560.0, 240.0, 23.0);
    for (row, y) in [
        (["Site", "a", "b"], 615.0),
        (["Lisbon", "0.52", "1.20"], 592.0),
        (["Porto", "0.47", "1.31"], 568.0),
    ] {
        for (i, cell) in row.iter().enumerate() {
            b = b.text(right + 8.0 + 80.0 * i as f32, y, "Times-Roman", 9.0, cell);
        }
    }
    b = b
        .rect(right, 92.0, 80.0, 0.5)
        .text(
            right,
            80.0,
            "Times-Roman",
            8.0,
            "1 The data are available from the authors on request.",
        )
        .page(612.0, 792.0)
        .text(
            left,
            765.0,
            "Times-Italic",
            8.0,
            "Lopez and Berger: Soil Moisture from Satellite Images",
        )
        .text(300.0, 40.0, "Times-Roman", 9.0, "3")
        .text(72.0, 720.0, "Helvetica-Bold", 12.0, "Acknowledgements")
        .paragraph(
            72.0,
            702.0,
            "Times-Roman",
            10.0,
            12.0,
            &[
                "This work was supported by the National Science Foundation under grant",
                "IIS-0328802 and by the European Research Council.",
            ],
        )
        .text(72.0, 660.0, "Helvetica-Bold", 12.0, "References");
    let mut y = 640.0;
    for r in refs {
        b = b.text(72.0, y, "Times-Roman", 9.0, r);
        y -= 16.0;
    }
    b.build()
}

/// The `coords` values of `xml` (each `p,x,y,w,h[;…]`), split into boxes.
fn coords(xml: &str) -> Vec<(u32, f32, f32, f32, f32)> {
    all_between(xml, "coords=\"", "\"")
        .iter()
        .flat_map(|c| c.split(';'))
        .map(|b| {
            let v: Vec<&str> = b.split(',').collect();
            assert_eq!(v.len(), 5, "{b}");
            let f = |i: usize| v[i].parse::<f32>().unwrap_or_else(|_| panic!("{b}"));
            (
                v[0].parse().unwrap_or_else(|_| panic!("{b}")),
                f(1),
                f(2),
                f(3),
                f(4),
            )
        })
        .collect()
}

#[test]
fn a_generated_article_comes_back_element_by_element() {
    let Some(s) = Server::with_models(&NEEDED) else {
        return;
    };
    let fields: Vec<(&str, &str)> = ["head", "figure", "ref", "p", "biblStruct"]
        .iter()
        .map(|e| ("teiCoordinates", *e))
        .collect();
    let (status, _, xml) = s.post_pdf(PATH, rich_article(), &fields, None);
    assert_eq!(status, 200, "{xml}");
    crate::fulltext::well_formed(&xml).unwrap_or_else(|e| panic!("{e}: {xml}"));
    let body = all_between(&xml, "<body>", "</body>").concat();

    // Numbered sections: the number in `n`, not in the head's text.
    let heads = all_between(&body, "<head n=\"", "</head>");
    let numbered: Vec<(String, String)> = heads
        .iter()
        .map(|h| {
            let (n, rest) = h.split_once('"').unwrap();
            (n.to_string(), rest.rsplit('>').next().unwrap().to_string())
        })
        .collect();
    assert!(
        numbered.contains(&("1".into(), "Introduction".into())),
        "{body}"
    );
    assert!(numbered.contains(&("2".into(), "Method".into())), "{body}");

    // Numbered callouts point at their references, one ref per number.
    for (shown, target) in [("[1]", "#b0"), ("[2", "#b1"), ("3]", "#b2")] {
        let re = format!("<ref type=\"bibr\" target=\"{target}\" coords=\"");
        let at = body.find(&re).unwrap_or_else(|| panic!("{target}: {body}"));
        assert!(
            body[at..].contains(&format!(">{shown}</ref>")),
            "{shown}: {body}"
        );
    }
    // Figure and table callouts point at the figure and the table.
    assert!(
        body.contains("<ref type=\"figure\" target=\"#fig_0\""),
        "{body}"
    );
    assert!(
        body.contains("<ref type=\"table\" target=\"#tab_0\""),
        "{body}"
    );

    // The numbered equation: a formula of its own with its label, not text in a paragraph.
    let formula = all_between(&body, "<formula xml:id=\"formula_0\"", "</formula>").concat();
    assert!(
        formula.contains("m = a x + b") && formula.contains("<label>(1)</label>"),
        "{body}"
    );

    // The figure: caption lead, number, description, the bitmap with its box on page 2.
    let fig = all_between(&body, "xml:id=\"fig_0\"", "</figure>").concat();
    assert!(
        fig.contains("<head>Figure 1:</head><label>1</label>"),
        "{fig}"
    );
    assert!(
        fig.contains("<figDesc>Soil moisture estimated from the satellite images.</figDesc>"),
        "{fig}"
    );
    assert!(fig.contains("type=\"bitmap\""), "{fig}");
    let graphic = coords(&all_between(&fig, "<graphic ", "/>").concat());
    // Drawn at (76, 520) bottom-left, 200 × 120: top-left y = 792 - 640 = 152.
    let (p, x, y, w, h) = graphic[0];
    assert_eq!(p, 2);
    assert!(
        (x - 76.0).abs() < 1.0 && (y - 152.0).abs() < 1.0,
        "{graphic:?}"
    );
    assert!(
        (w - 200.0).abs() < 1.0 && (h - 120.0).abs() < 1.0,
        "{graphic:?}"
    );

    // The ruled table: caption and its cells.
    let tab = all_between(&body, "type=\"table\" xml:id=\"tab_0\"", "</figure>").concat();
    assert!(
        tab.contains("<figDesc>Regression coefficients per site.</figDesc>"),
        "{tab}"
    );
    for cell in ["Site", "Lisbon", "0.52", "Porto", "1.31"] {
        assert!(
            tab.contains(&format!("<cell>{cell}</cell>")),
            "{cell}: {tab}"
        );
    }

    // The footnote at the foot of page 2 (which segmentation files with the page furniture)
    // comes back as a note.
    let notes = all_between(&body, "<note ", "</note>").concat();
    assert!(notes.contains("place=\"foot\""), "{body}");
    assert!(
        notes.contains("The data are available from the authors on request."),
        "{body}"
    );

    // The acknowledgement, and the funding it states: funder in the titleStmt, grant in the
    // back's listOrg.
    let back = all_between(&xml, "<back>", "</back>").concat();
    assert!(back.contains("<div type=\"acknowledgement\">"), "{back}");
    assert!(
        back.contains("supported by the National Science Foundation"),
        "{back}"
    );
    assert!(
        xml.contains("<funder ref=\"#funding_0\"><orgName type=\"full\">National Science Foundation</orgName></funder>"),
        "{xml}"
    );
    assert!(
        back.contains("<org type=\"funding\" xml:id=\"funding_0\"><idno type=\"grant-number\">IIS-0328802</idno></org>"),
        "{back}"
    );

    // Every box lies on one of the three pages, inside it.
    let boxes = coords(&xml);
    assert!(boxes.len() > 10, "{xml}");
    for (p, x, y, w, h) in boxes {
        assert!((1..=3).contains(&p), "page {p}");
        assert!(
            x >= 0.0 && y >= 0.0 && w >= 0.0 && h >= 0.0,
            "{x},{y},{w},{h}"
        );
        assert!(x + w <= 612.5 && y + h <= 792.5, "{x},{y},{w},{h}");
    }
    // The callout `[1]` is drawn on page 2, left column, third line of the method paragraph
    // (baseline 702 - 24 = 678; top about 792 - 678 - 10 = 104).
    let one = all_between(&body, "target=\"#b0\" coords=\"", "\"").concat();
    let (p, x, y, _, _) = coords(&format!("coords=\"{one}\""))[0];
    assert_eq!(p, 2);
    assert!(x > 56.0 && x < 300.0 && (y - 105.0).abs() < 6.0, "{one}");
}

#[test]
fn the_light_flavour_reads_the_body_as_paragraphs_only() {
    let Some(s) = Server::with_models(&NEEDED) else {
        return;
    };
    // Its own fulltext model (models/fulltext-article-light), trained on GROBID's light data
    // where figures and tables are paragraphs: no figure or table, their text kept.
    let (status, _, light) = s.post_pdf(PATH, rich_article(), &[("flavor", "article/light")], None);
    assert_eq!(status, 200, "{light}");
    let body = all_between(&light, "<body>", "</body>").concat();
    assert!(!body.contains("<figure"), "{body}");
    assert!(
        body.contains("Soil moisture estimated from the satellite images."),
        "{body}"
    );
    let (_, _, standard) = s.post_pdf(PATH, rich_article(), &[], None);
    assert!(standard.contains("<figure"), "{standard}");
}

#[test]
fn the_figure_and_table_models_label_the_captions() {
    let mut needed = NEEDED.to_vec();
    needed.extend(["figure", "table"]);
    let Some(s) = Server::with_models(&needed) else {
        return;
    };
    let (status, _, dump) = s.post_pdf(PATH, rich_article(), &[("debugMode", "1")], None);
    assert_eq!(status, 200, "{dump}");
    // One invocation of each model: every figure in one batch, every table in another, each
    // token as the fulltext model read it (its fulltext row, columns 0–25) with its label.
    for model in ["figure", "table"] {
        let header = format!("=== model: {model} ===\n");
        let at = dump
            .find(&header)
            .unwrap_or_else(|| panic!("no {model} section: {dump}"));
        assert!(
            !dump.contains(&format!("=== model: {model} (occurrence")),
            "one batch: {dump}"
        );
        let section = &dump[at + header.len()..];
        let section = &section[..section.find("\n\n").unwrap_or(section.len())];
        let rows: Vec<Vec<&str>> = section.lines().map(|l| l.split('\t').collect()).collect();
        assert!(rows.iter().all(|r| r.len() == 27), "{section}");
        let label_of = |tok: &str| {
            rows.iter()
                .find(|r| r[0] == tok)
                .map(|r| r[26].trim_start_matches("I-"))
                .unwrap_or_else(|| panic!("{tok} not in the {model} section: {section}"))
        };
        let (lead, word) = if model == "figure" {
            ("Figure", "moisture")
        } else {
            ("Table", "coefficients")
        };
        assert_eq!(label_of(lead), "<figure_head>", "{section}");
        assert_eq!(label_of("1"), "<label>", "{section}");
        assert_eq!(label_of(word), "<figDesc>", "{section}");
        if model == "table" {
            assert_eq!(label_of("Lisbon"), "<content>", "{section}");
        }
    }
    // The TEI built from those labels.
    let (status, _, xml) = s.post_pdf(PATH, rich_article(), &[], None);
    assert_eq!(status, 200, "{xml}");
    let fig = all_between(&xml, "xml:id=\"fig_0\">", "</figure>").concat();
    assert!(
        fig.starts_with("<head>Figure 1:</head><label>1</label><figDesc>Soil moisture estimated from the satellite images.</figDesc>"),
        "{fig}"
    );
    let tab = all_between(&xml, "xml:id=\"tab_0\">", "</figure>").concat();
    assert!(
        tab.starts_with("<head>Table 1:</head><label>1</label><figDesc>Regression coefficients per site.</figDesc><table><row><cell>Site</cell>"),
        "{tab}"
    );
}
