/*!
Every route of the main server. Each endpoint family has its own module with a
`routes(cfg)` function, registered here with one `cfg.configure(...)` line.
*/

pub mod debug;
pub mod fulltext;
pub mod patent;
pub mod pdf;
pub mod service;
pub mod text;

use actix_web::web;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.configure(service::routes);
    cfg.configure(debug::routes);
    cfg.configure(text::routes);
    cfg.configure(pdf::routes);
    cfg.configure(fulltext::routes);
    cfg.configure(patent::routes);
}
