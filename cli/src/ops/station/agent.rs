//! An agent's worktree hook (Claude Code's WorktreeCreate and WorktreeRemove, read by core's
//! agent module; docs/agents.md, "Stations"): a station made through the one station code, or
//! closed by the rules of `rail worktree remove`.

use rail_core::agent::{setup, Agent, WorktreeDone, WorktreeEvent};

use super::close::close;
use super::{repo_of, same, survey, target};
use crate::context::Ctx;
use crate::fail::Fail;
use crate::git::repo;

/// An agent's worktree hook (Claude Code's WorktreeCreate and WorktreeRemove, read by core's
/// agent module; docs/agents.md, "Stations"). Create: a station through the one station code
/// (`mutate::station`: the claim, the worktree and branch, the guard), gone back into when
/// its branch has one already, and marked in the worktree's own git directory as made by this
/// agent's hook. Remove: only such a station, closed by the rules of `rail worktree remove`
/// (nothing uncommitted, every commit in the base; never forced). Prints nothing: the hook
/// answers.
pub fn for_agent(ctx: &Ctx, agent: Agent, event: &WorktreeEvent) -> Result<WorktreeDone, Fail> {
    let repo = repo_of(ctx)?;
    match event {
        WorktreeEvent::Create { name } => {
            let made = super::make::station(
                ctx,
                name,
                None,
                None,
                &crate::ops::write::ClaimOptions::default(),
                super::make::Existing::Reenter,
            )?;
            let dir = made.dir_text();
            // The agent starts there at once: a station its hooks do not guard is not handed
            // over (it stays, and the next start goes back into it, guarding it again).
            if let Some(why) = &made.unguarded {
                return Err(Fail::env(format!(
                    "station {dir} (task {name}) is made, but {why}; then start the agent again"
                )));
            }
            if !made.reentered {
                let text = setup::hook_made(agent.name(), &made.task, &made.branch);
                let admin = repo::worktree_dirs(repo)
                    .into_iter()
                    .find(|w| same(&w.path, &made.dir))
                    .and_then(|w| w.admin);
                let marked = admin.is_some_and(|a| {
                    crate::sys::railfile::write_inside(
                        &repo.common_dir,
                        &a.join(setup::HOOK_MADE_FILE),
                        text.as_bytes(),
                        false,
                    )
                    .is_ok()
                });
                if !marked {
                    errln!(
                        "rail: station {dir} could not be marked as made by {}'s worktree hook: its WorktreeRemove will leave it; close it with `rail worktree remove {name}`",
                        agent.title()
                    );
                }
            }
            // Claude Code starts the session in the folder as printed: its real path.
            let real = made.dir.canonicalize().unwrap_or(made.dir);
            Ok(WorktreeDone::Made(real.display().to_string()))
        }
        WorktreeEvent::Remove { path } => {
            let mut survey = survey(ctx, None)?;
            let i = target(&survey, path)?;
            let made = survey
                .dirs
                .get(i)
                .and_then(|d| d.admin.as_ref())
                .and_then(|a| {
                    crate::sys::railfile::read_inside(
                        &repo.common_dir,
                        &a.join(setup::HOOK_MADE_FILE),
                    )
                    .ok()
                    .flatten()
                })
                .is_some_and(|text| setup::made_by_hook(&text, agent.name()));
            if !made {
                return Err(Fail::usage(format!(
                    "{path} was not made by Rail for {}'s worktree hook: it is left as it is (a station is closed with `rail worktree remove`)",
                    agent.title()
                )));
            }
            survey.inspect(ctx, i);
            let closed = close(ctx, &survey, i, false, path)?;
            let mut said = closed.message;
            for note in closed.notes {
                said.push_str("; ");
                said.push_str(&note);
            }
            Ok(WorktreeDone::Closed(said))
        }
    }
}
