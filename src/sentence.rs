//! Sentence segmentation for `segmentSentences` (interface: "sentence segmenter"): two
//! segmenters, chosen by `models.sentence_segmenter` in the configuration, both returning byte
//! ranges of the text.
//!
//! Both start from the sentence boundaries of Unicode's UAX #29 (`unicode-segmentation`), which
//! already keeps `3.5` and `e.g. the` whole, and then decide, at each boundary that follows a
//! period, whether the period ends a sentence:
//!
//! - [`Segmenter::RuleBased`]: fixed rules: never after a scientific or title abbreviation
//!   (`Fig.`, `Eq.`, `et al.`, `cf.`, `Dr.`, [`NEVER_FINAL`]), an initial (`J.`) or a dotted
//!   abbreviation (`U.S.`).
//! - [`Segmenter::Statistical`]: Kiss & Strunk's Punkt (2006), learnt without supervision from
//!   the document's own texts ([`Splitter::trained`]): a word type is an abbreviation when
//!   Dunning's log-likelihood of it being followed by a period, weighted by its length, its
//!   inner periods and how often it appears without a period, passes Punkt's threshold; after
//!   an abbreviation, an initial or a number the sentence goes on unless the next word is, by
//!   its orthographic contexts in the document, a sentence starter. The scientific
//!   abbreviations of [`NEVER_FINAL`] are its pre-trained part, as NLTK ships pre-trained
//!   parameters.
//!
//! Either way no sentence is ever cut inside a protected range (a `ref`): a sentence that would
//! end inside one is joined to the next ([`Splitter::split`]).

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use unicode_segmentation::UnicodeSegmentation;

/// Which sentence segmenter cuts paragraphs into `<s>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Segmenter {
    /// A statistical detector (recommended for scientific articles): Punkt.
    #[default]
    Statistical,
    /// A rule-based segmenter.
    RuleBased,
}

impl Segmenter {
    /// The configuration's name (`models.sentence_segmenter`): `statistical` or `rules`.
    pub fn as_str(self) -> &'static str {
        match self {
            Segmenter::Statistical => "statistical",
            Segmenter::RuleBased => "rules",
        }
    }

    /// The sentences of one text, learning (for the statistical segmenter) from that text
    /// alone; [`Splitter::trained`] learns from a whole document once.
    pub fn split(self, text: &str, protected: &[Range<usize>]) -> Vec<Range<usize>> {
        Splitter::trained(self, [text]).split(text, protected)
    }
}

impl std::str::FromStr for Segmenter {
    type Err = String;

    /// `statistical` or `rules`, as `models.sentence_segmenter` names them.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        [Segmenter::Statistical, Segmenter::RuleBased]
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| format!("`{s}`: expected `statistical` or `rules`"))
    }
}

/// Abbreviations after which a sentence never ends (lower case, final period removed): the
/// scientific ones of figures, equations, references and citations, and titles before names.
pub const NEVER_FINAL: &[&str] = &[
    "fig", "figs", "eq", "eqs", "eqn", "eqns", "tab", "tabs", "ref", "refs", "sec", "secs", "sect",
    "ch", "chap", "app", "al", "e.g", "i.e", "cf", "vs", "resp", "approx", "ca", "no", "nos",
    "vol", "vols", "pp", "p", "viz", "dr", "mr", "mrs", "ms", "prof", "st", "eds", "ed", "suppl",
    "supp", "thm", "lem", "prop", "def", "cor",
];

/// Punkt's abbreviation threshold (NLTK's `ABBREV`).
const ABBREV_SCORE: f64 = 0.3;

/// A segmenter ready to cut the texts of one document.
#[derive(Debug, Clone)]
pub struct Splitter {
    kind: Segmenter,
    /// Punkt's parameters, for the statistical segmenter.
    punkt: Option<Punkt>,
}

impl Splitter {
    /// A segmenter of kind `kind`; the statistical one learns from `texts` (a document's
    /// paragraphs) first.
    pub fn trained<'a>(kind: Segmenter, texts: impl IntoIterator<Item = &'a str>) -> Self {
        let punkt = match kind {
            Segmenter::Statistical => Some(Punkt::learn(texts)),
            Segmenter::RuleBased => None,
        };
        Self { kind, punkt }
    }

    pub fn kind(&self) -> Segmenter {
        self.kind
    }

    /// The sentences of `text`, as byte ranges in order, trimmed of white space, covering
    /// every character that is not white space (a sentence reaches into white space only to
    /// hold a protected range whole). A range of `protected` (sorted, not
    /// overlapping, on character boundaries) is either inside one sentence or outside all.
    pub fn split(&self, text: &str, protected: &[Range<usize>]) -> Vec<Range<usize>> {
        let mut cuts = vec![0];
        for (b, _) in text.split_sentence_bound_indices().skip(1) {
            if self.ends_sentence(&text[..b], &text[b..]) {
                cuts.push(b);
            }
        }
        cuts.push(text.len());
        let mut out: Vec<Range<usize>> = cuts
            .windows(2)
            .filter_map(|w| trimmed(text, w[0]..w[1]))
            .collect();
        for r in protected {
            join_across(&mut out, r);
        }
        out
    }

    /// Whether the boundary between `before` and `after` that UAX #29 proposes ends a
    /// sentence.
    fn ends_sentence(&self, before: &str, after: &str) -> bool {
        let Some(last) = before.split_whitespace().next_back() else {
            return false;
        };
        let last = last.trim_end_matches(CLOSERS);
        let Some(word) = last.strip_suffix('.') else {
            // `?`, `!`, or a break UAX #29 makes elsewhere (a line separator).
            return true;
        };
        let word = word.trim_start_matches(|c: char| !c.is_alphanumeric());
        let ty = word.to_lowercase();
        if NEVER_FINAL.contains(&ty.as_str()) {
            return false;
        }
        let next = after.split_whitespace().next().unwrap_or("");
        match &self.punkt {
            None => !(is_initial(word) || is_dotted(word)),
            // NLTK's second pass: after an abbreviation or an initial only a sure sentence
            // starter begins a sentence; after a number, anything but a sure non-starter.
            Some(p) if is_initial(word) || is_dotted(word) || p.abbreviations.contains(&ty) => {
                p.starts_sentence(next) == Some(true)
            }
            Some(p) if is_number(word) => p.starts_sentence(next) != Some(false),
            Some(_) => true,
        }
    }
}

/// Characters that may close a sentence after its period (`."`, `.)`).
const CLOSERS: &[char] = &['"', '\'', ')', ']', '}', '\u{201D}', '\u{2019}', '\u{BB}'];

/// One letter: an initial (`J`).
fn is_initial(word: &str) -> bool {
    let mut cs = word.chars();
    matches!((cs.next(), cs.next()), (Some(c), None) if c.is_alphabetic())
}

/// Letters with inner periods (`U.S`, `e.g`, `a.k.a`).
fn is_dotted(word: &str) -> bool {
    word.contains('.')
        && word
            .split('.')
            .all(|p| !p.is_empty() && p.chars().count() <= 2 && p.chars().all(char::is_alphabetic))
}

fn is_number(word: &str) -> bool {
    !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == ',')
}

/// `r` without leading and trailing white space; `None` when nothing is left.
fn trimmed(text: &str, r: Range<usize>) -> Option<Range<usize>> {
    let s = &text[r.clone()];
    let start = r.start + (s.len() - s.trim_start().len());
    let end = r.end - (s.len() - s.trim_end().len());
    (start < end).then_some(start..end)
}

/// Makes the sentences that `r` straddles one sentence that covers `r` whole.
fn join_across(sentences: &mut Vec<Range<usize>>, r: &Range<usize>) {
    let overlaps = |s: &Range<usize>| s.start.max(r.start) < s.end.min(r.end);
    let Some(first) = sentences.iter().position(overlaps) else {
        return;
    };
    let last = sentences.iter().rposition(overlaps).unwrap_or(first);
    let (a, b) = (&sentences[first], &sentences[last]);
    if first == last && a.start <= r.start && r.end <= a.end {
        return;
    }
    let joined = a.start.min(r.start)..b.end.max(r.end);
    sentences.splice(first..=last, [joined]);
}

// ---------------------------------------------------------------------------------------------
// Punkt (Kiss & Strunk 2006), as NLTK's `PunktTrainer` learns it, on one document.

/// Orthographic contexts of a word type (NLTK's `_ORTHO_*` flags).
const BEG_UC: u8 = 1 << 1;
const MID_UC: u8 = 1 << 2;
const BEG_LC: u8 = 1 << 4;
const MID_LC: u8 = 1 << 5;
const LC: u8 = BEG_LC | MID_LC;
const UC: u8 = BEG_UC | MID_UC;

#[derive(Debug, Clone, Default)]
struct Punkt {
    /// Word types learnt as abbreviations (lower case, without the final period).
    abbreviations: HashSet<String>,
    /// Where each word type was seen: start or middle of a sentence, upper or lower case.
    ortho: HashMap<String, u8>,
}

/// A word of the training text: its type (lower case, leading punctuation and a final period
/// removed), whether it ended with a period, and its first letter's case.
struct Word {
    ty: String,
    period: bool,
    upper: bool,
    lower: bool,
}

fn word(chunk: &str) -> Option<Word> {
    let w = chunk
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .trim_end_matches(|c: char| CLOSERS.contains(&c) || matches!(c, ',' | ';' | ':'));
    let (w, period) = match w.strip_suffix('.') {
        Some(w) => (w, true),
        None => (w, false),
    };
    let first = w.chars().next()?;
    Some(Word {
        ty: w.to_lowercase(),
        period,
        upper: first.is_uppercase(),
        lower: first.is_lowercase(),
    })
}

impl Punkt {
    fn learn<'a>(texts: impl IntoIterator<Item = &'a str>) -> Self {
        let mut with_period: HashMap<String, u32> = HashMap::new();
        let mut without_period: HashMap<String, u32> = HashMap::new();
        let mut ortho: HashMap<String, u8> = HashMap::new();
        let (mut total, mut period_words) = (0u32, 0u32);
        for text in texts {
            let mut at_start = true;
            for w in text.split_whitespace().filter_map(word) {
                total += 1;
                let flag = match (at_start, w.upper, w.lower) {
                    (true, true, _) => BEG_UC,
                    (false, true, _) => MID_UC,
                    (true, _, true) => BEG_LC,
                    (false, _, true) => MID_LC,
                    _ => 0,
                };
                *ortho.entry(w.ty.clone()).or_default() |= flag;
                at_start = w.period && !NEVER_FINAL.contains(&w.ty.as_str());
                if w.period {
                    period_words += 1;
                    *with_period.entry(w.ty).or_default() += 1;
                } else {
                    *without_period.entry(w.ty).or_default() += 1;
                }
            }
        }
        let abbreviations = with_period
            .iter()
            .filter(|(ty, &n)| {
                let without = without_period.get(*ty).copied().unwrap_or(0);
                abbreviation_score(ty, n, without, period_words, total) >= ABBREV_SCORE
            })
            .map(|(ty, _)| ty.clone())
            .collect();
        Self {
            abbreviations,
            ortho,
        }
    }

    /// NLTK's orthographic heuristic: `Some(true)` when `next` is a sentence starter (upper
    /// case here, seen in lower case, never in upper case mid-sentence), `Some(false)` when it
    /// cannot start one (lower case, and seen in upper case or never in lower case at a
    /// start), `None` when undecided.
    fn starts_sentence(&self, next: &str) -> Option<bool> {
        let w = word(next)?;
        if next.starts_with(|c: char| c.is_ascii_punctuation() && !"([\"'".contains(c)) {
            return Some(false);
        }
        let o = self.ortho.get(&w.ty).copied().unwrap_or(0);
        if w.upper && o & LC != 0 && o & MID_UC == 0 {
            return Some(true);
        }
        if w.lower && (o & UC != 0 || o & BEG_LC == 0) {
            return Some(false);
        }
        None
    }
}

/// Punkt's score of `ty` as an abbreviation: Dunning's log-likelihood that it goes with a
/// period, times `e^-length`, the number of its periods, and `length^-without`.
fn abbreviation_score(ty: &str, with: u32, without: u32, period_words: u32, total: u32) -> f64 {
    let periods = ty.matches('.').count() as f64 + 1.0;
    let length = ty.chars().count() as f64 - periods + 1.0;
    let ll = dunning_log_likelihood(
        f64::from(with + without),
        f64::from(period_words),
        f64::from(with),
        f64::from(total),
    );
    ll * (-length).exp() * periods * length.max(1.0).powf(-f64::from(without))
}

/// NLTK's `_dunning_log_likelihood`: how much likelier `count_ab` co-occurrences are under
/// "the type almost always takes a period" (p = 0.99) than under independence.
fn dunning_log_likelihood(count_a: f64, count_b: f64, count_ab: f64, n: f64) -> f64 {
    if n <= 0.0 {
        return 0.0;
    }
    let p1 = (count_b / n).clamp(1e-9, 1.0 - 1e-9);
    let p2 = 0.99f64;
    let null = count_ab * p1.ln() + (count_a - count_ab) * (1.0 - p1).ln();
    let alt = count_ab * p2.ln() + (count_a - count_ab) * (1.0 - p2).ln();
    -2.0 * (null - alt)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const BOTH: [Segmenter; 2] = [Segmenter::Statistical, Segmenter::RuleBased];

    fn sentences(seg: Segmenter, text: &str) -> Vec<&str> {
        seg.split(text, &[]).into_iter().map(|r| &text[r]).collect()
    }

    #[test]
    fn scientific_abbreviations_do_not_end_sentences() {
        for seg in BOTH {
            let text = "As shown in Fig. 2, the effect is strong. Figs. 3 and 4 agree. See Eq. 5 \
                        and Eqs. 6-7. Smith et al. showed this. We follow e.g. the method of Ng, \
                        i.e. the simple one. Compare cf. Table 2. A vs. B is shown. Values for \
                        1 and 2 resp. Are given. J. Smith measured 3.5 units. Results follow.";
            assert_eq!(
                sentences(seg, text),
                [
                    "As shown in Fig. 2, the effect is strong.",
                    "Figs. 3 and 4 agree.",
                    "See Eq. 5 and Eqs. 6-7.",
                    "Smith et al. showed this.",
                    "We follow e.g. the method of Ng, i.e. the simple one.",
                    "Compare cf. Table 2.",
                    "A vs. B is shown.",
                    "Values for 1 and 2 resp. Are given.",
                    "J. Smith measured 3.5 units.",
                    "Results follow."
                ],
                "{seg:?}"
            );
        }
    }

    #[test]
    fn upper_case_abbreviations_and_initials() {
        for seg in BOTH {
            let text = "In Eq. (3) we see it. See Tab. 4 and Ref. [5]. K. L. Ng and \
                        Dr. Okafor agree? Yes! The U.S. Army was not involved.";
            assert_eq!(
                sentences(seg, text),
                [
                    "In Eq. (3) we see it.",
                    "See Tab. 4 and Ref. [5].",
                    "K. L. Ng and Dr. Okafor agree?",
                    "Yes!",
                    "The U.S. Army was not involved."
                ],
                "{seg:?}"
            );
        }
    }

    #[test]
    fn punkt_learns_abbreviations_from_the_document() {
        // `wt` is not pre-trained: Punkt learns it from its periods; the rule-based segmenter
        // cuts after it.
        let doc = "Samples of 5 wt. percent rose. Samples of 9 wt. percent fell. \
                   Add 2 wt. Tin was used.";
        let p = Punkt::learn([doc]);
        assert!(p.abbreviations.contains("wt"), "{:?}", p.abbreviations);
        assert!(!p.abbreviations.contains("rose"));
        assert_eq!(sentences(Segmenter::Statistical, doc).len(), 3);
        assert_eq!(sentences(Segmenter::RuleBased, doc).len(), 4);
    }

    #[test]
    fn punkt_cuts_after_an_initial_before_a_known_sentence_starter() {
        // `The` is seen in lower case mid-sentence: after the initial it starts a sentence.
        let text = "We call the group B. The results of the group follow.";
        assert_eq!(sentences(Segmenter::Statistical, text).len(), 2);
        assert_eq!(sentences(Segmenter::RuleBased, text).len(), 1);
    }

    #[test]
    fn names_are_the_configuration_values() {
        for seg in BOTH {
            assert_eq!(seg.as_str().parse::<Segmenter>(), Ok(seg));
        }
        assert!("magic".parse::<Segmenter>().is_err());
    }

    #[test]
    fn never_cuts_inside_a_protected_range() {
        let text = "It was shown [Smith et al. 2019. Jones 2020] before. Then more.";
        let start = text.find('[').unwrap();
        let end = text.find(']').unwrap() + 1;
        for seg in BOTH {
            let protected = [std::slice::from_ref(&(start..end))].concat();
            let got = Splitter::trained(seg, [text]).split(text, &protected);
            let got: Vec<&str> = got.into_iter().map(|r| &text[r]).collect();
            assert_eq!(
                got,
                [
                    "It was shown [Smith et al. 2019. Jones 2020] before.",
                    "Then more."
                ]
            );
        }
    }

    proptest! {
        /// Any text, any protected ranges: sentences are ordered, trimmed, on character
        /// boundaries, cover every non-space character, and never straddle a protected range.
        #[test]
        fn sentences_cover_the_text_and_respect_protected_ranges(
            text in "([A-Za-z]{1,6}|[.!?]|[ ]|Fig\\. |et al\\. |3\\.5|é){0,40}",
            cuts in proptest::collection::vec(0usize..200, 0..6),
        ) {
            let mut bounds: Vec<usize> = cuts.into_iter().map(|c| c % (text.len() + 1)).filter(|c| text.is_char_boundary(*c)).collect();
            bounds.sort();
            bounds.dedup();
            let protected: Vec<Range<usize>> = bounds.chunks_exact(2).map(|w| w[0]..w[1]).collect();
            for seg in BOTH {
                let got = Splitter::trained(seg, [text.as_str()]).split(&text, &protected);
                let mut covered = String::new();
                let mut prev_end = 0;
                for r in &got {
                    prop_assert!(r.start >= prev_end && r.start < r.end);
                    prop_assert!(text[prev_end..r.start].trim().is_empty());
                    // Trimmed, unless a protected range reaches into the white space.
                    let edge = |i: usize| protected.iter().any(|p| p.start == i || p.end == i);
                    prop_assert!(text[r.clone()].trim() == &text[r.clone()] || edge(r.start) || edge(r.end));
                    covered.push_str(&text[r.clone()]);
                    prev_end = r.end;
                    for p in &protected {
                        let overlap = r.start.max(p.start) < r.end.min(p.end);
                        prop_assert!(!overlap || (r.start <= p.start && p.end <= r.end));
                    }
                }
                prop_assert!(text[prev_end..].trim().is_empty());
                let squash = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
                prop_assert_eq!(squash(&covered), squash(&text));
            }
        }
    }
}
