/*!
PDF annotation endpoints (interface: PDF annotation services; grobid-service §5.5, §5.9). Both
run the full-text cascade once (`quire_actors::cascade::fulltext`) and read the document
record it produces; nothing of the PDF is re-read in the server.

- `/api/referenceAnnotations` (POST, multipart): `input`, `consolidateCitations` (0-2),
  `includeRawCitations` (0/1, accepted and checked; the JSON has no raw strings),
  `includeFiguresTables` (0/1). Answers `application/json`
  ([`quire::annotations::reference_annotations`]).
- `/api/annotatePDF` (POST, multipart): `input`, `consolidateCitations` (0-2). Answers the
  uploaded PDF with link annotations added ([`quire::annotations::links`]), rewritten by a
  worker process ([`quire_actors::workers::WorkerPool::annotate`]); a PDF the writer cannot
  rewrite fails with `PARSING_ERROR`.
- `/console/pages` (POST, multipart; the console's, not the interface's): `input`, `sizes`
  (`width,height` per page, `;`-separated, as `referenceAnnotations` reports them) and
  `scale` (pixels per PDF unit, 0.25-4, default 1.5). Answers `{"pages": [data URL, …]}`, each
  page rendered to PNG by pdfium in one worker job, so the console needs no PDF library in the
  browser. `/console/info` (GET): `{"adminPort": N, "patent": [names]}`, for the console's link to the
  metrics and its Patent tab (the patent endpoints this server routes).
*/

use actix_web::http::header;
use actix_web::{web, HttpResponse};
use quire::annotations::{links, reference_annotations};
use quire::document::Article;
use quire::layout::render::Region;
use quire::layout::{BBox, PageRange};
use quire_actors::cascade::fulltext::{FulltextCascade, FulltextRequest};

use crate::app::State;
use crate::error::ApiError;
use crate::params::Params;
use crate::routes::fulltext::upload_stem;
use crate::routes::pdf::flag;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route(
        "/api/referenceAnnotations",
        web::post().to(reference_annotations_route),
    )
    .route("/api/annotatePDF", web::post().to(annotate_pdf_route))
    .route("/console/pages", web::post().to(page_images_route))
    .route("/console/info", web::get().to(console_info));
}

/// The admin server's bound port, for the console's link to the metrics (0 until bound).
static ADMIN_PORT: std::sync::atomic::AtomicU16 = std::sync::atomic::AtomicU16::new(0);

/// Records the admin server's bound port (`quire serve`, once both servers are bound).
pub fn set_admin_port(port: u16) {
    ADMIN_PORT.store(port, std::sync::atomic::Ordering::Relaxed);
}

/// The patent endpoints the console's Patent tab calls.
const PATENT_PATHS: [&str; 4] = [
    "/api/processCitationPatentTXT",
    "/api/processCitationPatentST36",
    "/api/processCitationPatentPDF",
    "/api/citationPatentAnnotations",
];

/// `/console/info`: what the console needs to know of the server: `{"adminPort": N,
/// "patent": [the patent endpoints this server routes]}` (so the Patent tab enables itself
/// without probing with a request that would fail in the browser's log).
async fn console_info(state: State, req: actix_web::HttpRequest) -> HttpResponse {
    // The patent endpoints count as served when routed and their model can tag; without a
    // trained patent-citation model they would only answer its absence.
    let model_ready = state
        .models
        .is_available(quire::models::ModelName::PatentCitation);
    let routed: Vec<&str> = PATENT_PATHS
        .into_iter()
        .filter(|p| model_ready && req.resource_map().has_resource(p))
        .map(|p| p.trim_start_matches("/api/"))
        .collect();
    let bound = ADMIN_PORT.load(std::sync::atomic::Ordering::Relaxed);
    let port = if bound == 0 {
        state.config.server.admin_port
    } else {
        bound
    };
    HttpResponse::Ok().json(serde_json::json!({ "adminPort": port, "patent": routed }))
}

/// The article of `pdf`, all pages, citations consolidated as asked.
async fn article(state: &State, pdf: Vec<u8>, consolidate: i64) -> Result<Article, ApiError> {
    let out = state
        .pipeline
        .run(FulltextCascade {
            request: FulltextRequest {
                pdf,
                range: PageRange::default(),
                debug: false,
                flavor: None,
                consolidate_header: 0,
                consolidate_citations: consolidate,
                consolidate_funders: 0,
            },
        })
        .await?;
    Ok(out.article)
}

async fn reference_annotations_route(
    state: State,
    mut params: Params,
) -> Result<HttpResponse, ApiError> {
    params.required_file("input")?;
    let consolidate = params.int_range("consolidateCitations", 0, 0, 2)?;
    flag(&params, "includeRawCitations")?;
    let figures_tables = flag(&params, "includeFiguresTables")?;
    let pdf = params.take_file("input")?;
    let _slot = crate::routes::slot(&state.pool, "referenceAnnotations").await?;
    let a = article(&state, pdf, consolidate).await?;
    let json = serde_json::to_string(&reference_annotations(&a, figures_tables)).map_err(|e| {
        ApiError::Processing {
            code: quire::ErrorCode::General,
            message: format!("cannot write the annotations: {e}"),
        }
    })?;
    Ok(HttpResponse::Ok()
        .content_type("application/json")
        .body(json))
}

async fn annotate_pdf_route(state: State, mut params: Params) -> Result<HttpResponse, ApiError> {
    let input = params.required_file("input")?;
    let stem = upload_stem(input.filename.as_deref());
    let consolidate = params.int_range("consolidateCitations", 0, 0, 2)?;
    let pdf = params.take_file("input")?;
    let _slot = crate::routes::slot(&state.pool, "annotatePDF").await?;
    let Some(workers) = state.pdf_workers.as_ref() else {
        return Err(ApiError::Processing {
            code: quire::ErrorCode::General,
            message: "no PDF worker pool to rewrite the PDF".into(),
        });
    };
    let a = article(&state, pdf.clone(), consolidate).await?;
    let annotated = workers.annotate(pdf, links(&a)).await?;
    Ok(HttpResponse::Ok()
        .content_type("application/pdf")
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"{stem}.annotated.pdf\""),
        ))
        .body(annotated))
}

/// The most pages `/console/pages` renders in one request.
const MAX_PAGES: usize = 200;

/// `sizes` of `/console/pages`: `w,h;w,h…`, each side a positive finite number.
fn page_sizes(sizes: &str) -> Result<Vec<(f32, f32)>, ApiError> {
    let bad = |why: String| ApiError::invalid("sizes", why);
    let out: Vec<(f32, f32)> = sizes
        .split(';')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|pair| {
            let (w, h) = pair
                .split_once(',')
                .ok_or_else(|| bad(format!("`{pair}` is not `width,height`")))?;
            let side = |v: &str| {
                v.trim()
                    .parse::<f32>()
                    .ok()
                    .filter(|x| x.is_finite() && *x > 0.0 && *x < 20_000.0)
                    .ok_or_else(|| bad(format!("`{v}` is not a page side")))
            };
            Ok((side(w)?, side(h)?))
        })
        .collect::<Result<_, ApiError>>()?;
    if out.is_empty() || out.len() > MAX_PAGES {
        return Err(bad(format!("1 to {MAX_PAGES} pages, not {}", out.len())));
    }
    Ok(out)
}

async fn page_images_route(state: State, params: Params) -> Result<HttpResponse, ApiError> {
    use base64::Engine as _;
    let input = params.required_file("input")?;
    let sizes = page_sizes(params.text("sizes")?.unwrap_or(""))?;
    let scale = match params.text("scale")?.map(str::trim) {
        None | Some("") => 1.5,
        Some(v) => v
            .parse::<f32>()
            .ok()
            .filter(|s| (0.25..=4.0).contains(s))
            .ok_or_else(|| ApiError::invalid("scale", format!("`{v}` is not in 0.25-4")))?,
    };
    let regions = sizes
        .iter()
        .enumerate()
        .map(|(i, &(w, h))| Region {
            page: i as u32 + 1,
            bbox: BBox {
                x: 0.0,
                y: 0.0,
                w,
                h,
            },
        })
        .collect();
    let _slot = crate::routes::slot(&state.pool, "consolePages").await?;
    let Some(workers) = state.pdf_workers.as_ref() else {
        return Err(ApiError::Processing {
            code: quire::ErrorCode::General,
            message: "no PDF worker pool to render the pages".into(),
        });
    };
    let pngs = workers.render(input.data.to_vec(), regions, scale).await?;
    let pages: Vec<String> = pngs
        .iter()
        .map(|png| {
            format!(
                "data:image/png;base64,{}",
                base64::engine::general_purpose::STANDARD.encode(png)
            )
        })
        .collect();
    Ok(HttpResponse::Ok().json(serde_json::json!({ "pages": pages })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_sizes_are_read_and_checked() {
        assert_eq!(
            page_sizes("612,792; 595.3,841.9").expect("sizes"),
            [(612.0, 792.0), (595.3, 841.9)]
        );
        for bad in ["", "612", "612,x", "0,792", "612,-1", "612,inf"] {
            let err = page_sizes(bad).expect_err(bad);
            assert!(err.to_string().contains("`sizes`"), "{err}");
        }
    }
}
