/*!
Quire's engine: everything that turns bytes into structure, with no HTTP and no actors.

The cascade, as GROBID runs it:

1. `layout` turns a PDF (in a worker process, pdfium) into pages → blocks → lines → tokens.
2. `models::segmentation` labels each line with a document zone (header, body, references, …).
3. `models::header` labels the header zone's tokens (title, author, affiliation, abstract, …).
4. `models::name`, `models::affiliation`, `models::date` parse the fields the header found.
5. `models::citation` parses raw bibliographic strings (and the references zone).
6. `tei` and `bibtex` write the resulting structures out.

Every model is a CRF over feature rows (`features`, `crf`); training and tagging share one
feature extractor per model so the two can never drift apart.
*/

pub mod annotations;
pub mod bibtex;
pub mod body;
pub mod config;
pub mod consolidation;
pub mod coords;
pub mod corpus;
pub mod cpu;
pub mod crf;
pub mod deep;
pub mod document;
pub mod doi;
pub mod error;
pub mod eval;
pub mod features;
pub mod flavor;
pub mod labels;
pub mod layout;
pub mod lexicon;
pub mod links;
pub mod metadata;
pub mod models;
pub mod patent;
pub mod sentence;
pub mod strings_eval;
pub mod tagger;
pub mod tei;
pub mod tokenizer;
pub mod training;

pub use config::EngineConfig;
pub use error::{Error, ErrorCode, Result};

#[cfg(any(test, feature = "testutil"))]
pub mod testutil;
