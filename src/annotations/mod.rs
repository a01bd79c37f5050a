/*!
PDF annotations from the document record the full-text cascade produces (no second pass over
the PDF): the JSON of `referenceAnnotations` and the links `annotatePDF` adds.

- [`reference_annotations`]: GROBID's JSON (grobid-service §5.5): `pages`, `refBibs` (`b<n>`,
  an external `url`, the reference's boxes), `refMarkers` (one object per box of each
  bibliographic callout: the resolved entry's `id`, omitted when unresolved), `formulas`,
  `formulaMarkers`, and with figures and tables asked `figures`, `figureMarkers`, `tables`,
  `tableMarkers`. Boxes are in PDF units, origin top-left, one per line fragment.
- [`links`]: what `annotatePDF` draws: each resolved callout links to the place of what it
  points at in the document, each reference with a URL to that URL. [`pdf::annotate_pdf`]
  writes them into the PDF (worker processes only).
*/

pub mod pdf;

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::coords::line_boxes;
use crate::document::{Article, BodyBlock, CalloutKind, Div, PageBox, RichText};
use crate::layout::BBox;
use crate::models::citation::Citation;
use crate::tei::body::{callouts, tokens_in};

/// One page's size.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PageSize {
    pub page_height: f32,
    pub page_width: f32,
}

/// A box of the JSON: page from 1, upper-left corner, width, height.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct JsonBox {
    pub p: u32,
    pub x: f32,
    pub y: f32,
    pub w: f32,
    pub h: f32,
}

impl From<&PageBox> for JsonBox {
    fn from(b: &PageBox) -> JsonBox {
        JsonBox {
            p: b.page,
            x: b.bbox.x,
            y: b.bbox.y,
            w: b.bbox.w,
            h: b.bbox.h,
        }
    }
}

/// A reference, formula, figure or table: its id, an external URL (references only) and
/// where it is printed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entity {
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    pub pos: Vec<JsonBox>,
}

/// One box of a callout and the id it resolves to (`None`: unresolved, the key is omitted).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Marker {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub p: u32,
    pub x: f32,
    pub y: f32,
    pub w: f32,
    pub h: f32,
}

/// The `referenceAnnotations` answer, keys in GROBID's order.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    pub pages: Vec<PageSize>,
    pub ref_bibs: Vec<Entity>,
    pub ref_markers: Vec<Marker>,
    pub formulas: Vec<Entity>,
    pub formula_markers: Vec<Marker>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub figures: Option<Vec<Entity>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub figure_markers: Option<Vec<Marker>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tables: Option<Vec<Entity>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table_markers: Option<Vec<Marker>>,
}

/// A reference's external link, as GROBID picks it: an open-access link, else the DOI
/// resolver, else the arXiv abstract page, else the web address printed in the reference.
pub fn reference_url(c: &Citation) -> Option<String> {
    if let Some(url) = &c.oa_url {
        return Some(url.clone());
    }
    if let Some(doi) = c.doi() {
        return Some(format!("https://dx.doi.org/{doi}"));
    }
    if let Some(id) = c.arxiv() {
        return Some(format!("https://arxiv.org/abs/{id}"));
    }
    c.web
        .as_deref()
        .map(str::trim)
        .filter(|w| w.starts_with("http://") || w.starts_with("https://"))
        .map(str::to_string)
}

/// Every text of the article that can hold callouts: heads, paragraphs, list items and
/// formulas of the body and back sections, figure captions and notes, footnotes.
pub fn rich_texts(a: &Article) -> Vec<&RichText> {
    fn div_texts<'a>(d: &'a Div, out: &mut Vec<&'a RichText>) {
        out.extend(d.head.as_ref().map(|h| &h.text));
        for b in &d.blocks {
            match b {
                BodyBlock::Paragraph(t) => out.push(t),
                BodyBlock::List(items) => out.extend(items.iter()),
                BodyBlock::Formula(f) => out.push(&f.text),
            }
        }
    }
    let mut out = Vec::new();
    let back = a.back.sections().flat_map(|(_, divs)| divs.iter());
    for d in a.body.divs.iter().chain(back) {
        div_texts(d, &mut out);
    }
    for f in &a.body.figures {
        out.extend(f.desc.iter().chain(f.note.iter()));
    }
    out.extend(a.body.notes.iter().flat_map(|n| n.paragraphs.iter()));
    out
}

/// One callout as placed on the pages: its kind, its targets (several for a range such as
/// `[2-5]`), its line boxes and its printed text.
#[derive(Debug, Clone, PartialEq)]
pub struct PlacedCallout {
    pub kind: CalloutKind,
    pub targets: Vec<String>,
    pub boxes: Vec<PageBox>,
    pub text: String,
}

/// Every callout of the article with its boxes, in text order (a range such as `[2-5]` is one
/// callout with every entry it covers as targets, as the TEI's `target` lists them).
pub fn placed_callouts(a: &Article) -> Vec<PlacedCallout> {
    let mut out = Vec::new();
    for rt in rich_texts(a) {
        for (range, kind, targets) in callouts(rt) {
            out.push(PlacedCallout {
                kind,
                targets: targets.iter().map(|t| t.to_string()).collect(),
                boxes: line_boxes(tokens_in(rt, &range)),
                text: rt.text[range].to_string(),
            });
        }
    }
    out
}

fn markers(callouts: &[PlacedCallout], kind: CalloutKind) -> Vec<Marker> {
    callouts
        .iter()
        .filter(|c| c.kind == kind)
        .flat_map(|c| {
            // One marker per box for each entry the callout points at (a range's boxes are
            // listed under each of its entries), or one without an id when unresolved.
            let ids: Vec<Option<String>> = if c.targets.is_empty() {
                vec![None]
            } else {
                c.targets.iter().cloned().map(Some).collect()
            };
            ids.into_iter().flat_map(move |id| {
                c.boxes.iter().map(move |b| Marker {
                    id: id.clone(),
                    p: b.page,
                    x: b.bbox.x,
                    y: b.bbox.y,
                    w: b.bbox.w,
                    h: b.bbox.h,
                })
            })
        })
        .collect()
}

fn boxes(b: &[PageBox]) -> Vec<JsonBox> {
    b.iter().map(JsonBox::from).collect()
}

/// The `referenceAnnotations` JSON of an article (see the module documentation);
/// `figures_tables` adds figures, tables and their markers.
pub fn reference_annotations(a: &Article, figures_tables: bool) -> Annotations {
    let placed = placed_callouts(a);
    let ref_bibs = a
        .references
        .iter()
        .enumerate()
        .map(|(i, r)| Entity {
            id: format!("b{i}"),
            url: reference_url(&r.citation),
            pos: boxes(&r.boxes),
        })
        .collect();
    let formulas = formula_entities(a);
    let figures = |table: bool| -> Vec<Entity> {
        a.body
            .figures
            .iter()
            .filter(|f| f.is_table == table)
            .map(|f| Entity {
                id: f.id.clone(),
                url: None,
                pos: boxes(&f.boxes),
            })
            .collect()
    };
    Annotations {
        pages: a
            .pages
            .iter()
            .map(|&(_, w, h)| PageSize {
                page_height: h,
                page_width: w,
            })
            .collect(),
        ref_bibs,
        ref_markers: markers(&placed, CalloutKind::Bibr),
        formulas,
        formula_markers: markers(&placed, CalloutKind::Formula),
        figures: figures_tables.then(|| figures(false)),
        figure_markers: figures_tables.then(|| markers(&placed, CalloutKind::Figure)),
        tables: figures_tables.then(|| figures(true)),
        table_markers: figures_tables.then(|| markers(&placed, CalloutKind::Table)),
    }
}

fn formula_entities(a: &Article) -> Vec<Entity> {
    let back = a.back.sections().flat_map(|(_, divs)| divs.iter());
    a.body
        .divs
        .iter()
        .chain(back)
        .flat_map(|d| d.blocks.iter())
        .filter_map(|b| match b {
            BodyBlock::Formula(f) => Some(Entity {
                id: f.id.clone(),
                url: None,
                pos: boxes(&line_boxes(&f.text.tokens)),
            }),
            _ => None,
        })
        .collect()
}

/// Where a link of `annotatePDF` leads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum LinkTarget {
    /// An external address (a reference's DOI, arXiv or web link).
    Uri(String),
    /// A place in the document: page from 1 and the top of the target, PDF units from the
    /// top of the page.
    Place { page: u32, top: f32 },
}

/// One link annotation: a box on a page (origin top-left) and where it leads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Link {
    pub page: u32,
    pub bbox: BBox,
    pub target: LinkTarget,
}

/// The links `annotatePDF` adds: every box of each reference with a URL links to that URL;
/// every box of each resolved callout (references, figures, tables, formulas) links to the
/// top of its target's first box. Callouts without a target, or whose target has no boxes,
/// get no link.
pub fn links(a: &Article) -> Vec<Link> {
    let mut places: HashMap<String, PageBox> = HashMap::new();
    let mut out = Vec::new();
    for (i, r) in a.references.iter().enumerate() {
        if let Some(first) = r.boxes.first() {
            places.insert(format!("b{i}"), *first);
        }
        if let Some(url) = reference_url(&r.citation) {
            out.extend(r.boxes.iter().map(|b| Link {
                page: b.page,
                bbox: b.bbox,
                target: LinkTarget::Uri(url.clone()),
            }));
        }
    }
    for f in &a.body.figures {
        if let Some(first) = f.boxes.first() {
            places.insert(f.id.clone(), *first);
        }
    }
    for f in formula_entities(a) {
        if let Some(first) = f.pos.first() {
            let bbox = BBox {
                x: first.x,
                y: first.y,
                w: first.w,
                h: first.h,
            };
            places.insert(
                f.id,
                PageBox {
                    page: first.p,
                    bbox,
                },
            );
        }
    }
    for c in placed_callouts(a) {
        // A range links to the first entry it covers.
        let Some(place) = c.targets.first().and_then(|t| places.get(t)) else {
            continue;
        };
        out.extend(c.boxes.iter().map(|b| Link {
            page: b.page,
            bbox: b.bbox,
            target: LinkTarget::Place {
                page: place.page,
                top: place.bbox.y,
            },
        }));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::{Body, Callout, Figure, Formula, Reference, TokenBox};

    fn pb(page: u32, x: f32, y: f32, w: f32, h: f32) -> PageBox {
        PageBox {
            page,
            bbox: BBox { x, y, w, h },
        }
    }

    /// `words` on one line of page 1 from x = 72, 30 units a word; `refs` as (word index,
    /// kind, target).
    fn line(words: &[&str], y: f32, refs: &[(usize, CalloutKind, Option<&str>)]) -> RichText {
        let mut rt = RichText::default();
        for (i, w) in words.iter().enumerate() {
            if i > 0 {
                rt.text.push(' ');
            }
            let start = rt.text.len();
            rt.text.push_str(w);
            rt.tokens.push(TokenBox {
                range: start..rt.text.len(),
                page: 1,
                bbox: BBox {
                    x: 72.0 + 30.0 * i as f32,
                    y,
                    w: 25.0,
                    h: 10.0,
                },
            });
        }
        for &(i, kind, target) in refs {
            rt.refs.push(Callout {
                kind,
                range: rt.tokens[i].range.clone(),
                target: target.map(str::to_string),
            });
        }
        rt
    }

    fn article() -> Article {
        let mut cited = Citation {
            raw: "A. Author. A title. J. 2020. doi:10.1234/abc".into(),
            pubnums: vec!["doi:10.1234/abc".into()],
            ..Citation::default()
        };
        cited.title = Some("A title".into());
        let para = line(
            &["see", "[1]", "and", "[9]", "Fig.", "(2)"],
            100.0,
            &[
                (1, CalloutKind::Bibr, Some("b0")),
                (3, CalloutKind::Bibr, None),
                (4, CalloutKind::Figure, Some("fig_0")),
                (5, CalloutKind::Formula, Some("formula_0")),
            ],
        );
        let formula = Formula {
            id: "formula_0".into(),
            text: line(&["x=1", "(2)"], 200.0, &[]),
            label: Some("(2)".into()),
        };
        Article {
            pages: vec![(1, 612.0, 792.0), (2, 612.0, 792.0)],
            references: vec![
                Reference {
                    citation: cited,
                    marker: Some("1".into()),
                    boxes: vec![
                        pb(2, 72.0, 90.5, 240.0, 9.0),
                        pb(2, 72.0, 100.0, 120.0, 9.0),
                    ],
                },
                Reference {
                    citation: Citation {
                        raw: "B. Other, arXiv:2101.00001".into(),
                        pubnums: vec!["arXiv:2101.00001".into()],
                        ..Citation::default()
                    },
                    marker: Some("2".into()),
                    boxes: vec![pb(2, 72.0, 120.0, 200.0, 9.0)],
                },
            ],
            body: Body {
                divs: vec![Div {
                    head: None,
                    blocks: vec![BodyBlock::Paragraph(para), BodyBlock::Formula(formula)],
                }],
                figures: vec![
                    Figure {
                        id: "fig_0".into(),
                        boxes: vec![pb(1, 70.0, 300.0, 300.0, 200.0)],
                        ..Figure::default()
                    },
                    Figure {
                        id: "tab_0".into(),
                        is_table: true,
                        boxes: vec![pb(1, 70.0, 520.0, 300.0, 100.0)],
                        ..Figure::default()
                    },
                ],
                ..Body::default()
            },
            ..Article::default()
        }
    }

    #[test]
    fn the_json_has_grobids_keys_in_order() {
        let a = article();
        let json = serde_json::to_string(&reference_annotations(&a, false)).expect("json");
        assert_eq!(
            json,
            concat!(
                r#"{"pages":[{"page_height":792.0,"page_width":612.0},{"page_height":792.0,"page_width":612.0}],"#,
                r#""refBibs":[{"id":"b0","url":"https://dx.doi.org/10.1234/abc","pos":[{"p":2,"x":72.0,"y":90.5,"w":240.0,"h":9.0},{"p":2,"x":72.0,"y":100.0,"w":120.0,"h":9.0}]},"#,
                r#"{"id":"b1","url":"https://arxiv.org/abs/2101.00001","pos":[{"p":2,"x":72.0,"y":120.0,"w":200.0,"h":9.0}]}],"#,
                r#""refMarkers":[{"id":"b0","p":1,"x":102.0,"y":100.0,"w":25.0,"h":10.0},{"p":1,"x":162.0,"y":100.0,"w":25.0,"h":10.0}],"#,
                r#""formulas":[{"id":"formula_0","pos":[{"p":1,"x":72.0,"y":200.0,"w":55.0,"h":10.0}]}],"#,
                r#""formulaMarkers":[{"id":"formula_0","p":1,"x":222.0,"y":100.0,"w":25.0,"h":10.0}]}"#
            )
        );
        let with = serde_json::to_value(reference_annotations(&a, true)).expect("json");
        assert_eq!(with["figures"][0]["id"], "fig_0");
        assert_eq!(with["figures"].as_array().map(Vec::len), Some(1));
        assert_eq!(with["tables"][0]["id"], "tab_0");
        assert_eq!(with["tables"][0]["pos"][0]["y"], 520.0);
        assert_eq!(with["figureMarkers"][0]["id"], "fig_0");
        assert_eq!(with["figureMarkers"][0]["x"], 192.0);
        assert_eq!(with["tableMarkers"], serde_json::json!([]));
    }

    #[test]
    fn a_callout_over_two_lines_has_one_marker_per_line() {
        let mut a = article();
        let mut rt = line(&["as", "in", "[1,"], 100.0, &[]);
        let start = rt.text.len() + 1;
        rt.text.push_str(" 2]");
        rt.tokens.push(TokenBox {
            range: start..rt.text.len(),
            page: 1,
            bbox: BBox {
                x: 72.0,
                y: 112.0,
                w: 12.0,
                h: 10.0,
            },
        });
        rt.refs.push(Callout {
            kind: CalloutKind::Bibr,
            range: rt.tokens[2].range.start..rt.text.len(),
            target: Some("b1".into()),
        });
        a.body.divs[0].blocks = vec![BodyBlock::Paragraph(rt)];
        let ann = reference_annotations(&a, false);
        let ys: Vec<(Option<&str>, f32)> = ann
            .ref_markers
            .iter()
            .map(|m| (m.id.as_deref(), m.y))
            .collect();
        assert_eq!(ys, [(Some("b1"), 100.0), (Some("b1"), 112.0)]);
    }

    #[test]
    fn a_range_lists_its_boxes_under_every_entry_it_covers() {
        let mut a = article();
        let mut rt = line(
            &["as", "in", "[1-2]"],
            100.0,
            &[(2, CalloutKind::Bibr, Some("b0"))],
        );
        // The number the range implies without printing it: an empty callout after it.
        let end = rt.text.len();
        rt.refs.push(Callout {
            kind: CalloutKind::Bibr,
            range: end..end,
            target: Some("b1".into()),
        });
        a.body.divs[0].blocks = vec![BodyBlock::Paragraph(rt)];
        let ann = reference_annotations(&a, false);
        let ids: Vec<(Option<&str>, f32)> = ann
            .ref_markers
            .iter()
            .map(|m| (m.id.as_deref(), m.x))
            .collect();
        assert_eq!(ids, [(Some("b0"), 132.0), (Some("b1"), 132.0)]);
        // The link goes to the first entry's place.
        let places: Vec<LinkTarget> = links(&a)
            .into_iter()
            .filter(|l| matches!(l.target, LinkTarget::Place { .. }))
            .map(|l| l.target)
            .collect();
        assert_eq!(places, [LinkTarget::Place { page: 2, top: 90.5 }]);
    }

    #[test]
    fn urls_prefer_open_access_then_the_doi_then_arxiv_then_a_web_link() {
        let mut c = Citation {
            web: Some("https://example.org/paper".into()),
            ..Citation::default()
        };
        assert_eq!(
            reference_url(&c).as_deref(),
            Some("https://example.org/paper")
        );
        c.pubnums.push("arXiv:1706.03762".into());
        assert_eq!(
            reference_url(&c).as_deref(),
            Some("https://arxiv.org/abs/1706.03762")
        );
        c.pubnums.push("10.1000/xyz".into());
        assert_eq!(
            reference_url(&c).as_deref(),
            Some("https://dx.doi.org/10.1000/xyz")
        );
        c.oa_url = Some("https://repo.example/xyz.pdf".into());
        assert_eq!(
            reference_url(&c).as_deref(),
            Some("https://repo.example/xyz.pdf")
        );
        assert_eq!(reference_url(&Citation::default()), None);
    }

    #[test]
    fn links_go_to_urls_and_to_the_targets_place() {
        let a = article();
        let links = links(&a);
        let uris: Vec<&Link> = links
            .iter()
            .filter(|l| matches!(l.target, LinkTarget::Uri(_)))
            .collect();
        // Two boxes of b0 and one of b1.
        assert_eq!(uris.len(), 3);
        assert_eq!(
            uris[0].target,
            LinkTarget::Uri("https://dx.doi.org/10.1234/abc".into())
        );
        let places: Vec<(f32, &LinkTarget)> = links
            .iter()
            .filter(|l| matches!(l.target, LinkTarget::Place { .. }))
            .map(|l| (l.bbox.x, &l.target))
            .collect();
        // [1] → b0's first line, Fig. → fig_0, (2) → formula_0; [9] is unresolved.
        assert_eq!(
            places,
            [
                (102.0, &LinkTarget::Place { page: 2, top: 90.5 }),
                (
                    192.0,
                    &LinkTarget::Place {
                        page: 1,
                        top: 300.0
                    }
                ),
                (
                    222.0,
                    &LinkTarget::Place {
                        page: 1,
                        top: 200.0
                    }
                ),
            ]
        );
    }
}
