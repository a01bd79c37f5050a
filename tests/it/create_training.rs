//! `POST /api/createTraining`: the training data of a generated article, unzipped into a
//! dataset folder and read back by the corpus readers `quire train` uses; the archive's name and
//! entries; the error statuses (missing or empty input, unknown flavour, broken PDF, full pool).

use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::Path;

use quire::corpus::create::canonical;
use quire::corpus::Part;
use quire::models::ModelName;
use quire::training::spec;
use reqwest::blocking::multipart::{Form, Part as FormPart};

use crate::common::Server;
use crate::fulltext::NEEDED;
use crate::fulltext_article::rich_article;

const PATH: &str = "/api/createTraining";

/// The models whose training files createTraining writes.
const WRITTEN: [ModelName; 9] = [
    ModelName::Segmentation,
    ModelName::Header,
    ModelName::ReferenceSegmenter,
    ModelName::Fulltext,
    ModelName::Citation,
    ModelName::NameHeader,
    ModelName::NameCitation,
    ModelName::AffiliationAddress,
    ModelName::Date,
];

/// POSTs `pdf` as `input` named `filename`; answers (status, content type, disposition, body).
fn post(
    s: &Server,
    pdf: Vec<u8>,
    filename: &str,
    fields: &[(&str, &str)],
) -> (u16, String, String, Vec<u8>) {
    let mut form = Form::new().part(
        "input",
        FormPart::bytes(pdf)
            .file_name(filename.to_string())
            .mime_str("application/pdf")
            .expect("mime"),
    );
    for (k, v) in fields {
        form = form.text(k.to_string(), v.to_string());
    }
    let res = s
        .client
        .post(s.url(PATH))
        .multipart(form)
        .send()
        .expect("POST");
    let header = |name: &str| {
        res.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string()
    };
    let (ctype, disposition) = (header("content-type"), header("content-disposition"));
    let status = res.status().as_u16();
    (
        status,
        ctype,
        disposition,
        res.bytes().map(|b| b.to_vec()).unwrap_or_default(),
    )
}

/// The sequences of every invocation of each model in a debugMode dump, as (token, label)
/// rows: sections are `=== model: … ===`, sequences of one call are separated by a blank line.
fn dump_sequences(dump: &str) -> BTreeMap<String, Vec<Vec<(String, String)>>> {
    let mut out: BTreeMap<String, Vec<Vec<(String, String)>>> = BTreeMap::new();
    let mut current: Option<String> = None;
    let mut seq: Vec<(String, String)> = Vec::new();
    let mut flush = |model: &Option<String>, seq: &mut Vec<(String, String)>| {
        if let (Some(m), false) = (model, seq.is_empty()) {
            out.entry(m.clone()).or_default().push(std::mem::take(seq));
        }
    };
    for line in dump.lines() {
        if let Some(rest) = line.strip_prefix("=== model: ") {
            flush(&current, &mut seq);
            let key = rest.split([' ', '=']).next().unwrap_or("").to_string();
            current = Some(key);
        } else if line.is_empty() {
            flush(&current, &mut seq);
        } else {
            let cols: Vec<&str> = line.split('\t').collect();
            seq.push((cols[0].to_string(), cols[cols.len() - 1].to_string()));
        }
    }
    flush(&current, &mut seq);
    out
}

fn unzip_into(bytes: &[u8], dir: &Path) -> Vec<String> {
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("a ZIP");
    let mut names = Vec::new();
    for i in 0..zip.len() {
        let mut f = zip.by_index(i).expect("entry");
        let name = f.name().expect("entry name").to_string();
        let mut text = String::new();
        f.read_to_string(&mut text).expect("UTF-8 entry");
        let path = dir.join(&name);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, text).expect("write");
        names.push(name);
    }
    names
}

/// The corpus part of `model` under `dataset`, read by the model's own reader (the one
/// `quire train` uses), with no file dropped and every raw row aligned.
fn read_clean(
    dataset: &Path,
    model: ModelName,
    flavor: Option<quire::flavor::Flavor>,
) -> Vec<quire::crf::Sequence> {
    let sp = spec(model, flavor).expect("a trainable model");
    let (seqs, stats) = sp
        .read(dataset, Part::Corpus)
        .unwrap_or_else(|e| panic!("{model}: {e}"));
    assert!(
        stats.files_dropped.is_empty(),
        "{model}: {:?}",
        stats.files_dropped
    );
    assert_eq!(stats.unaligned, 0, "{model}: rows without a TEI token");
    seqs
}

#[test]
fn training_data_of_a_generated_article_reads_back_with_the_predicted_labels() {
    let Some(s) = Server::with_models(&NEEDED) else {
        return;
    };
    let pdf = rich_article();
    let (status, ctype, disposition, bytes) = post(&s, pdf.clone(), "My Article.PDF", &[]);
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&bytes));
    assert_eq!(ctype, "application/zip");
    assert_eq!(disposition, "attachment; filename=\"My Article.zip\"");

    let tmp = tempfile::tempdir().expect("tempdir");
    let names = unzip_into(&bytes, tmp.path());
    for expected in [
        "segmentation/corpus/raw/My_Article.training.segmentation",
        "segmentation/corpus/tei/My_Article.training.segmentation.tei.xml",
        "header/corpus/raw/My_Article.training.header",
        "header/corpus/tei/My_Article.training.header.tei.xml",
        "reference-segmenter/corpus/raw/My_Article.training.references.referenceSegmenter",
        "reference-segmenter/corpus/tei/My_Article.training.references.referenceSegmenter.tei.xml",
        "fulltext/corpus/raw/My_Article.training.fulltext",
        "fulltext/corpus/tei/My_Article.training.fulltext.tei.xml",
        "citation/corpus/My_Article.training.references.tei.xml",
        "name/citation/corpus/My_Article.training.citation.authors.tei.xml",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} not in {names:?}"
        );
    }

    // What the models saw and predicted for the same PDF, from the debugMode dump.
    let (status, _, dump) = s.post_pdf(
        "/api/processFulltextDocument",
        pdf,
        &[("debugMode", "1")],
        None,
    );
    assert_eq!(status, 200, "{dump}");
    let predicted = dump_sequences(&dump);

    let mut checked = 0;
    for model in WRITTEN {
        let Some(calls) = predicted.get(model.as_str()) else {
            continue;
        };
        // Layout models: the first sequence (fulltext: the body); text models: every one.
        let want: Vec<&Vec<(String, String)>> = match model {
            ModelName::Segmentation
            | ModelName::Header
            | ModelName::ReferenceSegmenter
            | ModelName::Fulltext => calls.iter().take(1).collect(),
            _ => calls.iter().collect(),
        };
        let seqs = read_clean(tmp.path(), model, None);
        assert_eq!(seqs.len(), want.len(), "{model}: sequences");
        for (got, want) in seqs.iter().zip(&want) {
            assert_eq!(got.rows.len(), want.len(), "{model}: rows");
            let got_tokens: Vec<&str> = got.rows.iter().map(|r| r[0].as_str()).collect();
            let want_tokens: Vec<&str> = want.iter().map(|(t, _)| t.as_str()).collect();
            assert_eq!(got_tokens, want_tokens, "{model}: tokens");
            let want_labels: Vec<String> = want.iter().map(|(_, l)| l.clone()).collect();
            assert_eq!(
                canonical(&got.labels),
                canonical(&want_labels),
                "{model}: labels"
            );
        }
        checked += 1;
    }
    // The article runs segmentation, header, names, reference segmenter, citation, dates and
    // fulltext at least.
    eprintln!(
        "round trip checked for {checked} models of {:?}",
        predicted.keys()
    );
    assert!(
        checked >= 7,
        "only {checked} models checked: {:?}",
        predicted.keys()
    );
}

#[test]
fn a_light_flavour_writes_the_flavoured_folders_its_readers_take_back() {
    let Some(s) = Server::with_models(&NEEDED) else {
        return;
    };
    let (status, _, _, bytes) = post(
        &s,
        rich_article(),
        "light.pdf",
        &[("flavor", "Article/Light-Ref")],
    );
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&bytes));
    let tmp = tempfile::tempdir().expect("tempdir");
    let names = unzip_into(&bytes, tmp.path());
    for model in [
        ModelName::Segmentation,
        ModelName::Header,
        ModelName::Fulltext,
    ] {
        let tei = format!("{model}/article/light/corpus/tei/light.training.{model}.tei.xml");
        assert!(names.contains(&tei), "{tei} not in {names:?}");
        let seqs = read_clean(tmp.path(), model, Some(quire::flavor::Flavor::ArticleLight));
        assert_eq!(seqs.len(), 1, "{model}");
    }
    // light-ref parses the references: their files go to the standard folders.
    assert!(names
        .iter()
        .any(|n| n == "citation/corpus/light.training.references.tei.xml"));
}

#[test]
fn bad_requests_are_400_and_a_broken_pdf_keeps_its_code() {
    let Some(s) = Server::with_models(&[]) else {
        return;
    };
    let res = s
        .client
        .post(s.url(PATH))
        .multipart(Form::new().text("flavor", "article/light"))
        .send()
        .expect("POST");
    assert_eq!(res.status().as_u16(), 400);
    assert!(res.text().unwrap_or_default().contains("`input`"));

    let (status, _, _, body) = post(&s, Vec::new(), "empty.pdf", &[]);
    assert_eq!(status, 400, "{}", String::from_utf8_lossy(&body));

    for flavor in ["sdo/unknown", "blank"] {
        let (status, _, _, body) = post(&s, rich_article(), "a.pdf", &[("flavor", flavor)]);
        let body = String::from_utf8_lossy(&body);
        assert_eq!(status, 400, "{body}");
        assert!(body.contains("flavor"), "{body}");
    }

    let (status, _, _, body) = post(&s, b"%PDF-1.4 not really".to_vec(), "broken.pdf", &[]);
    let body = String::from_utf8_lossy(&body);
    assert_eq!(status, 500, "{body}");
    assert!(body.starts_with("[BAD_INPUT_DATA]"), "{body}");
}

#[test]
fn a_full_pool_answers_503() {
    let (s, slow) = crate::pool::server_with_its_slot_held();
    let (status, _, _, body) = post(&s, rich_article(), "a.pdf", &[]);
    let body = String::from_utf8_lossy(&body);
    assert_eq!(status, 503, "{body}");
    assert!(body.starts_with("[SERVICE_UNAVAILABLE]"), "{body}");
    assert_eq!(slow.join().ok().and_then(|r| r.ok()), Some(200));
}
