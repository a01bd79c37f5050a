/*!
The labels a tagger answers, as one type from the model to the decoders.

A model's label set ([`LabelSet`]) is the list of names it was trained with (`I-<title>`,
`<title>`, `<other>`, …), in the model's id order, shared by every answer of that model. One
sequence's answer ([`Labels`]) is a label id per token into that set: the tagger hands over
its ids without writing a name per token, and each token's name (`labels[i]`, `labels.iter()`)
is read from the set. Two answers are equal when they name the same labels in the same order,
whichever sets they index.

A decoder reads an answer as its model's `Label` enum ([`Labels::tags`]: each name of the set
parsed once, and whether it carries GROBID's `I-` prefix); rules that change a token's label
before decoding change those [`Tag`]s, never the answer.
*/

use std::fmt;
use std::ops::Index;
use std::sync::Arc;

/// A model's label names in its id order (cheap to clone: the names are shared).
#[derive(Clone, PartialEq, Eq)]
pub struct LabelSet(Arc<[String]>);

impl LabelSet {
    /// The set of `names`, in this order (the model's ids are the positions).
    pub fn new(names: Vec<String>) -> LabelSet {
        assert!(
            names.len() <= usize::from(u16::MAX),
            "a label set holds at most {} names",
            u16::MAX
        );
        LabelSet(names.into())
    }

    /// The names, in id order.
    pub fn names(&self) -> &[String] {
        &self.0
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// An answer of this set from ids into it (each below [`LabelSet::len`]).
    pub fn labels(&self, ids: Vec<u16>) -> Labels {
        debug_assert!(ids.iter().all(|&i| usize::from(i) < self.len()));
        Labels {
            set: self.clone(),
            ids,
        }
    }
}

impl fmt::Debug for LabelSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.iter()).finish()
    }
}

/// A token's label as a model's label type `L`: the label without GROBID's `I-` prefix, and
/// whether the prefix was there (a field begins at this token even after the same label).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tag<L> {
    pub label: L,
    pub begins: bool,
}

/// The fields of tagged tokens, GROBID's way: `(label, first token, one past the last token)`
/// per run of one label, a new field at each `I-` label even after the same label.
pub fn fields<L: Copy + PartialEq>(tags: &[Tag<L>]) -> Vec<(L, usize, usize)> {
    let mut out: Vec<(L, usize, usize)> = Vec::new();
    for (i, t) in tags.iter().enumerate() {
        match out.last_mut() {
            Some(last) if !t.begins && last.0 == t.label => last.2 = i + 1,
            _ => out.push((t.label, i, i + 1)),
        }
    }
    out
}

/// A label name without GROBID's `I-` prefix: `I-<title>` → `<title>`.
pub fn plain(name: &str) -> &str {
    name.strip_prefix("I-").unwrap_or(name)
}

/// Tags of labels given by name (gold data, a corpus file's labels): the plain name, `I-`
/// removed, and whether the name had it.
pub fn named_tags<S: AsRef<str>>(names: &[S]) -> Vec<Tag<&str>> {
    names
        .iter()
        .map(|n| {
            let n = n.as_ref();
            Tag {
                label: plain(n),
                begins: n.starts_with("I-"),
            }
        })
        .collect()
}

/// [`fields`] of labels given by name: `(plain name, first token, one past the last token)`.
pub fn named_fields<S: AsRef<str>>(names: &[S]) -> Vec<(&str, usize, usize)> {
    fields(&named_tags(names))
}

/// One sequence's labels: a label per token, as ids into the [`LabelSet`] of the model that
/// answered (see the module documentation).
#[derive(Clone)]
pub struct Labels {
    set: LabelSet,
    ids: Vec<u16>,
}

impl Labels {
    /// Labels named one by one (gold data, tests, rows read back from a file): the set is the
    /// distinct names in the order they first appear.
    pub fn from_names<S: AsRef<str>>(names: impl IntoIterator<Item = S>) -> Labels {
        let mut set: Vec<String> = Vec::new();
        let ids = names
            .into_iter()
            .map(|n| {
                let n = n.as_ref();
                match set.iter().position(|s| s == n) {
                    Some(i) => i as u16,
                    None => {
                        set.push(n.to_string());
                        (set.len() - 1) as u16
                    }
                }
            })
            .collect();
        Labels {
            set: LabelSet::new(set),
            ids,
        }
    }

    /// No labels (an empty sequence's answer).
    pub fn empty() -> Labels {
        Labels::from_names(std::iter::empty::<&str>())
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The names, token by token.
    pub fn iter(&self) -> Names<'_> {
        Names {
            names: &self.set.0,
            ids: self.ids.iter(),
        }
    }

    /// The ids into the answering model's label set, token by token.
    pub fn ids(&self) -> &[u16] {
        &self.ids
    }

    /// Each token's label read as a model's label type (see [`Tag`]), `parse` called once
    /// per name of the set, not once per token (it reads a name with or without its `I-`
    /// prefix, as each model's `Label::parse` does). The first token whose name `parse` does
    /// not know is the error, with its index and name.
    pub fn tags<L: Copy>(
        &self,
        parse: impl Fn(&str) -> Option<L>,
    ) -> Result<Vec<Tag<L>>, (usize, &str)> {
        let parsed: Vec<Option<Tag<L>>> = self
            .set
            .names()
            .iter()
            .map(|n| {
                parse(n).map(|label| Tag {
                    label,
                    begins: n.starts_with("I-"),
                })
            })
            .collect();
        self.ids
            .iter()
            .enumerate()
            .map(|(i, &id)| parsed[usize::from(id)].ok_or((i, &self[i])))
            .collect()
    }

    /// [`Labels::tags`] where a name `parse` does not know reads as `unknown` (a decoder's
    /// `<other>`).
    pub fn tags_or<L: Copy>(&self, parse: impl Fn(&str) -> Option<L>, unknown: L) -> Vec<Tag<L>> {
        match self.tags(|n| Some(parse(n).unwrap_or(unknown))) {
            Ok(tags) => tags,
            Err(_) => unreachable!("every name parses"),
        }
    }

    /// The names as owned strings (for writing out, or comparing with gold text).
    pub fn to_names(&self) -> Vec<String> {
        self.iter().map(str::to_string).collect()
    }
}

impl Default for Labels {
    fn default() -> Labels {
        Labels::empty()
    }
}

impl Index<usize> for Labels {
    type Output = str;

    fn index(&self, i: usize) -> &str {
        &self.set.0[usize::from(self.ids[i])]
    }
}

impl PartialEq for Labels {
    fn eq(&self, other: &Labels) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for Labels {}

impl<S: AsRef<str>> PartialEq<[S]> for Labels {
    fn eq(&self, other: &[S]) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter().map(AsRef::as_ref))
    }
}

impl<S: AsRef<str>> PartialEq<Vec<S>> for Labels {
    fn eq(&self, other: &Vec<S>) -> bool {
        *self == other[..]
    }
}

impl fmt::Debug for Labels {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for &'a Labels {
    type Item = &'a str;
    type IntoIter = Names<'a>;

    fn into_iter(self) -> Names<'a> {
        self.iter()
    }
}

/// The names of an answer, token by token ([`Labels::iter`]).
#[derive(Clone)]
pub struct Names<'a> {
    names: &'a [String],
    ids: std::slice::Iter<'a, u16>,
}

impl<'a> Iterator for Names<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        self.ids
            .next()
            .map(|&id| self.names[usize::from(id)].as_str())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.ids.size_hint()
    }
}

impl DoubleEndedIterator for Names<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.ids
            .next_back()
            .map(|&id| self.names[usize::from(id)].as_str())
    }
}

impl ExactSizeIterator for Names<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_fields_follow_i_prefixes_and_label_changes() {
        let labels = ["I-<a>", "<a>", "I-<a>", "<b>", "<b>", "I-<b>", "<b>"];
        assert_eq!(
            named_fields(&labels),
            vec![("<a>", 0, 2), ("<a>", 2, 3), ("<b>", 3, 5), ("<b>", 5, 7)]
        );
        assert!(named_fields::<&str>(&[]).is_empty());
    }

    #[test]
    fn answers_read_their_names_from_the_set_and_compare_by_name() {
        let set = LabelSet::new(vec!["I-<title>".into(), "<title>".into(), "<other>".into()]);
        let a = set.labels(vec![0, 1, 1, 2]);
        assert_eq!(a.len(), 4);
        assert_eq!(&a[1], "<title>");
        assert_eq!(&a[3], "<other>");
        assert_eq!(
            a.iter().collect::<Vec<_>>(),
            ["I-<title>", "<title>", "<title>", "<other>"]
        );
        assert_eq!(a.ids(), &[0, 1, 1, 2]);
        // The same names from another set (another order) are the same answer.
        let b = Labels::from_names(["I-<title>", "<title>", "<title>", "<other>"]);
        assert_eq!(b.ids(), &[0, 1, 1, 2]);
        assert_eq!(a, b);
        assert_eq!(a, vec!["I-<title>", "<title>", "<title>", "<other>"]);
        let c = Labels::from_names(["<other>", "<title>", "<title>", "<other>"]);
        assert_ne!(a, c);
        assert_eq!(c.ids(), &[0, 1, 1, 0]);
        assert_ne!(a, Labels::from_names(["I-<title>", "<title>", "<title>"]));
        assert_eq!(
            format!("{c:?}"),
            r#"["<other>", "<title>", "<title>", "<other>"]"#
        );
        assert_eq!((&c).into_iter().count(), 4);
    }

    #[test]
    fn tags_read_each_name_as_the_models_type_once_and_name_the_first_unknown_token() {
        let parse = |n: &str| match n.strip_prefix("I-").unwrap_or(n) {
            "<title>" => Some(1),
            "<other>" => Some(2),
            _ => None,
        };
        let a = Labels::from_names(["I-<title>", "<title>", "I-<title>", "<other>"]);
        let tags = a.tags(parse).unwrap();
        assert_eq!(
            tags.iter().map(|t| (t.label, t.begins)).collect::<Vec<_>>(),
            [(1, true), (1, false), (1, true), (2, false)]
        );
        let calls = std::cell::Cell::new(0);
        let counted = |n: &str| {
            calls.set(calls.get() + 1);
            parse(n)
        };
        assert!(a.tags(counted).is_ok());
        assert_eq!(calls.get(), 3, "once per name of the set");
        let b = Labels::from_names(["<title>", "<note>", "I-<year>"]);
        assert_eq!(b.tags(parse).unwrap_err(), (1, "<note>"));
        assert_eq!(
            b.tags_or(parse, 0)
                .iter()
                .map(|t| (t.label, t.begins))
                .collect::<Vec<_>>(),
            [(1, false), (0, false), (0, true)]
        );
        assert_eq!(fields(&tags), [(1, 0, 2), (1, 2, 3), (2, 3, 4)]);
        assert!(fields::<i32>(&[]).is_empty());
    }
}
