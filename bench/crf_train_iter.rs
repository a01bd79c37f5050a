//! Seconds per L-BFGS iteration: Quire's trainer (1 and 2 threads) against `crfs`'s own trainer
//! and, when installed, python-crfsuite 0.9.12 (`bench/pycrfsuite_iter.py`), on the same
//! attributes. L2 only (CRFsuite c2 = 1, i.e. Quire c2 = 2), as in rust-stack.md §2.3.
//!
//! `cargo bench --bench crf_train_iter -- [TOKENS]`: seeded synthetic data (§2.2), default
//! 100000 tokens. `cargo bench --bench crf_train_iter -- MODEL [TOKENS]`: the first TOKENS
//! tokens of a model's corpus (e.g. `citation`), read through its spec from the dataset
//! (skipped when the model or the dataset is not available). `--no-crfs` skips crfs.

#[path = "synth.rs"]
mod synth;

use std::io::Write;
use std::time::Instant;

use quire::crf::{train, Sequence, Template, TrainParams};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// CPU seconds used by this process so far (all threads): robust to other load on the
/// machine, unlike wall time.
fn cpu_s() -> f64 {
    // SAFETY: getrusage only writes into the zeroed struct we pass.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// Median wall and CPU seconds per iteration (iterations 2..=iters), and the whole run.
fn quire_iter(t: &Template, data: &[Sequence], threads: usize, iters: usize) -> (f64, f64, f64) {
    let p = TrainParams {
        c1: 0.0,
        c2: 2.0,
        epsilon: 0.0,
        window: 0,
        max_iter: iters,
        threads,
    };
    let mut stamps = Vec::new();
    let start = Instant::now();
    train(t, data, &p, &mut |pr| {
        stamps.push((pr.elapsed_s, cpu_s()));
        true
    })
    .expect("train");
    let total = start.elapsed().as_secs_f64();
    let wall: Vec<f64> = stamps.windows(2).map(|w| w[1].0 - w[0].0).collect();
    let cpu: Vec<f64> = stamps.windows(2).map(|w| w[1].1 - w[0].1).collect();
    (median(wall), median(cpu), total)
}

/// Wall and CPU seconds of a whole `crfs` training with `iters` iterations.
fn crfs_total(t: &Template, data: &[Sequence], iters: usize) -> (f64, f64) {
    use crfs::train::Trainer;
    let mut tr = Trainer::lbfgs();
    tr.params_mut().set_c1(0.0).expect("c1");
    tr.params_mut().set_c2(1.0).expect("c2");
    tr.params_mut().set_max_iterations(iters).expect("iters");
    for s in data {
        let x: Vec<Vec<crfs::Attribute>> = t
            .expand(&s.rows)
            .into_iter()
            .map(|tok| {
                tok.into_iter()
                    .map(|a| crfs::Attribute::new(a, 1.0))
                    .collect()
            })
            .collect();
        tr.append(&x, &s.labels).expect("append");
    }
    let path = std::env::temp_dir().join("quire-bench-crfs.model");
    let (start, c0) = (Instant::now(), cpu_s());
    tr.train(&path).expect("crfs train");
    (start.elapsed().as_secs_f64(), cpu_s() - c0)
}

fn python(t: &Template, data: &[Sequence]) -> Option<String> {
    let path = std::env::temp_dir().join("quire-bench-crf.txt");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).ok()?);
    for s in data {
        for (attrs, l) in t.expand(&s.rows).iter().zip(&s.labels) {
            let _ = writeln!(f, "{l}\t{}", attrs.join("\t"));
        }
        let _ = writeln!(f);
    }
    drop(f);
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/bench/pycrfsuite_iter.py");
    let out = std::process::Command::new("python3")
        .arg(script)
        .arg(&path)
        .output()
        .ok()?;
    if !out.status.success() {
        eprintln!(
            "python-crfsuite skipped: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
        return None;
    }
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The first `tokens` tokens (whole sequences) of a model's corpus, with its template.
fn model_data(name: &str, tokens: usize) -> Option<(Template, Vec<Sequence>)> {
    let model: quire::models::ModelName = name.parse().ok()?;
    let Some(spec) = quire::training::spec(model, None) else {
        println!("crf_train_iter/{name}: skipped: no spec for this model in this build");
        return None;
    };
    let dataset = quire::config::dataset_dir();
    let (mut data, _) = match spec.read(&dataset, quire::corpus::Part::Corpus) {
        Ok(d) => d,
        Err(e) => {
            println!("crf_train_iter/{name}: skipped: {e}");
            return None;
        }
    };
    let mut n = 0;
    data.retain(|s| {
        n += s.labels.len();
        n <= tokens
    });
    Some((Template::parse(spec.template()).expect("template"), data))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let model = args
        .iter()
        .find(|a| a.parse::<quire::models::ModelName>().is_ok())
        .cloned();
    let no_crfs = args.iter().any(|a| a == "--no-crfs");
    let tokens: usize = args
        .iter()
        .find_map(|a| a.parse().ok())
        .unwrap_or(if model.is_some() { usize::MAX } else { 100_000 });
    let (name, template, data) = match &model {
        Some(m) => match model_data(m, tokens) {
            Some((t, d)) => (m.clone(), t, d),
            None => return,
        },
        None => {
            let t = Template::parse(&synth::template()).expect("template");
            let d = synth::generate(tokens, synth::vocab_for(tokens), 42);
            ("synthetic".to_string(), t, d)
        }
    };
    let n_tokens: usize = data.iter().map(|s| s.labels.len()).sum();
    let k = format!("{name}/{}k", n_tokens / 1000);
    println!(
        "data: {name}, {} sequences, {n_tokens} tokens, {} template patterns",
        data.len(),
        template.len()
    );
    for threads in [1, 2] {
        let (wall, cpu, total) = quire_iter(&template, &data, threads, 8);
        println!("crf_train_iter/quire/{threads}t/{k}: {wall:.3} s/iter wall, {cpu:.3} CPU-s/iter (medians of iterations 2-8; whole run {total:.2} s)");
    }
    if !no_crfs {
        let one = crfs_total(&template, &data, 1);
        let three = crfs_total(&template, &data, 3);
        println!(
            "crf_train_iter/crfs/1t/{k}: {:.3} s/iter wall, {:.3} CPU-s/iter ((train() with 3 iterations - with 1) / 2: wall {:.2} - {:.2} s)",
            (three.0 - one.0) / 2.0,
            (three.1 - one.1) / 2.0,
            three.0,
            one.0
        );
    }
    match python(&template, &data) {
        Some(line) => println!("crf_train_iter/python-crfsuite/1t/{k}: {line}"),
        None => println!(
            "crf_train_iter/python-crfsuite: skipped (pip install python-crfsuite==0.9.12)"
        ),
    }
}
