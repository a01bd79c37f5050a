/*!
Consolidating TEI that was written before: the `biblStruct`s of a TEI document (a full text, a
header, a `listBibl` from processReferences or processCitationList, GROBID's or Quire's) are
read back into [`Citation`]s ([`read`]) so that they can be looked up like freshly extracted
ones, and the ones a lookup matched are written back in place ([`replacement`], [`apply`]):
everything else in the document stays byte for byte as it was. The document's own record (the
header's `biblStruct`) only gains a DOI ([`doi_insertion`]): rewriting it would lose what the
reference writer does not write (affiliations, e-mails).

What is read from a `biblStruct` is what the TEI writers put there: titles by level (`a`,
`j`, `m`, `s`), authors and editors (`persName` parts, a collaboration `orgName`), DOI and
other `idno`s, `ptr`, imprint (publisher, place, volume, issue, pages, date), notes (raw
reference, report type, institution). A rewritten `biblStruct` keeps its `xml:id`, `coords` and
raw-reference note.
*/

use std::ops::Range;

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use crate::models::citation::Citation;
use crate::models::date::Date;
use crate::models::name::Person;
use crate::tei::writer::TeiWriter;

/// One `biblStruct` of a document.
#[derive(Debug, Clone)]
pub struct TeiBibl {
    /// Byte range of the element (start tag to end tag) in the document.
    pub range: Range<usize>,
    pub citation: Citation,
    pub id: Option<String>,
    pub coords: Option<String>,
    /// Whether it had a raw-reference note (kept when rewritten).
    pub had_raw: bool,
    /// Tabs before its start tag on its line (the writer's depth).
    pub depth: usize,
    /// Inside `teiHeader`: the document's own record, not a reference.
    pub in_header: bool,
}

fn attr(e: &BytesStart<'_>, key: &str) -> Option<String> {
    e.attributes().flatten().find_map(|a| {
        (a.key.as_ref() == key)
            .then(|| {
                a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                    .ok()
                    .map(|v| v.into_owned())
            })
            .flatten()
    })
}

fn local(name: &str) -> String {
    name.rsplit(':').next().unwrap_or_default().to_string()
}

fn set(slot: &mut Option<String>, text: &str) {
    let t = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if !t.is_empty() && slot.is_none() {
        *slot = Some(t);
    }
}

/// The parse state inside one `biblStruct`.
#[derive(Default)]
struct Builder {
    c: Citation,
    /// Open elements inside the biblStruct, with the attributes that matter.
    stack: Vec<(String, Option<String>, Option<String>)>,
    text: String,
    person: Person,
    in_analytic: bool,
    had_raw: bool,
}

impl Builder {
    fn start(&mut self, e: &BytesStart<'_>) {
        let name = local(e.name().as_ref());
        match name.as_str() {
            "analytic" => self.in_analytic = true,
            "persName" => self.person = Person::default(),
            "biblScope" if attr(e, "unit").as_deref() == Some("page") => {
                if let Some(from) = attr(e, "from") {
                    self.c.pages = Some(match attr(e, "to") {
                        Some(to) => format!("{from}-{to}"),
                        None => from,
                    });
                }
            }
            "date" => {
                if let Some(when) = attr(e, "when") {
                    let mut parts = when.split('-');
                    let year = parts.next().and_then(|y| y.parse().ok());
                    let month = parts.next().and_then(|m| m.parse().ok());
                    let day = parts.next().and_then(|d| d.parse().ok());
                    if year.is_some() {
                        self.c.date = Some(Date {
                            year,
                            month,
                            day,
                            raw: when.clone(),
                        });
                    }
                }
            }
            "ptr" => {
                if let Some(t) = attr(e, "target") {
                    if attr(e, "type").as_deref() == Some("open-access") {
                        set(&mut self.c.oa_url, &t);
                    } else {
                        set(&mut self.c.web, &t);
                    }
                }
            }
            _ => {}
        }
        let ty = attr(e, "type").or_else(|| attr(e, "unit"));
        self.stack.push((name, attr(e, "level"), ty));
        self.text.clear();
    }

    fn end(&mut self) {
        let Some((name, level, ty)) = self.stack.pop() else {
            return;
        };
        let text = std::mem::take(&mut self.text);
        let parent = self.stack.last().map(|(n, _, _)| n.as_str()).unwrap_or("");
        let c = &mut self.c;
        match name.as_str() {
            "analytic" => self.in_analytic = false,
            "title" => match level.as_deref() {
                Some("a") => set(&mut c.title, &text),
                Some("j") => set(&mut c.journal, &text),
                Some("s") => set(&mut c.series, &text),
                Some("m") if !self.in_analytic && ty.as_deref() == Some("main") => {
                    set(&mut c.title, &text)
                }
                Some("m") => set(&mut c.booktitle, &text),
                _ => set(&mut c.title, &text),
            },
            "forename" => {
                if ty.as_deref() == Some("middle") {
                    set(&mut self.person.middlename, &text);
                } else {
                    set(&mut self.person.forename, &text);
                }
            }
            "surname" => set(&mut self.person.surname, &text),
            "roleName" => set(&mut self.person.title, &text),
            "genName" => set(&mut self.person.suffix, &text),
            "persName" => {
                let p = std::mem::take(&mut self.person);
                if parent == "editor" {
                    c.editors.push(p);
                } else {
                    c.authors.push(p);
                }
            }
            "orgName" if ty.as_deref() == Some("collaboration") => set(&mut c.collaboration, &text),
            "idno" => match ty.as_deref() {
                Some("ISSN") | Some("ISSNe") => set(&mut c.issn, &text),
                _ => {
                    let t = text.trim();
                    if !t.is_empty() {
                        c.pubnums.push(if ty.as_deref() == Some("arXiv") {
                            format!("arXiv:{t}")
                        } else {
                            t.to_string()
                        });
                    }
                }
            },
            "publisher" => set(&mut c.publisher, &text),
            "pubPlace" => set(&mut c.location, &text),
            "biblScope" => match ty.as_deref() {
                Some("volume") => set(&mut c.volume, &text),
                Some("issue") => set(&mut c.issue, &text),
                Some("page") => set(&mut c.pages, &text),
                _ => {}
            },
            "date" if c.date.is_none() => set(&mut c.date_text, &text),
            "editor" if c.editors.is_empty() => set(&mut c.editor_text, &text),
            "note" => match ty.as_deref() {
                Some("raw_reference") => {
                    self.had_raw = true;
                    c.raw = text.trim().to_string();
                }
                Some("report_type") => set(&mut c.tech, &text),
                Some("institution") => set(&mut c.institution, &text),
                Some("consolidation") => {}
                _ => set(&mut c.note, &text),
            },
            _ => {}
        }
        // Text of a leaf belongs to it only; the parent keeps collecting after it.
    }
}

/// Every `biblStruct` of `xml`, in document order. An error says where the XML is broken.
pub fn read(xml: &str) -> Result<Vec<TeiBibl>, String> {
    let mut reader = Reader::from_str(xml);
    let mut out = Vec::new();
    let mut in_header = false;
    let mut current: Option<(usize, TeiBibl, Builder, usize)> = None;
    loop {
        let before = reader.buffer_position() as usize;
        let event = reader
            .read_event()
            .map_err(|e| format!("the TEI is not well-formed XML at byte {before}: {e}"))?;
        match event {
            Event::Start(e) => {
                let name = local(e.name().as_ref());
                if let Some((_, _, b, nested)) = current.as_mut() {
                    if name == "biblStruct" {
                        *nested += 1;
                    }
                    b.start(&e);
                } else if name == "biblStruct" {
                    let line_start = xml[..before].rfind('\n').map_or(0, |i| i + 1);
                    let depth = xml[line_start..before]
                        .chars()
                        .take_while(|c| *c == '\t')
                        .count();
                    let bibl = TeiBibl {
                        range: before..before,
                        citation: Citation::default(),
                        id: attr(&e, "xml:id"),
                        coords: attr(&e, "coords"),
                        had_raw: false,
                        depth,
                        in_header,
                    };
                    current = Some((before, bibl, Builder::default(), 0));
                } else if name == "teiHeader" {
                    in_header = true;
                }
            }
            Event::Empty(e) => {
                if let Some((_, _, b, _)) = current.as_mut() {
                    b.start(&e);
                    b.end();
                }
            }
            Event::Text(t) => {
                if let Some((_, _, b, _)) = current.as_mut() {
                    b.text.push_str(&t.xml10_content());
                }
            }
            Event::GeneralRef(r) => {
                if let Some((_, _, b, _)) = current.as_mut() {
                    let text = match r.resolve_char_ref() {
                        Ok(Some(c)) => c.to_string(),
                        _ => {
                            let name: &str = &r;
                            quick_xml::escape::resolve_predefined_entity(name)
                                .ok_or_else(|| {
                                    format!("unknown entity `&{name};` at byte {before}")
                                })?
                                .to_string()
                        }
                    };
                    b.text.push_str(&text);
                }
            }
            Event::End(e) => {
                let name = local(e.name().as_ref());
                let closes_bibl = name == "biblStruct"
                    && current
                        .as_ref()
                        .is_some_and(|(_, _, _, nested)| *nested == 0);
                if closes_bibl {
                    if let Some((start, mut bibl, b, _)) = current.take() {
                        bibl.range = start..reader.buffer_position() as usize;
                        bibl.citation = b.c;
                        bibl.had_raw = b.had_raw;
                        out.push(bibl);
                    }
                } else if let Some((_, _, b, nested)) = current.as_mut() {
                    if name == "biblStruct" {
                        *nested -= 1;
                    }
                    b.end();
                } else if name == "teiHeader" {
                    in_header = false;
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if current.is_some() {
        return Err("the TEI ends inside a biblStruct".into());
    }
    Ok(out)
}

/// One change to the document: `range` replaced by the text.
pub type Edit = (Range<usize>, String);

/// `bibl` written anew from `c`, in place of the original element (same `xml:id`, `coords`,
/// depth; the raw note kept when it had one).
pub fn replacement(bibl: &TeiBibl, c: &Citation) -> Edit {
    let mut w = TeiWriter::at(bibl.depth);
    crate::tei::write_bibl_struct(
        &mut w,
        c,
        bibl.id.as_deref(),
        bibl.had_raw,
        bibl.coords.as_deref(),
    );
    let written = w.finish();
    // The writer indents the start tag and ends with a newline; the original's indentation
    // and line end are still around the range.
    let written = written.trim_start_matches('\t').trim_end_matches('\n');
    (bibl.range.clone(), written.to_string())
}

/// An `<idno type="DOI">` added to `bibl` (the document's own record, whose author
/// affiliations a rewrite would lose): before the end of its `analytic`, else of its
/// `monogr`. `None` when it has neither.
pub fn doi_insertion(xml: &str, bibl: &TeiBibl, doi: &str) -> Option<Edit> {
    let element = &xml[bibl.range.clone()];
    let at = ["</analytic>", "</monogr>"]
        .iter()
        .find_map(|end| element.find(end))?;
    let end_tag = bibl.range.start + at;
    let line_start = xml[..end_tag].rfind('\n').map_or(end_tag, |i| i + 1);
    let indent = &xml[line_start..end_tag];
    let doi = quick_xml::escape::escape(doi);
    let (pos, text) = if !indent.is_empty() && indent.chars().all(|c| c == '\t') {
        // The end tag opens its line: a new line before it, one tab deeper.
        (
            line_start,
            format!("{indent}\t<idno type=\"DOI\">{doi}</idno>\n"),
        )
    } else {
        (end_tag, format!("<idno type=\"DOI\">{doi}</idno>"))
    };
    Some((pos..pos, text))
}

/// `xml` with the `edits` applied (ranges of the original document; an edit overlapping an
/// earlier one is dropped).
pub fn apply(xml: &str, mut edits: Vec<Edit>) -> String {
    edits.sort_by_key(|(r, _)| r.start);
    let mut out = String::with_capacity(xml.len() + 256);
    let mut at = 0;
    for (range, text) in edits {
        if range.start < at {
            continue;
        }
        out.push_str(&xml[at..range.start]);
        out.push_str(&text);
        at = range.end;
    }
    out.push_str(&xml[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tei::{bibl_struct, list_bibl, BiblOptions};

    fn citation() -> Citation {
        Citation {
            raw: "Smith J. Deep parsing & more. J Doc Eng 12(3):45-67, 2019.".into(),
            title: Some("Deep parsing & more".into()),
            journal: Some("J Doc Eng".into()),
            volume: Some("12".into()),
            issue: Some("3".into()),
            pages: Some("45-67".into()),
            authors: vec![Person {
                forename: Some("John".into()),
                middlename: Some("A".into()),
                surname: Some("Smith".into()),
                ..Person::default()
            }],
            date: Some(Date {
                year: Some(2019),
                month: None,
                day: None,
                raw: "2019".into(),
            }),
            pubnums: vec!["10.5555/deep.2019".into()],
            web: Some("https://example.org/deep".into()),
            oa_url: Some("https://repo.example/deep.pdf".into()),
            ..Citation::default()
        }
    }

    #[test]
    fn a_written_bibl_struct_reads_back_to_the_same_fields() {
        let c = citation();
        let xml = list_bibl(std::slice::from_ref(&c), true);
        let bibls = read(&xml).expect("read");
        assert_eq!(bibls.len(), 1);
        let b = &bibls[0];
        assert_eq!(b.id.as_deref(), Some("b0"));
        assert!(b.had_raw && !b.in_header);
        let r = &b.citation;
        assert_eq!(r.title, c.title);
        assert_eq!(r.journal, c.journal);
        assert_eq!(
            (r.volume.as_deref(), r.issue.as_deref()),
            (Some("12"), Some("3"))
        );
        assert_eq!(r.page_range(), c.page_range());
        assert_eq!(r.date.as_ref().and_then(|d| d.year), Some(2019));
        assert_eq!(r.authors[0].surname.as_deref(), Some("Smith"));
        assert_eq!(r.authors[0].middlename.as_deref(), Some("A"));
        assert_eq!(r.doi().as_deref(), Some("10.5555/deep.2019"));
        assert!(
            xml.contains(r#"<ptr type="open-access" target="https://repo.example/deep.pdf" />"#)
        );
        assert_eq!(r.oa_url, c.oa_url);
        assert_eq!(r.web, c.web);
        assert_eq!(r.raw, c.raw);
        // Written again from what was read: the same element.
        assert_eq!(
            bibl_struct(
                r,
                BiblOptions {
                    id: Some("b0"),
                    include_raw: true,
                    depth: 4
                }
            ),
            bibl_struct(
                &c,
                BiblOptions {
                    id: Some("b0"),
                    include_raw: true,
                    depth: 4
                }
            )
        );
    }

    #[test]
    fn rewriting_replaces_only_the_chosen_elements() {
        let mut other = citation();
        other.title = Some("Another paper".into());
        let xml = list_bibl(&[citation(), other], false);
        let bibls = read(&xml).expect("read");
        assert_eq!(bibls.len(), 2);
        // Nothing replaced: the document is unchanged.
        assert_eq!(apply(&xml, Vec::new()), xml);
        let mut merged = bibls[1].citation.clone();
        merged.publisher = Some("Loopback Press".into());
        merged.consolidated = Some("embedded".into());
        let out = apply(&xml, vec![replacement(&bibls[1], &merged)]);
        assert_eq!(out.matches("<biblStruct").count(), 2);
        assert!(
            out.contains("<biblStruct status=\"consolidated\"  xml:id=\"b1\">"),
            "{out}"
        );
        assert!(
            out.contains("<publisher>Loopback Press</publisher>"),
            "{out}"
        );
        assert!(
            out.contains("<biblStruct status=\"extracted\"  xml:id=\"b0\">"),
            "{out}"
        );
        // The result is the document the writer would have written with the merged record.
        let mut expected = vec![citation(), merged.clone()];
        expected[1].raw.clear();
        assert_eq!(out, list_bibl(&expected, false));
        // A DOI added to a header record goes inside its analytic, indented like its lines.
        let header = "<TEI>\n\t<teiHeader>\n\t\t<biblStruct>\n\t\t\t<analytic>\n\t\t\t\t<title>T</title>\n\t\t\t</analytic>\n\t\t</biblStruct>\n\t</teiHeader>\n</TEI>";
        let bibls = read(header).expect("read");
        assert!(bibls[0].in_header);
        let edit = doi_insertion(header, &bibls[0], "10.5555/x&y").expect("analytic");
        assert_eq!(
            apply(header, vec![edit]),
            "<TEI>\n\t<teiHeader>\n\t\t<biblStruct>\n\t\t\t<analytic>\n\t\t\t\t<title>T</title>\n\t\t\t\t<idno type=\"DOI\">10.5555/x&amp;y</idno>\n\t\t\t</analytic>\n\t\t</biblStruct>\n\t</teiHeader>\n</TEI>"
        );
        assert!(read("<TEI><biblStruct><title>x</title>").is_err());
        assert!(read("<TEI><biblStruct><title>x</biblStruct>").is_err());
    }
}
