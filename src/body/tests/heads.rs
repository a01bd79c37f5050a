//! Heads the model left in paragraph text, or ran into it: run-in heads and head lines set in
//! their own face.

use super::*;

#[test]
fn a_run_in_head_in_its_own_face_opens_a_div() {
    let mut b = one_page(vec![
        vec![vec![S(H, "Methods")]],
        vec![vec![S(
            P,
            "Study design. We recruited forty adults from clinics.",
        )]],
    ]);
    body_font(&mut b, "Serif");
    set_font(&mut b, 1, 0, 0..3, "Serif-Bold");
    assert_eq!(
        outline(&assembled(&b)),
        [
            "div n=None Methods",
            "div n=None Study design.",
            "p We recruited forty adults from clinics.",
        ]
    );
}

#[test]
fn a_head_line_in_its_own_face_before_body_text_opens_a_div() {
    let mut b = one_page(vec![
        vec![vec![S(H, "Methods")]],
        vec![
            vec![S(P, "Participant recruitment")],
            vec![C("Potential participants were identified by their")],
            vec![C("doctors and gave consent.")],
        ],
    ]);
    body_font(&mut b, "Serif");
    set_font(&mut b, 1, 0, 0..2, "Serif-Italic");
    assert_eq!(
        outline(&assembled(&b)),
        [
            "div n=None Methods",
            "div n=None Participant recruitment",
            "p Potential participants were identified by their doctors and gave consent.",
        ]
    );
}

#[test]
fn a_head_line_before_a_callout_opens_a_div() {
    let mut b = one_page(vec![vec![
        vec![S(P, "Levels of fear")],
        vec![
            S(Cit, "Smith et al. (2020)"),
            S(P, "found much fear in the"),
        ],
        vec![C("survey data they gathered.")],
    ]]);
    body_font(&mut b, "Serif");
    set_font(&mut b, 0, 0, 0..3, "Serif-Italic");
    assert_eq!(
        outline(&assembled(&b)),
        [
            "div n=None Levels of fear",
            "p Smith et al. (2020) found much fear in the survey data they gathered.",
        ]
    );
}

#[test]
fn a_section_span_running_into_its_paragraph_is_cut_at_the_face_change() {
    let mut b = one_page(vec![vec![vec![S(
        H,
        "Bacterial culture. The strains were grown overnight.",
    )]]]);
    body_font(&mut b, "Serif");
    set_font(&mut b, 0, 0, 0..3, "Serif-Bold");
    assert_eq!(
        outline(&assembled(&b)),
        [
            "div n=None Bacterial culture.",
            "p The strains were grown overnight.",
        ]
    );
}

#[test]
fn numbered_statements_names_in_italics_and_continued_text_stay_paragraphs() {
    let mut b = one_page(vec![
        // A numbered statement: `Theorem 2.` in bold.
        vec![vec![S(P, "Theorem 2. Let x be a point of the set.")]],
        // An italic name opening a sentence: no full stop before the switch.
        vec![vec![S(P, "Escherichia coli was grown in broth overnight.")]],
        // An italic first line that wraps on a comma.
        vec![
            vec![S(P, "Quoted words in italics,")],
            vec![C("then the sentence goes on in roman type.")],
        ],
        // A statement label.
        vec![vec![S(P, "Proof. This follows from the lemma above.")]],
        // A sentence in another face on a line of its own.
        vec![
            vec![S(
                P,
                "The group eased the loneliness of all of the many patients.",
            )],
            vec![C(
                "And then when you see other people and start talking about",
            )],
            vec![C(
                "it all, it does not seem nearly as bad as it did at first, they said.",
            )],
        ],
        // Text before a display formula, which is in another face.
        vec![
            vec![S(P, "Rearranging, we also have")],
            vec![S(Eq, "Xa = Yb + Zc")],
        ],
        // A short line in bold whose sentence goes on lower-case.
        vec![
            vec![S(P, "Effects of the drug")],
            vec![C("were measured daily in all the patients we saw.")],
        ],
    ]);
    body_font(&mut b, "Serif");
    set_font(&mut b, 0, 0, 0..3, "Serif-Bold");
    set_font(&mut b, 1, 0, 0..2, "Serif-Italic");
    set_font(&mut b, 2, 0, 0..4, "Serif-Italic");
    set_font(&mut b, 3, 0, 0..2, "Serif-Bold");
    set_font(&mut b, 4, 0, 0..12, "Serif-Italic");
    set_font(&mut b, 5, 1, 0..5, "Math-Italic");
    set_font(&mut b, 6, 0, 0..4, "Serif-Bold");
    let body = assembled(&b);
    assert!(
        body.divs.iter().all(|d| d.head.is_none()),
        "{:?}",
        outline(&body)
    );
    assert_eq!(paragraphs(&body).len(), 7);
}

#[test]
fn a_full_width_first_line_or_a_quotation_in_another_face_is_no_head() {
    let mut b = one_page(vec![
        // The first line reaches the column's edge: a face change, not a head.
        vec![
            vec![S(P, "The prepared oils were subjected to analysis")],
            vec![C("by gas chromatography in the lab.")],
        ],
        // A quotation in italics on its own line.
        vec![
            vec![S(P, "\"If this goes on, no future.\"")],
            vec![C("Participants said so in the interviews we held.")],
        ],
    ]);
    body_font(&mut b, "Serif");
    set_font(&mut b, 0, 0, 0..7, "Serif-Light");
    set_font(&mut b, 1, 0, 0..10, "Serif-Italic");
    let body = assembled(&b);
    assert!(
        body.divs.iter().all(|d| d.head.is_none()),
        "{:?}",
        outline(&body)
    );
}

#[test]
fn a_subsection_head_stacked_under_its_section_head_is_a_div_of_its_own() {
    let b = one_page(vec![
        // Capitals, then mixed case: two heads.
        vec![
            vec![S(H, "METHODS AND ANALYSIS")],
            vec![C("Patient selection")],
        ],
        vec![vec![S(P, "We did this.")]],
        // One head wrapped over two lines in one face stays one head.
        vec![vec![S(H, "Results of the first")], vec![C("Trial phase")]],
        vec![vec![S(P, "It worked.")]],
        vec![vec![S(H, "STRENGTHS AND")], vec![C("LIMITATIONS")]],
    ]);
    assert_eq!(
        outline(&assembled(&b)),
        [
            "div n=None METHODS AND ANALYSIS",
            "div n=None Patient selection",
            "p We did this.",
            "div n=None Results of the first Trial phase",
            "p It worked.",
            "div n=None STRENGTHS AND LIMITATIONS",
        ]
    );
    // A bold line over a regular one is two heads too.
    let mut b = one_page(vec![
        vec![vec![S(H, "Methods")], vec![C("Study design")]],
        vec![vec![S(P, "We did this.")]],
    ]);
    edit(&mut b, (0, 0, 0), 0..1, |t| t.bold = true);
    assert_eq!(
        outline(&assembled(&b)),
        [
            "div n=None Methods",
            "div n=None Study design",
            "p We did this."
        ]
    );
}

#[test]
fn two_numbered_heads_in_one_section_span_are_two_divs() {
    let b = one_page(vec![
        vec![vec![S(H, "2 Method")], vec![C("2.1 Study design")]],
        vec![vec![S(P, "We did this.")]],
        // Numbers on lines of their own.
        vec![
            vec![S(H, "2.3")],
            vec![C("Participatory study")],
            vec![C("2.3.1")],
            vec![C("Participants")],
        ],
        // A plain number opening the second line of an unnumbered head is its text.
        vec![vec![S(H, "Growth of the")], vec![C("2 strains")]],
    ]);
    assert_eq!(
        outline(&assembled(&b)),
        [
            "div n=Some(\"2\") Method",
            "div n=Some(\"2.1\") Study design",
            "p We did this.",
            "div n=Some(\"2.3\") Participatory study",
            "div n=Some(\"2.3.1\") Participants",
            "div n=None Growth of the 2 strains",
        ]
    );
}

#[test]
fn a_drop_cap_opens_its_paragraph() {
    let mut b = one_page(vec![
        vec![vec![S(H, "Results")]],
        vec![vec![S(H, "M")]],
        vec![vec![S(P, "arine heatwaves are long warm spells.")]],
    ]);
    edit(&mut b, (0, 1, 0), 0..1, |t| t.font_size = 24.0);
    assert_eq!(
        outline(&assembled(&b)),
        [
            "div n=None Results",
            "p Marine heatwaves are long warm spells."
        ]
    );
}

#[test]
fn small_rotated_running_or_marginal_numeric_text_labelled_section_is_text() {
    let mut b = build(vec![
        vec![
            vec![vec![S(H, "Journal of Things")]],
            vec![vec![S(H, "Introduction")]],
            vec![vec![S(P, "We begin.")]],
            // A table cell in small type, in a table of many small words.
            vec![vec![S(H, "Population")]],
            vec![vec![S(
                Tab,
                "a b c d e f g h i j k l m n o p q r s t u v w x y z",
            )]],
            // Margin text set vertically.
            vec![vec![S(H, "journal.org/things")]],
        ],
        vec![
            vec![vec![S(P, "Journal of Things")]],
            vec![vec![S(P, "More text goes on here.")]],
        ],
        vec![
            vec![vec![S(P, "Journal of Things")]],
            vec![vec![S(P, "Yet more text.")]],
        ],
        // A year and the page's number alone at a page's top (parts of a running head set on
        // lines of their own).
        vec![
            vec![vec![S(H, "2021")]],
            vec![vec![S(P, "and the text goes on.")]],
            vec![vec![S(H, "4")]],
            vec![vec![S(P, "and on.")]],
        ],
    ]);
    edit(&mut b, (0, 3, 0), 0..1, |t| t.font_size = 7.5);
    edit(&mut b, (0, 4, 0), 0..26, |t| t.font_size = 7.5);
    edit(&mut b, (0, 5, 0), 0..5, |t| t.rotation = 90.0);
    edit(&mut b, (3, 2, 0), 0..1, |t| t.bbox.y = 760.0);
    for page in 0..3 {
        edit(&mut b, (page, 0, 0), 0..3, |t| t.bbox.y = 20.0);
    }
    let body = assembled(&b);
    let heads: Vec<&str> = body
        .divs
        .iter()
        .filter_map(|d| d.head.as_ref())
        .map(|h| h.text.text.as_str())
        .collect();
    assert_eq!(heads, ["Introduction"], "{:?}", outline(&body));
}

#[test]
fn a_running_line_with_the_printed_page_number_beside_it_is_no_head() {
    let mut b = build(vec![
        vec![
            vec![vec![S(H, "Journal of Things")], vec![C("1451")]],
            vec![vec![S(H, "Introduction")]],
            vec![vec![S(P, "We begin.")]],
        ],
        vec![
            vec![vec![S(P, "Journal of Things")]],
            vec![vec![S(P, "More text goes on here.")]],
        ],
        vec![
            vec![vec![S(P, "Journal of Things")]],
            vec![vec![S(P, "Yet more text.")]],
        ],
    ]);
    for page in 0..3 {
        edit(&mut b, (page, 0, 0), 0..3, |t| t.bbox.y = 20.0);
    }
    edit(&mut b, (0, 0, 1), 0..1, |t| t.bbox.y = 32.0);
    let heads: Vec<String> = assembled(&b)
        .divs
        .iter()
        .filter_map(|d| d.head.as_ref())
        .map(|h| h.text.text.clone())
        .collect();
    assert_eq!(heads, ["Introduction"]);
}

#[test]
fn a_head_run_holding_two_numbered_heads_after_a_number_gives_two_divs() {
    let mut b = one_page(vec![vec![
        vec![S(H, "2.3")],
        vec![S(P, "Participatory study")],
        vec![C("2.3.1")],
        vec![C("Participants")],
        vec![C(
            "Participatory data were gathered through many interactive",
        )],
        vec![C("focus groups held in the spring.")],
    ]]);
    body_font(&mut b, "Serif");
    set_font(&mut b, 0, 0, 0..3, "Serif-Bold");
    set_font(&mut b, 0, 1, 0..2, "Serif-Bold");
    set_font(&mut b, 0, 2, 0..5, "Serif-Bold");
    set_font(&mut b, 0, 3, 0..1, "Serif-Bold");
    assert_eq!(
        outline(&assembled(&b)),
        [
            "div n=Some(\"2.3\") Participatory study",
            "div n=Some(\"2.3.1\") Participants",
            "p Participatory data were gathered through many interactive focus groups held in the spring.",
        ]
    );
}

#[test]
fn a_running_head_read_into_a_paragraph_does_not_hide_the_head_after_it() {
    let running = || vec![vec![S(P, "Journal of Things")]];
    let mut b = build(vec![
        vec![running(), vec![vec![S(P, "Some text on the first page.")]]],
        vec![running(), vec![vec![S(P, "Some text on the second page.")]]],
        vec![vec![
            vec![S(P, "Journal of Things")],
            vec![C("Rural areas")],
            vec![C("Geographic contexts were found to matter a great deal")],
            vec![C("for the people living there.")],
        ]],
    ]);
    body_font(&mut b, "Serif");
    edit(&mut b, (2, 0, 1), 0..2, |t| t.font = "Serif-Bold".into());
    // Block 0 of each page sits in the top band; block 1 lower down.
    for page in 0..2 {
        edit(&mut b, (page, 1, 0), 0..7, |t| t.bbox.y = 300.0);
    }
    let body = assembled(&b);
    let heads: Vec<&str> = body
        .divs
        .iter()
        .filter_map(|d| d.head.as_ref())
        .map(|h| h.text.text.as_str())
        .collect();
    assert_eq!(heads, ["Rural areas"], "{:?}", outline(&body));
}

#[test]
fn a_section_span_that_reads_as_running_text_is_text() {
    let b = one_page(vec![
        vec![vec![S(H, "Results")]],
        vec![vec![S(P, "The cells migrated slowly, the matrix")]],
        // The paragraph's last line, labelled as a head.
        vec![vec![S(H, "hindering the smooth migration of")]],
        vec![vec![S(P, "the cells towards the wound.")]],
        vec![vec![S(H, "This response (Fig 3b-d and S1 Fig),")]],
        vec![vec![S(
            H,
            "Fifty studies were included in the review. Thirty studies gave correlations.",
        )]],
        vec![vec![S(H, "mRNA levels")]],
        vec![vec![S(P, "Levels rose.")]],
    ]);
    assert_eq!(
        outline(&assembled(&b)),
        [
            "div n=None Results",
            // It continues the paragraph it was cut from.
            "p The cells migrated slowly, the matrix hindering the smooth migration of the cells \
             towards the wound. This response (Fig 3b-d and S1 Fig), Fifty studies were included \
             in the review. Thirty studies gave correlations.",
            "div n=None mRNA levels",
            "p Levels rose.",
        ]
    );
}

#[test]
fn sentence_fragments_are_told_from_heads() {
    for head in [
        "Results",
        "mRNA levels",
        "p53 expression",
        "2.1. Plant Material",
        "Qualitative Differences in Composition of Essential Oils from R. carthamoides Roots",
        "Ethics approval and consent to participate",
        "a) Study design",
        "iv. Limitations",
    ] {
        assert!(!sentence_fragment(head, false), "{head}");
    }
    for text in [
        "hindering the smooth migration of",
        "deep belief network (DBN)",
        "This functional group-specific response (Fig 3b-d and S1d-l Fig),",
        "Fifty-nine studies were included in addressing review question one. Thirty-seven \
         studies reported correlations.",
        "The exclusion criteria are as follows:",
        "Patients may withdraw from the study for the following reasons:",
        "Acute and late toxicity of the treatment and overall survival and progression free \
         survival measured with the consensus voice scale today",
    ] {
        assert!(sentence_fragment(text, false), "{text}");
    }
    // A numbered head may run long; a label with a colon is still a head.
    assert!(!sentence_fragment(
        "The Higher Activity of Both Essential Oils against Gram-Positive and Gram-Negative \
         Bacteria Than against the Yeasts of the Tested Strains",
        true
    ));
    assert!(!sentence_fragment("Primary endpoint:", false));
    assert!(sentence_fragment(
        "Okafor et al. (2016) and Karim et al.",
        false
    ));
    assert!(sentence_fragment("3", true));
    assert!(!sentence_fragment("", true));
}

#[test]
fn a_head_whose_line_ends_on_a_dangling_word_takes_the_next_head_line() {
    let b = one_page(vec![
        vec![
            vec![S(H, "2.4. Culture of Human Astrocytes and")],
            vec![S(H, "Cytotoxicity of the Oils")],
        ],
        vec![vec![S(P, "Cells were grown in flasks.")]],
        vec![vec![S(H, "MATERIALS AND")], vec![S(H, "METHODS")]],
        vec![vec![S(P, "We used the following.")]],
        vec![vec![S(H, "Appendix A")], vec![S(H, "Proofs")]],
        vec![vec![S(P, "We prove it here.")]],
    ]);
    assert_eq!(
        outline(&assembled(&b)),
        [
            "div n=Some(\"2.4.\") Culture of Human Astrocytes and Cytotoxicity of the Oils",
            "p Cells were grown in flasks.",
            "div n=None MATERIALS AND METHODS",
            "p We used the following.",
            "div n=None Appendix A",
            "div n=None Proofs",
            "p We prove it here.",
        ]
    );
}

/// Sets every token of line `line` in block `block` in `font`.
fn line_font(b: &mut Built, block: usize, line: usize, font: &str) {
    let n = b.doc.pages[0].blocks[block].lines[line].tokens.len();
    set_font(b, block, line, 0..n, font);
}

#[test]
fn a_head_line_read_as_text_goes_on_the_head_above_it_in_the_same_face() {
    let mut b = one_page(vec![vec![
        vec![S(H, "3.2 The Treelet Transform as a Feature")],
        vec![S(P, "Selection Scheme Prior to Regression")],
        vec![C(
            "Now consider a typical regression or classification problem with noisy",
        )],
        vec![C("data from the training set.")],
    ]]);
    body_font(&mut b, "Serif");
    line_font(&mut b, 0, 0, "Serif-Bold");
    line_font(&mut b, 0, 1, "Serif-Bold");
    assert_eq!(
        outline(&assembled(&b)),
        [
            "div n=Some(\"3.2\") The Treelet Transform as a Feature Selection Scheme Prior to Regression",
            "p Now consider a typical regression or classification problem with noisy data from the training set.",
        ]
    );
}

#[test]
fn a_head_set_as_a_block_of_its_own_needs_no_short_line() {
    let mut b = one_page(vec![
        vec![vec![S(
            P,
            "Factors associated with the readmission of patients",
        )]],
        vec![
            vec![C("The factors associated with it were")],
            vec![C("analysed in the table below.")],
        ],
        // A quotation in its own face and block, leading into text: no head.
        vec![vec![S(
            P,
            "They said they needed a routine for their pills:",
        )]],
        vec![
            vec![C("This was the answer of most of the")],
            vec![C("people we asked about it.")],
        ],
    ]);
    body_font(&mut b, "Serif");
    line_font(&mut b, 0, 0, "Serif-BoldItalic");
    line_font(&mut b, 2, 0, "Serif-Italic");
    let out = outline(&assembled(&b));
    assert_eq!(
        out[..2],
        [
            "div n=None Factors associated with the readmission of patients",
            "p The factors associated with it were analysed in the table below.",
        ]
    );
    assert_eq!(
        out.iter().filter(|l| l.starts_with("div")).count(),
        1,
        "{out:?}"
    );
}

#[test]
fn a_head_line_inside_a_paragraph_span_after_a_sentence_opens_a_div() {
    let mut b = one_page(vec![
        vec![vec![S(
            P,
            "The first study found high levels of fear in the group.",
        )]],
        vec![
            vec![C("Levels of guilt")],
            vec![C("Hickman and Swim reported guilt based on mean")],
            vec![C("responses to single items in their survey of youth.")],
        ],
        // A lone connective before a formula in another face opens a sentence.
        vec![
            vec![C("Then")],
            vec![C("M equals k one")],
            vec![C("plus k two.")],
        ],
    ]);
    body_font(&mut b, "Serif");
    line_font(&mut b, 1, 0, "Serif-Italic");
    line_font(&mut b, 2, 1, "Math-Italic");
    line_font(&mut b, 2, 2, "Math-Italic");
    let out = outline(&assembled(&b));
    assert_eq!(
        out[..4],
        [
            "div",
            "p The first study found high levels of fear in the group.",
            "div n=None Levels of guilt",
            "p Hickman and Swim reported guilt based on mean responses to single items in their survey of youth. Then",
        ],
        "{out:?}"
    );
    assert_eq!(
        out.iter().filter(|l| l.starts_with("div")).count(),
        2,
        "{out:?}"
    );
}

#[test]
fn a_figure_span_of_prose_keeps_the_head_it_opens_with() {
    let prose = [
        "Hickman and colleagues reported guilt and sadness based on the mean",
        "responses to single items that they had written for the survey, and",
        "Galway and Field found that the young people they asked felt sad about",
        "the state of the climate more often than they felt guilty about it.",
    ];
    let mut b = one_page(vec![vec![
        vec![S(Fig, "Levels of guilt and sadness")],
        vec![C(prose[0])],
        vec![C(prose[1])],
        vec![C(prose[2])],
        vec![C(prose[3])],
    ]]);
    body_font(&mut b, "Serif");
    line_font(&mut b, 0, 0, "Serif-Italic");
    let body = assembled(&b);
    assert!(body.figures.is_empty());
    assert_eq!(
        outline(&body),
        [
            "div n=None Levels of guilt and sadness".to_string(),
            format!("p {}", prose.join(" ")),
        ]
    );
}

#[test]
fn a_bar_between_section_number_and_title_is_left_out() {
    let b = one_page(vec![
        vec![vec![S(H, "2.1 | Plant material")]],
        vec![vec![S(P, "The plants were harvested in May.")]],
        vec![vec![S(H, "| Results")]],
        vec![vec![S(P, "The yield was high.")]],
    ]);
    assert_eq!(
        outline(&assembled(&b)),
        [
            "div n=Some(\"2.1\") Plant material",
            "p The plants were harvested in May.",
            "div n=None | Results",
            "p The yield was high.",
        ]
    );
}

#[test]
fn two_short_heads_stacked_in_one_face_are_two_divs() {
    let mut b = one_page(vec![
        vec![vec![S(H, "Data analysis")], vec![C("Quantitative data")]],
        vec![vec![S(
            P,
            "We measured every outcome of the trial with the same instruments at each visit.",
        )]],
        // A second line that closes a sentence is a statement's text, not a head.
        vec![
            vec![S(H, "Consent for publication")],
            vec![C("Not applicable.")],
        ],
        vec![vec![S(P, "More text.")]],
        // A head that fills its line and wraps stays one head.
        vec![
            vec![S(
                H,
                "Results of the first trial of the new treatment in adults",
            )],
            vec![C("Overall")],
        ],
    ]);
    // The builder leaves line boxes empty: give each line the box of its tokens.
    for line in b.doc.pages[0]
        .blocks
        .iter_mut()
        .flat_map(|bl| bl.lines.iter_mut())
    {
        let first = line.tokens[0].bbox;
        line.bbox = line
            .tokens
            .iter()
            .skip(1)
            .fold(first, |a, t| a.union(&t.bbox));
    }
    assert_eq!(
        outline(&assembled(&b)),
        [
            "div n=None Data analysis",
            "div n=None Quantitative data",
            "p We measured every outcome of the trial with the same instruments at each visit.",
            "div n=None Consent for publication Not applicable.",
            "p More text.",
            "div n=None Results of the first trial of the new treatment in adults Overall",
        ]
    );
}
