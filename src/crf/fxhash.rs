//! A small, fast, non-cryptographic hasher (the Fx multiply-rotate scheme used inside rustc) for
//! the attribute and feature maps of the trainer and the tagger, where SipHash dominated.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

#[derive(Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(w) ^ ((rest.len() as u64) << 59));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        // The multiply leaves the low bits depending only on the low bits of the input;
        // hashbrown picks buckets from the low bits, so bring the well-mixed high bits down.
        self.hash.rotate_left(26)
    }
}

pub type FxBuild = BuildHasherDefault<FxHasher>;
pub type FxHashMap<K, V> = HashMap<K, V, FxBuild>;
pub type FxHashSet<K> = HashSet<K, FxBuild>;

/// Polynomial string hash mod 2⁶⁴: `H(s) = Σ (sᵢ+1)·B^(n-1-i)`, kept with `B^n` so that
/// `H(a ++ b) = H(a)·B^|b| + H(b)`. The tagger combines per-cell hashes into attribute hashes
/// with this, without building the attribute strings; hits are checked against the text.
pub const POLY_B: u64 = 0x9e37_79b9_7f4a_7c15;

/// `(H(s), B^|s|)` multiplied out byte by byte: what the tests check [`Poly2::of`] against.
#[cfg(test)]
pub fn poly(bytes: &[u8]) -> (u64, u64) {
    let mut h = 0u64;
    let mut p = 1u64;
    for &b in bytes {
        h = h.wrapping_mul(POLY_B).wrapping_add(b as u64 + 1);
        p = p.wrapping_mul(POLY_B);
    }
    (h, p)
}

/// `H(a ++ b)` from `(H(a), _)` and `(H(b), B^|b|)`.
#[inline]
pub fn poly_concat(a: u64, b: (u64, u64)) -> u64 {
    a.wrapping_mul(b.1).wrapping_add(b.0)
}

/// The Mersenne prime 2³¹ − 1 and the base of the second polynomial hash, modulo that prime
/// (products of two residues fit in a `u64`, so the check costs one multiply per step).
const M31: u64 = (1 << 31) - 1;
const B31: u64 = 0x5bd1_e995 % M31;

#[inline]
const fn mul31(a: u64, b: u64) -> u64 {
    let p = a * b;
    let r = (p & M31) + (p >> 31);
    if r >= M31 {
        r - M31
    } else {
        r
    }
}

#[inline]
fn add31(a: u64, b: u64) -> u64 {
    let r = a + b;
    if r >= M31 {
        r - M31
    } else {
        r
    }
}

/// `(B^n mod 2⁶⁴, B31^n mod 2³¹ − 1)`, the powers [`Poly2`] keeps for a string of `n` bytes.
const fn powers(n: usize) -> (u64, u64) {
    let (mut p, mut q) = (1u64, 1u64);
    let mut i = 0;
    while i < n {
        p = p.wrapping_mul(POLY_B);
        q = mul31(q, B31);
        i += 1;
    }
    (p, q)
}

/// [`powers`] of the lengths up to 63.
const POWERS: [(u64, u64); 64] = {
    let mut t = [(1u64, 1u64); 64];
    let mut n = 0;
    while n < 64 {
        t[n] = powers(n);
        n += 1;
    }
    t
};

/// Two polynomial hashes of one byte string, both composable over concatenation: `H` above
/// modulo 2⁶⁴ (the tagger's map key) and the same scheme modulo the prime 2³¹ − 1 (the
/// check that replaces comparing the attribute text). Modular hashing over a prime is not
/// open to the Thue–Morse collisions that defeat any base modulo 2⁶⁴, so a wrong match needs
/// both to collide (natural strings: about 2⁻⁹⁵ per lookup).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Poly2 {
    /// `H(s)` and `B^|s|` modulo 2⁶⁴.
    pub h: u64,
    pub p: u64,
    /// The same modulo 2³¹ − 1.
    pub g: u64,
    pub q: u64,
}

impl Poly2 {
    /// The empty string.
    pub const EMPTY: Poly2 = Poly2 {
        h: 0,
        p: 1,
        g: 0,
        q: 1,
    };

    #[inline]
    pub fn of(bytes: &[u8]) -> Poly2 {
        let (mut h, mut g) = (0u64, 0u64);
        for &b in bytes {
            h = h.wrapping_mul(POLY_B).wrapping_add(b as u64 + 1);
            g = add31(mul31(g, B31), b as u64 + 1);
        }
        // The powers depend on the length only: a feature value is short, so they are
        // looked up rather than multiplied out byte by byte.
        let (p, q) = match POWERS.get(bytes.len()) {
            Some(&pq) => pq,
            None => powers(bytes.len()),
        };
        Poly2 { h, p, g, q }
    }

    /// The pair `(key, check)` of `a ++ self` from `a`'s pair.
    #[inline]
    pub fn append_to(&self, a: (u64, u64)) -> (u64, u64) {
        (
            poly_concat(a.0, (self.h, self.p)),
            add31(mul31(a.1, self.q), self.g),
        )
    }

    /// The pair `(key, check)` of this string alone.
    #[inline]
    pub fn pair(&self) -> (u64, u64) {
        (self.h, self.g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poly2_composes_over_concatenation() {
        let text = b"U12:_x-1/Proceedings-of-the\xff\x00";
        let whole = Poly2::of(text).pair();
        for cut1 in 0..text.len() {
            for cut2 in cut1..text.len() {
                let a = Poly2::of(&text[..cut1]).pair();
                let ab = Poly2::of(&text[cut1..cut2]).append_to(a);
                assert_eq!(Poly2::of(&text[cut2..]).append_to(ab), whole);
            }
        }
        assert_eq!(Poly2::of(b""), Poly2::EMPTY);
        // The looked-up powers are those multiplied out byte by byte, past the table too.
        for n in 0..150 {
            let bytes: Vec<u8> = (0..n).map(|i| (i * 37 % 251) as u8).collect();
            let (mut p, mut q) = (1u64, 1u64);
            for _ in 0..n {
                p = p.wrapping_mul(POLY_B);
                q = mul31(q, B31);
            }
            let got = Poly2::of(&bytes);
            assert_eq!((got.h, got.p, got.q), (poly(&bytes).0, p, q), "{n}");
        }
        assert_ne!(Poly2::of(b"a").g, Poly2::of(b"b").g);
        // The Thue–Morse pair of length 2048 collides modulo 2^64 for any odd base; the prime
        // modulus tells them apart.
        let tm: Vec<u8> = (0u32..2048)
            .map(|i| b'a' + (i.count_ones() % 2) as u8)
            .collect();
        let inv: Vec<u8> = tm
            .iter()
            .map(|&c| if c == b'a' { b'b' } else { b'a' })
            .collect();
        assert_eq!(poly(&tm).0, poly(&inv).0);
        assert_ne!(Poly2::of(&tm).g, Poly2::of(&inv).g);
    }

    #[test]
    fn poly_hash_composes_over_concatenation() {
        let text = b"U12:_x-1/Proceedings-of-the";
        let whole = poly(text).0;
        for cut1 in 0..text.len() {
            for cut2 in cut1..text.len() {
                let h = poly_concat(poly(&text[..cut1]).0, poly(&text[cut1..cut2]));
                assert_eq!(poly_concat(h, poly(&text[cut2..])), whole);
            }
        }
        assert_ne!(poly(b"a").0, poly(b"a\0").0);
        assert_ne!(poly(b"U00:a").0, poly(b"U01:a").0);
    }
}
