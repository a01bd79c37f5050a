/*!
GROBID-compatible text normalisation and tokenisation (reference grobid-models.md §6.3).

`normalise` maps the many Unicode spaces, dashes, bullets, brackets and line separators onto
the characters the models were trained on. `tokenize` then emits every delimiter as its own
one-character token and everything between delimiters as one token; spaces and newlines are
kept as tokens, exactly as GROBID's tokenizer keeps them. `split_letter_digit` is the citation
model's extra split at letter→digit and digit→non-digit boundaries.
*/

/// Map a character to the one GROBID's `UnicodeUtil.normaliseText` would produce.
pub fn normalise_char(c: char) -> char {
    match c {
        '\t'
        | '\u{00A0}'
        | '\u{1680}'
        | '\u{180E}'
        | '\u{2000}'..='\u{200A}'
        | '\u{202F}'
        | '\u{205F}'
        | '\u{3000}' => ' ',
        '\u{2028}' | '\u{2029}' => ' ',
        '\u{000C}' | '\r' | '\u{000B}' | '\u{0085}' => '\n',
        '\u{2010}'..='\u{2015}'
        | '\u{2212}'
        | '\u{058A}'
        | '\u{05BE}'
        | '\u{1400}'
        | '\u{1806}'
        | '\u{2E17}'
        | '\u{2E1A}'
        | '\u{2E3A}'
        | '\u{2E3B}'
        | '\u{2E40}'
        | '\u{301C}'
        | '\u{3030}'
        | '\u{30A0}'
        | '\u{FE31}'
        | '\u{FE32}'
        | '\u{FE58}'
        | '\u{FE63}'
        | '\u{FF0D}' => '-',
        '\u{203F}'
        | '\u{2040}'
        | '\u{2054}'
        | '\u{FE4D}'..='\u{FE4F}'
        | '\u{FF3F}'
        | '\u{FE33}'
        | '\u{FE34}' => '_',
        '\u{01C0}' | '\u{05C0}' | '\u{2223}' | '\u{2758}' => '|',
        '\u{2022}' | '\u{2023}' | '\u{25E6}' | '\u{2043}' | '\u{204C}' | '\u{204D}'
        | '\u{2219}' | '\u{25D8}' | '\u{29BE}' | '\u{29BF}' | '\u{23FA}' | '\u{25CF}'
        | '\u{26AB}' | '\u{2B24}' | '\u{00B7}' => '•',
        '\u{FF08}' | '\u{27EE}' | '\u{2985}' | '\u{2768}' | '\u{276A}' | '\u{27EC}' => '(',
        '\u{FF09}' | '\u{27EF}' | '\u{2986}' | '\u{2769}' | '\u{276B}' | '\u{27ED}' => ')',
        other => other,
    }
}

/// Normalise a whole string (`\r\n` becomes one `\n`).
pub fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' && chars.peek() == Some(&'\n') {
            continue;
        }
        out.push(normalise_char(c));
    }
    out
}

/// Whether GROBID's tokenizer emits `c` as a token of its own.
pub fn is_delimiter(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r'
            | '\t'
            | '\u{000C}'
            | '\u{00A0}'
            | '\u{200C}'
            | '('
            | '（'
            | '['
            | ' '
            | '•'
            | '*'
            | ','
            | ':'
            | ';'
            | '?'
            | '.'
            | '!'
            | '/'
            | ')'
            | '）'
            | '-'
            | '−'
            | '–'
            | '‐'
            | '«'
            | '»'
            | '„'
            | '"'
            | '“'
            | '”'
            | '‘'
            | '’'
            | '\''
            | '`'
            | '$'
            | '#'
            | '@'
            | ']'
            | '♦'
            | '♥'
            | '♣'
            | '♠'
            | '。'
            | '、'
            | '，'
            | '・'
    )
}

/// Split already-normalised text into GROBID tokens, keeping spaces and newlines as tokens.
/// Returns borrowed slices: no allocation per token.
pub fn tokenize(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if is_delimiter(c) {
            if start < i {
                out.push(&text[start..i]);
            }
            let end = i + c.len_utf8();
            out.push(&text[i..end]);
            start = end;
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// Normalise, tokenise, and drop whitespace tokens: the feature-row tokens of a raw string.
pub fn words(text: &str) -> Vec<String> {
    let norm = normalise(text);
    tokenize(&norm)
        .into_iter()
        .filter(|t| !t.chars().all(char::is_whitespace))
        .map(str::to_string)
        .collect()
}

/// The citation model's extra split: at letter→digit and digit→non-digit boundaries
/// (`1999a` → `1999`, `a`; `pp12` → `pp`, `12`).
pub fn split_letter_digit(token: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut prev: Option<char> = None;
    for (i, c) in token.char_indices() {
        if let Some(p) = prev {
            let boundary = (p.is_alphabetic() && c.is_ascii_digit())
                || (p.is_ascii_digit() && !c.is_ascii_digit());
            if boundary {
                out.push(&token[start..i]);
                start = i;
            }
        }
        prev = Some(c);
    }
    if start < token.len() {
        out.push(&token[start..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn delimiters_are_tokens_of_their_own() {
        assert_eq!(
            tokenize("Smith, J. (2019)."),
            vec!["Smith", ",", " ", "J", ".", " ", "(", "2019", ")", "."]
        );
        assert_eq!(tokenize("x+y 10% {a}"), vec!["x+y", " ", "10%", " ", "{a}"]);
    }

    #[test]
    fn normalisation_maps_dashes_spaces_and_brackets() {
        assert_eq!(normalise("a\u{2014}b\u{00A0}c\r\nd\u{FF08}"), "a-b c\nd(");
        assert_eq!(words("pp. 45\u{2013}67"), vec!["pp", ".", "45", "-", "67"]);
    }

    #[test]
    fn letter_digit_split_matches_grobid_examples() {
        assert_eq!(split_letter_digit("1999a"), vec!["1999", "a"]);
        assert_eq!(split_letter_digit("pp12"), vec!["pp", "12"]);
        assert_eq!(split_letter_digit("R2D2"), vec!["R", "2", "D", "2"]);
        assert_eq!(split_letter_digit("word"), vec!["word"]);
    }

    proptest! {
        #[test]
        fn tokens_concatenate_back_to_the_input(s in "\\PC{0,60}") {
            let joined: String = tokenize(&s).concat();
            prop_assert_eq!(joined, s);
        }
    }
}
