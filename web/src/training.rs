/*!
Training over HTTP, outside the server process. `/api/modelTraining` validates its request,
then the trainer registry runs a job that starts `quire train-job` (a hidden subcommand of this
same executable) as a child process: lower scheduling priority (`training.nice`), bounded
threads (`training.threads`, also rayon's), an address-space cap (`training.memory_mb`), killed
when the server dies (`PR_SET_PDEATHSIG`). The child trains with the same driver as
`quire train` (`quire::training::run`) and writes JSON lines on its stdout: `{"progress": …}`
while it works (phase, fold, iteration, loss, error rate, elapsed and estimated remaining
seconds), then `{"result": …}` (the evaluation as `quire eval` prints it, as JSON and as
GROBID's plain-text `report`). A child that dies without a result (killed, crashed, out of
memory) makes its token report a failure; serving is never touched.

Live swap: a `full` or `holdout` run writes its model into
`<models>/.versions/<model>/<token>/` (never into the served folder). The child checks that the
written files load and tag; the server then loads them itself and installs them in the model's
slot ([`quire_actors::Models::install_from`]): messages already being tagged finish on the old
model, later ones use the new one. Only then are the folders exchanged (`renameat2` with
`RENAME_EXCHANGE`, atomic) so that a restart serves the new version too, and the lexicons the
run wrote replace `<models>/lexicon` the same way (the lexicon cache notices the change). A
failed or cancelled run removes its folder and leaves the served model as it was.

The child waits for a `go` line on its stdin before it reads anything. The server sends it at
once, except for runs started with `hold=1` while `debug.test_routes` is on: those wait for
`/debug/releaseTraining` (so tests can observe an ongoing training without racing it).
*/

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use anyhow::Context as _;
use quire::corpus::Part;
use quire::flavor::Flavor;
use quire::models::ModelName;
use quire::training::{self, Event, TrainingKind, TrainingReport};
use quire::training::{self as models, ModelSpec};
use quire_actors::trainer::{Canceller, ProgressSink, TrainingJob};
use quire_actors::Models;

/// Folder under the models directory where new versions are written before they serve.
pub const VERSIONS_DIR: &str = ".versions";

/// What one training process does; passed as JSON on its command line.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct JobSpec {
    pub model: String,
    pub flavor: Option<Flavor>,
    pub kind: TrainingKind,
    pub dataset: PathBuf,
    /// The models folder the run writes into (for `full` and `holdout`).
    pub out_dir: PathBuf,
    pub threads: usize,
    /// CRF iterations, or BiLSTM-CRF epochs.
    pub max_iter: Option<usize>,
    pub epsilon: Option<f64>,
    /// `CRF` or `BiLSTM-CRF`.
    #[serde(default = "crf_architecture")]
    pub architecture: String,
    /// Incremental training: the served model folder whose weights every training starts from.
    #[serde(default)]
    pub start_dir: Option<PathBuf>,
    /// BiLSTM-CRF: word vectors for the frozen channel (`quire::deep::read_vectors`); the
    /// server gives the served BiLSTM-CRF's folder when that model has the channel, so a
    /// retrained model reads the vectors the served one was trained with.
    #[serde(default)]
    pub embeddings: Option<PathBuf>,
}

fn crf_architecture() -> String {
    quire::tagger::CRF.to_string()
}

/// Confines a training process (see `crate::sandbox`): its own namespaces, no capabilities
/// (an empty bounding set too), Landlock read access to the dataset and the models folder and
/// read-write access to its run folder (`job.out_dir`) only, and the training deny-list of
/// system calls. It keeps the server's uid: it reads and replaces model files that belong to
/// the service's user and may be private to it; without capabilities and under Landlock that
/// uid reaches nothing else.
fn confine_training(job: &JobSpec) -> anyhow::Result<()> {
    use crate::sandbox::{confine, Confinement, Profile};
    std::fs::create_dir_all(&job.out_dir)
        .with_context(|| format!("cannot create {}", job.out_dir.display()))?;
    let mut read_only = vec![job.dataset.clone()];
    // The models folder: the run folder is `<models>/<versions>/<model>/<token>`.
    if let Some(models) = job.out_dir.ancestors().nth(3) {
        read_only.push(models.to_path_buf());
    }
    read_only.extend(job.start_dir.iter().cloned());
    read_only.extend(job.embeddings.iter().cloned());
    let notes = confine(&Confinement {
        user: None,
        read_only,
        writable: vec![job.out_dir.clone()],
        profile: Profile::Training,
    })
    .map_err(|e| anyhow::anyhow!("the training process cannot confine itself: {e}"))?;
    for note in notes {
        eprintln!("warning: quire train-job: {note}");
    }
    Ok(())
}

/// How the server runs training processes (from `[training]`).
#[derive(Debug, Clone)]
pub struct Runner {
    pub program: PathBuf,
    pub models_dir: PathBuf,
    pub nice: i32,
    pub memory_mb: u64,
}

/// GROBID's model names, `<model>-<flavour>` folder names and `<model>/<flavour>` spellings
/// (any case) to a model and flavour; `affiliation` is GROBID's short name.
pub fn resolve_model(raw: &str) -> Option<(ModelName, Option<Flavor>)> {
    let wanted = raw.trim().to_ascii_lowercase().replace('/', "-");
    let wanted = if wanted == "affiliation" {
        "affiliation-address".to_string()
    } else {
        wanted
    };
    ModelName::ALL.into_iter().find_map(|m| {
        if m.dir_name(None) == wanted {
            return Some((m, None));
        }
        Flavor::MODELS
            .into_iter()
            .find(|f| m.dir_name(Some(*f)) == wanted)
            .map(|f| (m, Some(f)))
    })
}

// ---------------------------------------------------------------------------------------------
// The child: `quire train-job --job JSON`.

fn emit(tag: &str, value: serde_json::Value) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}", serde_json::json!({ tag: value }));
    let _ = out.flush();
}

/// Turns driver events into throttled progress objects.
struct ProgressReporter {
    started: Instant,
    fold_started: Instant,
    last_iteration: Option<Instant>,
    max_iter: usize,
}

impl ProgressReporter {
    fn on(&mut self, e: &Event) {
        if let Some(v) = self.value(e) {
            emit("progress", v);
        }
    }

    /// The progress object for `e`; `None` for an iteration within 200 ms of the last shown.
    fn value(&mut self, e: &Event) -> Option<serde_json::Value> {
        let elapsed = self.started.elapsed().as_secs_f64();
        let value = match e {
            Event::Read {
                part,
                files,
                sequences,
                tokens,
                ..
            } => serde_json::json!({
                "phase": "reading", "part": part, "files": files, "sequences": sequences,
                "tokens": tokens, "elapsed_s": elapsed,
            }),
            Event::TrainingStarted {
                fold,
                folds,
                sequences,
                tokens,
            } => {
                self.fold_started = Instant::now();
                serde_json::json!({
                    "phase": "training", "fold": fold, "folds": folds, "iteration": 0,
                    "max_iter": self.max_iter, "sequences": sequences, "tokens": tokens,
                    "elapsed_s": elapsed,
                })
            }
            Event::Iteration {
                fold,
                folds,
                progress: p,
            } => {
                // At most five lines a second; the first iteration always.
                let now = Instant::now();
                if self
                    .last_iteration
                    .is_some_and(|t| now.duration_since(t).as_millis() < 200)
                {
                    return None;
                }
                self.last_iteration = Some(now);
                let per_iter =
                    self.fold_started.elapsed().as_secs_f64() / p.iteration.max(1) as f64;
                let left_here = self.max_iter.saturating_sub(p.iteration) as f64 * per_iter;
                let left_folds =
                    folds.saturating_sub(*fold) as f64 * self.max_iter as f64 * per_iter;
                serde_json::json!({
                    "phase": "training", "fold": fold, "folds": folds,
                    "iteration": p.iteration, "max_iter": self.max_iter, "loss": p.loss,
                    "error_rate": p.train_error, "active_features": p.active_features,
                    "elapsed_s": elapsed,
                    "estimated_remaining_s": left_here + left_folds,
                })
            }
            Event::Evaluated {
                fold,
                folds,
                field_micro_f1,
            } => serde_json::json!({
                "phase": "evaluated", "fold": fold, "folds": folds,
                "field_micro_f1": field_micro_f1, "elapsed_s": elapsed,
            }),
            Event::Written { model_bytes, .. } => serde_json::json!({
                "phase": "writing", "model_bytes": model_bytes, "elapsed_s": elapsed,
            }),
            // Error analysis is the command line's (`--errors`, the per-fold weight sweep of a
            // combined run, which HTTP does not train); the job's progress is not.
            Event::Mislabelled { .. } | Event::Swept { .. } => return None,
        };
        Some(value)
    }
}

/// The written model loads and tags the first sequences of its corpus (one label per token,
/// every label one the model knows).
fn check_written(
    spec: &dyn ModelSpec,
    dir: &Path,
    dataset: &Path,
    architecture: &str,
) -> anyhow::Result<usize> {
    let model = quire::tagger::Tagger::load_as(dir, architecture, spec.feature_version())
        .with_context(|| format!("the new model in {} does not load", dir.display()))?;
    let (data, _) = spec.read(dataset, Part::Corpus)?;
    let mut checked = 0;
    for seq in data.iter().take(20) {
        let labels = model.label(&seq.rows)?;
        anyhow::ensure!(
            labels.len() == seq.rows.len()
                && labels.iter().all(|l| model.labels().iter().any(|m| m == l)),
            "the new model tagged {} tokens with {} labels",
            seq.rows.len(),
            labels.len()
        );
        checked += 1;
    }
    Ok(checked)
}

/// The result object of a finished run.
pub fn result_json(report: &TrainingReport) -> serde_json::Value {
    let mut v = serde_json::json!({
        "model": report.model,
        "architecture": report.architecture,
        "type": report.kind.name(),
        "iterations": report.iterations,
        "training_s": report.training_s,
        "train_sequences": report.train_sequences,
        "eval_sequences": report.eval_sequences,
        "fold_field_f1": report.fold_field_f1,
        "corpus": report.corpus,
        "data_digest": report.data_digest,
        "params": report.params,
        "incremental": report.started_from.is_some(),
    });
    match &report.evaluation {
        Some(e) => {
            v["evaluation"] = e.summary();
            v["report"] = e.table().into();
        }
        None => {
            v["evaluation"] = serde_json::Value::Null;
            v["report"] = "Trained on all data (corpus and evaluation parts): no held-out \
                           evaluation."
                .into();
        }
    }
    v
}

/// `quire train-job`: waits for `go` on stdin, trains, checks what it wrote, prints the result.
pub fn child_main(job_json: &str) -> anyhow::Result<()> {
    let job: JobSpec = serde_json::from_str(job_json).context("--job is not a job description")?;
    confine_training(&job)?;
    let mut go = String::new();
    std::io::stdin().lock().read_line(&mut go)?;
    anyhow::ensure!(go.trim() == "go", "the server did not say go");
    let name: ModelName = job.model.parse().map_err(anyhow::Error::msg)?;
    let spec = models::spec(name, job.flavor)
        .with_context(|| format!("model `{}` has no trainable definition", job.model))?;
    let mut params = spec.default_params();
    params.threads = job.threads.max(1);
    if let Some(v) = job.max_iter {
        params.max_iter = v;
    }
    if let Some(v) = job.epsilon {
        params.epsilon = v;
    }
    let mut reporter = ProgressReporter {
        started: Instant::now(),
        fold_started: Instant::now(),
        last_iteration: None,
        max_iter: params.max_iter,
    };
    emit(
        "progress",
        serde_json::json!({"phase": "reading", "elapsed_s": 0.0}),
    );
    let deep = job.architecture == quire::deep::ARCHITECTURE;
    let report = if deep {
        let mut p = quire::deep::DeepParams::default();
        if let Some(v) = job.max_iter {
            p.max_epochs = v;
        }
        p.embeddings = job.embeddings.clone();
        reporter.max_iter = p.max_epochs;
        training::run_deep(
            spec,
            &job.dataset,
            &job.out_dir,
            job.kind,
            &p,
            job.start_dir.as_deref(),
            &mut |e| reporter.on(e),
            Arc::new(AtomicBool::new(false)),
        )?
    } else {
        training::run_from(
            spec,
            &job.dataset,
            &job.out_dir,
            job.kind,
            &params,
            job.start_dir.as_deref(),
            &mut |e| reporter.on(e),
            Arc::new(AtomicBool::new(false)),
        )?
    };
    let mut result = result_json(&report);
    if let Some(dir) = &report.model_dir {
        emit(
            "progress",
            serde_json::json!({"phase": "checking", "elapsed_s": reporter.started.elapsed().as_secs_f64()}),
        );
        let checked = check_written(spec, dir, &job.dataset, &job.architecture)?;
        result["checked_sequences"] = checked.into();
        result["written"] = true.into();
    }
    emit("result", result);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The server side.

/// The child process of one run, as the canceller and the job share it.
#[derive(Default)]
struct ChildCtl {
    pid: Option<u32>,
    cancelled: bool,
    /// The run has finished and installs what it wrote: a cancel comes too late.
    installing: bool,
}

impl ChildCtl {
    /// A cancel: refused once installing has begun, else marks the run and kills its child.
    fn cancel(&mut self) -> bool {
        if self.installing {
            return false;
        }
        self.cancelled = true;
        if let Some(pid) = self.pid {
            kill(pid);
        }
        true
    }

    /// The run's end: whether it may go on (and install, when `install`), in one step with
    /// [`ChildCtl::cancel`] so that a cancel is either honoured or refused, never lost.
    fn finish(&mut self, install: bool) -> bool {
        if self.cancelled {
            return false;
        }
        self.installing = install;
        true
    }
}

fn kill(pid: u32) {
    // SAFETY: kill(2) on a child this process started and has not reaped yet.
    unsafe {
        libc::kill(pid as libc::pid_t, libc::SIGKILL);
    }
}

/// The `go` line of a held run: sent when both the child exists and the run is released.
#[derive(Default)]
struct Gate {
    released: bool,
    stdin: Option<ChildStdin>,
}

type SharedGate = Arc<Mutex<Gate>>;

fn say_go(stdin: &mut ChildStdin) {
    let _ = stdin.write_all(b"go\n");
    let _ = stdin.flush();
}

fn holds() -> &'static Mutex<HashMap<String, SharedGate>> {
    static HOLDS: OnceLock<Mutex<HashMap<String, SharedGate>>> = OnceLock::new();
    HOLDS.get_or_init(|| Mutex::new(HashMap::new()))
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Releases a run started with `hold=1`; false when no held run has this token.
pub fn release(token: &str) -> bool {
    let Some(gate) = lock(holds()).remove(token) else {
        return false;
    };
    let mut g = lock(&gate);
    g.released = true;
    if let Some(mut stdin) = g.stdin.take() {
        say_go(&mut stdin);
    }
    true
}

/// A prepared run: the job and canceller for the registry, and for a held run the gate to
/// register under the token the registry gives it.
pub struct Prepared {
    pub job: TrainingJob,
    pub cancel: Canceller,
    pub held: Option<Held>,
}

/// The gate of a run started with `hold=1`.
pub struct Held(SharedGate);

impl Held {
    /// Makes the run releasable by `/debug/releaseTraining` under `token`.
    pub fn register(self, token: &str) {
        lock(holds()).insert(token.to_string(), self.0);
    }
}

impl Runner {
    /// The job and canceller of one run. `swap`: install the written model when it succeeds.
    pub fn prepare(&self, spec: JobSpec, models: Models, hold: bool) -> Prepared {
        let ctl = Arc::new(Mutex::new(ChildCtl::default()));
        let gate = hold.then(|| Arc::new(Mutex::new(Gate::default())));
        let cancel_ctl = ctl.clone();
        let cancel: Canceller = Box::new(move || lock(&cancel_ctl).cancel());
        let runner = self.clone();
        let job_gate = gate.clone();
        let job: TrainingJob =
            Box::new(move |sink: ProgressSink| runner.run(spec, models, ctl, job_gate, &sink));
        Prepared {
            job,
            cancel,
            held: gate.map(Held),
        }
    }

    fn run(
        &self,
        mut spec: JobSpec,
        models: Models,
        ctl: Arc<Mutex<ChildCtl>>,
        gate: Option<SharedGate>,
        sink: &ProgressSink,
    ) -> Result<serde_json::Value, String> {
        let name: ModelName = spec.model.parse().map_err(|e: String| e)?;
        let flavor = spec.flavor;
        let key = name.dir_name(flavor);
        let staging = self
            .models_dir
            .join(VERSIONS_DIR)
            .join(&key)
            .join(sink.token());
        spec.out_dir = staging.clone();
        if spec.architecture == quire::deep::ARCHITECTURE && spec.start_dir.is_none() {
            let served = name.dir(&self.models_dir, flavor).join(quire::deep::DIR);
            if quire::deep::has_frozen_channel(&served) {
                spec.embeddings = Some(served);
            }
        }
        let outcome = self.run_child(&spec, &ctl, gate, sink);
        let outcome = match outcome {
            Ok(result) if !lock(&ctl).finish(result["written"] == true) => {
                drop(result);
                Err("cancelled".to_string())
            }
            Ok(mut result) => {
                if result["written"] == true {
                    let swapped = if spec.architecture == quire::deep::ARCHITECTURE {
                        self.swap_deep(&models, name, flavor, &key, &staging)
                    } else {
                        self.swap(&models, name, flavor, &key, &staging)
                    };
                    match swapped {
                        Ok(version) => {
                            result["model_version"] = version.into();
                            if version.is_none() && spec.architecture == quire::deep::ARCHITECTURE {
                                result["note"] = format!(
                                    "the new BiLSTM-CRF is in place in {key}/{}; it serves once \
                                     {key}/{} declares it (and the service restarts, or the \
                                     next BiLSTM-CRF training of this model swaps it in live)",
                                    quire::deep::DIR,
                                    quire::tagger::SERVING_FILE
                                )
                                .into();
                            } else if version.is_none() {
                                result["note"] = "this flavour's model had no files at start-up: \
                                                  its new files are in place and serve after a \
                                                  restart"
                                    .into();
                            }
                            Ok(result)
                        }
                        Err(e) => Err(format!(
                            "the new model was not installed ({e}); the served model is unchanged"
                        )),
                    }
                } else {
                    Ok(result)
                }
            }
            Err(e) => Err(e),
        };
        let _ = std::fs::remove_dir_all(&staging);
        lock(holds()).remove(sink.token());
        outcome
    }

    /// Starts the child, relays its progress, answers its result.
    fn run_child(
        &self,
        spec: &JobSpec,
        ctl: &Mutex<ChildCtl>,
        gate: Option<SharedGate>,
        sink: &ProgressSink,
    ) -> Result<serde_json::Value, String> {
        let job_json = serde_json::to_string(spec).map_err(|e| e.to_string())?;
        let mut cmd = Command::new(&self.program);
        cmd.arg("train-job")
            .arg("--job")
            .arg(job_json)
            // An empty environment (no secrets such as QUIRE_TRAINING_TOKEN) but its threads.
            .env_clear()
            .env("RAYON_NUM_THREADS", spec.threads.max(1).to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let nice = self.nice;
        let cap = self.memory_mb.saturating_mul(1024 * 1024);
        // SAFETY: getpid takes nothing; between fork and exec only async-signal-safe calls
        // (setsid, prctl, getppid, setpriority, setrlimit).
        let parent = unsafe { libc::getpid() };
        unsafe {
            cmd.pre_exec(move || {
                // Its own session and process group.
                if libc::setsid() < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                quire_actors::workers::die_with_parent(parent)?;
                libc::setpriority(libc::PRIO_PROCESS, 0, nice);
                quire_actors::workers::cap_address_space(cap)
            });
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start the training process: {e}"))?;
        let pid = child.id();
        {
            let mut c = lock(ctl);
            if c.cancelled {
                kill(pid);
            }
            c.pid = Some(pid);
        }
        let stderr = child.stderr.take();
        let stderr_tail = std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut e) = stderr {
                let _ = e.read_to_string(&mut text);
            }
            let start = text.len().saturating_sub(2000);
            let start = (start..text.len())
                .find(|i| text.is_char_boundary(*i))
                .unwrap_or(text.len());
            text[start..].trim().to_string()
        });
        if let Some(mut stdin) = child.stdin.take() {
            match gate {
                None => say_go(&mut stdin),
                Some(gate) => {
                    let mut g = lock(&gate);
                    if g.released {
                        say_go(&mut stdin);
                    } else {
                        g.stdin = Some(stdin);
                    }
                }
            }
        }
        sink.report(serde_json::json!({"phase": "starting", "pid": pid}));
        let mut result = None;
        if let Some(stdout) = child.stdout.take() {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let Ok(mut v) = serde_json::from_str::<serde_json::Value>(&line) else {
                    continue;
                };
                if let Some(p) = v.get_mut("progress") {
                    p["pid"] = pid.into();
                    sink.report(p.take());
                } else if let Some(r) = v.get_mut("result") {
                    result = Some(r.take());
                }
            }
        }
        // The child has closed its stdout (it exited or is about to): it is no longer killed
        // by pid, then it is reaped.
        lock(ctl).pid = None;
        let status = child.wait().map_err(|e| e.to_string())?;
        let tail = stderr_tail.join().unwrap_or_default();
        match result {
            Some(r) if status.success() => Ok(r),
            _ if lock(ctl).cancelled => Err("cancelled".to_string()),
            _ => {
                use std::os::unix::process::ExitStatusExt as _;
                let how = match status.signal() {
                    Some(sig) => format!("was killed by signal {sig}"),
                    None => format!("exited with {status}"),
                };
                let detail = tail
                    .lines()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("")
                    .to_string();
                Err(format!(
                    "the training process (pid {pid}) {how} before giving a result{}",
                    if detail.is_empty() {
                        String::new()
                    } else {
                        format!(": {detail}")
                    }
                ))
            }
        }
    }

    /// Installs the version in `staging` (see the module documentation); answers the version,
    /// or `None` for a flavour whose actor does not run (no files at start-up): its files are
    /// put in place, checked to load, and serve after a restart.
    fn swap(
        &self,
        models: &Models,
        name: ModelName,
        flavor: Option<Flavor>,
        key: &str,
        staging: &Path,
    ) -> anyhow::Result<Option<u64>> {
        let new_dir = staging.join(key);
        let served = name.dir(&self.models_dir, flavor);
        // A CRF training writes the CRF's files only; the served folder's declaration and
        // BiLSTM-CRF carry over, so the new version serves what the folder declared (a
        // declared pair then holds the new CRF).
        carry_over(&served, &new_dir)?;
        let version = if models.has_actor(name, flavor) {
            let (_, version) = models.install_from(name, flavor, &new_dir)?;
            Some(version)
        } else {
            let spec = models::spec(name, flavor).context("no model definition")?;
            quire::tagger::Tagger::load(&new_dir, spec.feature_version())?;
            None
        };
        // Served now; make the files follow so that a restart serves the same version.
        self.put_in_place(&new_dir, &served, key, "previous")?;
        let new_lexicon = staging.join("lexicon");
        if new_lexicon.is_dir() {
            exchange(&new_lexicon, &self.models_dir.join("lexicon"))?;
        }
        Ok(version)
    }
}

impl Runner {
    /// Installs a BiLSTM-CRF written in `staging`: its folder replaces the served model's
    /// `bilstm-crf/` (the CRF beside it is untouched; the replaced one is kept as
    /// `previous-bilstm-crf`). It swaps in live when the model's folder declares that it
    /// serves the BiLSTM-CRF, or the pair (then with the served CRF), and its actor runs
    /// (answers the version); otherwise `None`.
    fn swap_deep(
        &self,
        models: &Models,
        name: ModelName,
        flavor: Option<Flavor>,
        key: &str,
        staging: &Path,
    ) -> anyhow::Result<Option<u64>> {
        let new_dir = staging.join(key).join(quire::deep::DIR);
        let served_model = name.dir(&self.models_dir, flavor);
        let served = served_model.join(quire::deep::DIR);
        let spec = models::spec(name, flavor).context("no model definition")?;
        let loaded = quire::tagger::Tagger::load_as(
            &new_dir,
            quire::deep::ARCHITECTURE,
            spec.feature_version(),
        )?;
        let declared = quire::tagger::serving(&served_model).ok();
        let serves = |a: &str| declared.is_some_and(|d| d.architecture == a);
        let tagger = if serves(quire::deep::ARCHITECTURE) {
            Some(loaded)
        } else if serves(quire::tagger::COMBINED) {
            // The served CRF and the new BiLSTM-CRF.
            let quire::tagger::Tagger::Deep(deep) = loaded else {
                anyhow::bail!("the new files are not a BiLSTM-CRF");
            };
            let crf = quire::crf::Model::load(&served_model, spec.feature_version())?;
            let weight = declared.map_or(quire::tagger::DEFAULT_CRF_WEIGHT, |d| d.crf_weight);
            let pair = quire::tagger::Combined::new(crf, deep, weight)?;
            Some(quire::tagger::Tagger::Combined(Box::new(pair)))
        } else {
            None
        };
        let version = match tagger {
            Some(t) if models.has_actor(name, flavor) => {
                Some(models.install_tagger(name, flavor, t)?)
            }
            _ => None,
        };
        std::fs::create_dir_all(&served_model)?;
        self.put_in_place(&new_dir, &served, key, "previous-bilstm-crf")?;
        Ok(version)
    }

    /// Exchanges the new folder with the served one; the replaced version is kept under
    /// `.versions/<key>/<keep_as>` (one only).
    fn put_in_place(
        &self,
        new_dir: &Path,
        served: &Path,
        key: &str,
        keep_as: &str,
    ) -> anyhow::Result<()> {
        exchange(new_dir, served)?;
        let previous = self.models_dir.join(VERSIONS_DIR).join(key).join(keep_as);
        let _ = std::fs::remove_dir_all(&previous);
        if new_dir.exists() {
            let _ = std::fs::rename(new_dir, &previous);
        }
        Ok(())
    }
}

/// Copies what a model folder holds beside the CRF (`serving.json`, `bilstm-crf/`) from
/// `served` into `new` where `new` lacks it (hard links where the file system allows).
fn carry_over(served: &Path, new: &Path) -> anyhow::Result<()> {
    let link = |from: &Path, to: &Path| -> anyhow::Result<()> {
        if std::fs::hard_link(from, to).is_err() {
            std::fs::copy(from, to)
                .with_context(|| format!("copying {} to {}", from.display(), to.display()))?;
        }
        Ok(())
    };
    let declaration = served.join(quire::tagger::SERVING_FILE);
    let target = new.join(quire::tagger::SERVING_FILE);
    if declaration.is_file() && !target.exists() {
        link(&declaration, &target)?;
    }
    let deep = served.join(quire::deep::DIR);
    let target = new.join(quire::deep::DIR);
    if deep.is_dir() && !target.exists() {
        std::fs::create_dir_all(&target)?;
        for entry in std::fs::read_dir(&deep)? {
            let entry = entry?;
            if entry.file_type()?.is_file() {
                link(&entry.path(), &target.join(entry.file_name()))?;
            }
        }
    }
    Ok(())
}

/// Puts `new` at `served` in one step; what was served ends up at `new`'s path.
fn exchange(new: &Path, served: &Path) -> anyhow::Result<()> {
    if !served.exists() {
        std::fs::rename(new, served)
            .with_context(|| format!("moving {} to {}", new.display(), served.display()))?;
        return Ok(());
    }
    let c = |p: &Path| std::ffi::CString::new(p.as_os_str().as_encoded_bytes());
    let (a, b) = (c(new)?, c(served)?);
    // SAFETY: two NUL-terminated paths; renameat2 only reads them.
    let rc = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if rc != 0 {
        return Err(std::io::Error::last_os_error())
            .with_context(|| format!("exchanging {} and {}", new.display(), served.display()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancel_is_honoured_before_the_install_and_refused_during_it() {
        // Cancelled first: the run may not go on to install.
        let mut c = ChildCtl::default();
        assert!(c.cancel());
        assert!(!c.finish(true));
        // Installing first: the cancel is refused and the install goes on.
        let mut c = ChildCtl::default();
        assert!(c.finish(true));
        assert!(!c.cancel());
        assert!(!c.cancelled);
        // A run that wrote nothing can still be cancelled after its child has finished.
        let mut c = ChildCtl::default();
        assert!(c.finish(false));
        assert!(c.cancel());
    }
    use quire::crf::Progress;

    #[test]
    fn progress_objects_carry_iteration_loss_error_rate_and_time_left() {
        let mut r = ProgressReporter {
            started: Instant::now(),
            fold_started: Instant::now(),
            last_iteration: None,
            max_iter: 100,
        };
        let started = r
            .value(&Event::TrainingStarted {
                fold: 1,
                folds: 2,
                sequences: 10,
                tokens: 50,
            })
            .expect("shown");
        assert_eq!(started["phase"], "training");
        assert_eq!(started["folds"], 2);
        let iteration = |i: usize| Event::Iteration {
            fold: 1,
            folds: 2,
            progress: Progress {
                iteration: i,
                loss: 12.5,
                elapsed_s: 0.1,
                active_features: 7,
                train_error: 3.25,
            },
        };
        std::thread::sleep(std::time::Duration::from_millis(5));
        let v = r.value(&iteration(10)).expect("first iteration shown");
        assert_eq!(v["iteration"], 10);
        assert_eq!(v["max_iter"], 100);
        assert_eq!(v["loss"], 12.5);
        assert_eq!(v["error_rate"], 3.25);
        let left = v["estimated_remaining_s"].as_f64().expect("number");
        let per_iter = v["elapsed_s"].as_f64().expect("number") / 10.0;
        // 90 iterations left in this fold and 100 in the next, at the measured pace.
        assert!(left > 0.0 && left <= 190.0 * per_iter * 1.5 + 0.01, "{v}");
        // The next iteration right after is not shown (throttled); other events always are.
        assert!(r.value(&iteration(11)).is_none());
        let done = r
            .value(&Event::Evaluated {
                fold: 1,
                folds: 2,
                field_micro_f1: 91.5,
            })
            .expect("shown");
        assert_eq!(done["field_micro_f1"], 91.5);
    }

    #[test]
    fn model_names_resolve_with_and_without_flavour() {
        assert_eq!(resolve_model("date"), Some((ModelName::Date, None)));
        assert_eq!(
            resolve_model("Affiliation"),
            Some((ModelName::AffiliationAddress, None))
        );
        assert_eq!(
            resolve_model("header/article/light"),
            Some((ModelName::Header, Some(Flavor::ArticleLight)))
        );
        assert_eq!(
            resolve_model("header-article-light"),
            Some((ModelName::Header, Some(Flavor::ArticleLight)))
        );
        assert_eq!(resolve_model("nonsense"), None);
    }

    #[test]
    fn exchange_swaps_two_folders_in_one_step() {
        let d = tempfile::tempdir().expect("tempdir");
        let (a, b) = (d.path().join("new"), d.path().join("served"));
        std::fs::create_dir_all(&a).expect("mkdir");
        std::fs::create_dir_all(&b).expect("mkdir");
        std::fs::write(a.join("v"), "2").expect("write");
        std::fs::write(b.join("v"), "1").expect("write");
        exchange(&a, &b).expect("exchange");
        assert_eq!(std::fs::read_to_string(b.join("v")).expect("read"), "2");
        assert_eq!(std::fs::read_to_string(a.join("v")).expect("read"), "1");
        let c = d.path().join("absent");
        exchange(&a, &c).expect("plain move");
        assert!(!a.exists());
        assert_eq!(std::fs::read_to_string(c.join("v")).expect("read"), "1");
    }
}
