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

/// A 64-bit hash fed in pieces: the result depends only on the concatenated bytes, not on
/// where the pieces split, so an attribute can be hashed straight from its template pieces.
#[derive(Clone, Copy, Default)]
pub struct StreamHash {
    h: u64,
    word: u64,
    n: u32,
    len: u64,
}

impl StreamHash {
    #[inline]
    fn mix(&mut self, w: u64) {
        self.h = (self.h.rotate_left(5) ^ w).wrapping_mul(SEED);
    }

    #[inline]
    pub fn write(&mut self, mut bytes: &[u8]) {
        self.len += bytes.len() as u64;
        if self.n == 0 {
            while bytes.len() >= 8 {
                let mut w = [0u8; 8];
                w.copy_from_slice(&bytes[..8]);
                self.mix(u64::from_le_bytes(w));
                bytes = &bytes[8..];
            }
        }
        for &b in bytes {
            self.word |= (b as u64) << (8 * self.n);
            self.n += 1;
            if self.n == 8 {
                let w = self.word;
                self.mix(w);
                self.word = 0;
                self.n = 0;
            }
        }
    }

    /// The hash, with a final avalanche so every output bit depends on every input bit.
    #[inline]
    pub fn finish(mut self) -> u64 {
        let (w, len) = (self.word, self.len);
        self.mix(w);
        self.mix(len);
        let mut h = self.h;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }

    pub fn of(bytes: &[u8]) -> u64 {
        let mut s = StreamHash::default();
        s.write(bytes);
        s.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_hash_ignores_piece_boundaries() {
        let text = b"U12:_x-1/Proceedings-of-the";
        let whole = StreamHash::of(text);
        for cut1 in 0..text.len() {
            for cut2 in cut1..text.len() {
                let mut s = StreamHash::default();
                s.write(&text[..cut1]);
                s.write(&text[cut1..cut2]);
                s.write(&text[cut2..]);
                assert_eq!(s.finish(), whole);
            }
        }
        assert_ne!(StreamHash::of(b"a"), StreamHash::of(b"a\0"));
        assert_ne!(StreamHash::of(b"U00:a"), StreamHash::of(b"U01:a"));
    }
}
