//! Subcommands of the `quire` binary that are not the HTTP service.

pub mod layout;
pub mod worker;
