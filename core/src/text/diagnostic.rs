//! Diagnostics: what is wrong with a file, where (a byte span), and how bad.
//!
//! Parsers never fail; they return a document plus a list of these. Line and column are
//! computed only when a diagnostic is shown ([`Located`]).

use serde::{Deserialize, Serialize};

use crate::text::{Encoding, LineIndex, Range, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

macro_rules! codes {
    ($($(#[$doc:meta])* $variant:ident = $text:literal,)*) => {
        /// Stable diagnostic codes. The text form is what users see and what docs/format.md lists.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
        pub enum Code {
            $($(#[$doc])* #[serde(rename = $text)] $variant,)*
        }

        impl Code {
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $text,)*
                }
            }
        }
    };
}

codes! {
    /// A claim line's time is missing or not a timestamp.
    BadTime = "bad-time",
    /// A claim line has no session.
    MissingSession = "missing-session",
    /// Two fields but no time: looks like a claim, is not counted as one.
    MissingTime = "missing-time",
    /// A task id with characters Rail does not allow.
    InvalidTask = "invalid-task",
    /// A session name with characters Rail does not allow.
    InvalidSession = "invalid-session",
    /// An extra field Rail does not know.
    UnknownField = "unknown-field",
    /// The same extra field twice on one line.
    DuplicateField = "duplicate-field",
    /// An extra field that is not `key: value`.
    MalformedField = "malformed-field",
    /// A duration such as `lease: soon`.
    BadDuration = "bad-duration",
    /// A path that is absolute, climbs with `..`, or is not a valid glob.
    InvalidPath = "invalid-path",
    /// A resource name Rail cannot use.
    InvalidResource = "invalid-resource",
    /// `<<<<<<<`, `=======` or `>>>>>>>` left by a textual merge.
    ConflictMarker = "conflict-marker",
    /// YAML that does not parse.
    YamlSyntax = "yaml-syntax",
    /// YAML outside the subset Rail reads (anchors, tags, several documents, flow mappings...).
    YamlUnsupported = "yaml-unsupported",
    /// A claim file without `owner`.
    MissingOwner = "missing-owner",
    /// A claim file key of the wrong shape (e.g. a mapping where a list is expected).
    BadValue = "bad-value",
    /// The same key twice in one mapping.
    DuplicateKey = "duplicate-key",
    /// `owner` does not match the claim file's name.
    OwnerMismatch = "owner-mismatch",
    /// A claim without any known time: its lease cannot run.
    NoClaimTime = "no-claim-time",
    /// A claim or renewal time after this host's clock: its lease counts from when the host saw it.
    FutureTime = "future-time",
    /// A log line that does not parse.
    BadLogLine = "bad-log-line",
    /// The same task claimed twice.
    DuplicateClaim = "duplicate-claim",
    /// Two live sessions claim overlapping paths.
    PathOverlap = "path-overlap",
    /// Two live sessions hold the same exclusive resource.
    ResourceClash = "resource-clash",
    /// A task waits (`after:`) for a task that is not released yet.
    Blocked = "blocked",
    /// A lock record that does not parse.
    BadLockRecord = "bad-lock-record",
    /// A config file value that is wrong.
    BadConfig = "bad-config",
    /// A control, bidirectional or invisible format character: terminals act on it, editors
    /// show the text in another order, or it hides (issue 17).
    ControlCharacter = "control-character",
    /// A fenced code block or HTML comment/block that runs to the end of claims.md: a line
    /// added after it is not read as a claim.
    UnclosedBlock = "unclosed-block",
    /// A task id or session that looks like another one on the rail but is not the same
    /// (mixed scripts, Unicode confusables).
    ConfusableName = "confusable-name",
}

impl Code {
    /// What can be done about a diagnostic with this code, beyond its message (each host words
    /// it its own way).
    pub fn hint(self) -> Option<crate::text::hint::Hint> {
        match self {
            Code::ConflictMarker => Some(crate::text::hint::Hint::MergeDriver),
            _ => None,
        }
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One finding in one text, positioned by byte span.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    pub code: Code,
    pub severity: Severity,
    pub span: Span,
    pub message: String,
}

/// One `control-character` warning per line that holds a character a terminal acts on or that
/// reorders or hides text ([`crate::text::is_unsafe_char`]), at the first such character. Every
/// parser of a rail file adds these: any field can reach a terminal or an editor.
pub fn unsafe_char_warnings(text: &str) -> impl Iterator<Item = Diagnostic> + '_ {
    crate::text::unsafe_chars(text)
        .into_iter()
        .map(|(span, c)| {
            let what = if c.is_control() {
                "a control character"
            } else {
                "an invisible or text-reordering character"
            };
            Diagnostic::warning(
                Code::ControlCharacter,
                span,
                format!(
                "{what} ({}): terminals may act on it and editors may hide it or show the text \
                 around it out of order; Rail prints it as an escape",
                crate::text::char_name(c)
            ),
            )
        })
}

impl Diagnostic {
    pub fn error(code: Code, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity: Severity::Error,
            span,
            message: message.into(),
        }
    }

    pub fn warning(code: Code, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity: Severity::Warning,
            span,
            message: message.into(),
        }
    }

    pub fn offset(mut self, base: usize) -> Self {
        self.span = self.span.offset(base);
        self
    }

    /// Attach a file name and compute line and column for display.
    pub fn locate(&self, file: &str, text: &str, index: &LineIndex) -> Located {
        let range = index.range(text, self.span, Encoding::Utf16);
        let start_chars = index.position(text, self.span.start, Encoding::Chars);
        Located {
            file: file.to_string(),
            code: self.code,
            severity: self.severity,
            message: self.message.clone(),
            span: self.span,
            range,
            line: start_chars.line + 1,
            column: start_chars.character + 1,
        }
    }
}

/// A diagnostic ready to show: file, byte span, a zero-based UTF-16 `range` for editors and JS,
/// and a one-based `line`/`column` (column in characters) for people.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Located {
    pub file: String,
    pub code: Code,
    pub severity: Severity,
    pub message: String,
    pub span: Span,
    pub range: Range,
    pub line: u32,
    pub column: u32,
}

impl Located {
    /// `file:line:col: severity[code]: message`, the form `rail validate` prints.
    pub fn one_line(&self) -> String {
        format!(
            "{}:{}:{}: {}[{}]: {}",
            self.file,
            self.line,
            self.column,
            self.severity.as_str(),
            self.code,
            self.message
        )
    }

    /// rustc-style: the one-line form, then the source line with a caret under the span.
    pub fn render(&self, text: &str) -> String {
        let index = LineIndex::new(text);
        let line_no = (self.line - 1) as usize;
        let start = index.line_start(line_no);
        let end = index.line_start(line_no + 1).min(text.len());
        let source = Span::new(start, end)
            .slice(text)
            .trim_end_matches(['\n', '\r']);
        let gutter = self.line.to_string();
        let pad = " ".repeat(gutter.len());
        let caret_start = (self.column - 1) as usize;
        let caret_len = if self.range.start.line == self.range.end.line {
            let end_chars = index
                .position(text, self.span.end, Encoding::Chars)
                .character as usize;
            end_chars.saturating_sub(caret_start).max(1)
        } else {
            source.chars().count().saturating_sub(caret_start).max(1)
        };
        format!(
            "{}\n{pad} |\n{gutter} | {source}\n{pad} | {}{}\n",
            self.one_line(),
            " ".repeat(caret_start),
            "^".repeat(caret_len)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_through_serde() {
        for code in Code::ALL {
            let json = serde_json::to_string(code).unwrap();
            assert_eq!(json, format!("\"{}\"", code.as_str()));
        }
    }

    #[test]
    fn render_points_at_the_span() {
        let text = "ok\ntâche | s | nope\n";
        let start = text.find("nope").unwrap();
        let diag = Diagnostic::error(Code::BadTime, Span::new(start, start + 4), "bad time");
        let located = diag.locate("claims.md", text, &LineIndex::new(text));
        assert_eq!(located.line, 2);
        assert_eq!(located.column, 13);
        assert_eq!(
            located.render(text),
            "claims.md:2:13: error[bad-time]: bad time\n  |\n2 | tâche | s | nope\n  |             ^^^^\n"
        );
    }
}
