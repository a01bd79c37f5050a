/*!
The document pipeline shared by every PDF endpoint. A request lays out its PDF once (worker
processes), then runs stages over one [`DocStage`] context: the laid-out document, the
lexicons, the request's [`Labeler`] (flavour, debug trace) and what earlier stages produced.

- [`DocStage::segment`]: segmentation, the zones of the document (header, body, references, …)
  as line ranges; computed once, every later stage reads it.
- [`DocStage::header`]: the header zone → header → name-header, affiliation-address, date →
  [`HeaderRecord`].
- [`DocStage::references`]: the references zone → reference-segmenter → citation (one batch)
  → name-citation, date → [`Reference`]s, with the boxes each covers and identifiers taken
  from the PDF's link annotations over it.
- [`DocStage::body`]: the body and annex zones → fulltext → [`Body`] and [`Back`] (notes from
  the footnote zones, back-matter zones); every figure → figure (one batch), every table →
  table (one batch), which split their captions, contents and notes; callouts resolved
  against the references.

Each endpoint is a composition of stages (`processHeaderDocument`: segment + header;
`processReferences`: segment + references; full text: segment + header + references + body); no
stage runs twice. Feature extraction and
decoding run on the blocking pool; tagging runs on the model actors.
*/

use std::sync::{Arc, OnceLock};
use std::time::Instant;

use quire::body;
use quire::document::{md5_hex, Back, Body, BodyBlock, Funding, HeaderRecord, Reference};
use quire::flavor::Flavor;
use quire::layout::tokens::LayoutTokens;
use quire::layout::Document;
use quire::lexicon::{LexView, Lexicons};
use quire::models::header::{self, HeaderFields};
use quire::models::header_record::{self, SubResults};
use quire::models::reference_segmenter as refseg;
use quire::models::segmentation::{self, Zones};
use quire::models::{affiliation, date, fulltext, funding, name, ModelName};

use crate::cascade::strings;
use crate::metrics::metrics;
use crate::{CascadeCtx, DebugTrace, Error, Labeler};

/// Body lines between the front matter and a later header run that make it a run far from
/// the byline, whose names are not authors (`Zones::late_header_lines`).
const LATE_HEADER_BODY_LINES: usize = 100;

/// Observes a stage's wall time in `quire_stage_duration_seconds` when dropped (so a stage
/// that fails is timed too).
pub(crate) struct StageTimer {
    stage: &'static str,
    started: Instant,
}

impl StageTimer {
    pub(crate) fn start(stage: &'static str) -> StageTimer {
        StageTimer {
            stage,
            started: Instant::now(),
        }
    }
}

impl Drop for StageTimer {
    fn drop(&mut self) {
        metrics()
            .stage_seconds
            .with_label_values(&[self.stage])
            .observe(self.started.elapsed().as_secs_f64());
    }
}

/// One request's document and what its stages share.
pub struct DocStage {
    pub ctx: CascadeCtx,
    pub doc: Arc<Document>,
    pub lex: Arc<Lexicons>,
    pub labeler: Labeler,
    /// Upper-case hex MD5 of the uploaded PDF.
    pub md5: String,
    zones: Option<Zones>,
    /// The document's layout tokens, computed by the first stage that reads them (header,
    /// references or body) and shared by the others.
    tokens: Arc<OnceLock<LayoutTokens>>,
}

impl DocStage {
    /// Lays out `pdf` on the context's worker processes and prepares the stages.
    pub async fn open(
        ctx: CascadeCtx,
        pdf: Vec<u8>,
        range: quire::layout::PageRange,
        flavor: Option<Flavor>,
        debug: bool,
    ) -> Result<DocStage, Error> {
        let md5 = md5_hex(&pdf);
        let timer = StageTimer::start("layout");
        let doc = ctx.pdf()?.layout(pdf, range).await?;
        drop(timer);
        let lex = quire::lexicon::shared(&ctx.engine.models_dir)?;
        let labeler = Labeler::new(ctx.models.clone(), flavor, debug);
        Ok(DocStage {
            ctx,
            doc: Arc::new(doc),
            lex,
            labeler,
            md5,
            zones: None,
            tokens: Arc::default(),
        })
    }

    /// The model invocations recorded so far (debugMode), ending the request's stages.
    pub fn into_trace(self) -> Option<DebugTrace> {
        self.labeler.into_trace()
    }

    /// Segmentation: the document's zones (computed on first use, then shared).
    pub async fn segment(&mut self) -> Result<&Zones, Error> {
        if self.zones.is_none() {
            let _timer = StageTimer::start("segment");
            let (d, l) = (self.doc.clone(), self.lex.clone());
            let (rows, refs) = CascadeCtx::blocking("segmentation features", move || {
                let (facts, refs) = segmentation::document_lines(&d);
                Ok((segmentation::rows(&facts, &LexView::new(&l)), refs))
            })
            .await?;
            let zones = if rows.is_empty() {
                Zones::default()
            } else {
                let labels = self
                    .labeler
                    .label(ModelName::Segmentation, vec![rows])
                    .await?;
                let mut zones = segmentation::decode(&refs, &labels[0])?;
                zones.end_header_at_introduction(&self.doc);
                zones.extend_header_over_abstract(&self.doc, 60);
                zones.rescue_footnotes_from_page_zone(&self.doc);
                zones.annex_with_body_heads_to_body(&self.doc);
                zones.late_captions_to_body(&self.doc);
                zones
            };
            self.zones = Some(zones);
        }
        Ok(self.zones.get_or_insert_with(Zones::default))
    }

    /// The header stage: header zone → header model → names, affiliations, dates → record.
    pub async fn header(&mut self) -> Result<HeaderRecord, Error> {
        self.segment().await?;
        let _timer = StageTimer::start("header");
        let header_lines = self.segment().await?.lines(segmentation::Label::Header);
        let late_lines = self
            .segment()
            .await?
            .late_header_lines(LATE_HEADER_BODY_LINES);
        let other_zones: Vec<Vec<segmentation::LineRef>> = self
            .segment()
            .await?
            .pieces
            .iter()
            .filter(|(l, _)| *l == segmentation::Label::Other)
            .map(|(_, lines)| lines.clone())
            .collect();
        let (d, l, t) = (self.doc.clone(), self.lex.clone(), self.tokens.clone());
        let (tokens, rows) = CascadeCtx::blocking("header features", move || {
            let toks = t.get_or_init(|| LayoutTokens::new(&d));
            let tokens = header::document_tokens(&d, toks, &header_lines);
            let facts: Vec<header::TokenFacts> = tokens.iter().map(|t| t.facts.clone()).collect();
            let rows = header::rows(&facts, &LexView::new(&l));
            Ok((tokens, rows))
        })
        .await?;
        let mut fields = if rows.is_empty() {
            HeaderFields::default()
        } else {
            let labels = self.labeler.label(ModelName::Header, vec![rows]).await?;
            header::decode(&tokens, &labels[0], &LexView::new(&self.lex))?
        };
        fields.drop_authors_on(&tokens, &late_lines);
        header_record::rescue_authors_by_email(&mut fields);
        let sub = self.header_sub_models(&fields).await?;
        let d = self.doc.clone();
        let mut record = CascadeCtx::blocking("header assembly", move || {
            Ok(quire::coords::placed_header(
                &d,
                &fields,
                sub,
                &tokens,
                &other_zones,
            ))
        })
        .await?;
        if !record.is_empty() {
            record.md5 = Some(self.md5.clone());
        }
        Ok(record)
    }

    /// Names, affiliations and dates of the header fields.
    async fn header_sub_models(&mut self, fields: &HeaderFields) -> Result<SubResults, Error> {
        let lex = self.lex.clone();
        let view = LexView::new(&lex);
        let mut sub = SubResults::default();

        // One name-header call per author segment, as GROBID does.
        let lines = header_record::author_segment_lines(fields);
        for (k, seg) in header_record::author_segments(fields)
            .into_iter()
            .enumerate()
        {
            // Roman-numeral affiliation marks go to the name model as digits.
            let roman = name::roman_marks_as_digits(&seg);
            let toks = vec![name::toks(roman.as_deref().unwrap_or(&seg), false)];
            let decoded = self
                .labeler
                .tag(
                    ModelName::NameHeader,
                    &view,
                    &toks,
                    name::rows,
                    |_, t, l| name::decode_ranged(t, l),
                )
                .await?;
            let (mut persons, mut ranges) = decoded.into_iter().next().unwrap_or_default();
            let toks = &toks[0];
            let starts = lines.get(k).and_then(|l| name::line_starts(l, toks.len()));
            if let Some(starts) = starts {
                name::join_touching_persons(&mut persons, &mut ranges, toks, &starts);
            }
            // The ranges index the tokens of the segment as printed, which the numerals'
            // digits match one for one; where they did not, no person is traced.
            if roman.is_some() && name::toks(&seg, false).len() != toks.len() {
                ranges = vec![0..0; persons.len()];
            }
            name::generational_suffix_out(&mut persons);
            name::middle_words_out_of_surnames(&mut persons, &view);
            name::particle_into_surname(&mut persons);
            if roman.is_some() {
                name::digit_marks_as_roman(&mut persons);
            }
            sub.persons.push(persons);
            sub.person_ranges.push(ranges);
        }

        // All affiliation segments in one batch.
        let segs = header_record::affiliation_segments(fields);
        if !segs.is_empty() {
            let toks: Vec<_> = segs.iter().map(|s| affiliation::toks(s)).collect();
            let decoded = self
                .labeler
                .tag(
                    ModelName::AffiliationAddress,
                    &view,
                    &toks,
                    affiliation::rows,
                    |_, t, l| affiliation::decode(t, l, &lex),
                )
                .await?;
            for (k, (mut affs, seg)) in decoded.into_iter().zip(&segs).enumerate() {
                // One affiliation in the segment: its raw text is the segment as printed.
                if let [one] = affs.as_mut_slice() {
                    one.raw = seg.split_whitespace().collect::<Vec<_>>().join(" ");
                }
                sub.affiliation_segment
                    .extend(std::iter::repeat_n(k, affs.len()));
                sub.affiliations.extend(affs);
            }
        }

        // Dates: the first string that normalises.
        for s in header_record::date_strings(fields) {
            let toks = vec![date::toks(&s)];
            let dates = self
                .labeler
                .tag(ModelName::Date, &view, &toks, date::rows, |_, t, l| {
                    date::decode(t, l)
                })
                .await?;
            if let Some(best) = dates.first().and_then(|d| date::best(d)) {
                if best.year.is_some() {
                    sub.date = Some(best.clone());
                    break;
                }
            }
        }
        Ok(sub)
    }

    /// The references stage: references zone → reference-segmenter → citation batch →
    /// name-citation, date. A document without a references zone has no references.
    pub async fn references(&mut self) -> Result<Vec<Reference>, Error> {
        self.segment().await?;
        let _timer = StageTimer::start("references");
        let lines = self.segment().await?.lines(segmentation::Label::References);
        if lines.is_empty() {
            return Ok(Vec::new());
        }
        let (d, l, t) = (self.doc.clone(), self.lex.clone(), self.tokens.clone());
        let (facts, tokens, rows) =
            CascadeCtx::blocking("reference-segmenter features", move || {
                let toks = t.get_or_init(|| LayoutTokens::new(&d));
                let (facts, tokens) = refseg::document_tokens(&d, toks, &lines);
                let rows = refseg::rows(&facts, &LexView::new(&l));
                Ok((facts, tokens, rows))
            })
            .await?;
        if rows.is_empty() {
            return Ok(Vec::new());
        }
        let labels = self
            .labeler
            .label(ModelName::ReferenceSegmenter, vec![rows])
            .await?;
        let raw = refseg::decode(&facts, &tokens, &labels[0])?;
        let texts: Vec<String> = raw.iter().map(|r| r.text.clone()).collect();
        let lex = self.lex.clone();
        let citations = strings::parse_citations(&mut self.labeler, &lex, &texts).await?;
        let doc = self.doc.clone();
        let mut out = Vec::with_capacity(raw.len());
        for (r, mut citation) in raw.into_iter().zip(citations) {
            if citation.is_empty() {
                continue;
            }
            let boxes = quire::coords::reference_boxes(&doc, &tokens[r.tokens.clone()]);
            quire::links::link_identifiers(&doc, &boxes, &mut citation);
            out.push(Reference {
                citation,
                marker: r.marker,
                boxes,
            });
        }
        Ok(out)
    }

    /// The body stage: the body and annex zones → fulltext (one batch, callout features from
    /// the parsed `references`) → sections, paragraphs, formulas, figures and tables; the
    /// fulltext rows of each figure's tokens → figure model, of each table's → table model
    /// (one batch each) → their head, label, description, content and note; the
    /// footnote zones → notes; acknowledgement, funding and availability zones → back matter;
    /// every callout resolved against the references, figures, tables, formulas and notes.
    pub async fn body(&mut self, references: &[Reference]) -> Result<(Body, Back), Error> {
        let seg = Arc::new(self.segment().await?.clone());
        let _timer = StageTimer::start("body");
        let body_lines = seg.lines(segmentation::Label::Body);
        let annex_lines = seg.lines(segmentation::Label::Annex);
        let callouts = fulltext::Callouts::from_references(references);
        let (d, t) = (self.doc.clone(), self.tokens.clone());
        let (body_tokens, body_facts, annex_tokens, annex_facts, rows) =
            CascadeCtx::blocking("fulltext features", move || {
                let toks = t.get_or_init(|| LayoutTokens::new(&d));
                let (mut bf, bt) = fulltext::document_tokens(&d, toks, &body_lines);
                let (mut af, at) = fulltext::document_tokens(&d, toks, &annex_lines);
                callouts.apply(&mut bf);
                callouts.apply(&mut af);
                let rows = vec![fulltext::rows(&bf), fulltext::rows(&af)];
                Ok((bt, bf, at, af, rows))
            })
            .await?;
        let labels = self.labeler.label(ModelName::Fulltext, rows).await?;
        let body_spans = fulltext::decode(&labels[0])?;
        let annex_spans = fulltext::decode(&labels[1])?;
        let light = matches!(
            self.labeler.flavor(),
            Some(Flavor::ArticleLight | Flavor::ArticleLightRef)
        );
        let zf = Arc::new((body_tokens, body_facts, annex_tokens, annex_facts));
        let (d, z, s) = (self.doc.clone(), zf.clone(), seg.clone());
        let (mut body, mut back, zones, figure_rows, table_rows) =
            CascadeCtx::blocking("body assembly", move || {
                let (bt, bf, at, af) = &*z;
                let (mut body, mut zones) = body::assemble_zoned(&d, bt, &body_spans, light);
                let mut back = body::back(&d, &s);
                let (annex, annex_zones) =
                    body::assemble_annex_zoned(&d, at, &annex_spans, &mut body, light);
                back.annex = annex;
                zones.extend(annex_zones);
                let (figure_rows, table_rows) =
                    body::figure::model_rows(&zones, &zone_facts(bt, bf, at, af));
                Ok((body, back, zones, figure_rows, table_rows))
            })
            .await?;
        // The figure and table models over every figure and table the body holds, one batch
        // each (GROBID labels each `<figure>` and `<table>` cluster of the fulltext output).
        let figure_labels = self
            .label_if_installed(ModelName::Figure, figure_rows)
            .await?;
        let table_labels = self
            .label_if_installed(ModelName::Table, table_rows)
            .await?;
        let (d, refs) = (self.doc.clone(), references.to_vec());
        let (body, mut back) = CascadeCtx::blocking("figures and callouts", move || {
            let (bt, bf, at, af) = &*zf;
            body::figure::apply_models(
                &d,
                &zone_facts(bt, bf, at, af),
                &mut body.figures,
                &zones,
                &figure_labels,
                &table_labels,
            )?;
            body::figure::join_continued_tables(&mut body.figures);
            body.notes = body::zone_notes(&d, &seg);
            body::resolve_callouts(&mut body, &mut back, &refs);
            Ok((body, back))
        })
        .await?;
        back.fundings = self.fundings(&back).await?;
        Ok((body, back))
    }

    /// `model` over `seqs` when it is installed; no labels (one empty sequence each) when it
    /// is not, so the caller keeps what its rules give.
    async fn label_if_installed(
        &mut self,
        model: ModelName,
        seqs: Vec<quire::features::Rows>,
    ) -> Result<Vec<quire::labels::Labels>, Error> {
        if self.ctx.models.is_available(model) {
            self.labeler.label(model, seqs).await
        } else {
            Ok(vec![quire::labels::Labels::empty(); seqs.len()])
        }
    }

    /// The funding-acknowledgement model over every paragraph of the acknowledgement and
    /// funding sections (one batch) → the fundings they state, with ids `funding_N`. Without
    /// an installed model there are none (the sections themselves are written as they are).
    async fn fundings(&mut self, back: &Back) -> Result<Vec<Funding>, Error> {
        if !self
            .ctx
            .models
            .is_available(ModelName::FundingAcknowledgement)
        {
            return Ok(Vec::new());
        }
        let texts: Vec<String> = back
            .acknowledgement
            .iter()
            .chain(&back.funding)
            .flat_map(|d| &d.blocks)
            .filter_map(|b| match b {
                BodyBlock::Paragraph(p) => Some(p.text.clone()),
                _ => None,
            })
            .collect();
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let models_dir = self.ctx.engine.models_dir.clone();
        let (texts, toks, rows) = CascadeCtx::blocking("funding features", move || {
            let lex = funding::FundingLexicon::shared(&models_dir)?;
            let view = funding::FundingView::new(&lex);
            let toks: Vec<_> = texts
                .iter()
                .map(|t| quire::features::toks_from_text(t, false))
                .collect();
            let rows = toks.iter().map(|t| funding::rows(t, &view)).collect();
            Ok((texts, toks, rows))
        })
        .await?;
        let labels = self
            .labeler
            .label(ModelName::FundingAcknowledgement, rows)
            .await?;
        let mut out = Vec::new();
        for ((text, toks), labels) in texts.iter().zip(&toks).zip(&labels) {
            out.extend(funding::fundings(text, toks, &funding::decode(labels)?));
        }
        for (i, f) in out.iter_mut().enumerate() {
            f.id = format!("funding_{i}");
        }
        Ok(out)
    }
}

/// The body's and annex's zone tokens and facts, as the figure helpers take them.
fn zone_facts<'a>(
    body_tokens: &'a [quire::layout::ZoneToken],
    body_facts: &'a [fulltext::TokenFacts],
    annex_tokens: &'a [quire::layout::ZoneToken],
    annex_facts: &'a [fulltext::TokenFacts],
) -> body::figure::ZoneFacts<'a> {
    body::figure::ZoneFacts {
        body_tokens,
        body_facts,
        annex_tokens,
        annex_facts,
    }
}
