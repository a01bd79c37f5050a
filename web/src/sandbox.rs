/*!
The least privilege a layout worker (`quire worker`) runs with, so that an exploit of pdfium is
contained: a seccomp filter, installed once the worker has started and before it reads a job,
that answers `EPERM` to

- every socket call (`socket`, `connect`, `bind`, `listen`, `accept`): no network;
- opening a file for writing (`open`/`openat` with `O_WRONLY`, `O_RDWR`, `O_CREAT` or
  `O_TRUNC`, `openat2`, `creat`) and every call that changes the file system (unlink, rename,
  mkdir, rmdir, link, symlink, chmod, chown, truncate, mknod): no writes outside the pipes it
  was given;
- `execve`/`execveat` and `ptrace`: it cannot become another program or inspect one;
- `setrlimit`/`prlimit64`: it cannot lift the CPU and memory limits the server set.

Everything else (reading files such as fonts, memory, threads, its pipes) is allowed. The
server already set `PR_SET_NO_NEW_PRIVS` (required for an unprivileged seccomp filter) and the
limits (see `quire_actors::workers`). A kernel without seccomp leaves the worker unfiltered with a
warning on stderr rather than refusing to lay out PDFs.
*/

use std::collections::BTreeMap;

use seccompiler::{
    BackendError, BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition,
    SeccompFilter, SeccompRule, TargetArch,
};

/// Flags of `open`/`openat` that make an open a write.
const WRITE_FLAGS: [libc::c_int; 4] = [libc::O_WRONLY, libc::O_RDWR, libc::O_CREAT, libc::O_TRUNC];

/// Syscalls refused whatever their arguments.
fn refused() -> Vec<libc::c_long> {
    let mut calls = vec![
        libc::SYS_socket,
        libc::SYS_connect,
        libc::SYS_bind,
        libc::SYS_listen,
        libc::SYS_accept,
        libc::SYS_accept4,
        libc::SYS_openat2,
        libc::SYS_unlinkat,
        libc::SYS_renameat,
        libc::SYS_renameat2,
        libc::SYS_mkdirat,
        libc::SYS_linkat,
        libc::SYS_symlinkat,
        libc::SYS_fchmodat,
        libc::SYS_fchownat,
        libc::SYS_truncate,
        libc::SYS_mknodat,
        libc::SYS_execve,
        libc::SYS_execveat,
        libc::SYS_ptrace,
        libc::SYS_setrlimit,
        libc::SYS_prlimit64,
    ];
    #[cfg(target_arch = "x86_64")]
    calls.extend([
        libc::SYS_creat,
        libc::SYS_unlink,
        libc::SYS_rename,
        libc::SYS_mkdir,
        libc::SYS_rmdir,
        libc::SYS_link,
        libc::SYS_symlink,
        libc::SYS_chmod,
        libc::SYS_chown,
        libc::SYS_lchown,
        libc::SYS_mknod,
    ]);
    calls
}

/// One rule per write flag: `open*` whose flags argument (`arg`) has that flag set.
fn write_opens(arg: u8) -> Result<Vec<SeccompRule>, BackendError> {
    WRITE_FLAGS
        .iter()
        .map(|&flag| {
            let cond = SeccompCondition::new(
                arg,
                SeccompCmpArgLen::Dword,
                SeccompCmpOp::MaskedEq(flag as u64),
                flag as u64,
            )?;
            SeccompRule::new(vec![cond])
        })
        .collect()
}

/// The worker's filter as a BPF program for this machine's architecture.
pub fn worker_filter() -> Result<BpfProgram, BackendError> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> =
        refused().into_iter().map(|c| (c, Vec::new())).collect();
    rules.insert(libc::SYS_openat, write_opens(2)?);
    #[cfg(target_arch = "x86_64")]
    rules.insert(libc::SYS_open, write_opens(1)?);
    let arch = TargetArch::try_from(std::env::consts::ARCH)?;
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )?;
    filter.try_into()
}

/// Installs the worker's filter on every thread of this process. `Err` says why it could not
/// be installed (the caller logs it and goes on unfiltered).
pub fn confine_worker() -> Result<(), String> {
    // Already set by the server; set again so a worker started by hand is confined as well.
    // SAFETY: plain prctl call.
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
        return Err(format!(
            "PR_SET_NO_NEW_PRIVS: {}",
            std::io::Error::last_os_error()
        ));
    }
    let program = worker_filter().map_err(|e| format!("building the seccomp filter: {e}"))?;
    seccompiler::apply_filter_all_threads(&program)
        .map_err(|e| format!("installing the seccomp filter: {e}"))
}

/// What a confined worker can still do, tried from inside it (`quire worker --self-test`):
/// one line per attempt, `denied` or `ALLOWED`.
pub fn self_test(scratch: &std::path::Path) -> Vec<(String, bool)> {
    let file = scratch.join("quire-worker-self-test");
    let write_denied = std::fs::File::create(&file).is_err();
    let _ = std::fs::remove_file(&file);
    let read_allowed = std::fs::read("/proc/self/status").is_ok();
    let net_denied = std::net::TcpListener::bind("127.0.0.1:0").is_err()
        && std::net::UdpSocket::bind("127.0.0.1:0").is_err();
    let exec_denied = std::process::Command::new("/bin/true").status().is_err();
    vec![
        (format!("create {}", file.display()), write_denied),
        ("open a TCP or UDP socket".into(), net_denied),
        ("run /bin/true".into(), exec_denied),
        ("read /proc/self/status (allowed)".into(), read_allowed),
    ]
}
