/*!
`consolidateTEI` (Quire's own, beyond GROBID): consolidation of TEI written before, so old
outputs gain DOIs and corrected references without their PDFs being parsed again (GROBID users
ask for it, grobid#617). POST or PUT, multipart or form: `input` (the TEI: a full text, a
header, or a processReferences / processCitationList `listBibl`), `consolidateCitations` (0-2,
default 1) and `consolidateHeader` (0-3, default 1). The answer is the same document with the
matched references rewritten in place (`status="consolidated"` and the source note) and the
header's record given the DOI found for it; everything else is unchanged. The
`X-Quire-Consolidation` header says what was done.
*/

use actix_web::{web, HttpResponse};
use quire_actors::cascade::consolidate::ConsolidateTeiCascade;

use crate::app::State;
use crate::error::ApiError;
use crate::params::Params;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/api/consolidateTEI", web::post().to(consolidate_tei))
        .route("/api/consolidateTEI", web::put().to(consolidate_tei));
}

async fn consolidate_tei(state: State, params: Params) -> Result<HttpResponse, ApiError> {
    // Within `limits.max_text_kb` and `limits.max_xml_elements`.
    let tei = params.text_document("input", true)?;
    let citations = params.int_range("consolidateCitations", 1, 0, 2)?;
    let header = params.int_range("consolidateHeader", 1, 0, 3)?;
    let _slot = crate::routes::slot(&state.pool, "consolidateTEI").await?;
    let out = state
        .pipeline
        .run(ConsolidateTeiCascade {
            tei,
            header,
            citations,
        })
        .await?;
    let r = &out.references;
    let mut said = format!(
        "{}; references: {} of {} consolidated",
        r.note.as_deref().unwrap_or("none"),
        r.consolidated,
        r.looked_up
    );
    if let Some(doi) = &out.header_doi {
        said.push_str(&format!("; header DOI added: {doi}"));
    }
    Ok(HttpResponse::Ok()
        .content_type("application/xml; charset=UTF-8")
        .insert_header(("X-Quire-Consolidation", said))
        .body(out.tei))
}
