/*!
Every route of the main server. Each endpoint family has its own module with a
`routes(cfg)` function, registered here with one `cfg.configure(...)` line.
*/

pub mod annotations;
pub mod consolidate;
pub mod create_training;
pub mod debug;
pub mod fulltext;
pub mod grobid;
pub mod openapi;
pub mod patent;
pub mod pdf;
pub mod service;
pub mod text;
pub mod training;

use actix_web::web;

pub fn configure(cfg: &mut web::ServiceConfig) {
    // First: its `/console/pages` and `/console/info` come before the console's files.
    cfg.configure(annotations::routes);
    cfg.configure(service::routes);
    cfg.configure(debug::routes);
    cfg.configure(text::routes);
    cfg.configure(pdf::routes);
    cfg.configure(fulltext::routes);
    cfg.configure(consolidate::routes);
    cfg.configure(openapi::routes);
    cfg.configure(training::routes);
    cfg.configure(create_training::routes);
    cfg.configure(patent::routes);
    cfg.configure(grobid::routes);
}
