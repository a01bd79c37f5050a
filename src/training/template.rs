//! Building CRF++ feature templates from a compact list of column windows and conjunctions,
//! as the models' specs write them (training-time: tagging reads the template the model was
//! trained with from its folder).

use std::fmt::Write;

/// Two `(row offset, column)` observations joined into one feature.
pub type Conjunction = ((i32, usize), (i32, usize));

/// Three `(row offset, column)` observations joined into one feature.
pub type Triple = [(i32, usize); 3];

/// Build a CRF++ template: unigram windows per column, token-pair conjunctions, and `B`.
/// Every pattern gets its own id (`U<col>_<n>` / `UC<n>`), so no two patterns collide.
pub fn template(windows: &[(usize, &[i32])], conjunctions: &[Conjunction]) -> String {
    template_with_triples(windows, conjunctions, &[])
}

/// [`template`] with three-part conjunctions after the pairs (ids `UT<n>`).
pub fn template_with_triples(
    windows: &[(usize, &[i32])],
    conjunctions: &[Conjunction],
    triples: &[Triple],
) -> String {
    let mut t = String::new();
    for (col, offsets) in windows {
        for (n, r) in offsets.iter().enumerate() {
            let _ = writeln!(t, "U{col:02}_{n}:%x[{r},{col}]");
        }
    }
    for (n, ((r1, c1), (r2, c2))) in conjunctions.iter().enumerate() {
        let _ = writeln!(t, "UC{n}:%x[{r1},{c1}]/%x[{r2},{c2}]");
    }
    for (n, [(r1, c1), (r2, c2), (r3, c3)]) in triples.iter().enumerate() {
        let _ = writeln!(t, "UT{n}:%x[{r1},{c1}]/%x[{r2},{c2}]/%x[{r3},{c3}]");
    }
    t.push_str("B\n");
    t
}

/// Windows of a token column (0) and its lower-cased form (1) as most text models use them.
pub const TOKEN_WINDOW: &[i32] = &[-3, -2, -1, 0, 1, 2, 3];
pub const LOWER_WINDOW: &[i32] = &[-2, -1, 0, 1, 2];

/// GROBID's conjunctions over a token column (0): the token with its neighbours at -2..+2
/// pairwise, then column `flag` at the token with the next and the previous token's.
pub fn token_and_flag_conjunctions(flag: usize) -> Vec<Conjunction> {
    vec![
        ((-1, 0), (0, 0)),
        ((0, 0), (1, 0)),
        ((1, 0), (2, 0)),
        ((-2, 0), (-1, 0)),
        ((0, flag), (1, flag)),
        ((-1, flag), (0, flag)),
    ]
}

/// [`template`] for the text models that share GROBID's head (reference §4): the token and
/// lower-cased token windows, prefixes and suffixes (columns 2–9) at the token, columns 10–13
/// over [-1, +1], four token conjunctions and two capitalisation ones; each model's own
/// columns (`tail`) and conjunctions (`more`) follow.
pub fn shared_template(
    token: &[i32],
    lower: &[i32],
    tail: &[(usize, &[i32])],
    more: &[Conjunction],
) -> String {
    let mut windows: Vec<(usize, &[i32])> = vec![(0, token), (1, lower)];
    windows.extend((2..=9).map(|c| (c, &[0][..])));
    windows.extend((10..=13).map(|c| (c, &[-1, 0, 1][..])));
    windows.extend_from_slice(tail);
    let mut conjunctions = token_and_flag_conjunctions(11);
    conjunctions.extend_from_slice(more);
    template(&windows, &conjunctions)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_gives_distinct_ids() {
        let t = template(&[(0, &[-1, 0, 1]), (3, &[0])], &[((0, 0), (1, 0))]);
        assert_eq!(
            t,
            "U00_0:%x[-1,0]\nU00_1:%x[0,0]\nU00_2:%x[1,0]\nU03_0:%x[0,3]\nUC0:%x[0,0]/%x[1,0]\nB\n"
        );
    }
}
