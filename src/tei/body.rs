/*!
The full text of an article as TEI (reference grobid-service.md §5.2-§5.4): `text` with its
`body` (sections, figures and tables, notes) and `back` (acknowledgement, funding,
availability, annex, references), the `facsimile`, and what the request's options add to
them: `coords` ([`TeiOptions::coordinates`]), sentences (`s`, [`TeiOptions::segment_sentences`])
and generated ids ([`TeiOptions::generate_ids`]).

- Layout is GROBID's: `body`, `back` and the back matter's wrapping `div`s are indented blocks;
  each section, figure and note is one compact line at column 0 carrying the TEI namespace, as
  GROBID's XOM-built elements are.
- Text comes from [`RichText`]: callouts become `ref`s by their byte ranges, sentences are cut
  around them ([`crate::sentence`]), and `coords` are the token boxes of a range merged into one
  box per line fragment ([`line_boxes`]). Ranges that do not fit the text (past its end, inside
  a character, overlapping an earlier callout) are clamped or dropped, so any record writes
  well-formed XML and every character of its text.
- Generated ids are `_` and seven letters or digits, as GROBID's, but drawn from a stream seeded
  by the document itself (`IdGen`): the same document gets the same ids on every call, so
  outputs can be compared and tested (GROBID's are random on each call).
*/

use std::collections::HashSet;
use std::ops::Range;

use crate::coords::line_boxes;
use crate::document::{
    Article, Body, BodyBlock, Callout, CalloutKind, Div, Figure, Note, PageBox, Reference,
    RichText, TokenBox,
};
use crate::sentence::Splitter;
use crate::tei::options::TeiOptions;
use crate::tei::write_list_bibl;
use crate::tei::writer::{coords, Slash, TeiWriter, TEI_NS};

/// What writing one document needs besides the record: the options, the sentence splitter
/// (trained on the document's texts) and the id generator.
pub(crate) struct Ctx<'a> {
    opt: &'a TeiOptions,
    splitter: Option<Splitter>,
    ids: IdGen,
}

impl<'a> Ctx<'a> {
    pub(crate) fn new(a: &Article, opt: &'a TeiOptions) -> Self {
        let splitter = opt
            .segment_sentences
            .then(|| Splitter::trained(opt.sentence_segmenter, texts(a)));
        let mut ids = IdGen::new(a);
        for n in &a.body.notes {
            ids.taken.insert(n.id.clone());
        }
        Self { opt, splitter, ids }
    }

    /// Whether `element` gets `coords`; `s` only with sentences.
    fn coords_on(&self, element: &str) -> bool {
        self.opt.coordinates.contains(element) && (element != "s" || self.splitter.is_some())
    }

    /// A generated `xml:id` when the request asked for them.
    pub(crate) fn id(&mut self) -> Option<String> {
        self.opt.generate_ids.then(|| self.ids.next())
    }
}

/// Every text of the document a sentence splitter learns from: the abstract, paragraphs,
/// list items, captions and notes.
fn texts(a: &Article) -> impl Iterator<Item = &str> {
    let back = a.back.sections().flat_map(|(_, divs)| divs.iter());
    let divs = a.body.divs.iter().chain(back);
    let blocks = divs.flat_map(|d| d.blocks.iter()).flat_map(|b| match b {
        BodyBlock::Paragraph(t) => std::slice::from_ref(t),
        BodyBlock::List(items) => items.as_slice(),
        BodyBlock::Formula(_) => &[],
    });
    let captions = a.body.figures.iter().filter_map(|f| f.desc.as_ref());
    let notes = a.body.notes.iter().flat_map(|n| n.paragraphs.iter());
    a.header
        .abstract_text
        .as_deref()
        .into_iter()
        .chain(blocks.chain(captions).chain(notes).map(|t| t.text.as_str()))
}

// ---------------------------------------------------------------------------------------------
// Generated ids

/// GROBID-shaped ids (`_` and seven characters of `[0-9A-Za-z]`), from a SplitMix64 stream
/// seeded by the document's MD5 (or, without one, its title and texts), skipping any id
/// already given out or held by a note.
pub(crate) struct IdGen {
    state: u64,
    taken: HashSet<String>,
}

const ID_ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

impl IdGen {
    fn new(a: &Article) -> Self {
        // FNV-1a over the document's identity.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut feed = |s: &str| {
            for b in s.bytes().chain([0]) {
                h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
            }
        };
        match &a.header.md5 {
            Some(md5) => feed(md5),
            None => {
                feed(a.header.title.as_deref().unwrap_or(""));
                texts(a).for_each(&mut feed);
            }
        }
        Self {
            state: h,
            taken: HashSet::new(),
        }
    }

    fn next(&mut self) -> String {
        loop {
            self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            let mut id = String::with_capacity(8);
            id.push('_');
            for _ in 0..7 {
                id.push(char::from(ID_ALPHABET[(z % 62) as usize]));
                z /= 62;
            }
            if self.taken.insert(id.clone()) {
                return id;
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Coordinates

/// The tokens of `rt` that overlap `range`.
pub(crate) fn tokens_in<'t>(
    rt: &'t RichText,
    range: &Range<usize>,
) -> impl Iterator<Item = &'t TokenBox> {
    let range = range.clone();
    rt.tokens
        .iter()
        .filter(move |t| t.range.start < range.end && t.range.end > range.start)
}

/// The line boxes of `range` of `rt`, when `element` gets coordinates and the range has
/// tokens.
fn range_boxes(
    ctx: &Ctx<'_>,
    element: &'static str,
    rt: &RichText,
    range: &Range<usize>,
) -> Option<Vec<PageBox>> {
    if !ctx.coords_on(element) {
        return None;
    }
    let boxes = line_boxes(tokens_in(rt, range));
    (!boxes.is_empty()).then_some(boxes)
}

/// `coords` of `range` of `rt` as an attribute ([`range_boxes`]).
fn range_coords(
    ctx: &Ctx<'_>,
    element: &'static str,
    rt: &RichText,
    range: &Range<usize>,
) -> Option<(&'static str, String)> {
    range_boxes(ctx, element, rt, range).map(|boxes| ("coords", coords(&boxes)))
}

/// `coords` of one box around `rt[range]` on its first page, as GROBID writes a formula's
/// (`getCoordsStringForOneBox`; consumers read it as one box of five numbers).
fn one_box_coords(
    ctx: &Ctx<'_>,
    element: &'static str,
    rt: &RichText,
    range: &Range<usize>,
) -> Option<(&'static str, String)> {
    let boxes = range_boxes(ctx, element, rt, range)?;
    let first = boxes[0];
    let one = boxes
        .iter()
        .filter(|b| b.page == first.page)
        .fold(first, |acc, b| PageBox {
            page: acc.page,
            bbox: acc.bbox.union(&b.bbox),
        });
    Some(("coords", coords(&[one])))
}

/// The `facsimile` (§5.4): one `surface` per page, written when coordinates are requested
/// and the page sizes are known.
pub(crate) fn write_facsimile(w: &mut TeiWriter, pages: &[(u32, f32, f32)], opt: &TeiOptions) {
    if opt.coordinates.is_empty() || pages.is_empty() {
        return;
    }
    w.open("facsimile", &[]);
    for (number, width, height) in pages {
        let n = number.to_string();
        let (lrx, lry) = (java_float(*width), java_float(*height));
        let attrs = [
            ("n", n.as_str()),
            ("ulx", "0.0"),
            ("uly", "0.0"),
            ("lrx", &lrx),
            ("lry", &lry),
        ];
        w.line_empty("surface", &attrs, Slash::Tight);
    }
    w.close("facsimile");
}

/// A float as Java's `Float.toString` writes page sizes (`595.276`, `612.0`).
fn java_float(v: f32) -> String {
    format!("{v:?}")
}

// ---------------------------------------------------------------------------------------------
// Text with callouts and sentences

/// Attributes built as owned strings, borrowed for the writer.
type Attrs = Vec<(&'static str, String)>;

fn borrow(attrs: &Attrs) -> Vec<(&str, &str)> {
    attrs.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

/// A callout as written: its range in the text, its type and the ids it points at.
pub(crate) type Written<'a> = (Range<usize>, CalloutKind, Vec<&'a str>);

/// The callouts of `rt` that fit its text: clamped to it, widened to character boundaries,
/// sorted, those overlapping an earlier one dropped. An empty callout (a number a range such
/// as `[2-5]` implies without printing it) adds its target to the nearest written callout of
/// its type before it (else after it), so `2-5` points at all four references.
pub(crate) fn callouts(rt: &RichText) -> Vec<Written<'_>> {
    let text = &rt.text;
    let floor = |mut i: usize| {
        i = i.min(text.len());
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let ceil = |mut i: usize| {
        i = i.min(text.len());
        while !text.is_char_boundary(i) {
            i += 1;
        }
        i
    };
    let mut all: Vec<(Range<usize>, &Callout)> = rt
        .refs
        .iter()
        .map(|c| (floor(c.range.start)..ceil(c.range.end), c))
        .collect();
    all.sort_by_key(|(r, _)| (r.start, r.end));
    let (mut out, empty): (Vec<Written<'_>>, Vec<(Range<usize>, &Callout)>) = {
        let mut out: Vec<Written<'_>> = Vec::new();
        let mut empty = Vec::new();
        let mut end = 0;
        for (r, c) in all {
            if r.start >= r.end {
                empty.push((r, c));
            } else if r.start >= end {
                end = r.end;
                out.push((r, c.kind, c.target.iter().map(String::as_str).collect()));
            }
        }
        (out, empty)
    };
    for (r, c) in empty {
        let Some(t) = c.target.as_deref() else {
            continue;
        };
        let before = out
            .iter()
            .rposition(|(w, k, _)| *k == c.kind && w.end <= r.start);
        let after = || {
            out.iter()
                .position(|(w, k, _)| *k == c.kind && w.start >= r.start)
        };
        if let Some(i) = before.or_else(after) {
            if !out[i].2.contains(&t) {
                out[i].2.push(t);
            }
        }
    }
    out
}

/// `range` of `rt`'s text, its callouts (those inside `range`) as `ref`s.
fn inline(
    w: &mut TeiWriter,
    ctx: &Ctx<'_>,
    rt: &RichText,
    refs: &[Written<'_>],
    range: Range<usize>,
) {
    let mut at = range.start;
    for (r, kind, targets) in refs
        .iter()
        .filter(|(r, _, _)| r.start >= range.start && r.end <= range.end)
    {
        w.text(&rt.text[at..r.start]);
        let mut attrs: Attrs = vec![("type", kind.as_str().to_string())];
        if !targets.is_empty() {
            let t: Vec<String> = targets.iter().map(|t| format!("#{t}")).collect();
            attrs.push(("target", t.join(" ")));
        }
        attrs.extend(range_coords(ctx, "ref", rt, r));
        w.leaf("ref", &borrow(&attrs), &rt.text[r.clone()]);
        at = r.end;
    }
    w.text(&rt.text[at..range.end]);
}

/// The whole text of `rt` with its `ref`s, no sentences (heads, formulas, list items).
fn rich(w: &mut TeiWriter, ctx: &Ctx<'_>, rt: &RichText) {
    let refs = callouts(rt);
    inline(w, ctx, rt, &refs, 0..rt.text.len());
}

/// The content of a paragraph-like element: with sentences, one `s` per sentence (the white
/// space between them kept between the `s` elements, a callout never cut), else the text
/// with its `ref`s.
fn sentences(w: &mut TeiWriter, ctx: &mut Ctx<'_>, rt: &RichText) {
    let refs = callouts(rt);
    let protected: Vec<Range<usize>> = refs.iter().map(|(r, _, _)| r.clone()).collect();
    let Some(spans) = ctx.splitter.as_ref().map(|s| s.split(&rt.text, &protected)) else {
        inline(w, ctx, rt, &refs, 0..rt.text.len());
        return;
    };
    let mut at = 0;
    for s in spans {
        inline(w, ctx, rt, &refs, at..s.start);
        let mut attrs: Attrs = ctx.id().map(|id| ("xml:id", id)).into_iter().collect();
        attrs.extend(range_coords(ctx, "s", rt, &s));
        w.start("s", &borrow(&attrs));
        inline(w, ctx, rt, &refs, s.clone());
        w.end("s");
        at = s.end;
    }
    inline(w, ctx, rt, &refs, at..rt.text.len());
}

/// `<p>` with its generated id and coordinates, its content cut into sentences when asked.
fn paragraph(w: &mut TeiWriter, ctx: &mut Ctx<'_>, rt: &RichText) {
    let mut attrs: Attrs = ctx.id().map(|id| ("xml:id", id)).into_iter().collect();
    attrs.extend(range_coords(ctx, "p", rt, &(0..rt.text.len())));
    w.start("p", &borrow(&attrs));
    sentences(w, ctx, rt);
    w.end("p");
}

/// The abstract's paragraph (no callouts), in sentences when asked; `tokens` (where its
/// words are printed) give its `p` and `s` coordinates.
pub(crate) fn abstract_paragraph(
    w: &mut TeiWriter,
    ctx: &mut Ctx<'_>,
    text: &str,
    tokens: &[TokenBox],
) {
    let rt = RichText {
        text: text.to_string(),
        tokens: tokens.to_vec(),
        ..Default::default()
    };
    paragraph(w, ctx, &rt);
}

/// A piece of discarded text (`includeDiscardedText`) as GROBID writes it:
/// `<note type="other" place="MODEL"><p>text</p></note>`, ids and coordinates as asked.
pub(crate) fn discarded_note(w: &mut TeiWriter, ctx: &mut Ctx<'_>, d: &crate::document::Discarded) {
    let mut attrs: Attrs = vec![("type", "other".into()), ("place", d.place.clone())];
    attrs.extend(ctx.id().map(|id| ("xml:id", id)));
    if ctx.coords_on("note") && !d.boxes.is_empty() {
        attrs.push(("coords", coords(&d.boxes)));
    }
    w.start("note", &borrow(&attrs));
    let rt = RichText {
        text: d.text.clone(),
        ..Default::default()
    };
    paragraph(w, ctx, &rt);
    w.end("note");
}

// ---------------------------------------------------------------------------------------------
// Body and back

/// One section: `<div xmlns=…>` with its `head` and blocks, compact at column 0.
fn div(w: &mut TeiWriter, ctx: &mut Ctx<'_>, d: &Div) {
    w.start("div", &[("xmlns", TEI_NS)]);
    if let Some(h) = &d.head {
        let mut attrs: Attrs = h.n.iter().map(|n| ("n", n.clone())).collect();
        attrs.extend(ctx.id().map(|id| ("xml:id", id)));
        attrs.extend(range_coords(ctx, "head", &h.text, &(0..h.text.text.len())));
        w.start("head", &borrow(&attrs));
        rich(w, ctx, &h.text);
        w.end("head");
    }
    for b in &d.blocks {
        match b {
            BodyBlock::Paragraph(p) => paragraph(w, ctx, p),
            BodyBlock::List(items) => {
                w.start("list", &[]);
                for item in items {
                    w.start("item", &[]);
                    rich(w, ctx, item);
                    w.end("item");
                }
                w.end("list");
            }
            BodyBlock::Formula(f) => {
                let mut attrs: Attrs = vec![("xml:id", f.id.clone())];
                attrs.extend(one_box_coords(
                    ctx,
                    "formula",
                    &f.text,
                    &(0..f.text.text.len()),
                ));
                w.start("formula", &borrow(&attrs));
                rich(w, ctx, &f.text);
                if let Some(l) = &f.label {
                    w.leaf("label", &[], l);
                }
                w.end("formula");
            }
        }
    }
    w.end("div");
}

/// A figure or table, compact at column 0, in GROBID's shape whatever was found: `head`,
/// `label` and `figDesc` always (empty when there is nothing), then a figure's left-over
/// text as `note type="other"` and its `graphic`s, or a table's `table` (empty without rows)
/// and its `note`. Consumers of GROBID's TEI read `figure/label` and `figure/figDesc`
/// without checking for them.
fn figure(w: &mut TeiWriter, ctx: &mut Ctx<'_>, f: &Figure) {
    let mut attrs: Attrs = vec![("xmlns", TEI_NS.to_string())];
    if f.is_table {
        attrs.push(("type", "table".into()));
    }
    attrs.push(("xml:id", f.id.clone()));
    if ctx.coords_on("figure") && !f.boxes.is_empty() {
        attrs.push(("coords", coords(&f.boxes)));
    }
    w.start("figure", &borrow(&attrs));
    leaf_or_empty(w, "head", &[], f.head.as_deref());
    leaf_or_empty(w, "label", &[], f.label.as_deref());
    let desc_attrs: Attrs = ctx.id().map(|id| ("xml:id", id)).into_iter().collect();
    match f.desc.as_ref().filter(|d| !d.text.trim().is_empty()) {
        Some(d) => {
            w.start("figDesc", &borrow(&desc_attrs));
            if ctx.splitter.is_some() {
                // GROBID's sentence-segmented caption: `figDesc/div/p/s`.
                w.start("div", &[]);
                paragraph(w, ctx, d);
                w.end("div");
            } else {
                rich(w, ctx, d);
            }
            w.end("figDesc");
        }
        None => open_close(w, "figDesc", &borrow(&desc_attrs)),
    }
    if f.is_table {
        if f.rows.is_empty() {
            open_close(w, "table", &[]);
        } else {
            w.start("table", &[]);
            for row in &f.rows {
                w.start("row", &[]);
                for c in row {
                    let cols = c.cols.to_string();
                    let attrs: &[(&str, &str)] = if c.cols > 1 { &[("cols", &cols)] } else { &[] };
                    w.leaf("cell", attrs, &c.text);
                }
                w.end("row");
            }
            w.end("table");
        }
        if let Some(n) = f.note.as_ref().filter(|n| !n.text.trim().is_empty()) {
            let attrs: Attrs = ctx.id().map(|id| ("xml:id", id)).into_iter().collect();
            w.start("note", &borrow(&attrs));
            rich(w, ctx, n);
            w.end("note");
        }
    } else {
        // The text printed inside the figure, which is neither its caption nor a graphic.
        if let Some(n) = f.note.as_ref().filter(|n| !n.text.trim().is_empty()) {
            let mut attrs: Attrs = vec![("type", "other".into())];
            attrs.extend(ctx.id().map(|id| ("xml:id", id)));
            w.start("note", &borrow(&attrs));
            rich(w, ctx, n);
            w.end("note");
        }
        for g in &f.graphics {
            let mut attrs: Attrs = g.url.iter().map(|u| ("url", u.clone())).collect();
            attrs.push(("coords", coords(std::slice::from_ref(&g.at))));
            let ty = if g.bitmap { "bitmap" } else { "vector" };
            attrs.push(("type", ty.into()));
            w.empty("graphic", &borrow(&attrs), Slash::Tight);
        }
    }
    w.end("figure");
}

/// `<name>text</name>`, or `<name/>` without text.
fn leaf_or_empty(w: &mut TeiWriter, name: &str, attrs: &[(&str, &str)], text: Option<&str>) {
    match text.filter(|t| !t.trim().is_empty()) {
        Some(t) => {
            w.leaf(name, attrs, t);
        }
        None => open_close(w, name, attrs),
    }
}

/// An empty figure child as `<name></name>`, never `<name/>`: consumers that read TEI with an
/// HTML parser (scipdf-parser's BeautifulSoup "lxml") take a self-closed `<head/>` or
/// `<table/>` for an HTML element left open, which swallows or empties the figure around it.
fn open_close(w: &mut TeiWriter, name: &str, attrs: &[(&str, &str)]) {
    w.start(name, attrs);
    w.end(name);
}

/// A footnote or margin note, compact at column 0.
fn note(w: &mut TeiWriter, ctx: &mut Ctx<'_>, n: &Note) {
    let place = if n.margin { "margin" } else { "foot" };
    let mut attrs: Attrs = vec![("xmlns", TEI_NS.into()), ("place", place.into())];
    attrs.extend(n.n.iter().map(|n| ("n", n.clone())));
    attrs.push(("xml:id", n.id.clone()));
    if ctx.coords_on("note") {
        let boxes: Vec<PageBox> = n
            .paragraphs
            .iter()
            .flat_map(|p| line_boxes(&p.tokens))
            .collect();
        if !boxes.is_empty() {
            attrs.push(("coords", coords(&boxes)));
        }
    }
    w.start("note", &borrow(&attrs));
    for p in &n.paragraphs {
        paragraph(w, ctx, p);
    }
    w.end("note");
}

/// `<body>`: sections, then figures and tables, then notes; `<body/>` when empty.
fn body(w: &mut TeiWriter, ctx: &mut Ctx<'_>, b: &Body) {
    if b.is_empty() {
        w.line_empty("body", &[], Slash::Tight);
        return;
    }
    w.open("body", &[]);
    for d in &b.divs {
        div(w, ctx, d);
        w.newline();
    }
    for f in &b.figures {
        figure(w, ctx, f);
        w.newline();
    }
    for n in &b.notes {
        note(w, ctx, n);
        w.newline();
    }
    w.close("body");
}

/// `<back>`: the back matter in GROBID's order, then the references (`listBibl`, with
/// `biblStruct` coordinates when asked). Always written, as GROBID's full text does: without
/// references the `div type="references"` holds an empty `<listBibl/>` (consumers look the
/// list up and fail without it).
fn back(w: &mut TeiWriter, ctx: &mut Ctx<'_>, a: &Article) {
    w.open("back", &[]);
    for (ty, divs) in a.back.sections() {
        if !divs.is_empty() {
            w.open("div", &[("type", ty)]);
            for d in divs {
                div(w, ctx, d);
                w.newline();
            }
            w.close("div");
        }
        if ty == "funding" {
            list_org(w, &a.back.fundings);
        }
    }
    references(w, ctx, &a.references);
    w.close("back");
}

/// `<listOrg type="funding">`: one `org type="funding"` per funding, its grant numbers as
/// `idno type="grant-number"`, its grant, programme and project names as `orgName`s (the
/// funder itself is written in the `titleStmt`, pointing here); nothing without fundings.
fn list_org(w: &mut TeiWriter, fundings: &[crate::document::Funding]) {
    if fundings.is_empty() {
        return;
    }
    w.open("listOrg", &[("type", "funding")]);
    for f in fundings {
        w.indent();
        w.start("org", &[("type", "funding"), ("xml:id", f.id.as_str())]);
        for g in &f.grant_numbers {
            w.leaf("idno", &[("type", "grant-number")], g);
        }
        for (ty, v) in [
            ("grant", &f.grant_name),
            ("program", &f.program),
            ("project", &f.project),
        ] {
            if let Some(v) = v {
                w.leaf("orgName", &[("type", ty)], v);
            }
        }
        w.end("org").newline();
    }
    w.close("listOrg");
}

/// `<div type="references">` with the `listBibl` (`<listBibl/>` without references),
/// `biblStruct` coordinates when asked.
pub(crate) fn references(w: &mut TeiWriter, ctx: &Ctx<'_>, references: &[Reference]) {
    let with_coords = ctx.coords_on("biblStruct");
    let refs = references.iter().map(|r| {
        let c = (with_coords && !r.boxes.is_empty()).then(|| coords(&r.boxes));
        (&r.citation, c)
    });
    w.open("div", &[("type", "references")]);
    write_list_bibl(w, refs, ctx.opt.include_raw_citations);
    w.close("div");
}

/// The full text's `<text xml:lang="…">` (the document's language; `en` when it was not
/// detected, as Quire wrote before detecting it) with `body` and `back`, one tab deep.
pub(crate) fn write_text(w: &mut TeiWriter, ctx: &mut Ctx<'_>, a: &Article) {
    let lang = a.header.language.as_deref().unwrap_or("en");
    w.open("text", &[("xml:lang", lang)]);
    body(w, ctx, &a.body);
    back(w, ctx, a);
    w.close("text");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::{Cell, Formula, Graphic, Head, HeaderRecord, Reference};
    use crate::layout::BBox;
    use crate::models::citation::Citation;
    use crate::models::name::Person;
    use proptest::prelude::*;

    /// Text with callouts marked `{kind:target|text}` (`target` `-` for none); each word gets a
    /// token box on page `page`, 40 characters a line.
    fn rt(marked: &str, page: u32) -> RichText {
        let mut text = String::new();
        let mut refs = Vec::new();
        let mut rest = marked;
        while let Some(open) = rest.find('{') {
            text.push_str(&rest[..open]);
            let close = rest[open..].find('}').unwrap() + open;
            let (head, shown) = rest[open + 1..close].split_once('|').unwrap();
            let (kind, target) = head.split_once(':').unwrap();
            let kind = match kind {
                "bibr" => CalloutKind::Bibr,
                "figure" => CalloutKind::Figure,
                "table" => CalloutKind::Table,
                "formula" => CalloutKind::Formula,
                _ => CalloutKind::Foot,
            };
            let start = text.len();
            text.push_str(shown);
            refs.push(Callout {
                kind,
                range: start..text.len(),
                target: (target != "-").then(|| target.to_string()),
            });
            rest = &rest[close + 1..];
        }
        text.push_str(rest);
        let mut tokens = Vec::new();
        let mut at = 0;
        for word in text.split(' ') {
            let (line, col) = (at / 40, at % 40);
            tokens.push(TokenBox {
                range: at..at + word.len(),
                page,
                bbox: BBox {
                    x: 72.0 + 5.0 * col as f32,
                    y: 100.0 + 12.0 * line as f32,
                    w: 5.0 * word.len() as f32,
                    h: 10.0,
                },
            });
            at += word.len() + 1;
        }
        RichText { text, refs, tokens }
    }

    #[test]
    fn numbers_a_range_implies_join_the_target_of_the_callout_before_them() {
        // `[2-5]`: 3 and 4 are printed nowhere; their callouts are empty.
        let t = rt(
            "see [{bibr:b1|2}{bibr:b2|}{bibr:b3|}-{bibr:b4|5}] and {bibr:-|}{figure:fig_0|Fig. 1}",
            1,
        );
        let got: Vec<(&str, Vec<&str>)> = callouts(&t)
            .into_iter()
            .map(|(r, _, targets)| (&t.text[r], targets))
            .collect();
        assert_eq!(
            got,
            vec![
                ("2", vec!["b1", "b2", "b3"]),
                ("5", vec!["b4"]),
                ("Fig. 1", vec!["fig_0"]),
            ]
        );
    }

    fn head(n: Option<&str>, text: &str) -> Option<Head> {
        Some(Head {
            n: n.map(String::from),
            text: rt(text, 1),
        })
    }

    fn section(title: &str, p: &str) -> Vec<Div> {
        vec![Div {
            head: head(None, title),
            blocks: vec![BodyBlock::Paragraph(rt(p, 3))],
        }]
    }

    fn person(f: &str, s: &str) -> Person {
        Person {
            forename: Some(f.into()),
            surname: Some(s.into()),
            ..Person::default()
        }
    }

    /// An article with every structure of §5.2 and §5.3.
    fn article() -> Article {
        let intro = rt(
            "Earlier work {bibr:b0|[1]} showed the effect (see Fig. 2 in {figure:fig_0|Fig. 1}, \
             {table:tab_0|Table 1}, Eq. {formula:formula_0|(1)}).{foot:foot_0|2} Smith et al. \
             disagree {bibr:-|[7]}. The U.S. data & <models> differ.",
            1,
        );
        Article {
            header: HeaderRecord {
                title: Some("Soil moisture feedbacks".into()),
                abstract_text: Some("We study a toy model. It works, e.g. in dry soils.".into()),
                md5: Some("0123456789ABCDEF0123456789ABCDEF".into()),
                ..Default::default()
            },
            body: Body {
                divs: vec![
                    Div {
                        head: None,
                        blocks: vec![BodyBlock::Paragraph(rt("Text before any head.", 1))],
                    },
                    Div {
                        head: head(Some("1."), "Introduction"),
                        blocks: vec![
                            BodyBlock::Paragraph(intro),
                            BodyBlock::List(vec![rt("first item", 1), rt("second item", 1)]),
                            BodyBlock::Formula(Formula {
                                id: "formula_0".into(),
                                text: rt("E = mc^2", 2),
                                label: Some("(1)".into()),
                            }),
                        ],
                    },
                    Div {
                        head: head(Some("2.1"), "Methods"),
                        blocks: vec![BodyBlock::Paragraph(rt(
                            "As in {bibr:b1|Okafor (2009)}. Values are in {table:tab_0|Table 1}.",
                            2,
                        ))],
                    },
                ],
                figures: vec![
                    Figure {
                        id: "fig_0".into(),
                        head: Some("Fig. 1.".into()),
                        label: Some("1".into()),
                        desc: Some(rt("Sketch of the model. Arrows show fluxes.", 3)),
                        graphics: vec![
                            Graphic {
                                at: PageBox {
                                    page: 3,
                                    bbox: BBox {
                                        x: 72.0,
                                        y: 90.5,
                                        w: 220.1,
                                        h: 140.0,
                                    },
                                },
                                bitmap: true,
                                url: Some("assets/image-1.png".into()),
                            },
                            Graphic {
                                at: PageBox {
                                    page: 3,
                                    bbox: BBox {
                                        x: 300.0,
                                        y: 90.5,
                                        w: 100.0,
                                        h: 50.25,
                                    },
                                },
                                bitmap: false,
                                url: None,
                            },
                        ],
                        boxes: vec![PageBox {
                            page: 3,
                            bbox: BBox {
                                x: 70.0,
                                y: 88.0,
                                w: 340.0,
                                h: 180.0,
                            },
                        }],
                        ..Default::default()
                    },
                    Figure {
                        id: "tab_0".into(),
                        is_table: true,
                        head: Some("Table 1.".into()),
                        label: Some("1".into()),
                        desc: Some(rt("Parameters.", 4)),
                        rows: vec![
                            vec![Cell {
                                text: "Parameter values".into(),
                                cols: 2,
                            }],
                            vec![
                                Cell {
                                    text: "a".into(),
                                    cols: 1,
                                },
                                Cell {
                                    text: "0.5".into(),
                                    cols: 1,
                                },
                            ],
                        ],
                        note: Some(rt("Values are illustrative.", 4)),
                        ..Default::default()
                    },
                ],
                notes: vec![
                    Note {
                        id: "foot_0".into(),
                        margin: false,
                        n: Some("2".into()),
                        paragraphs: vec![rt("A footnote. It cites {bibr:b1|[2]}.", 1)],
                    },
                    Note {
                        id: "margin_0".into(),
                        margin: true,
                        n: None,
                        paragraphs: vec![rt("A margin note.", 2)],
                    },
                ],
            },
            back: crate::document::Back {
                acknowledgement: section("Acknowledgements", "We thank J. Doe for comments."),
                funding: section("Funding", "Supported by grant 123."),
                availability: section("Data availability", "Data are on request."),
                annex: section("Appendix A", "Extra material."),
                fundings: vec![crate::document::Funding {
                    id: "funding_0".into(),
                    funder: Some("Example Science Foundation".into()),
                    grant_numbers: vec!["123".into()],
                    ..Default::default()
                }],
                ..Default::default()
            },
            references: vec![
                Reference {
                    citation: Citation {
                        raw: "Ng B. A prior study. J Examples 3:1-9, 2019.".into(),
                        title: Some("A prior study".into()),
                        journal: Some("J Examples".into()),
                        authors: vec![person("B", "Ng")],
                        ..Default::default()
                    },
                    marker: Some("1".into()),
                    boxes: vec![PageBox {
                        page: 4,
                        bbox: BBox {
                            x: 72.0,
                            y: 500.0,
                            w: 230.0,
                            h: 9.5,
                        },
                    }],
                },
                Reference {
                    citation: Citation {
                        raw: "Okafor E. Water & energy. CUP, 2009.".into(),
                        title: Some("Water & energy".into()),
                        authors: vec![person("E", "Okafor")],
                        ..Default::default()
                    },
                    ..Default::default()
                },
            ],
            pages: vec![
                (1, 595.276, 841.89),
                (2, 612.0, 792.0),
                (3, 595.276, 841.89),
                (4, 595.276, 841.89),
            ],
        }
    }

    fn options() -> TeiOptions {
        TeiOptions {
            version: "0.1.0".into(),
            when: "2026-11-25T06:00+0000".into(),
            ..Default::default()
        }
    }

    fn all_coordinates() -> TeiOptions {
        let names = [
            "head",
            "p",
            "s",
            "ref",
            "formula",
            "figure",
            "note",
            "biblStruct",
            "persName",
            "title",
            "affiliation",
        ];
        TeiOptions {
            coordinates: names.iter().map(|n| n.to_string()).collect(),
            segment_sentences: true,
            generate_ids: true,
            ..options()
        }
    }

    /// The full text of [`article`], byte for byte, against `golden/fulltext.tei.xml` (plain)
    /// and `golden/fulltext-options.tei.xml` (every coordinate, sentences, generated ids).
    #[test]
    fn full_text_matches_the_golden_files() {
        let a = article();
        let plain = crate::tei::article::article_tei(&a, &options());
        crate::tei::parsed::parse(&plain).unwrap();
        crate::tei::golden::check("fulltext.tei.xml", &plain);
        let rich = crate::tei::article::article_tei(&a, &all_coordinates());
        crate::tei::parsed::parse(&rich).unwrap();
        crate::tei::golden::check("fulltext-options.tei.xml", &rich);
    }

    #[test]
    fn plain_full_text_has_grobid_shapes() {
        let tei = crate::tei::article::article_tei(&article(), &options());
        for want in [
            "\t<text xml:lang=\"en\">\n\t\t<body>\n<div xmlns=\"http://www.tei-c.org/ns/1.0\"><p>Text before any head.</p></div>\n",
            "<div xmlns=\"http://www.tei-c.org/ns/1.0\"><head n=\"1.\">Introduction</head><p>Earlier work <ref type=\"bibr\" target=\"#b0\">[1]</ref> showed",
            "<ref type=\"figure\" target=\"#fig_0\">Fig. 1</ref>, <ref type=\"table\" target=\"#tab_0\">Table 1</ref>, Eq. <ref type=\"formula\" target=\"#formula_0\">(1)</ref>).<ref type=\"foot\" target=\"#foot_0\">2</ref>",
            "disagree <ref type=\"bibr\">[7]</ref>.",
            "data &amp; &lt;models&gt; differ.</p><list><item>first item</item><item>second item</item></list><formula xml:id=\"formula_0\">E = mc^2<label>(1)</label></formula></div>\n",
            "<head n=\"2.1\">Methods</head>",
            "<figure xmlns=\"http://www.tei-c.org/ns/1.0\" xml:id=\"fig_0\"><head>Fig. 1.</head><label>1</label><figDesc>Sketch of the model. Arrows show fluxes.</figDesc><graphic url=\"assets/image-1.png\" coords=\"3,72.00,90.50,220.10,140.00\" type=\"bitmap\"/><graphic coords=\"3,300.00,90.50,100.00,50.25\" type=\"vector\"/></figure>\n",
            "<figure xmlns=\"http://www.tei-c.org/ns/1.0\" type=\"table\" xml:id=\"tab_0\"><head>Table 1.</head><label>1</label><figDesc>Parameters.</figDesc><table><row><cell cols=\"2\">Parameter values</cell></row><row><cell>a</cell><cell>0.5</cell></row></table><note>Values are illustrative.</note></figure>\n",
            "<note xmlns=\"http://www.tei-c.org/ns/1.0\" place=\"foot\" n=\"2\" xml:id=\"foot_0\"><p>A footnote. It cites <ref type=\"bibr\" target=\"#b1\">[2]</ref>.</p></note>\n",
            "<note xmlns=\"http://www.tei-c.org/ns/1.0\" place=\"margin\" xml:id=\"margin_0\"><p>A margin note.</p></note>\n\t\t</body>\n\t\t<back>\n\t\t\t<div type=\"acknowledgement\">\n<div xmlns=\"http://www.tei-c.org/ns/1.0\"><head>Acknowledgements</head><p>We thank J. Doe for comments.</p></div>\n\t\t\t</div>\n\t\t\t<div type=\"funding\">\n",
            "\t\t\t<div type=\"availability\">\n<div xmlns=\"http://www.tei-c.org/ns/1.0\"><head>Data availability</head>",
            "\t\t\t<div type=\"annex\">\n<div xmlns=\"http://www.tei-c.org/ns/1.0\"><head>Appendix A</head><p>Extra material.</p></div>\n\t\t\t</div>\n\t\t\t<div type=\"references\">\n\t\t\t\t<listBibl>\n\t\t\t\t\t<biblStruct status=\"extracted\"  xml:id=\"b0\">\n",
            "\t\t</back>\n\t</text>\n</TEI>\n",
        ] {
            assert!(tei.contains(want), "missing {want:?} in\n{tei}");
        }
        assert!(!tei.contains("facsimile") && !tei.contains("coords=\"1,") && !tei.contains("<s>"));
        assert!(tei.contains("generateTeiIds=false, generateTeiCoordinates=null"));
    }

    #[test]
    fn options_add_coordinates_facsimile_sentences_and_ids() {
        let opt = all_coordinates();
        let tei = crate::tei::article::article_tei(&article(), &opt);
        assert!(tei.contains("\t</teiHeader>\n\t<facsimile>\n\t\t<surface n=\"1\" ulx=\"0.0\" uly=\"0.0\" lrx=\"595.276\" lry=\"841.89\"/>\n\t\t<surface n=\"2\" ulx=\"0.0\" uly=\"0.0\" lrx=\"612.0\" lry=\"792.0\"/>\n"), "{tei}");
        assert!(tei.contains("\t</facsimile>\n\t<text xml:lang=\"en\">\n"));
        assert!(tei.contains("generateTeiIds=true, generateTeiCoordinates=[affiliation, biblStruct, figure, formula, head, note, p, persName, ref, s, title]"));
        // The head's one line, the formula's box, the figure's area, the reference's lines.
        assert!(tei.contains("<head n=\"1.\" xml:id=\"_"));
        assert!(tei.contains(" coords=\"1,72.00,100.00,60.00,10.00\">Introduction</head>"));
        assert!(
            tei.contains("<formula xml:id=\"formula_0\" coords=\"2,72.00,100.00,40.00,10.00\">")
        );
        assert!(tei.contains("xml:id=\"fig_0\" coords=\"3,70.00,88.00,340.00,180.00\">"));
        assert!(tei.contains("<biblStruct coords=\"4,72.00,500.00,230.00,9.50\" status=\"extracted\"  xml:id=\"b0\">"));
        assert!(
            tei.contains("<biblStruct status=\"extracted\"  xml:id=\"b1\">"),
            "no boxes, no coords"
        );
        // `ref` coordinates: `[1]` is the token at 13..16 of the first line.
        assert!(tei.contains("<ref type=\"bibr\" target=\"#b0\" coords=\"1,137.00,100.00,15.00,10.00\">[1]</ref>"), "{tei}");
        // Sentences: refs inside, abbreviations kept, the abstract and captions cut too.
        let p = tei.split("<head n=\"1.\"").nth(1).unwrap();
        let sentences: Vec<&str> = p.split("</p>").next().unwrap().matches("<s ").collect();
        // The footnote mark after `).` glues the next words on, as in GROBID; `et al.` and
        // `U.S.` cut nothing.
        assert_eq!(sentences.len(), 2, "{p}");
        assert!(p.contains("Smith et al. disagree <ref type=\"bibr\" coords=\"1,172.00,124.00,20.00,10.00\">[7]</ref>.</s> <s "));
        assert!(p.contains("(see Fig. 2 in <ref type=\"figure\""));
        assert!(
            tei.contains("<abstract>\n<div xmlns=\"http://www.tei-c.org/ns/1.0\"><p xml:id=\"_")
        );
        assert!(tei.contains("<figDesc xml:id=\"_"));
        assert!(tei.contains("<figDesc xml:id=\"_") && tei.contains("\"><div><p xml:id=\"_"));
        // Ids: GROBID's shape, unique, the same on every call.
        let ids: Vec<&str> = tei.split("xml:id=\"_").skip(1).map(|s| &s[..7]).collect();
        assert!(ids.len() > 20);
        assert!(ids
            .iter()
            .all(|i| i.chars().all(|c| c.is_ascii_alphanumeric())));
        assert_eq!(ids.iter().collect::<HashSet<_>>().len(), ids.len());
        assert_eq!(tei, crate::tei::article::article_tei(&article(), &opt));
        // `s` coordinates only with sentences.
        let no_s = TeiOptions {
            segment_sentences: false,
            ..opt
        };
        let tei = crate::tei::article::article_tei(&article(), &no_s);
        assert!(!tei.contains("<s "));
        assert!(tei.contains("<p xml:id=\"_"));
    }

    fn graphic(page: u32, y: f32) -> Graphic {
        Graphic {
            at: PageBox {
                page,
                bbox: BBox {
                    x: 72.0,
                    y,
                    w: 200.0,
                    h: 100.0,
                },
            },
            bitmap: true,
            url: None,
        }
    }

    /// Figures and tables with and without what a caption gives, with and without rows.
    fn figures_article() -> Article {
        let cell = |t: &str| Cell {
            text: t.into(),
            cols: 1,
        };
        Article {
            header: HeaderRecord {
                title: Some("Figures".into()),
                md5: Some("00FF".into()),
                ..Default::default()
            },
            body: Body {
                divs: section("Results", "See the figures."),
                figures: vec![
                    Figure {
                        id: "fig_0".into(),
                        head: Some("Figure 1:".into()),
                        label: Some("1".into()),
                        desc: Some(rt("Sites sampled.", 2)),
                        graphics: vec![graphic(2, 100.0)],
                        note: Some(rt("km 0 50 100", 2)),
                        ..Default::default()
                    },
                    // No caption: only a picture and the words printed in it.
                    Figure {
                        id: "fig_1".into(),
                        graphics: vec![graphic(3, 300.0)],
                        note: Some(rt("Published: 2 May 2020", 3)),
                        ..Default::default()
                    },
                    // A table without caption, with rows.
                    Figure {
                        id: "tab_0".into(),
                        is_table: true,
                        rows: vec![vec![cell("a"), cell("0.5")]],
                        ..Default::default()
                    },
                    // A captioned table without rows.
                    Figure {
                        id: "tab_1".into(),
                        is_table: true,
                        head: Some("Table 2.".into()),
                        label: Some("2".into()),
                        desc: Some(rt("Doses.", 4)),
                        ..Default::default()
                    },
                ],
                notes: Vec::new(),
            },
            ..Default::default()
        }
    }

    /// Every figure and table has `head`, `label` and `figDesc`, in that order, empty when
    /// nothing was found; a figure's inner text is a `note type="other"` before its graphics;
    /// every table has a `table`. Golden: `golden/figures.tei.xml`.
    #[test]
    fn figures_and_tables_always_have_grobid_children() {
        let tei = crate::tei::article::article_tei(&figures_article(), &options());
        crate::tei::parsed::parse(&tei).unwrap();
        crate::tei::golden::check("figures.tei.xml", &tei);
        let figures: Vec<&str> = tei
            .split("<figure ")
            .skip(1)
            .map(|f| f.split("</figure>").next().unwrap())
            .collect();
        assert_eq!(figures.len(), 4);
        for f in &figures {
            let at = |tag: &str| f.find(tag).unwrap_or_else(|| panic!("no {tag} in {f}"));
            assert!(
                at("<head") < at("<label") && at("<label") < at("<figDesc"),
                "{f}"
            );
            if f.contains("type=\"table\"") {
                assert!(at("<figDesc") < at("<table"), "{f}");
            }
        }
        assert!(figures[0].contains(
            "<head>Figure 1:</head><label>1</label><figDesc>Sites sampled.</figDesc><note type=\"other\">km 0 50 100</note><graphic "
        ));
        assert!(figures[1].contains(
            "<head></head><label></label><figDesc></figDesc><note type=\"other\">Published: 2 May 2020</note><graphic "
        ));
        assert!(figures[2].contains(
            "<head></head><label></label><figDesc></figDesc><table><row><cell>a</cell><cell>0.5</cell></row></table>"
        ));
        assert!(figures[3].contains(
            "<head>Table 2.</head><label>2</label><figDesc>Doses.</figDesc><table></table>"
        ));
    }

    /// A header with everything GROBID gives an id, discarded text and an abstract traced to
    /// its printed words. Golden: `golden/header-options.tei.xml`.
    fn header_article() -> Article {
        let abstract_rt = rt("We study a toy model. It works well in dry soils.", 1);
        Article {
            header: HeaderRecord {
                title: Some("Soil moisture feedbacks".into()),
                keywords: vec!["soil".into(), "feedback".into()],
                journal: Some("J Examples".into()),
                submission: Some("Received 2 May 2020".into()),
                abstract_text: Some(abstract_rt.text.clone()),
                abstract_tokens: abstract_rt.tokens,
                discarded: vec![crate::document::Discarded {
                    place: "segmentation".into(),
                    text: "Referee Report 1".into(),
                    boxes: vec![PageBox {
                        page: 1,
                        bbox: BBox {
                            x: 72.0,
                            y: 40.0,
                            w: 90.0,
                            h: 9.0,
                        },
                    }],
                }],
                md5: Some("00FF".into()),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    #[test]
    fn header_ids_abstract_sentence_coords_and_discarded_text() {
        let a = header_article();
        let opt = TeiOptions {
            include_discarded_text: true,
            ..all_coordinates()
        };
        let tei = crate::tei::article::article_tei(&a, &opt);
        crate::tei::parsed::parse(&tei).unwrap();
        crate::tei::golden::check("header-options.tei.xml", &tei);
        // generateIDs: both main titles, the journal title, each term, the header note.
        for el in [
            "<title level=\"a\" type=\"main\" xml:id=\"_",
            "<title level=\"j\" type=\"main\" xml:id=\"_",
            "<note type=\"submission\" xml:id=\"_",
        ] {
            assert!(tei.contains(el), "no {el} in\n{tei}");
        }
        assert_eq!(
            tei.matches("<title level=\"a\" type=\"main\" xml:id=\"_")
                .count(),
            2
        );
        assert_eq!(tei.matches("<term xml:id=\"_").count(), 2);
        // Every abstract sentence has its coordinates.
        let abs = tei.split("<abstract>").nth(1).unwrap();
        let abs = abs.split("</abstract>").next().unwrap();
        assert_eq!(abs.matches("<s ").count(), 2, "{abs}");
        assert_eq!(abs.matches("<s xml:id=\"_").count(), 2, "{abs}");
        assert_eq!(abs.matches(" coords=\"1,").count(), 3, "p and two s: {abs}");
        // Discarded text: a typed, placed note with its paragraph in `notesStmt`.
        assert!(tei.contains("\t\t\t</sourceDesc>\n\t\t\t<notesStmt>\n\t\t\t\t<note type=\"other\" place=\"segmentation\" xml:id=\"_"), "{tei}");
        assert!(tei.contains(" coords=\"1,72.00,40.00,90.00,9.00\"><p xml:id=\"_"));
        assert!(
            tei.contains(">Referee Report 1</s></p></note>\n\t\t\t</notesStmt>\n\t\t</fileDesc>\n")
        );
        // Without the options: no ids, no notesStmt, no coordinates.
        let plain = crate::tei::article::article_tei(&a, &options());
        assert!(!plain.contains("xml:id=\"_") && !plain.contains("notesStmt"));
        assert!(!plain.contains("coords"));
        assert!(!plain.contains("Referee"));
    }

    #[test]
    fn empty_body_with_back_matter_and_empty_article() {
        let a = Article {
            back: crate::document::Back {
                annex: section("Appendix", "More."),
                ..Default::default()
            },
            ..Default::default()
        };
        let tei = crate::tei::article::article_tei(&a, &options());
        assert!(
            tei.contains(
                "\t<text xml:lang=\"en\">\n\t\t<body/>\n\t\t<back>\n\t\t\t<div type=\"annex\">\n"
            ),
            "{tei}"
        );
        let none = crate::tei::article::article_tei(&Article::default(), &options());
        assert!(none.contains("\t<text>\n\t</text>\n</TEI>\n"), "{none}");
    }

    #[test]
    fn line_boxes_merge_tokens_of_one_line_fragment() {
        let t = |page, x, y, w| TokenBox {
            range: 0..1,
            page,
            bbox: BBox { x, y, w, h: 10.0 },
        };
        let boxes = line_boxes(&[
            t(1, 10.0, 100.0, 20.0),
            t(1, 33.0, 101.0, 20.0),
            t(1, 10.0, 112.0, 30.0),  // next line
            t(2, 45.0, 112.0, 30.0),  // next page
            t(2, 300.0, 112.0, 30.0), // other column
        ]);
        assert_eq!(
            coords(&boxes),
            "1,10.00,100.00,43.00,11.00;1,10.00,112.00,30.00,10.00;2,45.00,112.00,30.00,10.00;2,300.00,112.00,30.00,10.00"
        );
    }

    #[test]
    fn ids_depend_on_the_document_and_avoid_note_ids() {
        let a = article();
        let mut x = IdGen::new(&a);
        let mut y = IdGen::new(&a);
        assert_eq!(x.next(), y.next());
        let mut b = a.clone();
        b.header.md5 = Some("FF".into());
        assert_ne!(IdGen::new(&a).next(), IdGen::new(&b).next());
        let first = IdGen::new(&a).next();
        let mut z = IdGen::new(&a);
        z.taken.insert(first.clone());
        assert_ne!(z.next(), first);
    }

    proptest! {
        /// Any text with any callout ranges, written in sentences with every coordinate and
        /// ids, is well-formed XML whose paragraph holds every character of the text (those XML
        /// 1.0 can carry), and the whole article parses.
        #[test]
        fn any_text_and_callouts_in_sentences_round_trip(
            text in any::<String>(),
            ranges in proptest::collection::vec((0usize..400, 0usize..40), 0..8),
            seg in prop_oneof![Just(crate::sentence::Segmenter::Statistical), Just(crate::sentence::Segmenter::RuleBased)],
        ) {
            let refs = ranges
                .into_iter()
                .map(|(start, len)| Callout { kind: CalloutKind::Bibr, range: start..start + len, target: Some("b0".into()) })
                .collect();
            let p = RichText { text: text.clone(), refs, tokens: Vec::new() };
            let a = Article {
                body: Body {
                    divs: vec![Div { head: None, blocks: vec![BodyBlock::Paragraph(p.clone())] }],
                    ..Default::default()
                },
                ..Default::default()
            };
            let opt = TeiOptions { sentence_segmenter: seg, ..all_coordinates() };
            let mut ctx = Ctx::new(&a, &opt);
            let mut w = TeiWriter::default();
            paragraph(&mut w, &mut ctx, &p);
            let xml = w.finish();
            let parsed = crate::tei::parsed::parse(&xml);
            prop_assert!(parsed.is_ok(), "{:?} {}", parsed.err(), xml);
            let kept: String = text.chars().filter(|c| crate::tei::writer::is_xml_char(*c)).collect();
            prop_assert_eq!(parsed.unwrap().texts.concat(), kept);
            let doc = crate::tei::article::article_tei(&a, &opt);
            prop_assert!(crate::tei::parsed::parse(&doc).is_ok());
        }
    }
}
