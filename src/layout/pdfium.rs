/*!
pdfium, as measured on this project (rust-stack.md §1): bind `libpdfium.so` once per process,
open a PDF from memory, and read every page's characters with the attributes layout needs,
already corrected for pdfium's quirks:

- generated characters (`\r\n` at line ends, spaces in gaps) are skipped: lines and words are
  rebuilt from glyph geometry by `build`;
- a line-end hyphen reported as U+0002 (`is_hyphen`) becomes `-`;
- font size is `Tf × √(c² + d²)` of the character's matrix (pdfium's own scaled size is 0 for
  text rotated 90°);
- font names come from the font's `/BaseFont` (pdfium strips the subset prefix there
  consistently, where `FPDFText_GetFontInfo` strips it only sometimes);
- bold and italic follow pdfalto: the name, then the descriptor flags (never the weight);
- y is converted to a top-left origin through the crop box and the page's `/Rotate`.

Only the worker process (`quire worker`) and tests call this: pdfium is not thread-safe and a
crash inside it must take down a worker, never the server.
*/

use std::collections::HashMap;
use std::ffi::c_void;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use pdfium_render::prelude::{
    PdfiumLibraryBindings, FPDF_DOCUMENT, FPDF_PAGE, FPDF_PAGEOBJECT, FPDF_TEXTPAGE, FS_MATRIX,
    FS_RECTF,
};

use super::{BBox, Link, PageRange};
use crate::{Error, Result};

/// Environment variable naming `libpdfium.so`.
pub const PDFIUM_ENV: &str = "QUIRE_PDFIUM_LIB";

/// Where `vendor/pdfium/libpdfium.so` is looked for, relative to the current directory and to
/// each ancestor of the running executable.
const VENDOR_PATH: &str = "vendor/pdfium/libpdfium.so";

/// Find `libpdfium.so`: the configured path, else `$QUIRE_PDFIUM_LIB`, else
/// `vendor/pdfium/libpdfium.so` in the current directory or one of its ancestors, in the
/// directory cargo runs a test or binary for (`$CARGO_MANIFEST_DIR`) or one of its ancestors,
/// or in an ancestor of the running executable.
pub fn resolve_library(configured: Option<&Path>) -> Option<PathBuf> {
    if let Some(p) = configured {
        return p.is_file().then(|| p.to_path_buf());
    }
    if let Some(p) = std::env::var_os(PDFIUM_ENV) {
        let p = PathBuf::from(p);
        if p.is_file() {
            return Some(p);
        }
    }
    let mut roots: Vec<PathBuf> = Vec::new();
    if let Ok(cwd) = std::env::current_dir() {
        roots.push(cwd);
    }
    if let Some(dir) = std::env::var_os("CARGO_MANIFEST_DIR") {
        roots.push(PathBuf::from(dir));
    }
    if let Some(dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
    {
        roots.push(dir);
    }
    roots
        .iter()
        .flat_map(|r| r.ancestors())
        .map(|dir| dir.join(VENDOR_PATH))
        .find(|p| p.is_file())
}

/// One character as pdfium sees it, in page coordinates (top-left origin, y down).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RawChar {
    pub c: char,
    /// Loose box (advance width × font ascent/descent).
    pub x0: f32,
    pub y0: f32,
    pub x1: f32,
    pub y1: f32,
    /// Glyph origin on the baseline.
    pub ox: f32,
    pub oy: f32,
    /// Index into `RawPage::styles`.
    pub style: u32,
    /// pdfium generated a space just before this character (it saw a gap in the glyph
    /// positions); the word builder takes it as a break when the gap is also measurable.
    pub space_before: bool,
}

/// What all characters of one text object share.
#[derive(Debug, Clone, PartialEq)]
pub struct RawStyle {
    pub font: String,
    pub size: f32,
    pub bold: bool,
    pub italic: bool,
    pub color: u32,
    /// Counter-clockwise rotation of the text in degrees, 0 ≤ r < 360, as displayed.
    pub rotation: f32,
    /// Render mode 3 (OCR layers and other hidden text).
    pub invisible: bool,
}

/// One page's characters (in content-stream order) and graphics.
#[derive(Debug, Clone, Default)]
pub struct RawPage {
    pub number: u32,
    pub width: f32,
    pub height: f32,
    pub chars: Vec<RawChar>,
    pub styles: Vec<RawStyle>,
    pub images: Vec<BBox>,
    pub vectors: Vec<BBox>,
    pub links: Vec<Link>,
}

/// The character given to glyphs that have no Unicode value: they keep their place (width) in
/// a word but add no text.
pub const UNMAPPED: char = '\u{FFFD}';

/// Pages whose declared size is beyond any real paper are clamped to this (points).
const MAX_PAGE_SIDE: f32 = 14_400.0;
/// Most graphics boxes kept per page (plots can hold tens of thousands of paths).
const MAX_GRAPHICS_PER_PAGE: usize = 5_000;

/// The bound library. One per process (pdfium-render's bindings are process-global).
pub struct Pdfium {
    b: Box<dyn PdfiumLibraryBindings>,
}

static LIBRARY: OnceLock<std::result::Result<Pdfium, String>> = OnceLock::new();

/// Serialises pdfium calls of one process (pdfium keeps global state). Every call into the
/// library is made under this guard (`extract`, `render_regions`; the binding itself happens
/// once, inside `LIBRARY`'s initialisation), so pdfium-render is built without its
/// `thread_safe` feature, which took a lock of its own around each of the six or more calls
/// per character (about 8 % of `quire layout`'s CPU).
pub(super) fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Why pdfium could not open a document (after `FPDF_LoadMemDocument64` gave null).
pub(super) fn open_error(b: &dyn PdfiumLibraryBindings) -> Error {
    let err = unsafe { b.FPDF_GetLastError() } as u32;
    Error::BadInput(match err {
        4 => "the PDF is encrypted and needs a user password".to_string(),
        5 => "the PDF uses an unsupported security handler".to_string(),
        2 | 3 => "not a PDF, or a PDF damaged beyond repair".to_string(),
        _ => format!("pdfium cannot open the PDF (error {err})"),
    })
}

impl Pdfium {
    /// The raw bindings, for the other pdfium users of this module's parent (rendering).
    pub(super) fn bindings(&self) -> &dyn PdfiumLibraryBindings {
        &*self.b
    }

    /// The process's pdfium, bound on first use from `path` (see [`resolve_library`]).
    pub fn get(configured: Option<&Path>) -> Result<&'static Pdfium> {
        LIBRARY
            .get_or_init(|| {
                let path = resolve_library(configured).ok_or_else(|| {
                    format!(
                        "libpdfium not found: set {PDFIUM_ENV} or put it at {VENDOR_PATH} \
                         (`make run` installs it)"
                    )
                })?;
                let b = pdfium_render::prelude::Pdfium::bind_to_library(&path)
                    .map_err(|e| format!("cannot load {}: {e}", path.display()))?;
                // SAFETY: called once per process, before any other pdfium call.
                unsafe { b.FPDF_InitLibrary() };
                Ok(Pdfium { b })
            })
            .as_ref()
            .map_err(|e| Error::PdfConversion(e.clone()))
    }

    /// Open `pdf` and read the pages of `range`. Calls from several threads run one at a time
    /// (pdfium keeps global state; workers are single-threaded anyway, tests are not).
    pub fn extract(&self, pdf: &[u8], range: PageRange) -> Result<Vec<RawPage>> {
        let _guard = one_at_a_time();
        if pdf.is_empty() {
            return Err(Error::BadInput("the PDF is empty (0 bytes)".into()));
        }
        let b = &*self.b;
        // SAFETY: `pdf` outlives the document, which is closed before returning.
        let doc = unsafe { b.FPDF_LoadMemDocument64(pdf, None) };
        if doc.is_null() {
            return Err(open_error(b));
        }
        let out = self.extract_doc(doc, range);
        unsafe { b.FPDF_CloseDocument(doc) };
        out
    }

    fn extract_doc(&self, doc: FPDF_DOCUMENT, range: PageRange) -> Result<Vec<RawPage>> {
        let b = &*self.b;
        let count = unsafe { b.FPDF_GetPageCount(doc) }.max(0) as u32;
        let first = range.start.unwrap_or(1).max(1);
        let last = range.end.unwrap_or(count).min(count);
        let mut pages = Vec::new();
        for number in first..=last {
            let page = unsafe { b.FPDF_LoadPage(doc, (number - 1) as i32) };
            if page.is_null() {
                continue;
            }
            let raw = self.extract_page(doc, page, number);
            unsafe { b.FPDF_ClosePage(page) };
            pages.push(raw);
        }
        Ok(pages)
    }

    fn extract_page(&self, doc: FPDF_DOCUMENT, page: FPDF_PAGE, number: u32) -> RawPage {
        let b = &*self.b;
        let width = clamp_side(unsafe { b.FPDF_GetPageWidthF(page) });
        let height = clamp_side(unsafe { b.FPDF_GetPageHeightF(page) });
        let frame = Frame::of(b, page, width, height);
        let mut raw = RawPage {
            number,
            width,
            height,
            ..RawPage::default()
        };
        let tp = unsafe { b.FPDFText_LoadPage(page) };
        if !tp.is_null() {
            self.read_chars(tp, &frame, &mut raw);
            unsafe { b.FPDFText_ClosePage(tp) };
        }
        self.read_graphics(page, &frame, &mut raw);
        self.read_links(doc, page, &frame, &mut raw);
        raw
    }

    fn read_chars(&self, tp: FPDF_TEXTPAGE, frame: &Frame, raw: &mut RawPage) {
        let b = &*self.b;
        let n = unsafe { b.FPDFText_CountChars(tp) };
        raw.chars.reserve(n.max(0) as usize);
        let mut last_obj: FPDF_PAGEOBJECT = std::ptr::null_mut();
        let mut last_style = 0u32;
        let mut named_font = true;
        let mut symbol_font = false;
        let mut style_ids: HashMap<StyleKey, u32> = HashMap::new();
        let mut font_cache: HashMap<usize, FontFacts> = HashMap::new();
        let mut space_before = false;
        for i in 0..n {
            if unsafe { b.FPDFText_IsGenerated(tp, i) } == 1 {
                space_before |= unsafe { b.FPDFText_GetUnicode(tp, i) } == 0x20;
                continue;
            }
            let mut r = FS_RECTF {
                left: 0.0,
                top: 0.0,
                right: 0.0,
                bottom: 0.0,
            };
            if unsafe { b.FPDFText_GetLooseCharBox(tp, i, &mut r) } == 0 {
                continue;
            }
            let (mut ox, mut oy) = (0f64, 0f64);
            unsafe { b.FPDFText_GetCharOrigin(tp, i, &mut ox, &mut oy) };
            let obj = unsafe { b.FPDFText_GetTextObject(tp, i) };
            if obj != last_obj || i == 0 || raw.styles.is_empty() {
                let style = self.style_of(tp, i, obj, frame, &mut font_cache);
                // Type 3 fonts (no name) rarely map to Unicode properly, but pdfalto reads
                // their codes as text all the same.
                named_font = !style.font.is_empty();
                symbol_font = super::symbol::is_symbol_font(&style.font);
                let key = StyleKey::of(&style);
                last_style = *style_ids.entry(key).or_insert_with(|| {
                    raw.styles.push(style);
                    (raw.styles.len() - 1) as u32
                });
                last_obj = obj;
            }
            let code = unsafe { b.FPDFText_GetUnicode(tp, i) };
            let c = if code == 2 && unsafe { b.FPDFText_IsHyphen(tp, i) } == 1 {
                '-'
            } else if named_font
                && code != 0x20
                && unsafe { b.FPDFText_HasUnicodeMapError(tp, i) } == 1
            {
                if let Some(mapped) = symbol_font
                    .then(|| super::symbol::symbol_code(code))
                    .flatten()
                {
                    mapped
                } else {
                    // pdfium fell back to the character code (glyph names outside the Adobe list,
                    // e.g. TeX's `angbracketleft`): pdfalto has no text for these glyphs either.
                    UNMAPPED
                }
            } else {
                let c = char::from_u32(code).unwrap_or(UNMAPPED);
                // The Symbol font read through its symbolic cmap: U+F0xx codes are its
                // encoding's characters (µ, ±, Greek letters).
                match symbol_font.then(|| super::symbol::symbol_char(c)).flatten() {
                    Some(mapped) => mapped,
                    None => c,
                }
            };
            let (x0, y0, x1, y1) = frame.rect(r.left, r.bottom, r.right, r.top);
            let (px, py) = frame.point(ox as f32, oy as f32);
            raw.chars.push(RawChar {
                c,
                x0,
                y0,
                x1,
                y1,
                ox: px,
                oy: py,
                style: last_style,
                space_before: std::mem::take(&mut space_before),
            });
        }
    }

    fn style_of(
        &self,
        tp: FPDF_TEXTPAGE,
        i: i32,
        obj: FPDF_PAGEOBJECT,
        frame: &Frame,
        fonts: &mut HashMap<usize, FontFacts>,
    ) -> RawStyle {
        let b = &*self.b;
        let tf = unsafe { b.FPDFText_GetFontSize(tp, i) } as f32;
        let mut m = FS_MATRIX {
            a: 1.0,
            b: 0.0,
            c: 0.0,
            d: 1.0,
            e: 0.0,
            f: 0.0,
        };
        unsafe { b.FPDFText_GetMatrix(tp, i, &mut m) };
        let scale = (m.c * m.c + m.d * m.d).sqrt();
        let size = if scale.is_finite() && scale > 0.0 {
            tf * scale
        } else {
            tf
        };
        // Direction of the baseline in user space → displayed counter-clockwise angle.
        let user_angle = m.b.atan2(m.a).to_degrees();
        let rotation = normalise_angle(user_angle - frame.rotate as f32);
        let (mut cr, mut cg, mut cb, mut ca) = (0u32, 0u32, 0u32, 255u32);
        unsafe { b.FPDFText_GetFillColor(tp, i, &mut cr, &mut cg, &mut cb, &mut ca) };
        let color = ((cr.min(255)) << 16) | ((cg.min(255)) << 8) | cb.min(255);
        let invisible = !obj.is_null() && unsafe { b.FPDFTextObj_GetTextRenderMode(obj) } == 3;
        let font_handle = if obj.is_null() {
            std::ptr::null_mut()
        } else {
            unsafe { b.FPDFTextObj_GetFont(obj) }
        };
        let facts = fonts
            .entry(font_handle as usize)
            .or_insert_with(|| self.font_facts(tp, i, font_handle))
            .clone();
        RawStyle {
            font: facts.name,
            size: if size.is_finite() { size.abs() } else { 0.0 },
            bold: facts.bold,
            italic: facts.italic,
            color,
            rotation,
            invisible,
        }
    }

    fn font_facts(
        &self,
        tp: FPDF_TEXTPAGE,
        i: i32,
        font: pdfium_render::prelude::FPDF_FONT,
    ) -> FontFacts {
        let b = &*self.b;
        let mut name = String::new();
        if !font.is_null() {
            let len = unsafe { b.FPDFFont_GetBaseFontName(font, std::ptr::null_mut(), 0) };
            if len > 1 && len < 4096 {
                let mut buf = vec![0u8; len as usize];
                unsafe { b.FPDFFont_GetBaseFontName(font, buf.as_mut_ptr() as *mut _, len) };
                name = String::from_utf8_lossy(&buf)
                    .trim_end_matches('\0')
                    .to_string();
            }
        }
        // The text page's font name can keep what the base name lost (a style suffix such as
        // `-Italic`); both feed the bold/italic rule.
        let mut flags = 0i32;
        let mut info_name = String::new();
        let len = unsafe { b.FPDFText_GetFontInfo(tp, i, std::ptr::null_mut(), 0, &mut flags) };
        if len > 1 && len < 4096 {
            let mut buf = vec![0u8; len as usize];
            unsafe {
                b.FPDFText_GetFontInfo(tp, i, buf.as_mut_ptr() as *mut c_void, len, &mut flags)
            };
            info_name = String::from_utf8_lossy(&buf)
                .trim_end_matches('\0')
                .to_string();
        }
        if name.is_empty() {
            name = strip_subset(&info_name).to_string();
        }
        let mut italic_angle = 0i32;
        if !font.is_null() {
            unsafe { b.FPDFFont_GetItalicAngle(font, &mut italic_angle) };
        }
        // pdfium sets the Italic flag itself when the ItalicAngle is not 0; pdfalto reads the
        // descriptor's own flag, which slanted TeX fonts (CMMI, NimbusRomNo9L-ReguItal) lack.
        let flags = if italic_angle != 0 {
            flags & !(1 << 6)
        } else {
            flags
        };
        let (bold, italic) = bold_italic(&format!("{name} {info_name}"), flags);
        FontFacts { name, bold, italic }
    }

    fn read_graphics(&self, page: FPDF_PAGE, frame: &Frame, raw: &mut RawPage) {
        let b = &*self.b;
        let n = unsafe { b.FPDFPage_CountObjects(page) };
        let identity = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0];
        for i in 0..n {
            let obj = unsafe { b.FPDFPage_GetObject(page, i) };
            self.visit_object(obj, identity, frame, raw, 0);
        }
    }

    fn visit_object(
        &self,
        obj: FPDF_PAGEOBJECT,
        outer: [f32; 6],
        frame: &Frame,
        raw: &mut RawPage,
        depth: u32,
    ) {
        let b = &*self.b;
        if obj.is_null() || raw.images.len() + raw.vectors.len() >= MAX_GRAPHICS_PER_PAGE {
            return;
        }
        let kind = unsafe { b.FPDFPageObj_GetType(obj) } as u32;
        match kind {
            // FPDF_PAGEOBJ_IMAGE, FPDF_PAGEOBJ_PATH, FPDF_PAGEOBJ_SHADING
            2..=4 => {
                let (mut l, mut bt, mut r, mut t) = (0f32, 0f32, 0f32, 0f32);
                if unsafe { b.FPDFPageObj_GetBounds(obj, &mut l, &mut bt, &mut r, &mut t) } == 0 {
                    return;
                }
                let (l, bt, r, t) = transform_rect(outer, l, bt, r, t);
                let (x0, y0, x1, y1) = frame.rect(l, bt, r, t);
                let bbox = BBox {
                    x: x0,
                    y: y0,
                    w: x1 - x0,
                    h: y1 - y0,
                };
                if !(bbox.w.is_finite() && bbox.h.is_finite()) {
                    return;
                }
                if kind == 3 {
                    raw.images.push(bbox);
                } else {
                    raw.vectors.push(bbox);
                }
            }
            // FPDF_PAGEOBJ_FORM: recurse with the form's matrix.
            5 if depth < 8 => {
                let mut m = FS_MATRIX {
                    a: 1.0,
                    b: 0.0,
                    c: 0.0,
                    d: 1.0,
                    e: 0.0,
                    f: 0.0,
                };
                unsafe { b.FPDFPageObj_GetMatrix(obj, &mut m) };
                let inner = compose([m.a, m.b, m.c, m.d, m.e, m.f], outer);
                let n = unsafe { b.FPDFFormObj_CountObjects(obj) };
                for j in 0..n.max(0) as u64 {
                    let child = unsafe { b.FPDFFormObj_GetObject(obj, j as _) };
                    self.visit_object(child, inner, frame, raw, depth + 1);
                }
            }
            _ => {}
        }
    }

    fn read_links(&self, doc: FPDF_DOCUMENT, page: FPDF_PAGE, frame: &Frame, raw: &mut RawPage) {
        let b = &*self.b;
        let mut pos = 0i32;
        let mut link = std::ptr::null_mut();
        let mut guard = 0;
        while unsafe { b.FPDFLink_Enumerate(page, &mut pos, &mut link) } != 0 && guard < 10_000 {
            guard += 1;
            let mut r = FS_RECTF {
                left: 0.0,
                top: 0.0,
                right: 0.0,
                bottom: 0.0,
            };
            if unsafe { b.FPDFLink_GetAnnotRect(link, &mut r) } == 0 {
                continue;
            }
            let (x0, y0, x1, y1) = frame.rect(
                r.left.min(r.right),
                r.bottom.min(r.top),
                r.left.max(r.right),
                r.bottom.max(r.top),
            );
            let action = unsafe { b.FPDFLink_GetAction(link) };
            let mut uri = None;
            if !action.is_null() {
                let len = unsafe { b.FPDFAction_GetURIPath(doc, action, std::ptr::null_mut(), 0) };
                if len > 1 && len < 65_536 {
                    let mut buf = vec![0u8; len as usize];
                    unsafe {
                        b.FPDFAction_GetURIPath(doc, action, buf.as_mut_ptr() as *mut c_void, len)
                    };
                    uri = Some(
                        String::from_utf8_lossy(&buf)
                            .trim_end_matches('\0')
                            .to_string(),
                    );
                }
            }
            raw.links.push(Link {
                bbox: BBox {
                    x: x0,
                    y: y0,
                    w: x1 - x0,
                    h: y1 - y0,
                },
                uri,
            });
        }
    }
}

#[derive(Debug, Clone)]
struct FontFacts {
    name: String,
    bold: bool,
    italic: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct StyleKey {
    font: String,
    size: u32,
    bold: bool,
    italic: bool,
    color: u32,
    rotation: u32,
    invisible: bool,
}

impl StyleKey {
    fn of(s: &RawStyle) -> Self {
        StyleKey {
            font: s.font.clone(),
            size: s.size.to_bits(),
            bold: s.bold,
            italic: s.italic,
            color: s.color,
            rotation: s.rotation.to_bits(),
            invisible: s.invisible,
        }
    }
}

/// Bold and italic as pdfalto decides them (and so as GROBID's models were trained): the
/// lower-cased font name contains `bold`/`_bd` (`italic`/`oblique`/`_it`), or the
/// FontDescriptor sets ForceBold (Italic). The weight is deliberately ignored: pdfalto does not
/// look at it, so a CMB10 without ForceBold is "not bold" to the models.
pub fn bold_italic(name: &str, flags: i32) -> (bool, bool) {
    let lower = name.to_ascii_lowercase();
    const FORCE_BOLD: i32 = 1 << 18;
    const ITALIC: i32 = 1 << 6;
    let bold = lower.contains("bold") || lower.contains("_bd") || flags & FORCE_BOLD != 0;
    let italic = lower.contains("italic")
        || lower.contains("oblique")
        || lower.contains("_it")
        || flags & ITALIC != 0;
    (bold, italic)
}

/// The font name without a `ABCDEF+` subset prefix.
pub fn strip_subset(name: &str) -> &str {
    let b = name.as_bytes();
    if b.len() > 7 && b[6] == b'+' && b[..6].iter().all(|c| c.is_ascii_uppercase()) {
        &name[7..]
    } else {
        name
    }
}

fn clamp_side(v: f32) -> f32 {
    if v.is_finite() && v > 0.0 {
        v.min(MAX_PAGE_SIDE)
    } else {
        612.0
    }
}

/// Angle in [0, 360).
fn normalise_angle(a: f32) -> f32 {
    let r = a.rem_euclid(360.0);
    // Snap tiny float noise around the axes.
    let snapped = (r / 90.0).round() * 90.0;
    let r = if (r - snapped).abs() < 0.5 {
        snapped
    } else {
        r
    };
    if r >= 359.5 {
        0.0
    } else {
        r
    }
}

fn compose(m: [f32; 6], n: [f32; 6]) -> [f32; 6] {
    // m then n (row-vector convention of PDF: [x y 1] × M × N).
    [
        m[0] * n[0] + m[1] * n[2],
        m[0] * n[1] + m[1] * n[3],
        m[2] * n[0] + m[3] * n[2],
        m[2] * n[1] + m[3] * n[3],
        m[4] * n[0] + m[5] * n[2] + n[4],
        m[4] * n[1] + m[5] * n[3] + n[5],
    ]
}

fn transform_rect(m: [f32; 6], l: f32, b: f32, r: f32, t: f32) -> (f32, f32, f32, f32) {
    if m == [1.0, 0.0, 0.0, 1.0, 0.0, 0.0] {
        return (l, b, r, t);
    }
    let pts = [(l, b), (l, t), (r, b), (r, t)]
        .map(|(x, y)| (x * m[0] + y * m[2] + m[4], x * m[1] + y * m[3] + m[5]));
    let xs = pts.map(|p| p.0);
    let ys = pts.map(|p| p.1);
    let min = |a: [f32; 4]| a.iter().copied().fold(f32::INFINITY, f32::min);
    let max = |a: [f32; 4]| a.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    (min(xs), min(ys), max(xs), max(ys))
}

/// User space → displayed page space (top-left origin, y down), through the crop box and
/// `/Rotate` (rust-stack.md §1.4).
struct Frame {
    l: f32,
    b: f32,
    r: f32,
    t: f32,
    rotate: i32,
}

impl Frame {
    fn of(bind: &dyn PdfiumLibraryBindings, page: FPDF_PAGE, width: f32, height: f32) -> Frame {
        let rotate = (unsafe { bind.FPDFPage_GetRotation(page) }.rem_euclid(4)) * 90;
        let (mut l, mut b, mut r, mut t) = (0f32, 0f32, 0f32, 0f32);
        let ok = unsafe { bind.FPDFPage_GetCropBox(page, &mut l, &mut b, &mut r, &mut t) } != 0
            || unsafe { bind.FPDFPage_GetMediaBox(page, &mut l, &mut b, &mut r, &mut t) } != 0;
        let sane = ok && r > l && t > b && (r - l).is_finite() && (t - b).is_finite();
        if sane {
            Frame { l, b, r, t, rotate }
        } else {
            let (w, h) = if rotate % 180 == 0 {
                (width, height)
            } else {
                (height, width)
            };
            Frame {
                l: 0.0,
                b: 0.0,
                r: w,
                t: h,
                rotate,
            }
        }
    }

    fn point(&self, x: f32, y: f32) -> (f32, f32) {
        match self.rotate {
            90 => (y - self.b, x - self.l),
            180 => (self.r - x, y - self.b),
            270 => (self.t - y, self.r - x),
            _ => (x - self.l, self.t - y),
        }
    }

    /// A user-space rectangle → (x0, y0, x1, y1) in page space.
    fn rect(&self, l: f32, b: f32, r: f32, t: f32) -> (f32, f32, f32, f32) {
        let (ax, ay) = self.point(l, b);
        let (bx, by) = self.point(r, t);
        (ax.min(bx), ay.min(by), ax.max(bx), ay.max(by))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subset_prefix_is_recognised_only_in_its_exact_shape() {
        assert_eq!(strip_subset("ABCDEF+Times-Bold"), "Times-Bold");
        assert_eq!(strip_subset("abcdef+Times"), "abcdef+Times");
        assert_eq!(strip_subset("Helvetica"), "Helvetica");
    }

    #[test]
    fn bold_and_italic_come_from_name_and_descriptor_flags() {
        assert_eq!(bold_italic("Helvetica-Bold", 0), (true, false));
        assert_eq!(bold_italic("Times-Italic", 0), (false, true));
        assert_eq!(bold_italic("Helvetica-Oblique", 0), (false, true));
        assert_eq!(bold_italic("ABCDEF+CMR10", 0), (false, false));
        // pdfalto ignores the weight: CMBX10 without ForceBold is not bold to the models.
        assert_eq!(bold_italic("ABCDEF+CMBX10", 0), (false, false));
        assert_eq!(bold_italic("TimesNewRoman,BoldItalic", 0), (true, true));
        assert_eq!(bold_italic("Arial_Bd", 0), (true, false));
        assert_eq!(bold_italic("Arial_It", 0), (false, true));
        assert_eq!(bold_italic("ABCDEF+CMBX10", 1 << 18), (true, false));
        assert_eq!(bold_italic("ABCDEF+CMMI10", 1 << 6), (false, true));
    }

    #[test]
    fn frame_converts_rotated_pages() {
        let f = Frame {
            l: 0.0,
            b: 0.0,
            r: 612.0,
            t: 792.0,
            rotate: 0,
        };
        assert_eq!(f.point(72.0, 700.0), (72.0, 92.0));
        let f90 = Frame { rotate: 90, ..f };
        assert_eq!(f90.point(72.0, 700.0), (700.0, 72.0));
    }

    #[test]
    fn angles_are_normalised_to_the_circle() {
        assert_eq!(normalise_angle(-90.0), 270.0);
        assert_eq!(normalise_angle(359.9), 0.0);
        assert_eq!(normalise_angle(90.2), 90.0);
    }
}
