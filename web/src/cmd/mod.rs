/*!
The `quire` subcommands, one file each. A new subcommand adds its file, one `Command` arm and
one line in [`run`].
*/

pub mod batch;
pub mod biblio;
pub mod convert;
pub mod corpus;
pub mod create_training;
pub mod embed;
pub mod layout;
pub mod patent;
pub mod serve;
pub mod strings;
pub mod train;
pub mod train_job;
pub mod worker;

#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Run the HTTP service (API on `server.port`, admin on `server.admin_port`).
    Serve(serve::ServeArgs),
    /// Process every PDF of a folder tree through the service's pipeline, without HTTP.
    Batch(batch::BatchArgs),
    /// Lay out a PDF and print it (JSON, or text with --text).
    Layout(layout::LayoutArgs),
    /// Run as a layout worker process (used by the service's worker pool).
    Worker(worker::WorkerArgs),
    /// Train a model and print its evaluation.
    Train(Box<train::TrainArgs>),
    /// Evaluate a trained model on its evaluation data.
    Eval(train::EvalArgs),
    /// Label lines of text from stdin with a trained model.
    Tag(train::TagArgs),
    /// Read a model's corpus and evaluation data and print what was used and dropped.
    Corpus(corpus::CorpusArgs),
    /// Training data for PDFs, pre-annotated by the current models, as a dataset folder.
    CreateTraining(create_training::CreateTrainingArgs),
    /// Learn word vectors from the corpora's unlabelled text (for `train --embeddings`).
    Embed(embed::EmbedArgs),
    /// The embedded bibliographic index of consolidation: import, stats, lookup.
    Biblio(biblio::BiblioArgs),
    /// One training run of the HTTP training API (started by the service).
    #[command(hide = true)]
    TrainJob(train_job::TrainJobArgs),
    /// Parse patent citations (stdin lines or arguments) into numbers, as JSON.
    PatentNumber(patent::PatentNumberArgs),
    /// Render a TEI answer as Markdown or JSON (reads TEI, never a PDF).
    Convert(convert::ConvertArgs),
}

pub fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Serve(args) => serve::run(args),
        Command::Batch(args) => batch::run(args),
        Command::Layout(args) => layout::run(args),
        Command::Worker(args) => worker::run(args),
        Command::Train(args) => train::train(*args),
        Command::Eval(args) => train::eval(args),
        Command::Tag(args) => train::tag(args),
        Command::Corpus(args) => corpus::run(args),
        Command::CreateTraining(args) => create_training::run(args),
        Command::Embed(args) => embed::run(args),
        Command::Biblio(args) => biblio::run(args),
        Command::TrainJob(args) => train_job::run(args),
        Command::PatentNumber(args) => patent::run(args),
        Command::Convert(args) => convert::run(args),
    }
}
