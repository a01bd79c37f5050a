//! Body assembly and callout resolution on hand-built documents and spans: the builders
//! here, the tests in `assemble`, `callouts` and `coverage`.

use super::*;
use crate::document::{Back, Note, Reference};
use crate::layout::{BBox, Block, Line, Page, Token};
use crate::models::citation::Citation;
use crate::models::date::Date;
use crate::models::name::Person;

/// A piece of a line: `S` opens a new span with its label, `C` continues the previous span.
enum Seg {
    S(Label, &'static str),
    C(&'static str),
}
use Seg::{C, S};

type Lines = Vec<Vec<Seg>>;

struct Built {
    doc: Document,
    tokens: Vec<ZoneToken>,
    spans: Vec<Span<Label>>,
}

/// Split a word into GROBID-like tokens: letter/digit runs, every other character alone;
/// a `^` makes what follows it superscript.
fn word_tokens(word: &str) -> Vec<(String, bool)> {
    let mut out: Vec<(String, bool)> = Vec::new();
    let mut sup = false;
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut Vec<(String, bool)>, sup: bool| {
        if !run.is_empty() {
            out.push((std::mem::take(run), sup));
        }
    };
    for ch in word.chars() {
        if ch == '^' {
            flush(&mut run, &mut out, sup);
            sup = true;
        } else if ch.is_alphanumeric() {
            run.push(ch);
        } else {
            flush(&mut run, &mut out, sup);
            out.push((ch.to_string(), sup));
        }
    }
    flush(&mut run, &mut out, sup);
    out
}

/// Pages of blocks of lines of segments → a document, its zone tokens and spans.
fn build(pages: Vec<Vec<Lines>>) -> Built {
    let mut doc = Document::default();
    let mut labels: Vec<(Label, bool)> = Vec::new();
    for (pi, blocks) in pages.into_iter().enumerate() {
        let mut page = Page {
            number: pi as u32 + 1,
            width: 600.0,
            height: 800.0,
            ..Page::default()
        };
        for (bi, lines) in blocks.into_iter().enumerate() {
            let mut block = Block::default();
            for (li, segs) in lines.into_iter().enumerate() {
                let y = 50.0 + bi as f32 * 100.0 + li as f32 * 12.0;
                let mut line = Line::default();
                let mut x = 50.0;
                for seg in segs {
                    let (label, text, new) = match seg {
                        S(l, t) => (l, t, true),
                        C(t) => (labels.last().map_or(Label::Other, |l| l.0), t, false),
                    };
                    let mut first = new;
                    for word in text.split_whitespace() {
                        let toks = word_tokens(word);
                        let n = toks.len();
                        for (k, (t, sup)) in toks.into_iter().enumerate() {
                            let w = 5.0 * t.chars().count() as f32;
                            line.tokens.push(Token {
                                bbox: BBox { x, y, w, h: 10.0 },
                                text: t,
                                font_size: 10.0,
                                superscript: sup,
                                space_after: k + 1 == n,
                                ..Token::default()
                            });
                            x += w + if k + 1 == n { 3.0 } else { 0.0 };
                            labels.push((label, first));
                            first = false;
                        }
                    }
                }
                if let Some(t) = line.tokens.last_mut() {
                    t.space_after = !t.text.ends_with('-');
                }
                block.lines.push(line);
            }
            page.blocks.push(block);
        }
        doc.pages.push(page);
    }
    let mut refs = Vec::new();
    for (pi, p) in doc.pages.iter().enumerate() {
        for (bi, b) in p.blocks.iter().enumerate() {
            for li in 0..b.lines.len() {
                refs.push(LineRef {
                    page: pi,
                    block: bi,
                    line: li,
                });
            }
        }
    }
    let tokens = zone_tokens(&doc, &refs);
    let mut spans: Vec<Span<Label>> = Vec::new();
    for (i, (label, new)) in labels.into_iter().enumerate() {
        match spans.last_mut() {
            Some(s) if !new && s.label == label => s.tokens.end = i + 1,
            _ => spans.push(Span {
                label,
                tokens: i..i + 1,
            }),
        }
    }
    Built { doc, tokens, spans }
}

fn one_page(blocks: Vec<Lines>) -> Built {
    build(vec![blocks])
}

fn assembled(b: &Built) -> Body {
    assemble(&b.doc, &b.tokens, &b.spans)
}

/// The body as lines of text, one per element, for exact comparisons.
fn outline(body: &Body) -> Vec<String> {
    let mut out = Vec::new();
    for d in &body.divs {
        match &d.head {
            Some(h) => out.push(format!("div n={:?} {}", h.n, h.text.text)),
            None => out.push("div".into()),
        }
        for b in &d.blocks {
            out.push(match b {
                BodyBlock::Paragraph(p) => format!("p {}", p.text),
                BodyBlock::List(items) => format!(
                    "list {}",
                    items
                        .iter()
                        .map(|i| i.text.as_str())
                        .collect::<Vec<_>>()
                        .join(" | ")
                ),
                BodyBlock::Formula(f) => format!("{} {} {:?}", f.id, f.text.text, f.label),
            });
        }
    }
    for f in &body.figures {
        out.push(format!(
            "{} {:?} {:?} {:?} {:?}",
            f.id,
            f.head,
            f.label,
            f.desc.as_ref().map(|d| d.text.as_str()),
            f.note.as_ref().map(|d| d.text.as_str()),
        ));
    }
    out
}

fn paragraphs(body: &Body) -> Vec<&RichText> {
    body.divs
        .iter()
        .flat_map(|d| &d.blocks)
        .filter_map(|b| match b {
            BodyBlock::Paragraph(p) => Some(p),
            _ => None,
        })
        .collect()
}

/// `(callout text, kind, target)` of a text's callouts.
fn calls(rt: &RichText) -> Vec<(&str, &'static str, Option<&str>)> {
    rt.refs
        .iter()
        .map(|c| {
            (
                &rt.text[c.range.clone()],
                c.kind.as_str(),
                c.target.as_deref(),
            )
        })
        .collect()
}

use Label::{
    CitationMarker as Cit, Equation as Eq, EquationLabel as EqL, EquationMarker as EqM,
    Figure as Fig, FigureMarker as FigM, Other as O, Paragraph as P, Section as H, Table as Tab,
    TableMarker as TabM,
};

fn reference(marker: Option<&str>, surname: &str, year: i32, raw: &str) -> Reference {
    Reference {
        citation: Citation {
            raw: raw.into(),
            authors: vec![Person {
                surname: Some(surname.into()),
                ..Person::default()
            }],
            date: Some(Date {
                year: Some(year),
                ..Date::default()
            }),
            ..Citation::default()
        },
        marker: marker.map(str::to_string),
        boxes: Vec::new(),
    }
}

fn resolved(b: &Built, refs: &[Reference], notes: Vec<Note>) -> Body {
    let mut body = assembled(b);
    body.notes = notes;
    resolve_callouts(&mut body, &mut Back::default(), refs);
    body
}

mod assemble;
mod callouts;
mod coverage;

/// Changes tokens `at` of line `line` in block `block` of page `page`.
fn edit(
    b: &mut Built,
    (page, block, line): (usize, usize, usize),
    at: Range<usize>,
    f: impl Fn(&mut Token),
) {
    let line = &mut b.doc.pages[page].blocks[block].lines[line];
    line.tokens[at].iter_mut().for_each(f);
}

/// Sets the font of tokens `at` of line `line` in block `block` of the first page.
fn set_font(b: &mut Built, block: usize, line: usize, at: Range<usize>, font: &str) {
    edit(b, (0, block, line), at, |t| t.font = font.to_string());
}

/// Sets every token of the document in `font` (the body font).
fn body_font(b: &mut Built, font: &str) {
    for t in b
        .doc
        .pages
        .iter_mut()
        .flat_map(|p| &mut p.blocks)
        .flat_map(|bl| &mut bl.lines)
        .flat_map(|l| &mut l.tokens)
    {
        t.font = font.to_string();
    }
}

mod heads;
