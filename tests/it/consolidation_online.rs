//! The online consolidation clients against local fake servers speaking the real APIs' JSON:
//! Crossref's REST API (`/works/{doi}`, `/works?query.bibliographic=…`, polite-pool `mailto`,
//! Plus token header), biblio-glutton's `/service/lookup`, a 429 with `Retry-After`, the
//! answer cache, the circuit breaker after repeated failures, and a service that never answers
//! (the lookup fails at its timeout). End to end: a server configured with `service =
//! "crossref"` consolidates processCitation from the fake Crossref, and a hanging one cannot
//! hold a request past `consolidation.timeout_s`.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use quire::consolidation::{Consolidator, Extracted, MatchKind, Source};
use quire_actors::consolidation::online::{OnlineConfig, OnlineSource, Service, FAILURES_TO_OPEN};

use crate::common::{models_present, Server};

/// What the fake answers: `None` holds the connection open without answering.
type Handler = dyn Fn(&str) -> Option<(u16, Vec<(&'static str, String)>, String)> + Send + Sync;

/// A local HTTP/1.1 server answering each request with `handler(path_and_query)`, recording
/// every request's head.
struct Fake {
    url: String,
    requests: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
}

impl Fake {
    fn start(
        handler: impl Fn(&str) -> Option<(u16, Vec<(&'static str, String)>, String)>
            + Send
            + Sync
            + 'static,
    ) -> Fake {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let handler: Arc<Handler> = Arc::new(handler);
        let (reqs, stopped) = (requests.clone(), stop.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (handler, reqs, stopped) = (handler.clone(), reqs.clone(), stopped.clone());
                std::thread::spawn(move || serve(stream, &*handler, &reqs, &stopped));
            }
        });
        Fake {
            url,
            requests,
            stop,
        }
    }

    fn requests(&self) -> Vec<String> {
        self.requests.lock().expect("lock").clone()
    }
}

impl Drop for Fake {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn serve(mut stream: TcpStream, handler: &Handler, reqs: &Mutex<Vec<String>>, stop: &AtomicBool) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    loop {
        let mut head = String::new();
        loop {
            let mut line = String::new();
            match reader.read_line(&mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            if line == "\r\n" {
                break;
            }
            head.push_str(&line);
        }
        let target = head.split_whitespace().nth(1).unwrap_or("").to_string();
        reqs.lock().expect("lock").push(head);
        match handler(&target) {
            Some((status, headers, body)) => {
                let mut out = format!(
                    "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
                    body.len()
                );
                for (k, v) in headers {
                    out.push_str(&format!("{k}: {v}\r\n"));
                }
                out.push_str("\r\n");
                out.push_str(&body);
                if stream.write_all(out.as_bytes()).is_err() {
                    return;
                }
            }
            None => {
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(50));
                }
                return;
            }
        }
    }
}

fn work(doi: &str, title: &str, family: &str, year: i32) -> serde_json::Value {
    serde_json::json!({
        "DOI": doi,
        "title": [title],
        "author": [{"given": "Ana", "family": family}],
        "container-title": ["Journal of Fake Services"],
        "volume": "7", "page": "10-20",
        "issued": {"date-parts": [[year]]},
        "publisher": "Loopback Press", "type": "journal-article"
    })
}

/// A fake Crossref holding one work.
fn crossref() -> Fake {
    Fake::start(|target| {
        let ok = |message: serde_json::Value| {
            Some((
                200,
                vec![],
                serde_json::json!({"status": "ok", "message-type": "work", "message": message})
                    .to_string(),
            ))
        };
        let rec = work(
            "10.5555/fake.1",
            "Reference matching over loopback",
            "Moreau",
            2020,
        );
        if target.starts_with("/works/10.5555%2Ffake.1")
            || target.starts_with("/works/10.5555/fake.1")
        {
            return ok(rec);
        }
        if target.starts_with("/works?") {
            return ok(serde_json::json!({"items": [
                work("10.5555/other", "Loopback interfaces for printers", "Dubois", 1999),
                rec,
            ]}));
        }
        Some((404, vec![], "Resource not found.".into()))
    })
}

fn source(service: Service, url: &str, timeout_ms: u64) -> OnlineSource {
    OnlineSource::new(OnlineConfig {
        service,
        base_url: url.to_string(),
        mailto: "tests@example.org".into(),
        token: "sekret".into(),
        lookup_timeout: Duration::from_millis(timeout_ms),
    })
}

fn extracted() -> Extracted {
    Extracted {
        title: Some("Reference matching over loopback".into()),
        first_author: Some("Moreau".into()),
        year: Some(2020),
        ..Extracted::default()
    }
}

#[test]
fn crossref_client_looks_up_dois_and_searches_politely() {
    let fake = crossref();
    let c = Consolidator::new(Box::new(source(Service::Crossref, &fake.url, 5000)));
    // By DOI, agreeing with the extraction.
    let e = Extracted {
        doi: Some("10.5555/FAKE.1".into()),
        ..extracted()
    };
    let o = c.find(&e, true).expect("lookup").expect("found");
    assert_eq!(
        (o.record.doi.as_str(), o.kind),
        ("10.5555/fake.1", MatchKind::Doi)
    );
    assert_eq!(o.record.publisher.as_deref(), Some("Loopback Press"));
    // By search: the candidates are re-scored; the right one wins.
    let o = c.find(&extracted(), false).expect("search").expect("found");
    assert_eq!(
        (o.record.doi.as_str(), o.kind),
        ("10.5555/fake.1", MatchKind::Biblio)
    );
    let reqs = fake.requests();
    assert_eq!(reqs.len(), 2, "{reqs:?}");
    let search = &reqs[1];
    assert!(
        search.contains("query.bibliographic=Reference+matching+over+loopback"),
        "{search}"
    );
    assert!(search.contains("query.author=Moreau"), "{search}");
    for r in &reqs {
        assert!(r.contains("mailto=tests%40example.org"), "{r}");
        assert!(r.to_ascii_lowercase().contains("user-agent: quire/"), "{r}");
        assert!(r.contains("(mailto:tests@example.org)"), "{r}");
        assert!(
            r.to_ascii_lowercase()
                .contains("crossref-plus-api-token: bearer sekret"),
            "{r}"
        );
    }
    // An unknown DOI is not found (404), not an error.
    let src = source(Service::Crossref, &fake.url, 5000);
    assert_eq!(
        src.by_doi("10.5555/absent").expect("404 is no record"),
        None
    );
}

#[test]
fn answers_are_cached_and_a_429_is_retried_after_its_delay() {
    let calls = Arc::new(Mutex::new(0));
    let seen = calls.clone();
    let fake = Fake::start(move |_| {
        let mut n = seen.lock().expect("lock");
        *n += 1;
        if *n == 1 {
            return Some((429, vec![("Retry-After", "0".into())], "slow down".into()));
        }
        Some((
            200,
            vec![],
            serde_json::json!({"message": work("10.5555/c", "Cached title words", "Ito", 2001)})
                .to_string(),
        ))
    });
    let src = source(Service::Crossref, &fake.url, 5000);
    let r = src.by_doi("10.5555/c").expect("retried").expect("found");
    assert_eq!(r.title.as_deref(), Some("Cached title words"));
    assert_eq!(fake.requests().len(), 2, "the 429 and its retry");
    // The same lookup again comes from the cache.
    src.by_doi("10.5555/C").expect("cached").expect("found");
    assert_eq!(fake.requests().len(), 2);
}

#[test]
fn glutton_client_uses_the_lookup_service() {
    let fake = Fake::start(|target| {
        let mut rec = work(
            "10.5555/glut",
            "Reference matching over loopback",
            "Moreau",
            2020,
        );
        // biblio-glutton adds Unpaywall's open-access link to the Crossref record.
        rec["oaLink"] = "https://repo.example/glut.pdf".into();
        if target.starts_with("/service/lookup?doi=10.5555%2Fglut")
            || (target.starts_with("/service/lookup?atitle=")
                && target.contains("firstAuthor=Moreau"))
        {
            return Some((200, vec![], rec.to_string()));
        }
        Some((404, vec![], "{}".into()))
    });
    let c = Consolidator::new(Box::new(source(Service::Glutton, &fake.url, 5000)));
    let by_doi = Extracted {
        doi: Some("10.5555/glut".into()),
        ..extracted()
    };
    assert_eq!(
        c.find(&by_doi, true).expect("lookup").map(|o| o.record.doi),
        Some("10.5555/glut".to_string())
    );
    let o = c.find(&extracted(), false).expect("search").expect("found");
    assert_eq!(o.record.doi, "10.5555/glut");
    assert_eq!(
        o.record.oa_url.as_deref(),
        Some("https://repo.example/glut.pdf")
    );
    let unknown = Extracted {
        title: Some("Nothing like this exists anywhere".into()),
        first_author: Some("Nobody".into()),
        ..Extracted::default()
    };
    assert_eq!(c.find(&unknown, false).expect("404 is no record"), None);
}

#[test]
fn a_failing_service_opens_the_circuit_breaker_and_a_silent_one_times_out() {
    let failing = Fake::start(|_| Some((503, vec![], "down".into())));
    let src = source(Service::Crossref, &failing.url, 5000);
    for i in 0..FAILURES_TO_OPEN + 3 {
        let err = src
            .by_doi(&format!("10.5555/n{i}"))
            .expect_err("the service is down");
        if i >= FAILURES_TO_OPEN {
            assert!(err.to_string().contains("circuit breaker"), "{err}");
        }
    }
    // Once open, lookups no longer reach the service.
    assert_eq!(failing.requests().len(), FAILURES_TO_OPEN as usize);

    let silent = Fake::start(|_| None);
    let src = source(Service::Glutton, &silent.url, 300);
    let err = src.by_doi("10.5555/x").expect_err("no answer");
    assert!(err.to_string().contains("glutton lookup failed"), "{err}");
}

const MODELS: [&str; 3] = ["citation", "name-citation", "date"];
const REF: &str =
    "Moreau, A. (2020). Reference matching over loopback. Journal of Fake Services 7: 10-20.";

#[test]
fn a_server_consolidates_from_crossref_and_a_hanging_service_cannot_hold_a_request() {
    if !models_present(&MODELS) {
        return;
    }
    let fake = crossref();
    let s = Server::builder()
        .repo_models()
        .set("consolidation", "service = \"crossref\"")
        .set("consolidation", &format!("crossref_url = {:?}", fake.url))
        .start();
    let r = s.post_form(
        "/api/processCitation",
        &[("citations", REF), ("consolidateCitations", "1")],
    );
    assert_eq!(r.status().as_u16(), 200);
    let body = r.text().expect("body");
    assert!(
        body.starts_with("<biblStruct status=\"consolidated\""),
        "{body}"
    );
    assert!(
        body.contains("<idno type=\"DOI\">10.5555/fake.1</idno>"),
        "{body}"
    );
    assert!(
        body.contains("<note type=\"consolidation\">crossref</note>"),
        "{body}"
    );
    assert!(
        s.prometheus_value(
            "quire_consolidation_lookups_total{outcome=\"found\",source=\"crossref\"}"
        )
        .is_some_and(|v| v >= 1.0),
        "the lookup is counted"
    );

    // A service that accepts connections and never answers: the request comes back at
    // `timeout_s` (1 s) as extracted, although one lookup may wait 60 s.
    let silent = Fake::start(|_| None);
    let s = Server::builder()
        .repo_models()
        .set("consolidation", "service = \"glutton\"")
        .set("consolidation", &format!("glutton_url = {:?}", silent.url))
        .set("consolidation", "timeout_s = 1")
        .set("consolidation", "lookup_timeout_s = 60.0")
        .start();
    let client = quire_actors::http_client()
        .timeout(Duration::from_secs(30))
        .build()
        .expect("client");
    let r = client
        .post(s.url("/api/processCitation"))
        .form(&[("citations", REF), ("consolidateCitations", "1")])
        .send()
        .expect("answered before the client's 30 s, well short of the lookup's 60 s");
    assert_eq!(r.status().as_u16(), 200);
    let body = r.text().expect("body");
    assert!(
        body.starts_with("<biblStruct status=\"extracted\""),
        "{body}"
    );
    assert!(!silent.requests().is_empty(), "the lookup was attempted");
}
