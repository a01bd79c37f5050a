/*!
BiLSTM-CRF sequence labelling on candle: the deep architecture beside the CRFs (GROBID's
DeLFT `BidLSTM_CRF_FEATURES`, grobid-models.md §7), trained and run on the CPU.

It reads the same [`Sequence`]s the CRF trainer reads, so every model whose corpus reader
exists can train it without code of its own:
- **Token**: column 0 of each row, as a learned word embedding (lower-cased, digits folded to
  `0`; a word seen once in training is unknown) and as a character CNN (embedded characters,
  one convolution of width 3, max-pooled over the word).
- **Features**: every other column whose training values are few (at most
  [`DeepParams::max_feature_values`] distinct values: capitalisation, punctuation class,
  lexicon flags, positions, Quire's structure columns) is an embedded categorical input, as
  DeLFT's `FEATURES` variants take GROBID's CRF columns; the wide columns (prefixes,
  suffixes, the lower-cased token) are left to the word and character channels.
- **Network**: the concatenated inputs (dropout) through one bidirectional LSTM layer
  (dropout), a linear layer to label scores, and a linear-chain CRF (start, transition and
  end scores) trained by its negative log-likelihood and decoded by Viterbi.
- **Training**: Adam on batches of sequences of equal length (so no masks or padding are
  needed), the order of the batches shuffled each epoch; after each epoch the field-level
  micro F1 on a held-out part of the training data decides which epoch's weights are kept,
  and training stops after [`DeepParams::patience`] epochs without gain. One seed
  ([`DeepParams::seed`]) draws the held-out part, the initial weights, the batch order and
  the dropout masks, so a training is reproducible.
- **Files** (`models/<model>/bilstm-crf/`): `model.safetensors` (the weights),
  `vocab.json` (words, characters, feature columns and values, labels, the parameters) and
  `meta.json` (as the CRF's: model, labels, feature version, data digest, parameters,
  evaluation, plus `architecture`).

Nothing is downloaded: the embeddings are learnt from the corpus, and a model may also read
word vectors learnt from the other corpora's unlabelled text ([`embed`]) as a frozen second
word channel ([`DeepParams::embeddings`]).
*/

pub mod embed;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use candle_core::{DType, Device, Tensor, D};
use candle_nn::{Conv1d, Conv1dConfig, Embedding, Linear, Module, Optimizer, VarBuilder, VarMap};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

use crate::crf::Sequence;
use crate::eval::Evaluation;
use crate::{Error, Result};

/// The architecture's name in the interface (`architecture=BiLSTM-CRF`).
pub const ARCHITECTURE: &str = "BiLSTM-CRF";
/// The sub-folder of `models/<model>/` that holds a deep model.
pub const DIR: &str = "bilstm-crf";
pub const WEIGHTS_FILE: &str = "model.safetensors";
pub const VOCAB_FILE: &str = "vocab.json";
pub const META_FILE: &str = "meta.json";
/// The name prefix of the frozen channel's weights.
const PRETRAINED: &str = "pretrained";

/// Whether a weight (by its name in the `VarMap`) is the frozen channel's.
fn is_frozen(name: &str) -> bool {
    name.strip_prefix(PRETRAINED)
        .is_some_and(|rest| rest.starts_with('.'))
}

/// Sizes and training settings.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DeepParams {
    pub word_dim: usize,
    pub char_dim: usize,
    pub char_filters: usize,
    /// Characters of a word the CNN sees (longer words are cut).
    pub max_chars: usize,
    pub feature_dim: usize,
    /// A feature column with more distinct training values than this is not embedded.
    pub max_feature_values: usize,
    /// LSTM units per direction.
    pub hidden: usize,
    pub dropout: f32,
    pub learning_rate: f64,
    /// Sequences per batch (all of one length).
    pub batch: usize,
    pub max_epochs: usize,
    pub patience: usize,
    /// Share of the training sequences held out to choose the epoch.
    pub dev_ratio: f64,
    pub seed: u64,
    /// Training sequences longer than this are cut into windows of this many tokens (0:
    /// never). Batches hold sequences of one length, so a corpus of long sequences of distinct
    /// lengths (reference-segmenter: about 1,900 tokens each) would otherwise train one
    /// sequence at a time; tagging always reads whole sequences.
    #[serde(default)]
    pub max_length: usize,
    /// Word vectors (word2vec's text format, [`embed::Embeddings`], or a BiLSTM-CRF folder
    /// whose frozen channel is taken over: [`read_vectors`]) read at training as a frozen
    /// input channel beside the learned word embedding: every word of the file is known to
    /// the model, and its vector is not trained. `None`: no such channel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embeddings: Option<PathBuf>,
    /// The frozen channel's width, taken from the file (0 without one).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pretrained_dim: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Default for DeepParams {
    fn default() -> Self {
        DeepParams {
            word_dim: 64,
            char_dim: 24,
            char_filters: 48,
            max_chars: 24,
            feature_dim: 6,
            max_feature_values: 64,
            hidden: 96,
            dropout: 0.3,
            learning_rate: 0.003,
            batch: 16,
            max_epochs: 30,
            patience: 4,
            dev_ratio: 0.1,
            seed: 1,
            max_length: 0,
            embeddings: None,
            pretrained_dim: 0,
        }
    }
}

/// One epoch, as reported to the progress callback.
#[derive(Debug, Clone, serde::Serialize)]
pub struct EpochProgress {
    pub epoch: usize,
    /// Mean negative log-likelihood per sequence over the epoch.
    pub loss: f64,
    /// Field-level micro F1 (percent) on the held-out part.
    pub dev_f1: f64,
    pub best_epoch: usize,
    pub elapsed_s: f64,
}

/// A feature column the network embeds, with its values (id 0 is an unseen value).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct FeatureColumn {
    pub column: usize,
    pub values: Vec<String>,
}

/// Everything but the weights: how rows become ids.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Vocab {
    /// Id 0 is the unknown word.
    pub words: Vec<String>,
    /// Id 0 is padding, 1 an unknown character.
    pub chars: Vec<char>,
    pub features: Vec<FeatureColumn>,
    pub labels: Vec<String>,
    pub params: DeepParams,
    /// The words of the frozen channel ([`DeepParams::embeddings`]); id 0 is a word without
    /// a vector. Empty without the channel.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pretrained: Vec<String>,
}

struct Lookup {
    words: HashMap<String, u32>,
    pretrained: HashMap<String, u32>,
    chars: HashMap<char, u32>,
    features: Vec<HashMap<String, u32>>,
    labels: HashMap<String, u32>,
}

fn word_key(token: &str) -> String {
    token
        .chars()
        .map(|c| if c.is_ascii_digit() { '0' } else { c })
        .flat_map(char::to_lowercase)
        .collect()
}

impl Vocab {
    /// Build the vocabulary from training sequences.
    pub fn build(data: &[Sequence], params: &DeepParams) -> Result<Vocab> {
        let mut word_counts: HashMap<String, usize> = HashMap::new();
        let mut char_counts: HashMap<char, usize> = HashMap::new();
        let mut labels: Vec<String> = Vec::new();
        let columns = data
            .iter()
            .flat_map(|s| s.rows.iter().map(|r| r.len()))
            .min()
            .unwrap_or(0);
        let mut values: Vec<Vec<String>> = vec![Vec::new(); columns];
        let mut seen: Vec<std::collections::HashSet<&str>> =
            vec![std::collections::HashSet::new(); columns];
        for s in data {
            for (row, label) in s.rows.iter().zip(&s.labels) {
                let Some(token) = row.first() else { continue };
                *word_counts.entry(word_key(token)).or_default() += 1;
                for c in token.chars() {
                    *char_counts.entry(c).or_default() += 1;
                }
                for (c, v) in row.iter().enumerate().take(columns).skip(1) {
                    if seen[c].len() <= params.max_feature_values && seen[c].insert(v) {
                        values[c].push(v.clone());
                    }
                }
                if !labels.contains(label) {
                    labels.push(label.clone());
                }
            }
        }
        if labels.is_empty() {
            return Err(Error::BadInput("no training tokens".into()));
        }
        labels.sort();
        let mut words: Vec<String> = word_counts
            .into_iter()
            .filter(|(_, n)| *n >= 2)
            .map(|(w, _)| w)
            .collect();
        words.sort();
        words.insert(0, String::new());
        let mut chars: Vec<char> = char_counts
            .into_iter()
            .filter(|(_, n)| *n >= 2)
            .map(|(c, _)| c)
            .collect();
        chars.sort();
        chars.splice(0..0, ['\0', '\u{fffd}']);
        let features = values
            .into_iter()
            .enumerate()
            .skip(1)
            .filter(|(c, v)| v.len() > 1 && seen[*c].len() <= params.max_feature_values)
            .map(|(column, mut values)| {
                values.sort();
                values.insert(0, String::new());
                FeatureColumn { column, values }
            })
            .collect();
        Ok(Vocab {
            words,
            chars,
            features,
            labels,
            params: params.clone(),
            pretrained: Vec::new(),
        })
    }

    fn lookup(&self) -> Lookup {
        let index = |v: &[String]| -> HashMap<String, u32> {
            v.iter()
                .enumerate()
                .map(|(i, s)| (s.clone(), i as u32))
                .collect()
        };
        Lookup {
            words: index(&self.words),
            pretrained: index(&self.pretrained),
            chars: self
                .chars
                .iter()
                .enumerate()
                .map(|(i, c)| (*c, i as u32))
                .collect(),
            features: self.features.iter().map(|f| index(&f.values)).collect(),
            labels: index(&self.labels),
        }
    }
}

/// A sequence as ids.
struct Encoded {
    words: Vec<u32>,
    /// Ids in the frozen channel's words (empty without the channel).
    pre: Vec<u32>,
    chars: Vec<Vec<u32>>,
    /// Per embedded column, per token.
    features: Vec<Vec<u32>>,
    labels: Vec<u32>,
}

impl Encoded {
    /// Cut into consecutive windows of `n` tokens, the last one shorter (`n` = 0, or a
    /// sequence no longer than `n`: itself).
    fn windows(self, n: usize) -> Vec<Encoded> {
        let len = self.words.len();
        if n == 0 || len <= n {
            return vec![self];
        }
        (0..len)
            .step_by(n)
            .map(|b| {
                let e = (b + n).min(len);
                Encoded {
                    words: self.words[b..e].to_vec(),
                    pre: self.pre.get(b..e).map(<[u32]>::to_vec).unwrap_or_default(),
                    chars: self.chars[b..e].to_vec(),
                    features: self.features.iter().map(|f| f[b..e].to_vec()).collect(),
                    labels: self
                        .labels
                        .get(b..e)
                        .map(<[u32]>::to_vec)
                        .unwrap_or_default(),
                }
            })
            .collect()
    }
}

impl Lookup {
    fn encode(&self, vocab: &Vocab, rows: &[Vec<String>], labels: Option<&[String]>) -> Encoded {
        let max_chars = vocab.params.max_chars;
        let empty = String::new();
        // Each token's word key once, for the learned words and the frozen channel's.
        let mut words = Vec::with_capacity(rows.len());
        let mut pre = Vec::new();
        for r in rows {
            let key = word_key(r.first().unwrap_or(&empty));
            words.push(*self.words.get(&key).unwrap_or(&0));
            if !self.pretrained.is_empty() {
                pre.push(*self.pretrained.get(&key).unwrap_or(&0));
            }
        }
        let chars = rows
            .iter()
            .map(|r| {
                let t = r.first().unwrap_or(&empty);
                t.chars()
                    .take(max_chars)
                    .map(|c| *self.chars.get(&c).unwrap_or(&1))
                    .collect()
            })
            .collect();
        let features = vocab
            .features
            .iter()
            .zip(&self.features)
            .map(|(f, ids)| {
                rows.iter()
                    .map(|r| {
                        r.get(f.column)
                            .and_then(|v| ids.get(v))
                            .copied()
                            .unwrap_or(0)
                    })
                    .collect()
            })
            .collect();
        let labels = labels
            .map(|ls| {
                ls.iter()
                    .map(|l| *self.labels.get(l).unwrap_or(&0))
                    .collect()
            })
            .unwrap_or_default();
        Encoded {
            words,
            pre,
            chars,
            features,
            labels,
        }
    }
}

/// Tensors of a batch of sequences of one length.
struct Batch {
    words: Tensor,
    /// The frozen channel's ids `[B, T]`, when the model has it.
    pre: Option<Tensor>,
    chars: Tensor,
    /// `[B·T, C]`: 1 for a word's characters, 0 for padding (positions past its end).
    char_mask: Tensor,
    features: Vec<Tensor>,
    /// Gold labels `[B, T]`, their `[B, T, 1]` form for gathering, and the flat indexes of
    /// the gold transitions (`prev · L + cur`) for `T > 1`.
    gold: Option<(Tensor, Tensor, Option<Tensor>)>,
    b: usize,
    t: usize,
    /// For a batch of unequal lengths (tagging only; padded at the end): each sequence's
    /// length, and the row indexes of `[B·T, ·]` that reverse every sequence within its own
    /// length (padding stays in place), so the backward LSTM never reads padding first.
    padded: Option<(Vec<usize>, Tensor)>,
}

fn batch(items: &[&Encoded], labels: usize, dev: &Device) -> Result<Batch> {
    let b = items.len();
    let lens: Vec<usize> = items.iter().map(|e| e.words.len()).collect();
    let t = lens.iter().copied().max().unwrap_or(0);
    fn pad(v: &[u32], t: usize) -> impl Iterator<Item = u32> + '_ {
        v.iter().copied().chain(std::iter::repeat_n(0, t - v.len()))
    }
    let words: Vec<u32> = items.iter().flat_map(|e| pad(&e.words, t)).collect();
    // A model with the frozen channel encodes an id per token (an empty sequence has none).
    let pre = if items.iter().any(|e| !e.pre.is_empty()) {
        let v: Vec<u32> = items.iter().flat_map(|e| pad(&e.pre, t)).collect();
        Some(Tensor::from_vec(v, (b, t), dev).map_err(cerr)?)
    } else {
        None
    };
    let width = items
        .iter()
        .flat_map(|e| e.chars.iter().map(Vec::len))
        .max()
        .unwrap_or(0)
        .max(3);
    let mut chars = vec![0u32; b * t * width];
    let mut char_mask = vec![0f32; b * t * width];
    for (i, e) in items.iter().enumerate() {
        for (j, cs) in e.chars.iter().enumerate() {
            let at = (i * t + j) * width;
            chars[at..at + cs.len()].copy_from_slice(cs);
            char_mask[at..at + cs.len()].fill(1.0);
        }
    }
    let columns = items[0].features.len();
    let features = (0..columns)
        .map(|c| {
            let v: Vec<u32> = items.iter().flat_map(|e| pad(&e.features[c], t)).collect();
            Tensor::from_vec(v, (b, t), dev)
        })
        .collect::<candle_core::Result<Vec<_>>>()
        .map_err(cerr)?;
    let padded = if lens.iter().all(|&l| l == t) {
        None
    } else {
        let rev: Vec<u32> = lens
            .iter()
            .enumerate()
            .flat_map(|(i, &l)| {
                (0..t).map(move |j| (i * t + if j < l { l - 1 - j } else { j }) as u32)
            })
            .collect();
        Some((
            lens.clone(),
            Tensor::from_vec(rev, b * t, dev).map_err(cerr)?,
        ))
    };
    let gold = if items[0].labels.is_empty() {
        None
    } else {
        if padded.is_some() {
            return Err(Error::General(
                "a training batch must hold sequences of one length".into(),
            ));
        }
        let g: Vec<u32> = items
            .iter()
            .flat_map(|e| e.labels.iter().copied())
            .collect();
        let pairs: Vec<u32> = items
            .iter()
            .flat_map(|e| {
                e.labels
                    .windows(2)
                    .map(|w| w[0] * labels as u32 + w[1])
                    .collect::<Vec<_>>()
            })
            .collect();
        let gold = Tensor::from_vec(g, (b, t), dev).map_err(cerr)?;
        let gathered = gold.unsqueeze(2).map_err(cerr)?;
        let pairs = if t > 1 {
            Some(Tensor::from_vec(pairs, b * (t - 1), dev).map_err(cerr)?)
        } else {
            None
        };
        Some((gold, gathered, pairs))
    };
    Ok(Batch {
        words: Tensor::from_vec(words, (b, t), dev).map_err(cerr)?,
        pre,
        chars: Tensor::from_vec(chars, (b * t, width), dev).map_err(cerr)?,
        char_mask: Tensor::from_vec(char_mask, (b * t, width), dev).map_err(cerr)?,
        features,
        gold,
        b,
        t,
        padded,
    })
}

/// Rows of `x` (`[B, T, D]`) taken in the order of `index` (`[B·T]`).
fn reorder(x: &Tensor, index: &Tensor) -> candle_core::Result<Tensor> {
    let (b, t, d) = x.dims3()?;
    x.reshape((b * t, d))?
        .index_select(index, 0)?
        .reshape((b, t, d))
}

fn cerr(e: candle_core::Error) -> Error {
    Error::General(format!("candle: {e}"))
}

/// One LSTM direction; the input projection is computed for all steps at once.
struct Lstm {
    w_ih: Tensor,
    w_hh: Tensor,
    bias: Tensor,
    hidden: usize,
}

fn sigmoid(x: &Tensor) -> candle_core::Result<Tensor> {
    candle_nn::ops::sigmoid(x)
}

/// tanh as a rational function of degree 13/6, exact to float precision over the clamped
/// range (the approximation Eigen uses; near 0 it is x within 2e-7); a plain loop over it
/// vectorises, unlike `f32::tanh`.
#[inline(always)]
fn tanh_f32(x: f32) -> f32 {
    const CLAMP: f32 = 7.905_311;
    let x = x.clamp(-CLAMP, CLAMP);
    let x2 = x * x;
    let mut p = -2.760_768_5e-16_f32;
    p = p * x2 + 2.000_188e-13;
    p = p * x2 + -8.604_672e-11;
    p = p * x2 + 5.122_297e-8;
    p = p * x2 + 1.485_722_4e-5;
    p = p * x2 + 6.372_619_3e-4;
    p = p * x2 + 4.893_524_6e-3;
    let mut q = 1.198_258_4e-6_f32;
    q = q * x2 + 1.185_347_1e-4;
    q = q * x2 + 2.268_434_6e-3;
    q = q * x2 + 4.893_525e-3;
    x * p / q
}

#[inline(always)]
fn sigmoid_f32(x: f32) -> f32 {
    0.5 * tanh_f32(0.5 * x) + 0.5
}

impl Lstm {
    fn new(vb: VarBuilder, input: usize, hidden: usize) -> candle_core::Result<Lstm> {
        let bound = 1.0 / (hidden as f64).sqrt();
        let init = candle_nn::Init::Uniform {
            lo: -bound,
            up: bound,
        };
        let bias = vb.get_with_hints(4 * hidden, "bias", candle_nn::Init::Const(0.0))?;
        Ok(Lstm {
            w_ih: vb.get_with_hints((4 * hidden, input), "w_ih", init)?,
            w_hh: vb.get_with_hints((4 * hidden, hidden), "w_hh", init)?,
            bias,
            hidden,
        })
    }

    /// `x`: `[B, T, D]` → hidden states `[B, T, H]`, read backwards when `reverse`.
    fn run(&self, x: &Tensor, reverse: bool) -> candle_core::Result<Tensor> {
        let (b, t, d) = x.dims3()?;
        let h4 = 4 * self.hidden;
        let xw = x
            .reshape((b * t, d))?
            .matmul(&self.w_ih.t()?)?
            .broadcast_add(&self.bias)?
            .reshape((b, t, h4))?;
        let w_hh = self.w_hh.t()?.contiguous()?;
        let mut h = Tensor::zeros((b, self.hidden), DType::F32, x.device())?;
        let mut c = h.clone();
        let mut out: Vec<Option<Tensor>> = vec![None; t];
        let steps: Vec<usize> = if reverse {
            (0..t).rev().collect()
        } else {
            (0..t).collect()
        };
        for s in steps {
            let g = (xw.narrow(1, s, 1)?.squeeze(1)? + h.matmul(&w_hh)?)?;
            let gates = g.chunk(4, 1)?;
            let i = sigmoid(&gates[0])?;
            let f = sigmoid(&gates[1])?;
            let cell = gates[2].tanh()?;
            let o = sigmoid(&gates[3])?;
            c = ((f * &c)? + (i * cell)?)?;
            h = (o * c.tanh()?)?;
            out[s] = Some(h.clone());
        }
        let out: Vec<Tensor> = out
            .into_iter()
            .map(|o| o.expect("every step ran"))
            .collect();
        Tensor::stack(&out, 1)
    }
}

/// One direction's recurrence for tagging: the input projections `xw` (`[B, T, 4H]`) and the
/// recurrent weights `w_hh_t` (`[H, 4H]`) of `b` sequences of `t` steps, `hd` units, read
/// backwards when `reverse`.
struct Recurrence<'a> {
    xw: &'a [f32],
    w_hh_t: &'a [f32],
    b: usize,
    t: usize,
    hd: usize,
    reverse: bool,
}

impl Recurrence<'_> {
    /// The hidden states `[B, T, H]`: the steps of [`Lstm::run`] in plain loops, with AVX2
    /// where the CPU has it.
    fn run(&self) -> Vec<f32> {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                // SAFETY: the CPU supports AVX2 and FMA, checked just above.
                return unsafe { self.steps_avx2_fma() };
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU supports AVX2, checked just above.
                return unsafe { self.steps_avx2() };
            }
        }
        self.steps::<false>()
    }

    /// [`Recurrence::steps`] compiled for AVX2 (eight lanes instead of SSE's four).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn steps_avx2(&self) -> Vec<f32> {
        self.steps::<false>()
    }

    /// [`Recurrence::steps`] compiled for AVX2 with fused multiply-adds (one instruction and
    /// one rounding per product and sum).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn steps_avx2_fma(&self) -> Vec<f32> {
        self.steps::<true>()
    }

    /// The steps; `FUSED` sums the recurrent products with `mul_add`, only where the build
    /// has the FMA instruction (elsewhere `mul_add` is a slow library call).
    #[inline(always)]
    fn steps<const FUSED: bool>(&self) -> Vec<f32> {
        let Recurrence {
            xw,
            w_hh_t,
            b,
            t,
            hd,
            reverse,
        } = *self;
        let h4 = 4 * hd;
        let mut h = vec![0f32; b * hd];
        let mut c = vec![0f32; b * hd];
        let mut out = vec![0f32; b * t * hd];
        let mut g = vec![0f32; h4];
        for step in 0..t {
            let s = if reverse { t - 1 - step } else { step };
            for bi in 0..b {
                let at = (bi * t + s) * h4;
                g.copy_from_slice(&xw[at..at + h4]);
                gate_product::<FUSED>(&mut g, &h[bi * hd..(bi + 1) * hd], w_hh_t);
                let (gi, rest) = g.split_at(hd);
                let (gf, rest) = rest.split_at(hd);
                let (gc, go) = rest.split_at(hd);
                let cb = &mut c[bi * hd..(bi + 1) * hd];
                let hb = &mut h[bi * hd..(bi + 1) * hd];
                for j in 0..hd {
                    let cj = sigmoid_f32(gf[j]) * cb[j] + sigmoid_f32(gi[j]) * tanh_f32(gc[j]);
                    cb[j] = cj;
                    hb[j] = sigmoid_f32(go[j]) * tanh_f32(cj);
                }
                out[(bi * t + s) * hd..(bi * t + s + 1) * hd].copy_from_slice(hb);
            }
        }
        out
    }
}

/// `g += h · w` for the recurrent weights `w` (`[H, 4H]` row-major, `g` of `4H`): `LANES`
/// gate values at a time, each block summed over all of `h` in registers before it is stored,
/// so that the gates are read and written once per step rather than once per unit of `h`.
#[inline(always)]
fn gate_product<const FUSED: bool>(g: &mut [f32], h: &[f32], w: &[f32]) {
    const LANES: usize = 32;
    let h4 = g.len();
    let blocks = h4 / LANES * LANES;
    for j0 in (0..blocks).step_by(LANES) {
        let mut acc = [0f32; LANES];
        acc.copy_from_slice(&g[j0..j0 + LANES]);
        for (k, &hk) in h.iter().enumerate() {
            let row = &w[k * h4 + j0..k * h4 + j0 + LANES];
            for (a, wj) in acc.iter_mut().zip(row) {
                *a = madd::<FUSED>(hk, *wj, *a);
            }
        }
        g[j0..j0 + LANES].copy_from_slice(&acc);
    }
    for (k, &hk) in h.iter().enumerate() {
        for (gj, wj) in g[blocks..]
            .iter_mut()
            .zip(&w[k * h4 + blocks..(k + 1) * h4])
        {
            *gj = madd::<FUSED>(hk, *wj, *gj);
        }
    }
}

/// `a + h · w`, fused into one multiply-add when `FUSED`.
#[inline(always)]
fn madd<const FUSED: bool>(h: f32, w: f32, a: f32) -> f32 {
    if FUSED {
        h.mul_add(w, a)
    } else {
        a + h * w
    }
}

/// Per LSTM direction, what tagging derives from its weights (see [`TaggingTables`]).
struct DirectionTables {
    /// The input weights of word embeddings and character features, `[inner, 4H]`.
    w_inner_t: Tensor,
    /// Per feature column, per value: its part of the input projection (`4H` each).
    features: Vec<Vec<f32>>,
    /// The recurrent weights, `[H, 4H]`.
    w_hh_t: Vec<f32>,
}

/// What tagging derives from the weights once ([`Net::tagging_tables`]): per kernel offset,
/// per character, what the character adds to each CNN filter; the filters' biases; both
/// directions' tables; the CRF's transition, start and end scores for Viterbi.
struct TaggingTables {
    chars: Vec<Vec<f32>>,
    conv_b: Vec<f32>,
    fwd: DirectionTables,
    bwd: DirectionTables,
    trans: Vec<Vec<f32>>,
    start: Vec<f32>,
    end: Vec<f32>,
}

/// The network: inputs, BiLSTM, label scores and the CRF's scores.
struct Net {
    word: Embedding,
    /// The frozen word channel (its weights are left out of the optimiser).
    pre: Option<Embedding>,
    chr: Embedding,
    conv: Conv1d,
    features: Vec<Embedding>,
    fwd: Lstm,
    bwd: Lstm,
    out: Linear,
    trans: Tensor,
    start: Tensor,
    end: Tensor,
    labels: usize,
    dropout: f32,
}

impl Net {
    fn new(vocab: &Vocab, vb: VarBuilder) -> candle_core::Result<Net> {
        let p = &vocab.params;
        let labels = vocab.labels.len();
        let word = candle_nn::embedding(vocab.words.len(), p.word_dim, vb.pp("word"))?;
        let pre = if vocab.pretrained.is_empty() || p.pretrained_dim == 0 {
            None
        } else {
            Some(candle_nn::embedding(
                vocab.pretrained.len(),
                p.pretrained_dim,
                vb.pp(PRETRAINED),
            )?)
        };
        let pdim = pre.as_ref().map_or(0, |e| e.hidden_size());
        let chr = candle_nn::embedding(vocab.chars.len(), p.char_dim, vb.pp("char"))?;
        let conv = candle_nn::conv1d(
            p.char_dim,
            p.char_filters,
            3,
            Conv1dConfig {
                padding: 1,
                ..Default::default()
            },
            vb.pp("char_cnn"),
        )?;
        let features = vocab
            .features
            .iter()
            .enumerate()
            .map(|(i, f)| {
                candle_nn::embedding(f.values.len(), p.feature_dim, vb.pp(format!("feature{i}")))
            })
            .collect::<candle_core::Result<Vec<_>>>()?;
        let input = p.word_dim + pdim + p.char_filters + p.feature_dim * vocab.features.len();
        let fwd = Lstm::new(vb.pp("lstm_fwd"), input, p.hidden)?;
        let bwd = Lstm::new(vb.pp("lstm_bwd"), input, p.hidden)?;
        let out = candle_nn::linear(2 * p.hidden, labels, vb.pp("out"))?;
        let small = candle_nn::Init::Uniform { lo: -0.1, up: 0.1 };
        let trans = vb.get_with_hints((labels, labels), "crf.transitions", small)?;
        let start = vb.get_with_hints(labels, "crf.start", small)?;
        let end = vb.get_with_hints(labels, "crf.end", small)?;
        Ok(Net {
            word,
            pre,
            chr,
            conv,
            features,
            fwd,
            bwd,
            out,
            trans,
            start,
            end,
            labels,
            dropout: p.dropout,
        })
    }

    /// The frozen channel's width (0 without it).
    fn pre_dim(&self) -> usize {
        self.pre.as_ref().map_or(0, |e| e.hidden_size())
    }

    /// Label scores `[B, T, L]` as a tensor graph; with `dropout` (training) its masks are
    /// drawn from that generator, so a seeded training is reproducible.
    fn emissions_graph(
        &self,
        b: &Batch,
        mut dropout: Option<&mut rand::rngs::StdRng>,
    ) -> candle_core::Result<Tensor> {
        let mut drop = |x: Tensor| -> candle_core::Result<Tensor> {
            match dropout.as_deref_mut() {
                Some(rng) if self.dropout > 0.0 => {
                    let keep = 1.0 - self.dropout;
                    let mask: Vec<f32> = (0..x.elem_count())
                        .map(|_| {
                            if rng.random::<f32>() < self.dropout {
                                0.0
                            } else {
                                1.0 / keep
                            }
                        })
                        .collect();
                    let mask = Tensor::from_vec(mask, x.shape(), x.device())?;
                    x * mask
                }
                _ => Ok(x),
            }
        };
        let words = self.word.forward(&b.words)?;
        // Padding characters embed as zeros (as the convolution's own border) and positions
        // past a word's end are left out of the max-pooling, so a word's character features
        // do not depend on the longest word of its batch.
        let mask = b.char_mask.unsqueeze(1)?;
        let chars = self
            .chr
            .forward(&b.chars)?
            .transpose(1, 2)?
            .broadcast_mul(&mask)?
            .contiguous()?;
        let outside = ((&mask - 1.0)? * 1e4)?;
        let chars = self
            .conv
            .forward(&chars)?
            .broadcast_add(&outside)?
            .max(D::Minus1)?
            .relu()?
            .reshape((b.b, b.t, ()))?;
        let mut parts = vec![words];
        match (&self.pre, &b.pre) {
            (Some(e), Some(ids)) => parts.push(e.forward(ids)?),
            (None, _) => {}
            (Some(_), None) => candle_core::bail!("a batch without the frozen channel's ids"),
        }
        parts.push(chars);
        for (e, ids) in self.features.iter().zip(&b.features) {
            parts.push(e.forward(ids)?);
        }
        let x = drop(Tensor::cat(&parts, 2)?)?;
        let backward = match &b.padded {
            // Each sequence reversed within its length, read forwards, put back in order.
            Some((_, rev)) => reorder(&self.bwd.run(&reorder(&x, rev)?, false)?, rev)?,
            None => self.bwd.run(&x, true)?,
        };
        let h = Tensor::cat(&[self.fwd.run(&x, false)?, backward], 2)?;
        let h = drop(h)?;
        let hd = h.dim(2)?;
        self.out
            .forward(&h.reshape((b.b * b.t, hd))?)?
            .reshape((b.b, b.t, self.labels))
    }

    /// What tagging derives from the weights once, for [`Net::emissions_tagging`].
    fn tagging_tables(&self) -> candle_core::Result<TaggingTables> {
        let conv_w = self.conv.weight(); // [F, Cdim, 3]
        let (filters, _, width) = conv_w.dims3()?;
        let char_emb = self.chr.embeddings();
        let chars = (0..width)
            .map(|k| {
                char_emb
                    .matmul(&conv_w.narrow(2, k, 1)?.squeeze(2)?.t()?)?
                    .flatten_all()?
                    .to_vec1::<f32>()
            })
            .collect::<candle_core::Result<_>>()?;
        let conv_b: Vec<f32> = match self.conv.bias() {
            Some(bias) => bias.to_vec1()?,
            None => vec![0.0; filters],
        };
        let inner = self.word.hidden_size() + self.pre_dim() + filters;
        let fdim = self.features.first().map_or(0, |e| e.hidden_size());
        let direction = |l: &Lstm| -> candle_core::Result<DirectionTables> {
            let features = self
                .features
                .iter()
                .enumerate()
                .map(|(fi, e)| {
                    let part = l.w_ih.narrow(1, inner + fi * fdim, fdim)?;
                    e.embeddings().matmul(&part.t()?)?.flatten_all()?.to_vec1()
                })
                .collect::<candle_core::Result<_>>()?;
            Ok(DirectionTables {
                w_inner_t: l.w_ih.narrow(1, 0, inner)?.t()?.contiguous()?,
                features,
                w_hh_t: l.w_hh.t()?.contiguous()?.flatten_all()?.to_vec1()?,
            })
        };
        Ok(TaggingTables {
            chars,
            conv_b,
            fwd: direction(&self.fwd)?,
            bwd: direction(&self.bwd)?,
            trans: self.trans.to_vec2()?,
            start: self.start.to_vec1()?,
            end: self.end.to_vec1()?,
        })
    }

    /// Label scores `[B, T, L]` for tagging, the same arithmetic as
    /// [`Net::emissions_graph`] without dropout, in plain loops over `tables`
    /// ([`Net::tagging_tables`]):
    /// - the character CNN: a window of three characters sums, per filter, what each of its
    ///   characters contributes at its place, looked up per character instead of multiplied
    ///   out per position, over each word's own characters only;
    /// - each feature column's part of both LSTMs' input projections, looked up per value;
    ///   words and character features go through one matrix product;
    /// - the recurrences in [`Recurrence::run`].
    fn emissions_tagging(&self, b: &Batch, tables: &TaggingTables) -> candle_core::Result<Tensor> {
        let (bn, t) = (b.b, b.t);
        let n = bn * t;
        let dev = b.words.device();
        let filters = tables.conv_b.len();
        let width = tables.chars.len();
        let chars: Vec<u32> = b.chars.flatten_all()?.to_vec1()?;
        let mask: Vec<f32> = b.char_mask.flatten_all()?.to_vec1()?;
        let cw = b.chars.dim(1)?;
        let wdim = self.word.hidden_size();
        let pdim = self.pre_dim();
        let inner = wdim + pdim + filters;
        let words: Vec<f32> = self.word.forward(&b.words)?.flatten_all()?.to_vec1()?;
        let pre: Vec<f32> = match (&self.pre, &b.pre) {
            (Some(e), Some(ids)) => e.forward(ids)?.flatten_all()?.to_vec1()?,
            (None, _) => Vec::new(),
            (Some(_), None) => candle_core::bail!("a batch without the frozen channel's ids"),
        };
        // Per token: its word embedding, its frozen vector, then its character features.
        let mut x = vec![0f32; n * inner];
        let mut acc = vec![0f32; filters];
        let half = width / 2;
        for i in 0..n {
            let row = &mut x[i * inner..(i + 1) * inner];
            row[..wdim].copy_from_slice(&words[i * wdim..(i + 1) * wdim]);
            row[wdim..wdim + pdim].copy_from_slice(&pre[i * pdim..(i + 1) * pdim]);
            let len = mask[i * cw..(i + 1) * cw]
                .iter()
                .filter(|&&m| m > 0.0)
                .count();
            let cs = &chars[i * cw..i * cw + len];
            let best = &mut row[wdim + pdim..];
            best.fill(f32::NEG_INFINITY);
            for p in 0..len {
                acc.copy_from_slice(&tables.conv_b);
                for (k, table) in tables.chars.iter().enumerate() {
                    let Some(q) = (p + k).checked_sub(half).filter(|&q| q < len) else {
                        continue;
                    };
                    let c = cs[q] as usize;
                    for (a, v) in acc.iter_mut().zip(&table[c * filters..(c + 1) * filters]) {
                        *a += v;
                    }
                }
                for (m, a) in best.iter_mut().zip(&acc) {
                    *m = m.max(*a);
                }
            }
            // ReLU; a word without characters has none (the graph's masked max is far below 0).
            for m in best.iter_mut() {
                *m = if len == 0 { 0.0 } else { m.max(0.0) };
            }
        }
        let x = Tensor::from_vec(x, (n, inner), dev)?;
        let feature_ids: Vec<Vec<u32>> = b
            .features
            .iter()
            .map(|f| f.flatten_all()?.to_vec1())
            .collect::<candle_core::Result<_>>()?;
        let hd = self.fwd.hidden;
        let h4 = 4 * hd;
        let project = |lstm: &Lstm, d: &DirectionTables| -> candle_core::Result<Vec<f32>> {
            let mut xw: Vec<f32> = x
                .matmul(&d.w_inner_t)?
                .broadcast_add(&lstm.bias)?
                .flatten_all()?
                .to_vec1()?;
            for (table, ids) in d.features.iter().zip(&feature_ids) {
                for (row, &id) in xw.chunks_exact_mut(h4).zip(ids) {
                    let add = &table[id as usize * h4..(id as usize + 1) * h4];
                    for (r, a) in row.iter_mut().zip(add) {
                        *r += a;
                    }
                }
            }
            Ok(xw)
        };
        let recurrence = |xw: &[f32], w_hh_t: &[f32], reverse: bool| {
            Recurrence {
                xw,
                w_hh_t,
                b: bn,
                t,
                hd,
                reverse,
            }
            .run()
        };
        let fwd = recurrence(&project(&self.fwd, &tables.fwd)?, &tables.fwd.w_hh_t, false);
        let bwd_in = project(&self.bwd, &tables.bwd)?;
        let bwd = match &b.padded {
            // Each sequence reversed within its length, read forwards, put back in order.
            Some((_, rev)) => {
                let rev: Vec<u32> = rev.to_vec1()?;
                let rows = |v: &[f32], w: usize| -> Vec<f32> {
                    rev.iter()
                        .flat_map(|&r| v[r as usize * w..(r as usize + 1) * w].iter().copied())
                        .collect()
                };
                let out = recurrence(&rows(&bwd_in, h4), &tables.bwd.w_hh_t, false);
                rows(&out, hd)
            }
            None => recurrence(&bwd_in, &tables.bwd.w_hh_t, true),
        };
        let mut h = Vec::with_capacity(n * 2 * hd);
        for i in 0..n {
            h.extend_from_slice(&fwd[i * hd..(i + 1) * hd]);
            h.extend_from_slice(&bwd[i * hd..(i + 1) * hd]);
        }
        self.out
            .forward(&Tensor::from_vec(h, (n, 2 * hd), dev)?)?
            .reshape((bn, t, self.labels))
    }

    /// Mean negative log-likelihood of the gold labels.
    fn loss(&self, b: &Batch, dropout: &mut rand::rngs::StdRng) -> candle_core::Result<Tensor> {
        let (gold, gathered, pairs) = b.gold.as_ref().expect("a training batch has labels");
        let em = self.emissions_graph(b, Some(dropout))?;
        let t = b.t;
        let mut score = em.gather(gathered, 2)?.squeeze(2)?.sum(1)?;
        score = (score
            + self
                .start
                .index_select(&gold.narrow(1, 0, 1)?.squeeze(1)?, 0)?)?;
        score = (score
            + self
                .end
                .index_select(&gold.narrow(1, t - 1, 1)?.squeeze(1)?, 0)?)?;
        if let Some(pairs) = pairs {
            let tr = self
                .trans
                .flatten_all()?
                .index_select(pairs, 0)?
                .reshape((b.b, t - 1))?
                .sum(1)?;
            score = (score + tr)?;
        }
        let trans = self.trans.unsqueeze(0)?;
        let mut alpha = em.narrow(1, 0, 1)?.squeeze(1)?.broadcast_add(&self.start)?;
        for i in 1..t {
            let e = em.narrow(1, i, 1)?.squeeze(1)?;
            alpha = (alpha.unsqueeze(2)?.broadcast_add(&trans)?.log_sum_exp(1)? + e)?;
        }
        let logz = alpha.broadcast_add(&self.end)?.log_sum_exp(1)?;
        (logz - score)?.mean_all()
    }

    /// Label scores `[T][L]` of each sequence of the batch, padding cut off.
    fn emissions(
        &self,
        b: &Batch,
        tables: &TaggingTables,
    ) -> candle_core::Result<Vec<Vec<Vec<f32>>>> {
        let em = self.emissions_tagging(b, tables)?.to_vec3::<f32>()?;
        let lens: Vec<usize> = match &b.padded {
            Some((lens, _)) => lens.clone(),
            None => vec![b.t; b.b],
        };
        Ok(em
            .into_iter()
            .zip(lens)
            .map(|(mut seq, l)| {
                seq.truncate(l);
                seq
            })
            .collect())
    }
}

/// Viterbi over `[T][L]` scores.
pub(crate) fn viterbi(
    em: &[Vec<f32>],
    trans: &[Vec<f32>],
    start: &[f32],
    end: &[f32],
) -> Vec<usize> {
    let t = em.len();
    if t == 0 {
        return Vec::new();
    }
    let l = start.len();
    let mut score: Vec<f32> = (0..l).map(|j| start[j] + em[0][j]).collect();
    let mut back = vec![vec![0usize; l]; t];
    for i in 1..t {
        let mut next = vec![f32::NEG_INFINITY; l];
        for (j, nj) in next.iter_mut().enumerate() {
            for (k, sk) in score.iter().enumerate() {
                let v = sk + trans[k][j];
                if v > *nj {
                    *nj = v;
                    back[i][j] = k;
                }
            }
            *nj += em[i][j];
        }
        score = next;
    }
    let mut best = 0;
    for j in 1..l {
        if score[j] + end[j] > score[best] + end[best] {
            best = j;
        }
    }
    let mut path = vec![best; t];
    for i in (1..t).rev() {
        path[i - 1] = back[i][path[i]];
    }
    path
}

/// The scores of a BiLSTM-CRF's chain layer ([`Model::chain`]).
#[derive(Debug, Clone)]
pub struct Chain {
    pub trans: Vec<Vec<f32>>,
    pub start: Vec<f32>,
    pub end: Vec<f32>,
}

/// A trained BiLSTM-CRF: vocabulary and network.
pub struct Model {
    vocab: Vocab,
    /// Boxed: the maps would make every `Tagger` as large as this one.
    lookup: Box<Lookup>,
    net: Net,
    device: Device,
    meta: serde_json::Value,
    /// The tagging tables of the current weights, made on first use; training forgets them
    /// whenever the weights change ([`Model::forget_tables`]).
    tables: std::sync::Mutex<Option<std::sync::Arc<TaggingTables>>>,
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("deep::Model")
            .field("labels", &self.vocab.labels)
            .field("words", &self.vocab.words.len())
            .field("features", &self.vocab.features.len())
            .finish()
    }
}

/// Sequences per batch at tagging time.
const TAG_BATCH: usize = 64;

impl Model {
    /// Load `dir` (`model.safetensors`, `vocab.json`, `meta.json`).
    pub fn load(dir: &Path) -> Result<Model> {
        let read = |name: &str| {
            std::fs::read(dir.join(name))
                .map_err(|e| Error::General(format!("reading {}: {e}", dir.join(name).display())))
        };
        let vocab: Vocab = serde_json::from_slice(&read(VOCAB_FILE)?)
            .map_err(|e| Error::General(format!("{VOCAB_FILE}: {e}")))?;
        let meta: serde_json::Value =
            serde_json::from_slice(&read(META_FILE)?).unwrap_or(serde_json::Value::Null);
        let device = Device::Cpu;
        let tensors =
            candle_core::safetensors::load(dir.join(WEIGHTS_FILE), &device).map_err(cerr)?;
        let vb = VarBuilder::from_tensors(tensors, DType::F32, &device);
        let net = Net::new(&vocab, vb).map_err(cerr)?;
        Ok(Model {
            lookup: Box::new(vocab.lookup()),
            vocab,
            net,
            device,
            meta,
            tables: Default::default(),
        })
    }

    pub fn labels(&self) -> &[String] {
        &self.vocab.labels
    }

    /// The vectors of the frozen word channel, when the model has one.
    pub fn frozen_vectors(&self) -> Result<Option<embed::Embeddings>> {
        let Some(e) = &self.net.pre else {
            return Ok(None);
        };
        let table = e.embeddings().to_vec2::<f32>().map_err(cerr)?;
        Ok(Some(embed::Embeddings {
            words: self.vocab.pretrained.iter().skip(1).cloned().collect(),
            dim: e.hidden_size(),
            vectors: table.into_iter().skip(1).flatten().collect(),
        }))
    }

    /// The tagging tables of the current weights.
    fn tables(&self) -> Result<std::sync::Arc<TaggingTables>> {
        let mut slot = self.tables.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = slot.as_ref() {
            return Ok(t.clone());
        }
        let t = std::sync::Arc::new(self.net.tagging_tables().map_err(cerr)?);
        *slot = Some(t.clone());
        Ok(t)
    }

    /// Drop the tagging tables: the weights changed (a training step).
    fn forget_tables(&self) {
        *self.tables.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }

    pub fn vocab(&self) -> &Vocab {
        &self.vocab
    }

    /// `meta.json` as written beside the weights.
    pub fn meta(&self) -> &serde_json::Value {
        &self.meta
    }

    /// Label one sequence of feature rows.
    pub fn label(&self, rows: &[Vec<String>]) -> Result<Vec<String>> {
        Ok(self.label_many(&[rows])?.pop().unwrap_or_default())
    }

    /// Label the rows of every sequence of `data` (batched by length).
    pub fn label_all(&self, data: &[Sequence]) -> Result<Vec<Vec<String>>> {
        let rows: Vec<&[Vec<String>]> = data.iter().map(|s| s.rows.as_slice()).collect();
        self.label_many(&rows)
    }

    /// Label several sequences, batched by length.
    pub fn label_many(&self, seqs: &[&[Vec<String>]]) -> Result<Vec<Vec<String>>> {
        let chain = self.chain()?;
        Ok(self
            .emissions_many(seqs)?
            .iter()
            .map(|em| {
                viterbi(em, &chain.trans, &chain.start, &chain.end)
                    .into_iter()
                    .map(|l| self.vocab.labels[l].clone())
                    .collect()
            })
            .collect())
    }

    /// The CRF layer's scores: transitions (`[from][to]`), start and end, in the order of
    /// [`Model::labels`].
    pub fn chain(&self) -> Result<Chain> {
        let t = self.tables()?;
        Ok(Chain {
            trans: t.trans.clone(),
            start: t.start.clone(),
            end: t.end.clone(),
        })
    }

    /// The label scores (`[T][L]`, the order of [`Model::labels`]) the network gives each
    /// token of each sequence, batched by length; an empty sequence gets none.
    pub fn emissions_many(&self, seqs: &[&[Vec<String>]]) -> Result<Vec<Vec<Vec<f32>>>> {
        let encoded: Vec<Encoded> = seqs
            .iter()
            .map(|r| self.lookup.encode(&self.vocab, r, None))
            .collect();
        let mut out: Vec<Vec<Vec<f32>>> = vec![Vec::new(); seqs.len()];
        // Sorted by length, so that a padded batch holds sequences of close lengths.
        let mut order: Vec<usize> = (0..encoded.len())
            .filter(|&i| !encoded[i].words.is_empty())
            .collect();
        order.sort_by_key(|&i| encoded[i].words.len());
        // Consecutive sequences whose lengths stay within a quarter (plus 2) of the group's
        // shortest share a batch, so little of a batch is padding.
        let mut groups: Vec<&[usize]> = Vec::new();
        let mut from = 0;
        for k in 1..=order.len() {
            let first = encoded[order[from]].words.len();
            let ends = k == order.len()
                || k - from == TAG_BATCH
                || encoded[order[k]].words.len() > first + first / 4 + 2;
            if ends {
                groups.push(&order[from..k]);
                from = k;
            }
        }
        let tables = self.tables()?;
        for group in groups {
            let items: Vec<&Encoded> = group.iter().map(|&i| &encoded[i]).collect();
            let b = batch(&items, self.vocab.labels.len(), &self.device)?;
            let scores = self.net.emissions(&b, &tables).map_err(cerr)?;
            for (&i, em) in group.iter().zip(scores) {
                out[i] = em;
            }
        }
        Ok(out)
    }

    /// Evaluate against gold sequences, GROBID-style.
    pub fn evaluate(&self, data: &[Sequence]) -> Result<Evaluation> {
        let predicted = self.label_all(data)?;
        let mut e = Evaluation::new();
        for (s, p) in data.iter().zip(&predicted) {
            e.add(&s.labels, p);
        }
        Ok(e)
    }
}

/// Stack for one training step: candle walks (and drops) the computation graph recursively,
/// and a graph over a sequence of thousands of tokens (a header, a reference section) is
/// deeper than a thread's default stack. Reserved address space; pages are used as touched.
const STEP_STACK_BYTES: usize = 1 << 30;

/// Runs `step` (forward, backward, and the graph's drop) on a thread with
/// [`STEP_STACK_BYTES`] of stack.
fn step_with_deep_stack<T: Send>(
    step: impl FnOnce() -> candle_core::Result<T> + Send,
) -> Result<T> {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("quire-train-step".into())
            .stack_size(STEP_STACK_BYTES)
            .spawn_scoped(s, step)
            .map_err(|e| Error::General(format!("cannot start a training step: {e}")))?
            .join()
            .map_err(|_| Error::General("a training step panicked".into()))?
            .map_err(cerr)
    })
}

/// Indexes grouped by sequence length, at most `size` a group, shuffled (training batches).
fn length_groups(data: &[Encoded], size: usize, rng: &mut rand::rngs::StdRng) -> Vec<Vec<usize>> {
    let mut by_len: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for (i, e) in data.iter().enumerate() {
        by_len.entry(e.words.len()).or_default().push(i);
    }
    let mut groups = Vec::new();
    for (_, mut ids) in by_len {
        ids.shuffle(rng);
        groups.extend(ids.chunks(size.max(1)).map(<[usize]>::to_vec));
    }
    groups.shuffle(rng);
    groups
}

/// Every variable's tensor, by name.
type Snapshot = Vec<(String, Tensor)>;

/// Copies of every variable, by name.
fn snapshot(varmap: &VarMap) -> candle_core::Result<Snapshot> {
    let vars = varmap.data().lock().expect("varmap lock");
    vars.iter()
        .map(|(n, v)| Ok((n.clone(), v.as_tensor().copy()?)))
        .collect()
}

/// Creates the network's weights in `vars` from a seeded generator (candle draws a CPU
/// tensor's random values from an unseeded one), with the distribution each layer asks for,
/// so that a training with the same seed and data starts from the same weights.
struct SeededInit {
    vars: VarMap,
    rng: std::sync::Mutex<rand::rngs::StdRng>,
}

impl SeededInit {
    fn draw(
        &self,
        shape: &candle_core::Shape,
        init: candle_nn::Init,
    ) -> candle_core::Result<Vec<f32>> {
        use candle_nn::init::{Init, NormalOrUniform};
        use rand_distr::Distribution;
        let n = shape.elem_count();
        let mut rng = self.rng.lock().expect("initialiser lock");
        let normal = |rng: &mut rand::rngs::StdRng, mean: f64, std: f64| {
            let d = rand_distr::Normal::new(mean, std)
                .map_err(|e| candle_core::Error::Msg(format!("initialiser: {e}")))?;
            Ok::<_, candle_core::Error>((0..n).map(|_| d.sample(rng) as f32).collect())
        };
        let uniform = |rng: &mut rand::rngs::StdRng, lo: f64, up: f64| {
            (0..n)
                .map(|_| (lo + (up - lo) * rng.random::<f64>()) as f32)
                .collect()
        };
        Ok(match init {
            Init::Const(c) => vec![c as f32; n],
            Init::Randn { mean, stdev } => normal(&mut rng, mean, stdev)?,
            Init::Uniform { lo, up } => uniform(&mut rng, lo, up),
            Init::Kaiming {
                dist,
                fan,
                non_linearity,
            } => {
                let std = non_linearity.gain() / (fan.for_shape(shape) as f64).sqrt();
                match dist {
                    NormalOrUniform::Normal => normal(&mut rng, 0.0, std)?,
                    NormalOrUniform::Uniform => {
                        let bound = 3f64.sqrt() * std;
                        uniform(&mut rng, -bound, bound)
                    }
                }
            }
        })
    }
}

impl candle_nn::var_builder::SimpleBackend for SeededInit {
    fn get(
        &self,
        shape: candle_core::Shape,
        name: &str,
        init: candle_nn::Init,
        dtype: DType,
        dev: &Device,
    ) -> candle_core::Result<Tensor> {
        if let Some(var) = self.vars.data().lock().expect("varmap lock").get(name) {
            let t = var.as_tensor();
            if t.shape() != &shape {
                candle_core::bail!("`{name}` has shape {:?}, asked for {shape:?}", t.shape());
            }
            return t.to_dtype(dtype);
        }
        let values = self.draw(&shape, init)?;
        let var =
            candle_core::Var::from_tensor(&Tensor::from_vec(values, shape, dev)?.to_dtype(dtype)?)?;
        let t = var.as_tensor().clone();
        self.vars
            .data()
            .lock()
            .expect("varmap lock")
            .insert(name.to_string(), var);
        Ok(t)
    }

    fn get_unchecked(&self, name: &str, dtype: DType, _: &Device) -> candle_core::Result<Tensor> {
        match self.vars.data().lock().expect("varmap lock").get(name) {
            Some(var) => var.as_tensor().to_dtype(dtype),
            None => candle_core::bail!("no weight `{name}`"),
        }
    }

    fn contains_tensor(&self, name: &str) -> bool {
        self.vars
            .data()
            .lock()
            .expect("varmap lock")
            .contains_key(name)
    }
}

/// Mixed into the seed for the initial weights and for the dropout masks, so that the two
/// generators and the one that shuffles the data draw different streams.
const INIT_SEED: u64 = 0x51ed_1a17;
const DROPOUT_SEED: u64 = 0xd50f_0a7e;

/// A fresh LSTM's forget gates start open (bias 1; gate order input, forget, cell, output).
fn forget_gate_bias(varmap: &VarMap, hidden: usize) -> candle_core::Result<()> {
    let vars = varmap.data().lock().expect("varmap lock");
    for (name, var) in vars.iter() {
        if name.ends_with(".bias") && name.starts_with("lstm_") {
            let v: Vec<f32> = (0..4 * hidden)
                .map(|i| {
                    if (hidden..2 * hidden).contains(&i) {
                        1.0
                    } else {
                        0.0
                    }
                })
                .collect();
            var.set(&Tensor::from_vec(v, 4 * hidden, var.device())?)?;
        }
    }
    Ok(())
}

/// A finished training: the model in memory and what to write.
pub struct Trained {
    pub model: Model,
    varmap: VarMap,
    pub epochs: usize,
    pub best_epoch: usize,
    pub best_dev_f1: f64,
    pub seconds: f64,
}

impl Trained {
    /// Write `model.safetensors`, `vocab.json` and `meta.json` into `dir`; the bytes of the
    /// weights file.
    pub fn save(&mut self, dir: &Path, meta: serde_json::Value) -> Result<usize> {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::General(format!("creating {}: {e}", dir.display())))?;
        let weights = dir.join(WEIGHTS_FILE);
        self.varmap.save(&weights).map_err(cerr)?;
        let write = |name: &str, json: serde_json::Result<String>| {
            let text = json.map_err(|e| Error::General(format!("{name}: {e}")))?;
            std::fs::write(dir.join(name), text)
                .map_err(|e| Error::General(format!("writing {name}: {e}")))
        };
        write(VOCAB_FILE, serde_json::to_string_pretty(&self.model.vocab))?;
        write(META_FILE, serde_json::to_string_pretty(&meta))?;
        self.model.meta = meta;
        std::fs::metadata(&weights)
            .map(|m| m.len() as usize)
            .map_err(|e| Error::General(format!("{e}")))
    }
}

/// Word vectors for [`DeepParams::embeddings`]: a file in word2vec's text format, or a
/// BiLSTM-CRF folder whose frozen channel is read (so that retraining a model keeps the
/// vectors it was trained with).
pub fn read_vectors(path: &Path) -> Result<embed::Embeddings> {
    if !path.is_dir() {
        return embed::Embeddings::read(path);
    }
    Model::load(path)?.frozen_vectors()?.ok_or_else(|| {
        Error::BadInput(format!(
            "{}: the BiLSTM-CRF has no frozen word channel",
            path.display()
        ))
    })
}

/// Whether the BiLSTM-CRF in `dir` reads a frozen word channel (from its `vocab.json`).
pub fn has_frozen_channel(dir: &Path) -> bool {
    std::fs::read(dir.join(VOCAB_FILE))
        .ok()
        .and_then(|b| serde_json::from_slice::<Vocab>(&b).ok())
        .is_some_and(|v| !v.pretrained.is_empty())
}

/// Train on `data`; a share ([`DeepParams::dev_ratio`]) is held out to pick the epoch.
/// `progress` is called after each epoch and stops the training when it answers `false`
/// (the training then returns `Ok(None)`).
pub fn train(
    data: &[Sequence],
    params: &DeepParams,
    progress: &mut dyn FnMut(&EpochProgress) -> bool,
) -> Result<Option<Trained>> {
    train_from(data, params, None, progress)
}

/// As [`train`]; with `start` (a saved model's folder) the training keeps that model's
/// vocabulary and sizes and starts from its weights (incremental training: words, characters
/// and feature values it does not know stay unknown). `params` gives the training settings.
pub fn train_from(
    data: &[Sequence],
    params: &DeepParams,
    start: Option<&Path>,
    progress: &mut dyn FnMut(&EpochProgress) -> bool,
) -> Result<Option<Trained>> {
    if !(0.0..1.0).contains(&params.dropout) {
        return Err(Error::BadInput(format!(
            "a dropout rate is at least 0 and under 1, not {}",
            params.dropout
        )));
    }
    let started = Instant::now();
    let mut rng = rand::rngs::StdRng::seed_from_u64(params.seed);
    let mut order: Vec<usize> = (0..data.len()).collect();
    order.shuffle(&mut rng);
    let held = ((data.len() as f64) * params.dev_ratio).round() as usize;
    let held = held.min(data.len().saturating_sub(1));
    let (dev_ids, train_ids) = order.split_at(held);
    let train_data: Vec<Sequence> = train_ids.iter().map(|&i| data[i].clone()).collect();
    let dev_data: Vec<Sequence> = dev_ids.iter().map(|&i| data[i].clone()).collect();
    let device = Device::Cpu;
    let varmap = VarMap::new();
    let init = SeededInit {
        vars: varmap.clone(),
        rng: std::sync::Mutex::new(rand::rngs::StdRng::seed_from_u64(params.seed ^ INIT_SEED)),
    };
    let vb = VarBuilder::from_backend(Box::new(init), DType::F32, device.clone());
    let mut dropout_rng = rand::rngs::StdRng::seed_from_u64(params.seed ^ DROPOUT_SEED);
    let (vocab, net) = match start {
        Some(dir) => {
            let old = Model::load(dir)?;
            let mut vocab = old.vocab.clone();
            let sizes = vocab.params.clone();
            vocab.params = DeepParams {
                word_dim: sizes.word_dim,
                char_dim: sizes.char_dim,
                char_filters: sizes.char_filters,
                max_chars: sizes.max_chars,
                feature_dim: sizes.feature_dim,
                max_feature_values: sizes.max_feature_values,
                hidden: sizes.hidden,
                embeddings: sizes.embeddings.clone(),
                pretrained_dim: sizes.pretrained_dim,
                ..params.clone()
            };
            let net = Net::new(&vocab, vb).map_err(cerr)?;
            let tensors =
                candle_core::safetensors::load(dir.join(WEIGHTS_FILE), &device).map_err(cerr)?;
            let vars = varmap.data().lock().expect("varmap lock");
            for (name, var) in vars.iter() {
                let t = tensors.get(name).ok_or_else(|| {
                    Error::General(format!("{}: no tensor `{name}`", dir.display()))
                })?;
                var.set(t).map_err(cerr)?;
            }
            (vocab, net)
        }
        None => {
            let mut vocab = Vocab::build(&train_data, params)?;
            let vectors = match &params.embeddings {
                Some(path) => {
                    let e = read_vectors(path)?;
                    vocab.pretrained = std::iter::once(String::new())
                        .chain(e.words.iter().cloned())
                        .collect();
                    vocab.params.pretrained_dim = e.dim;
                    let mut v = vec![0f32; e.dim];
                    v.extend_from_slice(&e.vectors);
                    Some(
                        Tensor::from_vec(v, (vocab.pretrained.len(), e.dim), &device)
                            .map_err(cerr)?,
                    )
                }
                None => {
                    vocab.params.pretrained_dim = 0;
                    None
                }
            };
            let net = Net::new(&vocab, vb).map_err(cerr)?;
            forget_gate_bias(&varmap, params.hidden).map_err(cerr)?;
            if let Some(v) = vectors {
                let vars = varmap.data().lock().expect("varmap lock");
                let var = vars
                    .iter()
                    .find(|(name, _)| is_frozen(name))
                    .map(|(_, var)| var)
                    .ok_or_else(|| Error::General("the network has no frozen channel".into()))?;
                var.set(&v).map_err(cerr)?;
            }
            (vocab, net)
        }
    };
    let lookup = vocab.lookup();
    let encoded: Vec<Encoded> = train_data
        .iter()
        .filter(|s| !s.rows.is_empty())
        .map(|s| lookup.encode(&vocab, &s.rows, Some(&s.labels)))
        .flat_map(|e| e.windows(params.max_length))
        .collect();
    // The frozen channel's vectors are weights of the network but not trained.
    let trained_vars: Vec<candle_core::Var> = {
        let vars = varmap.data().lock().expect("varmap lock");
        let mut named: Vec<(&String, &candle_core::Var)> =
            vars.iter().filter(|(name, _)| !is_frozen(name)).collect();
        named.sort_by(|a, b| a.0.cmp(b.0));
        named.into_iter().map(|(_, v)| v.clone()).collect()
    };
    let mut opt = candle_nn::AdamW::new(
        trained_vars,
        candle_nn::ParamsAdamW {
            lr: params.learning_rate,
            weight_decay: 0.0,
            ..Default::default()
        },
    )
    .map_err(cerr)?;
    let model = Model {
        vocab,
        lookup: Box::new(lookup),
        net,
        device: device.clone(),
        meta: serde_json::Value::Null,
        tables: Default::default(),
    };
    let mut best: Option<(f64, usize, Snapshot)> = None;
    let mut epoch = 0;
    while epoch < params.max_epochs {
        epoch += 1;
        let mut total = 0.0;
        let mut sequences = 0usize;
        for group in length_groups(&encoded, params.batch, &mut rng) {
            let items: Vec<&Encoded> = group.iter().map(|&i| &encoded[i]).collect();
            let b = batch(&items, model.vocab.labels.len(), &device)?;
            let loss = step_with_deep_stack(|| {
                let loss = model.net.loss(&b, &mut dropout_rng)?;
                opt.backward_step(&loss)?;
                loss.to_scalar::<f32>()
            })?;
            total += loss as f64 * items.len() as f64;
            sequences += items.len();
        }
        model.forget_tables();
        let dev_f1 = if dev_data.is_empty() {
            0.0
        } else {
            100.0 * model.evaluate(&dev_data)?.field.micro().f1
        };
        let improved = best.as_ref().is_none_or(|(f, _, _)| dev_f1 > *f);
        if improved {
            let snapshot = snapshot(&varmap).map_err(cerr)?;
            best = Some((dev_f1, epoch, snapshot));
        }
        let best_epoch = best.as_ref().map_or(epoch, |b| b.1);
        let go_on = progress(&EpochProgress {
            epoch,
            loss: total / sequences.max(1) as f64,
            dev_f1,
            best_epoch,
            elapsed_s: started.elapsed().as_secs_f64(),
        });
        if !go_on {
            return Ok(None);
        }
        if epoch - best_epoch >= params.patience {
            break;
        }
    }
    let (best_dev_f1, best_epoch, kept) = best.expect("at least one epoch ran");
    {
        let vars = varmap.data().lock().expect("varmap lock");
        for (name, t) in &kept {
            vars[name].set(t).map_err(cerr)?;
        }
    }
    model.forget_tables();
    Ok(Some(Trained {
        model,
        varmap,
        epochs: epoch,
        best_epoch,
        best_dev_f1,
        seconds: started.elapsed().as_secs_f64(),
    }))
}

#[cfg(test)]
mod tests;
