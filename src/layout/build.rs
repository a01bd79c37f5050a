/*!
From pdfium's characters to GROBID's layout: words, lines, blocks, tokens.

The rules follow what GROBID's models were trained on (pdfalto, itself built on xpdf's text
extraction), measured against pdfalto 0.6.3 with `bench/layout_parity`:

- **Words** (pdfalto `String`s) are runs of characters in content-stream order, broken at a
  space glyph, a gap wider than 0.1 × font size, a jump back of 0.3 × size, or a baseline shift
  over 1 pt; never at a change of font or size (a word takes its first character's style), and
  never next to a spacing accent, which is composed with the letter it sits on. Glyphs without
  Unicode keep their place but add no text; a word drawn twice at the same place (fake bold)
  is kept once. Every word boundary becomes a `" "` in GROBID's token stream, except after a
  word ending in `-`.
- **Lines** are runs of words (stream order) whose baselines differ by at most half the font
  size (super/subscripts), with gaps up to `MAX_WORD_GAP` × size; a jump back of 0.3 × size
  starts a new line.
- **Blocks** are runs of lines (stream order) going down the page with a regular line pitch
  (≤ `MAX_LINE_PITCH` × size), overlapping horizontally, in the same font size (± 5 %); lines
  beside or over the previous one (table cells, stacked scripts, labels) stay in its block.
- **Reading order** is content-stream order, as pdfalto's is (it does not reorder): producers
  draw columns, headers and footers in their logical order far more often than not.
- **Rotated text** is handled in its own frame: words and lines are built along the text's
  direction, so a vertical arXiv stamp becomes one rotated line instead of one line per glyph.
- **Tokens** are GROBID tokens: each word's text is normalised and cleaned (ligatures, quotes,
  bullets: grobid-models.md §1.2) and split by `crate::tokenizer`; sub-tokens share the word's
  box proportionally to their length, as GROBID does.
*/

use super::pdfium::{RawChar, RawPage, RawStyle};
use super::{BBox, Block, Document, Line, Page, Token};
use crate::tokenizer;
use crate::{Error, Result};

/// A word breaks when the gap to the next glyph exceeds this fraction of the font size.
const WORD_BREAK_GAP: f32 = 0.1;
/// Where pdfium generated a space, any gap over this fraction of the font size breaks the
/// word: loose boxes of overhanging glyphs (`f`) eat into real inter-word gaps, so the 0.1 rule
/// alone glues `of Psychology` (token parity with pdfalto 99.19 % → 99.28 %).
const GENERATED_SPACE_GAP: f32 = 0.0;
/// How many finished words back an accent drawn out of order may find its letter.
const STRAY_ACCENT_WORDS: usize = 6;
/// A glyph this far behind the previous one (fraction of size) starts a new word.
const WORD_BACKWARD: f32 = 0.3;
/// A word drawn this far (× font size) behind the previous one starts a new line, as in
/// pdfalto (a subscript stacked under a superscript, labels placed right to left).
const LINE_BACKWARD: f32 = 0.3;
/// A word joins a line only if the gap is at most this many times the font size.
const MAX_WORD_GAP: f32 = 1.5;
/// Baselines of one line may differ by this fraction of the size (super/subscripts).
const MAX_INTRA_LINE_DELTA: f32 = 0.5;
/// Baseline-to-baseline distance allowed inside a block, as a multiple of the font size.
const MAX_LINE_PITCH: f32 = 1.5;
/// A line on the previous line's baseline joins its block if no further than this many times
/// the font size to its side.
const BESIDE_GAP: f32 = 25.0;
/// Relative font-size difference allowed between the lines of one block.
const BLOCK_SIZE_DELTA: f32 = 0.05;

/// Letter-spaced capitals (`join_letter_spaced`): pieces of at most this many letters,
const TRACKED_MAX_PIECE: usize = 4;
/// at least this many of them single letters,
const TRACKED_MIN_LETTERS: usize = 4;
/// no further apart than this fraction of the size;
const TRACKED_MAX_GAP: f32 = 0.8;
/// a gap this much wider than the run's narrowest one is a word space.
const TRACKED_SPACE: f32 = 0.12;
/// Capital words no further apart than this fraction of the size are pieces of one word that
/// the PDF broke at irregular places (`DISC USS I ON`, `INTRODUCTIO N`, `RES ULTS`): word
/// spaces are wider than this even in condensed type.
const TRACKED_TIGHT_GAP: f32 = 0.15;

/// Document limits (GROBID's `blocksMax`, `tokensMax`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Limits {
    pub blocks_max: usize,
    pub tokens_max: usize,
    /// Most tokens on one page (`limits.page_tokens_max`): a page of a million glyphs is
    /// refused before it reaches the server.
    pub page_tokens_max: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            blocks_max: 200_000,
            tokens_max: 1_000_000,
            page_tokens_max: 30_000,
        }
    }
}

impl From<&crate::EngineConfig> for Limits {
    fn from(c: &crate::EngineConfig) -> Self {
        Limits {
            blocks_max: c.blocks_max,
            tokens_max: c.tokens_max,
            page_tokens_max: c.page_tokens_max,
        }
    }
}

/// Lay out every page and check the document against `limits`.
pub fn build_document(raw: &[RawPage], limits: Limits) -> Result<Document> {
    let pages: Vec<Page> = raw.iter().map(build_page).collect();
    let doc = Document { pages };
    let blocks = doc.block_count();
    if blocks == 0 {
        return Err(Error::NoBlocks);
    }
    if blocks > limits.blocks_max {
        return Err(Error::TooManyBlocks {
            blocks,
            limit: limits.blocks_max,
        });
    }
    for (i, page) in doc.pages.iter().enumerate() {
        let tokens: usize = page
            .blocks
            .iter()
            .flat_map(|b| b.lines.iter())
            .map(|l| l.tokens.len())
            .sum();
        if tokens > limits.page_tokens_max {
            return Err(Error::TooManyPageTokens {
                page: raw.get(i).map_or(i as u32 + 1, |p| p.number),
                tokens,
                limit: limits.page_tokens_max,
            });
        }
    }
    let tokens = doc.token_count();
    if tokens > limits.tokens_max {
        return Err(Error::TooManyTokens {
            tokens,
            limit: limits.tokens_max,
        });
    }
    Ok(doc)
}

/// A glyph placed in its text's own frame: `u` runs along the baseline, `v` across it
/// (growing towards the following lines).
#[derive(Debug, Clone, Copy)]
struct Glyph {
    idx: usize,
    u0: f32,
    u1: f32,
    base: f32,
    size: f32,
}

#[derive(Debug, Clone)]
struct Word {
    glyphs: Vec<Glyph>,
    /// The word's text: unmapped glyphs dropped, accents composed.
    text: String,
    /// Per glyph, the index (in characters) of the character of `text` it gave, if any.
    text_of: Vec<Option<usize>>,
    style: u32,
    rot: f32,
    u0: f32,
    u1: f32,
    base: f32,
    size: f32,
}

impl Word {
    fn new(g: Glyph, style: u32, rot: f32) -> Word {
        Word {
            glyphs: vec![g],
            text: String::new(),
            text_of: vec![None],
            style,
            rot,
            u0: g.u0,
            u1: g.u1,
            base: g.base,
            size: g.size,
        }
    }
    fn push(&mut self, g: Glyph) {
        self.u0 = self.u0.min(g.u0);
        self.u1 = self.u1.max(g.u1);
        self.glyphs.push(g);
        self.text_of.push(None);
    }
    /// Record that the last glyph gave the last character of `text`.
    fn mark_last_char(&mut self) {
        let n = self.text.chars().count();
        if let (Some(slot), true) = (self.text_of.last_mut(), n > 0) {
            *slot = Some(n - 1);
        }
    }
    /// Put the accent `mark` drawn as glyph `g` on the letter of this word it sits on (more
    /// than half of the narrower glyph's width over it, same baseline): true when composed.
    fn place_mark(&mut self, g: &Glyph, mark: char, rot: f32, raw: &RawPage) -> bool {
        let size = g.size.max(0.1);
        if self.rot != rot || (self.base - g.base).abs() > 0.5 * size {
            return false;
        }
        let Some(k) = (0..self.glyphs.len()).rev().find(|&k| {
            overlap_ratio(g, &self.glyphs[k]) > 0.5
                && raw.chars[self.glyphs[k].idx].c.is_alphabetic()
                && self.text_of[k].is_some()
        }) else {
            return false;
        };
        let at = self.text_of[k].expect("checked");
        let mut chars: Vec<char> = self.text.chars().collect();
        let Some(&c) = chars.get(at) else {
            return false;
        };
        let composed = compose(c, mark);
        if composed == c {
            return false;
        }
        chars[at] = composed;
        self.text = chars.into_iter().collect();
        true
    }
    fn len(&self) -> usize {
        self.glyphs.len()
    }
}

#[derive(Debug, Clone)]
struct LineAcc {
    words: Vec<Word>,
    rot: f32,
    u0: f32,
    u1: f32,
    /// Baseline and size of the line's main text (its largest-size words).
    base: f32,
    size: f32,
    main_len: usize,
}

impl LineAcc {
    fn new(w: Word) -> LineAcc {
        LineAcc {
            rot: w.rot,
            u0: w.u0,
            u1: w.u1,
            base: w.base,
            size: w.size,
            main_len: w.len(),
            words: vec![w],
        }
    }

    fn accepts(&self, w: &Word) -> bool {
        if w.rot != self.rot {
            return false;
        }
        let last = self.words.last().expect("a line holds a word");
        let size = self.size.max(w.size).max(0.1);
        let gap = w.u0 - last.u1;
        if gap < -LINE_BACKWARD * size || gap > MAX_WORD_GAP * size {
            return false;
        }
        (w.base - self.base).abs() <= MAX_INTRA_LINE_DELTA * size
            || (w.base - last.base).abs() <= 0.1 * size
    }

    fn push(&mut self, w: Word) {
        self.u0 = self.u0.min(w.u0);
        self.u1 = self.u1.max(w.u1);
        let bigger = w.size > self.size * 1.05;
        let same = (w.size - self.size).abs() <= self.size * 0.05;
        if bigger || (same && w.len() > self.main_len) {
            self.base = w.base;
            self.size = w.size;
            self.main_len = w.len();
        }
        self.words.push(w);
    }
}

/// Lay out one page.
pub fn build_page(raw: &RawPage) -> Page {
    let words = build_words(raw);
    let mut lines = build_lines(words);
    for l in &mut lines {
        join_letter_spaced(&mut l.words);
    }
    let blocks = build_blocks(lines);
    let blocks = blocks
        .into_iter()
        .map(|ls| to_block(raw, ls))
        .filter(|b| !b.lines.is_empty())
        .collect();
    Page {
        number: raw.number,
        width: raw.width,
        height: raw.height,
        blocks,
        images: raw.images.clone(),
        vectors: raw.vectors.clone(),
        links: raw.links.clone(),
    }
}

/// The text's frame for a counter-clockwise rotation `rot` (degrees): unit vectors along the
/// baseline and towards the next line, in page space (y down).
fn frame(rot: f32) -> ((f32, f32), (f32, f32)) {
    let (s, c) = rot.to_radians().sin_cos();
    ((c, -s), (s, c))
}

fn glyph(idx: usize, ch: &RawChar, style: &RawStyle) -> Glyph {
    if style.rotation == 0.0 {
        return Glyph {
            idx,
            u0: ch.x0,
            u1: ch.x1,
            base: ch.oy,
            size: style.size,
        };
    }
    let (d, n) = frame(style.rotation);
    let corners = [
        (ch.x0, ch.y0),
        (ch.x0, ch.y1),
        (ch.x1, ch.y0),
        (ch.x1, ch.y1),
    ];
    let us = corners.map(|(x, y)| x * d.0 + y * d.1);
    Glyph {
        idx,
        u0: us.iter().copied().fold(f32::INFINITY, f32::min),
        u1: us.iter().copied().fold(f32::NEG_INFINITY, f32::max),
        base: ch.ox * n.0 + ch.oy * n.1,
        size: style.size,
    }
}

/// The combining mark of a spacing accent, for the accents pdfalto composes with the letter
/// they sit on (so `´` drawn over `e` reads `é`, and a `\vec` arrow or tilde disappears).
fn combining_of(c: char) -> Option<char> {
    Some(match c {
        '`' | '\u{02CB}' | '\u{0300}' | '\u{0340}' => '\u{0300}',
        '\u{00B4}' | '\u{02CA}' | '\u{0301}' | '\u{0341}' => '\u{0301}',
        '^' | '\u{02C6}' | '\u{0302}' => '\u{0302}',
        '~' | '\u{02DC}' | '\u{0303}' => '\u{0303}',
        '\u{00AF}' | '\u{02C9}' | '\u{0304}' => '\u{0304}',
        '\u{02D8}' | '\u{0306}' => '\u{0306}',
        '\u{02D9}' | '\u{0307}' => '\u{0307}',
        '\u{00A8}' | '\u{0308}' => '\u{0308}',
        '\u{02DA}' | '\u{030A}' => '\u{030A}',
        '\u{02DD}' | '\u{030B}' => '\u{030B}',
        '\u{02C7}' | '\u{030C}' => '\u{030C}',
        '\u{00B8}' | '\u{0327}' => '\u{0327}',
        '\u{02DB}' | '\u{0328}' => '\u{0328}',
        _ => return None,
    })
}

/// `base` with the accent `mark` on it: the precomposed letter when Unicode has one, else the
/// bare letter (as pdfalto keeps only the first character of the composition).
fn compose(base: char, mark: char) -> char {
    use unicode_normalization::UnicodeNormalization;
    // Dotless letters carry accents in TeX fonts: `ı` + `^` is `î`.
    let base = match base {
        'ı' => 'i',
        'ȷ' => 'j',
        c => c,
    };
    let s: String = [base, mark].iter().collect::<String>().nfc().collect();
    let mut it = s.chars();
    match (it.next(), it.next()) {
        (Some(c), None) => c,
        _ => base,
    }
}

/// Characters pdfium could not map to Unicode (glyphs of fonts without a usable encoding):
/// they keep their place in a word but add no text, as in pdfalto.
fn unmapped(c: char) -> bool {
    (c < ' ' && c != '\t') || c == '\u{FFFD}' || c == '\u{FEFF}'
}

fn overlap_ratio(a: &Glyph, b: &Glyph) -> f32 {
    let inter = a.u1.min(b.u1) - a.u0.max(b.u0);
    let w = (a.u1 - a.u0).min(b.u1 - b.u0).max(0.01);
    inter / w
}

fn build_words(raw: &RawPage) -> Vec<Word> {
    let mut words: Vec<Word> = Vec::new();
    let mut cur: Option<Word> = None;
    for (idx, ch) in raw.chars.iter().enumerate() {
        let Some(style) = raw.styles.get(ch.style as usize) else {
            continue;
        };
        if ch.c.is_whitespace() {
            if let Some(w) = cur.take() {
                words.push(w);
            }
            continue;
        }
        let g = glyph(idx, ch, style);
        if let Some(w) = cur.as_mut() {
            let last = *w.glyphs.last().expect("a word holds a glyph");
            let prev = &raw.chars[last.idx];
            // One glyph that pdfium expanded into several characters (ligatures).
            let same_glyph = prev.x0 == ch.x0 && prev.x1 == ch.x1 && prev.oy == ch.oy;
            let prev_mod = combining_of(prev.c).is_some();
            let this_mod = combining_of(ch.c).is_some();
            let size = w.size.max(0.1);
            let gap = g.u0 - w.u1;
            let joins = w.rot == style.rotation
                && (same_glyph
                    || prev_mod
                    || this_mod
                    || ((g.base - w.base).abs() <= 1.0
                        && gap <= WORD_BREAK_GAP * size
                        && !(ch.space_before && gap > GENERATED_SPACE_GAP * size)
                        && gap >= -WORD_BACKWARD * size));
            if joins {
                // An accent over its letter (either order) becomes one character.
                if this_mod && overlap_ratio(&g, &last) > 0.5 && !prev_mod {
                    let mark = combining_of(ch.c).expect("checked");
                    if let Some(c) = w.text.pop() {
                        w.text.push(compose(c, mark));
                    }
                    w.push(g);
                    continue;
                }
                if prev_mod && overlap_ratio(&g, &last) > 0.5 && !this_mod {
                    let mark = combining_of(prev.c).expect("checked");
                    w.text.pop();
                    w.text.push(compose(ch.c, mark));
                    w.push(g);
                    w.mark_last_char();
                    continue;
                }
                // An accent drawn after the letters that follow its own (TeX puts some
                // accents after the rest of the word, or after the next word): back over a
                // letter of this word or of one of the last words of its line, it goes on
                // that letter instead of starting a `´B` token here.
                if this_mod && !prev_mod && g.u1 <= last.u0 + 0.5 * (last.u1 - last.u0) {
                    let mark = combining_of(ch.c).expect("checked");
                    let rot = style.rotation;
                    if w.place_mark(&g, mark, rot, raw)
                        || words
                            .iter_mut()
                            .rev()
                            .take(STRAY_ACCENT_WORDS)
                            .any(|o| o.place_mark(&g, mark, rot, raw))
                    {
                        continue;
                    }
                }
                if !unmapped(ch.c) {
                    w.text.push(ch.c);
                    w.push(g);
                    w.mark_last_char();
                } else {
                    w.push(g);
                }
                continue;
            }
            words.push(cur.take().expect("checked above"));
        }
        // The same for an accent drawn out of order after a space.
        if let Some(mark) = combining_of(ch.c) {
            let rot = style.rotation;
            if words
                .iter_mut()
                .rev()
                .take(STRAY_ACCENT_WORDS)
                .any(|o| o.place_mark(&g, mark, rot, raw))
            {
                continue;
            }
        }
        let mut w = Word::new(g, ch.style, style.rotation);
        if !unmapped(ch.c) {
            w.text.push(ch.c);
            w.mark_last_char();
        }
        cur = Some(w);
    }
    if let Some(w) = cur {
        words.push(w);
    }
    dedup_words(words)
}

/// Letter-spaced capitals ("F I G U R E", "R E V I E W  A R T I C L E", Wiley's and
/// Frontiers' headings) come out of the gap rule as one word per letter, or per kerned pair:
/// the tracking is wider than the 0.1 × size break. Within a line, a run of at least
/// `TRACKED_MIN_LETTERS` single capitals among short all-capital words of one style, no more
/// than `TRACKED_MAX_GAP` × size apart, is rejoined: its narrowest gap is the tracking, and a
/// gap wider than that by `TRACKED_SPACE` × size is a real word space. Runs with fewer single
/// letters (acronym lists, "A B C" in prose) are left alone.
fn join_letter_spaced(words: &mut Vec<Word>) {
    let runs = letter_spaced_runs(words);
    if runs.is_empty() {
        return;
    }
    // Words move, none is copied: a word inside a run joins the previous one unless the gap
    // between them is a word space.
    let mut runs = runs.into_iter().peekable();
    let mut out: Vec<Word> = Vec::with_capacity(words.len());
    for (k, w) in std::mem::take(words).into_iter().enumerate() {
        while runs.peek().is_some_and(|(r, _)| r.end <= k) {
            runs.next();
        }
        let space = runs
            .peek()
            .filter(|(r, _)| r.start < k)
            .map(|&(_, space)| space);
        match (space, out.last_mut()) {
            (Some(space), Some(last)) if w.u0 - last.u1 <= space => {
                last.text.push_str(&w.text);
                for g in w.glyphs {
                    last.push(g);
                }
            }
            _ => out.push(w),
        }
    }
    *words = out;
}

/// The letter-spaced runs of a line (`join_letter_spaced`), each with the narrowest gap over
/// which its words still join (its tracking plus `TRACKED_SPACE` × size).
fn letter_spaced_runs(words: &[Word]) -> Vec<(std::ops::Range<usize>, f32)> {
    let capital_piece = |w: &Word| {
        let n = w.text.chars().count();
        (1..=TRACKED_MAX_PIECE).contains(&n) && w.text.chars().all(|c| c.is_uppercase())
    };
    let mut runs = Vec::new();
    let mut i = 0;
    while i < words.len() {
        // The run starting at i: capital pieces of one style, size and baseline, close together.
        let mut j = i;
        if capital_piece(&words[i]) {
            j = i + 1;
            while j < words.len()
                && capital_piece(&words[j])
                && runs_on(&words[j - 1], &words[j], TRACKED_MAX_GAP)
            {
                j += 1;
            }
        }
        let singles = words[i..j.max(i)]
            .iter()
            .filter(|w| w.text.chars().count() == 1)
            .count();
        if j <= i + 1 || singles < TRACKED_MIN_LETTERS {
            i += 1;
            continue;
        }
        let tracking = words[i..j]
            .windows(2)
            .map(|p| p[1].u0 - p[0].u1)
            .fold(f32::INFINITY, f32::min);
        runs.push((i..j, tracking + TRACKED_SPACE * words[i].size.max(0.1)));
        i = j;
    }
    // Runs of capital words of any length set closer than a word space, outside the
    // letter-spaced runs: every gap in them joins.
    let capital = |w: &Word| {
        w.text.chars().any(char::is_alphabetic) && w.text.chars().all(|c| c.is_uppercase())
    };
    let taken = |k: usize| runs.iter().any(|(r, _)| r.contains(&k));
    let mut tight = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let mut j = i + 1;
        if !taken(i) && capital(&words[i]) {
            while j < words.len()
                && !taken(j)
                && capital(&words[j])
                && runs_on(&words[j - 1], &words[j], TRACKED_TIGHT_GAP)
            {
                j += 1;
            }
        }
        if j > i + 1 {
            tight.push((i..j, TRACKED_TIGHT_GAP * words[i].size.max(0.1)));
        }
        i = j;
    }
    runs.extend(tight);
    runs.sort_by_key(|(r, _)| r.start);
    runs
}

/// Whether word `b` goes on a run of capitals ending with `a`: same style, rotation, size and
/// baseline, at most `max_gap` × the size after it (a slight overlap allowed).
fn runs_on(a: &Word, b: &Word, max_gap: f32) -> bool {
    let size = a.size.max(0.1);
    let gap = b.u0 - a.u1;
    b.style == a.style
        && b.rot == a.rot
        && (b.size - a.size).abs() <= 0.05 * size
        && (b.base - a.base).abs() <= 0.1 * size
        && (-0.05 * size..=max_gap * size).contains(&gap)
}

/// Drop words drawn twice at (almost) the same place: fake bold and drop shadows.
fn dedup_words(words: Vec<Word>) -> Vec<Word> {
    let mut out: Vec<Word> = Vec::with_capacity(words.len());
    for w in words {
        let size = w.size.max(0.1);
        let dup = out.iter().rev().take(3).any(|o| {
            o.text == w.text
                && o.rot == w.rot
                && (o.u0 - w.u0).abs() < 0.1 * size
                && (o.base - w.base).abs() < 0.2 * size
        });
        if !dup {
            out.push(w);
        }
    }
    out
}

fn build_lines(words: Vec<Word>) -> Vec<LineAcc> {
    let mut lines: Vec<LineAcc> = Vec::new();
    for w in words {
        match lines.last_mut() {
            Some(l) if l.accepts(&w) => l.push(w),
            _ => lines.push(LineAcc::new(w)),
        }
    }
    lines
}

fn build_blocks(lines: Vec<LineAcc>) -> Vec<Vec<LineAcc>> {
    let mut blocks: Vec<BlockAcc> = Vec::new();
    for l in lines {
        match blocks.last_mut() {
            Some(b) if b.accepts(&l) => b.push(l),
            _ => blocks.push(BlockAcc::new(l)),
        }
    }
    blocks.into_iter().map(|b| b.lines).collect()
}

/// Two font sizes a block may mix: within 5 % of the smaller (pdfalto measures from the
/// block's first word, which is as often the smaller as the larger).
fn same_size(a: f32, b: f32) -> bool {
    (a - b).abs() < BLOCK_SIZE_DELTA * a.min(b)
}

/// A block being built, with what `accepts` needs kept up to date (constant time per line).
struct BlockAcc {
    lines: Vec<LineAcc>,
    u0: f32,
    u1: f32,
    /// Index of the block's last main line: the last in the size of its first line (not a
    /// script line).
    main: usize,
    /// Baseline distance between the last two main lines on different baselines.
    pitch: Option<f32>,
}

impl BlockAcc {
    fn new(l: LineAcc) -> BlockAcc {
        BlockAcc {
            u0: l.u0,
            u1: l.u1,
            main: 0,
            pitch: None,
            lines: vec![l],
        }
    }

    fn push(&mut self, l: LineAcc) {
        self.u0 = self.u0.min(l.u0);
        self.u1 = self.u1.max(l.u1);
        let first = self.lines[0].size;
        if same_size(l.size, first) {
            let p = l.base - self.lines[self.main].base;
            if p > MAX_INTRA_LINE_DELTA * first {
                self.pitch = Some(p);
            }
            self.main = self.lines.len();
        }
        self.lines.push(l);
    }

    fn accepts(&self, l: &LineAcc) -> bool {
        let last = self.lines.last().expect("a block holds a line");
        if l.rot != last.rot {
            return false;
        }
        let main = &self.lines[self.main];
        let size = main.size.max(0.1);
        // A line beside the previous one (table cells, a split line) or over it (stacked
        // super/subscripts drawn after their base, figure labels) stays in the block, as
        // pdfalto keeps them together.
        let beside = |x: &LineAcc| {
            let dist = (l.u0 - x.u1).max(x.u0 - l.u1);
            let shift = (l.base - x.base).abs();
            if dist > BESIDE_GAP * size {
                return false;
            }
            if same_size(l.size, x.size) {
                // On (nearly) the same baseline, or side by side and overlapping vertically
                // (cells of a table row, centred differently).
                return shift <= MAX_INTRA_LINE_DELTA * size
                    || (shift < size && dist >= -0.1 * size);
            }
            // Of another size, only a script (smaller, off the other's baseline) joins.
            let big = l.size.max(x.size);
            shift > 0.1 * big && shift <= MAX_INTRA_LINE_DELTA * big
        };
        if beside(last) || beside(main) {
            return true;
        }
        if !same_size(l.size, main.size) {
            return false;
        }
        let pitch = l.base - main.base;
        if pitch <= 0.0 || pitch > MAX_LINE_PITCH * size {
            return false;
        }
        // A wider gap than the block's own line pitch is a paragraph or section break.
        if self.pitch.is_some_and(|prev| pitch > prev + 0.5 * size) {
            return false;
        }
        l.u0 < self.u1 && l.u1 > self.u0
    }
}

fn char_box(ch: &RawChar) -> BBox {
    BBox {
        x: ch.x0,
        y: ch.y0,
        w: (ch.x1 - ch.x0).max(0.0),
        h: (ch.y1 - ch.y0).max(0.0),
    }
}

fn to_block(raw: &RawPage, lines: Vec<LineAcc>) -> Block {
    let mut out = Block::default();
    for l in lines {
        let mut line = Line::default();
        let (line_base, line_size) = (l.base, l.size);
        for w in &l.words {
            push_word_tokens(raw, w, line_base, line_size, &mut line.tokens);
        }
        if line.tokens.is_empty() {
            continue;
        }
        line.bbox = line
            .tokens
            .iter()
            .skip(1)
            .fold(line.tokens[0].bbox, |acc, t| acc.union(&t.bbox));
        out.lines.push(line);
    }
    if let Some(first) = out.lines.first() {
        out.bbox = out
            .lines
            .iter()
            .skip(1)
            .fold(first.bbox, |acc, l| acc.union(&l.bbox));
    }
    out
}

/// GROBID's ligature and quote cleaning (applied after normalisation).
pub fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 4);
    for c in text.chars() {
        match c {
            '\u{FB00}' => out.push_str("ff"),
            '\u{FB01}' => out.push_str("fi"),
            '\u{FB02}' => out.push_str("fl"),
            '\u{FB03}' => out.push_str("ffi"),
            '\u{FB04}' => out.push_str("ffl"),
            '\u{FB05}' => out.push_str("ft"),
            '\u{FB06}' => out.push_str("st"),
            'æ' => out.push_str("ae"),
            'Æ' => out.push_str("AE"),
            'œ' => out.push_str("oe"),
            'Œ' => out.push_str("OE"),
            '“' | '”' | '„' | '‟' | '″' => out.push('"'),
            '‘' | '’' | '‚' | '‛' | '′' => out.push('\''),
            '▪' | '■' | '◦' | '‣' | '∙' | '●' => out.push('•'),
            '∗' => out.push_str(" * "),
            '†' | '‡' | '§' | '¶' | '⁋' | 'ǂ' => {
                out.push(' ');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

fn push_word_tokens(raw: &RawPage, w: &Word, line_base: f32, line_size: f32, out: &mut Vec<Token>) {
    let style = &raw.styles[w.style as usize];
    let cleaned = clean(&tokenizer::normalise(w.text.trim()));
    let parts = tokenizer::tokenize(&cleaned);
    let total: usize = parts
        .iter()
        .filter(|p| !p.trim().is_empty())
        .map(|p| p.chars().count())
        .sum();
    if total == 0 {
        return;
    }
    let bbox = w
        .glyphs
        .iter()
        .skip(1)
        .fold(char_box(&raw.chars[w.glyphs[0].idx]), |acc, g| {
            acc.union(&char_box(&raw.chars[g.idx]))
        });
    let size = line_size.max(0.1);
    let shift = w.base - line_base;
    let smaller = w.size < line_size * 0.95;
    let superscript = smaller && shift < -0.15 * size;
    let subscript = smaller && shift > 0.1 * size;
    let mut done = 0usize;
    for p in parts {
        if p.trim().is_empty() {
            if let Some(prev) = out.last_mut() {
                prev.space_after = true;
            }
            continue;
        }
        let n = p.chars().count();
        let (f0, f1) = (done as f32 / total as f32, (done + n) as f32 / total as f32);
        done += n;
        out.push(Token {
            text: p.to_string(),
            bbox: split_box(bbox, style.rotation, f0, f1),
            font: style.font.clone(),
            font_size: style.size,
            bold: style.bold,
            italic: style.italic,
            superscript,
            subscript,
            color: style.color,
            rotation: style.rotation,
            space_after: false,
        });
    }
    if let Some(last) = out.last_mut() {
        if !last.text.ends_with('-') {
            last.space_after = true;
        }
    }
}

/// The part [f0, f1) of a word's box along its reading direction.
fn split_box(b: BBox, rot: f32, f0: f32, f1: f32) -> BBox {
    match rot as i32 {
        0 => BBox {
            x: b.x + b.w * f0,
            w: b.w * (f1 - f0),
            ..b
        },
        180 => BBox {
            x: b.right() - b.w * f1,
            w: b.w * (f1 - f0),
            ..b
        },
        90 => BBox {
            y: b.bottom() - b.h * f1,
            h: b.h * (f1 - f0),
            ..b
        },
        270 => BBox {
            y: b.y + b.h * f0,
            h: b.h * (f1 - f0),
            ..b
        },
        _ => b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn style(size: f32) -> RawStyle {
        RawStyle {
            font: "Times-Roman".into(),
            size,
            bold: false,
            italic: false,
            color: 0,
            rotation: 0.0,
            invisible: false,
        }
    }

    /// An empty US-letter page 1 with these styles.
    fn letter_page(styles: Vec<RawStyle>) -> RawPage {
        RawPage {
            number: 1,
            width: 612.0,
            height: 792.0,
            styles,
            ..RawPage::default()
        }
    }

    /// A page with `text` drawn from (x, baseline) at 0.5 × size per glyph.
    fn draw(page: &mut RawPage, x: f32, base: f32, style: u32, text: &str) {
        let size = page.styles[style as usize].size;
        let adv = 0.5 * size;
        for (i, c) in text.chars().enumerate() {
            let x0 = x + i as f32 * adv;
            page.chars.push(RawChar {
                c,
                x0,
                y0: base - 0.8 * size,
                x1: x0 + adv,
                y1: base + 0.2 * size,
                ox: x0,
                oy: base,
                style,
                space_before: false,
            });
        }
    }

    fn texts(page: &Page) -> Vec<Vec<String>> {
        page.blocks
            .iter()
            .map(|b| {
                b.lines
                    .iter()
                    .map(|l| {
                        l.tokens
                            .iter()
                            .map(|t| t.text.clone() + if t.space_after { " " } else { "" })
                            .collect::<String>()
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn lines_and_blocks_follow_baselines_and_spacing() {
        let mut p = letter_page(vec![style(10.0), style(14.0)]);
        draw(&mut p, 72.0, 80.0, 1, "Title here");
        draw(&mut p, 72.0, 120.0, 0, "first line of text,");
        draw(&mut p, 72.0, 132.0, 0, "second exam-");
        draw(&mut p, 72.0, 144.0, 0, "ple line.");
        let page = build_page(&p);
        assert_eq!(
            texts(&page),
            vec![
                vec!["Title here ".to_string()],
                vec![
                    "first line of text, ".to_string(),
                    "second exam-".to_string(),
                    "ple line. ".to_string()
                ]
            ]
        );
        let t = &page.blocks[1].lines[0].tokens;
        assert_eq!(t[3].text, "text");
        assert!(!t[3].space_after, "`text` is glued to the comma");
        assert!((t[0].bbox.x - 72.0).abs() < 1e-3);
    }

    /// Draw `text` with `tracking` × size added after each glyph (letter-spaced type); a
    /// space advances by `space` × size more. Returns the x after the last glyph.
    fn draw_tracked(
        page: &mut RawPage,
        x: f32,
        base: f32,
        text: &str,
        tracking: f32,
        space: f32,
    ) -> f32 {
        let size = page.styles[0].size;
        let mut x = x;
        for c in text.chars() {
            if c == ' ' {
                x += space * size;
                continue;
            }
            draw(page, x, base, 0, &c.to_string());
            x += (0.5 + tracking) * size;
        }
        x
    }

    #[test]
    fn letter_spaced_capitals_are_joined_into_words() {
        let mut p = letter_page(vec![style(10.0)]);
        let x = draw_tracked(&mut p, 72.0, 100.0, "FIGURE", 0.15, 0.0);
        let x = draw_tracked(&mut p, x + 2.5, 100.0, "2", 0.0, 0.0);
        draw(&mut p, x + 3.0, 100.0, 0, "Forest");
        draw_tracked(&mut p, 72.0, 130.0, "REVIEW ARTICLE", 0.2, 0.27);
        let page = build_page(&p);
        let lines: Vec<String> = texts(&page).into_iter().flatten().collect();
        assert_eq!(
            lines,
            vec![
                "FIGURE 2 Forest ".to_string(),
                "REVIEW ARTICLE ".to_string()
            ]
        );
        let t = &page.blocks[0].lines[0].tokens[0];
        assert!((t.bbox.x - 72.0).abs() < 1e-3 && (t.bbox.w - 6.0 * 5.0 - 5.0 * 1.5).abs() < 1e-2);
    }

    #[test]
    fn a_tracked_word_broken_into_irregular_pieces_is_rejoined() {
        // `DISCUSSION` drawn with 0.1 × size tracking, broken by the PDF's spaces into
        // `DISC USS I ON`; capitals set with word spaces stay words.
        let mut p = letter_page(vec![style(10.0)]);
        draw_tracked(&mut p, 72.0, 100.0, "DISCUSSION", 0.1, 0.0);
        for k in [4, 7, 8] {
            p.chars[k].space_before = true;
        }
        // Two pieces, neither short: `RES ULTS`.
        let x = draw_tracked(&mut p, 72.0, 115.0, "RESULTS", 0.1, 0.0);
        p.chars[13].space_before = true;
        assert!(x > 72.0);
        let first = p.chars.len();
        draw_tracked(&mut p, 72.0, 130.0, "THE US AND UK", 0.0, 0.3);
        for (k, c) in "THE US AND UK".replace(' ', "").chars().enumerate() {
            assert_eq!(p.chars[first + k].c, c);
        }
        let lines: Vec<String> = texts(&build_page(&p)).into_iter().flatten().collect();
        assert_eq!(lines, ["DISCUSSION ", "RESULTS ", "THE US AND UK "]);
    }

    #[test]
    fn spaced_single_capitals_below_the_run_length_stay_apart() {
        // Three spaced capitals ("groups A B C") are not letter-spaced type.
        let mut p = letter_page(vec![style(10.0)]);
        draw_tracked(&mut p, 72.0, 100.0, "A B C", 0.0, 0.3);
        assert_eq!(texts(&build_page(&p)), vec![vec!["A B C ".to_string()]]);
        // A mixed-case run is prose, however close its letters.
        let mut p = letter_page(vec![style(10.0)]);
        draw_tracked(&mut p, 72.0, 100.0, "a b c d e", 0.0, 0.15);
        assert_eq!(texts(&build_page(&p)), vec![vec!["a b c d e ".to_string()]]);
    }

    #[test]
    fn a_small_gap_breaks_a_word_only_where_pdfium_generated_a_space() {
        // "of" ends at 72 + 2 × 5 = 82; "Psychology" starts 0.5 pt later (0.05 × size, under
        // the 0.1 × size rule, as when an `f`'s loose box overhangs the inter-word gap).
        let page_of = |space: bool| {
            let mut p = letter_page(vec![style(10.0)]);
            draw(&mut p, 72.0, 100.0, 0, "of");
            let first = p.chars.len();
            draw(&mut p, 82.5, 100.0, 0, "Psychology");
            p.chars[first].space_before = space;
            texts(&build_page(&p))
        };
        assert_eq!(page_of(false), vec![vec!["ofPsychology ".to_string()]]);
        assert_eq!(page_of(true), vec![vec!["of Psychology ".to_string()]]);
    }

    #[test]
    fn a_raised_smaller_word_is_a_superscript_on_the_same_line() {
        let mut p = letter_page(vec![style(10.0), style(7.0)]);
        draw(&mut p, 72.0, 100.0, 0, "mass");
        draw(&mut p, 92.0, 96.0, 1, "2");
        draw(&mut p, 98.0, 100.0, 0, "x");
        let page = build_page(&p);
        assert_eq!(page.blocks.len(), 1);
        let toks = &page.blocks[0].lines[0].tokens;
        assert_eq!(toks.len(), 3);
        assert!(toks[1].superscript && !toks[0].superscript && !toks[2].superscript);
    }

    #[test]
    fn cleaning_expands_ligatures_and_straightens_quotes() {
        assert_eq!(clean("\u{FB01}nd “x” ‘y’"), "find \"x\" 'y'");
        assert_eq!(clean("a∗b†"), "a * b †");
    }

    /// One glyph `c` at `x` (width 5) on the baseline 100, size 10, as pdfium reports it.
    fn glyph_at(page: &mut RawPage, c: char, x: f32) {
        page.chars.push(RawChar {
            c,
            x0: x,
            y0: 92.0,
            x1: x + 5.0,
            y1: 102.0,
            ox: x,
            oy: 100.0,
            style: 0,
            space_before: false,
        });
    }

    #[test]
    fn an_accent_drawn_after_later_letters_goes_on_the_letter_it_sits_on() {
        // "Zenko" then its caron (over Z) drawn after the word, then, far right, an e-mail:
        // the caron makes `Ženko` and the e-mail stays apart (its own line of the block).
        let mut p = letter_page(vec![style(10.0)]);
        draw(&mut p, 72.0, 100.0, 0, "Zenko");
        glyph_at(&mut p, '\u{02C7}', 72.5);
        draw(&mut p, 300.0, 100.0, 0, "zenko@ijs.si");
        assert_eq!(
            texts(&build_page(&p)),
            vec![vec!["Ženko ".to_string(), "zenko@ijs.si ".to_string()]]
        );
        // An acute over the `a` of the previous word, drawn after the next word's first
        // letter (`Balazs K´egl`), and one over the `e` drawn after the word's end.
        let mut p = letter_page(vec![style(10.0)]);
        draw(&mut p, 72.0, 100.0, 0, "Balazs");
        glyph_at(&mut p, 'K', 110.0);
        glyph_at(&mut p, '\u{00B4}', 87.0);
        for (i, c) in "egl".chars().enumerate() {
            glyph_at(&mut p, c, 115.0 + 5.0 * i as f32);
        }
        glyph_at(&mut p, '\u{00B4}', 115.5);
        assert_eq!(
            texts(&build_page(&p)),
            vec![vec!["Balázs Kégl ".to_string()]]
        );
        // A tilde with no letter under it (`~user` in a URL) stays text.
        let mut p = letter_page(vec![style(10.0)]);
        draw(&mut p, 72.0, 100.0, 0, "x.org/~user");
        assert_eq!(
            texts(&build_page(&p)),
            vec![vec!["x.org/~user ".to_string()]]
        );
    }

    #[test]
    fn limits_are_enforced() {
        let mut p = letter_page(vec![style(10.0)]);
        draw(&mut p, 72.0, 100.0, 0, "a b c");
        let err = build_document(
            std::slice::from_ref(&p),
            Limits {
                blocks_max: 10,
                tokens_max: 2,
                page_tokens_max: 100,
            },
        )
        .unwrap_err();
        assert_eq!(err.code(), crate::ErrorCode::TooManyTokens);
        // One page over the per-page budget: TOO_MANY_TOKENS naming the page and the setting.
        let err = build_document(
            std::slice::from_ref(&p),
            Limits {
                blocks_max: 10,
                tokens_max: 100,
                page_tokens_max: 2,
            },
        )
        .unwrap_err();
        assert_eq!(err.code(), crate::ErrorCode::TooManyTokens);
        assert!(err.to_string().contains("limits.page_tokens_max"), "{err}");
        let empty = RawPage::default();
        assert_eq!(
            build_document(&[empty], Limits::default())
                .unwrap_err()
                .code(),
            crate::ErrorCode::NoBlocks
        );
    }
}
