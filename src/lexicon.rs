/*!
Lexicons built by Quire's own code from the labelled training corpora: first names, surnames,
person titles and suffixes (name corpora), common title words, journals, conferences,
publishers, collaborations and places (citation corpus), places, countries and their ISO codes
(affiliation corpus, completed by a small hand-written table of country codes).

Each entry records in how many corpus files it occurs. When a training file is featurised,
the entries that only that file contributes are hidden ([`Exclusion`]), so a model never learns
"the lexicon always knows this word" from its own labels (the self-leak trap). At run time the
full lexicons are loaded from `models/lexicon/` (one sorted `<kind>.txt` per lexicon, one entry
per line, plus `country-codes.tsv`), written whenever a training run rebuilds them.
*/

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use crate::corpus::{self, FileSeqs, Rules};
use crate::features::{gazetteer_key, Gazetteer};
use crate::{Error, Result};

/// The lexicons Quire builds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    FirstName,
    LastName,
    PersonTitle,
    PersonSuffix,
    CommonWord,
    Journal,
    Conference,
    Publisher,
    Collaboration,
    Location,
    Country,
}

impl Kind {
    pub const ALL: [Kind; 11] = [
        Kind::FirstName,
        Kind::LastName,
        Kind::PersonTitle,
        Kind::PersonSuffix,
        Kind::CommonWord,
        Kind::Journal,
        Kind::Conference,
        Kind::Publisher,
        Kind::Collaboration,
        Kind::Location,
        Kind::Country,
    ];

    pub fn file_stem(self) -> &'static str {
        match self {
            Kind::FirstName => "first-names",
            Kind::LastName => "last-names",
            Kind::PersonTitle => "person-titles",
            Kind::PersonSuffix => "person-suffixes",
            Kind::CommonWord => "common-words",
            Kind::Journal => "journals",
            Kind::Conference => "conferences",
            Kind::Publisher => "publishers",
            Kind::Collaboration => "collaborations",
            Kind::Location => "locations",
            Kind::Country => "countries",
        }
    }

    /// Files an entry must occur in to be kept (common words must recur, so that proper
    /// names found in one title do not count as common).
    fn min_files(self) -> u32 {
        match self {
            Kind::CommonWord => 2,
            _ => 1,
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// Entries a training file must not see (those only it contributes), per lexicon kind.
#[derive(Debug, Clone, Default)]
pub struct Exclusion {
    per_kind: Vec<HashSet<String>>,
}

impl Exclusion {
    pub fn get(&self, kind: Kind) -> Option<&HashSet<String>> {
        self.per_kind.get(kind.index()).filter(|s| !s.is_empty())
    }
}

/// All lexicons, ready for lookups and gazetteer matching.
#[derive(Debug, Clone, Default)]
pub struct Lexicons {
    sets: Vec<Gazetteer>,
    /// gazetteer key of a country name → ISO 3166-1 alpha-2 code.
    country_codes: HashMap<String, String>,
}

/// A lexicon view for featurising one sequence: the lexicons, minus a training file's own
/// entries.
#[derive(Clone, Copy)]
pub struct LexView<'a> {
    pub lex: &'a Lexicons,
    pub exclusion: Option<&'a Exclusion>,
}

impl<'a> LexView<'a> {
    pub fn new(lex: &'a Lexicons) -> LexView<'a> {
        LexView {
            lex,
            exclusion: None,
        }
    }

    fn excluded(&self, kind: Kind) -> Option<&'a HashSet<String>> {
        self.exclusion.and_then(|e| e.get(kind))
    }

    /// Single-token lookup (lower-cased, trailing `.,:;` removed).
    pub fn has_word(&self, kind: Kind, token: &str) -> bool {
        let mut w = token.to_lowercase();
        if w.ends_with(['.', ',', ':', ';']) {
            w.pop();
        }
        if w.is_empty() {
            return false;
        }
        let Some(g) = self.lex.sets.get(kind.index()) else {
            return false;
        };
        if !g.contains_key(&w) {
            return false;
        }
        self.excluded(kind).is_none_or(|x| !x.contains(&w))
    }

    /// Gazetteer flags of a lexicon over a token sequence.
    pub fn flags(&self, kind: Kind, toks: &[crate::features::Tok]) -> Vec<bool> {
        match self.lex.sets.get(kind.index()) {
            Some(g) => g.flags(toks, self.excluded(kind)),
            None => vec![false; toks.len()],
        }
    }
}

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
type FieldEntries = dyn Fn(&corpus::Field, &mut Vec<(Kind, String)>);

fn add_corpus(counts: &mut Counts, dir: &Path, rules: &dyn Rules, f: &FieldEntries) {
    let Ok((files, _)) = corpus::read_dir(dir, rules) else {
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
    use crate::models::{affiliation, citation, name};
    let mut counts = Counts::new();
    for sub in ["name/header/corpus", "name/citation/corpus"] {
        add_corpus(
            &mut counts,
            &dataset.join(sub),
            &name::NameRules,
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
        &affiliation::AffiliationRules,
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
        &citation::CitationRules,
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

/// `$QUIRE_MODELS_DIR/lexicon` (the `models.dir` setting's variable), else `models/lexicon`.
pub fn default_dir() -> PathBuf {
    std::env::var_os("QUIRE_MODELS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("models"))
        .join("lexicon")
}

impl Lexicons {
    pub fn len(&self, kind: Kind) -> usize {
        self.sets.get(kind.index()).map_or(0, Gazetteer::len)
    }

    /// ISO code of a country name, if known.
    pub fn country_code(&self, name: &str) -> Option<&str> {
        self.country_codes
            .get(&gazetteer_key(name))
            .map(String::as_str)
    }

    /// Write one sorted file per lexicon (skipped when the content is unchanged).
    pub fn save(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let write = |path: PathBuf, text: String| -> Result<()> {
            if std::fs::read_to_string(&path).ok().as_deref() == Some(text.as_str()) {
                return Ok(());
            }
            std::fs::write(&path, text).map_err(|e| Error::io(path, e))
        };
        for kind in Kind::ALL {
            let mut keys: Vec<&str> = self.sets[kind.index()].keys().collect();
            keys.sort_unstable();
            let mut text = keys.join("\n");
            text.push('\n');
            write(dir.join(format!("{}.txt", kind.file_stem())), text)?;
        }
        let mut codes: Vec<_> = self.country_codes.iter().collect();
        codes.sort();
        let text: String = codes.iter().map(|(k, c)| format!("{k}\t{c}\n")).collect();
        write(dir.join("country-codes.tsv"), text)
    }

    /// Load the lexicons written by [`Lexicons::save`].
    pub fn load(dir: &Path) -> Result<Lexicons> {
        let read = |path: PathBuf| -> Result<String> {
            std::fs::read_to_string(&path).map_err(|e| Error::ModelUnavailable {
                model: "lexicon".into(),
                reason: format!("cannot read {}: {e}", path.display()),
            })
        };
        let mut sets = Vec::new();
        for kind in Kind::ALL {
            let text = read(dir.join(format!("{}.txt", kind.file_stem())))?;
            sets.push(Gazetteer::from_keys(text.lines().filter(|l| !l.is_empty())));
        }
        let mut country_codes = HashMap::new();
        for line in read(dir.join("country-codes.tsv"))?.lines() {
            if let Some((k, c)) = line.split_once('\t') {
                country_codes.insert(k.to_string(), c.to_string());
            }
        }
        Ok(Lexicons {
            sets,
            country_codes,
        })
    }
}

/// A fingerprint of the lexicon folder: each file's name, length and modification time.
fn fingerprint(dir: &Path) -> Vec<(PathBuf, u64, Option<std::time::SystemTime>)> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let m = e.metadata().ok()?;
            m.is_file().then(|| (e.path(), m.len(), m.modified().ok()))
        })
        .collect();
    out.sort();
    out
}

/// How often [`shared`] looks at the lexicon folder again: reading the folder on every request
/// would cost the raw-string endpoints (thousands of requests a second) more than their tagging.
const RECHECK: std::time::Duration = std::time::Duration::from_secs(1);

/// The run-time lexicons of a models folder (`<models>/lexicon`), shared by every request.
/// They are loaded on first use and loaded again when a file of the folder changes (a retrained
/// model writes new lexicons beside it): at most once per [`RECHECK`], a call compares the
/// folder's fingerprint (names, sizes, modification times) with the one the cached copy was
/// read from.
pub fn shared(models_dir: &Path) -> Result<Arc<Lexicons>> {
    struct Entry {
        print: Vec<(PathBuf, u64, Option<std::time::SystemTime>)>,
        checked: std::time::Instant,
        lex: Arc<Lexicons>,
    }
    static CACHE: OnceLock<Mutex<HashMap<PathBuf, Entry>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let dir = models_dir.join("lexicon");
    let mut guard = match cache.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    };
    if let Some(e) = guard.get_mut(models_dir) {
        if e.checked.elapsed() < RECHECK {
            return Ok(e.lex.clone());
        }
        let print = fingerprint(&dir);
        e.checked = std::time::Instant::now();
        if e.print == print {
            return Ok(e.lex.clone());
        }
    }
    let print = fingerprint(&dir);
    let lex = Arc::new(Lexicons::load(&dir)?);
    guard.insert(
        models_dir.to_path_buf(),
        Entry {
            print,
            checked: std::time::Instant::now(),
            lex: lex.clone(),
        },
    );
    Ok(lex)
}

/// Lexicons of the default models folder for `quire tag`-style callers without a config:
/// empty lexicons when none have been written yet.
pub fn default_shared() -> Arc<Lexicons> {
    let dir = default_dir();
    let models = dir.parent().map(Path::to_path_buf).unwrap_or_default();
    shared(&models).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::toks_from_text;

    fn tiny() -> (Lexicons, Exclusion) {
        let mut counts = Counts::new();
        counts.add_file(
            Path::new("a"),
            vec![
                (Kind::LastName, "Smith".into()),
                (Kind::Journal, "J. Doc. Eng.".into()),
            ],
        );
        counts.add_file(Path::new("b"), vec![(Kind::LastName, "Smith".into())]);
        let mut lex = Lexicons::default();
        for kind in Kind::ALL {
            lex.sets.push(Gazetteer::from_keys(
                counts.files[kind.index()].keys().map(String::as_str),
            ));
        }
        let contrib = &counts.contributions[Path::new("a")];
        let per_kind = Kind::ALL
            .iter()
            .map(|&k| {
                contrib[k.index()]
                    .iter()
                    .filter(|e| counts.files[k.index()][*e] == 1)
                    .cloned()
                    .collect()
            })
            .collect();
        (lex, Exclusion { per_kind })
    }

    #[test]
    fn a_files_own_entries_are_hidden_from_it() {
        let (lex, excl) = tiny();
        let full = LexView::new(&lex);
        let own = LexView {
            lex: &lex,
            exclusion: Some(&excl),
        };
        // "smith" also comes from file b, so file a still sees it.
        assert!(full.has_word(Kind::LastName, "Smith,"));
        assert!(own.has_word(Kind::LastName, "Smith"));
        let t = toks_from_text("in J. Doc. Eng. 12", false);
        assert!(full.flags(Kind::Journal, &t)[1]);
        assert!(!own.flags(Kind::Journal, &t)[1]);
    }

    #[test]
    fn save_and_load_round_trip() {
        let (mut lex, _) = tiny();
        lex.country_codes.insert("france".into(), "FR".into());
        let dir = std::env::temp_dir().join(format!("quire-lex-{}", std::process::id()));
        lex.save(&dir).unwrap();
        let back = Lexicons::load(&dir).unwrap();
        assert_eq!(back.len(Kind::LastName), 1);
        assert_eq!(back.country_code("France"), Some("FR"));
        assert!(LexView::new(&back).has_word(Kind::LastName, "smith"));
        std::fs::remove_dir_all(&dir).unwrap();
        let err = Lexicons::load(&dir).unwrap_err().to_string();
        assert!(err.contains("lexicon"), "{err}");
    }

    #[test]
    fn shared_lexicons_are_reloaded_when_their_files_change() {
        let (mut lex, _) = tiny();
        let models = std::env::temp_dir().join(format!("quire-lex-shared-{}", std::process::id()));
        let dir = models.join("lexicon");
        lex.save(&dir).unwrap();
        let first = shared(&models).unwrap();
        assert!(
            Arc::ptr_eq(&first, &shared(&models).unwrap()),
            "unchanged: cached"
        );
        assert_eq!(first.country_code("France"), None);
        lex.country_codes.insert("france".into(), "FR".into());
        lex.save(&dir).unwrap();
        // Changes are seen once RECHECK has passed.
        std::thread::sleep(RECHECK + std::time::Duration::from_millis(50));
        let second = shared(&models).unwrap();
        assert_eq!(second.country_code("France"), Some("FR"));
        std::fs::remove_dir_all(&models).unwrap();
    }
}
