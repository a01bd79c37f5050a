/*!
The model registry: one name per GROBID model, and one module per model (added as each model
lands). `models/<dir_name>/` holds a trained model's files: `model.crf` (CRFsuite format),
`template.txt` (feature template) and `meta.json` (labels, feature version, data digest,
training parameters, evaluation figures).
*/

use std::path::{Path, PathBuf};

use crate::labels::Labels;

/// The corpus-reading types every spec's `read` names (defined with the corpus readers).
pub use crate::corpus::{Part, ReadStats};
pub use crate::flavor::Flavor;

/// Declares a model's `Label` enum (GROBID's labels, in the order given) with `ALL`, `as_str`,
/// `parse` (with or without the `I-` prefix), `AsRef<str>` and `FromStr`, so every model
/// spells and parses its labels the same way.
macro_rules! model_labels {
    ($model:literal, $(#[$meta:meta])* { $($variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Label {
            $($variant),+
        }

        impl Label {
            pub const ALL: [Label; [$($text),+].len()] = [$(Label::$variant),+];

            pub fn as_str(self) -> &'static str {
                match self {
                    $(Label::$variant => $text),+
                }
            }

            /// Parse a label as the tagger prints it, with or without the `I-` prefix.
            pub fn parse(s: &str) -> Option<Label> {
                let plain = s.strip_prefix("I-").unwrap_or(s);
                Label::ALL.into_iter().find(|l| l.as_str() == plain)
            }
        }

        impl AsRef<str> for Label {
            fn as_ref(&self) -> &str {
                self.as_str()
            }
        }

        impl std::str::FromStr for Label {
            type Err = String;
            fn from_str(s: &str) -> std::result::Result<Label, String> {
                Label::parse(s).ok_or_else(|| format!(concat!("unknown ", $model, " label `{}`"), s))
            }
        }
    };
}

pub mod affiliation;
pub mod citation;
#[cfg(test)]
mod corpus_check;
pub mod date;
pub mod figure;
pub mod fulltext;
pub mod funding;
pub mod header;
pub mod header_record;
pub mod lexical;
pub mod name;
pub mod patent_citation;
pub mod reference_segmenter;
pub mod segmentation;
pub mod table;
pub mod text;

/// Every sequence-labelling model of the cascade, named as GROBID names them.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum ModelName {
    Segmentation,
    Header,
    Fulltext,
    ReferenceSegmenter,
    Citation,
    NameHeader,
    NameCitation,
    AffiliationAddress,
    Date,
    Figure,
    Table,
    FundingAcknowledgement,
    PatentCitation,
}

impl ModelName {
    pub const ALL: [ModelName; 13] = [
        ModelName::Segmentation,
        ModelName::Header,
        ModelName::Fulltext,
        ModelName::ReferenceSegmenter,
        ModelName::Citation,
        ModelName::NameHeader,
        ModelName::NameCitation,
        ModelName::AffiliationAddress,
        ModelName::Date,
        ModelName::Figure,
        ModelName::Table,
        ModelName::FundingAcknowledgement,
        ModelName::PatentCitation,
    ];

    /// GROBID's key for the model (`name-header`, `affiliation-address`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            ModelName::Segmentation => "segmentation",
            ModelName::Header => "header",
            ModelName::Fulltext => "fulltext",
            ModelName::ReferenceSegmenter => "reference-segmenter",
            ModelName::Citation => "citation",
            ModelName::NameHeader => "name-header",
            ModelName::NameCitation => "name-citation",
            ModelName::AffiliationAddress => "affiliation-address",
            ModelName::Date => "date",
            ModelName::Figure => "figure",
            ModelName::Table => "table",
            ModelName::FundingAcknowledgement => "funding-acknowledgement",
            ModelName::PatentCitation => "patent-citation",
        }
    }

    /// Folder of the trained files under the models directory; a flavour such as
    /// `article/light` gets its own folder (`header-article-light`).
    pub fn dir_name(self, flavor: Option<Flavor>) -> String {
        match flavor {
            None => self.as_str().to_string(),
            Some(f) => format!("{}-{}", self.as_str(), f.dir_suffix()),
        }
    }

    pub fn dir(self, models_dir: &Path, flavor: Option<Flavor>) -> PathBuf {
        models_dir.join(self.dir_name(flavor))
    }
}

impl std::fmt::Display for ModelName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for ModelName {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        ModelName::ALL
            .iter()
            .copied()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| {
                let known: Vec<_> = ModelName::ALL.iter().map(|m| m.as_str()).collect();
                format!("unknown model `{s}`; known models: {}", known.join(", "))
            })
    }
}

/// What the trainer, the evaluator and the CLI need from a model module. Each model module
/// implements it once and adds its arm to [`spec`].
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

/// The spec of a model, if Quire can train it.
pub fn spec(name: ModelName, flavor: Option<Flavor>) -> Option<&'static dyn ModelSpec> {
    // Each model module adds its arm here.
    match (name, flavor) {
        (ModelName::Segmentation, None) => Some(&segmentation::SPEC),
        (ModelName::Header, None) => Some(&header::SPEC),
        (ModelName::Segmentation, Some(Flavor::ArticleLight)) => Some(&segmentation::LIGHT_SPEC),
        (ModelName::Header, Some(Flavor::ArticleLight)) => Some(&header::LIGHT_SPEC),
        (ModelName::Date, None) => Some(&date::SPEC),
        (ModelName::NameHeader, None) => Some(&name::HEADER_SPEC),
        (ModelName::NameCitation, None) => Some(&name::CITATION_SPEC),
        (ModelName::AffiliationAddress, None) => Some(&affiliation::SPEC),
        (ModelName::Citation, None) => Some(&citation::SPEC),
        (ModelName::Fulltext, None) => Some(&fulltext::SPEC),
        (ModelName::Fulltext, Some(Flavor::ArticleLight)) => Some(&fulltext::LIGHT_SPEC),
        (ModelName::Figure, None) => Some(&figure::SPEC),
        (ModelName::Table, None) => Some(&table::SPEC),
        (ModelName::ReferenceSegmenter, None) => Some(&reference_segmenter::SPEC),
        (ModelName::FundingAcknowledgement, None) => Some(&funding::SPEC),
        (ModelName::PatentCitation, None) => Some(&patent_citation::SPEC),
        _ => None,
    }
}

/// Labels as the tagger prints them → [`Span`](crate::layout::Span)s over the labelled
/// sequence: a span per contiguous run of one label; GROBID's `I-` prefix opens a new span even
/// after the same label (reference grobid-models.md §2.1). A label `parse` does not know is a
/// tagging error of `model`.
pub(crate) fn label_spans<L: Copy + PartialEq>(
    model: &str,
    labels: &Labels,
    parse: fn(&str) -> Option<L>,
) -> crate::Result<Vec<crate::layout::Span<L>>> {
    let tags = labels.tags(parse).map_err(|(i, l)| crate::Error::Tagging {
        model: model.into(),
        reason: format!("unknown label `{l}` at token {i}"),
    })?;
    Ok(crate::labels::fields(&tags)
        .into_iter()
        .map(|(label, a, b)| crate::layout::Span {
            label,
            tokens: a..b,
        })
        .collect())
}

/// Test helper: spans as `(label, token range)` pairs, for comparing decoders' output.
#[cfg(test)]
pub(crate) fn span_pairs<L>(
    spans: Vec<crate::layout::Span<L>>,
) -> Vec<(L, std::ops::Range<usize>)> {
    spans.into_iter().map(|s| (s.label, s.tokens)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_are_refused() {
        for m in ModelName::ALL {
            assert_eq!(m.as_str().parse::<ModelName>().unwrap(), m);
        }
        let err = "headr".parse::<ModelName>().unwrap_err();
        assert!(err.contains("unknown model `headr`"), "{err}");
        assert_eq!(
            ModelName::Header.dir_name(Some(Flavor::ArticleLight)),
            "header-article-light"
        );
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
