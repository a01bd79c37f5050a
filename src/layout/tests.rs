/*!
Layout tests on generated PDFs (`testutil::PdfBuilder`): what pdfium reads back through Quire's
layout must be what was drawn. They need libpdfium (see `pdfium::resolve_library`): without it
they report a skip, and fail under `CI=true` (`testutil::gate`).
*/

use super::*;
use crate::testutil::{garbage_bytes, PdfBuilder};
use crate::ErrorCode;

/// pdfium is one global library: run these tests' layouts one at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn layout(pdf: &[u8], range: PageRange) -> Option<crate::Result<Document>> {
    let _guard = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    crate::testutil::gate::require_pdfium()?;
    Some(layout_pdf(pdf, range, Limits::default(), None))
}

fn all(pdf: &[u8]) -> Option<Document> {
    layout(pdf, PageRange::default()).map(|r| r.expect("layout succeeds"))
}

fn lines(doc: &Document) -> Vec<String> {
    doc.blocks()
        .flat_map(|b| b.lines.iter())
        .map(|l| l.text().trim_end().to_string())
        .collect()
}

fn token<'a>(doc: &'a Document, text: &str) -> &'a Token {
    doc.blocks()
        .flat_map(|b| b.tokens())
        .find(|t| t.text == text)
        .unwrap_or_else(|| panic!("no token {text:?} in {:?}", lines(doc)))
}

#[test]
fn text_fonts_sizes_and_positions_come_back_as_drawn() {
    let pdf = PdfBuilder::new()
        .page(612.0, 792.0)
        .text(72.0, 720.0, "Helvetica-Bold", 18.0, "Deep Parsing")
        .text(72.0, 690.0, "Times-Italic", 11.0, "Ada Lovelace")
        .text(72.0, 660.0, "Times-Roman", 10.0, "Plain body, text.")
        .build();
    let Some(doc) = all(&pdf) else { return };
    assert_eq!(doc.pages.len(), 1);
    let page = &doc.pages[0];
    assert_eq!((page.width, page.height), (612.0, 792.0));
    assert_eq!(
        lines(&doc),
        vec!["Deep Parsing", "Ada Lovelace", "Plain body, text."]
    );
    let title = token(&doc, "Deep");
    assert!(title.bold && !title.italic, "{title:?}");
    assert!((title.font_size - 18.0).abs() < 0.01);
    assert!(title.font.contains("Helvetica-Bold"), "{}", title.font);
    assert!((title.bbox.x - 72.0).abs() < 0.5, "{:?}", title.bbox);
    // Baseline 720 from the bottom = 72 from the top; the box straddles it.
    assert!(
        title.bbox.y < 72.0 && title.bbox.bottom() > 72.0,
        "{:?}",
        title.bbox
    );
    let author = token(&doc, "Ada");
    assert!(author.italic && !author.bold);
    assert!((author.font_size - 11.0).abs() < 0.01);
    // The comma is its own token glued to "body"; a space follows it.
    let body = token(&doc, "body");
    assert!(!body.space_after);
    assert!(token(&doc, ",").space_after);
    // Three different sizes: three blocks.
    assert_eq!(doc.block_count(), 3);
}

#[test]
fn paragraph_lines_form_one_block_and_two_columns_stay_apart() {
    let left = [
        "Left column line one",
        "left column line two",
        "left column line three",
    ];
    let right = [
        "Right column line one",
        "right column line two",
        "right column line three",
    ];
    let pdf = PdfBuilder::new()
        .page(612.0, 792.0)
        .paragraph(72.0, 700.0, "Times-Roman", 10.0, 12.0, &left)
        .paragraph(320.0, 700.0, "Times-Roman", 10.0, 12.0, &right)
        .build();
    let Some(doc) = all(&pdf) else { return };
    let blocks: Vec<Vec<String>> = doc.pages[0]
        .blocks
        .iter()
        .map(|b| {
            b.lines
                .iter()
                .map(|l| l.text().trim_end().to_string())
                .collect()
        })
        .collect();
    assert_eq!(blocks.len(), 2, "{blocks:?}");
    assert_eq!(blocks[0], left);
    assert_eq!(blocks[1], right);
    let b0 = doc.pages[0].blocks[0].bbox;
    let b1 = doc.pages[0].blocks[1].bbox;
    assert!(b0.right() < b1.x, "columns overlap: {b0:?} {b1:?}");
}

#[test]
fn a_line_end_hyphen_is_kept_without_a_space() {
    let pdf = PdfBuilder::new()
        .paragraph(
            72.0,
            700.0,
            "Times-Roman",
            10.0,
            12.0,
            &["we parse the com-", "puter output"],
        )
        .build();
    let Some(doc) = all(&pdf) else { return };
    let hy = token(&doc, "-");
    assert!(!hy.space_after);
    assert_eq!(lines(&doc), vec!["we parse the com-", "puter output"]);
}

#[test]
fn superscripts_rotated_lines_images_vectors_and_links_are_reported() {
    let pdf = PdfBuilder::new()
        .page(612.0, 792.0)
        .text(72.0, 700.0, "Times-Roman", 12.0, "Energy mc")
        .text_rise(125.0, 700.0, "Times-Roman", 7.0, 5.0, "2")
        .text(130.0, 700.0, "Times-Roman", 12.0, "holds")
        .text_rotated(
            30.0,
            300.0,
            "Helvetica",
            10.0,
            90.0,
            "arXiv:1234.5678v1 [cs.CL]",
        )
        .image(100.0, 400.0, 200.0, 100.0)
        .rect(350.0, 400.0, 100.0, 50.0)
        .link(72.0, 690.0, 60.0, 15.0, "https://example.org/paper")
        .build();
    let Some(doc) = all(&pdf) else { return };
    let sup = token(&doc, "2");
    assert!(sup.superscript && !sup.subscript, "{sup:?}");
    assert!(!token(&doc, "mc").superscript);
    // mc, 2 and holds share a line.
    let line = doc
        .blocks()
        .flat_map(|b| b.lines.iter())
        .find(|l| l.tokens.iter().any(|t| t.text == "mc"))
        .unwrap();
    assert!(line.tokens.iter().any(|t| t.text == "holds"));
    // The rotated stamp is one line, read upwards, with its words in order.
    let arxiv = token(&doc, "arXiv");
    assert_eq!(arxiv.rotation, 90.0);
    assert!((arxiv.font_size - 10.0).abs() < 0.01, "{}", arxiv.font_size);
    let stamp = doc
        .blocks()
        .flat_map(|b| b.lines.iter())
        .find(|l| l.tokens.iter().any(|t| t.text == "arXiv"))
        .unwrap();
    assert_eq!(stamp.text().trim_end(), "arXiv:1234.5678v1 [cs.CL]");
    // Baseline at x = 30, glyphs rising to its left; the text runs from y = 792-300 = 492 up.
    assert!(
        stamp.bbox.x > 10.0 && stamp.bbox.right() <= 31.0,
        "{:?}",
        stamp.bbox
    );
    assert!(
        stamp.bbox.bottom() <= 492.5 && stamp.bbox.y < 400.0,
        "{:?}",
        stamp.bbox
    );
    let page = &doc.pages[0];
    assert_eq!(page.images.len(), 1);
    let img = page.images[0];
    assert!(
        (img.x - 100.0).abs() < 0.5 && (img.y - 292.0).abs() < 0.5,
        "{img:?}"
    );
    assert!(
        (img.w - 200.0).abs() < 0.5 && (img.h - 100.0).abs() < 0.5,
        "{img:?}"
    );
    assert!(
        page.vectors
            .iter()
            .any(|v| (v.x - 350.0).abs() < 1.5 && (v.w - 100.0).abs() < 2.5),
        "{:?}",
        page.vectors
    );
    assert_eq!(page.links.len(), 1);
    assert_eq!(
        page.links[0].uri.as_deref(),
        Some("https://example.org/paper")
    );
    assert!(
        (page.links[0].bbox.y - 87.0).abs() < 0.5,
        "{:?}",
        page.links[0].bbox
    );
}

#[test]
fn page_range_selects_pages_before_any_work() {
    let pdf = PdfBuilder::new()
        .page(612.0, 792.0)
        .text(72.0, 700.0, "Helvetica", 12.0, "one")
        .page(612.0, 792.0)
        .text(72.0, 700.0, "Helvetica", 12.0, "two")
        .page(612.0, 792.0)
        .text(72.0, 700.0, "Helvetica", 12.0, "three")
        .build();
    let Some(r) = layout(
        &pdf,
        PageRange {
            start: Some(2),
            end: Some(2),
        },
    ) else {
        return;
    };
    let doc = r.unwrap();
    assert_eq!(doc.pages.len(), 1);
    assert_eq!(doc.pages[0].number, 2);
    assert_eq!(lines(&doc), vec!["two"]);
    let doc = layout(&pdf, PageRange::from_grobid(2, -1))
        .unwrap()
        .unwrap();
    assert_eq!(lines(&doc), vec!["two", "three"]);
}

#[test]
fn bad_inputs_get_their_codes() {
    let good = PdfBuilder::new().text(72.0, 700.0, "Helvetica", 12.0, "Some text here");
    let cases: Vec<(&str, Vec<u8>, ErrorCode)> = vec![
        ("empty", Vec::new(), ErrorCode::BadInputData),
        ("random bytes", garbage_bytes(4096), ErrorCode::BadInputData),
        (
            "truncated",
            good.build_truncated(0.3),
            ErrorCode::BadInputData,
        ),
        ("encrypted", good.build_encrypted(), ErrorCode::BadInputData),
        (
            "no text",
            PdfBuilder::new().image(0.0, 0.0, 612.0, 792.0).build(),
            ErrorCode::NoBlocks,
        ),
    ];
    for (name, pdf, code) in cases {
        let Some(r) = layout(&pdf, PageRange::default()) else {
            return;
        };
        match r {
            Ok(_) => panic!("{name}: expected {code}, got a document"),
            Err(e) => assert_eq!(e.code(), code, "{name}: {e}"),
        }
    }
    // The intact PDF still works after all that.
    let Some(r) = layout(&good.build(), PageRange::default()) else {
        return;
    };
    assert_eq!(lines(&r.unwrap()), vec!["Some text here"]);
}

#[test]
fn limits_on_blocks_and_tokens_are_checked() {
    let pdf = PdfBuilder::new()
        .text(72.0, 700.0, "Helvetica", 12.0, "one two three four")
        .text(72.0, 600.0, "Helvetica", 20.0, "Big")
        .build();
    let _guard = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    if crate::testutil::gate::require_pdfium().is_none() {
        return;
    }
    let tight = |blocks_max, tokens_max| {
        layout_pdf(
            &pdf,
            PageRange::default(),
            Limits {
                blocks_max,
                tokens_max,
                page_tokens_max: tokens_max,
            },
            None,
        )
        .map_err(|e| e.code())
        .map(|d| d.token_count())
    };
    assert_eq!(tight(1, 100), Err(ErrorCode::TooManyBlocks));
    assert_eq!(tight(10, 3), Err(ErrorCode::TooManyTokens));
    assert_eq!(tight(2, 5), Ok(5));
}

#[test]
fn a_rotated_page_is_reported_as_displayed() {
    // MediaBox 612 x 792 shown turned by 90°: the displayed page is 792 wide, 612 high.
    let pdf = PdfBuilder::new()
        .page(612.0, 792.0)
        .rotate_page(90)
        .text(72.0, 700.0, "Helvetica", 12.0, "Sideways page")
        .build();
    let Some(doc) = all(&pdf) else { return };
    let page = &doc.pages[0];
    assert_eq!((page.width, page.height), (792.0, 612.0));
    let t = token(&doc, "Sideways");
    // Upright in user space, so it reads downwards once the page is turned clockwise.
    assert_eq!(t.rotation, 270.0);
    // User (72, 700) → displayed (700, 72): the word starts at x ≈ 700 - descent.
    assert!((t.bbox.x - 700.0).abs() < 12.0, "{:?}", t.bbox);
    assert!((t.bbox.y - 72.0).abs() < 1.0, "{:?}", t.bbox);
    assert_eq!(lines(&doc), vec!["Sideways page"]);
}

#[test]
fn the_grobid_stream_spells_spaces_and_newlines_like_grobid() {
    let pdf = PdfBuilder::new()
        .paragraph(
            72.0,
            700.0,
            "Times-Roman",
            10.0,
            12.0,
            &["Deep learn-", "ing, now."],
        )
        .text(72.0, 600.0, "Helvetica-Bold", 14.0, "Next")
        .build();
    let Some(doc) = all(&pdf) else { return };
    let texts: Vec<&str> = doc.grobid_stream().iter().map(|i| i.text).collect();
    assert_eq!(
        texts,
        vec![
            "Deep", " ", "learn", "-", "\n", "ing", ",", " ", "now", ".", " ", "\n", "\n", "Next",
            " ", "\n", "\n"
        ]
    );
    let stream = doc.grobid_stream();
    assert!(stream
        .iter()
        .filter(|i| i.token.is_none())
        .all(|i| i.text.trim().is_empty()));
    assert_eq!(stream.last().unwrap().block, 1);
}

#[test]
fn a_dense_page_of_thousands_of_lines_is_one_block() {
    let n = 2000;
    let lines: Vec<String> = (0..n).map(|i| format!("row {i} value")).collect();
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let height = 20.0 + n as f32 * 5.0;
    let pdf = PdfBuilder::new()
        .page(300.0, height)
        .paragraph(20.0, height - 10.0, "Helvetica", 4.0, 5.0, &refs)
        .build();
    let Some(doc) = all(&pdf) else { return };
    assert_eq!(doc.block_count(), 1);
    assert_eq!(doc.pages[0].blocks[0].lines.len(), n);
    assert_eq!(doc.token_count(), 3 * n);
}
