/*!
Token features shared by every model (reference grobid-models.md §3, "Common definitions"):
capitalisation, digits, punctuation class, prefixes and suffixes, year, month, word shape,
relative position, plus span detectors (URL, DOI/arXiv identifiers, e-mail) and the
[`Gazetteer`] matcher that flags every token inside a multi-token lexicon entry.

The per-model modules (`models::date`, `models::name`, …) assemble these into their own
column sets; each has exactly one row function, used by training and by tagging.
*/

use std::collections::HashSet;

use crate::tokenizer;

/// One feature value of a row. Nearly every value is a few bytes (a flag, a bin, a prefix, a
/// token), so values are stored inline: building a row allocates the row, not each value, and
/// dropping it frees one buffer.
pub type Feature = compact_str::CompactString;

/// One token's feature columns, the token itself in column 0.
pub type Row = Vec<Feature>;

/// The feature rows of one sequence, a row per token.
pub type Rows = Vec<Row>;

/// A count or a bin as a feature value (written inline, no allocation).
pub fn number(n: usize) -> Feature {
    compact_str::ToCompactString::to_compact_string(&n)
}

/// One token of a text-only model's input: its text and whether a line break preceded it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Tok {
    pub text: String,
    /// A newline (`\n` or `<lb/>`) came between this token and the previous one.
    pub newline_before: bool,
    /// Whitespace (a space or a newline) came between this token and the previous one; the
    /// first token counts as spaced. Pieces of one token split apart (the citation model's
    /// letter/digit split) are glued.
    pub space_before: bool,
}

impl Tok {
    pub fn new(text: impl Into<String>) -> Tok {
        Tok {
            text: text.into(),
            newline_before: false,
            space_before: true,
        }
    }
}

/// Normalise and tokenise a raw string into feature tokens, dropping spaces and turning
/// newlines into `newline_before` flags. `split_digits` applies the citation model's
/// letter/digit split.
pub fn toks_from_text(text: &str, split_digits: bool) -> Vec<Tok> {
    let norm = tokenizer::normalise(text);
    let mut out = Vec::new();
    let mut newline = false;
    let mut space = true;
    for t in tokenizer::tokenize(&norm) {
        if t == "\n" {
            newline = true;
            space = true;
            continue;
        }
        if t.chars().all(char::is_whitespace) {
            space = true;
            continue;
        }
        if split_digits {
            for piece in tokenizer::split_letter_digit(t) {
                out.push(Tok {
                    text: piece.to_string(),
                    newline_before: newline,
                    space_before: space,
                });
                newline = false;
                space = false;
            }
        } else {
            out.push(Tok {
                text: t.to_string(),
                newline_before: newline,
                space_before: space,
            });
            newline = false;
            space = false;
        }
    }
    out
}

pub fn is_all_digits(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_numeric())
}

/// `ALLDIGIT`, `CONTAINSDIGITS` or `NODIGIT`.
pub fn digit(s: &str) -> &'static str {
    if is_all_digits(s) {
        "ALLDIGIT"
    } else if s.chars().any(char::is_numeric) {
        "CONTAINSDIGITS"
    } else {
        "NODIGIT"
    }
}

/// `INITCAP`, `ALLCAP` or `NOCAPS` (an all-digit token prints `NOCAPS`).
pub fn capitalisation(s: &str) -> &'static str {
    if is_all_digits(s) {
        return "NOCAPS";
    }
    if !s.chars().any(char::is_lowercase) {
        "ALLCAP"
    } else if s.chars().next().is_some_and(char::is_uppercase) {
        "INITCAP"
    } else {
        "NOCAPS"
    }
}

/// The affiliation model's spelling: `ALLCAPS`, `INITCAP`, `NOCAPS`.
pub fn capitalisation_affiliation(s: &str) -> &'static str {
    if is_all_digits(s) {
        return "NOCAPS";
    }
    if !s.chars().any(char::is_lowercase) {
        "ALLCAPS"
    } else if s.chars().next().is_some_and(char::is_uppercase) {
        "INITCAP"
    } else {
        "NOCAPS"
    }
}

/// The affiliation model's spelling: `ALLDIGIT`, `CONTAINDIGIT`, `NODIGIT`.
pub fn digit_affiliation(s: &str) -> &'static str {
    match digit(s) {
        "ALLDIGIT" => "ALLDIGIT",
        "CONTAINSDIGITS" => "CONTAINDIGIT",
        _ => "NODIGIT",
    }
}

/// `1` when the token is a single character.
pub fn single_char(s: &str) -> &'static str {
    flag(s.chars().count() == 1)
}

pub fn flag(b: bool) -> &'static str {
    if b {
        "1"
    } else {
        "0"
    }
}

/// Punctuation class of a token.
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

/// A four-digit year 1000-2999 found anywhere in the token.
pub fn is_year(s: &str) -> bool {
    let b = s.as_bytes();
    b.windows(4)
        .any(|w| matches!(w[0], b'1' | b'2') && w[1..].iter().all(u8::is_ascii_digit))
}

const MONTHS: [&str; 12] = [
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
];

/// Month number (1-12) of a month name or its usual abbreviation (`Sept` included).
pub fn month_number(s: &str) -> Option<u32> {
    let l = s.to_lowercase();
    let l = l.trim_end_matches('.');
    if l.len() < 3 {
        return None;
    }
    if l == "sept" {
        return Some(9);
    }
    MONTHS
        .iter()
        .position(|m| *m == l || (l.len() == 3 && m.starts_with(l)))
        .map(|i| i as u32 + 1)
}

/// The month feature: a full month name or its three-letter abbreviation.
pub fn is_month(s: &str) -> bool {
    let l = s.to_lowercase();
    l.len() >= 3 && month_number(&l).is_some() && !l.ends_with('.') && l != "sept"
}

/// First `k` characters (the whole string when shorter).
pub fn prefix(s: &str, k: usize) -> &str {
    match s.char_indices().nth(k) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// Last `k` characters (the whole string when shorter).
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

/// Push token, lower-case, prefixes 1-4 and suffixes 1-4 (columns 0-9 of every text model).
pub fn push_lexical(row: &mut Row, s: &str) {
    row.push(s.into());
    row.push(if s.is_ascii() {
        let mut lower = Feature::from(s);
        lower.make_ascii_lowercase();
        lower
    } else {
        Feature::from(s.to_lowercase().as_str())
    });
    for k in 1..=4 {
        row.push(prefix(s, k).into());
    }
    for k in 1..=4 {
        row.push(suffix(s, k).into());
    }
}

/// `floor(pos / total * bins)`, clamped to `0..=bins`.
pub fn linear_scaling(pos: usize, total: usize, bins: usize) -> usize {
    if pos >= total {
        return bins;
    }
    if pos == 0 {
        return 0;
    }
    (pos as f64 / total as f64 * bins as f64).floor() as usize
}

/// Word shape: first symbol, run-compressed middle, last two symbols (`Paris,` → `Xxx,`).
pub fn word_shape(s: &str) -> String {
    let sym: Vec<char> = s
        .chars()
        .map(|c| {
            if c.is_uppercase() {
                'X'
            } else if c.is_lowercase() {
                'x'
            } else if c.is_numeric() {
                'd'
            } else {
                c
            }
        })
        .collect();
    let n = sym.len();
    let mut out = String::new();
    match n {
        0 => {}
        1 => out.push(sym[0]),
        2 => {
            out.push(sym[0]);
            out.push(sym[1]);
        }
        _ => {
            out.push(sym[0]);
            let mut last: Option<char> = None;
            for &c in &sym[1..n - 2] {
                if last != Some(c) {
                    out.push(c);
                    last = Some(c);
                }
            }
            out.push(sym[n - 2]);
            out.push(sym[n - 1]);
        }
    }
    out
}

/// Line status from newline flags: `LINESTART` at the start or after a newline, `LINEEND` at
/// the end or before a newline, else `LINEIN`.
pub fn line_status(toks: &[Tok], i: usize) -> &'static str {
    if i == 0 || toks[i].newline_before {
        "LINESTART"
    } else if i + 1 == toks.len() || toks.get(i + 1).is_some_and(|t| t.newline_before) {
        "LINEEND"
    } else {
        "LINEIN"
    }
}

/// Key under which a lexicon entry or a token run is looked up: the non-delimiter tokens,
/// lower-cased, joined by one space.
pub fn gazetteer_key(text: &str) -> String {
    let norm = tokenizer::normalise(text);
    let mut key = String::new();
    for t in tokenizer::tokenize(&norm) {
        if t.chars().count() == 1 && t.chars().all(tokenizer::is_delimiter) {
            continue;
        }
        if !key.is_empty() {
            key.push(' ');
        }
        key.push_str(&t.to_lowercase());
    }
    key
}

/// Whether a token is ignored by gazetteer matching (a one-character delimiter).
fn is_delimiter_token(t: &str) -> bool {
    let mut cs = t.chars();
    matches!((cs.next(), cs.next()), (Some(c), None) if tokenizer::is_delimiter(c))
}

/// Longest-match gazetteer over token sequences. Entries are stored by [`gazetteer_key`];
/// `prefixes` lets the matcher stop as soon as no entry can continue.
#[derive(Debug, Clone, Default)]
pub struct Gazetteer {
    entries: HashSet<String>,
    prefixes: HashSet<String>,
    max_len: usize,
}

impl Gazetteer {
    pub fn new<I: IntoIterator<Item = S>, S: AsRef<str>>(entries: I) -> Gazetteer {
        let mut g = Gazetteer::default();
        for e in entries {
            g.insert(e.as_ref());
        }
        g
    }

    pub fn insert(&mut self, entry: &str) {
        let key = gazetteer_key(entry);
        if key.is_empty() {
            return;
        }
        let parts: Vec<&str> = key.split(' ').collect();
        self.max_len = self.max_len.max(parts.len());
        for k in 1..parts.len() {
            self.prefixes.insert(parts[..k].join(" "));
        }
        self.entries.insert(key);
    }

    /// Build from keys already in [`gazetteer_key`] form (as saved lexicon files hold them).
    pub fn from_keys<'a, I: IntoIterator<Item = &'a str>>(keys: I) -> Gazetteer {
        let mut g = Gazetteer::default();
        for key in keys {
            let parts: Vec<&str> = key.split(' ').collect();
            g.max_len = g.max_len.max(parts.len());
            for k in 1..parts.len() {
                g.prefixes.insert(parts[..k].join(" "));
            }
            g.entries.insert(key.to_string());
        }
        g
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(String::as_str)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.entries.contains(key)
    }

    /// Flags, one per token, set on every token inside a matched entry (delimiters between
    /// matched words included). `excluded` entries (a training file's own) do not match.
    pub fn flags(&self, toks: &[Tok], excluded: Option<&HashSet<String>>) -> Vec<bool> {
        let mut out = vec![false; toks.len()];
        if self.entries.is_empty() {
            return out;
        }
        let words: Vec<(usize, String)> = toks
            .iter()
            .enumerate()
            .filter(|(_, t)| !is_delimiter_token(&t.text))
            .map(|(i, t)| (i, t.text.to_lowercase()))
            .collect();
        let mut s = 0;
        while s < words.len() {
            let mut key = String::new();
            let mut best: Option<usize> = None;
            for (e, (_, word)) in words.iter().enumerate().take(s + self.max_len).skip(s) {
                if e > s {
                    key.push(' ');
                }
                key.push_str(word);
                let allowed = excluded.is_none_or(|x| !x.contains(&key));
                if allowed && self.entries.contains(&key) {
                    best = Some(e);
                }
                if !self.prefixes.contains(&key) {
                    break;
                }
            }
            match best {
                Some(e) => {
                    for f in out.iter_mut().take(words[e].0 + 1).skip(words[s].0) {
                        *f = true;
                    }
                    s = e + 1;
                }
                None => s += 1,
            }
        }
        out
    }
}

/// Byte spans of the concatenated token text, with the token index of each byte start.
struct Joined {
    text: String,
    starts: Vec<usize>,
}

fn join_tokens(toks: &[Tok]) -> Joined {
    let mut text = String::new();
    let mut starts = Vec::with_capacity(toks.len());
    for (i, t) in toks.iter().enumerate() {
        if i > 0 && needs_space(toks, i) {
            text.push(' ');
        }
        starts.push(text.len());
        text.push_str(&t.text);
    }
    Joined { text, starts }
}

/// Tokens are re-joined without spaces around URL/identifier punctuation, with one elsewhere
/// (the spacing is lost by tokenisation; identifiers never contain spaces).
fn needs_space(toks: &[Tok], i: usize) -> bool {
    let prev = &toks[i - 1].text;
    let cur = &toks[i].text;
    let glue = |s: &str| matches!(s, "." | "/" | ":" | "-" | "_" | "?" | "=" | "&" | "#" | "~");
    !(glue(prev) || glue(cur))
}

fn flags_for_spans(j: &Joined, n: usize, spans: &[(usize, usize)]) -> Vec<bool> {
    let mut out = vec![false; n];
    for (i, &st) in j.starts.iter().enumerate() {
        if spans.iter().any(|&(a, b)| st >= a && st < b) {
            out[i] = true;
        }
    }
    out
}

/// Spans of `text` matched by `pred` starting at a position accepted by `start_at`.
fn scan_spans(text: &str, start_at: impl Fn(&str) -> Option<usize>) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut i = 0;
    while i < text.len() {
        if !text.is_char_boundary(i) {
            i += 1;
            continue;
        }
        match start_at(&text[i..]) {
            Some(len) if len > 0 => {
                spans.push((i, i + len));
                i += len;
            }
            _ => i += 1,
        }
    }
    spans
}

fn non_space_len(s: &str) -> usize {
    s.find(char::is_whitespace).unwrap_or(s.len())
}

fn url_at(s: &str) -> Option<usize> {
    let l = s.get(..8).unwrap_or(s).to_ascii_lowercase();
    if l.starts_with("http://") || l.starts_with("https://") || l.starts_with("www.") {
        Some(non_space_len(s))
    } else {
        None
    }
}

fn doi_at(s: &str) -> Option<usize> {
    let rest = s.strip_prefix("10.")?;
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    if !(4..=9).contains(&digits) || !rest[digits..].starts_with('/') {
        return None;
    }
    let len = non_space_len(s);
    (len > 3 + digits + 1).then_some(len)
}

fn arxiv_at(s: &str) -> Option<usize> {
    let l = s.get(..6).unwrap_or(s).to_ascii_lowercase();
    if l.starts_with("arxiv") {
        return Some(non_space_len(s));
    }
    // new-style identifier 1234.56789
    let b = s.as_bytes();
    if b.len() >= 9
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'.'
        && b[5..9].iter().all(u8::is_ascii_digit)
    {
        return Some(non_space_len(s));
    }
    None
}

/// Tokens inside a URL (`http://`, `https://`, `www.`).
pub fn url_flags(toks: &[Tok]) -> Vec<bool> {
    let j = join_tokens(toks);
    flags_for_spans(&j, toks.len(), &scan_spans(&j.text, url_at))
}

/// Tokens inside a DOI (`10.xxxx/…`) or an arXiv identifier.
pub fn identifier_flags(toks: &[Tok]) -> Vec<bool> {
    let j = join_tokens(toks);
    let mut spans = scan_spans(&j.text, doi_at);
    spans.extend(scan_spans(&j.text, arxiv_at));
    flags_for_spans(&j, toks.len(), &spans)
}

/// Whether a whole string looks like an e-mail address.
pub fn is_email(s: &str) -> bool {
    let Some((user, host)) = s.split_once('@') else {
        return false;
    };
    !user.is_empty()
        && host.contains('.')
        && !host.starts_with('.')
        && !host.ends_with('.')
        && !s.contains(char::is_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        toks_from_text(s, false)
    }

    #[test]
    fn capitalisation_and_digits_follow_grobid() {
        assert_eq!(capitalisation("Smith"), "INITCAP");
        assert_eq!(capitalisation("CNRS"), "ALLCAP");
        assert_eq!(capitalisation(","), "ALLCAP");
        assert_eq!(capitalisation("A1"), "ALLCAP");
        assert_eq!(capitalisation("van"), "NOCAPS");
        assert_eq!(capitalisation("2019"), "NOCAPS");
        assert_eq!(capitalisation_affiliation("CNRS"), "ALLCAPS");
        assert_eq!(digit("2019"), "ALLDIGIT");
        assert_eq!(digit("12a"), "CONTAINSDIGITS");
        assert_eq!(digit("abc"), "NODIGIT");
        assert_eq!(digit_affiliation("12a"), "CONTAINDIGIT");
    }

    #[test]
    fn punctuation_classes() {
        assert_eq!(punct_type("("), "OPENBRACKET");
        assert_eq!(punct_type("]"), "ENDBRACKET");
        assert_eq!(punct_type("."), "DOT");
        assert_eq!(punct_type(","), "COMMA");
        assert_eq!(punct_type("-"), "HYPHEN");
        assert_eq!(punct_type("'"), "QUOTE");
        assert_eq!(punct_type(";"), "PUNCT");
        assert_eq!(punct_type(".."), "PUNCT");
        assert_eq!(punct_type("/"), "NOPUNCT");
        assert_eq!(punct_type("word"), "NOPUNCT");
    }

    #[test]
    fn year_month_prefix_suffix() {
        assert!(is_year("1999"));
        assert!(is_year("x2019b"));
        assert!(!is_year("3999"));
        assert!(!is_year("199"));
        assert!(is_month("June"));
        assert!(is_month("dec"));
        assert!(!is_month("Sept"));
        assert!(!is_month("ma"));
        assert_eq!(month_number("Sept."), Some(9));
        assert_eq!(month_number("february"), Some(2));
        assert_eq!(prefix("Émile", 2), "Ém");
        assert_eq!(suffix("Émile", 3), "ile");
        assert_eq!(suffix("ab", 4), "ab");
        let mut row = Vec::new();
        push_lexical(&mut row, "Smith");
        assert_eq!(
            row,
            vec!["Smith", "smith", "S", "Sm", "Smi", "Smit", "h", "th", "ith", "mith"]
        );
    }

    #[test]
    fn word_shapes_match_the_reference_examples() {
        assert_eq!(word_shape("University"), "Xxxx");
        assert_eq!(word_shape("CNRS"), "XXXX");
        assert_eq!(word_shape("75005"), "dddd");
        assert_eq!(word_shape("Paris,"), "Xxx,");
        assert_eq!(word_shape("A"), "X");
        assert_eq!(word_shape("Ab"), "Xx");
    }

    #[test]
    fn scaling_and_line_status() {
        assert_eq!(linear_scaling(0, 10, 12), 0);
        assert_eq!(linear_scaling(5, 10, 12), 6);
        assert_eq!(linear_scaling(10, 10, 12), 12);
        let t = toks("a b\nc d");
        assert_eq!(line_status(&t, 0), "LINESTART");
        assert_eq!(line_status(&t, 1), "LINEEND");
        assert_eq!(line_status(&t, 2), "LINESTART");
        assert_eq!(line_status(&t, 3), "LINEEND");
    }

    #[test]
    fn gazetteer_marks_whole_multi_token_matches() {
        let g = Gazetteer::new(["J. Am. Chem. Soc.", "Nature", "New York"]);
        let t = toks("In J. Am. Chem. Soc. 103, New York");
        let f = g.flags(&t, None);
        let marked: Vec<&str> = t
            .iter()
            .zip(&f)
            .filter(|(_, f)| **f)
            .map(|(t, _)| t.text.as_str())
            .collect();
        assert_eq!(
            marked,
            vec!["J", ".", "Am", ".", "Chem", ".", "Soc", "New", "York"]
        );
        let excluded: HashSet<String> = [gazetteer_key("New York")].into_iter().collect();
        let f = g.flags(&t, Some(&excluded));
        assert!(!f[t.len() - 1]);
    }

    #[test]
    fn url_identifier_and_email_spans() {
        let t = toks("see https://example.org/a?b=1 and doi:10.1000/xyz.12 or arXiv:1234.5678");
        let u = url_flags(&t);
        let marked: String = t
            .iter()
            .zip(&u)
            .filter(|(_, f)| **f)
            .map(|(t, _)| t.text.as_str())
            .collect();
        assert_eq!(marked, "https://example.org/a?b=1");
        let id = identifier_flags(&t);
        let marked: String = t
            .iter()
            .zip(&id)
            .filter(|(_, f)| **f)
            .map(|(t, _)| t.text.as_str())
            .collect();
        assert_eq!(marked, "10.1000/xyz.12arXiv:1234.5678");
        assert!(is_email("a.b@example.org"));
        assert!(!is_email("a.b@org"));
    }

    #[test]
    fn text_to_tokens_keeps_newlines_as_flags_and_splits_digits() {
        let t = toks_from_text("Vol 12a\n(2019)", true);
        let texts: Vec<&str> = t.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(texts, vec!["Vol", "12", "a", "(", "2019", ")"]);
        assert!(t[3].newline_before);
        assert!(!t[1].newline_before);
    }
}
