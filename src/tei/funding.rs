/*!
The answer of `processFundingAcknowledgement` (grobid-service §4.2): one funding or
acknowledgement statement given as text, written back as a TEI `<p>` whose entities found by the
funding-acknowledgement model are inline `<rs type="…">` elements, in GROBID's vocabulary:
`funder`, `grantNumber`, `grantName`, `programName`, `projectName`, `person`, `affiliation`,
`institution` (an infrastructure is `institution` with `subtype="infrastructure"`). URLs and
other text stay plain. With sentences asked for, the paragraph holds one `<s>` per sentence (a
sentence boundary never cuts an entity); with ids asked for, `<p>` and each `<s>` get an
`xml:id`.
*/

use std::ops::Range;

use crate::features::Tok;
use crate::layout::Span;
use crate::models::funding::{token_ranges, Label};
use crate::tei::writer::{escape, TEI_NS};

/// The `rs` attributes of an entity label; `None` for text that stays plain.
pub fn rs_type(label: Label) -> Option<(&'static str, Option<&'static str>)> {
    Some(match label {
        Label::FunderName => ("funder", None),
        Label::GrantNumber => ("grantNumber", None),
        Label::GrantName => ("grantName", None),
        Label::ProgramName => ("programName", None),
        Label::ProjectName => ("projectName", None),
        Label::Person => ("person", None),
        Label::Affiliation => ("affiliation", None),
        Label::Institution => ("institution", None),
        Label::Infrastructure => ("institution", Some("infrastructure")),
        Label::Url | Label::Other => return None,
    })
}

/// The entities of a labelled statement as byte ranges of `text` (from the first token's start
/// to the last token's end), sorted, without overlaps; spans whose tokens were not found in
/// `text` are left out.
pub fn entities(text: &str, toks: &[Tok], spans: &[Span<Label>]) -> Vec<(Range<usize>, Label)> {
    let ranges = token_ranges(text, toks);
    let mut out: Vec<(Range<usize>, Label)> = Vec::new();
    for s in spans {
        if rs_type(s.label).is_none() || s.tokens.is_empty() {
            continue;
        }
        let (Some(first), Some(last)) = (ranges.get(s.tokens.start), ranges.get(s.tokens.end - 1))
        else {
            continue;
        };
        if first.is_empty() || last.end <= first.start {
            continue;
        }
        let r = first.start..last.end;
        if out.last().is_some_and(|(prev, _)| prev.end > r.start) {
            continue;
        }
        out.push((r, s.label));
    }
    out
}

/// GROBID-shaped ids (`_` and seven characters of `[0-9A-Za-z]`) from a stream seeded by the
/// statement's text, so the same text always gets the same ids.
struct Ids(u64);

impl Ids {
    fn new(text: &str) -> Self {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in text.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        Ids(h)
    }

    fn next(&mut self) -> String {
        const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        let mut id = String::from("_");
        for _ in 0..7 {
            id.push(char::from(ALPHABET[(z % 62) as usize]));
            z /= 62;
        }
        id
    }
}

/// `text[range]` with its entities inline.
fn inline(out: &mut String, text: &str, range: Range<usize>, ents: &[(Range<usize>, Label)]) {
    let mut at = range.start;
    for (r, label) in ents
        .iter()
        .filter(|(r, _)| r.start >= range.start && r.end <= range.end)
    {
        let Some((ty, sub)) = rs_type(*label) else {
            continue;
        };
        out.push_str(&escape(&text[at..r.start]));
        out.push_str(&format!("<rs type=\"{ty}\""));
        if let Some(sub) = sub {
            out.push_str(&format!(" subtype=\"{sub}\""));
        }
        out.push('>');
        out.push_str(&escape(&text[r.clone()]));
        out.push_str("</rs>");
        at = r.end;
    }
    out.push_str(&escape(&text[at..range.end]));
}

/// The statement's `<p>` (TEI namespace) with its entities inline; `sentences` (byte ranges
/// of `text`, in order, none cutting an entity) wrap the text in `<s>` elements; `ids` gives
/// the paragraph and each sentence an `xml:id`.
pub fn statement_tei(
    text: &str,
    ents: &[(Range<usize>, Label)],
    sentences: Option<&[Range<usize>]>,
    ids: bool,
) -> String {
    let mut gen = Ids::new(text);
    let mut out = format!("<p xmlns=\"{TEI_NS}\"");
    if ids {
        out.push_str(&format!(" xml:id=\"{}\"", gen.next()));
    }
    out.push('>');
    match sentences {
        Some(sentences) => {
            for s in sentences {
                out.push_str("<s");
                if ids {
                    out.push_str(&format!(" xml:id=\"{}\"", gen.next()));
                }
                out.push('>');
                inline(&mut out, text, s.clone(), ents);
                out.push_str("</s>");
            }
        }
        None => inline(&mut out, text, 0..text.len(), ents),
    }
    out.push_str("</p>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::toks_from_text;

    fn span(toks: &[Tok], label: Label, from: &str, to: &str) -> Span<Label> {
        let find = |w: &str| toks.iter().position(|t| t.text == w).expect(w);
        Span {
            label,
            tokens: find(from)..find(to) + 1,
        }
    }

    #[test]
    fn entities_are_written_inline_as_rs_with_grobid_types() {
        let text = "We thank Ann Lee. Funded by the Wellcome Trust (grant 12-34) & ESRF.";
        let toks = toks_from_text(text, false);
        let spans = vec![
            span(&toks, Label::Other, "We", "thank"),
            span(&toks, Label::Person, "Ann", "Lee"),
            span(&toks, Label::FunderName, "Wellcome", "Trust"),
            span(&toks, Label::GrantNumber, "12", "34"),
            span(&toks, Label::Infrastructure, "ESRF", "ESRF"),
        ];
        let ents = entities(text, &toks, &spans);
        assert_eq!(ents.len(), 4);
        let tei = statement_tei(text, &ents, None, false);
        assert_eq!(
            tei,
            "<p xmlns=\"http://www.tei-c.org/ns/1.0\">We thank <rs type=\"person\">Ann Lee</rs>. \
             Funded by the <rs type=\"funder\">Wellcome Trust</rs> (grant \
             <rs type=\"grantNumber\">12-34</rs>) &amp; \
             <rs type=\"institution\" subtype=\"infrastructure\">ESRF</rs>.</p>"
        );
        let sentences = [0..17, 18..text.len()];
        let tei = statement_tei(text, &ents, Some(&sentences), true);
        assert_eq!(tei.matches("<s xml:id=\"_").count(), 2, "{tei}");
        assert!(tei.starts_with("<p xmlns=\"http://www.tei-c.org/ns/1.0\" xml:id=\"_"));
        assert!(
            tei.contains("<rs type=\"person\">Ann Lee</rs>.</s><s "),
            "{tei}"
        );
        // The same text gets the same ids.
        assert_eq!(tei, statement_tei(text, &ents, Some(&sentences), true));
    }
}
