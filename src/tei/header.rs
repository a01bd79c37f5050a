/*!
The document header as Quire extracts it ([`HeaderRecord`]: title, authors with names, e-mails
and affiliations, abstract, keywords, identifiers, journal data) and its two renderings: the
TEI document `processHeaderDocument` answers (reference grobid-service.md §5.1: `teiHeader`
with `fileDesc`, `encodingDesc`, `profileDesc`, and an empty `text`) and the one BibTeX entry of
its `Accept: application/x-bibtex` variant (§5.6).
*/

pub use crate::document::{Article, Author, HeaderRecord};
pub use crate::tei::article::article_tei;
pub use crate::tei::options::{now_stamp, TeiOptions};

/// The whole TEI document of a header-only response (processHeaderDocument): [`article_tei`]
/// of an article without references.
pub fn to_tei(h: &HeaderRecord, opt: &TeiOptions) -> String {
    article_tei(
        &Article {
            header: h.clone(),
            back: crate::metadata::statements::header_back(h),
            ..Default::default()
        },
        opt,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::PageBox;
    use crate::models::affiliation::Affiliation;
    use crate::models::date::Date;
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
                    ..Default::default()
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

    /// The sample with boxes for its title, authors and first affiliation.
    fn traced_sample() -> HeaderRecord {
        use crate::layout::BBox;
        let b = |page, x, y, w| PageBox {
            page,
            bbox: BBox { x, y, w, h: 12.5 },
        };
        let mut h = sample();
        h.title_coords = vec![b(1, 72.0, 90.25, 300.0), b(1, 72.0, 104.0, 120.125)];
        h.authors[0].coords = vec![b(1, 80.0, 130.0, 64.5)];
        h.affiliation_coords = vec![vec![b(1, 80.0, 150.0, 200.0)]];
        h
    }

    /// `coords` on the main title (both places), each traced author's `persName` and each
    /// traced affiliation, after their other attributes, only for the requested elements; a
    /// request without coordinates writes the header as before.
    #[test]
    fn header_coords_on_title_pers_name_and_affiliation() {
        let opt = |names: &[&str]| TeiOptions {
            include_raw_affiliations: true,
            version: "0.1.0".into(),
            when: "2026-11-25T06:00+0000".into(),
            end_page: 2,
            coordinates: names.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        };
        let tei = to_tei(
            &traced_sample(),
            &opt(&["title", "persName", "affiliation"]),
        );
        let title = "<title level=\"a\" type=\"main\" coords=\"1,72.00,90.25,300.00,12.50;1,72.00,104.00,120.13,12.50\">Soil &amp; moisture feedbacks</title>";
        assert_eq!(tei.matches(title).count(), 2, "{tei}");
        assert!(tei.contains("<persName coords=\"1,80.00,130.00,64.50,12.50\"><forename type=\"first\">Ana</forename>"));
        assert!(
            tei.contains("<persName><forename type=\"first\">Bo</forename>"),
            "untraced"
        );
        assert!(tei.contains("<affiliation key=\"aff0\" coords=\"1,80.00,150.00,200.00,12.50\">"));
        assert!(tei.contains("<affiliation key=\"aff1\">"), "untraced");
        crate::corpus::layout::parse_tei(&tei).unwrap();
        crate::tei::golden::check("header-coords.tei.xml", &tei);

        let only_names = to_tei(&traced_sample(), &opt(&["persName"]));
        assert_eq!(only_names.matches(" coords=").count(), 1);
        assert_eq!(
            to_tei(&traced_sample(), &opt(&[])),
            to_tei(&sample(), &opt(&[]))
        );
    }

    /// The article with `s` in text field or attribute number `field` (of 30), and options
    /// that write every field.
    fn article_with(s: &str, field: usize) -> (Article, TeiOptions) {
        use crate::document::Reference;
        use crate::models::citation::Citation;
        let mut a = Article {
            header: sample(),
            references: vec![Reference {
                citation: Citation {
                    raw: "Ng B. Prior. J Ex 3, 2019.".into(),
                    title: Some("Prior".into()),
                    journal: Some("J Ex".into()),
                    authors: vec![Person {
                        forename: Some("B".into()),
                        surname: Some("Ng".into()),
                        ..Default::default()
                    }],
                    ..Default::default()
                },
                ..Default::default()
            }],
            ..Default::default()
        };
        let mut opt = TeiOptions {
            include_raw_affiliations: true,
            include_raw_copyrights: true,
            include_raw_citations: true,
            ..Default::default()
        };
        let (t, s) = (s.to_string(), Some(s.to_string()));
        let h = &mut a.header;
        let c = &mut a.references[0].citation;
        match field {
            0 => h.title = s,
            1 => h.publisher = s,
            2 => h.copyright = s,
            3 => h.date.as_mut().unwrap().raw = t,
            4 => h.authors[0].person.forename = s,
            5 => h.authors[1].person.surname = s,
            6 => h.authors[0].email = s,
            7 => h.affiliations[1].raw = t,
            8 => h.affiliations[0].institutions[0] = t,
            9 => h.affiliations[0].country_code = s,
            10 => h.affiliations[0].addr_lines = vec![t],
            11 => h.abstract_text = s,
            12 => h.keywords[1] = t,
            13 => h.doi = s,
            14 => h.journal = s,
            15 => h.meeting = s,
            16 => h.volume = s,
            17 => h.pages = Some((t, None)),
            18 => h.pages = Some(("1".into(), s)),
            19 => h.md5 = s,
            20 => h.submission = s,
            21 => opt.version = t,
            22 => opt.when = t,
            23 => c.title = s,
            24 => c.journal = s,
            25 => c.raw = t,
            26 => c.publisher = s,
            27 => c.web = s,
            28 => c.note = s,
            _ => c.authors[0].forename = s,
        }
        (a, opt)
    }

    proptest::proptest! {
        /// Any string in any text field or attribute of an article (header and references)
        /// gives well-formed XML in which it stands whole, minus the characters XML 1.0
        /// cannot carry; the same for a processCitation `biblStruct`.
        #[test]
        fn any_text_in_any_field_round_trips(s in proptest::prelude::any::<String>(), field in 0usize..30) {
            let kept: String = s.chars().filter(|c| crate::tei::writer::is_xml_char(*c)).collect();
            let (a, opt) = article_with(&s, field);
            let got = crate::tei::parsed::values(&article_tei(&a, &opt));
            proptest::prop_assert!(got.is_ok(), "{:?}", got);
            // Blank name parts are left out, by design.
            if !kept.trim().is_empty() {
                proptest::prop_assert!(got.unwrap().contains(&kept), "field {} lost {:?}", field, kept);
            }
            let c = &a.references[0].citation;
            let x = crate::tei::bibl_struct(c, crate::tei::BiblOptions { id: Some(&s), include_raw: true, depth: 0 });
            let got = crate::tei::parsed::values(&x);
            proptest::prop_assert!(got.is_ok(), "{:?}", got);
            proptest::prop_assert!(got.unwrap().contains(&kept));
        }
    }

    #[test]
    fn article_references_share_the_list_bibl_writer() {
        let (a, opt) = article_with("x", 0);
        let tei = article_tei(&a, &opt);
        assert!(tei.contains("\t<text>\n\t\t<back>\n\t\t\t<div type=\"references\">\n\t\t\t\t<listBibl>\n\t\t\t\t\t<biblStruct status=\"extracted\"  xml:id=\"b0\">\n"), "{tei}");
        assert!(tei.contains("includeRawCitations=true"));
        let none = Article {
            header: sample(),
            ..Default::default()
        };
        assert_eq!(article_tei(&none, &opt), to_tei(&none.header, &opt));
    }

    #[test]
    fn stamp_is_grobid_shaped() {
        let s = now_stamp();
        assert_eq!(s.len(), "2025-12-02T13:58+0000".len());
        assert!(s.ends_with("+0000"));
    }
}
