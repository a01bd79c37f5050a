/*!
Test helpers shared by the engine's, the actors' and the web crate's tests: `PdfBuilder` writes
small, exact PDFs (text at known positions in base-14 fonts, superscripts, rotated lines, an
image, a vector rectangle, a link) so that layout tests can compare what pdfium reads back with
what was drawn, and so that model tests can generate whole synthetic articles.

Coordinates given to the builder are PDF user space: points, origin at the **bottom-left** of
the page, `y` is the text baseline. (The layout `Document` uses a top-left origin, so a line
drawn at baseline `y` on a page of height `H` comes back near `H - y`.)

```ignore
use quire::testutil::PdfBuilder;
let pdf = PdfBuilder::new()
    .page(612.0, 792.0)
    .text(72.0, 720.0, "Helvetica-Bold", 14.0, "A Title")
    .text(72.0, 700.0, "Times-Roman", 10.0, "Body text.")
    .build();
assert!(pdf.starts_with(b"%PDF"));
```

[`gate`] holds what gated tests use to require libpdfium, models, the corpora or `../shared`
(they report a skip, and fail under `CI=true`).

Only available with `cfg(test)` or the `testutil` feature.
*/

pub mod gate;

use pdf_writer::types::{ActionType, AnnotationType};
use pdf_writer::{Content, Finish, Name, Pdf, Rect, Ref, Str};

#[derive(Debug, Clone)]
enum Item {
    Text {
        x: f32,
        y: f32,
        font: String,
        size: f32,
        rise: f32,
        angle: f32,
        invisible: bool,
        rgb: [f32; 3],
        text: String,
    },
    Image {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
    },
    Rect {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
    },
}

#[derive(Debug, Clone)]
struct PageSpec {
    width: f32,
    height: f32,
    rotate: i32,
    items: Vec<Item>,
    links: Vec<([f32; 4], String)>,
}

/// Builds a PDF page by page. Every drawing call applies to the last page added with
/// [`PdfBuilder::page`] (a US-letter page is added implicitly if none was).
#[derive(Debug, Clone, Default)]
pub struct PdfBuilder {
    pages: Vec<PageSpec>,
}

impl PdfBuilder {
    pub fn new() -> Self {
        PdfBuilder::default()
    }

    /// Start a new page of `width` × `height` points.
    pub fn page(mut self, width: f32, height: f32) -> Self {
        self.pages.push(PageSpec {
            width,
            height,
            rotate: 0,
            items: Vec::new(),
            links: Vec::new(),
        });
        self
    }

    /// Set the current page's `/Rotate` (0, 90, 180, 270).
    pub fn rotate_page(mut self, degrees: i32) -> Self {
        self.current().rotate = degrees;
        self
    }

    fn current(&mut self) -> &mut PageSpec {
        if self.pages.is_empty() {
            self.pages.push(PageSpec {
                width: 612.0,
                height: 792.0,
                rotate: 0,
                items: Vec::new(),
                links: Vec::new(),
            });
        }
        self.pages.last_mut().expect("a page exists")
    }

    #[allow(clippy::too_many_arguments)]
    fn push_text(
        mut self,
        x: f32,
        y: f32,
        font: &str,
        size: f32,
        rise: f32,
        angle: f32,
        text: &str,
    ) -> Self {
        self.current().items.push(Item::Text {
            x,
            y,
            font: font.to_string(),
            size,
            rise,
            angle,
            invisible: false,
            rgb: [0.0; 3],
            text: text.to_string(),
        });
        self
    }

    /// Draw `text` with its baseline starting at (`x`, `y`), in a base-14 font
    /// (`Helvetica`, `Helvetica-Bold`, `Times-Roman`, `Times-Italic`, `Courier`, …) of `size`.
    /// Characters outside WinAnsi are drawn as `?`.
    pub fn text(self, x: f32, y: f32, font: &str, size: f32, text: &str) -> Self {
        self.push_text(x, y, font, size, 0.0, 0.0, text)
    }

    /// Like [`PdfBuilder::text`], raised by `rise` points (`Ts`): a superscript when positive,
    /// a subscript when negative.
    pub fn text_rise(self, x: f32, y: f32, font: &str, size: f32, rise: f32, text: &str) -> Self {
        self.push_text(x, y, font, size, rise, 0.0, text)
    }

    /// Like [`PdfBuilder::text`], rotated `degrees` counter-clockwise around (`x`, `y`).
    pub fn text_rotated(
        self,
        x: f32,
        y: f32,
        font: &str,
        size: f32,
        degrees: f32,
        text: &str,
    ) -> Self {
        self.push_text(x, y, font, size, 0.0, degrees, text)
    }

    /// Like [`PdfBuilder::text`], in the fill colour `rgb` (components 0–1).
    pub fn text_colored(
        mut self,
        x: f32,
        y: f32,
        font: &str,
        size: f32,
        rgb: [f32; 3],
        text: &str,
    ) -> Self {
        self.current().items.push(Item::Text {
            x,
            y,
            font: font.to_string(),
            size,
            rise: 0.0,
            angle: 0.0,
            invisible: false,
            rgb,
            text: text.to_string(),
        });
        self
    }

    /// Invisible text (render mode 3), as OCR layers draw it.
    pub fn text_invisible(mut self, x: f32, y: f32, font: &str, size: f32, text: &str) -> Self {
        self.current().items.push(Item::Text {
            x,
            y,
            font: font.to_string(),
            size,
            rise: 0.0,
            angle: 0.0,
            invisible: true,
            rgb: [0.0; 3],
            text: text.to_string(),
        });
        self
    }

    /// Draw `lines` one below the other, the first baseline at `y`, `leading` points apart.
    pub fn paragraph(
        mut self,
        x: f32,
        y: f32,
        font: &str,
        size: f32,
        leading: f32,
        lines: &[&str],
    ) -> Self {
        for (i, line) in lines.iter().enumerate() {
            self = self.text(x, y - i as f32 * leading, font, size, line);
        }
        self
    }

    /// A bitmap image (a 2×2 RGB picture) filling the box with bottom-left (`x`, `y`).
    pub fn image(mut self, x: f32, y: f32, w: f32, h: f32) -> Self {
        self.current().items.push(Item::Image { x, y, w, h });
        self
    }

    /// A stroked rectangle (vector graphics) with bottom-left (`x`, `y`).
    pub fn rect(mut self, x: f32, y: f32, w: f32, h: f32) -> Self {
        self.current().items.push(Item::Rect { x, y, w, h });
        self
    }

    /// A URI link annotation over the box with bottom-left (`x`, `y`).
    pub fn link(mut self, x: f32, y: f32, w: f32, h: f32, uri: &str) -> Self {
        self.current()
            .links
            .push(([x, y, x + w, y + h], uri.to_string()));
        self
    }

    /// The finished PDF.
    pub fn build(&self) -> Vec<u8> {
        let mut specs = self.pages.clone();
        if specs.is_empty() {
            specs.push(PageSpec {
                width: 612.0,
                height: 792.0,
                rotate: 0,
                items: Vec::new(),
                links: Vec::new(),
            });
        }
        let mut pdf = Pdf::new();
        let mut next = 1;
        let mut alloc = || {
            let r = Ref::new(next);
            next += 1;
            r
        };
        let catalog = alloc();
        let tree = alloc();
        let image_id = alloc();

        // One font object per distinct base font name, shared by all pages.
        let mut fonts: Vec<(String, Ref)> = Vec::new();
        for spec in &specs {
            for item in &spec.items {
                if let Item::Text { font, .. } = item {
                    if !fonts.iter().any(|(n, _)| n == font) {
                        fonts.push((font.clone(), alloc()));
                    }
                }
            }
        }
        let page_ids: Vec<Ref> = specs.iter().map(|_| alloc()).collect();
        pdf.catalog(catalog).pages(tree);
        pdf.pages(tree)
            .kids(page_ids.iter().copied())
            .count(page_ids.len() as i32);
        for (name, id) in &fonts {
            pdf.type1_font(*id)
                .base_font(Name(name.as_bytes()))
                .encoding_predefined(Name(b"WinAnsiEncoding"));
        }
        let pixels: [u8; 12] = [255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 0];
        {
            let mut img = pdf.image_xobject(image_id, &pixels);
            img.width(2).height(2).bits_per_component(8);
            img.color_space().device_rgb();
            img.finish();
        }

        for (spec, page_id) in specs.iter().zip(&page_ids) {
            let content_id = alloc();
            let link_ids: Vec<Ref> = spec.links.iter().map(|_| alloc()).collect();
            let mut content = Content::new();
            for item in &spec.items {
                match item {
                    Item::Text {
                        x,
                        y,
                        font,
                        size,
                        rise,
                        angle,
                        invisible,
                        rgb,
                        text,
                    } => {
                        let idx = fonts.iter().position(|(n, _)| n == font).unwrap_or(0);
                        let res = format!("F{idx}");
                        content.begin_text();
                        content.set_fill_rgb(rgb[0], rgb[1], rgb[2]);
                        content.set_font(Name(res.as_bytes()), *size);
                        if *invisible {
                            content.set_text_rendering_mode(
                                pdf_writer::types::TextRenderingMode::Invisible,
                            );
                        }
                        if *rise != 0.0 {
                            content.set_rise(*rise);
                        }
                        let (s, c) = angle.to_radians().sin_cos();
                        content.set_text_matrix([c, s, -s, c, *x, *y]);
                        content.show(Str(&win_ansi(text)));
                        content.end_text();
                    }
                    Item::Image { x, y, w, h } => {
                        content.save_state();
                        content.transform([*w, 0.0, 0.0, *h, *x, *y]);
                        content.x_object(Name(b"Im0"));
                        content.restore_state();
                    }
                    Item::Rect { x, y, w, h } => {
                        content.set_line_width(1.0);
                        content.rect(*x, *y, *w, *h);
                        content.stroke();
                    }
                }
            }
            let data = content.finish();
            pdf.stream(content_id, &data);
            {
                let mut page = pdf.page(*page_id);
                page.parent(tree)
                    .media_box(Rect::new(0.0, 0.0, spec.width, spec.height))
                    .contents(content_id);
                if spec.rotate != 0 {
                    page.rotate(spec.rotate);
                }
                if !link_ids.is_empty() {
                    page.annotations(link_ids.iter().copied());
                }
                let mut res = page.resources();
                {
                    let mut f = res.fonts();
                    for (i, (_, id)) in fonts.iter().enumerate() {
                        f.pair(Name(format!("F{i}").as_bytes()), *id);
                    }
                }
                res.x_objects().pair(Name(b"Im0"), image_id);
            }
            for ((rect, uri), id) in spec.links.iter().zip(&link_ids) {
                let mut annot = pdf.annotation(*id);
                annot
                    .subtype(AnnotationType::Link)
                    .rect(Rect::new(rect[0], rect[1], rect[2], rect[3]));
                annot
                    .action()
                    .action_type(ActionType::Uri)
                    .uri(Str(uri.as_bytes()));
            }
        }
        pdf.finish()
    }

    /// The same PDF, encrypted with the standard security handler (RC4, revision 2) under a
    /// user password nobody knows: it cannot be opened without it.
    pub fn build_encrypted(&self) -> Vec<u8> {
        let bytes = self.build();
        let Some(pos) = find(&bytes, b"trailer") else {
            return bytes;
        };
        let Some(open) = find(&bytes[pos..], b"<<") else {
            return bytes;
        };
        let at = pos + open + 2;
        let hex32 = |seed: u8| -> String {
            (0..32u8)
                .map(|i| format!("{:02X}", i.wrapping_mul(37).wrapping_add(seed)))
                .collect()
        };
        let encrypt = format!(
            "\n  /Encrypt << /Filter /Standard /V 1 /R 2 /Length 40 /P -44 /O <{}> /U <{}> >>\n  /ID [<{}> <{}>]",
            hex32(11),
            hex32(97),
            &hex32(5)[..32],
            &hex32(5)[..32]
        );
        let mut out = Vec::with_capacity(bytes.len() + encrypt.len());
        out.extend_from_slice(&bytes[..at]);
        out.extend_from_slice(encrypt.as_bytes());
        out.extend_from_slice(&bytes[at..]);
        out
    }

    /// The PDF cut off after `keep` of its bytes (0 < keep < 1): no xref, no trailer.
    pub fn build_truncated(&self, keep: f32) -> Vec<u8> {
        let bytes = self.build();
        let n = ((bytes.len() as f32) * keep.clamp(0.0, 1.0)) as usize;
        bytes[..n.min(bytes.len())].to_vec()
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Encode text for a WinAnsi (Windows-1252) simple font.
fn win_ansi(text: &str) -> Vec<u8> {
    text.chars()
        .map(|c| match c {
            '\u{20}'..='\u{7E}' => c as u8,
            '\u{A0}'..='\u{FF}' => c as u32 as u8,
            '\u{2013}' => 0x96,
            '\u{2014}' => 0x97,
            '\u{2018}' => 0x91,
            '\u{2019}' => 0x92,
            '\u{201C}' => 0x93,
            '\u{201D}' => 0x94,
            '\u{2022}' => 0x95,
            '\u{2020}' => 0x86,
            '\u{2021}' => 0x87,
            '\u{2026}' => 0x85,
            '\u{20AC}' => 0x80,
            _ => b'?',
        })
        .collect()
}

/// Raw bytes that are not a PDF at all (deterministic "random" bytes).
pub fn garbage_bytes(len: usize) -> Vec<u8> {
    let mut x: u32 = 0x9E37_79B9;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x >> 11) as u8
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_a_pdf_with_pages_fonts_and_links() {
        let pdf = PdfBuilder::new()
            .page(612.0, 792.0)
            .text(72.0, 720.0, "Helvetica-Bold", 14.0, "Title")
            .link(72.0, 700.0, 50.0, 12.0, "https://example.org/")
            .page(300.0, 400.0)
            .text(10.0, 10.0, "Times-Roman", 9.0, "Second")
            .build();
        let s = String::from_utf8_lossy(&pdf);
        assert!(s.starts_with("%PDF-"));
        assert!(s.contains("/Count 2"));
        assert!(s.contains("/BaseFont /Helvetica-Bold"));
        assert!(s.contains("https://example.org/"));
        assert!(s.contains("(Title) Tj"));
    }

    #[test]
    fn encrypted_variant_declares_an_encrypt_dictionary() {
        let b = PdfBuilder::new().text(72.0, 700.0, "Helvetica", 12.0, "x");
        let plain = b.build();
        let enc = b.build_encrypted();
        assert!(!String::from_utf8_lossy(&plain).contains("/Encrypt"));
        assert!(String::from_utf8_lossy(&enc).contains("/Encrypt << /Filter /Standard"));
        assert!(b.build_truncated(0.5).len() < plain.len());
    }
}
