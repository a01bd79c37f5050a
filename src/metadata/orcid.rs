//! ORCID iDs of the authors: from the PDF's link annotations to `orcid.org` (the iD icon
//! after an author's name) and from iDs printed in the text (`https://orcid.org/0000-…`,
//! `ORCID: 0000-…`). An iD goes to the author whose surname is printed closest before it (on
//! the icon's line, or in the text before the printed iD); an iD whose check digit is wrong
//! (ISO 7064 MOD 11-2) or that no author's name precedes is not written.

use std::sync::OnceLock;

use regex::Regex;
use unicode_normalization::UnicodeNormalization;

use crate::document::Author;
use crate::layout::{BBox, Document};

/// Whether `id` (`0000-0002-1825-0097`) is an ORCID iD with a correct check character.
pub fn valid(id: &str) -> bool {
    let chars: Vec<char> = id.chars().filter(|c| *c != '-').collect();
    if chars.len() != 16 || !chars[..15].iter().all(char::is_ascii_digit) {
        return false;
    }
    let mut total: u32 = 0;
    for c in &chars[..15] {
        total = (total + c.to_digit(10).unwrap_or(0)) * 2;
    }
    let check = (12 - total % 11) % 11;
    let expected = if check == 10 {
        'X'
    } else {
        char::from_digit(check, 10).unwrap_or('?')
    };
    chars[15].to_ascii_uppercase() == expected
}

fn id_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"(\d{4})[ \-‐–]?(\d{4})[ \-‐–]?(\d{4})[ \-‐–]?(\d{3}[\dXx])\b").expect("ORCID")
    })
}

/// The iD at the start of `s` (after `orcid.org/`), in its canonical form, if valid.
fn canonical(c: &regex::Captures<'_>) -> Option<String> {
    let id = format!(
        "{}-{}-{}-{}",
        &c[1],
        &c[2],
        &c[3],
        c[4].to_ascii_uppercase()
    );
    valid(&id).then_some(id)
}

/// `s` lower-cased without diacritics, for name matching.
fn fold(s: &str) -> String {
    s.nfd()
        .filter(|c| !('\u{300}'..='\u{36f}').contains(c))
        .flat_map(char::to_lowercase)
        .collect()
}

/// An author's initials as printed in contribution and ORCID lists (`Martin G. Schultz` →
/// `MGS`), when they are at least two letters.
fn initials(a: &Author) -> Option<String> {
    let p = &a.person;
    let mut s = String::new();
    for part in [&p.forename, &p.middlename, &p.surname]
        .into_iter()
        .flatten()
    {
        for w in part.split([' ', '-', '.']).filter(|w| !w.is_empty()) {
            s.extend(
                w.chars()
                    .next()
                    .filter(|c| c.is_alphabetic())
                    .map(|c| c.to_ascii_uppercase()),
            );
        }
    }
    (s.chars().count() >= 2).then_some(s)
}

/// A roman numeral (`II`, `vii`): an affiliation mark the header model may have read as a
/// surname.
fn roman(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| "ivxlcIVXLC".contains(c))
}

/// Ends of whole-word occurrences of `needle` in `hay`.
fn word_ends(hay: &str, needle: &str) -> Vec<usize> {
    hay.match_indices(needle)
        .filter(|(at, _)| {
            hay[..*at]
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_alphabetic())
                && hay[at + needle.len()..]
                    .chars()
                    .next()
                    .is_none_or(|c| !c.is_alphabetic())
        })
        .map(|(at, _)| at + needle.len())
        .collect()
}

/// The author whose surname (or, printed in capitals, whose initials) comes last in
/// `before`, if any, and only when at most `gap` characters follow it (affiliation marks,
/// `ORCID:`): an iD far from any name may belong to an author the header model missed.
fn last_named(authors: &[Author], before: &str, gap: usize) -> Option<usize> {
    let text = fold(before);
    // (end in `text` or `before`, from the end, author)
    let mut best: Option<(usize, usize)> = None;
    let mut consider = |rest: usize, k: usize| {
        if best.is_none_or(|(r, _)| rest < r) {
            best = Some((rest, k));
        }
    };
    for (k, a) in authors.iter().enumerate() {
        if let Some(surname) = a.person.surname.as_deref() {
            let s = fold(surname);
            if s.chars().count() >= 2 && !roman(&s) {
                for end in word_ends(&text, &s) {
                    consider(text[end..].chars().count(), k);
                }
            }
        }
        if let Some(ini) = initials(a) {
            // Initials must name one author only.
            let shared = authors
                .iter()
                .filter(|b| initials(b).as_deref() == Some(&ini))
                .count();
            if shared == 1 {
                for end in word_ends(before, &ini) {
                    consider(before[end..].chars().count(), k);
                }
            }
        }
    }
    best.filter(|(rest, _)| *rest <= gap).map(|(_, k)| k)
}

fn overlaps_vertically(a: &BBox, b: &BBox) -> bool {
    let top = a.y.max(b.y);
    let bottom = (a.y + a.h).min(b.y + b.h);
    bottom - top > 0.3 * a.h.min(b.h).max(1.0)
}

/// The text printed on the link's line left of it, in reading order.
fn text_left_of(doc: &Document, page: usize, link: &BBox) -> String {
    let mut toks: Vec<(f32, &str)> = Vec::new();
    for block in &doc.pages[page].blocks {
        for line in &block.lines {
            if !overlaps_vertically(&line.bbox, link) {
                continue;
            }
            for t in &line.tokens {
                // Left of the link's right edge: the name may be the link's own text.
                if t.bbox.x + t.bbox.w * 0.5 < link.x + link.w {
                    toks.push((t.bbox.x, t.text.as_str()));
                }
            }
        }
    }
    toks.sort_by(|a, b| a.0.total_cmp(&b.0));
    toks.iter().map(|t| t.1).collect::<Vec<_>>().join(" ")
}

/// Sets `orcid` on the authors the iDs of `doc` belong to; an author keeps the first iD found
/// for it, an iD goes to one author only.
pub fn attach(authors: &mut [Author], doc: &Document) {
    if authors.is_empty() {
        return;
    }
    let mut pairs: Vec<(usize, String)> = Vec::new();
    // Link annotations first: the icon sits right after the name.
    for (p, page) in doc.pages.iter().enumerate() {
        for link in &page.links {
            let Some(uri) = link.uri.as_deref() else {
                continue;
            };
            let low = uri.to_ascii_lowercase();
            let Some(at) = low.find("orcid.org/") else {
                continue;
            };
            let Some(id) = id_re()
                .captures(&uri[at + "orcid.org/".len()..])
                .and_then(|c| canonical(&c))
            else {
                continue;
            };
            if let Some(k) = last_named(authors, &text_left_of(doc, p, &link.bbox), 30) {
                pairs.push((k, id));
            }
        }
    }
    // Printed iDs: the name before the iD in its block (or the block before).
    for page in &doc.pages {
        let texts: Vec<String> = page
            .blocks
            .iter()
            .map(|b| b.lines.iter().map(|l| l.text()).collect::<String>())
            .collect();
        for (bi, text) in texts.iter().enumerate() {
            let low = text.to_ascii_lowercase();
            // A list of iDs may follow its `ORCID` heading in a block of its own.
            let headed = bi > 0 && texts[bi - 1].to_ascii_lowercase().contains("orcid");
            if !low.contains("orcid") && !headed {
                continue;
            }
            let mut from = 0;
            let mut marked = headed;
            for c in id_re().captures_iter(text) {
                let m = c.get(0).expect("whole match");
                let Some(id) = canonical(&c) else {
                    from = m.end();
                    continue;
                };
                // Only iDs the text marks as ORCIDs: `orcid` within the 60 bytes before, or
                // the next iD of a list so marked.
                let mut ctx = m.start().saturating_sub(60);
                while !text.is_char_boundary(ctx) {
                    ctx -= 1;
                }
                marked = low[ctx..m.start()].contains("orcid") || marked;
                if !marked {
                    from = m.end();
                    continue;
                }
                let before = &text[from..m.start()];
                let k = last_named(authors, before, 60).or_else(|| {
                    (from == 0 && bi > 0 && before.chars().count() <= 60)
                        .then(|| last_named(authors, &texts[bi - 1], 30))
                        .flatten()
                });
                if let Some(k) = k {
                    pairs.push((k, id));
                }
                from = m.end();
            }
        }
    }
    let mut used: Vec<String> = authors.iter().filter_map(|a| a.orcid.clone()).collect();
    for (k, id) in pairs {
        if authors[k].orcid.is_none() && !used.contains(&id) {
            authors[k].orcid = Some(id.clone());
            used.push(id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_digits_per_iso_7064_mod_11_2() {
        assert!(valid("0000-0002-1825-0097"));
        assert!(valid("0000-0002-1694-233X"));
        assert!(valid("0000-0001-5109-3700"));
        assert!(!valid("0000-0002-1825-0098"));
        assert!(!valid("0000-0002-1694-2331"));
        assert!(!valid("0000-0002-1825-009"));
    }

    #[test]
    fn the_last_surname_before_wins() {
        let a = |s: &str| Author {
            person: crate::models::name::Person {
                surname: Some(s.into()),
                ..Default::default()
            },
            ..Default::default()
        };
        let authors = [a("Souza"), a("Lima")];
        assert_eq!(
            last_named(&authors, "Maria Souza1, João Lima2", 30),
            Some(1)
        );
        assert_eq!(last_named(&authors, "Maria Souza1", 30), Some(0));
        assert_eq!(last_named(&authors, "Limazzo", 30), None);
        assert_eq!(last_named(&authors, "MARIA SÓUZA", 30), Some(0));
        // Initials in capitals name an author; a roman numeral read as a surname does not.
        let mut with_forenames = authors.clone();
        with_forenames[0].person.forename = Some("Maria".into());
        with_forenames[1].person.forename = Some("João".into());
        assert_eq!(
            last_named(&with_forenames, "MS, 0000-0002-1825-0097; JL,", 30),
            Some(1)
        );
        assert_eq!(last_named(&[a("II")], "Ana Souza I, II", 30), None);
        // Too far from the iD: not attached.
        assert_eq!(
            last_named(
                &authors,
                "João Lima, Department of Soil Science, University of Nowhere",
                30
            ),
            None
        );
    }
}
