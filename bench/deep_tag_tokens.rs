//! Tagging speed of the BiLSTM-CRF against the CRF in the same run, tokens per CPU second
//! (issue 18: goal ≥ 50,000 tokens/s per core).
//!
//! `cargo bench --bench deep_tag_tokens -- MODEL [DEEP_DIR] [TOKENS]`: the committed CRF in
//! `models/MODEL` and the BiLSTM-CRF in DEEP_DIR (default `models/MODEL/bilstm-crf`) tag the
//! first TOKENS tokens (default 50000) of the model's corpus (`QUIRE_DATASET`); the deep model
//! in batches of 128 sequences as the model actors send them, and one sequence at a time.
//! Run it with `RAYON_NUM_THREADS=1` for a one-core figure (candle's matrix products use that
//! many threads); the CPU-second rate counts every thread either way. Skipped with a message
//! when a model or the dataset is missing. Last, the model as `serving.json` declares it (the
//! CRF and BiLSTM-CRF pair where it says so). `QUIRE_DEEP_RECURRENCE=per-sequence` runs the
//! LSTM recurrence one sequence at a time (the matrix-vector form) for a same-build comparison.

#[path = "timing.rs"]
mod timing;

use quire::crf::{Model, Sequence};
use timing::rate;

fn accuracy(predicted: &[quire::labels::Labels], data: &[Sequence]) -> f64 {
    let tokens: usize = data.iter().map(|s| s.labels.len()).sum();
    let right: usize = predicted
        .iter()
        .zip(data)
        .map(|(p, s)| {
            p.iter()
                .zip(&s.labels)
                .filter(|(a, b)| *a == b.as_str())
                .count()
        })
        .sum();
    right as f64 / tokens.max(1) as f64
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let Some(name) = args.first() else {
        println!("deep_tag_tokens: skipped: give a model name (e.g. affiliation-address)");
        return;
    };
    let Some(spec) = name
        .parse::<quire::models::ModelName>()
        .ok()
        .and_then(|m| quire::training::spec(m, None))
    else {
        println!("deep_tag_tokens/{name}: skipped: no spec for this model in this build");
        return;
    };
    let dir = spec.name().dir(std::path::Path::new("models"), None);
    let deep_dir = args
        .get(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| dir.join(quire::deep::DIR));
    let tokens: usize = args.get(2).and_then(|t| t.parse().ok()).unwrap_or(50_000);
    let crf = match Model::load(&dir, spec.feature_version()) {
        Ok(m) => m,
        Err(e) => return println!("deep_tag_tokens/{name}: skipped: {e}"),
    };
    let deep = match quire::deep::Model::load(&deep_dir) {
        Ok(m) => m,
        Err(e) => return println!("deep_tag_tokens/{name}: skipped: {e}"),
    };
    let (mut data, _) = match spec.read(&quire::config::dataset_dir(), quire::corpus::Part::Corpus)
    {
        Ok(d) => d,
        Err(e) => return println!("deep_tag_tokens/{name}: skipped: {e}"),
    };
    let mut n = 0;
    data.retain(|s| {
        n += s.labels.len();
        n <= tokens
    });
    let n: usize = data.iter().map(|s| s.labels.len()).sum();
    let rows: Vec<&[quire::features::Row]> = data.iter().map(|s| s.rows.as_slice()).collect();
    println!(
        "deep_tag_tokens/{name}: {n} corpus tokens in {} sequences; threads {}",
        data.len(),
        std::env::var("RAYON_NUM_THREADS").unwrap_or_else(|_| "all".into())
    );

    let crf_labels: Vec<quire::labels::Labels> =
        rows.iter().map(|r| crf.label(r).expect("crf")).collect();
    let (wall, cpu) = rate(n, 1.0, || {
        for r in &rows {
            std::hint::black_box(crf.label(r).expect("crf"));
        }
    });
    println!(
        "deep_tag_tokens/{name}/crf: {wall:.0} tokens/s wall, {cpu:.0} tokens/CPU-s (token accuracy {:.4}, corpus tokens the CRF was trained on)",
        accuracy(&crf_labels, &data)
    );

    let mut batched = Vec::new();
    for chunk in rows.chunks(128) {
        batched.extend(deep.label_many(chunk).expect("deep"));
    }
    let (wall, cpu) = rate(n, 1.0, || {
        for chunk in rows.chunks(128) {
            std::hint::black_box(deep.label_many(chunk).expect("deep"));
        }
    });
    println!(
        "deep_tag_tokens/{name}/bilstm-crf-batch128: {wall:.0} tokens/s wall, {cpu:.0} tokens/CPU-s (token accuracy {:.4})",
        accuracy(&batched, &data)
    );
    let (wall, cpu) = rate(n, 1.0, || {
        for r in &rows {
            std::hint::black_box(deep.label(r).expect("deep"));
        }
    });
    println!(
        "deep_tag_tokens/{name}/bilstm-crf-single: {wall:.0} tokens/s wall, {cpu:.0} tokens/CPU-s"
    );

    // The model as it serves (`serving.json`: for a pair, the CRF and the BiLSTM-CRF
    // together), in batches of 128 sequences as the model actors send them.
    let served = match quire::tagger::Tagger::load(&dir, spec.feature_version()) {
        Ok(t) => t,
        Err(e) => return println!("deep_tag_tokens/{name}/served: skipped: {e}"),
    };
    let mut labelled = Vec::new();
    for chunk in rows.chunks(128) {
        labelled.extend(served.label_many(chunk).expect("served"));
    }
    let (wall, cpu) = rate(n, 1.0, || {
        for chunk in rows.chunks(128) {
            std::hint::black_box(served.label_many(chunk).expect("served"));
        }
    });
    println!(
        "deep_tag_tokens/{name}/served-{}-batch128: {wall:.0} tokens/s wall, {cpu:.0} tokens/CPU-s (token accuracy {:.4})",
        served.architecture(),
        accuracy(&labelled, &data)
    );
}
