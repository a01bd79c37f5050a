//! `quire batch` over a folder holding a good PDF and a broken one (in a subfolder): the good
//! one's TEI is written, the broken one's error file holds the service's error body and the run
//! goes on; a second run skips what was written; `--force` redoes it; `-teiCoordinates` (GROBID's
//! spelling) is accepted; `--endpoint header` and `references` write their own answers. Needs
//! the trained models and libpdfium.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{models_present, pdfium_lib, repo_root};
use crate::fulltext::NEEDED;
use crate::references::article;

/// Runs `quire batch` with `args`; (success, stdout, stderr).
fn batch(config: &Path, input: &Path, output: &Path, args: &[&str]) -> (bool, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_quire"));
    cmd.arg("batch")
        .arg("--config")
        .arg(config)
        .arg("--input")
        .arg(input)
        .arg("--output")
        .arg(output)
        .args(args);
    for (k, _) in std::env::vars() {
        if k.starts_with("QUIRE_") {
            cmd.env_remove(k);
        }
    }
    let out = cmd.output().expect("run quire batch");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A temporary folder holding a config with the repository's models and libpdfium; `None`
/// (the test skips) when either is missing.
fn batch_config() -> Option<(tempfile::TempDir, PathBuf)> {
    if !models_present(&NEEDED) {
        return None;
    }
    let pdfium = pdfium_lib()?;
    let dir = tempfile::tempdir().expect("temp");
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[models]\ndir = {:?}\npdfium_lib = {:?}\n",
            repo_root().join("models").display().to_string(),
            pdfium.display().to_string()
        ),
    )
    .expect("config");
    Some((dir, config))
}

#[test]
fn batch_writes_answers_and_error_files_and_resumes() {
    let Some((dir, config)) = batch_config() else {
        return;
    };
    let input = dir.path().join("in");
    let output = dir.path().join("out");
    std::fs::create_dir_all(input.join("sub")).expect("input");
    std::fs::write(input.join("good.pdf"), article()).expect("good");
    std::fs::write(input.join("sub/broken.pdf"), b"%PDF-1.4 not a PDF at all").expect("bad");
    let good: PathBuf = output.join("good.fulltext.tei.xml");
    let error = output.join("sub/broken.fulltext.error.txt");

    let (ok, stdout, stderr) = batch(&config, &input, &output, &["--jobs", "2"]);
    assert!(!ok, "a failed PDF makes the run fail at the end: {stdout}");
    assert!(
        stdout.contains("1 done, 0 skipped, 1 failed"),
        "{stdout}\n{stderr}"
    );
    assert!(stdout.contains("PDF/s"), "{stdout}");
    let tei = std::fs::read_to_string(&good).expect("the good PDF's TEI");
    assert!(tei.contains("Estimating Soil Moisture"), "{tei}");
    assert!(tei.contains("<biblStruct "), "{tei}");
    let why = std::fs::read_to_string(&error).expect("the broken PDF's error file");
    assert!(why.starts_with("[BAD_INPUT_DATA]"), "{why}");
    assert!(stderr.contains("sub/broken.pdf"), "{stderr}");

    // Second run: the written output is skipped, the failed PDF tried again.
    std::fs::write(&good, "kept").expect("mark");
    let (_, stdout, _) = batch(&config, &input, &output, &["--jobs", "2"]);
    assert!(stdout.contains("0 done, 1 skipped, 1 failed"), "{stdout}");
    assert_eq!(std::fs::read_to_string(&good).expect("kept"), "kept");

    // --force redoes it; GROBID's -teiCoordinates is accepted.
    let (_, stdout, stderr) = batch(
        &config,
        &input,
        &output,
        &["--force", "-teiCoordinates", "--jobs", "1"],
    );
    assert!(
        stdout.contains("1 done, 0 skipped, 1 failed"),
        "{stdout}\n{stderr}"
    );
    assert!(std::fs::read_to_string(&good)
        .expect("redone")
        .contains("Estimating Soil Moisture"));

    // The other endpoints write their own files beside it.
    let (_, stdout, _) = batch(&config, &input, &output, &["--endpoint", "references"]);
    assert!(stdout.contains("1 done"), "{stdout}");
    let refs = std::fs::read_to_string(output.join("good.references.tei.xml")).expect("references");
    assert!(refs.starts_with("<TEI"), "{refs}");
    assert_eq!(refs.matches("<biblStruct ").count(), 4, "{refs}");
    let (_, stdout, _) = batch(&config, &input, &output, &["--endpoint", "header"]);
    assert!(stdout.contains("1 done"), "{stdout}");
    let header = std::fs::read_to_string(output.join("good.header.tei.xml")).expect("header");
    assert!(header.contains("Estimating Soil Moisture"), "{header}");

    // Bad options are refused before any work, with the parameter named.
    let (ok, _, stderr) = batch(&config, &input, &output, &["--flavor", "heavy"]);
    assert!(!ok);
    assert!(stderr.contains("`flavor`"), "{stderr}");
    let (ok, _, stderr) = batch(&config, &input, &output, &["--consolidate-citations", "7"]);
    assert!(!ok);
    assert!(stderr.contains("`consolidateCitations`"), "{stderr}");
}

/// Two shards of one listing (`--files-from` + `--shard I/N`, as the pods of an Indexed Job run
/// it) do each PDF exactly once between them.
#[test]
fn shards_of_one_listing_share_the_pdfs() {
    let Some((dir, config)) = batch_config() else {
        return;
    };
    let input = dir.path().join("in");
    let output = dir.path().join("out");
    std::fs::create_dir_all(input.join("b")).expect("input");
    for name in ["a1.pdf", "a2.pdf", "b/b1.pdf", "not-listed.pdf"] {
        std::fs::write(input.join(name), article()).expect("pdf");
    }
    let listing = dir.path().join("listing.txt");
    std::fs::write(&listing, "# shared listing\nb/b1.pdf\na2.pdf\na1.pdf\n").expect("listing");
    let list = listing.to_str().expect("utf-8 path");
    let (ok, stdout, stderr) = batch(
        &config,
        &input,
        &output,
        &[
            "--endpoint",
            "header",
            "--files-from",
            list,
            "--shard",
            "0/2",
        ],
    );
    assert!(ok, "{stdout}\n{stderr}");
    // Sorted listing: a1, a2, b/b1; shard 0 of 2 takes entries 0 and 2.
    assert!(stdout.contains("2 done, 0 skipped, 0 failed"), "{stdout}");
    assert!(output.join("a1.header.tei.xml").exists());
    assert!(output.join("b/b1.header.tei.xml").exists());
    assert!(!output.join("a2.header.tei.xml").exists());
    let (ok, stdout, _) = batch(
        &config,
        &input,
        &output,
        &[
            "--endpoint",
            "header",
            "--files-from",
            list,
            "--shard",
            "1/2",
        ],
    );
    assert!(
        ok && stdout.contains("1 done, 0 skipped, 0 failed"),
        "{stdout}"
    );
    assert!(output.join("a2.header.tei.xml").exists());
    assert!(!output.join("not-listed.header.tei.xml").exists());
    let (ok, _, stderr) = batch(&config, &input, &output, &["--shard", "2/2"]);
    assert!(!ok);
    assert!(stderr.contains("not below the shard count"), "{stderr}");
}
