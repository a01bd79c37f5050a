/*!
Sequence-labelling evaluation as GROBID's trainer reports it: token-level and field-level
precision, recall and F1 per label, micro and macro averages, and instance-level accuracy.

Labels follow GROBID's convention (grobid-models.md §2.1): `I-<x>` starts a field, `<x>`
continues it. A *field* is a maximal run of tokens with the same plain label, cut again at
every `I-`; a predicted field is correct when a gold field has exactly the same span and label.
As in GROBID's `Stats`, `<other>` (and `O`, `base`) is left out of the per-label rows and of
both averages, and labels with no expected occurrence count in neither average.
*/

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::labels::Tag;

/// Labels GROBID leaves out of the report and the averages.
pub fn is_excluded(label: &str) -> bool {
    matches!(label, "<other>" | "O" | "base")
}

/// The plain label: `I-<title>` → `<title>`; a `B-` prefix is dropped too (it neither starts
/// nor ends a field here).
pub fn plain(label: &str) -> &str {
    label
        .strip_prefix("I-")
        .or_else(|| label.strip_prefix("B-"))
        .unwrap_or(label)
}

/// True/false positive and false negative counts of one label at one level.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Counts {
    pub tp: usize,
    pub fp: usize,
    pub fn_: usize,
}

impl Counts {
    pub fn support(&self) -> usize {
        self.tp + self.fn_
    }
    fn add(&mut self, o: &Counts) {
        self.tp += o.tp;
        self.fp += o.fp;
        self.fn_ += o.fn_;
    }
    pub fn scores(&self) -> Scores {
        let precision = ratio(self.tp, self.tp + self.fp);
        let recall = ratio(self.tp, self.tp + self.fn_);
        Scores {
            precision,
            recall,
            f1: f1(precision, recall),
            support: self.support(),
        }
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

fn f1(p: f64, r: f64) -> f64 {
    if p + r == 0.0 {
        0.0
    } else {
        2.0 * p * r / (p + r)
    }
}

/// Precision, recall, F1 (fractions in 0..=1) and support.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Scores {
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
    pub support: usize,
}

/// Per-label counts at one level (tokens or fields).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Level {
    pub labels: BTreeMap<String, Counts>,
}

impl Level {
    fn entry(&mut self, label: &str) -> &mut Counts {
        self.labels.entry(label.to_string()).or_default()
    }

    fn counted(&self) -> impl Iterator<Item = (&String, &Counts)> {
        self.labels
            .iter()
            .filter(|(l, c)| !is_excluded(l) && c.support() > 0)
    }

    /// Micro average: scores of the summed counts.
    pub fn micro(&self) -> Scores {
        let mut sum = Counts::default();
        for (_, c) in self.counted() {
            sum.add(c);
        }
        sum.scores()
    }

    /// Macro average: mean of the per-label scores.
    pub fn macro_avg(&self) -> Scores {
        let all: Vec<Scores> = self.counted().map(|(_, c)| c.scores()).collect();
        if all.is_empty() {
            return Scores::default();
        }
        let n = all.len() as f64;
        Scores {
            precision: all.iter().map(|s| s.precision).sum::<f64>() / n,
            recall: all.iter().map(|s| s.recall).sum::<f64>() / n,
            f1: all.iter().map(|s| s.f1).sum::<f64>() / n,
            support: all.iter().map(|s| s.support).sum(),
        }
    }

    fn merge(&mut self, o: &Level) {
        for (l, c) in &o.labels {
            self.entry(l).add(c);
        }
    }
}

/// An evaluation: accumulate (gold, predicted) sequences with [`Evaluation::add`].
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Evaluation {
    pub token: Level,
    pub field: Level,
    pub instances: usize,
    pub correct_instances: usize,
}

/// Fields of a label sequence: (start, end exclusive, plain label).
pub fn fields(labels: &[String]) -> Vec<(usize, usize, &str)> {
    let tags: Vec<Tag<&str>> = labels
        .iter()
        .map(|l| Tag {
            label: plain(l),
            begins: l.starts_with("I-"),
        })
        .collect();
    crate::labels::fields(&tags)
        .into_iter()
        .map(|(label, a, b)| (a, b, label))
        .collect()
}

impl Evaluation {
    pub fn new() -> Evaluation {
        Evaluation::default()
    }

    /// Add one sequence. Both slices must have the same length (extra tokens of the longer
    /// one are ignored).
    pub fn add(&mut self, gold: &[String], predicted: &[String]) {
        let n = gold.len().min(predicted.len());
        let (gold, predicted) = (&gold[..n], &predicted[..n]);
        self.instances += 1;
        for (g, p) in gold.iter().zip(predicted) {
            let (g, p) = (plain(g), plain(p));
            if g == p {
                self.token.entry(g).tp += 1;
            } else {
                self.token.entry(g).fn_ += 1;
                self.token.entry(p).fp += 1;
            }
        }
        // An instance is correct when every label, `I-` markers included, is right.
        if gold == predicted {
            self.correct_instances += 1;
        }
        let gf = fields(gold);
        let pf = fields(predicted);
        let pset: std::collections::HashSet<_> = pf.iter().copied().collect();
        let gset: std::collections::HashSet<_> = gf.iter().copied().collect();
        for f in &gf {
            if pset.contains(f) {
                self.field.entry(f.2).tp += 1;
            } else {
                self.field.entry(f.2).fn_ += 1;
            }
        }
        for f in &pf {
            if !gset.contains(f) {
                self.field.entry(f.2).fp += 1;
            }
        }
    }

    /// Sum another evaluation's counts into this one (pooled n-fold figures).
    pub fn merge(&mut self, o: &Evaluation) {
        self.token.merge(&o.token);
        self.field.merge(&o.field);
        self.instances += o.instances;
        self.correct_instances += o.correct_instances;
    }

    pub fn instance_accuracy(&self) -> f64 {
        ratio(self.correct_instances, self.instances)
    }

    /// A compact JSON summary (percentages) for `meta.json` and the HTTP training API.
    pub fn summary(&self) -> serde_json::Value {
        let level = |lv: &Level| {
            let labels: serde_json::Map<String, serde_json::Value> = lv
                .labels
                .iter()
                .filter(|(l, _)| !is_excluded(l))
                .map(|(l, c)| (l.clone(), pct(&c.scores())))
                .collect();
            serde_json::json!({
                "micro": pct(&lv.micro()),
                "macro": pct(&lv.macro_avg()),
                "labels": labels,
            })
        };
        serde_json::json!({
            "token_level": level(&self.token),
            "field_level": level(&self.field),
            "instances": self.instances,
            "correct_instances": self.correct_instances,
            "instance_accuracy": round2(100.0 * self.instance_accuracy()),
        })
    }

    /// GROBID-like printable report: token-level and field-level tables, then instances.
    pub fn table(&self) -> String {
        let mut s = String::new();
        for (title, lv) in [
            ("Token-level results", &self.token),
            ("Field-level results", &self.field),
        ] {
            let _ = writeln!(s, "===== {title} =====\n");
            let _ = writeln!(
                s,
                "{:<28} {:>10} {:>10} {:>10} {:>9}",
                "label", "precision", "recall", "f1", "support"
            );
            for (l, c) in lv.labels.iter().filter(|(l, _)| !is_excluded(l)) {
                row(&mut s, l, &c.scores());
            }
            s.push('\n');
            row(&mut s, "all (micro avg.)", &lv.micro());
            row(&mut s, "all (macro avg.)", &lv.macro_avg());
            s.push('\n');
        }
        let _ = writeln!(s, "===== Instance-level results =====\n");
        let _ = writeln!(s, "Total expected instances: {}", self.instances);
        let _ = writeln!(s, "Correct instances:        {}", self.correct_instances);
        let _ = writeln!(
            s,
            "Instance-level recall:    {:.2}",
            100.0 * self.instance_accuracy()
        );
        s
    }
}

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

fn pct(sc: &Scores) -> serde_json::Value {
    serde_json::json!({
        "precision": round2(100.0 * sc.precision),
        "recall": round2(100.0 * sc.recall),
        "f1": round2(100.0 * sc.f1),
        "support": sc.support,
    })
}

fn row(s: &mut String, label: &str, sc: &Scores) {
    let _ = writeln!(
        s,
        "{:<28} {:>10.2} {:>10.2} {:>10.2} {:>9}",
        label,
        100.0 * sc.precision,
        100.0 * sc.recall,
        100.0 * sc.f1,
        sc.support
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn a_b_prefix_is_read_as_the_plain_label_and_starts_no_field() {
        assert_eq!(plain("B-<a>"), "<a>");
        assert_eq!(
            fields(&v("<a> B-<a> <b>")),
            vec![(0, 2, "<a>"), (2, 3, "<b>")]
        );
    }

    #[test]
    fn fields_split_at_i_markers_and_label_changes() {
        let l = v("I-<a> <a> I-<a> <b> <b> <other>");
        assert_eq!(
            fields(&l),
            vec![
                (0, 2, "<a>"),
                (2, 3, "<a>"),
                (3, 5, "<b>"),
                (5, 6, "<other>")
            ]
        );
    }

    /// Hand-computed case:
    /// gold  I-<a> <a> I-<b> <b> <other> I-<a>
    /// pred  I-<a> <a> I-<b> <a> <other> I-<b>
    /// tokens: <a> tp 2, fp 1 (pos 3), fn 1 (pos 5); <b> tp 1, fp 1 (pos 5), fn 1 (pos 3).
    /// fields: gold {a[0,2), b[2,4), a[5,6)}, pred {a[0,2), b[2,3), a[3,4), b[5,6)}:
    ///   <a> tp 1, fn 1, fp 1; <b> tp 0, fn 1, fp 2.
    #[test]
    fn hand_computed_scores() {
        let mut e = Evaluation::new();
        e.add(
            &v("I-<a> <a> I-<b> <b> <other> I-<a>"),
            &v("I-<a> <a> I-<b> <a> <other> I-<b>"),
        );
        e.add(&v("I-<b> <b>"), &v("I-<b> <b>"));
        // Second sequence: tokens <b> tp 2; fields <b> tp 1.
        assert_eq!(
            e.token.labels["<a>"],
            Counts {
                tp: 2,
                fp: 1,
                fn_: 1
            }
        );
        assert_eq!(
            e.token.labels["<b>"],
            Counts {
                tp: 3,
                fp: 1,
                fn_: 1
            }
        );
        assert_eq!(
            e.field.labels["<a>"],
            Counts {
                tp: 1,
                fp: 1,
                fn_: 1
            }
        );
        assert_eq!(
            e.field.labels["<b>"],
            Counts {
                tp: 1,
                fp: 2,
                fn_: 1
            }
        );
        // Field micro: tp 2, fp 3, fn 2 → P = 0.4, R = 0.5, F1 = 4/9.
        let m = e.field.micro();
        assert!((m.precision - 0.4).abs() < 1e-12);
        assert!((m.recall - 0.5).abs() < 1e-12);
        assert!((m.f1 - 4.0 / 9.0).abs() < 1e-12);
        assert_eq!(m.support, 4);
        // Field macro: <a> P .5 R .5 F .5; <b> P 1/3 R .5 F .4 → F1 mean .45.
        let mac = e.field.macro_avg();
        assert!((mac.f1 - 0.45).abs() < 1e-12, "{mac:?}");
        assert!((mac.precision - (0.5 + 1.0 / 3.0) / 2.0).abs() < 1e-12);
        // <other> is counted but left out of the averages: token micro tp 5, fp 2, fn 2.
        assert_eq!(e.token.labels["<other>"].tp, 1);
        let tm = e.token.micro();
        assert!((tm.precision - 5.0 / 7.0).abs() < 1e-12);
        assert_eq!(e.instances, 2);
        assert_eq!(e.correct_instances, 1);
        let table = e.table();
        assert!(table.contains("all (micro avg.)"), "{table}");
        assert!(!table.contains("<other>"), "{table}");
        assert_eq!(e.summary()["field_level"]["micro"]["f1"], 44.44);
    }

    #[test]
    fn merging_pools_counts() {
        let mut a = Evaluation::new();
        a.add(&v("I-<a>"), &v("I-<a>"));
        let mut b = Evaluation::new();
        b.add(&v("I-<a>"), &v("I-<b>"));
        a.merge(&b);
        assert_eq!(
            a.field.labels["<a>"],
            Counts {
                tp: 1,
                fp: 0,
                fn_: 1
            }
        );
        assert_eq!(
            a.field.labels["<b>"],
            Counts {
                tp: 0,
                fp: 1,
                fn_: 0
            }
        );
        assert_eq!((a.instances, a.correct_instances), (2, 1));
    }
}
