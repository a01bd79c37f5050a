/*!
`quire worker`: one layout worker process (see `quire::layout::worker` for the protocol). The
service's worker pool starts these; nothing else should. stdout carries only protocol frames:
the real stdout is moved to a private descriptor and fd 1 is pointed at stderr, so that nothing
pdfium or a library prints can corrupt a frame.
*/

use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::os::fd::FromRawFd;
use std::path::PathBuf;

/// Arguments of `quire worker`.
#[derive(Debug, Clone, clap::Args)]
pub struct WorkerArgs {
    /// Path of libpdfium.so (default: $QUIRE_PDFIUM_LIB, then vendor/pdfium/libpdfium.so).
    #[arg(long)]
    pub pdfium: Option<PathBuf>,
}

pub fn run(args: WorkerArgs) -> anyhow::Result<()> {
    // SAFETY: plain descriptor juggling at start-up, before any other thread exists.
    let protocol_out = unsafe {
        let fd = libc::dup(1);
        anyhow::ensure!(fd >= 0, "cannot duplicate stdout");
        anyhow::ensure!(libc::dup2(2, 1) >= 0, "cannot redirect stdout");
        File::from_raw_fd(fd)
    };
    let stdin = std::io::stdin();
    let mut input = BufReader::new(stdin.lock());
    let mut output = BufWriter::new(protocol_out);
    quire::layout::worker::serve(
        &mut input,
        &mut output,
        args.pdfium,
        quire::layout::worker::Hooks::from_env(),
    )?;
    Ok(())
}
