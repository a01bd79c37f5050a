//! Segmentation model: labels every line of a document with its zone (header, body, references,
//! footnote, …), GROBID's first model (reference grobid-models.md §2.2, §3.1).
//!
//! One feature path: a line is first described by its [`LineFacts`] (the layout facts GROBID's
//! raw files record and a [`Document`] yields), then [`rows`] turns facts into the 33 feature
//! columns, computing every lexical column itself. Training reads facts from GROBID's raw files
//! ([`LineFacts::from_raw`]); tagging reads them from a PDF's layout ([`document_lines`]); both
//! end in the same [`rows`].

use std::collections::{HashMap, HashSet};

use crate::features::{Row, Rows};
use crate::labels::Labels;
use crate::layout::{BBox, Block, Document};
use crate::lexicon::LexView;
use crate::models::lexical::{self as lx, bit};
use crate::{Error, Result};

model_labels!(
    "segmentation",
    /// GROBID's segmentation labels.
    {
        Header => "<header>",
        Body => "<body>",
        References => "<references>",
        Annex => "<annex>",
        Footnote => "<footnote>",
        Headnote => "<headnote>",
        Marginnote => "<marginnote>",
        Page => "<page>",
        Cover => "<cover>",
        Acknowledgement => "<acknowledgement>",
        Availability => "<availability>",
        Funding => "<funding>",
        Toc => "<toc>",
        Other => "<other>",
    }
);

pub use crate::models::lexical::{Pos, SizeChange};

/// What GROBID knows of one line besides its words: the layout facts of a feature row.
#[derive(Debug, Clone, PartialEq)]
pub struct LineFacts {
    /// First whitespace-separated chunk of the line.
    pub first: String,
    /// Second chunk, or the first again when the line has one.
    pub second: String,
    pub block: Pos,
    pub page: Pos,
    pub new_font: bool,
    pub font_size: SizeChange,
    pub bold: bool,
    pub italic: bool,
    /// Position of the block in the document, 0-12.
    pub doc_pos: usize,
    /// Position of the block in its page, 0-12.
    pub page_pos: usize,
    /// The line's punctuation characters in order (`no` when none).
    pub punct: String,
    pub punct_len: usize,
    /// Line length relative to the block's longest line, 0-10.
    pub line_len: usize,
    pub bitmap_around: bool,
    pub vector_around: bool,
    pub repetitive: bool,
    pub first_repetitive: bool,
    pub in_main_area: bool,
}

impl LineFacts {
    /// The facts of one row of a GROBID raw segmentation file (33 or 34 columns).
    pub fn from_raw(c: &[String]) -> Option<LineFacts> {
        if c.len() < 33 {
            return None;
        }
        let n = |i: usize| c[i].parse::<usize>().ok();
        Some(LineFacts {
            first: c[0].clone(),
            second: c[1].clone(),
            block: Pos::parse(&c[7], lx::BLOCK_POS)?,
            page: Pos::parse(&c[8], lx::PAGE_POS)?,
            new_font: c[9] == "NEWFONT",
            font_size: SizeChange::parse(&c[10])?,
            bold: lx::parse_bool(&c[11])?,
            italic: lx::parse_bool(&c[12])?,
            doc_pos: n(23)?,
            page_pos: n(24)?,
            punct: c[25].clone(),
            punct_len: n(26)?,
            line_len: n(27)?,
            bitmap_around: lx::parse_bool(&c[28])?,
            vector_around: lx::parse_bool(&c[29])?,
            repetitive: lx::parse_bool(&c[30])?,
            first_repetitive: lx::parse_bool(&c[31])?,
            in_main_area: lx::parse_bool(&c[32])?,
        })
    }
}

/// THE feature function: facts in, the 33 feature columns out (reference §3.1).
pub fn rows(lines: &[LineFacts], lex: &LexView<'_>) -> Rows {
    lines.iter().map(|l| row(l, lex)).collect()
}

fn row(f: &LineFacts, lex: &LexView<'_>) -> Row {
    let t = f.first.as_str();
    let mut r: Row = Vec::with_capacity(33);
    r.push(t.into());
    r.push(f.second.as_str().into());
    r.push(t.to_lowercase().into());
    for k in 1..=4 {
        r.push(lx::prefix(t, k).into());
    }
    r.push(f.block.as_str(lx::BLOCK_POS).into());
    r.push(f.page.as_str(lx::PAGE_POS).into());
    r.push(if f.new_font { "NEWFONT" } else { "SAMEFONT" }.into());
    r.push(f.font_size.as_str().into());
    r.push(bit(f.bold).into());
    r.push(bit(f.italic).into());
    r.push(lx::capitalisation(t).into());
    r.push(lx::digit(t).into());
    r.push(bit(t.chars().count() == 1).into());
    r.push(bit(lx::proper_name(t, lex)).into());
    r.push(bit(lx::common_word(t, lex)).into());
    r.push("0".into()); // firstName: never set by GROBID either
    r.push(bit(lx::year(t)).into());
    r.push(bit(lx::month(t)).into());
    r.push(bit(lx::email(t)).into());
    r.push(bit(lx::http(t)).into());
    r.push(crate::features::number(f.doc_pos));
    r.push(crate::features::number(f.page_pos));
    r.push(f.punct.as_str().into());
    r.push(crate::features::number(f.punct_len));
    r.push(crate::features::number(f.line_len));
    r.push(bit(f.bitmap_around).into());
    r.push(bit(f.vector_around).into());
    r.push(bit(f.repetitive).into());
    r.push(bit(f.first_repetitive).into());
    r.push(bit(f.in_main_area).into());
    r
}

pub use crate::layout::LineRef;

/// Number of GROBID tokens (words, spaces, newlines) a block contributes to the token stream.
fn grobid_token_count(b: &Block) -> usize {
    let mut n = 1; // the block-end newline
    for l in &b.lines {
        let spaces = l.text().matches(' ').count();
        n += l.tokens.len() + spaces + 1;
    }
    n
}

pub(crate) fn chunks(line: &str) -> Vec<&str> {
    line.split(char::is_whitespace)
        .filter(|c| !c.is_empty())
        .collect()
}

fn letters_only(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_ascii_alphabetic())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// GROBID's "connected graphics" test (reference §6.2): a graphic whose bottom edge is within
/// 100 pt of the block's top, or whose top edge is within 100 pt of its bottom.
pub(crate) fn near(graphics: &[BBox], b: &BBox) -> bool {
    graphics
        .iter()
        .any(|g| (g.bottom() - b.y).abs() <= 100.0 || (g.y - b.bottom()).abs() <= 100.0)
}

/// Page main areas (GROBID's `calculatePageMainAreas`): per parity, the extent of the large
/// blocks; `None` for a parity without such blocks.
fn main_areas(doc: &Document) -> [Option<BBox>; 2] {
    let mut lr: [Option<(f32, f32)>; 2] = [None, None];
    let mut tb: Option<(f32, f32)> = None;
    for page in &doc.pages {
        let parity = (page.number % 2) as usize;
        for b in &page.blocks {
            let bb = &b.bbox;
            if bb.x == 0.0 || bb.h < 20.0 || bb.w < 20.0 || bb.w * bb.h < 3000.0 {
                continue;
            }
            let e = lr[parity].get_or_insert((bb.x, bb.right()));
            e.0 = e.0.min(bb.x);
            e.1 = e.1.max(bb.right());
            let v = tb.get_or_insert((bb.y, bb.bottom()));
            v.0 = v.0.min(bb.y);
            v.1 = v.1.max(bb.bottom());
        }
    }
    let mut out = [None, None];
    if let Some((top, bottom)) = tb {
        for p in 0..2 {
            if let Some((l, r)) = lr[p] {
                out[p] = Some(BBox {
                    x: l,
                    y: top,
                    w: r - l,
                    h: bottom - top,
                });
            }
        }
    }
    out
}

fn intersects(a: &BBox, b: &BBox) -> bool {
    a.x <= b.right() && b.x <= a.right() && a.y <= b.bottom() && b.y <= a.bottom()
}

/// The segmentation facts of every line of a document, with where each line comes from.
pub fn document_lines(doc: &Document) -> (Vec<LineFacts>, Vec<LineRef>) {
    // Repetitive head/foot lines: first line of the first two and last block of each page.
    let mut pattern_count: HashMap<String, usize> = HashMap::new();
    for page in &doc.pages {
        let n = page.blocks.len();
        for (bi, b) in page.blocks.iter().enumerate() {
            if bi < 2 || bi + 2 > n {
                if let Some(l) = b.lines.first() {
                    let key = letters_only(&l.text());
                    if key.len() > 8 {
                        *pattern_count.entry(key).or_default() += 1;
                    }
                }
            }
        }
    }
    let total_tokens: usize = doc.blocks().map(grobid_token_count).sum();
    let doc_len = total_tokens.saturating_sub(1);
    let areas = main_areas(doc);
    let full_page = doc.pages.len() > 1;

    let mut facts: Vec<LineFacts> = Vec::new();
    let mut refs: Vec<LineRef> = Vec::new();
    let mut seen_patterns: std::collections::HashSet<String> = Default::default();
    let mut prev_font: Option<String> = None;
    let mut prev_size: Option<i64> = None;
    let mut nn = 0usize;
    for (pi, page) in doc.pages.iter().enumerate() {
        let page_len: usize = page.blocks.iter().map(grobid_token_count).sum();
        let mut mm = 0usize;
        let mut page_first = true;
        let nblocks = page.blocks.len();
        let area = if page.number % 2 == 0 && !full_page {
            None
        } else {
            areas[(page.number % 2) as usize]
        };
        for (bi, b) in page.blocks.iter().enumerate() {
            let head = b.lines.iter().flat_map(|l| l.tokens.first()).next();
            let font = head.map(|t| t.font.to_lowercase()).unwrap_or_default();
            let size = head.map(|t| t.font_size as i64).unwrap_or(0);
            let (bold, italic) = head.map(|t| (t.bold, t.italic)).unwrap_or((false, false));
            let texts: Vec<String> = b.lines.iter().map(|l| l.text()).collect();
            let max_len = texts.iter().map(|t| t.chars().count()).max().unwrap_or(0);
            let head_or_foot = bi < 2 || bi + 2 > nblocks;
            let doc_pos = lx::linear_scaling(nn, doc_len, 12);
            let page_pos = lx::linear_scaling(mm, page_len, 12);
            let bitmap = near(&page.images, &b.bbox);
            let vector = near(&page.vectors, &b.bbox);
            let in_main = area.is_some_and(|a| intersects(&a, &b.bbox));
            let nlines = b.lines.len();
            let mut prev_was_end = false;
            for (li, text) in texts.iter().enumerate() {
                let ch = chunks(text);
                let Some(first) = ch.first() else { continue };
                if text.contains("@IMAGE") || text.contains("@PAGE") {
                    continue;
                }
                let block = if li == 0 || prev_was_end {
                    Pos::Start
                } else if li + 1 == nlines {
                    Pos::End
                } else {
                    Pos::In
                };
                prev_was_end = block == Pos::End;
                let page_pos_status = if page_first {
                    if let Some(last) = facts.last_mut() {
                        last.page = Pos::End;
                    }
                    page_first = false;
                    Pos::Start
                } else {
                    Pos::In
                };
                let punct: String = text
                    .chars()
                    .filter(|&c| !c.is_whitespace() && crate::tokenizer::is_delimiter(c))
                    .collect();
                let punct_len = punct.chars().count();
                let (repetitive, first_repetitive) = if head_or_foot {
                    let key = letters_only(text);
                    let rep = pattern_count.get(&key).copied().unwrap_or(0) > 1;
                    let first_seen = rep && seen_patterns.insert(key);
                    (rep, first_seen)
                } else {
                    (false, false)
                };
                facts.push(LineFacts {
                    first: first.to_string(),
                    second: ch.get(1).unwrap_or(first).to_string(),
                    block,
                    page: page_pos_status,
                    new_font: prev_font.as_deref() != Some(font.as_str()),
                    font_size: SizeChange::between(prev_size, size),
                    bold,
                    italic,
                    doc_pos,
                    page_pos,
                    punct: if punct.is_empty() { "no".into() } else { punct },
                    punct_len,
                    line_len: lx::linear_scaling(text.chars().count(), max_len, 10),
                    bitmap_around: bitmap,
                    vector_around: vector,
                    repetitive,
                    first_repetitive,
                    in_main_area: in_main,
                });
                prev_font = Some(font.clone());
                prev_size = Some(size);
                refs.push(LineRef {
                    page: pi,
                    block: bi,
                    line: li,
                });
            }
            let n = grobid_token_count(b);
            nn += n;
            mm += n;
        }
    }
    (facts, refs)
}

/// Decoded zones: for each labelled line, its zone; consecutive lines of one zone form a piece.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Zones {
    /// `(label, lines)` pieces in document order.
    pub pieces: Vec<(Label, Vec<LineRef>)>,
}

impl Zones {
    /// All lines of a zone, in document order.
    pub fn lines(&self, label: Label) -> Vec<LineRef> {
        self.pieces
            .iter()
            .filter(|(l, _)| *l == label)
            .flat_map(|(_, v)| v.iter().copied())
            .collect()
    }
}

/// Letters of a line, lower-cased (`A b s t r a c t` → `abstract`).
fn letters_lower(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphabetic())
        .flat_map(char::to_lowercase)
        .collect()
}

/// A line that opens the body: a numbered heading (`1 Introduction`, `1. Background`,
/// `I. INTRODUCTION`) or an unnumbered `Introduction`.
fn opens_body(text: &str) -> bool {
    let t = text.trim();
    let first = t.split_whitespace().next().unwrap_or("");
    let numbered = first
        .trim_end_matches('.')
        .chars()
        .all(|c| c.is_ascii_digit())
        && !first.is_empty()
        && first.len() <= 3;
    let roman = matches!(first.trim_end_matches('.'), "I" | "1") && first.ends_with('.');
    let rest = t[first.len()..].trim_start();
    let heading = rest.chars().next().is_some_and(char::is_uppercase) && rest.len() < 60;
    ((numbered || roman) && heading) || letters_lower(t) == "introduction"
}

/// A line that opens with an abstract heading followed by the abstract's text on the same
/// line: `Abstract: We study …`, `ABSTRACT. The …`, `Summary — …`.
/// A line holding only an `Abstract` (or `Summary`) heading.
fn abstract_heading_line(text: &str) -> bool {
    matches!(letters_lower(text).as_str(), "abstract" | "summary")
}

/// A line ending in a word broken at a hyphen (`… were analy-`): a letter, then `-` or
/// `‐`, at the very end.
fn ends_with_broken_word(text: &str) -> bool {
    let t = text.trim_end();
    let mut rev = t.chars().rev();
    matches!(rev.next(), Some('-' | '\u{2010}')) && rev.next().is_some_and(char::is_alphabetic)
}

fn opens_with_abstract_heading(text: &str) -> bool {
    let t = text.trim();
    let first = t.split_whitespace().next().unwrap_or("");
    let word = first.trim_end_matches([':', '.', '—', '–', '-']);
    let rest = t[first.len()..].trim();
    matches!(word, "Abstract" | "ABSTRACT" | "Summary" | "SUMMARY")
        && rest.chars().next().is_some_and(char::is_alphanumeric)
}

/// A line opening with a cue that follows the abstract in front matter: `Keywords`,
/// `Key words`, `Index Terms`, `Received`, `Accepted`, `Abbreviations`.
fn opens_with_front_matter_cue(text: &str) -> bool {
    let l = letters_lower(text);
    [
        "keywords",
        "keyword",
        "indexterms",
        "received",
        "accepted",
        "abbreviations",
    ]
    .iter()
    .any(|c| l.starts_with(c))
}

/// A line that is only the heading of an article's opening section, numbered or not:
/// `Introduction`, `1. INTRODUCTION`, `I. Background`, `1 Introduction and motivation` is not
/// one (only the bare heading counts).
fn introduction_heading(text: &str) -> bool {
    let t = text.trim();
    let first = t.split_whitespace().next().unwrap_or("");
    let number = first.trim_end_matches('.');
    let numbered = !number.is_empty()
        && (number.chars().all(|c| c.is_ascii_digit()) || matches!(number, "I" | "1"));
    let rest = if numbered { &t[first.len()..] } else { t };
    matches!(letters_lower(rest).as_str(), "introduction" | "background")
}

/// Appends lines of a zone to `pieces`, extending the last piece when it is of the same zone.
fn push_piece(pieces: &mut Vec<(Label, Vec<LineRef>)>, label: Label, lines: Vec<LineRef>) {
    match pieces.last_mut() {
        Some((last, v)) if *last == label => v.extend(lines),
        _ => pieces.push((label, lines)),
    }
}

impl Zones {
    /// A header zone holding an introduction heading after its first line (the model ran
    /// the header on into the body, often over a page break): from that heading on, the lines
    /// are body. The abstract then ends where the article's text starts, and the section and
    /// its text reach the body instead of being read as header leftovers.
    pub fn end_header_at_introduction(&mut self, doc: &Document) {
        let mut pieces: Vec<(Label, Vec<LineRef>)> = Vec::with_capacity(self.pieces.len() + 1);
        for (label, mut lines) in std::mem::take(&mut self.pieces) {
            let cut = (label == Label::Header)
                .then(|| {
                    (1..lines.len()).find(|&i| {
                        // Right under an `Abstract` heading, `Introduction` or `Background`
                        // is the first part of a structured abstract, not the body's head.
                        let under_abstract = doc
                            .line(&lines[i - 1])
                            .is_some_and(|l| abstract_heading_line(&l.text()));
                        !under_abstract
                            && doc
                                .line(&lines[i])
                                .is_some_and(|l| introduction_heading(&l.text()))
                    })
                })
                .flatten();
            let tail = cut.map(|at| lines.split_off(at));
            push_piece(&mut pieces, label, lines);
            // A body piece cut off right before a body piece joins it.
            if let Some(tail) = tail {
                push_piece(&mut pieces, Label::Body, tail);
            }
        }
        self.pieces = pieces;
    }

    /// Lines the segmentation put in the page-furniture zone (`<page>`: page numbers, running
    /// heads and feet) that carry prose: four or more words, in the lower half of their page,
    /// their letters printed on no other page's furniture. GROBID writes nothing of the
    /// `<page>` zone; such a line is most often a footnote read as furniture, so it moves to
    /// the footnote zone and reaches the TEI as a note instead of being lost.
    pub fn rescue_footnotes_from_page_zone(&mut self, doc: &Document) {
        // Digit-free letters of a line: a running head or foot keeps them from page to page.
        let key = |r: &LineRef| doc.line(r).map(|l| letters_lower(&l.text()));
        let mut pages_of: HashMap<String, HashSet<usize>> = HashMap::new();
        for (label, lines) in &self.pieces {
            if matches!(label, Label::Page | Label::Headnote | Label::Footnote) {
                for r in lines {
                    if let Some(k) = key(r).filter(|k| !k.is_empty()) {
                        pages_of.entry(k).or_default().insert(r.page);
                    }
                }
            }
        }
        let prose = |r: &LineRef| -> bool {
            let (Some(line), Some(page)) = (doc.line(r), doc.pages.get(r.page)) else {
                return false;
            };
            let words = line
                .tokens
                .iter()
                .filter(|t| t.text.chars().filter(|c| c.is_alphabetic()).count() >= 2)
                .count();
            let repeated = key(r).is_some_and(|k| pages_of.get(&k).is_some_and(|p| p.len() > 1));
            words >= 4 && line.bbox.y > page.height / 2.0 && !repeated
        };
        let mut pieces: Vec<(Label, Vec<LineRef>)> = Vec::with_capacity(self.pieces.len());
        for (label, lines) in std::mem::take(&mut self.pieces) {
            if label != Label::Page {
                pieces.push((label, lines));
                continue;
            }
            for r in lines {
                let l = if prose(&r) {
                    Label::Footnote
                } else {
                    Label::Page
                };
                push_piece(&mut pieces, l, vec![r]);
            }
        }
        self.pieces = pieces;
    }

    /// A header that ends with an `Abstract` (or `Summary`) heading line whose text the model
    /// gave to the body, a header followed by a body whose first line opens with such a
    /// heading (`Abstract: We …`), or a header whose last line breaks a word the body's first
    /// line finishes in lower case (an abstract running on in the next column): the body lines
    /// that follow, up to the first line opening the body
    /// (a numbered heading or `Introduction`), on the same page and at most `max_lines`, move
    /// to the header; with no such end within `max_lines`, nothing moves.
    pub fn extend_header_over_abstract(&mut self, doc: &Document, max_lines: usize) {
        let text = |r: &LineRef| -> Option<String> {
            let l = doc
                .pages
                .get(r.page)?
                .blocks
                .get(r.block)?
                .lines
                .get(r.line)?;
            Some(l.text())
        };
        for i in 0..self.pieces.len().saturating_sub(1) {
            let (label, lines) = &self.pieces[i];
            if *label != Label::Header {
                continue;
            }
            let Some(last) = lines.last().copied() else {
                continue;
            };
            let (next_label, next) = &self.pieces[i + 1];
            if *next_label != Label::Body {
                continue;
            }
            // The heading ends the header, or opens the body's first line (`Abstract: We …`).
            let heading_last = text(&last).is_some_and(|t| abstract_heading_line(&t));
            let heading_first = next
                .first()
                .and_then(&text)
                .is_some_and(|t| opens_with_abstract_heading(&t));
            // The header's last line breaks a word (`analy-`) that the body's first line
            // finishes in lower case (`sed in two labs …`): the text runs on.
            let runs_on = text(&last).is_some_and(|t| ends_with_broken_word(&t))
                && next
                    .first()
                    .filter(|r| r.page == last.page)
                    .and_then(&text)
                    .is_some_and(|t| t.trim_start().starts_with(|c: char| c.is_lowercase()));
            if !heading_last && !heading_first && !runs_on {
                continue;
            }
            let take = next
                .iter()
                .take_while(|r| r.page == last.page)
                .take_while(|r| !text(r).is_some_and(|t| opens_body(&t)))
                .take(max_lines + 1)
                .count();
            // Nothing to take, or no end in sight: not an abstract.
            if take == 0 || take > max_lines {
                continue;
            }
            let moved: Vec<LineRef> = self.pieces[i + 1].1.drain(..take).collect();
            self.pieces[i].1.extend(moved);
        }
        // A body run between two header runs of the same page, the second opening with a
        // `Keywords:`- or `Received:`-like cue (an unheaded abstract between the authors and
        // the keywords): front matter, moved to the header when it is at most `max_lines`
        // lines and no line of it opens the body.
        for i in 0..self.pieces.len().saturating_sub(2) {
            if self.pieces[i].0 != Label::Header || self.pieces[i + 1].0 != Label::Body {
                continue;
            }
            let Some(page) = self.pieces[i].1.last().map(|r| r.page) else {
                continue;
            };
            let next_header = self.pieces[i + 2..]
                .iter()
                .find(|(l, _)| {
                    !matches!(
                        l,
                        Label::Page | Label::Headnote | Label::Footnote | Label::Marginnote
                    )
                })
                .filter(|(l, _)| *l == Label::Header)
                .and_then(|(_, v)| v.first());
            // The next header run opens with a front-matter cue that follows an abstract.
            let cue = next_header
                .and_then(&text)
                .is_some_and(|t| opens_with_front_matter_cue(&t));
            let body = &self.pieces[i + 1].1;
            let fits = cue
                && next_header.is_some_and(|r| r.page == page)
                && !body.is_empty()
                && body.len() <= max_lines
                && body.iter().all(|r| r.page == page)
                && !body.iter().any(|r| text(r).is_some_and(|t| opens_body(&t)));
            if fits {
                let moved: Vec<LineRef> = self.pieces[i + 1].1.drain(..).collect();
                self.pieces[i].1.extend(moved);
            }
        }
    }
}

impl Zones {
    /// Annex pieces that hold a head of the article's own body (`Discussion`, `Conclusions`,
    /// `Results`, numbered or not): the segmentation model ran the annex zone back over the
    /// last sections of the body (seen after a page of tables). Such a piece is body: its
    /// sections belong in `<body>`, not in the back matter.
    pub fn annex_with_body_heads_to_body(&mut self, doc: &Document) {
        const BODY_HEADS: &[&str] = &[
            "discussion",
            "conclusion",
            "conclusions",
            "results",
            "resultsanddiscussion",
            "discussionandconclusions",
            "discussionandconclusion",
        ];
        let body_head = |r: &LineRef| {
            doc.line(r).is_some_and(|l| {
                let t = l.text();
                let t = t.trim_start_matches(|c: char| {
                    c.is_ascii_digit() || c.is_whitespace() || matches!(c, '.' | ')')
                });
                BODY_HEADS.contains(&letters_lower(t).as_str())
            })
        };
        self.relabel(|label, lines| {
            if label == Label::Annex && lines.iter().any(body_head) {
                Label::Body
            } else {
                label
            }
        });
    }

    /// Each piece gets the label `to` gives it (from its label and lines); neighbours that
    /// end with one label are joined.
    fn relabel(&mut self, mut to: impl FnMut(Label, &[LineRef]) -> Label) {
        let mut pieces = Vec::with_capacity(self.pieces.len());
        for (label, lines) in std::mem::take(&mut self.pieces) {
            push_piece(&mut pieces, to(label, &lines), lines);
        }
        self.pieces = pieces;
    }

    /// Header pieces after the body has begun that open with a figure or table caption
    /// (`FIGURE 1` over its caption, on page 3): the segmentation model took a caption set
    /// in large type for front matter, and the header model then wrote it nowhere. Such a
    /// piece is body, where the figure is assembled with its caption.
    pub fn late_captions_to_body(&mut self, doc: &Document) {
        let caption = |r: &LineRef| {
            doc.line(r).is_some_and(|l| {
                let mut words = l
                    .tokens
                    .iter()
                    .map(|t| t.text.as_str())
                    .filter(|t| !t.trim().is_empty());
                let first = words.next().unwrap_or("").to_lowercase();
                let first = first.trim_end_matches('.');
                let number = words
                    .find(|w| *w != ".")
                    .is_some_and(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()));
                number
                    && crate::models::lexical::CAPTION_WORDS
                        .iter()
                        .any(|(w, _)| *w == first)
            })
        };
        let mut body_seen = false;
        self.relabel(|label, lines| {
            body_seen |= label == Label::Body;
            if label == Label::Header && body_seen && lines.first().is_some_and(caption) {
                Label::Body
            } else {
                label
            }
        });
    }

    /// Lines of header runs far from the front matter: runs that start on a later page than
    /// the first header run ends on, with at least `min_body_lines` body lines between the
    /// two (the authors' affiliations, dates or social-media handles printed at the end of a
    /// paper). Their affiliations and dates are the paper's, but a name found there is not a
    /// byline: a handle word read as a forename adds a false author.
    pub fn late_header_lines(&self, min_body_lines: usize) -> HashSet<LineRef> {
        let mut late = HashSet::new();
        let Some(first) = self.pieces.iter().position(|(l, _)| *l == Label::Header) else {
            return late;
        };
        let Some(first_page) = self.pieces[first].1.last().map(|r| r.page) else {
            return late;
        };
        let mut body_between = 0;
        for (label, lines) in self.pieces.iter().skip(first + 1) {
            match label {
                Label::Body => body_between += lines.len(),
                Label::Header
                    if body_between >= min_body_lines
                        && lines.first().is_some_and(|r| r.page > first_page) =>
                {
                    late.extend(lines.iter().copied());
                }
                _ => {}
            }
        }
        late
    }
}

/// Labels (one per line, as the tagger returns them) → zones.
pub fn decode(refs: &[LineRef], labels: &Labels) -> Result<Zones> {
    if refs.len() != labels.len() {
        return Err(Error::Tagging {
            model: "segmentation".into(),
            reason: format!("{} lines but {} labels", refs.len(), labels.len()),
        });
    }
    // A label the model does not know reads as `<other>`.
    let tags = labels.tags_or(Label::parse, Label::Other);
    Ok(Zones {
        pieces: crate::labels::fields(&tags)
            .into_iter()
            .map(|(label, a, b)| (label, refs[a..b].to_vec()))
            .collect(),
    })
}

/// Feature layout version of [`rows`]; bump when a column changes.
pub const FEATURE_VERSION: u32 = 1;
#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::layout::{self as corpus, Unmatched};
    use crate::training::segmentation::*;

    fn no_lex() -> crate::lexicon::Lexicons {
        crate::lexicon::Lexicons::default()
    }
    use crate::layout::{Line, Page, Token};

    const RAW: &str = "\
234 234 234 2 23 234 234 BLOCKSTART PAGESTART NEWFONT HIGHERFONT 1 0 NOCAPS ALLDIGIT 0 0 0 0 0 0 0 0 0 0 no 0 10 0 1 0 0 0
ANDERSON, From anderson, A AN AND ANDE BLOCKSTART PAGEIN NEWFONT LOWERFONT 0 0 ALLCAP NODIGIT 0 0 0 0 0 0 0 0 0 0 , 1 10 0 1 1 1 0
Analysis of analysis A An Ana Anal BLOCKSTART PAGEIN NEWFONT SAMEFONTSIZE 0 1 INITCAP NODIGIT 0 0 1 0 0 0 0 0 0 0 no 0 10 0 0 0 0 1
";

    const TEI: &str = r#"<tei><teiHeader><fileDesc xml:id="_0"/></teiHeader><text xml:lang="en">
<page> 234 <lb/></page>
<note place="headnote">ANDERSON, From Paper <lb/> </note>
<front> Analysis of a Case <lb/> From Paper <lb/></front>
<body>Some text <lb/>more</body>
</text></tei>"#;

    #[test]
    fn raw_facts_round_trip_to_the_raw_layout_columns() {
        let raw = corpus::parse_raw_rows(RAW);
        let facts: Vec<LineFacts> = raw
            .iter()
            .map(|r| LineFacts::from_raw(r).unwrap())
            .collect();
        let lex = no_lex();
        let rows = rows(&facts, &LexView::new(&lex));
        for (r, g) in rows.iter().zip(&raw) {
            assert_eq!(r.len(), 33);
            // Text and layout columns equal GROBID's; lexical ones are recomputed.
            for c in [
                0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 18, 19, 20, 21, 22,
            ] {
                assert_eq!(r[c], g[c], "column {c} of {:?}", g[0]);
            }
            for c in 23..33 {
                assert_eq!(r[c], g[c], "column {c}");
            }
        }
    }

    #[test]
    fn tei_lines_take_first_chunks_and_zone_labels() {
        let ev = corpus::parse_tei(TEI).unwrap();
        let lines = tei_lines(&ev);
        let got: Vec<(&str, &str)> = lines
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("234", "I-<page>"),
                ("ANDERSON,", "I-<headnote>"),
                ("Analysis", "I-<header>"),
                ("From", "<header>"),
                ("Some", "I-<body>"),
                ("more", "<body>"),
            ]
        );
        let raw = corpus::parse_raw_rows(RAW);
        let firsts: Vec<String> = raw.iter().map(|r| r[0].clone()).collect();
        let al = corpus::align(&firsts, &lines, 7, Unmatched::PreviousLabel);
        assert_eq!(
            al.labels,
            vec![
                Some("I-<page>".into()),
                Some("I-<headnote>".into()),
                Some("I-<header>".into())
            ]
        );
    }

    fn tok(text: &str, x: f32, y: f32, size: f32, font: &str) -> Token {
        Token {
            text: text.into(),
            bbox: BBox {
                x,
                y,
                w: 6.0 * text.len() as f32,
                h: size,
            },
            font: font.into(),
            font_size: size,
            space_after: true,
            ..Default::default()
        }
    }

    fn block(lines: &[&[&str]], y: f32, size: f32, font: &str) -> Block {
        let mut b = Block::default();
        for (i, l) in lines.iter().enumerate() {
            let ly = y + i as f32 * (size + 2.0);
            let mut x = 72.0;
            let tokens: Vec<Token> = l
                .iter()
                .map(|w| {
                    let t = tok(w, x, ly, size, font);
                    x += t.bbox.w + 3.0;
                    t
                })
                .collect();
            let bbox = tokens
                .iter()
                .skip(1)
                .fold(tokens[0].bbox, |a, t| a.union(&t.bbox));
            b.lines.push(Line { bbox, tokens });
        }
        b.bbox = b
            .lines
            .iter()
            .skip(1)
            .fold(b.lines[0].bbox, |a, l| a.union(&l.bbox));
        b
    }

    #[test]
    fn document_lines_describe_blocks_pages_and_fonts() {
        let p1 = Page {
            number: 1,
            width: 612.0,
            height: 792.0,
            blocks: vec![
                block(&[&["A", "Title", "Here"]], 80.0, 18.0, "Times-Bold"),
                block(
                    &[&["Jane", "Doe,"], &["Example", "University"]],
                    120.0,
                    10.0,
                    "Times",
                ),
            ],
            ..Default::default()
        };
        let p2 = Page {
            number: 2,
            width: 612.0,
            height: 792.0,
            blocks: vec![block(&[&["Body", "text."]], 80.0, 10.0, "Times")],
            ..Default::default()
        };
        let doc = Document {
            pages: vec![p1, p2],
        };
        let (facts, refs) = document_lines(&doc);
        assert_eq!(facts.len(), 4);
        assert_eq!(
            refs[2],
            LineRef {
                page: 0,
                block: 1,
                line: 1
            }
        );
        assert_eq!(facts[0].first, "A");
        assert_eq!(facts[0].second, "Title");
        assert_eq!(facts[0].page, Pos::Start);
        assert_eq!(facts[0].font_size, SizeChange::Higher);
        assert!(facts[0].new_font);
        assert_eq!(facts[1].block, Pos::Start);
        assert_eq!(facts[1].font_size, SizeChange::Lower);
        assert!(facts[1].new_font);
        assert_eq!(facts[1].punct, ",");
        assert_eq!(facts[2].block, Pos::End);
        assert!(!facts[2].new_font);
        assert_eq!(facts[2].page, Pos::End, "last line before a new page");
        assert_eq!(facts[3].page, Pos::Start);
        assert_eq!(facts[0].doc_pos, 0);
        assert!(facts[3].doc_pos > facts[1].doc_pos);
        let lex = no_lex();
        let r = rows(&facts, &LexView::new(&lex));
        assert!(r.iter().all(|row| row.len() == 33));
        assert_eq!(r[1][0], "Jane");
        assert_eq!(r[1][13], "INITCAP");
    }

    #[test]
    fn light_flavour_keeps_header_and_body() {
        assert_eq!(light_label("I-<header>"), "I-<header>");
        assert_eq!(light_label("I-<references>"), "I-<body>");
        assert_eq!(light_label("<footnote>"), "<body>");
        assert_eq!(light_label("<other>"), "<other>");
    }

    #[test]
    fn a_prose_line_in_the_page_zone_low_on_its_page_becomes_a_footnote() {
        let page = |number: u32, foot: &[&str]| Page {
            number,
            width: 612.0,
            height: 792.0,
            blocks: vec![
                block(
                    &[&["Running", "Head", "of", "the", "Paper"]],
                    30.0,
                    8.0,
                    "Times",
                ),
                block(&[&["Body", "text", "here."]], 200.0, 10.0, "Times"),
                block(&[foot], 740.0, 8.0, "Times"),
                block(&[&[&number.to_string()]], 770.0, 9.0, "Times"),
            ],
            ..Default::default()
        };
        let doc = Document {
            pages: vec![
                page(
                    1,
                    &["1", "The", "data", "are", "available", "on", "request."],
                ),
                page(2, &["Journal", "of", "Examples", "volume", "3"]),
                page(3, &["Journal", "of", "Examples", "volume", "3"]),
            ],
        };
        let (_, refs) = document_lines(&doc);
        let per_page = ["I-<page>", "I-<body>", "I-<page>", "I-<page>"];
        let labels: Vec<String> = per_page
            .iter()
            .cycle()
            .take(12)
            .map(|s| s.to_string())
            .collect();
        let mut z = decode(&refs, &Labels::from_names(&labels)).unwrap();
        z.rescue_footnotes_from_page_zone(&doc);
        // Page 1's footnote moves; the running head (top of the page), the running foot
        // (repeated on pages 2 and 3) and the page numbers stay furniture.
        let foot = z.lines(Label::Footnote);
        assert_eq!(foot.len(), 1, "{z:?}");
        assert_eq!((foot[0].page, foot[0].block), (0, 2));
        assert_eq!(z.lines(Label::Page).len(), 8);
        assert_eq!(z.lines(Label::Body).len(), 3);
    }

    #[test]
    fn an_introduction_heading_inside_the_header_zone_starts_the_body() {
        assert!(introduction_heading("1. INTRODUCTION"));
        assert!(introduction_heading("Introduction"));
        assert!(introduction_heading("I. Background"));
        assert!(!introduction_heading("1 Introduction and motivation"));
        assert!(!introduction_heading("1 Department of Physics"));
        let p1 = Page {
            number: 1,
            width: 612.0,
            height: 792.0,
            blocks: vec![
                block(&[&["A", "Title"]], 80.0, 18.0, "Times-Bold"),
                block(&[&["Abstract"]], 150.0, 10.0, "Times-Bold"),
                block(&[&["We", "study", "things."]], 170.0, 10.0, "Times"),
                block(&[&["INTRODUCTION"]], 300.0, 10.0, "Times-Bold"),
                block(&[&["Things", "matter."]], 320.0, 10.0, "Times"),
                block(&[&["More", "text."]], 340.0, 10.0, "Times"),
            ],
            ..Default::default()
        };
        let doc = Document { pages: vec![p1] };
        let (_, refs) = document_lines(&doc);
        let labels: Vec<String> = [
            "<header>", "<header>", "<header>", "<header>", "<header>", "<body>",
        ]
        .iter()
        .enumerate()
        .map(|(i, s)| {
            if i == 0 || i == 5 {
                format!("I-{s}")
            } else {
                s.to_string()
            }
        })
        .collect();
        let mut z = decode(&refs, &Labels::from_names(&labels)).unwrap();
        z.end_header_at_introduction(&doc);
        assert_eq!(z.lines(Label::Header).len(), 3, "{z:?}");
        assert_eq!(z.lines(Label::Body).len(), 3, "{z:?}");
        assert_eq!(z.pieces.len(), 2, "{z:?}");
        // Right under the `Abstract` heading, `Introduction` opens a structured abstract: the
        // header stays whole.
        let p2 = Page {
            number: 1,
            width: 612.0,
            height: 792.0,
            blocks: vec![
                block(&[&["A", "Title"]], 80.0, 18.0, "Times-Bold"),
                block(&[&["Abstract"]], 150.0, 10.0, "Times-Bold"),
                block(&[&["Introduction"]], 170.0, 10.0, "Times-Bold"),
                block(&[&["We", "study", "things."]], 190.0, 10.0, "Times"),
                block(&[&["Methods"]], 210.0, 10.0, "Times-Bold"),
                block(&[&["More", "text."]], 340.0, 10.0, "Times"),
            ],
            ..Default::default()
        };
        let doc = Document { pages: vec![p2] };
        let (_, refs) = document_lines(&doc);
        let mut z = decode(&refs, &Labels::from_names(&labels)).unwrap();
        z.end_header_at_introduction(&doc);
        assert_eq!(z.lines(Label::Header).len(), 5, "{z:?}");
    }

    #[test]
    fn an_abstract_running_on_from_a_broken_word_joins_the_header() {
        let page = |second: &str| Page {
            number: 1,
            width: 612.0,
            height: 792.0,
            blocks: vec![
                block(&[&["A", "Title"]], 80.0, 18.0, "Times-Bold"),
                block(
                    &[&["The", "samples", "were", "analy-"]],
                    120.0,
                    10.0,
                    "Times",
                ),
                block(
                    &[&[second, "in", "two", "labs."], &["More", "text."]],
                    140.0,
                    10.0,
                    "Times",
                ),
                block(
                    &[&["1.", "Introduction"], &["Body", "text."]],
                    200.0,
                    10.0,
                    "Times",
                ),
            ],
            ..Default::default()
        };
        let labels: Vec<String> = [
            "I-<header>",
            "<header>",
            "I-<body>",
            "<body>",
            "<body>",
            "<body>",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let doc = Document {
            pages: vec![page("sed")],
        };
        let (_, refs) = document_lines(&doc);
        let mut z = decode(&refs, &Labels::from_names(&labels)).unwrap();
        z.extend_header_over_abstract(&doc, 40);
        assert_eq!(z.lines(Label::Header).len(), 4, "{z:?}");
        assert_eq!(z.lines(Label::Body).len(), 2);
        // A body that opens with a capital does not run on from the broken word.
        let doc = Document {
            pages: vec![page("Sed")],
        };
        let (_, refs) = document_lines(&doc);
        let mut z = decode(&refs, &Labels::from_names(&labels)).unwrap();
        z.extend_header_over_abstract(&doc, 40);
        assert_eq!(z.lines(Label::Header).len(), 2, "{z:?}");
        assert!(ends_with_broken_word("were analy-"));
        assert!(!ends_with_broken_word("pages 12-"));
        assert!(!ends_with_broken_word("a dash -"));
    }

    #[test]
    fn an_abstract_heading_pulls_the_abstract_into_the_header() {
        let p1 = Page {
            number: 1,
            width: 612.0,
            height: 792.0,
            blocks: vec![
                block(&[&["A", "Title"]], 80.0, 18.0, "Times-Bold"),
                block(&[&["Abstract"]], 120.0, 10.0, "Times-Bold"),
                block(
                    &[&["We", "study."], &["More", "text."]],
                    140.0,
                    10.0,
                    "Times",
                ),
                block(
                    &[&["1.", "Introduction"], &["Body", "text."]],
                    200.0,
                    10.0,
                    "Times",
                ),
            ],
            ..Default::default()
        };
        let doc = Document { pages: vec![p1] };
        let (_, refs) = document_lines(&doc);
        let labels: Vec<String> = [
            "I-<header>",
            "<header>",
            "I-<body>",
            "<body>",
            "<body>",
            "<body>",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut z = decode(&refs, &Labels::from_names(&labels)).unwrap();
        z.extend_header_over_abstract(&doc, 40);
        assert_eq!(z.lines(Label::Header).len(), 4, "{z:?}");
        assert_eq!(z.lines(Label::Body).len(), 2);
        // Without the heading nothing moves.
        let labels: Vec<String> = [
            "I-<header>",
            "I-<body>",
            "<body>",
            "<body>",
            "<body>",
            "<body>",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut z = decode(&refs, &Labels::from_names(&labels)).unwrap();
        z.extend_header_over_abstract(&doc, 40);
        assert_eq!(z.lines(Label::Header).len(), 1);
        // The heading opening the body's first line (`Abstract: We study.`) pulls it too.
        let p2 = Page {
            number: 1,
            width: 612.0,
            height: 792.0,
            blocks: vec![
                block(&[&["A", "Title"]], 80.0, 18.0, "Times-Bold"),
                block(
                    &[&["Abstract:", "We", "study."], &["More", "text."]],
                    140.0,
                    10.0,
                    "Times",
                ),
                block(
                    &[&["1.", "Introduction"], &["Body", "text."]],
                    200.0,
                    10.0,
                    "Times",
                ),
            ],
            ..Default::default()
        };
        let doc2 = Document { pages: vec![p2] };
        let (_, refs2) = document_lines(&doc2);
        let labels: Vec<String> = ["I-<header>", "I-<body>", "<body>", "<body>", "<body>"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let mut z = decode(&refs2, &Labels::from_names(&labels)).unwrap();
        z.extend_header_over_abstract(&doc2, 40);
        assert_eq!(z.lines(Label::Header).len(), 3, "{z:?}");
        assert_eq!(z.lines(Label::Body).len(), 2);
        // A body run between two header runs of the page, the second opening with
        // `Keywords:`, moves; one before another header line, or with a heading, stays.
        let p3 = Page {
            number: 1,
            width: 612.0,
            height: 792.0,
            blocks: vec![
                block(&[&["A", "Title"]], 80.0, 18.0, "Times-Bold"),
                block(
                    &[&["We", "study."], &["More", "text."]],
                    140.0,
                    10.0,
                    "Times",
                ),
                block(&[&["Keywords:", "x"]], 180.0, 10.0, "Times"),
                block(&[&["1", "Department", "of", "X"]], 190.0, 10.0, "Times"),
            ],
            ..Default::default()
        };
        let doc3 = Document { pages: vec![p3] };
        let (_, refs3) = document_lines(&doc3);
        let run = |labels: &[&str]| {
            let labels: Vec<String> = labels.iter().map(|s| s.to_string()).collect();
            let mut z = decode(&refs3, &Labels::from_names(&labels)).unwrap();
            z.extend_header_over_abstract(&doc3, 40);
            z.lines(Label::Header).len()
        };
        assert_eq!(
            run(&["I-<header>", "I-<body>", "<body>", "I-<header>", "<body>"]),
            4
        );
        assert_eq!(
            run(&["I-<header>", "I-<body>", "<body>", "<body>", "I-<header>"]),
            2
        );
        assert!(opens_with_abstract_heading("Abstract: We study"));
        assert!(opens_with_abstract_heading("ABSTRACT The model"));
        assert!(!opens_with_abstract_heading("Abstract"));
        assert!(!opens_with_abstract_heading("Abstracts of talks"));
        assert!(opens_body("1 Introduction"));
        assert!(opens_body("2. Related Work"));
        assert!(opens_body("INTRODUCTION"));
        assert!(!opens_body("In classification, semi-"));
        assert!(!opens_body("2019 was a year"));
    }

    #[test]
    fn a_caption_read_as_front_matter_after_the_body_began_is_body() {
        let page = Page {
            number: 1,
            width: 612.0,
            height: 792.0,
            blocks: vec![
                block(&[&["A", "title"]], 80.0, 14.0, "Times-Bold"),
                block(&[&["We", "found", "things."]], 100.0, 10.0, "Times"),
                block(&[&["FIGURE", "1"]], 120.0, 12.0, "Times-Bold"),
                block(&[&["The", "framework."]], 140.0, 12.0, "Times"),
                block(&[&["More", "text."]], 160.0, 10.0, "Times"),
                block(&[&["Jane", "Doe"]], 180.0, 10.0, "Times"),
            ],
            ..Default::default()
        };
        let doc = Document { pages: vec![page] };
        let (_, refs) = document_lines(&doc);
        let labels: Vec<String> = [
            "I-<header>",
            "I-<body>",
            "I-<header>",
            "<header>",
            "I-<body>",
            "I-<header>",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut z = decode(&refs, &Labels::from_names(&labels)).unwrap();
        z.late_captions_to_body(&doc);
        // The caption and its line join the body; the front matter and a later header run
        // that is no caption stay header.
        assert_eq!(z.lines(Label::Body).len(), 4, "{z:?}");
        assert_eq!(z.lines(Label::Header), vec![refs[0], refs[5]]);
    }

    #[test]
    fn an_annex_holding_the_discussion_is_body() {
        let page = Page {
            number: 1,
            width: 612.0,
            height: 792.0,
            blocks: vec![
                block(&[&["Results"]], 80.0, 10.0, "Times-Bold"),
                block(&[&["We", "found", "things."]], 100.0, 10.0, "Times"),
                block(&[&["5.", "Discussion"]], 120.0, 10.0, "Times-Bold"),
                block(&[&["The", "things", "matter."]], 140.0, 10.0, "Times"),
                block(&[&["Appendix", "A"]], 160.0, 10.0, "Times-Bold"),
                block(&[&["Extra", "tables."]], 180.0, 10.0, "Times"),
            ],
            ..Default::default()
        };
        let doc = Document { pages: vec![page] };
        let (_, refs) = document_lines(&doc);
        let labels = |l: [&str; 6]| -> Vec<String> { l.iter().map(|s| s.to_string()).collect() };
        // The annex run that holds `5. Discussion` joins the body; a later annex run without
        // a body head stays annex.
        let mut z = decode(
            &refs,
            &Labels::from_names(labels([
                "I-<body>",
                "<body>",
                "I-<annex>",
                "<annex>",
                "I-<acknowledgement>",
                "I-<annex>",
            ])),
        )
        .unwrap();
        z.annex_with_body_heads_to_body(&doc);
        assert_eq!(z.lines(Label::Body).len(), 4, "{z:?}");
        assert_eq!(z.lines(Label::Annex).len(), 1, "{z:?}");
        assert_eq!(z.pieces[0].0, Label::Body);
        assert_eq!(z.pieces[0].1.len(), 4);
        // An appendix alone stays annex.
        let mut z = decode(
            &refs,
            &Labels::from_names(labels([
                "I-<body>",
                "<body>",
                "<body>",
                "<body>",
                "I-<annex>",
                "<annex>",
            ])),
        )
        .unwrap();
        z.annex_with_body_heads_to_body(&doc);
        assert_eq!(z.lines(Label::Annex).len(), 2, "{z:?}");
    }

    #[test]
    fn header_runs_far_from_the_front_matter_are_late() {
        let at = |page: usize, block: usize| LineRef {
            page,
            block,
            line: 0,
        };
        let run = |label: Label, page: usize, n: usize| -> (Label, Vec<LineRef>) {
            (label, (0..n).map(|b| at(page, b)).collect())
        };
        // Front matter on page 0, 120 body lines, a header run on page 9, then body.
        let z = Zones {
            pieces: vec![
                run(Label::Header, 0, 10),
                run(Label::Body, 1, 120),
                run(Label::Header, 9, 2),
                run(Label::Body, 9, 5),
            ],
        };
        let late = z.late_header_lines(100);
        assert_eq!(late, [at(9, 0), at(9, 1)].into_iter().collect());
        // With fewer body lines between, the second run is the front matter continued.
        assert!(z.late_header_lines(200).is_empty());
    }

    #[test]
    fn decode_groups_consecutive_lines() {
        let refs: Vec<LineRef> = (0..4)
            .map(|i| LineRef {
                page: 0,
                block: i,
                line: 0,
            })
            .collect();
        let labels: Vec<String> = ["I-<header>", "<header>", "I-<body>", "<header>"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let z = decode(&refs, &Labels::from_names(&labels)).unwrap();
        assert_eq!(z.pieces.len(), 3);
        assert_eq!(z.lines(Label::Header).len(), 3);
        assert!(decode(&refs[..1], &Labels::from_names(&labels)).is_err());
    }
}
