/*!
Document metadata beyond the models' fields, as GROBID 0.8-0.9 writes it (see
docs/metadata.md): the language of the document and of each abstract ([`lang`]), the licence
and copyright ([`licence`]), the authors' ORCID iDs ([`orcid`]) and the back matter's
statements (conflict of interest, contributions, ethics…; [`statements`]).

All of it is read from the laid-out pages ([`PageText`]: each block's text and lines, each
page's link targets) and from the header record, after the models ran: [`enrich_header`] for
both answers, [`enrich_article`] for the full text.
*/

pub mod lang;
pub mod licence;
pub mod orcid;
pub mod statements;

use crate::document::{Article, HeaderRecord, OtherAbstract};
use crate::features::{Row, Rows};
use crate::layout::Document;

/// One laid-out page as text: its blocks (lines joined), their lines, each block's words with
/// their boxes, and the targets of its link annotations.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PageText {
    pub number: u32,
    pub blocks: Vec<String>,
    pub lines: Vec<Vec<String>>,
    pub words: Vec<Vec<(String, crate::layout::BBox)>>,
    pub links: Vec<String>,
}

/// The pages of `doc` as [`PageText`].
pub fn page_texts(doc: &Document) -> Vec<PageText> {
    doc.pages
        .iter()
        .map(|p| {
            let lines: Vec<Vec<String>> = p
                .blocks
                .iter()
                .map(|b| b.lines.iter().map(|l| l.text()).collect())
                .collect();
            PageText {
                number: p.number,
                blocks: lines
                    .iter()
                    .map(|l| l.concat().trim_end().to_string())
                    .collect(),
                lines,
                words: p
                    .blocks
                    .iter()
                    .map(|b| {
                        b.lines
                            .iter()
                            .flat_map(|l| &l.tokens)
                            .map(|t| (t.text.clone(), t.bbox))
                            .collect()
                    })
                    .collect(),
                links: p.links.iter().filter_map(|l| l.uri.clone()).collect(),
            }
        })
        .collect()
}

/// The language most of the pages' text is written in: each block of at least 150 letters
/// (the first 200 such blocks) votes for its language with its number of letters (see
/// [`plurality`]).
fn document_language(pages: &[PageText]) -> Option<&'static str> {
    // The first pages: the references at the end are often in another language.
    let n = pages.len().div_ceil(5) * 3;
    let voters: Vec<(&str, usize)> = pages
        .iter()
        .take(n.max(1))
        .flat_map(|p| p.blocks.iter())
        .map(|b| (b.as_str(), b.chars().filter(|c| c.is_alphabetic()).count()))
        .filter(|&(_, letters)| letters >= 150)
        .take(200)
        .collect();
    plurality(&voters, |b| lang::detect(b))
}

/// The language with the most votes among `voters` (a text and its weight, in document
/// order); between languages with equal votes, the last to receive its first vote in
/// document order. `identify` names a voter's language, or none.
///
/// Voters are identified heaviest first, and only until no other language can catch up with
/// the leader (the weights left could not lift any other language to its votes), so the
/// answer is the one a count of every voter gives. A detector call costs about the same for a
/// short block as for a long one, so the heaviest blocks settle it in the fewest calls. When
/// every voter had to be identified, they are counted in document order, which is what breaks
/// ties.
fn plurality<T, L: Copy + PartialEq>(
    voters: &[(T, usize)],
    mut identify: impl FnMut(&T) -> Option<L>,
) -> Option<L> {
    let mut order: Vec<usize> = (0..voters.len()).collect();
    // Stable: equal weights in document order.
    order.sort_by_key(|&i| std::cmp::Reverse(voters[i].1));
    let mut found: Vec<Option<L>> = vec![None; voters.len()];
    let mut left: usize = voters.iter().map(|v| v.1).sum();
    let mut votes: Vec<(L, usize)> = Vec::new();
    for i in order {
        let (text, n) = &voters[i];
        left -= n;
        found[i] = identify(text);
        if let Some(l) = found[i] {
            tally(&mut votes, l, *n);
        }
        let (mut lead, mut second, mut leader) = (0, 0, None);
        for &(l, v) in &votes {
            if v > lead {
                (lead, second, leader) = (v, lead, Some(l));
            } else if v > second {
                second = v;
            }
        }
        if lead > second + left {
            return leader;
        }
    }
    let mut votes: Vec<(L, usize)> = Vec::new();
    for (l, (_, n)) in found.iter().zip(voters) {
        if let Some(l) = *l {
            tally(&mut votes, l, *n);
        }
    }
    votes.into_iter().max_by_key(|v| v.1).map(|v| v.0)
}

/// Adds `n` votes for `l`; a language's first vote appends it.
fn tally<L: PartialEq>(votes: &mut Vec<(L, usize)>, l: L, n: usize) {
    match votes.iter_mut().find(|v| v.0 == l) {
        Some(v) => v.1 += n,
        None => votes.push((l, n)),
    }
}

/// Words that head an abstract of a multilingual front page.
const ABSTRACT_HEADS: &[&str] = &[
    "abstract",
    "resumo",
    "resumen",
    "résumé",
    "resume",
    "zusammenfassung",
    "riassunto",
    "summary",
];

/// `text` without an abstract head word opening it (`Resumo:`).
fn strip_head(text: &str) -> &str {
    let t = text.trim_start();
    let lower = t.to_lowercase();
    for h in ABSTRACT_HEADS {
        if lower.starts_with(h) && lower.len() >= h.len() {
            let rest = &t[t
                .char_indices()
                .nth(h.chars().count())
                .map_or(t.len(), |(i, _)| i)..];
            if rest.starts_with(|c: char| !c.is_alphanumeric()) || rest.is_empty() {
                return rest
                    .trim_start_matches([':', '.', ' ', '-', '—', '–'])
                    .trim_start();
            }
        }
    }
    t
}

/// Splits an abstract holding several languages (the header model labels both abstracts of a
/// bilingual front page) into one abstract per language: its parts (lines, or an abstract
/// head word after a sentence end) are grouped in order by language. Sets the language of
/// each.
fn split_abstracts(h: &mut HeaderRecord) {
    let Some(text) = h.abstract_text.clone() else {
        return;
    };
    let mut parts: Vec<String> = Vec::new();
    for line in text.split('\n') {
        let mut rest = line;
        // A head word after a sentence end starts a new part.
        'outer: loop {
            let lower = rest.to_lowercase();
            if lower.len() != rest.len() {
                break;
            }
            for hw in ABSTRACT_HEADS {
                for pat in [format!(". {hw}"), format!(". {}", hw.to_uppercase())] {
                    if let Some(i) = rest.find(&pat).or_else(|| lower.find(&pat)) {
                        if i > 100 {
                            parts.push(rest[..=i].to_string());
                            rest = &rest[i + 2..];
                            continue 'outer;
                        }
                    }
                }
            }
            break;
        }
        parts.push(rest.to_string());
    }
    let mut groups: Vec<(Option<&'static str>, String)> = Vec::new();
    // The language of a part that is the whole abstract (one paragraph, no second head):
    // what detecting the whole would give again.
    let mut whole = None;
    for p in parts.iter().filter(|p| !p.trim().is_empty()) {
        let detected =
            (p.chars().filter(|c| c.is_alphabetic()).count() >= 100).then(|| lang::detect(p));
        if *p == text {
            whole = detected;
        }
        let l = detected.flatten();
        match groups.last_mut() {
            Some(g) if l.is_none() || g.0 == l || g.0.is_none() => {
                g.0 = g.0.or(l);
                g.1.push('\n');
                g.1.push_str(p);
            }
            _ => groups.push((l, p.clone())),
        }
    }
    if groups.len() < 2 {
        h.abstract_lang = whole
            .unwrap_or_else(|| lang::detect(&text))
            .map(String::from);
        return;
    }
    let mut it = groups.into_iter();
    let (l0, t0) = it.next().expect("two groups");
    h.abstract_text = Some(strip_head(&t0).trim().to_string());
    h.abstract_lang = l0.map(String::from);
    h.other_abstracts = it
        .map(|(l, t)| OtherAbstract {
            lang: l.map(String::from),
            text: strip_head(&t).trim().to_string(),
        })
        .collect();
}

/// Abstracts the pages print under an abstract head (`Resumo`, `Abstract`) in a language
/// neither [`HeaderRecord::abstract_text`] nor the other abstracts have: a bilingual front
/// page whose second abstract the header model did not label.
fn abstracts_in_pages(h: &mut HeaderRecord, pages: &[PageText]) {
    let Some(first) = h.abstract_text.as_deref() else {
        return;
    };
    let norm = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let mut known = norm(first);
    for o in &h.other_abstracts {
        known.push_str(&norm(&o.text));
    }
    let is_head = |line: &str| {
        let t = line
            .trim()
            .trim_end_matches([':', '.'])
            .trim()
            .to_lowercase();
        ABSTRACT_HEADS.contains(&t.as_str())
    };
    for p in pages.iter().take(3) {
        for (i, lines) in p.lines.iter().enumerate() {
            if !lines.first().is_some_and(|l| is_head(l)) {
                continue;
            }
            let mut text: String = lines[1..].concat();
            let mut j = i + 1;
            if text.trim().is_empty() {
                let Some(next) = p.blocks.get(j) else {
                    continue;
                };
                text = next.clone();
                j += 1;
            }
            while j < p.blocks.len() && p.blocks[j].trim_start().starts_with(char::is_lowercase) {
                text.push(' ');
                text.push_str(&p.blocks[j]);
                j += 1;
            }
            let text = text.trim().to_string();
            if text.chars().filter(|c| c.is_alphabetic()).count() < 100 {
                continue;
            }
            let probe: String = norm(&text).chars().take(60).collect();
            if known.contains(&probe) {
                continue;
            }
            let Some(l) = lang::detect(&text) else {
                continue;
            };
            let taken = h.abstract_lang.as_deref() == Some(l)
                || h.other_abstracts
                    .iter()
                    .any(|o| o.lang.as_deref() == Some(l));
            if taken {
                continue;
            }
            known.push_str(&norm(&text));
            h.other_abstracts.push(OtherAbstract {
                lang: Some(l.to_string()),
                text,
            });
        }
    }
}

/// Adds to `h` what the laid-out pages tell besides the header model: the document's and
/// the abstracts' languages, the licence, the authors' ORCID iDs and the statements.
pub fn enrich_header(h: &mut HeaderRecord, doc: &Document) {
    let pages = page_texts(doc);
    split_abstracts(h);
    abstracts_in_pages(h, &pages);
    h.language = document_language(&pages)
        .map(String::from)
        .or(h.abstract_lang.clone());
    h.licence = licence::find(&pages);
    orcid::attach(&mut h.authors, doc);
    h.statements = statements::scan(&pages);
}

/// After the full text is assembled: its statements filed in the back matter, and the
/// document's language from the body when the pages gave none.
pub fn enrich_article(a: &mut Article) {
    statements::file(a);
    if a.header.language.is_none() {
        let texts = a.body.divs.iter().flat_map(|d| {
            d.blocks.iter().filter_map(|b| match b {
                crate::document::BodyBlock::Paragraph(p) => Some(p.text.as_str()),
                _ => None,
            })
        });
        a.header.language = lang::detect_all(texts, 4000).map(String::from);
    }
}

/// What this module found, as rows of the `debugMode` dump's `metadata` section: one row of
/// tab-separated values per finding, its label after it (`<language>`, `<licence>`,
/// `<orcid>`, `<statement>`).
pub fn debug_rows(h: &HeaderRecord, back: Option<&crate::document::Back>) -> (Rows, Vec<String>) {
    let mut rows: Rows = Vec::new();
    let mut labels: Vec<String> = Vec::new();
    let mut push = |row: Row, label: &str| {
        rows.push(row);
        labels.push(format!("<{label}>"));
    };
    let or_none = |s: Option<&str>| crate::features::Feature::from(s.unwrap_or("-"));
    push(
        vec!["document".into(), or_none(h.language.as_deref())],
        "language",
    );
    push(
        vec!["abstract".into(), or_none(h.abstract_lang.as_deref())],
        "language",
    );
    for o in &h.other_abstracts {
        push(
            vec!["abstract".into(), or_none(o.lang.as_deref())],
            "language",
        );
    }
    if let Some(l) = &h.licence {
        push(
            vec![
                or_none(licence::name(l).as_deref()),
                or_none(licence::target(l).as_deref()),
                or_none(l.holder.as_deref()),
            ],
            "licence",
        );
    }
    for a in &h.authors {
        if let Some(id) = &a.orcid {
            push(
                vec![or_none(a.person.surname.as_deref()), id.as_str().into()],
                "orcid",
            );
        }
    }
    match back {
        Some(b) => {
            for (ty, divs) in b.sections() {
                for d in divs {
                    let head = d.head.as_ref().map(|h| h.text.text.as_str());
                    push(vec![ty.into(), or_none(head)], "statement");
                }
            }
        }
        None => {
            for s in &h.statements {
                push(
                    vec![s.kind.as_str().into(), or_none(s.head.as_deref())],
                    "statement",
                );
            }
        }
    }
    (rows, labels)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::{Author, Licence, Statement, StatementKind};
    use crate::models::name::Person;
    use crate::tei::header::{to_tei, TeiOptions};

    const EN: &str = "We present a method for estimating the moisture of soils from satellite images. The method combines a physical model with a statistical correction.";
    const PT: &str = "Apresentamos um método para estimar a umidade dos solos a partir de imagens de satélite. O método combina um modelo físico com uma correção estatística.";

    /// The language of most letters wins, whichever comes first, and the count stops only
    /// where every block counted would give the same answer.
    #[test]
    fn the_document_language_is_the_language_of_most_letters() {
        // Blocks of 246 (English) and 252 (Portuguese) letters: each votes.
        let (en, pt) = (format!("{EN} {EN}"), format!("{PT} {PT}"));
        let page = |blocks: &[&String]| PageText {
            number: 1,
            blocks: blocks.iter().map(|b| b.to_string()).collect(),
            ..PageText::default()
        };
        assert_eq!(document_language(&[page(&[&pt, &en, &en])]), Some("en"));
        assert_eq!(document_language(&[page(&[&pt, &pt, &en])]), Some("pt"));
        // After three blocks English leads by 240 letters with 252 left: not out of reach,
        // and the last block gives Portuguese the most letters.
        assert_eq!(
            document_language(&[page(&[&pt, &en, &en, &pt])]),
            Some("pt")
        );
        // Out of reach after three blocks: the same answer as counting the fourth.
        assert_eq!(
            document_language(&[page(&[&en, &en, &en, &pt])]),
            Some("en")
        );
        // Short blocks do not vote; without a vote there is no language.
        let short = String::from("Introduction");
        assert_eq!(document_language(&[page(&[&short, &short])]), None);
        // The first three fifths of the pages vote: the last two of five do not.
        let pages = [
            page(&[&en]),
            page(&[&en]),
            page(&[&pt]),
            page(&[&pt, &pt]),
            page(&[&pt, &pt]),
        ];
        assert_eq!(document_language(&pages), Some("en"));
    }

    /// Every voter counted in document order: the answer [`plurality`] must give.
    fn full_count(voters: &[(Option<u8>, usize)]) -> Option<u8> {
        let mut votes: Vec<(u8, usize)> = Vec::new();
        for &(l, n) in voters {
            if let Some(l) = l {
                match votes.iter_mut().find(|v| v.0 == l) {
                    Some(v) => v.1 += n,
                    None => votes.push((l, n)),
                }
            }
        }
        votes.into_iter().max_by_key(|v| v.1).map(|v| v.0)
    }

    proptest::proptest! {
        /// Heaviest first with an early stop gives the full count's answer, ties included.
        #[test]
        fn the_plurality_is_the_full_counts(
            voters in proptest::collection::vec(
                (
                    proptest::option::weighted(0.8, 0u8..3),
                    proptest::sample::select(vec![150usize, 151, 200, 300, 301, 450, 900, 2000]),
                ),
                0..12,
            )
        ) {
            let mut calls = 0;
            let got = plurality(&voters, |l| {
                calls += 1;
                *l
            });
            proptest::prop_assert_eq!(got, full_count(&voters));
            proptest::prop_assert!(calls <= voters.len());
        }
    }

    #[test]
    fn the_heaviest_blocks_settle_the_language_first() {
        let voters = [
            (Some("en"), 150),
            (Some("en"), 150),
            (Some("pt"), 160),
            (Some("en"), 1000),
        ];
        let mut asked = Vec::new();
        let got = plurality(&voters, |l| {
            asked.push(*l);
            *l
        });
        // 1,000 letters of English against 460 left: settled by one call.
        assert_eq!(got, Some("en"));
        assert_eq!(asked, [Some("en")]);
        // A tie counted to the end goes to the language that first voted later in the
        // document, whichever block was identified first.
        let voters = [(Some("pt"), 200), (Some("en"), 150), (Some("en"), 50)];
        assert_eq!(plurality(&voters, |l| *l), Some("en"));
        let voters = [(Some("en"), 150), (Some("en"), 50), (Some("pt"), 200)];
        assert_eq!(plurality(&voters, |l| *l), Some("pt"));
    }

    #[test]
    fn a_bilingual_abstract_is_cut_where_its_language_changes() {
        let mut h = HeaderRecord {
            abstract_text: Some(format!("{EN}\nResumo: {PT}")),
            ..HeaderRecord::default()
        };
        split_abstracts(&mut h);
        assert_eq!(h.abstract_text.as_deref(), Some(EN));
        assert_eq!(h.abstract_lang.as_deref(), Some("en"));
        assert_eq!(h.other_abstracts.len(), 1);
        assert_eq!(h.other_abstracts[0].lang.as_deref(), Some("pt"));
        assert_eq!(h.other_abstracts[0].text, PT);
        // One language: one abstract.
        let mut h = HeaderRecord {
            abstract_text: Some(format!("{EN}\n{EN}")),
            ..HeaderRecord::default()
        };
        split_abstracts(&mut h);
        assert!(h.other_abstracts.is_empty());
        assert_eq!(h.abstract_lang.as_deref(), Some("en"));
        // One paragraph: the language of the whole, however long (a short one is detected as
        // a whole, not as a part).
        let short = &EN[..EN.char_indices().nth(90).map_or(EN.len(), |(i, _)| i)];
        for (text, want) in [(EN, Some("en")), (PT, Some("pt")), (short, None)] {
            let mut h = HeaderRecord {
                abstract_text: Some(text.to_string()),
                ..HeaderRecord::default()
            };
            split_abstracts(&mut h);
            assert!(h.other_abstracts.is_empty());
            assert_eq!(h.abstract_lang.as_deref(), lang::detect(text), "{text}");
            if want.is_some() {
                assert_eq!(h.abstract_lang.as_deref(), want);
            }
        }
    }

    #[test]
    fn an_unlabelled_abstract_in_another_language_is_taken_from_the_pages() {
        let mut h = HeaderRecord {
            abstract_text: Some(EN.into()),
            abstract_lang: Some("en".into()),
            ..HeaderRecord::default()
        };
        let page = PageText {
            number: 1,
            blocks: vec!["Abstract".into(), EN.into(), "Resumo".into(), PT.into()],
            lines: vec![
                vec!["Abstract".into()],
                vec![EN.into()],
                vec!["Resumo".into()],
                vec![PT.into()],
            ],
            ..PageText::default()
        };
        abstracts_in_pages(&mut h, &[page]);
        assert_eq!(h.other_abstracts.len(), 1, "{:?}", h.other_abstracts);
        assert_eq!(h.other_abstracts[0].text, PT);
    }

    #[test]
    fn the_tei_header_carries_languages_licence_orcid_and_statements() {
        let h = HeaderRecord {
            title: Some("Soil moisture".into()),
            authors: vec![Author {
                person: Person {
                    forename: Some("Thomas".into()),
                    surname: Some("Berger".into()),
                    ..Person::default()
                },
                orcid: Some("0000-0001-5109-3700".into()),
                ..Author::default()
            }],
            abstract_text: Some(PT.into()),
            abstract_lang: Some("pt".into()),
            other_abstracts: vec![OtherAbstract {
                lang: Some("en".into()),
                text: EN.into(),
            }],
            language: Some("pt".into()),
            licence: Some(Licence {
                cc: Some("by-nc".into()),
                version: Some("4.0".into()),
                holder: Some("authors".into()),
                raw: Some("© 2024 The Authors. CC BY-NC 4.0.".into()),
                ..Licence::default()
            }),
            statements: vec![Statement {
                kind: StatementKind::Conflict,
                head: Some("Conflict of interest".into()),
                text: "The authors declare no conflict of interest.".into(),
                tokens: vec![],
            }],
            ..HeaderRecord::default()
        };
        let opt = TeiOptions {
            include_raw_copyrights: true,
            ..TeiOptions::default()
        };
        let tei = to_tei(&h, &opt);
        assert!(tei.contains("\t<teiHeader xml:lang=\"pt\">\n"), "{tei}");
        assert!(tei.contains("\t\t\t\t<availability resp=\"authors\" status=\"restricted\">\n\t\t\t\t\t<licence target=\"https://creativecommons.org/licenses/by-nc/4.0/\">CC-BY-NC</licence>\n\t\t\t\t\t<p type=\"raw\">© 2024 The Authors. CC BY-NC 4.0.</p>\n\t\t\t\t</availability>\n"), "{tei}");
        assert!(
            tei.contains(
                "</persName>\n\t\t\t\t\t\t\t<idno type=\"ORCID\">0000-0001-5109-3700</idno>\n"
            ),
            "{tei}"
        );
        // As GROBID, `xml:lang` where the abstract's language is not the document's.
        assert!(
            tei.contains("<abstract>\n<div xmlns=\"http://www.tei-c.org/ns/1.0\"><p>Apresentamos"),
            "{tei}"
        );
        assert!(tei.contains("<abstract xml:lang=\"en\">"), "{tei}");
        assert!(tei.contains("<text xml:lang=\"pt\">"), "{tei}");
        assert!(tei.contains("<div type=\"conflict\">\n<div xmlns=\"http://www.tei-c.org/ns/1.0\"><head>Conflict of interest</head><p>The authors declare no conflict of interest.</p></div>\n\t\t\t</div>"), "{tei}");
        // Without raw copyrights, no `p`; without any licence, GROBID's empty availability.
        let tei = to_tei(&h, &TeiOptions::default());
        assert!(!tei.contains("type=\"raw\""), "{tei}");
        let bare = to_tei(
            &HeaderRecord {
                title: Some("x".into()),
                ..HeaderRecord::default()
            },
            &TeiOptions::default(),
        );
        assert!(
            bare.contains("<availability status=\"unknown\"><licence/></availability>"),
            "{bare}"
        );
        assert!(bare.contains("\t<teiHeader>\n"), "{bare}");
    }
}
