//! Identifiers from the PDF's link annotations: a reference's DOI or web address read from the
//! links drawn over its lines, where the printed text gives none or gives it cut or garbled
//! (GROBID reads the same annotations from pdfalto's output).

use crate::document::PageBox;
use crate::layout::{BBox, Document};
use crate::models::citation::Citation;

/// Whether a link box belongs to a reference whose line boxes on the link's page are `lines`:
/// it overlaps one of them horizontally and its vertical centre lies inside that line, or (a
/// box drawn over several lines) those lines cover at least half of its height. A box that
/// only grazes a line (the next reference's first line, by a point or two) does not count.
fn link_on_lines(link: &BBox, lines: &[&BBox]) -> bool {
    let across = |l: &BBox| link.x < l.right() && l.x < link.right();
    let centre = link.y + link.h / 2.0;
    if lines
        .iter()
        .any(|l| across(l) && l.y <= centre && centre <= l.bottom())
    {
        return true;
    }
    let covered: f32 = lines
        .iter()
        .filter(|l| across(l))
        .map(|l| (link.bottom().min(l.bottom()) - link.y.max(l.y)).max(0.0))
        .sum();
    link.h > 0.0 && covered >= link.h / 2.0
}

/// Whether a link's DOI is the printed DOI written better: the same up to case, hyphens,
/// whitespace and zero-width characters, or one a prefix of the other (a printed DOI cut at a
/// line break, or glued to what followed it), and not the same string.
fn link_doi_is_better(printed: &str, linked: &str) -> bool {
    let (p, l) = (crate::doi::key(printed), crate::doi::key(linked));
    (p.starts_with(&l) || l.starts_with(&p)) && !printed.eq_ignore_ascii_case(linked)
}

/// DOIs and URLs of the PDF's link annotations over the reference's lines (see
/// [`link_on_lines`]): a DOI link gives the reference its DOI when the text printed none, or
/// replaces the printed one when it is that DOI written better (see [`link_doi_is_better`]);
/// another web link gives its `web` pointer.
pub fn link_identifiers(doc: &Document, boxes: &[PageBox], c: &mut Citation) {
    let mut pages: Vec<u32> = boxes.iter().map(|b| b.page).collect();
    pages.sort_unstable();
    pages.dedup();
    for number in pages {
        let Some(page) = doc.pages.iter().find(|p| p.number == number) else {
            continue;
        };
        let lines: Vec<&BBox> = boxes
            .iter()
            .filter(|b| b.page == number)
            .map(|b| &b.bbox)
            .collect();
        for link in &page.links {
            let Some(uri) = link.uri.as_deref() else {
                continue;
            };
            if !link_on_lines(&link.bbox, &lines) {
                continue;
            }
            if let Some(doi) = crate::doi::of_uri(uri) {
                match c.doi() {
                    None => c.pubnums.push(doi),
                    Some(printed) if link_doi_is_better(&printed, &doi) => {
                        c.pubnums.retain(|p| crate::doi::find_all(p).is_empty());
                        c.pubnums.insert(0, doi);
                    }
                    Some(_) => {}
                }
            } else if c.web.is_none() && (uri.starts_with("http://") || uri.starts_with("https://"))
            {
                c.web = Some(uri.to_string());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dois_come_out_of_link_targets_and_other_links_do_not() {
        assert_eq!(
            crate::doi::of_uri("https://doi.org/10.1000/xyz.12").as_deref(),
            Some("10.1000/xyz.12")
        );
        assert_eq!(
            crate::doi::of_uri("http://dx.doi.org/10.1371%2Fjournal.pone.1").as_deref(),
            Some("10.1371/journal.pone.1")
        );
        assert_eq!(
            crate::doi::of_uri("doi:10.5555/abc.").as_deref(),
            Some("10.5555/abc")
        );
        assert_eq!(crate::doi::of_uri("https://example.org/v10.2/page"), None);
        assert_eq!(crate::doi::of_uri("https://doi.org/10.1000"), None);
    }

    fn bb(x: f32, y: f32, w: f32, h: f32) -> BBox {
        BBox { x, y, w, h }
    }

    #[test]
    fn a_link_belongs_to_the_reference_whose_line_holds_its_centre() {
        // Two references, one line each, 10 pt high, 1 pt apart.
        let first = bb(50.0, 100.0, 400.0, 10.0);
        let second = bb(50.0, 111.0, 400.0, 10.0);
        // A link over the first line that reaches 1.7 pt into the second one.
        let link = bb(300.0, 102.7, 120.0, 10.0);
        assert!(link_on_lines(&link, &[&first]));
        assert!(!link_on_lines(&link, &[&second]));
        // Not beside the line.
        assert!(!link_on_lines(&bb(460.0, 100.0, 20.0, 10.0), &[&first]));
        // A box drawn over two lines of one reference, its centre between them.
        let third = bb(50.0, 122.0, 400.0, 10.0);
        let tall = bb(60.0, 111.0, 300.0, 21.0);
        assert!(link_on_lines(&tall, &[&second, &third]));
        assert!(!link_on_lines(&tall, &[&first]));
    }

    #[test]
    fn a_linked_doi_replaces_the_printed_one_it_writes_better() {
        // Hyphens, case, spaces and zero-width characters aside, the same DOI.
        assert!(link_doi_is_better(
            "10.1016/j.janx-dis.2024.102917",
            "10.1016/j.janxdis.2024.102917"
        ));
        assert!(link_doi_is_better(
            "10.3389/fvets\u{200B}.2018.1",
            "10.3389/fvets.2018.1"
        ));
        // One cut short at a line break, one glued to what followed it.
        assert!(link_doi_is_better(
            "10.1126/science",
            "10.1126/science.aab3050"
        ));
        assert!(link_doi_is_better(
            "10.1007/s10389-025-02418-z21",
            "10.1007/s10389-025-02418-z"
        ));
        // The same DOI, or another one: the printed DOI stays.
        assert!(!link_doi_is_better("10.1000/ABC", "10.1000/abc"));
        assert!(!link_doi_is_better("10.1000/abc", "10.1000/xyz"));
    }
}
