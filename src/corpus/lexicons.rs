//! Building the lexicons ([`crate::lexicon`]) from the labelled corpora: training-time code.
//! Names come from the name corpora, places and country codes from the affiliation corpus
//! (completed by a hand-typed table of country codes), common title words, journals,
//! conferences, publishers and collaborations from the citation corpus. Each training file's
//! own entries are recorded as its [`Exclusion`], which featurising that file applies.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use super::rules::{AffiliationRules, CitationRules, NameRules};
use super::{FileSeqs, Rules};
use crate::features::{gazetteer_key, Gazetteer};
use crate::lexicon::{Exclusion, Kind, Lexicons};

/// ISO codes of common countries under their usual English names (public ISO 3166 data,
/// typed by hand); the affiliation corpus's own `key` attributes complete it.
const COUNTRY_CODES: &[(&str, &str)] = &[
    ("Argentina", "AR"),
    ("Australia", "AU"),
    ("Austria", "AT"),
    ("Bangladesh", "BD"),
    ("Belgium", "BE"),
    ("Brazil", "BR"),
    ("Bulgaria", "BG"),
    ("Canada", "CA"),
    ("Chile", "CL"),
    ("China", "CN"),
    ("P. R. China", "CN"),
    ("PR China", "CN"),
    ("People's Republic of China", "CN"),
    ("Colombia", "CO"),
    ("Croatia", "HR"),
    ("Cuba", "CU"),
    ("Cyprus", "CY"),
    ("Czech Republic", "CZ"),
    ("Czechia", "CZ"),
    ("Denmark", "DK"),
    ("Egypt", "EG"),
    ("Estonia", "EE"),
    ("Ethiopia", "ET"),
    ("Finland", "FI"),
    ("France", "FR"),
    ("Germany", "DE"),
    ("Ghana", "GH"),
    ("Greece", "GR"),
    ("Hong Kong", "HK"),
    ("Hungary", "HU"),
    ("Iceland", "IS"),
    ("India", "IN"),
    ("Indonesia", "ID"),
    ("Iran", "IR"),
    ("Iraq", "IQ"),
    ("Ireland", "IE"),
    ("Israel", "IL"),
    ("Italy", "IT"),
    ("Japan", "JP"),
    ("Jordan", "JO"),
    ("Kenya", "KE"),
    ("Korea", "KR"),
    ("South Korea", "KR"),
    ("Republic of Korea", "KR"),
    ("Latvia", "LV"),
    ("Lebanon", "LB"),
    ("Lithuania", "LT"),
    ("Luxembourg", "LU"),
    ("Malaysia", "MY"),
    ("Mexico", "MX"),
    ("Morocco", "MA"),
    ("Nepal", "NP"),
    ("Netherlands", "NL"),
    ("The Netherlands", "NL"),
    ("New Zealand", "NZ"),
    ("Nigeria", "NG"),
    ("Norway", "NO"),
    ("Pakistan", "PK"),
    ("Peru", "PE"),
    ("Philippines", "PH"),
    ("Poland", "PL"),
    ("Portugal", "PT"),
    ("Qatar", "QA"),
    ("Romania", "RO"),
    ("Russia", "RU"),
    ("Russian Federation", "RU"),
    ("Saudi Arabia", "SA"),
    ("Serbia", "RS"),
    ("Singapore", "SG"),
    ("Slovakia", "SK"),
    ("Slovenia", "SI"),
    ("South Africa", "ZA"),
    ("Spain", "ES"),
    ("Sri Lanka", "LK"),
    ("Sweden", "SE"),
    ("Switzerland", "CH"),
    ("Taiwan", "TW"),
    ("Tanzania", "TZ"),
    ("Thailand", "TH"),
    ("Tunisia", "TN"),
    ("Turkey", "TR"),
    ("Uganda", "UG"),
    ("Ukraine", "UA"),
    ("United Arab Emirates", "AE"),
    ("UAE", "AE"),
    ("United Kingdom", "GB"),
    ("UK", "GB"),
    ("U.K.", "GB"),
    ("Great Britain", "GB"),
    ("England", "GB"),
    ("Scotland", "GB"),
    ("Wales", "GB"),
    ("United States", "US"),
    ("United States of America", "US"),
    ("USA", "US"),
    ("U.S.A.", "US"),
    ("US", "US"),
    ("U.S.", "US"),
    ("Uruguay", "UY"),
    ("Venezuela", "VE"),
    ("Vietnam", "VN"),
    ("Viet Nam", "VN"),
    ("Zimbabwe", "ZW"),
];

/// Entry file counts and each file's contributions, while building.
#[derive(Default)]
struct Counts {
    files: Vec<BTreeMap<String, u32>>,
    contributions: HashMap<PathBuf, Vec<HashSet<String>>>,
    codes: BTreeMap<String, String>,
}

impl Counts {
    fn new() -> Counts {
        Counts {
            files: vec![BTreeMap::new(); Kind::ALL.len()],
            ..Counts::default()
        }
    }

    fn add_file(&mut self, path: &Path, entries: Vec<(Kind, String)>) {
        let mut per_kind = vec![HashSet::new(); Kind::ALL.len()];
        for (kind, e) in entries {
            let key = gazetteer_key(&e);
            if key.is_empty() || key.chars().count() > 120 {
                continue;
            }
            per_kind[kind.index()].insert(key);
        }
        for (i, set) in per_kind.iter().enumerate() {
            for key in set {
                *self.files[i].entry(key.clone()).or_insert(0) += 1;
            }
        }
        let contrib = self.contributions.entry(path.to_path_buf()).or_default();
        if contrib.is_empty() {
            *contrib = per_kind;
        } else {
            for (c, s) in contrib.iter_mut().zip(per_kind) {
                c.extend(s);
            }
        }
    }
}

/// Lexicons built from a dataset, with each corpus file's exclusions.
pub struct Built {
    pub lexicons: Lexicons,
    exclusions: HashMap<PathBuf, Exclusion>,
}

impl Built {
    /// What a training file must not see (empty for files outside the lexicon's corpora).
    pub fn exclusion(&self, path: &Path) -> Option<&Exclusion> {
        self.exclusions.get(path)
    }
}

fn words_of(text: &str) -> Vec<String> {
    crate::tokenizer::words(text)
        .into_iter()
        .filter(|w| w.chars().count() >= 2 && w.chars().all(char::is_alphabetic))
        .collect()
}

/// What a corpus field contributes to the lexicons.
type FieldEntries = dyn Fn(&super::Field, &mut Vec<(Kind, String)>);

fn add_corpus(counts: &mut Counts, dir: &Path, rules: &dyn Rules, f: &FieldEntries) {
    let Ok((files, _)) = super::read_dir(dir, rules) else {
        return;
    };
    for FileSeqs { path, seqs } in files {
        let mut entries = Vec::new();
        for s in &seqs {
            for field in &s.fields {
                f(field, &mut entries);
                if field.label == "<country>" {
                    if let Some(code) = field.key.as_deref() {
                        let code = code.trim().to_ascii_uppercase();
                        if code.len() == 2 && code.chars().all(|c| c.is_ascii_alphabetic()) {
                            counts
                                .codes
                                .entry(gazetteer_key(&field.text))
                                .or_insert(code);
                        }
                    }
                }
            }
        }
        counts.add_file(&path, entries);
    }
}

/// Build every lexicon from the corpus parts of `dataset` (missing corpora contribute
/// nothing).
pub fn build(dataset: &Path) -> Built {
    let mut counts = Counts::new();
    for sub in ["name/header/corpus", "name/citation/corpus"] {
        add_corpus(
            &mut counts,
            &dataset.join(sub),
            &NameRules,
            &|f, out| match f.label {
                "<forename>" | "<middlename>" => {
                    out.extend(words_of(&f.text).into_iter().map(|w| (Kind::FirstName, w)))
                }
                "<surname>" => {
                    out.extend(words_of(&f.text).into_iter().map(|w| (Kind::LastName, w)))
                }
                "<title>" => out.push((Kind::PersonTitle, f.text.clone())),
                "<suffix>" => out.push((Kind::PersonSuffix, f.text.clone())),
                _ => {}
            },
        );
    }
    add_corpus(
        &mut counts,
        &dataset.join("affiliation-address/corpus"),
        &AffiliationRules,
        &|f, out| match f.label {
            "<settlement>" | "<region>" => out.push((Kind::Location, f.text.clone())),
            "<country>" => {
                out.push((Kind::Location, f.text.clone()));
                out.push((Kind::Country, f.text.clone()));
            }
            _ => {}
        },
    );
    add_corpus(
        &mut counts,
        &dataset.join("citation/corpus"),
        &CitationRules,
        &|f, out| match f.label {
            "<title>" => out.extend(
                words_of(&f.text)
                    .into_iter()
                    .map(|w| (Kind::CommonWord, w.to_lowercase())),
            ),
            "<journal>" => out.push((Kind::Journal, f.text.clone())),
            "<booktitle>" => {
                let l = f.text.to_lowercase();
                if ["proc", "conference", "workshop", "symposium", "meeting"]
                    .iter()
                    .any(|k| l.contains(k))
                {
                    out.push((Kind::Conference, f.text.clone()));
                }
            }
            "<publisher>" => out.push((Kind::Publisher, f.text.clone())),
            "<collaboration>" => out.push((Kind::Collaboration, f.text.clone())),
            "<location>" => out.push((Kind::Location, f.text.clone())),
            _ => {}
        },
    );
    for (name, _) in COUNTRY_CODES {
        // Hand-typed names count as one file no training file owns.
        for kind in [Kind::Country, Kind::Location] {
            *counts.files[kind.index()]
                .entry(gazetteer_key(name))
                .or_insert(0) += 1;
        }
    }
    let mut lex = Lexicons {
        sets: Vec::new(),
        country_codes: HashMap::new(),
    };
    for kind in Kind::ALL {
        let min = kind.min_files();
        lex.sets.push(Gazetteer::from_keys(
            counts.files[kind.index()]
                .iter()
                .filter(|(_, n)| **n >= min)
                .map(|(k, _)| k.as_str()),
        ));
    }
    for (name, code) in COUNTRY_CODES {
        lex.country_codes
            .insert(gazetteer_key(name), code.to_string());
    }
    for (k, c) in &counts.codes {
        lex.country_codes.entry(k.clone()).or_insert(c.clone());
    }
    let mut exclusions = HashMap::new();
    for (path, contrib) in &counts.contributions {
        let per_kind = Kind::ALL
            .iter()
            .map(|&kind| {
                contrib[kind.index()]
                    .iter()
                    .filter(|k| counts.files[kind.index()].get(*k) == Some(&kind.min_files()))
                    .cloned()
                    .collect()
            })
            .collect();
        exclusions.insert(path.clone(), Exclusion { per_kind });
    }
    Built {
        lexicons: lex,
        exclusions,
    }
}

/// Built lexicons per dataset folder, so one training run builds them once.
pub fn built_for(dataset: &Path) -> Arc<Built> {
    static CACHE: OnceLock<Mutex<HashMap<PathBuf, Arc<Built>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let mut guard = match cache.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    };
    guard
        .entry(dataset.to_path_buf())
        .or_insert_with(|| Arc::new(build(dataset)))
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexicon::LexView;

    #[test]
    fn an_entry_only_one_file_gives_is_that_files_exclusion() {
        let mut counts = Counts::new();
        counts.add_file(
            Path::new("a"),
            vec![
                (Kind::LastName, "Smith".into()),
                (Kind::Journal, "J. Doc. Eng.".into()),
            ],
        );
        counts.add_file(Path::new("b"), vec![(Kind::LastName, "Smith".into())]);
        let journal = gazetteer_key("J. Doc. Eng.");
        assert_eq!(counts.files[Kind::Journal.index()][&journal], 1);
        assert_eq!(counts.files[Kind::LastName.index()]["smith"], 2);
        let a = &counts.contributions[Path::new("a")];
        assert!(a[Kind::Journal.index()].contains(&journal));
        assert!(a[Kind::LastName.index()].contains("smith"));
        // Featurising file a hides the journal only a gives, never the shared surname.
        let lex = Lexicons {
            sets: Kind::ALL
                .iter()
                .map(|k| Gazetteer::from_keys(counts.files[k.index()].keys().map(String::as_str)))
                .collect(),
            country_codes: HashMap::new(),
        };
        let per_kind = Kind::ALL
            .iter()
            .map(|&k| {
                a[k.index()]
                    .iter()
                    .filter(|e| counts.files[k.index()][*e] == k.min_files())
                    .cloned()
                    .collect()
            })
            .collect();
        let excl = Exclusion { per_kind };
        let own = LexView {
            lex: &lex,
            exclusion: Some(&excl),
        };
        assert!(own.has_word(Kind::LastName, "Smith"));
        assert!(!own.has_word(Kind::Journal, "J. Doc. Eng."));
    }
}
