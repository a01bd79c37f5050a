/*!
The pipeline coordinator: a `Context` actor on its own `Arbiter` that runs each request's
cascade. A cascade is a value implementing [`Cascade`]; sending [`Run`] hands it a
[`CascadeCtx`] (the model actors, the engine configuration) and the coordinator drives the
returned future, which sends `Label` messages to the model actors. Cascades for the string
endpoints live in `cascade::strings`, the header's in `cascade::header`.

The coordinator's thread only awaits: CPU-heavy steps of a cascade (feature extraction on a
large document, TEI writing) go through [`CascadeCtx::blocking`], and tagging runs on the
model actors' own threads.
*/

use std::sync::Arc;
use std::time::Duration;

use actix::{Actor, Addr, Arbiter, Context, Handler, Message, ResponseFuture};
use futures::future::BoxFuture;
use quire::EngineConfig;

use crate::model::panic_message;
use crate::{Error, Models};

/// What a cascade gets to work with. Cloned into every run.
#[derive(Clone)]
pub struct CascadeCtx {
    pub models: Models,
    pub engine: Arc<EngineConfig>,
    // The PDF layout worker pool joins here (an `Option<...>` field added by the layout work),
    // so that PDF cascades can ask a worker process for a `quire::layout::Document`.
}

impl CascadeCtx {
    pub fn new(models: Models, engine: Arc<EngineConfig>) -> CascadeCtx {
        CascadeCtx { models, engine }
    }

    /// Runs CPU-bound work on the blocking thread pool instead of the coordinator's thread.
    /// A panic inside `f` becomes [`Error::Panicked`] naming `what`.
    pub async fn blocking<T, F>(what: &str, f: F) -> Result<T, Error>
    where
        T: Send + 'static,
        F: FnOnce() -> Result<T, Error> + Send + 'static,
    {
        match tokio::task::spawn_blocking(f).await {
            Ok(result) => result,
            Err(join) => {
                let reason = if join.is_panic() {
                    panic_message(&*join.into_panic())
                } else {
                    "cancelled".to_string()
                };
                tracing::error!(stage = what, "blocking stage failed: {reason}");
                Err(Error::Panicked {
                    model: what.to_string(),
                })
            }
        }
    }
}

/// A request's processing, from inputs to output, as one future.
pub trait Cascade: Send + 'static {
    type Output: Send + 'static;
    fn run(self, ctx: CascadeCtx) -> BoxFuture<'static, Result<Self::Output, Error>>;
}

/// Run a cascade on the coordinator.
pub struct Run<C: Cascade>(pub C);

impl<C: Cascade> Message for Run<C> {
    type Result = Result<C::Output, Error>;
}

/// The coordinator actor.
pub struct Coordinator {
    ctx: CascadeCtx,
    mailbox: usize,
}

impl Actor for Coordinator {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        ctx.set_mailbox_capacity(self.mailbox);
    }
}

impl<C: Cascade> Handler<Run<C>> for Coordinator {
    type Result = ResponseFuture<Result<C::Output, Error>>;

    fn handle(&mut self, msg: Run<C>, _ctx: &mut Self::Context) -> Self::Result {
        msg.0.run(self.ctx.clone())
    }
}

/// Handle to the coordinator: what HTTP handlers call. Cheap to clone.
#[derive(Clone)]
pub struct Pipeline {
    addr: Addr<Coordinator>,
    timeout: Duration,
}

impl Pipeline {
    /// Starts the coordinator on a new `Arbiter`. Must run inside an actix `System`.
    /// `mailbox` should be at least the pool's concurrency; `timeout` bounds one cascade.
    pub fn start(ctx: CascadeCtx, mailbox: usize, timeout: Duration) -> Pipeline {
        let arbiter = Arbiter::new();
        let mailbox = mailbox.max(1);
        let addr =
            Coordinator::start_in_arbiter(&arbiter.handle(), move |_| Coordinator { ctx, mailbox });
        Pipeline { addr, timeout }
    }

    /// Runs `cascade` to completion, at most `timeout`.
    pub async fn run<C: Cascade>(&self, cascade: C) -> Result<C::Output, Error> {
        match tokio::time::timeout(self.timeout, self.addr.send(Run(cascade))).await {
            Ok(Ok(result)) => result,
            Ok(Err(_mailbox)) => Err(Error::Panicked {
                model: "pipeline coordinator".to_string(),
            }),
            Err(_elapsed) => Err(Error::Timeout {
                stage: format!("processing (limit {} s)", self.timeout.as_secs()),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ModelSettings;
    use quire::models::ModelName;

    /// Labels one sequence with the date model; in a temp dir the model is absent.
    struct AskDate;

    impl Cascade for AskDate {
        type Output = Vec<Vec<String>>;
        fn run(self, ctx: CascadeCtx) -> BoxFuture<'static, Result<Self::Output, Error>> {
            Box::pin(async move {
                ctx.models
                    .label(ModelName::Date, None, vec![vec![vec!["2001".into()]]])
                    .await
            })
        }
    }

    /// Sums on the blocking pool, then sleeps: checks outputs travel back and timeouts apply.
    struct SumThenSleep(Vec<u64>, Duration);

    impl Cascade for SumThenSleep {
        type Output = u64;
        fn run(self, _ctx: CascadeCtx) -> BoxFuture<'static, Result<u64, Error>> {
            Box::pin(async move {
                let total = CascadeCtx::blocking("sum", move || Ok(self.0.iter().sum())).await?;
                tokio::time::sleep(self.1).await;
                Ok(total)
            })
        }
    }

    fn pipeline(timeout: Duration) -> Pipeline {
        let settings = ModelSettings {
            models_dir: std::env::temp_dir().join("quire-coordinator-test-empty"),
            ..ModelSettings::default()
        };
        let models = Models::start(&settings);
        let ctx = CascadeCtx::new(models, Arc::new(EngineConfig::default()));
        Pipeline::start(ctx, 4, timeout)
    }

    #[actix::test]
    async fn cascades_run_and_report_model_and_time_failures() {
        let p = pipeline(Duration::from_millis(300));
        assert_eq!(
            p.run(SumThenSleep(vec![1, 2, 3], Duration::ZERO))
                .await
                .ok(),
            Some(6)
        );
        let absent = p.run(AskDate).await.expect_err("date model is absent");
        assert!(
            matches!(&absent, Error::ModelAbsent { model, .. } if model == "date"),
            "{absent}"
        );
        let slow = p.run(SumThenSleep(vec![1], Duration::from_secs(2))).await;
        assert!(matches!(slow, Err(Error::Timeout { .. })), "{slow:?}");
    }

    #[actix::test]
    async fn a_panic_in_a_blocking_stage_is_an_error_not_a_crash() {
        let r: Result<(), Error> = CascadeCtx::blocking("boom", || panic!("stage bug")).await;
        assert!(matches!(r, Err(Error::Panicked { model }) if model == "boom"));
    }
}
