//! How titles, names and container titles are cut into words, alike for the index's text
//! fields ([`analyzer`], registered with the index), its queries and the re-scoring of
//! candidates ([`words`]), and the common words left out of title and container queries
//! ([`STOPWORDS`]).

use tantivy::tokenizer::{
    AsciiFoldingFilter, LowerCaser, RemoveLongFilter, SimpleTokenizer, TextAnalyzer,
};

/// Common words left out of title and container queries.
pub const STOPWORDS: [&str; 32] = [
    "a", "an", "and", "are", "as", "at", "by", "de", "der", "des", "du", "en", "et", "for", "from",
    "in", "is", "la", "le", "of", "on", "or", "the", "to", "und", "with", "via", "its", "into",
    "using", "von", "about",
];

/// The analyser of the index's text fields: simple words, the over-long dropped, lower case,
/// folded to ASCII.
pub fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .build()
}

/// The words of `text` as the index's text fields hold them.
pub fn words(text: &str) -> Vec<String> {
    let mut a = analyzer();
    let mut stream = a.token_stream(text);
    let mut out = Vec::new();
    while stream.advance() {
        out.push(stream.token().text.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_lower_cased_and_folded() {
        assert_eq!(
            words("Müller-Lyon's É.coli"),
            ["muller", "lyon", "s", "e", "coli"]
        );
    }
}
