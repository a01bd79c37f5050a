//! Sections, paragraphs, lists, formulas, figures, notes and back matter from spans.

use super::*;
use crate::body::figure::caption_lead;

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
    // A hyphen glued between the word and its number, or the number glued to the word.
    assert_eq!(
        lead(&[("Table", N), ("-", N), ("1", N), (":", Sp), ("Sites", Sp)]),
        Some((4, "Table-1:".into(), "1".into(), true))
    );
    assert_eq!(
        lead(&[("Table1", N), (".", Sp), ("Sites", Sp)]),
        Some((2, "Table1.".into(), "1".into(), true))
    );
    assert_eq!(lead(&[("Table", Sp), ("-", Sp), ("1", Sp)]), None);
    assert_eq!(lead(&[("Tablets", Sp), ("2", Sp)]), None);
    // Portuguese, Spanish and German leads, figures and tables.
    assert_eq!(
        lead(&[("Figura", Sp), ("1", Sp), ("-", N), ("Comparação", Sp)]),
        Some((3, "Figura 1 -".into(), "1".into(), false))
    );
    assert_eq!(
        lead(&[("Tabela", Sp), ("3", N), (".", Sp), ("Prevalência", Sp)]),
        Some((3, "Tabela 3.".into(), "3".into(), true))
    );
    assert_eq!(
        lead(&[("Cuadro", Sp), ("2", Sp), ("Índices", Sp)]),
        Some((2, "Cuadro 2".into(), "2".into(), true))
    );
    assert_eq!(
        lead(&[("Gráfico", Sp), ("4", Sp), ("Labor", Sp)]),
        Some((2, "Gráfico 4".into(), "4".into(), false))
    );
    assert_eq!(
        lead(&[("Abb", N), (".", Sp), ("5", N), (":", Sp)]),
        Some((4, "Abb. 5:".into(), "5".into(), false))
    );
    assert_eq!(lead(&[("Figurativo", Sp), ("1", Sp)]), None);
}

#[test]
fn a_table_captioned_table_dash_n_has_its_caption_out_of_the_cells() {
    let mut b = one_page(vec![
        vec![vec![S(Tab, "Table-1: Sites and values.")]],
        vec![vec![C("Lisbon 0.52")], vec![C("Porto 0.47")]],
    ]);
    for bl in &mut b.doc.pages[0].blocks[1..2] {
        for l in &mut bl.lines {
            for t in &mut l.tokens[1..] {
                t.bbox.x += 100.0;
            }
        }
    }
    let body = assemble(&b.doc, &b.tokens, &b.spans);
    assert_eq!(
        outline(&body),
        ["tab_0 Some(\"Table-1:\") Some(\"1\") Some(\"Sites and values.\") None"]
    );
    let cells: Vec<&str> = body.figures[0]
        .rows
        .iter()
        .flatten()
        .map(|c| c.text.as_str())
        .collect();
    assert_eq!(cells, ["Lisbon", "0.52", "Porto", "0.47"]);
}

#[test]
fn a_span_captioned_as_the_other_kind_is_of_that_kind() {
    // A chart the fulltext model read as a table, under its figure caption; then a table
    // read as a figure, under its table caption. Each is numbered as what its caption says.
    let b = one_page(vec![
        vec![vec![S(Tab, "0 10 20 30")]],
        vec![vec![C("Figure 1. Doses over time.")]],
        vec![vec![S(Fig, "Table 1. Sites and values.")]],
        vec![vec![C("Lisbon 0.52")]],
    ]);
    let body = assemble(&b.doc, &b.tokens, &b.spans);
    let kinds: Vec<(&str, bool, Option<&str>)> = body
        .figures
        .iter()
        .map(|f| (f.id.as_str(), f.is_table, f.label.as_deref()))
        .collect();
    assert_eq!(
        kinds,
        vec![("fig_0", false, Some("1")), ("tab_0", true, Some("1"))]
    );
    assert_eq!(
        body.figures[0].desc.as_ref().map(|d| d.text.as_str()),
        Some("Doses over time.")
    );
}

/// Each figure's head and description.
fn captions(body: &Body) -> Vec<(Option<&str>, Option<&str>)> {
    body.figures
        .iter()
        .map(|f| (f.head.as_deref(), f.desc.as_ref().map(|d| d.text.as_str())))
        .collect()
}

#[test]
fn a_caption_block_read_into_a_paragraph_is_a_figure() {
    let b = one_page(vec![
        vec![vec![S(P, "Whole genomes are sequenced rapidly,")]],
        vec![vec![C("FIGURE 3 | Alignment of the viral sequences.")]],
        vec![vec![C("in a single analysis.")]],
        // A block opening with a lead that is no caption (no closing mark) stays text.
        vec![vec![C("Figure 3 shows the alignment of all sequences.")]],
    ]);
    let body = assemble(&b.doc, &b.tokens, &b.spans);
    assert_eq!(
        captions(&body),
        vec![(
            Some("FIGURE 3 |"),
            Some("Alignment of the viral sequences.")
        )]
    );
    let paragraphs: Vec<String> = outline(&body)
        .into_iter()
        .filter(|l| l.starts_with("p "))
        .collect();
    let text = paragraphs.join(" ");
    assert!(!text.contains("FIGURE 3"), "{text}");
    assert!(text.contains("sequenced rapidly,"), "{text}");
    assert!(text.contains("in a single analysis."), "{text}");
    assert!(text.contains("Figure 3 shows"), "{text}");
    // The light flavour's model reads figures as paragraphs on purpose: none is made.
    let (light, _) = assemble_zoned(&b.doc, &b.tokens, &b.spans, true);
    assert!(light.figures.is_empty());
    assert!(outline(&light).join(" ").contains("FIGURE 3 | Alignment"));
}

#[test]
fn a_caption_lead_alone_on_its_line_over_its_title_is_a_figure() {
    let b = one_page(vec![
        vec![vec![S(P, "The graph displays the growth since 1978.")]],
        vec![vec![C("Graph 1")], vec![C("Growth rate of the economy")]],
        vec![vec![C("As can be seen from the graph, growth slowed.")]],
    ]);
    let body = assemble(&b.doc, &b.tokens, &b.spans);
    assert_eq!(
        captions(&body),
        vec![(Some("Graph 1"), Some("Growth rate of the economy"))]
    );
}

#[test]
fn a_figure_span_that_is_only_its_lead_takes_the_caption_under_it() {
    let b = one_page(vec![
        vec![vec![S(P, "The framework guided the review.")]],
        vec![vec![S(Fig, "FIGURE 3")]],
        vec![vec![S(P, "Conceptual framework of the findings.")]],
        vec![vec![S(P, "The findings are discussed below.")]],
    ]);
    let body = assemble(&b.doc, &b.tokens, &b.spans);
    assert_eq!(
        captions(&body),
        vec![(
            Some("FIGURE 3"),
            Some("Conceptual framework of the findings.")
        )]
    );
}

#[test]
fn a_figure_caption_ends_with_its_layout_block() {
    // The model ran the figure span on over the page's running foot; the caption is the
    // lead's block, the foot goes to the figure's note.
    let b = one_page(vec![
        vec![vec![S(Fig, "Figure 2. Study flowchart.")]],
        vec![vec![C("Lee et al. Medicine (2021) 100:10")]],
    ]);
    let body = assemble(&b.doc, &b.tokens, &b.spans);
    let f = &body.figures[0];
    assert_eq!(
        f.desc.as_ref().map(|d| d.text.as_str()),
        Some("Study flowchart.")
    );
    assert_eq!(
        f.note.as_ref().map(|d| d.text.as_str()),
        Some("Lee et al. Medicine (2021) 100:10")
    );
}

#[test]
fn a_captionless_table_span_of_running_prose_is_a_paragraph() {
    let prose = [
        "Another series of heatwaves occurred in the sea during the",
        "summer of that year, and three warm periods rendered the station",
        "under heatwave status for most of the days of the period while",
        "the earlier event was confined to the eastern seaboard only.",
    ];
    let mut b = one_page(vec![
        vec![
            vec![S(Tab, prose[0])],
            vec![C(prose[1])],
            vec![C(prose[2])],
            vec![C(prose[3])],
        ],
        vec![
            vec![S(Tab, "Site a b")],
            vec![C("Lisbon 0.52 1.20")],
            vec![C("Porto 0.47 1.31")],
        ],
    ]);
    // Drawings beside both spans: graphics alone do not make the prose a table.
    b.doc.pages[0].vectors = vec![BBox {
        x: 50.0,
        y: 0.0,
        w: 400.0,
        h: 400.0,
    }];
    let body = assembled(&b);
    let texts: Vec<&str> = paragraphs(&body).iter().map(|p| p.text.as_str()).collect();
    assert_eq!(texts, [prose.join(" ").as_str()]);
    // The short rows stay a table.
    assert_eq!(body.figures.len(), 1, "{:?}", outline(&body));
    assert!(body.figures[0].is_table);
}

#[test]
fn a_captionless_figure_span_carrying_on_a_sentence_is_running_text() {
    let mut b = one_page(vec![
        vec![
            vec![
                S(P, "As"),
                S(FigM, "Figure 1"),
                S(Fig, "presents the selection"),
            ],
            vec![C("process, it is long.")],
        ],
        vec![vec![S(P, "Done with"), S(Fig, "axis time")]],
        vec![vec![S(Fig, "Figure 2: A caption.")]],
    ]);
    // A picture beside every span, so that none reads as text for want of graphics.
    b.doc.pages[0].images = vec![BBox {
        x: 50.0,
        y: 0.0,
        w: 400.0,
        h: 400.0,
    }];
    let body = assembled(&b);
    let texts: Vec<&str> = paragraphs(&body).iter().map(|p| p.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "As Figure 1 presents the selection process, it is long.",
            "Done with"
        ]
    );
    // Not after a callout, the span stays figure text (a chart's inner text, here joined to
    // the captioned figure after it).
    assert_eq!(
        outline(&body).last().map(String::as_str),
        Some("fig_0 Some(\"Figure 2:\") Some(\"2\") Some(\"A caption.\") Some(\"axis time\")")
    );
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

#[test]
fn a_span_holding_several_captions_gives_one_figure_each() {
    let b = one_page(vec![
        vec![vec![S(Fig, "axis")], vec![C("Figure 1: One.")]],
        vec![vec![C("label")], vec![C("Figure 2: Two.")]],
        vec![vec![S(Tab, "Table 1 A.")]],
        vec![vec![C("x 1")]],
        vec![vec![C("Table 2 B.")]],
        vec![vec![C("y 2")]],
    ]);
    let body = assembled(&b);
    assert_eq!(
        outline(&body),
        [
            "fig_0 Some(\"Figure 1:\") Some(\"1\") Some(\"One.\") Some(\"axis\")",
            "fig_1 Some(\"Figure 2:\") Some(\"2\") Some(\"Two.\") Some(\"label\")",
            "tab_0 Some(\"Table 1\") Some(\"1\") Some(\"A.\") None",
            "tab_1 Some(\"Table 2\") Some(\"2\") Some(\"B.\") None",
        ]
    );
    let rows: Vec<&str> = body.figures[2..]
        .iter()
        .flat_map(|f| f.rows.iter().flatten().map(|c| c.text.as_str()))
        .collect();
    assert_eq!(rows, ["x 1", "y 2"]);
}

#[test]
fn captionless_figure_spans_continue_their_figure_or_are_read_as_text() {
    let mut b = one_page(vec![
        vec![vec![S(Tab, "Table 1 A.")]],
        vec![vec![S(Tab, "x 1")]],
        vec![vec![S(P, "Text")]],
        vec![vec![S(Fig, "and words mislabelled.")]],
        vec![vec![S(Fig, "0 10 20")]],
        vec![vec![S(Fig, "Figure 1: Cap.")]],
    ]);
    // A drawing next to the last spans only.
    b.doc.pages[0].vectors = vec![BBox {
        x: 50.0,
        y: 480.0,
        w: 100.0,
        h: 100.0,
    }];
    let body = assembled(&b);
    assert_eq!(
        outline(&body),
        [
            "div",
            "p Text and words mislabelled.",
            "tab_0 Some(\"Table 1\") Some(\"1\") Some(\"A.\") None",
            "fig_0 Some(\"Figure 1:\") Some(\"1\") Some(\"Cap.\") Some(\"0 10 20\")",
        ]
    );
    assert_eq!(body.figures[0].rows.len(), 1);
    assert_eq!(body.figures[1].graphics.len(), 1);
}

#[test]
fn a_figure_span_without_a_caption_has_no_description() {
    let mut b = one_page(vec![
        vec![vec![S(P, "Text.")]],
        vec![vec![S(Fig, "0 10 20 time")]],
    ]);
    b.doc.pages[0].vectors = vec![BBox {
        x: 50.0,
        y: 140.0,
        w: 100.0,
        h: 40.0,
    }];
    let body = assembled(&b);
    // Its text is kept, in the note, not reported as a caption.
    assert_eq!(
        outline(&body),
        [
            "div",
            "p Text.",
            "fig_0 None None None Some(\"0 10 20 time\")"
        ]
    );
}

#[test]
fn a_head_that_is_only_a_caption_lead_opens_a_figure_with_its_next_block() {
    let b = one_page(vec![
        vec![vec![S(H, "Results")], vec![S(P, "Text before.")]],
        vec![vec![S(H, "FIGURE 2")]],
        vec![vec![S(P, "Content of the roots")], vec![C("over time.")]],
        vec![vec![C("Body text goes on here.")]],
        vec![vec![S(H, "Table 3.")]],
        vec![vec![S(P, "Yields per site.")]],
    ]);
    let body = assembled(&b);
    assert_eq!(
        outline(&body),
        [
            "div n=None Results",
            "p Text before.",
            "p Body text goes on here.",
            "fig_0 Some(\"FIGURE 2\") Some(\"2\") Some(\"Content of the roots over time.\") None",
            "tab_0 Some(\"Table 3.\") Some(\"3\") Some(\"Yields per site.\") None",
        ]
    );
}

#[test]
fn a_numbered_display_equation_read_as_paragraph_becomes_a_formula() {
    let mut b = one_page(vec![vec![
        vec![S(P, "The model is the regression below.")],
        vec![C("m = a x + b (1)")],
        vec![C("where m is the moisture; see Equation (2).")],
        vec![C("Values x + y are set (3)")],
    ]]);
    // The equation number flush right, far from the formula; the last line's `(3)` is not.
    for t in &mut b.doc.pages[0].blocks[0].lines[1].tokens[6..] {
        t.bbox.x += 150.0;
    }
    assert_eq!(
        outline(&assembled(&b)),
        [
            "div",
            "p The model is the regression below.",
            "formula_0 m = a x + b Some(\"(1)\")",
            "p where m is the moisture; see Equation (2). Values x + y are set (3)",
        ]
    );
    // The number far right is a layout line of its own, on the formula's baseline.
    let mut b = one_page(vec![vec![
        vec![S(P, "The model is the regression below.")],
        vec![C("m = a x + b")],
        vec![C("(1)")],
        vec![C("where m is the moisture.")],
    ]]);
    let y = b.doc.pages[0].blocks[0].lines[1].tokens[0].bbox.y;
    for t in &mut b.doc.pages[0].blocks[0].lines[2].tokens {
        t.bbox.x += 150.0;
        t.bbox.y = y;
    }
    assert_eq!(
        outline(&assembled(&b)),
        [
            "div",
            "p The model is the regression below.",
            "formula_0 m = a x + b Some(\"(1)\")",
            "p where m is the moisture.",
        ]
    );
}

/// Labels of a figure or table model: `(n, label)` runs, each opening with `I-`.
fn model_labels(runs: &[(usize, &str)]) -> crate::labels::Labels {
    crate::labels::Labels::from_names(
        runs.iter().flat_map(|&(n, l)| {
            (0..n).map(move |i| if i == 0 { format!("I-{l}") } else { l.into() })
        }),
    )
}

#[test]
fn the_figure_and_table_models_split_captions_content_and_notes() {
    let b = one_page(vec![
        vec![
            vec![S(Fig, "axis time")],
            vec![C("Fig. 1. Sketch of the")],
            vec![C("model.")],
        ],
        vec![vec![S(Tab, "Table 1 Parameters.")]],
        vec![
            vec![C("a 0.5")],
            vec![C("b 0.7")],
            vec![C("Values from the survey.")],
        ],
        vec![
            vec![S(Fig, "0 10 20 Figure 2: Inline lead.")],
            vec![C("30 40")],
        ],
        vec![vec![S(Fig, "Figure 3. Third one.")]],
    ]);
    let (mut body, zones) = assemble_zoned(&b.doc, &b.tokens, &b.spans, false);
    let rule = outline(&body);
    assert_eq!(
        zones
            .iter()
            .map(|z| (z.figure, z.tokens.len(), z.table, z.annex))
            .collect::<Vec<_>>(),
        [
            (0, 11, false, false),
            (1, 17, true, false),
            (2, 11, false, false),
            (3, 6, false, false)
        ]
    );
    // The model's rows are the fulltext rows of each zone's tokens, one sequence per zone.
    let (mut facts, _) = crate::models::fulltext::document_tokens(
        &b.doc,
        &crate::layout::tokens::LayoutTokens::new(&b.doc),
        &b.doc.pages[0]
            .blocks
            .iter()
            .enumerate()
            .flat_map(|(bi, bl)| {
                (0..bl.lines.len()).map(move |line| crate::layout::LineRef {
                    page: 0,
                    block: bi,
                    line,
                })
            })
            .collect::<Vec<_>>(),
    );
    // A bitmap near every token: the fulltext rows say so, the figure and table rows do not
    // (their training rows never do).
    for f in &mut facts {
        f.bitmap_around = true;
    }
    let zf = figure::ZoneFacts {
        body_tokens: &b.tokens,
        body_facts: &facts,
        annex_tokens: &[],
        annex_facts: &[],
    };
    let (fig_rows, tab_rows) = figure::model_rows(&zones, &zf);
    assert_eq!(
        fig_rows.iter().map(Vec::len).collect::<Vec<_>>(),
        [11, 11, 6]
    );
    assert_eq!(tab_rows.len(), 1);
    assert_eq!(tab_rows[0][0][0], "Table");
    assert_eq!(tab_rows[0][0].len(), crate::models::figure::COLUMNS);
    assert_eq!(crate::models::fulltext::rows(&facts)[0][23], "1");
    assert!(fig_rows
        .iter()
        .chain(&tab_rows)
        .flatten()
        .all(|r| r[23] == "0"));

    let figures = [
        // The caption stops in a line: it runs on to the line's end, and caption text after
        // the run is no caption.
        model_labels(&[
            (2, "<content>"),
            (2, "<figure_head>"),
            (1, "<label>"),
            (1, "<figure_head>"),
            (2, "<figDesc>"),
            (1, "<other>"),
            (2, "<figDesc>"),
        ]),
        // The lead read as caption text: the rule's lead still gives head and label.
        model_labels(&[(3, "<content>"), (6, "<figDesc>"), (2, "<content>")]),
        // No caption from the model: the rule's figure stands.
        model_labels(&[(6, "<other>")]),
    ];
    let tables = [model_labels(&[
        (1, "<figure_head>"),
        (1, "<label>"),
        (2, "<figDesc>"),
        (8, "<content>"),
        (5, "<note>"),
    ])];
    let used =
        figure::apply_models(&b.doc, &zf, &mut body.figures, &zones, &figures, &tables).unwrap();
    assert_eq!(used, 3);
    assert_eq!(
        outline(&body),
        [
            "fig_0 Some(\"Fig. 1.\") Some(\"1\") Some(\"Sketch of the\") Some(\"axis time model.\")",
            "tab_0 Some(\"Table 1\") Some(\"1\") Some(\"Parameters.\") Some(\"Values from the survey.\")",
            "fig_1 Some(\"Figure 2:\") Some(\"2\") Some(\"Inline lead.\") Some(\"0 10 20 30 40\")",
            "fig_2 Some(\"Figure 3.\") Some(\"3\") Some(\"Third one.\") None",
        ]
    );
    let rows: Vec<String> = body.figures[1]
        .rows
        .iter()
        .map(|r| {
            r.iter()
                .map(|c| c.text.as_str())
                .collect::<Vec<_>>()
                .join("|")
        })
        .collect();
    assert_eq!(rows, ["a 0.5", "b 0.7"]);
    // By rule alone the table's last line was a row and the figure's numbers its caption.
    assert_eq!(
        rule[1],
        "tab_0 Some(\"Table 1\") Some(\"1\") Some(\"Parameters.\") None"
    );
    assert_eq!(
        rule[2],
        "fig_1 Some(\"Figure 2:\") Some(\"2\") Some(\"Inline lead. 30 40\") Some(\"0 10 20\")"
    );
    assert_eq!(rule[3], outline(&body)[3]);

    // Without a caption lead the rule's figure stands (no description, its text in the
    // note), whatever the model says; a label that is not the model's is an error.
    let mut b = one_page(vec![vec![vec![S(Fig, "Panel A shows the map.")]]]);
    // An image above it keeps the captionless span a figure.
    b.doc.pages[0].images = vec![BBox {
        x: 50.0,
        y: 0.0,
        w: 100.0,
        h: 45.0,
    }];
    let (mut body, zones) = assemble_zoned(&b.doc, &b.tokens, &b.spans, false);
    assert_eq!(zones.len(), 1);
    let before = outline(&body);
    let zf = figure::ZoneFacts {
        body_tokens: &b.tokens,
        body_facts: &[],
        annex_tokens: &[],
        annex_facts: &[],
    };
    let labels = [model_labels(&[
        (1, "<figure_head>"),
        (1, "<label>"),
        (4, "<figDesc>"),
    ])];
    let used = figure::apply_models(&b.doc, &zf, &mut body.figures, &zones, &labels, &[]).unwrap();
    assert_eq!(used, 0);
    assert_eq!(outline(&body), before);
    assert_eq!(
        before,
        ["fig_0 None None None Some(\"Panel A shows the map.\")"]
    );
    let bad = [model_labels(&[(6, "<note>")])];
    assert!(figure::apply_models(&b.doc, &zf, &mut body.figures, &zones, &bad, &[]).is_err());
}

#[test]
fn a_table_span_opening_inside_a_line_of_text_is_a_callout_there() {
    let b = one_page(vec![
        vec![vec![
            S(P, "An overview of the measures is presented in"),
            S(Tab, "Table 2."),
        ]],
        vec![
            vec![C("We assessed the worry of each participant with a")],
            vec![C("scale of ten items about the climate.")],
        ],
        vec![vec![S(Tab, "Table 2 Overview of the measures.")]],
        vec![vec![C("Worry 10 items")]],
    ]);
    let body = assembled(&b);
    let paras = paragraphs(&body);
    assert_eq!(
        paras[0].text,
        "An overview of the measures is presented in Table 2."
    );
    assert_eq!(calls(paras[0]), [("Table 2", "table", None)]);
    assert_eq!(
        paras[1].text,
        "We assessed the worry of each participant with a scale of ten items about the climate."
    );
    assert_eq!(body.figures.len(), 1, "{:?}", outline(&body));
    assert_eq!(body.figures[0].head.as_deref(), Some("Table 2"));
}

#[test]
fn a_lead_named_by_running_text_inside_a_line_is_no_caption() {
    // The model read a whole paragraph as a table; its `Table 1` is a reference to one.
    let text = [
        "The data were collected in December among",
        "327 youth (see Table 1 for demographic information). In addition,",
        "for one measure we reanalysed the data of an earlier wave of the",
        "study, because this measure served as the main input for the panel.",
    ];
    let b = one_page(vec![vec![
        vec![S(Tab, text[0])],
        vec![C(text[1])],
        vec![C(text[2])],
        vec![C(text[3])],
    ]]);
    let body = assembled(&b);
    assert!(body.figures.is_empty(), "{:?}", outline(&body));
    let texts: Vec<&str> = paragraphs(&body).iter().map(|p| p.text.as_str()).collect();
    assert_eq!(texts, [text.join(" ").as_str()]);
}

#[test]
fn a_table_continued_over_pages_is_one_table() {
    use crate::body::figure::join_continued_tables;
    use crate::document::{Cell, Figure, RichText};
    let text = |s: &str| RichText {
        text: s.into(),
        ..RichText::default()
    };
    let table = |id: &str, label: &str, desc: Option<&str>, row: &str| Figure {
        id: id.into(),
        is_table: true,
        head: Some(format!("Table {label}")),
        label: Some(label.into()),
        desc: desc.map(text),
        rows: vec![vec![Cell {
            text: row.into(),
            cols: 1,
        }]],
        note: Some(text(row)),
        ..Figure::default()
    };
    let mut figures = vec![
        table("tab_0", "1", Some("Sites and values."), "Lisbon"),
        Figure {
            id: "fig_0".into(),
            label: Some("1".into()),
            desc: Some(text("Continued")),
            ..Figure::default()
        },
        table("tab_1", "2", Some("Doses."), "10 mg"),
        table("tab_2", "1", Some("(Continued)"), "Porto"),
        table("tab_3", "2", None, "20 mg"),
        table("tab_4", "2", Some("Doses in children."), "5 mg"),
        table("tab_5", "3", Some("Cont."), "orphan"),
        // The whole caption printed again over the next page's part.
        table("tab_6", "2", Some("Doses in Children."), "2 mg"),
    ];
    join_continued_tables(&mut figures);
    let got: Vec<(&str, Vec<&str>)> = figures
        .iter()
        .map(|f| {
            let rows = f.rows.iter().map(|r| r[0].text.as_str()).collect();
            (f.id.as_str(), rows)
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("tab_0", vec!["Lisbon", "Porto"]),
            // A figure is never merged into a table.
            ("fig_0", vec![]),
            ("tab_1", vec!["10 mg", "20 mg"]),
            // A caption of its own is a table of its own, even with a label seen before.
            ("tab_4", vec!["5 mg", "2 mg"]),
            // Nothing earlier to continue: kept.
            ("tab_5", vec!["orphan"]),
        ]
    );
    assert_eq!(figures[0].note.as_ref().unwrap().text, "Lisbon Porto");
}

#[test]
fn appended_rich_text_moves_its_callouts_and_boxes() {
    use crate::document::{Callout, CalloutKind, RichText, TokenBox};
    let boxed = |s: &str| RichText {
        text: s.into(),
        refs: vec![Callout {
            kind: CalloutKind::Figure,
            range: 0..s.len(),
            target: None,
        }],
        tokens: vec![TokenBox {
            range: 0..s.len(),
            page: 1,
            bbox: crate::layout::BBox::default(),
        }],
    };
    let mut a = boxed("Fig. 1");
    a.append(boxed("Fig. 2"));
    assert_eq!(a.text, "Fig. 1 Fig. 2");
    assert_eq!(
        a.refs.iter().map(|c| c.range.clone()).collect::<Vec<_>>(),
        vec![0..6, 7..13]
    );
    assert_eq!(
        a.tokens
            .iter()
            .map(|t| &a.text[t.range.clone()])
            .collect::<Vec<_>>(),
        vec!["Fig. 1", "Fig. 2"]
    );
    let mut empty = RichText::default();
    empty.append(boxed("Fig. 3"));
    assert_eq!(empty.refs[0].range, 0..6);
}
