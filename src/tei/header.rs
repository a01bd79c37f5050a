/*!
The document header as Quire extracts it ([`HeaderRecord`]: title, authors with names, e-mails
and affiliations, abstract, keywords, identifiers, journal data) and its two renderings: the
TEI document `processHeaderDocument` answers (reference grobid-service.md §5.1: `teiHeader`
with `fileDesc`, `encodingDesc`, `profileDesc`, and an empty `text`) and the one BibTeX entry of
its `Accept: application/x-bibtex` variant (§5.6).
*/

use std::fmt::Write as _;

pub use crate::document::{Author, HeaderRecord};
use crate::models::date::Date;
use crate::tei::{affiliation as affiliation_xml, escape, pers_name};

/// What the request asked for, echoed in the TEI and honoured by the writer.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TeiOptions {
    pub include_raw_affiliations: bool,
    pub include_raw_copyrights: bool,
    pub start_page: i64,
    pub end_page: i64,
    pub consolidate_header: u8,
    /// Application version written in `encodingDesc`.
    pub version: String,
    /// Processing time, `yyyy-MM-ddTHH:mm+0000`.
    pub when: String,
}

/// The current UTC time as GROBID writes it (`2025-12-02T13:58+0000`).
pub fn now_stamp() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}+0000",
        rem / 3600,
        (rem % 3600) / 60
    )
}

fn el(out: &mut String, indent: usize, name: &str, attrs: &str, text: &str) {
    let _ = writeln!(
        out,
        "{}<{name}{attrs}>{}</{name}>",
        "\t".repeat(indent),
        escape(text)
    );
}

/// The whole TEI document of a header-only response.
pub fn to_tei(h: &HeaderRecord, opt: &TeiOptions) -> String {
    let mut o = String::with_capacity(4096);
    o.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    o.push_str(
        "<TEI xml:space=\"preserve\" xmlns=\"http://www.tei-c.org/ns/1.0\" \n\
         xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" \n\
         xsi:schemaLocation=\"http://www.tei-c.org/ns/1.0 https://raw.githubusercontent.com/kermitt2/grobid/master/grobid-home/schemas/xsd/Grobid.xsd\"\n \
         xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n",
    );
    o.push_str("\t<teiHeader>\n\t\t<fileDesc>\n\t\t\t<titleStmt>\n");
    let title = h.title.as_deref().unwrap_or("");
    if title.is_empty() {
        o.push_str("\t\t\t\t<title level=\"a\" type=\"main\"/>\n");
    } else {
        el(&mut o, 4, "title", " level=\"a\" type=\"main\"", title);
    }
    o.push_str("\t\t\t</titleStmt>\n\t\t\t<publicationStmt>\n");
    match &h.publisher {
        Some(p) => el(&mut o, 4, "publisher", "", p),
        None => o.push_str("\t\t\t\t<publisher/>\n"),
    }
    match (&h.copyright, opt.include_raw_copyrights) {
        (Some(c), true) => {
            o.push_str("\t\t\t\t<availability status=\"unknown\">\n\t\t\t\t\t<licence/>\n");
            el(&mut o, 5, "p", " type=\"raw\"", c);
            o.push_str("\t\t\t\t</availability>\n");
        }
        _ => o.push_str("\t\t\t\t<availability status=\"unknown\"><licence/></availability>\n"),
    }
    if let Some(d) = &h.date {
        date(&mut o, 4, d);
    }
    o.push_str("\t\t\t</publicationStmt>\n\t\t\t<sourceDesc>\n\t\t\t\t<biblStruct>\n");
    o.push_str("\t\t\t\t\t<analytic>\n");
    let with_email = h.authors.iter().filter(|a| a.email.is_some()).count();
    let mut attached = vec![false; h.affiliations.len()];
    for a in &h.authors {
        let corresp = with_email == 1 && a.email.is_some();
        o.push_str(if corresp {
            "\t\t\t\t\t\t<author role=\"corresp\">\n"
        } else {
            "\t\t\t\t\t\t<author>\n"
        });
        let _ = writeln!(o, "\t\t\t\t\t\t\t{}", pers_name(&a.person, false));
        if let Some(e) = &a.email {
            el(&mut o, 7, "email", "", e);
        }
        for &k in &a.affiliations {
            if let Some(af) = h.affiliations.get(k) {
                if let Some(x) = attached.get_mut(k) {
                    *x = true;
                }
                o.push_str(&affiliation_xml(
                    af,
                    7,
                    Some(&format!("aff{k}")),
                    opt.include_raw_affiliations,
                ));
            }
        }
        o.push_str("\t\t\t\t\t\t</author>\n");
    }
    for (k, af) in h.affiliations.iter().enumerate() {
        if !attached[k] {
            o.push_str("\t\t\t\t\t\t<author>\n");
            o.push_str(&affiliation_xml(
                af,
                7,
                Some(&format!("aff{k}")),
                opt.include_raw_affiliations,
            ));
            o.push_str("\t\t\t\t\t\t</author>\n");
        }
    }
    if !title.is_empty() {
        el(&mut o, 6, "title", " level=\"a\" type=\"main\"", title);
    }
    o.push_str("\t\t\t\t\t</analytic>\n\t\t\t\t\t<monogr>\n");
    if let Some(j) = &h.journal {
        el(&mut o, 6, "title", " level=\"j\" type=\"main\"", j);
    }
    if let Some(m) = &h.meeting {
        let _ = writeln!(o, "\t\t\t\t\t\t<meeting>{}</meeting>", escape(m));
    }
    o.push_str("\t\t\t\t\t\t<imprint>\n");
    if let Some(p) = &h.publisher {
        el(&mut o, 7, "publisher", "", p);
    }
    if let Some(v) = &h.volume {
        el(&mut o, 7, "biblScope", " unit=\"volume\"", v);
    }
    if let Some(v) = &h.issue {
        el(&mut o, 7, "biblScope", " unit=\"issue\"", v);
    }
    if let Some((from, to)) = &h.pages {
        let to = to
            .as_ref()
            .map(|t| format!(" to=\"{}\"", escape(t)))
            .unwrap_or_default();
        let _ = writeln!(
            o,
            "\t\t\t\t\t\t\t<biblScope unit=\"page\" from=\"{}\"{to}/>",
            escape(from)
        );
    }
    match &h.date {
        Some(d) => date(&mut o, 7, d),
        None => o.push_str("\t\t\t\t\t\t\t<date/>\n"),
    }
    o.push_str("\t\t\t\t\t\t</imprint>\n\t\t\t\t\t</monogr>\n");
    if let Some(m) = &h.md5 {
        el(&mut o, 5, "idno", " type=\"MD5\"", m);
    }
    if let Some(d) = &h.doi {
        el(&mut o, 5, "idno", " type=\"DOI\"", d);
    }
    if let Some(a) = &h.arxiv {
        el(&mut o, 5, "idno", " type=\"arXiv\"", a);
    }
    if let Some(s) = &h.submission {
        el(&mut o, 5, "note", " type=\"submission\"", s);
    }
    o.push_str("\t\t\t\t</biblStruct>\n\t\t\t</sourceDesc>\n\t\t</fileDesc>\n");
    o.push_str("\t\t<encodingDesc>\n\t\t\t<appInfo>\n");
    let _ = writeln!(
        o,
        "\t\t\t\t<application version=\"{}\" ident=\"Quire\" when=\"{}\">",
        escape(&opt.version),
        escape(&opt.when)
    );
    o.push_str(
        "\t\t\t\t\t<desc>Quire - a Rust service extracting structured data from scholarly documents, speaking GROBID's interface</desc>\n",
    );
    let _ = writeln!(
        o,
        "\t\t\t\t\t<label type=\"parameters\">startPage={}, endPage={}, consolidateCitations=0, consolidateHeader={}, consolidateFunders=0, includeRawAffiliations={}, includeRawCitations=false, includeRawCopyrights={}, generateTeiIds=false, generateTeiCoordinates=null, flavor=null</label>",
        opt.start_page,
        opt.end_page,
        opt.consolidate_header,
        opt.include_raw_affiliations,
        opt.include_raw_copyrights
    );
    o.push_str("\t\t\t\t</application>\n\t\t\t</appInfo>\n\t\t</encodingDesc>\n");
    o.push_str("\t\t<profileDesc>\n");
    if !h.keywords.is_empty() {
        o.push_str("\t\t\t<textClass>\n\t\t\t\t<keywords>\n");
        for k in &h.keywords {
            el(&mut o, 5, "term", "", k);
        }
        o.push_str("\t\t\t\t</keywords>\n\t\t\t</textClass>\n");
    }
    match &h.abstract_text {
        Some(a) if !a.is_empty() => {
            let _ = writeln!(
                o,
                "\t\t\t<abstract>\n<div xmlns=\"http://www.tei-c.org/ns/1.0\"><p>{}</p></div>\n\t\t\t</abstract>",
                escape(a)
            );
        }
        _ => o.push_str("\t\t\t<abstract/>\n"),
    }
    o.push_str("\t\t</profileDesc>\n\t</teiHeader>\n\t<text>\n\t</text>\n</TEI>\n");
    o
}

fn date(o: &mut String, indent: usize, d: &Date) {
    let when = d
        .when()
        .as_ref()
        .map(|w| format!(" when=\"{}\"", escape(w)))
        .unwrap_or_default();
    el(
        o,
        indent,
        "date",
        &format!(" type=\"published\"{when}"),
        &d.raw,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::affiliation::Affiliation;
    use crate::models::name::Person;

    fn sample() -> HeaderRecord {
        HeaderRecord {
            title: Some("Soil & moisture feedbacks".into()),
            authors: vec![
                Author {
                    person: Person {
                        forename: Some("Ana".into()),
                        middlename: Some("M".into()),
                        surname: Some("Lopes".into()),
                        ..Default::default()
                    },
                    email: Some("ana@example.org".into()),
                    affiliations: vec![0],
                },
                Author {
                    person: Person {
                        forename: Some("Bo".into()),
                        surname: Some("Ng".into()),
                        ..Default::default()
                    },
                    ..Default::default()
                },
            ],
            affiliations: vec![
                Affiliation {
                    raw: "Dept. of Physics, Example University, Lisbon, Portugal".into(),
                    markers: vec!["1".into()],
                    departments: vec!["Dept. of Physics".into()],
                    institutions: vec!["Example University".into()],
                    settlement: Some("Lisbon".into()),
                    country: Some("Portugal".into()),
                    country_code: Some("PT".into()),
                    ..Default::default()
                },
                Affiliation {
                    raw: "Unattached Institute".into(),
                    institutions: vec!["Unattached Institute".into()],
                    ..Default::default()
                },
            ],
            abstract_text: Some("We study <things>.".into()),
            keywords: vec!["soil".into(), "feedback".into()],
            doi: Some("10.1234/x.5".into()),
            journal: Some("Journal of Examples".into()),
            volume: Some("12".into()),
            date: Some(Date {
                year: Some(2021),
                month: Some(3),
                day: Some(4),
                raw: "4 March 2021".into(),
            }),
            md5: Some("ABC".into()),
            ..Default::default()
        }
    }

    #[test]
    fn tei_has_grobid_header_shape() {
        let opt = TeiOptions {
            include_raw_affiliations: true,
            version: "0.1.0".into(),
            when: now_stamp(),
            end_page: 2,
            ..Default::default()
        };
        let tei = to_tei(&sample(), &opt);
        assert!(
            tei.contains("<title level=\"a\" type=\"main\">Soil &amp; moisture feedbacks</title>")
        );
        assert!(tei.contains("<author role=\"corresp\">"));
        assert!(tei.contains("<persName><forename type=\"first\">Ana</forename><forename type=\"middle\">M</forename><surname>Lopes</surname></persName>"));
        assert!(tei.contains("<email>ana@example.org</email>"));
        assert!(tei.contains("<affiliation key=\"aff0\">"));
        assert!(tei.contains("<note type=\"raw_affiliation\"><label>1</label> Dept. of Physics"));
        assert!(tei.contains("<country key=\"PT\">Portugal</country>"));
        assert!(
            tei.contains("<affiliation key=\"aff1\">"),
            "unattached affiliation kept"
        );
        assert!(tei.contains("<idno type=\"DOI\">10.1234/x.5</idno>"));
        assert!(tei.contains("<term>feedback</term>"));
        assert!(tei.contains("<p>We study &lt;things&gt;.</p>"));
        assert!(tei.contains("ident=\"Quire\""));
        assert!(tei.contains("<date type=\"published\" when=\"2021-03-04\">4 March 2021</date>"));
        assert!(tei.trim_end().ends_with("</TEI>"));
        // Well-formed XML.
        crate::corpus::layout::parse_tei(&tei).unwrap();
        let plain = to_tei(&sample(), &TeiOptions::default());
        assert!(!plain.contains("raw_affiliation"));
    }

    #[test]
    fn bibtex_entry() {
        let b = crate::bibtex::header_entry(&sample());
        assert!(b.starts_with("@article{-1,\n  author = {Lopes, Ana M and Ng, Bo},"));
        assert!(b.contains("  year = {2021},\n  month = {3},\n  day = {4}"));
        assert!(b.contains("  doi = {10.1234/x.5}"));
        assert!(b.contains("\nkeywords = {soil, feedback}"));
        assert!(b.ends_with("}\n"));
        let empty = crate::bibtex::header_entry(&HeaderRecord::default());
        assert_eq!(empty, "@misc{-1,\n  author = {}\n}\n");
    }

    /// The whole header document, byte for byte, against `golden/header.tei.xml` (a rewrite of
    /// the writer must keep the TEI GROBID clients read). `QUIRE_BLESS=1` rewrites the file.
    #[test]
    fn header_tei_matches_the_golden_file() {
        let opt = TeiOptions {
            include_raw_affiliations: true,
            version: "0.1.0".into(),
            when: "2026-11-25T06:00+0000".into(),
            end_page: 2,
            ..Default::default()
        };
        crate::tei::golden::check("header.tei.xml", &to_tei(&sample(), &opt));
    }

    #[test]
    fn stamp_is_grobid_shaped() {
        let s = now_stamp();
        assert_eq!(s.len(), "2025-12-02T13:58+0000".len());
        assert!(s.ends_with("+0000"));
    }
}
