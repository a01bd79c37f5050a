//! The network: its layers, the training graph, and the tagging forward pass over tables
//! derived once from the weights; Viterbi decoding.

use super::*;

/// Rows of `x` (`[B, T, D]`) taken in the order of `index` (`[B·T]`).
pub(super) fn reorder(x: &Tensor, index: &Tensor) -> candle_core::Result<Tensor> {
    let (b, t, d) = x.dims3()?;
    x.reshape((b * t, d))?
        .index_select(index, 0)?
        .reshape((b, t, d))
}

/// One LSTM direction; the input projection is computed for all steps at once.
pub(super) struct Lstm {
    pub(super) w_ih: Tensor,
    pub(super) w_hh: Tensor,
    pub(super) bias: Tensor,
    pub(super) hidden: usize,
}

pub(super) fn sigmoid(x: &Tensor) -> candle_core::Result<Tensor> {
    candle_nn::ops::sigmoid(x)
}

impl Lstm {
    pub(super) fn new(vb: VarBuilder, input: usize, hidden: usize) -> candle_core::Result<Lstm> {
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
    pub(super) fn run(&self, x: &Tensor, reverse: bool) -> candle_core::Result<Tensor> {
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

/// Per LSTM direction, what tagging derives from its weights (see [`TaggingTables`]).
pub(super) struct DirectionTables {
    /// The input weights of word embeddings and character features, `[inner, 4H]`.
    pub(super) w_inner_t: Tensor,
    /// The input projection's bias (`4H`).
    pub(super) bias: Vec<f32>,
    /// Per feature column, per value: its part of the input projection (`4H` each).
    pub(super) features: Vec<Vec<f32>>,
    /// The recurrent weights, `[H, 4H]`.
    pub(super) w_hh_t: Vec<f32>,
}

/// What tagging derives from the weights once ([`Net::tagging_tables`]): per kernel offset,
/// per character, what the character adds to each CNN filter; the filters' biases; both
/// directions' tables; the CRF's transition, start and end scores for Viterbi.
pub(super) struct TaggingTables {
    pub(super) chars: Vec<Vec<f32>>,
    pub(super) conv_b: Vec<f32>,
    pub(super) fwd: DirectionTables,
    pub(super) bwd: DirectionTables,
    pub(super) trans: Vec<Vec<f32>>,
    pub(super) start: Vec<f32>,
    pub(super) end: Vec<f32>,
}

/// The network: inputs, BiLSTM, label scores and the CRF's scores.
pub(super) struct Net {
    pub(super) word: Embedding,
    /// The frozen word channel (its weights are left out of the optimiser).
    pub(super) pre: Option<Embedding>,
    pub(super) chr: Embedding,
    pub(super) conv: Conv1d,
    pub(super) features: Vec<Embedding>,
    pub(super) fwd: Lstm,
    pub(super) bwd: Lstm,
    pub(super) out: Linear,
    pub(super) trans: Tensor,
    pub(super) start: Tensor,
    pub(super) end: Tensor,
    pub(super) labels: usize,
    pub(super) dropout: f32,
}

impl Net {
    pub(super) fn new(vocab: &Vocab, vb: VarBuilder) -> candle_core::Result<Net> {
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
    pub(super) fn pre_dim(&self) -> usize {
        self.pre.as_ref().map_or(0, |e| e.hidden_size())
    }

    /// Label scores `[B, T, L]` as a tensor graph; with `dropout` (training) its masks are
    /// drawn from that generator, so a seeded training is reproducible.
    pub(super) fn emissions_graph(
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
    pub(super) fn tagging_tables(&self) -> candle_core::Result<TaggingTables> {
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
                bias: l.bias.to_vec1()?,
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
    pub(super) fn emissions_tagging(
        &self,
        b: &Batch,
        tables: &TaggingTables,
    ) -> candle_core::Result<Tensor> {
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
        let project = |d: &DirectionTables| -> candle_core::Result<Vec<f32>> {
            let mut xw: Vec<f32> = x.matmul(&d.w_inner_t)?.flatten_all()?.to_vec1()?;
            add_table_rows(&mut xw, h4, &d.bias, &d.features, &feature_ids);
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
        let fwd = recurrence(&project(&tables.fwd)?, &tables.fwd.w_hh_t, false);
        let bwd_in = project(&tables.bwd)?;
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
    pub(super) fn loss(
        &self,
        b: &Batch,
        dropout: &mut rand::rngs::StdRng,
    ) -> candle_core::Result<Tensor> {
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

    /// Label scores of each sequence of the batch, padding cut off.
    pub(super) fn emissions(
        &self,
        b: &Batch,
        tables: &TaggingTables,
    ) -> candle_core::Result<Vec<Emissions>> {
        let em = self.emissions_tagging(b, tables)?;
        let labels = em.dim(2)?;
        let flat: Vec<f32> = em.flatten_all()?.to_vec1()?;
        let lens: Vec<usize> = match &b.padded {
            Some((lens, _)) => lens.clone(),
            None => vec![b.t; b.b],
        };
        Ok(lens
            .into_iter()
            .enumerate()
            .map(|(k, len)| {
                let at = k * b.t * labels;
                Emissions::new(labels, flat[at..at + len * labels].to_vec())
            })
            .collect())
    }
}

/// One sequence's label scores: `labels` per token, token after token, in one buffer
/// (`em[t]` is token `t`'s row).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Emissions {
    labels: usize,
    scores: Vec<f32>,
}

impl Emissions {
    /// `scores` holds `labels` values per token.
    pub fn new(labels: usize, scores: Vec<f32>) -> Emissions {
        assert!(
            labels > 0 && scores.len().is_multiple_of(labels),
            "{} scores in rows of {labels}",
            scores.len()
        );
        Emissions { labels, scores }
    }

    /// Tokens.
    pub fn len(&self) -> usize {
        self.scores.len().checked_div(self.labels).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.scores.is_empty()
    }

    /// Each token's row of scores.
    pub fn rows(&self) -> std::slice::ChunksExact<'_, f32> {
        self.scores.chunks_exact(self.labels.max(1))
    }

    /// Each token's row of scores, to change.
    pub fn rows_mut(&mut self) -> std::slice::ChunksExactMut<'_, f32> {
        self.scores.chunks_exact_mut(self.labels.max(1))
    }
}

impl std::ops::Index<usize> for Emissions {
    type Output = [f32];

    fn index(&self, t: usize) -> &[f32] {
        &self.scores[t * self.labels..(t + 1) * self.labels]
    }
}

/// Viterbi over one sequence's scores: the best path's labels. One buffer of back-pointers
/// for the whole sequence and two rows of scores, whatever its length.
pub(crate) fn viterbi(
    em: &Emissions,
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
    let mut next = vec![0f32; l];
    let mut back = vec![0usize; t * l];
    for i in 1..t {
        let (e, bi) = (&em[i], &mut back[i * l..(i + 1) * l]);
        for (j, nj) in next.iter_mut().enumerate() {
            *nj = f32::NEG_INFINITY;
            for (k, sk) in score.iter().enumerate() {
                let v = sk + trans[k][j];
                if v > *nj {
                    *nj = v;
                    bi[j] = k;
                }
            }
            *nj += e[j];
        }
        std::mem::swap(&mut score, &mut next);
    }
    let mut best = 0;
    for j in 1..l {
        if score[j] + end[j] > score[best] + end[best] {
            best = j;
        }
    }
    let mut path = vec![best; t];
    for i in (1..t).rev() {
        path[i - 1] = back[i * l + path[i]];
    }
    path
}
