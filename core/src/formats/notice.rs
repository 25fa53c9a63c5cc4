//! Notices: what a session must hear about a claim it lost, told at its agent's next hook call.
//!
//! A claim can stop being a session's without the session doing anything: a provisional claim
//! (made with `RAIL_LOCAL=1`) that another machine's session got first, a claim a rewound shared
//! rail dropped when it was merged back, a stale claim another session took. The log records
//! each; the session that was told it holds the task must be told it no longer does, in the one
//! place its agent looks — the answer to its next hook call — not only find it later in the log.
//!
//! The host keeps one small file per notice under `<git common dir>/rail/notices/<session>/`
//! (the session's name as [`crate::formats::heartbeat::file_name`] writes it), made where the loss is
//! found and removed once told. This module writes and reads a notice's text, says which log
//! lines are such a loss ([`of_log_line`]) and words what the session is told ([`message`]);
//! how a notice joins the hook's answer is the hook's (`agent::hook::tell`).

use crate::text::time::{format_time, parse_time, Time};

/// The longest field kept (task, holder, reason): a notice's text is the rail's to fill, but
/// a notice file is within any agent's reach.
const MAX_FIELD: usize = 200;
/// The most notices told in one answer; the rest wait for the next call.
pub const MAX_TOLD: usize = 8;

/// Why the claim is no longer the session's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LossCause {
    /// Claimed with `RAIL_LOCAL=1` while the shared rail could not be reached; the holder got
    /// the task on the shared rail first.
    Provisional,
    /// The shared rail was rewound (force-pushed back, restored) and merged back; the merge
    /// kept the holder's claim.
    Rewind,
    /// The holder took the claim (it had gone stale); the reason as the take gave it.
    Taken(String),
    /// Not a loss — "Behind!": the holder claimed the task on purpose (`--over-flight`) over
    /// files the session has in flight (uncommitted or not merged); those files.
    ClaimedOver(String),
    /// Not a loss — "Behind!": the holder's agent is writing, in another checkout, files the
    /// session has in flight; those files (the notice's task names the first).
    WrittenBeside(String),
    /// A commit that is not proven (not signed by an allowed machine, or not what the
    /// operations it records make) changed the claim on the shared rail; the last proven state
    /// was restored over it. The commit's id.
    Unproven(String),
}

/// One lost claim, for its session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    /// The session that lost the claim (the notice's addressee).
    pub session: String,
    pub task: String,
    /// Who holds the task now.
    pub holder: String,
    pub why: LossCause,
    /// When the loss was found.
    pub at: Time,
}

/// A field as kept: printable, one line, bounded.
fn clean(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(MAX_FIELD)
        .collect::<String>()
        .trim()
        .to_string()
}

/// The notice file's text: `key value` lines.
pub fn render(n: &Notice) -> String {
    let (why, reason) = match &n.why {
        LossCause::Provisional => ("provisional", None),
        LossCause::Rewind => ("rewind", None),
        LossCause::Taken(r) => ("taken", Some(r)),
        LossCause::ClaimedOver(f) => ("claimed-over", Some(f)),
        LossCause::WrittenBeside(f) => ("written-beside", Some(f)),
        LossCause::Unproven(c) => ("unproven", Some(c)),
    };
    let mut out = format!(
        "session {}\ntask {}\nholder {}\nwhy {why}\nat {}\n",
        clean(&n.session),
        clean(&n.task),
        clean(&n.holder),
        format_time(n.at)
    );
    if let Some(r) = reason.map(|r| clean(r)).filter(|r| !r.is_empty()) {
        out.push_str(&format!("reason {r}\n"));
    }
    out
}

/// A notice from its file's text; `None` for a text this did not write (damaged, or put there
/// by something else), which is then removed untold.
pub fn parse(text: &str) -> Option<Notice> {
    let (mut session, mut task, mut holder, mut why, mut at, mut reason) =
        (None, None, None, None, None, None);
    for line in text.lines() {
        let (key, value) = line.split_once(' ')?;
        let value = Some(clean(value)).filter(|v| !v.is_empty());
        match key {
            "session" => session = value,
            "task" => task = value,
            "holder" => holder = value,
            "why" => why = value,
            "at" => at = Some(parse_time(value.as_deref()?).ok()?),
            "reason" => reason = value,
            _ => {}
        }
    }
    let why = match why?.as_str() {
        "provisional" => LossCause::Provisional,
        "rewind" => LossCause::Rewind,
        "taken" => LossCause::Taken(reason.unwrap_or_default()),
        "claimed-over" => LossCause::ClaimedOver(reason?),
        "written-beside" => LossCause::WrittenBeside(reason?),
        "unproven" => LossCause::Unproven(reason.unwrap_or_default()),
        _ => return None,
    };
    Some(Notice {
        session: session?,
        task: task?,
        holder: holder?,
        why,
        at: at?,
    })
}

/// A notice as found on disk in the folder named `folder`: only one addressed to that folder's
/// session counts (a notice copied into another session's folder stops nobody).
pub fn read(folder: &str, text: &str) -> Option<Notice> {
    parse(text).filter(|n| crate::formats::heartbeat::file_name(&n.session) == folder)
}

/// The loss a log line records, as a notice for the session that lost the claim: a take
/// (`taken … | from: <them>`). `None` for any other line, and for a session taking its own.
pub fn of_log_line(line: &str) -> Option<Notice> {
    let log = crate::formats::log::parse(line);
    let entry = log.entries.first()?;
    if entry.event != crate::formats::log::LogEvent::Taken {
        return None;
    }
    let from = entry.details.get("from")?;
    let holder = entry.session.clone()?;
    if *from == holder {
        return None;
    }
    Some(Notice {
        session: from.clone(),
        task: entry.task.clone()?,
        holder,
        why: LossCause::Taken(entry.details.get("reason").cloned().unwrap_or_default()),
        at: entry.time,
    })
}

/// What the session is told, one sentence per notice (at most [`MAX_TOLD`]).
pub fn message(notices: &[Notice]) -> String {
    let mut out = String::new();
    for n in notices.iter().take(MAX_TOLD) {
        if !out.is_empty() {
            out.push('\n');
        }
        match &n.why {
            LossCause::ClaimedOver(f) => {
                out.push_str(&format!(
                    "Rail: Behind! {} claimed {} on purpose ({}) over {}'s work in flight: {f}, not merged yet. Commit what you have of those files now and agree with {} who finishes them (`rail who FILE` shows who holds what).",
                    n.holder, n.task, format_time(n.at), n.session, n.holder
                ));
                continue;
            }
            LossCause::WrittenBeside(files) => {
                out.push_str(&format!(
                    "Rail: Behind! {} is writing {files} in another checkout ({}), which {} has in flight here: both changes will meet in a merge. Commit yours soon and tell {} (`rail who {}`).",
                    n.holder, format_time(n.at), n.session, n.holder, n.task
                ));
                continue;
            }
            LossCause::Unproven(commit) => {
                out.push_str(&format!(
                    "Rail: {}'s claim of {} was changed on the shared rail ({}) by commit {}, which is not proven (not signed by a machine the team allows, or not what the operations it records make). The last proven state was restored over it; `rail board` shows who holds {} now, `rail log` what happened.",
                    n.session,
                    n.task,
                    format_time(n.at),
                    &commit[..commit.len().min(12)],
                    n.task
                ));
                continue;
            }
            _ => {}
        }
        let how = match &n.why {
            LossCause::Provisional => format!(
                "it was claimed while this machine was not on the shared rail, and {} got {} there first",
                n.holder, n.task
            ),
            LossCause::Rewind => format!(
                "the shared rail was rewound and merged back, and the merge kept {}'s claim",
                n.holder
            ),
            LossCause::Taken(r) if r.is_empty() => format!("{} took it", n.holder),
            LossCause::Taken(r) => format!("{} took it ({r})", n.holder),
            LossCause::ClaimedOver(_) | LossCause::WrittenBeside(_) | LossCause::Unproven(_) => {
                String::new()
            }
        };
        out.push_str(&format!(
            "Rail: {}'s claim of {} is no longer theirs ({}, {}): {} holds {}. Stop work on {}: do not edit its files; `rail board` shows what is free, `rail log` what happened.",
            n.session,
            n.task,
            format_time(n.at),
            how,
            n.holder,
            n.task,
            n.task
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(t: &str) -> Time {
        parse_time(t).unwrap()
    }

    fn notice(why: LossCause) -> Notice {
        Notice {
            session: "s5".into(),
            task: "t5".into(),
            holder: "bob".into(),
            why,
            at: at("2026-12-03T21:40:00Z"),
        }
    }

    #[test]
    fn a_notice_reads_back_as_written() {
        for why in [
            LossCause::Provisional,
            LossCause::Rewind,
            LossCause::Taken("no activity for 3h".into()),
            LossCause::ClaimedOver("src/auth/token.ts, src/auth/a.ts".into()),
            LossCause::WrittenBeside("src/auth/token.ts".into()),
            LossCause::Unproven("0123456789abcdef0123456789abcdef01234567".into()),
        ] {
            let n = notice(why);
            assert_eq!(parse(&render(&n)), Some(n.clone()));
            assert_eq!(read("s5", &render(&n)), Some(n));
        }
        assert_eq!(
            render(&notice(LossCause::Taken("stale".into()))),
            "session s5\ntask t5\nholder bob\nwhy taken\nat 2026-12-03T21:40:00Z\nreason stale\n"
        );
    }

    #[test]
    fn hostile_or_misplaced_notices_count_as_none() {
        let mut n = notice(LossCause::Rewind);
        n.holder = "bob\nwhy provisional\u{1b}[31m".into();
        let back = parse(&render(&n)).unwrap();
        assert_eq!(back.why, LossCause::Rewind);
        assert!(!back.holder.contains('\n') && !back.holder.contains('\u{1b}'));
        n.task = "x".repeat(10_000);
        assert_eq!(parse(&render(&n)).unwrap().task.len(), MAX_FIELD);
        // Someone else's notice, or a file this did not write.
        assert_eq!(read("alice", &render(&notice(LossCause::Rewind))), None);
        assert_eq!(
            parse("session s5\ntask t5\nholder bob\nwhy bored\nat 2026-12-03T21:40:00Z\n"),
            None
        );
        assert_eq!(
            parse("session s5\ntask t5\nwhy rewind\nat 2026-12-03T21:40:00Z\n"),
            None
        );
        assert_eq!(parse("not a notice"), None);
        assert_eq!(parse(""), None);
    }

    #[test]
    fn a_take_is_a_notice_for_the_session_taken_from() {
        let line = "2026-12-03T18:02:00Z | taken | billing | session-b | from: session-a | reason: no commit for 2h13m";
        let n = of_log_line(line).unwrap();
        assert_eq!(
            (n.session.as_str(), n.task.as_str(), n.holder.as_str()),
            ("session-a", "billing", "session-b")
        );
        assert_eq!(n.why, LossCause::Taken("no commit for 2h13m".into()));
        assert_eq!(n.at, at("2026-12-03T18:02:00Z"));
        for other in [
            "2026-12-03T18:02:00Z | claimed | billing | session-b",
            "2026-12-03T18:02:00Z | taken | billing | session-b | from: session-b",
            "2026-12-03T18:02:00Z | taken | billing | session-b",
            "garbage",
        ] {
            assert_eq!(of_log_line(other), None, "{other}");
        }
    }

    #[test]
    fn the_message_names_the_task_the_holder_and_why() {
        let said = message(&[
            notice(LossCause::Provisional),
            notice(LossCause::Taken(String::new())),
        ]);
        let lines: Vec<&str> = said.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].starts_with("Rail: s5's claim of t5 is no longer theirs (2026-12-03T21:40:00Z, it was claimed while this machine was not on the shared rail, and bob got t5 there first): bob holds t5. Stop work on t5"), "{}", lines[0]);
        assert!(
            lines[1].contains("(2026-12-03T21:40:00Z, bob took it): bob holds t5"),
            "{}",
            lines[1]
        );
        let many = vec![notice(LossCause::Rewind); MAX_TOLD + 3];
        assert_eq!(message(&many).lines().count(), MAX_TOLD);
    }
}
