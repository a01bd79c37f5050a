//! Funding-acknowledgement model: labels the tokens of a funding or acknowledgement statement
//! (funders, grant numbers and names, programmes, projects, persons, institutions,
//! infrastructures, affiliations, URLs) — reference grobid-models.md §2.11, §3.10.
//!
//! A text-only model: the corpus is three aggregated TEI files (acknowledgements, fundings,
//! infrastructures; one in `evaluation/`) whose `<funding>` and `<acknowledgment>` paragraphs
//! are the sequences, read with the generic TEI reader ([`crate::corpus`]) and the rules of
//! `crate::training::funding`.
//!
//! Features ([`rows`], 17 columns, the one function for training and tagging): the token, its
//! lower-case form, prefixes and suffixes 1–4, line status, capitalisation, digits, single
//! character, known funder, known research infrastructure, punctuation type. The two
//! gazetteers ([`FundingLexicon`]) are built by Quire from the funding corpus's own
//! `<funderName>` and `<infrastructure>` fields; a training sequence does not see the entries
//! that only it contributes (the corpus is only three files, so the exclusion is per sequence,
//! not per file as for the other lexicons). Training writes them to
//! `<models>/lexicon/funders.txt` and `infrastructures.txt`, which tagging loads.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

use crate::features::{self as f, Gazetteer, Tok};
use crate::labels::Labels;
use crate::{Error, Result};

model_labels!(
    "funding-acknowledgement",
    /// GROBID's funding-acknowledgement labels, as the training corpus produces them.
    {
        FunderName => "<funderName>",
        GrantNumber => "<grantNumber>",
        GrantName => "<grantName>",
        ProjectName => "<projectName>",
        ProgramName => "<programName>",
        Person => "<person>",
        Institution => "<institution>",
        Infrastructure => "<infrastructure>",
        Affiliation => "<affiliation>",
        Url => "<url>",
        Other => "<other>",
    }
);

/// The funder and infrastructure gazetteers (see the module documentation).
#[derive(Debug, Clone, Default)]
pub struct FundingLexicon {
    pub funders: Gazetteer,
    pub infrastructures: Gazetteer,
}

/// A [`FundingLexicon`] minus one training sequence's own entries.
#[derive(Clone, Copy)]
pub struct FundingView<'a> {
    pub lex: &'a FundingLexicon,
    pub excluded_funders: Option<&'a HashSet<String>>,
    pub excluded_infrastructures: Option<&'a HashSet<String>>,
}

impl<'a> FundingView<'a> {
    pub fn new(lex: &'a FundingLexicon) -> FundingView<'a> {
        FundingView {
            lex,
            excluded_funders: None,
            excluded_infrastructures: None,
        }
    }
}

const FUNDERS_FILE: &str = "funders.txt";
const INFRASTRUCTURES_FILE: &str = "infrastructures.txt";

impl FundingLexicon {
    /// Write `funders.txt` and `infrastructures.txt` (sorted gazetteer keys) into `dir`.
    pub fn save(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        for (name, g) in [
            (FUNDERS_FILE, &self.funders),
            (INFRASTRUCTURES_FILE, &self.infrastructures),
        ] {
            let mut keys: Vec<&str> = g.keys().collect();
            keys.sort_unstable();
            let mut text = keys.join("\n");
            text.push('\n');
            let path = dir.join(name);
            std::fs::write(&path, text).map_err(|e| Error::io(&path, e))?;
        }
        Ok(())
    }

    /// Load what [`FundingLexicon::save`] wrote.
    pub fn load(dir: &Path) -> Result<FundingLexicon> {
        let read = |name: &str| -> Result<Gazetteer> {
            let path = dir.join(name);
            let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
            Ok(Gazetteer::from_keys(text.lines().filter(|l| !l.is_empty())))
        };
        Ok(FundingLexicon {
            funders: read(FUNDERS_FILE)?,
            infrastructures: read(INFRASTRUCTURES_FILE)?,
        })
    }

    /// The gazetteers of a models folder (`<models>/lexicon`), read once and shared by every
    /// request, read again when the folder's files change (as the lexicons are).
    pub fn shared(models_dir: &Path) -> Result<Arc<FundingLexicon>> {
        crate::lexicon::shared_folder(models_dir)
    }
}

impl crate::lexicon::LexiconFolder for FundingLexicon {
    fn load(dir: &Path) -> Result<FundingLexicon> {
        FundingLexicon::load(dir)
    }
}

/// Line status as GROBID's funding features have it: `LINESTART` for the first token only,
/// `LINEEND` for the last token or before a line break, else `LINEIN`.
fn line_status(toks: &[Tok], i: usize) -> &'static str {
    if i == 0 {
        "LINESTART"
    } else if i + 1 == toks.len() || toks[i + 1].newline_before {
        "LINEEND"
    } else {
        "LINEIN"
    }
}

/// THE feature function (reference §3.10): 17 columns per token.
pub fn rows(toks: &[Tok], view: &FundingView<'_>) -> crate::features::Rows {
    let funders = view.lex.funders.flags(toks, view.excluded_funders);
    let infra = view
        .lex
        .infrastructures
        .flags(toks, view.excluded_infrastructures);
    toks.iter()
        .enumerate()
        .map(|(i, t)| {
            let s = t.text.as_str();
            let mut row = Vec::with_capacity(17);
            f::push_lexical(&mut row, s);
            row.push(line_status(toks, i).into());
            row.push(f::capitalisation(s).into());
            row.push(f::digit(s).into());
            row.push(f::single_char(s).into());
            row.push(f::flag(funders[i]).into());
            row.push(f::flag(infra[i]).into());
            row.push(f::punct_type(s).into());
            row
        })
        .collect()
}

/// Version of [`rows`]' columns.
pub const FEATURE_VERSION: u32 = 1;
/// The byte range of each of `toks` in `text` (tokens are found in order; one that is not
/// found gets an empty range where the search stands).
pub fn token_ranges(text: &str, toks: &[Tok]) -> Vec<std::ops::Range<usize>> {
    let mut at = 0;
    toks.iter()
        .map(|t| match text[at..].find(t.text.as_str()) {
            Some(i) => {
                let r = at + i..at + i + t.text.len();
                at = r.end;
                r
            }
            None => at..at,
        })
        .collect()
}

/// The fundings a labelled paragraph states: each funder name opens a funding, and the grant
/// numbers, grant, programme and project names that follow it (up to the next funder) belong
/// to it; grants named before any funder form a funding of their own. Texts are cut from
/// `text` at the tokens' ranges ([`token_ranges`]). Ids are left empty for the caller.
pub fn fundings(
    text: &str,
    toks: &[Tok],
    spans: &[crate::layout::Span<Label>],
) -> Vec<crate::document::Funding> {
    use crate::document::Funding;
    let ranges = token_ranges(text, toks);
    let cut = |s: &crate::layout::Span<Label>| -> Option<String> {
        let first = ranges.get(s.tokens.start)?;
        let last = ranges.get(s.tokens.end.checked_sub(1)?)?;
        let mut end = last.end;
        // A name whose span stops before the `)` closing its own `(`: "Soil Environments (BASE".
        let opened = |t: &str| t.matches('(').count() > t.matches(')').count();
        if opened(text.get(first.start..end)?) && text[end..].trim_start().starts_with(')') {
            end += text[end..].find(')')? + 1;
        }
        let t = text.get(first.start..end)?;
        let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
        let t =
            t.trim_matches(|c: char| matches!(c, ',' | ';' | ':' | '.' | '"' | '“' | '”' | '\''));
        let t = t
            .strip_prefix('(')
            .filter(|t| !t.contains(')'))
            .unwrap_or(t);
        let t = t
            .strip_suffix(')')
            .filter(|t| !t.contains('('))
            .unwrap_or(t);
        (!t.is_empty()).then(|| t.to_string())
    };
    let mut out: Vec<Funding> = Vec::new();
    let mut current: Option<Funding> = None;
    for s in spans {
        let Some(value) = cut(s) else { continue };
        match s.label {
            Label::FunderName => {
                out.extend(current.take());
                current = Some(Funding {
                    funder: Some(value),
                    ..Funding::default()
                });
            }
            Label::GrantNumber => current
                .get_or_insert_with(Funding::default)
                .grant_numbers
                .push(value),
            Label::GrantName => {
                current.get_or_insert_with(Funding::default).grant_name = Some(value)
            }
            Label::ProgramName => {
                current.get_or_insert_with(Funding::default).program = Some(value)
            }
            Label::ProjectName => {
                current.get_or_insert_with(Funding::default).project = Some(value)
            }
            _ => {}
        }
    }
    out.extend(current);
    out
}

/// Labels in, spans out: one [`Span`](crate::layout::Span) per run of one label over the
/// tokens the rows were made from (`features::toks_from_text(text, false)`, as
/// `ModelSpec::rows_from_text` makes them), a new one at each `I-` prefix; an unknown label is
/// a tagging error.
pub fn decode(labels: &Labels) -> Result<Vec<crate::layout::Span<Label>>> {
    crate::models::label_spans("funding-acknowledgement", labels, Label::parse)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::{self, Labelled};
    use crate::training::funding::*;

    /// Requests share one copy of the gazetteers per models folder, read again once the
    /// folder's files change; the lexicons of the same folder are cached on their own.
    #[test]
    fn the_shared_funding_lexicon_is_read_once_and_again_when_it_changes() {
        let models =
            std::env::temp_dir().join(format!("quire-funding-shared-{}", std::process::id()));
        let dir = models.join("lexicon");
        let mut lex = FundingLexicon {
            funders: Gazetteer::from_keys([f::gazetteer_key("Wellcome Trust").as_str()]),
            infrastructures: Gazetteer::default(),
        };
        lex.save(&dir).unwrap();
        let first = FundingLexicon::shared(&models).unwrap();
        assert!(first
            .funders
            .contains_key(&f::gazetteer_key("Wellcome Trust")));
        assert!(first.infrastructures.is_empty());
        assert!(Arc::ptr_eq(
            &first,
            &FundingLexicon::shared(&models).unwrap()
        ));
        // The folder holds no lexicon files: the lexicons fail on their own, the gazetteers
        // stay cached.
        assert!(crate::lexicon::shared(&models).is_err());
        assert!(Arc::ptr_eq(
            &first,
            &FundingLexicon::shared(&models).unwrap()
        ));
        lex.infrastructures = Gazetteer::from_keys([f::gazetteer_key("CERN").as_str()]);
        lex.save(&dir).unwrap();
        // The folder is looked at again once `RECHECK` has passed.
        std::thread::sleep(crate::lexicon::RECHECK + std::time::Duration::from_millis(100));
        let second = FundingLexicon::shared(&models).unwrap();
        assert!(second
            .infrastructures
            .contains_key(&f::gazetteer_key("CERN")));
        std::fs::remove_dir_all(&models).unwrap();
    }

    #[test]
    fn fundings_group_grants_under_the_funder_before_them() {
        let text = "Supported by grant 12-34 and by the National Science Foundation (IIS-0328802, \
                    DMS 0604394), and by the \"Wellcome Trust (WT)\".";
        let toks = f::toks_from_text(text, false);
        let words: Vec<&str> = toks.iter().map(|t| t.text.as_str()).collect();
        let find = |w: &str| words.iter().position(|x| *x == w).unwrap();
        let span = |label, from: &str, to: &str| crate::layout::Span {
            label,
            tokens: find(from)..find(to) + 1,
        };
        let spans = vec![
            span(Label::Other, "Supported", "grant"),
            span(Label::GrantNumber, "12", "34"),
            span(Label::FunderName, "National", "Foundation"),
            span(Label::GrantNumber, "IIS", "0328802"),
            span(Label::GrantNumber, "DMS", "0604394"),
            span(Label::FunderName, "Wellcome", "WT"),
        ];
        let got = fundings(text, &toks, &spans);
        let view: Vec<(Option<&str>, Vec<&str>)> = got
            .iter()
            .map(|g| {
                (
                    g.funder.as_deref(),
                    g.grant_numbers.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        assert_eq!(
            view,
            vec![
                (None, vec!["12-34"]),
                (
                    Some("National Science Foundation"),
                    vec!["IIS-0328802", "DMS 0604394"]
                ),
                (Some("Wellcome Trust (WT)"), vec![]),
            ]
        );
    }

    #[test]
    fn decode_gives_funder_and_grant_spans() {
        let l: Vec<String> = [
            "I-<other>",
            "<other>",
            "I-<funderName>",
            "<funderName>",
            "I-<grantNumber>",
            "I-<grantNumber>",
            "<other>",
        ]
        .map(String::from)
        .to_vec();
        let got = crate::models::span_pairs(decode(&Labels::from_names(&l)).unwrap());
        assert_eq!(
            got,
            vec![
                (Label::Other, 0..2),
                (Label::FunderName, 2..4),
                (Label::GrantNumber, 4..5),
                (Label::GrantNumber, 5..6),
                (Label::Other, 6..7),
            ]
        );
        assert!(decode(&Labels::from_names(&["<figure>".to_string()])).is_err());
    }

    const TEI: &str = r#"<fundings>
<funding>Funded by the <funder>Wellcome Trust</funder> [<grantNumber>100114</grantNumber>] and
<institution type="infrastructure">ELIXIR</institution>.</funding>
<acknowledgment>We thank <individual>J. Doe</individual> (<affiliation>MIT</affiliation>),
the <funder>Wellcome Trust</funder>, the <programName>H2020</programName> programme.</acknowledgment>
</fundings>"#;

    fn pairs(s: &Labelled) -> Vec<(&str, &str)> {
        s.toks
            .iter()
            .zip(&s.labels)
            .map(|(t, l)| (t.text.as_str(), l.as_str()))
            .collect()
    }

    #[test]
    fn paragraphs_are_sequences_with_funding_labels() {
        let seqs = corpus::read_str(Path::new("f.tei.xml"), TEI, &FundingRules).unwrap();
        assert_eq!(seqs.len(), 2);
        assert_eq!(
            pairs(&seqs[0]),
            vec![
                ("Funded", "I-<other>"),
                ("by", "<other>"),
                ("the", "<other>"),
                ("Wellcome", "I-<funderName>"),
                ("Trust", "<funderName>"),
                ("[", "I-<other>"),
                ("100114", "I-<grantNumber>"),
                ("]", "I-<other>"),
                ("and", "<other>"),
                ("ELIXIR", "I-<infrastructure>"),
                (".", "I-<other>"),
            ]
        );
        let p = pairs(&seqs[1]);
        assert!(p.contains(&("J", "I-<person>")));
        assert!(p.contains(&("MIT", "I-<affiliation>")));
        assert!(p.contains(&("H2020", "I-<programName>")));
        for s in &seqs {
            for l in &s.labels {
                assert!(Label::parse(l).is_some(), "{l}");
            }
        }
    }

    #[test]
    fn rows_have_17_columns_and_gazetteers_hide_a_sequences_own_entries() {
        let seqs = corpus::read_str(Path::new("f.tei.xml"), TEI, &FundingRules).unwrap();
        let refs: Vec<&Labelled> = seqs.iter().collect();
        let built = build(&refs);
        assert!(built.lex.funders.contains_key("wellcome trust"));
        assert!(built.lex.infrastructures.contains_key("elixir"));
        // "Wellcome Trust" is in both sequences: visible to each; ELIXIR only in the first.
        assert!(built.own[0].0.is_empty());
        assert!(built.own[0].1.contains("elixir"));
        let view = FundingView {
            lex: &built.lex,
            excluded_funders: Some(&built.own[0].0),
            excluded_infrastructures: Some(&built.own[0].1),
        };
        let r = rows(&seqs[0].toks, &view);
        assert!(r.iter().all(|row| row.len() == 17));
        assert_eq!(r[0][..2], ["Funded".to_string(), "funded".to_string()]);
        assert_eq!(r[0][10], "LINESTART");
        assert_eq!(r[3][14], "1", "Wellcome is a known funder");
        assert_eq!(r[4][14], "1");
        assert_eq!(r[9][15], "0", "ELIXIR is hidden from its own sequence");
        assert_eq!(r[6][12], "ALLDIGIT");
        assert_eq!(r[5][16], "OPENBRACKET");
        assert_eq!(r[10][10], "LINEEND");
        // At run time (no exclusion) ELIXIR is known.
        let r = rows(&seqs[0].toks, &FundingView::new(&built.lex));
        assert_eq!(r[9][15], "1");
    }

    #[test]
    fn gazetteers_round_trip_through_files() {
        let seqs = corpus::read_str(Path::new("f.tei.xml"), TEI, &FundingRules).unwrap();
        let refs: Vec<&Labelled> = seqs.iter().collect();
        let lex = build(&refs).lex;
        let dir = std::env::temp_dir().join(format!("quire-funding-lex-{}", std::process::id()));
        lex.save(&dir).unwrap();
        let back = FundingLexicon::load(&dir).unwrap();
        assert_eq!(back.funders.len(), 1);
        assert!(back.infrastructures.contains_key("elixir"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn malformed_funding_tei_names_the_file() {
        let bad = "<fundings><funding>By <funder>NSF</grantNumber></funding></fundings>";
        let msg = corpus::read_str(Path::new("corpus/all-fundings.tei.xml"), bad, &FundingRules)
            .unwrap_err()
            .to_string();
        assert!(msg.contains("corpus/all-fundings.tei.xml"), "{msg}");
    }
}
