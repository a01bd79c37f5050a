//! Figures and tables from the fulltext model's `<figure>`/`<table>` spans: the caption split
//! into head, label and description by rule ([`build`]), a table's lines as rows, and the
//! page's images and drawings near the figure as its graphics; then the figure and table
//! models' labels over each figure's tokens decide its caption, content and note
//! ([`model_rows`], [`apply_model`]; the models run in the actors crate, labels come in).

use std::ops::Range;

use crate::body::text::TextBuilder;
use crate::body::FigureZone;
use crate::document::{Cell, Figure, Graphic, PageBox, RichText};
use crate::layout::{BBox, Document, Sep, Span, ZoneToken};
use crate::models::fulltext;
use crate::models::lexical::CAPTION_WORDS;

/// The lead of a caption: `Figure 3:`, `Fig. 2.`, `Table 1`, `TABLE II`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptionLead {
    /// How many tokens the lead covers.
    pub tokens: usize,
    /// The lead as printed (`Fig. 2.`).
    pub head: String,
    /// The number in it (`2`, `II`, `S1`, `2.1`).
    pub label: String,
    /// The lead names a table.
    pub table: bool,
}

fn is_label_chunk(s: &str) -> bool {
    let digits = s.chars().filter(char::is_ascii_digit).count();
    let roman = !s.is_empty() && s.len() <= 6 && s.chars().all(|c| "IVXL".contains(c));
    let alnum = s.chars().all(|c| c.is_ascii_alphanumeric());
    // `3`, `12b`, `S1`, `A2`, `II`.
    roman
        || (alnum
            && digits > 0
            && s.len() <= 5
            && s.chars().filter(char::is_ascii_alphabetic).count() <= 1)
}

/// Recognise a caption lead at the start of `toks` (token texts with what follows each).
pub fn caption_lead(toks: &[(&str, Sep)]) -> Option<CaptionLead> {
    let (first, sep0) = *toks.first()?;
    let word = first.to_lowercase();
    // `Table1`: the number glued to the word in one token.
    if let Some((w, table)) = CAPTION_WORDS.iter().find(|(w, _)| {
        word.len() > w.len() && word.starts_with(w) && is_label_chunk(&first[w.len()..])
    }) {
        return Some(close_lead(
            toks,
            1,
            first.to_string(),
            first[w.len()..].to_string(),
            sep0,
            *table,
        ));
    }
    let table = CAPTION_WORDS.iter().find(|(w, _)| *w == word)?.1;
    let mut i = 1;
    let mut head = first.to_string();
    let mut last_sep = sep0;
    if toks.get(i).is_some_and(|t| t.0 == ".") && sep0 == Sep::None {
        head.push('.');
        last_sep = toks[i].1;
        i += 1;
    }
    // `Table-1`, `Fig-2`: a hyphen glued between the word and its number.
    if last_sep == Sep::None && toks.get(i).is_some_and(|t| t.0 == "-" && t.1 == Sep::None) {
        head.push('-');
        i += 1;
    }
    let (num, sep) = *toks.get(i).filter(|t| is_label_chunk(t.0))?;
    push_lead(&mut head, last_sep, num);
    Some(close_lead(toks, i + 1, head, num.to_string(), sep, table))
}

fn push_lead(head: &mut String, sep: Sep, text: &str) {
    if sep != Sep::None {
        head.push(' ');
    }
    head.push_str(text);
}

/// The rest of a caption lead after its first number (token `i` on): more numbers after a
/// glued dot (`2.1`), then closing punctuation.
fn close_lead(
    toks: &[(&str, Sep)],
    mut i: usize,
    mut head: String,
    mut label: String,
    sep: Sep,
    table: bool,
) -> CaptionLead {
    let push = push_lead;
    let mut last_sep = sep;
    // `2.1`: a dot glued between two numbers.
    while last_sep == Sep::None
        && toks.get(i).is_some_and(|t| t.0 == "." && t.1 == Sep::None)
        && toks
            .get(i + 1)
            .is_some_and(|t| t.0.chars().all(|c| c.is_ascii_digit()))
    {
        let n = toks[i + 1].0;
        label.push('.');
        label.push_str(n);
        head.push('.');
        head.push_str(n);
        last_sep = toks[i + 1].1;
        i += 2;
    }
    // Closing punctuation: `:`, `.`, `|`, a dash, at most two.
    for _ in 0..2 {
        match toks.get(i) {
            Some(&(p, sep)) if matches!(p, ":" | "." | "|" | "-" | "–" | "—" | ")") => {
                push(&mut head, last_sep, p);
                last_sep = sep;
                i += 1;
            }
            _ => break,
        }
    }
    CaptionLead {
        tokens: i,
        head,
        label,
        table,
    }
}

/// Captions that say a table goes on from an earlier one (`Table 2 (Continued)`,
/// `Table 1. Cont.`), lower-cased, their punctuation left out.
const CONTINUED: &[&str] = &[
    "continued",
    "cont",
    "contd",
    "continuation",
    "continuação",
    "continuacao",
    "continuación",
    "continuacion",
    "suite",
    "fortsetzung",
];

/// Whether a table's caption says that it goes on from an earlier table: it has no
/// description beside its lead, or one that is only a continuation word.
fn continues(fig: &Figure) -> bool {
    let words = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric() || c.is_whitespace())
            .collect::<String>()
            .to_lowercase()
    };
    match &fig.desc {
        Some(d) => CONTINUED.contains(&words(&d.text).trim()),
        None => true,
    }
}

/// A table printed over several pages, whose later parts repeat its lead with a continuation
/// caption (`Table 2 (Continued)`, `Table 2. Cont.`, the lead alone, or its whole caption
/// again), is one table: each such part, when an earlier table has its label, gives its rows,
/// boxes, graphics and note to that table and is no table of its own. Later tables keep
/// their ids.
pub fn join_continued_tables(figures: &mut Vec<Figure>) {
    let mut k = 0;
    while k < figures.len() {
        let f = &figures[k];
        let label = f.label.as_deref().map(str::to_lowercase);
        let desc = |g: &Figure| g.desc.as_ref().map(|d| d.text.to_lowercase());
        let first = match label.filter(|_| f.is_table) {
            Some(l) => figures[..k].iter().position(|e| {
                e.is_table
                    && e.label.as_deref().map(str::to_lowercase).as_ref() == Some(&l)
                    && (continues(f) || desc(e) == desc(f))
            }),
            None => None,
        };
        let Some(first) = first else {
            k += 1;
            continue;
        };
        let part = figures.remove(k);
        let into = &mut figures[first];
        into.rows.extend(part.rows);
        into.boxes.extend(part.boxes);
        into.graphics.extend(part.graphics);
        match (&mut into.note, part.note) {
            (Some(n), Some(m)) => n.append(m),
            (n @ None, m) => *n = m,
            _ => {}
        }
    }
}

/// Token texts of a span with what follows each.
pub(crate) fn texts<'d>(doc: &'d Document, toks: &[ZoneToken]) -> Vec<(&'d str, Sep)> {
    toks.iter()
        .map(|zt| {
            let t = doc
                .token(&zt.line, zt.index)
                .map_or("", |(_, t)| t.text.as_str());
            (t, zt.sep)
        })
        .collect()
}

/// A figure (or table) span holding several captions of its kind with distinct labels, as the
/// parts that each hold one: a table's part starts at its caption (tables are captioned above);
/// a figure's part starts after the layout block of the previous caption, so the inner text
/// printed between two captions goes with the figure captioned under it.
pub fn split_span(doc: &Document, toks: &[ZoneToken], table: bool) -> Vec<Range<usize>> {
    if toks.is_empty() {
        return Vec::new();
    }
    let texts = texts(doc, toks);
    let mut leads: Vec<(usize, String)> = Vec::new();
    for i in (0..toks.len()).filter(|&i| i == 0 || toks[i - 1].sep == Sep::Newline) {
        if let Some(l) = caption_lead(&texts[i..]).filter(|l| l.table == table) {
            if !leads.iter().any(|(_, label)| *label == l.label) {
                leads.push((i, l.label));
            }
        }
    }
    let mut cuts = vec![0];
    for w in leads.windows(2) {
        let (prev, next) = (w[0].0, w[1].0);
        let cut = if table {
            next
        } else {
            super::block_end(toks, prev).min(next)
        };
        if cut > cuts.last().copied().unwrap_or(0) {
            cuts.push(cut);
        }
    }
    cuts.push(toks.len());
    cuts.windows(2).map(|w| w[0]..w[1]).collect()
}

/// Words that refer to a figure or table named right after them in running text.
const REFERRING: &[&str] = &[
    "(",
    "see",
    "in",
    "of",
    "and",
    "or",
    "to",
    "from",
    "with",
    "by",
    "on",
    "cf",
    "cf.",
    "as",
    "shows",
    "show",
    "shown",
    "lists",
    "gives",
    "presents",
    "summarizes",
    "summarises",
];

/// Where the caption lead of a figure (or table) span is: the first line start holding a lead
/// of the span's kind, else of the other kind, else a capitalised lead of the span's kind
/// inside a line.
fn find_lead(doc: &Document, toks: &[ZoneToken], table: bool) -> Option<(usize, CaptionLead)> {
    let texts = texts(doc, toks);
    let starts = (0..toks.len()).filter(|&i| i == 0 || toks[i - 1].sep == Sep::Newline);
    let leads: Vec<(usize, CaptionLead)> = starts
        .filter_map(|i| caption_lead(&texts[i..]).map(|l| (i, l)))
        .collect();
    let pick = leads
        .iter()
        .position(|(_, l)| l.table == table)
        .or(if leads.is_empty() { None } else { Some(0) });
    match pick {
        Some(p) => leads.into_iter().nth(p),
        // A lead inside a line (a figure's inner text laid out on the caption's line):
        // capitalised and of the span's kind, and not referred to by running text before it
        // (`(see Table 1 for …)`, `presented in Table 2`).
        None => (0..toks.len())
            .filter(|&i| texts[i].0.starts_with(char::is_uppercase))
            .filter(|&i| i == 0 || !REFERRING.contains(&texts[i - 1].0))
            .filter_map(|i| caption_lead(&texts[i..]).map(|l| (i, l)))
            .find(|(_, l)| l.table == table),
    }
}

/// Build one figure or table from the tokens of its span. The caption is split by rule
/// ([`caption_lead`]) and is the lead's layout block (the next block when the lead ends its
/// own). A figure's other text (printed inside it, or a running foot or paragraph the model
/// ran the span on over) goes to `note`; the rest of a table's span becomes rows, one per
/// line, up to a line opening with `Note`, `Abbreviations`, `*`… that starts the table's
/// note. Without a lead there is no description: a figure's text goes to its note and a
/// table's to its rows.
pub fn build(doc: &Document, toks: &[ZoneToken], table: bool, id: String) -> Figure {
    let lead = find_lead(doc, toks, table);
    // A span whose only caption lead names the other kind is of that kind: a chart the
    // fulltext model read as a table, under its `Figure 1` caption, is a figure.
    let table = lead.as_ref().map_or(table, |(_, l)| l.table);
    let mut fig = Figure {
        id,
        is_table: table,
        ..Figure::default()
    };
    let (caption, outside): (std::ops::Range<usize>, Vec<ZoneToken>) = match lead {
        Some((pos, lead)) => {
            fig.head = Some(lead.head);
            fig.label = Some(lead.label);
            let start = (pos + lead.tokens).min(toks.len());
            // The caption is the layout block its text starts in: the lead's own, or the next
            // one when the lead ends its block.
            let end = super::block_end(toks, start);
            let mut rest = toks[..pos].to_vec();
            rest.extend_from_slice(&toks[end..]);
            (start..end, rest)
        }
        // No caption: nothing of it is a description. A table's text is its rows; a
        // figure's (axis labels, text drawn in it) is kept in its note.
        None => (0..0, toks.to_vec()),
    };
    let desc = RichText::from_tokens(doc, &toks[caption]);
    if !desc.tokens.is_empty() {
        fig.desc = Some(desc);
    }
    if table {
        let (body, note) = outside.split_at(table_note_start(doc, &outside));
        fig.rows = rows(doc, body);
        if !note.is_empty() {
            fig.note = Some(RichText::from_tokens(doc, note));
        }
    } else if !outside.is_empty() {
        fig.note = Some(RichText::from_tokens(doc, &outside));
    }
    fig.boxes = token_boxes(doc, toks);
    fig
}

/// Words and marks that open a table's note when they start a line.
const NOTE_OPENERS: &[&str] = &[
    "Note",
    "Notes",
    "NOTE",
    "NOTES",
    "Abbreviations",
    "Source",
    "Sources",
    "*",
    "†",
    "‡",
];

/// Where a table's note starts in the tokens outside its caption: the first line (after the
/// first) opening with a note word or mark; the end when there is none.
fn table_note_start(doc: &Document, toks: &[ZoneToken]) -> usize {
    (1..toks.len())
        .find(|&i| {
            toks[i - 1].sep == Sep::Newline
                && doc
                    .token(&toks[i].line, toks[i].index)
                    .is_some_and(|(_, t)| NOTE_OPENERS.contains(&t.text.as_str()))
        })
        .unwrap_or(toks.len())
}

/// One row per line, cells cut where the gap between two tokens is wider than the font size.
fn rows(doc: &Document, toks: &[ZoneToken]) -> Vec<Vec<Cell>> {
    let mut rows: Vec<Vec<Cell>> = Vec::new();
    let mut cell = TextBuilder::new();
    let mut prev: Option<(&ZoneToken, BBox, f32)> = None;
    let close = |cell: TextBuilder, rows: &mut Vec<Vec<Cell>>| {
        let text = cell.finish().text;
        if !text.is_empty() {
            if let Some(r) = rows.last_mut() {
                r.push(Cell { text, cols: 1 });
            }
        }
    };
    for zt in toks {
        let Some((_, t)) = doc.token(&zt.line, zt.index) else {
            continue;
        };
        let new_row = prev.is_none_or(|(p, _, _)| p.line != zt.line);
        let new_cell = prev.is_some_and(|(_, b, size)| t.bbox.x - b.right() > size.max(1.0));
        if new_row || new_cell {
            close(std::mem::take(&mut cell), &mut rows);
        }
        if new_row {
            rows.push(Vec::new());
        }
        cell.push(doc, zt);
        prev = Some((zt, t.bbox, t.font_size));
    }
    close(cell, &mut rows);
    rows.retain(|r| !r.is_empty());
    rows
}

/// The union of the tokens' boxes, one per page, in page order.
pub fn token_boxes(doc: &Document, toks: &[ZoneToken]) -> Vec<PageBox> {
    let mut out: Vec<PageBox> = Vec::new();
    for zt in toks {
        let Some((page, t)) = doc.token(&zt.line, zt.index) else {
            continue;
        };
        match out.iter_mut().find(|b| b.page == page) {
            Some(b) => b.bbox = b.bbox.union(&t.bbox),
            None => out.push(PageBox { page, bbox: t.bbox }),
        }
    }
    out
}

/// How far (PDF units) above or below a figure's text an image may sit and still be its own:
/// GROBID's "connected graphics" distance.
const GRAPHIC_REACH: f32 = 100.0;

fn near(area: &BBox, g: &BBox) -> bool {
    let overlap_x = g.x < area.right() && g.right() > area.x;
    let gap_y = (g.y - area.bottom()).max(area.y - g.bottom()).max(0.0);
    overlap_x && gap_y <= GRAPHIC_REACH
}

/// Whether a span's lines read as running prose rather than a figure's or a table's inner
/// text: at least three lines and 40 words, three lines in four holding six or more words
/// (tokens of two letters or more). Axis labels, legends and table rows are short or mostly
/// numbers; a body paragraph the model took for a table or figure is not.
pub fn reads_as_prose(doc: &Document, toks: &[ZoneToken]) -> bool {
    let mut words_per_line: Vec<usize> = Vec::new();
    let mut last_line = None;
    for z in toks {
        if last_line != Some(z.line) {
            words_per_line.push(0);
            last_line = Some(z.line);
        }
        let is_word = doc
            .token(&z.line, z.index)
            .is_some_and(|(_, t)| t.text.chars().filter(|c| c.is_alphabetic()).count() >= 2);
        if is_word {
            if let Some(n) = words_per_line.last_mut() {
                *n += 1;
            }
        }
    }
    let lines = words_per_line.len();
    let words: usize = words_per_line.iter().sum();
    let long = words_per_line.iter().filter(|n| **n >= 6).count();
    lines >= 3 && words >= 40 && 4 * long >= 3 * lines
}

/// Whether a figure span holds a caption lead ([`caption_lead`]) of either kind.
pub fn has_caption(doc: &Document, toks: &[ZoneToken]) -> bool {
    find_lead(doc, toks, false).is_some() || find_lead(doc, toks, true).is_some()
}

/// Whether any image or drawing of the span's pages is near its text.
pub fn has_graphics_near(doc: &Document, toks: &[ZoneToken]) -> bool {
    token_boxes(doc, toks).iter().any(|pb| {
        doc.pages
            .iter()
            .filter(|p| p.number == pb.page)
            .flat_map(|p| p.images.iter().chain(&p.vectors))
            .any(|g| near(&pb.bbox, g))
    })
}

/// How much farther a graphic below a figure's text counts than one above it: captions are
/// printed under figures far more often than over them.
const BELOW_PENALTY: f32 = 50.0;

/// Give each bitmap and drawing of the pages to the figure (not table) it belongs to: among the
/// figures whose text overlaps it horizontally within 100 units vertically, the
/// nearest, a caption under the graphic preferred. Bitmaps become one graphic each, a figure's
/// drawings on one page one graphic (their union); the figure's boxes grow to hold them.
pub fn attach_graphics(doc: &Document, figures: &mut [Figure]) {
    for page in &doc.pages {
        // (figure index, bitmap or union of drawings)
        let mut bitmaps: Vec<(usize, BBox)> = Vec::new();
        let mut drawings: Vec<(usize, BBox)> = Vec::new();
        let owner = |g: &BBox| {
            figures
                .iter()
                .enumerate()
                .filter(|(_, f)| !f.is_table)
                .filter_map(|(i, f)| {
                    let b = f.boxes.iter().find(|b| b.page == page.number)?;
                    near(&b.bbox, g).then(|| (i, distance(&b.bbox, g)))
                })
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(i, _)| i)
        };
        for img in &page.images {
            if let Some(i) = owner(img) {
                bitmaps.push((i, *img));
            }
        }
        for v in &page.vectors {
            if let Some(i) = owner(v) {
                match drawings.iter_mut().find(|(j, _)| *j == i) {
                    Some((_, u)) => *u = u.union(v),
                    None => drawings.push((i, *v)),
                }
            }
        }
        let graphics = bitmaps
            .into_iter()
            .map(|(i, b)| (i, b, true))
            .chain(drawings.into_iter().map(|(i, b)| (i, b, false)));
        for (i, bbox, bitmap) in graphics {
            let Some(fig) = figures.get_mut(i) else {
                continue;
            };
            let at = PageBox {
                page: page.number,
                bbox,
            };
            fig.graphics.push(Graphic {
                at,
                bitmap,
                url: None,
            });
            if let Some(b) = fig.boxes.iter_mut().find(|b| b.page == page.number) {
                b.bbox = b.bbox.union(&bbox);
            }
        }
    }
}

/// Vertical distance from a figure's text to a graphic, [`BELOW_PENALTY`] added when the
/// graphic is under the text.
fn distance(area: &BBox, g: &BBox) -> f32 {
    let above = (area.y - g.bottom()).max(0.0);
    let below = (g.y - area.bottom()).max(0.0);
    if below > 0.0 {
        below + BELOW_PENALTY
    } else {
        above
    }
}

/// What the figure or table model says a token of a figure is: GROBID's labels of the two
/// models (only the table model has `Note`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Head,
    Label,
    Desc,
    Content,
    Note,
    Other,
}

impl From<crate::models::figure::Label> for Part {
    fn from(l: crate::models::figure::Label) -> Part {
        use crate::models::figure::Label as L;
        match l {
            L::FigureHead => Part::Head,
            L::Label => Part::Label,
            L::FigDesc => Part::Desc,
            L::Content => Part::Content,
            L::Other => Part::Other,
        }
    }
}

impl From<crate::models::table::Label> for Part {
    fn from(l: crate::models::table::Label) -> Part {
        use crate::models::table::Label as L;
        match l {
            L::FigureHead => Part::Head,
            L::Label => Part::Label,
            L::FigDesc => Part::Desc,
            L::Content => Part::Content,
            L::Note => Part::Note,
            L::Other => Part::Other,
        }
    }
}

/// The figure or table model's labels (decoded `parts` over `toks`, the tokens the figure was
/// built from) make the figure's caption, content and note; `fig` is the figure [`build`] made
/// from the same tokens by rule. What comes from where:
///
/// - the caption lead found by rule ([`caption_lead`]) gives `head` and `label` (the number
///   normalised: `2` from `Fig. 2.`), whatever the model labelled its tokens;
/// - the model decides where the caption (`figDesc`) ends: it is the run of tokens right after
///   the lead that the model labels as caption (its head and label tokens there included),
///   carried on to the end of the line it stops in; a table's caption stops at the end of the
///   rule's caption block at the latest;
/// - the model decides which of the other tokens are a table's content (its rows, cut into
///   cells by rule); the rest (its notes, other tokens, caption text away from the lead) is the
///   table's `note`, and a figure's other tokens are its `note` (the text printed inside it);
/// - a span without a caption lead keeps the rule's figure: no description, its text in the
///   note (a table's in its rows). The model's caption there is most often running text or
///   a chart's labels, and GROBID's caption is printed with its lead;
/// - when the model labels no caption right after the lead, the rule's figure stands.
///
/// Every token lands in the head, the description, the rows or the note. Whether the model's
/// labels were used.
pub fn apply_model(
    doc: &Document,
    toks: &[ZoneToken],
    fig: &mut Figure,
    parts: &[Span<Part>],
) -> bool {
    let Some((pos, lead)) = find_lead(doc, toks, fig.is_table) else {
        return false;
    };
    let mut part_of = vec![Part::Other; toks.len()];
    for s in parts {
        for p in part_of.iter_mut().take(s.tokens.end).skip(s.tokens.start) {
            *p = s.label;
        }
    }
    let start = (pos + lead.tokens).min(toks.len());
    let mut end = start
        + part_of[start..]
            .iter()
            .take_while(|p| matches!(p, Part::Desc | Part::Head | Part::Label))
            .count();
    // A caption ends with a line: the rest of the line the model stopped in is caption text.
    while end > start && end < toks.len() && toks[end].line == toks[end - 1].line {
        end += 1;
    }
    // Never past the caption's layout block: the model sometimes reads a table's first row,
    // set close under its caption, or a running foot or the next paragraph under a figure's
    // caption, as caption text.
    end = end.min(super::block_end(toks, start));
    if end == start {
        return false;
    }
    fig.head = Some(lead.head);
    fig.label = Some(lead.label);
    fig.desc = Some(RichText::from_tokens(doc, &toks[start..end]));
    let outside = |keep: &dyn Fn(Part) -> bool| -> Vec<ZoneToken> {
        (0..toks.len())
            .filter(|i| !(pos..end).contains(i) && keep(part_of[*i]))
            .map(|i| toks[i])
            .collect()
    };
    let note = if fig.is_table {
        fig.rows = rows(doc, &outside(&|p| p == Part::Content));
        outside(&|p| p != Part::Content)
    } else {
        outside(&|_| true)
    };
    fig.note = (!note.is_empty()).then(|| RichText::from_tokens(doc, &note));
    true
}

/// The zone tokens and fulltext facts of the body and of the annex, which a [`FigureZone`]'s
/// tokens index (by its `annex` flag).
pub struct ZoneFacts<'a> {
    pub body_tokens: &'a [ZoneToken],
    pub body_facts: &'a [fulltext::TokenFacts],
    pub annex_tokens: &'a [ZoneToken],
    pub annex_facts: &'a [fulltext::TokenFacts],
}

impl ZoneFacts<'_> {
    fn of(&self, z: &FigureZone) -> (&[ZoneToken], &[fulltext::TokenFacts]) {
        let (toks, facts) = if z.annex {
            (self.annex_tokens, self.annex_facts)
        } else {
            (self.body_tokens, self.body_facts)
        };
        let r = z.tokens.start.min(toks.len())..z.tokens.end.min(toks.len());
        (&toks[r.clone()], facts.get(r).unwrap_or(&[]))
    }
}

/// The figure and table models' input: the rows ([`crate::models::figure::rows`], the
/// fulltext rows the fulltext model read) of each figure zone's tokens, and of each table
/// zone's, in zone order: one batch per model, as GROBID labels each `<figure>` and `<table>`
/// cluster of the fulltext model's output.
pub fn model_rows(zones: &[FigureZone], zf: &ZoneFacts) -> (Vec<Rows>, Vec<Rows>) {
    let (mut figures, mut tables) = (Vec::new(), Vec::new());
    for z in zones {
        let mut rows = crate::models::figure::rows(zf.of(z).1);
        for r in &mut rows {
            if let Some(c) = r.get_mut(BITMAP_AROUND) {
                *c = "0".into();
            }
        }
        if z.table {
            tables.push(rows);
        } else {
            figures.push(rows);
        }
    }
    (figures, tables)
}

/// A model's decoded spans as [`Part`]s.
fn as_parts<L: Into<Part>>(spans: Vec<Span<L>>) -> Vec<Span<Part>> {
    spans
        .into_iter()
        .map(|s| Span {
            label: s.label.into(),
            tokens: s.tokens,
        })
        .collect()
}

/// The `bitmapAround` column of the fulltext rows. GROBID's figure and table training rows
/// carry 0 there (every row of the figure corpus, all but 31 of the table corpus's 16,781), so
/// the models never learnt what a 1 means: the run-time rows carry 0 as well.
const BITMAP_AROUND: usize = 23;

/// One sequence of feature rows.
pub use crate::features::Rows;

/// The figure and table models' labels (one sequence per zone of their kind, in the order of
/// [`model_rows`]) applied to the body's figures ([`apply_model`]). A zone without labels (the
/// model is not installed) keeps the figure the rule built. How many figures took the
/// models' labels.
pub fn apply_models(
    doc: &Document,
    zf: &ZoneFacts,
    figures: &mut [Figure],
    zones: &[FigureZone],
    figure_labels: &[crate::labels::Labels],
    table_labels: &[crate::labels::Labels],
) -> crate::Result<usize> {
    let (mut next_figure, mut next_table) = (0, 0);
    let mut used = 0;
    for z in zones {
        let labels = if z.table {
            next_table += 1;
            table_labels.get(next_table - 1)
        } else {
            next_figure += 1;
            figure_labels.get(next_figure - 1)
        };
        let Some(labels) = labels.filter(|l| !l.is_empty()) else {
            continue;
        };
        let parts = if z.table {
            as_parts(crate::models::table::decode(labels)?)
        } else {
            as_parts(crate::models::figure::decode(labels)?)
        };
        let Some(fig) = figures.get_mut(z.figure) else {
            continue;
        };
        if apply_model(doc, zf.of(z).0, fig, &parts) {
            used += 1;
        }
    }
    Ok(used)
}
