//! The patent citation services over HTTP, on the committed `patent-citation`, `citation`,
//! `name-citation` and `date` models: a description in plain text with patent numbers in the
//! printed forms patents use, whose `string-range` pointers slice the input back to the
//! printed citations; an ST.36 file written here; malformed ST.36 (`BAD_INPUT_DATA`); empty
//! input (400); a text without citations (200, no `div`); and a generated patent PDF through
//! `processCitationPatentPDF` and `citationPatentAnnotations` (needs libpdfium). Each test
//! reports a skip when a model or libpdfium is missing (fails under `CI=true`).

use quire::testutil::PdfBuilder;
use reqwest::blocking::multipart::{Form, Part};

use crate::common::{all_between, models_present, Server};

const NEEDED: [&str; 4] = ["patent-citation", "citation", "name-citation", "date"];

fn server() -> Option<Server> {
    models_present(&NEEDED).then(|| Server::builder().repo_models().start())
}

/// (segment id, segment text) of every `<p id>` and (id, start, length) of every pointer.
type Pointers = (Vec<(String, String)>, Vec<(String, usize, usize)>);

fn pointers(xml: &str) -> Pointers {
    // Apostrophes in attribute values are written as `&apos;`.
    let xml = xml.replace("&apos;", "'");
    let mut paras = Vec::new();
    for chunk in xml.split("<p id=\"_").skip(1) {
        let (id, rest) = chunk.split_once("\">").expect("p id");
        let text = rest.split("</p>").next().expect("p end");
        let text = quick_xml::escape::unescape(text).expect("escaped text");
        paras.push((id.to_string(), text.into_owned()));
    }
    let mut ptrs = Vec::new();
    for t in all_between(&xml, "#string-range('", ")\"") {
        let (id, nums) = t.split_once("',").expect("id");
        let (s, l) = nums.split_once(',').expect("start, length");
        ptrs.push((id.to_string(), s.parse().unwrap(), l.parse().unwrap()));
    }
    (paras, ptrs)
}

/// The characters each pointer designates, with the epodoc number written beside it.
fn sliced(xml: &str) -> Vec<(String, String)> {
    let (paras, ptrs) = pointers(xml);
    let epodocs = all_between(
        xml,
        "<idno type=\"docNumber\" subtype=\"epodoc\">",
        "</idno>",
    );
    assert_eq!(epodocs.len(), ptrs.len(), "{xml}");
    ptrs.iter()
        .zip(epodocs)
        .map(|((id, s, l), ep)| {
            let text = &paras
                .iter()
                .find(|(p, _)| p == id)
                .expect("pointer's segment")
                .1;
            let cut: String = text.chars().skip(*s).take(*l).collect();
            assert_eq!(cut.chars().count(), *l, "pointer beyond the text: {xml}");
            (cut, ep)
        })
        .collect()
}

fn post_text(s: &Server, text: &str, extra: &[(&str, &str)]) -> (u16, String) {
    let mut form = vec![("input", text)];
    form.extend_from_slice(extra);
    let r = s.post_form("/api/processCitationPatentTXT", &form);
    let status = r.status().as_u16();
    (status, r.text().unwrap_or_default())
}

fn post_st36(s: &Server, xml: &str) -> (u16, String) {
    let form = Form::new().part(
        "input",
        Part::bytes(xml.as_bytes().to_vec())
            .file_name("patent.xml")
            .mime_str("application/xml")
            .unwrap(),
    );
    let r = s
        .client
        .post(s.url("/api/processCitationPatentST36"))
        .multipart(form)
        .send()
        .expect("POST ST.36");
    let status = r.status().as_u16();
    (status, r.text().unwrap_or_default())
}

const DESCRIPTION: &str = "BACKGROUND OF THE INVENTION\n\
Such devices are known from EP-A-0 123 456 and from US 6,123,456 B1. A similar catheter is \
disclosed in WO 2004/012345, and the coating process in JP 2001-123456 A. The housing of \
DE 101 23 456 is made of steel.\n\
Further methods are described in U.S. Pat. Nos. 5,123,456 and 5,234,567, which are \
incorporated herein by reference.\n";

#[test]
fn txt_finds_the_printed_numbers_and_pointers_slice_them_back() {
    let Some(s) = server() else { return };
    let (status, xml) = post_text(&s, DESCRIPTION, &[]);
    assert_eq!(status, 200, "{xml}");
    assert!(xml.contains("<teiHeader/>"), "{xml}");
    let (paras, _) = pointers(&xml);
    assert_eq!(paras.len(), 1);
    assert_eq!(paras[0].1, DESCRIPTION, "the segment is the input itself");
    let got = sliced(&xml);
    let epodocs: Vec<&str> = got.iter().map(|(_, e)| e.as_str()).collect();
    for want in [
        "0123456",
        "6123456",
        "2004012345",
        "2001123456",
        "10123456",
        "5123456",
        "5234567",
    ] {
        assert!(epodocs.contains(&want), "{want} missing: {got:?}\n{xml}");
    }
    for (cut, ep) in &got {
        // The designated characters are a printed citation that parses to that number.
        let parsed = quire::patent::number::parse(cut);
        assert!(parsed.iter().any(|p| &p.epodoc == ep), "{cut:?} → {ep}");
        assert!(DESCRIPTION.contains(cut.as_str()));
    }
    assert!(got.iter().any(|(c, _)| c == "US 6,123,456 B1"), "{got:?}");
    assert!(xml.contains("<orgName type=\"regional\">EP</orgName>"));
    assert!(xml.contains("<orgName type=\"national\">US</orgName>"));
    assert!(xml.contains("<classCode scheme=\"kindCode\">B1</classCode>"));
}

#[test]
fn st36_paragraphs_are_segments_of_their_own() {
    let Some(s) = server() else { return };
    let doc = r#"<?xml version="1.0" encoding="UTF-8"?>
<ep-patent-document id="EP1000000B1" lang="en" country="EP" doc-number="1000000" kind="B1">
<abstract><p id="pa01" num="0001">An abstract citing EP 0 999 999 A1 is not read.</p></abstract>
<description id="desc" lang="en">
<heading id="h0001">BACKGROUND</heading>
<p id="p0001" num="0001">The invention relates to valves &amp; seals.</p>
<p id="p0002" num="0002">Such valves are known from <b>EP-A-0 123 456</b> and from US 6,123,456 B1.</p>
</description>
<claims><claim><claim-text>A valve.</claim-text></claim></claims>
</ep-patent-document>"#;
    let (status, xml) = post_st36(&s, doc);
    assert_eq!(status, 200, "{xml}");
    let (paras, _) = pointers(&xml);
    let ids: Vec<&str> = paras.iter().map(|(i, _)| i.as_str()).collect();
    assert_eq!(
        ids,
        vec!["p0002"],
        "only the paragraph with citations: {xml}"
    );
    assert_eq!(
        paras[0].1,
        "Such valves are known from EP-A-0 123 456 and from US 6,123,456 B1."
    );
    let got = sliced(&xml);
    let cuts: Vec<&str> = got.iter().map(|(c, _)| c.as_str()).collect();
    assert!(cuts.contains(&"EP-A-0 123 456"), "{got:?}");
    assert!(cuts.contains(&"US 6,123,456 B1"), "{got:?}");
    assert!(
        !xml.contains("0999999"),
        "the abstract is not the description"
    );
}

#[test]
fn malformed_st36_is_bad_input_naming_the_problem() {
    let Some(s) = server() else { return };
    let (status, body) = post_st36(
        &s,
        "<ep-patent-document><description><p>EP 1</b></description>",
    );
    assert_eq!(status, 500, "{body}");
    assert!(body.contains("BAD_INPUT_DATA"), "{body}");
    assert!(body.contains("malformed XML"), "{body}");
    let (status, body) = post_st36(&s, "<doc><p>No description here.</p></doc>");
    assert_eq!(status, 500, "{body}");
    assert!(
        body.contains("no <description>") || body.contains("no &lt;description"),
        "{body}"
    );
    // The server keeps serving.
    let (status, _) = post_text(&s, "Nothing cited.", &[]);
    assert_eq!(status, 200);
}

#[test]
fn empty_input_is_400_and_text_without_citations_has_no_div() {
    let Some(s) = server() else { return };
    for path in [
        "/api/processCitationPatentTXT",
        "/api/processCitationPatentST36",
    ] {
        let r = s.post_form(path, &[("input", "   ")]);
        assert_eq!(r.status().as_u16(), 400, "{path}");
        let r = s.post_form(path, &[("other", "x")]);
        assert_eq!(r.status().as_u16(), 400, "{path}");
    }
    let (status, xml) = post_text(
        &s,
        "The valve comprises a housing and a seal. The seal is made of rubber.",
        &[],
    );
    assert_eq!(status, 200, "{xml}");
    assert!(xml.contains("<text>"), "{xml}");
    assert!(!xml.contains("<div"), "{xml}");
    let (status, body) = post_text(&s, "EP 1", &[("consolidateCitations", "7")]);
    assert_eq!(status, 400, "{body}");
}

fn patent_pdf() -> Vec<u8> {
    PdfBuilder::new()
        .page(595.0, 842.0)
        .paragraph(
            72.0,
            760.0,
            "Helvetica",
            10.0,
            13.0,
            &[
                "DESCRIPTION",
                "Such devices are known from EP-A-0 123 456 and from US 6,123,456 B1.",
                "The coating process is described in WO 2004/012345 and in the",
                "publication of Smith et al., Journal of Applied Physics 45 (2001) 123-130.",
            ],
        )
        .build()
}

#[test]
fn a_generated_patent_pdf_gives_tei_and_annotations_with_boxes() {
    let Some(s) = Server::with_models(&NEEDED) else {
        return;
    };
    let (status, ctype, xml) = s.post_pdf("/api/processCitationPatentPDF", patent_pdf(), &[], None);
    assert_eq!(status, 200, "{xml}");
    assert!(ctype.starts_with("application/xml"), "{ctype}");
    let got = sliced(&xml);
    let epodocs: Vec<&str> = got.iter().map(|(_, e)| e.as_str()).collect();
    for want in ["0123456", "6123456", "2004012345"] {
        assert!(epodocs.contains(&want), "{want}: {got:?}");
    }
    let (status, ctype, body) =
        s.post_pdf("/api/citationPatentAnnotations", patent_pdf(), &[], None);
    assert_eq!(status, 200, "{body}");
    assert!(ctype.starts_with("application/json"), "{ctype}");
    let v: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(v["pages"][0]["page_width"], 595.0);
    assert!(v["articles"].is_array());
    let patents = v["patents"].as_array().expect("patents");
    let ep = patents
        .iter()
        .find(|p| p["number"]["epodoc"] == "0123456")
        .expect("the EP citation");
    assert_eq!(ep["authority"]["name"], "EP");
    assert_eq!(ep["authority"]["type"], "regional");
    assert!(ep["url"]["espacenet"].as_str().unwrap().contains("EP"));
    let pos = &ep["pos"][0];
    assert_eq!(pos["p"], 1);
    // The second printed line, 13 points below the first one at the top of an A4 page.
    let y = pos["y"].as_f64().unwrap();
    assert!(y > 842.0 - 760.0 && y < 842.0 - 760.0 + 30.0, "{pos}");
    assert!(pos["w"].as_f64().unwrap() > 30.0, "{pos}");
    let missing = s.post_pdf("/api/citationPatentAnnotations", Vec::new(), &[], None);
    assert_eq!(missing.0, 400);
}
