/*!
Client-side renderings of a TEI answer: Markdown and JSON (`quire convert`, and the console's
views, which do the same in the browser). They read TEI only, as GROBID and Quire write it
(`processFulltextDocument`, `processHeaderDocument`, `processReferences`…), never a PDF.

The TEI is parsed into a small tree, then into one [`Converted`] document:

- `title`, `authors` (name, forename, surname, email, affiliations), `date`, `doi`,
  `keywords`, `abstract` (paragraphs) from the `teiHeader`;
- `sections` from the `body`'s `div`s (`head`, its `n`, paragraphs; a `formula` is a paragraph
  of its text and label), `figures` (figures and tables: id, type, label, head, `figDesc`
  caption, table rows), `notes` (foot and margin notes), `back` sections (acknowledgement,
  funding, availability, annex… with their `type`);
- `references` from every `listBibl/biblStruct` (authors, title, venue, date, volume, issue,
  pages, DOI, and a one-line rendering).

Markdown keeps the sections, paragraphs, figure and table captions (tables with rows as
Markdown tables), formulas as text, callouts as links (`[[1]](#b0)` to the reference list,
whose entries carry `<a id="b0"></a>` anchors; figure and table callouts to the captions), and
the references. JSON is the same document (paragraphs as plain text); its shape is described in
`docs/convert.md`. A document that is not well-formed XML, or whose root is not `TEI`, is a
[`ConvertError`] naming the line.
*/

use quick_xml::events::{BytesStart, Event};
use serde_json::{json, Value};

/// Why a TEI document could not be converted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConvertError {
    /// 1-based line of the problem, when known.
    pub line: Option<usize>,
    pub message: String,
}

impl std::fmt::Display for ConvertError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(l) => write!(
                f,
                "not a readable TEI document (line {l}): {}",
                self.message
            ),
            None => write!(f, "not a readable TEI document: {}", self.message),
        }
    }
}

impl std::error::Error for ConvertError {}

// ---------------------------------------------------------------------------------------------
// A small element tree

#[derive(Debug, Clone)]
enum Node {
    Elem(Elem),
    Text(String),
}

#[derive(Debug, Clone, Default)]
struct Elem {
    /// Local name (no prefix).
    name: String,
    /// Attributes by qualified name (`xml:id` stays `xml:id`).
    attrs: Vec<(String, String)>,
    children: Vec<Node>,
}

impl Elem {
    fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    fn elems(&self) -> impl Iterator<Item = &Elem> {
        self.children.iter().filter_map(|n| match n {
            Node::Elem(e) => Some(e),
            Node::Text(_) => None,
        })
    }

    fn child(&self, name: &str) -> Option<&Elem> {
        self.elems().find(|e| e.name == name)
    }

    fn children_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Elem> + 'a {
        self.elems().filter(move |e| e.name == name)
    }

    /// The first descendant (depth first) named `name`.
    fn find(&self, name: &str) -> Option<&Elem> {
        for e in self.elems() {
            if e.name == name {
                return Some(e);
            }
            if let Some(f) = e.find(name) {
                return Some(f);
            }
        }
        None
    }

    /// Every descendant named `name`, in document order (not looking inside a match).
    fn find_all<'a>(&'a self, name: &str, out: &mut Vec<&'a Elem>) {
        for e in self.elems() {
            if e.name == name {
                out.push(e);
            } else {
                e.find_all(name, out);
            }
        }
    }

    fn path(&self, names: &[&str]) -> Option<&Elem> {
        let mut at = self;
        for n in names {
            at = at.child(n)?;
        }
        Some(at)
    }

    /// All text below, white space collapsed (`lb` counts as a space).
    fn text(&self) -> String {
        let mut s = String::new();
        self.raw_text(&mut s);
        collapse(&s)
    }

    fn raw_text(&self, out: &mut String) {
        for n in &self.children {
            match n {
                Node::Text(t) => out.push_str(t),
                Node::Elem(e) if e.name == "lb" => out.push(' '),
                Node::Elem(e) => e.raw_text(out),
            }
        }
    }
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn non_empty(s: String) -> Option<String> {
    (!s.is_empty()).then_some(s)
}

fn line_of(xml: &str, pos: usize) -> usize {
    let pos = pos.min(xml.len());
    xml.as_bytes()[..pos]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

fn start_elem(e: &BytesStart<'_>) -> Result<Elem, String> {
    let name = e.local_name().as_ref().to_string();
    let mut attrs = Vec::new();
    for a in e.attributes() {
        let a = a.map_err(|e| e.to_string())?;
        let key = a.key.as_ref().to_string();
        let v = a
            .normalized_value(quick_xml::XmlVersion::Explicit1_0)
            .map_err(|e| e.to_string())?
            .into_owned();
        attrs.push((key, v));
    }
    Ok(Elem {
        name,
        attrs,
        children: Vec::new(),
    })
}

/// Parse `xml` into its root element.
fn parse(xml: &str) -> Result<Elem, ConvertError> {
    let mut r = quick_xml::Reader::from_str(xml);
    let err = |r: &quick_xml::Reader<&[u8]>, message: String| ConvertError {
        line: Some(line_of(xml, r.error_position() as usize)),
        message,
    };
    let mut stack: Vec<Elem> = Vec::new();
    let mut root: Option<Elem> = None;
    let push = |stack: &mut Vec<Elem>, root: &mut Option<Elem>, e: Elem| -> Result<(), String> {
        match stack.last_mut() {
            Some(parent) => {
                parent.children.push(Node::Elem(e));
                Ok(())
            }
            None if root.is_none() => {
                *root = Some(e);
                Ok(())
            }
            None => Err("more than one root element".into()),
        }
    };
    let text = |stack: &mut Vec<Elem>, t: String| -> Result<(), String> {
        match stack.last_mut() {
            Some(parent) => {
                if let Some(Node::Text(prev)) = parent.children.last_mut() {
                    prev.push_str(&t);
                } else {
                    parent.children.push(Node::Text(t));
                }
                Ok(())
            }
            None if t.trim().is_empty() => Ok(()),
            None => Err("text outside the root element".into()),
        }
    };
    loop {
        let ev = match r.read_event() {
            Ok(ev) => ev,
            Err(e) => return Err(err(&r, e.to_string())),
        };
        let step: Result<(), String> = match ev {
            Event::Start(e) => start_elem(&e).map(|el| stack.push(el)),
            Event::Empty(e) => start_elem(&e).and_then(|el| push(&mut stack, &mut root, el)),
            Event::End(_) => match stack.pop() {
                Some(el) => push(&mut stack, &mut root, el),
                None => Err("a closing tag without its opening tag".into()),
            },
            Event::Text(t) => text(&mut stack, t.xml10_content().into_owned()),
            Event::CData(t) => text(&mut stack, t.xml10_content().into_owned()),
            Event::GeneralRef(g) => match g.resolve_char_ref() {
                Ok(Some(c)) => text(&mut stack, c.to_string()),
                Ok(None) => {
                    let n = g.xml10_content().into_owned();
                    match quick_xml::escape::resolve_predefined_entity(&n) {
                        Some(v) => text(&mut stack, v.to_string()),
                        None => Err(format!("unknown entity `&{n};`")),
                    }
                }
                Err(e) => Err(e.to_string()),
            },
            Event::Eof => break,
            _ => Ok(()),
        };
        if let Err(m) = step {
            return Err(err(&r, m));
        }
    }
    if let Some(open) = stack.last() {
        return Err(ConvertError {
            line: Some(line_of(xml, xml.len())),
            message: format!("the document ends inside `<{}>`", open.name),
        });
    }
    let root = root.ok_or_else(|| ConvertError {
        line: None,
        message: "no element at all".into(),
    })?;
    if root.name != "TEI" {
        return Err(ConvertError {
            line: Some(1),
            message: format!("the root element is `<{}>`, not `<TEI>`", root.name),
        });
    }
    Ok(root)
}

// ---------------------------------------------------------------------------------------------
// The converted document

/// A piece of a paragraph: text, or a callout pointing at `target` (`b0`, `fig_0`…).
#[derive(Debug, Clone, PartialEq)]
pub enum Inline {
    Text(String),
    Ref {
        text: String,
        target: Option<String>,
    },
}

/// A paragraph (or a formula, as text).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Para(pub Vec<Inline>);

impl Para {
    /// The paragraph as plain text.
    pub fn text(&self) -> String {
        let mut s = String::new();
        for i in &self.0 {
            match i {
                Inline::Text(t) => s.push_str(t),
                Inline::Ref { text, .. } => s.push_str(text),
            }
        }
        collapse(&s)
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Author {
    pub name: String,
    pub forename: Option<String>,
    pub surname: Option<String>,
    pub email: Option<String>,
    pub affiliations: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Section {
    /// `div/@type` (back matter: acknowledgement, funding, availability, annex…).
    pub kind: Option<String>,
    pub head: Option<String>,
    /// The head's `n` (section number).
    pub n: Option<String>,
    pub paragraphs: Vec<Para>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Figure {
    pub id: Option<String>,
    /// `figure` or `table`.
    pub kind: String,
    pub label: Option<String>,
    pub head: Option<String>,
    pub caption: Option<String>,
    pub rows: Vec<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Note {
    pub id: Option<String>,
    pub n: Option<String>,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Reference {
    pub id: Option<String>,
    pub authors: Vec<String>,
    pub title: Option<String>,
    pub venue: Option<String>,
    pub date: Option<String>,
    pub volume: Option<String>,
    pub issue: Option<String>,
    pub pages: Option<String>,
    pub doi: Option<String>,
    /// The raw reference string, when the TEI carries it.
    pub raw: Option<String>,
}

impl Reference {
    /// One line: `Authors. Title. Venue, volume(issue), pages. Date. doi:…` (the raw string
    /// when nothing was parsed).
    pub fn line(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        if !self.authors.is_empty() {
            parts.push(self.authors.join(", "));
        }
        if let Some(t) = &self.title {
            parts.push(t.clone());
        }
        let mut venue = self.venue.clone().unwrap_or_default();
        if let Some(v) = &self.volume {
            venue = join_nonempty(&venue, v, ", ");
        }
        if let Some(i) = &self.issue {
            venue.push_str(&format!("({i})"));
        }
        if let Some(p) = &self.pages {
            venue = join_nonempty(&venue, p, ", ");
        }
        if !venue.is_empty() {
            parts.push(venue);
        }
        if let Some(d) = &self.date {
            parts.push(d.clone());
        }
        if let Some(d) = &self.doi {
            parts.push(format!("doi:{d}"));
        }
        if parts.is_empty() {
            return self.raw.clone().unwrap_or_default();
        }
        let parts: Vec<&str> = parts
            .iter()
            .map(|p| p.trim().trim_end_matches('.'))
            .filter(|p| !p.is_empty())
            .collect();
        if parts.is_empty() {
            return self.raw.clone().unwrap_or_default();
        }
        let mut s = parts.join(". ");
        // No period after a DOI, which could be read as part of it.
        if !parts.last().is_some_and(|p| p.starts_with("doi:")) {
            s.push('.');
        }
        s
    }
}

fn join_nonempty(a: &str, b: &str, sep: &str) -> String {
    if a.is_empty() {
        b.to_string()
    } else {
        format!("{a}{sep}{b}")
    }
}

/// Everything the renderings show of one TEI document.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Converted {
    pub title: Option<String>,
    pub authors: Vec<Author>,
    pub date: Option<String>,
    pub doi: Option<String>,
    pub keywords: Vec<String>,
    pub abstract_: Vec<Para>,
    pub sections: Vec<Section>,
    pub figures: Vec<Figure>,
    pub notes: Vec<Note>,
    pub back: Vec<Section>,
    pub references: Vec<Reference>,
}

fn target_id(t: &str) -> String {
    // `#b0` (GROBID), or several space-separated targets: the first.
    t.split_whitespace()
        .next()
        .unwrap_or("")
        .trim_start_matches('#')
        .to_string()
}

/// The inline content of a paragraph-like element: text and callouts.
fn inlines(e: &Elem, out: &mut Vec<Inline>) {
    for n in &e.children {
        match n {
            Node::Text(t) => out.push(Inline::Text(t.clone())),
            Node::Elem(c) if c.name == "lb" => out.push(Inline::Text(" ".into())),
            Node::Elem(c) if c.name == "ref" => out.push(Inline::Ref {
                text: c.text(),
                target: c.attr("target").map(target_id).filter(|t| !t.is_empty()),
            }),
            Node::Elem(c) if c.name == "s" => {
                inlines(c, out);
                out.push(Inline::Text(" ".into()));
            }
            Node::Elem(c) => inlines(c, out),
        }
    }
}

fn para(e: &Elem) -> Para {
    let mut parts = Vec::new();
    inlines(e, &mut parts);
    // Collapse white space across the pieces, keeping one space between them.
    let mut out: Vec<Inline> = Vec::new();
    let mut pending_space = false;
    for p in parts {
        match p {
            Inline::Text(t) => {
                let starts = t.starts_with(char::is_whitespace);
                let ends = t.ends_with(char::is_whitespace);
                let c = collapse(&t);
                if c.is_empty() {
                    pending_space |= !t.is_empty();
                    continue;
                }
                let lead = (pending_space || starts) && !out.is_empty();
                let text = if lead { format!(" {c}") } else { c };
                match out.last_mut() {
                    Some(Inline::Text(prev)) => prev.push_str(&text),
                    _ => out.push(Inline::Text(text)),
                }
                pending_space = ends;
            }
            Inline::Ref { text, target } => {
                if pending_space && !out.is_empty() {
                    match out.last_mut() {
                        Some(Inline::Text(prev)) => prev.push(' '),
                        _ => out.push(Inline::Text(" ".into())),
                    }
                }
                pending_space = false;
                out.push(Inline::Ref { text, target });
            }
        }
    }
    Para(out)
}

fn formula(e: &Elem) -> Para {
    let label = e.child("label").map(|l| l.text());
    let mut body = String::new();
    for n in &e.children {
        match n {
            Node::Text(t) => body.push_str(t),
            Node::Elem(c) if c.name == "label" => {}
            Node::Elem(c) => c.raw_text(&mut body),
        }
    }
    let mut text = collapse(&body);
    if let Some(l) = label.filter(|l| !l.is_empty()) {
        text = join_nonempty(&text, &l, " ");
    }
    Para(vec![Inline::Text(text)])
}

fn section(div: &Elem, figures: &mut Vec<Figure>, notes: &mut Vec<Note>) -> Vec<Section> {
    let mut out = vec![Section {
        kind: div.attr("type").map(str::to_string),
        head: div.child("head").map(|h| h.text()).and_then(non_empty),
        n: div
            .child("head")
            .and_then(|h| h.attr("n"))
            .map(str::to_string),
        paragraphs: Vec::new(),
    }];
    for c in div.elems() {
        match c.name.as_str() {
            "p" | "ab" | "list" => {
                let p = para(c);
                if !p.text().is_empty() {
                    out[0].paragraphs.push(p);
                }
            }
            "formula" => out[0].paragraphs.push(formula(c)),
            "figure" => figures.push(figure(c)),
            "note" => notes.push(note(c)),
            // Nested divisions (GROBID nests the back matter's div in a typed div): they
            // follow, of the wrapper's kind unless they have their own; an empty wrapper
            // goes below.
            "div" => {
                let kind = out[0].kind.clone();
                for mut inner in section(c, figures, notes) {
                    if inner.kind.is_none() {
                        inner.kind = kind.clone();
                    }
                    out.push(inner);
                }
            }
            _ => {}
        }
    }
    out.retain(|s| s.head.is_some() || !s.paragraphs.is_empty());
    out
}

fn figure(e: &Elem) -> Figure {
    let kind = if e.attr("type") == Some("table") {
        "table"
    } else {
        "figure"
    };
    let rows = e
        .child("table")
        .map(|t| {
            t.children_named("row")
                .map(|r| r.children_named("cell").map(|c| c.text()).collect())
                .collect()
        })
        .unwrap_or_default();
    Figure {
        id: e.attr("xml:id").map(str::to_string),
        kind: kind.to_string(),
        label: e.child("label").map(|l| l.text()).and_then(non_empty),
        head: e.child("head").map(|h| h.text()).and_then(non_empty),
        caption: e.child("figDesc").map(|d| d.text()).and_then(non_empty),
        rows,
    }
}

fn note(e: &Elem) -> Note {
    Note {
        id: e.attr("xml:id").map(str::to_string),
        n: e.attr("n").map(str::to_string),
        text: e.text(),
    }
}

fn pers_name(p: &Elem) -> (String, Option<String>, Option<String>) {
    let forenames: Vec<String> = p.children_named("forename").map(|f| f.text()).collect();
    let forename = non_empty(forenames.join(" "));
    let surname = p.child("surname").map(|s| s.text()).and_then(non_empty);
    let name = match (&forename, &surname) {
        (None, None) => p.text(),
        _ => collapse(&format!(
            "{} {}",
            forename.as_deref().unwrap_or(""),
            surname.as_deref().unwrap_or("")
        )),
    };
    (name, forename, surname)
}

fn affiliation_text(a: &Elem) -> String {
    let mut parts: Vec<String> = a.children_named("orgName").map(|o| o.text()).collect();
    if let Some(addr) = a.child("address") {
        parts.extend(addr.elems().map(|x| x.text()));
    }
    let parts: Vec<String> = parts.into_iter().filter(|p| !p.is_empty()).collect();
    if parts.is_empty() {
        a.child("note")
            .map(|n| n.text())
            .unwrap_or_else(|| a.text())
    } else {
        parts.join(", ")
    }
}

fn reference(b: &Elem) -> Reference {
    let analytic = b.child("analytic");
    let monogr = b.child("monogr");
    let title_of = |e: Option<&Elem>| e.and_then(|e| e.child("title")).map(|t| t.text());
    let authors_of = |e: Option<&Elem>| -> Vec<String> {
        e.map(|e| {
            e.children_named("author")
                .filter_map(|a| a.child("persName").map(|p| pers_name(p).0))
                .filter(|n| !n.is_empty())
                .collect()
        })
        .unwrap_or_default()
    };
    let mut authors = authors_of(analytic);
    if authors.is_empty() {
        authors = authors_of(monogr);
    }
    let (title, venue) = match title_of(analytic).and_then(non_empty) {
        Some(t) => (Some(t), title_of(monogr).and_then(non_empty)),
        None => (title_of(monogr).and_then(non_empty), None),
    };
    let imprint = monogr.and_then(|m| m.child("imprint"));
    let scope = |unit: &str| -> Option<String> {
        let s = imprint?
            .children_named("biblScope")
            .find(|s| s.attr("unit") == Some(unit))?;
        match (s.attr("from"), s.attr("to")) {
            (Some(f), Some(t)) => Some(format!("{f}-{t}")),
            (Some(f), None) => Some(f.to_string()),
            _ => non_empty(s.text()),
        }
    };
    let date = imprint.and_then(|i| i.child("date")).and_then(|d| {
        d.attr("when")
            .map(str::to_string)
            .or_else(|| non_empty(d.text()))
    });
    let mut idnos = Vec::new();
    b.find_all("idno", &mut idnos);
    let doi = idnos
        .iter()
        .find(|i| {
            i.attr("type")
                .is_some_and(|t| t.eq_ignore_ascii_case("doi"))
        })
        .map(|i| i.text())
        .and_then(non_empty);
    let raw = b
        .children_named("note")
        .find(|n| n.attr("type") == Some("raw_reference"))
        .map(|n| n.text())
        .and_then(non_empty);
    Reference {
        id: b.attr("xml:id").map(str::to_string),
        authors,
        title,
        venue,
        date,
        volume: scope("volume"),
        issue: scope("issue"),
        pages: scope("page"),
        doi,
        raw,
    }
}

/// Read a TEI document into the converted structure.
pub fn read(xml: &str) -> Result<Converted, ConvertError> {
    let root = parse(xml)?;
    let mut c = Converted::default();
    if let Some(header) = root.child("teiHeader") {
        let title_stmt = header.path(&["fileDesc", "titleStmt"]);
        c.title = title_stmt
            .and_then(|t| {
                t.children_named("title")
                    .find(|t| t.attr("type") == Some("main"))
                    .or_else(|| t.child("title"))
            })
            .map(|t| t.text())
            .and_then(non_empty);
        let source = header.path(&["fileDesc", "sourceDesc", "biblStruct"]);
        if let Some(analytic) = source.and_then(|s| s.child("analytic")) {
            for a in analytic.children_named("author") {
                let Some(p) = a.child("persName") else {
                    continue;
                };
                let (name, forename, surname) = pers_name(p);
                if name.is_empty() {
                    continue;
                }
                c.authors.push(Author {
                    name,
                    forename,
                    surname,
                    email: a.child("email").map(|e| e.text()).and_then(non_empty),
                    affiliations: a
                        .children_named("affiliation")
                        .map(affiliation_text)
                        .filter(|s| !s.is_empty())
                        .collect(),
                });
            }
        }
        let mut idnos = Vec::new();
        if let Some(s) = source {
            s.find_all("idno", &mut idnos);
        }
        c.doi = idnos
            .iter()
            .find(|i| {
                i.attr("type")
                    .is_some_and(|t| t.eq_ignore_ascii_case("doi"))
            })
            .map(|i| i.text())
            .and_then(non_empty);
        c.date = header
            .path(&["fileDesc", "publicationStmt"])
            .and_then(|p| p.child("date"))
            .or_else(|| source.and_then(|s| s.find("date")))
            .and_then(|d| {
                d.attr("when")
                    .map(str::to_string)
                    .or_else(|| non_empty(d.text()))
            });
        if let Some(profile) = header.child("profileDesc") {
            if let Some(k) = profile.find("keywords") {
                c.keywords = k
                    .children_named("term")
                    .map(|t| t.text())
                    .filter(|t| !t.is_empty())
                    .collect();
            }
            if let Some(abs) = profile.child("abstract") {
                let mut ps = Vec::new();
                abs.find_all("p", &mut ps);
                c.abstract_ = ps
                    .into_iter()
                    .map(para)
                    .filter(|p| !p.text().is_empty())
                    .collect();
            }
        }
    }
    let text = root.child("text");
    if let Some(body) = text.and_then(|t| t.child("body")) {
        for e in body.elems() {
            match e.name.as_str() {
                "div" => {
                    let mut s = section(e, &mut c.figures, &mut c.notes);
                    c.sections.append(&mut s);
                }
                "figure" => c.figures.push(figure(e)),
                "note" => c.notes.push(note(e)),
                "p" | "formula" => {
                    // Paragraphs outside any div: an untitled section.
                    let p = if e.name == "p" { para(e) } else { formula(e) };
                    match c.sections.last_mut() {
                        Some(s) if s.head.is_none() => s.paragraphs.push(p),
                        _ => c.sections.push(Section {
                            paragraphs: vec![p],
                            ..Section::default()
                        }),
                    }
                }
                _ => {}
            }
        }
    }
    if let Some(back) = text.and_then(|t| t.child("back")) {
        for e in back.elems() {
            match e.name.as_str() {
                "div" if e.attr("type") == Some("references") => {}
                "div" => {
                    let kind = e.attr("type").map(str::to_string);
                    let mut s = section(e, &mut c.figures, &mut c.notes);
                    for x in &mut s {
                        if x.kind.is_none() {
                            x.kind = kind.clone();
                        }
                    }
                    c.back.append(&mut s);
                }
                "figure" => c.figures.push(figure(e)),
                "note" => c.notes.push(note(e)),
                _ => {}
            }
        }
    }
    // Every listBibl's references (full text: in the back; processReferences,
    // processCitationList: the same place).
    let mut bibls = Vec::new();
    if let Some(t) = text {
        t.find_all("listBibl", &mut bibls);
    }
    for l in bibls {
        for b in l.children_named("biblStruct") {
            c.references.push(reference(b));
        }
    }
    Ok(c)
}

// ---------------------------------------------------------------------------------------------
// JSON

fn opt(s: &Option<String>) -> Value {
    s.as_ref().map_or(Value::Null, |v| Value::String(v.clone()))
}

fn sections_json(ss: &[Section], with_kind: bool) -> Value {
    ss.iter()
        .map(|s| {
            let mut v = json!({
                "head": opt(&s.head),
                "n": opt(&s.n),
                "paragraphs": s.paragraphs.iter().map(Para::text).collect::<Vec<_>>(),
            });
            if with_kind {
                v["type"] = opt(&s.kind);
            }
            v
        })
        .collect()
}

/// The JSON rendering (shape: `docs/convert.md`).
pub fn to_json(c: &Converted) -> Value {
    json!({
        "title": opt(&c.title),
        "authors": c.authors.iter().map(|a| json!({
            "name": a.name,
            "forename": opt(&a.forename),
            "surname": opt(&a.surname),
            "email": opt(&a.email),
            "affiliations": a.affiliations,
        })).collect::<Vec<_>>(),
        "date": opt(&c.date),
        "doi": opt(&c.doi),
        "keywords": c.keywords,
        "abstract": c.abstract_.iter().map(Para::text).collect::<Vec<_>>(),
        "sections": sections_json(&c.sections, false),
        "figures": c.figures.iter().map(|f| json!({
            "id": opt(&f.id),
            "type": f.kind,
            "label": opt(&f.label),
            "head": opt(&f.head),
            "caption": opt(&f.caption),
            "rows": f.rows,
        })).collect::<Vec<_>>(),
        "notes": c.notes.iter().map(|n| json!({
            "id": opt(&n.id),
            "n": opt(&n.n),
            "text": n.text,
        })).collect::<Vec<_>>(),
        "back": sections_json(&c.back, true),
        "references": c.references.iter().map(|r| json!({
            "id": opt(&r.id),
            "authors": r.authors,
            "title": opt(&r.title),
            "venue": opt(&r.venue),
            "date": opt(&r.date),
            "volume": opt(&r.volume),
            "issue": opt(&r.issue),
            "pages": opt(&r.pages),
            "doi": opt(&r.doi),
            "raw": opt(&r.raw),
            "text": r.line(),
        })).collect::<Vec<_>>(),
    })
}

// ---------------------------------------------------------------------------------------------
// Markdown

/// Text made safe for Markdown: the characters that would start emphasis, links, code or
/// HTML are escaped.
pub fn md_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        if matches!(ch, '\\' | '*' | '_' | '[' | ']' | '`' | '<' | '>' | '|') {
            out.push('\\');
        }
        out.push(ch);
    }
    // A line opening with `#`, `+`, `-` or `1.` would become a heading or a list.
    if out.starts_with(['#', '+', '-']) {
        out.insert(0, '\\');
    }
    let digits = out.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 && out[digits..].starts_with(". ") {
        out.insert(digits, '\\');
    }
    out
}

fn md_para(p: &Para) -> String {
    let mut s = String::new();
    for (i, part) in p.0.iter().enumerate() {
        match part {
            Inline::Text(t) => {
                let e = md_escape(t);
                // Only the paragraph's start can open a block; escape marks elsewhere are
                // still correct but the leading-mark escapes only matter at i == 0.
                if i == 0 {
                    s.push_str(&e);
                } else {
                    s.push_str(&inline_escape(t));
                }
            }
            Inline::Ref { text, target } => match target {
                Some(t) => s.push_str(&format!("[{}](#{})", inline_escape(text), t)),
                None => s.push_str(&inline_escape(text)),
            },
        }
    }
    s
}

fn inline_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        if matches!(ch, '\\' | '*' | '_' | '[' | ']' | '`' | '<' | '>' | '|') {
            out.push('\\');
        }
        out.push(ch);
    }
    out
}

fn md_heading(level: usize, s: &Section, fallback: &str) -> String {
    let head = s.head.as_deref().unwrap_or(fallback);
    let n = s.n.as_deref().map(|n| format!("{n} ")).unwrap_or_default();
    format!(
        "{} {}{}\n\n",
        "#".repeat(level),
        inline_escape(&n),
        inline_escape(head)
    )
}

/// The Markdown rendering.
pub fn to_markdown(c: &Converted) -> String {
    let mut md = String::new();
    md.push_str(&format!(
        "# {}\n\n",
        inline_escape(c.title.as_deref().unwrap_or("Untitled"))
    ));
    if !c.authors.is_empty() {
        let names: Vec<String> = c.authors.iter().map(|a| inline_escape(&a.name)).collect();
        md.push_str(&names.join(", "));
        md.push_str("\n\n");
    }
    let mut meta = Vec::new();
    if let Some(d) = &c.date {
        meta.push(format!("Date: {}", inline_escape(d)));
    }
    if let Some(d) = &c.doi {
        meta.push(format!("DOI: {}", inline_escape(d)));
    }
    if !c.keywords.is_empty() {
        let k: Vec<String> = c.keywords.iter().map(|k| inline_escape(k)).collect();
        meta.push(format!("Keywords: {}", k.join("; ")));
    }
    if !meta.is_empty() {
        md.push_str(&meta.join("  \n"));
        md.push_str("\n\n");
    }
    if !c.abstract_.is_empty() {
        md.push_str("## Abstract\n\n");
        for p in &c.abstract_ {
            md.push_str(&md_para(p));
            md.push_str("\n\n");
        }
    }
    for s in &c.sections {
        md.push_str(&md_heading(2, s, "Untitled section"));
        for p in &s.paragraphs {
            md.push_str(&md_para(p));
            md.push_str("\n\n");
        }
    }
    if !c.figures.is_empty() {
        md.push_str("## Figures and tables\n\n");
        for f in &c.figures {
            if let Some(id) = &f.id {
                md.push_str(&format!("<a id=\"{id}\"></a>"));
            }
            let name = match (&f.head, &f.label) {
                (Some(h), _) => h.clone(),
                (None, Some(l)) if f.kind == "table" => format!("Table {l}"),
                (None, Some(l)) => format!("Figure {l}"),
                (None, None) if f.kind == "table" => "Table".to_string(),
                (None, None) => "Figure".to_string(),
            };
            md.push_str(&format!("**{}**", inline_escape(&name)));
            if let Some(cap) = &f.caption {
                md.push_str(&format!(" {}", inline_escape(cap)));
            }
            md.push_str("\n\n");
            if let Some(first) = f.rows.first() {
                let width = f.rows.iter().map(Vec::len).max().unwrap_or(0).max(1);
                let row = |cells: &Vec<String>| {
                    let mut r: Vec<String> = cells.iter().map(|c| inline_escape(c)).collect();
                    r.resize(width, String::new());
                    format!("| {} |\n", r.join(" | "))
                };
                md.push_str(&row(first));
                md.push_str(&format!("|{}\n", " --- |".repeat(width)));
                for r in &f.rows[1..] {
                    md.push_str(&row(r));
                }
                md.push('\n');
            }
        }
    }
    if !c.notes.is_empty() {
        md.push_str("## Notes\n\n");
        for n in &c.notes {
            if let Some(id) = &n.id {
                md.push_str(&format!("<a id=\"{id}\"></a>"));
            }
            if let Some(k) = &n.n {
                md.push_str(&format!("{}: ", inline_escape(k)));
            }
            md.push_str(&inline_escape(&n.text));
            md.push_str("\n\n");
        }
    }
    for s in &c.back {
        let fallback = match s.kind.as_deref() {
            Some("acknowledgement") => "Acknowledgements",
            Some("funding") => "Funding",
            Some("availability") => "Availability",
            Some("annex") => "Annex",
            _ => "Back matter",
        };
        md.push_str(&md_heading(2, s, fallback));
        for p in &s.paragraphs {
            md.push_str(&md_para(p));
            md.push_str("\n\n");
        }
    }
    if !c.references.is_empty() {
        md.push_str("## References\n\n");
        for (i, r) in c.references.iter().enumerate() {
            let anchor =
                r.id.as_ref()
                    .map(|id| format!("<a id=\"{id}\"></a>"))
                    .unwrap_or_default();
            md.push_str(&format!(
                "{}. {anchor}{}\n",
                i + 1,
                inline_escape(&r.line())
            ));
        }
        md.push('\n');
    }
    let trimmed = md.trim_end().len();
    md.truncate(trimmed);
    md.push('\n');
    md
}

/// Markdown of a TEI document.
pub fn markdown(xml: &str) -> Result<String, ConvertError> {
    read(xml).map(|c| to_markdown(&c))
}

/// JSON of a TEI document (pretty-printed).
pub fn json_text(xml: &str) -> Result<String, ConvertError> {
    read(xml).map(|c| {
        let mut s = serde_json::to_string_pretty(&to_json(&c)).unwrap_or_default();
        s.push('\n');
        s
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOLDEN_TEI: &str = include_str!("golden/convert_input.tei.xml");

    #[test]
    fn markdown_of_the_golden_tei_matches_its_snapshot() {
        crate::tei::golden::check("convert_output.md", &markdown(GOLDEN_TEI).expect("reads"));
    }

    #[test]
    fn json_of_the_golden_tei_has_every_part() {
        let v: Value = serde_json::from_str(&json_text(GOLDEN_TEI).expect("reads")).expect("json");
        assert_eq!(v["title"], "Parsing scholarly documents");
        assert_eq!(v["authors"][0]["surname"], "Lee");
        assert_eq!(
            v["authors"][0]["affiliations"][0],
            "Department of Physics, University of Example, Springfield, US"
        );
        assert_eq!(v["doi"], "10.1371/journal.pone.0323994");
        assert_eq!(v["abstract"].as_array().map(Vec::len), Some(1));
        assert_eq!(v["sections"][0]["head"], "Introduction");
        assert_eq!(v["sections"][0]["n"], "1");
        assert!(v["sections"][0]["paragraphs"][0]
            .as_str()
            .is_some_and(|p| p.contains("as shown before [1]")));
        assert_eq!(v["figures"][1]["type"], "table");
        assert_eq!(v["figures"][1]["rows"][1][0], "CRF");
        assert_eq!(v["back"][0]["type"], "acknowledgement");
        assert_eq!(v["references"][0]["id"], "b0");
        assert_eq!(v["references"][0]["pages"], "e863-873");
    }

    #[test]
    fn broken_tei_is_a_clear_error_naming_the_line() {
        let e = read("<TEI>\n<text>\n<body><p>open</body>\n</TEI>").expect_err("broken");
        assert_eq!(e.line, Some(3), "{e}");
        assert!(
            e.to_string()
                .starts_with("not a readable TEI document (line 3)"),
            "{e}"
        );
        let e = read("<TEI><text>").expect_err("unfinished");
        assert!(e.message.contains("ends inside `<text>`"), "{e}");
        let e = read("<html><body/></html>").expect_err("not TEI");
        assert!(e.message.contains("not `<TEI>`"), "{e}");
        assert!(read("").is_err());
        assert!(read("%PDF-1.7\n").is_err());
    }

    #[test]
    fn markdown_escapes_what_would_become_markup() {
        assert_eq!(md_escape("1. a_b *c* [d]"), "1\\. a\\_b \\*c\\* \\[d\\]");
        assert_eq!(md_escape("# x"), "\\# x");
    }
}
