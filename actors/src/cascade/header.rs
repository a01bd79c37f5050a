/*!
The header cascade (`processHeaderDocument`): PDF → layout (worker pool) → segmentation →
header → name-header (one call per author segment) → affiliation-address (all affiliation
segments in one batch) → date → [`HeaderRecord`]. Feature extraction and decoding run on the
blocking pool; tagging runs on the model actors. With `debug`, every model invocation is
recorded in a [`DebugTrace`] (feature rows and labels) for the `debugMode` dump.
*/

use std::sync::Arc;

use futures::future::BoxFuture;
use quire::layout::{Document, PageRange};
use quire::lexicon::{LexView, Lexicons};
use quire::models::header::{self, HeaderFields};
use quire::models::header_record::{self, SubResults};
use quire::models::{affiliation, date, name, segmentation, ModelName};
use quire::tei::header::HeaderRecord;

use crate::{Cascade, CascadeCtx, DebugTrace, Error};

/// What a header request asks for.
#[derive(Debug, Clone)]
pub struct HeaderRequest {
    pub pdf: Vec<u8>,
    pub range: PageRange,
    /// Record every model invocation (debugMode).
    pub debug: bool,
    /// Flavour of the segmentation and header models (`article/light`), if any.
    pub flavor: Option<&'static str>,
}

/// The header cascade; the layout runs on the context's worker pool.
pub struct HeaderCascade {
    pub request: HeaderRequest,
}

/// What the cascade produces.
#[derive(Debug, Clone, Default)]
pub struct HeaderOutput {
    pub record: HeaderRecord,
    /// The model invocations, when the request asked for debugging.
    pub trace: Option<DebugTrace>,
}

impl Cascade for HeaderCascade {
    type Output = HeaderOutput;

    fn run(self, ctx: CascadeCtx) -> BoxFuture<'static, Result<HeaderOutput, Error>> {
        Box::pin(async move {
            let request = self.request;
            let doc = ctx.pdf()?.layout(request.pdf, request.range).await?;
            let lex = quire::lexicon::shared(&ctx.engine.models_dir)?;
            process(&ctx, Arc::new(doc), lex, request.flavor, request.debug).await
        })
    }
}

/// Labels one batch with a model, recording it in the trace.
async fn label(
    ctx: &CascadeCtx,
    trace: &mut Option<DebugTrace>,
    model: ModelName,
    flavor: Option<&'static str>,
    seqs: Vec<Vec<Vec<String>>>,
) -> Result<Vec<Vec<String>>, Error> {
    if seqs.iter().all(Vec::is_empty) {
        return Ok(seqs.iter().map(|_| Vec::new()).collect());
    }
    let labels = ctx.models.label(model, flavor, seqs.clone()).await?;
    if labels.len() != seqs.len() || labels.iter().zip(&seqs).any(|(l, s)| l.len() != s.len()) {
        return Err(quire::Error::Tagging {
            model: model.as_str().to_string(),
            reason: "the model returned a different number of labels than tokens".into(),
        }
        .into());
    }
    if let Some(t) = trace.as_mut() {
        t.record(model.as_str(), &seqs, &labels);
    }
    Ok(labels)
}

/// Text of the laid-out pages, for identifiers found anywhere (a lone DOI).
fn document_text(doc: &Document) -> String {
    let mut s = String::new();
    for b in doc.blocks() {
        for l in &b.lines {
            s.push_str(&segmentation::line_text(l));
            s.push('\n');
        }
    }
    s
}

/// The cascade after layout: everything from segmentation to the record.
pub async fn process(
    ctx: &CascadeCtx,
    doc: Arc<Document>,
    lex: Arc<Lexicons>,
    flavor: Option<&'static str>,
    debug: bool,
) -> Result<HeaderOutput, Error> {
    let mut trace = debug.then(DebugTrace::new);

    // Segmentation.
    let (d, l) = (doc.clone(), lex.clone());
    let (seg_rows, refs) = CascadeCtx::blocking("segmentation features", move || {
        let (facts, refs) = segmentation::document_lines(&d);
        Ok((segmentation::rows(&facts, &LexView::new(&l)), refs))
    })
    .await?;
    if seg_rows.is_empty() {
        return Ok(HeaderOutput {
            record: HeaderRecord::default(),
            trace,
        });
    }
    let seg_labels = label(
        ctx,
        &mut trace,
        ModelName::Segmentation,
        flavor,
        vec![seg_rows],
    )
    .await?;
    let mut zones = segmentation::decode(&refs, &seg_labels[0])?;
    zones.extend_header_over_abstract(&doc, 60);
    let header_lines = zones.lines(segmentation::Label::Header);

    // Header.
    let (d, l) = (doc.clone(), lex.clone());
    let (tokens, rows) = CascadeCtx::blocking("header features", move || {
        let tokens = header::document_tokens(&d, &header_lines);
        let facts: Vec<header::TokenFacts> = tokens.iter().map(|t| t.facts.clone()).collect();
        let rows = header::rows(&facts, &LexView::new(&l));
        Ok((tokens, rows))
    })
    .await?;
    let mut fields = if rows.is_empty() {
        HeaderFields::default()
    } else {
        let labels = label(ctx, &mut trace, ModelName::Header, flavor, vec![rows]).await?;
        header::decode(&tokens, &labels[0])?
    };
    header_record::rescue_authors_by_email(&mut fields);

    let sub = sub_models(ctx, &mut trace, &fields, &lex).await?;
    let d = doc.clone();
    let record = CascadeCtx::blocking("header assembly", move || {
        Ok(header_record::assemble(&fields, sub, &document_text(&d)))
    })
    .await?;
    Ok(HeaderOutput { record, trace })
}

/// Names, affiliations and dates of the header fields.
async fn sub_models(
    ctx: &CascadeCtx,
    trace: &mut Option<DebugTrace>,
    fields: &HeaderFields,
    lex: &Arc<Lexicons>,
) -> Result<SubResults, Error> {
    let view = LexView::new(lex);
    let mut sub = SubResults::default();

    // One name-header call per author segment, as GROBID does.
    for seg in header_record::author_segments(fields) {
        let toks = name::toks(&seg, false);
        let rows = name::rows(&toks, &view);
        let labels = label(ctx, trace, ModelName::NameHeader, None, vec![rows]).await?;
        let mut persons = name::decode(&toks, &labels[0]);
        name::middle_words_out_of_surnames(&mut persons, &view);
        sub.persons.push(persons);
    }

    // All affiliation segments in one batch.
    let segs = header_record::affiliation_segments(fields);
    if !segs.is_empty() {
        let toks: Vec<_> = segs.iter().map(|s| affiliation::toks(s)).collect();
        let rows: Vec<_> = toks.iter().map(|t| affiliation::rows(t, &view)).collect();
        let labels = label(ctx, trace, ModelName::AffiliationAddress, None, rows).await?;
        for ((t, l), seg) in toks.iter().zip(&labels).zip(&segs) {
            let mut affs = affiliation::decode(t, l, lex);
            // One affiliation in the segment: its raw text is the segment as printed.
            if let [one] = affs.as_mut_slice() {
                one.raw = seg.split_whitespace().collect::<Vec<_>>().join(" ");
            }
            sub.affiliations.extend(affs);
        }
    }

    // Dates: the first string that normalises.
    for s in header_record::date_strings(fields) {
        let toks = date::toks(&s);
        let rows = date::rows(&toks, &view);
        let labels = label(ctx, trace, ModelName::Date, None, vec![rows]).await?;
        let dates = date::decode(&toks, &labels[0]);
        if let Some(best) = date::best(&dates) {
            if best.year.is_some() {
                sub.date = Some(best.clone());
                break;
            }
        }
    }
    Ok(sub)
}
