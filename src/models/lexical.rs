/*!
The lexical feature columns the two layout models (segmentation, header) compute from a token's
text: capitalisation, digits, punctuation type, year, month, e-mail, URL, proper name and
dictionary word (reference grobid-models.md §3, "Common definitions"). They live in one place
so that training (rows rebuilt from GROBID's raw files) and tagging (rows from a PDF) compute
them with the same code and the same lexicons.
*/

/// `INITCAP`, `ALLCAP` or `NOCAPS`, printed as GROBID prints it (`NOCAPS` for all-digit tokens).
pub fn capitalisation(s: &str) -> &'static str {
    if is_all_digits(s) {
        return "NOCAPS";
    }
    let Some(first) = s.chars().next() else {
        return "NOCAPS";
    };
    if s.chars().all(|c| !c.is_lowercase()) {
        "ALLCAP"
    } else if first.is_uppercase() {
        "INITCAP"
    } else {
        "NOCAPS"
    }
}

fn is_all_digits(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_digit())
}

/// `ALLDIGIT`, `CONTAINSDIGITS` or `NODIGIT`.
pub fn digit(s: &str) -> &'static str {
    if is_all_digits(s) {
        "ALLDIGIT"
    } else if s.chars().any(|c| c.is_numeric()) {
        "CONTAINSDIGITS"
    } else {
        "NODIGIT"
    }
}

/// GROBID's punctuation type of a token.
pub fn punct_type(s: &str) -> &'static str {
    match s {
        "(" | "[" => "OPENBRACKET",
        ")" | "]" => "ENDBRACKET",
        "." => "DOT",
        "," => "COMMA",
        "-" => "HYPHEN",
        "\"" | "'" | "`" => "QUOTE",
        _ if !s.is_empty() && s.chars().all(|c| matches!(c, ',' | ':' | ';' | '?' | '.')) => {
            "PUNCT"
        }
        _ => "NOPUNCT",
    }
}

/// A year-like group of four digits starting with 1 or 2 anywhere in the token.
pub fn year(s: &str) -> bool {
    let b = s.as_bytes();
    b.windows(4).any(|w| {
        matches!(w[0], b'1' | b'2' | b',')
            && w[1].is_ascii_digit()
            && w[2].is_ascii_digit()
            && w[3].is_ascii_digit()
    })
}

const MONTHS: [&str; 24] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "jan",
    "feb",
    "mar",
    "apr",
    "may",
    "jun",
    "jul",
    "aug",
    "sep",
    "oct",
    "nov",
    "dec",
];

pub fn month(s: &str) -> bool {
    let l = s.to_lowercase();
    MONTHS.contains(&l.as_str())
}

/// The whole string is an e-mail address.
pub fn email(s: &str) -> bool {
    let Some((local, domain)) = s.split_once('@') else {
        return false;
    };
    let ok_local = |c: char| c.is_alphanumeric() || "._%+-'".contains(c);
    !local.is_empty()
        && local.chars().all(ok_local)
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && domain
            .chars()
            .all(|c| c.is_alphanumeric() || c == '.' || c == '-')
}

/// The token mentions `http`.
pub fn http(s: &str) -> bool {
    s.contains("http")
}

/// First `k` characters (the whole string if shorter).
pub fn prefix(s: &str, k: usize) -> &str {
    match s.char_indices().nth(k) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// Last `k` characters (the whole string if shorter).
pub fn suffix(s: &str, k: usize) -> &str {
    let n = s.chars().count();
    if n <= k {
        return s;
    }
    match s.char_indices().nth(n - k) {
        Some((i, _)) => &s[i..],
        None => s,
    }
}

/// The lower-cased token is a known first name or surname.
pub fn proper_name(s: &str) -> bool {
    hook::is_proper_name(s)
}

/// The token (one trailing `.,:;` removed) is an English word form; hyphenated: both parts.
pub fn common_word(s: &str) -> bool {
    hook::is_common_word(s)
}

/// Per token: inside a match of the location gazetteer over the token sequence.
pub fn locations(tokens: &[&str]) -> Vec<bool> {
    hook::location_flags(tokens)
}

/// `linearScaling(pos, total, bins)` of GROBID.
pub fn linear_scaling(pos: usize, total: usize, bins: usize) -> usize {
    if pos >= total {
        bins
    } else if pos == 0 {
        0
    } else {
        ((pos as f64 / total as f64) * bins as f64).floor() as usize
    }
}

pub fn bit(b: bool) -> &'static str {
    if b {
        "1"
    } else {
        "0"
    }
}

/// The lexicon lookups (the text work's `crate::lexicon`); one place to wire them.
mod hook {
    pub fn is_proper_name(_s: &str) -> bool {
        false
    }
    pub fn is_common_word(_s: &str) -> bool {
        false
    }
    pub fn location_flags(tokens: &[&str]) -> Vec<bool> {
        vec![false; tokens.len()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capitalisation_follows_grobid() {
        assert_eq!(capitalisation("Smith"), "INITCAP");
        assert_eq!(capitalisation("NASA"), "ALLCAP");
        assert_eq!(capitalisation(","), "ALLCAP");
        assert_eq!(capitalisation("A1"), "ALLCAP");
        assert_eq!(capitalisation("word"), "NOCAPS");
        assert_eq!(capitalisation("2019"), "NOCAPS");
        assert_eq!(digit("2019"), "ALLDIGIT");
        assert_eq!(digit("A1"), "CONTAINSDIGITS");
        assert_eq!(digit("A"), "NODIGIT");
    }

    #[test]
    fn punctuation_years_months() {
        assert_eq!(punct_type(","), "COMMA");
        assert_eq!(punct_type(";"), "PUNCT");
        assert_eq!(punct_type(".."), "PUNCT");
        assert_eq!(punct_type("/"), "NOPUNCT");
        assert_eq!(punct_type("("), "OPENBRACKET");
        assert!(year("x1999"));
        assert!(!year("999"));
        assert!(month("May"));
        assert!(!month("sept"));
    }

    #[test]
    fn emails_prefixes_scaling() {
        assert!(email("jane.doe@example.org"));
        assert!(!email("jane@"));
        assert!(!email("a b@c.d"));
        assert_eq!(prefix("ab", 3), "ab");
        assert_eq!(prefix("abcd", 3), "abc");
        assert_eq!(suffix("abcd", 3), "bcd");
        assert_eq!(suffix("é", 2), "é");
        assert_eq!(linear_scaling(5, 10, 12), 6);
        assert_eq!(linear_scaling(10, 10, 12), 12);
        assert_eq!(linear_scaling(0, 0, 12), 12);
    }
}
