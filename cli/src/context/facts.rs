//! The facts core judges a rail by, gathered for one command: now, this host, whether each
//! owner process a claim names is alive (and when it started), commit times per branch, the
//! guard marks and the worktrees. Observations only: what they mean is core's.

use rail_core::model::input::{Facts, RailTexts, Worktree};
use rail_core::model::lease::LeaseState;
use rail_core::model::{Evaluation, Rail};

use super::Ctx;
use crate::git::{self, repo};
use crate::store::{lock, machine_id};

/// How much effort to spend on commit times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Commits {
    /// Always ask git, and read the guard marks and worktrees too (the board shows them).
    Always,
    /// Only if some claim is not plainly live without them (commits can only extend leases).
    IfNeeded,
}

/// A rail judged as of the command's time: the facts gathered and core's evaluation on them.
pub struct Judged {
    pub facts: Facts,
    pub eval: Evaluation,
}

impl Ctx {
    /// Facts as of `self.now` for these texts.
    pub fn facts(&self, texts: &RailTexts, commits: Commits) -> Facts {
        self.judge(&Rail::load(texts), commits).facts
    }

    /// The facts for a rail already loaded, and core's evaluation on them, made once: the
    /// owner processes the rail names are probed before it is evaluated, and commit times are
    /// asked of git (and the rail evaluated again) only when a claim is not live without them.
    pub fn judge(&self, rail: &Rail, commits: Commits) -> Judged {
        let mut facts = Facts::at(self.now);
        facts.host = lock::hostname();
        // On a shared rail leases count from this machine's sightings too (issue 42, finding
        // 4): every read and every round judges by the same rule.
        if matches!(self.remote(), Ok(Some(_))) {
            facts.observing = true;
            facts.observed = (self.repo.as_ref())
                .map(crate::store::observed::sightings)
                .unwrap_or_default();
        }
        facts.machine = self.machine_here();
        probe_owners(rail.owner_pids(), &mut facts);
        if commits == Commits::Always {
            facts.commits = self.commit_times();
            if let Some(repo) = &self.repo {
                facts.hooks = crate::store::heartbeat::read_all(repo);
                facts.worktrees = repo::worktrees(repo)
                    .into_iter()
                    .map(|(path, branch)| Worktree {
                        path: path.display().to_string(),
                        branch,
                    })
                    .collect();
            }
        }
        let eval = rail.evaluate(&facts);
        if commits == Commits::IfNeeded && eval.claims.iter().any(|c| c.state() != LeaseState::Live)
        {
            facts.commits = self.commit_times();
            let eval = rail.evaluate(&facts);
            return Judged { facts, eval };
        }
        Judged { facts, eval }
    }

    /// This clone's machine id, which judges whose claims are whose on a shared rail (core's
    /// `ident::on_machine`): made on first use where the rail is shared, read where it was
    /// once (`RAIL_LOCAL=1` on a shared clone). On a shared rail it is never `None`: an id
    /// that cannot be had reads as one no claim records, so no other machine's claim is
    /// taken for this one's.
    pub fn machine_here(&self) -> Option<String> {
        let git_dir = crate::store::gitguard::git_dir_of(&self.rail.root)?;
        let dir = git_dir.join("rail").join("exchange");
        if matches!(self.remote(), Ok(Some(_))) {
            let _ = std::fs::create_dir_all(&dir);
            return Some(machine_id::machine(&dir).unwrap_or_else(|_| "-".into()));
        }
        machine_id::existing(&dir)
    }

    /// Every branch's last commit time (leases run on them), judged against the main
    /// checkout's branch.
    fn commit_times(&self) -> std::collections::BTreeMap<String, chrono::DateTime<chrono::Utc>> {
        let base = self
            .repo
            .as_ref()
            .and_then(|r| repo::head_branch(&r.common_dir));
        git::branch_commit_times(&self.rail.root, base.as_deref())
    }
}

/// Records in `facts` whether each owner process core names for the `pid` fields `pids`
/// (`Facts::owner_probes`: this host's, each once) is alive and, for a live one a claim
/// recorded a start time for, when it started: core decides whether it is the owner.
pub fn probe_owners<'a>(pids: impl Iterator<Item = &'a str>, facts: &mut Facts) {
    for probe in facts.owner_probes(pids) {
        if let Some(alive) = lock::pid_alive(probe.pid, None) {
            if alive && probe.wants_start {
                if let Some(start) = lock::process_start(probe.pid) {
                    facts.process_starts.insert(probe.key.clone(), start);
                }
            }
            facts.processes.insert(probe.key, alive);
        }
    }
}
