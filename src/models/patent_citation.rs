//! Patent-citation model: labels the tokens of a patent's description as patent citations
//! (`<refPatent>`), non-patent citations (`<refNPL>`) or other text — reference
//! grobid-models.md §1.6, §2.12, §3.11.
//!
//! A text-only model whose unit is one description paragraph. The corpus is EP and WO patent
//! documents whose description paragraphs mark citations inline (`<ref type="patent|npl">`),
//! read with the ST.36 reader ([`crate::patent::st36`]); the same reader serves
//! `processCitationPatentST36`, so training and service see paragraphs the same way.
//!
//! Tokens ([`tokens`]) keep the byte range they were cut from in the paragraph, so a labelled
//! span points back at the exact characters of the input. Features ([`rows`], 28 columns, the
//! one function for training and tagging, §3.11): the token, its lower-case form, prefixes and
//! suffixes 1–4, capitalisation and digits (affiliation spellings), single character, proper
//! name, common word, first name (always 0, as GROBID has it), city (a single-token lookup in
//! the location lexicon), year, month, http, journal, conference and publisher gazetteer
//! matches, patent country code, kind code, punctuation type, token length, and the relative
//! position over the paragraph's tokens, whitespace included.

use std::ops::Range;
use std::sync::OnceLock;

use crate::features::{self as f, Tok};
use crate::labels::Labels;
use crate::lexicon::{Kind, LexView};
use crate::patent::number::NUMBER_PATTERN;
use crate::patent::st36::{MarkKind, Paragraph};
use crate::tokenizer;
use crate::Result;

model_labels!(
    "patent-citation",
    /// GROBID's patent-citation labels.
    {
        RefPatent => "<refPatent>",
        RefNpl => "<refNPL>",
        Other => "<other>",
    }
);

/// One feature token of a paragraph: its normalised text, its byte range in the paragraph,
/// and its index among all tokens of the paragraph, whitespace included (`position` of §3.11).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PTok {
    pub tok: Tok,
    pub range: Range<usize>,
    pub position: usize,
}

/// A paragraph's feature tokens and the size of its token list with whitespace (`total`).
#[derive(Debug, Clone, Default)]
pub struct Tokens {
    pub toks: Vec<PTok>,
    pub total: usize,
}

/// Cut `text` as GROBID's tokenizer does (reference §6.3: every delimiter a token of its own,
/// characters normalised first), keeping each token's byte range in `text`; whitespace tokens
/// count in positions but are not returned.
pub fn tokens(text: &str) -> Tokens {
    let mut out = Tokens::default();
    let mut cur = String::new();
    let mut start = 0;
    let flush = |cur: &mut String, start: usize, end: usize, out: &mut Tokens| {
        if !cur.is_empty() {
            out.toks.push(PTok {
                tok: Tok::new(std::mem::take(cur)),
                range: start..end,
                position: out.total,
            });
            out.total += 1;
        }
    };
    for (i, c) in text.char_indices() {
        let n = tokenizer::normalise_char(c);
        if tokenizer::is_delimiter(n) || n.is_whitespace() {
            flush(&mut cur, start, i, &mut out);
            if n.is_whitespace() {
                out.total += 1;
            } else {
                out.toks.push(PTok {
                    tok: Tok::new(n.to_string()),
                    range: i..i + c.len_utf8(),
                    position: out.total,
                });
                out.total += 1;
            }
            start = i + c.len_utf8();
        } else {
            if cur.is_empty() {
                start = i;
            }
            cur.push(n);
        }
    }
    flush(&mut cur, start, text.len(), &mut out);
    out
}

/// The fixed list of patent country codes GROBID's feature knows (case-sensitive).
const COUNTRY_CODES: &[&str] = &[
    "US", "EP", "WO", "DE", "AU", "GB", "DK", "BE", "AT", "CN", "KR", "EA", "CH", "JP", "FR", "UK",
    "RU", "CA", "NL", "DD", "SE", "FI", "MX", "OA", "AP", "AR", "BR", "BG", "CL", "GR", "HU", "IS",
    "IN", "IE", "IL", "IT", "LU", "NO", "NZ", "PL", "ES", "TW", "TR",
];

/// Columns of a patent-citation feature row.
pub const COLUMNS: usize = 28;

/// THE feature function (reference §3.11): 28 columns per token.
pub fn rows(t: &Tokens, lex: &LexView<'_>) -> crate::features::Rows {
    let toks: Vec<Tok> = t.toks.iter().map(|p| p.tok.clone()).collect();
    let urls = f::url_flags(&toks);
    let journals = lex.flags(Kind::Journal, &toks);
    let confs = lex.flags(Kind::Conference, &toks);
    let publishers = lex.flags(Kind::Publisher, &toks);
    t.toks
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let s = p.tok.text.as_str();
            let mut row = Vec::with_capacity(COLUMNS);
            f::push_lexical(&mut row, s);
            row.push(f::capitalisation_affiliation(s).into());
            row.push(f::digit_affiliation(s).into());
            row.push(f::single_char(s).into());
            let proper = lex.has_word(Kind::FirstName, s) || lex.has_word(Kind::LastName, s);
            row.push(f::flag(proper).into());
            row.push(f::flag(lex.has_word(Kind::CommonWord, s)).into());
            row.push("0".into());
            row.push(f::flag(lex.has_word(Kind::Location, s)).into());
            row.push(f::flag(f::is_year(s)).into());
            row.push(f::flag(f::is_month(s)).into());
            row.push(f::flag(urls[i] || s.contains("http")).into());
            row.push(f::flag(journals[i]).into());
            row.push(f::flag(confs[i]).into());
            row.push(f::flag(publishers[i]).into());
            row.push(f::flag(COUNTRY_CODES.contains(&s)).into());
            row.push(f::flag(matches!(s, "A" | "B" | "C" | "U" | "P")).into());
            row.push(f::punct_type(s).into());
            row.push(crate::features::number(s.chars().count()));
            row.push(crate::features::number(f::linear_scaling(
                p.position, t.total, 12,
            )));
            row
        })
        .collect()
}

/// Labels of a marked paragraph's tokens: a mark's label on every token that starts inside
/// it, `I-` on the first token of each run (GROBID's training form).
pub fn gold_labels(t: &Tokens, p: &Paragraph) -> Vec<String> {
    let mut out = Vec::with_capacity(t.toks.len());
    let mut last: Option<Option<usize>> = None;
    for tok in &t.toks {
        let m = p
            .marks
            .iter()
            .position(|m| m.range.contains(&tok.range.start));
        let label = match m.map(|i| p.marks[i].kind) {
            Some(MarkKind::Patent) => Label::RefPatent,
            Some(MarkKind::Npl) => Label::RefNpl,
            None => Label::Other,
        };
        if last == Some(m) {
            out.push(label.as_str().to_string());
        } else {
            out.push(format!("I-{}", label.as_str()));
        }
        last = Some(m);
    }
    out
}

/// One citation found in a paragraph: its kind and the byte range of its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub kind: MarkKind,
    pub range: Range<usize>,
}

/// Labels → citations: each run of `<refPatent>` or `<refNPL>` tokens is one citation, from
/// its first token's first byte to its last token's last byte, without the punctuation that
/// can only surround it (`(`, `,`, `;`, `:`).
pub fn decode(text: &str, t: &Tokens, labels: &Labels) -> Result<Vec<Found>> {
    let spans = super::label_spans("patent-citation", labels, Label::parse)?;
    let mut out = Vec::new();
    for s in spans {
        let kind = match s.label {
            Label::RefPatent => MarkKind::Patent,
            Label::RefNpl => MarkKind::Npl,
            Label::Other => continue,
        };
        let (Some(first), Some(last)) = (
            t.toks.get(s.tokens.start),
            s.tokens.end.checked_sub(1).and_then(|i| t.toks.get(i)),
        ) else {
            continue;
        };
        let mut r = first.range.start..last.range.end;
        let slice = &text[r.clone()];
        let trimmed_end = slice.trim_end_matches([',', ';', ':', '(']).len();
        r.end = r.start + trimmed_end;
        let lead = text[r.clone()].len()
            - text[r.clone()]
                .trim_start_matches([',', ';', ':', ')'])
                .len();
        r.start += lead;
        if !text[r.clone()].trim().is_empty() {
            out.push(Found { kind, range: r });
        }
    }
    // Numbers printed in a form only patents take, which the model left unlabelled.
    for r in printed_numbers(text) {
        if !out
            .iter()
            .any(|f| f.range.start < r.end && r.start < f.range.end)
        {
            out.push(Found {
                kind: MarkKind::Patent,
                range: r,
            });
        }
    }
    out.sort_by_key(|f| f.range.start);
    Ok(out)
}

/// Patent numbers printed in a form no other text takes, as byte ranges of `text`: a PCT
/// application (`PCT/ES99/00300`), or the code of a large patent office (WIPO ST.3), an
/// optional publication marker (`EP-A-`), and a number of at least six digits in the ways
/// offices group them (`JP 10-058899`, `US 6,123,456 B1`, `WO 2004/012345`, `DE 101 23 456`),
/// with its kind code. The model's labels come first; these catch what it leaves unlabelled
/// in a language or a sentence it rarely saw. Office codes that are also common upper-case
/// words (`AT`, `IT`, `IN`, `NO`, …) are not among them.
pub fn printed_numbers(text: &str) -> Vec<Range<usize>> {
    static R: OnceLock<regex::Regex> = OnceLock::new();
    let re = R.get_or_init(|| {
        regex::Regex::new(&format!(
            r"(?x)
            \bPCT\s?/\s?[A-Z]{{2}}\s?(?:\d{{2}}|\d{{4}})\s?/\s?\d{{3,6}}\b
            |
            \b(?P<office>US|EP|WO|JP|DE|FR|GB|ES|CN|KR|CA|AU|CH|NL|SE|DK|RU|SU|BR|TW)
            (?:\s?-\s?[ABU]\d?\s?-\s?|\s?-\s?|\s)?
            (?P<number>{NUMBER_PATTERN})
            (?:\s?[ABCUTY]\d?\b)?",
        ))
        .expect("a valid expression")
    });
    let coded = re
        .captures_iter(text)
        .filter(|c| match c.name("number") {
            Some(n) => n.as_str().chars().filter(char::is_ascii_digit).count() >= 6,
            None => true,
        })
        .filter_map(|c| c.get(0))
        .map(|m| m.range());
    let mut out: Vec<Range<usize>> = coded.collect();
    for r in named_office_numbers(text) {
        if !out.iter().any(|o| o.start < r.end && r.start < o.end) {
            out.push(r);
        }
    }
    out.sort_by_key(|r| r.start);
    out
}

/// Patent numbers introduced in words, as byte ranges of `text`: an office named in English,
/// Spanish, French or German and a patent word, in either order, with at most four of the
/// words such phrases take between them (`Japanese Patent Application No.`, `Patente de
/// Invención Española`, `demande de brevet japonaise`, `japanischen Patentanmeldung`), then a
/// number of at least five digits that is not a date. A citation starts at the office's name,
/// as the corpus marks it (`Patente de Invención <Japonesa 09- 277800>`). On the training
/// corpus, 597 of the 604 such phrases lie inside a marked patent citation, and the 7 others
/// are citations its annotators left unmarked.
fn named_office_numbers(text: &str) -> Vec<Range<usize>> {
    static R: OnceLock<regex::Regex> = OnceLock::new();
    const OFFICE: &str = r"(?:U\.\s?S\.(?:\s?A\.)?|united\s+states|american|am[ée]ricaine?|amerikanisch\w*|estadounidense|norteamericana?|european|europ[ée]enne?|europ[äa]isch\w*|europe[ao]|japan(?:ese)?|japonaise?|japanisch\w*|japon[ée]s[ae]?|german|allemande?|deutsch\w*|alem[áa]na?|british|french|fran[çc]aise?|franz[öo]sisch\w*|franc[ée]s[ae]?|belgian|swiss|chinese|korean|dutch|canadian|australian|austrian|russian|soviet|swedish|danish|italian|spanish|espa[ñn]ola?|espagnole?|spanisch\w*|international)";
    const PATENT: &str = r"(?:patent(?:e|es|s)?|brevets?|patentschrift|offenlegungsschrift|auslegeschrift|patentanmeldung|gebrauchsmuster)";
    const BETWEEN: &str = r"(?:applications?|publications?|specification|laid[- ]open|provisional|serial|no\.?|nos\.?|n[°ºo]\.?|number|num\.|de|d[e']|invenci[óo]n|solicitud|publicaci[óo]n|modelo|utilidad|demande|nr\.?|anmeldung)";
    let re = R.get_or_init(|| {
        let gap = format!(r"(?:\s+{BETWEEN}){{0,4}}\s+");
        regex::Regex::new(&format!(
            r"(?i)\b(?:{OFFICE}{gap}{PATENT}|{PATENT}{gap}(?P<office>{OFFICE}))(?:\s+{BETWEEN}){{0,3}}\s+(?P<number>{NUMBER_PATTERN})"
        ))
        .expect("a valid expression")
    });
    static DATE: OnceLock<regex::Regex> = OnceLock::new();
    let date = DATE.get_or_init(|| {
        regex::Regex::new(r"^\d{1,2}[./-]\d{1,2}[./-]\d{2,4}$").expect("a valid expression")
    });
    re.captures_iter(text)
        .filter(|c| {
            let n = c.name("number").map_or("", |m| m.as_str());
            n.chars().filter(char::is_ascii_digit).count() >= 5 && !date.is_match(n)
        })
        .filter_map(|c| {
            let whole = c.get(0)?;
            Some(c.name("office").map_or(whole.start(), |o| o.start())..whole.end())
        })
        .collect()
}

/// Split a plain text into the units the model labels: its lines (without the line break),
/// blank lines left out, as byte ranges.
pub fn lines(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if c == '\n' || c == '\r' {
            if !text[start..i].trim().is_empty() {
                out.push(start..i);
            }
            start = i + 1;
        }
    }
    if !text[start..].trim().is_empty() {
        out.push(start..text.len());
    }
    out
}

/// Split a plain text into the units the model labels, as byte ranges: its paragraphs, a
/// paragraph being the lines up to a blank line or a sentence's end. A line break inside a
/// sentence (a description wrapped at a fixed width, a PDF's lines) is no boundary, so that a
/// citation printed across it (`PCT publication WO` / `97/34421`, `U.S. patent` /
/// `5,247,347`) reaches the model whole. A break is a sentence's end when its line ends with
/// `.`, `!`, `?` or `:` (closing brackets and quotes allowed after it) after a word that is not an
/// abbreviation (`No.`, `Pat.`, `U.S.`: three letters or fewer, or dotted initials), and the
/// next line starts with a capital letter or a bracket.
pub fn units(text: &str) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    for line in lines(text) {
        match out.last_mut() {
            Some(prev)
                if text[prev.end..line.start].matches('\n').count() <= 1
                    && !ends_sentence(&text[prev.clone()], &text[line.clone()]) =>
            {
                prev.end = line.end
            }
            _ => out.push(line),
        }
    }
    out
}

fn ends_sentence(line: &str, next: &str) -> bool {
    let body = line
        .trim_end()
        .trim_end_matches([')', ']', '"', '\'', '\u{201d}', '\u{2019}']);
    let Some(stop) = body.chars().last() else {
        return true;
    };
    if !matches!(stop, '.' | '!' | '?' | ':') {
        return false;
    }
    let word = body[..body.len() - stop.len_utf8()]
        .rsplit(char::is_whitespace)
        .next()
        .unwrap_or("");
    let letters = word.chars().filter(|c| c.is_alphabetic()).count();
    let abbreviation = stop == '.' && (letters <= 3 || word.contains('.'));
    let starts = next.trim_start().chars().next();
    !abbreviation && starts.is_some_and(|c| c.is_uppercase() || matches!(c, '(' | '['))
}

/// Version of [`rows`]' columns.
pub const FEATURE_VERSION: u32 = 1;
#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Part;
    use crate::patent::st36::Mark;
    use crate::training::patent_citation::*;

    #[test]
    fn tokens_keep_their_byte_ranges() {
        let text = "See US\u{00A0}6,123,456\u{2013}B1 (é).";
        let t = tokens(text);
        for p in &t.toks {
            let src: String = text[p.range.clone()]
                .chars()
                .map(tokenizer::normalise_char)
                .collect();
            assert_eq!(src, p.tok.text);
        }
        let words: Vec<&str> = t.toks.iter().map(|p| p.tok.text.as_str()).collect();
        assert_eq!(
            words,
            vec!["See", "US", "6", ",", "123", ",", "456", "-", "B1", "(", "é", ")", "."]
        );
        // Whitespace counts in positions: "See" 0, " " 1, "US" 2, nbsp 3, "6" 4.
        assert_eq!(t.toks[2].position, 4);
        assert_eq!(t.total, 16);
    }

    /// A paragraph of `text` with `marks` as (kind, byte range).
    fn paragraph(text: &str, marks: &[(MarkKind, Range<usize>)]) -> Paragraph {
        Paragraph {
            id: None,
            text: text.into(),
            marks: marks
                .iter()
                .map(|(kind, range)| Mark {
                    kind: *kind,
                    range: range.clone(),
                })
                .collect(),
        }
    }

    #[test]
    fn rows_have_the_spec_columns_and_gold_labels_follow_marks() {
        let text = "As in EP 0 123 456 B1 and Smith, Nature.";
        let p = paragraph(text, &[(MarkKind::Patent, 6..21), (MarkKind::Npl, 26..39)]);
        let t = tokens(text);
        let lex = crate::lexicon::Lexicons::default();
        let r = rows(&t, &LexView::new(&lex));
        assert!(r.iter().all(|row| row.len() == COLUMNS));
        let ep = t.toks.iter().position(|p| p.tok.text == "EP").unwrap();
        assert_eq!(r[ep][23], "1");
        assert_eq!(r[ep][10], "ALLCAPS");
        let labels = gold_labels(&t, &p);
        assert_eq!(labels[ep], "I-<refPatent>");
        assert_eq!(labels[ep + 1], "<refPatent>");
        assert_eq!(labels[0], "I-<other>");
        let smith = t.toks.iter().position(|p| p.tok.text == "Smith").unwrap();
        assert_eq!(labels[smith], "I-<refNPL>");
        let found = decode(text, &t, &Labels::from_names(&labels)).unwrap();
        let texts: Vec<&str> = found.iter().map(|f| &text[f.range.clone()]).collect();
        assert_eq!(texts, vec!["EP 0 123 456 B1", "Smith, Nature"]);
    }

    /// The texts of `printed_numbers(text)`.
    fn printed(text: &str) -> Vec<&str> {
        printed_numbers(text)
            .into_iter()
            .map(|r| &text[r])
            .collect()
    }

    #[test]
    fn numbers_introduced_by_an_office_name_are_found() {
        let text = "En la Patente de Invención Japonesa 09- 277800 y la Patente Española 490.855; \
                    Japanese Patent Application No. 2004-192527; aus der japanischen \
                    Patentanmeldung 63-67895; a German patent filed 12.05.1998; US patent 12345 \
                    pages; the Swiss Patent publication 506 850.";
        let got = printed(text);
        assert_eq!(
            got,
            [
                "Japonesa 09- 277800",
                "Española 490.855",
                "Japanese Patent Application No. 2004-192527",
                "japanischen Patentanmeldung 63-67895",
                "Swiss Patent publication 506 850"
            ]
        );
        for g in &got[..4] {
            assert!(!crate::patent::number::parse(g).is_empty(), "{g}");
        }
    }

    #[test]
    fn numbers_in_a_patent_form_are_found_where_the_model_saw_none() {
        let text = "La solicitud PCT/ ES 99/00300, los expedientes JP 10-058899, EP-A-0 123 456 y \
                    US 6,123,456 B1; en 1999 se midieron 120000 muestras a 25 CA 94305 y WO 2004.";
        let got = printed(text);
        assert_eq!(
            got,
            [
                "PCT/ ES 99/00300",
                "JP 10-058899",
                "EP-A-0 123 456",
                "US 6,123,456 B1"
            ]
        );
        // Added to the model's spans where they do not overlap one; everything else stays.
        let t = tokens(text);
        let mut labels = vec!["<other>".to_string(); t.toks.len()];
        let jp = t.toks.iter().position(|p| p.tok.text == "JP").unwrap();
        labels[jp] = "I-<refPatent>".into();
        labels[jp + 1] = "<refPatent>".into();
        let found = decode(text, &t, &Labels::from_names(&labels)).unwrap();
        let texts: Vec<&str> = found.iter().map(|f| &text[f.range.clone()]).collect();
        assert_eq!(
            texts,
            [
                "PCT/ ES 99/00300",
                "JP 10",
                "EP-A-0 123 456",
                "US 6,123,456 B1"
            ]
        );
        assert!(found.iter().all(|f| f.kind == MarkKind::Patent));
    }

    #[test]
    fn dotted_variants_regroup_patent_numbers_only() {
        let text = "See US 6,123,456 and 1,000 cells, cf. EP 12,3456.";
        let p = paragraph(
            text,
            &[(MarkKind::Patent, 4..16), (MarkKind::Patent, 38..49)],
        );
        let v = dotted_variant(&p, 10).unwrap();
        assert_eq!(v.text, "See US 6.123.456 and 1,000 cells, cf. EP 12,3456.");
        assert_eq!(v.marks, p.marks);
        assert!(dotted_variant(&p, VARIANT_MAX_TOKENS + 1).is_none());
        let plain = paragraph("US 5.123.456", &[(MarkKind::Patent, 0..12)]);
        assert!(dotted_variant(&plain, 5).is_none());
    }

    #[test]
    fn units_join_lines_broken_inside_a_sentence() {
        let text = "as defined in PCT publication WO\n97/34421 which is incorporated.\n\
                    The video taught in U.S. Pat.\nNo. 5,247,347 may be used.\n\
                    Next paragraph: see FIG.\n3.\n\nAfter a blank line\nit goes on";
        let us: Vec<&str> = units(text).into_iter().map(|r| &text[r]).collect();
        assert_eq!(
            us,
            vec![
                "as defined in PCT publication WO\n97/34421 which is incorporated.",
                "The video taught in U.S. Pat.\nNo. 5,247,347 may be used.",
                "Next paragraph: see FIG.\n3.",
                "After a blank line\nit goes on",
            ]
        );
    }

    #[test]
    fn lines_skip_blank_ones() {
        let text = "one\n\n  \r\ntwo three\nfour";
        let ls: Vec<&str> = lines(text).into_iter().map(|r| &text[r]).collect();
        assert_eq!(ls, vec!["one", "two three", "four"]);
    }

    #[test]
    fn every_patent_corpus_file_reads() {
        let Some(dataset) = crate::testutil::gate::require_dataset("patent/citation/corpus") else {
            return;
        };
        for part in [Part::Corpus, Part::Evaluation] {
            let (files, stats) = read_paragraphs(&dataset, part).unwrap();
            assert!(stats.files_dropped.is_empty(), "{:?}", stats.files_dropped);
            let marks: usize = files
                .iter()
                .flat_map(|(_, ps)| ps)
                .map(|p| p.marks.len())
                .sum();
            assert!(marks > 0, "{part:?}");
            eprintln!("{part:?}: {} files, {marks} marks", files.len());
        }
    }
}
