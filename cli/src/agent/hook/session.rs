//! Who a hook call acts for, and the calls about a session rather than a tool: where the agent
//! works, the session there (core's reading of `--session`/`RAIL_SESSION` and the branch), a
//! Stop's renewal or a session end's release, and a worktree event's station.

use std::path::{Path, PathBuf};

use rail_core::agent::{self, Agent, Event, WorktreeDone, WorktreeEvent};
use rail_core::change::ops::Request;
use rail_core::formats::config::OnStop;
use rail_core::model::Rail;
use rail_core::text::ident::{self, Acting};

use super::Here;
use crate::context::{Commits, Ctx};
use crate::git::repo;

/// Where a call stands for a notice: the calls whose answer an agent reads.
pub fn notice_call(event: &Event) -> Option<rail_core::agent::hook::CallStage> {
    use rail_core::agent::hook::CallStage as Call;
    match event {
        Event::Tool { .. } => Some(Call::BeforeTool),
        Event::AfterTool { .. } => Some(Call::AfterTool),
        Event::Stop | Event::SessionEnd => Some(Call::Lifecycle),
        // A task-list event answers for itself (a notice waits for the next tool call).
        Event::Pass | Event::Malformed(_) | Event::Worktree(_) | Event::Task(_) => None,
    }
}

/// A worktree event: the station made or closed (`ops::station::agent`), or Rail's reason why
/// not.
pub fn worktree(ctx: &Ctx, agent: Agent, event: &WorktreeEvent) -> Result<WorktreeDone, String> {
    crate::ops::station::agent::for_agent(ctx, agent, event)
        .map_err(|f| format!("Rail: {}", f.message))
}

/// Where the agent works, as the payload or the agent's environment says (the sender's own
/// variables first: some agents also set another's, e.g. `CLAUDE_PROJECT_DIR`).
pub fn agent_dir(call: &agent::Call) -> Option<PathBuf> {
    call.cwd.as_deref().map(PathBuf::from).or_else(|| {
        std::iter::once(call.harness.sender)
            .chain(agent::AGENTS.iter().copied())
            .flat_map(|a| a.project_dir_vars().iter())
            .find_map(|v| crate::sys::env::var_os(v).filter(|d| !d.is_empty()))
            .map(PathBuf::from)
    })
}

/// Where the agent works, else this process's working directory.
pub fn call_cwd(call: &agent::Call) -> PathBuf {
    agent_dir(call)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default()
}

/// Who acts in `cwd`: RAIL_SESSION / --session, else the calling agent's own session under that
/// checkout's branch (its payload's session id; the branch alone when it sends none). A branch
/// that cannot be a session name (`fix$(id)`) and a detached HEAD are valid situations, not
/// failures: that agent simply holds no claim. `Err` only when `cwd` is not in a git checkout
/// at all.
pub fn acting_at(ctx: &Ctx, call: &agent::Call, cwd: &Path) -> Result<Acting, String> {
    let branch = match ctx.explicit_session() {
        Some(_) => None,
        None => repo::discover(cwd)
            .ok_or_else(|| format!("{} is not in a git checkout", cwd.display()))?
            .branch(),
    };
    Ok(ident::acting(
        ctx.explicit_session(),
        branch.as_deref(),
        call.agent_self(),
    ))
}

/// Stop renews every claim of the session (the agent is active); session end releases them, or
/// renews, or does nothing (rail.yaml `on_stop`). The lock wait is capped by the caller
/// (`Ctx::lock_cap`) to fit the agent's limit for the event.
pub fn on_lifecycle(ctx: &Ctx, call: &agent::Call, here: &Here) -> Result<(), String> {
    let session = match &here.acting {
        Some(Ok(Acting::Session(s))) => s,
        Some(Err(e)) => return Err(e.clone()),
        // Nothing can be held under no name: nothing to renew or release.
        _ => return Ok(()),
    };
    if call.event == Event::SessionEnd {
        // What it leaves uncommitted stays named to the others, no longer blocking them.
        crate::agent::flight::end(ctx, session);
    }
    let texts = ctx.read(false).map_err(|f| f.message)?;
    let what = match call.event {
        Event::SessionEnd => ctx.settings().on_stop,
        _ => OnStop::Renew,
    };
    let rail = Rail::load(&texts);
    let eval = ctx.judge(&rail, Commits::IfNeeded).eval;
    let tasks =
        rail_core::agent::hook::lifecycle_tasks(&eval, session, call.event == Event::SessionEnd);
    for task in tasks {
        let request = match what {
            OnStop::Nothing => return Ok(()),
            OnStop::Renew => Request::Renew { task },
            OnStop::Release => Request::Release {
                touched: crate::ops::touched::recorded(crate::ops::touched::touched_files(
                    ctx, None,
                )),
                task,
                done: false,
            },
        };
        crate::ops::write::mutate(ctx, session, request).map_err(|f| f.message)?;
    }
    Ok(())
}
