//! `quire corpus MODEL`: the binary reads a small table corpus written here (one good file, one
//! malformed) and prints what it used and dropped; a model without a reader is refused.
//! `quire train` refuses `--template` for the BiLSTM-CRF, which has no template.

use std::path::Path;
use std::process::Command;

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join(name), text).unwrap();
}

/// A tab-separated 26-column raw row for `tok`, as GROBID's table raw files have (the
/// fulltext layout columns: block and line status, font, position, callout facts).
fn raw_row(tok: &str) -> String {
    let mut cols = vec![tok.to_string(); 10];
    cols.extend(
        [
            "BLOCKIN",
            "LINEIN",
            "ALIGNEDLEFT",
            "SAMEFONT",
            "SAMEFONTSIZE",
            "0",
            "0",
            "NOCAPS",
            "NODIGIT",
            "0",
            "NOPUNCT",
            "0",
            "1",
            "0",
            "NUMBER",
            "0",
        ]
        .map(String::from),
    );
    cols.join("\t")
}

#[test]
fn corpus_command_prints_counts_drops_and_labels() {
    let ds = std::env::temp_dir().join(format!("quire-it-corpus-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&ds);
    for part in ["corpus", "evaluation"] {
        let d = ds.join("table").join(part);
        write(
            &d.join("tei"),
            "t.training.table.tei.xml",
            r#"<tei><text><figure type="table"><head>Table <label>1</label></head>
<figDesc>Costs</figDesc><table>Paper 37</table></figure></text></tei>"#,
        );
        let rows: Vec<String> = ["Table", "1", "Costs", "Paper", "37"]
            .iter()
            .map(|t| raw_row(t))
            .collect();
        write(&d.join("raw"), "t.training.table", &rows.join("\n"));
    }
    let c = ds.join("table/corpus");
    write(
        &c.join("tei"),
        "bad.training.table.tei.xml",
        "<tei><text><figure type=\"table><head>x</head></figure></text></tei>",
    );
    write(&c.join("raw"), "bad.training.table", &raw_row("x"));

    let out = Command::new(env!("CARGO_BIN_EXE_quire"))
        .args(["corpus", "table", "--dataset"])
        .arg(&ds)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("table corpus: 1 files read, 1 dropped, 1 sequences, 5 tokens/rows, 0 unaligned raw rows"),
        "{stdout}"
    );
    assert!(stdout.contains("bad.training.table.tei.xml"), "{stdout}");
    assert!(
        stdout.contains("table evaluation: 1 files read, 0 dropped"),
        "{stdout}"
    );
    let content = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("<content>"))
        .unwrap_or_default();
    let nums: Vec<&str> = content.split_whitespace().skip(1).collect();
    assert_eq!(nums, vec!["2", "1"], "{stdout}");

    let out = Command::new(env!("CARGO_BIN_EXE_quire"))
        .args(["corpus", "patent-citation", "--dataset"])
        .arg(&ds)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The patent model has a reader now; a dataset without its corpus is a clear failure.
    assert!(
        stderr.contains("no part of the `patent-citation` corpus could be read"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&ds).unwrap();
}

#[test]
fn a_template_is_refused_for_the_bilstm_crf_before_any_reading() {
    let out = Command::new(env!("CARGO_BIN_EXE_quire"))
        .args([
            "train",
            "date",
            "--architecture",
            "bilstm-crf",
            "--template",
            "no-such-template.txt",
            "--dataset",
            "no-such-dataset",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--template is for the CRF"), "{stderr}");
}
