/*!
The article writer: one TEI document from an [`Article`], the `teiHeader` (title, authors,
affiliations, availability, funders, identifiers, abstract, keywords), the `facsimile` when
coordinates are asked for, and `text` (body and back matter through [`crate::tei::body`], or
only the references). Header-only, full-text and reference answers all come from it.
*/

use crate::document::{Article, HeaderRecord, PageBox};
use crate::models::date::Date;
use crate::tei::body::{
    abstract_paragraph, discarded_note, references, write_facsimile, write_text, Ctx,
};
use crate::tei::options::TeiOptions;
use crate::tei::writer::{coords, Slash, TeiWriter, TEI_NS};
use crate::tei::{write_affiliation_at, write_pers_name_at};

/// GROBID's start tag of the header document, line breaks and spaces inside the tag
/// included: quick-xml cannot write it, so it goes through the writer verbatim.
const TEI_START: &str = "TEI xml:space=\"preserve\" xmlns=\"http://www.tei-c.org/ns/1.0\" \n\
     xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" \n\
     xsi:schemaLocation=\"http://www.tei-c.org/ns/1.0 https://raw.githubusercontent.com/kermitt2/grobid/master/grobid-home/schemas/xsd/Grobid.xsd\"\n \
     xmlns:xlink=\"http://www.w3.org/1999/xlink\"";

const MAIN_TITLE: [(&str, &str); 2] = [("level", "a"), ("type", "main")];

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
