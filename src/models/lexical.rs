/*!
The lexical columns the layout models compute from a token's text, over the shared token
features (`crate::features`) and lexicons (`crate::lexicon`): one place, so that training
(rows rebuilt from GROBID's raw files) and tagging (rows from a PDF) compute them with the
same code and the same lexicons. Also the layout columns' shared values (`Pos`,
`SizeChange`) and the states a layout model tracks over its zone ([`Indentation`],
[`FontChanges`]).
*/

use crate::features::Tok;
pub use crate::features::{
    capitalisation, digit, flag as bit, linear_scaling, prefix, punct_type, suffix,
};
use crate::layout::tokens::{FontId, LayoutToken};
use crate::layout::Token;
use crate::lexicon::{Kind, LexView};

/// GROBID's year feature: four digits starting with 1 or 2 anywhere in the token.
pub fn year(s: &str) -> bool {
    crate::features::is_year(s)
}

/// GROBID's month feature (full names and three-letter abbreviations).
pub fn month(s: &str) -> bool {
    crate::features::is_month(s)
}

/// The whole string is an e-mail address.
pub fn email(s: &str) -> bool {
    crate::features::is_email(s)
}

/// The token mentions `http`.
pub fn http(s: &str) -> bool {
    s.contains("http")
}

/// The lower-cased token is a known first name or surname.
pub fn proper_name(s: &str, lex: &LexView<'_>) -> bool {
    lex.has_word(Kind::FirstName, s) || lex.has_word(Kind::LastName, s)
}

/// The token (one trailing `.,:;` removed) is a dictionary word; hyphenated: both parts.
pub fn common_word(s: &str, lex: &LexView<'_>) -> bool {
    let t = s.trim_end_matches(['.', ',', ':', ';']);
    if t.contains('-') {
        let parts: Vec<&str> = t.split('-').collect();
        return parts.len() > 1
            && parts
                .iter()
                .all(|p| !p.is_empty() && lex.has_word(Kind::CommonWord, p));
    }
    lex.has_word(Kind::CommonWord, s)
}

/// Per token: inside a match of the location gazetteer over the token sequence.
pub fn locations(tokens: &[&str], lex: &LexView<'_>) -> Vec<bool> {
    let toks: Vec<Tok> = tokens.iter().map(|t| Tok::new(*t)).collect();
    lex.flags(Kind::Location, &toks)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(x: f32, w: f32) -> Token {
        Token {
            text: "ab".into(),
            bbox: crate::layout::BBox {
                x,
                y: 0.0,
                w,
                h: 10.0,
            },
            ..Default::default()
        }
    }

    #[test]
    fn indentation_moves_by_more_than_a_character_width_and_keeps_its_state() {
        let mut ind = Indentation::default();
        ind.line_start(&at(10.0, 8.0), "ab", true); // no line before: aligned
        assert!(!ind.indented());
        ind.line_start(&at(14.5, 8.0), "ab", true); // 4.5 right of 10, width 4 per character
        assert!(ind.indented());
        ind.line_start(&at(13.0, 8.0), "ab", true); // 1.5 left: within a width, state kept
        assert!(ind.indented());
        ind.line_start(&at(8.0, 8.0), "ab", true); // 5 left of 13
        assert!(!ind.indented());
        // Without comparing, the start is still remembered for the next line.
        ind.line_start(&at(30.0, 8.0), "ab", false);
        assert!(!ind.indented());
        ind.line_start(&at(35.0, 8.0), "ab", true);
        assert!(ind.indented());
    }

    #[test]
    fn font_changes_compare_each_token_with_the_one_before() {
        let doc = crate::layout::Document {
            pages: vec![crate::layout::Page {
                blocks: vec![crate::layout::Block {
                    lines: vec![crate::layout::Line {
                        tokens: [
                            ("A", "Times", 9.6),
                            ("b", "TIMES", 9.2),
                            ("c", "Arial", 12.0),
                        ]
                        .map(|(text, font, font_size)| Token {
                            text: text.into(),
                            font: font.into(),
                            font_size,
                            ..Default::default()
                        })
                        .to_vec(),
                        ..Default::default()
                    }],
                    ..Default::default()
                }],
                ..Default::default()
            }],
        };
        let toks = crate::layout::tokens::LayoutTokens::new(&doc);
        let line = toks.line(&crate::layout::LineRef {
            page: 0,
            block: 0,
            line: 0,
        });
        let mut fonts = FontChanges::default();
        let got: Vec<_> = line.iter().map(|t| fonts.next(t)).collect();
        assert_eq!(
            got,
            [
                (true, SizeChange::Higher),
                (false, SizeChange::Same),
                (true, SizeChange::Higher)
            ]
        );
    }

    #[test]
    fn layout_models_see_grobid_lexical_values() {
        assert_eq!(capitalisation("2019"), "NOCAPS");
        assert_eq!(capitalisation(","), "ALLCAP");
        assert!(year("x1999"));
        assert!(month("May"));
        assert!(email("jane.doe@example.org"));
        assert!(http("https://x"));
        let lex = crate::lexicon::Lexicons::default();
        let view = LexView::new(&lex);
        assert!(!proper_name("Smith", &view));
        assert!(!common_word("the", &view));
        assert_eq!(locations(&["Paris"], &view), vec![false]);
    }
}

/// Where a token or line sits in its line, block or page: the `…START` / `…IN` / `…END`
/// values of GROBID's layout columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pos {
    Start,
    In,
    End,
}

impl Pos {
    /// Parse a column value against the three spellings `[start, in, end]`.
    pub fn parse(s: &str, names: [&str; 3]) -> Option<Pos> {
        [Pos::Start, Pos::In, Pos::End]
            .into_iter()
            .zip(names)
            .find(|(_, n)| *n == s)
            .map(|(p, _)| p)
    }

    /// The column value among `[start, in, end]`.
    pub fn as_str(self, names: [&'static str; 3]) -> &'static str {
        match self {
            Pos::Start => names[0],
            Pos::In => names[1],
            Pos::End => names[2],
        }
    }
}

/// A font size against the one before it: the `HIGHERFONT` / `SAMEFONTSIZE` / `LOWERFONT`
/// values of GROBID's size columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeChange {
    Higher,
    Same,
    Lower,
}

impl SizeChange {
    pub fn as_str(self) -> &'static str {
        match self {
            SizeChange::Higher => "HIGHERFONT",
            SizeChange::Same => "SAMEFONTSIZE",
            SizeChange::Lower => "LOWERFONT",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "HIGHERFONT" => SizeChange::Higher,
            "SAMEFONTSIZE" => SizeChange::Same,
            "LOWERFONT" => SizeChange::Lower,
            _ => return None,
        })
    }
    /// A token's or line's (integer) size against the one before it (`None`: the first).
    pub fn between(prev: Option<i64>, cur: i64) -> Self {
        match prev {
            None => SizeChange::Higher,
            Some(p) if cur > p => SizeChange::Higher,
            Some(p) if cur < p => SizeChange::Lower,
            Some(_) => SizeChange::Same,
        }
    }
}

/// Indentation as GROBID tracks it while a model walks its zone line by line: a line whose
/// first row token starts more than one character width (that token's width over its
/// characters) right of the previous line's start is indented, one that starts more than a
/// width left of it is aligned, and otherwise the line keeps the state of the line before.
#[derive(Debug, Clone, Copy, Default)]
pub struct Indentation {
    prev_start: Option<f32>,
    indented: bool,
}

impl Indentation {
    /// At the first row token `t` (row text `text`) of a line: compare its start with the
    /// previous line's when `compare`, then remember it.
    pub fn line_start(&mut self, t: &Token, text: &str, compare: bool) {
        if compare {
            if let Some(p) = self.prev_start {
                let cw = t.bbox.w / text.chars().count().max(1) as f32;
                if t.bbox.x - p > cw {
                    self.indented = true;
                } else if p - t.bbox.x > cw {
                    self.indented = false;
                }
            }
        }
        self.prev_start = Some(t.bbox.x);
    }

    /// The state of the current line.
    pub fn indented(&self) -> bool {
        self.indented
    }
}

/// Font changes between consecutive row tokens of a zone: a new font name (lower-cased), and
/// the integer size against the previous token's (the zone's first token: higher).
#[derive(Debug, Clone, Copy, Default)]
pub struct FontChanges {
    prev: Option<(FontId, i64)>,
}

impl FontChanges {
    /// `(new font, size change)` of `t` against the token before it, which `t` then becomes.
    pub fn next(&mut self, t: &LayoutToken) -> (bool, SizeChange) {
        let change = (
            self.prev.map(|p| p.0) != Some(t.font),
            SizeChange::between(self.prev.map(|p| p.1), t.size),
        );
        self.prev = Some((t.font, t.size));
        change
    }
}

/// The spellings of a line-status column.
pub const LINE_POS: [&str; 3] = ["LINESTART", "LINEIN", "LINEEND"];
/// The spellings of a block-status column.
pub const BLOCK_POS: [&str; 3] = ["BLOCKSTART", "BLOCKIN", "BLOCKEND"];
/// The spellings of a page-status column.
pub const PAGE_POS: [&str; 3] = ["PAGESTART", "PAGEIN", "PAGEEND"];

/// The alignment column: `LINEINDENT` for an indented line start, else `ALIGNEDLEFT`.
pub fn alignment(indented: bool) -> &'static str {
    if indented {
        "LINEINDENT"
    } else {
        "ALIGNEDLEFT"
    }
}

/// A `0`/`1` column of a raw feature row.
pub fn parse_bool(s: &str) -> Option<bool> {
    match s {
        "1" => Some(true),
        "0" => Some(false),
        _ => None,
    }
}

/// Words that open a caption, lower-cased, and whether they name a table: English, and the
/// words of Portuguese, Spanish, Italian, French and German papers (`Figura 1`, `Gráfico 2`,
/// `Tabela 3`, `Cuadro 1`, `Abb. 4`). `Quadro` and `Cuadro` are tables set as boxes.
pub const CAPTION_WORDS: &[(&str, bool)] = &[
    ("figure", false),
    ("fig", false),
    ("figs", false),
    ("scheme", false),
    ("chart", false),
    ("graph", false),
    ("plate", false),
    ("figura", false),
    ("gráfico", false),
    ("grafico", false),
    ("gráfica", false),
    ("esquema", false),
    ("abbildung", false),
    ("abb", false),
    ("table", true),
    ("tab", true),
    ("tbl", true),
    ("tabela", true),
    ("tabla", true),
    ("tabella", true),
    ("tableau", true),
    ("tabelle", true),
    ("quadro", true),
    ("cuadro", true),
];
