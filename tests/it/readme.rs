//! The README's commands run as written: it starts with the two set-up commands, and no example
//! calls a bare `quire`, which `make run` does not put on the PATH (issue #12).

use crate::common::repo_root;

fn readme() -> String {
    std::fs::read_to_string(repo_root().join("README.md")).expect("README.md")
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
