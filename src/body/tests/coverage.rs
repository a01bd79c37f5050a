//! Nothing is lost: any spans over a generated document keep every token's text.

use proptest::prelude::*;

use super::*;

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
