/*!
The patent citation services (interface "Patent citation services", "PDF annotation
services"; grobid-service.md §5.5, §5.8): `processCitationPatentTXT` (form `input`: the
description as text), `processCitationPatentST36` (multipart `input`: an ST.36 XML file),
`processCitationPatentPDF` (multipart `input`: a PDF with a text layer, laid out by the worker
processes), all POST or PUT and answering TEI; and `citationPatentAnnotations` (POST,
multipart PDF) answering JSON with page boxes.

Parameters: `input` (required; empty is a 400), `consolidateCitations` (0-2) and
`includeRawCitations` (0/1, for the non-patent citations). A text without citations is a 200
whose `<text>` has no `<div>`. Malformed ST.36 is `BAD_INPUT_DATA` naming the problem.
*/

use actix_web::{web, HttpResponse};
use quire_actors::cascade::patent::{PatentCascade, PatentInput, PatentOutput};

use crate::app::State;
use crate::error::ApiError;
use crate::params::Params;
use crate::routes::pdf::flag;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/api/processCitationPatentTXT", web::post().to(process_txt))
        .route("/api/processCitationPatentTXT", web::put().to(process_txt))
        .route(
            "/api/processCitationPatentST36",
            web::post().to(process_st36),
        )
        .route(
            "/api/processCitationPatentST36",
            web::put().to(process_st36),
        )
        .route("/api/processCitationPatentPDF", web::post().to(process_pdf))
        .route("/api/processCitationPatentPDF", web::put().to(process_pdf))
        .route(
            "/api/citationPatentAnnotations",
            web::post().to(annotations),
        );
}

const XML: &str = "application/xml; charset=UTF-8";

async fn run(
    state: &State,
    endpoint: &str,
    input: PatentInput,
    consolidate: i64,
) -> Result<PatentOutput, ApiError> {
    let _slot = crate::routes::slot(&state.pool, endpoint).await?;
    Ok(state
        .pipeline
        .run(PatentCascade { input, consolidate })
        .await?)
}

async fn tei(
    state: State,
    params: Params,
    endpoint: &str,
    input: PatentInput,
) -> Result<HttpResponse, ApiError> {
    let consolidate = params.int_range("consolidateCitations", 0, 0, 2)?;
    let include_raw = flag(&params, "includeRawCitations")?;
    let out = run(&state, endpoint, input, consolidate).await?;
    Ok(HttpResponse::Ok()
        .content_type(XML)
        .body(quire::tei::patent::patent_tei(&out.segments, include_raw)))
}

async fn process_txt(state: State, params: Params) -> Result<HttpResponse, ApiError> {
    // As a form field or a file part alike: within `limits.max_text_kb`.
    let text = params.text_document("input", false)?;
    tei(
        state,
        params,
        "processCitationPatentTXT",
        PatentInput::Text(text),
    )
    .await
}

async fn process_st36(state: State, params: Params) -> Result<HttpResponse, ApiError> {
    // Within `limits.max_text_kb` and `limits.max_xml_elements` (its paragraphs).
    let xml = params.text_document("input", true)?;
    tei(
        state,
        params,
        "processCitationPatentST36",
        PatentInput::St36(xml),
    )
    .await
}

async fn process_pdf(state: State, mut params: Params) -> Result<HttpResponse, ApiError> {
    let pdf = params.take_file("input")?;
    tei(
        state,
        params,
        "processCitationPatentPDF",
        PatentInput::Pdf(pdf),
    )
    .await
}

async fn annotations(state: State, mut params: Params) -> Result<HttpResponse, ApiError> {
    let pdf = params.take_file("input")?;
    let consolidate = params.int_range("consolidateCitations", 0, 0, 2)?;
    let out = run(
        &state,
        "citationPatentAnnotations",
        PatentInput::Pdf(pdf),
        consolidate,
    )
    .await?;
    let text = out.pdf.unwrap_or_default();
    let seg = out.segments.into_iter().next().unwrap_or_default();
    Ok(HttpResponse::Ok()
        .content_type("application/json")
        .body(quire::patent::annotations_json(&text, &seg).to_string()))
}
