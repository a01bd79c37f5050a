//! Fulltext model: labels the tokens of the body zone (section titles, paragraphs, citation,
//! figure, table and equation markers, figures, tables, equations) — GROBID's third model
//! (reference grobid-models.md §1.4, §2.4, §3.3).
//!
//! This module holds the label set, the features and the decoder; the corpus reader is
//! `crate::training::fulltext`.
//!
//! Features ([`features`]): one path, as for the header and the reference segmenter. A token
//! is described by its [`TokenFacts`], read from GROBID's raw rows at training
//! ([`TokenFacts::from_raw`]) or computed from a PDF's layout at run time
//! ([`document_tokens`], then [`Callouts::apply`] once the bibliography is parsed); [`rows`]
//! computes the 27 columns for both. [`decode`] turns the labels into [`Span`]s over the zone
//! tokens.

use crate::labels::Labels;
use crate::layout::Span;
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

/// Version of [`rows`]' layout; bump when a column changes. (1 was GROBID's raw columns
/// copied as printed; 2 computes them from [`TokenFacts`].)
pub const FEATURE_VERSION: u32 = 2;

/// Labels in, spans out: one [`Span`] per contiguous run of one label over the zone tokens; a
/// label with GROBID's `I-` prefix opens a new span even right after the same label. An
/// unknown label is a tagging error.
pub fn decode(labels: &Labels) -> Result<Vec<Span<Label>>> {
    crate::models::label_spans("fulltext", labels, Label::parse)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::layout as corpus;
    use crate::corpus::Part;
    use crate::training::fulltext::*;
    use crate::training::ModelSpec;
    use std::path::Path;

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
