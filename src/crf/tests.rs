//! End-to-end tests of the CRF core: train a tiny model on hand-made sequences, tag with it,
//! save and load it, and check that `crfs` reads the file and agrees with Quire's tagger.

use super::*;
use crate::Error;

/// Date-like sequences: day numbers, month names, 4-digit years, with a shape column.
fn shape(tok: &str) -> String {
    tok.chars()
        .map(|c| {
            if c.is_ascii_digit() {
                'd'
            } else if c.is_uppercase() {
                'X'
            } else {
                'x'
            }
        })
        .collect()
}

fn seq(tokens: &[(&str, &str)]) -> Sequence {
    Sequence {
        rows: tokens
            .iter()
            .map(|(t, _)| vec![(*t).into(), shape(t).into()])
            .collect(),
        labels: tokens.iter().map(|(_, l)| l.to_string()).collect(),
    }
}

const TEMPLATE: &str = "U00:%x[0,0]\nU01:%x[0,1]\nU02:%x[-1,1]\nU03:%x[-1,0]/%x[0,0]\nB\n";

fn corpus() -> Vec<Sequence> {
    let days = ["1", "2", "12", "23", "30", "7"];
    let months = ["January", "March", "May", "July", "October", "December"];
    let years = ["1999", "2001", "2015", "1987", "2020", "1964"];
    let mut out = Vec::new();
    let mut state = 7u32;
    for i in 0..40 {
        state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        let d = days[(state >> 8) as usize % days.len()];
        let m = months[(state >> 12) as usize % months.len()];
        let y = years[(state >> 16) as usize % years.len()];
        let s = if i % 2 == 0 {
            seq(&[(d, "I-<day>"), (m, "I-<month>"), (y, "I-<year>")])
        } else {
            seq(&[
                (m, "I-<month>"),
                (d, "I-<day>"),
                (",", "<other>"),
                (y, "I-<year>"),
            ])
        };
        out.push(s);
    }
    out
}

fn params() -> TrainParams {
    TrainParams {
        c1: 0.05,
        c2: 0.01,
        epsilon: 1e-6,
        window: 10,
        max_iter: 200,
        threads: 2,
    }
}

fn trained() -> (Template, Vec<u8>) {
    let t = Template::parse(TEMPLATE).unwrap();
    let bytes = train(&t, &corpus(), &params(), &mut |_| true).unwrap();
    (t, bytes)
}

fn meta(version: u32) -> ModelMeta {
    ModelMeta {
        model: "test-date".into(),
        labels: vec![],
        feature_version: version,
        data_digest: String::new(),
        params: params(),
        evaluation: serde_json::Value::Null,
    }
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("quire-crf-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn tiny_model_tags_its_training_data_and_unseen_years() {
    let (t, bytes) = trained();
    let model = Model::from_parts(&bytes, t, meta(1)).unwrap();
    for s in corpus() {
        assert_eq!(model.label(&s.rows).unwrap(), s.labels);
    }
    // "1975" and "14" never occur: the shape columns must carry them.
    let unseen = seq(&[
        ("14", "I-<day>"),
        ("May", "I-<month>"),
        ("1975", "I-<year>"),
    ]);
    assert_eq!(model.label(&unseen.rows).unwrap(), unseen.labels);
    assert!(model.label(&[]).unwrap().is_empty());
}

#[test]
fn progress_reports_falling_loss_and_false_cancels() {
    let t = Template::parse(TEMPLATE).unwrap();
    let mut losses = Vec::new();
    let err = train(&t, &corpus(), &params(), &mut |p| {
        losses.push(p.loss);
        assert!(p.active_features > 0);
        p.iteration < 3
    })
    .unwrap_err();
    assert!(
        err.to_string().contains("cancelled at iteration 3"),
        "{err}"
    );
    assert_eq!(losses.len(), 3);
    assert!(losses[2] < losses[0], "{losses:?}");
}

#[test]
fn crfs_loads_the_file_and_agrees_with_quire() {
    let (t, bytes) = trained();
    let model = Model::from_parts(&bytes, t.clone(), meta(1)).unwrap();
    let cm = crfs::Model::new(&bytes).unwrap();
    assert_eq!(cm.num_labels() as usize, model.labels().len());
    let tagger = cm.tagger().unwrap();
    let mut data = corpus();
    data.push(seq(&[
        ("30", "I-<day>"),
        ("July", "I-<month>"),
        ("1975", "I-<year>"),
    ]));
    for s in data {
        let attrs: Vec<Vec<crfs::Attribute>> = t
            .expand(&s.rows)
            .into_iter()
            .map(|tok| {
                tok.into_iter()
                    .map(|a| crfs::Attribute::new(a, 1.0))
                    .collect()
            })
            .collect();
        let theirs: Vec<String> = tagger
            .tag(&attrs)
            .unwrap()
            .into_iter()
            .map(String::from)
            .collect();
        assert_eq!(model.label(&s.rows).unwrap(), theirs);
    }
}

#[test]
fn save_load_round_trip_and_feature_version_check() {
    let (t, bytes) = trained();
    let dir = temp_dir("roundtrip");
    Model::save_files(&dir, &bytes, &t, &meta(3)).unwrap();
    let loaded = Model::load(&dir, 3).unwrap();
    assert_eq!(loaded.meta().model, "test-date");
    assert_eq!(loaded.template(), &t);
    let direct = Model::from_parts(&bytes, t, meta(3)).unwrap();
    for s in corpus() {
        assert_eq!(
            loaded.label(&s.rows).unwrap(),
            direct.label(&s.rows).unwrap()
        );
    }
    match Model::load(&dir, 4) {
        Err(e @ Error::ModelMismatch { .. }) => {
            assert_eq!(e.code(), crate::ErrorCode::TaggingError);
            assert!(e.to_string().contains("feature version 3"), "{e}");
        }
        other => panic!("expected a mismatch, got {other:?}"),
    }
    std::fs::write(dir.join(MODEL_FILE), b"garbage").unwrap();
    assert!(matches!(
        Model::load(&dir, 3),
        Err(Error::ModelUnavailable { .. })
    ));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn l1_prunes_features_from_the_file() {
    let t = Template::parse(TEMPLATE).unwrap();
    let weak = train(
        &t,
        &corpus(),
        &TrainParams {
            c1: 0.0,
            ..params()
        },
        &mut |_| true,
    )
    .unwrap();
    let strong = train(
        &t,
        &corpus(),
        &TrainParams {
            c1: 2.0,
            ..params()
        },
        &mut |_| true,
    )
    .unwrap();
    let n = |b: &[u8]| u32::from_le_bytes([b[16], b[17], b[18], b[19]]);
    assert!(n(&strong) < n(&weak), "{} vs {}", n(&strong), n(&weak));
    assert!(strong.len() < weak.len());
}

#[test]
fn malformed_training_data_is_refused() {
    let t = Template::parse(TEMPLATE).unwrap();
    let bad = vec![Sequence {
        rows: vec![vec!["a".into(), "x".into()]],
        labels: vec![],
    }];
    assert!(matches!(
        train(&t, &bad, &params(), &mut |_| true),
        Err(Error::BadInput(_))
    ));
    let short = vec![Sequence {
        rows: vec![vec!["a".into()]],
        labels: vec!["l".into()],
    }];
    assert!(train(&t, &short, &params(), &mut |_| true).is_err());
    assert!(train(&t, &[], &params(), &mut |_| true).is_err());
}

#[test]
fn training_error_is_reported_and_its_window_stops_training() {
    let t = Template::parse(TEMPLATE).unwrap();
    let mut seen = Vec::new();
    let p = TrainParams {
        window: 3,
        epsilon: 1e-9,
        max_iter: 500,
        ..params()
    };
    train(&t, &corpus(), &p, &mut |pr| {
        seen.push(pr.train_error);
        true
    })
    .unwrap();
    // The final model tags its training data perfectly (see the test above), and the error
    // rate was identical over the last 3 iterations, which ended training early.
    let n = seen.len();
    assert!(n < 500, "{n} iterations");
    assert!(n >= 3);
    assert!(seen[n - 3..].iter().all(|&e| e == 0.0), "{seen:?}");
    assert!(seen.iter().all(|&e| (0.0..=100.0).contains(&e)));
    // Without the window, training goes on until the objective settles.
    let mut longer = 0;
    train(&t, &corpus(), &TrainParams { window: 0, ..p }, &mut |pr| {
        longer = pr.iteration;
        true
    })
    .unwrap();
    assert!(longer > n, "{longer} vs {n}");
}

#[test]
fn model_is_shareable_between_threads() {
    fn shared<T: Send + Sync + 'static>() {}
    shared::<Model>();
    shared::<Template>();
    let (t, bytes) = trained();
    let model = std::sync::Arc::new(Model::from_parts(&bytes, t, meta(1)).unwrap());
    let handles: Vec<_> = (0..2)
        .map(|_| {
            let m = model.clone();
            std::thread::spawn(move || {
                corpus()
                    .iter()
                    .all(|s| m.label(&s.rows).unwrap() == s.labels)
            })
        })
        .collect();
    for h in handles {
        assert!(h.join().unwrap());
    }
}

#[test]
fn incremental_training_starts_from_the_old_weights() {
    let (t, start) = trained();
    let short = TrainParams {
        max_iter: 2,
        ..params()
    };
    let first_loss = |start: Option<&[u8]>| {
        let mut first = None;
        let bytes = match start {
            Some(s) => train_from(&t, &corpus(), &short, s, &mut |p| {
                first.get_or_insert(p.loss);
                true
            }),
            None => train(&t, &corpus(), &short, &mut |p| {
                first.get_or_insert(p.loss);
                true
            }),
        }
        .unwrap();
        (first.unwrap(), bytes)
    };
    let (cold, _) = first_loss(None);
    let (warm, bytes) = first_loss(Some(&start));
    assert!(warm < cold / 2.0, "warm {warm} against cold {cold}");
    // Two iterations from the old weights still tag the corpus as the old model does.
    let model = Model::from_parts(&bytes, t.clone(), meta(1)).unwrap();
    for s in corpus() {
        assert_eq!(model.label(&s.rows).unwrap(), s.labels);
    }
    // New data with a label the old model never saw: shared features start from the old
    // weights, the new label's from zero, and training goes on.
    let mut more = corpus();
    more.push(seq(&[("Spring", "I-<season>"), ("2004", "I-<year>")]));
    let bytes = train_from(&t, &more, &params(), &start, &mut |_| true).unwrap();
    let model = Model::from_parts(&bytes, t, meta(1)).unwrap();
    assert!(model.labels().iter().any(|l| l == "I-<season>"));
    // Bytes that are not a model are refused.
    assert!(train_from(
        &Template::parse(TEMPLATE).unwrap(),
        &corpus(),
        &short,
        b"junk",
        &mut |_| true
    )
    .is_err());
}
