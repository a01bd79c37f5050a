/*!
A trained model loaded for tagging: `models/<dir>/model.crf` (CRFsuite format, read into
in-memory weight tables), `template.txt` and `meta.json`. Tagging expands the template into a
reused buffer, looks each attribute up in a hash map (no `String` per attribute), sums state
weights and runs Viterbi in log space. A `Model` is immutable and shared between threads.
*/

use std::path::Path;

use super::format::{self, Tables, AMBIGUOUS, NO_DENSE_ROW};
use super::fxhash::Poly2;
use super::template::Template;
use super::ModelMeta;
use crate::features::Row;
use crate::labels::{LabelSet, Labels};
use crate::{Error, Result};

pub const MODEL_FILE: &str = "model.crf";
pub const TEMPLATE_FILE: &str = "template.txt";
pub const META_FILE: &str = "meta.json";

/// A loaded model, ready to label feature rows. Shared between threads.
#[derive(Debug, Clone)]
pub struct Model {
    meta: ModelMeta,
    template: Template,
    tables: Tables,
    /// The label names, shared by every answer.
    label_set: LabelSet,
    /// The transition weights with each row padded to [`Model::width`] labels (padding
    /// `-∞`), so Viterbi's inner loop runs over whole blocks of [`LANES`].
    trans_wide: Vec<f64>,
    /// The number of labels rounded up to a multiple of [`LANES`].
    width: usize,
}

/// Labels one vector of Viterbi's step holds (4 doubles in AVX2): the transition rows are
/// padded to a multiple of it, so a row has no remainder to finish one label at a time (the
/// 38 header labels were nine vectors and two labels of scalar code).
const LANES: usize = 4;

fn read_to_string(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| Error::io(path, e))
}

impl Model {
    /// Load `dir/{model.crf,template.txt,meta.json}`, refusing a model built for another
    /// feature version.
    pub fn load(dir: &Path, feature_version: u32) -> Result<Model> {
        let unavailable = |reason: String| Error::ModelUnavailable {
            model: dir.display().to_string(),
            reason,
        };
        let meta_path = dir.join(META_FILE);
        let meta: ModelMeta = serde_json::from_str(&read_to_string(&meta_path)?)
            .map_err(|e| unavailable(format!("{}: {e}", meta_path.display())))?;
        if meta.feature_version != feature_version {
            return Err(Error::ModelMismatch {
                model: meta.model.clone(),
                expected: feature_version,
                found: meta.feature_version,
            });
        }
        let template = Template::parse(&read_to_string(&dir.join(TEMPLATE_FILE))?)
            .map_err(|e| unavailable(e.to_string()))?;
        let model_path = dir.join(MODEL_FILE);
        let bytes = std::fs::read(&model_path).map_err(|e| Error::io(&model_path, e))?;
        Model::from_parts(&bytes, template, meta).map_err(|e| unavailable(e.to_string()))
    }

    /// Build a model from CRFsuite bytes, a template and metadata (no files involved).
    pub fn from_parts(model_crf: &[u8], template: Template, meta: ModelMeta) -> Result<Model> {
        let tables = format::read(model_crf)?;
        let label_set = LabelSet::new(tables.labels.clone());
        let l = tables.labels.len();
        let width = l.div_ceil(LANES) * LANES;
        let mut trans_wide = vec![f64::NEG_INFINITY; l * width];
        // A model without labels is refused when it tags (`with_state`), not here.
        if l > 0 {
            for (wide, row) in trans_wide
                .chunks_exact_mut(width)
                .zip(tables.trans.chunks_exact(l))
            {
                wide[..l].copy_from_slice(row);
            }
        }
        Ok(Model {
            meta,
            template,
            tables,
            label_set,
            trans_wide,
            width,
        })
    }

    /// Write `model.crf`, `template.txt` and `meta.json` into `dir` (created if needed).
    pub fn save_files(
        dir: &Path,
        model_crf: &[u8],
        template: &Template,
        meta: &ModelMeta,
    ) -> Result<()> {
        format::write_file(&dir.join(MODEL_FILE), model_crf)?;
        format::write_file(&dir.join(TEMPLATE_FILE), template.text().as_bytes())?;
        let json = serde_json::to_string_pretty(meta)
            .map_err(|e| Error::General(format!("serialising meta.json: {e}")))?;
        format::write_file(&dir.join(META_FILE), json.as_bytes())
    }

    pub fn meta(&self) -> &ModelMeta {
        &self.meta
    }

    pub fn template(&self) -> &Template {
        &self.template
    }

    /// The label set, in the model's label-id order.
    pub fn labels(&self) -> &[String] {
        &self.tables.labels
    }

    /// Number of attributes the model keeps (after L1 pruning).
    pub fn num_attributes(&self) -> usize {
        self.tables.attr_ids.len()
    }

    /// The label set, shared by every answer.
    pub fn label_set(&self) -> &LabelSet {
        &self.label_set
    }

    /// Label feature rows (column 0 = token); one label per row.
    pub fn label(&self, rows: &[Row]) -> Result<Labels> {
        let ids = self.label_ids(rows)?;
        Ok(self
            .label_set
            .labels(ids.into_iter().map(|i| i as u16).collect()))
    }

    /// Label feature rows, returning label ids (indexes into [`Model::labels`]).
    pub fn label_ids(&self, rows: &[Row]) -> Result<Vec<u32>> {
        self.with_state(rows, |model, state, sc| {
            model.viterbi(state, rows.len(), sc)
        })
    }

    /// The state scores of feature rows: for each token, the summed weights of its
    /// attributes per label (`rows.len() × L`, row-major, the order of [`Model::labels`]).
    pub fn state_scores(&self, rows: &[Row]) -> Result<Vec<f64>> {
        self.with_state(rows, |_, state, _| state.to_vec())
    }

    /// The transition weights, `L × L` row-major (row = the previous label).
    pub fn transitions(&self) -> &[f64] {
        &self.tables.trans
    }

    /// Compute the state scores of `rows` into the thread's scratch and hand them to `then`.
    fn with_state<T: Default>(
        &self,
        rows: &[Row],
        then: impl FnOnce(&Model, &[f64], &mut Scratch) -> T,
    ) -> Result<T> {
        if rows.is_empty() {
            return Ok(T::default());
        }
        self.template.check_rows(rows).map_err(|e| Error::Tagging {
            model: self.meta.model.clone(),
            reason: e.to_string(),
        })?;
        let l = self.tables.labels.len();
        if l == 0 {
            return Err(Error::Tagging {
                model: self.meta.model.clone(),
                reason: "the model has no labels".to_string(),
            });
        }
        SCRATCH.with(|cell| {
            let mut guard = cell.borrow_mut();
            let sc = &mut *guard;
            // Attribute ids of all tokens in one flat buffer. Each cell value is hashed once;
            // attribute hashes are combined from those (two polynomial hashes, see
            // `fxhash::Poly2`): the first finds the attribute, the second must match its
            // stored check, so no attribute string is built or compared unless two model
            // attributes share a key.
            sc.ids.clear();
            sc.bounds.clear();
            sc.cells.clear();
            let cols = self.template.hash_cols();
            // Sized once (ids: at most one per pattern and token): a long sequence's buffers
            // are freed after the call (`release_if_large`), and regrowing them by doubling
            // on the next one copied them and faulted their pages in twice.
            sc.cells.reserve(rows.len() * cols.len());
            sc.ids.reserve(rows.len() * self.template.len());
            sc.bounds.reserve(rows.len() + 1);
            for row in rows {
                for &c in cols {
                    sc.cells
                        .push(row.get(c).map_or(Poly2::EMPTY, |v| Poly2::of(v.as_bytes())));
                }
            }
            let tb = &self.tables;
            for t in 0..rows.len() {
                sc.bounds.push(sc.ids.len());
                for p in 0..self.template.len() {
                    let (key, check) = self.template.hash_at(rows.len(), t, p, &sc.cells);
                    match tb.by_hash.get(&key) {
                        None => {}
                        Some(&(AMBIGUOUS, _)) => {
                            sc.buf.clear();
                            self.template.pieces(rows, t, p, |b| {
                                sc.buf.push_str(&String::from_utf8_lossy(b))
                            });
                            if let Some(&a) = tb.attr_ids.get(sc.buf.as_str()) {
                                sc.ids.push(a);
                            }
                        }
                        Some(&(a, c)) if c == check as u32 => sc.ids.push(a),
                        Some(_) => {}
                    }
                }
            }
            sc.bounds.push(sc.ids.len());
            sc.state.clear();
            sc.state.resize(rows.len() * l, 0.0);
            let distinct = self.template.distinct_ids();
            for (t, row) in sc.state.chunks_exact_mut(l).enumerate() {
                let list = &mut sc.ids[sc.bounds[t]..sc.bounds[t + 1]];
                // Weights are added in pattern order, as crfs adds the attributes it is
                // given; a template whose patterns may repeat an attribute counts it once.
                if distinct {
                    self.add_states(row, list);
                } else {
                    list.sort_unstable();
                    let mut prev = None;
                    for &a in list.iter() {
                        if prev != Some(a) {
                            self.add_state(row, a);
                        }
                        prev = Some(a);
                    }
                }
            }
            let state = std::mem::take(&mut sc.state);
            let out = then(self, &state, sc);
            sc.state = state;
            sc.release_if_large();
            Ok(out)
        })
    }

    /// Label a sequence given as attribute ids per token (already deduplicated); the fastest
    /// path, used by benchmarks and by callers that intern attributes themselves.
    pub fn label_attr_ids(&self, tokens: &[Vec<u32>]) -> Vec<u32> {
        let l = self.tables.labels.len();
        SCRATCH.with(|cell| {
            let mut guard = cell.borrow_mut();
            let sc = &mut *guard;
            let mut state = std::mem::take(&mut sc.state);
            state.clear();
            state.resize(tokens.len() * l, 0.0);
            for (list, row) in tokens.iter().zip(state.chunks_exact_mut(l.max(1))) {
                for &a in list {
                    self.add_state(row, a);
                }
            }
            let out = self.viterbi(&state, tokens.len(), sc);
            sc.state = state;
            sc.release_if_large();
            out
        })
    }

    /// The model's id for an attribute string, if it kept it.
    pub fn attr_id(&self, attr: &str) -> Option<u32> {
        self.tables.attr_ids.get(attr).copied()
    }

    /// Add the weights of every attribute in `ids` to `row` (AVX2 where the CPU has it).
    fn add_states(&self, row: &mut [f64], ids: &[u32]) {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU supports AVX2, checked just above.
                return unsafe { self.add_states_avx2(row, ids) };
            }
        }
        for &a in ids {
            self.add_state(row, a);
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn add_states_avx2(&self, row: &mut [f64], ids: &[u32]) {
        for &a in ids {
            self.add_state(row, a);
        }
    }

    #[inline(always)]
    fn add_state(&self, row: &mut [f64], a: u32) {
        let tb = &self.tables;
        if let Some(&d) = tb.dense_row.get(a as usize) {
            if d != NO_DENSE_ROW {
                let l = row.len();
                if let Some(w) = tb.dense.get(d as usize * l..(d as usize + 1) * l) {
                    for (rv, &wv) in row.iter_mut().zip(w) {
                        *rv += wv;
                    }
                    return;
                }
            }
        }
        let (Some(&s), Some(&e)) = (tb.attr_off.get(a as usize), tb.attr_off.get(a as usize + 1))
        else {
            return;
        };
        let Some(feats) = tb.st.get(s as usize..e as usize) else {
            return;
        };
        if feats.len() == row.len() {
            // Weights for every label, in label order.
            for (rv, f) in row.iter_mut().zip(feats) {
                *rv += f.weight;
            }
        } else {
            for f in feats {
                if let Some(rv) = row.get_mut(f.label as usize) {
                    *rv += f.weight;
                }
            }
        }
    }

    /// Max-sum Viterbi over `state` (`n × L` scores); ties go to the lowest label id, as in
    /// crfs/CRFsuite.
    fn viterbi(&self, state: &[f64], n: usize, sc: &mut Scratch) -> Vec<u32> {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU supports AVX2, checked just above.
                return unsafe { self.viterbi_avx2(state, n, sc) };
            }
        }
        self.viterbi_body(state, n, sc)
    }

    /// The same Viterbi compiled with AVX2 (identical results: max and select only).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn viterbi_avx2(&self, state: &[f64], n: usize, sc: &mut Scratch) -> Vec<u32> {
        self.viterbi_body(state, n, sc)
    }

    #[inline(always)]
    fn viterbi_body(&self, state: &[f64], n: usize, sc: &mut Scratch) -> Vec<u32> {
        let l = self.tables.labels.len();
        if n == 0 || l == 0 {
            return Vec::new();
        }
        // Scores and argmaxes are `width` wide; the lanes past `l` are never read for an
        // answer (no label `i ≥ l` is a predecessor, and the final argmax reads `..l`).
        let (trans, w) = (&self.trans_wide, self.width);
        sc.score.clear();
        sc.score.extend_from_slice(&state[..l]);
        sc.score.resize(w, f64::NEG_INFINITY);
        sc.next.resize(w, 0.0);
        sc.back.resize(n * l, 0);
        sc.arg.resize(w, 0.0);
        for t in 1..n {
            let score = &sc.score[..l];
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU supports AVX2, checked just above.
                unsafe { best_predecessors_avx2(score, trans, w, &mut sc.next, &mut sc.arg) };
            } else {
                best_predecessors(score, trans, w, &mut sc.next, &mut sc.arg);
            }
            #[cfg(not(target_arch = "x86_64"))]
            best_predecessors(score, trans, w, &mut sc.next, &mut sc.arg);
            let back = &mut sc.back[t * l..(t + 1) * l];
            for (b, &a) in back.iter_mut().zip(&sc.arg) {
                *b = a as u32;
            }
            for (nv, &sv) in sc.next.iter_mut().zip(&state[t * l..(t + 1) * l]) {
                *nv += sv;
            }
            std::mem::swap(&mut sc.score, &mut sc.next);
        }
        let mut best = 0usize;
        for j in 1..l {
            if sc.score[j] > sc.score[best] {
                best = j;
            }
        }
        let mut out = vec![0u32; n];
        out[n - 1] = best as u32;
        for t in (1..n).rev() {
            out[t - 1] = sc.back[t * l + out[t] as usize];
        }
        out
    }
}

/// One step of Viterbi: for each label `j < w`, the best `score[i] + trans[i * w + j]` over
/// the predecessors `i` in order into `next[j]`, and that `i` (as an f64) into `arg[j]`; a
/// later predecessor wins only with a strictly greater sum, so ties go to the lowest id, and
/// a label whose every sum is -∞ gets predecessor 0.
fn best_predecessors(score: &[f64], trans: &[f64], w: usize, next: &mut [f64], arg: &mut [f64]) {
    next[..w].fill(f64::NEG_INFINITY);
    // A label no predecessor reaches with a sum above -∞ points back to label 0.
    arg[..w].fill(0.0);
    for (i, &si) in score.iter().enumerate() {
        let tr = &trans[i * w..(i + 1) * w];
        // The argmax is kept as an f64 too, so both selects are the same width and the loop
        // compiles to vector add, compare and blend.
        let fi = i as f64;
        for ((best, arg), &tv) in next.iter_mut().zip(arg.iter_mut()).zip(tr) {
            let v = si + tv;
            let better = v > *best;
            *best = if better { v } else { *best };
            *arg = if better { fi } else { *arg };
        }
    }
}

/// [`best_predecessors`] with AVX2, eight labels at a time (four for the last four of a width
/// that is not a multiple of eight): their best sums and predecessors stay in registers while
/// every predecessor is tried, instead of being loaded and stored once per predecessor. Each lane adds, compares (`>`, false for NaN as in Rust) and
/// selects exactly as the portable loop does, so the results are the same bits.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn best_predecessors_avx2(
    score: &[f64],
    trans: &[f64],
    w: usize,
    next: &mut [f64],
    arg: &mut [f64],
) {
    use std::arch::x86_64::*;
    // What the unchecked loads and stores below rely on.
    assert!(w.is_multiple_of(LANES) && next.len() >= w && arg.len() >= w);
    assert!(trans.len() >= score.len() * w);
    let mut jb = 0;
    while jb < w {
        // Two blocks of four labels while eight are left, then one.
        let two = jb + 2 * LANES <= w;
        let mut best0 = _mm256_set1_pd(f64::NEG_INFINITY);
        let mut best1 = best0;
        let mut from0 = _mm256_setzero_pd();
        let mut from1 = from0;
        for (i, &si) in score.iter().enumerate() {
            let s = _mm256_set1_pd(si);
            let fi = _mm256_set1_pd(i as f64);
            // SAFETY: `i * w + jb + LANES (or 2 × LANES when two) ≤ (i + 1) * w ≤ trans.len()`.
            let row = unsafe { trans.as_ptr().add(i * w + jb) };
            let v0 = _mm256_add_pd(s, unsafe { _mm256_loadu_pd(row) });
            let better0 = _mm256_cmp_pd::<_CMP_GT_OQ>(v0, best0);
            best0 = _mm256_blendv_pd(best0, v0, better0);
            from0 = _mm256_blendv_pd(from0, fi, better0);
            if two {
                let v1 = _mm256_add_pd(s, unsafe { _mm256_loadu_pd(row.add(LANES)) });
                let better1 = _mm256_cmp_pd::<_CMP_GT_OQ>(v1, best1);
                best1 = _mm256_blendv_pd(best1, v1, better1);
                from1 = _mm256_blendv_pd(from1, fi, better1);
            }
        }
        // SAFETY: `jb + LANES (or 2 × LANES) ≤ w ≤ next.len(), arg.len()`.
        unsafe {
            _mm256_storeu_pd(next.as_mut_ptr().add(jb), best0);
            _mm256_storeu_pd(arg.as_mut_ptr().add(jb), from0);
            if two {
                _mm256_storeu_pd(next.as_mut_ptr().add(jb + LANES), best1);
                _mm256_storeu_pd(arg.as_mut_ptr().add(jb + LANES), from1);
            }
        }
        jb += if two { 2 * LANES } else { LANES };
    }
}

/// Per-thread buffers reused by every tagging call (no allocation per call but the output).
#[derive(Default)]
struct Scratch {
    buf: String,
    cells: Vec<Poly2>,
    ids: Vec<u32>,
    bounds: Vec<usize>,
    state: Vec<f64>,
    score: Vec<f64>,
    next: Vec<f64>,
    arg: Vec<f64>,
    back: Vec<u32>,
}

/// Scratch kept for the next call on its thread up to this size; the buffers of a larger
/// call (a long document's full-text sequence, 100 MB and more) are freed after it, so each
/// model thread does not keep the largest input it ever tagged.
const SCRATCH_KEEP_BYTES: usize = 8 << 20;

impl Scratch {
    /// Bytes the buffers hold (their capacity).
    fn bytes(&self) -> usize {
        use std::mem::size_of;
        self.buf.capacity()
            + self.cells.capacity() * size_of::<Poly2>()
            + (self.ids.capacity() + self.back.capacity()) * size_of::<u32>()
            + self.bounds.capacity() * size_of::<usize>()
            + (self.state.capacity()
                + self.score.capacity()
                + self.next.capacity()
                + self.arg.capacity())
                * size_of::<f64>()
    }

    fn release_if_large(&mut self) {
        if self.bytes() > SCRATCH_KEEP_BYTES {
            *self = Scratch::default();
        }
    }
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crf::{train, Sequence, TrainParams};
    use crate::features::Rows;

    fn data() -> Vec<Sequence> {
        let words = [
            ("the", "D"),
            ("cat", "N"),
            ("sat", "V"),
            ("dog", "N"),
            ("ran", "V"),
        ];
        (0..12)
            .map(|k| {
                let toks = [words[0], words[1 + k % 2 * 2], words[2 + k % 2 * 2]];
                Sequence {
                    rows: toks.iter().map(|(w, _)| vec![(*w).into()]).collect(),
                    labels: toks.iter().map(|(_, l)| l.to_string()).collect(),
                }
            })
            .collect()
    }

    fn model() -> Model {
        let t = Template::parse("U0:%x[0,0]\nU1:%x[-1,0]\nU2:%x[1,0]/%x[0,0]\nB").unwrap();
        let p = TrainParams {
            c1: 0.0,
            c2: 0.1,
            ..TrainParams::default()
        };
        let bytes = train(&t, &data(), &p, &mut |_| true).unwrap();
        let meta = ModelMeta {
            model: "toy".into(),
            labels: vec![],
            feature_version: 0,
            data_digest: String::new(),
            params: p,
            evaluation: serde_json::Value::Null,
        };
        Model::from_parts(&bytes, t, meta).unwrap()
    }

    /// A model file without labels loads, and tagging with it is refused with an error.
    #[test]
    fn a_model_without_labels_loads_and_refuses_to_tag() {
        let bytes = format::write(&format::Weights {
            labels: &[],
            attrs: &[],
            attr_off: &[0],
            feat_label: &[],
            transitions: true,
            w: &[],
        })
        .unwrap();
        let toy = model();
        let m = Model::from_parts(&bytes, toy.template.clone(), toy.meta.clone()).unwrap();
        let rows: Rows = vec![vec!["the".into()]];
        assert!(matches!(m.label(&rows), Err(Error::Tagging { .. })));
    }

    /// One Viterbi step label by label over the unpadded `l × l` transitions: the best sum
    /// and its predecessor for each label, ties to the lowest predecessor.
    fn step_by_label(score: &[f64], trans: &[f64], l: usize) -> Vec<(u64, u32)> {
        (0..l)
            .map(|j| {
                let (mut best, mut from) = (f64::NEG_INFINITY, 0);
                for (i, &si) in score.iter().enumerate() {
                    let v = si + trans[i * l + j];
                    if v > best {
                        (best, from) = (v, i as u32);
                    }
                }
                (best.to_bits(), from)
            })
            .collect()
    }

    proptest::proptest! {
        /// The step over padded rows, portable and AVX2, gives each label the best sum and
        /// predecessor bit for bit (ties, infinities and label counts around the lane widths
        /// included).
        #[test]
        fn a_viterbi_step_over_padded_rows_is_the_step_label_by_label(
            (l, score, trans) in proptest::strategy::Strategy::prop_flat_map(1usize..42, |l| {
                let value = proptest::sample::select(
                    vec![-2.5, -1.0, 0.0, 0.0, 0.25, 1.0, 1.0, 3.75, f64::NEG_INFINITY],
                );
                (
                    proptest::strategy::Just(l),
                    proptest::collection::vec(value.clone(), l),
                    proptest::collection::vec(value, l * l),
                )
            })
        ) {
            let w = l.div_ceil(LANES) * LANES;
            let mut wide = vec![f64::NEG_INFINITY; l * w];
            for (row, t) in wide.chunks_exact_mut(w).zip(trans.chunks_exact(l)) {
                row[..l].copy_from_slice(t);
            }
            let want = step_by_label(&score, &trans, l);
            let got = |next: &[f64], arg: &[f64]| -> Vec<(u64, u32)> {
                (0..l).map(|j| (next[j].to_bits(), arg[j] as u32)).collect()
            };
            let (mut next, mut arg) = (vec![7.0; w], vec![9.0; w]);
            best_predecessors(&score, &wide, w, &mut next, &mut arg);
            proptest::prop_assert_eq!(got(&next, &arg), want.clone());
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                let (mut next, mut arg) = (vec![7.0; w], vec![9.0; w]);
                // SAFETY: the CPU supports AVX2, checked just above.
                unsafe { best_predecessors_avx2(&score, &wide, w, &mut next, &mut arg) };
                proptest::prop_assert_eq!(got(&next, &arg), want);
            }
        }
    }

    /// A long sequence's scratch is freed after it (the thread keeps no more than
    /// SCRATCH_KEEP_BYTES); a short one's is kept for the next call; labels do not change.
    #[test]
    fn a_long_sequence_leaves_no_large_scratch_behind() {
        let m = model();
        let short: Rows = ["the", "cat", "sat"]
            .iter()
            .map(|w| vec![(*w).into()])
            .collect();
        let long: Rows = short.iter().cycle().take(300_000).cloned().collect();
        let scratch = || SCRATCH.with(|c| c.borrow().bytes());
        let first = m.label(&short).unwrap();
        let kept = scratch();
        assert!(kept > 0 && kept <= SCRATCH_KEEP_BYTES, "{kept}");
        let labels = m.label(&long).unwrap();
        assert_eq!(labels.len(), 300_000);
        assert!(labels.iter().take(3).eq(first.iter()));
        assert!(scratch() <= SCRATCH_KEEP_BYTES, "{}", scratch());
        assert_eq!(m.label(&short).unwrap(), first);
    }

    /// Dense weight rows give the same labels as the sparse runs they copy.
    #[test]
    fn dense_rows_agree_with_sparse_features() {
        let words = [("a", "A"), ("b", "B"), ("c", "C"), ("d", "D")];
        let data: Vec<Sequence> = (0..24)
            .map(|k| {
                let (w1, l1) = words[k % 4];
                let (w2, l2) = words[(k / 4 + k) % 4];
                Sequence {
                    rows: [("the", "T"), (w1, l1), (w2, l2)]
                        .iter()
                        .map(|(w, _)| vec![(*w).into()])
                        .collect(),
                    labels: [("the", "T"), (w1, l1), (w2, l2)]
                        .iter()
                        .map(|(_, l)| l.to_string())
                        .collect(),
                }
            })
            .collect();
        let t = Template::parse("U0:%x[0,0]\nU1:%x[-1,0]\nB").unwrap();
        let p = TrainParams {
            c1: 0.0,
            c2: 0.1,
            ..TrainParams::default()
        };
        let bytes = train(&t, &data, &p, &mut |_| true).unwrap();
        let meta = ModelMeta {
            model: "toy".into(),
            labels: vec![],
            feature_version: 0,
            data_digest: String::new(),
            params: p,
            evaluation: serde_json::Value::Null,
        };
        let m = Model::from_parts(&bytes, t, meta).unwrap();
        assert!(m.tables.dense_row.iter().any(|&d| d != NO_DENSE_ROW));
        let mut sparse = m.clone();
        sparse
            .tables
            .dense_row
            .iter_mut()
            .for_each(|d| *d = NO_DENSE_ROW);
        for s in &data {
            let got = m.label(&s.rows).unwrap();
            assert_eq!(got, s.labels);
            assert_eq!(got, sparse.label(&s.rows).unwrap());
        }
    }

    /// The hashed lookup gives the same labels as the string lookup it replaces, also when
    /// every key is marked ambiguous (the string fallback) or its check belongs to another string
    /// (the lookup refuses it).
    #[test]
    fn hashed_lookup_agrees_with_the_string_fallback() {
        let m = model();
        let expected: Vec<Vec<String>> = data().iter().map(|s| s.labels.clone()).collect();
        let got: Vec<_> = data().iter().map(|s| m.label(&s.rows).unwrap()).collect();
        assert_eq!(got, expected);
        let mut amb = m.clone();
        amb.tables
            .by_hash
            .values_mut()
            .for_each(|v| v.0 = AMBIGUOUS);
        let got: Vec<_> = data().iter().map(|s| amb.label(&s.rows).unwrap()).collect();
        assert_eq!(got, expected);
        let mut wrong = m.clone();
        // As if every key belonged to another string: the checks no longer match.
        wrong.tables.by_hash.values_mut().for_each(|v| v.1 ^= 1);
        let s = &data()[0];
        let ids: Vec<u32> = {
            let mut ids = Vec::new();
            let cells: Vec<Poly2> = s
                .rows
                .iter()
                .flat_map(|r| {
                    wrong
                        .template
                        .hash_cols()
                        .iter()
                        .map(|&c| Poly2::of(r[c].as_bytes()))
                })
                .collect();
            for t in 0..s.rows.len() {
                for p in 0..wrong.template.len() {
                    let (key, check) = wrong.template.hash_at(s.rows.len(), t, p, &cells);
                    if let Some(&(a, c)) = wrong.tables.by_hash.get(&key) {
                        if c == check as u32 {
                            ids.push(a);
                        }
                    }
                }
            }
            ids
        };
        assert!(ids.is_empty(), "{ids:?}");
        // Through the tagger: no attribute found, the same labels as with no attributes.
        for s in data() {
            let none = vec![Vec::new(); s.rows.len()];
            assert_eq!(
                wrong.label_ids(&s.rows).unwrap(),
                wrong.label_attr_ids(&none)
            );
        }
    }
}
