/*!
`processFundingAcknowledgement`: one funding or acknowledgement statement, given as text,
labelled by the funding-acknowledgement model (the model the full-text cascade runs over a
document's acknowledgement and funding sections, `cascade::document`). The answer is the
statement's tokens and the labelled spans over them; the TEI is written by
`quire::tei::funding`.
*/

use futures::future::BoxFuture;
use quire::features::Tok;
use quire::layout::Span;
use quire::models::funding::{self, Label};
use quire::models::ModelName;

use crate::{CascadeCtx, Error, Labeler};

pub struct FundingStatementCascade {
    pub text: String,
}

/// A labelled statement.
#[derive(Debug, Clone, Default)]
pub struct LabelledStatement {
    pub toks: Vec<Tok>,
    pub spans: Vec<Span<Label>>,
}

impl crate::Cascade for FundingStatementCascade {
    type Output = LabelledStatement;

    fn run(self, ctx: CascadeCtx) -> BoxFuture<'static, Result<LabelledStatement, Error>> {
        Box::pin(async move {
            let models_dir = ctx.engine.models_dir.clone();
            let text = self.text;
            let (toks, rows) = CascadeCtx::blocking("funding features", move || {
                let lex = funding::FundingLexicon::shared(&models_dir)?;
                let view = funding::FundingView::new(&lex);
                let toks = quire::features::toks_from_text(&text, false);
                let rows = funding::rows(&toks, &view);
                Ok((toks, rows))
            })
            .await?;
            if toks.is_empty() {
                return Ok(LabelledStatement::default());
            }
            let mut labels = Labeler::new(ctx.models.clone(), None, false)
                .label(ModelName::FundingAcknowledgement, vec![rows])
                .await?;
            let labels = labels.pop().unwrap_or_default();
            let spans = funding::decode(&labels)?;
            Ok(LabelledStatement { toks, spans })
        })
    }
}
