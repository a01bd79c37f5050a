/*!
The reference segmenter's training half: reading GROBID's reference-segmenter corpus (TEI +
raw feature files, one sequence per document) into CRF sequences, the feature template and
the [`ModelSpec`].

Corpus reading, as GROBID's `ReferenceSegmenterTrainer`: the `tei/` file is a `listBibl` of
`bibl` elements with an optional `label`; the text of a `label` is `<label>`, the rest of a
`bibl` is `<reference>`, text outside any `bibl` (and the text of a `bibl` before its label)
is `<other>`; each chunk's first token gets `I-`. `<lb/>`/`<pb/>` are line-break entries
that take room in the alignment window and match nothing. (GROBID's current reader splits
its own `@newline` marker at the `@`, which it counts as punctuation, into two entries that
can match raw `@` and `newline` tokens; Quire keeps one marker entry that matches nothing.)
Each raw row's token is searched among the next 7 TEI entries, never going back; matched
rows take the label, unmatched rows are dropped; each file is one sequence.
*/

use std::path::Path;
use std::sync::OnceLock;

use crate::corpus::layout::{self as corpus, FilePair, PairRead, TeiEvent, Unmatched};
use crate::corpus::{Part, ReadStats};
use crate::crf::{Sequence, TrainParams};
use crate::lexicon::LexView;
use crate::models::reference_segmenter::{rows, Label, TokenFacts, COLUMNS, FEATURE_VERSION};
use crate::models::ModelName;
use crate::training::spec::ModelSpec;
use crate::training::template as tpl;
use crate::Result;

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

/// Read one TEI + raw pair into one sequence (see the module documentation): raw rows → facts
/// → [`rows`].
pub fn read_pair(
    tei: &Path,
    raw: &Path,
    lex: &LexView<'_>,
) -> Result<std::result::Result<PairRead, String>> {
    let events = corpus::walk_tei(tei)?;
    let entries = tei_tokens(&events);
    let raw_rows = corpus::read_raw_rows(raw)?;
    if let Err(why) = corpus::check_columns(&raw_rows, COLUMNS - 1) {
        return Ok(Err(why));
    }
    let firsts: Vec<String> = raw_rows.iter().map(|r| r[0].clone()).collect();
    let al = corpus::align_with(&firsts, &entries, 7, Unmatched::Leave, None);
    let (facts, labels) = match corpus::labelled_facts(
        &raw_rows,
        &al.labels,
        TokenFacts::from_raw,
        "reference-segmenter",
        "row",
    ) {
        Ok(read) => read,
        Err(why) => return Ok(Err(why)),
    };
    Ok(Ok(PairRead {
        seqs: vec![Sequence {
            rows: rows(&facts, lex),
            labels,
        }],
        unaligned: al.labels.len() - al.matched,
    }))
}

/// Read `<dataset>/reference-segmenter/{corpus,evaluation}`: one sequence per document. Rows
/// are computed with the lexicons built from `dataset` (training writes them beside the model
/// through [`ModelSpec::write_resources`]).
pub fn read_dir(dataset: &Path, part: Part) -> Result<(Vec<Sequence>, ReadStats)> {
    let built = crate::corpus::lexicons::built_for(dataset);
    let lex = LexView::new(&built.lexicons);
    corpus::read_pairs(
        dataset,
        "reference-segmenter",
        part,
        "referenceSegmenter",
        &|p: &FilePair| read_pair(&p.tei, &p.raw, &lex),
    )
}

pub struct Spec;

pub static SPEC: Spec = Spec;

/// Quire's reference-segmenter template over columns 0–25 (informed by GROBID's, §4).
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
        tpl::template(&windows, &tpl::token_and_flag_conjunctions(12))
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
        TrainParams::default()
    }
    fn read(&self, dataset: &Path, part: Part) -> Result<(Vec<Sequence>, ReadStats)> {
        read_dir(dataset, part)
    }
}
