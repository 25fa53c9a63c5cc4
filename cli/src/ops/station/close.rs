//! Closing a station, as core's `station::removal` allows. Removal order, so that a refusal at
//! any step leaves the most behind: `git worktree remove` (which checks again, itself, and
//! refuses a dirty tree unless forced), then the claims released under the lock with the
//! removal logged in the same write, then the branch deleted only if it is still at the commit
//! that was judged merged.

use std::path::{Path, PathBuf};

use rail_core::change::ops::Request;
use rail_core::formats::log::{LogEntry, LogEvent};
use rail_core::model::station::{self, Removal, StationFacts};

use super::{repo_of, same, survey, Survey};
use crate::context::Ctx;
use crate::fail::{self, Fail};
use crate::git;

/// What closing a station did.
#[derive(Debug, serde::Serialize)]
pub struct Closed {
    pub path: String,
    pub branch: Option<String>,
    pub forced: bool,
    /// Tasks released.
    pub released: Vec<String>,
    pub branch_deleted: bool,
    /// Why the branch is kept (when there is one and it was not deleted).
    pub branch_kept: Option<String>,
    /// What went wrong after the worktree was removed (a release refused, the branch moved).
    pub notes: Vec<String>,
    pub message: String,
}

/// The refusal of a removal as the CLI reports it: exit 1, the message with its hint as a
/// command line; the JSON keeps core's verdict (its hint as data, for the editor's button).
pub fn refused(verdict: &Removal) -> Fail {
    Fail {
        code: fail::REFUSED,
        message: crate::out::hint::say(&verdict.message, verdict.hint.as_ref()),
        json: Some(serde_json::json!({ "ok": false, "refusal": verdict })),
    }
}

/// Closes station `i` of `survey` if core allows it: removes the worktree, releases its claims
/// (logged with the removal), deletes its branch when merged. A refusal changes nothing.
pub fn close(
    ctx: &Ctx,
    survey: &Survey,
    i: usize,
    force: bool,
    named: &str,
) -> Result<Closed, Fail> {
    close_logged(ctx, survey, i, force, named, &[])
}

/// [`close`], with `details` added to the log line of the removal (`rail worktree prune`'s).
pub fn close_logged(
    ctx: &Ctx,
    survey: &Survey,
    i: usize,
    force: bool,
    named: &str,
    details: &[(&str, String)],
) -> Result<Closed, Fail> {
    let repo = repo_of(ctx)?;
    let station = survey
        .stations
        .get(i)
        .ok_or_else(|| Fail::usage("no such station"))?;
    let verdict = station::removal(station, force, named);
    if !verdict.allowed {
        return Err(refused(&verdict));
    }
    let f = &station.facts;
    let path = PathBuf::from(&f.path);
    // What each released claim touched, read before the directory goes (as `rail release`
    // records it: the station's changes since it forked from the base).
    let touched = git::session_changes(&path, survey.base_commit.as_deref())
        .map(|files| crate::ops::touched::without_rail_files(ctx, &path, files))
        .unwrap_or_default();
    let main = repo.main_checkout();
    // Who closes it, asked before: from inside the station, its branch is gone afterwards.
    let acting = ctx.session().ok();
    // A detached HEAD's commits may be in no ref: a branch keeps them before the worktree (and
    // its HEAD's reflog) goes, or nothing is removed.
    let rescued = match &verdict.rescue {
        Some(name) => Some(rescue(&main, name, f.head.as_deref(), &f.path)?),
        None => None,
    };
    // git checks again and refuses a tree with changes unless forced: what appeared since the
    // verdict is never lost without --force.
    let mut line = git::GitLine::new(&["worktree", "remove"]);
    if verdict.forced {
        line = line.opt("--force");
    }
    git::run(&main, &line.operand(f.path.as_str())).map_err(|e| {
        Fail::env(format!(
            "removing the worktree {}: {e}; nothing was changed{}",
            f.path,
            rescued
                .as_deref()
                .map(|b| format!(" except the branch {b}, made to keep its commits"))
                .unwrap_or_default()
        ))
    })?;

    let line = removal_line(
        ctx,
        &verdict,
        f,
        rescued.as_deref(),
        acting.as_deref(),
        details,
    );
    let (released, notes) = release_all(ctx, &verdict, &touched, line, acting.as_deref());
    let mut branch_deleted = false;
    let mut branch_kept = verdict.keep_branch.clone();
    if let (true, Some(branch), Some(head)) = (verdict.delete_branch, &f.branch, &f.head) {
        // Only if it still points where it was judged merged: a commit made since keeps it.
        let refname = format!("refs/heads/{branch}");
        match git::run(
            &main,
            &git::GitLine::new(&["update-ref", "-d"])
                .operand(refname.as_str())
                .operand(head),
        ) {
            Ok(_) => branch_deleted = true,
            Err(e) => branch_kept = Some(format!("it could not be deleted: {e}")),
        }
    }

    let message = closed_message(
        survey,
        &verdict,
        f,
        &released,
        rescued.as_deref(),
        branch_deleted,
        branch_kept.as_deref(),
    );
    Ok(Closed {
        path: f.path.clone(),
        branch: f.branch.clone(),
        forced: verdict.forced,
        released,
        branch_deleted,
        branch_kept,
        notes,
        message,
    })
}

/// The log line that says a station was removed (and, forced, over what).
fn removal_line(
    ctx: &Ctx,
    verdict: &Removal,
    f: &StationFacts,
    rescued: Option<&str>,
    acting: Option<&str>,
    details: &[(&str, String)],
) -> String {
    let mut entry = LogEntry::new(
        ctx.now,
        LogEvent::StationRemoved,
        verdict.release.first().and_then(|c| c.task.as_deref()),
        acting,
    )
    .with("path", f.path.clone())
    .with("branch", f.branch.clone().unwrap_or_default());
    if let Some(b) = rescued {
        entry = entry.with("rescue", b.to_string());
    }
    if verdict.forced {
        let overridden: Vec<String> = verdict.blockers.iter().map(|b| b.describe()).collect();
        entry = entry.with("forced", overridden.join("; "));
    }
    for (key, value) in details {
        entry = entry.with(key, value.clone());
    }
    entry.render()
}

/// Releases the station's claims, the removal logged in the same write as the first release
/// that goes through (a refused operation writes none of the lines handed to it), else on its
/// own. Returns the tasks released and what went wrong.
fn release_all(
    ctx: &Ctx,
    verdict: &Removal,
    touched: &[String],
    line: String,
    acting: Option<&str>,
) -> (Vec<String>, Vec<String>) {
    let mut notes = Vec::new();
    let mut released = Vec::new();
    // The removal is logged in the same write as the first release that goes through (a
    // refused operation writes none of the lines handed to it).
    let mut logged = false;
    for claim in &verdict.release {
        let Some(task) = &claim.task else { continue };
        let result = crate::ops::write::mutate_with_log(
            ctx,
            &claim.session,
            Request::Release {
                task: task.clone(),
                touched: crate::ops::touched::recorded(touched.to_vec()),
                done: false,
            },
            if logged {
                Vec::new()
            } else {
                vec![line.clone()]
            },
        );
        match result {
            Ok(_) => {
                logged = true;
                released.push(task.clone());
            }
            Err(e) => notes.push(format!(
                "the station is removed but {task} was not released ({}); release it with `rail release {task} --session {}`",
                e.message, claim.session
            )),
        }
    }
    if !logged {
        // No claim to release (or none could be): the removal is logged on its own.
        if let Err(e) = crate::ops::write::log_only(ctx, acting.unwrap_or("-"), line) {
            notes.push(format!("the removal could not be logged: {}", e.message));
        }
    }

    (released, notes)
}

/// What closing a station did, in a sentence.
fn closed_message(
    survey: &Survey,
    verdict: &Removal,
    f: &StationFacts,
    released: &[String],
    rescued: Option<&str>,
    branch_deleted: bool,
    branch_kept: Option<&str>,
) -> String {
    let mut message = format!("removed station {}", f.path);
    if verdict.forced {
        message.push_str(" (forced: ");
        message.push_str(
            &verdict
                .blockers
                .iter()
                .map(|b| b.describe())
                .collect::<Vec<_>>()
                .join("; "),
        );
        message.push(')');
    }
    if !released.is_empty() {
        message.push_str(&format!("; released {}", released.join(", ")));
    }
    if let Some(b) = rescued {
        message.push_str(&format!(
            "; its HEAD was detached: its commits are kept on branch {b}"
        ));
    }
    if let Some(branch) = &f.branch {
        if branch_deleted {
            message.push_str(&format!(
                "; deleted branch {branch} (merged into {})",
                survey.base.as_deref().unwrap_or("its base")
            ));
        } else if let Some(why) = branch_kept {
            message.push_str(&format!("; kept branch {branch}: {why}"));
        }
    }
    message
}

/// Creates branch `name` (else `name-<commit>` if that one exists) at the detached `head` of the
/// station at `path`, never moving an existing branch. Returns the branch made.
fn rescue(main: &Path, name: &str, head: Option<&str>, path: &str) -> Result<String, Fail> {
    let Some(head) = head else {
        return Err(Fail::env(format!(
            "station {path} is not removed: its HEAD is detached and git could not say which commit it is at, so its commits could be lost; nothing was changed"
        )));
    };
    let short = head.get(..12).unwrap_or(head);
    let mut last = String::new();
    for branch in [name.to_string(), format!("{name}-{short}")] {
        let refname = format!("refs/heads/{branch}");
        // The empty old value: create only, never overwrite.
        let line = git::GitLine::new(&["update-ref", "-m", "rail: rescue"])
            .operand(refname.as_str())
            .operand(head)
            .operand("");
        match git::run(main, &line) {
            Ok(_) => return Ok(branch),
            Err(e) => last = e,
        }
    }
    Err(Fail::env(format!(
        "station {path} is not removed: its HEAD is detached and a branch to keep its commits could not be made ({last}); nothing was changed"
    )))
}

/// After a passing `rail done`, with `stations: on_done: remove`: close the station the command
/// runs in, if core allows it without force. Returns what happened, as a sentence and as JSON.
pub fn close_after_done(ctx: &Ctx, task: &str) -> Option<(String, serde_json::Value)> {
    let repo = ctx.repo.as_ref()?;
    if same(&repo.worktree, &repo.main_checkout()) {
        return None;
    }
    let mut survey = match survey(ctx, None) {
        Ok(s) => s,
        Err(e) => {
            let m = format!("station kept: {}", e.message);
            return Some((m.clone(), serde_json::json!({ "kept": true, "reason": m })));
        }
    };
    let i = survey
        .stations
        .iter()
        .position(|s| same(Path::new(&s.facts.path), &repo.worktree))?;
    survey.inspect(ctx, i);
    match close(ctx, &survey, i, false, task) {
        Ok(closed) => {
            for note in &closed.notes {
                errln!("rail: {note}");
            }
            let m = closed.message.clone();
            Some((m, serde_json::json!({ "kept": false, "closed": closed })))
        }
        Err(e) => {
            let m = format!("station kept: {}", e.message);
            let refusal = e
                .json
                .and_then(|j| j.get("refusal").cloned())
                .unwrap_or(serde_json::Value::Null);
            Some((
                m.clone(),
                serde_json::json!({ "kept": true, "reason": m, "refusal": refusal }),
            ))
        }
    }
}
