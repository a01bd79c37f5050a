/*!
The references cascade (`processReferences`): PDF → layout (worker pool) → the segment and
references stages of the document pipeline ([`DocStage`]) → the document's bibliography, one
[`Reference`] per entry in document order. A document without a references zone gives none.
*/

use futures::future::BoxFuture;
use quire::document::Reference;
use quire::layout::PageRange;

use crate::cascade::document::DocStage;
use crate::{Applied, Cascade, CascadeCtx, DebugTrace, Error};

/// What a references request asks for.
#[derive(Debug, Clone)]
pub struct ReferencesRequest {
    pub pdf: Vec<u8>,
    pub range: PageRange,
    /// Record every model invocation (debugMode).
    pub debug: bool,
    /// `consolidateCitations` (0: none).
    pub consolidate_citations: i64,
}

/// The references cascade.
pub struct ReferencesCascade {
    pub request: ReferencesRequest,
}

/// What the cascade produces.
#[derive(Debug, Clone, Default)]
pub struct ReferencesOutput {
    pub references: Vec<Reference>,
    /// The model invocations, when the request asked for debugging.
    pub trace: Option<DebugTrace>,
    /// What citation consolidation did.
    pub consolidation: Applied,
}

impl Cascade for ReferencesCascade {
    type Output = ReferencesOutput;

    fn run(self, ctx: CascadeCtx) -> BoxFuture<'static, Result<ReferencesOutput, Error>> {
        Box::pin(async move {
            let r = self.request;
            let mut stage = DocStage::open(ctx.clone(), r.pdf, r.range, None, r.debug).await?;
            let mut references = stage.references().await?;
            let consolidation = ctx
                .consolidation
                .citations(
                    references.iter_mut().map(|r| &mut r.citation),
                    r.consolidate_citations,
                )
                .await;
            Ok(ReferencesOutput {
                references,
                trace: stage.into_trace(),
                consolidation,
            })
        })
    }
}
