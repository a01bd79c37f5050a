//! Figure model: labels the tokens of one figure zone (its head, label, caption, content) —
//! reference grobid-models.md §2.10, §3.9. The table model ([`crate::models::table`]) shares
//! its features; both corpora are read by `crate::training::figure`.
//!
//! Features: GROBID hands the figure model the fulltext rows it already computed for the
//! tokens of one `<figure>` span, label removed (reference §1.4 step 4). Quire does the same
//! with facts: [`rows`] is [`fulltext::rows`] cut to columns 0–25 (GROBID's figure and table
//! templates do not use column 26, superscript, which older raw files lack). At run time the
//! caller slices the fulltext zone's facts by the span the fulltext model labelled
//! `<figure>`: `figure::rows(&facts[span.tokens.clone()])` (with `bitmapAround`, column 23,
//! set to 0 as in the corpus's rows: [`crate::body::figure::model_rows`]), and [`decode`]'s
//! spans index that slice. At training the facts come from the raw rows ([`fulltext::TokenFacts::from_raw`]).

use crate::labels::Labels;
use crate::layout::Span;
use crate::models::fulltext;
use crate::Result;

model_labels!(
    "figure",
    /// GROBID's figure labels.
    {
        FigureHead => "<figure_head>",
        Label => "<label>",
        FigDesc => "<figDesc>",
        Content => "<content>",
        Other => "<other>",
    }
);

/// Figure and table rows keep GROBID's columns 0–25 (see the module documentation).
pub const COLUMNS: usize = 26;

/// THE figure and table feature function: the fulltext rows of the facts, columns 0–25.
pub fn rows(facts: &[fulltext::TokenFacts]) -> crate::features::Rows {
    let mut rows = fulltext::rows(facts);
    for r in &mut rows {
        r.truncate(COLUMNS);
    }
    rows
}

/// Version of [`rows`]' layout (1 was GROBID's raw columns copied as printed; 2 computes
/// them from [`fulltext::TokenFacts`]).
pub const FEATURE_VERSION: u32 = 2;
/// Labels in, spans out: one [`Span`] per run of one label over the figure's tokens, a new one
/// at each `I-` prefix; an unknown label is a tagging error.
pub fn decode(labels: &Labels) -> Result<Vec<Span<Label>>> {
    crate::models::label_spans("figure", labels, Label::parse)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::corpus::layout as corpus;
    use crate::corpus::layout::NEWLINE;
    use crate::training::figure::*;
    use std::path::Path;

    pub(crate) const TEI: &str = r#"<tei><teiHeader><fileDesc xml:id="_x.pdf"/></teiHeader>
<text xml:lang="en">
  <figure><head>Figure <label>1</label></head>
    <figDesc>A plot of<lb/> things.</figDesc></figure>
  between figures
  <figure><head>Fig. <label>2</label></head><trash>0 1</trash>
    <figDesc>More.</figDesc></figure>
</text></tei>"#;

    /// A tab-separated raw row (GROBID's figure files) for `tok`, `n` columns.
    pub(crate) fn raw_row(tok: &str, n: usize) -> String {
        let mut cols = vec![tok.to_string(); 10];
        cols.extend(
            [
                "BLOCKIN",
                "LINEIN",
                "ALIGNEDLEFT",
                "SAMEFONT",
                "SAMEFONTSIZE",
                "0",
                "0",
                "NOCAPS",
                "NODIGIT",
                "0",
                "NOPUNCT",
                "3",
                "5",
                "1",
                "NUMBER",
                "0",
                "1",
            ]
            .map(String::from),
        );
        cols.truncate(n);
        cols.join("\t")
    }

    pub(crate) fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
        std::fs::create_dir_all(dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn tei_tokens_label_figure_parts_and_mark_lines_and_ends() {
        let ev = corpus::parse_tei(TEI).unwrap();
        let got = tei_tokens(&ev);
        let got: Vec<(&str, &str)> = got.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        assert_eq!(
            got,
            vec![
                ("Figure", "I-<figure_head>"),
                ("1", "I-<label>"),
                ("A", "I-<figDesc>"),
                ("plot", "<figDesc>"),
                ("of", "<figDesc>"),
                (NEWLINE, ""),
                ("things", "<figDesc>"),
                (".", "<figDesc>"),
                ("", ""),
                ("Fig", "I-<figure_head>"),
                (".", "<figure_head>"),
                ("2", "I-<label>"),
                ("0", "I-<content>"),
                ("1", "<content>"),
                ("More", "I-<figDesc>"),
                (".", "<figDesc>"),
                ("", ""),
            ]
        );
    }

    #[test]
    fn figures_become_sequences_and_unmatched_rows_are_dropped() {
        let d = std::env::temp_dir().join(format!("quire-figure-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        let tei = write(&d.join("tei"), "a.training.figure.tei.xml", TEI);
        // 26 and 27 columns mixed (older files lack the superscript column); `noise` matches
        // nothing and is dropped.
        let toks = [
            "Figure", "1", "A", "plot", "noise", "of", "things", ".", "Fig", ".", "2", "0", "1",
            "More", ".",
        ];
        let raw: Vec<String> = toks
            .iter()
            .enumerate()
            .map(|(i, t)| raw_row(t, if i % 2 == 0 { 26 } else { 27 }))
            .collect();
        let raw = write(&d.join("raw"), "a.training.figure", &raw.join("\n"));
        let r = read_pair(&tei, &raw).unwrap().unwrap();
        assert_eq!(r.unaligned, 1);
        assert_eq!(r.seqs.len(), 2);
        assert_eq!(r.seqs[0].rows.len(), 7);
        assert_eq!(r.seqs[1].rows.len(), 7);
        assert!(r
            .seqs
            .iter()
            .flat_map(|s| &s.rows)
            .all(|row| row.len() == COLUMNS));
        assert_eq!(
            r.seqs[1].labels,
            vec![
                "I-<figure_head>",
                "<figure_head>",
                "I-<label>",
                "I-<content>",
                "<content>",
                "I-<figDesc>",
                "<figDesc>"
            ]
        );
        for l in r.seqs.iter().flat_map(|s| &s.labels) {
            assert!(Label::parse(l).is_some(), "{l}");
        }
        // The rows are computed from the facts: lexical columns from the token, layout ones
        // from the raw columns.
        let first = &r.seqs[0].rows[0];
        assert_eq!(first[1], "figure");
        assert_eq!(first[2], "F");
        assert_eq!(first[17], "INITCAP");
        assert_eq!(first[23], "1");
        // A row that is no fulltext row drops the file with its line number.
        let bad_row = write(&d.join("raw"), "e.training.figure", &"Figure\t".repeat(26));
        let why = read_pair(&tei, &bad_row).unwrap().unwrap_err();
        assert!(why.contains("raw row 1 is not a fulltext row"), "{why}");
        // Malformed XML: an error naming the file.
        let bad = write(
            &d.join("tei"),
            "b.training.figure.tei.xml",
            "<tei><text><figure><head a=\"1>x</head></figure></text></tei>",
        );
        let msg = read_pair(&bad, &raw).unwrap_err().to_string();
        assert!(msg.contains("b.training.figure.tei.xml"), "{msg}");
        // A raw file whose rows match nothing: dropped.
        let stray = write(&d.join("raw"), "c.training.figure", &raw_row("zzz", 26));
        let why = read_pair(&tei, &stray).unwrap().unwrap_err();
        assert!(why.contains("no row could be aligned"), "{why}");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn figure_rows_are_the_fulltext_rows_without_superscript() {
        let facts = fulltext::TokenFacts::from_raw(
            &raw_row("Fig", 27)
                .split('\t')
                .map(String::from)
                .collect::<Vec<_>>(),
        )
        .unwrap();
        assert!(facts.superscript);
        let full = fulltext::rows(std::slice::from_ref(&facts));
        let fig = rows(std::slice::from_ref(&facts));
        assert_eq!(full[0].len(), 27);
        assert_eq!(fig[0], full[0][..COLUMNS].to_vec());
    }

    #[test]
    fn decode_gives_one_span_per_figure_part() {
        let l: Vec<String> = [
            "I-<figure_head>",
            "<figure_head>",
            "I-<label>",
            "I-<figDesc>",
            "<figDesc>",
            "I-<figDesc>",
        ]
        .map(String::from)
        .to_vec();
        let got = crate::models::span_pairs(decode(&Labels::from_names(&l)).unwrap());
        assert_eq!(
            got,
            vec![
                (Label::FigureHead, 0..2),
                (Label::Label, 2..3),
                (Label::FigDesc, 3..5),
                (Label::FigDesc, 5..6),
            ]
        );
        assert!(
            decode(&Labels::from_names(&["<note>".to_string()])).is_err(),
            "no note in figures"
        );
    }
}
