//! Figure model: labels the tokens of one figure zone (its head, label, caption, content) —
//! reference grobid-models.md §2.10, §3.9. This module also holds what the table model
//! ([`crate::models::table`]) shares with it: GROBID reads both corpora with one TEI reader
//! ([`tei_tokens`]) and aligns them the same way ([`read_pair`]).
//!
//! Corpus reading: each `<figure>` of a `tei/` file is one sequence. Its text is tokenised with
//! the delimiter tokenizer, labelled by the innermost of `head` (`<figure_head>`), `label`,
//! `figDesc`, `table`/`trash`/`content` (`<content>`), `note`; other text inside the figure is
//! `<other>`. The raw rows (tab-separated, the fulltext features of the figure's tokens) are
//! aligned as GROBID's `FigureTrainer` does: each row's token is searched among the next 7 TEI
//! entries (line breaks and figure ends take room in that window), never going back; a matched
//! row takes the label, an unmatched row is dropped; a figure end between two matched rows
//! starts a new sequence.
//!
//! Features: GROBID hands the figure model the fulltext rows it already computed for the
//! tokens of one `<figure>` span, label removed (reference §1.4 step 4). Quire does the same
//! with facts: [`rows`] is [`fulltext::rows`] cut to columns 0–25 (GROBID's figure and table
//! templates do not use column 26, superscript, which older raw files lack). At run time the
//! caller slices the fulltext zone's facts by the span the fulltext model labelled
//! `<figure>`: `figure::rows(&facts[span.tokens.clone()])` (with `bitmapAround`, column 23,
//! set to 0 as in the corpus's rows: [`crate::body::figure::model_rows`]), and [`decode`]'s
//! spans index that slice. At training the facts come from the raw rows ([`fulltext::TokenFacts::from_raw`]).

use std::path::Path;
use std::sync::OnceLock;

use crate::corpus::layout::{self as corpus, FilePair, PairRead, TeiEvent, Unmatched};
use crate::crf::{Sequence, TrainParams};
use crate::labels::Labels;
use crate::layout::Span;
use crate::models::{fulltext, text};
use crate::models::{ModelName, ModelSpec, Part, ReadStats};
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

/// The label an element inside a `<figure>` gives its text (GROBID's figure/table TEI reader);
/// `None`: the text keeps the enclosing label.
fn element_label(name: &str) -> Option<&'static str> {
    Some(match name {
        "head" => "<figure_head>",
        "figDesc" => "<figDesc>",
        "table" | "trash" | "content" => "<content>",
        "label" => "<label>",
        "note" => "<note>",
        _ => return None,
    })
}

/// `(token, label)` entries of a figure or table TEI file. Each text chunk between element
/// boundaries is tokenised, its first token `I-`; `<lb/>`/`<pb/>` add a
/// [`corpus::NEWLINE`] entry and
/// each figure's end an empty entry (a sequence end). Text outside figures belongs to no
/// sequence and is left out.
pub fn tei_tokens(events: &[TeiEvent]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    // The open elements inside the current figure, with the label each gives.
    let mut stack: Vec<Option<&'static str>> = Vec::new();
    let mut in_figure = 0usize;
    // Pending text of the current chunk; `None` entries are line breaks.
    let mut chunk: Vec<Option<String>> = Vec::new();
    let flush = |chunk: &mut Vec<Option<String>>,
                 stack: &[Option<&'static str>],
                 out: &mut Vec<(String, String)>| {
        let label = stack
            .iter()
            .rev()
            .flatten()
            .next()
            .copied()
            .unwrap_or("<other>");
        corpus::push_chunk(out, chunk, label);
        chunk.clear();
    };
    for ev in events {
        match ev {
            TeiEvent::Start(name, _) => {
                if in_figure > 0 {
                    flush(&mut chunk, &stack, &mut out);
                    in_figure += 1;
                    stack.push(element_label(name));
                } else if name == "figure" {
                    in_figure = 1;
                    stack.clear();
                    chunk.clear();
                }
            }
            TeiEvent::End(_) if in_figure > 0 => {
                flush(&mut chunk, &stack, &mut out);
                in_figure -= 1;
                if in_figure == 0 {
                    out.push((String::new(), String::new()));
                } else {
                    stack.pop();
                }
            }
            TeiEvent::Text(t) if in_figure > 0 => chunk.push(Some(t.clone())),
            TeiEvent::LineBreak | TeiEvent::PageBreak if in_figure > 0 => chunk.push(None),
            _ => {}
        }
    }
    out
}

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

/// Read one figure or table TEI + raw pair into sequences, one per figure (GROBID's
/// `FigureTrainer`/`TableTrainer` rule, see the module documentation).
pub fn read_pair(tei: &Path, raw: &Path) -> Result<std::result::Result<PairRead, String>> {
    let events = corpus::walk_tei(tei)?;
    let entries = tei_tokens(&events);
    let raw_rows = corpus::read_raw_rows(raw)?;
    if let Err(why) = corpus::check_columns(&raw_rows, COLUMNS) {
        return Ok(Err(why));
    }
    let firsts: Vec<String> = raw_rows.iter().map(|r| r[0].clone()).collect();
    let al = corpus::align_with(&firsts, &entries, 7, Unmatched::Leave, None);
    // Figure ends before each TEI position, to cut sequences.
    let mut ends_before = Vec::with_capacity(entries.len() + 1);
    let mut n = 0usize;
    for (tok, _) in &entries {
        ends_before.push(n);
        if tok.is_empty() {
            n += 1;
        }
    }
    let mut seqs: Vec<Sequence> = Vec::new();
    let mut last: Option<usize> = None;
    for (i, ((row, lab), pos)) in raw_rows
        .iter()
        .zip(&al.labels)
        .zip(&al.positions)
        .enumerate()
    {
        let (Some(lab), Some(pos)) = (lab, pos) else {
            continue;
        };
        let Some(facts) = fulltext::TokenFacts::from_raw(row) else {
            return Ok(Err(format!("raw row {} is not a fulltext row", i + 1)));
        };
        let new_seq = match last {
            None => true,
            Some(prev) => ends_before[*pos] > ends_before[prev],
        };
        if new_seq {
            seqs.push(Sequence::default());
        }
        last = Some(*pos);
        if let Some(s) = seqs.last_mut() {
            s.rows.extend(rows(std::slice::from_ref(&facts)));
            s.labels.push(lab.clone());
        }
    }
    if seqs.is_empty() {
        return Ok(Err("no row could be aligned".into()));
    }
    Ok(Ok(PairRead {
        seqs,
        unaligned: al.labels.len() - al.matched,
    }))
}

/// Read `<dataset>/<sub>/{corpus,evaluation}` of the figure or table model.
pub(crate) fn read_figure_dir(
    dataset: &Path,
    sub: &str,
    part: Part,
) -> Result<(Vec<Sequence>, ReadStats)> {
    corpus::read_pairs(dataset, sub, part, sub, &|p: &FilePair| {
        read_pair(&p.tei, &p.raw)
    })
}

/// Quire's figure/table template: the fulltext one without column 26 (reference §4).
pub(crate) fn figure_template() -> &'static str {
    static T: OnceLock<String> = OnceLock::new();
    T.get_or_init(|| {
        text::template(
            &fulltext::layout_windows(false),
            &fulltext::layout_conjunctions(),
        )
    })
}

/// GROBID's figure and table settings: epsilon 1e-5, window 20, 2,000 iterations (§7).
pub(crate) fn figure_params() -> TrainParams {
    TrainParams {
        c1: 0.5,
        c2: 0.0001,
        epsilon: 1e-5,
        window: 20,
        max_iter: 2000,
        threads: 0,
    }
}

pub struct Spec;

pub static SPEC: Spec = Spec;

/// Version of [`rows`]' layout (1 was GROBID's raw columns copied as printed; 2 computes
/// them from [`fulltext::TokenFacts`]).
pub const FEATURE_VERSION: u32 = 2;

impl ModelSpec for Spec {
    fn name(&self) -> ModelName {
        ModelName::Figure
    }
    fn feature_version(&self) -> u32 {
        FEATURE_VERSION
    }
    fn template(&self) -> &'static str {
        figure_template()
    }
    fn default_params(&self) -> TrainParams {
        figure_params()
    }
    fn read(&self, dataset: &Path, part: Part) -> Result<(Vec<Sequence>, ReadStats)> {
        read_figure_dir(dataset, "figure", part)
    }
    fn write_resources(&self, _dataset: &Path, _models_dir: &Path) -> Result<()> {
        // The fulltext rows use no lexicon.
        Ok(())
    }
}

/// Labels in, spans out: one [`Span`] per run of one label over the figure's tokens, a new one
/// at each `I-` prefix; an unknown label is a tagging error.
pub fn decode(labels: &Labels) -> Result<Vec<Span<Label>>> {
    crate::models::label_spans("figure", labels, Label::parse)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::corpus::layout::NEWLINE;

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
