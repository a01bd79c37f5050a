//! Text of body elements from zone tokens: tokens joined by their separators, line-end hyphens
//! of continued words removed, one box per token and callouts by byte range.

use crate::document::{Callout, CalloutKind, RichText, TokenBox};
use crate::layout::{Document, LineRef, Sep, ZoneToken};

/// Builds one [`RichText`] token by token. Spaces are written lazily (only before a token
/// that has text), so the text never starts or ends with one and never holds two in a row.
#[derive(Debug, Default)]
pub struct TextBuilder {
    rt: RichText,
    /// What follows the last token written.
    pending: Option<Sep>,
    /// Byte offset of a line-end hyphen glued to a word (`exam-`), removed when the next token
    /// starts lower-case.
    hyphen: Option<usize>,
    /// The last token was glued to the next one and ended with a letter.
    glued_letter: bool,
    /// An open callout: its kind and, once a token was written, its start.
    callout: Option<(CalloutKind, Option<usize>)>,
    /// Where the last token written sits (page index, block index, line).
    last_line: Option<LineRef>,
}

impl TextBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Nothing (not even an empty token) was written yet.
    pub fn is_empty(&self) -> bool {
        self.rt.tokens.is_empty()
    }

    /// The text written so far.
    pub fn text(&self) -> &str {
        &self.rt.text
    }

    /// The line of the last token written.
    pub fn last_line(&self) -> Option<LineRef> {
        self.last_line
    }

    /// Write one zone token (a token missing from `doc` is skipped).
    pub fn push(&mut self, doc: &Document, zt: &ZoneToken) {
        let Some((page, tok)) = doc.token(&zt.line, zt.index) else {
            return;
        };
        let word = collapse(&tok.text);
        let lower_start = word.chars().next().is_some_and(char::is_lowercase);
        match self.hyphen.take() {
            Some(at) if lower_start && self.rt.text.len() == at + 1 => self.drop_hyphen(at),
            _ => {
                if matches!(self.pending, Some(Sep::Space | Sep::Newline)) && !word.is_empty() {
                    self.rt.text.push(' ');
                }
            }
        }
        let start = self.rt.text.len();
        self.rt.text.push_str(&word);
        let end = self.rt.text.len();
        if let Some((_, s @ None)) = &mut self.callout {
            *s = Some(start);
        }
        self.rt.tokens.push(TokenBox {
            range: start..end,
            page,
            bbox: tok.bbox,
        });
        // A word-part hyphen at a line end: `exam-` or `exam` `-` glued.
        let glued_hyphen = word.ends_with('-')
            && (word.len() > 1 && word[..word.len() - 1].ends_with(char::is_alphabetic)
                || word == "-" && self.glued_letter);
        if zt.sep == Sep::Newline && glued_hyphen {
            self.hyphen = Some(end - 1);
            self.pending = Some(Sep::None);
        } else {
            self.pending = Some(zt.sep);
        }
        self.glued_letter = zt.sep == Sep::None && word.ends_with(char::is_alphabetic);
        self.last_line = Some(zt.line);
    }

    /// Remove the hyphen at byte `at` (the text's last byte) and shrink what covered it.
    fn drop_hyphen(&mut self, at: usize) {
        self.rt.text.truncate(at);
        for t in self.rt.tokens.iter_mut().rev() {
            if t.range.end <= at {
                break;
            }
            t.range.start = t.range.start.min(at);
            t.range.end = at;
        }
        for c in self.rt.refs.iter_mut() {
            c.range.start = c.range.start.min(at);
            c.range.end = c.range.end.min(at);
        }
        if let Some((_, Some(s))) = &mut self.callout {
            *s = (*s).min(at);
        }
    }

    /// Write every token of `tokens`.
    pub fn extend(&mut self, doc: &Document, tokens: &[ZoneToken]) {
        for zt in tokens {
            self.push(doc, zt);
        }
    }

    /// Open a callout: the tokens written until [`TextBuilder::end_callout`] form it.
    pub fn begin_callout(&mut self, kind: CalloutKind) {
        self.end_callout();
        self.callout = Some((kind, None));
    }

    /// Whether a callout is open.
    pub fn in_callout(&self) -> bool {
        self.callout.is_some()
    }

    /// Close the open callout (one that covers no text is dropped).
    pub fn end_callout(&mut self) {
        if let Some((kind, Some(start))) = self.callout.take() {
            let end = self.rt.text.len();
            if end > start {
                self.rt.refs.push(Callout {
                    kind,
                    range: start..end,
                    target: None,
                });
            }
        }
    }

    pub fn finish(mut self) -> RichText {
        self.end_callout();
        self.rt
    }
}

/// Whitespace inside a token collapsed to single spaces and trimmed.
fn collapse(s: &str) -> String {
    if !s.contains(char::is_whitespace) {
        return s.to_string();
    }
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

impl RichText {
    /// The text of `tokens` (see [`TextBuilder`]): separators as spaces, line-end hyphens of
    /// continued lower-case words removed, one [`TokenBox`] per token, no callouts.
    pub fn from_tokens(doc: &Document, tokens: &[ZoneToken]) -> RichText {
        let mut b = TextBuilder::new();
        b.extend(doc, tokens);
        b.finish()
    }

    /// `other` appended after a space, its callouts and token boxes moved along.
    pub fn append(&mut self, other: RichText) {
        if other.text.is_empty() {
            return;
        }
        let shift = if self.text.is_empty() {
            0
        } else {
            self.text.push(' ');
            self.text.len()
        };
        self.text.push_str(&other.text);
        let moved = |r: std::ops::Range<usize>| r.start + shift..r.end + shift;
        self.refs.extend(other.refs.into_iter().map(|mut c| {
            c.range = moved(c.range);
            c
        }));
        self.tokens.extend(other.tokens.into_iter().map(|mut t| {
            t.range = moved(t.range);
            t
        }));
    }
}

/// The zone tokens of whole layout lines (a segmentation zone): each line's tokens, separated
/// as their `space_after` says, the last one followed by a line end.
pub fn zone_tokens(doc: &Document, lines: &[LineRef]) -> Vec<ZoneToken> {
    let mut out = Vec::new();
    for r in lines {
        let Some(line) = doc.line(r) else { continue };
        let n = line.tokens.len();
        for (index, t) in line.tokens.iter().enumerate() {
            let sep = if index + 1 == n {
                Sep::Newline
            } else if t.space_after {
                Sep::Space
            } else {
                Sep::None
            };
            out.push(ZoneToken {
                line: *r,
                index,
                sep,
            });
        }
    }
    out
}
