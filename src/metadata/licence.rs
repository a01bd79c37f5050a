//! The licence and copyright a paper prints: Creative Commons licences from the PDF's link
//! annotations (`creativecommons.org/licenses/by/4.0/`), from such URLs printed in the text,
//! and from their names in prose ("Creative Commons Attribution-NonCommercial 4.0
//! International License", "CC BY-NC-ND 3.0"); the copyright holder from the copyright line
//! ("© The Author(s) 2021" → authors, "© 2020 Elsevier Ltd. All rights reserved." →
//! publisher).
//!
//! Evidence is ranked: a link annotation over a printed URL over a named licence with its
//! version over one without; within a rank, the earliest page. A licence named without its
//! version takes the version of another mention of the same licence.

use std::sync::OnceLock;

use regex::Regex;

use crate::document::Licence;
use crate::metadata::PageText;

/// GROBID's name of a licence (`CC-BY`, `CC-BY-NC-ND`, `CC0`; `copyright` for all rights
/// reserved), written as the `licence` element's text.
pub fn name(l: &Licence) -> Option<String> {
    match l.cc.as_deref() {
        Some("zero") => Some("CC0".to_string()),
        Some(cc) => Some(format!("CC-{}", cc.to_ascii_uppercase())),
        None if l.reserved => Some("copyright".to_string()),
        None => None,
    }
}

/// The deed of a Creative Commons licence (`https://creativecommons.org/licenses/by/4.0/`;
/// without a version, the licence's page).
pub fn target(l: &Licence) -> Option<String> {
    let cc = l.cc.as_deref()?;
    let base = if cc == "zero" {
        "https://creativecommons.org/publicdomain/zero/".to_string()
    } else {
        format!("https://creativecommons.org/licenses/{cc}/")
    };
    Some(match &l.version {
        Some(v) => format!("{base}{v}/"),
        None if cc == "zero" => format!("{base}1.0/"),
        None => base,
    })
}

/// A licence found: its kind, version, how strong the evidence is, and where.
#[derive(Debug, Clone, PartialEq)]
struct Found {
    cc: String,
    version: Option<String>,
    rank: u8,
    page: usize,
    /// The printed statement around it (the text block), when it is printed.
    raw: Option<String>,
}

fn url_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(
            r"(?i)creativecommons\.org/(?:licen[sc]es/((?:by|nc|nd|sa)(?:-(?:by|nc|nd|sa))*)(?:/(\d\.\d))?|publicdomain/(zero)(?:/(\d\.\d))?)",
        )
        .expect("licence URL pattern")
    })
}

fn short_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(
            r"\bCC[ \-‐]?(BY(?:[ \-‐](?:NC|ND|SA)){0,2}|0)\b(?:[ \-‐]*(?:license|licence)?[ \-‐]*(\d\.\d))?",
        )
        .expect("short licence pattern")
    })
}

fn version_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"\b(\d\.\d)\b").expect("version pattern"))
}

/// The canonical licence code of a URL path part (`by-nc-nd`).
fn canonical(parts: &[&str]) -> Option<String> {
    let has = |p: &str| parts.iter().any(|x| x.eq_ignore_ascii_case(p));
    if has("0") || has("zero") {
        return Some("zero".into());
    }
    if !has("by") {
        return None;
    }
    let mut s = String::from("by");
    for p in ["nc", "nd", "sa"] {
        if has(p) {
            s.push('-');
            s.push_str(p);
        }
    }
    Some(s)
}

/// URLs of the link annotations and printed text, without spaces a line break put inside.
fn from_url(s: &str) -> Option<(String, Option<String>)> {
    let c = url_re().captures(s)?;
    if c.get(3).is_some() {
        return Some(("zero".into(), c.get(4).map(|m| m.as_str().to_string())));
    }
    let parts: Vec<&str> = c.get(1)?.as_str().split('-').collect();
    Some((canonical(&parts)?, c.get(2).map(|m| m.as_str().to_string())))
}

/// Licences named in prose in `text`: "Creative Commons Attribution[-NonCommercial…] [4.0]"
/// (English, Portuguese, Spanish names of the elements) and the short forms (`CC BY 4.0`).
fn from_prose(text: &str) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let lower = text.to_lowercase();
    let mut from = 0;
    while let Some(i) = lower[from..].find("creative commons") {
        let start = from + i;
        let mut end = (start + 160).min(lower.len());
        while !lower.is_char_boundary(end) {
            end -= 1;
        }
        let mut window = &lower[start..end];
        // The sentence ends at a full stop followed by a space (not `4.0`).
        if let Some(stop) = window.find(". ") {
            window = &window[..stop];
        }
        let squeezed: String = window
            .chars()
            .filter(|c| c.is_alphanumeric() || *c == '.')
            .collect();
        let mut parts = Vec::new();
        if ["attribution", "atribui", "atribuci", "reconocimiento"]
            .iter()
            .any(|k| squeezed.contains(k))
        {
            parts.push("by");
        }
        if [
            "noncommercial",
            "nãocomercial",
            "naocomercial",
            "nocomercial",
        ]
        .iter()
        .any(|k| squeezed.contains(k))
        {
            parts.push("nc");
        }
        if [
            "noderiv",
            "semderiva",
            "sinderiva",
            "sinobraderivada",
            "noderivative",
        ]
        .iter()
        .any(|k| squeezed.contains(k))
        {
            parts.push("nd");
        }
        if ["sharealike", "compartilhaigual", "compartirigual"]
            .iter()
            .any(|k| squeezed.contains(k))
        {
            parts.push("sa");
        }
        if squeezed.contains("cc0") || squeezed.contains("zero") {
            parts.push("zero");
        }
        if let Some(cc) = canonical(&parts) {
            let v = version_re().captures(window).map(|c| c[1].to_string());
            out.push((cc, v));
        } else if let Some(c) = short_re().captures(&text[start..end]) {
            // "Creative Commons (CC BY 4.0)".
            let parts: Vec<&str> = c[1].split([' ', '-', '‐']).collect();
            if let Some(cc) = canonical(&parts) {
                out.push((cc, c.get(2).map(|m| m.as_str().to_string())));
            }
        }
        from = start + "creative commons".len();
    }
    for c in short_re().captures_iter(text) {
        let parts: Vec<&str> = c[1].split([' ', '-', '‐']).collect();
        if let Some(cc) = canonical(&parts) {
            out.push((cc, c.get(2).map(|m| m.as_str().to_string())));
        }
    }
    out
}

/// Every Creative Commons licence the pages link or print.
fn candidates(pages: &[PageText]) -> Vec<Found> {
    let mut out = Vec::new();
    for (k, p) in pages.iter().enumerate() {
        for uri in &p.links {
            if let Some((cc, version)) = from_url(uri) {
                out.push(Found {
                    cc,
                    version,
                    rank: 4,
                    page: k,
                    raw: None,
                });
            }
        }
        for block in &p.blocks {
            let squeezed: String = block.chars().filter(|c| !c.is_whitespace()).collect();
            let mut at = 0;
            while let Some(i) = squeezed[at..]
                .to_ascii_lowercase()
                .find("creativecommons.org")
            {
                if let Some((cc, version)) = from_url(&squeezed[at + i..]) {
                    out.push(Found {
                        cc,
                        version,
                        rank: 3,
                        page: k,
                        raw: Some(block.clone()),
                    });
                }
                at += i + "creativecommons.org".len();
            }
            for (cc, version) in from_prose(block) {
                let rank = if version.is_some() { 2 } else { 1 };
                out.push(Found {
                    cc,
                    version,
                    rank,
                    page: k,
                    raw: Some(block.clone()),
                });
            }
        }
    }
    out
}

fn copyright_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"(?i)(?:©|\(c\)\s*\d{4}|\bcopyright\b\s*(?:©|\(c\)|:|\d{4}))")
            .expect("copyright pattern")
    })
}

/// The copyright line of the pages (the first, first pages first) and its holder: `authors`
/// for "The Author(s)", "the authors", "Smith et al."; `publisher` for a line naming a
/// company, a society or a press, or for the authors' work "under exclusive licence" to one.
fn copyright(pages: &[PageText]) -> Option<(String, Option<&'static str>, bool)> {
    for p in pages {
        for block in &p.blocks {
            let Some(m) = copyright_re().find(block) else {
                continue;
            };
            let line_end = block[m.start()..]
                .find(". ")
                .map_or(block.len(), |e| m.start() + e + 1);
            let mut stmt_end = (m.start() + 300).min(block.len());
            while !block.is_char_boundary(stmt_end) {
                stmt_end -= 1;
            }
            let line = &block[m.start()..line_end.max(m.end()).min(block.len())];
            let low = line.to_lowercase();
            let whole = block[m.start()..stmt_end].to_lowercase();
            let holder = if whole.contains("exclusive licen") {
                Some("publisher")
            } else if low.contains("author") || low.contains("autor") || low.contains("et al") {
                Some("authors")
            } else if [
                "elsevier",
                "springer",
                "wiley",
                "ltd",
                "inc",
                "press",
                "society",
                "association",
                "publish",
                "b.v.",
                "gmbh",
                "llc",
                "media",
                "foundation",
                "university",
                "taylor",
                "francis",
                "sage",
                "bmj",
                "ieee",
                "acm",
                "editora",
                "sociedade",
                "sociedad",
                "mdpi",
                "frontiers",
                "karger",
                "thieme",
                "nature",
                "oxford",
                "cambridge",
                "journal",
                "revista",
                "academy",
                "institute",
                "instituto",
                "college",
            ]
            .iter()
            .any(|k| low.contains(k))
            {
                Some("publisher")
            } else {
                None
            };
            let reserved = whole.contains("all rights reserved")
                || whole.contains("todos os direitos")
                || whole.contains("todos los derechos");
            return Some((block.trim().to_string(), holder, reserved));
        }
    }
    None
}

/// The licence and copyright of `pages` (first page first), or `None` when they print
/// neither.
pub fn find(pages: &[PageText]) -> Option<Licence> {
    let found = candidates(pages);
    // CC0 is most often the data's waiver printed beside the article's licence ("The Creative
    // Commons Public Domain Dedication waiver … applies to the data"): it is the article's
    // only when no other licence is found.
    let best = found
        .iter()
        .max_by(|a, b| {
            (a.cc != "zero")
                .cmp(&(b.cc != "zero"))
                .then(a.rank.cmp(&b.rank))
                .then(b.page.cmp(&a.page))
        })
        .cloned();
    let copy = copyright(pages);
    if best.is_none() && copy.is_none() {
        return None;
    }
    let mut lic = Licence::default();
    if let Some(b) = best {
        let version = b.version.clone().or_else(|| {
            found
                .iter()
                .filter(|f| f.cc == b.cc)
                .find_map(|f| f.version.clone())
        });
        let raw = b.raw.clone().or_else(|| {
            found
                .iter()
                .filter(|f| f.cc == b.cc)
                .find_map(|f| f.raw.clone())
        });
        lic.cc = Some(b.cc);
        lic.version = version;
        lic.raw = raw.map(|r| clip(&r, 600));
    }
    if let Some((line, holder, reserved)) = copy {
        lic.holder = holder.map(String::from);
        lic.reserved = reserved && lic.cc.is_none();
        if lic.raw.is_none() {
            lic.raw = Some(clip(&line, 600));
        }
    }
    Some(lic)
}

/// `s` cut to at most `n` bytes at a character boundary, trimmed.
fn clip(s: &str, n: usize) -> String {
    let mut end = s.len().min(n);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(blocks: &[&str], links: &[&str]) -> PageText {
        PageText {
            blocks: blocks.iter().map(|s| s.to_string()).collect(),
            links: links.iter().map(|s| s.to_string()).collect(),
            ..PageText::default()
        }
    }

    fn kind(l: &Licence) -> (Option<String>, Option<String>) {
        (name(l), target(l))
    }

    #[test]
    fn a_named_licence_with_its_version() {
        let l = find(&[page(
            &["This is an open access article under the terms of the Creative Commons Attribution-NonCommercial-NoDerivatives 4.0 International License, which permits use."],
            &[],
        )])
        .unwrap();
        assert_eq!(
            kind(&l),
            (
                Some("CC-BY-NC-ND".into()),
                Some("https://creativecommons.org/licenses/by-nc-nd/4.0/".into())
            )
        );
        assert!(l.raw.unwrap().starts_with("This is an open access"));
    }

    #[test]
    fn a_link_annotation_outranks_the_prose_and_gives_the_version() {
        let l = find(&[
            page(
                &["Copyright: © 2020 Silva et al. This is an open access article distributed under the terms of the Creative Commons Attribution License."],
                &[],
            ),
            page(&["Text."], &["http://creativecommons.org/licenses/by/3.0/igo/"]),
        ])
        .unwrap();
        assert_eq!(l.cc.as_deref(), Some("by"));
        assert_eq!(l.version.as_deref(), Some("3.0"));
        assert_eq!(l.holder.as_deref(), Some("authors"));
    }

    #[test]
    fn printed_urls_broken_over_lines_and_short_forms() {
        let l = find(&[page(
            &["licensed under CC BY (https://creativecommons. org/licenses/by-sa/2.0/)."],
            &[],
        )])
        .unwrap();
        assert_eq!(
            (l.cc.as_deref(), l.version.as_deref()),
            (Some("by-sa"), Some("2.0"))
        );
        let l = find(&[page(&["Published under a CC BY-NC 4.0 licence."], &[])]).unwrap();
        assert_eq!(
            (l.cc.as_deref(), l.version.as_deref()),
            (Some("by-nc"), Some("4.0"))
        );
        let l = find(&[page(&["Este é um artigo publicado em acesso aberto sob uma licença Creative Commons Atribuição 4.0."], &[])]).unwrap();
        assert_eq!(
            (l.cc.as_deref(), l.version.as_deref()),
            (Some("by"), Some("4.0"))
        );
    }

    #[test]
    fn a_publisher_copyright_without_licence() {
        let l = find(&[page(&["© 2019 Elsevier Ltd. All rights reserved."], &[])]).unwrap();
        assert_eq!(l.cc, None);
        assert_eq!(l.holder.as_deref(), Some("publisher"));
        assert!(l.reserved);
        assert_eq!(name(&l).as_deref(), Some("copyright"));
        assert_eq!(target(&l), None);
        let l = find(&[page(&["© The Author(s) 2021."], &[])]).unwrap();
        assert_eq!((l.holder.as_deref(), l.reserved), (Some("authors"), false));
        assert_eq!(name(&l), None);
    }

    #[test]
    fn the_data_waiver_beside_the_licence_is_not_the_licence() {
        let l = find(&[page(
            &["Open Access This article is distributed under the terms of the Creative Commons Attribution 4.0 International License (http://creativecommons.org/licenses/by/4.0/). The Creative Commons Public Domain Dedication waiver (http://creativecommons.org/publicdomain/zero/1.0/) applies to the data."],
            &["http://creativecommons.org/publicdomain/zero/1.0/", "http://creativecommons.org/licenses/by/4.0/"],
        )])
        .unwrap();
        assert_eq!(
            (l.cc.as_deref(), l.version.as_deref()),
            (Some("by"), Some("4.0"))
        );
    }

    #[test]
    fn nothing_printed_is_none() {
        assert_eq!(
            find(&[page(&["We study things."], &["https://doi.org/10.1/x"])]),
            None
        );
    }
}
