/*!
Crossref REST API work objects → [`Record`]s.

Two file shapes are read, gzip-compressed (recognised by its magic bytes) or plain:
- JSON Lines: one work object per line (an API answer `{"status": "ok", "message": {…}}` per
  line works too);
- the public data file's shape: one JSON document `{"items": [work, …]}` (or an API list
  answer, `{"message": {"items": […]}}`).

A record that cannot be used is rejected with a [`Reject`] reason and reading goes on.
*/

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use serde_json::Value;

use super::{Funder, Record, RecordAuthor};
use crate::doi::normalize as normalize_doi;

/// Why a work (or funder) object was not imported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reject {
    /// The line (or file) is not JSON.
    InvalidJson(String),
    /// The JSON value is not a work object.
    NotAnObject,
    /// The work has no `DOI`.
    NoDoi,
    /// The `DOI` is not of the form `10.<registrant>/<suffix>`.
    BadDoi(String),
    /// The work has no title: it could never be matched.
    NoTitle,
    /// The funder has no registry `id` (nor a `uri` ending in one).
    NoFunderId,
    /// The funder has no `name`.
    NoName,
}

impl Reject {
    /// A short key per kind of reason, for counts.
    pub fn key(&self) -> &'static str {
        match self {
            Reject::InvalidJson(_) => "invalid-json",
            Reject::NotAnObject => "not-an-object",
            Reject::NoDoi => "no-doi",
            Reject::BadDoi(_) => "bad-doi",
            Reject::NoTitle => "no-title",
            Reject::NoFunderId => "no-funder-id",
            Reject::NoName => "no-name",
        }
    }
}

impl std::fmt::Display for Reject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reject::InvalidJson(e) => write!(f, "invalid JSON: {e}"),
            Reject::NotAnObject => f.write_str("not a work object"),
            Reject::NoDoi => f.write_str("no DOI"),
            Reject::BadDoi(d) => write!(f, "`{d}` is not a DOI"),
            Reject::NoTitle => f.write_str("no title"),
            Reject::NoFunderId => f.write_str("no funder id"),
            Reject::NoName => f.write_str("no name"),
        }
    }
}

/// Whitespace collapsed, markup tags (`<i>`, `<sub>`, `<mml:math>` …) removed.
fn clean(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let is_tag = after.starts_with(|c: char| c.is_ascii_alphabetic() || c == '/');
        match after.find('>').filter(|_| is_tag) {
            Some(j) => {
                out.push(' ');
                rest = &after[j + 1..];
            }
            None => {
                out.push('<');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A string field, or the first non-empty string of an array field.
fn text(v: &Value, key: &str) -> Option<String> {
    let field = v.get(key)?;
    let s = match field {
        Value::String(s) => clean(s),
        Value::Array(items) => items
            .iter()
            .filter_map(Value::as_str)
            .map(clean)
            .find(|s| !s.is_empty())?,
        Value::Number(n) => n.to_string(),
        _ => return None,
    };
    (!s.is_empty()).then_some(s)
}

/// `(year, month, day)` of the first of `issued`, `published-print`, `published-online`,
/// `published` that has a year.
fn date(v: &Value) -> Option<(i32, Option<u32>, Option<u32>)> {
    ["issued", "published-print", "published-online", "published"]
        .iter()
        .find_map(|k| {
            let parts = v.get(k)?.get("date-parts")?.get(0)?.as_array()?;
            let num = |i: usize| parts.get(i).and_then(Value::as_i64);
            let year = i32::try_from(num(0)?).ok()?;
            let month = num(1).and_then(|m| u32::try_from(m).ok());
            let day = num(2).and_then(|d| u32::try_from(d).ok());
            Some((year, month, day))
        })
}

/// One work object (or an API answer wrapping it in `message`) as a [`Record`].
pub fn parse_work(v: &Value) -> Result<Record, Reject> {
    let v = match v.get("message") {
        Some(m) if m.is_object() => m,
        _ => v,
    };
    if !v.is_object() {
        return Err(Reject::NotAnObject);
    }
    let raw_doi = v.get("DOI").and_then(Value::as_str).ok_or(Reject::NoDoi)?;
    let doi = normalize_doi(raw_doi).ok_or_else(|| Reject::BadDoi(raw_doi.to_string()))?;
    let title = text(v, "title").ok_or(Reject::NoTitle)?;
    let authors = v
        .get("author")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|a| {
                    let family = text(a, "family").or_else(|| text(a, "name"))?;
                    Some(RecordAuthor {
                        given: text(a, "given"),
                        family,
                        orcid: text(a, "ORCID"),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let (first_page, last_page) = match text(v, "page") {
        Some(p) => match p.split_once('-') {
            Some((a, b)) => (
                Some(a.trim().to_string()).filter(|s| !s.is_empty()),
                Some(b.trim().to_string()).filter(|s| !s.is_empty()),
            ),
            None => (Some(p), None),
        },
        None => (None, None),
    };
    let (year, month, day) = match date(v) {
        Some((y, m, d)) => (Some(y), m, d),
        None => (None, None, None),
    };
    let funders = v
        .get("funder")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|f| {
                    Some(Funder {
                        name: text(f, "name")?,
                        doi: text(f, "DOI"),
                        awards: f
                            .get("award")
                            .and_then(Value::as_array)
                            .map(|a| a.iter().filter_map(Value::as_str).map(clean).collect())
                            .unwrap_or_default(),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(Record {
        doi,
        title: Some(title),
        authors,
        container: text(v, "container-title").or_else(|| text(v, "short-container-title")),
        issn: v
            .get("ISSN")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).map(clean).collect())
            .unwrap_or_default(),
        volume: text(v, "volume"),
        issue: text(v, "issue"),
        first_page,
        last_page,
        year,
        month,
        day,
        publisher: text(v, "publisher"),
        kind: text(v, "type"),
        funders,
        oa_url: open_access_url(v),
    })
}

/// The open-access link of a work object: biblio-glutton's `oaLink` (from Unpaywall) when
/// the answer has one; else, when the work carries a Creative Commons licence that applies
/// from publication (no embargo), its full-text `link`, a PDF first.
pub fn open_access_url(v: &Value) -> Option<String> {
    let http = |s: &str| s.starts_with("http://") || s.starts_with("https://");
    if let Some(u) = v.get("oaLink").and_then(Value::as_str).map(str::trim) {
        if http(u) {
            return Some(u.to_string());
        }
    }
    let open = v.get("license")?.as_array()?.iter().any(|l| {
        let url = l.get("URL").and_then(Value::as_str).unwrap_or("");
        let delay = l.get("delay-in-days").and_then(Value::as_i64).unwrap_or(0);
        url.contains("creativecommons.org/") && delay <= 0
    });
    if !open {
        return None;
    }
    let links = v.get("link")?.as_array()?;
    let url_of = |want: &str| {
        links.iter().find_map(|l| {
            let ty = l.get("content-type").and_then(Value::as_str).unwrap_or("");
            let u = l.get("URL").and_then(Value::as_str)?.trim();
            (ty == want && http(u)).then(|| u.to_string())
        })
    };
    url_of("application/pdf")
        .or_else(|| url_of("text/html"))
        .or_else(|| url_of("unspecified"))
}

/// The work list of a data-file document: `items`, or `message.items`.
fn items(doc: &Value) -> Option<&Vec<Value>> {
    doc.get("items")
        .or_else(|| doc.get("message").and_then(|m| m.get("items")))
        .and_then(Value::as_array)
}

/// Reads the work records of `path` (either shape, gzip or plain) and hands each to `f` with
/// its ordinal in the file; the first `skip` records are passed over without being parsed
/// (where the shape allows), so an import can resume. `f` returning an error stops reading.
pub fn read_works(
    path: &Path,
    skip: u64,
    f: impl FnMut(u64, Result<Record, Reject>) -> crate::Result<()>,
) -> crate::Result<()> {
    read_items(path, skip, parse_work, f)
}

/// [`read_works`] for any Crossref REST object (works, funders): each item of the file, in
/// either shape, gzip or plain, parsed by `parse`.
pub fn read_items<T>(
    path: &Path,
    skip: u64,
    parse: impl Fn(&Value) -> Result<T, Reject>,
    mut f: impl FnMut(u64, Result<T, Reject>) -> crate::Result<()>,
) -> crate::Result<()> {
    let io = |source| crate::Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = BufReader::new(File::open(path).map_err(io)?);
    let gz = file.fill_buf().map_err(io)?.starts_with(&[0x1f, 0x8b]);
    let reader: Box<dyn Read> = if gz {
        Box::new(flate2::read::MultiGzDecoder::new(file))
    } else {
        Box::new(file)
    };
    let mut reader = BufReader::with_capacity(1 << 20, reader);

    // The first non-blank line says which shape the file has.
    let mut first = String::new();
    loop {
        first.clear();
        if reader.read_line(&mut first).map_err(io)? == 0 {
            return Ok(());
        }
        if !first.trim().is_empty() {
            break;
        }
    }
    let parsed = serde_json::from_str::<Value>(first.trim());
    let document = match &parsed {
        Ok(v) => items(v).is_some(),
        // Not one complete value on one line: a (pretty-printed) document.
        Err(e) => e.is_eof(),
    };
    if document {
        let mut all = first;
        reader.read_to_string(&mut all).map_err(io)?;
        let doc = match serde_json::from_str::<Value>(&all) {
            Ok(doc) => doc,
            Err(e) => return f(0, Err(Reject::InvalidJson(e.to_string()))),
        };
        let Some(list) = items(&doc) else {
            return f(0, Err(Reject::NotAnObject));
        };
        for (i, item) in (0u64..).zip(list).skip(skip as usize) {
            f(i, parse(item))?;
        }
        return Ok(());
    }
    // JSON Lines.
    let line_record = |line: &str| match serde_json::from_str::<Value>(line) {
        Ok(v) => parse(&v),
        Err(e) => Err(Reject::InvalidJson(e.to_string())),
    };
    let mut n = 0u64;
    if skip == 0 {
        f(0, line_record(first.trim()))?;
    }
    n += 1;
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).map_err(io)? == 0 {
            return Ok(());
        }
        if line.trim().is_empty() {
            continue;
        }
        if n >= skip {
            f(n, line_record(line.trim()))?;
        }
        n += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_work_object_becomes_a_record() {
        let w = json!({
            "DOI": "10.1016/J.CELL.2009.01.002",
            "title": ["  The <i>Drosophila</i>\n gene"],
            "author": [{"given": "Ana", "family": "Silva", "ORCID": "https://orcid.org/0000-0001"},
                       {"name": "The Consortium"}, {"given": "nobody"}],
            "container-title": [],
            "short-container-title": ["Cell"],
            "ISSN": ["0092-8674"],
            "volume": "136", "issue": 4, "page": "642-655",
            "issued": {"date-parts": [[2009, 2]]},
            "publisher": "Elsevier BV", "type": "journal-article",
            "funder": [{"name": "NIH", "DOI": "10.13039/100000002", "award": ["R01 1"]}]
        });
        let r = parse_work(&w).expect("record");
        assert_eq!(r.doi, "10.1016/j.cell.2009.01.002");
        assert_eq!(r.title.as_deref(), Some("The Drosophila gene"));
        assert_eq!(r.authors.len(), 2);
        assert_eq!(r.first_author(), Some("Silva"));
        assert_eq!(r.authors[1].family, "The Consortium");
        assert_eq!(r.container.as_deref(), Some("Cell"));
        assert_eq!(r.issue.as_deref(), Some("4"));
        assert_eq!(
            (r.first_page.as_deref(), r.last_page.as_deref()),
            (Some("642"), Some("655"))
        );
        assert_eq!((r.year, r.month, r.day), (Some(2009), Some(2), None));
        assert_eq!(r.funders[0].awards, ["R01 1"]);
        // An API answer wraps the work in `message`.
        let wrapped = json!({"status": "ok", "message": w});
        assert_eq!(parse_work(&wrapped).expect("wrapped"), r);
    }

    #[test]
    fn an_open_licence_gives_the_open_access_link() {
        let work = |license: serde_json::Value| {
            json!({
                "DOI": "10.1000/oa", "title": ["Open"],
                "license": license,
                "link": [
                    {"URL": "https://pub.example/oa.xml", "content-type": "text/xml"},
                    {"URL": "https://pub.example/oa.pdf", "content-type": "application/pdf"}
                ]
            })
        };
        let cc =
            json!([{"URL": "http://creativecommons.org/licenses/by/4.0/", "delay-in-days": 0}]);
        let r = parse_work(&work(cc)).expect("record");
        assert_eq!(r.oa_url.as_deref(), Some("https://pub.example/oa.pdf"));
        // An embargoed or publisher licence gives none.
        let embargo = json!([{"URL": "https://creativecommons.org/licenses/by-nc/4.0/", "delay-in-days": 365}]);
        assert_eq!(parse_work(&work(embargo)).expect("record").oa_url, None);
        let closed = json!([{"URL": "https://www.elsevier.com/tdm/userlicense/1.0/"}]);
        assert_eq!(parse_work(&work(closed)).expect("record").oa_url, None);
        // biblio-glutton's answer names the link itself.
        let glutton =
            json!({"DOI": "10.1000/g", "title": ["G"], "oaLink": "https://repo.example/g.pdf"});
        assert_eq!(
            parse_work(&glutton).expect("record").oa_url.as_deref(),
            Some("https://repo.example/g.pdf")
        );
    }

    #[test]
    fn unusable_works_are_rejected_with_a_reason() {
        assert_eq!(parse_work(&json!([1])), Err(Reject::NotAnObject));
        assert_eq!(parse_work(&json!({"title": ["x"]})), Err(Reject::NoDoi));
        assert_eq!(
            parse_work(&json!({"DOI": "ISBN 12", "title": ["x"]})),
            Err(Reject::BadDoi("ISBN 12".into()))
        );
        assert_eq!(
            parse_work(&json!({"DOI": "10.1000/x.y", "title": []})),
            Err(Reject::NoTitle)
        );
        assert_eq!(Reject::NoTitle.key(), "no-title");
    }
}
