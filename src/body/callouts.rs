//! Callouts resolved to what they point at: numbered and author-year citations to
//! bibliography entries (`b3`), figure and table callouts to figures by label (`fig_0`,
//! `tab_1`), equation callouts to formulas (`formula_2`) and footnote marks to notes.
//!
//! A callout holding several references (`[2-5]`, `[1, 3, 7]`, `(Smith 2019; Jones 2020)`) is
//! split into one callout per reference, each with its own sub-range of the text; the numbers
//! a range leaves unprinted (`3` and `4` of `[2-5]`) get empty ranges after the dash. A
//! callout that cannot be resolved is kept without target, except the `foot` candidates the
//! assembler marks on superscripts, which are dropped (their text stays) unless they match a
//! note or a reference.

use std::collections::HashMap;
use std::ops::Range;

use unicode_normalization::UnicodeNormalization;

use crate::document::{Back, Body, BodyBlock, Callout, CalloutKind, Div, Reference, RichText};

/// Resolve every callout of the body (sections, captions, notes) and back matter against the
/// bibliography `refs` (target `b{index}`), the body's figures, tables, formulas and notes.
pub fn resolve_callouts(body: &mut Body, back: &mut Back, refs: &[Reference]) {
    let index = Index::new(body, back, refs);
    let mut f = |rt: &mut RichText| resolve_text(rt, &index);
    visit_divs(&mut body.divs, &mut f);
    for fig in &mut body.figures {
        fig.desc
            .iter_mut()
            .chain(fig.note.iter_mut())
            .for_each(&mut f);
    }
    for n in &mut body.notes {
        n.paragraphs.iter_mut().for_each(&mut f);
    }
    for divs in [
        &mut back.acknowledgement,
        &mut back.funding,
        &mut back.availability,
        &mut back.annex,
    ] {
        visit_divs(divs, &mut f);
    }
}

fn visit_divs(divs: &mut [Div], f: &mut impl FnMut(&mut RichText)) {
    for d in divs {
        if let Some(h) = &mut d.head {
            f(&mut h.text);
        }
        for b in &mut d.blocks {
            match b {
                BodyBlock::Paragraph(rt) => f(rt),
                BodyBlock::List(items) => items.iter_mut().for_each(&mut *f),
                BodyBlock::Formula(fm) => f(&mut fm.text),
            }
        }
    }
}

/// What callouts can point at.
struct Index {
    /// Normalised reference marker → reference index.
    markers: HashMap<String, usize>,
    /// Some marker is a number: numbered callouts go through `markers`, not the ordinal.
    numeric_markers: bool,
    count: usize,
    /// Per reference: first-author surname (normalised), year, raw text (lower-case).
    authors: Vec<(Option<String>, Option<i32>, String)>,
    /// (normalised label, id, is a table).
    figures: Vec<(String, String, bool)>,
    /// (normalised label, id).
    formulas: Vec<(String, String)>,
    /// (mark, id, page of its first token).
    notes: Vec<(String, String, Option<u32>)>,
}

impl Index {
    fn new(body: &Body, back: &Back, refs: &[Reference]) -> Index {
        let mut markers = HashMap::new();
        for (i, r) in refs.iter().enumerate() {
            if let Some(m) = &r.marker {
                markers.entry(norm_marker(m)).or_insert(i);
            }
        }
        let numeric_markers = markers
            .keys()
            .any(|k| !k.is_empty() && k.chars().all(|c| c.is_ascii_digit()));
        let authors = refs
            .iter()
            .map(|r| {
                let c = &r.citation;
                let surname = c
                    .authors
                    .first()
                    .and_then(|p| p.surname.clone())
                    .or_else(|| c.author_text.as_deref().and_then(first_word))
                    .or_else(|| first_word(&c.raw))
                    .map(|s| fold(&s));
                let year = c
                    .date
                    .as_ref()
                    .and_then(|d| d.year)
                    .or_else(|| c.date_text.as_deref().and_then(first_year))
                    .or_else(|| first_year(&c.raw));
                (surname, year, c.raw.to_lowercase())
            })
            .collect();
        let figures = body
            .figures
            .iter()
            .filter_map(|f| {
                let l = label_items(f.label.as_deref()?).into_iter().next()?.0;
                Some((l, f.id.clone(), f.is_table))
            })
            .collect();
        let mut formulas = Vec::new();
        for d in body.divs.iter().chain(&back.annex) {
            for b in &d.blocks {
                if let BodyBlock::Formula(f) = b {
                    if let Some(l) = f
                        .label
                        .as_deref()
                        .and_then(|l| label_items(l).into_iter().next())
                    {
                        formulas.push((l.0, f.id.clone()));
                    }
                }
            }
        }
        let notes = body
            .notes
            .iter()
            .filter_map(|n| {
                let page = n
                    .paragraphs
                    .first()
                    .and_then(|p| p.tokens.first())
                    .map(|t| t.page);
                Some((n.n.clone()?, n.id.clone(), page))
            })
            .collect();
        Index {
            markers,
            numeric_markers,
            count: refs.len(),
            authors,
            figures,
            formulas,
            notes,
        }
    }

    fn bibr_number(&self, n: u32) -> Option<String> {
        let i = if self.numeric_markers {
            *self.markers.get(&n.to_string())?
        } else {
            (n as usize).checked_sub(1).filter(|&i| i < self.count)?
        };
        Some(format!("b{i}"))
    }

    fn bibr_marker(&self, text: &str) -> Option<String> {
        let k = norm_marker(text);
        self.markers.get(&k).map(|i| format!("b{i}"))
    }

    /// The reference whose first author's surname appears in `names` (earliest first) with
    /// `year`; a letter suffix picks among several (`2019b`).
    fn author_year(&self, names: &str, year: i32, suffix: Option<char>) -> Option<String> {
        let names = fold(names);
        let mut cands: Vec<(usize, usize)> = self
            .authors
            .iter()
            .enumerate()
            .filter(|(_, (_, y, _))| *y == Some(year))
            .filter_map(|(i, (s, _, _))| Some((find_word(&names, s.as_deref()?)?, i)))
            .collect();
        cands.sort();
        let best = cands.first()?.0;
        let same: Vec<usize> = cands
            .iter()
            .filter(|(p, _)| *p == best)
            .map(|(_, i)| *i)
            .collect();
        let pick = match suffix {
            Some(l) if same.len() > 1 => {
                let tag = format!("{year}{l}");
                same.iter()
                    .copied()
                    .find(|&i| self.authors[i].2.contains(&tag))
                    .or_else(|| same.get((l as usize).checked_sub('a' as usize)?).copied())
            }
            _ => same.first().copied(),
        }?;
        Some(format!("b{pick}"))
    }

    fn figure(&self, label: &str, table: bool) -> Option<String> {
        self.figures
            .iter()
            .find(|(l, _, t)| l == label && *t == table)
            .map(|(_, id, _)| id.clone())
    }

    fn formula(&self, label: &str) -> Option<String> {
        self.formulas
            .iter()
            .find(|(l, _)| l == label)
            .map(|(_, id)| id.clone())
    }

    /// The note marked `mark`, preferring one on `page`.
    fn note(&self, mark: &str, page: Option<u32>) -> Option<String> {
        let mut same = self.notes.iter().filter(|(n, _, _)| n == mark);
        let first = same.clone().next()?;
        let on_page = same.find(|(_, _, p)| page.is_some() && *p == page);
        Some(on_page.unwrap_or(first).1.clone())
    }
}

fn resolve_text(rt: &mut RichText, idx: &Index) {
    let refs = std::mem::take(&mut rt.refs);
    let mut out = Vec::with_capacity(refs.len());
    for c in refs {
        let Some(s) = rt.text.get(c.range.clone()) else {
            out.push(c);
            continue;
        };
        let page = rt
            .tokens
            .iter()
            .find(|t| t.range.end > c.range.start)
            .map(|t| t.page);
        let before = tail(&rt.text[..c.range.start], BEFORE_BYTES);
        out.extend(resolve_one(c.clone(), s, before, page, idx));
    }
    rt.refs = dash_joined(&rt.text, out, idx);
}

/// How much text before a callout may name its authors.
const BEFORE_BYTES: usize = 40;

/// The last `n` bytes of `s` (or fewer, at a character boundary).
fn tail(s: &str, n: usize) -> &str {
    let mut at = s.len().saturating_sub(n);
    while !s.is_char_boundary(at) {
        at += 1;
    }
    &s[at..]
}

/// Two numbered callouts joined only by a dash (`[3]–[6]`) cite the numbers between them too:
/// they are added with empty ranges before the second.
fn dash_joined(text: &str, refs: Vec<Callout>, idx: &Index) -> Vec<Callout> {
    let number = |c: &Callout, last: bool| {
        let items = numbers(text.get(c.range.clone())?)?;
        let item = if last { items.last() } else { items.first() };
        item.map(|i| i.0)
    };
    let mut out: Vec<Callout> = Vec::with_capacity(refs.len());
    for c in refs {
        if let Some(prev) = out.last() {
            let gap = text.get(prev.range.end..c.range.start).unwrap_or("").trim();
            let dash = gap.chars().count() == 1 && gap.starts_with(DASHES);
            let both = prev.kind == CalloutKind::Bibr && c.kind == CalloutKind::Bibr;
            if let (true, true, Some(a), Some(b)) =
                (dash, both, number(prev, true), number(&c, false))
            {
                if a < b && b - a <= 100 {
                    for m in a + 1..b {
                        out.push(Callout {
                            kind: CalloutKind::Bibr,
                            range: c.range.start..c.range.start,
                            target: idx.bibr_number(m),
                        });
                    }
                }
            }
        }
        out.push(c);
    }
    out
}

/// A numbered or author-year citation callout; `before` is the text just before it (the
/// authors of `Smith et al. (2019)` when only `(2019)` is the callout).
fn resolve_bibr(c: Callout, s: &str, before: &str, page: Option<u32>, idx: &Index) -> Vec<Callout> {
    if let Some(t) = idx.bibr_marker(s) {
        return vec![Callout {
            target: Some(t),
            ..c
        }];
    }
    if let Some(items) = numbers(s) {
        let resolves = items.iter().any(|(n, _)| idx.bibr_number(*n).is_some());
        let all_years = items.iter().all(|(n, _)| (1600..=2100).contains(n));
        if resolves || !all_years {
            let bare = !s.contains(['[', '(', ']', ')']);
            if bare && items.len() == 1 && !resolves {
                // A bare number no reference takes may be a footnote mark.
                if let Some(t) = idx.note(s.trim(), page) {
                    return vec![Callout {
                        kind: CalloutKind::Foot,
                        target: Some(t),
                        ..c
                    }];
                }
            }
            let parts = items
                .into_iter()
                .map(|(n, r)| (r, idx.bibr_number(n)))
                .collect();
            return split(&c, parts);
        }
    }
    let years = author_years(s);
    if !years.is_empty() {
        let parts = years
            .into_iter()
            .map(|a| {
                let t = if a.names.contains(char::is_alphabetic) {
                    idx.author_year(a.names, a.year, a.suffix)
                } else {
                    idx.author_year(&format!("{before} {}", a.names), a.year, a.suffix)
                };
                (a.range, t)
            })
            .collect();
        return split(&c, parts);
    }
    // `Smith et al. [12]`: the numbers in brackets.
    let parts = bracketed_numbers(s)
        .into_iter()
        .map(|(n, r)| (r, idx.bibr_number(n)))
        .collect();
    split(&c, parts)
}

fn resolve_one(c: Callout, s: &str, before: &str, page: Option<u32>, idx: &Index) -> Vec<Callout> {
    match c.kind {
        CalloutKind::Bibr => resolve_bibr(c, s, before, page, idx),
        CalloutKind::Foot => {
            if let Some(t) = idx.note(s.trim(), page) {
                return vec![Callout {
                    target: Some(t),
                    ..c
                }];
            }
            // A superscript citation (`shown before^{12,13}`) when every number is a reference.
            match numbers(s) {
                Some(items) if items.iter().all(|(n, _)| idx.bibr_number(*n).is_some()) => {
                    let parts = items
                        .into_iter()
                        .map(|(n, r)| (r, idx.bibr_number(n)))
                        .collect();
                    split(
                        &Callout {
                            kind: CalloutKind::Bibr,
                            ..c
                        },
                        parts,
                    )
                }
                _ => Vec::new(),
            }
        }
        CalloutKind::Figure | CalloutKind::Table | CalloutKind::Formula => {
            // Supplementary and extended-data items are not among the document's figures (annex
            // figures are: they join the body's).
            let lower = s.to_lowercase();
            if ["suppl", "extended"].iter().any(|w| lower.contains(w)) {
                return vec![c];
            }
            let parts = label_items(s)
                .into_iter()
                .map(|(l, r)| {
                    let t = match c.kind {
                        CalloutKind::Formula => idx.formula(&l),
                        k => idx.figure(&l, k == CalloutKind::Table),
                    };
                    (r, t)
                })
                .collect();
            split(&c, parts)
        }
    }
}

/// One callout per part (ranges relative to the callout's text); the first takes the text
/// before it, the last the text after it. No part: the callout is kept, unresolved.
fn split(c: &Callout, parts: Vec<(Range<usize>, Option<String>)>) -> Vec<Callout> {
    let n = parts.len();
    if n <= 1 {
        let target = parts.into_iter().next().and_then(|p| p.1);
        return vec![Callout {
            target,
            ..c.clone()
        }];
    }
    let base = c.range.start;
    parts
        .into_iter()
        .enumerate()
        .map(|(k, (r, target))| {
            let start = if k == 0 {
                c.range.start
            } else {
                base + r.start
            };
            let end = if k + 1 == n {
                c.range.end
            } else {
                base + r.end
            };
            Callout {
                kind: c.kind,
                range: start..end.max(start),
                target,
            }
        })
        .collect()
}

const DASHES: &[char] = &['-', '–', '—', '−', '‐', '‑'];

/// The numbers of a numbered callout (`[1]`, `[2-5]`, `(1, 3, 7)`, `1–3`, `[12,14–16]`), with
/// their byte ranges; a range is expanded (at most 100 numbers), the unprinted numbers getting
/// an empty range after the dash. `None` when the text holds anything but numbers, brackets,
/// separators, dashes and `and`.
pub fn numbers(s: &str) -> Option<Vec<(u32, Range<usize>)>> {
    // Punctuation the callout took from the sentence (`[3].`, `1,2,`).
    let s = s.trim_end_matches(['.', ',', ';', ':']);
    let mut out: Vec<(u32, Range<usize>)> = Vec::new();
    let mut dash_before = false;
    let mut chars = s.char_indices().peekable();
    while let Some((i, ch)) = chars.next() {
        if ch.is_ascii_digit() {
            let mut end = i + 1;
            while let Some(&(j, d)) = chars.peek() {
                if !d.is_ascii_digit() {
                    break;
                }
                end = j + 1;
                chars.next();
            }
            let n: u32 = s[i..end].parse().ok().filter(|_| end - i <= 4)?;
            match out.last() {
                Some(&(a, _)) if dash_before && a < n && n - a <= 100 => {
                    for m in a + 1..n {
                        out.push((m, i..i));
                    }
                }
                _ => {}
            }
            out.push((n, i..end));
            dash_before = false;
        } else if DASHES.contains(&ch) {
            dash_before = !out.is_empty();
        } else if ch.is_alphabetic() {
            let mut word = String::from(ch);
            while let Some(&(_, d)) = chars.peek() {
                if !d.is_alphabetic() {
                    break;
                }
                word.push(d);
                chars.next();
            }
            if word != "and" {
                return None;
            }
            dash_before = false;
        } else if ch.is_whitespace() {
            continue;
        } else if ",;&".contains(ch) {
            dash_before = false;
        } else if "[](){}⁽⁾".contains(ch) {
            continue;
        } else {
            return None;
        }
    }
    if out.is_empty() {
        None
    } else {
        Some(out)
    }
}

/// One author-year citation of a callout.
#[derive(Debug, Clone, PartialEq)]
pub struct AuthorYear<'a> {
    /// The text naming the authors (`Smith and Jones`), or the previous one's for a second
    /// year of the same authors (`Smith 2019, 2020`).
    pub names: &'a str,
    pub year: i32,
    pub suffix: Option<char>,
    /// Byte range in the callout text, from the names to the year (and suffix).
    pub range: Range<usize>,
}

/// The author-year citations of a callout: each year (1600–2100, optionally with a letter
/// suffix, `2019a,b` giving two) with the names printed before it since the previous year.
pub fn author_years(s: &str) -> Vec<AuthorYear<'_>> {
    let b = s.as_bytes();
    let mut out: Vec<AuthorYear<'_>> = Vec::new();
    let mut prev_end = 0;
    let mut i = 0;
    while i + 4 <= b.len() {
        let four = &b[i..i + 4];
        let before_ok = i == 0 || !b[i - 1].is_ascii_alphanumeric();
        let after = b.get(i + 4).copied();
        if !(four.iter().all(u8::is_ascii_digit) && before_ok)
            || after.is_some_and(|c| c.is_ascii_digit())
        {
            i += 1;
            continue;
        }
        let year: i32 = s[i..i + 4].parse().unwrap_or(0);
        let suffix = after
            .filter(u8::is_ascii_lowercase)
            .filter(|_| !b.get(i + 5).is_some_and(u8::is_ascii_alphabetic))
            .map(char::from);
        let end = i + 4 + usize::from(suffix.is_some());
        if !(1600..=2100).contains(&year) {
            i = end;
            continue;
        }
        let gap = &s[prev_end..i];
        let (names, start) = match gap.find(char::is_alphabetic) {
            Some(p) => (gap, prev_end + p),
            None => match out.last() {
                Some(last) => (last.names, i),
                None => (gap, i),
            },
        };
        out.push(AuthorYear {
            names,
            year,
            suffix,
            range: start..end,
        });
        let mut end = end;
        // `2019a,b`: more suffixes of the same year.
        while suffix.is_some() {
            let rest = &s[end..];
            let comma = rest.len() - rest.trim_start().len();
            if !rest[comma..].starts_with(',') {
                break;
            }
            let after = &rest[comma + 1..];
            let at = end + comma + 1 + (after.len() - after.trim_start().len());
            let letter = b.get(at).copied().filter(u8::is_ascii_lowercase);
            let alone = !b.get(at + 1).is_some_and(u8::is_ascii_alphanumeric);
            match letter {
                Some(l) if alone => {
                    out.push(AuthorYear {
                        names,
                        year,
                        suffix: Some(char::from(l)),
                        range: at..at + 1,
                    });
                    end = at + 1;
                }
                _ => break,
            }
        }
        prev_end = end;
        i = end;
    }
    out
}

/// The labels a figure, table or formula callout (or a figure's label) names, normalised
/// ([`norm_label`]), with their byte ranges: alphanumeric chunks holding a digit (`2b`, `S1`,
/// `3.1`) or upper-case roman numerals (`II`). `Figs. 2-4` expands like [`numbers`].
pub fn label_items(s: &str) -> Vec<(String, Range<usize>)> {
    let b = s.as_bytes();
    let mut out: Vec<(String, Range<usize>)> = Vec::new();
    let mut dash_before = false;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_alphanumeric() {
            let start = i;
            while i < b.len()
                && (b[i].is_ascii_alphanumeric()
                    || b[i] == b'.'
                        && i > start
                        && b[i - 1].is_ascii_digit()
                        && b.get(i + 1).is_some_and(u8::is_ascii_digit))
            {
                i += 1;
            }
            let chunk = &s[start..i];
            let digit = chunk.bytes().any(|c| c.is_ascii_digit());
            let roman = chunk.bytes().all(|c| b"IVX".contains(&c));
            if digit || roman {
                let label = norm_label(chunk);
                if let (true, Some((prev, _))) = (dash_before, out.last()) {
                    if let (Ok(a), Ok(z)) = (prev.parse::<u32>(), label.parse::<u32>()) {
                        if a < z && z - a <= 100 {
                            for m in a + 1..z {
                                out.push((m.to_string(), start..start));
                            }
                        }
                    }
                }
                out.push((label, start..i));
            }
            dash_before = false;
        } else {
            let ch = s[i..].chars().next().unwrap_or(' ');
            if DASHES.contains(&ch) {
                dash_before = !out.is_empty();
            } else if !ch.is_whitespace() {
                dash_before = false;
            }
            i += ch.len_utf8();
        }
    }
    out
}

/// A label as callouts and captions are compared: lower-case, a roman numeral as its number
/// (`II` → `2`), a panel letter after the number dropped (`2b` → `2`).
pub fn norm_label(s: &str) -> String {
    let l = s.to_lowercase();
    if !l.is_empty() && l.chars().all(|c| "ivxl".contains(c)) {
        if let Some(n) = roman(&l) {
            return n.to_string();
        }
    }
    match l.find(|c: char| c.is_ascii_digit()) {
        Some(p) => {
            let end = l[p..]
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .map_or(l.len(), |e| p + e);
            l[..end].to_string()
        }
        None => l,
    }
}

fn roman(s: &str) -> Option<u32> {
    let val = |c| match c {
        'i' => Some(1),
        'v' => Some(5),
        'x' => Some(10),
        'l' => Some(50),
        _ => None,
    };
    let vals: Vec<u32> = s.chars().map(val).collect::<Option<_>>()?;
    let mut total = 0;
    for (k, v) in vals.iter().enumerate() {
        if vals.get(k + 1).is_some_and(|n| n > v) {
            total -= *v as i64;
        } else {
            total += *v as i64;
        }
    }
    u32::try_from(total).ok()
}

/// A reference marker as callouts are compared: brackets, dots and spaces trimmed, lower-case.
fn norm_marker(s: &str) -> String {
    s.trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase()
}

/// Lower-case, accents removed (`Müller` → `muller`).
fn fold(s: &str) -> String {
    s.nfd()
        .filter(|c| !unicode_normalization::char::is_combining_mark(*c))
        .flat_map(char::to_lowercase)
        .collect()
}

/// Byte position of `word` in `hay` as a whole word.
fn find_word(hay: &str, word: &str) -> Option<usize> {
    if word.is_empty() {
        return None;
    }
    hay.match_indices(word).map(|(p, _)| p).find(|&p| {
        let before = hay[..p].chars().next_back();
        let after = hay[p + word.len()..].chars().next();
        !before.is_some_and(char::is_alphabetic) && !after.is_some_and(char::is_alphabetic)
    })
}

/// The first word of at least two letters (a surname when nothing better is known).
fn first_word(s: &str) -> Option<String> {
    s.split(|ch: char| !ch.is_alphabetic())
        .find(|w| w.chars().count() >= 2)
        .map(str::to_string)
}

/// The numbers inside the bracket pairs of `s` whose content is a numbered callout
/// ([`numbers`]), with ranges in `s`.
fn bracketed_numbers(s: &str) -> Vec<(u32, Range<usize>)> {
    let mut out = Vec::new();
    let mut open: Option<usize> = None;
    for (i, ch) in s.char_indices() {
        match ch {
            '[' | '(' => open = Some(i + 1),
            ']' | ')' => {
                if let Some(o) = open.take() {
                    for (n, r) in numbers(&s[o..i]).unwrap_or_default() {
                        out.push((n, r.start + o..r.end + o));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

fn first_year(s: &str) -> Option<i32> {
    author_years(s).first().map(|a| a.year)
}
