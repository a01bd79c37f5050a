/*!
Value-level evaluation of the raw-string endpoints: the one scorer behind both `quire eval
MODEL` (the model, its decoder and the TEI writer run in-process) and `quire eval MODEL --url`
/ `bench/strings` (the same items posted to a running service over HTTP). Because both sides
read the same items and score with the same functions, equal figures mean the service path adds
no loss, and any difference is a bug in that path.

For each of the five text models this module reads GROBID's `evaluation/` TEI into items (the
input string an endpoint receives, and the gold field values), extracts the same kind of field
values from an endpoint's TEI answer, and counts true/false positives per field. Values are
compared after lower-casing and dropping everything but letters and digits; dates and years are
compared as numbers; a page range by its first page. Input strings keep only GROBID's own line
breaks (`<lb/>`, for affiliations; other models get a space), all other whitespace of the gold
file is one space, as the label-level evaluation sees the tokens.
*/

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;
use std::path::Path;

use quick_xml::events::Event;
use quick_xml::Reader;

use crate::eval::Counts;
use crate::{Error, Result};

/// The five models served by the raw-string endpoints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StringModel {
    Date,
    NameHeader,
    NameCitation,
    AffiliationAddress,
    Citation,
}

impl StringModel {
    pub const ALL: [StringModel; 5] = [
        StringModel::Date,
        StringModel::NameHeader,
        StringModel::NameCitation,
        StringModel::AffiliationAddress,
        StringModel::Citation,
    ];

    /// The model as GROBID names it (`name-header`, …); `None` for other models.
    pub fn from_name(name: &str) -> Option<StringModel> {
        StringModel::ALL.into_iter().find(|m| m.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            StringModel::Date => "date",
            StringModel::NameHeader => "name-header",
            StringModel::NameCitation => "name-citation",
            StringModel::AffiliationAddress => "affiliation-address",
            StringModel::Citation => "citation",
        }
    }

    /// The evaluation folder under the dataset directory.
    pub fn evaluation_dir(self) -> &'static str {
        match self {
            StringModel::Date => "date/evaluation",
            StringModel::NameHeader => "name/header/evaluation",
            StringModel::NameCitation => "name/citation/evaluation",
            StringModel::AffiliationAddress => "affiliation-address/evaluation",
            StringModel::Citation => "citation/evaluation",
        }
    }

    /// The endpoint that serves the model.
    pub fn endpoint(self) -> &'static str {
        match self {
            StringModel::Date => "/api/processDate",
            StringModel::NameHeader => "/api/processHeaderNames",
            StringModel::NameCitation => "/api/processCitationNames",
            StringModel::AffiliationAddress => "/api/processAffiliations",
            StringModel::Citation => "/api/processCitation",
        }
    }

    /// The form field carrying the string.
    pub fn form_field(self) -> &'static str {
        match self {
            StringModel::Date => "date",
            StringModel::NameHeader | StringModel::NameCitation => "names",
            StringModel::AffiliationAddress => "affiliations",
            StringModel::Citation => "citations",
        }
    }
}

/// One field value: `(field name, normalised value)`.
pub type FieldValue = (&'static str, String);

/// One evaluation item: the string an endpoint receives and the gold field values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub input: String,
    pub gold: Vec<FieldValue>,
}

// ---- a small element tree over quick-xml ----------------------------------------------------

/// An XML node: an element (local name lower-cased, attributes by local name) or text.
#[derive(Debug, Clone, PartialEq)]
enum Node {
    Elem(Elem),
    Text(String),
}

#[derive(Debug, Clone, Default, PartialEq)]
struct Elem {
    name: String,
    attrs: Vec<(String, String)>,
    children: Vec<Node>,
}

impl Elem {
    fn attr(&self, key: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Every element below (and including) this one, in document order.
    fn descendants(&self) -> Vec<&Elem> {
        fn walk<'a>(e: &'a Elem, out: &mut Vec<&'a Elem>) {
            out.push(e);
            for c in e.child_elems() {
                walk(c, out);
            }
        }
        let mut out = Vec::new();
        walk(self, &mut out);
        out
    }

    fn child_elems(&self) -> impl Iterator<Item = &Elem> {
        self.children.iter().filter_map(|c| match c {
            Node::Elem(e) => Some(e),
            Node::Text(_) => None,
        })
    }

    /// The text, `<lb/>`/`<pb/>` written as `lb` (never two in a row, none at either end),
    /// every other whitespace run as one space.
    fn text(&self, lb: &str) -> String {
        let mut raw = String::new();
        self.collect(&mut raw);
        let parts: Vec<String> = raw
            .split('\u{0}')
            .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|p| !p.is_empty())
            .collect();
        parts.join(lb)
    }

    /// Raw text with NUL marking line breaks.
    fn collect(&self, out: &mut String) {
        for c in &self.children {
            match c {
                Node::Text(t) => out.push_str(t),
                Node::Elem(e) if e.name == "lb" || e.name == "pb" => out.push('\u{0}'),
                Node::Elem(e) => e.collect(out),
            }
        }
    }
}

fn local(name: &str) -> String {
    name.rsplit(':').next().unwrap_or(name).to_string()
}

/// Parse a document or a fragment (several top-level elements) under a nameless root.
fn parse(xml: &str) -> std::result::Result<Elem, String> {
    let mut reader = Reader::from_str(xml);
    let mut stack: Vec<Elem> = vec![Elem::default()];
    let push = |stack: &mut Vec<Elem>, n: Node| {
        if let Some(top) = stack.last_mut() {
            top.children.push(n);
        }
    };
    loop {
        let ev = reader.read_event().map_err(|e| e.to_string())?;
        match ev {
            Event::Start(e) => stack.push(elem_of(&e)),
            Event::Empty(e) => {
                let el = elem_of(&e);
                push(&mut stack, Node::Elem(el));
            }
            Event::End(_) => {
                if stack.len() < 2 {
                    return Err("unbalanced end tag".into());
                }
                if let Some(done) = stack.pop() {
                    push(&mut stack, Node::Elem(done));
                }
            }
            Event::Text(t) => push(&mut stack, Node::Text(t.xml10_content().into_owned())),
            Event::CData(t) => push(&mut stack, Node::Text(t.as_ref().to_string())),
            Event::GeneralRef(r) => {
                let text = if r.is_char_ref() {
                    r.resolve_char_ref()
                        .map_err(|e| e.to_string())?
                        .map(String::from)
                } else {
                    quick_xml::escape::resolve_predefined_entity(&r.xml10_content())
                        .map(str::to_string)
                };
                push(
                    &mut stack,
                    Node::Text(text.ok_or("unknown entity".to_string())?),
                );
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if stack.len() != 1 {
        return Err("unclosed element".into());
    }
    stack.pop().ok_or_else(|| "empty".to_string())
}

fn elem_of(e: &quick_xml::events::BytesStart<'_>) -> Elem {
    Elem {
        name: local(e.name().as_ref()).to_lowercase(),
        attrs: e
            .attributes()
            .flatten()
            .map(|a| {
                let v = a
                    .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                    .map(|v| v.into_owned())
                    .unwrap_or_default();
                (local(a.key.as_ref()), v)
            })
            .collect(),
        children: Vec::new(),
    }
}

// ---- value normalisation --------------------------------------------------------------------

/// Lower-cased letters and digits only.
pub fn norm(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The first run of ASCII digits, as a number.
fn num(s: &str) -> Option<u32> {
    let start = s.find(|c: char| c.is_ascii_digit())?;
    let digits: String = s[start..]
        .chars()
        .take_while(char::is_ascii_digit)
        .take(9)
        .collect();
    digits.parse().ok()
}

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

/// A month number, a month name (English, its first three letters, or one of the other
/// languages the date model knows), or `None`.
fn month_of(s: &str) -> Option<u32> {
    if let Some(n) = num(s) {
        return Some(n);
    }
    let t = s.trim();
    let l: String = t.to_lowercase().chars().take(3).collect();
    MONTHS
        .iter()
        .position(|m| *m == l)
        .map(|i| i as u32 + 1)
        .or_else(|| crate::models::date::month_of_word(t))
}

/// A four-digit year (1xxx/2xxx) anywhere, else a two-digit one (≤ 30 → 20xx, else 19xx).
fn year_of(s: &str) -> Option<u32> {
    let compact: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    let b = compact.as_bytes();
    for i in 0..b.len().saturating_sub(3) {
        if (b[i] == b'1' || b[i] == b'2') && b[i + 1..i + 4].iter().all(u8::is_ascii_digit) {
            return compact[i..i + 4].parse().ok();
        }
    }
    match num(&compact) {
        Some(n) if n < 100 => Some(if n <= 30 { 2000 + n } else { 1900 + n }),
        _ => None,
    }
}

// ---- items (gold) -------------------------------------------------------------------------

/// Read every `.xml` file of the model's evaluation folder (sorted by name) into items.
pub fn items(dataset: &Path, model: StringModel) -> Result<Vec<Item>> {
    let dir = dataset.join(model.evaluation_dir());
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .map_err(|e| Error::io(&dir, e))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "xml"))
        .collect();
    paths.sort();
    let mut out = Vec::new();
    for p in paths {
        let text = std::fs::read_to_string(&p).map_err(|e| Error::io(&p, e))?;
        out.extend(items_of_str(model, &text).map_err(|reason| Error::Corpus {
            path: p.clone(),
            reason,
        })?);
    }
    Ok(out)
}

/// The items of one gold TEI document.
pub fn items_of_str(model: StringModel, xml: &str) -> std::result::Result<Vec<Item>, String> {
    let root = parse(xml)?;
    let all = root.descendants();
    let items = match model {
        StringModel::Date => all
            .into_iter()
            .filter(|e| e.name == "date")
            .map(|d| Item {
                input: d.text(" "),
                gold: date_gold(d),
            })
            .collect(),
        StringModel::NameHeader | StringModel::NameCitation => all
            .into_iter()
            .filter(|e| e.name == "author")
            .map(|a| Item {
                input: a.text(" "),
                gold: name_fields(a, true),
            })
            .collect(),
        StringModel::AffiliationAddress => all
            .into_iter()
            .filter(|e| e.name == "affiliation")
            .map(|a| Item {
                input: a.text("\n"),
                gold: affiliation_fields(a),
            })
            .collect(),
        StringModel::Citation => all
            .into_iter()
            .filter(|e| e.name == "bibl")
            .map(|b| Item {
                input: b.text(" "),
                gold: citation_gold(b),
            })
            .collect(),
    };
    Ok(items)
}

fn date_gold(d: &Elem) -> Vec<FieldValue> {
    let mut out = Vec::new();
    for c in d.child_elems() {
        let t = c.text(" ");
        let v = match c.name.as_str() {
            "year" => year_of(&t).map(|v| ("year", v)),
            "month" => month_of(&t).map(|v| ("month", v)),
            "day" => num(&t).map(|v| ("day", v)),
            _ => None,
        };
        if let Some((k, v)) = v {
            out.push((k, v.to_string()));
        }
    }
    out
}

/// Name parts of a gold `<author>` (`gold`: GROBID's corpus tags) or of an answer's
/// `<persName>`s (TEI: `forename type="middle"`, `roleName`, `genName`).
fn name_fields(a: &Elem, gold: bool) -> Vec<FieldValue> {
    let mut out = Vec::new();
    for e in a.descendants() {
        let field = match (e.name.as_str(), gold) {
            ("forename" | "firstname", true) => Some("forename"),
            ("middlename", true) => Some("middlename"),
            ("surname" | "lastname", true) => Some("surname"),
            ("rolename", true) => Some("title"),
            ("suffix", true) => Some("suffix"),
            ("forename", false) if e.attr("type") == Some("middle") => Some("middlename"),
            ("forename", false) => Some("forename"),
            ("surname", false) => Some("surname"),
            ("rolename", false) => Some("title"),
            ("genname", false) => Some("suffix"),
            _ => None,
        };
        if let Some(f) = field {
            let v = norm(&e.text(" "));
            if !v.is_empty() {
                out.push((f, v));
            }
        }
    }
    out
}

/// Organisation and address parts of every `<affiliation>` at or below `a` (gold and answer
/// share the TEI shape).
fn affiliation_fields(a: &Elem) -> Vec<FieldValue> {
    let mut out = Vec::new();
    for e in a.descendants() {
        let field = match e.name.as_str() {
            "orgname" => match e.attr("type").map(str::to_lowercase).as_deref() {
                Some("department" | "departement") => Some("department"),
                Some("institution" | "institute" | "consortium") => Some("institution"),
                Some("laboratory") => Some("laboratory"),
                _ => None,
            },
            "addrline" => Some("addrLine"),
            "settlement" => Some("settlement"),
            "region" => Some("region"),
            "postcode" => Some("postCode"),
            "postbox" => Some("postBox"),
            "country" => Some("country"),
            _ => None,
        };
        if let Some(f) = field {
            let v = norm(&e.text(" "));
            if !v.is_empty() {
                out.push((f, v));
            }
        }
    }
    out
}

fn first_page(s: &str) -> &str {
    s.split(['-', '–']).next().unwrap_or(s)
}

fn citation_gold(b: &Elem) -> Vec<FieldValue> {
    let mut out = Vec::new();
    for e in b.descendants() {
        let t = e.text(" ");
        match e.name.as_str() {
            "title" => {
                let f = match e.attr("level") {
                    Some("j") => "journal",
                    Some("m") => "booktitle",
                    Some("s") => "series",
                    _ => "title",
                };
                out.push((f, norm(&t)));
            }
            "biblscope" => {
                let ty = e.attr("type").or(e.attr("unit")).unwrap_or("");
                match ty.to_lowercase().as_str() {
                    "vol" | "volume" => out.push(("volume", norm(&t))),
                    "issue" | "number" => out.push(("issue", norm(&t))),
                    "pp" | "page" | "pages" => out.push(("page", norm(first_page(&t)))),
                    _ => {}
                }
            }
            "date" => {
                if let Some(y) = year_of(&t) {
                    out.push(("year", y.to_string()));
                }
            }
            "publisher" => out.push(("publisher", norm(&t))),
            _ => {}
        }
    }
    out
}

// ---- answers ------------------------------------------------------------------------------

/// The field values of an endpoint's answer (TEI; an empty body, as a 204 has, gives none;
/// malformed XML gives none).
pub fn answer_fields(model: StringModel, body: &str) -> Vec<FieldValue> {
    let Ok(root) = parse(body) else {
        return Vec::new();
    };
    match model {
        StringModel::Date => {
            let mut out = Vec::new();
            for d in root.child_elems().filter(|e| e.name == "date") {
                let parts = d.attr("when").unwrap_or("").split('-');
                for (k, p) in ["year", "month", "day"].into_iter().zip(parts) {
                    if let Ok(v) = p.parse::<u32>() {
                        out.push((k, v.to_string()));
                    }
                }
            }
            out
        }
        StringModel::NameHeader | StringModel::NameCitation => name_fields(&root, false),
        StringModel::AffiliationAddress => affiliation_fields(&root),
        StringModel::Citation => {
            let mut out = Vec::new();
            for e in root.descendants() {
                match e.name.as_str() {
                    "title" => {
                        let f = if e.attr("type") == Some("main") {
                            // The reference's own title (level a, or m without a container).
                            "title"
                        } else {
                            match e.attr("level") {
                                Some("j") => "journal",
                                Some("m") => "booktitle",
                                Some("s") => "series",
                                _ => "title",
                            }
                        };
                        out.push((f, norm(&e.text(" "))));
                    }
                    "biblscope" => match e.attr("unit") {
                        Some("page") => {
                            let from = e.attr("from").map(str::to_string);
                            out.push(("page", norm(&from.unwrap_or_else(|| e.text(" ")))));
                        }
                        Some("volume") => out.push(("volume", norm(&e.text(" ")))),
                        Some("issue") => out.push(("issue", norm(&e.text(" ")))),
                        _ => {}
                    },
                    "date" => {
                        if let Some(y) = e.attr("when").and_then(year_of) {
                            out.push(("year", y.to_string()));
                        }
                    }
                    "publisher" => out.push(("publisher", norm(&e.text(" ")))),
                    _ => {}
                }
            }
            out
        }
    }
}

// ---- scoring -------------------------------------------------------------------------------

/// Per-field counts over many items.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Score {
    pub fields: BTreeMap<&'static str, Counts>,
    pub items: usize,
}

impl Score {
    /// Count one item: a predicted value is correct when the gold has it (as a multiset).
    pub fn add(&mut self, gold: &[FieldValue], predicted: &[FieldValue]) {
        self.items += 1;
        let mut g: HashMap<&FieldValue, usize> = HashMap::new();
        for v in gold {
            *g.entry(v).or_default() += 1;
        }
        let mut p: HashMap<&FieldValue, usize> = HashMap::new();
        for v in predicted {
            *p.entry(v).or_default() += 1;
        }
        for (v, n) in &p {
            let m = (*n).min(g.get(v).copied().unwrap_or(0));
            let c = self.fields.entry(v.0).or_default();
            c.tp += m;
            c.fp += n - m;
        }
        for (v, n) in &g {
            let m = (*n).min(p.get(v).copied().unwrap_or(0));
            self.fields.entry(v.0).or_default().fn_ += n - m;
        }
    }

    /// Micro-averaged counts over every field.
    pub fn total(&self) -> Counts {
        let mut t = Counts::default();
        for c in self.fields.values() {
            t.tp += c.tp;
            t.fp += c.fp;
            t.fn_ += c.fn_;
        }
        t
    }

    /// Micro F1 in percent.
    pub fn micro_f1(&self) -> f64 {
        self.total().scores().f1 * 100.0
    }

    /// A table: one row per field, then the micro average.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{:<14} {:>7} {:>7} {:>7} {:>8}",
            "field", "P", "R", "F1", "support"
        );
        let row = |out: &mut String, name: &str, c: &Counts| {
            let s = c.scores();
            let _ = writeln!(
                out,
                "{:<14} {:>7.2} {:>7.2} {:>7.2} {:>8}",
                name,
                s.precision * 100.0,
                s.recall * 100.0,
                s.f1 * 100.0,
                s.support
            );
        };
        for (f, c) in &self.fields {
            row(&mut out, f, c);
        }
        row(&mut out, "micro", &self.total());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_items_and_answers() {
        let gold = "<?xml version=\"1.0\"?><dates>\n\t<date>Received <day>5</day>\n <month>Sept.</month> <year>'07</year><lb/></date><date><year>1992</year></date></dates>";
        let items = items_of_str(StringModel::Date, gold).unwrap();
        assert_eq!(items.len(), 2);
        let juillet = items_of_str(
            StringModel::Date,
            "<dates><date><month>Juillet</month> <year>1996</year></date></dates>",
        )
        .unwrap();
        assert_eq!(juillet[0].gold[0], ("month", "7".to_string()));
        assert_eq!(items[0].input, "Received 5 Sept. '07");
        assert_eq!(
            items[0].gold,
            vec![
                ("day", "5".to_string()),
                ("month", "9".to_string()),
                ("year", "2007".to_string())
            ]
        );
        let got = answer_fields(StringModel::Date, "<date when=\"2007-09-05\" />");
        let mut s = Score::default();
        s.add(&items[0].gold, &got);
        s.add(&items[1].gold, &answer_fields(StringModel::Date, ""));
        assert_eq!(
            s.total(),
            Counts {
                tp: 3,
                fp: 0,
                fn_: 1
            }
        );
        assert!((s.micro_f1() - 85.714).abs() < 0.01, "{}", s.micro_f1());
    }

    #[test]
    fn affiliation_inputs_keep_only_lb_breaks() {
        let gold = "<TEI><affiliation>\n\t<orgName type=\"department\">Dept. of CS<lb/> </orgName>\n\t<orgName type=\"institution\">Ohio State Univ.</orgName>,\n<address><settlement>Columbus</settlement>, <country>USA</country></address></affiliation></TEI>";
        let items = items_of_str(StringModel::AffiliationAddress, gold).unwrap();
        assert_eq!(
            items[0].input,
            "Dept. of CS\nOhio State Univ., Columbus, USA"
        );
        let answer = "\t<affiliation>\n\t\t<orgName type=\"department\">Dept. of CS</orgName>\n\t\t<orgName type=\"institution\">Ohio State Univ</orgName>\n\t\t<address>\n\t\t\t<settlement>Columbus</settlement>\n\t\t</address>\n\t</affiliation>\n";
        let mut s = Score::default();
        s.add(
            &items[0].gold,
            &answer_fields(StringModel::AffiliationAddress, answer),
        );
        assert_eq!(s.fields["department"].tp, 1);
        assert_eq!(s.fields["institution"].tp, 1);
        assert_eq!(s.fields["country"].fn_, 1);
        assert_eq!(
            s.total(),
            Counts {
                tp: 3,
                fp: 0,
                fn_: 1
            }
        );
    }

    #[test]
    fn names_map_tei_parts_to_corpus_tags() {
        let gold = "<x><author><forename>B</forename>. <middlename>K</middlename> <lastname>van Ng</lastname> &amp; <forename>A</forename> <surname>Lopes</surname></author></x>";
        let items = items_of_str(StringModel::NameCitation, gold).unwrap();
        assert_eq!(items[0].input, "B. K van Ng & A Lopes");
        let answer = "<persName xmlns=\"http://www.tei-c.org/ns/1.0\"><forename type=\"first\">B</forename><forename type=\"middle\">K.</forename><surname>van Ng</surname></persName><persName xmlns=\"http://www.tei-c.org/ns/1.0\"><forename type=\"first\">A</forename><surname>Lopes</surname><genName>Jr</genName></persName>";
        let mut s = Score::default();
        s.add(
            &items[0].gold,
            &answer_fields(StringModel::NameCitation, answer),
        );
        assert_eq!(
            s.total(),
            Counts {
                tp: 5,
                fp: 1,
                fn_: 0
            }
        );
        assert_eq!(s.fields["suffix"].fp, 1);
    }

    #[test]
    fn citation_fields_from_gold_and_bibl_struct() {
        let gold = "<listBibl><bibl><author>C. Hamer</author>, <title level=\"a\">On things</title>, <title level=\"j\">Nucl. Phys. B</title> <biblScope unit=\"volume\">195</biblScope>, <biblScope unit=\"page\">503-510</biblScope> (<date>1982</date>).</bibl></listBibl>";
        let items = items_of_str(StringModel::Citation, gold).unwrap();
        assert_eq!(
            items[0].input,
            "C. Hamer, On things, Nucl. Phys. B 195, 503-510 (1982)."
        );
        let answer = "<biblStruct status=\"extracted\">\n<analytic><title level=\"a\" type=\"main\">On things</title></analytic><monogr><title level=\"j\">Nucl. Phys. B</title><imprint><biblScope unit=\"volume\">195</biblScope><biblScope unit=\"page\" from=\"503\" to=\"510\" /><date type=\"published\" when=\"1982\" /></imprint></monogr></biblStruct>";
        let got = answer_fields(StringModel::Citation, answer);
        let mut want = items[0].gold.clone();
        want.sort();
        let mut got_sorted = got.clone();
        got_sorted.sort();
        assert_eq!(got_sorted, want);
        let mut s = Score::default();
        s.add(&items[0].gold, &got);
        assert_eq!(s.micro_f1(), 100.0);
    }

    #[test]
    fn malformed_gold_is_an_error_and_malformed_answers_score_nothing() {
        assert!(items_of_str(StringModel::Date, "<dates><date>1992</dates>").is_err());
        assert!(answer_fields(StringModel::Date, "<date when=\"1992\">").is_empty());
    }

    #[test]
    fn gated_every_evaluation_file_gives_items() {
        let Some(dataset) = crate::testutil::gate::require_dataset("date/evaluation") else {
            return;
        };
        for m in StringModel::ALL {
            let items = items(&dataset, m).unwrap();
            assert!(!items.is_empty(), "{m:?}");
            assert!(items.iter().all(|i| !i.input.is_empty()), "{m:?}");
            eprintln!("{}: {} items", m.name(), items.len());
        }
    }
}
