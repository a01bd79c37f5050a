/*!
GROBID 0.9 routes beyond the common ones (`docs/grobid-routes.md` lists every route of
GROBID's REST service with Quire's answer):

- `POST /api/processHeaderFundingDocument` (multipart `input`; `consolidateHeader` 0-3,
  `consolidateFunders` 0-2, `includeRawAffiliations`, `includeRawCopyrights`,
  `includeDiscardedText`): the whole PDF through the full-text cascade, answered as a TEI
  holding the header (with its `funder` entries) and the back matter's acknowledgement and
  funding sections with their `listOrg type="funding"`; no body text and no bibliography, as
  GROBID's header-and-funding answer.
- `POST /api/processFundingAcknowledgement` (form `text`; `generateIDs`, `segmentSentences`):
  the statement labelled by the funding-acknowledgement model, answered as a TEI `<p>` with the
  entities inline (`quire::tei::funding`). GROBID sends this XML as `application/json`; Quire
  sends `application/xml`.
- `GET /api/grobid`: GROBID's short HTML description of the service.
- The paths GROBID 0.9 declares but binds to nothing (`processHeaderDocumentHTML`,
  `processFulltextDocumentHTML`, `sha1`, `allProperties`, `changePropertyValue`,
  `processCitationPatentTEI`): 404, as GROBID answers, with a coded message naming what to use
  instead.
*/

use actix_web::http::header::ContentType;
use actix_web::{web, HttpResponse};
use quire_actors::cascade::fulltext::{FulltextCascade, FulltextRequest};
use quire_actors::cascade::funding::FundingStatementCascade;

use crate::app::State;
use crate::error::ApiError;
use crate::params::Params;
use crate::routes::fulltext::FulltextParams;
use crate::routes::pdf::flag;

/// GROBID paths without a resource method, and what to use instead (the 404's message).
pub const UNBOUND: [(&str, &str); 6] = [
    (
        "processHeaderDocumentHTML",
        "GROBID 0.9 declares this path but serves nothing there; use processHeaderDocument \
         (TEI), and `quire convert` or the console for a readable rendering",
    ),
    (
        "processFulltextDocumentHTML",
        "GROBID 0.9 declares this path but serves nothing there; use processFulltextDocument \
         (TEI), and `quire convert --to markdown` or the console's Markdown view",
    ),
    (
        "sha1",
        "GROBID's old digest route is not served by GROBID 0.9 either; compute the digest \
         client-side",
    ),
    (
        "allProperties",
        "GROBID's old property routes are not served by GROBID 0.9 either; Quire's settings \
         are config.toml and QUIRE_* variables, its state is at /api/health",
    ),
    (
        "changePropertyValue",
        "GROBID's old property routes are not served by GROBID 0.9 either; change config.toml \
         (or a QUIRE_* variable) and restart",
    ),
    (
        "processCitationPatentTEI",
        "commented out in GROBID 0.9; use processCitationPatentST36, processCitationPatentPDF \
         or processCitationPatentTXT",
    ),
];

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route(
        "/api/processHeaderFundingDocument",
        web::post().to(header_funding),
    )
    .route(
        "/api/processFundingAcknowledgement",
        web::post().to(funding_acknowledgement),
    )
    .route("/api/grobid", web::get().to(description));
    for (name, hint) in UNBOUND {
        let path = ["/api", name].join("/");
        cfg.route(
            &path,
            web::route().to(move || async move {
                Err::<HttpResponse, _>(ApiError::NotFound(format!("/api/{name}: {hint}")))
            }),
        );
    }
}

const XML: &str = "application/xml; charset=UTF-8";

async fn description() -> HttpResponse {
    HttpResponse::Ok()
        .content_type(ContentType::html())
        .body(format!(
            "<h4>Quire {} (GROBID 0.9 interface)</h4><p>Scholarly PDFs and raw bibliographic \
         strings to TEI XML. The services are described at \
         <a href='/api/openapi.json'>/api/openapi.json</a>; the console is at \
         <a href='/'>/</a>.</p>",
            env!("CARGO_PKG_VERSION")
        ))
}

/// The parameters of processHeaderFundingDocument, as full-text options (whole document).
fn header_funding_params(params: &Params) -> Result<FulltextParams, ApiError> {
    // Read for validation: a 0/1 flag, as on the other routes taking it.
    flag(params, "includeDiscardedText")?;
    Ok(FulltextParams {
        consolidate_header: params.int_range("consolidateHeader", 1, 0, 3)?,
        consolidate_funders: params.int_range("consolidateFunders", 0, 0, 2)?,
        include_raw_affiliations: flag(params, "includeRawAffiliations")?,
        include_raw_copyrights: flag(params, "includeRawCopyrights")?,
        start: -1,
        end: -1,
        ..FulltextParams::default()
    })
}

async fn header_funding(state: State, mut params: Params) -> Result<HttpResponse, ApiError> {
    let pdf = params.take_file("input")?;
    let p = header_funding_params(&params)?;
    let _slot = crate::routes::slot(&state.pool, "processHeaderFundingDocument").await?;
    let out = state
        .pipeline
        .run(FulltextCascade {
            request: FulltextRequest {
                pdf,
                range: p.range(),
                debug: false,
                flavor: None,
                consolidate_header: p.consolidate_header,
                consolidate_citations: 0,
                consolidate_funders: p.consolidate_funders,
            },
        })
        .await?;
    let mut article = out.article;
    // The header and the funding statements: no body text, no bibliography.
    article.body = Default::default();
    article.references.clear();
    article.back.availability.clear();
    article.back.annex.clear();
    if article.header.is_empty() && article.back.is_empty() {
        return Err(ApiError::NoContent);
    }
    let opt = FulltextParams::with_consolidation(
        p.tei_options(state.config.sentence_segmenter()),
        &out.header_consolidation,
        &out.citation_consolidation,
        &out.funder_consolidation,
    );
    Ok(HttpResponse::Ok()
        .content_type(XML)
        .body(quire::tei::header::article_tei(&article, &opt)))
}

async fn funding_acknowledgement(state: State, params: Params) -> Result<HttpResponse, ApiError> {
    let text = params.raw_string("text")?.replace('\t', " ");
    let generate_ids = flag(&params, "generateIDs")?;
    let segment = flag(&params, "segmentSentences")?;
    let _slot = crate::routes::slot(&state.pool, "processFundingAcknowledgement").await?;
    let out = state
        .pipeline
        .run(FundingStatementCascade { text: text.clone() })
        .await?;
    let ents = quire::tei::funding::entities(&text, &out.toks, &out.spans);
    let sentences = segment.then(|| {
        let protected: Vec<_> = ents.iter().map(|(r, _)| r.clone()).collect();
        state.config.sentence_segmenter().split(&text, &protected)
    });
    let tei = quire::tei::funding::statement_tei(&text, &ents, sentences.as_deref(), generate_ids);
    Ok(HttpResponse::Ok().content_type(XML).body(tei))
}
