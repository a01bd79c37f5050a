//! `quire train`, `quire eval` and `quire tag`: the command-line face of the CRF core. Each
//! command resolves a model's spec, then calls the engine (`training`, `crf::Model`) and
//! prints progress and GROBID-style evaluation tables; `quire eval` on a raw-string model adds
//! the value-level figure of the endpoint's own path (`strings.rs`).

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use anyhow::{bail, Context};
use quire::corpus::Part;
use quire::crf::Model;
use quire::deep::DeepParams;
use quire::eval::Evaluation;
use quire::flavor::Flavor;
use quire::models::ModelName;
use quire::training::{self, Event, TrainingKind, DEFAULT_SEED};
use quire::training::{self as models, ModelSpec};

/// How `quire train` splits the data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum KindArg {
    /// Train on corpus/ and evaluation/ together; write the model.
    Full,
    /// Train on corpus/, evaluate on evaluation/; write the model.
    Holdout,
    /// Random split of corpus/ (--ratio, --seed); nothing written.
    Split,
    /// n-fold cross-validation on corpus/ (--folds, --seed); nothing written.
    Nfold,
}

/// Which architecture to train or evaluate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default)]
pub enum ArchitectureArg {
    /// The linear-chain CRF (models/<model>/model.crf).
    #[default]
    Crf,
    /// The BiLSTM-CRF on candle (models/<model>/bilstm-crf/).
    BilstmCrf,
    /// Both, decoding together (`--crf-weight`); training with it evaluates the pair on a
    /// split or n-fold and writes nothing.
    CrfBilstmCrf,
}

/// Model selection shared by the three commands.
#[derive(Debug, Clone, clap::Args)]
pub struct ModelArgs {
    /// Model name as GROBID spells it: date, citation, name-header, affiliation-address, ...
    pub model: String,
    /// Model flavour (e.g. article/light).
    #[arg(long)]
    pub flavor: Option<String>,
    /// Folder holding the trained models.
    #[arg(long, default_value = "models")]
    pub models_dir: PathBuf,
    /// Dataset folder (default: $QUIRE_DATASET or the unpacked corpora).
    #[arg(long)]
    pub dataset: Option<PathBuf>,
}

impl ModelArgs {
    fn spec(&self) -> anyhow::Result<&'static dyn ModelSpec> {
        let name: ModelName = self.model.parse().map_err(anyhow::Error::msg)?;
        let flavor = match self.flavor.as_deref() {
            None => None,
            Some(f) => Some(Flavor::named(f).with_context(|| format!("unknown flavour `{f}`"))?),
        };
        models::spec(name, flavor)
            .with_context(|| format!("model `{}` has no trainable spec in this build", self.model))
    }
    fn dataset(&self) -> PathBuf {
        self.dataset
            .clone()
            .unwrap_or_else(quire::config::dataset_dir)
    }
}

#[derive(Debug, Clone, clap::Args)]
pub struct TrainArgs {
    #[command(flatten)]
    pub model: ModelArgs,
    /// full | holdout | split | nfold
    #[arg(long = "type", value_enum, default_value = "holdout")]
    pub kind: KindArg,
    /// Training share for --type split.
    #[arg(long, default_value_t = 0.9)]
    pub ratio: f64,
    /// Folds for --type nfold.
    #[arg(long, default_value_t = 10)]
    pub folds: usize,
    /// Run only these folds of --type nfold (`5-10`, or `3` for one), counted from 1: the
    /// same cuts as the whole run, so a long cross-validation can be run in parts.
    #[arg(long, value_parser = parse_fold_range)]
    pub only_folds: Option<(usize, usize)>,
    /// Shuffling seed for split and nfold (default: GROBID's 839374947498).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Override the model's maximum number of L-BFGS iterations.
    #[arg(long)]
    pub max_iter: Option<usize>,
    /// Training threads (0 = all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Override the L1 penalty (Wapiti's rho1).
    #[arg(long)]
    pub c1: Option<f64>,
    /// Override the L2 penalty (Wapiti's rho2).
    #[arg(long)]
    pub c2: Option<f64>,
    /// Override the stopping epsilon.
    #[arg(long)]
    pub epsilon: Option<f64>,
    /// Write the full report as JSON to this file.
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// CRF: train with the feature template in this file instead of the model's own
    /// (CRF++-style `U..:%x[r,c]` lines and `B`); the model folder keeps the template it used.
    #[arg(long)]
    pub template: Option<PathBuf>,
    /// crf | bilstm-crf
    #[arg(long, value_enum, default_value = "crf")]
    pub architecture: ArchitectureArg,
    /// BiLSTM-CRF: the most epochs.
    #[arg(long)]
    pub epochs: Option<usize>,
    /// BiLSTM-CRF: LSTM units per direction.
    #[arg(long)]
    pub hidden: Option<usize>,
    /// BiLSTM-CRF: Adam's learning rate.
    #[arg(long)]
    pub learning_rate: Option<f64>,
    /// BiLSTM-CRF: the dropout rate on the LSTM's inputs and outputs.
    #[arg(long)]
    pub dropout: Option<f32>,
    /// BiLSTM-CRF: word vectors (word2vec's text format, as `quire embed` writes them) read
    /// as a frozen input channel beside the learned word embedding.
    #[arg(long)]
    pub embeddings: Option<PathBuf>,
    /// BiLSTM-CRF: sequences per batch.
    #[arg(long)]
    pub batch: Option<usize>,
    /// BiLSTM-CRF: the seed of its held-out part, initial weights, batch order and dropout
    /// masks (the same seed and data give the same model).
    #[arg(long)]
    pub deep_seed: Option<u64>,
    /// BiLSTM-CRF: epochs without gain on the held-out tenth before stopping.
    #[arg(long)]
    pub patience: Option<usize>,
    /// BiLSTM-CRF: cut training sequences into windows of at most this many tokens (0: whole
    /// sequences), so that long ones train in batches.
    #[arg(long)]
    pub max_length: Option<usize>,
    /// Start from the weights of the model in --models-dir (GROBID's incremental training).
    #[arg(long)]
    pub incremental: bool,
    /// crf-bilstm-crf: the weight of the CRF's scores (the BiLSTM-CRF's get 1 − it).
    #[arg(long, default_value_t = quire::tagger::DEFAULT_CRF_WEIGHT)]
    pub crf_weight: f32,
    /// crf-bilstm-crf: an ensemble of this many BiLSTM-CRFs (seeds `--deep-seed`, `+ 1`, …,
    /// trained side by side on threads) whose mean score pairs with the CRF's.
    #[arg(long, default_value_t = 1)]
    pub deep_models: usize,
    /// Write every evaluated sequence the model labels differently from its gold to this
    /// file (token, gold, predicted; `*` marks the differing tokens), for error analysis.
    #[arg(long)]
    pub errors: Option<PathBuf>,
    /// CRF n-fold: also score apart the held-out sequences that this dataset folder's corpus
    /// holds too (a view of some corpus files, as `bench/corpus_view` makes one), and the rest.
    #[arg(long)]
    pub apart: Option<PathBuf>,
}

#[derive(Debug, Clone, clap::Args)]
pub struct EvalArgs {
    #[command(flatten)]
    pub model: ModelArgs,
    /// Also post every evaluation item to the service at this URL (e.g.
    /// http://localhost:8070), score its answers the same way, and measure requests/s
    /// (raw-string models only).
    #[arg(long)]
    pub url: Option<String>,
    /// Print up to this many items whose HTTP answer differs from the in-process one.
    #[arg(long, default_value_t = 5)]
    pub show_diffs: usize,
    /// Print up to this many items whose decoded fields differ from the gold ones.
    #[arg(long, default_value_t = 0)]
    pub show_errors: usize,
    /// With --url: each timed pass (concurrency 1 and 10) repeats the items until at least
    /// this many requests are made.
    #[arg(long, default_value_t = 10000)]
    pub min_requests: usize,
    /// crf | bilstm-crf | crf-bilstm-crf: which committed model to evaluate.
    #[arg(long, value_enum, default_value = "crf")]
    pub architecture: ArchitectureArg,
    /// crf-bilstm-crf: the weight of the CRF's scores (the BiLSTM-CRF's get 1 − it).
    #[arg(long, default_value_t = quire::tagger::DEFAULT_CRF_WEIGHT)]
    pub crf_weight: f32,
}

#[derive(Debug, Clone, clap::Args)]
pub struct TagArgs {
    #[command(flatten)]
    pub model: ModelArgs,
}

fn print_event(e: &Event) {
    let mut err = std::io::stderr().lock();
    let _ = match e {
        Event::Read {
            part,
            files,
            files_dropped,
            sequences,
            tokens,
        } => writeln!(
            err,
            "read {part}: {files} files ({files_dropped} dropped), {sequences} sequences, {tokens} tokens"
        ),
        Event::TrainingStarted {
            fold,
            folds,
            sequences,
            tokens,
        } => writeln!(
            err,
            "training [{fold}/{folds}] on {sequences} sequences, {tokens} tokens"
        ),
        Event::Iteration {
            fold,
            folds,
            progress: p,
        } => writeln!(
            err,
            "[{fold}/{folds}] iter {:>4}  loss {:>14.3}  err {:>6.2}%  active {:>9}  {:>8.1} s",
            p.iteration, p.loss, p.train_error, p.active_features, p.elapsed_s
        ),
        Event::Evaluated {
            fold,
            folds,
            field_micro_f1,
        } => writeln!(
            err,
            "[{fold}/{folds}] field-level micro F1 {field_micro_f1:.2}"
        ),
        Event::Written { dir, model_bytes } => {
            writeln!(err, "wrote {} ({model_bytes} bytes)", dir.display())
        }
        Event::Swept {
            fold,
            folds,
            field_micro_f1,
        } => {
            let sweep: Vec<String> = field_micro_f1
                .iter()
                .map(|(w, f1)| format!("{w:.1} {f1:.2}"))
                .collect();
            writeln!(err, "[{fold}/{folds}] by CRF weight: {}", sweep.join(", "))
        }
        // Written to the `--errors` file (or nowhere), never to the terminal.
        Event::Mislabelled { .. } => Ok(()),
    };
}

/// One mislabelled sequence for `--errors`: a `# fold F` line, then one line per token
/// (`token<TAB>gold<TAB>predicted`, with a fourth column `*` where they differ) and a blank
/// line.
fn write_mislabelled(
    out: &mut impl Write,
    fold: usize,
    tokens: &[String],
    gold: &[String],
    predicted: &[String],
) -> std::io::Result<()> {
    writeln!(out, "# fold {fold}")?;
    for ((t, g), p) in tokens.iter().zip(gold).zip(predicted) {
        if g == p {
            writeln!(out, "{t}\t{g}\t{p}")?;
        } else {
            writeln!(out, "{t}\t{g}\t{p}\t*")?;
        }
    }
    writeln!(out)
}

/// `--only-folds`: `first-last` or one fold number.
fn parse_fold_range(s: &str) -> Result<(usize, usize), String> {
    let number = |t: &str| {
        t.trim()
            .parse::<usize>()
            .map_err(|_| format!("`{s}`: expected a fold number or a range such as 5-10"))
    };
    match s.split_once('-') {
        Some((a, b)) => Ok((number(a)?, number(b)?)),
        None => number(s).map(|n| (n, n)),
    }
}

/// `quire train MODEL [--type …]`.
pub fn train(args: TrainArgs) -> anyhow::Result<()> {
    let spec = args.model.spec()?;
    let seed = args.seed.unwrap_or(DEFAULT_SEED);
    let kind = match args.kind {
        KindArg::Full => TrainingKind::Full,
        KindArg::Holdout => TrainingKind::Holdout,
        KindArg::Split => TrainingKind::Split {
            ratio: args.ratio,
            seed,
        },
        KindArg::Nfold => TrainingKind::NFold {
            k: args.folds,
            seed,
            only: args.only_folds,
        },
    };
    if args.only_folds.is_some() && !matches!(kind, TrainingKind::NFold { .. }) {
        bail!("--only-folds needs --type nfold");
    }
    if args.errors.is_some() && kind == TrainingKind::Full {
        bail!("--errors needs an evaluation: --type holdout, split or nfold");
    }
    if args.apart.is_some()
        && (!matches!(kind, TrainingKind::NFold { .. })
            || args.only_folds.is_some()
            || args.architecture != ArchitectureArg::Crf)
    {
        bail!("--apart needs a whole CRF n-fold run (--type nfold, no --only-folds)");
    }
    let mut missed: Missed = HashMap::new();
    let keep_missed = args.apart.is_some();
    let mut errors = match &args.errors {
        Some(path) => Some((
            path,
            std::io::BufWriter::new(
                std::fs::File::create(path)
                    .with_context(|| format!("creating {}", path.display()))?,
            ),
        )),
        None => None,
    };
    let mut write_error: Option<std::io::Error> = None;
    let mut on_event = |e: &Event| {
        if let Event::Mislabelled {
            tokens,
            gold,
            predicted,
            ..
        } = e
        {
            if keep_missed {
                missed
                    .entry((tokens.clone(), gold.clone()))
                    .or_default()
                    .push(predicted.clone());
            }
        }
        match (e, errors.as_mut()) {
            (
                Event::Mislabelled {
                    fold,
                    tokens,
                    gold,
                    predicted,
                },
                Some((_, out)),
            ) => {
                if write_error.is_none() {
                    write_error = write_mislabelled(out, *fold, tokens, gold, predicted).err();
                }
            }
            _ => print_event(e),
        }
    };
    let cancel = Arc::new(AtomicBool::new(false));
    if args.architecture != ArchitectureArg::Crf && args.template.is_some() {
        bail!("--template is for the CRF; the BiLSTM-CRF reads feature columns, not a template");
    }
    if args.architecture == ArchitectureArg::CrfBilstmCrf {
        if args.incremental {
            bail!("--incremental trains one architecture; train the CRF and the BiLSTM-CRF apart");
        }
        let report = training::run_combined(
            spec,
            &args.model.dataset(),
            kind,
            &crf_params(spec, &args),
            &deep_params(&args),
            args.crf_weight,
            args.deep_models,
            &mut on_event,
            cancel,
        )?;
        finish_errors(errors, write_error)?;
        let mut out = std::io::stdout().lock();
        for (w, f1) in &report.by_weight {
            writeln!(out, "CRF weight {w:.1}: field-level micro F1 {f1:.2}")?;
        }
        for m in &report.by_member {
            writeln!(
                out,
                "BiLSTM-CRF seed {}: field-level micro F1 {:.2} alone, {:.2} paired with the CRF",
                m.seed, m.alone_field_f1, m.pair_field_f1
            )?;
        }
        drop(out);
        return print_report(&report, args.report.as_deref(), "iterations and epochs");
    }
    if args.architecture == ArchitectureArg::BilstmCrf {
        let p = deep_params(&args);
        let start = args
            .incremental
            .then(|| training::deep_dir(spec, &args.model.models_dir));
        let report = training::run_deep(
            spec,
            &args.model.dataset(),
            &args.model.models_dir,
            kind,
            &p,
            start.as_deref(),
            &mut on_event,
            cancel,
        )?;
        finish_errors(errors, write_error)?;
        return print_report(&report, args.report.as_deref(), "epochs");
    }
    let spec: &'static dyn ModelSpec = match &args.template {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            Box::leak(Box::new(models::WithTemplate {
                inner: spec,
                template: Box::leak(text.into_boxed_str()),
            }))
        }
        None => spec,
    };
    let params = crf_params(spec, &args);
    let start = args
        .incremental
        .then(|| spec.name().dir(&args.model.models_dir, spec.flavor()));
    let report = training::run_from(
        spec,
        &args.model.dataset(),
        &args.model.models_dir,
        kind,
        &params,
        start.as_deref(),
        &mut on_event,
        cancel,
    )?;
    finish_errors(errors, write_error)?;
    print_report(&report, args.report.as_deref(), "iterations")?;
    if let Some(dir) = &args.apart {
        let (corpus, _) = spec.read(&args.model.dataset(), Part::Corpus)?;
        let (apart, _) = spec
            .read(dir, Part::Corpus)
            .with_context(|| format!("reading the corpus of {}", dir.display()))?;
        let (inside, outside) = score_apart(&corpus, &apart, missed);
        writeln!(
            std::io::stdout().lock(),
            "apart ({}): {} sequences, field-level micro F1 {:.2}; the other {}: {:.2}",
            dir.display(),
            inside.instances,
            inside.field.micro().f1 * 100.0,
            outside.instances,
            outside.field.micro().f1 * 100.0
        )?;
    }
    Ok(())
}

/// A held-out sequence by its tokens and gold labels, with the labels the model gave it when
/// they differ from the gold (a list: the corpus may hold the same sequence twice).
type Missed = HashMap<(Vec<String>, Vec<String>), Vec<Vec<String>>>;

/// `--apart`: the held-out figures of the corpus sequences that `apart` also holds, then of
/// the others. A whole n-fold run holds every sequence out once and reports each one it
/// labels wrongly, so a sequence not in `missed` was labelled as its gold.
fn score_apart(
    corpus: &[quire::crf::Sequence],
    apart: &[quire::crf::Sequence],
    mut missed: Missed,
) -> (Evaluation, Evaluation) {
    let key = |s: &quire::crf::Sequence| (s.tokens(), s.labels.clone());
    let mut wanted: HashMap<_, usize> = HashMap::new();
    for s in apart {
        *wanted.entry(key(s)).or_default() += 1;
    }
    let (mut inside, mut outside) = (Evaluation::new(), Evaluation::new());
    for s in corpus {
        let k = key(s);
        let predicted = missed
            .get_mut(&k)
            .and_then(|v| v.pop())
            .unwrap_or_else(|| s.labels.clone());
        let target = match wanted.get_mut(&k) {
            Some(n) if *n > 0 => {
                *n -= 1;
                &mut inside
            }
            _ => &mut outside,
        };
        target.add(&s.labels, &predicted);
    }
    (inside, outside)
}

/// The CRF's training parameters: the model's own, with the command line's overrides.
fn crf_params(spec: &dyn ModelSpec, args: &TrainArgs) -> quire::crf::TrainParams {
    let mut params = spec.default_params();
    if let Some(v) = args.max_iter {
        params.max_iter = v;
    }
    if let Some(v) = args.threads {
        params.threads = v;
    }
    if let Some(v) = args.c1 {
        params.c1 = v;
    }
    if let Some(v) = args.c2 {
        params.c2 = v;
    }
    if let Some(v) = args.epsilon {
        params.epsilon = v;
    }
    params
}

/// The BiLSTM-CRF's training parameters: the defaults, with the command line's overrides.
fn deep_params(args: &TrainArgs) -> DeepParams {
    let mut p = DeepParams::default();
    if let Some(v) = args.epochs {
        p.max_epochs = v;
    }
    if let Some(v) = args.hidden {
        p.hidden = v;
    }
    if let Some(v) = args.learning_rate {
        p.learning_rate = v;
    }
    if let Some(v) = args.dropout {
        p.dropout = v;
    }
    if let Some(v) = &args.embeddings {
        p.embeddings = Some(v.clone());
    }
    if let Some(v) = args.batch {
        p.batch = v;
    }
    if let Some(v) = args.deep_seed {
        p.seed = v;
    }
    if let Some(v) = args.patience {
        p.patience = v;
    }
    if let Some(v) = args.max_length {
        p.max_length = v;
    }
    p
}

/// Flush the `--errors` file and report a failed write.
fn finish_errors(
    errors: Option<(&PathBuf, std::io::BufWriter<std::fs::File>)>,
    failed: Option<std::io::Error>,
) -> anyhow::Result<()> {
    if let Some((path, mut out)) = errors {
        match failed {
            Some(e) => Err(e),
            None => out.flush(),
        }
        .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// The evaluation tables, per-fold figures and totals of a run; the JSON report to `path`.
fn print_report(
    report: &training::TrainingReport,
    path: Option<&std::path::Path>,
    steps: &str,
) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    if let Some(e) = &report.evaluation {
        writeln!(out, "{}", e.table())?;
    }
    if report.fold_field_f1.len() > 1 {
        let n = report.fold_field_f1.len() as f64;
        let mean = report.fold_field_f1.iter().sum::<f64>() / n;
        writeln!(
            out,
            "field-level micro F1 per fold: {:?}; mean {mean:.2}",
            report
                .fold_field_f1
                .iter()
                .map(|f| (f * 100.0).round() / 100.0)
                .collect::<Vec<_>>()
        )?;
    }
    writeln!(
        out,
        "{} ({}): {} {steps}, {:.1} s training",
        report.model, report.architecture, report.iterations, report.training_s
    )?;
    if let Some(path) = path {
        std::fs::write(path, serde_json::to_string_pretty(report)?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// `quire eval MODEL`: the committed model on the evaluation part.
pub fn eval(args: EvalArgs) -> anyhow::Result<()> {
    let spec = args.model.spec()?;
    let (e, stats) = match args.architecture {
        ArchitectureArg::Crf => {
            training::evaluate_saved(spec, &args.model.dataset(), &args.model.models_dir)?
        }
        ArchitectureArg::BilstmCrf => {
            training::evaluate_saved_deep(spec, &args.model.dataset(), &args.model.models_dir)?
        }
        ArchitectureArg::CrfBilstmCrf => training::evaluate_saved_combined(
            spec,
            &args.model.dataset(),
            &args.model.models_dir,
            args.crf_weight,
        )?,
    };
    print_event(&Event::Read {
        part: "evaluation",
        files: stats.files_read,
        files_dropped: stats.files_dropped.len(),
        sequences: stats.sequences,
        tokens: stats.tokens,
    });
    writeln!(std::io::stdout().lock(), "{}", e.table())?;
    // The five raw-string models: the value-level figure of the endpoint's own path.
    let string_model = quire::strings_eval::StringModel::from_name(spec.name().as_str())
        .filter(|_| spec.flavor().is_none() && args.architecture == ArchitectureArg::Crf);
    match string_model {
        Some(m) => super::strings::run(
            &args.model.dataset(),
            &args.model.models_dir,
            m,
            args.url.as_deref(),
            args.show_diffs,
            args.show_errors,
            args.min_requests,
        )?,
        None if args.url.is_some() => bail!(
            "--url applies to the raw-string models (date, name-header, name-citation, affiliation-address, citation)"
        ),
        None => {}
    }
    Ok(())
}

/// `quire tag MODEL`: label each stdin line; print `token<TAB>label` rows, a blank line after
/// each input line.
pub fn tag(args: TagArgs) -> anyhow::Result<()> {
    let spec = args.model.spec()?;
    let dir = spec.name().dir(&args.model.models_dir, spec.flavor());
    let model = Model::load(&dir, spec.feature_version())?;
    let stdin = std::io::stdin();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for line in stdin.lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let Some(rows) = spec.rows_from_text(&line) else {
            bail!(
                "model `{}` labels layout tokens, not text lines",
                args.model.model
            );
        };
        let labels = model.label(&rows)?;
        for (row, label) in rows.iter().zip(&labels) {
            let token = row.first().map_or("", |t| t.as_str());
            writeln!(out, "{token}\t{label}")?;
        }
        writeln!(out)?;
    }
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{parse_fold_range, score_apart, Missed};
    use quire::crf::Sequence;

    fn seq(tokens: &[&str], labels: &[&str]) -> Sequence {
        Sequence {
            rows: tokens.iter().map(|t| vec![(*t).into()]).collect(),
            labels: labels.iter().map(|l| l.to_string()).collect(),
        }
    }

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn sequences_apart_are_scored_apart_from_the_rest() {
        let a = seq(&["Smith", "2001"], &["I-<author>", "I-<date>"]);
        let b = seq(&["Jones", "1999"], &["I-<author>", "I-<date>"]);
        let c = seq(&["Lee", "2010"], &["I-<author>", "I-<date>"]);
        // The corpus holds `b` twice; only one copy of it is apart.
        let corpus = vec![a.clone(), b.clone(), c.clone(), b.clone()];
        let apart = vec![b.clone()];
        let mut missed = Missed::new();
        // One copy of `b` had its date labelled as a title; `a` was labelled wrongly too.
        missed
            .entry((strings(&["Jones", "1999"]), b.labels.clone()))
            .or_default()
            .push(strings(&["I-<author>", "I-<title>"]));
        missed
            .entry((strings(&["Smith", "2001"]), a.labels.clone()))
            .or_default()
            .push(strings(&["I-<title>", "I-<date>"]));
        let (inside, outside) = score_apart(&corpus, &apart, missed);
        assert_eq!((inside.instances, outside.instances), (1, 3));
        // Apart: the first copy of `b`, which took the wrong labelling: its author right, its
        // date missed.
        assert_eq!(inside.field.labels["<author>"].tp, 1);
        assert_eq!(inside.field.labels["<date>"].fn_, 1);
        assert_eq!(inside.correct_instances, 0);
        // The rest: `a` (author missed), `c` and the second `b` right.
        assert_eq!(outside.field.labels["<author>"].fn_, 1);
        assert_eq!(outside.field.labels["<author>"].tp, 2);
        assert_eq!(outside.field.labels["<date>"].tp, 3);
        assert_eq!(outside.correct_instances, 2);
    }

    #[test]
    fn fold_ranges_parse_as_a_range_or_one_fold() {
        assert_eq!(parse_fold_range("5-10"), Ok((5, 10)));
        assert_eq!(parse_fold_range("3"), Ok((3, 3)));
        assert!(parse_fold_range("5-").is_err());
        assert!(parse_fold_range("a").is_err());
    }
}
