/*!
The text-only models' training half (date, name-header, name-citation, affiliation-address,
citation): their [`ModelSpec`](crate::training::ModelSpec)s, and reading a corpus folder into
CRF sequences through the model's one row function, with each training file's own lexicon
entries hidden.
*/

use std::path::Path;

use crate::corpus::{self, Labelled, Part, ReadStats, Rules};
use crate::crf::Sequence;
use crate::lexicon::LexView;
use crate::models::text::RowsFn;
use crate::Result;

/// The text models' training settings: Wapiti's penalties with `window` and `max_iter`, on two
/// threads.
fn params(window: usize, max_iter: usize) -> crate::crf::TrainParams {
    crate::crf::TrainParams {
        threads: 2,
        ..crate::crf::TrainParams::grobid(1e-5, window, max_iter)
    }
}

/// Read `<dataset>/<sub>/{corpus,evaluation}` into CRF sequences. Corpus files are
/// featurised without the lexicon entries only they contribute; evaluation files see the full
/// lexicons, as run time does. Reading has no side effect: the training driver writes the
/// lexicons beside the model (`ModelSpec::write_resources`), so the served lexicons are the ones
/// the model was trained with.
pub fn read_sequences(
    dataset: &Path,
    sub: &str,
    part: Part,
    rules: &dyn Rules,
    rows: RowsFn,
) -> Result<(Vec<Sequence>, ReadStats)> {
    let dir = dataset.join(sub).join(match part {
        Part::Corpus => "corpus",
        Part::Evaluation => "evaluation",
    });
    let (files, stats) = corpus::read_dir(&dir, rules)?;
    let built = crate::corpus::lexicons::built_for(dataset);
    let mut out = Vec::new();
    for f in &files {
        let view = LexView {
            lex: &built.lexicons,
            exclusion: match part {
                Part::Corpus => built.exclusion(&f.path),
                Part::Evaluation => None,
            },
        };
        for s in &f.seqs {
            out.push(to_sequence(s, &view, rows));
        }
    }
    Ok((out, stats))
}

pub fn to_sequence(s: &Labelled, view: &LexView<'_>, rows: RowsFn) -> Sequence {
    Sequence {
        rows: rows(&s.toks, view),
        labels: s.labels.clone(),
    }
}

/// The date model's spec.
pub mod date {
    use std::path::Path;
    use std::sync::OnceLock;

    use super::read_sequences;
    use crate::corpus::rules::DateRules;
    use crate::corpus::{Part, ReadStats};
    use crate::crf::{Sequence, TrainParams};
    use crate::lexicon::LexView;
    use crate::models::date::{rows, toks, FEATURE_VERSION};
    use crate::models::ModelName;
    use crate::training::spec::ModelSpec;
    use crate::training::template as tpl;
    use crate::Result;

    pub struct Spec;

    pub static SPEC: Spec = Spec;

    impl ModelSpec for Spec {
        fn name(&self) -> ModelName {
            ModelName::Date
        }
        fn feature_version(&self) -> u32 {
            FEATURE_VERSION
        }
        fn template(&self) -> &'static str {
            static T: OnceLock<String> = OnceLock::new();
            T.get_or_init(|| {
                tpl::shared_template(
                    tpl::TOKEN_WINDOW,
                    tpl::LOWER_WINDOW,
                    &[
                        (14, &[-1, 0, 1]),
                        (15, &[-1, 0, 1]),
                        (16, &[-2, -1, 0, 1, 2]),
                        (17, &[-4, -3, -2, -1, 0, 1, 2, 3, 4]),
                        (18, &[0]),
                    ],
                    &[
                        // What the neighbouring numbers can be decides between day and month
                        // (`4-21-2010`, `Nov. 12th, 2010`, `April 97`).
                        ((0, 17), (1, 17)),
                        ((-1, 17), (0, 17)),
                        ((0, 17), (0, 18)),
                        ((0, 17), (2, 17)),
                        ((-2, 17), (0, 17)),
                        ((-2, 17), (2, 17)),
                        ((0, 17), (4, 17)),
                        ((-4, 17), (0, 17)),
                    ],
                )
            })
        }
        fn default_params(&self) -> TrainParams {
            super::params(20, 2000)
        }
        fn read(&self, dataset: &Path, part: Part) -> Result<(Vec<Sequence>, ReadStats)> {
            read_sequences(dataset, "date", part, &DateRules, rows)
        }
        fn rows_from_text(&self, text: &str) -> Option<crate::features::Rows> {
            let lex = crate::lexicon::default_shared();
            Some(rows(&toks(text), &LexView::new(&lex)))
        }
    }
}

/// The name models's spec.
pub mod name {
    use std::path::Path;
    use std::sync::OnceLock;

    use super::read_sequences;
    use crate::corpus::rules::NameRules;
    use crate::corpus::{Part, ReadStats};
    use crate::crf::{Sequence, TrainParams};
    use crate::lexicon::LexView;
    use crate::models::name::{rows, toks, FEATURE_VERSION};
    use crate::models::ModelName;
    use crate::training::spec::ModelSpec;
    use crate::training::template as tpl;
    use crate::Result;

    /// The two name models differ in their data and token window.
    pub struct Spec {
        citation: bool,
    }

    pub static HEADER_SPEC: Spec = Spec { citation: false };
    pub static CITATION_SPEC: Spec = Spec { citation: true };

    fn build_template(citation: bool) -> String {
        let (tok, low): (&[i32], &[i32]) = if citation {
            (&[-4, -3, -2, -1, 0, 1, 2, 3, 4], tpl::TOKEN_WINDOW)
        } else {
            (tpl::TOKEN_WINDOW, tpl::LOWER_WINDOW)
        };
        tpl::shared_template(
            tok,
            low,
            &[
                (14, &[-2, -1, 0, 1, 2]),
                (15, &[-2, -1, 0, 1, 2]),
                (16, &[-2, -1, 0, 1, 2]),
                (17, &[-2, -1, 0, 1, 2]),
                (18, &[-1, 0, 1]),
                (19, &[-2, -1, 0, 1, 2]),
            ],
            &[],
        )
    }

    impl ModelSpec for Spec {
        fn name(&self) -> ModelName {
            if self.citation {
                ModelName::NameCitation
            } else {
                ModelName::NameHeader
            }
        }
        fn feature_version(&self) -> u32 {
            FEATURE_VERSION
        }
        fn template(&self) -> &'static str {
            static H: OnceLock<String> = OnceLock::new();
            static C: OnceLock<String> = OnceLock::new();
            if self.citation {
                C.get_or_init(|| build_template(true))
            } else {
                H.get_or_init(|| build_template(false))
            }
        }
        fn default_params(&self) -> TrainParams {
            super::params(20, 2000)
        }
        fn read(&self, dataset: &Path, part: Part) -> Result<(Vec<Sequence>, ReadStats)> {
            let sub = if self.citation {
                "name/citation"
            } else {
                "name/header"
            };
            read_sequences(dataset, sub, part, &NameRules, rows)
        }
        fn rows_from_text(&self, text: &str) -> Option<crate::features::Rows> {
            let lex = crate::lexicon::default_shared();
            Some(rows(&toks(text, self.citation), &LexView::new(&lex)))
        }
    }
}

/// The affiliation model's spec.
pub mod affiliation {
    use std::path::Path;
    use std::sync::OnceLock;

    use super::read_sequences;
    use crate::corpus::rules::AffiliationRules;
    use crate::corpus::{Part, ReadStats};
    use crate::crf::{Sequence, TrainParams};
    use crate::lexicon::LexView;
    use crate::models::affiliation::{rows, toks, FEATURE_VERSION};
    use crate::models::ModelName;
    use crate::training::spec::ModelSpec;
    use crate::training::template as tpl;
    use crate::Result;

    pub struct Spec;

    pub static SPEC: Spec = Spec;

    impl ModelSpec for Spec {
        fn name(&self) -> ModelName {
            ModelName::AffiliationAddress
        }
        fn feature_version(&self) -> u32 {
            FEATURE_VERSION
        }
        fn template(&self) -> &'static str {
            static T: OnceLock<String> = OnceLock::new();
            T.get_or_init(|| {
                tpl::shared_template(
                    tpl::TOKEN_WINDOW,
                    tpl::LOWER_WINDOW,
                    &[
                        (14, &[0, 1]),
                        (15, &[0, 1]),
                        (16, &[0, 1]),
                        (17, &[0, 1]),
                        (18, &[0, 1]),
                        (19, &[-2, -1, 0, 1, 2]),
                        (20, &[-1, 0, 1]),
                    ],
                    &[],
                )
            })
        }
        fn default_params(&self) -> TrainParams {
            super::params(20, 2000)
        }
        fn read(&self, dataset: &Path, part: Part) -> Result<(Vec<Sequence>, ReadStats)> {
            read_sequences(
                dataset,
                "affiliation-address",
                part,
                &AffiliationRules,
                rows,
            )
        }
        fn rows_from_text(&self, text: &str) -> Option<crate::features::Rows> {
            let lex = crate::lexicon::default_shared();
            Some(rows(&toks(text), &LexView::new(&lex)))
        }
    }
}

/// The citation model's spec.
pub mod citation {
    use std::path::Path;
    use std::sync::OnceLock;

    use super::read_sequences;
    use crate::corpus::rules::CitationRules;
    use crate::corpus::{Part, ReadStats};
    use crate::crf::{Sequence, TrainParams};
    use crate::lexicon::LexView;
    use crate::models::citation::{prepare, rows, toks, FEATURE_VERSION};
    use crate::models::ModelName;
    use crate::training::spec::ModelSpec;
    use crate::training::template as tpl;
    use crate::Result;

    pub struct Spec;

    pub static SPEC: Spec = Spec;

    impl ModelSpec for Spec {
        fn name(&self) -> ModelName {
            ModelName::Citation
        }
        fn feature_version(&self) -> u32 {
            FEATURE_VERSION
        }
        fn template(&self) -> &'static str {
            static T: OnceLock<String> = OnceLock::new();
            T.get_or_init(|| {
                let mut w: Vec<(usize, &[i32])> = vec![
                    (0, &[-5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5]),
                    (1, &[-4, -3, -2, -1, 0, 1, 2, 3, 4]),
                    (2, &[0]),
                    (3, &[0]),
                    (4, &[0]),
                    (5, &[0]),
                    (6, &[0]),
                    (7, &[0]),
                    (8, &[0]),
                    (9, &[0]),
                    (10, &[-1, 0, 1]),
                    (11, &[-2, -1, 0, 1, 2]),
                    (12, &[-1, 0, 1]),
                    (13, &[-1, 0, 1]),
                ];
                for col in 14..=22 {
                    w.push((col, &[0, 1]));
                }
                w.extend([
                    (23, &[-1, 0, 1][..]),
                    (24, &[-1, 0, 1][..]),
                    (25, &[-1, 0, 1][..]),
                    (26, &[-1, 0, 1][..]),
                    (27, &[-3, -2, -1, 0, 1, 2, 3][..]),
                    (28, &[-1, 0][..]),
                    (29, &[-2, -1, 0, 1, 2][..]),
                    (30, &[-1, 0, 1][..]),
                    (31, &[-1, 0, 1][..]),
                    (32, &[0][..]),
                    (33, &[-1, 0, 1][..]),
                    (34, &[0][..]),
                    (35, &[-2, -1, 0, 1, 2][..]),
                ]);
                tpl::template_with_triples(
                    &w,
                    &[
                        ((-1, 0), (0, 0)),
                        ((0, 0), (1, 0)),
                        ((0, 11), (1, 11)),
                        ((-1, 11), (0, 11)),
                        ((0, 32), (0, 33)),
                        ((0, 33), (0, 11)),
                        ((0, 29), (0, 27)),
                        // Template version 2 (feature version unchanged): token bigrams two
                        // away, lower-cased bigrams, shape bigrams, the punctuation before a
                        // capitalised word, a quoted word's segment.
                        ((-2, 0), (-1, 0)),
                        ((1, 0), (2, 0)),
                        ((-1, 1), (0, 1)),
                        ((0, 1), (1, 1)),
                        ((-1, 35), (0, 35)),
                        ((0, 35), (1, 35)),
                        ((-1, 27), (0, 11)),
                        ((0, 33), (0, 30)),
                    ],
                    // The token trigram, and year / segment / `In`.
                    &[[(-1, 0), (0, 0), (1, 0)], [(0, 32), (0, 33), (0, 34)]],
                )
            })
        }
        fn default_params(&self) -> TrainParams {
            // GROBID allows 3000; capped so training fits in minutes on two cores (the
            // committed model used 250 iterations).
            super::params(50, 250)
        }
        fn read(&self, dataset: &Path, part: Part) -> Result<(Vec<Sequence>, ReadStats)> {
            read_sequences(dataset, "citation", part, &CitationRules, rows)
        }
        fn rows_from_text(&self, text: &str) -> Option<crate::features::Rows> {
            let lex = crate::lexicon::default_shared();
            Some(rows(&toks(&prepare(text)), &LexView::new(&lex)))
        }
    }
}

/// Gated on the unpacked dataset: every corpus and evaluation file of the five text models
/// reads without error, and the sequences line up with their labels.
#[cfg(test)]
mod corpus_tests {
    use crate::corpus::Part;
    use crate::models::ModelName;
    use crate::training::spec;

    #[test]
    fn every_text_corpus_file_reads() {
        let Some(dataset) = crate::testutil::gate::require_dataset("date/corpus") else {
            return;
        };
        let tmp = std::env::temp_dir().join(format!("quire-lexicon-test-{}", std::process::id()));
        std::env::set_var("QUIRE_MODELS_DIR", &tmp);
        for m in [
            ModelName::Date,
            ModelName::NameHeader,
            ModelName::NameCitation,
            ModelName::AffiliationAddress,
            ModelName::Citation,
        ] {
            let s = spec(m, None).expect("text model has a spec");
            for part in [Part::Corpus, Part::Evaluation] {
                let (seqs, stats) = s.read(&dataset, part).expect("corpus reads");
                let malformed: Vec<_> = stats
                    .files_dropped
                    .iter()
                    .filter(|(_, why)| !why.contains(".exclude"))
                    .collect();
                assert!(malformed.is_empty(), "{m} {part:?}: {malformed:?}");
                assert!(!seqs.is_empty(), "{m} {part:?}");
                for q in &seqs {
                    assert_eq!(q.rows.len(), q.labels.len());
                }
                eprintln!(
                    "{m} {part:?}: {} files read, {} dropped, {} sequences, {} tokens",
                    stats.files_read,
                    stats.files_dropped.len(),
                    stats.sequences,
                    stats.tokens
                );
            }
        }
        let _ = std::fs::remove_dir_all(&tmp);
    }
}
