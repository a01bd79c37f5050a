/*!
The run-time models: one name per GROBID model, and one module per model with its labels, its
feature function, its run-time facts and its decoder ([`feature_version`] says which models
Quire serves). Reading a model's corpus, its template and its training parameters are
training-time code, in `crate::training` (the engine's run-time path imports none of it;
`.ci/import_cycles.py` checks). `models/<dir_name>/` holds a trained model's files:
`model.crf` (CRFsuite format), `template.txt` (feature template) and `meta.json` (labels,
feature version, data digest, training parameters, evaluation figures).
*/

use std::path::{Path, PathBuf};

use crate::labels::Labels;

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

/// The feature version of a model Quire serves (`meta.json`'s `feature_version` must match
/// it when the model loads), or `None` for a model (or flavour) Quire has no features for.
/// Training knows the same models through `training::spec`, which checks that both agree.
pub fn feature_version(name: ModelName, flavor: Option<Flavor>) -> Option<u32> {
    match (name, flavor) {
        (ModelName::Segmentation, None | Some(Flavor::ArticleLight)) => {
            Some(segmentation::FEATURE_VERSION)
        }
        (ModelName::Header, None | Some(Flavor::ArticleLight)) => Some(header::FEATURE_VERSION),
        (ModelName::Fulltext, None | Some(Flavor::ArticleLight)) => Some(fulltext::FEATURE_VERSION),
        (ModelName::Date, None) => Some(date::FEATURE_VERSION),
        (ModelName::NameHeader | ModelName::NameCitation, None) => Some(name::FEATURE_VERSION),
        (ModelName::AffiliationAddress, None) => Some(affiliation::FEATURE_VERSION),
        (ModelName::Citation, None) => Some(citation::FEATURE_VERSION),
        (ModelName::Figure, None) => Some(figure::FEATURE_VERSION),
        (ModelName::Table, None) => Some(table::FEATURE_VERSION),
        (ModelName::ReferenceSegmenter, None) => Some(reference_segmenter::FEATURE_VERSION),
        (ModelName::FundingAcknowledgement, None) => Some(funding::FEATURE_VERSION),
        (ModelName::PatentCitation, None) => Some(patent_citation::FEATURE_VERSION),
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
}
