//! Sentence segmentation for `segmentSentences` (interface: "sentence segmenter"): two
//! segmenters, chosen by `models.sentence_segmenter` in the configuration.

/// Which sentence segmenter cuts paragraphs into `<s>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Segmenter {
    /// A statistical detector (recommended for scientific articles).
    #[default]
    Statistical,
    /// A rule-based segmenter.
    RuleBased,
}
