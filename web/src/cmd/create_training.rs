//! `quire create-training PDF... --out DIR`: the training data of `/api/createTraining` for each
//! PDF, through the service's own pipeline in this process, written into one dataset folder
//! (`DIR/<model>/corpus/…`) that `quire train <model> --dataset DIR` and `quire corpus <model>
//! --dataset DIR` read back.

use std::path::PathBuf;

use anyhow::Context;
use quire::flavor::Flavor;
use quire_actors::cascade::training::CreateTraining;

use crate::cmd::batch::local_pipeline;
use crate::cmd::serve::load_config_file;
use crate::routes::fulltext::upload_stem;

#[derive(Debug, Clone, clap::Args)]
pub struct CreateTrainingArgs {
    /// The PDFs.
    #[arg(required = true)]
    pub pdfs: Vec<PathBuf>,
    /// Dataset folder the files are written to (created if needed).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// `article/light` or `article/light-ref`: the flavoured models label.
    #[arg(long)]
    pub flavor: Option<String>,
    /// Configuration file (models, libpdfium, limits), as for `quire serve`.
    #[arg(long)]
    pub config: Option<PathBuf>,
}

pub fn run(args: CreateTrainingArgs) -> anyhow::Result<()> {
    let config = load_config_file(args.config.clone())?;
    crate::logging::init("warn", false);
    let flavor = match args.flavor.as_deref() {
        None => None,
        Some(f) => match Flavor::named_in(f, &Flavor::TRAINING_FILES) {
            Some(f) => Some(f),
            None => anyhow::bail!("--flavor `{f}`: use article/light or article/light-ref"),
        },
    };
    let mut failed = 0usize;
    actix_web::rt::System::new().block_on(async {
        let (pipeline, _workers) = local_pipeline(&config, 1)?;
        for pdf in &args.pdfs {
            let bytes =
                std::fs::read(pdf).with_context(|| format!("cannot read {}", pdf.display()))?;
            let stem = upload_stem(pdf.file_name().and_then(|n| n.to_str()));
            match pipeline
                .run(CreateTraining {
                    pdf: bytes,
                    flavor,
                    stem,
                })
                .await
            {
                Ok(files) => {
                    for f in &files {
                        let path = args.out.join(&f.path);
                        if let Some(dir) = path.parent() {
                            std::fs::create_dir_all(dir)
                                .with_context(|| format!("cannot create {}", dir.display()))?;
                        }
                        std::fs::write(&path, &f.text)
                            .with_context(|| format!("cannot write {}", path.display()))?;
                    }
                    println!("{}: {} files", pdf.display(), files.len());
                }
                Err(e) => {
                    failed += 1;
                    eprintln!("{}: {e}", pdf.display());
                }
            }
        }
        anyhow::Ok(())
    })?;
    anyhow::ensure!(failed == 0, "{failed} PDF(s) failed");
    Ok(())
}
