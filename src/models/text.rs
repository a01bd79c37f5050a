/*!
What the text-only models (date, name, affiliation-address, citation) share at run time: the
row function's type, joining tokens back into text and finding them in the input (their
feature templates are built by `crate::training::template`).
*/

use crate::features::Tok;
use crate::lexicon::LexView;

/// A model's row function: tokens in, one feature row per token out.
pub type RowsFn = fn(&[Tok], &LexView<'_>) -> crate::features::Rows;

/// Join tokens back into text: no space before closing punctuation or after opening
/// brackets, none around hyphens, slashes and apostrophes inside words, one elsewhere.
pub fn join_tokens(toks: &[Tok]) -> String {
    let mut s = String::new();
    for (i, t) in toks.iter().enumerate() {
        if i > 0 {
            let prev = toks[i - 1].text.as_str();
            let cur = t.text.as_str();
            let no_space = matches!(
                cur,
                "," | "." | ";" | ":" | ")" | "]" | "?" | "!" | "-" | "/" | "'"
            ) || matches!(prev, "(" | "[" | "-" | "/" | "'");
            if !no_space {
                s.push(' ');
            }
        }
        s.push_str(&t.text);
    }
    s
}

/// Byte ranges of the tokens in `norm` (the [`crate::tokenizer::normalise`]d text they were
/// cut from, in order), or `None` when they were not cut from it.
pub fn token_ranges(norm: &str, toks: &[Tok]) -> Option<Vec<(usize, usize)>> {
    let mut pos = 0;
    let mut out = Vec::with_capacity(toks.len());
    for t in toks {
        let rest = norm.get(pos..)?;
        let start = pos + (rest.len() - rest.trim_start().len());
        if t.text.is_empty() || !norm.get(start..)?.starts_with(t.text.as_str()) {
            return None;
        }
        pos = start + t.text.len();
        out.push((start, pos));
    }
    Some(out)
}

/// The source text of tokens `a..b` (ranges from [`token_ranges`]) with its own spacing, each
/// whitespace run made one space: `doi:10.1000/xyz` stays as written, where
/// [`join_tokens`] would write `doi: 10. 1000/xyz`.
pub fn source_text(norm: &str, ranges: &[(usize, usize)], a: usize, b: usize) -> Option<String> {
    if b <= a {
        return None;
    }
    let start = ranges.get(a)?.0;
    let end = ranges.get(b.checked_sub(1)?)?.1;
    let s = norm.get(start..end)?;
    Some(s.split_whitespace().collect::<Vec<_>>().join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_text_keeps_the_input_spacing() {
        let raw = "Eng. 12(3): 45-67. doi:10.1000/xyz  and\tmore";
        let norm = crate::tokenizer::normalise(raw);
        let toks = crate::features::toks_from_text(raw, true);
        let ranges = token_ranges(&norm, &toks).expect("tokens come from the text");
        let i = toks.iter().position(|t| t.text == "doi").unwrap();
        let j = toks.iter().position(|t| t.text == "xyz").unwrap();
        assert_eq!(
            source_text(&norm, &ranges, i, j + 1).as_deref(),
            Some("doi:10.1000/xyz")
        );
        assert_eq!(
            source_text(&norm, &ranges, j, toks.len()).as_deref(),
            Some("xyz and more")
        );
        assert_eq!(join_tokens(&toks[i..=j]), "doi: 10. 1000/xyz");
        assert!(token_ranges("other text", &toks).is_none());
        assert!(source_text(&norm, &ranges, 3, 3).is_none());
    }

    #[test]
    fn joining_tokens_restores_usual_spacing() {
        let toks: Vec<Tok> = ["Smith", ",", "J", ".", "(", "2019", ")", "45", "-", "67"]
            .iter()
            .map(|t| Tok::new(*t))
            .collect();
        assert_eq!(join_tokens(&toks), "Smith, J. (2019) 45-67");
    }
}

/// Any label sequence over any tokens decodes without panicking, in every text model.
#[cfg(test)]
mod decode_props {
    use proptest::prelude::*;

    use crate::features::Tok;
    use crate::lexicon::Lexicons;
    use crate::models::{affiliation, citation, date, name};

    fn labelled(all: &'static [&'static str]) -> impl Strategy<Value = (Vec<Tok>, Vec<String>)> {
        prop::collection::vec(("\\PC{1,6}", 0..all.len(), any::<bool>()), 0..40).prop_map(
            move |v| {
                let toks = v.iter().map(|(t, _, _)| Tok::new(t.clone())).collect();
                let labels = v
                    .iter()
                    .map(|(_, i, begin)| {
                        if *begin {
                            format!("I-{}", all[*i])
                        } else {
                            all[*i].to_string()
                        }
                    })
                    .collect();
                (toks, labels)
            },
        )
    }

    const DATE: &[&str] = &["<year>", "<month>", "<day>", "<other>"];
    const NAME: &[&str] = &[
        "<marker>",
        "<title>",
        "<forename>",
        "<middlename>",
        "<surname>",
        "<suffix>",
        "<other>",
    ];
    const AFF: &[&str] = &[
        "<marker>",
        "<institution>",
        "<department>",
        "<laboratory>",
        "<addrLine>",
        "<settlement>",
        "<region>",
        "<postCode>",
        "<postBox>",
        "<country>",
        "<other>",
    ];
    const CIT: &[&str] = &[
        "<author>",
        "<title>",
        "<journal>",
        "<booktitle>",
        "<editor>",
        "<date>",
        "<volume>",
        "<issue>",
        "<pages>",
        "<pubnum>",
        "<web>",
        "<publisher>",
        "<location>",
        "<other>",
    ];

    proptest! {
        #[test]
        fn decoders_never_panic(
            d in labelled(DATE),
            n in labelled(NAME),
            a in labelled(AFF),
            c in labelled(CIT),
        ) {
            let lex = Lexicons::default();
            for x in date::decode(&d.0, &crate::labels::Labels::from_names(&d.1)) {
                if let Some(w) = x.when() {
                    prop_assert!(w.len() >= 4);
                }
            }
            for p in name::decode(&n.0, &crate::labels::Labels::from_names(&n.1)) {
                prop_assert!(p.forename.is_some() || p.middlename.is_some() || p.surname.is_some());
            }
            for x in affiliation::decode(&a.0, &crate::labels::Labels::from_names(&a.1), &lex) {
                prop_assert!(!x.is_empty());
            }
            let cit = citation::decode("raw", &c.0, &crate::labels::Labels::from_names(&c.1));
            let _ = (cit.page_range(), cit.doi(), cit.arxiv());
            let xml = crate::tei::bibl_struct(&cit, crate::tei::BiblOptions::default());
            prop_assert!(xml.starts_with("<biblStruct"));
        }
    }
}

/// The decoders slice strings at offsets found by (ASCII) case-insensitive search: strings
/// mixing characters whose lower case changes byte length (`İ`, `ẞ`, `Ⱥ`, the Kelvin sign…)
/// with the patterns searched for (`arXiv`, `Keywords`, `et al`, DOIs, e-mails) never panic.
#[cfg(test)]
mod case_props {
    use std::sync::OnceLock;

    use proptest::prelude::*;

    use crate::models::header::{HeaderFields, Label};
    use crate::models::header_record::{self as hr, SubResults};
    use crate::models::{citation, name};

    /// Every char whose `to_lowercase` has another UTF-8 length than the char itself.
    fn length_changing() -> &'static [char] {
        static CHARS: OnceLock<Vec<char>> = OnceLock::new();
        CHARS.get_or_init(|| {
            (0..=0x10FFFFu32)
                .filter_map(char::from_u32)
                .filter(|c| c.to_lowercase().map(char::len_utf8).sum::<usize>() != c.len_utf8())
                .collect()
        })
    }

    const PATTERNS: &[&str] = &[
        "arXiv:",
        "ARXIV",
        "arxiv",
        "Abstract",
        "ABSTRACT",
        "a b s t r a c t",
        "Summary",
        "Keywords",
        "\u{212A}EYWORDS",
        "KEY WORDS",
        "Index Terms",
        "et al",
        "ET AL.",
        "10.",
        "10.1000/x",
        "2101.00001",
        "@",
        "{",
        "}",
        "(",
        ")",
        "|",
        " ",
        ":",
        ".",
        ";",
        ",",
        "-",
        "\n",
        "pp",
        "doi:",
    ];

    fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop_oneof![
                "\\PC{0,4}",
                prop::sample::select(length_changing()).prop_map(String::from),
                prop::sample::select(PATTERNS).prop_map(String::from),
            ],
            0..16,
        )
        .prop_map(|v| v.concat())
    }

    const CIT: &[&str] = &[
        "<author>",
        "<title>",
        "<journal>",
        "<date>",
        "<pages>",
        "<pubnum>",
        "<web>",
        "<other>",
    ];

    proptest! {
        #[test]
        fn header_record_helpers_never_panic(s in text(), t in text()) {
            let _ = (hr::clean_title(&s), hr::clean_abstract(&s), hr::split_keywords(&s));
            let _ = (crate::doi::find_all(&s), hr::find_arxiv(&s), hr::split_emails(&s));
            let f = HeaderFields {
                spans: vec![
                    (Label::Title, s.clone()),
                    (Label::Author, t.clone()),
                    (Label::Abstract, s.clone()),
                    (Label::Keyword, t.clone()),
                    (Label::Pubnum, s.clone()),
                    (Label::Email, t.clone()),
                ],
                ..Default::default()
            };
            let _ = hr::assemble(&f, SubResults::default(), &t);
        }

        #[test]
        fn arxiv_ids_are_found_after_any_text(s in text()) {
            prop_assume!(!s.to_ascii_lowercase().contains("arxiv"));
            let with_id = format!("{s} arXiv:2101.00001 ");
            prop_assert_eq!(hr::find_arxiv(&with_id), Some("2101.00001".to_string()));
            let c = citation::Citation {
                pubnums: vec![format!("{s} arXiv:2101.00001")],
                ..Default::default()
            };
            prop_assert_eq!(c.arxiv(), Some("2101.00001".to_string()));
        }

        #[test]
        fn citation_decoding_never_panics(
            raw in text(),
            picks in prop::collection::vec((0..CIT.len(), any::<bool>()), 0..64),
        ) {
            let p = citation::prepare(&raw);
            let toks = citation::toks(&p);
            let labels: Vec<String> = (0..toks.len())
                .map(|i| {
                    let (l, begin) = picks.get(i % picks.len().max(1)).copied().unwrap_or((0, false));
                    if begin { format!("I-{}", CIT[l]) } else { CIT[l].to_string() }
                })
                .collect();
            let c = citation::decode(&p, &toks, &crate::labels::Labels::from_names(&labels));
            let _ = (c.page_range(), c.doi(), c.arxiv());
            let xml = crate::tei::bibl_struct(&c, crate::tei::BiblOptions::default());
            prop_assert!(xml.starts_with("<biblStruct"));
            let _ = name::toks(c.author_text.as_deref().unwrap_or(&raw), true);
            let _ = name::toks(&raw, true);
        }
    }
}
