//! Reference-segmenter model: cuts the references zone into references, labelling each token
//! `<label>` (the reference's number or marker), `<reference>` (its body) or `<other>` —
//! reference grobid-models.md §2.5, §3.4. A new reference starts at every `I-<label>` or
//! `I-<reference>`.
//!
//! Corpus reading, as GROBID's `ReferenceSegmenterTrainer`: the `tei/` file is a `listBibl` of
//! `bibl` elements with an optional `label`; the text of a `label` is `<label>`, the rest of a
//! `bibl` is `<reference>`, text outside any `bibl` (and the text of a `bibl` before its label)
//! is `<other>`; each chunk's first token gets `I-`. `<lb/>`/`<pb/>` are line-break entries
//! that take room in the alignment window and match nothing. (GROBID's current reader splits
//! its own `@newline` marker at the `@`, which it counts as punctuation, into two entries that
//! can match raw `@` and `newline` tokens; Quire keeps one marker entry that matches nothing.) Each raw row's token is searched
//! among the next 7 TEI entries, never going back; matched rows take the label, unmatched rows
//! are dropped; each file is one sequence.
//!
//! The rows are, for now, the 28 columns of GROBID's raw file (27 features and the `0`
//! placeholder; reference §3.4). The run-time feature function (from the layout tokens of the
//! references zone) comes with the reference-segmenter model's own issue; until then a model
//! trained here only tags GROBID-made rows.

use std::path::Path;
use std::sync::OnceLock;

use crate::corpus::layout::{self as corpus, FilePair, PairRead, TeiEvent, Unmatched};
use crate::crf::{Sequence, TrainParams};
use crate::models::text;
use crate::models::{ModelName, ModelSpec, Part, ReadStats};
use crate::Result;

model_labels!(
    "reference-segmenter",
    /// GROBID's reference-segmenter labels.
    {
        Label => "<label>",
        Reference => "<reference>",
        Other => "<other>",
    }
);

/// `(token, label)` entries of a reference-segmenter TEI file (see the module documentation).
pub fn tei_tokens(events: &[TeiEvent]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut chunk: Vec<Option<String>> = Vec::new();
    let mut in_text = false;
    let has_text = |chunk: &[Option<String>]| chunk.iter().flatten().any(|t| !t.trim().is_empty());
    for ev in events {
        match ev {
            TeiEvent::Start(name, _) => {
                if name == "text" {
                    in_text = true;
                    chunk.clear();
                    continue;
                }
                if !in_text {
                    continue;
                }
                // Whatever came before an element opens is outside a labelled part.
                if has_text(&chunk) {
                    corpus::push_chunk(&mut out, &chunk, Label::Other.as_str());
                }
                chunk.clear();
            }
            TeiEvent::End(name) if in_text => match name.as_str() {
                "label" => {
                    corpus::push_chunk(&mut out, &chunk, Label::Label.as_str());
                    chunk.clear();
                }
                "bibl" => {
                    corpus::push_chunk(&mut out, &chunk, Label::Reference.as_str());
                    chunk.clear();
                }
                "text" => in_text = false,
                _ => {}
            },
            TeiEvent::Text(t) if in_text => chunk.push(Some(t.clone())),
            TeiEvent::LineBreak | TeiEvent::PageBreak if in_text => chunk.push(None),
            _ => {}
        }
    }
    out
}

/// Raw reference-segmenter rows: 27 feature columns and GROBID's `0` placeholder.
pub const COLUMNS: usize = 28;

/// Read one TEI + raw pair into one sequence (see the module documentation).
pub fn read_pair(tei: &Path, raw: &Path) -> Result<std::result::Result<PairRead, String>> {
    let events = corpus::walk_tei(tei)?;
    let entries = tei_tokens(&events);
    let raw_rows = corpus::read_raw_rows(raw)?;
    if let Err(why) = corpus::check_columns(&raw_rows, COLUMNS - 1) {
        return Ok(Err(why));
    }
    let firsts: Vec<String> = raw_rows.iter().map(|r| r[0].clone()).collect();
    let al = corpus::align_with(&firsts, &entries, 7, Unmatched::Leave, None);
    let mut seq = Sequence::default();
    for (row, lab) in raw_rows.into_iter().zip(&al.labels) {
        if let Some(lab) = lab {
            seq.rows.push(row);
            seq.labels.push(lab.clone());
        }
    }
    if seq.rows.is_empty() {
        return Ok(Err("no row could be aligned".into()));
    }
    Ok(Ok(PairRead {
        seqs: vec![seq],
        unaligned: al.labels.len() - al.matched,
    }))
}

/// Read `<dataset>/reference-segmenter/{corpus,evaluation}`: one sequence per document.
pub fn read_dir(dataset: &Path, part: Part) -> Result<(Vec<Sequence>, ReadStats)> {
    corpus::read_pairs(
        dataset,
        "reference-segmenter",
        part,
        "referenceSegmenter",
        &|p: &FilePair| read_pair(&p.tei, &p.raw),
    )
}

pub struct Spec;

pub static SPEC: Spec = Spec;

/// Version of the row layout (GROBID's raw columns).
pub const FEATURE_VERSION: u32 = 1;

/// Quire's reference-segmenter template over raw columns 0–25 (informed by GROBID's, §4).
fn template() -> &'static str {
    static T: OnceLock<String> = OnceLock::new();
    T.get_or_init(|| {
        let mut windows: Vec<(usize, &'static [i32])> =
            vec![(0, &[-3, -2, -1, 0, 1, 2, 3]), (1, &[-2, -1, 0, 1, 2])];
        windows.extend((2..10).map(|c| (c, &[0][..])));
        windows.extend((10..15).map(|c| (c, &[-1, 0, 1][..])));
        windows.extend((15..22).map(|c| (c, &[0, 1][..])));
        windows.push((22, &[-2, -1, 0, 1, 2]));
        windows.extend((23..26).map(|c| (c, &[-1, 0, 1][..])));
        text::template(
            &windows,
            &[
                ((-1, 0), (0, 0)),
                ((0, 0), (1, 0)),
                ((1, 0), (2, 0)),
                ((-2, 0), (-1, 0)),
                ((0, 12), (1, 12)),
                ((-1, 12), (0, 12)),
            ],
        )
    })
}

impl ModelSpec for Spec {
    fn name(&self) -> ModelName {
        ModelName::ReferenceSegmenter
    }
    fn feature_version(&self) -> u32 {
        FEATURE_VERSION
    }
    fn template(&self) -> &'static str {
        template()
    }
    fn default_params(&self) -> TrainParams {
        // GROBID: epsilon 1e-5, window 20, 2,000 iterations (reference §7).
        TrainParams {
            c1: 0.5,
            c2: 0.0001,
            epsilon: 1e-5,
            window: 20,
            max_iter: 2000,
            threads: 0,
        }
    }
    fn read(&self, dataset: &Path, part: Part) -> Result<(Vec<Sequence>, ReadStats)> {
        read_dir(dataset, part)
    }
    fn write_resources(&self, _dataset: &Path, _models_dir: &Path) -> Result<()> {
        // The rows are GROBID's own columns: no Quire lexicon is involved.
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::layout::NEWLINE;

    const TEI: &str = r#"<tei><teiHeader><fileDesc xml:id="_r"/></teiHeader><text xml:lang="en">
<listBibl>References<lb/>
<bibl><label>[1]</label> A. Smith, Title,<lb/> 2001.</bibl>
<bibl>B. Jones, Other, 1999.<lb/></bibl>
</listBibl></text></tei>"#;

    fn raw_row(tok: &str) -> String {
        let mut cols = vec![tok.to_string(); 10];
        cols.extend((10..27).map(|i| format!("f{i}")));
        cols.push("0".into());
        cols.join(" ")
    }

    #[test]
    fn tei_tokens_mark_labels_references_and_line_breaks() {
        let ev = corpus::parse_tei(TEI).unwrap();
        let got = tei_tokens(&ev);
        let got: Vec<(&str, &str)> = got.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        assert_eq!(
            got,
            vec![
                ("References", "I-<other>"),
                (NEWLINE, ""),
                ("[", "I-<label>"),
                ("1", "<label>"),
                ("]", "<label>"),
                ("A", "I-<reference>"),
                (".", "<reference>"),
                ("Smith", "<reference>"),
                (",", "<reference>"),
                ("Title", "<reference>"),
                (",", "<reference>"),
                (NEWLINE, ""),
                ("2001", "<reference>"),
                (".", "<reference>"),
                ("B", "I-<reference>"),
                (".", "<reference>"),
                ("Jones", "<reference>"),
                (",", "<reference>"),
                ("Other", "<reference>"),
                (",", "<reference>"),
                ("1999", "<reference>"),
                (".", "<reference>"),
                (NEWLINE, ""),
            ]
        );
    }

    #[test]
    fn raw_rows_align_and_misaligned_files_drop() {
        let ds = std::env::temp_dir().join(format!("quire-refseg-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&ds);
        let c = ds.join("reference-segmenter/corpus");
        let w = |sub: &str, name: &str, text: &str| {
            std::fs::create_dir_all(c.join(sub)).unwrap();
            std::fs::write(c.join(sub).join(name), text).unwrap();
        };
        let toks = [
            "References",
            "[",
            "1",
            "]",
            "A",
            ".",
            "Smith",
            "page-7", // a running head that the TEI left out: dropped
            ",",
            "Title",
            ",",
            "2001",
            ".",
            "B",
            ".",
            "Jones",
        ];
        let raw: Vec<String> = toks.iter().map(|t| raw_row(t)).collect();
        w(
            "tei",
            "a.training.references.referenceSegmenter.tei.xml",
            TEI,
        );
        w(
            "raw",
            "a.training.references.referenceSegmenter",
            &raw.join("\n"),
        );
        w(
            "tei",
            "m.training.references.referenceSegmenter.tei.xml",
            "<tei><text><listBibl><bibl n=\"1>x</bibl></listBibl></text></tei>",
        );
        w(
            "raw",
            "m.training.references.referenceSegmenter",
            &raw_row("x"),
        );
        let (seqs, stats) = read_dir(&ds, Part::Corpus).unwrap();
        assert_eq!(stats.files_read, 1);
        assert_eq!(stats.unaligned, 1);
        assert_eq!(seqs.len(), 1);
        assert_eq!(seqs[0].rows.len(), toks.len() - 1);
        assert_eq!(seqs[0].rows[0].len(), COLUMNS);
        let starts: Vec<&str> = seqs[0]
            .labels
            .iter()
            .filter(|l| l.starts_with("I-"))
            .map(String::as_str)
            .collect();
        assert_eq!(
            starts,
            vec!["I-<other>", "I-<label>", "I-<reference>", "I-<reference>"]
        );
        assert_eq!(stats.files_dropped.len(), 1);
        let (path, why) = &stats.files_dropped[0];
        assert!(path.ends_with("m.training.references.referenceSegmenter.tei.xml"));
        assert!(
            why.contains("m.training.references.referenceSegmenter.tei.xml"),
            "{why}"
        );
        std::fs::remove_dir_all(&ds).unwrap();
    }
}
