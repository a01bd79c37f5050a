//! How the TEI corpora of the text models mark their sequences and fields: the [`Rules`] the
//! generic reader ([`super::read_dir`]) follows for the name, affiliation, citation and date
//! corpora. They live with the readers, not the models, because the lexicon builder
//! ([`super::lexicons`]) reads the same corpora; the run-time models never read a corpus.
//! (The funding model's rules stay beside its typed labels in `models::funding`.)

use super::Rules;

/// Corpus rules: each `<author>` block is a sequence (several `persName`s in a header block).
pub struct NameRules;

impl Rules for NameRules {
    fn is_sequence(&self, name: &str) -> bool {
        name == "author"
    }
    fn label(&self, name: &str, _attrs: &[(String, String)]) -> Option<&'static str> {
        match name {
            "forename" | "firstname" | "forenname" => Some("<forename>"),
            "middlename" => Some("<middlename>"),
            "surname" | "lastname" | "surename" => Some("<surname>"),
            "rolename" | "title" => Some("<title>"),
            "suffix" => Some("<suffix>"),
            "marker" => Some("<marker>"),
            _ => None,
        }
    }
}

/// Corpus rules: each `<affiliation>` is a sequence.
pub struct AffiliationRules;

impl Rules for AffiliationRules {
    fn is_sequence(&self, name: &str) -> bool {
        name == "affiliation"
    }
    fn label(&self, name: &str, attrs: &[(String, String)]) -> Option<&'static str> {
        match name {
            "orgname" => {
                let ty = attrs
                    .iter()
                    .find(|(k, _)| k == "type")
                    .map(|(_, v)| v.to_ascii_lowercase());
                match ty.as_deref() {
                    Some("department" | "departement") => Some("<department>"),
                    Some("institution" | "institute" | "consortium") => Some("<institution>"),
                    Some("laboratory") => Some("<laboratory>"),
                    _ => None,
                }
            }
            "addrline" => Some("<addrLine>"),
            "settlement" => Some("<settlement>"),
            "region" => Some("<region>"),
            "postcode" => Some("<postCode>"),
            "postbox" => Some("<postBox>"),
            "country" => Some("<country>"),
            "marker" => Some("<marker>"),
            _ => None,
        }
    }
}

/// Corpus rules: each `<bibl>` is a sequence (reference §2.6 for the element mapping).
pub struct CitationRules;

fn attr<'a>(attrs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    attrs
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

impl Rules for CitationRules {
    fn is_sequence(&self, name: &str) -> bool {
        name == "bibl"
    }
    fn label(&self, name: &str, attrs: &[(String, String)]) -> Option<&'static str> {
        let ty = attr(attrs, "type")
            .or_else(|| attr(attrs, "unit"))
            .map(str::to_ascii_lowercase);
        match name {
            "author" => Some("<author>"),
            "editor" => Some("<editor>"),
            "date" => Some("<date>"),
            "title" => match attr(attrs, "level") {
                Some("j") => Some("<journal>"),
                Some("m") => Some("<booktitle>"),
                Some("s") => Some("<series>"),
                _ => Some("<title>"),
            },
            "orgname" => match ty.as_deref() {
                Some("collaboration") => Some("<collaboration>"),
                _ => Some("<institution>"),
            },
            "institution" => Some("<institution>"),
            "note" => match ty.as_deref() {
                Some("report") => Some("<tech>"),
                _ => Some("<note>"),
            },
            "biblscope" => match ty.as_deref() {
                Some("vol" | "volume") => Some("<volume>"),
                Some("issue" | "number") => Some("<issue>"),
                Some("pp" | "page" | "pages") => Some("<pages>"),
                _ => None,
            },
            "issue" => Some("<issue>"),
            "page" | "pages" => Some("<pages>"),
            "pubplace" => Some("<location>"),
            "publisher" => Some("<publisher>"),
            "ptr" => Some("<web>"),
            "idno" | "pubnum" => Some("<pubnum>"),
            _ => None,
        }
    }
    fn split_digits(&self) -> bool {
        true
    }
}

/// Corpus rules: each `<date>` is a sequence of `<year>`, `<month>`, `<day>` fields.
pub struct DateRules;

impl Rules for DateRules {
    fn is_sequence(&self, name: &str) -> bool {
        name == "date"
    }
    fn label(&self, name: &str, _attrs: &[(String, String)]) -> Option<&'static str> {
        match name {
            "year" => Some("<year>"),
            "month" => Some("<month>"),
            "day" => Some("<day>"),
            _ => None,
        }
    }
}
