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
mod io;
mod network;
mod simd;
mod train;

pub use io::{has_frozen_channel, read_vectors};
pub use train::{train, train_from, Trained};

pub(crate) use network::viterbi;
pub use network::Emissions;
use network::*;
use simd::*;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use candle_core::{DType, Device, Tensor, D};
use candle_nn::{Conv1d, Conv1dConfig, Embedding, Linear, Module, Optimizer, VarBuilder, VarMap};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

use crate::crf::fxhash::FxHashMap;
use crate::crf::Sequence;
use crate::eval::Evaluation;
use crate::features::Row;
use crate::labels::Labels;
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

/// The vocabulary's indexes, looked up for every token, character and feature value a
/// sequence has: hashed with the CRF's fast hasher (the keys come from the model's own files).
struct Lookup {
    words: FxHashMap<String, u32>,
    pretrained: FxHashMap<String, u32>,
    chars: FxHashMap<char, u32>,
    features: Vec<FxHashMap<String, u32>>,
    labels: FxHashMap<String, u32>,
}

/// A token as the word vocabulary knows it: lower case, every ASCII digit a `0`.
pub(crate) fn word_key(token: &str) -> String {
    let mut key = String::new();
    word_key_into(token, &mut key);
    key
}

/// [`word_key`] into `key`, replacing what it held (tagging reuses one buffer per sequence).
fn word_key_into(token: &str, key: &mut String) {
    key.clear();
    key.extend(
        token
            .chars()
            .map(|c| if c.is_ascii_digit() { '0' } else { c })
            .flat_map(char::to_lowercase),
    );
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
                        values[c].push(v.to_string());
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
        let index = |v: &[String]| -> FxHashMap<String, u32> {
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
    fn encode(&self, vocab: &Vocab, rows: &[Row], labels: Option<&[String]>) -> Encoded {
        let max_chars = vocab.params.max_chars;
        let empty = crate::features::Feature::default();
        // Each token's word key once, for the learned words and the frozen channel's.
        let mut words = Vec::with_capacity(rows.len());
        let mut pre = Vec::new();
        let mut key = String::new();
        for r in rows {
            word_key_into(r.first().unwrap_or(&empty), &mut key);
            words.push(*self.words.get(key.as_str()).unwrap_or(&0));
            if !self.pretrained.is_empty() {
                pre.push(*self.pretrained.get(key.as_str()).unwrap_or(&0));
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
                // Neighbouring tokens often share a column's value (a line's position, a font,
                // a punctuation class): the previous token's id is reused without a lookup.
                let mut last: Option<(&str, u32)> = None;
                rows.iter()
                    .map(|r| {
                        let Some(v) = r.get(f.column).map(|v| v.as_str()) else {
                            return 0;
                        };
                        match last {
                            Some((prev, id)) if prev == v => id,
                            _ => {
                                let id = ids.get(v).copied().unwrap_or(0);
                                last = Some((v, id));
                                id
                            }
                        }
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

fn cerr(e: candle_core::Error) -> Error {
    Error::General(format!("candle: {e}"))
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
    /// The vocabulary's labels, shared by every answer.
    label_set: crate::labels::LabelSet,
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
    pub fn label(&self, rows: &[Row]) -> Result<Labels> {
        Ok(self.label_many(&[rows])?.pop().unwrap_or_default())
    }

    /// Label the rows of every sequence of `data` (batched by length).
    pub fn label_all(&self, data: &[Sequence]) -> Result<Vec<Labels>> {
        let rows: Vec<&[Row]> = data.iter().map(|s| s.rows.as_slice()).collect();
        self.label_many(&rows)
    }

    /// Label several sequences, batched by length.
    pub fn label_many(&self, seqs: &[&[Row]]) -> Result<Vec<Labels>> {
        let chain = self.chain()?;
        Ok(self
            .emissions_many(seqs)?
            .iter()
            .map(|em| {
                self.label_set.labels(
                    viterbi(em, &chain.trans, &chain.start, &chain.end)
                        .into_iter()
                        .map(|l| l as u16)
                        .collect(),
                )
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

    /// The label scores (per token, the order of [`Model::labels`]) the network gives each
    /// token of each sequence, batched by length; an empty sequence gets none.
    pub fn emissions_many(&self, seqs: &[&[Row]]) -> Result<Vec<Emissions>> {
        let encoded: Vec<Encoded> = seqs
            .iter()
            .map(|r| self.lookup.encode(&self.vocab, r, None))
            .collect();
        let mut out: Vec<Emissions> = vec![Emissions::default(); seqs.len()];
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
            e.add(&s.labels, &p.to_names());
        }
        Ok(e)
    }
}

#[cfg(test)]
mod tests;
