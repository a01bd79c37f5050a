//! `quire embed`: learn word vectors from the unlabelled text of training corpora (skip-gram
//! with negative sampling, `quire::deep::embed`), for `quire train --embeddings FILE`.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use quire::deep::embed::{self, EmbedParams};

#[derive(Debug, Clone, clap::Args)]
pub struct EmbedArgs {
    /// Where to write the vectors (word2vec's text format).
    #[arg(long)]
    pub out: PathBuf,
    /// Corpora whose TEI text is read (folders under the dataset's; a model's labels are not
    /// read, only its text).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "segmentation,reference-segmenter"
    )]
    pub corpora: Vec<String>,
    /// Leave out the text of every document that also has a file in these corpora (so that
    /// a cross-validation of those models never scores references whose text the vectors
    /// were learnt from).
    #[arg(long, value_delimiter = ',', default_value = "citation")]
    pub skip_documents_of: Vec<String>,
    /// Dataset folder (default: $QUIRE_DATASET or the unpacked corpora).
    #[arg(long)]
    pub dataset: Option<PathBuf>,
    /// Vector width.
    #[arg(long, default_value_t = EmbedParams::default().dim)]
    pub dim: usize,
    /// Passes over the text.
    #[arg(long, default_value_t = EmbedParams::default().epochs)]
    pub epochs: usize,
    /// Words seen fewer times get no vector.
    #[arg(long, default_value_t = EmbedParams::default().min_count)]
    pub min_count: usize,
    /// The most words on each side a word predicts.
    #[arg(long, default_value_t = EmbedParams::default().window)]
    pub window: usize,
    #[arg(long, default_value_t = EmbedParams::default().seed)]
    pub seed: u64,
}

pub fn run(args: EmbedArgs) -> anyhow::Result<()> {
    let dataset = args.dataset.unwrap_or_else(quire::config::dataset_dir);
    let started = Instant::now();
    let mut skip = std::collections::HashSet::new();
    for name in &args.skip_documents_of {
        let dir = dataset.join(name).join("corpus");
        let entries =
            std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))?;
        for e in entries.flatten() {
            skip.insert(quire::corpus::words::document_stem(
                &e.file_name().to_string_lossy(),
            ));
        }
    }
    let mut text = Vec::new();
    for name in &args.corpora {
        let dir = dataset.join(name).join("corpus");
        let part = quire::corpus::words::corpus_text(&dir, &skip)
            .with_context(|| format!("corpus `{name}`"))?;
        let tokens: usize = part.iter().map(Vec::len).sum();
        eprintln!("{name}: {} text runs, {tokens} tokens", part.len());
        text.extend(part);
    }
    let params = EmbedParams {
        dim: args.dim,
        epochs: args.epochs,
        min_count: args.min_count,
        window: args.window,
        seed: args.seed,
        ..EmbedParams::default()
    };
    let vectors = embed::train(&text, &params)?;
    vectors.write(&args.out)?;
    eprintln!(
        "{} words of {} dimensions written to {} in {:.1} s",
        vectors.words.len(),
        vectors.dim,
        args.out.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
