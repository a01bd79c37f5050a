/*!
CRF++/Wapiti feature templates: parsing `U<id>:%x[r,c]` lines (with literal text and `/`-joined
conjunctions) and `B` lines, and expanding them over feature rows into attribute strings.

An attribute is the whole template line with every `%x[r,c]` replaced by column `c` of the row
at offset `r` (rows outside the sequence give Wapiti's padding symbols `_x-1`, `_x+1`, …). Two
lines with the same id that expand to the same string therefore give one attribute, as in
Wapiti. Expansion writes into a reused buffer ([`Template::expand_with`]) so the trainer and the
tagger intern or look up attributes without allocating a `String` per attribute.
*/

use super::fxhash::Poly2;
use crate::features::Row;
use crate::{Error, Result};

/// One piece of a unigram pattern: literal text or a `%x[row,col]` reference.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Literal(String),
    Cell { row: isize, col: usize },
}

/// A pattern piece for hashing: a literal's polynomial hashes, or a cell as (row offset, index
/// into [`Template::hash_cols`]).
#[derive(Debug, Clone, PartialEq, Eq)]
enum HashPiece {
    Literal(Poly2),
    Cell { row: isize, slot: usize },
}

/// A parsed template: unigram patterns, and whether label bigrams are on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    patterns: Vec<Vec<Piece>>,
    hashed: Vec<Vec<HashPiece>>,
    /// The distinct columns the patterns read, in increasing order.
    cols: Vec<usize>,
    bigram: bool,
    max_col: Option<usize>,
    /// Every pattern starts with a literal `<id>:` and no two ids are equal, so two patterns
    /// can never expand to the same attribute at one token (no duplicates to remove).
    distinct_ids: bool,
    text: String,
}

impl Template {
    /// Parse template text. Empty lines and `#` comments are skipped; `U…` lines are unigram
    /// patterns, a bare `B` line turns on label transitions. Observation-conditioned bigrams
    /// (`B<id>:%x[..]`) are refused: no GROBID template uses them and CRFsuite cannot store them.
    pub fn parse(text: &str) -> Result<Template> {
        let mut patterns = Vec::new();
        let mut bigram = false;
        let mut max_col: Option<usize> = None;
        for (n, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad =
                |why: &str| Error::BadInput(format!("template line {}: {why}: `{line}`", n + 1));
            match line.as_bytes()[0] {
                b'B' | b'b' => {
                    if line.len() == 1 {
                        bigram = true;
                    } else if line.contains("%x[") || line.contains("%X[") {
                        return Err(bad("observation bigrams are not supported"));
                    } else {
                        bigram = true;
                    }
                }
                b'U' | b'u' => {
                    let pieces = parse_pattern(line).map_err(|why| bad(&why))?;
                    for p in &pieces {
                        if let Piece::Cell { col, .. } = p {
                            max_col = Some(max_col.map_or(*col, |m| m.max(*col)));
                        }
                    }
                    patterns.push(pieces);
                }
                _ => return Err(bad("a line must start with `U` or `B`")),
            }
        }
        let mut cols: Vec<usize> = patterns
            .iter()
            .flatten()
            .filter_map(|p| match p {
                Piece::Cell { col, .. } => Some(*col),
                Piece::Literal(_) => None,
            })
            .collect();
        cols.sort_unstable();
        cols.dedup();
        let hashed = patterns
            .iter()
            .map(|pat| {
                pat.iter()
                    .map(|p| match p {
                        Piece::Literal(s) => HashPiece::Literal(Poly2::of(s.as_bytes())),
                        Piece::Cell { row, col } => HashPiece::Cell {
                            row: *row,
                            slot: cols.binary_search(col).unwrap_or(0),
                        },
                    })
                    .collect()
            })
            .collect();
        let mut ids = std::collections::HashSet::new();
        let distinct_ids = patterns.iter().all(|pat| match pat.first() {
            Some(Piece::Literal(l)) => l
                .split_once(':')
                .is_some_and(|(id, _)| ids.insert(id.to_string())),
            _ => false,
        });
        Ok(Template {
            patterns,
            hashed,
            cols,
            bigram,
            max_col,
            distinct_ids,
            text: text.to_string(),
        })
    }

    /// The text the template was parsed from (written to `template.txt`).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Number of unigram patterns (attributes per token, before collisions).
    pub fn len(&self) -> usize {
        self.patterns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// Whether no two patterns can expand to the same attribute at one token (every pattern
    /// opens with its own `<id>:`).
    pub fn distinct_ids(&self) -> bool {
        self.distinct_ids
    }

    /// Whether the template asks for label transitions (`B`).
    pub fn has_bigram(&self) -> bool {
        self.bigram
    }

    /// Check that every row has the columns the template reads.
    pub fn check_rows(&self, rows: &[Row]) -> Result<()> {
        if let Some(max) = self.max_col {
            if let Some((i, r)) = rows.iter().enumerate().find(|(_, r)| r.len() <= max) {
                return Err(Error::BadInput(format!(
                    "row {i} has {} columns; the template reads column {max}",
                    r.len()
                )));
            }
        }
        Ok(())
    }

    /// Attribute strings per token. A column missing from a row expands to an empty value
    /// (use [`Template::check_rows`] first to refuse such rows). Identical strings produced
    /// for one token are kept once (Wapiti's collisions).
    pub fn expand(&self, rows: &[Row]) -> Vec<Vec<String>> {
        let mut out: Vec<Vec<String>> = vec![Vec::new(); rows.len()];
        let mut buf = String::new();
        self.expand_with(rows, &mut buf, |t, attr| {
            let list = &mut out[t];
            if !list.iter().any(|a| a == attr) {
                list.push(attr.to_string());
            }
        });
        out
    }

    /// Expand every pattern at every token, calling `sink(token, attribute)` with the attribute
    /// held in `buf`. Duplicates within a token are not removed here.
    pub fn expand_with(&self, rows: &[Row], buf: &mut String, mut sink: impl FnMut(usize, &str)) {
        let n = rows.len() as isize;
        for t in 0..rows.len() {
            for pat in &self.patterns {
                buf.clear();
                for piece in pat {
                    match piece {
                        Piece::Literal(s) => buf.push_str(s),
                        Piece::Cell { row, col } => {
                            let at = t as isize + row;
                            if at < 0 {
                                push_pad(buf, '-', -at);
                            } else if at >= n {
                                push_pad(buf, '+', at - n + 1);
                            } else if let Some(v) = rows[at as usize].get(*col) {
                                buf.push_str(v);
                            }
                        }
                    }
                }
                sink(t, buf);
            }
        }
    }
}

impl Template {
    /// The distinct columns the patterns read (the layout of `cells` in [`Template::hash_at`]).
    pub(crate) fn hash_cols(&self) -> &[usize] {
        &self.cols
    }

    /// The `(key, check)` hashes (see `fxhash::Poly2`) of pattern `p` expanded at token `t` of
    /// a sequence of `n` rows, from `cells[row * hash_cols().len() + slot]` = `Poly2::of(value)`.
    #[inline(always)]
    pub(crate) fn hash_at(&self, n: usize, t: usize, p: usize, cells: &[Poly2]) -> (u64, u64) {
        let k = self.cols.len();
        let mut h = (0u64, 0u64);
        let Some(pat) = self.hashed.get(p) else {
            return h;
        };
        for piece in pat {
            h = match piece {
                HashPiece::Literal(lp) => lp.append_to(h),
                HashPiece::Cell { row, slot } => {
                    let at = t as isize + row;
                    if at < 0 || at >= n as isize {
                        let mut pad = [0u8; 24];
                        let len = pad_bytes(&mut pad, at, n as isize);
                        Poly2::of(&pad[..len]).append_to(h)
                    } else {
                        cells
                            .get(at as usize * k + slot)
                            .unwrap_or(&Poly2::EMPTY)
                            .append_to(h)
                    }
                }
            };
        }
        h
    }

    /// Feed the bytes of pattern `p` expanded at token `t` to `f`, piece by piece (literal
    /// text, cell values, padding symbols), without building the string.
    #[inline]
    pub(crate) fn pieces(&self, rows: &[Row], t: usize, p: usize, mut f: impl FnMut(&[u8])) {
        let n = rows.len() as isize;
        let Some(pat) = self.patterns.get(p) else {
            return;
        };
        for piece in pat {
            match piece {
                Piece::Literal(s) => f(s.as_bytes()),
                Piece::Cell { row, col } => {
                    let at = t as isize + row;
                    if at < 0 || at >= n {
                        let mut pad = [0u8; 24];
                        let len = pad_bytes(&mut pad, at, n);
                        f(&pad[..len]);
                    } else if let Some(v) = rows.get(at as usize).and_then(|r| r.get(*col)) {
                        f(v.as_bytes());
                    }
                }
            }
        }
    }
}

/// Wapiti's padding symbol for row `at` of a sequence of `n` rows (`_x-1`, `_x+2`, …) into
/// `out`; returns its length.
fn pad_bytes(out: &mut [u8; 24], at: isize, n: isize) -> usize {
    let (sign, k) = if at < 0 {
        (b'-', -at)
    } else {
        (b'+', at - n + 1)
    };
    out[..3].copy_from_slice(&[b'_', b'x', sign]);
    let mut digits = [0u8; 20];
    let mut d = 0;
    let mut k = k.unsigned_abs();
    loop {
        digits[d] = b'0' + (k % 10) as u8;
        d += 1;
        k /= 10;
        if k == 0 {
            break;
        }
    }
    for i in 0..d {
        out[3 + i] = digits[d - 1 - i];
    }
    3 + d
}

fn push_pad(buf: &mut String, sign: char, k: isize) {
    const DIGITS: [&str; 10] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"];
    buf.push_str("_x");
    buf.push(sign);
    match usize::try_from(k).ok().and_then(|k| DIGITS.get(k)) {
        // Offsets in templates are small; avoid the formatting machinery for them.
        Some(d) => buf.push_str(d),
        None => {
            use std::fmt::Write;
            let _ = write!(buf, "{k}");
        }
    }
}

fn parse_pattern(line: &str) -> std::result::Result<Vec<Piece>, String> {
    let mut pieces = Vec::new();
    let mut lit = String::new();
    let mut rest = line;
    while let Some(pos) = rest.find('%') {
        lit.push_str(&rest[..pos]);
        let after = &rest[pos + 1..];
        if let Some(stripped) = after.strip_prefix("x[") {
            let close = stripped
                .find(']')
                .ok_or_else(|| "unclosed `%x[`".to_string())?;
            let (r, c) = stripped[..close]
                .split_once(',')
                .ok_or_else(|| "expected `%x[row,col]`".to_string())?;
            let row: isize = r
                .trim()
                .parse()
                .map_err(|_| format!("bad row offset `{r}`"))?;
            let col: usize = c.trim().parse().map_err(|_| format!("bad column `{c}`"))?;
            if !lit.is_empty() {
                pieces.push(Piece::Literal(std::mem::take(&mut lit)));
            }
            pieces.push(Piece::Cell { row, col });
            rest = &stripped[close + 1..];
        } else {
            return Err("only `%x[row,col]` references are supported".to_string());
        }
    }
    lit.push_str(rest);
    if !lit.is_empty() {
        pieces.push(Piece::Literal(lit));
    }
    Ok(pieces)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::Rows;

    fn rows(toks: &[&[&str]]) -> Rows {
        toks.iter()
            .map(|r| r.iter().map(|s| (*s).into()).collect())
            .collect()
    }

    #[test]
    fn expands_offsets_with_wapiti_padding() {
        let t =
            Template::parse("# comment\nU00:%x[-2,0]\nU01:%x[0,1]\n\nU02:%x[+1,0]\nB\n").unwrap();
        assert!(t.has_bigram());
        assert_eq!(t.len(), 3);
        let r = rows(&[&["Paris", "Xx"], &["1999", "dddd"]]);
        let out = t.expand(&r);
        assert_eq!(out[0], vec!["U00:_x-2", "U01:Xx", "U02:1999"]);
        assert_eq!(out[1], vec!["U00:_x-1", "U01:dddd", "U02:_x+1"]);
    }

    #[test]
    fn conjunctions_join_values_with_literal_text() {
        let t = Template::parse("U10:%x[-1,0]/%x[0,0]\nU11:%x[0,0]/%x[0,1]/%x[2,1]").unwrap();
        let out = t.expand(&rows(&[&["a", "x"], &["b", "y"]]));
        assert_eq!(out[0], vec!["U10:_x-1/a", "U11:a/x/_x+1"]);
        assert_eq!(out[1], vec!["U10:a/b", "U11:b/y/_x+2"]);
    }

    #[test]
    fn same_id_and_value_collide_into_one_attribute() {
        // Columns 0 and 1 under the same id: equal values give one attribute.
        let t = Template::parse("U00:%x[0,0]\nU00:%x[0,1]\nU01:%x[0,1]").unwrap();
        let out = t.expand(&rows(&[&["same", "same"], &["a", "b"]]));
        assert_eq!(out[0], vec!["U00:same", "U01:same"]);
        assert_eq!(out[1], vec!["U00:a", "U00:b", "U01:b"]);
    }

    #[test]
    fn bad_lines_are_refused_with_their_number() {
        let err = Template::parse("U00:%x[0,0]\nU01:%x[zero,0]").unwrap_err();
        assert!(err.to_string().contains("line 2"), "{err}");
        assert!(Template::parse("B01:%x[0,0]").is_err());
        assert!(Template::parse("X00:%x[0,0]").is_err());
        assert!(Template::parse("U00:%x[0,0").is_err());
    }

    #[test]
    fn distinct_ids_are_detected() {
        assert!(
            Template::parse("U0:%x[0,0]\nU01:%x[0,1]\nU1:%x[-1,0]/%x[0,0]\nB")
                .unwrap()
                .distinct_ids()
        );
        // The same id twice, or a pattern without `<id>:`, may repeat an attribute.
        assert!(!Template::parse("U0:%x[0,0]\nU0:%x[0,1]")
            .unwrap()
            .distinct_ids());
        assert!(!Template::parse("U0:%x[0,0]\nU%x[0,1]")
            .unwrap()
            .distinct_ids());
    }

    #[test]
    fn pieces_spell_the_same_attributes_as_expand() {
        let t =
            Template::parse("U00:%x[-12,0]\nU01:%x[0,1]/%x[3,0]x\nU02:lit\nU03:%x[1,0]").unwrap();
        let r = rows(&[&["a", "x"], &["b", "y"], &["c", "z"]]);
        let mut buf = String::new();
        let mut expanded = Vec::new();
        t.expand_with(&r, &mut buf, |_, a| expanded.push(a.to_string()));
        let mut pieced = Vec::new();
        for tok in 0..r.len() {
            for p in 0..t.len() {
                let mut bytes = Vec::new();
                t.pieces(&r, tok, p, |b| bytes.extend_from_slice(b));
                pieced.push(String::from_utf8(bytes).unwrap());
            }
        }
        assert_eq!(pieced, expanded);
        // Hashes combined from cell hashes equal the hash of the expanded text.
        let cells: Vec<Poly2> = r
            .iter()
            .flat_map(|row| t.hash_cols().iter().map(|&c| Poly2::of(row[c].as_bytes())))
            .collect();
        let mut k = 0;
        for tok in 0..r.len() {
            for p in 0..t.len() {
                assert_eq!(
                    t.hash_at(r.len(), tok, p, &cells),
                    Poly2::of(expanded[k].as_bytes()).pair()
                );
                k += 1;
            }
        }
        assert_eq!(expanded[0], "U00:_x-12");
        assert_eq!(expanded[1], "U01:x/_x+1x");
    }

    #[test]
    fn short_rows_are_reported() {
        let t = Template::parse("U00:%x[0,2]").unwrap();
        let err = t.check_rows(&rows(&[&["a", "b"]])).unwrap_err();
        assert!(err.to_string().contains("column 2"), "{err}");
        assert!(t.check_rows(&rows(&[&["a", "b", "c"]])).is_ok());
    }
}
