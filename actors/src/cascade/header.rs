/*!
The header cascade (`processHeaderDocument`): PDF → layout (worker pool) → the segment and
header stages of the document pipeline ([`DocStage`]) → [`HeaderRecord`]. With `debug`, every
model invocation is recorded in a [`DebugTrace`] for the `debugMode` dump.
*/

use futures::future::BoxFuture;
use quire::document::HeaderRecord;
use quire::flavor::Flavor;
use quire::layout::PageRange;

use crate::cascade::document::DocStage;
use crate::{Applied, Cascade, CascadeCtx, DebugTrace, Error};

/// What a header request asks for.
#[derive(Debug, Clone)]
pub struct HeaderRequest {
    pub pdf: Vec<u8>,
    pub range: PageRange,
    /// Record every model invocation (debugMode).
    pub debug: bool,
    /// Flavour of the segmentation and header models (`article/light`), if any.
    pub flavor: Option<Flavor>,
    /// `consolidateHeader` (0: none).
    pub consolidate_header: i64,
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
    /// What header consolidation did.
    pub consolidation: Applied,
}

impl Cascade for HeaderCascade {
    type Output = HeaderOutput;

    fn run(self, ctx: CascadeCtx) -> BoxFuture<'static, Result<HeaderOutput, Error>> {
        Box::pin(async move {
            let r = self.request;
            let mut stage = DocStage::open(ctx.clone(), r.pdf, r.range, r.flavor, r.debug).await?;
            let mut record = stage.header().await?;
            quire::metadata::enrich_header(&mut record, &stage.doc);
            let consolidation = ctx
                .consolidation
                .header(&mut record, r.consolidate_header)
                .await;
            let mut trace = stage.into_trace();
            if let Some(t) = trace.as_mut() {
                let (rows, labels) = quire::metadata::debug_rows(&record, None);
                t.record(
                    "metadata",
                    &[rows],
                    &[quire::labels::Labels::from_names(&labels)],
                );
            }
            Ok(HeaderOutput {
                record,
                trace,
                consolidation,
            })
        })
    }
}
