//! What a new claims.log starts with when the old one is sealed into a segment
//! (`formats::segments`): a `sealed` line naming the segment, then copies of the lines a
//! reader of claims.log alone still needs.
//!
//! Readers of the log need the history for one thing: whether a task another waits for
//! (`after:`) was released (`backlog::released_tasks`). So a seal carries, for tasks released
//! in the sealed log and not claimed again, a short copy of the last `released` (or passing
//! `done`) line: first every task a claim or a backlog entry waits for now, then the most
//! recently released others, up to [`CARRY_LINES`]. Each copy says where it came from
//! (`carried: claims-log/<hash>.log`); the full line stays in the segment. A task released
//! before that and named in an `after:` only later reads as not released: its dependents wait
//! until someone releases it again or ticks it in the backlog (docs/format.md, *Segments*).

use std::collections::{BTreeSet, HashMap};

use crate::change::snapshot::{self, SharedFiles};
use crate::formats::journal::fnv1a;
use crate::formats::log::{LogEntry, LogEvent};
use crate::formats::rail_files::LOG_FILE;
use crate::formats::segments;
use crate::model::backlog::released_tasks;
use crate::model::input::Facts;
use crate::model::Rail;
use crate::text::sort::sort_by_key;
use crate::text::time::Time;

/// The most tasks whose release a seal carries.
pub const CARRY_LINES: usize = 2000;

/// The text of the new claims.log (each line ending in `\n`) when the log `rail` read is sealed
/// into `segment`, which holds `sealed_bytes` bytes.
pub fn new_log(rail: &Rail, now: Time, session: &str, segment: &str, sealed_bytes: u64) -> String {
    let eval = rail.evaluate(&Facts::at(now));
    let released = released_tasks(&eval, rail.log());
    let mut wanted: BTreeSet<&str> = BTreeSet::new();
    for claim in &eval.claims {
        wanted.extend(claim.after.iter().map(String::as_str));
    }
    for planned in &eval.planned {
        wanted.extend(planned.after.iter().map(String::as_str));
    }
    // Each released task's last release line, newest last.
    let mut last: HashMap<&str, &LogEntry> = HashMap::new();
    for entry in &rail.log().entries {
        let counts = match entry.event {
            LogEvent::Released => true,
            LogEvent::Done => entry.details.get("verdict").map(String::as_str) == Some("passed"),
            _ => false,
        };
        if let Some(task) = entry
            .task
            .as_deref()
            .filter(|t| counts && released.contains(*t))
        {
            last.insert(task, entry);
        }
    }
    let mut picked: Vec<&LogEntry> = last.values().copied().collect();
    // Waited for first, then newest first; ties by line.
    sort_by_key(&mut picked, |e| {
        let waited = wanted.contains(e.task.as_deref().unwrap_or(""));
        (!waited, std::cmp::Reverse((e.time, e.line)))
    });
    picked.truncate(CARRY_LINES);
    sort_by_key(&mut picked, |e| (e.time, e.line));

    let mut out = LogEntry::new(now, LogEvent::Sealed, None, Some(session))
        .with("segment", segment)
        .with("bytes", sealed_bytes.to_string())
        .with("carried", picked.len().to_string())
        .render();
    out.push('\n');
    for e in picked {
        let mut copy = LogEntry::new(e.time, e.event.clone(), e.task.as_deref(), None);
        copy.session = e.session.clone();
        if let Some(verdict) = e.details.get("verdict") {
            copy = copy.with("verdict", verdict.clone());
        }
        out.push_str(&copy.with("carried", segment).render());
        out.push('\n');
    }
    out
}

/// A shared rail's log sealed: the segment's path and text (the old log, byte for byte), and
/// the new claims.log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedSeal {
    pub segment: String,
    pub segment_text: String,
    pub log: String,
}

/// Seals a shared rail's claims.log (`files`, a snapshot's) when it is due: the round that
/// commits next writes the segment beside it in the shared tree, where every machine keeps it
/// and none reads it again. `taken`: the tree's other entries (its segments among them, never
/// read), whose names a new segment does not take. `None` when the log is not due.
pub fn shared(
    files: &SharedFiles,
    taken: &[String],
    now: Time,
    session: &str,
) -> Option<SharedSeal> {
    let old = files.get(LOG_FILE)?;
    if !segments::due(old.len() as u64) {
        return None;
    }
    let hash = fnv1a(old.as_bytes());
    // A name the tree holds already is another content's (the same content was sealed and
    // left the log): skipped.
    let segment = (0..1000)
        .map(|attempt| segments::segment_path(hash, attempt))
        .find(|name| !files.contains_key(name) && !taken.contains(name))?;
    let rail = Rail::load(&snapshot::texts(files));
    Some(SharedSeal {
        log: new_log(&rail, now, session, &segment, old.len() as u64),
        segment_text: old.clone(),
        segment,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::log;
    use crate::model::input::{FileText, RailTexts};
    use crate::text::time::parse_time;

    fn rail(claims: &str, log: &str) -> Rail {
        let file = |path: &str, text: &str| FileText {
            path: path.into(),
            text: text.into(),
            modified: None,
        };
        Rail::load(&RailTexts {
            claims: Some(file("claims.md", claims)),
            log: Some(file("claims.log", log)),
            ..Default::default()
        })
    }

    #[test]
    fn a_seal_carries_the_releases_a_reader_still_needs() {
        let claims =
            "# Claims\n\nnext | bob | 2026-12-01T09:00Z | after: old\n\n- [ ] later (after: mid)\n";
        let mut text = String::new();
        for (i, task) in ["old", "mid", "again", "free"].iter().enumerate() {
            text.push_str(&format!(
                "2026-11-0{}T10:00:00Z | claimed | {task} | a\n2026-11-0{}T11:00:00Z | released | {task} | a | touched: {}\n",
                i + 1,
                i + 1,
                "src/x.rs, ".repeat(50)
            ));
        }
        // Released, then claimed again: not released now, so nothing to carry.
        let claims = format!("{claims}\nagain | c | 2026-12-01T09:30Z\n");
        text.push_str("2026-11-09T10:00:00Z | done | gate | a | verdict: failed\n");
        let r = rail(&claims, &text);
        let now = parse_time("2026-12-01T10:00Z").unwrap();
        let new = new_log(&r, now, "s", "claims-log/00000000000000aa.log", 99);
        let parsed = log::parse(&new);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        let first = &parsed.entries[0];
        assert_eq!(first.event, LogEvent::Sealed);
        assert_eq!(first.details["segment"], "claims-log/00000000000000aa.log");
        let carried: Vec<&str> = (parsed.entries[1..].iter())
            .map(|e| e.task.as_deref().unwrap())
            .collect();
        assert_eq!(carried, ["old", "mid", "free"], "in time order");
        assert!(!new.contains("touched"), "a carried copy is short");
        // Read alone, the new log says the same of every dependency as the old one did.
        let after = rail(&claims, &new);
        let eval = |r: &Rail| released_tasks(&r.evaluate(&Facts::at(now)), r.log());
        assert_eq!(eval(&after), eval(&r));
    }

    #[test]
    fn a_shared_log_is_sealed_when_due_into_a_free_name() {
        let now = parse_time("2026-12-01T10:00Z").unwrap();
        let line = "2026-11-01T10:00:00Z | renewed | t | a\n";
        let mut files = SharedFiles::new();
        files.insert(LOG_FILE.into(), line.repeat(1000));
        assert_eq!(shared(&files, &[], now, "s"), None, "not due");
        let big = line.repeat(crate::text::limits::LOG_SEAL_BYTES / line.len() + 1);
        files.insert(LOG_FILE.into(), big.clone());
        let first = shared(&files, &[], now, "s").unwrap();
        assert_eq!(first.segment_text, big, "the old log, byte for byte");
        assert!(segments::is_segment_path(&first.segment));
        assert!(first.log.contains(&format!("segment: {}", first.segment)));
        let again = shared(&files, std::slice::from_ref(&first.segment), now, "s").unwrap();
        assert_ne!(
            again.segment, first.segment,
            "a taken name is never written over"
        );
    }

    #[test]
    fn a_seal_carries_at_most_its_limit_waited_for_first() {
        let mut text = String::new();
        for i in 0..CARRY_LINES + 10 {
            text.push_str(&format!("2026-11-01T10:00:00Z | released | t{i} | a\n"));
        }
        let r = rail("# Claims\n\nx | b | 2026-12-01T09:00Z | after: t0\n", &text);
        let now = parse_time("2026-12-01T10:00Z").unwrap();
        let new = new_log(&r, now, "s", "claims-log/00000000000000aa.log", 1);
        let parsed = log::parse(&new);
        assert_eq!(parsed.entries.len(), CARRY_LINES + 1);
        assert!(parsed
            .entries
            .iter()
            .any(|e| e.task.as_deref() == Some("t0")));
    }
}
