/*!
Readers for GROBID's training corpora. `layout`: the raw-feature + TEI pairs of the layout
models (segmentation, header).
*/

pub mod layout;
