//! Byte spans, line indexes and positions.
//!
//! Core speaks byte ranges only. Line and column are computed at the edge, on demand, in the
//! encoding the consumer wants: UTF-8 bytes (Rust), UTF-16 code units (JS, LSP) or Unicode
//! scalar values (terminal output, like rustc).

pub mod confusable;
pub mod diagnostic;
pub mod edit;
pub mod glob;
pub mod hint;
pub mod ident;
pub mod limits;
pub mod serde_time;
pub mod sort;
pub mod time;

use serde::{Deserialize, Serialize};

/// A half-open byte range `start..end` into one source text.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub const fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    pub const fn empty(at: usize) -> Self {
        Span { start: at, end: at }
    }

    pub fn len(&self) -> usize {
        self.end.saturating_sub(self.start)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Shift a span that was computed on a slice starting at `base`.
    pub fn offset(self, base: usize) -> Self {
        Span::new(self.start + base, self.end + base)
    }

    /// The span `delta` bytes further on (back, when negative): where the same text is after an
    /// edit before it. Never below 0.
    pub fn moved(self, delta: isize) -> Self {
        let at = |o: usize| o.saturating_add_signed(delta);
        Span::new(at(self.start), at(self.end))
    }

    pub fn contains(&self, offset: usize) -> bool {
        self.start <= offset && offset < self.end
    }

    /// The text this span covers, or `""` if it does not fit (never panics).
    pub fn slice<'a>(&self, text: &'a str) -> &'a str {
        text.get(self.start..self.end).unwrap_or("")
    }
}

/// How columns are counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Encoding {
    /// UTF-8 bytes.
    Utf8,
    /// UTF-16 code units, as JavaScript strings and the Language Server Protocol count.
    Utf16,
    /// Unicode scalar values (`char`s), as rustc prints columns.
    Chars,
}

/// A zero-based line and column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Position {
    pub line: u32,
    pub character: u32,
}

/// A zero-based range of positions (LSP convention).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Range {
    pub start: Position,
    pub end: Position,
}

/// Start offsets of every line of a text. A line ends after `\n`; a lone `\r` is not a line end.
#[derive(Clone, Debug)]
pub struct LineIndex {
    starts: Vec<usize>,
    len: usize,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(memchr_newlines(text.as_bytes()).map(|i| i + 1));
        LineIndex {
            starts,
            len: text.len(),
        }
    }

    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// Zero-based line number containing `offset` (offsets past the end clamp to the last line).
    pub fn line_of(&self, offset: usize) -> usize {
        let offset = offset.min(self.len);
        match self.starts.binary_search(&offset) {
            Ok(line) => line,
            Err(next) => next - 1,
        }
    }

    pub fn line_start(&self, line: usize) -> usize {
        self.starts.get(line).copied().unwrap_or(self.len)
    }

    /// Position of a byte offset. Offsets inside a multi-byte character, or past the end, are
    /// clamped to the nearest character boundary before them.
    pub fn position(&self, text: &str, offset: usize, encoding: Encoding) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_of(offset);
        let start = self.line_start(line).min(offset);
        let before = &text[start..offset];
        let character = match encoding {
            Encoding::Utf8 => before.len(),
            Encoding::Utf16 => before.chars().map(char::len_utf16).sum(),
            Encoding::Chars => before.chars().count(),
        };
        Position {
            line: line as u32,
            character: character as u32,
        }
    }

    pub fn range(&self, text: &str, span: Span, encoding: Encoding) -> Range {
        Range {
            start: self.position(text, span.start, encoding),
            end: self.position(text, span.end, encoding),
        }
    }

    /// Byte offset of a position, the inverse of [`LineIndex::position`]. A column past the end
    /// of its line clamps to the line end; a position in the middle of a UTF-16 surrogate pair
    /// clamps to the start of that character.
    pub fn offset(&self, text: &str, position: Position, encoding: Encoding) -> usize {
        let line = position.line as usize;
        if line >= self.starts.len() {
            return text.len();
        }
        let start = self.starts[line];
        let end = self
            .starts
            .get(line + 1)
            .copied()
            .unwrap_or(text.len())
            .min(text.len());
        let mut remaining = position.character as usize;
        for (i, ch) in text[start..end].char_indices() {
            if ch == '\n' {
                return start + i;
            }
            let width = match encoding {
                Encoding::Utf8 => ch.len_utf8(),
                Encoding::Utf16 => ch.len_utf16(),
                Encoding::Chars => 1,
            };
            if remaining < width {
                return start + i;
            }
            remaining -= width;
            if remaining == 0 {
                return start + i + ch.len_utf8();
            }
        }
        end
    }
}

fn memchr_newlines(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .map(|(i, _)| i)
}

/// Splits text into lines, keeping each line's terminator (`\n` or `\r\n`) apart from its content.
/// Concatenating every `full` span gives back the whole text.
pub fn lines(text: &str) -> impl Iterator<Item = LineSpans> + '_ {
    let bytes = text.as_bytes();
    let mut pos = 0;
    std::iter::from_fn(move || {
        if pos >= bytes.len() {
            return None;
        }
        let start = pos;
        let (content_end, end) = match bytes[start..].iter().position(|b| *b == b'\n') {
            Some(i) => {
                let nl = start + i;
                let content_end = if nl > start && bytes[nl - 1] == b'\r' {
                    nl - 1
                } else {
                    nl
                };
                (content_end, nl + 1)
            }
            None => (bytes.len(), bytes.len()),
        };
        pos = end;
        Some(LineSpans {
            full: Span::new(start, end),
            content: Span::new(start, content_end),
        })
    })
}

/// One line: `content` without its terminator, `full` with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineSpans {
    pub full: Span,
    pub content: Span,
}

impl LineSpans {
    pub fn terminator<'a>(&self, text: &'a str) -> &'a str {
        Span::new(self.content.end, self.full.end).slice(text)
    }
}

/// Is `c` a character a terminal may act on instead of showing, or that hides or reorders
/// the text around it: C0 controls (tab and line feed aside, see [`terminal_safe`]), DEL, the
/// C1 controls U+0080–U+009F (a terminal may read U+009B as CSI), bidirectional overrides,
/// embeddings, isolates and marks (text shown in another order than it is stored: "Trojan
/// Source"), line and paragraph separators, and invisible format characters (zero-width space,
/// word joiner, soft hyphen, BOM, interlinear annotations, tag characters that smuggle
/// invisible ASCII). Zero-width (non-)joiners stay: emoji and several scripts need them.
pub fn is_unsafe_char(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{ad}' | '\u{61c}' | '\u{180e}'
        | '\u{200b}' | '\u{200e}' | '\u{200f}'
        | '\u{2028}'..='\u{202e}'
        | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206f}'
        | '\u{feff}' | '\u{fff9}'..='\u{fffb}'
        | '\u{e0000}'..='\u{e007f}')
}

/// Text from a file, made safe to print on a terminal: every character of [`is_unsafe_char`]
/// and the line feed are written as a visible escape `\u{1b}`, so a claim cannot set the window
/// title, clear the screen, write the clipboard (OSC 52), reorder what is shown or break a line
/// of the output. Tabs stay. For text of one line (a task, a purpose, a host name).
///
/// The escaping can be undone ([`terminal_unescape`]), so two different texts never print
/// alike: a run of backslashes that is followed by `u{` in the output (text that already reads
/// like an escape, or an escape written here) is doubled.
pub fn terminal_safe(text: &str) -> std::borrow::Cow<'_, str> {
    escape(text, false)
}

/// [`terminal_safe`] for output of several lines: line feeds stay.
pub fn terminal_safe_lines(text: &str) -> std::borrow::Cow<'_, str> {
    escape(text, true)
}

fn escape(text: &str, keep_newlines: bool) -> std::borrow::Cow<'_, str> {
    let escaped = |c: char| is_unsafe_char(c) || (c == '\n' && !keep_newlines);
    let bytes = text.as_bytes();
    // Fast path: nothing to escape and no backslash that could read as an escape.
    if !text.chars().any(escaped) && !text.contains("\\u{") {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    // Backslashes seen but not yet written: doubled if an escape-like `u{` follows them.
    let mut pending = 0usize;
    for (i, c) in text.char_indices() {
        if c == '\\' {
            pending += 1;
            continue;
        }
        let escape_follows = escaped(c) || (c == 'u' && bytes.get(i + 1) == Some(&b'{'));
        let run = if escape_follows { 2 * pending } else { pending };
        out.extend(std::iter::repeat_n('\\', run));
        pending = 0;
        if escaped(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out.extend(std::iter::repeat_n('\\', pending));
    std::borrow::Cow::Owned(out)
}

/// Undoes [`terminal_safe`] (and [`terminal_safe_lines`]): the text that was escaped. For
/// tests and for tools that read Rail's output back.
pub fn terminal_unescape(shown: &str) -> String {
    let mut out = String::with_capacity(shown.len());
    let mut rest = shown;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let run = rest[at..].bytes().take_while(|&b| b == b'\\').count();
        let after = &rest[at + run..];
        if !after.starts_with("u{") {
            out.extend(std::iter::repeat_n('\\', run));
            rest = after;
            continue;
        }
        out.extend(std::iter::repeat_n('\\', run / 2));
        if run % 2 == 0 {
            rest = after;
            continue;
        }
        // An escape: `u{hex}`.
        let decoded = after[2..].find('}').and_then(|end| {
            let c = u32::from_str_radix(&after[2..2 + end], 16).ok()?;
            Some((char::from_u32(c)?, 3 + end))
        });
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &after[len..];
            }
            None => {
                out.push('\\');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The first character of `text` that [`is_unsafe_char`] rejects on each line, as byte spans,
/// for a `control-character` warning. A BOM at the very start is the file's, a CR before a LF
/// is a line ending: neither counts.
pub fn unsafe_chars(text: &str) -> Vec<(Span, char)> {
    let mut out = Vec::new();
    let mut line_flagged = false;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'\n' {
            line_flagged = false;
            i += 1;
            continue;
        }
        // Printable ASCII and the tab are never unsafe: most of a rail is nothing else, so
        // only the rest is decoded (this runs over every byte of claims.md on every command).
        if (0x20..0x7f).contains(&b) || b == b'\t' {
            i += 1;
            continue;
        }
        // `i` is always at a character's start: only whole characters are stepped over.
        let Some(c) = text[i..].chars().next() else {
            break;
        };
        let at = i;
        i += c.len_utf8();
        if line_flagged || !is_unsafe_char(c) {
            continue;
        }
        if (at == 0 && c == '\u{feff}') || (c == '\r' && bytes.get(at + 1) == Some(&b'\n')) {
            continue;
        }
        out.push((Span::new(at, i), c));
        line_flagged = true;
    }
    out
}

/// The name a warning uses for an unsafe character: `U+001B`.
pub fn char_name(c: char) -> String {
    format!("U+{:04X}", c as u32)
}

#[cfg(test)]
mod tests {
    #[test]
    fn terminal_safe_shows_controls_and_bidi_as_escapes_and_can_be_undone() {
        use super::{terminal_safe, terminal_safe_lines, terminal_unescape};
        // Issue 17, finding 7: OSC (title), CSI (clear screen), OSC 52 (clipboard), bidi.
        let hostile = "a\u{1b}]0;pwned\u{7}b\u{1b}[2Jc\u{1b}]52;c;ZXZpbA==\u{7}\u{202e}d\u{0}";
        let shown = terminal_safe(hostile);
        assert_eq!(
            shown,
            "a\\u{1b}]0;pwned\\u{7}b\\u{1b}[2Jc\\u{1b}]52;c;ZXZpbA==\\u{7}\\u{202e}d\\u{0}"
        );
        assert_eq!(terminal_unescape(&shown), hostile);
        // Text that already reads like an escape is told apart from the escape.
        assert_ne!(terminal_safe("\\u{1b}"), terminal_safe("\u{1b}"));
        assert_eq!(
            terminal_safe("C:\\dir\\x tab\there"),
            "C:\\dir\\x tab\there"
        );
        assert_eq!(terminal_safe("a\nb"), "a\\u{a}b");
        assert_eq!(terminal_safe_lines("a\nb\r\n"), "a\nb\\u{d}\n");
        assert!(matches!(
            terminal_safe("tâche-2 ✓"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    use super::*;

    #[test]
    fn positions_in_every_encoding() {
        let text = "ab\nç😀x\r\nend";
        let index = LineIndex::new(text);
        let x = text.find('x').unwrap();
        assert_eq!(
            index.position(text, x, Encoding::Utf8),
            Position {
                line: 1,
                character: 6
            }
        );
        assert_eq!(
            index.position(text, x, Encoding::Utf16),
            Position {
                line: 1,
                character: 3
            }
        );
        assert_eq!(
            index.position(text, x, Encoding::Chars),
            Position {
                line: 1,
                character: 2
            }
        );
        for enc in [Encoding::Utf8, Encoding::Utf16, Encoding::Chars] {
            let p = index.position(text, x, enc);
            assert_eq!(index.offset(text, p, enc), x, "{enc:?}");
        }
        // Inside the emoji clamps back to its start.
        let emoji = text.find('😀').unwrap();
        assert_eq!(index.position(text, emoji + 2, Encoding::Utf8).character, 2);
        // Half a surrogate pair clamps to the start of the character.
        assert_eq!(
            index.offset(
                text,
                Position {
                    line: 1,
                    character: 2
                },
                Encoding::Utf16
            ),
            emoji
        );
    }

    #[test]
    fn lines_keep_terminators() {
        let text = "a\r\nb\n\nc";
        let parts: Vec<_> = lines(text).collect();
        assert_eq!(parts.len(), 4);
        assert_eq!(parts[0].content.slice(text), "a");
        assert_eq!(parts[0].terminator(text), "\r\n");
        assert_eq!(parts[2].content.slice(text), "");
        assert_eq!(parts[3].terminator(text), "");
        let joined: String = parts.iter().map(|l| l.full.slice(text)).collect();
        assert_eq!(joined, text);
    }
}
