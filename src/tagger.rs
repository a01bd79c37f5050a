/*!
A trained sequence labeller of either architecture, as the model actors serve it.

A model's folder (`models/<model>/`) always holds the CRF (`model.crf`, `template.txt`,
`meta.json`) and may hold a BiLSTM-CRF beside it (`bilstm-crf/`). Which one serves is
declared in the folder: `serving.json` with `{"architecture": "BiLSTM-CRF"}` serves the deep
model; `{"architecture": "CRF+BiLSTM-CRF", "crf_weight": 0.5}` serves both decoding together
([`Combined`]); without that file, or with `"CRF"`, the CRF serves. All read the same feature
rows, so the decoders above them do not change.
*/

use std::path::Path;

use crate::features::Row;
use crate::labels::Labels;
use crate::{crf, deep, Error, Result};

/// The declaration file in a model's folder.
pub const SERVING_FILE: &str = "serving.json";

/// The CRF's architecture name in the interface.
pub const CRF: &str = "CRF";

/// The name under which a CRF and a BiLSTM-CRF serve together ([`Combined`]). It is a way
/// to serve, not an architecture to train: each of the two is trained on its own.
pub const COMBINED: &str = "CRF+BiLSTM-CRF";

/// The CRF's weight when a CRF and a BiLSTM-CRF decode together and `serving.json` gives
/// none: an even product of experts.
pub const DEFAULT_CRF_WEIGHT: f32 = 0.5;

/// A loaded labeller.
#[derive(Debug)]
pub enum Tagger {
    Crf(crf::Model),
    Deep(deep::Model),
    Combined(Box<Combined>),
}

/// What a model folder's `serving.json` declares.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Serving {
    /// [`CRF`], [`deep::ARCHITECTURE`] or [`COMBINED`].
    pub architecture: &'static str,
    /// The CRF's weight for [`COMBINED`] (`crf_weight`, default [`DEFAULT_CRF_WEIGHT`]).
    pub crf_weight: f32,
}

/// What `dir`'s `serving.json` declares (the CRF when there is none).
pub fn serving(dir: &Path) -> Result<Serving> {
    let path = dir.join(SERVING_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Serving {
                architecture: CRF,
                crf_weight: DEFAULT_CRF_WEIGHT,
            })
        }
        Err(e) => return Err(Error::Io { path, source: e }),
    };
    let bad = |what: String| Error::General(format!("{}: {what}", path.display()));
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    let raw = v["architecture"].as_str().unwrap_or(CRF);
    let architecture = if raw.trim().eq_ignore_ascii_case(COMBINED) {
        COMBINED
    } else {
        architecture_name(raw).ok_or_else(|| {
            bad(format!(
                "unknown architecture {} (CRF, BiLSTM-CRF or {COMBINED})",
                v["architecture"]
            ))
        })?
    };
    let crf_weight = match &v["crf_weight"] {
        serde_json::Value::Null => DEFAULT_CRF_WEIGHT,
        w => match w.as_f64() {
            Some(w) if (0.0..=1.0).contains(&w) => w as f32,
            _ => {
                return Err(bad(format!(
                    "crf_weight must be a number from 0 to 1, not {w}"
                )))
            }
        },
    };
    Ok(Serving {
        architecture,
        crf_weight,
    })
}

/// The architecture `dir`'s `serving.json` declares (`CRF` when there is none).
pub fn served_architecture(dir: &Path) -> Result<&'static str> {
    Ok(serving(dir)?.architecture)
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

/// The file whose presence says that `architecture` is trained in `dir` (for [`COMBINED`],
/// the BiLSTM-CRF's: the CRF is always there).
pub fn weights_file(dir: &Path, architecture: &str) -> std::path::PathBuf {
    if architecture == deep::ARCHITECTURE || architecture == COMBINED {
        dir.join(deep::DIR).join(deep::WEIGHTS_FILE)
    } else {
        dir.join(crf::MODEL_FILE)
    }
}

impl Tagger {
    /// Load what `dir` declares it serves; a deep model must have been trained with
    /// `feature_version` as the CRF must.
    pub fn load(dir: &Path, feature_version: u32) -> Result<Tagger> {
        let declared = serving(dir)?;
        let architecture = declared.architecture;
        if architecture == COMBINED {
            let crf = crf::Model::load(dir, feature_version)?;
            let Tagger::Deep(deep) =
                Tagger::load_as(&dir.join(deep::DIR), deep::ARCHITECTURE, feature_version)?
            else {
                unreachable!("load_as loads the architecture it is given")
            };
            return Ok(Tagger::Combined(Box::new(Combined::new(
                crf,
                deep,
                declared.crf_weight,
            )?)));
        }
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
            Tagger::Combined(_) => COMBINED,
        }
    }

    pub fn labels(&self) -> &[String] {
        match self {
            Tagger::Crf(m) => m.labels(),
            Tagger::Deep(m) => m.labels(),
            Tagger::Combined(c) => c.crf.labels(),
        }
    }

    pub fn label(&self, rows: &[Row]) -> Result<Labels> {
        match self {
            Tagger::Crf(m) => m.label(rows),
            Tagger::Deep(m) => m.label(rows),
            Tagger::Combined(c) => Ok(c.label_many(&[rows])?.pop().unwrap_or_default()),
        }
    }

    /// Label several sequences (batched by length for the deep model).
    pub fn label_many(&self, seqs: &[&[Row]]) -> Result<Vec<Labels>> {
        match self {
            Tagger::Crf(m) => seqs.iter().map(|rows| m.label(rows)).collect(),
            Tagger::Deep(m) => m.label_many(seqs),
            Tagger::Combined(c) => c.label_many(seqs),
        }
    }
}

/// A CRF and a BiLSTM-CRF trained on the same data, decoding together as a product of
/// experts: each label sequence scores `w · CRF score + (1 − w) · BiLSTM-CRF score` (both are
/// log-linear chain scores: state plus transition weights), and Viterbi finds the best one.
/// With `w` = 1 it labels as the CRF does, with 0 as the BiLSTM-CRF. Further BiLSTM-CRFs
/// ([`Combined::and_also`], trained with other seeds) make the BiLSTM-CRF score the mean of
/// theirs: an ensemble.
#[derive(Debug)]
pub struct Combined {
    pub crf: crf::Model,
    pub deep: deep::Model,
    crf_weight: f32,
    /// For each of the CRF's labels, the BiLSTM-CRF's index of the same label.
    to_deep: Vec<usize>,
    /// The ensemble's other BiLSTM-CRFs, each with its label map.
    more: Vec<(deep::Model, Vec<usize>)>,
}

/// A CRF weight lies in 0..=1.
fn check_weight(crf_weight: f32) -> Result<()> {
    if (0.0..=1.0).contains(&crf_weight) {
        Ok(())
    } else {
        Err(Error::BadInput(format!(
            "the CRF's weight must lie between 0 and 1, got {crf_weight}"
        )))
    }
}

/// For each of the CRF's labels, the BiLSTM-CRF's index of the same label.
fn label_map(crf: &crf::Model, deep: &deep::Model) -> Result<Vec<usize>> {
    let mismatch = || {
        Error::General(format!(
            "the CRF's labels {:?} and the BiLSTM-CRF's {:?} differ",
            crf.labels(),
            deep.labels()
        ))
    };
    if crf.labels().len() != deep.labels().len() {
        return Err(mismatch());
    }
    crf.labels()
        .iter()
        .map(|l| deep.labels().iter().position(|d| d == l))
        .collect::<Option<Vec<usize>>>()
        .ok_or_else(mismatch)
}

impl Combined {
    /// Pair two models with the same label set; `crf_weight` must lie in 0..=1.
    pub fn new(crf: crf::Model, deep: deep::Model, crf_weight: f32) -> Result<Combined> {
        check_weight(crf_weight)?;
        let to_deep = label_map(&crf, &deep)?;
        Ok(Combined {
            crf,
            deep,
            crf_weight,
            to_deep,
            more: Vec::new(),
        })
    }

    /// The same with one more BiLSTM-CRF in the ensemble (same label set).
    pub fn and_also(mut self, deep: deep::Model) -> Result<Combined> {
        let map = label_map(&self.crf, &deep)?;
        self.more.push((deep, map));
        Ok(self)
    }

    /// The BiLSTM-CRFs of the ensemble (one for a plain pair).
    pub fn deep_models(&self) -> usize {
        1 + self.more.len()
    }

    pub fn crf_weight(&self) -> f32 {
        self.crf_weight
    }

    /// The same models with another weight.
    pub fn with_weight(self, crf_weight: f32) -> Result<Combined> {
        check_weight(crf_weight)?;
        Ok(Combined { crf_weight, ..self })
    }

    /// Label several sequences (the BiLSTM-CRFs' part batched by length).
    pub fn label_many(&self, seqs: &[&[Row]]) -> Result<Vec<Labels>> {
        let all: Vec<usize> = (0..self.deep_models()).collect();
        self.label_many_of(&all, seqs)
    }

    /// [`Combined::label_many`] with only these members of the ensemble (0 is `deep`, then
    /// those of [`Combined::and_also`] in order).
    pub fn label_many_of(&self, which: &[usize], seqs: &[&[Row]]) -> Result<Vec<Labels>> {
        let members: Vec<(&deep::Model, &[usize])> = which
            .iter()
            .map(|&k| match k {
                0 => Ok((&self.deep, &self.to_deep[..])),
                _ => self
                    .more
                    .get(k - 1)
                    .map(|(m, map)| (m, map.as_slice()))
                    .ok_or_else(|| {
                        Error::BadInput(format!(
                            "no BiLSTM-CRF {k} in an ensemble of {}",
                            self.deep_models()
                        ))
                    }),
            })
            .collect::<Result<_>>()?;
        if members.is_empty() {
            return Err(Error::BadInput("no BiLSTM-CRF to label with".into()));
        }
        let w = self.crf_weight;
        let v = (1.0 - w) / members.len() as f32;
        let l = self.to_deep.len();
        let crf_trans = self.crf.transitions();
        let mut trans: Vec<Vec<f32>> = (0..l)
            .map(|i| (0..l).map(|j| w * crf_trans[i * l + j] as f32).collect())
            .collect();
        let mut start = vec![0f32; l];
        let mut end = vec![0f32; l];
        let mut deep_scores = Vec::with_capacity(members.len());
        for (m, map) in &members {
            let chain = m.chain()?;
            for (i, row) in trans.iter_mut().enumerate() {
                for (j, t) in row.iter_mut().enumerate() {
                    *t += v * chain.trans[map[i]][map[j]];
                }
            }
            for i in 0..l {
                start[i] += v * chain.start[map[i]];
                end[i] += v * chain.end[map[i]];
            }
            deep_scores.push(m.emissions_many(seqs)?);
        }
        seqs.iter()
            .enumerate()
            .map(|(n, rows)| {
                let state = self.crf.state_scores(rows)?;
                let mut scores =
                    deep::Emissions::new(l.max(1), state.iter().map(|&x| w * x as f32).collect());
                for ((_, map), em) in members.iter().zip(&deep_scores) {
                    for (row, e) in scores.rows_mut().zip(em[n].rows()) {
                        for (i, x) in row.iter_mut().enumerate() {
                            *x += v * e[map[i]];
                        }
                    }
                }
                Ok(self.crf.label_set().labels(
                    deep::viterbi(&scores, &trans, &start, &end)
                        .into_iter()
                        .map(|i| i as u16)
                        .collect(),
                ))
            })
            .collect()
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
    use crate::features::Rows;

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
            rows: w.iter().map(|t| vec![(*t).into()]).collect(),
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
    /// A tiny CRF and BiLSTM-CRF trained on the same name sequences.
    /// Answers the CRF both loaded and as CRFsuite bytes with its template.
    #[allow(clippy::type_complexity)]
    fn pair() -> (
        Vec<crf::Sequence>,
        crf::Model,
        (Vec<u8>, crf::Template),
        deep::Trained,
    ) {
        let seq = |w: &[&str], l: &[&str]| crf::Sequence {
            rows: w.iter().map(|t| vec![(*t).into()]).collect(),
            labels: l.iter().map(|t| t.to_string()).collect(),
        };
        let mut data = Vec::new();
        for (first, last) in [("J", "Smith"), ("Ann", "Lee"), ("K", "Ito"), ("Li", "Wei")] {
            data.push(seq(
                &[last, ",", first, "."],
                &["I-<surname>", "I-<other>", "I-<forename>", "<forename>"],
            ));
            data.push(seq(&[first, last], &["I-<forename>", "I-<surname>"]));
        }
        let template = crf::Template::parse("U00:%x[0,0]\nU01:%x[-1,0]\nU02:%x[1,0]\nB\n").unwrap();
        let params = crf::TrainParams {
            c1: 0.05,
            c2: 0.01,
            epsilon: 1e-6,
            window: 10,
            max_iter: 100,
            threads: 1,
        };
        let bytes = crf::train(&template, &data, &params, &mut |_| true).unwrap();
        let meta = crf::ModelMeta {
            model: "test-name".into(),
            labels: vec![],
            feature_version: 1,
            data_digest: String::new(),
            params,
            evaluation: serde_json::Value::Null,
        };
        let crf = crf::Model::from_parts(&bytes, template.clone(), meta).unwrap();
        let deep = small_deep(&data, 1);
        (data, crf, (bytes, template), deep)
    }

    fn small_deep(data: &[crf::Sequence], seed: u64) -> deep::Trained {
        let deep_params = deep::DeepParams {
            hidden: 8,
            word_dim: 8,
            char_filters: 8,
            max_epochs: 2,
            seed,
            ..deep::DeepParams::default()
        };
        deep::train(data, &deep_params, &mut |_| true)
            .unwrap()
            .unwrap()
    }

    /// The CRF's chain score of `labels` for `rows`.
    fn crf_score(crf: &crf::Model, rows: &[Row], labels: &Labels) -> f32 {
        let ids: Vec<usize> = labels
            .iter()
            .map(|l| crf.labels().iter().position(|x| x == l).unwrap())
            .collect();
        let n = crf.labels().len();
        let state = crf.state_scores(rows).unwrap();
        let trans = crf.transitions();
        let mut score = 0.0;
        for t in 0..labels.len() {
            score += state[t * n + ids[t]];
            if t > 0 {
                score += trans[ids[t - 1] * n + ids[t]];
            }
        }
        score as f32
    }

    /// A BiLSTM-CRF's chain score of `labels` for `rows`.
    fn deep_score(m: &deep::Model, rows: &[Row], labels: &Labels) -> f32 {
        let ids: Vec<usize> = labels
            .iter()
            .map(|l| m.labels().iter().position(|x| x == l).unwrap())
            .collect();
        let em = &m.emissions_many(&[rows]).unwrap()[0];
        let chain = m.chain().unwrap();
        let mut score = chain.start[ids[0]] + chain.end[*ids.last().unwrap()];
        for t in 0..labels.len() {
            score += em[t][ids[t]];
            if t > 0 {
                score += chain.trans[ids[t - 1]][ids[t]];
            }
        }
        score
    }

    /// The product-of-experts score of `labels` for `rows`.
    fn combined_score(c: &Combined, rows: &[Row], labels: &Labels) -> f32 {
        let w = c.crf_weight();
        w * crf_score(&c.crf, rows, labels) + (1.0 - w) * deep_score(&c.deep, rows, labels)
    }

    #[test]
    fn an_ensemble_decodes_the_mean_of_its_members_and_each_member_as_its_own_pair() {
        let (data, crf, _, a) = pair();
        let rows: Vec<&[Row]> = data.iter().map(|s| s.rows.as_slice()).collect();
        // Seeded training is reproducible, so training seed 7 twice gives one model twice.
        let alone = |deep: deep::Model| {
            Combined::new(crf.clone(), deep, 0.3)
                .unwrap()
                .label_many(&rows)
                .unwrap()
        };
        let (pair_a, pair_b) = (
            alone(small_deep(&data, 1).model),
            alone(small_deep(&data, 7).model),
        );
        let b = small_deep(&data, 7).model;
        let e = Combined::new(crf.clone(), a.model, 0.3)
            .unwrap()
            .and_also(b)
            .unwrap();
        assert_eq!(e.deep_models(), 2);
        assert_eq!(e.label_many_of(&[0], &rows).unwrap(), pair_a);
        assert_eq!(e.label_many_of(&[1], &rows).unwrap(), pair_b);
        assert!(e.label_many_of(&[2], &rows).is_err());
        assert!(e.label_many_of(&[], &rows).is_err());
        let joint = e.label_many(&rows).unwrap();
        let b = &e.more[0].0;
        let mean_score = |r: &[Row], l: &Labels| {
            0.3 * crf_score(&e.crf, r, l) + 0.35 * (deep_score(&e.deep, r, l) + deep_score(b, r, l))
        };
        let crf_labels: Vec<Labels> = rows.iter().map(|r| crf.label(r).unwrap()).collect();
        for (i, r) in rows.iter().enumerate() {
            let best = mean_score(r, &joint[i]);
            for other in [&pair_a[i], &pair_b[i], &crf_labels[i]] {
                assert!(best >= mean_score(r, other) - 1e-4, "sequence {i}");
            }
        }
    }

    #[test]
    fn a_combined_pair_decodes_as_either_model_at_the_ends_and_finds_the_best_joint_path() {
        let (data, crf, _, deep) = pair();
        let deep = deep.model;
        let mut inputs: Vec<Rows> = data.iter().map(|s| s.rows.clone()).collect();
        for odd in [
            &["Wei", "Li", ",", "Ann"][..],
            &["Smith", "Smith", "."],
            &["Ito"],
        ] {
            inputs.push(odd.iter().map(|t| vec![(*t).into()]).collect());
        }
        let rows: Vec<&[Row]> = inputs.iter().map(|r| r.as_slice()).collect();
        let crf_labels: Vec<Labels> = rows.iter().map(|r| crf.label(r).unwrap()).collect();
        let deep_labels = deep.label_many(&rows).unwrap();
        let mut c = Combined::new(crf, deep, 1.0).unwrap();
        assert_eq!(c.label_many(&rows).unwrap(), crf_labels);
        c = c.with_weight(0.0).unwrap();
        assert_eq!(c.label_many(&rows).unwrap(), deep_labels);
        c = c.with_weight(0.5).unwrap();
        let joint = c.label_many(&rows).unwrap();
        for (i, r) in rows.iter().enumerate() {
            let best = combined_score(&c, r, &joint[i]);
            for other in [&crf_labels[i], &deep_labels[i]] {
                assert!(best >= combined_score(&c, r, other) - 1e-4, "sequence {i}");
            }
        }
        // A weight outside 0..=1 and a pair with different label sets are refused.
        let Combined { crf, deep, .. } = c;
        let crf_copy = crf.clone();
        assert!(matches!(
            Combined::new(crf, deep, 1.5),
            Err(Error::BadInput(_))
        ));
        let other = deep::train(
            &[crf::Sequence {
                rows: vec![vec!["x".into()]],
                labels: vec!["I-<title>".to_string()],
            }],
            &deep::DeepParams {
                hidden: 4,
                word_dim: 4,
                char_filters: 4,
                max_epochs: 1,
                ..deep::DeepParams::default()
            },
            &mut |_| true,
        )
        .unwrap()
        .unwrap()
        .model;
        let e = Combined::new(crf_copy, other, 0.5).unwrap_err().to_string();
        assert!(e.contains("differ"), "{e}");
    }

    #[test]
    fn a_declared_pair_serves_together_with_its_weight() {
        let (data, crf, (bytes, template), mut deep) = pair();
        let dir = tempfile::tempdir().unwrap();
        let mut meta = crf.meta().clone();
        meta.feature_version = 3;
        crf::Model::save_files(dir.path(), &bytes, &template, &meta).unwrap();
        deep.save(
            &dir.path().join(deep::DIR),
            serde_json::json!({"feature_version": 3}),
        )
        .unwrap();
        let declare = |text: &str| std::fs::write(dir.path().join(SERVING_FILE), text).unwrap();
        declare(r#"{"architecture": "crf+bilstm-crf", "crf_weight": 0.25}"#);
        assert_eq!(
            serving(dir.path()).unwrap(),
            Serving {
                architecture: COMBINED,
                crf_weight: 0.25
            }
        );
        let t = Tagger::load(dir.path(), 3).unwrap();
        assert_eq!(t.architecture(), COMBINED);
        let Tagger::Combined(c) = &t else {
            panic!("not a pair")
        };
        assert_eq!(c.crf_weight(), 0.25);
        let rows: Vec<&[Row]> = data.iter().map(|s| s.rows.as_slice()).collect();
        assert_eq!(t.label_many(&rows).unwrap(), c.label_many(&rows).unwrap());
        assert_eq!(
            t.label(rows[1]).unwrap(),
            c.label_many(&rows[1..2]).unwrap()[0]
        );
        // Without a weight the pair is even; a weight outside 0..=1 is refused; either
        // model's feature version is checked.
        declare(r#"{"architecture": "CRF+BiLSTM-CRF"}"#);
        assert_eq!(serving(dir.path()).unwrap().crf_weight, DEFAULT_CRF_WEIGHT);
        declare(r#"{"architecture": "CRF+BiLSTM-CRF", "crf_weight": 2}"#);
        assert!(serving(dir.path()).is_err());
        declare(r#"{"architecture": "CRF+BiLSTM-CRF"}"#);
        assert!(matches!(
            Tagger::load(dir.path(), 4),
            Err(Error::ModelMismatch { .. })
        ));
        assert_eq!(
            weights_file(dir.path(), COMBINED),
            dir.path().join("bilstm-crf/model.safetensors")
        );
    }
}
