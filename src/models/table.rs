//! Table model: labels the tokens of one table zone (head, label, caption, content, notes) —
//! reference grobid-models.md §2.10, §3.9. GROBID reads and aligns the table corpus exactly as
//! the figure corpus (`<figure type="table">` elements, one sequence each), so the reader is
//! [`crate::models::figure`]'s; this module adds the table's label set (the figure's plus
//! `<note>`) and its spec.
//!
//! Features as the figure model's: [`figure::rows`] over the fulltext facts of the tokens of
//! one `<table>` span (`figure::rows(&facts[span.tokens.clone()])` at run time); [`decode`]'s
//! spans index that slice.

use crate::labels::Labels;
use crate::layout::Span;
use crate::models::figure;
use crate::Result;

model_labels!(
    "table",
    /// GROBID's table labels.
    {
        FigureHead => "<figure_head>",
        Label => "<label>",
        FigDesc => "<figDesc>",
        Content => "<content>",
        Note => "<note>",
        Other => "<other>",
    }
);

/// Version of the row layout: the figure model's ([`figure::FEATURE_VERSION`]).
pub const FEATURE_VERSION: u32 = figure::FEATURE_VERSION;
/// Labels in, spans out: one [`Span`] per run of one label over the table's tokens, a new one
/// at each `I-` prefix; an unknown label is a tagging error.
pub fn decode(labels: &Labels) -> Result<Vec<Span<Label>>> {
    crate::models::label_spans("table", labels, Label::parse)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Part;
    use crate::models::figure::tests::{raw_row, write};
    use crate::training::figure::TABLE_SPEC as SPEC;
    use crate::training::ModelSpec;

    const TEI: &str = r#"<tei><teiHeader><fileDesc xml:id="_t.pdf"/></teiHeader>
<text xml:lang="en">
  <figure type="table"><head>Table <label>1</label><lb/></head>
    <figDesc>Costs<lb/></figDesc>
    <table>Paper<lb/> 37.08<lb/></table>
    <note>*Overheads.</note></figure>
</text></tei>"#;

    #[test]
    fn a_table_file_reads_into_one_sequence_with_notes() {
        let ds = std::env::temp_dir().join(format!("quire-table-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&ds);
        let c = ds.join("table/corpus");
        write(&c.join("tei"), "t.training.table.tei.xml", TEI);
        // `37.08` is three tokens for GROBID's tokenizer, in the raw file as in the TEI.
        let toks = [
            "Table",
            "1",
            "Costs",
            "Paper",
            "37",
            ".",
            "08",
            "*",
            "Overheads",
            ".",
        ];
        let raw: Vec<String> = toks.iter().map(|t| raw_row(t, 27)).collect();
        write(&c.join("raw"), "t.training.table", &raw.join("\n"));
        // A misaligned file: its rows belong to another document.
        write(&c.join("tei"), "u.training.table.tei.xml", TEI);
        let other: Vec<String> = ["Lorem", "ipsum"].iter().map(|t| raw_row(t, 26)).collect();
        write(&c.join("raw"), "u.training.table", &other.join("\n"));

        let (seqs, stats) = SPEC.read(&ds, Part::Corpus).unwrap();
        assert_eq!(stats.files_read, 1);
        assert_eq!(stats.files_dropped.len(), 1);
        assert!(stats.files_dropped[0].1.contains("no row could be aligned"));
        assert_eq!(stats.sequences, 1);
        assert_eq!(stats.tokens, 10);
        assert_eq!(
            seqs[0].labels,
            vec![
                "I-<figure_head>",
                "I-<label>",
                "I-<figDesc>",
                "I-<content>",
                "<content>",
                "<content>",
                "<content>",
                "I-<note>",
                "<note>",
                "<note>"
            ]
        );
        for l in &seqs[0].labels {
            assert!(Label::parse(l).is_some(), "{l}");
        }
        std::fs::remove_dir_all(&ds).unwrap();
    }

    #[test]
    fn decode_knows_table_notes() {
        let l: Vec<String> = ["I-<figure_head>", "I-<content>", "<content>", "I-<note>"]
            .map(String::from)
            .to_vec();
        let got = crate::models::span_pairs(decode(&Labels::from_names(&l)).unwrap());
        assert_eq!(
            got,
            vec![
                (Label::FigureHead, 0..1),
                (Label::Content, 1..3),
                (Label::Note, 3..4),
            ]
        );
        assert!(decode(&Labels::from_names(&["<paragraph>".to_string()])).is_err());
    }
}
