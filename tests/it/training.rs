//! The training services over HTTP (`/api/modelTraining`, `/api/trainingResult`,
//! `/api/training`, `/api/model`): every status of the interface's table, the 409 rule, two
//! models at once, cancel, a killed training process, a live swap under load, the model ZIP.
//! Trainings run on tiny corpora written here (GROBID's folder layout), so they take well under
//! a second; runs started with `hold=1` wait for `/debug/releaseTraining`, so tests observe an
//! ongoing training without racing it.

use std::io::Read as _;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{Server, ServerBuilder};

const DATES: &[(&str, &str, &str)] = &[
    ("5", "March", "2019"),
    ("12", "November", "2006"),
    ("1", "June", "1992"),
    ("30", "April", "2011"),
    ("17", "July", "2015"),
    ("8", "January", "2001"),
    ("22", "September", "1999"),
    ("3", "October", "2020"),
];

/// A tiny dataset: dates, and a few citations.
fn write_dataset(root: &Path) {
    let write = |sub: &str, xml: String| {
        let dir = root.join(sub);
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join("tiny.xml"), xml).expect("write");
    };
    let dates = |from: usize| {
        let items: String = DATES[from..]
            .iter()
            .map(|(d, m, y)| {
                format!(
                    "\t<date>Received <day>{d}</day> <month>{m}</month> <year>{y}</year></date>\n"
                )
            })
            .collect();
        format!("<dates>\n{items}</dates>")
    };
    write("date/corpus", dates(0));
    write("date/evaluation", dates(5));
    let bibls = [
        (
            "Smith, J.",
            "Deep parsing of references",
            "J. Doc. Eng.",
            "2019",
        ),
        (
            "Lee, K.",
            "Shallow parsing of citations",
            "Inf. Proc.",
            "2011",
        ),
        ("Brown, A.", "Parsing dates", "Lang. Res.", "2005"),
        ("Garcia, M.", "Tagging names", "Comput. Ling.", "1998"),
    ];
    let listbibl: String = bibls
        .iter()
        .map(|(a, t, j, y)| {
            format!(
                "<bibl><author>{a}</author> (<date>{y}</date>). <title level=\"a\">{t}</title>. <title level=\"j\">{j}</title></bibl>"
            )
        })
        .collect();
    write(
        "citation/corpus",
        format!("<listBibl>{listbibl}</listBibl>"),
    );
    write(
        "citation/evaluation",
        format!("<listBibl>{listbibl}</listBibl>"),
    );
}

struct Training {
    server: Server,
    /// The server's models folder.
    models: std::path::PathBuf,
    dataset: tempfile::TempDir,
}

/// A server with the training endpoints on, the test routes, the committed date model and a
/// tiny dataset.
fn training_server(more: impl FnOnce(ServerBuilder) -> ServerBuilder) -> Training {
    let dataset = tempfile::tempdir().expect("tempdir");
    write_dataset(dataset.path());
    let builder = Server::builder()
        .test_routes()
        .with_model("date")
        .with_model("lexicon")
        .set("training", "enabled = true")
        .set("training", &format!("token = {TEST_TOKEN:?}"))
        .set(
            "training",
            &format!("dataset = {:?}", dataset.path().display().to_string()),
        );
    let models = builder.dir().join("models");
    let mut server = more(builder).start();
    // Every request of these tests carries the token (one given explicitly wins).
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        reqwest::header::AUTHORIZATION,
        reqwest::header::HeaderValue::from_str(&format!("Bearer {TEST_TOKEN}")).expect("header"),
    );
    server.client = quire_actors::http_client()
        .timeout(std::time::Duration::from_secs(60))
        .default_headers(headers)
        .build()
        .expect("http client");
    Training {
        server,
        models,
        dataset,
    }
}

/// The training token of [`training_server`].
const TEST_TOKEN: &str = "test-training-token";

fn post(s: &Server, path: &str, form: &[(&str, &str)]) -> (u16, String) {
    let r = s.post_form(path, form);
    let status = r.status().as_u16();
    (status, r.text().unwrap_or_default())
}

fn json(body: &str) -> Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"))
}

/// Starts a training; answers its token.
fn start(s: &Server, form: &[(&str, &str)]) -> String {
    let (status, body) = post(s, "/api/modelTraining", form);
    assert_eq!(status, 200, "{body}");
    let token = json(&body)["token"].as_str().expect("token").to_string();
    assert_eq!(token.len(), 10, "{token}");
    token
}

fn result(s: &Server, token: &str) -> (u16, String) {
    post(s, "/api/trainingResult", &[("token", token)])
}

/// Polls `/api/trainingResult` until the run is no longer ongoing (a bounded wait for a
/// state change, not a timed expectation).
fn wait_finished(s: &Server, token: &str) -> (u16, String) {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let (status, body) = result(s, token);
        let ongoing = status == 200 && json(&body)["status"] == "ongoing";
        if !ongoing {
            return (status, body);
        }
        assert!(Instant::now() < deadline, "training {token} never finished");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The pid of a run's training process, once it has reported it.
fn training_pid(s: &Server, token: &str) -> i32 {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (status, body) = result(s, token);
        assert_eq!(status, 200, "{body}");
        if let Some(pid) = json(&body)["progress"]["pid"].as_i64() {
            return pid as i32;
        }
        assert!(Instant::now() < deadline, "no pid reported: {body}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits until no process has `pid` any more (it was killed and reaped).
fn wait_gone(pid: i32) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Path::new(&format!("/proc/{pid}")).exists() {
        assert!(Instant::now() < deadline, "process {pid} still exists");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn training_endpoints_are_off_by_default_and_need_the_configured_token() {
    let off = Server::start();
    for (path, form) in [
        ("/api/modelTraining", vec![("model", "date")]),
        ("/api/trainingResult", vec![("token", "abcdefghjk")]),
        ("/api/model", vec![("model", "date")]),
    ] {
        let (status, body) = post(&off, path, &form);
        assert_eq!(status, 404, "{path}: {body}");
        assert!(body.contains("training.enabled"), "{body}");
    }
    assert_eq!(off.get("/api/training").status().as_u16(), 404);

    let t = training_server(|b| b.set("training", "token = \"s3cret\""));
    let s = &t.server;
    let r = s.post_form("/api/modelTraining", &[("model", "date")]);
    assert_eq!(r.status().as_u16(), 401);
    assert_eq!(
        r.headers()
            .get("www-authenticate")
            .and_then(|v| v.to_str().ok()),
        Some("Bearer")
    );
    let with = |token: &str| {
        s.client
            .get(s.url("/api/training"))
            .header("Authorization", format!("Bearer {token}"))
            .send()
            .expect("GET")
            .status()
            .as_u16()
    };
    assert_eq!(with("wrong"), 401);
    assert_eq!(with("s3cret"), 200);
    // Serving needs no token.
    assert_eq!(s.get("/api/isalive").status().as_u16(), 200);
}

#[test]
fn bad_requests_are_refused_before_anything_starts() {
    let t = training_server(|b| b);
    let s = &t.server;
    for (form, names) in [
        (vec![], "`model`"),
        (
            vec![("model", "nosuchmodel")],
            "unknown model `nosuchmodel`",
        ),
        (
            vec![("model", "date"), ("architecture", "BiLSTM-CRF-ELMo")],
            "not available",
        ),
        (
            vec![("model", "date"), ("architecture", "perceptron")],
            "`architecture`",
        ),
        (vec![("model", "date"), ("type", "bogus")], "`type`"),
        (vec![("model", "date"), ("ratio", "1.5")], "`ratio`"),
        (vec![("model", "date"), ("ratio", "half")], "`ratio`"),
        (
            vec![("model", "date"), ("type", "nfold"), ("n", "1")],
            "`n`",
        ),
        (
            vec![("model", "citation"), ("incremental", "1")],
            "there is none here",
        ),
        (
            vec![
                ("model", "date"),
                ("incremental", "1"),
                ("architecture", "BiLSTM-CRF"),
            ],
            "there is none here",
        ),
        (
            vec![("model", "date"), ("incremental", "yes")],
            "`incremental`",
        ),
    ] {
        let (status, body) = post(s, "/api/modelTraining", &form);
        assert_eq!(status, 400, "{form:?}: {body}");
        assert!(body.contains(names), "{form:?}: {body}");
    }
    // Nothing was started.
    let list = json(&s.get("/api/training").text().expect("body"));
    assert_eq!(list, serde_json::json!([]));

    for (token, says) in [
        ("", "`token`"),
        ("../../etc", "not a training token"),
        ("abcdefghjk", "does not match any training"),
    ] {
        let (status, body) = result(s, token);
        assert_eq!(status, 400, "{token}: {body}");
        assert!(body.contains(says), "{token}: {body}");
    }
    let r = s
        .client
        .delete(s.url("/api/training/abcdefghjk"))
        .send()
        .expect("DELETE");
    assert_eq!(r.status().as_u16(), 400);

    // No training data on the server: 500 saying where it looked.
    let t = training_server(|b| b.set("training", "dataset = \"/nonexistent/quire-data\""));
    let (status, body) = post(&t.server, "/api/modelTraining", &[("model", "date")]);
    assert_eq!(status, 500, "{body}");
    // Named without where it is (the API port is public; the log has the whole path).
    assert!(body.contains("…/quire-data"), "{body}");
    assert!(!body.contains("/nonexistent"), "{body}");
}

#[test]
fn one_training_per_model_two_models_at_once_then_their_evaluations() {
    let t = training_server(|b| b);
    let s = &t.server;
    let date = start(s, &[("model", "date"), ("hold", "1"), ("ratio", "0.75")]);
    let (status, body) = result(s, &date);
    assert_eq!(status, 200, "{body}");
    assert_eq!(json(&body)["status"], "ongoing", "{body}");

    // The same model again: 409 naming the running token.
    let (status, body) = post(
        s,
        "/api/modelTraining",
        &[("model", "date"), ("type", "full")],
    );
    assert_eq!(status, 409, "{body}");
    assert!(body.contains(&date), "{body}");

    // Another model trains at the same time.
    let citation = start(
        s,
        &[("model", "citation"), ("hold", "1"), ("type", "holdout")],
    );
    let date_pid = training_pid(s, &date);
    let citation_pid = training_pid(s, &citation);
    assert_ne!(date_pid, citation_pid);
    assert!(Path::new(&format!("/proc/{date_pid}")).exists());
    assert!(Path::new(&format!("/proc/{citation_pid}")).exists());
    let list = json(&s.get("/api/training").text().expect("body"));
    let ongoing: Vec<&str> = list
        .as_array()
        .expect("array")
        .iter()
        .filter(|r| r["status"] == "ongoing")
        .filter_map(|r| r["model"].as_str())
        .collect();
    assert_eq!(ongoing.len(), 2, "{list}");
    assert!(ongoing.contains(&"date") && ongoing.contains(&"citation"));

    for token in [&date, &citation] {
        let (status, body) = post(s, "/debug/releaseTraining", &[("token", token)]);
        assert_eq!(status, 200, "{body}");
    }
    let (status, body) = wait_finished(s, &date);
    assert_eq!(status, 200, "{body}");
    let done = json(&body);
    assert_eq!(done["status"], "done", "{body}");
    assert_eq!(done["type"], "split");
    assert_eq!(done["train_sequences"], 6);
    assert_eq!(done["eval_sequences"], 2);
    let field = &done["evaluation"]["field_level"];
    for key in ["micro", "macro"] {
        assert!(field[key]["f1"].is_number(), "{body}");
    }
    assert!(field["labels"]["<year>"]["precision"].is_number(), "{body}");
    assert!(done["evaluation"]["token_level"]["micro"]["recall"].is_number());
    let report = done["report"].as_str().expect("report");
    assert!(
        report.contains("===== Field-level results ====="),
        "{report}"
    );
    assert!(report.contains("all (micro avg.)"), "{report}");
    // A split run writes nothing: the served model is the same version.
    let health = json(&s.get("/api/health").text().expect("body"));
    assert_eq!(health["models"]["date"]["version"], 1, "{health}");

    let (status, body) = wait_finished(s, &citation);
    assert_eq!(status, 200, "{body}");
    assert_eq!(json(&body)["type"], "holdout", "{body}");
    assert!(json(&body)["model_version"].is_number(), "{body}");

    // The model is free again.
    let again = start(s, &[("model", "date"), ("type", "nfold"), ("n", "2")]);
    let (status, body) = wait_finished(s, &again);
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        json(&body)["fold_field_f1"].as_array().map(Vec::len),
        Some(2)
    );
}

#[test]
fn a_cancelled_training_stops_its_process_and_changes_nothing() {
    let t = training_server(|b| b);
    let s = &t.server;
    let before = std::fs::read(t.models.clone().join("date/model.crf")).expect("model");
    let token = start(s, &[("model", "date"), ("type", "full"), ("hold", "1")]);
    let pid = training_pid(s, &token);
    let r = s
        .client
        .delete(s.url(&format!("/api/training/{token}")))
        .send()
        .expect("DELETE");
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(json(&r.text().expect("body"))["status"], "cancelled");
    wait_gone(pid);
    let (status, body) = result(s, &token);
    assert_eq!(
        (status, json(&body)["status"].clone()),
        (200, "cancelled".into())
    );
    // Released after the cancel: nothing left to release, nothing written.
    let (status, _) = post(s, "/debug/releaseTraining", &[("token", &token)]);
    assert_eq!(status, 400);
    assert_eq!(
        std::fs::read(t.models.clone().join("date/model.crf")).expect("model"),
        before
    );
    let health = json(&s.get("/api/health").text().expect("body"));
    assert_eq!(health["models"]["date"]["version"], 1, "{health}");
}

#[test]
fn a_killed_training_process_fails_its_token_and_serving_goes_on() {
    let t = training_server(|b| b);
    let s = &t.server;
    let token = start(s, &[("model", "date"), ("type", "full"), ("hold", "1")]);
    let pid = training_pid(s, &token);
    // SAFETY: kill(2) on the training process this test's server started.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0);
    let (status, body) = wait_finished(s, &token);
    assert_eq!(status, 500, "{body}");
    assert!(body.contains("killed by signal 9"), "{body}");
    let list = json(&s.get("/api/training").text().expect("body"));
    assert_eq!(list[0]["status"], "failed", "{list}");
    // Serving is untouched: the date model answers, still version 1.
    let (status, body) = post(s, "/api/processDate", &[("date", "5 March 2019")]);
    assert_eq!(status, 200, "{body}");
    let health = json(&s.get("/api/health").text().expect("body"));
    assert_eq!(health["models"]["date"]["version"], 1, "{health}");
}

#[test]
fn a_full_training_swaps_the_served_model_while_requests_run() {
    let t = training_server(|b| b);
    let s = &t.server;
    let probe = "Received 17 July 2015";
    let (status, old) = post(s, "/api/processDate", &[("date", probe)]);
    assert_eq!(status, 200, "{old}");
    // The corrected corpus leaves days unlabelled: the new model gives month and year only.
    let items: String = DATES
        .iter()
        .map(|(d, m, y)| {
            format!("\t<date>Received {d} <month>{m}</month> <year>{y}</year></date>\n")
        })
        .collect();
    for part in ["corpus", "evaluation"] {
        let file = t.dataset.path().join("date").join(part).join("tiny.xml");
        std::fs::write(file, format!("<dates>\n{items}</dates>")).expect("write");
    }

    // Three clients post the same date until the new model's answer is known and each of
    // them has received it.
    let stop = Arc::new(AtomicBool::new(false));
    let new_answer: Arc<std::sync::Mutex<Option<String>>> = Arc::default();
    let workers: Vec<_> = (0..3)
        .map(|_| {
            let url = s.url("/api/processDate");
            let (stop, new_answer) = (stop.clone(), new_answer.clone());
            let client = s.client.clone();
            std::thread::spawn(move || {
                let mut answers: Vec<(u16, String)> = Vec::new();
                let deadline = Instant::now() + Duration::from_secs(120);
                loop {
                    let last_is_new = answers.last().is_some_and(|(_, b)| {
                        new_answer.lock().expect("lock").as_deref() == Some(b.as_str())
                    });
                    if (stop.load(Ordering::SeqCst) && last_is_new) || Instant::now() > deadline {
                        break;
                    }
                    let r = client
                        .post(&url)
                        .form(&[("date", probe)])
                        .send()
                        .expect("request");
                    answers.push((r.status().as_u16(), r.text().unwrap_or_default()));
                }
                answers
            })
        })
        .collect();
    let token = start(s, &[("model", "date"), ("type", "full")]);
    let (status, body) = wait_finished(s, &token);
    assert_eq!(status, 200, "{body}");
    let done = json(&body);
    assert_eq!(done["model_version"], 2, "{body}");
    assert!(done["evaluation"].is_null());
    let (status, new) = post(s, "/api/processDate", &[("date", probe)]);
    assert_eq!(status, 200, "{new}");
    *new_answer.lock().expect("lock") = Some(new.clone());
    stop.store(true, Ordering::SeqCst);
    let mut total = 0;
    for w in workers {
        let answers = w.join().expect("worker");
        let mut switched = false;
        for (status, body) in &answers {
            total += 1;
            assert_eq!(*status, 200, "{body}");
            if *body == new {
                switched = true;
            } else {
                assert_eq!(*body, old, "an answer from neither model");
                assert!(!switched, "an old answer after a new one");
            }
        }
        assert!(switched, "this client never got the new model's answer");
    }
    assert!(total > 0);
    assert_ne!(old, new, "the retrained model answers as the old one");

    let health = json(&s.get("/api/health").text().expect("body"));
    assert_eq!(health["models"]["date"]["version"], 2, "{health}");
    assert_eq!(
        s.prometheus_value("quire_model_version{model=\"date\"}"),
        Some(2.0)
    );
    // The new version is the served folder now (a restart serves it), the old one is kept.
    let models = t.models.clone();
    let meta = json(&std::fs::read_to_string(models.join("date/meta.json")).expect("meta"));
    assert_eq!(meta["evaluation"]["kind"], "full");
    assert!(models.join(".versions/date/previous/model.crf").is_file());
    assert!(models.join("lexicon").is_dir());
}

#[test]
fn the_model_endpoint_zips_the_served_folder() {
    let t = training_server(|b| b);
    let s = &t.server;
    let r = s.get("/api/model?model=date&architecture=crf");
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(
        r.headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok()),
        Some("application/zip")
    );
    let bytes = r.bytes().expect("body");
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes.to_vec())).expect("a ZIP");
    let mut names: Vec<String> = zip
        .file_names()
        .map(|n| n.expect("entry name").into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["meta.json", "model.crf", "template.txt"]);
    let mut model = Vec::new();
    zip.by_name("model.crf")
        .expect("entry")
        .read_to_end(&mut model)
        .expect("read");
    let committed = crate::common::repo_root().join("models/date/model.crf");
    assert_eq!(model, std::fs::read(committed).expect("committed model"));

    let (status, _) = post(s, "/api/model", &[("model", "date")]);
    assert_eq!(status, 200);
    for (form, says) in [
        (vec![("model", "nosuchmodel")], "unknown model"),
        (vec![("model", "citation")], "not trained"),
        (
            vec![("model", "date"), ("architecture", "BiLSTM-CRF")],
            "not trained here for BiLSTM-CRF",
        ),
        (vec![], "`model`"),
    ] {
        let (status, body) = post(s, "/api/model", &form);
        assert_eq!(status, 400, "{form:?}: {body}");
        assert!(body.contains(says), "{form:?}: {body}");
    }
}

#[test]
fn a_bilstm_crf_trains_over_http_is_downloaded_and_swaps_in_once_declared() {
    let t = training_server(|b| b);
    let s = &t.server;
    let deep = |s: &Server| {
        let token = start(
            s,
            &[
                ("model", "date"),
                ("architecture", "BiLSTM-CRF"),
                ("type", "full"),
                ("maxIter", "3"),
            ],
        );
        let (status, body) = wait_finished(s, &token);
        assert_eq!(status, 200, "{body}");
        json(&body)
    };
    // Not declared yet: the files are put in place, the CRF keeps serving.
    let done = deep(s);
    assert_eq!(done["architecture"], "BiLSTM-CRF", "{done}");
    assert!(done["model_version"].is_null(), "{done}");
    assert!(
        done["note"].as_str().unwrap_or("").contains("serving.json"),
        "{done}"
    );
    let dir = t.models.join("date/bilstm-crf");
    let meta = json(&std::fs::read_to_string(dir.join("meta.json")).expect("meta"));
    assert_eq!(meta["architecture"], "BiLSTM-CRF");
    assert!(t.models.join("date/model.crf").is_file(), "the CRF stays");
    let health = json(&s.get("/api/health").text().expect("body"));
    assert_eq!(health["models"]["date"]["architecture"], "CRF", "{health}");

    let r = s.get("/api/model?model=date&architecture=BiLSTM-CRF");
    assert_eq!(r.status().as_u16(), 200);
    let bytes = r.bytes().expect("body");
    let zip = zip::ZipArchive::new(std::io::Cursor::new(bytes.to_vec())).expect("a ZIP");
    let mut names: Vec<String> = zip
        .file_names()
        .map(|n| n.expect("entry name").into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["meta.json", "model.safetensors", "vocab.json"]);

    // Declared: the next BiLSTM-CRF training swaps in live, and the dates are answered by it.
    std::fs::write(
        t.models.join("date/serving.json"),
        r#"{"architecture": "BiLSTM-CRF"}"#,
    )
    .expect("write");
    let done = deep(s);
    assert_eq!(done["model_version"], 2, "{done}");
    let (status, body) = post(s, "/api/processDate", &[("date", "Received 17 July 2015")]);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("<date"), "{body}");
    let health = json(&s.get("/api/health").text().expect("body"));
    assert_eq!(
        health["models"]["date"]["architecture"], "BiLSTM-CRF",
        "{health}"
    );
    assert_eq!(health["models"]["date"]["version"], 2, "{health}");
    assert!(t
        .models
        .join(".versions/date/previous-bilstm-crf/vocab.json")
        .is_file());

    // A CRF training while the BiLSTM-CRF is declared: the CRF's files are replaced and the
    // actor keeps serving what the folder declares.
    let crf = |s: &Server| {
        let token = start(s, &[("model", "date"), ("type", "full"), ("maxIter", "20")]);
        let (status, body) = wait_finished(s, &token);
        assert_eq!(status, 200, "{body}");
        json(&body)
    };
    let done = crf(s);
    assert_eq!(done["model_version"], 3, "{done}");
    let served = |s: &Server| {
        let health = json(&s.get("/api/health").text().expect("body"));
        let m = &health["models"]["date"];
        (
            m["architecture"].as_str().unwrap_or("").to_string(),
            m["version"].clone(),
        )
    };
    assert_eq!(served(s), ("BiLSTM-CRF".to_string(), 3.into()));
    assert!(t.models.join("date/serving.json").is_file());
    assert!(t.models.join("date/bilstm-crf/model.safetensors").is_file());
    // Declared as a pair: either architecture's training swaps in a pair holding it.
    std::fs::write(
        t.models.join("date/serving.json"),
        r#"{"architecture": "CRF+BiLSTM-CRF", "crf_weight": 0.5}"#,
    )
    .expect("write");
    let done = crf(s);
    assert_eq!(done["model_version"], 4, "{done}");
    assert_eq!(served(s), ("CRF+BiLSTM-CRF".to_string(), 4.into()));
    let done = deep(s);
    assert_eq!(done["model_version"], 5, "{done}");
    assert_eq!(served(s), ("CRF+BiLSTM-CRF".to_string(), 5.into()));
    let (status, body) = post(s, "/api/processDate", &[("date", "Received 17 July 2015")]);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("<date"), "{body}");
}

#[test]
fn a_bilstm_crf_retrained_over_http_keeps_the_served_models_word_vectors() {
    let t = training_server(|b| b);
    let s = &t.server;
    // The served date BiLSTM-CRF reads a frozen word channel (trained here by the engine).
    let vectors = t.dataset.path().join("vectors.txt");
    std::fs::write(&vectors, "2 3\nmarch 0.5 -1 0.25\njune 0.4 -0.9 0.3\n").expect("write");
    let spec = quire::training::spec(quire::models::ModelName::Date, None).expect("date");
    let params = quire::deep::DeepParams {
        max_epochs: 2,
        embeddings: Some(vectors.clone()),
        ..Default::default()
    };
    quire::training::run_deep(
        spec,
        t.dataset.path(),
        &t.models,
        quire::training::TrainingKind::Full,
        &params,
        None,
        &mut |_| {},
        Arc::new(AtomicBool::new(false)),
    )
    .expect("trained");
    let served = t.models.join("date/bilstm-crf");
    let before = quire::deep::read_vectors(&served).expect("the channel");
    assert_eq!(before.words, ["march", "june"]);
    // The file is gone: a training over HTTP (not incremental) takes the vectors from the
    // served model's folder, so the new model reads what the served one read.
    std::fs::remove_file(&vectors).expect("remove");
    let token = start(
        s,
        &[
            ("model", "date"),
            ("architecture", "BiLSTM-CRF"),
            ("type", "full"),
            ("maxIter", "2"),
        ],
    );
    let (status, body) = wait_finished(s, &token);
    assert_eq!(status, 200, "{body}");
    assert!(t
        .models
        .join(".versions/date/previous-bilstm-crf/vocab.json")
        .is_file());
    assert_eq!(quire::deep::read_vectors(&served).expect("kept"), before);
}
