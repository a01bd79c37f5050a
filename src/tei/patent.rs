/*!
The TEI of the patent citation services (grobid-service.md §5.8): an empty `<teiHeader/>`,
then one `<div>` per segment that holds citations, with the segment's text in
`<p id="_<id>">` and its references in `<div type="references">`: a patent `<biblStruct>` per
patent number (office, epodoc and original numbers, kind code, and a
`<ptr target="#string-range('<id>',<start>,<length>)">` pointing at the cited characters,
counted in Unicode characters of the `<p>` text), and an ordinary `<biblStruct>` per
non-patent citation. No citation at all leaves `<text>` without a `<div>`.
*/

use super::writer::{TeiWriter, TEI_NS};
use crate::patent::number::PatentNumber;
use crate::patent::{char_offset, Segment};

/// `#string-range('<id>',<start>,<length>)` of a byte range of `text`.
pub fn string_range(id: &str, text: &str, range: &std::ops::Range<usize>) -> String {
    let start = char_offset(text, range.start);
    let end = char_offset(text, range.end);
    format!("#string-range('{id}',{start},{})", end - start)
}

fn write_patent(w: &mut TeiWriter, seg: &Segment, p: &PatentNumber) {
    w.indent()
        .start(
            "biblStruct",
            &[("type", p.doc_type.as_str()), ("status", p.status.as_str())],
        )
        .start("monogr", &[]);
    if let Some(cc) = &p.authority {
        w.start("authority", &[])
            .leaf("orgName", &[("type", p.authority_type())], cc)
            .end("authority");
    }
    w.leaf(
        "idno",
        &[("type", "docNumber"), ("subtype", "epodoc")],
        &p.epodoc,
    )
    .leaf(
        "idno",
        &[("type", "docNumber"), ("subtype", "original")],
        &p.original,
    );
    if let Some(k) = &p.kind {
        w.start("imprint", &[])
            .leaf("classCode", &[("scheme", "kindCode")], k)
            .end("imprint");
    }
    let target = string_range(&seg.id, &seg.text, &p.range);
    w.leaf("ptr", &[("target", &target)], "")
        .end("monogr")
        .end("biblStruct")
        .newline();
}

/// The whole document (see the module documentation).
pub fn patent_tei(segments: &[Segment], include_raw: bool) -> String {
    let mut w = TeiWriter::at(0);
    w.declaration().newline();
    w.open(
        "TEI",
        &[
            ("xml:space", "preserve"),
            ("xmlns", TEI_NS),
            ("xmlns:xlink", "http://www.w3.org/1999/xlink"),
        ],
    );
    w.indent()
        .empty("teiHeader", &[], super::writer::Slash::Tight)
        .newline();
    w.open("text", &[]);
    for seg in segments.iter().filter(|s| s.has_citations()) {
        w.open("div", &[]);
        let pid = format!("_{}", seg.id);
        w.line("p", &[("id", &pid)], &seg.text);
        w.open("div", &[("type", "references")]);
        // In text order, patents and non-patent citations mixed.
        let mut items: Vec<(usize, Option<&PatentNumber>, Option<usize>)> = seg
            .patents
            .iter()
            .map(|p| (p.range.start, Some(p), None))
            .chain(
                seg.npl
                    .iter()
                    .enumerate()
                    .map(|(i, n)| (n.range.start, None, Some(i))),
            )
            .collect();
        items.sort_by_key(|(s, _, _)| *s);
        for (_, p, n) in items {
            if let Some(p) = p {
                write_patent(&mut w, seg, p);
            }
            if let Some(n) = n.and_then(|i| seg.npl.get(i)) {
                super::write_bibl_struct(&mut w, &n.citation, None, include_raw, None);
            }
        }
        w.close("div");
        w.close("div");
    }
    w.close("text");
    w.close("TEI");
    w.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patent::number;

    #[test]
    fn pointers_slice_the_paragraph_back() {
        let text = "Voir l’état: EP0123456B1 et US 5,123,456 and 5,234,567.";
        let mut seg = Segment {
            id: "p0001".into(),
            text: text.into(),
            ..Default::default()
        };
        for (a, b) in [("EP0123456B1", 0), ("US 5,123,456 and 5,234,567", 0)] {
            let at = text.find(a).unwrap() + b;
            for mut p in number::parse(a) {
                p.range = p.range.start + at..p.range.end + at;
                seg.patents.push(p);
            }
        }
        // Apostrophes in attribute values are written as `&apos;`.
        let xml = patent_tei(&[seg.clone()], false).replace("&apos;", "'");
        assert!(
            xml.contains("<p id=\"_p0001\">Voir l’état: EP0123456B1"),
            "{xml}"
        );
        let chars: Vec<char> = text.chars().collect();
        let mut sliced = Vec::new();
        for cap in xml.split("string-range('p0001',").skip(1) {
            let nums: Vec<usize> = cap
                .split(')')
                .next()
                .unwrap()
                .split(',')
                .map(|n| n.trim().parse().unwrap())
                .collect();
            sliced.push(chars[nums[0]..nums[0] + nums[1]].iter().collect::<String>());
        }
        assert_eq!(sliced, vec!["EP0123456B1", "US 5,123,456", "5,234,567"]);
        assert!(xml.contains("<orgName type=\"regional\">EP</orgName>"));
        assert!(xml.contains("<classCode scheme=\"kindCode\">B1</classCode>"));
        let empty = patent_tei(&[Segment::default()], false);
        assert!(!empty.contains("<div"), "{empty}");
        assert!(empty.contains("<teiHeader/>"));
    }
}
