//! The TEI shapes GROBID's consumers read without checking: every figure's `head`, `label` and
//! `figDesc`, every table's `table`, generated ids on the header's elements, sentence
//! coordinates in the abstract, the discarded text, and a DOI broken across a line end.

use crate::common::{all_between, Server};
use crate::fulltext::NEEDED;

#[test]
fn figures_ids_sentence_coords_and_discarded_text_as_grobid_writes_them() {
    let Some(s) = Server::with_models(&NEEDED) else {
        return;
    };
    let fields = [
        ("generateIDs", "1"),
        ("segmentSentences", "1"),
        ("teiCoordinates", "s"),
        ("includeDiscardedText", "1"),
    ];
    let pdf = crate::fulltext_article::rich_article();
    let (status, _, xml) = s.post_pdf("/api/processFulltextDocument", pdf, &fields, None);
    assert_eq!(status, 200, "{xml}");
    crate::fulltext::well_formed(&xml).unwrap_or_else(|e| panic!("{e}: {xml}"));

    // Every figure and table: head, label, figDesc in that order; a table's `table`.
    let figures = all_between(&xml, "<figure ", "</figure>");
    assert!(figures.len() >= 2, "{xml}");
    for f in &figures {
        let at = |tag: &str| f.find(tag).unwrap_or_else(|| panic!("no {tag}: {f}"));
        assert!(
            at("<head") < at("<label") && at("<label") < at("<figDesc"),
            "{f}"
        );
        if f.contains("type=\"table\"") {
            assert!(at("<figDesc") < at("<table"), "{f}");
        }
    }

    // generateIDs: the main titles and each keyword term.
    let header = all_between(&xml, "<teiHeader", "</teiHeader>").concat();
    assert_eq!(
        header
            .matches("<title level=\"a\" type=\"main\" xml:id=\"_")
            .count(),
        2,
        "{header}"
    );
    let terms = all_between(&header, "<term", "</term>");
    assert!(!terms.is_empty(), "{header}");
    assert!(
        terms.iter().all(|t| t.starts_with(" xml:id=\"_")),
        "{terms:?}"
    );

    // Every sentence of the abstract has its coordinates on page 1.
    let abstract_ = all_between(&header, "<abstract>", "</abstract>").concat();
    let sentences = all_between(&abstract_, "<s ", ">");
    assert!(sentences.len() >= 2, "{abstract_}");
    for s in &sentences {
        assert!(s.contains(" coords=\"1,"), "{s}: {abstract_}");
    }
}

#[test]
fn a_doi_broken_at_a_line_end_comes_back_whole() {
    let Some(s) = Server::with_models(&crate::fulltext::NEEDED) else {
        return;
    };
    let pdf = crate::header::one_column()
        .text(
            72.0,
            760.0,
            "Times-Roman",
            8.0,
            "Citation: PLoS ONE 20(5): e0323994. https://doi.org/10.1371/journal.",
        )
        .text(72.0, 750.0, "Times-Roman", 8.0, "pone.0323994")
        .build();
    let (status, _, xml) = s.post_pdf("/api/processHeaderDocument", pdf, &[], None);
    assert_eq!(status, 200, "{xml}");
    assert!(
        xml.contains("<idno type=\"DOI\">10.1371/journal.pone.0323994</idno>"),
        "{xml}"
    );
}
