//! The `quire` binary (filled in by the foundation work).
fn main() {}
