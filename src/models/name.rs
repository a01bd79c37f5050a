//! Name models (`name-header`, `name-citation`): label the tokens of an author string
//! (`<forename>`, `<middlename>`, `<surname>`, `<title>`, `<suffix>`, `<marker>`) and decode
//! them into persons. Both share the columns of reference §3.6; templates differ in window.

use crate::features::{self as f, Tok};
use crate::labels::Labels;
use crate::lexicon::{Kind, LexView};
use crate::models::text;

pub use crate::document::Person;

model_labels!(
    "name",
    /// GROBID's name labels (`<marker>` only occurs in header names).
    {
        Marker => "<marker>",
        Title => "<title>",
        Forename => "<forename>",
        Middlename => "<middlename>",
        Surname => "<surname>",
        Suffix => "<suffix>",
        Other => "<other>",
    }
);

/// Version of [`rows`]' columns; bump when a column changes (`meta.json` must match).
pub const FEATURE_VERSION: u32 = 1;

impl Person {
    fn is_empty(&self) -> bool {
        self.forename.is_none() && self.middlename.is_none() && self.surname.is_none()
    }
}

/// Clean a name part: drop the dots of initials and stray edge punctuation; `J.-P.` → `J-P`.
pub fn clean_part(s: &str) -> String {
    let joined: String = s
        .split_whitespace()
        .map(|w| {
            let t = w
                .trim_matches(|c: char| matches!(c, ',' | ';' | ':' | '(' | ')' | '*'))
                // Quote-like footnote marks after a name (`Jung''`, `Smith′`).
                .trim_end_matches(['\'', '"', '’', '′', '″', '`']);
            if t.chars().filter(|c| c.is_alphabetic()).count() <= 2 && t.contains('.') {
                t.replace('.', "")
            } else {
                t.trim_end_matches('.').to_string()
            }
        })
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    joined
        .replace(" - ", "-")
        .replace("- ", "-")
        .replace(" -", "-")
}

/// Words joined by spaces, `None` when there are none.
fn joined<S: AsRef<str>>(words: &[S]) -> Option<String> {
    let words: Vec<&str> = words.iter().map(AsRef::as_ref).collect();
    Some(words.join(" ")).filter(|m| !m.is_empty())
}

fn set(slot: &mut Option<String>, value: String) {
    if value.is_empty() {
        return;
    }
    match slot {
        Some(s) => {
            s.push(' ');
            s.push_str(&value);
        }
        None => *slot = Some(value),
    }
}

/// Whether a title span is a name the model took for a title: two to four capitalised words
/// in mixed case (`Md Nur Haque`: the `Md` of Bangladeshi names read as a degree).
fn named_title(t: &str) -> bool {
    let words: Vec<&str> = t.split(' ').filter(|w| !w.is_empty()).collect();
    (2..=4).contains(&words.len())
        && words.iter().all(|w| {
            w.chars().next().is_some_and(char::is_uppercase)
                && w.chars().any(char::is_lowercase)
                && w.chars().all(|c| c.is_alphabetic() || c == '-')
        })
}

/// A byline entry read as a title alone and closed by affiliation marks, whose title is
/// [`named_title`], becomes that name: first word the forename, last the surname.
fn title_as_name(p: &mut Person) {
    if !p.is_empty() || p.markers.is_empty() {
        return;
    }
    let Some(title) = p.title.clone().filter(|t| named_title(t)) else {
        return;
    };
    let words: Vec<&str> = title.split(' ').filter(|w| !w.is_empty()).collect();
    p.title = None;
    p.forename = Some(words[0].to_string());
    p.surname = words.last().map(|w| w.to_string());
    p.middlename = joined(&words[1..words.len() - 1]);
}

/// Persons from labelled tokens. A new person starts when a name part begins that the person
/// being built already has (a second forename, a second surname, …), when a name part
/// follows the affiliation marks of a named person, or when a title begins after a name part.
/// Persons without any name part are left out.
pub fn decode(toks: &[Tok], labels: &Labels) -> Vec<Person> {
    decode_ranged(toks, labels).0
}

/// [`decode`], and per person the tokens from its first name part to its last.
pub fn decode_ranged(toks: &[Tok], labels: &Labels) -> (Vec<Person>, Vec<std::ops::Range<usize>>) {
    let mut out = Vec::new();
    let mut ranges: Vec<std::ops::Range<usize>> = Vec::new();
    let mut cur = Person::default();
    let mut cur_range: Option<std::ops::Range<usize>> = None;
    // Marks followed the current person's name: its entry is closed, and a name part after
    // them is the next person's (`… Teles 1,2 , Bia …` gives `Bia` to a new person, not
    // to Teles).
    let mut closed = false;
    let fields = crate::labels::fields(&labels.tags_or(Label::parse, Label::Other));
    for (label, a, b) in given_name_rescue(toks, fields) {
        let value = text::join_tokens(toks.get(a..b).unwrap_or_default());
        let starts_new = match label {
            Label::Forename => cur.forename.is_some() || closed,
            // A title after a title-only entry closed by its marks opens the next entry too.
            Label::Title => !cur.is_empty() || !cur.markers.is_empty(),
            Label::Middlename => (cur.middlename.is_some() && cur.surname.is_some()) || closed,
            Label::Surname => cur.surname.is_some() || closed,
            Label::Marker | Label::Suffix | Label::Other => false,
        };
        if starts_new {
            closed = false;
            let mut done = std::mem::take(&mut cur);
            title_as_name(&mut done);
            let r = cur_range.take().unwrap_or(0..0);
            if !done.is_empty() {
                out.push(done);
                ranges.push(r);
            }
        }
        if label != Label::Marker && label != Label::Other {
            let r = cur_range.get_or_insert(a..b);
            r.end = b;
        }
        let v = clean_part(&value);
        match label {
            Label::Forename => {
                if cur.forename.is_none() && cur.surname.is_some() {
                    cur.surname_first = true;
                }
                set(&mut cur.forename, v)
            }
            Label::Middlename => set(&mut cur.middlename, v),
            Label::Surname => set(&mut cur.surname, v),
            Label::Title => set(&mut cur.title, v),
            Label::Suffix => set(&mut cur.suffix, v),
            Label::Marker => {
                let m: Vec<String> = value
                    .split([',', ' '])
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect();
                if cur.is_empty() {
                    // Marks after a title that is a name close its entry.
                    closed |= cur.title.as_deref().is_some_and(named_title);
                    // A marker before the name belongs to the previous person if any.
                    match out.last_mut() {
                        Some(p) if cur.title.is_none() => p.markers.extend(m),
                        _ => cur.markers.extend(m),
                    }
                } else {
                    closed |= cur.surname.is_some() || cur.forename.is_some();
                    cur.markers.extend(m);
                }
            }
            Label::Other => {}
        }
    }
    title_as_name(&mut cur);
    if !cur.is_empty() {
        out.push(cur);
        ranges.push(cur_range.unwrap_or(0..0));
    }
    // A forename made of several initials keeps the first as forename, the rest as middle.
    for p in &mut out {
        if p.middlename.is_none() {
            if let Some(fore) = &p.forename {
                let parts: Vec<&str> = fore.split(' ').collect();
                if parts.len() > 1 && parts[1..].iter().all(|w| w.chars().count() <= 2) {
                    p.middlename = Some(parts[1..].join(" "));
                    p.forename = Some(parts[0].to_string());
                }
            }
        }
    }
    (out, ranges)
}

/// A single capitalised word the name model left as `<other>` right before a person's
/// forename (`Vân` in `Vân Anh Huynh-Thu`: two-word given names common in Vietnamese, Korean
/// and Chinese names) opens the given name: it becomes the forename and the labelled forename
/// its middle name, instead of being dropped.
fn given_name_rescue(
    toks: &[Tok],
    spans: Vec<(Label, usize, usize)>,
) -> Vec<(Label, usize, usize)> {
    let mut out = spans;
    for i in 0..out.len() {
        let (label, a, b) = &out[i];
        let one_word = b - a == 1
            && toks.get(*a).is_some_and(|t| {
                let mut cs = t.text.chars();
                cs.next().is_some_and(char::is_uppercase)
                    && t.text.chars().count() >= 2
                    && cs.all(char::is_lowercase)
            });
        let opens_person = i == 0
            || matches!(out[i - 1].0, Label::Surname | Label::Marker | Label::Suffix)
            || toks
                .get(out[i - 1].2.saturating_sub(1))
                .is_some_and(|t| t.text == "," || t.text == ";" || t.text == "and");
        let before_forename = out
            .get(i + 1)
            .is_some_and(|(next, ..)| *next == Label::Forename)
            && out
                .get(i + 2)
                .is_some_and(|(after, ..)| *after == Label::Surname);
        if *label == Label::Other && one_word && opens_person && before_forename {
            out[i].0 = Label::Forename;
            out[i + 1].0 = Label::Middlename;
        }
    }
    out
}

/// Lower-case words that join a multi-word surname (`van der Berg`, `de la Cruz`, `Silva e
/// Souza`), and capitalised prefixes that open one (`Al Sahab`, `Le Sommer`, `Mac Donald`).
/// The one list of name particles: the header's byline rules read it too.
pub(crate) const PARTICLES: &[&str] = &[
    "a", "ab", "abou", "abu", "al", "ap", "bar", "ben", "bin", "da", "dal", "dalla", "das", "de",
    "degli", "dei", "del", "della", "dello", "den", "der", "des", "di", "do", "dos", "du", "e",
    "el", "la", "las", "le", "les", "lo", "los", "mac", "mc", "st", "saint", "san", "santa", "ter",
    "ten", "van", "vande", "vanden", "vander", "von", "vom", "y", "zu", "zum", "zur",
];

/// Words that follow a surname to tell a family's generations apart (`Júnior`, `Neto`, `III`).
const GENERATIONAL: &[&str] = &[
    "jr", "junior", "júnior", "filho", "neto", "sobrinho", "ii", "iii", "iv",
];

/// A generational word the name model put in the surname (`Lima Júnior`, `SOUZA NETO`, or
/// `Júnior` alone after given names `Caio Moreira Lima`) is the name's suffix: the surname is
/// the word(s) before it. A surname made of that word alone with nothing before it to take
/// its place is left as it is.
pub fn generational_suffix_out(persons: &mut [Person]) {
    for p in persons {
        if p.suffix.is_some() {
            continue;
        }
        let Some(surname) = p.surname.clone() else {
            continue;
        };
        let mut words: Vec<&str> = surname.split(' ').filter(|w| !w.is_empty()).collect();
        let Some(last) = words.last().copied() else {
            continue;
        };
        if !GENERATIONAL.contains(&last.trim_end_matches('.').to_lowercase().as_str()) {
            continue;
        }
        words.pop();
        if words.is_empty() {
            // `Júnior` alone: the last middle name becomes the surname (without a middle
            // name the surname is left as read).
            let Some(middle) = p.middlename.clone() else {
                continue;
            };
            let mut mids: Vec<&str> = middle.split(' ').filter(|w| !w.is_empty()).collect();
            let Some(sur) = mids.pop() else {
                continue;
            };
            p.surname = Some(sur.to_string());
            p.middlename = joined(&mids);
        } else {
            p.surname = Some(words.join(" "));
        }
        p.suffix = Some(last.trim_end_matches('.').to_string());
    }
}

/// Header names printed forename first keep only their last word(s) as the surname, as the
/// BibTeX `First von Last` rule reads them: when the name model labels `Helene Baek Juel` or
/// `J. Jasmin Güven` with a two-word surname, the leading word is a middle name unless it is
/// a particle (`van`, `de`, `Al`, `Le`…), is joined by a hyphen, or opens a double surname of
/// two known surnames (the last-name lexicon holds both words of `Rodriguez Montoya`; a known
/// surname before an unknown last word is a given name, `Mohamed Aziz Bhouri`). Names printed
/// surname first (`Baek Juel, Helene`) and surnames the model gave alone are left as they are.
pub fn middle_words_out_of_surnames(persons: &mut [Person], lex: &LexView<'_>) {
    for p in persons {
        if p.surname_first || p.forename.is_none() {
            continue;
        }
        let Some(surname) = p.surname.clone() else {
            continue;
        };
        let words: Vec<&str> = surname.split(' ').filter(|w| !w.is_empty()).collect();
        if words.len() < 2 {
            continue;
        }
        let last_known = words
            .last()
            .is_some_and(|w| lex.has_word(Kind::LastName, w));
        // Capitalised words before a lower-case particle are given names (`Joyce Kelly da
        // Silva`: First `Joyce Kelly`, von `da`, Last `Silva`), known surnames or not.
        let particle_at = words
            .iter()
            .position(|w| w.chars().all(char::is_lowercase) && PARTICLES.contains(w))
            .unwrap_or(words.len());
        let mut moved = 0;
        for (k, w) in words[..words.len() - 1].iter().enumerate() {
            let mut chars = w.chars();
            let capitalised = chars.next().is_some_and(char::is_uppercase)
                && chars.clone().any(char::is_lowercase)
                && chars.all(char::is_alphabetic);
            let lower = w.to_lowercase();
            if !capitalised || PARTICLES.contains(&lower.as_str()) {
                break;
            }
            let before_particle = k < particle_at && particle_at < words.len();
            if !before_particle && last_known && lex.has_word(Kind::LastName, w) {
                break;
            }
            moved += 1;
        }
        if moved == 0 {
            continue;
        }
        set(&mut p.middlename, words[..moved].join(" "));
        p.surname = Some(words[moved..].join(" "));
    }
}

/// Arabic surname particles, which open a family name in any case (`Rami Abou Nader`,
/// `Hoda El Sayed`) and are never given names of their own after a forename.
const ARABIC_PARTICLES: &[&str] = &["abou", "abu", "al", "el"];

/// A forename-first name whose middle name ends with a capitalised Arabic particle, right
/// before a one-word surname, has that particle in its surname (`Rami Abou Nader` → `Abou
/// Nader`). Other particles stay where the name model put them, as the lists Quire is read
/// against disagree on them: `Sofie Van Dam` is `Van Dam` in some and `Dam` in BibTeX-derived
/// ones, and Brazilian lists index `Ana Maria dos Santos` under `Santos`.
pub fn particle_into_surname(persons: &mut [Person]) {
    for p in persons {
        if p.surname_first || p.forename.is_none() {
            continue;
        }
        let (Some(middle), Some(surname)) = (p.middlename.clone(), p.surname.clone()) else {
            continue;
        };
        if surname.contains(' ') || !surname.chars().next().is_some_and(char::is_uppercase) {
            continue;
        }
        let mut words: Vec<&str> = middle.split(' ').filter(|w| !w.is_empty()).collect();
        let Some(last) = words.last().copied() else {
            continue;
        };
        let arabic = last.chars().next().is_some_and(char::is_uppercase)
            && ARABIC_PARTICLES.contains(&last.to_lowercase().as_str());
        if !arabic {
            continue;
        }
        words.pop();
        p.surname = Some(format!("{last} {surname}"));
        p.middlename = joined(&words);
    }
}

/// Generational suffixes printed after the initials of a Vancouver name (`Lim A Jr`).
const VANCOUVER_SUFFIXES: &[&str] = &["Jr", "Sr", "II", "III", "IV"];

/// Initials as Vancouver prints them: one to four capitals, undotted, a hyphenated pair
/// allowed (`J-P`).
fn vancouver_initials(w: &str) -> bool {
    let mut parts = w.split('-');
    let first = parts.next().unwrap_or_default();
    let caps = |s: &str, max: usize| {
        (1..=max).contains(&s.chars().count()) && s.chars().all(|c| c.is_uppercase())
    };
    let rest: Vec<&str> = parts.collect();
    caps(first, 4) && rest.len() <= 1 && rest.iter().all(|r| caps(r, 2))
}

/// A surname word of a Vancouver name: a letter first, no digit, not in capitals only (a
/// capitals word would be initials, `Feigin B L`, or a name printed in capitals).
fn vancouver_surname_word(w: &str) -> bool {
    w.chars().next().is_some_and(char::is_alphabetic)
        && !w.chars().any(|c| c.is_ascii_digit())
        && w.chars().any(char::is_lowercase)
}

/// The persons of an author list in Vancouver style (`De Martino L, Bruno M, van der Berg
/// KA, Lim A Jr, et al.`), where every item separated by commas (or a last `and`/`&`) is a
/// surname of one to four words, then its initials, then an optional generational suffix.
/// The surname is everything before the initials, particles and compounds included; the
/// first initial is the forename, the others the middle name. `None` when any item has
/// another shape: the name model reads the list then.
pub fn vancouver_persons(text: &str) -> Option<Vec<Person>> {
    let mut s = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if let Some(i) = s.to_ascii_lowercase().find("et al") {
        s.truncate(i);
    }
    let s = s.trim().trim_end_matches(['.', ',', ';', ' ']);
    let mut items: Vec<&str> = Vec::new();
    for part in s.split(',') {
        let part = part.trim();
        let (head, tail) = match part.split_once(" and ").or_else(|| part.split_once(" & ")) {
            Some((a, b)) => (a.trim(), Some(b.trim())),
            None => (part, None),
        };
        items.extend(
            [Some(head), tail]
                .into_iter()
                .flatten()
                .filter(|x| !x.is_empty()),
        );
    }
    if items.is_empty() {
        return None;
    }
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let mut words: Vec<&str> = item.split(' ').collect();
        let suffix = match words.last() {
            Some(w)
                if words.len() >= 3 && VANCOUVER_SUFFIXES.contains(&w.trim_end_matches('.')) =>
            {
                words.pop().map(|w| w.trim_end_matches('.').to_string())
            }
            _ => None,
        };
        let initials = words.pop().filter(|w| vancouver_initials(w))?;
        if words.is_empty() || words.len() > 4 || !words.iter().all(|w| vancouver_surname_word(w)) {
            return None;
        }
        let (forename, middle) = match initials.contains('-') {
            true => (initials.to_string(), None),
            false => {
                let mut cs = initials.chars();
                let first = cs.next().map(String::from);
                let rest: Vec<String> = cs.map(String::from).collect();
                (first.unwrap_or_default(), joined(&rest))
            }
        };
        out.push(Person {
            forename: Some(forename),
            middlename: middle,
            surname: Some(words.join(" ")),
            suffix,
            surname_first: true,
            ..Person::default()
        });
    }
    Some(out)
}

/// The value of a Roman numeral from 1 to 39 (`I` … `XXXIX`), as printed in capitals.
fn roman_value(w: &str) -> Option<u32> {
    let tens = w.chars().take_while(|&c| c == 'X').count();
    let rest = &w[tens..];
    let units = match rest {
        "" => 0,
        "I" => 1,
        "II" => 2,
        "III" => 3,
        "IV" => 4,
        "V" => 5,
        "VI" => 6,
        "VII" => 7,
        "VIII" => 8,
        "IX" => 9,
        _ => return None,
    };
    let v = tens as u32 * 10 + units;
    (tens <= 3 && v > 0).then_some(v)
}

/// Affiliation marks printed as Roman numerals after each name (`Ana Lopes I,II, Rui Costa
/// III`) read as names by the name model, which knows digits and symbols as marks: the
/// author line with each such numeral written in digits (`Ana Lopes 1,2, Rui Costa 3`), or
/// `None` when the line has no such marks. A numeral is a mark when it follows a word or
/// another mark's comma and is followed by a comma, a semicolon, a star, `and` or the end
/// (never by a dot or a name: `I.` and `Ana I Costa` are initials); the line must hold three such
/// numerals at least, one of them above `III` or two joined by a comma, so that a single
/// generational suffix (`Driggers III`) stays a suffix.
pub fn roman_marks_as_digits(text: &str) -> Option<String> {
    let toks = toks(text, false);
    let words: Vec<&str> = toks.iter().map(|t| t.text.as_str()).collect();
    let next_word = |i: usize| {
        words[i + 1..]
            .iter()
            .find(|w| !w.trim().is_empty())
            .copied()
    };
    let prev_word = |i: usize| {
        words[..i]
            .iter()
            .rev()
            .find(|w| !w.trim().is_empty())
            .copied()
    };
    let mut marks: Vec<(usize, u32)> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let Some(v) = roman_value(w) else {
            continue;
        };
        let after_ok =
            next_word(i).is_none_or(|n| matches!(n, "," | ";" | "*" | "†" | "and" | "&"));
        let before_ok = prev_word(i).is_some_and(|p| {
            p == "," && marks.last().is_some_and(|&(j, _)| j + 2 == i)
                || p.chars().count() > 1 && p.chars().any(char::is_lowercase)
        });
        if after_ok && before_ok {
            marks.push((i, v));
        }
    }
    let joined = marks.windows(2).any(|w| w[0].0 + 2 == w[1].0);
    if marks.len() < 3 || !(joined || marks.iter().any(|&(_, v)| v > 3)) {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut k = 0;
    for (i, t) in toks.iter().enumerate() {
        if i > 0 && (t.space_before || t.newline_before) {
            out.push(' ');
        }
        match marks.get(k) {
            Some(&(j, v)) if j == i => {
                out.push_str(&v.to_string());
                k += 1;
            }
            _ => out.push_str(&t.text),
        }
    }
    Some(out)
}

/// Marks read from a line [`roman_marks_as_digits`] rewrote, back in Roman numerals (as the
/// affiliations print them).
pub fn digit_marks_as_roman(persons: &mut [Person]) {
    const ROMAN: [&str; 10] = ["", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX"];
    for p in persons {
        for m in &mut p.markers {
            if let Ok(v) = m.parse::<usize>() {
                if (1..40).contains(&v) {
                    *m = format!("{}{}", "X".repeat(v / 10), ROMAN[v % 10]);
                }
            }
        }
    }
}

/// Tokens that separate two persons in an author line: punctuation, conjunctions, footnote
/// marks and affiliation numbers.
fn separates_persons(t: &str) -> bool {
    matches!(
        t.to_lowercase().as_str(),
        "," | ";" | "&" | "and" | "und" | "et" | "y" | "·" | "•" | "|" | "/" | "*" | "†" | "‡"
    ) || t.chars().any(|c| c.is_ascii_digit())
}

/// One person with a long given name (`Malik Sajjad Ahmed Nadeem`, `Med Raâfet Ben Khedher`)
/// that the name model read as two (`Malik Sajjad` + `Ahmed Nadeem`): two persons whose name
/// tokens touch (no comma, conjunction, mark, number or other token between them), the second
/// not opening a printed line (`breaks`: token indices where a new line starts; a name broken
/// over a line end, `Caio` / `Moreira Lima Júnior`, is one name), five words at most
/// together and neither with a title, are one: its first word the forename, its last the
/// surname, the words between its middle name. Authors are separated by something, or
/// printed on lines of their own.
pub fn join_touching_persons(
    persons: &mut Vec<Person>,
    ranges: &mut Vec<std::ops::Range<usize>>,
    toks: &[Tok],
    breaks: &[usize],
) {
    let n = persons.len();
    if ranges.len() != n || n < 2 {
        return;
    }
    let words = |r: std::ops::Range<usize>| {
        toks.get(r)
            .unwrap_or_default()
            .iter()
            .filter(|t| t.text.chars().any(char::is_alphanumeric))
            .count()
    };
    // touch[i]: persons i and i + 1 are printed as one run of name words.
    let touch: Vec<bool> = (0..n - 1)
        .map(|i| {
            let (q, p) = (&persons[i], &persons[i + 1]);
            let (a, b) = (&ranges[i], &ranges[i + 1]);
            !a.is_empty()
                && !b.is_empty()
                && a.end == b.start
                && q.markers.is_empty()
                && q.title.is_none()
                && p.title.is_none()
                && q.surname.is_some()
                // The second reading has a surname, or is a given name closed by its marks
                // (`Md Tanvirul` + `Jamil-e-In 1`: the entry's last word read as a forename).
                && (p.surname.is_some() || (p.forename.is_some() && !p.markers.is_empty()))
                && !breaks.iter().any(|&k| a.end <= k && k <= b.start)
                && !toks
                    .get(a.start..b.end)
                    .unwrap_or_default()
                    .iter()
                    .any(|t| separates_persons(t.text.trim()))
        })
        .collect();
    let mut out: Vec<Person> = Vec::with_capacity(n);
    let mut out_ranges = Vec::with_capacity(n);
    let mut i = 0;
    while i < n {
        let pair = i + 1 < n
            && touch[i]
            && (i == 0 || !touch[i - 1])
            && (i + 2 >= n || !touch[i + 1])
            && words(ranges[i].start..ranges[i + 1].end) <= 5;
        if !pair {
            out.push(persons[i].clone());
            out_ranges.push(ranges[i].clone());
            i += 1;
            continue;
        }
        out_ranges.push(ranges[i].start..ranges[i + 1].end);
        let mut all: Vec<String> = Vec::new();
        for x in &persons[i..i + 2] {
            let parts = if x.surname_first {
                [&x.surname, &x.forename, &x.middlename]
            } else {
                [&x.forename, &x.middlename, &x.surname]
            };
            all.extend(parts.into_iter().flatten().cloned());
        }
        let mut one = persons[i].clone();
        one.surname_first = false;
        one.surname = all.pop();
        let mut given = all.into_iter();
        one.forename = given.next();
        one.middlename = joined(&given.collect::<Vec<_>>());
        one.suffix = one.suffix.take().or(persons[i + 1].suffix.clone());
        one.markers = persons[i + 1].markers.clone();
        out.push(one);
        i += 2;
    }
    *persons = out;
    *ranges = out_ranges;
}

/// The token indices where each printed line after the first starts, for the tokens
/// [`toks`] makes of the lines joined by spaces (`None` when they do not add up).
pub fn line_starts(lines: &[String], n_toks: usize) -> Option<Vec<usize>> {
    let mut out = Vec::new();
    let mut at = 0;
    for (k, l) in lines.iter().enumerate() {
        if k > 0 {
            out.push(at);
        }
        at += toks(l, false).len();
    }
    (at == n_toks).then_some(out)
}

/// Feature rows (reference §3.6), shared by both name models, for training and tagging.
pub fn rows(toks: &[Tok], lex: &LexView<'_>) -> crate::features::Rows {
    let titles = lex.flags(Kind::PersonTitle, toks);
    let suffixes = lex.flags(Kind::PersonSuffix, toks);
    toks.iter()
        .enumerate()
        .map(|(i, t)| {
            let s = t.text.as_str();
            let mut row = Vec::with_capacity(20);
            f::push_lexical(&mut row, s);
            row.push(f::line_status(toks, i).into());
            row.push(f::capitalisation(s).into());
            row.push(f::digit(s).into());
            row.push(f::single_char(s).into());
            row.push(f::flag(lex.has_word(Kind::CommonWord, s)).into());
            row.push(f::flag(lex.has_word(Kind::FirstName, s)).into());
            row.push(f::flag(lex.has_word(Kind::LastName, s)).into());
            row.push(f::flag(titles[i]).into());
            row.push(f::flag(suffixes[i]).into());
            row.push(f::punct_type(s).into());
            row
        })
        .collect()
}

/// Tokens of a raw name string. Header names keep line breaks; "et al." is removed from
/// citation names.
pub fn toks(text: &str, citation: bool) -> Vec<Tok> {
    let cleaned;
    let text = if citation {
        cleaned = remove_et_al(text);
        cleaned.as_str()
    } else {
        text
    };
    f::toks_from_text(text, false)
}

fn remove_et_al(text: &str) -> String {
    let lower = text.to_ascii_lowercase(); // same byte offsets as `text`
    match lower.find("et al") {
        Some(i) => {
            let mut s = text[..i].to_string();
            s.push_str(text[i + 5..].trim_start_matches('.'));
            s
        }
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexicon::Lexicons;
    use Label::*;

    fn people(text: &str, citation: bool, labels: &[Label]) -> Vec<Person> {
        let t = toks(text, citation);
        assert_eq!(t.len(), labels.len(), "{t:?}");
        decode(&t, &Labels::from_names(labels))
    }

    fn all_parts(p: &Person) -> (String, String, String, String) {
        let s = |o: &Option<String>| o.clone().unwrap_or_default();
        (
            s(&p.surname),
            s(&p.forename),
            s(&p.middlename),
            s(&p.suffix),
        )
    }

    #[test]
    fn vancouver_lists_keep_particles_and_compound_surnames() {
        let p = vancouver_persons(
            "De Martino L, Bruno M, Formisano C, De Feo V, van der Berg KA, Da Silva Filho AA, et al.",
        )
        .expect("a Vancouver list");
        let got: Vec<_> = p.iter().map(all_parts).collect();
        let want = |s: &str, f: &str, m: &str| (s.into(), f.into(), m.into(), String::new());
        assert_eq!(
            got,
            vec![
                want("De Martino", "L", ""),
                want("Bruno", "M", ""),
                want("Formisano", "C", ""),
                want("De Feo", "V", ""),
                want("van der Berg", "K", "A"),
                want("Da Silva Filho", "A", "A"),
            ]
        );
    }

    #[test]
    fn vancouver_suffixes_hyphenated_initials_and_last_and() {
        let p = vancouver_persons("Lim A Jr, Driggers RG III, Dupont J-P and Ng BK.").unwrap();
        let got: Vec<_> = p.iter().map(all_parts).collect();
        assert_eq!(got[0], ("Lim".into(), "A".into(), "".into(), "Jr".into()));
        assert_eq!(
            got[1],
            ("Driggers".into(), "R".into(), "G".into(), "III".into())
        );
        assert_eq!(
            got[2],
            ("Dupont".into(), "J-P".into(), "".into(), "".into())
        );
        assert_eq!(got[3], ("Ng".into(), "B".into(), "K".into(), "".into()));
    }

    #[test]
    fn other_author_shapes_are_not_read_as_vancouver() {
        // Forename first, surname-comma-initials with dots, spaced initials, capitals.
        for s in [
            "John Smith, Mary Jones",
            "Smith, J. A. and Jones, B.",
            "Feigin B L and Fuchs D B",
            "SMITH JA, JONES B",
            "World Health Organization",
            "Smith J 2010",
        ] {
            assert_eq!(vancouver_persons(s), None, "{s}");
        }
    }

    #[test]
    fn roman_affiliation_marks_are_read_as_marks() {
        let line = "Maria Yury Ichihara I , Andrea J.F. Ferreira I,II , Camila Teixeira IV,V , Lilia da Costa VI";
        let out = roman_marks_as_digits(line).expect("Roman marks");
        assert!(out.contains("Ichihara 1"), "{out}");
        assert!(out.contains("Ferreira 1,2"), "{out}");
        assert!(out.contains("Teixeira 4,5"), "{out}");
        assert!(out.contains("da Costa 6"), "{out}");
        assert!(out.contains("Andrea J.F."), "{out}");
        let mut p = vec![Person {
            markers: vec!["4".into(), "12".into()],
            ..Person::default()
        }];
        digit_marks_as_roman(&mut p);
        assert_eq!(p[0].markers, vec!["IV".to_string(), "XII".to_string()]);
    }

    #[test]
    fn generational_suffixes_and_initials_are_not_marks() {
        for line in [
            "Ronald G. Driggers III, Mary Smith",
            "John Smith III and Paul Jones II",
            "Ilse I. Smith, Karl V. Jones, Ana I. Lopes",
            "Ana I Costa, Rui V Lopes, Bo X Li",
        ] {
            assert_eq!(roman_marks_as_digits(line), None, "{line}");
        }
    }

    #[test]
    fn citation_names_split_into_persons() {
        let p = people(
            "Smith, J. A. and van der Berg, K.",
            true,
            &[
                Surname, Other, Forename, Forename, Middlename, Middlename, Other, Surname,
                Surname, Surname, Other, Forename, Forename,
            ],
        );
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].surname.as_deref(), Some("Smith"));
        assert_eq!(p[0].forename.as_deref(), Some("J"));
        assert_eq!(p[0].middlename.as_deref(), Some("A"));
        assert_eq!(p[1].surname.as_deref(), Some("van der Berg"));
        assert_eq!(p[1].forename.as_deref(), Some("K"));
    }

    #[test]
    fn header_names_keep_titles_suffixes_and_markers() {
        let p = people(
            "Dr. Ana Lopes 1,2 and John Smith Jr. *",
            false,
            &[
                Title, Title, Forename, Surname, Marker, Marker, Marker, Other, Forename, Surname,
                Suffix, Suffix, Marker,
            ],
        );
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].title.as_deref(), Some("Dr"));
        assert_eq!(p[0].markers, vec!["1", "2"]);
        assert_eq!(p[1].suffix.as_deref(), Some("Jr"));
        assert_eq!(p[1].markers, vec!["*"]);
    }

    #[test]
    fn a_name_after_a_persons_marks_starts_the_next_person() {
        // The model gave `Ana` to no part and `Bia` a forename right after Teles's marks:
        // `Bia` is the next author's given name, not Teles's.
        let p = people(
            "Ana Teles 1,2 , Bia Rocha 3",
            false,
            &[
                Other, Surname, Marker, Marker, Marker, Other, Forename, Surname, Marker,
            ],
        );
        assert_eq!(
            p.iter().map(parts).collect::<Vec<_>>(),
            vec![
                (None, None, Some("Teles")),
                (Some("Bia"), None, Some("Rocha"))
            ]
        );
        assert_eq!(p[0].markers, vec!["1", "2"]);
        assert_eq!(p[1].markers, vec!["3"]);
        // A degree and marks after a name open the next person (as before): the marks held
        // before that person's name do not close it.
        let p = people(
            "Tomas Horak , PhD a , Jana Kralova , MD b",
            false,
            &[
                Forename, Surname, Other, Title, Marker, Other, Forename, Surname, Other, Title,
                Marker,
            ],
        );
        assert_eq!(
            p.iter().map(parts).collect::<Vec<_>>(),
            vec![
                (Some("Tomas"), None, Some("Horak")),
                (Some("Jana"), None, Some("Kralova"))
            ]
        );
    }

    /// Lexicons whose only entries are the given last names.
    fn last_names(words: &[&str]) -> Lexicons {
        let dir = std::env::temp_dir().join(format!(
            "quire-name-lex-{}-{}",
            std::process::id(),
            words.join("-")
        ));
        std::fs::create_dir_all(&dir).unwrap();
        for kind in Kind::ALL {
            let text = if kind == Kind::LastName {
                words.join("\n")
            } else {
                String::new()
            };
            std::fs::write(dir.join(format!("{}.txt", kind.file_stem())), text).unwrap();
        }
        std::fs::write(dir.join("country-codes.tsv"), "").unwrap();
        let lex = Lexicons::load(&dir).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        lex
    }

    #[test]
    fn leading_surname_words_of_forename_first_names_become_middle_names() {
        let lex = last_names(&["rodriguez", "montoya"]);
        let view = LexView::new(&lex);
        let mut p = people(
            "Helene Baek Juel, J. Jasmin Güven, Ivan Rodriguez Montoya, Julien Le Sommer, \
             Ana de la Cruz, Juel Baek, Helene",
            false,
            &[
                Forename, Surname, Surname, Other, Forename, Other, Surname, Surname, Other,
                Forename, Surname, Surname, Other, Forename, Surname, Surname, Other, Forename,
                Surname, Surname, Surname, Other, Surname, Surname, Other, Forename,
            ],
        );
        middle_words_out_of_surnames(&mut p, &view);
        let got: Vec<(Option<&str>, Option<&str>, Option<&str>)> = p
            .iter()
            .map(|p| {
                (
                    p.forename.as_deref(),
                    p.middlename.as_deref(),
                    p.surname.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (Some("Helene"), Some("Baek"), Some("Juel")),
                (Some("J"), Some("Jasmin"), Some("Güven")),
                // A known surname before a known surname opens a double surname; particles
                // open compound ones.
                (Some("Ivan"), None, Some("Rodriguez Montoya")),
                (Some("Julien"), None, Some("Le Sommer")),
                (Some("Ana"), None, Some("de la Cruz")),
                // Printed surname first: left as labelled.
                (Some("Helene"), None, Some("Juel Baek")),
            ]
        );
        assert!(p[5].surname_first && !p[0].surname_first);
    }

    #[test]
    fn name_parts_lose_initial_dots_and_trailing_marks() {
        assert_eq!(clean_part("J.-P."), "J-P");
        assert_eq!(clean_part("Jung''"), "Jung");
        assert_eq!(clean_part("O'Connell,"), "O'Connell");
        assert_eq!(clean_part("Smith*"), "Smith");
    }

    #[test]
    fn et_al_is_dropped_from_citation_names() {
        let t = toks("Smith J, et al.", true);
        let texts: Vec<&str> = t.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(texts, vec!["Smith", "J", ","]);
    }

    #[test]
    fn rows_have_the_name_columns() {
        let lex = Lexicons::default();
        let r = rows(&toks("Smith, J.", true), &LexView::new(&lex));
        assert_eq!(r.len(), 4);
        assert_eq!(r[0].len(), 20);
        assert_eq!(r[1][19], "COMMA");
        assert_eq!(r[2][11], "ALLCAP");
        assert_eq!(r[2][13], "1");
    }

    #[test]
    fn a_leading_given_name_left_unlabelled_opens_the_forename() {
        let toks = toks("Vân Anh Huynh-Thu", false);
        let labels = [
            "I-<other>",
            "I-<forename>",
            "I-<surname>",
            "<surname>",
            "<surname>",
        ];
        assert_eq!(toks.len(), labels.len());
        let ps = decode(&toks, &Labels::from_names(labels));
        assert_eq!(ps.len(), 1);
        assert_eq!(ps[0].forename.as_deref(), Some("Vân"));
        assert_eq!(ps[0].middlename.as_deref(), Some("Anh"));
        assert_eq!(ps[0].surname.as_deref(), Some("Huynh-Thu"));
        // A lower-case or punctuation <other> is not a name part.
        let toks2 = toks_of("and Anh Huynh");
        let ps = decode(
            &toks2,
            &Labels::from_names(["I-<other>", "I-<forename>", "I-<surname>"]),
        );
        assert_eq!(ps[0].forename.as_deref(), Some("Anh"));
        assert_eq!(ps[0].middlename, None);
    }

    /// Decode `line` with `labels` and join touching persons (one printed line).
    fn joined(line: &str, labels: &[Label]) -> Vec<Person> {
        let t = toks(line, false);
        assert_eq!(t.len(), labels.len(), "{t:?}");
        let (mut p, mut r) = decode_ranged(&t, &Labels::from_names(labels));
        join_touching_persons(&mut p, &mut r, &t, &[]);
        assert_eq!(p.len(), r.len());
        p
    }

    fn parts(p: &Person) -> (Option<&str>, Option<&str>, Option<&str>) {
        (
            p.forename.as_deref(),
            p.middlename.as_deref(),
            p.surname.as_deref(),
        )
    }

    #[test]
    fn a_particle_ending_the_middle_name_opens_the_surname() {
        let person = |f: &str, m: &str, s: &str, surname_first: bool| Person {
            forename: Some(f.into()),
            middlename: Some(m.into()),
            surname: Some(s.into()),
            surname_first,
            ..Default::default()
        };
        let mut p = vec![
            person("Rami", "Abou", "Nader", false),
            person("Hoda", "Karim El", "Sayed", false),
            // European particles and other middle names stay.
            person("Ana", "Maria da", "Silva", false),
            person("Sofie", "Van", "Dam", false),
            person("Ana", "Maria", "Silva", false),
            person("Omar", "Al", "Rami Nader", false),
            // Surname printed first: the order is the writer's, left alone.
            person("Rami", "Abou", "Nader", true),
        ];
        particle_into_surname(&mut p);
        assert_eq!(
            p.iter().map(parts).collect::<Vec<_>>(),
            vec![
                (Some("Rami"), None, Some("Abou Nader")),
                (Some("Hoda"), Some("Karim"), Some("El Sayed")),
                (Some("Ana"), Some("Maria da"), Some("Silva")),
                (Some("Sofie"), Some("Van"), Some("Dam")),
                (Some("Ana"), Some("Maria"), Some("Silva")),
                (Some("Omar"), Some("Al"), Some("Rami Nader")),
                (Some("Rami"), Some("Abou"), Some("Nader")),
            ]
        );
    }

    #[test]
    fn a_long_given_name_read_as_two_touching_persons_is_one() {
        use Label::*;
        let line = "Kofi Mensah Yaw Boateng";
        assert_eq!(
            people(line, false, &[Forename, Surname, Forename, Surname]).len(),
            2
        );
        let p = joined(line, &[Forename, Surname, Forename, Surname]);
        assert_eq!(
            p.iter().map(parts).collect::<Vec<_>>(),
            vec![(Some("Kofi"), Some("Mensah Yaw"), Some("Boateng"))]
        );
        // In a list: `Ama Kofi` + `Ben Owusu 1` between commas is one person, its marker kept.
        let line = "Ama Kofi Ben Owusu 1 , Yaw Boateng 2";
        let p = joined(
            line,
            &[
                Forename, Surname, Forename, Surname, Marker, Other, Forename, Surname, Marker,
            ],
        );
        assert_eq!(
            p.iter().map(parts).collect::<Vec<_>>(),
            vec![
                (Some("Ama"), Some("Kofi Ben"), Some("Owusu")),
                (Some("Yaw"), None, Some("Boateng"))
            ]
        );
        assert_eq!(p[0].markers, vec!["1".to_string()]);
        // A surname-first reading followed by a lone surname joins too.
        let p = joined("Ama Kofi Owusu", &[Surname, Forename, Surname]);
        assert_eq!(
            p.iter().map(parts).collect::<Vec<_>>(),
            vec![(Some("Ama"), Some("Kofi"), Some("Owusu"))]
        );
        // A comma, a conjunction or a marker separates two persons: left as read.
        let p = joined(
            "Kofi Mensah , Yaw Boateng",
            &[Forename, Surname, Other, Forename, Surname],
        );
        assert_eq!(p.len(), 2);
        let p = joined(
            "Kofi Mensah and Yaw Boateng",
            &[Forename, Surname, Other, Forename, Surname],
        );
        assert_eq!(p.len(), 2);
        let p = joined(
            "Kofi Mensah * Yaw Boateng",
            &[Forename, Surname, Marker, Forename, Surname],
        );
        assert_eq!(p.len(), 2);
        // Three touching persons, or more than five words: left as read.
        let p = joined(
            "Kofi Mensah Yaw Boateng Ama Owusu",
            &[Forename, Surname, Forename, Surname, Forename, Surname],
        );
        assert_eq!(p.len(), 3);
        // Two names on two printed lines: left as read.
        let line = "Kofi Mensah Yaw Boateng";
        let t = toks(line, false);
        let (mut p, mut r) = decode_ranged(
            &t,
            &Labels::from_names([Forename, Surname, Forename, Surname]),
        );
        join_touching_persons(&mut p, &mut r, &t, &[2]);
        assert_eq!(p.len(), 2);
        assert_eq!(r, vec![0..2, 2..4]);
        // One name broken over a line end (`Caio` / `Moreira Lima`): the break lies inside
        // the first reading, not between the two: one person.
        let line = "Caio Moreira Lima Silva";
        let t = toks(line, false);
        let (mut p, mut r) = decode_ranged(
            &t,
            &Labels::from_names([Forename, Surname, Forename, Surname]),
        );
        join_touching_persons(&mut p, &mut r, &t, &[1]);
        assert_eq!(
            p.iter().map(parts).collect::<Vec<_>>(),
            vec![(Some("Caio"), Some("Moreira Lima"), Some("Silva"))]
        );
        // The joined person covers both readings' tokens.
        assert_eq!(r, vec![0..4]);
    }

    #[test]
    fn byline_entries_read_as_titles_or_split_at_their_last_word_are_names() {
        use Label::*;
        // `Md …` entries read as titles, each closed by its marks.
        let p = people(
            "Ana Rossi 1 , Md Nur Haque 4 , Md Habibur Karim 5 , Anirban Kumar Roy 6",
            false,
            &[
                Forename, Surname, Marker, Other, Title, Title, Title, Marker, Other, Title, Title,
                Title, Marker, Other, Forename, Middlename, Surname, Marker,
            ],
        );
        assert_eq!(
            p.iter().map(parts).collect::<Vec<_>>(),
            vec![
                (Some("Ana"), None, Some("Rossi")),
                (Some("Md"), Some("Nur"), Some("Haque")),
                (Some("Md"), Some("Habibur"), Some("Karim")),
                (Some("Anirban"), Some("Kumar"), Some("Roy")),
            ]
        );
        assert!(p.iter().all(|x| x.title.is_none()));
        // A degree before a name keeps its place: one word is no name.
        let p = people(
            "Dr. Ana Lopes 1",
            false,
            &[Title, Title, Forename, Surname, Marker],
        );
        assert_eq!(p[0].title.as_deref(), Some("Dr"));
        // An entry's last word read as a given name after the surname joins the name.
        let p = joined(
            "Md Tanvirul Jamil 1 , Farah Begum 2",
            &[
                Forename, Surname, Forename, Marker, Other, Forename, Surname, Marker,
            ],
        );
        assert_eq!(
            p.iter().map(parts).collect::<Vec<_>>(),
            vec![
                (Some("Md"), Some("Tanvirul"), Some("Jamil")),
                (Some("Farah"), None, Some("Begum")),
            ]
        );
    }

    #[test]
    fn generational_words_leave_the_surname_for_the_suffix() {
        let mut p = vec![
            Person {
                forename: Some("Caio".into()),
                middlename: Some("Moreira Lima".into()),
                surname: Some("Júnior".into()),
                ..Default::default()
            },
            Person {
                forename: Some("Ana".into()),
                surname: Some("SOUZA NETO".into()),
                ..Default::default()
            },
            Person {
                forename: Some("Ana".into()),
                surname: Some("Junior".into()),
                ..Default::default()
            },
            Person {
                forename: Some("Ana".into()),
                surname: Some("Neves".into()),
                ..Default::default()
            },
        ];
        generational_suffix_out(&mut p);
        assert_eq!(
            p.iter().map(parts).collect::<Vec<_>>(),
            vec![
                (Some("Caio"), Some("Moreira"), Some("Lima")),
                (Some("Ana"), None, Some("SOUZA")),
                // Nothing before `Junior` to take the surname's place: left as read.
                (Some("Ana"), None, Some("Junior")),
                (Some("Ana"), None, Some("Neves")),
            ]
        );
        let suffixes: Vec<Option<&str>> = p.iter().map(|x| x.suffix.as_deref()).collect();
        assert_eq!(suffixes, vec![Some("Júnior"), Some("NETO"), None, None]);
    }

    #[test]
    fn a_known_surname_before_an_unknown_last_word_is_a_given_name() {
        let lex = last_names(&["aziz", "rodriguez", "montoya"]);
        let view = LexView::new(&lex);
        use Label::*;
        let mut p = people(
            "Karim Aziz Haddou, Ivan Rodriguez Montoya, Rami Abou Nader, Ana Montoya da Silva",
            false,
            &[
                Forename, Surname, Surname, Other, Forename, Surname, Surname, Other, Forename,
                Surname, Surname, Other, Forename, Surname, Surname, Surname,
            ],
        );
        middle_words_out_of_surnames(&mut p, &view);
        let got: Vec<(Option<&str>, Option<&str>)> = p
            .iter()
            .map(|p| (p.middlename.as_deref(), p.surname.as_deref()))
            .collect();
        assert_eq!(
            got,
            vec![
                (Some("Aziz"), Some("Haddou")),
                (None, Some("Rodriguez Montoya")),
                (None, Some("Abou Nader")),
                // Before a lower-case particle, even a known surname is a given name.
                (Some("Montoya"), Some("da Silva")),
            ]
        );
    }

    fn toks_of(s: &str) -> Vec<Tok> {
        toks(s, false)
    }
}
