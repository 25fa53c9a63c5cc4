//! Names that look alike but are not the same (issue 17, finding 8).
//!
//! `аuth` (Cyrillic `а`) and `auth` are two tasks to Rail and one to a reader: two sessions can
//! hold "the same" task, each sure the other has another. This module gives the two checks of
//! Unicode TR 39 that catch that, kept small (a table of a few hundred bytes, not the full
//! confusables data; a rule never stays out of core for size, but this one needs no more):
//!
//! - [`skeleton`]: a name with every non-ASCII look-alike of an ASCII letter or digit replaced by
//!   it (Cyrillic and Greek letters, fullwidth forms, mathematical alphanumerics, dotless `ı`…),
//!   and invisible characters dropped. Two different names with one skeleton are confusable.
//!   ASCII is never mapped: `l1` and `ll`, `O0` and `OO` are different tasks people tell apart,
//!   so two ASCII-only names are never confusable.
//! - [`mixed_script`]: a word of a name (between `-`, `_`, `.`, digits and the like) with letters
//!   of two of the look-alike alphabets: Latin, Greek, Cyrillic, Armenian, Cherokee. `fix-ошибка`
//!   is fine (two words, one script each); `аuth` is not. Other scripts (CJK, Arabic…) mix with
//!   Latin freely: nothing there looks like a Latin letter.

use std::borrow::Cow;

/// The look-alike alphabets; a word with letters of two of them is suspect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Script {
    Latin,
    Greek,
    Cyrillic,
    Armenian,
    Cherokee,
}

impl Script {
    pub fn name(self) -> &'static str {
        match self {
            Script::Latin => "Latin",
            Script::Greek => "Greek",
            Script::Cyrillic => "Cyrillic",
            Script::Armenian => "Armenian",
            Script::Cherokee => "Cherokee",
        }
    }
}

/// The look-alike alphabet of a letter, if it is in one.
pub fn script(c: char) -> Option<Script> {
    if !c.is_alphabetic() {
        return None;
    }
    Some(match c as u32 {
        0x41..=0x5a
        | 0x61..=0x7a
        | 0xc0..=0x24f
        | 0x1e00..=0x1eff
        | 0xff21..=0xff3a
        | 0xff41..=0xff5a => Script::Latin,
        0x370..=0x3ff | 0x1f00..=0x1fff => Script::Greek,
        0x400..=0x52f | 0x1c80..=0x1c8f | 0x2de0..=0x2dff | 0xa640..=0xa69f => Script::Cyrillic,
        0x531..=0x58f => Script::Armenian,
        0x13a0..=0x13ff | 0xab70..=0xabbf => Script::Cherokee,
        _ => return None,
    })
}

/// The first word of `name` that mixes two look-alike alphabets, and which two.
pub fn mixed_script(name: &str) -> Option<(&str, Script, Script)> {
    name.split(|c: char| !c.is_alphabetic())
        .filter(|word| !word.is_ascii())
        .find_map(|word| {
            let mut chars = word.chars().filter_map(script);
            let first = chars.next()?;
            let other = chars.find(|s| *s != first)?;
            Some((word, first, other))
        })
}

/// Non-ASCII characters that look like an ASCII one, by code point (sorted for a binary
/// search). Cyrillic, Greek, Armenian, Cherokee and Latin extensions that people mistake for
/// ASCII letters and digits in the fonts editors and terminals use.
const LOOKALIKES: &[(char, char)] = &[
    ('\u{131}', 'i'), // ı dotless i
    ('\u{1c0}', 'l'), // ǀ
    ('\u{251}', 'a'), // ɑ
    ('\u{261}', 'g'), // ɡ
    ('\u{269}', 'i'), // ɩ
    ('\u{391}', 'A'),
    ('\u{392}', 'B'),
    ('\u{395}', 'E'),
    ('\u{396}', 'Z'),
    ('\u{397}', 'H'),
    ('\u{399}', 'I'),
    ('\u{39a}', 'K'),
    ('\u{39c}', 'M'),
    ('\u{39d}', 'N'),
    ('\u{39f}', 'O'),
    ('\u{3a1}', 'P'),
    ('\u{3a4}', 'T'),
    ('\u{3a5}', 'Y'),
    ('\u{3a7}', 'X'),
    ('\u{3b1}', 'a'), // α
    ('\u{3b3}', 'y'), // γ
    ('\u{3b9}', 'i'), // ι
    ('\u{3ba}', 'k'), // κ
    ('\u{3bd}', 'v'), // ν
    ('\u{3bf}', 'o'), // ο
    ('\u{3c1}', 'p'), // ρ
    ('\u{3c5}', 'u'), // υ
    ('\u{3c7}', 'x'), // χ
    ('\u{3f2}', 'c'), // ϲ lunate sigma
    ('\u{3f3}', 'j'), // ϳ
    ('\u{405}', 'S'), // Ѕ
    ('\u{406}', 'I'), // І
    ('\u{408}', 'J'), // Ј
    ('\u{410}', 'A'),
    ('\u{412}', 'B'),
    ('\u{415}', 'E'),
    ('\u{41a}', 'K'),
    ('\u{41c}', 'M'),
    ('\u{41d}', 'H'),
    ('\u{41e}', 'O'),
    ('\u{420}', 'P'),
    ('\u{421}', 'C'),
    ('\u{422}', 'T'),
    ('\u{423}', 'Y'),
    ('\u{425}', 'X'),
    ('\u{430}', 'a'),
    ('\u{435}', 'e'),
    ('\u{43e}', 'o'),
    ('\u{440}', 'p'),
    ('\u{441}', 'c'),
    ('\u{443}', 'y'),
    ('\u{445}', 'x'),
    ('\u{455}', 's'), // ѕ
    ('\u{456}', 'i'), // і
    ('\u{458}', 'j'), // ј
    ('\u{4ae}', 'Y'), // Ү
    ('\u{4bb}', 'h'), // һ
    ('\u{4c0}', 'I'), // Ӏ
    ('\u{4cf}', 'l'), // ӏ
    ('\u{501}', 'd'), // ԁ
    ('\u{51b}', 'q'), // ԛ
    ('\u{51d}', 'w'), // ԝ
    ('\u{555}', 'O'), // Օ
    ('\u{561}', 'w'), // ա
    ('\u{570}', 'h'), // հ
    ('\u{578}', 'n'), // ո
    ('\u{57d}', 'u'), // ս
    ('\u{585}', 'o'), // օ
    ('\u{13a0}', 'D'),
    ('\u{13a1}', 'R'),
    ('\u{13a2}', 'T'),
    ('\u{13a9}', 'Y'),
    ('\u{13aa}', 'A'),
    ('\u{13ab}', 'J'),
    ('\u{13ac}', 'E'),
    ('\u{13b3}', 'W'),
    ('\u{13b7}', 'M'),
    ('\u{13bb}', 'H'),
    ('\u{13bd}', 'Y'),
    ('\u{13c0}', 'G'),
    ('\u{13c2}', 'h'),
    ('\u{13c3}', 'Z'),
    ('\u{13ce}', '4'),
    ('\u{13cf}', 'b'),
    ('\u{13d2}', 'R'),
    ('\u{13da}', 'S'),
    ('\u{13de}', 'L'),
    ('\u{13df}', 'C'),
    ('\u{13e2}', 'P'),
    ('\u{13e6}', 'K'),
    ('\u{13f4}', 'B'),
    ('\u{2113}', 'l'), // ℓ
    ('\u{2160}', 'I'), // Roman numeral one
    ('\u{217c}', 'l'), // small Roman numeral fifty
];

/// The ASCII a character is mistaken for, if any.
fn lookalike(c: char) -> Option<char> {
    let n = c as u32;
    match n {
        // Fullwidth ASCII.
        0xff01..=0xff5e => char::from_u32(n - 0xfee0),
        // Mathematical alphanumeric letters: thirteen alphabets of A–Z a–z in a row (the holes
        // are unassigned, and any letter there is still that letter).
        0x1d400..=0x1d6a3 => {
            let i = ((n - 0x1d400) % 52) as u8;
            Some(if i < 26 { b'A' + i } else { b'a' + i - 26 } as char)
        }
        // Mathematical digits: five sets of 0–9.
        0x1d7ce..=0x1d7ff => Some((b'0' + ((n - 0x1d7ce) % 10) as u8) as char),
        _ => LOOKALIKES
            .binary_search_by_key(&c, |(from, _)| *from)
            .ok()
            .map(|i| LOOKALIKES[i].1),
    }
}

/// Invisible characters a name may hide: dropped from its skeleton.
fn invisible(c: char) -> bool {
    matches!(c, '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{2060}'..='\u{2064}' | '\u{feff}')
}

/// `name` with every look-alike replaced by the ASCII it looks like and invisible characters
/// dropped. ASCII names are their own skeleton.
pub fn skeleton(name: &str) -> Cow<'_, str> {
    if name.is_ascii() {
        return Cow::Borrowed(name);
    }
    Cow::Owned(
        name.chars()
            .filter(|c| !invisible(*c))
            .map(|c| lookalike(c).unwrap_or(c))
            .collect(),
    )
}

/// Are `a` and `b` different names that look the same? Two ASCII names never are.
pub fn confusable(a: &str, b: &str) -> bool {
    a != b && !(a.is_ascii() && b.is_ascii()) && skeleton(a) == skeleton(b)
}

/// Groups of different names that look alike, from a list that may repeat names: each group
/// sorted, the groups in order of their first name. Linear in the names but for one sort of
/// the non-ASCII ones (ASCII names are only looked up).
pub fn groups<'a>(names: &[&'a str]) -> Vec<Vec<&'a str>> {
    let mut ascii: Vec<&str> = names.iter().copied().filter(|n| n.is_ascii()).collect();
    crate::text::sort::sort_by(&mut ascii, |a, b| a.cmp(b));
    ascii.dedup();
    let mut other: Vec<(String, &str)> = names
        .iter()
        .copied()
        .filter(|n| !n.is_ascii())
        .map(|n| (skeleton(n).into_owned(), n))
        .collect();
    crate::text::sort::sort_by(&mut other, |a, b| a.cmp(b));
    other.dedup();
    let mut out: Vec<Vec<&str>> = Vec::new();
    let mut i = 0;
    while i < other.len() {
        let skel = &other[i].0;
        let mut group: Vec<&str> = Vec::new();
        if let Ok(at) = ascii.binary_search(&skel.as_str()) {
            group.push(ascii[at]);
        }
        while i < other.len() && other[i].0 == *skel {
            group.push(other[i].1);
            i += 1;
        }
        if group.len() > 1 {
            crate::text::sort::sort_by(&mut group, |a, b| a.cmp(b));
            out.push(group);
        }
    }
    crate::text::sort::sort_by(&mut out, |a, b| a[0].cmp(b[0]));
    out
}

/// How a confusable name differs, for messages: `аuth` → "`а` U+0430 (Cyrillic)".
pub fn describe(name: &str) -> String {
    let parts: Vec<String> = name
        .chars()
        .filter(|c| !c.is_ascii())
        .take(3)
        .map(|c| match script(c) {
            Some(s) => format!("`{c}` U+{:04X} ({})", c as u32, s.name()),
            None => format!("`{c}` U+{:04X}", c as u32),
        })
        .collect();
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookalikes_are_sorted_for_the_binary_search() {
        assert!(LOOKALIKES.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(LOOKALIKES
            .iter()
            .all(|(from, to)| !from.is_ascii() && to.is_ascii()));
    }

    #[test]
    fn cyrillic_greek_and_fullwidth_lookalikes_are_confusable() {
        assert!(confusable("\u{430}uth", "auth")); // Cyrillic а
        assert!(confusable("\u{3bf}ps", "ops")); // Greek ο
        assert!(confusable("ａｕｔｈ", "auth")); // fullwidth
        assert!(confusable("𝐚uth", "auth")); // mathematical bold
        assert!(confusable("v𝟏", "v1"));
        assert!(confusable("\u{430}uth", "\u{251}uth")); // two non-ASCII spellings
        assert!(confusable("au\u{200b}th", "auth"));
        // ASCII names are told apart by people: never confusable.
        assert!(!confusable("l1", "ll"));
        assert!(!confusable("O0", "OO"));
        assert!(!confusable("auth", "auth"));
        assert!(
            !confusable("tâche", "tache"),
            "an accent is a different letter"
        );
    }

    #[test]
    fn mixed_scripts_are_found_per_word() {
        assert_eq!(
            mixed_script("\u{430}uth-refresh"),
            Some(("\u{430}uth", Script::Cyrillic, Script::Latin))
        );
        assert_eq!(mixed_script("fix-ошибка"), None);
        assert_eq!(mixed_script("tâche-2"), None);
        assert_eq!(mixed_script("docs-日本語"), None);
        assert_eq!(mixed_script("auth"), None);
    }

    #[test]
    fn groups_gather_every_spelling_once() {
        let names = [
            "auth",
            "\u{430}uth",
            "billing",
            "auth",
            "\u{430}uth",
            "ａｕｔｈ",
            "l1",
            "ll",
        ];
        assert_eq!(groups(&names), vec![vec!["auth", "\u{430}uth", "ａｕｔｈ"]]);
    }
}
