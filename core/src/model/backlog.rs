//! Tasks blocked on others, and the backlog: a claim waiting for tasks not released yet, and
//! each `- [ ] task` line of claims.md with where it stands — ready, blocked on unreleased
//! tasks, busy (its paths or resources held by another session's claim), claimed, done.

use std::collections::{BTreeSet, HashMap};

use serde::Serialize;

use crate::formats::log::{Log, LogEvent};
use crate::model::conflict::{conflicts_of, holder_of};
use crate::model::{Claim, Evaluation, Planned};

/// A claim waiting for tasks that are not released yet.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Blocked {
    pub claim: usize,
    pub task: Option<String>,
    pub session: String,
    pub waiting_for: Vec<Waiting>,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Waiting {
    pub task: String,
    /// Who holds it now, if anyone.
    pub held_by: Option<String>,
}

/// Tasks released for good: a `released` or passing `done` in the log, or a released claim
/// file, with no claim on the task now.
pub fn released_tasks(eval: &Evaluation, log: &Log) -> BTreeSet<String> {
    let mut done: BTreeSet<String> = BTreeSet::new();
    for entry in &log.entries {
        let counts = match entry.event {
            LogEvent::Released => true,
            LogEvent::Done => entry.details.get("verdict").map(String::as_str) == Some("passed"),
            _ => false,
        };
        if counts {
            if let Some(task) = &entry.task {
                done.insert(task.clone());
            }
        }
    }
    for r in &eval.released {
        if let Some(task) = &r.task {
            done.insert(task.clone());
        }
    }
    // A ticked backlog entry (`- [x] task`) is done.
    for p in eval.planned.iter().filter(|p| p.done) {
        done.insert(p.task.clone());
    }
    for claim in &eval.claims {
        if let Some(task) = &claim.task {
            done.remove(task);
        }
    }
    for b in &eval.broken {
        done.remove(&b.task);
    }
    done
}

pub fn blocked(eval: &Evaluation, log: &Log) -> Vec<Blocked> {
    let released = released_tasks(eval, log);
    // Claims by task, built once: scanning every claim for each dependency is quadratic.
    let mut by_task: HashMap<&str, Vec<&Claim>> = HashMap::new();
    for claim in &eval.claims {
        if let Some(task) = &claim.task {
            by_task.entry(task).or_default().push(claim);
        }
    }
    let mut out = Vec::new();
    for claim in &eval.claims {
        let waiting: Vec<Waiting> = claim
            .after
            .iter()
            .filter(|dep| !released.contains(*dep))
            .map(|dep| Waiting {
                task: dep.clone(),
                held_by: by_task
                    .get(dep.as_str())
                    .and_then(|claims| holder_of(claims))
                    .map(|c| c.session.clone()),
            })
            .collect();
        if waiting.is_empty() {
            continue;
        }
        let list = waiting
            .iter()
            .map(|w| match &w.held_by {
                Some(s) => format!("{} (held by {s})", w.task),
                None => format!("{} (not released yet)", w.task),
            })
            .collect::<Vec<_>>()
            .join(", ");
        out.push(Blocked {
            claim: claim.id,
            task: claim.task.clone(),
            session: claim.session.clone(),
            message: format!("{} waits for {list}", claim.label()),
            waiting_for: waiting,
        });
    }
    out
}

/// Where a backlog task stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum PlannedStatus {
    /// Its dependencies are released and nobody holds it: it can start.
    Ready,
    /// It waits for tasks that are not released yet.
    Blocked,
    /// It could start, but its paths or resources are held by another session's claim.
    Busy,
    /// Someone claimed it.
    Claimed,
    /// Ticked off.
    Done,
}

/// A backlog task and where it stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PlannedView {
    pub task: String,
    pub status: PlannedStatus,
    pub file: String,
    pub line: u32,
    pub after: Vec<String>,
    pub paths: Vec<String>,
    pub resources: Vec<String>,
    pub purpose: Option<String>,
    /// Who holds it, when claimed.
    pub held_by: Option<String>,
    /// Unreleased dependencies, when blocked.
    pub waiting_for: Vec<Waiting>,
    /// The holding claims whose paths or resources it shares, when busy.
    pub busy_with: Vec<Waiting>,
}

/// The backlog with each task's status; `rail ready` lists the `ready` ones. A task that could
/// start but whose paths or resources another session's holding claim has (`session`: who asks;
/// `None`: anyone's claim counts) is `busy`, with those claims named: claiming it would be
/// refused until they are free.
pub fn backlog(eval: &Evaluation, log: &Log, session: Option<&str>) -> Vec<PlannedView> {
    let released = released_tasks(eval, log);
    eval.planned
        .iter()
        .map(|p| {
            let holder = holder_of(&eval.claims_of(&p.task)).map(|c| c.session.clone());
            let waiting_for: Vec<Waiting> = p
                .after
                .iter()
                .filter(|dep| !released.contains(*dep))
                .map(|dep| Waiting {
                    task: dep.clone(),
                    held_by: holder_of(&eval.claims_of(dep)).map(|c| c.session.clone()),
                })
                .collect();
            let busy_with = match (p.done, &holder, waiting_for.is_empty()) {
                (false, None, true) => busy_with(eval, p, session),
                _ => Vec::new(),
            };
            let status = if p.done {
                PlannedStatus::Done
            } else if holder.is_some() {
                PlannedStatus::Claimed
            } else if !waiting_for.is_empty() {
                PlannedStatus::Blocked
            } else if !busy_with.is_empty() {
                PlannedStatus::Busy
            } else {
                PlannedStatus::Ready
            };
            PlannedView {
                task: p.task.clone(),
                status,
                file: p.file.clone(),
                line: p.line,
                after: p.after.clone(),
                paths: p.paths.clone(),
                resources: p.resources.clone(),
                purpose: p.purpose.clone(),
                held_by: holder,
                waiting_for,
                busy_with,
            }
        })
        .collect()
}

/// The holding claims of other sessions than `session` whose paths or resources a claim of the
/// planned task `p` would clash with (each claim once, as task and session).
fn busy_with(eval: &Evaluation, p: &Planned, session: Option<&str>) -> Vec<Waiting> {
    if p.paths.is_empty() && p.resources.is_empty() {
        return Vec::new();
    }
    let asker = session.unwrap_or("");
    // Live from whenever: only its paths, resources and session are compared.
    let mut probe = Claim::probe(
        &p.task,
        asker,
        Default::default(),
        p.lease.unwrap_or_default(),
    );
    probe.paths = p.paths.clone();
    probe.resources = p.resources.clone();
    let mut out: Vec<Waiting> = Vec::new();
    for c in conflicts_of(&eval.claims, probe) {
        for id in c.claims {
            let Some(held) = eval.claims.get(id) else {
                continue;
            };
            if crate::text::ident::acts_for(asker, &held.session) || !held.state().holds() {
                continue;
            }
            let w = Waiting {
                task: held.task.clone().unwrap_or_default(),
                held_by: Some(held.session.clone()),
            };
            if !out.contains(&w) {
                out.push(w);
            }
        }
    }
    out
}
