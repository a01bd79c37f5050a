/*!
`quire convert --to markdown|json FILE.tei.xml`: a TEI answer (from any endpoint, saved to a
file) rendered as Markdown or JSON by the engine's converter (`quire::tei::convert`). It reads
TEI only, never a PDF; `-` reads standard input. The result goes to standard output, or to
`--output FILE`. A document that is not well-formed TEI is an error naming the file and line,
with a non-zero exit status.
*/

use std::io::Read as _;
use std::path::PathBuf;

use anyhow::{bail, Context};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Markdown,
    Json,
}

#[derive(Debug, clap::Args)]
pub struct ConvertArgs {
    /// The rendering to write.
    #[arg(long = "to", value_enum)]
    pub to: Format,
    /// Write here instead of standard output.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// The TEI file (`-`: standard input).
    pub input: PathBuf,
}

/// The rendering of `xml`, or why it cannot be made.
pub fn convert(xml: &str, to: Format) -> Result<String, quire::tei::convert::ConvertError> {
    match to {
        Format::Markdown => quire::tei::convert::markdown(xml),
        Format::Json => quire::tei::convert::json_text(xml),
    }
}

pub fn run(args: ConvertArgs) -> anyhow::Result<()> {
    let name = args.input.display().to_string();
    let bytes = if name == "-" {
        let mut b = Vec::new();
        std::io::stdin()
            .read_to_end(&mut b)
            .context("cannot read standard input")?;
        b
    } else {
        std::fs::read(&args.input).with_context(|| format!("cannot read {name}"))?
    };
    if bytes.starts_with(b"%PDF") {
        bail!("{name} is a PDF; `quire convert` reads TEI (process the PDF first, e.g. with processFulltextDocument)");
    }
    let Ok(xml) = std::str::from_utf8(&bytes) else {
        bail!("{name}: not UTF-8 text, so not a TEI document");
    };
    let out = convert(xml, args.to).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    match &args.output {
        Some(path) => {
            std::fs::write(path, out).with_context(|| format!("cannot write {}", path.display()))?
        }
        None => {
            use std::io::Write as _;
            std::io::stdout()
                .write_all(out.as_bytes())
                .context("cannot write standard output")?;
        }
    }
    Ok(())
}
