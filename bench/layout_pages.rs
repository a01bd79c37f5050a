//! Layout speed, pages per second on one core (run it under `taskset -c 0`):
//! (a) pdfium extraction alone (every character with its box, origin, font, size, colour,
//! plus images, paths and links: `Pdfium::extract`), (b) Quire's full layout (extraction +
//! words, lines, blocks, GROBID tokens), (c) pdfalto 0.6.3 with GROBID's flags, when `pdfalto`
//! is on the PATH (a process per PDF, as GROBID runs it; its ALTO goes to a temporary folder).
//!
//! `cargo bench --bench layout_pages [-- DIR...]`; default DIRs are `../shared/pdfs/articles`,
//! `../shared/eval/pmlr-v2`, `../shared/eval/jose`. Needs libpdfium (see
//! `quire::layout::pdfium::resolve_library`); prints "skipped: ..." without it or the PDFs.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use quire::layout::build::{build_document, Limits};
use quire::layout::pdfium::{resolve_library, Pdfium};
use quire::layout::PageRange;

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let dirs: Vec<PathBuf> = if args.is_empty() {
        [
            "../shared/pdfs/articles",
            "../shared/eval/pmlr-v2",
            "../shared/eval/jose",
        ]
        .iter()
        .map(PathBuf::from)
        .collect()
    } else {
        args.iter().map(PathBuf::from).collect()
    };
    let mut pdfs: Vec<PathBuf> = Vec::new();
    for d in &dirs {
        let Ok(rd) = std::fs::read_dir(d) else {
            println!("skipped: {} not found", d.display());
            continue;
        };
        let mut v: Vec<PathBuf> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "pdf"))
            .collect();
        v.sort();
        pdfs.extend(v);
    }
    if pdfs.is_empty() {
        println!("skipped: no PDFs");
        return;
    }
    if resolve_library(None).is_none() {
        println!("skipped: libpdfium not found");
        return;
    }
    let lib = Pdfium::get(None).expect("pdfium binds");
    let data: Vec<Vec<u8>> = pdfs
        .iter()
        .map(|p| std::fs::read(p).expect("readable"))
        .collect();

    // Warm-up (page cache, lazy font loading in pdfium).
    for d in &data {
        let _ = lib.extract(d, PageRange::default());
    }

    let mut pages = 0usize;
    let mut extract = Duration::ZERO;
    let mut full = Duration::ZERO;
    for d in &data {
        let t = Instant::now();
        let raw = lib.extract(d, PageRange::default()).expect("extracts");
        extract += t.elapsed();
        pages += raw.len();
        let t = Instant::now();
        let raw = lib.extract(d, PageRange::default()).expect("extracts");
        let _ = build_document(&raw, Limits::default());
        full += t.elapsed();
    }
    let rate = |d: Duration| pages as f64 / d.as_secs_f64();
    println!("{} PDFs, {} pages", data.len(), pages);
    println!("(a) pdfium extraction   {:8.1} pages/s", rate(extract));
    println!("(b) Quire full layout   {:8.1} pages/s", rate(full));

    let out = std::env::temp_dir().join(format!("quire-bench-alto-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&out);
    let t = Instant::now();
    let mut ok = true;
    for (i, p) in pdfs.iter().enumerate() {
        let status = std::process::Command::new("pdfalto")
            .args(["-fullFontName", "-noLineNumbers", "-noImage", "-annotation"])
            .args(["-filesLimit", "2000"])
            .arg(p)
            .arg(out.join(format!("{i}.xml")))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status();
        if status.is_err() {
            ok = false;
            break;
        }
    }
    let alto = t.elapsed();
    let _ = std::fs::remove_dir_all(&out);
    if ok {
        println!("(c) pdfalto             {:8.1} pages/s", rate(alto));
        println!(
            "ratios: (b)/(a) = {:.2}, (b)/(c) = {:.2}",
            rate(full) / rate(extract),
            rate(full) / rate(alto)
        );
    } else {
        println!("(c) pdfalto: skipped (not on the PATH)");
        println!("ratio: (b)/(a) = {:.2}", rate(full) / rate(extract));
    }
}
