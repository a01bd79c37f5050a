//! Faults found when the service was attacked as a hostile user would (issue 19), each
//! reproduced over the real binary: dead, stopped and orphaned layout workers, worker
//! privileges and recycling, unbounded raw-string requests, trickling bodies, an empty upload
//! and the Prometheus names. See docs/operations.md, "Hardening".

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use quire::testutil::PdfBuilder;
use reqwest::blocking::multipart::{Form, Part};

use crate::common::{pdfium_lib, Server, ServerBuilder};

fn pdf() -> Vec<u8> {
    PdfBuilder::new()
        .page(612.0, 792.0)
        .text(72.0, 700.0, "Helvetica", 12.0, "Hello hardened quire")
        .build()
}

fn post_pdf(s: &Server, bytes: Vec<u8>) -> (u16, String) {
    let form = Form::new().part("input", Part::bytes(bytes).file_name("paper.pdf"));
    let res = s
        .client
        .post(s.url("/debug/layout"))
        .multipart(form)
        .send()
        .expect("POST");
    (res.status().as_u16(), res.text().unwrap_or_default())
}

/// A server with one layout worker and the debug routes, or `None` without libpdfium.
fn pdf_server(extra: impl FnOnce(ServerBuilder) -> ServerBuilder) -> Option<Server> {
    pdfium_lib()?;
    Some(
        extra(
            Server::builder()
                .with_model("date")
                .test_routes()
                .set("pool", "pdf_workers = 1"),
        )
        .start(),
    )
}

/// State letter of `/proc/PID/stat` (`None`: no such process).
fn proc_state(pid: u32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().next().map(str::to_string)
}

/// Running, sleeping or stopped: not gone and not a zombie.
fn alive(pid: u32) -> bool {
    proc_state(pid).is_some_and(|s| s != "Z" && s != "X")
}

/// The living `quire worker` children of `server`.
pub fn workers_of(server: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            continue;
        };
        let ppid = rest.split_whitespace().nth(1).and_then(|p| p.parse().ok());
        if ppid != Some(server) || !alive(pid) {
            continue;
        }
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        if cmdline.split(|b| *b == 0).any(|arg| arg == b"worker") {
            out.push(pid);
        }
    }
    out
}

fn the_worker(s: &Server) -> u32 {
    let w = workers_of(s.pid());
    assert_eq!(w.len(), 1, "one worker expected: {w:?}");
    w[0]
}

fn signal(pid: u32, sig: libc::c_int) {
    // SAFETY: plain kill(2) on a process this test started (through the server).
    assert_eq!(
        unsafe { libc::kill(pid as libc::pid_t, sig) },
        0,
        "kill {pid}"
    );
}

/// Polls `done` until it holds or `limit` passes; answers whether it held.
fn wait_for(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    done()
}

/// What `c` receives until `marker` shows up, the connection closes, or 15 s pass.
fn read_until(c: &mut TcpStream, marker: &str) -> String {
    c.set_read_timeout(Some(Duration::from_secs(15)))
        .expect("read timeout");
    let mut got = Vec::new();
    let mut buf = [0u8; 1024];
    while let Ok(n) = c.read(&mut buf) {
        if n == 0 {
            break;
        }
        got.extend_from_slice(&buf[..n]);
        if got.windows(marker.len()).any(|w| w == marker.as_bytes()) {
            break;
        }
    }
    String::from_utf8_lossy(&got).into_owned()
}

#[test]
fn fault1_an_idle_worker_killed_by_sigkill_does_not_fail_the_next_pdf() {
    let Some(s) = pdf_server(|b| b) else { return };
    let (status, body) = post_pdf(&s, pdf());
    assert_eq!(status, 200, "{body}\n{}", s.log());
    let first = the_worker(&s);
    // As the kernel's OOM killer would.
    signal(first, libc::SIGKILL);
    assert!(wait_for(Duration::from_secs(10), || !alive(first)));
    let (status, body) = post_pdf(&s, pdf());
    assert_eq!(status, 200, "{body}\n{}", s.log());
    assert_ne!(the_worker(&s), first, "the dead worker was replaced");
    assert_eq!(
        s.prometheus_value("quire_pdf_workers_lost_total "),
        Some(1.0)
    );
}

#[test]
fn fault1_an_idle_worker_stopped_by_sigstop_does_not_hold_the_next_pdf() {
    // With the old behaviour the next PDF waits for the whole job deadline and gets TIMEOUT.
    let Some(s) = pdf_server(|b| b.set("limits", "pdf_timeout_s = 30")) else {
        return;
    };
    let (status, body) = post_pdf(&s, pdf());
    assert_eq!(status, 200, "{body}\n{}", s.log());
    let first = the_worker(&s);
    signal(first, libc::SIGSTOP);
    let (status, body) = post_pdf(&s, pdf());
    assert_eq!(status, 200, "{body}\n{}", s.log());
    assert!(
        wait_for(Duration::from_secs(10), || !alive(first)),
        "the stopped worker was ended"
    );
    assert_ne!(the_worker(&s), first);
}

#[test]
fn fault5_a_worker_dies_with_a_killed_server_mid_job() {
    let Some(mut s) = pdf_server(|b| b.env("QUIRE_WORKER_DELAY_MS", "60000")) else {
        return;
    };
    // A 4 MB job: once the worker has read that much, it is in its (60 s) job.
    let mut big = b"%PDF-1.4\n".to_vec();
    big.resize(4 << 20, b' ');
    let url = s.url("/debug/layout");
    let client = s.client.clone();
    let job_bytes = big.len() as u64;
    std::thread::spawn(move || {
        let form = Form::new().part("input", Part::bytes(big).file_name("big.pdf"));
        let _ = client.post(url).multipart(form).send();
    });
    let server = s.pid();
    let mut worker = None;
    let busy = wait_for(Duration::from_secs(20), || {
        worker = workers_of(server).first().copied();
        let read = worker
            .and_then(|w| std::fs::read_to_string(format!("/proc/{w}/io")).ok())
            .and_then(|io| {
                io.lines()
                    .find_map(|l| l.strip_prefix("rchar: "))
                    .and_then(|v| v.trim().parse::<u64>().ok())
            })
            .unwrap_or(0);
        read >= job_bytes
    });
    let worker = worker.expect("a worker started for the job");
    assert!(busy, "worker {worker} never read its job\n{}", s.log());
    s.kill_hard();
    let gone = wait_for(Duration::from_secs(10), || !alive(worker));
    if !gone {
        signal(worker, libc::SIGKILL);
    }
    assert!(gone, "worker {worker} outlived its server");
}

#[test]
fn fault5_a_worker_has_no_privileges_and_a_cpu_limit() {
    let Some(s) = pdf_server(|b| b) else { return };
    let (status, body) = post_pdf(&s, pdf());
    assert_eq!(status, 200, "{body}\n{}", s.log());
    let w = the_worker(&s);
    let status = std::fs::read_to_string(format!("/proc/{w}/status")).expect("status");
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .map(|v| v.trim().to_string())
            .unwrap_or_default()
    };
    assert_eq!(field("NoNewPrivs:"), "1", "{status}");
    assert_eq!(
        field("Seccomp:"),
        "2",
        "a seccomp filter is installed: {status}"
    );
    let limits = std::fs::read_to_string(format!("/proc/{w}/limits")).expect("limits");
    let cpu = limits
        .lines()
        .find(|l| l.starts_with("Max cpu time"))
        .expect("cpu line");
    let soft = cpu.split_whitespace().nth(3).unwrap_or("");
    assert!(soft.parse::<u64>().is_ok(), "a finite CPU limit: {cpu}");

    // What the worker can still do from inside: tests/it/sandbox.rs.
}

#[test]
fn fault5_a_worker_holding_memory_after_its_job_is_recycled() {
    // Every worker holds more than 1 MiB: each is ended after its job and the next job gets a
    // fresh one (counted as recycled, not lost).
    let Some(s) = pdf_server(|b| b.set("limits", "pdf_worker_recycle_mb = 1")) else {
        return;
    };
    for _ in 0..2 {
        let (status, body) = post_pdf(&s, pdf());
        assert_eq!(status, 200, "{body}\n{}", s.log());
    }
    assert!(workers_of(s.pid()).is_empty(), "no worker kept idle");
    assert_eq!(
        s.prometheus_value("quire_pdf_workers_recycled_total "),
        Some(2.0)
    );
    assert_eq!(
        s.prometheus_value("quire_pdf_workers_started_total "),
        Some(2.0)
    );
    assert_eq!(
        s.prometheus_value("quire_pdf_workers_lost_total "),
        Some(0.0)
    );
}

#[test]
fn fault2_raw_string_requests_are_bounded_with_errors_naming_the_limit() {
    let s = Server::builder()
        .set("limits", "max_strings = 3")
        .set("limits", "max_string_tokens = 40")
        .start();
    let citation = "Smith J. A study of things. Journal of Studies 12 (2001) 1-10.";
    let four: Vec<(&str, &str)> = (0..4).map(|_| ("citations", citation)).collect();
    let res = s.post_form("/api/processCitationList", &four);
    assert_eq!(res.status(), 413);
    let body = res.text().unwrap_or_default();
    assert!(body.starts_with("[PAYLOAD_TOO_LARGE] 4 strings"), "{body}");
    assert!(body.contains("limits.max_strings"), "{body}");

    let long = citation.repeat(5);
    for (path, field) in [
        ("/api/processCitation", "citations"),
        ("/api/processCitationList", "citations"),
        ("/api/processDate", "date"),
        ("/api/processHeaderNames", "names"),
        ("/api/processCitationNames", "names"),
        ("/api/processAffiliations", "affiliations"),
    ] {
        let res = s.post_form(path, &[(field, long.as_str())]);
        assert_eq!(res.status(), 413, "{path}");
        let body = res.text().unwrap_or_default();
        assert!(body.starts_with("[PAYLOAD_TOO_LARGE]"), "{path}: {body}");
        assert!(body.contains("limits.max_string_tokens"), "{path}: {body}");
        assert!(body.contains(&format!("`{field}`")), "{path}: {body}");
    }
}

#[test]
fn fault3_trickling_bodies_time_out_while_both_ports_answer() {
    let s = Server::builder()
        .with_model("date")
        .set("limits", "body_timeout_s = 1")
        .start();
    let head = "POST /api/processDate HTTP/1.1\r\nHost: 127.0.0.1\r\n\
                Content-Type: application/x-www-form-urlencoded\r\n\
                Content-Length: 100000\r\n\r\ndate=";
    let mut conns = Vec::new();
    let mut writers = Vec::new();
    for _ in 0..4 {
        let mut c = TcpStream::connect(("127.0.0.1", s.port)).expect("connect");
        c.write_all(head.as_bytes()).expect("head");
        let mut w = c.try_clone().expect("clone");
        // One byte every 100 ms, for at most 20 s or until the server closes the connection.
        writers.push(std::thread::spawn(move || {
            let end = Instant::now() + Duration::from_secs(20);
            while Instant::now() < end && w.write_all(b"1").is_ok() {
                std::thread::sleep(Duration::from_millis(100));
            }
        }));
        conns.push(c);
    }
    // While they trickle, both ports answer.
    assert_eq!(s.get("/api/isalive").status(), 200);
    assert_eq!(s.admin_get("/ping").status(), 200);
    for mut c in conns {
        let text = read_until(&mut c, "[REQUEST_TIMEOUT]");
        assert!(text.starts_with("HTTP/1.1 408"), "{text:?}");
        assert!(text.contains("limits.body_timeout_s"), "{text}");
    }
    for w in writers {
        let _ = w.join();
    }
    assert_eq!(s.get("/api/isalive").status(), 200);
}

#[test]
fn fault6_an_empty_upload_says_the_file_is_empty() {
    let s = Server::builder().test_routes().start();
    let (status, body) = post_pdf(&s, Vec::new());
    assert_eq!(status, 400, "{body}");
    assert!(body.starts_with("[INVALID_PARAMETER]"), "{body}");
    assert!(body.contains("is empty"), "{body}");
    // Missing altogether is still "missing".
    let res = s
        .client
        .post(s.url("/debug/layout"))
        .multipart(Form::new().text("start", "1"))
        .send()
        .expect("POST");
    assert_eq!(res.status(), 400);
    let body = res.text().unwrap_or_default();
    assert!(body.contains("missing parameter `input`"), "{body}");
}

#[test]
fn fault7_prometheus_counters_are_counters_with_total_names() {
    let s = Server::start();
    let text = s
        .admin_get("/metrics/prometheus")
        .text()
        .expect("prometheus text");
    for name in [
        "quire_pdf_workers_started_total",
        "quire_pdf_workers_lost_total",
        "quire_pdf_workers_recycled_total",
        "process_cpu_seconds_total",
    ] {
        assert!(
            text.contains(&format!("# TYPE {name} counter")),
            "{name}:\n{text}"
        );
    }
    assert!(!text.contains("quire_pdf_workers_started "), "{text}");
    let info = text
        .lines()
        .find(|l| l.starts_with("quire_build_info{"))
        .expect("build info");
    assert!(
        info.contains(&format!("version=\"{}\"", env!("CARGO_PKG_VERSION"))),
        "{info}"
    );
    assert!(info.ends_with(" 1"), "{info}");
}

#[test]
fn openapi_document_is_served_and_lists_the_routes() {
    let s = Server::start();
    let res = s.get("/api/openapi.json");
    assert_eq!(res.status(), 200);
    let doc: serde_json::Value = res.json().expect("json");
    assert_eq!(doc["openapi"], "3.0.3");
    for path in [
        "/api/processHeaderDocument",
        "/api/processCitationList",
        "/api/openapi.json",
        "/api/isalive",
    ] {
        assert!(doc["paths"][path].is_object(), "{path}");
    }
}

#[test]
fn fault6_expect_continue_with_a_huge_length_gets_413_without_sending_the_body() {
    // The expect step reads the declared length: 413 instead of `100 Continue`, at once,
    // without waiting for a body the client never sends.
    if !crate::common::models_present(&["date"]) {
        return;
    }
    let s = Server::builder().repo_models().start();
    let mut c = TcpStream::connect(("127.0.0.1", s.port)).expect("connect");
    c.write_all(
        b"POST /api/processHeaderDocument HTTP/1.1\r\nHost: 127.0.0.1\r\n\
          Content-Type: multipart/form-data; boundary=xyz\r\n\
          Content-Length: 209715200\r\nExpect: 100-continue\r\n\r\n",
    )
    .expect("head");
    let text = read_until(&mut c, "[PAYLOAD_TOO_LARGE]");
    assert!(text.starts_with("HTTP/1.1 413"), "{text:?}");
    assert!(!text.contains("100 Continue"), "{text:?}");
    let text = text + &read_until(&mut c, "max_upload_mb`");
    assert!(text.contains("limits.max_upload_mb"), "{text}");
    // Within the limit, the client is invited to send the body.
    let mut c = TcpStream::connect(("127.0.0.1", s.port)).expect("connect");
    c.write_all(
        b"POST /api/processDate HTTP/1.1\r\nHost: 127.0.0.1\r\n\
          Content-Type: application/x-www-form-urlencoded\r\n\
          Content-Length: 15\r\nExpect: 100-continue\r\n\r\n",
    )
    .expect("head");
    let text = read_until(&mut c, "100 Continue\r\n\r\n");
    assert!(text.starts_with("HTTP/1.1 100 Continue"), "{text:?}");
    c.write_all(b"date=2001-02-03").expect("body");
    let text = read_until(&mut c, "2001-02-03");
    assert!(text.starts_with("HTTP/1.1 200"), "{text:?}");
}

#[test]
fn fault6_errors_of_the_http_parser_have_coded_bodies() {
    let s = Server::builder().with_model("date").start();
    for (request, status, code) in [
        (
            b"GET / HTTP/1.1\r\nBad Header Line\r\n\r\n".to_vec(),
            "HTTP/1.1 400",
            "[BAD_REQUEST] the request is not well-formed HTTP/1.1",
        ),
        (
            [
                &b"GET /api/isalive HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: "[..],
                &vec![b'a'; 200_000],
                b"\r\n\r\n",
            ]
            .concat(),
            "HTTP/1.1 431",
            "[REQUEST_HEADER_FIELDS_TOO_LARGE] the request's header fields are too large",
        ),
    ] {
        let mut c = TcpStream::connect(("127.0.0.1", s.port)).expect("connect");
        // The server may close before reading all of an oversized head.
        let _ = c.write_all(&request);
        let text = read_until(&mut c, code);
        assert!(text.starts_with(status), "{text:?}");
        assert!(text.contains(code), "{text:?}");
        let body = text.split("\r\n\r\n").nth(1).unwrap_or("");
        let declared: usize = text
            .lines()
            .find_map(|l| l.strip_prefix("content-length: "))
            .and_then(|n| n.trim().parse().ok())
            .expect("content-length");
        assert_eq!(declared, body.len(), "{text:?}");
    }
    // And the server goes on answering.
    assert_eq!(s.get("/api/isalive").status().as_u16(), 200);
}
