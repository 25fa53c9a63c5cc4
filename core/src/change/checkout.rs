//! Sharing the main checkout with git.
//!
//! claims.md lives in a git work tree, and git rewrites work-tree files (merge, checkout, pull,
//! reset, stash, rebase) without taking Rail's lock. Two rules keep a claim Rail reported as made
//! from being lost to that:
//!
//! - **Never at the same time.** git only writes a work tree while it holds that work tree's
//!   `index.lock`, so the host takes `index.lock` as well while it reads, plans and writes
//!   claims.md. [`index_lock_step`] says what to do about an `index.lock` that is already there:
//!   one left by a Rail that died is removed; git's own is waited for, never removed.
//! - **Receipts.** After each write the host keeps what it wrote to claims.md (the receipt) in
//!   the git dir, where no git command writes. A claim that is in the receipt, is gone from
//!   claims.md, and was not released by anyone according to the log was dropped by a git
//!   command (a reset, a stash, a checkout of another branch), and [`restore`] plans putting it
//!   back, line for line as Rail wrote it.

use std::collections::{BTreeMap, BTreeSet};

use crate::change::lock::{LockRecord, LockVerdict};
use crate::formats::claims_md::{self, LineKind};
use crate::formats::log::{self, LogEntry, LogEvent};
use crate::formats::rail_files::CLAIMS_MD;
use crate::model::input::RailTexts;
use crate::text::edit::{self, FileEdits};
use crate::text::time::Time;

/// The name of git's lock on a work tree's index, in that work tree's git dir.
pub const INDEX_LOCK: &str = "index.lock";

/// What to do about an `index.lock` that exists when the host wants it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IndexLockStep {
    /// It is a Rail's own, and that Rail is dead: remove it and try again.
    Remove { reason: String },
    /// A git command holds it (or a Rail that is alive, or one that cannot be judged): wait.
    Wait,
}

/// Decides about an existing `index.lock` from what it holds: a Rail lock record (and the
/// verdict on its owner) or anything else, which is git's own and never removed by Rail.
pub fn index_lock_step(record: Option<&LockRecord>, verdict: &LockVerdict) -> IndexLockStep {
    match record {
        Some(record) if verdict.breakable => IndexLockStep::Remove {
            reason: format!(
                "left by rail process {} ({}), {}",
                record.holder(),
                record.command,
                verdict.message
            ),
        },
        _ => IndexLockStep::Wait,
    }
}

/// The message for a wait on `index.lock` that ran out of time.
pub fn index_lock_timeout(path: &str, held_by_rail: Option<&LockVerdict>) -> String {
    match held_by_rail {
        Some(verdict) => format!(
            "timed out waiting for {path}, which another rail holds: {}",
            verdict.message
        ),
        None => format!(
            "timed out waiting for {path}: a git command is changing this checkout (or one \
             crashed and left its lock). Rail waits for it so that git cannot overwrite \
             claims.md under a claim. If no git command is running, remove {path} and try again"
        ),
    }
}

/// A claim that claims.md lost outside Rail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lost {
    pub task: String,
    pub session: String,
    /// Put back, or why not.
    pub restored: bool,
    pub note: String,
}

/// What putting lost claims back takes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Restore {
    /// Edits of claims.md (empty when nothing is restored).
    pub edits: Vec<FileEdits>,
    /// One `recovered` log line per claim put back.
    pub log_lines: Vec<String>,
    pub lost: Vec<Lost>,
}

impl Restore {
    pub fn is_empty(&self) -> bool {
        self.lost.is_empty()
    }
}

/// Events after which a claim is rightly gone from claims.md.
fn ends_claim(event: &LogEvent) -> bool {
    matches!(event, LogEvent::Released | LogEvent::Taken | LogEvent::Done)
}

/// Plans restoring the claims of `receipt` (the claims.md text Rail last wrote) that the current
/// claims.md no longer has. A claim is left out when the log says it ended (released, taken or
/// done at or after its time: a merge brought in a release made elsewhere), or when claims.md
/// now gives the task to another session (two claims of one task are the merge driver's
/// business, not this one's; the caller reports it).
pub fn restore(receipt: &str, texts: &RailTexts, now: Time) -> Restore {
    restore_as(receipt, texts, now, true)
}

/// [`restore`], told what happened to claims.md: `git_wrote` when the file is as a git command
/// last wrote it (its stat matches git's index entry: reset, stash, checkout, merge), so a lost
/// claim was dropped by git and is put back. Otherwise someone else rewrote the file after Rail
/// — a person, or the seed's `flock claims.md sed -i '/^task |/d' claims.md` — and a lost claim
/// of nobody else's task is a release by hand: logged `released` (`by: hand`), not put back.
pub fn restore_as(receipt: &str, texts: &RailTexts, now: Time, git_wrote: bool) -> Restore {
    let mut out = Restore::default();
    let current_text = texts.claims.as_ref().map(|f| f.text.as_str()).unwrap_or("");
    if receipt == current_text {
        return out;
    }
    let written = claims_md::parse(receipt);
    let current = claims_md::parse(current_text);
    let mut held: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for line in &current.lines {
        match &line.kind {
            LineKind::Claim(c) => {
                held.entry(c.task.as_str())
                    .or_default()
                    .insert(c.session.as_str());
            }
            LineKind::Broken { task: Some(task) } => {
                held.entry(task.as_str()).or_default().insert("");
            }
            _ => {}
        }
    }
    let log = texts
        .log
        .as_ref()
        .map(|l| log::parse(&l.text))
        .unwrap_or_default();
    let mut appended = String::new();
    let nl = current.newline();
    for (n, claim) in written.claims() {
        let sessions = held.get(claim.task.as_str());
        if sessions.is_some_and(|s| s.contains(claim.session.as_str())) {
            continue;
        }
        let since = claim.renewed.unwrap_or(claim.time).max(claim.time);
        let ended = log.entries.iter().any(|e| {
            ends_claim(&e.event)
                && e.task.as_deref() == Some(claim.task.as_str())
                && e.time >= since
                // Its own end: a release by its session, or a take from it. Another session's
                // release of the task in the same second does not end this claim.
                && (e.session.as_deref() == Some(claim.session.as_str())
                    || e.details.get("from").map(String::as_str) == Some(claim.session.as_str())
                    || e.session.is_none())
        });
        if ended {
            continue;
        }
        if let Some(others) = sessions {
            let other = others.iter().find(|s| !s.is_empty()).copied().unwrap_or("");
            out.lost.push(Lost {
                task: claim.task.clone(),
                session: claim.session.clone(),
                restored: false,
                note: if other.is_empty() {
                    format!(
                        "claims.md lost {}'s claim of {} outside Rail, and now has a broken \
                         line for the task; not restored: fix the line, then claim again",
                        claim.session, claim.task
                    )
                } else {
                    format!(
                        "claims.md lost {}'s claim of {} outside Rail, and now gives the task \
                         to {other}; not restored: settle it with `rail take` or `rail release`",
                        claim.session, claim.task
                    )
                },
            });
            continue;
        }
        if !git_wrote {
            out.lost.push(Lost {
                task: claim.task.clone(),
                session: claim.session.clone(),
                restored: false,
                note: format!(
                    "{}'s claim of {} was deleted from claims.md by hand (not by a git \
                     command): recorded as released",
                    claim.session, claim.task
                ),
            });
            out.log_lines.push(
                LogEntry::new(
                    now,
                    LogEvent::Released,
                    Some(&claim.task),
                    Some(&claim.session),
                )
                .with("by", "hand")
                .with("note", "its line was deleted from claims.md outside Rail")
                .render(),
            );
            continue;
        }
        let text = written.lines[n].content.slice(receipt);
        appended.push_str(text);
        appended.push_str(nl);
        out.lost.push(Lost {
            task: claim.task.clone(),
            session: claim.session.clone(),
            restored: true,
            note: format!(
                "restored {}'s claim of {}: claims.md lost it outside Rail (a git command such \
                 as reset, stash, checkout or merge rewrote the file)",
                claim.session, claim.task
            ),
        });
        out.log_lines.push(
            LogEntry::new(
                now,
                LogEvent::Recovered,
                Some(&claim.task),
                Some(&claim.session),
            )
            .with("note", "claim lost from claims.md outside Rail; restored")
            .render(),
        );
    }
    if appended.is_empty() {
        return out;
    }
    let mut insert = current.append_line("");
    // `append_line("")` ends the last line and adds an empty one: put the lines there instead.
    insert.text.truncate(insert.text.len() - nl.len());
    insert.text.push_str(&appended);
    // The lines must count as claims where they land (not inside an unclosed code block or
    // comment at the end of the file); if they would not, restore nothing and say so.
    let after = edit::apply(current_text, std::slice::from_ref(&insert)).unwrap_or_default();
    // Nor may they make claims.md larger than Rail reads (`text::limits`).
    if let Err(e) = crate::text::limits::check_file(CLAIMS_MD, after.len()) {
        return not_restored(out, &format!("{e}. Make room, then run `rail reconcile`"));
    }
    let landed = claims_md::parse(&after).claims().count();
    let expected = current.claims().count() + out.lost.iter().filter(|l| l.restored).count();
    if landed != expected {
        return not_restored(
            out,
            "claims.md ends inside an unclosed code block or comment, where a line is not a \
             claim. Close it, then run `rail reconcile`",
        );
    }
    out.edits.push(FileEdits {
        file: CLAIMS_MD.to_string(),
        create: texts.claims.is_none(),
        edits: vec![insert],
    });
    out
}

/// `out` with its claims to put back not put back, each saying `why`; nothing is logged.
fn not_restored(mut out: Restore, why: &str) -> Restore {
    out.log_lines.clear();
    for lost in out.lost.iter_mut().filter(|l| l.restored) {
        lost.restored = false;
        lost.note = format!(
            "claims.md lost {}'s claim of {} outside Rail; not restored: {why}",
            lost.session, lost.task
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::input::FileText;
    use crate::text::time::parse_time;

    fn texts(claims: &str, log: &str) -> RailTexts {
        RailTexts {
            claims: Some(FileText {
                path: CLAIMS_MD.into(),
                text: claims.into(),
                modified: None,
            }),
            log: Some(FileText {
                path: crate::formats::rail_files::LOG_FILE.into(),
                text: log.into(),
                modified: None,
            }),
            ..RailTexts::default()
        }
    }

    fn now() -> Time {
        parse_time("2026-12-01T10:00Z").unwrap()
    }

    fn applied(current: &str, r: &Restore) -> String {
        match r.edits.first() {
            Some(fe) => edit::apply(current, &fe.edits).unwrap(),
            None => current.to_string(),
        }
    }

    const HEAD: &str = "# Claims\n\n";

    #[test]
    fn a_claim_dropped_by_git_comes_back_verbatim() {
        let receipt =
            format!("{HEAD}a | s1 | 2026-12-01T09:00Z | purpose: x\nb | s2 | 2026-12-01T09:01Z\n");
        let current = format!("{HEAD}b | s2 | 2026-12-01T09:01Z\nc | s3 | 2026-12-01T09:02Z\n");
        let r = restore(&receipt, &texts(&current, ""), now());
        assert_eq!(
            applied(&current, &r),
            format!("{current}a | s1 | 2026-12-01T09:00Z | purpose: x\n")
        );
        assert_eq!(r.lost.len(), 1);
        assert!(r.lost[0].restored);
        assert_eq!(r.log_lines.len(), 1);
        assert!(
            r.log_lines[0].contains("| recovered | a | s1 |"),
            "{}",
            r.log_lines[0]
        );
    }

    #[test]
    fn a_line_deleted_by_hand_is_a_release_not_put_back() {
        let receipt = format!("{HEAD}a | s1 | 2026-12-01T09:00Z\nb | s2 | 2026-12-01T09:01Z\n");
        let current = format!("{HEAD}b | s2 | 2026-12-01T09:01Z\n");
        let r = restore_as(&receipt, &texts(&current, ""), now(), false);
        assert!(r.edits.is_empty(), "nothing is put back");
        assert_eq!(r.lost.len(), 1);
        assert!(!r.lost[0].restored);
        assert_eq!(r.log_lines.len(), 1);
        assert!(
            r.log_lines[0].contains("| released | a | s1 |") && r.log_lines[0].contains("by: hand"),
            "{}",
            r.log_lines[0]
        );
    }

    #[test]
    fn another_sessions_release_does_not_end_a_claim() {
        let receipt = format!("{HEAD}a | s2 | 2026-12-01T09:00Z\n");
        let log = "2026-12-01T09:00:00Z | released | a | s1\n";
        let r = restore(&receipt, &texts(HEAD, log), now());
        assert_eq!(r.lost.len(), 1);
        assert!(r.lost[0].restored);
    }

    #[test]
    fn nothing_to_do_when_claims_md_is_what_rail_wrote() {
        let receipt = format!("{HEAD}a | s1 | 2026-12-01T09:00Z\n");
        let r = restore(&receipt, &texts(&receipt, ""), now());
        assert!(r.is_empty() && r.edits.is_empty());
    }

    #[test]
    fn a_release_in_the_log_is_respected() {
        let receipt = format!("{HEAD}a | s1 | 2026-12-01T09:00Z\n");
        let log = "2026-12-01T09:30:00Z | released | a | s1\n";
        let r = restore(&receipt, &texts(HEAD, log), now());
        assert!(r.is_empty());
        // An older release (of an earlier claim of the task) does not count.
        let log = "2026-12-01T08:30:00Z | released | a | s1\n";
        let r = restore(&receipt, &texts(HEAD, log), now());
        assert_eq!(r.lost.len(), 1);
        assert!(r.lost[0].restored);
    }

    #[test]
    fn a_task_now_held_by_another_session_is_reported_not_doubled() {
        let receipt = format!("{HEAD}a | s1 | 2026-12-01T09:00Z\n");
        let current = format!("{HEAD}a | s9 | 2026-11-01T09:00Z\n");
        let r = restore(&receipt, &texts(&current, ""), now());
        assert!(r.edits.is_empty());
        assert_eq!(r.lost.len(), 1);
        assert!(!r.lost[0].restored);
        assert!(r.lost[0].note.contains("s9"), "{}", r.lost[0].note);
    }

    #[test]
    fn a_file_without_final_newline_or_with_crlf_keeps_its_lines_apart() {
        let receipt = "a | s1 | 2026-12-01T09:00Z\r\n";
        let current = "# Claims\r\nx | s2 | 2026-12-01T09:00Z";
        let r = restore(receipt, &texts(current, ""), now());
        assert_eq!(
            applied(current, &r),
            "# Claims\r\nx | s2 | 2026-12-01T09:00Z\r\na | s1 | 2026-12-01T09:00Z\r\n"
        );
    }

    #[test]
    fn an_unclosed_block_at_the_end_stops_the_restore_with_a_reason() {
        let receipt = format!("{HEAD}a | s1 | 2026-12-01T09:00Z\n");
        let current = format!("{HEAD}```\n");
        let r = restore(&receipt, &texts(&current, ""), now());
        assert!(r.edits.is_empty() && r.log_lines.is_empty());
        assert!(!r.lost[0].restored);
        assert!(r.lost[0].note.contains("unclosed"), "{}", r.lost[0].note);
    }

    #[test]
    fn index_lock_rules() {
        let record = crate::change::lock::parse(
            "pid: 7\nhost: h\nsession: s\ncommand: rail claim a\nstarted: 2026-12-01T09:00:00Z\nnonce: 00ff\n",
        )
        .unwrap();
        let verdict = |breakable| LockVerdict {
            breakable,
            ..crate::change::lock::assess(
                Some(&record),
                &crate::change::lock::LockFacts {
                    now: now(),
                    host: "h".into(),
                    owner_alive: Some(!breakable),
                    file_age: chrono::TimeDelta::zero(),
                },
            )
        };
        assert!(matches!(
            index_lock_step(Some(&record), &verdict(true)),
            IndexLockStep::Remove { .. }
        ));
        assert_eq!(
            index_lock_step(Some(&record), &verdict(false)),
            IndexLockStep::Wait
        );
        // git's own lock (not a Rail record) is never removed, whatever its age.
        assert_eq!(index_lock_step(None, &verdict(true)), IndexLockStep::Wait);
    }
}
