//! The append-only log, `claims.log`: what happened and when, one line per event.
//!
//! ```text
//! 2026-10-22T14:05:03Z | claimed | auth-refresh | session-a | paths: src/auth/**
//! 2026-10-22T16:40:10Z | released | auth-refresh | session-a | touched: src/auth/token.ts
//! 2026-10-22T18:02:00Z | taken | billing | session-b | from: session-a | reason: no commit for 2h13m
//! 2026-10-22T18:03:00Z | lock-broken | - | session-b | holder: 4242@devbox | reason: process 4242 is dead
//! ```
//!
//! Fields are `time | event | task | session`, then `key: value` details. A `|` or `\` inside a
//! value is written `\|` / `\\`. The log records; it never grants anything: current ownership
//! is what claims.md and the claim files say.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::text::diagnostic::{Code, Diagnostic};
use crate::text::limits;
use crate::text::time::{self, Time};
use crate::text::{lines, Span};

/// What happened. Unknown event names from newer versions are kept as they are.
///
/// Deserialized by name through [`LogEvent::from_name`] rather than derived: the derive's untagged
/// fallback buffers every value in serde's `Content`, several KB of the wasm build.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum LogEvent {
    Claimed,
    Renewed,
    Released,
    Taken,
    Updated,
    LockBroken,
    Recovered,
    Done,
    Bypass,
    Refused,
    /// `rail worktree remove` (or `rail done` with `stations: on_done: remove`) removed a
    /// station; `forced` names what `--force` overrode.
    StationRemoved,
    /// claims.log was sealed into a segment (`formats::segments`); the first line of every
    /// claims.log after a seal, naming the segment that holds the lines before it.
    Sealed,
    /// A task put on the backlog by an agent's task list (`Request::Plan`).
    Planned,
    #[serde(untagged)]
    Other(String),
}

impl LogEvent {
    pub fn as_str(&self) -> &str {
        match self {
            LogEvent::Claimed => "claimed",
            LogEvent::Renewed => "renewed",
            LogEvent::Released => "released",
            LogEvent::Taken => "taken",
            LogEvent::Updated => "updated",
            LogEvent::LockBroken => "lock-broken",
            LogEvent::Recovered => "recovered",
            LogEvent::Done => "done",
            LogEvent::Bypass => "bypass",
            LogEvent::Refused => "refused",
            LogEvent::StationRemoved => "station-removed",
            LogEvent::Sealed => "sealed",
            LogEvent::Planned => "planned",
            LogEvent::Other(s) => s,
        }
    }

    pub fn from_name(name: &str) -> LogEvent {
        match name {
            "claimed" => LogEvent::Claimed,
            "renewed" => LogEvent::Renewed,
            "released" => LogEvent::Released,
            "taken" => LogEvent::Taken,
            "updated" => LogEvent::Updated,
            "lock-broken" => LogEvent::LockBroken,
            "recovered" => LogEvent::Recovered,
            "done" => LogEvent::Done,
            "bypass" => LogEvent::Bypass,
            "refused" => LogEvent::Refused,
            "station-removed" => LogEvent::StationRemoved,
            "sealed" => LogEvent::Sealed,
            "planned" => LogEvent::Planned,
            other => LogEvent::Other(other.to_string()),
        }
    }
}

impl<'de> Deserialize<'de> for LogEvent {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<LogEvent, D::Error> {
        Ok(LogEvent::from_name(&String::deserialize(d)?))
    }
}

/// One log line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LogEntry {
    #[serde(
        serialize_with = "crate::text::serde_time::serialize",
        deserialize_with = "crate::text::serde_time::deserialize"
    )]
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub time: Time,
    pub event: LogEvent,
    pub task: Option<String>,
    pub session: Option<String>,
    #[serde(default)]
    pub details: BTreeMap<String, String>,
    /// Zero-based line in the log (when parsed).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub line: Option<usize>,
}

impl LogEntry {
    pub fn new(time: Time, event: LogEvent, task: Option<&str>, session: Option<&str>) -> Self {
        LogEntry {
            time,
            event,
            task: task.map(str::to_string),
            session: session.map(str::to_string),
            details: BTreeMap::new(),
            line: None,
        }
    }

    pub fn with(mut self, key: &str, value: impl Into<String>) -> Self {
        let value = value.into();
        if !value.is_empty() {
            self.details.insert(key.to_string(), value);
        }
        self
    }

    /// The line to append (without the newline), at most [`limits::LOG_LINE_BYTES`]: a
    /// request's values are within their limits already; a value a host took from a file it
    /// did not write (a lock record, a hand-written claim line, a hook's payload) is cut, with
    /// a note of how much, so one line can never make the log unreadable.
    pub fn render(&self) -> String {
        let value = |v: &str, max: usize| limits::cut(&escape(v), max).into_owned();
        let mut out = format!(
            "{} | {} | {} | {}",
            time::format_time(self.time),
            self.event.as_str(),
            value(self.task.as_deref().unwrap_or("-"), limits::LOG_VALUE_BYTES),
            value(
                self.session.as_deref().unwrap_or("-"),
                limits::LOG_VALUE_BYTES
            ),
        );
        let escaped: Vec<(String, String)> = (self.details.iter())
            .map(|(k, v)| (value(k, 256), escape(v)))
            .collect();
        let keys: usize = escaped.iter().map(|(k, _)| k.len() + 5).sum();
        let room = limits::LOG_LINE_BYTES.saturating_sub(out.len() + keys);
        let capped: usize = (escaped.iter())
            .map(|(_, v)| v.len().min(limits::LOG_VALUE_BYTES))
            .sum();
        // Each value gets an equal share of the room when together they would not fit.
        let share = match escaped.len() {
            n if n > 0 && capped > room => room / n,
            _ => limits::LOG_VALUE_BYTES,
        };
        for (key, v) in &escaped {
            out.push_str(&format!(" | {key}: {}", limits::cut(v, share)));
        }
        out
    }
}

fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace(['\n', '\r'], " ")
}

fn unescape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some(next @ ('|' | '\\')) => out.push(next),
                Some(next) => {
                    out.push('\\');
                    out.push(next);
                }
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Splits on `|` that is not escaped.
fn split(line: &str) -> Vec<&str> {
    let bytes = line.as_bytes();
    let mut parts = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'|' => {
                parts.push(&line[start..i]);
                start = i + 1;
                i += 1;
            }
            _ => i += 1,
        }
    }
    parts.push(&line[start..line.len().max(start)]);
    parts
}

/// A parsed log: the entries and a diagnostic per unreadable line (which is kept, not dropped).
#[derive(Clone, Debug, Default)]
pub struct Log {
    pub entries: Vec<LogEntry>,
    pub diagnostics: Vec<Diagnostic>,
}

pub fn parse(text: &str) -> Log {
    let mut log = Log::default();
    for (n, spans) in lines(text).enumerate() {
        let line = spans.content.slice(text);
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        match parse_line(line) {
            Some(mut entry) => {
                entry.line = Some(n);
                log.entries.push(entry);
            }
            None => log.diagnostics.push(Diagnostic::warning(
                Code::BadLogLine,
                Span::new(spans.content.start, spans.content.end),
                "log line is not `time | event | task | session | key: value…`; kept as is",
            )),
        }
    }
    log.diagnostics
        .extend(crate::text::diagnostic::unsafe_char_warnings(text));
    log
}

fn parse_line(line: &str) -> Option<LogEntry> {
    let parts = split(line);
    if parts.len() < 4 {
        return None;
    }
    let time = time::parse_time(parts[0].trim()).ok()?;
    let event = parts[1].trim();
    if event.is_empty() || event.contains(char::is_whitespace) {
        return None;
    }
    let opt = |s: &str| {
        let s = unescape(s.trim());
        (s != "-" && !s.is_empty()).then_some(s)
    };
    let mut entry = LogEntry {
        time,
        event: LogEvent::from_name(event),
        task: opt(parts[2]),
        session: opt(parts[3]),
        details: BTreeMap::new(),
        line: None,
    };
    for part in &parts[4..] {
        let part = part.trim();
        let (key, value) = part.split_once(':')?;
        entry
            .details
            .insert(key.trim().to_string(), unescape(value.trim()));
    }
    Some(entry)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_events_survive_json() {
        let e: LogEntry = serde_json::from_str(
            r#"{"time":"2026-10-22T18:02:00Z","event":"frobbed","task":null,"session":"s"}"#,
        )
        .unwrap();
        assert_eq!(e.event, LogEvent::Other("frobbed".into()));
        let e: LogEntry = serde_json::from_str(
            r#"{"time":"2026-10-22T18:02:00Z","event":"lock-broken","task":null,"session":"s","details":{"holder":"1@h"}}"#,
        )
        .unwrap();
        assert_eq!(
            e.render(),
            "2026-10-22T18:02:00Z | lock-broken | - | s | holder: 1@h"
        );
    }

    #[test]
    fn no_line_passes_its_limit_whatever_its_values() {
        let t = time::parse_time("2026-10-22T18:02:00Z").unwrap();
        let huge = "x|".repeat(3 << 20);
        let entry = LogEntry::new(t, LogEvent::LockBroken, Some(&huge), Some("s"))
            .with("holder", huge.clone())
            .with("reason", huge.clone())
            .with("note", "short");
        let line = entry.render();
        assert!(line.len() <= limits::LOG_LINE_BYTES, "{}", line.len());
        assert!(line.contains("bytes cut)"), "the cut is said");
        let back = parse(&line);
        assert_eq!(back.entries.len(), 1, "a cut line still parses");
        assert_eq!(back.entries[0].details["note"], "short");
        // Values within their limits are never cut.
        let ok = LogEntry::new(t, LogEvent::Released, Some("a"), Some("s"))
            .with("touched", "f.rs, ".repeat(10_000));
        assert!(!ok.render().contains("bytes cut"));
    }

    #[test]
    fn round_trip() {
        let t = time::parse_time("2026-10-22T18:02:00Z").unwrap();
        let entry = LogEntry::new(t, LogEvent::Taken, Some("billing"), Some("session-b"))
            .with("from", "session-a")
            .with("reason", "no commit | for 2h13m \\ really");
        let line = entry.render();
        assert_eq!(line, "2026-10-22T18:02:00Z | taken | billing | session-b | from: session-a | reason: no commit \\| for 2h13m \\\\ really");
        let log = parse(&format!("{line}\ngarbage\n"));
        assert_eq!(log.entries.len(), 1);
        let mut back = log.entries[0].clone();
        back.line = None;
        assert_eq!(back, entry);
        assert_eq!(log.diagnostics.len(), 1);
    }
}
