/*!
Training data from one document (GROBID's `createTraining`): the feature rows every model of
the cascade labelled for a PDF and the labels it predicted, written as the corpus files Quire's
readers take back, so a person corrects the labels and `quire train` learns from them.

- Layout models (segmentation, header, reference-segmenter, fulltext): a raw feature file (the
  rows the model saw, one per line, columns joined by spaces: the format the readers of
  [`crate::corpus::layout`] parse) and a TEI file whose elements carry the predicted labels
  over the document's text, `<lb/>` at line ends.
- Text models (citation, name-header, name-citation, affiliation-address, date): one TEI file
  each, one sequence element per labelled input (`bibl`, `author`, `affiliation`, `date`).

Files are named as GROBID names them (`<stem>.training.segmentation`,
`<stem>.training.segmentation.tei.xml`, …) and placed in the dataset layout the trainer reads
(`segmentation/corpus/raw/…`, `segmentation/corpus/tei/…`, `name/header/corpus/…`): unpacked
into a folder, that folder is a dataset for `quire train <model> --dataset <folder>`.

Labels are written span by span ([`spans`]): a span starts at an `I-` label or where the plain
label changes; `<other>` runs are written as bare text and so merge with a neighbouring
`<other>` run. [`canonical`] gives the labels a reader gets back from such a file.
*/

use crate::features::{Row, Rows, Tok};
use crate::flavor::Flavor;
use crate::layout::tokens::LayoutTokens;
use crate::layout::{Document, Sep};
use crate::models::segmentation::{self, Zones};
use crate::models::{fulltext, header, reference_segmenter as refseg, ModelName};
use crate::{tokenizer, Error, Result};

/// One model invocation of a document's cascade: the feature rows of each sequence, the
/// predicted labels, and (text models) the tokens the rows were computed from.
#[derive(Debug, Clone, PartialEq)]
pub struct Invocation {
    pub model: ModelName,
    pub rows: Vec<Rows>,
    pub labels: Vec<Vec<String>>,
    pub toks: Option<Vec<Vec<Tok>>>,
}

/// One file of the training data: its path inside the dataset folder, and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrainingFile {
    pub path: String,
    pub text: String,
}

const OTHER: &str = "<other>";

/// The spans of a label sequence as `(start, end, plain label)`: a span starts at an `I-`
/// label or where the plain label changes, except that `<other>` never starts a span after
/// `<other>` (bare text merges).
pub fn spans(labels: &[String]) -> Vec<(usize, usize, &str)> {
    let mut tags = crate::labels::named_tags(labels);
    for t in &mut tags {
        t.begins &= t.label != OTHER;
    }
    crate::labels::fields(&tags)
        .into_iter()
        .map(|(label, a, b)| (a, b, label))
        .collect()
}

/// The labels a corpus reader gives back for a file written from `labels`: `I-` on the first
/// token of each span but `<other>`, which carries no `I-` (readers differ on it).
pub fn canonical(labels: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(labels.len());
    for (a, b, p) in spans(labels) {
        for i in a..b {
            out.push(if i == a && p != OTHER {
                format!("I-{p}")
            } else {
                p.to_string()
            });
        }
    }
    out
}

/// Escape text for an XML text node.
fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => o.push(' '),
            c => o.push(c),
        }
    }
    o
}

/// Whether writing `a` and `b` side by side keeps them two tokens for a reader (with the
/// citation model's letter/digit split when `split`).
fn glues_cleanly(a: &str, b: &str, split: bool) -> bool {
    let count = |s: &str| -> usize {
        let norm = tokenizer::normalise(s);
        tokenizer::tokenize(&norm)
            .into_iter()
            .filter(|t| !t.trim().is_empty())
            .map(|t| {
                if split {
                    tokenizer::split_letter_digit(t).len()
                } else {
                    1
                }
            })
            .sum()
    };
    count(&format!("{a}{b}")) == count(a) + count(b)
}

/// One token to write: its text and what separates it from the previous token.
struct Item<'a> {
    text: &'a str,
    before: Sep,
}

/// The element a label is written as: `Some("<title level=\"j\">")`, or `None` for bare text.
type ElementOf = fn(&str) -> Option<&'static str>;

fn close_of(open: &str) -> String {
    let name: String = open[1..]
        .chars()
        .take_while(|c| !c.is_whitespace() && *c != '>')
        .collect();
    format!("</{name}>")
}

/// Write labelled tokens span by span with `element`; a label `element` does not know is an
/// error naming `model`.
fn write_spans(
    out: &mut String,
    items: &[Item<'_>],
    labels: &[String],
    element: ElementOf,
    split: bool,
    model: ModelName,
) -> Result<()> {
    let sep = |out: &mut String, i: usize, inside: bool| {
        if i == 0 {
            return;
        }
        match items[i].before {
            Sep::Newline => out.push_str("<lb/>\n"),
            Sep::Space => out.push(' '),
            Sep::None if inside && !glues_cleanly(items[i - 1].text, items[i].text, split) => {
                out.push(' ')
            }
            Sep::None => {}
        }
    };
    for (a, b, p) in spans(labels) {
        let open = if p == OTHER {
            None
        } else {
            Some(element(p).ok_or_else(|| Error::Tagging {
                model: model.as_str().to_string(),
                reason: format!("no corpus element for label `{p}`"),
            })?)
        };
        sep(out, a, false);
        if let Some(o) = open {
            out.push_str(o);
        }
        for (i, item) in items.iter().enumerate().take(b).skip(a) {
            if i > a {
                sep(out, i, true);
            }
            out.push_str(&esc(item.text));
        }
        if let Some(o) = open {
            out.push_str(&close_of(o));
        }
    }
    Ok(())
}

fn tei_document(stem: &str, body: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<tei xml:space=\"preserve\">\n\t<teiHeader>\n\t\t<fileDesc xml:id=\"{}\"/>\n\t</teiHeader>\n\t<text xml:lang=\"en\">\n{body}\n\t</text>\n</tei>\n",
        esc(stem).replace('"', "&quot;")
    )
}

fn raw_file(rows: &[Row]) -> String {
    let mut s = String::new();
    for r in rows {
        s.push_str(&r.join(" "));
        s.push('\n');
    }
    s.push('\n');
    s
}

fn segmentation_element(label: &str) -> Option<&'static str> {
    Some(match label {
        "<header>" => "<front>",
        "<body>" => "<body>",
        "<references>" => "<listBibl>",
        "<annex>" => "<div type=\"annex\">",
        "<footnote>" => "<note place=\"footnote\">",
        "<headnote>" => "<note place=\"headnote\">",
        "<marginnote>" => "<note place=\"margin\">",
        "<page>" => "<page>",
        "<cover>" => "<titlePage>",
        "<acknowledgement>" => "<div type=\"acknowledgement\">",
        "<availability>" => "<div type=\"availability\">",
        "<funding>" => "<div type=\"funding\">",
        "<toc>" => "<div type=\"toc\">",
        _ => return None,
    })
}

fn header_element(label: &str) -> Option<&'static str> {
    Some(match label {
        "<title>" => "<titlePart>",
        "<author>" => "<docAuthor>",
        "<affiliation>" => "<affiliation>",
        "<address>" => "<address>",
        "<email>" => "<email>",
        "<pubnum>" => "<idno>",
        "<reference>" => "<reference>",
        "<keyword>" => "<keywords>",
        "<abstract>" => "<div type=\"abstract\">",
        "<date>" => "<date>",
        "<editor>" => "<editor>",
        "<meeting>" => "<meeting>",
        "<submission>" => "<note type=\"submission\">",
        "<copyright>" => "<note type=\"copyright\">",
        "<funding>" => "<note type=\"funding\">",
        "<doctype>" => "<note type=\"doctype\">",
        "<group>" => "<note type=\"group\">",
        "<availability>" => "<note type=\"availability\">",
        "<web>" => "<ptr type=\"web\">",
        _ => return None,
    })
}

fn refseg_element(label: &str) -> Option<&'static str> {
    Some(match label {
        "<label>" => "<label>",
        "<reference>" => "<bibl>",
        _ => return None,
    })
}

fn fulltext_element(label: &str) -> Option<&'static str> {
    Some(match label {
        "<section>" => "<head>",
        "<paragraph>" => "<p>",
        "<citation_marker>" => "<ref type=\"biblio\">",
        "<figure_marker>" => "<ref type=\"figure\">",
        "<table_marker>" => "<ref type=\"table\">",
        "<equation_marker>" => "<ref type=\"formula\">",
        "<section_marker>" => "<ref type=\"section\">",
        "<figure>" => "<figure>",
        "<table>" => "<figure type=\"table\">",
        "<equation>" => "<formula>",
        "<equation_label>" => "<label>",
        _ => return None,
    })
}

fn citation_element(label: &str) -> Option<&'static str> {
    Some(match label {
        "<author>" => "<author>",
        "<editor>" => "<editor>",
        "<date>" => "<date>",
        "<title>" => "<title level=\"a\">",
        "<journal>" => "<title level=\"j\">",
        "<booktitle>" => "<title level=\"m\">",
        "<series>" => "<title level=\"s\">",
        "<institution>" => "<orgName>",
        "<collaboration>" => "<orgName type=\"collaboration\">",
        "<note>" => "<note>",
        "<tech>" => "<note type=\"report\">",
        "<volume>" => "<biblScope unit=\"volume\">",
        "<issue>" => "<biblScope unit=\"issue\">",
        "<pages>" => "<biblScope unit=\"page\">",
        "<location>" => "<pubPlace>",
        "<publisher>" => "<publisher>",
        "<web>" => "<ptr type=\"web\">",
        "<pubnum>" => "<idno>",
        _ => return None,
    })
}

fn name_element(label: &str) -> Option<&'static str> {
    Some(match label {
        "<forename>" => "<forename>",
        "<middlename>" => "<middlename>",
        "<surname>" => "<surname>",
        "<title>" => "<roleName>",
        "<suffix>" => "<suffix>",
        "<marker>" => "<marker>",
        _ => return None,
    })
}

fn affiliation_element(label: &str) -> Option<&'static str> {
    Some(match label {
        "<institution>" => "<orgName type=\"institution\">",
        "<department>" => "<orgName type=\"department\">",
        "<laboratory>" => "<orgName type=\"laboratory\">",
        "<addrLine>" => "<addrLine>",
        "<settlement>" => "<settlement>",
        "<region>" => "<region>",
        "<postCode>" => "<postCode>",
        "<postBox>" => "<postBox>",
        "<country>" => "<country>",
        "<marker>" => "<marker>",
        _ => return None,
    })
}

fn date_element(label: &str) -> Option<&'static str> {
    Some(match label {
        "<year>" => "<year>",
        "<month>" => "<month>",
        "<day>" => "<day>",
        _ => return None,
    })
}

/// How one layout model's files are named and written.
struct LayoutKind {
    model: ModelName,
    /// GROBID's file suffix (`segmentation`, `references.referenceSegmenter`).
    suffix: &'static str,
    element: ElementOf,
    /// The element wrapping the labelled text inside `<text>` (the header reader reads only
    /// inside `<front>`).
    wrapper: Option<&'static str>,
}

fn folder(model: ModelName, flavor: Option<Flavor>) -> String {
    let base = match model {
        ModelName::NameHeader => "name/header",
        ModelName::NameCitation => "name/citation",
        m => m.as_str(),
    };
    let flavoured = matches!(
        model,
        ModelName::Segmentation | ModelName::Header | ModelName::Fulltext
    );
    match flavor {
        Some(f) if flavoured => format!("{base}/{}/corpus", f.as_str()),
        _ => format!("{base}/corpus"),
    }
}

fn layout_files(
    kind: &LayoutKind,
    stem: &str,
    flavor: Option<Flavor>,
    items: &[Item<'_>],
    rows: &[Row],
    labels: &[String],
) -> Result<Vec<TrainingFile>> {
    let mut body = String::new();
    if let Some(w) = kind.wrapper {
        body.push_str(w);
    }
    write_spans(&mut body, items, labels, kind.element, false, kind.model)?;
    if let Some(w) = kind.wrapper {
        body.push_str(&close_of(w));
    }
    let dir = folder(kind.model, flavor);
    let name = format!("{stem}.training.{}", kind.suffix);
    Ok(vec![
        TrainingFile {
            path: format!("{dir}/raw/{name}"),
            text: raw_file(rows),
        },
        TrainingFile {
            path: format!("{dir}/tei/{name}.tei.xml"),
            text: tei_document(stem, &body),
        },
    ])
}

fn mismatch(model: ModelName, what: String) -> Error {
    Error::Tagging {
        model: model.as_str().to_string(),
        reason: what,
    }
}

/// The first (only) sequence of the first invocation of `model`.
fn first_seq(calls: &[Invocation], model: ModelName) -> Option<(&[Row], &[String])> {
    let c = calls.iter().find(|c| c.model == model)?;
    Some((c.rows.first()?.as_slice(), c.labels.first()?.as_slice()))
}

/// Items of a layout model's tokens: the row's first column (the text the reader aligns on)
/// and the separator the layout put after the previous token.
fn token_items<'a>(model: ModelName, rows: &'a [Row], seps: &[Sep]) -> Result<Vec<Item<'a>>> {
    if rows.len() != seps.len() {
        return Err(mismatch(
            model,
            format!("{} rows for {} document tokens", rows.len(), seps.len()),
        ));
    }
    Ok(rows
        .iter()
        .enumerate()
        .map(|(i, r)| Item {
            text: r.first().map_or("", |t| t.as_str()),
            before: if i == 0 { Sep::None } else { seps[i - 1] },
        })
        .collect())
}

/// The separators after each token of the zone a token model labels.
type ZoneSeps = fn(&Document, &LayoutTokens, &Zones) -> Vec<Sep>;

fn header_seps(doc: &Document, toks: &LayoutTokens, zones: &Zones) -> Vec<Sep> {
    let lines = zones.lines(segmentation::Label::Header);
    header::document_tokens(doc, toks, &lines)
        .iter()
        .map(|t| t.at.sep)
        .collect()
}

fn refseg_seps(doc: &Document, toks: &LayoutTokens, zones: &Zones) -> Vec<Sep> {
    let lines = zones.lines(segmentation::Label::References);
    let (_, tokens) = refseg::document_tokens(doc, toks, &lines);
    tokens.iter().map(|t| t.sep).collect()
}

fn fulltext_seps(doc: &Document, toks: &LayoutTokens, zones: &Zones) -> Vec<Sep> {
    let lines = zones.lines(segmentation::Label::Body);
    let (_, tokens) = fulltext::document_tokens(doc, toks, &lines);
    tokens.iter().map(|t| t.sep).collect()
}

/// The training files of one document: `doc` as laid out, `zones` as the cascade used them,
/// `calls` the model invocations in order, `stem` the files' base name, `flavor` the request's
/// flavour (`article/light` files go to the flavour's folders).
pub fn training_files(
    doc: &Document,
    zones: &Zones,
    calls: &[Invocation],
    stem: &str,
    flavor: Option<Flavor>,
) -> Result<Vec<TrainingFile>> {
    let flavor = match flavor {
        Some(Flavor::ArticleLight | Flavor::ArticleLightRef) => Some(Flavor::ArticleLight),
        _ => None,
    };
    let mut out = Vec::new();

    // Segmentation: one item per line, the line's text.
    if let Some((rows, labels)) = first_seq(calls, ModelName::Segmentation) {
        let (_, refs) = segmentation::document_lines(doc);
        if refs.len() != rows.len() {
            return Err(mismatch(
                ModelName::Segmentation,
                format!("{} rows for {} lines", rows.len(), refs.len()),
            ));
        }
        let texts: Vec<String> = refs
            .iter()
            .map(|r| doc.line(r).map(|l| l.text()).unwrap_or_default())
            .collect();
        let items: Vec<Item<'_>> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| Item {
                text: t.trim_end(),
                before: if i == 0 { Sep::None } else { Sep::Newline },
            })
            .collect();
        let kind = LayoutKind {
            model: ModelName::Segmentation,
            suffix: "segmentation",
            element: segmentation_element,
            wrapper: None,
        };
        out.extend(layout_files(&kind, stem, flavor, &items, rows, labels)?);
    }

    // Token models: the tokens of the zone each labelled, with their separators. Fulltext: the
    // body sequence (the annex, a second sequence of the same call, is left out: GROBID's
    // training files hold the body).
    let token_models: [(LayoutKind, ZoneSeps); 3] = [
        (
            LayoutKind {
                model: ModelName::Header,
                suffix: "header",
                element: header_element,
                wrapper: Some("<front>"),
            },
            header_seps,
        ),
        (
            LayoutKind {
                model: ModelName::ReferenceSegmenter,
                suffix: "references.referenceSegmenter",
                element: refseg_element,
                wrapper: Some("<listBibl>"),
            },
            refseg_seps,
        ),
        (
            LayoutKind {
                model: ModelName::Fulltext,
                suffix: "fulltext",
                element: fulltext_element,
                wrapper: Some("<body>"),
            },
            fulltext_seps,
        ),
    ];
    let toks = LayoutTokens::new(doc);
    for (kind, seps) in &token_models {
        if let Some((rows, labels)) = first_seq(calls, kind.model) {
            let items = token_items(kind.model, rows, &seps(doc, &toks, zones))?;
            out.extend(layout_files(kind, stem, flavor, &items, rows, labels)?);
        }
    }

    // Text models: every sequence of every invocation, one TEI file per model.
    let text_models: [(ModelName, &str, &str, ElementOf); 5] = [
        (
            ModelName::Citation,
            "references",
            "bibl",
            citation_element as ElementOf,
        ),
        (
            ModelName::NameHeader,
            "header.authors",
            "author",
            name_element,
        ),
        (
            ModelName::NameCitation,
            "citation.authors",
            "author",
            name_element,
        ),
        (
            ModelName::AffiliationAddress,
            "header.affiliation",
            "affiliation",
            affiliation_element,
        ),
        (ModelName::Date, "date", "date", date_element),
    ];
    for (model, suffix, seq_element, element) in text_models {
        let mut body = String::new();
        let mut n = 0;
        for c in calls.iter().filter(|c| c.model == model) {
            let Some(toks) = &c.toks else {
                return Err(mismatch(model, "no tokens recorded for the call".into()));
            };
            let nonempty: Vec<&Vec<Tok>> = toks.iter().filter(|t| !t.is_empty()).collect();
            let labelled: Vec<&Vec<String>> = c.labels.iter().filter(|l| !l.is_empty()).collect();
            if nonempty.len() != labelled.len() {
                return Err(mismatch(
                    model,
                    format!(
                        "{} token sequences for {} label sequences",
                        nonempty.len(),
                        labelled.len()
                    ),
                ));
            }
            for (t, l) in nonempty.into_iter().zip(labelled) {
                if t.len() != l.len() {
                    return Err(mismatch(
                        model,
                        format!("{} tokens for {} labels", t.len(), l.len()),
                    ));
                }
                let items: Vec<Item<'_>> = t
                    .iter()
                    .enumerate()
                    .map(|(i, tok)| Item {
                        text: &tok.text,
                        before: match (i, tok.newline_before, tok.space_before) {
                            (0, ..) => Sep::None,
                            (_, true, _) => Sep::Newline,
                            (_, _, true) => Sep::Space,
                            _ => Sep::None,
                        },
                    })
                    .collect();
                body.push_str(&format!("\t\t<{seq_element}>"));
                write_spans(
                    &mut body,
                    &items,
                    l,
                    element,
                    model == ModelName::Citation,
                    model,
                )?;
                body.push_str(&format!("</{seq_element}>\n"));
                n += 1;
            }
        }
        if n > 0 {
            out.push(TrainingFile {
                path: format!("{}/{stem}.training.{suffix}.tei.xml", folder(model, flavor)),
                text: tei_document(stem, &body),
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::layout::parse_tei;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn spans_start_at_i_prefixes_and_label_changes_and_others_merge() {
        let l = s(&[
            "I-<title>",
            "<title>",
            "<author>",
            "I-<author>",
            "<other>",
            "I-<other>",
        ]);
        assert_eq!(
            spans(&l),
            vec![
                (0, 2, "<title>"),
                (2, 3, "<author>"),
                (3, 4, "<author>"),
                (4, 6, "<other>")
            ]
        );
        assert_eq!(
            canonical(&l),
            s(&[
                "I-<title>",
                "<title>",
                "I-<author>",
                "I-<author>",
                "<other>",
                "<other>"
            ])
        );
    }

    #[test]
    fn every_label_of_each_model_has_an_element_its_reader_maps_back() {
        use crate::models::{fulltext, header, reference_segmenter, segmentation};
        for l in header::Label::ALL {
            let p = l.as_str();
            // `<ptr type="web">` is how GROBID's corpus marks a URL; the header reader (as
            // GROBID's) closes no field at `</ptr>`, so its text reads back as `<other>`.
            if p == OTHER || p == "<web>" {
                continue;
            }
            let open = header_element(p).unwrap_or_else(|| panic!("header {p}"));
            let xml = format!(
                "<tei><text><front>{open}x y{}</front></text></tei>",
                close_of(open)
            );
            let toks = crate::training::header::tei_tokens(&parse_tei(&xml).unwrap());
            assert_eq!(
                toks,
                vec![("x".into(), format!("I-{p}")), ("y".into(), p.into())]
            );
        }
        for l in fulltext::Label::ALL {
            let p = l.as_str();
            if p == OTHER {
                continue;
            }
            let open = fulltext_element(p).unwrap_or_else(|| panic!("fulltext {p}"));
            let xml = format!(
                "<tei><text><body>{open}x{}</body></text></tei>",
                close_of(open)
            );
            let toks = crate::training::fulltext::tei_tokens(&parse_tei(&xml).unwrap());
            assert_eq!(toks, vec![("x".into(), format!("I-{p}"))], "{p}");
        }
        for l in segmentation::Label::ALL {
            let p = l.as_str();
            if p == OTHER {
                continue;
            }
            let open = segmentation_element(p).unwrap_or_else(|| panic!("segmentation {p}"));
            let xml = format!("<tei><text>{open}x y<lb/>{}</text></tei>", close_of(open));
            let lines = crate::training::segmentation::tei_lines(&parse_tei(&xml).unwrap());
            assert_eq!(lines, vec![("x".into(), format!("I-{p}"))], "{p}");
        }
        for l in reference_segmenter::Label::ALL {
            let p = l.as_str();
            if p == OTHER {
                continue;
            }
            let open = refseg_element(p).unwrap();
            let xml = format!("<tei><text>{open}x{}</text></tei>", close_of(open));
            let toks = crate::training::reference_segmenter::tei_tokens(&parse_tei(&xml).unwrap());
            assert_eq!(toks, vec![("x".into(), format!("I-{p}"))], "{p}");
        }
    }

    #[test]
    fn text_model_files_read_back_with_their_labels() {
        use crate::corpus::{read_str, Rules};
        let tok = |t: &str, space: bool| Tok {
            text: t.into(),
            newline_before: false,
            space_before: space,
        };
        // Smith , J . ( 2001 ) Title & more .
        let toks = vec![
            tok("Smith", true),
            tok(",", false),
            tok("J", true),
            tok(".", false),
            tok("(", true),
            tok("2001", false),
            tok(")", false),
            tok("Title", true),
            tok("&", true),
            tok("more", true),
            tok(".", false),
        ];
        let labels = s(&[
            "I-<author>",
            "<author>",
            "<author>",
            "<author>",
            "I-<other>",
            "I-<date>",
            "I-<other>",
            "I-<title>",
            "<title>",
            "<title>",
            "<other>",
        ]);
        let call = Invocation {
            model: ModelName::Citation,
            rows: vec![vec![Vec::new(); toks.len()]],
            labels: vec![labels.clone()],
            toks: Some(vec![toks]),
        };
        let doc = Document::default();
        let files = training_files(&doc, &Zones::default(), &[call], "paper", None).expect("files");
        assert_eq!(files.len(), 1);
        assert_eq!(
            files[0].path,
            "citation/corpus/paper.training.references.tei.xml"
        );
        let rules: &dyn Rules = &crate::corpus::rules::CitationRules;
        let seqs = read_str(std::path::Path::new("x"), &files[0].text, rules).expect("read");
        assert_eq!(seqs.len(), 1, "{}", files[0].text);
        let texts: Vec<&str> = seqs[0].toks.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(
            texts,
            vec!["Smith", ",", "J", ".", "(", "2001", ")", "Title", "&", "more", "."]
        );
        assert_eq!(canonical(&seqs[0].labels), canonical(&labels));
    }
}
