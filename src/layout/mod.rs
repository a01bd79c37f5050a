/*!
The layout document: what a PDF looks like to the models. Pages (numbered from 1, sizes in PDF
units, origin top-left) hold blocks, blocks hold lines, lines hold tokens. Tokens are GROBID
tokens (the tokenizer's sub-tokens of a word), each with its box and font attributes; the
whitespace GROBID keeps between tokens is carried by `Token::space_after` and by line and block
ends, so the GROBID token stream (`" "`, `"\n"`) can be rebuilt exactly.

pdfium runs only in worker processes (see the `quire worker` mode); this module holds the types
they send back, which are serialisable both compactly (postcard) and as JSON (`quire layout`).
*/

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
    /// Full font name, subset prefix (`ABCDEF+`) removed.
    pub font: String,
    pub font_size: f32,
    pub bold: bool,
    pub italic: bool,
    pub superscript: bool,
    pub subscript: bool,
    /// RGB colour, `0xRRGGBB`.
    pub color: u32,
    /// Rotation in degrees (0 = upright).
    pub rotation: f32,
    /// A space separates this token from the next one on the same line.
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
