/*!
The patent citation cascade (`processCitationPatentTXT`, `processCitationPatentST36`,
`processCitationPatentPDF`, `citationPatentAnnotations`; reference grobid-models.md §1.6):
the input becomes text segments (the whole plain text; each ST.36 description paragraph; the
text of a PDF, laid out by the worker processes), each cut into the units the model labels
(paragraphs of the plain text and the PDF's text, `patent_citation::units`; each ST.36 paragraph whole). The `patent-citation` model labels all units in one
batch; `<refPatent>` spans go through the patent-number parser, `<refNPL>` spans through the
citation, name-citation and date models in one batch each, then consolidation.
*/

use futures::future::BoxFuture;
use quire::layout::PageRange;
use quire::lexicon::LexView;
use quire::models::patent_citation::{self as pc, Tokens};
use quire::models::ModelName;
use quire::patent::st36::{self, MarkKind};
use quire::patent::{number, segment_id, NplRef, PdfText, Segment};

use crate::cascade::strings::parse_citations;
use crate::{Applied, Cascade, CascadeCtx, Error, Labeler};

/// What a patent request brings.
#[derive(Debug, Clone)]
pub enum PatentInput {
    /// A patent description as plain text.
    Text(String),
    /// An ST.36 XML document.
    St36(String),
    /// A PDF with a text layer.
    Pdf(Vec<u8>),
}

/// The patent cascade.
pub struct PatentCascade {
    pub input: PatentInput,
    /// `consolidateCitations` for the non-patent citations (0: none).
    pub consolidate: i64,
}

/// What it produces: the segments with their citations, and for a PDF its text with boxes.
#[derive(Debug, Clone, Default)]
pub struct PatentOutput {
    pub segments: Vec<Segment>,
    pub pdf: Option<PdfText>,
    pub consolidation: Applied,
}

/// A segment and the byte ranges of it the model labels.
pub type Units = (Segment, Vec<std::ops::Range<usize>>);

/// Segments and, per segment, the byte ranges the model labels.
fn segments_of(input: &PatentInput) -> Result<Vec<Units>, Error> {
    Ok(match input {
        PatentInput::Text(t) => {
            let units = pc::units(t);
            vec![(
                Segment {
                    id: "p1".into(),
                    text: t.clone(),
                    ..Segment::default()
                },
                units,
            )]
        }
        PatentInput::St36(xml) => st36::read_description(xml)?
            .into_iter()
            .enumerate()
            .map(|(i, p)| {
                let whole = 0..p.text.len();
                (
                    Segment {
                        id: segment_id(p.id.as_deref(), i + 1),
                        text: p.text,
                        ..Segment::default()
                    },
                    vec![whole],
                )
            })
            .collect(),
        PatentInput::Pdf(_) => Vec::new(),
    })
}

/// Label the segments' units and fill in their citations.
pub async fn find_citations(
    ctx: &CascadeCtx,
    mut segs: Vec<Units>,
    consolidate: i64,
) -> Result<(Vec<Segment>, Applied), Error> {
    let lex = quire::lexicon::shared(&ctx.engine.models_dir)?;
    // (segment, unit start, tokens)
    let mut units: Vec<(usize, usize, Tokens)> = Vec::new();
    for (si, (seg, ranges)) in segs.iter().enumerate() {
        for r in ranges {
            let t = pc::tokens(&seg.text[r.clone()]);
            if !t.toks.is_empty() {
                units.push((si, r.start, t));
            }
        }
    }
    let batch: Vec<quire::features::Rows> = {
        let view = LexView::new(&lex);
        units.iter().map(|(_, _, t)| pc::rows(t, &view)).collect()
    };
    let mut labeler = Labeler::new(ctx.models.clone(), None, false);
    let labels = labeler.label(ModelName::PatentCitation, batch).await?;
    let mut npl_texts = Vec::new();
    let mut npl_slots = Vec::new();
    for ((si, start, t), l) in units.iter().zip(&labels) {
        let seg = &mut segs[*si].0;
        let unit_end = start + t.toks.last().map(|p| p.range.end).unwrap_or(0);
        let found = pc::decode(&seg.text[*start..unit_end], t, l)?;
        for f in found {
            let range = f.range.start + start..f.range.end + start;
            match f.kind {
                MarkKind::Patent => {
                    for mut p in number::parse(&seg.text[range.clone()]) {
                        p.range = p.range.start + range.start..p.range.end + range.start;
                        seg.patents.push(p);
                    }
                }
                MarkKind::Npl => {
                    npl_texts.push(seg.text[range.clone()].to_string());
                    npl_slots.push((*si, range));
                }
            }
        }
    }
    let mut cits = parse_citations(&mut labeler, &lex, &npl_texts).await?;
    let applied = ctx
        .consolidation
        .citations(cits.iter_mut(), consolidate)
        .await;
    for ((si, range), citation) in npl_slots.into_iter().zip(cits) {
        segs[si].0.npl.push(NplRef { range, citation });
    }
    Ok((segs.into_iter().map(|(s, _)| s).collect(), applied))
}

impl Cascade for PatentCascade {
    type Output = PatentOutput;

    fn run(self, ctx: CascadeCtx) -> BoxFuture<'static, Result<PatentOutput, Error>> {
        Box::pin(async move {
            let (segs, pdf) = match self.input {
                PatentInput::Pdf(bytes) => {
                    let doc = ctx.pdf()?.layout(bytes, PageRange::default()).await?;
                    let text = PdfText::of(&doc);
                    let units = pc::units(&text.text);
                    let seg = Segment {
                        id: "p1".into(),
                        text: text.text.clone(),
                        ..Segment::default()
                    };
                    (vec![(seg, units)], Some(text))
                }
                other => (segments_of(&other)?, None),
            };
            let (segments, consolidation) = find_citations(&ctx, segs, self.consolidate).await?;
            Ok(PatentOutput {
                segments,
                pdf,
                consolidation,
            })
        })
    }
}
