/*!
Full-text endpoints. `/api/processFulltextDocument` (POST or PUT, multipart): the full-text
cascade (`quire_actors::cascade::fulltext`) over `input`, answered as the article's TEI, or as
the `debugMode` dump. `/api/processFulltextAssetDocument`: the same, answered as a ZIP holding
the TEI and one PNG per figure bitmap, rendered by the PDF worker processes.

Parameters ([`FulltextParams`], validated before any work starts): `consolidateHeader` (0-3),
`consolidateCitations` (0-2): looked up in the consolidation index, the TEI's parameters label
saying what was done; `consolidateFunders` or `consolidatFunders` (0-2; both spellings of the
interface, the first wins): the funders matched in the Crossref Funder Registry loaded from
the index folder (1 the registry's name and DOI, 2 the DOI only); `includeRawCitations`, `includeRawAffiliations`, `includeRawCopyrights` (0/1);
`teiCoordinates` (repeated; an element name of grobid-service §5.4 per field, commas also
split; an unknown name is a 400 listing the known ones; `s` only counts with sentences);
`segmentSentences`, `generateIDs` (0/1); `start`/`end` (pages from 1, -1 = first/last);
`flavor` (`blank`, `article/light`, `article/light-ref`, any case; another name is a 400);
`debugMode`, `models`. `quire batch` builds the same parameters and calls [`answer`].
*/

use std::collections::BTreeSet;
use std::io::Write as _;

use actix_web::http::header;
use actix_web::{web, HttpResponse};
use quire::document::Article;
use quire::flavor::Flavor;
use quire::layout::PageRange;
use quire::sentence::Segmenter;
use quire::tei::header::{article_tei, now_stamp, TeiOptions};
use quire_actors::cascade::fulltext::{render_graphics, Asset, FulltextCascade, FulltextRequest};
use quire_actors::workers::WorkerPool;
use quire_actors::{Applied, Pipeline};

use crate::app::State;
use crate::error::ApiError;
use crate::params::Params;
use crate::routes::pdf::{debug_params, flag};

pub fn routes(cfg: &mut web::ServiceConfig) {
    for (path, handler) in [
        ("/api/processFulltextDocument", Kind::Tei),
        ("/api/processFulltextAssetDocument", Kind::Assets),
    ] {
        let route = move |state: State, params: Params| process(state, params, handler);
        cfg.route(path, web::post().to(route))
            .route(path, web::put().to(route));
    }
}

const XML: &str = "application/xml; charset=UTF-8";
const DUMP: &str = "text/plain; charset=UTF-8";
const ZIP: &str = "application/zip";

/// The element names `teiCoordinates` accepts (grobid-service §5.4).
pub const COORDINATE_ELEMENTS: [&str; 12] = [
    "persName",
    "figure",
    "ref",
    "biblStruct",
    "formula",
    "head",
    "s",
    "p",
    "note",
    "title",
    "affiliation",
    "orgName",
];

/// Which answer an endpoint gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// processFulltextDocument: the TEI.
    Tei,
    /// processFulltextAssetDocument: a ZIP of the TEI and the figure bitmaps.
    Assets,
}

/// A full-text request's options, validated.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FulltextParams {
    pub consolidate_header: i64,
    pub consolidate_citations: i64,
    pub consolidate_funders: i64,
    pub include_raw_citations: bool,
    pub include_raw_affiliations: bool,
    pub include_raw_copyrights: bool,
    pub include_discarded_text: bool,
    /// Elements that get `coords`; `s` only when `segment_sentences`.
    pub coordinates: BTreeSet<String>,
    pub segment_sentences: bool,
    pub generate_ids: bool,
    pub start: i64,
    pub end: i64,
    pub flavor: Option<Flavor>,
    pub debug: bool,
    pub models: Option<Vec<String>>,
}

/// Checks `teiCoordinates` values (each one or more comma-separated element names) against
/// [`COORDINATE_ELEMENTS`]; an unknown name is a 400 naming it and listing the known ones.
pub fn coordinate_set<'a>(
    values: impl IntoIterator<Item = &'a str>,
) -> Result<BTreeSet<String>, ApiError> {
    let mut out = BTreeSet::new();
    for name in values
        .into_iter()
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .filter(|v| !v.is_empty())
    {
        let Some(known) = COORDINATE_ELEMENTS.iter().find(|k| **k == name) else {
            return Err(ApiError::invalid(
                "teiCoordinates",
                format!(
                    "unknown element `{name}`; known: {}",
                    COORDINATE_ELEMENTS.join(", ")
                ),
            ));
        };
        out.insert(known.to_string());
    }
    Ok(out)
}

/// A flavour name (empty: none); an unknown one is a 400 listing the known ones.
pub fn flavor_param(value: Option<&str>) -> Result<Option<Flavor>, ApiError> {
    match value.map(str::trim) {
        None | Some("") => Ok(None),
        Some(name) => Flavor::named_in(name, &Flavor::REQUESTS)
            .map(Some)
            .ok_or_else(|| {
                ApiError::invalid(
                    "flavor",
                    format!(
                        "unknown flavor `{name}`; known: {}",
                        Flavor::REQUESTS.map(Flavor::as_str).join(", ")
                    ),
                )
            }),
    }
}

impl FulltextParams {
    /// Reads and checks every parameter of the full-text endpoints.
    pub fn from_params(params: &Params) -> Result<FulltextParams, ApiError> {
        let consolidate_header = params.int_range("consolidateHeader", 1, 0, 3)?;
        let consolidate_citations = params.int_range("consolidateCitations", 0, 0, 2)?;
        // Both spellings (the interface's documentation misspells it); the right one wins.
        let misspelt = params.int_range("consolidatFunders", 0, 0, 2)?;
        let consolidate_funders = params.int_range("consolidateFunders", misspelt, 0, 2)?;
        let start = params.int_range("start", -1, -1, i64::from(u32::MAX))?;
        let end = params.int_range("end", -1, -1, i64::from(u32::MAX))?;
        if start >= 1 && end >= 1 && end < start {
            return Err(ApiError::invalid(
                "end",
                format!("page {end} is before the start page {start}"),
            ));
        }
        let segment_sentences = flag(params, "segmentSentences")?;
        let mut coordinates = coordinate_set(params.texts("teiCoordinates")?)?;
        if !segment_sentences {
            coordinates.remove("s");
        }
        let (debug, models) = debug_params(params)?;
        Ok(FulltextParams {
            consolidate_header,
            consolidate_citations,
            consolidate_funders,
            include_raw_citations: flag(params, "includeRawCitations")?,
            include_raw_affiliations: flag(params, "includeRawAffiliations")?,
            include_raw_copyrights: flag(params, "includeRawCopyrights")?,
            include_discarded_text: flag(params, "includeDiscardedText")?,
            coordinates,
            segment_sentences,
            generate_ids: flag(params, "generateIDs")?,
            start,
            end,
            flavor: flavor_param(params.text("flavor")?)?,
            debug,
            models,
        })
    }

    /// The pages to lay out.
    pub fn range(&self) -> PageRange {
        PageRange::from_grobid(self.start, self.end)
    }

    /// What the TEI writer is told: what was asked, and what was done (consolidation: the
    /// values applied, see [`FulltextParams::with_consolidation`]; before that, 0). The `blank`
    /// flavour ignores everything but the page range, as GROBID's does.
    pub fn tei_options(&self, segmenter: Segmenter) -> TeiOptions {
        let blank = self.flavor == Some(Flavor::Blank);
        TeiOptions {
            include_raw_affiliations: self.include_raw_affiliations,
            include_raw_copyrights: self.include_raw_copyrights,
            include_raw_citations: self.include_raw_citations,
            start_page: self.start,
            end_page: self.end,
            consolidate_header: 0,
            consolidate_citations: 0,
            consolidate_funders: 0,
            coordinates: if blank {
                BTreeSet::new()
            } else {
                self.coordinates.clone()
            },
            segment_sentences: self.segment_sentences && !blank,
            sentence_segmenter: segmenter,
            generate_ids: self.generate_ids && !blank,
            include_discarded_text: self.include_discarded_text && !blank,
            version: env!("CARGO_PKG_VERSION").to_string(),
            when: now_stamp(),
            consolidation: None,
        }
    }

    /// `opt` saying what header, citation and funder consolidation did: the values applied,
    /// and the works source with the funders' after it (`embedded, funders=…`).
    pub fn with_consolidation(
        mut opt: TeiOptions,
        header: &Applied,
        citations: &Applied,
        funders: &Applied,
    ) -> TeiOptions {
        opt.consolidate_header = header.value as u8;
        opt.consolidate_citations = citations.value as u8;
        opt.consolidate_funders = funders.value as u8;
        let works = header.note.clone().or_else(|| citations.note.clone());
        opt.consolidation = match (works, &funders.note) {
            (works, None) => works,
            (Some(works), Some(f)) => Some(format!("{works}, funders={f}")),
            (None, Some(f)) => Some(format!("funders={f}")),
        };
        opt
    }
}

/// A full-text answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// The article's TEI.
    Tei(String),
    /// The ZIP of processFulltextAssetDocument.
    Zip(Vec<u8>),
    /// The debugMode dump.
    Dump(String),
}

/// Whether nothing at all was extracted (the endpoint answers 204).
fn is_empty(a: &Article) -> bool {
    a.header.is_empty() && a.body.is_empty() && a.back.is_empty() && a.references.is_empty()
}

/// Runs the full-text cascade on `pdf` and writes the answer `kind` asks for: the path of
/// the endpoints and of `quire batch`. `stem` names the TEI entry of the ZIP
/// (`<stem>.tei.xml`).
pub async fn answer(
    pipeline: &Pipeline,
    workers: Option<&WorkerPool>,
    pdf: Vec<u8>,
    p: &FulltextParams,
    segmenter: Segmenter,
    kind: Kind,
    stem: &str,
) -> Result<Answer, ApiError> {
    let keep = (kind == Kind::Assets && !p.debug).then(|| pdf.clone());
    let out = pipeline
        .run(FulltextCascade {
            request: FulltextRequest {
                pdf,
                range: p.range(),
                debug: p.debug,
                flavor: p.flavor,
                consolidate_header: p.consolidate_header,
                consolidate_citations: p.consolidate_citations,
                consolidate_funders: p.consolidate_funders,
            },
        })
        .await?;
    if let Some(trace) = out.trace.filter(|_| p.debug) {
        return Ok(Answer::Dump(trace.format(p.models.as_deref())));
    }
    if is_empty(&out.article) {
        return Err(ApiError::NoContent);
    }
    let opt = FulltextParams::with_consolidation(
        p.tei_options(segmenter),
        &out.header_consolidation,
        &out.citation_consolidation,
        &out.funder_consolidation,
    );
    match (kind, keep, workers) {
        (Kind::Assets, Some(pdf), Some(workers)) => Ok(Answer::Zip(
            asset_archive(workers, pdf, out.article, &opt, stem).await?,
        )),
        (Kind::Assets, ..) => Err(ApiError::Processing {
            code: quire::ErrorCode::General,
            message: "no PDF worker pool to render the figures".into(),
        }),
        (Kind::Tei, ..) => Ok(Answer::Tei(article_tei(&out.article, &opt))),
    }
}

/// processFulltextAssetDocument's archive from an article and its PDF: the figure bitmaps are
/// rendered by the worker processes, each graphic's `url` set to its entry, then the TEI is
/// written: `<stem>.tei.xml` first, then one `<figure id>-<k>.png` per bitmap.
pub async fn asset_archive(
    workers: &WorkerPool,
    pdf: Vec<u8>,
    mut article: Article,
    opt: &TeiOptions,
    stem: &str,
) -> Result<Vec<u8>, ApiError> {
    let assets = render_graphics(workers, pdf, &mut article).await?;
    let tei = article_tei(&article, opt);
    zip_entries(&format!("{stem}.tei.xml"), &tei, &assets).map_err(|e| ApiError::Processing {
        code: quire::ErrorCode::General,
        message: format!("cannot write the archive: {e}"),
    })
}

fn zip_entries(tei_name: &str, tei: &str, assets: &[Asset]) -> zip::result::ZipResult<Vec<u8>> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let deflated = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    zip.start_file(tei_name, deflated)?;
    zip.write_all(tei.as_bytes())?;
    // PNGs are compressed already.
    let stored =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for a in assets {
        zip.start_file(a.name.as_str(), stored)?;
        zip.write_all(&a.png)?;
    }
    Ok(zip.finish()?.into_inner())
}

/// The uploaded file's name without folders and extension, made safe; `document` when none.
pub fn upload_stem(filename: Option<&str>) -> String {
    let name = filename
        .and_then(|f| f.rsplit(['/', '\\']).next())
        .unwrap_or("");
    let stem = name
        .rsplit_once('.')
        .map_or(name, |(s, _)| s)
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect::<String>();
    if stem.trim_matches(['.', '_']).is_empty() {
        "document".to_string()
    } else {
        stem
    }
}

async fn process(state: State, mut params: Params, kind: Kind) -> Result<HttpResponse, ApiError> {
    let stem = upload_stem(params.required_file("input")?.filename.as_deref());
    let pdf = params.take_file("input")?;
    let p = FulltextParams::from_params(&params)?;
    let endpoint = match kind {
        Kind::Tei => "processFulltextDocument",
        Kind::Assets => "processFulltextAssetDocument",
    };
    let _slot = crate::routes::slot(&state.pool, endpoint).await?;
    let segmenter = state.config.sentence_segmenter();
    let answer = answer(
        &state.pipeline,
        state.pdf_workers.as_ref(),
        pdf,
        &p,
        segmenter,
        kind,
        &stem,
    )
    .await?;
    Ok(match answer {
        Answer::Tei(tei) => HttpResponse::Ok().content_type(XML).body(tei),
        Answer::Dump(dump) => HttpResponse::Ok().content_type(DUMP).body(dump),
        Answer::Zip(bytes) => HttpResponse::Ok()
            .content_type(ZIP)
            .insert_header((
                header::CONTENT_DISPOSITION,
                "attachment; filename=\"result.zip\"",
            ))
            .body(bytes),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_read_and_checked() {
        let p = FulltextParams::from_params(&Params::from_pairs([
            ("consolidateHeader", "3"),
            ("consolidatFunders", "2"),
            ("teiCoordinates", "persName"),
            ("teiCoordinates", "figure, ref"),
            ("teiCoordinates", "s"),
            ("generateIDs", "1"),
            ("flavor", "Article/Light-Ref"),
            ("start", "2"),
        ]))
        .expect("valid");
        let coords: Vec<&str> = p.coordinates.iter().map(String::as_str).collect();
        // `s` is dropped without segmentSentences.
        assert_eq!(coords, ["figure", "persName", "ref"]);
        assert!(p.generate_ids && !p.segment_sentences);
        assert_eq!(p.flavor, Some(Flavor::ArticleLightRef));
        assert_eq!((p.start, p.end), (2, -1));
        let opt = p.tei_options(Segmenter::RuleBased);
        assert_eq!(opt.consolidate_header, 0);
        assert_eq!(opt.sentence_segmenter, Segmenter::RuleBased);
        assert!(opt.coordinates.contains("persName"));

        let with_s = FulltextParams::from_params(&Params::from_pairs([
            ("teiCoordinates", "s"),
            ("segmentSentences", "1"),
        ]))
        .expect("valid");
        assert!(with_s.coordinates.contains("s"));

        for (name, value) in [
            ("flavor", "sdo/magic"),
            ("consolidateHeader", "4"),
            ("consolidateCitations", "3"),
            ("consolidateFunders", "x"),
            ("consolidatFunders", "3"),
            ("teiCoordinates", "table"),
            ("segmentSentences", "yes"),
            ("generateIDs", "2"),
            ("start", "0.5"),
        ] {
            let err =
                FulltextParams::from_params(&Params::from_pairs([(name, value)])).expect_err(name);
            assert!(err.to_string().contains(&format!("`{name}`")), "{err}");
        }
        let backwards =
            FulltextParams::from_params(&Params::from_pairs([("start", "3"), ("end", "2")]));
        assert!(backwards.is_err());
    }

    #[test]
    fn the_parameters_label_says_what_consolidation_did() {
        let p = FulltextParams::from_params(&Params::from_pairs([
            ("consolidateHeader", "1"),
            ("consolidateCitations", "2"),
        ]))
        .expect("valid");
        assert_eq!((p.consolidate_header, p.consolidate_citations), (1, 2));
        let article = Article {
            header: quire::document::HeaderRecord {
                title: Some("A title".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        let label = |opt: &TeiOptions| -> String {
            let tei = article_tei(&article, opt);
            let start = tei.find("<label type=\"parameters\">").expect("label");
            tei[start..].lines().next().unwrap_or_default().to_string()
        };
        // No index: nothing was done, and the label says why.
        let none = quire_actors::Consolidation::none("no bibliographic index");
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        let mut h = article.header.clone();
        let header = rt.block_on(none.header(&mut h, p.consolidate_header));
        let citations = rt.block_on(none.citations(std::iter::empty(), p.consolidate_citations));
        let opt = FulltextParams::with_consolidation(
            p.tei_options(Segmenter::RuleBased),
            &header,
            &citations,
            &Applied::default(),
        );
        let text = label(&opt);
        assert!(
            text.contains("consolidateCitations=0, consolidateHeader=0"),
            "{text}"
        );
        assert!(
            text.contains("consolidation=none (no bibliographic index)"),
            "{text}"
        );
        // Done: the values applied and the source.
        let done = Applied {
            value: 1,
            looked_up: 1,
            consolidated: 1,
            note: Some("embedded".into()),
        };
        let cits = Applied {
            value: 2,
            ..done.clone()
        };
        let opt = FulltextParams::with_consolidation(
            p.tei_options(Segmenter::RuleBased),
            &done,
            &cits,
            &Applied::default(),
        );
        let text = label(&opt);
        assert!(
            text.contains("consolidateCitations=2, consolidateHeader=1"),
            "{text}"
        );
        assert!(text.contains("consolidation=embedded"), "{text}");
        // Funders: the value applied and the registry, after the works source.
        let funders = Applied {
            value: 2,
            note: Some("funder-registry".into()),
            ..done.clone()
        };
        let opt = FulltextParams::with_consolidation(
            p.tei_options(Segmenter::RuleBased),
            &done,
            &cits,
            &funders,
        );
        let text = label(&opt);
        assert!(text.contains("consolidateFunders=2"), "{text}");
        assert!(
            text.contains("consolidation=embedded, funders=funder-registry"),
            "{text}"
        );
        // The interface's misspelt name is read when the right one is absent.
        let misspelt =
            FulltextParams::from_params(&Params::from_pairs([("consolidatFunders", "1")]))
                .expect("valid");
        assert_eq!(misspelt.consolidate_funders, 1);
        // Nothing asked: the label is GROBID's.
        let plain = label(&p.tei_options(Segmenter::RuleBased));
        assert!(!plain.contains("consolidation="), "{plain}");
    }

    #[test]
    fn the_blank_flavour_turns_the_options_off() {
        let p = FulltextParams::from_params(&Params::from_pairs([
            ("flavor", "blank"),
            ("teiCoordinates", "head"),
            ("generateIDs", "1"),
        ]))
        .expect("valid");
        let opt = p.tei_options(Segmenter::Statistical);
        assert!(opt.coordinates.is_empty() && !opt.generate_ids);
    }

    #[test]
    fn upload_names_become_entry_stems() {
        assert_eq!(upload_stem(Some("dir/My Paper.pdf")), "My_Paper");
        assert_eq!(upload_stem(Some("a.b.pdf")), "a.b");
        assert_eq!(upload_stem(Some("..")), "document");
        assert_eq!(upload_stem(None), "document");
    }

    #[test]
    fn the_archive_holds_the_tei_then_the_images() {
        let assets = [Asset {
            name: "fig_0-1.png".into(),
            png: vec![137, 80, 78, 71],
        }];
        let bytes = zip_entries("doc.tei.xml", "<TEI/>", &assets).expect("zip");
        let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("archive");
        assert_eq!(zip.len(), 2);
        let mut tei = String::new();
        std::io::Read::read_to_string(&mut zip.by_name("doc.tei.xml").expect("tei"), &mut tei)
            .expect("read");
        assert_eq!(tei, "<TEI/>");
        let mut png = Vec::new();
        std::io::Read::read_to_end(&mut zip.by_name("fig_0-1.png").expect("png"), &mut png)
            .expect("read");
        assert_eq!(png, [137, 80, 78, 71]);
    }
}
