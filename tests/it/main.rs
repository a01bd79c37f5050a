//! Integration tests: start the real `quire` binary.

mod layout;
