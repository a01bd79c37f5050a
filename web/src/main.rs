/*!
The `quire` binary: a thin command line over the crates. `quire serve` runs the
GROBID-compatible HTTP service; other subcommands (layout worker, training, evaluation) live
in `cmd/`, one file each.
*/

use std::process::ExitCode;

use clap::Parser;
use quire_web::cmd;

#[derive(Debug, Parser)]
#[command(
    name = "quire",
    version,
    about = "Scholarly PDFs and bibliographic strings to TEI XML, with GROBID's HTTP interface"
)]
struct Cli {
    #[command(subcommand)]
    command: cmd::Command,
}

fn main() -> ExitCode {
    let cli = Cli::parse_from(cmd::batch::rewrite_grobid_flags(std::env::args_os()));
    match cmd::run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("quire: {e:#}");
            ExitCode::FAILURE
        }
    }
}
