//! `rail worktree`: stations. `rail worktree TASK` makes one (the claim, a new worktree and
//! branch, its guard); `list` shows every worktree with its state; `guard` gives one the
//! agents' hooks; `remove` closes one; `prune` removes every worktree that may go, whoever made
//! it (`ops::station` gathers and carries out, core decides).

use std::path::{Path, PathBuf};

use crate::context::Ctx;
use crate::fail::Fail;
use crate::ops::station::{self, make};
use crate::ops::write::ClaimOptions;

/// `rail worktree TASK [options]`, or `rail worktree list` / `rail worktree remove STATION`.
/// A task named like a subcommand is written after `--`: `rail worktree -- list`.
#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct WorktreeArgs {
    #[command(subcommand)]
    pub action: Option<WorktreeAction>,
    /// The task: its id is also the new branch (and session) unless --session names one.
    #[arg(required = true)]
    pub task: Option<String>,
    /// Start the branch from this ref (default: HEAD).
    #[arg(long, value_name = "REF")]
    pub base: Option<String>,
    /// Where to put the worktree (default: ../<repo>-<task>).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    #[command(flatten)]
    pub claim: ClaimOptions,
}

#[derive(clap::Subcommand, Debug)]
pub enum WorktreeAction {
    /// Every station: path, branch, task, claim state, uncommitted files, commits not in the base.
    List {
        /// Judge commits against this branch (default: rail.yaml `stations.base`, else the main checkout's branch).
        #[arg(long, value_name = "BRANCH")]
        base: Option<String>,
    },
    /// Give a worktree (one another tool made, or a station made before Rail's agent files
    /// existed) each agent's hooks, MCP server and rail section, as `rail worktree TASK` does:
    /// only files its branch does not track, kept out of git (docs/agents.md, "Stations").
    Guard {
        /// The worktree's path, a task id or a branch.
        station: String,
    },
    /// Close a station: refused while it holds uncommitted changes or commits not in the base
    /// branch (unless --force); never the main checkout. Releases its claims, removes the
    /// worktree, deletes the branch only when merged.
    #[command(alias = "rm")]
    Remove {
        /// A task id, a branch, or the station's path (`./name` for one in this directory).
        station: String,
        /// Remove it even with uncommitted changes or unmerged commits (logged; a branch with
        /// unmerged commits is still kept).
        #[arg(long)]
        force: bool,
        /// Judge commits against this branch (default: rail.yaml `stations.base`, else the main checkout's branch).
        #[arg(long, value_name = "BRANCH")]
        base: Option<String>,
    },
    /// Remove every worktree that is clean, merged and has nobody in it, whoever made it; say
    /// what it kept, why, and what it freed.
    ///
    /// Any tool's worktrees (Rail, `claude --worktree`, Codex, Cursor, by hand), each closed as
    /// `rail worktree remove` closes one, never forced. Kept, with the reason: uncommitted or
    /// untracked files, commits not in the base, a live claim, a lock (Claude Code's own session
    /// lock only while its process runs), a process working inside (this command's included), a
    /// part Rail cannot read, the main checkout. Freed space is measured in bytes on disk.
    Prune {
        /// Say what would go and what it would free; remove nothing.
        #[arg(long)]
        dry_run: bool,
        /// Judge commits against this branch (default: rail.yaml `stations.base`, else the main checkout's branch).
        #[arg(long, value_name = "BRANCH")]
        base: Option<String>,
    },
}

impl WorktreeArgs {
    /// `rail worktree list` and `rail worktree prune --dry-run` only read the rail.
    pub fn lists(&self) -> bool {
        matches!(
            self.action,
            Some(WorktreeAction::List { .. } | WorktreeAction::Prune { dry_run: true, .. })
        )
    }
}

pub fn run(ctx: &Ctx, w: WorktreeArgs) -> Result<(), Fail> {
    match (w.action, w.task) {
        (Some(WorktreeAction::List { base }), _) => list(ctx, base.as_deref()),
        (Some(WorktreeAction::Guard { station }), _) => guard(ctx, &station),
        (
            Some(WorktreeAction::Remove {
                station,
                force,
                base,
            }),
            _,
        ) => remove(ctx, &station, force, base.as_deref()),
        (Some(WorktreeAction::Prune { dry_run, base }), _) => prune(ctx, base.as_deref(), dry_run),
        (None, Some(task)) => make(ctx, &task, w.base.as_deref(), w.dir, &w.claim),
        (None, None) => Err(Fail::usage(
            "rail worktree needs a TASK, `list`, `guard`, `remove` or `prune`",
        )),
    }
}

/// `rail worktree TASK`: a station — the claim, a new worktree and branch, its guard.
fn make(
    ctx: &Ctx,
    task: &str,
    base: Option<&str>,
    dir: Option<PathBuf>,
    args: &ClaimOptions,
) -> Result<(), Fail> {
    let made = make::station(ctx, task, base, dir, args, make::Existing::Refuse)?;
    let (dir_s, branch) = (made.dir_text(), &made.branch);
    // With --json, stdout carries one document: the station's (or the refusal or error, from
    // main) — never the claim's plan followed by a worktree error.
    if ctx.json {
        outln_raw!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "ok": true, "task": task, "dir": dir_s, "branch": branch,
                // The editor shows this sentence: it says the station is guarded, and by what.
                "message": match made.guarded.as_ref().and_then(|g| g.message()) {
                    Some(g) => format!("station ready: {dir_s} on branch {branch}; {g}"),
                    None => format!("station ready: {dir_s} on branch {branch}"),
                },
                "guarded": made.guarded, "unguarded": made.unguarded,
            }))
            .unwrap_or_default()
        );
    } else {
        made.claim.print(false);
        outln!("station ready: {dir_s} on branch {branch}");
        if let Some(m) = made.guarded.as_ref().and_then(|g| g.message()) {
            outln!("{m}");
        }
        outln!("work there: cd {dir_s}");
    }
    if let Some(m) = &made.unguarded {
        errln!("rail: {m}");
    }
    Ok(())
}

/// `rail worktree list`.
fn list(ctx: &Ctx, base: Option<&str>) -> Result<(), Fail> {
    let mut survey = station::survey(ctx, base)?;
    for i in 0..survey.stations.len() {
        survey.inspect(ctx, i);
    }
    let main_agents = crate::ops::setup::configured_in(&station::repo_of(ctx)?.main_checkout());
    let guards: Vec<Option<station::GuardStatus>> = survey
        .stations
        .iter()
        .map(|s| station::guard_status(s, &main_agents))
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
                        crate::out::hint::shell_quote(&f.path)
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
fn guard(ctx: &Ctx, arg: &str) -> Result<(), Fail> {
    let repo = station::repo_of(ctx)?;
    let survey = station::survey(ctx, None)?;
    let i = station::target(&survey, arg)?;
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
    let guarded = crate::ops::setup::guard_station(
        repo,
        Path::new(&f.path),
        &crate::ops::setup::rail_command(),
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

/// `rail worktree remove STATION`.
fn remove(ctx: &Ctx, arg: &str, force: bool, base: Option<&str>) -> Result<(), Fail> {
    let mut survey = station::survey(ctx, base)?;
    let i = station::target(&survey, arg)?;
    survey.inspect(ctx, i);
    let closed = station::close::close(ctx, &survey, i, force, arg)?;
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

/// `rail worktree prune [--dry-run]`.
fn prune(ctx: &Ctx, base: Option<&str>, dry_run: bool) -> Result<(), Fail> {
    let report = station::prune::prune(ctx, base, dry_run)?;
    if let Some(fail) = station::prune::failed(&report) {
        if !ctx.json {
            for line in station::prune::lines(&report) {
                outln!("{line}");
            }
        }
        return Err(fail);
    }
    if ctx.json {
        outln_raw!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({ "ok": true, "report": report }))
                .unwrap_or_default()
        );
    } else {
        for line in station::prune::lines(&report) {
            outln!("{line}");
        }
        for note in &report.notes {
            errln!("rail: {note}");
        }
    }
    Ok(())
}
