//! The layout workers' sandbox (issue 40, fault 1), tried from inside: a real `quire worker`
//! confines itself exactly as the pool's workers do, then attempts each operation a compromised
//! pdfium could use to reach the host, and every attempt must fail. A running server's worker
//! is also inspected from outside (user, capabilities, filter, environment, session, network).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{pdfium_lib, quire_binary, repo_root, Server};

/// What the worker self-test must report as refused, one line each.
const FORBIDDEN: [&str; 22] = [
    "io_uring_setup",
    "openat O_CREAT|O_WRONLY (create a file)",
    "openat O_RDWR (an existing file)",
    "openat O_WRONLY|O_APPEND (an existing file)",
    "open_by_handle_at O_RDWR",
    "mount a tmpfs",
    "umount",
    "kill the parent (signal 0)",
    "kill pid 1 (signal 0)",
    "ptrace the parent",
    "unshare a mount namespace",
    "unshare a user namespace",
    "setns into pid 1's network namespace",
    "socket AF_INET",
    "socket AF_UNIX",
    "fchmod",
    "fchown",
    "fsetxattr",
    "fork",
    "setrlimit (lift the memory cap)",
    "read /etc/shadow",
    "execve /bin/true",
];

fn self_test(dir: &Path, secrets: &[PathBuf]) -> (bool, String, String) {
    let mut cmd = Command::new(quire_binary());
    cmd.arg("worker").arg("--self-test").arg(dir);
    for s in secrets {
        cmd.arg("--self-test-read").arg(s);
    }
    if let Some(lib) = pdfium_lib() {
        cmd.arg("--pdfium").arg(lib);
    }
    let out = cmd.output().expect("run quire worker --self-test");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn fault1_every_forbidden_operation_fails_inside_a_confined_worker() {
    let Some(_) = pdfium_lib() else { return };
    let dir = tempfile::tempdir().expect("temp dir");
    let config = repo_root().join("config.toml");
    let local_config = dir.path().join("config.toml");
    std::fs::write(&local_config, "[training]\ntoken = \"secret\"\n").expect("config");
    let secrets = vec![PathBuf::from("/etc/shadow"), config.clone(), local_config];
    let (ok, text, err) = self_test(dir.path(), &secrets);
    let refused = |what: &str| text.lines().any(|l| l == format!("{what}: refused"));
    let mut missing: Vec<String> = FORBIDDEN
        .iter()
        .filter(|w| !refused(w))
        .map(|w| w.to_string())
        .collect();
    for s in &secrets[1..] {
        let what = format!("read {}", s.display());
        if !refused(&what) {
            missing.push(what);
        }
    }
    assert!(
        missing.is_empty(),
        "not refused inside the worker: {missing:?}\nreport:\n{text}\nstderr:\n{err}"
    );
    assert!(ok, "{text}\n{err}");
    // What a worker needs still works under the same confinement.
    assert!(text.contains("pdfium loaded: true"), "{text}\n{err}");
    // Nothing was created or changed in the scratch folder.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .expect("dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n == "created-by-worker"), "{names:?}");
    assert_eq!(
        std::fs::read(dir.path().join("victim")).expect("victim"),
        b"unchanged"
    );
}

/// A field of `/proc/PID/status`.
fn status_field(pid: u32, name: &str) -> String {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    status
        .lines()
        .find_map(|l| l.strip_prefix(name))
        .map(|v| v.trim().to_string())
        .unwrap_or_default()
}

#[test]
fn fault1_a_servers_worker_is_unprivileged_and_holds_no_secrets() {
    let Some(_) = pdfium_lib() else { return };
    let mut s = Server::builder()
        .with_model("date")
        .test_routes()
        .set("pool", "pdf_workers = 1")
        .env("QUIRE_TRAINING_TOKEN", "do-not-leak")
        .start();
    let pdf = quire::testutil::PdfBuilder::new()
        .page(612.0, 792.0)
        .text(72.0, 700.0, "Helvetica", 12.0, "Hello sandboxed quire")
        .build();
    let form = reqwest::blocking::multipart::Form::new().part(
        "input",
        reqwest::blocking::multipart::Part::bytes(pdf).file_name("p.pdf"),
    );
    let res = s
        .client
        .post(s.url("/debug/layout"))
        .multipart(form)
        .send()
        .expect("POST");
    assert_eq!(res.status().as_u16(), 200, "{}", s.log());
    let server = s.pid();
    let worker = crate::hardening::workers_of(server)
        .into_iter()
        .next()
        .expect("a worker");
    let root = unsafe { libc::geteuid() } == 0;
    if root {
        let uid = status_field(worker, "Uid:");
        assert!(
            uid.split_whitespace().all(|u| u != "0"),
            "the worker switched users: {uid}"
        );
    }
    for caps in ["CapEff:", "CapPrm:", "CapInh:", "CapAmb:"] {
        assert_eq!(
            status_field(worker, caps),
            "0000000000000000",
            "{caps} of the worker"
        );
    }
    assert_eq!(status_field(worker, "NoNewPrivs:"), "1");
    assert_eq!(status_field(worker, "Seccomp:"), "2");
    let environ = std::fs::read(format!("/proc/{worker}/environ")).expect("environ");
    let environ = String::from_utf8_lossy(&environ);
    assert!(
        !environ.contains("QUIRE_TRAINING_TOKEN") && !environ.contains("do-not-leak"),
        "{environ}"
    );
    // Its own session and process group.
    let stat = std::fs::read_to_string(format!("/proc/{worker}/stat")).expect("stat");
    let rest: Vec<&str> = stat[stat.rfind(')').expect(")") + 1..]
        .split_whitespace()
        .collect();
    assert_eq!(rest[2], worker.to_string(), "process group: {stat}");
    assert_eq!(rest[3], worker.to_string(), "session: {stat}");
    if root {
        let ns = |pid: u32, kind: &str| std::fs::read_link(format!("/proc/{pid}/ns/{kind}")).ok();
        for kind in ["net", "mnt"] {
            assert_ne!(
                ns(worker, kind),
                ns(server, kind),
                "the worker has its own {kind} namespace"
            );
        }
    }
    s.kill_hard();
}
