/*!
The PDF layout worker pool: pdfium runs only in child processes (`quire worker`), never in the
server (rust-stack.md §1.7, §5.5.6). A crash inside pdfium is a segfault that no `catch_unwind`
can stop; in a child it costs one job, not the service.

- Up to `workers` children, each running one job at a time; callers wait for a free one.
- Each job has a deadline: past it the child is killed and the job fails with `TIMEOUT`.
- Each child's address space is capped with `setrlimit(RLIMIT_AS)` (set between fork and exec);
  a job that exceeds it kills the child and fails with `PDFTOOL_CONVERSION_FAILURE`.
- A child that dies or answers garbage fails its job with `PDFTOOL_CONVERSION_FAILURE` and is
  replaced by a fresh one on the next job: the pool keeps serving.
- An idle child is health-checked (it must be alive and answer a ping within
  [`WorkerPolicy::health_timeout`]) before it gets a job; one that fails (killed by the OOM
  killer, stopped, wedged) is replaced, and the job goes to a fresh worker. A job whose frame
  could not even be written (the child died after the check) is retried once on a fresh worker.
- Children die with the server (`PR_SET_PDEATHSIG` = `SIGKILL`, set between fork and exec, with
  a check that the parent did not exit before that), cannot gain privileges
  (`PR_SET_NO_NEW_PRIVS`), and have a CPU-time limit (`RLIMIT_CPU`): the soft limit is raised
  before each job to the CPU time used so far plus the job deadline, so a job can never burn
  more CPU than its deadline, even if the parent is gone. They start in their own session with
  an empty environment (no secrets; [`PASSED_ENV`] only). (`quire worker` then confines itself:
  namespaces, an unprivileged user, no capabilities, Landlock, a seccomp allow-list; see the
  `sandbox` module of `quire-web`.)
- A child that holds more than [`WorkerPolicy::recycle_rss_mb`] of memory after a job, or has
  run [`WorkerPolicy::max_jobs`] jobs, is ended instead of going back to the idle list.

`PR_SET_PDEATHSIG` fires when the *thread* that started the child exits; workers are started
from the async runtime's threads (the server's HTTP workers and system thread), which live as
long as the server.

The pool is a cheap cloneable handle; all state sits behind an `Arc`.
*/

use std::ffi::OsString;
use std::os::fd::{AsRawFd, RawFd};
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use quire::layout::render::Region;
use quire::layout::worker::{AnnotateJob, Job, RenderJob, Request, Response};
use quire::layout::{Document, Limits, PageRange};
use quire::Error;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::Semaphore;

/// How to start and police layout workers.
#[derive(Debug, Clone)]
pub struct WorkerPoolConfig {
    /// The program to run (normally `std::env::current_exe()`, the `quire` binary).
    pub program: PathBuf,
    /// Its arguments (normally `["worker"]`; `--pdfium PATH` is appended when set below).
    pub args: Vec<OsString>,
    /// The children's environment: they start with an empty one (no secrets such as
    /// `QUIRE_TRAINING_TOKEN`), plus these and the variables of [`PASSED_ENV`].
    pub env: Vec<(OsString, OsString)>,
    /// Number of worker processes (jobs run at once).
    pub workers: usize,
    /// Deadline of one job.
    pub timeout: Duration,
    /// Address-space cap of one worker, in MiB (0 = none).
    pub memory_mb: u64,
    /// `libpdfium.so` to use (`None`: the worker resolves it itself).
    pub pdfium_lib: Option<PathBuf>,
    pub limits: Limits,
}

impl WorkerPoolConfig {
    /// Workers of the running binary (`<current exe> worker`), sized and limited from the
    /// engine configuration.
    pub fn from_engine(cfg: &quire::EngineConfig, workers: usize) -> std::io::Result<Self> {
        Ok(WorkerPoolConfig {
            program: std::env::current_exe()?,
            args: vec!["worker".into()],
            env: Vec::new(),
            workers: workers.max(1),
            timeout: Duration::from_secs(cfg.pdf_timeout_s.max(1)),
            memory_mb: cfg.pdf_memory_mb,
            // Resolved here: the workers get an empty environment and cannot look it up there.
            pdfium_lib: cfg
                .pdfium_lib
                .clone()
                .or_else(|| quire::layout::pdfium::resolve_library(None)),
            limits: Limits::from(cfg),
        })
    }
}

/// Variables of the server's environment that workers still get: the fault-injection hooks of
/// the tests (`quire::layout::worker::Hooks`) and Rust's backtrace switch.
pub const PASSED_ENV: [&str; 4] = [
    "QUIRE_WORKER_DELAY_MS",
    "QUIRE_WORKER_ALLOC_MB",
    "QUIRE_WORKER_FOREIGN_ALLOC_MB",
    "RUST_BACKTRACE",
];

/// How the pool checks, limits and recycles its workers.
#[derive(Debug, Clone, Copy)]
pub struct WorkerPolicy {
    /// How long an idle worker has to answer the ping before a job (capped by the job
    /// deadline).
    pub health_timeout: Duration,
    /// An idle worker whose resident memory exceeds this (MiB) after a job is ended (0 = never).
    pub recycle_rss_mb: u64,
    /// A worker is ended after this many jobs (0 = never).
    pub max_jobs: u32,
}

impl Default for WorkerPolicy {
    fn default() -> Self {
        WorkerPolicy {
            health_timeout: Duration::from_secs(2),
            recycle_rss_mb: 1024,
            max_jobs: 500,
        }
    }
}

struct Worker {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
    jobs: u32,
}

impl Worker {
    fn pid(&self) -> u32 {
        self.child.id().unwrap_or(0)
    }
}

struct Inner {
    cfg: WorkerPoolConfig,
    policy: WorkerPolicy,
    idle: Mutex<Vec<Worker>>,
    slots: Semaphore,
    busy_pids: Mutex<Vec<u32>>,
    spawned: AtomicU64,
    lost: AtomicU64,
    recycled: AtomicU64,
    failing_spawns: AtomicUsize,
}

/// Handle to the pool of layout worker processes.
#[derive(Clone)]
pub struct WorkerPool {
    inner: Arc<Inner>,
}

/// Counters for health checks and metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolStats {
    /// Worker processes started since the pool was created.
    pub spawned: u64,
    /// Workers that died, were killed on timeout, broke the protocol, or failed the health
    /// check before a job.
    pub lost: u64,
    /// Workers ended on purpose after a job (memory held, or jobs run).
    pub recycled: u64,
    /// Workers started and waiting for a job.
    pub idle: usize,
}

enum JobFailure {
    Timeout,
    /// The worker died with its address space at `peak_mb`, a third of its cap or more (a
    /// doubling buffer fails once it holds a third).
    Memory {
        peak_mb: u64,
        why: String,
    },
    /// The job frame could not be written: the worker never started it.
    NotSent(String),
    Lost(String),
}

impl WorkerPool {
    /// A pool with the default [`WorkerPolicy`]; workers start lazily on the first jobs.
    pub fn new(cfg: WorkerPoolConfig) -> Self {
        Self::with_policy(cfg, WorkerPolicy::default())
    }

    /// A pool whose workers are checked, limited and recycled as `policy` says.
    pub fn with_policy(cfg: WorkerPoolConfig, policy: WorkerPolicy) -> Self {
        let slots = Semaphore::new(cfg.workers.max(1));
        WorkerPool {
            inner: Arc::new(Inner {
                cfg,
                policy,
                idle: Mutex::new(Vec::new()),
                slots,
                busy_pids: Mutex::new(Vec::new()),
                spawned: AtomicU64::new(0),
                lost: AtomicU64::new(0),
                recycled: AtomicU64::new(0),
                failing_spawns: AtomicUsize::new(0),
            }),
        }
    }

    /// Start all workers now (so the first request does not pay for it). Must be called
    /// inside a tokio runtime.
    pub fn warm_up(&self) -> std::io::Result<()> {
        let mut started = Vec::new();
        for _ in 0..self.inner.cfg.workers.max(1) {
            started.push(self.spawn()?);
        }
        self.idle().extend(started);
        Ok(())
    }

    /// Whether the pool can serve: its last attempt to start a worker did not fail.
    pub fn is_up(&self) -> bool {
        self.inner.failing_spawns.load(Ordering::Relaxed) == 0 && self.inner.cfg.program.exists()
    }

    pub fn stats(&self) -> PoolStats {
        PoolStats {
            spawned: self.inner.spawned.load(Ordering::Relaxed),
            lost: self.inner.lost.load(Ordering::Relaxed),
            recycled: self.inner.recycled.load(Ordering::Relaxed),
            idle: self.idle().len(),
        }
    }

    /// Process ids of the workers running a job right now (for tests and diagnostics).
    pub fn busy_pids(&self) -> Vec<u32> {
        self.inner
            .busy_pids
            .lock()
            .map(|v| v.clone())
            .unwrap_or_default()
    }

    fn idle(&self) -> std::sync::MutexGuard<'_, Vec<Worker>> {
        self.inner
            .idle
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn spawn(&self) -> std::io::Result<Worker> {
        let cfg = &self.inner.cfg;
        let mut cmd = Command::new(&cfg.program);
        cmd.args(&cfg.args);
        if let Some(lib) = &cfg.pdfium_lib {
            cmd.arg("--pdfium").arg(lib);
        }
        cmd.env_clear();
        for k in PASSED_ENV {
            if let Some(v) = std::env::var_os(k) {
                cmd.env(k, v);
            }
        }
        for (k, v) in &cfg.env {
            cmd.env(k, v);
        }
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        let cap = cfg.memory_mb.saturating_mul(1024 * 1024);
        let cpu_s = job_cpu_seconds(cfg.timeout);
        // SAFETY: getpid is always safe; the closure below makes only async-signal-safe calls
        // (setsid, prctl, getppid, setrlimit) between fork and exec.
        let parent = unsafe { libc::getpid() };
        unsafe {
            cmd.pre_exec(move || {
                // Its own session and process group: no controlling terminal, and no signal
                // sent to the server's group reaches it (nor one it sends to "its" group).
                if libc::setsid() < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                die_with_parent(parent)?;
                // No setuid/file-capability gains for this process or anything it runs.
                if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // CPU time of the first job; raised before each later one (`limit_cpu`).
                let cpu = libc::rlimit {
                    rlim_cur: cpu_s as libc::rlim_t,
                    rlim_max: libc::RLIM_INFINITY,
                };
                if libc::setrlimit(libc::RLIMIT_CPU, &cpu) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                cap_address_space(cap)
            });
        }
        match cmd.spawn() {
            Ok(mut child) => {
                self.inner.failing_spawns.store(0, Ordering::Relaxed);
                self.inner.spawned.fetch_add(1, Ordering::Relaxed);
                let stdin = child.stdin.take().ok_or_else(|| broken("no stdin"))?;
                let stdout = child.stdout.take().ok_or_else(|| broken("no stdout"))?;
                widen_pipe(stdin.as_raw_fd());
                widen_pipe(stdout.as_raw_fd());
                Ok(Worker {
                    child,
                    stdin,
                    stdout,
                    jobs: 0,
                })
            }
            Err(e) => {
                self.inner.failing_spawns.fetch_add(1, Ordering::Relaxed);
                Err(e)
            }
        }
    }

    /// Lay out `pdf` (pages of `range`) in a worker process.
    pub async fn layout(&self, pdf: Vec<u8>, range: PageRange) -> Result<Document, Error> {
        let job = Request::Layout(Job {
            pdf,
            range,
            limits: self.inner.cfg.limits,
        });
        match self.exchange_job(&job, "PDF layout").await? {
            Response::Layout(reply) => reply.map_err(Error::from),
            _ => Err(protocol_mismatch()),
        }
    }

    /// Render `regions` of `pdf` to PNG (`scale` pixels per PDF unit) in a worker process;
    /// one image per region, in order.
    pub async fn render(
        &self,
        pdf: Vec<u8>,
        regions: Vec<Region>,
        scale: f32,
    ) -> Result<Vec<Vec<u8>>, Error> {
        if regions.is_empty() {
            return Ok(Vec::new());
        }
        let job = Request::Render(RenderJob {
            pdf,
            regions,
            scale,
        });
        match self.exchange_job(&job, "PDF rendering").await? {
            Response::Render(reply) => reply.map_err(Error::from),
            _ => Err(protocol_mismatch()),
        }
    }

    /// `pdf` with `links` added as link annotations, rewritten in a worker process
    /// ([`quire::annotations::pdf::annotate_pdf`]).
    pub async fn annotate(
        &self,
        pdf: Vec<u8>,
        links: Vec<quire::annotations::Link>,
    ) -> Result<Vec<u8>, Error> {
        let job = Request::Annotate(AnnotateJob { pdf, links });
        match self.exchange_job(&job, "PDF annotation").await? {
            Response::Annotate(reply) => reply.map_err(Error::from),
            _ => Err(protocol_mismatch()),
        }
    }

    /// Run one request on a healthy worker (started if none is idle) under the job deadline;
    /// a worker that times out, dies or breaks the protocol is killed and counted as lost.
    async fn exchange_job(&self, job: &Request, stage: &str) -> Result<Response, Error> {
        let _permit = self
            .inner
            .slots
            .acquire()
            .await
            .map_err(|_| Error::PdfConversion("the layout worker pool is closed".into()))?;
        let timeout = self.inner.cfg.timeout;
        let mut worker = self.healthy_worker().await?;
        let reused = worker.jobs > 0;
        let mut outcome = self.run_on(&mut worker, job).await;
        if let (true, Err(JobFailure::NotSent(e))) = (reused, &outcome) {
            // An idle worker died after its check, before it read the job: the job never
            // started, so a fresh worker gets it.
            tracing::warn!(
                pid = worker.pid(),
                "layout worker gone before its job ({e}); retrying on a fresh one"
            );
            self.retire(worker, true).await;
            worker = self.spawn().map_err(cannot_start)?;
            outcome = self.run_on(&mut worker, job).await;
        }
        match outcome {
            Ok(reply) => {
                worker.jobs += 1;
                match self.recycle_reason(&worker) {
                    Some(why) => {
                        tracing::info!(pid = worker.pid(), "layout worker recycled: {why}");
                        self.retire(worker, false).await;
                    }
                    None => self.idle().push(worker),
                }
                Ok(reply)
            }
            Err(failure) => {
                let status = self.retire(worker, true).await;
                match failure {
                    JobFailure::Timeout => Err(Error::Timeout {
                        stage: stage.into(),
                        seconds: timeout.as_secs(),
                    }),
                    JobFailure::Memory { peak_mb, why } => {
                        tracing::warn!(
                            peak_mb,
                            cap_mb = self.inner.cfg.memory_mb,
                            "layout worker died near its memory cap: {why}"
                        );
                        Err(Error::Memory {
                            stage: stage.into(),
                            cap_mb: self.inner.cfg.memory_mb,
                            detail: format!(
                                " (the worker reached {peak_mb} MiB of address space and died, {})",
                                status
                                    .map(describe_status)
                                    .unwrap_or_else(|| "unknown status".into())
                            ),
                        })
                    }
                    JobFailure::NotSent(e) | JobFailure::Lost(e) => {
                        Err(Error::PdfConversion(format!(
                            "the layout worker died ({}): {e}",
                            status
                                .map(describe_status)
                                .unwrap_or_else(|| "unknown status".into())
                        )))
                    }
                }
            }
        }
    }

    /// One job on `worker` under the deadline, its pid listed as busy meanwhile (removed however
    /// this future ends: a caller may drop it mid-job, and the worker, owned by the caller, is
    /// then killed on drop and replaced by the next job).
    async fn run_on(&self, worker: &mut Worker, job: &Request) -> Result<Response, JobFailure> {
        let _busy = BusyGuard::new(&self.inner, worker.pid());
        if worker.jobs > 0 {
            limit_cpu(worker.pid(), job_cpu_seconds(self.inner.cfg.timeout));
        }
        // The worker's peak address space, sampled while it works: a worker that dies with a
        // third of its cap or more in use (pdfium's own allocations end in an abort, not in the
        // `MEMORY` reply the Rust side sends) is reported as out of memory.
        let pid = worker.pid();
        let peak = AtomicU64::new(0);
        let watch = async {
            loop {
                tokio::time::sleep(Duration::from_millis(50)).await;
                if let Some(mb) = vm_peak_mb(pid) {
                    peak.store(mb, Ordering::Relaxed);
                }
            }
        };
        let work = async {
            tokio::select! {
                r = exchange(worker, job) => r,
                _ = watch => Err(JobFailure::Timeout),
            }
        };
        let outcome = match tokio::time::timeout(self.inner.cfg.timeout, work).await {
            Ok(result) => result,
            Err(_) => Err(JobFailure::Timeout),
        };
        let cap = self.inner.cfg.memory_mb;
        let peak = peak.load(Ordering::Relaxed);
        match outcome {
            Err(JobFailure::Lost(e)) if cap > 0 && peak.saturating_mul(3) >= cap => {
                Err(JobFailure::Memory {
                    peak_mb: peak,
                    why: e,
                })
            }
            other => other,
        }
    }

    /// An idle worker that is alive and answers a ping in time, else a fresh one. Workers that
    /// fail the check are killed and counted as lost.
    async fn healthy_worker(&self) -> Result<Worker, Error> {
        let limit = self.inner.policy.health_timeout.min(self.inner.cfg.timeout);
        loop {
            let next = self.idle().pop();
            let Some(mut worker) = next else {
                return self.spawn().map_err(cannot_start);
            };
            let problem = match worker.child.try_wait() {
                Ok(Some(status)) => Some(format!("it exited ({})", describe_status(status))),
                Err(e) => Some(format!("its status is unknown: {e}")),
                Ok(None) => {
                    match tokio::time::timeout(limit, exchange(&mut worker, &Request::Ping)).await {
                        Ok(Ok(Response::Pong)) => None,
                        Ok(Ok(_)) => Some("it answered the ping with something else".into()),
                        Ok(Err(
                            JobFailure::NotSent(e)
                            | JobFailure::Lost(e)
                            | JobFailure::Memory { why: e, .. },
                        )) => Some(e),
                        Ok(Err(JobFailure::Timeout)) | Err(_) => {
                            Some(format!("no answer to a ping within {limit:?}"))
                        }
                    }
                }
            };
            match problem {
                None => return Ok(worker),
                Some(why) => {
                    tracing::warn!(
                        pid = worker.pid(),
                        "idle layout worker failed its health check ({why}); replacing it"
                    );
                    self.retire(worker, true).await;
                }
            }
        }
    }

    /// Why `worker` should not go back to the idle list, if it should not.
    fn recycle_reason(&self, worker: &Worker) -> Option<String> {
        let policy = &self.inner.policy;
        if policy.max_jobs > 0 && worker.jobs >= policy.max_jobs {
            return Some(format!("{} jobs run", worker.jobs));
        }
        if policy.recycle_rss_mb > 0 {
            let rss = rss_mb(worker.pid())?;
            if rss > policy.recycle_rss_mb {
                return Some(format!(
                    "{rss} MiB resident after its job (limit {} MiB)",
                    policy.recycle_rss_mb
                ));
            }
        }
        None
    }

    /// Kill `worker` and reap it; `lost` counts it as lost, else as recycled.
    async fn retire(&self, mut worker: Worker, lost: bool) -> Option<std::process::ExitStatus> {
        let counter = if lost {
            &self.inner.lost
        } else {
            &self.inner.recycled
        };
        counter.fetch_add(1, Ordering::Relaxed);
        let _ = worker.child.start_kill();
        worker.child.wait().await.ok()
    }
}

fn cannot_start(e: std::io::Error) -> Error {
    Error::PdfConversion(format!("cannot start a layout worker: {e}"))
}

/// The CPU seconds one job may use: its deadline, rounded up, plus one.
fn job_cpu_seconds(timeout: Duration) -> u64 {
    timeout.as_secs() + 2
}

/// Fields 14 and 15 (utime, stime) of `/proc/PID/stat`, in seconds, rounded up.
fn cpu_used_s(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Some((utime + stime).div_ceil(hz))
}

/// The most a job or reply pipe holds before its writer waits: 1 MiB (Linux's default
/// `/proc/sys/fs/pipe-max-size` for unprivileged processes) instead of 64 KiB, so a page's
/// PDF or its layout crosses in one write rather than in sixteen rounds of the writer
/// blocking and the reader waking. Where the system refuses, the pipe keeps its size.
const PIPE_BYTES: libc::c_int = 1 << 20;

fn widen_pipe(fd: RawFd) {
    // SAFETY: `fd` is an open pipe end owned by the caller; F_SETPIPE_SZ only resizes its
    // buffer and fails harmlessly (EPERM, EBUSY) where the size is not allowed.
    unsafe {
        libc::fcntl(fd, libc::F_SETPIPE_SZ, PIPE_BYTES);
    }
}

/// Between fork and exec of a child of `parent` (its pid, read before the fork): the child gets
/// `SIGKILL` when the parent dies, even a SIGKILLed one (`PR_SET_PDEATHSIG`), and gives up if
/// the parent already exited before that was set (nobody would be left to notice). Only
/// async-signal-safe calls. The layout workers and the training processes (`quire-web`) use it.
pub fn die_with_parent(parent: libc::pid_t) -> std::io::Result<()> {
    // SAFETY: prctl and getppid take no pointers.
    unsafe {
        if libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGKILL as libc::c_ulong,
            0,
            0,
            0,
        ) != 0
        {
            return Err(std::io::Error::last_os_error());
        }
        if libc::getppid() != parent {
            return Err(std::io::Error::other("the parent exited"));
        }
    }
    Ok(())
}

/// Caps the calling process's address space at `bytes` (0: no cap), soft and hard limit alike.
/// Meant for a `pre_exec` closure: `setrlimit` is async-signal-safe. The layout workers and
/// the training processes (`quire-web`) are capped with it.
pub fn cap_address_space(bytes: u64) -> std::io::Result<()> {
    if bytes == 0 {
        return Ok(());
    }
    let lim = libc::rlimit {
        rlim_cur: bytes as libc::rlim_t,
        rlim_max: bytes as libc::rlim_t,
    };
    // SAFETY: setrlimit reads the struct given; no memory is handed over.
    if unsafe { libc::setrlimit(libc::RLIMIT_AS, &lim) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Raise the soft `RLIMIT_CPU` of worker `pid` to the CPU time it used so far plus `budget`
/// seconds (the hard limit stays unlimited; the worker's seccomp filter keeps it from changing
/// its own limits).
fn limit_cpu(pid: u32, budget: u64) {
    let Some(used) = cpu_used_s(pid) else { return };
    let lim = libc::rlimit {
        rlim_cur: (used + budget) as libc::rlim_t,
        rlim_max: libc::RLIM_INFINITY,
    };
    // SAFETY: plain syscall on a child of ours; a failure only leaves the older limit.
    let rc = unsafe {
        libc::prlimit(
            pid as libc::pid_t,
            libc::RLIMIT_CPU,
            &lim,
            std::ptr::null_mut(),
        )
    };
    if rc != 0 {
        // EPERM when the worker runs as another user and this server lacks CAP_SYS_RESOURCE:
        // the worker sets its own per-job limit then (`quire::layout::worker::Hooks`).
        tracing::debug!(
            pid,
            "cannot set the CPU limit of a layout worker: {}",
            std::io::Error::last_os_error()
        );
    }
}

/// Peak address space of `pid` in MiB (`VmPeak` of `/proc/PID/status`).
fn vm_peak_mb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmPeak:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

/// Resident memory of `pid` in MiB (`VmRSS` of `/proc/PID/status`).
fn rss_mb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

fn protocol_mismatch() -> Error {
    Error::PdfConversion("the worker answered a different kind of request".into())
}

struct BusyGuard<'a> {
    inner: &'a Inner,
    pid: u32,
}

impl<'a> BusyGuard<'a> {
    fn new(inner: &'a Inner, pid: u32) -> Self {
        if let Ok(mut v) = inner.busy_pids.lock() {
            v.push(pid);
        }
        BusyGuard { inner, pid }
    }
}

impl Drop for BusyGuard<'_> {
    fn drop(&mut self) {
        if let Ok(mut v) = self.inner.busy_pids.lock() {
            v.retain(|p| *p != self.pid);
        }
    }
}

fn broken(what: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::BrokenPipe, what.to_string())
}

fn describe_status(s: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (s.code(), s.signal()) {
        (_, Some(sig)) => format!("killed by signal {sig}"),
        (Some(code), _) => format!("exit code {code}"),
        _ => s.to_string(),
    }
}

/// Send one request frame and read one response frame.
async fn exchange(w: &mut Worker, job: &Request) -> Result<Response, JobFailure> {
    // The PDF goes to the pipe from the job itself, between the bytes around it.
    let frame = quire::layout::worker::encode_frame_parts(job, job.pdf())
        .map_err(|e| JobFailure::NotSent(format!("encoding the job: {e}")))?;
    let not_sent = |e: std::io::Error| JobFailure::NotSent(format!("writing the job: {e}"));
    for part in [&frame.head[..], frame.bytes, &frame.tail[..]] {
        if !part.is_empty() {
            w.stdin.write_all(part).await.map_err(not_sent)?;
        }
    }
    w.stdin.flush().await.map_err(not_sent)?;
    let lost = |e: std::io::Error| JobFailure::Lost(format!("reading the reply: {e}"));
    let mut head = [0u8; 4];
    w.stdout.read_exact(&mut head).await.map_err(lost)?;
    let n = u32::from_le_bytes(head) as usize;
    if n > quire::layout::worker::MAX_FRAME {
        return Err(JobFailure::Lost(format!("reply frame of {n} bytes")));
    }
    let mut buf = vec![0u8; n];
    w.stdout.read_exact(&mut buf).await.map_err(lost)?;
    postcard::from_bytes::<Response>(&buf).map_err(|e| JobFailure::Lost(format!("bad reply: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worker_errors_cross_the_pipe_as_they_were() {
        // Every variant layout can produce comes back with its code, fields and message.
        for e in [
            Error::BadInput("not a PDF".into()),
            Error::NoBlocks,
            Error::TooManyBlocks {
                blocks: 9,
                limit: 3,
            },
            Error::TooManyTokens {
                tokens: 12,
                limit: 5,
            },
            Error::PdfConversion("libpdfium not found".into()),
            Error::Parsing("bad xref".into()),
            Error::Timeout {
                stage: "layout of page 3".into(),
                seconds: 120,
            },
            Error::General("odd".into()),
        ] {
            let wire = postcard::to_allocvec(&quire::layout::worker::WorkerError::from(&e))
                .expect("encode");
            let back: quire::layout::worker::WorkerError =
                postcard::from_bytes(&wire).expect("decode");
            let back = Error::from(back);
            assert_eq!(back.code(), e.code());
            assert_eq!(back.to_string(), e.to_string());
        }
    }

    fn pool_of(program: &str, args: &[&str], timeout_ms: u64) -> WorkerPool {
        WorkerPool::new(WorkerPoolConfig {
            program: PathBuf::from(program),
            args: args.iter().map(OsString::from).collect(),
            env: Vec::new(),
            workers: 1,
            timeout: Duration::from_millis(timeout_ms),
            memory_mb: 0,
            pdfium_lib: None,
            limits: Limits::default(),
        })
    }

    #[tokio::test]
    async fn a_worker_that_exits_fails_the_job_with_a_conversion_failure() {
        // `true` reads nothing and exits: the reply never comes.
        let pool = pool_of("/bin/true", &[], 5_000);
        let err = pool.layout(b"%PDF".to_vec(), PageRange::default()).await;
        assert_eq!(
            err.unwrap_err().code(),
            quire::ErrorCode::PdftoolConversionFailure
        );
        assert_eq!(pool.stats().lost, 1);
        // The next job gets a fresh worker (and fails the same way, but is served).
        let err = pool.layout(b"%PDF".to_vec(), PageRange::default()).await;
        assert!(err.is_err());
        assert_eq!(pool.stats().spawned, 2);
    }

    /// Whether process `pid` exists (a reaped child no longer does).
    fn process_exists(pid: u32) -> bool {
        // SAFETY: signal 0 only checks that the process exists.
        unsafe { libc::kill(pid as libc::pid_t, 0) == 0 }
    }

    /// The pid of the worker running the pool's one job (polled from `busy_pids`).
    async fn busy_worker(pool: &WorkerPool) -> u32 {
        for _ in 0..2_000 {
            if let Some(&pid) = pool.busy_pids().first() {
                return pid;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        panic!("the job never reached a worker");
    }

    #[tokio::test]
    async fn a_worker_that_hangs_is_killed_on_timeout() {
        // `sleep 30` never answers: the deadline ends the job with a timeout (a worker that
        // exits on its own fails it with a conversion failure instead), and the worker is
        // killed and reaped, not left sleeping.
        let pool = pool_of("/bin/sleep", &["30"], 1_000);
        let p = pool.clone();
        let job =
            tokio::spawn(async move { p.layout(b"%PDF".to_vec(), PageRange::default()).await });
        let pid = busy_worker(&pool).await;
        assert!(process_exists(pid));
        let err = job.await.unwrap().unwrap_err();
        assert_eq!(err.code(), quire::ErrorCode::Timeout, "{err}");
        assert!(!process_exists(pid), "the hanging worker {pid} still runs");
        assert_eq!(pool.stats().lost, 1);
        assert!(pool.busy_pids().is_empty());
    }

    #[tokio::test]
    async fn a_job_dropped_by_its_caller_frees_its_slot() {
        let pool = pool_of("/bin/sleep", &["30"], 60_000);
        let job = pool.layout(b"%PDF".to_vec(), PageRange::default());
        // Give up on the job after 100 ms, as an HTTP handler would when its client leaves.
        assert!(tokio::time::timeout(Duration::from_millis(100), job)
            .await
            .is_err());
        assert!(pool.busy_pids().is_empty());
        // The only slot is free again: the next job starts (and times out on its own terms).
        let again = tokio::time::timeout(
            Duration::from_millis(100),
            pool.layout(b"%PDF".to_vec(), PageRange::default()),
        )
        .await;
        assert!(again.is_err(), "the job ran on a fresh worker");
        assert_eq!(pool.stats().spawned, 2);
    }

    #[tokio::test]
    async fn job_and_reply_pipes_hold_a_mebibyte() {
        // A page's PDF or layout crosses in one write, not in 64 KiB rounds of waking the
        // other side (where the system allows pipes that large, as Linux does by default).
        let max: i64 = std::fs::read_to_string("/proc/sys/fs/pipe-max-size")
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0);
        let pool = pool_of("/bin/sleep", &["30"], 1_000);
        let worker = pool.spawn().expect("spawn");
        for fd in [worker.stdin.as_raw_fd(), worker.stdout.as_raw_fd()] {
            // SAFETY: F_GETPIPE_SZ only reads the size of an open pipe the worker owns.
            let size = unsafe { libc::fcntl(fd, libc::F_GETPIPE_SZ) };
            if max >= i64::from(PIPE_BYTES) {
                assert_eq!(size, PIPE_BYTES, "pipe-max-size {max}");
            } else {
                assert!(size > 0, "pipe-max-size {max}: {size}");
            }
        }
    }

    #[tokio::test]
    async fn a_missing_program_is_reported_and_the_pool_is_down() {
        let pool = pool_of("/nonexistent/quire", &["worker"], 1_000);
        let err = pool.layout(b"%PDF".to_vec(), PageRange::default()).await;
        assert_eq!(
            err.unwrap_err().code(),
            quire::ErrorCode::PdftoolConversionFailure
        );
        assert!(!pool.is_up());
    }
}
