//! `quire train-job` (hidden): one training run of the HTTP training API, in its own process.
//! The server starts it; see `crate::training`.

#[derive(Debug, Clone, clap::Args)]
pub struct TrainJobArgs {
    /// The run, as the JSON of `training::JobSpec`.
    #[arg(long)]
    pub job: String,
}

pub fn run(args: TrainJobArgs) -> anyhow::Result<()> {
    crate::training::child_main(&args.job)
}
