/*!
Whether a record is the extracted item. Both paths compare fields with string similarity
(strsim) over normalised words (lower case, accents folded, punctuation dropped):

- a **DOI hit** is accepted only when the record agrees with what was extracted: its title is
  close to the extracted one (when both have one) and its first author's surname too, or,
  when the title disagrees, the first author and the year both agree;
- a **bibliographic search** takes [`CANDIDATES`] records from the index and re-scores each
  field by field. A candidate whose present fields contradict the extraction (title, first
  author, a year more than one apart) is out; the best remaining one is accepted when its
  title is close and another field corroborates it, or, for a reference without a title,
  when first author, year, volume and first page all agree. Two accepted candidates with the
  same score are ambiguous: neither is taken.
*/

use strsim::{jaro_winkler, normalized_levenshtein, sorensen_dice};

use super::words::{words, STOPWORDS};
use super::Record;
use crate::document::HeaderRecord;
use crate::models::citation::Citation;

/// Candidates a bibliographic search re-scores.
pub const CANDIDATES: usize = 8;
/// Title similarity a bibliographic match needs.
pub const TITLE_ACCEPT: f64 = 0.85;
/// Surname similarity below which two first authors disagree.
pub const AUTHOR_AGREE: f64 = 0.85;

/// How a record was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchKind {
    /// By the extracted DOI.
    Doi,
    /// By a bibliographic search.
    Biblio,
}

/// An accepted candidate and its score.
#[derive(Debug, Clone, PartialEq)]
pub struct Match {
    pub record: Record,
    pub score: f64,
}

/// What the lookup knows of the extracted item.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Extracted {
    pub doi: Option<String>,
    pub title: Option<String>,
    /// The first author's surname.
    pub first_author: Option<String>,
    pub container: Option<String>,
    pub year: Option<i32>,
    pub volume: Option<String>,
    pub first_page: Option<String>,
}

impl Extracted {
    pub fn from_citation(c: &Citation) -> Extracted {
        Extracted {
            doi: c.doi(),
            title: c.title.clone(),
            first_author: c.authors.iter().find_map(|p| p.surname.clone()),
            container: c.journal.clone().or_else(|| c.booktitle.clone()),
            year: c.date.as_ref().and_then(|d| d.year),
            volume: c.volume.clone(),
            first_page: c.page_range().map(|(from, _)| from),
        }
    }

    pub fn from_header(h: &HeaderRecord) -> Extracted {
        Extracted {
            doi: h.doi.clone(),
            title: h.title.clone(),
            first_author: h.authors.iter().find_map(|a| a.person.surname.clone()),
            container: h.journal.clone(),
            year: h.date.as_ref().and_then(|d| d.year),
            volume: h.volume.clone(),
            first_page: h.pages.as_ref().map(|(from, _)| from.clone()),
        }
    }

    /// Whether there is enough to search on: a title of two words or more, or a first
    /// author with a year, volume or page.
    pub fn searchable(&self) -> bool {
        let title_words = self.title.as_deref().map_or(0, |t| words(t).len());
        title_words >= 2
            || (self.first_author.is_some()
                && (self.year.is_some() || self.volume.is_some() || self.first_page.is_some()))
    }
}

fn norm(s: &str) -> String {
    words(s).join(" ")
}

/// Title similarity in 0..=1: the better of normalised Levenshtein and Sørensen-Dice over
/// the normalised words.
pub fn title_similarity(a: &str, b: &str) -> f64 {
    let (a, b) = (norm(a), norm(b));
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    normalized_levenshtein(&a, &b).max(sorensen_dice(&a, &b))
}

/// Surname similarity in 0..=1 (Jaro-Winkler over the normalised words).
pub fn surname_similarity(a: &str, b: &str) -> f64 {
    let (a, b) = (norm(a), norm(b));
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    jaro_winkler(&a, &b)
}

fn same_key(a: &str, b: &str) -> bool {
    let k = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let (a, b) = (k(a), k(b));
    !a.is_empty() && a == b
}

/// Whether a container name is the other's abbreviation or equal: every word of the shorter
/// (common words left out) starts a word of the longer, in order.
pub fn container_agrees(a: &str, b: &str) -> bool {
    let w = |s: &str| -> Vec<String> {
        words(s)
            .into_iter()
            .filter(|w| !STOPWORDS.contains(&w.as_str()))
            .collect()
    };
    let (a, b) = (w(a), w(b));
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if short.is_empty() {
        return false;
    }
    let mut it = long.iter();
    short
        .iter()
        .all(|s| it.by_ref().any(|l| l.starts_with(s.as_str())))
}

/// Whether a record found by the extracted DOI agrees with the rest of the extraction.
pub fn doi_agrees(e: &Extracted, r: &Record) -> bool {
    let title = match (&e.title, &r.title) {
        (Some(a), Some(b)) => Some(title_similarity(a, b) >= 0.6),
        _ => None,
    };
    let author = match (&e.first_author, r.first_author()) {
        (Some(a), Some(b)) => Some(surname_similarity(a, b) >= 0.75),
        _ => None,
    };
    let year = matches!((e.year, r.year), (Some(a), Some(b)) if (a - b).abs() <= 1);
    match (title, author) {
        (Some(true) | None, Some(true) | None) => true,
        (Some(false), Some(true)) => year,
        _ => false,
    }
}

/// The score of a candidate, or `None` when its fields contradict the extraction or do not
/// reach acceptance.
pub fn score(e: &Extracted, r: &Record) -> Option<f64> {
    let mut s = 0.0;
    let mut corroborated = false;
    let title = match (&e.title, &r.title) {
        (Some(a), Some(b)) => Some(title_similarity(a, b)),
        _ => None,
    };
    if let Some(ts) = title {
        if ts < 0.7 {
            return None;
        }
        s += 3.0 * ts;
    }
    if let (Some(a), Some(b)) = (&e.first_author, r.first_author()) {
        let a_s = surname_similarity(a, b);
        if a_s < 0.75 {
            return None;
        }
        s += 1.5 * a_s;
        corroborated |= a_s >= AUTHOR_AGREE;
    }
    let mut year_equal = false;
    if let (Some(a), Some(b)) = (e.year, r.year) {
        match (a - b).abs() {
            0 => {
                s += 1.0;
                year_equal = true;
                corroborated = true;
            }
            1 => s += 0.4,
            _ => return None,
        }
    }
    let mut volume_equal = false;
    if let (Some(a), Some(b)) = (&e.volume, &r.volume) {
        volume_equal = same_key(a, b);
        s += if volume_equal { 0.5 } else { -0.5 };
    }
    let mut page_equal = false;
    if let (Some(a), Some(b)) = (&e.first_page, &r.first_page) {
        page_equal = same_key(a, b);
        s += if page_equal { 0.7 } else { -0.5 };
    }
    corroborated |= volume_equal && page_equal;
    if let (Some(a), Some(b)) = (&e.container, &r.container) {
        if container_agrees(a, b) || title_similarity(a, b) >= 0.8 {
            s += 0.3;
        }
    }
    let accepted = match title {
        Some(ts) => ts >= TITLE_ACCEPT && corroborated,
        None => {
            e.first_author.is_some()
                && r.first_author().is_some()
                && year_equal
                && volume_equal
                && page_equal
        }
    };
    accepted.then_some(s)
}

/// The best accepted candidate; `None` when none is accepted or the best two tie.
pub fn best(e: &Extracted, candidates: Vec<Record>) -> Option<Match> {
    let mut scored: Vec<Match> = candidates
        .into_iter()
        .filter_map(|r| score(e, &r).map(|score| Match { record: r, score }))
        .collect();
    scored.sort_by(|a, b| b.score.total_cmp(&a.score));
    let mut it = scored.into_iter();
    let first = it.next()?;
    if let Some(second) = it.next() {
        if (first.score - second.score).abs() < 1e-9 && first.record.doi != second.record.doi {
            return None;
        }
    }
    Some(first)
}

#[cfg(test)]
mod tests {
    use super::super::RecordAuthor;
    use super::*;

    fn record(doi: &str, title: &str, author: &str, year: i32) -> Record {
        Record {
            doi: doi.into(),
            title: Some(title.into()),
            authors: vec![RecordAuthor {
                given: None,
                family: author.into(),
                orcid: None,
            }],
            container: Some("Journal of Molecular Biology".into()),
            volume: Some("12".into()),
            first_page: Some("100".into()),
            year: Some(year),
            ..Record::default()
        }
    }

    fn extracted(title: Option<&str>, author: &str, year: i32) -> Extracted {
        Extracted {
            title: title.map(str::to_string),
            first_author: Some(author.into()),
            container: Some("J Mol Biol".into()),
            year: Some(year),
            volume: Some("12".into()),
            first_page: Some("100".into()),
            ..Extracted::default()
        }
    }

    #[test]
    fn similar_titles_and_names_score_high() {
        assert!(title_similarity("The cell cycle, revisited.", "The Cell Cycle Revisited") > 0.99);
        assert!(title_similarity("The cell cycle revisited", "Protein folding in vivo") < 0.5);
        assert!(surname_similarity("Müller", "Muller") > 0.99);
        assert!(container_agrees(
            "J Mol Biol",
            "Journal of Molecular Biology"
        ));
        assert!(!container_agrees("Nature", "Journal of Molecular Biology"));
    }

    #[test]
    fn a_close_candidate_is_accepted_and_a_contradicting_one_is_not() {
        let e = extracted(Some("Folding of the ribosome in vivo"), "Smith", 2001);
        let good = record(
            "10.1000/a",
            "Folding of the ribosome in vivo.",
            "Smith",
            2001,
        );
        let wrong_author = record(
            "10.1000/b",
            "Folding of the ribosome in vivo",
            "Jones",
            2001,
        );
        let wrong_year = record(
            "10.1000/c",
            "Folding of the ribosome in vivo",
            "Smith",
            1990,
        );
        let other = record("10.1000/d", "Ribosome assembly", "Smith", 2001);
        assert!(score(&e, &good).is_some());
        assert_eq!(score(&e, &wrong_author), None);
        assert_eq!(score(&e, &wrong_year), None);
        assert_eq!(score(&e, &other), None);
        let m = best(&e, vec![other, wrong_author, good.clone()]).expect("match");
        assert_eq!(m.record.doi, "10.1000/a");
    }

    #[test]
    fn a_reference_without_title_needs_every_other_field() {
        let e = extracted(None, "Smith", 2001);
        assert!(score(&e, &record("10.1000/a", "Anything", "Smith", 2001)).is_some());
        let mut other_page = record("10.1000/a", "Anything", "Smith", 2001);
        other_page.first_page = Some("101".into());
        assert_eq!(score(&e, &other_page), None);
    }

    #[test]
    fn equal_candidates_are_ambiguous() {
        let e = extracted(Some("Folding of the ribosome in vivo"), "Smith", 2001);
        let a = record(
            "10.1000/a",
            "Folding of the ribosome in vivo",
            "Smith",
            2001,
        );
        let b = record(
            "10.1000/b",
            "Folding of the ribosome in vivo",
            "Smith",
            2001,
        );
        assert_eq!(best(&e, vec![a, b]), None);
    }

    #[test]
    fn a_doi_hit_must_agree_with_the_extraction() {
        let r = record(
            "10.1000/a",
            "Folding of the ribosome in vivo",
            "Smith",
            2001,
        );
        assert!(doi_agrees(&Extracted::default(), &r));
        assert!(doi_agrees(
            &extracted(Some("Folding of ribosomes in vivo"), "Smith", 2001),
            &r
        ));
        // A mislabelled title is outvoted by first author and year together.
        assert!(doi_agrees(
            &extracted(Some("A survey of graph algorithms"), "Smith", 2001),
            &r
        ));
        assert!(!doi_agrees(
            &extracted(Some("A survey of graph algorithms"), "Smith", 1995),
            &r
        ));
        assert!(!doi_agrees(
            &extracted(Some("A survey of graph algorithms"), "Wang", 2001),
            &r
        ));
        assert!(!doi_agrees(
            &extracted(Some("Folding of the ribosome in vivo"), "Wang", 2001),
            &r
        ));
    }
}
