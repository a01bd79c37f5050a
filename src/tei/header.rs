/*!
The document header as Quire extracts it ([`HeaderRecord`]: title, authors with names, e-mails
and affiliations, abstract, keywords, identifiers, journal data) and its two renderings: the
TEI document `processHeaderDocument` answers (reference grobid-service.md §5.1: `teiHeader`
with `fileDesc`, `encodingDesc`, `profileDesc`, and an empty `text`) and the one BibTeX entry of
its `Accept: application/x-bibtex` variant (§5.6).
*/

use crate::document::PageBox;
pub use crate::document::{Article, Author, HeaderRecord};
use crate::models::date::Date;
use crate::tei::body::{
    abstract_paragraph, discarded_note, references, write_facsimile, write_text, Ctx,
};
use crate::tei::writer::{coords, Slash, TeiWriter, TEI_NS};
use crate::tei::{write_affiliation_at, write_pers_name_at};

/// What the request asked for, echoed in the TEI and honoured by the writer.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TeiOptions {
    pub include_raw_affiliations: bool,
    pub include_raw_copyrights: bool,
    /// Add `<note type="raw_reference">` to the article's references.
    pub include_raw_citations: bool,
    pub start_page: i64,
    pub end_page: i64,
    pub consolidate_header: u8,
    /// What was done for citations and funders (written in the parameters label).
    pub consolidate_citations: u8,
    pub consolidate_funders: u8,
    /// Which consolidation source answered, or why none did; written after the parameters
    /// (`, consolidation=embedded`) when consolidation was asked for.
    pub consolidation: Option<String>,
    /// Element names that get `coords` (`teiCoordinates`, grobid-service §5.4); any name
    /// adds the `facsimile`.
    pub coordinates: std::collections::BTreeSet<String>,
    /// Wrap paragraph-like content in `<s>` (`segmentSentences`), cut by `sentence_segmenter`.
    pub segment_sentences: bool,
    pub sentence_segmenter: crate::sentence::Segmenter,
    /// `generateIDs`: `xml:id` on heads, paragraphs, sentences, captions and notes' paragraphs.
    pub generate_ids: bool,
    /// `includeDiscardedText`: the text no model kept, as `fileDesc/notesStmt/note`.
    pub include_discarded_text: bool,
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

/// GROBID's start tag of the header document, line breaks and spaces inside the tag
/// included: quick-xml cannot write it, so it goes through the writer verbatim.
const TEI_START: &str = "TEI xml:space=\"preserve\" xmlns=\"http://www.tei-c.org/ns/1.0\" \n\
     xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" \n\
     xsi:schemaLocation=\"http://www.tei-c.org/ns/1.0 https://raw.githubusercontent.com/kermitt2/grobid/master/grobid-home/schemas/xsd/Grobid.xsd\"\n \
     xmlns:xlink=\"http://www.w3.org/1999/xlink\"";

const MAIN_TITLE: [(&str, &str); 2] = [("level", "a"), ("type", "main")];

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

/// The TEI document of an article: the `teiHeader` of processHeaderDocument, the `facsimile`
/// when coordinates are requested, and `text`. Without body and back matter, `text` holds only
/// the references in `back` (`<listBibl>` as processReferences writes it; an empty `text`
/// when there are none); with them, the full text of [`crate::tei::body`].
pub fn article_tei(a: &Article, opt: &TeiOptions) -> String {
    let mut w = TeiWriter::default();
    write_article(&mut w, a, opt);
    w.finish()
}

/// The `coords` value of `boxes` when `element` gets coordinates and there are boxes.
fn coords_of(opt: &TeiOptions, element: &str, boxes: &[PageBox]) -> Option<String> {
    (opt.coordinates.contains(element) && !boxes.is_empty()).then(|| coords(boxes))
}

fn affiliation_coords(h: &HeaderRecord, opt: &TeiOptions, k: usize) -> Option<String> {
    let boxes = h
        .affiliation_coords
        .get(k)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    coords_of(opt, "affiliation", boxes)
}

fn write_article(w: &mut TeiWriter, a: &Article, opt: &TeiOptions) {
    let h = &a.header;
    let mut ctx = Ctx::new(a, opt);
    w.declaration().newline();
    w.open_raw("TEI", TEI_START);
    let lang = h.language.as_deref().map(|l| ("xml:lang", l));
    w.open("teiHeader", lang.as_slice()).open("fileDesc", &[]);
    w.open("titleStmt", &[]);
    let title = h.title.as_deref().unwrap_or("");
    let title_coords = coords_of(opt, "title", &h.title_coords);
    // generateIDs: GROBID gives both main titles, the journal title, each keyword term and
    // the header's notes an id of their own.
    let title_id = ctx.id();
    let mut title_attrs = MAIN_TITLE.to_vec();
    title_attrs.extend(title_id.as_deref().map(|i| ("xml:id", i)));
    title_attrs.extend(title_coords.as_deref().map(|c| ("coords", c)));
    if title.is_empty() {
        w.line_empty("title", &title_attrs, Slash::Tight);
    } else {
        w.line("title", &title_attrs, title);
    }
    funders(w, &a.back.fundings);
    w.close("titleStmt");
    w.open("publicationStmt", &[]);
    match &h.publisher {
        Some(p) => w.line("publisher", &[], p),
        None => w.line_empty("publisher", &[], Slash::Tight),
    };
    availability(w, h, opt);
    if let Some(d) = &h.date {
        date(w, d);
    }
    w.close("publicationStmt");
    w.open("sourceDesc", &[]).open("biblStruct", &[]);
    w.open("analytic", &[]);
    let with_email = h.authors.iter().filter(|a| a.email.is_some()).count();
    let mut attached = vec![false; h.affiliations.len()];
    for a in &h.authors {
        let corresp = with_email == 1 && a.email.is_some();
        w.open("author", if corresp { &[("role", "corresp")] } else { &[] });
        // An author without a name part keeps its (blank) line, as before the writer moved.
        w.indent();
        let name_coords = coords_of(opt, "persName", &a.coords);
        write_pers_name_at(w, &a.person, false, name_coords.as_deref());
        w.newline();
        w.line_if("email", &[], a.email.as_deref());
        w.line_if("idno", &[("type", "ORCID")], a.orcid.as_deref());
        for &k in &a.affiliations {
            if let Some(af) = h.affiliations.get(k) {
                if let Some(x) = attached.get_mut(k) {
                    *x = true;
                }
                write_affiliation_at(
                    w,
                    af,
                    Some(&format!("aff{k}")),
                    opt.include_raw_affiliations,
                    affiliation_coords(h, opt, k).as_deref(),
                );
            }
        }
        w.close("author");
    }
    for (k, af) in h.affiliations.iter().enumerate() {
        if !attached[k] {
            w.open("author", &[]);
            write_affiliation_at(
                w,
                af,
                Some(&format!("aff{k}")),
                opt.include_raw_affiliations,
                affiliation_coords(h, opt, k).as_deref(),
            );
            w.close("author");
        }
    }
    if !title.is_empty() {
        let id = ctx.id();
        let mut attrs = MAIN_TITLE.to_vec();
        attrs.extend(id.as_deref().map(|i| ("xml:id", i)));
        attrs.extend(title_coords.as_deref().map(|c| ("coords", c)));
        w.line("title", &attrs, title);
    }
    w.close("analytic").open("monogr", &[]);
    if let Some(j) = h.journal.as_deref() {
        let id = ctx.id();
        let mut attrs = vec![("level", "j"), ("type", "main")];
        attrs.extend(id.as_deref().map(|i| ("xml:id", i)));
        w.line("title", &attrs, j);
    }
    w.line_if("meeting", &[], h.meeting.as_deref());
    w.open("imprint", &[]);
    w.line_if("publisher", &[], h.publisher.as_deref());
    w.line_if("biblScope", &[("unit", "volume")], h.volume.as_deref());
    w.line_if("biblScope", &[("unit", "issue")], h.issue.as_deref());
    if let Some((from, to)) = &h.pages {
        let mut attrs = vec![("unit", "page"), ("from", from.as_str())];
        if let Some(t) = to {
            attrs.push(("to", t));
        }
        w.line_empty("biblScope", &attrs, Slash::Tight);
    }
    match &h.date {
        Some(d) => date(w, d),
        None => {
            w.line_empty("date", &[], Slash::Tight);
        }
    }
    w.close("imprint").close("monogr");
    for (ty, v) in [("MD5", &h.md5), ("DOI", &h.doi), ("arXiv", &h.arxiv)] {
        if let Some(v) = v {
            w.line("idno", &[("type", ty)], v);
        }
    }
    if let Some(url) = &h.oa_url {
        w.line_empty(
            "ptr",
            &[("type", "open-access"), ("target", url)],
            Slash::Spaced,
        );
    }
    if let Some(n) = h.submission.as_deref() {
        let id = ctx.id();
        let mut attrs = vec![("type", "submission")];
        attrs.extend(id.as_deref().map(|i| ("xml:id", i)));
        w.line("note", &attrs, n);
    }
    w.close("biblStruct").close("sourceDesc");
    if opt.include_discarded_text && !h.discarded.is_empty() {
        w.open("notesStmt", &[]);
        for d in &h.discarded {
            w.indent();
            discarded_note(w, &mut ctx, d);
            w.newline();
        }
        w.close("notesStmt");
    }
    w.close("fileDesc");
    w.open("encodingDesc", &[]).open("appInfo", &[]);
    w.open(
        "application",
        &[
            ("version", &opt.version),
            ("ident", "Quire"),
            ("when", &opt.when),
        ],
    );
    // A constant, apostrophe unescaped as before the writer moved.
    w.indent()
        .start("desc", &[])
        .verbatim("Quire - a Rust service extracting structured data from scholarly documents, speaking GROBID's interface")
        .end("desc")
        .newline();
    // Java's `List.toString` of the requested coordinates, or `null`.
    let coordinates = if opt.coordinates.is_empty() {
        "null".to_string()
    } else {
        let names: Vec<&str> = opt.coordinates.iter().map(String::as_str).collect();
        format!("[{}]", names.join(", "))
    };
    let parameters = format!(
        "startPage={}, endPage={}, consolidateCitations={}, consolidateHeader={}, consolidateFunders={}, includeRawAffiliations={}, includeRawCitations={}, includeRawCopyrights={}, generateTeiIds={}, generateTeiCoordinates={coordinates}, flavor=null",
        opt.start_page,
        opt.end_page,
        opt.consolidate_citations,
        opt.consolidate_header,
        opt.consolidate_funders,
        opt.include_raw_affiliations,
        opt.include_raw_citations,
        opt.include_raw_copyrights,
        opt.generate_ids,
    );
    let parameters = match &opt.consolidation {
        Some(c) => format!("{parameters}, consolidation={c}"),
        None => parameters,
    };
    w.line("label", &[("type", "parameters")], &parameters);
    w.close("application")
        .close("appInfo")
        .close("encodingDesc");
    w.open("profileDesc", &[]);
    if !h.keywords.is_empty() {
        w.open("textClass", &[]).open("keywords", &[]);
        for k in &h.keywords {
            let id = ctx.id();
            let attrs: Vec<(&str, &str)> =
                id.as_deref().map(|i| ("xml:id", i)).into_iter().collect();
            w.line("term", &attrs, k);
        }
        w.close("keywords").close("textClass");
    }
    match &h.abstract_text {
        Some(a) if !a.is_empty() => {
            // GROBID writes the abstract's `div` at column 0, with the namespace.
            // As GROBID: `xml:lang` where the abstract's language is not the document's.
            let lang = h
                .abstract_lang
                .as_deref()
                .filter(|l| Some(*l) != h.language.as_deref())
                .map(|l| ("xml:lang", l));
            w.open("abstract", lang.as_slice());
            w.start("div", &[("xmlns", TEI_NS)]);
            abstract_paragraph(w, &mut ctx, a, &h.abstract_tokens);
            w.end("div").newline();
            w.close("abstract");
        }
        _ => {
            w.line_empty("abstract", &[], Slash::Tight);
        }
    }
    // The other abstracts of a multilingual front page, each with its own language.
    for other in h.other_abstracts.iter().filter(|o| !o.text.is_empty()) {
        let lang = other
            .lang
            .as_deref()
            .filter(|l| Some(*l) != h.language.as_deref())
            .map(|l| ("xml:lang", l));
        w.open("abstract", lang.as_slice());
        w.start("div", &[("xmlns", TEI_NS)]);
        abstract_paragraph(w, &mut ctx, &other.text, &[]);
        w.end("div").newline();
        w.close("abstract");
    }
    w.close("profileDesc").close("teiHeader");
    write_facsimile(w, &a.pages, opt);
    if a.body.is_empty() && a.back.is_empty() && a.references.is_empty() {
        let lang = h.language.as_deref().map(|l| ("xml:lang", l));
        w.open("text", lang.as_slice());
        w.close("text");
    } else if a.body.is_empty() && a.back.is_empty() {
        w.open("text", &[]);
        if !a.references.is_empty() {
            w.open("back", &[]);
            references(w, &ctx, &a.references);
            w.close("back");
        }
        w.close("text");
    } else {
        write_text(w, &mut ctx, a);
    }
    w.close("TEI");
}

/// `<availability>` of the `publicationStmt`, as GROBID writes it: with a licence, `status=
/// "restricted"` and the licence's name (`CC-BY`, `copyright`), a Creative Commons licence with
/// its deed as `target` (Quire's addition); `resp` names the copyright holder (`authors`,
/// `publisher`) when known; else `status="unknown"` and an empty `licence`. The raw statement
/// follows as `<p type="raw">` with `includeRawCopyrights`.
fn availability(w: &mut TeiWriter, h: &HeaderRecord, opt: &TeiOptions) {
    let lic = h.licence.as_ref();
    let raw = lic
        .and_then(|l| l.raw.as_deref())
        .or(h.copyright.as_deref())
        .filter(|_| opt.include_raw_copyrights);
    let name = lic.and_then(crate::metadata::licence::name);
    let target = lic.and_then(crate::metadata::licence::target);
    let holder = lic.and_then(|l| l.holder.as_deref());
    if name.is_none() && holder.is_none() && raw.is_none() {
        w.indent()
            .start("availability", &[("status", "unknown")])
            .empty("licence", &[], Slash::Tight)
            .end("availability")
            .newline();
        return;
    }
    let mut attrs = Vec::new();
    if let Some(r) = holder {
        attrs.push(("resp", r));
    }
    attrs.push((
        "status",
        if name.is_some() {
            "restricted"
        } else {
            "unknown"
        },
    ));
    w.open("availability", &attrs);
    match name {
        Some(n) => {
            let t: Vec<(&str, &str)> = target
                .as_deref()
                .map(|t| ("target", t))
                .into_iter()
                .collect();
            w.line("licence", &t, &n);
        }
        None => {
            w.line_empty("licence", &[], Slash::Tight);
        }
    }
    if let Some(c) = raw {
        w.line("p", &[("type", "raw")], c);
    }
    w.close("availability");
}

/// One `<funder ref="#funding_N …">` per distinct funder name (its fundings as targets), with
/// its `orgName type="full"`, in the `titleStmt` (grobid-service §5.1); a funder found in the
/// Funder Registry (`consolidateFunders`) adds the printed acronym as `orgName
/// type="abbreviated"` and its DOI as `idno type="DOI" subtype="crossref"`, as GROBID does.
fn funders(w: &mut TeiWriter, fundings: &[crate::document::Funding]) {
    let mut named: Vec<(&crate::document::Funding, Vec<String>)> = Vec::new();
    for f in fundings {
        let Some(name) = f.funder.as_deref() else {
            continue;
        };
        let target = format!("#{}", f.id);
        let same = |g: &crate::document::Funding| {
            g.funder
                .as_deref()
                .is_some_and(|n| n.eq_ignore_ascii_case(name))
        };
        match named.iter_mut().find(|(g, _)| same(g)) {
            Some((_, targets)) => targets.push(target),
            None => named.push((f, vec![target])),
        }
    }
    for (f, targets) in named {
        let refs = targets.join(" ");
        w.indent();
        w.start("funder", &[("ref", refs.as_str())]);
        w.leaf(
            "orgName",
            &[("type", "full")],
            f.funder.as_deref().unwrap_or(""),
        );
        if let Some(a) = &f.funder_abbreviation {
            w.leaf("orgName", &[("type", "abbreviated")], a);
        }
        if let Some(doi) = &f.funder_doi {
            w.leaf("idno", &[("type", "DOI"), ("subtype", "crossref")], doi);
        }
        w.end("funder").newline();
    }
}

/// `<date type="published" when="…">raw</date>` on its own line.
fn date(w: &mut TeiWriter, d: &Date) {
    let when = d.when();
    let mut attrs = vec![("type", "published")];
    if let Some(when) = &when {
        attrs.push(("when", when));
    }
    w.line("date", &attrs, &d.raw);
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
