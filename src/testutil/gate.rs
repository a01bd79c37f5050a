/*!
Gated tests: a test that needs libpdfium, a committed model, the unpacked training corpora or
`../shared` asks for it with one of the `require_*` functions here before it tests anything.
When the thing is present the function answers it and the test runs. When it is missing:

- under CI (`CI=true` or `CI=1`, as CI services set it) the function panics, so the test
  FAILS: a CI run must run every test;
- elsewhere it writes `SKIPPED: <test> needs <what>` and answers `None`/`false`, and the test
  returns without asserting anything. The line goes straight to the process's stderr, past the
  test harness's output capture, so a plain `cargo test` shows it beside the test's `ok`;
  `.ci/cargo-test` (what `make test` runs) counts these lines and lists them after the run.

```ignore
use quire::testutil::gate;
#[test]
fn lays_out_a_pdf() {
    let Some(_lib) = gate::require_pdfium() else { return };
    // ... the real assertions
}
```
*/

use std::io::Write;
use std::path::PathBuf;

/// The environment variable that turns a missing requirement into a failure.
pub const CI_ENV: &str = "CI";

/// The prefix of the line a skipped test writes (`.ci/cargo-test` counts these lines).
pub const SKIPPED: &str = "SKIPPED:";

/// Whether this is a CI run (`CI` is `true` or `1`): missing requirements fail the test.
pub fn in_ci() -> bool {
    std::env::var(CI_ENV)
        .map(|v| v.eq_ignore_ascii_case("true") || v == "1")
        .unwrap_or(false)
}

/// The running test's name (libtest names each test's thread after the test).
fn test_name() -> String {
    match std::thread::current().name() {
        Some(n) if n != "main" => n.to_string(),
        _ => "a test".to_string(),
    }
}

/// The running test cannot run because `what` is missing: panics under CI, else writes the
/// `SKIPPED:` line (past the output capture) so that the skip is seen and counted.
pub fn skip(what: &str) {
    // `eprintln!` would be captured with the test's output and shown only on failure.
    report(&test_name(), what, in_ci(), &mut std::io::stderr().lock());
}

fn report(test: &str, what: &str, ci: bool, out: &mut dyn Write) {
    if ci {
        panic!("{test} needs {what}, which is missing ({CI_ENV}=true: gated tests must run)");
    }
    let _ = out.write_all(format!("{SKIPPED} {test} needs {what}\n").as_bytes());
}

/// Answers `Some(value)` when `present`, else reports the skip of `what` and answers `None`.
pub fn require<T>(value: Option<T>, what: impl FnOnce() -> String) -> Option<T> {
    if value.is_none() {
        skip(&what());
    }
    value
}

/// The repository root (the engine crate's folder).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// libpdfium as the engine finds it (`crate::layout::pdfium::resolve_library`).
pub fn require_pdfium() -> Option<PathBuf> {
    require(crate::layout::pdfium::resolve_library(None), || {
        "libpdfium (make pdfium, or QUIRE_PDFIUM_LIB)".to_string()
    })
}

/// Whether every one of `models` (folder names under the repository's `models/`, e.g. `date`,
/// `fulltext-article-light`) has its committed `model.crf`.
pub fn require_models(models: &[&str]) -> bool {
    let root = repo_root().join("models");
    let missing: Vec<&str> = models
        .iter()
        .copied()
        .filter(|m| !root.join(m).join("model.crf").is_file())
        .collect();
    if missing.is_empty() {
        return true;
    }
    skip(&format!(
        "the trained model(s) {} under {}",
        missing.join(", "),
        root.display()
    ));
    false
}

/// The unpacked dataset folder (`crate::config::dataset_dir`) when it holds `sub` (e.g.
/// `date/corpus`); its unpacking is `../shared/dataset/unpack` (`.ci/run` does it).
pub fn require_dataset(sub: &str) -> Option<PathBuf> {
    let dataset = crate::config::dataset_dir();
    let present = dataset.join(sub).is_dir().then_some(dataset);
    require(present, || {
        format!(
            "the unpacked corpus {sub} under {} (../shared/dataset/unpack, then QUIRE_DATASET)",
            crate::config::dataset_dir().display()
        )
    })
}

/// `../shared/<sub>` beside the repository (sample PDFs, the evaluation sets).
pub fn require_shared(sub: &str) -> Option<PathBuf> {
    let dir = repo_root().join("../shared").join(sub);
    let present = dir.exists().then(|| dir.clone());
    require(present, || dir.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_present_requirement_is_answered() {
        assert_eq!(require(Some(3), || "never asked".into()), Some(3));
        assert!(require_models(&[]));
    }

    #[test]
    fn a_missing_requirement_is_a_skip_line_or_under_ci_a_failure() {
        let mut out = Vec::new();
        report("m::t", "libpdfium", false, &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "SKIPPED: m::t needs libpdfium\n"
        );
        let mut out = Vec::new();
        let failed = std::panic::catch_unwind(move || report("m::t", "x", true, &mut out));
        let message = failed.expect_err("CI fails the test");
        let message = message
            .downcast_ref::<String>()
            .expect("a formatted message");
        assert!(message.contains("m::t needs x"), "{message}");
    }
}
