/*!
CRF core: feature templates, training (Quire's own OWL-QN trainer), the CRFsuite model format
that `crfs` loads, tagging, and GROBID-style evaluation.

CONTRACT (other crates code against these names; the bodies are filled in by the CRF work):
- `Sequence { rows, labels }`: `rows[i]` are the feature columns of token i (column 0 = token).
- `Template::parse(text)`, `Template::expand(&rows) -> Vec<Vec<String>>` (CRF attributes).
- `train(&template, &data, &params, &mut progress) -> Result<Vec<u8>>` (CRFsuite model bytes).
- `Model::load(dir, feature_version)`, `Model::label(&rows) -> Result<Vec<String>>`,
  `Model::meta()`; `ModelMeta` is `meta.json`.
*/

use std::path::Path;

use crate::Result;

/// One training sequence: feature columns per token and the gold label per token.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Sequence {
    pub rows: Vec<Vec<String>>,
    pub labels: Vec<String>,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct TrainParams {
    pub c1: f64,
    pub c2: f64,
    pub epsilon: f64,
    pub window: usize,
    pub max_iter: usize,
    pub threads: usize,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Progress {
    pub iteration: usize,
    pub loss: f64,
    pub elapsed_s: f64,
    pub active_features: usize,
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

#[derive(Debug, Clone)]
pub struct Template {
    _private: (),
}

impl Template {
    pub fn parse(_text: &str) -> Result<Template> {
        unimplemented!("CRF core")
    }
    pub fn expand(&self, _rows: &[Vec<String>]) -> Vec<Vec<String>> {
        unimplemented!("CRF core")
    }
}

pub fn train(
    _template: &Template,
    _data: &[Sequence],
    _params: &TrainParams,
    _progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<Vec<u8>> {
    unimplemented!("CRF core")
}

/// A loaded model, ready to label feature rows. Shared between threads.
pub struct Model {
    _private: (),
}

impl Model {
    pub fn load(_dir: &Path, _feature_version: u32) -> Result<Model> {
        unimplemented!("CRF core")
    }
    pub fn label(&self, _rows: &[Vec<String>]) -> Result<Vec<String>> {
        unimplemented!("CRF core")
    }
    pub fn meta(&self) -> &ModelMeta {
        unimplemented!("CRF core")
    }
}
