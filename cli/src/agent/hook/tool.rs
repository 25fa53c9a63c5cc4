//! A tool call's writes judged: where each path lands (every symlink followed), the verdict of
//! the rail of the repository it lands in (core's one hook judge), the denial logged; and after
//! the tool, what it wrote into other live sessions' paths put back (`agent::after`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use rail_core::agent::flight::{FlightHit, FlightStanding};
use rail_core::agent::hook::{self, Decision};
use rail_core::agent::{self, Agent, Outcome};
use rail_core::formats::log::{LogEntry, LogEvent};
use rail_core::model::Rail;
use rail_core::text::ident::Acting;

use super::watchdog::fail_safe;
use super::Here;
use crate::context::{Commits, Ctx};
use crate::git::repo::{self, Repo};

/// Symlinks followed before Rail gives up on a path (the kernel's own limit is 40).
const MAX_SYMLINKS: usize = 40;

/// After a tool call: what it wrote into other live sessions' paths is put back where Rail
/// can, logged, and told to the agent (`crate::agent::after`).
pub fn after_tool(ctx: &Ctx, agent: Agent, call: &agent::Call, here: &Here) -> Outcome {
    let Some(session) = here.session() else {
        return Outcome::Allow;
    };
    let by = format!("hook {}", agent.name());
    // What it wrote of the paths it named, now this session's work in flight.
    crate::agent::flight::after(ctx, session, &here.cwd, call.call_id.as_deref());
    match crate::agent::after::after(ctx, session, &here.cwd, call.call_id.as_deref(), &by) {
        Some(message) => Outcome::After(message),
        None => Outcome::Allow,
    }
}

/// Before a tool call: each path it writes is judged against the rail of the repository it
/// lands in (symlinks followed), with what could not be analysed.
pub fn pre_tool_use(
    ctx: &Ctx,
    agent: Agent,
    here: &Here,
    raw_targets: &[String],
    unanalysed: &[String],
    commits: &[rail_core::agent::shell::GitCommit],
) -> Outcome {
    let acting = match &here.acting {
        Some(Ok(a)) => a,
        Some(Err(e)) => return fail_safe(e),
        None => return fail_safe("no rail to judge by"),
    };
    let cwd = here.cwd.canonicalize().unwrap_or_else(|_| here.cwd.clone());
    let landings: Vec<(String, hook::Landing)> = raw_targets
        .iter()
        .map(|t| (t.clone(), land(&cwd, t)))
        .collect();
    // This repository's verdict (with what could not be judged), then one per other repository
    // a path lands in (a Cursor workspace's second root, a Gemini write into a station from
    // another checkout): each path is judged against the rail of the repository it lands in.
    let ours = checkouts(ctx);
    let mut in_flight = Vec::new();
    let primary = match verdict_in(
        ctx,
        &ours,
        acting,
        &landings,
        unanalysed,
        Some((&here.cwd, &mut in_flight)),
    ) {
        Ok(v) => v,
        Err(e) => return fail_safe(&e),
    };
    let mut judged: Vec<(Ctx, hook::HookVerdict)> = Vec::new();
    let mut elsewhere: Vec<(Repo, Vec<(String, hook::Landing)>)> = Vec::new();
    let common = ctx.repo.as_ref().map(|r| r.common_dir.clone());
    for (written, landing) in &landings {
        let hook::Landing::At(at) = landing else {
            continue;
        };
        if hook::in_checkouts(&ours, at) {
            continue;
        }
        let Some(other) = repo_of(Path::new(at)) else {
            continue;
        };
        // A repository with no rail has no claims to judge against.
        let has_rail = crate::store::holds_rail_files(&other.main_checkout());
        if Some(&other.common_dir) == common.as_ref() || !has_rail {
            continue;
        }
        match elsewhere
            .iter_mut()
            .find(|(r, _)| r.common_dir == other.common_dir)
        {
            Some((_, list)) => list.push((written.clone(), landing.clone())),
            None => elsewhere.push((other, vec![(written.clone(), landing.clone())])),
        }
    }
    for (other, list) in elsewhere {
        let octx = ctx.for_repo(other);
        let theirs = checkouts(&octx);
        match verdict_in(&octx, &theirs, acting, &list, &[], None) {
            Ok(Some(v)) => judged.push((octx, v)),
            Ok(None) => {}
            Err(e) => return fail_safe(&e),
        }
    }
    for (c, v) in &judged {
        if v.decision == Decision::Deny {
            log_refusal(c, here.session(), agent, v, &[]);
        }
    }
    if let Some(v) = primary.as_ref().filter(|v| v.decision == Decision::Deny) {
        log_refusal(ctx, here.session(), agent, v, &in_flight);
    }
    let all: Vec<hook::HookVerdict> = primary
        .into_iter()
        .chain(judged.into_iter().map(|(_, v)| v))
        .collect();
    // A commit in a shell command: what it would take of other sessions' work in flight, judged
    // here as well as by the pre-commit hook, which some agents' shells turn off.
    let sweep = match (commits.is_empty(), here.session()) {
        (false, Some(session)) => crate::ops::check::commit_sweep(ctx, session, &here.cwd, commits),
        _ => None,
    };
    if let Some(crate::ops::check::CommitSweep::Refused {
        message,
        path,
        holder,
    }) = &sweep
    {
        log_sweep(ctx, here.session(), agent, path, holder);
        return Outcome::Deny(message.clone());
    }
    let note = match sweep {
        Some(crate::ops::check::CommitSweep::Noted(note)) => Some(note),
        _ => None,
    };
    if all.is_empty() {
        return note.map_or(Outcome::Allow, Outcome::Warn);
    }
    let verdict = hook::combine(all);
    let message = || {
        let said = crate::out::hint::say(&verdict.message, verdict.hint.as_ref());
        match &note {
            Some(note) => format!("{said}\n{note}"),
            None => said,
        }
    };
    match verdict.decision {
        Decision::Deny => Outcome::Deny(message()),
        Decision::Warn => Outcome::Warn(message()),
        Decision::Allow => note.map_or(Outcome::Allow, Outcome::Warn),
    }
}

/// A commit refused before it ran for sweeping `holder`'s uncommitted `path` in, logged.
fn log_sweep(ctx: &Ctx, session: Option<&str>, agent: Agent, path: &str, holder: &str) {
    let Ok(lock) = ctx.lock_within(session.unwrap_or("hook"), Some(Duration::from_millis(500)))
    else {
        return;
    };
    let texts = rail_core::model::input::RailTexts::default();
    let line = LogEntry::new(ctx.now, LogEvent::Refused, None, session)
        .with("path", path.to_string())
        .with("holder", holder.to_string())
        .with("reason", "commit sweeps in flight")
        .with("by", format!("hook {}", agent.name()))
        .render();
    let _ = crate::shared::record_local(ctx, &lock, &texts, &[line]);
}

/// Every checkout of `ctx`'s repository, symlinks resolved.
pub fn checkouts(ctx: &Ctx) -> Vec<String> {
    ctx.repo
        .as_ref()
        .map(|r| {
            repo::worktrees(r)
                .into_iter()
                .map(|(p, _)| p.canonicalize().unwrap_or(p))
                .map(|p| p.display().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The repository holding `at` (which may not exist yet): found from its nearest existing
/// directory by reading `.git` files, as for the working directory.
fn repo_of(at: &Path) -> Option<crate::git::repo::Repo> {
    let mut dir = at;
    loop {
        if dir.is_dir() {
            return repo::discover(dir);
        }
        dir = dir.parent()?;
    }
}

/// `ctx`'s rail's verdict on the landings in its repository's checkouts, and on `unanalysed`;
/// `None` when nothing of it is this rail's to judge.
///
/// `worktrees`: every checkout of this repository, symlinks resolved ([`checkouts`]): a path is
/// judged in whichever one it lands in. `flight`: where the agent works, and where to put the
/// other sessions' work in flight there that the call would write over (the agent's own
/// repository only: work in flight is a shared checkout's).
fn verdict_in(
    ctx: &Ctx,
    worktrees: &[String],
    acting: &Acting,
    landings: &[(String, hook::Landing)],
    unanalysed: &[String],
    flight: Option<(&Path, &mut Vec<FlightHit>)>,
) -> Result<Option<hook::HookVerdict>, String> {
    let rail_root = ctx
        .rail
        .root
        .canonicalize()
        .ok()
        .map(|p| p.display().to_string());
    let landed = hook::land(worktrees, rail_root.as_deref(), landings);
    let mut unanalysed = unanalysed.to_vec();
    unanalysed.extend(landed.unanalysed);
    if landed.targets.is_empty() && unanalysed.is_empty() {
        return Ok(None);
    }
    // Not claims.log: it only grows, and judging never reads it.
    let texts = ctx.read_claims().map_err(|f| f.message)?;
    let mode = ctx.settings().hook_unanalysed;
    let rail = Rail::load(&texts);
    let eval = ctx.judge(&rail, Commits::IfNeeded).eval;
    let mut none = Vec::new();
    let actor = match acting {
        Acting::Session(s) => s.as_str(),
        Acting::Unnamed(_) => "",
    };
    let (hits, call) = match flight {
        Some((cwd, hits)) => {
            let (found, call) =
                crate::agent::flight::before_write(ctx, &eval, actor, cwd, &landed.targets);
            *hits = found;
            (hits, call)
        }
        None => (&mut none, rail_core::agent::flight::CallOut::None),
    };
    let verdict = hook::judge(&eval, acting, &landed.targets, &unanalysed, mode, hits);
    Ok(Some(rail_core::agent::flight::join_call(verdict, &call)))
}

/// Where a write of `written` (relative to `cwd`, or absolute) lands: every symlink on the way
/// followed, also one that points at something that does not exist yet (the write creates it
/// there); the part that does not exist, and a glob tail, appended as written. The rule — what
/// a landing means — is core's (`hook::land`); this is only the file system's answer.
fn land(cwd: &Path, written: &str) -> hook::Landing {
    use std::collections::VecDeque;
    use std::path::Component;
    let path = cwd.join(written);
    let mut at = PathBuf::new();
    let mut rest: VecDeque<std::ffi::OsString> = VecDeque::new();
    for c in path.components() {
        match c {
            Component::Prefix(_) | Component::RootDir => at.push(c.as_os_str()),
            other => rest.push_back(other.as_os_str().to_owned()),
        }
    }
    let mut exists = true;
    let mut hops = 0;
    while let Some(part) = rest.pop_front() {
        let text = part.to_string_lossy();
        if text == "." {
            continue;
        }
        if text == ".." {
            // `at` has no symlinks in it, so its parent is the physical parent.
            at.pop();
            continue;
        }
        if !exists || text.contains(['*', '?', '[', '{']) {
            // Past what exists, or a pattern: the rest as written.
            exists = false;
            at.push(&part);
            continue;
        }
        let next = at.join(&part);
        match std::fs::symlink_metadata(&next) {
            Ok(m) if m.file_type().is_symlink() => {
                hops += 1;
                if hops > MAX_SYMLINKS {
                    return hook::Landing::Unresolved(format!(
                        "more than {MAX_SYMLINKS} symlinks, a loop at {}",
                        next.display()
                    ));
                }
                let target = match std::fs::read_link(&next) {
                    Ok(t) => t,
                    Err(e) => return hook::Landing::Unresolved(format!("{}: {e}", next.display())),
                };
                if target.has_root() {
                    at = PathBuf::new();
                }
                let mut parts: Vec<std::ffi::OsString> = Vec::new();
                for c in target.components() {
                    match c {
                        Component::Prefix(_) | Component::RootDir => at.push(c.as_os_str()),
                        other => parts.push(other.as_os_str().to_owned()),
                    }
                }
                for p in parts.into_iter().rev() {
                    rest.push_front(p);
                }
            }
            Ok(_) => at = next,
            Err(e)
                if e.kind() == std::io::ErrorKind::NotFound
                    || e.kind() == std::io::ErrorKind::NotADirectory =>
            {
                exists = false;
                at = next;
            }
            Err(e) => return hook::Landing::Unresolved(format!("{}: {e}", next.display())),
        }
    }
    hook::Landing::At(at.display().to_string())
}

/// Denials are recorded, so a person can see what agents were kept from doing.
fn log_refusal(
    ctx: &Ctx,
    session: Option<&str>,
    agent: Agent,
    verdict: &hook::HookVerdict,
    in_flight: &[FlightHit],
) {
    // A denial must not wait long on the lock just to be logged.
    let Ok(lock) = ctx.lock_within(session.unwrap_or("hook"), Some(Duration::from_millis(500)))
    else {
        return;
    };
    // Only a line appended (opened without following links, like every rail file): no file is
    // planned on, so none is read — claims.log above all, which only grows.
    let texts = rail_core::model::input::RailTexts::default();
    let live = in_flight
        .iter()
        .find(|h| h.standing == FlightStanding::Live);
    let line = match (verdict.held.first(), live) {
        (Some(first), _) => {
            LogEntry::new(ctx.now, LogEvent::Refused, first.task.as_deref(), session)
                .with("path", first.path.clone())
                .with("holder", first.session.clone())
        }
        // Denied because another session's uncommitted change is in the file.
        (None, Some(hit)) => LogEntry::new(ctx.now, LogEvent::Refused, None, session)
            .with("path", hit.path.clone())
            .with("holder", hit.session.clone())
            .with("reason", "in flight"),
        // Denied because it could not be judged (`hook_unanalysed: deny`).
        (None, None) => {
            LogEntry::new(ctx.now, LogEvent::Refused, None, session).with("reason", "not analysed")
        }
    }
    .with("by", format!("hook {}", agent.name()))
    .render();
    let _ = crate::shared::record_local(ctx, &lock, &texts, &[line]);
}
