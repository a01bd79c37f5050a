/*!
Readers for the text-only training corpora (date, name, affiliation-address, citation), with
quick-xml. One generic reader walks a TEI file, cuts it into sequences at the elements a
model's [`Rules`] name, and labels every token with the innermost field element around it
(GROBID's `I-<label>` on the first token of each field; `<other>` for untagged text).
`<lb/>` becomes a line break before the next token. Malformed XML is an error naming the file.
*/

pub mod create;
pub mod layout;
pub mod lexicons;
pub mod rules;
pub mod words;

use std::path::{Path, PathBuf};

use quick_xml::events::Event;
use quick_xml::Reader;

use crate::features::Tok;
use crate::{tokenizer, Error, Result};

/// Which part of a model's dataset folder to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// `<dataset>/<model>/corpus`: the training data.
    Corpus,
    /// `<dataset>/<model>/evaluation`: GROBID's held-out evaluation data.
    Evaluation,
}

/// What reading a corpus produced, besides the sequences.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ReadStats {
    pub files_read: usize,
    /// Files skipped, each with the reason (missing raw file, no alignment, …).
    pub files_dropped: Vec<(PathBuf, String)>,
    pub sequences: usize,
    /// Tokens (text models) or feature rows (layout models) in the sequences.
    pub tokens: usize,
    /// Layout models: raw feature rows that found no TEI token within GROBID's window (dropped,
    /// or given the previous row's label where GROBID's trainer does so); 0 for text models.
    pub unaligned: usize,
}

/// The label of untagged text.
pub const OTHER: &str = "<other>";

/// One labelled field of a sequence: its label, its text and its `key` attribute, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub label: &'static str,
    pub text: String,
    pub key: Option<String>,
}

/// One training sequence as read from TEI: tokens, labels (`I-` on field starts), and the
/// fields' texts (used to build lexicons).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Labelled {
    pub toks: Vec<Tok>,
    pub labels: Vec<String>,
    pub fields: Vec<Field>,
}

/// A corpus file read into sequences.
#[derive(Debug, Clone)]
pub struct FileSeqs {
    pub path: PathBuf,
    pub seqs: Vec<Labelled>,
}

/// What a model's corpus looks like.
pub trait Rules {
    /// Lower-cased local element name that starts (and ends) one sequence.
    fn is_sequence(&self, name: &str) -> bool;
    /// The label of a field element (`name` lower-cased, attributes as read), or `None`
    /// when the element labels nothing (its text takes the enclosing label).
    fn label(&self, name: &str, attrs: &[(String, String)]) -> Option<&'static str>;
    /// Whether tokens get the letter/digit split (the citation model).
    fn split_digits(&self) -> bool {
        false
    }
}

struct Open {
    label: Option<&'static str>,
    key: Option<String>,
    span: usize,
    text: String,
}

struct SeqBuilder {
    seq: Labelled,
    newline: bool,
    /// Whitespace (or a line break) since the last token; true at the sequence's start.
    space: bool,
    last_span: Option<usize>,
    other_span: usize,
}

fn local_lower(name: &str) -> String {
    let local = name.rsplit(':').next().unwrap_or(name);
    local.to_ascii_lowercase()
}

fn attributes(e: &quick_xml::events::BytesStart<'_>) -> Vec<(String, String)> {
    e.attributes()
        .flatten()
        .map(|a| {
            let k = local_lower(a.key.as_ref());
            let v = a
                .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map(|v| v.into_owned())
                .unwrap_or_default();
            (k, v)
        })
        .collect()
}

impl SeqBuilder {
    fn new(span: usize) -> SeqBuilder {
        SeqBuilder {
            seq: Labelled::default(),
            newline: false,
            space: true,
            last_span: None,
            other_span: span,
        }
    }

    fn push_text(&mut self, text: &str, stack: &mut [Open], split_digits: bool) {
        if let Some(open) = stack.iter_mut().rev().find(|o| o.label.is_some()) {
            open.text.push_str(text);
        }
        let (label, span) = match stack.iter().rev().find(|o| o.label.is_some()) {
            Some(o) => (o.label.unwrap_or(OTHER), o.span),
            None => (OTHER, self.other_span),
        };
        let norm = tokenizer::normalise(text);
        for t in tokenizer::tokenize(&norm) {
            if t == "\n" || t.chars().all(char::is_whitespace) {
                self.space = true;
                continue;
            }
            let pieces = if split_digits {
                tokenizer::split_letter_digit(t)
            } else {
                vec![t]
            };
            for p in pieces {
                let begin = self.last_span != Some(span);
                self.last_span = Some(span);
                self.seq.toks.push(Tok {
                    text: p.to_string(),
                    newline_before: std::mem::take(&mut self.newline),
                    space_before: std::mem::take(&mut self.space),
                });
                self.seq.labels.push(if begin {
                    format!("I-{label}")
                } else {
                    label.to_string()
                });
            }
        }
    }
}

/// Read one TEI document (already in memory) into sequences. `path` names it in errors.
pub fn read_str(path: &Path, xml: &str, rules: &dyn Rules) -> Result<Vec<Labelled>> {
    let err = |reason: String| Error::Corpus {
        path: path.to_path_buf(),
        reason,
    };
    let mut reader = Reader::from_str(xml);
    let mut out = Vec::new();
    let mut names: Vec<String> = Vec::new();
    let mut stack: Vec<Open> = Vec::new();
    let mut cur: Option<SeqBuilder> = None;
    let mut seq_depth = 0usize;
    let mut span_counter = 0usize;
    let split = rules.split_digits();
    loop {
        let pos = reader.buffer_position();
        let ev = reader
            .read_event()
            .map_err(|e| err(format!("malformed XML at byte {pos}: {e}")))?;
        match ev {
            Event::Start(e) => {
                let name = local_lower(e.name().as_ref());
                names.push(name.clone());
                if cur.is_none() && rules.is_sequence(&name) {
                    span_counter += 1;
                    cur = Some(SeqBuilder::new(span_counter));
                    seq_depth = names.len();
                    continue;
                }
                if let Some(b) = cur.as_mut() {
                    let attrs = attributes(&e);
                    let label = rules.label(&name, &attrs);
                    span_counter += 1;
                    stack.push(Open {
                        label,
                        key: attrs
                            .iter()
                            .find(|(k, _)| k == "key")
                            .map(|(_, v)| v.clone()),
                        span: span_counter,
                        text: String::new(),
                    });
                    let _ = b;
                }
            }
            Event::Empty(e) => {
                let name = local_lower(e.name().as_ref());
                if let Some(b) = cur.as_mut() {
                    if name == "lb" || name == "pb" {
                        b.newline = true;
                        b.space = true;
                        if let Some(open) = stack.iter_mut().rev().find(|o| o.label.is_some()) {
                            open.text.push(' ');
                        }
                    }
                }
            }
            Event::End(_) => {
                let depth = names.len();
                names.pop();
                if cur.is_some() && depth == seq_depth {
                    if let Some(b) = cur.take() {
                        if !b.seq.toks.is_empty() {
                            out.push(b.seq);
                        }
                    }
                    stack.clear();
                    continue;
                }
                if let Some(b) = cur.as_mut() {
                    if let Some(open) = stack.pop() {
                        if let Some(label) = open.label {
                            let text = open.text.split_whitespace().collect::<Vec<_>>().join(" ");
                            if !text.is_empty() {
                                b.seq.fields.push(Field {
                                    label,
                                    text,
                                    key: open.key,
                                });
                            }
                            // Text after a field is a new `<other>` run (or a new run of the
                            // enclosing field).
                            span_counter += 1;
                            b.other_span = span_counter;
                            if let Some(parent) = stack.iter_mut().rev().find(|o| o.label.is_some())
                            {
                                parent.span = span_counter;
                            }
                        }
                    }
                }
            }
            Event::Text(t) => {
                if let Some(b) = cur.as_mut() {
                    let text = t.xml10_content();
                    b.push_text(&text, &mut stack, split);
                }
            }
            Event::CData(t) => {
                if let Some(b) = cur.as_mut() {
                    let text: String = t.as_ref().to_string();
                    b.push_text(&text, &mut stack, split);
                }
            }
            Event::GeneralRef(r) => {
                if let Some(b) = cur.as_mut() {
                    let resolved = if r.is_char_ref() {
                        r.resolve_char_ref()
                            .map_err(|e| err(format!("bad character reference: {e}")))?
                            .map(String::from)
                    } else {
                        let name = r.xml10_content();
                        quick_xml::escape::resolve_predefined_entity(&name).map(str::to_string)
                    };
                    let Some(text) = resolved else {
                        return Err(err(format!(
                            "unknown entity `&{};` at byte {pos}",
                            r.xml10_content()
                        )));
                    };
                    b.push_text(&text, &mut stack, split);
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if let Some(open) = names.last() {
        return Err(err(format!(
            "unexpected end of file: element <{open}> is not closed"
        )));
    }
    Ok(out)
}

/// Read one file.
pub fn read_file(path: &Path, rules: &dyn Rules) -> Result<Vec<Labelled>> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let text = String::from_utf8(bytes).map_err(|e| Error::Corpus {
        path: path.to_path_buf(),
        reason: format!("not UTF-8: {e}"),
    })?;
    read_str(path, &text, rules)
}

/// Read every `.xml` file of a folder (sorted by name). Unreadable or malformed files are
/// dropped with their reason in the stats, as are files named `*.exclude`.
pub fn read_dir(dir: &Path, rules: &dyn Rules) -> Result<(Vec<FileSeqs>, ReadStats)> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    let mut stats = ReadStats::default();
    let mut files = Vec::new();
    for path in paths {
        if !path.is_file() {
            continue;
        }
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name.ends_with(".exclude") {
            stats
                .files_dropped
                .push((path.clone(), "excluded by its `.exclude` suffix".into()));
            continue;
        }
        if !name.ends_with(".xml") {
            continue;
        }
        match read_file(&path, rules) {
            Ok(seqs) => {
                stats.files_read += 1;
                stats.sequences += seqs.len();
                stats.tokens += seqs.iter().map(|s| s.toks.len()).sum::<usize>();
                files.push(FileSeqs { path, seqs });
            }
            Err(e) => stats.files_dropped.push((path, e.to_string())),
        }
    }
    if files.is_empty() {
        return Err(Error::Corpus {
            path: dir.to_path_buf(),
            reason: "no readable corpus file in this folder (is the dataset unpacked?)".into(),
        });
    }
    Ok((files, stats))
}

#[cfg(test)]
mod tests {
    use super::*;

    struct DateRules;
    impl Rules for DateRules {
        fn is_sequence(&self, name: &str) -> bool {
            name == "date"
        }
        fn label(&self, name: &str, _: &[(String, String)]) -> Option<&'static str> {
            match name {
                "year" => Some("<year>"),
                "month" => Some("<month>"),
                "day" => Some("<day>"),
                _ => None,
            }
        }
    }

    fn pairs(l: &Labelled) -> Vec<(String, String)> {
        l.toks
            .iter()
            .zip(&l.labels)
            .map(|(t, l)| (t.text.clone(), l.clone()))
            .collect()
    }

    #[test]
    fn labels_fields_and_other_text() {
        let xml = r#"<dates><date>Received <day>17</day>-<day>21</day> <month>June</month>, <year>2007</year><lb/></date>
            <date><year>1999</year> &amp; <year>2000</year></date></dates>"#;
        let seqs = read_str(Path::new("t.xml"), xml, &DateRules).unwrap();
        assert_eq!(seqs.len(), 2);
        let p = pairs(&seqs[0]);
        let expect = [
            ("Received", "I-<other>"),
            ("17", "I-<day>"),
            ("-", "I-<other>"),
            ("21", "I-<day>"),
            ("June", "I-<month>"),
            (",", "I-<other>"),
            ("2007", "I-<year>"),
        ];
        let expect: Vec<(String, String)> = expect
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        assert_eq!(p, expect);
        assert_eq!(seqs[0].fields.len(), 4);
        assert_eq!(seqs[0].fields[2].text, "June");
        let p = pairs(&seqs[1]);
        assert_eq!(p[1], ("&".to_string(), "I-<other>".to_string()));
        assert_eq!(p[2], ("2000".to_string(), "I-<year>".to_string()));
    }

    #[test]
    fn line_breaks_become_newline_flags() {
        let xml = "<d><date><month>June</month><lb/><year>2007</year></date></d>";
        let seqs = read_str(Path::new("t.xml"), xml, &DateRules).unwrap();
        assert!(!seqs[0].toks[0].newline_before);
        assert!(seqs[0].toks[1].newline_before);
    }

    #[test]
    fn malformed_tei_names_the_file() {
        let bad = "<dates><date><year>1999</month></date></dates>";
        let e = read_str(Path::new("corpus/bad.date.xml"), bad, &DateRules).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("corpus/bad.date.xml"), "{msg}");
        assert!(msg.contains("malformed XML"), "{msg}");
        let unclosed = "<dates><date><year>1999</year>";
        let msg = read_str(Path::new("u.xml"), unclosed, &DateRules)
            .unwrap_err()
            .to_string();
        assert!(msg.contains("u.xml") && msg.contains("not closed"), "{msg}");
        let entity = "<dates><date>&nbsp;<year>1999</year></date></dates>";
        let msg = read_str(Path::new("e.xml"), entity, &DateRules)
            .unwrap_err()
            .to_string();
        assert!(msg.contains("unknown entity"), "{msg}");
    }

    #[test]
    fn read_dir_counts_and_drops() {
        let dir = std::env::temp_dir().join(format!("quire-corpus-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.xml"), "<d><date><year>1999</year></date></d>").unwrap();
        std::fs::write(dir.join("b.xml"), "<d><date><year>1999</date></d>").unwrap();
        std::fs::write(dir.join("c.xml.exclude"), "<d/>").unwrap();
        let (files, stats) = read_dir(&dir, &DateRules).unwrap();
        assert_eq!(files.len(), 1);
        assert_eq!(stats.files_read, 1);
        assert_eq!(stats.files_dropped.len(), 2);
        assert_eq!(stats.sequences, 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
