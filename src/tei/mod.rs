/*!
TEI writers: structures in, text out.
*/

pub mod header;
