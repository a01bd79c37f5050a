/*!
The embedded bibliographic index: a tantivy index in one folder. Each record is one document
with its DOI as an exact key, title / authors / first author / container as searchable text
(Unicode-aware words, lower-cased, accents folded), year / volume / first page as exact keys,
and the whole [`Record`] stored as JSON.

Import is resumable: after every commit the folder's `import-state.json` notes, per input
file, how many of its records are in; a second run over the same files skips those. A DOI
imported twice keeps its last record.
*/

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, TermQuery};
use tantivy::schema::{
    Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, Value, STORED, STRING,
};
use tantivy::{
    DocAddress, Index, IndexReader, IndexWriter, ReloadPolicy, Searcher, TantivyDocument, Term,
};

use super::matching::Extracted;
use super::words::{analyzer, words, STOPWORDS};
use super::{crossref, Record};

/// The tokenizer of the text fields.
const TOKENIZER: &str = "biblio";
/// The import's progress file, in the index folder.
const STATE_FILE: &str = "import-state.json";
/// Records between two commits of an import.
const COMMIT_EVERY: u64 = 200_000;
/// Title words a search uses (the rarest in the index).
const TITLE_WORDS: usize = 5;
/// Memory of the index writer.
const WRITER_BYTES: usize = 200_000_000;

fn index_error(dir: &Path, e: impl std::fmt::Display) -> crate::Error {
    crate::Error::General(format!("bibliographic index {}: {e}", dir.display()))
}

#[derive(Clone, Copy)]
struct Fields {
    doi: Field,
    title: Field,
    /// The title's words, normalised and joined: the exact-title key of the fast path.
    title_key: Field,
    authors: Field,
    first_author: Field,
    container: Field,
    year: Field,
    volume: Field,
    page: Field,
    record: Field,
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let text = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(TOKENIZER)
            .set_index_option(IndexRecordOption::WithFreqs),
    );
    let exact = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer("raw")
            .set_index_option(IndexRecordOption::WithFreqs),
    );
    let fields = Fields {
        doi: b.add_text_field("doi", STRING | STORED),
        title: b.add_text_field("title", text.clone()),
        title_key: b.add_text_field("title_key", STRING),
        authors: b.add_text_field("authors", text.clone()),
        first_author: b.add_text_field("first_author", text.clone()),
        container: b.add_text_field("container", text),
        // One term each, but with frequencies: a search's union of term queries is answered
        // by block-max WAND only when every term field has them (a year is in tens of
        // thousands of records; without them every such record would be scored).
        year: b.add_text_field("year", exact.clone()),
        volume: b.add_text_field("volume", exact.clone()),
        page: b.add_text_field("page", exact),
        record: b.add_text_field("record", STORED),
    };
    (b.build(), fields)
}

/// The exact-title key: the title's words as the text fields hold them, one space apart.
fn title_key(title: &str) -> String {
    words(title).join(" ")
}

/// An exact key (volume, page): lower case, no spaces.
fn key(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Counts of an import.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ImportCounts {
    /// Records read from the files (skipped ones not included).
    pub read: u64,
    pub indexed: u64,
    /// Rejections per reason key ([`crossref::Reject::key`]).
    pub rejected: BTreeMap<String, u64>,
    /// Records passed over because an earlier import had them in.
    pub skipped: u64,
    /// Files read to the end.
    pub files: u64,
}

impl ImportCounts {
    pub fn rejected_total(&self) -> u64 {
        self.rejected.values().sum()
    }
}

/// What `quire biblio stats` shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IndexStats {
    pub records: u64,
    pub segments: usize,
    /// Bytes of the folder's files.
    pub bytes: u64,
    /// Input files the import state knows, and how many were read to the end.
    pub files_known: usize,
    pub files_complete: usize,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct FileState {
    /// Records of the file (rejected ones included) that are committed.
    done: u64,
    complete: bool,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct ImportState {
    files: BTreeMap<String, FileState>,
}

/// The embedded index: searching is shared between threads; importing takes the folder's
/// writer lock.
pub struct BiblioIndex {
    dir: PathBuf,
    index: Index,
    reader: IndexReader,
    fields: Fields,
}

impl BiblioIndex {
    /// Whether `dir` holds an index.
    pub fn exists(dir: &Path) -> bool {
        dir.join("meta.json").is_file()
    }

    /// Opens the index of `dir`, creating the folder and an empty index when there is none.
    pub fn open_or_create(dir: &Path) -> crate::Result<BiblioIndex> {
        if !Self::exists(dir) {
            std::fs::create_dir_all(dir).map_err(|source| crate::Error::Io {
                path: dir.to_path_buf(),
                source,
            })?;
            let (schema, _) = schema();
            Index::create_in_dir(dir, schema).map_err(|e| index_error(dir, e))?;
        }
        Self::open(dir)
    }

    /// Opens an existing index.
    pub fn open(dir: &Path) -> crate::Result<BiblioIndex> {
        let index = Index::open_in_dir(dir).map_err(|e| index_error(dir, e))?;
        let (expected, fields) = schema();
        if index.schema() != expected {
            return Err(index_error(
                dir,
                "the folder holds an index of another layout; import into an empty folder",
            ));
        }
        index.tokenizers().register(TOKENIZER, analyzer());
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::OnCommitWithDelay)
            .try_into()
            .map_err(|e| index_error(dir, e))?;
        Ok(BiblioIndex {
            dir: dir.to_path_buf(),
            index,
            reader,
            fields,
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn state_path(&self) -> PathBuf {
        self.dir.join(STATE_FILE)
    }

    fn load_state(&self) -> ImportState {
        std::fs::read(self.state_path())
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    fn save_state(&self, state: &ImportState) -> crate::Result<()> {
        let path = self.state_path();
        let tmp = path.with_extension("json.tmp");
        let bytes = serde_json::to_vec_pretty(state).map_err(|e| index_error(&self.dir, e))?;
        std::fs::write(&tmp, bytes)
            .and_then(|()| std::fs::rename(&tmp, &path))
            .map_err(|source| crate::Error::Io { path, source })
    }

    fn document(&self, r: &Record) -> crate::Result<TantivyDocument> {
        let f = self.fields;
        let mut doc = TantivyDocument::default();
        doc.add_text(f.doi, &r.doi);
        if let Some(t) = &r.title {
            doc.add_text(f.title, t);
            doc.add_text(f.title_key, title_key(t));
        }
        for a in &r.authors {
            doc.add_text(f.authors, &a.family);
        }
        if let Some(a) = r.first_author() {
            doc.add_text(f.first_author, a);
        }
        if let Some(c) = &r.container {
            doc.add_text(f.container, c);
        }
        if let Some(y) = r.year {
            doc.add_text(f.year, y.to_string());
        }
        if let Some(v) = &r.volume {
            doc.add_text(f.volume, key(v));
        }
        if let Some(p) = &r.first_page {
            doc.add_text(f.page, key(p));
        }
        let json = serde_json::to_string(r).map_err(|e| index_error(&self.dir, e))?;
        doc.add_text(f.record, json);
        Ok(doc)
    }

    fn writer(&self) -> crate::Result<IndexWriter> {
        self.index
            .writer(WRITER_BYTES)
            .map_err(|e| index_error(&self.dir, e))
    }

    /// Adds records (a DOI already in is replaced) and commits.
    pub fn add(&self, records: &[Record]) -> crate::Result<()> {
        let mut w = self.writer()?;
        for r in records {
            w.delete_term(Term::from_field_text(self.fields.doi, &r.doi));
            w.add_document(self.document(r)?)
                .map_err(|e| index_error(&self.dir, e))?;
        }
        w.commit().map_err(|e| index_error(&self.dir, e))?;
        self.reader.reload().map_err(|e| index_error(&self.dir, e))
    }

    /// Imports the Crossref work files `paths` (see [`crossref::read_works`]), resuming where
    /// an earlier import of the same files stopped. `progress` is called every few thousand
    /// records and after each file. A file that cannot be opened stops the import (what was
    /// committed stays).
    pub fn import(
        &self,
        paths: &[PathBuf],
        mut progress: impl FnMut(&ImportCounts, &Path),
    ) -> crate::Result<ImportCounts> {
        let mut state = self.load_state();
        let mut counts = ImportCounts::default();
        let mut writer = self.writer()?;
        let mut pending = 0u64;
        for path in paths {
            let name = std::fs::canonicalize(path)
                .unwrap_or_else(|_| path.clone())
                .display()
                .to_string();
            let known = state.files.get(&name).cloned().unwrap_or_default();
            if known.complete {
                counts.skipped += known.done;
                counts.files += 1;
                progress(&counts, path);
                continue;
            }
            counts.skipped += known.done;
            let mut done = known.done;
            crossref::read_works(path, known.done, |i, rec| {
                counts.read += 1;
                match rec {
                    Ok(r) => {
                        writer.delete_term(Term::from_field_text(self.fields.doi, &r.doi));
                        writer
                            .add_document(self.document(&r)?)
                            .map_err(|e| index_error(&self.dir, e))?;
                        counts.indexed += 1;
                    }
                    Err(reject) => {
                        tracing::debug!(file = %path.display(), record = i, "rejected: {reject}");
                        *counts.rejected.entry(reject.key().to_string()).or_default() += 1;
                    }
                }
                done = i + 1;
                pending += 1;
                if pending >= COMMIT_EVERY {
                    writer.commit().map_err(|e| index_error(&self.dir, e))?;
                    pending = 0;
                    state.files.insert(
                        name.clone(),
                        FileState {
                            done,
                            complete: false,
                        },
                    );
                    self.save_state(&state)?;
                }
                if counts.read % 5_000 == 0 {
                    progress(&counts, path);
                }
                Ok(())
            })?;
            writer.commit().map_err(|e| index_error(&self.dir, e))?;
            pending = 0;
            state.files.insert(
                name,
                FileState {
                    done,
                    complete: true,
                },
            );
            self.save_state(&state)?;
            counts.files += 1;
            progress(&counts, path);
        }
        writer
            .wait_merging_threads()
            .map_err(|e| index_error(&self.dir, e))?;
        self.reader
            .reload()
            .map_err(|e| index_error(&self.dir, e))?;
        Ok(counts)
    }

    /// Size and content of the index.
    pub fn stats(&self) -> crate::Result<IndexStats> {
        let searcher = self.reader.searcher();
        let bytes = std::fs::read_dir(&self.dir)
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok()?.metadata().ok())
                    .filter(|m| m.is_file())
                    .map(|m| m.len())
                    .sum()
            })
            .unwrap_or(0);
        let state = self.load_state();
        Ok(IndexStats {
            records: searcher.num_docs(),
            segments: searcher.segment_readers().len(),
            bytes,
            files_known: state.files.len(),
            files_complete: state.files.values().filter(|f| f.complete).count(),
        })
    }

    fn record_at(&self, searcher: &Searcher, addr: DocAddress) -> crate::Result<Record> {
        let doc: TantivyDocument = searcher.doc(addr).map_err(|e| index_error(&self.dir, e))?;
        let json = doc
            .get_first(self.fields.record)
            .and_then(|v| v.as_str())
            .unwrap_or("{}");
        serde_json::from_str(json).map_err(|e| index_error(&self.dir, e))
    }

    /// The record of a DOI (already normalised, see [`crate::doi::normalize`]).
    pub fn get_doi(&self, doi: &str) -> crate::Result<Option<Record>> {
        let searcher = self.reader.searcher();
        let q = TermQuery::new(
            Term::from_field_text(self.fields.doi, doi),
            IndexRecordOption::Basic,
        );
        let hits = searcher
            .search(&q, &TopDocs::with_limit(1))
            .map_err(|e| index_error(&self.dir, e))?;
        hits.first()
            .map(|(_, addr)| self.record_at(&searcher, *addr))
            .transpose()
    }

    /// Up to `limit` candidate records for `e`. First the records whose title is exactly the
    /// extracted one (normalised) by the same first author: when the matching rules accept one
    /// of them, those are the candidates (two term lookups instead of a ranked search). Otherwise, best first by the
    /// index's own ranking: the rarest words of the title (common words left out), the first
    /// author's surname, container words, year, volume and first page, each clause optional.
    pub fn search(&self, e: &Extracted, limit: usize) -> crate::Result<Vec<Record>> {
        let f = self.fields;
        let searcher = self.reader.searcher();
        // The surname's longest word: with the exact title, it keeps namesakes by other
        // authors out of the fast path.
        let surname = e.first_author.as_deref().and_then(|a| {
            words(a)
                .into_iter()
                .filter(|w| w.len() > 1)
                .max_by_key(|w| w.len())
        });
        if let (Some(t), Some(surname)) = (e.title.as_deref(), surname) {
            let term = |field: Field, text: &str| -> Box<dyn Query> {
                Box::new(TermQuery::new(
                    Term::from_field_text(field, text),
                    IndexRecordOption::Basic,
                ))
            };
            let q = BooleanQuery::new(vec![
                (Occur::Must, term(f.title_key, &title_key(t))),
                (Occur::Must, term(f.first_author, &surname)),
            ]);
            let exact = searcher
                .search(&q, &TopDocs::with_limit(limit))
                .map_err(|e| index_error(&self.dir, e))?
                .into_iter()
                .map(|(_, a)| self.record_at(&searcher, a))
                .collect::<crate::Result<Vec<Record>>>()?;
            if super::matching::best(e, exact.clone()).is_some() {
                return Ok(exact);
            }
        }
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        let mut push = |field: Field, word: &str, boost: f32| {
            let q: Box<dyn Query> = Box::new(TermQuery::new(
                Term::from_field_text(field, word),
                IndexRecordOption::WithFreqs,
            ));
            clauses.push((Occur::Should, Box::new(BoostQuery::new(q, boost))));
        };
        let mut seen = std::collections::HashSet::new();
        if let Some(t) = &e.title {
            // The rarest words of the title say the most and cost the least to search.
            let mut title: Vec<(u64, String)> = words(t)
                .into_iter()
                .filter(|w| w.len() > 1 && !STOPWORDS.contains(&w.as_str()))
                .filter(|w| seen.insert(w.clone()))
                .map(|w| {
                    let df = searcher
                        .doc_freq(&Term::from_field_text(f.title, &w))
                        .unwrap_or(u64::MAX);
                    (df, w)
                })
                .filter(|(df, _)| *df > 0)
                .collect();
            title.sort();
            for (_, w) in title.iter().take(TITLE_WORDS) {
                push(f.title, w, 1.0);
            }
        }
        if let Some(a) = &e.first_author {
            for w in words(a).into_iter().filter(|w| w.len() > 1) {
                push(f.first_author, &w, 2.0);
            }
        }
        if let Some(c) = &e.container {
            let mut seen = std::collections::HashSet::new();
            for w in words(c)
                .into_iter()
                .filter(|w| w.len() > 2 && !STOPWORDS.contains(&w.as_str()))
                .filter(|w| seen.insert(w.clone()))
                .take(8)
            {
                push(f.container, &w, 0.3);
            }
        }
        if let Some(y) = e.year {
            push(f.year, &y.to_string(), 1.0);
        }
        if let Some(v) = &e.volume {
            push(f.volume, &key(v), 1.0);
        }
        if let Some(p) = &e.first_page {
            push(f.page, &key(p), 1.5);
        }
        if clauses.is_empty() {
            return Ok(Vec::new());
        }
        let q = BooleanQuery::new(clauses);
        let hits = searcher
            .search(&q, &TopDocs::with_limit(limit))
            .map_err(|e| index_error(&self.dir, e))?;
        hits.into_iter()
            .map(|(_, a)| self.record_at(&searcher, a))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    fn work(doi: &str, title: &str, family: &str, year: i32, page: &str) -> String {
        serde_json::json!({
            "DOI": doi, "title": [title], "type": "journal-article",
            "author": [{"given": "A.", "family": family}],
            "container-title": ["Journal of Test Biology"], "volume": "3", "page": page,
            "issued": {"date-parts": [[year]]}
        })
        .to_string()
    }

    fn temp_dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("quire-biblio-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("dir");
        d
    }

    #[test]
    fn both_shapes_gzip_and_malformed_lines_import_and_resume() {
        let dir = temp_dir("import");
        let jsonl = dir.join("works.jsonl");
        std::fs::write(
            &jsonl,
            [
                work(
                    "10.1000/one",
                    "Ribosome folding in vivo",
                    "Smith",
                    2001,
                    "10-20",
                ),
                "{not json".to_string(),
                r#"{"title": ["no doi here"]}"#.to_string(),
                String::new(),
                work(
                    "10.1000/two",
                    "Graph colouring heuristics",
                    "Wang",
                    2015,
                    "5",
                ),
            ]
            .join("\n"),
        )
        .expect("write");
        let items = format!(
            "{{\"items\": [{}, {}, [1]]}}",
            work("10.1000/three", "Deep sea vents", "Okafor", 1999, "7"),
            work(
                "10.1000/ONE",
                "Ribosome folding in vivo",
                "Smith",
                2001,
                "10-20"
            ),
        );
        let gz = dir.join("part.json.gz");
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(items.as_bytes()).expect("gz");
        std::fs::write(&gz, enc.finish().expect("gz")).expect("write");

        let index_dir = dir.join("index");
        let index = BiblioIndex::open_or_create(&index_dir).expect("index");
        let mut calls = 0;
        let counts = index
            .import(&[jsonl.clone(), gz.clone()], |_, _| calls += 1)
            .expect("import");
        assert!(calls >= 2);
        assert_eq!(counts.read, 7);
        assert_eq!(counts.indexed, 4);
        assert_eq!(counts.rejected.get("invalid-json"), Some(&1));
        assert_eq!(counts.rejected.get("no-doi"), Some(&1));
        assert_eq!(counts.rejected.get("not-an-object"), Some(&1));
        assert_eq!(counts.files, 2);
        // 10.1/one came twice: the DOI is one record.
        let stats = index.stats().expect("stats");
        assert_eq!(stats.records, 3);
        assert_eq!((stats.files_known, stats.files_complete), (2, 2));
        assert!(stats.bytes > 0);

        let one = index
            .get_doi("10.1000/one")
            .expect("lookup")
            .expect("found");
        assert_eq!(one.title.as_deref(), Some("Ribosome folding in vivo"));
        assert_eq!(index.get_doi("10.1000/none").expect("lookup"), None);

        let e = Extracted {
            title: Some("Graph coloring heuristics".into()),
            first_author: Some("Wang".into()),
            year: Some(2015),
            ..Extracted::default()
        };
        let found = index.search(&e, 3).expect("search");
        assert_eq!(found.first().map(|r| r.doi.as_str()), Some("10.1000/two"));

        // A second run over the same files reads nothing again.
        let again = index.import(&[jsonl, gz], |_, _| ()).expect("resume");
        assert_eq!((again.read, again.skipped, again.indexed), (0, 7, 0));
        drop(index);
        // Reopened from disk, the records are there.
        let reopened = BiblioIndex::open(&index_dir).expect("open");
        assert_eq!(reopened.stats().expect("stats").records, 3);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_partly_imported_file_resumes_after_its_committed_records() {
        let dir = temp_dir("resume");
        let jsonl = dir.join("w.jsonl");
        let lines: Vec<String> = (0..5)
            .map(|i| {
                work(
                    &format!("10.1000/r{i}"),
                    &format!("Title number {i}"),
                    "Lee",
                    2000,
                    "1",
                )
            })
            .collect();
        std::fs::write(&jsonl, lines.join("\n")).expect("write");
        let index = BiblioIndex::open_or_create(&dir.join("index")).expect("index");
        // As if an earlier run had committed the first three records, then stopped.
        let name = std::fs::canonicalize(&jsonl)
            .expect("path")
            .display()
            .to_string();
        let mut state = ImportState::default();
        state.files.insert(
            name,
            FileState {
                done: 3,
                complete: false,
            },
        );
        index.save_state(&state).expect("state");
        let counts = index.import(&[jsonl], |_, _| ()).expect("import");
        assert_eq!((counts.skipped, counts.read, counts.indexed), (3, 2, 2));
        assert!(index.get_doi("10.1000/r4").expect("lookup").is_some());
        assert!(index.get_doi("10.1000/r0").expect("lookup").is_none());
        std::fs::remove_dir_all(&dir).ok();
    }
}
