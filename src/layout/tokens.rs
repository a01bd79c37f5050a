//! The layout tokens of a document as the layout models read them, computed once per document
//! ([`LayoutTokens::new`]) and shared by the header, fulltext and reference-segmenter features
//! and by `createTraining`.
//!
//! A layout model gives a feature row to every token of a line whose text, whitespace removed,
//! is not empty and is not one of pdfalto's `@IMAGE`/`@PAGE` markers (GROBID reads the same
//! rows from pdfalto's output). For each such token this sequence holds what every model
//! derives from it alike: the row text, where it stands in its line, and its font (lower-cased
//! name, interned, and integer size). What depends on a model's zone (indentation, font
//! changes, positions in the zone) the model computes from these while it walks its lines.

use std::collections::HashMap;
use std::ops::Range;

use super::{Document, LineRef, Sep, Token};

/// A lower-cased font name, interned per document: two tokens have the same id exactly when
/// their font names are equal once lower-cased (GROBID lower-cases names and only compares
/// them for equality).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FontId(u32);

impl FontId {
    /// The id of a document's `n`th distinct font, for tests that build tokens by hand.
    #[cfg(test)]
    pub(crate) fn nth(n: u32) -> FontId {
        FontId(n)
    }
}

/// One token of a line that the layout models give a feature row.
#[derive(Debug, Clone, PartialEq)]
pub struct LayoutToken {
    /// Its index in the line's `tokens`.
    pub index: usize,
    /// The row text: the token's text with whitespace removed (never empty).
    pub text: String,
    /// The line's first row token.
    pub first: bool,
    /// The line's last row token.
    pub last: bool,
    /// Only blank tokens follow it in its line. This differs from `last` only where a marker
    /// token (`@IMAGE`, `@PAGE`) follows: the header's line end stops at it, the other models'
    /// does not.
    pub blank_after: bool,
    /// What follows it in the models' token stream: a line end after the line's last row token,
    /// else the token's own space (or none).
    pub sep: Sep,
    pub font: FontId,
    /// The font size, truncated to an integer (GROBID compares integer sizes).
    pub size: i64,
}

/// Every row token of a document, line by line.
#[derive(Debug, Clone, Default)]
pub struct LayoutTokens {
    tokens: Vec<LayoutToken>,
    /// Per page, per block: the block's lines, as a range of `lines`.
    blocks: Vec<Vec<Range<usize>>>,
    /// Per line of the document, in order: its range in `tokens`.
    lines: Vec<Range<usize>>,
    fonts: Vec<String>,
}

/// A layout token's text as a feature row's: whitespace removed; `None` when nothing is left
/// or it is one of pdfalto's `@IMAGE`/`@PAGE` markers.
pub fn row_text(text: &str) -> Option<String> {
    // Most tokens hold no whitespace: copied whole rather than char by char.
    let s: String = if text.contains(char::is_whitespace) {
        text.chars().filter(|c| !c.is_whitespace()).collect()
    } else {
        text.to_owned()
    };
    (!s.is_empty() && !s.contains("@IMAGE") && !s.contains("@PAGE")).then_some(s)
}

/// The font ids given so far, by lower-cased name, and the last token's font as written.
#[derive(Default)]
struct Fonts<'d> {
    ids: HashMap<String, FontId>,
    last: Option<(&'d str, FontId)>,
}

impl LayoutTokens {
    pub fn new(doc: &Document) -> LayoutTokens {
        let mut out = LayoutTokens::default();
        let mut fonts = Fonts::default();
        for page in &doc.pages {
            let mut blocks = Vec::with_capacity(page.blocks.len());
            for block in &page.blocks {
                let first_line = out.lines.len();
                for line in &block.lines {
                    let start = out.tokens.len();
                    out.push_line(&line.tokens, &mut fonts);
                    out.lines.push(start..out.tokens.len());
                }
                blocks.push(first_line..out.lines.len());
            }
            out.blocks.push(blocks);
        }
        out
    }

    fn push_line<'d>(&mut self, tokens: &'d [Token], fonts: &mut Fonts<'d>) {
        let start = self.tokens.len();
        // Index of the last non-blank token of the line (markers included).
        let last_nonblank = tokens.iter().rposition(|t| !t.text.trim().is_empty());
        for (i, t) in tokens.iter().enumerate() {
            let Some(text) = row_text(&t.text) else {
                continue;
            };
            let font = match fonts.last {
                // A token in the font of the one before (most of them): its id again.
                Some((name, id)) if name == t.font => id,
                _ => {
                    let next = FontId(fonts.ids.len() as u32);
                    let id = *fonts
                        .ids
                        .entry(t.font.to_lowercase())
                        .or_insert_with_key(|name| {
                            self.fonts.push(name.clone());
                            next
                        });
                    fonts.last = Some((&t.font, id));
                    id
                }
            };
            self.tokens.push(LayoutToken {
                index: i,
                text,
                first: self.tokens.len() == start,
                last: false,
                blank_after: last_nonblank.is_none_or(|j| j <= i),
                sep: if t.space_after { Sep::Space } else { Sep::None },
                font,
                size: t.font_size as i64,
            });
        }
        if let Some(last) = self.tokens[start..].last_mut() {
            last.last = true;
            last.sep = Sep::Newline;
        }
    }

    /// The row tokens of line `r`, in order (empty for a line without any, or one that does
    /// not exist).
    pub fn line(&self, r: &LineRef) -> &[LayoutToken] {
        let Some(lines) = self.blocks.get(r.page).and_then(|b| b.get(r.block)) else {
            return &[];
        };
        match lines.clone().nth(r.line) {
            Some(i) => &self.tokens[self.lines[i].clone()],
            None => &[],
        }
    }

    /// The lower-cased font name of `id`.
    pub fn font(&self, id: FontId) -> &str {
        &self.fonts[id.0 as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::{BBox, Block, Line, Page};

    fn token(text: &str, font: &str, space_after: bool) -> Token {
        Token {
            text: text.into(),
            bbox: BBox::default(),
            font: font.into(),
            font_size: 9.7,
            bold: false,
            italic: false,
            superscript: false,
            subscript: false,
            color: 0,
            rotation: 0.0,
            space_after,
        }
    }

    fn line(tokens: Vec<Token>) -> Line {
        Line {
            bbox: BBox::default(),
            tokens,
        }
    }

    #[test]
    fn row_tokens_keep_their_index_place_in_the_line_and_font() {
        let doc = Document {
            pages: vec![
                Page {
                    number: 1,
                    blocks: vec![
                        Block {
                            lines: vec![
                                line(vec![
                                    token(" ", "Times", false),
                                    token("Deep", "Times-Bold", true),
                                    token("nets", "TIMES-BOLD", false),
                                    token(" ", "Times", false),
                                ]),
                                line(vec![token("  ", "Times", false)]),
                            ],
                            ..Default::default()
                        },
                        Block {
                            lines: vec![line(vec![
                                token("a", "Arial", true),
                                token("@IMAGE", "Arial", true),
                            ])],
                            ..Default::default()
                        },
                    ],
                    ..Default::default()
                },
                Page {
                    number: 2,
                    blocks: vec![Block {
                        lines: vec![
                            line(vec![token("b", "Arial", false)]),
                            line(vec![
                                token("c", "times-Bold", true),
                                token("d", "Arial", true),
                                token("e", "Courier", false),
                            ]),
                        ],
                        ..Default::default()
                    }],
                    ..Default::default()
                },
            ],
        };
        let toks = LayoutTokens::new(&doc);
        let at = |page, block, line| LineRef { page, block, line };
        let first = toks.line(&at(0, 0, 0));
        let got: Vec<_> = first
            .iter()
            .map(|t| {
                (
                    t.index,
                    t.text.as_str(),
                    t.first,
                    t.last,
                    t.blank_after,
                    t.sep,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (1, "Deep", true, false, false, Sep::Space),
                (2, "nets", false, true, true, Sep::Newline)
            ]
        );
        // Fonts are compared lower-cased, sizes as integers.
        assert_eq!(first[0].font, first[1].font);
        assert_eq!(toks.font(first[0].font), "times-bold");
        assert_eq!(first[0].size, 9);
        assert!(toks.line(&at(0, 0, 1)).is_empty());
        // A marker gets no row but still ends the header's line later than `last` does.
        let marked = toks.line(&at(0, 1, 0));
        assert_eq!(marked.len(), 1);
        assert!(marked[0].last && !marked[0].blank_after);
        assert_eq!(toks.line(&at(1, 0, 0))[0].text, "b");
        // A font met again keeps its id; ids count the fonts in order of first use.
        let arial = marked[0].font;
        let back: Vec<_> = toks.line(&at(1, 0, 1)).iter().map(|t| t.font).collect();
        assert_eq!(back[..2], [first[0].font, arial]);
        assert_eq!(
            [first[0].font.0, arial.0, back[2].0],
            [0, 1, 2],
            "{:?}",
            toks.fonts
        );
        assert_eq!(toks.fonts, ["times-bold", "arial", "courier"]);
        // Lines and blocks that do not exist have no tokens.
        assert!(toks.line(&at(0, 0, 2)).is_empty());
        assert!(toks.line(&at(0, 2, 0)).is_empty());
        assert!(toks.line(&at(2, 0, 0)).is_empty());
    }
}
