/*!
PDF endpoints. `/api/processHeaderDocument` (POST or PUT, multipart): the header cascade
(`quire_actors::cascade::header`) over the first pages of `input`, answered as GROBID's header
TEI, as one BibTeX entry when `Accept` asks for `application/x-bibtex`, or as the `debugMode`
dump (`text/plain`) of every model invocation, filtered by `models`.

Parameters: `input` (required), `consolidateHeader` (0-3: 1 merges the matched record of the
consolidation index, 2 adds its DOI, 3 merges only from an extracted DOI; the TEI's parameters
label says what was done), `includeRawAffiliations`, `includeRawCopyrights` (0/1),
`start`/`end` (pages from 1; defaults -1 and 2: the first two pages, as GROBID's code does),
`debugMode` (1 or true), `models` (comma-separated model names; an unknown name is a 400).
Nothing extracted answers 204; layout failures keep their interface codes.
*/

use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use quire::layout::PageRange;
use quire::tei::header::{now_stamp, TeiOptions};
use quire_actors::cascade::header::{HeaderCascade, HeaderRequest};
use quire_actors::cascade::references::{ReferencesCascade, ReferencesRequest};
use quire_actors::{parse_models_filter, Applied};

use crate::app::State;
use crate::error::ApiError;
use crate::params::Params;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route(
        "/api/processHeaderDocument",
        web::post().to(process_header_document),
    )
    .route(
        "/api/processHeaderDocument",
        web::put().to(process_header_document),
    )
    .route("/api/processReferences", web::post().to(process_references))
    .route("/api/processReferences", web::put().to(process_references));
}

const XML: &str = "application/xml; charset=UTF-8";
const BIBTEX: &str = "application/x-bibtex; charset=UTF-8";
const DUMP: &str = "text/plain; charset=UTF-8";

fn wants_bibtex(req: &HttpRequest) -> bool {
    req.headers()
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.to_ascii_lowercase().contains("application/x-bibtex"))
}

/// A strict 0/1 flag (`true`/`false` accepted too); anything else is a 400 naming it.
pub(crate) fn flag(params: &Params, name: &str) -> Result<bool, ApiError> {
    match params.text(name)?.map(str::trim) {
        None | Some("") | Some("0") | Some("false") => Ok(false),
        Some("1") | Some("true") => Ok(true),
        Some(other) => Err(ApiError::invalid(name, format!("`{other}` is not 0 or 1"))),
    }
}

/// The request's options, validated before any work starts.
pub(crate) struct HeaderParams {
    pub(crate) include_raw_affiliations: bool,
    pub(crate) include_raw_copyrights: bool,
    pub(crate) include_discarded_text: bool,
    pub(crate) consolidate_header: i64,
    pub(crate) start: i64,
    pub(crate) end: i64,
    pub(crate) debug: bool,
    pub(crate) models: Option<Vec<String>>,
}

pub(crate) fn header_params(params: &Params) -> Result<HeaderParams, ApiError> {
    let consolidate_header = params.int_range("consolidateHeader", 1, 0, 3)?;
    let start = params.int_range("start", -1, -1, i64::from(u32::MAX))?;
    let end = params.int_range("end", 2, -1, i64::from(u32::MAX))?;
    if start >= 1 && end >= 1 && end < start {
        return Err(ApiError::invalid(
            "end",
            format!("page {end} is before the start page {start}"),
        ));
    }
    let (debug, models) = debug_params(params)?;
    Ok(HeaderParams {
        include_raw_affiliations: flag(params, "includeRawAffiliations")?,
        include_raw_copyrights: flag(params, "includeRawCopyrights")?,
        include_discarded_text: flag(params, "includeDiscardedText")?,
        consolidate_header,
        start,
        end,
        debug,
        models,
    })
}

/// `debugMode` (1 or true) and the `models` filter of the dump (an unknown name is a 400).
pub(crate) fn debug_params(params: &Params) -> Result<(bool, Option<Vec<String>>), ApiError> {
    let debug = match params.text("debugMode")?.map(str::trim) {
        None | Some("") | Some("0") | Some("false") => false,
        Some("1") | Some("true") => true,
        Some(other) => {
            return Err(ApiError::invalid(
                "debugMode",
                format!("`{other}` is not 1 or true"),
            ))
        }
    };
    let models = match params.text("models")? {
        Some(v) if !v.trim().is_empty() => {
            Some(parse_models_filter(v).map_err(|e| ApiError::invalid("models", e))?)
        }
        _ => None,
    };
    Ok((debug, models))
}

async fn process_header_document(
    req: HttpRequest,
    state: State,
    mut params: Params,
) -> Result<HttpResponse, ApiError> {
    let input = params.take_file("input")?;
    let p = header_params(&params)?;
    let bibtex = wants_bibtex(&req);
    let _slot = crate::routes::slot(&state.pool, "processHeaderDocument").await?;
    let out = state
        .pipeline
        .run(HeaderCascade {
            request: HeaderRequest {
                pdf: input,
                range: PageRange::from_grobid(p.start, p.end),
                debug: p.debug,
                flavor: None,
                consolidate_header: p.consolidate_header,
            },
        })
        .await?;
    if let Some(trace) = out.trace.filter(|_| p.debug) {
        return Ok(HttpResponse::Ok()
            .content_type(DUMP)
            .body(trace.format(p.models.as_deref())));
    }
    if out.record.is_empty() {
        return Err(ApiError::NoContent);
    }
    if bibtex {
        return Ok(HttpResponse::Ok()
            .content_type(BIBTEX)
            .body(quire::bibtex::header_entry(&out.record)));
    }
    Ok(HttpResponse::Ok()
        .content_type(XML)
        .body(header_tei(out.record, &p, &out.consolidation)))
}

/// The header TEI of processHeaderDocument (also `quire batch --endpoint header`).
pub(crate) fn header_tei(
    record: quire::document::HeaderRecord,
    p: &HeaderParams,
    applied: &Applied,
) -> String {
    let opt = TeiOptions {
        include_raw_affiliations: p.include_raw_affiliations,
        include_raw_copyrights: p.include_raw_copyrights,
        include_raw_citations: false,
        include_discarded_text: p.include_discarded_text,
        start_page: p.start.max(0),
        end_page: p.end,
        // What was done, not what was asked.
        consolidate_header: applied.value as u8,
        consolidation: applied.note.clone(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        when: now_stamp(),
        ..Default::default()
    };
    // With the statements of the laid-out pages in its `back` (docs/metadata.md).
    quire::tei::header::to_tei(&record, &opt)
}

/// processReferences: the bibliography of the whole document as GROBID's `listBibl` envelope
/// (`biblStruct xml:id="b0"…` in document order; `<listBibl/>` when the document has no
/// references), BibTeX entries keyed `0`, `1`, … with `Accept: application/x-bibtex`, or the
/// debug dump of the reference-segmenter, citation, name-citation and date invocations.
/// `consolidateCitations` (0-2): consolidated references get `status="consolidated"`.
async fn process_references(
    req: HttpRequest,
    state: State,
    mut params: Params,
) -> Result<HttpResponse, ApiError> {
    let input = params.take_file("input")?;
    let consolidate_citations = params.int_range("consolidateCitations", 0, 0, 2)?;
    let include_raw = flag(&params, "includeRawCitations")?;
    let (debug, models) = debug_params(&params)?;
    let bibtex = wants_bibtex(&req);
    let _slot = crate::routes::slot(&state.pool, "processReferences").await?;
    let out = state
        .pipeline
        .run(ReferencesCascade {
            request: ReferencesRequest {
                pdf: input,
                range: PageRange::default(),
                debug,
                consolidate_citations,
            },
        })
        .await?;
    if let Some(trace) = out.trace.filter(|_| debug) {
        return Ok(HttpResponse::Ok()
            .content_type(DUMP)
            .body(trace.format(models.as_deref())));
    }
    let citations: Vec<quire::models::citation::Citation> =
        out.references.into_iter().map(|r| r.citation).collect();
    if bibtex {
        return Ok(HttpResponse::Ok()
            .content_type(BIBTEX)
            .body(quire::bibtex::entries(&citations, include_raw)));
    }
    Ok(HttpResponse::Ok()
        .content_type(XML)
        .body(quire::tei::list_bibl(&citations, include_raw)))
}
