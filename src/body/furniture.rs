//! Section spans that cannot be heads by their typesetting: text set smaller than the body text
//! (table cells, figure labels), text rotated into the margin, running heads or feet, and a
//! page number or year alone in a page's top or bottom band.
//!
//! A journal sets its section heads upright and at least at the size of its body text; a line
//! that recurs in the top or bottom margin band of many pages is page furniture (running head,
//! journal name, page footer), which GROBID's segmentation leaves out of the body. The fulltext
//! model sometimes labels such text `<section>`; these checks read it as text instead.

use std::collections::{HashMap, HashSet};

use crate::layout::{Document, LineRef, Span, Token, ZoneToken};
use crate::models::fulltext::Label;

/// A head smaller than this share of the body text size is no head.
const MIN_HEAD_SIZE_RATIO: f32 = 0.85;
/// The top and bottom bands of a page where running heads and feet sit (share of its height).
const MARGIN_BAND: f32 = 0.12;

/// What the document's typesetting says about heads: its body text size and its running lines.
#[derive(Debug, Default)]
pub struct HeadCheck {
    /// The most common font size of the zone's paragraph words (0 when there are none).
    body_size: f32,
    /// Normalised texts of lines that recur in the margin bands of many pages.
    running: HashSet<String>,
}

/// A line's text for recurrence: lower-case letters only (page numbers and volume figures
/// change from page to page).
fn running_key(tokens: &[Token]) -> String {
    tokens
        .iter()
        .flat_map(|t| t.text.chars())
        .filter(|c| c.is_alphabetic())
        .flat_map(char::to_lowercase)
        .collect()
}

fn wordy(t: &Token) -> bool {
    t.text.chars().any(char::is_alphanumeric)
}

impl HeadCheck {
    /// The body text size (that of the zone's paragraph spans, or of all `tokens` when it has
    /// none) and the running lines of the whole document. Large tables in small type make
    /// the zone's most common size theirs; its paragraphs keep the body size.
    pub fn new(doc: &Document, tokens: &[ZoneToken], spans: &[Span<Label>]) -> Self {
        let paragraphs: Vec<&ZoneToken> = spans
            .iter()
            .filter(|s| s.label == Label::Paragraph)
            .filter_map(|s| tokens.get(s.tokens.clone()))
            .flatten()
            .collect();
        let sample: Vec<&ZoneToken> = if paragraphs.is_empty() {
            tokens.iter().collect()
        } else {
            paragraphs
        };
        // Sizes counted in half points.
        let mut sizes: HashMap<i32, usize> = HashMap::new();
        for (_, t) in sample.iter().filter_map(|z| doc.token(&z.line, z.index)) {
            if wordy(t) {
                *sizes.entry((t.font_size * 2.0).round() as i32).or_default() += 1;
            }
        }
        let body_size = sizes
            .into_iter()
            .max_by_key(|&(size, n)| (n, size))
            .map_or(0.0, |(size, _)| size as f32 / 2.0);
        HeadCheck {
            body_size,
            running: running_lines(doc),
        }
    }

    /// The most common font size of the zone's paragraph words (0 when there are none).
    pub fn body_size(&self) -> f32 {
        self.body_size
    }

    /// How many tokens at the start of `toks` lie on running lines (a running head that the
    /// model read into the paragraph after it).
    pub fn running_prefix(&self, doc: &Document, toks: &[ZoneToken]) -> usize {
        toks.iter()
            .take_while(|z| {
                doc.line(&z.line)
                    .is_some_and(|l| self.running.contains(&running_key(&l.tokens)))
            })
            .count()
    }

    /// Whether `toks`, labelled `<section>`, is text that cannot be a head.
    pub fn not_a_head(&self, doc: &Document, toks: &[ZoneToken]) -> bool {
        let words: Vec<&Token> = toks
            .iter()
            .filter_map(|z| doc.token(&z.line, z.index).map(|(_, t)| t))
            .filter(|t| wordy(t))
            .collect();
        if words.is_empty() {
            return false;
        }
        let rotated = words.iter().all(|t| t.rotation.abs() > 1.0);
        let size = words.iter().map(|t| t.font_size).fold(0.0, f32::max);
        let small = size < MIN_HEAD_SIZE_RATIO * self.body_size;
        let mut lines: Vec<&LineRef> = toks.iter().map(|z| &z.line).collect();
        lines.dedup();
        let is_running = |r: &&LineRef| {
            doc.line(r)
                .is_some_and(|l| self.running.contains(&running_key(&l.tokens)))
        };
        // A running line with the page's printed number beside it (`Journal Press 1451`, the
        // journal's own pagination on a line of its own in the same band) is furniture too.
        let number_in_band = |r: &&LineRef| {
            doc.line(r).is_some_and(|line| {
                line.tokens
                    .iter()
                    .all(|t| !t.text.is_empty() && t.text.chars().all(|c| c.is_ascii_digit()))
            }) && in_margin_band(doc, r)
        };
        let running = lines.iter().any(is_running)
            && lines.iter().all(|r| is_running(r) || number_in_band(r));
        // The page's own number or a year alone in its top or bottom band (`6`, `2021` of a
        // running head the layout set on a line of its own); a section number (`3`, `2.1`) at
        // a page's top stays a head.
        let text: String = words.iter().map(|t| t.text.as_str()).collect();
        let numeric_margin = text.chars().all(|c| c.is_ascii_digit())
            && lines.iter().all(|r| {
                let year = text.len() == 4 && (text.starts_with("19") || text.starts_with("20"));
                in_margin_band(doc, r) && (year || text == (r.page + 1).to_string())
            });
        rotated || small || running || numeric_margin
    }
}

/// Whether every token of line `r` lies in its page's top or bottom band (false for a line
/// that does not exist).
fn in_margin_band(doc: &Document, r: &LineRef) -> bool {
    let (Some(page), Some(line)) = (doc.pages.get(r.page), doc.line(r)) else {
        return false;
    };
    line.tokens.iter().all(|t| {
        t.bbox.y + t.bbox.h < MARGIN_BAND * page.height
            || t.bbox.y > (1.0 - MARGIN_BAND) * page.height
    })
}

/// Texts of lines that sit in the top or bottom band of at least a third of the pages (and of
/// two at least), as a running head or foot does.
fn running_lines(doc: &Document) -> HashSet<String> {
    let mut pages_of: HashMap<String, HashSet<usize>> = HashMap::new();
    for (pi, page) in doc.pages.iter().enumerate() {
        let h = page.height;
        for line in page.blocks.iter().flat_map(|b| &b.lines) {
            let top = line
                .tokens
                .iter()
                .map(|t| t.bbox.y)
                .fold(f32::INFINITY, f32::min);
            let bottom = line
                .tokens
                .iter()
                .map(|t| t.bbox.y + t.bbox.h)
                .fold(0.0, f32::max);
            if h <= 0.0 || (top > MARGIN_BAND * h && bottom < (1.0 - MARGIN_BAND) * h) {
                continue;
            }
            let key = running_key(&line.tokens);
            if !key.is_empty() {
                pages_of.entry(key).or_default().insert(pi);
            }
        }
    }
    let need = doc.pages.len().div_ceil(3).max(2);
    pages_of
        .into_iter()
        .filter(|(_, pages)| pages.len() >= need)
        .map(|(key, _)| key)
        .collect()
}
