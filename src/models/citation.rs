//! Citation model: labels the tokens of one raw reference string (author, title, journal,
//! date, volume, pages, …) and decodes them into a [`Citation`]. Authors/editors then go
//! through a name model and the date through the date model (the string cascade).

use crate::features::{self as f, Tok};
use crate::labels::{Labels, Tag};
use crate::lexicon::{Kind, LexView};
use crate::models::text;

pub use crate::document::Citation;

model_labels!(
    "citation",
    /// GROBID's citation labels.
    {
        Author => "<author>",
        Title => "<title>",
        Journal => "<journal>",
        Booktitle => "<booktitle>",
        Series => "<series>",
        Editor => "<editor>",
        Date => "<date>",
        Institution => "<institution>",
        Collaboration => "<collaboration>",
        Note => "<note>",
        Tech => "<tech>",
        Volume => "<volume>",
        Issue => "<issue>",
        Pages => "<pages>",
        Location => "<location>",
        Publisher => "<publisher>",
        Web => "<web>",
        Pubnum => "<pubnum>",
        Other => "<other>",
    }
);

/// Version of [`rows`]' columns; bump when a column changes (`meta.json` must match).
pub const FEATURE_VERSION: u32 = 2;

impl Citation {
    /// Nothing was recognised (an empty or unlabelled string).
    pub fn is_empty(&self) -> bool {
        self.author_text.is_none()
            && self.title.is_none()
            && self.journal.is_none()
            && self.booktitle.is_none()
            && self.date_text.is_none()
            && self.volume.is_none()
            && self.pages.is_none()
            && self.pubnums.is_empty()
            && self.web.is_none()
            && self.publisher.is_none()
            && self.collaboration.is_none()
    }

    /// First and last page of the page range, each one word: the spaces the tokens left
    /// inside a page number are removed (`e 863` is `e863`, `S 105` is `S105`) and a
    /// trailing page unit dropped (`131 p.` is `131`).
    pub fn page_range(&self) -> Option<(String, Option<String>)> {
        let p = self.pages.as_deref()?;
        let p = p
            .trim_start_matches(|c: char| !c.is_alphanumeric())
            .trim_start_matches("pp")
            .trim_start_matches('p')
            .trim_start_matches(|c: char| !c.is_alphanumeric());
        let mut parts = p.splitn(2, ['-', '–', '—']);
        let from = page_number(parts.next()?);
        let to = parts
            .next()
            .map(|t| page_number(t.trim_start_matches(['-', '–', '—'])))
            .filter(|t| !t.is_empty());
        (!from.is_empty()).then_some((from, to))
    }

    /// The DOI, from a pubnum field or anywhere in the raw string.
    pub fn doi(&self) -> Option<String> {
        self.pubnums
            .iter()
            .find_map(|p| crate::doi::printed(p))
            .or_else(|| crate::doi::printed(&self.raw))
    }

    /// The arXiv identifier, from a pubnum field.
    pub fn arxiv(&self) -> Option<String> {
        self.pubnums.iter().find_map(|p| {
            let l = p.to_ascii_lowercase(); // same byte offsets as `p`
            let i = l.find("arxiv")?;
            let id = p[i + 5..].trim_start_matches([':', ' ']).trim();
            (!id.is_empty()).then(|| id.to_string())
        })
    }
}

/// A title that opens with the publication year (`1943 A logical calculus …`, as
/// `Author. Year Title.` styles print it and the model sometimes labels it) loses the year; it
/// becomes the date when none was labelled.
fn split_leading_year(c: &mut Citation) {
    let Some(title) = c.title.as_deref() else {
        return;
    };
    let digits = title.bytes().take_while(u8::is_ascii_digit).count();
    if digits != 4 || !matches!(title.as_bytes()[0], b'1' | b'2') {
        return;
    }
    // An optional letter (`2001a`), then punctuation or a space, then the title proper.
    let rest = &title[4..];
    let rest = rest
        .strip_prefix(|ch: char| ch.is_ascii_lowercase())
        .filter(|r| r.starts_with([' ', '.', ',', ')']))
        .unwrap_or(rest);
    // A colon after the year is a title's own (`2001: A Space Odyssey`).
    let trimmed = rest.trim_start_matches([' ', '.', ',', ')']);
    let separated = rest.len() != trimmed.len();
    if !separated || trimmed.chars().filter(|ch| ch.is_alphabetic()).count() < 3 {
        return;
    }
    let year = title[..title.len() - rest.len()].to_string();
    // A labelled date of another year means the number is the title's own (`1984 revisited`).
    if c.date_text
        .as_deref()
        .is_some_and(|d| !d.contains(&year[..4]))
    {
        return;
    }
    let trimmed = trimmed.to_string();
    if c.date_text.is_none() {
        c.date_text = Some(year);
    }
    c.title = Some(trimmed);
}

fn put(slot: &mut Option<String>, v: String) {
    match slot {
        Some(s) => {
            s.push(' ');
            s.push_str(&v);
        }
        None => *slot = Some(v),
    }
}

/// For single-valued fields (volume, pages, journal, …) the first occurrence wins: a second
/// one is usually an erratum or a second reference run into this one.
fn first(slot: &mut Option<String>, v: String) {
    if slot.is_none() {
        *slot = Some(v);
    }
}

fn clean_field(s: &str) -> String {
    s.trim_matches(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ':'))
        .trim_start_matches(['(', '.'])
        .trim_end_matches(['.', ',', '('])
        .trim()
        .to_string()
}

/// One kind of quotation mark: the characters that open and close it, and whether it doubles
/// as an apostrophe.
struct Quote {
    open: &'static [char],
    close: &'static [char],
    apostrophe: bool,
}

/// The double and the single quotation marks.
const QUOTES: [Quote; 2] = [
    Quote {
        open: &['"', '“'],
        close: &['"', '”'],
        apostrophe: false,
    },
    Quote {
        open: &['\'', '‘'],
        close: &['\'', '’'],
        apostrophe: true,
    },
];

impl Quote {
    /// How many marks of this kind `s` holds; a single quote between two letters or digits
    /// (`it's`) is an apostrophe, not a mark.
    fn marks(&self, s: &str) -> usize {
        let chars: Vec<char> = s.chars().collect();
        let alphanumeric = |j: Option<usize>| {
            j.and_then(|j| chars.get(j))
                .is_some_and(|c| c.is_alphanumeric())
        };
        (0..chars.len())
            .filter(|&i| self.open.contains(&chars[i]) || self.close.contains(&chars[i]))
            .filter(|&i| {
                !(self.apostrophe && alphanumeric(i.checked_sub(1)) && alphanumeric(Some(i + 1)))
            })
            .count()
    }
}

/// `s` without its first / last character.
fn without_first(s: &str) -> &str {
    &s[s.chars().next().map_or(0, char::len_utf8)..]
}

fn without_last(s: &str) -> &str {
    &s[..s.len() - s.chars().next_back().map_or(0, char::len_utf8)]
}

/// Strip the quotes and brackets that wrap a whole field, and a quotation mark at its edge
/// that pairs with none inside it. A quote paired inside the field (`"Course": how young
/// people …`, `the guide 'doing meta-analysis in R'`) stays.
fn strip_wrapping(s: &str) -> String {
    let mut t = s.trim();
    for q in &QUOTES {
        if t.starts_with(q.open) && t.ends_with(q.close) && t.chars().count() > 1 {
            let inner = without_last(without_first(t));
            if q.marks(inner).is_multiple_of(2) {
                t = inner.trim();
                continue;
            }
        }
        let marks = q.marks(t);
        if !marks.is_multiple_of(2) {
            if t.starts_with(q.open) && marks == 1 {
                t = without_first(t).trim_start();
            } else if t.ends_with(q.close) {
                t = without_last(t).trim_end();
            }
        }
    }
    let t = if t.starts_with('(') && t.ends_with(')') && t.matches('(').count() == 1 {
        &t[1..t.len() - 1]
    } else {
        t
    };
    t.trim().to_string()
}

/// An abbreviated journal title keeps the period of its last abbreviation (`Front. Psychol.`,
/// as printed and as publishers' metadata give it); [`clean_field`] drops a final period,
/// which a title written out (`Nature.`) does not own.
/// `dot_after`: the period came right after the journal, outside it.
fn abbreviation_period(raw: &str, v: String, dot_after: bool) -> String {
    let ended = dot_after
        || raw
            .trim_end_matches(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ':'))
            .ends_with('.');
    let abbreviated = v.split_whitespace().rev().skip(1).any(|w| w.ends_with('.'));
    if ended && abbreviated && !v.ends_with('.') {
        v + "."
    } else {
        v
    }
}

/// Whether token `i` is labelled `<other>` (either `I-<other>` or its continuation).
fn is_other(tags: &[Tag<Label>], i: usize) -> bool {
    tags.get(i).is_some_and(|t| t.label == Label::Other)
}

/// A title's own marks that the model left outside it, on `<other>` tokens next to it: the
/// quote mark beside a title that holds an odd number of marks of its kind (the opening one of
/// `“We are running out of time”: temporal …`, the closing one of `the term “climate
/// anxiety”`), and a final `?` or `!`. `printed` is the text of tokens `a..b`.
fn widen_title(
    toks: &[Tok],
    tags: &[Tag<Label>],
    (a, b): (usize, usize),
    printed: &str,
) -> (usize, usize) {
    let text = |i: usize| toks.get(i).map_or("", |t| t.text.as_str());
    let is = |i: usize, set: &[char]| {
        let mut cs = text(i).chars();
        matches!((cs.next(), cs.next()), (Some(c), None) if set.contains(&c))
    };
    let (mut a, mut b) = (a, b);
    for q in &QUOTES {
        if q.marks(printed).is_multiple_of(2) {
            continue;
        }
        // The odd mark pairs with the one on whichever side holds one (on both sides it is
        // not known which, so the title stays as labelled).
        let before = a > 0 && is_other(tags, a - 1) && is(a - 1, q.open);
        let after = is_other(tags, b) && is(b, q.close);
        if before && !after {
            a -= 1;
        } else if after && !before {
            b += 1;
        }
    }
    if b > a && is_other(tags, b) && matches!(text(b), "?" | "!") {
        b += 1;
    }
    (a, b)
}

/// A citation from labelled tokens (names and date not yet parsed).
pub fn decode(raw: &str, toks: &[Tok], labels: &Labels) -> Citation {
    let mut c = Citation {
        raw: raw.to_string(),
        ..Citation::default()
    };
    // Identifiers and URLs keep the input's own spacing (no space inside `10.1000/xyz`).
    let norm = crate::tokenizer::normalise(raw);
    let ranges = text::token_ranges(&norm, toks);
    // Where the kept date span starts and ends: a second date span right after it ("June 1",
    // "2018" around the comma of "June 1, 2018") continues it.
    let mut date_span: Option<(usize, usize)> = None;
    let tags = labels.tags_or(Label::parse, Label::Other);
    for (label, a, b) in crate::labels::fields(&tags) {
        if label == Label::Other {
            continue;
        }
        // Identifiers, URLs and the free-text fields keep the input's own spacing: a title's
        // `p53`, `Mg2+` and `individuals' responses` come back as printed, not re-spaced
        // from the letter/digit-split tokens. Names, dates and numbers go on from tokens.
        let printed = |a: usize, b: usize| {
            ranges
                .as_deref()
                .and_then(|r| text::source_text(&norm, r, a, b))
                .unwrap_or_else(|| text::join_tokens(toks.get(a..b).unwrap_or_default()))
        };
        let mut value = match label {
            Label::Web
            | Label::Pubnum
            | Label::Title
            | Label::Journal
            | Label::Booktitle
            | Label::Series
            | Label::Publisher
            | Label::Location
            | Label::Institution
            | Label::Note
            | Label::Tech
            | Label::Collaboration => printed(a, b),
            _ => text::join_tokens(toks.get(a..b).unwrap_or_default()),
        };
        // A title's text is cut again only when it takes back a mark beside it.
        let (a, b) = if label == Label::Title {
            let wide = widen_title(toks, &tags, (a, b), &value);
            if wide != (a, b) {
                value = printed(wide.0, wide.1);
            }
            wide
        } else {
            (a, b)
        };
        let v = match label {
            Label::Author | Label::Editor => value.trim().to_string(),
            Label::Title | Label::Booktitle | Label::Series => strip_wrapping(&clean_field(&value)),
            Label::Journal => {
                let dot_after = is_other(&tags, b)
                    && toks
                        .get(b)
                        .is_some_and(|t| t.text == "." && !t.space_before);
                abbreviation_period(&value, strip_wrapping(&clean_field(&value)), dot_after)
            }
            Label::Pages | Label::Volume | Label::Issue | Label::Date => {
                strip_wrapping(&clean_field(&value))
            }
            Label::Web | Label::Pubnum => value.trim().trim_end_matches([',', ';']).to_string(),
            _ => clean_field(&value),
        };
        if v.is_empty() {
            continue;
        }
        match label {
            Label::Author => put(&mut c.author_text, v),
            Label::Editor => put(&mut c.editor_text, v),
            Label::Date => match date_span {
                None => {
                    c.date_text = Some(v);
                    date_span = Some((a, b));
                }
                Some((from, to)) if continues_date(toks, to, a) => {
                    let joined = text::join_tokens(toks.get(from..b).unwrap_or_default());
                    c.date_text = Some(strip_wrapping(&clean_field(&joined)));
                    date_span = Some((from, b));
                }
                Some(_) => {}
            },
            Label::Title => put(&mut c.title, v),
            Label::Journal => first(&mut c.journal, v),
            Label::Booktitle => first(&mut c.booktitle, v),
            Label::Series => put(&mut c.series, v),
            Label::Institution => put(&mut c.institution, v),
            Label::Collaboration => put(&mut c.collaboration, v),
            Label::Note => put(&mut c.note, v),
            Label::Tech => put(&mut c.tech, v),
            Label::Volume => first(&mut c.volume, v),
            Label::Issue => first(&mut c.issue, v),
            Label::Pages => first(&mut c.pages, v),
            Label::Location => first(&mut c.location, v),
            Label::Publisher => first(&mut c.publisher, v),
            Label::Web => put(&mut c.web, v),
            Label::Pubnum => c.pubnums.push(v),
            Label::Other => {}
        }
    }
    split_leading_year(&mut c);
    c
}

/// Whether a date span starting at token `next` continues the one ending at `end`: at most
/// two tokens between them, each a comma, full stop, slash or hyphen.
fn continues_date(toks: &[Tok], end: usize, next: usize) -> bool {
    next >= end
        && next - end <= 2
        && toks.get(end..next).is_some_and(|gap| {
            gap.iter()
                .all(|t| matches!(t.text.as_str(), "," | "." | "/" | "-" | "–"))
        })
}

/// The string the citation model sees: backslashes removed, leading `[({.,])}: ` and
/// trailing whitespace stripped.
pub fn prepare(raw: &str) -> String {
    let s: String = raw.chars().filter(|&c| c != '\\').collect();
    s.trim_start_matches(|c: char| "[({.,])}: \n\r\t".contains(c))
        .trim_end()
        .to_string()
}

/// Tokens of a prepared reference string (with the letter/digit split, in training too).
pub fn toks(prepared: &str) -> Vec<Tok> {
    f::toks_from_text(prepared, true)
}

/// Quire's structural facts about each token of a reference (columns 29-35 of [`rows`]),
/// computed left to right over the whole reference: what GROBID's columns cannot say because
/// they see the token and its immediate neighbours only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Structure {
    /// Whitespace came before the token (`12(3):45` is glued, `J. Phys.` is not).
    pub spaced: bool,
    /// Inside a pair of quotes (`“…”`, `"…"`, `‘…’`, `«…»`); the quotes themselves are not.
    pub quoted: bool,
    /// Inside round or square brackets; the brackets themselves are not.
    pub bracketed: bool,
    /// A year (four digits 1xxx or 2xxx) came earlier in the reference.
    pub after_year: bool,
    /// How many sentence-like breaks came before (capped at 9): `.` after a word of three or
    /// more characters, a number or a closing bracket/quote (not after an initial), `?`, `!`,
    /// `;`.
    pub segment: usize,
    /// An `In`/`in:` introducing a container (`… In: Proc. …`, `…, in Smith (ed.) …`) came
    /// earlier.
    pub after_in: bool,
}

fn is_year_token(s: &str) -> bool {
    s.len() == 4 && f::is_all_digits(s) && matches!(s.as_bytes()[0], b'1' | b'2')
}

/// An `in` that opens a container: first word, or after `.`, `,`, `;` or `)`, and followed by
/// `:` or a capitalised word.
fn is_container_in(toks: &[Tok], i: usize) -> bool {
    if !toks[i].text.eq_ignore_ascii_case("in") {
        return false;
    }
    let before = i == 0 || matches!(toks[i - 1].text.as_str(), "." | "," | ";" | ")" | "]");
    let after = toks
        .get(i + 1)
        .is_some_and(|t| t.text == ":" || t.text.chars().next().is_some_and(char::is_uppercase));
    before && after
}

/// [`Structure`] of every token.
pub fn structure(toks: &[Tok]) -> Vec<Structure> {
    let mut out = Vec::with_capacity(toks.len());
    let (mut double_open, mut single_open, mut guillemet_open) = (false, false, false);
    let mut depth = 0usize;
    let (mut after_year, mut after_in) = (false, false);
    let mut segment = 0usize;
    for (i, t) in toks.iter().enumerate() {
        let s = t.text.as_str();
        let quote_mark = matches!(s, "\"" | "“" | "”" | "‘" | "’" | "«" | "»" | "„");
        let bracket = matches!(s, "(" | "[" | ")" | "]");
        out.push(Structure {
            spaced: i == 0 || t.space_before || t.newline_before,
            quoted: !quote_mark && (double_open || single_open || guillemet_open),
            bracketed: !bracket && depth > 0,
            after_year,
            segment: segment.min(9),
            after_in,
        });
        match s {
            "“" | "„" => double_open = true,
            "”" => double_open = false,
            "\"" => double_open = !double_open,
            "‘" => single_open = true,
            // A closing single quote is an apostrophe unless a quote is open.
            "’" => single_open = false,
            "«" => guillemet_open = true,
            "»" => guillemet_open = false,
            "(" | "[" => depth += 1,
            ")" | "]" => depth = depth.saturating_sub(1),
            _ => {}
        }
        if is_year_token(s) {
            after_year = true;
        }
        if is_container_in(toks, i) {
            after_in = true;
        }
        let breaks = match s {
            "?" | "!" | ";" => true,
            "." => {
                i > 0 && {
                    let p = toks[i - 1].text.as_str();
                    p.chars().count() >= 3
                        || f::is_all_digits(p)
                        || matches!(p, ")" | "]" | "”" | "\"" | "’")
                }
            }
            _ => false,
        };
        if breaks {
            segment += 1;
        }
    }
    out
}

/// Feature rows (reference §3.5) for training and tagging: GROBID's columns 0-28, then
/// Quire's structural columns 29-35 ([`Structure`] and the word shape).
pub fn rows(toks: &[Tok], lex: &LexView<'_>) -> crate::features::Rows {
    let n = toks.len();
    let locations = lex.flags(Kind::Location, toks);
    let urls = f::url_flags(toks);
    let collabs = lex.flags(Kind::Collaboration, toks);
    let journals = lex.flags(Kind::Journal, toks);
    let confs = lex.flags(Kind::Conference, toks);
    let publishers = lex.flags(Kind::Publisher, toks);
    let ids = f::identifier_flags(toks);
    let shape = structure(toks);
    toks.iter()
        .enumerate()
        .map(|(i, t)| {
            let s = t.text.as_str();
            let mut row = Vec::with_capacity(COLUMNS);
            f::push_lexical(&mut row, s);
            row.push(
                if i == 0 {
                    "LINESTART"
                } else if i + 1 == n {
                    "LINEEND"
                } else {
                    "LINEIN"
                }
                .into(),
            );
            row.push(f::capitalisation(s).into());
            row.push(f::digit(s).into());
            row.push(f::single_char(s).into());
            let first = lex.has_word(Kind::FirstName, s);
            let last = lex.has_word(Kind::LastName, s);
            row.push(f::flag(first || last).into());
            row.push(f::flag(lex.has_word(Kind::CommonWord, s)).into());
            row.push(f::flag(first).into());
            row.push(f::flag(last).into());
            row.push(f::flag(locations[i]).into());
            row.push(f::flag(f::is_year(s)).into());
            row.push(f::flag(f::is_month(s)).into());
            row.push(f::flag(urls[i]).into());
            row.push(f::flag(collabs[i]).into());
            row.push(f::flag(journals[i]).into());
            row.push(f::flag(confs[i]).into());
            row.push(f::flag(publishers[i]).into());
            row.push(f::flag(ids[i]).into());
            row.push(f::punct_type(s).into());
            row.push(crate::features::number(f::linear_scaling(i, n, 12)));
            let st = &shape[i];
            row.push(if st.spaced { "SPACED" } else { "GLUED" }.into());
            row.push(f::flag(st.quoted).into());
            row.push(f::flag(st.bracketed).into());
            row.push(f::flag(st.after_year).into());
            row.push(crate::features::number(st.segment));
            row.push(f::flag(st.after_in).into());
            row.push(f::word_shape(s).into());
            row
        })
        .collect()
}

/// Columns of a citation feature row.
pub const COLUMNS: usize = 36;

/// One page number as printed, without the spaces inside it and a trailing unit word
/// (`p`, `pp`, `pages`) or period.
fn page_number(s: &str) -> String {
    let mut t = s.trim().trim_end_matches('.').trim_end();
    for unit in [" pages", " pp", " p"] {
        if t.len() > unit.len() && t.to_ascii_lowercase().ends_with(unit) {
            t = t[..t.len() - unit.len()].trim_end();
            break;
        }
    }
    t.split_whitespace().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::rules::CitationRules;
    use crate::lexicon::Lexicons;
    use std::path::Path;
    use Label::*;

    const REF: &str = "Smith, J. A. and van der Berg, K. (2019). Deep parsing of references. J. Doc. Eng. 12(3): 45-67. doi:10.1000/xyz";

    fn labels_for_ref() -> Vec<Label> {
        let mut l = vec![Author; 13];
        l.extend([Other, Date, Other, Other]);
        l.extend([Title; 4]);
        l.push(Other);
        l.extend([Journal; 6]);
        l.extend([
            Volume, Other, Issue, Other, Other, Pages, Pages, Pages, Other,
        ]);
        l.extend([Pubnum; 7]);
        l
    }

    #[test]
    fn a_date_split_around_its_comma_is_one_date() {
        let p = prepare("Hayes K. Mental health. Int J Ment Health Syst. June 1, 2018;12(1):28. Reprinted 2020.");
        let t = toks(&p);
        let texts: Vec<&str> = t.iter().map(|t| t.text.as_str()).collect();
        let at = |w: &str| texts.iter().position(|&x| x == w).unwrap();
        let mut labels = vec!["<other>".to_string(); t.len()];
        labels[at("June")] = "I-<date>".into();
        labels[at("June") + 1] = "<date>".into();
        labels[at("2018")] = "I-<date>".into();
        labels[at("2020")] = "I-<date>".into();
        let c = decode(&p, &t, &Labels::from_names(&labels));
        // The year after the comma joins the month and day; a date further on does not.
        assert_eq!(c.date_text.as_deref(), Some("June 1, 2018"));
    }

    /// Text fields come back as printed: letter/digit splits and apostrophes are not
    /// re-spaced, and a title that quotes its own first part keeps its quotes.
    #[test]
    fn titles_and_containers_keep_the_printed_spacing() {
        let p = prepare("Ng B. \"Run a Course\": young people's p53 and Mg2+ in individuals' cells, an 'open' view. Proc. EMBO2019 Conf. 2019.");
        let t = toks(&p);
        let texts: Vec<&str> = t.iter().map(|t| t.text.as_str()).collect();
        let at = |w: &str| texts.iter().position(|&x| x == w).unwrap();
        let mut labels = vec!["<other>".to_string(); t.len()];
        let mut label = |from: usize, to: usize, l: &str| {
            for (i, slot) in labels.iter_mut().enumerate().take(to).skip(from) {
                *slot = if i == from {
                    format!("I-{l}")
                } else {
                    l.to_string()
                };
            }
        };
        label(at("\""), at("view") + 2, "<title>");
        label(at("Proc"), at("Conf") + 1, "<booktitle>");
        let c = decode(&p, &t, &Labels::from_names(&labels));
        assert_eq!(
            c.title.as_deref(),
            Some("\"Run a Course\": young people's p53 and Mg2+ in individuals' cells, an 'open' view")
        );
        assert_eq!(c.booktitle.as_deref(), Some("Proc. EMBO2019 Conf"));
    }

    #[test]
    fn wrapping_quotes_go_and_quotes_of_a_part_stay() {
        assert_eq!(strip_wrapping("\"A study\""), "A study");
        assert_eq!(strip_wrapping("“A study”"), "A study");
        assert_eq!(strip_wrapping("\"A study"), "A study");
        // Quoted words inside a wrapped title: the wrapping pair goes, the inner pair stays.
        assert_eq!(
            strip_wrapping("\"The \"quoted\" word\""),
            "The \"quoted\" word"
        );
        // The opening quote is closed inside: the quotes belong to a part of the title.
        assert_eq!(
            strip_wrapping("“It's a Course”: how youth cope"),
            "“It's a Course”: how youth cope"
        );
        assert_eq!(strip_wrapping("(In press)"), "In press");
        // Single quotes: apostrophes are not marks; a quoted end stays, a wrapping pair goes.
        assert_eq!(
            strip_wrapping("the guide 'doing meta-analysis in R'"),
            "the guide 'doing meta-analysis in R'"
        );
        assert_eq!(strip_wrapping("'Children's play'"), "Children's play");
        assert_eq!(strip_wrapping("Children's play'"), "Children's play");
    }

    /// The model often leaves a title's opening quote, a closing quote or its `?` outside
    /// the title; the decoder takes them back, and nothing else.
    #[test]
    fn a_title_takes_back_its_own_quotes_and_question_mark() {
        let decode_title = |s: &str, first: &str, last: &str| {
            let p = prepare(s);
            let t = toks(&p);
            let texts: Vec<&str> = t.iter().map(|t| t.text.as_str()).collect();
            let from = texts.iter().position(|&x| x == first).unwrap();
            let to = texts.iter().rposition(|&x| x == last).unwrap();
            let labels: Vec<String> = (0..t.len())
                .map(|i| match i {
                    i if i == from => "I-<title>".to_string(),
                    i if i > from && i <= to => "<title>".to_string(),
                    // As the models label them: each `<other>` token opens its own field.
                    _ => "I-<other>".to_string(),
                })
                .collect();
            decode(&p, &t, &Labels::from_names(&labels)).title
        };
        assert_eq!(
            decode_title(
                "Ng B. \"We are out of time\": a study. 2020.",
                "We",
                "study"
            )
            .as_deref(),
            Some("\"We are out of time\": a study")
        );
        assert_eq!(
            decode_title(
                "Ng B. How the term \"climate anxiety\". 2020.",
                "How",
                "anxiety"
            )
            .as_deref(),
            Some("How the term \"climate anxiety\"")
        );
        assert_eq!(
            decode_title("Ng B. 'We will all die': drought. 2020.", "We", "drought").as_deref(),
            Some("'We will all die': drought")
        );
        assert_eq!(
            decode_title("Ng B. Is it real? J. Doc. 2020.", "Is", "real").as_deref(),
            Some("Is it real?")
        );
        // Balanced quotes and a title that ends with a plain word take nothing more.
        assert_eq!(
            decode_title("Ng B. \"A study\". J. Doc. 2020.", "A", "study").as_deref(),
            Some("A study")
        );
    }

    #[test]
    fn only_an_abbreviated_journal_keeps_its_final_period() {
        assert_eq!(
            abbreviation_period("Front. Psychol.", "Front. Psychol".into(), false),
            "Front. Psychol."
        );
        assert_eq!(
            abbreviation_period("Nature.", "Nature".into(), false),
            "Nature"
        );
        assert_eq!(
            abbreviation_period("Nucl. Acid Res.", "Nucl. Acid Res".into(), false),
            "Nucl. Acid Res."
        );
        assert_eq!(
            abbreviation_period("Meat Sci.", "Meat Sci".into(), false),
            "Meat Sci"
        );
        // The period labelled outside the journal, right after it.
        assert_eq!(
            abbreviation_period("J. Food Sci", "J. Food Sci".into(), true),
            "J. Food Sci."
        );
        assert_eq!(
            abbreviation_period("J. Doc. Eng", "J. Doc. Eng".into(), false),
            "J. Doc. Eng"
        );
    }

    #[test]
    fn decodes_a_journal_reference() {
        let p = prepare(REF);
        let t = toks(&p);
        let labels = labels_for_ref();
        assert_eq!(
            t.len(),
            labels.len(),
            "{:?}",
            t.iter().map(|t| &t.text).collect::<Vec<_>>()
        );
        let c = decode(&p, &t, &Labels::from_names(&labels));
        assert_eq!(
            c.author_text.as_deref(),
            Some("Smith, J. A. and van der Berg, K.")
        );
        assert_eq!(c.date_text.as_deref(), Some("2019"));
        assert_eq!(c.title.as_deref(), Some("Deep parsing of references"));
        // An abbreviated journal keeps its last abbreviation's period.
        assert_eq!(c.journal.as_deref(), Some("J. Doc. Eng."));
        assert_eq!(c.volume.as_deref(), Some("12"));
        assert_eq!(c.issue.as_deref(), Some("3"));
        assert_eq!(
            c.page_range(),
            Some(("45".to_string(), Some("67".to_string())))
        );
        assert_eq!(c.doi().as_deref(), Some("10.1000/xyz"));
        // Page numbers with letters are one word.
        for (pages, want) in [
            ("e 863-873", ("e863", Some("873"))),
            ("S 105 - S 110", ("S105", Some("S110"))),
            ("D 597–D 602", ("D597", Some("D602"))),
            ("131 p.", ("131", None)),
            ("pp. 12 - 19", ("12", Some("19"))),
        ] {
            let c = Citation {
                pages: Some(pages.into()),
                ..Default::default()
            };
            let want = (want.0.to_string(), want.1.map(String::from));
            assert_eq!(c.page_range(), Some(want), "{pages}");
        }
        // The pubnum keeps the input's spacing (tokens joined would give `doi: 10. 1000/xyz`).
        assert_eq!(c.pubnums, vec!["doi:10.1000/xyz".to_string()]);
        assert!(!c.is_empty());
        // A second volume/pages run (an erratum) does not merge into the first.
        let mut l = labels.clone();
        l[30] = Volume;
        let c = decode(&p, &t, &Labels::from_names(&l));
        assert_eq!(c.volume.as_deref(), Some("12"));
        assert_eq!(c.issue, None);
    }

    #[test]
    fn prepare_strips_like_grobid() {
        assert_eq!(prepare(". [A. B\\ title.  \n"), "A. B title.");
        // Like GROBID, only the listed characters are stripped: a numeric label stays.
        assert_eq!(prepare("[12] A."), "12] A.");
        assert_eq!(prepare("  "), "");
    }

    #[test]
    fn rows_have_the_citation_columns() {
        let lex = Lexicons::default();
        let p = prepare(REF);
        let t = toks(&p);
        let r = rows(&t, &LexView::new(&lex));
        assert_eq!(r.len(), t.len());
        assert!(r.iter().all(|row| row.len() == COLUMNS));
        assert_eq!(r[0][10], "LINESTART");
        let y = t.iter().position(|t| t.text == "2019").unwrap();
        assert_eq!(r[y][19], "1");
        let d = t.iter().position(|t| t.text == "xyz").unwrap();
        assert_eq!(r[d][26], "1");
        assert_eq!(r[d][28], "11");
        assert_eq!(r[t.len() / 2][28], "6");
    }

    #[test]
    fn structure_columns_follow_the_reference() {
        let p = prepare(
            "Smith, J. (2019). “Deep parsing”, in: Proc. of ACL (eds. Doe), pp. 12(3):45-67; 2nd ed.",
        );
        let t = toks(&p);
        let st = structure(&t);
        let at = |text: &str| t.iter().position(|x| x.text == text).unwrap();
        // Spacing: `J` follows a space, `,` after `Smith` and the `3` inside `12(3)` do not.
        assert!(st[at("J")].spaced);
        assert!(!st[1].spaced);
        assert!(!st[at("3")].spaced);
        // Quotes: the words between them, not the marks.
        assert!(st[at("Deep")].quoted && st[at("parsing")].quoted);
        assert!(!st[at("“")].quoted && !st[at("”")].quoted && !st[at("in")].quoted);
        // Brackets: `2019` and `3` are inside, the brackets and `Smith` are not.
        assert!(st[at("2019")].bracketed && st[at("3")].bracketed);
        assert!(!st[at("(")].bracketed && !st[0].bracketed && !st[at("pp")].bracketed);
        // The year: false up to it, true after.
        assert!(!st[at("2019")].after_year && st[at("Deep")].after_year);
        // `in:` opens a container; nothing before it is after it.
        assert!(!st[at("in")].after_in && st[at("Proc")].after_in && !st[at("Deep")].after_in);
        // Segments: the `.` after the initial `J` is no break, the one after `)` is; `;`
        // breaks too.
        assert_eq!(st[at("2019")].segment, 0);
        assert_eq!(st[at("Deep")].segment, 1);
        let nd = t.iter().position(|x| x.text == "nd").unwrap();
        assert!(st[nd].segment >= 3, "{}", st[nd].segment);
        // Rows carry them in columns 29-35.
        let lex = Lexicons::default();
        let r = rows(&t, &LexView::new(&lex));
        assert_eq!(r[at("3")][29], "GLUED");
        assert_eq!(r[at("J")][29], "SPACED");
        assert_eq!(r[at("Deep")][30], "1");
        assert_eq!(r[at("2019")][31], "1");
        assert_eq!(r[at("Deep")][32], "1");
        assert_eq!(r[at("Deep")][33], "1");
        assert_eq!(r[at("Proc")][34], "1");
        assert_eq!(r[at("Smith")][35], "Xxxx");
    }

    #[test]
    fn a_lone_in_or_a_word_inside_a_title_opens_no_container() {
        let t = toks("Smith J. Advances in Parsing. Nature 1999");
        let st = structure(&t);
        assert!(st.iter().all(|s| !s.after_in));
        let t = toks("Smith J. A title. In Jones (ed.) Book");
        assert!(structure(&t).last().unwrap().after_in);
    }

    #[test]
    fn corpus_and_runtime_tokens_agree_on_spacing() {
        let xml = "<TEI><text><listBibl><bibl><author>Smith, J.</author> (<date>2019</date>). <title level=\"a\">A study</title>. <title level=\"j\">Nature</title> <biblScope unit=\"volume\">12</biblScope>(<biblScope unit=\"issue\">3</biblScope>):<biblScope unit=\"page\">45-67</biblScope>.</bibl></listBibl></text></TEI>";
        let seqs = crate::corpus::read_str(Path::new("t.xml"), xml, &CitationRules).unwrap();
        let runtime = toks(&prepare("Smith, J. (2019). A study. Nature 12(3):45-67."));
        assert_eq!(seqs[0].toks, runtime);
        assert!(runtime.iter().any(|t| !t.space_before));
    }

    #[test]
    fn arxiv_pubnum_after_characters_whose_lower_case_changes_length() {
        let c = Citation {
            pubnums: vec!["İİ arXiv:2101.00001".into()],
            ..Citation::default()
        };
        assert_eq!(c.arxiv().as_deref(), Some("2101.00001"));
        let c = Citation {
            pubnums: vec!["\u{212A}\u{212A}\u{212A} ARXIV: 2101.00001".into()],
            ..Citation::default()
        };
        assert_eq!(c.arxiv().as_deref(), Some("2101.00001"));
    }

    #[test]
    fn a_year_opening_the_title_is_split_off() {
        let mut c = Citation {
            title: Some("1943 A logical calculus of the ideas".into()),
            ..Citation::default()
        };
        split_leading_year(&mut c);
        assert_eq!(c.title.as_deref(), Some("A logical calculus of the ideas"));
        assert_eq!(c.date_text.as_deref(), Some("1943"));
        let mut d = Citation {
            title: Some("2001a. Another study".into()),
            date_text: Some("2001".into()),
            ..Citation::default()
        };
        split_leading_year(&mut d);
        assert_eq!(d.title.as_deref(), Some("Another study"));
        assert_eq!(d.date_text.as_deref(), Some("2001"));
        for keep in [
            "2001: A Space Odyssey",
            "1984",
            "3000 years of history",
            "19th century",
        ] {
            let mut e = Citation {
                title: Some(keep.into()),
                ..Citation::default()
            };
            split_leading_year(&mut e);
            assert_eq!(e.title.as_deref(), Some(keep), "{keep}");
        }
        let mut f = Citation {
            title: Some("1984 revisited".into()),
            date_text: Some("2003".into()),
            ..Citation::default()
        };
        split_leading_year(&mut f);
        assert_eq!(f.title.as_deref(), Some("1984 revisited"));
    }
}
