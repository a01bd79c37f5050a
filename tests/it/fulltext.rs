//! `/api/processFulltextDocument` and `/api/processFulltextAssetDocument` end to end over
//! HTTP (a generated two-page article: header on page 1, numbered references on page 2): a
//! well-formed TEI with the header and the bibliography, page ranges, the debug dump, the ZIP;
//! every parameter is checked before any work (400s need no model). The worker's render
//! request and the asset archive are tested on a generated PDF that draws an image. Tests
//! needing the trained models and libpdfium report a skip without them (fail under `CI=true`).

use std::io::Read as _;
use std::path::PathBuf;
use std::time::Duration;

use quire::document::{Article, Figure, Graphic, PageBox};
use quire::layout::render::Region;
use quire::layout::BBox;
use quire::testutil::PdfBuilder;
use quire_actors::workers::{WorkerPool, WorkerPoolConfig};

use crate::common::{all_between, pdfium_lib, Server};
use crate::references::article;

pub(crate) const NEEDED: [&str; 9] = [
    "segmentation",
    "fulltext",
    "header",
    "name-header",
    "affiliation-address",
    "date",
    "reference-segmenter",
    "citation",
    "name-citation",
];

const PATH: &str = "/api/processFulltextDocument";
const ASSETS: &str = "/api/processFulltextAssetDocument";

/// Parses `xml` to the end; the first error if it is not well-formed.
pub(crate) fn well_formed(xml: &str) -> Result<(), String> {
    let mut r = quick_xml::Reader::from_str(xml);
    let mut depth = 0i64;
    loop {
        match r.read_event().map_err(|e| e.to_string())? {
            quick_xml::events::Event::Start(_) => depth += 1,
            quick_xml::events::Event::End(_) => depth -= 1,
            quick_xml::events::Event::Eof => break,
            _ => {}
        }
    }
    if depth == 0 {
        Ok(())
    } else {
        Err(format!("{depth} element(s) left open"))
    }
}

#[test]
fn the_article_comes_back_as_tei_with_its_header_and_references() {
    let Some(s) = Server::with_models(&NEEDED) else {
        return;
    };
    let (status, ctype, xml) = s.post_pdf(
        PATH,
        article(),
        &[
            ("consolidateHeader", "1"),
            ("consolidateCitations", "1"),
            ("consolidateFunders", "2"),
            ("includeRawCitations", "1"),
        ],
        None,
    );
    assert_eq!(status, 200, "{xml}");
    assert!(ctype.starts_with("application/xml"), "{ctype}");
    well_formed(&xml).unwrap_or_else(|e| panic!("{e}: {xml}"));
    assert!(
        xml.contains(">Estimating Soil Moisture from Satellite Images</title>"),
        "{xml}"
    );
    assert!(xml.contains("<surname>Lopez</surname>"), "{xml}");
    assert_eq!(all_between(&xml, "<biblStruct ", "</biblStruct>").len(), 4);
    assert!(xml.contains("<note type=\"raw_reference\">"), "{xml}");
    // What was done, not what was asked: no consolidation lookup runs.
    assert!(xml.contains("consolidateHeader=0"), "{xml}");
    // Every stage of the pipeline ran once and was timed.
    for stage in ["layout", "segment", "header", "references", "body"] {
        let count = format!("quire_stage_duration_seconds_count{{stage=\"{stage}\"}}");
        assert_eq!(s.prometheus_value(&count), Some(1.0), "{stage}");
    }

    // PUT is served the same way.
    let form = reqwest::blocking::multipart::Form::new().part(
        "input",
        reqwest::blocking::multipart::Part::bytes(article()).file_name("a.pdf"),
    );
    let res = s
        .client
        .put(s.url(PATH))
        .multipart(form)
        .send()
        .expect("PUT");
    assert_eq!(res.status().as_u16(), 200);
}

#[test]
fn page_ranges_choose_the_pages_laid_out() {
    let Some(s) = Server::with_models(&NEEDED) else {
        return;
    };
    // Page 1 only: the header, no bibliography.
    let (status, _, first) = s.post_pdf(PATH, article(), &[("start", "1"), ("end", "1")], None);
    assert_eq!(status, 200, "{first}");
    assert!(first.contains("Estimating Soil Moisture"), "{first}");
    assert!(!first.contains("<biblStruct "), "{first}");
    // Page 2 only: the references, not the first page's title.
    let (status, _, second) = s.post_pdf(PATH, article(), &[("start", "2"), ("end", "-1")], None);
    assert_eq!(status, 200, "{second}");
    assert!(!second.contains("Estimating Soil Moisture"), "{second}");
    assert_eq!(
        all_between(&second, "<biblStruct ", "</biblStruct>").len(),
        4
    );
    assert!(second.contains("startPage=2"), "{second}");
    // Repeated teiCoordinates fields (and GROBID's misspelt funders parameter) are accepted.
    let (status, _, xml) = s.post_pdf(
        PATH,
        article(),
        &[
            ("teiCoordinates", "persName"),
            ("teiCoordinates", "biblStruct"),
            ("teiCoordinates", "s"),
            ("consolidatFunders", "1"),
            ("segmentSentences", "1"),
            ("generateIDs", "1"),
        ],
        None,
    );
    assert_eq!(status, 200, "{xml}");
    well_formed(&xml).unwrap_or_else(|e| panic!("{e}: {xml}"));
}

#[test]
fn the_debug_dump_has_a_section_per_model_invocation() {
    let Some(s) = Server::with_models(&NEEDED) else {
        return;
    };
    for path in [PATH, ASSETS] {
        let (status, ctype, dump) = s.post_pdf(path, article(), &[("debugMode", "1")], None);
        assert_eq!(status, 200, "{dump}");
        assert!(ctype.starts_with("text/plain"), "{path}: {ctype}");
        for model in ["segmentation", "header", "reference-segmenter", "citation"] {
            assert!(
                dump.contains(&format!("=== model: {model} ===")),
                "{path} {model}: {dump}"
            );
        }
        // One section per name-citation invocation, numbered (Vancouver-shaped author lists
        // are answered by their shape but still labelled by the model).
        assert!(dump.contains("=== model: name-citation"), "{dump}");
    }
    let (status, _, filtered) = s.post_pdf(
        PATH,
        article(),
        &[("debugMode", "true"), ("models", "segmentation")],
        None,
    );
    assert_eq!(status, 200, "{filtered}");
    assert!(filtered.contains("=== model: segmentation ==="));
    assert!(!filtered.contains("=== model: header ==="), "{filtered}");
}

#[test]
fn light_flavours_and_blank_are_served() {
    let Some(s) = Server::with_models(&NEEDED) else {
        return;
    };
    // article/light makes no bibliography; article/light-ref does.
    let (status, _, light) = s.post_pdf(PATH, article(), &[("flavor", "article/light")], None);
    assert_eq!(status, 200, "{light}");
    well_formed(&light).unwrap_or_else(|e| panic!("{e}: {light}"));
    assert!(!light.contains("<biblStruct "), "{light}");
    let (status, _, light_ref) =
        s.post_pdf(PATH, article(), &[("flavor", "Article/Light-Ref")], None);
    assert_eq!(status, 200, "{light_ref}");
    assert_eq!(
        all_between(&light_ref, "<biblStruct ", "</biblStruct>").len(),
        4
    );
    // blank runs no model at all: the dump is empty.
    let (status, _, dump) = s.post_pdf(
        PATH,
        article(),
        &[("flavor", "blank"), ("debugMode", "1")],
        None,
    );
    assert_eq!(status, 200, "{dump}");
    assert!(!dump.contains("=== model:"), "{dump}");
}

#[test]
fn every_parameter_is_checked_before_any_work() {
    // No model is needed: parameters are validated first.
    let s = Server::start();
    let pdf = PdfBuilder::new()
        .page(612.0, 792.0)
        .text(72.0, 700.0, "Helvetica", 12.0, "Some text")
        .build();
    for path in [PATH, ASSETS] {
        for (name, value) in [
            ("flavor", "article/heavy"),
            ("consolidateHeader", "4"),
            ("consolidateCitations", "3"),
            ("consolidateFunders", "5"),
            ("consolidatFunders", "-1"),
            ("includeRawCitations", "2"),
            ("teiCoordinates", "paragraph"),
            ("segmentSentences", "yes"),
            ("generateIDs", "x"),
            ("start", "first"),
            ("debugMode", "2"),
            ("models", "nonsense"),
        ] {
            let (status, ctype, body) = s.post_pdf(path, pdf.clone(), &[(name, value)], None);
            assert_eq!(status, 400, "{path} {name}={value}: {body}");
            assert!(ctype.starts_with("text/plain"), "{ctype}");
            assert!(
                body.starts_with("[INVALID_PARAMETER]") && body.contains(&format!("`{name}`")),
                "{path} {name}={value}: {body}"
            );
        }
        // Repeated teiCoordinates fields are read one by one: a bad one among good ones is named.
        let (status, _, body) = s.post_pdf(
            path,
            pdf.clone(),
            &[
                ("teiCoordinates", "persName"),
                ("teiCoordinates", "head"),
                ("teiCoordinates", "tableCell"),
            ],
            None,
        );
        assert_eq!(status, 400, "{body}");
        assert!(body.contains("`tableCell`"), "{body}");
        // The interface's error shape: JSON for clients that ask for it.
        let (status, ctype, body) = s.post_pdf(
            path,
            pdf.clone(),
            &[("flavor", "magic")],
            Some("application/json"),
        );
        assert_eq!(status, 400, "{body}");
        assert!(ctype.starts_with("application/json"), "{ctype}");
        let json: serde_json::Value = serde_json::from_str(&body).expect("json");
        assert_eq!(json["code"], "INVALID_PARAMETER", "{body}");
        assert_eq!(json["status"], 400, "{body}");
        // A missing input is named.
        let res = s
            .client
            .post(s.url(path))
            .multipart(reqwest::blocking::multipart::Form::new().text("start", "1"))
            .send()
            .expect("POST");
        assert_eq!(res.status().as_u16(), 400);
        assert!(res.text().unwrap_or_default().contains("`input`"));
    }
}

#[test]
fn broken_pdfs_keep_their_interface_codes() {
    let Some(s) = Server::with_models(&NEEDED) else {
        return;
    };
    for path in [PATH, ASSETS] {
        let (status, _, body) = s.post_pdf(path, b"%PDF-1.4 not really".to_vec(), &[], None);
        assert_eq!(status, 500, "{body}");
        assert!(body.starts_with("[BAD_INPUT_DATA]"), "{body}");
    }
}

#[test]
fn tei_coordinates_add_the_facsimile_and_coords() {
    let Some(s) = Server::with_models(&NEEDED) else {
        return;
    };
    let (status, _, xml) = s.post_pdf(
        PATH,
        article(),
        &[
            ("teiCoordinates", "persName"),
            ("teiCoordinates", "biblStruct"),
        ],
        None,
    );
    assert_eq!(status, 200, "{xml}");
    assert!(
        xml.contains("<surface n=\"1\" ulx=\"0.0\" uly=\"0.0\" lrx=\"612.0\" lry=\"792.0\"/>"),
        "{xml}"
    );
    assert!(xml.contains("<biblStruct coords=\""), "{xml}");
}

/// The boxes of the first `coords` attribute after `open` (`p,x,y,w,h;…`).
fn coords_after(xml: &str, open: &str) -> Vec<(u32, f32, f32, f32, f32)> {
    let Some(at) = xml.find(open) else {
        return Vec::new();
    };
    let rest = &xml[at + open.len()..];
    let Some(v) = rest
        .strip_prefix(" coords=\"")
        .and_then(|r| r.split('"').next())
    else {
        return Vec::new();
    };
    v.split(';')
        .filter_map(|b| {
            let n: Vec<&str> = b.split(',').collect();
            let f = |i: usize| n.get(i).and_then(|x| x.parse::<f32>().ok());
            Some((n.first()?.parse().ok()?, f(1)?, f(2)?, f(3)?, f(4)?))
        })
        .collect()
}

/// The header's title and authors get `coords` where the generated page drew them: the title
/// at x 120, baseline 700 (17 pt), the names at x 200, baseline 665 (11 pt), on a page 792
/// high (PDF y is from the bottom; TEI y from the top).
#[test]
fn header_coords_lie_where_the_title_and_names_were_drawn() {
    let Some(s) = Server::with_models(&NEEDED) else {
        return;
    };
    let (status, _, xml) = s.post_pdf(
        PATH,
        article(),
        &[("teiCoordinates", "title"), ("teiCoordinates", "persName")],
        None,
    );
    assert_eq!(status, 200, "{xml}");
    let title = coords_after(&xml, "<title level=\"a\" type=\"main\"");
    assert_eq!(title.len(), 1, "one line: {xml}");
    let (page, x, y, w, h) = title[0];
    let baseline = 792.0 - 700.0;
    assert_eq!(page, 1);
    assert!((x - 120.0).abs() < 2.0, "x {x}");
    assert!(y < baseline && y > baseline - 20.0, "y {y}");
    assert!(
        y + h > baseline - 2.0 && y + h < baseline + 6.0,
        "bottom {}",
        y + h
    );
    assert!(w > 250.0 && x + w < 612.0, "width {w}");
    // Each name on the author line, Lopez left of Berger; no affiliation coords unasked.
    let names: Vec<_> = xml
        .match_indices("<persName")
        .map(|(i, _)| coords_after(&xml[i..], "<persName"))
        .take(2)
        .collect();
    assert!(names.iter().all(|n| n.len() == 1), "{names:?}\n{xml}");
    let (lopez, berger) = (names[0][0], names[1][0]);
    let names_baseline = 792.0 - 665.0;
    for (p, x, y, w, h) in [lopez, berger] {
        assert_eq!(p, 1);
        assert!(x >= 198.0 && x + w < 420.0, "x {x} w {w}");
        assert!(
            y < names_baseline && y + h > names_baseline - 2.0,
            "y {y} h {h}"
        );
    }
    assert!(lopez.1 + lopez.3 <= berger.1, "{lopez:?} {berger:?}");
    assert!(!xml.contains("<affiliation key=\"aff0\" coords="), "{xml}");
}

#[test]
fn the_asset_endpoint_answers_a_zip_holding_the_tei() {
    let Some(s) = Server::with_models(&NEEDED) else {
        return;
    };
    let form = reqwest::blocking::multipart::Form::new().part(
        "input",
        reqwest::blocking::multipart::Part::bytes(article()).file_name("My Paper.pdf"),
    );
    let res = s
        .client
        .post(s.url(ASSETS))
        .multipart(form)
        .send()
        .expect("POST");
    assert_eq!(res.status().as_u16(), 200);
    let header = |k: &str| {
        res.headers()
            .get(k)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string()
    };
    assert_eq!(header("content-type"), "application/zip");
    assert!(header("content-disposition").contains("result.zip"));
    let bytes = res.bytes().expect("body").to_vec();
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("a ZIP");
    let mut tei = String::new();
    zip.by_name("My_Paper.tei.xml")
        .expect("the TEI entry")
        .read_to_string(&mut tei)
        .expect("read");
    well_formed(&tei).unwrap_or_else(|e| panic!("{e}: {tei}"));
    assert!(tei.contains("Estimating Soil Moisture"), "{tei}");
}

/// A worker pool running this build's `quire worker` over the vendored libpdfium, or `None`.
pub(crate) fn worker_pool() -> Option<WorkerPool> {
    let pdfium = pdfium_lib()?;
    Some(WorkerPool::new(WorkerPoolConfig {
        program: PathBuf::from(env!("CARGO_BIN_EXE_quire")),
        args: vec!["worker".into()],
        env: Vec::new(),
        workers: 1,
        timeout: Duration::from_secs(60),
        memory_mb: 0,
        pdfium_lib: Some(pdfium),
        limits: quire::layout::Limits::default(),
    }))
}

/// A page drawing the builder's 2×2 picture (red, green / blue, yellow) at 100,500 (PDF
/// bottom-left), 200×100: at top-left y = 792 - 600 = 192.
fn image_pdf() -> (Vec<u8>, PageBox) {
    let pdf = PdfBuilder::new()
        .page(612.0, 792.0)
        .text(72.0, 700.0, "Helvetica", 12.0, "A page with a picture")
        .image(100.0, 500.0, 200.0, 100.0)
        .text(100.0, 480.0, "Helvetica", 9.0, "Figure 1. The picture.")
        .build();
    let at = PageBox {
        page: 1,
        bbox: BBox {
            x: 100.0,
            y: 192.0,
            w: 200.0,
            h: 100.0,
        },
    };
    (pdf, at)
}

/// Width, height and RGB rows of a PNG.
fn decode_png(png: &[u8]) -> (u32, u32, Vec<u8>) {
    let mut reader = png::Decoder::new(std::io::Cursor::new(png))
        .read_info()
        .expect("PNG header");
    let mut buf = vec![0; reader.output_buffer_size().expect("size")];
    let info = reader.next_frame(&mut buf).expect("PNG frame");
    assert_eq!(info.color_type, png::ColorType::Rgb);
    (info.width, info.height, buf)
}

fn pixel(rgb: &[u8], width: u32, x: u32, y: u32) -> [u8; 3] {
    let i = ((y * width + x) * 3) as usize;
    [rgb[i], rgb[i + 1], rgb[i + 2]]
}

#[test]
fn the_worker_renders_a_page_region_to_png() {
    let Some(pool) = worker_pool() else {
        return;
    };
    let (pdf, at) = image_pdf();
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let pngs = rt
        .block_on(pool.render(
            pdf.clone(),
            vec![Region {
                page: at.page,
                bbox: at.bbox,
            }],
            2.0,
        ))
        .expect("rendered");
    assert_eq!(pngs.len(), 1);
    let (w, h, rgb) = decode_png(&pngs[0]);
    assert_eq!((w, h), (400, 200));
    // Top-left quarter red, bottom-left blue: the region is the picture, the right way up.
    let [r, g, b] = pixel(&rgb, w, w / 4, h / 4);
    assert!(r > 200 && g < 80 && b < 80, "top-left {r},{g},{b}");
    let [r, g, b] = pixel(&rgb, w, w / 4, 3 * h / 4);
    assert!(b > 200 && r < 80 && g < 80, "bottom-left {r},{g},{b}");
    // A region off the page is an error with the interface's code; the pool keeps serving.
    let err = rt
        .block_on(pool.render(
            pdf.clone(),
            vec![Region {
                page: 3,
                bbox: at.bbox,
            }],
            2.0,
        ))
        .expect_err("no page 3");
    assert_eq!(err.code(), quire::ErrorCode::BadInputData, "{err}");
    let err = rt
        .block_on(pool.render(
            b"not a pdf".to_vec(),
            vec![Region {
                page: 1,
                bbox: at.bbox,
            }],
            2.0,
        ))
        .expect_err("not a PDF");
    assert_eq!(err.code(), quire::ErrorCode::BadInputData, "{err}");
    // Layout still works on the same worker.
    let doc = rt
        .block_on(pool.layout(pdf, quire::layout::PageRange::default()))
        .expect("layout");
    assert_eq!(doc.pages[0].images.len(), 1);
}

#[test]
fn figure_bitmaps_become_png_entries_named_in_the_graphics() {
    let Some(pool) = worker_pool() else {
        return;
    };
    let (pdf, at) = image_pdf();
    let article = || Article {
        header: quire::document::HeaderRecord {
            title: Some("A page with a picture".into()),
            ..Default::default()
        },
        body: quire::document::Body {
            figures: vec![Figure {
                id: "fig_0".into(),
                graphics: vec![
                    Graphic {
                        at,
                        bitmap: true,
                        url: None,
                    },
                    // Vector graphics are not rendered.
                    Graphic {
                        at,
                        bitmap: false,
                        url: None,
                    },
                ],
                ..Figure::default()
            }],
            ..Default::default()
        },
        pages: vec![(1, 612.0, 792.0)],
        ..Article::default()
    };
    let rt = tokio::runtime::Runtime::new().expect("runtime");

    // The cascade's half: render, name, point the graphic at its entry.
    let mut a = article();
    let assets = rt
        .block_on(quire_actors::cascade::fulltext::render_graphics(
            &pool,
            pdf.clone(),
            &mut a,
        ))
        .expect("rendered");
    assert_eq!(assets.len(), 1);
    assert_eq!(assets[0].name, "fig_0-1.png");
    let graphics = &a.body.figures[0].graphics;
    assert_eq!(graphics[0].url.as_deref(), Some("fig_0-1.png"));
    assert_eq!(graphics[1].url, None);

    // The endpoint's half: Article + PDF → ZIP.
    let opt = quire::tei::header::TeiOptions::default();
    let bytes = rt
        .block_on(quire_web::routes::fulltext::asset_archive(
            &pool,
            pdf,
            article(),
            &opt,
            "paper",
        ))
        .expect("archive");
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("a ZIP");
    assert_eq!(zip.len(), 2);
    let mut tei = String::new();
    zip.by_name("paper.tei.xml")
        .expect("TEI entry")
        .read_to_string(&mut tei)
        .expect("read");
    well_formed(&tei).unwrap_or_else(|e| panic!("{e}: {tei}"));
    assert!(tei.contains("A page with a picture"), "{tei}");
    let mut png = Vec::new();
    zip.by_name("fig_0-1.png")
        .expect("PNG entry")
        .read_to_end(&mut png)
        .expect("read");
    let (w, h, rgb) = decode_png(&png);
    assert_eq!((w as f32 / h as f32).round(), 2.0, "{w}×{h}");
    let [r, _, _] = pixel(&rgb, w, w / 4, h / 4);
    assert!(r > 200, "a rendered picture, not a blank image");
}
