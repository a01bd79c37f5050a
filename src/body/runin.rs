//! Heads set in a paragraph's own font run: a run-in head (`Study design. We recruited…`) or a
//! head line the model read as the paragraph's first line.
//!
//! Journals set low-level heads either run in (bold or italic, ending with a full stop, the
//! paragraph going on in the body font on the same line) or on a line of their own in a
//! distinct font. The fulltext model often reads both as paragraph text (or, for a run-in head,
//! takes part of the paragraph into the head), as neither has the vertical gap or size of a
//! display head. The typesetting is the evidence: the opening words are in one font, then the
//! text switches to another and stays in it.

use crate::layout::{Document, Line, LineRef, Token, ZoneToken};

/// The font a token is set in: name, bold and italic flags (pdfium reports a bold face either
/// in the name or in the flags).
fn face(t: &Token) -> (&str, bool, bool) {
    (t.font.as_str(), t.bold, t.italic)
}

/// A token that carries a word (punctuation takes the font of whatever is next to it).
fn wordy(t: &Token) -> bool {
    t.text.chars().any(char::is_alphanumeric)
}

/// Names of theorem-like statements, whose label is set in its own face like a run-in head.
const STATEMENTS: &[&str] = &[
    "Theorem",
    "Lemma",
    "Corollary",
    "Proposition",
    "Definition",
    "Remark",
    "Example",
    "Proof",
    "Claim",
    "Conjecture",
    "Assumption",
    "Notation",
    "Observation",
];

/// Words that open a sentence going on in a display formula or a list, never a head alone.
const CONNECTIVES: &[&str] = &[
    "Then",
    "Thus",
    "Hence",
    "Therefore",
    "So",
    "Now",
    "Here",
    "Where",
    "Finally",
    "Also",
    "Moreover",
    "Consequently",
    "Since",
    "If",
    "Let",
    "Define",
    "Consider",
    "Similarly",
];

/// A line run of this many words or more ending with a full stop is a sentence, not a head.
const LONG_SENTENCE_WORDS: usize = 10;

/// Most head text fits this many words; a longer run is a sentence in another font.
const MAX_HEAD_WORDS: usize = 20;

/// How many tokens at the start of `toks` (a paragraph, or a section span running into its
/// paragraph) form a head in its own font, or `None`.
///
/// The run is the longest prefix whose words share one face; it ends where a word in another
/// face starts, and that face must hold most of the remaining words (the body font, not an
/// italic word inside the head). A run ending inside a line must end with `.` or `:` (a
/// run-in head: an italic name opening a sentence does not); a run ending at a line end is a
/// head line of its own. The run opens with a capital or a digit, has a word of two letters
/// or more, at most [`MAX_HEAD_WORDS`] words, is not smaller than the text after it, and does
/// not end with a number (`Theorem 2.`, `Table 1.` are numbered statements and captions).
pub fn head_run(doc: &Document, toks: &[ZoneToken]) -> Option<usize> {
    let tok = |z: &ZoneToken| doc.token(&z.line, z.index).map(|(_, t)| t);
    let all: Vec<&Token> = toks.iter().map(tok).collect::<Option<_>>()?;
    // A head opens with a word or a number, not a quotation mark or a bracket.
    let first = all.first().copied().filter(|t| wordy(t))?;
    if !first
        .text
        .chars()
        .next()
        .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
    {
        return None;
    }
    let head_face = face(first);
    let split = all.iter().position(|t| wordy(t) && face(t) != head_face)?;
    // Punctuation right before the switch stays with the head; walk back to its last word.
    let last_word = all[..split].iter().rposition(|t| wordy(t))?;
    let body_face = face(all[split]);
    let rest: Vec<&Token> = all[split..].iter().copied().filter(|t| wordy(t)).collect();
    let in_body = rest.iter().filter(|t| face(t) == body_face).count();
    if rest.len() < 3 || in_body * 2 <= rest.len() {
        return None;
    }
    // The text after a head opens a sentence; a lower-case word goes on one.
    if all[split]
        .text
        .chars()
        .next()
        .is_some_and(char::is_lowercase)
    {
        return None;
    }
    // `Proof.`, `Definition.`, `Example 1:` open theorem-like statements (LaTeX's amsthm
    // environments set them in their own face), not sections.
    if STATEMENTS.contains(&first.text.as_str()) {
        return None;
    }
    let words: Vec<&Token> = all[..split].iter().copied().filter(|t| wordy(t)).collect();
    // A lone connective before a display (`Then` / a formula) opens a sentence.
    if words.len() == 1 && CONNECTIVES.contains(&first.text.as_str()) {
        return None;
    }
    if words.len() > MAX_HEAD_WORDS
        || !words.iter().any(|t| t.text.chars().count() >= 2)
        || all[last_word].text.chars().all(|c| c.is_ascii_digit())
        || first.font_size + 0.5 < all[split].font_size
    {
        return None;
    }
    let line_start = toks[split].line != toks[split - 1].line;
    let end = all[split - 1].text.as_str();
    let run_in = !line_start && last_word + 1 < split && end == ".";
    // A head line ends without a comma or hyphen (those wrap a sentence set in another face),
    // it is no long sentence ending with a full stop, and it ends short of the column's right
    // edge, which the body text after it reaches; a head of one or two lines set as a layout
    // block of its own, apart from the text after it, needs no short last line (`Factors
    // associated with unexpected CVD` / `readmission within the first year after dialysis`
    // fills most of its column).
    let sentence = end == "." && words.len() >= LONG_SENTENCE_WORDS;
    let mut head_lines: Vec<&LineRef> = toks[..split].iter().map(|z| &z.line).collect();
    head_lines.dedup();
    let own_block = super::breaks(&toks[split - 1].line, &toks[split].line)
        && head_lines.len() <= 2
        && !matches!(end, "." | ":");
    let own_line = line_start
        && !sentence
        && !matches!(end, "," | ";" | "-")
        && (own_block || short_line(doc, &toks[split - 1].line, &toks[split..]));
    if !(run_in || own_line) {
        return None;
    }
    Some(split)
}

/// A head line's share of the column width it leaves empty at least.
const HEAD_LINE_SLACK: f32 = 0.1;

/// Whether `line` ends at least [`HEAD_LINE_SLACK`] of the width short of the right edge that
/// the lines of `rest` reach.
fn short_line(doc: &Document, line: &LineRef, rest: &[ZoneToken]) -> bool {
    let right_of = |l: &Line| {
        l.tokens
            .iter()
            .map(|t| t.bbox.x + t.bbox.w)
            .fold(0.0, f32::max)
    };
    let left_of = |l: &Line| {
        l.tokens
            .iter()
            .map(|t| t.bbox.x)
            .fold(f32::INFINITY, f32::min)
    };
    let Some(head) = doc.line(line) else {
        return false;
    };
    let mut lines: Vec<&LineRef> = rest.iter().map(|z| &z.line).collect();
    lines.dedup();
    let body: Vec<&Line> = lines.iter().filter_map(|r| doc.line(r)).collect();
    let right = body.iter().map(|l| right_of(l)).fold(0.0, f32::max);
    let left = body
        .iter()
        .map(|l| left_of(l))
        .fold(f32::INFINITY, f32::min);
    let width = right - left;
    width > 0.0 && right_of(head) < right - HEAD_LINE_SLACK * width
}
