/*!
`quire layout FILE.pdf [--start N] [--end N]`: lay a PDF out in this process and print the
`Document` (pages → blocks → lines → tokens, with boxes and fonts) as JSON, or as plain text
with `--text` (one line per layout line, a blank line between blocks).
*/

use std::path::PathBuf;

use quire::layout::{layout_pdf, Limits, PageRange};

/// Arguments of `quire layout`.
#[derive(Debug, Clone, clap::Args)]
pub struct LayoutArgs {
    /// The PDF to lay out.
    pub file: PathBuf,
    /// First page (from 1); -1 = from the start.
    #[arg(long, default_value_t = -1, allow_negative_numbers = true)]
    pub start: i64,
    /// Last page; -1 = to the end.
    #[arg(long, default_value_t = -1, allow_negative_numbers = true)]
    pub end: i64,
    /// Print the text only (lines; blocks separated by a blank line).
    #[arg(long)]
    pub text: bool,
    /// Print pdfium's characters instead (debugging): char, loose box, origin, style.
    #[arg(long)]
    pub raw: bool,
    /// Path of libpdfium.so.
    #[arg(long)]
    pub pdfium: Option<PathBuf>,
}

pub fn run(args: LayoutArgs) -> anyhow::Result<()> {
    match print(args) {
        // `quire layout x.pdf | head` is normal use, not an error.
        Err(e)
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            Ok(())
        }
        other => other,
    }
}

fn print(args: LayoutArgs) -> anyhow::Result<()> {
    let pdf = std::fs::read(&args.file)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", args.file.display()))?;
    let range = PageRange::from_grobid(args.start, args.end);
    if args.raw {
        let lib = quire::layout::pdfium::Pdfium::get(args.pdfium.as_deref())?;
        let pages = lib.extract(&pdf, range)?;
        let stdout = std::io::stdout();
        let mut out = std::io::BufWriter::new(stdout.lock());
        use std::io::Write;
        for p in &pages {
            writeln!(out, "=== page {} ({} x {})", p.number, p.width, p.height)?;
            for (i, s) in p.styles.iter().enumerate() {
                writeln!(out, "style {i}: {s:?}")?;
            }
            for c in &p.chars {
                writeln!(
                    out,
                    "{:?}\t{:.2} {:.2} {:.2} {:.2}\to {:.2} {:.2}\ts{}",
                    c.c, c.x0, c.y0, c.x1, c.y1, c.ox, c.oy, c.style
                )?;
            }
        }
        out.flush()?;
        return Ok(());
    }
    let doc = layout_pdf(&pdf, range, Limits::default(), args.pdfium.as_deref())
        .map_err(|e| anyhow::anyhow!("{}: {e}", e.code()))?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    use std::io::Write;
    if args.text {
        for page in &doc.pages {
            writeln!(out, "=== page {} ===", page.number)?;
            for block in &page.blocks {
                for line in &block.lines {
                    writeln!(out, "{}", line.text())?;
                }
                writeln!(out)?;
            }
        }
    } else {
        serde_json::to_writer(&mut out, &doc)?;
        writeln!(out)?;
    }
    Ok(())
}
