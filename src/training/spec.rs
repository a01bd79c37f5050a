/*!
What the trainer, the evaluator and the CLI know of each model: its [`ModelSpec`] (where its
corpus is and how it is read into sequences, its feature template, its training parameters)
(the registry is [`super::spec()`]). This is training-time code: the run-time models (`crate::models`)
never import it; they know only their feature version ([`crate::models::feature_version`]).
*/

use std::path::Path;

use crate::corpus::{Part, ReadStats};
use crate::flavor::Flavor;
use crate::models::ModelName;

/// What the trainer, the evaluator and the CLI need from a model module. Each model module
/// has one in `training::<model>` and an arm in [`super::spec()`].
pub trait ModelSpec: Sync {
    fn name(&self) -> ModelName;
    /// `Some(Flavor::ArticleLight)` for a flavour model.
    fn flavor(&self) -> Option<Flavor> {
        None
    }
    /// Bumped whenever the feature columns change; stored in `meta.json`, checked at load.
    fn feature_version(&self) -> u32;
    /// The feature template (Quire's own, CRF++-style `U..:%x[r,c]` lines and `B`).
    fn template(&self) -> &'static str;
    fn default_params(&self) -> crate::crf::TrainParams;
    /// Read the corpus or evaluation part of `<dataset>/<model folder>` into sequences.
    fn read(
        &self,
        dataset: &Path,
        part: Part,
    ) -> crate::Result<(Vec<crate::crf::Sequence>, ReadStats)>;
    /// Write what the model needs at run time besides its own folder (the corpus-built
    /// lexicons, `<models_dir>/lexicon`). Called by the training driver when it writes the model.
    fn write_resources(&self, dataset: &Path, models_dir: &Path) -> crate::Result<()> {
        crate::corpus::lexicons::built_for(dataset)
            .lexicons
            .save(&models_dir.join("lexicon"))
    }
    /// Feature rows for one raw input line (text-only models); `None` for layout models.
    fn rows_from_text(&self, _text: &str) -> Option<crate::features::Rows> {
        None
    }
}

/// A model's spec with another feature template: `quire train --template FILE` trains with it
/// (the template is written to the model folder, which is what tagging reads).
pub struct WithTemplate {
    pub inner: &'static dyn ModelSpec,
    pub template: &'static str,
}

impl ModelSpec for WithTemplate {
    fn name(&self) -> ModelName {
        self.inner.name()
    }
    fn flavor(&self) -> Option<Flavor> {
        self.inner.flavor()
    }
    fn feature_version(&self) -> u32 {
        self.inner.feature_version()
    }
    fn template(&self) -> &'static str {
        self.template
    }
    fn default_params(&self) -> crate::crf::TrainParams {
        self.inner.default_params()
    }
    fn read(
        &self,
        dataset: &Path,
        part: Part,
    ) -> crate::Result<(Vec<crate::crf::Sequence>, ReadStats)> {
        self.inner.read(dataset, part)
    }
    fn write_resources(&self, dataset: &Path, models_dir: &Path) -> crate::Result<()> {
        self.inner.write_resources(dataset, models_dir)
    }
    fn rows_from_text(&self, text: &str) -> Option<crate::features::Rows> {
        self.inner.rows_from_text(text)
    }
}

#[cfg(test)]
mod tests {
    use super::super::spec;
    use super::*;

    #[test]
    fn every_spec_has_the_feature_version_the_run_time_model_loads_with() {
        for name in ModelName::ALL {
            for flavor in [None, Some(Flavor::ArticleLight)] {
                assert_eq!(
                    spec(name, flavor).map(|s| s.feature_version()),
                    crate::models::feature_version(name, flavor),
                    "{name} {flavor:?}"
                );
            }
        }
    }

    #[test]
    fn every_committed_model_was_trained_with_its_specs_template() {
        // Tagging reads `template.txt` from the model folder; training writes the spec's
        // template there. They must agree, or a retrained model would tag differently.
        let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
        let mut checked = 0;
        for name in ModelName::ALL {
            for flavor in [None, Some(Flavor::ArticleLight)] {
                let file = name.dir(&models, flavor).join(crate::crf::TEMPLATE_FILE);
                let (Some(spec), Ok(committed)) =
                    (spec(name, flavor), std::fs::read_to_string(&file))
                else {
                    continue;
                };
                assert_eq!(spec.template(), committed, "{}", file.display());
                checked += 1;
            }
        }
        assert!(checked >= 9, "only {checked} committed models found");
    }

    /// Compatibility: every model committed under `models/` loads with the feature version its
    /// spec expects now (a feature change without retraining fails here), its file stays small,
    /// and it labels a corpus-free input without error.
    #[test]
    fn every_committed_model_loads_with_its_current_feature_version() {
        use crate::crf::{Model, MODEL_FILE};
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
        let mut checked = 0;
        for name in ModelName::ALL {
            for flavor in [None, Some(Flavor::ArticleLight)] {
                let Some(sp) = spec(name, flavor) else {
                    continue;
                };
                let dir = name.dir(&root, flavor);
                if !dir.join(MODEL_FILE).exists() {
                    continue;
                }
                let model = Model::load(&dir, sp.feature_version())
                    .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
                let size = std::fs::metadata(dir.join(MODEL_FILE)).unwrap().len();
                assert!(size < 10 << 20, "{}: {size} bytes", dir.display());
                assert_eq!(model.meta().labels.len(), model.labels().len());
                if let Some(rows) = sp.rows_from_text("Smith J. 2001. A title. Nature 12, 1-5.") {
                    let labels = model.label(&rows).unwrap();
                    assert_eq!(labels.len(), rows.len());
                }
                checked += 1;
            }
        }
        if checked == 0 {
            crate::testutil::gate::skip(&format!("a committed model under {}", root.display()));
        }
    }
}
