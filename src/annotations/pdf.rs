/*!
`annotatePDF`'s writer: the uploaded PDF with link annotations added, written with `lopdf`
as an incremental update (ISO 32000-1 §7.5.6), so the original bytes stay as they were and the
new revision only holds the changed page dictionaries, the new annotations and a cross-reference
section. Runs in the worker processes only (`quire::layout::worker`).

Boxes come in displayed page space (origin top-left, y down, through the crop box and
`/Rotate`, as the layout reports them) and are turned back into user space here. Each link is
drawn as GROBID's are seen: a blue underline (the annotation's own border style, `/S /U`), no
change to the page content.
*/

use lopdf::{dictionary, Dictionary, Document, IncrementalDocument, Object, ObjectId};

use super::{Link, LinkTarget};
use crate::layout::BBox;
use crate::{Error, Result};

/// A page's frame: crop box (else media box) corners and rotation.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Frame {
    l: f32,
    b: f32,
    r: f32,
    t: f32,
    rotate: i64,
}

impl Frame {
    /// Displayed (top-left origin) point → user space; the inverse of the layout's frame.
    fn user(&self, px: f32, py: f32) -> (f32, f32) {
        match self.rotate {
            90 => (py + self.l, px + self.b),
            180 => (self.r - px, py + self.b),
            270 => (self.r - py, self.t - px),
            _ => (px + self.l, self.t - py),
        }
    }

    /// A displayed box → user-space rectangle `[x0 y0 x1 y1]`.
    fn rect(&self, b: &BBox) -> [f32; 4] {
        let (ax, ay) = self.user(b.x, b.y);
        let (bx, by) = self.user(b.right(), b.bottom());
        [ax.min(bx), ay.min(by), ax.max(bx), ay.max(by)]
    }
}

/// A page attribute, looked up through the page tree (`/Parent`) as it is inherited.
fn inherited<'a>(doc: &'a Document, page: ObjectId, key: &[u8]) -> Option<&'a Object> {
    let mut dict = doc.get_dictionary(page).ok()?;
    for _ in 0..64 {
        if let Ok(v) = dict.get(key) {
            return doc.dereference(v).ok().map(|(_, o)| o);
        }
        let parent = dict.get(b"Parent").and_then(Object::as_reference).ok()?;
        dict = doc.get_dictionary(parent).ok()?;
    }
    None
}

fn number(o: &Object) -> Option<f32> {
    match o {
        Object::Integer(i) => Some(*i as f32),
        Object::Real(r) => Some(*r),
        _ => None,
    }
}

fn frame(doc: &Document, page: ObjectId) -> Frame {
    let corners = |key: &[u8]| -> Option<[f32; 4]> {
        let arr = inherited(doc, page, key)?.as_array().ok()?;
        let v: Vec<f32> = arr
            .iter()
            .filter_map(|o| doc.dereference(o).ok().and_then(|(_, o)| number(o)))
            .collect();
        let [x0, y0, x1, y1] = v[..] else {
            return None;
        };
        let r = [x0.min(x1), y0.min(y1), x0.max(x1), y0.max(y1)];
        (r[2] > r[0] && r[3] > r[1]).then_some(r)
    };
    let [l, b, r, t] = corners(b"CropBox")
        .or_else(|| corners(b"MediaBox"))
        .unwrap_or([0.0, 0.0, 612.0, 792.0]);
    let rotate = inherited(doc, page, b"Rotate")
        .and_then(|o| o.as_i64().ok())
        .unwrap_or(0)
        .rem_euclid(360);
    Frame {
        l,
        b,
        r,
        t,
        rotate: rotate - rotate % 90,
    }
}

fn reals(v: &[f32]) -> Object {
    Object::Array(v.iter().map(|x| Object::Real(*x)).collect())
}

/// The annotation dictionary of one link.
fn annotation(link: &Link, frame: &Frame, pages: &[(u32, ObjectId, Frame)]) -> Option<Dictionary> {
    let mut d = dictionary! {
        "Type" => "Annot",
        "Subtype" => "Link",
        "Rect" => reals(&frame.rect(&link.bbox)),
        "F" => 4,
        "H" => "P",
        "C" => reals(&[0.0, 0.0, 1.0]),
        "BS" => dictionary! { "Type" => "Border", "W" => 1, "S" => "U" },
    };
    match &link.target {
        LinkTarget::Uri(uri) => {
            d.set(
                "A",
                dictionary! { "S" => "URI", "URI" => Object::string_literal(uri.as_bytes()) },
            );
        }
        LinkTarget::Place { page, top } => {
            let (_, id, target) = pages.iter().find(|(n, _, _)| n == page)?;
            // The top of the target, a little above it, in the target page's user space.
            let (_, y) = target.user(0.0, (top - 4.0).max(0.0));
            d.set(
                "Dest",
                Object::Array(vec![
                    Object::Reference(*id),
                    Object::Name(b"FitH".to_vec()),
                    Object::Real(y),
                ]),
            );
        }
    }
    Some(d)
}

/// `pdf` with `links` added as link annotations (see the module documentation). Links on pages
/// the PDF lacks are dropped. A PDF lopdf cannot read or write back fails with
/// `PARSING_ERROR`.
pub fn annotate_pdf(pdf: &[u8], links: &[Link]) -> Result<Vec<u8>> {
    let doc = Document::load_mem(pdf)
        .map_err(|e| Error::Parsing(format!("the PDF cannot be read to annotate it: {e}")))?;
    let pages: Vec<(u32, ObjectId, Frame)> = doc
        .get_pages()
        .into_iter()
        .map(|(n, id)| (n, id, frame(&doc, id)))
        .collect();
    if pages.is_empty() {
        return Err(Error::Parsing("the PDF has no pages to annotate".into()));
    }
    // Existing annotations of each page, kept before the new ones.
    let existing: Vec<Vec<Object>> = pages
        .iter()
        .map(|(_, id, _)| {
            let Ok(page) = doc.get_dictionary(*id) else {
                return Vec::new();
            };
            page.get(b"Annots")
                .ok()
                .and_then(|a| doc.dereference(a).ok())
                .and_then(|(_, a)| a.as_array().ok().cloned())
                .unwrap_or_default()
        })
        .collect();
    let mut inc = IncrementalDocument::create_from(pdf.to_vec(), doc);
    for (k, (n, page_id, frame)) in pages.iter().enumerate() {
        let mut annots = existing[k].clone();
        let before = annots.len();
        for link in links.iter().filter(|l| l.page == *n) {
            if let Some(d) = annotation(link, frame, &pages) {
                annots.push(Object::Reference(inc.new_document.add_object(d)));
            }
        }
        if annots.len() == before {
            continue;
        }
        inc.opt_clone_object_to_new_document(*page_id)
            .map_err(|e| Error::Parsing(format!("page {n} cannot be copied: {e}")))?;
        let page = inc
            .new_document
            .get_dictionary_mut(*page_id)
            .map_err(|e| Error::Parsing(format!("page {n} is not a dictionary: {e}")))?;
        page.set("Annots", Object::Array(annots));
    }
    let mut out = Vec::with_capacity(pdf.len() + 4096);
    inc.save_to(&mut out)
        .map_err(|e| Error::Parsing(format!("the annotated PDF cannot be written: {e}")))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_invert_the_layouts_rotation() {
        let f = |rotate| Frame {
            l: 10.0,
            b: 20.0,
            r: 622.0,
            t: 812.0,
            rotate,
        };
        // Unrotated: y flips about the top.
        assert_eq!(f(0).user(0.0, 0.0), (10.0, 812.0));
        assert_eq!(
            f(0).rect(&BBox {
                x: 62.0,
                y: 100.0,
                w: 20.0,
                h: 10.0
            }),
            [72.0, 702.0, 92.0, 712.0]
        );
        // Each rotation sends the displayed top-left corner to a different user corner.
        assert_eq!(f(90).user(0.0, 0.0), (10.0, 20.0));
        assert_eq!(f(180).user(0.0, 0.0), (622.0, 20.0));
        assert_eq!(f(270).user(0.0, 0.0), (622.0, 812.0));
    }

    #[test]
    fn text_that_is_no_pdf_fails_with_a_parsing_error() {
        let err = annotate_pdf(b"not a pdf at all", &[]).expect_err("no PDF");
        assert_eq!(err.code(), crate::ErrorCode::ParsingError);
    }
}
