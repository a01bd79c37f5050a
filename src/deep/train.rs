//! Training: seeded initialisation, batches, the epoch loop and the choice of the best epoch.

use super::*;

/// Stack for one training step: candle walks (and drops) the computation graph recursively,
/// and a graph over a sequence of thousands of tokens (a header, a reference section) is
/// deeper than a thread's default stack. Reserved address space; pages are used as touched.
pub(super) const STEP_STACK_BYTES: usize = 1 << 30;

/// Runs `step` (forward, backward, and the graph's drop) on a thread with
/// [`STEP_STACK_BYTES`] of stack.
pub(super) fn step_with_deep_stack<T: Send>(
    step: impl FnOnce() -> candle_core::Result<T> + Send,
) -> Result<T> {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("quire-train-step".into())
            .stack_size(STEP_STACK_BYTES)
            .spawn_scoped(s, step)
            .map_err(|e| Error::General(format!("cannot start a training step: {e}")))?
            .join()
            .map_err(|_| Error::General("a training step panicked".into()))?
            .map_err(cerr)
    })
}

/// Indexes grouped by sequence length, at most `size` a group, shuffled (training batches).
pub(super) fn length_groups(
    data: &[Encoded],
    size: usize,
    rng: &mut rand::rngs::StdRng,
) -> Vec<Vec<usize>> {
    let mut by_len: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for (i, e) in data.iter().enumerate() {
        by_len.entry(e.words.len()).or_default().push(i);
    }
    let mut groups = Vec::new();
    for (_, mut ids) in by_len {
        ids.shuffle(rng);
        groups.extend(ids.chunks(size.max(1)).map(<[usize]>::to_vec));
    }
    groups.shuffle(rng);
    groups
}

/// Every variable's tensor, by name.
pub(super) type Snapshot = Vec<(String, Tensor)>;

/// Copies of every variable, by name.
pub(super) fn snapshot(varmap: &VarMap) -> candle_core::Result<Snapshot> {
    let vars = varmap.data().lock().expect("varmap lock");
    vars.iter()
        .map(|(n, v)| Ok((n.clone(), v.as_tensor().copy()?)))
        .collect()
}

/// Creates the network's weights in `vars` from a seeded generator (candle draws a CPU
/// tensor's random values from an unseeded one), with the distribution each layer asks for,
/// so that a training with the same seed and data starts from the same weights.
pub(super) struct SeededInit {
    pub(super) vars: VarMap,
    pub(super) rng: std::sync::Mutex<rand::rngs::StdRng>,
}

impl SeededInit {
    pub(super) fn draw(
        &self,
        shape: &candle_core::Shape,
        init: candle_nn::Init,
    ) -> candle_core::Result<Vec<f32>> {
        use candle_nn::init::{Init, NormalOrUniform};
        use rand_distr::Distribution;
        let n = shape.elem_count();
        let mut rng = self.rng.lock().expect("initialiser lock");
        let normal = |rng: &mut rand::rngs::StdRng, mean: f64, std: f64| {
            let d = rand_distr::Normal::new(mean, std)
                .map_err(|e| candle_core::Error::Msg(format!("initialiser: {e}")))?;
            Ok::<_, candle_core::Error>((0..n).map(|_| d.sample(rng) as f32).collect())
        };
        let uniform = |rng: &mut rand::rngs::StdRng, lo: f64, up: f64| {
            (0..n)
                .map(|_| (lo + (up - lo) * rng.random::<f64>()) as f32)
                .collect()
        };
        Ok(match init {
            Init::Const(c) => vec![c as f32; n],
            Init::Randn { mean, stdev } => normal(&mut rng, mean, stdev)?,
            Init::Uniform { lo, up } => uniform(&mut rng, lo, up),
            Init::Kaiming {
                dist,
                fan,
                non_linearity,
            } => {
                let std = non_linearity.gain() / (fan.for_shape(shape) as f64).sqrt();
                match dist {
                    NormalOrUniform::Normal => normal(&mut rng, 0.0, std)?,
                    NormalOrUniform::Uniform => {
                        let bound = 3f64.sqrt() * std;
                        uniform(&mut rng, -bound, bound)
                    }
                }
            }
        })
    }
}

impl candle_nn::var_builder::SimpleBackend for SeededInit {
    fn get(
        &self,
        shape: candle_core::Shape,
        name: &str,
        init: candle_nn::Init,
        dtype: DType,
        dev: &Device,
    ) -> candle_core::Result<Tensor> {
        if let Some(var) = self.vars.data().lock().expect("varmap lock").get(name) {
            let t = var.as_tensor();
            if t.shape() != &shape {
                candle_core::bail!("`{name}` has shape {:?}, asked for {shape:?}", t.shape());
            }
            return t.to_dtype(dtype);
        }
        let values = self.draw(&shape, init)?;
        let var =
            candle_core::Var::from_tensor(&Tensor::from_vec(values, shape, dev)?.to_dtype(dtype)?)?;
        let t = var.as_tensor().clone();
        self.vars
            .data()
            .lock()
            .expect("varmap lock")
            .insert(name.to_string(), var);
        Ok(t)
    }

    fn get_unchecked(&self, name: &str, dtype: DType, _: &Device) -> candle_core::Result<Tensor> {
        match self.vars.data().lock().expect("varmap lock").get(name) {
            Some(var) => var.as_tensor().to_dtype(dtype),
            None => candle_core::bail!("no weight `{name}`"),
        }
    }

    fn contains_tensor(&self, name: &str) -> bool {
        self.vars
            .data()
            .lock()
            .expect("varmap lock")
            .contains_key(name)
    }
}

/// Mixed into the seed for the initial weights and for the dropout masks, so that the two
/// generators and the one that shuffles the data draw different streams.
pub(super) const INIT_SEED: u64 = 0x51ed_1a17;
pub(super) const DROPOUT_SEED: u64 = 0xd50f_0a7e;

/// A fresh LSTM's forget gates start open (bias 1; gate order input, forget, cell, output).
pub(super) fn forget_gate_bias(varmap: &VarMap, hidden: usize) -> candle_core::Result<()> {
    let vars = varmap.data().lock().expect("varmap lock");
    for (name, var) in vars.iter() {
        if name.ends_with(".bias") && name.starts_with("lstm_") {
            let v: Vec<f32> = (0..4 * hidden)
                .map(|i| {
                    if (hidden..2 * hidden).contains(&i) {
                        1.0
                    } else {
                        0.0
                    }
                })
                .collect();
            var.set(&Tensor::from_vec(v, 4 * hidden, var.device())?)?;
        }
    }
    Ok(())
}

/// A finished training: the model in memory and what to write.
pub struct Trained {
    pub model: Model,
    pub(super) varmap: VarMap,
    pub epochs: usize,
    pub best_epoch: usize,
    pub best_dev_f1: f64,
    pub seconds: f64,
}

/// Train on `data`; a share ([`DeepParams::dev_ratio`]) is held out to pick the epoch.
/// `progress` is called after each epoch and stops the training when it answers `false`
/// (the training then returns `Ok(None)`).
pub fn train(
    data: &[Sequence],
    params: &DeepParams,
    progress: &mut dyn FnMut(&EpochProgress) -> bool,
) -> Result<Option<Trained>> {
    train_from(data, params, None, progress)
}

/// As [`train`]; with `start` (a saved model's folder) the training keeps that model's
/// vocabulary and sizes and starts from its weights (incremental training: words, characters
/// and feature values it does not know stay unknown). `params` gives the training settings.
pub fn train_from(
    data: &[Sequence],
    params: &DeepParams,
    start: Option<&Path>,
    progress: &mut dyn FnMut(&EpochProgress) -> bool,
) -> Result<Option<Trained>> {
    if !(0.0..1.0).contains(&params.dropout) {
        return Err(Error::BadInput(format!(
            "a dropout rate is at least 0 and under 1, not {}",
            params.dropout
        )));
    }
    let started = Instant::now();
    let mut rng = rand::rngs::StdRng::seed_from_u64(params.seed);
    let mut order: Vec<usize> = (0..data.len()).collect();
    order.shuffle(&mut rng);
    let held = ((data.len() as f64) * params.dev_ratio).round() as usize;
    let held = held.min(data.len().saturating_sub(1));
    let (dev_ids, train_ids) = order.split_at(held);
    let train_data: Vec<Sequence> = train_ids.iter().map(|&i| data[i].clone()).collect();
    let dev_data: Vec<Sequence> = dev_ids.iter().map(|&i| data[i].clone()).collect();
    let device = Device::Cpu;
    let varmap = VarMap::new();
    let init = SeededInit {
        vars: varmap.clone(),
        rng: std::sync::Mutex::new(rand::rngs::StdRng::seed_from_u64(params.seed ^ INIT_SEED)),
    };
    let vb = VarBuilder::from_backend(Box::new(init), DType::F32, device.clone());
    let mut dropout_rng = rand::rngs::StdRng::seed_from_u64(params.seed ^ DROPOUT_SEED);
    let (vocab, net) = match start {
        Some(dir) => {
            let old = Model::load(dir)?;
            let mut vocab = old.vocab.clone();
            let sizes = vocab.params.clone();
            vocab.params = DeepParams {
                word_dim: sizes.word_dim,
                char_dim: sizes.char_dim,
                char_filters: sizes.char_filters,
                max_chars: sizes.max_chars,
                feature_dim: sizes.feature_dim,
                max_feature_values: sizes.max_feature_values,
                hidden: sizes.hidden,
                embeddings: sizes.embeddings.clone(),
                pretrained_dim: sizes.pretrained_dim,
                ..params.clone()
            };
            let net = Net::new(&vocab, vb).map_err(cerr)?;
            let tensors =
                candle_core::safetensors::load(dir.join(WEIGHTS_FILE), &device).map_err(cerr)?;
            let vars = varmap.data().lock().expect("varmap lock");
            for (name, var) in vars.iter() {
                let t = tensors.get(name).ok_or_else(|| {
                    Error::General(format!("{}: no tensor `{name}`", dir.display()))
                })?;
                var.set(t).map_err(cerr)?;
            }
            (vocab, net)
        }
        None => {
            let mut vocab = Vocab::build(&train_data, params)?;
            let vectors = match &params.embeddings {
                Some(path) => {
                    let e = read_vectors(path)?;
                    vocab.pretrained = std::iter::once(String::new())
                        .chain(e.words.iter().cloned())
                        .collect();
                    vocab.params.pretrained_dim = e.dim;
                    let mut v = vec![0f32; e.dim];
                    v.extend_from_slice(&e.vectors);
                    Some(
                        Tensor::from_vec(v, (vocab.pretrained.len(), e.dim), &device)
                            .map_err(cerr)?,
                    )
                }
                None => {
                    vocab.params.pretrained_dim = 0;
                    None
                }
            };
            let net = Net::new(&vocab, vb).map_err(cerr)?;
            forget_gate_bias(&varmap, params.hidden).map_err(cerr)?;
            if let Some(v) = vectors {
                let vars = varmap.data().lock().expect("varmap lock");
                let var = vars
                    .iter()
                    .find(|(name, _)| is_frozen(name))
                    .map(|(_, var)| var)
                    .ok_or_else(|| Error::General("the network has no frozen channel".into()))?;
                var.set(&v).map_err(cerr)?;
            }
            (vocab, net)
        }
    };
    let lookup = vocab.lookup();
    let encoded: Vec<Encoded> = train_data
        .iter()
        .filter(|s| !s.rows.is_empty())
        .map(|s| lookup.encode(&vocab, &s.rows, Some(&s.labels)))
        .flat_map(|e| e.windows(params.max_length))
        .collect();
    // The frozen channel's vectors are weights of the network but not trained.
    let trained_vars: Vec<candle_core::Var> = {
        let vars = varmap.data().lock().expect("varmap lock");
        let mut named: Vec<(&String, &candle_core::Var)> =
            vars.iter().filter(|(name, _)| !is_frozen(name)).collect();
        named.sort_by(|a, b| a.0.cmp(b.0));
        named.into_iter().map(|(_, v)| v.clone()).collect()
    };
    let mut opt = candle_nn::AdamW::new(
        trained_vars,
        candle_nn::ParamsAdamW {
            lr: params.learning_rate,
            weight_decay: 0.0,
            ..Default::default()
        },
    )
    .map_err(cerr)?;
    let model = Model {
        label_set: crate::labels::LabelSet::new(vocab.labels.clone()),
        vocab,
        lookup: Box::new(lookup),
        net,
        device: device.clone(),
        meta: serde_json::Value::Null,
        tables: Default::default(),
    };
    let mut best: Option<(f64, usize, Snapshot)> = None;
    let mut epoch = 0;
    while epoch < params.max_epochs {
        epoch += 1;
        let mut total = 0.0;
        let mut sequences = 0usize;
        for group in length_groups(&encoded, params.batch, &mut rng) {
            let items: Vec<&Encoded> = group.iter().map(|&i| &encoded[i]).collect();
            let b = batch(&items, model.vocab.labels.len(), &device)?;
            let loss = step_with_deep_stack(|| {
                let loss = model.net.loss(&b, &mut dropout_rng)?;
                opt.backward_step(&loss)?;
                loss.to_scalar::<f32>()
            })?;
            total += loss as f64 * items.len() as f64;
            sequences += items.len();
        }
        model.forget_tables();
        let dev_f1 = if dev_data.is_empty() {
            0.0
        } else {
            100.0 * model.evaluate(&dev_data)?.field.micro().f1
        };
        let improved = best.as_ref().is_none_or(|(f, _, _)| dev_f1 > *f);
        if improved {
            let snapshot = snapshot(&varmap).map_err(cerr)?;
            best = Some((dev_f1, epoch, snapshot));
        }
        let best_epoch = best.as_ref().map_or(epoch, |b| b.1);
        let go_on = progress(&EpochProgress {
            epoch,
            loss: total / sequences.max(1) as f64,
            dev_f1,
            best_epoch,
            elapsed_s: started.elapsed().as_secs_f64(),
        });
        if !go_on {
            return Ok(None);
        }
        if epoch - best_epoch >= params.patience {
            break;
        }
    }
    let (best_dev_f1, best_epoch, kept) = best.expect("at least one epoch ran");
    {
        let vars = varmap.data().lock().expect("varmap lock");
        for (name, t) in &kept {
            vars[name].set(t).map_err(cerr)?;
        }
    }
    model.forget_tables();
    Ok(Some(Trained {
        model,
        varmap,
        epochs: epoch,
        best_epoch,
        best_dev_f1,
        seconds: started.elapsed().as_secs_f64(),
    }))
}
