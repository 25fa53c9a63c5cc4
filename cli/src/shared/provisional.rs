//! Claims made with `RAIL_LOCAL=1` in a rail shared through a remote: recorded in the git dir
//! as provisional, offered to the shared rail at the next round, and settled there — each one
//! held, or lost to a session that got the task first (whose agent is told).

use std::collections::BTreeMap;
use std::path::PathBuf;

use rail_core::change::snapshot;
use rail_core::formats::log::{LogEntry, LogEvent};

use super::PROVISIONAL;
use crate::context::Ctx;

fn provisional_path(ctx: &Ctx) -> Option<PathBuf> {
    crate::store::gitguard::git_dir_of(&ctx.rail.root).map(|d| d.join("rail").join(PROVISIONAL))
}

/// The provisional claims waiting to be offered, one claims.md line each.
pub fn read_provisional(ctx: &Ctx) -> Vec<String> {
    provisional_path(ctx)
        .and_then(|p| crate::sys::railfile::read_text(&p).ok().flatten())
        .map(|t| {
            t.lines()
                .filter(|l| !l.trim().is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// Forgets the provisional claims `offered` (now on the shared rail, or reported lost); lines
/// recorded meanwhile stay.
fn clear_provisional(ctx: &Ctx, offered: &[String]) {
    if offered.is_empty() {
        return;
    }
    let Some(path) = provisional_path(ctx) else {
        return;
    };
    let left: Vec<String> = read_provisional(ctx)
        .into_iter()
        .filter(|l| !offered.contains(l))
        .collect();
    let _ = if left.is_empty() {
        std::fs::remove_file(&path)
    } else {
        std::fs::write(
            &path,
            left.iter().map(|l| format!("{l}\n")).collect::<String>(),
        )
    };
}

/// What offering the provisional claims gives: the log lines, the messages, and the notices for
/// the sessions that lost theirs (left for them once the round is on the remote).
#[derive(Default)]
pub struct OfferedClaims {
    pub log: Vec<String>,
    pub said: Vec<String>,
    lost: Vec<rail_core::formats::notice::Notice>,
}

/// Offers the provisional claims to the shared state (core's [`snapshot::offer`]): the new
/// claims.md if it changed, and the log lines, messages and notices for each claim, a lost one
/// naming its holder.
pub fn offer_provisional(
    ctx: &Ctx,
    remote: &str,
    files: &BTreeMap<String, String>,
    facts: &rail_core::model::input::Facts,
    lines: &[String],
) -> (Option<String>, OfferedClaims) {
    let config = ctx.settings();
    let holding = rail_core::change::merge::Holding {
        facts,
        lease: config.lease,
        expiring: config.expiring,
    };
    let (claims, offered) = snapshot::offer(files, lines, &holding);
    let (mut log, mut said, mut lost) = (Vec::new(), Vec::new(), Vec::new());
    for o in offered {
        match o {
            snapshot::Offered::Held { task, session } => said.push(format!(
                "{session}'s provisional claim of {task} (made with RAIL_LOCAL=1) is on the shared rail on {remote} now"
            )),
            snapshot::Offered::Lost {
                task,
                session,
                holder,
                line,
            } => {
                said.push(format!(
                    "{session}'s provisional claim of {task} (made with RAIL_LOCAL=1) is LOST: {holder} holds {task} on the shared rail on {remote}; {session} must stop work on it"
                ));
                lost.push(rail_core::formats::notice::Notice {
                    session: session.clone(),
                    task: task.clone(),
                    holder: holder.clone(),
                    why: rail_core::formats::notice::LossCause::Provisional,
                    at: ctx.now,
                });
                log.push(
                    LogEntry::new(ctx.now, LogEvent::Other("lost".into()), Some(&task), Some(&session))
                        .with("to", holder)
                        .with("why", "claimed while not on the shared rail")
                        .with("line", line)
                        .render(),
                );
            }
            snapshot::Offered::Unreadable { line } => said.push(format!(
                "a provisional claim record is not a claim line and was not offered: {line}"
            )),
        }
    }
    (claims, OfferedClaims { log, said, lost })
}

/// The provisional claims are settled on the remote: they leave the record, and a session that
/// lost one finds the notice at its next hook call.
pub fn settle_provisional(ctx: &Ctx, provisional: &[String], offered: &OfferedClaims) {
    clear_provisional(ctx, provisional);
    if let Some(repo) = &ctx.repo {
        for lost in &offered.lost {
            crate::store::notice::post(repo, lost, true);
        }
    }
}

/// After a claim made with `RAIL_LOCAL=1` in a rail configured to share through a remote:
/// records its claims.md line to be offered to the shared rail at the next round, and its log
/// lines in the outbox (so the shared log gets them). Returns what the claimer is told.
pub fn record_provisional(
    ctx: &Ctx,
    session: &str,
    task: &str,
    log_lines: &[String],
) -> Option<String> {
    let remote = ctx.configured_remote().ok().flatten()?;
    // Called under the rail lock this claim was written with.
    let texts = ctx.read(true).ok()?;
    let claims = texts.claims.as_ref()?;
    let doc = rail_core::formats::claims_md::parse(&claims.text);
    let line = doc.lines.iter().find_map(|l| match &l.kind {
        rail_core::formats::claims_md::LineKind::Claim(c)
            if c.task == task && c.session == session =>
        {
            Some(l.content.slice(&claims.text).to_string())
        }
        _ => None,
    })?;
    let path = provisional_path(ctx)?;
    let mut old = read_provisional(ctx);
    if !old.contains(&line) {
        old.push(line);
    }
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let kept = std::fs::write(
        &path,
        old.iter().map(|l| format!("{l}\n")).collect::<String>(),
    );
    let _ = super::outbox::append_outbox(ctx, log_lines);
    Some(match kept {
        Ok(()) => format!(
            "provisional: {task} is claimed on this machine only (RAIL_LOCAL=1), not on the shared rail on {remote}; the next shared operation (`rail sync`) offers it there and says whether another session got {task} first"
        ),
        Err(e) => format!(
            "provisional: {task} is claimed on this machine only (RAIL_LOCAL=1), and recording it for the shared rail on {remote} failed ({}: {e}): it will not be offered there",
            path.display()
        ),
    })
}
