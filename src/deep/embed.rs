/*!
Word vectors learnt from unlabelled text, for the BiLSTM-CRF's frozen word channel
([`super::DeepParams::embeddings`]).

GROBID's deep models read pre-trained GloVe vectors; nothing may be downloaded here, so Quire
learns its own from the text of the training corpora that carry no labels for the model at
hand (the segmentation corpus holds 647 whole articles, about 7 million tokens, references
included). The method is word2vec's skip-gram with negative sampling: each word's vector is
trained to predict the words around it (a window of at most [`EmbedParams::window`] words on
each side, drawn anew for every position) against [`EmbedParams::negative`] words drawn from
the unigram distribution raised to 3/4; very frequent words are subsampled. One thread and a
seed make the vectors reproducible.

Words are keyed as the deep model keys them (lower-cased, digits folded to `0`), so a
vector found here is the vector of every token with that key. The file format is word2vec's
text format (a `count dim` line, then `word v1 … vdim` per line), so vectors trained
elsewhere can be given as well.
*/

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::Path;

use rand::{Rng, SeedableRng};

use crate::{Error, Result};

/// Settings of [`train`].
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct EmbedParams {
    pub dim: usize,
    /// The most words on each side of a position that it predicts.
    pub window: usize,
    /// Words drawn as negatives per predicted word.
    pub negative: usize,
    /// Words seen fewer times get no vector.
    pub min_count: usize,
    pub epochs: usize,
    /// Subsampling threshold: a word of frequency `f` is kept with probability
    /// `min(1, sqrt(sample / f) + sample / f)`.
    pub sample: f64,
    /// The starting learning rate; it falls linearly to nothing over the training.
    pub learning_rate: f32,
    pub seed: u64,
}

impl Default for EmbedParams {
    fn default() -> Self {
        EmbedParams {
            dim: 64,
            window: 5,
            negative: 5,
            min_count: 5,
            epochs: 5,
            sample: 1e-4,
            learning_rate: 0.025,
            seed: 1,
        }
    }
}

/// Words and their vectors, `vectors[i * dim .. (i + 1) * dim]` for `words[i]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Embeddings {
    pub words: Vec<String>,
    pub dim: usize,
    pub vectors: Vec<f32>,
}

impl Embeddings {
    /// The vector of `word` (a word key), if it has one.
    pub fn vector(&self, word: &str) -> Option<&[f32]> {
        let i = self.words.iter().position(|w| w == word)?;
        Some(&self.vectors[i * self.dim..(i + 1) * self.dim])
    }

    /// Write in word2vec's text format.
    pub fn write(&self, path: &Path) -> Result<()> {
        let io = |e: std::io::Error| Error::General(format!("writing {}: {e}", path.display()));
        let mut out = std::io::BufWriter::new(std::fs::File::create(path).map_err(io)?);
        writeln!(out, "{} {}", self.words.len(), self.dim).map_err(io)?;
        for (w, v) in self.words.iter().zip(self.vectors.chunks_exact(self.dim)) {
            write!(out, "{w}").map_err(io)?;
            for x in v {
                write!(out, " {x}").map_err(io)?;
            }
            writeln!(out).map_err(io)?;
        }
        out.flush().map_err(io)
    }

    /// Read word2vec's text format (the `count dim` line may be left out).
    pub fn read(path: &Path) -> Result<Embeddings> {
        let file = std::fs::File::open(path)
            .map_err(|e| Error::BadInput(format!("reading {}: {e}", path.display())))?;
        let bad = |line: usize, why: &str| {
            Error::BadInput(format!("{} line {line}: {why}", path.display()))
        };
        let mut words = Vec::new();
        let mut vectors = Vec::new();
        let mut dim = 0;
        for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
            let line = line.map_err(|e| bad(n + 1, &e.to_string()))?;
            let mut parts = line.split_whitespace();
            let Some(word) = parts.next() else { continue };
            let values: Vec<f32> = parts
                .map(str::parse)
                .collect::<std::result::Result<_, _>>()
                .map_err(|_| bad(n + 1, "a value is not a number"))?;
            if n == 0 && values.len() == 1 && word.parse::<usize>().is_ok() {
                continue; // the `count dim` line
            }
            if values.is_empty() {
                return Err(bad(n + 1, "a word without a vector"));
            }
            if dim == 0 {
                dim = values.len();
            } else if values.len() != dim {
                return Err(bad(
                    n + 1,
                    &format!("{} values where the file has {dim}", values.len()),
                ));
            }
            words.push(word.to_string());
            vectors.extend(values);
        }
        if words.is_empty() {
            return Err(Error::BadInput(format!("{}: no vectors", path.display())));
        }
        Ok(Embeddings {
            words,
            dim,
            vectors,
        })
    }
}

/// Skip-gram with negative sampling over `sentences` (word keys); words seen fewer than
/// `min_count` times are left out (they neither get nor give context).
pub fn train(sentences: &[Vec<String>], p: &EmbedParams) -> Result<Embeddings> {
    if p.dim == 0 || p.window == 0 || p.epochs == 0 {
        return Err(Error::BadInput(
            "embedding dim, window and epochs must be at least 1".into(),
        ));
    }
    let mut counts: HashMap<&str, u64> = HashMap::new();
    for s in sentences {
        for w in s {
            *counts.entry(w.as_str()).or_default() += 1;
        }
    }
    let mut words: Vec<(&str, u64)> = counts
        .into_iter()
        .filter(|&(_, n)| n >= p.min_count as u64)
        .collect();
    words.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    if words.is_empty() {
        return Err(Error::BadInput(format!(
            "no word is seen {} times or more",
            p.min_count
        )));
    }
    let id: HashMap<&str, u32> = words
        .iter()
        .enumerate()
        .map(|(i, (w, _))| (*w, i as u32))
        .collect();
    let corpus: Vec<Vec<u32>> = sentences
        .iter()
        .map(|s| {
            s.iter()
                .filter_map(|w| id.get(w.as_str()).copied())
                .collect()
        })
        .filter(|s: &Vec<u32>| s.len() > 1)
        .collect();
    let total: u64 = words.iter().map(|w| w.1).sum();
    let keep: Vec<f64> = words
        .iter()
        .map(|&(_, n)| {
            let r = p.sample * total as f64 / n as f64;
            if p.sample > 0.0 {
                (r.sqrt() + r).min(1.0)
            } else {
                1.0
            }
        })
        .collect();
    // Negatives drawn from the unigram distribution to the power 3/4, through a table.
    let weights: Vec<f64> = words.iter().map(|w| (w.1 as f64).powf(0.75)).collect();
    let norm: f64 = weights.iter().sum();
    let table_len = 1_000_000usize.max(words.len());
    let mut table = Vec::with_capacity(table_len);
    let mut acc = 0.0;
    for (i, w) in weights.iter().enumerate() {
        acc += w / norm;
        while (table.len() as f64) < acc * table_len as f64 && table.len() < table_len {
            table.push(i as u32);
        }
    }
    while table.len() < table_len {
        table.push((words.len() - 1) as u32);
    }
    let (n, dim) = (words.len(), p.dim);
    let mut rng = rand::rngs::StdRng::seed_from_u64(p.seed);
    let mut input: Vec<f32> = (0..n * dim)
        .map(|_| (rng.random::<f32>() - 0.5) / dim as f32)
        .collect();
    let mut output = vec![0f32; n * dim];
    let steps = (p.epochs as u64 * corpus.iter().map(|s| s.len() as u64).sum::<u64>()).max(1);
    let mut done = 0u64;
    let mut grad = vec![0f32; dim];
    let mut kept = Vec::new();
    for _ in 0..p.epochs {
        for s in &corpus {
            done += s.len() as u64;
            kept.clear();
            kept.extend(
                s.iter()
                    .copied()
                    .filter(|&w| rng.random::<f64>() < keep[w as usize]),
            );
            let lr = p.learning_rate * (1.0 - done as f32 / steps as f32).max(1e-4);
            for (i, &center) in kept.iter().enumerate() {
                let reach = rng.random_range(1..=p.window);
                let lo = i.saturating_sub(reach);
                let hi = (i + reach).min(kept.len() - 1);
                for (j, &context) in kept.iter().enumerate().take(hi + 1).skip(lo) {
                    if j == i {
                        continue;
                    }
                    let c = context as usize * dim;
                    grad.fill(0.0);
                    for k in 0..=p.negative {
                        let (target, label) = if k == 0 {
                            (center, 1.0)
                        } else {
                            let t = table[rng.random_range(0..table.len())];
                            if t == center {
                                continue;
                            }
                            (t, 0.0)
                        };
                        let o = target as usize * dim;
                        let dot: f32 = input[c..c + dim]
                            .iter()
                            .zip(&output[o..o + dim])
                            .map(|(a, b)| a * b)
                            .sum();
                        let g = (label - sigmoid(dot)) * lr;
                        for d in 0..dim {
                            grad[d] += g * output[o + d];
                            output[o + d] += g * input[c + d];
                        }
                    }
                    for (x, g) in input[c..c + dim].iter_mut().zip(&grad) {
                        *x += g;
                    }
                }
            }
        }
    }
    Ok(Embeddings {
        words: words.iter().map(|w| w.0.to_string()).collect(),
        dim,
        vectors: input,
    })
}

fn sigmoid(x: f32) -> f32 {
    if x > 8.0 {
        1.0
    } else if x < -8.0 {
        0.0
    } else {
        1.0 / (1.0 + (-x).exp())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cosine(a: &[f32], b: &[f32]) -> f32 {
        let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
        let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
        let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
        dot / (na * nb)
    }

    /// `cat` and `dog` share every context, `rock` has others: the first two end closer.
    fn toy_corpus() -> Vec<Vec<String>> {
        let mut out = Vec::new();
        for i in 0..400 {
            let animal = if i % 2 == 0 { "cat" } else { "dog" };
            let s1 = format!("the {animal} eats fish and sleeps");
            let s2 = "a rock lies under water near stone".to_string();
            for s in [s1, s2] {
                out.push(s.split(' ').map(String::from).collect());
            }
        }
        out
    }

    #[test]
    fn words_in_the_same_contexts_get_close_vectors() {
        let p = EmbedParams {
            dim: 16,
            min_count: 1,
            sample: 0.0,
            epochs: 3,
            ..EmbedParams::default()
        };
        let e = train(&toy_corpus(), &p).unwrap();
        let (cat, dog, rock) = (
            e.vector("cat").unwrap(),
            e.vector("dog").unwrap(),
            e.vector("rock").unwrap(),
        );
        assert!(
            cosine(cat, dog) > cosine(cat, rock) + 0.3,
            "cat·dog {} cat·rock {}",
            cosine(cat, dog),
            cosine(cat, rock)
        );
        // Reproducible with the seed.
        assert_eq!(train(&toy_corpus(), &p).unwrap(), e);
    }

    #[test]
    fn rare_words_get_no_vector_and_nothing_common_is_refused() {
        let mut corpus = toy_corpus();
        corpus.push(vec!["zebra".into(), "the".into()]);
        let p = EmbedParams {
            dim: 4,
            min_count: 2,
            epochs: 1,
            ..EmbedParams::default()
        };
        let e = train(&corpus, &p).unwrap();
        assert!(e.vector("zebra").is_none());
        assert!(e.vector("the").is_some());
        let too_rare = EmbedParams {
            min_count: 10_000,
            ..p
        };
        assert!(matches!(train(&corpus, &too_rare), Err(Error::BadInput(_))));
    }

    #[test]
    fn the_text_format_round_trips_and_bad_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let e = Embeddings {
            words: vec!["a".into(), "0000".into()],
            dim: 3,
            vectors: vec![0.5, -1.25, 3.0, 0.0, 1e-3, -2.5],
        };
        let path = dir.path().join("v.txt");
        e.write(&path).unwrap();
        assert_eq!(Embeddings::read(&path).unwrap(), e);
        // Without the header line, as GloVe writes them.
        std::fs::write(&path, "a 1 2\nb 3 4\n").unwrap();
        let r = Embeddings::read(&path).unwrap();
        assert_eq!((r.words.len(), r.dim), (2, 2));
        assert_eq!(r.vector("b"), Some(&[3.0, 4.0][..]));
        for bad in ["a 1 2\nb 3\n", "a x y\n", "a\n", ""] {
            std::fs::write(&path, bad).unwrap();
            assert!(
                matches!(Embeddings::read(&path), Err(Error::BadInput(_))),
                "{bad:?}"
            );
        }
    }
}
