/*!
The CRFsuite 0.12 binary model format ("lCRF", version 100), written from trained weights and
read back into Quire's in-memory tagging tables. `crfs` (and python-crfsuite) load the files
written here.

Layout (little-endian): a 48-byte header (magic, size, type "FOMC", version, counts, five chunk
offsets); the features chunk "FEAT" (type, source, destination, f64 weight: 20 bytes each);
the label and attribute dictionaries as CQDB databases; "LFRF" (per label, the ids of the
transition features leaving it; CRFsuite reserves two extra offset slots) and "AFRF" (per
attribute, the ids of its state features). Only non-zero features are written, and only the
attributes that keep at least one, so L1 pruning shrinks the file.
*/

use std::io::{Cursor, Write};

use super::fxhash::{FxHashMap, Poly2};

/// `Tables::dense_row` of an attribute that has no dense row.
pub(crate) const NO_DENSE_ROW: u32 = u32::MAX;

/// Marks a hash shared by several attributes in [`Tables::by_hash`].
pub(crate) const AMBIGUOUS: u32 = u32::MAX;
use crate::{Error, Result};

const HEADER_SIZE: usize = 48;
const CHUNK_HEADER: usize = 12;
const FEATURE_SIZE: usize = 20;

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn to_u32(v: usize, what: &str) -> Result<u32> {
    u32::try_from(v).map_err(|_| Error::General(format!("model too large: {what} = {v}")))
}

fn align4(out: &mut Vec<u8>) {
    while !out.len().is_multiple_of(4) {
        out.push(0);
    }
}

fn write_cqdb<'s>(out: &mut Vec<u8>, entries: impl Iterator<Item = (&'s str, u32)>) -> Result<()> {
    let start = out.len();
    let mut cur = Cursor::new(std::mem::take(out));
    cur.set_position(start as u64);
    {
        let mut w = cqdb::CQDBWriter::new(&mut cur)
            .map_err(|e| Error::General(format!("writing the CQDB dictionary: {e}")))?;
        for (s, id) in entries {
            w.put(s, id)
                .map_err(|e| Error::General(format!("writing the CQDB dictionary: {e}")))?;
        }
        // The writer finishes the database when dropped.
    }
    *out = cur.into_inner();
    Ok(())
}

/// Trained weights as [`write`] reads them: the state features of attribute `a` are
/// `attr_off[a]..attr_off[a + 1]`, each with its label in `feat_label` and its weight in `w`;
/// when `transitions`, the `labels.len()²` label-to-label weights follow them in `w` (row: the
/// label left, column: the label entered).
pub(crate) struct Weights<'a> {
    pub labels: &'a [String],
    pub attrs: &'a [String],
    pub attr_off: &'a [u32],
    pub feat_label: &'a [u32],
    pub transitions: bool,
    pub w: &'a [f64],
}

/// Serialise trained weights as a CRFsuite model.
pub(crate) fn write(weights: &Weights) -> Result<Vec<u8>> {
    let Weights {
        labels,
        attrs,
        attr_off,
        feat_label,
        transitions,
        w,
    } = *weights;
    let l = labels.len();
    let ns = feat_label.len();
    // Surviving state features per attribute, attributes renumbered densely.
    let mut attr_names: Vec<&str> = Vec::new();
    // (type, src, dst, weight)
    let mut features: Vec<(u32, u32, u32, f64)> = Vec::new();
    let mut attr_refs: Vec<Vec<u32>> = Vec::new();
    for (a, name) in attrs.iter().enumerate() {
        let r = attr_off[a] as usize..attr_off[a + 1] as usize;
        let mut refs = Vec::new();
        let new_a = attr_names.len() as u32;
        for (f, &y) in r.clone().zip(&feat_label[r]) {
            if w[f] != 0.0 {
                refs.push(features.len() as u32);
                features.push((0, new_a, y, w[f]));
            }
        }
        if !refs.is_empty() {
            attr_names.push(name);
            attr_refs.push(refs);
        }
    }
    let mut label_refs: Vec<Vec<u32>> = vec![Vec::new(); l];
    if transitions {
        for i in 0..l {
            for j in 0..l {
                let wt = w[ns + i * l + j];
                if wt != 0.0 {
                    label_refs[i].push(features.len() as u32);
                    features.push((1, i as u32, j as u32, wt));
                }
            }
        }
    }

    let mut out = Vec::with_capacity(HEADER_SIZE + features.len() * FEATURE_SIZE);
    out.resize(HEADER_SIZE, 0);
    let off_features = out.len();
    out.extend_from_slice(b"FEAT");
    put_u32(
        &mut out,
        to_u32(
            CHUNK_HEADER + features.len() * FEATURE_SIZE,
            "feature chunk",
        )?,
    );
    put_u32(&mut out, to_u32(features.len(), "features")?);
    for &(t, s, d, wt) in &features {
        put_u32(&mut out, t);
        put_u32(&mut out, s);
        put_u32(&mut out, d);
        out.extend_from_slice(&wt.to_le_bytes());
    }
    let off_labels = out.len();
    write_cqdb(
        &mut out,
        labels
            .iter()
            .enumerate()
            .map(|(i, s)| (s.as_str(), i as u32)),
    )?;
    let off_attrs = out.len();
    write_cqdb(
        &mut out,
        attr_names.iter().enumerate().map(|(i, s)| (*s, i as u32)),
    )?;
    align4(&mut out);
    let off_label_refs = out.len();
    write_refs(&mut out, b"LFRF", &label_refs, 2)?;
    align4(&mut out);
    let off_attr_refs = out.len();
    write_refs(&mut out, b"AFRF", &attr_refs, 0)?;

    let size = to_u32(out.len(), "file size")?;
    let mut header = Vec::with_capacity(HEADER_SIZE);
    header.extend_from_slice(b"lCRF");
    put_u32(&mut header, size);
    header.extend_from_slice(b"FOMC");
    put_u32(&mut header, 100);
    put_u32(&mut header, to_u32(features.len(), "features")?);
    put_u32(&mut header, to_u32(l, "labels")?);
    put_u32(&mut header, to_u32(attr_names.len(), "attributes")?);
    for off in [
        off_features,
        off_labels,
        off_attrs,
        off_label_refs,
        off_attr_refs,
    ] {
        put_u32(&mut header, to_u32(off, "offset")?);
    }
    out[..HEADER_SIZE].copy_from_slice(&header);
    Ok(out)
}

/// A reference chunk: magic, chunk size, count, offsets (absolute), then the id lists.
fn write_refs(out: &mut Vec<u8>, magic: &[u8; 4], lists: &[Vec<u32>], extra: usize) -> Result<()> {
    let start = out.len();
    let slots = lists.len() + extra;
    out.extend_from_slice(magic);
    put_u32(out, 0);
    put_u32(out, to_u32(slots, "references")?);
    let mut offset = start + CHUNK_HEADER + 4 * slots;
    for list in lists {
        put_u32(out, to_u32(offset, "offset")?);
        offset += 4 + 4 * list.len();
    }
    for _ in 0..extra {
        put_u32(out, 0);
    }
    for list in lists {
        put_u32(out, to_u32(list.len(), "references")?);
        for &id in list {
            put_u32(out, id);
        }
    }
    let size = to_u32(out.len() - start, "reference chunk")?;
    out[start + 4..start + 8].copy_from_slice(&size.to_le_bytes());
    Ok(())
}

/// One state feature: weight of `label` when the attribute is present.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct StateFeature {
    pub weight: f64,
    pub label: u32,
}

/// Weights of a CRFsuite model, arranged for Viterbi: per attribute a run of (label, weight).
#[derive(Debug, Clone)]
pub(crate) struct Tables {
    pub labels: Vec<String>,
    pub attr_ids: FxHashMap<String, u32>,
    /// `(attribute id, check)` by the key hash of the attribute's text (`fxhash::Poly2`: key
    /// modulo 2⁶⁴, check = the hash modulo 2³¹ − 1); the id is [`AMBIGUOUS`]
    /// where two attributes share a key (then `attr_ids` decides).
    pub by_hash: FxHashMap<u64, (u32, u32)>,
    pub attr_off: Vec<u32>,
    /// State features, attribute by attribute, label and weight side by side (one cache line
    /// serves a whole attribute of a pruned model).
    pub st: Vec<StateFeature>,
    /// Attributes with weights for many labels also get a dense row of `L` weights (zeros
    /// where the attribute has no feature): `dense[dense_row[a] * L..][..L]`, or
    /// [`NO_DENSE_ROW`] for a sparse attribute. Adding a dense row is a vector add.
    pub dense_row: Vec<u32>,
    pub dense: Vec<f64>,
    /// `trans[i * L + j]`: weight of label i followed by label j.
    pub trans: Vec<f64>,
}

fn read_u32(buf: &[u8], at: usize) -> Result<u32> {
    buf.get(at..at + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or_else(|| Error::General(format!("model file truncated at byte {at}")))
}

/// Parse a CRFsuite model into [`Tables`]. Errors are `Error::General` with the reason; the
/// caller adds the model's name.
pub(crate) fn read(buf: &[u8]) -> Result<Tables> {
    let bad = |why: &str| Error::General(format!("not a CRFsuite model: {why}"));
    if buf.len() < HEADER_SIZE || &buf[0..4] != b"lCRF" {
        return Err(bad("missing `lCRF` header"));
    }
    let num_features = read_u32(buf, 16)? as usize;
    let num_labels = read_u32(buf, 20)? as usize;
    let num_attrs = read_u32(buf, 24)? as usize;
    let off_features = read_u32(buf, 28)? as usize;
    let off_labels = read_u32(buf, 32)? as usize;
    let off_attrs = read_u32(buf, 36)? as usize;
    let cqdb_at = |off: usize| {
        buf.get(off..)
            .ok_or_else(|| bad("dictionary offset out of range"))
            .and_then(|b| cqdb::CQDB::new(b).map_err(|e| bad(&format!("dictionary: {e}"))))
    };
    let label_db = cqdb_at(off_labels)?;
    let mut labels = Vec::with_capacity(num_labels);
    for i in 0..num_labels {
        let s = label_db
            .to_str(i as u32)
            .ok_or_else(|| bad(&format!("label {i} missing")))?;
        labels.push(String::from_utf8_lossy(s).into_owned());
    }
    let attr_db = cqdb_at(off_attrs)?;
    let mut attr_ids = FxHashMap::default();
    attr_ids.reserve(num_attrs);
    let mut by_hash: FxHashMap<u64, (u32, u32)> = FxHashMap::default();
    by_hash.reserve(num_attrs);
    for i in 0..num_attrs {
        let s = attr_db
            .to_str(i as u32)
            .ok_or_else(|| bad(&format!("attribute {i} missing")))?;
        let name = String::from_utf8_lossy(s).into_owned();
        let (key, check) = Poly2::of(name.as_bytes()).pair();
        by_hash
            .entry(key)
            .and_modify(|v| v.0 = AMBIGUOUS)
            .or_insert((i as u32, check as u32));
        attr_ids.insert(name, i as u32);
    }
    let l = num_labels;
    let mut trans = vec![0.0; l * l];
    let mut state: Vec<(u32, u32, f64)> = Vec::with_capacity(num_features);
    let base = off_features + CHUNK_HEADER;
    for f in 0..num_features {
        let at = base + f * FEATURE_SIZE;
        let ty = read_u32(buf, at)?;
        let src = read_u32(buf, at + 4)? as usize;
        let dst = read_u32(buf, at + 8)? as usize;
        let wb = buf
            .get(at + 12..at + 20)
            .ok_or_else(|| bad("features truncated"))?;
        let mut w8 = [0u8; 8];
        w8.copy_from_slice(wb);
        let wt = f64::from_le_bytes(w8);
        if dst >= l {
            return Err(bad(&format!("feature {f} has label {dst} of {l}")));
        }
        match ty {
            0 if src < num_attrs => state.push((src as u32, dst as u32, wt)),
            1 if src < l => trans[src * l + dst] = wt,
            _ => return Err(bad(&format!("feature {f} is malformed"))),
        }
    }
    state.sort_by_key(|&(a, y, _)| (a, y));
    // One entry per (attribute, label), so a run of L entries covers every label once.
    state.dedup_by(|next, kept| {
        let same = next.0 == kept.0 && next.1 == kept.1;
        if same {
            kept.2 += next.2;
        }
        same
    });
    let mut attr_off = vec![0u32; num_attrs + 1];
    for &(a, _, _) in &state {
        attr_off[a as usize + 1] += 1;
    }
    for a in 0..num_attrs {
        attr_off[a + 1] += attr_off[a];
    }
    // Dense rows for attributes with weights for at least a quarter of the labels (and 4).
    let mut dense_row = vec![NO_DENSE_ROW; num_attrs];
    let mut dense = Vec::new();
    for a in 0..num_attrs {
        let (s, e) = (attr_off[a] as usize, attr_off[a + 1] as usize);
        if e - s >= (l / 4).max(4) {
            dense_row[a] = to_u32(dense.len() / l.max(1), "dense rows")?;
            let at = dense.len();
            dense.resize(at + l, 0.0);
            for &(_, y, w) in &state[s..e] {
                dense[at + y as usize] = w;
            }
        }
    }
    Ok(Tables {
        labels,
        attr_ids,
        by_hash,
        attr_off,
        st: state
            .iter()
            .map(|s| StateFeature {
                weight: s.2,
                label: s.1,
            })
            .collect(),
        dense_row,
        dense,
        trans,
    })
}

/// Write bytes to a file, creating parent folders.
pub(crate) fn write_file(path: &std::path::Path, bytes: &[u8]) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    let mut f = std::fs::File::create(path).map_err(|e| Error::io(path, e))?;
    f.write_all(bytes).map_err(|e| Error::io(path, e))
}
