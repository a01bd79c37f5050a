/*!
The training services (interface "Training services", grobid-service.md §4.7):
`POST /api/modelTraining`, `POST /api/trainingResult`, `GET|POST /api/model`, and beyond GROBID
`GET /api/training` (every run) and `DELETE /api/training/{token}` (cancel), also under
GROBID's newer names `GET|POST /api/allTraining` and `POST|DELETE /api/killTraining` (`token`
parameter). They are off unless `training.enabled = true` (then 404); that needs
`training.token` (the service refuses to start without it), and each request must send
`Authorization: Bearer <token>` (else 401): no form field or query parameter can stand for it,
and CORS does not apply to these routes (see `crate::app::cors_guard`), so no page on another
site can reach them. Every parameter is checked before a run starts, so a bad value is a 400
naming it and never leaves a training "ongoing". The runs themselves are
child processes (`crate::training`).

`/debug/releaseTraining?token=` (only with `debug.test_routes`) lets a run started with
`hold=1` begin.
*/

use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use quire::flavor::Flavor;
use quire::models::ModelName;
use quire::training::{TrainingKind, DEFAULT_SEED};
use quire_actors::trainer::{
    token_is_well_formed, CancelTraining, ListTrainings, StartTraining, TrainingState,
    TrainingStatus,
};

use crate::app::State;
use crate::error::ApiError;
use crate::params::Params;
use crate::training::{resolve_model, JobSpec, Runner};

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/api/modelTraining", web::post().to(model_training))
        .route("/api/trainingResult", web::post().to(training_result))
        .route("/api/training", web::get().to(list))
        .route("/api/training/{token}", web::delete().to(cancel))
        // GROBID's newer names for the listing and the cancellation.
        .route("/api/allTraining", web::get().to(list))
        .route("/api/allTraining", web::post().to(list))
        .route("/api/killTraining", web::post().to(kill))
        .route("/api/killTraining", web::delete().to(kill))
        .route("/api/model", web::get().to(model_zip))
        .route("/api/model", web::post().to(model_zip))
        .route("/debug/releaseTraining", web::route().to(release));
}

/// Off → 404; a configured token not presented → 401.
fn guard(state: &State, req: &HttpRequest) -> Result<(), ApiError> {
    let t = &state.config.training;
    if !t.enabled {
        return Err(ApiError::NotFound(format!(
            "{} is a training endpoint; they are off (set `training.enabled = true`)",
            req.path()
        )));
    }
    if t.token.trim().is_empty() {
        // Refused at start-up (`Config::validate`); never open if it gets here anyway.
        return Err(ApiError::Unauthorized(
            "training endpoints need `training.token` to be set".to_string(),
        ));
    }
    let presented = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim);
    match presented {
        Some(p) if constant_time_eq(p.as_bytes(), t.token.as_bytes()) => Ok(()),
        Some(_) => Err(ApiError::Unauthorized(
            "wrong training token in the Authorization header".to_string(),
        )),
        None => Err(ApiError::Unauthorized(
            "training endpoints need `Authorization: Bearer <training.token>`".to_string(),
        )),
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// `model`: a known model name (with or without flavour) Quire can train.
fn model_param(params: &Params) -> Result<(ModelName, Option<Flavor>), ApiError> {
    let raw = params.required_text("model")?;
    resolve_model(raw).ok_or_else(|| {
        let known: Vec<_> = ModelName::ALL.iter().map(|m| m.as_str()).collect();
        ApiError::invalid(
            "model",
            format!(
                "unknown model `{}` (known: {})",
                raw.trim(),
                known.join(", ")
            ),
        )
    })
}

/// `architecture`: `CRF` (any case; the default, `wapiti` too) or `BiLSTM-CRF`; GROBID's
/// other deep architectures (ELMo, BERT variants) are not available.
fn architecture_param(params: &Params) -> Result<&'static str, ApiError> {
    let Some(raw) = params.text("architecture")?.map(str::trim) else {
        return Ok(quire::tagger::CRF);
    };
    let lower = raw.to_ascii_lowercase();
    if lower.is_empty() || lower == "wapiti" {
        return Ok(quire::tagger::CRF);
    }
    if let Some(name) = quire::tagger::architecture_name(&lower) {
        return Ok(name);
    }
    if lower.starts_with("bilstm") || lower.starts_with("bidlstm") || lower.contains("bert") {
        return Err(ApiError::invalid(
            "architecture",
            format!("`{raw}` is not available in Quire (CRF or BiLSTM-CRF)"),
        ));
    }
    Err(ApiError::invalid(
        "architecture",
        format!("unknown architecture `{raw}` (CRF, BiLSTM-CRF)"),
    ))
}

/// A number parameter, `None` when absent or empty.
fn float_param(params: &Params, name: &str) -> Result<Option<f64>, ApiError> {
    let Some(raw) = params.text(name)?.map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    raw.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .map(Some)
        .ok_or_else(|| ApiError::invalid(name, format!("`{raw}` is not a number")))
}

/// A 500 `[GENERAL]` with `message`.
/// A 500 of the training routes; file paths are cut to their last component (the API port is
/// public; the server log keeps them whole).
fn internal(message: String) -> ApiError {
    tracing::warn!("training: {message}");
    ApiError::Processing {
        code: quire::ErrorCode::General,
        message: crate::error::scrub_paths(&message),
    }
}

fn mailbox(e: actix::MailboxError) -> ApiError {
    internal(format!("the trainer registry is not answering: {e}"))
}

async fn model_training(
    state: State,
    req: HttpRequest,
    params: Params,
) -> Result<HttpResponse, ApiError> {
    guard(&state, &req)?;
    let (name, flavor) = model_param(&params)?;
    if quire::training::spec(name, flavor).is_none() {
        return Err(ApiError::invalid(
            "model",
            format!(
                "`{}` has no trainable definition in Quire",
                name.dir_name(flavor)
            ),
        ));
    }
    let architecture = architecture_param(&params)?;
    let type_raw = params
        .text("type")?
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .unwrap_or("split")
        .to_ascii_lowercase();
    let ratio = float_param(&params, "ratio")?.unwrap_or(0.9);
    if !(ratio > 0.0 && ratio < 1.0) {
        return Err(ApiError::invalid(
            "ratio",
            format!("{ratio} is not between 0 and 1 (exclusive)"),
        ));
    }
    let n = params.int_range("n", 10, 2, 1000)? as usize;
    let incremental = match params.text("incremental")?.map(str::trim) {
        None | Some("") | Some("0") | Some("false") => false,
        Some("1") | Some("true") => true,
        Some(other) => {
            return Err(ApiError::invalid(
                "incremental",
                format!("`{other}`: expected 0 or 1"),
            ))
        }
    };
    // Incremental: every training starts from the served model's weights.
    let start_dir = if incremental {
        let served = name.dir(&state.config.models.dir, flavor);
        if !quire::tagger::weights_file(&served, architecture).is_file() {
            return Err(ApiError::invalid(
                "incremental",
                format!(
                    "incremental training starts from the served {architecture} model of `{}`, \
                     and there is none here",
                    name.dir_name(flavor)
                ),
            ));
        }
        Some(quire::tagger::architecture_dir(&served, architecture))
    } else {
        None
    };
    let seed = params.int_range("seed", DEFAULT_SEED as i64, 0, i64::MAX)? as u64;
    let kind = match type_raw.as_str() {
        "full" => TrainingKind::Full,
        "holdout" => TrainingKind::Holdout,
        "split" => TrainingKind::Split { ratio, seed },
        "nfold" => TrainingKind::NFold {
            k: n,
            seed,
            only: None,
        },
        other => {
            return Err(ApiError::invalid(
                "type",
                format!("`{other}`: expected full, holdout, split or nfold"),
            ))
        }
    };
    let max_iter = if params.has("maxIter") {
        Some(params.int_range("maxIter", 100, 1, 1_000_000)? as usize)
    } else {
        None
    };
    let epsilon = float_param(&params, "epsilon")?;
    if epsilon.is_some_and(|e| e < 0.0) {
        return Err(ApiError::invalid("epsilon", "must not be negative"));
    }
    let hold = params.bool01("hold")?;
    if hold && !state.config.debug.test_routes {
        return Err(ApiError::invalid(
            "hold",
            "only accepted with `debug.test_routes` (tests)",
        ));
    }
    let t = &state.config.training;
    let dataset = if t.dataset.as_os_str().is_empty() {
        quire::config::dataset_dir()
    } else {
        t.dataset.clone()
    };
    if !dataset.is_dir() {
        return Err(internal(format!(
            "the training data folder {} does not exist (set `training.dataset` or QUIRE_DATASET)",
            dataset.display()
        )));
    }
    let program = std::env::current_exe()
        .map_err(|e| internal(format!("cannot locate the quire executable: {e}")))?;
    let runner = Runner {
        program,
        models_dir: state.config.models.dir.clone(),
        nice: t.nice,
        memory_mb: t.memory_mb,
    };
    let spec = JobSpec {
        model: name.as_str().to_string(),
        flavor,
        kind,
        dataset,
        out_dir: Default::default(),
        threads: t.threads,
        max_iter,
        epsilon,
        architecture: architecture.to_string(),
        start_dir,
        embeddings: None,
    };
    let prepared = runner.prepare(spec, state.models.clone(), hold);
    let token = state
        .trainer
        .send(StartTraining {
            model: name,
            flavor,
            kind: kind.name().to_string(),
            job: prepared.job,
            cancel: Some(prepared.cancel),
        })
        .await
        .map_err(mailbox)??;
    if let Some(held) = prepared.held {
        held.register(&token);
    }
    Ok(HttpResponse::Ok().json(serde_json::json!({ "token": token })))
}

/// A token parameter or path segment: 400 unless it has our tokens' form.
fn check_token(raw: &str) -> Result<String, ApiError> {
    let token = raw.trim();
    if token_is_well_formed(token) {
        Ok(token.to_string())
    } else {
        Err(ApiError::invalid(
            "token",
            format!("`{token}` is not a training token"),
        ))
    }
}

/// The JSON of a run's state: `status` plus the progress, the result's fields or the error.
fn state_json(state: TrainingState) -> serde_json::Value {
    match state {
        TrainingState::Ongoing { progress } => {
            serde_json::json!({"status": "ongoing", "progress": progress})
        }
        TrainingState::Done { result } => {
            let mut v = serde_json::json!({"status": "done"});
            if let (Some(obj), serde_json::Value::Object(r)) = (v.as_object_mut(), result) {
                obj.extend(r);
            }
            v
        }
        TrainingState::Failed { error } => serde_json::json!({"status": "failed", "error": error}),
        TrainingState::Cancelled => serde_json::json!({"status": "cancelled"}),
    }
}

async fn training_result(
    state: State,
    req: HttpRequest,
    params: Params,
) -> Result<HttpResponse, ApiError> {
    guard(&state, &req)?;
    let token = check_token(params.required_text("token")?)?;
    let run = state
        .trainer
        .send(TrainingStatus {
            token: token.clone(),
        })
        .await
        .map_err(mailbox)??;
    if let TrainingState::Failed { error } = &run {
        return Err(internal(format!("training {token} failed: {error}")));
    }
    Ok(HttpResponse::Ok().json(state_json(run)))
}

async fn list(state: State, req: HttpRequest) -> Result<HttpResponse, ApiError> {
    guard(&state, &req)?;
    let runs = state.trainer.send(ListTrainings).await.map_err(mailbox)?;
    Ok(HttpResponse::Ok().json(runs))
}

async fn cancel(
    state: State,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    guard(&state, &req)?;
    cancel_run(&state, check_token(&path)?).await
}

/// `POST|DELETE /api/killTraining` (GROBID's name): `DELETE /api/training/{token}` with the
/// token as the `token` parameter (form body or query string).
async fn kill(state: State, req: HttpRequest, params: Params) -> Result<HttpResponse, ApiError> {
    guard(&state, &req)?;
    cancel_run(&state, check_token(params.required_text("token")?)?).await
}

async fn cancel_run(state: &State, token: String) -> Result<HttpResponse, ApiError> {
    let run = state
        .trainer
        .send(CancelTraining { token })
        .await
        .map_err(mailbox)??;
    if run.is_ongoing() {
        // The run had finished and was installing its model: it completes.
        return Err(ApiError::Conflict(
            "too late to cancel: the training has finished and its model is being installed".into(),
        ));
    }
    Ok(HttpResponse::Ok().json(state_json(run)))
}

/// `GET|POST /api/model`: a model's folder as a ZIP: the CRF's (model.crf, template.txt,
/// meta.json, and serving.json when present) or, with `architecture=BiLSTM-CRF`, the
/// BiLSTM-CRF's (model.safetensors, vocab.json, meta.json).
async fn model_zip(
    state: State,
    req: HttpRequest,
    params: Params,
) -> Result<HttpResponse, ApiError> {
    guard(&state, &req)?;
    let (name, flavor) = model_param(&params)?;
    let architecture = architecture_param(&params)?;
    let key = name.dir_name(flavor);
    let model_dir = name.dir(&state.config.models.dir, flavor);
    if !quire::tagger::weights_file(&model_dir, architecture).is_file() {
        return Err(ApiError::invalid(
            "model",
            format!(
                "`{key}` is a valid model name but is not trained here for {architecture} \
                 (no model file)"
            ),
        ));
    }
    let dir = quire::tagger::architecture_dir(&model_dir, architecture);
    let zip = web::block(move || zip_folder(&dir))
        .await
        .map_err(|e| internal(e.to_string()))?
        .map_err(|e| internal(format!("cannot pack model `{key}`: {e}")))?;
    Ok(HttpResponse::Ok()
        .content_type("application/zip")
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"{key}.zip\""),
        ))
        .body(zip))
}

/// The regular files of `dir` (not its sub-folders) in a ZIP, sorted by name.
pub fn zip_folder(dir: &std::path::Path) -> anyhow::Result<Vec<u8>> {
    use std::io::Write as _;
    let mut files: Vec<_> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.path())
        .collect();
    files.sort();
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for path in files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        zip.start_file(name, opts)?;
        zip.write_all(&std::fs::read(&path)?)?;
    }
    Ok(zip.finish()?.into_inner())
}

async fn release(state: State, params: Params) -> Result<HttpResponse, ApiError> {
    if !state.config.debug.test_routes {
        return Err(ApiError::NotFound(
            "debug routes are disabled (config `debug.test_routes`)".to_string(),
        ));
    }
    let token = check_token(params.required_text("token")?)?;
    if crate::training::release(&token) {
        Ok(HttpResponse::Ok().body(format!("released {token}")))
    } else {
        Err(ApiError::invalid(
            "token",
            format!("no held training has token `{token}`"),
        ))
    }
}
