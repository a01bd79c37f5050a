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

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

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
    pub(crate) fn min_files(self) -> u32 {
        match self {
            Kind::CommonWord => 2,
            _ => 1,
        }
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

/// Entries a training file must not see (those only it contributes), per lexicon kind.
#[derive(Debug, Clone, Default)]
pub struct Exclusion {
    pub(crate) per_kind: Vec<HashSet<String>>,
}

impl Exclusion {
    pub fn get(&self, kind: Kind) -> Option<&HashSet<String>> {
        self.per_kind.get(kind.index()).filter(|s| !s.is_empty())
    }
}

/// All lexicons, ready for lookups and gazetteer matching.
#[derive(Debug, Clone, Default)]
pub struct Lexicons {
    pub(crate) sets: Vec<Gazetteer>,
    /// gazetteer key of a country name → ISO 3166-1 alpha-2 code.
    pub(crate) country_codes: HashMap<String, String>,
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

/// How often [`shared_folder`] looks at the lexicon folder again: reading the folder on every
/// request would cost the raw-string endpoints (thousands of requests a second) more than their
/// tagging.
pub(crate) const RECHECK: std::time::Duration = std::time::Duration::from_secs(1);

/// What is read from a models folder's `lexicon` folder and shared by every request
/// ([`shared_folder`]): the lexicons, and the funding model's gazetteers written beside them.
pub trait LexiconFolder: Send + Sync + Sized + 'static {
    /// Read it from the lexicon folder `dir`.
    fn load(dir: &Path) -> Result<Self>;
}

impl LexiconFolder for Lexicons {
    fn load(dir: &Path) -> Result<Lexicons> {
        Lexicons::load(dir)
    }
}

/// The run-time lexicons of a models folder (`<models>/lexicon`), shared by every request
/// ([`shared_folder`]).
pub fn shared(models_dir: &Path) -> Result<Arc<Lexicons>> {
    shared_folder(models_dir)
}

/// What `T` reads from a models folder's lexicon folder (`<models>/lexicon`), shared by every
/// request. It is loaded on first use and loaded again when a file of the folder changes (a
/// retrained model writes new lexicons beside it): at most once per [`RECHECK`], a call
/// compares the folder's fingerprint (names, sizes, modification times) with the one the
/// cached copy was read from. Each type has its own copy per folder.
pub fn shared_folder<T: LexiconFolder>(models_dir: &Path) -> Result<Arc<T>> {
    type Value = Arc<dyn std::any::Any + Send + Sync>;
    struct Entry {
        print: Vec<(PathBuf, u64, Option<std::time::SystemTime>)>,
        checked: std::time::Instant,
        value: Value,
    }
    static CACHE: OnceLock<Mutex<HashMap<(std::any::TypeId, PathBuf), Entry>>> = OnceLock::new();
    let cached = |v: &Value| v.clone().downcast::<T>().ok();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let dir = models_dir.join("lexicon");
    let key = (std::any::TypeId::of::<T>(), models_dir.to_path_buf());
    let mut guard = match cache.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    };
    // The fingerprint just compared with the cached copy's, kept for the copy read now.
    let mut seen = None;
    if let Some(e) = guard.get_mut(&key) {
        if e.checked.elapsed() < RECHECK {
            if let Some(v) = cached(&e.value) {
                return Ok(v);
            }
        }
        let print = fingerprint(&dir);
        e.checked = std::time::Instant::now();
        if e.print == print {
            if let Some(v) = cached(&e.value) {
                return Ok(v);
            }
        }
        seen = Some(print);
    }
    let print = seen.unwrap_or_else(|| fingerprint(&dir));
    let value = Arc::new(T::load(&dir)?);
    guard.insert(
        key,
        Entry {
            print,
            checked: std::time::Instant::now(),
            value: value.clone(),
        },
    );
    Ok(value)
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

    /// Lexicons of two corpus files: `a` gives the surname Smith and a journal, `b` Smith
    /// too; file a's exclusion hides the journal only it gives.
    fn tiny() -> (Lexicons, Exclusion) {
        let journal = gazetteer_key("J. Doc. Eng.");
        let mut lex = Lexicons::default();
        for kind in Kind::ALL {
            let keys: Vec<String> = match kind {
                Kind::LastName => vec![gazetteer_key("Smith")],
                Kind::Journal => vec![journal.clone()],
                _ => Vec::new(),
            };
            lex.sets
                .push(Gazetteer::from_keys(keys.iter().map(String::as_str)));
        }
        let per_kind = Kind::ALL
            .iter()
            .map(|&k| match k {
                Kind::Journal => HashSet::from([journal.clone()]),
                _ => HashSet::new(),
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
