/*!
The patent-citation model's training half: reading the ST.36 patent descriptions of
`<dataset>/patent/citation` into marked paragraphs and CRF sequences (with the dotted-number
copies of short paragraphs), and the [`ModelSpec`].
*/

use std::path::Path;
use std::sync::OnceLock;

use crate::corpus::{Part, ReadStats};
use crate::crf::{Sequence, TrainParams};
use crate::lexicon::LexView;
use crate::models::patent_citation::{gold_labels, rows, tokens, FEATURE_VERSION};
use crate::models::ModelName;
use crate::patent::st36::{self, MarkKind, Paragraph};
use crate::training::spec::ModelSpec;
use crate::training::template as tpl;
use crate::{Error, Result};

/// Paragraphs without a citation mark kept for training: one in this many (the corpus is
/// mostly citation-free text; all of it would make training slow without teaching more).
pub const UNMARKED_KEEP_ONE_IN: usize = 3;

/// A corpus file and its description paragraphs.
pub type PatentFile = (std::path::PathBuf, Vec<Paragraph>);

/// Read `<dataset>/patent/citation/{corpus,evaluation}` into marked paragraphs, per file.
pub fn read_paragraphs(dataset: &Path, part: Part) -> Result<(Vec<PatentFile>, ReadStats)> {
    let dir = dataset.join("patent/citation").join(match part {
        Part::Corpus => "corpus",
        Part::Evaluation => "evaluation",
    });
    let entries = std::fs::read_dir(&dir).map_err(|e| Error::io(&dir, e))?;
    let mut paths: Vec<_> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "xml"))
        .collect();
    paths.sort();
    let mut stats = ReadStats::default();
    let mut out = Vec::new();
    for path in paths {
        let xml = match std::fs::read_to_string(&path) {
            Ok(x) => x,
            Err(e) => {
                stats.files_dropped.push((path, e.to_string()));
                continue;
            }
        };
        match st36::read_description(&xml) {
            Ok(ps) => {
                stats.files_read += 1;
                out.push((path, ps));
            }
            Err(e) => stats.files_dropped.push((path, e.to_string())),
        }
    }
    if out.is_empty() {
        return Err(Error::Corpus {
            path: dir,
            reason: "no readable patent document in this folder (is the dataset unpacked?)".into(),
        });
    }
    Ok((out, stats))
}

/// Paragraphs longer than this many tokens are not copied by [`dotted_variant`].
pub(crate) const VARIANT_MAX_TOKENS: usize = 400;

/// The corpus is mostly English, whose patent numbers group digits with commas
/// (`US 6,123,456`); patents in Spanish, French, German or Italian print the same numbers with
/// dots (`US 6.123.456`). A short marked paragraph whose patent marks group digits with commas
/// is also given to training with dots in those places, marks unchanged (the replacement keeps
/// every byte offset). `None` when the paragraph has no such number or is long.
pub fn dotted_variant(p: &Paragraph, n_tokens: usize) -> Option<Paragraph> {
    if n_tokens > VARIANT_MAX_TOKENS {
        return None;
    }
    let mut bytes = p.text.clone().into_bytes();
    let mut changed = false;
    for m in p.marks.iter().filter(|m| m.kind == MarkKind::Patent) {
        for i in m.range.clone() {
            let digit = |j: usize| j < m.range.end && bytes[j].is_ascii_digit();
            let group_of_three = digit(i + 1) && digit(i + 2) && digit(i + 3) && !digit(i + 4);
            if bytes[i] == b','
                && i > m.range.start
                && bytes[i - 1].is_ascii_digit()
                && group_of_three
            {
                bytes[i] = b'.';
                changed = true;
            }
        }
    }
    let text = String::from_utf8(bytes).ok()?;
    changed.then(|| Paragraph { text, ..p.clone() })
}

/// Training sequences of a part: every paragraph with a mark and one in
/// [`UNMARKED_KEEP_ONE_IN`] of the others (in reading order); the evaluation part keeps all.
pub fn read_sequences(dataset: &Path, part: Part) -> Result<(Vec<Sequence>, ReadStats)> {
    let (files, mut stats) = read_paragraphs(dataset, part)?;
    let built = crate::corpus::lexicons::built_for(dataset);
    let view = LexView::new(&built.lexicons);
    let mut out = Vec::new();
    let mut unmarked = 0usize;
    for (_, ps) in &files {
        for p in ps {
            if p.marks.is_empty() && part == Part::Corpus {
                unmarked += 1;
                if !unmarked.is_multiple_of(UNMARKED_KEEP_ONE_IN) {
                    continue;
                }
            }
            let t = tokens(&p.text);
            if t.toks.is_empty() {
                continue;
            }
            stats.tokens += t.toks.len();
            out.push(Sequence {
                rows: rows(&t, &view),
                labels: gold_labels(&t, p),
            });
            if part == Part::Corpus {
                if let Some(v) = dotted_variant(p, t.toks.len()) {
                    let t = tokens(&v.text);
                    stats.tokens += t.toks.len();
                    out.push(Sequence {
                        rows: rows(&t, &view),
                        labels: gold_labels(&t, &v),
                    });
                }
            }
        }
    }
    stats.sequences = out.len();
    Ok((out, stats))
}

/// The patent-citation model's spec.
pub struct Spec;

pub static SPEC: Spec = Spec;

impl ModelSpec for Spec {
    fn name(&self) -> ModelName {
        ModelName::PatentCitation
    }
    fn feature_version(&self) -> u32 {
        FEATURE_VERSION
    }
    fn template(&self) -> &'static str {
        static T: OnceLock<String> = OnceLock::new();
        T.get_or_init(|| {
            // Reference §4: 0[-4..+4] and four token conjunctions; 1[-2..2]; 2–9 at the
            // token; 10, 11, 12 over [-1..1] with their two conjunctions each; 13–19 at the
            // token and the next; 20–24 over [-1..1]; 25[-2..2] with two conjunctions; 26 and
            // 27 over [-1..1].
            let mut windows: Vec<(usize, &[i32])> = vec![
                (0, &[-4, -3, -2, -1, 0, 1, 2, 3, 4]),
                (1, &[-2, -1, 0, 1, 2]),
            ];
            windows.extend((2..=9).map(|c| (c, &[0][..])));
            windows.extend((10..=12).map(|c| (c, &[-1, 0, 1][..])));
            windows.extend((13..=19).map(|c| (c, &[0, 1][..])));
            windows.extend((20..=24).map(|c| (c, &[-1, 0, 1][..])));
            windows.push((25, &[-2, -1, 0, 1, 2]));
            windows.push((26, &[-1, 0, 1]));
            windows.push((27, &[-1, 0, 1]));
            let mut conj: Vec<tpl::Conjunction> = vec![
                ((-1, 0), (0, 0)),
                ((0, 0), (1, 0)),
                ((1, 0), (2, 0)),
                ((-2, 0), (-1, 0)),
            ];
            for c in [10, 11, 12, 25] {
                conj.push(((0, c), (1, c)));
                conj.push(((-1, c), (0, c)));
            }
            tpl::template(&windows, &conj)
        })
    }
    fn default_params(&self) -> TrainParams {
        // GROBID: c2 1e-4, window 20, 2,000 iterations (reference §7); the committed model
        // stops earlier (see its meta.json) to fit a shared machine.
        TrainParams::grobid(1e-5, 20, 150)
    }
    fn read(&self, dataset: &Path, part: Part) -> Result<(Vec<Sequence>, ReadStats)> {
        read_sequences(dataset, part)
    }
    fn rows_from_text(&self, text: &str) -> Option<crate::features::Rows> {
        let lex = crate::lexicon::default_shared();
        Some(rows(&tokens(text), &LexView::new(&lex)))
    }
}
