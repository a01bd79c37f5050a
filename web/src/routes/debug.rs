/*!
Test-only routes, off by default. With `debug.test_routes = true`:
- `/debug/sleep?ms=N` holds a processing slot for N ms (to fill the pool and observe 503s);
  with `pipeline=1` the sleep runs as a cascade on the coordinator, under the request's time
  limit (`pool.request_timeout_s`: the TIMEOUT test);
- `/debug/label` labels feature rows (`rows`: one token per line, tab-separated features, a
  blank line between sequences; or `text`: one sequence per line, turned into rows by the
  model's own feature extractor) with `model` through the pool, the coordinator and the model
  actor, and answers `token<TAB>label` lines;
- `/debug/ping?model=M` asks a model actor to answer (proves it is alive after a restart);
- `/debug/layout` lays out the multipart `input` PDF (`start`/`end` as GROBID) in a worker
  process through the pool and the coordinator, and answers page, block and token counts.

With `debug.allow_panic_route = true`, `/debug/panic?model=M` makes the model's actor panic
(the restart test). When disabled, every route answers 404 as an unknown route would.
*/

use std::time::Duration;

use actix_web::{web, HttpResponse};
use futures::future::BoxFuture;
use quire::features::Rows;
use quire::labels::Labels;
use quire::layout::PageRange;
use quire::models::ModelName;
use quire_actors::{Cascade, CascadeCtx};

use crate::app::State;
use crate::error::ApiError;
use crate::params::Params;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/debug/sleep", web::route().to(sleep))
        .route("/debug/label", web::route().to(label))
        .route("/debug/ping", web::route().to(ping))
        .route("/debug/layout", web::route().to(layout))
        .route("/debug/panic", web::route().to(panic));
}

fn enabled(on: bool) -> Result<(), ApiError> {
    if on {
        Ok(())
    } else {
        Err(ApiError::NotFound(
            "debug routes are disabled (config `debug.test_routes`)".to_string(),
        ))
    }
}

fn model_param(params: &Params) -> Result<ModelName, ApiError> {
    let raw = params.required_text("model")?;
    raw.trim()
        .parse::<ModelName>()
        .map_err(|e| ApiError::invalid("model", e))
}

async fn sleep(state: State, params: Params) -> Result<HttpResponse, ApiError> {
    enabled(state.config.debug.test_routes)?;
    let ms = params.int_range("ms", 100, 0, 60_000)?;
    let in_pipeline = params.bool01("pipeline")?;
    let _slot = crate::routes::slot(&state.pool, "debug/sleep").await?;
    let duration = Duration::from_millis(ms as u64);
    if in_pipeline {
        state.pipeline.run(Sleep(duration)).await?;
    } else {
        tokio::time::sleep(duration).await;
    }
    Ok(HttpResponse::Ok().body(format!("slept {ms} ms")))
}

/// A cascade that only waits: the smallest work the coordinator's time limit can stop.
struct Sleep(Duration);

impl Cascade for Sleep {
    type Output = ();
    fn run(self, _ctx: CascadeCtx) -> BoxFuture<'static, Result<(), quire_actors::Error>> {
        Box::pin(async move {
            tokio::time::sleep(self.0).await;
            Ok(())
        })
    }
}

/// Labels given rows with one model: the smallest cascade.
struct LabelRows {
    model: ModelName,
    seqs: Vec<Rows>,
}

impl Cascade for LabelRows {
    type Output = Vec<Labels>;
    fn run(self, ctx: CascadeCtx) -> BoxFuture<'static, Result<Self::Output, quire_actors::Error>> {
        Box::pin(async move { ctx.models.label(self.model, None, self.seqs).await })
    }
}

async fn label(state: State, params: Params) -> Result<HttpResponse, ApiError> {
    enabled(state.config.debug.test_routes)?;
    let model = model_param(&params)?;
    let seqs = match params.text("text")? {
        Some(text) => rows_from_text(model, text)?,
        None => rows_from_param(params.required_text("rows")?),
    };
    let _slot = crate::routes::slot(&state.pool, "debug/label").await?;
    let labels = state
        .pipeline
        .run(LabelRows {
            model,
            seqs: seqs.clone(),
        })
        .await?;
    let body: Vec<String> = seqs
        .iter()
        .zip(&labels)
        .map(|(rows, labels)| {
            rows.iter()
                .zip(labels)
                .map(|(row, label)| format!("{}\t{label}", row.first().map_or("", |t| t.as_str())))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect();
    Ok(HttpResponse::Ok().body(body.join("\n\n")))
}

fn rows_from_param(rows: &str) -> Vec<Rows> {
    rows.split("\n\n")
        .map(|seq| {
            seq.lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| l.split('\t').map(quire::features::Feature::from).collect())
                .collect::<Rows>()
        })
        .filter(|s| !s.is_empty())
        .collect()
}

fn rows_from_text(model: ModelName, text: &str) -> Result<Vec<Rows>, ApiError> {
    let spec = quire::training::spec(model, None).ok_or_else(|| {
        ApiError::invalid("model", format!("Quire has no definition of `{model}` yet"))
    })?;
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            spec.rows_from_text(line).ok_or_else(|| {
                ApiError::invalid(
                    "text",
                    format!("`{model}` is not a text model; send `rows`"),
                )
            })
        })
        .collect()
}

async fn ping(state: State, params: Params) -> Result<HttpResponse, ApiError> {
    enabled(state.config.debug.test_routes)?;
    let model = model_param(&params)?;
    let starts = state.models.ping(model).await?;
    Ok(HttpResponse::Ok().body(format!(
        "{model} actor answered; started {starts} time(s), restarted {}",
        state.models.restarts(model)
    )))
}

async fn panic(state: State, params: Params) -> Result<HttpResponse, ApiError> {
    enabled(state.config.debug.allow_panic_route)?;
    let model = model_param(&params)?;
    state.models.panic_for_test(model).await?;
    Ok(HttpResponse::Ok().body("no panic happened"))
}

/// Lays out a PDF in a worker process: the PDF path of the pipeline, without any model.
struct LayoutPdf {
    pdf: Vec<u8>,
    range: PageRange,
}

impl Cascade for LayoutPdf {
    type Output = quire::layout::Document;
    fn run(self, ctx: CascadeCtx) -> BoxFuture<'static, Result<Self::Output, quire_actors::Error>> {
        Box::pin(async move { Ok(ctx.pdf()?.layout(self.pdf, self.range).await?) })
    }
}

async fn layout(state: State, mut params: Params) -> Result<HttpResponse, ApiError> {
    enabled(state.config.debug.test_routes)?;
    let pdf = params.take_file("input")?;
    let start = params.int_range("start", -1, -1, 100_000)?;
    let end = params.int_range("end", -1, -1, 100_000)?;
    let _slot = crate::routes::slot(&state.pool, "debug/layout").await?;
    let doc = state
        .pipeline
        .run(LayoutPdf {
            pdf,
            range: PageRange::from_grobid(start, end),
        })
        .await?;
    Ok(HttpResponse::Ok().json(serde_json::json!({
        "pages": doc.pages.len(),
        "blocks": doc.block_count(),
        "tokens": doc.token_count(),
    })))
}
