//! Which rail task each of an agent session's task-list ids became (Claude Code's agent teams:
//! a `TaskUpdate` names only the list's id): `<git common dir>/rail/tasks/<agent>-<session id>/<list
//! id>`, holding the task. Local state beside the guard marks, never shared; core names the
//! folder and reads a file (`rail_core::agent::team`).

use std::path::PathBuf;

use rail_core::agent::team;

use crate::git::repo::Repo;

/// The folder under `<git common dir>/rail`.
const DIR: &str = "tasks";
/// A mapping file holds one task id.
const MAX_BYTES: u64 = 1024;

fn file(repo: &Repo, agent: &str, session_id: &str, list_id: &str) -> Option<PathBuf> {
    let dir = team::map_dir(agent, session_id)?;
    Some(
        repo.common_dir
            .join("rail")
            .join(DIR)
            .join(dir)
            .join(list_id),
    )
}

/// Keeps that `list_id` of `agent`'s session `session_id` is rail task `task`.
pub fn remember(
    repo: &Repo,
    agent: &str,
    session_id: &str,
    list_id: &str,
    task: &str,
) -> std::io::Result<()> {
    let Some(path) = file(repo, agent, session_id, list_id) else {
        return Ok(());
    };
    crate::sys::railfile::write_inside_as(
        &repo.common_dir,
        &path,
        format!("{task}\n").as_bytes(),
        false,
        false,
    )
}

/// The rail task `list_id` of that session became, when Rail saw it created.
pub fn recall(repo: &Repo, agent: &str, session_id: &str, list_id: &str) -> Option<String> {
    let path = file(repo, agent, session_id, list_id)?;
    let (bytes, _) = crate::sys::railfile::read_max(&path, MAX_BYTES).ok()??;
    team::mapped(&String::from_utf8(bytes).ok()?)
}
