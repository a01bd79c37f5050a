//! Tagging speed on one core, tokens per second: Quire's tagger from feature rows (template
//! expansion + attribute lookup + Viterbi), from pre-interned attribute ids, and `crfs`'s
//! `Tagger::tag` on the same model file, on seeded synthetic data (rust-stack.md §2.2/§2.4).
//!
//! `cargo bench --bench crf_tag_tokens -- [TOKENS]` (default 200000 tagged tokens).

#[path = "synth.rs"]
mod synth;

use std::time::Instant;

use quire::crf::{train, Model, ModelMeta, Template, TrainParams};

fn main() {
    let tokens: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(200_000);
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
        println!(
            "model: {} bytes, {} attributes kept; tagging {} tokens on one thread",
            bytes.len(),
            model.num_attributes(),
            tokens
        );
        let k = format!("{name}/{}k", tokens / 1000);

        let start = Instant::now();
        let mut correct = 0usize;
        for s in &test {
            let out = model.label(&s.rows).expect("label");
            correct += out.iter().zip(&s.labels).filter(|(a, b)| a == b).count();
        }
        let secs = start.elapsed().as_secs_f64();
        println!(
            "crf_tag_tokens/quire-rows/{k}: {:.0} tokens/s (accuracy {:.4})",
            tokens as f64 / secs,
            correct as f64 / tokens as f64
        );

        let interned: Vec<Vec<Vec<u32>>> = test
            .iter()
            .map(|s| {
                s.rows
                    .iter()
                    .map(|r| {
                        let mut ids: Vec<u32> = synth::attrs(r)
                            .iter()
                            .filter_map(|a| model.attr_id(a))
                            .collect();
                        ids.sort_unstable();
                        ids.dedup();
                        ids
                    })
                    .collect()
            })
            .collect();
        let start = Instant::now();
        let mut n = 0usize;
        for s in &interned {
            n += model.label_attr_ids(s).len();
        }
        let secs = start.elapsed().as_secs_f64();
        println!(
            "crf_tag_tokens/quire-ids/{k}: {:.0} tokens/s",
            n as f64 / secs
        );

        let cm = crfs::Model::new(&bytes).expect("crfs model");
        let tagger = cm.tagger().expect("tagger");
        let attrs: Vec<Vec<Vec<crfs::Attribute>>> = test
            .iter()
            .map(|s| {
                s.rows
                    .iter()
                    .map(|r| {
                        synth::attrs(r)
                            .into_iter()
                            .map(|a| crfs::Attribute::new(a, 1.0))
                            .collect()
                    })
                    .collect()
            })
            .collect();
        let start = Instant::now();
        let mut agree = 0usize;
        for (s, x) in test.iter().zip(&attrs) {
            let out = tagger.tag(x).expect("crfs tag");
            agree += out
                .iter()
                .zip(&s.labels)
                .filter(|(a, b)| **a == b.as_str())
                .count();
        }
        let secs = start.elapsed().as_secs_f64();
        println!(
            "crf_tag_tokens/crfs/{k}: {:.0} tokens/s (accuracy {:.4})",
            tokens as f64 / secs,
            agree as f64 / tokens as f64
        );
    }
}
