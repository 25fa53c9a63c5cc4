//! Tasks blocked on others, and the backlog: a claim waiting for tasks not released yet, and
//! each `- [ ] task` line of claims.md with where it stands — ready, blocked on unreleased
//! tasks, busy (its paths or resources held by another session's claim), claimed, done.

use std::collections::{BTreeSet, HashMap};

use serde::Serialize;

use crate::formats::log::{Log, LogEvent};
use crate::model::conflict::{clashing, holder_of, LISTED_CLAIMS};
use crate::model::{Claim, Evaluation};

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

/// The claims of each task, found once: looking a task up among every claim for each
/// dependency and each backlog line is quadratic.
struct Holders<'a>(HashMap<&'a str, Vec<&'a Claim>>);

impl<'a> Holders<'a> {
    fn new(eval: &'a Evaluation) -> Holders<'a> {
        let mut by_task: HashMap<&str, Vec<&Claim>> = HashMap::new();
        for claim in &eval.claims {
            if let Some(task) = &claim.task {
                by_task.entry(task).or_default().push(claim);
            }
        }
        Holders(by_task)
    }

    /// The session holding `task`, if anyone does.
    fn of(&self, task: &str) -> Option<String> {
        Some(holder_of(self.0.get(task)?)?.session.clone())
    }
}

pub fn blocked(eval: &Evaluation, log: &Log) -> Vec<Blocked> {
    let released = released_tasks(eval, log);
    let holders = Holders::new(eval);
    let mut out = Vec::new();
    for claim in &eval.claims {
        let waiting: Vec<Waiting> = claim
            .after
            .iter()
            .filter(|dep| !released.contains(*dep))
            .map(|dep| Waiting {
                task: dep.clone(),
                held_by: holders.of(dep),
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
    /// The holding claims whose paths or resources it shares, when busy: the first six.
    pub busy_with: Vec<Waiting>,
    /// How many more claims it is busy with than `busy_with` lists. Present only when some
    /// are left out.
    #[serde(skip_serializing_if = "crate::model::is_zero")]
    #[cfg_attr(feature = "ts", ts(as = "Option<usize>", optional))]
    pub busy_unlisted: usize,
}

/// The backlog with each task's status; `rail ready` lists the `ready` ones. A task that could
/// start but whose paths or resources another session's holding claim has (`session`: who asks;
/// `None`: anyone's claim counts) is `busy`, with those claims named: claiming it would be
/// refused until they are free.
pub fn backlog(eval: &Evaluation, log: &Log, session: Option<&str>) -> Vec<PlannedView> {
    let released = released_tasks(eval, log);
    let holders = Holders::new(eval);
    let asker = session.unwrap_or("");
    let mut views: Vec<PlannedView> = eval
        .planned
        .iter()
        .map(|p| {
            let holder = holders.of(&p.task);
            let waiting_for: Vec<Waiting> = p
                .after
                .iter()
                .filter(|dep| !released.contains(*dep))
                .map(|dep| Waiting {
                    task: dep.clone(),
                    held_by: holders.of(dep),
                })
                .collect();
            let status = if p.done {
                PlannedStatus::Done
            } else if holder.is_some() {
                PlannedStatus::Claimed
            } else if !waiting_for.is_empty() {
                PlannedStatus::Blocked
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
                busy_with: Vec::new(),
                busy_unlisted: 0,
            }
        })
        .collect();
    // Every task that could start, judged at once as a claim of it would be: a probe each, of
    // the asking session (so probes never clash with one another), live from whenever (only
    // paths, resources and session are compared), and of no task (so two lines of one task are
    // not a duplicate).
    let mut ready: Vec<usize> = Vec::new();
    let mut probes: Vec<Claim> = Vec::new();
    for (i, p) in eval.planned.iter().enumerate() {
        if views[i].status != PlannedStatus::Ready || (p.paths.is_empty() && p.resources.is_empty())
        {
            continue;
        }
        let lease = p.lease.unwrap_or_default();
        let mut probe = Claim::probe(&p.task, asker, Default::default(), lease);
        probe.task = None;
        probe.paths = p.paths.clone();
        probe.resources = p.resources.clone();
        ready.push(i);
        probes.push(probe);
    }
    for (i, ids) in ready.into_iter().zip(clashing(&eval.claims, probes)) {
        let (busy_with, busy_unlisted) = busy_with(eval, &ids, asker);
        let view = &mut views[i];
        if !busy_with.is_empty() {
            view.status = PlannedStatus::Busy;
        }
        (view.busy_with, view.busy_unlisted) = (busy_with, busy_unlisted);
    }
    views
}

/// The holding claims of other sessions than `asker` among `ids`, each claim once as task and
/// session: the first [`LISTED_CLAIMS`], and how many more.
fn busy_with(eval: &Evaluation, ids: &[usize], asker: &str) -> (Vec<Waiting>, usize) {
    let mut out: Vec<Waiting> = Vec::new();
    let mut unlisted = 0;
    for id in ids {
        let Some(held) = eval.claims.get(*id) else {
            continue;
        };
        if eval.acts_for(asker, held) || !held.state().holds() {
            continue;
        }
        let w = Waiting {
            task: held.task.clone().unwrap_or_default(),
            held_by: Some(held.session.clone()),
        };
        if out.contains(&w) {
            continue;
        }
        // Named up to a conflict's few; the rest counted.
        if out.len() < LISTED_CLAIMS {
            out.push(w);
        } else {
            unlisted += 1;
        }
    }
    (out, unlisted)
}
