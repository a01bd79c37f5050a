//! DOIs, in one place: finding them in text ([`find_all`], lines broken inside a DOI and SICI
//! forms included), the DOI a reference prints ([`printed`]), the DOI a link target names
//! ([`of_uri`]), the key that sets printed and linked forms of one DOI alike ([`key`]), and the
//! normal form the bibliographic index keys records by ([`normalize`]).

/// Every DOI in a text (`10.<digits>/<non-space>`), trailing punctuation removed.
pub fn find_all(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while let Some(k) = text[i..].find("10.") {
        let start = i + k;
        i = start + 3;
        let boundary = start == 0 || !b[start - 1].is_ascii_alphanumeric();
        let mut j = start + 3;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if !boundary || j - (start + 3) < 4 || j >= b.len() || b[j] != b'/' {
            continue;
        }
        let mut e = j + 1;
        while e < b.len() && !b[e].is_ascii_whitespace() && b[e] != b'"' {
            // A `<` ends the DOI (markup after it) unless it opens a SICI's `<start::item>`
            // (`…31:2<205::AID-JBM8>3.0.CO;2-R`: a `::` then a `>` within the same word) or
            // `<start:code>` (`…(1985)042<0338:PFUANN>2.0.CO;2`: digits, `:`, letters and
            // digits, `>`).
            if b[e] == b'<' {
                let word: Vec<u8> = b[e..]
                    .iter()
                    .take_while(|c| !c.is_ascii_whitespace())
                    .copied()
                    .collect();
                let close = word.iter().position(|&c| c == b'>');
                let sici = close.is_some_and(|k| {
                    let inner = &word[1..k];
                    let digits = inner.iter().take_while(|c| c.is_ascii_digit()).count();
                    let code = &inner[digits..];
                    inner.windows(2).any(|w| w == b"::")
                        || (digits > 0
                            && code.len() > 1
                            && code[0] == b':'
                            && code[1..].iter().all(u8::is_ascii_alphanumeric))
                });
                if !sici {
                    break;
                }
            }
            e += 1;
        }
        e = doi_continued(text, start, e);
        // A DOI broken across lines is one word again.
        let whole: String = text[start..e].split_whitespace().collect();
        let doi = whole.trim_end_matches(['.', ',', ';', ')', ']']);
        if doi.len() > j + 1 - start && !out.iter().any(|d| d.eq_ignore_ascii_case(doi)) {
            out.push(doi.to_string());
        }
        i = e.max(i);
    }
    out
}

/// Where a DOI found at `start..end` (cut at white space) really ends: a DOI broken after a
/// dot, hyphen, slash or underscore goes on with the next word (`10.1371/journal.` at a line's
/// end, `pone.0323994` on the next) when that word reads as the rest of an identifier: it
/// holds a digit, and a dot of its own, or it is five digits or more, or the break is a line
/// break. A sentence's period after a whole DOI is followed by words, which do not continue it.
fn doi_continued(text: &str, start: usize, mut end: usize) -> usize {
    loop {
        if !text[start..end].ends_with(['.', '-', '/', '_']) {
            return end;
        }
        let rest = &text[end..];
        let gap = rest.len() - rest.trim_start().len();
        if gap == 0 || gap > 3 {
            return end;
        }
        let word_len = rest[gap..]
            .find(|c: char| c.is_whitespace())
            .unwrap_or(rest.len() - gap);
        let word = &rest[gap..gap + word_len];
        let core = word.trim_end_matches(['.', ',', ';', ')', ']']);
        let id_like = core.starts_with(|c: char| c.is_ascii_alphanumeric())
            && core
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-/();:".contains(c))
            && core.chars().any(|c| c.is_ascii_digit());
        let continues = core.contains('.')
            || (core.len() >= 5 && core.chars().all(|c| c.is_ascii_digit()))
            || rest[..gap].contains('\n');
        if !(id_like && continues) {
            return end;
        }
        end += gap + word_len;
    }
}

/// A DOI without what sets printed and linked forms of one DOI apart: case, hyphens,
/// whitespace and zero-width characters.
pub fn key(doi: &str) -> String {
    doi.chars()
        .filter(|c| {
            !c.is_whitespace()
                && *c != '-'
                && !matches!(c, '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}')
        })
        .flat_map(char::to_lowercase)
        .collect()
}

/// The DOI in a link target (`https://doi.org/10.…`, `doi:10.…`, a bare `10.…/…`), found by
/// the engine's DOI scanner once `%2F`-style escapes are decoded. Only a target that *is* a
/// DOI counts: one whose `10.` follows a resolver or `doi:` prefix or opens the target.
pub fn of_uri(uri: &str) -> Option<String> {
    let uri = percent_encoding::percent_decode_str(uri)
        .decode_utf8()
        .map_or_else(|_| uri.to_string(), |d| d.into_owned());
    let start = uri.find("10.")?;
    let prefix = uri[..start].to_ascii_lowercase();
    let plausible = prefix.is_empty()
        || prefix.ends_with("doi.org/")
        || prefix.ends_with("doi:")
        || prefix.ends_with("doi/");
    if !plausible {
        return None;
    }
    find_all(&uri[start..]).into_iter().next()
}

/// The DOI a text prints (its first), without the zero-width characters some publishers put
/// inside long identifiers and without a landing-page suffix (`…/full`, `…/abstract`).
pub fn printed(text: &str) -> Option<String> {
    let clean: String = text
        .chars()
        .filter(|c| !matches!(c, '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}'))
        .collect();
    let d = find_all(&clean).into_iter().next()?;
    let lower = d.to_ascii_lowercase();
    let cut = ["/full", "/abstract", "/pdf", "/epdf", "/meta"]
        .iter()
        .find(|sfx| lower.ends_with(*sfx))
        .map_or(d.len(), |sfx| d.len() - sfx.len());
    Some(d[..cut].to_string())
}

/// A DOI as the index keys it: trimmed, `doi:`/resolver prefixes removed, lower case; `None`
/// when it does not look like one (`10.<registrant>/<suffix>`).
pub fn normalize(s: &str) -> Option<String> {
    let mut d = s.trim();
    let lower = d.to_ascii_lowercase();
    for prefix in [
        "https://doi.org/",
        "http://doi.org/",
        "https://dx.doi.org/",
        "http://dx.doi.org/",
        "doi.org/",
        "doi:",
        "doi ",
    ] {
        if lower.starts_with(prefix) {
            d = d[prefix.len()..].trim();
            break;
        }
    }
    let d = d.trim_end_matches(['.', ',', ';']).to_lowercase();
    let (registrant, suffix) = d.split_once('/')?;
    let digits = registrant.strip_prefix("10.").unwrap_or("");
    let ok = digits.len() >= 4
        && digits.chars().all(|c| c.is_ascii_digit() || c == '.')
        && !suffix.is_empty()
        && !d.chars().any(char::is_whitespace);
    ok.then_some(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dois_are_found_whole_in_text() {
        assert_eq!(
            find_all("doi:10.21105/jose.00013 and https://doi.org/10.21105/jose.00013."),
            vec!["10.21105/jose.00013"]
        );
        assert!(find_all("version 10.5 of x").is_empty());
        // A DOI broken at the end of a line goes on with the next line; a sentence's period
        // after a whole DOI does not take the next words in.
        assert_eq!(
            find_all("https://doi.org/10.1371/journal.\npone.0323994\nEditor: A. B"),
            vec!["10.1371/journal.pone.0323994"]
        );
        assert_eq!(
            find_all("doi: 10.1371/journal.pone.\n0323994."),
            vec!["10.1371/journal.pone.0323994"]
        );
        assert_eq!(
            find_all("DOI 10.1371/journal. pone.0323994"),
            vec!["10.1371/journal.pone.0323994"]
        );
        assert_eq!(
            find_all("see 10.1000/abc.def.12. The next 2 sentences."),
            vec!["10.1000/abc.def.12"]
        );
        assert_eq!(
            find_all("doi:10.1000/xyz. 2019 was a year"),
            vec!["10.1000/xyz"]
        );
        // A SICI DOI keeps its `<…>`; markup after a DOI does not join it.
        assert_eq!(
            find_all("doi: 10.1002/(SICI)1097-4636(199606)31:2<205::AID-JBM8>3.0.CO;2-R. Next"),
            vec!["10.1002/(SICI)1097-4636(199606)31:2<205::AID-JBM8>3.0.CO;2-R"]
        );
        assert_eq!(find_all("10.1000/abc.12<br/>x"), vec!["10.1000/abc.12"]);
        assert_eq!(find_all("10.1000/abc.12<b2:x>"), vec!["10.1000/abc.12"]);
        assert_eq!(find_all("10.1000/abc.12<12:>x"), vec!["10.1000/abc.12"]);
        assert_eq!(
            find_all("14, 338-345. (doi:10.1175/1520-0434(1999)014<0338:PFUANN>2.0.CO;2)"),
            vec!["10.1175/1520-0434(1999)014<0338:PFUANN>2.0.CO;2"]
        );
    }

    #[test]
    fn a_printed_doi_loses_zero_width_characters_and_landing_suffixes() {
        assert_eq!(
            printed("doi:10.1000/ab\u{200B}c.12/full").as_deref(),
            Some("10.1000/abc.12")
        );
        assert_eq!(printed("no identifier"), None);
        assert_eq!(key("10.1000/AB-c 1"), key("10.1000/abc1"));
    }
}
