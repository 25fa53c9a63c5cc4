//! `rail worktree list`, `guard` and `remove`: the stations (worktrees) of the repository, and
//! closing one; and the same for an agent's worktree hook ([`for_agent`]: `claude --worktree`).
//!
//! The CLI gathers the facts — which worktrees git recorded, whether each path is a link or
//! another checkout, what `git status` shows uncommitted, how many commits are not in the base —
//! and core's `station::removal` decides. Removal order, so that a refusal at any step leaves
//! the most behind: `git worktree remove` (which checks again, itself, and refuses a dirty tree
//! unless forced), then the claims released under the lock with the removal logged in the same
//! write, then the branch deleted only if it is still at the commit that was judged merged.

use std::path::{Path, PathBuf};

use rail_core::agent::{setup, Agent, WorktreeDone, WorktreeEvent};
use rail_core::change::ops::Request;
use rail_core::formats::log::{LogEntry, LogEvent as Event};
use rail_core::model::station::{self, Removal, Station, StationFacts};
use rail_core::model::Rail;

use crate::context::{Commits, Ctx};
use crate::fail::{self, Fail};
use crate::git;
use crate::repo::{self, Repo};

/// Every station with its facts and claims, and the base they are judged against.
pub struct Survey {
    pub stations: Vec<Station>,
    pub base: Option<String>,
    /// The base's commit, read in the main checkout: a name can mean something else in each
    /// worktree (`HEAD`, `@`, `@{-1}`, `refs/worktree/…`), and inside a station `HEAD` is the
    /// station's own commit, which would make every branch look merged. `None`: it names no
    /// commit there, and Rail cannot tell what is merged.
    base_commit: Option<String>,
    dirs: Vec<repo::WorktreeDir>,
    rail: Rail,
    eval: rail_core::model::Evaluation,
}

fn repo_of(ctx: &Ctx) -> Result<&Repo, Fail> {
    ctx.repo
        .as_ref()
        .ok_or_else(|| Fail::env("rail worktree needs a git repository"))
}

fn valid_base(base: Option<&str>) -> Result<(), Fail> {
    match base {
        Some(b) => rail_core::text::ident::validate_session(b).map_err(|e| {
            Fail::usage(format!(
                "--base: {}",
                e.0.replacen("session name", "branch", 1)
            ))
        }),
        None => Ok(()),
    }
}

fn same(a: &Path, b: &Path) -> bool {
    matches!((a.canonicalize(), b.canonicalize()), (Ok(a), Ok(b)) if a == b)
}

/// Every worktree with what the file system says of it (no git process yet: see
/// [`Survey::inspect`]). `base`: `--base`, else rail.yaml `stations.base`, else the main
/// checkout's branch.
pub fn survey(ctx: &Ctx, base: Option<&str>) -> Result<Survey, Fail> {
    valid_base(base)?;
    let repo = repo_of(ctx)?;
    let texts = ctx.read(false)?;
    let rail = Rail::load(&texts);
    let facts = ctx.facts_for(&rail, Commits::IfNeeded);
    let eval = rail.evaluate(&facts);
    let main = repo.main_checkout();
    let main_branch = repo::head_branch(&repo.common_dir);
    let base = station::base_branch(
        base.or(rail.config.stations.base.as_deref()),
        main_branch.as_deref(),
    );
    let base_commit = base.as_deref().and_then(|b| {
        let spec = format!("{b}^{{commit}}");
        git::run(
            &main,
            &[
                "rev-parse",
                "--verify",
                "--quiet",
                "--end-of-options",
                &spec,
            ],
        )
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
    });
    let dirs = repo::worktree_dirs(repo);
    let mut stations = Vec::with_capacity(dirs.len());
    for (i, wt) in dirs.iter().enumerate() {
        let link = std::fs::symlink_metadata(&wt.path).is_ok_and(|m| m.file_type().is_symlink());
        let missing = !link && !wt.path.is_dir();
        let foreign = !link
            && !missing
            && !repo::is_checkout_of(&wt.path, wt.admin.as_deref(), &repo.common_dir);
        let locked = wt
            .admin
            .as_ref()
            .is_some_and(|a| std::fs::symlink_metadata(a.join("locked")).is_ok());
        let branch_elsewhere = wt.branch.is_some()
            && dirs
                .iter()
                .enumerate()
                .any(|(j, other)| j != i && other.branch == wt.branch);
        let facts = StationFacts {
            path: wt.path.display().to_string(),
            branch: wt.branch.clone(),
            main: wt.admin.is_none() || same(&wt.path, &main),
            link,
            foreign,
            missing,
            locked,
            dirty: None,
            base: base.clone(),
            unmerged: None,
            head: None,
            branch_elsewhere,
        };
        stations.push(Station::new(facts, &eval));
    }
    Ok(Survey {
        stations,
        base,
        base_commit,
        dirs,
        rail,
        eval,
    })
}

impl Survey {
    /// Asks git what is uncommitted in station `i`, how many of its commits are not in the
    /// base, and where its HEAD is (three processes at once). A link, a foreign or a missing
    /// directory is not looked into.
    pub fn inspect(&mut self, ctx: &Ctx, i: usize) {
        let Some(station) = self.stations.get_mut(i) else {
            return;
        };
        let f = &mut station.facts;
        if f.link || f.missing || f.foreign {
            return;
        }
        let Some(path) = self.dirs.get(i).map(|d| d.path.clone()) else {
            return;
        };
        let state = git::worktree_state(&path, self.base_commit.as_deref());
        f.dirty = state
            .uncommitted
            .ok()
            .map(|files| crate::cmd::mutate::without_rail_files(ctx, &path, files));
        f.unmerged = state.not_in_base.and_then(Result::ok);
        f.head = state.head;
    }
}

/// Whether the agents set up in the main checkout (`main`) have their Rail hook in a worktree:
/// `None` for one Rail cannot look into (a link, gone, another checkout) and for the main
/// checkout itself.
#[derive(Debug, serde::Serialize)]
pub struct GuardStatus {
    /// Agents set up in the main checkout with a Rail hook here.
    pub agents: Vec<String>,
    /// Agents set up in the main checkout with no Rail hook here: they would run unguarded.
    pub missing: Vec<String>,
}

fn guard_status(station: &Station, main: &[rail_core::agent::Agent]) -> Option<GuardStatus> {
    let f = &station.facts;
    if f.main || f.link || f.missing || f.foreign {
        return None;
    }
    let here = crate::cmd::agents::configured_in(Path::new(&f.path));
    let title = |t: &rail_core::agent::Agent| t.title().to_string();
    Some(GuardStatus {
        agents: main
            .iter()
            .filter(|t| here.contains(t))
            .map(title)
            .collect(),
        missing: rail_core::agent::setup::unguarded(main, &here)
            .iter()
            .map(title)
            .collect(),
    })
}

/// `rail worktree list`.
pub fn list(ctx: &Ctx, base: Option<&str>) -> Result<(), Fail> {
    let mut survey = survey(ctx, base)?;
    for i in 0..survey.stations.len() {
        survey.inspect(ctx, i);
    }
    let main_agents = crate::cmd::agents::configured_in(&repo_of(ctx)?.main_checkout());
    let guards: Vec<Option<GuardStatus>> = survey
        .stations
        .iter()
        .map(|s| guard_status(s, &main_agents))
        .collect();
    if ctx.json {
        // Each station as core describes it, with its guard status beside.
        let stations: Vec<serde_json::Value> = survey
            .stations
            .iter()
            .zip(&guards)
            .map(|(s, g)| {
                let mut v = serde_json::to_value(s).unwrap_or_default();
                if let Some(o) = v.as_object_mut() {
                    o.insert("guard".into(), serde_json::to_value(g).unwrap_or_default());
                }
                v
            })
            .collect();
        outln_raw!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "ok": true, "base": survey.base, "stations": stations,
            }))
            .unwrap_or_default()
        );
        return Ok(());
    }
    let base = survey.base.as_deref().unwrap_or("?");
    let rows: Vec<[String; 6]> = survey
        .stations
        .iter()
        .zip(&guards)
        .map(|(s, g)| {
            let f = &s.facts;
            let path = if f.main {
                format!("{} (main checkout)", f.path)
            } else {
                f.path.clone()
            };
            let tasks: Vec<&str> = s.claims.iter().filter_map(|c| c.task.as_deref()).collect();
            let changes = if f.link {
                "path is a symbolic link".to_string()
            } else if f.missing {
                "directory gone (git worktree prune)".to_string()
            } else if f.foreign {
                "not this worktree's checkout".to_string()
            } else if f.locked {
                "locked (git worktree lock)".to_string()
            } else {
                let mut parts = Vec::new();
                match &f.dirty {
                    Some(d) if d.is_empty() => {}
                    Some(d) => parts.push(format!("{} uncommitted", d.len())),
                    None => parts.push("uncommitted: unknown".into()),
                }
                match f.unmerged {
                    Some(0) => {}
                    Some(n) => parts.push(format!("{n} not in {base}")),
                    None => parts.push(format!("not in {base}: unknown")),
                }
                if parts.is_empty() {
                    "clean, merged".to_string()
                } else {
                    parts.join(", ")
                }
            };
            [
                path,
                f.branch.clone().unwrap_or_else(|| "(detached)".into()),
                if tasks.is_empty() {
                    "-".into()
                } else {
                    tasks.join(", ")
                },
                s.state.as_str().to_string(),
                match g {
                    None if f.main && main_agents.is_empty() => "no agent set up".into(),
                    None => "-".into(),
                    Some(g) if g.missing.is_empty() => "guarded".into(),
                    Some(g) => format!(
                        "UNGUARDED: {} (rail worktree guard {})",
                        g.missing.join(", "),
                        crate::cmd::admin::shell_quote(&f.path)
                    ),
                },
                changes,
            ]
        })
        .collect();
    let head = ["STATION", "BRANCH", "TASK", "STATE", "GUARD", "WORK"].map(str::to_string);
    let mut widths = [0usize; 6];
    for row in std::iter::once(&head).chain(rows.iter()) {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    for row in std::iter::once(&head).chain(rows.iter()) {
        let mut line = String::new();
        for (i, (w, cell)) in widths.iter().zip(row).enumerate() {
            if i + 1 == row.len() {
                line.push_str(cell);
            } else {
                line.push_str(&format!("{cell:<w$}  "));
            }
        }
        outln!("{}", line.trim_end());
    }
    Ok(())
}

/// `rail worktree guard STATION`: the worktree gets what `rail worktree TASK` gives a new
/// station (the agents set up in the main checkout, through the files its branch does not
/// track).
pub fn guard(ctx: &Ctx, arg: &str) -> Result<(), Fail> {
    let repo = repo_of(ctx)?;
    let survey = survey(ctx, None)?;
    let i = target(&survey, arg)?;
    let f = &survey.stations[i].facts;
    let why = if f.main {
        Some("it is the main checkout: `rail init --agents` sets up the agents there")
    } else if f.link {
        Some("its path is a symbolic link")
    } else if f.missing {
        Some("its directory is gone (git worktree prune)")
    } else if f.foreign {
        Some("the directory is not that worktree's checkout")
    } else {
        None
    };
    if let Some(why) = why {
        return Err(Fail::usage(format!(
            "{} is not guarded by `rail worktree guard`: {why}",
            f.path
        )));
    }
    let guarded = crate::cmd::agents::guard_station(
        repo,
        Path::new(&f.path),
        &crate::cmd::admin::rail_command(),
    )?;
    let message = guarded.message().unwrap_or_else(|| {
        "no agent is set up in the main checkout: run `rail init --agents` there first".into()
    });
    if ctx.json {
        outln_raw!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "ok": true, "path": f.path, "guarded": guarded, "message": message,
            }))
            .unwrap_or_default()
        );
    } else {
        outln!("{}: {message}", f.path);
    }
    Ok(())
}

/// Does `arg` name only a path (not a task or a branch)? Task ids have no separators; branch
/// names may (`feature/search`) but never start with a dot or a slash.
fn only_a_path(arg: &str) -> bool {
    arg.starts_with('.') || arg.starts_with('~') || Path::new(arg).is_absolute()
}

/// The station `arg` names: a path (`/…`, `./…`, `../…`); else a task id or branch (core's
/// `station::find`), or, for a name with a `/`, first a path relative to here.
fn target(survey: &Survey, arg: &str) -> Result<usize, Fail> {
    if arg.is_empty() {
        return Err(Fail::usage("name a station: a task id, a branch or a path"));
    }
    let by_name = || {
        station::find(
            &survey.stations,
            &survey.eval,
            &survey.rail.log().entries,
            arg,
        )
        .map_err(Fail::usage)
    };
    let separated = arg.contains('/') || arg.contains(std::path::MAIN_SEPARATOR);
    if !separated && !only_a_path(arg) {
        return by_name();
    }
    let given = PathBuf::from(arg);
    let cwd = std::env::current_dir().unwrap_or_default();
    let absolute = if given.is_absolute() {
        given.clone()
    } else {
        cwd.join(&given)
    };
    // The path as git recorded it first (a station whose path became a link is named by it,
    // not taken for what the link leads to); then the named directory with links followed.
    let found = survey
        .stations
        .iter()
        .position(|s| Path::new(&s.facts.path) == absolute)
        .or_else(|| {
            survey
                .stations
                .iter()
                .position(|s| same(Path::new(&s.facts.path), &absolute))
        });
    match found {
        Some(i) => Ok(i),
        // `feature/search`: a branch, when no station is at that path.
        None if !only_a_path(arg) => by_name(),
        None => Err(Fail::usage(format!(
            "no station at {}: it is not a worktree of this repository (see `rail worktree list`)",
            absolute.display()
        ))),
    }
}

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

/// `rail worktree remove STATION`.
pub fn remove(ctx: &Ctx, arg: &str, force: bool, base: Option<&str>) -> Result<(), Fail> {
    let mut survey = survey(ctx, base)?;
    let i = target(&survey, arg)?;
    survey.inspect(ctx, i);
    let closed = close(ctx, &survey, i, force, arg)?;
    for note in &closed.notes {
        errln!("rail: {note}");
    }
    if ctx.json {
        outln_raw!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({ "ok": true, "closed": closed }))
                .unwrap_or_default()
        );
    } else {
        outln!("{}", closed.message);
    }
    Ok(())
}

/// The refusal of a removal as the CLI reports it: exit 1, the message with its hint as a
/// command line; the JSON keeps core's verdict (its hint as data, for the editor's button).
pub fn refused(verdict: &Removal) -> Fail {
    Fail {
        code: fail::REFUSED,
        message: crate::hint::say(&verdict.message, verdict.hint.as_ref()),
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
        .map(|files| crate::cmd::mutate::without_rail_files(ctx, &path, files))
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
    let mut args = vec!["worktree", "remove"];
    if verdict.forced {
        args.push("--force");
    }
    args.push(&f.path);
    git::run(&main, &args).map_err(|e| {
        Fail::env(format!(
            "removing the worktree {}: {e}; nothing was changed{}",
            f.path,
            rescued
                .as_deref()
                .map(|b| format!(" except the branch {b}, made to keep its commits"))
                .unwrap_or_default()
        ))
    })?;

    let mut entry = LogEntry::new(
        ctx.now,
        Event::StationRemoved,
        verdict.release.first().and_then(|c| c.task.as_deref()),
        acting.as_deref(),
    )
    .with("path", f.path.clone())
    .with("branch", f.branch.clone().unwrap_or_default());
    if let Some(b) = &rescued {
        entry = entry.with("rescue", b.clone());
    }
    if verdict.forced {
        let overridden: Vec<String> = verdict.blockers.iter().map(|b| b.describe()).collect();
        entry = entry.with("forced", overridden.join("; "));
    }
    let mut notes = Vec::new();
    let mut released = Vec::new();
    let line = entry.render();
    // The removal is logged in the same write as the first release that goes through (a
    // refused operation writes none of the lines handed to it).
    let mut logged = false;
    for claim in &verdict.release {
        let Some(task) = &claim.task else { continue };
        let result = crate::cmd::mutate::mutate_with_log(
            ctx,
            &claim.session,
            Request::Release {
                task: task.clone(),
                touched: touched.clone(),
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
        if let Err(e) = crate::cmd::mutate::log_only(ctx, acting.as_deref().unwrap_or("-"), line) {
            notes.push(format!("the removal could not be logged: {}", e.message));
        }
    }

    let mut branch_deleted = false;
    let mut branch_kept = verdict.keep_branch.clone();
    if let (true, Some(branch), Some(head)) = (verdict.delete_branch, &f.branch, &f.head) {
        // Only if it still points where it was judged merged: a commit made since keeps it.
        let refname = format!("refs/heads/{branch}");
        match git::run(&main, &["update-ref", "-d", &refname, head]) {
            Ok(_) => branch_deleted = true,
            Err(e) => branch_kept = Some(format!("it could not be deleted: {e}")),
        }
    }

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
    if let Some(b) = &rescued {
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
        } else if let Some(why) = &branch_kept {
            message.push_str(&format!("; kept branch {branch}: {why}"));
        }
    }
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
        match git::run(
            main,
            &["update-ref", "-m", "rail: rescue", &refname, head, ""],
        ) {
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
            let made = crate::cmd::mutate::station(
                ctx,
                name,
                None,
                None,
                &crate::ClaimArgs::default(),
                crate::cmd::mutate::Existing::Reenter,
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
                    crate::railfile::write_inside(
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
                    crate::railfile::read_inside(&repo.common_dir, &a.join(setup::HOOK_MADE_FILE))
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
