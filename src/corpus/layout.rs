/*!
Reading GROBID's layout-model corpora (segmentation, header): the `raw/` feature files GROBID
printed for each PDF and the `tei/` annotations of the same PDF, and aligning the two as
GROBID's trainers do (reference grobid-models.md §5.2).

- [`read_raw_rows`] reads a raw file into rows of space-separated columns.
- [`walk_tei`] turns a TEI annotation file into a flat list of [`TeiEvent`]s (element starts and
  ends with their attributes, text, `<lb/>` and `<pb/>`), so each model's reader can keep its
  own label mapping in a few lines.
- [`align`] matches raw rows to TEI tokens by their first column, searching forward over a
  window of TEI entries, never going back.
- [`pair_files`] pairs TEI files with raw files by name and reports the TEI files left alone.
- [`read_pairs`] runs one model's pair reader over a corpus folder and gathers the
  [`ReadStats`] (files used and dropped with their reasons, sequences, rows, unaligned rows).
*/

use std::path::{Path, PathBuf};

use quick_xml::events::Event;
use quick_xml::Reader;

use crate::corpus::{Part, ReadStats};
use crate::crf::Sequence;
use crate::{Error, Result};

/// Rows of a raw feature file: one per non-empty line, columns split on single spaces.
pub fn read_raw_rows(path: &Path) -> Result<Vec<Vec<String>>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    Ok(parse_raw_rows(&text))
}

/// [`read_raw_rows`] on text already in memory.
pub fn parse_raw_rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            l.split([' ', '\t'])
                .filter(|c| !c.is_empty())
                .map(str::to_string)
                .collect()
        })
        .collect()
}

/// One event of a TEI annotation file.
#[derive(Debug, Clone, PartialEq)]
pub enum TeiEvent {
    /// An element opens: name and attributes (`(key, value)`, values unescaped).
    Start(String, Vec<(String, String)>),
    End(String),
    Text(String),
    /// `<lb/>`: a line break of the PDF.
    LineBreak,
    /// `<pb/>`: a page break.
    PageBreak,
}

/// Parse a TEI annotation file into events. Malformed XML is a corpus error naming the file.
pub fn walk_tei(path: &Path) -> Result<Vec<TeiEvent>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    parse_tei(&text).map_err(|reason| Error::Corpus {
        path: path.to_path_buf(),
        reason,
    })
}

/// [`walk_tei`] on text already in memory.
pub fn parse_tei(text: &str) -> std::result::Result<Vec<TeiEvent>, String> {
    let mut reader = Reader::from_str(text);
    reader.config_mut().check_end_names = false;
    let mut out = Vec::new();
    loop {
        let ev = reader
            .read_event()
            .map_err(|e| format!("XML error at byte {}: {e}", reader.buffer_position()))?;
        match ev {
            Event::Start(e) => {
                let name = e.name().as_ref().to_string();
                let attrs = e
                    .attributes()
                    .flatten()
                    .map(|a| {
                        let v = a
                            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                            .map(|v| v.into_owned())
                            .unwrap_or_default();
                        (a.key.as_ref().to_string(), v)
                    })
                    .collect();
                out.push(TeiEvent::Start(name, attrs));
            }
            Event::Empty(e) => match e.name().as_ref() {
                "lb" => out.push(TeiEvent::LineBreak),
                "pb" => out.push(TeiEvent::PageBreak),
                other => {
                    let attrs = e
                        .attributes()
                        .flatten()
                        .map(|a| {
                            let v = a
                                .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                                .map(|v| v.into_owned())
                                .unwrap_or_default();
                            (a.key.as_ref().to_string(), v)
                        })
                        .collect();
                    out.push(TeiEvent::Start(other.to_string(), attrs));
                    out.push(TeiEvent::End(other.to_string()));
                }
            },
            Event::End(e) => out.push(TeiEvent::End(e.name().as_ref().to_string())),
            Event::Text(t) => push_text(&mut out, &t.xml10_content()),
            Event::CData(t) => push_text(&mut out, &t.xml10_content()),
            Event::GeneralRef(r) => {
                let s = if let Ok(Some(c)) = r.resolve_char_ref() {
                    c.to_string()
                } else {
                    let name: &str = &r;
                    quick_xml::escape::resolve_predefined_entity(name)
                        .unwrap_or("")
                        .to_string()
                };
                push_text(&mut out, &s);
            }
            Event::Eof => break,
            _ => {}
        }
    }
    Ok(out)
}

fn push_text(out: &mut Vec<TeiEvent>, s: &str) {
    if let Some(TeiEvent::Text(prev)) = out.last_mut() {
        prev.push_str(s);
    } else {
        out.push(TeiEvent::Text(s.to_string()));
    }
}

/// The attribute `key` of a start event.
pub fn attr<'a>(attrs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    attrs
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// Normalise a token for alignment: GROBID's Unicode normalisation, then no spaces.
pub fn align_key(s: &str) -> String {
    crate::tokenizer::normalise(s)
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect()
}

/// How unmatched raw rows are treated by [`align`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unmatched {
    /// Segmentation: an unmatched row takes the previous row's label (if any).
    PreviousLabel,
    /// Header: an unmatched row stays unlabelled (`None`).
    Leave,
}

/// Result of aligning one file.
#[derive(Debug, Clone, PartialEq)]
pub struct Alignment {
    /// Per raw row: the label it received, if any.
    pub labels: Vec<Option<String>>,
    /// Per raw row: the index of the TEI entry it matched (`None` when unmatched).
    pub positions: Vec<Option<usize>>,
    pub matched: usize,
    /// Consecutive failures at the end of the file (GROBID drops a file when this is ≥ 10).
    pub trailing_failures: usize,
    /// Reading stopped after more than 20 consecutive failures: rows past `labels.len()` unused.
    pub truncated: bool,
}

/// Align raw rows (first column) with TEI `(token, label)` entries, GROBID's way: for each raw
/// row search the TEI entries `q .. q+window` (q = just after the last match) for an equal
/// normalised token; the TEI side never goes back. Reading stops after more than 20
/// consecutive failures (GROBID's segmentation and fulltext trainers).
pub fn align(
    raw_first: &[String],
    tei: &[(String, String)],
    window: usize,
    unmatched: Unmatched,
) -> Alignment {
    align_with(raw_first, tei, window, unmatched, Some(20))
}

/// [`align`] with the stopping rule given: `stop_after: Some(n)` stops reading after more than
/// `n` consecutive failures; `None` reads every row (GROBID's reference-segmenter, figure and
/// table trainers). TEI entries whose token is empty or `@newline` (line breaks and sequence
/// ends kept in the list so that they take room in the window, as GROBID's lists do) never
/// match a raw row.
pub fn align_with(
    raw_first: &[String],
    tei: &[(String, String)],
    window: usize,
    unmatched: Unmatched,
    stop_after: Option<usize>,
) -> Alignment {
    let tei_keys: Vec<String> = tei.iter().map(|(t, _)| align_key(t)).collect();
    let mut q = 0usize;
    let mut labels = Vec::with_capacity(raw_first.len());
    let mut positions = Vec::with_capacity(raw_first.len());
    let mut matched = 0;
    let mut failures = 0;
    let mut prev: Option<String> = None;
    let mut truncated = false;
    for raw in raw_first {
        let key = align_key(raw);
        let hit =
            (q..(q + window).min(tei.len())).find(|&p| tei_keys[p] == key && !is_marker(&tei[p].0));
        positions.push(hit);
        match hit {
            Some(p) => {
                let label = tei[p].1.clone();
                labels.push(Some(label.clone()));
                prev = Some(label);
                q = p + 1;
                matched += 1;
                failures = 0;
            }
            None => {
                failures += 1;
                labels.push(match unmatched {
                    Unmatched::PreviousLabel => prev.clone(),
                    Unmatched::Leave => None,
                });
                if stop_after.is_some_and(|n| failures > n) {
                    truncated = true;
                    break;
                }
            }
        }
    }
    Alignment {
        labels,
        positions,
        matched,
        trailing_failures: failures,
        truncated,
    }
}

/// The TEI entry of a line break in the lists of [`align_with`]: it takes room in the window
/// and matches nothing.
pub const NEWLINE: &str = "@newline";

/// Whether a TEI entry is a marker (line break, sequence end) rather than a token.
pub fn is_marker(token: &str) -> bool {
    token.is_empty() || token == NEWLINE
}

/// The facts and labels of the raw rows an alignment labelled (`labels[i]` belongs to row `i`;
/// an unlabelled row is left out, and so are rows past `labels`): `Err` with GROBID's reason
/// when a labelled row is not a `model` row (`from_raw` refuses it), or when no row was
/// labelled (`no {unit} could be aligned`).
pub fn labelled_facts<F>(
    raw_rows: &[Vec<String>],
    labels: &[Option<String>],
    from_raw: impl Fn(&[String]) -> Option<F>,
    model: &str,
    unit: &str,
) -> std::result::Result<(Vec<F>, Vec<String>), String> {
    let mut facts = Vec::new();
    let mut out = Vec::new();
    for (i, (row, label)) in raw_rows.iter().zip(labels).enumerate() {
        let Some(label) = label else { continue };
        let Some(f) = from_raw(row) else {
            return Err(format!("raw row {} is not a {model} row", i + 1));
        };
        facts.push(f);
        out.push(label.clone());
    }
    if facts.is_empty() {
        return Err(format!("no {unit} could be aligned"));
    }
    Ok((facts, out))
}

/// What one model's pair reader made of one TEI + raw pair.
#[derive(Debug, Clone, Default)]
pub struct PairRead {
    pub seqs: Vec<Sequence>,
    /// Raw rows that found no TEI token (dropped, or given the previous label, as the model's
    /// GROBID trainer does).
    pub unaligned: usize,
}

impl PairRead {
    /// Map every label (a flavour's reduced label set), keeping GROBID's `I-` prefix.
    pub fn relabel(&mut self, map: impl Fn(&str) -> &str) {
        for l in self.seqs.iter_mut().flat_map(|s| s.labels.iter_mut()) {
            *l = relabel(l, &map);
        }
    }
}

/// `label` with its plain part mapped by `map` and its `I-` prefix kept.
pub fn relabel(label: &str, map: impl Fn(&str) -> &str) -> String {
    match label.strip_prefix("I-") {
        Some(plain) => format!("I-{}", map(plain)),
        None => map(label).to_string(),
    }
}

/// Read every TEI + raw pair of `<dataset>/<sub>/{corpus,evaluation}` with `read_pair`
/// (`Ok(Err(reason))`: GROBID would leave the file out; `Err`: the file cannot be read, e.g.
/// malformed XML, an error naming the file). Both kinds of failure drop the file with its
/// reason in the stats; only a missing folder is an error.
pub fn read_pairs(
    dataset: &Path,
    sub: &str,
    part: Part,
    suffix: &str,
    read_pair: &dyn Fn(&FilePair) -> Result<std::result::Result<PairRead, String>>,
) -> Result<(Vec<Sequence>, ReadStats)> {
    let dir = dataset.join(sub).join(match part {
        Part::Corpus => "corpus",
        Part::Evaluation => "evaluation",
    });
    let (pairs, dropped) = pair_files(&dir, suffix)?;
    let mut stats = ReadStats {
        files_dropped: dropped,
        ..Default::default()
    };
    let mut seqs = Vec::new();
    for p in pairs {
        match read_pair(&p) {
            Ok(Ok(r)) => {
                stats.files_read += 1;
                stats.unaligned += r.unaligned;
                for s in r.seqs {
                    if !s.rows.is_empty() {
                        stats.tokens += s.rows.len();
                        seqs.push(s);
                    }
                }
            }
            Ok(Err(reason)) => stats.files_dropped.push((p.tei, reason)),
            Err(e) => stats.files_dropped.push((p.tei, e.to_string())),
        }
    }
    stats.sequences = seqs.len();
    Ok((seqs, stats))
}

/// [`read_pairs`] for a model with an `article/light` flavour: the pairs of
/// `<dataset>/<model>[/<flavor>]`, with every label mapped by `light_plain` for that flavour.
pub fn read_flavoured_pairs(
    dataset: &Path,
    model: &str,
    flavor: Option<crate::flavor::Flavor>,
    part: Part,
    light_plain: fn(&str) -> &str,
    read_pair: &dyn Fn(&FilePair) -> Result<std::result::Result<PairRead, String>>,
) -> Result<(Vec<Sequence>, ReadStats)> {
    let sub = match flavor {
        Some(f) => format!("{model}/{}", f.as_str()),
        None => model.to_string(),
    };
    let light = flavor == Some(crate::flavor::Flavor::ArticleLight);
    read_pairs(dataset, &sub, part, model, &|p: &FilePair| {
        let mut r = read_pair(p)?;
        if let (true, Ok(r)) = (light, r.as_mut()) {
            r.relabel(light_plain);
        }
        Ok(r)
    })
}

/// Check that every raw row has at least `min_columns` columns; the reason names the row.
pub fn check_columns(rows: &[Vec<String>], min_columns: usize) -> std::result::Result<(), String> {
    match rows.iter().position(|r| r.len() < min_columns) {
        Some(i) => Err(format!(
            "raw row {} has {} columns, expected at least {min_columns}",
            i + 1,
            rows[i].len()
        )),
        None => Ok(()),
    }
}

/// Tokenise annotated text as GROBID's layout-model TEI readers do (the delimiter tokenizer
/// after Unicode normalisation, whitespace dropped) and append `(token, label)` entries, the
/// first with `I-`. Returns whether anything was written.
pub fn push_tokens(out: &mut Vec<(String, String)>, text: &str, label: &str) -> bool {
    let norm = crate::tokenizer::normalise(text);
    let mut begin = true;
    for tok in crate::tokenizer::tokenize(&norm) {
        let tok = tok.trim();
        if tok.is_empty() {
            continue;
        }
        let l = if begin {
            format!("I-{label}")
        } else {
            label.to_string()
        };
        out.push((tok.to_string(), l));
        begin = false;
    }
    !begin
}

/// Append the entries of one text chunk whose pieces are text (`Some`) and line breaks
/// (`None`, a [`NEWLINE`] entry): the first token of the chunk gets `I-`, wherever the line
/// breaks fall.
pub fn push_chunk(out: &mut Vec<(String, String)>, pieces: &[Option<String>], label: &str) {
    let mut begun = false;
    for piece in pieces {
        match piece {
            None => out.push((NEWLINE.to_string(), String::new())),
            Some(t) if begun => {
                let norm = crate::tokenizer::normalise(t);
                for tok in crate::tokenizer::tokenize(&norm) {
                    let tok = tok.trim();
                    if !tok.is_empty() {
                        out.push((tok.to_string(), label.to_string()));
                    }
                }
            }
            Some(t) => begun = push_tokens(out, t, label),
        }
    }
}

/// A file left out of training, with the reason.
pub type Dropped = (PathBuf, String);

/// A TEI file and the raw feature file it annotates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePair {
    pub tei: PathBuf,
    pub raw: PathBuf,
}

/// Pair `<part>/tei/*.tei.xml` with `<part>/raw/*`: by base name (the TEI name without
/// `.tei.xml` and without the model suffix), else by the document id recorded in the TEI
/// (`fileDesc xml:id`, leading `_` removed) as a prefix of a raw name. Returns the pairs and
/// the TEI files without a raw file, each with the reason.
pub fn pair_files(dir: &Path, suffix: &str) -> Result<(Vec<FilePair>, Vec<Dropped>)> {
    let list = |d: &Path| -> Result<Vec<PathBuf>> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(d)
            .map_err(|e| Error::io(d, e))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .collect();
        v.sort();
        Ok(v)
    };
    let teis = list(&dir.join("tei"))?;
    let raws = list(&dir.join("raw"))?;
    let raw_name = |p: &PathBuf| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let raw_names: Vec<String> = raws.iter().map(raw_name).collect();
    let mut pairs = Vec::new();
    let mut dropped = Vec::new();
    for tei in teis {
        let name = raw_name(&tei);
        let Some(stem) = name.strip_suffix(".tei.xml") else {
            dropped.push((
                tei,
                "not a `.tei.xml` file (GROBID skips it too)".to_string(),
            ));
            continue;
        };
        let base = strip_model_suffix(stem, suffix);
        let by_name = raw_names
            .iter()
            .position(|r| strip_model_suffix(r, suffix) == base && r.ends_with(suffix));
        let found = by_name.or_else(|| {
            let id = tei_document_id(&tei)?;
            let id = id.trim_start_matches('_');
            if id.is_empty() {
                return None;
            }
            raw_names.iter().position(|r| {
                r.ends_with(suffix)
                    && (strip_model_suffix(r, suffix) == id || r.starts_with(&format!("{id}.")))
            })
        });
        match found {
            Some(i) => pairs.push(FilePair {
                tei,
                raw: raws[i].clone(),
            }),
            None => dropped.push((tei, "no raw feature file for this TEI file".to_string())),
        }
    }
    Ok((pairs, dropped))
}

/// `x.training.header` → `x`, `x.header` → `x` (suffix = `header`).
fn strip_model_suffix<'a>(name: &'a str, suffix: &str) -> &'a str {
    let name = name.strip_suffix(suffix).unwrap_or(name);
    let name = name.strip_suffix('.').unwrap_or(name);
    name.strip_suffix(".training").unwrap_or(name)
}

fn tei_document_id(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let at = text.find("<fileDesc")?;
    let rest = &text[at..];
    let end = rest.find('>')?;
    let tag = &rest[..end];
    let i = tag.find("xml:id=\"")? + 8;
    let j = tag[i..].find('"')?;
    Some(tag[i..i + j].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labelled_facts_keep_labelled_rows_and_refuse_foreign_ones() {
        let rows: Vec<Vec<String>> = ["a 1", "b 2", "c x", "d 4"]
            .iter()
            .map(|r| r.split(' ').map(String::from).collect())
            .collect();
        let number = |r: &[String]| r.get(1).and_then(|v| v.parse::<u32>().ok());
        let labels = [
            Some("I-<x>".to_string()),
            None,
            None,
            Some("<x>".to_string()),
        ];
        let (facts, got) = labelled_facts(&rows, &labels, number, "test", "row").unwrap();
        assert_eq!(facts, [1, 4]);
        assert_eq!(got, ["I-<x>", "<x>"]);
        // A labelled row the model cannot read drops the file, naming the row.
        let third = [None, None, Some("<x>".to_string())];
        let why = labelled_facts(&rows, &third, number, "test", "row").unwrap_err();
        assert_eq!(why, "raw row 3 is not a test row");
        let none: [Option<String>; 2] = [None, None];
        let why = labelled_facts(&rows, &none, number, "test", "line").unwrap_err();
        assert_eq!(why, "no line could be aligned");
    }

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    fn t(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn tei_events_keep_text_breaks_and_entities() {
        let ev = parse_tei(
            "<tei><text><front>A &amp; B<lb/>C</front><note place=\"headnote\">x</note></text></tei>",
        )
        .unwrap();
        assert!(ev.contains(&TeiEvent::Text("A & B".into())));
        assert!(ev.contains(&TeiEvent::LineBreak));
        assert!(ev.contains(&TeiEvent::Start(
            "note".into(),
            vec![("place".into(), "headnote".into())]
        )));
    }

    #[test]
    fn alignment_searches_forward_in_a_window_and_falls_back() {
        let tei = t(&[("a", "I-<x>"), ("b", "<x>"), ("c", "I-<y>"), ("d", "<y>")]);
        // `zz` matches nothing: previous label; `c` is found skipping nothing.
        let al = align(
            &s(&["a", "zz", "c", "d"]),
            &tei,
            7,
            Unmatched::PreviousLabel,
        );
        assert_eq!(
            al.labels,
            vec![
                Some("I-<x>".into()),
                Some("I-<x>".into()),
                Some("I-<y>".into()),
                Some("<y>".into())
            ]
        );
        assert_eq!(al.matched, 3);
        // The TEI side never goes back: `a` after `c` is not matched.
        let al = align(&s(&["c", "a"]), &tei, 7, Unmatched::Leave);
        assert_eq!(al.labels, vec![Some("I-<y>".into()), None]);
        assert_eq!(al.trailing_failures, 1);
        // Outside the window: not found.
        let tei_long: Vec<(String, String)> = (0..10)
            .map(|i| (format!("t{i}"), "<o>".to_string()))
            .collect();
        let al = align(&s(&["t8"]), &tei_long, 7, Unmatched::Leave);
        assert_eq!(al.labels, vec![None]);
    }

    #[test]
    fn raw_rows_split_on_spaces() {
        let rows = parse_raw_rows("a b 0\n\nc d 1\n");
        assert_eq!(rows, vec![s(&["a", "b", "0"]), s(&["c", "d", "1"])]);
    }

    #[test]
    fn model_suffixes_are_stripped_for_pairing() {
        assert_eq!(strip_model_suffix("x.training.header", "header"), "x");
        assert_eq!(strip_model_suffix("x.header", "header"), "x");
        assert_eq!(
            strip_model_suffix("a.b.training.segmentation", "segmentation"),
            "a.b"
        );
    }
}
