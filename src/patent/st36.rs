/*!
Reading a patent's description paragraphs from XML, with quick-xml: WIPO ST.36 documents
(`<description><p id="p0001" num="0001">…`), and the training corpus's patent documents, whose
description paragraphs mark citations inline (`<ref type="patent">…</ref>`,
`<ref type="npl">…</ref>`, in some files `typ=` for `type=`, `type="pl"` for a patent, or TEI
`<bibl type="patent|journal|book">`; ST.36's own `<patcit>` and `<nplcit>` count as marks too).

Each outermost `<p>` inside a `<description>` is one paragraph; its text is every text node
inside it (formatting elements such as `<b>`, `<sub>` add nothing), `<br/>` a line break. The
marks are byte ranges into that text. Malformed XML is an error naming what is wrong and where.
*/

use std::ops::Range;

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use crate::{Error, Result};

/// What a citation mark says the marked text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MarkKind {
    Patent,
    Npl,
}

/// One marked citation: its kind and its byte range in the paragraph's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mark {
    pub kind: MarkKind,
    pub range: Range<usize>,
}

/// One description paragraph.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Paragraph {
    /// The paragraph's `id` attribute, else its `num` attribute, if any.
    pub id: Option<String>,
    pub text: String,
    pub marks: Vec<Mark>,
}

fn local_lower(name: &str) -> String {
    name.rsplit(':').next().unwrap_or(name).to_ascii_lowercase()
}

fn attr(e: &BytesStart<'_>, key: &str) -> Option<String> {
    e.attributes().flatten().find_map(|a| {
        (local_lower(a.key.as_ref()) == key).then(|| {
            a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map(|v| v.into_owned())
                .unwrap_or_default()
        })
    })
}

/// The mark an element opens, if it is a citation mark.
fn mark_kind(name: &str, e: &BytesStart<'_>) -> Option<MarkKind> {
    match name {
        "patcit" => Some(MarkKind::Patent),
        "nplcit" => Some(MarkKind::Npl),
        // The corpus writes `type` or (in older files) `typ`, on `<ref>` or TEI `<bibl>`;
        // books and journal articles are non-patent literature, `pl` is a patent.
        "ref" | "bibl" => match attr(e, "type").or_else(|| attr(e, "typ")).as_deref() {
            Some("patent" | "pl") => Some(MarkKind::Patent),
            Some("npl" | "book" | "journal") => Some(MarkKind::Npl),
            _ => None,
        },
        _ => None,
    }
}

/// Read the description paragraphs of a patent XML document (see the module documentation).
/// A document without a `<description>` element is an error, as is malformed XML.
pub fn read_description(xml: &str) -> Result<Vec<Paragraph>> {
    let bad = |m: String| Error::BadInput(format!("ST.36 XML: {m}"));
    let mut reader = Reader::from_str(xml);
    let mut names: Vec<String> = Vec::new();
    let mut out = Vec::new();
    let mut seen_description = false;
    // Depth (in `names`) of the open description and paragraph.
    let mut description: Option<usize> = None;
    let mut para: Option<(usize, Paragraph)> = None;
    // Open marks: (depth, kind, start byte).
    let mut open: Vec<(usize, MarkKind, usize)> = Vec::new();
    loop {
        let pos = reader.buffer_position();
        let ev = reader
            .read_event()
            .map_err(|e| bad(format!("malformed XML at byte {pos}: {e}")))?;
        match ev {
            Event::Start(e) => {
                let name = local_lower(e.name().as_ref());
                names.push(name.clone());
                let depth = names.len();
                if name == "description" && description.is_none() {
                    description = Some(depth);
                    seen_description = true;
                } else if name == "p" && description.is_some() && para.is_none() {
                    let id = attr(&e, "id").or_else(|| attr(&e, "num"));
                    para = Some((
                        depth,
                        Paragraph {
                            id,
                            ..Paragraph::default()
                        },
                    ));
                } else if let Some((_, p)) = para.as_ref() {
                    if let Some(kind) = mark_kind(&name, &e) {
                        open.push((depth, kind, p.text.len()));
                    }
                }
            }
            Event::Empty(e) => {
                let name = local_lower(e.name().as_ref());
                if let Some((_, p)) = para.as_mut() {
                    if name == "br" {
                        p.text.push('\n');
                    }
                }
            }
            Event::End(e) => {
                let depth = names.len();
                let Some(name) = names.pop() else {
                    return Err(bad(format!("unexpected closing tag at byte {pos}")));
                };
                let closing = local_lower(e.name().as_ref());
                if closing != name {
                    return Err(bad(format!(
                        "malformed XML at byte {pos}: </{closing}> closes <{name}>"
                    )));
                }
                if let Some(&(d, kind, start)) = open.last() {
                    if d == depth {
                        open.pop();
                        if let Some((_, p)) = para.as_mut() {
                            if start < p.text.len() {
                                p.marks.push(Mark {
                                    kind,
                                    range: start..p.text.len(),
                                });
                            }
                        }
                    }
                }
                if para.as_ref().is_some_and(|(d, _)| *d == depth) {
                    if let Some((_, p)) = para.take() {
                        out.push(p);
                    }
                    open.clear();
                }
                if description == Some(depth) {
                    description = None;
                }
            }
            Event::Text(t) => {
                if let Some((_, p)) = para.as_mut() {
                    p.text.push_str(&t.xml10_content());
                }
            }
            Event::CData(t) => {
                if let Some((_, p)) = para.as_mut() {
                    p.text.push_str(t.as_ref());
                }
            }
            Event::GeneralRef(r) => {
                if let Some((_, p)) = para.as_mut() {
                    let resolved = if r.is_char_ref() {
                        r.resolve_char_ref()
                            .map_err(|e| {
                                bad(format!("bad character reference at byte {pos}: {e}"))
                            })?
                            .map(String::from)
                    } else {
                        let name = r.xml10_content();
                        quick_xml::escape::resolve_predefined_entity(&name).map(str::to_string)
                    };
                    match resolved {
                        Some(text) => p.text.push_str(&text),
                        None => {
                            return Err(bad(format!(
                                "unknown entity `&{};` at byte {pos}",
                                r.xml10_content()
                            )))
                        }
                    }
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if let Some(open) = names.last() {
        return Err(bad(format!(
            "unexpected end of file: element <{open}> is not closed"
        )));
    }
    if !seen_description {
        return Err(bad("no <description> element".into()));
    }
    Ok(out)
}

/// The document with every citation mark element removed (its text kept): what a patent office
/// publishes, for the end-to-end measure.
pub fn strip_marks(xml: &str) -> String {
    let mut out = String::with_capacity(xml.len());
    let mut rest = xml;
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let end = tail.find('>').map(|j| j + 1).unwrap_or(tail.len());
        let tag = &tail[..end];
        let name: String = tag
            .trim_start_matches(['<', '/'])
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '-' || *c == ':')
            .collect();
        let is_mark = matches!(name.as_str(), "ref" | "bibl" | "patcit" | "nplcit");
        if !is_mark {
            out.push_str(tag);
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paragraphs_and_marks_are_read() {
        let xml = r#"<?xml version="1.0"?><patent-document><abstract><p>No.</p></abstract>
<description><heading>BACKGROUND</heading><p id="p0001" num="0001">See <ref type="patent">US 5,546,951</ref> and <b>Smith</b>, <ref type="npl">Nature 1 (2000)</ref> &amp; more.</p>
<p num="0002">Plain<br/>text &#233;.</p></description></patent-document>"#;
        let ps = read_description(xml).unwrap();
        assert_eq!(ps.len(), 2);
        assert_eq!(ps[0].id.as_deref(), Some("p0001"));
        assert_eq!(
            ps[0].text,
            "See US 5,546,951 and Smith, Nature 1 (2000) & more."
        );
        let texts: Vec<&str> = ps[0]
            .marks
            .iter()
            .map(|m| &ps[0].text[m.range.clone()])
            .collect();
        assert_eq!(texts, vec!["US 5,546,951", "Nature 1 (2000)"]);
        assert_eq!(ps[0].marks[1].kind, MarkKind::Npl);
        assert_eq!(ps[1].id.as_deref(), Some("0002"));
        assert_eq!(ps[1].text, "Plain\ntext é.");
        let stripped = strip_marks(xml);
        assert!(!stripped.contains("<ref"));
        let again = read_description(&stripped).unwrap();
        assert_eq!(again[0].text, ps[0].text);
        assert!(again[0].marks.is_empty());
    }

    #[test]
    fn every_corpus_spelling_of_a_mark_is_read() {
        let xml = r#"<patent-document><description><p>A <ref typ="patent">EP 1</ref>, <ref type="pl">US 2</ref>, <bibl type="journal" xmlns="http://www.tei-c.org/ns/1.0">Nature 3</bibl>, <bibl type="book" xmlns="http://www.tei-c.org/ns/1.0">Book 4</bibl>, <bibl type="patent" xmlns="http://www.tei-c.org/ns/1.0">WO 5</bibl>, <ref typ="npl">Cell 6</ref> <ref type="figure">7</ref>.</p></description></patent-document>"#;
        let ps = read_description(xml).unwrap();
        let marks: Vec<(&str, MarkKind)> = ps[0]
            .marks
            .iter()
            .map(|m| (&ps[0].text[m.range.clone()], m.kind))
            .collect();
        use MarkKind::{Npl, Patent};
        assert_eq!(
            marks,
            vec![
                ("EP 1", Patent),
                ("US 2", Patent),
                ("Nature 3", Npl),
                ("Book 4", Npl),
                ("WO 5", Patent),
                ("Cell 6", Npl),
            ]
        );
    }

    #[test]
    fn malformed_documents_say_what_is_wrong() {
        let msg = read_description("<description><p>a</b></description>")
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("malformed XML") && msg.contains("`</b>`"),
            "{msg}"
        );
        let msg = read_description("<description><p>a</p>")
            .unwrap_err()
            .to_string();
        assert!(msg.contains("<description> is not closed"), "{msg}");
        let msg = read_description("<doc><p>a</p></doc>")
            .unwrap_err()
            .to_string();
        assert!(msg.contains("no <description>"), "{msg}");
        let msg = read_description("<description><p>&foo;</p></description>")
            .unwrap_err()
            .to_string();
        assert!(msg.contains("unknown entity `&foo;`"), "{msg}");
    }
}
