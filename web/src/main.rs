//! The `quire` binary (filled in by the foundation work; this version only dispatches the
//! layout subcommands, the lead merges them into the foundation's command enum).

mod cmd;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "quire")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Lay out a PDF and print it (JSON, or text with --text).
    Layout(cmd::layout::LayoutArgs),
    /// Run as a layout worker process (used by the service's worker pool).
    Worker(cmd::worker::WorkerArgs),
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Layout(a) => cmd::layout::run(a),
        Command::Worker(a) => cmd::worker::run(a),
    }
}
