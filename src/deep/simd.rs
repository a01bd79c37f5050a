//! The tagging kernels: float approximations that vectorise and the LSTM recurrence, with
//! AVX2/FMA variants chosen at run time.

/// tanh as a rational function of degree 13/6, exact to float precision over the clamped
/// range (the approximation Eigen uses; near 0 it is x within 2e-7); a plain loop over it
/// vectorises, unlike `f32::tanh`.
#[inline(always)]
pub(super) fn tanh_f32(x: f32) -> f32 {
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
pub(super) fn sigmoid_f32(x: f32) -> f32 {
    0.5 * tanh_f32(0.5 * x) + 0.5
}

/// Whether `QUIRE_DEEP_RECURRENCE=per-sequence` asks for the matrix-vector recurrence
/// ([`Recurrence::steps_per_sequence`]) instead of the blocked one: a switch for measuring
/// the two in one build; the answers are the same.
fn per_sequence() -> bool {
    static PER_SEQUENCE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *PER_SEQUENCE.get_or_init(|| {
        std::env::var("QUIRE_DEEP_RECURRENCE").is_ok_and(|v| v.trim() == "per-sequence")
    })
}

/// The input projections of `slots.len()` tokens, `width` wide: token `i` starts from row
/// `slots[i]` of `base` (its input row's product, shared by the tokens with the same input),
/// adds the `bias`, then, for each feature column `c` in order, the row of `tables[c]` that
/// `ids[c][i]` names: its feature columns' shares, looked up per token. A row takes all its
/// columns while it is in cache (column by column over all rows would stream the whole
/// projection once per column). Each element is summed in the same order whatever the lane
/// width (the base row, the bias, the columns in order), so the result does not depend on the
/// CPU; AVX-512 or AVX where the CPU has it (sixteen or eight lanes instead of SSE's four).
pub(super) fn project_rows(
    base: &[f32],
    slots: &[u32],
    width: usize,
    bias: &[f32],
    tables: &[Vec<f32>],
    ids: &[Vec<u32>],
) -> Vec<f32> {
    #[cfg(target_arch = "x86_64")]
    {
        if crate::cpu::avx512() {
            // SAFETY: the CPU supports AVX-512F (`cpu::avx512` checks).
            return unsafe { project_rows_avx512(base, slots, width, bias, tables, ids) };
        }
        if std::arch::is_x86_feature_detected!("avx") {
            // SAFETY: the CPU supports AVX, checked just above.
            return unsafe { project_rows_avx(base, slots, width, bias, tables, ids) };
        }
    }
    project_rows_plain(base, slots, width, bias, tables, ids)
}

/// Builds one vector kernel of [`project_rows`]: each stretch of eight registers of a row is
/// loaded from its base row, takes the bias and every column's share in registers and is
/// stored once, where the plain loop copies the base row and then loads and stores it again
/// for each column. The sums are the plain loop's, in its order.
macro_rules! project_rows_kernel {
    ($(#[$doc:meta])* $name:ident, $feature:literal, $lanes:literal,
     $zero:ident, $load:ident, $add:ident, $store:ident) => {
        $(#[$doc])*
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $feature)]
        unsafe fn $name(
            base: &[f32],
            slots: &[u32],
            width: usize,
            bias: &[f32],
            tables: &[Vec<f32>],
            ids: &[Vec<u32>],
        ) -> Vec<f32> {
            use std::arch::x86_64::*;
            const BLOCK: usize = 8 * $lanes;
            if width == 0 || bias.len() < width {
                return project_rows_plain(base, slots, width, bias, tables, ids);
            }
            let mut out: Vec<f32> = Vec::with_capacity(slots.len() * width);
            let mut picked: Vec<&[f32]> = Vec::with_capacity(tables.len());
            for (i, &slot) in slots.iter().enumerate() {
                let from = &base[slot as usize * width..(slot as usize + 1) * width];
                picked.clear();
                for (table, ids) in tables.iter().zip(ids) {
                    if let Some(&id) = ids.get(i) {
                        picked.push(&table[id as usize * width..(id as usize + 1) * width]);
                    }
                }
                let to = out.spare_capacity_mut()[..width].as_mut_ptr() as *mut f32;
                let mut j = 0;
                while j + BLOCK <= width {
                    // SAFETY: `from`, `bias` and every picked slice hold at least `width`
                    // elements (checked or sliced above), `to` has room for `width` (reserved
                    // above, not yet counted in `out`'s length), and `j + BLOCK <= width`.
                    unsafe {
                        let mut acc = [$zero(); 8];
                        for (k, a) in acc.iter_mut().enumerate() {
                            *a = $add(
                                $load(from.as_ptr().add(j + $lanes * k)),
                                $load(bias.as_ptr().add(j + $lanes * k)),
                            );
                        }
                        for add in &picked {
                            for (k, a) in acc.iter_mut().enumerate() {
                                *a = $add(*a, $load(add.as_ptr().add(j + $lanes * k)));
                            }
                        }
                        for (k, a) in acc.iter().enumerate() {
                            $store(to.add(j + $lanes * k), *a);
                        }
                    }
                    j += BLOCK;
                }
                for e in j..width {
                    let mut r = from[e] + bias[e];
                    for add in &picked {
                        r += add[e];
                    }
                    // SAFETY: `e < width`, within the room reserved for this row.
                    unsafe { to.add(e).write(r) };
                }
                // SAFETY: the row's `width` elements were all written just above.
                unsafe { out.set_len(out.len() + width) };
            }
            out
        }
    };
}

project_rows_kernel!(
    /// [`project_rows`] with AVX: stretches of 64 elements (eight registers of eight lanes).
    project_rows_avx, "avx", 8,
    _mm256_setzero_ps, _mm256_loadu_ps, _mm256_add_ps, _mm256_storeu_ps
);
project_rows_kernel!(
    /// [`project_rows`] with AVX-512F: stretches of 128 elements (eight registers of sixteen
    /// lanes).
    project_rows_avx512, "avx512f", 16,
    _mm512_setzero_ps, _mm512_loadu_ps, _mm512_add_ps, _mm512_storeu_ps
);

#[inline(always)]
fn project_rows_plain(
    base: &[f32],
    slots: &[u32],
    width: usize,
    bias: &[f32],
    tables: &[Vec<f32>],
    ids: &[Vec<u32>],
) -> Vec<f32> {
    let mut out: Vec<f32> = Vec::with_capacity(slots.len() * width);
    for (i, &slot) in slots.iter().enumerate() {
        let at = out.len();
        out.extend_from_slice(&base[slot as usize * width..(slot as usize + 1) * width]);
        let row = &mut out[at..];
        for (r, b) in row.iter_mut().zip(bias) {
            *r += b;
        }
        for (table, ids) in tables.iter().zip(ids) {
            let Some(&id) = ids.get(i) else { continue };
            let add = &table[id as usize * width..(id as usize + 1) * width];
            for (r, a) in row.iter_mut().zip(add) {
                *r += a;
            }
        }
    }
    out
}

/// One direction's recurrence for tagging: the input projections `xw` (`[B, T, 4H]`) and the
/// recurrent weights `w_hh_t` (`[H, 4H]`) of `b` sequences of `t` steps, `hd` units, read
/// backwards when `reverse`.
pub(super) struct Recurrence<'a> {
    pub(super) xw: &'a [f32],
    pub(super) w_hh_t: &'a [f32],
    pub(super) b: usize,
    pub(super) t: usize,
    pub(super) hd: usize,
    pub(super) reverse: bool,
}

impl Recurrence<'_> {
    /// The hidden states `[B, T, H]`: the steps of [`Lstm::run`] in plain loops, with
    /// AVX-512 or AVX2 where the CPU has it ([`crate::cpu::avx512`]).
    pub(super) fn run(&self) -> Vec<f32> {
        let per_sequence = per_sequence();
        #[cfg(target_arch = "x86_64")]
        {
            if crate::cpu::avx512() {
                // SAFETY: the CPU supports AVX-512F, AVX2 and FMA (`cpu::avx512` checks).
                return unsafe { self.steps_avx512_fma(per_sequence) };
            }
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                // SAFETY: the CPU supports AVX2 and FMA, checked just above.
                return unsafe { self.steps_avx2_fma(per_sequence) };
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU supports AVX2, checked just above.
                return unsafe { self.steps_avx2(per_sequence) };
            }
        }
        self.steps_chosen::<false, 16, 32>(per_sequence)
    }

    /// [`Recurrence::steps`] compiled for AVX2 (eight lanes instead of SSE's four).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn steps_avx2(&self, per_sequence: bool) -> Vec<f32> {
        self.steps_chosen::<false, 16, 32>(per_sequence)
    }

    /// [`Recurrence::steps`] compiled for AVX2 with fused multiply-adds (one instruction and
    /// one rounding per product and sum).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn steps_avx2_fma(&self, per_sequence: bool) -> Vec<f32> {
        self.steps_chosen::<true, 16, 32>(per_sequence)
    }

    /// [`Recurrence::steps`] compiled for AVX-512 with fused multiply-adds: sixteen lanes a
    /// register, and a lone sequence's gates summed 128 at a time (eight registers of sums in
    /// flight while its recurrent weights stream from L2, against four with AVX2; one
    /// sequence's steps ran 12-19 % faster, `deep_tag_tokens reference-segmenter`). Each
    /// lane's products and sums are the same instructions' as with AVX2, so the bits are
    /// too. The block kernel keeps sixteen lanes: with 32 its sums no longer stayed in
    /// registers (citation, batched, about a third of the speed).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma,avx512f")]
    pub(super) unsafe fn steps_avx512_fma(&self, per_sequence: bool) -> Vec<f32> {
        self.steps_chosen::<true, 16, 128>(per_sequence)
    }

    /// A batch of fewer sequences than a block (the reference segmenter's one sequence per
    /// document) steps one sequence at a time: [`Recurrence::steps`] would send each of them
    /// through its remainder branch, the same sums in the same order, but compiled inside the
    /// block loop it ran 12-15 % slower than the matrix-vector loop on its own
    /// (`deep_tag_tokens reference-segmenter`, docs/performance.md).
    #[inline(always)]
    fn steps_chosen<const FUSED: bool, const BLOCK_LANES: usize, const LANES: usize>(
        &self,
        per_sequence: bool,
    ) -> Vec<f32> {
        if per_sequence || self.b < SEQS {
            self.steps_per_sequence::<FUSED, LANES>()
        } else {
            self.steps::<FUSED, BLOCK_LANES, LANES>()
        }
    }

    /// The steps; `FUSED` sums the recurrent products with `mul_add`, only where the build
    /// has the FMA instruction (elsewhere `mul_add` is a slow library call). The sequences
    /// step together, [`SEQS`] at a time through [`gate_product_block`] (a matrix-matrix
    /// product that reads each row of the recurrent weights once for all of them); each gate
    /// value is summed in the same order as one sequence alone would sum it. `BLOCK_LANES`
    /// and `LANES` are the gate values a block of sequences and a sequence alone sum at a
    /// time (they change the registers, never the order of a sum).
    #[inline(always)]
    pub(super) fn steps<const FUSED: bool, const BLOCK_LANES: usize, const LANES: usize>(
        &self,
    ) -> Vec<f32> {
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
        let mut g = vec![0f32; SEQS * h4];
        let mut ht = vec![0f32; hd * SEQS];
        for step in 0..t {
            let s = if reverse { t - 1 - step } else { step };
            for b0 in (0..b).step_by(SEQS) {
                let nb = SEQS.min(b - b0);
                for r in 0..nb {
                    let at = ((b0 + r) * t + s) * h4;
                    g[r * h4..(r + 1) * h4].copy_from_slice(&xw[at..at + h4]);
                }
                if nb == SEQS {
                    for (k, hk) in ht.chunks_exact_mut(SEQS).enumerate() {
                        for (r, v) in hk.iter_mut().enumerate() {
                            *v = h[(b0 + r) * hd + k];
                        }
                    }
                    gate_product_block::<FUSED, BLOCK_LANES>(&mut g, &ht, w_hh_t, h4);
                } else {
                    for r in 0..nb {
                        let bi = b0 + r;
                        gate_product::<FUSED, LANES>(
                            &mut g[r * h4..(r + 1) * h4],
                            &h[bi * hd..(bi + 1) * hd],
                            w_hh_t,
                        );
                    }
                }
                for r in 0..nb {
                    let bi = b0 + r;
                    let hb = &mut h[bi * hd..(bi + 1) * hd];
                    cell_update(&g[r * h4..(r + 1) * h4], &mut c[bi * hd..(bi + 1) * hd], hb);
                    out[(bi * t + s) * hd..(bi * t + s + 1) * hd].copy_from_slice(hb);
                }
            }
        }
        out
    }

    /// The steps one sequence after the other (matrix-vector products that stream the
    /// recurrent weights once per sequence and step): the reference for [`Recurrence::steps`],
    /// which gives the same sums in the same order; served when `QUIRE_DEEP_RECURRENCE` is
    /// `per-sequence` (for measuring).
    #[inline(always)]
    pub(super) fn steps_per_sequence<const FUSED: bool, const LANES: usize>(&self) -> Vec<f32> {
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
                gate_product::<FUSED, LANES>(&mut g, &h[bi * hd..(bi + 1) * hd], w_hh_t);
                let hb = &mut h[bi * hd..(bi + 1) * hd];
                cell_update(&g, &mut c[bi * hd..(bi + 1) * hd], hb);
                out[(bi * t + s) * hd..(bi * t + s + 1) * hd].copy_from_slice(hb);
            }
        }
        out
    }
}

/// Sequences whose recurrences step together in [`gate_product_block`].
pub(super) const SEQS: usize = 4;

/// `g[r] += h[r] · w` for [`SEQS`] sequences at once: `g` holds their gates (`[SEQS, 4H]`),
/// `ht` their hidden states unit by unit (`[H, SEQS]`), `w` the recurrent weights (`[H, 4H]`).
/// Per block of `LANES` gate values, the `SEQS × LANES` sums stay in registers while every
/// row of `w` is read once for all the sequences; each sum runs over `h` in order, as in
/// [`gate_product`].
#[inline(always)]
pub(super) fn gate_product_block<const FUSED: bool, const LANES: usize>(
    g: &mut [f32],
    ht: &[f32],
    w: &[f32],
    h4: usize,
) {
    let blocks = h4 / LANES * LANES;
    for j0 in (0..blocks).step_by(LANES) {
        let mut acc = [[0f32; LANES]; SEQS];
        for (r, a) in acc.iter_mut().enumerate() {
            a.copy_from_slice(&g[r * h4 + j0..r * h4 + j0 + LANES]);
        }
        for (wk, hk) in w.chunks_exact(h4).zip(ht.chunks_exact(SEQS)) {
            let row: &[f32; LANES] = wk[j0..j0 + LANES].try_into().expect("a block of lanes");
            for (a, &hv) in acc.iter_mut().zip(hk) {
                for (x, &wj) in a.iter_mut().zip(row) {
                    *x = madd::<FUSED>(hv, wj, *x);
                }
            }
        }
        for (r, a) in acc.iter().enumerate() {
            g[r * h4 + j0..r * h4 + j0 + LANES].copy_from_slice(a);
        }
    }
    for (wk, hk) in w.chunks_exact(h4).zip(ht.chunks_exact(SEQS)) {
        for (r, &hv) in hk.iter().enumerate() {
            for (gj, wj) in g[r * h4 + blocks..(r + 1) * h4]
                .iter_mut()
                .zip(&wk[blocks..])
            {
                *gj = madd::<FUSED>(hv, *wj, *gj);
            }
        }
    }
}

/// `g += h · w` for the recurrent weights `w` (`[H, 4H]` row-major, `g` of `4H`): `LANES`
/// gate values at a time, each block summed over all of `h` in registers before it is stored,
/// so that the gates are read and written once per step rather than once per unit of `h`.
#[inline(always)]
pub(super) fn gate_product<const FUSED: bool, const LANES: usize>(
    g: &mut [f32],
    h: &[f32],
    w: &[f32],
) {
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
pub(super) fn madd<const FUSED: bool>(h: f32, w: f32, a: f32) -> f32 {
    if FUSED {
        h.mul_add(w, a)
    } else {
        a + h * w
    }
}

/// One LSTM cell step from its four gate pre-activations (`gates`: input, forget, cell,
/// output, `c.len()` each): updates the cell state `c` and writes the hidden state `h`.
#[inline(always)]
fn cell_update(gates: &[f32], c: &mut [f32], h: &mut [f32]) {
    let hd = c.len();
    let (gi, rest) = gates.split_at(hd);
    let (gf, rest) = rest.split_at(hd);
    let (gc, go) = rest.split_at(hd);
    for j in 0..hd {
        let cj = sigmoid_f32(gf[j]) * c[j] + sigmoid_f32(gi[j]) * tanh_f32(gc[j]);
        c[j] = cj;
        h[j] = sigmoid_f32(go[j]) * tanh_f32(cj);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values of many magnitudes, so that adding them in another order changes some bits.
    fn values(seed: &mut u64, n: usize) -> Vec<f32> {
        (0..n)
            .map(|_| {
                *seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let m = ((*seed >> 40) as f32 / (1u64 << 24) as f32) - 0.5;
                m * 10f32.powi(((*seed >> 20) % 7) as i32 - 3)
            })
            .collect()
    }

    /// The AVX and AVX-512 kernels give the plain loop's sums bit for bit: rows as wide as a
    /// BiLSTM's gates (384) and one with a remainder past the 64- and 128-wide stretches
    /// (200), tokens sharing base rows in any order, a column shorter than the rows (its
    /// share is left out there) and a row set with no columns.
    #[test]
    fn table_rows_are_added_in_the_plain_order_whatever_the_kernel() {
        let mut seed = 7u64;
        for width in [384usize, 200, 8, 3] {
            let n = 37;
            let distinct = 11;
            let base = values(&mut seed, distinct * width);
            let slots: Vec<u32> = (0..n)
                .map(|i| ((i * 5 + i / 3) % distinct) as u32)
                .collect();
            let bias = values(&mut seed, width);
            let cardinalities = [4usize, 3, 12, 2, 9];
            let tables: Vec<Vec<f32>> = cardinalities
                .iter()
                .map(|&c| values(&mut seed, c * width))
                .collect();
            let ids: Vec<Vec<u32>> = cardinalities
                .iter()
                .enumerate()
                .map(|(k, &c)| {
                    let len = if k == 2 { n - 5 } else { n };
                    (0..len).map(|i| ((i * 7 + k) % c) as u32).collect()
                })
                .collect();
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            // The plain loop, spelled out: each token's base row, plus the bias, plus each
            // column's share in column order.
            let mut expected = Vec::new();
            for (i, &slot) in slots.iter().enumerate() {
                for e in 0..width {
                    let mut r = base[slot as usize * width + e] + bias[e];
                    for (table, ids) in tables.iter().zip(&ids) {
                        if let Some(&id) = ids.get(i) {
                            r += table[id as usize * width + e];
                        }
                    }
                    expected.push(r);
                }
            }
            let plain = project_rows_plain(&base, &slots, width, &bias, &tables, &ids);
            assert_eq!(bits(&plain), bits(&expected), "width {width}");
            let dispatched = project_rows(&base, &slots, width, &bias, &tables, &ids);
            assert_eq!(bits(&plain), bits(&dispatched), "width {width}");
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx") {
                // SAFETY: the CPU supports AVX, checked just above.
                let avx = unsafe { project_rows_avx(&base, &slots, width, &bias, &tables, &ids) };
                assert_eq!(bits(&plain), bits(&avx), "width {width}");
            }
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx512f") {
                // SAFETY: the CPU supports AVX-512F, checked just above.
                let wide =
                    unsafe { project_rows_avx512(&base, &slots, width, &bias, &tables, &ids) };
                assert_eq!(bits(&plain), bits(&wide), "width {width}");
            }
            // The data can tell the order apart: the columns in reverse give other bits.
            let (rt, ri): (Vec<_>, Vec<_>) = tables
                .iter()
                .cloned()
                .zip(ids.iter().cloned())
                .rev()
                .unzip();
            let reversed = project_rows_plain(&base, &slots, width, &bias, &rt, &ri);
            if width >= 200 {
                assert_ne!(bits(&plain), bits(&reversed), "width {width}");
            }
            let none = project_rows(&base, &slots, width, &bias, &[], &[]);
            let with_bias: Vec<f32> = (0..n * width)
                .map(|k| base[slots[k / width] as usize * width + k % width] + bias[k % width])
                .collect();
            assert_eq!(bits(&none), bits(&with_bias), "width {width}");
        }
    }
}
