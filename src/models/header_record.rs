//! From the header model's field spans (and the name, affiliation and date models' results on
//! them) to a [`HeaderRecord`]: the segments each sub-model is given, and the model-free
//! post-processing GROBID applies (reference grobid-models.md §1.3 steps 4-7): author
//! filtering, e-mail and affiliation attachment, title/abstract/keyword clean-up, DOI and
//! arXiv identifiers.

use std::ops::Range;

use crate::document::{Author, FrontText, HeaderRecord};
use crate::models::affiliation::Affiliation;
use crate::models::date::Date;
use crate::models::header::{join_lines, HeaderFields, Label, ORGANISATION_WORDS};
use crate::models::name::{self, Person};

/// The text given to the name model, one entry per `<author>` span.
pub fn author_segments(f: &HeaderFields) -> Vec<String> {
    author_spans(f).map(|(_, s)| s).collect()
}

/// Per author segment, its printed lines (as given to the name model, joined by spaces).
pub fn author_segment_lines(f: &HeaderFields) -> Vec<Vec<String>> {
    author_spans(f)
        .map(|(i, _)| f.spans[i].1.lines().map(for_name_model).collect())
        .collect()
}

/// An author span's text as the name model reads it: `|` between authors (`A. Lee 1 | B. Ng
/// 2`) separates them as a comma does, and the private-use glyphs of icon fonts (the ORCID or
/// e-mail icon printed after a name) are left out: the name model never saw them, and one
/// between two authors hid the first author's name.
fn for_name_model(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, '\u{E000}'..='\u{F8FF}'))
        .map(|c| if c == '|' { ',' } else { c })
        .collect()
}

/// The non-blank `<author>` spans as (span index, text for the name model).
fn author_spans(f: &HeaderFields) -> impl Iterator<Item = (usize, String)> + '_ {
    f.spans
        .iter()
        .enumerate()
        .filter(|(_, (l, _))| *l == Label::Author)
        .map(|(i, (_, s))| (i, for_name_model(s).replace('\n', " ")))
        .filter(|(_, s)| !s.trim().is_empty())
}

/// A short name-like line the header model left as `<other>` just before an e-mail whose
/// local part holds one of its words (`Ofer Dekel` over `oferd@cs.huji.ac.il`) becomes an
/// `<author>` span, when the header has other author spans: an author block laid out like
/// its neighbours that the header model missed.
pub fn rescue_authors_by_email(f: &mut HeaderFields) {
    if f.first(Label::Author).is_none() {
        return;
    }
    rescue_capitalised_name_lines(f);
    // Author blocks laid out as a name over its e-mail: the header model labelled at least
    // one such pair itself.
    let name_over_email = (1..f.spans.len())
        .any(|i| f.spans[i].0 == Label::Email && f.spans[i - 1].0 == Label::Author);
    let mut i = 1;
    while i < f.spans.len() {
        let prev = f.spans[i - 1].0;
        if f.spans[i].0 != Label::Email
            || !matches!(prev, Label::Other | Label::Address | Label::Affiliation)
        {
            i += 1;
            continue;
        }
        // The name is the whole `<other>` span, or the last line of a longer span (`Korea` /
        // `Seungjin Choi`: the previous author's address run on into the next name).
        let text = f.spans[i - 1].1.trim_end().to_string();
        let (head, name) = match text.rsplit_once('\n') {
            Some((head, last)) => (Some(head.to_string()), last.to_string()),
            None if prev == Label::Other => (None, text.clone()),
            None => {
                i += 1;
                continue;
            }
        };
        if !name_like(&name) {
            i += 1;
            continue;
        }
        let locals: Vec<String> = split_emails(&f.spans[i].1)
            .iter()
            .map(|e| ascii_lower(e.split('@').next().unwrap_or("")))
            .collect();
        let words: Vec<String> = name.split_whitespace().map(ascii_lower).collect();
        let word_hit = words
            .iter()
            .any(|w| w.len() >= 3 && locals.iter().any(|l| l.contains(w.as_str())));
        // Where names over e-mails are the layout, an e-mail opening with the initial of one
        // of the name's words (`jst@` under `John Shawe-Taylor`) is enough.
        let initial_hit = name_over_email
            && words.iter().any(|w| {
                let c = w.chars().next();
                locals.iter().any(|l| l.chars().next() == c)
            });
        if !(word_hit || initial_hit) {
            i += 1;
            continue;
        }
        match head {
            None => f.spans[i - 1].0 = Label::Author,
            Some(head) => {
                let n = text.lines().count();
                let traced = f.tokens.len() == f.spans.len();
                let (head_toks, name_toks) = (
                    f.line_tokens(i - 1, 0..n - 1),
                    f.line_tokens(i - 1, n - 1..n),
                );
                f.spans[i - 1].1 = head;
                f.spans.insert(i, (Label::Author, name));
                if f.largest.len() + 1 == f.spans.len() {
                    f.largest.insert(i, 0);
                }
                if traced {
                    f.tokens[i - 1] = head_toks;
                    f.tokens.insert(i, name_toks);
                }
                i += 1;
            }
        }
        i += 1;
    }
}

/// A line of two to five words in capitals (initials, hyphens, apostrophes and footnote
/// marks allowed) that is not an organisation or a heading: `ULRICK SIDNEY KANMOUNYE`.
fn capitals_name_line(s: &str) -> bool {
    const NOT_NAMES: &[&str] = &[
        "abstract",
        "access",
        "article",
        "author",
        "authors",
        "background",
        "corresponding",
        "correspondence",
        "introduction",
        "keywords",
        "open",
        "original",
        "review",
        "reviews",
    ];
    let words: Vec<&str> = s
        .split_whitespace()
        .map(|w| w.trim_end_matches(['*', '†', '‡', ',']))
        .filter(|w| !w.chars().all(|c| c == '.'))
        .collect();
    (2..=5).contains(&words.len())
        && words
            .iter()
            .any(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 2)
        && words.iter().all(|w| {
            let w = w.trim_end_matches(['*', '†', '‡', ',']);
            w.chars().next().is_some_and(char::is_alphabetic)
                && w.chars().all(|c| {
                    (c.is_alphabetic() && !c.is_lowercase()) || matches!(c, '.' | '-' | '\'' | '’')
                })
        })
        && name_like(
            &words
                .join(" ")
                .to_lowercase()
                .split(' ')
                .map(title_case)
                .collect::<Vec<_>>()
                .join(" "),
        )
        && !words
            .iter()
            .any(|w| NOT_NAMES.contains(&ascii_lower(w.trim_end_matches(['*', ','])).as_str()))
}

fn title_case(w: &str) -> String {
    let mut c = w.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Author names printed one per line in capitals, where the header model labelled the
/// first line `<author>` (itself in capitals) and left the next lines `<other>`: each such
/// leading line of the `<other>` span becomes an `<author>` span of its own.
fn rescue_capitalised_name_lines(f: &mut HeaderFields) {
    let mut i = 1;
    while i < f.spans.len() {
        let after_caps_author = f.spans[i - 1].0 == Label::Author
            && f.spans[i - 1]
                .1
                .lines()
                .last()
                .is_some_and(capitals_name_line);
        if f.spans[i].0 != Label::Other || !after_caps_author {
            i += 1;
            continue;
        }
        let text = f.spans[i].1.clone();
        let lines: Vec<&str> = text.lines().collect();
        let n = lines.iter().take_while(|l| capitals_name_line(l)).count();
        if n == 0 {
            i += 1;
            continue;
        }
        let rest = lines[n..].join("\n");
        let names: Vec<(Label, String)> = lines[..n]
            .iter()
            .map(|l| (Label::Author, l.trim().to_string()))
            .collect();
        let aligned = f.largest.len() == f.spans.len();
        let traced = f.tokens.len() == f.spans.len();
        let ranges: Vec<_> = (0..n)
            .map(|k| f.line_tokens(i, k..k + 1))
            .chain(std::iter::once(f.line_tokens(i, n..lines.len())))
            .collect();
        let keep_rest = !rest.trim().is_empty();
        f.spans.splice(
            i..=i,
            names
                .into_iter()
                .chain(keep_rest.then_some((Label::Other, rest))),
        );
        if aligned {
            let added = n + usize::from(keep_rest);
            f.largest.splice(i..=i, std::iter::repeat_n(0, added));
        }
        if traced {
            f.tokens
                .splice(i..=i, ranges.into_iter().take(n + usize::from(keep_rest)));
        }
        i += n + 1;
    }
}

/// One line of two to four capitalised words made of letters (initials, hyphens and
/// apostrophes allowed): the shape of a printed person name; not a heading such as
/// `Corresponding Author` or `Contact Email`.
fn name_like(s: &str) -> bool {
    const HEADINGS: &[&str] = &[
        "address",
        "author",
        "authors",
        "contact",
        "correspondence",
        "corresponding",
        "email",
        "mail",
    ];
    const PLACES: &[&str] = &[
        "center",
        "centre",
        "division",
        "faculty",
        "group",
        "hospital",
        "research",
        "school",
        "science",
        "sciences",
        "technology",
    ];
    let s = s.trim();
    let words: Vec<&str> = s.split_whitespace().collect();
    let organisation = words.iter().any(|w| {
        let w = ascii_lower(w);
        ORGANISATION_WORDS.contains(&w.as_str()) || PLACES.contains(&w.as_str())
    });
    !s.contains('\n')
        && !organisation
        && (2..=4).contains(&words.len())
        && words.iter().all(|w| {
            w.chars().next().is_some_and(char::is_uppercase)
                && w.chars()
                    .all(|c| c.is_alphabetic() || matches!(c, '.' | '-' | '\'' | '’'))
                && !HEADINGS.contains(&ascii_lower(w).as_str())
        })
}

/// The texts given to the affiliation model: each `<affiliation>` span with the `<address>`
/// spans that follow it; an address with no affiliation before it stands alone.
pub fn affiliation_segments(f: &HeaderFields) -> Vec<String> {
    affiliation_parts(f).into_iter().map(|(s, _)| s).collect()
}

/// [`affiliation_segments`] with the header tokens of each: the ranges of the spans merged
/// into it (an untraced span adds none).
pub fn affiliation_segment_tokens(f: &HeaderFields) -> Vec<Vec<Range<usize>>> {
    affiliation_parts(f).into_iter().map(|(_, r)| r).collect()
}

fn affiliation_parts(f: &HeaderFields) -> Vec<(String, Vec<Range<usize>>)> {
    let mut out: Vec<(String, Vec<Range<usize>>)> = Vec::new();
    let mut last_was_aff = false;
    for (i, (l, s)) in f.spans.iter().enumerate() {
        let toks = Some(f.span_tokens(i)).filter(|r| !r.is_empty());
        match l {
            Label::Affiliation => {
                out.push((s.clone(), toks.into_iter().collect()));
                last_was_aff = true;
            }
            Label::Address => {
                match out.last_mut() {
                    Some((prev, ranges)) if last_was_aff => {
                        prev.push('\n');
                        prev.push_str(s);
                        ranges.extend(toks);
                    }
                    _ => out.push((s.clone(), toks.into_iter().collect())),
                }
                last_was_aff = true;
            }
            Label::Other | Label::Email if last_was_aff => {}
            _ => last_was_aff = false,
        }
    }
    out.retain(|(s, _)| !s.trim().is_empty());
    out
}

/// The date strings to normalise, in order (the first normalised one is kept).
pub fn date_strings(f: &HeaderFields) -> Vec<String> {
    f.all(Label::Date)
        .map(|s| s.replace('\n', " "))
        .filter(|s| s.chars().any(|c| c.is_ascii_digit()))
        .collect()
}

/// What the sub-models found, for [`assemble`].
#[derive(Debug, Clone, Default)]
pub struct SubResults {
    /// Per author segment, the persons the name model found in it.
    pub persons: Vec<Vec<Person>>,
    /// Per author segment, per person of `persons`: the name model's tokens its name parts
    /// cover, as indices into `name::toks` of the segment's text ([`author_segments`]);
    /// empty where not known.
    pub person_ranges: Vec<Vec<Range<usize>>>,
    /// The affiliations the affiliation model found (all segments, in order).
    pub affiliations: Vec<Affiliation>,
    /// Per affiliation, the index of its segment in [`affiliation_segments`] (empty when not
    /// known).
    pub affiliation_segment: Vec<usize>,
    pub date: Option<Date>,
}

/// Where the record's title, authors and affiliations lie in the header tokens, as ranges
/// into the tokens [`HeaderFields`] was decoded from (empty where not traced).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HeaderTrace {
    pub title: Vec<Range<usize>>,
    /// Per author of the record.
    pub authors: Vec<Vec<Range<usize>>>,
    /// Per affiliation of the record.
    pub affiliations: Vec<Vec<Range<usize>>>,
    /// The abstract's spans.
    pub abstract_spans: Vec<Range<usize>>,
    /// Per funding and per availability statement of the record, its span.
    pub funding: Vec<Range<usize>>,
    pub availability: Vec<Range<usize>>,
}

fn clean(s: &str) -> String {
    join_lines(s)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Title clean-up: lines joined, a leading footnote-like `1`/`*` removed, trailing
/// punctuation trimmed.
pub fn clean_title(s: &str) -> String {
    let t = clean(s);
    let t = t.trim_end_matches(['*', '†', '‡', ',', ';', ':']).trim();
    t.to_string()
}

/// The `<abstract>` spans that make the abstract: all of them, but those after a keyword
/// span that itself follows an abstract span (`Abstract … Keywords … Introduction text` the
/// model labelled `<abstract>` again: keywords close the abstract).
///
/// Address, affiliation or other spans between an abstract span that stops mid-sentence and
/// the next abstract span, which goes on in lower case, are the abstract's own words the
/// model took for something else (`… in Ghana, Nigeria, Kenya, Egypt` / `and Burkina Faso.`).
pub fn abstract_spans(f: &HeaderFields) -> Vec<&str> {
    abstract_span_ids(f)
        .into_iter()
        .map(|i| f.spans[i].1.as_str())
        .collect()
}

/// The indices of the spans [`abstract_spans`] reads.
fn abstract_span_ids(f: &HeaderFields) -> Vec<usize> {
    let mut out = Vec::new();
    let mut closed = false;
    for (i, (l, s)) in f.spans.iter().enumerate() {
        if f.body_text.contains(&i) {
            // The body's opening text: the abstract is over.
            closed = true;
            continue;
        }
        match l {
            Label::Keyword if !out.is_empty() => closed = true,
            // A keyword line or another abstract's heading the model left unlabelled closes
            // the abstract as well: the second abstract of a bilingual front page follows.
            Label::Other | Label::Reference
                if !out.is_empty() && (keyword_heading(s) || summary_heading(s)) =>
            {
                closed = true
            }
            Label::Abstract if !closed && (licence_statement(s) || citation_cue(s)) => {}
            Label::Abstract if !closed => {
                out.push(i);
                // Keywords printed at the end of the abstract's own block close it too.
                closed = keyword_line_at(s).is_some();
            }
            Label::Address | Label::Affiliation | Label::Other
                if !closed && i > 0 && mid_abstract(f, i) =>
            {
                out.push(i)
            }
            _ => {}
        }
    }
    out
}

/// A heading span of a second summary printed after the abstract
/// ([`SECOND_SUMMARY_HEADINGS`]): another abstract, which the first does not run into.
fn summary_heading(s: &str) -> bool {
    let s = s.trim_start();
    SECOND_SUMMARY_HEADINGS.iter().any(|h| s.starts_with(h))
}

/// Headings of a keyword list, in the languages of the front pages seen most (`Keywords:`,
/// `Key words`, `Palavras-chave:`, `Palabras clave:`, `Mots-clés :`, `Schlüsselwörter:`).
fn keyword_heading(s: &str) -> bool {
    let lower = s.trim_start().to_lowercase();
    [
        "keywords",
        "key words",
        "key-words",
        "palavras-chave",
        "palavras chave",
        "palabras clave",
        "palabras-clave",
        "mots-clés",
        "mots clés",
        "schlüsselwörter",
        "descritores",
        "descriptores",
    ]
    .iter()
    .any(|h| lower.starts_with(h))
}

/// Where a line that opens with a keyword heading starts in a span's text (its first line
/// aside, and after 100 bytes of text at least): the keywords printed under an abstract in
/// the same block, which the header model took as part of it.
fn keyword_line_at(s: &str) -> Option<usize> {
    let mut at = 0;
    for (k, line) in s.split('\n').enumerate() {
        if k > 0 && at >= 100 && keyword_heading(line) {
            return Some(at);
        }
        at += line.len() + 1;
    }
    None
}

/// A `To cite:` / `How to cite this article` box (`Como citar`, `Cómo citar`, `Citation:`)
/// that front pages print beside the abstract: the article's own reference, not its abstract.
fn citation_cue(s: &str) -> bool {
    let lower = s.trim_start().to_lowercase();
    [
        "to cite",
        "how to cite",
        "cite this article",
        "citation:",
        "como citar",
        "cómo citar",
        "citar como",
        "pour citer",
    ]
    .iter()
    .any(|h| lower.starts_with(h))
}

/// A short statement of the article's open-access licence (`This is an open access article
/// distributed under the Creative Commons …`, in any language: it names Creative Commons or
/// a CC licence), which front pages print in a box beside the abstract: not the abstract.
fn licence_statement(s: &str) -> bool {
    let lower = clean(s).to_lowercase();
    lower.chars().count() < 600
        && (lower.contains("creative commons")
            || lower.contains("cc by")
            || lower.contains("cc-by"))
}

/// Text the model labelled `<abstract>` that the abstract leaves out: spans after the
/// keywords closed it, and a second, plain-language summary cut off its end. Most often the
/// body's opening paragraphs that segmentation left in the front matter, or a summary
/// printed beside the abstract; the full text writes them as the body's first paragraphs, so
/// that no words are lost.
pub fn left_out_abstract(f: &HeaderFields) -> Vec<FrontText> {
    let ids = abstract_span_ids(f);
    let mut out = Vec::new();
    if !ids.is_empty() {
        let joined: Vec<&str> = ids.iter().map(|&i| f.spans[i].1.as_str()).collect();
        out = split_abstract(&joined.join("\n")).1;
    }
    let mut run: Vec<&str> = Vec::new();
    for (i, (l, s)) in f.spans.iter().enumerate() {
        let boxed = licence_statement(s) || citation_cue(s);
        if *l == Label::Abstract && !ids.contains(&i) && !boxed {
            run.push(s);
        } else if !run.is_empty() {
            out.push(FrontText::plain(clean(&run.join("\n"))));
            run.clear();
        }
    }
    if !run.is_empty() {
        out.push(FrontText::plain(clean(&run.join("\n"))));
    }
    out.retain(|s| !s.text.is_empty());
    out
}

/// Span `i` sits in a run of address/affiliation/other spans between an abstract span that
/// ends without a sentence end and an abstract span that opens in lower case.
fn mid_abstract(f: &HeaderFields, i: usize) -> bool {
    let inside = |l: &Label| matches!(l, Label::Address | Label::Affiliation | Label::Other);
    let before = f.spans[..i].iter().rev().find(|(l, _)| !inside(l));
    let after = f.spans[i + 1..].iter().find(|(l, _)| !inside(l));
    let open = before.is_some_and(|(l, s)| {
        *l == Label::Abstract && !s.trim_end().ends_with(['.', '!', '?', ':'])
    });
    let goes_on = after.is_some_and(|(l, s)| {
        *l == Label::Abstract
            && s.trim_start()
                .chars()
                .next()
                .is_some_and(char::is_lowercase)
    });
    open && goes_on
}

/// Headings of a second, plain-language summary printed after the abstract (its own
/// abstract type in JATS); the abstract ends before them.
const SECOND_SUMMARY_HEADINGS: &[&str] = &[
    "Author summary",
    "Author Summary",
    "AUTHOR SUMMARY",
    "Plain Language Summary",
    "Plain language summary",
    "PLAIN LANGUAGE SUMMARY",
    "Plain English Summary",
    "Plain English summary",
    "Lay Summary",
    "Lay summary",
    "Impact statement",
    "Impact Statement",
    "IMPACT STATEMENT",
];

/// Abstract clean-up: lines joined (de-hyphenated), a leading `Abstract`/`Summary` heading
/// removed.
pub fn clean_abstract(s: &str) -> String {
    split_abstract(s).0
}

/// Heads of a body's opening section (letters only, lower case) that front pages print right
/// after the abstract, where the header model often runs the abstract on into the section
/// (`Summary … Statement of need …` of software papers, `… Introduction …`).
const BODY_OPENING_HEADS: &[&str] = &[
    "introduction",
    "statementofneed",
    "statementoftheneed",
    "needstatement",
];

/// `head` as [`BODY_OPENING_HEADS`] spell heads: its letters, lower case.
fn head_key(head: &str) -> String {
    head.chars()
        .filter(|c| c.is_alphabetic())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Where a line of `s` holding only the head of the body's opening section (see
/// [`BODY_OPENING_HEADS`], numbered or not) starts and ends, once the abstract before it has
/// some length and ends a sentence: a structured abstract's `Introduction` opens it.
fn body_head_line_at(s: &str) -> Option<(usize, usize)> {
    let mut at = 0;
    for (k, line) in s.split('\n').enumerate() {
        let end = at + line.len();
        let t = line.trim();
        // A leading section number: `1`, `1.`, `I.`.
        let t = match t.split_once(' ') {
            Some((n, rest))
                if n.trim_end_matches('.')
                    .chars()
                    .all(|c| c.is_ascii_digit() || matches!(c, 'I' | 'V' | 'X')) =>
            {
                rest
            }
            _ => t,
        };
        if k > 0
            && at >= 100
            && t.len() < 40
            && BODY_OPENING_HEADS.contains(&head_key(t).as_str())
            && s[..at].trim_end().ends_with(['.', '!', '?', ')'])
        {
            return Some((at, end));
        }
        at = end + 1;
    }
    None
}

/// Of [`BODY_OPENING_HEADS`], those no abstract opens with (a structured abstract may open with
/// `Introduction`).
const NEVER_ABSTRACT_HEADS: &[&str] = &["statementofneed", "statementoftheneed", "needstatement"];

/// When `s` opens with one of [`NEVER_ABSTRACT_HEADS`] (alone on its line or run in, up to a
/// colon): the head, and where the section's text starts. Such an "abstract" is that section.
fn opening_body_head(s: &str) -> Option<(String, usize)> {
    let t = s.trim_start();
    let line = &t[..t.find('\n').unwrap_or(t.len())];
    let colon = line.find(':');
    let head = &line[..colon.unwrap_or(line.len())];
    (head.len() < 40 && NEVER_ABSTRACT_HEADS.contains(&head_key(head).as_str())).then(|| {
        let skip = head.len() + colon.map_or(0, |_| 1);
        (clean(head), s.len() - t.len() + skip)
    })
}

/// [`clean_abstract`], and what it cuts off its end: the body's opening section with its head
/// (see [`body_head_line_at`]), and a second summary (from its heading on). Text opening with
/// a head no abstract has (see [`opening_body_head`]) is no abstract: all of it is cut off.
fn split_abstract(s: &str) -> (String, Vec<FrontText>) {
    let s = keyword_line_at(s).map_or(s, |at| &s[..at]);
    if let Some((head, at)) = opening_body_head(s) {
        let text = clean(&s[at..]);
        let whole = (!text.is_empty()).then(|| FrontText {
            head: Some(head),
            text,
            ..FrontText::default()
        });
        return (String::new(), whole.into_iter().collect());
    }
    let mut cut_off = Vec::new();
    let s = match body_head_line_at(s) {
        Some((at, end)) => {
            let text = clean(&s[end..]);
            if !text.is_empty() {
                let head = clean(&s[at..end]);
                cut_off.push(FrontText {
                    head: Some(head.trim_end_matches([':', '.']).to_string()),
                    text,
                    ..FrontText::default()
                });
            }
            &s[..at]
        }
        None => s,
    };
    let mut t = clean(s);
    // A second summary after a sentence end, once the abstract has some length, ends it.
    let cut = SECOND_SUMMARY_HEADINGS
        .iter()
        .filter_map(|h| {
            t.match_indices(h)
                .map(|(i, _)| i)
                .find(|&i| i >= 200 && t[..i].trim_end().ends_with(['.', '!', '?', ')']))
        })
        .min();
    if let Some(i) = cut {
        cut_off.insert(0, FrontText::plain(t[i..].trim()));
        t.truncate(i);
        t = t.trim_end().to_string();
    }
    // ASCII lower-casing keeps byte offsets: `t` is sliced at the length of an ASCII head
    // (`to_lowercase` would change lengths for `İ`, `ẞ`, `K` (Kelvin), … and shift them).
    let lower = t.to_ascii_lowercase();
    for head in ["abstract", "summary", "a b s t r a c t"] {
        if lower.starts_with(head) {
            let after = &t[head.len()..];
            let after = after.trim_start_matches([' ', '.', ':', '-', '—', '–']);
            if after.len() + 5 < t.len() {
                return (after.trim().to_string(), cut_off);
            }
        }
    }
    (t, cut_off)
}

/// Keyword field → terms: a leading `Keywords:`-like heading removed, split on `;`, `,`,
/// `·`, `•`, `|` (on `,` only when no stronger separator is present), trailing `.` removed.
pub fn split_keywords(s: &str) -> Vec<String> {
    let mut t = clean(s);
    let lower = t.to_ascii_lowercase(); // same byte offsets as `t` (see clean_abstract)
    for head in [
        "keywords",
        "key words",
        "key-words",
        "index terms",
        "general terms",
        "keyword",
    ] {
        if lower.starts_with(head) {
            t = t[head.len()..]
                .trim_start_matches([' ', '.', ':', '-', '—', '–'])
                .to_string();
            break;
        }
    }
    let strong = ['·', '•', '⋅', '∙', ';', '|'];
    let parts: Vec<&str> = if t.contains(strong) {
        t.split(strong).collect()
    } else if t.contains(',') {
        t.split(',').collect()
    } else {
        t.split(" - ").collect()
    };
    parts
        .into_iter()
        .map(|p| p.trim().trim_end_matches('.').trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

/// An arXiv identifier (`arXiv:1234.56789v2` or `arXiv:hep-th/9901001`) in a text.
pub fn find_arxiv(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase(); // same byte offsets as `text`
    let at = lower.find("arxiv")?;
    let rest = text[at + 5..].trim_start_matches([':', ' ']);
    let id: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '/' | '-'))
        .collect();
    let id = id.trim_end_matches('.').to_string();
    let digits = id.chars().filter(char::is_ascii_digit).count();
    (digits >= 7).then_some(id)
}

fn norm_marker(m: &str) -> String {
    m.trim()
        .trim_matches([',', '.', '(', ')', '[', ']', ' '])
        .to_string()
}

fn ascii_lower(s: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    s.nfd()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Split an e-mail field into addresses (also `{a,b}@x.org` groups).
pub fn split_emails(s: &str) -> Vec<String> {
    let text: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let text = text
        .replace("E-mail:", " ")
        .replace("Email:", " ")
        .replace("e-mail:", " ")
        .replace("email:", " ");
    let mut out = Vec::new();
    // Grouped form: `{a, b}@domain`, also printed with `(…)` or `[…]` and `|` between names.
    for (open, close) in [('{', '}'), ('(', ')'), ('[', ']')] {
        let Some(b) = text.find(&format!("{close}@")) else {
            continue;
        };
        // The opening bracket may have been labelled apart from the e-mail field.
        let start = match text[..b].rfind(open) {
            Some(a) => a + 1,
            None if text[..b].contains(['|', ',']) => text[..b].rfind(' ').map_or(0, |a| a + 1),
            None => continue,
        };
        let locals = &text[start..b];
        let domain: String = text[b + 2..]
            .chars()
            .take_while(|c| !c.is_whitespace() && *c != ',' && *c != ';')
            .collect();
        let domain = domain.trim_end_matches('.');
        for l in locals.split([',', ';', '|']) {
            let l = l.trim();
            if !l.is_empty() && !l.contains(' ') && !domain.is_empty() {
                out.push(format!("{l}@{domain}"));
            }
        }
        if !out.is_empty() {
            return out;
        }
    }
    for part in text.split([' ', ',', ';']) {
        let p = part
            .trim()
            .trim_end_matches('.')
            .trim_start_matches(['(', '<']);
        let p = p.trim_end_matches([')', '>']);
        if p.contains('@') && p.len() > 3 {
            out.push(p.to_string());
        }
    }
    out
}

/// Assemble the record.
pub fn assemble(f: &HeaderFields, sub: SubResults, doc_text: &str) -> HeaderRecord {
    assemble_traced(f, sub, doc_text, &[]).0
}

/// Assemble the record and trace its title, authors and affiliations to the header tokens
/// whose texts are `texts` (the tokens `f` was decoded from). An author is traced through
/// the name model's tokens its name parts cover (`sub.person_ranges`) to the header tokens
/// those come from; an affiliation alone in its segment to the segment's spans.
pub fn assemble_traced(
    f: &HeaderFields,
    sub: SubResults,
    doc_text: &str,
    texts: &[&str],
) -> (HeaderRecord, HeaderTrace) {
    let title_at = f.most_prominent_at(Label::Title);
    let mut h = HeaderRecord {
        title: title_at
            .and_then(|i| f.spans.get(i))
            .map(|(_, s)| clean_title(s))
            .filter(|t| !t.is_empty()),
        ..Default::default()
    };
    let mut trace = HeaderTrace::default();
    if h.title.is_some() {
        let r = title_at.map(|i| f.span_tokens(i)).unwrap_or(0..0);
        trace.title.extend(Some(r).filter(|r| !r.is_empty()));
    }
    // Per author segment, the header tokens each of the name model's tokens comes from.
    let sources: Vec<Option<Vec<Range<usize>>>> = author_spans(f)
        .map(|(i, text)| name_token_sources(texts, f.span_tokens(i), &name::toks(&text, false)))
        .collect();
    // Authors: persons with a surname of at least two characters, duplicates merged.
    let n_segments = sub.persons.len();
    let mut author_segment: Vec<usize> = Vec::new();
    let mut author_tokens: Vec<Vec<Range<usize>>> = Vec::new();
    for (seg, persons) in sub.persons.into_iter().enumerate() {
        let ranges = sub.person_ranges.get(seg);
        for (k, p) in persons.into_iter().enumerate() {
            // The header tokens from the first to the last token of the person's name parts.
            let found = match (sources.get(seg), ranges.and_then(|r| r.get(k))) {
                (Some(Some(src)), Some(r)) if !r.is_empty() => src
                    .get(r.start)
                    .zip(src.get(r.end - 1))
                    .map(|(a, b)| a.start..b.end),
                _ => None,
            };
            let Some(surname) = p.surname.as_deref() else {
                continue;
            };
            if surname.chars().count() < 2 || !plausible_name(&p) {
                continue;
            }
            let dup = h.authors.iter().any(|a| same_person(&a.person, &p));
            if dup {
                continue;
            }
            let mut person = p;
            person.markers = person.markers.iter().map(|m| norm_marker(m)).collect();
            h.authors.push(Author {
                person,
                ..Default::default()
            });
            author_segment.push(seg);
            author_tokens.push(found.into_iter().collect());
        }
    }
    let kept = drop_surname_pairs(&mut h.authors, &mut author_segment);
    let mut it = kept.iter();
    author_tokens.retain(|_| *it.next().unwrap_or(&true));
    trace.authors = author_tokens;
    // Affiliations: one alone in its segment is traced to the segment's spans.
    let seg_tokens = affiliation_segment_tokens(f);
    let mut per_segment = vec![0usize; seg_tokens.len()];
    for &s in &sub.affiliation_segment {
        if let Some(n) = per_segment.get_mut(s) {
            *n += 1;
        }
    }
    for (k, a) in sub.affiliations.into_iter().enumerate() {
        if a.is_empty() && a.raw.trim().is_empty() {
            continue;
        }
        let seg = sub.affiliation_segment.get(k).copied();
        let ranges = seg
            .filter(|&s| per_segment.get(s) == Some(&1))
            .and_then(|s| seg_tokens.get(s).cloned())
            .unwrap_or_default();
        h.affiliations.push(a);
        trace.affiliations.push(ranges);
    }
    attach_affiliations(&mut h, &author_segment, n_segments);
    let emails: Vec<String> = f.all(Label::Email).flat_map(split_emails).collect();
    attach_emails(&mut h.authors, emails);
    h.abstract_text = f
        .first(Label::Abstract)
        .map(|_| clean_abstract(&abstract_spans(f).join("\n")))
        .filter(|a| !a.is_empty());
    h.keywords = f.all(Label::Keyword).flat_map(split_keywords).collect();
    let pubnums: String = f.all(Label::Pubnum).collect::<Vec<_>>().join(" ");
    h.doi = crate::doi::find_all(&pubnums)
        .into_iter()
        .next()
        .or_else(|| {
            let all = crate::doi::find_all(doc_text);
            (all.len() == 1).then(|| all[0].clone())
        });
    h.arxiv = find_arxiv(&pubnums).or_else(|| find_arxiv(doc_text));
    h.date = sub.date;
    h.copyright = joined(f, Label::Copyright);
    h.submission = joined(f, Label::Submission);
    h.meeting = f.first(Label::Meeting).map(clean);
    h.funding = statements(f, Label::Funding);
    h.front_text = left_out_abstract(f);
    h.availability = statements(f, Label::Availability);
    if h.abstract_text.is_some() {
        trace.abstract_spans = abstract_span_ids(f)
            .into_iter()
            .map(|i| f.span_tokens(i))
            .collect();
    }
    trace.funding = statement_spans(f, Label::Funding);
    trace.availability = statement_spans(f, Label::Availability);
    (h, trace)
}

/// For each of `toks` (the name model's tokens of an author span's text, as
/// [`author_segments`] gives it), the header tokens its characters come from, among
/// `texts[within]` (the span's header tokens). Both are the same characters in the same order,
/// whitespace aside, so they are walked together; `None` when they are not (a span whose text
/// a rule made up, or no token texts).
fn name_token_sources(
    texts: &[&str],
    within: Range<usize>,
    toks: &[crate::features::Tok],
) -> Option<Vec<Range<usize>>> {
    let mut chars = texts
        .get(within.clone())?
        .iter()
        .zip(within)
        .flat_map(|(t, k)| {
            crate::tokenizer::normalise(&for_name_model(t))
                .chars()
                .filter(|c| !c.is_whitespace())
                .map(move |c| (c, k))
                .collect::<Vec<_>>()
        });
    let mut out = Vec::with_capacity(toks.len());
    for t in toks {
        let mut from: Option<Range<usize>> = None;
        for c in t.text.chars().filter(|c| !c.is_whitespace()) {
            let (d, k) = chars.next()?;
            if d != c {
                return None;
            }
            let r = from.get_or_insert(k..k + 1);
            r.end = k + 1;
        }
        out.push(from?);
    }
    Some(out)
}

/// Every span of `label` as one text, as GROBID concatenates a header field's clusters: a
/// copyright notice or a received/accepted line the model cut in two (a word hyphenated
/// across the cut is rejoined) is written whole.
fn joined(f: &HeaderFields, label: Label) -> Option<String> {
    let all: Vec<&str> = f.all(label).collect();
    Some(clean(&all.join("\n"))).filter(|s| !s.is_empty())
}

/// Every span of `label`, cleaned, empty ones left out: front-matter statements (funding,
/// data availability) kept whole so that the full text can write them in the back matter.
fn statements(f: &HeaderFields, label: Label) -> Vec<String> {
    f.all(label).map(clean).filter(|s| !s.is_empty()).collect()
}

/// The token range of each statement [`statements`] gives, in its order.
fn statement_spans(f: &HeaderFields, label: Label) -> Vec<Range<usize>> {
    (0..f.spans.len())
        .filter(|&i| f.spans[i].0 == label && !clean(&f.spans[i].1).is_empty())
        .map(|i| f.span_tokens(i))
        .collect()
}

/// Two name-model results that name the same person: equal surnames (any case), or one
/// surname ending with the other as a word (`Nili Ahmadabadi` for `Ahmadabadi`), with
/// forenames that agree (equal, the same initial, or one missing): a copyright or running
/// line repeating the author list (`© 2010 Hossein Hajimirsadeghi, … . Hajimirsadeghi, …`)
/// adds no author.
fn same_person(a: &Person, b: &Person) -> bool {
    let (Some(sa), Some(sb)) = (a.surname.as_deref(), b.surname.as_deref()) else {
        return false;
    };
    let (sa, sb) = (sa.to_lowercase(), sb.to_lowercase());
    let ends = |long: &str, short: &str| {
        long.strip_suffix(short)
            .is_some_and(|head| head.ends_with([' ', '-']))
    };
    // One full name ending with the other's (`Nili Ahmadabadi` in `Majid Nili Ahmadabadi`).
    let words = |p: &Person| -> Vec<String> {
        [&p.forename, &p.middlename, &p.surname]
            .into_iter()
            .flatten()
            .flat_map(|s| s.split_whitespace())
            .map(str::to_lowercase)
            .collect()
    };
    let (wa, wb) = (words(a), words(b));
    let (short, long) = if wa.len() <= wb.len() {
        (&wa, &wb)
    } else {
        (&wb, &wa)
    };
    if short.len() >= 2 && short.len() < long.len() && long.ends_with(short) {
        return true;
    }
    if !(sa == sb || ends(&sa, &sb) || ends(&sb, &sa)) {
        return false;
    }
    let initial = |f: &Option<String>| {
        f.as_deref()
            .and_then(|f| f.chars().find(|c| c.is_alphabetic()))
            .map(|c| c.to_lowercase().to_string())
    };
    match (initial(&a.forename), initial(&b.forename)) {
        (Some(x), Some(y)) => x == y && (sa == sb || a.forename == b.forename),
        _ => true,
    }
}

/// A person whose one-word forename and surname are both other authors' surnames
/// (`Moradi Araabi` from a repeated `… Moradi. Hajimirsadeghi, … Araabi` list) is a surname
/// list misread as a name: dropped, unless an affiliation mark follows it.
fn drop_surname_pairs(authors: &mut Vec<Author>, author_segment: &mut Vec<usize>) -> Vec<bool> {
    let surnames: Vec<String> = authors
        .iter()
        .map(|a| a.person.surname.as_deref().unwrap_or("").to_lowercase())
        .collect();
    let other_surname = |j: usize, s: &str| {
        let s = s.to_lowercase();
        surnames.iter().enumerate().any(|(k, x)| k != j && *x == s)
    };
    let keep: Vec<bool> = authors
        .iter()
        .enumerate()
        .map(|(j, a)| {
            let p = &a.person;
            // A name followed by an affiliation mark is a byline entry (`Li Chen 1` beside
            // `Jun Li` and `Lan Chen`): given names are surnames too in many languages.
            let pair = p.markers.is_empty()
                && p.middlename.is_none()
                && p.forename
                    .as_deref()
                    .is_some_and(|f| !f.contains(char::is_whitespace) && other_surname(j, f))
                && p.surname.as_deref().is_some_and(|s| other_surname(j, s));
            !pair
        })
        .collect();
    let mut it = keep.iter();
    authors.retain(|_| *it.next().unwrap_or(&true));
    let mut it = keep.iter();
    author_segment.retain(|_| *it.next().unwrap_or(&true));
    keep
}

/// Every name part is made of letters (with spaces, hyphens, apostrophes, dots): a part made
/// of bullets or digits means the name model was given something that is not a name; a part
/// with an organisation word is a company or institution read as a name.
fn plausible_name(p: &Person) -> bool {
    let organisation = [&p.forename, &p.middlename, &p.surname]
        .into_iter()
        .flatten()
        .flat_map(|part| part.split([' ', '-']))
        .any(|w| ORGANISATION_WORDS.contains(&ascii_lower(w).as_str()));
    if organisation {
        return false;
    }
    let upper = |s: &Option<String>| {
        s.as_deref().is_some_and(|s| {
            s.chars().filter(|c| c.is_alphabetic()).count() >= 3
                && !s.chars().any(char::is_lowercase)
        })
    };
    // An all-capitals given name beside a mixed-case surname is an acronym (`IBM T J Watson`).
    if upper(&p.forename) && !upper(&p.surname) {
        return false;
    }
    // A lone short word in capitals, no given name, is an acronym (a lab's `LAL,` opening an
    // affiliation), not a person.
    let acronym = p.surname.as_deref().is_some_and(|s| {
        let letters = s.chars().filter(|c| c.is_alphabetic()).count();
        (2..=5).contains(&letters) && !s.contains(' ') && !s.chars().any(char::is_lowercase)
    });
    if acronym && p.forename.is_none() && p.middlename.is_none() {
        return false;
    }
    // A postal box read as a name (`P. O. Box`).
    let initials = |s: &Option<String>| s.as_deref().unwrap_or("").replace([' ', '.'], "");
    if p.surname
        .as_deref()
        .is_some_and(|s| s.eq_ignore_ascii_case("box"))
        && matches!(
            format!("{}{}", initials(&p.forename), initials(&p.middlename))
                .to_ascii_uppercase()
                .as_str(),
            "PO" | "P"
        )
    {
        return false;
    }
    [&p.forename, &p.middlename, &p.surname]
        .into_iter()
        .flatten()
        .all(|part| {
            part.chars().any(char::is_alphabetic)
                && part
                    .chars()
                    .all(|c| c.is_alphabetic() || matches!(c, ' ' | '-' | '\'' | '.' | '’'))
        })
}

fn attach_affiliations(h: &mut HeaderRecord, author_segment: &[usize], n_segments: usize) {
    let naff = h.affiliations.len();
    if naff == 0 || h.authors.is_empty() {
        return;
    }
    let aff_markers: Vec<Option<String>> = h
        .affiliations
        .iter()
        .map(|a| {
            a.markers
                .first()
                .map(|m| norm_marker(m))
                .filter(|m| !m.is_empty())
        })
        .collect();
    let any_marker = h.authors.iter().any(|a| !a.person.markers.is_empty())
        && aff_markers.iter().any(Option::is_some);
    if any_marker {
        for a in &mut h.authors {
            for m in &a.person.markers {
                for (k, am) in aff_markers.iter().enumerate() {
                    if am.as_deref() == Some(m.as_str()) && !a.affiliations.contains(&k) {
                        a.affiliations.push(k);
                    }
                }
            }
        }
    } else if naff == 1 {
        for a in &mut h.authors {
            a.affiliations.push(0);
        }
    } else if n_segments == naff && n_segments > 1 {
        for (a, &seg) in h.authors.iter_mut().zip(author_segment) {
            a.affiliations.push(seg);
        }
    }
}

fn attach_emails(authors: &mut [Author], emails: Vec<String>) {
    let mut unused = Vec::new();
    for e in emails {
        let local = ascii_lower(e.split('@').next().unwrap_or(""));
        let hit = authors.iter().position(|a| {
            a.email.is_none()
                && a.person
                    .surname
                    .as_deref()
                    .map(ascii_lower)
                    .is_some_and(|s| s.len() >= 2 && local.contains(&s))
        });
        match hit {
            Some(i) => authors[i].email = Some(e),
            None => unused.push(e),
        }
    }
    // Left-overs: by order, when each remaining author has none.
    let free: Vec<usize> = (0..authors.len())
        .filter(|&i| authors[i].email.is_none())
        .collect();
    if !unused.is_empty() && unused.len() == free.len() {
        for (i, e) in free.into_iter().zip(unused) {
            authors[i].email = Some(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(spans: &[(Label, &str)]) -> HeaderFields {
        HeaderFields::of(spans)
    }

    #[test]
    fn a_doi_printed_across_a_line_end_is_whole() {
        let f = fields(&[(
            Label::Pubnum,
            "Citation: PLoS ONE 20(5): e0323994. https://doi.org/10.1371/journal.\npone.0323994",
        )]);
        let h = assemble(&f, SubResults::default(), "");
        assert_eq!(h.doi.as_deref(), Some("10.1371/journal.pone.0323994"));
    }

    #[test]
    fn abstract_text_the_abstract_leaves_out_is_kept_for_the_body() {
        let summary = "Plain Language Summary Heat harms mental health.";
        let first = format!(
            "Abstract {}.",
            "We study the effect of heat on health ".repeat(6)
        );
        let f = fields(&[
            (Label::Abstract, first.as_str()),
            (Label::Abstract, summary),
            (Label::Keyword, "Keywords: heat; health"),
            (Label::Abstract, "Climate change is defined as al-"),
            (Label::Abstract, "terations of the climate."),
            (Label::Other, "www.example.org"),
            (Label::Abstract, "Written informed consent was obtained."),
        ]);
        let h = assemble(&f, SubResults::default(), "");
        let kept = h.abstract_text.as_deref().unwrap_or("");
        assert!(kept.starts_with("We study") && !kept.contains("Plain"));
        assert_eq!(
            h.front_text,
            [
                summary,
                "Climate change is defined as alterations of the climate.",
                "Written informed consent was obtained."
            ]
            .map(FrontText::plain)
        );
        let plain = fields(&[(Label::Abstract, "Abstract We study heat.")]);
        assert!(left_out_abstract(&plain).is_empty());
    }

    #[test]
    fn the_body_opening_section_the_abstract_runs_on_into_is_cut_off_with_its_head() {
        let summary = format!(
            "Summary\n{}.",
            "The template helps teachers share slides "
                .repeat(4)
                .trim_end()
        );
        for head in ["Statement of Need", "1. Introduction", "INTRODUCTION"] {
            let f = fields(&[(
                Label::Abstract,
                format!("{summary}\n{head}\nThe package started as an at-\ntempt.").as_str(),
            )]);
            let h = assemble(&f, SubResults::default(), "");
            let kept = h.abstract_text.as_deref().unwrap_or("");
            assert!(
                kept.starts_with("The template") && kept.ends_with("slides."),
                "{kept}"
            );
            assert_eq!(
                h.front_text,
                [FrontText {
                    head: Some(head.into()),
                    text: "The package started as an attempt.".into(),
                    ..FrontText::default()
                }]
            );
        }
        // A section no abstract opens with, as the whole of the text labelled abstract.
        for text in [
            "Statement of need: Bioinformatics grows.\nIt is taught.",
            "Statement of Need\nBioinformatics grows. It is taught.",
        ] {
            let f = fields(&[(Label::Abstract, text)]);
            let h = assemble(&f, SubResults::default(), "");
            assert_eq!(h.abstract_text, None, "{text}");
            assert_eq!(h.front_text.len(), 1);
            assert!(h.front_text[0]
                .head
                .as_deref()
                .is_some_and(|t| t.eq_ignore_ascii_case("statement of need")));
            assert_eq!(h.front_text[0].text, "Bioinformatics grows. It is taught.");
        }
        // A structured abstract's `Introduction` label opens it, and a head inside a sentence
        // or after one that did not end is not a head: nothing is cut.
        for text in [
            format!(
                "Introduction\n{}.\nMethods\nWe looked.",
                "Heat harms health ".repeat(8)
            ),
            format!(
                "{} of the\nIntroduction\nof new tools.",
                "Heat harms health ".repeat(8)
            ),
        ] {
            let f = fields(&[(Label::Abstract, text.as_str())]);
            assert!(left_out_abstract(&f).is_empty(), "{text}");
        }
    }

    #[test]
    fn a_copyright_or_submission_cut_in_two_is_kept_whole() {
        let f = fields(&[
            (Label::Copyright, "Authors of papers retain copy-"),
            (Label::Other, "Editor:"),
            (Label::Copyright, "right and release the work."),
            (Label::Submission, "Received: 1 May 2020"),
            (Label::Submission, "Accepted: 2 June 2020"),
        ]);
        let h = assemble(&f, SubResults::default(), "");
        assert_eq!(
            h.copyright.as_deref(),
            Some("Authors of papers retain copyright and release the work.")
        );
        assert_eq!(
            h.submission.as_deref(),
            Some("Received: 1 May 2020 Accepted: 2 June 2020")
        );
        let none = assemble(
            &fields(&[(Label::Copyright, " ")]),
            SubResults::default(),
            "",
        );
        assert_eq!(none.copyright, None);
    }

    #[test]
    fn every_front_matter_funding_and_availability_statement_is_kept() {
        let f = fields(&[
            (Label::Title, "A title"),
            (Label::Other, "Funding:"),
            (
                Label::Funding,
                "This work was supported by\nthe Agency (grant 12).",
            ),
            (Label::Other, "Data Availability Statement:"),
            (
                Label::Availability,
                "All relevant data are within the paper.",
            ),
            (Label::Funding, "The funders had no role."),
            (Label::Funding, "  "),
        ]);
        let h = assemble(&f, SubResults::default(), "");
        assert_eq!(
            h.funding,
            [
                "This work was supported by the Agency (grant 12).",
                "The funders had no role."
            ]
        );
        assert_eq!(h.availability, ["All relevant data are within the paper."]);
    }

    fn person(first: &str, last: &str, markers: &[&str]) -> Person {
        Person {
            forename: Some(first.into()),
            surname: Some(last.into()),
            markers: markers.iter().map(|m| m.to_string()).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn a_name_line_over_its_own_email_is_rescued_as_an_author() {
        let mut f = fields(&[
            (Label::Title, "A title"),
            (Label::Author, "Yonatan Amit"),
            (Label::Email, "mitmit@cs.huji.ac.il"),
            (Label::Other, "Ofer Dekel"),
            (Label::Email, "oferd@cs.huji.ac.il"),
            (Label::Other, "Hebrew University"),
            (Label::Email, "info@cs.huji.ac.il"),
            (Label::Other, "Technical report 12"),
            (Label::Email, "report@cs.huji.ac.il"),
            (Label::Other, "Corresponding Author"),
            (Label::Email, "author@cs.huji.ac.il"),
        ]);
        rescue_authors_by_email(&mut f);
        let authors: Vec<&str> = f.all(Label::Author).collect();
        assert_eq!(authors, vec!["Yonatan Amit", "Ofer Dekel"]);
        // Without any author span, nothing is rescued.
        let mut g = fields(&[(Label::Other, "Ofer Dekel"), (Label::Email, "oferd@x.org")]);
        rescue_authors_by_email(&mut g);
        assert_eq!(g.all(Label::Author).count(), 0);
    }

    #[test]
    fn names_over_emails_are_rescued_by_initial_and_from_the_end_of_an_address() {
        let mut f = fields(&[
            (Label::Title, "A title"),
            (Label::Author, "Tristan Fletcher"),
            (Label::Email, "t.fletcher@cs.ucl.ac.uk"),
            (Label::Other, "John Shawe-Taylor"),
            (Label::Email, "jst@cs.ucl.ac.uk"),
            (Label::Affiliation, "Pohang University"),
            (Label::Address, "Korea\nSeungjin Choi"),
            (Label::Email, "seungjin@postech.ac.kr"),
            (
                Label::Affiliation,
                "Department of Physics\nStanford University",
            ),
            (Label::Email, "su@stanford.edu"),
            (Label::Other, "Hebrew University"),
            (Label::Email, "hu@cs.huji.ac.il"),
        ]);
        f.largest = vec![0; f.spans.len()];
        rescue_authors_by_email(&mut f);
        let authors: Vec<&str> = f.all(Label::Author).collect();
        assert_eq!(
            authors,
            vec!["Tristan Fletcher", "John Shawe-Taylor", "Seungjin Choi"]
        );
        assert_eq!(f.all(Label::Address).collect::<Vec<_>>(), vec!["Korea"]);
        assert_eq!(f.spans.len(), f.largest.len());
        // Without a name-over-e-mail pair labelled by the model, an initial is not enough.
        let mut g = fields(&[
            (Label::Author, "Tristan Fletcher"),
            (Label::Other, "John Shawe-Taylor"),
            (Label::Email, "jst@cs.ucl.ac.uk"),
        ]);
        rescue_authors_by_email(&mut g);
        assert_eq!(g.all(Label::Author).count(), 1);
    }

    #[test]
    fn author_lines_in_capitals_after_a_capitals_author_are_authors() {
        let mut f = fields(&[
            (Label::Title, "A title"),
            (Label::Author, "BEVERLY N . NDIFOIN * *"),
            (
                Label::Other,
                "ULRICK SIDNEY KANMOUNYE\nDESMOND T. JUMBAM**\n* Author affiliations can be found",
            ),
            (Label::Abstract, "Background: text"),
        ]);
        f.largest = vec![0; f.spans.len()];
        rescue_authors_by_email(&mut f);
        let authors: Vec<&str> = f.all(Label::Author).collect();
        assert_eq!(
            authors,
            vec![
                "BEVERLY N . NDIFOIN * *",
                "ULRICK SIDNEY KANMOUNYE",
                "DESMOND T. JUMBAM**"
            ]
        );
        assert_eq!(f.spans.len(), f.largest.len());
        assert_eq!(
            f.first(Label::Other),
            Some("* Author affiliations can be found")
        );
        // After an author in mixed case, or for headings in capitals: nothing.
        for (author, other) in [
            ("Beverly N. Ndifoin", "ULRICK SIDNEY KANMOUNYE"),
            ("BEVERLY N. NDIFOIN", "OPEN ACCESS"),
            ("BEVERLY N. NDIFOIN", "DEPARTMENT OF PHYSICS"),
        ] {
            let mut g = fields(&[(Label::Author, author), (Label::Other, other)]);
            rescue_authors_by_email(&mut g);
            assert_eq!(g.all(Label::Author).count(), 1, "{other}");
        }
    }

    #[test]
    fn a_repeated_author_list_adds_no_author() {
        let named = |first: Option<&str>, last: &str| Person {
            forename: first.map(str::to_string),
            surname: Some(last.to_string()),
            ..Default::default()
        };
        let a = named(Some("Majid"), "Nili Ahmadabadi");
        assert!(same_person(&a, &named(None, "Ahmadabadi")));
        assert!(same_person(&a, &named(Some("M."), "Nili Ahmadabadi")));
        assert!(same_person(&a, &named(None, "NILI AHMADABADI")));
        assert!(!same_person(&a, &named(Some("Reza"), "Nili Ahmadabadi")));
        assert!(!same_person(
            &named(Some("Wei"), "Zhang"),
            &named(Some("Li"), "Zhang")
        ));
        assert!(!same_person(
            &named(Some("Ana"), "Madi"),
            &named(None, "Ahmadi")
        ));
        let full = Person {
            middlename: Some("Nili".into()),
            ..named(Some("Majid"), "Ahmadabadi")
        };
        assert!(same_person(&full, &named(Some("Nili"), "Ahmadabadi")));
        assert!(!same_person(&full, &named(Some("Reza"), "Ahmadabadi")));
        let author = |first: &str, last: &str| Author {
            person: named(Some(first), last),
            ..Default::default()
        };
        let mut authors = vec![
            author("Babak", "Araabi"),
            author("Hadi", "Moradi"),
            author("Moradi", "Araabi"),
            author("Jean", "Paul"),
        ];
        let mut seg = vec![0, 0, 1, 1];
        drop_surname_pairs(&mut authors, &mut seg);
        let kept: Vec<&str> = authors
            .iter()
            .map(|a| a.person.surname.as_deref().unwrap_or(""))
            .collect();
        assert_eq!(kept, vec!["Araabi", "Moradi", "Paul"]);
        assert_eq!(seg, vec![0, 0, 1]);
        // With an affiliation mark, the same shape is a byline entry and stays.
        let marked = |first: &str, last: &str, m: &str| Author {
            person: person(first, last, &[m]),
            ..Default::default()
        };
        let mut authors = vec![
            marked("Jun", "Li", "1"),
            marked("Lan", "Chen", "2"),
            marked("Li", "Chen", "1"),
        ];
        let mut seg = vec![0, 0, 0];
        drop_surname_pairs(&mut authors, &mut seg);
        assert_eq!(authors.len(), 3);
        assert_eq!(seg.len(), 3);
    }

    #[test]
    fn organisations_and_postal_boxes_are_not_authors() {
        assert!(plausible_name(&person("Michael", "Franz", &[])));
        assert!(!plausible_name(&person("Mozilla", "Corporation", &[])));
        assert!(!plausible_name(&person("Stanford", "University", &[])));
        assert!(!plausible_name(&person("Bell", "Labs", &[])));
        assert!(!plausible_name(&person("San Marco", "Hospital", &[])));
        assert!(!plausible_name(&person("Oncology", "Clinic", &[])));
        assert!(!plausible_name(&person("P. O.", "Box", &[])));
        assert!(!plausible_name(&person("IBM", "Watson", &[])));
        assert!(!plausible_name(&person("Anne", "Equipe", &[])));
        // A lone acronym in capitals is a lab, a name in capitals with a given name a person.
        let lone = |s: &str| Person {
            surname: Some(s.to_string()),
            ..Default::default()
        };
        assert!(!plausible_name(&lone("LAL")));
        assert!(plausible_name(&lone("Ndiaye")));
        assert!(plausible_name(&person("BEVERLY", "NDIFOIN", &[])));
        assert!(plausible_name(&person("Kim", "LEE", &[])));
    }

    /// Fields as `decode` makes them from tokens: each span's text split at white space into
    /// tokens (a `\n` starts a line), with the token texts.
    fn traced(spans: &[(Label, &str)]) -> (HeaderFields, Vec<String>) {
        let mut f = fields(spans);
        let mut texts: Vec<String> = Vec::new();
        for (_, s) in spans {
            let start = texts.len();
            for (k, line) in s.split('\n').enumerate() {
                if k > 0 {
                    f.line_starts.push(texts.len());
                }
                texts.extend(line.split_whitespace().map(String::from));
            }
            f.tokens.push(start..texts.len());
            f.largest.push(0);
        }
        (f, texts)
    }

    /// Every span's tokens are exactly its text's words.
    fn assert_ranges_follow_text(f: &HeaderFields, texts: &[String]) {
        assert_eq!(f.tokens.len(), f.spans.len());
        for ((_, s), r) in f.spans.iter().zip(&f.tokens) {
            let words: Vec<&str> = s.split_whitespace().collect();
            assert_eq!(texts[r.clone()].to_vec(), words, "span {s:?}");
        }
    }

    #[test]
    fn rescued_spans_keep_the_tokens_of_their_lines() {
        let (mut f, texts) = traced(&[
            (Label::Title, "A title"),
            (Label::Author, "Tristan Fletcher"),
            (Label::Email, "t.fletcher@cs.ucl.ac.uk"),
            (Label::Affiliation, "Pohang University"),
            (Label::Address, "Korea\nSeungjin Choi"),
            (Label::Email, "seungjin@postech.ac.kr"),
        ]);
        rescue_authors_by_email(&mut f);
        assert_eq!(
            f.all(Label::Author).collect::<Vec<_>>(),
            vec!["Tristan Fletcher", "Seungjin Choi"]
        );
        assert_ranges_follow_text(&f, &texts);
        assert_eq!(f.tokens[4], 7..8, "Korea");
        assert_eq!(f.tokens[5], 8..10, "Seungjin Choi");

        let (mut g, texts) = traced(&[
            (Label::Title, "A title"),
            (Label::Author, "BEVERLY NDIFOIN"),
            (
                Label::Other,
                "ULRICK SIDNEY KANMOUNYE\nDESMOND T. JUMBAM\n* Author affiliations can be\nfound",
            ),
        ]);
        rescue_authors_by_email(&mut g);
        assert_eq!(g.all(Label::Author).count(), 3);
        assert_ranges_follow_text(&g, &texts);
        assert_eq!(g.tokens[2..], [4..7, 7..10, 10..16]);
        // Split lines of an untraced span have no tokens.
        assert_eq!(fields(&[(Label::Other, "a\nb")]).line_tokens(0, 1..2), 0..0);
    }

    #[test]
    fn the_record_is_traced_to_its_tokens() {
        let (f, texts) = traced(&[
            (Label::Title, "Deep\nthings"),
            (Label::Author, "Jane Doe 1 , Bo\nNg 2"),
            (Label::Affiliation, "1 Example University"),
            (Label::Email, "x@y.org"),
            (Label::Address, "Paris, France"),
            (Label::Affiliation, "2 Other Lab"),
        ]);
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        let aff = |m: &str| Affiliation {
            raw: m.into(),
            markers: vec![m.into()],
            ..Default::default()
        };
        let sub = SubResults {
            persons: vec![vec![
                person("Jane", "Doe", &["1"]),
                person("Bo", "Ng", &["2"]),
            ]],
            // The name model's tokens: Jane Doe 1 , Bo Ng 2.
            person_ranges: vec![vec![0..2, 4..6]],
            affiliations: vec![aff("1"), aff("2a"), aff("2b")],
            affiliation_segment: vec![0, 1, 1],
            ..Default::default()
        };
        let (h, trace) = assemble_traced(&f, sub, "", &texts);
        assert_eq!(h.authors.len(), 2);
        assert_eq!(trace.title, vec![0..2]);
        // `Jane Doe` and `Bo Ng` across the line break; the markers and comma left out.
        assert_eq!(trace.authors, vec![vec![2..4], vec![6..8]]);
        // The affiliation and its address, not the e-mail between them; a segment read as
        // two affiliations is not traced.
        assert_eq!(
            trace.affiliations,
            vec![vec![9..12, 13..15], vec![], vec![]]
        );
        // Without token texts nothing but the title and affiliations is traced.
        let sub = SubResults {
            persons: vec![vec![person("Jane", "Doe", &[])]],
            person_ranges: vec![vec![0..2]],
            ..Default::default()
        };
        let (_, trace) = assemble_traced(&f, sub, "", &[]);
        assert_eq!(trace.authors, vec![Vec::<Range<usize>>::new()]);
    }

    #[test]
    fn authors_sharing_a_word_are_traced_to_their_own_tokens() {
        // Header tokens: `A`, `title`, `Ana Lima Ana Costa , Dr Bo`, and `Ng1`, a name and
        // its mark printed without a space.
        let (f, texts) = traced(&[
            (Label::Title, "A title"),
            (Label::Author, "Ana Lima Ana Costa , Dr Bo Ng1"),
        ]);
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        // The name model's tokens: Ana Lima Ana Costa , Dr Bo Ng1.
        let sub = SubResults {
            persons: vec![vec![
                person("Ana", "Lima", &[]),
                person("Ana", "Costa", &[]),
                person("Bo", "Ng", &["1"]),
            ]],
            person_ranges: vec![vec![0..2, 2..4, 5..8]],
            ..Default::default()
        };
        let (_, trace) = assemble_traced(&f, sub, "", &texts);
        // Each `Ana` to its own name; the title `Dr` in its person's box; a token that
        // also holds the mark is the name's last.
        assert_eq!(trace.authors, vec![vec![2..4], vec![4..6], vec![7..10]]);
    }

    #[test]
    fn segments_for_the_sub_models() {
        let f = fields(&[
            (Label::Title, "A title"),
            (Label::Author, "Jane Doe 1 , Bo Ng 2"),
            (Label::Affiliation, "1 Example University"),
            (Label::Address, "Paris, France"),
            (Label::Affiliation, "2 Other Lab"),
            (Label::Date, "March 2020"),
            (Label::Date, "n.d."),
        ]);
        assert_eq!(author_segments(&f), vec!["Jane Doe 1 , Bo Ng 2"]);
        // Icon glyphs (private use) after a name are left out, in the text and in the lines
        // alike; `|` separates as a comma does.
        let iconed = fields(&[(
            Label::Author,
            "Ana Neves 1 , \u{e900} Rui Sá 2 |\nLia Cruz 3\u{f0e0}",
        )]);
        assert_eq!(
            author_segments(&iconed),
            vec!["Ana Neves 1 ,  Rui Sá 2 , Lia Cruz 3"]
        );
        assert_eq!(
            author_segment_lines(&iconed),
            vec![vec!["Ana Neves 1 ,  Rui Sá 2 ,", "Lia Cruz 3"]]
        );
        assert_eq!(
            affiliation_segments(&f),
            vec!["1 Example University\nParis, France", "2 Other Lab"]
        );
        assert_eq!(date_strings(&f), vec!["March 2020"]);
    }

    #[test]
    fn assembly_attaches_affiliations_by_marker_and_emails_by_name() {
        let f = fields(&[
            (Label::Title, "Deep learn-\ning for\nthings"),
            (Label::Author, "x"),
            (Label::Email, "{jdoe, ng}@example.org"),
            (Label::Abstract, "Abstract\nWe study things."),
            (Label::Keyword, "Keywords: soil; feedback."),
            (Label::Pubnum, "DOI: 10.1234/abc.5."),
        ]);
        let sub = SubResults {
            persons: vec![vec![
                person("Jane", "Doe", &["1"]),
                person("Bo", "Ng", &["2,"]),
                person("X", "Y", &[]),
                Person {
                    forename: Some("IBM".into()),
                    middlename: Some("T J".into()),
                    surname: Some("Watson".into()),
                    ..Default::default()
                },
                Person {
                    forename: Some("P".into()),
                    middlename: Some("O".into()),
                    surname: Some("Box".into()),
                    ..Default::default()
                },
                Person {
                    forename: Some("Repository".into()),
                    middlename: Some("•".into()),
                    surname: Some("Archive".into()),
                    ..Default::default()
                },
            ]],
            affiliations: vec![
                Affiliation {
                    raw: "Example University".into(),
                    markers: vec!["1".into()],
                    institutions: vec!["Example University".into()],
                    ..Default::default()
                },
                Affiliation {
                    raw: "Other Lab".into(),
                    markers: vec!["2".into()],
                    laboratories: vec!["Other Lab".into()],
                    ..Default::default()
                },
            ],
            ..Default::default()
        };
        let h = assemble(&f, sub, "");
        assert_eq!(h.title.as_deref(), Some("Deep learning for things"));
        assert_eq!(
            h.authors.len(),
            2,
            "one-letter surname, bullets, acronyms and postal boxes dropped"
        );
        assert_eq!(h.authors[0].affiliations, vec![0]);
        assert_eq!(h.authors[1].affiliations, vec![1]);
        assert_eq!(h.authors[0].email.as_deref(), Some("jdoe@example.org"));
        assert_eq!(h.authors[1].email.as_deref(), Some("ng@example.org"));
        assert_eq!(h.abstract_text.as_deref(), Some("We study things."));
        assert_eq!(h.keywords, vec!["soil", "feedback"]);
        assert_eq!(h.doi.as_deref(), Some("10.1234/abc.5"));
    }

    #[test]
    fn one_affiliation_without_markers_goes_to_every_author() {
        let f = fields(&[(Label::Author, "a")]);
        let sub = SubResults {
            persons: vec![vec![person("A", "Aa", &[]), person("B", "Bb", &[])]],
            affiliations: vec![Affiliation {
                raw: "U".into(),
                institutions: vec!["U".into()],
                ..Default::default()
            }],
            ..Default::default()
        };
        let h = assemble(&f, sub, "see 10.5555/zz1 and nothing else");
        assert!(h.authors.iter().all(|a| a.affiliations == vec![0]));
        assert_eq!(
            h.doi.as_deref(),
            Some("10.5555/zz1"),
            "the only DOI of the text"
        );
    }

    #[test]
    fn identifiers_and_keywords() {
        assert_eq!(
            find_arxiv("arXiv:2101.01234v2 [cs.LG]").as_deref(),
            Some("2101.01234v2")
        );
        assert_eq!(find_arxiv("arxiv"), None);
        assert_eq!(split_keywords("Index Terms—a, b, c"), vec!["a", "b", "c"]);
        assert_eq!(split_keywords("x · y"), vec!["x", "y"]);
        // A dot operator (the Symbol font's bullet) separates keywords as a middle dot does.
        assert_eq!(
            split_keywords("⋅ Blending oil ⋅ Flaxseed oil"),
            vec!["Blending oil", "Flaxseed oil"]
        );
        assert_eq!(
            split_emails("E-mail: a@b.org, c@d.org."),
            vec!["a@b.org", "c@d.org"]
        );
        assert_eq!(
            split_emails("{jdoe, ng}@example.org"),
            vec!["jdoe@example.org", "ng@example.org"]
        );
        assert_eq!(
            split_emails("(georgiana.dinu|marco.baroni)@unitn.it"),
            vec!["georgiana.dinu@unitn.it", "marco.baroni@unitn.it"]
        );
        assert_eq!(
            split_emails("georgiana.dinu|marco.baroni)@unitn.it"),
            vec!["georgiana.dinu@unitn.it", "marco.baroni@unitn.it"]
        );
        assert_eq!(
            split_emails("[a.b | c.d]@x.org."),
            vec!["a.b@x.org", "c.d@x.org"]
        );
        assert_eq!(clean_abstract("ABSTRACT: Text here."), "Text here.");
    }

    #[test]
    fn bilingual_abstracts_end_at_the_first_languages_keywords() {
        let resumo = format!(
            "Resumo\n{}",
            "Este estudo compara dois perfis de publicação.\n".repeat(4)
        );
        // Keywords the model left unlabelled, then the second language's abstract.
        let f = fields(&[
            (Label::Abstract, resumo.as_str()),
            (Label::Other, "Palavras-chave: Acesso Aberto. Brasil."),
            (Label::Other, "Abstract"),
            (
                Label::Abstract,
                "This study compares two publication profiles.",
            ),
        ]);
        assert_eq!(abstract_spans(&f), vec![resumo.as_str()]);
        // Keywords printed inside the abstract's own block: cut there, and the abstract closed.
        let inside = format!("{resumo}Palavras-chave: Acesso Aberto. Brasil.");
        let g = fields(&[
            (Label::Abstract, inside.as_str()),
            (Label::Other, "Abstract"),
            (
                Label::Abstract,
                "This study compares two publication profiles.",
            ),
        ]);
        assert_eq!(abstract_spans(&g), vec![inside.as_str()]);
        let text = clean_abstract(&abstract_spans(&g).join("\n"));
        assert!(text.ends_with("publicação."), "{text}");
        assert!(!text.contains("Palavras"), "{text}");
        assert!(!text.contains("This study"), "{text}");
    }

    #[test]
    fn the_bodys_opening_text_after_the_abstract_opens_the_body() {
        let mut f = fields(&[
            (Label::Abstract, "We measured the oil of the plant."),
            (Label::Abstract, "Plants have long been used as remedies."),
        ]);
        f.body_text = vec![1];
        assert_eq!(
            abstract_spans(&f),
            vec!["We measured the oil of the plant."]
        );
        let front = left_out_abstract(&f);
        assert_eq!(front.len(), 1);
        assert_eq!(front[0].text, "Plants have long been used as remedies.");
    }

    #[test]
    fn a_lay_summary_after_the_abstract_is_not_part_of_it() {
        let f = fields(&[
            (
                Label::Abstract,
                "Background We ask a question. Conclusions We answer it.",
            ),
            (Label::Other, "Author summary"),
            (
                Label::Abstract,
                "What if a virus spread here? We estimate the risk.",
            ),
        ]);
        assert_eq!(
            abstract_spans(&f),
            vec!["Background We ask a question. Conclusions We answer it."]
        );
        assert!(summary_heading("Plain Language Summary"));
        assert!(summary_heading("AUTHOR SUMMARY"));
        assert!(!summary_heading("Summary of findings"));
    }

    #[test]
    fn licence_boxes_and_cite_boxes_are_not_the_abstract() {
        let f = fields(&[
            (Label::Abstract, "Este é um artigo publicado em acesso aberto sob a licença Creative Commons Attribution."),
            (Label::Abstract, "To cite: Lee A, Ng B. A trial protocol. Journal 2020;10:e1."),
            (Label::Other, "ABSTRACT"),
            (Label::Abstract, "Introduction We test a drug."),
        ]);
        assert_eq!(abstract_spans(&f), vec!["Introduction We test a drug."]);
        // Nor are they written as the body's first paragraphs.
        assert!(
            left_out_abstract(&f).is_empty(),
            "{:?}",
            left_out_abstract(&f)
        );
        // A long abstract that mentions a licence in passing stays.
        let long = format!(
            "{} under a CC BY licence.",
            "We reuse open data sets. ".repeat(30)
        );
        let g = fields(&[(Label::Abstract, long.as_str())]);
        assert_eq!(abstract_spans(&g).len(), 1);
    }

    #[test]
    fn the_abstract_ends_at_keywords_and_at_a_second_summary() {
        let f = fields(&[
            (Label::Title, "A title"),
            (Label::Abstract, "We study things."),
            (Label::Abstract, "More of it."),
            (Label::Other, "Keywords"),
            (Label::Keyword, "things, it"),
            (Label::Abstract, "Climate change, often referred to as ..."),
        ]);
        assert_eq!(abstract_spans(&f), vec!["We study things.", "More of it."]);
        // Keywords before the abstract close nothing.
        let g = fields(&[
            (Label::Keyword, "things"),
            (Label::Abstract, "We study things."),
            (Label::Abstract, "More."),
        ]);
        assert_eq!(abstract_spans(&g).len(), 2);
        // Words the model took for an address in the middle of a sentence stay in.
        let h = fields(&[
            (Label::Abstract, "Studies came from Uganda,"),
            (Label::Address, "Ghana, Kenya,"),
            (Label::Abstract, "and Malawi. We found."),
            (Label::Address, "Accra, Ghana"),
            (Label::Abstract, "More."),
        ]);
        assert_eq!(
            abstract_spans(&h),
            vec![
                "Studies came from Uganda,",
                "Ghana, Kenya,",
                "and Malawi. We found.",
                "More."
            ]
        );
        let long = "We study things. ".repeat(15);
        let text = format!("{long}Plain Language Summary Climate change is harming people.");
        assert_eq!(clean_abstract(&text), long.trim());
        let text = format!("{long}Impact statement Our study shows.");
        assert_eq!(clean_abstract(&text), long.trim());
        // Too early, or inside a sentence: kept.
        let text = "Abstract: Impact statement of the policy. We study.";
        assert_eq!(
            clean_abstract(text),
            "Impact statement of the policy. We study."
        );
        let text = format!("{long}and the Lay summary was written.");
        assert_eq!(clean_abstract(&text), text.trim());
    }

    #[test]
    fn characters_whose_lower_case_changes_length_do_not_shift_offsets() {
        // `İ` lower-cases to `i̇` (2 → 3 bytes): offsets from a `to_lowercase` copy were off.
        assert_eq!(
            find_arxiv("İİ arXiv:2101.00001").as_deref(),
            Some("2101.00001")
        );
        assert_eq!(
            find_arxiv("ẞẞ Ⱥ arXiv:2101.00001").as_deref(),
            Some("2101.00001")
        );
        assert_eq!(clean_abstract("İİ Abstract: text"), "İİ Abstract: text");
        assert_eq!(clean_abstract("ABSTRACT: İİ text here."), "İİ text here.");
        assert_eq!(split_keywords("Keywords: İa; b"), vec!["İa", "b"]);
        // The Kelvin sign lower-cases to an ASCII `k` (3 → 1 bytes).
        assert_eq!(
            split_keywords("\u{212A}EYWORDS: a; b"),
            vec!["\u{212A}EYWORDS: a", "b"]
        );
    }
}
