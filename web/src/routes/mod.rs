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

/// The interface's suggested wait after a 503, in seconds, for an endpoint given by name
/// (`processHeaderDocument`) or path (`/api/processHeaderDocument`).
pub fn retry_after_s(endpoint: &str) -> u64 {
    let name = endpoint.trim_start_matches('/').trim_start_matches("api/");
    match name {
        "processHeaderDocument" | "processHeaderFundingDocument" => 2,
        "processFulltextDocument"
        | "processFulltextAssetDocument"
        | "annotatePDF"
        | "processCitationPatentTXT"
        | "processCitationPatentST36"
        | "processCitationPatentPDF"
        | "citationPatentAnnotations" => 5,
        "processReferences" | "referenceAnnotations" => 3,
        _ => 1,
    }
}

/// A processing slot of the pool for `endpoint`, refused after `poolMaxWait` with the
/// endpoint's suggested wait ([`retry_after_s`]).
pub(crate) async fn slot(
    pool: &quire_actors::Pool,
    endpoint: &str,
) -> Result<quire_actors::PoolGuard, quire_actors::Error> {
    pool.acquire(endpoint, retry_after_s(endpoint)).await
}

#[cfg(test)]
mod retry_tests {
    use super::retry_after_s;

    #[test]
    fn retry_after_follows_the_interface_table() {
        assert_eq!(retry_after_s("processHeaderDocument"), 2);
        assert_eq!(retry_after_s("/api/processFulltextDocument"), 5);
        assert_eq!(retry_after_s("/api/processCitationPatentPDF"), 5);
        assert_eq!(retry_after_s("processReferences"), 3);
        assert_eq!(retry_after_s("/api/referenceAnnotations"), 3);
        assert_eq!(retry_after_s("/api/processDate"), 1);
        assert_eq!(retry_after_s("processCitationList"), 1);
    }
}
