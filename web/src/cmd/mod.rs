//! Subcommands of the `quire` binary.
pub mod train;
