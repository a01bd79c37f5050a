/*!
`quire batch`: every PDF of a folder tree through the service's own pipeline, without HTTP
(interface: "batch command-line mode"). The model actors and the pipeline coordinator run in
this process, the layout and rendering in the isolated `quire worker` processes, exactly as
`quire serve` runs them; the answer of each PDF is written by the endpoint's own code
(`routes::fulltext::answer`, `routes::pdf::header_tei`, the `listBibl` writer).

- `--jobs N` documents are in flight at once (default: the number of CPUs), with N worker
  processes and N tagging threads per model; a progress bar on stderr when it is a terminal.
- Resumable: `NAME.<endpoint>.tei.xml` already present under `--output` (same relative
  folder) is skipped unless `--force`. Outputs are written to a temporary file and renamed,
  so an interrupted run never leaves a partial one behind.
- A PDF that fails writes `NAME.<endpoint>.error.txt` (`[CODE] message`, the service's error
  body) and the run goes on; a later success removes it. The run ends with a summary (done,
  skipped, failed, seconds, PDFs per second) and exits non-zero when some PDF failed.
- At scale: `--files-from LIST` reads the PDFs to do from a listing (one path per line,
  relative to `--input`; blank lines and `#` comments ignored) instead of walking the tree,
  and `--shard I/N` keeps only the listing's entries `k` with `k mod N == I` (`I` counts from
  0, as a Kubernetes Indexed Job's `JOB_COMPLETION_INDEX`), so N processes given the same
  listing share it without overlap or coordination. Outputs are per PDF, so shards never
  write the same file.
- Options are the endpoint parameters, checked by the same code as the HTTP ones;
  `--tei-coordinates` alone (or GROBID's `-teiCoordinates`) means every supported element.
*/

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use futures::StreamExt as _;
use quire_actors::cascade::header::{HeaderCascade, HeaderRequest};
use quire_actors::cascade::references::{ReferencesCascade, ReferencesRequest};
use quire_actors::workers::{WorkerPool, WorkerPoolConfig};
use quire_actors::{CascadeCtx, Models, Pipeline};

use crate::cmd::serve::load_config_file;
use crate::error::ApiError;
use crate::params::Params;
use crate::routes::fulltext::{self, FulltextParams, Kind, COORDINATE_ELEMENTS};
use crate::routes::pdf::{header_params, header_tei, HeaderParams};

/// Which endpoint's answer each PDF gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Endpoint {
    /// processFulltextDocument: the whole article.
    Fulltext,
    /// processHeaderDocument: the header of the first two pages.
    Header,
    /// processReferences: the bibliography (`listBibl`).
    References,
}

impl Endpoint {
    fn name(self) -> &'static str {
        match self {
            Endpoint::Fulltext => "fulltext",
            Endpoint::Header => "header",
            Endpoint::References => "references",
        }
    }
}

#[derive(Debug, clap::Args)]
pub struct BatchArgs {
    /// Folder searched (recursively) for `*.pdf`.
    #[arg(long, value_name = "DIR")]
    pub input: PathBuf,
    /// Folder the answers are written to, mirroring the input tree.
    #[arg(long, value_name = "DIR")]
    pub output: PathBuf,
    #[arg(long, value_enum, default_value = "fulltext")]
    pub endpoint: Endpoint,
    /// Elements that get coordinates, comma-separated (`persName,figure,ref`); given without a
    /// value (or as GROBID's `-teiCoordinates`), every supported element.
    #[arg(
        long = "tei-coordinates",
        alias = "teiCoordinates",
        value_name = "ELEMENTS",
        num_args = 0..=1,
        default_missing_value = "all"
    )]
    pub tei_coordinates: Option<String>,
    /// consolidateHeader (0-3; looked up in the consolidation index when there is one).
    #[arg(long, value_name = "N", default_value = "0")]
    pub consolidate_header: String,
    /// consolidateCitations (0-2; looked up in the consolidation index when there is one).
    #[arg(long, value_name = "N", default_value = "0")]
    pub consolidate_citations: String,
    /// consolidateFunders (0-2; looked up in the Funder Registry of the index folder).
    #[arg(long, value_name = "N", default_value = "0")]
    pub consolidate_funders: String,
    /// Segment paragraphs into sentences (`<s>`).
    #[arg(long)]
    pub segment_sentences: bool,
    /// generateIDs.
    #[arg(long)]
    pub generate_ids: bool,
    /// includeRawCitations.
    #[arg(long)]
    pub include_raw_citations: bool,
    /// includeRawAffiliations.
    #[arg(long)]
    pub include_raw_affiliations: bool,
    /// Full-text flavour (`blank`, `article/light`, `article/light-ref`).
    #[arg(long)]
    pub flavor: Option<String>,
    /// Documents processed at once (and PDF worker processes); default: one per CPU.
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Redo PDFs whose output already exists.
    #[arg(long)]
    pub force: bool,
    /// Configuration file (models, libpdfium, limits), as for `quire serve`.
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Read the PDFs from this listing (one path per line, relative to `--input`) instead of
    /// searching `--input`.
    #[arg(long, value_name = "LIST")]
    pub files_from: Option<PathBuf>,
    /// Do only shard I of N (`I/N`, I from 0): the entries k of the sorted listing with
    /// k mod N = I.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    pub shard: Option<Shard>,
}

/// One share of a listing: `index` of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// The entries of `listing` (already in its shared order) that belong to this shard.
    pub fn select<T>(self, listing: Vec<T>) -> Vec<T> {
        listing
            .into_iter()
            .enumerate()
            .filter(|(k, _)| k % self.count == self.index)
            .map(|(_, item)| item)
            .collect()
    }
}

/// `I/N` with `N >= 1` and `I < N`.
pub fn parse_shard(text: &str) -> Result<Shard, String> {
    let (i, n) = text
        .split_once('/')
        .ok_or_else(|| format!("`{text}` is not I/N (for instance 0/4)"))?;
    let index: usize = i
        .trim()
        .parse()
        .map_err(|_| format!("shard index `{i}` is not a whole number"))?;
    let count: usize = n
        .trim()
        .parse()
        .map_err(|_| format!("shard count `{n}` is not a whole number"))?;
    if count == 0 {
        return Err("the shard count must be at least 1".into());
    }
    if index >= count {
        return Err(format!(
            "shard index {index} is not below the shard count {count} (indexes count from 0)"
        ));
    }
    Ok(Shard { index, count })
}

/// The PDFs named by a listing: one path per line relative to `input` (an absolute path is
/// kept), blank lines and lines starting with `#` skipped, duplicates dropped, sorted so every
/// shard sees the same order whatever order the listing was written in.
pub fn read_listing(listing: &str, input: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = listing
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| input.join(l))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// What each PDF of the run needs: the parameters, checked once.
enum Plan {
    Fulltext(FulltextParams, quire::sentence::Segmenter),
    Header(HeaderParams),
    References { include_raw: bool, consolidate: i64 },
}

impl BatchArgs {
    /// The endpoint parameters as a client would send them, checked by the endpoints' code.
    fn plan(&self, segmenter: quire::sentence::Segmenter) -> Result<Plan, ApiError> {
        let flag = |b: bool| if b { "1" } else { "0" };
        let coordinates = match self.tei_coordinates.as_deref() {
            Some("all") => COORDINATE_ELEMENTS.join(","),
            Some(list) => list.to_string(),
            None => String::new(),
        };
        let mut pairs = vec![
            ("consolidateHeader", self.consolidate_header.as_str()),
            ("consolidateCitations", self.consolidate_citations.as_str()),
            ("consolidateFunders", self.consolidate_funders.as_str()),
            ("segmentSentences", flag(self.segment_sentences)),
            ("generateIDs", flag(self.generate_ids)),
            ("includeRawCitations", flag(self.include_raw_citations)),
            (
                "includeRawAffiliations",
                flag(self.include_raw_affiliations),
            ),
            ("teiCoordinates", coordinates.as_str()),
        ];
        if let Some(f) = &self.flavor {
            pairs.push(("flavor", f));
        }
        let params = Params::from_pairs(pairs);
        Ok(match self.endpoint {
            Endpoint::Fulltext => Plan::Fulltext(FulltextParams::from_params(&params)?, segmenter),
            Endpoint::Header => Plan::Header(header_params(&params)?),
            Endpoint::References => {
                let consolidate = params.int_range("consolidateCitations", 0, 0, 2)?;
                Plan::References {
                    include_raw: self.include_raw_citations,
                    consolidate,
                }
            }
        })
    }
}

/// Every `*.pdf` (any case) under `dir`, sorted, leaving out the folder `skip`.
pub fn find_pdfs(dir: &Path, skip: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d)? {
            let path = entry?.path();
            if path.is_dir() {
                if path.canonicalize().ok().as_deref() != Some(skip) {
                    todo.push(path);
                }
            } else if path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("pdf"))
            {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Where the answer and the error file of `pdf` go: the same relative folder under `output`,
/// `NAME.<endpoint>.tei.xml` and `NAME.<endpoint>.error.txt`.
pub fn output_paths(
    input: &Path,
    output: &Path,
    pdf: &Path,
    endpoint: Endpoint,
) -> (PathBuf, PathBuf) {
    let rel = pdf.strip_prefix(input).unwrap_or(pdf);
    let folder = output.join(rel.parent().unwrap_or(Path::new("")));
    let stem = pdf
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "document".into());
    let e = endpoint.name();
    (
        folder.join(format!("{stem}.{e}.tei.xml")),
        folder.join(format!("{stem}.{e}.error.txt")),
    )
}

/// How one PDF went.
enum Outcome {
    Done,
    Skipped,
    Failed,
}

/// The counts of the summary.
#[derive(Default)]
struct Counts {
    done: AtomicUsize,
    skipped: AtomicUsize,
    failed: AtomicUsize,
}

pub fn run(args: BatchArgs) -> anyhow::Result<()> {
    let config = load_config_file(args.config.clone())?;
    crate::logging::init("warn", false);
    let plan = args
        .plan(config.sentence_segmenter())
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    anyhow::ensure!(
        args.input.is_dir(),
        "--input {} is not a folder",
        args.input.display()
    );
    std::fs::create_dir_all(&args.output)
        .with_context(|| format!("cannot create --output {}", args.output.display()))?;
    let skip = args.output.canonicalize()?;
    let mut pdfs = match &args.files_from {
        Some(list) => {
            let text = std::fs::read_to_string(list)
                .with_context(|| format!("cannot read --files-from {}", list.display()))?;
            read_listing(&text, &args.input)
        }
        None => find_pdfs(&args.input, &skip)
            .with_context(|| format!("cannot list {}", args.input.display()))?,
    };
    if let Some(shard) = args.shard {
        pdfs = shard.select(pdfs);
    }
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let started = Instant::now();
    let counts = Arc::new(Counts::default());
    actix_web::rt::System::new().block_on(run_all(&args, &config, plan, pdfs, jobs, &counts))?;
    let seconds = started.elapsed().as_secs_f64();
    let (done, skipped, failed) = (
        counts.done.load(Ordering::Relaxed),
        counts.skipped.load(Ordering::Relaxed),
        counts.failed.load(Ordering::Relaxed),
    );
    let processed = done + failed;
    println!(
        "{done} done, {skipped} skipped, {failed} failed in {seconds:.1} s ({:.2} PDF/s, {jobs} job(s))",
        if seconds > 0.0 {
            processed as f64 / seconds
        } else {
            0.0
        }
    );
    anyhow::ensure!(
        failed == 0,
        "{failed} PDF(s) failed; their reasons are in the .error.txt files under {}",
        args.output.display()
    );
    Ok(())
}

/// The service's pipeline in this process, without HTTP: the model actors, `jobs` PDF worker
/// processes and the coordinator (`quire batch`, `quire create-training`). Call it inside an
/// actix system.
pub(crate) fn local_pipeline(
    config: &crate::config::Config,
    jobs: usize,
) -> anyhow::Result<(Pipeline, WorkerPool)> {
    let engine = Arc::new(config.engine());
    let mut settings = config.model_settings();
    settings.preload = false;
    // Every model may tag for all documents in flight at once (the threads share one model).
    settings.threads = settings.threads.max(jobs);
    let models = Models::start(&settings);
    let workers = WorkerPool::new(
        WorkerPoolConfig::from_engine(&engine, jobs)
            .context("cannot locate the quire executable for the PDF workers")?,
    );
    let pipeline = Pipeline::start(
        CascadeCtx::new(models, engine)
            .with_pdf(workers.clone())
            .with_consolidation(config.consolidation()),
        jobs * 2,
        Duration::from_secs(config.pool.request_timeout_s),
    );
    Ok((pipeline, workers))
}

async fn run_all(
    args: &BatchArgs,
    config: &crate::config::Config,
    plan: Plan,
    pdfs: Vec<PathBuf>,
    jobs: usize,
    counts: &Counts,
) -> anyhow::Result<()> {
    let (pipeline, workers) = local_pipeline(config, jobs)?;
    let bar = indicatif::ProgressBar::new(pdfs.len() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} PDFs, {per_sec}, eta {eta} {msg}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let ctx = RunCtx {
        args,
        plan: &plan,
        pipeline: &pipeline,
        workers: &workers,
    };
    futures::stream::iter(pdfs)
        .map(|pdf| {
            let ctx = &ctx;
            async move { (ctx.one(&pdf).await, pdf) }
        })
        .buffer_unordered(jobs)
        .for_each(|(outcome, pdf)| {
            match outcome {
                Outcome::Done => counts.done.fetch_add(1, Ordering::Relaxed),
                Outcome::Skipped => counts.skipped.fetch_add(1, Ordering::Relaxed),
                Outcome::Failed => {
                    bar.suspend(|| eprintln!("failed: {}", pdf.display()));
                    counts.failed.fetch_add(1, Ordering::Relaxed)
                }
            };
            bar.inc(1);
            futures::future::ready(())
        })
        .await;
    bar.finish_and_clear();
    Ok(())
}

struct RunCtx<'a> {
    args: &'a BatchArgs,
    plan: &'a Plan,
    pipeline: &'a Pipeline,
    workers: &'a WorkerPool,
}

impl RunCtx<'_> {
    /// One PDF: skipped when its output exists, else processed and written (answer or error).
    async fn one(&self, pdf: &Path) -> Outcome {
        let a = self.args;
        let (out, err_file) = output_paths(&a.input, &a.output, pdf, a.endpoint);
        if out.is_file() && !a.force {
            return Outcome::Skipped;
        }
        let answer = match std::fs::read(pdf) {
            Ok(bytes) => self.answer(bytes, pdf).await,
            Err(e) => Err(format!("[BAD_INPUT_DATA] cannot read the file: {e}")),
        };
        let written = match &answer {
            Ok(bytes) => write_atomically(&out, bytes).and_then(|()| remove_if_present(&err_file)),
            Err(message) => write_atomically(&err_file, message.as_bytes()),
        };
        match (answer, written) {
            (Ok(_), Ok(())) => Outcome::Done,
            (_, Err(e)) => {
                tracing::error!("cannot write the answer for {}: {e}", pdf.display());
                Outcome::Failed
            }
            (Err(_), Ok(())) => Outcome::Failed,
        }
    }

    /// The endpoint's answer for one PDF, or the service's error body (`[CODE] message`).
    async fn answer(&self, bytes: Vec<u8>, pdf: &Path) -> Result<Vec<u8>, String> {
        let body = |e: ApiError| format!("[{}] {e}\n", e.code_str());
        match self.plan {
            Plan::Fulltext(p, segmenter) => {
                let stem = pdf
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                match fulltext::answer(
                    self.pipeline,
                    Some(self.workers),
                    bytes,
                    p,
                    *segmenter,
                    Kind::Tei,
                    &stem,
                )
                .await
                .map_err(body)?
                {
                    fulltext::Answer::Tei(tei) | fulltext::Answer::Dump(tei) => {
                        Ok(tei.into_bytes())
                    }
                    fulltext::Answer::Zip(zip) => Ok(zip),
                }
            }
            Plan::Header(p) => {
                let out = self
                    .pipeline
                    .run(HeaderCascade {
                        request: HeaderRequest {
                            pdf: bytes,
                            range: quire::layout::PageRange::from_grobid(p.start, p.end),
                            debug: false,
                            flavor: None,
                            consolidate_header: p.consolidate_header,
                        },
                    })
                    .await
                    .map_err(|e| body(e.into()))?;
                if out.record.is_empty() {
                    return Err(body(ApiError::NoContent));
                }
                Ok(header_tei(out.record, p, &out.consolidation).into_bytes())
            }
            Plan::References {
                include_raw,
                consolidate,
            } => {
                let out = self
                    .pipeline
                    .run(ReferencesCascade {
                        request: ReferencesRequest {
                            pdf: bytes,
                            range: quire::layout::PageRange::default(),
                            debug: false,
                            consolidate_citations: *consolidate,
                        },
                    })
                    .await
                    .map_err(|e| body(e.into()))?;
                let citations: Vec<_> = out.references.into_iter().map(|r| r.citation).collect();
                Ok(quire::tei::list_bibl(&citations, *include_raw).into_bytes())
            }
        }
    }
}

/// Writes `bytes` to `path` through a temporary file renamed into place, durably: the
/// temporary file's data reach the disk before the rename, and the folder's entry after it, so
/// that a power loss leaves either no output or the whole output, never an empty file that a
/// resumed run would skip.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_durably(&mut RealFs, path, bytes)
}

/// The file-system steps of [`write_durably`] (a trait so that a test can check their order).
trait DurableFs {
    fn create_dir_all(&mut self, dir: &Path) -> std::io::Result<()>;
    /// Writes `bytes` to a new file at `path` and flushes it to the disk (`fsync`).
    fn write_synced(&mut self, path: &Path, bytes: &[u8]) -> std::io::Result<()>;
    fn rename(&mut self, from: &Path, to: &Path) -> std::io::Result<()>;
    /// Flushes the folder's entries to the disk (`fsync` of the folder).
    fn sync_dir(&mut self, dir: &Path) -> std::io::Result<()>;
}

struct RealFs;

impl DurableFs for RealFs {
    fn create_dir_all(&mut self, dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)
    }
    fn write_synced(&mut self, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
        use std::io::Write as _;
        let mut f = std::fs::File::create(path)?;
        f.write_all(bytes)?;
        f.sync_all()
    }
    fn rename(&mut self, from: &Path, to: &Path) -> std::io::Result<()> {
        std::fs::rename(from, to)
    }
    fn sync_dir(&mut self, dir: &Path) -> std::io::Result<()> {
        std::fs::File::open(dir)?.sync_all()
    }
}

fn write_durably(fs: &mut impl DurableFs, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    fs.create_dir_all(&dir)?;
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".part");
    let tmp = std::path::PathBuf::from(tmp);
    fs.write_synced(&tmp, bytes)?;
    fs.rename(&tmp, path)?;
    fs.sync_dir(&dir)
}

fn remove_if_present(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// GROBID's single-dash `-teiCoordinates` becomes `--tei-coordinates` (clap would read it as a
/// cluster of short flags).
pub fn rewrite_grobid_flags(
    args: impl IntoIterator<Item = std::ffi::OsString>,
) -> Vec<std::ffi::OsString> {
    args.into_iter()
        .map(|a| {
            if a == "-teiCoordinates" {
                "--tei-coordinates".into()
            } else {
                a
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records the steps instead of doing them.
    #[derive(Default)]
    struct Recorder(Vec<String>);

    impl DurableFs for Recorder {
        fn create_dir_all(&mut self, dir: &Path) -> std::io::Result<()> {
            self.0.push(format!("mkdir {}", dir.display()));
            Ok(())
        }
        fn write_synced(&mut self, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
            self.0.push(format!(
                "write+fsync {} ({} bytes)",
                path.display(),
                bytes.len()
            ));
            Ok(())
        }
        fn rename(&mut self, from: &Path, to: &Path) -> std::io::Result<()> {
            self.0
                .push(format!("rename {} {}", from.display(), to.display()));
            Ok(())
        }
        fn sync_dir(&mut self, dir: &Path) -> std::io::Result<()> {
            self.0.push(format!("fsync-dir {}", dir.display()));
            Ok(())
        }
    }

    #[test]
    fn an_output_is_synced_before_its_rename_and_its_folder_after() {
        let mut fs = Recorder::default();
        write_durably(&mut fs, Path::new("/out/a/x.tei.xml"), b"<TEI/>").expect("write");
        assert_eq!(
            fs.0,
            vec![
                "mkdir /out/a",
                "write+fsync /out/a/x.tei.xml.part (6 bytes)",
                "rename /out/a/x.tei.xml.part /out/a/x.tei.xml",
                "fsync-dir /out/a",
            ]
        );
        let dir = tempfile::tempdir().expect("temp dir");
        let out = dir.path().join("sub/y.tei.xml");
        write_atomically(&out, b"<TEI/>").expect("real write");
        assert_eq!(std::fs::read(&out).expect("read"), b"<TEI/>");
        assert!(!dir.path().join("sub/y.tei.xml.part").exists());
    }

    #[test]
    fn shards_split_a_listing_without_overlap_or_gaps() {
        let listing: Vec<usize> = (0..103).collect();
        let mut seen = Vec::new();
        for index in 0..4 {
            let part = Shard { index, count: 4 }.select(listing.clone());
            assert!(part.len() == 25 || part.len() == 26, "{}", part.len());
            seen.extend(part);
        }
        seen.sort();
        assert_eq!(seen, listing);
    }

    #[test]
    fn shard_arguments_are_checked() {
        assert_eq!(parse_shard("2/5"), Ok(Shard { index: 2, count: 5 }));
        assert!(parse_shard("5/5").unwrap_err().contains("not below"));
        assert!(parse_shard("0/0").unwrap_err().contains("at least 1"));
        assert!(parse_shard("3").unwrap_err().contains("I/N"));
        assert!(parse_shard("a/2").unwrap_err().contains("index"));
    }

    #[test]
    fn listings_are_relative_to_the_input_sorted_and_deduplicated() {
        let input = Path::new("/data/in");
        let got = read_listing(
            "# pdfs\nb/2.pdf\n\n  a/1.pdf \nb/2.pdf\n/abs/3.pdf\n",
            input,
        );
        assert_eq!(
            got,
            vec![
                PathBuf::from("/abs/3.pdf"),
                PathBuf::from("/data/in/a/1.pdf"),
                PathBuf::from("/data/in/b/2.pdf"),
            ]
        );
    }

    #[test]
    fn outputs_mirror_the_input_tree() {
        let (out, err) = output_paths(
            Path::new("/in"),
            Path::new("/out"),
            Path::new("/in/a/b/paper.v2.PDF"),
            Endpoint::Fulltext,
        );
        assert_eq!(out, Path::new("/out/a/b/paper.v2.fulltext.tei.xml"));
        assert_eq!(err, Path::new("/out/a/b/paper.v2.fulltext.error.txt"));
    }

    #[test]
    fn pdfs_are_found_recursively_and_the_output_folder_is_left_out() {
        let dir = tempfile::tempdir().expect("temp");
        let root = dir.path();
        for f in ["a.pdf", "sub/b.PDF", "sub/notes.txt", "out/c.pdf"] {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(&p, b"x").expect("write");
        }
        let skip = root.join("out").canonicalize().expect("out");
        let found = find_pdfs(root, &skip).expect("listed");
        let names: Vec<_> = found
            .iter()
            .map(|p| p.strip_prefix(root).expect("under root").to_path_buf())
            .collect();
        assert_eq!(names, [Path::new("a.pdf"), Path::new("sub/b.PDF")]);
    }

    #[test]
    fn the_grobid_spelling_of_tei_coordinates_is_rewritten() {
        let args =
            rewrite_grobid_flags(["quire", "batch", "-teiCoordinates", "--force"].map(Into::into));
        assert_eq!(args[2], "--tei-coordinates");
        assert_eq!(args[3], "--force");
    }
}
