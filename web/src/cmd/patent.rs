//! `quire patent-number`: parse patent citations (one per line of stdin, or the arguments)
//! with the engine's patent-number parser and print one JSON array per citation: office,
//! epodoc and original numbers, kind code, type, status and the character range of each
//! number. `bench/patent_eval` uses it to normalise the corpus's marked citations.

use std::io::{BufRead, Write};

#[derive(Debug, Clone, clap::Args)]
pub struct PatentNumberArgs {
    /// Citations to parse; stdin (one per line) when none.
    pub citations: Vec<String>,
}

fn json(text: &str) -> serde_json::Value {
    let numbers: Vec<serde_json::Value> = quire::patent::number::parse(text)
        .iter()
        .map(|p| {
            serde_json::json!({
                "authority": p.authority,
                "epodoc": p.epodoc,
                "original": p.original,
                "kindCode": p.kind,
                "type": p.doc_type.as_str(),
                "status": p.status.as_str(),
                "begin": quire::patent::char_offset(text, p.range.start),
                "end": quire::patent::char_offset(text, p.range.end),
            })
        })
        .collect();
    serde_json::Value::Array(numbers)
}

pub fn run(args: PatentNumberArgs) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.citations.is_empty() {
        for line in std::io::stdin().lock().lines() {
            writeln!(out, "{}", json(&line?))?;
        }
    } else {
        for c in &args.citations {
            writeln!(out, "{}", json(c))?;
        }
    }
    Ok(())
}
