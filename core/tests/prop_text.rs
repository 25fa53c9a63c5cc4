//! Terminal-safe text (issue 17, finding 7): whatever a file holds, what the CLI prints of it
//! has no character a terminal acts on, and two different texts never print alike.

use proptest::prelude::*;
use rail_core::text::Span;
use rail_core::text::{
    is_unsafe_char, terminal_safe, terminal_safe_lines, terminal_unescape, unsafe_chars,
};

/// Text rich in what matters here: controls, escapes, bidi, backslashes and `u{`.
fn hostile() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("\u{1b}]0;title\u{7}".to_string()),
        Just("\u{1b}[2J".to_string()),
        Just("\u{9b}31m".to_string()),
        Just("\u{202e}".to_string()),
        Just("\u{2066}".to_string()),
        Just("\u{0}".to_string()),
        Just("\\".to_string()),
        Just("u{".to_string()),
        Just("u{1b}".to_string()),
        Just("}".to_string()),
        Just("\n".to_string()),
        Just("\r".to_string()),
        Just("\t".to_string()),
        Just("\u{e0041}".to_string()),
        "[a-z]{0,3}",
        any::<char>().prop_map(|c| c.to_string()),
    ];
    prop::collection::vec(piece, 0..12).prop_map(|p| p.concat())
}

/// What [`unsafe_chars`] must find, said the plain way: the first unsafe character of each
/// line, but for a leading byte-order mark and the `\r` of a CRLF.
fn unsafe_chars_by_char(text: &str) -> Vec<(Span, char)> {
    let mut out = Vec::new();
    let mut line_flagged = false;
    for (i, c) in text.char_indices() {
        if c == '\n' {
            line_flagged = false;
            continue;
        }
        let exempt = (i == 0 && c == '\u{feff}') || (c == '\r' && text[i + 1..].starts_with('\n'));
        if !line_flagged && is_unsafe_char(c) && !exempt {
            out.push((Span::new(i, i + c.len_utf8()), c));
            line_flagged = true;
        }
    }
    out
}

proptest! {
    /// The scan that skips printable ASCII finds exactly what a scan of every character finds.
    #[test]
    fn unsafe_chars_matches_the_plain_scan(s in hostile(), t in any::<String>()) {
        for text in [&s, &t, &format!("\u{feff}{s}\r\n{t}")] {
            prop_assert_eq!(unsafe_chars(text), unsafe_chars_by_char(text), "{:?}", text);
        }
    }

    #[test]
    fn terminal_safe_never_shows_an_unsafe_char(s in hostile()) {
        let shown = terminal_safe(&s);
        prop_assert!(!shown.chars().any(|c| is_unsafe_char(c) || c == '\n'), "{shown:?}");
        let lines = terminal_safe_lines(&s);
        prop_assert!(!lines.chars().any(is_unsafe_char), "{lines:?}");
    }

    #[test]
    fn terminal_safe_can_be_undone(s in hostile()) {
        prop_assert_eq!(terminal_unescape(&terminal_safe(&s)), s.clone());
        prop_assert_eq!(terminal_unescape(&terminal_safe_lines(&s)), s);
    }

    #[test]
    fn terminal_safe_tells_texts_apart(a in hostile(), b in hostile()) {
        if a != b {
            prop_assert_ne!(terminal_safe(&a), terminal_safe(&b));
        }
    }

    #[test]
    fn terminal_safe_keeps_safe_text(s in "[a-zA-Z0-9 .:/_|@#-]{0,40}") {
        prop_assert_eq!(terminal_safe(&s), s.as_str());
    }
}
