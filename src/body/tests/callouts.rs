//! Callouts resolved to references, figures, tables, formulas and notes.

use super::*;
use crate::body::callouts::{author_years, label_items, numbers};

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
            S(P, "and"),
            S(FigM, "Supplementary Fig. 2"),
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
            ("Supplementary Fig. 2", "figure", None),
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
    assert_eq!(nums("[3]."), Some(vec![3]));
    assert_eq!(nums("1,2,"), Some(vec![1, 2]));
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
