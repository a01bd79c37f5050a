/*!
The one TEI element writer: every TEI document and fragment Quire answers is written through
[`TeiWriter`], a thin layer over quick-xml's [`Writer`] that adds GROBID's layout.

- Layout: block elements stand on their own line, indented by one tab a level
  ([`TeiWriter::open`], [`TeiWriter::close`], [`TeiWriter::line`]); inline elements are
  written compact ([`TeiWriter::start`], [`TeiWriter::leaf`], …). quick-xml's own indentation
  is not used: GROBID's layout mixes the two on one line (`<author><persName>…`).
- Attributes are written in the order given.
- Escaping is quick-xml's (`<>&'"` and `\r` in text; `\t` and `\n` too in attributes, so they
  survive attribute-value normalisation); characters XML 1.0 cannot carry at all (most C0
  controls, U+FFFE, U+FFFF) are dropped first ([`escape`]).
- Empty elements: `<a/>` ([`Slash::Tight`], the header document) or `<a />` ([`Slash::Spaced`],
  GROBID's bibliographic writer).
- Where GROBID writes a start tag quick-xml cannot produce (two spaces between attributes),
  [`TeiWriter::open_raw`] passes it through verbatim.
- [`coords`] formats GROBID's `coords` attribute from [`PageBox`]es; [`xml_id`] names the
  `xml:id` attribute.
*/

use std::borrow::Cow;

use quick_xml::events::attributes::Attribute;
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
use quick_xml::Writer;

use crate::document::PageBox;

/// The TEI namespace.
pub const TEI_NS: &str = "http://www.tei-c.org/ns/1.0";

/// Whether XML 1.0 allows the character in a document.
pub(crate) fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// The characters of `s` XML 1.0 can carry (the others are dropped).
fn xml_chars(s: &str) -> Cow<'_, str> {
    if s.chars().all(is_xml_char) {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(s.chars().filter(|c| is_xml_char(*c)).collect())
    }
}

/// Escape text for element content (quick-xml's escaping: `<>&'"` and `\r` as `&#13;`, so it
/// survives parsing). Characters XML 1.0 forbids are dropped.
pub fn escape(s: &str) -> String {
    quick_xml::escape::escape(xml_chars(s)).into_owned()
}

/// How an empty element ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slash {
    /// `<a/>`
    Tight,
    /// `<a />` (GROBID's bibliographic writer)
    Spaced,
}

/// The `xml:id` attribute.
pub fn xml_id(id: &str) -> (&'static str, &str) {
    ("xml:id", id)
}

/// `coords="page,x,y,w,h;…"` (grobid-service.md §5.4): one box per fragment, page from 1,
/// numbers with two decimals rounded half up as Java's `%.2f` does.
pub fn coords(boxes: &[PageBox]) -> String {
    boxes
        .iter()
        .map(|b| {
            format!(
                "{},{},{},{},{}",
                b.page,
                fixed2(b.bbox.x),
                fixed2(b.bbox.y),
                fixed2(b.bbox.w),
                fixed2(b.bbox.h)
            )
        })
        .collect::<Vec<_>>()
        .join(";")
}

/// `v` with two decimals, rounded half up (away from zero) on its shortest decimal form, as
/// Java's `String.format("%.2f", …)` does (`0.125` → `0.13`, `1.005` → `1.01`).
fn fixed2(v: f32) -> String {
    if !v.is_finite() {
        return v.to_string();
    }
    let shortest = v.abs().to_string();
    let (int, frac) = shortest.split_once('.').unwrap_or((&shortest, ""));
    let frac: Vec<u8> = frac
        .bytes()
        .chain(std::iter::repeat(b'0'))
        .take(3)
        .collect();
    let mut digits: Vec<u8> = int.bytes().chain(frac[..2].iter().copied()).collect();
    if frac[2] >= b'5' {
        let mut i = digits.len();
        loop {
            if i == 0 {
                digits.insert(0, b'1');
                break;
            }
            i -= 1;
            if digits[i] == b'9' {
                digits[i] = b'0';
            } else {
                digits[i] += 1;
                break;
            }
        }
    }
    let (int, frac) = digits.split_at(digits.len() - 2);
    let sign = if v.is_sign_negative() && v != 0.0 {
        "-"
    } else {
        ""
    };
    format!(
        "{sign}{}.{}",
        String::from_utf8_lossy(int),
        String::from_utf8_lossy(frac)
    )
}

/// The element writer (see the module documentation). Writing into memory cannot fail, so
/// the methods return `&mut Self` for chaining instead of `io::Result`.
pub struct TeiWriter {
    w: Writer<Vec<u8>>,
    depth: usize,
}

impl Default for TeiWriter {
    fn default() -> Self {
        Self::at(0)
    }
}

impl TeiWriter {
    /// A writer whose block elements start `depth` tabs deep.
    pub fn at(depth: usize) -> Self {
        Self {
            w: Writer::new(Vec::with_capacity(4096)),
            depth,
        }
    }

    /// The text written.
    pub fn finish(self) -> String {
        // Everything written is UTF-8: `&str`s and ASCII markup.
        String::from_utf8(self.w.into_inner()).unwrap_or_default()
    }

    fn event<'a>(&mut self, e: impl Into<Event<'a>>) -> &mut Self {
        // Writing into a Vec cannot fail.
        let _ = self.w.write_event(e);
        self
    }

    fn tag<'a>(name: &'a str, attrs: &[(&str, &str)]) -> BytesStart<'a> {
        let mut t = BytesStart::new(name);
        for (k, v) in attrs {
            // quick-xml escapes the value (`From<(&str, Cow<str>)>`).
            t.push_attribute(Attribute::from((*k, xml_chars(v))));
        }
        t
    }

    // Inline: written where the cursor is, no line break.

    /// `<name a="v"…>`
    pub fn start(&mut self, name: &str, attrs: &[(&str, &str)]) -> &mut Self {
        self.event(Event::Start(Self::tag(name, attrs)))
    }

    /// `</name>`
    pub fn end(&mut self, name: &str) -> &mut Self {
        self.event(Event::End(BytesEnd::new(name)))
    }

    /// Escaped text.
    pub fn text(&mut self, s: &str) -> &mut Self {
        self.event(Event::Text(BytesText::from_escaped(escape(s))))
    }

    /// Text written verbatim, for constant text GROBID writes unescaped (an apostrophe);
    /// never for input.
    pub fn verbatim(&mut self, s: &'static str) -> &mut Self {
        self.event(Event::Text(BytesText::from_escaped(s)))
    }

    /// `<name a="v"…>text</name>`, also when the text is empty.
    pub fn leaf(&mut self, name: &str, attrs: &[(&str, &str)], text: &str) -> &mut Self {
        self.start(name, attrs).text(text).end(name)
    }

    /// `<name a="v"…/>` or `<name a="v"… />`.
    pub fn empty(&mut self, name: &str, attrs: &[(&str, &str)], slash: Slash) -> &mut Self {
        self.w.config_mut().add_space_before_slash_in_empty_elements = slash == Slash::Spaced;
        self.event(Event::Empty(Self::tag(name, attrs)))
    }

    /// `<?xml version="1.0" encoding="UTF-8"?>`
    pub fn declaration(&mut self) -> &mut Self {
        self.event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))
    }

    // Layout.

    /// The current depth's tabs.
    pub fn indent(&mut self) -> &mut Self {
        let tabs = "\t".repeat(self.depth);
        self.event(Event::Text(BytesText::from_escaped(tabs)))
    }

    pub fn newline(&mut self) -> &mut Self {
        self.event(Event::Text(BytesText::from_escaped("\n")))
    }

    /// Runs `f` with block elements `depth` tabs deep, then restores the depth.
    pub fn nested(&mut self, depth: usize, f: impl FnOnce(&mut Self)) -> &mut Self {
        let saved = std::mem::replace(&mut self.depth, depth);
        f(self);
        self.depth = saved;
        self
    }

    // Blocks: one line each, indented.

    /// An indented start tag on its own line; what follows is one level deeper.
    pub fn open(&mut self, name: &str, attrs: &[(&str, &str)]) -> &mut Self {
        self.indent().start(name, attrs).newline();
        self.depth += 1;
        self
    }

    /// Like [`Self::open`] for a start tag GROBID writes in a shape quick-xml cannot produce
    /// (two spaces between attributes, line breaks inside the tag): `content` is everything
    /// between `<` and `>`, written verbatim, so values in it must already be escaped
    /// ([`attr_value`]).
    pub fn open_raw(&mut self, name: &str, content: &str) -> &mut Self {
        let tag = BytesStart::from_content(content, name.len());
        self.indent().event(Event::Start(tag)).newline();
        self.depth += 1;
        self
    }

    /// The end tag of the element [`Self::open`] started, on its own line.
    pub fn close(&mut self, name: &str) -> &mut Self {
        self.depth = self.depth.saturating_sub(1);
        self.indent().end(name).newline()
    }

    /// `<name a="v"…>text</name>` on its own line.
    pub fn line(&mut self, name: &str, attrs: &[(&str, &str)], text: &str) -> &mut Self {
        self.indent().leaf(name, attrs, text).newline()
    }

    /// [`Self::line`] when there is a text.
    pub fn line_if(&mut self, name: &str, attrs: &[(&str, &str)], text: Option<&str>) -> &mut Self {
        if let Some(t) = text {
            self.line(name, attrs, t);
        }
        self
    }

    /// An empty element on its own line.
    pub fn line_empty(&mut self, name: &str, attrs: &[(&str, &str)], slash: Slash) -> &mut Self {
        self.indent().empty(name, attrs, slash).newline()
    }
}

/// An attribute value escaped for [`TeiWriter::open_raw`] (quick-xml's attribute escaping,
/// XML 1.0-invalid characters dropped).
pub fn attr_value(v: &str) -> String {
    let a = Attribute::from(("a", xml_chars(v)));
    a.value.into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::BBox;

    #[test]
    fn coords_are_page_and_two_decimals_joined_by_semicolons() {
        let b = |page, x, y, w, h| PageBox {
            page,
            bbox: BBox { x, y, w, h },
        };
        assert_eq!(coords(&[]), "");
        assert_eq!(
            coords(&[b(3, 72.0, 90.5, 220.1, 140.0)]),
            "3,72.00,90.50,220.10,140.00"
        );
        assert_eq!(
            coords(&[
                b(1, 0.125, 1.005, 99.995, 0.004),
                b(2, 10.0, -0.5, 1.0, 2.0)
            ]),
            "1,0.13,1.01,100.00,0.00;2,10.00,-0.50,1.00,2.00"
        );
    }

    #[test]
    fn layout_escaping_and_raw_start_tags() {
        let mut w = TeiWriter::at(1);
        w.open("a", &[("k", "x\"<\t\u{1}")])
            .line("b", &[], "1 < 2 & \r\u{0}")
            .line_empty("c", &[xml_id("c0")], Slash::Spaced)
            .line_empty("d", &[], Slash::Tight)
            .open_raw("e", &format!("e s=\"x\"  id=\"{}\"", attr_value("&")))
            .close("e")
            .close("a");
        assert_eq!(
            w.finish(),
            "\t<a k=\"x&quot;&lt;&#9;\">\n\t\t<b>1 &lt; 2 &amp; &#13;</b>\n\t\t<c xml:id=\"c0\" />\n\t\t<d/>\n\t\t<e s=\"x\"  id=\"&amp;\">\n\t\t</e>\n\t</a>\n"
        );
    }
}
