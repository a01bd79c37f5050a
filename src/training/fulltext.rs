/*!
The fulltext model's training half: reading GROBID's fulltext corpus (TEI + raw feature files)
into CRF sequences, the `article/light` flavour's label mapping, the template windows the
fulltext, figure and table models share, and the [`ModelSpec`]s of both flavours.

Each `corpus/tei` annotation is tokenised as GROBID's fulltext TEI reader does
([`tei_tokens`]) and aligned onto the rows of the matching `corpus/raw` feature file with
GROBID's fulltext rule (window of 7 TEI entries, an unmatched row takes the previous label,
reading stops after more than 20 consecutive failures, a file ending with 10 or more is
dropped; reference §5.2). The `article/light` flavour (`fulltext/article/light`) is read the
same way, with figures and tables labelled `<paragraph>` ([`light_label`]), as GROBID's light
reader does.
*/

use std::path::Path;
use std::sync::OnceLock;

use crate::corpus::layout::{self as corpus, PairRead, TeiEvent, Unmatched};
use crate::corpus::{Part, ReadStats};
use crate::crf::{Sequence, TrainParams};
use crate::flavor::Flavor;
use crate::models::fulltext::{rows, Label, TokenFacts, COLUMNS, FEATURE_VERSION};
use crate::models::ModelName;
use crate::training::spec::ModelSpec;
use crate::training::template as tpl;
use crate::Result;

/// The label an element of the fulltext corpus gives its text: `Some` for a labelling
/// element, `None` for one whose text keeps the enclosing label (`list`, a `ref` of an
/// unknown type, the TEI scaffolding). Unknown elements label their text `<other>`, as
/// GROBID's reader does.
fn label_of_tei(name: &str, attrs: &[(String, String)]) -> Option<Label> {
    let ty = corpus::attr(attrs, "type").unwrap_or("");
    Some(match name {
        "p" | "item" => Label::Paragraph,
        "div" if ty == "paragraph" => Label::Paragraph,
        "div" => return None,
        "head" => Label::Section,
        "ref" => match ty {
            "biblio" => Label::CitationMarker,
            "figure" => Label::FigureMarker,
            "table" => Label::TableMarker,
            "formula" | "equation" => Label::EquationMarker,
            "section" => Label::SectionMarker,
            _ => return None,
        },
        "formula" => Label::Equation,
        "label" => Label::EquationLabel,
        "table" => Label::Table,
        "figure" if ty == "table" => Label::Table,
        "figure" => Label::Figure,
        "other" | "text" => Label::Other,
        "list" | "tei" | "TEI" | "teiHeader" | "fileDesc" | "lb" | "pb" | "space" => return None,
        _ => Label::Other,
    })
}

/// `(token, label)` entries of a fulltext TEI file, GROBID's way: the text between two element
/// boundaries is one chunk, tokenised with the delimiter tokenizer, its first token `I-`; a
/// chunk's label is the innermost labelling element's, except that everything inside a figure
/// or table is `<figure>`/`<table>`; `<lb/>` and `<pb/>` are spaces; text outside any labelling
/// element inside `<text>` is `<other>`.
pub fn tei_tokens(events: &[TeiEvent]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut acc = String::new();
    // One entry per open element inside <text>: its label, if it gives one.
    let mut stack: Vec<Option<Label>> = Vec::new();
    let mut in_text = false;
    let current = |stack: &[Option<Label>]| -> Label {
        // A figure or table block labels everything inside it.
        if let Some(block) = stack
            .iter()
            .flatten()
            .find(|l| matches!(l, Label::Figure | Label::Table))
        {
            return *block;
        }
        stack
            .iter()
            .rev()
            .flatten()
            .next()
            .copied()
            .unwrap_or(Label::Other)
    };
    for ev in events {
        match ev {
            TeiEvent::Start(name, attrs) => {
                if name == "text" {
                    in_text = true;
                    acc.clear();
                    stack.clear();
                    continue;
                }
                if !in_text {
                    continue;
                }
                if !acc.trim().is_empty() {
                    corpus::push_tokens(&mut out, &acc, current(&stack).as_str());
                }
                acc.clear();
                stack.push(label_of_tei(name, attrs));
            }
            TeiEvent::End(name) => {
                if !in_text {
                    continue;
                }
                if !acc.trim().is_empty() {
                    corpus::push_tokens(&mut out, &acc, current(&stack).as_str());
                }
                acc.clear();
                if name == "text" {
                    in_text = false;
                    continue;
                }
                stack.pop();
            }
            TeiEvent::Text(t) if in_text => acc.push_str(t),
            TeiEvent::LineBreak | TeiEvent::PageBreak if in_text => acc.push(' '),
            _ => {}
        }
    }
    out
}

/// Read one TEI + raw pair into a training sequence (GROBID's FulltextTrainer rule, see the
/// module documentation); `Ok(Err(reason))` when GROBID would drop the file.
pub fn read_pair(tei: &Path, raw: &Path) -> Result<std::result::Result<PairRead, String>> {
    let events = corpus::walk_tei(tei)?;
    let tei_toks = tei_tokens(&events);
    let raw_rows = corpus::read_raw_rows(raw)?;
    if let Err(why) = corpus::check_columns(&raw_rows, COLUMNS) {
        return Ok(Err(why));
    }
    let firsts: Vec<String> = raw_rows.iter().map(|r| r[0].clone()).collect();
    let al = corpus::align(&firsts, &tei_toks, 7, Unmatched::PreviousLabel);
    if al.trailing_failures >= 10 {
        return Ok(Err(format!(
            "too many synchronisation issues ({} consecutive unmatched rows)",
            al.trailing_failures
        )));
    }
    let unaligned = raw_rows.len() - al.matched;
    let (facts, labels) = match corpus::labelled_facts(
        &raw_rows,
        &al.labels,
        TokenFacts::from_raw,
        "fulltext",
        "row",
    ) {
        Ok(read) => read,
        Err(why) => return Ok(Err(why)),
    };
    Ok(Ok(PairRead {
        seqs: vec![Sequence {
            rows: rows(&facts),
            labels,
        }],
        unaligned,
    }))
}

/// Read `<dataset>/fulltext/{corpus,evaluation}` (or the flavour's folder): one sequence per
/// document.
pub fn read_dir(
    dataset: &Path,
    flavor: Option<Flavor>,
    part: Part,
) -> Result<(Vec<Sequence>, ReadStats)> {
    corpus::read_flavoured_pairs(dataset, "fulltext", flavor, part, light_plain, &|p| {
        read_pair(&p.tei, &p.raw)
    })
}

/// The `article/light` flavour's label for a standard one: figures and tables become
/// paragraphs (the `I-` prefix is kept); every other label is unchanged.
pub fn light_label(label: &str) -> String {
    corpus::relabel(label, light_plain)
}

fn light_plain(plain: &str) -> &str {
    match plain {
        "<figure>" | "<table>" => "<paragraph>",
        other => other,
    }
}

/// The standard model (`flavor: None`) or the `article/light` flavour.
pub struct Spec {
    pub flavor: Option<Flavor>,
}

pub static SPEC: Spec = Spec { flavor: None };
pub static LIGHT_SPEC: Spec = Spec {
    flavor: Some(Flavor::ArticleLight),
};

/// Quire's fulltext template over the 27 raw columns (informed by GROBID's, reference §4).
fn template() -> &'static str {
    static T: OnceLock<String> = OnceLock::new();
    T.get_or_init(|| tpl::template(&layout_windows(true), &layout_conjunctions()))
}

/// Template windows shared by the fulltext, figure and table models (the fulltext columns;
/// `superscript` adds column 26, which older figure/table raw files lack).
pub(crate) fn layout_windows(superscript: bool) -> Vec<(usize, &'static [i32])> {
    let mut w: Vec<(usize, &'static [i32])> = vec![
        (0, &[-4, -3, -2, -1, 0, 1, 2, 3, 4, 5]),
        (1, &[-2, -1, 0, 1, 2]),
        (2, &[0]),
        (3, &[0]),
        (4, &[0]),
        (5, &[0]),
        (6, &[0]),
        (7, &[0]),
        (8, &[0]),
        (9, &[0]),
        (10, &[-1, 0, 1]),
        (11, &[-2, -1, 0, 1, 2]),
        (12, &[-1, 0, 1]),
        (13, &[-1, 0, 1]),
        (14, &[-1, 0, 1]),
        (15, &[-1, 0, 1]),
        (16, &[-1, 0, 1]),
        (17, &[-1, 0, 1]),
        (18, &[-1, 0, 1]),
        (19, &[-1, 0, 1]),
        (20, &[-2, -1, 0, 1, 2]),
        (21, &[-1, 0, 1]),
        (22, &[-1, 0, 1]),
        (23, &[-2, -1, 0, 1, 2, 3]),
        (24, &[0]),
        (25, &[-2, -1, 0, 1, 2]),
    ];
    if superscript {
        w.push((26, &[-2, -1, 0, 1, 2]));
    }
    w
}

pub(crate) fn layout_conjunctions() -> Vec<tpl::Conjunction> {
    tpl::token_and_flag_conjunctions(17)
}

impl ModelSpec for Spec {
    fn name(&self) -> ModelName {
        ModelName::Fulltext
    }
    fn flavor(&self) -> Option<Flavor> {
        self.flavor
    }
    fn feature_version(&self) -> u32 {
        FEATURE_VERSION
    }
    fn template(&self) -> &'static str {
        template()
    }
    fn default_params(&self) -> TrainParams {
        // GROBID: epsilon 1e-4, window 20, 1,500 iterations (reference §7). The committed
        // model stopped at 650 (40 minutes on one thread of the shared machine; the loss moved
        // 0.4 % over its last 50 iterations), and the default reproduces it.
        TrainParams {
            c1: 1.0,
            ..TrainParams::grobid(1e-4, 20, 650)
        }
    }
    fn read(&self, dataset: &Path, part: Part) -> Result<(Vec<Sequence>, ReadStats)> {
        read_dir(dataset, self.flavor, part)
    }
    fn write_resources(&self, _dataset: &Path, _models_dir: &Path) -> Result<()> {
        // The fulltext rows use no lexicon.
        Ok(())
    }
}
