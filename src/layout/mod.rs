/*!
The layout document: what a PDF looks like to the models. Pages (numbered from 1, sizes in PDF
units, origin top-left) hold blocks, blocks hold lines, lines hold tokens. Tokens are GROBID
tokens (the tokenizer's sub-tokens of a word), each with its box and font attributes; the
whitespace GROBID keeps between tokens is carried by `Token::space_after` and by line and block
ends, so the GROBID token stream (`" "`, `"\n"`) can be rebuilt exactly.

pdfium runs only in worker processes (see the `quire worker` mode); this module holds the types
they send back, which are serialisable both compactly (postcard) and as JSON (`quire layout`).
*/

pub mod build;
pub mod pdfium;
pub mod render;
pub mod symbol;
pub mod tokens;
pub mod worker;

pub use build::Limits;

use serde::{Deserialize, Serialize};

/// An axis-aligned box, origin top-left, y downwards, in PDF units.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct BBox {
    pub x: f32,
    pub y: f32,
    pub w: f32,
    pub h: f32,
}

impl BBox {
    pub fn right(&self) -> f32 {
        self.x + self.w
    }
    pub fn bottom(&self) -> f32 {
        self.y + self.h
    }
    /// The smallest box holding both.
    pub fn union(&self, o: &BBox) -> BBox {
        let x = self.x.min(o.x);
        let y = self.y.min(o.y);
        BBox {
            x,
            y,
            w: self.right().max(o.right()) - x,
            h: self.bottom().max(o.bottom()) - y,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Token {
    pub text: String,
    pub bbox: BBox,
    /// Font name from the font's `/BaseFont` (e.g. `NimbusRomNo9L-ReguItal`, `CMMI10`,
    /// `Helvetica-Bold`). pdfium drops the subset prefix (`ABCDEF+`) that pdfalto keeps, and
    /// pdfalto lower-cases; GROBID lower-cases on reading and only compares names for equality,
    /// so features match except where one PDF embeds two subsets of one font.
    pub font: String,
    pub font_size: f32,
    pub bold: bool,
    pub italic: bool,
    pub superscript: bool,
    pub subscript: bool,
    /// RGB colour, `0xRRGGBB`.
    pub color: u32,
    /// Rotation in degrees, counter-clockwise as displayed (0 = upright, 90 = reading upwards).
    pub rotation: f32,
    /// GROBID's token stream has a `" "` after this token: between words, and also after a
    /// line's last word unless it ends with `-` (pdfalto-fed GROBID appends a space after every
    /// `String`, so a line reads `w1 " " w2 " " "\n"` but `exam-` `"\n"`).
    pub space_after: bool,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Line {
    pub bbox: BBox,
    pub tokens: Vec<Token>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Block {
    pub bbox: BBox,
    pub lines: Vec<Line>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Link {
    pub bbox: BBox,
    pub uri: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Page {
    /// Page number, first page is 1.
    pub number: u32,
    pub width: f32,
    pub height: f32,
    pub blocks: Vec<Block>,
    /// Bitmap images drawn on the page.
    pub images: Vec<BBox>,
    /// Vector graphics (paths) drawn on the page.
    pub vectors: Vec<BBox>,
    pub links: Vec<Link>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Document {
    pub pages: Vec<Page>,
}

impl Document {
    pub fn blocks(&self) -> impl Iterator<Item = &Block> {
        self.pages.iter().flat_map(|p| p.blocks.iter())
    }
    pub fn token_count(&self) -> usize {
        self.blocks()
            .flat_map(|b| b.lines.iter())
            .map(|l| l.tokens.len())
            .sum()
    }
    pub fn block_count(&self) -> usize {
        self.pages.iter().map(|p| p.blocks.len()).sum()
    }
}

/// Which pages to lay out: first page is 1; `None` means unbounded (GROBID's -1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PageRange {
    pub start: Option<u32>,
    pub end: Option<u32>,
}

impl PageRange {
    /// From GROBID's `start`/`end` parameters, where values below 1 mean unbounded.
    pub fn from_grobid(start: i64, end: i64) -> Self {
        let f = |v: i64| if v >= 1 { Some(v as u32) } else { None };
        PageRange {
            start: f(start),
            end: f(end),
        }
    }
    pub fn contains(&self, page: u32) -> bool {
        self.start.is_none_or(|s| page >= s) && self.end.is_none_or(|e| page <= e)
    }
}

/// Lay out `pdf` in this process: pdfium extraction, then lines, blocks and tokens, checked
/// against `limits`. The service calls this only inside worker processes (`quire worker`);
/// tests and the `quire layout` debug command call it directly.
pub fn layout_pdf(
    pdf: &[u8],
    range: PageRange,
    limits: Limits,
    pdfium_lib: Option<&std::path::Path>,
) -> crate::Result<Document> {
    let lib = pdfium::Pdfium::get(pdfium_lib)?;
    let raw = lib.extract(pdf, range)?;
    build::build_document(&raw, limits)
}

/// One item of GROBID's layout-token stream (grobid-models.md §1.2, §6.1): a token, or the
/// `" "` after it, or the `"\n"` that ends a line or a block.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StreamItem<'a> {
    pub text: &'a str,
    /// The layout token; `None` for the whitespace GROBID inserts (no font, size 0).
    pub token: Option<&'a Token>,
    /// Page number (from 1).
    pub page: u32,
    /// Index of the block in the whole document.
    pub block: usize,
}

impl Document {
    /// The document as GROBID's token list: for each block, each line's tokens with a `" "`
    /// after every token whose `space_after` is set, a `"\n"` at the end of each line and
    /// another `"\n"` at the end of the block.
    pub fn grobid_stream(&self) -> Vec<StreamItem<'_>> {
        let mut out = Vec::with_capacity(self.token_count() * 2);
        let mut block = 0;
        for page in &self.pages {
            for b in &page.blocks {
                let item = |text, token| StreamItem {
                    text,
                    token,
                    page: page.number,
                    block,
                };
                for line in &b.lines {
                    for t in &line.tokens {
                        out.push(item(t.text.as_str(), Some(t)));
                        if t.space_after {
                            out.push(item(" ", None));
                        }
                    }
                    out.push(item("\n", None));
                }
                out.push(item("\n", None));
                block += 1;
            }
        }
        out
    }
}

impl Line {
    /// The line's text as GROBID's token stream spells it: tokens, a space after each spaced
    /// token, and a trailing space unless the line ends with a hyphen (pdfalto-fed GROBID puts
    /// a `" "` after every word but a line-final `exam-`).
    pub fn text(&self) -> String {
        // Sized once: at most each token and a space.
        let mut s = String::with_capacity(self.tokens.iter().map(|t| t.text.len() + 1).sum());
        for (i, t) in self.tokens.iter().enumerate() {
            s.push_str(&t.text);
            let last = i + 1 == self.tokens.len();
            if (t.space_after && !last) || (last && !t.text.ends_with('-')) {
                s.push(' ');
            }
        }
        s
    }
}

/// Where a line is in a [`Document`]: page index (into `pages`), block index in the page,
/// line index in the block. Model rows and decoded spans point back at the layout with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LineRef {
    pub page: usize,
    pub block: usize,
    pub line: usize,
}

/// What follows a token in the text: nothing, a space, or a line end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sep {
    None,
    Space,
    Newline,
}

/// One token of a zone as a layout model sees it: the line it is on, its index in the
/// line's `tokens`, and what follows it. A model's `document_tokens` gives these beside the
/// feature facts, and decoded [`Span`]s index them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZoneToken {
    pub line: LineRef,
    pub index: usize,
    pub sep: Sep,
}

/// A labelled run of a model's token sequence: `tokens` indexes the sequence the model
/// labelled (for the layout models, the zone tokens that the model's `document_tokens` gives),
/// so text, de-hyphenation and coordinates are all derived from the tokens it covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span<L> {
    pub label: L,
    pub tokens: std::ops::Range<usize>,
}

impl Document {
    /// The line `r` points at, if it exists.
    pub fn line(&self, r: &LineRef) -> Option<&Line> {
        self.pages
            .get(r.page)?
            .blocks
            .get(r.block)?
            .lines
            .get(r.line)
    }

    /// Token `index` of the line `r` points at, with its page number (from 1).
    pub fn token(&self, r: &LineRef, index: usize) -> Option<(u32, &Token)> {
        let page = self.pages.get(r.page)?;
        let token = self.line(r)?.tokens.get(index)?;
        Some((page.number, token))
    }
}

impl Block {
    /// All tokens of the block in order.
    pub fn tokens(&self) -> impl Iterator<Item = &Token> {
        self.lines.iter().flat_map(|l| l.tokens.iter())
    }
}

#[cfg(test)]
mod tests;
