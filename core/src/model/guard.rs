//! Guard status on the board: which Rail hook mark speaks for a session (its own, or one of an
//! agent working under it), whether it could have seen the session's claims, and core's words
//! for it, shown as they are by every host.

use crate::formats::heartbeat::HookSeen;
use crate::model::board::{SessionHook, SessionView};
use crate::model::input::Facts;
use crate::text::time::{format_duration, format_time, Time};

/// How long after a session's last Rail hook mark a claim it makes is still covered by that
/// mark: a mark is rewritten at most every 30 s on its machine and shared at most every 5 min
/// (`formats::heartbeat`), so a claim made just after a hook call is not called unguarded until
/// the next mark lands.
pub const MARK_VOUCHES: chrono::TimeDelta = chrono::TimeDelta::minutes(10);

/// The newest hook mark that speaks for `session`: its own, or one of an agent working under
/// it (an agent's hooks mark its own session, `main~claude-…`, while the claims it works on may
/// be its branch's, `main`).
fn guard_mark<'f>(facts: &'f Facts, session: &str) -> Option<&'f HookSeen> {
    facts
        .hooks
        .iter()
        .filter(|(name, _)| *name == session || crate::text::ident::is_above(session, name))
        .map(|(_, seen)| seen)
        .max_by_key(|seen| seen.at)
}

/// Core's words for a session's guard status (see [`SessionView::guard_text`]).
fn guard_text(view: &SessionView, holds: bool, before_claims: bool) -> String {
    match &view.hook {
        Some(h) if before_claims => format!(
            "Rail hook last seen {}, before its claims: its agent may work unguarded",
            h.seen_text
        ),
        Some(h) => format!(
            "guarded: {} {}{}",
            h.agent,
            h.seen_text,
            h.host
                .as_deref()
                .map(|m| format!(" on {m}"))
                .unwrap_or_default()
        ),
        None if holds => "no Rail hook seen: its agent may work unguarded".to_string(),
        None if view.claims.is_empty() => String::new(),
        None => "no Rail hook seen".to_string(),
    }
}

/// Sets `view`'s guard status: the newest mark speaking for it, and whether it is unguarded —
/// it holds a claim and no mark was seen, or the newest claim that holds (`newest`) came more
/// than [`MARK_VOUCHES`] after the mark (a mark older than it never saw it).
pub(super) fn judge(view: &mut SessionView, facts: &Facts, newest: Option<Time>) {
    let mark = guard_mark(facts, &view.name);
    view.hook = mark.map(|seen| {
        let ago = facts.now - seen.at;
        SessionHook {
            agent: seen.agent.clone(),
            version: seen.version.clone(),
            seen_at: format_time(seen.at),
            seen_text: if ago < chrono::TimeDelta::minutes(1) {
                "just now".to_string()
            } else {
                format!("{} ago", format_duration(ago))
            },
            host: seen.host.clone(),
        }
    });
    let seen = mark.map(|s| s.at);
    let holds = view.live + view.expiring > 0;
    let before_claims = matches!((seen, newest), (Some(s), Some(n)) if s + MARK_VOUCHES < n);
    view.unguarded = holds && (seen.is_none() || before_claims);
    view.guard_text = guard_text(view, holds, before_claims);
}
