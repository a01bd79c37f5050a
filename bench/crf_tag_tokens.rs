//! Tagging speed on one core, tokens per second: Quire's tagger from feature rows (template
//! expansion + attribute lookup + Viterbi), from pre-interned attribute ids, and `crfs`'s
//! `Tagger::tag` on the same model file (rust-stack.md §2.4).
//!
//! `cargo bench --bench crf_tag_tokens -- [TOKENS]`: models trained here on seeded synthetic
//! data (§2.2), a dense L2 one and an L1-pruned one; TOKENS tagged tokens (default 200000).
//! `cargo bench --bench crf_tag_tokens -- MODEL [TOKENS]`: the trained model in `models/`
//! on its corpus sequences (skipped when the model, its files or the dataset are missing).

#[path = "synth.rs"]
mod synth;
#[path = "timing.rs"]
mod timing;

use timing::rate;

use quire::crf::{train, Model, ModelMeta, Sequence, Template, TrainParams};

fn measure(model: &Model, bytes: &[u8], test: &[Sequence], k: &str) {
    let tokens: usize = test.iter().map(|s| s.labels.len()).sum();
    println!(
        "model: {} bytes, {} attributes kept; tagging {tokens} tokens in {} sequences on one thread",
        bytes.len(),
        model.num_attributes(),
        test.len()
    );
    let mut ours = Vec::with_capacity(test.len());
    for s in test {
        ours.push(model.label(&s.rows).expect("label"));
    }
    let correct: usize = ours
        .iter()
        .zip(test)
        .map(|(o, s)| o.iter().zip(&s.labels).filter(|(a, b)| a == b).count())
        .sum();
    let (wall, cpu) = rate(tokens, 0.5, || {
        for s in test {
            std::hint::black_box(model.label(&s.rows).expect("label"));
        }
    });
    println!(
        "crf_tag_tokens/quire-rows/{k}: {wall:.0} tokens/s wall, {cpu:.0} tokens/CPU-s (token accuracy {:.4})",
        correct as f64 / tokens as f64
    );

    let expanded: Vec<Vec<Vec<String>>> = test
        .iter()
        .map(|s| model.template().expand(&s.rows))
        .collect();
    let interned: Vec<Vec<Vec<u32>>> = expanded
        .iter()
        .map(|seq| {
            seq.iter()
                .map(|tok| {
                    let mut ids: Vec<u32> = tok.iter().filter_map(|a| model.attr_id(a)).collect();
                    ids.sort_unstable();
                    ids.dedup();
                    ids
                })
                .collect()
        })
        .collect();
    let (wall, cpu) = rate(tokens, 0.5, || {
        for s in &interned {
            std::hint::black_box(model.label_attr_ids(s));
        }
    });
    println!("crf_tag_tokens/quire-ids/{k}: {wall:.0} tokens/s wall, {cpu:.0} tokens/CPU-s");

    let cm = crfs::Model::new(bytes).expect("crfs model");
    let tagger = cm.tagger().expect("tagger");
    let attrs: Vec<Vec<Vec<crfs::Attribute>>> = expanded
        .into_iter()
        .map(|seq| {
            seq.into_iter()
                .map(|tok| {
                    tok.into_iter()
                        .map(|a| crfs::Attribute::new(a, 1.0))
                        .collect()
                })
                .collect()
        })
        .collect();
    let mut agree = 0usize;
    let mut theirs = Vec::with_capacity(test.len());
    for x in &attrs {
        let out: Vec<String> = tagger
            .tag(x)
            .expect("crfs tag")
            .into_iter()
            .map(String::from)
            .collect();
        theirs.push(out);
    }
    let (wall, cpu) = rate(tokens, 0.5, || {
        for x in &attrs {
            std::hint::black_box(tagger.tag(x).expect("crfs tag"));
        }
    });
    for (a, b) in ours.iter().zip(&theirs) {
        agree += a.iter().zip(b).filter(|(x, y)| x == y).count();
    }
    println!(
        "crf_tag_tokens/crfs/{k}: {wall:.0} tokens/s wall, {cpu:.0} tokens/CPU-s (agreement with Quire {:.4})",
        agree as f64 / tokens as f64
    );
}

fn synthetic(tokens: usize) {
    let vocab = synth::vocab_for(100_000);
    let train_data = synth::generate(100_000, vocab, 42);
    let test = synth::generate(tokens, vocab, 7);
    // A dense L2 model (every observed feature kept, like rust-stack §2.4) and an L1-pruned one.
    for (name, c1, c2) in [("l2", 0.0, 2.0), ("l1", 0.5, 1e-4)] {
        let t = Template::parse(&synth::template()).expect("template");
        let p = TrainParams {
            c1,
            c2,
            epsilon: 1e-4,
            window: 10,
            max_iter: 100,
            threads: 0,
        };
        let bytes = train(&t, &train_data, &p, &mut |_| true).expect("train");
        let meta = ModelMeta {
            model: "synthetic".into(),
            labels: vec![],
            feature_version: 0,
            data_digest: String::new(),
            params: p,
            evaluation: serde_json::Value::Null,
        };
        let model = Model::from_parts(&bytes, t, meta).expect("model");
        measure(
            &model,
            &bytes,
            &test,
            &format!("synthetic-{name}/{}k", tokens / 1000),
        );
    }
}

fn real(name: &str, tokens: usize) {
    let Some(spec) = name
        .parse::<quire::models::ModelName>()
        .ok()
        .and_then(|m| quire::training::spec(m, None))
    else {
        println!("crf_tag_tokens/{name}: skipped: no spec for this model in this build");
        return;
    };
    let dir = spec.name().dir(std::path::Path::new("models"), None);
    let model = match Model::load(&dir, spec.feature_version()) {
        Ok(m) => m,
        Err(e) => {
            println!("crf_tag_tokens/{name}: skipped: {e}");
            return;
        }
    };
    let bytes = std::fs::read(dir.join(quire::crf::MODEL_FILE)).expect("model file");
    let (mut data, _) = match spec.read(&quire::config::dataset_dir(), quire::corpus::Part::Corpus)
    {
        Ok(d) => d,
        Err(e) => {
            println!("crf_tag_tokens/{name}: skipped: {e}");
            return;
        }
    };
    let mut n = 0;
    data.retain(|s| {
        n += s.labels.len();
        n <= tokens
    });
    let n: usize = data.iter().map(|s| s.labels.len()).sum();
    measure(&model, &bytes, &data, &format!("{name}/{}k", n / 1000));
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let model = args
        .iter()
        .find(|a| a.parse::<quire::models::ModelName>().is_ok());
    let tokens: Option<usize> = args.iter().find_map(|a| a.parse().ok());
    match model {
        Some(m) => real(m, tokens.unwrap_or(usize::MAX)),
        None => synthetic(tokens.unwrap_or(200_000)),
    }
}
