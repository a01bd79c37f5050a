/*!
The header model's training half: reading GROBID's header corpus (TEI + raw feature files)
into CRF sequences, the `article/light` flavour's label mapping, the feature template and the
[`ModelSpec`]s of both flavours.
*/

use std::path::Path;

use crate::corpus::layout::{self as corpus, PairRead, TeiEvent, Unmatched};
use crate::corpus::{Part, ReadStats};
use crate::crf::{Sequence, TrainParams};
use crate::flavor::Flavor;
use crate::lexicon::LexView;
use crate::models::header::{rows, Label, TokenFacts, FEATURE_VERSION};
use crate::models::ModelName;
use crate::training::spec::ModelSpec;
use crate::Result;

/// The label of a header-corpus TEI element (GROBID's TEIHeaderSaxParser mapping).
fn label_of_tei(name: &str, attrs: &[(String, String)]) -> Option<Label> {
    let ty = corpus::attr(attrs, "type").unwrap_or("");
    Some(match name {
        "titlePart" => Label::Title,
        "docAuthor" => Label::Author,
        "affiliation" => Label::Affiliation,
        "address" => Label::Address,
        "email" => Label::Email,
        "idno" => Label::Pubnum,
        "reference" => Label::Reference,
        "keywords" | "keyword" => Label::Keyword,
        "date" => Label::Date,
        "editor" => Label::Editor,
        "meeting" => Label::Meeting,
        "div" => match ty {
            "abstract" => Label::Abstract,
            "availability" => Label::Availability,
            _ => Label::Other,
        },
        "note" => match ty {
            "submission" => Label::Submission,
            "reference" => Label::Reference,
            "copyright" => Label::Copyright,
            "funding" => Label::Funding,
            "doctype" | "document_type" | "docType" | "documentType" | "articleType" => {
                Label::Doctype
            }
            "group" => Label::Group,
            "availability" | "data_availability" | "data-availability" => Label::Availability,
            _ => Label::Other,
        },
        "ptr" => match ty {
            "web" => Label::Web,
            _ => Label::Other,
        },
        _ => return None,
    })
}

/// `(token, label)` entries of a header TEI file (GROBID's TEIHeaderSaxParser): the text of
/// each field element tokenised with the delimiter tokenizer, first token `I-`; text outside
/// fields is `<other>`.
pub fn tei_tokens(events: &[TeiEvent]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut acc = String::new();
    let mut current: Option<Label> = None;
    let mut in_front = false;
    let write = |acc: &mut String, label: Label, out: &mut Vec<(String, String)>| {
        let norm = crate::tokenizer::normalise(acc);
        let mut begin = true;
        for tok in crate::tokenizer::tokenize(&norm) {
            let tok = tok.trim();
            if tok.is_empty() {
                continue;
            }
            let l = if begin {
                format!("I-{}", label.as_str())
            } else {
                label.as_str().to_string()
            };
            out.push((tok.to_string(), l));
            begin = false;
        }
        acc.clear();
    };
    for ev in events {
        match ev {
            TeiEvent::Start(name, attrs) => {
                if name == "front" {
                    in_front = true;
                    acc.clear();
                    continue;
                }
                if !in_front {
                    continue;
                }
                if !acc.trim().is_empty() {
                    write(&mut acc, Label::Other, &mut out);
                }
                acc.clear();
                if let Some(l) = label_of_tei(name, attrs) {
                    current = Some(l);
                } else if !matches!(name.as_str(), "byline" | "docTitle" | "p") {
                    current = Some(Label::Other);
                }
            }
            TeiEvent::End(name) => {
                if name == "front" {
                    if !acc.trim().is_empty() {
                        write(&mut acc, Label::Other, &mut out);
                    }
                    in_front = false;
                    continue;
                }
                if !in_front {
                    continue;
                }
                if label_of_tei(name, &[]).is_some() && !matches!(name.as_str(), "ptr") {
                    let l = current.unwrap_or(Label::Other);
                    write(&mut acc, l, &mut out);
                    current = None;
                }
            }
            TeiEvent::Text(t) if in_front => acc.push_str(t),
            TeiEvent::LineBreak if in_front => acc.push(' '),
            _ => {}
        }
    }
    out
}

/// Read one TEI + raw pair into a training sequence (GROBID's HeaderTrainer: unmatched rows
/// are dropped, except one unlabelled row between two rows of the same label).
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
    let tei_toks = tei_tokens(&events);
    let raw_rows = corpus::read_raw_rows(raw)?;
    let firsts: Vec<String> = raw_rows
        .iter()
        .map(|r| r.first().cloned().unwrap_or_default())
        .collect();
    let al = corpus::align(&firsts, &tei_toks, 6, Unmatched::Leave);
    let mut labels = al.labels.clone();
    labels.resize(raw_rows.len(), None);
    for k in 1..labels.len().saturating_sub(1) {
        if labels[k].is_none() {
            if let (Some(a), Some(b)) = (&labels[k - 1], &labels[k + 1]) {
                let strip = |s: &str| s.trim_start_matches("I-").to_string();
                if strip(a) == strip(b) && !b.starts_with("I-") {
                    labels[k] = Some(strip(a));
                }
            }
        }
    }
    let (facts, out_labels) =
        match corpus::labelled_facts(&raw_rows, &labels, TokenFacts::from_raw, "header", "token") {
            Ok(read) => read,
            Err(why) => return Ok(Err(why)),
        };
    Ok(Ok(PairRead {
        seqs: vec![Sequence {
            rows: rows(&facts, lex),
            labels: out_labels,
        }],
        unaligned: raw_rows.len() - al.matched,
    }))
}

/// Read a header corpus folder (`<dir>/tei`, `<dir>/raw`).
/// Rows are computed with the lexicons built from `dataset` (training writes them beside the
/// model through [`ModelSpec::write_resources`]).
pub fn read_dir(
    dataset: &Path,
    flavor: Option<Flavor>,
    part: Part,
) -> Result<(Vec<Sequence>, ReadStats)> {
    let built = crate::corpus::lexicons::built_for(dataset);
    let lex = LexView::new(&built.lexicons);
    corpus::read_flavoured_pairs(dataset, "header", flavor, part, light_plain, &|p| {
        read_pair_counted(&p.tei, &p.raw, &lex)
    })
}

/// The `article/light` flavour's label for a standard one: only `<title>`, `<author>`, `<date>`, `<pubnum>` are kept, the
/// rest becomes `<other>` (the `I-` prefix is kept).
pub fn light_label(label: &str) -> String {
    corpus::relabel(label, light_plain)
}

fn light_plain(plain: &str) -> &str {
    match plain {
        "<title>" | "<author>" | "<date>" | "<pubnum>" => plain,
        _ => "<other>",
    }
}

/// Quire's header template over the 32 columns.
pub const TEMPLATE: &str = "\
# header: token window and conjunctions
U00:%x[-3,0]
U01:%x[-2,0]
U02:%x[-1,0]
U03:%x[0,0]
U04:%x[1,0]
U05:%x[2,0]
U06:%x[3,0]
U07:%x[-1,0]/%x[0,0]
U08:%x[0,0]/%x[1,0]
U09:%x[0,0]/%x[-1,28]
U10:%x[-1,1]
U11:%x[0,1]
U12:%x[1,1]
U13:%x[0,2]
U14:%x[0,3]
U15:%x[0,4]
U16:%x[0,5]
U17:%x[0,6]
U18:%x[0,7]
U19:%x[0,8]
U20:%x[0,9]
U21:%x[-1,10]
U22:%x[0,10]
U23:%x[1,10]
U24:%x[-1,11]
U25:%x[0,11]
U26:%x[1,11]
U27:%x[0,12]
U28:%x[-1,13]
U29:%x[0,13]
U30:%x[1,13]
U31:%x[-1,14]
U32:%x[0,14]
U33:%x[1,14]
U34:%x[0,15]
U35:%x[-1,15]/%x[0,15]
U36:%x[0,16]
U37:%x[-1,17]
U38:%x[0,17]
U39:%x[1,17]
U40:%x[0,18]
U41:%x[0,19]
U42:%x[0,20]
U43:%x[1,20]
U44:%x[0,21]
U45:%x[0,22]
U46:%x[0,23]
U47:%x[0,24]
U48:%x[0,25]
U49:%x[1,25]
U50:%x[0,26]
U51:%x[-1,27]
U52:%x[0,27]
U53:%x[1,27]
U54:%x[-1,28]
U55:%x[0,28]
U56:%x[1,28]
U57:%x[0,30]
U58:%x[0,10]/%x[0,11]
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
        ModelName::Header
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
            c1: 1.0,
            ..TrainParams::grobid(1e-5, 20, 200)
        }
    }
    fn read(&self, dataset: &Path, part: Part) -> Result<(Vec<Sequence>, ReadStats)> {
        read_dir(dataset, self.flavor, part)
    }
}
