//! Footnotes and margin notes from the segmentation's `<footnote>`/`<marginnote>` lines, and
//! back-matter sections (acknowledgement, funding, availability) from their zones' lines.
//!
//! Note ids are deterministic, `foot_N` and `margin_N` in document order, where GROBID draws a
//! random 7-character id per call: the same PDF gives the same TEI, and callouts still point at
//! their notes.

use crate::body::head;
use crate::body::text::{zone_tokens, TextBuilder};
use crate::document::{Back, Body, BodyBlock, Div, HeaderRecord, Note, RichText};
use crate::layout::{Document, LineRef, Sep, ZoneToken};
use crate::models::segmentation::{Label as Zone, Zones};

/// Marks that open a footnote when printed at a line start.
const NOTE_SYMBOLS: &[&str] = &["*", "**", "***", "†", "‡", "§", "¶", "††", "‡‡", "#"];

/// The mark opening line `toks` (the tokens of one line), if any, and how many tokens it takes:
/// a superscript number, letter or symbol; a symbol of [`NOTE_SYMBOLS`]; or a number of at most
/// three digits opening the first line of a layout block and followed by more text.
fn leading_mark(doc: &Document, toks: &[ZoneToken]) -> Option<(String, usize)> {
    let zt = toks.first()?;
    let (_, t) = doc.token(&zt.line, zt.index)?;
    let text = t.text.trim();
    let digits = !text.is_empty() && text.len() <= 3 && text.chars().all(|c| c.is_ascii_digit());
    let symbol = NOTE_SYMBOLS.contains(&text);
    let sup = t.superscript
        && (digits || symbol || (text.len() == 1 && text.chars().all(char::is_alphabetic)));
    let block_start = zt.line.line == 0 && digits && toks.len() > 1;
    if !(sup || symbol || block_start) {
        return None;
    }
    // `1.` or `1)`: the punctuation belongs to the mark.
    let punct = toks.get(1).is_some_and(|n| {
        zt.sep == Sep::None
            && doc
                .token(&n.line, n.index)
                .is_some_and(|(_, t)| t.text == "." || t.text == ")")
    }) && toks.len() > 2;
    Some((text.to_string(), if punct { 2 } else { 1 }))
}

/// Notes from the lines of a footnote (or margin-note) zone: a new note at each line opening
/// with a mark (`n` = the mark, removed from the text); lines before the first mark form a
/// note without `n`. Ids are `foot_N` (`margin_N`), N counting from `first`.
pub fn notes(doc: &Document, lines: &[LineRef], margin: bool, first: usize) -> Vec<Note> {
    let prefix = if margin { "margin" } else { "foot" };
    let toks = zone_tokens(doc, lines);
    let mut out: Vec<(Option<String>, TextBuilder)> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let line = toks[i].line;
        let n = toks[i..].iter().take_while(|z| z.line == line).count();
        let line_toks = &toks[i..i + n];
        match leading_mark(doc, line_toks) {
            Some((mark, skip)) => {
                let mut b = TextBuilder::new();
                b.extend(doc, &line_toks[skip..]);
                out.push((Some(mark), b));
            }
            None => match out.last_mut() {
                Some((_, b)) => b.extend(doc, line_toks),
                None => {
                    let mut b = TextBuilder::new();
                    b.extend(doc, line_toks);
                    out.push((None, b));
                }
            },
        }
        i += n;
    }
    out.into_iter()
        .enumerate()
        .map(|(k, (n, b))| Note {
            id: format!("{prefix}_{}", first + k),
            margin,
            n,
            paragraphs: vec![b.finish()],
        })
        .collect()
}

/// A line that heads a back-matter section: alone in its layout block, short, not a sentence.
fn is_heading(doc: &Document, r: &LineRef) -> bool {
    let Some(block) = doc.pages.get(r.page).and_then(|p| p.blocks.get(r.block)) else {
        return false;
    };
    let Some(line) = block.lines.get(r.line) else {
        return false;
    };
    let text = line.text();
    let text = text.trim();
    let words = text.split_whitespace().count();
    block.lines.len() == 1
        && (1..=8).contains(&words)
        && text
            .chars()
            .next()
            .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
        && !text.ends_with([',', ';'])
        && !(text.ends_with('.') && words > 3)
}

/// Back-matter heads, letters only, lower-case.
const BACK_HEADS: &[&str] = &[
    "acknowledgements",
    "acknowledgments",
    "acknowledgement",
    "acknowledgment",
    "funding",
    "fundinginformation",
    "financialsupport",
    "financialdisclosure",
    "dataavailability",
    "dataavailabilitystatement",
    "availabilityofdataandmaterials",
    "availabilityofdata",
    "codeavailability",
    "dataandcodeavailability",
];

/// A line opening with a known back-matter head (`Acknowledgements.`, `Data availability:`):
/// how many tokens the head takes (its closing punctuation included).
fn known_head(doc: &Document, toks: &[ZoneToken]) -> Option<usize> {
    let mut letters = String::new();
    for (i, z) in toks.iter().enumerate().take(8) {
        let t = doc
            .token(&z.line, z.index)
            .map_or("", |(_, t)| t.text.as_str());
        if !t.is_empty() && t.chars().all(char::is_alphabetic) {
            letters.extend(t.chars().flat_map(char::to_lowercase));
            if i + 1 == toks.len() && BACK_HEADS.contains(&letters.as_str()) {
                return Some(i + 1);
            }
            continue;
        }
        let closes = matches!(t, ":" | "." | "—" | "–" | "-");
        return (closes && BACK_HEADS.contains(&letters.as_str())).then_some(i + 1);
    }
    None
}

/// Sections of a back-matter zone read from its lines, without a model: a short line alone in
/// its block heads a new section (its number moved to `n`); every other layout block is a
/// paragraph, a block opening lower-case continuing the previous one. A block opening with a
/// known head (`Acknowledgements.`) also heads a section, the rest of its line opening the
/// paragraph.
pub fn zone_divs(doc: &Document, lines: &[LineRef]) -> Vec<Div> {
    let mut divs: Vec<Div> = Vec::new();
    let mut para: Option<(TextBuilder, (usize, usize))> = None;
    let flush = |para: &mut Option<(TextBuilder, (usize, usize))>, divs: &mut Vec<Div>| {
        if let Some((b, _)) = para.take() {
            let rt = b.finish();
            if divs.is_empty() {
                divs.push(Div::default());
            }
            if let Some(d) = divs.last_mut() {
                d.blocks.push(BodyBlock::Paragraph(rt));
            }
        }
    };
    for r in lines {
        let toks = zone_tokens(doc, std::slice::from_ref(r));
        if toks.is_empty() {
            continue;
        }
        let head_len = if is_heading(doc, r) {
            Some(toks.len())
        } else if r.line == 0 {
            known_head(doc, &toks)
        } else {
            None
        };
        if let Some(k) = head_len {
            flush(&mut para, &mut divs);
            divs.push(Div {
                head: Some(head(doc, &toks[..k])),
                blocks: Vec::new(),
            });
            if k < toks.len() {
                let mut b = TextBuilder::new();
                b.extend(doc, &toks[k..]);
                para = Some((b, (r.page, r.block)));
            }
            continue;
        }
        let block = (r.page, r.block);
        let lower = doc
            .token(r, 0)
            .is_some_and(|(_, t)| t.text.starts_with(char::is_lowercase));
        match &mut para {
            Some((b, at)) if *at == block || lower => {
                b.extend(doc, &toks);
                *at = block;
            }
            _ => {
                flush(&mut para, &mut divs);
                let mut b = TextBuilder::new();
                b.extend(doc, &toks);
                para = Some((b, block));
            }
        }
    }
    flush(&mut para, &mut divs);
    divs
}

/// The body's notes from the segmentation zones: footnotes (`foot_N`), then margin notes
/// (`margin_N`).
pub fn zone_notes(doc: &Document, zones: &Zones) -> Vec<Note> {
    let mut out = notes(doc, &zones.lines(Zone::Footnote), false, 0);
    out.extend(notes(doc, &zones.lines(Zone::Marginnote), true, 0));
    out
}

/// The funding and data-availability statements the header model found in the front matter,
/// written first in the back matter's funding and availability divs (GROBID moves them there
/// too; the TEI header has no element for them). One div of one paragraph per statement.
pub fn header_statements(back: &mut Back, header: &HeaderRecord) {
    let divs = |stmts: &[String], tokens: &[Vec<crate::document::TokenBox>]| -> Vec<Div> {
        stmts
            .iter()
            .enumerate()
            .map(|(i, s)| Div {
                head: None,
                blocks: vec![BodyBlock::Paragraph(RichText {
                    text: s.clone(),
                    tokens: tokens.get(i).cloned().unwrap_or_default(),
                    ..RichText::default()
                })],
            })
            .collect()
    };
    back.funding
        .splice(0..0, divs(&header.funding, &header.funding_tokens));
    back.availability.splice(
        0..0,
        divs(&header.availability, &header.availability_tokens),
    );
}

/// The front-matter text the abstract leaves out ([`HeaderRecord::front_text`]) as the
/// body's first paragraphs: they join the body's opening div when it has no head, else open
/// a div of their own before it. A piece cut off with the head of the body's opening section
/// opens a div with that head, which the body's opening div, when it has no head, goes on.
pub fn front_paragraphs(body: &mut Body, header: &HeaderRecord) {
    if header.front_text.is_empty() {
        return;
    }
    let paragraph = |f: &crate::document::FrontText| {
        BodyBlock::Paragraph(RichText {
            text: f.text.clone(),
            tokens: f.tokens.clone(),
            ..RichText::default()
        })
    };
    let mut divs: Vec<Div> = Vec::new();
    for f in &header.front_text {
        match (&f.head, divs.last_mut()) {
            (Some(h), _) => divs.push(Div {
                head: Some(crate::document::Head {
                    n: None,
                    text: RichText {
                        text: h.clone(),
                        ..RichText::default()
                    },
                }),
                blocks: vec![paragraph(f)],
            }),
            (None, Some(d)) => d.blocks.push(paragraph(f)),
            (None, None) => divs.push(Div {
                head: None,
                blocks: vec![paragraph(f)],
            }),
        }
    }
    if let (Some(last), Some(first)) = (divs.last_mut(), body.divs.first()) {
        if first.head.is_none() {
            last.blocks.extend(body.divs.remove(0).blocks);
        }
    }
    body.divs.splice(0..0, divs);
}

/// The back matter the segmentation zones give without a model: acknowledgement, funding and
/// availability sections read by [`zone_divs`]. The annex is left to
/// [`crate::body::assemble_annex`] (the fulltext model over the annex zone).
pub fn back(doc: &Document, zones: &Zones) -> Back {
    Back {
        acknowledgement: zone_divs(doc, &zones.lines(Zone::Acknowledgement)),
        funding: zone_divs(doc, &zones.lines(Zone::Funding)),
        availability: zone_divs(doc, &zones.lines(Zone::Availability)),
        ..Back::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(divs: &[Div]) -> Vec<&str> {
        divs.iter()
            .flat_map(|d| &d.blocks)
            .map(|b| match b {
                BodyBlock::Paragraph(p) => p.text.as_str(),
                _ => "",
            })
            .collect()
    }

    fn para(text: &str) -> BodyBlock {
        BodyBlock::Paragraph(RichText {
            text: text.into(),
            ..RichText::default()
        })
    }

    #[test]
    fn left_out_abstract_text_opens_the_body() {
        let header = HeaderRecord {
            front_text: vec![crate::document::FrontText::plain(
                "Climate change is defined as…",
            )],
            ..HeaderRecord::default()
        };
        let headed = Div {
            head: Some(crate::document::Head::default()),
            blocks: vec![para("Methods text.")],
        };
        let mut body = Body {
            divs: vec![headed.clone()],
            ..Body::default()
        };
        front_paragraphs(&mut body, &header);
        assert_eq!(body.divs.len(), 2);
        assert!(body.divs[0].head.is_none());
        assert_eq!(texts(&body.divs[..1]), ["Climate change is defined as…"]);
        assert_eq!(body.divs[1], headed);

        let mut unheaded = Body {
            divs: vec![Div {
                head: None,
                blocks: vec![para("Intro text.")],
            }],
            ..Body::default()
        };
        front_paragraphs(&mut unheaded, &header);
        assert_eq!(
            texts(&unheaded.divs),
            ["Climate change is defined as…", "Intro text."]
        );
        let mut untouched = unheaded.clone();
        front_paragraphs(&mut untouched, &HeaderRecord::default());
        assert_eq!(untouched, unheaded);
    }

    #[test]
    fn a_section_cut_off_the_abstract_opens_the_body_with_its_head() {
        let header = HeaderRecord {
            front_text: vec![
                crate::document::FrontText::plain("A plain summary."),
                crate::document::FrontText {
                    head: Some("Statement of need".into()),
                    text: "The package started as an attempt.".into(),
                    ..crate::document::FrontText::default()
                },
            ],
            ..HeaderRecord::default()
        };
        let mut body = Body {
            divs: vec![Div {
                head: None,
                blocks: vec![para("First, sharing is easier.")],
            }],
            ..Body::default()
        };
        front_paragraphs(&mut body, &header);
        assert_eq!(body.divs.len(), 2, "{:?}", body.divs);
        assert!(body.divs[0].head.is_none());
        assert_eq!(texts(&body.divs[..1]), ["A plain summary."]);
        let head = body.divs[1].head.as_ref().map(|h| h.text.text.as_str());
        assert_eq!(head, Some("Statement of need"));
        // The body's opening div, headless, goes on the cut-off section.
        assert_eq!(
            texts(&body.divs[1..]),
            [
                "The package started as an attempt.",
                "First, sharing is easier."
            ]
        );
    }

    #[test]
    fn front_matter_statements_open_the_back_matter_divs() {
        let zone_div = Div {
            head: None,
            blocks: vec![BodyBlock::Paragraph(RichText {
                text: "Funded by the zone.".into(),
                ..RichText::default()
            })],
        };
        let mut back = Back {
            funding: vec![zone_div],
            ..Back::default()
        };
        let word = |at: std::ops::Range<usize>| crate::document::TokenBox {
            range: at,
            page: 1,
            bbox: crate::layout::BBox {
                x: 10.0,
                y: 20.0,
                w: 30.0,
                h: 9.0,
            },
        };
        let header = HeaderRecord {
            funding: vec!["Funded in the header.".into()],
            funding_tokens: vec![vec![word(0..6), word(7..9)]],
            availability: vec!["Data on request.".into()],
            ..HeaderRecord::default()
        };
        header_statements(&mut back, &header);
        // The statement keeps where its words are printed (its sentences' coords).
        let BodyBlock::Paragraph(p) = &back.funding[0].blocks[0] else {
            panic!("not a paragraph");
        };
        assert_eq!(p.tokens, vec![word(0..6), word(7..9)]);
        assert_eq!(
            texts(&back.funding),
            ["Funded in the header.", "Funded by the zone."]
        );
        assert_eq!(texts(&back.availability), ["Data on request."]);
        assert!(back.acknowledgement.is_empty() && back.annex.is_empty());
    }
}
