//! Header model: labels the tokens of the header zone (title, author, affiliation, abstract, …)
//! and decodes the labelled tokens into field strings (reference grobid-models.md §1.3, §2.3,
//! §3.2).
//!
//! One feature path, as for segmentation: a token is described by its [`TokenFacts`] (layout
//! facts: block/line position, indentation, font changes, e-mail/URL spans, relative font
//! size), read from GROBID's raw files at training ([`TokenFacts::from_raw`]) or from a PDF's
//! layout at run time ([`document_tokens`]); [`rows`] then computes the 31 feature columns,
//! lexical ones included, for both.

use std::ops::Range;

use crate::labels::{Labels, Tag};
use crate::layout::tokens::{FontId, LayoutTokens};
use crate::layout::{Document, ZoneToken};
use crate::lexicon::{Kind, LexView};
use crate::models::lexical::{self as lx, bit};
use crate::models::name;
use crate::models::segmentation::{LineRef, SizeChange};
use crate::{Error, Result};

model_labels!(
    "header",
    /// GROBID's header labels.
    {
        Title => "<title>",
        Author => "<author>",
        Affiliation => "<affiliation>",
        Address => "<address>",
        Email => "<email>",
        Pubnum => "<pubnum>",
        Reference => "<reference>",
        Keyword => "<keyword>",
        Abstract => "<abstract>",
        Date => "<date>",
        Editor => "<editor>",
        Meeting => "<meeting>",
        Submission => "<submission>",
        Copyright => "<copyright>",
        Funding => "<funding>",
        Doctype => "<doctype>",
        Group => "<group>",
        Availability => "<availability>",
        Web => "<web>",
        Other => "<other>",
    }
);

pub use crate::models::lexical::Pos;

/// The layout facts of one header token (everything in a feature row that is not computed
/// from the token's text).
#[derive(Debug, Clone, PartialEq)]
pub struct TokenFacts {
    pub text: String,
    pub block: Pos,
    pub line: Pos,
    pub indented: bool,
    pub new_font: bool,
    pub font_size: SizeChange,
    pub bold: bool,
    pub italic: bool,
    pub email: bool,
    pub http: bool,
    pub largest: bool,
    pub smallest: bool,
    pub larger_than_average: bool,
}

impl TokenFacts {
    /// The facts of one row of a GROBID raw header file (32 columns, the last a `0`).
    pub fn from_raw(c: &[String]) -> Option<TokenFacts> {
        if c.len() < 31 {
            return None;
        }
        Some(TokenFacts {
            text: c[0].clone(),
            block: Pos::parse(&c[10], lx::BLOCK_POS)?,
            line: Pos::parse(&c[11], lx::LINE_POS)?,
            indented: c[12] == "LINEINDENT",
            new_font: c[13] == "NEWFONT",
            font_size: SizeChange::parse(&c[14])?,
            bold: lx::parse_bool(&c[15])?,
            italic: lx::parse_bool(&c[16])?,
            email: lx::parse_bool(&c[25])?,
            http: lx::parse_bool(&c[26])?,
            largest: lx::parse_bool(&c[28])?,
            smallest: lx::parse_bool(&c[29])?,
            larger_than_average: lx::parse_bool(&c[30])?,
        })
    }
}

/// THE feature function: facts in, the 31 feature columns (plus GROBID's `0` placeholder
/// column, kept so the column numbers match GROBID's) out.
pub fn rows(tokens: &[TokenFacts], lex: &LexView<'_>) -> crate::features::Rows {
    let texts: Vec<&str> = tokens.iter().map(|t| t.text.as_str()).collect();
    let locations = lx::locations(&texts, lex);
    tokens
        .iter()
        .zip(locations)
        .map(|(f, loc)| {
            let t = f.text.as_str();
            let mut r: crate::features::Row = Vec::with_capacity(32);
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
            r.push(bit(lx::proper_name(t, lex)).into());
            r.push(bit(lx::common_word(t, lex)).into());
            r.push(bit(lx::year(t)).into());
            r.push(bit(lx::month(t)).into());
            r.push(bit(loc).into());
            r.push(bit(f.email).into());
            r.push(bit(f.http).into());
            r.push(lx::punct_type(t).into());
            r.push(bit(f.largest).into());
            r.push(bit(f.smallest).into());
            r.push(bit(f.larger_than_average).into());
            r.push("0".into());
            r
        })
        .collect()
}

pub use crate::layout::Sep;

/// One header token of a document: its facts, its zone token (where it is, what follows it),
/// and its font, which the header's decoding rules compare.
#[derive(Debug, Clone, PartialEq)]
pub struct HeaderToken {
    pub facts: TokenFacts,
    pub at: ZoneToken,
    /// The token's font: its lower-cased name, interned per document (equal ids, equal
    /// names; the header's rules only compare fonts), and its size in tenths of a point.
    pub font: (FontId, i32),
}

/// Mark the tokens of `texts` (joined by `seps`) that fall in e-mail and URL spans.
fn email_http_flags(texts: &[&str], spaced: &[bool]) -> (Vec<bool>, Vec<bool>) {
    let mut s = String::new();
    let mut ranges = Vec::with_capacity(texts.len());
    for (t, sp) in texts.iter().zip(spaced) {
        let a = s.len();
        s.push_str(t);
        ranges.push((a, s.len()));
        if *sp {
            s.push(' ');
        }
    }
    let bytes = s.as_bytes();
    let mut email_spans = Vec::new();
    for (at, _) in s.match_indices('@') {
        let local_ok = |c: u8| c.is_ascii_alphanumeric() || b"._%+-".contains(&c);
        let dom_ok = |c: u8| c.is_ascii_alphanumeric() || c == b'.' || c == b'-';
        let mut a = at;
        while a > 0 && local_ok(bytes[a - 1]) {
            a -= 1;
        }
        let mut b = at + 1;
        while b < bytes.len() && dom_ok(bytes[b]) {
            b += 1;
        }
        while b > at + 1 && bytes[b - 1] == b'.' {
            b -= 1;
        }
        if a < at && s[at + 1..b].contains('.') {
            email_spans.push((a, b));
        }
    }
    let mut url_spans = Vec::new();
    let lower = s.to_ascii_lowercase();
    for pat in ["http", "www."] {
        for (at, _) in lower.match_indices(pat) {
            let mut b = at;
            while b < bytes.len() && !bytes[b].is_ascii_whitespace() {
                b += 1;
            }
            url_spans.push((at, b));
        }
    }
    let inside = |spans: &[(usize, usize)], (a, b): (usize, usize)| {
        spans.iter().any(|&(x, y)| a < y && x < b)
    };
    (
        ranges.iter().map(|r| inside(&email_spans, *r)).collect(),
        ranges.iter().map(|r| inside(&url_spans, *r)).collect(),
    )
}

/// The header tokens of the given lines (the segmentation's header zone), block by block;
/// `toks` are the document's layout tokens.
pub fn document_tokens(doc: &Document, toks: &LayoutTokens, lines: &[LineRef]) -> Vec<HeaderToken> {
    // Font statistics over every token of the zone, whitespace tokens (size 0) included.
    let mut sizes: Vec<f32> = Vec::new();
    for r in lines {
        let Some(line) = doc.line(r) else {
            continue;
        };
        let spaces = line.text().matches(' ').count();
        sizes.extend(line.tokens.iter().map(|t| t.font_size));
        sizes.extend(std::iter::repeat_n(0.0, spaces + 1));
    }
    let largest = sizes.iter().copied().fold(f32::MIN, f32::max);
    let smallest = sizes.iter().copied().fold(f32::MAX, f32::min);
    let mean = if sizes.is_empty() {
        0.0
    } else {
        sizes.iter().sum::<f32>() / sizes.len() as f32
    };

    let mut out: Vec<HeaderToken> = Vec::new();
    let mut fonts = lx::FontChanges::default();
    let mut indentation = lx::Indentation::default();
    let mut i = 0;
    while i < lines.len() {
        let (page, block) = (lines[i].page, lines[i].block);
        let mut j = i;
        while j < lines.len() && lines[j].page == page && lines[j].block == block {
            j += 1;
        }
        // One block's lines: lines[i..j].
        let mut block_tokens: Vec<HeaderToken> = Vec::new();
        for r in &lines[i..j] {
            let Some(line) = doc.line(r) else {
                continue;
            };
            for lt in toks.line(r) {
                let t = &line.tokens[lt.index];
                let (first_in_line, last_in_line) = (lt.first, lt.blank_after);
                let text = lt.text.clone();
                if first_in_line {
                    indentation.line_start(t, &text, !out.is_empty());
                }
                let (new_font, font_size) = fonts.next(lt);
                let facts = TokenFacts {
                    text,
                    block: if block_tokens.is_empty() {
                        Pos::Start
                    } else {
                        Pos::In
                    },
                    line: if first_in_line {
                        Pos::Start
                    } else if last_in_line {
                        Pos::End
                    } else {
                        Pos::In
                    },
                    indented: indentation.indented(),
                    new_font,
                    font_size,
                    bold: t.bold,
                    italic: t.italic,
                    email: false,
                    http: false,
                    largest: t.font_size == largest,
                    smallest: t.font_size == smallest,
                    larger_than_average: t.font_size > mean,
                };
                let sep = if last_in_line {
                    Sep::Newline
                } else if t.space_after {
                    Sep::Space
                } else {
                    Sep::None
                };
                block_tokens.push(HeaderToken {
                    facts,
                    at: ZoneToken {
                        line: *r,
                        index: lt.index,
                        sep,
                    },
                    font: (lt.font, (t.font_size * 10.0).round() as i32),
                });
            }
        }
        let spaced: Vec<bool> = block_tokens.iter().map(|t| t.at.sep != Sep::None).collect();
        let owned: Vec<&str> = block_tokens.iter().map(|t| t.facts.text.as_str()).collect();
        let (emails, urls) = email_http_flags(&owned, &spaced);
        let n = block_tokens.len();
        for (k, (t, (e, u))) in block_tokens
            .iter_mut()
            .zip(emails.into_iter().zip(urls))
            .enumerate()
        {
            t.facts.email = e;
            t.facts.http = u;
            if k + 1 == n {
                t.facts.block = Pos::End;
                t.facts.line = Pos::End;
            }
        }
        out.extend(block_tokens);
        i = j;
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Decoding

/// The header's fields as labelled text spans, in document order. Each span is one field
/// occurrence (a new `I-` label or a label change starts a new one).
///
/// `largest` and `tokens` run beside `spans` when the spans were decoded from tokens (both
/// are empty otherwise). A rule that splits a span at line breaks gives each part the
/// tokens of its lines ([`HeaderFields::line_tokens`]); text a rule makes up gets an empty
/// range.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HeaderFields {
    pub spans: Vec<(Label, String)>,
    /// Per span: how many of its tokens are in the header's largest font.
    pub largest: Vec<usize>,
    /// Per span: its range of header tokens (indices into `decode`'s `tokens`).
    pub tokens: Vec<Range<usize>>,
    /// The header tokens that start a line inside a span (their predecessor ends with a line
    /// break), ascending: where a span's text has a `\n`.
    pub line_starts: Vec<usize>,
    /// `<abstract>` spans that are the body's opening text set after the abstract in another
    /// face ([`abstract_in_other_face`]): not abstract, they open the body.
    pub body_text: Vec<usize>,
}

impl HeaderFields {
    /// Fields made of the given spans (tests of the decoding rules).
    #[cfg(test)]
    pub(crate) fn of(spans: &[(Label, &str)]) -> HeaderFields {
        HeaderFields {
            spans: spans.iter().map(|(l, s)| (*l, s.to_string())).collect(),
            ..Default::default()
        }
    }

    /// Whether `tokens` runs beside `spans`.
    fn traced(&self) -> bool {
        self.tokens.len() == self.spans.len()
    }

    /// The header tokens of span `i` (empty when not traced).
    pub fn span_tokens(&self, i: usize) -> Range<usize> {
        if self.traced() {
            self.tokens.get(i).cloned().unwrap_or(0..0)
        } else {
            0..0
        }
    }

    /// The header tokens of lines `lines` of span `i` (its text split at `\n`): what a rule
    /// that cuts a span at line breaks gives each part. Empty when not traced.
    pub fn line_tokens(&self, i: usize, lines: Range<usize>) -> Range<usize> {
        let all = self.span_tokens(i);
        if all.is_empty() {
            return all;
        }
        let inner = self
            .line_starts
            .iter()
            .copied()
            .filter(|&t| t > all.start && t < all.end);
        let starts: Vec<usize> = std::iter::once(all.start).chain(inner).collect();
        let at = |k: usize| starts.get(k).copied().unwrap_or(all.end);
        let (a, b) = (at(lines.start), at(lines.end));
        a..b.max(a)
    }

    /// Author spans whose tokens all lie on `lines` become `Other` unless the front matter
    /// prints each of their words too: names read in header runs far from the byline (see
    /// `Zones::late_header_lines`; a social-media line near the end of a paper) are not the
    /// paper's authors, but an author list printed again with the affiliations at the end of
    /// a paper names the byline's people and links them to their affiliations.
    pub fn drop_authors_on(
        &mut self,
        tokens: &[HeaderToken],
        lines: &std::collections::HashSet<LineRef>,
    ) {
        if lines.is_empty() || !self.traced() {
            return;
        }
        let late: Vec<bool> = (0..self.spans.len())
            .map(|i| {
                let range = self.span_tokens(i);
                !range.is_empty()
                    && tokens
                        .get(range)
                        .is_some_and(|ts| ts.iter().all(|t| lines.contains(&t.at.line)))
            })
            .collect();
        let words = |s: &str| -> Vec<String> {
            s.split(|c: char| !c.is_alphabetic())
                .filter(|w| w.chars().count() >= 2)
                .map(str::to_lowercase)
                .collect()
        };
        // Every word the front matter prints, whatever the header model made of it.
        let front: std::collections::HashSet<String> = tokens
            .iter()
            .filter(|t| !lines.contains(&t.at.line))
            .flat_map(|t| words(&t.facts.text))
            .collect();
        for (i, late) in late.into_iter().enumerate() {
            let (label, text) = &self.spans[i];
            if *label == Label::Author && late && !words(text).iter().all(|w| front.contains(w)) {
                self.spans[i].0 = Label::Other;
            }
        }
    }

    /// Every span of a label.
    pub fn all(&self, label: Label) -> impl Iterator<Item = &str> {
        self.spans
            .iter()
            .filter(move |(l, _)| *l == label)
            .map(|(_, s)| s.as_str())
    }
    /// The first span of a label.
    pub fn first(&self, label: Label) -> Option<&str> {
        self.all(label).next()
    }
    pub fn is_empty(&self) -> bool {
        self.spans.iter().all(|(l, _)| *l == Label::Other)
    }
    /// The span of a label with the most tokens in the largest font (the first on a tie):
    /// a series name labelled as a title beside the real, larger title loses.
    pub fn most_prominent(&self, label: Label) -> Option<&str> {
        self.most_prominent_at(label)
            .and_then(|i| self.spans.get(i))
            .map(|(_, s)| s.as_str())
    }
    /// The index of [`HeaderFields::most_prominent`]'s span.
    pub fn most_prominent_at(&self, label: Label) -> Option<usize> {
        let mut best: Option<(usize, usize)> = None;
        for (i, (l, _)) in self.spans.iter().enumerate() {
            if *l != label {
                continue;
            }
            let n = self.largest.get(i).copied().unwrap_or(0);
            if best.is_none_or(|(b, _)| n > b) {
                best = Some((n, i));
            }
        }
        best.map(|(_, i)| i)
    }
}

/// Words that name organisations, never persons (`Mozilla Corporation` closing an author
/// line, an affiliation line read as a name, a byline continuation).
pub(crate) const ORGANISATION_WORDS: &[&str] = &[
    "center",
    "centre",
    "clinic",
    "clinics",
    "college",
    "consortium",
    "corp",
    "corporation",
    "department",
    "equipe",
    "faculty",
    "foundation",
    "gmbh",
    "hospital",
    "hospitals",
    "inc",
    "institut",
    "institute",
    "instituto",
    "laboratoire",
    "laboratories",
    "laboratory",
    "labs",
    "llc",
    "ltd",
    "ospedale",
    "school",
    "universidad",
    "universidade",
    "universita",
    "universitat",
    "universite",
    "university",
];

/// Words that name places, roles or groups, never a person (with [`ORGANISATION_WORDS`]): a
/// byline continuation holding one is not a list of names.
const NOT_NAME_WORDS: &[&str] = &[
    "academy",
    "agency",
    "author",
    "authors",
    "avenue",
    "box",
    "council",
    "division",
    "for",
    "group",
    "ministry",
    "program",
    "programme",
    "research",
    "road",
    "service",
    "society",
    "street",
    "study",
    "team",
    "the",
    "trust",
    "unit",
];

/// Whether `b` is the line right after `a`: the next line of a block, or the first of the
/// next block, on the same page.
fn next_line(a: LineRef, b: LineRef) -> bool {
    a.page == b.page
        && ((a.block == b.block && b.line == a.line + 1) || (b.block == a.block + 1 && b.line == 0))
}

/// An affiliation mark after a name: digits, or symbols such as `*` and `†`.
fn mark_token(t: &str) -> bool {
    (!t.is_empty() && t.len() <= 3 && t.chars().all(|c| c.is_ascii_digit()))
        || (!t.is_empty() && t.chars().all(|c| "*†‡§¶#".contains(c)))
}

/// Whether the words of `item` (one comma-separated entry) have the shape of one person's
/// name: two to six capitalised words, initials or particles, then marks; no place,
/// organisation or role word. `Some(known)`: a name, `known` when a word of it is a given
/// name or surname of the lexicons; an entry of marks alone is `Some(true)`.
fn name_item(item: &[HeaderToken], lex: &LexView) -> Option<bool> {
    let texts: Vec<&str> = item.iter().map(|t| t.facts.text.as_str()).collect();
    let words = texts.iter().take_while(|t| !mark_token(t)).count();
    if texts[words..].iter().any(|t| !mark_token(t)) {
        return None;
    }
    // An entry of marks alone (`2` of `Name 1, 2`) belongs to the name before it.
    if words == 0 {
        return Some(true);
    }
    let words = &texts[..words];
    let shaped = |w: &&str| {
        let w = w.trim_end_matches('.');
        let lower = w.to_lowercase();
        if name::PARTICLES.contains(&lower.as_str()) {
            return true;
        }
        w.chars().next().is_some_and(char::is_uppercase)
            && w.chars()
                .all(|c| c.is_alphabetic() || matches!(c, '-' | '\'' | '\u{2019}'))
            && !NOT_NAME_WORDS.contains(&lower.as_str())
            && !ORGANISATION_WORDS.contains(&lower.as_str())
    };
    let known = |w: &&str| {
        w.chars().filter(|c| c.is_alphabetic()).count() >= 2
            && (lex.has_word(Kind::FirstName, w) || lex.has_word(Kind::LastName, w))
    };
    ((2..=6).contains(&words.len()) && words.iter().all(shaped)).then(|| words.iter().any(known))
}

/// A byline running on over the next lines in its font, which the model gave to another field
/// (after a margin column of affiliations, `Giulia Ferri, Omar Qureshi, …` read as an
/// address): the comma-separated entries that follow an author span on the lines right after
/// it, in the same font, become author tokens, up to the first entry that is not shaped as
/// a name, when at least half of those entries hold a given name or surname the lexicons
/// know.
fn extend_byline(tokens: &[HeaderToken], tags: &mut [Tag<Label>], lex: &LexView) {
    let n = tokens.len().min(tags.len());
    let sep = |t: &str| matches!(t, "," | ";" | "and" | "&");
    let mut k = 0;
    while k < n {
        if tags[k].label != Label::Author {
            k += 1;
            continue;
        }
        let mut e = k;
        while e + 1 < n && tags[e + 1].label == Label::Author {
            e += 1;
        }
        let font = tokens[e].font;
        let mut line = tokens[e].at.line;
        let mut accepted = e;
        let (mut entries, mut known) = (0usize, 0usize);
        let mut j = e + 1;
        while j < n && sep(&tokens[j].facts.text) {
            j += 1;
        }
        while j < n {
            let mut m = j;
            while m < n && !sep(&tokens[m].facts.text) {
                m += 1;
            }
            let item = &tokens[j..m];
            let mut fits = !item.is_empty();
            for (t, tag) in item.iter().zip(&tags[j..m]) {
                let continues = t.at.line == line || next_line(line, t.at.line);
                if tag.label == Label::Author
                    || tag.label == Label::Title
                    || t.font != font
                    || !continues
                    || t.facts.email
                    || t.facts.http
                {
                    fits = false;
                    break;
                }
                line = t.at.line;
            }
            let Some(is_known) = fits.then(|| name_item(item, lex)).flatten() else {
                break;
            };
            entries += 1;
            known += usize::from(is_known);
            accepted = m - 1;
            j = m;
            while j < n && sep(&tokens[j].facts.text) {
                j += 1;
            }
        }
        if 2 * known < entries {
            accepted = e;
        }
        for tag in tags.iter_mut().take(accepted + 1).skip(e + 1) {
            *tag = Tag {
                label: Label::Author,
                begins: false,
            };
        }
        k = accepted.max(e) + 1;
    }
}

/// Labelled tokens → field spans. Tokens keep their separators, so a span's text has the
/// PDF's spaces and line breaks (`\n`); hyphenation is left to the field's post-processing.
pub fn decode(tokens: &[HeaderToken], labels: &Labels, lex: &LexView) -> Result<HeaderFields> {
    if tokens.len() != labels.len() {
        return Err(Error::Tagging {
            model: "header".into(),
            reason: format!("{} tokens but {} labels", tokens.len(), labels.len()),
        });
    }
    // A label the header model does not know reads as `<other>`.
    let mut tags = labels.tags_or(Label::parse, Label::Other);
    extend_byline(tokens, &mut tags, lex);
    second_title_out(tokens, &mut tags);
    let cuts = abstract_in_other_face(tokens, &tags);
    for &c in &cuts {
        tags[c] = Tag {
            label: Label::Abstract,
            begins: true,
        };
    }
    let mut fields = HeaderFields::default();
    for (label, a, b) in crate::labels::fields(&tags) {
        if cuts.contains(&a) {
            fields.body_text.push(fields.spans.len());
        }
        // The field's text: its tokens joined by what the layout put between them.
        let mut text = tokens[a].facts.text.clone();
        for k in a + 1..b {
            match tokens[k - 1].at.sep {
                Sep::None => {}
                Sep::Space => text.push(' '),
                Sep::Newline => {
                    text.push('\n');
                    fields.line_starts.push(k);
                }
            }
            text.push_str(&tokens[k].facts.text);
        }
        fields.spans.push((label, text));
        fields
            .largest
            .push(tokens[a..b].iter().filter(|t| t.facts.largest).count());
        fields.tokens.push(a..b);
    }
    editors_after_cues(&mut fields);
    Ok(fields)
}

/// A title run of tokens whose last lines are printed in another font than its first lines
/// is a title followed by a second one: the translated title of a bilingual front page (the
/// Portuguese title in one face, the English one below it in italics) or a subtitle set
/// apart. The title is the first part: from the first line that starts in a font (name or
/// size) that at most a fifth of the lines before it use, and that at least four fifths of
/// the tokens from there to the end of the run use, the tokens become `<other>`. Both parts
/// hold three tokens at least; a word in italics (a species name) does not cut the title, as
/// the tokens after it return to the title's font.
fn second_title_out(tokens: &[HeaderToken], tags: &mut [Tag<Label>]) {
    for Range { start: a, end: b } in label_runs(tags, Label::Title) {
        let run = &tokens[a..b];
        let cut = (3..run.len().saturating_sub(2)).find(|&k| {
            let t = &run[k];
            if t.facts.line != Pos::Start || t.font == run[k - 1].font {
                return false;
            }
            // The same font, or the same size in any face (a note in small type whose last
            // line turns italic: `This article was published in …` / `Journal Name`).
            let shares = |same: &dyn Fn(&HeaderToken) -> bool| {
                let before = run[..k].iter().filter(|u| same(u)).count();
                let after = run[k..].iter().filter(|u| same(u)).count();
                before * 5 <= k && after * 5 >= (run.len() - k) * 4
            };
            shares(&|u| u.font == t.font) || shares(&|u| u.font.1 == t.font.1)
        });
        if let Some(k) = cut {
            tags[a + k] = Tag {
                label: Label::Other,
                begins: true,
            };
            for tag in &mut tags[a + k + 1..b] {
                *tag = Tag {
                    label: Label::Other,
                    begins: false,
                };
            }
        }
    }
}

/// The fields of `label` in `tags` (a run opens at its `I-` label or where the label starts).
fn label_runs(tags: &[Tag<Label>], label: Label) -> Vec<Range<usize>> {
    crate::labels::fields(tags)
        .into_iter()
        .filter(|&(l, _, _)| l == label)
        .map(|(_, a, b)| a..b)
        .collect()
}

/// Where an `<abstract>` run turns into the body's opening text: a line start after a sentence
/// end from which at least four fifths of the tokens share a font that at most a fifth of the
/// tokens before use (an abstract set in bold, then the unheaded introduction in the body
/// face), both parts 40 tokens at least. A structured abstract's bold part labels do not cut:
/// its text, in the body face, comes before.
fn abstract_in_other_face(tokens: &[HeaderToken], tags: &[Tag<Label>]) -> Vec<usize> {
    const MIN_PART: usize = 40;
    let mut cuts = Vec::new();
    for Range { start: a, end: b } in label_runs(tags, Label::Abstract) {
        let run = &tokens[a..b];
        let cut = (MIN_PART..run.len().saturating_sub(MIN_PART - 1)).find(|&k| {
            let t = &run[k];
            if t.facts.line != Pos::Start
                || t.font == run[k - 1].font
                || !run[k - 1].facts.text.ends_with(['.', '!', '?'])
            {
                return false;
            }
            let before = run[..k].iter().filter(|u| u.font == t.font).count();
            let after = run[k..].iter().filter(|u| u.font == t.font).count();
            before * 5 <= k && after * 5 >= (run.len() - k) * 4
        });
        if let Some(k) = cut {
            cuts.push(a + k);
        }
    }
    cuts
}

/// Whether `s` ends with (or, `at_start`, starts with) a cue that introduces the names of
/// editors (or reviewers) rather than authors: `Editor:`, `Editors:`, `Edited by`, `Handling
/// editor`, `Communicated by`, `Action editor`, `Academic editor`, `Reviewed by`, `Reviewers:`
/// (any case, colon optional).
fn editor_cue(s: &str, at_start: bool) -> bool {
    let cue = |w: &[String]| -> usize {
        let is = |i: usize, t: &str| w.get(i).is_some_and(|x| x == t);
        let editor = |i: usize| is(i, "editor") || is(i, "editors") || is(i, "editor(s)");
        let reviewer = |i: usize| is(i, "reviewer") || is(i, "reviewers") || is(i, "reviewer(s)");
        let two_words = ((is(0, "edited") || is(0, "communicated") || is(0, "reviewed"))
            && is(1, "by"))
            || ((is(0, "handling") || is(0, "action") || is(0, "academic")) && editor(1));
        if two_words {
            2
        } else if editor(0) || reviewer(0) {
            1
        } else {
            0
        }
    };
    if at_start {
        // The cue must be followed by a colon in the text: `Editor: A. Name`.
        let words: Vec<String> = s
            .split(|c: char| c.is_whitespace() || c == ':')
            .filter(|w| !w.is_empty())
            .take(2)
            .map(str::to_ascii_lowercase)
            .collect();
        cue(&words) > 0 && s.contains(':')
    } else {
        // The span's last line is the cue alone (`Editor:` before the names).
        let last: Vec<String> = s
            .lines()
            .last()
            .unwrap_or("")
            .split(|c: char| c.is_whitespace() || c == ':')
            .filter(|w| !w.is_empty())
            .map(str::to_ascii_lowercase)
            .collect();
        !last.is_empty() && cue(&last) == last.len()
    }
}

/// Names the header model labelled `<author>` right after an editor cue (`Editor: …`, as
/// JMLR W&CP, PMLR and many journals print the volume or handling editors on page 1) are
/// editors: the span is relabelled `<editor>`, so it never becomes an author. A block of
/// several editors or reviewers, each with an affiliation (`Reviewed by` / name / university /
/// country / name / …), stays editors up to the first span that is not a name, affiliation,
/// address or e-mail.
fn editors_after_cues(fields: &mut HeaderFields) {
    let mut in_block = false;
    for i in 0..fields.spans.len() {
        let label = fields.spans[i].0;
        // Names the model itself labelled `<editor>` after a cue open a block as well.
        if label == Label::Editor
            && i > 0
            && fields.spans[i - 1].0 != Label::Author
            && editor_cue(&fields.spans[i - 1].1, false)
        {
            in_block = true;
            continue;
        }
        if label != Label::Author {
            in_block = in_block
                && matches!(
                    label,
                    Label::Editor | Label::Affiliation | Label::Address | Label::Email
                );
            continue;
        }
        let after_cue = i > 0 && {
            let (prev, text) = &fields.spans[i - 1];
            *prev != Label::Author && editor_cue(text, false)
        };
        // In a block, a name follows the previous one's affiliation, never the name itself.
        let next_in_block = in_block && i > 0 && fields.spans[i - 1].0 != Label::Editor;
        if next_in_block || after_cue || editor_cue(&fields.spans[i].1, true) {
            fields.spans[i].0 = Label::Editor;
            in_block = true;
        }
    }
}

/// Join a field's lines: a line ending in `-` followed by a lower-case continuation is
/// de-hyphenated; other line breaks become spaces.
pub fn join_lines(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut lines = s.split('\n').peekable();
    while let Some(line) = lines.next() {
        let line = line.trim();
        match lines.peek() {
            Some(next) => {
                let next_lower = next
                    .trim_start()
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_lowercase());
                if line.ends_with('-') && next_lower && line.len() > 1 {
                    out.push_str(&line[..line.len() - 1]);
                } else if line.ends_with('-') {
                    out.push_str(line);
                } else {
                    out.push_str(line);
                    if !line.is_empty() {
                        out.push(' ');
                    }
                }
            }
            None => out.push_str(line),
        }
    }
    out.trim().to_string()
}

/// Feature layout version of [`rows`]; bump when a column changes.
pub const FEATURE_VERSION: u32 = 1;
#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::layout as corpus;
    use crate::flavor::Flavor;
    use crate::models::ModelName;
    use crate::training::header::*;

    /// The decoder with empty lexicons (no byline run-on has a known name to move).
    fn decode_plain(toks: &[HeaderToken], labels: &Labels) -> Result<HeaderFields> {
        decode(
            toks,
            labels,
            &LexView::new(&crate::lexicon::Lexicons::default()),
        )
    }

    fn no_lex() -> crate::lexicon::Lexicons {
        crate::lexicon::Lexicons::default()
    }
    use crate::layout::{BBox, Block, Line, Page, Token};

    const TEI: &str = r#"<tei><teiHeader><fileDesc xml:id="_9"/></teiHeader><text xml:lang="en"><front>
<note type="doctype">Research Article</note>
<docTitle><titlePart>Deep Things:<lb/> A Study</titlePart></docTitle>
<byline><docAuthor>Jane Doe</docAuthor></byline>
Abstract
<div type="abstract">We study things.<lb/></div>
<email>jane@x.org</email>
</front></text></tei>"#;

    const RAW: &str = "\
Research research R Re Res Rese h ch rch arch BLOCKSTART LINESTART ALIGNEDLEFT NEWFONT HIGHERFONT 0 0 INITCAP NODIGIT 0 0 1 0 0 0 0 0 NOPUNCT 0 0 1 0
Article article A Ar Art Arti e le cle icle BLOCKEND LINEEND ALIGNEDLEFT SAMEFONT SAMEFONTSIZE 0 0 INITCAP NODIGIT 0 0 1 0 0 0 0 0 NOPUNCT 0 0 1 0
Deep deep D De Dee Deep p ep eep Deep BLOCKSTART LINESTART ALIGNEDLEFT NEWFONT HIGHERFONT 1 0 INITCAP NODIGIT 0 0 1 0 0 0 0 0 NOPUNCT 1 0 1 0
Things things T Th Thi Thin s gs ngs ings BLOCKIN LINEIN ALIGNEDLEFT SAMEFONT SAMEFONTSIZE 1 0 INITCAP NODIGIT 0 0 1 0 0 0 0 0 NOPUNCT 1 0 1 0
XX xx X XX XX XX X XX XX XX BLOCKIN LINEIN ALIGNEDLEFT SAMEFONT SAMEFONTSIZE 1 0 ALLCAP NODIGIT 0 0 0 0 0 0 0 0 NOPUNCT 1 0 1 0
: : : : : : : : : : BLOCKIN LINEEND ALIGNEDLEFT SAMEFONT SAMEFONTSIZE 1 0 ALLCAP NODIGIT 1 0 0 0 0 0 0 0 PUNCT 1 0 1 0
A a A A A A A A A A BLOCKIN LINESTART LINEINDENT SAMEFONT SAMEFONTSIZE 1 0 ALLCAP NODIGIT 1 0 0 0 0 0 0 0 NOPUNCT 1 0 1 0
Study study S St Stu Stud y dy udy tudy BLOCKEND LINEEND LINEINDENT SAMEFONT SAMEFONTSIZE 1 0 INITCAP NODIGIT 0 0 1 0 0 0 0 0 NOPUNCT 1 0 1 0
";

    #[test]
    fn tei_tokens_follow_grobid_header_parser() {
        let ev = corpus::parse_tei(TEI).unwrap();
        let toks = tei_tokens(&ev);
        let got: Vec<(&str, &str)> = toks.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        assert_eq!(
            &got[..6],
            &[
                ("Research", "I-<doctype>"),
                ("Article", "<doctype>"),
                ("Deep", "I-<title>"),
                ("Things", "<title>"),
                (":", "<title>"),
                ("A", "<title>"),
            ]
        );
        assert!(got.contains(&("Abstract", "I-<other>")));
        assert!(got.contains(&("We", "I-<abstract>")));
        assert!(got.contains(&("@", "<email>")));
        assert!(got.contains(&("Jane", "I-<author>")));
    }

    #[test]
    fn raw_rows_are_reproduced_and_sandwiched_rows_kept() {
        let dir = std::env::temp_dir().join(format!("quire-header-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let tei = dir.join("x.training.header.tei.xml");
        let raw = dir.join("x.training.header");
        std::fs::write(&tei, TEI).unwrap();
        std::fs::write(&raw, RAW).unwrap();
        let lex = no_lex();
        let seq = read_pair(&tei, &raw, &LexView::new(&lex)).unwrap().unwrap();
        // `XX` matches no TEI token but sits between two title rows: it is kept as title.
        assert_eq!(seq.rows.len(), 8);
        assert_eq!(seq.labels[4], "<title>");
        assert_eq!(seq.labels[2], "I-<title>");
        let raw_rows = corpus::parse_raw_rows(RAW);
        for (r, g) in seq.rows.iter().zip(&raw_rows) {
            assert_eq!(r.len(), 32);
            for c in (0..20).chain(22..24).chain(25..32) {
                assert_eq!(r[c], g[c], "column {c} of {}", g[0]);
            }
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    fn token(text: &str, x: f32, size: f32, space: bool) -> Token {
        Token {
            text: text.into(),
            bbox: BBox {
                x,
                y: 0.0,
                w: 5.0 * text.chars().count() as f32,
                h: size,
            },
            font: "Times".into(),
            font_size: size,
            space_after: space,
            ..Default::default()
        }
    }

    fn doc() -> Document {
        let l1 = Line {
            bbox: BBox::default(),
            tokens: vec![
                token("Deep", 72.0, 18.0, true),
                token("Things", 100.0, 18.0, false),
            ],
        };
        let l2 = Line {
            bbox: BBox::default(),
            tokens: vec![
                token("jane", 72.0, 9.0, false),
                token("@", 92.0, 9.0, false),
                token("x", 97.0, 9.0, false),
                token(".", 102.0, 9.0, false),
                token("org", 107.0, 9.0, false),
            ],
        };
        let l3 = Line {
            bbox: BBox::default(),
            tokens: vec![token("Abstract", 90.0, 9.0, false)],
        };
        Document {
            pages: vec![Page {
                number: 1,
                blocks: vec![
                    Block {
                        bbox: BBox::default(),
                        lines: vec![l1],
                    },
                    Block {
                        bbox: BBox::default(),
                        lines: vec![l2, l3],
                    },
                ],
                ..Default::default()
            }],
        }
    }

    /// Header tokens of `lines` (each a line of words in one font), from a template token.
    fn font_lines(lines: &[(&str, &str)]) -> Vec<HeaderToken> {
        let first = LineRef {
            page: 0,
            block: 0,
            line: 0,
        };
        let d = doc();
        let base =
            document_tokens(&d, &crate::layout::tokens::LayoutTokens::new(&d), &[first])[0].clone();
        let mut out = Vec::new();
        let mut names: Vec<&str> = Vec::new();
        for (font, text) in lines {
            let id = names.iter().position(|n| n == font).unwrap_or_else(|| {
                names.push(font);
                names.len() - 1
            });
            let words: Vec<&str> = text.split(' ').collect();
            for (k, w) in words.iter().enumerate() {
                let mut t = base.clone();
                t.facts.text = w.to_string();
                t.facts.line = if k == 0 { Pos::Start } else { Pos::In };
                t.font = (FontId::nth(id as u32), 140);
                t.at.sep = if k + 1 == words.len() {
                    Sep::Newline
                } else {
                    Sep::Space
                };
                out.push(t);
            }
        }
        out
    }

    fn title_labels(n: usize) -> Vec<String> {
        (0..n)
            .map(|k| if k == 0 { "I-<title>" } else { "<title>" }.to_string())
            .collect()
    }

    #[test]
    fn an_abstract_in_bold_ends_where_the_body_face_takes_over() {
        let abstract_labels = |n: usize| -> Vec<String> {
            (0..n)
                .map(|k| if k == 0 { "I-<abstract>" } else { "<abstract>" }.to_string())
                .collect()
        };
        let bold = "we measured the oil of the plant in the lab today.";
        let roman = "plants have long been used as remedies in many lands.";
        let mut lines: Vec<(&str, &str)> = vec![("bold", bold); 5];
        lines.extend(vec![("roman", roman); 5]);
        let toks = font_lines(&lines);
        let f = decode_plain(&toks, &Labels::from_names(abstract_labels(toks.len()))).unwrap();
        assert_eq!(f.spans.len(), 2, "{:?}", f.spans);
        assert_eq!(f.body_text, vec![1]);
        assert!(f.spans[1].1.starts_with("plants have long"));
        // A structured abstract: bold part labels, its text in the body face. No cut.
        let mut lines: Vec<(&str, &str)> = Vec::new();
        for _ in 0..4 {
            lines.push(("bold", "Background."));
            lines.push(("roman", roman));
            lines.push(("roman", roman));
        }
        let toks = font_lines(&lines);
        let f = decode_plain(&toks, &Labels::from_names(abstract_labels(toks.len()))).unwrap();
        assert_eq!(f.spans.len(), 1, "{:?}", f.spans);
        assert!(f.body_text.is_empty());
    }

    /// Lexicons knowing only the given names and surnames listed.
    fn name_lex(first: &[&str], last: &[&str]) -> crate::lexicon::Lexicons {
        use crate::features::Gazetteer;
        let sets = Kind::ALL
            .iter()
            .map(|k| match k {
                Kind::FirstName => Gazetteer::from_keys(first.iter().copied()),
                Kind::LastName => Gazetteer::from_keys(last.iter().copied()),
                _ => Gazetteer::from_keys(std::iter::empty()),
            })
            .collect();
        crate::lexicon::Lexicons {
            sets,
            country_codes: Default::default(),
        }
    }

    #[test]
    fn a_byline_entry_may_hold_any_particle_of_the_name_model() {
        let lex = no_lex();
        let lv = LexView::new(&lex);
        let entry = |text: &str| name_item(&font_lines(&[("roman", text)]), &lv);
        // `degli` and `e` are particles of the one list (`name::PARTICLES`).
        assert_eq!(entry("Luca degli Alberti"), Some(false));
        assert_eq!(entry("Ana Lima e Souza 2"), Some(false));
        assert_eq!(entry("Luca degli Alberti , Rome"), None);
        assert_eq!(entry("Luca magni Alberti"), None);
    }

    #[test]
    fn a_byline_running_on_in_its_font_stays_authors() {
        let lex = name_lex(&["anna", "giulia", "kate"], &["rossi", "ferri"]);
        let lv = LexView::new(&lex);
        // Line 0: the byline as the model read it; line 1 in the same font, given to address.
        let mut toks = font_lines(&[
            ("roman", "Anna Rossi , Bo Lind ,"),
            ("roman", "Giulia Ferri , Kate Nowicki , for the Study Group"),
            ("small", "Department of Physics , University of Milan"),
        ]);
        for (k, t) in toks.iter_mut().enumerate() {
            let line = if k < 6 {
                0
            } else if k < 16 {
                1
            } else {
                2
            };
            t.at.line = LineRef {
                page: 0,
                block: 0,
                line,
            };
        }
        let labels: Vec<String> = (0..toks.len())
            .map(|k| match k {
                0 => "I-<author>",
                1..=5 => "<author>",
                6 => "I-<address>",
                7..=15 => "<address>",
                16 => "I-<affiliation>",
                _ => "<affiliation>",
            })
            .map(String::from)
            .collect();
        let f = decode(&toks, &Labels::from_names(&labels), &lv).unwrap();
        assert_eq!(
            f.first(Label::Author),
            Some("Anna Rossi , Bo Lind ,\nGiulia Ferri , Kate Nowicki"),
            "{:?}",
            f.spans
        );
        // `for the Study Group` and the affiliation in the smaller font keep their labels.
        assert_eq!(f.first(Label::Address), Some(", for the Study Group"));
        assert!(f
            .first(Label::Affiliation)
            .unwrap()
            .starts_with("Department"));
        // Entries that are not names stop the run at once: nothing moves.
        let mut toks = font_lines(&[("roman", "Anna Rossi ,"), ("roman", "Milan , Italy")]);
        for (k, t) in toks.iter_mut().enumerate() {
            t.at.line.line = usize::from(k >= 3);
        }
        let labels: Vec<String> = [
            "I-<author>",
            "<author>",
            "<author>",
            "I-<address>",
            "<address>",
            "<address>",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let before = Labels::from_names(&labels).tags_or(Label::parse, Label::Other);
        let mut tags = before.clone();
        extend_byline(&toks, &mut tags, &lv);
        assert_eq!(tags, before);
        // Name-shaped entries of which the lexicons know none: not enough to move.
        let mut toks = font_lines(&[("roman", "Anna Rossi ,"), ("roman", "Xy Zw , Qv Wx")]);
        for (k, t) in toks.iter_mut().enumerate() {
            t.at.line.line = usize::from(k >= 3);
        }
        let labels: Vec<String> = (0..toks.len())
            .map(|k| match k {
                0 => "I-<author>",
                1 | 2 => "<author>",
                3 => "I-<address>",
                _ => "<address>",
            })
            .map(String::from)
            .collect();
        let before = Labels::from_names(&labels).tags_or(Label::parse, Label::Other);
        let mut tags = before.clone();
        extend_byline(&toks, &mut tags, &lv);
        assert_eq!(tags, before);
    }

    #[test]
    fn authors_on_late_header_lines_are_dropped() {
        let mut toks = font_lines(&[("roman", "Jane Doe"), ("roman", "Bo Ng")]);
        // The second name sits on a line of page 9, far from the byline.
        let late = LineRef {
            page: 9,
            block: 0,
            line: 0,
        };
        toks[2].at.line = late;
        toks[3].at.line = late;
        let labels: Vec<String> = ["I-<author>", "<author>", "I-<author>", "<author>"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let mut f = decode_plain(&toks, &Labels::from_names(&labels)).unwrap();
        assert_eq!(f.all(Label::Author).count(), 2, "{:?}", f.spans);
        f.drop_authors_on(&toks, &[late].into_iter().collect());
        assert_eq!(f.all(Label::Author).collect::<Vec<_>>(), vec!["Jane Doe"]);
        // A byline name printed again late (an author list with the affiliations at the end
        // of the paper) stays: it links the author to an affiliation.
        let mut toks = font_lines(&[("roman", "Jane Doe"), ("roman", "Jane Doe")]);
        toks[2].at.line = late;
        toks[3].at.line = late;
        let mut f = decode_plain(&toks, &Labels::from_names(&labels)).unwrap();
        f.drop_authors_on(&toks, &[late].into_iter().collect());
        assert_eq!(f.all(Label::Author).count(), 2, "{:?}", f.spans);
    }

    #[test]
    fn a_second_title_in_another_font_is_left_out() {
        let toks = font_lines(&[
            ("light", "Compromiso de los Ayuntamientos"),
            ("light", "con la divulgación de información"),
            ("lightit", "The city councils commitment on the"),
            ("lightit", "dissemination of information"),
        ]);
        let f = decode_plain(&toks, &Labels::from_names(title_labels(toks.len()))).unwrap();
        assert_eq!(
            f.first(Label::Title),
            Some("Compromiso de los Ayuntamientos\ncon la divulgación de información")
        );
        // A word in italics at a line start (a species name) does not cut the title.
        let toks = font_lines(&[
            ("roman", "Essential oil of the rhizomes of"),
            ("italic", "Cyperus"),
            ("roman", "rotundus and its antioxidant activity"),
        ]);
        let f = decode_plain(&toks, &Labels::from_names(title_labels(toks.len()))).unwrap();
        assert!(f
            .first(Label::Title)
            .unwrap()
            .ends_with("antioxidant activity"));
        // Nor does a title in one font.
        let toks = font_lines(&[
            ("roman", "A study of things"),
            ("roman", "and other things too"),
        ]);
        let f = decode_plain(&toks, &Labels::from_names(title_labels(toks.len()))).unwrap();
        assert!(f.first(Label::Title).unwrap().ends_with("other things too")); // A note in small type after the title, its last line in italics: the note's size
                                                                               // holds from its first line on, so it is cut off.
        let mut toks = font_lines(&[
            ("sans", "Effects of a treatment on recovery"),
            ("sans", "in patients: a randomized trial"),
            (
                "sans",
                "This article was published in the following journal:",
            ),
            ("sansit", "Journal of Things"),
        ]);
        for t in toks.iter_mut().skip(11) {
            t.font.1 = 70;
        }
        let f = decode_plain(&toks, &Labels::from_names(title_labels(toks.len()))).unwrap();
        assert_eq!(
            f.first(Label::Title),
            Some("Effects of a treatment on recovery\nin patients: a randomized trial")
        );
    }

    #[test]
    fn document_tokens_have_header_layout_facts() {
        let d = doc();
        let lines = vec![
            LineRef {
                page: 0,
                block: 0,
                line: 0,
            },
            LineRef {
                page: 0,
                block: 1,
                line: 0,
            },
            LineRef {
                page: 0,
                block: 1,
                line: 1,
            },
        ];
        let toks = document_tokens(&d, &crate::layout::tokens::LayoutTokens::new(&d), &lines);
        assert_eq!(toks.len(), 8);
        let f: Vec<&TokenFacts> = toks.iter().map(|t| &t.facts).collect();
        assert_eq!((f[0].block, f[0].line), (Pos::Start, Pos::Start));
        assert_eq!((f[1].block, f[1].line), (Pos::End, Pos::End));
        assert!(f[0].largest && f[0].larger_than_average && !f[0].smallest);
        assert_eq!(f[2].font_size, SizeChange::Lower);
        assert!(
            f[2..7].iter().all(|t| t.email),
            "e-mail span covers its tokens"
        );
        assert!(!f[7].email);
        assert!(f[7].indented, "line starting right of the previous one");
        assert_eq!((f[7].block, f[7].line), (Pos::End, Pos::End));
        let lex = no_lex();
        let r = rows(
            &f.iter().map(|t| (*t).clone()).collect::<Vec<_>>(),
            &LexView::new(&lex),
        );
        assert!(r.iter().all(|row| row.len() == 32));
        assert_eq!(r[0][28], "1");

        let labels: Vec<String> = [
            "I-<title>",
            "<title>",
            "I-<email>",
            "<email>",
            "<email>",
            "<email>",
            "<email>",
            "I-<other>",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let fields = decode_plain(&toks, &Labels::from_names(&labels)).unwrap();
        assert_eq!(fields.first(Label::Title), Some("Deep Things"));
        assert_eq!(fields.largest, vec![2, 0, 0]);
        assert_eq!(fields.tokens, vec![0..2, 2..7, 7..8]);
        assert_eq!(fields.most_prominent_at(Label::Title), Some(0));
        let two = HeaderFields {
            spans: vec![
                (Label::Title, "Series Name".into()),
                (Label::Title, "Real Title".into()),
            ],
            largest: vec![0, 2],
            ..Default::default()
        };
        assert_eq!(two.most_prominent(Label::Title), Some("Real Title"));
        assert_eq!(two.first(Label::Title), Some("Series Name"));
        assert_eq!(fields.first(Label::Email), Some("jane@x.org"));
        assert!(decode_plain(&toks[..2], &Labels::from_names(&labels)).is_err());
    }

    #[test]
    fn light_flavour_keeps_four_labels() {
        assert_eq!(light_label("I-<title>"), "I-<title>");
        assert_eq!(light_label("<pubnum>"), "<pubnum>");
        assert_eq!(light_label("I-<affiliation>"), "I-<other>");
        assert_eq!(light_label("<abstract>"), "<other>");
        assert_eq!(
            crate::training::spec(ModelName::Header, Some(Flavor::ArticleLight))
                .map(|s| s.flavor()),
            Some(Some(Flavor::ArticleLight))
        );
    }

    /// The committed segmentation and header models (standard and `article/light`) load with
    /// this build's feature version and know their labels.
    #[test]
    fn committed_models_load() {
        let models = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
        for (name, flavor, label) in [
            (ModelName::Header, None, "<abstract>"),
            (ModelName::Segmentation, None, "<references>"),
            (ModelName::Header, Some(Flavor::ArticleLight), "<title>"),
            (
                ModelName::Segmentation,
                Some(Flavor::ArticleLight),
                "<header>",
            ),
        ] {
            let dir = name.dir(&models, flavor);
            let present = dir.join("model.crf").is_file().then_some(());
            if crate::testutil::gate::require(present, || format!("the model at {}", dir.display()))
                .is_none()
            {
                continue;
            }
            let spec = crate::training::spec(name, flavor).unwrap();
            let model = crate::crf::Model::load(&dir, spec.feature_version()).unwrap();
            assert!(
                model.meta().labels.iter().any(|l| l == label),
                "{}: {:?}",
                dir.display(),
                model.meta().labels
            );
        }
    }

    #[test]
    fn lines_join_with_dehyphenation() {
        assert_eq!(
            join_lines("Deep learn-\ning for\nthings"),
            "Deep learning for things"
        );
        assert_eq!(join_lines("Self-\nSupervised"), "Self-Supervised");
    }

    /// Gated on the unpacked corpus: rows rebuilt from a whole GROBID raw file (through the
    /// same facts → rows function the tagger uses) reproduce every layout column of the file.
    #[test]
    fn a_corpus_file_is_rebuilt_with_grobid_layout_columns() {
        let Some(ds) = crate::testutil::gate::require_dataset("header/corpus/raw") else {
            return;
        };
        let dir = ds.join("header/corpus");
        let (pairs, dropped) = corpus::pair_files(&dir, "header").unwrap();
        assert!(pairs.len() >= 740, "{} pairs", pairs.len());
        eprintln!(
            "header corpus: {} pairs, {} TEI files unpaired",
            pairs.len(),
            dropped.len()
        );
        let raw = corpus::read_raw_rows(&pairs[0].raw).unwrap();
        let facts: Vec<TokenFacts> = raw
            .iter()
            .map(|r| TokenFacts::from_raw(r).unwrap())
            .collect();
        let lex = no_lex();
        let rows = rows(&facts, &LexView::new(&lex));
        assert_eq!(rows.len(), raw.len());
        // Lexicon columns (20 proper name, 21 common word, 24 location) depend on the
        // lexicons; every other column is GROBID's.
        for (r, g) in rows.iter().zip(&raw) {
            for c in (0..20).chain(22..24).chain(25..32) {
                assert_eq!(r[c], g[c], "column {c} of {:?}", g);
            }
        }
        let seg_dir = ds.join("segmentation/corpus");
        let (seg_pairs, seg_dropped) = corpus::pair_files(&seg_dir, "segmentation").unwrap();
        eprintln!(
            "segmentation corpus: {} pairs; unpaired: {:?}",
            seg_pairs.len(),
            seg_dropped
                .iter()
                .map(|(p, _)| p.file_name())
                .collect::<Vec<_>>()
        );
        assert!(seg_pairs.len() >= 640);
        let raw = corpus::read_raw_rows(&seg_pairs[0].raw).unwrap();
        let facts: Vec<crate::models::segmentation::LineFacts> = raw
            .iter()
            .map(|r| crate::models::segmentation::LineFacts::from_raw(r).unwrap())
            .collect();
        let rows = crate::models::segmentation::rows(&facts, &LexView::new(&lex));
        for (r, g) in rows.iter().zip(&raw) {
            for c in (0..16).chain(18..33) {
                assert_eq!(r[c], g[c], "segmentation column {c} of {:?}", g);
            }
        }
    }

    #[test]
    fn a_block_of_reviewers_with_affiliations_is_no_author() {
        let mut f = HeaderFields::of(&[
            (Label::Other, "Reviewed by:"),
            (Label::Author, "Ana Lopes,"),
            (Label::Affiliation, "University of Porto,"),
            (Label::Address, "Portugal"),
            (Label::Author, "Bo Ng,"),
            (Label::Affiliation, "Tsinghua University,"),
            (Label::Other, "*Correspondence:"),
            (Label::Author, "Eve Roe"),
            (Label::Email, "eve@x.org"),
            (Label::Other, "Editor:"),
            (Label::Author, "Dan Poe"),
            (Label::Author, "Kim Lee"),
            (Label::Other, "Reviewed by"),
            (Label::Editor, "Jo Kay,"),
            (Label::Affiliation, "Ulm University,"),
            (Label::Author, "Li Wu,"),
            (Label::Affiliation, "Fudan University"),
        ]);
        editors_after_cues(&mut f);
        let labels: Vec<Label> = f.spans.iter().map(|(l, _)| *l).collect();
        assert_eq!(
            labels,
            vec![
                Label::Other,
                Label::Editor,
                Label::Affiliation,
                Label::Address,
                Label::Editor,
                Label::Affiliation,
                Label::Other,
                Label::Author,
                Label::Email,
                Label::Other,
                Label::Editor,
                // A name right after the editors' names, with no affiliation between them,
                // is not taken as one more editor.
                Label::Author,
                // A block the model opened with `<editor>` itself.
                Label::Other,
                Label::Editor,
                Label::Affiliation,
                Label::Editor,
                Label::Affiliation,
            ]
        );
    }

    #[test]
    fn names_after_an_editor_cue_are_editors_not_authors() {
        let mut f = HeaderFields::of(&[
            (Label::Author, "Ana Lopes"),
            (Label::Other, "Editor :"),
            (Label::Author, "Masashi Sugiyama and Qiang Yang"),
            (Label::Other, "Edited by"),
            (Label::Author, "B. Ng"),
            (Label::Author, "Editors: C. Doe, D. Roe"),
            (Label::Other, "Department of Editors"),
            (Label::Author, "Eve Editorson"),
        ]);
        editors_after_cues(&mut f);
        let labels: Vec<Label> = f.spans.iter().map(|(l, _)| *l).collect();
        assert_eq!(
            labels,
            vec![
                Label::Author,
                Label::Other,
                Label::Editor,
                Label::Other,
                Label::Editor,
                Label::Editor,
                Label::Other,
                Label::Author,
            ]
        );
    }
}
