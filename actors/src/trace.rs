/*!
The debug dump of `debugMode=1`: every model invocation of a request is recorded (feature rows
and predicted labels) and formatted as GROBID's raw labelling output: one section per
invocation headed `=== model: <key> ===` (or `(occurrence i of n)` when a key repeats), one
token per line with its tab-separated features and then its label. The `models` parameter
filters sections by key; the cascade still runs in full.
*/

use quire::corpus::create::Invocation;
use quire::features::{Rows, Tok};
use quire::labels::Labels;
use quire::models::ModelName;

/// One model invocation: its key (`name-citation`), the feature rows of every token, and the
/// predicted labels. Several sequences labelled in one batch are recorded as one entry, with
/// an empty row (and empty label) between sequences.
pub type TraceEntry = (String, Rows, Vec<String>);

/// Collects the invocations of one request, in order.
#[derive(Debug, Clone, Default)]
pub struct DebugTrace {
    pub entries: Vec<TraceEntry>,
    /// Per entry: the tokens of its (non-empty) sequences, for the text models, whose rows were
    /// computed from tokens ([`crate::Labeler::label_toks`]); `None` for the layout models.
    pub toks: Vec<Option<Vec<Vec<Tok>>>>,
}

impl DebugTrace {
    pub fn new() -> DebugTrace {
        DebugTrace::default()
    }

    /// Records one batch: `seqs[i]` are the rows of sequence i and `labels[i]` its labels.
    pub fn record(&mut self, key: &str, seqs: &[Rows], labels: &[Labels]) {
        let mut rows = Vec::new();
        let mut out = Vec::new();
        for (i, (seq, labs)) in seqs.iter().zip(labels).enumerate() {
            if i > 0 {
                rows.push(Vec::new());
                out.push(String::new());
            }
            rows.extend(seq.iter().cloned());
            out.extend(labs.iter().map(str::to_string));
        }
        self.entries.push((key.to_string(), rows, out));
        self.toks.push(None);
    }

    /// Attaches the tokens of the last recorded entry's sequences.
    pub fn attach_toks(&mut self, toks: Vec<Vec<Tok>>) {
        if let Some(last) = self.toks.last_mut() {
            *last = Some(toks);
        }
    }

    /// The recorded invocations as the engine's training-data input: each entry split back into
    /// its sequences (an empty row separates them), with its model and tokens. Entries whose key
    /// names no model are left out.
    pub fn invocations(&self) -> Vec<Invocation> {
        let mut out = Vec::new();
        for ((key, rows, labels), toks) in self.entries.iter().zip(&self.toks) {
            let Ok(model) = key.parse::<ModelName>() else {
                continue;
            };
            let mut seq_rows = vec![Vec::new()];
            let mut seq_labels = vec![Vec::new()];
            for (row, label) in rows.iter().zip(labels) {
                if row.is_empty() {
                    seq_rows.push(Vec::new());
                    seq_labels.push(Vec::new());
                } else if let (Some(r), Some(l)) = (seq_rows.last_mut(), seq_labels.last_mut()) {
                    r.push(row.clone());
                    l.push(label.clone());
                }
            }
            out.push(Invocation {
                model,
                rows: seq_rows,
                labels: seq_labels,
                toks: toks.clone(),
            });
        }
        out
    }

    /// The dump, keeping only sections whose key is in `filter` (all when `None`).
    pub fn format(&self, filter: Option<&[String]>) -> String {
        format_debug_dump(&self.entries, filter)
    }
}

/// Parses the `models` request parameter: comma-separated model keys. An unknown key is an
/// error naming it (the web layer answers 400).
pub fn parse_models_filter(value: &str) -> Result<Vec<String>, String> {
    value
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<ModelName>().map(|m| m.as_str().to_string()))
        .collect()
}

/// Formats recorded invocations as GROBID's debug dump (see the module doc).
pub fn format_debug_dump(entries: &[TraceEntry], filter: Option<&[String]>) -> String {
    let mut totals: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (key, _, _) in entries {
        *totals.entry(key.as_str()).or_default() += 1;
    }
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut out = String::new();
    for (key, rows, labels) in entries {
        let occurrence = {
            let n = seen.entry(key.as_str()).or_default();
            *n += 1;
            *n
        };
        if let Some(keep) = filter {
            if !keep.iter().any(|k| k == key) {
                continue;
            }
        }
        let total = totals.get(key.as_str()).copied().unwrap_or(1);
        if total > 1 {
            out.push_str(&format!(
                "=== model: {key} (occurrence {occurrence} of {total}) ===\n"
            ));
        } else {
            out.push_str(&format!("=== model: {key} ===\n"));
        }
        for (row, label) in rows.iter().zip(labels) {
            if !row.is_empty() {
                out.push_str(&row.join("\t"));
                out.push('\t');
                out.push_str(label);
            }
            out.push('\n');
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(tokens: &[&str]) -> Rows {
        tokens
            .iter()
            .map(|t| vec![(*t).into(), t.to_lowercase().into()])
            .collect()
    }

    #[test]
    fn invocations_split_entries_back_into_sequences_with_their_tokens() {
        let mut trace = DebugTrace::new();
        trace.record(
            "segmentation",
            &[rows(&["Title", "Body"])],
            &[Labels::from_names(["I-<header>", "I-<body>"])],
        );
        trace.record(
            "citation",
            &[rows(&["A", "B"]), rows(&["C"])],
            &[
                Labels::from_names(["I-<author>", "<author>"]),
                Labels::from_names(["I-<title>"]),
            ],
        );
        let tok = |t: &str| Tok {
            text: t.into(),
            newline_before: false,
            space_before: true,
        };
        trace.attach_toks(vec![vec![tok("A"), tok("B")], vec![tok("C")]]);
        let calls = trace.invocations();
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].model, ModelName::Segmentation);
        assert_eq!(calls[0].rows, vec![rows(&["Title", "Body"])]);
        assert!(calls[0].toks.is_none());
        assert_eq!(calls[1].model, ModelName::Citation);
        assert_eq!(calls[1].rows, vec![rows(&["A", "B"]), rows(&["C"])]);
        assert_eq!(
            calls[1].labels,
            vec![
                vec!["I-<author>".to_string(), "<author>".into()],
                vec!["I-<title>".to_string()]
            ]
        );
        assert_eq!(calls[1].toks.as_ref().map(|t| t.len()), Some(2));
    }

    #[test]
    fn repeated_keys_are_numbered_and_tokens_end_with_their_label() {
        let mut trace = DebugTrace::new();
        trace.record(
            "date",
            &[rows(&["May", "2001"])],
            &[Labels::from_names(["<month>", "<year>"])],
        );
        trace.record(
            "citation",
            &[rows(&["A"]), rows(&["B"])],
            &[
                Labels::from_names(["<author>"]),
                Labels::from_names(["<title>"]),
            ],
        );
        trace.record(
            "date",
            &[rows(&["1999"])],
            &[Labels::from_names(["<year>"])],
        );
        let dump = trace.format(None);
        assert!(
            dump.starts_with(
                "=== model: date (occurrence 1 of 2) ===\nMay\tmay\t<month>\n2001\t2001\t<year>\n"
            ),
            "{dump}"
        );
        assert!(
            dump.contains("=== model: citation ===\nA\ta\t<author>\n\nB\tb\t<title>\n"),
            "{dump}"
        );
        assert!(
            dump.contains("=== model: date (occurrence 2 of 2) ===\n1999\t1999\t<year>\n"),
            "{dump}"
        );

        let only = trace.format(Some(&["citation".to_string()]));
        assert!(!only.contains("date"), "{only}");
        assert!(only.contains("=== model: citation ==="), "{only}");
    }

    #[test]
    fn models_filter_accepts_known_keys_and_names_unknown_ones() {
        assert_eq!(
            parse_models_filter("header, name-header,,date").ok(),
            Some(vec![
                "header".to_string(),
                "name-header".into(),
                "date".into()
            ])
        );
        let err = parse_models_filter("header,headr").unwrap_err();
        assert!(err.contains("headr"), "{err}");
    }
}
