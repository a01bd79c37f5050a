/*!
Where the extracted text lies on the pages. Decoders work on token sequences; this module turns
their token ranges back into page boxes, always through the layout tokens the ranges index
(never by matching words again):

- [`line_boxes`]: boxes of tokens merged into one box per line fragment (every `coords`
  attribute and PDF annotation goes through it);
- [`header_boxes`], [`reference_boxes`]: the boxes of header spans and of one reference;
- [`placed_header`]: the header record with the coordinates of its title, authors and
  affiliations, the word boxes of its abstract and statements, and the text no model kept.
*/

use std::ops::Range;

use crate::document::{align_words, place_words, Discarded, HeaderRecord, PageBox, TokenBox};
use crate::layout::{BBox, Document, ZoneToken};
use crate::models::header::{self, HeaderFields};
use crate::models::header_record::{self, SubResults};
use crate::models::segmentation;

/// The boxes of `tokens` merged into one box per line fragment: consecutive tokens on the same
/// page whose boxes share most of their height and follow each other on the line.
pub fn line_boxes<'t>(tokens: impl IntoIterator<Item = &'t TokenBox>) -> Vec<PageBox> {
    let mut out: Vec<PageBox> = Vec::new();
    for t in tokens {
        if let Some(last) = out.last_mut() {
            if last.page == t.page && same_line(&last.bbox, &t.bbox) {
                last.bbox = last.bbox.union(&t.bbox);
                continue;
            }
        }
        out.push(PageBox {
            page: t.page,
            bbox: t.bbox,
        });
    }
    out
}

fn same_line(a: &BBox, b: &BBox) -> bool {
    let overlap = a.bottom().min(b.bottom()) - a.y.max(b.y);
    let height = a.h.min(b.h);
    let level = if height > 0.0 {
        overlap >= 0.5 * height
    } else {
        (a.y - b.y).abs() < 0.5 && (a.bottom() - b.bottom()).abs() < 0.5
    };
    let gap = b.x - a.right();
    level && b.x >= a.x && gap <= 3.0 * a.h.max(b.h).max(1.0)
}

/// The header record of a laid-out document from the header model's `fields` over `tokens` and
/// the sub-models' results, with its coordinates and word boxes placed; `other_zones` are the
/// segmentation's `other` zones (for `includeDiscardedText`).
pub fn placed_header(
    d: &Document,
    fields: &HeaderFields,
    sub: SubResults,
    tokens: &[header::HeaderToken],
    other_zones: &[Vec<segmentation::LineRef>],
) -> HeaderRecord {
    let texts: Vec<&str> = tokens.iter().map(|t| t.facts.text.as_str()).collect();
    let (mut record, trace) =
        header_record::assemble_traced(fields, sub, &document_text(d), &texts);
    let boxes = |ranges: &[Range<usize>]| header_boxes(d, tokens, ranges);
    record.title_coords = boxes(&trace.title);
    for (a, r) in record.authors.iter_mut().zip(&trace.authors) {
        a.coords = boxes(r);
    }
    record.affiliation_coords = trace.affiliations.iter().map(|r| boxes(r)).collect();
    // The abstract's and statements' words with their boxes: their sentences' coords.
    let words = |ranges: &[Range<usize>]| {
        ranges
            .iter()
            .flat_map(|r| tokens.get(r.clone()).unwrap_or(&[]))
            .filter_map(|t| d.token(&t.at.line, t.at.index))
            .map(|(page, tok)| (tok.text.as_str(), page, tok.bbox))
            .collect::<Vec<_>>()
    };
    if let Some(a) = &record.abstract_text {
        record.abstract_tokens = align_words(a, words(&trace.abstract_spans));
    }
    // What the abstract leaves out comes from spans labelled abstract.
    if !record.front_text.is_empty() {
        let labelled: Vec<Range<usize>> = (0..fields.spans.len())
            .filter(|&i| fields.spans[i].0 == header::Label::Abstract)
            .map(|i| fields.span_tokens(i))
            .collect();
        let front_words = words(&labelled);
        for f in &mut record.front_text {
            f.tokens = place_words(&f.text, &front_words);
        }
    }
    let traced = |texts: &[String], spans: &[Range<usize>]| {
        texts
            .iter()
            .zip(spans)
            .map(|(s, r)| align_words(s, words(std::slice::from_ref(r))))
            .collect::<Vec<_>>()
    };
    record.funding_tokens = traced(&record.funding, &trace.funding);
    record.availability_tokens = traced(&record.availability, &trace.availability);
    record.discarded = discarded(d, fields, tokens, other_zones);
    record
}

/// Text of the laid-out pages, for identifiers found anywhere (a lone DOI).
fn document_text(doc: &Document) -> String {
    let mut s = String::new();
    for b in doc.blocks() {
        for l in &b.lines {
            s.push_str(&l.text());
            s.push('\n');
        }
    }
    s
}

/// The text no model kept, as GROBID's `includeDiscardedText` writes it: the header model's
/// `<other>` spans, then the segmentation's `other` zones.
fn discarded(
    doc: &Document,
    fields: &HeaderFields,
    tokens: &[header::HeaderToken],
    other_zones: &[Vec<segmentation::LineRef>],
) -> Vec<Discarded> {
    let one_line = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out: Vec<Discarded> = (0..fields.spans.len())
        .filter(|&i| fields.spans[i].0 == header::Label::Other)
        .map(|i| Discarded {
            place: "header".into(),
            text: one_line(&fields.spans[i].1),
            boxes: header_boxes(doc, tokens, &[fields.span_tokens(i)]),
        })
        .filter(|d| !d.text.is_empty())
        .collect();
    for lines in other_zones {
        let text: Vec<String> = lines
            .iter()
            .filter_map(|r| doc.line(r))
            .map(|l| l.text())
            .collect();
        let text = one_line(&text.join(" "));
        if text.is_empty() {
            continue;
        }
        let boxes = lines
            .iter()
            .filter_map(|r| {
                let page = doc.pages.get(r.page)?.number;
                Some(PageBox {
                    page,
                    bbox: doc.line(r)?.bbox,
                })
            })
            .collect();
        out.push(Discarded {
            place: "segmentation".into(),
            text,
            boxes,
        });
    }
    out
}

/// The boxes of header tokens `ranges`, one per line fragment (the same merge as the body's
/// `coords`, [`line_boxes`]).
pub fn header_boxes(
    doc: &Document,
    tokens: &[header::HeaderToken],
    ranges: &[Range<usize>],
) -> Vec<PageBox> {
    let boxes: Vec<TokenBox> = ranges
        .iter()
        .flat_map(|r| tokens.get(r.clone()).unwrap_or(&[]))
        .filter_map(|t| doc.token(&t.at.line, t.at.index))
        .map(|(page, tok)| TokenBox {
            range: 0..0,
            page,
            bbox: tok.bbox,
        })
        .collect();
    line_boxes(&boxes)
}

/// One box per layout line covered by the zone `tokens` (the union of the tokens' boxes on
/// each line), in reading order: the boxes of one reference.
pub fn reference_boxes(doc: &Document, tokens: &[ZoneToken]) -> Vec<PageBox> {
    let mut out: Vec<(segmentation::LineRef, PageBox)> = Vec::new();
    for t in tokens {
        let Some((page, tok)) = doc.token(&t.line, t.index) else {
            continue;
        };
        match out.last_mut() {
            Some((line, pb)) if *line == t.line => pb.bbox = pb.bbox.union(&tok.bbox),
            _ => out.push((
                t.line,
                PageBox {
                    page,
                    bbox: tok.bbox,
                },
            )),
        }
    }
    out.into_iter().map(|(_, b)| b).collect()
}
