//! Integration tests: each test starts the real `quire` binary on free 127.0.0.1 ports with a
//! temporary configuration and talks HTTP to it (see `common::Server`).

mod actors;
mod admin;
mod annotations;
mod batch;
mod common;
mod consolidation;
mod consolidation_online;
mod corpus;
mod create_training;
mod errors;
mod fulltext;
mod fulltext_article;
mod grobid_routes;
mod hardening;
mod header;
mod hostile;
mod layout;
mod metadata;
mod patents;
mod pool;
mod readme;
mod references;
mod sandbox;
mod service;
mod tei_shapes;
mod text;
mod training;
mod workers;
