/*!
Patent numbers in the forms patents print them (`US 6,123,456 B1`, `EP-A-0 123 456`,
`WO 2004/012345`, `JP 2001-123456 A`, `DE 101 23 456`, `U.S. Pat. Nos. 5,123,456 and
5,234,567`, `PCT/EP99/01234`, `RE 35,000`, …) parsed into what GROBID's `PatentRefParser`
gives: the authority (the patent office, regional or national), the number as printed
(`original`) and in epodoc form, the kind code, the document type and its status.

The regular parts (number runs, office names, kind codes) are `regex` patterns; the
office-specific epodoc rules are code. A citation span may hold several numbers: the office,
type and status named before a number carry over to the numbers after it until another is
named.
*/

use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;

/// The kind of patent document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DocType {
    Patent,
    DesignPatent,
    Plant,
    UtilityModel,
}

impl DocType {
    pub fn as_str(self) -> &'static str {
        match self {
            DocType::Patent => "patent",
            DocType::DesignPatent => "designPatent",
            DocType::Plant => "plant",
            DocType::UtilityModel => "utilityModel",
        }
    }
}

/// The publication status of the cited document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    Publication,
    Application,
    Provisional,
    Reissued,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Publication => "publication",
            Status::Application => "application",
            Status::Provisional => "provisional",
            Status::Reissued => "reissued",
        }
    }
}

/// One parsed patent number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatentNumber {
    /// Two-letter office code (`EP`, `US`, `WO`, …); `None` when the text names no office.
    pub authority: Option<String>,
    /// The number as printed (separators kept, office and kind code left out).
    pub original: String,
    /// The number in epodoc form, without the office code (`0123456`, `2004012345`).
    pub epodoc: String,
    pub kind: Option<String>,
    pub doc_type: DocType,
    pub status: Status,
    /// Byte range of the citation of this number in the parsed text: from the office (for the
    /// first number) or the number itself (for later ones) to its kind code.
    pub range: Range<usize>,
}

impl PatentNumber {
    /// `regional` for the regional offices (EP, WO, and the Gulf, Eurasian and ARIPO/OAPI
    /// offices), else `national`.
    pub fn authority_type(&self) -> &'static str {
        match self.authority.as_deref() {
            Some("EP" | "WO" | "XN" | "GC" | "EA" | "AP" | "OA") => "regional",
            _ => "national",
        }
    }

    /// Office code and epodoc number together (`EP0123456`): the key of the number at a patent
    /// office's viewer.
    pub fn full_epodoc(&self) -> String {
        format!("{}{}", self.authority.as_deref().unwrap_or(""), self.epodoc)
    }
}

fn re(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pattern).unwrap_or_else(|e| panic!("bad pattern: {e}")))
}

/// Runs of digits joined by the separators numbers are printed with: `,` or `.` between
/// digit groups, `/` or `-` (spaced or not), one space. The patent-citation decoder's rules
/// use the same pattern.
pub const NUMBER_PATTERN: &str = r"\d+(?:(?:[,.]|\s?[/-]\s?|\s)\d+)*";

fn number_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(&R, NUMBER_PATTERN)
}

/// Office mentions, the last one before a number naming its office.
fn office_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"(?x)
        (?P<us>\bU\.\s?S\.(?:\s?A\.)?|\bUSP\b|\bUSSN\b|\bUS(?:A)?\b|(?i:\bunited\s+states\b|\bamerican\b|\bam[ée]ricain(?:e)?\b|\bamerikanisch\w*|\bestadounidense\b|\bnorteamericana?\b))
        |(?P<pct>\bPCT\b)
        |(?P<ep>\bEPO?\b|(?i:\beuropean\b|\beurop[ée]enne?\b|\beurop[äa]isch\w*|\beurope[ao]\b))
        |(?P<wo>\bWO\b|(?i:\bworld\b|\binternational\b))
        |(?P<jp>\bJP\b|(?i:\bjapan(?:ese)?\b|\bjaponais(?:e)?\b|\bjapanisch\w*|\bjapon[ée]s[ae]?\b))
        |(?P<de>\bDE\b|(?i:\bgerman(?:y)?\b|\ballemand(?:e)?\b|\bdeutsch\w*|\balem[áa]n(?:a)?\b))
        |(?P<gb>\b(?:GB|UK)\b|(?i:\bbritish\b|\bgreat\s+britain\b|\bunited\s+kingdom\b|\benglish\b))
        |(?P<fr>\bFR\b|(?i:\bfrench\b|\bfrance\b|\bfran[çc]ais(?:e)?\b|\bfranz[öo]sisch\w*|\bfranc[ée]s[ae]?\b))
        |(?P<be>(?i:\bbelgi(?:an|um)\b))
        |(?P<ch>(?i:\bswiss\b|\bswitzerland\b))
        |(?P<cn>(?i:\bchinese\b|\bchina\b))
        |(?P<kr>(?i:\bkorean?\b))
        |(?P<nl>(?i:\bdutch\b|\bnetherlands\b))
        |(?P<ca>(?i:\bcanadian\b|\bcanada\b))
        |(?P<au>(?i:\baustralian?\b))
        |(?P<at>(?i:\baustrian?\b))
        |(?P<ru>(?i:\brussian?\b|\bsoviet\b))
        |(?P<se>(?i:\bswed(?:en|ish)\b))
        |(?P<dk>(?i:\bdanish\b|\bdenmark\b))
        |(?P<it>(?i:\bital(?:y|ian)\b))
        |(?P<es>(?i:\bspa(?:in|nish)\b|\bespa[ñn]o(?:l|la)\b|\bespagnol(?:e)?\b|\bspanisch\w*))
        |(?P<code>\b(?:AU|DK|BE|AT|CN|KR|EA|CH|RU|CA|NL|DD|SE|FI|MX|OA|AP|AR|BR|BG|CL|GR|HU|IS|IN|IE|IL|IT|LU|NO|NZ|PL|ES|TW|TR|SU|CZ|SK|PT|ZA|SG|HK|AP)\b)",
    )
}

const OFFICE_GROUPS: &[(&str, &str)] = &[
    ("us", "US"),
    ("pct", "WO"),
    ("ep", "EP"),
    ("wo", "WO"),
    ("jp", "JP"),
    ("de", "DE"),
    ("gb", "GB"),
    ("fr", "FR"),
    ("be", "BE"),
    ("ch", "CH"),
    ("cn", "CN"),
    ("kr", "KR"),
    ("nl", "NL"),
    ("ca", "CA"),
    ("au", "AU"),
    ("at", "AT"),
    ("ru", "RU"),
    ("se", "SE"),
    ("dk", "DK"),
    ("it", "IT"),
    ("es", "ES"),
];

/// A kind code printed right after a number (`B1`, ` A2`, `-A`).
fn kind_after_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(&R, r"^(?:\s|-)?\(?([ABCEFHIKLNPSTUWYZ][1-9]?)\)?(?:\b|$)")
}

/// A kind letter printed between office and number (`EP-A-`, `JP-B `, `DE-A`).
fn kind_before_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(
        &R,
        r"[A-Z]{2}\s?-\s?([ABCU][1-9]?)(?:\s?-\s?|\s+(?:No\.?\s*)?)$",
    )
}

/// `PCT/EP99/01234`, `PCT/US2003/012345`: an international application.
fn pct_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(&R, r"PCT\s?/\s?([A-Z]{2})\s?(\d{2}|\d{4})\s?/\s?(\d{3,6})")
}

/// Two-digit year → four digits (patent numbering started well after 1950; `00`–`49` are 20xx).
fn full_year(yy: &str) -> String {
    match yy.parse::<u32>() {
        Ok(y) if yy.len() == 2 && y >= 50 => format!("19{yy}"),
        Ok(_) if yy.len() == 2 => format!("20{yy}"),
        _ => yy.to_string(),
    }
}

fn digits(s: &str) -> String {
    s.chars().filter(char::is_ascii_digit).collect()
}

/// The `year` / `serial` parts of a number printed as `yy/nnnnn`, `yyyy-nnnnnn`, ….
fn year_serial(original: &str) -> Option<(String, String)> {
    let (a, b) = original.split_once(['/', '-'])?;
    let (a, b) = (digits(a), digits(b));
    (!a.is_empty() && !b.is_empty() && !b.contains(['/', '-'])).then_some((a, b))
}

/// The epodoc form of `original` at `office` with `status` (see the module documentation).
pub fn epodoc(office: Option<&str>, original: &str, status: Status) -> String {
    let d = digits(original);
    match office {
        Some("WO") => match year_serial(original) {
            Some((y, s)) if (y.len() == 2 || y.len() == 4) && s.len() <= 6 => {
                format!("{}{:0>6}", full_year(&y), s)
            }
            _ if d.len() == 7 || d.len() == 8 => {
                format!("{}{:0>6}", full_year(&d[..2]), &d[2..])
            }
            _ => d,
        },
        Some("JP") => match year_serial(original) {
            Some((y, s)) if y.len() == 4 => format!("{y}{s:0>6}"),
            Some((y, s)) if y.len() <= 2 => {
                format!("{}{:0>6}", y.trim_start_matches('0'), s)
            }
            _ => d,
        },
        Some("US") => match year_serial(original) {
            // A pre-grant publication, `2004/0123456`: year and six digits.
            Some((y, s)) if y.len() == 4 && s.len() == 7 && s.starts_with('0') => {
                format!("{y}{}", &s[1..])
            }
            _ => d,
        },
        Some("EP") => {
            // An application number carries a check digit after a dot: `01250068.6`.
            let main = match original.rsplit_once('.') {
                Some((m, c)) if c.trim().len() == 1 && digits(m).len() == 8 => digits(m),
                _ => d,
            };
            if status == Status::Publication && main.len() < 7 {
                format!("{main:0>7}")
            } else {
                main
            }
        }
        _ => d,
    }
}

/// Whether a run is a bare year (`1999`) rather than a number.
fn is_year(run: &str) -> bool {
    run.len() == 4 && (run.starts_with("19") || run.starts_with("20")) && digits(run).len() == 4
}

/// Parse the patent numbers of one `<refPatent>` citation.
pub fn parse(text: &str) -> Vec<PatentNumber> {
    let mut out: Vec<PatentNumber> = Vec::new();
    let mut office: Option<&'static str> = None;
    let mut status = Status::Publication;
    let mut doc_type = DocType::Patent;
    let mut prev_end = 0;
    let mut first = true;

    // Number runs; a PCT application carries its office, epodoc number and status.
    type Pct = (&'static str, String, Status);
    let mut runs: Vec<(Range<usize>, Option<Pct>)> = Vec::new();
    for c in pct_re().captures_iter(text) {
        let (Some(m), Some(cc), Some(y), Some(s)) = (c.get(0), c.get(1), c.get(2), c.get(3)) else {
            continue;
        };
        let ep = format!("{}{}{:0>6}", cc.as_str(), full_year(y.as_str()), s.as_str());
        runs.push((m.range(), Some(("WO", ep, Status::Application))));
    }
    for m in number_re().find_iter(text) {
        if runs
            .iter()
            .any(|(r, _)| r.start < m.end() && m.start() < r.end)
        {
            continue;
        }
        runs.push((m.range(), None));
    }
    runs.sort_by_key(|(r, _)| r.start);
    let several = runs.len() > 1;

    for (range, pct) in runs {
        if range.start < prev_end {
            // Digits of a kind code already read (`B1`).
            continue;
        }
        let prefix = &text[prev_end..range.start];
        let run = &text[range.clone()];
        if let Some((off, ep, st)) = pct {
            out.push(PatentNumber {
                authority: Some(off.to_string()),
                original: run.to_string(),
                epodoc: ep,
                kind: None,
                doc_type: DocType::Patent,
                status: st,
                range: if first { 0..range.end } else { range.clone() },
            });
            first = false;
            prev_end = range.end;
            continue;
        }
        // No office numbers a document with more than 16 digits (epodoc numbers have at most
        // about 13): a longer run is a table of figures, not a patent.
        if digits(run).len() < 4 || digits(run).len() > 16 || (several && is_year(run)) {
            continue;
        }
        // The office named last before the number.
        let mut named = None;
        for c in office_re().captures_iter(prefix) {
            named = OFFICE_GROUPS
                .iter()
                .find(|(g, _)| c.name(g).is_some())
                .map(|(_, code)| *code)
                .or_else(|| c.name("code").map(|m| static_code(m.as_str())));
        }
        if let Some(o) = named {
            if office != Some(o) {
                status = Status::Publication;
                doc_type = DocType::Patent;
            }
            office = Some(o);
        }
        let lower = prefix.to_lowercase();
        if lower.contains("provisional") {
            status = Status::Provisional;
        } else if lower.contains("application")
            // French, German and Spanish for an application.
            || lower.contains("demande")
            || lower.contains("anmeldung")
            || lower.contains("solicitud")
            || lower.contains("appl.")
            || lower.contains("ser.")
            || lower.contains("serial")
            || prefix.contains("USSN")
        {
            status = Status::Application;
        }
        if lower.contains("laid-open")
            || lower.contains("laid open")
            || lower.contains("publication")
            || lower.contains("publ")
            || lower.contains("kokai")
        {
            status = Status::Publication;
        }
        let mut epodoc_prefix = "";
        let tail = prefix.trim_end();
        if tail.ends_with("RE") || tail.ends_with("Re.") || tail.ends_with("Re") {
            status = Status::Reissued;
            epodoc_prefix = "RE";
        } else if tail.ends_with("Des.") || tail.ends_with(" D") || tail.ends_with("D-") {
            doc_type = DocType::DesignPatent;
            epodoc_prefix = "D";
        } else if tail.ends_with("PP") || lower.contains("plant") {
            doc_type = DocType::Plant;
            epodoc_prefix = "PP";
        }
        if lower.contains("utility model") || lower.contains("gebrauchsmuster") {
            doc_type = DocType::UtilityModel;
        }
        let mut kind = kind_before_re()
            .captures(&text[..range.start])
            .filter(|c| c.get(0).is_some_and(|m| m.start() >= prev_end))
            .and_then(|c| c.get(1))
            .map(|m| m.as_str().to_string());
        let mut end = range.end;
        if let Some(c) = kind_after_re().captures(&text[range.end..]) {
            if let (Some(all), Some(k)) = (c.get(0), c.get(1)) {
                kind = Some(k.as_str().to_string());
                end = range.end + all.end();
            }
        }
        if kind.as_deref().is_some_and(|k| k.starts_with('A'))
            && status == Status::Application
            && office != Some("US")
        {
            // A published application (`EP-A`, `JP-A`) is a publication.
            status = Status::Publication;
        }
        // EP application numbers have eight digits and a check digit.
        let st = if office == Some("EP") && digits(run).len() >= 9 {
            Status::Application
        } else {
            status
        };
        let original = run.trim().to_string();
        let ep = format!("{epodoc_prefix}{}", epodoc(office, &original, st));
        out.push(PatentNumber {
            authority: office.map(str::to_string),
            original,
            epodoc: ep,
            kind,
            doc_type,
            status: st,
            range: if first {
                let lead = text.len() - text.trim_start().len();
                lead..end
            } else {
                range.start..end
            },
        });
        first = false;
        prev_end = end;
    }
    out
}

fn static_code(s: &str) -> &'static str {
    const CODES: &[&str] = &[
        "AU", "DK", "BE", "AT", "CN", "KR", "EA", "CH", "RU", "CA", "NL", "DD", "SE", "FI", "MX",
        "OA", "AP", "AR", "BR", "BG", "CL", "GR", "HU", "IS", "IN", "IE", "IL", "IT", "LU", "NO",
        "NZ", "PL", "ES", "TW", "TR", "SU", "CZ", "SK", "PT", "ZA", "SG", "HK",
    ];
    CODES
        .iter()
        .find(|c| s.starts_with(*c))
        .copied()
        .unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn one(text: &str) -> PatentNumber {
        let mut v = parse(text);
        assert_eq!(v.len(), 1, "{text}: {v:?}");
        v.remove(0)
    }

    fn key(p: &PatentNumber) -> (String, String, Option<String>, &'static str) {
        (
            p.authority.clone().unwrap_or_default(),
            p.epodoc.clone(),
            p.kind.clone(),
            p.status.as_str(),
        )
    }

    #[test]
    fn the_printed_forms_parse() {
        let cases: &[(&str, &str, &str, Option<&str>, &str)] = &[
            (
                "US 6,123,456 B1",
                "US",
                "6123456",
                Some("B1"),
                "publication",
            ),
            ("EP-A-0 123 456", "EP", "0123456", Some("A"), "publication"),
            ("WO 2004/012345", "WO", "2004012345", None, "publication"),
            ("WO 96/05768", "WO", "1996005768", None, "publication"),
            (
                "JP 2001-123456 A",
                "JP",
                "2001123456",
                Some("A"),
                "publication",
            ),
            ("JP-A-6-123456", "JP", "6123456", Some("A"), "publication"),
            ("DE 101 23 456", "DE", "10123456", None, "publication"),
            (
                "DE 41 16 916 C2",
                "DE",
                "4116916",
                Some("C2"),
                "publication",
            ),
            ("EP0123456B1", "EP", "0123456", Some("B1"), "publication"),
            (
                "U.S. Pat. No. 4,683,202",
                "US",
                "4683202",
                None,
                "publication",
            ),
            (
                "U.S. patent application Ser. No. 08/793,371",
                "US",
                "08793371",
                None,
                "application",
            ),
            (
                "U.S. Provisional Patent Application No. 60/123,456",
                "US",
                "60123456",
                None,
                "provisional",
            ),
            (
                "US 2004/0123456 A1",
                "US",
                "2004123456",
                Some("A1"),
                "publication",
            ),
            ("EP 999 999", "EP", "0999999", None, "publication"),
            (
                "European Patent Application No. 01250068.6",
                "EP",
                "01250068",
                None,
                "application",
            ),
            ("PCT/EP99/01234", "WO", "EP1999001234", None, "application"),
            (
                "British Patent No. 1,234,567",
                "GB",
                "1234567",
                None,
                "publication",
            ),
            ("UK 2,123,456", "GB", "2123456", None, "publication"),
            (
                "Japanese Patent Laid-Open No. 2000-123456",
                "JP",
                "2000123456",
                None,
                "publication",
            ),
            ("FR-A-2 345 678", "FR", "2345678", Some("A"), "publication"),
            // Office names in the languages patents are published in.
            (
                "Patente Española 490.855",
                "ES",
                "490855",
                None,
                "publication",
            ),
            (
                "Patente Europea 0 877 346",
                "EP",
                "0877346",
                None,
                "publication",
            ),
            (
                "brevet français 2.684.434",
                "FR",
                "2684434",
                None,
                "publication",
            ),
            (
                "deutsche Patentschrift 101 23 456",
                "DE",
                "10123456",
                None,
                "publication",
            ),
            (
                "demande de brevet japonaise 2001-123456",
                "JP",
                "2001123456",
                None,
                "application",
            ),
        ];
        for (text, office, ep, kind, status) in cases {
            let p = one(text);
            assert_eq!(
                key(&p),
                (
                    office.to_string(),
                    ep.to_string(),
                    kind.map(str::to_string),
                    *status
                ),
                "{text}"
            );
            assert_eq!(&text[p.range.clone()], *text, "{text}");
        }
    }

    #[test]
    fn lists_carry_the_office_over() {
        let text = "US 5,123,456 and 5,234,567";
        let v = parse(text);
        assert_eq!(v.len(), 2);
        assert_eq!(v[1].authority.as_deref(), Some("US"));
        assert_eq!(v[1].epodoc, "5234567");
        assert_eq!(&text[v[0].range.clone()], "US 5,123,456");
        assert_eq!(&text[v[1].range.clone()], "5,234,567");
        let text = "U.S. Pat. Nos. 4,000,001, 4,000,002, and RE 35,000";
        let v = parse(text);
        let eps: Vec<&str> = v.iter().map(|p| p.epodoc.as_str()).collect();
        assert_eq!(eps, vec!["4000001", "4000002", "RE35000"]);
        assert_eq!(v[2].status, Status::Reissued);
        let v = parse("EP 0 531 997 and JP 06 34 4377");
        assert_eq!(v[1].authority.as_deref(), Some("JP"));
        assert_eq!(v[1].epodoc, "06344377");
    }

    #[test]
    fn text_without_a_number_gives_nothing() {
        assert!(parse("European patent").is_empty());
        assert!(parse("").is_empty());
        // A run of digits longer than any office's numbers is a table of figures.
        assert!(parse("0318318318231829130354457814027483551094").is_empty());
        assert_eq!(parse("US 12345678901234").len(), 1);
    }

    /// A separator style for a number's digit groups.
    fn groups(digits: &str, style: usize) -> String {
        let bytes: Vec<char> = digits.chars().collect();
        match style {
            0 => digits.to_string(),
            1 | 2 => {
                // Thousands groups from the right, with `,` or a space.
                let sep = if style == 1 { ',' } else { ' ' };
                let mut out = Vec::new();
                for (i, c) in bytes.iter().rev().enumerate() {
                    if i > 0 && i % 3 == 0 {
                        out.push(sep);
                    }
                    out.push(*c);
                }
                out.into_iter().rev().collect()
            }
            _ => {
                let mut out = Vec::new();
                for (i, c) in bytes.iter().rev().enumerate() {
                    if i > 0 && i % 3 == 0 {
                        out.push('.');
                    }
                    out.push(*c);
                }
                out.into_iter().rev().collect()
            }
        }
    }

    proptest! {
        #[test]
        fn us_numbers_in_any_printed_form(
            n in 1_000_000u32..9_999_999,
            prefix in prop::sample::select(vec!["US ", "U.S. Pat. No. ", "U.S. Patent ", "US-A-", "USP ", "United States Patent No. ", "US"]),
            style in 0usize..4,
            kind in prop::sample::select(vec!["", " B1", " A", "B2", " A1"]),
        ) {
            let digits = n.to_string();
            let text = format!("{prefix}{}{kind}", groups(&digits, style));
            let p = one(&text);
            prop_assert_eq!(p.authority.as_deref(), Some("US"));
            prop_assert_eq!(&p.epodoc, &digits);
            let want = kind.trim();
            if !want.is_empty() {
                prop_assert_eq!(p.kind.as_deref(), Some(want));
            }
            prop_assert_eq!(&text[p.range.clone()], text.as_str());
        }

        #[test]
        fn ep_numbers_in_any_printed_form(
            n in 1u32..1_999_999,
            prefix in prop::sample::select(vec!["EP ", "EP-A-", "EP-B-", "EP-A ", "European Patent ", "EP"]),
            style in 0usize..3,
            kind in prop::sample::select(vec!["", " B1", " A2", "A1"]),
        ) {
            let digits = format!("{n:07}");
            let text = format!("{prefix}{}{kind}", groups(&digits, style));
            let p = one(&text);
            prop_assert_eq!(p.authority.as_deref(), Some("EP"));
            prop_assert_eq!(&p.epodoc, &digits);
            prop_assert_eq!(p.authority_type(), "regional");
            prop_assert_eq!(&text[p.range.clone()], text.as_str());
        }

        #[test]
        fn wo_numbers_with_two_or_four_digit_years(
            year in 1978u32..2030,
            serial in 1u32..999_999,
            four in any::<bool>(),
            prefix in prop::sample::select(vec!["WO ", "WO", "WO-A-", "International Publication No. WO "]),
        ) {
            let y = if four { year.to_string() } else { format!("{:02}", year % 100) };
            let s = if four { format!("{serial:06}") } else { format!("{:05}", serial % 100_000) };
            let text = format!("{prefix}{y}/{s}");
            let p = one(&text);
            prop_assert_eq!(p.authority.as_deref(), Some("WO"));
            let want_serial: u32 = s.parse().unwrap();
            prop_assert_eq!(p.epodoc.clone(), format!("{year}{want_serial:06}"));
        }

        #[test]
        fn jp_numbers_with_western_years(
            year in 1990u32..2030,
            serial in 1u32..999_999,
            prefix in prop::sample::select(vec!["JP ", "JP-A-", "JP-A No. ", "Japanese Patent Application Laid-Open No. "]),
            kind in prop::sample::select(vec!["", " A"]),
        ) {
            let text = format!("{prefix}{year}-{serial:06}{kind}");
            let p = one(&text);
            prop_assert_eq!(p.authority.as_deref(), Some("JP"));
            prop_assert_eq!(p.epodoc.clone(), format!("{year}{serial:06}"));
            prop_assert_eq!(p.status, Status::Publication);
        }

        #[test]
        fn de_numbers_with_spaced_groups(
            a in 10u32..999, b in 10u32..99, c in 100u32..999,
            kind in prop::sample::select(vec!["", " A1", " C2", " U1"]),
            prefix in prop::sample::select(vec!["DE ", "DE-A-", "German Patent "]),
        ) {
            let text = format!("{prefix}{a} {b} {c}{kind}");
            let p = one(&text);
            prop_assert_eq!(p.authority.as_deref(), Some("DE"));
            prop_assert_eq!(p.epodoc.clone(), format!("{a}{b}{c}"));
        }

        #[test]
        fn lists_of_us_numbers(
            ns in prop::collection::vec(1_000_000u32..9_999_999, 2..5),
            sep in prop::sample::select(vec![", ", " and ", "; ", ", and "]),
        ) {
            let printed: Vec<String> = ns.iter().map(|n| groups(&n.to_string(), 1)).collect();
            let text = format!("U.S. Pat. Nos. {}", printed.join(sep));
            let v = parse(&text);
            prop_assert_eq!(v.len(), ns.len());
            for (p, n) in v.iter().zip(&ns) {
                prop_assert_eq!(p.authority.as_deref(), Some("US"));
                prop_assert_eq!(p.epodoc.clone(), n.to_string());
            }
            for (p, s) in v.iter().zip(&printed).skip(1) {
                prop_assert_eq!(&text[p.range.clone()], s.as_str());
            }
        }

        #[test]
        fn any_text_parses_without_panicking(s in "\\PC{0,40}") {
            for p in parse(&s) {
                prop_assert!(s.get(p.range.clone()).is_some());
            }
        }
    }
}
