//! Quire actor system (filled in by the foundation work).

pub mod workers;
