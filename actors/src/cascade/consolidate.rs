/*!
Consolidating TEI written before (Quire's `consolidateTEI` service, beyond GROBID): the
`biblStruct`s of the document are read back ([`quire::consolidation::tei`]), the references are
looked up with `consolidateCitations` and the matched ones written back in place, and the
document's own record gets the DOI its lookup found with `consolidateHeader`. Nothing else in
the document changes.
*/

use futures::future::BoxFuture;
use quire::consolidation::tei;

use crate::{Applied, CascadeCtx, Error};

/// One TEI document and the consolidation values to apply.
pub struct ConsolidateTeiCascade {
    pub tei: String,
    /// `consolidateHeader`: 1 or 2 add the DOI of the matched record to the header's record
    /// (found by its DOI or its metadata); 3 or 0 leave it (3 consolidates only from an
    /// extracted DOI, which such a header already shows).
    pub header: i64,
    /// `consolidateCitations`: 1 merges the matched record into each reference, 2 adds its DOI.
    pub citations: i64,
}

/// The consolidated document and what was done.
#[derive(Debug, Clone, PartialEq)]
pub struct ConsolidatedTei {
    pub tei: String,
    pub references: Applied,
    /// Whether the header's record gained a DOI.
    pub header_doi: Option<String>,
}

impl crate::Cascade for ConsolidateTeiCascade {
    type Output = ConsolidatedTei;
    fn run(self, ctx: CascadeCtx) -> BoxFuture<'static, Result<ConsolidatedTei, Error>> {
        Box::pin(async move {
            let bibls = tei::read(&self.tei).map_err(quire::Error::BadInput)?;
            let (header, refs): (Vec<&tei::TeiBibl>, Vec<&tei::TeiBibl>) =
                bibls.iter().partition(|b| b.in_header);
            let mut edits = Vec::new();

            let mut cits: Vec<_> = refs
                .iter()
                .map(|b| {
                    let mut c = b.citation.clone();
                    c.consolidated = None;
                    c
                })
                .collect();
            let references = ctx
                .consolidation
                .citations(cits.iter_mut(), self.citations)
                .await;
            for (b, c) in refs.iter().zip(&cits) {
                if c.consolidated.is_some() {
                    edits.push(tei::replacement(b, c));
                }
            }

            let mut header_doi = None;
            if let (Some(b), 1 | 2) = (header.first(), self.header) {
                if b.citation.doi().is_none() {
                    let mut c = b.citation.clone();
                    ctx.consolidation
                        .citations(std::iter::once(&mut c), 2)
                        .await;
                    if let Some(doi) = c.consolidated.as_ref().and(c.doi()) {
                        if let Some(edit) = tei::doi_insertion(&self.tei, b, &doi) {
                            edits.push(edit);
                            header_doi = Some(doi);
                        }
                    }
                }
            }
            Ok(ConsolidatedTei {
                tei: tei::apply(&self.tei, edits),
                references,
                header_doi,
            })
        })
    }
}
