/*!
The raw-string cascades (processDate, processHeaderNames, processCitationNames,
processAffiliations, processCitation, processCitationList). Each turns strings into feature
rows with the engine's one row function per model, has the model actors label them, and
decodes the labels; citations then send their author and editor fields through
`name-citation` and their dates through `date`, each stage as one batch.
*/

use std::sync::Arc;

use futures::future::BoxFuture;
use quire::features::Tok;
use quire::lexicon::{LexView, Lexicons};
use quire::models::affiliation::{self, Affiliation};
use quire::models::citation::{self, Citation};
use quire::models::date::{self, Date};
use quire::models::name::{self, Person};
use quire::models::ModelName;

use crate::{CascadeCtx, Error, Labeler};

/// What a raw-string cascade labels with: a labeler without flavour or trace, and the
/// lexicons.
fn plain(ctx: &CascadeCtx) -> Result<(Labeler, Arc<Lexicons>), Error> {
    let lex = quire::lexicon::shared(&ctx.engine.models_dir)?;
    Ok((Labeler::new(ctx.models.clone(), None, false), lex))
}

/// Parse date strings with the date model: the dates found in each string.
pub async fn parse_dates(
    labeler: &mut Labeler,
    lex: &Lexicons,
    texts: &[String],
) -> Result<Vec<Vec<Date>>, Error> {
    let toks: Vec<Vec<Tok>> = texts.iter().map(|t| date::toks(t)).collect();
    let view = LexView::new(lex);
    labeler
        .tag(ModelName::Date, &view, &toks, date::rows, |_, t, l| {
            date::decode(t, l)
        })
        .await
}

/// Parse name strings with `name-header` (or `name-citation` when `citation`).
pub async fn parse_names(
    labeler: &mut Labeler,
    lex: &Lexicons,
    texts: &[String],
    citation: bool,
) -> Result<Vec<Vec<Person>>, Error> {
    let toks: Vec<Vec<Tok>> = texts.iter().map(|t| name::toks(t, citation)).collect();
    let model = if citation {
        ModelName::NameCitation
    } else {
        ModelName::NameHeader
    };
    // Citation author lists in Vancouver style are read by their shape, particles and
    // compound surnames included; the others by the name model. Every list is still labelled
    // by the model, so the debug dump and createTraining keep one name-citation sequence per
    // list (pre-annotated training data, as for any other model).
    let view = LexView::new(lex);
    labeler
        .tag(model, &view, &toks, name::rows, |i, t, l| {
            citation
                .then(|| name::vancouver_persons(&texts[i]))
                .flatten()
                .unwrap_or_else(|| name::decode(t, l))
        })
        .await
}

/// Parse affiliation blocks with `affiliation-address`.
pub async fn parse_affiliations(
    labeler: &mut Labeler,
    lex: &Lexicons,
    texts: &[String],
) -> Result<Vec<Vec<Affiliation>>, Error> {
    let toks: Vec<Vec<Tok>> = texts.iter().map(|t| affiliation::toks(t)).collect();
    let view = LexView::new(lex);
    labeler
        .tag(
            ModelName::AffiliationAddress,
            &view,
            &toks,
            affiliation::rows,
            |_, t, l| affiliation::decode(t, l, lex),
        )
        .await
}

/// Parse reference strings: citation, then name-citation for authors and editors, then date.
/// An empty string gives an empty [`Citation`] at its position.
pub async fn parse_citations(
    labeler: &mut Labeler,
    lex: &Lexicons,
    texts: &[String],
) -> Result<Vec<Citation>, Error> {
    let prepared: Vec<String> = texts.iter().map(|t| citation::prepare(t)).collect();
    let toks: Vec<Vec<Tok>> = prepared.iter().map(|p| citation::toks(p)).collect();
    let view = LexView::new(lex);
    let mut cits: Vec<Citation> = labeler
        .tag(
            ModelName::Citation,
            &view,
            &toks,
            citation::rows,
            |i, t, l| citation::decode(&prepared[i], t, l),
        )
        .await?;

    // Authors and editors in one name-citation batch.
    let mut name_texts = Vec::new();
    let mut slots = Vec::new();
    for (i, c) in cits.iter().enumerate() {
        if let Some(a) = &c.author_text {
            name_texts.push(a.clone());
            slots.push((i, false));
        }
        if let Some(e) = &c.editor_text {
            name_texts.push(e.clone());
            slots.push((i, true));
        }
    }
    let persons = parse_names(labeler, lex, &name_texts, true).await?;
    for ((i, editor), ps) in slots.into_iter().zip(persons) {
        if let Some(c) = cits.get_mut(i) {
            if editor {
                c.editors = ps;
            } else {
                c.authors = ps;
            }
        }
    }

    // Dates in one batch; the first of the most specified dates wins.
    let mut date_texts = Vec::new();
    let mut owners = Vec::new();
    for (i, c) in cits.iter().enumerate() {
        if let Some(d) = &c.date_text {
            date_texts.push(d.clone());
            owners.push(i);
        }
    }
    let dates = parse_dates(labeler, lex, &date_texts).await?;
    for (i, ds) in owners.into_iter().zip(dates) {
        if let Some(c) = cits.get_mut(i) {
            c.date = date::best(&ds).cloned();
        }
    }
    Ok(cits)
}

/// processDate: the dates of one string.
pub struct DateCascade {
    pub text: String,
}

impl crate::Cascade for DateCascade {
    type Output = Vec<Date>;
    fn run(self, ctx: CascadeCtx) -> BoxFuture<'static, Result<Vec<Date>, Error>> {
        Box::pin(async move {
            let (mut labeler, lex) = plain(&ctx)?;
            let mut all = parse_dates(&mut labeler, &lex, &[self.text]).await?;
            Ok(all.pop().unwrap_or_default())
        })
    }
}

/// processHeaderNames / processCitationNames: the persons of one string.
pub struct NamesCascade {
    pub text: String,
    pub citation: bool,
}

impl crate::Cascade for NamesCascade {
    type Output = Vec<Person>;
    fn run(self, ctx: CascadeCtx) -> BoxFuture<'static, Result<Vec<Person>, Error>> {
        Box::pin(async move {
            let (mut labeler, lex) = plain(&ctx)?;
            let mut all = parse_names(&mut labeler, &lex, &[self.text], self.citation).await?;
            Ok(all.pop().unwrap_or_default())
        })
    }
}

/// processAffiliations: the affiliations of one string (newlines kept).
pub struct AffiliationsCascade {
    pub text: String,
}

impl crate::Cascade for AffiliationsCascade {
    type Output = Vec<Affiliation>;
    fn run(self, ctx: CascadeCtx) -> BoxFuture<'static, Result<Vec<Affiliation>, Error>> {
        Box::pin(async move {
            let (mut labeler, lex) = plain(&ctx)?;
            let mut all = parse_affiliations(&mut labeler, &lex, &[self.text]).await?;
            Ok(all.pop().unwrap_or_default())
        })
    }
}

/// processCitation / processCitationList: one citation per input string, in order,
/// consolidated with `consolidate` (`consolidateCitations`; 0: none).
pub struct CitationsCascade {
    pub texts: Vec<String>,
    pub consolidate: i64,
}

impl crate::Cascade for CitationsCascade {
    type Output = Vec<Citation>;
    fn run(self, ctx: CascadeCtx) -> BoxFuture<'static, Result<Vec<Citation>, Error>> {
        Box::pin(async move {
            let (mut labeler, lex) = plain(&ctx)?;
            let mut cits = parse_citations(&mut labeler, &lex, &self.texts).await?;
            ctx.consolidation
                .citations(cits.iter_mut(), self.consolidate)
                .await;
            Ok(cits)
        })
    }
}
