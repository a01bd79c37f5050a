//! Seeded synthetic CRF data for the CRF benchmarks (rust-stack.md §2.2): sequences of 50
//! tokens, 10 labels in runs (switch probability 0.2), 10 attributes per token (5 from a
//! label-specific Pareto-distributed slice of the vocabulary, 5 uniform).

use quire::crf::Sequence;
use rand::{Rng, SeedableRng};

pub const LABELS: usize = 10;
pub const ATTRS_PER_TOKEN: usize = 10;

/// The vocabulary size §2.2 uses for `tokens` tokens: 70k per 1M tokens.
pub fn vocab_for(tokens: usize) -> usize {
    (tokens * 7 / 100).max(1000)
}

/// `tokens` tokens in sequences of 50 over `vocab` attribute values.
pub fn generate(tokens: usize, vocab: usize, seed: u64) -> Vec<Sequence> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let slice = vocab / LABELS;
    let seqs = tokens / 50;
    let mut out = Vec::with_capacity(seqs);
    for _ in 0..seqs {
        let mut y = rng.random_range(0..LABELS);
        let mut rows = Vec::with_capacity(50);
        let mut labels = Vec::with_capacity(50);
        for _ in 0..50 {
            if rng.random::<f64>() < 0.2 {
                y = rng.random_range(0..LABELS);
            }
            let mut row = Vec::with_capacity(ATTRS_PER_TOKEN);
            for _ in 0..5 {
                // Pareto(α = 1.2) rank within the label's slice.
                let u: f64 = rng.random::<f64>().max(1e-12);
                let rank = ((u.powf(-1.0 / 1.2) - 1.0) * 3.0) as usize % slice;
                row.push(format!("a{}", y * slice + rank).into());
            }
            for _ in 0..5 {
                row.push(format!("a{}", rng.random_range(0..vocab)).into());
            }
            rows.push(row);
            labels.push(format!("L{y}"));
        }
        out.push(Sequence { rows, labels });
    }
    out
}

/// A template that turns each of the 10 columns into one attribute (`U0:a123`, …).
pub fn template() -> String {
    (0..ATTRS_PER_TOKEN)
        .map(|c| format!("U{c}:%x[0,{c}]\n"))
        .collect::<String>()
        + "B\n"
}
