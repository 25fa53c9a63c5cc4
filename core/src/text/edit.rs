//! Range patches: the only way Rail changes a file.
//!
//! An operation produces edits against the text it read; the host applies them. Edits that
//! overlap are refused, and they are applied from the end so earlier spans stay valid. Anything
//! outside the edited spans is kept byte for byte.

use serde::{Deserialize, Serialize};

use crate::text::Span;

/// Replace `span` of the original text with `text` (an insertion when the span is empty).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TextEdit {
    pub span: Span,
    pub text: String,
}

impl TextEdit {
    pub fn replace(span: Span, text: impl Into<String>) -> Self {
        TextEdit {
            span,
            text: text.into(),
        }
    }

    pub fn insert(at: usize, text: impl Into<String>) -> Self {
        TextEdit::replace(Span::empty(at), text)
    }

    pub fn delete(span: Span) -> Self {
        TextEdit::replace(span, "")
    }
}

/// Why a set of edits could not be applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EditError {
    /// Two edits touch the same bytes (or insert at the same point).
    Overlap { first: Span, second: Span },
    /// An edit points past the end of the text or into the middle of a character.
    OutOfBounds(Span),
}

impl std::fmt::Display for EditError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EditError::Overlap { first, second } => write!(
                f,
                "edits overlap at bytes {}..{} and {}..{}",
                first.start, first.end, second.start, second.end
            ),
            EditError::OutOfBounds(span) => {
                write!(f, "edit {}..{} is outside the text", span.start, span.end)
            }
        }
    }
}

impl std::error::Error for EditError {}

/// Applies edits to `text`. All edits refer to the original text.
pub fn apply(text: &str, edits: &[TextEdit]) -> Result<String, EditError> {
    let mut sorted: Vec<&TextEdit> = edits.iter().collect();
    crate::text::sort::sort_by_key(&mut sorted, |e| (e.span.start, e.span.end));
    for edit in &sorted {
        let span = edit.span;
        if span.start > span.end
            || span.end > text.len()
            || !text.is_char_boundary(span.start)
            || !text.is_char_boundary(span.end)
        {
            return Err(EditError::OutOfBounds(span));
        }
    }
    for pair in sorted.windows(2) {
        let (a, b) = (pair[0].span, pair[1].span);
        // Two insertions at one point, or any edit starting inside another, is ambiguous.
        if b.start < a.end || (a.start == b.start && (a.is_empty() || b.is_empty())) {
            return Err(EditError::Overlap {
                first: a,
                second: b,
            });
        }
    }
    let mut out = text.to_string();
    for edit in sorted.iter().rev() {
        out.replace_range(edit.span.start..edit.span.end, &edit.text);
    }
    Ok(out)
}

/// The edits for one file of the rail.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FileEdits {
    /// The file, relative to the rail directory: `claims.md` or `claims/<owner>.yaml`.
    pub file: String,
    /// True when the file does not exist yet and the edits create it.
    pub create: bool,
    pub edits: Vec<TextEdit>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn applies_from_the_end() {
        let text = "a | b\nc | d\n";
        let out = apply(
            text,
            &[
                TextEdit::replace(Span::new(0, 1), "x"),
                TextEdit::insert(text.len(), "e | f\n"),
                TextEdit::delete(Span::new(6, 12)),
            ],
        )
        .unwrap();
        assert_eq!(out, "x | b\ne | f\n");
    }

    #[test]
    fn refuses_overlap_and_bad_spans() {
        let text = "héllo";
        assert!(matches!(
            apply(
                text,
                &[
                    TextEdit::delete(Span::new(0, 3)),
                    TextEdit::delete(Span::new(1, 4))
                ]
            ),
            Err(EditError::Overlap { .. })
        ));
        assert!(matches!(
            apply(text, &[TextEdit::insert(1, "a"), TextEdit::insert(1, "b")]),
            Err(EditError::Overlap { .. })
        ));
        assert!(matches!(
            apply(text, &[TextEdit::delete(Span::new(2, 3))]),
            Err(EditError::OutOfBounds(_))
        ));
        assert!(matches!(
            apply(text, &[TextEdit::delete(Span::new(0, 99))]),
            Err(EditError::OutOfBounds(_))
        ));
        // Adjacent edits are fine.
        assert_eq!(
            apply(
                "abc",
                &[
                    TextEdit::replace(Span::new(0, 1), "x"),
                    TextEdit::replace(Span::new(1, 2), "y")
                ]
            )
            .unwrap(),
            "xyc"
        );
    }
}
