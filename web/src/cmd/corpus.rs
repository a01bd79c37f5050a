//! `quire corpus MODEL`: read a model's training corpus and evaluation data through the model's
//! own reader (the one training uses) and print what was read: files used and dropped with
//! their reasons, sequences, tokens or feature rows, raw rows left unaligned, and per label the
//! tokens/rows and fields (spans) it covers.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use quire::corpus::{Part, ReadStats};
use quire::crf::Sequence;
use quire::flavor::Flavor;
use quire::models::ModelName;
use quire::training as models;

#[derive(Debug, Clone, clap::Args)]
pub struct CorpusArgs {
    /// Model name as GROBID spells it: fulltext, figure, table, reference-segmenter, date, ...
    pub model: String,
    /// Model flavour (e.g. article/light).
    #[arg(long)]
    pub flavor: Option<String>,
    /// Dataset folder (default: $QUIRE_DATASET or the unpacked corpora).
    #[arg(long)]
    pub dataset: Option<PathBuf>,
    /// Print every dropped file, not only the first ten per reason.
    #[arg(long)]
    pub all_dropped: bool,
}

/// Tokens (rows) and fields per plain label.
fn label_counts(seqs: &[Sequence]) -> BTreeMap<String, (usize, usize)> {
    let mut counts: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for s in seqs {
        for l in &s.labels {
            counts
                .entry(quire::labels::plain(l).to_string())
                .or_default()
                .0 += 1;
        }
        for (label, _, _) in quire::labels::named_fields(&s.labels) {
            counts.entry(label.to_string()).or_default().1 += 1;
        }
    }
    counts
}

fn print_part(
    out: &mut impl Write,
    model: &str,
    part: &str,
    seqs: &[Sequence],
    stats: &ReadStats,
    all_dropped: bool,
) -> std::io::Result<()> {
    writeln!(
        out,
        "{model} {part}: {} files read, {} dropped, {} sequences, {} tokens/rows, {} unaligned raw rows",
        stats.files_read,
        stats.files_dropped.len(),
        stats.sequences,
        stats.tokens,
        stats.unaligned
    )?;
    let mut by_reason: BTreeMap<&str, Vec<&std::path::Path>> = BTreeMap::new();
    for (path, why) in &stats.files_dropped {
        // Reasons that name the file (errors) are grouped by their text after the path.
        let shown = path.display().to_string();
        let reason = why
            .strip_prefix(shown.as_str())
            .map(|r| r.trim_start_matches([':', ' ']))
            .unwrap_or(why);
        by_reason.entry(reason).or_default().push(path);
    }
    for (reason, paths) in &by_reason {
        writeln!(out, "  dropped {} × {reason}", paths.len())?;
        let shown = if all_dropped { paths.len() } else { 10 };
        for p in paths.iter().take(shown) {
            writeln!(out, "      {}", p.display())?;
        }
        if paths.len() > shown {
            writeln!(out, "      … {} more (--all-dropped)", paths.len() - shown)?;
        }
    }
    let counts = label_counts(seqs);
    if !counts.is_empty() {
        writeln!(out, "  {:<24} {:>10} {:>8}", "label", "rows", "fields")?;
        for (label, (rows, fields)) in &counts {
            writeln!(out, "  {label:<24} {rows:>10} {fields:>8}")?;
        }
    }
    Ok(())
}

/// `quire corpus MODEL [--flavor F] [--dataset DIR]`. Output cut short by a closed pipe
/// (`quire corpus fulltext | head`) is not an error.
pub fn run(args: CorpusArgs) -> anyhow::Result<()> {
    match report(args) {
        Err(e)
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            Ok(())
        }
        other => other,
    }
}

fn report(args: CorpusArgs) -> anyhow::Result<()> {
    let name: ModelName = args.model.parse().map_err(anyhow::Error::msg)?;
    let flavor = match args.flavor.as_deref() {
        None => None,
        Some(f) => Some(Flavor::named(f).with_context(|| format!("unknown flavour `{f}`"))?),
    };
    let spec = models::spec(name, flavor)
        .with_context(|| format!("model `{}` has no corpus reader in this build", args.model))?;
    let dataset = args
        .dataset
        .clone()
        .unwrap_or_else(quire::config::dataset_dir);
    let label = spec.name().dir_name(spec.flavor());
    let mut out = std::io::stdout().lock();
    writeln!(out, "dataset: {}", dataset.display())?;
    let mut any = false;
    for (part, part_name) in [(Part::Corpus, "corpus"), (Part::Evaluation, "evaluation")] {
        match spec.read(&dataset, part) {
            Ok((seqs, stats)) => {
                any = true;
                print_part(&mut out, &label, part_name, &seqs, &stats, args.all_dropped)?;
            }
            Err(e) => writeln!(out, "{label} {part_name}: not read: {e}")?,
        }
    }
    if !any {
        anyhow::bail!(
            "no part of the `{label}` corpus could be read under {}",
            dataset.display()
        );
    }
    Ok(())
}
