/*!
Consolidation (grobid-service.md §4.6): completing extracted metadata from a bibliographic
database. Quire's default database is an index embedded in the process ([`index`]), built from
Crossref REST work records ([`crossref`]); it needs no network.

- [`Record`]: one bibliographic record as the index stores it.
- [`crossref`]: reading Crossref work objects (JSON Lines, or the public data file's
  `{"items": [...]}`), gzip or plain; a malformed record is rejected with a [`Reject`] reason.
- [`index`]: the tantivy index: import (resumable), DOI lookup, bibliographic search.
- [`matching`]: whether a record is the extracted reference: a DOI hit must agree with the
  extracted title and first author; a bibliographic search re-scores its candidates field by
  field and accepts the best above a threshold.
- [`merge`]: what each consolidation value does to a citation or a header ([`Mode`]).
- [`funders`]: the Crossref Funder Registry in memory, for `consolidateFunders`.
- [`words`]: how titles and names are cut into words, alike for the index and for matching.

[`Consolidator`] ties them together: the one object the service shares between requests. It
asks a [`Source`] for records (the embedded index here; the online services Crossref and
biblio-glutton implement [`Source`] in the actor layer, which may speak HTTP) and applies the
same matching to every source's answers.
*/

pub mod crossref;
pub mod funders;
pub mod index;
pub mod matching;
pub mod merge;
pub mod tei;
pub mod words;

use std::path::Path;

use serde::{Deserialize, Serialize};

pub use crossref::{parse_work, read_works, Reject};
pub use funders::{FunderMatch, FunderRecord, FunderRegistry};
pub use index::{BiblioIndex, ImportCounts, IndexStats};
pub use matching::{Extracted, Match, MatchKind};
pub use merge::Mode;

/// One author of a [`Record`].
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RecordAuthor {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub given: Option<String>,
    /// Family name, or the whole name of an organisation.
    pub family: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orcid: Option<String>,
}

/// A funder of a [`Record`].
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Funder {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doi: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub awards: Vec<String>,
}

/// One bibliographic record: what the index stores and a lookup returns.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Record {
    /// Lower-case DOI (`10.…`); DOIs are case-insensitive.
    pub doi: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub authors: Vec<RecordAuthor>,
    /// Journal, book or proceedings title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub issn: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volume: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issue: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_page: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_page: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub year: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub month: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub day: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub publisher: Option<String>,
    /// Crossref's work type (`journal-article`, `book-chapter`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub funders: Vec<Funder>,
    /// Where the work can be read openly: biblio-glutton's `oaLink`, or the full-text link
    /// of a Crossref record under a Creative Commons licence ([`crossref::open_access_url`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oa_url: Option<String>,
}

impl Record {
    /// The first author's family name.
    pub fn first_author(&self) -> Option<&str> {
        self.authors.first().map(|a| a.family.as_str())
    }

    /// Whether the container is a book or proceedings rather than a journal.
    pub fn in_book(&self) -> bool {
        matches!(
            self.kind.as_deref(),
            Some(
                "book-chapter"
                    | "proceedings-article"
                    | "book-section"
                    | "book-part"
                    | "reference-entry"
            )
        )
    }
}

/// Where records come from. Lookups are synchronous (run them off the async threads); an
/// error is a failed lookup (the item stays as extracted), never a failed request.
pub trait Source: Send + Sync {
    /// The short name the TEI notes as the source (`embedded`, `crossref`, `glutton`).
    fn name(&self) -> &str;
    /// The record of a normalised DOI, when the source has it.
    fn by_doi(&self, doi: &str) -> crate::Result<Option<Record>>;
    /// Up to `limit` candidate records for `e`, to be re-scored by [`matching::best`].
    fn search(&self, e: &Extracted, limit: usize) -> crate::Result<Vec<Record>>;
}

impl Source for BiblioIndex {
    fn name(&self) -> &str {
        EMBEDDED
    }
    fn by_doi(&self, doi: &str) -> crate::Result<Option<Record>> {
        self.get_doi(doi)
    }
    fn search(&self, e: &Extracted, limit: usize) -> crate::Result<Vec<Record>> {
        BiblioIndex::search(self, e, limit)
    }
}

/// The consolidation database the service shares between requests: a [`Source`] and the
/// matching rules every source shares.
pub struct Consolidator {
    source: Box<dyn Source>,
}

/// What a consolidation did to one item.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub record: Record,
    pub kind: MatchKind,
}

/// Name of the embedded backend, as the TEI notes the source.
pub const EMBEDDED: &str = "embedded";

impl Consolidator {
    /// Opens the index at `dir`; `Ok(None)` when the folder is absent or holds no records
    /// (consolidation is then a no-op).
    pub fn open(dir: &Path) -> crate::Result<Option<Consolidator>> {
        if !BiblioIndex::exists(dir) {
            return Ok(None);
        }
        let index = BiblioIndex::open(dir)?;
        if index.stats()?.records == 0 {
            return Ok(None);
        }
        Ok(Some(Consolidator::new(Box::new(index))))
    }

    pub fn new(source: Box<dyn Source>) -> Consolidator {
        Consolidator { source }
    }

    /// The source's name, as the TEI notes it.
    pub fn source_name(&self) -> &str {
        self.source.name()
    }

    /// Finds the record of `e`: by its DOI when it has one (accepted only when the record
    /// agrees with the extracted title and first author), else, unless `doi_only`, by a
    /// bibliographic search whose best re-scored candidate must pass the threshold.
    pub fn find(&self, e: &Extracted, doi_only: bool) -> crate::Result<Option<Outcome>> {
        if let Some(doi) = e.doi.as_deref().and_then(crate::doi::normalize) {
            if let Some(record) = self.source.by_doi(&doi)? {
                if matching::doi_agrees(e, &record) {
                    return Ok(Some(Outcome {
                        record,
                        kind: MatchKind::Doi,
                    }));
                }
            }
        }
        if doi_only || !e.searchable() {
            return Ok(None);
        }
        let candidates = self.source.search(e, matching::CANDIDATES)?;
        Ok(matching::best(e, candidates).map(|m| Outcome {
            record: m.record,
            kind: MatchKind::Biblio,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dois_are_normalised() {
        assert_eq!(
            crate::doi::normalize(" https://doi.org/10.1000/ABC.1. ").as_deref(),
            Some("10.1000/abc.1")
        );
        assert_eq!(
            crate::doi::normalize("doi:10.1038/nature123").as_deref(),
            Some("10.1038/nature123")
        );
        assert_eq!(crate::doi::normalize("10.12/x"), None);
        assert_eq!(crate::doi::normalize("11.1000/x"), None);
        assert_eq!(crate::doi::normalize("10.1000/a b"), None);
        assert_eq!(crate::doi::normalize("10.1000/"), None);
    }

    #[test]
    fn the_consolidator_finds_by_doi_or_metadata_and_refuses_disagreement() {
        let dir = std::env::temp_dir().join(format!("quire-consolidator-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        // No index: consolidation is off.
        assert!(Consolidator::open(&dir).expect("absent").is_none());
        let index = BiblioIndex::open_or_create(&dir).expect("create");
        // An empty index is off too.
        assert!(Consolidator::open(&dir).expect("empty").is_none());
        let rec = |doi: &str, title: &str, family: &str| Record {
            doi: doi.into(),
            title: Some(title.into()),
            authors: vec![RecordAuthor {
                given: Some("K".into()),
                family: family.into(),
                orcid: None,
            }],
            year: Some(2012),
            ..Record::default()
        };
        index
            .add(&[
                rec("10.5555/a", "Mitochondrial dynamics in neurons", "Chen"),
                rec("10.5555/b", "Mitochondrial dynamics in yeast", "Okoro"),
                // An exact-title namesake by another author: the exact-title candidates are
                // scored like any others, so the author decides.
                rec("10.5555/c", "Mitochondrial Dynamics in Neurons", "Okoro"),
            ])
            .expect("add");
        drop(index);
        let c = Consolidator::open(&dir).expect("open").expect("records");
        let by_doi = Extracted {
            doi: Some("https://doi.org/10.5555/A".into()),
            title: Some("Mitochondrial dynamics in neurons".into()),
            ..Extracted::default()
        };
        let o = c.find(&by_doi, true).expect("find").expect("match");
        assert_eq!(
            (o.record.doi.as_str(), o.kind),
            ("10.5555/a", MatchKind::Doi)
        );
        // A DOI whose record disagrees with the extracted title and author is refused, and
        // with the DOI-only rule there is no search.
        let wrong = Extracted {
            doi: Some("10.5555/b".into()),
            title: Some("Mitochondrial dynamics in neurons".into()),
            first_author: Some("Chen".into()),
            year: Some(2012),
            ..Extracted::default()
        };
        assert_eq!(c.find(&wrong, true).expect("find"), None);
        // Without the rule, the search finds the right record.
        let o = c.find(&wrong, false).expect("find").expect("match");
        assert_eq!(
            (o.record.doi.as_str(), o.kind),
            ("10.5555/a", MatchKind::Biblio)
        );
        let unknown = Extracted {
            title: Some("Quantum error correction codes".into()),
            first_author: Some("Chen".into()),
            year: Some(2012),
            ..Extracted::default()
        };
        assert_eq!(c.find(&unknown, false).expect("find"), None);
        std::fs::remove_dir_all(&dir).ok();
    }
}
