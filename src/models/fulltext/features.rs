//! Fulltext features: the layout facts of a body-zone token ([`TokenFacts`]), read from
//! GROBID's raw rows at training ([`TokenFacts::from_raw`]) or computed from a laid-out
//! [`Document`] at run time ([`document_tokens`]), and THE feature function [`rows`] that turns
//! them into the 27 columns of reference grobid-models.md §3.3 for both. The figure and table
//! models read the same rows, cut to the tokens of one `<figure>` or `<table>` span.
//!
//! What pdfium cannot give exactly as pdfalto does: font names lose the subset prefix (a change
//! of subset of one font is not `NEWFONT`), and `superscript` is Quire's layout guess from the
//! baseline shift and size, not pdfalto's `FONTSTYLE`. GROBID computes `vectorAround` but never
//! prints it; Quire leaves it out too.

use std::collections::HashSet;

use crate::document::Reference;
use crate::features::{Row, Rows};
use crate::layout::tokens::LayoutTokens;
use crate::layout::{Document, LineRef, ZoneToken};
use crate::models::lexical::{self as lx, bit, Pos};
use crate::models::segmentation::{self, SizeChange};

/// Raw fulltext rows have 27 feature columns (reference §3.3).
pub const COLUMNS: usize = 27;

/// Bins of the relative document and page positions (GROBID's `NBBINS_POSITION`).
const POSITION_BINS: usize = 12;

/// Column 24: how the document's bibliography is called: by number, by author and year, or
/// not known (no bibliography, or no majority).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CalloutType {
    Number,
    Author,
    Unknown,
}

impl CalloutType {
    pub fn as_str(self) -> &'static str {
        match self {
            CalloutType::Number => "NUMBER",
            CalloutType::Author => "AUTHOR",
            CalloutType::Unknown => "UNKNOWN",
        }
    }
    pub fn parse(s: &str) -> Option<CalloutType> {
        Some(match s {
            "NUMBER" => CalloutType::Number,
            "AUTHOR" => CalloutType::Author,
            "UNKNOWN" => CalloutType::Unknown,
            _ => return None,
        })
    }
}

/// The layout facts of one fulltext token: everything in a feature row that is not computed
/// from the token's text (reference §3.3, columns 10–16 and 21–26).
#[derive(Debug, Clone, PartialEq)]
pub struct TokenFacts {
    pub text: String,
    /// Column 10: `BLOCKSTART` / `BLOCKIN` / `BLOCKEND`.
    pub block: Pos,
    /// Column 11: `LINESTART` / `LINEIN` / `LINEEND`.
    pub line: Pos,
    /// Column 12: `LINEINDENT` (true) or `ALIGNEDLEFT`.
    pub indented: bool,
    /// Column 13: `NEWFONT` (true) or `SAMEFONT`.
    pub new_font: bool,
    /// Column 14: the integer font size against the previous token's.
    pub font_size: SizeChange,
    /// Column 15.
    pub bold: bool,
    /// Column 16.
    pub italic: bool,
    /// Column 21: characters before the token in the zone, 0–12.
    pub doc_position: usize,
    /// Column 22: the token's top on its page, 0–12.
    pub page_position: usize,
    /// Column 23: a bitmap is drawn near the token's block.
    pub bitmap_around: bool,
    /// Column 24: the document's callout type.
    pub callout_type: CalloutType,
    /// Column 25: the token is a known reference label or first-author surname.
    pub callout_known: bool,
    /// Column 26: the token is set as a superscript.
    pub superscript: bool,
}

impl TokenFacts {
    /// The facts of one row of a GROBID raw fulltext file (27 columns), or of a figure or table
    /// raw file (26 or 27: the older ones lack `superscript`, read as `0`); `None` when the row
    /// is not such a row.
    pub fn from_raw(c: &[String]) -> Option<TokenFacts> {
        if c.len() < COLUMNS - 1 {
            return None;
        }
        let bin = |s: &str| s.parse::<usize>().ok().filter(|v| *v <= POSITION_BINS);
        Some(TokenFacts {
            text: c[0].clone(),
            block: Pos::parse(&c[10], lx::BLOCK_POS)?,
            line: Pos::parse(&c[11], lx::LINE_POS)?,
            indented: match c[12].as_str() {
                "LINEINDENT" => true,
                "ALIGNEDLEFT" => false,
                _ => return None,
            },
            new_font: match c[13].as_str() {
                "NEWFONT" => true,
                "SAMEFONT" => false,
                _ => return None,
            },
            font_size: SizeChange::parse(&c[14])?,
            bold: lx::parse_bool(&c[15])?,
            italic: lx::parse_bool(&c[16])?,
            doc_position: bin(&c[21])?,
            page_position: bin(&c[22])?,
            bitmap_around: lx::parse_bool(&c[23])?,
            callout_type: CalloutType::parse(&c[24])?,
            callout_known: lx::parse_bool(&c[25])?,
            superscript: match c.get(26) {
                Some(s) => lx::parse_bool(s)?,
                None => false,
            },
        })
    }
}

/// THE feature function: facts in, the 27 feature columns of reference §3.3 out (no lexicon
/// column: the fulltext model has none).
pub fn rows(tokens: &[TokenFacts]) -> Rows {
    tokens.iter().map(row).collect()
}

fn row(f: &TokenFacts) -> Row {
    let t = f.text.as_str();
    let mut r: Row = Vec::with_capacity(COLUMNS);
    crate::features::push_lexical(&mut r, t);
    r.push(f.block.as_str(lx::BLOCK_POS).into());
    r.push(f.line.as_str(lx::LINE_POS).into());
    r.push(lx::alignment(f.indented).into());
    r.push(if f.new_font { "NEWFONT" } else { "SAMEFONT" }.into());
    r.push(f.font_size.as_str().into());
    r.push(bit(f.bold).into());
    r.push(bit(f.italic).into());
    r.push(lx::capitalisation(t).into());
    r.push(lx::digit(t).into());
    r.push(bit(t.chars().count() == 1).into());
    r.push(lx::punct_type(t).into());
    r.push(crate::features::number(f.doc_position));
    r.push(crate::features::number(f.page_position));
    r.push(bit(f.bitmap_around).into());
    r.push(f.callout_type.as_str().into());
    r.push(bit(f.callout_known).into());
    r.push(bit(f.superscript).into());
    r
}

// ---------------------------------------------------------------------------------------------
// Run time: the body zone of a document

/// What the bibliography tells the fulltext features (columns 24 and 25): the callout type
/// and the strings a callout can be (reference labels, first-author surnames).
#[derive(Debug, Clone, PartialEq)]
pub struct Callouts {
    pub kind: CalloutType,
    pub known: HashSet<String>,
}

impl Default for Callouts {
    fn default() -> Self {
        Callouts {
            kind: CalloutType::Unknown,
            known: HashSet::new(),
        }
    }
}

impl Callouts {
    /// From the parsed references: `NUMBER` when more than half of them (integer division)
    /// have a numeric marker, `AUTHOR` when more than half have a first-author surname and a
    /// year but no marker, else `UNKNOWN`. Known strings: every marker and every first-author
    /// surname.
    pub fn from_references(refs: &[Reference]) -> Callouts {
        let half = refs.len() / 2;
        let mut numbered = 0usize;
        let mut author_year = 0usize;
        let mut known = HashSet::new();
        for r in refs {
            let marker = r.marker.as_deref().map(str::trim).filter(|m| !m.is_empty());
            if let Some(m) = marker {
                known.insert(m.to_string());
                if m.chars().all(|c| c.is_ascii_digit()) {
                    numbered += 1;
                }
            }
            let surname = r
                .citation
                .authors
                .first()
                .and_then(|p| p.surname.as_deref())
                .map(str::trim)
                .filter(|s| !s.is_empty());
            if let Some(s) = surname {
                known.insert(s.to_string());
                if marker.is_none() && r.citation.date.is_some() {
                    author_year += 1;
                }
            }
        }
        let kind = if !refs.is_empty() && numbered > half {
            CalloutType::Number
        } else if !refs.is_empty() && author_year > half {
            CalloutType::Author
        } else {
            CalloutType::Unknown
        };
        Callouts { kind, known }
    }

    /// Set columns 24 and 25 of `facts`.
    pub fn apply(&self, facts: &mut [TokenFacts]) {
        for f in facts {
            f.callout_type = self.kind;
            f.callout_known = self.known.contains(&f.text);
        }
    }
}

/// GROBID's line length in its token stream: the tokens, one per space, one for the `"\n"`.
fn stream_chars(line: &crate::layout::Line) -> usize {
    line.text().chars().count() + 1
}

/// The fulltext tokens of the given lines (the segmentation's body zone, or any zone GROBID
/// passes to the fulltext model), in order, with GROBID's layout facts (reference §3.3), and
/// where each token is. Lines are grouped into blocks by their `(page, block)`.
///
/// - Line status: a line's first token `LINESTART`, its last `LINEEND` (unless it is also the
///   first), others `LINEIN`; the zone's last token is `LINEIN` when a space follows it (GROBID's
///   look-ahead stops at the space and nothing comes after to correct it).
/// - Block status: the first token of a block's first line `BLOCKSTART`; when a `BLOCKSTART`
///   row follows a `BLOCKIN` row, that row becomes `BLOCKEND` and `LINEEND` (GROBID's
///   post-correction); else `BLOCKIN`.
/// - Indentation as the header's state machine; font and size changes against the previous
///   token (font names lower-cased, sizes truncated).
/// - Document position: characters before the token in the zone's token stream (a space and a
///   line or block end count one) against the zone's total, 12 bins; page position: the
///   token's top against the page height, 12 bins.
/// - `bitmapAround`: a bitmap near the token's block (the segmentation's test).
/// - Callout columns are left `UNKNOWN`/`0`: they need the bibliography, which
///   [`Callouts::apply`] brings once the references are parsed.
pub fn document_tokens(
    doc: &Document,
    toks: &LayoutTokens,
    lines: &[LineRef],
) -> (Vec<TokenFacts>, Vec<ZoneToken>) {
    // The zone's length in GROBID's stream characters.
    let mut total = 0usize;
    let mut prev_block: Option<(usize, usize)> = None;
    for r in lines {
        let Some(line) = doc.line(r) else { continue };
        if prev_block.is_some_and(|b| b != (r.page, r.block)) {
            total += 1; // the block end
        }
        prev_block = Some((r.page, r.block));
        total += stream_chars(line);
    }
    total += usize::from(prev_block.is_some());

    let mut facts: Vec<TokenFacts> = Vec::new();
    let mut zone: Vec<ZoneToken> = Vec::new();
    let mut fonts = lx::FontChanges::default();
    let mut indentation = lx::Indentation::default();
    let mut nn = 0usize;
    let mut prev_block: Option<(usize, usize)> = None;
    for r in lines {
        let Some(line) = doc.line(r) else { continue };
        let page = &doc.pages[r.page];
        let block = &page.blocks[r.block];
        if prev_block.is_some_and(|b| b != (r.page, r.block)) {
            nn += 1;
        }
        prev_block = Some((r.page, r.block));
        let bitmap = segmentation::near(&page.images, &block.bbox);
        let kept = toks.line(r);
        let Some(last) = kept.last().map(|lt| lt.index) else {
            nn += stream_chars(line);
            continue;
        };
        let mut kept = kept.iter().peekable();
        for (i, t) in line.tokens.iter().enumerate() {
            let Some(lt) = kept.next_if(|lt| lt.index == i) else {
                nn += t.text.chars().count() + usize::from(t.space_after);
                continue;
            };
            let text = lt.text.clone();
            if lt.first {
                indentation.line_start(t, &text, !facts.is_empty());
            }
            let line_pos = if lt.first {
                Pos::Start
            } else if lt.last {
                Pos::End
            } else {
                Pos::In
            };
            let block_pos = if r.line == 0 && lt.first {
                Pos::Start
            } else {
                Pos::In
            };
            if block_pos == Pos::Start {
                if let Some(p) = facts.last_mut().filter(|p| p.block == Pos::In) {
                    p.block = Pos::End;
                    p.line = Pos::End;
                }
            }
            let page_position = if page.height > 0.0 && t.bbox.y > 0.0 {
                ((t.bbox.y / page.height * POSITION_BINS as f32).floor() as usize)
                    .min(POSITION_BINS)
            } else {
                0
            };
            let (new_font, font_size) = fonts.next(lt);
            facts.push(TokenFacts {
                doc_position: lx::linear_scaling(nn, total, POSITION_BINS),
                text,
                block: block_pos,
                line: line_pos,
                indented: indentation.indented(),
                new_font,
                font_size,
                bold: t.bold,
                italic: t.italic,
                page_position,
                bitmap_around: bitmap,
                callout_type: CalloutType::Unknown,
                callout_known: false,
                superscript: t.superscript,
            });
            nn += t.text.chars().count() + usize::from(t.space_after && !lt.last);
            zone.push(ZoneToken {
                line: *r,
                index: i,
                sep: lt.sep,
            });
        }
        // The line's trailing space (if any) and its "\n".
        let last_spaced = line.tokens.get(last).is_some_and(|t| t.space_after);
        nn += usize::from(last_spaced) + 1;
    }
    // The zone's last token: nothing follows to correct GROBID's look-ahead.
    if let (Some(f), Some(z)) = (facts.last_mut(), zone.last()) {
        let spaced = doc
            .token(&z.line, z.index)
            .is_some_and(|(_, t)| t.space_after);
        if f.line != Pos::Start {
            f.line = if spaced { Pos::In } else { Pos::End };
        }
    }
    (facts, zone)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::layout as corpus;

    /// Gated on the unpacked corpus: every raw row of the fulltext corpus, parsed into facts
    /// and passed through [`rows`], gives back GROBID's 27 columns.
    #[test]
    fn corpus_rows_round_trip_through_facts() {
        let Some(ds) = crate::testutil::gate::require_dataset("fulltext/corpus/raw") else {
            return;
        };
        let dir = ds.join("fulltext/corpus/raw");
        let mut same = [0usize; COLUMNS];
        let mut total = 0usize;
        let mut paths: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        paths.sort();
        assert!(paths.len() >= 100, "{} raw files", paths.len());
        for p in &paths {
            let raw = corpus::read_raw_rows(p).unwrap();
            let facts: Vec<TokenFacts> = raw
                .iter()
                .map(|r| TokenFacts::from_raw(r).unwrap_or_else(|| panic!("{r:?}")))
                .collect();
            for (r, g) in rows(&facts).iter().zip(&raw) {
                total += 1;
                for c in 0..COLUMNS {
                    same[c] += usize::from(r[c] == g[c]);
                }
            }
        }
        let share: Vec<f64> = same.iter().map(|n| *n as f64 / total as f64).collect();
        eprintln!("{share:?}");
        for (c, s) in share.iter().enumerate() {
            assert!(*s >= PARITY_FLOOR[c], "column {c}: {s:.6}");
        }
    }
    /// Share of the corpus rows on which each column is GROBID's: the layout columns (10–16,
    /// 21–26) always; the lexical ones (prefixes, suffixes, capitalisation, digit, single
    /// character) differ on about 0.05 % of the rows, tokens outside the Basic Multilingual
    /// Plane, which Java counts in UTF-16 units (measured 99.92 % to 100 %).
    const PARITY_FLOOR: [f64; COLUMNS] = [
        1.0, 1.0, 0.999, 0.999, 0.999, 0.999, 0.999, 0.999, 0.999, 0.999, 1.0, 1.0, 1.0, 1.0, 1.0,
        1.0, 1.0, 0.999, 0.999, 0.999, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
    ];

    use crate::layout::{BBox, Block, Line, Page, Token};

    fn tok(text: &str, x: f32, y: f32, font: &str, size: f32, space_after: bool) -> Token {
        Token {
            text: text.into(),
            bbox: BBox {
                x,
                y,
                w: 6.0 * text.chars().count() as f32,
                h: size,
            },
            font: font.into(),
            font_size: size,
            space_after,
            ..Default::default()
        }
    }

    fn line(toks: Vec<Token>) -> Line {
        Line {
            bbox: BBox::default(),
            tokens: toks,
        }
    }

    /// Page 1: a heading block (bold, larger), a two-line paragraph block with a superscript
    /// callout and a hyphenated line end, and a one-token block next to a bitmap.
    fn body_doc() -> Document {
        let mut head = tok("Introduction", 72.0, 100.0, "Times-Bold", 12.0, true);
        head.bold = true;
        let mut sup = tok("12", 118.0, 118.0, "Times-Roman", 7.0, true);
        sup.superscript = true;
        let p1 = line(vec![
            tok("We", 90.0, 120.0, "Times-Roman", 10.0, true),
            tok("saw", 104.0, 120.0, "Times-Roman", 10.0, false),
            sup,
            tok("exam", 130.0, 120.0, "Times-Roman", 10.0, false),
            tok("-", 154.0, 120.0, "Times-Roman", 10.0, false),
        ]);
        let p2 = line(vec![
            tok("ples", 72.0, 132.0, "Times-Roman", 10.0, false),
            tok(".", 96.0, 132.0, "Times-Roman", 10.0, true),
        ]);
        let fig = line(vec![tok("x", 72.0, 700.0, "Times-Roman", 10.0, true)]);
        Document {
            pages: vec![Page {
                number: 1,
                width: 600.0,
                height: 800.0,
                blocks: vec![
                    Block {
                        bbox: BBox {
                            x: 72.0,
                            y: 100.0,
                            w: 72.0,
                            h: 12.0,
                        },
                        lines: vec![line(vec![head])],
                    },
                    Block {
                        bbox: BBox {
                            x: 72.0,
                            y: 118.0,
                            w: 90.0,
                            h: 24.0,
                        },
                        lines: vec![p1, p2],
                    },
                    Block {
                        bbox: BBox {
                            x: 72.0,
                            y: 700.0,
                            w: 6.0,
                            h: 10.0,
                        },
                        lines: vec![fig],
                    },
                ],
                images: vec![BBox {
                    x: 72.0,
                    y: 500.0,
                    w: 300.0,
                    h: 150.0,
                }],
                ..Default::default()
            }],
        }
    }

    fn all_lines(doc: &Document) -> Vec<LineRef> {
        let mut out = Vec::new();
        for (p, page) in doc.pages.iter().enumerate() {
            for (b, block) in page.blocks.iter().enumerate() {
                for l in 0..block.lines.len() {
                    out.push(LineRef {
                        page: p,
                        block: b,
                        line: l,
                    });
                }
            }
        }
        out
    }

    #[test]
    fn document_tokens_have_grobid_fulltext_facts() {
        let doc = body_doc();
        let (facts, zone) = document_tokens(
            &doc,
            &crate::layout::tokens::LayoutTokens::new(&doc),
            &all_lines(&doc),
        );
        let texts: Vec<&str> = facts.iter().map(|f| f.text.as_str()).collect();
        assert_eq!(
            texts,
            vec![
                "Introduction",
                "We",
                "saw",
                "12",
                "exam",
                "-",
                "ples",
                ".",
                "x"
            ]
        );
        assert_eq!(zone.len(), facts.len());
        for (f, z) in facts.iter().zip(&zone) {
            assert_eq!(doc.token(&z.line, z.index).unwrap().1.text, f.text);
        }
        let status: Vec<(Pos, Pos)> = facts.iter().map(|f| (f.block, f.line)).collect();
        use Pos::{End as E, In as I, Start as S};
        assert_eq!(
            status,
            vec![
                (S, S), // a one-token block stays BLOCKSTART/LINESTART
                (S, S),
                (I, I),
                (I, I),
                (I, I),
                (I, E), // the hyphen ends the line
                (I, S),
                (E, E), // corrected by the next BLOCKSTART
                (S, S),
            ]
        );
        let seps: Vec<Sep> = zone.iter().map(|z| z.sep).collect();
        use crate::layout::Sep::{self, Newline as N, None as O, Space as P};
        assert_eq!(seps, vec![N, P, O, P, O, N, O, N, N]);
        // Fonts: the heading's bold font, then the body font; sizes 12 → 10 → 7 → 10.
        let fonts: Vec<(bool, SizeChange)> =
            facts.iter().map(|f| (f.new_font, f.font_size)).collect();
        assert_eq!(fonts[0], (true, SizeChange::Higher));
        assert_eq!(fonts[1], (true, SizeChange::Lower));
        assert_eq!(fonts[2], (false, SizeChange::Same));
        assert_eq!(fonts[3], (false, SizeChange::Lower));
        assert_eq!(fonts[4], (false, SizeChange::Higher));
        assert!(facts[0].bold && !facts[1].bold);
        assert!(facts[3].superscript && !facts[2].superscript);
        // The second paragraph line starts left of the first: not indented; the first body
        // line starts right of the heading: indented.
        assert!(facts[1].indented);
        assert!(!facts[6].indented);
        // Only the block near the bitmap (its top 50 pt under the image) sees it.
        assert!(facts[8].bitmap_around);
        assert!(facts[..8].iter().all(|f| !f.bitmap_around));
        // Positions: the zone starts at 0 and grows; page position from the token's top.
        assert_eq!(facts[0].doc_position, 0);
        assert!(facts
            .windows(2)
            .all(|w| w[0].doc_position <= w[1].doc_position));
        // The zone is 42 stream characters ("Introduction " "\n" "\n", "We saw12 exam-" "\n",
        // "ples. " "\n" "\n", "x " "\n" "\n"); `ples` starts at 30, `x` at 38.
        assert_eq!(facts[6].doc_position, 8);
        assert_eq!(facts[8].doc_position, 10);
        assert_eq!(facts[0].page_position, 1); // 100 / 800 × 12
        assert_eq!(facts[8].page_position, 10); // 700 / 800 × 12
                                                // The rows: 27 columns, the layout ones as the facts say.
        let r = rows(&facts);
        assert!(r.iter().all(|row| row.len() == COLUMNS));
        assert_eq!(r[3][26], "1");
        assert_eq!(r[7][10], "BLOCKEND");
        assert_eq!(r[8][23], "1");
        assert_eq!(r[0][24], "UNKNOWN");
        // The last token of a zone followed by a space stays LINEIN (nothing corrects it).
        let (facts2, _) = document_tokens(
            &doc,
            &crate::layout::tokens::LayoutTokens::new(&doc),
            &all_lines(&doc)[..3],
        );
        assert_eq!(facts2.last().map(|f| (f.block, f.line)), Some((I, I)));
    }

    #[test]
    fn callouts_come_from_the_bibliography() {
        use crate::document::Reference;
        use crate::models::name::Person;
        let numbered = |m: &str, surname: &str| {
            let mut r = Reference {
                marker: Some(m.into()),
                ..Default::default()
            };
            r.citation.authors.push(Person {
                surname: Some(surname.into()),
                ..Default::default()
            });
            r
        };
        let refs = vec![
            numbered("1", "Smith"),
            numbered("2", "Jones"),
            numbered("a", "Doe"),
        ];
        let c = Callouts::from_references(&refs);
        assert_eq!(c.kind, CalloutType::Number);
        let doc = body_doc();
        let (mut facts, _) = document_tokens(
            &doc,
            &crate::layout::tokens::LayoutTokens::new(&doc),
            &all_lines(&doc),
        );
        c.apply(&mut facts);
        assert!(facts.iter().all(|f| f.callout_type == CalloutType::Number));
        assert!(!facts[3].callout_known, "12 is no reference label");
        let refs2 = vec![numbered("12", "Smith")];
        Callouts::from_references(&refs2).apply(&mut facts);
        assert!(facts[3].callout_known);
        assert_eq!(Callouts::from_references(&[]).kind, CalloutType::Unknown);
        // Author-year: no markers, first authors with dates.
        let mut ay = numbered("", "Smith");
        ay.marker = None;
        ay.citation.date = Some(Default::default());
        let c = Callouts::from_references(&[ay.clone(), ay]);
        assert_eq!(c.kind, CalloutType::Author);
        assert!(c.known.contains("Smith"));
    }

    /// A PDF laid out by pdfium: a bold heading, an indented paragraph with a superscript
    /// callout, and a caption under a bitmap; `None` without libpdfium.
    fn generated_doc() -> Option<Document> {
        use crate::testutil::PdfBuilder;
        crate::testutil::gate::require_pdfium()?;
        let pdf = PdfBuilder::new()
            .page(612.0, 792.0)
            .text(72.0, 720.0, "Times-Bold", 12.0, "2 Methods")
            .text(90.0, 690.0, "Times-Roman", 10.0, "We use CRFs")
            .text_rise(142.0, 690.0, "Times-Roman", 7.0, 4.0, "3")
            .text(72.0, 678.0, "Times-Roman", 10.0, "on many lines.")
            .image(72.0, 300.0, 200.0, 100.0)
            .text(72.0, 285.0, "Times-Roman", 10.0, "Figure 1: A plot.")
            .build();
        Some(
            crate::layout::layout_pdf(
                &pdf,
                crate::layout::PageRange::default(),
                crate::layout::Limits::default(),
                None,
            )
            .unwrap(),
        )
    }

    #[test]
    fn document_tokens_of_a_generated_pdf() {
        let Some(doc) = generated_doc() else { return };
        let (facts, zone) = document_tokens(
            &doc,
            &crate::layout::tokens::LayoutTokens::new(&doc),
            &all_lines(&doc),
        );
        let texts: Vec<&str> = facts.iter().map(|f| f.text.as_str()).collect();
        assert_eq!(
            texts,
            vec![
                "2", "Methods", "We", "use", "CRFs", "3", "on", "many", "lines", ".", "Figure",
                "1", ":", "A", "plot", "."
            ]
        );
        for (f, z) in facts.iter().zip(&zone) {
            assert_eq!(doc.token(&z.line, z.index).unwrap().1.text, f.text);
        }
        let at = |t: &str| texts.iter().position(|x| *x == t).unwrap();
        assert_eq!((facts[0].block, facts[0].line), (Pos::Start, Pos::Start));
        assert!(facts[0].bold && facts[0].new_font);
        let we = &facts[at("We")];
        assert_eq!(we.line, Pos::Start);
        assert!(we.new_font && !we.bold);
        assert_eq!(we.font_size, SizeChange::Lower);
        assert!(we.indented, "the paragraph's first line is indented");
        assert!(!facts[at("on")].indented);
        assert!(facts[at("3")].superscript);
        assert!(!facts[at("CRFs")].superscript);
        assert_eq!(facts[at("Methods")].line, Pos::End);
        assert_eq!(facts[9].line, Pos::End, "the paragraph's final dot");
        // Only the caption is near the image.
        assert!(facts[at("Figure")..].iter().all(|f| f.bitmap_around));
        assert!(facts[..at("Figure")].iter().all(|f| !f.bitmap_around));
        // Page positions (token top / page height, 12 bins): the heading's top at about 63 pt,
        // the caption's at about 498 pt of 792.
        assert_eq!(facts[0].page_position, 0);
        assert_eq!(facts[at("Figure")].page_position, 7);
        assert_eq!(zone[at("Methods")].sep, crate::layout::Sep::Newline);
        assert_eq!(zone[0].sep, crate::layout::Sep::Space);
    }

    /// The committed fulltext and figure models tag the rows of a generated PDF: run-time
    /// features, model and decoder fit together.
    #[test]
    fn committed_models_tag_run_time_rows() {
        use crate::models::{figure, fulltext};
        let models = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
        if !crate::testutil::gate::require_models(&["fulltext", "figure"]) {
            return;
        }
        let Some(doc) = generated_doc() else { return };
        let (facts, _) = document_tokens(
            &doc,
            &crate::layout::tokens::LayoutTokens::new(&doc),
            &all_lines(&doc),
        );
        let model =
            crate::crf::Model::load(&models.join("fulltext"), fulltext::FEATURE_VERSION).unwrap();
        let labels = model.label(&rows(&facts)).unwrap();
        let spans = fulltext::decode(&labels).unwrap();
        assert_eq!(spans.first().map(|s| s.tokens.start), Some(0));
        assert_eq!(spans.last().map(|s| s.tokens.end), Some(facts.len()));
        assert!(spans
            .windows(2)
            .all(|w| w[0].tokens.end == w[1].tokens.start));
        // The bold heading is a section title, the text under it a paragraph.
        assert_eq!(spans[0].label, fulltext::Label::Section, "{labels:?}");
        assert_eq!(spans[0].tokens, 0..2, "{labels:?}");
        assert_eq!(spans[1].label, fulltext::Label::Paragraph, "{labels:?}");
        // The caption under the bitmap is a figure.
        let last = spans.last().unwrap();
        assert_eq!(
            (last.label, last.tokens.clone()),
            (fulltext::Label::Figure, 10..16)
        );
        // The figure model takes the caption's facts.
        let caption = &facts[10..];
        let fig = crate::crf::Model::load(&models.join("figure"), figure::FEATURE_VERSION).unwrap();
        let fig_labels = fig.label(&figure::rows(caption)).unwrap();
        let fig_spans = figure::decode(&fig_labels).unwrap();
        assert_eq!(fig_spans.last().map(|s| s.tokens.end), Some(caption.len()));
        assert_eq!(
            fig_spans[0].label,
            figure::Label::FigureHead,
            "{fig_labels:?}"
        );
        assert!(
            fig_spans
                .iter()
                .any(|s| s.label == figure::Label::Label && s.tokens == (1..2)),
            "`1` is the figure's label: {fig_labels:?}"
        );
    }
}
