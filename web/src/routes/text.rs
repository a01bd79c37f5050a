/*!
The raw-string endpoints (interface "Raw text to TEI"; grobid-service.md §4.3, §4.4, §5.7):
processDate, processHeaderNames, processCitationNames, processAffiliations, processCitation
(POST and PUT) and processCitationList (POST; PUT accepted too). Bodies may be form-encoded or
multipart. Each request takes a pool slot, runs its string cascade on the coordinator and
answers `application/xml` (GROBID sends `text/plain` for four of them), or BibTeX when the
`Accept` header asks for `application/x-bibtex`; 204 when nothing could be parsed.
*/

use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use quire::models::citation::Citation;
use quire::strings_eval::StringModel;
use quire_actors::cascade::strings::{
    AffiliationsCascade, CitationsCascade, DateCascade, NamesCascade,
};
use quire_actors::Pipeline;

use crate::app::State;
use crate::error::ApiError;
use crate::params::Params;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/api/processDate", web::post().to(process_date))
        .route("/api/processDate", web::put().to(process_date))
        .route(
            "/api/processHeaderNames",
            web::post().to(process_header_names),
        )
        .route(
            "/api/processHeaderNames",
            web::put().to(process_header_names),
        )
        .route(
            "/api/processCitationNames",
            web::post().to(process_citation_names),
        )
        .route(
            "/api/processCitationNames",
            web::put().to(process_citation_names),
        )
        .route(
            "/api/processAffiliations",
            web::post().to(process_affiliations),
        )
        .route(
            "/api/processAffiliations",
            web::put().to(process_affiliations),
        )
        .route("/api/processCitation", web::post().to(process_citation))
        .route("/api/processCitation", web::put().to(process_citation))
        .route(
            "/api/processCitationList",
            web::post().to(process_citation_list),
        )
        .route(
            "/api/processCitationList",
            web::put().to(process_citation_list),
        );
}

/// Raw-string requests carrying more text than this give the allocator's free memory back to
/// the system when they end (the tagging of 1 MB of citations takes hundreds of MB).
const LARGE_REQUEST_BYTES: usize = 64 * 1024;

const XML: &str = "application/xml; charset=UTF-8";
const BIBTEX: &str = "application/x-bibtex; charset=UTF-8";

fn xml(body: String) -> Result<HttpResponse, ApiError> {
    if body.trim().is_empty() {
        return Err(ApiError::NoContent);
    }
    Ok(HttpResponse::Ok().content_type(XML).body(body))
}

fn wants_bibtex(req: &HttpRequest) -> bool {
    req.headers()
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.to_ascii_lowercase().contains("application/x-bibtex"))
}

/// Newlines and tabs count as spaces for dates and names (GROBID does the same).
fn one_line(s: &str) -> String {
    s.replace(['\n', '\r', '\t'], " ")
}

/// The citation of one reference string, through the pipeline.
async fn citation_of(
    pipeline: &Pipeline,
    text: String,
    consolidate: i64,
) -> Result<Citation, quire_actors::Error> {
    let mut cits = pipeline
        .run(CitationsCascade {
            texts: vec![text],
            consolidate,
        })
        .await?;
    Ok(cits.pop().unwrap_or_default())
}

/// What a raw-string endpoint answers for one input string with default options, without the
/// HTTP layer: the TEI body, empty when nothing was parsed (the route answers 204). The routes
/// and `quire eval` (its in-process "decoded" figure) both call this, so the two can only
/// differ by what HTTP itself does.
pub async fn tei_answer(
    pipeline: &Pipeline,
    model: StringModel,
    text: &str,
) -> Result<String, quire_actors::Error> {
    Ok(match model {
        StringModel::Date => {
            let dates = pipeline
                .run(DateCascade {
                    text: one_line(text),
                })
                .await?;
            quire::tei::dates(&dates)
        }
        StringModel::NameHeader | StringModel::NameCitation => {
            let persons = pipeline
                .run(NamesCascade {
                    text: one_line(text),
                    citation: model == StringModel::NameCitation,
                })
                .await?;
            quire::tei::pers_names(&persons)
        }
        StringModel::AffiliationAddress => {
            let affs = pipeline
                .run(AffiliationsCascade {
                    text: text.replace('\t', " "),
                })
                .await?;
            quire::tei::affiliations(&affs)
        }
        StringModel::Citation => {
            let c = citation_of(pipeline, text.to_string(), 0).await?;
            if c.is_empty() {
                String::new()
            } else {
                quire::tei::bibl_struct(&c, quire::tei::BiblOptions::default())
            }
        }
    })
}

async fn process_date(state: State, params: Params) -> Result<HttpResponse, ApiError> {
    let text = params.raw_string("date")?;
    let _slot = crate::routes::slot(&state.pool, "processDate").await?;
    xml(tei_answer(&state.pipeline, StringModel::Date, text).await?)
}

async fn names(state: State, params: Params, citation: bool) -> Result<HttpResponse, ApiError> {
    let text = params.raw_string("names")?;
    let (endpoint, model) = if citation {
        ("processCitationNames", StringModel::NameCitation)
    } else {
        ("processHeaderNames", StringModel::NameHeader)
    };
    let _slot = crate::routes::slot(&state.pool, endpoint).await?;
    xml(tei_answer(&state.pipeline, model, text).await?)
}

async fn process_header_names(state: State, params: Params) -> Result<HttpResponse, ApiError> {
    names(state, params, false).await
}

async fn process_citation_names(state: State, params: Params) -> Result<HttpResponse, ApiError> {
    names(state, params, true).await
}

async fn process_affiliations(state: State, params: Params) -> Result<HttpResponse, ApiError> {
    let text = params.raw_string("affiliations")?;
    let _slot = crate::routes::slot(&state.pool, "processAffiliations").await?;
    xml(tei_answer(&state.pipeline, StringModel::AffiliationAddress, text).await?)
}

/// `consolidateCitations` (0-2: 1 merges the matched record of the consolidation index, 2
/// adds its DOI) and `includeRawCitations`.
fn citation_options(params: &Params) -> Result<(i64, bool), ApiError> {
    let consolidate = params.int_range("consolidateCitations", 0, 0, 2)?;
    let raw = params.text("includeRawCitations")?.map(str::trim);
    match raw {
        None | Some("") | Some("0") | Some("false") => Ok((consolidate, false)),
        Some("1") | Some("true") => Ok((consolidate, true)),
        Some(other) => Err(ApiError::invalid(
            "includeRawCitations",
            format!("`{other}` is not 0 or 1"),
        )),
    }
}

async fn process_citation(
    req: HttpRequest,
    state: State,
    params: Params,
) -> Result<HttpResponse, ApiError> {
    let text = params.raw_string("citations")?.to_string();
    let (consolidate, include_raw) = citation_options(&params)?;
    let _slot = crate::routes::slot(&state.pool, "processCitation").await?;
    let c = citation_of(&state.pipeline, text, consolidate).await?;
    if c.is_empty() {
        return Err(ApiError::NoContent);
    }
    if wants_bibtex(&req) {
        return Ok(HttpResponse::Ok()
            .content_type(BIBTEX)
            .body(quire::bibtex::entry(&c, "-1", include_raw)));
    }
    let opt = quire::tei::BiblOptions {
        id: None,
        include_raw,
        depth: 0,
    };
    xml(quire::tei::bibl_struct(&c, opt))
}

async fn process_citation_list(
    req: HttpRequest,
    state: State,
    params: Params,
) -> Result<HttpResponse, ApiError> {
    if !params.has("citations") {
        return Err(ApiError::missing("citations"));
    }
    let texts: Vec<String> = params
        .raw_strings("citations")?
        .into_iter()
        .map(str::to_string)
        .collect();
    let (consolidate, include_raw) = citation_options(&params)?;
    let _slot = crate::routes::slot(&state.pool, "processCitationList").await?;
    let bytes: usize = texts.iter().map(String::len).sum();
    let cits: Vec<Citation> = state
        .pipeline
        .run(CitationsCascade { texts, consolidate })
        .await?;
    if bytes > LARGE_REQUEST_BYTES {
        crate::allocator::give_back();
    }
    if cits.iter().all(Citation::is_empty) {
        return Err(ApiError::NoContent);
    }
    if wants_bibtex(&req) {
        return Ok(HttpResponse::Ok()
            .content_type(BIBTEX)
            .body(quire::bibtex::entries(&cits, include_raw)));
    }
    xml(quire::tei::list_bibl(&cits, include_raw))
}
