//! Fixes the git revision at build time as `QUIRE_REVISION`: `<tag>-<N>-g<hash>` from
//! `git describe --tags --long`; with no tag yet, `untagged-<N>-g<hash>` (N = commits);
//! outside git (a source tarball), `unknown`.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

fn main() {
    let revision = git(&["describe", "--tags", "--long", "--abbrev=7"])
        .or_else(|| {
            let hash = git(&["rev-parse", "--short=7", "HEAD"])?;
            let count = git(&["rev-list", "--count", "HEAD"])?;
            Some(format!("untagged-{count}-g{hash}"))
        })
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=QUIRE_REVISION={revision}");
    for path in ["HEAD", "refs/tags", "packed-refs"] {
        if let Some(p) = git(&["rev-parse", "--git-path", path]) {
            println!("cargo:rerun-if-changed={p}");
        }
    }
    if let Some(head_ref) = git(&["symbolic-ref", "-q", "HEAD"]) {
        if let Some(p) = git(&["rev-parse", "--git-path", &head_ref]) {
            println!("cargo:rerun-if-changed={p}");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
