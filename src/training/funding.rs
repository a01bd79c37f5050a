/*!
The funding-acknowledgement model's training half: the corpus rules ([`FundingRules`]: each
`<funding>` or `<acknowledgment>` paragraph is a sequence), building the funder and
infrastructure gazetteers from the corpus's own fields, reading the corpus into CRF sequences
(a corpus sequence does not see the gazetteer entries only it contributes), and the
[`ModelSpec`].
*/

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::OnceLock;

use crate::corpus::{self, Labelled, Part, ReadStats, Rules};
use crate::crf::{Sequence, TrainParams};
use crate::features::{self as f, gazetteer_key, Gazetteer};
use crate::models::funding::{rows, FundingLexicon, FundingView, Label, FEATURE_VERSION};
use crate::models::ModelName;
use crate::training::spec::ModelSpec;
use crate::training::template as tpl;
use crate::Result;

/// Corpus rules: each `<funding>` or `<acknowledgment>` paragraph is a sequence (element
/// names arrive lower-cased).
pub struct FundingRules;

impl Rules for FundingRules {
    fn is_sequence(&self, name: &str) -> bool {
        matches!(name, "funding" | "acknowledgment")
    }
    fn label(&self, name: &str, attrs: &[(String, String)]) -> Option<&'static str> {
        Some(
            match name {
                "funder" => Label::FunderName,
                "grantnumber" => Label::GrantNumber,
                "grantname" => Label::GrantName,
                "projectname" => Label::ProjectName,
                "programname" => Label::ProgramName,
                "individual" => Label::Person,
                "institution"
                    if attrs
                        .iter()
                        .any(|(k, v)| k == "type" && v == "infrastructure") =>
                {
                    Label::Infrastructure
                }
                "institution" => Label::Institution,
                "affiliation" => Label::Affiliation,
                "url" => Label::Url,
                _ => return None,
            }
            .as_str(),
        )
    }
}

/// Field texts of one sequence, as gazetteer keys, for one label.
fn field_keys(s: &Labelled, label: Label) -> HashSet<String> {
    s.fields
        .iter()
        .filter(|f| f.label == label.as_str())
        .map(|f| gazetteer_key(&f.text))
        .filter(|k| !k.is_empty())
        .collect()
}

/// Per-sequence entries of both gazetteers, and the gazetteers built from them.
pub(crate) struct Built {
    pub(crate) lex: FundingLexicon,
    /// Per corpus sequence (in reading order): the funder and infrastructure entries only it
    /// contributes.
    pub(crate) own: Vec<(HashSet<String>, HashSet<String>)>,
}

pub(crate) fn build(corpus_seqs: &[&Labelled]) -> Built {
    let per_seq: Vec<(HashSet<String>, HashSet<String>)> = corpus_seqs
        .iter()
        .map(|s| {
            (
                field_keys(s, Label::FunderName),
                field_keys(s, Label::Infrastructure),
            )
        })
        .collect();
    let mut funder_count: HashMap<&str, usize> = HashMap::new();
    let mut infra_count: HashMap<&str, usize> = HashMap::new();
    for (fu, inf) in &per_seq {
        for k in fu {
            *funder_count.entry(k).or_default() += 1;
        }
        for k in inf {
            *infra_count.entry(k).or_default() += 1;
        }
    }
    let lex = FundingLexicon {
        funders: Gazetteer::from_keys(funder_count.keys().copied()),
        infrastructures: Gazetteer::from_keys(infra_count.keys().copied()),
    };
    let own = per_seq
        .iter()
        .map(|(fu, inf)| {
            (
                fu.iter()
                    .filter(|k| funder_count.get(k.as_str()) == Some(&1))
                    .cloned()
                    .collect(),
                inf.iter()
                    .filter(|k| infra_count.get(k.as_str()) == Some(&1))
                    .cloned()
                    .collect(),
            )
        })
        .collect();
    Built { lex, own }
}

/// The gazetteers built from `<dataset>/funding-acknowledgement/corpus`.
pub fn lexicon_from_corpus(dataset: &Path) -> Result<FundingLexicon> {
    let dir = dataset.join("funding-acknowledgement/corpus");
    let (files, _) = corpus::read_dir(&dir, &FundingRules)?;
    let seqs: Vec<&Labelled> = files.iter().flat_map(|f| &f.seqs).collect();
    Ok(build(&seqs).lex)
}

/// Read `<dataset>/funding-acknowledgement/{corpus,evaluation}` into CRF sequences. Corpus
/// sequences are featurised without their own gazetteer entries; evaluation sequences see the
/// whole gazetteers, as run time does.
pub fn read_dir(dataset: &Path, part: Part) -> Result<(Vec<Sequence>, ReadStats)> {
    let base = dataset.join("funding-acknowledgement");
    let (corpus_files, corpus_stats) = corpus::read_dir(&base.join("corpus"), &FundingRules)?;
    let corpus_seqs: Vec<&Labelled> = corpus_files.iter().flat_map(|f| &f.seqs).collect();
    let built = build(&corpus_seqs);
    match part {
        Part::Corpus => {
            let out = corpus_seqs
                .iter()
                .zip(&built.own)
                .map(|(s, (fu, inf))| {
                    let view = FundingView {
                        lex: &built.lex,
                        excluded_funders: Some(fu),
                        excluded_infrastructures: Some(inf),
                    };
                    Sequence {
                        rows: rows(&s.toks, &view),
                        labels: s.labels.clone(),
                    }
                })
                .collect();
            Ok((out, corpus_stats))
        }
        Part::Evaluation => {
            let (files, stats) = corpus::read_dir(&base.join("evaluation"), &FundingRules)?;
            let view = FundingView::new(&built.lex);
            let out = files
                .iter()
                .flat_map(|f| &f.seqs)
                .map(|s| Sequence {
                    rows: rows(&s.toks, &view),
                    labels: s.labels.clone(),
                })
                .collect();
            Ok((out, stats))
        }
    }
}

/// The funding-acknowledgement model's spec.
pub struct Spec;

pub static SPEC: Spec = Spec;

impl ModelSpec for Spec {
    fn name(&self) -> ModelName {
        ModelName::FundingAcknowledgement
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
                ],
                &[],
            )
        })
    }
    fn default_params(&self) -> TrainParams {
        // GROBID: epsilon 1e-5, window 50, 2,000 iterations (reference §7); the committed
        // model was trained with 300 (265 s on one thread), which the default reproduces.
        TrainParams::grobid(1e-5, 50, 300)
    }
    fn read(&self, dataset: &Path, part: Part) -> Result<(Vec<Sequence>, ReadStats)> {
        read_dir(dataset, part)
    }
    fn write_resources(&self, dataset: &Path, models_dir: &Path) -> Result<()> {
        lexicon_from_corpus(dataset)?.save(&models_dir.join("lexicon"))
    }
    fn rows_from_text(&self, text: &str) -> Option<crate::features::Rows> {
        static LEX: OnceLock<FundingLexicon> = OnceLock::new();
        let lex = LEX.get_or_init(|| {
            FundingLexicon::load(&crate::lexicon::default_dir()).unwrap_or_default()
        });
        Some(rows(
            &f::toks_from_text(text, false),
            &FundingView::new(lex),
        ))
    }
}
