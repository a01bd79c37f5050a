//! Affiliation-address model: labels the tokens of affiliation blocks (institution,
//! department, laboratory, address parts, country, marker) and decodes them into
//! affiliations with their addresses and ISO country codes.

use crate::features::{self as f, Tok};
use crate::labels::Labels;
use crate::lexicon::{Kind, LexView, Lexicons};
use crate::models::text;

pub use crate::document::Affiliation;

model_labels!(
    "affiliation",
    /// GROBID's affiliation-address labels.
    {
        Marker => "<marker>",
        Institution => "<institution>",
        Department => "<department>",
        Laboratory => "<laboratory>",
        AddrLine => "<addrLine>",
        Settlement => "<settlement>",
        Region => "<region>",
        PostCode => "<postCode>",
        PostBox => "<postBox>",
        Country => "<country>",
        Other => "<other>",
    }
);

/// Version of [`rows`]' columns; bump when a column changes (`meta.json` must match).
pub const FEATURE_VERSION: u32 = 1;

impl Affiliation {
    fn has_org(&self) -> bool {
        !(self.departments.is_empty()
            && self.laboratories.is_empty()
            && self.institutions.is_empty())
    }
    fn has_address(&self) -> bool {
        !self.addr_lines.is_empty()
            || self.post_box.is_some()
            || self.post_code.is_some()
            || self.settlement.is_some()
            || self.region.is_some()
            || self.country.is_some()
    }
    pub fn is_empty(&self) -> bool {
        !self.has_org() && !self.has_address()
    }
}

fn trim_field(s: &str) -> String {
    s.trim_matches(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ':'))
        .trim_end_matches(['.', ','])
        .trim()
        .to_string()
}

/// Affiliations from labelled tokens. A new affiliation starts at a marker once the current
/// one has content, or at an organisation name once the current one has an address.
pub fn decode(toks: &[Tok], labels: &Labels, lex: &Lexicons) -> Vec<Affiliation> {
    let mut out = Vec::new();
    let mut cur = Affiliation::default();
    for (label, a, b) in crate::labels::fields(&labels.tags_or(Label::parse, Label::Other)) {
        let raw = text::join_tokens(toks.get(a..b).unwrap_or_default());
        let value = trim_field(&raw);
        let is_org = matches!(
            label,
            Label::Institution | Label::Department | Label::Laboratory
        );
        let new = (label == Label::Marker && !cur.is_empty())
            || (is_org && cur.has_address())
            || (label == Label::Country && cur.country.is_some());
        if new {
            out.push(std::mem::take(&mut cur));
        }
        if label != Label::Other || !cur.raw.is_empty() {
            if !cur.raw.is_empty() {
                cur.raw.push(' ');
            }
            cur.raw.push_str(&raw);
        }
        if value.is_empty() {
            continue;
        }
        match label {
            Label::Marker => cur.markers.push(value),
            Label::Institution => cur.institutions.push(value),
            Label::Department => cur.departments.push(value),
            Label::Laboratory => cur.laboratories.push(value),
            Label::AddrLine => cur.addr_lines.push(value),
            Label::PostBox => cur.post_box = Some(value),
            Label::PostCode => cur.post_code = Some(value),
            Label::Settlement => cur.settlement = Some(value),
            Label::Region => cur.region = Some(value),
            Label::Country => {
                cur.country_code = lex.country_code(&value).map(str::to_string);
                cur.country = Some(value);
            }
            Label::Other => {}
        }
    }
    out.push(cur);
    out.retain(|a| !a.is_empty());
    for a in &mut out {
        a.raw = a.raw.trim_end_matches([',', ';', ' ']).to_string();
    }
    out
}

/// Feature rows (reference §3.7) for training and tagging. Deliberate difference from GROBID:
/// the first-name column (always 0 there) holds the first-name lexicon flag.
pub fn rows(toks: &[Tok], lex: &LexView<'_>) -> crate::features::Rows {
    let locations = lex.flags(Kind::Location, toks);
    let countries = lex.flags(Kind::Country, toks);
    toks.iter()
        .enumerate()
        .map(|(i, t)| {
            let s = t.text.as_str();
            let mut row = Vec::with_capacity(21);
            f::push_lexical(&mut row, s);
            row.push(f::line_status(toks, i).into());
            row.push(f::capitalisation_affiliation(s).into());
            row.push(f::digit_affiliation(s).into());
            row.push(f::single_char(s).into());
            let first = lex.has_word(Kind::FirstName, s);
            let proper = first || lex.has_word(Kind::LastName, s);
            row.push(f::flag(proper).into());
            row.push(f::flag(lex.has_word(Kind::CommonWord, s)).into());
            row.push(f::flag(first).into());
            row.push(f::flag(locations[i]).into());
            row.push(f::flag(countries[i]).into());
            row.push(f::punct_type(s).into());
            row.push(f::word_shape(s).into());
            row
        })
        .collect()
}

/// Tokens of a raw affiliation string; newlines are kept (they matter to the model).
pub fn toks(text: &str) -> Vec<Tok> {
    f::toks_from_text(text, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Label::*;

    #[test]
    fn decodes_two_affiliations_with_addresses() {
        let lex = Lexicons::default();
        let t =
            toks("1 Dept. of Physics, Example University, Lisbon, Portugal\n2 CNRS, Paris, France");
        let labels = [
            Marker,
            Department,
            Department,
            Department,
            Department,
            Other,
            Institution,
            Institution,
            Other,
            Settlement,
            Other,
            Country,
            Marker,
            Institution,
            Other,
            Settlement,
            Other,
            Country,
        ];
        assert_eq!(t.len(), labels.len(), "{t:?}");
        let a = decode(&t, &Labels::from_names(labels), &lex);
        assert_eq!(a.len(), 2);
        assert_eq!(a[0].markers, vec!["1"]);
        assert_eq!(a[0].departments, vec!["Dept. of Physics"]);
        assert_eq!(a[0].institutions, vec!["Example University"]);
        assert_eq!(a[0].settlement.as_deref(), Some("Lisbon"));
        assert_eq!(a[0].country.as_deref(), Some("Portugal"));
        assert_eq!(a[1].institutions, vec!["CNRS"]);
        assert_eq!(a[1].country.as_deref(), Some("France"));
    }

    #[test]
    fn rows_have_the_affiliation_columns() {
        let lex = Lexicons::default();
        let r = rows(&toks("CNRS, Paris"), &LexView::new(&lex));
        assert_eq!(r.len(), 3);
        assert_eq!(r[0].len(), 21);
        assert_eq!(r[0][11], "ALLCAPS");
        assert_eq!(r[0][20], "XXXX");
        assert_eq!(r[2][20], "Xxxx");
    }
}
