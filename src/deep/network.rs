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

/// `lhs` (`[m, k]`, row-major, rows `lhs_rs` apart) times `rhs` (`[k, n]`, its rows
/// `rhs_rs` and columns `rhs_cs` apart) into a new row-major `[m, n]` buffer, on this thread.
/// It calls the kernel candle's CPU `matmul` calls, with the arguments candle gives it, so the
/// products are candle's to the bit (candle splits a product over its threads only when
/// `RAYON_NUM_THREADS` asks for more than one, which `quire serve` does not).
#[allow(clippy::too_many_arguments)]
pub(super) fn matmul(
    m: usize,
    n: usize,
    k: usize,
    lhs: &[f32],
    lhs_rs: usize,
    rhs: &[f32],
    rhs_cs: usize,
    rhs_rs: usize,
) -> candle_core::Result<Vec<f32>> {
    let mut dst = vec![0f32; m * n];
    if m == 0 || n == 0 || k == 0 {
        return Ok(dst);
    }
    // The last element each operand is read at; gemm reads through raw pointers.
    let lhs_last = (m - 1) * lhs_rs + (k - 1);
    let rhs_last = (k - 1) * rhs_rs + (n - 1) * rhs_cs;
    if lhs_rs < k || lhs_last >= lhs.len() || rhs_last >= rhs.len() {
        candle_core::bail!(
            "matmul [{m}, {k}] × [{k}, {n}] over {} and {} values",
            lhs.len(),
            rhs.len()
        );
    }
    // SAFETY: every element gemm reads lies within `lhs` and `rhs` (checked above), and it
    // writes the `m × n` elements of `dst`, which has exactly that many, rows `n` apart.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.as_mut_ptr(),
            1,
            n as isize,
            false,
            lhs.as_ptr(),
            1,
            lhs_rs as isize,
            rhs.as_ptr(),
            rhs_cs as isize,
            rhs_rs as isize,
            0.0,
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
    Ok(dst)
}

/// Row `id` of a `[rows, dim]` row-major embedding table, as candle's lookup (`index_select`)
/// copies it.
fn embedding_row<'a>(
    what: &str,
    all: &'a [f32],
    id: u32,
    dim: usize,
) -> candle_core::Result<&'a [f32]> {
    all.get(id as usize * dim..(id as usize + 1) * dim)
        .ok_or_else(|| candle_core::Error::Msg(format!("{what} id {id} out of range")))
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
    /// The input weights of word embeddings and character features, `[inner, 4H]` row-major.
    pub(super) w_inner_t: Vec<f32>,
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
    /// The word embeddings, `[words, word_dim]` row-major, and the frozen channel's (empty
    /// without one), `[words, pre_dim]`.
    pub(super) words: Vec<f32>,
    pub(super) pre: Vec<f32>,
    /// The output layer's weights, `[labels, 2H]` row-major, and its bias (zeros without one).
    pub(super) out_w: Vec<f32>,
    pub(super) out_b: Vec<f32>,
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
                w_inner_t: l
                    .w_ih
                    .narrow(1, 0, inner)?
                    .t()?
                    .contiguous()?
                    .flatten_all()?
                    .to_vec1()?,
                bias: l.bias.to_vec1()?,
                features,
                w_hh_t: l.w_hh.t()?.contiguous()?.flatten_all()?.to_vec1()?,
            })
        };
        Ok(TaggingTables {
            words: self.word.embeddings().flatten_all()?.to_vec1()?,
            pre: match &self.pre {
                Some(e) => e.embeddings().flatten_all()?.to_vec1()?,
                None => Vec::new(),
            },
            out_w: self.out.weight().flatten_all()?.to_vec1()?,
            out_b: match self.out.bias() {
                Some(bias) => bias.to_vec1()?,
                None => vec![0.0; self.labels],
            },
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
    /// - the recurrences in [`Recurrence::run`];
    /// - the matrix products (input projections, output layer) through [`matmul`], the kernel
    ///   and arguments of candle's CPU product, into plain buffers.
    ///
    /// Returns the scores as one row-major `[B, T, L]` buffer.
    pub(super) fn emissions_tagging(
        &self,
        b: &Batch,
        tables: &TaggingTables,
    ) -> candle_core::Result<Vec<f32>> {
        let (bn, t) = (b.b, b.t);
        let n = bn * t;
        let filters = tables.conv_b.len();
        let width = tables.chars.len();
        let chars: Vec<u32> = b.chars.flatten_all()?.to_vec1()?;
        let mask: Vec<f32> = b.char_mask.flatten_all()?.to_vec1()?;
        let cw = b.chars.dim(1)?;
        let wdim = self.word.hidden_size();
        let pdim = self.pre_dim();
        let inner = wdim + pdim + filters;
        let word_ids: Vec<u32> = b.words.flatten_all()?.to_vec1()?;
        let pre_ids: Vec<u32> = match (&self.pre, &b.pre) {
            (Some(_), Some(ids)) => ids.flatten_all()?.to_vec1()?,
            (None, _) => Vec::new(),
            (Some(_), None) => candle_core::bail!("a batch without the frozen channel's ids"),
        };

        // A token's input row (word embedding, frozen vector, character features) depends on
        // its word id, its frozen id and its characters only, and so does its share of the
        // input projections: each distinct row is built and multiplied once, and each token's
        // projection starts from its row's product ([`project_rows`]). A row of the product
        // depends on its own row of `x` alone (the same sums in the same order whichever rows
        // are multiplied with it; test
        // `a_projection_row_is_the_same_whatever_rows_share_the_product`), so the scores are
        // bit-identical to projecting every token.
        let mut slot_of: Vec<u32> = Vec::with_capacity(n);
        // Each distinct row's first token and its number of characters.
        let mut firsts: Vec<(usize, usize)> = Vec::new();
        {
            let mut seen: FxHashMap<(u32, u32, &[u32]), u32> = FxHashMap::default();
            for i in 0..n {
                let pre = if pdim > 0 { pre_ids[i] } else { 0 };
                let len = mask[i * cw..(i + 1) * cw]
                    .iter()
                    .filter(|&&m| m > 0.0)
                    .count();
                let key = (word_ids[i], pre, &chars[i * cw..i * cw + len]);
                let slot = *seen.entry(key).or_insert_with(|| {
                    firsts.push((i, len));
                    (firsts.len() - 1) as u32
                });
                slot_of.push(slot);
            }
        }
        let u = firsts.len();
        // Per distinct row: its word embedding, its frozen vector, then its character features.
        let mut x = vec![0f32; u * inner];
        let mut acc = vec![0f32; filters];
        let half = width / 2;
        for (s, &(i, len)) in firsts.iter().enumerate() {
            let row = &mut x[s * inner..(s + 1) * inner];
            row[..wdim].copy_from_slice(embedding_row("word", &tables.words, word_ids[i], wdim)?);
            if pdim > 0 {
                row[wdim..wdim + pdim].copy_from_slice(embedding_row(
                    "frozen word",
                    &tables.pre,
                    pre_ids[i],
                    pdim,
                )?);
            }
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
        let feature_ids: Vec<Vec<u32>> = b
            .features
            .iter()
            .map(|f| f.flatten_all()?.to_vec1())
            .collect::<candle_core::Result<_>>()?;
        let hd = self.fwd.hidden;
        let h4 = 4 * hd;
        // The tokens' projections in the order `order` gives (token `k` of the result is token
        // `order[k]`), or in their own order: each token's sums are the same either way.
        let project = |d: &DirectionTables,
                       order: Option<&[u32]>|
         -> candle_core::Result<Vec<f32>> {
            let distinct = matmul(u, h4, inner, &x, inner, &d.w_inner_t, 1, h4)?;
            Ok(match order {
                None => project_rows(&distinct, &slot_of, h4, &d.bias, &d.features, &feature_ids),
                Some(order) => {
                    let slots: Vec<u32> = order.iter().map(|&r| slot_of[r as usize]).collect();
                    let ids: Vec<Vec<u32>> = feature_ids
                        .iter()
                        .map(|col| order.iter().map(|&r| col[r as usize]).collect())
                        .collect();
                    project_rows(&distinct, &slots, h4, &d.bias, &d.features, &ids)
                }
            })
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
        let fwd = recurrence(&project(&tables.fwd, None)?, &tables.fwd.w_hh_t, false);
        let bwd = match &b.padded {
            // Each sequence reversed within its length (`rev` is its own inverse), projected in
            // that order, read forwards, and its hidden states put back in order.
            Some((_, rev)) => {
                let rev: Vec<u32> = rev.to_vec1()?;
                // `batch` gives every feature column one id per token of the batch.
                if rev.len() != n
                    || rev.iter().any(|&r| r as usize >= n)
                    || feature_ids.iter().any(|col| col.len() != n)
                {
                    candle_core::bail!(
                        "a padded batch's order or feature ids do not cover its {n} tokens"
                    );
                }
                let out = recurrence(
                    &project(&tables.bwd, Some(&rev))?,
                    &tables.bwd.w_hh_t,
                    false,
                );
                let mut back = Vec::with_capacity(n * hd);
                for &r in &rev {
                    back.extend_from_slice(&out[r as usize * hd..(r as usize + 1) * hd]);
                }
                back
            }
            None => recurrence(&project(&tables.bwd, None)?, &tables.bwd.w_hh_t, true),
        };
        let mut h = Vec::with_capacity(n * 2 * hd);
        for i in 0..n {
            h.extend_from_slice(&fwd[i * hd..(i + 1) * hd]);
            h.extend_from_slice(&bwd[i * hd..(i + 1) * hd]);
        }
        // The output layer: `h · out_wᵀ`, then its bias, as candle's `Linear` adds it.
        let labels = self.labels;
        let mut em = matmul(n, labels, 2 * hd, &h, 2 * hd, &tables.out_w, 2 * hd, 1)?;
        for row in em.chunks_exact_mut(labels.max(1)) {
            for (e, bias) in row.iter_mut().zip(&tables.out_b) {
                *e += bias;
            }
        }
        Ok(em)
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
        let flat = self.emissions_tagging(b, tables)?;
        let labels = self.labels;
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
///
/// Each step walks the previous labels `k` in order and, for every next label `j` at once,
/// keeps `score[k] + trans[k][j]` where it is strictly larger than the best so far: the same
/// sums and the same choice (the lowest `k` among equals) as asking, per `j`, for the best
/// `k`, but over contiguous rows of `trans` with selects instead of branches, so the loop
/// compiles to vector adds, compares and blends. The arg-max is kept as an `f32` beside the
/// score so both selects are one width (label ids are far below 2^24).
pub(crate) fn viterbi(
    em: &Emissions,
    trans: &[Vec<f32>],
    start: &[f32],
    end: &[f32],
) -> Vec<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        if crate::cpu::avx512() {
            // SAFETY: the CPU supports AVX-512F and AVX2 (`cpu::avx512` checks).
            return unsafe { viterbi_avx512(em, trans, start, end) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, checked just above.
            return unsafe { viterbi_avx2(em, trans, start, end) };
        }
    }
    viterbi_body(em, trans, start, end)
}

/// Builds [`viterbi`] for an instruction set (max and select only: identical results).
macro_rules! viterbi_build {
    ($name:ident, $features:literal) => {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $features)]
        unsafe fn $name(
            em: &Emissions,
            trans: &[Vec<f32>],
            start: &[f32],
            end: &[f32],
        ) -> Vec<usize> {
            viterbi_body(em, trans, start, end)
        }
    };
}

viterbi_build!(viterbi_avx2, "avx2");
viterbi_build!(viterbi_avx512, "avx2,avx512f");

#[inline(always)]
fn viterbi_body(em: &Emissions, trans: &[Vec<f32>], start: &[f32], end: &[f32]) -> Vec<usize> {
    let t = em.len();
    if t == 0 {
        return Vec::new();
    }
    let l = start.len();
    let mut score: Vec<f32> = (0..l).map(|j| start[j] + em[0][j]).collect();
    let mut next = vec![0f32; l];
    let mut arg = vec![0f32; l];
    let mut back = vec![0u32; t * l];
    for i in 1..t {
        next.fill(f32::NEG_INFINITY);
        arg.fill(0.0);
        for (k, (&sk, tk)) in score.iter().zip(trans).enumerate() {
            let fk = k as f32;
            for ((nj, aj), &tv) in next.iter_mut().zip(arg.iter_mut()).zip(&tk[..l]) {
                let v = sk + tv;
                let better = v > *nj;
                *nj = if better { v } else { *nj };
                *aj = if better { fk } else { *aj };
            }
        }
        for ((b, &a), (nj, &e)) in back[i * l..(i + 1) * l]
            .iter_mut()
            .zip(&arg)
            .zip(next.iter_mut().zip(&em[i]))
        {
            *b = a as u32;
            *nj += e;
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
        path[i - 1] = back[i * l + path[i]] as usize;
    }
    path
}
