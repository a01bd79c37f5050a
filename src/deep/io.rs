//! Model files: loading and saving a BiLSTM-CRF, reading word vectors.

use super::*;

impl Model {
    /// Load `dir` (`model.safetensors`, `vocab.json`, `meta.json`).
    pub fn load(dir: &Path) -> Result<Model> {
        let read = |name: &str| {
            std::fs::read(dir.join(name))
                .map_err(|e| Error::General(format!("reading {}: {e}", dir.join(name).display())))
        };
        let vocab: Vocab = serde_json::from_slice(&read(VOCAB_FILE)?)
            .map_err(|e| Error::General(format!("{VOCAB_FILE}: {e}")))?;
        let meta: serde_json::Value =
            serde_json::from_slice(&read(META_FILE)?).unwrap_or(serde_json::Value::Null);
        let device = Device::Cpu;
        let tensors =
            candle_core::safetensors::load(dir.join(WEIGHTS_FILE), &device).map_err(cerr)?;
        let vb = VarBuilder::from_tensors(tensors, DType::F32, &device);
        let net = Net::new(&vocab, vb).map_err(cerr)?;
        Ok(Model {
            label_set: crate::labels::LabelSet::new(vocab.labels.clone()),
            lookup: Box::new(vocab.lookup()),
            vocab,
            net,
            device,
            meta,
            tables: Default::default(),
        })
    }
}

impl Trained {
    /// Write `model.safetensors`, `vocab.json` and `meta.json` into `dir`; the bytes of the
    /// weights file.
    pub fn save(&mut self, dir: &Path, meta: serde_json::Value) -> Result<usize> {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::General(format!("creating {}: {e}", dir.display())))?;
        let weights = dir.join(WEIGHTS_FILE);
        self.varmap.save(&weights).map_err(cerr)?;
        let write = |name: &str, json: serde_json::Result<String>| {
            let text = json.map_err(|e| Error::General(format!("{name}: {e}")))?;
            std::fs::write(dir.join(name), text)
                .map_err(|e| Error::General(format!("writing {name}: {e}")))
        };
        write(VOCAB_FILE, serde_json::to_string_pretty(&self.model.vocab))?;
        write(META_FILE, serde_json::to_string_pretty(&meta))?;
        self.model.meta = meta;
        std::fs::metadata(&weights)
            .map(|m| m.len() as usize)
            .map_err(|e| Error::General(format!("{e}")))
    }
}

/// Word vectors for [`DeepParams::embeddings`]: a file in word2vec's text format, or a
/// BiLSTM-CRF folder whose frozen channel is read (so that retraining a model keeps the
/// vectors it was trained with).
pub fn read_vectors(path: &Path) -> Result<embed::Embeddings> {
    if !path.is_dir() {
        return embed::Embeddings::read(path);
    }
    Model::load(path)?.frozen_vectors()?.ok_or_else(|| {
        Error::BadInput(format!(
            "{}: the BiLSTM-CRF has no frozen word channel",
            path.display()
        ))
    })
}

/// Whether the BiLSTM-CRF in `dir` reads a frozen word channel (from its `vocab.json`).
pub fn has_frozen_channel(dir: &Path) -> bool {
    std::fs::read(dir.join(VOCAB_FILE))
        .ok()
        .and_then(|b| serde_json::from_slice::<Vocab>(&b).ok())
        .is_some_and(|v| !v.pretrained.is_empty())
}
