/*!
The references cascade (`processReferences`): PDF → layout (worker pool) → the segment and
references stages of the document pipeline ([`DocStage`]) → the document's bibliography, one
[`Reference`] per entry in document order. A document without a references zone gives none.
*/

use futures::future::BoxFuture;
use quire::document::Reference;
use quire::layout::PageRange;

use crate::cascade::document::DocStage;
use crate::{Cascade, CascadeCtx, DebugTrace, Error};

/// What a references request asks for.
#[derive(Debug, Clone)]
pub struct ReferencesRequest {
    pub pdf: Vec<u8>,
    pub range: PageRange,
    /// Record every model invocation (debugMode).
    pub debug: bool,
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
}

impl Cascade for ReferencesCascade {
    type Output = ReferencesOutput;

    fn run(self, ctx: CascadeCtx) -> BoxFuture<'static, Result<ReferencesOutput, Error>> {
        Box::pin(async move {
            let r = self.request;
            let mut stage = DocStage::open(ctx, r.pdf, r.range, None, r.debug).await?;
            let references = stage.references().await?;
            Ok(ReferencesOutput {
                references,
                trace: stage.into_trace(),
            })
        })
    }
}
