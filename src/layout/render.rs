/*!
Rendering page regions to PNG with pdfium, for the figure bitmaps of
`processFulltextAssetDocument`. Like layout, this runs only in the worker processes (a
[`super::worker::Request::Render`] job): pdfium is not thread-safe, and a crash while
rasterising a malformed image must cost one worker, not the service.

A region is a box in the layout's page space (PDF units, origin top-left, y down, after the
crop box and `/Rotate`), so a figure's `Graphic::at` box is rendered as it was laid out.
The whole page is rendered at `scale` pixels per PDF unit into a bitmap the size of the region,
offset so that only the region lands in it (pdfium clips the rest).
*/

use serde::{Deserialize, Serialize};

use super::pdfium::{one_at_a_time, open_error, Pdfium};
use super::BBox;
use crate::{Error, Result};

/// One region to render: a page (from 1) and a box on it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Region {
    pub page: u32,
    pub bbox: BBox,
}

/// Pixels per PDF unit when none is asked for: 150 dpi (a PDF unit is 1/72 inch).
pub const DEFAULT_SCALE: f32 = 150.0 / 72.0;

/// The largest side of a rendered image, in pixels; a larger region is rendered at a lower
/// scale so that it fits.
pub const MAX_SIDE_PX: u32 = 4_000;

/// pdfium's `FPDF_ANNOT` | `FPDF_PRINTING` flags: annotations drawn, print-quality images.
const RENDER_FLAGS: i32 = 0x01 | 0x800;

impl Pdfium {
    /// Opens `pdf` once and renders each region to a PNG (RGB, white background), in the order
    /// given. A region on a page the document lacks, or with no area, is an error naming it.
    pub fn render_regions(
        &self,
        pdf: &[u8],
        regions: &[Region],
        scale: f32,
    ) -> Result<Vec<Vec<u8>>> {
        let _guard = one_at_a_time();
        if pdf.is_empty() {
            return Err(Error::BadInput("the PDF is empty (0 bytes)".into()));
        }
        let b = self.bindings();
        // SAFETY: `pdf` outlives the document, which is closed before returning.
        let doc = unsafe { b.FPDF_LoadMemDocument64(pdf, None) };
        if doc.is_null() {
            return Err(open_error(b));
        }
        let count = unsafe { b.FPDF_GetPageCount(doc) }.max(0) as u32;
        let mut out = Vec::with_capacity(regions.len());
        let mut result = Ok(());
        for r in regions {
            if r.page == 0 || r.page > count {
                result = Err(Error::BadInput(format!(
                    "cannot render page {}: the PDF has {count} page(s)",
                    r.page
                )));
                break;
            }
            match self.render_one(doc, r, scale) {
                Ok(png) => out.push(png),
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        unsafe { b.FPDF_CloseDocument(doc) };
        result.map(|()| out)
    }

    fn render_one(
        &self,
        doc: pdfium_render::prelude::FPDF_DOCUMENT,
        r: &Region,
        scale: f32,
    ) -> Result<Vec<u8>> {
        let b = self.bindings();
        let page = unsafe { b.FPDF_LoadPage(doc, (r.page - 1) as i32) };
        if page.is_null() {
            return Err(Error::PdfConversion(format!(
                "pdfium cannot load page {}",
                r.page
            )));
        }
        let page_w = unsafe { b.FPDF_GetPageWidthF(page) };
        let page_h = unsafe { b.FPDF_GetPageHeightF(page) };
        let geometry = Geometry::of(&r.bbox, page_w, page_h, scale);
        let rendered = geometry.and_then(|g| {
            let bitmap = unsafe { b.FPDFBitmap_Create(g.width as i32, g.height as i32, 0) };
            if bitmap.is_null() {
                return Err(Error::PdfConversion(format!(
                    "pdfium cannot allocate a {}×{} bitmap",
                    g.width, g.height
                )));
            }
            unsafe {
                let _ = b.FPDFBitmap_FillRect(
                    bitmap,
                    0,
                    0,
                    g.width as i32,
                    g.height as i32,
                    0xFFFF_FFFF,
                );
                b.FPDF_RenderPageBitmap(
                    bitmap,
                    page,
                    -g.left,
                    -g.top,
                    g.page_w,
                    g.page_h,
                    0,
                    RENDER_FLAGS,
                );
            }
            let stride = unsafe { b.FPDFBitmap_GetStride(bitmap) }.max(0) as usize;
            let buffer = unsafe { b.FPDFBitmap_GetBuffer(bitmap) } as *const u8;
            let png = if buffer.is_null() || stride < g.width as usize * 4 {
                Err(Error::PdfConversion("pdfium gave no bitmap buffer".into()))
            } else {
                // SAFETY: pdfium owns `height` rows of `stride` bytes until the bitmap is destroyed.
                let bgrx =
                    unsafe { std::slice::from_raw_parts(buffer, stride * g.height as usize) };
                encode_png(bgrx, stride, g.width, g.height)
            };
            unsafe { b.FPDFBitmap_Destroy(bitmap) };
            png
        });
        unsafe { b.FPDF_ClosePage(page) };
        rendered
    }
}

/// Where a region lands in pixels: the bitmap's size and the page's offset and size.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Geometry {
    width: u32,
    height: u32,
    left: i32,
    top: i32,
    page_w: i32,
    page_h: i32,
}

impl Geometry {
    /// The region clipped to the page, at `scale` (reduced so that no side exceeds
    /// [`MAX_SIDE_PX`]); an empty or off-page region is an error.
    fn of(bbox: &BBox, page_w: f32, page_h: f32, scale: f32) -> Result<Geometry> {
        let x0 = bbox.x.max(0.0);
        let y0 = bbox.y.max(0.0);
        let x1 = bbox.right().min(page_w);
        let y1 = bbox.bottom().min(page_h);
        if !(x1 - x0 >= 1.0 && y1 - y0 >= 1.0) {
            return Err(Error::BadInput(format!(
                "the region {:.1},{:.1} {:.1}×{:.1} has no area on a {page_w:.1}×{page_h:.1} page",
                bbox.x, bbox.y, bbox.w, bbox.h
            )));
        }
        let scale = if scale.is_finite() && scale > 0.0 {
            scale
        } else {
            DEFAULT_SCALE
        };
        let longest = (x1 - x0).max(y1 - y0);
        let scale = scale.min(MAX_SIDE_PX as f32 / longest);
        let px = |v: f32| (v * scale).round() as i32;
        Ok(Geometry {
            width: (px(x1) - px(x0)).max(1) as u32,
            height: (px(y1) - px(y0)).max(1) as u32,
            left: px(x0),
            top: px(y0),
            page_w: px(page_w).max(1),
            page_h: px(page_h).max(1),
        })
    }
}

/// pdfium's BGRx rows (`stride` bytes each) as an RGB PNG.
fn encode_png(bgrx: &[u8], stride: usize, width: u32, height: u32) -> Result<Vec<u8>> {
    let mut rgb = Vec::with_capacity(width as usize * height as usize * 3);
    for row in bgrx.chunks(stride).take(height as usize) {
        for px in row.chunks_exact(4).take(width as usize) {
            rgb.extend_from_slice(&[px[2], px[1], px[0]]);
        }
    }
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, width, height);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    enc.set_compression(png::Compression::Fast);
    let fail = |e: png::EncodingError| Error::General(format!("PNG encoding failed: {e}"));
    let mut writer = enc.write_header().map_err(fail)?;
    writer.write_image_data(&rgb).map_err(fail)?;
    writer.finish().map_err(fail)?;
    Ok(out)
}

/// Renders `regions` of `pdf` to PNGs in this process (the worker's side of a render job).
pub fn render_pdf(
    pdf: &[u8],
    regions: &[Region],
    scale: f32,
    pdfium_lib: Option<&std::path::Path>,
) -> Result<Vec<Vec<u8>>> {
    Pdfium::get(pdfium_lib)?.render_regions(pdf, regions, scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_clips_to_the_page_and_caps_the_side() {
        let g = Geometry::of(
            &BBox {
                x: -10.0,
                y: 100.0,
                w: 110.0,
                h: 50.0,
            },
            612.0,
            792.0,
            2.0,
        )
        .expect("area");
        assert_eq!((g.width, g.height, g.left, g.top), (200, 100, 0, 200));
        assert_eq!((g.page_w, g.page_h), (1224, 1584));
        let big = Geometry::of(
            &BBox {
                x: 0.0,
                y: 0.0,
                w: 600.0,
                h: 300.0,
            },
            612.0,
            792.0,
            100.0,
        )
        .expect("area");
        assert_eq!(big.width, MAX_SIDE_PX);
        assert_eq!(big.height, MAX_SIDE_PX / 2);
        let off_page = BBox {
            x: 700.0,
            y: 0.0,
            w: 50.0,
            h: 50.0,
        };
        assert!(Geometry::of(&off_page, 612.0, 792.0, 2.0).is_err());
    }

    #[test]
    fn png_rows_come_out_as_rgb() {
        // 2×1 pixels, stride 12 (4 bytes of padding): blue then white, as BGRx.
        let bgrx = [255, 0, 0, 0, 255, 255, 255, 0, 9, 9, 9, 9];
        let png = encode_png(&bgrx, 12, 2, 1).expect("png");
        let dec = png::Decoder::new(std::io::Cursor::new(png));
        let mut reader = dec.read_info().expect("header");
        let mut buf = vec![0; reader.output_buffer_size().expect("size")];
        let info = reader.next_frame(&mut buf).expect("frame");
        assert_eq!((info.width, info.height), (2, 1));
        assert_eq!(&buf[..6], &[0, 0, 255, 255, 255, 255]);
    }
}
