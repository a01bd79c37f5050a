/*!
The segmentation model's training half: reading GROBID's segmentation corpus (TEI + raw
feature files, one row per line) into CRF sequences, the `article/light` flavour's label
mapping, the feature template and the [`ModelSpec`]s of both flavours.
*/

use std::path::Path;

use crate::corpus::layout::{self as corpus, PairRead, TeiEvent, Unmatched};
use crate::corpus::{Part, ReadStats};
use crate::crf::{Sequence, TrainParams};
use crate::flavor::Flavor;
use crate::lexicon::LexView;
use crate::models::segmentation::{chunks, rows, Label, LineFacts, FEATURE_VERSION};
use crate::models::ModelName;
use crate::training::spec::ModelSpec;
use crate::Result;

/// The label of a TEI element of the segmentation corpus, if it names a zone.
fn label_of_tei(name: &str, attrs: &[(String, String)]) -> Option<Label> {
    let ty = corpus::attr(attrs, "type").unwrap_or("");
    let place = corpus::attr(attrs, "place").unwrap_or("");
    Some(match name {
        "front" => Label::Header,
        "body" => Label::Body,
        "listBibl" => Label::References,
        "titlePage" | "cover" => Label::Cover,
        "page" | "pages" => Label::Page,
        "toc" => Label::Toc,
        "other" => Label::Other,
        "note" | "node" => match place {
            "footnote" | "foot" => Label::Footnote,
            "headnote" | "head" => Label::Headnote,
            "margin" => Label::Marginnote,
            _ => Label::Other,
        },
        "div" => match ty {
            "annex" => Label::Annex,
            "acknowledgement" | "acknowledgements" | "acknowledgment" | "acknowledgments" => {
                Label::Acknowledgement
            }
            "funding" => Label::Funding,
            "availability" => Label::Availability,
            "toc" => Label::Toc,
            _ => Label::Other,
        },
        _ => return None,
    })
}

/// `(first chunk, label)` per TEI line: lines end at `<lb/>` (and at a zone's end); the first
/// line of each zone element gets `I-`.
pub fn tei_lines(events: &[TeiEvent]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack: Vec<Option<Label>> = Vec::new();
    let mut line = String::new();
    let mut first_of_zone = false;
    let mut in_text = false;
    let current = |stack: &[Option<Label>]| stack.iter().rev().flatten().next().copied();
    let flush = |line: &mut String,
                 out: &mut Vec<(String, String)>,
                 label: Option<Label>,
                 first: &mut bool| {
        if let Some(c) = chunks(line).first() {
            let l = label.unwrap_or(Label::Other).as_str();
            let lab = if *first && label.is_some() {
                format!("I-{l}")
            } else {
                l.to_string()
            };
            out.push((c.to_string(), lab));
            *first = false;
        }
        line.clear();
    };
    for ev in events {
        match ev {
            TeiEvent::Start(name, attrs) => {
                if name == "text" {
                    in_text = true;
                    continue;
                }
                if !in_text {
                    continue;
                }
                let l = label_of_tei(name, attrs);
                if l.is_some() {
                    flush(&mut line, &mut out, current(&stack), &mut first_of_zone);
                    first_of_zone = true;
                }
                stack.push(l);
            }
            TeiEvent::End(name) => {
                if name == "text" {
                    in_text = false;
                    continue;
                }
                if !in_text {
                    continue;
                }
                if let Some(l) = stack.pop() {
                    if l.is_some() {
                        flush(&mut line, &mut out, l, &mut first_of_zone);
                        first_of_zone = false;
                    }
                }
            }
            TeiEvent::Text(t) if in_text => line.push_str(t),
            TeiEvent::LineBreak if in_text => {
                flush(&mut line, &mut out, current(&stack), &mut first_of_zone);
            }
            _ => {}
        }
    }
    out
}

/// Read one TEI + raw pair into a training sequence; `Err(reason)` when GROBID would drop it.
pub fn read_pair(
    tei: &Path,
    raw: &Path,
    lex: &LexView<'_>,
) -> Result<std::result::Result<Sequence, String>> {
    Ok(read_pair_counted(tei, raw, lex)?.map(|mut r| r.seqs.remove(0)))
}

/// [`read_pair`], with the number of raw rows that found no TEI entry.
fn read_pair_counted(
    tei: &Path,
    raw: &Path,
    lex: &LexView<'_>,
) -> Result<std::result::Result<PairRead, String>> {
    let events = corpus::walk_tei(tei)?;
    let tei_lines = tei_lines(&events);
    let raw_rows = corpus::read_raw_rows(raw)?;
    let firsts: Vec<String> = raw_rows
        .iter()
        .map(|r| r.first().cloned().unwrap_or_default())
        .collect();
    let al = corpus::align(&firsts, &tei_lines, 7, Unmatched::PreviousLabel);
    if al.trailing_failures >= 10 {
        return Ok(Err(format!(
            "too many synchronisation issues ({} consecutive unmatched lines)",
            al.trailing_failures
        )));
    }
    let (facts, labels) = match corpus::labelled_facts(
        &raw_rows,
        &al.labels,
        LineFacts::from_raw,
        "segmentation",
        "line",
    ) {
        Ok(read) => read,
        Err(why) => return Ok(Err(why)),
    };
    Ok(Ok(PairRead {
        seqs: vec![Sequence {
            rows: rows(&facts, lex),
            labels,
        }],
        unaligned: raw_rows.len() - al.matched,
    }))
}

/// Read a segmentation corpus folder (`<dir>/tei`, `<dir>/raw`).
/// Rows are computed with the lexicons built from `dataset` (training writes them beside the
/// model through [`ModelSpec::write_resources`]).
pub fn read_dir(
    dataset: &Path,
    flavor: Option<Flavor>,
    part: Part,
) -> Result<(Vec<Sequence>, ReadStats)> {
    let built = crate::corpus::lexicons::built_for(dataset);
    let lex = LexView::new(&built.lexicons);
    corpus::read_flavoured_pairs(dataset, "segmentation", flavor, part, light_plain, &|p| {
        read_pair_counted(&p.tei, &p.raw, &lex)
    })
}

/// The `article/light` flavour's label for a standard one: only `<header>`, `<body>`, `<other>` are kept, the
/// rest becomes `<body>` (the `I-` prefix is kept).
pub fn light_label(label: &str) -> String {
    corpus::relabel(label, light_plain)
}

fn light_plain(plain: &str) -> &str {
    match plain {
        "<header>" | "<body>" | "<other>" => plain,
        _ => "<body>",
    }
}

/// Feature template: Quire's own, over the 33 columns (no id collisions).
pub const TEMPLATE: &str = "\
# segmentation: first chunk, window -2..+2 and its neighbours
U00:%x[-2,0]
U01:%x[-1,0]
U02:%x[0,0]
U03:%x[1,0]
U04:%x[2,0]
U05:%x[-1,0]/%x[0,0]
U06:%x[0,0]/%x[1,0]
U07:%x[0,1]
U08:%x[-1,1]
U09:%x[1,1]
U10:%x[0,2]
U11:%x[0,3]
U12:%x[0,4]
U13:%x[0,5]
U14:%x[0,6]
U20:%x[-1,7]
U21:%x[0,7]
U22:%x[1,7]
U23:%x[-1,8]
U24:%x[0,8]
U25:%x[1,8]
U26:%x[0,9]
U27:%x[1,9]
U28:%x[-1,10]
U29:%x[0,10]
U30:%x[1,10]
U31:%x[0,11]
U32:%x[-1,11]/%x[0,11]
U33:%x[0,12]
U34:%x[-1,13]
U35:%x[0,13]
U36:%x[1,13]
U37:%x[0,14]
U38:%x[0,15]
U39:%x[0,16]
U40:%x[0,17]
U41:%x[0,19]
U42:%x[0,20]
U43:%x[0,21]
U44:%x[0,22]
U45:%x[-1,23]
U46:%x[0,23]
U47:%x[1,23]
U48:%x[-1,24]
U49:%x[0,24]
U50:%x[1,24]
U51:%x[0,25]
U52:%x[0,26]
U53:%x[-1,27]
U54:%x[0,27]
U55:%x[1,27]
U56:%x[0,28]
U57:%x[0,29]
U58:%x[0,30]
U59:%x[0,31]
U60:%x[0,32]
U61:%x[0,23]/%x[0,7]
U62:%x[0,24]/%x[0,8]
B
";

/// The standard model (`flavor: None`) or the `article/light` flavour.
pub struct Spec {
    pub flavor: Option<Flavor>,
}

pub static SPEC: Spec = Spec { flavor: None };
pub static LIGHT_SPEC: Spec = Spec {
    flavor: Some(Flavor::ArticleLight),
};

impl ModelSpec for Spec {
    fn name(&self) -> ModelName {
        ModelName::Segmentation
    }
    fn flavor(&self) -> Option<Flavor> {
        self.flavor
    }
    fn feature_version(&self) -> u32 {
        FEATURE_VERSION
    }
    fn template(&self) -> &'static str {
        TEMPLATE
    }
    fn default_params(&self) -> TrainParams {
        TrainParams {
            c1: 2.0,
            ..TrainParams::grobid(1e-5, 20, 120)
        }
    }
    fn read(&self, dataset: &Path, part: Part) -> Result<(Vec<Sequence>, ReadStats)> {
        read_dir(dataset, self.flavor, part)
    }
}
