//! `quire corpus MODEL`: the binary reads a small table corpus written here (one good file, one
//! malformed) and prints what it used and dropped; a model without a reader is refused.
//! `quire train` refuses `--template` for the BiLSTM-CRF, which has no template, and writes the
//! sequences it mislabels to `--errors`.

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

#[test]
fn the_pair_trains_only_to_evaluate_and_has_no_template() {
    let train = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_quire"))
            .args(["train", "date", "--architecture", "crf-bilstm-crf"])
            .args(extra)
            .args(["--dataset", "no-such-dataset"])
            .output()
            .unwrap();
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let stderr = train(&["--template", "no-such-template.txt"]);
    assert!(stderr.contains("--template is for the CRF"), "{stderr}");
    let stderr = train(&["--type", "holdout"]);
    assert!(stderr.contains("split or nfold"), "{stderr}");
    let stderr = train(&["--type", "split", "--incremental"]);
    assert!(
        stderr.contains("--incremental trains one architecture"),
        "{stderr}"
    );
}

/// A table corpus of one sequence, and an evaluation part whose gold labels the same tokens
/// differently (`Costs` is the caption in one, table content in the other), so a model
/// trained on the corpus must mislabel the evaluation sequence.
fn contradicting_table_dataset(ds: &Path) {
    let rows: Vec<String> = ["Table", "1", "Costs", "Paper", "37"]
        .iter()
        .map(|t| raw_row(t))
        .collect();
    for (part, body) in [
        ("corpus", "<figDesc>Costs</figDesc><table>Paper 37</table>"),
        ("evaluation", "<table>Costs Paper 37</table>"),
    ] {
        let d = ds.join("table").join(part);
        write(
            &d.join("tei"),
            "t.training.table.tei.xml",
            &format!(
                r#"<tei><text><figure type="table"><head>Table <label>1</label></head>{body}</figure></text></tei>"#
            ),
        );
        write(&d.join("raw"), "t.training.table", &rows.join("\n"));
    }
}

#[test]
fn train_writes_the_mislabelled_sequences_to_the_errors_file() {
    let ds = std::env::temp_dir().join(format!("quire-it-errors-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&ds);
    contradicting_table_dataset(&ds);
    let errors = ds.join("errors.tsv");
    let run = |kind: &str| {
        Command::new(env!("CARGO_BIN_EXE_quire"))
            .args([
                "train",
                "table",
                "--type",
                kind,
                "--max-iter",
                "50",
                "--dataset",
            ])
            .arg(&ds)
            .arg("--models-dir")
            .arg(ds.join("models"))
            .arg("--errors")
            .arg(&errors)
            .output()
            .unwrap()
    };
    let out = run("holdout");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&errors).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "# fold 1", "{text}");
    assert_eq!(
        lines.len(),
        7,
        "one header, five tokens, one blank line: {text}"
    );
    // The token that changed label is marked and shows both labels; the head is right.
    assert_eq!(
        lines[1], "Table\tI-<figure_head>\tI-<figure_head>",
        "{text}"
    );
    assert_eq!(lines[3], "Costs\tI-<content>\tI-<figDesc>\t*", "{text}");
    // `Paper` opens the content in training but continues it in this gold.
    assert_eq!(lines[4], "Paper\t<content>\tI-<content>\t*", "{text}");
    assert_eq!(lines[5], "37\t<content>\t<content>", "{text}");

    // A run without an evaluation has nothing to write: refused before training.
    let out = run("full");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--errors needs an evaluation"), "{stderr}");
    std::fs::remove_dir_all(&ds).unwrap();
}
