//! Pruning worktrees: which of a repository's worktrees `rail worktree prune` may remove,
//! whoever made them (Rail, `claude --worktree`, Codex, Cursor, a person's `git worktree add`),
//! and, for each it keeps, why.
//!
//! A worktree goes only when `rail worktree remove` would remove it without `--force` (not the
//! main checkout, nothing uncommitted or untracked, every commit in the base: [`removal`]) and
//! nobody may still be working in it: no live or expiring claim on its branch, not the current
//! directory of this command nor of any process the host can see, every part of it readable,
//! and not locked — except by an agent's own session lock whose process is gone (Claude Code
//! locks each `--worktree` it makes with `claude session NAME (pid P start S)` and leaves the
//! lock when it exits). What the host cannot tell counts as work: the worktree stays.
//!
//! Core never looks at a directory or a process: the host passes [`Occupancy`] beside each
//! station's [`StationFacts`](super::station::StationFacts).

use serde::Serialize;

use crate::model::station::{removal, Blocker, Removal, Station, StationClaim};

/// What the host saw of who may be working in one worktree, beyond its git state.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Occupancy {
    /// The command's own current directory is in it.
    pub here: bool,
    /// Other processes whose current directory is in it. `None`: the host cannot see other
    /// processes' directories (then claims and locks are all it judges by).
    pub processes: Option<Vec<Occupant>>,
    /// The reason `git worktree lock` recorded, when the worktree is locked (may be empty).
    pub lock_reason: Option<String>,
    /// What the host saw of the process a lock's reason names ([`lock_holder`]).
    pub lock_holder: Option<HolderSeen>,
    /// A path inside it the host could not read: it cannot tell what would be lost.
    pub unreadable: Option<String>,
}

/// A process working in a worktree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Occupant {
    pub pid: u32,
    /// Its program's name, as the system reports it.
    pub name: String,
}

/// The session an agent named in a lock's reason: Claude Code writes `claude session NAME (pid
/// P start S)` for `claude --worktree NAME` (`claude agent NAME …` for a subagent's worktree;
/// no `start` on Windows).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LockHolder {
    /// The agent, as people call it.
    pub agent: String,
    pub pid: u32,
    /// The process's start time as the agent wrote it (on Linux, clock ticks since boot, as in
    /// `/proc/PID/stat`).
    pub start: Option<String>,
}

/// What the host found of a lock holder's process.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum HolderSeen {
    /// No process has that pid.
    Gone,
    /// A process has that pid; `start` is its start time in the agent's own form where the
    /// host reads it the same way (Linux), else `None`.
    Running { start: Option<String> },
    /// The host could not tell.
    Unknown,
}

/// The agent session a lock's reason names, if it is one Rail knows the form of.
pub fn lock_holder(reason: &str) -> Option<LockHolder> {
    let rest = reason.trim().strip_prefix("claude ")?;
    let rest = rest
        .strip_prefix("session ")
        .or_else(|| rest.strip_prefix("agent "))?;
    let open = rest.rfind(" (pid ")?;
    let inner = rest[open + 6..].strip_suffix(')')?;
    let (pid, start) = match inner.split_once(" start ") {
        Some((pid, start)) => (pid, Some(start)),
        None => (inner, None),
    };
    let pid: u32 = pid.parse().ok().filter(|p| *p > 0)?;
    let start = match start {
        Some(s) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric()) => {
            Some(s.to_string())
        }
        Some(_) => return None,
        None => None,
    };
    Some(LockHolder {
        agent: "Claude Code".into(),
        pid,
        start,
    })
}

/// Whether the session holding a lock is gone: its pid is free, or taken by a later process
/// (another start time, where the host could read one to compare). Anything else — running,
/// unknown, a start time the host cannot compare — is a live session.
fn holder_gone(holder: &LockHolder, seen: Option<&HolderSeen>) -> bool {
    match seen {
        Some(HolderSeen::Gone) => true,
        Some(HolderSeen::Running { start: Some(now) }) => {
            holder.start.as_deref().is_some_and(|then| then != now)
        }
        _ => false,
    }
}

/// Why a worktree is kept.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Keep {
    /// What also keeps it from `rail worktree remove` (prune never forces).
    Work(Blocker),
    /// Someone may be working in it.
    Occupied(Occupied),
}

/// Someone may still be working in a worktree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Occupied {
    /// A claim on its branch is live or expiring: its session is working.
    LiveClaim { claim: StationClaim },
    /// This command runs inside it.
    Here,
    /// Processes have their current directory inside it.
    Processes { processes: Vec<Occupant> },
    /// Locked by an agent session whose process still runs (or may).
    LockedBySession { holder: LockHolder },
    /// Locked by a person or a tool Rail does not know: theirs to unlock.
    Locked { reason: String },
    /// Part of it could not be read.
    Unreadable { path: String },
}

impl Keep {
    pub fn describe(&self) -> String {
        match self {
            Keep::Work(b) => b.describe(),
            Keep::Occupied(o) => o.describe(),
        }
    }
}

impl Occupied {
    pub fn describe(&self) -> String {
        match self {
            Occupied::LiveClaim { claim } => format!(
                "session {} holds {} there ({} claim)",
                claim.session,
                claim.task.as_deref().unwrap_or("a claim"),
                claim.state.as_str()
            ),
            Occupied::Here => "this command runs inside it".into(),
            Occupied::Processes { processes } => {
                let shown: Vec<String> = processes
                    .iter()
                    .take(5)
                    .map(|p| format!("{} (pid {})", p.name, p.pid))
                    .collect();
                let more = processes.len().saturating_sub(shown.len());
                format!(
                    "{} working inside: {}{}",
                    if processes.len() == 1 {
                        "a process is"
                    } else {
                        "processes are"
                    },
                    shown.join(", "),
                    if more > 0 {
                        format!(" and {more} more")
                    } else {
                        String::new()
                    }
                )
            }
            Occupied::LockedBySession { holder } => format!(
                "locked by a live {} session (pid {})",
                holder.agent, holder.pid
            ),
            Occupied::Locked { reason } if reason.trim().is_empty() => {
                "it is locked (`git worktree lock`); `git worktree unlock` it first if it may go"
                    .into()
            }
            Occupied::Locked { reason } => format!(
                "it is locked (`git worktree lock`: {}); `git worktree unlock` it first if it may go",
                reason.trim()
            ),
            Occupied::Unreadable { path } => {
                format!("{path} cannot be read: Rail cannot tell what removing it would lose")
            }
        }
    }
}

/// The verdict on pruning one worktree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Pruning {
    /// It goes.
    pub remove: bool,
    /// Its lock is an agent session's whose process is gone: unlock it first (and lock it
    /// again, as it was, if the removal then fails).
    pub unlock: Option<LockHolder>,
    /// Why it stays (empty when it goes).
    pub kept: Vec<Keep>,
    /// The removal it gets: `rail worktree remove`'s verdict, never forced (what its claims
    /// release, whether its branch is deleted).
    pub removal: Removal,
    /// Why it goes, or why it stays, in a sentence.
    pub message: String,
}

/// May `station` be pruned, given what the host saw of who is in it?
pub fn pruning(station: &Station, occupancy: &Occupancy) -> Pruning {
    let f = &station.facts;
    let holder = occupancy.lock_reason.as_deref().and_then(lock_holder);
    // An agent's lock whose session is gone no longer keeps anything: judged as unlocked.
    let stale_lock = f.locked
        && holder
            .as_ref()
            .is_some_and(|h| holder_gone(h, occupancy.lock_holder.as_ref()));
    let judged;
    let station = if stale_lock {
        let mut s = station.clone();
        s.facts.locked = false;
        judged = s;
        &judged
    } else {
        station
    };
    let removal = removal(station, false, &f.path);
    let mut kept: Vec<Keep> = removal
        .blockers
        .iter()
        .filter(|b| **b != Blocker::Locked)
        .cloned()
        .map(Keep::Work)
        .collect();
    if station.facts.locked {
        kept.push(Keep::Occupied(match holder.clone() {
            Some(holder) => Occupied::LockedBySession { holder },
            None => Occupied::Locked {
                reason: occupancy.lock_reason.clone().unwrap_or_default(),
            },
        }));
    }
    for claim in station.claims.iter().filter(|c| c.state.holds()) {
        kept.push(Keep::Occupied(Occupied::LiveClaim {
            claim: claim.clone(),
        }));
    }
    if occupancy.here && !f.main {
        kept.push(Keep::Occupied(Occupied::Here));
    }
    if let Some(processes) = occupancy.processes.as_ref().filter(|p| !p.is_empty()) {
        if !f.main {
            kept.push(Keep::Occupied(Occupied::Processes {
                processes: processes.clone(),
            }));
        }
    }
    if let Some(path) = &occupancy.unreadable {
        kept.push(Keep::Occupied(Occupied::Unreadable { path: path.clone() }));
    }
    let remove = kept.is_empty() && removal.allowed;
    let label = match &f.branch {
        Some(b) => format!("{} (branch {b})", f.path),
        None => format!("{} (detached HEAD)", f.path),
    };
    let message = if remove {
        format!(
            "{label} may be pruned: nothing uncommitted, every commit in {}, nobody working in it{}",
            f.base.as_deref().unwrap_or("its base"),
            if stale_lock {
                "; its agent's lock is left from a session that is gone"
            } else {
                ""
            }
        )
    } else {
        format!(
            "kept {label}: {}",
            kept.iter()
                .map(Keep::describe)
                .collect::<Vec<_>>()
                .join("; ")
        )
    };
    Pruning {
        remove,
        unlock: (remove && stale_lock).then_some(holder).flatten(),
        kept: if remove { Vec::new() } else { kept },
        removal,
        message,
    }
}

/// A byte count as people read it: `0 B`, `812 B`, `4.0 KiB`, `1.3 GiB`.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests;
