/*!
The one way a cascade labels sequences: a [`Labeler`] per request holds the model actors, the
request's flavour and, with `debugMode`, the [`DebugTrace`]. Every model invocation of every
cascade goes through [`Labeler::label`], which skips empty sequences without a round trip,
checks in one place that the model answered one label per token, and records the invocation
in the trace.
*/

use quire::features::{Rows, Tok};
use quire::flavor::Flavor;
use quire::labels::Labels;
use quire::lexicon::LexView;
use quire::models::ModelName;

use crate::{DebugTrace, Error, Models};

/// Labels sequences for one request (see the module documentation).
pub struct Labeler {
    models: Models,
    flavor: Option<Flavor>,
    trace: Option<DebugTrace>,
}

fn tagging(model: ModelName, reason: String) -> Error {
    Error::Engine(quire::Error::Tagging {
        model: model.as_str().to_string(),
        reason,
    })
}

impl Labeler {
    /// A labeler for one request; `debug` keeps a trace of every invocation.
    pub fn new(models: Models, flavor: Option<Flavor>, debug: bool) -> Labeler {
        Labeler {
            models,
            flavor,
            trace: debug.then(DebugTrace::new),
        }
    }

    /// The request's flavour.
    pub fn flavor(&self) -> Option<Flavor> {
        self.flavor
    }

    /// The trace, when the request asked for one.
    pub fn into_trace(self) -> Option<DebugTrace> {
        self.trace
    }

    /// Labels `seqs` (feature rows per token, per sequence) with `model`, one batch. Empty
    /// sequences get no labels and cost nothing; the answer has one label per row of every
    /// sequence, or the call fails with `TAGGING_ERROR`. Only the segmentation, header and
    /// fulltext models have flavoured variants; the request's flavour is passed to those.
    pub async fn label(&mut self, model: ModelName, seqs: Vec<Rows>) -> Result<Vec<Labels>, Error> {
        let flavor = match model {
            ModelName::Segmentation | ModelName::Header => self.flavor,
            // GROBID's light-ref full-text data is the light data (one model for both).
            ModelName::Fulltext => match self.flavor {
                Some(Flavor::ArticleLight | Flavor::ArticleLightRef) => Some(Flavor::ArticleLight),
                _ => None,
            },
            _ => None,
        };
        let n = seqs.len();
        let mut slots = Vec::with_capacity(n);
        let mut batch = Vec::with_capacity(n);
        for (i, seq) in seqs.into_iter().enumerate() {
            if !seq.is_empty() {
                slots.push(i);
                batch.push(seq);
            }
        }
        let mut out: Vec<Labels> = vec![Labels::empty(); n];
        if batch.is_empty() {
            return Ok(out);
        }
        let labelled = self.label_batch(model, flavor, batch).await?;
        for (slot, labels) in slots.into_iter().zip(labelled) {
            out[slot] = labels;
        }
        Ok(out)
    }

    /// [`Labeler::label`] for sequences computed from tokens (the text models): with a trace,
    /// the tokens of the non-empty sequences are recorded beside the rows (the training data of
    /// `createTraining` writes them back as text).
    pub async fn label_toks(
        &mut self,
        model: ModelName,
        toks: &[Vec<Tok>],
        seqs: Vec<Rows>,
    ) -> Result<Vec<Labels>, Error> {
        let labels = self.label(model, seqs).await?;
        if let Some(trace) = self.trace.as_mut() {
            let kept: Vec<Vec<Tok>> = toks.iter().filter(|t| !t.is_empty()).cloned().collect();
            if !kept.is_empty() {
                trace.attach_toks(kept);
            }
        }
        Ok(labels)
    }

    /// Tokens → feature rows → labels → records, the path of every string-model stage: each
    /// sequence of `toks` gets its rows from `rows`, `model` labels the batch in one call
    /// ([`Labeler::label_toks`]), and `decode(index, tokens, labels)` turns each sequence's
    /// labels into its record.
    pub async fn tag<R>(
        &mut self,
        model: ModelName,
        view: &LexView<'_>,
        toks: &[Vec<Tok>],
        rows: fn(&[Tok], &LexView<'_>) -> Rows,
        mut decode: impl FnMut(usize, &[Tok], &Labels) -> R,
    ) -> Result<Vec<R>, Error> {
        let batch = toks.iter().map(|t| rows(t, view)).collect();
        let labels = self.label_toks(model, toks, batch).await?;
        Ok(toks
            .iter()
            .zip(&labels)
            .enumerate()
            .map(|(i, (t, l))| decode(i, t, l))
            .collect())
    }

    async fn label_batch(
        &mut self,
        model: ModelName,
        flavor: Option<Flavor>,
        batch: Vec<Rows>,
    ) -> Result<Vec<Labels>, Error> {
        let lens: Vec<usize> = batch.iter().map(Vec::len).collect();
        // The trace needs the rows after the call; without a trace nothing is copied.
        let (labels, rows) = match self.trace {
            Some(_) => {
                let labels = self.models.label(model, flavor, batch.clone()).await?;
                (labels, Some(batch))
            }
            None => (self.models.label(model, flavor, batch).await?, None),
        };
        if labels.len() != lens.len() {
            return Err(tagging(
                model,
                format!("{} label sequences for {} inputs", labels.len(), lens.len()),
            ));
        }
        if let Some((got, want)) = labels
            .iter()
            .zip(&lens)
            .map(|(l, n)| (l.len(), *n))
            .find(|(got, want)| got != want)
        {
            return Err(tagging(model, format!("{got} labels for {want} tokens")));
        }
        crate::metrics::metrics()
            .model_sequences
            .with_label_values(&[model.as_str()])
            .inc_by(lens.len() as u64);
        if let (Some(trace), Some(rows)) = (self.trace.as_mut(), rows) {
            trace.record(model.as_str(), &rows, &labels);
        }
        Ok(labels)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ModelSettings;

    #[actix::test]
    async fn empty_sequences_cost_nothing_and_absent_models_fail_with_the_model_named() {
        let settings = ModelSettings {
            models_dir: std::env::temp_dir().join("quire-labeler-test-empty"),
            preload: false,
            ..ModelSettings::default()
        };
        let mut labeler = Labeler::new(Models::start(&settings), None, true);
        let out = labeler
            .label(ModelName::Date, vec![Vec::new(), Vec::new()])
            .await
            .expect("no call");
        assert_eq!(out, vec![Vec::<String>::new(), Vec::new()]);
        let err = labeler
            .label(ModelName::Date, vec![Vec::new(), vec![vec!["1999".into()]]])
            .await
            .expect_err("absent model");
        assert!(err.to_string().contains("date"), "{err}");
        assert!(labeler.into_trace().expect("trace").entries.is_empty());
    }
}
