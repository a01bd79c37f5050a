//! The `quire` binary. (CRF branch: only the model commands; the foundation work adds the
//! server and merges these arms into its command enum.)

mod cmd;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "quire", about = "GROBID-compatible scholarly PDF processing")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Train a model and print its evaluation.
    Train(cmd::train::TrainArgs),
    /// Evaluate a trained model on its evaluation data.
    Eval(cmd::train::EvalArgs),
    /// Label lines of text from stdin with a trained model.
    Tag(cmd::train::TagArgs),
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Train(a) => cmd::train::train(a),
        Command::Eval(a) => cmd::train::eval(a),
        Command::Tag(a) => cmd::train::tag(a),
    }
}
