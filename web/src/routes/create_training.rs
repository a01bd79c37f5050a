/*!
`POST /api/createTraining` (multipart): training data for the PDF `input`, pre-annotated by
Quire's current models (`quire_actors::cascade::training`), answered as `application/zip` with
`Content-Disposition: attachment; filename="<upload name, every `pdf` (any case) → `zip`>"`.
The archive is a dataset folder: `<model>/corpus/raw/<stem>.training.<model>` and
`<model>/corpus/tei/<stem>.training.<model>.tei.xml` for the layout models, one TEI file under
`<model>/corpus/` for each text model, so `quire train <model> --dataset <unpacked folder>`
reads it back once corrected.

Parameters: `input` (required; missing or empty is a 400), `flavor` (`article/light` or
`article/light-ref`, any case: the flavoured models label and their files go to
`<model>/article/light/corpus`; `blank` runs no model and another name is a 400). The PDF is
laid out by the worker processes like every PDF endpoint's; layout failures keep their codes
(500), a full pool answers 503. Not gated by `training.enabled`: it changes nothing the server
serves (GROBID does not gate it either).
*/

use std::io::Write as _;

use actix_web::http::header;
use actix_web::{web, HttpResponse};
use quire::corpus::create::TrainingFile;
use quire::flavor::Flavor;
use quire_actors::cascade::training::CreateTraining;

use crate::app::State;
use crate::error::ApiError;
use crate::params::Params;
use crate::routes::fulltext::upload_stem;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/api/createTraining", web::post().to(create_training));
}

/// The flavour of a training-data request: the light flavours, or none.
fn flavor_param(params: &Params) -> Result<Option<Flavor>, ApiError> {
    let Some(raw) = params
        .text("flavor")?
        .map(str::trim)
        .filter(|v| !v.is_empty())
    else {
        return Ok(None);
    };
    match Flavor::named_in(raw, &Flavor::REQUESTS) {
        Some(Flavor::Blank) => Err(ApiError::invalid(
            "flavor",
            "`blank` runs no model, so there is nothing to pre-annotate",
        )),
        Some(f) => Ok(Some(f)),
        None => Err(ApiError::invalid(
            "flavor",
            format!("unknown flavor `{raw}`; known: article/light, article/light-ref"),
        )),
    }
}

/// The archive's name: the uploaded file's name (no folders) with every `pdf`, in any case,
/// replaced by `zip`, as GROBID names it; `<stem>.zip` when the upload has no name.
pub fn archive_name(filename: Option<&str>, stem: &str) -> String {
    let name = filename
        .and_then(|f| f.rsplit(['/', '\\']).next())
        .unwrap_or("")
        .chars()
        .map(|c| if c == '"' || c.is_control() { '_' } else { c })
        .collect::<String>();
    if name.trim().is_empty() {
        return format!("{stem}.zip");
    }
    let lower = name.to_ascii_lowercase();
    let mut out = String::with_capacity(name.len());
    let mut i = 0;
    while i < name.len() {
        if lower[i..].starts_with("pdf") {
            out.push_str("zip");
            i += 3;
        } else {
            let c = name[i..].chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// A ZIP of the files at their paths.
pub fn zip_files(files: &[TrainingFile]) -> zip::result::ZipResult<Vec<u8>> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let deflated = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for f in files {
        zip.start_file(f.path.as_str(), deflated)?;
        zip.write_all(f.text.as_bytes())?;
    }
    Ok(zip.finish()?.into_inner())
}

async fn create_training(state: State, mut params: Params) -> Result<HttpResponse, ApiError> {
    let input = params.required_file("input")?;
    let stem = upload_stem(input.filename.as_deref());
    let name = archive_name(input.filename.as_deref(), &stem);
    let pdf = params.take_file("input")?;
    let flavor = flavor_param(&params)?;
    let _slot = crate::routes::slot(&state.pool, "createTraining").await?;
    let files = state
        .pipeline
        .run(CreateTraining { pdf, flavor, stem })
        .await?;
    if files.is_empty() {
        return Err(ApiError::NoContent);
    }
    let bytes = zip_files(&files).map_err(|e| ApiError::Processing {
        code: quire::ErrorCode::General,
        message: format!("cannot write the archive: {e}"),
    })?;
    Ok(HttpResponse::Ok()
        .content_type("application/zip")
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"{name}\""),
        ))
        .body(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_archive_is_named_after_the_upload_with_pdf_replaced_by_zip() {
        assert_eq!(archive_name(Some("paper.pdf"), "paper"), "paper.zip");
        assert_eq!(archive_name(Some("dir/My.PDF"), "My"), "My.zip");
        assert_eq!(archive_name(Some("pdfs-1.Pdf"), "x"), "zips-1.zip");
        assert_eq!(archive_name(Some("a\"b.pdf"), "x"), "a_b.zip");
        assert_eq!(archive_name(None, "document"), "document.zip");
        assert_eq!(archive_name(Some("notes"), "notes"), "notes");
    }

    #[test]
    fn flavors_are_checked() {
        let p = |v: &str| Params::from_pairs([("flavor", v)]);
        assert_eq!(
            flavor_param(&p("Article/Light")).unwrap(),
            Some(Flavor::ArticleLight)
        );
        assert_eq!(flavor_param(&p("")).unwrap(), None);
        assert!(flavor_param(&p("blank")).is_err());
        assert!(flavor_param(&p("sdo/ietf")).is_err());
    }
}
