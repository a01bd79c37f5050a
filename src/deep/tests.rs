use super::*;

/// Toy names: a surname (capitalised word), initials (one capital and a dot), `and`; the
/// label depends on the word's shape and its neighbour, which the network must learn.
fn toy(i: usize) -> Sequence {
    let surnames = [
        "Smith", "Lee", "Garcia", "Novak", "Tanaka", "Okafor", "Berg",
    ];
    let mut rows = Vec::new();
    let mut labels = Vec::new();
    let n = 1 + i % 3;
    for k in 0..n {
        if k > 0 {
            rows.push(vec!["and".into(), "lower".into()]);
            labels.push("<other>".to_string());
        }
        let s = surnames[(i + k) % surnames.len()];
        rows.push(vec![s.into(), "cap".into()]);
        labels.push("I-<surname>".to_string());
        let initial = ((b'A' + ((i * 7 + k) % 26) as u8) as char).to_string();
        rows.push(vec![initial.into(), "cap".into()]);
        labels.push("I-<forename>".to_string());
        rows.push(vec![".".into(), "punct".into()]);
        labels.push("<forename>".to_string());
    }
    Sequence { rows, labels }
}

fn small_params() -> DeepParams {
    DeepParams {
        word_dim: 8,
        char_dim: 6,
        char_filters: 8,
        feature_dim: 3,
        hidden: 12,
        dropout: 0.0,
        learning_rate: 0.03,
        batch: 8,
        max_epochs: 25,
        patience: 25,
        dev_ratio: 0.2,
        ..DeepParams::default()
    }
}

#[test]
fn emissions_are_rows_of_label_scores_in_one_buffer() {
    let mut em = Emissions::new(3, vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    assert_eq!(em.len(), 2);
    assert_eq!(&em[1], &[3.0, 4.0, 5.0]);
    for row in em.rows_mut() {
        row[0] += 10.0;
    }
    let rows: Vec<&[f32]> = em.rows().collect();
    assert_eq!(rows, vec![&[10.0, 1.0, 2.0][..], &[13.0, 4.0, 5.0][..]]);
    assert!(Emissions::default().is_empty());
    assert_eq!(Emissions::default().len(), 0);
}

#[test]
fn viterbi_follows_transitions_over_emissions() {
    // Two labels; emissions favour label 1 at step 1, but 0 -> 1 is forbidden.
    let em = Emissions::new(2, vec![2.0, 0.0, 0.0, 1.0]);
    let trans = vec![vec![0.0, -10.0], vec![0.0, 0.0]];
    assert_eq!(viterbi(&em, &trans, &[0.0, 0.0], &[0.0, 0.0]), vec![0, 0]);
    let open = vec![vec![0.0, 0.0], vec![0.0, 0.0]];
    assert_eq!(viterbi(&em, &open, &[0.0, 0.0], &[0.0, 0.0]), vec![0, 1]);
    // The end score decides the last label.
    assert_eq!(viterbi(&em, &open, &[0.0, 0.0], &[3.0, 0.0]), vec![0, 0]);
    assert!(viterbi(&Emissions::default(), &open, &[0.0, 0.0], &[0.0, 0.0]).is_empty());
}

/// The plain per-label Viterbi the vectorised one replaced: for each next label, the first
/// previous label with the strictly largest score.
fn viterbi_per_label(em: &Emissions, trans: &[Vec<f32>], start: &[f32], end: &[f32]) -> Vec<usize> {
    let (t, l) = (em.len(), start.len());
    let mut score: Vec<f32> = (0..l).map(|j| start[j] + em[0][j]).collect();
    let mut back = vec![0usize; t * l];
    for i in 1..t {
        let mut next = vec![f32::NEG_INFINITY; l];
        for (j, nj) in next.iter_mut().enumerate() {
            for (k, sk) in score.iter().enumerate() {
                let v = sk + trans[k][j];
                if v > *nj {
                    *nj = v;
                    back[i * l + j] = k;
                }
            }
            *nj += em[i][j];
        }
        score = next;
    }
    let mut best = 0;
    for j in 1..l {
        if score[j] + end[j] > score[best] + end[best] {
            best = j;
        }
    }
    let mut path = vec![best; t];
    for i in (1..t).rev() {
        path[i - 1] = back[i * l + path[i]];
    }
    path
}

#[test]
fn vectorised_viterbi_chooses_as_the_per_label_one() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    for case in 0..300 {
        let l = 1 + case % 41;
        let t = 1 + (case * 7) % 60;
        // Scores on a coarse grid, so that equal sums (ties) are frequent; some transitions
        // forbidden outright.
        let draw = |rng: &mut rand::rngs::StdRng| -> f32 {
            if rng.random_range(0..10) == 0 {
                f32::NEG_INFINITY
            } else {
                rng.random_range(-4i32..4) as f32 * 0.5
            }
        };
        let trans: Vec<Vec<f32>> = (0..l)
            .map(|_| (0..l).map(|_| draw(&mut rng)).collect())
            .collect();
        let start: Vec<f32> = (0..l).map(|_| rng.random_range(-2i32..2) as f32).collect();
        let end: Vec<f32> = (0..l).map(|_| rng.random_range(-2i32..2) as f32).collect();
        let em = Emissions::new(
            l,
            (0..t * l)
                .map(|_| rng.random_range(-3i32..3) as f32 * 0.25)
                .collect(),
        );
        assert_eq!(
            viterbi(&em, &trans, &start, &end),
            viterbi_per_label(&em, &trans, &start, &end),
            "{l} labels, {t} tokens"
        );
    }
}

#[test]
fn the_vocabulary_embeds_narrow_columns_only() {
    let data: Vec<Sequence> = (0..30)
        .map(|i| Sequence {
            rows: vec![vec![
                format!("w{}", i % 4).into(),
                format!("wide{i}").into(),
                ["a", "b"][i % 2].into(),
            ]],
            labels: vec!["<x>".into()],
        })
        .collect();
    let params = DeepParams {
        max_feature_values: 10,
        ..DeepParams::default()
    };
    let v = Vocab::build(&data, &params).unwrap();
    let cols: Vec<usize> = v.features.iter().map(|f| f.column).collect();
    assert_eq!(cols, vec![2], "column 1 has 30 values, more than 10");
    assert_eq!(v.features[0].values, vec!["", "a", "b"]);
    assert_eq!(v.labels, vec!["<x>"]);
    // Digits fold to 0 and words are lower-cased: w0..w3 are one word, seen 30 times.
    assert_eq!(v.words, vec!["", "w0"]);
    assert_eq!(word_key("Abc1999"), "abc0000");
}

#[test]
fn a_tiny_model_learns_saves_and_loads_with_the_same_labels() {
    let data: Vec<Sequence> = (0..60).map(toy).collect();
    let mut epochs = Vec::new();
    let mut trained = train(&data, &small_params(), &mut |p| {
        epochs.push(p.clone());
        true
    })
    .unwrap()
    .expect("not cancelled");
    assert!(!epochs.is_empty());
    assert!(
        epochs.last().unwrap().loss < epochs[0].loss,
        "the loss falls: {epochs:?}"
    );
    let unseen: Vec<Sequence> = (100..112).map(toy).collect();
    let e = trained.model.evaluate(&unseen).unwrap();
    assert!(
        e.field.micro().f1 > 0.95,
        "learnt the toy task: {}",
        e.table()
    );
    let dir = tempfile::tempdir().unwrap();
    let meta = serde_json::json!({"architecture": ARCHITECTURE});
    let bytes = trained.save(dir.path(), meta.clone()).unwrap();
    assert!(bytes > 0);
    let loaded = Model::load(dir.path()).unwrap();
    assert_eq!(loaded.meta(), &meta);
    for s in &unseen {
        assert_eq!(
            loaded.label(&s.rows).unwrap(),
            trained.model.label(&s.rows).unwrap()
        );
    }
    // Batched and one-by-one tagging agree, whatever the lengths.
    let rows: Vec<&[crate::features::Row]> = unseen.iter().map(|s| s.rows.as_slice()).collect();
    let many = loaded.label_many(&rows).unwrap();
    for (s, m) in unseen.iter().zip(&many) {
        assert_eq!(&loaded.label(&s.rows).unwrap(), m);
    }
    // Unknown words and feature values, and an empty sequence, do not fail.
    let odd = vec![vec!["Zyxwv".into(), "never-seen".into()]];
    assert_eq!(loaded.label(&odd).unwrap().len(), 1);
    assert!(loaded.label(&[]).unwrap().is_empty());
}

#[test]
fn a_false_progress_answer_cancels() {
    let data: Vec<Sequence> = (0..20).map(toy).collect();
    let mut seen = 0;
    let r = train(&data, &small_params(), &mut |_| {
        seen += 1;
        false
    })
    .unwrap();
    assert!(r.is_none());
    assert_eq!(seen, 1);
}

#[test]
fn incremental_training_keeps_the_vocabulary_and_starts_from_the_weights() {
    let data: Vec<Sequence> = (0..60).map(toy).collect();
    let mut trained = train(&data, &small_params(), &mut |_| true)
        .unwrap()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    trained.save(dir.path(), serde_json::json!({})).unwrap();
    let one = DeepParams {
        max_epochs: 1,
        ..small_params()
    };
    let first_loss = |start: Option<&Path>| {
        let mut loss = None;
        let t = train_from(&data, &one, start, &mut |p| {
            loss = Some(p.loss);
            true
        })
        .unwrap()
        .unwrap();
        (loss.unwrap(), t)
    };
    let (cold, _) = first_loss(None);
    let (warm, again) = first_loss(Some(dir.path()));
    assert!(warm < cold / 2.0, "warm {warm} against cold {cold}");
    assert_eq!(again.model.vocab().words, trained.model.vocab().words);
    assert!(train_from(&data, &one, Some(Path::new("/nonexistent")), &mut |_| true).is_err());
}

/// A model trained two epochs on the toy data, and the toy sequences `ids` encoded for it.
fn two_epoch_model(ids: &[usize]) -> (Trained, Vec<Encoded>) {
    let data: Vec<Sequence> = (0..30).map(toy).collect();
    let params = DeepParams {
        max_epochs: 2,
        ..small_params()
    };
    let trained = train(&data, &params, &mut |_| true).unwrap().unwrap();
    let m = &trained.model;
    let seqs = ids
        .iter()
        .map(|&i| m.lookup.encode(&m.vocab, &data[i].rows, None))
        .collect();
    (trained, seqs)
}

/// The tagging pass's scores of batch `b` as nested rows, `[b][t][label]`.
fn tagged(m: &Model, b: &Batch) -> Vec<Vec<Vec<f32>>> {
    let labels = m.vocab.labels.len();
    let flat = m.net.emissions_tagging(b, &m.tables().unwrap()).unwrap();
    assert_eq!(flat.len(), b.b * b.t * labels);
    flat.chunks_exact(b.t * labels)
        .map(|seq| seq.chunks_exact(labels).map(<[f32]>::to_vec).collect())
        .collect()
}

#[test]
fn a_padded_batch_scores_each_sequence_as_it_scores_alone() {
    let (trained, seqs) = two_epoch_model(&[0, 1, 2]);
    let m = &trained.model;
    let lens: Vec<usize> = seqs.iter().map(|e| e.words.len()).collect();
    assert!(lens[0] < lens[1] && lens[1] < lens[2], "{lens:?}");
    let items: Vec<&Encoded> = seqs.iter().collect();
    let together = batch(&items, m.vocab.labels.len(), &m.device).unwrap();
    assert!(together.padded.is_some());
    let together = tagged(m, &together);
    for (k, e) in seqs.iter().enumerate() {
        let alone = batch(&[e], m.vocab.labels.len(), &m.device).unwrap();
        let alone = tagged(m, &alone);
        for t in 0..lens[k] {
            for (a, b) in alone[0][t].iter().zip(&together[k][t]) {
                assert!(
                    (a - b).abs() < 1e-4,
                    "sequence {k}, token {t}: {a} against {b}"
                );
            }
        }
    }
}

#[test]
fn the_tagging_lstm_steps_compute_what_the_graph_does() {
    let dev = Device::Cpu;
    let varmap = VarMap::new();
    let vb = VarBuilder::from_varmap(&varmap, DType::F32, &dev);
    // Nine units: 36 gate values, blocks of 32 or 16 summed in registers and 4 after them;
    // 3 sequences step one by one, 9 as two blocks of four and one alone, 5 (of 20 units,
    // 80 gate values in whole blocks) as one block and one alone; 2 of 40 units (160 gate
    // values: one block of 128 and 32 after it).
    for (k, (bn, hd)) in [(3usize, 9usize), (9, 9), (5, 20), (2, 40)]
        .into_iter()
        .enumerate()
    {
        let lstm = Lstm::new(vb.pp(format!("l{k}")), 7, hd).unwrap();
        // Gate inputs well outside tanh's linear range, so the approximation is exercised.
        let bias = Tensor::randn(0f32, 2.0, 4 * hd, &dev).unwrap();
        let lstm = Lstm { bias, ..lstm };
        let x = (Tensor::randn(0f32, 1.0, (bn, 6, 7), &dev).unwrap() * 3.0).unwrap();
        let xw: Vec<f32> = x
            .reshape((bn * 6, 7))
            .unwrap()
            .matmul(&lstm.w_ih.t().unwrap())
            .unwrap()
            .broadcast_add(&lstm.bias)
            .unwrap()
            .flatten_all()
            .unwrap()
            .to_vec1()
            .unwrap();
        let w_hh_t: Vec<f32> = lstm
            .w_hh
            .t()
            .unwrap()
            .contiguous()
            .unwrap()
            .flatten_all()
            .unwrap()
            .to_vec1()
            .unwrap();
        for reverse in [false, true] {
            let a: Vec<f32> = lstm
                .run(&x, reverse)
                .unwrap()
                .flatten_all()
                .unwrap()
                .to_vec1()
                .unwrap();
            let r = Recurrence {
                xw: &xw,
                w_hh_t: &w_hh_t,
                b: bn,
                t: 6,
                hd,
                reverse,
            };
            // The blocked steps sum each gate in the order of the per-sequence ones: the same bits.
            assert_eq!(
                r.steps::<false, 16, 32>(),
                r.steps_per_sequence::<false, 32>()
            );
            // The lanes a register holds (AVX2's 32 and AVX-512's 128 for one sequence) change
            // which sums share a register, never a sum's order: the same bits, fused or not.
            let fused = r.steps_per_sequence::<true, 32>();
            assert_eq!(r.steps_per_sequence::<true, 128>(), fused);
            assert_eq!(r.steps::<true, 16, 32>(), fused);
            assert_eq!(r.steps::<true, 16, 128>(), fused);
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("fma")
                && std::arch::is_x86_feature_detected!("avx2")
            {
                // Whichever kernel the CPU gets (AVX2 or AVX-512) gives those bits.
                assert_eq!(r.run(), fused);
            }
            for b in [
                r.steps::<false, 16, 32>(),
                r.steps_per_sequence::<false, 32>(),
                r.run(),
            ] {
                assert_eq!(a.len(), b.len());
                for (p, q) in a.iter().zip(&b) {
                    assert!(
                        (p - q).abs() < 1e-5,
                        "{bn}x{hd}, reverse {reverse}: {p} against {q}"
                    );
                }
            }
        }
    }
    for x in [-20.0f32, -3.0, -0.5, -1e-5, 0.0, 2e-4, 0.7, 4.0, 9.0] {
        assert!((tanh_f32(x) - x.tanh()).abs() < 2e-7, "tanh {x}");
        assert!(
            (sigmoid_f32(x) - 1.0 / (1.0 + (-x).exp())).abs() < 2e-7,
            "sigmoid {x}"
        );
    }
}

#[test]
fn tagging_scores_are_the_graphs_scores() {
    let (trained, seqs) = two_epoch_model(&[0, 1, 2, 5]);
    let m = &trained.model;
    let padded: Vec<&Encoded> = seqs.iter().collect();
    let even: Vec<&Encoded> = vec![&seqs[0], &seqs[0]];
    for items in [padded, even] {
        assert_tagging_is_the_graph(m, &items);
    }
}

/// The tagging arithmetic gives `items` (one batch) the scores the training graph gives them.
fn assert_tagging_is_the_graph(m: &Model, items: &[&Encoded]) {
    let b = batch(items, m.vocab.labels.len(), &m.device).unwrap();
    let graph = m
        .net
        .emissions_graph(&b, None)
        .unwrap()
        .to_vec3::<f32>()
        .unwrap();
    let tagging = tagged(m, &b);
    for (k, (g, t)) in graph.iter().zip(&tagging).enumerate() {
        let len = items[k].words.len();
        for (pos, (a, b)) in g.iter().zip(t).take(len).enumerate() {
            for (x, y) in a.iter().zip(b) {
                assert!(
                    (x - y).abs() < 1e-4,
                    "sequence {k}, token {pos}: {x} against {y}"
                );
            }
        }
    }
}

#[test]
fn sequences_of_thousands_of_tokens_train() {
    // One toy name repeated into sequences as long as a header or a reference section: the
    // graph candle walks recursively in the backward pass is thousands of steps deep.
    let long = |i: usize| {
        let mut s = toy(i);
        while s.rows.len() < 3000 {
            let t = toy(i + s.rows.len());
            s.rows.extend(t.rows);
            s.labels.extend(t.labels);
        }
        s
    };
    let data: Vec<Sequence> = (0..3).map(long).collect();
    let params = DeepParams {
        max_epochs: 1,
        batch: 2,
        dev_ratio: 0.34,
        ..small_params()
    };
    let trained = train(&data, &params, &mut |_| true).unwrap().unwrap();
    assert_eq!(trained.epochs, 1);
    assert_eq!(
        trained.model.label(&data[0].rows).unwrap().len(),
        data[0].rows.len()
    );
}

#[test]
fn long_training_sequences_are_cut_into_windows_of_one_length() {
    let mut seq = toy(2);
    while seq.rows.len() < 25 {
        let t = toy(seq.rows.len());
        seq.rows.extend(t.rows);
        seq.labels.extend(t.labels);
    }
    let params = small_params();
    let vocab = Vocab::build(std::slice::from_ref(&seq), &params).unwrap();
    let lookup = vocab.lookup();
    let whole = lookup.encode(&vocab, &seq.rows, Some(&seq.labels));
    let len = whole.words.len();
    let windows = lookup
        .encode(&vocab, &seq.rows, Some(&seq.labels))
        .windows(10);
    let lens: Vec<usize> = windows.iter().map(|w| w.words.len()).collect();
    assert_eq!(lens.len(), len.div_ceil(10));
    assert!(lens[..lens.len() - 1].iter().all(|&l| l == 10), "{lens:?}");
    // Laid end to end, the windows are the sequence: words, characters, features, labels.
    let cat = |f: fn(&Encoded) -> Vec<u32>| windows.iter().flat_map(f).collect::<Vec<u32>>();
    assert_eq!(cat(|w| w.words.clone()), whole.words);
    assert_eq!(cat(|w| w.labels.clone()), whole.labels);
    assert_eq!(cat(|w| w.features[0].clone()), whole.features[0]);
    let chars: Vec<Vec<u32>> = windows.iter().flat_map(|w| w.chars.clone()).collect();
    assert_eq!(chars, whole.chars);
    // 0, or a window longer than the sequence, leaves it whole.
    assert_eq!(lookup.encode(&vocab, &seq.rows, None).windows(0).len(), 1);
    assert_eq!(lookup.encode(&vocab, &seq.rows, None).windows(len).len(), 1);
}

/// The frozen channel's weights, row 0 (a word without a vector) first.
fn frozen_table(m: &Model) -> Vec<Vec<f32>> {
    let e = m.net.pre.as_ref().expect("a frozen channel");
    e.embeddings().to_vec2::<f32>().unwrap()
}

/// Word vectors for the toy words (surnames near each other, `and` apart), in a file.
fn toy_vectors(dir: &Path) -> (PathBuf, embed::Embeddings) {
    let e = embed::Embeddings {
        words: vec!["smith".into(), "lee".into(), "and".into(), "zyxwv".into()],
        dim: 4,
        vectors: vec![
            1.0, 0.5, 0.0, 0.0, //
            0.9, 0.6, 0.0, 0.1, //
            0.0, 0.0, 1.0, -1.0, //
            1.0, 0.4, 0.1, 0.0,
        ],
    };
    let path = dir.join("vectors.txt");
    e.write(&path).unwrap();
    (path, e)
}

#[test]
fn the_frozen_word_channel_keeps_its_vectors_and_tags_as_the_graph_does() {
    let dir = tempfile::tempdir().unwrap();
    let (path, vectors) = toy_vectors(dir.path());
    let data: Vec<Sequence> = (0..30).map(toy).collect();
    let params = DeepParams {
        max_epochs: 3,
        embeddings: Some(path),
        ..small_params()
    };
    let mut trained = train(&data, &params, &mut |_| true).unwrap().unwrap();
    let m = &trained.model;
    assert_eq!(m.vocab.params.pretrained_dim, 4);
    assert_eq!(
        m.vocab.pretrained.len(),
        5,
        "the unknown word and the file's four"
    );
    // Three epochs of Adam left the vectors as the file gave them; id 0 is all zeros.
    let table = frozen_table(m);
    assert_eq!(table[0], vec![0.0; 4]);
    for (i, w) in vectors.words.iter().enumerate() {
        let id = m.vocab.pretrained.iter().position(|x| x == w).unwrap();
        assert_eq!(table[id], vectors.vector(w).unwrap(), "{w} (row {i})");
    }
    // A word found in the file by its key (`Zyxwv` is `zyxwv`), one that is not.
    let rows = vec![
        vec!["Zyxwv".into(), "cap".into()],
        vec!["Quux".into(), "cap".into()],
    ];
    let e = m.lookup.encode(&m.vocab, &rows, None);
    assert_eq!(e.pre, vec![4, 0]);
    // The tagging arithmetic reads the frozen channel as the training graph does.
    let seqs: Vec<Encoded> = [0, 1, 2]
        .iter()
        .map(|&i| m.lookup.encode(&m.vocab, &data[i].rows, None))
        .collect();
    assert_tagging_is_the_graph(m, &seqs.iter().collect::<Vec<_>>());
    // Saved and loaded, the model keeps the channel (the vectors file is not needed again).
    let out = tempfile::tempdir().unwrap();
    trained.save(out.path(), serde_json::Value::Null).unwrap();
    std::fs::remove_file(dir.path().join("vectors.txt")).unwrap();
    let loaded = Model::load(out.path()).unwrap();
    assert_eq!(loaded.vocab.pretrained, trained.model.vocab.pretrained);
    for s in &data[..5] {
        assert_eq!(
            loaded.label(&s.rows).unwrap(),
            trained.model.label(&s.rows).unwrap()
        );
    }
    // Its vectors come back out as the file gave them, and a new training can read them
    // from the model's folder.
    assert!(has_frozen_channel(out.path()));
    assert_eq!(loaded.frozen_vectors().unwrap().unwrap(), vectors);
    assert_eq!(read_vectors(out.path()).unwrap(), vectors);
    // Incremental training from it keeps the channel and its vectors.
    let more = train_from(&data, &small_params(), Some(out.path()), &mut |_| true)
        .unwrap()
        .unwrap();
    assert_eq!(more.model.vocab.pretrained, loaded.vocab.pretrained);
    assert_eq!(frozen_table(&more.model), table);
}

#[test]
fn a_model_without_the_channel_writes_no_trace_of_it_and_bad_settings_are_refused() {
    let data: Vec<Sequence> = (0..20).map(toy).collect();
    let params = DeepParams {
        max_epochs: 1,
        ..small_params()
    };
    let mut trained = train(&data, &params, &mut |_| true).unwrap().unwrap();
    assert!(trained.model.net.pre.is_none());
    let out = tempfile::tempdir().unwrap();
    trained.save(out.path(), serde_json::Value::Null).unwrap();
    let vocab = std::fs::read_to_string(out.path().join(VOCAB_FILE)).unwrap();
    assert!(!vocab.contains("pretrained\":"), "{vocab}");
    assert!(!vocab.contains("embeddings"), "{vocab}");
    assert!(Model::load(out.path()).unwrap().net.pre.is_none());
    assert!(!has_frozen_channel(out.path()));
    assert!(Model::load(out.path())
        .unwrap()
        .frozen_vectors()
        .unwrap()
        .is_none());
    assert!(matches!(read_vectors(out.path()), Err(Error::BadInput(_))));
    let missing = DeepParams {
        embeddings: Some(PathBuf::from("/nonexistent/vectors.txt")),
        ..params.clone()
    };
    assert!(matches!(
        train(&data, &missing, &mut |_| true),
        Err(Error::BadInput(_))
    ));
    let dropout = DeepParams {
        dropout: 1.0,
        ..params
    };
    assert!(matches!(
        train(&data, &dropout, &mut |_| true),
        Err(Error::BadInput(_))
    ));
}

#[test]
fn a_seeded_training_with_dropout_is_reproducible() {
    let data: Vec<Sequence> = (0..40).map(toy).collect();
    let params = DeepParams {
        dropout: 0.3,
        max_epochs: 3,
        ..small_params()
    };
    let weights = |p: &DeepParams| -> Vec<(String, Vec<f32>)> {
        let t = train(&data, p, &mut |_| true).unwrap().unwrap();
        let vars = t.varmap.data().lock().unwrap();
        let mut w: Vec<(String, Vec<f32>)> = vars
            .iter()
            .map(|(n, v)| {
                let values = v.as_tensor().flatten_all().unwrap().to_vec1().unwrap();
                (n.clone(), values)
            })
            .collect();
        w.sort_by(|a, b| a.0.cmp(&b.0));
        w
    };
    let first = weights(&params);
    assert!(first.len() > 5, "the network's weights: {}", first.len());
    assert_eq!(first, weights(&params), "the same seed, the same model");
    let other = weights(&DeepParams { seed: 2, ..params });
    assert_eq!(first.len(), other.len());
    assert_ne!(first, other, "another seed, another model");
}

#[test]
fn tagging_products_are_candles_to_the_bit() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    let dev = Device::Cpu;
    // The shapes tagging multiplies: tokens × inputs by inputs × 4H (a contiguous matrix),
    // and tokens × 2H by the output layer's weights transposed (a strided view).
    for &(m, k, n) in &[
        (1, 112, 384),
        (37, 112, 384),
        (613, 176, 384),
        (300, 192, 38),
        (5, 192, 6),
    ] {
        let lhs: Vec<f32> = (0..m * k).map(|_| rng.random_range(-1.0f32..1.0)).collect();
        let rhs: Vec<f32> = (0..k * n).map(|_| rng.random_range(-1.0f32..1.0)).collect();
        let x = Tensor::from_vec(lhs.clone(), (m, k), &dev).unwrap();
        let candle = |w: &Tensor| -> Vec<f32> {
            x.matmul(w)
                .unwrap()
                .flatten_all()
                .unwrap()
                .to_vec1()
                .unwrap()
        };
        let w = Tensor::from_vec(rhs.clone(), (k, n), &dev).unwrap();
        assert_eq!(
            network::matmul(m, n, k, &lhs, k, &rhs, 1, n).unwrap(),
            candle(&w),
            "{m}×{k}×{n}"
        );
        // The same values read as the transpose of an `[n, k]` weight matrix, as `Linear` does.
        let wt = Tensor::from_vec(rhs.clone(), (n, k), &dev).unwrap();
        assert_eq!(
            network::matmul(m, n, k, &lhs, k, &rhs, k, 1).unwrap(),
            candle(&wt.t().unwrap()),
            "{m}×{k}×{n}ᵀ"
        );
    }
    // Operands too short for the shape are refused, not read past.
    assert!(network::matmul(2, 3, 4, &[0.0; 7], 4, &[0.0; 12], 1, 3).is_err());
    assert!(network::matmul(2, 3, 4, &[0.0; 8], 4, &[0.0; 11], 1, 3).is_err());
}

/// Tagging multiplies each distinct input row once and copies its product to the tokens that
/// share it; that is bit-identical to multiplying every token's row only because a row of the
/// product depends on its own input row alone, whichever rows are multiplied with it and
/// wherever it sits among them (single rows included).
#[test]
fn a_projection_row_is_the_same_whatever_rows_share_the_product() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    for &(m, k, n) in &[(613, 176, 384), (3400, 112, 384), (97, 112, 384)] {
        let lhs: Vec<f32> = (0..m * k).map(|_| rng.random_range(-1.0f32..1.0)).collect();
        let rhs: Vec<f32> = (0..k * n).map(|_| rng.random_range(-1.0f32..1.0)).collect();
        let all = network::matmul(m, n, k, &lhs, k, &rhs, 1, n).unwrap();
        for sub in [1, 2, 5, 16, 17, 33, 301] {
            let picks: Vec<usize> = (0..sub).map(|i| (i * 7919 + 3) % m).collect();
            let some: Vec<f32> = picks
                .iter()
                .flat_map(|&p| lhs[p * k..(p + 1) * k].iter().copied())
                .collect();
            let part = network::matmul(sub, n, k, &some, k, &rhs, 1, n).unwrap();
            for (j, &p) in picks.iter().enumerate() {
                let whole = all[p * n..(p + 1) * n].iter().map(|v| v.to_bits());
                let alone = part[j * n..(j + 1) * n].iter().map(|v| v.to_bits());
                assert!(whole.eq(alone), "{m}×{k}×{n}: row {p} among {sub}");
            }
        }
    }
}
