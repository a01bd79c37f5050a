/*!
A trained sequence labeller of either architecture, as the model actors serve it.

A model's folder (`models/<model>/`) always holds the CRF (`model.crf`, `template.txt`,
`meta.json`) and may hold a BiLSTM-CRF beside it (`bilstm-crf/`). Which one serves is
declared in the folder: `serving.json` with `{"architecture": "BiLSTM-CRF"}` serves the deep
model; without that file, or with `"CRF"`, the CRF serves. Both read the same feature rows,
so the decoders above them do not change.
*/

use std::path::Path;

use crate::{crf, deep, Error, Result};

/// The declaration file in a model's folder.
pub const SERVING_FILE: &str = "serving.json";

/// The CRF's architecture name in the interface.
pub const CRF: &str = "CRF";

/// A loaded labeller.
#[derive(Debug)]
pub enum Tagger {
    Crf(crf::Model),
    Deep(deep::Model),
}

/// The architecture `dir`'s `serving.json` declares (`CRF` when there is none).
pub fn served_architecture(dir: &Path) -> Result<&'static str> {
    let path = dir.join(SERVING_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(CRF),
        Err(e) => return Err(Error::Io { path, source: e }),
    };
    let v: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| Error::General(format!("{}: {e}", path.display())))?;
    architecture_name(v["architecture"].as_str().unwrap_or(CRF)).ok_or_else(|| {
        Error::General(format!(
            "{}: unknown architecture {} (CRF or BiLSTM-CRF)",
            path.display(),
            v["architecture"]
        ))
    })
}

/// The canonical spelling of an architecture name given in any case.
pub fn architecture_name(raw: &str) -> Option<&'static str> {
    match raw.trim().to_ascii_lowercase().as_str() {
        "crf" => Some(CRF),
        "bilstm-crf" | "bilstm_crf" | "bidlstm_crf" | "bidlstm-crf" => Some(deep::ARCHITECTURE),
        _ => None,
    }
}

/// The folder holding `architecture`'s files inside a model's folder.
pub fn architecture_dir(dir: &Path, architecture: &str) -> std::path::PathBuf {
    if architecture == deep::ARCHITECTURE {
        dir.join(deep::DIR)
    } else {
        dir.to_path_buf()
    }
}

/// The file whose presence says that `architecture` is trained in `dir`.
pub fn weights_file(dir: &Path, architecture: &str) -> std::path::PathBuf {
    if architecture == deep::ARCHITECTURE {
        dir.join(deep::DIR).join(deep::WEIGHTS_FILE)
    } else {
        dir.join(crf::MODEL_FILE)
    }
}

impl Tagger {
    /// Load what `dir` declares it serves; a deep model must have been trained with
    /// `feature_version` as the CRF must.
    pub fn load(dir: &Path, feature_version: u32) -> Result<Tagger> {
        let architecture = served_architecture(dir)?;
        Tagger::load_as(
            &architecture_dir(dir, architecture),
            architecture,
            feature_version,
        )
    }

    /// Load `architecture`'s files from `files` (a model folder for the CRF, its
    /// `bilstm-crf/` for the deep model), checking the feature version either way.
    pub fn load_as(files: &Path, architecture: &str, feature_version: u32) -> Result<Tagger> {
        if architecture != deep::ARCHITECTURE {
            return Ok(Tagger::Crf(crf::Model::load(files, feature_version)?));
        }
        let model = deep::Model::load(files)?;
        let found = model.meta()["feature_version"].as_u64().unwrap_or(0) as u32;
        if found != feature_version {
            return Err(Error::ModelMismatch {
                model: files.display().to_string(),
                expected: feature_version,
                found,
            });
        }
        Ok(Tagger::Deep(model))
    }

    pub fn architecture(&self) -> &'static str {
        match self {
            Tagger::Crf(_) => CRF,
            Tagger::Deep(_) => deep::ARCHITECTURE,
        }
    }

    pub fn labels(&self) -> &[String] {
        match self {
            Tagger::Crf(m) => m.labels(),
            Tagger::Deep(m) => m.labels(),
        }
    }

    pub fn label(&self, rows: &[Vec<String>]) -> Result<Vec<String>> {
        match self {
            Tagger::Crf(m) => m.label(rows),
            Tagger::Deep(m) => m.label(rows),
        }
    }

    /// Label several sequences (batched by length for the deep model).
    pub fn label_many(&self, seqs: &[&[Vec<String>]]) -> Result<Vec<Vec<String>>> {
        match self {
            Tagger::Crf(m) => seqs.iter().map(|rows| m.label(rows)).collect(),
            Tagger::Deep(m) => m.label_many(seqs),
        }
    }
}

impl From<crf::Model> for Tagger {
    fn from(m: crf::Model) -> Tagger {
        Tagger::Crf(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_declaration_names_the_architecture_and_defaults_to_crf() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(served_architecture(dir.path()).unwrap(), CRF);
        std::fs::write(
            dir.path().join(SERVING_FILE),
            r#"{"architecture": "bilstm-crf"}"#,
        )
        .unwrap();
        assert_eq!(served_architecture(dir.path()).unwrap(), "BiLSTM-CRF");
        std::fs::write(dir.path().join(SERVING_FILE), r#"{"architecture": "GRU"}"#).unwrap();
        assert!(served_architecture(dir.path()).is_err());
        std::fs::write(dir.path().join(SERVING_FILE), "not json").unwrap();
        assert!(served_architecture(dir.path()).is_err());
        assert_eq!(architecture_name(" CRF "), Some(CRF));
        assert_eq!(architecture_name("BiLSTM-CRF-ELMo"), None);
        assert_eq!(
            weights_file(dir.path(), "BiLSTM-CRF"),
            dir.path().join("bilstm-crf/model.safetensors")
        );
    }

    #[test]
    fn a_declared_deep_model_that_is_missing_fails_to_load_with_its_path() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(SERVING_FILE),
            r#"{"architecture": "BiLSTM-CRF"}"#,
        )
        .unwrap();
        let e = Tagger::load(dir.path(), 1).unwrap_err().to_string();
        assert!(e.contains("bilstm-crf"), "{e}");
    }

    #[test]
    fn a_declared_deep_model_serves_and_its_feature_version_is_checked() {
        let seq = |w: &[&str], l: &[&str]| crf::Sequence {
            rows: w.iter().map(|t| vec![t.to_string()]).collect(),
            labels: l.iter().map(|t| t.to_string()).collect(),
        };
        let data: Vec<crf::Sequence> = (0..12)
            .map(|_| {
                seq(
                    &["Smith", "J", "."],
                    &["I-<surname>", "I-<forename>", "<forename>"],
                )
            })
            .collect();
        let params = deep::DeepParams {
            hidden: 8,
            word_dim: 8,
            char_filters: 8,
            max_epochs: 3,
            ..deep::DeepParams::default()
        };
        let mut trained = deep::train(&data, &params, &mut |_| true).unwrap().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let meta = serde_json::json!({"feature_version": 3});
        trained.save(&dir.path().join(deep::DIR), meta).unwrap();
        std::fs::write(
            dir.path().join(SERVING_FILE),
            r#"{"architecture": "BiLSTM-CRF"}"#,
        )
        .unwrap();
        let t = Tagger::load(dir.path(), 3).unwrap();
        assert_eq!(t.architecture(), "BiLSTM-CRF");
        let rows = &data[0].rows;
        assert_eq!(t.label(rows).unwrap(), trained.model.label(rows).unwrap());
        assert_eq!(t.label_many(&[rows, rows]).unwrap().len(), 2);
        assert!(matches!(
            Tagger::load(dir.path(), 4),
            Err(Error::ModelMismatch { found: 3, .. })
        ));
    }
}
