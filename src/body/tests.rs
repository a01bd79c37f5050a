//! Body assembly and callout resolution on hand-built documents and spans.

use proptest::prelude::*;

use super::callouts::{author_years, label_items, numbers};
use super::figure::caption_lead;
use super::*;
use crate::document::{Back, Note, Reference};
use crate::layout::{BBox, Block, Line, Page, Token};
use crate::models::citation::Citation;
use crate::models::date::Date;
use crate::models::name::Person;

/// A piece of a line: `S` opens a new span with its label, `C` continues the previous span.
enum Seg {
    S(Label, &'static str),
    C(&'static str),
}
use Seg::{C, S};

type Lines = Vec<Vec<Seg>>;

struct Built {
    doc: Document,
    tokens: Vec<ZoneToken>,
    spans: Vec<Span<Label>>,
}

/// Split a word into GROBID-like tokens: letter/digit runs, every other character alone;
/// a `^` makes what follows it superscript.
fn word_tokens(word: &str) -> Vec<(String, bool)> {
    let mut out: Vec<(String, bool)> = Vec::new();
    let mut sup = false;
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut Vec<(String, bool)>, sup: bool| {
        if !run.is_empty() {
            out.push((std::mem::take(run), sup));
        }
    };
    for ch in word.chars() {
        if ch == '^' {
            flush(&mut run, &mut out, sup);
            sup = true;
        } else if ch.is_alphanumeric() {
            run.push(ch);
        } else {
            flush(&mut run, &mut out, sup);
            out.push((ch.to_string(), sup));
        }
    }
    flush(&mut run, &mut out, sup);
    out
}

/// Pages of blocks of lines of segments → a document, its zone tokens and spans.
fn build(pages: Vec<Vec<Lines>>) -> Built {
    let mut doc = Document::default();
    let mut labels: Vec<(Label, bool)> = Vec::new();
    for (pi, blocks) in pages.into_iter().enumerate() {
        let mut page = Page {
            number: pi as u32 + 1,
            width: 600.0,
            height: 800.0,
            ..Page::default()
        };
        for (bi, lines) in blocks.into_iter().enumerate() {
            let mut block = Block::default();
            for (li, segs) in lines.into_iter().enumerate() {
                let y = 50.0 + bi as f32 * 100.0 + li as f32 * 12.0;
                let mut line = Line::default();
                let mut x = 50.0;
                for seg in segs {
                    let (label, text, new) = match seg {
                        S(l, t) => (l, t, true),
                        C(t) => (labels.last().map_or(Label::Other, |l| l.0), t, false),
                    };
                    let mut first = new;
                    for word in text.split_whitespace() {
                        let toks = word_tokens(word);
                        let n = toks.len();
                        for (k, (t, sup)) in toks.into_iter().enumerate() {
                            let w = 5.0 * t.chars().count() as f32;
                            line.tokens.push(Token {
                                bbox: BBox { x, y, w, h: 10.0 },
                                text: t,
                                font_size: 10.0,
                                superscript: sup,
                                space_after: k + 1 == n,
                                ..Token::default()
                            });
                            x += w + if k + 1 == n { 3.0 } else { 0.0 };
                            labels.push((label, first));
                            first = false;
                        }
                    }
                }
                if let Some(t) = line.tokens.last_mut() {
                    t.space_after = !t.text.ends_with('-');
                }
                block.lines.push(line);
            }
            page.blocks.push(block);
        }
        doc.pages.push(page);
    }
    let mut refs = Vec::new();
    for (pi, p) in doc.pages.iter().enumerate() {
        for (bi, b) in p.blocks.iter().enumerate() {
            for li in 0..b.lines.len() {
                refs.push(LineRef {
                    page: pi,
                    block: bi,
                    line: li,
                });
            }
        }
    }
    let tokens = zone_tokens(&doc, &refs);
    let mut spans: Vec<Span<Label>> = Vec::new();
    for (i, (label, new)) in labels.into_iter().enumerate() {
        match spans.last_mut() {
            Some(s) if !new && s.label == label => s.tokens.end = i + 1,
            _ => spans.push(Span {
                label,
                tokens: i..i + 1,
            }),
        }
    }
    Built { doc, tokens, spans }
}

fn one_page(blocks: Vec<Lines>) -> Built {
    build(vec![blocks])
}

fn assembled(b: &Built) -> Body {
    assemble(&b.doc, &b.tokens, &b.spans)
}

/// The body as lines of text, one per element, for exact comparisons.
fn outline(body: &Body) -> Vec<String> {
    let mut out = Vec::new();
    for d in &body.divs {
        match &d.head {
            Some(h) => out.push(format!("div n={:?} {}", h.n, h.text.text)),
            None => out.push("div".into()),
        }
        for b in &d.blocks {
            out.push(match b {
                BodyBlock::Paragraph(p) => format!("p {}", p.text),
                BodyBlock::List(items) => format!(
                    "list {}",
                    items
                        .iter()
                        .map(|i| i.text.as_str())
                        .collect::<Vec<_>>()
                        .join(" | ")
                ),
                BodyBlock::Formula(f) => format!("{} {} {:?}", f.id, f.text.text, f.label),
            });
        }
    }
    for f in &body.figures {
        out.push(format!(
            "{} {:?} {:?} {:?} {:?}",
            f.id,
            f.head,
            f.label,
            f.desc.as_ref().map(|d| d.text.as_str()),
            f.note.as_ref().map(|d| d.text.as_str()),
        ));
    }
    out
}

fn paragraphs(body: &Body) -> Vec<&RichText> {
    body.divs
        .iter()
        .flat_map(|d| &d.blocks)
        .filter_map(|b| match b {
            BodyBlock::Paragraph(p) => Some(p),
            _ => None,
        })
        .collect()
}

/// `(callout text, kind, target)` of a text's callouts.
fn calls(rt: &RichText) -> Vec<(&str, &'static str, Option<&str>)> {
    rt.refs
        .iter()
        .map(|c| {
            (
                &rt.text[c.range.clone()],
                c.kind.as_str(),
                c.target.as_deref(),
            )
        })
        .collect()
}

use Label::{
    CitationMarker as Cit, Equation as Eq, EquationLabel as EqL, EquationMarker as EqM,
    Figure as Fig, FigureMarker as FigM, Other as O, Paragraph as P, Section as H, Table as Tab,
    TableMarker as TabM,
};

#[test]
fn no_tokens_give_an_empty_body() {
    let b = one_page(vec![vec![vec![S(P, "Text.")]]]);
    assert!(assemble(&b.doc, &[], &b.spans).is_empty());
    assert!(!assemble(&b.doc, &b.tokens, &[]).is_empty());
}

#[test]
fn sections_take_their_numbers_and_text_before_the_first_head_opens_a_headless_div() {
    let b = one_page(vec![
        vec![vec![S(P, "Some text before any head.")]],
        vec![vec![S(H, "1. Introduction")]],
        vec![vec![S(P, "We study things.")]],
        vec![vec![S(H, "2.1 Related work")]],
        vec![vec![S(P, "Prior art.")]],
        vec![vec![S(H, "IV. DISCUSSION")], vec![S(H, "A. Proofs")]],
        vec![vec![S(H, "3 Results")], vec![S(H, "Conclusion")]],
        vec![vec![S(H, "5.")], vec![S(H, "Outlook")]],
    ]);
    assert_eq!(
        outline(&assembled(&b)),
        [
            "div",
            "p Some text before any head.",
            "div n=Some(\"1.\") Introduction",
            "p We study things.",
            "div n=Some(\"2.1\") Related work",
            "p Prior art.",
            "div n=Some(\"IV.\") DISCUSSION",
            "div n=Some(\"A.\") Proofs",
            "div n=Some(\"3\") Results",
            "div n=None Conclusion",
            "div n=Some(\"5.\") Outlook",
        ]
    );
}

#[test]
fn a_paragraph_broken_by_a_column_break_or_a_figure_continues_lower_case() {
    let b = one_page(vec![
        vec![
            vec![S(P, "The first half of a sen-")],
            vec![C("tence goes on")],
        ],
        // Next column: a new block opening lower-case.
        vec![vec![S(P, "and ends here.")]],
        vec![vec![S(P, "A new paragraph starts")]],
        vec![vec![S(Fig, "Figure 2: A caption.")]],
        vec![vec![S(P, "below the figure.")]],
        // Same block, lower-case after a paragraph: the model said new paragraph.
        vec![vec![S(P, "One.")], vec![S(P, "two.")]],
    ]);
    let body = assembled(&b);
    assert_eq!(
        outline(&body),
        [
            "div",
            "p The first half of a sentence goes on and ends here.",
            "p A new paragraph starts below the figure.",
            "p One.",
            "p two.",
            "fig_0 Some(\"Figure 2:\") Some(\"2\") Some(\"A caption.\") None",
        ]
    );
    // The de-hyphenated `sen-` `tence`: the hyphen's box keeps an empty range.
    let p = paragraphs(&body)[0];
    let sen = &p.tokens[5];
    assert_eq!(&p.text[sen.range.clone()], "sen");
    assert!(p.tokens[6].range.is_empty());
    assert_eq!(p.tokens[7].range.start, sen.range.end);
    assert_eq!(&p.text[p.tokens[7].range.clone()], "tence");
}

#[test]
fn rich_text_joins_tokens_by_their_separators_with_one_box_each() {
    let b = one_page(vec![vec![
        vec![S(P, "Well-known (x, y) exam-")],
        vec![C("ple; Smith-")],
        vec![C("Jones")],
    ]]);
    let rt = RichText::from_tokens(&b.doc, &b.tokens);
    assert_eq!(rt.text, "Well-known (x, y) example; Smith-Jones");
    assert_eq!(rt.tokens.len(), b.tokens.len());
    assert!(rt.refs.is_empty());
    for (tb, zt) in rt.tokens.iter().zip(&b.tokens) {
        let (page, t) = b.doc.token(&zt.line, zt.index).expect("token");
        assert_eq!((tb.page, tb.bbox), (page, t.bbox));
        if t.text != "-" {
            assert_eq!(&rt.text[tb.range.clone()], t.text);
        }
    }
}

#[test]
fn list_items_open_with_bullets_or_enumerators() {
    let b = one_page(vec![
        vec![vec![S(P, "We use:")]],
        vec![vec![S(P, "• apples")], vec![S(P, "– pears")]],
        vec![vec![S(P, "(a) first item")], vec![C("(b) second item")]],
        vec![vec![S(P, "1) one")], vec![S(P, "Then prose.")]],
    ]);
    assert_eq!(
        outline(&assembled(&b)),
        [
            "div",
            "p We use:",
            "list • apples | – pears | (a) first item | (b) second item | 1) one",
            "p Then prose.",
        ]
    );
}

#[test]
fn formulas_are_numbered_and_take_their_label() {
    let b = one_page(vec![
        vec![vec![S(P, "as follows")]],
        vec![vec![S(Eq, "E = mc 2"), S(EqL, "(3)")]],
        vec![vec![S(P, "where E is energy, and")]],
        vec![vec![S(Eq, "a + b = c")]],
        vec![vec![S(EqL, "(4)")]],
        vec![vec![S(P, "see"), S(EqM, "(3)"), S(P, "again")]],
        vec![vec![S(Eq, "f ( x ) = y (5.1)")]],
        vec![vec![S(Eq, "(6)")]],
    ]);
    assert_eq!(
        outline(&assembled(&b)),
        [
            "div",
            "p as follows",
            "formula_0 E = mc 2 Some(\"(3)\")",
            "p where E is energy, and",
            "formula_1 a + b = c Some(\"(4)\")",
            "p see (3) again",
            "formula_2 f ( x ) = y Some(\"(5.1)\")",
            "formula_3 (6) None",
        ]
    );
}

#[test]
fn a_callout_opening_a_block_after_a_sentence_opens_a_paragraph() {
    let b = one_page(vec![
        vec![vec![S(P, "One sentence.")]],
        vec![vec![S(Cit, "[3]"), S(P, "showed more")]],
        vec![vec![S(Cit, "[4]"), S(P, "too.")]],
    ]);
    assert_eq!(
        outline(&assembled(&b)),
        ["div", "p One sentence.", "p [3] showed more [4] too."]
    );
}

#[test]
fn callouts_sit_inside_their_paragraph() {
    let b = one_page(vec![vec![vec![
        S(P, "Earlier work"),
        S(Cit, "[1]"),
        S(P, "showed it ("),
        S(FigM, "Fig. 1"),
        S(P, ","),
        S(TabM, "Table 1"),
        S(P, ")."),
    ]]]);
    let body = assembled(&b);
    let ps = paragraphs(&body);
    assert_eq!(ps.len(), 1);
    assert_eq!(
        ps[0].text,
        "Earlier work [1] showed it ( Fig. 1 , Table 1 )."
    );
    assert_eq!(
        calls(ps[0]),
        [
            ("[1]", "bibr", None),
            ("Fig. 1", "figure", None),
            ("Table 1", "table", None)
        ]
    );
}

#[test]
fn caption_leads_are_split_by_rule() {
    let lead =
        |toks: &[(&str, Sep)]| caption_lead(toks).map(|l| (l.tokens, l.head, l.label, l.table));
    use Sep::{None as N, Space as Sp};
    assert_eq!(
        lead(&[("Figure", Sp), ("3", N), (":", Sp), ("The", Sp)]),
        Some((3, "Figure 3:".into(), "3".into(), false))
    );
    assert_eq!(
        lead(&[("Fig", N), (".", Sp), ("2", N), (".", Sp), ("Sketch", Sp)]),
        Some((4, "Fig. 2.".into(), "2".into(), false))
    );
    assert_eq!(
        lead(&[("Table", Sp), ("1", Sp), ("Parameters", Sp)]),
        Some((2, "Table 1".into(), "1".into(), true))
    );
    assert_eq!(
        lead(&[("TABLE", Sp), ("II", Sp)]),
        Some((2, "TABLE II".into(), "II".into(), true))
    );
    assert_eq!(
        lead(&[("Figure", Sp), ("2", N), (".", N), ("1", Sp), ("x", Sp)]),
        Some((4, "Figure 2.1".into(), "2.1".into(), false))
    );
    assert_eq!(lead(&[("Figures", Sp), ("show", Sp)]), None);
    assert_eq!(lead(&[("Table", Sp), ("of", Sp)]), None);
}

#[test]
fn figures_get_caption_inside_text_and_graphics_tables_get_rows() {
    let mut b = one_page(vec![
        vec![
            vec![S(Fig, "axis time")],
            vec![C("Fig. 1. Sketch of the")],
            vec![C("model.")],
        ],
        vec![vec![S(Tab, "Table 1 Parameters.")]],
        vec![
            vec![C("a 0.5")],
            vec![C("b 0.7")],
            vec![C("Note: values")],
            vec![C("are made up.")],
        ],
        vec![vec![S(Fig, "0 10 20 Figure 2: Inline lead.")]],
    ]);
    // An image above the figure's text, and one far away.
    b.doc.pages[0].images = vec![
        BBox {
            x: 50.0,
            y: 0.0,
            w: 100.0,
            h: 45.0,
        },
        BBox {
            x: 50.0,
            y: 700.0,
            w: 100.0,
            h: 50.0,
        },
    ];
    // Cells: push `0.5` and `0.7` far to the right.
    for bl in &mut b.doc.pages[0].blocks[2..3] {
        for l in &mut bl.lines[..2] {
            for t in &mut l.tokens[1..] {
                t.bbox.x += 100.0;
            }
        }
    }
    let body = assemble(&b.doc, &b.tokens, &b.spans);
    assert_eq!(
        outline(&body),
        [
            "fig_0 Some(\"Fig. 1.\") Some(\"1\") Some(\"Sketch of the model.\") Some(\"axis time\")",
            "tab_0 Some(\"Table 1\") Some(\"1\") Some(\"Parameters.\") Some(\"Note: values are made up.\")",
            "fig_1 Some(\"Figure 2:\") Some(\"2\") Some(\"Inline lead.\") Some(\"0 10 20\")",
        ]
    );
    let fig = &body.figures[0];
    assert_eq!(fig.graphics.len(), 1);
    assert!(fig.graphics[0].bitmap);
    assert_eq!(fig.graphics[0].at.bbox.y, 0.0);
    assert_eq!(fig.boxes.len(), 1);
    assert_eq!(fig.boxes[0].bbox.y, 0.0);
    let rows: Vec<Vec<&str>> = body.figures[1]
        .rows
        .iter()
        .map(|r| r.iter().map(|c| c.text.as_str()).collect())
        .collect();
    assert_eq!(rows, [["a", "0.5"], ["b", "0.7"]]);
    assert!(body.figures[1].graphics.is_empty());
}

#[test]
fn each_graphic_goes_to_the_nearest_figure_a_caption_under_it_preferred() {
    // Caption 1 at y 50, caption 2 at y 250 (blocks are 100 apart; two empty blocks between).
    let mut b = one_page(vec![
        vec![vec![S(Fig, "Figure 1. One.")]],
        vec![vec![S(P, "Text.")]],
        vec![vec![S(Fig, "Figure 2. Two.")]],
    ]);
    let page = &mut b.doc.pages[0];
    // Between the captions: 20 under the first (counted 70), 30 over the second.
    page.images = vec![BBox {
        x: 60.0,
        y: 80.0,
        w: 80.0,
        h: 140.0,
    }];
    // Two drawings over the second caption, one far right of every caption.
    page.vectors = vec![
        BBox {
            x: 50.0,
            y: 200.0,
            w: 20.0,
            h: 20.0,
        },
        BBox {
            x: 80.0,
            y: 210.0,
            w: 20.0,
            h: 30.0,
        },
        BBox {
            x: 500.0,
            y: 200.0,
            w: 20.0,
            h: 20.0,
        },
    ];
    let body = assembled(&b);
    let graphics: Vec<Vec<(bool, f32, f32)>> = body
        .figures
        .iter()
        .map(|f| {
            f.graphics
                .iter()
                .map(|g| (g.bitmap, g.at.bbox.y, g.at.bbox.bottom()))
                .collect()
        })
        .collect();
    assert_eq!(
        graphics,
        [vec![], vec![(true, 80.0, 220.0), (false, 200.0, 240.0)]]
    );
    assert_eq!(body.figures[1].boxes[0].bbox.y, 80.0);
}

#[test]
fn footnotes_split_at_their_marks() {
    let b = one_page(vec![
        vec![vec![S(O, "^1 First note text")], vec![C("continues here.")]],
        vec![vec![S(O, "^2 Second.")], vec![C("* Corresponding author.")]],
        vec![vec![S(O, "3 Plain-number note.")]],
    ]);
    let lines: Vec<LineRef> = b
        .tokens
        .iter()
        .map(|z| z.line)
        .fold(Vec::new(), |mut v, l| {
            if v.last() != Some(&l) {
                v.push(l);
            }
            v
        });
    let ns = notes(&b.doc, &lines, false, 0);
    let got: Vec<(&str, Option<&str>, &str)> = ns
        .iter()
        .map(|n| (n.id.as_str(), n.n.as_deref(), n.paragraphs[0].text.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("foot_0", Some("1"), "First note text continues here."),
            ("foot_1", Some("2"), "Second."),
            ("foot_2", Some("*"), "Corresponding author."),
            ("foot_3", Some("3"), "Plain-number note."),
        ]
    );
}

#[test]
fn back_zones_open_with_known_heads_and_notes_come_from_their_zones() {
    use crate::models::segmentation::{Label as Zone, Zones};
    let b = build(vec![
        vec![
            vec![
                vec![S(O, "Acknowledgements. We thank")],
                vec![C("everyone.")],
            ],
            vec![vec![S(O, "Data availability: on request.")]],
        ],
        vec![
            vec![vec![S(O, "^1 A note.")]],
            vec![vec![S(O, "In the margin.")]],
        ],
    ]);
    let line = |page, block| LineRef {
        page,
        block,
        line: 0,
    };
    let zones = Zones {
        pieces: vec![
            (
                Zone::Acknowledgement,
                vec![
                    line(0, 0),
                    LineRef {
                        line: 1,
                        ..line(0, 0)
                    },
                ],
            ),
            (Zone::Availability, vec![line(0, 1)]),
            (Zone::Footnote, vec![line(1, 0)]),
            (Zone::Marginnote, vec![line(1, 1)]),
        ],
    };
    let back = back(&b.doc, &zones);
    let outline_of = |divs: &[Div]| {
        outline(&Body {
            divs: divs.to_vec(),
            ..Body::default()
        })
    };
    assert_eq!(
        outline_of(&back.acknowledgement),
        ["div n=None Acknowledgements.", "p We thank everyone."]
    );
    assert_eq!(
        outline_of(&back.availability),
        ["div n=None Data availability:", "p on request."]
    );
    assert!(back.funding.is_empty() && back.annex.is_empty());
    let notes = zone_notes(&b.doc, &zones);
    let got: Vec<(&str, bool, Option<&str>, &str)> = notes
        .iter()
        .map(|n| {
            (
                n.id.as_str(),
                n.margin,
                n.n.as_deref(),
                n.paragraphs[0].text.as_str(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("foot_0", false, Some("1"), "A note."),
            ("margin_0", true, None, "In the margin.")
        ]
    );
}

#[test]
fn back_zone_lines_give_a_head_and_paragraphs() {
    let b = one_page(vec![
        vec![vec![S(O, "Acknowledgements")]],
        vec![
            vec![S(O, "We thank the reviewers for")],
            vec![C("their comments.")],
        ],
        vec![vec![S(O, "and the editors.")]],
    ]);
    let lines: Vec<LineRef> = b.tokens.iter().map(|z| z.line).collect::<Vec<_>>();
    let mut lines = lines;
    lines.dedup();
    let divs = zone_divs(&b.doc, &lines);
    let body = Body {
        divs,
        ..Body::default()
    };
    assert_eq!(
        outline(&body),
        [
            "div n=None Acknowledgements",
            "p We thank the reviewers for their comments. and the editors.",
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// Callout resolution

fn reference(marker: Option<&str>, surname: &str, year: i32, raw: &str) -> Reference {
    Reference {
        citation: Citation {
            raw: raw.into(),
            authors: vec![Person {
                surname: Some(surname.into()),
                ..Person::default()
            }],
            date: Some(Date {
                year: Some(year),
                ..Date::default()
            }),
            ..Citation::default()
        },
        marker: marker.map(str::to_string),
        boxes: Vec::new(),
    }
}

fn resolved(b: &Built, refs: &[Reference], notes: Vec<Note>) -> Body {
    let mut body = assembled(b);
    body.notes = notes;
    resolve_callouts(&mut body, &mut Back::default(), refs);
    body
}

#[test]
fn numbered_callouts_expand_ranges_and_lists() {
    let b = one_page(vec![vec![vec![
        S(P, "as in"),
        S(Cit, "[2-5]"),
        S(P, "and"),
        S(Cit, "[1, 3, 7]"),
        S(P, "and"),
        S(Cit, "(6)"),
        S(P, "but not"),
        S(Cit, "[42]"),
        S(P, "as"),
        S(Cit, "Smith et al. [3]"),
        S(P, "and"),
        S(Cit, "[1]"),
        S(P, "–"),
        S(Cit, "[4]"),
        S(P, "and"),
        S(Cit, "[5]-[7]"),
    ]]]);
    let refs: Vec<Reference> = (1..=7)
        .map(|i| reference(Some(&i.to_string()), "X", 2000, ""))
        .collect();
    let body = resolved(&b, &refs, Vec::new());
    let p = paragraphs(&body)[0];
    assert_eq!(
        calls(p),
        [
            ("[2", "bibr", Some("b1")),
            ("", "bibr", Some("b2")),
            ("", "bibr", Some("b3")),
            ("5]", "bibr", Some("b4")),
            ("[1", "bibr", Some("b0")),
            ("3", "bibr", Some("b2")),
            ("7]", "bibr", Some("b6")),
            ("(6)", "bibr", Some("b5")),
            ("[42]", "bibr", None),
            ("Smith et al. [3]", "bibr", Some("b2")),
            ("[1]", "bibr", Some("b0")),
            ("", "bibr", Some("b1")),
            ("", "bibr", Some("b2")),
            ("[4]", "bibr", Some("b3")),
            ("[5", "bibr", Some("b4")),
            ("", "bibr", Some("b5")),
            ("7]", "bibr", Some("b6")),
        ]
    );
    // Sorted, inside the text, not overlapping.
    for w in p.refs.windows(2) {
        assert!(w[0].range.end <= w[1].range.start);
    }
}

#[test]
fn numbered_callouts_use_the_ordinal_without_markers_and_markers_when_present() {
    let b = one_page(vec![vec![vec![S(P, "see"), S(Cit, "[2–3]")]]]);
    let plain: Vec<Reference> = (0..3).map(|_| reference(None, "X", 2000, "")).collect();
    let body = resolved(&b, &plain, Vec::new());
    assert_eq!(
        calls(paragraphs(&body)[0]),
        [("[2", "bibr", Some("b1")), ("3]", "bibr", Some("b2"))]
    );
    // Markers that do not follow the order win.
    let marked = vec![
        reference(Some("3"), "X", 2000, ""),
        reference(Some("2"), "X", 2000, ""),
    ];
    let body = resolved(&b, &marked, Vec::new());
    assert_eq!(
        calls(paragraphs(&body)[0]),
        [("[2", "bibr", Some("b1")), ("3]", "bibr", Some("b0"))]
    );
}

#[test]
fn author_year_callouts_match_surname_year_and_suffix() {
    let b = one_page(vec![vec![vec![
        S(P, "as"),
        S(Cit, "(Smith et al., 2019; Jones and Brown 2018b)"),
        S(P, "and"),
        S(Cit, "Müller (2020)"),
        S(P, "and"),
        S(Cit, "(Jones 2018a, 2020)"),
        S(P, "and"),
        S(Cit, "(Nobody 1999)"),
        S(P, "and Smith et al."),
        S(Cit, "(2019)"),
    ]]]);
    let refs = vec![
        reference(None, "Smith", 2019, "Smith, A. 2019. A."),
        reference(None, "Jones", 2018, "Jones, B. 2018a. B."),
        reference(None, "Jones", 2018, "Jones, B. 2018b. C."),
        reference(None, "Muller", 2020, "Muller 2020"),
        reference(None, "Jones", 2020, "Jones 2020"),
    ];
    let body = resolved(&b, &refs, Vec::new());
    assert_eq!(
        calls(paragraphs(&body)[0]),
        [
            ("(Smith et al., 2019", "bibr", Some("b0")),
            ("Jones and Brown 2018b)", "bibr", Some("b2")),
            ("Müller (2020)", "bibr", Some("b3")),
            ("(Jones 2018a", "bibr", Some("b1")),
            ("2020)", "bibr", Some("b4")),
            ("(Nobody 1999)", "bibr", None),
            ("(2019)", "bibr", Some("b0")),
        ]
    );
}

#[test]
fn figure_table_and_formula_callouts_resolve_by_label() {
    let b = one_page(vec![
        vec![vec![
            S(P, "see"),
            S(FigM, "Fig. 2b"),
            S(P, "and"),
            S(TabM, "Table 2"),
            S(P, "and"),
            S(EqM, "Eq. (3)"),
            S(P, "and"),
            S(FigM, "Fig. 9"),
        ]],
        vec![vec![S(Fig, "Figure 1. One.")]],
        vec![vec![S(Fig, "Figure 2. Two.")]],
        vec![vec![S(Tab, "TABLE II Params.")]],
        vec![vec![S(Eq, "x = y"), S(EqL, "(3)")]],
    ]);
    let body = resolved(&b, &[], Vec::new());
    assert_eq!(
        calls(paragraphs(&body)[0]),
        [
            ("Fig. 2b", "figure", Some("fig_1")),
            ("Table 2", "table", Some("tab_0")),
            ("Eq. (3)", "formula", Some("formula_0")),
            ("Fig. 9", "figure", None),
        ]
    );
}

#[test]
fn superscript_marks_point_at_notes_or_references_or_are_dropped() {
    let b = one_page(vec![vec![vec![S(
        P,
        "An effect^2 shown^1,3 in x^7 and author^* at 10^-2 cm^2.",
    )]]]);
    let note = |id: &str, n: &str| Note {
        id: id.into(),
        margin: false,
        n: Some(n.into()),
        paragraphs: Vec::new(),
    };
    let refs: Vec<Reference> = (1..=3)
        .map(|i| reference(Some(&i.to_string()), "X", 2000, ""))
        .collect();
    let body = resolved(&b, &refs, vec![note("foot_0", "2"), note("foot_1", "*")]);
    let p = paragraphs(&body)[0];
    assert_eq!(p.text, "An effect2 shown1,3 in x7 and author* at 10-2 cm2.");
    assert_eq!(
        calls(p),
        [
            ("2", "foot", Some("foot_0")),
            ("1", "bibr", Some("b0")),
            ("3", "bibr", Some("b2")),
            ("*", "foot", Some("foot_1")),
        ]
    );
}

#[test]
fn callout_text_parsers() {
    let nums = |s: &str| numbers(s).map(|v| v.into_iter().map(|(n, _)| n).collect::<Vec<_>>());
    assert_eq!(nums("[12,14–16]"), Some(vec![12, 14, 15, 16]));
    assert_eq!(nums("(1 and 2)"), Some(vec![1, 2]));
    assert_eq!(nums("[5-2]"), Some(vec![5, 2]));
    assert_eq!(nums("[Smith 2]"), None);
    let ay: Vec<(&str, i32, Option<char>)> = author_years("(van der Berg 2001c; Li, 1999)")
        .into_iter()
        .map(|a| (&"(van der Berg 2001c; Li, 1999)"[a.range], a.year, a.suffix))
        .collect();
    assert_eq!(
        ay,
        [
            ("van der Berg 2001c", 2001, Some('c')),
            ("Li, 1999", 1999, None)
        ]
    );
    let text = "(Li 2019a, b, 2020; Wu 2018b,c)";
    let ay: Vec<(&str, &str, Option<char>)> = author_years(text)
        .into_iter()
        .map(|a| (&text[a.range], a.names, a.suffix))
        .collect();
    assert_eq!(
        ay,
        [
            ("Li 2019a", "(Li ", Some('a')),
            ("b", "(Li ", Some('b')),
            ("2020", "(Li ", None),
            ("Wu 2018b", "; Wu ", Some('b')),
            ("c", "; Wu ", Some('c')),
        ]
    );
    let labels: Vec<String> = label_items("Figs. 2-4 and S1")
        .into_iter()
        .map(|l| l.0)
        .collect();
    assert_eq!(labels, ["2", "3", "4", "s1"]);
}

// ---------------------------------------------------------------------------------------------
// Nothing is lost

/// Every string the body holds, for the coverage check.
fn all_text(body: &Body) -> String {
    let mut s = String::new();
    let mut add = |t: &str| {
        s.push_str(t);
        s.push('\n');
    };
    for d in &body.divs {
        if let Some(h) = &d.head {
            add(h.n.as_deref().unwrap_or(""));
            add(&h.text.text);
        }
        for b in &d.blocks {
            match b {
                BodyBlock::Paragraph(p) => add(&p.text),
                BodyBlock::List(items) => items.iter().for_each(|i| add(&i.text)),
                BodyBlock::Formula(f) => {
                    add(&f.text.text);
                    add(f.label.as_deref().unwrap_or(""));
                }
            }
        }
    }
    for f in &body.figures {
        add(f.head.as_deref().unwrap_or(""));
        add(f.desc.as_ref().map_or("", |d| &d.text));
        add(f.note.as_ref().map_or("", |d| &d.text));
        for r in &f.rows {
            for c in r {
                add(&c.text);
            }
        }
    }
    s
}

fn check_rich(rt: &RichText) {
    for t in &rt.tokens {
        assert!(t.range.start <= t.range.end && t.range.end <= rt.text.len());
        assert!(rt.text.is_char_boundary(t.range.start) && rt.text.is_char_boundary(t.range.end));
    }
    let mut at = 0;
    for c in &rt.refs {
        assert!(
            c.range.start >= at && c.range.start <= c.range.end,
            "{:?}",
            rt.refs
        );
        assert!(c.range.end <= rt.text.len());
        at = c.range.end;
    }
}

const VOCAB: &[&str] = &[
    "Figure", "Fig", ".", "1", "2", "II", "Table", ":", "•", "(", "a", ")", "[", "]", "-", ",",
    "3", "et", "al", "2019", "*", "^1", "Smith", "A", "IV",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Any spans over a generated document: no panic, every word lands in the output, texts
    /// and callouts stay consistent, and resolution keeps them consistent. Read as a footnote
    /// or back-matter zone, the same lines lose no word either.
    #[test]
    fn assemble_keeps_every_token(
        lines in prop::collection::vec(
            prop::collection::vec((0usize..VOCAB.len() + 6, any::<bool>()), 1..8), 1..12),
        blocks in prop::collection::vec(any::<bool>(), 12),
        raw_spans in prop::collection::vec((0usize..12, 0usize..120, 0usize..30), 0..30),
    ) {
        let mut doc = Document::default();
        let mut page = Page { number: 1, width: 600.0, height: 800.0, ..Page::default() };
        let mut block = Block::default();
        let mut unique = 0;
        for (li, words) in lines.iter().enumerate() {
            if li > 0 && blocks[li] {
                page.blocks.push(std::mem::take(&mut block));
            }
            let mut line = Line::default();
            for (k, (w, space)) in words.iter().enumerate() {
                let (text, sup) = match VOCAB.get(*w) {
                    Some(v) => (v.trim_start_matches('^').to_string(), v.starts_with('^')),
                    None => { unique += 1; (format!("w{unique}x"), false) }
                };
                line.tokens.push(Token {
                    text,
                    bbox: BBox { x: 10.0 * k as f32, y: 12.0 * li as f32, w: 9.0, h: 10.0 },
                    font_size: 10.0,
                    superscript: sup,
                    space_after: *space,
                    ..Token::default()
                });
            }
            block.lines.push(line);
        }
        page.blocks.push(block);
        page.images.push(BBox { x: 0.0, y: 0.0, w: 50.0, h: 50.0 });
        doc.pages.push(page);
        let refs: Vec<LineRef> = doc.pages[0].blocks.iter().enumerate()
            .flat_map(|(bi, b)| (0..b.lines.len()).map(move |li| LineRef { page: 0, block: bi, line: li }))
            .collect();
        let tokens = zone_tokens(&doc, &refs);
        let spans: Vec<Span<Label>> = raw_spans.iter()
            .map(|&(l, s, len)| Span { label: Label::ALL[l], tokens: s..s + len })
            .collect();
        let mut body = assemble(&doc, &tokens, &spans);
        let hay = all_text(&body);
        // The same lines read as a footnote zone and as a back-matter zone.
        let note_text: String = notes(&doc, &refs, false, 0)
            .iter()
            .map(|n| format!("{} {}\n", n.n.as_deref().unwrap_or(""), n.paragraphs[0].text))
            .collect();
        let back_text = all_text(&Body { divs: zone_divs(&doc, &refs), ..Body::default() });
        for zt in &tokens {
            let (_, t) = doc.token(&zt.line, zt.index).expect("token");
            if t.text.starts_with('w') {
                prop_assert!(hay.contains(&t.text), "{} lost from {}", t.text, hay);
                prop_assert!(note_text.contains(&t.text), "{} lost from notes", t.text);
                prop_assert!(back_text.contains(&t.text), "{} lost from back", t.text);
            }
        }
        let mut back = Back::default();
        let references: Vec<Reference> = (1..4).map(|i| reference(Some(&i.to_string()), "Smith", 2019, "")).collect();
        resolve_callouts(&mut body, &mut back, &references);
        prop_assert_eq!(all_text(&body), hay);
        for d in &body.divs {
            for b in &d.blocks {
                match b {
                    BodyBlock::Paragraph(p) => check_rich(p),
                    BodyBlock::List(items) => items.iter().for_each(check_rich),
                    BodyBlock::Formula(f) => check_rich(&f.text),
                }
            }
        }
    }
}

#[test]
fn the_annex_continues_the_numbering_of_figures_tables_and_formulas() {
    let body_doc = one_page(vec![
        vec![vec![S(Fig, "Figure 1. One.")]],
        vec![vec![S(Eq, "x = 1")]],
    ]);
    let mut body = assembled(&body_doc);
    let annex_doc = one_page(vec![
        vec![vec![S(H, "A. Proofs")]],
        vec![vec![S(Fig, "Figure 2. Two.")]],
        vec![vec![S(Tab, "Table 1. T.")]],
        vec![vec![S(Eq, "y = 2")]],
    ]);
    let annex = assemble_annex(
        &annex_doc.doc,
        &annex_doc.tokens,
        &annex_doc.spans,
        &mut body,
    );
    let ids: Vec<&str> = body.figures.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(ids, ["fig_0", "fig_1", "tab_0"]);
    assert_eq!(
        outline(&Body {
            divs: annex,
            ..Body::default()
        }),
        ["div n=Some(\"A.\") Proofs", "formula_1 y = 2 None"]
    );
}
