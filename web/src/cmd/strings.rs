/*!
The value-level half of `quire eval MODEL` for the five raw-string models: every item of the
model's `evaluation/` files goes through the endpoint's own code path without HTTP
(`routes::text::tei_answer`: the string cascade on the model actors, the decoders, the TEI
writer), and the answers are scored with `quire::strings_eval`. With `--url`, the same items
are posted to a running service (this one or GROBID) and scored by the same functions; the
command then says how many answers differ from the in-process ones and measures requests per
second at concurrency 1 and 10. `bench/strings` is this command run for the five models.
*/

use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use quire::strings_eval::{self, Item, Score, StringModel};
use quire_actors::{CascadeCtx, ModelSettings, Models, Pipeline};

use crate::routes::text::tei_answer;

/// In-process answers (TEI bodies; empty where the endpoint would answer 204) for every item,
/// and how many items failed (an error the endpoint would answer with a 4xx/5xx).
pub fn in_process(
    models_dir: &Path,
    model: StringModel,
    items: &[Item],
) -> anyhow::Result<(Vec<String>, usize)> {
    let models_dir = models_dir.to_path_buf();
    let inputs: Vec<String> = items.iter().map(|i| i.input.clone()).collect();
    actix_web::rt::System::new().block_on(async move {
        let settings = ModelSettings {
            models_dir: models_dir.clone(),
            preload: false,
            ..ModelSettings::default()
        };
        let engine = quire::EngineConfig {
            models_dir,
            ..quire::EngineConfig::default()
        };
        let models = Models::start(&settings);
        let pipeline = Pipeline::start(
            CascadeCtx::new(models, Arc::new(engine)),
            4,
            Duration::from_secs(300),
        );
        let mut out = Vec::with_capacity(inputs.len());
        let mut failed = 0;
        for text in &inputs {
            match tei_answer(&pipeline, model, text).await {
                Ok(body) => out.push(body),
                Err(e) => {
                    tracing::warn!("in-process answer failed: {e}");
                    failed += 1;
                    out.push(String::new());
                }
            }
        }
        Ok((out, failed))
    })
}

/// Score answers against the items' gold values.
pub fn score(model: StringModel, items: &[Item], answers: &[String]) -> Score {
    let mut s = Score::default();
    for (item, body) in items.iter().zip(answers) {
        s.add(&item.gold, &strings_eval::answer_fields(model, body));
    }
    s
}

/// One POST; `(status, body)`. 503 (pool full) is retried for up to ten seconds.
fn post(
    client: &reqwest::blocking::Client,
    url: &str,
    field: &str,
    text: &str,
) -> anyhow::Result<(u16, String)> {
    let started = Instant::now();
    loop {
        let r = client
            .post(url)
            .form(&[(field, text)])
            .send()
            .with_context(|| format!("POST {url}"))?;
        let status = r.status().as_u16();
        if status == 503 && started.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(50));
            continue;
        }
        let body = r.text().unwrap_or_default();
        return Ok((status, if status == 200 { body } else { String::new() }));
    }
}

/// What one pass of posts gave.
struct Pass {
    /// The first answer for each item (TEI body, empty for a non-200 status).
    answers: Vec<String>,
    statuses: std::collections::BTreeMap<u16, usize>,
    /// Items answered differently from in-process (once each, with the first such answer).
    differing: Vec<(usize, String)>,
    requests: usize,
    secs: f64,
}

/// Post `requests` requests (item `k % items.len()` for the k-th) with `concurrency` clients.
fn post_all(
    base: &str,
    model: StringModel,
    items: &[Item],
    local: &[String],
    concurrency: usize,
    requests: usize,
) -> anyhow::Result<Pass> {
    let client = quire_actors::http_client()
        .timeout(Duration::from_secs(120))
        .build()?;
    let url = format!("{}{}", base.trim_end_matches('/'), model.endpoint());
    let next = AtomicUsize::new(0);
    let started = Instant::now();
    type Done = Vec<(usize, u16, String)>;
    let results: Vec<anyhow::Result<Done>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..concurrency.max(1))
            .map(|_| {
                let client = client.clone();
                let (url, next) = (&url, &next);
                s.spawn(move || {
                    let mut mine = Vec::new();
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        if k >= requests || items.is_empty() {
                            return Ok(mine);
                        }
                        let item = &items[k % items.len()];
                        let (status, body) = post(&client, url, model.form_field(), &item.input)?;
                        mine.push((k, status, body));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("client thread panicked")))
            })
            .collect()
    });
    let secs = started.elapsed().as_secs_f64();
    let mut pass = Pass {
        answers: vec![String::new(); items.len()],
        statuses: std::collections::BTreeMap::new(),
        differing: Vec::new(),
        requests,
        secs,
    };
    for r in results {
        for (k, status, body) in r? {
            let i = k % items.len();
            *pass.statuses.entry(status).or_insert(0) += 1;
            if body != local[i] {
                pass.differing.push((i, body.clone()));
            }
            if k < items.len() {
                pass.answers[i] = body;
            }
        }
    }
    pass.differing.sort_by_key(|d| d.0);
    pass.differing.dedup_by_key(|d| d.0);
    Ok(pass)
}

/// `quire eval MODEL [--url URL]`, the value-level part.
pub fn run(
    dataset: &Path,
    models_dir: &Path,
    model: StringModel,
    url: Option<&str>,
    show_diffs: usize,
    show_errors: usize,
    min_requests: usize,
) -> anyhow::Result<()> {
    let items = strings_eval::items(dataset, model)?;
    let (local, failed) = in_process(models_dir, model, &items)?;
    let decoded = score(model, &items, &local);
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "\n== {}: decoded field-level F1 (model + decoder + TEI writer, in-process), {} items, {} failed",
        model.name(),
        items.len(),
        failed
    )?;
    write!(out, "{}", decoded.table())?;
    writeln!(out, "decoded micro F1 {:.2}", decoded.micro_f1())?;
    let mut shown = 0;
    for (item, body) in items.iter().zip(&local) {
        if shown >= show_errors {
            break;
        }
        let mut got = strings_eval::answer_fields(model, body);
        let mut gold = item.gold.clone();
        got.sort();
        gold.sort();
        if got != gold {
            shown += 1;
            let missed: Vec<_> = gold.iter().filter(|v| !got.contains(v)).collect();
            let extra: Vec<_> = got.iter().filter(|v| !gold.contains(v)).collect();
            writeln!(
                out,
                "  error: {:?}\n    missed: {missed:?}\n    extra:  {extra:?}",
                item.input
            )?;
        }
    }
    let Some(base) = url else {
        return Ok(());
    };
    // One pass over the items for the figure, then timed passes of at least `min_requests`.
    let first = post_all(base, model, &items, &local, 1, items.len())?;
    let http = score(model, &items, &first.answers);
    writeln!(
        out,
        "\n== {}: HTTP field-level F1 via {}{}, statuses {:?}",
        model.name(),
        base.trim_end_matches('/'),
        model.endpoint(),
        first.statuses
    )?;
    write!(out, "{}", http.table())?;
    writeln!(out, "HTTP micro F1 {:.2}", http.micro_f1())?;
    let http_f1 = Some(http.micro_f1());
    let requests = items.len() * min_requests.div_ceil(items.len().max(1));
    for (concurrency, pass) in [(0, Ok(first))]
        .into_iter()
        .chain([1, 10].map(|c| (c, post_all(base, model, &items, &local, c, requests))))
    {
        let pass = pass?;
        if concurrency > 0 {
            writeln!(
                out,
                "concurrency {concurrency:>2}: {:>8.1} requests/s ({} requests in {:.2} s, statuses {:?})",
                pass.requests as f64 / pass.secs,
                pass.requests,
                pass.secs,
                pass.statuses
            )?;
        }
        writeln!(
            out,
            "  {} of {} items answered differently from in-process",
            pass.differing.len(),
            items.len()
        )?;
        for (i, body) in pass.differing.iter().take(show_diffs) {
            writeln!(
                out,
                "  differs: {:?}\n    in-process: {:?}\n    HTTP:       {:?}",
                items[*i].input, local[*i], body
            )?;
        }
    }
    if let Some(h) = http_f1 {
        let same = (h - decoded.micro_f1()).abs() < 1e-9;
        writeln!(
            out,
            "{}: decoded {:.2}, HTTP {:.2}: {}",
            model.name(),
            decoded.micro_f1(),
            h,
            if same {
                "equal, the service adds no loss"
            } else {
                "DIFFERENT"
            }
        )?;
    }
    Ok(())
}
