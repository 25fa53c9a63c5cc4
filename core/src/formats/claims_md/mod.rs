//! `claims.md`, the rail: a markdown file where some lines are claims.
//!
//! A claim line is `task | session | time`, optionally followed by `| key: value` fields, as a
//! plain line, a list item (`- `, `* `, `+ `, `1. `) or a table row (`| … |`). Every other line
//! (headings, prose, blank lines, fenced code, HTML comments) is kept verbatim. A line that looks
//! meant as a claim but is broken is kept and gets a diagnostic.
//!
//! The document keeps the text it was parsed from, so printing an unedited document returns the
//! input byte for byte; edits are range patches on that text (see [`crate::text::edit`]).

use std::sync::Arc;

use chrono::TimeDelta;
use serde::Serialize;

use crate::text::diagnostic::{Code, Diagnostic};
use crate::text::edit::TextEdit;
use crate::text::glob;
use crate::text::ident;
use crate::text::time::{self, Time};
use crate::text::{lines, Span};

/// How a claim line is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Form {
    /// `task | session | time` — what Rail writes.
    Plain,
    /// `- task | session | time`
    ListItem,
    /// `| task | session | time |`
    TableRow,
}

/// The extra fields Rail knows, in the order Rail writes them (`purpose` always last).
pub const KNOWN_FIELDS: &[&str] = &[
    "lease",
    "branch",
    "pid",
    "machine",
    "after",
    "paths",
    "resources",
    "renewed",
    "purpose",
];

/// One `key: value` field after the first three.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub key: String,
    /// The key, e.g. `lease`.
    pub key_span: Span,
    /// The value, trimmed.
    pub value_span: Span,
    /// From the `|` that opens the field to the end of its value: what removing it deletes.
    pub removal_span: Span,
}

/// A parsed claim line. Spans are byte ranges in the document text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimLine {
    pub form: Form,
    pub task: String,
    pub task_span: Span,
    pub session: String,
    pub session_span: Span,
    pub time: Time,
    pub time_span: Span,
    pub fields: Vec<Field>,
    /// Where a new field is inserted (end of the last field, or before `purpose`).
    pub insert_at: usize,
    pub lease: Option<TimeDelta>,
    pub branch: Option<String>,
    pub pid: Option<String>,
    /// On a shared rail, the machine whose session made the claim: only that machine renews,
    /// updates or releases it (docs/shared-rail.md, "Who can change what").
    pub machine: Option<String>,
    pub after: Vec<String>,
    pub paths: Vec<String>,
    pub resources: Vec<String>,
    pub renewed: Option<Time>,
    pub purpose: Option<String>,
}

impl ClaimLine {
    pub fn field(&self, key: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.key == key)
    }
}

/// What a line of claims.md is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineKind {
    /// Anything that is not a claim: kept verbatim.
    Text,
    /// A claim.
    Claim(Arc<ClaimLine>),
    /// Meant as a claim but broken; `task` is set when the task id itself was readable, so the
    /// task counts as taken (a `grep "^task |"` would see it too).
    Broken { task: Option<String> },
    /// A merge conflict marker.
    ConflictMarker,
    /// A planned task: a markdown task-list item `- [ ] task | after: … | paths: …`, ticked
    /// (`[x]`) when done. Not a claim: nobody holds it yet.
    Planned(Box<PlannedTask>),
}

/// A task on the backlog (see [`LineKind::Planned`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedTask {
    pub task: String,
    pub task_span: Span,
    pub done: bool,
    /// The one character between `[` and `]`.
    pub checkbox: Span,
    pub after: Vec<String>,
    pub paths: Vec<String>,
    pub resources: Vec<String>,
    pub purpose: Option<String>,
    pub lease: Option<TimeDelta>,
}

impl LineKind {
    /// The same reading of the same line `delta` bytes further on: every span moved.
    fn moved(&self, delta: isize) -> LineKind {
        let mut kind = self.clone();
        if delta == 0 {
            // A claim's reading is shared, not copied: most lines of a big rail stay where
            // they were (a claim is added at the end).
            return kind;
        }
        match &mut kind {
            LineKind::Claim(c) => {
                let c = Arc::make_mut(c);
                for span in [&mut c.task_span, &mut c.session_span, &mut c.time_span] {
                    *span = span.moved(delta);
                }
                for f in &mut c.fields {
                    for span in [&mut f.key_span, &mut f.value_span, &mut f.removal_span] {
                        *span = span.moved(delta);
                    }
                }
                c.insert_at = Span::empty(c.insert_at).moved(delta).start;
            }
            LineKind::Planned(p) => {
                p.task_span = p.task_span.moved(delta);
                p.checkbox = p.checkbox.moved(delta);
            }
            LineKind::Text | LineKind::Broken { .. } | LineKind::ConflictMarker => {}
        }
        kind
    }
}

/// The edit that ticks a planned task's checkbox (`[ ]` → `[x]`).
pub fn tick(doc: &RailDoc, line: usize) -> Option<TextEdit> {
    match &doc.lines.get(line)?.kind {
        LineKind::Planned(p) if !p.done => Some(TextEdit::replace(p.checkbox, "x")),
        _ => None,
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// With the terminator.
    pub full: Span,
    /// Without the terminator.
    pub content: Span,
    pub kind: LineKind,
    /// Inside code or HTML (see [`parse`]): never a claim, whatever its shape.
    pub in_markup: bool,
}

/// A parsed claims.md. `text()` is exactly the input.
#[derive(Clone, Debug)]
pub struct RailDoc {
    text: String,
    pub lines: Vec<Line>,
    pub diagnostics: Vec<Diagnostic>,
    /// Per line, where in `diagnostics` the ones its reading made end: what [`reparse`] keeps
    /// with a line it does not read again.
    read_ends: Vec<u32>,
}

impl RailDoc {
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Every claim with its line number (zero-based).
    pub fn claims(&self) -> impl Iterator<Item = (usize, &ClaimLine)> {
        self.lines
            .iter()
            .enumerate()
            .filter_map(|(i, l)| match &l.kind {
                LineKind::Claim(c) => Some((i, c.as_ref())),
                _ => None,
            })
    }

    /// The line ending this file uses (the first one found), `\n` if none.
    pub fn newline(&self) -> &'static str {
        match self.text.find('\n') {
            Some(i) if i > 0 && self.text.as_bytes()[i - 1] == b'\r' => "\r\n",
            _ => "\n",
        }
    }

    /// An edit that appends `line` (without terminator) as a new last line.
    pub fn append_line(&self, line: &str) -> TextEdit {
        let nl = self.newline();
        let mut text = String::new();
        if !self.text.is_empty() && !self.text.ends_with('\n') {
            text.push_str(nl);
        }
        text.push_str(line);
        text.push_str(nl);
        TextEdit::insert(self.text.len(), text)
    }

    /// An edit that removes a whole line, terminator included.
    pub fn remove_line(&self, line: usize) -> Option<TextEdit> {
        self.lines.get(line).map(|l| TextEdit::delete(l.full))
    }
}

impl std::fmt::Display for RailDoc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// Parses claims.md. Never fails.
pub fn parse(text: &str) -> RailDoc {
    read(text.to_string(), None)
}

/// [`parse`] of `old`'s text with `edits` applied, reading again only the lines the edits
/// change: a line outside the bytes the old and new texts do not share (their common start and
/// end) keeps what it was read as, moved by what the edits add or remove before it, unless it
/// went into or out of code or HTML. The same document as [`parse`] of the new text, field for
/// field (property-tested in tests/prop_parsers.rs): a plan's check of what it writes and the
/// next operation of a replay read a 1,000-claim rail once, not per operation.
pub fn reparse(old: &RailDoc, edits: &[TextEdit]) -> Result<RailDoc, crate::text::edit::EditError> {
    let text = crate::text::edit::apply(old.text(), edits)?;
    // What the edits leave alone, before the first and after the last: the texts may share
    // more (an edit writing what was there), which is only read again.
    let prefix = edits.iter().map(|e| e.span.start).min();
    let suffix = edits.iter().map(|e| e.span.end).max();
    let mut kept = Kept {
        old,
        prefix: prefix.unwrap_or(old.text.len()),
        suffix: suffix.map_or(0, |end| old.text.len() - end),
        delta: text.len() as isize - old.text.len() as isize,
        next: 0,
    };
    Ok(read(text, Some(&mut kept)))
}

/// Where a line of `old` is in the new text, when its bytes, its terminator and the newline
/// before it are all in the part both texts share: `(old line, how far it moved)`.
struct Kept<'a> {
    old: &'a RailDoc,
    /// Bytes both texts start with, and end with (not overlapping): what no edit touched.
    prefix: usize,
    suffix: usize,
    delta: isize,
    /// The next old line to look at.
    next: usize,
}

impl Kept<'_> {
    /// The old line that reads exactly as the new line `full` does, in the same place in the
    /// text's lines, and how far it moved (never the first line of either: a byte-order mark is
    /// read there). Asked in the order of the new lines.
    fn find(&mut self, full: Span) -> Option<(usize, isize)> {
        if full.start == 0 {
            return None;
        }
        let shared_from = self.old.text.len() - self.suffix;
        while let Some(line) = self.old.lines.get(self.next) {
            let delta = if line.full.end <= self.prefix {
                0
            } else if line.full.start > shared_from {
                self.delta
            } else {
                // In the part that changed: read again.
                self.next += 1;
                continue;
            };
            let at = line.full.start as isize + delta;
            if at > full.start as isize {
                return None;
            }
            self.next += 1;
            if at == full.start as isize && line.full.start != 0 && line.full.len() == full.len() {
                return Some((self.next - 1, delta));
            }
        }
        None
    }

    /// The reading of the new line `full` taken from the old line [`Kept::find`] finds there,
    /// outside code and HTML as it is now, with its diagnostics (pushed onto `diags`), moved.
    fn reading(&mut self, full: Span, diags: &mut Vec<Diagnostic>) -> Option<LineKind> {
        let (i, delta) = self.find(full)?;
        let old = self.old;
        if old.lines[i].in_markup {
            return None;
        }
        let from = i
            .checked_sub(1)
            .map_or(0, |before| old.read_ends[before] as usize);
        for d in &old.diagnostics[from..old.read_ends[i] as usize] {
            diags.push(Diagnostic {
                span: d.span.moved(delta),
                ..d.clone()
            });
        }
        Some(old.lines[i].kind.moved(delta))
    }
}

/// Reads `text` into a document; with `kept`, a line it finds in the old document is taken as
/// it was read there (moved), when it is in code or HTML as before.
fn read(text: String, mut kept: Option<&mut Kept<'_>>) -> RailDoc {
    let (excluded, open) = markdown::markup(&text);
    let mut excluded_iter = excluded.iter().peekable();
    let count = text.bytes().filter(|b| *b == b'\n').count() + 1;
    let mut doc = RailDoc {
        text: String::new(),
        // One allocation for the lines instead of a dozen regrowths on a big rail.
        lines: Vec::with_capacity(count),
        diagnostics: Vec::new(),
        read_ends: Vec::with_capacity(count),
    };
    for (index, spans) in lines(&text).enumerate() {
        let mut content = spans.content;
        if index == 0 && text.starts_with('\u{feff}') {
            content.start += '\u{feff}'.len_utf8();
        }
        while excluded_iter.peek().is_some_and(|r| r.end <= content.start) {
            excluded_iter.next();
        }
        let in_markup = excluded_iter
            .peek()
            .is_some_and(|r| r.start <= first_non_space(&text, content) && content.start < r.end);
        let kind = if in_markup {
            LineKind::Text
        } else {
            let kept = kept
                .as_mut()
                .and_then(|k| k.reading(spans.full, &mut doc.diagnostics));
            kept.unwrap_or_else(|| classify(&text, content, &mut doc.diagnostics))
        };
        doc.read_ends.push(doc.diagnostics.len() as u32);
        doc.lines.push(Line {
            full: spans.full,
            content: spans.content,
            kind,
            in_markup,
        });
    }
    if let Some(open) = open {
        doc.diagnostics.push(Diagnostic::warning(
            Code::UnclosedBlock,
            open.span,
            unclosed_message(&open),
        ));
    }
    doc.diagnostics
        .extend(crate::text::diagnostic::unsafe_char_warnings(&text));
    doc.text = text;
    doc
}

/// Why an open block matters: every line after it, and every claim added, is not a claim.
pub fn unclosed_message(open: &markdown::Unclosed) -> String {
    format!(
        "{} is never closed: every line after it, and a claim added at the end, is not read as a claim; close it with {}",
        open.what, open.closer
    )
}

fn first_non_space(text: &str, content: Span) -> usize {
    let s = content.slice(text);
    content.start + (s.len() - s.trim_start().len())
}

fn is_conflict_marker(line: &str) -> bool {
    let starts = |c: char| {
        line.len() >= 7
            && line.bytes().take(7).all(|b| b == c as u8)
            && (line.len() == 7 || line.as_bytes()[7] == b' ')
    };
    starts('<') || starts('>') || starts('|') || line == "======="
}

/// A piece of a line with its span, already trimmed.
#[derive(Clone, Copy, Debug)]
struct Piece<'a> {
    text: &'a str,
    span: Span,
    /// Span from the separator before this piece (or the piece start) to the piece end.
    with_separator: Span,
}

fn trimmed(text: &str, start: usize, end: usize) -> (Span, &str) {
    let raw = &text[start..end];
    let lead = raw.len() - raw.trim_start().len();
    let body = raw.trim();
    (Span::new(start + lead, start + lead + body.len()), body)
}

fn is_token(s: &str) -> bool {
    !s.is_empty() && !s.chars().any(char::is_whitespace)
}

/// Splits on `|` (unescaped `\|` is kept inside a table cell). For plain lines a `purpose:`
/// field runs to the end of the line, pipes included.
fn split_fields(text: &str, body: Span, table: bool) -> Vec<Piece<'_>> {
    let mut pieces = Vec::with_capacity(8);
    let bytes = text.as_bytes();
    let mut start = body.start;
    let mut sep_start = body.start;
    let mut i = body.start;
    while i <= body.end {
        let at_end = i == body.end;
        let is_sep =
            !at_end && bytes[i] == b'|' && !(table && i > body.start && bytes[i - 1] == b'\\');
        if at_end || is_sep {
            let (span, piece) = trimmed(text, start, i);
            if !table && pieces.len() >= 3 && piece.starts_with("purpose:") {
                let (span, piece) = trimmed(text, start, body.end);
                pieces.push(Piece {
                    text: piece,
                    span,
                    with_separator: Span::new(sep_start, span.end),
                });
                return pieces;
            }
            pieces.push(Piece {
                text: piece,
                span,
                with_separator: Span::new(sep_start, span.end),
            });
            sep_start = i;
            start = i + 1;
        }
        i += 1;
    }
    pieces
}

/// Strips a list marker (`- `, `* `, `+ `, `12. `, `12) `); returns where the body starts.
fn list_body(line: &str) -> Option<usize> {
    let b = line.as_bytes();
    if b.len() >= 2 && matches!(b[0], b'-' | b'*' | b'+') && b[1] == b' ' {
        return Some(2);
    }
    let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if (1..=9).contains(&digits)
        && b.len() > digits + 1
        && matches!(b[digits], b'.' | b')')
        && b[digits + 1] == b' '
    {
        return Some(digits + 2);
    }
    None
}

fn is_table_delimiter(pieces: &[Piece<'_>]) -> bool {
    pieces.iter().all(|p| {
        let t = p.text.trim_matches(':');
        !t.is_empty() && t.bytes().all(|b| b == b'-')
    })
}

fn classify(text: &str, content: Span, diags: &mut Vec<Diagnostic>) -> LineKind {
    let line = content.slice(text);
    if is_conflict_marker(line) {
        diags.push(Diagnostic::error(
            Code::ConflictMarker,
            content,
            "merge conflict marker left in the rail; resolve it",
        ));
        return LineKind::ConflictMarker;
    }
    if let Some(planned) = planned(text, content, diags) {
        return planned;
    }
    if !line.contains('|') {
        return LineKind::Text;
    }
    let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
    let rest = &line[indent..];
    let (form, body) = if let Some(stripped) = rest.strip_prefix('|') {
        let start = content.start + indent + 1;
        let inner = stripped.trim_end();
        let end = if inner.ends_with('|') && !inner.ends_with("\\|") {
            start + inner.len() - 1
        } else {
            start + inner.len()
        };
        (Form::TableRow, Span::new(start, end.max(start)))
    } else if let Some(offset) = list_body(rest) {
        (
            Form::ListItem,
            Span::new(content.start + indent + offset, content.end),
        )
    } else {
        (Form::Plain, Span::new(content.start + indent, content.end))
    };
    let pieces = split_fields(text, body, form == Form::TableRow);
    if form == Form::TableRow && is_table_delimiter(&pieces) {
        return LineKind::Text;
    }
    // A first cell with spaces is prose ("Read this | then that"), unless a timestamp in the
    // third cell shows the line was meant as a claim (then the task id gets a diagnostic).
    let dated = pieces.len() >= 3 && time::looks_like_time(pieces[2].text);
    if pieces.len() < 2 || pieces[0].text.is_empty() || (!is_token(pieces[0].text) && !dated) {
        return LineKind::Text;
    }
    let (task, session) = (pieces[0], pieces[1]);
    let third = pieces.get(2);
    let timeish = |p: &Piece<'_>| time::looks_like_time(p.text);

    // Decide whether the line is meant as a claim at all.
    let meant = if pieces.len() == 2 {
        if timeish(&session) {
            true
        } else {
            if form != Form::TableRow
                && ident::validate_task(task.text).is_ok()
                && ident::validate_session(session.text).is_ok()
            {
                diags.push(Diagnostic::warning(
                    Code::MissingTime,
                    Span::new(session.span.end, session.span.end),
                    format!(
                        "`{} | {}` looks like a claim but has no time, so it is not counted; add `| $(date -u +%FT%RZ)`",
                        task.text, session.text
                    ),
                ));
            }
            false
        }
    } else {
        let third = third.copied().unwrap_or(session);
        let has_fields = pieces[3..].iter().any(|p| field_key(p.text).is_some());
        timeish(&third)
            || third.text.starts_with(|c: char| c.is_ascii_digit())
            || (form != Form::TableRow && is_token(session.text) && is_token(third.text))
            || (is_token(session.text) && has_fields)
    };
    if !meant {
        return LineKind::Text;
    }

    let task_ok = match ident::validate_task(task.text) {
        Ok(()) => true,
        Err(e) => {
            diags.push(Diagnostic::error(Code::InvalidTask, task.span, e.0));
            false
        }
    };
    let broken = |diags: &mut Vec<Diagnostic>, d: Diagnostic| {
        diags.push(d);
        LineKind::Broken {
            task: task_ok.then(|| task.text.to_string()),
        }
    };
    // `task | 2026-…` : the session is missing.
    if pieces.len() == 2 || session.text.is_empty() {
        let at = if session.text.is_empty() {
            session.span
        } else {
            Span::empty(session.with_separator.start)
        };
        return broken(
            diags,
            Diagnostic::error(
                Code::MissingSession,
                at,
                "the claim has no session; write `task | session | time`",
            ),
        );
    }
    if let Err(e) = ident::validate_session(session.text) {
        return broken(
            diags,
            Diagnostic::error(Code::InvalidSession, session.span, e.0),
        );
    }
    let Some(time_piece) = third.copied() else {
        return LineKind::Text;
    };
    let claimed = match time::parse_time(time_piece.text) {
        Ok(t) => t,
        Err(e) => {
            let span = if time_piece.text.is_empty() {
                Span::empty(time_piece.span.start)
            } else {
                time_piece.span
            };
            return broken(diags, Diagnostic::error(Code::BadTime, span, e.to_string()));
        }
    };
    if !task_ok {
        return LineKind::Broken { task: None };
    }

    let mut claim = ClaimLine {
        form,
        task: task.text.to_string(),
        task_span: task.span,
        session: session.text.to_string(),
        session_span: session.span,
        time: claimed,
        time_span: time_piece.span,
        fields: Vec::new(),
        insert_at: time_piece.span.end,
        lease: None,
        branch: None,
        pid: None,
        machine: None,
        after: Vec::new(),
        paths: Vec::new(),
        resources: Vec::new(),
        renewed: None,
        purpose: None,
    };
    for piece in &pieces[3..] {
        if piece.text.is_empty() {
            continue;
        }
        extra_field(text, &mut claim, piece, diags);
    }
    claim.insert_at = claim
        .field("purpose")
        .map(|f| f.removal_span.start)
        .or_else(|| claim.fields.last().map(|f| f.removal_span.end))
        .unwrap_or(time_piece.span.end);
    LineKind::Claim(Arc::new(claim))
}

/// `- [ ] task | key: value…` (also `* `, `1. `, and `[x]` when done). A to-do in words
/// (`- [ ] write the docs`) is not a planned task: the first field must be one task id and every
/// other field a `key: value`.
fn planned(text: &str, content: Span, diags: &mut Vec<Diagnostic>) -> Option<LineKind> {
    let line = content.slice(text);
    let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
    let rest = &line[indent..];
    let offset = list_body(rest)?;
    let done = match rest.get(offset..offset + 4)? {
        "[ ] " => false,
        "[x] " | "[X] " => true,
        _ => return None,
    };
    let box_at = content.start + indent + offset + 1;
    let body = Span::new(content.start + indent + offset + 4, content.end);
    let pieces = split_fields(text, body, false);
    let first = pieces.first()?;
    if !is_token(first.text) || ident::validate_task(first.text).is_err() {
        return None;
    }
    if pieces[1..]
        .iter()
        .any(|p| !p.text.is_empty() && field_key(p.text).is_none())
    {
        return None;
    }
    // The fields mean what they mean on a claim line; read them the same way.
    let mut scratch = ClaimLine {
        form: Form::ListItem,
        task: first.text.to_string(),
        task_span: first.span,
        session: String::new(),
        session_span: Span::empty(first.span.end),
        time: chrono::DateTime::<chrono::Utc>::MIN_UTC,
        time_span: Span::empty(first.span.end),
        fields: Vec::new(),
        insert_at: first.span.end,
        lease: None,
        branch: None,
        pid: None,
        machine: None,
        after: Vec::new(),
        paths: Vec::new(),
        resources: Vec::new(),
        renewed: None,
        purpose: None,
    };
    for piece in pieces[1..].iter().filter(|p| !p.text.is_empty()) {
        extra_field(text, &mut scratch, piece, diags);
    }
    Some(LineKind::Planned(Box::new(PlannedTask {
        task: scratch.task,
        task_span: first.span,
        done,
        checkbox: Span::new(box_at, box_at + 1),
        after: scratch.after,
        paths: scratch.paths,
        resources: scratch.resources,
        purpose: scratch.purpose,
        lease: scratch.lease,
    })))
}

/// `key: value` → the key, if the piece has that shape.
fn field_key(piece: &str) -> Option<&str> {
    let colon = piece.find(':')?;
    let key = &piece[..colon];
    (!key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
        && key.as_bytes()[0].is_ascii_lowercase())
    .then_some(key)
}

fn extra_field(text: &str, claim: &mut ClaimLine, piece: &Piece<'_>, diags: &mut Vec<Diagnostic>) {
    let Some(key) = field_key(piece.text) else {
        diags.push(Diagnostic::error(
            Code::MalformedField,
            piece.span,
            format!(
                "expected `key: value` after the claim time (known keys: {})",
                KNOWN_FIELDS.join(", ")
            ),
        ));
        return;
    };
    let key_span = Span::new(piece.span.start, piece.span.start + key.len());
    let after_colon = key_span.end + 1;
    let (value_span, value) = trimmed(text, after_colon, piece.span.end);
    let value_span = if value.is_empty() {
        Span::empty(piece.span.end)
    } else {
        value_span
    };
    if claim.field(key).is_some() {
        diags.push(Diagnostic::warning(
            Code::DuplicateField,
            key_span,
            format!("`{key}` is given twice; the first one counts"),
        ));
        return;
    }
    claim.fields.push(Field {
        key: key.to_string(),
        key_span,
        value_span,
        removal_span: piece.with_separator,
    });
    match key {
        "lease" => match time::parse_duration(value) {
            Ok(d) => claim.lease = Some(d),
            Err(e) => diags.push(Diagnostic::error(
                Code::BadDuration,
                value_span,
                e.to_string(),
            )),
        },
        "renewed" => match time::parse_time(value) {
            Ok(t) => claim.renewed = Some(t),
            Err(e) => diags.push(Diagnostic::error(Code::BadTime, value_span, e.to_string())),
        },
        "branch" => match ident::validate_session(value) {
            Ok(()) => claim.branch = Some(value.to_string()),
            Err(e) => diags.push(Diagnostic::error(
                Code::InvalidSession,
                value_span,
                e.0.replace("session name", "branch"),
            )),
        },
        "pid" => {
            if is_token(value) {
                claim.pid = Some(value.to_string());
            } else {
                diags.push(Diagnostic::error(
                    Code::MalformedField,
                    value_span,
                    "expected `pid: 4242@hostname`",
                ));
            }
        }
        "machine" => match ident::validate_machine(value) {
            Ok(()) => claim.machine = Some(value.to_string()),
            Err(e) => diags.push(Diagnostic::error(Code::MalformedField, value_span, e.0)),
        },
        "purpose" => {
            let purpose = if claim.form == Form::TableRow {
                value.replace("\\|", "|")
            } else {
                value.to_string()
            };
            claim.purpose = (!purpose.is_empty()).then_some(purpose);
        }
        "paths" => {
            for (span, item) in list_items(text, value_span) {
                match glob::normalize(item) {
                    Ok(p) => claim.paths.push(p),
                    Err(e) => diags.push(Diagnostic::error(Code::InvalidPath, span, e.0)),
                }
            }
        }
        "resources" => {
            for (span, item) in list_items(text, value_span) {
                match ident::validate_resource(item) {
                    Ok(()) => claim.resources.push(item.to_string()),
                    Err(e) => diags.push(Diagnostic::error(Code::InvalidResource, span, e.0)),
                }
            }
        }
        "after" => {
            for (span, item) in list_items(text, value_span) {
                match ident::validate_task(item) {
                    Ok(()) => claim.after.push(item.to_string()),
                    Err(e) => diags.push(Diagnostic::error(Code::InvalidTask, span, e.0)),
                }
            }
        }
        other => diags.push(Diagnostic::warning(
            Code::UnknownField,
            key_span,
            format!(
                "unknown field `{other}` is kept but ignored (known: {})",
                KNOWN_FIELDS.join(", ")
            ),
        )),
    }
}

/// Comma-separated items of a value, trimmed, empty ones skipped. A `,` inside `{…}` belongs
/// to a glob's alternatives (`{web,api}/src/**`), not to the list.
fn list_items(text: &str, value: Span) -> impl Iterator<Item = (Span, &str)> {
    // `,` and braces are ASCII, so splitting the bytes keeps items on character boundaries.
    // A plain loop rather than a chain of iterator adapters: this runs for every path of every
    // claim, and in wasm the adapters' per-byte checks showed in profiles.
    let bytes = text.as_bytes();
    let (mut start, mut depth) = (value.start, 0usize);
    std::iter::from_fn(move || {
        while start <= value.end {
            let mut end = start;
            while end < value.end {
                match bytes[end] {
                    b'{' => depth += 1,
                    b'}' => depth = depth.saturating_sub(1),
                    b',' if depth == 0 => break,
                    _ => {}
                }
                end += 1;
            }
            let (span, item) = trimmed(text, start, end);
            start = end + 1;
            if !item.is_empty() {
                return Some((span, item));
            }
        }
        None
    })
}

/// What a claim says, for writing a new line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NewClaim {
    pub task: String,
    pub session: String,
    pub time: Option<Time>,
    pub lease: Option<TimeDelta>,
    pub branch: Option<String>,
    pub pid: Option<String>,
    pub machine: Option<String>,
    pub after: Vec<String>,
    pub paths: Vec<String>,
    pub resources: Vec<String>,
    pub purpose: Option<String>,
}

/// A value that would corrupt a claim line.
pub fn check_value(key: &str, value: &str) -> Result<(), String> {
    if value.contains(['\n', '\r']) {
        return Err(format!("{key} must be one line"));
    }
    if key != "purpose" && value.contains('|') {
        return Err(format!("{key} may not contain `|`"));
    }
    if let Some(c) = value.chars().find(|c| c.is_control() && *c != '\t') {
        return Err(format!(
            "{key} contains a control character (U+{:04X})",
            c as u32
        ));
    }
    Ok(())
}

/// Renders the plain form Rail writes: `task | session | time | key: value…`, purpose last.
/// The line starts with `task |`, so the seed's `grep -q "^task |" claims.md` keeps working.
pub fn render_claim(claim: &NewClaim, now: Time) -> String {
    let time = claim.time.unwrap_or(now);
    let mut line = format!(
        "{} | {} | {}",
        claim.task,
        claim.session,
        time::format_time(time)
    );
    let mut push = |key: &str, value: String| {
        if !value.is_empty() {
            line.push_str(&format!(" | {key}: {value}"));
        }
    };
    push(
        "lease",
        claim
            .lease
            .map(time::format_duration_exact)
            .unwrap_or_default(),
    );
    push("branch", claim.branch.clone().unwrap_or_default());
    push("pid", claim.pid.clone().unwrap_or_default());
    push("machine", claim.machine.clone().unwrap_or_default());
    push("after", claim.after.join(", "));
    push("paths", claim.paths.join(", "));
    push("resources", claim.resources.join(", "));
    push("purpose", claim.purpose.clone().unwrap_or_default());
    line
}

/// Renders a backlog entry Rail writes: `- [ ] task | paths: … | purpose: …`, purpose last
/// (the form `rail ready` reads; docs/format.md, "The backlog").
pub fn render_planned(task: &str, paths: &[String], purpose: Option<&str>) -> String {
    let mut line = format!("- [ ] {task}");
    if !paths.is_empty() {
        line.push_str(&format!(" | paths: {}", paths.join(", ")));
    }
    if let Some(p) = purpose.filter(|p| !p.is_empty()) {
        line.push_str(&format!(" | purpose: {p}"));
    }
    line
}

/// The edit that sets field `key` of the claim on `line` to `value`: replaces the value if the
/// field exists, inserts a field otherwise (before `purpose`, which runs to the end of a plain
/// line). Nothing else on the line changes.
pub fn set_field(doc: &RailDoc, line: usize, key: &str, value: &str) -> Option<TextEdit> {
    let LineKind::Claim(claim) = &doc.lines.get(line)?.kind else {
        return None;
    };
    let value = if claim.form == Form::TableRow {
        value.replace('|', "\\|")
    } else {
        value.to_string()
    };
    if let Some(field) = claim.field(key) {
        if field.value_span.is_empty() {
            return Some(TextEdit::replace(
                Span::new(field.key_span.end, field.value_span.end),
                format!(": {value}"),
            ));
        }
        return Some(TextEdit::replace(field.value_span, value));
    }
    // A new field goes before purpose if there is one, else after the last field.
    if let Some(purpose) = claim.field("purpose") {
        let at = purpose.key_span.start;
        return Some(TextEdit::insert(at, format!("{key}: {value} | ")));
    }
    Some(TextEdit::insert(
        claim.insert_at,
        format!(" | {key}: {value}"),
    ))
}

/// The edit that removes field `key` (with the `|` before it) from the claim on `line`.
pub fn remove_field(doc: &RailDoc, line: usize, key: &str) -> Option<TextEdit> {
    let LineKind::Claim(claim) = &doc.lines.get(line)?.kind else {
        return None;
    };
    let field = claim.field(key)?;
    let mut span = field.removal_span;
    // Also take the whitespace before the separator, so `a | b | lease: 4h` → `a | b`.
    let before = &doc.text()[..span.start];
    span.start = before.trim_end_matches([' ', '\t']).len();
    Some(TextEdit::delete(span))
}

/// Markdown context: byte ranges where no line is a claim (code blocks, HTML blocks and
/// comments), found by core's own CommonMark block scanner (see [`crate::formats::markdown`]).
mod markdown {
    pub(super) use crate::formats::markdown::{markup, Unclosed};
}

#[cfg(test)]
mod tests;
