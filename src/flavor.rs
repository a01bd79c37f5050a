//! Flavours: GROBID's variants of the cascade for kinds of document (reference
//! grobid-service.md, `flavor`). A flavour names both a request's variant of the full-text
//! cascade and the model folders trained for it (`<model>-<flavour with - for />`).
//!
//! - [`Flavor::Blank`]: no model at all, the whole document as one body (request only);
//! - [`Flavor::ArticleLight`]: light articles, with their own segmentation, header and
//!   full-text models, and no reference-segmenter pass;
//! - [`Flavor::ArticleLightRef`]: light articles whose references are parsed;
//! - [`Flavor::SdoIetf`], [`Flavor::Sdo3gpp`]: standards documents (model folders only: a
//!   training may target them, no request selects them).

use std::fmt;

/// One flavour; [`Flavor::as_str`] is its name in the interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Flavor {
    Blank,
    ArticleLight,
    ArticleLightRef,
    SdoIetf,
    Sdo3gpp,
}

impl Flavor {
    /// The flavours whose model folders may exist (a training may target them), in the order
    /// the service looks for them at start-up.
    pub const MODELS: [Flavor; 4] = [
        Flavor::ArticleLight,
        Flavor::ArticleLightRef,
        Flavor::SdoIetf,
        Flavor::Sdo3gpp,
    ];

    /// The flavours a full-text request may ask for.
    pub const REQUESTS: [Flavor; 3] =
        [Flavor::Blank, Flavor::ArticleLight, Flavor::ArticleLightRef];

    /// The flavours createTraining writes training files for.
    pub const TRAINING_FILES: [Flavor; 2] = [Flavor::ArticleLight, Flavor::ArticleLightRef];

    /// The interface's name (`article/light`).
    pub fn as_str(self) -> &'static str {
        match self {
            Flavor::Blank => "blank",
            Flavor::ArticleLight => "article/light",
            Flavor::ArticleLightRef => "article/light-ref",
            Flavor::SdoIetf => "sdo/ietf",
            Flavor::Sdo3gpp => "sdo/3gpp",
        }
    }

    /// The flavour of `name` among `known`, any case, surrounding spaces ignored.
    pub fn named_in(name: &str, known: &[Flavor]) -> Option<Flavor> {
        let name = name.trim();
        known
            .iter()
            .copied()
            .find(|f| f.as_str().eq_ignore_ascii_case(name))
    }

    /// The flavour of `name`, any case ([`Flavor::named_in`] over every flavour).
    pub fn named(name: &str) -> Option<Flavor> {
        Flavor::named_in(
            name,
            &[
                Flavor::Blank,
                Flavor::ArticleLight,
                Flavor::ArticleLightRef,
                Flavor::SdoIetf,
                Flavor::Sdo3gpp,
            ],
        )
    }

    /// The suffix of its model folders (`article-light`).
    pub fn dir_suffix(self) -> String {
        self.as_str().replace('/', "-")
    }
}

/// Written as its interface name (training status, `serving.json`).
impl serde::Serialize for Flavor {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Read from its interface name, any case (a training job's JSON).
impl<'de> serde::Deserialize<'de> for Flavor {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Flavor, D::Error> {
        let name = String::deserialize(d)?;
        Flavor::named(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown flavour `{name}`")))
    }
}

impl fmt::Display for Flavor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_parse_in_any_case() {
        for f in Flavor::MODELS.iter().chain(&Flavor::REQUESTS) {
            assert_eq!(Flavor::named(f.as_str()), Some(*f));
        }
        assert_eq!(Flavor::named(" Article/Light "), Some(Flavor::ArticleLight));
        assert_eq!(
            Flavor::named_in("sdo/ietf", &Flavor::REQUESTS),
            None,
            "a model-only flavour is no request flavour"
        );
        assert_eq!(Flavor::named("magic"), None);
        assert_eq!(Flavor::ArticleLightRef.dir_suffix(), "article-light-ref");
    }
}
