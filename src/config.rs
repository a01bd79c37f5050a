/*!
What the engine needs to know from the service configuration: limits and where things live.
The full configuration (ports, pool, CORS, …) belongs to the web crate; it builds this.
*/

use std::path::PathBuf;

/// Environment variable naming the folder that holds `<model>/corpus` and `<model>/evaluation`.
pub const DATASET_ENV: &str = "QUIRE_DATASET";

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct EngineConfig {
    /// Folder holding one sub-folder per trained model (`models/<name>/`).
    pub models_dir: PathBuf,
    /// Path of `libpdfium.so`; `None` means look in the usual places.
    pub pdfium_lib: Option<PathBuf>,
    pub blocks_max: usize,
    pub tokens_max: usize,
    /// Most tokens on one page of a PDF.
    #[serde(default = "default_page_tokens_max")]
    pub page_tokens_max: usize,
    /// Seconds one PDF may take in a layout worker before it is killed.
    pub pdf_timeout_s: u64,
    /// Address-space cap for one layout worker, in MiB.
    pub pdf_memory_mb: u64,
}

fn default_page_tokens_max() -> usize {
    30_000
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            models_dir: PathBuf::from("models"),
            pdfium_lib: None,
            blocks_max: 200_000,
            tokens_max: 1_000_000,
            page_tokens_max: default_page_tokens_max(),
            pdf_timeout_s: 120,
            pdf_memory_mb: 4096,
        }
    }
}

/// The dataset folder: `$QUIRE_DATASET`, else where `../shared/dataset/unpack` puts the
/// corpora: beside the archives when that folder is writable, otherwise
/// `$XDG_CACHE_HOME/quire-dataset` (default `~/.cache/quire-dataset`).
pub fn dataset_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os(DATASET_ENV) {
        return PathBuf::from(dir);
    }
    let beside = PathBuf::from("../shared/dataset");
    if beside.join("date/corpus").is_dir() {
        return beside;
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(|| PathBuf::from(".cache"));
    cache.join("quire-dataset")
}
