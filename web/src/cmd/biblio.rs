/*!
`quire biblio`: the embedded bibliographic index that consolidation uses.

- `import [--index-dir DIR] PATH...`: reads Crossref REST work records (JSON Lines, or the
  public data file's `{"items": [...]}` files; gzip or not; a folder stands for every
  `.json`, `.jsonl`, `.json.gz`, `.jsonl.gz` file under it) into the index, with a progress
  bar; a second run over the same files resumes where the first stopped. Prints the records
  read, indexed and rejected (per reason).
- `stats`: records, segments, bytes on disk, files imported.
- `lookup --doi X` or `--title T [--author A] [--year Y] [--journal J]`: the record found,
  and for a search every candidate with its score or why it was refused. `--queries FILE`
  runs a JSON Lines file of lookups (`{"doi": …}` or `{"title", "author", "year", "journal",
  "volume", "first_page"}`) as consolidation does, prints one JSON line per query and the
  rates (DOI lookups per second, bibliographic matches per second) on stderr.

- `import-funders [--index-dir DIR] PATH...`: reads the Crossref Funder Registry as the REST
  API gives it (funder objects, JSON Lines or `{"message": {"items": [...]}}` files, gzip or
  not) and merges it by funder id into `funders.jsonl` in the index folder, which the service
  loads at start for `consolidateFunders`. Prints the funders read, added, updated and
  rejected (per reason).
- `funder NAME`: the registry's funder for a printed name, and how it matched.

The index folder is `--index-dir`, else the config's `consolidation.index_dir`.
*/

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use quire::consolidation::{matching, BiblioIndex, Consolidator, Extracted, FunderRegistry};

use crate::cmd::serve::load_config_file;

#[derive(Debug, clap::Args)]
pub struct BiblioArgs {
    #[command(subcommand)]
    pub command: BiblioCommand,
}

#[derive(Debug, clap::Args)]
pub struct IndexArgs {
    /// The index folder (default: the config's `consolidation.index_dir`).
    #[arg(long, value_name = "DIR")]
    pub index_dir: Option<PathBuf>,
    /// Configuration file (default: `config.toml` in the working directory, if present).
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
}

#[derive(Debug, clap::Subcommand)]
pub enum BiblioCommand {
    /// Import Crossref work records (JSON Lines or {"items": [...]} files, gzip or not).
    Import {
        #[command(flatten)]
        index: IndexArgs,
        /// Files, or folders holding them.
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
    },
    /// Import the Crossref Funder Registry (funder objects: JSON Lines or {"message":
    /// {"items": [...]}} files, gzip or not) for consolidateFunders.
    ImportFunders {
        #[command(flatten)]
        index: IndexArgs,
        /// Files, or folders holding them.
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
    },
    /// The Funder Registry's funder for a printed name, as consolidateFunders finds it.
    Funder {
        #[command(flatten)]
        index: IndexArgs,
        /// The funder's name as printed.
        name: String,
    },
    /// Print the index's size and content.
    Stats {
        #[command(flatten)]
        index: IndexArgs,
    },
    /// Look a record up by DOI, or by title and author as consolidation does.
    Lookup {
        #[command(flatten)]
        index: IndexArgs,
        #[arg(long, conflicts_with_all = ["title", "author", "queries"])]
        doi: Option<String>,
        #[arg(long, required_unless_present_any = ["doi", "queries"], conflicts_with = "queries")]
        title: Option<String>,
        /// A JSON Lines file of lookups, run one after the other on one thread.
        #[arg(long, value_name = "FILE")]
        queries: Option<PathBuf>,
        /// The first author's surname.
        #[arg(long)]
        author: Option<String>,
        #[arg(long)]
        year: Option<i32>,
        #[arg(long)]
        journal: Option<String>,
    },
}

impl IndexArgs {
    fn dir(&self) -> anyhow::Result<PathBuf> {
        if let Some(d) = &self.index_dir {
            return Ok(d.clone());
        }
        let config = load_config_file(self.config.clone())?;
        Ok(config.consolidation.index_dir)
    }
}

/// The work files under `path` (itself when it is a file), sorted.
fn work_files(path: &Path) -> anyhow::Result<Vec<PathBuf>> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut out = Vec::new();
    let mut todo = vec![path.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in
            std::fs::read_dir(&d).with_context(|| format!("cannot read {}", d.display()))?
        {
            let p = entry?.path();
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().to_ascii_lowercase())
                .unwrap_or_default();
            if p.is_dir() {
                todo.push(p);
            } else if [
                ".json",
                ".jsonl",
                ".json.gz",
                ".jsonl.gz",
                ".ndjson",
                ".ndjson.gz",
            ]
            .iter()
            .any(|ext| name.ends_with(ext))
            {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The record files under every path given, in the order given.
fn all_work_files(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for p in paths {
        files.extend(work_files(p)?);
    }
    Ok(files)
}

fn import(index: &IndexArgs, paths: &[PathBuf]) -> anyhow::Result<()> {
    let dir = index.dir()?;
    let files = all_work_files(paths)?;
    let idx = BiblioIndex::open_or_create(&dir)?;
    let bar = indicatif::ProgressBar::new(files.len() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:30} {pos}/{len} files, {elapsed_precise} {msg}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let started = std::time::Instant::now();
    let counts = idx.import(&files, |c, _| {
        bar.set_position(c.files);
        bar.set_message(format!(
            "read {} indexed {} rejected {} skipped {}",
            c.read,
            c.indexed,
            c.rejected_total(),
            c.skipped
        ));
    })?;
    bar.finish_and_clear();
    let secs = started.elapsed().as_secs_f64();
    println!("index: {}", dir.display());
    println!("files: {}", counts.files);
    println!("read: {}", counts.read);
    println!("indexed: {}", counts.indexed);
    println!("rejected: {}", counts.rejected_total());
    for (reason, n) in &counts.rejected {
        println!("  {reason}: {n}");
    }
    println!("skipped (imported before): {}", counts.skipped);
    println!(
        "seconds: {secs:.1} ({:.0} records/s)",
        counts.read as f64 / secs.max(1e-9)
    );
    let stats = idx.stats()?;
    println!("records in the index: {}", stats.records);
    Ok(())
}

fn stats(index: &IndexArgs) -> anyhow::Result<()> {
    let dir = index.dir()?;
    if !BiblioIndex::exists(&dir) {
        anyhow::bail!("no bibliographic index in {}", dir.display());
    }
    let s = BiblioIndex::open(&dir)?.stats()?;
    println!("index: {}", dir.display());
    println!("records: {}", s.records);
    println!("segments: {}", s.segments);
    println!("bytes: {}", s.bytes);
    if s.records > 0 {
        println!("bytes per record: {:.0}", s.bytes as f64 / s.records as f64);
    }
    println!(
        "files imported: {} of {} known",
        s.files_complete, s.files_known
    );
    Ok(())
}

fn lookup(index: &IndexArgs, doi: Option<&str>, e: Extracted) -> anyhow::Result<()> {
    let dir = index.dir()?;
    if !BiblioIndex::exists(&dir) {
        anyhow::bail!("no bibliographic index in {}", dir.display());
    }
    let idx = BiblioIndex::open(&dir)?;
    if let Some(doi) = doi {
        let key = quire::doi::normalize(doi).with_context(|| format!("`{doi}` is not a DOI"))?;
        return match idx.get_doi(&key)? {
            Some(r) => {
                println!("{}", serde_json::to_string_pretty(&r)?);
                Ok(())
            }
            None => anyhow::bail!("no record for {key}"),
        };
    }
    let candidates = idx.search(&e, matching::CANDIDATES)?;
    for r in &candidates {
        match matching::score(&e, r) {
            Some(s) => println!(
                "candidate {} score {s:.3}: {}",
                r.doi,
                r.title.as_deref().unwrap_or("")
            ),
            None => println!(
                "candidate {} refused: {}",
                r.doi,
                r.title.as_deref().unwrap_or("")
            ),
        }
    }
    match matching::best(&e, candidates) {
        Some(m) => {
            println!("match:\n{}", serde_json::to_string_pretty(&m.record)?);
            Ok(())
        }
        None => anyhow::bail!("no record matches"),
    }
}

/// One query of a `--queries` file.
#[derive(Debug, serde::Deserialize)]
struct Query {
    doi: Option<String>,
    title: Option<String>,
    author: Option<String>,
    year: Option<i32>,
    journal: Option<String>,
    volume: Option<String>,
    first_page: Option<String>,
}

fn batch(index: &IndexArgs, file: &Path) -> anyhow::Result<()> {
    use std::io::Write as _;
    let dir = index.dir()?;
    if !BiblioIndex::exists(&dir) {
        anyhow::bail!("no bibliographic index in {}", dir.display());
    }
    let consolidator = Consolidator::new(Box::new(BiblioIndex::open(&dir)?));
    let text =
        std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let (mut doi_n, mut doi_found, mut doi_time) = (0u64, 0u64, 0f64);
    let (mut bib_n, mut bib_found, mut bib_time) = (0u64, 0u64, 0f64);
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let q: Query = serde_json::from_str(line)
            .with_context(|| format!("{} line {}", file.display(), i + 1))?;
        let by_doi = q.doi.is_some();
        let e = Extracted {
            doi: q.doi,
            title: q.title,
            first_author: q.author,
            container: q.journal,
            year: q.year,
            volume: q.volume,
            first_page: q.first_page,
        };
        let t = std::time::Instant::now();
        let found = consolidator.find(&e, by_doi)?;
        let secs = t.elapsed().as_secs_f64();
        if by_doi {
            doi_n += 1;
            doi_time += secs;
            doi_found += u64::from(found.is_some());
        } else {
            bib_n += 1;
            bib_time += secs;
            bib_found += u64::from(found.is_some());
        }
        let line = serde_json::json!({
            "line": i + 1,
            "doi": found.as_ref().map(|o| o.record.doi.clone()),
            "kind": found.as_ref().map(|o| format!("{:?}", o.kind).to_lowercase()),
        });
        writeln!(out, "{line}")?;
    }
    out.flush()?;
    let rate = |n: u64, t: f64| if t > 0.0 { n as f64 / t } else { 0.0 };
    eprintln!(
        "doi lookups: {doi_n} ({doi_found} found) in {doi_time:.3} s: {:.0}/s",
        rate(doi_n, doi_time)
    );
    eprintln!(
        "bibliographic matches: {bib_n} ({bib_found} accepted) in {bib_time:.3} s: {:.1}/s",
        rate(bib_n, bib_time)
    );
    Ok(())
}

fn import_funders(index: &IndexArgs, paths: &[PathBuf]) -> anyhow::Result<()> {
    let dir = index.dir()?;
    let files = all_work_files(paths)?;
    let counts = FunderRegistry::import(&dir, &files)?;
    println!(
        "funders: {} read, {} added, {} updated, {} rejected; {} in {}",
        counts.read,
        counts.added,
        counts.updated,
        counts.rejected.values().sum::<u64>(),
        counts.total,
        FunderRegistry::path(&dir).display()
    );
    let mut reasons: Vec<_> = counts.rejected.iter().collect();
    reasons.sort();
    for (why, n) in reasons {
        println!("  rejected ({why}): {n}");
    }
    Ok(())
}

fn funder(index: &IndexArgs, name: &str) -> anyhow::Result<()> {
    let dir = index.dir()?;
    let Some(registry) = FunderRegistry::load(&dir)? else {
        anyhow::bail!(
            "no funder registry in {} (import one with `quire biblio import-funders`)",
            dir.display()
        );
    };
    match registry.lookup(name) {
        Some((r, how)) => println!(
            "{}",
            serde_json::json!({
                "doi": r.doi(),
                "name": r.name,
                "location": r.location,
                "match": format!("{how:?}").to_lowercase(),
            })
        ),
        None => anyhow::bail!(
            "no funder of the {} in the registry matches `{name}`",
            registry.len()
        ),
    }
    Ok(())
}

pub fn run(args: BiblioArgs) -> anyhow::Result<()> {
    match args.command {
        BiblioCommand::Import { index, paths } => import(&index, &paths),
        BiblioCommand::ImportFunders { index, paths } => import_funders(&index, &paths),
        BiblioCommand::Funder { index, name } => funder(&index, &name),
        BiblioCommand::Stats { index } => stats(&index),
        BiblioCommand::Lookup {
            index,
            queries: Some(file),
            ..
        } => batch(&index, &file),
        BiblioCommand::Lookup {
            index,
            doi,
            title,
            author,
            year,
            journal,
            queries: None,
        } => lookup(
            &index,
            doi.as_deref(),
            Extracted {
                title,
                first_author: author,
                year,
                container: journal,
                ..Extracted::default()
            },
        ),
    }
}
