/*!
The body record from the fulltext model's spans: sections, paragraphs, lists, formulas,
figures, tables and notes ([`crate::document::Body`]), and callouts resolved to what they
point at. No model runs here: the input is the layout [`Document`], the zone tokens the
fulltext model labelled and its decoded spans, and then the figure and table models' labels.

- [`assemble`] (and [`assemble_annex`]): spans → divs, figures and tables;
  [`assemble_zoned`] also says which tokens each figure was built from
  ([`FigureZone`]), for [`figure::model_rows`] and [`figure::apply_models`].
- [`zone_notes`] (or [`notes()`] for given lines): footnote and margin-note lines → notes,
  with deterministic ids `foot_N` / `margin_N`; [`back()`]: acknowledgement, funding and
  availability zones → [`Back`](crate::document::Back).
- [`callouts::resolve_callouts`]: callouts → `b3`, `fig_0`, `tab_1`, `formula_2`, note ids.
- [`text`]: the one path from tokens to text ([`RichText::from_tokens`]).
- [`runin`]: heads the model left in paragraph text (run-in heads, head lines in their own
  face); [`furniture`]: section spans that cannot be heads (small, rotated or running text).

Nothing is silently lost: every token lands in the text of some element. Spans are sorted,
overlaps are cut and tokens no span covers are read as `<other>`. An `<other>` span joins the
paragraph being written (or opens one): GROBID writes it as `note type="other"`, which the
record has no place for, and in running text it is most often a stray token of a sentence.
A `<section_marker>` is read as paragraph text (there is no section `ref` type).
*/

pub mod callouts;
pub mod figure;
pub mod furniture;
pub mod notes;
pub mod runin;
pub mod text;

#[cfg(test)]
mod tests;

pub use callouts::resolve_callouts;
pub use notes::{back, front_paragraphs, header_statements, notes, zone_divs, zone_notes};
pub use text::{zone_tokens, TextBuilder};

use std::ops::Range;

use crate::document::{Body, BodyBlock, CalloutKind, Div, Figure, Formula, Head, RichText};
use crate::layout::{Document, LineRef, Sep, Span, ZoneToken};
use crate::models::fulltext::Label;

/// The body of a document from the fulltext model's spans over the body zone's tokens.
/// Figures are numbered `fig_0…`, tables `tab_0…`, formulas `formula_0…` in document order.
/// Notes are not in the body zone: set `Body::notes` from [`zone_notes`] before resolving
/// callouts.
pub fn assemble(doc: &Document, tokens: &[ZoneToken], spans: &[Span<Label>]) -> Body {
    assemble_zoned(doc, tokens, spans, false).0
}

/// [`assemble`], with the tokens each figure and table was built from: what the figure and
/// table models label ([`figure::apply_model`]). `light`: the spans come from the light
/// flavour's model, which reads figures and tables as paragraphs on purpose; no figure is
/// then made of text it labelled otherwise (a caption in a paragraph, a head that is a
/// caption lead).
pub fn assemble_zoned(
    doc: &Document,
    tokens: &[ZoneToken],
    spans: &[Span<Label>],
    light: bool,
) -> (Body, Vec<FigureZone>) {
    let mut a = Assembler::new(doc, tokens, Counters::default());
    a.light = light;
    a.run(spans);
    a.finish()
}

/// The annex sections from the fulltext model's spans over the annex zone. Its figures and
/// tables join `body.figures`, their numbering (and the formulas') continuing the body's, as
/// GROBID numbers them.
pub fn assemble_annex(
    doc: &Document,
    tokens: &[ZoneToken],
    spans: &[Span<Label>],
    body: &mut Body,
) -> Vec<Div> {
    assemble_annex_zoned(doc, tokens, spans, body, false).0
}

/// [`assemble_annex`], with the tokens (of the annex zone) each of its figures and tables was
/// built from; their `figure` indexes `body.figures`.
pub fn assemble_annex_zoned(
    doc: &Document,
    tokens: &[ZoneToken],
    spans: &[Span<Label>],
    body: &mut Body,
    light: bool,
) -> (Vec<Div>, Vec<FigureZone>) {
    let counters = Counters {
        figures: body.figures.iter().filter(|f| !f.is_table).count(),
        tables: body.figures.iter().filter(|f| f.is_table).count(),
        formulas: body
            .divs
            .iter()
            .flat_map(|d| &d.blocks)
            .filter(|b| matches!(b, BodyBlock::Formula(_)))
            .count(),
    };
    let mut a = Assembler::new(doc, tokens, counters);
    a.light = light;
    a.run(spans);
    let (annex, mut zones) = a.finish();
    for z in &mut zones {
        z.figure += body.figures.len();
        z.annex = true;
    }
    body.figures.extend(annex.figures);
    (annex.divs, zones)
}

/// A figure or table of an assembled body and the zone tokens it was built from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FigureZone {
    /// Its index in `Body::figures`.
    pub figure: usize,
    /// Its tokens: indexes into the zone tokens the body (or the annex) was assembled from.
    pub tokens: Range<usize>,
    pub table: bool,
    /// Built from the annex zone's tokens rather than the body zone's.
    pub annex: bool,
}

#[derive(Debug, Default, Clone, Copy)]
struct Counters {
    figures: usize,
    tables: usize,
    formulas: usize,
}

/// The spans as a cover of `0..n`: sorted, clipped, overlaps cut, gaps read as `<other>`.
fn cover(spans: &[Span<Label>], n: usize) -> Vec<(Label, Range<usize>)> {
    let mut sorted: Vec<&Span<Label>> = spans.iter().collect();
    sorted.sort_by_key(|s| (s.tokens.start, s.tokens.end));
    let mut out = Vec::with_capacity(sorted.len());
    let mut at = 0;
    for s in sorted {
        let start = s.tokens.start.max(at);
        let end = s.tokens.end.min(n);
        if start >= end {
            continue;
        }
        if start > at {
            out.push((Label::Other, at..start));
        }
        out.push((s.label, start..end));
        at = end;
    }
    if at < n {
        out.push((Label::Other, at..n));
    }
    out
}

/// What text is being written: a paragraph or a list item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OpenKind {
    Paragraph,
    Item,
}

struct Open {
    kind: OpenKind,
    text: TextBuilder,
    /// A figure or table came between this text and the next span.
    interrupted: bool,
}

struct Assembler<'a> {
    doc: &'a Document,
    tokens: &'a [ZoneToken],
    divs: Vec<Div>,
    figures: Vec<Figure>,
    /// The tokens each figure was built from, in the order of `figures`.
    zones: Vec<FigureZone>,
    open: Option<Open>,
    counters: Counters,
    /// The previous span's label.
    last: Option<Label>,
    /// The tokens of the last section head.
    last_head: Option<Range<usize>>,
    /// The tokens of the last figure or table, and whether it is a table.
    last_figure: Option<(Range<usize>, bool)>,
    /// Body text size and running lines, to tell section spans that cannot be heads.
    check: furniture::HeadCheck,
    /// Tokens before this index were taken by an earlier span (a caption pulled after its
    /// lead: [`Assembler::lone_caption_lead`]).
    taken: usize,
    /// The light flavour's spans: figures and tables are read as paragraphs, none is made of
    /// text the model labelled otherwise.
    light: bool,
}

impl<'a> Assembler<'a> {
    fn new(doc: &'a Document, tokens: &'a [ZoneToken], counters: Counters) -> Self {
        Assembler {
            doc,
            tokens,
            divs: Vec::new(),
            figures: Vec::new(),
            zones: Vec::new(),
            open: None,
            counters,
            last: None,
            last_head: None,
            last_figure: None,
            check: furniture::HeadCheck::default(),
            taken: 0,
            light: false,
        }
    }

    fn run(&mut self, spans: &[Span<Label>]) {
        self.check = furniture::HeadCheck::new(self.doc, self.tokens, spans);
        let cover = cover(spans, self.tokens.len());
        for (i, (label, range)) in cover.iter().cloned().enumerate() {
            if range.end <= self.taken {
                continue;
            }
            let range = range.start.max(self.taken)..range.end;
            let toks = &self.tokens[range.clone()];
            let next = cover.get(i + 1).map(|(l, _)| *l);
            match label {
                Label::Section | Label::Figure | Label::Table
                    if !self.light && self.lone_caption_lead(range.clone()) =>
                {
                    continue
                }
                Label::Section if self.drop_cap(range.clone()) => {
                    self.last = Some(Label::Other);
                    continue;
                }
                Label::Section => self.section_span(range.clone()),
                Label::Paragraph => self.paragraph_span(range.clone(), next),
                Label::CitationMarker => self.marker(toks, CalloutKind::Bibr),
                Label::FigureMarker => self.marker(toks, CalloutKind::Figure),
                Label::TableMarker => self.marker(toks, CalloutKind::Table),
                Label::EquationMarker => self.marker(toks, CalloutKind::Formula),
                Label::Other | Label::SectionMarker => self.inline(toks),
                Label::Equation => self.equation(toks),
                Label::EquationLabel => self.equation_label(toks),
                Label::Figure => self.figure(range.clone(), false),
                Label::Table => self.figure(range.clone(), true),
            }
            self.last = Some(label);
        }
    }

    fn finish(mut self) -> (Body, Vec<FigureZone>) {
        self.close();
        figure::attach_graphics(self.doc, &mut self.figures);
        let body = Body {
            divs: self.divs,
            figures: self.figures,
            notes: Vec::new(),
        };
        (body, self.zones)
    }

    fn div(&mut self) -> &mut Div {
        if self.divs.is_empty() {
            self.divs.push(Div::default());
        }
        let last = self.divs.len() - 1;
        &mut self.divs[last]
    }

    /// Close the open paragraph or item into the current div.
    fn close(&mut self) {
        let Some(open) = self.open.take() else {
            return;
        };
        let rt = open.text.finish();
        let div = self.div();
        match open.kind {
            OpenKind::Paragraph => div.blocks.push(BodyBlock::Paragraph(rt)),
            OpenKind::Item => match div.blocks.last_mut() {
                Some(BodyBlock::List(items)) => items.push(rt),
                _ => div.blocks.push(BodyBlock::List(vec![rt])),
            },
        }
    }

    fn start(&mut self, kind: OpenKind) -> &mut Open {
        self.close();
        self.open.insert(Open {
            kind,
            text: TextBuilder::new(),
            interrupted: false,
        })
    }

    /// A drop cap: a section span that is one capital letter set well above the body size,
    /// right before a word it opens (`M` + `arine heatwaves…`). It opens the paragraph, glued
    /// to that word, and is no head. Returns whether it was one.
    fn drop_cap(&mut self, range: Range<usize>) -> bool {
        let tokens = self.tokens;
        let tok = |i: usize| {
            tokens
                .get(i)
                .and_then(|z| self.doc.token(&z.line, z.index))
                .map(|(_, t)| t)
        };
        let (Some(cap), Some(next)) = (tok(range.start), tok(range.end)) else {
            return false;
        };
        let letter = cap.text.chars().count() == 1 && cap.text.chars().all(char::is_uppercase);
        let big = cap.font_size >= DROP_CAP_RATIO * self.check.body_size();
        let opens = next.text.chars().next().is_some_and(char::is_lowercase);
        if range.len() != 1 || !letter || !big || !opens {
            return false;
        }
        let glued = ZoneToken {
            sep: Sep::None,
            ..tokens[range.start]
        };
        self.inline(std::slice::from_ref(&glued));
        true
    }

    /// A section span that is only a caption lead (`FIGURE 2`, `Table 1.` on a line of its
    /// own: no section is called that) starts a figure or table; its caption is the text after
    /// it in the next layout block, up to the end of that block. So does a figure or table
    /// span that is only its lead, the caption under it read as a paragraph. Whether it was
    /// taken.
    fn lone_caption_lead(&mut self, range: Range<usize>) -> bool {
        let tokens = self.tokens;
        let texts = figure::texts(self.doc, &tokens[range.clone()]);
        let Some(lead) = figure::caption_lead(&texts).filter(|l| l.tokens == texts.len()) else {
            return false;
        };
        if range.end >= tokens.len() {
            return false;
        }
        let end = block_end(tokens, range.end);
        self.figure(range.start..end, lead.table);
        self.taken = end;
        self.last = Some(if lead.table {
            Label::Table
        } else {
            Label::Figure
        });
        true
    }

    /// A section span, cut in two when it runs into its paragraph: a run-in head in its own
    /// face followed by body text ([`runin::head_run`]). Text that cannot be a head (smaller
    /// than the body text, rotated, a running head: [`furniture::HeadCheck`]) is read as
    /// `<other>` text.
    fn section_span(&mut self, range: Range<usize>) {
        let tokens = self.tokens;
        let h = head(self.doc, &tokens[range.clone()]);
        if self.check.not_a_head(self.doc, &tokens[range.clone()])
            || sentence_fragment(&h.text.text, h.n.is_some())
        {
            self.inline(&tokens[range]);
            return;
        }
        if let Some(at) = numbered_line(self.doc, &tokens[range.clone()]) {
            let at = range.start + at;
            self.section_span(range.start..at);
            self.section_span(at..range.end);
            return;
        }
        if let Some(at) = face_changed_line(self.doc, &tokens[range.clone()]) {
            let at = range.start + at;
            self.section_span(range.start..at);
            self.section_span(at..range.end);
            return;
        }
        if let Some(at) = early_break_line(self.doc, &tokens[range.clone()]) {
            let at = range.start + at;
            self.section_span(range.start..at);
            self.section_span(at..range.end);
            return;
        }
        match runin::head_run(self.doc, &tokens[range.clone()]) {
            Some(k) => {
                self.section(range.start..range.start + k);
                self.paragraph(&tokens[range.start + k..range.end]);
            }
            None => self.section(range),
        }
    }

    /// A paragraph span; a new paragraph opening with a head in its own face
    /// ([`runin::head_run`]) gives that head its div first. The span may be the whole head
    /// when running text (`next`, a paragraph or a callout) follows it.
    fn paragraph_span(&mut self, range: Range<usize>, next: Option<Label>) {
        let tokens = self.tokens;
        if let Some(line) = display_equation_line(self.doc, &tokens[range.clone()]) {
            let line = range.start + line.start..range.start + line.end;
            if line.start > range.start {
                self.paragraph_span(range.start..line.start, Some(Label::Equation));
            }
            self.equation(&tokens[line.clone()]);
            if line.end < range.end {
                self.paragraph_span(line.end..range.end, next);
            }
            return;
        }
        let cap = (!self.light)
            .then(|| caption_block(self.doc, &tokens[range.clone()]))
            .flatten();
        if let Some((cap, table)) = cap {
            let cap = range.start + cap.start..range.start + cap.end;
            if cap.start > range.start {
                self.paragraph_span(range.start..cap.start, None);
            }
            self.figure(cap.clone(), table);
            if cap.end < range.end {
                self.paragraph_span(cap.end..range.end, next);
            }
            return;
        }
        let toks = &tokens[range.clone()];
        let new = toks
            .first()
            .is_some_and(|f| !list_mark(self.doc, toks) && !self.continues(toks, f));
        let ahead = head_lookahead(next);
        // Running lines the model read into the paragraph do not hide a head after them.
        let lead = self.check.running_prefix(self.doc, toks);
        let start = range.start + if lead < toks.len() { lead } else { 0 };
        let window = &tokens[start..(range.end + ahead).min(tokens.len())];
        let run = runin::head_run(self.doc, window).filter(|&k| new && start + k <= range.end);
        match run {
            Some(k) => {
                if start > range.start {
                    self.inline(&tokens[range.start..start]);
                }
                if self.head_goes_on(start, start + k) {
                    // The head's second line, read as text by the model; a numbered head
                    // set after it in the same face is a head of its own.
                    let cut = numbered_line(self.doc, &tokens[start..start + k])
                        .map_or(start + k, |at| start + at);
                    self.extend_head(cut);
                    if cut < start + k {
                        self.section_span(cut..start + k);
                    }
                } else {
                    // As a section span: it may hold a second, numbered head.
                    self.section_span(start..start + k);
                }
                self.paragraph(&tokens[start + k..range.end]);
            }
            None => match self.inner_head(range.clone(), next) {
                Some(run) => {
                    self.paragraph(&tokens[range.start..run.start]);
                    self.section_span(run.clone());
                    if run.end < range.end {
                        self.paragraph_span(run.end..range.end, next);
                    }
                }
                None => self.paragraph(toks),
            },
        }
    }

    /// A head inside a paragraph span: at the start of a layout block (or page) after a
    /// sentence's end, a line in its own face ([`runin::head_run`]) that the model ran into
    /// the paragraph (`… 2022).` / `Levels of eco-guilt` / `Hickman et al. (2021) …`).
    fn inner_head(&self, range: Range<usize>, next: Option<Label>) -> Option<Range<usize>> {
        let tokens = self.tokens;
        let ahead = head_lookahead(next);
        let ends_sentence = |i: usize| {
            let z = &tokens[i];
            self.doc
                .token(&z.line, z.index)
                .is_some_and(|(_, t)| matches!(t.text.as_str(), "." | "!" | "?"))
        };
        (range.start + 1..range.end)
            .filter(|&i| breaks(&tokens[i - 1].line, &tokens[i].line) && ends_sentence(i - 1))
            .find_map(|i| {
                let window = &tokens[i..(range.end + ahead).min(tokens.len())];
                runin::head_run(self.doc, window)
                    .filter(|&k| i + k <= range.end)
                    .map(|k| i..i + k)
            })
    }

    /// Whether the head line `start..end`, which the model read as text, goes on the last
    /// head: that head directly before it opened the current div, which holds nothing yet;
    /// its last line is in the same layout block and set in the same font and size; the line
    /// opens with no section number of its own.
    fn head_goes_on(&self, start: usize, end: usize) -> bool {
        let Some(prev) = self.last_head.clone() else {
            return false;
        };
        if prev.end != start || start == 0 {
            return false;
        }
        let tok = |i: usize| {
            let z = &self.tokens[i];
            self.doc.token(&z.line, z.index).map(|(_, t)| t)
        };
        let (Some(a), Some(b)) = (tok(start - 1), tok(start)) else {
            return false;
        };
        let same_face = a.font == b.font && (a.font_size - b.font_size).abs() < 0.3;
        let numbered = section_number(&figure::texts(self.doc, &self.tokens[start..end])).is_some();
        let empty = self
            .divs
            .last()
            .is_some_and(|d| d.head.is_some() && d.blocks.is_empty());
        empty
            && same_face
            && !numbered
            && self.open.is_none()
            && !breaks(&self.tokens[start - 1].line, &self.tokens[start].line)
    }

    /// The last head, which opened the current div, now runs to token `end`: the model split
    /// it, and the tokens up to `end` are its next line.
    fn extend_head(&mut self, end: usize) {
        let Some(start) = self.last_head.as_ref().map(|h| h.start) else {
            return;
        };
        let merged = start..end;
        if let Some(d) = self.divs.last_mut() {
            d.head = Some(head(self.doc, &self.tokens[merged.clone()]));
        }
        self.last_head = Some(merged);
    }

    /// A head opens a div. A head that is only a number (`3.`, `IV`) followed
    /// directly by another head span is one head split by the model (`3.` + `Results`).
    fn section(&mut self, range: Range<usize>) {
        self.close();
        let tokens = self.tokens;
        if let (Some(prev), Some(d)) = (self.last_head.clone(), self.divs.last_mut()) {
            let bare = d
                .head
                .as_ref()
                .is_some_and(|h| h.n.is_none() && bare_number(&h.text.text));
            // A head ending with a word that cannot end a title (`… Astrocytes and` /
            // `Cytotoxicity of …`) is one head whose lines the model split.
            let dangling = d.head.as_ref().is_some_and(|h| dangling_word(&h.text.text));
            if (bare || dangling) && d.blocks.is_empty() && prev.end == range.start {
                self.extend_head(range.end);
                return;
            }
        }
        let head = head(self.doc, &tokens[range.clone()]);
        self.last_head = Some(range);
        match self.divs.last_mut() {
            // A first head-less div that is still empty takes the head.
            Some(d) if d.head.is_none() && d.blocks.is_empty() => d.head = Some(head),
            _ => self.divs.push(Div {
                head: Some(head),
                blocks: Vec::new(),
            }),
        }
    }

    /// Write tokens into the open text, opening a paragraph when none is open.
    fn inline(&mut self, toks: &[ZoneToken]) {
        if self.open.is_none() {
            self.start(OpenKind::Paragraph);
        }
        if let Some(o) = &mut self.open {
            o.text.extend(self.doc, toks);
        }
    }

    /// A callout joins the open text, unless that text ended a sentence before a break (a
    /// paragraph opening with `[3] showed…` or `Smith (2019) found…`).
    fn marker(&mut self, toks: &[ZoneToken], kind: CalloutKind) {
        let Some(first) = toks.first() else { return };
        let new_paragraph = self.open.as_ref().is_none_or(|o| {
            let broken =
                o.interrupted || o.text.last_line().is_some_and(|l| breaks(&l, &first.line));
            broken && o.text.text().ends_with(['.', '!', '?'])
        });
        if new_paragraph {
            self.start(OpenKind::Paragraph);
        }
        if let Some(o) = &mut self.open {
            o.text.begin_callout(kind);
            o.text.extend(self.doc, toks);
            o.text.end_callout();
        }
    }

    /// A paragraph span: a new paragraph, unless it continues the open text (it follows a
    /// callout, or it opens lower-case after a figure, a table or a page, column or block
    /// break); list items (a bullet or `(a)`, `1)` at a line start) become list items.
    fn paragraph(&mut self, toks: &[ZoneToken]) {
        let Some(first) = toks.first() else { return };
        let bullet = list_mark(self.doc, toks);
        let continues = !bullet && self.continues(toks, first);
        if !continues {
            self.start(if bullet {
                OpenKind::Item
            } else {
                OpenKind::Paragraph
            });
        }
        for (i, zt) in toks.iter().enumerate() {
            if i > 0 && toks[i - 1].sep == Sep::Newline && bullet && list_mark(self.doc, &toks[i..])
            {
                self.start(OpenKind::Item);
            }
            let prev = i.checked_sub(1).and_then(|p| toks.get(p));
            let inside = self.open.as_ref().is_some_and(|o| o.text.in_callout());
            let mark = foot_mark(self.doc, zt, prev, inside);
            if let Some(o) = &mut self.open {
                match (mark, o.text.in_callout()) {
                    (true, false) if !o.text.is_empty() => o.text.begin_callout(CalloutKind::Foot),
                    (false, true) => o.text.end_callout(),
                    _ => {}
                }
                o.text.push(self.doc, zt);
                o.interrupted = false;
            }
        }
        if let Some(o) = &mut self.open {
            o.text.end_callout();
        }
    }

    /// Whether a paragraph span opening with `first` continues the open text: after a
    /// callout (or stray text) the sentence goes on, unless a new block opens upper-case;
    /// after a paragraph only a lower-case start across a break continues.
    fn continues(&self, toks: &[ZoneToken], first: &ZoneToken) -> bool {
        let lower = self.first_char(toks).is_some_and(char::is_lowercase);
        self.open.as_ref().is_some_and(|o| {
            let broken =
                o.interrupted || o.text.last_line().is_some_and(|l| breaks(&l, &first.line));
            let inline = matches!(
                self.last,
                Some(
                    Label::CitationMarker
                        | Label::FigureMarker
                        | Label::TableMarker
                        | Label::EquationMarker
                        | Label::Other
                        | Label::SectionMarker
                )
            );
            if broken {
                lower
            } else {
                inline
            }
        })
    }

    fn first_char(&self, toks: &[ZoneToken]) -> Option<char> {
        toks.iter()
            .filter_map(|z| self.doc.token(&z.line, z.index))
            .find_map(|(_, t)| t.text.chars().next())
    }

    /// A figure or table span without a caption that carries on the sentence of a callout:
    /// it comes right after a callout in an open, uninterrupted paragraph whose text does not
    /// end a sentence, and opens in lower case or with `,` `;` `)` (`Figure 1` / `presents the
    /// selection process…`: the model cut the sentence after the callout). Running text, not
    /// a caption. A chart's own words after plain text (`activation-`) stay figure text.
    fn carries_on_sentence(&self, toks: &[ZoneToken]) -> bool {
        let Some(open) = &self.open else {
            return false;
        };
        let after_callout = self.last.is_some_and(callout_label);
        let ended = open.text.text().trim_end().ends_with(['.', '!', '?', ':']);
        let goes_on = self
            .first_char(toks)
            .is_some_and(|c| c.is_lowercase() || matches!(c, ',' | ';' | ')'));
        after_callout
            && !open.interrupted
            && !ended
            && goes_on
            && !figure::has_caption(self.doc, toks)
    }

    /// A figure or table span opening in the middle of a line of the open paragraph (`… (see`
    /// `Table 1 for demographic information)`, `… is presented in Table 2.`): captions open
    /// lines, so its lead is a callout in running text. The callout and the rest of its layout
    /// block go on the paragraph; returns where the span's remaining tokens start.
    fn lead_in_running_text(&mut self, range: Range<usize>) -> Option<usize> {
        let tokens = self.tokens;
        let first = tokens.get(range.start)?;
        let before = tokens.get(range.start.checked_sub(1)?)?;
        let running = self
            .last
            .is_some_and(|l| l == Label::Paragraph || callout_label(l));
        if self.open.is_none() || !running || before.line != first.line {
            return None;
        }
        let texts = figure::texts(self.doc, &tokens[range.clone()]);
        let lead = figure::caption_lead(&texts)?;
        // The callout is the lead's words and number, without the punctuation after them.
        let mut callout = lead.tokens.min(range.len());
        while callout > 1 && !texts[callout - 1].0.chars().any(char::is_alphanumeric) {
            callout -= 1;
        }
        let kind = if lead.table {
            CalloutKind::Table
        } else {
            CalloutKind::Figure
        };
        self.marker(&tokens[range.start..range.start + callout], kind);
        let block_end = (range.start + callout..range.end)
            .find(|&i| breaks(&tokens[i - 1].line, &tokens[i].line))
            .unwrap_or(range.end);
        self.inline(&tokens[range.start + callout..block_end]);
        Some(block_end)
    }

    /// A display formula; a `(3)` ending it becomes its label when the model left it inside.
    fn equation(&mut self, toks: &[ZoneToken]) {
        self.close();
        let id = format!("formula_{}", self.counters.formulas);
        self.counters.formulas += 1;
        let k = trailing_label(self.doc, toks);
        let text = RichText::from_tokens(self.doc, &toks[..toks.len() - k]);
        let label = (k > 0).then(|| RichText::from_tokens(self.doc, &toks[toks.len() - k..]).text);
        self.div()
            .blocks
            .push(BodyBlock::Formula(Formula { id, text, label }));
    }

    /// An equation label goes to the formula right before it; anywhere else it is text.
    fn equation_label(&mut self, toks: &[ZoneToken]) {
        let label = RichText::from_tokens(self.doc, toks).text;
        if self.open.is_none() && !label.is_empty() {
            if let Some(BodyBlock::Formula(f)) = self.div().blocks.last_mut() {
                if f.label.is_none() {
                    f.label = Some(label);
                    return;
                }
            }
        }
        self.inline(toks);
    }

    /// Add a figure, remembering the tokens it was built from.
    fn push_figure(&mut self, fig: Figure, tokens: Range<usize>) {
        self.zones.push(FigureZone {
            figure: self.figures.len(),
            tokens,
            table: fig.is_table,
            annex: false,
        });
        self.figures.push(fig);
    }

    /// The next figure (`fig_N`) or table (`tab_N`) id, counted.
    fn next_id(&mut self, table: bool) -> String {
        if table {
            self.counters.tables += 1;
            format!("tab_{}", self.counters.tables - 1)
        } else {
            self.counters.figures += 1;
            format!("fig_{}", self.counters.figures - 1)
        }
    }

    fn pop_figure(&mut self) -> Option<Figure> {
        self.zones.pop();
        self.figures.pop()
    }

    /// A figure or table span; one holding several captions is cut into one per caption
    /// ([`figure::split_span`]). A span without caption right after a figure of its kind
    /// continues it (the model cut a caption from its table), and a captioned one right after a
    /// captionless figure takes it in; one without caption and without any image or drawing
    /// near it is no figure and is read as a paragraph, as GROBID reverts incomplete figures;
    /// so is one without caption whose lines read as running prose ([`figure::reads_as_prose`]),
    /// graphics near it or not.
    fn figure(&mut self, mut range: Range<usize>, table: bool) {
        let tokens = self.tokens;
        if self.carries_on_sentence(&tokens[range.clone()]) {
            self.inline(&tokens[range]);
            return;
        }
        if let Some(rest) = self.lead_in_running_text(range.clone()) {
            if rest < range.end {
                self.figure(rest..range.end, table);
            }
            return;
        }
        if !figure::has_caption(self.doc, &tokens[range.clone()])
            && figure::reads_as_prose(self.doc, &tokens[range.clone()])
        {
            // As a paragraph span: the prose may hold heads set in their own face.
            self.paragraph_span(range, None);
            return;
        }
        let merge = self
            .last_figure
            .clone()
            .filter(|(r, t)| *t == table && r.end == range.start);
        if !figure::has_caption(self.doc, &tokens[range.clone()]) {
            let toks = &tokens[range.clone()];
            if let Some((prev, _)) = merge {
                if let Some(last) = self.pop_figure() {
                    let merged = prev.start..range.end;
                    let fig = figure::build(self.doc, &tokens[merged.clone()], table, last.id);
                    self.push_figure(fig, merged.clone());
                    self.last_figure = Some((merged, table));
                    return;
                }
            }
            if !figure::has_graphics_near(self.doc, toks) {
                self.paragraph(toks);
                return;
            }
        } else if let Some((prev, _)) = merge {
            // A captioned span right after a captionless figure of its kind: the figure's
            // inner text and its caption, cut apart by the model.
            if self.figures.last().is_some_and(|f| f.head.is_none()) {
                self.pop_figure();
                if table {
                    self.counters.tables = self.counters.tables.saturating_sub(1);
                } else {
                    self.counters.figures = self.counters.figures.saturating_sub(1);
                }
                range = prev.start..range.end;
            }
        }
        let toks = &tokens[range.clone()];
        for part in figure::split_span(self.doc, toks, table) {
            let part = range.start + part.start..range.start + part.end;
            let mut fig = figure::build(self.doc, &tokens[part.clone()], table, String::new());
            // No caption lead of its own kind (a table span holding only a figure's lead, or
            // none) and running prose: a paragraph the model took for a table or figure.
            if fig.head.is_none() && figure::reads_as_prose(self.doc, &tokens[part.clone()]) {
                self.paragraph_span(part, None);
                continue;
            }
            // Numbered as the kind its caption names (a table span under `Figure 1` is a
            // figure).
            fig.id = self.next_id(fig.is_table);
            self.push_figure(fig, part.clone());
            self.last_figure = Some((part, table));
        }
        if let Some(o) = &mut self.open {
            o.interrupted = true;
        }
    }
}

/// A superscript that may be a footnote mark (or a superscript citation) in running text: a
/// number of at most three digits or a note symbol after a word of three letters or more or
/// after closing punctuation (`effect¹`, `shown.¹²`, `author*`), not to a digit, a short symbol
/// (`x²`, `cm³`) or another superscript (`10⁻²²`); inside such a mark also `,` and dashes
/// (`1,2`, `1-3`). These become `foot` callouts, kept by [`resolve_callouts`] only when they
/// match a note or a reference.
fn foot_mark(doc: &Document, zt: &ZoneToken, prev: Option<&ZoneToken>, inside: bool) -> bool {
    let Some((_, t)) = doc.token(&zt.line, zt.index) else {
        return false;
    };
    let s = t.text.as_str();
    let number = !s.is_empty() && s.len() <= 3 && s.chars().all(|c| c.is_ascii_digit());
    let symbol = matches!(s, "*" | "†" | "‡" | "§" | "¶");
    if !t.superscript {
        return false;
    }
    if inside {
        return number || symbol || matches!(s, "," | "-" | "–");
    }
    // Whether the mark is glued is not checked: pdfium often reports a space before it.
    let Some((_, p)) = prev.and_then(|p| doc.token(&p.line, p.index)) else {
        return false;
    };
    let word = p.text.chars().count() >= 3 && p.text.chars().all(char::is_alphabetic);
    let closing = matches!(p.text.as_str(), "." | "," | ";" | ":" | ")" | "]");
    (number || symbol) && !p.superscript && (word || closing)
}

/// Math operators that mark a line as a formula (`display_equation_line`).
const MATH_OPERATORS: &[&str] = &[
    "=", "<", ">", "≤", "≥", "≈", "≠", "∝", "∑", "∏", "∫", "±", "×", "∂", "→", "∈",
];

/// A display equation the model read as paragraph text: a whole printed line (within `toks`;
/// layout lines on one baseline count as one, as the number set far right is a line of its
/// own) holding a math operator and ending with an equation number `(N)` set apart from the
/// formula by at least twice the font size (flush right, as typeset). Its token range, if any.
fn display_equation_line(doc: &Document, toks: &[ZoneToken]) -> Option<Range<usize>> {
    let tok = |zt: &ZoneToken| doc.token(&zt.line, zt.index).map(|(_, t)| t);
    let bottom = |zt: &ZoneToken| tok(zt).map(|t| (t.bbox.y + t.bbox.h, t.font_size));
    let same_row = |a: &ZoneToken, b: &ZoneToken| {
        a.line == b.line
            || (a.line.page == b.line.page
                && bottom(a)
                    .zip(bottom(b))
                    .is_some_and(|((ya, sa), (yb, _))| (ya - yb).abs() <= 0.3 * sa.max(1.0)))
    };
    let mut start = 0;
    while start < toks.len() {
        let mut end = start + 1;
        while end < toks.len() && same_row(&toks[end - 1], &toks[end]) {
            end += 1;
        }
        let line = &toks[start..end];
        let k = trailing_label(doc, line);
        if k > 0 {
            let before = tok(&line[line.len() - k - 1]);
            let label = tok(&line[line.len() - k]);
            let apart = before.zip(label).is_some_and(|(b, l)| {
                l.bbox.x - (b.bbox.x + b.bbox.w) >= 2.0 * l.font_size.max(1.0)
            });
            let math = line[..line.len() - k]
                .iter()
                .filter_map(tok)
                .any(|t| MATH_OPERATORS.contains(&t.text.as_str()));
            if apart && math {
                return Some(start..end);
            }
        }
        start = end;
    }
    None
}

/// How many tokens at the end of an equation span form its label: `(`, a number (`3`, `3.1`,
/// `3a`), `)`, after other tokens; 0 when there is no such label.
fn trailing_label(doc: &Document, toks: &[ZoneToken]) -> usize {
    let text = |z: &ZoneToken| {
        doc.token(&z.line, z.index)
            .map_or("", |(_, t)| t.text.as_str())
    };
    let texts: Vec<&str> = toks.iter().rev().take(6).map(text).collect();
    if texts.first() != Some(&")") {
        return 0;
    }
    let Some(open) = texts.iter().position(|t| *t == "(") else {
        return 0;
    };
    let inner = &texts[1..open];
    let number = inner.iter().rev().enumerate().all(|(i, t)| match i % 2 {
        0 => t.chars().next().is_some_and(|c| c.is_ascii_digit()) && t.len() <= 4,
        _ => *t == ".",
    });
    if !inner.is_empty() && inner.len() % 2 == 1 && number && open + 1 < toks.len() {
        open + 1
    } else {
        0
    }
}

/// Whether a head's text reads as a piece of running text rather than a head: it opens with a
/// word in lower case (`hindering the smooth migration of`; a word with a capital or a digit
/// inside, `mRNA`, `p53`, or an enumeration mark, `a)`, `iv.`, still opens a head), it ends
/// with a comma, it holds two sentences (`… review question one. Thirty-seven studies …`), it
/// leads in to a list (`… are as follows:`), without a section number it runs to twenty words
/// and more, it names a citation's authors (`… et al.`), or after a section number it holds
/// no word. Heads are capitalised, stand alone and state one thing; the fulltext model labels
/// such lines `<section>` when they stand apart on their page (a paragraph's last line, a
/// paragraph after a figure).
pub(crate) fn sentence_fragment(text: &str, numbered: bool) -> bool {
    let text = text.trim();
    let first = text
        .split_whitespace()
        .find(|w| w.chars().any(char::is_alphanumeric))
        .unwrap_or("");
    let mark =
        first.ends_with(['.', ')']) && first.chars().filter(|c| c.is_alphabetic()).count() <= 4;
    let lower_start = first.chars().next().is_some_and(char::is_lowercase)
        && !mark
        && first
            .chars()
            .all(|c| !c.is_alphanumeric() || c.is_lowercase());
    let words: Vec<&str> = text.split_whitespace().collect();
    let two_sentences = words.len() >= 10
        && words.windows(2).any(|w| {
            let end = w[0].strip_suffix('.').unwrap_or("");
            end.chars().count() >= 3
                && end.chars().all(char::is_lowercase)
                && w[1].chars().next().is_some_and(char::is_uppercase)
        });
    // A lead-in to a list (`The exclusion criteria are as follows:`, `… for the following
    // reasons:`), or an unnumbered run of twenty words and more: prose, never a head.
    let lead_in = text.strip_suffix(':').is_some_and(|t| {
        let w: Vec<String> = t.split_whitespace().map(str::to_lowercase).collect();
        let n = w.len();
        (n >= 1 && matches!(w[n - 1].as_str(), "follows" | "following"))
            || (n >= 2 && w[n - 2] == "following")
    });
    let long = !numbered && words.len() >= 20;
    // A citation's authors (`Okafor et al. (2016) and Karim et al.`), or a number after
    // a section number with no word at all (`1 3`: a page or table figure).
    let cites = text.contains(" et al");
    let wordless = numbered && !text.is_empty() && !text.chars().any(char::is_alphabetic);
    lower_start || text.ends_with(',') || two_sentences || lead_in || long || cites || wordless
}

/// Words that leave a title unfinished when they end its line: conjunctions, articles and
/// prepositions.
const DANGLING: &[&str] = &[
    "and", "or", "of", "the", "a", "an", "for", "in", "on", "with", "to", "from", "by", "at",
    "between", "via", "versus", "vs", "into", "&",
];

/// A head text whose last word leaves it unfinished (`Cell Culture of Astrocytes and`,
/// `MATERIALS AND`). A capital single letter is a label (`Appendix A`), not the article.
fn dangling_word(t: &str) -> bool {
    t.split_whitespace().last().is_some_and(|w| {
        let lower = w.to_lowercase();
        let cased = w == lower || (w.chars().count() > 1 && w == w.to_uppercase());
        cased && DANGLING.contains(&lower.as_str())
    })
}

/// A head text that is only a section number: `3`, `3.`, `2.1`, `IV.`.
fn bare_number(t: &str) -> bool {
    let t = t.trim();
    !t.is_empty()
        && t.len() <= 8
        && t.chars().any(|c| c != '.')
        && t.chars()
            .all(|c| c.is_ascii_digit() || c == '.' || "IVXL".contains(c))
}

/// Where a section span holds a second head: the first line after the first that opens with
/// a section number, when the span's first line opens with one too or the number has levels
/// (`2.1`): `2 Method` / `2.1 Study design` set one under the other and labelled as one head.
/// A plain number opening the second line of an unnumbered head (`… of the` / `2 strains`)
/// is the head's text.
fn numbered_line(doc: &Document, toks: &[ZoneToken]) -> Option<usize> {
    let texts = figure::texts(doc, toks);
    let numbered = section_number(&texts).is_some();
    (1..toks.len()).find(|&i| {
        toks[i - 1].line != toks[i].line
            && section_number(&texts[i..])
                .is_some_and(|(_, n)| numbered || n.trim_end_matches('.').contains('.'))
    })
}

/// In a head span of several lines, the first line set in another face than the line before
/// it (another size or weight, or capitals over mixed case) and opening with a capital: a
/// subsection head stacked under its section head (`METHODS AND ANALYSIS` / `Patient
/// selection`), which the model read as one head. A head wrapped over lines keeps its face.
fn face_changed_line(doc: &Document, toks: &[ZoneToken]) -> Option<usize> {
    // (modal size in half points, mostly bold, share of capitals among letters) of the
    // tokens `range`.
    let face = |range: Range<usize>| -> Option<(i32, bool, f32)> {
        let words: Vec<&crate::layout::Token> = toks[range]
            .iter()
            .filter_map(|zt| doc.token(&zt.line, zt.index).map(|(_, t)| t))
            .collect();
        if words.is_empty() {
            return None;
        }
        let mut sizes: Vec<i32> = words
            .iter()
            .map(|t| (t.font_size * 2.0).round() as i32)
            .collect();
        sizes.sort_unstable();
        let size = sizes
            .chunk_by(|a, b| a == b)
            .max_by_key(|run| run.len())
            .map_or(0, |run| run[0]);
        let bold = words.iter().filter(|t| t.bold).count() * 2 > words.len();
        let letters: Vec<char> = words
            .iter()
            .flat_map(|t| t.text.chars())
            .filter(|c| c.is_alphabetic())
            .collect();
        let upper = letters.iter().filter(|c| c.is_uppercase()).count();
        let caps = if letters.len() >= 3 {
            upper as f32 / letters.len() as f32
        } else {
            0.5
        };
        Some((size, bold, caps))
    };
    let starts = line_starts(toks);
    let faces: Vec<Option<(i32, bool, f32)>> = (0..starts.len())
        .map(|k| face(starts[k]..starts.get(k + 1).copied().unwrap_or(toks.len())))
        .collect();
    (1..starts.len()).find_map(|k| {
        let at = starts[k];
        let opens_capital = doc
            .token(&toks[at].line, toks[at].index)
            .and_then(|(_, t)| t.text.chars().next())
            .is_some_and(char::is_uppercase);
        let (a, b) = (faces[k - 1]?, faces[k]?);
        // Capitals over mixed case, never the other way (`… Mg ION SOLID` / `CONDUCTORS`).
        let caps_over_mixed = a.2 >= 0.8 && b.2 < 0.5;
        let other_face = (a.0 - b.0).abs() >= 2 || a.1 != b.1 || caps_over_mixed;
        (opens_capital && other_face).then_some(at)
    })
}

/// The second line of a two-line head span that is a second head printed right under the
/// first in the same face (`Data analysis` / `Quantitative data`): both lines are shorter than
/// half their column and the first ended with room for the second's first word, so it was not
/// a head wrapping over two lines. The column runs from the head's left edge to the furthest
/// right edge of the page's lines that start where the head does. Both lines start at the same
/// left edge and the second opens with a capital and does not end a sentence; a first line
/// ending on a dangling word (`… and`), a hyphen or a colon wraps.
fn early_break_line(doc: &Document, toks: &[ZoneToken]) -> Option<usize> {
    let [first_line, at] = line_starts(toks)[..] else {
        return None;
    };
    let (prev, cur) = (&toks[first_line].line, &toks[at].line);
    let (a, b) = (doc.line(prev)?, doc.line(cur)?);
    let page = doc.pages.get(cur.page)?;
    if prev.page != cur.page || (a.bbox.x - b.bbox.x).abs() > 2.0 {
        return None;
    }
    let first = b.tokens.first()?;
    // A second line closing a sentence (`Not applicable.`) is a statement's text.
    if !first.text.chars().next().is_some_and(char::is_uppercase)
        || b.text().trim_end().ends_with('.')
    {
        return None;
    }
    let text = a.text();
    if dangling_word(&text) || text.trim_end().ends_with(['-', '\u{2010}', ':']) {
        return None;
    }
    let right = page
        .blocks
        .iter()
        .flat_map(|bl| &bl.lines)
        .filter(|l| (l.bbox.x - a.bbox.x).abs() <= 2.0)
        .map(|l| l.bbox.right())
        .fold(a.bbox.right(), f32::max);
    let room = right - a.bbox.right();
    let gap = first.font_size * 0.5;
    let half = (right - a.bbox.x) / 2.0;
    (room > first.bbox.w + gap + 2.0 * first.font_size && a.bbox.w < half && b.bbox.w < half)
        .then_some(at)
}

/// The indices of the tokens that open a printed line of `toks` (the first token included).
fn line_starts(toks: &[ZoneToken]) -> Vec<usize> {
    (0..toks.len())
        .filter(|&i| i == 0 || toks[i - 1].line != toks[i].line)
        .collect()
}

/// Two lines in different layout blocks (or pages): a page or column break, or a new block.
fn breaks(a: &LineRef, b: &LineRef) -> bool {
    (a.page, a.block) != (b.page, b.block)
}

/// A caption the fulltext model read into a paragraph (`… are sequenced rapidly, FIGURE 3 |
/// Multiple alignment of … [its block] … the rest of the sentence`): a layout block of the
/// span that opens with a capitalised caption lead closed by punctuation (`FIGURE 3 |`,
/// `Figure 2.`, `Table 1:`) or alone on its line (`Graph 1` over its title), and holds three
/// words at least after it. Its token range in `toks`, to the end of that block, and whether
/// its lead names a table.
fn caption_block(doc: &Document, toks: &[ZoneToken]) -> Option<(Range<usize>, bool)> {
    let texts = figure::texts(doc, toks);
    (0..toks.len())
        .filter(|&i| i == 0 || breaks(&toks[i - 1].line, &toks[i].line))
        .filter(|&i| texts[i].0.starts_with(char::is_uppercase))
        .find_map(|i| {
            let lead = figure::caption_lead(&texts[i..])?;
            let end = block_end(toks, i);
            let after = (i + lead.tokens).min(end);
            let words = texts[after..end]
                .iter()
                .filter(|t| t.0.chars().any(char::is_alphabetic))
                .count();
            let closed = lead.head.ends_with([':', '.', '|', '-', '–', '—']);
            // `Graph 1` on a line of its own, the caption's title on the next line.
            let own_line = after > i && after < end && toks[after - 1].sep == Sep::Newline;
            ((closed || own_line) && words >= 3).then_some((i..end, lead.table))
        })
}

/// The end of the layout block that token `i` of `toks` opens or is in: the first token after
/// it on another block (or page), else the end of `toks` (`toks.len()` for `i == toks.len()`).
pub(super) fn block_end(toks: &[ZoneToken], i: usize) -> usize {
    i + toks[i..]
        .iter()
        .take_while(|zt| !breaks(&zt.line, &toks[i].line))
        .count()
}

/// How many tokens after a paragraph span may show the face change ending a head that the
/// whole span is.
const HEAD_LOOKAHEAD: usize = 30;

/// A callout span: a citation, figure, table or equation marker.
fn callout_label(label: Label) -> bool {
    matches!(
        label,
        Label::CitationMarker | Label::FigureMarker | Label::TableMarker | Label::EquationMarker
    )
}

/// How far past a paragraph span to look for the face change ending a head: the change may
/// come after the span when running text follows it, a head line followed by a callout
/// (`Levels of fear` / `Smith et al. (2020) found…`).
fn head_lookahead(next: Option<Label>) -> usize {
    let text_next = matches!(
        next,
        Some(Label::Paragraph | Label::CitationMarker | Label::FigureMarker | Label::TableMarker)
    );
    if text_next {
        HEAD_LOOKAHEAD
    } else {
        0
    }
}

/// A drop cap is set at least this many times the body text size.
const DROP_CAP_RATIO: f32 = 1.5;

/// Bullets that open a list item.
const BULLETS: &[&str] = &[
    "•", "·", "▪", "■", "◦", "‣", "○", "●", "□", "➢", "►", "-", "–", "—", "*",
];

/// `toks` opens with a list-item mark: a bullet followed by text, `(a)`, `(iv)`, `(1)`, `1)`,
/// `a)`.
fn list_mark(doc: &Document, toks: &[ZoneToken]) -> bool {
    let text = |i: usize| {
        toks.get(i)
            .and_then(|z| doc.token(&z.line, z.index))
            .map_or("", |(_, t)| t.text.as_str())
    };
    let enumerator = |s: &str| {
        !s.is_empty()
            && (s.len() <= 2 && s.chars().all(|c| c.is_ascii_digit())
                || s.len() == 1 && s.chars().all(|c| c.is_ascii_lowercase())
                || s.len() <= 4 && s.chars().all(|c| "ivx".contains(c)))
    };
    let t0 = text(0);
    if BULLETS.contains(&t0) {
        return !text(1).is_empty();
    }
    if t0 == "(" {
        return enumerator(text(1)) && text(2) == ")" && !text(3).is_empty();
    }
    enumerator(t0) && text(1) == ")" && !text(2).is_empty()
}

/// A head from its tokens, the section number (if any) moved to `n`.
pub fn head(doc: &Document, toks: &[ZoneToken]) -> Head {
    let texts = figure::texts(doc, toks);
    match section_number(&texts) {
        Some((k, n)) => Head {
            n: Some(n),
            text: RichText::from_tokens(doc, &toks[k..]),
        },
        None => Head {
            n: None,
            text: RichText::from_tokens(doc, toks),
        },
    }
}

/// The section number opening a head (`2.1`, `3.`, `IV.`, `A.`, `A.1`): how many tokens it
/// takes and the number as printed. Text must follow it.
pub fn section_number(toks: &[(&str, Sep)]) -> Option<(usize, String)> {
    let digits = |s: &str| !s.is_empty() && s.len() <= 3 && s.chars().all(|c| c.is_ascii_digit());
    let roman = |s: &str| !s.is_empty() && s.len() <= 6 && s.chars().all(|c| "IVXL".contains(c));
    let letter = |s: &str| s.len() == 1 && s.chars().all(|c| c.is_ascii_uppercase());
    let (first, sep) = *toks.first()?;
    let dot_next = toks.get(1).is_some_and(|t| t.0 == ".") && sep == Sep::None;
    // A roman numeral or a letter needs its dot (`IV.`, `A.`); a letter also `A.1`.
    let ok = digits(first) || ((roman(first) || letter(first)) && dot_next);
    if !ok {
        return None;
    }
    let mut n = first.to_string();
    let mut i = 1;
    let mut last_sep = sep;
    while last_sep == Sep::None && toks.get(i).is_some_and(|t| t.0 == ".") {
        let (dot, dsep) = toks[i];
        n.push_str(dot);
        last_sep = dsep;
        i += 1;
        match toks.get(i) {
            Some(&(d, s)) if dsep == Sep::None && digits(d) => {
                n.push_str(d);
                last_sep = s;
                i += 1;
            }
            _ => break,
        }
    }
    // Text must follow, and a plain number must be followed by a space (not `3D`).
    let rest = toks.get(i)?;
    if last_sep == Sep::None || rest.0.is_empty() {
        return None;
    }
    // A bar set between the number and the title (`2.1 | Plant material`) belongs to neither.
    if rest.0 == "|" && toks.get(i + 1).is_some_and(|t| !t.0.is_empty()) {
        return Some((i + 1, n));
    }
    Some((i, n))
}
