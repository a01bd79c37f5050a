//! The README and the documentation hold only what is true of the binary and the tree: the
//! README starts with the two set-up commands and stays short; no example calls a bare `quire`,
//! which `make run` does not put on the PATH (issue #12); every `quire` subcommand and option an
//! example uses exists, and the README names every subcommand; every endpoint of its table is a
//! route of the web crate; every relative link points at a file of the repository.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{quire_binary, repo_root};

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn readme() -> String {
    read(&repo_root().join("README.md"))
}

/// README.md, ARCHITECTURE.md and every Markdown file under docs/, as (path, text).
fn documents() -> Vec<(PathBuf, String)> {
    let root = repo_root();
    let mut paths = vec![root.join("README.md"), root.join("ARCHITECTURE.md")];
    let mut dirs = vec![root.join("docs")];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                paths.push(path);
            }
        }
    }
    paths.sort();
    paths
        .into_iter()
        .filter(|p| p.is_file())
        .map(|p| {
            let text = read(&p);
            (p, text)
        })
        .collect()
}

/// The lines inside fenced code blocks.
fn code_lines(text: &str) -> Vec<&str> {
    let mut inside = false;
    let mut lines = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            inside = !inside;
        } else if inside {
            lines.push(line);
        }
    }
    lines
}

/// The inline code spans of the text outside fenced blocks (a span may run over a line break).
fn inline_spans(text: &str) -> Vec<String> {
    let mut inside = false;
    let mut prose = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            inside = !inside;
        } else if !inside {
            prose.push_str(line);
            prose.push('\n');
        }
    }
    prose
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|span| span.replace('\n', " "))
        .collect()
}

/// Every command of a line that runs the binary (`target/release/quire …` or
/// `target/debug/quire …`), as its words after the binary.
fn quire_invocations(line: &str) -> Vec<Vec<String>> {
    let line = line.split(" #").next().unwrap_or("");
    line.split(['|', ';', '&'])
        .filter_map(|cmd| {
            // Leading environment assignments (`RAYON_NUM_THREADS=1 target/release/quire …`).
            let mut cmd = cmd.trim_start();
            while let Some((word, rest)) = cmd.split_once(' ') {
                if word.contains('=') && !word.starts_with('-') {
                    cmd = rest.trim_start();
                } else {
                    break;
                }
            }
            let rest = cmd
                .strip_prefix("target/release/quire ")
                .or_else(|| cmd.strip_prefix("target/debug/quire "))?;
            let words: Vec<String> = rest
                .split_whitespace()
                .map(|w| w.trim_matches(|c| c == '[' || c == ']').to_string())
                .filter(|w| !w.is_empty())
                .collect();
            Some(words)
        })
        .collect()
}

/// `quire ARGS --help`: success and the help text.
fn help(args: &[&str]) -> (bool, String) {
    let out = Command::new(quire_binary())
        .args(args)
        .arg("--help")
        .output()
        .expect("run quire --help");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

/// The subcommands `quire --help` (or `quire SUB --help`) lists under "Commands:".
fn subcommands(help_text: &str) -> Vec<String> {
    help_text
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        // A description wrapped onto the next line is indented further than the names.
        .filter(|l| !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect()
}

/// The long options a help text lists.
fn long_options(help_text: &str) -> Vec<String> {
    help_text
        .split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == '<' || c == '=')
        .filter(|w| w.starts_with("--"))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_readme_starts_with_the_two_set_up_commands() {
    let text = readme();
    let first_block: Vec<&str> = text
        .split("```")
        .nth(1)
        .expect("a code block")
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .collect();
    assert_eq!(first_block, ["make run", "make test"]);
    let before = text.split("```").next().unwrap_or("");
    assert!(
        before.lines().count() <= 4,
        "the set-up comes first:\n{before}"
    );
    let makefile = read(&repo_root().join("Makefile"));
    for target in ["run:", "test:"] {
        assert!(
            makefile.lines().any(|l| l.starts_with(target)),
            "the Makefile has no `{target}` target"
        );
    }
}

#[test]
fn the_readme_is_read_in_five_minutes() {
    let lines = readme().lines().count();
    assert!(
        lines < 300,
        "README.md has {lines} lines; details go to docs/"
    );
}

#[test]
fn readme_examples_never_call_a_bare_quire() {
    let text = readme();
    for line in code_lines(&text) {
        let bare = line.split(['|', ';', '&']).any(|cmd| {
            let cmd = cmd.trim_start();
            cmd == "quire" || cmd.starts_with("quire ")
        });
        assert!(
            !bare,
            "`{line}`: `quire` is not on the PATH after `make run`; write target/release/quire"
        );
    }
    for needed in ["cargo install --path web", "target/release/quire"] {
        assert!(
            text.contains(needed),
            "README should say how to get quire: {needed}"
        );
    }
}

#[test]
fn the_readme_names_every_quire_subcommand() {
    let (ok, top) = help(&[]);
    assert!(ok, "quire --help failed:\n{top}");
    let commands = subcommands(&top);
    assert!(
        commands.iter().any(|c| c == "serve"),
        "no subcommands read from:\n{top}"
    );
    let text = readme();
    for command in commands {
        assert!(
            text.contains(&format!("`{command}`")),
            "README.md does not name the subcommand `{command}`"
        );
    }
}

#[test]
fn every_quire_command_in_the_docs_exists_with_its_options() {
    let mut helps: BTreeMap<Vec<String>, String> = BTreeMap::new();
    let mut checked = 0;
    for (path, text) in documents() {
        let spans = inline_spans(&text);
        let lines = code_lines(&text)
            .into_iter()
            .chain(spans.iter().map(String::as_str))
            .collect::<Vec<_>>();
        for line in lines {
            for words in quire_invocations(line) {
                let Some(first) = words.first() else {
                    continue;
                };
                // The subcommand, and a nested one where the subcommand has its own.
                let mut key = vec![first.clone()];
                let help_text = helps.entry(key.clone()).or_insert_with(|| {
                    let (ok, text) = help(&[first.as_str()]);
                    assert!(
                        ok,
                        "{}: `quire {first}` is no subcommand:\n{text}",
                        path.display()
                    );
                    text
                });
                if !subcommands(help_text).is_empty() {
                    if let Some(second) = words.get(1).filter(|w| !w.starts_with('-')) {
                        key.push(second.clone());
                    }
                }
                let help_text = helps
                    .entry(key.clone())
                    .or_insert_with(|| {
                        let args: Vec<&str> = key.iter().map(String::as_str).collect();
                        let (ok, text) = help(&args);
                        assert!(
                            ok,
                            "{}: `quire {}` is no subcommand:\n{text}",
                            path.display(),
                            args.join(" ")
                        );
                        text
                    })
                    .clone();
                let known = long_options(&help_text);
                for word in &words {
                    let option = word.split('=').next().unwrap_or(word);
                    if option.starts_with("--") && option.len() > 2 {
                        assert!(
                            known.iter().any(|k| k == option),
                            "{}: `quire {}` has no option `{option}` (in `{line}`)",
                            path.display(),
                            key.join(" ")
                        );
                    }
                }
                checked += 1;
            }
        }
    }
    assert!(
        checked >= 5,
        "only {checked} quire commands found in the docs"
    );
}

#[test]
fn every_endpoint_of_the_readme_table_is_a_route() {
    let root = repo_root();
    let mut sources = String::new();
    for dir in ["web/src/routes", "web/src"] {
        for entry in std::fs::read_dir(root.join(dir))
            .expect("web sources")
            .flatten()
        {
            if entry.path().extension().is_some_and(|e| e == "rs") {
                sources.push_str(&read(&entry.path()));
            }
        }
    }
    let text = readme();
    let table = text
        .split("## Endpoints")
        .nth(1)
        .expect("an Endpoints section")
        .split("\n## ")
        .next()
        .unwrap_or("");
    let mut paths = 0;
    for row in table.lines().filter(|l| l.starts_with("| ")) {
        let path_cell = row.split('|').nth(2).unwrap_or("");
        for path in inline_spans(path_cell) {
            let path = path.as_str();
            if path == "/" {
                continue;
            }
            assert!(
                sources.contains(&format!("\"{path}\"")),
                "README lists `{path}`, which no route of web/src registers"
            );
            paths += 1;
        }
    }
    assert!(paths >= 25, "only {paths} endpoints read from the table");
}

/// Documentation files that other work adds; a link to one of them is not checked until it
/// exists.
const PENDING: [&str; 6] = [
    "docs/tei-shapes.md",
    "docs/grobid-routes.md",
    "docs/convert.md",
    "docs/security.md",
    "docs/metadata.md",
    "docs/header-accuracy.md",
];

/// A heading's anchor as Markdown renderers make it: lower case, spaces to `-`, punctuation
/// other than `-` and `_` left out.
fn slug(heading: &str) -> String {
    heading
        .trim_start_matches('#')
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The path with its `.` and `..` components resolved lexically.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[test]
fn every_relative_link_of_the_docs_points_at_a_file() {
    let root = repo_root();
    let mut links = 0;
    for (path, text) in documents() {
        let dir = path.parent().unwrap_or(&root).to_path_buf();
        let mut rest = text.as_str();
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            let target = rest.split(')').next().unwrap_or("");
            let file = target.split('#').next().unwrap_or("");
            if file.is_empty() || file.contains("://") || file.starts_with("mailto:") {
                continue;
            }
            let resolved = normalise(&dir.join(file));
            let pending = PENDING.iter().any(|p| resolved == root.join(p));
            assert!(
                resolved.exists() || pending,
                "{}: the link `{target}` points at no file",
                path.display()
            );
            if let Some(anchor) = target.split_once('#').map(|(_, a)| a) {
                if resolved.is_file() && resolved.extension().is_some_and(|e| e == "md") {
                    let headings: Vec<String> = read(&resolved)
                        .lines()
                        .filter(|l| l.starts_with('#'))
                        .map(slug)
                        .collect();
                    assert!(
                        headings.iter().any(|h| h == anchor),
                        "{}: the link `{target}` names no heading of {}",
                        path.display(),
                        resolved.display()
                    );
                }
            }
            links += 1;
        }
    }
    assert!(links >= 20, "only {links} links found");
}
