//! Reference-segmenter model: cuts the references zone into references, labelling each token
//! `<label>` (the reference's number or marker), `<reference>` (its body) or `<other>` —
//! reference grobid-models.md §1.4 (step 3), §2.5, §3.4. A new reference starts at every
//! `I-<label>` or `I-<reference>`.
//!
//! One feature path, as for the header: a token is described by its [`TokenFacts`] (line and
//! block status, indentation, position in the line, line length, punctuation profile — the
//! columns that are not computable from the token's text), read from GROBID's raw files at
//! training ([`TokenFacts::from_raw`]) or from a PDF's layout at run time
//! ([`document_tokens`]); [`rows`] then computes the 28 columns, every lexical one with
//! Quire's shared helpers and lexicons, for both. [`decode`] turns labelled tokens into
//! [`RawReference`]s.
//!
//! The corpus reader is `crate::training::reference_segmenter`.

use std::ops::Range;

use crate::labels::Labels;
use crate::layout::tokens::LayoutTokens;
use crate::layout::{Document, ZoneToken};
use crate::lexicon::LexView;
use crate::models::header::{Pos, Sep};
use crate::models::lexical::{self as lx, bit};
use crate::models::segmentation::LineRef;
use crate::{Error, Result};

model_labels!(
    "reference-segmenter",
    /// GROBID's reference-segmenter labels.
    {
        Label => "<label>",
        Reference => "<reference>",
        Other => "<other>",
    }
);

/// Raw reference-segmenter rows: 27 feature columns and GROBID's `0` placeholder.
pub const COLUMNS: usize = 28;

/// Bins of the in-line position and line-length columns.
const LINE_SCALE: usize = 10;

/// The layout facts of one reference-zone token: everything in a feature row that is not
/// computed from the token's text (reference §3.4, columns 10, 11, 23–26).
#[derive(Debug, Clone, PartialEq)]
pub struct TokenFacts {
    pub text: String,
    /// Column 10: `LINESTART` / `LINEIN` / `LINEEND`.
    pub line: Pos,
    /// Column 11: `LINEINDENT` (true) or `ALIGNEDLEFT`.
    pub indented: bool,
    /// Column 23: relative position in the line, 0–10.
    pub line_position: usize,
    /// Column 24: the line's length relative to the zone's longest line, 0–10.
    pub line_length: usize,
    /// Column 25: `BLOCKSTART` / `BLOCKIN` / `BLOCKEND`.
    pub block: Pos,
    /// Column 26: length of the line's punctuation profile capped at 10; `None` prints `no`.
    pub punct_profile: Option<usize>,
}

impl TokenFacts {
    /// The facts of one row of a GROBID raw reference-segmenter file (28 columns, the last a
    /// `0`); `None` when the row is not a reference-segmenter row.
    pub fn from_raw(c: &[String]) -> Option<TokenFacts> {
        if c.len() < COLUMNS - 1 {
            return None;
        }
        let bin = |s: &str| s.parse::<usize>().ok().filter(|v| *v <= LINE_SCALE);
        Some(TokenFacts {
            text: c[0].clone(),
            line: Pos::parse(&c[10], lx::LINE_POS)?,
            indented: match c[11].as_str() {
                "LINEINDENT" => true,
                "ALIGNEDLEFT" => false,
                _ => return None,
            },
            line_position: bin(&c[23])?,
            line_length: bin(&c[24])?,
            block: Pos::parse(&c[25], lx::BLOCK_POS)?,
            punct_profile: match c[26].as_str() {
                "no" => None,
                s => Some(bin(s)?),
            },
        })
    }
}

/// THE feature function: facts in, the 27 feature columns of reference §3.4 and GROBID's `0`
/// placeholder out (column numbers as GROBID's; 17 and 18 are always `0` there too).
pub fn rows(tokens: &[TokenFacts], lex: &LexView<'_>) -> crate::features::Rows {
    tokens
        .iter()
        .map(|f| {
            let t = f.text.as_str();
            let mut r: crate::features::Row = Vec::with_capacity(COLUMNS);
            crate::features::push_lexical(&mut r, t);
            r.push(f.line.as_str(lx::LINE_POS).into());
            r.push(lx::alignment(f.indented).into());
            r.push(lx::capitalisation(t).into());
            r.push(lx::digit(t).into());
            r.push(bit(t.chars().count() == 1).into());
            r.push(bit(lx::proper_name(t, lex)).into());
            r.push(bit(lx::common_word(t, lex)).into());
            r.push("0".into()); // firstName: never set by GROBID
            r.push("0".into()); // locationName: never set by GROBID
            r.push(bit(lx::year(t)).into());
            r.push(bit(lx::month(t)).into());
            r.push(bit(lx::http(t)).into());
            r.push(lx::punct_type(t).into());
            r.push(crate::features::number(f.line_position));
            r.push(crate::features::number(f.line_length));
            r.push(f.block.as_str(lx::BLOCK_POS).into());
            r.push(
                f.punct_profile
                    .map_or_else(|| "no".into(), crate::features::number),
            );
            r.push("0".into());
            r
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Run time: the references zone of a document

/// GROBID's "full punctuation" characters (reference §6.3), the alphabet of a line's
/// punctuation profile.
const FULL_PUNCTUATION: &str = "(（[ •*,:;?.!/)）-−–‐«»„\"“”‘’'`$#@]♦♥♣♠\u{a0}。、，・";

/// Length of a line's punctuation profile (its punctuation characters, spaces aside), capped
/// at 10; `None` when the line has none.
fn punct_profile(line: &str) -> Option<usize> {
    let n = line
        .chars()
        .filter(|c| *c != ' ' && FULL_PUNCTUATION.contains(*c))
        .count();
    (n > 0).then_some(n.min(LINE_SCALE))
}

/// The reference-segmenter tokens of the given lines (the segmentation's references zone), in
/// order, with GROBID's layout facts (reference §3.4): one token per non-blank layout token;
/// a line end resets the line; the in-line position counts each token's characters and two
/// per space; the line length is the line's characters (spaces and its `"\n"` included)
/// against the zone's longest line; the block status follows the layout blocks (first token
/// of a block's first line `BLOCKSTART`, last token of its last line `BLOCKEND`);
/// indentation compares a line's start with the previous line's, as GROBID does from the
/// zone's third line on. The facts and the zone tokens run in parallel, one of each per token.
pub fn document_tokens(
    doc: &Document,
    toks: &LayoutTokens,
    lines: &[LineRef],
) -> (Vec<TokenFacts>, Vec<ZoneToken>) {
    // The zone's longest line, as GROBID's line lengths: characters through the "\n".
    let line_chars = |line: &crate::layout::Line| line.text().chars().count() + 1;
    let max_len = lines
        .iter()
        .filter_map(|r| doc.line(r))
        .map(line_chars)
        .fold(1, usize::max);

    let mut out: Vec<TokenFacts> = Vec::new();
    let mut zone: Vec<ZoneToken> = Vec::new();
    // GROBID compares line starts from the zone's third line on: the first line's start is
    // not recorded.
    let mut indentation = lx::Indentation::default();
    for r in lines {
        let Some(line) = doc.line(r) else {
            continue;
        };
        let n_lines = doc.pages[r.page].blocks[r.block].lines.len();
        let len = line_chars(line);
        let profile = punct_profile(&line.text());
        let kept = toks.line(r);
        if kept.is_empty() {
            continue;
        }
        // GROBID's in-line position: each token's characters, two per following space.
        let mut nn = 0usize;
        let mut pos_after = Vec::with_capacity(line.tokens.len());
        for t in &line.tokens {
            nn += t.text.chars().count();
            pos_after.push(nn);
            if t.space_after {
                nn += 2;
            }
        }
        for lt in kept {
            let (i, text) = (lt.index, lt.text.clone());
            let t = &line.tokens[i];
            if lt.first && !out.is_empty() {
                indentation.line_start(t, &text, true);
            }
            let line_pos = if lt.first {
                Pos::Start
            } else if lt.last {
                Pos::End
            } else {
                Pos::In
            };
            let block = if r.line == 0 && lt.first {
                Pos::Start
            } else if r.line + 1 == n_lines && lt.last {
                Pos::End
            } else {
                Pos::In
            };
            out.push(TokenFacts {
                text,
                line: line_pos,
                indented: indentation.indented(),
                line_position: lx::linear_scaling(pos_after[i], len, LINE_SCALE),
                line_length: lx::linear_scaling(len, max_len, LINE_SCALE),
                block,
                punct_profile: profile,
            });
            zone.push(ZoneToken {
                line: *r,
                index: i,
                sep: lt.sep,
            });
        }
    }
    (out, zone)
}

// ---------------------------------------------------------------------------------------------
// Decoding

/// One reference cut from the references zone.
#[derive(Debug, Clone, PartialEq)]
pub struct RawReference {
    /// The `<label>` text stripped of its brackets and punctuation (`[12]` → `12`).
    pub marker: Option<String>,
    /// The `<reference>` text: separators kept as spaces, line-end hyphens of lower-case
    /// continuations joined, leading brackets and punctuation stripped.
    pub text: String,
    /// The tokens (indices into the decoded slice) from the reference's first label or
    /// reference token to its last.
    pub tokens: Range<usize>,
}

/// Zero-width characters (spaces, joiners, word joiner, BOM) that some PDFs put inside long
/// identifiers as break opportunities: they carry no text.
fn is_zero_width(c: char) -> bool {
    matches!(c, '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}')
}

/// `s` without its zero-width characters.
fn strip_zero_width(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains(is_zero_width) {
        s.chars()
            .filter(|c| !is_zero_width(*c))
            .collect::<String>()
            .into()
    } else {
        s.into()
    }
}

/// Words that follow a hyphen in compounds (`plant-based`, `climate-related`, `IFN-induced`)
/// and are words of their own: a line broken after the hyphen of such a compound keeps it.
const COMPOUND_TAILS: &[&str] = &[
    "activated",
    "assisted",
    "associated",
    "aware",
    "based",
    "centered",
    "centred",
    "containing",
    "controlled",
    "coupled",
    "deficient",
    "dependent",
    "derived",
    "driven",
    "enriched",
    "exposed",
    "focused",
    "friendly",
    "guided",
    "independent",
    "induced",
    "infected",
    "informed",
    "level",
    "linked",
    "mediated",
    "negative",
    "oriented",
    "positive",
    "producing",
    "related",
    "resistant",
    "responsive",
    "scale",
    "sensitive",
    "shaped",
    "sized",
    "specific",
    "treated",
];

/// What the references zone itself says about its words: those it prints with a hyphen inside
/// one line (`eco-anxiety`) and those it prints whole (`ecosystem`), lower-cased. A word
/// broken at a line-final hyphen is joined as the zone writes it elsewhere.
#[derive(Debug, Default)]
struct Hyphens {
    hyphenated: std::collections::HashSet<String>,
    whole: std::collections::HashSet<String>,
}

impl Hyphens {
    /// The words of `tokens`: runs of tokens glued together (no separator between them).
    fn of(tokens: Tokens<'_>) -> Hyphens {
        let mut h = Hyphens::default();
        let mut word = String::new();
        for i in 0..tokens.len() {
            word.push_str(&strip_zero_width(tokens.text(i)));
            if tokens.sep(i) != Sep::None {
                h.add(&word);
                word.clear();
            }
        }
        h.add(&word);
        h
    }

    fn add(&mut self, word: &str) {
        let w = word
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase();
        if w.chars().any(char::is_alphabetic) {
            if w.contains('-') {
                self.hyphenated.extend(
                    w.split('-')
                        .collect::<Vec<_>>()
                        .windows(2)
                        .map(|p| p.join("-")),
                );
            } else {
                self.whole.insert(w);
            }
        }
    }

    /// Whether `before-` at a line's end and `after` on the next line are one hyphenated word.
    fn keeps(&self, before: &str, after: &str) -> bool {
        let (b, a) = (before.to_lowercase(), after.to_lowercase());
        if self.hyphenated.contains(&format!("{b}-{a}")) {
            return true;
        }
        !self.whole.contains(&format!("{b}{a}")) && COMPOUND_TAILS.contains(&a.as_str())
    }
}

/// Append `tok` to `s` after the separator `sep` (a newline joins as a space, but a
/// line-final hyphen joins a lower-case continuation without it: de-hyphenation, unless
/// `hyphens` shows the word is hyphenated). `line` is the text of `tok`'s line from `tok` on
/// (see [`line_from`]): whether a line break continues an identifier looks at more than its
/// first token. Zero-width characters are dropped.
fn push_joined(s: &mut String, sep: Sep, tok: &str, line: &str, hyphens: &Hyphens) {
    let tok = strip_zero_width(tok);
    if !s.is_empty() {
        match sep {
            Sep::None => {}
            Sep::Space => s.push(' '),
            Sep::Newline if url_continues(s, line) => {}
            Sep::Newline => {
                if let Some(stem) = s.strip_suffix('-') {
                    // The word broken at the hyphen: its letters before and after the break.
                    let start = stem
                        .char_indices()
                        .rev()
                        .take_while(|(_, c)| c.is_alphabetic())
                        .last()
                        .map_or(stem.len(), |(i, _)| i);
                    let before = &stem[start..];
                    let rest = if line.is_empty() { &tok[..] } else { line };
                    let after: String = rest.chars().take_while(|c| c.is_alphabetic()).collect();
                    let lower = tok.chars().next().is_some_and(char::is_lowercase);
                    if lower && !before.is_empty() && !hyphens.keeps(before, &after) {
                        s.pop();
                    }
                } else {
                    s.push(' ');
                }
            }
        }
    }
    s.push_str(&tok);
}

/// The text of token `i`'s line from `i` on, zero-width characters dropped and a space for
/// each space separator (at most 16 tokens), and the index after the line's last token when
/// the line ends within them.
fn line_from(tokens: Tokens<'_>, i: usize) -> (String, Option<usize>) {
    let mut s = String::new();
    for j in (i..tokens.len()).take(16) {
        s.push_str(&strip_zero_width(tokens.text(j)));
        match tokens.sep(j) {
            Sep::Newline => return (s, Some(j + 1)),
            Sep::Space => s.push(' '),
            Sep::None => {}
        }
    }
    let end = (i + 16 >= tokens.len()).then_some(tokens.len());
    (s.trim_end().to_string(), end)
}

/// Whether a line opens like a numbered reference: 1 to 3 digits, `.` or `)`, then a word
/// (`21. Vandenberg, SY`).
fn starts_like_reference_number(line: &str) -> bool {
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    (1..=3).contains(&digits)
        && line[digits..].starts_with(['.', ')'])
        && line[digits + 1..]
            .trim_start()
            .chars()
            .next()
            .is_some_and(char::is_alphabetic)
}

/// Whether a word is a web host name or address without scheme (`frontiersin.org`,
/// `royalsocietypublishing.org/journal/rsta`): running heads and feet print them, DOIs do not
/// end with one.
fn is_web_host(word: &str) -> bool {
    let host = word.split('/').next().unwrap_or("");
    let host = host.trim_end_matches(['.', ',', ';', ')']);
    let Some((name, tld)) = host.rsplit_once('.') else {
        return false;
    };
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.'))
        && ["org", "com", "net", "edu", "gov", "info"].contains(&tld.to_ascii_lowercase().as_str())
}

/// Whether a word is an ordinary capitalised word (`European`): a DOI broken after a `.` does
/// not go on with one (a running head or the next field does).
fn is_capitalised_word(word: &str) -> bool {
    let w = word.trim_end_matches(['.', ',', ';', ':']);
    let mut chars = w.chars();
    chars.next().is_some_and(char::is_uppercase)
        && w.chars().count() >= 3
        && chars.all(char::is_lowercase)
}

/// Whether the text ends with a bracketed identifier that the bracket closed: `(doi:…)`,
/// `(https://doi.org/…)`, `[10.…]`, brackets balanced from the opening one on.
fn closes_bracketed(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    [('(', ')'), ('[', ']')].into_iter().any(|(open, close)| {
        if !lower.ends_with(close) {
            return false;
        }
        let Some(at) = ["doi", "http", "10."]
            .iter()
            .filter_map(|p| lower.rfind(&format!("{open}{p}")))
            .max()
        else {
            return false;
        };
        let inner = &lower[at..];
        inner.split(' ').count() <= 2 && inner.matches(open).count() == inner.matches(close).count()
    })
}

/// Whether a DOI or URL that ends the text so far continues on the next line, whose text is
/// `line` (publishers break long identifiers anywhere, `https://doi.org/10.1016/` /
/// `j.envres.…`): the line break is then no space. A URL continues after a separator character
/// (`/ . - _ = & ? # :`); a DOI also before a lower-case or digit start, or a separator
/// followed by its rest (`fvets` / `.2018.00303`), since nothing but its own rest follows a DOI
/// that way (the next field would open with a capital, a bracket or a label). It does not
/// continue when the line opens like a numbered reference (`21. Vandenberg`), a DOI with a
/// web host (a running head or foot), or, after a `.`, with a capitalised word; nor once the
/// bracket that opened it (`(doi:…)`) is closed.
fn url_continues(s: &str, line: &str) -> bool {
    let chunk = s.rsplit(' ').next().unwrap_or("");
    let lower = chunk.to_ascii_lowercase();
    let doi_prefix = lower.find("10.").is_some_and(|i| {
        let digits = lower[i + 3..]
            .bytes()
            .take_while(u8::is_ascii_digit)
            .count();
        digits >= 4 && lower[i + 3 + digits..].starts_with('/')
    });
    let is_doi = doi_prefix || lower.ends_with("doi.org/") || lower.ends_with("doi:");
    let is_url = is_doi || lower.starts_with("http") || lower.starts_with("www.");
    if !is_url {
        return false;
    }
    let first = line.split(' ').next().unwrap_or("");
    // A host name goes on a URL broken after its scheme or `www.`, not a DOI with a suffix.
    let running_host = doi_prefix && !chunk.ends_with('/') && is_web_host(first);
    if starts_like_reference_number(line) || running_host || closes_bracketed(s) {
        return false;
    }
    if chunk.ends_with('.') && is_capitalised_word(first) {
        return false;
    }
    let open_end = chunk.ends_with(['/', '.', '-', '_', '=', '&', '?', '#', ':']);
    let continuation = first
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
    let separated_rest = first.len() > 1
        && first.starts_with(['.', '-', '_', '/'])
        && first[1..].starts_with(|c: char| c.is_ascii_alphanumeric());
    open_end || (is_doi && (continuation || separated_rest))
}

/// The rest of an identifier that the reference segmenter cut off the reference ending with
/// it: token `i` opens a line that holds one word and nothing else (`6119.`, `aab3050)`),
/// which continues the DOI or URL ending `text` (see [`url_continues`]) and is not the next
/// reference's number (`marker` + 1). Returns the index after that line.
fn identifier_rest(tokens: Tokens<'_>, i: usize, text: &str, marker: &str) -> Option<usize> {
    let (line, end) = line_from(tokens, i);
    let end = end?;
    if line.is_empty() || line.contains(' ') || !line.starts_with(|c: char| c.is_alphanumeric()) {
        return None;
    }
    let number = |s: &str| {
        s.trim_matches(|c: char| !c.is_ascii_digit())
            .parse::<u32>()
            .ok()
    };
    if number(marker).is_some_and(|n| number(&line) == Some(n + 1)) {
        return None;
    }
    url_continues(text, &line).then_some(end)
}

/// The decoder's view of the zone: each token's text (its facts) and what follows it (its zone
/// token).
#[derive(Clone, Copy)]
struct Tokens<'a> {
    facts: &'a [TokenFacts],
    zone: &'a [ZoneToken],
}

impl Tokens<'_> {
    fn len(&self) -> usize {
        self.facts.len()
    }

    fn text(&self, i: usize) -> &str {
        &self.facts[i].text
    }

    fn sep(&self, i: usize) -> Sep {
        self.zone[i].sep
    }
}

/// The stronger of two separators (a newline over a space over nothing).
fn stronger(a: Sep, b: Sep) -> Sep {
    let rank = |s: Sep| match s {
        Sep::None => 0,
        Sep::Space => 1,
        Sep::Newline => 2,
    };
    if rank(b) > rank(a) {
        b
    } else {
        a
    }
}

#[derive(Default)]
struct Pending {
    marker: String,
    text: String,
    first: Option<usize>,
    last: usize,
}

impl Pending {
    fn flush(&mut self, out: &mut Vec<RawReference>) {
        let p = std::mem::take(self);
        let text = p
            .text
            .trim_start_matches(['[', '(', '{', '.', ',', ']', ')', '}', ':', ' ', '\n'])
            .trim_end()
            .to_string();
        if text.is_empty() {
            return;
        }
        let marker = p
            .marker
            .trim_start_matches(['(', '[', '{', '<', ',', '.', ' ', '\n'])
            .trim_end_matches([')', '}', ']', '>', ',', '.', ':', ' ', '\n'])
            .to_string();
        out.push(RawReference {
            marker: (!marker.is_empty()).then_some(marker),
            text,
            tokens: p.first.unwrap_or(0)..p.last + 1,
        });
    }
}

/// Labelled tokens → references, as GROBID's `ReferenceSegmenterParser`: an `I-<label>` or
/// `I-<reference>` starts a new reference once the current one has reference text (so a label
/// followed by `I-<reference>` stays with that reference); `<other>` tokens are dropped;
/// references without text are dropped. `facts` and `zone` are [`document_tokens`]'s.
pub fn decode(
    facts: &[TokenFacts],
    zone: &[ZoneToken],
    labels: &Labels,
) -> Result<Vec<RawReference>> {
    if facts.len() != labels.len() || zone.len() != labels.len() {
        return Err(Error::Tagging {
            model: "reference-segmenter".into(),
            reason: format!(
                "{} tokens ({} located) but {} labels",
                facts.len(),
                zone.len(),
                labels.len()
            ),
        });
    }
    let tokens = Tokens { facts, zone };
    let hyphens = Hyphens::of(tokens);
    let mut out = Vec::new();
    let mut cur = Pending::default();
    // Separator since the last token added to the marker / the text.
    let mut marker_sep = Sep::None;
    let mut text_sep = Sep::None;
    // Tokens before this index continue the current reference's identifier (see
    // [`identifier_rest`]), whatever their label; then the next label or reference token
    // begins a reference when one of them did.
    let mut rest_end = 0;
    let mut begin_after_rest = false;
    // A label the model does not know reads as `<other>`.
    let tags = labels.tags_or(Label::parse, Label::Other);
    for (i, tag) in tags.into_iter().enumerate() {
        let mut label = tag.label;
        let mut begins = tag.begins;
        if i >= rest_end
            && text_sep == Sep::Newline
            && !cur.text.is_empty()
            && (begins || label != Label::Reference)
        {
            if let Some(end) = identifier_rest(tokens, i, &cur.text, &cur.marker) {
                rest_end = end;
            }
        }
        if i < rest_end {
            begin_after_rest |= begins && label != Label::Other;
            label = Label::Reference;
            begins = false;
        } else if begin_after_rest && label != Label::Other {
            begins = true;
            begin_after_rest = false;
        }
        match label {
            Label::Label | Label::Reference => {
                if begins && !cur.text.is_empty() {
                    cur.flush(&mut out);
                    marker_sep = Sep::None;
                    text_sep = Sep::None;
                }
                if label == Label::Label {
                    push_joined(&mut cur.marker, marker_sep, tokens.text(i), "", &hyphens);
                    marker_sep = Sep::None;
                } else {
                    let line = if text_sep == Sep::Newline {
                        line_from(tokens, i).0
                    } else {
                        String::new()
                    };
                    push_joined(&mut cur.text, text_sep, tokens.text(i), &line, &hyphens);
                    text_sep = Sep::None;
                }
                cur.first.get_or_insert(i);
                cur.last = i;
            }
            Label::Other => {}
        }
        marker_sep = stronger(marker_sep, tokens.sep(i));
        text_sep = stronger(text_sep, tokens.sep(i));
    }
    cur.flush(&mut out);
    Ok(out)
}

/// Feature layout version of [`rows`]; bump when a column changes. (1: GROBID's raw columns
/// read verbatim; 2: rows computed by [`rows`] from [`TokenFacts`] with Quire's lexicons.)
pub const FEATURE_VERSION: u32 = 2;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::layout as corpus;
    use crate::corpus::layout::NEWLINE;
    use crate::corpus::Part;
    use crate::training::reference_segmenter::*;

    const TEI: &str = r#"<tei><teiHeader><fileDesc xml:id="_r"/></teiHeader><text xml:lang="en">
<listBibl>References<lb/>
<bibl><label>[1]</label> A. Smith, Title,<lb/> 2001.</bibl>
<bibl>B. Jones, Other, 1999.<lb/></bibl>
</listBibl></text></tei>"#;

    fn raw_row(tok: &str) -> String {
        let mut cols = vec![tok.to_string(); 10];
        cols.extend(["LINEIN", "ALIGNEDLEFT"].map(String::from));
        cols.extend((12..23).map(|i| format!("f{i}")));
        cols.extend(["0", "5", "BLOCKIN", "no", "0"].map(String::from));
        cols.join(" ")
    }

    fn no_lex() -> crate::lexicon::Lexicons {
        crate::lexicon::Lexicons::default()
    }

    /// GROBID raw rows (from the reference-segmenter corpus) covering the lexical cases.
    const RAW: &str = "\
Alexander alexander A Al Ale Alex r er der nder LINESTART ALIGNEDLEFT INITCAP NODIGIT 0 1 0 0 0 0 0 0 NOPUNCT 0 9 BLOCKSTART 9 0
, , , , , , , , , , LINEIN ALIGNEDLEFT ALLCAP NODIGIT 1 0 0 0 0 0 0 0 COMMA 0 9 BLOCKIN 9 0
( ( ( ( ( ( ( ( ( ( LINEIN ALIGNEDLEFT ALLCAP NODIGIT 1 0 0 0 0 0 0 0 OPENBRACKET 6 8 BLOCKIN 7 0
- - - - - - - - - - LINEIN ALIGNEDLEFT ALLCAP NODIGIT 1 0 0 0 0 0 0 0 HYPHEN 9 3 BLOCKIN 7 0
12 12 1 12 12 12 2 12 12 12 LINEIN ALIGNEDLEFT NOCAPS ALLDIGIT 0 0 0 0 0 0 0 0 NOPUNCT 10 9 BLOCKIN 10 0
1999a 1999a 1 19 199 1999 a 9a 99a 999a LINEIN ALIGNEDLEFT NOCAPS CONTAINSDIGITS 0 0 0 0 0 1 0 0 NOPUNCT 10 8 BLOCKIN 10 0
Journal journal J Jo Jou Jour l al nal rnal LINEIN ALIGNEDLEFT INITCAP NODIGIT 0 0 1 0 0 0 0 0 NOPUNCT 5 8 BLOCKIN 5 0
May may M Ma May May y ay May May LINEIN LINEINDENT INITCAP NODIGIT 0 1 1 0 0 0 1 0 NOPUNCT 5 8 BLOCKIN 7 0
] ] ] ] ] ] ] ] ] ] LINEIN ALIGNEDLEFT ALLCAP NODIGIT 1 0 0 0 0 0 0 0 ENDBRACKET 2 7 BLOCKIN 9 0
http http h ht htt http p tp ttp http LINESTART ALIGNEDLEFT NOCAPS NODIGIT 0 0 0 0 0 0 0 1 NOPUNCT 0 4 BLOCKEND 10 0
pp pp p pp pp pp p pp pp pp LINESTART LINEINDENT NOCAPS NODIGIT 0 0 0 0 0 0 0 0 NOPUNCT 1 2 BLOCKIN no 0
";

    /// The columns that do not depend on the lexicons (15 properName and 16 commonName do).
    fn text_columns() -> impl Iterator<Item = usize> {
        (0..15).chain(17..COLUMNS)
    }

    #[test]
    fn raw_rows_are_rebuilt_through_facts() {
        let raw = corpus::parse_raw_rows(RAW);
        let facts: Vec<TokenFacts> = raw
            .iter()
            .map(|r| TokenFacts::from_raw(r).unwrap())
            .collect();
        assert_eq!(facts[0].block, Pos::Start);
        assert_eq!(facts[9].block, Pos::End);
        assert!(facts[7].indented && !facts[6].indented);
        assert_eq!(facts[10].punct_profile, None);
        assert_eq!(facts[4].line_position, 10);
        let lex = no_lex();
        let rows = rows(&facts, &LexView::new(&lex));
        for (r, g) in rows.iter().zip(&raw) {
            assert_eq!(r.len(), COLUMNS);
            for c in text_columns() {
                assert_eq!(r[c], g[c], "column {c} of {}", g[0]);
            }
        }
        // Not a reference-segmenter row: no facts.
        let bad: Vec<String> = raw_row("x")
            .split(' ')
            .map(|s| s.replace("LINEIN", "L"))
            .collect();
        assert!(TokenFacts::from_raw(&bad).is_none());
        assert!(TokenFacts::from_raw(&raw[0][..20]).is_none());
    }

    fn rt(text: &str, sep: Sep) -> (TokenFacts, ZoneToken) {
        let facts = TokenFacts {
            text: text.into(),
            line: Pos::In,
            indented: false,
            line_position: 0,
            line_length: 0,
            block: Pos::In,
            punct_profile: None,
        };
        let line = LineRef {
            page: 0,
            block: 0,
            line: 0,
        };
        (
            facts,
            ZoneToken {
                line,
                index: 0,
                sep,
            },
        )
    }

    /// [`decode`] of tokens made by [`rt`].
    fn decode_pairs(
        toks: &[(TokenFacts, ZoneToken)],
        labels: &Labels,
    ) -> Result<Vec<RawReference>> {
        let (facts, zone): (Vec<_>, Vec<_>) = toks.iter().cloned().unzip();
        decode(&facts, &zone, labels)
    }

    fn labels(l: &[&str]) -> Vec<String> {
        l.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn decode_cuts_references_at_labels_and_reference_starts() {
        use Sep::{Newline as N, None as O, Space as S};
        let (facts, zone): (Vec<_>, Vec<_>) = [
            rt("References", N), // 0 other
            rt("[", O),          // 1 label
            rt("12", O),         // 2
            rt("]", S),          // 3
            rt("A", O),          // 4 reference
            rt(".", S),          // 5
            rt("Smith", O),      // 6
            rt(",", S),          // 7
            rt("Deep", S),       // 8
            rt("learn", O),      // 9
            rt("-", N),          // 10
            rt("ing", S),        // 11
            rt("Self", O),       // 12
            rt("-", N),          // 13
            rt("Supervised", N), // 14
            rt("13", O),         // 15 label
            rt(".", S),          // 16
            rt("B", O),          // 17 reference
            rt(".", S),          // 18
            rt("Jones", N),      // 19
            rt("page", S),       // 20 other: a running head
            rt("7", N),          // 21 other
            rt("2001", O),       // 22 reference, continued after the running head
            rt(".", N),          // 23
            rt(",", S),          // 24 reference without a label
            rt("C", S),          // 25
            rt("Doe", N),        // 26
            rt("[", O),          // 27 a label without a reference: dropped
            rt("14", O),         // 28
            rt("]", N),          // 29
        ]
        .into_iter()
        .unzip();
        let mut l = vec![
            "I-<other>",
            "I-<label>",
            "<label>",
            "<label>",
            "I-<reference>",
        ];
        l.extend(["<reference>"; 10]);
        l.extend([
            "I-<label>",
            "<label>",
            "I-<reference>",
            "<reference>",
            "<reference>",
        ]);
        l.extend(["I-<other>", "<other>", "<reference>", "<reference>"]);
        l.extend(["I-<reference>", "<reference>", "<reference>"]);
        l.extend(["I-<label>", "<label>", "<label>"]);
        let refs = decode(&facts, &zone, &Labels::from_names(labels(&l))).unwrap();
        assert_eq!(refs.len(), 3, "{refs:?}");
        assert_eq!(refs[0].marker.as_deref(), Some("12"));
        assert_eq!(refs[0].text, "A. Smith, Deep learning Self-Supervised");
        assert_eq!(refs[0].tokens, 1..15);
        assert_eq!(refs[1].marker.as_deref(), Some("13"));
        assert_eq!(refs[1].text, "B. Jones 2001.");
        assert_eq!(refs[1].tokens, 15..24);
        assert_eq!(refs[2].marker, None);
        assert_eq!(refs[2].text, "C Doe", "leading punctuation stripped");
        assert_eq!(refs[2].tokens, 24..27);
        // A label immediately followed by `I-<reference>` belongs to that reference.
        let (f2, z2): (Vec<_>, Vec<_>) =
            [rt("1", O), rt(".", S), rt("X", N), rt("2", S), rt("Y", N)]
                .into_iter()
                .unzip();
        let l2 = [
            "I-<label>",
            "<label>",
            "I-<reference>",
            "I-<label>",
            "I-<reference>",
        ];
        let refs2 = decode(&f2, &z2, &Labels::from_names(labels(&l2))).unwrap();
        let got: Vec<(Option<&str>, &str)> = refs2
            .iter()
            .map(|r| (r.marker.as_deref(), r.text.as_str()))
            .collect();
        assert_eq!(got, vec![(Some("1"), "X"), (Some("2"), "Y")]);
        assert!(decode(&f2[..2], &z2[..2], &Labels::from_names(labels(&l2))).is_err());
        assert!(decode(&f2, &z2[..2], &Labels::from_names(labels(&l2))).is_err());
    }

    #[test]
    fn document_tokens_walk_a_numbered_reference_list() {
        use crate::testutil::PdfBuilder;
        if crate::testutil::gate::require_pdfium().is_none() {
            return;
        }
        let pdf = PdfBuilder::new()
            .page(612.0, 792.0)
            .paragraph(
                72.0,
                720.0,
                "Times-Roman",
                10.0,
                12.0,
                &[
                    "[1] A. Smith, Deep learn-",
                    "ing of things, 2001.",
                    "[2] B. Jones, Other, 1999.",
                ],
            )
            .build();
        let doc = crate::layout::layout_pdf(
            &pdf,
            crate::layout::PageRange::default(),
            crate::layout::Limits::default(),
            None,
        )
        .unwrap();
        let mut lines = Vec::new();
        for (p, page) in doc.pages.iter().enumerate() {
            for (b, block) in page.blocks.iter().enumerate() {
                for l in 0..block.lines.len() {
                    lines.push(LineRef {
                        page: p,
                        block: b,
                        line: l,
                    });
                }
            }
        }
        assert_eq!(lines.len(), 3, "{doc:?}");
        let (facts, zone) = document_tokens(
            &doc,
            &crate::layout::tokens::LayoutTokens::new(&doc),
            &lines,
        );
        let texts: Vec<&str> = facts.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(
            texts,
            vec![
                "[", "1", "]", "A", ".", "Smith", ",", "Deep", "learn", "-", "ing", "of", "things",
                ",", "2001", ".", "[", "2", "]", "B", ".", "Jones", ",", "Other", ",", "1999", "."
            ]
        );
        // Every token maps back to its layout token.
        assert_eq!(zone.len(), facts.len());
        for (f, t) in facts.iter().zip(&zone) {
            let line = &doc.pages[t.line.page].blocks[t.line.block].lines[t.line.line];
            assert_eq!(line.tokens[t.index].text, f.text);
        }
        let status = |i: usize| (facts[i].line, zone[i].line.line);
        assert_eq!(status(0), (Pos::Start, 0));
        assert_eq!(status(1), (Pos::In, 0));
        assert_eq!(status(9), (Pos::End, 0));
        assert_eq!(status(10), (Pos::Start, 1));
        assert_eq!(status(15), (Pos::End, 1));
        assert_eq!(status(16), (Pos::Start, 2));
        assert_eq!(zone[9].sep, Sep::Newline);
        assert_eq!(zone[2].sep, Sep::Space);
        assert_eq!(zone[0].sep, Sep::None);
        // One paragraph, one layout block: its first and last tokens bound it.
        assert!(lines.iter().all(|l| l.block == lines[0].block));
        assert_eq!(facts[0].block, Pos::Start);
        assert_eq!(facts[26].block, Pos::End);
        assert!(facts[1..26].iter().all(|t| t.block == Pos::In));
        // Positions grow along a line; the longest line has the top length bin.
        assert_eq!(facts[0].line_position, 0);
        assert_eq!(facts[9].line_position, 10);
        assert!(facts[5].line_position > facts[1].line_position);
        // Line lengths (characters through the "\n"): 26, 22, 28.
        assert_eq!(facts[0].line_length, 9);
        assert_eq!(facts[10].line_length, 7);
        assert_eq!(facts[16].line_length, 10);
        // Punctuation profile of the first line: `[ ] . , -`.
        assert_eq!(facts[0].punct_profile, Some(5));
        let lex = no_lex();
        let r = rows(&facts, &LexView::new(&lex));
        assert!(r.iter().all(|row| row.len() == COLUMNS));
        assert_eq!(r[0][10], "LINESTART");
        assert_eq!(r[0][22], "OPENBRACKET");
        // Tagged as GROBID would: two references, the hyphenated word joined.
        let mut l = vec!["I-<label>", "<label>", "<label>", "I-<reference>"];
        l.extend(["<reference>"; 12]);
        l.extend(["I-<label>", "<label>", "<label>", "I-<reference>"]);
        l.extend(["<reference>"; 7]);
        let refs = decode(&facts, &zone, &Labels::from_names(labels(&l))).unwrap();
        assert_eq!(refs.len(), 2);
        assert_eq!(refs[0].marker.as_deref(), Some("1"));
        assert_eq!(refs[0].text, "A. Smith, Deep learning of things, 2001.");
        assert_eq!(refs[1].text, "B. Jones, Other, 1999.");
        assert_eq!(refs[1].tokens, 16..27);
    }

    /// Gated on the unpacked corpus: the lexical columns Quire computes (with the lexicons
    /// built from the dataset) against GROBID's own, over every raw row of the corpus.
    #[test]
    fn corpus_rows_match_grobid_lexical_columns() {
        let Some(ds) = crate::testutil::gate::require_dataset("reference-segmenter/corpus/raw")
        else {
            return;
        };
        let dir = ds.join("reference-segmenter/corpus");
        let (pairs, _) = corpus::pair_files(&dir, "referenceSegmenter").unwrap();
        assert!(pairs.len() >= 100, "{} pairs", pairs.len());
        let built = crate::corpus::lexicons::built_for(&ds);
        let lex = LexView::new(&built.lexicons);
        let mut same = [0usize; COLUMNS];
        let mut total = 0usize;
        for p in &pairs {
            let raw = corpus::read_raw_rows(&p.raw).unwrap();
            let facts: Vec<TokenFacts> = raw
                .iter()
                .map(|r| TokenFacts::from_raw(r).unwrap())
                .collect();
            for (r, g) in rows(&facts, &lex).iter().zip(&raw) {
                total += 1;
                for c in 0..COLUMNS {
                    same[c] += usize::from(r[c] == g[c]);
                }
            }
        }
        let share = |c: usize| same[c] as f64 / total as f64;
        for c in 0..COLUMNS {
            eprintln!("column {c}: {:.4}", share(c));
        }
        for c in (0..15).chain(17..COLUMNS) {
            assert!(share(c) >= 0.999, "column {c}: {:.4}", share(c));
        }
        // Lexicon columns: Quire's lexicons are not GROBID's.
        assert!(
            share(15) >= PROPER_NAME_FLOOR,
            "properName {:.4}",
            share(15)
        );
        assert!(
            share(16) >= COMMON_WORD_FLOOR,
            "commonName {:.4}",
            share(16)
        );
    }
    /// Measured on the 122-file corpus: properName 95.68 %, commonName 91.30 %.
    const PROPER_NAME_FLOOR: f64 = 0.95;
    const COMMON_WORD_FLOOR: f64 = 0.90;

    #[test]
    fn tei_tokens_mark_labels_references_and_line_breaks() {
        let ev = corpus::parse_tei(TEI).unwrap();
        let got = tei_tokens(&ev);
        let got: Vec<(&str, &str)> = got.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        assert_eq!(
            got,
            vec![
                ("References", "I-<other>"),
                (NEWLINE, ""),
                ("[", "I-<label>"),
                ("1", "<label>"),
                ("]", "<label>"),
                ("A", "I-<reference>"),
                (".", "<reference>"),
                ("Smith", "<reference>"),
                (",", "<reference>"),
                ("Title", "<reference>"),
                (",", "<reference>"),
                (NEWLINE, ""),
                ("2001", "<reference>"),
                (".", "<reference>"),
                ("B", "I-<reference>"),
                (".", "<reference>"),
                ("Jones", "<reference>"),
                (",", "<reference>"),
                ("Other", "<reference>"),
                (",", "<reference>"),
                ("1999", "<reference>"),
                (".", "<reference>"),
                (NEWLINE, ""),
            ]
        );
    }

    #[test]
    fn raw_rows_align_and_misaligned_files_drop() {
        let ds = std::env::temp_dir().join(format!("quire-refseg-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&ds);
        let c = ds.join("reference-segmenter/corpus");
        let w = |sub: &str, name: &str, text: &str| {
            std::fs::create_dir_all(c.join(sub)).unwrap();
            std::fs::write(c.join(sub).join(name), text).unwrap();
        };
        let toks = [
            "References",
            "[",
            "1",
            "]",
            "A",
            ".",
            "Smith",
            "page-7", // a running head that the TEI left out: dropped
            ",",
            "Title",
            ",",
            "2001",
            ".",
            "B",
            ".",
            "Jones",
        ];
        let raw: Vec<String> = toks.iter().map(|t| raw_row(t)).collect();
        w(
            "tei",
            "a.training.references.referenceSegmenter.tei.xml",
            TEI,
        );
        w(
            "raw",
            "a.training.references.referenceSegmenter",
            &raw.join("\n"),
        );
        w(
            "tei",
            "m.training.references.referenceSegmenter.tei.xml",
            "<tei><text><listBibl><bibl n=\"1>x</bibl></listBibl></text></tei>",
        );
        w(
            "raw",
            "m.training.references.referenceSegmenter",
            &raw_row("x"),
        );
        let (seqs, stats) = read_dir(&ds, Part::Corpus).unwrap();
        assert_eq!(stats.files_read, 1);
        assert_eq!(stats.unaligned, 1);
        assert_eq!(seqs.len(), 1);
        assert_eq!(seqs[0].rows.len(), toks.len() - 1);
        assert_eq!(seqs[0].rows[0].len(), COLUMNS);
        let starts: Vec<&str> = seqs[0]
            .labels
            .iter()
            .filter(|l| l.starts_with("I-"))
            .map(String::as_str)
            .collect();
        assert_eq!(
            starts,
            vec!["I-<other>", "I-<label>", "I-<reference>", "I-<reference>"]
        );
        assert_eq!(stats.files_dropped.len(), 1);
        let (path, why) = &stats.files_dropped[0];
        assert!(path.ends_with("m.training.references.referenceSegmenter.tei.xml"));
        assert!(
            why.contains("m.training.references.referenceSegmenter.tei.xml"),
            "{why}"
        );
        std::fs::remove_dir_all(&ds).unwrap();
    }

    /// [`super::push_joined`] in a zone that says nothing about its words.
    fn push_joined(s: &mut String, sep: Sep, tok: &str, line: &str) {
        super::push_joined(s, sep, tok, line, &Hyphens::default());
    }

    /// A line-final hyphen goes (`environ-` `mental`), unless the zone prints the word with
    /// the hyphen elsewhere or the continuation is a compound's tail word (`plant-based`); a
    /// word the zone prints whole is joined whole even after a tail word.
    #[test]
    fn line_end_hyphens_follow_the_zone_and_compound_tails() {
        let zone = Hyphens {
            hyphenated: ["eco-anxiety".to_string()].into(),
            whole: ["interrelated".to_string()].into(),
        };
        let join = |before: &str, tok: &str, line: &str| {
            let mut s = before.to_string();
            super::push_joined(&mut s, Sep::Newline, tok, line, &zone);
            s
        };
        assert_eq!(
            join("Youth eco-", "anxiety", "anxiety and"),
            "Youth eco-anxiety"
        );
        assert_eq!(
            join("An environ-", "mental", "mental study"),
            "An environmental"
        );
        assert_eq!(join("Plant-", "based", "based diets"), "Plant-based");
        assert_eq!(join("Time-", "dependent", "dependent."), "Time-dependent");
        assert_eq!(join("the inter-", "related", "related"), "the interrelated");
        // A capitalised continuation is a compound already (unchanged behaviour).
        assert_eq!(join("Anglo-", "Saxon", "Saxon"), "Anglo-Saxon");
        // What a zone's words say: hyphenated pairs within a line, whole words.
        let (facts, zone): (Vec<_>, Vec<_>) = [
            rt("Eco", Sep::None),
            rt("-", Sep::None),
            rt("anxiety", Sep::Space),
            rt("ecosystems", Sep::Newline),
        ]
        .into_iter()
        .unzip();
        let h = Hyphens::of(Tokens {
            facts: &facts,
            zone: &zone,
        });
        assert!(h.hyphenated.contains("eco-anxiety"), "{h:?}");
        assert!(h.whole.contains("ecosystems"), "{h:?}");
    }

    #[test]
    fn identifiers_broken_over_lines_are_joined_and_words_are_not() {
        let mut s = String::from("Smith J. A title. https://doi.org/10.1016/");
        push_joined(&mut s, Sep::Newline, "j.envres.2020.1", "j.envres.2020.1");
        assert!(
            s.ends_with("https://doi.org/10.1016/j.envres.2020.1"),
            "{s}"
        );
        push_joined(&mut s, Sep::Newline, "02263", "02263");
        assert!(s.ends_with("10.1016/j.envres.2020.102263"), "{s}");
        let mut t = String::from("See https://example.org/data-");
        push_joined(&mut t, Sep::Newline, "set", "set");
        assert!(t.ends_with("https://example.org/data-set"), "{t}");
        // A host name after a scheme or `www.` is the URL's own.
        let mut h = String::from("Report. https://");
        push_joined(&mut h, Sep::Newline, "doi", "doi.org/10.1080/1.2");
        assert!(h.ends_with(" https://doi"), "{h}");
        let mut h = String::from("Report. https://www.");
        push_joined(
            &mut h,
            Sep::Newline,
            "example",
            "example.org/page.pdf (2020)",
        );
        assert!(h.ends_with(" https://www.example"), "{h}");
        let mut w = String::from("Nature 5:1-9. 10.1038/");
        push_joined(
            &mut w,
            Sep::Newline,
            "s41380-021-01161-7",
            "s41380-021-01161-7",
        );
        assert!(w.ends_with(" 10.1038/s41380-021-01161-7"), "{w}");
        let mut u = String::from("doi:10.1000/xyz");
        push_joined(&mut u, Sep::Newline, "PMID", "PMID");
        assert_eq!(u, "doi:10.1000/xyz PMID");
        let mut v = String::from("Journal of Examples. 2001;");
        push_joined(&mut v, Sep::Newline, "12", "12");
        assert_eq!(v, "Journal of Examples. 2001; 12");
    }

    #[test]
    fn identifiers_end_before_reference_numbers_running_heads_and_closed_brackets() {
        // The next reference's number opens the next line: the DOI ended.
        let mut s = String::from("J Public Health. 33:1-12. doi: 10.1007/s10389-025-02418-z");
        push_joined(&mut s, Sep::Newline, "21", "21. Vandenberg, SY, Chircop, A");
        assert!(s.ends_with("02418-z 21"), "{s}");
        let mut s = String::from("Educ Med J. doi: 10.21315/eimj2024.16.2.7");
        push_joined(&mut s, Sep::Newline, "24", "24) World Health Organization");
        assert!(s.ends_with("2.7 24"), "{s}");
        // But a digit run that is no reference number still continues it.
        let mut s = String::from("https://doi.org/10.1177/0165025424126");
        push_joined(&mut s, Sep::Newline, "6119", "6119.");
        assert!(s.ends_with("10.1177/01650254241266119"), "{s}");
        // A running foot (a web host) is no part of the DOI.
        let mut s = String::from("(2022) 19:7974. doi:10.3390/ijerph19137974");
        push_joined(&mut s, Sep::Newline, "frontiersin", "frontiersin.org");
        assert!(s.ends_with("ijerph19137974 frontiersin"), "{s}");
        // `(doi:…)` closed by its bracket: what follows is something else.
        let mut s = String::from("Energy 148, 461-468. (doi:10.1016/j.energy.2018.01.177)");
        push_joined(&mut s, Sep::Newline, "running", "running head text");
        assert!(s.ends_with("01.177) running"), "{s}");
        let mut s = String::from("(doi: 10.1175/1520-0434(1999)014<0338:PFUANN>2.0.CO;2)");
        push_joined(&mut s, Sep::Newline, "62", "62");
        assert!(s.ends_with("CO;2) 62"), "{s}");
        // An unclosed bracket inside the DOI does not end it.
        let mut s = String::from("(doi:10.1016/S0140-6736(20)");
        push_joined(&mut s, Sep::Newline, "30123-4", "30123-4)");
        assert!(s.ends_with("6736(20)30123-4"), "{s}");
        // After a `.`, a capitalised word is the next field, not the DOI's rest.
        let mut s = String::from("2021;12:675936. doi:10.3389/fpsyt.2021.675936.");
        push_joined(&mut s, Sep::Newline, "European", "European Psychiatry");
        assert!(s.ends_with("675936. European"), "{s}");
    }

    #[test]
    fn identifiers_continue_after_a_separator_and_through_zero_width_characters() {
        // The line goes on with a `.` and the DOI's rest.
        let mut s = String::from("Front Vet Sci 5:303. https://doi.org/10.3389/fvets");
        push_joined(&mut s, Sep::Newline, ".", ".2018.00303");
        assert!(s.ends_with("10.3389/fvets."), "{s}");
        // ... but a lone full stop is punctuation.
        let mut s = String::from("doi:10.1000/xyz");
        push_joined(&mut s, Sep::Newline, ".", ". Accessed 2020");
        assert!(s.ends_with("xyz ."), "{s}");
        // Zero-width characters are dropped, also where they hide the separator.
        let mut s = String::from("https://doi.org/10.3389/fvets");
        push_joined(&mut s, Sep::Newline, "\u{200B}.", ".2018.00303");
        assert_eq!(s, "https://doi.org/10.3389/fvets.");
        let mut s = String::from("https://doi.org/10.1016/");
        push_joined(&mut s, Sep::None, "j.x\u{2060}yz\u{FEFF}", "");
        assert_eq!(s, "https://doi.org/10.1016/j.xyz");
    }

    #[test]
    fn a_dois_rest_cut_off_as_a_label_or_a_reference_start_is_taken_back() {
        use Sep::{Newline as N, None as O, Space as S};
        let toks = vec![
            rt("20", O),            // 0 label
            rt(".", S),             // 1
            rt("Adebayo", S),       // 2 reference
            rt("A", O),             // 3
            rt(".", S),             // 4
            rt("https", O),         // 5
            rt("://", O),           // 6
            rt("doi.org/", O),      // 7
            rt("10.3390/", O),      // 8
            rt("ijerph1719696", N), // 9
            rt("9", O),             // 10 label (wrongly)
            rt(".", N),             // 11
            rt("21", O),            // 12 label
            rt(".", S),             // 13
            rt("Aran", S),          // 14 reference
            rt("N", O),             // 15
            rt(".", N),             // 16
        ];
        let l = labels(&[
            "I-<label>",
            "<label>",
            "I-<reference>",
            "<reference>",
            "<reference>",
            "<reference>",
            "<reference>",
            "<reference>",
            "<reference>",
            "<reference>",
            "I-<label>",
            "<label>",
            "I-<label>",
            "<label>",
            "I-<reference>",
            "<reference>",
            "<reference>",
        ]);
        let refs = decode_pairs(&toks, &Labels::from_names(&l)).unwrap();
        assert_eq!(refs.len(), 2, "{refs:?}");
        assert!(
            refs[0]
                .text
                .ends_with("https://doi.org/10.3390/ijerph17196969."),
            "{}",
            refs[0].text
        );
        assert_eq!(refs[1].marker.as_deref(), Some("21"));
        assert_eq!(refs[1].text, "Aran N.");
        // The next reference's own number on a line of its own is not taken.
        let mut l2 = l.clone();
        let mut toks2 = toks.clone();
        toks2[10] = rt("21", O);
        toks2[12] = rt("x", O);
        l2[12] = "<label>".into();
        let refs = decode_pairs(&toks2, &Labels::from_names(&l2)).unwrap();
        assert_eq!(refs.len(), 2, "{refs:?}");
        assert!(refs[0].text.ends_with("ijerph1719696"), "{}", refs[0].text);
        // A cut-off rest labelled as the start of a reference (`aab3050)`), the next
        // reference beginning after it without an `I-` of its own.
        let toks3 = vec![
            rt("108", O),                 // 0 label
            rt(".", S),                   // 1
            rt("Lake", S),                // 2 reference
            rt("(", O),                   // 3
            rt("doi:10.1126/science", O), // 4
            rt(".", N),                   // 5
            rt("aab3050", O),             // 6 reference start (wrongly)
            rt(")", N),                   // 7
            rt("Smieja", S),              // 8 reference (no I-)
            rt("M", N),                   // 9
        ];
        let l3 = labels(&[
            "I-<label>",
            "<label>",
            "I-<reference>",
            "<reference>",
            "<reference>",
            "<reference>",
            "I-<reference>",
            "<reference>",
            "<reference>",
            "<reference>",
        ]);
        let refs = decode_pairs(&toks3, &Labels::from_names(&l3)).unwrap();
        assert_eq!(refs.len(), 2, "{refs:?}");
        assert_eq!(refs[0].text, "Lake (doi:10.1126/science.aab3050)");
        assert_eq!(refs[1].text, "Smieja M");
    }
}
