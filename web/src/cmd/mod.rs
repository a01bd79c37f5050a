/*!
The `quire` subcommands, one file each. A new subcommand adds its file, one `Command` arm and
one line in [`run`].
*/

pub mod serve;
pub mod train;

#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Run the HTTP service (API on `server.port`, admin on `server.admin_port`).
    Serve(serve::ServeArgs),
    /// Train a model and print its evaluation.
    Train(train::TrainArgs),
    /// Evaluate a trained model on its evaluation data.
    Eval(train::EvalArgs),
    /// Label lines of text from stdin with a trained model.
    Tag(train::TagArgs),
}

pub fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Serve(args) => serve::run(args),
        Command::Train(args) => train::train(args),
        Command::Eval(args) => train::eval(args),
        Command::Tag(args) => train::tag(args),
    }
}
