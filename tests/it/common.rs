//! The test harness: [`Server`] runs `quire serve` from `CARGO_BIN_EXE_quire` in a temporary
//! directory with a generated config, waits until its start-up is over (`/api/health`'s `init`
//! has left `loading`), and kills it on drop. The default models directory is empty, so such a
//! server is up but not alive (`/api/isalive` 503); [`ServerBuilder::with_model`] copies a
//! committed model in for tests that need an alive or ready server.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use reqwest::blocking::multipart::{Form, Part};
use reqwest::blocking::Client;

/// Builds a server configuration section by section.
pub struct ServerBuilder {
    sections: BTreeMap<String, Vec<String>>,
    args: Vec<String>,
    env: Vec<(String, String)>,
    wait_started: bool,
    cwd: Option<PathBuf>,
    dir: tempfile::TempDir,
}

pub struct Server {
    child: Child,
    pub port: u16,
    pub admin_port: u16,
    /// Kept so the temporary directory lives as long as the server.
    _dir: tempfile::TempDir,
    log: PathBuf,
    pub client: Client,
}

/// The port of `key=HOST:PORT` in the server's `listening api=… admin=…` line.
fn port_of(line: &str, key: &str) -> Option<u16> {
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(key)?.strip_prefix('='))
        .and_then(|addr| addr.rsplit(':').next())
        .and_then(|p| p.parse().ok())
}

/// Reads the server's stdout on a thread: the first `listening` line's two ports go to the
/// returned channel, the rest is drained so the server never blocks on a full pipe.
fn watch_stdout(child: &mut Child) -> mpsc::Receiver<(u16, u16)> {
    let (tx, rx) = mpsc::channel();
    let stdout = child.stdout.take().expect("piped stdout");
    std::thread::spawn(move || {
        let mut sent = false;
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if !sent && line.starts_with("listening ") {
                if let (Some(api), Some(admin)) = (port_of(&line, "api"), port_of(&line, "admin")) {
                    let _ = tx.send((api, admin));
                    sent = true;
                }
            }
        }
    });
    rx
}

// Gated tests. Each test that needs a model, libpdfium or `../shared` asks for it here before
// testing anything: when it is missing the test reports `SKIPPED: <test> needs <what>` (shown by
// `cargo test`, counted by `.ci/cargo-test`) and returns, and under `CI=true` it fails instead
// (`quire::testutil::gate`). Never return early from a test on a missing resource otherwise.
pub use quire::testutil::gate::require_shared;

/// Whether every model of `needed` is trained under the repository's `models/` (else the test
/// is skipped, or fails under `CI=true`).
pub fn models_present(needed: &[&str]) -> bool {
    quire::testutil::gate::require_models(needed)
}

/// libpdfium (`$QUIRE_PDFIUM_LIB`, else the vendored one), or `None` when the test is skipped
/// (under `CI=true` it fails instead).
pub fn pdfium_lib() -> Option<PathBuf> {
    let pdfium = std::env::var_os("QUIRE_PDFIUM_LIB")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("vendor/pdfium/libpdfium.so"));
    let present = pdfium.is_file().then(|| pdfium.clone());
    quire::testutil::gate::require(present, || {
        format!("libpdfium at {} (make pdfium)", pdfium.display())
    })
}

/// The texts between `open` and the next `close`, in order (no nesting).
pub fn all_between(xml: &str, open: &str, close: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = xml;
    while let Some(a) = rest.find(open) {
        let from = a + open.len();
        let Some(b) = rest[from..].find(close) else {
            break;
        };
        out.push(rest[from..from + b].to_string());
        rest = &rest[from + b..];
    }
    out
}

/// The binary under test: `CARGO_BIN_EXE_quire`, or `$QUIRE_IT_BINARY` (to run the tests against
/// another build, e.g. to check that a test fails without its fix).
pub fn quire_binary() -> PathBuf {
    std::env::var_os("QUIRE_IT_BINARY")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_quire")))
}

/// The repository root (the web crate's parent).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from(".."))
}

impl ServerBuilder {
    /// Sets `key = value` (given as one line) in `[section]`, replacing an earlier value.
    pub fn set(mut self, section: &str, line: &str) -> Self {
        let key = line.split('=').next().unwrap_or("").trim().to_string();
        let lines = self.sections.entry(section.to_string()).or_default();
        lines.retain(|l| l.split('=').next().unwrap_or("").trim() != key);
        lines.push(line.to_string());
        self
    }

    pub fn test_routes(self) -> Self {
        self.set("debug", "test_routes = true")
    }

    pub fn arg(mut self, arg: &str) -> Self {
        self.args.push(arg.to_string());
        self
    }

    pub fn env(mut self, key: &str, value: &str) -> Self {
        self.env.push((key.to_string(), value.to_string()));
        self
    }

    /// Don't wait for start-up (model preloading) to finish, only for the server to answer.
    pub fn no_wait_alive(mut self) -> Self {
        self.wait_started = false;
        self
    }

    /// Runs the server in `dir` instead of the temporary directory holding its config.
    pub fn cwd(mut self, dir: &Path) -> Self {
        self.cwd = Some(dir.to_path_buf());
        self
    }

    /// Copies the committed model `models/<name>` of the repository into the server's models
    /// directory (so that the server has a usable model: alive and, with libpdfium, ready).
    pub fn with_model(self, name: &str) -> Self {
        let from = repo_root().join("models").join(name);
        let to = self.dir.path().join("models").join(name);
        copy_dir(&from, &to);
        self
    }

    /// Serves the repository's committed `models/` folder.
    /// libpdfium at `lib`.
    pub fn pdfium(self, lib: &Path) -> Self {
        self.set(
            "models",
            &format!("pdfium_lib = {:?}", lib.display().to_string()),
        )
    }

    /// The embedded consolidation index in `dir`.
    pub fn consolidation_index(self, dir: &Path) -> Self {
        self.set(
            "consolidation",
            &format!("index_dir = {:?}", dir.display().to_string()),
        )
    }

    pub fn repo_models(self) -> Self {
        let models = repo_root().join("models");
        self.set(
            "models",
            &format!("dir = {:?}", models.display().to_string()),
        )
    }

    /// The temporary directory the server runs in (`models/` lives there).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    fn config_text(&self) -> String {
        let mut out = String::new();
        for (section, lines) in &self.sections {
            out.push_str(&format!("[{section}]\n"));
            for l in lines {
                out.push_str(l);
                out.push('\n');
            }
        }
        out
    }

    /// Writes the config and runs the binary on ports the system picks (`--port 0`: no race
    /// with other servers between choosing a port and binding it); returns the child and the
    /// log path.
    fn spawn(&self) -> (Child, PathBuf) {
        let config = self.dir.path().join("config.toml");
        std::fs::write(&config, self.config_text()).expect("write config");
        let log = self.dir.path().join("server.log");
        let log_file = std::fs::File::create(&log).expect("log file");
        let mut cmd = Command::new(quire_binary());
        cmd.arg("serve")
            .arg("--config")
            .arg(&config)
            .arg("--port")
            .arg("0")
            .arg("--admin-port")
            .arg("0")
            .args(&self.args)
            .current_dir(self.cwd.as_deref().unwrap_or(self.dir.path()))
            .stdout(Stdio::piped())
            .stderr(log_file);
        for (k, _) in std::env::vars() {
            if k.starts_with("QUIRE_") && k != "QUIRE_DATASET" {
                cmd.env_remove(k);
            }
        }
        cmd.env_remove("RUST_LOG");
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        (cmd.spawn().expect("start quire"), log)
    }

    /// Runs the binary expecting it to exit; returns (success, stderr).
    pub fn run_to_exit(self) -> (bool, String) {
        let (mut child, log) = self.spawn();
        drop(watch_stdout(&mut child));
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(Some(status)) = child.try_wait() {
                let text = std::fs::read_to_string(&log).unwrap_or_default();
                return (status.success(), text);
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "quire did not exit; log:\n{}",
                    std::fs::read_to_string(&log).unwrap_or_default()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn start(self) -> Server {
        let (mut child, log) = self.spawn();
        let ports = watch_stdout(&mut child);
        let (port, admin_port) = match ports.recv_timeout(Duration::from_secs(30)) {
            Ok(p) => p,
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "quire did not report its ports; log:\n{}",
                    std::fs::read_to_string(&log).unwrap_or_default()
                );
            }
        };
        let client = quire_actors::http_client()
            .timeout(Duration::from_secs(60))
            .build()
            .expect("http client");
        let server = Server {
            child,
            port,
            admin_port,
            _dir: self.dir,
            log,
            client,
        };
        server.wait_until_up(self.wait_started);
        server
    }
}

impl Server {
    /// A server with an empty models directory, the vendored libpdfium (or a stand-in file when
    /// it is not installed) and the given extra settings.
    pub fn builder() -> ServerBuilder {
        let dir = tempfile::tempdir().expect("temp dir");
        let models = dir.path().join("models");
        std::fs::create_dir_all(&models).expect("models dir");
        let vendored = repo_root().join("vendor/pdfium/libpdfium.so");
        let pdfium = if vendored.is_file() {
            vendored
        } else {
            // Only the health check looks at it in these tests: it checks the file exists.
            let stand_in = dir.path().join("libpdfium.so");
            std::fs::write(&stand_in, b"stand-in").expect("stand-in lib");
            stand_in
        };
        ServerBuilder {
            sections: BTreeMap::new(),
            args: Vec::new(),
            env: Vec::new(),
            wait_started: true,
            cwd: None,
            dir,
        }
        .set("server", "host = \"127.0.0.1\"")
        .set("server", "workers = 2")
        .set(
            "models",
            &format!("dir = {:?}", models.display().to_string()),
        )
        .pdfium(&pdfium)
    }

    pub fn start() -> Server {
        Server::builder().start()
    }

    /// A server over the repository's trained models and libpdfium, or `None` (the test is
    /// skipped, or fails under `CI=true`) when one of `needed` or libpdfium is missing.
    pub fn with_models(needed: &[&str]) -> Option<Server> {
        if !models_present(needed) {
            return None;
        }
        let pdfium = pdfium_lib()?;
        Some(Server::builder().repo_models().pdfium(&pdfium).start())
    }

    /// POSTs `pdf` as the multipart `input` (plus `fields`) to `path`; answers (status,
    /// content type, body).
    pub fn post_pdf(
        &self,
        path: &str,
        pdf: Vec<u8>,
        fields: &[(&str, &str)],
        accept: Option<&str>,
    ) -> (u16, String, String) {
        let (status, ctype, body) = self.post_pdf_bytes(path, pdf, fields, accept);
        (status, ctype, String::from_utf8_lossy(&body).into_owned())
    }

    /// [`Server::post_pdf`] answering the body as bytes (a PDF, a ZIP).
    pub fn post_pdf_bytes(
        &self,
        path: &str,
        pdf: Vec<u8>,
        fields: &[(&str, &str)],
        accept: Option<&str>,
    ) -> (u16, String, Vec<u8>) {
        let mut form = Form::new().part(
            "input",
            Part::bytes(pdf)
                .file_name("doc.pdf")
                .mime_str("application/pdf")
                .expect("mime"),
        );
        for (k, v) in fields {
            form = form.text(k.to_string(), v.to_string());
        }
        let mut req = self.client.post(self.url(path)).multipart(form);
        if let Some(a) = accept {
            req = req.header("Accept", a);
        }
        let res = req.send().expect("POST a PDF");
        let status = res.status().as_u16();
        let ctype = res
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        (
            status,
            ctype,
            res.bytes().map(|b| b.to_vec()).unwrap_or_default(),
        )
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Kills the server with SIGKILL (no clean-up of its own) and reaps it.
    pub fn kill_hard(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    pub fn admin_url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.admin_port)
    }

    pub fn get(&self, path: &str) -> reqwest::blocking::Response {
        self.client.get(self.url(path)).send().expect("GET")
    }

    pub fn admin_get(&self, path: &str) -> reqwest::blocking::Response {
        self.client
            .get(self.admin_url(path))
            .send()
            .expect("admin GET")
    }

    /// POST a form.
    pub fn post_form(&self, path: &str, form: &[(&str, &str)]) -> reqwest::blocking::Response {
        self.client
            .post(self.url(path))
            .form(form)
            .send()
            .expect("POST")
    }

    pub fn log(&self) -> String {
        let mut s = String::new();
        if let Ok(mut f) = std::fs::File::open(&self.log) {
            let _ = f.read_to_string(&mut s);
        }
        s
    }

    /// Waits until the server answers and, with `started`, until its start-up is over
    /// (`/api/health`'s `init` is no longer `loading`: `ready` or `failed`).
    fn wait_until_up(&self, started: bool) {
        let deadline = Instant::now() + Duration::from_secs(30);
        let probe = quire_actors::http_client()
            .timeout(Duration::from_secs(2))
            .build()
            .expect("probe client");
        while Instant::now() < deadline {
            if let Ok(res) = probe.get(self.url("/api/health")).send() {
                if !started {
                    return;
                }
                let health: serde_json::Value = res.json().unwrap_or_default();
                if health["init"].is_string() && health["init"] != "loading" {
                    return;
                }
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("quire did not come up; log:\n{}", self.log());
    }

    /// Current value of a Prometheus sample (the first line starting with `prefix`).
    pub fn prometheus_value(&self, prefix: &str) -> Option<f64> {
        let text = self.admin_get("/metrics/prometheus").text().ok()?;
        text.lines()
            .find(|l| l.starts_with(prefix))
            .and_then(|l| l.rsplit(' ').next())
            .and_then(|v| v.parse().ok())
    }
}

/// Copies a folder's files (recursively).
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create model dir");
    let entries =
        std::fs::read_dir(from).unwrap_or_else(|e| panic!("cannot read {}: {e}", from.display()));
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            copy_dir(&path, &to.join(entry.file_name()));
        } else {
            std::fs::copy(&path, to.join(entry.file_name()))
                .unwrap_or_else(|e| panic!("cannot copy {}: {e}", path.display()));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
