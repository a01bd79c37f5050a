/*!
CRF core: feature templates, training (Quire's own OWL-QN trainer), the CRFsuite model format
that `crfs` loads, tagging, and GROBID-style evaluation.

Files: `template.rs` (templates → attribute strings), `train.rs` (corpus interning, features,
parallel forward-backward), `lbfgs.rs` (L-BFGS/OWL-QN), `format.rs` (CRFsuite file writer and
reader), `model.rs` (loading and Viterbi tagging), `training.rs` (the training driver: full,
holdout, split and n-fold runs with evaluation and `models/<dir>/` output).

The public contract:
- `Sequence { rows, labels }`: `rows[i]` are the feature columns of token i (column 0 = token).
- `Template::parse(text)`, `Template::expand(&rows) -> Vec<Vec<String>>` (CRF attributes).
- `train(&template, &data, &params, &mut progress) -> Result<Vec<u8>>` (CRFsuite model bytes).
- `Model::load(dir, feature_version)`, `Model::label(&rows) -> Result<Labels>` (ids into
  `Model::label_set()`),
  `Model::meta()`; `ModelMeta` is `meta.json`.
*/

mod format;
pub(crate) mod fxhash;
pub mod lbfgs;
mod model;
mod template;
mod train;

pub use model::{Model, META_FILE, MODEL_FILE, TEMPLATE_FILE};
pub use template::Template;

use crate::Result;

/// One training sequence: feature columns per token and the gold label per token.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Sequence {
    pub rows: crate::features::Rows,
    pub labels: Vec<String>,
}

impl Sequence {
    /// The tokens: column 0 of each row.
    pub fn tokens(&self) -> Vec<String> {
        self.rows
            .iter()
            .map(|r| r.first().map(|t| t.to_string()).unwrap_or_default())
            .collect()
    }
}

/// Training settings. The penalty is Wapiti's elastic net: `c1·‖w‖₁ + c2/2·‖w‖²` added to the
/// negative log-likelihood summed over sequences (CRFsuite's `c2` is half of this `c2`).
/// Stopping follows Wapiti's `-e`/`-w`/`-i`: stop when the token error rate on the training
/// data (in percent) varied by less than `epsilon` over the last `window` iterations, when the
/// objective changed by less than `epsilon` (relative) over 5 iterations, when the gradient
/// vanishes, or after `max_iter` iterations. `threads = 0` uses every core.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TrainParams {
    pub c1: f64,
    pub c2: f64,
    pub epsilon: f64,
    pub window: usize,
    pub max_iter: usize,
    pub threads: usize,
}

impl Default for TrainParams {
    /// Wapiti's defaults as GROBID uses them (ρ1 = 0.5, ρ2 = 0.0001, ε = 1e-5, window 20,
    /// 2000 iterations).
    fn default() -> Self {
        TrainParams {
            c1: 0.5,
            c2: 1e-4,
            epsilon: 1e-5,
            window: 20,
            max_iter: 2000,
            threads: 0,
        }
    }
}

impl TrainParams {
    /// Wapiti's penalties with a model's GROBID stopping settings (grobid-models.md §7).
    pub fn grobid(epsilon: f64, window: usize, max_iter: usize) -> TrainParams {
        TrainParams {
            epsilon,
            window,
            max_iter,
            ..TrainParams::default()
        }
    }
}

/// One training iteration, as reported to the progress callback.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Progress {
    pub iteration: usize,
    pub loss: f64,
    pub elapsed_s: f64,
    pub active_features: usize,
    /// Token error rate on the training data, in percent (Wapiti's `err=`).
    pub train_error: f64,
}

/// Contents of `meta.json` beside every trained model.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct ModelMeta {
    pub model: String,
    pub labels: Vec<String>,
    pub feature_version: u32,
    pub data_digest: String,
    pub params: TrainParams,
    pub evaluation: serde_json::Value,
}

/// Train a linear-chain CRF on `data` with the attributes `template` produces; return the
/// model in CRFsuite format (only non-zero features). `progress` is called after every
/// iteration and returning `false` cancels (the result is then an error saying so).
pub fn train(
    template: &Template,
    data: &[Sequence],
    params: &TrainParams,
    progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<Vec<u8>> {
    train::train(template, data, params, None, progress)
}

/// Incremental training (Wapiti's `-m`, GROBID's `incremental`): as [`train`], but the
/// weights start from the model in `start` (CRFsuite bytes, as [`train`] writes them) for every
/// feature both share: an attribute and label pair of the new data that the old model
/// weighted, and the transitions between labels both know. Features the old model lacks start
/// at zero; features only the old model had are dropped (a feature exists only where the new
/// data observes it).
pub fn train_from(
    template: &Template,
    data: &[Sequence],
    params: &TrainParams,
    start: &[u8],
    progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<Vec<u8>> {
    train::train(template, data, params, Some(start), progress)
}

#[cfg(test)]
mod tests;
