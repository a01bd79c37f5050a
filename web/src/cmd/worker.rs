/*!
`quire worker`: one layout worker process (see `quire::layout::worker` for the protocol). The
service's worker pool starts these; nothing else should. stdout carries only protocol frames:
the real stdout is moved to a private descriptor and fd 1 is pointed at stderr, so that nothing
pdfium or a library prints can corrupt a frame. Before it reads a job, the worker loads pdfium
and then confines itself (see `crate::sandbox`): its own namespaces, an unprivileged user, no
capabilities, Landlock read-only access to libpdfium and the font folders, and a seccomp
allow-list. A worker that cannot confine itself exits rather than lay out PDFs unconfined.
*/

use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::os::fd::{AsRawFd, FromRawFd};
use std::path::PathBuf;

use crate::sandbox::{Confinement, Probes, Profile, FONT_DIRS, WORKER_FILES};

/// Arguments of `quire worker`.
#[derive(Debug, Clone, clap::Args)]
pub struct WorkerArgs {
    /// Path of libpdfium.so (default: $QUIRE_PDFIUM_LIB, then vendor/pdfium/libpdfium.so).
    #[arg(long)]
    pub pdfium: Option<PathBuf>,
    /// The user to become when started as root (empty: stay root, not advised).
    #[arg(long, default_value = "nobody")]
    pub user: String,
    /// Confine this process exactly as a worker, then try what the confinement forbids (write
    /// and create files in DIR, io_uring, mount, signals to others, namespaces, sockets, exec,
    /// mode and owner changes, reading the --self-test-read files) and report one line each;
    /// exits 1 if any of it worked.
    #[arg(long, hide = true, value_name = "DIR")]
    pub self_test: Option<PathBuf>,
    /// A file the self-test must fail to read (repeatable).
    #[arg(long, hide = true, value_name = "FILE")]
    pub self_test_read: Vec<PathBuf>,
}

/// Loads pdfium (so that its library is open before file access is restricted) and confines
/// the process. `Err` when a required confinement step failed.
fn load_and_confine(args: &WorkerArgs) -> anyhow::Result<()> {
    let lib = quire::layout::pdfium::resolve_library(args.pdfium.as_deref());
    if let Err(e) = quire::layout::pdfium::Pdfium::get(args.pdfium.as_deref()) {
        // Each job will answer this error; the worker still confines itself.
        eprintln!("warning: quire worker: {e}");
    }
    let mut read_only: Vec<PathBuf> = FONT_DIRS
        .iter()
        .chain(WORKER_FILES.iter())
        .map(PathBuf::from)
        .collect();
    read_only.extend(lib);
    let notes = crate::sandbox::confine(&Confinement {
        user: Some(args.user.clone()),
        read_only,
        writable: Vec::new(),
        profile: Profile::Worker,
    })
    .map_err(|e| anyhow::anyhow!("quire worker cannot confine itself: {e}"))?;
    for note in notes {
        eprintln!("warning: quire worker: {note}");
    }
    Ok(())
}

/// This process's address-space cap in MiB (`RLIMIT_AS`, set by the pool from
/// `limits.pdf_memory_mb`); 0 when unlimited.
fn address_space_cap_mb() -> u64 {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit fills the struct given.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut lim) } != 0
        || lim.rlim_cur == libc::RLIM_INFINITY
    {
        return 0;
    }
    lim.rlim_cur / (1024 * 1024)
}

/// This process's soft CPU-time limit in seconds, when it has one.
fn cpu_limit_s() -> Option<u64> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit fills the struct given.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_CPU, &mut lim) } == 0;
    (ok && lim.rlim_cur != libc::RLIM_INFINITY).then_some(lim.rlim_cur)
}

pub fn run(args: WorkerArgs) -> anyhow::Result<()> {
    if let Some(dir) = &args.self_test {
        let probes = Probes::prepare(dir, args.self_test_read.clone());
        load_and_confine(&args)?;
        let mut all_refused = true;
        for (what, worked) in probes.run() {
            match worked {
                None => println!("{what}: refused"),
                Some(how) => {
                    all_refused = false;
                    println!("{what}: ALLOWED ({how})");
                }
            }
        }
        // What a worker needs must still work.
        let pdfium = quire::layout::pdfium::Pdfium::get(args.pdfium.as_deref()).is_ok();
        println!("pdfium loaded: {pdfium}");
        anyhow::ensure!(all_refused, "the worker is not confined");
        return Ok(());
    }
    // SAFETY: plain descriptor juggling at start-up, before any other thread exists.
    let protocol_out = unsafe {
        let fd = libc::dup(1);
        anyhow::ensure!(fd >= 0, "cannot duplicate stdout");
        anyhow::ensure!(libc::dup2(2, 1) >= 0, "cannot redirect stdout");
        File::from_raw_fd(fd)
    };
    // An allocation that fails under the address-space cap answers MEMORY naming the cap.
    quire::layout::worker::oom::arm(protocol_out.as_raw_fd(), address_space_cap_mb());
    // The CPU time of the first job, as the pool set it, is each job's budget.
    let mut hooks = quire::layout::worker::Hooks::from_env();
    hooks.cpu_budget_s = cpu_limit_s();
    load_and_confine(&args)?;
    let stdin = std::io::stdin();
    let mut input = BufReader::new(stdin.lock());
    let mut output = BufWriter::new(protocol_out);
    quire::layout::worker::serve(&mut input, &mut output, args.pdfium, hooks)?;
    Ok(())
}
