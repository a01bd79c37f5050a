//! Fulltext model: labels the tokens of the body zone (section titles, paragraphs, citation,
//! figure, table and equation markers, figures, tables, equations) — GROBID's third model
//! (reference grobid-models.md §1.4, §2.4, §3.3).
//!
//! This module holds the label set and the corpus reader: each `corpus/tei` annotation is
//! tokenised as GROBID's fulltext TEI reader does ([`tei_tokens`]) and aligned onto the rows
//! of the matching `corpus/raw` feature file with GROBID's fulltext rule (window of 7 TEI
//! entries, an unmatched row takes the previous label, reading stops after more than 20
//! consecutive failures, a file ending with 10 or more is dropped; reference §5.2).
//!
//! The `article/light` flavour (`fulltext/article/light`) is read the same way, with figures and
//! tables labelled `<paragraph>` ([`light_label`]), as GROBID's light reader does.
//!
//! Features ([`features`]): one path, as for the header and the reference segmenter. A token
//! is described by its [`TokenFacts`], read from GROBID's raw rows at training
//! ([`TokenFacts::from_raw`]) or computed from a PDF's layout at run time
//! ([`document_tokens`], then [`Callouts::apply`] once the bibliography is parsed); [`rows`]
//! computes the 27 columns for both. [`decode`] turns the labels into [`Span`]s over the zone
//! tokens.

use std::path::Path;
use std::sync::OnceLock;

use crate::corpus::layout::{self as corpus, PairRead, TeiEvent, Unmatched};
use crate::crf::{Sequence, TrainParams};
use crate::flavor::Flavor;
use crate::labels::Labels;
use crate::layout::Span;
use crate::models::text;
use crate::models::{ModelName, ModelSpec, Part, ReadStats};
use crate::Result;

mod features;
pub use features::{document_tokens, rows, CalloutType, Callouts, TokenFacts, COLUMNS};

model_labels!(
    "fulltext",
    /// GROBID's fulltext labels as the training corpus produces them. (`<item>` exists in GROBID
    /// as a label but list items are trained as paragraphs, so it is not here.)
    {
        Section => "<section>",
        Paragraph => "<paragraph>",
        CitationMarker => "<citation_marker>",
        FigureMarker => "<figure_marker>",
        TableMarker => "<table_marker>",
        EquationMarker => "<equation_marker>",
        SectionMarker => "<section_marker>",
        Figure => "<figure>",
        Table => "<table>",
        Equation => "<equation>",
        EquationLabel => "<equation_label>",
        Other => "<other>",
    }
);

impl Label {
    /// The label an element of the fulltext corpus gives its text: `Some` for a labelling
    /// element, `None` for one whose text keeps the enclosing label (`list`, a `ref` of an
    /// unknown type, the TEI scaffolding). Unknown elements label their text `<other>`, as
    /// GROBID's reader does.
    fn from_tei(name: &str, attrs: &[(String, String)]) -> Option<Label> {
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
            "list" | "tei" | "TEI" | "teiHeader" | "fileDesc" | "lb" | "pb" | "space" => {
                return None
            }
            _ => Label::Other,
        })
    }
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
                stack.push(Label::from_tei(name, attrs));
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
    let mut facts = Vec::new();
    let mut labels = Vec::new();
    for (i, (row, lab)) in raw_rows.iter().zip(&al.labels).enumerate() {
        if let Some(lab) = lab {
            let Some(f) = TokenFacts::from_raw(row) else {
                return Ok(Err(format!("raw row {} is not a fulltext row", i + 1)));
            };
            facts.push(f);
            labels.push(lab.clone());
        }
    }
    let seq = Sequence {
        rows: rows(&facts),
        labels,
    };
    if seq.rows.is_empty() {
        return Ok(Err("no row could be aligned".into()));
    }
    Ok(Ok(PairRead {
        seqs: vec![seq],
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

/// Version of [`rows`]' layout; bump when a column changes. (1 was GROBID's raw columns
/// copied as printed; 2 computes them from [`TokenFacts`].)
pub const FEATURE_VERSION: u32 = 2;

/// Quire's fulltext template over the 27 raw columns (informed by GROBID's, reference §4).
fn template() -> &'static str {
    static T: OnceLock<String> = OnceLock::new();
    T.get_or_init(|| text::template(&layout_windows(true), &layout_conjunctions()))
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

pub(crate) fn layout_conjunctions() -> Vec<text::Conjunction> {
    vec![
        ((-1, 0), (0, 0)),
        ((0, 0), (1, 0)),
        ((1, 0), (2, 0)),
        ((-2, 0), (-1, 0)),
        ((0, 17), (1, 17)),
        ((-1, 17), (0, 17)),
    ]
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
            c2: 0.0001,
            epsilon: 1e-4,
            window: 20,
            max_iter: 650,
            threads: 0,
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

/// Labels in, spans out: one [`Span`] per contiguous run of one label over the zone tokens; a
/// label with GROBID's `I-` prefix opens a new span even right after the same label. An
/// unknown label is a tagging error.
pub fn decode(labels: &Labels) -> Result<Vec<Span<Label>>> {
    crate::models::label_spans("fulltext", labels, Label::parse)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEI: &str = r#"<tei><teiHeader><fileDesc xml:id="0"/></teiHeader><text xml:lang="en">
<head>1 Intro<lb/></head>
<p>We use CRFs <ref type="biblio">[3]</ref> as in<lb/> Fig. <ref type="figure">2</ref>.</p>
<figure><head>Figure 2</head> A plot</figure>
<formula>x = y <label>(1)</label></formula>
</text></tei>"#;

    fn pairs(v: &[(String, String)]) -> Vec<(&str, &str)> {
        v.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect()
    }

    #[test]
    fn tei_tokens_follow_grobid_fulltext_reader() {
        let ev = corpus::parse_tei(TEI).unwrap();
        let got = tei_tokens(&ev);
        assert_eq!(
            pairs(&got),
            vec![
                ("1", "I-<section>"),
                ("Intro", "<section>"),
                ("We", "I-<paragraph>"),
                ("use", "<paragraph>"),
                ("CRFs", "<paragraph>"),
                ("[", "I-<citation_marker>"),
                ("3", "<citation_marker>"),
                ("]", "<citation_marker>"),
                // The paragraph resumes after the marker: a new chunk, a new `I-`.
                ("as", "I-<paragraph>"),
                ("in", "<paragraph>"),
                ("Fig", "<paragraph>"),
                (".", "<paragraph>"),
                ("2", "I-<figure_marker>"),
                (".", "I-<paragraph>"),
                // Everything inside a figure is <figure>, its head included.
                ("Figure", "I-<figure>"),
                ("2", "<figure>"),
                ("A", "I-<figure>"),
                ("plot", "<figure>"),
                ("x", "I-<equation>"),
                ("=", "<equation>"),
                ("y", "<equation>"),
                ("(", "I-<equation_label>"),
                ("1", "<equation_label>"),
                (")", "<equation_label>"),
            ]
        );
        for (_, l) in &got {
            assert!(Label::parse(l).is_some(), "{l}");
        }
    }

    /// A raw fulltext row for `tok` (the figure tests' row, all 27 columns).
    fn raw_row(tok: &str) -> String {
        crate::models::figure::tests::raw_row(tok, COLUMNS)
    }

    fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
        std::fs::create_dir_all(dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn pairs_align_and_bad_files_are_dropped_with_reasons() {
        let ds = std::env::temp_dir().join(format!("quire-fulltext-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&ds);
        let c = ds.join("fulltext/corpus");
        // Good: raw rows of the TEI's tokens plus one stray row (`zz`, previous label).
        let raw: Vec<String> = ["1", "Intro", "We", "zz", "use", "CRFs", "[", "3", "]"]
            .iter()
            .map(|t| raw_row(t))
            .collect();
        write(&c.join("tei"), "a.training.fulltext.tei.xml", TEI);
        write(&c.join("raw"), "a.training.fulltext", &raw.join("\n"));
        // Malformed TEI.
        write(
            &c.join("tei"),
            "b.training.fulltext.tei.xml",
            "<tei><text><p rend=\"x>broken</p></text></tei>",
        );
        write(&c.join("raw"), "b.training.fulltext", &raw_row("broken"));
        // Raw rows that never match the TEI: dropped for synchronisation.
        let stray: Vec<String> = (0..15).map(|i| raw_row(&format!("x{i}"))).collect();
        write(&c.join("tei"), "d.training.fulltext.tei.xml", TEI);
        write(&c.join("raw"), "d.training.fulltext", &stray.join("\n"));
        // A TEI file without its raw file.
        write(&c.join("tei"), "e.training.fulltext.tei.xml", TEI);

        let (seqs, stats) = read_dir(&ds, None, Part::Corpus).unwrap();
        assert_eq!(stats.files_read, 1);
        assert_eq!(seqs.len(), 1);
        assert_eq!(stats.tokens, 9);
        assert_eq!(stats.unaligned, 1);
        assert_eq!(seqs[0].rows[0].len(), COLUMNS);
        // The stray row copies the previous row's label verbatim, `I-` included (GROBID).
        assert_eq!(seqs[0].labels[3], "I-<paragraph>");
        assert_eq!(seqs[0].labels[5], "<paragraph>");
        assert_eq!(seqs[0].labels[6], "I-<citation_marker>");
        let reasons: Vec<String> = stats
            .files_dropped
            .iter()
            .map(|(p, r)| format!("{}: {r}", p.display()))
            .collect();
        assert_eq!(reasons.len(), 3, "{reasons:?}");
        assert!(
            reasons
                .iter()
                .any(|r| r.contains("b.training.fulltext.tei.xml") && r.contains("XML")),
            "{reasons:?}"
        );
        assert!(
            reasons
                .iter()
                .any(|r| r.starts_with(&c.join("tei/d").display().to_string())
                    && r.contains("synchronisation")),
            "{reasons:?}"
        );
        assert!(
            reasons
                .iter()
                .any(|r| r.contains("e.training") && r.contains("no raw")),
            "{reasons:?}"
        );
        std::fs::remove_dir_all(&ds).unwrap();
    }

    #[test]
    fn light_flavour_reads_figures_as_paragraphs() {
        assert_eq!(light_label("I-<figure>"), "I-<paragraph>");
        assert_eq!(light_label("<table>"), "<paragraph>");
        assert_eq!(light_label("I-<citation_marker>"), "I-<citation_marker>");
        let ds = std::env::temp_dir().join(format!("quire-fulltext-light-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&ds);
        let c = ds.join("fulltext/article/light/corpus");
        let tei = "<tei><text><figure><head>Figure 2</head> A plot</figure></text></tei>";
        write(&c.join("tei"), "a.training.fulltext.tei.xml", tei);
        let raw: Vec<String> = ["Figure", "2", "A", "plot"]
            .iter()
            .map(|t| raw_row(t))
            .collect();
        write(&c.join("raw"), "a.training.fulltext", &raw.join("\n"));
        let (seqs, _) = LIGHT_SPEC.read(&ds, Part::Corpus).unwrap();
        assert_eq!(
            seqs[0].labels,
            vec![
                "I-<paragraph>",
                "<paragraph>",
                "I-<paragraph>",
                "<paragraph>"
            ]
        );
        std::fs::remove_dir_all(&ds).unwrap();
    }

    #[test]
    fn short_raw_rows_drop_the_file() {
        let ds = std::env::temp_dir().join(format!("quire-fulltext-short-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&ds);
        let c = ds.join("fulltext/evaluation");
        let tei = write(&c.join("tei"), "a.training.fulltext.tei.xml", TEI);
        let raw = write(&c.join("raw"), "a.training.fulltext", "1 1 1\n");
        let why = read_pair(&tei, &raw).unwrap().unwrap_err();
        assert!(why.contains("raw row 1 has 3 columns"), "{why}");
        std::fs::remove_dir_all(&ds).unwrap();
    }

    fn strings(l: &[&str]) -> Vec<String> {
        l.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn decode_cuts_runs_and_opens_a_span_at_each_i_prefix() {
        let labels = strings(&[
            "I-<section>",
            "<section>",
            "I-<paragraph>",
            "<paragraph>",
            "I-<citation_marker>",
            "<citation_marker>",
            "<paragraph>",   // a change of label opens a span without `I-`
            "I-<paragraph>", // a new paragraph right after another
            "<paragraph>",
            "I-<figure>",
        ]);
        let got = crate::models::span_pairs(decode(&Labels::from_names(&labels)).unwrap());
        assert_eq!(
            got,
            vec![
                (Label::Section, 0..2),
                (Label::Paragraph, 2..4),
                (Label::CitationMarker, 4..6),
                (Label::Paragraph, 6..7),
                (Label::Paragraph, 7..9),
                (Label::Figure, 9..10),
            ]
        );
        assert!(decode(&Labels::empty()).unwrap().is_empty());
        let err = decode(&Labels::from_names(strings(&["<paragraph>", "<title>"]))).unwrap_err();
        assert!(err.to_string().contains("<title>"), "{err}");
    }
}
