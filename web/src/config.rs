/*!
The service configuration, in two stages (ripgrep's low → high): [`Config`] is what the user
wrote (`config.toml`, then `QUIRE_<SECTION>_<KEY>` environment variables, then `--port` /
`--admin-port`), parsed strictly (unknown keys are errors) and checked by [`Config::validate`],
whose errors name the offending key; [`Config::engine`] then derives the engine's
[`quire::EngineConfig`]. GROBID's key names (`modelPreload`, `concurrency`, `poolMaxWait`,
`corsAllowedOrigins`, `blocksMax`, …) are accepted as aliases.
*/

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

/// Environment variable that names libpdfium when the config does not.
pub const PDFIUM_ENV: &str = "QUIRE_PDFIUM_LIB";
/// Where `make run` / `make test` install libpdfium.
pub const PDFIUM_VENDORED: &str = "vendor/pdfium/libpdfium.so";

/// A configuration problem, naming the key it concerns.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("config file {path}: {message}")]
    Parse { path: String, message: String },
    #[error("environment variable {var}: {message}")]
    Env { var: String, message: String },
    #[error("invalid value for `{key}`: {message}")]
    Invalid { key: String, message: String },
}

fn invalid(key: &str, message: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        key: key.to_string(),
        message: message.into(),
    }
}

#[derive(Debug, Clone, PartialEq, Default, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The folder of the config file this was read from (absolute), if any: relative paths
    /// written in the file were resolved against it, and the vendored libpdfium is looked up
    /// there first.
    #[serde(skip)]
    pub config_dir: Option<PathBuf>,
    #[serde(default)]
    pub server: ServerConfig,
    #[serde(default)]
    pub pool: PoolConfig,
    #[serde(default)]
    pub limits: LimitsConfig,
    #[serde(default)]
    pub models: ModelsConfig,
    #[serde(default)]
    pub cors: CorsConfig,
    #[serde(default)]
    pub consolidation: ConsolidationConfig,
    #[serde(default)]
    pub logging: LoggingConfig,
    #[serde(default)]
    pub debug: DebugConfig,
    #[serde(default)]
    pub training: TrainingConfig,
    #[serde(default)]
    pub sandbox: SandboxConfig,
}

/// How the service's child processes (PDF layout workers, training processes) are confined
/// (see `crate::sandbox`).
#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct SandboxConfig {
    /// The unprivileged user the children switch to when the service runs as root (empty:
    /// they stay root, not advised).
    #[serde(default = "default_sandbox_user")]
    pub user: String,
}

fn default_sandbox_user() -> String {
    "nobody".to_string()
}

#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    /// Address both servers listen on.
    #[serde(default = "default_host")]
    pub host: String,
    /// Address the admin port listens on (default loopback only: its answers name folders
    /// and its metrics describe the load).
    #[serde(default = "default_admin_host")]
    pub admin_host: String,
    #[serde(default = "default_port")]
    pub port: u16,
    #[serde(default = "default_admin_port", alias = "adminPort")]
    pub admin_port: u16,
    /// HTTP worker threads of the main server (0 = one per CPU).
    #[serde(default)]
    pub workers: usize,
    /// Open connections one HTTP worker thread accepts; more wait in the listen backlog.
    #[serde(default = "default_max_connections")]
    pub max_connections: usize,
    /// Length of the listen backlog of both ports.
    #[serde(default = "default_backlog")]
    pub backlog: u32,
    /// Seconds a client has to send the request head (line and headers); then 408.
    #[serde(default = "default_header_timeout_s")]
    pub header_timeout_s: u64,
    /// Accepted and ignored, with a warning when set: it capped glibc's arenas
    /// (`M_ARENA_MAX`), and the allocator is now mimalloc (web/src/allocator.rs), which has
    /// none. Kept so that configuration files that set it still load; not written back.
    #[serde(default, skip_serializing)]
    pub malloc_arenas: usize,
}

#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct PoolConfig {
    /// Requests processed at once (GROBID `concurrency`).
    #[serde(default = "default_concurrency")]
    pub concurrency: usize,
    /// Seconds a request waits for a processing slot before 503 (GROBID `poolMaxWait`).
    #[serde(default = "default_max_wait_s", alias = "poolMaxWait")]
    pub max_wait_s: f64,
    /// Sync threads per model actor.
    #[serde(default = "default_model_threads")]
    pub model_threads: usize,
    /// Messages queued per model actor before it answers busy.
    #[serde(default = "default_model_queue")]
    pub model_queue: usize,
    /// Seconds one request's processing may take in total.
    #[serde(default = "default_request_timeout_s")]
    pub request_timeout_s: u64,
    /// PDF layout worker processes.
    #[serde(default = "default_pdf_workers")]
    pub pdf_workers: usize,
}

#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsConfig {
    /// Seconds one PDF may spend in a layout worker (GROBID `pdfalto.timeoutSec`).
    #[serde(default = "default_pdf_timeout_s", alias = "timeoutSec")]
    pub pdf_timeout_s: u64,
    /// Memory cap of one layout worker, MiB (GROBID `pdfalto.memoryLimitMb`).
    #[serde(default = "default_pdf_memory_mb", alias = "memoryLimitMb")]
    pub pdf_memory_mb: u64,
    #[serde(default = "default_blocks_max", alias = "blocksMax")]
    pub blocks_max: usize,
    #[serde(default = "default_tokens_max", alias = "tokensMax")]
    pub tokens_max: usize,
    /// More tokens than this on one PDF page: TOO_MANY_TOKENS naming the page.
    #[serde(default = "default_page_tokens_max")]
    pub page_tokens_max: usize,
    /// Largest accepted request body, MiB; larger gets 413.
    #[serde(default = "default_max_upload_mb")]
    pub max_upload_mb: u64,
    /// Largest accepted text field, KiB; larger gets 413 naming the field.
    #[serde(default = "default_max_field_kb")]
    pub max_field_kb: u64,
    /// Seconds a client has to send the whole request body; then 408.
    #[serde(default = "default_body_timeout_s")]
    pub body_timeout_s: u64,
    /// Strings one raw-string request may carry (processCitationList); more gets 413.
    #[serde(default = "default_max_strings")]
    pub max_strings: usize,
    /// Tokens one raw string may hold; more gets 413 naming the field.
    #[serde(default = "default_max_string_tokens")]
    pub max_string_tokens: usize,
    /// Tokens all the raw strings of one request may hold together (processCitationList).
    #[serde(default = "default_max_request_tokens")]
    pub max_request_tokens: usize,
    /// Largest text or XML document (patent text as field or file, ST.36, consolidateTEI), KiB.
    #[serde(default = "default_max_text_kb")]
    pub max_text_kb: u64,
    /// Most XML elements in one ST.36 or consolidateTEI document.
    #[serde(default = "default_max_xml_elements")]
    pub max_xml_elements: usize,
    /// A layout worker holding more resident memory than this after a job (MiB) is ended and
    /// replaced (0 = never).
    #[serde(default = "default_pdf_worker_recycle_mb")]
    pub pdf_worker_recycle_mb: u64,
    /// A layout worker is ended and replaced after this many jobs (0 = never).
    #[serde(default = "default_pdf_worker_max_jobs")]
    pub pdf_worker_max_jobs: u32,
}

#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct ModelsConfig {
    /// Folder holding `<model>/model.crf` (GROBID's models directory). Relative: against the
    /// config file's folder when written in the file, else against the working directory.
    #[serde(default = "default_models_dir")]
    pub dir: PathBuf,
    /// Load every model at start-up (GROBID `modelPreload`).
    #[serde(default = "default_true", alias = "modelPreload")]
    pub preload: bool,
    /// libpdfium path (relative: as `dir`); empty means `$QUIRE_PDFIUM_LIB`, then
    /// `vendor/pdfium/libpdfium.so`.
    #[serde(default)]
    pub pdfium_lib: Option<PathBuf>,
    /// Sentence segmenter for `segmentSentences`: `statistical` or `rules`.
    #[serde(default = "default_sentence_segmenter", alias = "sentenceSegmenter")]
    pub sentence_segmenter: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct CorsConfig {
    /// Comma-separated origins, `*` for any (GROBID `corsAllowedOrigins`).
    #[serde(default = "default_cors_origins", alias = "corsAllowedOrigins")]
    pub allowed_origins: String,
    #[serde(default = "default_cors_methods", alias = "corsAllowedMethods")]
    pub allowed_methods: String,
    #[serde(default = "default_cors_headers", alias = "corsAllowedHeaders")]
    pub allowed_headers: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct ConsolidationConfig {
    /// `embedded` (the bibliographic index in `index_dir`), `crossref` (Crossref's REST API
    /// at `crossref_url`) or `glutton` (biblio-glutton at `glutton_url`).
    #[serde(default = "default_consolidation_service")]
    pub service: String,
    /// The embedded index's folder (`quire biblio import` fills it); relative paths in the
    /// file are resolved against the file's folder. Absent or empty: consolidation is off.
    #[serde(default = "default_index_dir")]
    pub index_dir: PathBuf,
    #[serde(default = "default_glutton_url")]
    pub glutton_url: String,
    #[serde(default = "default_crossref_url")]
    pub crossref_url: String,
    #[serde(default)]
    pub crossref_mailto: String,
    #[serde(default)]
    pub crossref_token: String,
    /// Seconds all lookups of one request may take together.
    #[serde(default = "default_consolidation_timeout_s")]
    pub timeout_s: u64,
    /// Online services: seconds one lookup may take.
    #[serde(default = "default_lookup_timeout_s")]
    pub lookup_timeout_s: f64,
    /// Online services: lookups in flight at once, across all requests.
    #[serde(default = "default_max_in_flight")]
    pub max_in_flight: usize,
}

#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct LoggingConfig {
    /// A `tracing` filter (`info`, `quire=debug,actix_web=warn`); `RUST_LOG` overrides it.
    #[serde(default = "default_log_level")]
    pub level: String,
    /// JSON lines instead of human-readable logs (also `--json-logs`).
    #[serde(default)]
    pub json: bool,
}

#[derive(Debug, Clone, PartialEq, Default, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct DebugConfig {
    /// Enables `/debug/sleep` and `/debug/label` (tests only).
    #[serde(default)]
    pub test_routes: bool,
    /// Enables `/debug/panic`, which makes a model actor panic (restart test).
    #[serde(default)]
    pub allow_panic_route: bool,
}

/// The training endpoints (`/api/modelTraining`, `/api/trainingResult`, `/api/training`,
/// `/api/model`). They change what the service serves, so they are off by default.
#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct TrainingConfig {
    /// Off: the training endpoints answer 404.
    #[serde(default)]
    pub enabled: bool,
    /// When set, training requests must send `Authorization: Bearer <token>` (else 401).
    #[serde(default)]
    pub token: String,
    /// Folder holding `<model>/corpus` and `<model>/evaluation`; empty: `$QUIRE_DATASET`,
    /// else the unpacked corpora (as `quire train`).
    #[serde(default)]
    pub dataset: PathBuf,
    /// Threads of one training process.
    #[serde(default = "default_training_threads")]
    pub threads: usize,
    /// Scheduling niceness of training processes (0-19; higher yields more to serving).
    #[serde(default = "default_training_nice")]
    pub nice: i32,
    /// Address-space cap of one training process, MiB (0: none).
    #[serde(default = "default_training_memory_mb")]
    pub memory_mb: u64,
}

fn default_training_threads() -> usize {
    1
}
fn default_training_nice() -> i32 {
    10
}
fn default_training_memory_mb() -> u64 {
    16384
}

fn default_admin_host() -> String {
    "127.0.0.1".to_string()
}
fn default_host() -> String {
    "0.0.0.0".to_string()
}
fn default_port() -> u16 {
    8070
}
fn default_admin_port() -> u16 {
    8071
}
fn default_concurrency() -> usize {
    10
}
fn default_max_wait_s() -> f64 {
    1.0
}
fn default_model_threads() -> usize {
    1
}
fn default_model_queue() -> usize {
    64
}
fn default_request_timeout_s() -> u64 {
    300
}
fn default_pdf_workers() -> usize {
    2
}
fn default_pdf_timeout_s() -> u64 {
    120
}
fn default_pdf_memory_mb() -> u64 {
    6096
}
fn default_blocks_max() -> usize {
    200_000
}
fn default_tokens_max() -> usize {
    1_000_000
}
fn default_max_upload_mb() -> u64 {
    100
}
fn default_max_field_kb() -> u64 {
    1024
}
fn default_body_timeout_s() -> u64 {
    60
}
fn default_max_strings() -> usize {
    2000
}
fn default_page_tokens_max() -> usize {
    30_000
}
fn default_max_request_tokens() -> usize {
    200_000
}
fn default_max_text_kb() -> u64 {
    512
}
fn default_max_xml_elements() -> usize {
    50_000
}
fn default_max_string_tokens() -> usize {
    2000
}
fn default_pdf_worker_recycle_mb() -> u64 {
    1024
}
fn default_pdf_worker_max_jobs() -> u32 {
    500
}
fn default_max_connections() -> usize {
    1024
}
fn default_backlog() -> u32 {
    1024
}
fn default_header_timeout_s() -> u64 {
    10
}
fn default_models_dir() -> PathBuf {
    PathBuf::from("models")
}
fn default_true() -> bool {
    true
}
fn default_sentence_segmenter() -> String {
    "statistical".to_string()
}
fn default_cors_origins() -> String {
    "*".to_string()
}
fn default_cors_methods() -> String {
    "OPTIONS,GET,PUT,POST,DELETE,HEAD".to_string()
}
fn default_cors_headers() -> String {
    "X-Requested-With,Content-Type,Accept,Origin".to_string()
}
fn default_consolidation_service() -> String {
    "embedded".to_string()
}
fn default_index_dir() -> PathBuf {
    PathBuf::from("biblio-index")
}
fn default_glutton_url() -> String {
    "http://localhost:8080".to_string()
}
fn default_consolidation_timeout_s() -> u64 {
    60
}
fn default_crossref_url() -> String {
    "https://api.crossref.org".to_string()
}
fn default_lookup_timeout_s() -> f64 {
    10.0
}
fn default_max_in_flight() -> usize {
    8
}
fn default_log_level() -> String {
    "info".to_string()
}

macro_rules! default_from_empty_table {
    ($($t:ty),*) => {$(
        impl Default for $t {
            fn default() -> Self {
                // Every field has a named default fn, so an empty table is complete.
                toml::from_str("").unwrap_or_else(|e| panic!("defaults of {}: {e}", stringify!($t)))
            }
        }
    )*};
}
default_from_empty_table!(
    ServerConfig,
    PoolConfig,
    LimitsConfig,
    ModelsConfig,
    CorsConfig,
    ConsolidationConfig,
    LoggingConfig,
    TrainingConfig,
    SandboxConfig
);

/// Path keys (section, key) that a config file may give relative to its own folder.
const FILE_RELATIVE_PATHS: [(&str, &str); 4] = [
    ("models", "dir"),
    ("models", "pdfium_lib"),
    ("consolidation", "index_dir"),
    ("training", "dataset"),
];

/// Sections that `QUIRE_<SECTION>_<KEY>` variables may address.
const SECTIONS: [&str; 10] = [
    "server",
    "pool",
    "limits",
    "models",
    "cors",
    "consolidation",
    "logging",
    "debug",
    "training",
    "sandbox",
];

impl Config {
    /// Reads `path` (or only defaults when `None`), applies the environment overrides from
    /// `env`, and validates the result. Relative paths written in the file (`models.dir`,
    /// `models.pdfium_lib`) are resolved against the file's folder; those from the environment
    /// stay relative to the working directory.
    pub fn load(
        path: Option<&Path>,
        env: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Config, ConfigError> {
        let Some(p) = path else {
            return Config::from_toml("", "(defaults)", env);
        };
        let text = std::fs::read_to_string(p).map_err(|source| ConfigError::Read {
            path: p.to_path_buf(),
            source,
        })?;
        let folder = p.parent().unwrap_or(Path::new(""));
        let folder = if folder.as_os_str().is_empty() {
            Path::new(".")
        } else {
            folder
        };
        let folder = std::path::absolute(folder).map_err(|source| ConfigError::Read {
            path: p.to_path_buf(),
            source,
        })?;
        Config::from_toml_in(&text, &p.display().to_string(), Some(&folder), env)
    }

    /// Parses TOML text, applies environment overrides, validates (no file folder: relative
    /// paths stay relative to the working directory).
    pub fn from_toml(
        text: &str,
        origin: &str,
        env: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Config, ConfigError> {
        Config::from_toml_in(text, origin, None, env)
    }

    /// Like [`Config::from_toml`]; relative paths in `text` are resolved against `folder`.
    pub fn from_toml_in(
        text: &str,
        origin: &str,
        folder: Option<&Path>,
        env: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Config, ConfigError> {
        let parse_err = |e: toml::de::Error| ConfigError::Parse {
            path: origin.to_string(),
            message: e.to_string().trim_end().to_string(),
        };
        let mut table: toml::Table = toml::from_str(text).map_err(parse_err)?;
        if let Some(folder) = folder {
            resolve_file_paths(&mut table, folder);
        }
        apply_env(&mut table, env)?;
        let mut config: Config = toml::Value::Table(table).try_into().map_err(parse_err)?;
        config.config_dir = folder.map(Path::to_path_buf);
        config.validate()?;
        Ok(config)
    }

    /// The consolidation backend the settings name (see [`Config::works_consolidation`]), with
    /// the Funder Registry of `index_dir/funders.jsonl` for `consolidateFunders` whichever
    /// service looks works up.
    pub fn consolidation(&self) -> quire_actors::Consolidation {
        let dir = &self.consolidation.index_dir;
        let registry = if dir.as_os_str().is_empty() {
            None
        } else {
            match quire::consolidation::FunderRegistry::load(dir) {
                Ok(r) => r,
                Err(e) => {
                    tracing::warn!("funder consolidation is off: {e}");
                    None
                }
            }
        };
        self.works_consolidation().with_funders(registry)
    }

    /// The works backend the settings name: the embedded index when
    /// `consolidation.service` is `embedded` and `index_dir` holds records; otherwise none,
    /// with the reason the TEI will give (never an error: consolidation is an enrichment).
    fn works_consolidation(&self) -> quire_actors::Consolidation {
        use quire_actors::consolidation::online::{OnlineConfig, Service};
        let c = &self.consolidation;
        let timeout = std::time::Duration::from_secs(c.timeout_s.max(1));
        let online = |service: Service, base_url: &str| {
            quire_actors::Consolidation::online(
                OnlineConfig {
                    service,
                    base_url: base_url.to_string(),
                    mailto: c.crossref_mailto.clone(),
                    token: c.crossref_token.clone(),
                    lookup_timeout: std::time::Duration::from_secs_f64(c.lookup_timeout_s),
                },
                timeout,
                c.max_in_flight,
            )
        };
        match c.service.to_ascii_lowercase().as_str() {
            "crossref" => return online(Service::Crossref, &c.crossref_url),
            "glutton" => return online(Service::Glutton, &c.glutton_url),
            _ => {}
        }
        match quire::consolidation::Consolidator::open(&c.index_dir) {
            Ok(Some(index)) => quire_actors::Consolidation::embedded(index, timeout),
            Ok(None) => quire_actors::Consolidation::none("no bibliographic index"),
            Err(e) => {
                tracing::warn!("consolidation is off: {e}");
                quire_actors::Consolidation::none("the bibliographic index cannot be opened")
            }
        }
    }

    /// Makes `models.dir` and `models.pdfium_lib` absolute (against the working directory),
    /// so that logs and `/api/health` name the folder actually used.
    pub fn absolutize_paths(&mut self) -> std::io::Result<()> {
        self.models.dir = std::path::absolute(&self.models.dir)?;
        if !self.consolidation.index_dir.as_os_str().is_empty() {
            self.consolidation.index_dir = std::path::absolute(&self.consolidation.index_dir)?;
        }
        if !self.training.dataset.as_os_str().is_empty() {
            self.training.dataset = std::path::absolute(&self.training.dataset)?;
        }
        if let Some(p) = self.models.pdfium_lib.as_mut() {
            if !p.as_os_str().is_empty() {
                *p = std::path::absolute(&*p)?;
            }
        }
        Ok(())
    }

    /// Range and consistency checks; the error names the key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let s = &self.server;
        if s.port != 0 && s.port == s.admin_port {
            return Err(invalid(
                "server.admin_port",
                format!("must differ from server.port ({})", s.port),
            ));
        }
        if s.host.trim().is_empty() {
            return Err(invalid("server.host", "must not be empty"));
        }
        if s.admin_host.trim().is_empty() {
            return Err(invalid("server.admin_host", "must not be empty"));
        }
        let t = &self.training;
        if t.enabled && t.token.trim().is_empty() {
            return Err(invalid(
                "training.token",
                "must be set when training.enabled = true: the training endpoints retrain and \
                 replace served models, so they only answer requests sending \
                 `Authorization: Bearer <training.token>` (set it in the file or with \
                 QUIRE_TRAINING_TOKEN)",
            ));
        }
        let p = &self.pool;
        if p.concurrency == 0 || p.concurrency > 10_000 {
            return Err(invalid("pool.concurrency", "must be between 1 and 10000"));
        }
        if !p.max_wait_s.is_finite() || p.max_wait_s < 0.0 || p.max_wait_s > 3600.0 {
            return Err(invalid(
                "pool.max_wait_s",
                "must be between 0 and 3600 seconds",
            ));
        }
        if p.model_threads == 0 || p.model_threads > 64 {
            return Err(invalid("pool.model_threads", "must be between 1 and 64"));
        }
        if p.model_queue == 0 {
            return Err(invalid("pool.model_queue", "must be at least 1"));
        }
        if p.request_timeout_s == 0 {
            return Err(invalid("pool.request_timeout_s", "must be at least 1"));
        }
        if p.pdf_workers == 0 || p.pdf_workers > 256 {
            return Err(invalid("pool.pdf_workers", "must be between 1 and 256"));
        }
        let l = &self.limits;
        for (key, value) in [
            ("limits.pdf_timeout_s", l.pdf_timeout_s),
            ("limits.pdf_memory_mb", l.pdf_memory_mb),
            ("limits.blocks_max", l.blocks_max as u64),
            ("limits.tokens_max", l.tokens_max as u64),
            ("limits.page_tokens_max", l.page_tokens_max as u64),
            ("limits.max_upload_mb", l.max_upload_mb),
            ("limits.max_field_kb", l.max_field_kb),
            ("limits.body_timeout_s", l.body_timeout_s),
            ("limits.max_strings", l.max_strings as u64),
            ("limits.max_string_tokens", l.max_string_tokens as u64),
            ("limits.max_request_tokens", l.max_request_tokens as u64),
            ("limits.max_text_kb", l.max_text_kb),
            ("limits.max_xml_elements", l.max_xml_elements as u64),
            ("server.max_connections", self.server.max_connections as u64),
            ("server.backlog", self.server.backlog as u64),
            ("server.header_timeout_s", self.server.header_timeout_s),
        ] {
            if value == 0 {
                return Err(invalid(key, "must be at least 1"));
            }
        }
        if l.max_field_kb > l.max_upload_mb.saturating_mul(1024) {
            return Err(invalid(
                "limits.max_field_kb",
                "must not exceed limits.max_upload_mb",
            ));
        }
        if self.models.dir.as_os_str().is_empty() {
            return Err(invalid("models.dir", "must not be empty"));
        }
        if !matches!(
            self.models.sentence_segmenter.as_str(),
            "statistical" | "rules"
        ) {
            return Err(invalid(
                "models.sentence_segmenter",
                format!(
                    "`{}`: expected `statistical` or `rules`",
                    self.models.sentence_segmenter
                ),
            ));
        }
        for (key, list) in [
            ("cors.allowed_origins", &self.cors.allowed_origins),
            ("cors.allowed_methods", &self.cors.allowed_methods),
            ("cors.allowed_headers", &self.cors.allowed_headers),
        ] {
            if split_list(list).is_empty() {
                return Err(invalid(key, "must list at least one value (or `*`)"));
            }
        }
        for o in split_list(&self.cors.allowed_origins) {
            let looks_like_origin = (o.starts_with("http://") || o.starts_with("https://"))
                && actix_web::http::header::HeaderValue::from_str(o).is_ok();
            if o != "*" && !looks_like_origin {
                return Err(invalid(
                    "cors.allowed_origins",
                    format!("`{o}` is not an origin like https://example.org"),
                ));
            }
        }
        for h in split_list(&self.cors.allowed_headers) {
            if h != "*" && actix_web::http::header::HeaderName::from_bytes(h.as_bytes()).is_err() {
                return Err(invalid(
                    "cors.allowed_headers",
                    format!("`{h}` is not a header name"),
                ));
            }
        }
        for m in split_list(&self.cors.allowed_methods) {
            if m != "*" && actix_web::http::Method::from_bytes(m.as_bytes()).is_err() {
                return Err(invalid(
                    "cors.allowed_methods",
                    format!("`{m}` is not an HTTP method"),
                ));
            }
        }
        if !matches!(
            self.consolidation.service.to_ascii_lowercase().as_str(),
            "embedded" | "crossref" | "glutton"
        ) {
            return Err(invalid(
                "consolidation.service",
                format!(
                    "`{}`: expected `embedded`, `crossref` or `glutton`",
                    self.consolidation.service
                ),
            ));
        }
        let c = &self.consolidation;
        if !(c.lookup_timeout_s.is_finite() && c.lookup_timeout_s > 0.0) {
            return Err(invalid(
                "consolidation.lookup_timeout_s",
                "must be a positive number of seconds",
            ));
        }
        if c.max_in_flight == 0 {
            return Err(invalid("consolidation.max_in_flight", "must be at least 1"));
        }
        for (key, url) in [
            ("consolidation.crossref_url", &c.crossref_url),
            ("consolidation.glutton_url", &c.glutton_url),
        ] {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(invalid(key, format!("`{url}` is not an http(s) URL")));
            }
        }
        let t = &self.training;
        if t.threads == 0 || t.threads > 256 {
            return Err(invalid("training.threads", "must be between 1 and 256"));
        }
        if !(0..=19).contains(&t.nice) {
            return Err(invalid("training.nice", "must be between 0 and 19"));
        }
        if t.token.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(invalid(
                "training.token",
                "must not contain spaces or control characters",
            ));
        }
        if tracing_subscriber::EnvFilter::try_new(&self.logging.level).is_err() {
            return Err(invalid(
                "logging.level",
                format!("`{}` is not a log filter", self.logging.level),
            ));
        }
        Ok(())
    }

    pub fn max_wait(&self) -> Duration {
        Duration::from_secs_f64(self.pool.max_wait_s)
    }

    /// libpdfium: the config's path, else `$QUIRE_PDFIUM_LIB`, else the vendored copy (looked
    /// up beside the config file, in the working directory, then above the executable:
    /// `target/<profile>/quire`).
    pub fn pdfium_lib(&self) -> PathBuf {
        if let Some(p) = &self.models.pdfium_lib {
            if !p.as_os_str().is_empty() {
                return p.clone();
            }
        }
        if let Some(p) = std::env::var_os(PDFIUM_ENV).filter(|p| !p.is_empty()) {
            return PathBuf::from(p);
        }
        if let Some(beside) = self
            .config_dir
            .as_ref()
            .map(|d| d.join(PDFIUM_VENDORED))
            .filter(|p| p.is_file())
        {
            return beside;
        }
        let local = PathBuf::from(PDFIUM_VENDORED);
        if local.is_file() {
            return local;
        }
        std::env::current_exe()
            .ok()
            .and_then(|exe| {
                exe.ancestors()
                    .skip(1)
                    .map(|dir| dir.join(PDFIUM_VENDORED))
                    .find(|p| p.is_file())
            })
            .unwrap_or(local)
    }

    /// What the engine needs.
    pub fn engine(&self) -> quire::EngineConfig {
        quire::EngineConfig {
            models_dir: self.models.dir.clone(),
            pdfium_lib: Some(self.pdfium_lib()),
            blocks_max: self.limits.blocks_max,
            tokens_max: self.limits.tokens_max,
            page_tokens_max: self.limits.page_tokens_max,
            pdf_timeout_s: self.limits.pdf_timeout_s,
            pdf_memory_mb: self.limits.pdf_memory_mb,
        }
    }

    /// The sentence segmenter `models.sentence_segmenter` names (validated at load).
    pub fn sentence_segmenter(&self) -> quire::sentence::Segmenter {
        match self.models.sentence_segmenter.as_str() {
            "rules" => quire::sentence::Segmenter::RuleBased,
            _ => quire::sentence::Segmenter::Statistical,
        }
    }

    /// What the model actors need.
    pub fn model_settings(&self) -> quire_actors::ModelSettings {
        quire_actors::ModelSettings {
            models_dir: self.models.dir.clone(),
            preload: self.models.preload,
            threads: self.pool.model_threads,
            queue_bound: self.pool.model_queue,
            timeout: Duration::from_secs(self.pool.request_timeout_s),
        }
    }
}

/// Splits a comma-separated setting into trimmed, non-empty items.
pub fn split_list(s: &str) -> Vec<&str> {
    s.split(',')
        .map(str::trim)
        .filter(|x| !x.is_empty())
        .collect()
}

/// Joins the relative path values the file gives for [`FILE_RELATIVE_PATHS`] to `folder` (the
/// config file's folder). Empty strings and non-strings are left for validation.
fn resolve_file_paths(table: &mut toml::Table, folder: &Path) {
    for (section, key) in FILE_RELATIVE_PATHS {
        let Some(toml::Value::Table(t)) = table.get_mut(section) else {
            continue;
        };
        if let Some(toml::Value::String(s)) = t.get_mut(key) {
            if !s.is_empty() && Path::new(s.as_str()).is_relative() {
                *s = folder.join(s.as_str()).display().to_string();
            }
        }
    }
}

/// Applies `QUIRE_<SECTION>_<KEY>=value` overrides. Variables whose section is not a config
/// section (`QUIRE_DATASET`, `QUIRE_PDFIUM_LIB`) are left alone. A value is read as a TOML
/// value when it parses as one (`8080`, `true`, `1.5`), else as a string.
fn apply_env(
    table: &mut toml::Table,
    env: impl IntoIterator<Item = (String, String)>,
) -> Result<(), ConfigError> {
    for (var, value) in env {
        let Some(rest) = var.strip_prefix("QUIRE_") else {
            continue;
        };
        let lower = rest.to_ascii_lowercase();
        let Some(section) = SECTIONS
            .iter()
            .find(|s| lower.starts_with(&format!("{s}_")))
        else {
            continue;
        };
        let key = &lower[section.len() + 1..];
        let parsed = toml::from_str::<toml::Table>(&format!("v = {value}"))
            .ok()
            .and_then(|mut t| t.remove("v"))
            .filter(|v| !v.is_table())
            .unwrap_or_else(|| toml::Value::String(value.clone()));
        let entry = table
            .entry(section.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        match entry {
            toml::Value::Table(t) => {
                t.insert(key.to_string(), parsed);
            }
            _ => {
                return Err(ConfigError::Env {
                    var,
                    message: format!("`{section}` is not a table in the config file"),
                })
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn no_env() -> Vec<(String, String)> {
        Vec::new()
    }

    #[test]
    fn defaults_follow_grobid() {
        let c = Config::from_toml("", "test", no_env()).expect("defaults are valid");
        assert_eq!(c.server.port, 8070);
        assert_eq!(c.server.admin_port, 8071);
        assert_eq!(c.pool.concurrency, 10);
        assert_eq!(c.max_wait(), Duration::from_secs(1));
        assert!(c.models.preload);
        assert_eq!(c.cors.allowed_origins, "*");
        assert_eq!(c.limits.pdf_timeout_s, 120);
        assert_eq!(c.limits.blocks_max, 200_000);
        assert_eq!(c.limits.tokens_max, 1_000_000);
        assert_eq!(c.pool.pdf_workers, 2);
        assert_eq!(c, Config::default());
    }

    #[test]
    fn the_shipped_config_toml_is_valid_and_lists_every_key() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../config.toml");
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let shipped = Config::from_toml(&text, "config.toml", no_env()).expect("valid");
        assert_eq!(
            shipped,
            Config::default(),
            "config.toml must show the defaults"
        );
        let loaded = Config::load(Some(&path), no_env()).expect("config.toml is valid");
        let folder = std::path::absolute(path.parent().expect("a folder")).expect("absolute");
        assert_eq!(loaded.models.dir, folder.join("models"));
        assert_eq!(loaded.config_dir, Some(folder));
        let defaults = toml::Value::try_from(Config::default()).expect("serialisable");
        for (section, keys) in defaults.as_table().into_iter().flatten() {
            assert!(
                text.contains(&format!("[{section}]")),
                "config.toml lacks [{section}]"
            );
            for key in keys.as_table().into_iter().flat_map(|t| t.keys()) {
                assert!(
                    text.contains(&format!("\n{key} =")) || text.contains(&format!("\n# {key} =")),
                    "config.toml lacks {section}.{key}"
                );
            }
        }
    }

    /// `server.malloc_arenas` capped glibc's arenas; files that set it still load, and it
    /// is not written back with the defaults (the shipped file no longer lists it).
    #[test]
    fn a_file_setting_the_old_arena_cap_still_loads() {
        let c =
            Config::from_toml("[server]\nmalloc_arenas = 4\n", "test", no_env()).expect("valid");
        assert_eq!(c.server.malloc_arenas, 4);
        let written = toml::to_string(&Config::default()).expect("serialisable");
        assert!(!written.contains("malloc_arenas"), "{written}");
    }

    #[test]
    fn grobid_aliases_are_accepted() {
        let c = Config::from_toml(
            "[models]\nmodelPreload = false\n[pool]\npoolMaxWait = 3\nconcurrency = 4\n[cors]\ncorsAllowedOrigins = \"https://a.org\"\n[limits]\nblocksMax = 5\ntokensMax = 6\n",
            "test",
            no_env(),
        )
        .expect("valid");
        assert!(!c.models.preload);
        assert_eq!(c.pool.max_wait_s, 3.0);
        assert_eq!(c.pool.concurrency, 4);
        assert_eq!(c.cors.allowed_origins, "https://a.org");
        assert_eq!((c.limits.blocks_max, c.limits.tokens_max), (5, 6));
    }

    #[test]
    fn unknown_keys_and_bad_values_name_the_key() {
        let err = Config::from_toml("[server]\nprot = 1\n", "f.toml", no_env()).unwrap_err();
        assert!(err.to_string().contains("prot"), "{err}");
        let err = Config::from_toml("[pool]\nconcurrency = 0\n", "f.toml", no_env()).unwrap_err();
        assert!(err.to_string().contains("pool.concurrency"), "{err}");
        let err = Config::from_toml("[server]\nport = \"x\"\n", "f.toml", no_env()).unwrap_err();
        assert!(err.to_string().contains("port"), "{err}");
        let err = Config::from_toml("[server]\nport = 9000\nadmin_port = 9000\n", "f", no_env())
            .unwrap_err();
        assert!(err.to_string().contains("server.admin_port"), "{err}");
        let err = Config::from_toml("[models]\nsentence_segmenter = \"magic\"\n", "f", no_env())
            .unwrap_err();
        assert!(
            err.to_string().contains("models.sentence_segmenter"),
            "{err}"
        );
    }

    #[test]
    fn the_sentence_segmenter_setting_chooses_the_segmenter() {
        use quire::sentence::Segmenter;
        let rules = Config::from_toml("[models]\nsentence_segmenter = \"rules\"\n", "f", no_env())
            .expect("valid");
        assert_eq!(rules.sentence_segmenter(), Segmenter::RuleBased);
        let default = Config::from_toml("", "f", no_env()).expect("valid");
        assert_eq!(default.sentence_segmenter(), Segmenter::Statistical);
    }

    #[test]
    fn environment_overrides_the_file() {
        let env = vec![
            ("QUIRE_SERVER_PORT".to_string(), "9000".to_string()),
            ("QUIRE_MODELS_PRELOAD".to_string(), "false".to_string()),
            ("QUIRE_MODELS_DIR".to_string(), "/opt/models".to_string()),
            ("QUIRE_POOL_MAX_WAIT_S".to_string(), "0.5".to_string()),
            ("QUIRE_DATASET".to_string(), "/data".to_string()),
            ("PATH".to_string(), "/bin".to_string()),
        ];
        let c = Config::from_toml("[server]\nport = 8000\n", "f", env).expect("valid");
        assert_eq!(c.server.port, 9000);
        assert!(!c.models.preload);
        assert_eq!(c.models.dir, PathBuf::from("/opt/models"));
        assert_eq!(c.pool.max_wait_s, 0.5);
        let bad = vec![("QUIRE_POOL_CONCURENCY".to_string(), "3".to_string())];
        let err = Config::from_toml("", "f", bad).unwrap_err();
        assert!(err.to_string().contains("concurency"), "{err}");
    }

    #[test]
    fn consolidation_defaults_to_the_embedded_index_and_accepts_the_online_names() {
        let c = Config::default();
        assert_eq!(c.consolidation.service, "embedded");
        assert_eq!(c.consolidation.index_dir, PathBuf::from("biblio-index"));
        for name in ["embedded", "crossref", "Glutton"] {
            let text = format!("[consolidation]\nservice = \"{name}\"\n");
            assert!(Config::from_toml(&text, "f", no_env()).is_ok(), "{name}");
        }
        let err =
            Config::from_toml("[consolidation]\nservice = \"bing\"\n", "f", no_env()).unwrap_err();
        assert!(err.to_string().contains("embedded"), "{err}");
        let mut online = Config::default();
        online.consolidation.service = "crossref".into();
        assert!(online.consolidation().is_available());
        for bad in [
            "lookup_timeout_s = 0",
            "max_in_flight = 0",
            "crossref_url = \"ftp://x\"",
        ] {
            let text = format!("[consolidation]\n{bad}\n");
            let err = Config::from_toml(&text, "f", no_env()).unwrap_err();
            assert!(err.to_string().contains("consolidation."), "{bad}: {err}");
        }
    }

    #[test]
    fn pdfium_path_prefers_the_config() {
        let mut c = Config::default();
        c.models.pdfium_lib = Some(PathBuf::from("/x/libpdfium.so"));
        assert_eq!(
            c.engine().pdfium_lib,
            Some(PathBuf::from("/x/libpdfium.so"))
        );
    }

    #[test]
    fn relative_paths_in_the_file_follow_the_file_not_the_working_directory() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("quire.toml");
        std::fs::write(
            &path,
            "[models]\ndir = \"my-models\"\npdfium_lib = \"lib/libpdfium.so\"\n\
             [consolidation]\nindex_dir = \"crossref-index\"\n",
        )
        .expect("write");
        let folder = std::path::absolute(dir.path()).expect("absolute");
        let c = Config::load(Some(&path), no_env()).expect("valid");
        assert_eq!(c.models.dir, folder.join("my-models"));
        assert_eq!(c.consolidation.index_dir, folder.join("crossref-index"));
        // No index in that folder: consolidation is off, never an error.
        assert!(!c.consolidation().is_available());
        assert_eq!(c.pdfium_lib(), folder.join("lib/libpdfium.so"));
        assert_eq!(c.engine().models_dir, folder.join("my-models"));
        assert_eq!(c.model_settings().models_dir, folder.join("my-models"));

        // Absolute paths are kept; the environment's relative paths stay relative to the
        // working directory (they were not written in the file).
        std::fs::write(&path, "[models]\ndir = \"/srv/models\"\n").expect("write");
        let c = Config::load(Some(&path), no_env()).expect("valid");
        assert_eq!(c.models.dir, PathBuf::from("/srv/models"));
        let env = vec![("QUIRE_MODELS_DIR".to_string(), "env-models".to_string())];
        let mut c = Config::load(Some(&path), env).expect("valid");
        assert_eq!(c.models.dir, PathBuf::from("env-models"));
        c.absolutize_paths().expect("cwd");
        let cwd = std::env::current_dir().expect("cwd");
        assert_eq!(c.models.dir, cwd.join("env-models"));

        // The vendored libpdfium is looked up beside the config file first.
        std::fs::write(&path, "").expect("write");
        std::fs::create_dir_all(dir.path().join("vendor/pdfium")).expect("mkdir");
        std::fs::write(dir.path().join(PDFIUM_VENDORED), b"lib").expect("lib");
        let c = Config::load(Some(&path), no_env()).expect("valid");
        if std::env::var_os(PDFIUM_ENV).is_none() {
            assert_eq!(c.pdfium_lib(), folder.join(PDFIUM_VENDORED));
        }
    }

    proptest! {
        #[test]
        fn valid_values_round_trip(
            port in 1u16..,
            concurrency in 1usize..500,
            wait_ms in 0u32..100_000,
            preload: bool,
            blocks in 1usize..10_000_000,
            origins in "https://[a-z]{1,8}\\.org(,https://[a-z]{1,8}\\.org){0,3}",
        ) {
            let admin = if port == u16::MAX { 1 } else { port + 1 };
            let wait = f64::from(wait_ms) / 1000.0;
            let text = format!(
                "[server]\nport = {port}\nadmin_port = {admin}\n[pool]\nconcurrency = {concurrency}\nmax_wait_s = {wait:?}\n[models]\npreload = {preload}\n[limits]\nblocks_max = {blocks}\n[cors]\nallowed_origins = \"{origins}\"\n"
            );
            let c = Config::from_toml(&text, "prop", no_env()).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(c.server.port, port);
            prop_assert_eq!(c.server.admin_port, admin);
            prop_assert_eq!(c.pool.concurrency, concurrency);
            prop_assert_eq!(c.pool.max_wait_s, wait);
            prop_assert_eq!(c.models.preload, preload);
            prop_assert_eq!(c.limits.blocks_max, blocks);
            prop_assert_eq!(c.cors.allowed_origins, origins);
        }

        #[test]
        fn unknown_keys_are_refused_by_name(section in prop::sample::select(SECTIONS.to_vec()), key in "zz[a-z_]{1,10}") {
            let text = format!("[{section}]\n{key} = 1\n");
            let err = Config::from_toml(&text, "prop", no_env()).err();
            prop_assert!(err.is_some());
            let msg = err.map(|e| e.to_string()).unwrap_or_default();
            prop_assert!(msg.contains(&key), "{}", msg);
        }

        #[test]
        fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
            let _ = Config::from_toml(&text, "prop", no_env());
        }
    }
}
