/*!
The figure and table models' training half. GROBID reads both corpora with one TEI reader
([`tei_tokens`]: each `<figure>` of a `tei/` file is one sequence) and aligns them the same way
([`read_pair`]); the table's corpus holds `<figure type="table">` elements. This module also
gives the template and parameters both share, and their [`ModelSpec`]s.

Corpus reading: a figure's text is tokenised with the delimiter tokenizer, labelled by the
innermost of `head` (`<figure_head>`), `label`, `figDesc`, `table`/`trash`/`content`
(`<content>`), `note`; other text inside the figure is `<other>`. The raw rows (tab-separated,
the fulltext features of the figure's tokens) are aligned as GROBID's `FigureTrainer` does:
each row's token is searched among the next 7 TEI entries (line breaks and figure ends take
room in that window), never going back; a matched row takes the label, an unmatched row is
dropped; a figure end between two matched rows starts a new sequence. The facts come from the
raw rows ([`fulltext::TokenFacts::from_raw`]).
*/

use std::path::Path;
use std::sync::OnceLock;

use crate::corpus::layout::{self as corpus, FilePair, PairRead, TeiEvent, Unmatched};
use crate::corpus::{Part, ReadStats};
use crate::crf::{Sequence, TrainParams};
use crate::models::figure::{rows, COLUMNS, FEATURE_VERSION};
use crate::models::{fulltext, table, ModelName};
use crate::training::fulltext::{layout_conjunctions, layout_windows};
use crate::training::spec::ModelSpec;
use crate::training::template as tpl;
use crate::Result;

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
fn read_figure_dir(dataset: &Path, sub: &str, part: Part) -> Result<(Vec<Sequence>, ReadStats)> {
    corpus::read_pairs(dataset, sub, part, sub, &|p: &FilePair| {
        read_pair(&p.tei, &p.raw)
    })
}

/// Quire's figure/table template: the fulltext one without column 26 (reference §4).
fn figure_template() -> &'static str {
    static T: OnceLock<String> = OnceLock::new();
    T.get_or_init(|| tpl::template(&layout_windows(false), &layout_conjunctions()))
}

/// The figure model's spec.
pub struct Spec;

pub static SPEC: Spec = Spec;

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
        // GROBID's figure and table settings: epsilon 1e-5, window 20, 2,000 iterations (§7).
        TrainParams::default()
    }
    fn read(&self, dataset: &Path, part: Part) -> Result<(Vec<Sequence>, ReadStats)> {
        read_figure_dir(dataset, "figure", part)
    }
    fn write_resources(&self, _dataset: &Path, _models_dir: &Path) -> Result<()> {
        // The fulltext rows use no lexicon.
        Ok(())
    }
}

/// The table model's spec.
pub struct TableSpec;

pub static TABLE_SPEC: TableSpec = TableSpec;

impl ModelSpec for TableSpec {
    fn name(&self) -> ModelName {
        ModelName::Table
    }
    fn feature_version(&self) -> u32 {
        table::FEATURE_VERSION
    }
    fn template(&self) -> &'static str {
        figure_template()
    }
    fn default_params(&self) -> TrainParams {
        // GROBID's figure and table settings: epsilon 1e-5, window 20, 2,000 iterations (§7).
        TrainParams::default()
    }
    fn read(&self, dataset: &Path, part: Part) -> Result<(Vec<Sequence>, ReadStats)> {
        read_figure_dir(dataset, "table", part)
    }
    fn write_resources(&self, _dataset: &Path, _models_dir: &Path) -> Result<()> {
        // The fulltext rows use no lexicon.
        Ok(())
    }
}
