/*!
The full-text cascade (`processFulltextDocument`, `processFulltextAssetDocument`, `quire batch
--endpoint fulltext`): PDF → layout (worker pool) → the stages of one [`DocStage`]: segment,
header, references, body → one [`Article`] with the laid-out page sizes, and the debug trace
of every model invocation.

Flavours (grobid-service §4.8): `article/light` and `article/light-ref` select the flavoured
segmentation and header models where they are installed, else the standard ones (the
[`crate::Labeler`] passes the flavour to them); `article/light` makes no bibliography. `blank` runs no model at all: the body is one section
holding the document's text as laid out, one paragraph, with each token's box.

[`render_graphics`] is the asset half of `processFulltextAssetDocument`: the bitmap graphics of
the article's figures are rendered to PNG by the worker processes and each graphic gets the
name of its archive entry.
*/

use futures::future::BoxFuture;
use quire::document::{Article, Body, BodyBlock, Div, RichText, TokenBox};
use quire::flavor::Flavor;
use quire::layout::render::{Region, DEFAULT_SCALE};
use quire::layout::{Document, PageRange};

use crate::cascade::document::DocStage;
use crate::workers::WorkerPool;
use crate::{Applied, Cascade, CascadeCtx, DebugTrace, Error};

/// What a full-text request asks for.
#[derive(Debug, Clone)]
pub struct FulltextRequest {
    pub pdf: Vec<u8>,
    pub range: PageRange,
    /// Record every model invocation (debugMode).
    pub debug: bool,
    /// One of [`Flavor::REQUESTS`], if any.
    pub flavor: Option<Flavor>,
    /// `consolidateHeader`, `consolidateCitations` and `consolidateFunders` (0: none).
    pub consolidate_header: i64,
    pub consolidate_citations: i64,
    pub consolidate_funders: i64,
}

/// The full-text cascade.
pub struct FulltextCascade {
    pub request: FulltextRequest,
}

/// What the cascade produces.
#[derive(Debug, Clone, Default)]
pub struct FulltextOutput {
    pub article: Article,
    /// The model invocations, when the request asked for debugging.
    pub trace: Option<DebugTrace>,
    /// What header, citation and funder consolidation did.
    pub header_consolidation: Applied,
    pub citation_consolidation: Applied,
    pub funder_consolidation: Applied,
}

impl Cascade for FulltextCascade {
    type Output = FulltextOutput;

    fn run(self, ctx: CascadeCtx) -> BoxFuture<'static, Result<FulltextOutput, Error>> {
        Box::pin(async move {
            let r = self.request;
            if r.flavor == Some(Flavor::Blank) {
                let doc = ctx.pdf()?.layout(r.pdf, r.range).await?;
                return Ok(FulltextOutput {
                    article: blank_article(&doc),
                    trace: r.debug.then(DebugTrace::new),
                    ..FulltextOutput::default()
                });
            }
            // Each model runs in the flavour's variant where one is installed
            // (`segmentation-article-light`), else in its standard one, as GROBID does.
            let mut stage = DocStage::open(ctx.clone(), r.pdf, r.range, r.flavor, r.debug).await?;
            let mut article = Article {
                pages: page_sizes(&stage.doc),
                ..Article::default()
            };
            stage.segment().await?;
            article.header = stage.header().await?;
            quire::metadata::enrich_header(&mut article.header, &stage.doc);
            if r.flavor != Some(Flavor::ArticleLight) {
                article.references = stage.references().await?;
            }
            // After the references: the body's callouts are resolved against them.
            (article.body, article.back) = stage.body(&article.references).await?;
            quire::body::header_statements(&mut article.back, &article.header);
            quire::body::front_paragraphs(&mut article.body, &article.header);
            quire::metadata::enrich_article(&mut article);
            // Consolidation last: callouts were resolved against the references as printed.
            // Timed as its own stage when asked for.
            let asked = r.consolidate_header != 0
                || r.consolidate_citations != 0
                || r.consolidate_funders != 0;
            let timer = asked.then(|| crate::cascade::document::StageTimer::start("consolidation"));
            let header_consolidation = ctx
                .consolidation
                .header(&mut article.header, r.consolidate_header)
                .await;
            let citation_consolidation = ctx
                .consolidation
                .citations(
                    article.references.iter_mut().map(|r| &mut r.citation),
                    r.consolidate_citations,
                )
                .await;
            let funder_consolidation = ctx
                .consolidation
                .funders(&mut article.back.fundings, r.consolidate_funders);
            drop(timer);
            let mut trace = stage.into_trace();
            if let Some(t) = trace.as_mut() {
                let (rows, labels) =
                    quire::metadata::debug_rows(&article.header, Some(&article.back));
                t.record(
                    "metadata",
                    &[rows],
                    &[quire::labels::Labels::from_names(&labels)],
                );
            }
            Ok(FulltextOutput {
                article,
                trace,
                header_consolidation,
                citation_consolidation,
                funder_consolidation,
            })
        })
    }
}

/// Number, width and height of every laid-out page, in order (the TEI `facsimile`).
pub fn page_sizes(doc: &Document) -> Vec<(u32, f32, f32)> {
    doc.pages
        .iter()
        .map(|p| (p.number, p.width, p.height))
        .collect()
}

/// The `blank` flavour's article: no model runs; one section, one paragraph holding every
/// token of the laid-out pages in reading order, each with its box.
pub fn blank_article(doc: &Document) -> Article {
    let mut text = RichText::default();
    for page in &doc.pages {
        for line in page.blocks.iter().flat_map(|b| b.lines.iter()) {
            // A line break is a space; within a line, the PDF's own spacing.
            if !text.text.is_empty() && !text.text.ends_with(' ') {
                text.text.push(' ');
            }
            for tok in &line.tokens {
                let word = tok.text.trim();
                if word.is_empty() {
                    continue;
                }
                let start = text.text.len();
                text.text.push_str(word);
                text.tokens.push(TokenBox {
                    range: start..text.text.len(),
                    page: page.number,
                    bbox: tok.bbox,
                });
                if tok.space_after {
                    text.text.push(' ');
                }
            }
        }
    }
    let trimmed = text.text.trim_end().len();
    text.text.truncate(trimmed);
    let divs = if text.text.is_empty() {
        Vec::new()
    } else {
        vec![Div {
            head: None,
            blocks: vec![BodyBlock::Paragraph(text)],
        }]
    };
    Article {
        body: Body {
            divs,
            ..Body::default()
        },
        pages: page_sizes(doc),
        ..Article::default()
    }
}

/// One rendered figure bitmap: its archive entry name and PNG bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct Asset {
    pub name: String,
    pub png: Vec<u8>,
}

/// Renders every bitmap graphic of the article's figures (`Graphic { bitmap: true, .. }`) to
/// PNG in one worker job, names each `<figure id>-<k>.png` (`k` from 1 within its figure) and
/// sets the graphic's `url` to that name. Vector graphics are left as they are.
pub async fn render_graphics(
    workers: &WorkerPool,
    pdf: Vec<u8>,
    article: &mut Article,
) -> Result<Vec<Asset>, Error> {
    let mut names = Vec::new();
    let mut regions = Vec::new();
    for fig in &article.body.figures {
        let mut k = 0;
        for g in fig.graphics.iter().filter(|g| g.bitmap) {
            k += 1;
            names.push(format!("{}-{k}.png", entry_stem(&fig.id)));
            regions.push(Region {
                page: g.at.page,
                bbox: g.at.bbox,
            });
        }
    }
    let pngs = workers.render(pdf, regions, DEFAULT_SCALE).await?;
    let mut names_iter = names.iter();
    for fig in &mut article.body.figures {
        for g in fig.graphics.iter_mut().filter(|g| g.bitmap) {
            g.url = names_iter.next().cloned();
        }
    }
    Ok(names
        .into_iter()
        .zip(pngs)
        .map(|(name, png)| Asset { name, png })
        .collect())
}

/// A figure id made safe as a file name (letters, digits, `_`, `-`).
fn entry_stem(id: &str) -> String {
    let s: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() {
        "figure".to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quire::layout::{BBox, Block, Line, Page, Token};

    fn tok(text: &str, x: f32) -> Token {
        Token {
            text: text.to_string(),
            space_after: true,
            bbox: BBox {
                x,
                y: 10.0,
                w: 20.0,
                h: 8.0,
            },
            ..Token::default()
        }
    }

    #[test]
    fn the_blank_article_holds_every_token_with_its_box() {
        let doc = Document {
            pages: vec![
                Page {
                    number: 1,
                    width: 612.0,
                    height: 792.0,
                    blocks: vec![Block {
                        lines: vec![
                            Line {
                                tokens: vec![tok("Hello", 10.0), tok("world", 40.0)],
                                ..Line::default()
                            },
                            Line {
                                tokens: vec![tok("again", 10.0)],
                                ..Line::default()
                            },
                        ],
                        ..Block::default()
                    }],
                    ..Page::default()
                },
                Page {
                    number: 2,
                    width: 600.0,
                    height: 800.0,
                    ..Page::default()
                },
            ],
        };
        let a = blank_article(&doc);
        assert_eq!(a.pages, vec![(1, 612.0, 792.0), (2, 600.0, 800.0)]);
        assert!(a.header.is_empty());
        let [Div { head: None, blocks }] = a.body.divs.as_slice() else {
            panic!("one div: {:?}", a.body.divs);
        };
        let [BodyBlock::Paragraph(p)] = blocks.as_slice() else {
            panic!("one paragraph: {blocks:?}");
        };
        assert_eq!(p.text, "Hello world again");
        let words: Vec<&str> = p.tokens.iter().map(|t| &p.text[t.range.clone()]).collect();
        assert_eq!(words, ["Hello", "world", "again"]);
        assert_eq!(p.tokens[1].bbox.x, 40.0);
        assert!(blank_article(&Document::default()).body.is_empty());
    }

    #[test]
    fn entry_names_are_file_safe() {
        assert_eq!(entry_stem("fig_0"), "fig_0");
        assert_eq!(entry_stem("a/b c"), "a_b_c");
        assert_eq!(entry_stem(""), "figure");
    }
}
