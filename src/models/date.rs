//! Date model: labels the tokens of a raw date string (`<year>`, `<month>`, `<day>`,
//! `<other>`) and decodes them into dates normalised to ISO 8601 (year, year-month or full).

use crate::features::{self as f, Tok};
use crate::labels::Labels;
use crate::lexicon::LexView;
use crate::models::text;

pub use crate::document::Date;

model_labels!(
    "date",
    /// GROBID's date labels.
    {
        Year => "<year>",
        Month => "<month>",
        Day => "<day>",
        Other => "<other>",
    }
);

/// Version of [`rows`]' columns; bump when a column changes (`meta.json` must match).
pub const FEATURE_VERSION: u32 = 2;

impl Date {
    /// ISO 8601 form: `2019`, `2019-03` or `2019-03-05`; `None` without a year.
    pub fn when(&self) -> Option<String> {
        let y = self.year?;
        Some(match (self.month, self.day) {
            (Some(m), Some(d)) => format!("{y:04}-{m:02}-{d:02}"),
            (Some(m), None) => format!("{y:04}-{m:02}"),
            _ => format!("{y:04}"),
        })
    }

    /// How many of year, month, day are known.
    pub fn specificity(&self) -> usize {
        usize::from(self.year.is_some())
            + usize::from(self.month.is_some())
            + usize::from(self.day.is_some())
    }
}

fn parse_year(s: &str) -> Option<i32> {
    let digits: String = s.chars().filter(char::is_ascii_digit).collect();
    let n: i32 = digits.parse().ok()?;
    match digits.len() {
        4 if (1000..=2999).contains(&n) => Some(n),
        2 => Some(if n <= 30 { 2000 + n } else { 1900 + n }),
        _ => None,
    }
}

fn parse_month(s: &str) -> Option<u32> {
    let t = s.trim_matches(|c: char| !c.is_alphanumeric());
    if let Ok(n) = t.parse::<u32>() {
        return (1..=12).contains(&n).then_some(n);
    }
    month_of_word(t).or_else(|| f::month_number(f::prefix(t, 3)))
}

/// Month names of other languages met in scholarly dates (French, German, Italian, Spanish,
/// Portuguese, Dutch), lower-case, in month order; English comes from
/// [`f::month_number`].
const FOREIGN_MONTHS: [&[&str]; 12] = [
    &[
        "janvier", "januar", "gennaio", "enero", "janeiro", "januari", "jänner",
    ],
    &[
        "février",
        "fevrier",
        "februar",
        "febbraio",
        "febrero",
        "fevereiro",
        "februari",
    ],
    &["mars", "märz", "marz", "marzo", "março", "marco", "maart"],
    &["avril", "aprile", "abril"],
    &["mai", "maggio", "mayo", "maio", "mei"],
    &["juin", "juni", "giugno", "junio", "junho"],
    &["juillet", "juli", "luglio", "julio", "julho"],
    &["août", "aout", "agosto", "augustus"],
    &["septembre", "settembre", "septiembre", "setembro"],
    &["octobre", "oktober", "ottobre", "octubre", "outubro"],
    &["novembre", "noviembre", "novembro"],
    &[
        "décembre",
        "decembre",
        "dezember",
        "dicembre",
        "diciembre",
        "dezembro",
    ],
];

/// The month a word names (English full or abbreviated, or [`FOREIGN_MONTHS`]).
pub fn month_of_word(s: &str) -> Option<u32> {
    f::month_number(s).or_else(|| {
        let l = s.trim_end_matches('.').to_lowercase();
        FOREIGN_MONTHS
            .iter()
            .position(|names| names.contains(&l.as_str()))
            .map(|i| i as u32 + 1)
    })
}

/// What a token can be as a date part: `YEAR4` (1000-2999), `N12` (1-12: day or month),
/// `N31` (13-31: a day), `N0` (0 or 00), `N2` (other two digits: a short year), `NUM`
/// (other numbers), `ORD` (`12th`, `1st`), `MONTHNAME`, or `NONUM`.
pub fn number_class(s: &str) -> &'static str {
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        let n: u32 = s.parse().unwrap_or(u32::MAX);
        return match (s.len(), n) {
            (4, 1000..=2999) => "YEAR4",
            (_, 0) => "N0",
            (1 | 2, 1..=12) => "N12",
            (1 | 2, 13..=31) => "N31",
            (2, _) => "N2",
            _ => "NUM",
        };
    }
    let l = s.to_ascii_lowercase();
    let digits = l.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    if !digits.is_empty()
        && digits.len() <= 2
        && digits.bytes().all(|b| b.is_ascii_digit())
        && matches!(&l[digits.len()..], "st" | "nd" | "rd" | "th")
    {
        return "ORD";
    }
    if month_of_word(s).is_some() {
        return "MONTHNAME";
    }
    "NONUM"
}

fn parse_day(s: &str) -> Option<u32> {
    let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
    let n: u32 = digits.parse().ok()?;
    (1..=31).contains(&n).then_some(n)
}

/// Dates from labelled tokens. A new date starts whenever a year, month or day label repeats
/// for the date being built; dates without any recognised part are left out.
pub fn decode(toks: &[Tok], labels: &Labels) -> Vec<Date> {
    let mut out: Vec<Date> = Vec::new();
    let mut cur = Date::default();
    let mut seen = [false; 3];
    for (label, a, b) in crate::labels::fields(&labels.tags_or(Label::parse, Label::Other)) {
        let slot = match label {
            Label::Year => 0,
            Label::Month => 1,
            Label::Day => 2,
            Label::Other => continue,
        };
        let value = text::join_tokens(toks.get(a..b).unwrap_or_default());
        if seen[slot] {
            out.push(std::mem::take(&mut cur));
            seen = [false; 3];
        }
        seen[slot] = true;
        match slot {
            0 => cur.year = parse_year(&value),
            1 => cur.month = parse_month(&value),
            _ => cur.day = parse_day(&value),
        }
        if !cur.raw.is_empty() {
            cur.raw.push(' ');
        }
        cur.raw.push_str(&value);
    }
    out.push(cur);
    out.retain(|d| d.specificity() > 0);
    share_parts(&mut out);
    out
}

/// Ranges such as `June 17-21, 2007` decode as two partial dates (`June 17`, `21 2007`):
/// a date without a year takes the year of the next date that has one, and a date with a day
/// but no month takes the month of the previous date of the same year.
fn share_parts(dates: &mut [Date]) {
    for i in 0..dates.len() {
        if dates[i].year.is_none() {
            if let Some(y) = dates[i + 1..].iter().find_map(|d| d.year) {
                dates[i].year = Some(y);
            }
        }
    }
    for i in 1..dates.len() {
        let (prev, cur) = (&dates[i - 1], &dates[i]);
        if cur.month.is_none() && cur.day.is_some() && prev.year == cur.year {
            dates[i].month = dates[i - 1].month;
        }
    }
}

/// The date of a string as a citation or header uses it: the first of the most specified.
pub fn best(dates: &[Date]) -> Option<&Date> {
    let max = dates.iter().map(Date::specificity).max()?;
    dates.iter().find(|d| d.specificity() == max)
}

/// Feature rows (reference §3.8): the one function used for training and tagging.
/// Columns 17-18 are Quire's own: [`number_class`], and whether any token of the string names
/// a month (then the numbers are days and years).
pub fn rows(toks: &[Tok], _lex: &LexView<'_>) -> crate::features::Rows {
    let has_month = if toks.iter().any(|t| month_of_word(&t.text).is_some()) {
        "1"
    } else {
        "0"
    };
    toks.iter()
        .enumerate()
        .map(|(i, t)| {
            let s = t.text.as_str();
            let mut row = Vec::with_capacity(19);
            f::push_lexical(&mut row, s);
            row.push(f::line_status(toks, i).into());
            row.push(f::capitalisation(s).into());
            row.push(f::digit(s).into());
            row.push(f::single_char(s).into());
            row.push(f::flag(f::is_year(s)).into());
            row.push(f::flag(f::is_month(s)).into());
            row.push(f::punct_type(s).into());
            row.push(number_class(s).into());
            row.push(has_month.into());
            row
        })
        .collect()
}

/// Tokens of a raw date string (tabs and newlines count as spaces). A month name glued to a
/// number (`Aug1991`, `14.Dezember2007`, `5May`) is cut in two, as the corpus annotates such
/// text (`<month>Aug</month><year>1991</year>`); other letter/digit mixes (`12th`) stay whole.
pub fn toks(text: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    for t in f::toks_from_text(text, false) {
        let pieces = crate::tokenizer::split_letter_digit(&t.text);
        if pieces.len() > 1 && pieces.iter().any(|p| month_of_word(p).is_some()) {
            out.extend(pieces.into_iter().map(Tok::new));
        } else {
            out.push(Tok::new(t.text));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexicon::Lexicons;

    fn labelled(text: &str, labels: &[Label]) -> Vec<Date> {
        let t = toks(text);
        assert_eq!(t.len(), labels.len(), "{t:?}");
        decode(&t, &Labels::from_names(labels))
    }

    #[test]
    fn rows_have_the_date_columns() {
        let lex = Lexicons::default();
        let r = rows(&toks("June 17, 2007"), &LexView::new(&lex));
        assert_eq!(r.len(), 4);
        assert_eq!(
            r[0],
            vec![
                "June",
                "june",
                "J",
                "Ju",
                "Jun",
                "June",
                "e",
                "ne",
                "une",
                "June",
                "LINESTART",
                "INITCAP",
                "NODIGIT",
                "0",
                "0",
                "1",
                "NOPUNCT",
                "MONTHNAME",
                "1"
            ]
        );
        assert_eq!(
            r[2][11..].to_vec(),
            vec!["ALLCAP", "NODIGIT", "1", "0", "0", "COMMA", "NONUM", "1"]
        );
        assert_eq!(
            r[3][10..].to_vec(),
            vec!["LINEEND", "NOCAPS", "ALLDIGIT", "0", "1", "0", "NOPUNCT", "YEAR4", "1"]
        );
        let r = rows(&toks("4-21-2010"), &LexView::new(&lex));
        let classes: Vec<&str> = r.iter().map(|row| row[17].as_str()).collect();
        assert_eq!(classes, vec!["N12", "NONUM", "N31", "NONUM", "YEAR4"]);
        assert!(r.iter().all(|row| row.len() == 19 && row[18] == "0"));
    }

    #[test]
    fn number_classes_and_month_words() {
        for (s, c) in [
            ("1994", "YEAR4"),
            ("00", "N0"),
            ("07", "N12"),
            ("12", "N12"),
            ("13", "N31"),
            ("31", "N31"),
            ("94", "N2"),
            ("047", "NUM"),
            ("3000", "NUM"),
            ("12th", "ORD"),
            ("1st", "ORD"),
            ("Sept.", "MONTHNAME"),
            ("Gennaio", "MONTHNAME"),
            ("th", "NONUM"),
            ("", "NONUM"),
        ] {
            assert_eq!(number_class(s), c, "{s}");
        }
        assert_eq!(month_of_word("novembre"), Some(11));
        assert_eq!(month_of_word("JUILLET"), Some(7));
        assert_eq!(month_of_word("März"), Some(3));
        assert_eq!(month_of_word("Sept"), Some(9));
        assert_eq!(month_of_word("Monday"), None);
        use Label::*;
        let d = labelled("20 Gennaio 2005", &[Day, Month, Year]);
        assert_eq!(d[0].when().as_deref(), Some("2005-01-20"));
        let t: Vec<String> = toks("Aug1991. 14.Dezember2007, 12th\nMay")
            .into_iter()
            .map(|t| t.text)
            .collect();
        assert_eq!(
            t,
            vec!["Aug", "1991", ".", "14", ".", "Dezember", "2007", ",", "12th", "May"]
        );
    }

    #[test]
    fn decodes_and_normalises() {
        use Label::*;
        let d = labelled("Received 5 Sept. 2001", &[Other, Day, Month, Month, Year]);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].when().as_deref(), Some("2001-09-05"));
        let d = labelled("March 2019 and 2020", &[Month, Year, Other, Year]);
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].when().as_deref(), Some("2019-03"));
        assert_eq!(d[1].when().as_deref(), Some("2020"));
        assert_eq!(best(&d).and_then(Date::when).as_deref(), Some("2019-03"));
        let d = labelled("12/03/99", &[Day, Other, Month, Other, Year]);
        assert_eq!(d[0].when().as_deref(), Some("1999-03-12"));
        assert!(labelled("nothing here", &[Other, Other]).is_empty());
        let d = labelled("June 17-21, 2007", &[Month, Day, Other, Day, Other, Year]);
        let when: Vec<_> = d.iter().filter_map(Date::when).collect();
        assert_eq!(when, vec!["2007-06-17", "2007-06-21"]);
    }

    #[test]
    fn labels_parse_with_or_without_prefix() {
        assert_eq!("I-<year>".parse::<Label>().unwrap(), Label::Year);
        assert_eq!("<other>".parse::<Label>().unwrap(), Label::Other);
        assert!("<title>".parse::<Label>().is_err());
    }
}
