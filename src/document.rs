/*!
The document record: what Quire extracts from one PDF, independent of how it is written out.
The models' decoders fill it; the TEI and BibTeX writers (`tei/`, `bibtex`) only read it.

- [`HeaderRecord`]: title, authors with names, e-mails and affiliations, abstract, keywords,
  identifiers, journal data and the upload's MD5.
- [`Article`]: the whole document record (header and references) the TEI writer reads.
- [`Reference`]: one entry of the bibliography: the parsed citation, the marker printed before
  it (`[12]`, `12.`), and the boxes it covers on the pages (for coordinates and annotations).
*/

use crate::layout::BBox;
use crate::models::affiliation::Affiliation;
use crate::models::citation::Citation;
use crate::models::date::Date;
use crate::models::name::Person;

/// One author: the name model's person, an e-mail, and the affiliations attached to it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Author {
    pub person: Person,
    pub email: Option<String>,
    /// Indices into [`HeaderRecord::affiliations`].
    pub affiliations: Vec<usize>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct HeaderRecord {
    pub title: Option<String>,
    pub authors: Vec<Author>,
    pub affiliations: Vec<Affiliation>,
    pub abstract_text: Option<String>,
    pub keywords: Vec<String>,
    pub doi: Option<String>,
    pub arxiv: Option<String>,
    pub journal: Option<String>,
    pub publisher: Option<String>,
    pub volume: Option<String>,
    pub issue: Option<String>,
    pub pages: Option<(String, Option<String>)>,
    pub date: Option<Date>,
    pub copyright: Option<String>,
    pub submission: Option<String>,
    pub meeting: Option<String>,
    /// Upper-case hex MD5 of the uploaded bytes.
    pub md5: Option<String>,
}

impl HeaderRecord {
    /// Nothing was extracted (the endpoint answers 204).
    pub fn is_empty(&self) -> bool {
        self.title.is_none()
            && self.authors.is_empty()
            && self.affiliations.is_empty()
            && self.abstract_text.is_none()
            && self.keywords.is_empty()
            && self.doi.is_none()
            && self.arxiv.is_none()
            && self.journal.is_none()
            && self.date.is_none()
    }
}

/// One document as Quire extracts it: the header and the bibliography (body, notes, figures
/// and tables come later). The TEI writer ([`crate::tei::header::article_tei`]) reads it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Article {
    pub header: HeaderRecord,
    pub references: Vec<Reference>,
}

/// A box on a page: page number from 1, PDF units, origin top-left.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PageBox {
    pub page: u32,
    pub bbox: BBox,
}

/// One bibliography entry of a document (see the module documentation).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Reference {
    pub citation: Citation,
    /// The marker printed before the reference, stripped of brackets and dots (`12`).
    pub marker: Option<String>,
    /// One box per line fragment the reference covers, in reading order.
    pub boxes: Vec<PageBox>,
}

/// Upper-case hex MD5 of `bytes`, as GROBID writes it in `<idno type="MD5">`.
pub fn md5_hex(bytes: &[u8]) -> String {
    use md5::{Digest, Md5};
    let digest = Md5::digest(bytes);
    digest.iter().map(|b| format!("{b:02X}")).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn md5_is_upper_case_hex_of_the_bytes() {
        // RFC 1321 test vectors.
        assert_eq!(super::md5_hex(b""), "D41D8CD98F00B204E9800998ECF8427E");
        assert_eq!(
            super::md5_hex(b"message digest"),
            "F96B697D7CB7938D525A2F31AAF161D0"
        );
    }
}
