/*!
What each consolidation value does with a matched [`Record`] (grobid-service.md §4.6):

- `1` ([`Mode::Merge`]): the record is merged into the extracted item. The record wins for
  every field it has (title, authors, container, volume, issue, pages, date, publisher,
  ISSN, DOI); a field the record lacks keeps its extracted value. Authors: the record's list
  replaces the extracted one, each record author keeping what the extraction knew of the same
  person (same surname) and the record does not say (a longer forename, affiliations, email,
  markers).
- `2` ([`Mode::DoiOnly`]): only the DOI is added (replacing an extracted one).
- `3` ([`Mode::HeaderDoiOnly`], header only): the merge of `1`, but the lookup is made only
  with an extracted DOI.
*/

use super::Record;
use crate::document::{Author, HeaderRecord};
use crate::models::citation::Citation;
use crate::models::date::Date;
use crate::models::name::Person;

/// A consolidation value other than 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Merge,
    DoiOnly,
    HeaderDoiOnly,
}

impl Mode {
    /// The mode of a request value: `None` for 0 (no consolidation) or a value that has no
    /// meaning for the item (3 for citations).
    pub fn from_value(value: i64, header: bool) -> Option<Mode> {
        match value {
            1 => Some(Mode::Merge),
            2 => Some(Mode::DoiOnly),
            3 if header => Some(Mode::HeaderDoiOnly),
            _ => None,
        }
    }

    /// Whether the lookup may only use an extracted DOI.
    pub fn doi_lookup_only(self) -> bool {
        self == Mode::HeaderDoiOnly
    }
}

fn same_surname(a: &str, b: &str) -> bool {
    let k = |s: &str| super::words::words(s).join(" ");
    let (a, b) = (k(a), k(b));
    !a.is_empty() && a == b
}

/// A record author as a [`Person`]: the first given name as forename, the rest as middle
/// name.
fn person(given: Option<&str>, family: &str) -> Person {
    let mut names = given.unwrap_or("").split_whitespace();
    let forename = names.next().map(str::to_string);
    let middle: Vec<&str> = names.collect();
    Person {
        forename,
        middlename: (!middle.is_empty()).then(|| middle.join(" ")),
        surname: Some(family.to_string()),
        ..Person::default()
    }
}

/// The record's person, completed from the extracted one of the same surname.
fn merged_person(mut p: Person, extracted: Option<&Person>) -> Person {
    let Some(x) = extracted else {
        return p;
    };
    let longer = |a: &Option<String>, b: &Option<String>| -> Option<String> {
        match (a, b) {
            (Some(a), Some(b)) if b.chars().count() > a.chars().count() => Some(b.clone()),
            (None, b) => b.clone(),
            (a, _) => a.clone(),
        }
    };
    p.forename = longer(&p.forename, &x.forename);
    p.middlename = longer(&p.middlename, &x.middlename);
    p.title = p.title.or_else(|| x.title.clone());
    p.suffix = p.suffix.or_else(|| x.suffix.clone());
    p.markers = x.markers.clone();
    p.surname_first = x.surname_first;
    p
}

fn record_date(r: &Record) -> Option<Date> {
    let year = r.year?;
    let raw = match (r.month, r.day) {
        (Some(m), Some(d)) => format!("{year}-{m:02}-{d:02}"),
        (Some(m), None) => format!("{year}-{m:02}"),
        _ => year.to_string(),
    };
    Some(Date {
        year: Some(year),
        month: r.month,
        day: r.day.filter(|_| r.month.is_some()),
        raw,
    })
}

fn set<T: Clone>(slot: &mut Option<T>, value: &Option<T>) {
    if value.is_some() {
        slot.clone_from(value);
    }
}

/// Replaces the citation's DOI (a pubnum holding one) with `doi`.
fn set_citation_doi(c: &mut Citation, doi: &str) {
    c.pubnums.retain(|p| crate::doi::find_all(p).is_empty());
    c.pubnums.insert(0, doi.to_string());
}

/// Applies `mode` with the matched `record` to a citation, noting `source` as where the
/// consolidation came from (`status="consolidated"` in the TEI).
pub fn citation(c: &mut Citation, r: &Record, mode: Mode, source: &str) {
    if mode != Mode::DoiOnly {
        set(&mut c.title, &r.title);
        if !r.authors.is_empty() {
            let extracted = std::mem::take(&mut c.authors);
            c.authors = r
                .authors
                .iter()
                .map(|a| {
                    let x = extracted.iter().find(|p| {
                        p.surname
                            .as_deref()
                            .is_some_and(|s| same_surname(s, &a.family))
                    });
                    merged_person(person(a.given.as_deref(), &a.family), x)
                })
                .collect();
        }
        if let Some(container) = &r.container {
            if r.in_book() {
                c.booktitle = Some(container.clone());
                c.journal = None;
            } else {
                c.journal = Some(container.clone());
                c.booktitle = None;
            }
        }
        set(&mut c.volume, &r.volume);
        set(&mut c.issue, &r.issue);
        if let Some(first) = &r.first_page {
            c.pages = Some(match &r.last_page {
                Some(last) => format!("{first}-{last}"),
                None => first.clone(),
            });
        }
        set(&mut c.publisher, &r.publisher);
        if let Some(d) = record_date(r) {
            c.date = Some(d);
        }
        if let Some(issn) = r.issn.first() {
            c.issn = Some(issn.clone());
        }
        set(&mut c.oa_url, &r.oa_url);
    }
    set_citation_doi(c, &r.doi);
    c.consolidated = Some(source.to_string());
}

/// Applies `mode` with the matched `record` to a header.
pub fn header(h: &mut HeaderRecord, r: &Record, mode: Mode) {
    h.doi = Some(r.doi.clone());
    if mode == Mode::DoiOnly {
        return;
    }
    set(&mut h.title, &r.title);
    if !r.authors.is_empty() {
        let extracted = std::mem::take(&mut h.authors);
        h.authors = r
            .authors
            .iter()
            .map(|a| {
                let x = extracted.iter().find(|x| {
                    x.person
                        .surname
                        .as_deref()
                        .is_some_and(|s| same_surname(s, &a.family))
                });
                let p = merged_person(person(a.given.as_deref(), &a.family), x.map(|x| &x.person));
                match x {
                    Some(x) => Author {
                        person: p,
                        ..x.clone()
                    },
                    None => Author {
                        person: p,
                        ..Author::default()
                    },
                }
            })
            .collect();
    }
    if !r.in_book() {
        set(&mut h.journal, &r.container);
    }
    set(&mut h.publisher, &r.publisher);
    set(&mut h.volume, &r.volume);
    set(&mut h.issue, &r.issue);
    if let Some(first) = &r.first_page {
        h.pages = Some((first.clone(), r.last_page.clone()));
    }
    if let Some(d) = record_date(r) {
        h.date = Some(d);
    }
    set(&mut h.oa_url, &r.oa_url);
}

#[cfg(test)]
mod tests {
    use super::super::RecordAuthor;
    use super::*;

    fn record() -> Record {
        Record {
            doi: "10.1000/abc".into(),
            title: Some("Correct Title".into()),
            authors: vec![
                RecordAuthor {
                    given: Some("J.".into()),
                    family: "Smith".into(),
                    orcid: None,
                },
                RecordAuthor {
                    given: Some("Ana Maria".into()),
                    family: "Silva".into(),
                    orcid: None,
                },
            ],
            container: Some("Journal of Things".into()),
            volume: Some("7".into()),
            first_page: Some("10".into()),
            last_page: Some("20".into()),
            year: Some(2010),
            issn: vec!["1234-5678".into()],
            oa_url: Some("https://repo.example/abc.pdf".into()),
            ..Record::default()
        }
    }

    fn extracted() -> Citation {
        Citation {
            title: Some("Corect Titel".into()),
            authors: vec![Person {
                forename: Some("John".into()),
                surname: Some("Smith".into()),
                ..Person::default()
            }],
            journal: Some("J Things".into()),
            issue: Some("3".into()),
            pubnums: vec!["doi:10.9999/other".into(), "PMID 123".into()],
            ..Citation::default()
        }
    }

    #[test]
    fn merge_lets_the_record_win_and_keeps_what_it_lacks() {
        let mut c = extracted();
        citation(&mut c, &record(), Mode::Merge, "embedded");
        assert_eq!(c.title.as_deref(), Some("Correct Title"));
        assert_eq!(c.journal.as_deref(), Some("Journal of Things"));
        // The record has no issue: the extracted one stays.
        assert_eq!(c.issue.as_deref(), Some("3"));
        assert_eq!(c.pages.as_deref(), Some("10-20"));
        assert_eq!(c.date.as_ref().and_then(|d| d.year), Some(2010));
        assert_eq!(c.doi().as_deref(), Some("10.1000/abc"));
        assert!(c.pubnums.contains(&"PMID 123".to_string()));
        assert_eq!(c.issn.as_deref(), Some("1234-5678"));
        assert_eq!(c.oa_url.as_deref(), Some("https://repo.example/abc.pdf"));
        assert_eq!(c.authors.len(), 2);
        // The extracted forename is longer than the record's initial.
        assert_eq!(c.authors[0].forename.as_deref(), Some("John"));
        assert_eq!(c.authors[1].forename.as_deref(), Some("Ana"));
        assert_eq!(c.authors[1].middlename.as_deref(), Some("Maria"));
        assert_eq!(c.consolidated.as_deref(), Some("embedded"));
    }

    #[test]
    fn doi_only_adds_the_doi_and_nothing_else() {
        let mut c = extracted();
        citation(&mut c, &record(), Mode::DoiOnly, "embedded");
        assert_eq!(c.title.as_deref(), Some("Corect Titel"));
        assert_eq!(c.authors.len(), 1);
        assert_eq!(c.oa_url, None);
        assert_eq!(c.doi().as_deref(), Some("10.1000/abc"));
        assert_eq!(c.consolidated.as_deref(), Some("embedded"));
    }

    #[test]
    fn header_merge_keeps_affiliations_of_matching_authors() {
        let mut h = HeaderRecord {
            title: Some("Corect".into()),
            authors: vec![Author {
                person: Person {
                    surname: Some("Silva".into()),
                    ..Person::default()
                },
                affiliations: vec![0],
                ..Author::default()
            }],
            ..HeaderRecord::default()
        };
        header(&mut h, &record(), Mode::HeaderDoiOnly);
        assert_eq!(h.title.as_deref(), Some("Correct Title"));
        assert_eq!(h.doi.as_deref(), Some("10.1000/abc"));
        assert_eq!(h.authors.len(), 2);
        assert_eq!(h.authors[1].affiliations, [0]);
        assert!(h.authors[0].affiliations.is_empty());
        assert_eq!(h.pages, Some(("10".into(), Some("20".into()))));

        let mut only = HeaderRecord::default();
        header(&mut only, &record(), Mode::DoiOnly);
        assert_eq!(only.doi.as_deref(), Some("10.1000/abc"));
        assert_eq!(only.title, None);
        assert_eq!(Mode::from_value(3, false), None);
        assert_eq!(Mode::from_value(3, true), Some(Mode::HeaderDoiOnly));
        assert_eq!(Mode::from_value(0, true), None);
    }
}
