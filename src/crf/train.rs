/*!
Quire's linear-chain CRF trainer: interns the corpus once (attributes and labels to `u32`),
generates features (observed attribute×label pairs plus all label transitions, as CRFsuite
does), and minimises the negative log-likelihood with elastic-net regularisation by OWL-QN
(`lbfgs.rs`). Each objective evaluation runs a scaled forward-backward over every sequence,
split across threads by token count; each thread accumulates a private gradient, and the
gradients are summed in a fixed order so results do not depend on scheduling.
*/

use std::time::Instant;

use super::fxhash::{FxHashMap, FxHashSet};
use super::lbfgs::{self, Control, Outcome, OwlqnParams};
use super::template::Template;
use super::{format, Progress, Sequence, TrainParams};
use crate::{Error, Result};

/// The corpus in interned form: per-token attribute ids and gold label ids.
pub(crate) struct Corpus {
    pub labels: Vec<String>,
    pub attrs: Vec<String>,
    /// Token index where each sequence starts; one more entry than sequences.
    pub seq_off: Vec<usize>,
    /// Offset of each token's attribute ids in `tok_attrs`; one more entry than tokens.
    pub tok_off: Vec<usize>,
    pub tok_attrs: Vec<u32>,
    pub gold: Vec<u32>,
}

impl Corpus {
    pub fn build(template: &Template, data: &[Sequence]) -> Result<Corpus> {
        let mut label_ids: FxHashMap<String, u32> = FxHashMap::default();
        let mut labels = Vec::new();
        let mut attr_ids: FxHashMap<String, u32> = FxHashMap::default();
        let mut seq_off = vec![0usize];
        let mut tok_off = vec![0usize];
        let mut tok_attrs = Vec::new();
        let mut gold = Vec::new();
        let mut buf = String::new();
        let mut per_tok: Vec<Vec<u32>> = Vec::new();
        for (si, seq) in data.iter().enumerate() {
            if seq.rows.len() != seq.labels.len() {
                return Err(Error::BadInput(format!(
                    "training sequence {si} has {} rows but {} labels",
                    seq.rows.len(),
                    seq.labels.len()
                )));
            }
            if seq.rows.is_empty() {
                continue;
            }
            template
                .check_rows(&seq.rows)
                .map_err(|e| Error::BadInput(format!("training sequence {si}: {e}")))?;
            for l in &seq.labels {
                let next = labels.len() as u32;
                let id = *label_ids.entry(l.clone()).or_insert_with(|| {
                    labels.push(l.clone());
                    next
                });
                gold.push(id);
            }
            per_tok.resize_with(seq.rows.len(), Vec::new);
            per_tok.iter_mut().for_each(Vec::clear);
            template.expand_with(&seq.rows, &mut buf, |t, attr| {
                let id = match attr_ids.get(attr) {
                    Some(&id) => id,
                    None => {
                        let id = attr_ids.len() as u32;
                        attr_ids.insert(attr.to_string(), id);
                        id
                    }
                };
                per_tok[t].push(id);
            });
            for ids in per_tok.iter_mut().take(seq.rows.len()) {
                ids.sort_unstable();
                ids.dedup();
                tok_attrs.extend_from_slice(ids);
                tok_off.push(tok_attrs.len());
            }
            seq_off.push(gold.len());
        }
        // Renumber attributes by falling frequency: the features of frequent attributes then
        // sit together at the front of the weight and gradient vectors, and the scattered
        // reads and writes of forward-backward mostly hit cache.
        let mut freq = vec![0u32; attr_ids.len()];
        for &a in &tok_attrs {
            freq[a as usize] += 1;
        }
        let mut order: Vec<u32> = (0..attr_ids.len() as u32).collect();
        order.sort_by_key(|&a| (std::cmp::Reverse(freq[a as usize]), a));
        let mut new_id = vec![0u32; order.len()];
        for (n, &old) in order.iter().enumerate() {
            new_id[old as usize] = n as u32;
        }
        for a in tok_attrs.iter_mut() {
            *a = new_id[*a as usize];
        }
        for t in 0..tok_off.len() - 1 {
            tok_attrs[tok_off[t]..tok_off[t + 1]].sort_unstable();
        }
        let mut attrs = vec![String::new(); attr_ids.len()];
        for (s, id) in attr_ids {
            attrs[new_id[id as usize] as usize] = s;
        }
        Ok(Corpus {
            labels,
            attrs,
            seq_off,
            tok_off,
            tok_attrs,
            gold,
        })
    }

    pub fn num_sequences(&self) -> usize {
        self.seq_off.len() - 1
    }

    pub fn num_tokens(&self) -> usize {
        self.gold.len()
    }

    fn token_attrs(&self, t: usize) -> &[u32] {
        &self.tok_attrs[self.tok_off[t]..self.tok_off[t + 1]]
    }
}

/// Feature layout: state features grouped by attribute (labels sorted within a group), then
/// `L×L` transition features when the template has `B`.
pub(crate) struct Features {
    pub num_labels: usize,
    /// State features of attribute `a` are `attr_off[a]..attr_off[a+1]`.
    pub attr_off: Vec<u32>,
    pub feat_label: Vec<u32>,
    pub transitions: bool,
}

impl Features {
    fn build(corpus: &Corpus, transitions: bool) -> Features {
        let mut pairs: FxHashSet<u64> = FxHashSet::default();
        for t in 0..corpus.num_tokens() {
            let y = corpus.gold[t] as u64;
            for &a in corpus.token_attrs(t) {
                pairs.insert(((a as u64) << 32) | y);
            }
        }
        let mut pairs: Vec<u64> = pairs.into_iter().collect();
        pairs.sort_unstable();
        let mut attr_off = vec![0u32; corpus.attrs.len() + 1];
        let mut feat_label = Vec::with_capacity(pairs.len());
        for p in &pairs {
            attr_off[(p >> 32) as usize + 1] += 1;
            feat_label.push((p & 0xffff_ffff) as u32);
        }
        for a in 0..corpus.attrs.len() {
            attr_off[a + 1] += attr_off[a];
        }
        Features {
            num_labels: corpus.labels.len(),
            attr_off,
            feat_label,
            transitions,
        }
    }

    pub fn num_state(&self) -> usize {
        self.feat_label.len()
    }

    pub fn num_features(&self) -> usize {
        self.num_state()
            + if self.transitions {
                self.num_labels * self.num_labels
            } else {
                0
            }
    }

    fn state_range(&self, a: u32) -> std::ops::Range<usize> {
        self.attr_off[a as usize] as usize..self.attr_off[a as usize + 1] as usize
    }

    /// Observed (empirical) feature counts in the gold labelling.
    fn empirical(&self, corpus: &Corpus) -> Vec<f64> {
        let mut emp = vec![0.0; self.num_features()];
        let l = self.num_labels;
        for s in 0..corpus.num_sequences() {
            let (b, e) = (corpus.seq_off[s], corpus.seq_off[s + 1]);
            for t in b..e {
                let y = corpus.gold[t];
                for &a in corpus.token_attrs(t) {
                    let r = self.state_range(a);
                    if let Ok(k) = self.feat_label[r.clone()].binary_search(&y) {
                        emp[r.start + k] += 1.0;
                    }
                }
                if self.transitions && t > b {
                    let yp = corpus.gold[t - 1] as usize;
                    emp[self.num_state() + yp * l + y as usize] += 1.0;
                }
            }
        }
        emp
    }
}

/// Per-thread buffers for forward-backward, reused across evaluations.
struct Workspace {
    grad: Vec<f64>,
    trans_acc: Vec<f64>,
    state: Vec<f64>,
    alpha: Vec<f64>,
    beta: Vec<f64>,
    scale: Vec<f64>,
    tmp: Vec<f64>,
    vit: Vec<f64>,
    vit_next: Vec<f64>,
    back: Vec<u32>,
}

impl Workspace {
    fn new(num_features: usize, l: usize) -> Workspace {
        Workspace {
            grad: vec![0.0; num_features],
            trans_acc: vec![0.0; l * l],
            state: Vec::new(),
            alpha: Vec::new(),
            beta: Vec::new(),
            scale: Vec::new(),
            tmp: vec![0.0; l],
            vit: vec![0.0; l],
            vit_next: vec![0.0; l],
            back: Vec::new(),
        }
    }
}

/// The objective: corpus, features, empirical counts and the thread split.
pub(crate) struct Objective<'a> {
    corpus: &'a Corpus,
    feats: &'a Features,
    emp: Vec<f64>,
    /// Sequence ranges, one per thread.
    chunks: Vec<std::ops::Range<usize>>,
    spaces: Vec<Workspace>,
    /// `exp` of the transition weights (`L×L`, row = previous label), then its transpose.
    exp_trans: Vec<f64>,
    /// The state-feature range of every (token, attribute) entry of `corpus.tok_attrs`, so the
    /// hot loops read one sequential stream instead of looking up each attribute.
    ranges: Vec<[u32; 2]>,
    /// Viterbi token errors on the training data at the last evaluated point.
    pub errors: std::cell::Cell<usize>,
}

impl<'a> Objective<'a> {
    fn new(corpus: &'a Corpus, feats: &'a Features, threads: usize) -> Objective<'a> {
        let emp = feats.empirical(corpus);
        let n_seq = corpus.num_sequences();
        let threads = threads.clamp(1, n_seq.max(1));
        let total = corpus.num_tokens().max(1);
        let mut chunks = Vec::with_capacity(threads);
        let mut start = 0;
        for k in 1..=threads {
            let target = total * k / threads;
            let mut end = start;
            while end < n_seq && (corpus.seq_off[end] < target || k == threads) {
                end += 1;
            }
            chunks.push(start..end);
            start = end;
        }
        let l = feats.num_labels;
        let spaces = (0..chunks.len())
            .map(|_| Workspace::new(feats.num_features(), l))
            .collect();
        Objective {
            corpus,
            feats,
            emp,
            chunks,
            spaces,
            exp_trans: vec![1.0; 2 * l * l],
            ranges: corpus
                .tok_attrs
                .iter()
                .map(|&a| [feats.attr_off[a as usize], feats.attr_off[a as usize + 1]])
                .collect(),
            errors: std::cell::Cell::new(0),
        }
    }

    /// Negative log-likelihood of the corpus at `w`, and its gradient into `g`.
    pub fn evaluate(&mut self, w: &[f64], g: &mut [f64]) -> f64 {
        let l = self.feats.num_labels;
        let ns = self.feats.num_state();
        if self.feats.transitions {
            // exp(transition weights), then the same matrix transposed (for the backward pass).
            for (e, &wt) in self.exp_trans.iter_mut().zip(&w[ns..ns + l * l]) {
                *e = wt.exp();
            }
            for i in 0..l {
                for j in 0..l {
                    self.exp_trans[l * l + j * l + i] = self.exp_trans[i * l + j];
                }
            }
        }
        let (corpus, feats, exp_trans) = (self.corpus, self.feats, &self.exp_trans);
        let ranges = &self.ranges;
        let mut logz = vec![(0.0, 0usize); self.chunks.len()];
        std::thread::scope(|scope| {
            for ((ws, range), lz) in self
                .spaces
                .iter_mut()
                .zip(&self.chunks)
                .zip(logz.iter_mut())
            {
                let range = range.clone();
                scope.spawn(move || {
                    *lz = chunk_gradient(corpus, feats, ranges, exp_trans, w, range, ws);
                });
            }
        });
        g.iter_mut().zip(&self.emp).for_each(|(gi, &e)| *gi = -e);
        let mut nll = 0.0;
        let mut errors = 0;
        for (ws, (lz, err)) in self.spaces.iter().zip(&logz) {
            nll += lz;
            errors += err;
            for (gi, &v) in g.iter_mut().zip(&ws.grad) {
                *gi += v;
            }
        }
        self.errors.set(errors);
        let gold: f64 = w.iter().zip(&self.emp).map(|(a, b)| a * b).sum();
        nll - gold
    }
}

/// Forward-backward over the sequences of one chunk: returns the sum of log Z and the number
/// of tokens Viterbi gets wrong, and leaves the expected feature counts in `ws.grad`.
///
/// On x86-64 CPUs with AVX2 the same code is compiled a second time with AVX2 enabled and
/// chosen at run time: the label loops (forward, backward, transition expectations, Viterbi)
/// then work on 4 doubles at a time. Floating-point results are identical (no reassociation).
fn chunk_gradient(
    corpus: &Corpus,
    feats: &Features,
    ranges: &[[u32; 2]],
    exp_trans: &[f64],
    w: &[f64],
    range: std::ops::Range<usize>,
    ws: &mut Workspace,
) -> (f64, usize) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, checked just above.
            return unsafe { chunk_gradient_avx2(corpus, feats, ranges, exp_trans, w, range, ws) };
        }
    }
    chunk_gradient_body(corpus, feats, ranges, exp_trans, w, range, ws)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn chunk_gradient_avx2(
    corpus: &Corpus,
    feats: &Features,
    ranges: &[[u32; 2]],
    exp_trans: &[f64],
    w: &[f64],
    range: std::ops::Range<usize>,
    ws: &mut Workspace,
) -> (f64, usize) {
    chunk_gradient_body(corpus, feats, ranges, exp_trans, w, range, ws)
}

#[inline(always)]
fn chunk_gradient_body(
    corpus: &Corpus,
    feats: &Features,
    ranges: &[[u32; 2]],
    exp_trans: &[f64],
    w: &[f64],
    range: std::ops::Range<usize>,
    ws: &mut Workspace,
) -> (f64, usize) {
    let l = feats.num_labels;
    let ns = feats.num_state();
    ws.grad.iter_mut().for_each(|x| *x = 0.0);
    ws.trans_acc.iter_mut().for_each(|x| *x = 0.0);
    let mut total_logz = 0.0;
    let mut errors = 0;
    for s in range {
        let (b, e) = (corpus.seq_off[s], corpus.seq_off[s + 1]);
        let n = e - b;
        if n == 0 {
            continue;
        }
        ws.state.clear();
        ws.state.resize(n * l, 0.0);
        ws.alpha.resize(n * l, 0.0);
        ws.beta.resize(n * l, 0.0);
        ws.scale.resize(n, 0.0);
        let mut logz = 0.0;
        // State scores, shifted by their maximum and exponentiated.
        for t in 0..n {
            let row = &mut ws.state[t * l..(t + 1) * l];
            let tr = &ranges[corpus.tok_off[b + t]..corpus.tok_off[b + t + 1]];
            for &[rs, re] in tr {
                let r = rs as usize..re as usize;
                if r.len() == l {
                    // Observed with every label: labels are 0..L in order.
                    for (rv, &wf) in row.iter_mut().zip(&w[r]) {
                        *rv += wf;
                    }
                } else {
                    for (&y, &wf) in feats.feat_label[r.clone()].iter().zip(&w[r]) {
                        row[y as usize] += wf;
                    }
                }
            }
            let m = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            for v in row.iter_mut() {
                *v = (*v - m).exp();
            }
            logz += m;
        }
        errors += viterbi_errors(ws, feats, exp_trans, &corpus.gold[b..e]);
        // Forward, scaled per position.
        {
            let (alpha, state, scale) = (&mut ws.alpha, &ws.state, &mut ws.scale);
            alpha[..l].copy_from_slice(&state[..l]);
            scale[0] = normalise(&mut alpha[..l]);
            for t in 1..n {
                let (prev, cur) = alpha.split_at_mut(t * l);
                let prev = &prev[(t - 1) * l..];
                let cur = &mut cur[..l];
                cur.iter_mut().for_each(|x| *x = 0.0);
                if feats.transitions {
                    for (i, &ai) in prev.iter().enumerate() {
                        let er = &exp_trans[i * l..(i + 1) * l];
                        for (c, &ev) in cur.iter_mut().zip(er) {
                            *c += ai * ev;
                        }
                    }
                } else {
                    let sum: f64 = prev.iter().sum();
                    cur.iter_mut().for_each(|x| *x = sum);
                }
                for (c, &sv) in cur.iter_mut().zip(&state[t * l..(t + 1) * l]) {
                    *c *= sv;
                }
                scale[t] = normalise(cur);
            }
        }
        for &c in &ws.scale[..n] {
            logz -= c.ln();
        }
        total_logz += logz;
        // Backward, with the same scale factors.
        {
            let (beta, state, scale, tmp) = (&mut ws.beta, &ws.state, &ws.scale, &mut ws.tmp);
            beta[(n - 1) * l..n * l]
                .iter_mut()
                .for_each(|x| *x = scale[n - 1]);
            for t in (0..n - 1).rev() {
                let (cur, next) = beta.split_at_mut((t + 1) * l);
                let cur = &mut cur[t * l..];
                let next = &next[..l];
                for ((tv, &sv), &bv) in tmp.iter_mut().zip(&state[(t + 1) * l..]).zip(next) {
                    *tv = sv * bv;
                }
                if feats.transitions {
                    // beta[t][i] = Σ_j E[i][j]·tmp[j], as a sum of scaled columns of E (rows of
                    // Eᵀ): independent lanes instead of one long dependency chain per i.
                    let et = &exp_trans[l * l..];
                    cur.iter_mut().for_each(|c| *c = 0.0);
                    for (j, &tj) in tmp.iter().enumerate() {
                        for (c, &e) in cur.iter_mut().zip(&et[j * l..(j + 1) * l]) {
                            *c += e * tj;
                        }
                    }
                    cur.iter_mut().for_each(|c| *c *= scale[t]);
                } else {
                    let sum: f64 = tmp.iter().sum();
                    cur.iter_mut().for_each(|x| *x = sum * scale[t]);
                }
            }
        }
        // Expected state counts.
        for t in 0..n {
            let inv = 1.0 / ws.scale[t];
            let (al, be) = (&ws.alpha[t * l..(t + 1) * l], &ws.beta[t * l..(t + 1) * l]);
            for (tv, (&a, &bb)) in ws.tmp.iter_mut().zip(al.iter().zip(be)) {
                *tv = a * bb * inv;
            }
            let tr = &ranges[corpus.tok_off[b + t]..corpus.tok_off[b + t + 1]];
            for &[rs, re] in tr {
                let r = rs as usize..re as usize;
                if r.len() == l {
                    for (gf, &p) in ws.grad[r].iter_mut().zip(ws.tmp.iter()) {
                        *gf += p;
                    }
                } else {
                    for (&y, gf) in feats.feat_label[r.clone()].iter().zip(&mut ws.grad[r]) {
                        *gf += ws.tmp[y as usize];
                    }
                }
            }
        }
        // Expected transition counts.
        if feats.transitions {
            for t in 0..n - 1 {
                let al = &ws.alpha[t * l..(t + 1) * l];
                for ((tv, &sv), &bv) in ws
                    .tmp
                    .iter_mut()
                    .zip(&ws.state[(t + 1) * l..(t + 2) * l])
                    .zip(&ws.beta[(t + 1) * l..(t + 2) * l])
                {
                    *tv = sv * bv;
                }
                for (i, &ai) in al.iter().enumerate() {
                    let er = &exp_trans[i * l..(i + 1) * l];
                    let acc = &mut ws.trans_acc[i * l..(i + 1) * l];
                    for ((av, &ev), &tv) in acc.iter_mut().zip(er).zip(ws.tmp.iter()) {
                        *av += ai * ev * tv;
                    }
                }
            }
        }
    }
    if feats.transitions {
        for (gf, &v) in ws.grad[ns..].iter_mut().zip(&ws.trans_acc) {
            *gf += v;
        }
    }
    (total_logz, errors)
}

/// Viterbi over the exponentiated scores in `ws.state` (max-product, rescaled per position);
/// returns how many labels differ from `gold`.
#[inline(always)]
fn viterbi_errors(ws: &mut Workspace, feats: &Features, exp_trans: &[f64], gold: &[u32]) -> usize {
    let l = feats.num_labels;
    let n = gold.len();
    ws.back.resize(n * l, 0);
    ws.vit.copy_from_slice(&ws.state[..l]);
    for t in 1..n {
        // Row-wise max-product: best[j] = max_i vit[i]·E[i][j] (first i wins ties).
        let back = &mut ws.back[t * l..(t + 1) * l];
        ws.vit_next.iter_mut().for_each(|v| *v = f64::NEG_INFINITY);
        for (i, &v) in ws.vit.iter().enumerate() {
            if feats.transitions {
                let er = &exp_trans[i * l..(i + 1) * l];
                for ((best, arg), &e) in ws.vit_next.iter_mut().zip(back.iter_mut()).zip(er) {
                    let s = v * e;
                    if s > *best {
                        *best = s;
                        *arg = i as u32;
                    }
                }
            } else {
                for (best, arg) in ws.vit_next.iter_mut().zip(back.iter_mut()) {
                    if v > *best {
                        *best = v;
                        *arg = i as u32;
                    }
                }
            }
        }
        for (v, &sv) in ws.vit_next.iter_mut().zip(&ws.state[t * l..(t + 1) * l]) {
            *v *= sv;
        }
        let max = ws.vit_next.iter().copied().fold(0.0, f64::max);
        let inv = if max > 0.0 { 1.0 / max } else { 1.0 };
        for (v, &nv) in ws.vit.iter_mut().zip(&ws.vit_next) {
            *v = nv * inv;
        }
    }
    let mut y = 0;
    for j in 1..l {
        if ws.vit[j] > ws.vit[y] {
            y = j;
        }
    }
    let mut errors = usize::from(y as u32 != gold[n - 1]);
    for t in (1..n).rev() {
        y = ws.back[t * l + y] as usize;
        errors += usize::from(y as u32 != gold[t - 1]);
    }
    errors
}

/// Scale a vector to sum 1; return the factor used (1/sum).
#[inline(always)]
/// Copy into `w` the weights `old` has for the features of `feats` (matched by attribute text
/// and label name); answers how many were non-zero.
fn warm_start(corpus: &Corpus, feats: &Features, old: &format::Tables, w: &mut [f64]) -> usize {
    let old_label: Vec<Option<usize>> = corpus
        .labels
        .iter()
        .map(|l| old.labels.iter().position(|o| o == l))
        .collect();
    let mut kept = 0;
    for (a, name) in corpus.attrs.iter().enumerate() {
        let Some(&oa) = old.attr_ids.get(name.as_str()) else {
            continue;
        };
        let (ob, oe) = (
            old.attr_off[oa as usize] as usize,
            old.attr_off[oa as usize + 1] as usize,
        );
        let old_feats = &old.st[ob..oe];
        for k in feats.state_range(a as u32) {
            let Some(ol) = old_label[feats.feat_label[k] as usize] else {
                continue;
            };
            if let Some(f) = old_feats.iter().find(|f| f.label as usize == ol) {
                w[k] = f.weight;
                kept += usize::from(f.weight != 0.0);
            }
        }
    }
    if feats.transitions {
        let (l, ol) = (feats.num_labels, old.labels.len());
        let base = feats.num_state();
        for i in 0..l {
            for j in 0..l {
                if let (Some(oi), Some(oj)) = (old_label[i], old_label[j]) {
                    w[base + i * l + j] = old.trans[oi * ol + oj];
                }
            }
        }
    }
    kept
}

fn normalise(v: &mut [f64]) -> f64 {
    let sum: f64 = v.iter().sum();
    let c = if sum > 0.0 { 1.0 / sum } else { 1.0 };
    v.iter_mut().for_each(|x| *x *= c);
    c
}

/// Train a model; see [`super::train`].
pub(crate) fn train(
    template: &Template,
    data: &[Sequence],
    params: &TrainParams,
    start: Option<&[u8]>,
    progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<Vec<u8>> {
    let corpus = Corpus::build(template, data)?;
    if corpus.num_tokens() == 0 {
        return Err(Error::BadInput(
            "no training data: every sequence is empty".to_string(),
        ));
    }
    let feats = Features::build(&corpus, template.has_bigram());
    let threads = if params.threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        params.threads
    };
    tracing::info!(
        sequences = corpus.num_sequences(),
        tokens = corpus.num_tokens(),
        labels = corpus.labels.len(),
        attributes = corpus.attrs.len(),
        features = feats.num_features(),
        threads,
        "CRF training starts"
    );
    let mut objective = Objective::new(&corpus, &feats, threads);
    let mut w = vec![0.0; feats.num_features()];
    if let Some(bytes) = start {
        let kept = warm_start(&corpus, &feats, &format::read(bytes)?, &mut w);
        tracing::info!(kept, "CRF training starts from an existing model's weights");
    }
    let opt = OwlqnParams {
        c1: params.c1,
        c2: params.c2,
        epsilon: params.epsilon,
        max_iter: params.max_iter,
        ..OwlqnParams::default()
    };
    let start = Instant::now();
    let tokens = corpus.num_tokens() as f64;
    let last_errors = std::cell::Cell::new(0usize);
    // Wapiti's error-rate window: the last `window` training error rates (percent).
    let mut recent: std::collections::VecDeque<f64> = std::collections::VecDeque::new();
    let outcome = lbfgs::minimize(
        &mut w,
        |x, g| {
            let f = objective.evaluate(x, g);
            last_errors.set(objective.errors.get());
            f
        },
        &opt,
        |it, fx, x| {
            let train_error = 100.0 * last_errors.get() as f64 / tokens;
            let active = x.iter().filter(|v| **v != 0.0).count();
            let go_on = progress(&Progress {
                iteration: it,
                loss: fx,
                elapsed_s: start.elapsed().as_secs_f64(),
                active_features: active,
                train_error,
            });
            if !go_on {
                return Control::Cancel;
            }
            if params.window > 0 {
                recent.push_back(train_error);
                if recent.len() > params.window {
                    recent.pop_front();
                }
                if recent.len() == params.window {
                    let (lo, hi) = recent
                        .iter()
                        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &e| {
                            (lo.min(e), hi.max(e))
                        });
                    if hi - lo < params.epsilon {
                        return Control::Stop;
                    }
                }
            }
            Control::Continue
        },
    );
    if let Outcome::Cancelled { iteration } = outcome {
        return Err(Error::General(format!(
            "training cancelled at iteration {iteration}"
        )));
    }
    tracing::info!(?outcome, "CRF training stops");
    format::write(&format::Weights {
        labels: &corpus.labels,
        attrs: &corpus.attrs,
        attr_off: &feats.attr_off,
        feat_label: &feats.feat_label,
        transitions: feats.transitions,
        w: &w,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(tok: &str) -> crate::features::Row {
        vec![tok.into(), tok.len().to_string().into()]
    }

    fn data() -> Vec<Sequence> {
        let words = [
            ("a", "A"),
            ("bb", "B"),
            ("a", "B"),
            ("ccc", "C"),
            ("bb", "A"),
        ];
        (0..6)
            .map(|k| {
                let toks: Vec<_> = (0..(2 + k % 4))
                    .map(|i| words[(i + k) % words.len()])
                    .collect();
                Sequence {
                    rows: toks.iter().map(|(t, _)| row(t)).collect(),
                    labels: toks.iter().map(|(_, l)| l.to_string()).collect(),
                }
            })
            .collect()
    }

    /// The analytic gradient matches central finite differences of the objective, with and
    /// without transitions and on one or several threads.
    #[test]
    fn gradient_matches_finite_differences() {
        for (text, threads) in [
            ("U0:%x[0,0]\nU1:%x[-1,1]/%x[0,1]\nB", 1),
            // `U9:bias` is seen with every label: the dense path.
            ("U0:%x[0,0]\nU1:%x[-1,1]/%x[0,1]\nU9:bias\nB", 3),
            ("U0:%x[0,0]\nU1:%x[1,1]", 2),
        ] {
            let t = Template::parse(text).unwrap();
            let corpus = Corpus::build(&t, &data()).unwrap();
            let feats = Features::build(&corpus, t.has_bigram());
            if text.contains("bias") {
                let dense = (0..corpus.attrs.len() as u32)
                    .filter(|&a| feats.state_range(a).len() == feats.num_labels)
                    .count();
                assert!(dense > 0);
            }
            let mut obj = Objective::new(&corpus, &feats, threads);
            let n = feats.num_features();
            let w: Vec<f64> = (0..n)
                .map(|i| ((i * 37 % 11) as f64 - 5.0) * 0.13)
                .collect();
            let mut g = vec![0.0; n];
            let f0 = obj.evaluate(&w, &mut g);
            assert!(f0 > 0.0);
            let mut scratch = vec![0.0; n];
            for i in 0..n {
                let h = 1e-5;
                let mut wp = w.clone();
                wp[i] += h;
                let fp = obj.evaluate(&wp, &mut scratch);
                wp[i] -= 2.0 * h;
                let fm = obj.evaluate(&wp, &mut scratch);
                let num = (fp - fm) / (2.0 * h);
                assert!(
                    (num - g[i]).abs() < 1e-5,
                    "{text}: feature {i}: {num} vs {}",
                    g[i]
                );
            }
        }
    }

    /// The training error count equals that of a brute-force argmax over every labelling.
    #[test]
    fn viterbi_errors_match_brute_force() {
        let t = Template::parse("U0:%x[0,0]\nU1:%x[-1,1]/%x[0,1]\nB").unwrap();
        let corpus = Corpus::build(&t, &data()).unwrap();
        let feats = Features::build(&corpus, true);
        let l = feats.num_labels;
        let ns = feats.num_state();
        let mut obj = Objective::new(&corpus, &feats, 2);
        let n = feats.num_features();
        let w: Vec<f64> = (0..n)
            .map(|i| ((i * 53 % 17) as f64 - 8.0) * 0.21)
            .collect();
        let mut g = vec![0.0; n];
        obj.evaluate(&w, &mut g);
        let mut expected = 0;
        for s in 0..corpus.num_sequences() {
            let (b, e) = (corpus.seq_off[s], corpus.seq_off[s + 1]);
            let len = e - b;
            let score = |ys: &[usize]| {
                let mut sc = 0.0;
                for (k, &y) in ys.iter().enumerate() {
                    for &a in corpus.token_attrs(b + k) {
                        let r = feats.state_range(a);
                        if let Ok(p) = feats.feat_label[r.clone()].binary_search(&(y as u32)) {
                            sc += w[r.start + p];
                        }
                    }
                    if k > 0 {
                        sc += w[ns + ys[k - 1] * l + y];
                    }
                }
                sc
            };
            let mut best = (f64::NEG_INFINITY, vec![]);
            for code in 0..l.pow(len as u32) {
                let ys: Vec<usize> = (0..len).map(|k| code / l.pow(k as u32) % l).collect();
                let sc = score(&ys);
                if sc > best.0 {
                    best = (sc, ys);
                }
            }
            expected += best
                .1
                .iter()
                .zip(&corpus.gold[b..e])
                .filter(|(y, g)| **y as u32 != **g)
                .count();
        }
        assert_eq!(obj.errors.get(), expected);
        assert!(expected > 0);
    }
}
