//! The HTML character references a purpose is likely to use. Numeric references (`&#8212;`,
//! `&#x2014;`) always work; a name outside this table stays literal text (pulldown-cmark knows
//! all 2,125 HTML5 names; that table alone is about 30 KB of wasm).

const NAMED: &[(&str, &str)] = &[
    ("AMP", "&"),
    ("COPY", "©"),
    ("Dagger", "‡"),
    ("Eacute", "É"),
    ("GT", ">"),
    ("LT", "<"),
    ("Prime", "″"),
    ("QUOT", "\""),
    ("REG", "®"),
    ("agrave", "à"),
    ("amp", "&"),
    ("apos", "'"),
    ("asymp", "≈"),
    ("auml", "ä"),
    ("bdquo", "„"),
    ("bull", "•"),
    ("ccedil", "ç"),
    ("cent", "¢"),
    ("check", "✓"),
    ("copy", "©"),
    ("cross", "✗"),
    ("dArr", "⇓"),
    ("dagger", "†"),
    ("darr", "↓"),
    ("deg", "°"),
    ("divide", "÷"),
    ("eacute", "é"),
    ("egrave", "è"),
    ("emsp", "\u{2003}"),
    ("ensp", "\u{2002}"),
    ("euro", "€"),
    ("frac12", "½"),
    ("frac14", "¼"),
    ("frac34", "¾"),
    ("ge", "≥"),
    ("gt", ">"),
    ("hArr", "⇔"),
    ("harr", "↔"),
    ("hearts", "♥"),
    ("hellip", "…"),
    ("iexcl", "¡"),
    ("infin", "∞"),
    ("iquest", "¿"),
    ("lArr", "⇐"),
    ("laquo", "«"),
    ("larr", "←"),
    ("ldquo", "“"),
    ("le", "≤"),
    ("lsaquo", "‹"),
    ("lsquo", "‘"),
    ("lt", "<"),
    ("mdash", "—"),
    ("micro", "µ"),
    ("middot", "·"),
    ("minus", "−"),
    ("nbsp", "\u{a0}"),
    ("ndash", "–"),
    ("ne", "≠"),
    ("ntilde", "ñ"),
    ("ouml", "ö"),
    ("para", "¶"),
    ("permil", "‰"),
    ("plusmn", "±"),
    ("pound", "£"),
    ("prime", "′"),
    ("quot", "\""),
    ("rArr", "⇒"),
    ("raquo", "»"),
    ("rarr", "→"),
    ("rdquo", "”"),
    ("reg", "®"),
    ("rsaquo", "›"),
    ("rsquo", "’"),
    ("sbquo", "‚"),
    ("sect", "§"),
    ("shy", "\u{ad}"),
    ("star", "☆"),
    ("sup2", "²"),
    ("sup3", "³"),
    ("szlig", "ß"),
    ("thinsp", "\u{2009}"),
    ("times", "×"),
    ("trade", "™"),
    ("uArr", "⇑"),
    ("uarr", "↑"),
    ("uuml", "ü"),
    ("yen", "¥"),
    ("zwj", "\u{200d}"),
    ("zwnj", "\u{200c}"),
];

/// A character reference at the start of `s` (which starts with `&`): its length and value.
pub(crate) fn entity(s: &[u8]) -> Option<(usize, String)> {
    if s.get(1) == Some(&b'#') {
        let hex = s.get(2).is_some_and(|c| c | 0x20 == b'x');
        let start = if hex { 3 } else { 2 };
        let (max, radix) = if hex { (6, 16) } else { (7, 10) };
        let digits = s[start..]
            .iter()
            .take(max)
            .take_while(|c| (**c as char).is_digit(radix))
            .count();
        let end = start + digits;
        if digits == 0 || s.get(end) != Some(&b';') {
            return None;
        }
        let code = s[start..end].iter().fold(0u32, |n, c| {
            n * radix + (*c as char).to_digit(radix).unwrap_or(0)
        });
        let c = char::from_u32(code)
            .filter(|c| *c != '\0')
            .unwrap_or('\u{fffd}');
        return Some((end + 1, c.to_string()));
    }
    let n = s[1..]
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric())
        .count();
    if s.get(1 + n) != Some(&b';') {
        return None;
    }
    let name = &s[1..1 + n];
    NAMED
        .binary_search_by(|(k, _)| k.as_bytes().cmp(name))
        .ok()
        .map(|i| (n + 2, NAMED[i].1.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted() {
        assert!(NAMED.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn references() {
        let e = |s: &str| entity(s.as_bytes());
        assert_eq!(e("&amp;x"), Some((5, "&".into())));
        assert_eq!(e("&#65;"), Some((5, "A".into())));
        assert_eq!(e("&#x41;"), Some((6, "A".into())));
        assert_eq!(e("&#0;"), Some((4, "\u{fffd}".into())));
        assert_eq!(e("&#xD800;"), Some((8, "\u{fffd}".into())));
        assert_eq!(e("&#12345678;"), None);
        assert_eq!(e("&bogus;"), None);
        assert_eq!(e("&amp"), None);
    }
}
