/*!
The pipeline coordinator: a `Context` actor on its own `Arbiter` that runs each request's
cascade. A cascade is a value implementing [`Cascade`]; sending [`Run`] hands it a
[`CascadeCtx`] (the model actors, the engine configuration) and the coordinator drives the
returned future, which sends `Label` messages to the model actors. Cascades for the string
endpoints live in `cascade::strings`, the header's in `cascade::header`.

[`Pipeline`] starts one coordinator per CPU, each on its own `Arbiter` thread, and hands runs
out in turn, so light CPU work done inline in a cascade (features of a short string, TEI
writing) spreads over the cores. CPU-heavy steps (features of a whole PDF) should still go
through [`CascadeCtx::blocking`]; tagging runs on the model actors' own threads.
*/

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use actix::{Actor, Addr, Arbiter, Context, Handler, Message, ResponseFuture};
use futures::future::BoxFuture;
use quire::EngineConfig;

use crate::model::panic_message;
use crate::workers::WorkerPool;
use crate::{Consolidation, Error, Models};

/// What a cascade gets to work with. Cloned into every run.
#[derive(Clone)]
pub struct CascadeCtx {
    pub models: Models,
    pub engine: Arc<EngineConfig>,
    /// The PDF layout worker processes; `None` where no pool was started (string-only tests).
    pub pdf: Option<WorkerPool>,
    /// The consolidation backend (none unless one was set).
    pub consolidation: Consolidation,
}

impl CascadeCtx {
    pub fn new(models: Models, engine: Arc<EngineConfig>) -> CascadeCtx {
        CascadeCtx {
            models,
            engine,
            pdf: None,
            consolidation: Consolidation::default(),
        }
    }

    /// The same context with a consolidation backend.
    pub fn with_consolidation(mut self, consolidation: Consolidation) -> CascadeCtx {
        self.consolidation = consolidation;
        self
    }

    /// The same context with a layout worker pool.
    pub fn with_pdf(mut self, pool: WorkerPool) -> CascadeCtx {
        self.pdf = Some(pool);
        self
    }

    /// The layout worker pool, or an error saying none was started.
    pub fn pdf(&self) -> Result<&WorkerPool, Error> {
        self.pdf.as_ref().ok_or_else(|| {
            Error::Engine(quire::Error::PdfConversion(
                "no PDF layout worker pool was started".to_string(),
            ))
        })
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

/// Run a cascade on the coordinator, stopping it at `deadline`.
pub struct Run<C: Cascade> {
    pub cascade: C,
    pub deadline: tokio::time::Instant,
    pub limit: Duration,
}

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

    /// The cascade's future is dropped at the deadline, so a timed-out request starts no
    /// further model call or stage (a call already sent finishes in its model actor).
    fn handle(&mut self, msg: Run<C>, _ctx: &mut Self::Context) -> Self::Result {
        let work = msg.cascade.run(self.ctx.clone());
        let (deadline, limit) = (msg.deadline, msg.limit);
        Box::pin(async move {
            match tokio::time::timeout_at(deadline, work).await {
                Ok(result) => result,
                Err(_elapsed) => {
                    crate::metrics::metrics().cascades_cancelled.inc();
                    Err(Error::Timeout {
                        stage: format!("processing (limit {} s)", limit.as_secs()),
                    })
                }
            }
        })
    }
}

/// Handle to the coordinators: what HTTP handlers call. Cheap to clone.
#[derive(Clone)]
pub struct Pipeline {
    addrs: Arc<Vec<Addr<Coordinator>>>,
    next: Arc<AtomicUsize>,
    timeout: Duration,
}

impl Pipeline {
    /// Starts one coordinator per CPU. Must run inside an actix `System`. `mailbox` should be
    /// at least the pool's concurrency; `timeout` bounds one cascade.
    pub fn start(ctx: CascadeCtx, mailbox: usize, timeout: Duration) -> Pipeline {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        Pipeline::start_n(ctx, cpus.min(16), mailbox, timeout)
    }

    /// Starts `n` coordinators, each on its own `Arbiter` thread.
    pub fn start_n(ctx: CascadeCtx, n: usize, mailbox: usize, timeout: Duration) -> Pipeline {
        let mailbox = mailbox.max(1);
        let addrs = (0..n.max(1))
            .map(|_| {
                let ctx = ctx.clone();
                Coordinator::start_in_arbiter(&Arbiter::new().handle(), move |_| Coordinator {
                    ctx,
                    mailbox,
                })
            })
            .collect();
        Pipeline {
            addrs: Arc::new(addrs),
            next: Arc::new(AtomicUsize::new(0)),
            timeout,
        }
    }

    /// How many coordinators share the runs.
    pub fn coordinators(&self) -> usize {
        self.addrs.len()
    }

    /// Runs `cascade` to completion, at most `timeout`.
    pub async fn run<C: Cascade>(&self, cascade: C) -> Result<C::Output, Error> {
        let i = self.next.fetch_add(1, Ordering::Relaxed) % self.addrs.len().max(1);
        let Some(addr) = self.addrs.get(i) else {
            return Err(Error::Panicked {
                model: "pipeline coordinator".to_string(),
            });
        };
        let deadline = tokio::time::Instant::now() + self.timeout;
        let run = Run {
            cascade,
            deadline,
            limit: self.timeout,
        };
        // The coordinator stops the cascade at the deadline; this outer bound (a little later)
        // only covers a coordinator that cannot answer at all.
        let grace = Duration::from_millis(250);
        match tokio::time::timeout_at(deadline + grace, addr.send(run)).await {
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
        type Output = Vec<quire::labels::Labels>;
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

    /// Counts steps forever, one every few milliseconds (as a cascade making model call
    /// after model call would).
    struct Steps(Arc<AtomicUsize>);

    impl Cascade for Steps {
        type Output = ();
        fn run(self, _ctx: CascadeCtx) -> BoxFuture<'static, Result<(), Error>> {
            Box::pin(async move {
                loop {
                    self.0.fetch_add(1, Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
            })
        }
    }

    #[actix::test]
    async fn a_timed_out_cascade_stops_working_and_is_counted() {
        let p = pipeline(Duration::from_millis(100));
        let steps = Arc::new(AtomicUsize::new(0));
        let cancelled = crate::metrics::metrics().cascades_cancelled.get();
        let out = p.run(Steps(steps.clone())).await;
        assert!(matches!(out, Err(Error::Timeout { .. })), "{out:?}");
        assert!(crate::metrics::metrics().cascades_cancelled.get() > cancelled);
        // Stopped, not left running behind the answer: no step after the timeout.
        tokio::time::sleep(Duration::from_millis(50)).await;
        let after_timeout = steps.load(Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(steps.load(Ordering::SeqCst), after_timeout);
        assert!(after_timeout > 0);
    }

    /// Reports the thread it ran on.
    struct WhichThread;

    impl Cascade for WhichThread {
        type Output = std::thread::ThreadId;
        fn run(self, _ctx: CascadeCtx) -> BoxFuture<'static, Result<Self::Output, Error>> {
            Box::pin(async move { Ok(std::thread::current().id()) })
        }
    }

    #[actix::test]
    async fn runs_are_spread_over_the_coordinators() {
        let settings = ModelSettings {
            models_dir: std::env::temp_dir().join("quire-coordinator-test-empty"),
            ..ModelSettings::default()
        };
        let ctx = CascadeCtx::new(Models::start(&settings), Arc::new(EngineConfig::default()));
        let p = Pipeline::start_n(ctx, 3, 4, Duration::from_secs(5));
        assert_eq!(p.coordinators(), 3);
        let mut threads = std::collections::HashSet::new();
        for _ in 0..6 {
            threads.insert(p.run(WhichThread).await.expect("ran"));
        }
        assert_eq!(threads.len(), 3);
        assert!(!threads.contains(&std::thread::current().id()));
    }

    #[actix::test]
    async fn a_panic_in_a_blocking_stage_is_an_error_not_a_crash() {
        let r: Result<(), Error> = CascadeCtx::blocking("boom", || panic!("stage bug")).await;
        assert!(matches!(r, Err(Error::Panicked { model }) if model == "boom"));
    }
}
