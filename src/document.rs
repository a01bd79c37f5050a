/*!
The document record: what Quire extracts from one PDF, independent of how it is written out.
The models' decoders fill it; the TEI and BibTeX writers (`tei/`, `bibtex`) only read it.

- [`HeaderRecord`]: title, authors with names, e-mails and affiliations, abstract, keywords,
  identifiers, journal data and the upload's MD5.
- [`Article`]: the whole document record (header and references) the TEI writer reads.
- [`Reference`]: one entry of the bibliography: the parsed citation, the marker printed before
  it (`[12]`, `12.`), and the boxes it covers on the pages (for coordinates and annotations).
- The records the decoders fill and every writer reads: [`Person`], [`Date`], [`Affiliation`],
  [`Citation`]. Their decoders live in `models::{name, date, affiliation, citation}`, which
  re-export them; this module imports no model.
*/

use crate::layout::BBox;

/// One author: the name model's person, an e-mail, and the affiliations attached to it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Author {
    pub person: Person,
    pub email: Option<String>,
    /// Indices into [`HeaderRecord::affiliations`].
    pub affiliations: Vec<usize>,
    /// Where the name is printed, one box per line fragment (empty when it could not be
    /// traced to the header's tokens).
    pub coords: Vec<PageBox>,
    /// The author's ORCID iD (`0000-0002-1825-0097`), printed or linked from the name, its
    /// check digit verified ([`crate::metadata::orcid`]).
    pub orcid: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct HeaderRecord {
    pub title: Option<String>,
    /// Where the title is printed, one box per line fragment (empty when not traced).
    pub title_coords: Vec<PageBox>,
    pub authors: Vec<Author>,
    pub affiliations: Vec<Affiliation>,
    /// Per affiliation, where it is printed (empty when not traced; may be shorter than
    /// `affiliations`).
    pub affiliation_coords: Vec<Vec<PageBox>>,
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
    /// Funding statements the header model found in the front matter (`<funding>` spans), in
    /// order; the full text writes them in the back matter as GROBID does.
    pub funding: Vec<String>,
    /// Data-availability statements of the front matter (`<availability>` spans), in order.
    pub availability: Vec<String>,
    /// Front-matter text labelled abstract that the abstract leaves out
    /// ([`crate::models::header_record::left_out_abstract`]); the full text opens the body
    /// with it.
    pub front_text: Vec<FrontText>,
    /// Upper-case hex MD5 of the uploaded bytes.
    pub md5: Option<String>,
    /// An open-access link to the article, from a consolidation record.
    pub oa_url: Option<String>,
    /// Where the words of the abstract, and of each funding and availability statement, are
    /// printed ([`align_words`]; empty when not traced): their sentences' `coords`.
    pub abstract_tokens: Vec<TokenBox>,
    pub funding_tokens: Vec<Vec<TokenBox>>,
    pub availability_tokens: Vec<Vec<TokenBox>>,
    /// Text of the front matter no field took, written with `includeDiscardedText`.
    pub discarded: Vec<Discarded>,
    /// The document's language (ISO 639-1, `en`), from its abstract and text
    /// ([`crate::metadata::lang`]).
    pub language: Option<String>,
    /// The language of [`HeaderRecord::abstract_text`].
    pub abstract_lang: Option<String>,
    /// Further abstracts of a multilingual front page (a Portuguese paper's English
    /// abstract), each with its language, in printed order after the first.
    pub other_abstracts: Vec<OtherAbstract>,
    /// The licence and copyright the paper prints or links ([`crate::metadata::licence`]).
    pub licence: Option<Licence>,
    /// Statements found in the laid-out pages (conflict of interest, author contributions,
    /// ethics, …) that the full text files in its back matter and the header answer writes
    /// in its `back` ([`crate::metadata::statements`]).
    pub statements: Vec<Statement>,
}

/// One more abstract of a multilingual front page.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OtherAbstract {
    pub lang: Option<String>,
    pub text: String,
}

/// A Creative Commons licence (or none), who holds the copyright, and the printed statement.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Licence {
    /// The Creative Commons licence: `by`, `by-nc-nd`, `zero` (CC0)…; `None` when the paper
    /// prints only a copyright line.
    pub cc: Option<String>,
    /// Its version (`4.0`), when printed or linked.
    pub version: Option<String>,
    /// `true` for a copyright reserved to its holder ("All rights reserved") without a
    /// Creative Commons licence.
    pub reserved: bool,
    /// Who holds the copyright, as GROBID names it: `authors` or `publisher`.
    pub holder: Option<String>,
    /// The printed statement (licence sentence or copyright line).
    pub raw: Option<String>,
}

/// What a statement is about; its name is the `div/@type` of the TEI back matter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StatementKind {
    Acknowledgement,
    Funding,
    Availability,
    Conflict,
    Contribution,
    Ethics,
}

impl StatementKind {
    /// Every kind, in the back matter's order.
    pub const ALL: [StatementKind; 6] = [
        StatementKind::Acknowledgement,
        StatementKind::Funding,
        StatementKind::Availability,
        StatementKind::Conflict,
        StatementKind::Contribution,
        StatementKind::Ethics,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            StatementKind::Acknowledgement => "acknowledgement",
            StatementKind::Funding => "funding",
            StatementKind::Availability => "availability",
            StatementKind::Conflict => "conflict",
            StatementKind::Contribution => "contribution",
            StatementKind::Ethics => "ethics",
        }
    }
}

/// A piece of front-matter text the abstract leaves out ([`HeaderRecord::front_text`]): the
/// body's section head that opened it where one did (`Statement of need`), its text, and where
/// its words are printed (empty when not traced).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FrontText {
    pub head: Option<String>,
    pub text: String,
    pub tokens: Vec<TokenBox>,
}

impl FrontText {
    pub fn plain(text: impl Into<String>) -> Self {
        FrontText {
            text: text.into(),
            ..FrontText::default()
        }
    }
}

/// One statement: its kind, the printed head (`Competing interests`), its text and where its
/// words are printed (ranges into `text`; empty when they could not be placed).
#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    pub kind: StatementKind,
    pub head: Option<String>,
    pub text: String,
    pub tokens: Vec<TokenBox>,
}

/// A piece of text no model kept (GROBID's "discarded text"): the segmentation's `other`
/// zones, the header model's `other` spans.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Discarded {
    /// The model that set it aside (`segmentation`, `header`): the note's `place`.
    pub place: String,
    pub text: String,
    /// Where it is printed, one box per line fragment.
    pub boxes: Vec<PageBox>,
}

/// The printed words of a text made from them (`words`: each word as printed and its box, in
/// reading order) as the text's [`TokenBox`]es: each word is looked up in `text` from where
/// the previous one ended, a few characters on at most (one for a lone mark), so the words a
/// clean-up dropped (a leading `Abstract`, a hyphen joined away) are skipped without losing
/// the place.
pub fn align_words<'w>(
    text: &str,
    words: impl IntoIterator<Item = (&'w str, u32, BBox)>,
) -> Vec<TokenBox> {
    let mut out = Vec::new();
    let mut at = 0;
    for (w, page, bbox) in words {
        let w = w.trim();
        if w.is_empty() || at >= text.len() {
            continue;
        }
        let reach = if w.chars().count() == 1 && !w.chars().all(char::is_alphanumeric) {
            1
        } else {
            16
        };
        // Only a window past the cursor is searched (four bytes a character at most).
        let mut end = (at + 4 * reach + w.len()).min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let Some(k) = text[at..end].find(w) else {
            continue;
        };
        if text[at..at + k].chars().count() > reach {
            continue;
        }
        let start = at + k;
        out.push(TokenBox {
            range: start..start + w.len(),
            page,
            bbox,
        });
        at = start + w.len();
    }
    out
}

/// Where the words of `text`, a piece cut out of a longer printed text, are printed: the
/// words of the longer text ([`align_words`]) from the word that opens `text` (of those that
/// do, the one whose run spells most of it). Empty unless the run spells at least four fifths
/// of the text.
pub fn place_words(text: &str, words: &[(&str, u32, BBox)]) -> Vec<TokenBox> {
    let mut best: (usize, Vec<TokenBox>) = (0, Vec::new());
    for k in 0..words.len() {
        let w = words[k].0.trim();
        if w.is_empty() || !text.starts_with(w) {
            continue;
        }
        let boxes = align_words(text, words[k..].iter().copied());
        let reach = boxes.last().map_or(0, |t| t.range.end);
        if reach > best.0 {
            best = (reach, boxes);
        }
        if reach == text.len() {
            break;
        }
    }
    if best.0 * 5 >= text.len() * 4 {
        best.1
    } else {
        Vec::new()
    }
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

/// One document as Quire extracts it: header, body, back matter and bibliography. The TEI
/// writer ([`crate::tei::article::article_tei`]) reads it; the header endpoint fills only
/// `header`, processReferences only `references`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Article {
    pub header: HeaderRecord,
    pub body: Body,
    pub back: Back,
    pub references: Vec<Reference>,
    /// The laid-out pages as (page number from 1, width, height in PDF units), in order: the
    /// TEI `facsimile` (with `start`/`end` the first entry need not be page 1).
    pub pages: Vec<(u32, f32, f32)>,
}

// ---------------------------------------------------------------------------------------------
// Full text: body and back matter (reference grobid-service §5.2, §5.3)

/// Text as printed, with the callouts inside it and where each token sits on the page. Every
/// textual element of the body (paragraph, head, caption, formula, note) is one of these, so
/// the writer can cut sentences, place `ref`s and compute `coords` from the same facts.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RichText {
    /// The text, tokens joined by their separators, line-end hyphens of continued words
    /// removed, whitespace collapsed to single spaces, no leading or trailing space.
    pub text: String,
    /// Callouts, by byte range of `text`, sorted and not overlapping.
    pub refs: Vec<Callout>,
    /// Each token's byte range in `text` and its box, in text order.
    pub tokens: Vec<TokenBox>,
}

/// One token of a [`RichText`]: its byte range in the text and its box on the page.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenBox {
    pub range: std::ops::Range<usize>,
    pub page: u32,
    pub bbox: BBox,
}

/// A callout in running text (`[12]`, `Fig. 2`, `Table 1`, `(3)`, a footnote mark).
#[derive(Debug, Clone, PartialEq)]
pub struct Callout {
    pub kind: CalloutKind,
    /// Byte range of the callout in its [`RichText`]'s text.
    pub range: std::ops::Range<usize>,
    /// The id of what it points at, without `#` (`b3`, `fig_0`, `tab_1`, `formula_2`, a note
    /// id); `None` when it could not be resolved (the callout is kept, without `target`).
    pub target: Option<String>,
}

/// What a callout points at: the TEI `ref/@type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CalloutKind {
    Bibr,
    Figure,
    Table,
    Formula,
    Foot,
}

impl CalloutKind {
    pub fn as_str(self) -> &'static str {
        match self {
            CalloutKind::Bibr => "bibr",
            CalloutKind::Figure => "figure",
            CalloutKind::Table => "table",
            CalloutKind::Formula => "formula",
            CalloutKind::Foot => "foot",
        }
    }
}

/// The body: sections in reading order, then figures and tables, then notes.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Body {
    /// Sections; text before the first head forms a first `Div` without head.
    pub divs: Vec<Div>,
    /// Figures and tables, in document order (`fig_0…`, `tab_0…`).
    pub figures: Vec<Figure>,
    /// Footnotes and margin notes of the body.
    pub notes: Vec<Note>,
}

impl Body {
    pub fn is_empty(&self) -> bool {
        self.divs.is_empty() && self.figures.is_empty() && self.notes.is_empty()
    }
}

/// A section: an optional head and its blocks.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Div {
    pub head: Option<Head>,
    pub blocks: Vec<BodyBlock>,
}

/// A section title; `n` is the detected section number (`2.1`), removed from `text`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Head {
    pub n: Option<String>,
    pub text: RichText,
}

/// What a section holds.
#[derive(Debug, Clone, PartialEq)]
pub enum BodyBlock {
    Paragraph(RichText),
    /// A list: one `item` each.
    List(Vec<RichText>),
    Formula(Formula),
}

/// A display formula: `xml:id` `formula_N`, its text and printed label (`(3)`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Formula {
    pub id: String,
    pub text: RichText,
    pub label: Option<String>,
}

/// A figure or a table (`figure` / `figure type="table"`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Figure {
    /// `fig_N` or `tab_N`.
    pub id: String,
    pub is_table: bool,
    /// The caption's lead (`Fig. 1.`, `Table 2`).
    pub head: Option<String>,
    /// The number in the lead (`1`).
    pub label: Option<String>,
    /// The caption text.
    pub desc: Option<RichText>,
    /// Images and drawings of the figure.
    pub graphics: Vec<Graphic>,
    /// A table's rows of cells.
    pub rows: Vec<Vec<Cell>>,
    /// A table's note (text under it). For a figure, the text printed inside it (axis labels,
    /// legends: what the figure span holds before its caption), which GROBID drops and Quire
    /// keeps so that no token is lost.
    pub note: Option<RichText>,
    /// The figure's whole area, one box per page fragment.
    pub boxes: Vec<PageBox>,
}

/// One image or drawing of a figure.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Graphic {
    pub at: PageBox,
    /// `true` for a bitmap, `false` for vector graphics.
    pub bitmap: bool,
    /// The archive entry holding the rendered image (processFulltextAssetDocument only).
    pub url: Option<String>,
}

/// A table cell; `cols` > 1 when it spans columns.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Cell {
    pub text: String,
    pub cols: u32,
}

/// A footnote or margin note.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Note {
    /// The note's `xml:id`, the target of its callouts.
    pub id: String,
    /// `true` for a margin note (`place="margin"`), else a footnote.
    pub margin: bool,
    /// The printed mark (`2`, `*`).
    pub n: Option<String>,
    pub paragraphs: Vec<RichText>,
}

/// The back matter in GROBID's order (acknowledgement, funding, availability, conflict,
/// contribution, then Quire's ethics, annex); the
/// references come from [`Article::references`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Back {
    pub acknowledgement: Vec<Div>,
    pub funding: Vec<Div>,
    pub availability: Vec<Div>,
    /// Conflict-of-interest (competing interests) statements (`div type="conflict"`).
    pub conflict: Vec<Div>,
    /// Author-contribution statements (`div type="contribution"`).
    pub contribution: Vec<Div>,
    /// Ethics statements (approval, consent; `div type="ethics"`, Quire's own type).
    pub ethics: Vec<Div>,
    pub annex: Vec<Div>,
    /// What the funding-acknowledgement model found in the acknowledgement and funding
    /// sections: TEI `listOrg type="funding"` in the back, `funder` in the `titleStmt`.
    pub fundings: Vec<Funding>,
}

impl Back {
    /// Each kind of back matter with its `div/@type`, in GROBID's order (`ethics`, which
    /// GROBID does not write, after GROBID's statements and before the annex).
    pub fn sections(&self) -> impl Iterator<Item = (&'static str, &[Div])> {
        [
            ("acknowledgement", self.acknowledgement.as_slice()),
            ("funding", self.funding.as_slice()),
            ("availability", self.availability.as_slice()),
            ("conflict", self.conflict.as_slice()),
            ("contribution", self.contribution.as_slice()),
            ("ethics", self.ethics.as_slice()),
            ("annex", self.annex.as_slice()),
        ]
        .into_iter()
    }
}

/// One funding: the funder named and the grants given with it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Funding {
    /// The `xml:id` of the `org type="funding"` (`funding_0`…), the funder's `ref` target.
    pub id: String,
    pub funder: Option<String>,
    /// From the Funder Registry (`consolidateFunders`): the funder's DOI (`10.13039/…`) and,
    /// when the registry's name replaced the printed one, the printed form when it was an
    /// acronym (`NSF`), written as the abbreviated name.
    pub funder_doi: Option<String>,
    pub funder_abbreviation: Option<String>,
    pub grant_numbers: Vec<String>,
    pub grant_name: Option<String>,
    pub program: Option<String>,
    pub project: Option<String>,
}

impl Back {
    pub fn is_empty(&self) -> bool {
        self.acknowledgement.is_empty()
            && self.funding.is_empty()
            && self.availability.is_empty()
            && self.conflict.is_empty()
            && self.contribution.is_empty()
            && self.ethics.is_empty()
            && self.annex.is_empty()
            && self.fundings.is_empty()
    }
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

/// A decoded person name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Person {
    pub title: Option<String>,
    pub forename: Option<String>,
    pub middlename: Option<String>,
    pub surname: Option<String>,
    pub suffix: Option<String>,
    /// Affiliation markers found next to the name (`1`, `*`, `a`, …).
    pub markers: Vec<String>,
    /// The surname was printed before the forename (`Smith, John`).
    pub surname_first: bool,
}

/// A decoded date: the raw parts and their numeric values when they make sense.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Date {
    pub year: Option<i32>,
    pub month: Option<u32>,
    pub day: Option<u32>,
    /// The date's text as found.
    pub raw: String,
}

/// A decoded affiliation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Affiliation {
    pub markers: Vec<String>,
    pub departments: Vec<String>,
    pub laboratories: Vec<String>,
    pub institutions: Vec<String>,
    pub addr_lines: Vec<String>,
    pub post_box: Option<String>,
    pub post_code: Option<String>,
    pub settlement: Option<String>,
    pub region: Option<String>,
    pub country: Option<String>,
    /// ISO 3166-1 alpha-2 code of the country, when the lexicon knows it.
    pub country_code: Option<String>,
    /// The affiliation's text as labelled.
    pub raw: String,
}

/// A parsed reference. Text fields hold the labelled text; `authors`, `editors` and `date`
/// are filled by the name and date models.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Citation {
    pub raw: String,
    pub author_text: Option<String>,
    pub editor_text: Option<String>,
    pub date_text: Option<String>,
    pub title: Option<String>,
    pub journal: Option<String>,
    pub booktitle: Option<String>,
    pub series: Option<String>,
    pub institution: Option<String>,
    pub collaboration: Option<String>,
    pub note: Option<String>,
    pub tech: Option<String>,
    pub volume: Option<String>,
    pub issue: Option<String>,
    pub pages: Option<String>,
    pub location: Option<String>,
    pub publisher: Option<String>,
    pub web: Option<String>,
    pub pubnums: Vec<String>,
    pub authors: Vec<Person>,
    pub editors: Vec<Person>,
    pub date: Option<Date>,
    /// ISSN, from a consolidation record.
    pub issn: Option<String>,
    /// An open-access link to the work, from a consolidation record.
    pub oa_url: Option<String>,
    /// Where a consolidation matched this citation from (`embedded`, …); `None` while it is
    /// as extracted.
    pub consolidated: Option<String>,
}

#[cfg(test)]
mod tests {
    #[test]
    fn printed_words_are_found_in_the_text_made_from_them() {
        use super::{align_words, BBox};
        let b = |x: f32| BBox {
            x,
            y: 0.0,
            w: 5.0,
            h: 5.0,
        };
        // `Abstract` was cut off, `exam-` `ple` joined, a `*` dropped.
        let text = "We give an example here.";
        let words = [
            ("Abstract", 1, b(0.0)),
            ("We", 1, b(1.0)),
            ("give", 1, b(2.0)),
            ("*", 1, b(2.5)),
            ("an", 1, b(3.0)),
            ("exam", 1, b(4.0)),
            ("-", 1, b(5.0)),
            ("ple", 1, b(6.0)),
            ("here", 2, b(7.0)),
            (".", 2, b(8.0)),
        ];
        let got: Vec<(&str, u32)> = align_words(text, words)
            .iter()
            .map(|t| (&text[t.range.clone()], t.page))
            .collect();
        assert_eq!(
            got,
            [
                ("We", 1),
                ("give", 1),
                ("an", 1),
                ("exam", 1),
                ("ple", 1),
                ("here", 2),
                (".", 2)
            ]
        );
    }

    #[test]
    fn a_cut_out_text_is_placed_from_the_word_that_opens_it() {
        use super::{place_words, BBox};
        let b = |x: f32| BBox {
            x,
            y: 0.0,
            w: 5.0,
            h: 5.0,
        };
        let words = [
            ("Funding", 1, b(0.0)),
            ("None", 1, b(1.0)),
            ("declared.", 2, b(2.0)),
        ];
        let got = place_words("None declared.", &words);
        assert_eq!(
            got.iter()
                .map(|t| (t.range.clone(), t.page))
                .collect::<Vec<_>>(),
            [(0..4, 1), (5..14, 2)]
        );
        // No word opens the text, or the run spells less than four fifths of it.
        assert_eq!(place_words("Nothing to declare here.", &words), []);
        let short = [("The", 1, b(0.0)), ("authors", 1, b(1.0))];
        assert_eq!(place_words("The authors declare no conflict.", &short), []);
    }

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
