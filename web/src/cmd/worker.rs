/*!
`quire worker`: one layout worker process (see `quire::layout::worker` for the protocol). The
service's worker pool starts these; nothing else should. stdout carries only protocol frames:
the real stdout is moved to a private descriptor and fd 1 is pointed at stderr, so that nothing
pdfium or a library prints can corrupt a frame. Before it reads a job, the worker confines
itself with a seccomp filter (see `crate::sandbox`): no network, no file writes, no exec.
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
    /// Confine this process as a worker, then try what the confinement forbids (create a file
    /// in DIR, open sockets, run a program) and report; exits 1 if any of it worked.
    #[arg(long, hide = true, value_name = "DIR")]
    pub self_test: Option<PathBuf>,
}

pub fn run(args: WorkerArgs) -> anyhow::Result<()> {
    if let Some(dir) = &args.self_test {
        crate::sandbox::confine_worker().map_err(anyhow::Error::msg)?;
        let mut all_denied = true;
        for (what, as_expected) in crate::sandbox::self_test(dir) {
            println!(
                "{what}: {}",
                if as_expected { "ok" } else { "NOT CONFINED" }
            );
            all_denied &= as_expected;
        }
        anyhow::ensure!(all_denied, "the worker is not confined");
        return Ok(());
    }
    // SAFETY: plain descriptor juggling at start-up, before any other thread exists.
    let protocol_out = unsafe {
        let fd = libc::dup(1);
        anyhow::ensure!(fd >= 0, "cannot duplicate stdout");
        anyhow::ensure!(libc::dup2(2, 1) >= 0, "cannot redirect stdout");
        File::from_raw_fd(fd)
    };
    if let Err(e) = crate::sandbox::confine_worker() {
        eprintln!("warning: quire worker runs without its seccomp filter: {e}");
    }
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
