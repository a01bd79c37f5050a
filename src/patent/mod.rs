/*!
Patents: reading description paragraphs from ST.36 XML ([`st36`]), parsing the patent numbers
of `<refPatent>` citations ([`number`]), and the document a patent citation service returns
([`PatentResult`]).
*/

pub mod number;
pub mod st36;

use std::ops::Range;

use crate::document::PageBox;
use crate::layout::Document;
use crate::models::citation::Citation;
use number::PatentNumber;

/// A non-patent citation of a segment: its byte range in the segment's text and what the
/// citation model made of it.
#[derive(Debug, Clone, Default)]
pub struct NplRef {
    pub range: Range<usize>,
    pub citation: Citation,
}

/// One text segment of a patent (the whole plain text, one ST.36 description paragraph, the
/// text of a PDF) and the citations found in it. Ranges are byte ranges into `text`.
#[derive(Debug, Clone, Default)]
pub struct Segment {
    /// Identifier of the segment (written `_<id>` on the `<p>`, `<id>` in pointers).
    pub id: String,
    pub text: String,
    pub patents: Vec<PatentNumber>,
    pub npl: Vec<NplRef>,
}

impl Segment {
    pub fn has_citations(&self) -> bool {
        !self.patents.is_empty() || !self.npl.is_empty()
    }
}

/// Characters (Unicode scalar values) before byte `b` of `text`: the offsets the services
/// report, so that `text.chars().skip(start).take(len)` is the cited text.
pub fn char_offset(text: &str, b: usize) -> usize {
    text.get(..b).map(|s| s.chars().count()).unwrap_or(0)
}

/// A segment identifier from an ST.36 paragraph's `id`/`num`, made safe for an XML id and a
/// `string-range` pointer; `p<n>` when there is none.
pub fn segment_id(given: Option<&str>, n: usize) -> String {
    let clean: String = given
        .unwrap_or_default()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.'))
        .collect();
    if clean.is_empty() {
        format!("p{n}")
    } else if clean.starts_with(|c: char| c.is_ascii_alphabetic()) {
        clean
    } else {
        format!("p{clean}")
    }
}

/// The text of a PDF as the patent services read it: every block's tokens, a space where the
/// layout has one (and at line ends), blocks one per line; beside it each token's byte range
/// in the text with its page and box, to map citations back to boxes.
#[derive(Debug, Clone, Default)]
pub struct PdfText {
    pub text: String,
    pub tokens: Vec<(Range<usize>, PageBox)>,
    /// Page sizes (width, height), page 1 first.
    pub pages: Vec<(f32, f32)>,
}

impl PdfText {
    pub fn of(doc: &Document) -> PdfText {
        let mut out = PdfText::default();
        for page in &doc.pages {
            out.pages.push((page.width, page.height));
            for block in &page.blocks {
                for line in &block.lines {
                    for t in &line.tokens {
                        let start = out.text.len();
                        out.text.push_str(&t.text);
                        out.tokens.push((
                            start..out.text.len(),
                            PageBox {
                                page: page.number,
                                bbox: t.bbox,
                            },
                        ));
                        if t.space_after {
                            out.text.push(' ');
                        }
                    }
                    if !out.text.ends_with([' ', '-']) {
                        out.text.push(' ');
                    }
                }
                while out.text.ends_with(' ') {
                    out.text.pop();
                }
                out.text.push('\n');
            }
        }
        out
    }

    /// Boxes of the tokens overlapping `range`, merged into one box per line run.
    pub fn boxes(&self, range: &Range<usize>) -> Vec<PageBox> {
        let mut out: Vec<PageBox> = Vec::new();
        for (r, b) in &self.tokens {
            if r.end <= range.start || r.start >= range.end {
                continue;
            }
            match out.last_mut() {
                Some(last)
                    if last.page == b.page
                        && (last.bbox.y - b.bbox.y).abs() < b.bbox.h.max(1.0) * 0.5
                        && b.bbox.x >= last.bbox.x =>
                {
                    last.bbox = last.bbox.union(&b.bbox);
                }
                _ => out.push(*b),
            }
        }
        out
    }
}

fn boxes_json(boxes: &[PageBox]) -> serde_json::Value {
    serde_json::Value::Array(
        boxes
            .iter()
            .map(|b| {
                serde_json::json!({"p": b.page, "x": b.bbox.x, "y": b.bbox.y, "w": b.bbox.w, "h": b.bbox.h})
            })
            .collect(),
    )
}

/// The espacenet (and, for EP, the European register) address of a patent number.
pub fn viewer_urls(p: &PatentNumber) -> Option<serde_json::Value> {
    let cc = p.authority.as_deref()?;
    let kind = p.kind.as_deref().unwrap_or("");
    let mut url = serde_json::Map::new();
    url.insert(
        "espacenet".into(),
        format!(
            "https://worldwide.espacenet.com/publicationDetails/biblio?CC={cc}&NR={}&KC={kind}&FT=D",
            p.epodoc
        )
        .into(),
    );
    if cc == "EP" {
        url.insert(
            "epoline".into(),
            format!("https://register.epo.org/application?number=EP{}", p.epodoc).into(),
        );
    }
    Some(serde_json::Value::Object(url))
}

/// `citationPatentAnnotations` (grobid-service.md §5.5): page sizes, the patent citations
/// with their boxes, character offsets in the PDF's text and viewer addresses, and the
/// non-patent citations with their boxes and, when they have one, a DOI address.
pub fn annotations_json(pdf: &PdfText, seg: &Segment) -> serde_json::Value {
    let pages: Vec<serde_json::Value> = pdf
        .pages
        .iter()
        .map(|(w, h)| serde_json::json!({"page_height": h, "page_width": w}))
        .collect();
    let patents: Vec<serde_json::Value> = seg
        .patents
        .iter()
        .map(|p| {
            let mut o = serde_json::Map::new();
            o.insert("type".into(), p.doc_type.as_str().into());
            o.insert("status".into(), p.status.as_str().into());
            if let Some(cc) = &p.authority {
                o.insert(
                    "authority".into(),
                    serde_json::json!({"name": cc, "type": p.authority_type()}),
                );
            }
            o.insert(
                "number".into(),
                serde_json::json!({"original": p.original, "epodoc": p.epodoc}),
            );
            if let Some(k) = &p.kind {
                o.insert("kindCode".into(), k.as_str().into());
            }
            o.insert("pos".into(), boxes_json(&pdf.boxes(&p.range)));
            o.insert(
                "offset".into(),
                serde_json::json!({
                    "begin": char_offset(&seg.text, p.range.start),
                    "end": char_offset(&seg.text, p.range.end)
                }),
            );
            if let Some(u) = viewer_urls(p) {
                o.insert("url".into(), u);
            }
            serde_json::Value::Object(o)
        })
        .collect();
    let articles: Vec<serde_json::Value> = seg
        .npl
        .iter()
        .map(|n| {
            let mut o = serde_json::Map::new();
            o.insert("raw".into(), seg.text[n.range.clone()].into());
            o.insert("pos".into(), boxes_json(&pdf.boxes(&n.range)));
            o.insert(
                "offset".into(),
                serde_json::json!({
                    "begin": char_offset(&seg.text, n.range.start),
                    "end": char_offset(&seg.text, n.range.end)
                }),
            );
            if let Some(doi) = n.citation.doi() {
                o.insert("url".into(), format!("https://doi.org/{doi}").into());
            }
            serde_json::Value::Object(o)
        })
        .collect();
    serde_json::json!({"pages": pages, "patents": patents, "articles": articles})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_count_characters() {
        let t = "é EP 1";
        assert_eq!(char_offset(t, 3), 2);
        assert_eq!(segment_id(Some("0003"), 1), "p0003");
        assert_eq!(segment_id(Some("p0003"), 1), "p0003");
        assert_eq!(segment_id(None, 4), "p4");
    }
}
