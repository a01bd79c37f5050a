/*!
The training driver that the CLI (`quire train`/`quire eval`) and the HTTP training API call:
read a model's corpus through its [`ModelSpec`], train, evaluate GROBID-style, and for full and
holdout runs write `models/<dir>/` (`model.crf`, `template.txt`, `meta.json` with the label
set, feature version, SHA-256 of the training data, parameters and evaluation figures).

Run kinds (GROBID's `TrainerRunner` modes, grobid-models.md §7):
- `Holdout`: train on `corpus/`, evaluate on `evaluation/`, write the model.
- `Full`: train on `corpus/` and `evaluation/` together, write the model (no held-out figures).
- `Split { ratio, seed }`: shuffle the corpus sequences with `seed`, train on the first
  `ratio`, evaluate on the rest; nothing is written.
- `NFold { k, seed, only }`: shuffle with `seed`, train `k` models each leaving one fold out, and
  pool the `k` evaluations (per-fold field micro F1 is kept too); nothing is written. With
  `only: Some((first, last))` just folds `first..=last` (counted from 1) run, on the same cuts,
  so a long cross-validation can be run in parts and its per-fold figures joined.

Progress goes to a callback as [`Event`]s; setting the `cancel` flag stops the current
training at its next iteration and the run returns a report marked `cancelled`.
*/

#[cfg(test)]
mod corpus_check;
pub mod figure;
pub mod fulltext;
pub mod funding;
pub mod header;
pub mod patent_citation;
pub mod reference_segmenter;
pub mod segmentation;
pub mod spec;
pub mod template;
pub mod text;

pub use spec::{ModelSpec, WithTemplate};

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rayon::prelude::*;
use sha2::{Digest, Sha256};

use crate::corpus::{Part, ReadStats};
use crate::crf::{Model, ModelMeta, Progress, Sequence, Template, TrainParams};
use crate::deep::{self, DeepParams};
use crate::eval::Evaluation;
use crate::flavor::Flavor;
use crate::models::ModelName;
use crate::{Error, Result};

/// The spec of a model, if Quire can train it.
pub fn spec(name: ModelName, flavor: Option<Flavor>) -> Option<&'static dyn ModelSpec> {
    match (name, flavor) {
        (ModelName::Segmentation, None) => Some(&segmentation::SPEC),
        (ModelName::Header, None) => Some(&header::SPEC),
        (ModelName::Segmentation, Some(Flavor::ArticleLight)) => Some(&segmentation::LIGHT_SPEC),
        (ModelName::Header, Some(Flavor::ArticleLight)) => Some(&header::LIGHT_SPEC),
        (ModelName::Date, None) => Some(&text::date::SPEC),
        (ModelName::NameHeader, None) => Some(&text::name::HEADER_SPEC),
        (ModelName::NameCitation, None) => Some(&text::name::CITATION_SPEC),
        (ModelName::AffiliationAddress, None) => Some(&text::affiliation::SPEC),
        (ModelName::Citation, None) => Some(&text::citation::SPEC),
        (ModelName::Fulltext, None) => Some(&fulltext::SPEC),
        (ModelName::Fulltext, Some(Flavor::ArticleLight)) => Some(&fulltext::LIGHT_SPEC),
        (ModelName::Figure, None) => Some(&figure::SPEC),
        (ModelName::Table, None) => Some(&figure::TABLE_SPEC),
        (ModelName::ReferenceSegmenter, None) => Some(&reference_segmenter::SPEC),
        (ModelName::FundingAcknowledgement, None) => Some(&funding::SPEC),
        (ModelName::PatentCitation, None) => Some(&patent_citation::SPEC),
        _ => None,
    }
}

/// GROBID's n-fold shuffling seed, used when the caller gives none.
pub const DEFAULT_SEED: u64 = 839_374_947_498;

/// What to train and how to evaluate it.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase", tag = "type")]
pub enum TrainingKind {
    Full,
    Holdout,
    Split {
        ratio: f64,
        seed: u64,
    },
    NFold {
        k: usize,
        seed: u64,
        /// Run only folds `first..=last` (from 1) of the `k`; `None` runs them all.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        only: Option<(usize, usize)>,
    },
}

impl TrainingKind {
    pub fn name(&self) -> &'static str {
        match self {
            TrainingKind::Full => "full",
            TrainingKind::Holdout => "holdout",
            TrainingKind::Split { .. } => "split",
            TrainingKind::NFold { .. } => "nfold",
        }
    }
}

/// What the driver reports while it runs. `fold` counts from 1 (1 of 1 for single runs).
#[derive(Debug, Clone, serde::Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    Read {
        part: &'static str,
        files: usize,
        files_dropped: usize,
        sequences: usize,
        tokens: usize,
    },
    TrainingStarted {
        fold: usize,
        folds: usize,
        sequences: usize,
        tokens: usize,
    },
    Iteration {
        fold: usize,
        folds: usize,
        progress: Progress,
    },
    Evaluated {
        fold: usize,
        folds: usize,
        field_micro_f1: f64,
    },
    Written {
        dir: PathBuf,
        model_bytes: usize,
    },
    /// A combined run's fold scored at each of [`COMBINATION_WEIGHTS`]: (CRF weight, field
    /// micro F1 in percent), so that a run stopped before its last fold still shows the sweep.
    Swept {
        fold: usize,
        folds: usize,
        field_micro_f1: Vec<(f32, f64)>,
    },
    /// An evaluated sequence whose predicted labels differ from its gold labels somewhere
    /// (one event per such sequence, after the fold's training): what `quire train --errors`
    /// writes for error analysis. Tokens are the rows' first column.
    Mislabelled {
        fold: usize,
        tokens: Vec<String>,
        gold: Vec<String>,
        predicted: Vec<String>,
    },
}

/// The outcome of a run.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TrainingReport {
    pub model: String,
    /// `CRF` or `BiLSTM-CRF`.
    pub architecture: &'static str,
    pub kind: TrainingKind,
    /// The architecture's parameters (`TrainParams` or `DeepParams`).
    pub params: serde_json::Value,
    pub corpus: ReadStats,
    pub evaluation_part: Option<ReadStats>,
    pub train_sequences: usize,
    pub eval_sequences: usize,
    /// Pooled evaluation (all folds summed for n-fold); `None` for `Full`.
    pub evaluation: Option<Evaluation>,
    /// Field-level micro F1 (percent) of each fold.
    pub fold_field_f1: Vec<f64>,
    pub iterations: usize,
    pub training_s: f64,
    pub model_dir: Option<PathBuf>,
    pub model_bytes: Option<usize>,
    pub data_digest: String,
    pub cancelled: bool,
    /// The model folder an incremental run started from.
    pub started_from: Option<PathBuf>,
    /// A combined run ([`run_combined`]): pooled field micro F1 (percent) at each CRF weight.
    pub by_weight: Vec<(f32, f64)>,
    /// A combined run with an ensemble of BiLSTM-CRFs: each member's pooled figures.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub by_member: Vec<MemberFigures>,
}

/// One BiLSTM-CRF of a combined run's ensemble ([`run_combined`]), pooled over the folds.
#[derive(Debug, Clone, serde::Serialize)]
pub struct MemberFigures {
    pub seed: u64,
    /// Field micro F1 (percent) of the CRF and this BiLSTM-CRF alone as a pair, at the run's
    /// CRF weight.
    pub pair_field_f1: f64,
    /// Field micro F1 (percent) of this BiLSTM-CRF alone.
    pub alone_field_f1: f64,
}

impl TrainingReport {
    /// An empty report of a run that is about to read its data.
    fn new(
        spec: &dyn ModelSpec,
        architecture: &'static str,
        kind: TrainingKind,
        params: serde_json::Result<serde_json::Value>,
        start: Option<&Path>,
    ) -> TrainingReport {
        TrainingReport {
            model: spec.name().dir_name(spec.flavor()),
            architecture,
            kind,
            params: params.unwrap_or_default(),
            corpus: ReadStats::default(),
            evaluation_part: None,
            train_sequences: 0,
            eval_sequences: 0,
            evaluation: None,
            fold_field_f1: Vec::new(),
            iterations: 0,
            training_s: 0.0,
            model_dir: None,
            model_bytes: None,
            data_digest: String::new(),
            cancelled: false,
            started_from: start.map(Path::to_path_buf),
            by_weight: Vec::new(),
            by_member: Vec::new(),
        }
    }
}

/// SHA-256 of sequences: rows tab-separated with the label last, a blank line between
/// sequences.
pub fn digest(data: &[Sequence]) -> String {
    let mut h = Sha256::new();
    for s in data {
        for (row, label) in s.rows.iter().zip(&s.labels) {
            for c in row {
                h.update(c.as_bytes());
                h.update(b"\t");
            }
            h.update(label.as_bytes());
            h.update(b"\n");
        }
        h.update(b"\n");
    }
    let out = h.finalize();
    out.iter().map(|b| format!("{b:02x}")).collect()
}

/// Label every sequence with `model` (in parallel) and evaluate against the gold labels.
pub fn evaluate(model: &Model, data: &[Sequence]) -> Result<Evaluation> {
    Ok(score(data, &label_all(model, data)?, 1, &mut |_| {}))
}

/// The CRF's labels for every sequence (in parallel).
fn label_all(model: &Model, data: &[Sequence]) -> Result<Vec<Vec<String>>> {
    data.par_iter()
        .map(|s| Ok(model.label(&s.rows)?.to_names()))
        .collect()
}

/// Evaluate `predicted` against the gold labels of `data`, reporting each sequence labelled
/// differently as [`Event::Mislabelled`] of `fold`.
/// A tagger's answers as the label names the gold data holds.
fn names(answers: Vec<crate::labels::Labels>) -> Vec<Vec<String>> {
    answers
        .iter()
        .map(crate::labels::Labels::to_names)
        .collect()
}

fn score(
    data: &[Sequence],
    predicted: &[Vec<String>],
    fold: usize,
    progress: &mut dyn FnMut(&Event),
) -> Evaluation {
    let mut e = Evaluation::new();
    for (s, p) in data.iter().zip(predicted) {
        e.add(&s.labels, p);
        if s.labels != *p {
            progress(&Event::Mislabelled {
                fold,
                tokens: s.tokens(),
                gold: s.labels.clone(),
                predicted: p.clone(),
            });
        }
    }
    e
}

/// Evaluate the trained model in `models_dir` on the spec's `evaluation/` part.
pub fn evaluate_saved(
    spec: &dyn ModelSpec,
    dataset: &Path,
    models_dir: &Path,
) -> Result<(Evaluation, ReadStats)> {
    let dir = spec.name().dir(models_dir, spec.flavor());
    let model = Model::load(&dir, spec.feature_version())?;
    let (data, stats) = spec.read(dataset, Part::Evaluation)?;
    Ok((evaluate(&model, &data)?, stats))
}

fn read_event(part: &'static str, s: &ReadStats) -> Event {
    Event::Read {
        part,
        files: s.files_read,
        files_dropped: s.files_dropped.len(),
        sequences: s.sequences,
        tokens: s.tokens,
    }
}

fn tokens(data: &[Sequence]) -> usize {
    data.iter().map(|s| s.labels.len()).sum()
}

struct Trained {
    bytes: Vec<u8>,
    iterations: usize,
    seconds: f64,
}

/// One training with progress forwarding; `Ok(None)` when cancelled.
fn train_one(
    template: &Template,
    data: &[Sequence],
    params: &TrainParams,
    start: Option<&[u8]>,
    (fold, folds): (usize, usize),
    progress: &mut dyn FnMut(&Event),
    cancel: &AtomicBool,
) -> Result<Option<Trained>> {
    progress(&Event::TrainingStarted {
        fold,
        folds,
        sequences: data.len(),
        tokens: tokens(data),
    });
    let started = Instant::now();
    let mut iterations = 0;
    let mut on_iteration = |p: &Progress| {
        iterations = p.iteration;
        progress(&Event::Iteration {
            fold,
            folds,
            progress: p.clone(),
        });
        !cancel.load(Ordering::Relaxed)
    };
    let result = match start {
        Some(bytes) => crate::crf::train_from(template, data, params, bytes, &mut on_iteration),
        None => crate::crf::train(template, data, params, &mut on_iteration),
    };
    match result {
        Ok(bytes) => Ok(Some(Trained {
            bytes,
            iterations,
            seconds: started.elapsed().as_secs_f64(),
        })),
        Err(_) if cancel.load(Ordering::Relaxed) => Ok(None),
        Err(e) => Err(e),
    }
}

fn meta_for(
    spec: &dyn ModelSpec,
    labels: Vec<String>,
    digest: String,
    params: &TrainParams,
    evaluation: serde_json::Value,
) -> ModelMeta {
    ModelMeta {
        model: spec.name().dir_name(spec.flavor()),
        labels,
        feature_version: spec.feature_version(),
        data_digest: digest,
        params: params.clone(),
        evaluation,
    }
}

/// Train and evaluate `spec` on `dataset` as `kind` says; see the module documentation.
pub fn run(
    spec: &dyn ModelSpec,
    dataset: &Path,
    models_dir: &Path,
    kind: TrainingKind,
    params: &TrainParams,
    progress: &mut dyn FnMut(&Event),
    cancel: Arc<AtomicBool>,
) -> Result<TrainingReport> {
    run_from(
        spec, dataset, models_dir, kind, params, None, progress, cancel,
    )
}

/// As [`run`]; with `start` (a model folder holding a CRF trained for this spec) every
/// training starts from that model's weights ([`crate::crf::train_from`], GROBID's
/// `incremental`).
#[allow(clippy::too_many_arguments)]
pub fn run_from(
    spec: &dyn ModelSpec,
    dataset: &Path,
    models_dir: &Path,
    kind: TrainingKind,
    params: &TrainParams,
    start: Option<&Path>,
    progress: &mut dyn FnMut(&Event),
    cancel: Arc<AtomicBool>,
) -> Result<TrainingReport> {
    let template = Template::parse(spec.template())?;
    let start_bytes = match start {
        Some(dir) => {
            // Loading checks the files and the feature version first.
            Model::load(dir, spec.feature_version())?;
            let path = dir.join(crate::crf::MODEL_FILE);
            Some(std::fs::read(&path).map_err(|e| Error::Io { path, source: e })?)
        }
        None => None,
    };
    let mut report = TrainingReport::new(spec, "CRF", kind, serde_json::to_value(params), start);
    let parts = partition(spec, dataset, kind, progress, &mut report)?;
    let folds = parts.total;
    let mut pooled = Evaluation::new();
    for fold in &parts.folds {
        let (f, train_data) = (fold.number, &fold.train);
        let Some(trained) = train_one(
            &template,
            train_data,
            params,
            start_bytes.as_deref(),
            (f, folds),
            progress,
            &cancel,
        )?
        else {
            report.cancelled = true;
            return Ok(report);
        };
        report.iterations += trained.iterations;
        report.training_s += trained.seconds;
        report.train_sequences = train_data.len();
        let digest = digest(train_data);
        let mut model = Model::from_parts(
            &trained.bytes,
            template.clone(),
            meta_for(
                spec,
                vec![],
                digest.clone(),
                params,
                serde_json::Value::Null,
            ),
        )?;
        let eval = match &fold.eval {
            Some(data) => Some(record_fold(
                score(data, &label_all(&model, data)?, f, progress),
                data.len(),
                (f, folds),
                &mut report,
                &mut pooled,
                progress,
            )),
            None => None,
        };
        if parts.write {
            let evaluation = evaluation_json(eval.as_ref(), kind);
            let meta = meta_for(
                spec,
                model.labels().to_vec(),
                digest.clone(),
                params,
                evaluation,
            );
            let dir = spec.name().dir(models_dir, spec.flavor());
            Model::save_files(&dir, &trained.bytes, &template, &meta)?;
            spec.write_resources(dataset, models_dir)?;
            model = Model::from_parts(&trained.bytes, template.clone(), meta)?;
            progress(&Event::Written {
                dir: dir.clone(),
                model_bytes: trained.bytes.len(),
            });
            report.model_dir = Some(dir);
            report.model_bytes = Some(trained.bytes.len());
        }
        report.data_digest = model.meta().data_digest.clone();
    }
    if parts.evaluates() {
        report.evaluation = Some(pooled);
    }
    Ok(report)
}

/// Train and evaluate the BiLSTM-CRF architecture ([`crate::deep`]) for `spec`: the same
/// kinds, folds and seeds as [`run`], on the same sequences. `Full` and `Holdout` write
/// `models/<dir>/bilstm-crf/` (weights, vocabulary, `meta.json`); the CRF beside it is not
/// touched. Each epoch is reported as an `Iteration` event (loss per sequence; `train_error`
/// carries 100 − the held-out field F1 that picks the epoch). With `start` (a BiLSTM-CRF
/// folder) every training starts from that model's vocabulary and weights.
#[allow(clippy::too_many_arguments)]
pub fn run_deep(
    spec: &dyn ModelSpec,
    dataset: &Path,
    models_dir: &Path,
    kind: TrainingKind,
    params: &DeepParams,
    start: Option<&Path>,
    progress: &mut dyn FnMut(&Event),
    cancel: Arc<AtomicBool>,
) -> Result<TrainingReport> {
    let mut report = TrainingReport::new(
        spec,
        deep::ARCHITECTURE,
        kind,
        serde_json::to_value(params),
        start,
    );
    let parts = partition(spec, dataset, kind, progress, &mut report)?;
    let folds = parts.total;
    let mut pooled = Evaluation::new();
    for fold in &parts.folds {
        let (f, train_data) = (fold.number, &fold.train);
        progress(&Event::TrainingStarted {
            fold: f,
            folds,
            sequences: train_data.len(),
            tokens: tokens(train_data),
        });
        let trained = deep::train_from(train_data, params, start, &mut |p| {
            report_epoch(p, (f, folds), progress, &cancel)
        })?;
        let Some(mut trained) = trained else {
            report.cancelled = true;
            return Ok(report);
        };
        report.iterations += trained.epochs;
        report.training_s += trained.seconds;
        report.train_sequences = train_data.len();
        report.data_digest = digest(train_data);
        let eval = match &fold.eval {
            Some(data) => Some(record_fold(
                score(data, &names(trained.model.label_all(data)?), f, progress),
                data.len(),
                (f, folds),
                &mut report,
                &mut pooled,
                progress,
            )),
            None => None,
        };
        if parts.write {
            let mut evaluation = evaluation_json(eval.as_ref(), kind);
            evaluation["epochs"] = serde_json::json!(trained.epochs);
            evaluation["best_epoch"] = serde_json::json!(trained.best_epoch);
            evaluation["dev_field_f1"] = serde_json::json!(trained.best_dev_f1);
            let meta = serde_json::json!({
                "model": spec.name().dir_name(spec.flavor()),
                "architecture": deep::ARCHITECTURE,
                "labels": trained.model.labels(),
                "feature_version": spec.feature_version(),
                "data_digest": report.data_digest,
                "params": params,
                "evaluation": evaluation,
            });
            let dir = deep_dir(spec, models_dir);
            let bytes = trained.save(&dir, meta)?;
            progress(&Event::Written {
                dir: dir.clone(),
                model_bytes: bytes,
            });
            report.model_dir = Some(dir);
            report.model_bytes = Some(bytes);
        }
    }
    if parts.evaluates() {
        report.evaluation = Some(pooled);
    }
    Ok(report)
}

/// The CRF weights [`run_combined`] scores beside the chosen one: 0 (the BiLSTM-CRF alone)
/// to 1 (the CRF alone) in tenths.
pub const COMBINATION_WEIGHTS: [f32; 11] = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];

/// Train a CRF and a BiLSTM-CRF on each fold's training sequences and evaluate them decoding
/// together ([`crate::tagger::Combined`]) with `crf_weight`, the figure the report carries;
/// the same held-out sequences are also scored at every weight of [`COMBINATION_WEIGHTS`]
/// (pooled field micro F1 in [`TrainingReport::by_weight`]). With `deep_models` > 1 the
/// BiLSTM-CRF is an ensemble of that many, trained side by side on threads with the seeds
/// `deep_params.seed`, `+ 1`, …; each one's own pair and its figure alone are pooled in
/// [`TrainingReport::by_member`]. Split and n-fold only: the served pair is the CRF and the
/// BiLSTM-CRF trained separately, so nothing is written.
#[allow(clippy::too_many_arguments)]
pub fn run_combined(
    spec: &dyn ModelSpec,
    dataset: &Path,
    kind: TrainingKind,
    crf_params: &TrainParams,
    deep_params: &DeepParams,
    crf_weight: f32,
    deep_models: usize,
    progress: &mut dyn FnMut(&Event),
    cancel: Arc<AtomicBool>,
) -> Result<TrainingReport> {
    if deep_models == 0 {
        return Err(Error::BadInput(
            "a combined run needs at least one BiLSTM-CRF".into(),
        ));
    }
    if !matches!(
        kind,
        TrainingKind::Split { .. } | TrainingKind::NFold { .. }
    ) {
        return Err(Error::BadInput(format!(
            "a combined run evaluates (split or nfold); `{}` would write a model, and the \
             served pair is trained one architecture at a time",
            kind.name()
        )));
    }
    let template = Template::parse(spec.template())?;
    let params = serde_json::json!({ "crf": crf_params, "bilstm_crf": deep_params, "crf_weight": crf_weight });
    let mut report = TrainingReport::new(spec, crate::tagger::COMBINED, kind, Ok(params), None);
    let parts = partition(spec, dataset, kind, progress, &mut report)?;
    let folds = parts.total;
    let mut pooled = Evaluation::new();
    let mut by_weight = vec![Evaluation::new(); COMBINATION_WEIGHTS.len()];
    let mut by_member: Vec<(Evaluation, Evaluation)> = Vec::new();
    for fold in &parts.folds {
        let f = fold.number;
        let train_data = &fold.train;
        let Some(eval_data) = &fold.eval else {
            continue;
        };
        let Some(trained) = train_one(
            &template,
            train_data,
            crf_params,
            None,
            (f, folds),
            progress,
            &cancel,
        )?
        else {
            report.cancelled = true;
            return Ok(report);
        };
        let crf = Model::from_parts(
            &trained.bytes,
            template.clone(),
            meta_for(
                spec,
                vec![],
                digest(train_data),
                crf_params,
                serde_json::Value::Null,
            ),
        )?;
        let (deep, others) = std::thread::scope(|scope| {
            let others: Vec<_> = (1..deep_models as u64)
                .map(|k| {
                    let params = DeepParams {
                        seed: deep_params.seed + k,
                        ..deep_params.clone()
                    };
                    let cancel = &cancel;
                    scope.spawn(move || {
                        deep::train_from(train_data, &params, None, &mut |_| {
                            !cancel.load(Ordering::Relaxed)
                        })
                    })
                })
                .collect();
            let first = deep::train_from(train_data, deep_params, None, &mut |p| {
                report_epoch(p, (f, folds), progress, &cancel)
            });
            let others = others
                .into_iter()
                .map(|h| {
                    h.join()
                        .map_err(|_| Error::General("a BiLSTM-CRF training panicked".into()))?
                })
                .collect::<Result<Vec<_>>>();
            (first, others)
        });
        let (Some(deep), Some(others)) = (deep?, others?.into_iter().collect::<Option<Vec<_>>>())
        else {
            report.cancelled = true;
            return Ok(report);
        };
        report.iterations +=
            trained.iterations + deep.epochs + others.iter().map(|t| t.epochs).sum::<usize>();
        report.training_s += trained.seconds + deep.seconds;
        report.train_sequences = train_data.len();
        report.data_digest = digest(train_data);
        let rows: Vec<&[crate::features::Row]> =
            eval_data.iter().map(|s| s.rows.as_slice()).collect();
        let mut pair = crate::tagger::Combined::new(crf, deep.model, crf_weight)?;
        for other in others {
            pair = pair.and_also(other.model)?;
        }
        let members = pair.deep_models();
        if members > 1 {
            // Each member in its own pair with the CRF, and alone.
            by_member.resize_with(members, Default::default);
            for (k, (in_pair, alone)) in by_member.iter_mut().enumerate() {
                for (w, pooled_k) in [(crf_weight, in_pair), (0.0, alone)] {
                    pair = pair.with_weight(w)?;
                    let labels = pair.label_many_of(&[k], &rows)?;
                    pooled_k.merge(&score(eval_data, &names(labels), f, &mut |_| {}));
                }
            }
        }
        let mut sweep = Vec::with_capacity(COMBINATION_WEIGHTS.len());
        for (&w, pooled_w) in COMBINATION_WEIGHTS.iter().zip(by_weight.iter_mut()) {
            pair = pair.with_weight(w)?;
            let e = score(eval_data, &names(pair.label_many(&rows)?), f, &mut |_| {});
            sweep.push((w, 100.0 * e.field.micro().f1));
            pooled_w.merge(&e);
        }
        progress(&Event::Swept {
            fold: f,
            folds,
            field_micro_f1: sweep,
        });
        pair = pair.with_weight(crf_weight)?;
        record_fold(
            score(eval_data, &names(pair.label_many(&rows)?), f, progress),
            eval_data.len(),
            (f, folds),
            &mut report,
            &mut pooled,
            progress,
        );
    }
    report.evaluation = Some(pooled);
    report.by_weight = COMBINATION_WEIGHTS
        .iter()
        .zip(&by_weight)
        .map(|(&w, e)| (w, 100.0 * e.field.micro().f1))
        .collect();
    report.by_member = by_member
        .iter()
        .enumerate()
        .map(|(k, (in_pair, alone))| MemberFigures {
            seed: deep_params.seed + k as u64,
            pair_field_f1: 100.0 * in_pair.field.micro().f1,
            alone_field_f1: 100.0 * alone.field.micro().f1,
        })
        .collect();
    Ok(report)
}

/// Forwards a BiLSTM-CRF epoch as an iteration event (the dev F1's complement stands for the
/// training error); false once the run is cancelled, which stops the training.
fn report_epoch(
    p: &deep::EpochProgress,
    (fold, folds): (usize, usize),
    progress: &mut dyn FnMut(&Event),
    cancel: &AtomicBool,
) -> bool {
    progress(&Event::Iteration {
        fold,
        folds,
        progress: Progress {
            iteration: p.epoch,
            loss: p.loss,
            elapsed_s: p.elapsed_s,
            active_features: 0,
            train_error: 100.0 - p.dev_f1,
        },
    });
    !cancel.load(Ordering::Relaxed)
}

/// A fold's evaluation of `sequences` held-out sequences: reported, its field micro F1 kept
/// per fold, its counts pooled.
fn record_fold(
    e: Evaluation,
    sequences: usize,
    (fold, folds): (usize, usize),
    report: &mut TrainingReport,
    pooled: &mut Evaluation,
    progress: &mut dyn FnMut(&Event),
) -> Evaluation {
    report.eval_sequences += sequences;
    let f1 = 100.0 * e.field.micro().f1;
    progress(&Event::Evaluated {
        fold,
        folds,
        field_micro_f1: f1,
    });
    report.fold_field_f1.push(f1);
    pooled.merge(&e);
    e
}

/// The `evaluation` object of a written model's `meta.json`.
fn evaluation_json(eval: Option<&Evaluation>, kind: TrainingKind) -> serde_json::Value {
    let mut v = match eval {
        Some(e) => e.summary(),
        None => serde_json::json!({
            "note": "trained on corpus and evaluation parts; no held-out figures",
        }),
    };
    v["kind"] = serde_json::json!(kind.name());
    v
}

/// Where a model's BiLSTM-CRF lives: `models/<dir>/bilstm-crf/`.
pub fn deep_dir(spec: &dyn ModelSpec, models_dir: &Path) -> PathBuf {
    spec.name().dir(models_dir, spec.flavor()).join(deep::DIR)
}

/// Evaluate the BiLSTM-CRF in `models_dir` on the spec's `evaluation/` part.
pub fn evaluate_saved_deep(
    spec: &dyn ModelSpec,
    dataset: &Path,
    models_dir: &Path,
) -> Result<(Evaluation, ReadStats)> {
    let model = deep::Model::load(&deep_dir(spec, models_dir))?;
    let (data, stats) = spec.read(dataset, Part::Evaluation)?;
    Ok((model.evaluate(&data)?, stats))
}

/// Evaluate the CRF and the BiLSTM-CRF in `models_dir` decoding together with `crf_weight`
/// on the spec's `evaluation/` part.
pub fn evaluate_saved_combined(
    spec: &dyn ModelSpec,
    dataset: &Path,
    models_dir: &Path,
    crf_weight: f32,
) -> Result<(Evaluation, ReadStats)> {
    let dir = spec.name().dir(models_dir, spec.flavor());
    let pair = crate::tagger::Combined::new(
        Model::load(&dir, spec.feature_version())?,
        deep::Model::load(&deep_dir(spec, models_dir))?,
        crf_weight,
    )?;
    let (data, stats) = spec.read(dataset, Part::Evaluation)?;
    let rows: Vec<&[crate::features::Row]> = data.iter().map(|s| s.rows.as_slice()).collect();
    Ok((
        score(&data, &names(pair.label_many(&rows)?), 1, &mut |_| {}),
        stats,
    ))
}

/// One training of a run: its number (from 1), its training sequences and, unless the run
/// is `Full`, the sequences it is evaluated on.
struct Fold {
    number: usize,
    train: Vec<Sequence>,
    eval: Option<Vec<Sequence>>,
}

/// The trainings of a run, how many folds the run is cut into (more than `folds.len()` when
/// an n-fold run keeps only some), and whether it writes a model.
struct Partition {
    folds: Vec<Fold>,
    total: usize,
    write: bool,
}

impl Partition {
    fn single(train: Vec<Sequence>, eval: Option<Vec<Sequence>>, write: bool) -> Partition {
        Partition {
            folds: vec![Fold {
                number: 1,
                train,
                eval,
            }],
            total: 1,
            write,
        }
    }

    fn evaluates(&self) -> bool {
        self.folds.iter().any(|f| f.eval.is_some())
    }
}

/// Read the parts `kind` needs and cut them into training and evaluation sets (one pair per
/// fold), recording what was read in `report`.
fn partition(
    spec: &dyn ModelSpec,
    dataset: &Path,
    kind: TrainingKind,
    progress: &mut dyn FnMut(&Event),
    report: &mut TrainingReport,
) -> Result<Partition> {
    let (mut corpus, corpus_stats) = spec.read(dataset, Part::Corpus)?;
    progress(&read_event("corpus", &corpus_stats));
    report.corpus = corpus_stats;
    Ok(match kind {
        TrainingKind::Holdout => {
            let (eval_data, eval_stats) = spec.read(dataset, Part::Evaluation)?;
            progress(&read_event("evaluation", &eval_stats));
            report.evaluation_part = Some(eval_stats);
            Partition::single(corpus, Some(eval_data), true)
        }
        TrainingKind::Full => {
            // The evaluation part is extra training data here; a model without one trains
            // on its corpus alone.
            match spec.read(dataset, Part::Evaluation) {
                Ok((eval_data, eval_stats)) => {
                    progress(&read_event("evaluation", &eval_stats));
                    report.evaluation_part = Some(eval_stats);
                    corpus.extend(eval_data);
                }
                Err(e) => {
                    tracing::warn!(error = %e, "no evaluation part; training on the corpus only")
                }
            }
            Partition::single(corpus, None, true)
        }
        TrainingKind::Split { ratio, seed } => {
            if !(ratio > 0.0 && ratio < 1.0) {
                return Err(Error::BadInput(format!(
                    "split ratio must be between 0 and 1, got {ratio}"
                )));
            }
            shuffle(&mut corpus, seed);
            let cut = ((corpus.len() as f64) * ratio).round() as usize;
            let cut = cut.clamp(1, corpus.len().saturating_sub(1).max(1));
            let rest = corpus.split_off(cut.min(corpus.len()));
            Partition::single(corpus, Some(rest), false)
        }
        TrainingKind::NFold { k, seed, only } => {
            if k < 2 || k > corpus.len() {
                return Err(Error::BadInput(format!(
                    "n-fold needs 2 ≤ k ≤ {} (sequences), got {k}",
                    corpus.len()
                )));
            }
            let (first, last) = only.unwrap_or((1, k));
            if first < 1 || first > last || last > k {
                return Err(Error::BadInput(format!(
                    "n-fold folds {first}-{last} are not within 1-{k}"
                )));
            }
            shuffle(&mut corpus, seed);
            let n = corpus.len();
            let folds = (first..=last)
                .map(|number| {
                    let f = number - 1;
                    let (b, e) = (n * f / k, n * (f + 1) / k);
                    let mut train = corpus[..b].to_vec();
                    train.extend_from_slice(&corpus[e..]);
                    Fold {
                        number,
                        train,
                        eval: Some(corpus[b..e].to_vec()),
                    }
                })
                .collect();
            Partition {
                folds,
                total: k,
                write: false,
            }
        }
    })
}

fn shuffle(data: &mut [Sequence], seed: u64) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    data.shuffle(&mut rng);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::ModelName;

    /// A tiny model spec over sequences written here: words labelled by their shape.
    struct Toy;

    fn toy_seq(i: usize) -> Sequence {
        let words = [
            ("Smith", "I-<surname>"),
            ("J", "I-<forename>"),
            (".", "<forename>"),
            ("and", "<other>"),
            ("Lee", "I-<surname>"),
            ("K", "I-<forename>"),
        ];
        let rot = i % 3;
        let toks: Vec<_> = words.iter().cycle().skip(rot * 2).take(6).collect();
        Sequence {
            rows: toks
                .iter()
                .map(|(w, _)| vec![(*w).into(), (w.len() == 1).to_string().into()])
                .collect(),
            labels: toks.iter().map(|(_, l)| l.to_string()).collect(),
        }
    }

    impl ModelSpec for Toy {
        fn name(&self) -> ModelName {
            ModelName::NameCitation
        }
        fn feature_version(&self) -> u32 {
            7
        }
        fn template(&self) -> &'static str {
            "U00:%x[0,0]\nU01:%x[0,1]\nU02:%x[-1,0]\nU03:%x[1,0]\nB\n"
        }
        fn default_params(&self) -> TrainParams {
            TrainParams {
                c1: 0.05,
                c2: 0.01,
                epsilon: 1e-5,
                window: 5,
                max_iter: 100,
                threads: 1,
            }
        }
        fn read(&self, _dataset: &Path, part: Part) -> Result<(Vec<Sequence>, ReadStats)> {
            let n = if part == Part::Corpus { 30 } else { 6 };
            let data: Vec<_> = (0..n).map(toy_seq).collect();
            let stats = ReadStats {
                files_read: 1,
                files_dropped: vec![],
                sequences: data.len(),
                tokens: tokens(&data),
                unaligned: 0,
            };
            Ok((data, stats))
        }
    }

    fn temp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("quire-training-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    /// The data digest is the SHA-256 of the sequences as written for training (cells and the
    /// label tab-separated, a blank line after each sequence), in lower-case hex.
    #[test]
    fn digest_is_sha256_of_the_sequences_as_text() {
        let seq = |rows: &[&[&str]], labels: &[&str]| Sequence {
            rows: rows
                .iter()
                .map(|r| r.iter().map(|c| (*c).into()).collect())
                .collect(),
            labels: labels.iter().map(|l| l.to_string()).collect(),
        };
        let data = [
            seq(&[&["a", "b"], &["c", "d"]], &["B-x", "I-x"]),
            seq(&[&["e"]], &["y"]),
        ];
        // printf 'a\tb\tB-x\nc\td\tI-x\n\ne\ty\n\n' | sha256sum
        assert_eq!(
            digest(&data),
            "181c4d2170bf680c99620b0041be79345f2839015284c3db5c8b6d773c2254b1"
        );
        assert_eq!(
            digest(&[]),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn holdout_writes_a_loadable_model_with_figures() {
        let dir = temp("holdout");
        let mut events = Vec::new();
        let report = run(
            &Toy,
            Path::new("unused"),
            &dir,
            TrainingKind::Holdout,
            &Toy.default_params(),
            &mut |e| events.push(format!("{e:?}")),
            Arc::new(AtomicBool::new(false)),
        )
        .unwrap();
        assert!(!report.cancelled);
        let e = report.evaluation.as_ref().unwrap();
        assert_eq!(e.field.micro().f1, 1.0, "{}", e.table());
        let mdir = report.model_dir.clone().unwrap();
        assert_eq!(mdir, dir.join("name-citation"));
        let model = Model::load(&mdir, 7).unwrap();
        assert_eq!(
            model.meta().data_digest,
            digest(&Toy.read(&dir, Part::Corpus).unwrap().0)
        );
        assert_eq!(model.meta().evaluation["field_level"]["micro"]["f1"], 100.0);
        assert_eq!(model.meta().evaluation["kind"], "holdout");
        assert_eq!(model.meta().labels.len(), 4);
        let (saved_eval, _) = evaluate_saved(&Toy, Path::new("unused"), &dir).unwrap();
        assert_eq!(&saved_eval, e);
        assert!(events.iter().any(|e| e.contains("Iteration")));
        assert!(events.iter().any(|e| e.contains("Written")));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn another_template_is_trained_written_and_read_back() {
        static TOY: Toy = Toy;
        let dir = temp("template");
        let other = crate::training::WithTemplate {
            inner: &TOY,
            template: "U00:%x[0,0]\nU09:%x[0,0]/%x[-1,1]\nB\n",
        };
        let report = run(
            &other,
            Path::new("unused"),
            &dir,
            TrainingKind::Holdout,
            &Toy.default_params(),
            &mut |_| {},
            Arc::new(AtomicBool::new(false)),
        )
        .unwrap();
        let mdir = report.model_dir.clone().unwrap();
        let written = std::fs::read_to_string(mdir.join("template.txt")).unwrap();
        assert!(written.contains("U09:%x[0,0]/%x[-1,1]"), "{written}");
        assert!(!written.contains("U03:%x[1,0]"), "{written}");
        let model = Model::load(&mdir, 7).unwrap();
        assert_eq!(model.template(), &Template::parse(other.template).unwrap());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn nfold_and_split_evaluate_every_sequence_once_and_write_nothing() {
        let dir = temp("nfold");
        let cancel = Arc::new(AtomicBool::new(false));
        let p = Toy.default_params();
        let r = run(
            &Toy,
            &dir,
            &dir,
            TrainingKind::NFold {
                k: 3,
                seed: 1,
                only: None,
            },
            &p,
            &mut |_| {},
            cancel.clone(),
        )
        .unwrap();
        assert_eq!(r.fold_field_f1.len(), 3);
        assert_eq!(r.evaluation.as_ref().unwrap().instances, 30);
        assert_eq!(r.eval_sequences, 30);
        assert!(r.model_dir.is_none() && !dir.exists());
        let s = run(
            &Toy,
            &dir,
            &dir,
            TrainingKind::Split {
                ratio: 0.8,
                seed: 5,
            },
            &p,
            &mut |_| {},
            cancel,
        )
        .unwrap();
        assert_eq!((s.train_sequences, s.eval_sequences), (24, 6));
        assert!(!dir.exists());
    }

    #[test]
    fn an_nfold_run_of_some_folds_repeats_those_folds_of_the_whole_run() {
        let cancel = Arc::new(AtomicBool::new(false));
        let p = Toy.default_params();
        let d = Path::new("unused");
        let kind = |only| TrainingKind::NFold {
            k: 3,
            seed: 1,
            only,
        };
        let whole = run(&Toy, d, d, kind(None), &p, &mut |_| {}, cancel.clone()).unwrap();
        let mut numbered = Vec::new();
        let part = run(
            &Toy,
            d,
            d,
            kind(Some((2, 3))),
            &p,
            &mut |e| {
                if let Event::Evaluated { fold, folds, .. } = e {
                    numbered.push((*fold, *folds));
                }
            },
            cancel,
        )
        .unwrap();
        assert_eq!(numbered, [(2, 3), (3, 3)]);
        assert_eq!(part.fold_field_f1, whole.fold_field_f1[1..]);
        assert_eq!(part.evaluation.as_ref().unwrap().instances, 20);
        assert_eq!(part.kind, kind(Some((2, 3))));
    }

    #[test]
    fn a_combined_run_scores_the_pair_on_every_fold_at_every_weight() {
        let cancel = Arc::new(AtomicBool::new(false));
        let p = Toy.default_params();
        let deep = DeepParams {
            hidden: 8,
            word_dim: 8,
            char_filters: 8,
            max_epochs: 2,
            ..DeepParams::default()
        };
        let kind = TrainingKind::NFold {
            k: 3,
            seed: 1,
            only: None,
        };
        let mut evaluated = 0;
        let mut sweeps = Vec::new();
        let r = run_combined(
            &Toy,
            Path::new("unused"),
            kind,
            &p,
            &deep,
            0.5,
            1,
            &mut |e| match e {
                Event::Evaluated { .. } => evaluated += 1,
                Event::Swept { field_micro_f1, .. } => sweeps.push(field_micro_f1.clone()),
                _ => {}
            },
            cancel.clone(),
        )
        .unwrap();
        assert_eq!(r.architecture, "CRF+BiLSTM-CRF");
        assert_eq!((evaluated, r.fold_field_f1.len()), (3, 3));
        // Each fold's sweep covers every weight, and at the chosen weight (0.5, the sixth) it
        // is the fold's own figure.
        assert_eq!(sweeps.len(), 3);
        for (sweep, fold_f1) in sweeps.iter().zip(&r.fold_field_f1) {
            let weights: Vec<f32> = sweep.iter().map(|(w, _)| *w).collect();
            assert_eq!(weights, COMBINATION_WEIGHTS);
            assert!((sweep[5].1 - fold_f1).abs() < 1e-9, "{sweep:?} {fold_f1}");
        }
        assert_eq!(r.evaluation.as_ref().unwrap().instances, 30);
        let weights: Vec<f32> = r.by_weight.iter().map(|(w, _)| *w).collect();
        assert_eq!(weights, COMBINATION_WEIGHTS);
        // At weight 1 the pair labels as the CRF: the CRF's own run on the same folds.
        let crf = run(
            &Toy,
            Path::new("unused"),
            &temp("combined"),
            kind,
            &p,
            &mut |_| {},
            cancel.clone(),
        )
        .unwrap();
        let crf_f1 = 100.0 * crf.evaluation.unwrap().field.micro().f1;
        assert!(
            (r.by_weight[10].1 - crf_f1).abs() < 1e-9,
            "{:?} {crf_f1}",
            r.by_weight
        );
        let quiet = |kind: TrainingKind, deep_models: usize| {
            run_combined(
                &Toy,
                Path::new("unused"),
                kind,
                &p,
                &deep,
                0.5,
                deep_models,
                &mut |_| {},
                cancel.clone(),
            )
        };
        for refused in [TrainingKind::Holdout, TrainingKind::Full] {
            assert!(matches!(quiet(refused, 1), Err(Error::BadInput(_))));
        }
        assert!(matches!(quiet(kind, 0), Err(Error::BadInput(_))));
        assert!(r.by_member.is_empty(), "one BiLSTM-CRF is no ensemble");
        // An ensemble of two: its first member has the seed of the run above, so (training
        // being reproducible) it is the same model and scores as that run's BiLSTM-CRF did.
        let two = quiet(kind, 2).unwrap();
        let seeds: Vec<u64> = two.by_member.iter().map(|m| m.seed).collect();
        assert_eq!(seeds, [deep.seed, deep.seed + 1]);
        let pair_f1 = 100.0 * r.evaluation.as_ref().unwrap().field.micro().f1;
        assert!((two.by_member[0].pair_field_f1 - pair_f1).abs() < 1e-9);
        assert!((two.by_member[0].alone_field_f1 - r.by_weight[0].1).abs() < 1e-9);
        // At weight 1 the ensemble labels as the CRF too.
        assert!((two.by_weight[10].1 - crf_f1).abs() < 1e-9);
    }

    #[test]
    fn scoring_reports_exactly_the_mislabelled_sequences() {
        let data: Vec<Sequence> = (0..3).map(toy_seq).collect();
        let mut predicted: Vec<Vec<String>> = data.iter().map(|s| s.labels.clone()).collect();
        predicted[1][3] = "I-<surname>".to_string();
        let mut seen = Vec::new();
        let e = score(&data, &predicted, 4, &mut |ev| {
            if let Event::Mislabelled {
                fold,
                tokens,
                gold,
                predicted,
            } = ev
            {
                seen.push((*fold, tokens.clone(), gold.clone(), predicted.clone()));
            }
        });
        assert_eq!(e.instances, 3);
        assert_eq!(seen.len(), 1);
        let (fold, tokens, gold, p) = &seen[0];
        assert_eq!(*fold, 4);
        let words: Vec<&str> = data[1].rows.iter().map(|r| r[0].as_str()).collect();
        assert_eq!(tokens, &words);
        assert_eq!(gold, &data[1].labels);
        assert_eq!(p, &predicted[1]);
    }

    #[test]
    fn cancel_flag_stops_the_run_without_writing() {
        let dir = temp("cancel");
        let cancel = Arc::new(AtomicBool::new(false));
        let flag = cancel.clone();
        let mut seen = 0;
        let r = run(
            &Toy,
            &dir,
            &dir,
            TrainingKind::Holdout,
            &Toy.default_params(),
            &mut |e| {
                if let Event::Iteration { progress, .. } = e {
                    seen = progress.iteration;
                    if progress.iteration == 2 {
                        flag.store(true, Ordering::Relaxed);
                    }
                }
            },
            cancel,
        )
        .unwrap();
        assert!(r.cancelled);
        assert_eq!(seen, 2);
        assert!(!dir.exists());
    }

    #[test]
    fn full_trains_on_both_parts_and_writes_a_model_without_figures() {
        let dir = temp("full");
        let r = run(
            &Toy,
            Path::new("unused"),
            &dir,
            TrainingKind::Full,
            &Toy.default_params(),
            &mut |_| {},
            Arc::new(AtomicBool::new(false)),
        )
        .unwrap();
        assert_eq!(r.train_sequences, 36);
        assert!(r.evaluation.is_none());
        let model = Model::load(&dir.join("name-citation"), 7).unwrap();
        assert_eq!(model.meta().evaluation["kind"], "full");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn bad_kinds_are_refused() {
        let p = Toy.default_params();
        let c = Arc::new(AtomicBool::new(false));
        let d = Path::new("unused");
        let split = TrainingKind::Split {
            ratio: 1.5,
            seed: 0,
        };
        assert!(run(&Toy, d, d, split, &p, &mut |_| {}, c.clone()).is_err());
        let nfold = |k, only| TrainingKind::NFold { k, seed: 0, only };
        assert!(run(&Toy, d, d, nfold(1, None), &p, &mut |_| {}, c.clone()).is_err());
        for only in [(0, 2), (3, 2), (2, 4)] {
            let r = run(&Toy, d, d, nfold(3, Some(only)), &p, &mut |_| {}, c.clone());
            assert!(r.is_err(), "{only:?}");
        }
    }
}
