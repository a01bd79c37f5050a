/*!
`quire serve`: loads the configuration (file, environment, flags), sets up logging and the
panic counter, starts the actors (model actors, coordinator, trainer registry), then the API
server and the admin server in one actix `System`. Model preloading runs in the background;
`/api/isalive` answers 503 until it is done.
*/

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use actix_web::{middleware, web, App};
use anyhow::Context as _;
use quire_actors::trainer::TrainerRegistry;
use quire_actors::workers::{WorkerPolicy, WorkerPool, WorkerPoolConfig};
use quire_actors::{CascadeCtx, Models, Pipeline, Pool};

use crate::app::{self, AppState, Check, HealthHook};
use crate::config::Config;
use crate::params::ParamLimits;
use crate::{admin, logging, routes};

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Configuration file (default: `config.toml` in the working directory, if present).
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// API port (overrides `server.port`).
    #[arg(long)]
    pub port: Option<u16>,
    /// Admin port (overrides `server.admin_port`).
    #[arg(long)]
    pub admin_port: Option<u16>,
    /// Log JSON lines instead of human-readable text.
    #[arg(long)]
    pub json_logs: bool,
}

/// [`load_config`] for a command without server flags (`batch`, `biblio`, `create-training`):
/// the `--config` file, else `config.toml` when present, and the environment.
pub fn load_config_file(config: Option<PathBuf>) -> anyhow::Result<Config> {
    load_config(&ServeArgs {
        config,
        port: None,
        admin_port: None,
        json_logs: false,
    })
}

/// File < environment < flags. Relative paths written in the config file are resolved against
/// the file's folder; those from environment variables (and the `--config` path itself) against
/// the working directory. Both model and libpdfium paths come out absolute.
pub fn load_config(args: &ServeArgs) -> anyhow::Result<Config> {
    let path = args.config.clone().or_else(|| {
        let default = PathBuf::from("config.toml");
        default.is_file().then_some(default)
    });
    let mut config = Config::load(path.as_deref(), std::env::vars())?;
    if let Some(port) = args.port {
        config.server.port = port;
    }
    if let Some(port) = args.admin_port {
        config.server.admin_port = port;
    }
    if args.json_logs {
        config.logging.json = true;
    }
    config.validate()?;
    config
        .absolutize_paths()
        .context("cannot resolve models.dir / models.pdfium_lib against the working directory")?;
    Ok(config)
}

pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    // candle splits each CPU matrix product over RAYON_NUM_THREADS threads (every core when
    // unset), which spin while they wait for each other. Tagging no longer goes through
    // candle's products (deep::network::matmul calls the kernel on the calling thread); what
    // the server still asks of candle (building a BiLSTM-CRF's tagging tables once) stays on
    // one thread too, since the service already runs requests side by side
    // (docs/performance.md). Set before any thread starts; an explicit value wins. Training
    // runs and layout workers set their own environment.
    if std::env::var_os("RAYON_NUM_THREADS").is_none() {
        std::env::set_var("RAYON_NUM_THREADS", "1");
    }
    let config = load_config(&args)?;
    logging::init(&config.logging.level, config.logging.json);
    if config.server.malloc_arenas != 0 {
        tracing::warn!(
            "server.malloc_arenas has no effect: quire's allocator is mimalloc, which has no \
             glibc arenas to cap (CHANGELOG)"
        );
    }
    quire_actors::metrics::install_panic_hook();
    actix_web::rt::System::new().block_on(serve(config))
}

async fn serve(config: Config) -> anyhow::Result<()> {
    let config = Arc::new(config);
    let engine = Arc::new(config.engine());
    let engine_pdfium = engine.pdfium_lib.clone().unwrap_or_default();
    let config_origin = config
        .config_dir
        .as_ref()
        .map_or_else(|| "(defaults)".to_string(), |d| d.display().to_string());
    let models = Models::start(&config.model_settings());
    let consolidation = config.consolidation();
    tracing::info!(
        service = %config.consolidation.service,
        index_dir = %config.consolidation.index_dir.display(),
        available = consolidation.is_available(),
        "consolidation"
    );
    let pool = Pool::new(config.pool.concurrency, config.max_wait());
    // PDF layout runs in `quire worker` child processes, started on first use.
    let mut worker_cfg = WorkerPoolConfig::from_engine(&engine, config.pool.pdf_workers)
        .context("cannot locate the quire executable for the PDF workers")?;
    worker_cfg.args.push("--user".into());
    worker_cfg.args.push(config.sandbox.user.clone().into());
    let workers = WorkerPool::with_policy(
        worker_cfg,
        WorkerPolicy {
            recycle_rss_mb: config.limits.pdf_worker_recycle_mb,
            max_jobs: config.limits.pdf_worker_max_jobs,
            ..WorkerPolicy::default()
        },
    );
    let pipeline = Pipeline::start(
        CascadeCtx::new(models.clone(), engine.clone())
            .with_pdf(workers.clone())
            .with_consolidation(consolidation),
        config.pool.concurrency * 2,
        Duration::from_secs(config.pool.request_timeout_s),
    );
    // Subsystems started here push their `/api/health` check.
    let health_hooks: Vec<(&'static str, HealthHook)> =
        vec![("pdf_workers", pdf_workers_check(workers.clone()))];
    let state = web::Data::new(AppState {
        config: config.clone(),
        engine,
        models,
        pool,
        pipeline,
        trainer: TrainerRegistry::launch(),
        pdf_workers: Some(workers),
        health_hooks,
    });
    let limits = ParamLimits::from_config(&config);
    let host = config.server.host.clone();

    let api_state = state.clone();
    let api_config = config.clone();
    let settings = crate::server::Settings {
        max_connections: config.server.max_connections,
        workers: config.server.workers,
        header_timeout: Duration::from_secs(config.server.header_timeout_s),
        max_body_bytes: config.limits.max_upload_mb.saturating_mul(1024 * 1024),
    };
    let admin_host = config.server.admin_host.clone();
    let listen = |host: &str, port: u16, key: &str| {
        crate::server::listener(host, port, config.server.backlog)
            .with_context(|| format!("cannot listen on {host}:{port} ({key})"))
    };
    let api_listener = listen(&host, config.server.port, "server.port")?;
    let admin_listener = listen(&admin_host, config.server.admin_port, "server.admin_port")?;
    let api_addr = api_listener.local_addr()?;
    let admin_addr = admin_listener.local_addr()?;
    let api = crate::server::serve("quire-api", api_listener, settings, move || {
        App::new()
            .app_data(api_state.clone())
            .app_data(limits)
            .wrap(middleware::from_fn(app::head_as_get))
            .wrap(middleware::from_fn(app::observe))
            .wrap(app::cors(&api_config))
            .wrap(middleware::from_fn(app::cors_guard))
            .configure(routes::configure)
            .default_service(web::to(app::not_found))
    })?;

    let admin_state = state.clone();
    let admin = crate::server::serve(
        "quire-admin",
        admin_listener,
        crate::server::Settings {
            workers: 1,
            ..settings
        },
        move || {
            App::new()
                .app_data(admin_state.clone())
                .wrap(middleware::from_fn(app::head_as_get))
                .configure(admin::routes)
                .default_service(web::to(app::not_found))
        },
    )?;

    // With port 0 the system picks free ports: say which, on stdout, in one line scripts and the
    // integration tests read (`listening api=HOST:PORT admin=HOST:PORT`).
    crate::routes::annotations::set_admin_port(admin_addr.port());
    {
        use std::io::Write as _;
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "listening api={api_addr} admin={admin_addr}");
        let _ = out.flush();
    }
    tracing::info!(
        port = api_addr.port(),
        admin_port = admin_addr.port(),
        models_dir = %config.models.dir.display(),
        pdfium_lib = %engine_pdfium.display(),
        config_dir = %config_origin,
        preload = config.models.preload,
        concurrency = config.pool.concurrency,
        "quire {} ({}) listening",
        env!("CARGO_PKG_VERSION"),
        routes::service::REVISION,
    );
    if !config.models.dir.is_dir() {
        tracing::warn!(
            models_dir = %config.models.dir.display(),
            "the models directory does not exist: no model can be used (set models.dir)"
        );
    }
    futures::try_join!(api, admin)?;
    Ok(())
}

/// `/api/health`'s check of the layout workers: up unless starting a worker process failed.
fn pdf_workers_check(workers: WorkerPool) -> HealthHook {
    Arc::new(move || {
        let stats = workers.stats();
        Check {
            ok: workers.is_up(),
            detail: format!(
                "{} worker process(es) started, {} idle, {} lost; workers start on first use",
                stats.spawned, stats.idle, stats.lost
            ),
            required: true,
        }
    })
}
