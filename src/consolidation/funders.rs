/*!
The Crossref Funder Registry, held in memory, for `consolidateFunders` (grobid-service.md §4.6:
GROBID asks Crossref's `/funders?query=` and accepts a candidate whose name, stop words left
out, equals the extracted one or is very close to it).

- **Import**: the registry as Crossref's REST API gives it: funder objects (`id`, `name`,
  `alt-names`, `location`, `uri`, `replaced-by`), one per line or as a `{"message": {"items":
  [...]}}` / `{"items": [...]}` document, gzip or plain ([`super::crossref::read_items`]).
  [`FunderRegistry::import`] merges them (by id) into `funders.jsonl` in the index folder, one
  normalised record per line; the service loads that file at start.
- **Lookup** ([`FunderRegistry::lookup`]): the extracted name's words (lower case, accents
  folded, stop words and punctuation left out) must equal a funder's name or one of its
  alternative names; an acronym or alternative name several funders share is ambiguous and
  matches nothing, unless exactly one of them is still current (not `replaced-by`). Failing
  that, the candidates sharing the name's rarest word are re-scored by similarity and one
  above [`FUZZY_THRESHOLD`] is accepted.
*/

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::crossref::{read_items, Reject};
use super::words::words;

/// File of the registry in the index folder.
pub const FILE: &str = "funders.jsonl";

/// Similarity (normalised Levenshtein over the normalised words) above which a fuzzy
/// candidate is accepted.
pub const FUZZY_THRESHOLD: f64 = 0.9;

/// Words left out when names are compared.
const STOP_WORDS: &[&str] = &[
    "the", "of", "for", "and", "de", "des", "du", "la", "le", "der", "die", "das", "für", "fur",
    "und", "del", "y", "e", "et", "di", "in", "on",
];

/// One funder of the registry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunderRecord {
    /// The registry id (`100000001`); the funder's DOI is `10.13039/<id>`.
    pub id: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alt_names: Vec<String>,
    /// The country, as the registry names it (`United States`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// Ids of the funders that replaced this one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replaced_by: Vec<String>,
}

impl FunderRecord {
    /// The funder's DOI in the registry's prefix.
    pub fn doi(&self) -> String {
        format!("10.13039/{}", self.id)
    }
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().or_else(|| x.get("id").and_then(Value::as_str)))
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// One funder object of the Crossref REST API (or an API answer wrapping it in `message`).
pub fn parse_funder(v: &Value) -> Result<FunderRecord, Reject> {
    let v = match v.get("message") {
        Some(m) if m.is_object() => m,
        _ => v,
    };
    if !v.is_object() {
        return Err(Reject::NotAnObject);
    }
    let str_of = |k: &str| v.get(k).and_then(Value::as_str).map(str::trim);
    let from_uri = str_of("uri").and_then(|u| u.rsplit_once("10.13039/").map(|(_, id)| id));
    let id = str_of("id")
        .filter(|s| !s.is_empty())
        .or(from_uri)
        .filter(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric()))
        .ok_or(Reject::NoFunderId)?;
    let name = str_of("name")
        .filter(|s| !s.is_empty())
        .ok_or(Reject::NoName)?;
    Ok(FunderRecord {
        id: id.to_string(),
        name: name.to_string(),
        alt_names: strings(v.get("alt-names")),
        location: str_of("location")
            .filter(|s| !s.is_empty())
            .map(str::to_string),
        replaced_by: strings(v.get("replaced-by")),
    })
}

/// The comparison key of a name: its words, stop words left out.
pub fn name_key(name: &str) -> String {
    words(name)
        .into_iter()
        .filter(|w| !STOP_WORDS.contains(&w.as_str()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Counts of a funder import.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FunderImport {
    pub read: u64,
    /// Records new to the registry, and records that replaced one with the same id.
    pub added: u64,
    pub updated: u64,
    pub rejected: HashMap<&'static str, u64>,
    /// Funders in the registry after the import.
    pub total: u64,
}

/// How a name was matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FunderMatch {
    /// The registry's own name.
    Name,
    /// One of its alternative names (often the acronym).
    AltName,
    /// A close name (see [`FUZZY_THRESHOLD`]).
    Similar,
}

/// The registry in memory, with its name indexes.
#[derive(Debug, Default)]
pub struct FunderRegistry {
    records: Vec<FunderRecord>,
    /// Each record's [`name_key`], computed once (fuzzy candidates are scored on it).
    keys: Vec<String>,
    by_name: HashMap<String, Vec<usize>>,
    by_alt: HashMap<String, Vec<usize>>,
    /// Records per word of their name key (for fuzzy candidates).
    by_word: HashMap<String, Vec<usize>>,
}

impl FunderRegistry {
    pub fn new(records: Vec<FunderRecord>) -> FunderRegistry {
        let mut r = FunderRegistry {
            records,
            ..FunderRegistry::default()
        };
        r.keys = r.records.iter().map(|f| name_key(&f.name)).collect();
        for (i, f) in r.records.iter().enumerate() {
            let key = &r.keys[i];
            for w in key.split(' ').filter(|w| !w.is_empty()) {
                let list = r.by_word.entry(w.to_string()).or_default();
                if list.last() != Some(&i) {
                    list.push(i);
                }
            }
            if !key.is_empty() {
                r.by_name.entry(key.clone()).or_default().push(i);
            }
            for alt in &f.alt_names {
                let key = name_key(alt);
                if !key.is_empty() {
                    let list = r.by_alt.entry(key).or_default();
                    if list.last() != Some(&i) {
                        list.push(i);
                    }
                }
            }
        }
        r
    }

    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    pub fn path(dir: &Path) -> PathBuf {
        dir.join(FILE)
    }

    /// Loads `<dir>/funders.jsonl`; `Ok(None)` when the file is absent.
    pub fn load(dir: &Path) -> crate::Result<Option<FunderRegistry>> {
        let path = Self::path(dir);
        if !path.is_file() {
            return Ok(None);
        }
        let io = |source| crate::Error::Io {
            path: path.clone(),
            source,
        };
        let mut records = Vec::new();
        for (n, line) in BufReader::new(File::open(&path).map_err(io)?)
            .lines()
            .enumerate()
        {
            let line = line.map_err(io)?;
            if line.trim().is_empty() {
                continue;
            }
            let rec: FunderRecord =
                serde_json::from_str(&line).map_err(|e| crate::Error::Corpus {
                    path: path.clone(),
                    reason: format!("line {}: {e}", n + 1),
                })?;
            records.push(rec);
        }
        Ok(Some(FunderRegistry::new(records)))
    }

    /// Reads funder files (Crossref REST objects, see the module documentation) and merges
    /// them by id into `<dir>/funders.jsonl`, written anew (through a temporary file).
    pub fn import(dir: &Path, paths: &[PathBuf]) -> crate::Result<FunderImport> {
        let mut counts = FunderImport::default();
        let mut records = Self::load(dir)?.map(|r| r.records).unwrap_or_default();
        let mut at: HashMap<String, usize> = records
            .iter()
            .enumerate()
            .map(|(i, r)| (r.id.clone(), i))
            .collect();
        for path in paths {
            read_items(path, 0, parse_funder, |_, rec| {
                counts.read += 1;
                match rec {
                    Ok(rec) => match at.get(&rec.id) {
                        Some(&i) => {
                            records[i] = rec;
                            counts.updated += 1;
                        }
                        None => {
                            at.insert(rec.id.clone(), records.len());
                            records.push(rec);
                            counts.added += 1;
                        }
                    },
                    Err(e) => *counts.rejected.entry(e.key()).or_default() += 1,
                }
                Ok(())
            })?;
        }
        std::fs::create_dir_all(dir).map_err(|source| crate::Error::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let path = Self::path(dir);
        let tmp = dir.join(format!("{FILE}.tmp"));
        let io = |source| crate::Error::Io {
            path: tmp.clone(),
            source,
        };
        let mut out = BufWriter::new(File::create(&tmp).map_err(io)?);
        for r in &records {
            let line = serde_json::to_string(r).map_err(|e| crate::Error::Io {
                path: tmp.clone(),
                source: std::io::Error::other(e),
            })?;
            writeln!(out, "{line}").map_err(io)?;
        }
        out.into_inner()
            .map_err(|e| io(e.into_error()))?
            .sync_all()
            .map_err(io)?;
        std::fs::rename(&tmp, &path).map_err(|source| crate::Error::Io {
            path: path.clone(),
            source,
        })?;
        counts.total = records.len() as u64;
        Ok(counts)
    }

    /// One record among `ids`: the only one, or the only current one (not replaced).
    fn single(&self, ids: &[usize]) -> Option<&FunderRecord> {
        match ids {
            [i] => Some(&self.records[*i]),
            _ => {
                let mut current = ids
                    .iter()
                    .map(|&i| &self.records[i])
                    .filter(|r| r.replaced_by.is_empty());
                let one = current.next()?;
                current.next().is_none().then_some(one)
            }
        }
    }

    /// The registry's funder for an extracted name (see the module documentation).
    pub fn lookup(&self, name: &str) -> Option<(&FunderRecord, FunderMatch)> {
        let key = name_key(name);
        if key.is_empty() {
            return None;
        }
        if let Some(ids) = self.by_name.get(&key) {
            return self.single(ids).map(|r| (r, FunderMatch::Name));
        }
        if let Some(ids) = self.by_alt.get(&key) {
            return self.single(ids).map(|r| (r, FunderMatch::AltName));
        }
        // Fuzzy: candidates sharing the key's rarest word, a few words long at least.
        let ws: Vec<&str> = key.split(' ').collect();
        if ws.len() < 2 {
            return None;
        }
        let rarest = ws
            .iter()
            .filter_map(|w| self.by_word.get(*w))
            .min_by_key(|l| l.len())?;
        let mut best: Option<(f64, usize)> = None;
        for &i in rarest.iter().take(2000) {
            let sim = strsim::normalized_levenshtein(&key, &self.keys[i]);
            if sim >= FUZZY_THRESHOLD && best.is_none_or(|(b, _)| sim > b) {
                best = Some((sim, i));
            }
        }
        best.map(|(_, i)| (&self.records[i], FunderMatch::Similar))
    }
}

/// Applies a registry match to a funding (grobid-service §4.6: 1 replaces the extracted funder
/// with the registry's record, 2 copies only the DOI). With 1, a printed acronym (one word,
/// mostly capitals) is kept as the abbreviated name.
pub fn merge(f: &mut crate::document::Funding, r: &FunderRecord, mode: super::Mode) {
    f.funder_doi = Some(r.doi());
    if mode == super::Mode::Merge {
        if let Some(printed) = f.funder.replace(r.name.clone()) {
            let acronym = !printed.contains(' ')
                && printed.chars().filter(|c| c.is_uppercase()).count() * 2 > printed.len()
                && printed != r.name;
            if acronym {
                f.funder_abbreviation = Some(printed);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn registry() -> FunderRegistry {
        let items = [
            json!({"id": "100000001", "name": "National Science Foundation", "alt-names": ["NSF", "US NSF"], "location": "United States", "uri": "http://dx.doi.org/10.13039/100000001", "replaced-by": []}),
            json!({"id": "501100001809", "name": "National Natural Science Foundation of China", "alt-names": ["NSFC", "NNSF of China"], "location": "China"}),
            json!({"id": "501100000780", "name": "European Commission", "alt-names": ["EC"], "location": "Belgium"}),
            json!({"id": "501100001659", "name": "Deutsche Forschungsgemeinschaft", "alt-names": ["DFG", "German Research Foundation"], "location": "Germany"}),
            // Two funders sharing an acronym.
            json!({"id": "100000002", "name": "National Institutes of Health", "alt-names": ["NIH"]}),
            json!({"id": "999", "name": "National Institute of Hydrology", "alt-names": ["NIH"]}),
            // An old record replaced by a current one, both called ACME.
            json!({"id": "1", "name": "Acme Research Fund", "alt-names": ["ACME"], "replaced-by": ["2"]}),
            json!({"id": "2", "name": "Acme Research Trust", "alt-names": ["ACME"]}),
        ];
        FunderRegistry::new(items.iter().map(|v| parse_funder(v).unwrap()).collect())
    }

    #[test]
    fn funder_objects_parse_and_bad_ones_say_why() {
        let r = parse_funder(
            &json!({"message": {"uri": "http://dx.doi.org/10.13039/100000001", "name": " NSF "}}),
        )
        .unwrap();
        assert_eq!(r.id, "100000001");
        assert_eq!(r.name, "NSF");
        assert_eq!(r.doi(), "10.13039/100000001");
        assert_eq!(parse_funder(&json!({"name": "X"})), Err(Reject::NoFunderId));
        assert_eq!(parse_funder(&json!({"id": "1"})), Err(Reject::NoName));
        assert_eq!(parse_funder(&json!(["x"])), Err(Reject::NotAnObject));
    }

    #[test]
    fn names_alt_names_and_close_names_match() {
        let reg = registry();
        let id = |n: &str| reg.lookup(n).map(|(r, m)| (r.id.as_str(), m));
        assert_eq!(
            id("the National Science Foundation"),
            Some(("100000001", FunderMatch::Name))
        );
        assert_eq!(id("NSF"), Some(("100000001", FunderMatch::AltName)));
        assert_eq!(
            id("German Research Foundation"),
            Some(("501100001659", FunderMatch::AltName))
        );
        assert_eq!(
            id("National Natural Science Foundation of China"),
            Some(("501100001809", FunderMatch::Name))
        );
        // A misspelling close to one name.
        assert_eq!(
            id("Deutsche Forschungsgemeinshaft"),
            Some(("501100001659", FunderMatch::Similar))
        );
        // A shared acronym is ambiguous; a replaced record gives way to the current one.
        assert_eq!(id("NIH"), None);
        assert_eq!(id("ACME"), Some(("2", FunderMatch::AltName)));
        // Unknown, or too far from any name.
        assert_eq!(id("Science Foundation of Nowhere"), None);
        assert_eq!(id("   "), None);
    }

    #[test]
    fn imports_merge_by_id_and_count_rejections() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.jsonl");
        std::fs::write(
            &a,
            "{\"id\": \"1\", \"name\": \"One\"}\nnot json\n{\"name\": \"no id\"}\n",
        )
        .unwrap();
        let b = dir.path().join("b.json");
        std::fs::write(
            &b,
            r#"{"message": {"items": [{"id": "1", "name": "One Foundation"}, {"id": "2", "name": "Two"}]}}"#,
        )
        .unwrap();
        let idx = dir.path().join("index");
        let c = FunderRegistry::import(&idx, &[a]).unwrap();
        assert_eq!((c.read, c.added, c.updated, c.total), (3, 1, 0, 1));
        assert_eq!(c.rejected.get("invalid-json"), Some(&1));
        assert_eq!(c.rejected.get("no-funder-id"), Some(&1));
        let c = FunderRegistry::import(&idx, &[b]).unwrap();
        assert_eq!((c.read, c.added, c.updated, c.total), (2, 1, 1, 2));
        let reg = FunderRegistry::load(&idx).unwrap().unwrap();
        assert_eq!(reg.len(), 2);
        assert_eq!(reg.lookup("One Foundation").unwrap().0.id, "1");
        assert!(FunderRegistry::load(dir.path()).unwrap().is_none());
    }
}
