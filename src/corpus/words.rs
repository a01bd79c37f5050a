//! The unlabelled text of a corpus folder, for training word vectors (`quire embed`,
//! [`crate::deep::embed`]): the word keys of every TEI file, documents named in a skip list
//! left out (so that vectors never see the evaluation documents).

use std::collections::HashSet;
use std::path::Path;

use super::layout::TeiEvent;
use crate::{Error, Result};

/// A document's name without the corpus's suffixes and numbering: `36-1708.04064` and
/// `1708.04064.training.references.tei.xml` are both `1708.04064`.
pub fn document_stem(file_name: &str) -> String {
    let cut = [
        ".training",
        ".header-reference",
        ".tei.xml",
        ".xml",
        ".references",
    ]
    .iter()
    .filter_map(|s| file_name.find(s))
    .min()
    .unwrap_or(file_name.len());
    let stem = &file_name[..cut];
    match stem.split_once('-') {
        Some((n, rest))
            if (1..=3).contains(&n.len())
                && n.bytes().all(|b| b.is_ascii_digit())
                && !rest.is_empty() =>
        {
            rest.to_string()
        }
        _ => stem.to_string(),
    }
}

/// The unlabelled text of a corpus folder's TEI files (`<dir>/*.xml`, `<dir>/tei/*.xml`),
/// leaving out the documents whose [`document_stem`] is in `skip`:
/// one sequence of word keys per element's run of text (line and page breaks do not cut it),
/// the TEI header left out.
pub fn corpus_text(dir: &Path, skip: &HashSet<String>) -> Result<Vec<Vec<String>>> {
    let mut files = Vec::new();
    for d in [dir.to_path_buf(), dir.join("tei")] {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if p.extension().is_some_and(|x| x == "xml") && !skip.contains(&document_stem(&name)) {
                files.push(p);
            }
        }
    }
    files.sort();
    if files.is_empty() {
        return Err(Error::BadInput(format!(
            "{}: no TEI files to read text from",
            dir.display()
        )));
    }
    let mut out = Vec::new();
    for f in files {
        let mut run: Vec<String> = Vec::new();
        let mut in_header = false;
        for event in super::layout::walk_tei(&f)? {
            match event {
                TeiEvent::Text(text) if !in_header => run.extend(
                    crate::tokenizer::tokenize(&text)
                        .into_iter()
                        .filter(|t| !t.trim().is_empty())
                        .map(crate::deep::word_key),
                ),
                TeiEvent::Text(_) | TeiEvent::LineBreak | TeiEvent::PageBreak => {}
                TeiEvent::Start(name, _) | TeiEvent::End(name) => {
                    if name == "teiHeader" {
                        in_header = !in_header;
                    }
                    if !run.is_empty() {
                        out.push(std::mem::take(&mut run));
                    }
                }
            }
        }
        if !run.is_empty() {
            out.push(run);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn document_stems_drop_numbering_and_suffixes() {
        for (name, stem) in [
            ("36-1708.04064.training.references.tei.xml", "1708.04064"),
            ("1708.04064.training.segmentation.tei.xml", "1708.04064"),
            (
                "0143-0807_32_4_014.header-reference.xml",
                "0143-0807_32_4_014",
            ),
            ("citations.xml", "citations"),
            (
                "12-10.1140%2Fepjc.training.references.tei.xml",
                "10.1140%2Fepjc",
            ),
        ] {
            assert_eq!(document_stem(name), stem, "{name}");
        }
    }

    #[test]
    fn corpus_text_reads_the_tei_text_without_its_header() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("tei")).unwrap();
        std::fs::write(
            dir.path().join("tei/a.xml"),
            "<tei><teiHeader><title>Secret Header</title></teiHeader>\
             <text><front>Deep Nets, 2019</front><body>J. Smith &amp; co.</body></text></tei>",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("tei/12-b.training.segmentation.tei.xml"),
            "<tei><text>Left out</text></tei>",
        )
        .unwrap();
        let skip: HashSet<String> = ["b".to_string()].into();
        let text = corpus_text(dir.path(), &skip).unwrap();
        assert_eq!(
            text,
            vec![
                vec!["deep", "nets", ",", "0000"],
                vec!["j", ".", "smith", "&", "co", "."]
            ]
        );
        let empty = tempfile::tempdir().unwrap();
        assert!(matches!(
            corpus_text(empty.path(), &HashSet::new()),
            Err(Error::BadInput(_))
        ));
    }
}
