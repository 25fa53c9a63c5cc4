//! Notices: what a session must hear about a claim it lost, told at its agent's next hook call.
//!
//! A claim can stop being a session's without the session doing anything: a provisional claim
//! (made with `RAIL_LOCAL=1`) that another machine's session got first, a claim a rewound shared
//! rail dropped when it was merged back, a stale claim another session took. The log records
//! each; the session that was told it holds the task must be told it no longer does, in the one
//! place its agent looks — the answer to its next hook call — not only find it later in the log.
//!
//! The host keeps one small file per notice under `<git common dir>/rail/notices/<session>/`
//! (the session's name as [`crate::agent::heartbeat::file_name`] writes it), made where the loss is
//! found and removed once told. This module writes and reads a notice's text, says which log
//! lines are such a loss ([`of_log_line`]), and how a notice joins the hook's answer ([`tell`]):
//! a tool call about to run is stopped once with the notice (every agent shows a denial to its
//! model; a warning some only show the person), a tool call that ran is answered with it, and a
//! Stop or session end carries it for the person (the agent always stops).

use crate::agent::Outcome;
use crate::text::time::{format_time, parse_time, Time};

/// The longest field kept (task, holder, reason): a notice's text is the rail's to fill, but
/// a notice file is within any agent's reach.
const MAX_FIELD: usize = 200;
/// The most notices told in one answer; the rest wait for the next call.
pub const MAX_TOLD: usize = 8;

/// Why the claim is no longer the session's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Why {
    /// Claimed with `RAIL_LOCAL=1` while the shared rail could not be reached; the holder got
    /// the task on the shared rail first.
    Provisional,
    /// The shared rail was rewound (force-pushed back, restored) and merged back; the merge
    /// kept the holder's claim.
    Rewind,
    /// The holder took the claim (it had gone stale); the reason as the take gave it.
    Taken(String),
}

/// One lost claim, for its session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    /// The session that lost the claim (the notice's addressee).
    pub session: String,
    pub task: String,
    /// Who holds the task now.
    pub holder: String,
    pub why: Why,
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
        Why::Provisional => ("provisional", None),
        Why::Rewind => ("rewind", None),
        Why::Taken(r) => ("taken", Some(r)),
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
        "provisional" => Why::Provisional,
        "rewind" => Why::Rewind,
        "taken" => Why::Taken(reason.unwrap_or_default()),
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
    parse(text).filter(|n| crate::agent::heartbeat::file_name(&n.session) == folder)
}

/// The loss a log line records, as a notice for the session that lost the claim: a take
/// (`taken … | from: <them>`). `None` for any other line, and for a session taking its own.
pub fn of_log_line(line: &str) -> Option<Notice> {
    let log = crate::formats::log::parse(line);
    let entry = log.entries.first()?;
    if entry.event != crate::formats::log::Event::Taken {
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
        why: Why::Taken(entry.details.get("reason").cloned().unwrap_or_default()),
        at: entry.time,
    })
}

/// What the session is told, one sentence per notice (at most [`MAX_TOLD`]).
pub fn message(notices: &[Notice]) -> String {
    let mut out = String::new();
    for n in notices.iter().take(MAX_TOLD) {
        let how = match &n.why {
            Why::Provisional => format!(
                "it was claimed while this machine was not on the shared rail, and {} got {} there first",
                n.holder, n.task
            ),
            Why::Rewind => format!(
                "the shared rail was rewound and merged back, and the merge kept {}'s claim",
                n.holder
            ),
            Why::Taken(r) if r.is_empty() => format!("{} took it", n.holder),
            Why::Taken(r) => format!("{} took it ({r})", n.holder),
        };
        if !out.is_empty() {
            out.push('\n');
        }
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

/// Where the hook call stands, for [`tell`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Call {
    /// Before a tool call.
    BeforeTool,
    /// After a tool call.
    AfterTool,
    /// A Stop or session end.
    Lifecycle,
}

/// The hook's `outcome` with `notices` told. Before a tool, the call is stopped (once: the
/// host removes the notices it told), its own answer kept after the notice; after a tool, the
/// notice is the after-tool message (with any of its own); at a Stop or session end it goes to
/// the person. No notices: the outcome as it was.
pub fn tell(outcome: Outcome, call: Call, notices: &[Notice]) -> Outcome {
    if notices.is_empty() {
        return outcome;
    }
    let said = message(notices);
    let join = |own: String| {
        if own.trim().is_empty() {
            said.clone()
        } else {
            format!("{said}\n{own}")
        }
    };
    match (call, outcome) {
        // A worktree's answer is its path alone (or the refusal): a notice waits for the next call.
        (_, worktree @ Outcome::Worktree(_)) => worktree,
        (_, Outcome::Lifecycle(own)) => Outcome::Lifecycle(Some(join(own.unwrap_or_default()))),
        (Call::BeforeTool, Outcome::Deny(own)) => Outcome::Deny(join(own)),
        (Call::BeforeTool, Outcome::Allow) => Outcome::Deny(format!(
            "{said}\nThis tool call was not run, so that the notice is read; the next one is judged as usual."
        )),
        (Call::BeforeTool, Outcome::Warn(own)) => Outcome::Deny(format!(
            "{}\nThis tool call was not run, so that the notice is read; the next one is judged as usual.",
            join(own)
        )),
        (_, Outcome::After(own)) => Outcome::After(join(own)),
        (Call::AfterTool, Outcome::Allow) => Outcome::After(said),
        (Call::AfterTool, Outcome::Warn(own)) | (Call::AfterTool, Outcome::Deny(own)) => {
            Outcome::After(join(own))
        }
        (Call::Lifecycle, other) => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(t: &str) -> Time {
        parse_time(t).unwrap()
    }

    fn notice(why: Why) -> Notice {
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
            Why::Provisional,
            Why::Rewind,
            Why::Taken("no activity for 3h".into()),
        ] {
            let n = notice(why);
            assert_eq!(parse(&render(&n)), Some(n.clone()));
            assert_eq!(read("s5", &render(&n)), Some(n));
        }
        assert_eq!(
            render(&notice(Why::Taken("stale".into()))),
            "session s5\ntask t5\nholder bob\nwhy taken\nat 2026-12-03T21:40:00Z\nreason stale\n"
        );
    }

    #[test]
    fn hostile_or_misplaced_notices_count_as_none() {
        let mut n = notice(Why::Rewind);
        n.holder = "bob\nwhy provisional\u{1b}[31m".into();
        let back = parse(&render(&n)).unwrap();
        assert_eq!(back.why, Why::Rewind);
        assert!(!back.holder.contains('\n') && !back.holder.contains('\u{1b}'));
        n.task = "x".repeat(10_000);
        assert_eq!(parse(&render(&n)).unwrap().task.len(), MAX_FIELD);
        // Someone else's notice, or a file this did not write.
        assert_eq!(read("alice", &render(&notice(Why::Rewind))), None);
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
        assert_eq!(n.why, Why::Taken("no commit for 2h13m".into()));
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
        let said = message(&[notice(Why::Provisional), notice(Why::Taken(String::new()))]);
        let lines: Vec<&str> = said.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].starts_with("Rail: s5's claim of t5 is no longer theirs (2026-12-03T21:40:00Z, it was claimed while this machine was not on the shared rail, and bob got t5 there first): bob holds t5. Stop work on t5"), "{}", lines[0]);
        assert!(
            lines[1].contains("(2026-12-03T21:40:00Z, bob took it): bob holds t5"),
            "{}",
            lines[1]
        );
        let many = vec![notice(Why::Rewind); MAX_TOLD + 3];
        assert_eq!(message(&many).lines().count(), MAX_TOLD);
    }

    #[test]
    fn a_notice_stops_the_next_tool_call_once_and_rides_on_every_other_answer() {
        let ns = [notice(Why::Rewind)];
        let said = message(&ns);
        let deny = |o: Outcome| match o {
            Outcome::Deny(m) => m,
            other => panic!("{other:?}"),
        };
        let m = deny(tell(Outcome::Allow, Call::BeforeTool, &ns));
        assert!(m.starts_with(&said) && m.contains("was not run"), "{m}");
        let m = deny(tell(Outcome::Warn("w".into()), Call::BeforeTool, &ns));
        assert!(m.starts_with(&format!("{said}\nw\n")), "{m}");
        assert_eq!(
            deny(tell(Outcome::Deny("own".into()), Call::BeforeTool, &ns)),
            format!("{said}\nown")
        );
        assert_eq!(
            tell(Outcome::Allow, Call::AfterTool, &ns),
            Outcome::After(said.clone())
        );
        assert_eq!(
            tell(Outcome::After("put back".into()), Call::AfterTool, &ns),
            Outcome::After(format!("{said}\nput back"))
        );
        assert_eq!(
            tell(Outcome::Lifecycle(None), Call::Lifecycle, &ns),
            Outcome::Lifecycle(Some(said.clone()))
        );
        for o in [
            Outcome::Allow,
            Outcome::Lifecycle(None),
            Outcome::Deny("d".into()),
        ] {
            assert_eq!(tell(o.clone(), Call::BeforeTool, &[]), o);
        }
    }
}
