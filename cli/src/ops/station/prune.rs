//! `rail worktree prune`: every worktree of the repository, whoever made it, judged by core's
//! `prune::pruning` from what this gathers — git's state of it (as `rail worktree remove`
//! gathers it), the claims on its branch, whether this command or another process works inside
//! it, its lock and the process the lock names, whether every part of it can be read — and
//! removed through [`close`](super::close) (the claims released and the removal logged, the
//! branch deleted only when merged), never forced. Each removed worktree's size is measured
//! before it goes.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use rail_core::model::prune::{self, HolderSeen, Keep, Occupancy, Occupant, Pruning};

use super::close::{close_logged, Closed};
use super::{repo_of, survey, Survey};
use crate::context::Ctx;
use crate::fail::{self, Fail};
use crate::git;
use crate::sys::{self, ProcessDir};

/// What a prune did (or, dry, would do).
#[derive(Debug, serde::Serialize)]
pub struct PruneReport {
    pub dry_run: bool,
    pub base: Option<String>,
    pub removed: Vec<Removed>,
    pub kept: Vec<Kept>,
    /// Worktrees core allowed to go whose removal then failed: each is left as git left it.
    pub failed: Vec<PruneFailure>,
    /// The bytes the removed worktrees took on disk (measured before each went).
    pub freed_bytes: u64,
    /// What this prune could not look at (processes on this system).
    pub notes: Vec<String>,
}

#[derive(Debug, serde::Serialize)]
pub struct Removed {
    pub path: String,
    pub branch: Option<String>,
    pub bytes: u64,
    /// What closing it did (`None` in a dry run).
    pub closed: Option<Closed>,
    pub message: String,
}

#[derive(Debug, serde::Serialize)]
pub struct Kept {
    pub path: String,
    pub branch: Option<String>,
    pub reasons: Vec<Keep>,
    pub message: String,
}

#[derive(Debug, serde::Serialize)]
pub struct PruneFailure {
    pub path: String,
    pub branch: Option<String>,
    pub error: String,
}

/// The processes seen working somewhere, and how to find those inside a directory.
struct Processes {
    all: Option<Vec<ProcessDir>>,
    me: u32,
}

impl Processes {
    fn look() -> Processes {
        Processes {
            all: sys::process_dirs(),
            me: std::process::id(),
        }
    }

    /// Other processes whose current directory is `dir` or inside it.
    fn inside(&self, dir: &Path) -> Option<Vec<Occupant>> {
        Some(
            self.all
                .as_ref()?
                .iter()
                .filter(|p| p.pid != self.me && p.cwd.starts_with(dir))
                .map(|p| Occupant {
                    pid: p.pid,
                    name: p.name.clone(),
                })
                .collect(),
        )
    }
}

/// Prunes every worktree core allows (none when `dry_run`: only says which would go).
pub fn prune(ctx: &Ctx, base: Option<&str>, dry_run: bool) -> Result<PruneReport, Fail> {
    repo_of(ctx)?;
    let mut survey = survey(ctx, base)?;
    for i in 0..survey.stations.len() {
        survey.inspect(ctx, i);
    }
    let here = std::env::current_dir().and_then(|d| d.canonicalize()).ok();
    let processes = Processes::look();
    let mut report = PruneReport {
        dry_run,
        base: survey.base.clone(),
        removed: Vec::new(),
        kept: Vec::new(),
        failed: Vec::new(),
        freed_bytes: 0,
        notes: Vec::new(),
    };
    if processes.all.is_none() {
        report.notes.push(
            "Rail cannot see other processes' directories on this system: a session that holds no claim and no lock is not seen".into(),
        );
    }
    for i in 0..survey.stations.len() {
        let mut occupancy = occupancy(&survey, i, here.as_deref(), &processes);
        let mut verdict = prune::pruning(&survey.stations[i], &occupancy);
        let mut bytes = 0;
        if verdict.remove {
            match disk_usage(Path::new(&survey.stations[i].facts.path)) {
                Ok(n) => bytes = n,
                Err(path) => {
                    occupancy.unreadable = Some(path.display().to_string());
                    verdict = prune::pruning(&survey.stations[i], &occupancy);
                }
            }
        }
        if verdict.remove && !dry_run {
            // Looked at again just before it goes: a session may have started there since. (A
            // second look that fails keeps what the first saw.)
            if let Some(inside) = Processes::look().inside(&canonical(&survey, i)) {
                occupancy.processes = Some(inside);
                verdict = prune::pruning(&survey.stations[i], &occupancy);
            }
        }
        let f = &survey.stations[i].facts;
        let (path, branch) = (f.path.clone(), f.branch.clone());
        if !verdict.remove {
            report.kept.push(Kept {
                path,
                branch,
                reasons: verdict.kept,
                message: verdict.message,
            });
            continue;
        }
        if dry_run {
            report.freed_bytes += bytes;
            report.removed.push(Removed {
                message: format!(
                    "would remove {path}{} ({})",
                    branch
                        .as_deref()
                        .map(|b| format!(" (branch {b})"))
                        .unwrap_or_default(),
                    prune::human_bytes(bytes)
                ),
                path,
                branch,
                bytes,
                closed: None,
            });
            continue;
        }
        match remove(
            ctx,
            &mut survey,
            i,
            &verdict,
            occupancy.lock_reason.as_deref(),
            bytes,
        ) {
            Ok(closed) => {
                report.freed_bytes += bytes;
                report.removed.push(Removed {
                    message: format!("{}; freed {}", closed.message, prune::human_bytes(bytes)),
                    path,
                    branch,
                    bytes,
                    closed: Some(closed),
                });
            }
            Err(e) => report.failed.push(PruneFailure {
                path,
                branch,
                error: e.message,
            }),
        }
    }
    Ok(report)
}

/// The worktree's directory with links resolved, as processes' directories are read (the
/// recorded path where it cannot be resolved).
fn canonical(survey: &Survey, i: usize) -> PathBuf {
    let path = Path::new(&survey.stations[i].facts.path);
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

/// What this host sees of who may be working in worktree `i`.
fn occupancy(survey: &Survey, i: usize, here: Option<&Path>, processes: &Processes) -> Occupancy {
    let f = &survey.stations[i].facts;
    let dir = canonical(survey, i);
    let lock_reason = if f.locked {
        let admin = survey.dirs.get(i).and_then(|d| d.admin.as_ref());
        // Unreadable: a lock whose reason Rail cannot read is nobody's Rail knows.
        Some(
            admin
                .and_then(|a| std::fs::read_to_string(a.join("locked")).ok())
                .unwrap_or_default(),
        )
    } else {
        None
    };
    let lock_holder = lock_reason
        .as_deref()
        .and_then(prune::lock_holder)
        .map(|h| holder_seen(h.pid));
    Occupancy {
        here: here.is_some_and(|h| h.starts_with(&dir)),
        processes: processes.inside(&dir),
        lock_reason,
        lock_holder,
        unreadable: None,
    }
}

/// What this host sees of process `pid`: its start time only where it is read as the agents
/// write it (Linux: clock ticks since boot, `/proc/PID/stat`).
fn holder_seen(pid: u32) -> HolderSeen {
    if !rail_core::formats::pid::plausible_pid(pid) {
        return HolderSeen::Unknown;
    }
    match sys::process_alive(pid, None) {
        Some(false) => HolderSeen::Gone,
        None => HolderSeen::Unknown,
        Some(true) => HolderSeen::Running {
            start: if cfg!(any(target_os = "linux", target_os = "android")) {
                sys::process_start(pid).map(|s| s.to_string())
            } else {
                None
            },
        },
    }
}

/// Removes worktree `i` as core allowed: its gone session's lock lifted first (and put back if
/// the removal then fails), then closed as `rail worktree remove` closes one, logged as pruned.
fn remove(
    ctx: &Ctx,
    survey: &mut Survey,
    i: usize,
    verdict: &Pruning,
    lock_reason: Option<&str>,
    bytes: u64,
) -> Result<Closed, Fail> {
    let main = repo_of(ctx)?.main_checkout();
    let path = survey.stations[i].facts.path.clone();
    let mut details = vec![("pruned", format!("{bytes} bytes"))];
    if let (Some(holder), Some(reason)) = (&verdict.unlock, lock_reason) {
        git::run(
            &main,
            &git::GitLine::new(&["worktree", "unlock"]).operand(path.as_str()),
        )
        .map_err(|e| Fail::env(format!("unlocking {path}: {e}; nothing was changed")))?;
        survey.stations[i].facts.locked = false;
        details.push((
            "unlocked",
            format!(
                "{} session pid {} gone: {}",
                holder.agent,
                holder.pid,
                reason.trim()
            ),
        ));
    }
    let closed = close_logged(ctx, survey, i, false, &path, &details);
    if closed.is_err() && verdict.unlock.is_some() {
        // Left as it was found: locked, with its reason.
        let relock = git::GitLine::new(&["worktree", "lock", "--reason"])
            .operand(lock_reason.unwrap_or_default().trim_end_matches('\n'))
            .operand(path.as_str());
        if git::run(&main, &relock).is_ok() {
            survey.stations[i].facts.locked = true;
        }
    }
    closed
}

/// The bytes `dir` takes on disk: links not followed, each hard-linked file counted once.
/// `Err`: a part that could not be read.
fn disk_usage(dir: &Path) -> Result<u64, PathBuf> {
    let top = std::fs::symlink_metadata(dir).map_err(|_| dir.to_path_buf())?;
    let mut total = sys::disk_bytes(&top);
    let mut seen = HashSet::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).map_err(|_| d.clone())?;
        for entry in entries {
            let entry = entry.map_err(|_| d.clone())?;
            let path = entry.path();
            let meta = std::fs::symlink_metadata(&path).map_err(|_| path.clone())?;
            if sys::hard_link_id(&meta).is_some_and(|id| !seen.insert(id)) {
                continue;
            }
            total = total.saturating_add(sys::disk_bytes(&meta));
            if meta.is_dir() {
                stack.push(path);
            }
        }
    }
    Ok(total)
}

/// The report as `rail worktree prune` prints it, one line per worktree, then the sum.
pub fn lines(report: &PruneReport) -> Vec<String> {
    let mut out: Vec<String> = report.kept.iter().map(|k| k.message.clone()).collect();
    out.extend(report.removed.iter().map(|r| r.message.clone()));
    out.extend(
        report
            .failed
            .iter()
            .map(|f| format!("not removed {}: {}", f.path, f.error)),
    );
    let n = report.removed.len();
    let worktrees = |n: usize| {
        if n == 1 {
            "1 worktree".to_string()
        } else {
            format!("{n} worktrees")
        }
    };
    out.push(format!(
        "{} {}, {} {} ({} bytes); kept {}{}",
        if report.dry_run {
            "would prune"
        } else {
            "pruned"
        },
        worktrees(n),
        if report.dry_run {
            "would free"
        } else {
            "freed"
        },
        prune::human_bytes(report.freed_bytes),
        report.freed_bytes,
        worktrees(report.kept.len()),
        if report.failed.is_empty() {
            String::new()
        } else {
            format!("; {} failed", report.failed.len())
        }
    ));
    out
}

/// A prune whose removals failed: exit 3, the report as its JSON.
pub fn failed(report: &PruneReport) -> Option<Fail> {
    (!report.failed.is_empty()).then(|| Fail {
        code: fail::ENVIRONMENT,
        message: format!(
            "{} of the worktrees Rail may prune could not be removed (see above)",
            report.failed.len()
        ),
        json: Some(serde_json::json!({ "ok": false, "report": report })),
    })
}
