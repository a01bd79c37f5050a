/*!
The least privilege the service's child processes run with, so that an exploit of pdfium (C++,
fed hostile PDFs) or of the training code is contained. [`confine`] applies, in this order:

1. **Namespaces**: a new mount, network and IPC namespace (as root), or a new user namespace
   holding them (unprivileged, where the kernel allows it): no network interface but a
   loopback that is down, and mounts made inside never reach the host.
2. **Identity**: started as root, the capability bounding set is emptied and a layout worker
   switches to an unprivileged user (`nobody` by default, `[sandbox] user`): supplementary
   groups dropped, real/effective/saved gid and uid set (training processes keep the uid: they
   read and replace model files private to the service's user). Then every capability
   (effective, permitted, inheritable, ambient) is cleared whatever the uid, and the
   parent-death signal, which a change of credentials clears, is set again.
3. `PR_SET_NO_NEW_PRIVS` and `PR_SET_DUMPABLE = 0`.
4. **Landlock** (where the kernel has it): file access only to the paths given, read-only
   except the writable ones (a training run's folder); no TCP bind/connect; no signals to
   processes outside the sandbox; no abstract UNIX sockets outside it.
5. **seccomp**: an *allow-list* for layout workers ([`worker_syscalls`]: what a layout worker
   was seen to call under strace on real PDFs, plus the calls its error paths need), where
   `open`/`openat` pass only without `O_WRONLY`/`O_RDWR`/`O_CREAT`/`O_TRUNC`, `kill`/`tgkill`
   only towards its own pid, and `prlimit64` only to read limits; everything else answers
   `EPERM`. Training processes (many threads, files to write) get a deny-list of the calls that
   have no place in training ([`training_refused`]).

A step the kernel does not offer (no Landlock, no user namespaces) is skipped and reported in
the returned notes; a step that fails where it should work (switching users, installing the
seccomp filter) is an error: the caller refuses to run unconfined.
*/

use std::collections::BTreeMap;
use std::ffi::CString;
use std::path::{Path, PathBuf};

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// Which system-call filter a confined process gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// A layout worker: the allow-list of [`worker_syscalls`].
    Worker,
    /// A training process: the deny-list of [`training_refused`].
    Training,
}

/// What to confine a process to.
#[derive(Debug, Clone)]
pub struct Confinement {
    /// The user to become when started as root (`None` or empty: stay root — not advised).
    pub user: Option<String>,
    /// Files and folders that may be read (Landlock). Missing ones are skipped.
    pub read_only: Vec<PathBuf>,
    /// Files and folders that may be read and written (Landlock).
    pub writable: Vec<PathBuf>,
    pub profile: Profile,
}

/// Flags of `open`/`openat` that make an open a write.
const WRITE_FLAGS: libc::c_int = libc::O_WRONLY | libc::O_RDWR | libc::O_CREAT | libc::O_TRUNC;

/// Folders pdfium may read fonts from when a PDF does not embed its fonts.
pub const FONT_DIRS: [&str; 3] = ["/usr/share/fonts", "/usr/local/share/fonts", "/etc/fonts"];

/// Other files a layout worker reads: the time zone (PDF dates).
pub const WORKER_FILES: [&str; 2] = ["/etc/localtime", "/usr/share/zoneinfo"];

/// Confines the calling process (which must still be single-threaded for the Landlock and
/// identity steps to cover every thread). `Ok` carries notes on the steps the kernel does not
/// offer; `Err` says which required step failed.
pub fn confine(c: &Confinement) -> Result<Vec<String>, String> {
    let mut notes = Vec::new();
    // SAFETY: plain id queries.
    let root = unsafe { libc::geteuid() } == 0;
    let parent = unsafe { libc::getppid() };
    let target = match c.user.as_deref().filter(|u| !u.is_empty()) {
        Some(name) if root => Some(lookup_user(name)?),
        _ => None,
    };
    enter_namespaces(root, &mut notes);
    if root {
        drop_bounding_set();
    }
    if let Some((uid, gid)) = target {
        switch_user(uid, gid)?;
    }
    drop_capabilities()?;
    // Changing credentials cleared the parent-death signal the pool set: set it again, and
    // give up if the parent already went meanwhile.
    // SAFETY: prctl and getppid with integer arguments.
    unsafe {
        if libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGKILL as libc::c_ulong,
            0,
            0,
            0,
        ) != 0
        {
            return Err(format!("PR_SET_PDEATHSIG: {}", last_error()));
        }
        if libc::getppid() != parent {
            return Err("the parent exited".into());
        }
    }
    // SAFETY: prctl with integer arguments.
    unsafe {
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            return Err(format!("PR_SET_NO_NEW_PRIVS: {}", last_error()));
        }
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
    }
    if let Some(note) = landlock(c)? {
        notes.push(note);
    }
    let program = match c.profile {
        Profile::Worker => worker_filter(),
        Profile::Training => training_filter(),
    }
    .map_err(|e| format!("building the seccomp filter: {e}"))?;
    seccompiler::apply_filter_all_threads(&program)
        .map_err(|e| format!("installing the seccomp filter: {e}"))?;
    Ok(notes)
}

fn last_error() -> std::io::Error {
    std::io::Error::last_os_error()
}

/// The uid and gid of user `name` (from the password database).
pub fn lookup_user(name: &str) -> Result<(libc::uid_t, libc::gid_t), String> {
    let cname = CString::new(name).map_err(|_| format!("bad user name `{name}`"))?;
    let mut buf = vec![0 as libc::c_char; 16 * 1024];
    // SAFETY: getpwnam_r writes into `pwd` and `buf` (its length given) and sets `result`.
    unsafe {
        let mut pwd: libc::passwd = std::mem::zeroed();
        let mut result: *mut libc::passwd = std::ptr::null_mut();
        let rc = libc::getpwnam_r(
            cname.as_ptr(),
            &mut pwd,
            buf.as_mut_ptr(),
            buf.len(),
            &mut result,
        );
        if rc != 0 || result.is_null() {
            return Err(format!(
                "user `{name}` does not exist (set `[sandbox] user` to an unprivileged user)"
            ));
        }
        if pwd.pw_uid == 0 {
            return Err(format!("`[sandbox] user` = `{name}` is root"));
        }
        Ok((pwd.pw_uid, pwd.pw_gid))
    }
}

fn enter_namespaces(root: bool, notes: &mut Vec<String>) {
    let own = libc::CLONE_NEWNS | libc::CLONE_NEWNET | libc::CLONE_NEWIPC;
    let flags = if root { own } else { own | libc::CLONE_NEWUSER };
    // SAFETY: unshare takes flags only; the process is single-threaded here.
    if unsafe { libc::unshare(flags) } != 0 {
        notes.push(format!(
            "no new {}namespaces: {}",
            if root { "" } else { "user " },
            last_error()
        ));
    }
}

/// Highest capability number the kernel knows.
fn last_cap() -> u32 {
    std::fs::read_to_string("/proc/sys/kernel/cap_last_cap")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(40)
}

/// Empties the capability bounding set (needs CAP_SETPCAP, which root still has here).
fn drop_bounding_set() {
    for cap in 0..=last_cap() {
        // SAFETY: prctl with integer arguments; EINVAL past the kernel's last capability.
        unsafe { libc::prctl(libc::PR_CAPBSET_DROP, cap as libc::c_ulong, 0, 0, 0) };
    }
}

fn switch_user(uid: libc::uid_t, gid: libc::gid_t) -> Result<(), String> {
    // SAFETY: setgroups/setresgid/setresuid with plain integer arguments.
    unsafe {
        if libc::setgroups(0, std::ptr::null()) != 0 {
            return Err(format!("setgroups: {}", last_error()));
        }
        if libc::setresgid(gid, gid, gid) != 0 {
            return Err(format!("setresgid({gid}): {}", last_error()));
        }
        if libc::setresuid(uid, uid, uid) != 0 {
            return Err(format!("setresuid({uid}): {}", last_error()));
        }
        if libc::setresuid(0, 0, 0) == 0 || libc::getuid() != uid {
            return Err("root could be regained after switching users".into());
        }
    }
    Ok(())
}

#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

#[repr(C)]
#[derive(Default, Clone, Copy)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// Clears the effective, permitted, inheritable and ambient capability sets.
fn drop_capabilities() -> Result<(), String> {
    const LINUX_CAPABILITY_VERSION_3: u32 = 0x2008_0522;
    let header = CapHeader {
        version: LINUX_CAPABILITY_VERSION_3,
        pid: 0,
    };
    let data = [CapData::default(); 2];
    // SAFETY: capset reads the header and two data structs given.
    unsafe {
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        );
        if libc::syscall(libc::SYS_capset, &header, data.as_ptr()) != 0 {
            return Err(format!("capset: {}", last_error()));
        }
    }
    Ok(())
}

/// Restricts file access to `c.read_only` (read) and `c.writable` (read and write), TCP to
/// nothing, signals and abstract sockets to the sandbox. `Ok(Some(note))` when the kernel
/// enforces less than that.
fn landlock(c: &Confinement) -> Result<Option<String>, String> {
    use landlock::{
        path_beneath_rules, Access, AccessFs, AccessNet, Ruleset, RulesetAttr, RulesetCreatedAttr,
        RulesetStatus, Scope, ABI,
    };
    let abi = ABI::V6;
    let existing = |paths: &[PathBuf]| -> Vec<PathBuf> {
        paths.iter().filter(|p| p.exists()).cloned().collect()
    };
    let status = Ruleset::default()
        .handle_access(AccessFs::from_all(abi))
        .and_then(|r| r.handle_access(AccessNet::from_all(abi)))
        .and_then(|r| r.scope(Scope::from_all(abi)))
        .and_then(|r| r.create())
        .and_then(|r| {
            r.add_rules(path_beneath_rules(
                existing(&c.read_only),
                AccessFs::from_read(abi),
            ))
        })
        .and_then(|r| {
            r.add_rules(path_beneath_rules(
                existing(&c.writable),
                AccessFs::from_all(abi),
            ))
        })
        .and_then(|r| r.restrict_self())
        .map_err(|e| format!("Landlock: {e}"))?;
    Ok(match status.ruleset {
        RulesetStatus::FullyEnforced => None,
        RulesetStatus::PartiallyEnforced => {
            Some("Landlock is only partly enforced by this kernel".into())
        }
        RulesetStatus::NotEnforced => Some(
            "this kernel has no Landlock: file access is not \
                                            restricted beyond the user switch"
                .into(),
        ),
    })
}

/// The system calls a layout worker may make, whatever their arguments (those allowed only
/// with some arguments are in [`worker_filter`]).
pub fn worker_syscalls() -> Vec<(&'static str, libc::c_long)> {
    let mut calls = vec![
        ("read", libc::SYS_read),
        ("write", libc::SYS_write),
        ("readv", libc::SYS_readv),
        ("writev", libc::SYS_writev),
        ("pread64", libc::SYS_pread64),
        ("close", libc::SYS_close),
        ("fstat", libc::SYS_fstat),
        ("newfstatat", libc::SYS_newfstatat),
        ("statx", libc::SYS_statx),
        ("lseek", libc::SYS_lseek),
        ("getdents64", libc::SYS_getdents64),
        ("readlinkat", libc::SYS_readlinkat),
        ("faccessat", libc::SYS_faccessat),
        ("faccessat2", libc::SYS_faccessat2),
        ("fcntl", libc::SYS_fcntl),
        ("mmap", libc::SYS_mmap),
        ("munmap", libc::SYS_munmap),
        ("mprotect", libc::SYS_mprotect),
        ("mremap", libc::SYS_mremap),
        ("brk", libc::SYS_brk),
        ("madvise", libc::SYS_madvise),
        ("futex", libc::SYS_futex),
        ("rt_sigaction", libc::SYS_rt_sigaction),
        ("rt_sigprocmask", libc::SYS_rt_sigprocmask),
        ("rt_sigreturn", libc::SYS_rt_sigreturn),
        ("sigaltstack", libc::SYS_sigaltstack),
        ("restart_syscall", libc::SYS_restart_syscall),
        ("getpid", libc::SYS_getpid),
        ("gettid", libc::SYS_gettid),
        ("getuid", libc::SYS_getuid),
        ("geteuid", libc::SYS_geteuid),
        ("getgid", libc::SYS_getgid),
        ("getegid", libc::SYS_getegid),
        ("getrandom", libc::SYS_getrandom),
        ("clock_gettime", libc::SYS_clock_gettime),
        ("clock_getres", libc::SYS_clock_getres),
        ("gettimeofday", libc::SYS_gettimeofday),
        ("clock_nanosleep", libc::SYS_clock_nanosleep),
        ("nanosleep", libc::SYS_nanosleep),
        ("sched_yield", libc::SYS_sched_yield),
        ("sched_getaffinity", libc::SYS_sched_getaffinity),
        ("getrusage", libc::SYS_getrusage),
        ("sysinfo", libc::SYS_sysinfo),
        ("ppoll", libc::SYS_ppoll),
        ("exit", libc::SYS_exit),
        ("exit_group", libc::SYS_exit_group),
    ];
    #[cfg(target_arch = "x86_64")]
    calls.extend([
        ("stat", libc::SYS_stat),
        ("lstat", libc::SYS_lstat),
        ("access", libc::SYS_access),
        ("readlink", libc::SYS_readlink),
        ("poll", libc::SYS_poll),
        ("getrlimit", libc::SYS_getrlimit),
    ]);
    calls
}

/// Calls a training process may not make (it may make every other): no network, no other
/// programs, no tracing, no namespaces or mounts, no kernel-side I/O queues, no handle-based
/// opens, no ownership or mode changes, no limits lifted.
pub fn training_refused() -> Vec<(&'static str, libc::c_long)> {
    let mut calls = vec![
        ("socket", libc::SYS_socket),
        ("socketpair", libc::SYS_socketpair),
        ("connect", libc::SYS_connect),
        ("bind", libc::SYS_bind),
        ("listen", libc::SYS_listen),
        ("accept", libc::SYS_accept),
        ("accept4", libc::SYS_accept4),
        ("execve", libc::SYS_execve),
        ("execveat", libc::SYS_execveat),
        ("ptrace", libc::SYS_ptrace),
        ("process_vm_readv", libc::SYS_process_vm_readv),
        ("process_vm_writev", libc::SYS_process_vm_writev),
        ("mount", libc::SYS_mount),
        ("umount2", libc::SYS_umount2),
        ("pivot_root", libc::SYS_pivot_root),
        ("unshare", libc::SYS_unshare),
        ("setns", libc::SYS_setns),
        ("io_uring_setup", libc::SYS_io_uring_setup),
        ("io_uring_enter", libc::SYS_io_uring_enter),
        ("io_uring_register", libc::SYS_io_uring_register),
        ("open_by_handle_at", libc::SYS_open_by_handle_at),
        ("name_to_handle_at", libc::SYS_name_to_handle_at),
        ("fchmod", libc::SYS_fchmod),
        ("fchmodat", libc::SYS_fchmodat),
        ("fchown", libc::SYS_fchown),
        ("fchownat", libc::SYS_fchownat),
        ("fsetxattr", libc::SYS_fsetxattr),
        ("setxattr", libc::SYS_setxattr),
        ("lsetxattr", libc::SYS_lsetxattr),
        ("setrlimit", libc::SYS_setrlimit),
        ("prlimit64", libc::SYS_prlimit64),
        ("bpf", libc::SYS_bpf),
        ("perf_event_open", libc::SYS_perf_event_open),
        ("keyctl", libc::SYS_keyctl),
        ("add_key", libc::SYS_add_key),
        ("init_module", libc::SYS_init_module),
        ("finit_module", libc::SYS_finit_module),
        ("kexec_load", libc::SYS_kexec_load),
        ("userfaultfd", libc::SYS_userfaultfd),
        ("fanotify_init", libc::SYS_fanotify_init),
        ("kill", libc::SYS_kill),
        ("tkill", libc::SYS_tkill),
    ];
    #[cfg(target_arch = "x86_64")]
    calls.extend([
        ("chmod", libc::SYS_chmod),
        ("chown", libc::SYS_chown),
        ("lchown", libc::SYS_lchown),
    ]);
    calls
}

fn cond(arg: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompCondition, String> {
    SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value).map_err(|e| e.to_string())
}

fn rule(conditions: Vec<SeccompCondition>) -> Result<SeccompRule, String> {
    SeccompRule::new(conditions).map_err(|e| e.to_string())
}

fn compile(
    rules: BTreeMap<i64, Vec<SeccompRule>>,
    mismatch: SeccompAction,
    matched: SeccompAction,
) -> Result<BpfProgram, String> {
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|e| e.to_string())?;
    let filter = SeccompFilter::new(rules, mismatch, matched, arch).map_err(|e| e.to_string())?;
    let program: Result<BpfProgram, seccompiler::BackendError> = filter.try_into();
    program.map_err(|e| e.to_string())
}

/// The layout worker's allow-list as a BPF program for this machine's architecture.
pub fn worker_filter() -> Result<BpfProgram, String> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = worker_syscalls()
        .into_iter()
        .map(|(_, c)| (c, Vec::new()))
        .collect();
    let read_only = |arg: u8| -> Result<Vec<SeccompRule>, String> {
        Ok(vec![rule(vec![cond(
            arg,
            SeccompCmpOp::MaskedEq(WRITE_FLAGS as u64),
            0,
        )?])?])
    };
    rules.insert(libc::SYS_openat, read_only(2)?);
    #[cfg(target_arch = "x86_64")]
    rules.insert(libc::SYS_open, read_only(1)?);
    // Signals only to itself (abort() raises SIGABRT with tgkill).
    // SAFETY: getpid has no preconditions.
    let me = unsafe { libc::getpid() } as u64;
    rules.insert(
        libc::SYS_kill,
        vec![rule(vec![cond(0, SeccompCmpOp::Eq, me)?])?],
    );
    rules.insert(
        libc::SYS_tgkill,
        vec![rule(vec![cond(0, SeccompCmpOp::Eq, me)?])?],
    );
    // Its own limits: reading any (new limit NULL), setting only the CPU-time one (the worker
    // sets its per-job CPU budget itself; the memory cap cannot be touched).
    rules.insert(
        libc::SYS_prlimit64,
        vec![
            rule(vec![
                cond(0, SeccompCmpOp::Eq, 0)?,
                SeccompCondition::new(2, SeccompCmpArgLen::Qword, SeccompCmpOp::Eq, 0)
                    .map_err(|e| e.to_string())?,
            ])?,
            rule(vec![
                cond(0, SeccompCmpOp::Eq, 0)?,
                cond(1, SeccompCmpOp::Eq, libc::RLIMIT_CPU as u64)?,
            ])?,
        ],
    );
    compile(
        rules,
        SeccompAction::Errno(libc::EPERM as u32),
        SeccompAction::Allow,
    )
}

/// The training processes' deny-list as a BPF program.
pub fn training_filter() -> Result<BpfProgram, String> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = training_refused()
        .into_iter()
        .map(|(_, c)| (c, Vec::new()))
        .collect();
    // Signals to itself stay possible (abort), as do reads of limits.
    // SAFETY: getpid has no preconditions.
    let me = unsafe { libc::getpid() } as u64;
    rules.insert(
        libc::SYS_kill,
        vec![rule(vec![cond(0, SeccompCmpOp::Ne, me)?])?],
    );
    rules.insert(
        libc::SYS_tgkill,
        vec![rule(vec![cond(0, SeccompCmpOp::Ne, me)?])?],
    );
    rules.insert(
        libc::SYS_prlimit64,
        vec![rule(vec![SeccompCondition::new(
            2,
            SeccompCmpArgLen::Qword,
            SeccompCmpOp::Ne,
            0,
        )
        .map_err(|e| e.to_string())?])?],
    );
    compile(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
    )
}

/// The operations a confined worker must not be able to do, tried from inside it (`quire
/// worker --self-test DIR`). `dir` is a scratch folder holding `victim` (an existing file the
/// probes try to change); `secrets` are files that must not be readable. One line per probe:
/// its name and `None` when refused, `Some(what happened)` when it worked.
pub struct Probes {
    dir_fd: libc::c_int,
    victim_fd: libc::c_int,
    handle: Option<Vec<u8>>,
    dir: PathBuf,
    secrets: Vec<PathBuf>,
}

/// `struct file_handle` with room for the handle bytes.
#[repr(C)]
struct FileHandle {
    handle_bytes: u32,
    handle_type: libc::c_int,
    f_handle: [u8; 128],
}

impl Probes {
    /// Opens what the probes need before the confinement is applied (the descriptors a
    /// worker could inherit or an exploit could find).
    pub fn prepare(dir: &Path, secrets: Vec<PathBuf>) -> Probes {
        let victim = dir.join("victim");
        let _ = std::fs::write(&victim, b"unchanged");
        let c = |p: &Path| CString::new(p.as_os_str().as_encoded_bytes()).unwrap_or_default();
        let (cdir, cvictim) = (c(dir), c(&victim));
        // SAFETY: open with valid C strings; name_to_handle_at fills the struct given.
        unsafe {
            let dir_fd = libc::open(cdir.as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY);
            let victim_fd = libc::open(cvictim.as_ptr(), libc::O_RDONLY);
            let mut fh = FileHandle {
                handle_bytes: 128,
                handle_type: 0,
                f_handle: [0; 128],
            };
            let mut mount_id: libc::c_int = 0;
            let handle = (libc::syscall(
                libc::SYS_name_to_handle_at,
                libc::AT_FDCWD,
                cvictim.as_ptr(),
                &mut fh as *mut FileHandle,
                &mut mount_id as *mut libc::c_int,
                0,
            ) == 0)
                .then(|| {
                    let bytes: &[u8] = std::slice::from_raw_parts(
                        (&fh as *const FileHandle).cast::<u8>(),
                        std::mem::size_of::<FileHandle>(),
                    );
                    bytes.to_vec()
                });
            Probes {
                dir_fd,
                victim_fd,
                handle,
                dir: dir.to_path_buf(),
                secrets,
            }
        }
    }

    /// Runs every probe (after the confinement): `(what, None)` when refused,
    /// `(what, Some(how it worked))` when it was not.
    pub fn run(&self) -> Vec<(String, Option<String>)> {
        let mut out: Vec<(String, Option<String>)> = Vec::new();
        let rc = |what: &str, r: libc::c_long| -> (String, Option<String>) {
            (what.to_string(), (r >= 0).then(|| format!("returned {r}")))
        };
        let created = self.dir.join("created-by-worker");
        let ccreated = CString::new(created.as_os_str().as_encoded_bytes()).unwrap_or_default();
        let cvictim = CString::new(self.dir.join("victim").as_os_str().as_encoded_bytes())
            .unwrap_or_default();
        // SAFETY: each probe is one system call with valid pointers or none; what it returns
        // is only compared; descriptors it opens are closed.
        unsafe {
            let mut params = [0u8; 120];
            let r = libc::syscall(libc::SYS_io_uring_setup, 8, params.as_mut_ptr());
            out.push(rc("io_uring_setup", r));
            let r = libc::open(
                ccreated.as_ptr(),
                libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC,
                0o644,
            ) as libc::c_long;
            out.push(rc("openat O_CREAT|O_WRONLY (create a file)", r));
            let r = libc::open(cvictim.as_ptr(), libc::O_RDWR) as libc::c_long;
            out.push(rc("openat O_RDWR (an existing file)", r));
            let r = libc::open(cvictim.as_ptr(), libc::O_WRONLY | libc::O_APPEND) as libc::c_long;
            out.push(rc("openat O_WRONLY|O_APPEND (an existing file)", r));
            match &self.handle {
                Some(h) => {
                    let r = libc::syscall(
                        libc::SYS_open_by_handle_at,
                        self.dir_fd,
                        h.as_ptr(),
                        libc::O_RDWR,
                    );
                    out.push(rc("open_by_handle_at O_RDWR", r));
                }
                None => out.push((
                    "open_by_handle_at O_RDWR".into(),
                    Some("no handle could be made before the confinement".into()),
                )),
            }
            let cdir = CString::new(self.dir.as_os_str().as_encoded_bytes()).unwrap_or_default();
            let tmpfs = CString::new("tmpfs").unwrap_or_default();
            let r = libc::mount(
                tmpfs.as_ptr(),
                cdir.as_ptr(),
                tmpfs.as_ptr(),
                0,
                std::ptr::null(),
            ) as libc::c_long;
            if r == 0 {
                libc::umount2(cdir.as_ptr(), libc::MNT_DETACH);
            }
            out.push(rc("mount a tmpfs", r));
            let r = libc::umount2(cdir.as_ptr(), 0) as libc::c_long;
            out.push(rc("umount", r));
            let r = libc::kill(libc::getppid(), 0) as libc::c_long;
            out.push(rc("kill the parent (signal 0)", r));
            let r = libc::kill(1, 0) as libc::c_long;
            out.push(rc("kill pid 1 (signal 0)", r));
            let r = libc::ptrace(libc::PTRACE_ATTACH, libc::getppid(), 0, 0);
            if r == 0 {
                libc::ptrace(libc::PTRACE_DETACH, libc::getppid(), 0, 0);
            }
            out.push(rc("ptrace the parent", r));
            let r = libc::unshare(libc::CLONE_NEWNS) as libc::c_long;
            out.push(rc("unshare a mount namespace", r));
            let r = libc::unshare(libc::CLONE_NEWUSER) as libc::c_long;
            out.push(rc("unshare a user namespace", r));
            let ns = CString::new("/proc/1/ns/net").unwrap_or_default();
            let nsfd = libc::open(ns.as_ptr(), libc::O_RDONLY);
            let r = libc::setns(nsfd, 0) as libc::c_long;
            if nsfd >= 0 {
                libc::close(nsfd);
            }
            out.push(rc("setns into pid 1's network namespace", r));
            let r = libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0) as libc::c_long;
            out.push(rc("socket AF_INET", r));
            let r = libc::socket(libc::AF_UNIX, libc::SOCK_STREAM, 0) as libc::c_long;
            out.push(rc("socket AF_UNIX", r));
            let r = libc::fchmod(self.victim_fd, 0o666) as libc::c_long;
            out.push(rc("fchmod", r));
            let r = libc::fchown(self.victim_fd, 0, 0) as libc::c_long;
            out.push(rc("fchown", r));
            let name = CString::new("user.quire").unwrap_or_default();
            let r = libc::fsetxattr(self.victim_fd, name.as_ptr(), b"x".as_ptr().cast(), 1, 0)
                as libc::c_long;
            out.push(rc("fsetxattr", r));
            let r = libc::fork() as libc::c_long;
            if r == 0 {
                libc::_exit(0);
            }
            out.push(rc("fork", r));
            let limit = libc::rlimit {
                rlim_cur: libc::RLIM_INFINITY,
                rlim_max: libc::RLIM_INFINITY,
            };
            let r = libc::setrlimit(libc::RLIMIT_AS, &limit) as libc::c_long;
            out.push(rc("setrlimit (lift the memory cap)", r));
            for secret in &self.secrets {
                let what = format!("read {}", secret.display());
                let worked = std::fs::read(secret).map(|b| format!("{} bytes read", b.len()));
                out.push((what, worked.ok()));
            }
            // execve last: if it worked, this process is now /bin/true and the lines missing
            // from its report fail the test.
            let prog = CString::new("/bin/true").unwrap_or_default();
            let argv = [prog.as_ptr(), std::ptr::null()];
            let envp = [std::ptr::null::<libc::c_char>()];
            let r = libc::execve(prog.as_ptr(), argv.as_ptr(), envp.as_ptr()) as libc::c_long;
            out.push(rc("execve /bin/true", r));
        }
        out
    }
}
