/*!
The cascades: one value per kind of request, implementing [`crate::Cascade`]. Each module
holds the cascades of one endpoint family (raw strings, header, full text, …) and is declared
here as it lands.
*/

pub mod consolidate;
pub mod document;
pub mod fulltext;
pub mod funding;
pub mod header;
pub mod patent;
pub mod references;
pub mod strings;
pub mod training;
