//! Statements of the back matter: conflict of interest (competing interests), author
//! contributions, ethics, data availability, funding and acknowledgement, filed in the TEI
//! `back` as GROBID 0.9 does (`div type="conflict"`, `div type="contribution"`, after the
//! availability divs; `ethics` is Quire's own type, after them).
//!
//! They are found by their printed heads, in three places:
//! - sections of the body or of the annex headed by one (`Competing interests`) move to the
//!   back matter of their kind ([`file`]);
//! - paragraphs opening with a run-in head (`Author contributions: …`) anywhere in the body or
//!   back matter leave their section for a statement of their own;
//! - the laid-out pages ([`scan`]): a block opening with a head, or a short block holding only
//!   a head and the block after it. The header answer writes these (it has no body); the full
//!   text adds those its sections do not already hold (a first-page footnote).

use crate::document::{
    place_words, Article, Back, BodyBlock, Div, Head, HeaderRecord, RichText, Statement,
    StatementKind,
};
use crate::layout::BBox;
use crate::metadata::PageText;

/// `s` folded to lower-case letters only, diacritics dropped (`Authors' contributions` →
/// `authorscontributions`).
fn letters(s: &str) -> String {
    // ASCII is its own decomposition, and its letters are the ASCII letters: the same answer
    // without the normaliser, for the many candidate heads every block offers.
    if s.is_ascii() {
        return s
            .bytes()
            .filter(u8::is_ascii_alphabetic)
            .map(|b| char::from(b.to_ascii_lowercase()))
            .collect();
    }
    letters_decomposed(s)
}

/// [`letters`] for any text: decomposed, letters kept, lower-cased.
fn letters_decomposed(s: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    s.nfd()
        .filter(|c| c.is_alphabetic())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The kind of statement a head announces, if any. A head is short: at most eight words.
pub fn head_kind(head: &str) -> Option<StatementKind> {
    let head = head.trim();
    let words = head.split_whitespace().count();
    if !(1..=8).contains(&words) {
        return None;
    }
    let l = letters(head);
    let has = |k: &str| l.contains(k);
    use StatementKind::*;
    if (has("conflict") || has("conflito") || has("conflicto")) && has("interes")
        || has("competinginterest")
        || has("competingfinancialinterest")
        || has("declarationofinterest")
        || has("dualityofinterest")
        || matches!(
            l.as_str(),
            "disclosure" | "disclosures" | "disclosurestatement"
        )
    {
        return Some(Conflict);
    }
    if has("contribution") && (has("author") || has("credit"))
        || (has("contribuic") || has("contribuc")) && has("autor")
        || matches!(
            l.as_str(),
            "contributors" | "authorship" | "authorshipcontribution"
        )
    {
        return Some(Contribution);
    }
    if matches!(
        l.as_str(),
        "ethics" | "ethical" | "ethicsandconsent" | "ethicalaspects"
    ) || [
        "ethicsapproval",
        "ethicalapproval",
        "ethicsstatement",
        "ethicalstatement",
        "ethicalconsideration",
        "ethicsconsideration",
        "ethicsdeclaration",
        "ethicaldeclaration",
        "ethicscommittee",
        "informedconsent",
        "consenttoparticipate",
        "consentforpublication",
        "institutionalreviewboard",
        "patientconsent",
        "aspectoseticos",
        "consideracoeseticas",
        "consideracioneseticas",
    ]
    .iter()
    .any(|k| has(k))
    {
        return Some(Ethics);
    }
    if has("availability")
        && (["data", "code", "software", "material", "accession"]
            .iter()
            .any(|k| has(k))
            || matches!(l.as_str(), "availability" | "availabilitystatement"))
        || l.starts_with("datasharing")
        || l.starts_with("dataaccessibility")
        || l.starts_with("disponibilidadededados")
        || l.starts_with("disponibilidaddedatos")
    {
        return Some(Availability);
    }
    if matches!(
        l.as_str(),
        "funding"
            | "fundinginformation"
            | "fundingstatement"
            | "fundingsources"
            | "sourcesoffunding"
            | "sourceoffunding"
            | "financialsupport"
            | "financialdisclosure"
            | "financialdisclosures"
            | "grantsupport"
            | "financiamento"
            | "financiacion"
            | "financiamiento"
            | "fontesdefinanciamento"
            | "fundingandacknowledgements"
    ) {
        return Some(Funding);
    }
    if l.starts_with("acknowledg")
        || l.starts_with("agradecimento")
        || l.starts_with("agradecimiento")
    {
        return Some(Acknowledgement);
    }
    None
}

/// A run-in head opening `text` (`Conflicts of interest: None.`): its kind, the head, and
/// where the statement's text starts. The head ends at a colon, a full stop or a dash within
/// the first 80 bytes and is followed by text.
fn run_in(text: &str) -> Option<(StatementKind, &str, usize)> {
    run_in_punct(text).or_else(|| run_in_typed(text))
}

/// Words a conflict-of-interest or contribution head ends with (letters only, lower case).
const HEAD_NOUNS: &[&str] = &[
    "interest",
    "interests",
    "interesses",
    "intereses",
    "contribution",
    "contributions",
    "contributors",
    "authorship",
    "autores",
    "autoria",
    "statement",
    "statements",
    "declaration",
    "declarations",
    "disclosure",
    "disclosures",
];

/// Whether `head`, of kind `k`, ends as such a head does: a conflict-of-interest or
/// contribution head ends with its noun ([`HEAD_NOUNS`]); `Competing interests None declared`
/// (up to a full stop) is a head and its statement. Other kinds are not checked.
fn ends_as_a_head(k: StatementKind, head: &str) -> bool {
    let l = letters(head);
    !matches!(k, StatementKind::Contribution | StatementKind::Conflict)
        || HEAD_NOUNS.iter().any(|n| l.ends_with(n))
}

/// [`run_in`]'s head ended by punctuation.
fn run_in_punct(text: &str) -> Option<(StatementKind, &str, usize)> {
    let punct = text
        .char_indices()
        .take_while(|(i, _)| *i < 80)
        .find(|(_, c)| matches!(c, ':' | '.' | '—' | '–'))
        .map(|(i, c)| (i, i + c.len_utf8()));
    if let Some(end) = punct {
        let head = text[..end.0].trim();
        if let Some(kind) = head_kind(head).filter(|k| ends_as_a_head(*k, head)) {
            let rest = text[end.1..].trim_start();
            if rest.chars().filter(|c| c.is_alphanumeric()).count() >= 2 {
                return Some((kind, head, text.len() - rest.len()));
            }
        }
    }
    None
}

/// [`run_in`]'s head set off by type alone (`Competing interests None declared.`): the longest
/// run of at most five words that is a head and is followed by a capitalised word.
fn run_in_typed(text: &str) -> Option<(StatementKind, &str, usize)> {
    let mut ends: Vec<usize> = text
        .char_indices()
        .filter(|(_, c)| *c == ' ')
        .map(|(i, _)| i)
        .take(5)
        .collect();
    ends.reverse();
    for end in ends {
        let head = text[..end].trim();
        let rest = text[end..].trim_start();
        if head.ends_with([',', ';', ':', '.']) || !rest.starts_with(char::is_uppercase) {
            continue;
        }
        if let Some(kind) = head_kind(head) {
            if rest.chars().filter(|c| c.is_alphanumeric()).count() >= 2 {
                return Some((kind, head, text.len() - rest.len()));
            }
        }
    }
    None
}

/// A line that can only be a head: short, no sentence inside.
/// A line that can only be a head: short, no sentence and no colon inside.
fn head_only(line: &str) -> Option<StatementKind> {
    let t = line.trim().trim_end_matches([':', '.']).trim();
    let clean = !t.is_empty() && !t.contains(". ") && !t.contains(':');
    clean.then(|| head_kind(t)).flatten()
}

/// Heads of other matter printed among the statements (letters only, lower case): a statement
/// ends where one of them starts a sentence.
const OTHER_HEADS: &[&str] = &[
    "additionalinformation",
    "patientandpublicinvolvement",
    "provenanceandpeerreview",
    "publishersnote",
    "supplementaryinformation",
    "supplementarymaterial",
    "supplementarymaterials",
    "electronicsupplementarymaterial",
    "openaccess",
    "copyright",
    "abbreviations",
    "correspondence",
    "reprintsandpermissions",
    "rightsandpermissions",
    "declarations",
    "disclaimer",
    "trialregistration",
    "roleofthefunder",
    "roleofthefundingsource",
    "editorsnote",
    "handlingeditor",
    "academiceditor",
    "received",
    "accepted",
    "published",
    "citation",
    "keywords",
    "notes",
    "orcid",
    "references",
    "revised",
    "howtocite",
    "citethisarticle",
    "recebidoem",
    "recebido",
    "aprovadoem",
    "aprovado",
    "aceitoem",
    "aceito",
    "publicadoem",
    "comocitar",
    "recibido",
    "aceptado",
    "aprobado",
    "publicado",
    "editor",
    "editores",
    "editors",
    "associateeditor",
    "sectioneditor",
];

/// Sentences of other matter that need no colon (letters only, lower case, as prefixes): a
/// statement ends before them.
const OTHER_OPENERS: &[&str] = &[
    "openaccessthisarticle",
    "thisisanopenaccessarticle",
    "thisarticleislicensed",
    "publishersnote",
    "springernatureremainsneutral",
    "copyright",
];

/// One start of a run-in head in a text: where it starts, the statement's kind (`None`:
/// other matter, which ends the statement before it), the head, and where the text after
/// the head starts.
type Start<'a> = (usize, Option<StatementKind>, &'a str, usize);

/// Where statements start in `text`: at its start or after a sentence end, a run-in head
/// (`Funding: …`) of a statement or of other matter.
fn starts(text: &str) -> Vec<Start<'_>> {
    starts_screened(text, true)
}

/// Words one of which (letters only, lower case) every contribution or conflict-of-interest
/// head holds: [`head_kind`] gives neither kind to a head without one.
const NOUN_HEAD_STEMS: &[&str] = &["interes", "disclosure", "contribu", "authorship"];

/// Whether a run-on head (a contribution or conflict-of-interest head, see [`starts`]) may
/// open `rest`: false only when the bytes any such head could span (up to the fifth space,
/// or the first 80 bytes, whichever reaches further) are ASCII and hold none of
/// [`NOUN_HEAD_STEMS`]. Every capitalised word of a text is such a candidate; most are
/// ruled out here without building a head.
fn may_open_noun_head(rest: &str) -> bool {
    let bytes = rest.as_bytes();
    let fifth_space = bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b' ')
        .nth(4)
        .map_or(bytes.len(), |(i, _)| i);
    let end = fifth_space.max(bytes.len().min(80));
    if !bytes[..end].is_ascii() {
        return true;
    }
    // ASCII up to `end`, so `end` is a character boundary, and `letters` of any head within
    // the reach is a prefix of the reach's.
    let folded = letters(&rest[..end]);
    NOUN_HEAD_STEMS.iter().any(|stem| folded.contains(stem))
}

/// [`starts`]; `screen` rules out run-on heads with [`may_open_noun_head`] first (the same
/// starts either way; false only in the test that checks so).
fn starts_screened(text: &str, screen: bool) -> Vec<Start<'_>> {
    // (where, after a sentence end or at the start)
    let mut cands = vec![(0, true)];
    for (i, _) in text.match_indices(". ").chain(text.match_indices("; ")) {
        cands.push((i + 2, true));
    }
    // A head the layout ran on into the text before it, which did not end a sentence
    // (`… inhibitory concentration Authors' contributions NJ carried out …`): only a
    // contribution or conflict-of-interest head of two words or more that ends with its noun
    // counts there (`Ethics Committee`, `Research Ethics Board` name bodies in running text).
    for (i, _) in text.match_indices(' ') {
        let before = text[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == ')')
            && text[i + 1..].starts_with(char::is_uppercase)
        {
            cands.push((i + 1, false));
        }
    }
    cands.sort_unstable();
    let mut out = Vec::new();
    for (at, after_end) in cands {
        // Inside the head of the start before it (`Declaration of Competing Interest`).
        if out.last().is_some_and(|s: &Start| at < s.3) {
            continue;
        }
        let rest = &text[at..];
        if !rest.starts_with(char::is_uppercase) {
            continue;
        }
        if !after_end {
            if screen && !may_open_noun_head(rest) {
                continue;
            }
            // Set off by type first (the text after such a head is a sentence whose first
            // full stop would otherwise end a long "head"); a head ended by punctuation only
            // when short.
            let words = |h: &str| h.split_whitespace().count();
            let noun_last = |(k, h, _): &(StatementKind, &str, usize)| {
                matches!(k, StatementKind::Contribution | StatementKind::Conflict)
                    && ends_as_a_head(*k, h)
            };
            let found = run_in_typed(rest)
                .filter(|f| words(f.1) >= 2 && noun_last(f))
                .or_else(|| {
                    run_in_punct(rest).filter(|f| (2..=4).contains(&words(f.1)) && noun_last(f))
                });
            if let Some((k, head, body)) = found {
                out.push((at, Some(k), head, at + body));
            }
            continue;
        }
        if let Some((k, head, body)) = run_in(rest) {
            out.push((at, Some(k), head, at + body));
            continue;
        }
        let opening = letters(&rest.chars().take(40).collect::<String>());
        if OTHER_OPENERS.iter().any(|o| opening.starts_with(o)) {
            out.push((at, None, "", at));
            continue;
        }
        let colon = rest
            .char_indices()
            .take_while(|(i, _)| *i < 60)
            .find(|(_, c)| *c == ':');
        if let Some((c, _)) = colon {
            let head = &rest[..c];
            if OTHER_HEADS.contains(&letters(head).as_str()) {
                out.push((at, None, head, at + c + 1));
                continue;
            }
        }
        // One of two to five words set off by type (`Patient and public involvement Patients
        // were …`).
        let spaces: Vec<usize> = rest.match_indices(' ').map(|(i, _)| i).take(5).collect();
        for w in (2..=spaces.len().min(5)).rev() {
            let (head, after) = (&rest[..spaces[w - 1]], &rest[spaces[w - 1] + 1..]);
            if after.starts_with(char::is_uppercase)
                && OTHER_HEADS.contains(&letters(head).as_str())
            {
                out.push((at, None, head, at + spaces[w - 1] + 1));
                break;
            }
        }
    }
    out
}

/// The statements run in `text` (see [`starts`]), each up to the next start.
fn run_in_statements(text: &str) -> Vec<Statement> {
    let st = starts(text);
    let mut out = Vec::new();
    for (i, (_, kind, head, body)) in st.iter().enumerate() {
        let Some(kind) = kind else { continue };
        let end = st.get(i + 1).map_or(text.len(), |n| n.0);
        let t = text[*body..end].trim();
        if !t.is_empty() {
            out.push(Statement {
                kind: *kind,
                head: Some(head.trim().to_string()),
                text: t.to_string(),
                tokens: Vec::new(),
            });
        }
    }
    out
}

/// The CRediT contributor roles (letters only, lower case), which open the lines of a
/// contribution statement (`Conceptualization: A.B.`).
const CREDIT_ROLES: &[&str] = &[
    "conceptualization",
    "conceptualisation",
    "datacuration",
    "formalanalysis",
    "fundingacquisition",
    "investigation",
    "methodology",
    "projectadministration",
    "resources",
    "software",
    "supervision",
    "validation",
    "visualization",
    "visualisation",
    "writingoriginaldraft",
    "writingreviewediting",
    "writingreviewandediting",
];

/// Whether `block` opens with a CRediT role (`Writing – review & editing:`).
fn opens_with_role(block: &str) -> bool {
    let head = block.split([':', ',', ';']).next().unwrap_or("");
    head.len() < 40 && CREDIT_ROLES.contains(&letters(head).as_str())
}

/// The first line of block `i` of `p`.
fn first_line(p: &PageText, i: usize) -> &str {
    p.lines
        .get(i)
        .and_then(|l| l.first())
        .map_or("", String::as_str)
}

/// Statements of the laid-out pages (see the module documentation), in page order.
pub fn scan(pages: &[PageText]) -> Vec<Statement> {
    let mut out = Vec::new();
    for p in pages {
        let n = p.blocks.len().min(p.lines.len());
        let mut i = 0;
        while i < n {
            let from = i;
            let first = first_line(p, i);
            let mut text = p.blocks[i].trim().to_string();
            if head_only(first).is_some() {
                let head = first.trim().trim_end_matches([':', '.']).trim();
                let rest: String = p.lines[i][1..].concat();
                let rest = if rest.trim().is_empty() {
                    // The head alone in its block: the statement is the next block.
                    match p.blocks.get(i + 1) {
                        Some(next) if i + 1 < n && head_only(first_line(p, i + 1)).is_none() => {
                            i += 1;
                            next.trim().to_string()
                        }
                        _ => String::new(),
                    }
                } else {
                    rest.trim().to_string()
                };
                text = format!("{head}: {rest}");
            }
            i += 1;
            let mut found = run_in_statements(&text);
            let Some(last) = found.last_mut() else {
                continue;
            };
            // Blocks going on in lower case (or, in a contribution statement, with a CRediT
            // role) continue the last statement when it ends the block.
            if text.trim_end().ends_with(last.text.as_str()) {
                while i < n {
                    let next = p.blocks[i].trim();
                    let goes_on = next.starts_with(char::is_lowercase)
                        || (last.kind == StatementKind::Contribution && opens_with_role(next));
                    if !goes_on || head_only(first_line(p, i)).is_some() {
                        break;
                    }
                    last.text.push(' ');
                    last.text.push_str(next);
                    i += 1;
                }
            }
            let words: Vec<(&str, u32, BBox)> = p
                .words
                .get(from..i.min(p.words.len()))
                .unwrap_or_default()
                .iter()
                .flatten()
                .map(|(w, b)| (w.as_str(), p.number, *b))
                .collect();
            for s in &mut found {
                s.tokens = place_words(&s.text, &words);
            }
            out.append(&mut found);
        }
    }
    out
}

fn statement_div(s: &Statement) -> Div {
    Div {
        head: s.head.as_ref().map(|h| head_text(h)),
        blocks: vec![BodyBlock::Paragraph(RichText {
            text: s.text.clone(),
            tokens: s.tokens.clone(),
            ..RichText::default()
        })],
    }
}

fn head_text(h: &str) -> Head {
    Head {
        n: None,
        text: RichText {
            text: h.trim().to_string(),
            ..RichText::default()
        },
    }
}

fn list_of(back: &mut Back, kind: StatementKind) -> &mut Vec<Div> {
    match kind {
        StatementKind::Acknowledgement => &mut back.acknowledgement,
        StatementKind::Funding => &mut back.funding,
        StatementKind::Availability => &mut back.availability,
        StatementKind::Conflict => &mut back.conflict,
        StatementKind::Contribution => &mut back.contribution,
        StatementKind::Ethics => &mut back.ethics,
    }
}

/// The back matter of a header-only answer: the front matter's funding and availability
/// statements, then the statements of the laid-out pages not already among them.
pub fn header_back(h: &HeaderRecord) -> Back {
    let mut back = Back::default();
    crate::body::header_statements(&mut back, h);
    add_missing(&mut back, &h.statements, &[]);
    back
}

/// Normalised text for containment checks: lower-case letters and digits only.
fn norm(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

fn div_texts(d: &Div) -> Vec<&str> {
    let mut out = Vec::new();
    for b in &d.blocks {
        match b {
            BodyBlock::Paragraph(t) => out.push(t.text.as_str()),
            BodyBlock::List(items) => out.extend(items.iter().map(|t| t.text.as_str())),
            BodyBlock::Formula(_) => {}
        }
    }
    out
}

/// Adds each statement whose text the article does not already hold (`held`: the other texts
/// to look in besides the back matter) as a div of its kind.
fn add_missing(back: &mut Back, statements: &[Statement], held: &[String]) {
    let mut known: String = held.concat();
    for (_, divs) in back.sections() {
        for d in divs {
            div_texts(d)
                .into_iter()
                .for_each(|t| known.push_str(&norm(t)));
        }
    }
    for s in statements {
        let n = norm(&s.text);
        let probe: String = n.chars().take(80).collect();
        if probe.len() < 8 || known.contains(&probe) {
            continue;
        }
        known.push_str(&n);
        list_of(back, s.kind).push(statement_div(s));
    }
}

/// The part `a..b` of `rt` (trimmed): its text, and its tokens and callouts shifted (those
/// outside dropped).
fn slice(rt: &RichText, a: usize, b: usize) -> RichText {
    let part = &rt.text[a..b];
    let a = a + (part.len() - part.trim_start().len());
    let b = (b - (part.len() - part.trim_end().len())).max(a);
    let inside = |r: &std::ops::Range<usize>| r.start >= a && r.end <= b;
    let shift = |r: &std::ops::Range<usize>| r.start - a..r.end - a;
    RichText {
        text: rt.text[a..b].to_string(),
        refs: rt
            .refs
            .iter()
            .filter(|c| inside(&c.range))
            .map(|c| crate::document::Callout {
                range: shift(&c.range),
                ..c.clone()
            })
            .collect(),
        tokens: rt
            .tokens
            .iter()
            .filter(|t| inside(&t.range))
            .map(|t| crate::document::TokenBox {
                range: shift(&t.range),
                ..t.clone()
            })
            .collect(),
    }
}

/// Moves the statements of `divs` (found in the place of kind `here`, `None` for the body and
/// the annex) out to `moved`: whole sections headed by another kind, and the parts of
/// paragraphs a run-in head of another kind opens. Paragraphs that go on a contribution
/// statement moved out with CRediT roles (`Data curation: …`) go with it. In a statement's
/// own place (`here` is a kind), other matter that a statement ran on into (`Open Access This
/// article is licensed…`, `Copyright © …`) is cut out to `other`.
fn take_statements(
    divs: &mut Vec<Div>,
    here: Option<StatementKind>,
    moved: &mut Vec<(StatementKind, Div)>,
    other: &mut Vec<Div>,
) {
    let mut kept = Vec::with_capacity(divs.len());
    for mut d in divs.drain(..) {
        let kind = d.head.as_ref().and_then(|h| head_kind(&h.text.text));
        // In the body, ethics and data-handling sections are often the methods' own
        // subsections ("Ethical considerations", "Data sharing and protection"): they stay.
        let movable = |k: &StatementKind| {
            here.is_some()
                || match k {
                    StatementKind::Ethics => false,
                    StatementKind::Availability => d
                        .head
                        .as_ref()
                        .is_some_and(|h| letters(&h.text.text).contains("availability")),
                    _ => true,
                }
        };
        if let Some(k) = kind.filter(|k| Some(*k) != here && movable(k)) {
            moved.push((k, d));
            continue;
        }
        let leaves =
            |k: &Option<StatementKind>| k.is_some_and(|k| Some(k) != here && Some(k) != kind);
        let cuts = |k: &Option<StatementKind>| leaves(k) || (k.is_none() && here.is_some());
        let mut blocks = Vec::with_capacity(d.blocks.len());
        // The contribution statement moved out of this div whose roles the next paragraphs
        // may go on with.
        let mut roles_of: Option<usize> = None;
        for b in d.blocks.drain(..) {
            let BodyBlock::Paragraph(p) = &b else {
                roles_of = None;
                blocks.push(b);
                continue;
            };
            if let Some(m) = roles_of {
                if opens_with_role(&p.text) {
                    moved[m].1.blocks.push(b);
                    continue;
                }
                roles_of = None;
            }
            let st = starts(&p.text);
            if !st.iter().any(|s| cuts(&s.1)) {
                blocks.push(b);
                continue;
            }
            // The text before the first start stays, as does every part that is not a
            // statement of another kind (or, in a statement's place, other matter).
            let first = st.first().map_or(p.text.len(), |s| s.0);
            if !p.text[..first].trim().is_empty() {
                blocks.push(BodyBlock::Paragraph(slice(p, 0, first)));
            }
            for (i, (at, k, head, body)) in st.iter().enumerate() {
                let end = st.get(i + 1).map_or(p.text.len(), |n| n.0);
                match k {
                    Some(k) if leaves(&Some(*k)) => {
                        moved.push((
                            *k,
                            Div {
                                head: Some(head_text(head)),
                                blocks: vec![BodyBlock::Paragraph(slice(p, *body, end))],
                            },
                        ));
                        if *k == StatementKind::Contribution && end == p.text.len() {
                            roles_of = Some(moved.len() - 1);
                        }
                    }
                    None if cuts(k) => other.push(Div {
                        head: None,
                        blocks: vec![BodyBlock::Paragraph(slice(p, *at, end))],
                    }),
                    _ => blocks.push(BodyBlock::Paragraph(slice(p, *at, end))),
                }
            }
        }
        d.blocks = blocks;
        if d.head.is_some() || !d.blocks.is_empty() {
            kept.push(d);
        }
    }
    *divs = kept;
}

/// Statement sections whose head line holds the statement too (`Competing interests None
/// declared.`, set as one line in the head's type): the head keeps the head's words, the rest
/// (a sentence, or three words or more) opens the section's text.
fn heads_holding_statements(divs: &mut [Div]) {
    for d in divs {
        let Some(h) = d.head.as_ref().map(|h| h.text.clone()) else {
            continue;
        };
        let Some((_, head, body)) = run_in(&h.text) else {
            continue;
        };
        let rest = h.text[body..].trim();
        if rest.is_empty()
            || !(rest.ends_with(['.', '!', '?']) || rest.split_whitespace().count() >= 3)
        {
            continue;
        }
        let part = slice(&h, body, h.text.len());
        match d.blocks.first_mut() {
            // The head's rest opens the first paragraph (`AH, JG and` / `MAI conceptualized…`).
            Some(BodyBlock::Paragraph(p)) => *p = joined(part, p),
            // Alone, only with its words' boxes: a sectioned paragraph without any is what
            // consumers reading sentence coords cannot take.
            _ if !part.tokens.is_empty() => d.blocks.insert(0, BodyBlock::Paragraph(part)),
            _ => continue,
        }
        d.head = Some(head_text(head));
    }
}

/// `a` then `b`, one space between: `b`'s tokens and callouts shifted.
fn joined(a: RichText, b: &RichText) -> RichText {
    let at = a.text.len() + 1;
    let shift = |r: &std::ops::Range<usize>| r.start + at..r.end + at;
    let mut out = a;
    out.text.push(' ');
    out.text.push_str(&b.text);
    out.refs
        .extend(b.refs.iter().map(|c| crate::document::Callout {
            range: shift(&c.range),
            ..c.clone()
        }));
    out.tokens
        .extend(b.tokens.iter().map(|t| crate::document::TokenBox {
            range: shift(&t.range),
            ..t.clone()
        }));
    out
}

/// Sections headed by a CRediT role line (`Data curation: E. Strand, K. Vass-`): the heads of
/// the body took a contribution statement's line for a head. Once a contribution statement is
/// filed, they go on its last div, the head as a paragraph of its own.
fn roles_taken_for_heads(divs: &mut Vec<Div>, contribution: &mut [Div]) {
    let Some(last) = contribution.last_mut() else {
        return;
    };
    let mut kept = Vec::with_capacity(divs.len());
    for d in divs.drain(..) {
        match &d.head {
            Some(h) if h.text.text.contains(':') && opens_with_role(&h.text.text) => {
                last.blocks.push(BodyBlock::Paragraph(h.text.clone()));
                last.blocks.extend(d.blocks);
            }
            _ => kept.push(d),
        }
    }
    *divs = kept;
}

/// Files the article's statements in its back matter (see the module documentation): from
/// the body, the annex and the other back-matter sections, then those of
/// [`HeaderRecord::statements`] the article does not hold yet. Other matter cut out of a
/// statement joins the annex, so that no text is lost.
pub fn file(a: &mut Article) {
    let mut moved = Vec::new();
    let mut other = Vec::new();
    take_statements(&mut a.body.divs, None, &mut moved, &mut other);
    take_statements(&mut a.back.annex, None, &mut moved, &mut other);
    for (k, d) in moved.drain(..) {
        list_of(&mut a.back, k).push(d);
    }
    // Then the back matter, moved sections included: a section holding several statements
    // ("Competing interests. None. Funding. …") is split.
    for kind in StatementKind::ALL {
        take_statements(
            list_of(&mut a.back, kind),
            Some(kind),
            &mut moved,
            &mut other,
        );
    }
    for (k, d) in moved {
        list_of(&mut a.back, k).push(d);
    }
    a.back.annex.append(&mut other);
    heads_holding_statements(&mut a.back.conflict);
    heads_holding_statements(&mut a.back.contribution);
    roles_taken_for_heads(&mut a.body.divs, &mut a.back.contribution);
    roles_taken_for_heads(&mut a.back.annex, &mut a.back.contribution);
    // Notes keep their text (callouts point at them), so a statement printed as a footnote
    // is added from the pages; statements the body still holds are not.
    let held: Vec<String> = a
        .body
        .divs
        .iter()
        .flat_map(|d| div_texts(d).into_iter().map(norm).collect::<Vec<_>>())
        .collect();
    let statements = a.header.statements.clone();
    add_missing(&mut a.back, &statements, &held);
}

#[cfg(test)]
mod tests {
    use super::*;
    use StatementKind::*;

    #[test]
    fn ascii_heads_read_as_the_normaliser_reads_them() {
        for s in [
            "Authors' contributions",
            "CONFLICT OF INTEREST:",
            "Data-availability statement 2",
            "  Funding\t(NIH) R01-123; x.y ",
            "",
        ] {
            assert_eq!(letters(s), letters_decomposed(s), "{s:?}");
        }
        assert_eq!(
            letters("Contribuição dos autores"),
            "contribuicaodosautores"
        );
    }

    #[test]
    fn heads_of_each_kind() {
        for (h, k) in [
            ("Conflict of Interest", Conflict),
            ("Competing interests", Conflict),
            ("Declaration of Competing Interest", Conflict),
            ("Conflito de interesses", Conflict),
            ("Author contributions", Contribution),
            ("Authors' contributions", Contribution),
            ("CRediT authorship contribution statement", Contribution),
            ("Contribuição dos autores", Contribution),
            ("Ethics approval and consent to participate", Ethics),
            ("Data Availability Statement", Availability),
            ("Funding", Funding),
            ("Acknowledgements", Acknowledgement),
        ] {
            assert_eq!(head_kind(h), Some(k), "{h}");
        }
        for h in [
            "Introduction",
            "Funding of public hospitals in Brazil",
            "Results and discussion",
        ] {
            assert_eq!(head_kind(h), None, "{h}");
        }
    }

    #[test]
    fn run_in_heads() {
        let t = "Competing interests: The authors declare none.";
        let (k, head, at) = run_in(t).unwrap();
        assert_eq!(
            (k, head, &t[at..]),
            (Conflict, "Competing interests", "The authors declare none.")
        );
        assert_eq!(
            run_in("Funding. This work was supported by X."),
            Some((Funding, "Funding", 9))
        );
        assert_eq!(run_in("We thank the reviewers: all of them."), None);
        // A head set off by type alone.
        let t = "Competing interests None declared.";
        let (k, head, at) = run_in(t).unwrap();
        assert_eq!(
            (k, head, &t[at..]),
            (Conflict, "Competing interests", "None declared.")
        );
        assert_eq!(run_in("Ethics approval was obtained from the board."), None);
    }

    fn para(s: &str) -> BodyBlock {
        BodyBlock::Paragraph(RichText {
            text: s.into(),
            ..RichText::default()
        })
    }

    fn head(s: &str) -> Option<Head> {
        Some(Head {
            n: None,
            text: RichText {
                text: s.into(),
                ..RichText::default()
            },
        })
    }

    #[test]
    fn sections_and_run_in_paragraphs_move_to_the_back() {
        let mut a = Article::default();
        a.body.divs = vec![
            Div {
                head: head("Introduction"),
                blocks: vec![para("Text.")],
            },
            Div {
                head: head("Conflict of interest"),
                blocks: vec![para("None declared.")],
            },
        ];
        a.back.acknowledgement = vec![Div {
            head: head("Acknowledgements"),
            blocks: vec![
                para("We thank A."),
                para(
                    "Author contributions: Conceptualization, A.B.; Writing – original draft, C.D.",
                ),
            ],
        }];
        a.header.statements = vec![
            Statement {
                kind: Ethics,
                head: Some("Ethics statement".into()),
                text: "The study was approved by the ethics committee of the university.".into(),
                tokens: vec![],
            },
            Statement {
                kind: Conflict,
                head: Some("Conflict of interest".into()),
                text: "None declared.".into(),
                tokens: vec![],
            },
        ];
        file(&mut a);
        assert_eq!(a.body.divs.len(), 1);
        assert_eq!(a.back.conflict.len(), 1, "{:?}", a.back.conflict);
        assert_eq!(a.back.contribution.len(), 1);
        assert_eq!(
            div_texts(&a.back.contribution[0]),
            ["Conceptualization, A.B.; Writing – original draft, C.D."]
        );
        assert_eq!(a.back.acknowledgement[0].blocks.len(), 1);
        assert_eq!(a.back.ethics.len(), 1);
    }

    #[test]
    fn other_matter_leaves_a_statement_and_roles_follow_a_contribution() {
        let mut a = Article::default();
        a.body.divs = vec![
            Div {
                head: head("Competing interests"),
                blocks: vec![para(
                    "The authors declare no competing interests. Open Access This article is licensed under a Creative Commons Attribution 4.0 International License.",
                )],
            },
            Div {
                head: head("Declarations"),
                blocks: vec![
                    para("Author contributions: Conceptualization: A. Berg, C. Dahl."),
                    para("Data curation: C. Dahl."),
                    para("Writing – review & editing: A. Berg."),
                    para("All authors approved the text."),
                ],
            },
        ];
        file(&mut a);
        let texts = |divs: &[Div]| -> Vec<String> {
            divs.iter()
                .flat_map(|d| div_texts(d).into_iter().map(String::from))
                .collect()
        };
        assert_eq!(
            texts(&a.back.conflict),
            ["The authors declare no competing interests."]
        );
        // The licence text is kept, in the annex.
        assert_eq!(
            texts(&a.back.annex),
            ["Open Access This article is licensed under a Creative Commons Attribution 4.0 International License."]
        );
        assert_eq!(
            texts(&a.back.contribution),
            [
                "Conceptualization: A. Berg, C. Dahl.",
                "Data curation: C. Dahl.",
                "Writing – review & editing: A. Berg."
            ]
        );
        // What is not a role stays where it was.
        assert_eq!(texts(&a.body.divs), ["All authors approved the text."]);
    }

    #[test]
    fn role_lines_taken_for_heads_go_on_the_contribution() {
        let mut a = Article::default();
        a.back.contribution = vec![Div {
            head: head("Author contributions"),
            blocks: vec![para("Conceptualization: A. Berg.")],
        }];
        a.back.annex = vec![
            Div {
                head: head("Data curation: C. Dahl, E. Vass-"),
                blocks: vec![para("berg. Methodology: A. Berg.")],
            },
            // A section head that only names a role is a section.
            Div {
                head: head("Methodology"),
                blocks: vec![para("We measured.")],
            },
        ];
        file(&mut a);
        let texts: Vec<&str> = div_texts(&a.back.contribution[0]);
        assert_eq!(
            texts,
            [
                "Conceptualization: A. Berg.",
                "Data curation: C. Dahl, E. Vass-",
                "berg. Methodology: A. Berg."
            ]
        );
        assert_eq!(a.back.annex.len(), 1);
        assert_eq!(div_texts(&a.back.annex[0]), ["We measured."]);
    }

    #[test]
    fn a_head_run_on_into_the_text_before_it_starts_a_statement() {
        let st = starts(
            "IC50: Half-maximal inhibitory concentration Authors' contributions NJ carried out experiments. All authors approved it.",
        );
        let got: Vec<(Option<StatementKind>, &str)> = st.iter().map(|s| (s.1, s.2)).collect();
        assert_eq!(got, [(Some(Contribution), "Authors' contributions")]);
        // A head inside a head is not a start of its own.
        let st = starts("Declaration of Competing Interest The authors declare none.");
        let got: Vec<(usize, &str, usize)> = st.iter().map(|s| (s.0, s.2, s.3)).collect();
        assert_eq!(got, [(0, "Declaration of Competing Interest", 34)]);
        assert_eq!(
            run_in_statements("Declaration of Competing Interest The authors declare none.")
                .iter()
                .map(|s| s.text.as_str())
                .collect::<Vec<_>>(),
            ["The authors declare none."]
        );
        // Bodies named in running text are no heads.
        assert!(
            starts("The protocol was approved by the Ethics Committee of The First Hospital.")
                .is_empty()
        );
        // One word is not enough there, nor is a head inside a sentence in lower case.
        assert!(starts("They were supported by the Funding Council grants.").is_empty());
        assert!(
            starts("Results came from the lab and from the authors' contributions Office.")
                .is_empty()
        );
    }

    proptest::proptest! {
        #[test]
        fn starts_are_ordered_and_never_overlap_a_head(
            words in proptest::collection::vec(
                proptest::sample::select(vec![
                    "Declaration", "of", "Competing", "Interest", "Interests", "Authors'",
                    "contributions", "Author", "Contributions:", "Funding", "None.", "The",
                    "NJ", "wrote", "it.", "Ethics", "approval", "Open", "Access", "This",
                    "article", "Copyright:", "data;", "Availability", "é", "x.",
                    "Disclosure", "Statement", "Authorship", "Contributors", "Conflicts",
                    "interests:", "Contribuição", "dos", "Autores", "Conflito", "Interesses",
                    "Pharmacokinetically-characterised-immunoglobulin-preparations",
                ]),
                0..40,
            )
        ) {
            let text = words.join(" ");
            let st = starts(&text);
            // The screen of run-on heads changes no start.
            proptest::prop_assert_eq!(&st, &starts_screened(&text, false));
            let mut end = 0;
            for s in &st {
                proptest::prop_assert!(s.0 >= end && s.0 <= s.3 && s.3 <= text.len());
                end = s.3;
            }
            let _ = run_in_statements(&text);
        }
    }

    #[test]
    fn a_head_ends_with_its_noun() {
        let got = |t: &str| {
            run_in_statements(t)
                .into_iter()
                .map(|s| (s.kind, s.head.unwrap_or_default(), s.text))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            got("Competing interests None declared. Patient and public involvement Patients were not involved."),
            [(
                Conflict,
                "Competing interests".to_string(),
                "None declared.".to_string()
            )]
        );
        assert_eq!(
            got("Conflict of Interest Statement: The authors declare none."),
            [(
                Conflict,
                "Conflict of Interest Statement".to_string(),
                "The authors declare none.".to_string()
            )]
        );
        assert_eq!(
            got("Contribuição dos autores: A.B. escreveu."),
            [(
                Contribution,
                "Contribuição dos autores".to_string(),
                "A.B. escreveu.".to_string()
            )]
        );
    }

    #[test]
    fn a_head_line_holding_its_statement_is_split() {
        let word = |range: std::ops::Range<usize>| crate::document::TokenBox {
            range,
            page: 3,
            bbox: BBox::default(),
        };
        let mut boxed = head("Competing interests None declared.");
        if let Some(h) = boxed.as_mut() {
            h.text.tokens = vec![word(20..24), word(25..34)];
        }
        let mut text = RichText {
            text: "MAI conceptualized it.".into(),
            tokens: vec![word(0..3)],
            ..RichText::default()
        };
        let mut divs = vec![
            Div {
                head: boxed,
                blocks: vec![],
            },
            Div {
                head: head("Conflict of Interest Statement"),
                blocks: vec![para("None.")],
            },
            Div {
                head: head("Author contributions AH, JG and"),
                blocks: vec![BodyBlock::Paragraph(text.clone())],
            },
            // Without boxes and without a paragraph to open, the head stays whole.
            Div {
                head: head("Competing interests None declared."),
                blocks: vec![],
            },
        ];
        heads_holding_statements(&mut divs);
        let h = |d: &Div| {
            d.head
                .as_ref()
                .map(|h| h.text.text.clone())
                .unwrap_or_default()
        };
        assert_eq!(h(&divs[0]), "Competing interests");
        let BodyBlock::Paragraph(p) = &divs[0].blocks[0] else {
            panic!("{:?}", divs[0]);
        };
        assert_eq!(p.text, "None declared.");
        assert_eq!(p.tokens, [word(0..4), word(5..14)]);
        assert_eq!(h(&divs[1]), "Conflict of Interest Statement");
        assert_eq!(div_texts(&divs[1]), ["None."]);
        assert_eq!(h(&divs[2]), "Author contributions");
        text.text = "AH, JG and MAI conceptualized it.".into();
        text.tokens = vec![word(11..14)];
        assert_eq!(divs[2].blocks, [BodyBlock::Paragraph(text)]);
        assert_eq!(h(&divs[3]), "Competing interests None declared.");
        assert!(divs[3].blocks.is_empty());
    }

    #[test]
    fn a_statement_ends_where_other_matter_starts() {
        let got = run_in_statements(
            "Conflito de interesses: nada a declarar. Recebido em: Mar. 27, 2020. Funding: None. Open Access This article is licensed.",
        );
        let got: Vec<(StatementKind, &str)> =
            got.iter().map(|s| (s.kind, s.text.as_str())).collect();
        assert_eq!(got, [(Conflict, "nada a declarar."), (Funding, "None.")]);
    }

    #[test]
    fn scanning_blocks_for_heads() {
        let page = PageText {
            number: 1,
            blocks: vec![
                "Conflict of interest".into(),
                "The authors declare no conflict.".into(),
                "Author Contributions: A.B. wrote the paper.".into(),
                "Introduction text goes here.".into(),
            ],
            lines: vec![
                vec!["Conflict of interest".into()],
                vec!["The authors declare no conflict.".into()],
                vec![
                    "Author Contributions: A.B. wrote ".into(),
                    "the paper.".into(),
                ],
                vec!["Introduction text goes here.".into()],
            ],
            words: [
                "Conflict of interest",
                "The authors declare no conflict.",
                "Author Contributions: A.B. wrote the paper.",
                "Introduction text goes here.",
            ]
            .iter()
            .enumerate()
            .map(|(b, t)| {
                t.split(' ')
                    .enumerate()
                    .map(|(i, w)| (w.to_string(), word_box(b, i)))
                    .collect()
            })
            .collect(),
            links: vec![],
        };
        let got = scan(&[page]);
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(
            (got[0].kind, got[0].text.as_str()),
            (Conflict, "The authors declare no conflict.")
        );
        assert_eq!(
            (got[1].kind, got[1].text.as_str()),
            (Contribution, "A.B. wrote the paper.")
        );
        // Each statement's words keep their boxes: its paragraph and sentences get coords.
        let placed = |s: &Statement| -> Vec<(String, BBox)> {
            s.tokens
                .iter()
                .map(|t| (s.text[t.range.clone()].to_string(), t.bbox))
                .collect()
        };
        assert_eq!(
            placed(&got[0]),
            ["The", "authors", "declare", "no", "conflict."]
                .iter()
                .enumerate()
                .map(|(i, w)| (w.to_string(), word_box(1, i)))
                .collect::<Vec<_>>()
        );
        assert_eq!(
            placed(&got[1]),
            ["A.B.", "wrote", "the", "paper."]
                .iter()
                .enumerate()
                .map(|(i, w)| (w.to_string(), word_box(2, i + 2)))
                .collect::<Vec<_>>()
        );
        assert!(got.iter().all(|s| s.tokens.iter().all(|t| t.page == 1)));
        assert_eq!(
            statement_div(&got[0]).blocks,
            [BodyBlock::Paragraph(RichText {
                text: got[0].text.clone(),
                tokens: got[0].tokens.clone(),
                ..RichText::default()
            })]
        );
    }

    fn word_box(block: usize, i: usize) -> BBox {
        BBox {
            x: 50.0 + 40.0 * i as f32,
            y: 100.0 + 30.0 * block as f32,
            w: 35.0,
            h: 9.0,
        }
    }
}
