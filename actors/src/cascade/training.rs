/*!
The training-data cascade (`createTraining`, `quire create-training`): the full-text stages
over the whole PDF with every model invocation recorded, then the engine writes each model's
training files from what the models saw and predicted
([`quire::corpus::create::training_files`]).
*/

use futures::future::BoxFuture;
use quire::corpus::create::{training_files, TrainingFile};
use quire::flavor::Flavor;
use quire::layout::PageRange;

use crate::cascade::document::DocStage;
use crate::{Cascade, CascadeCtx, Error};

/// What a training-data request asks for.
#[derive(Debug, Clone)]
pub struct CreateTraining {
    pub pdf: Vec<u8>,
    /// `article/light` or `article/light-ref`: the flavoured models label, and their files go
    /// to the flavour's folders.
    pub flavor: Option<Flavor>,
    /// Base name of the files (`<stem>.training.segmentation`, …).
    pub stem: String,
}

impl Cascade for CreateTraining {
    type Output = Vec<TrainingFile>;

    fn run(self, ctx: CascadeCtx) -> BoxFuture<'static, Result<Vec<TrainingFile>, Error>> {
        Box::pin(async move {
            let range = PageRange::from_grobid(-1, -1);
            let mut stage = DocStage::open(ctx, self.pdf, range, self.flavor, true).await?;
            let zones = stage.segment().await?.clone();
            stage.header().await?;
            let references = if self.flavor == Some(Flavor::ArticleLight) {
                Vec::new()
            } else {
                stage.references().await?
            };
            stage.body(&references).await?;
            let doc = stage.doc.clone();
            let calls = stage
                .into_trace()
                .map(|t| t.invocations())
                .unwrap_or_default();
            let (stem, flavor) = (self.stem, self.flavor);
            CascadeCtx::blocking("training files", move || {
                Ok(training_files(&doc, &zones, &calls, &stem, flavor)?)
            })
            .await
        })
    }
}
