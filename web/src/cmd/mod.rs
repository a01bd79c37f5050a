/*!
The `quire` subcommands, one file each. A new subcommand adds its file, one `Command` arm and
one line in [`run`].
*/

pub mod serve;

#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Run the HTTP service (API on `server.port`, admin on `server.admin_port`).
    Serve(serve::ServeArgs),
}

pub fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Serve(args) => serve::run(args),
    }
}
