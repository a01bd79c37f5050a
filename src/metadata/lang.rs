//! Language identification for `xml:lang`: the document's language (on `teiHeader` and
//! `text`) and each abstract's, by `whatlang`'s trigram profiles over the text.
//!
//! Short or unreliable texts give `None` rather than a guess: a few words of a title or a
//! formula-heavy paragraph are not enough to tell Portuguese from Spanish. Codes are ISO
//! 639-1 (`en`, `pt`), as GROBID writes them.

use whatlang::{Detector, Lang};

/// Fewer letters than this and no language is given.
const MIN_LETTERS: usize = 40;

/// The ISO 639-1 code of a language `whatlang` knows, for those scholarly papers are written
/// in; `None` for the others (a rare language is more often a misreading of a short text).
fn code(l: Lang) -> Option<&'static str> {
    Some(match l {
        Lang::Eng => "en",
        Lang::Por => "pt",
        Lang::Spa => "es",
        Lang::Fra => "fr",
        Lang::Deu => "de",
        Lang::Ita => "it",
        Lang::Nld => "nl",
        Lang::Rus => "ru",
        Lang::Pol => "pl",
        Lang::Ces => "cs",
        Lang::Tur => "tr",
        Lang::Cmn => "zh",
        Lang::Jpn => "ja",
        Lang::Kor => "ko",
        Lang::Ukr => "uk",
        Lang::Swe => "sv",
        Lang::Dan => "da",
        Lang::Fin => "fi",
        Lang::Hun => "hu",
        Lang::Ron => "ro",
        Lang::Ind => "id",
        Lang::Cat => "ca",
        Lang::Hrv => "hr",
        Lang::Srp => "sr",
        Lang::Slv => "sl",
        Lang::Slk => "sk",
        Lang::Ell => "el",
        Lang::Ara => "ar",
        Lang::Heb => "he",
        Lang::Pes => "fa",
        Lang::Vie => "vi",
        Lang::Tha => "th",
        Lang::Hin => "hi",
        Lang::Nob => "no",
        _ => return None,
    })
}

/// The languages told apart: those of [`code`]. Leaving out the others (Latin, Esperanto…)
/// keeps species names and formula-heavy English from being read as them.
const KNOWN: &[Lang] = &[
    Lang::Eng,
    Lang::Por,
    Lang::Spa,
    Lang::Fra,
    Lang::Deu,
    Lang::Ita,
    Lang::Nld,
    Lang::Rus,
    Lang::Pol,
    Lang::Ces,
    Lang::Tur,
    Lang::Cmn,
    Lang::Jpn,
    Lang::Kor,
    Lang::Ukr,
    Lang::Swe,
    Lang::Dan,
    Lang::Fin,
    Lang::Hun,
    Lang::Ron,
    Lang::Ind,
    Lang::Cat,
    Lang::Hrv,
    Lang::Srp,
    Lang::Slv,
    Lang::Slk,
    Lang::Ell,
    Lang::Ara,
    Lang::Heb,
    Lang::Pes,
    Lang::Vie,
    Lang::Tha,
    Lang::Hin,
    Lang::Nob,
];

fn detector() -> &'static Detector {
    static D: std::sync::OnceLock<Detector> = std::sync::OnceLock::new();
    D.get_or_init(|| Detector::with_allowlist(KNOWN.to_vec()))
}

/// The language of `text` (ISO 639-1), when it has enough letters and the detector is
/// confident.
pub fn detect(text: &str) -> Option<&'static str> {
    let letters = text.chars().filter(|c| c.is_alphabetic()).count();
    if letters < MIN_LETTERS {
        return None;
    }
    let info = detector().detect(text)?;
    // Long texts are reliable whatever whatlang's own flag says; short ones must be.
    if !info.is_reliable() && letters < 200 {
        return None;
    }
    code(info.lang())
}

/// The language of a document from its texts in order of weight (abstract first, then body
/// paragraphs): the language of their first `limit` bytes taken together.
pub fn detect_all<'a>(
    texts: impl IntoIterator<Item = &'a str>,
    limit: usize,
) -> Option<&'static str> {
    let mut joined = String::new();
    for t in texts {
        if joined.len() >= limit {
            break;
        }
        if !joined.is_empty() {
            joined.push(' ');
        }
        let room = limit - joined.len();
        let mut end = t.len().min(room);
        while !t.is_char_boundary(end) {
            end -= 1;
        }
        joined.push_str(&t[..end]);
    }
    detect(&joined)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abstracts_in_english_portuguese_and_spanish() {
        assert_eq!(
            detect("We study the effect of temperature on the growth of bacteria in soil samples collected over two years."),
            Some("en")
        );
        assert_eq!(
            detect("Este estudo avaliou a prevalência de hipertensão arterial em adultos atendidos nas unidades básicas de saúde do município."),
            Some("pt")
        );
        assert_eq!(
            detect("Este trabajo analiza la relación entre la calidad del agua y la salud de los niños en las comunidades rurales de la región."),
            Some("es")
        );
    }

    #[test]
    fn too_short_a_text_has_no_language() {
        assert_eq!(detect("Results"), None);
        assert_eq!(detect(""), None);
    }

    #[test]
    fn a_document_is_read_up_to_its_limit() {
        let pt = "A pesquisa mostrou que os participantes tinham conhecimento limitado sobre a doença e seus sintomas.";
        let en = "The survey showed that the participants had limited knowledge of the disease and its symptoms.";
        assert_eq!(detect_all([pt, en], 90), Some("pt"));
        assert_eq!(detect_all([en, pt], 90), Some("en"));
    }
}
