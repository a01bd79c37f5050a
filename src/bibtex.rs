/*!
BibTeX output for parsed references (grobid-service.md §5.6): entry type from the fields
(`article`, `techreport`, `inproceedings`, `inbook`, `misc`), GROBID's field order, page
ranges with a double hyphen. Keys are `-1` for processCitation and `0`, `1`, … for lists.
Braces in values are balanced by dropping unmatched ones, so every entry parses.
*/

use std::fmt::Write;

use crate::document::HeaderRecord;
use crate::models::citation::Citation;
use crate::models::name::Person;

fn entry_type(c: &Citation) -> &'static str {
    if c.journal.is_some() {
        "article"
    } else if c.tech.is_some() {
        "techreport"
    } else if let Some(b) = &c.booktitle {
        let l = b.to_lowercase();
        if l.contains("proceedings") || l.starts_with("proc") || l.starts_with("in proc") {
            "inproceedings"
        } else {
            "inbook"
        }
    } else {
        "misc"
    }
}

/// Keep a value inside one pair of braces: unmatched braces are dropped.
fn value(s: &str) -> String {
    let mut depth = 0usize;
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '{' => {
                depth += 1;
                out.push(c);
            }
            '}' if depth > 0 => {
                depth -= 1;
                out.push(c);
            }
            '}' => {}
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    // Remove the still-open braces, last first.
    while depth > 0 {
        if let Some(i) = out.rfind('{') {
            out.remove(i);
        }
        depth -= 1;
    }
    out
}

fn person(p: &Person) -> String {
    let last = p.surname.clone().unwrap_or_default();
    let first: Vec<&str> = [p.forename.as_deref(), p.middlename.as_deref()]
        .into_iter()
        .flatten()
        .collect();
    if first.is_empty() {
        last
    } else {
        format!("{last}, {}", first.join(" "))
    }
}

/// One BibTeX entry.
pub fn entry(c: &Citation, key: &str, include_raw: bool) -> String {
    let mut fields: Vec<(&str, String)> = Vec::new();
    let authors = match &c.collaboration {
        Some(col) if c.authors.is_empty() => col.clone(),
        _ => c
            .authors
            .iter()
            .map(person)
            .collect::<Vec<_>>()
            .join(" and "),
    };
    fields.push(("author", authors));
    if let Some(t) = &c.title {
        fields.push(("title", t.clone()));
    }
    if let Some(j) = &c.journal {
        fields.push(("journal", j.clone()));
    }
    if c.journal.is_none() && c.tech.is_none() {
        if let Some(b) = &c.booktitle {
            fields.push(("booktitle", b.clone()));
        }
    }
    if let Some(s) = &c.series {
        fields.push(("series", s.clone()));
    }
    if let Some(p) = &c.publisher {
        fields.push(("publisher", p.clone()));
    }
    if !c.editors.is_empty() {
        let e: Vec<String> = c.editors.iter().map(person).collect();
        fields.push(("editor", e.join(" and ")));
    }
    match (&c.date, &c.date_text) {
        (Some(d), _) if d.when().is_some() => {
            fields.push(("date", d.when().unwrap_or_default()));
            if let Some(y) = d.year {
                fields.push(("year", y.to_string()));
            }
            if let Some(m) = d.month {
                fields.push(("month", m.to_string()));
            }
            if let Some(day) = d.day {
                fields.push(("day", day.to_string()));
            }
        }
        (_, Some(raw)) => fields.push(("year", raw.clone())),
        _ => {}
    }
    if let Some(l) = &c.location {
        fields.push(("address", l.clone()));
    }
    match c.page_range() {
        Some((from, Some(to))) => fields.push(("pages", format!("{from}--{to}"))),
        Some((from, None)) => fields.push(("pages", from)),
        None => {}
    }
    if let Some(v) = &c.volume {
        fields.push(("volume", v.clone()));
    }
    if let Some(n) = &c.issue {
        fields.push(("number", n.clone()));
    }
    if let Some(d) = c.doi() {
        fields.push(("doi", d));
    }
    if let Some(a) = c.arxiv() {
        fields.push(("eprint", a));
    }
    if include_raw {
        fields.push(("raw", c.raw.clone()));
    }
    let mut out = String::new();
    let _ = writeln!(out, "@{}{{{},", entry_type(c), value(key));
    let body: Vec<String> = fields
        .iter()
        .map(|(k, v)| format!("  {k} = {{{}}}", value(v)))
        .collect();
    out.push_str(&body.join(",\n"));
    out.push_str("\n}\n");
    out
}

/// Entries keyed `0`, `1`, … each followed by a blank line (processCitationList).
pub fn entries(cs: &[Citation], include_raw: bool) -> String {
    cs.iter()
        .enumerate()
        .map(|(i, c)| entry(c, &i.to_string(), include_raw) + "\n")
        .collect()
}

/// The header's one BibTeX entry (key `-1`), with the same brace balancing as the
/// references' entries: a `{` in a title cannot break it.
pub fn header_entry(h: &HeaderRecord) -> String {
    let kind = if h.journal.is_some() {
        "article"
    } else {
        "misc"
    };
    let authors: Vec<String> = h
        .authors
        .iter()
        .map(|a| {
            let n = &a.person;
            let given: Vec<&str> = [n.forename.as_deref(), n.middlename.as_deref()]
                .into_iter()
                .flatten()
                .collect();
            match (n.surname.as_deref(), given.is_empty()) {
                (Some(s), false) => format!("{s}, {}", given.join(" ")),
                (Some(s), true) => s.to_string(),
                (None, _) => given.join(" "),
            }
        })
        .collect();
    let mut fields: Vec<String> = vec![format!("  author = {{{}}}", value(&authors.join(" and ")))];
    let mut push = |k: &str, v: Option<&str>| {
        if let Some(v) = v.filter(|v| !v.is_empty()) {
            fields.push(format!("  {k} = {{{}}}", value(v)));
        }
    };
    push("title", h.title.as_deref());
    push("journal", h.journal.as_deref());
    push("publisher", h.publisher.as_deref());
    if let Some(d) = &h.date {
        if let Some(w) = &d.when() {
            push("date", Some(w));
            let mut parts = w.split('-');
            push("year", parts.next());
            push(
                "month",
                parts
                    .next()
                    .map(|m| m.trim_start_matches('0'))
                    .filter(|m| !m.is_empty()),
            );
            push(
                "day",
                parts
                    .next()
                    .map(|m| m.trim_start_matches('0'))
                    .filter(|m| !m.is_empty()),
            );
        } else {
            push("year", Some(&d.raw));
        }
    }
    let pages = h.pages.as_ref().map(|(a, b)| match b {
        Some(b) => format!("{a}--{b}"),
        None => a.clone(),
    });
    push("pages", pages.as_deref());
    push("volume", h.volume.as_deref());
    push("number", h.issue.as_deref());
    push("doi", h.doi.as_deref());
    push("eprint", h.arxiv.as_deref());
    push("abstract", h.abstract_text.as_deref());
    if !h.keywords.is_empty() {
        fields.push(format!("keywords = {{{}}}", value(&h.keywords.join(", "))));
    }
    format!("@{kind}{{-1,\n{}\n}}\n", fields.join(",\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::date::Date;

    fn sample() -> Citation {
        Citation {
            raw: "Ng B, Smith J. A prior study. J Examples 3(2):1-9, 2019.".into(),
            title: Some("A prior study".into()),
            journal: Some("J Examples".into()),
            volume: Some("3".into()),
            issue: Some("2".into()),
            pages: Some("1-9".into()),
            authors: vec![
                Person {
                    forename: Some("B".into()),
                    surname: Some("Ng".into()),
                    ..Person::default()
                },
                Person {
                    forename: Some("Jane".into()),
                    surname: Some("Smith".into()),
                    ..Person::default()
                },
            ],
            date: Some(Date {
                year: Some(2019),
                ..Date::default()
            }),
            ..Citation::default()
        }
    }

    #[test]
    fn article_entry_in_grobid_order() {
        assert_eq!(
            entry(&sample(), "-1", false),
            "@article{-1,\n  author = {Ng, B and Smith, Jane},\n  title = {A prior study},\n  journal = {J Examples},\n  date = {2019},\n  year = {2019},\n  pages = {1--9},\n  volume = {3},\n  number = {2}\n}\n"
        );
        let list = entries(&[sample(), Citation::default()], true);
        assert!(list.starts_with("@article{0,"));
        assert!(list.contains("@misc{1,\n  author = {},\n  raw = {}\n}\n\n"));
    }

    #[test]
    fn entry_types_and_braces() {
        let mut c = Citation {
            booktitle: Some("Proceedings of ACL".into()),
            ..Citation::default()
        };
        assert_eq!(entry_type(&c), "inproceedings");
        c.booktitle = Some("A Book".into());
        assert_eq!(entry_type(&c), "inbook");
        c.tech = Some("Technical report".into());
        assert_eq!(entry_type(&c), "techreport");
        assert_eq!(value("a}b{c"), "abc");
        assert_eq!(value("{ok}"), "{ok}");
    }

    #[test]
    fn header_entry_balances_braces() {
        let h = HeaderRecord {
            title: Some("A {broken title".into()),
            abstract_text: Some("closing} first".into()),
            ..HeaderRecord::default()
        };
        let b = header_entry(&h);
        assert!(b.contains("  title = {A broken title},"), "{b}");
        assert!(b.contains("  abstract = {closing first}"), "{b}");
        assert_eq!(b.matches('{').count(), b.matches('}').count(), "{b}");
    }
}
