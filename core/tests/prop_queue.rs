//! Queued operations across machines, simulated: machines publish, fetch stale copies of each
//! other's queues, commit on the tip they saw (the remote's compare-and-swap rejects the rest),
//! learn their operations' fates from the chain, answer refusals early where the window allows,
//! and sometimes stop for good; an older Rail commits without a record. Whatever the schedule:
//! no operation is decided twice, an operation its machine found dead is never decided after,
//! an operation answered "refused" early is never applied later, and every answer a machine
//! learned is the one decision the chain holds.

use std::collections::BTreeMap;

use proptest::prelude::*;
use rail_core::change::ops::{self, ClaimRequest, Request};
use rail_core::change::queue::{
    self, Commit, Fate, Folding, Op, OpDecision, Queue, Record, Recorded,
};
use rail_core::change::snapshot::{self, SharedFiles};
use rail_core::model::input::Facts;
use serde_json::json;

const TASKS: [&str; 3] = ["t0", "t1", "t2"];
const SESSIONS: [&str; 3] = ["s0", "s1", "s2"];

#[derive(Clone, Debug)]
struct Job {
    id: String,
    session: String,
    request: Request,
    base: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
enum Answer {
    /// From a decision in the chain (learned, or the machine's own commit).
    Decided(serde_json::Value),
    /// Refused on the tip's state before any commit decided it.
    EarlyRefusal,
}

#[derive(Debug)]
struct Machine {
    name: String,
    view: usize,
    seen: Vec<Queue>,
    jobs: Vec<Job>,
    answers: BTreeMap<String, Answer>,
    /// Operations found dead, with the view they were found dead at.
    dead_ops: Vec<(String, usize)>,
    stopped: bool,
}

#[derive(Debug)]
struct World {
    /// Commits oldest first, with the files each holds.
    chain: Vec<(Commit, SharedFiles)>,
    queues: BTreeMap<String, Queue>,
    machines: Vec<Machine>,
    facts: Facts,
    next_id: u32,
}

fn cid(i: usize) -> String {
    format!("{:040x}", i + 1)
}

impl World {
    fn new(n: usize) -> World {
        let now = rail_core::text::time::parse_time("2026-01-01T00:00:00Z").unwrap();
        World {
            chain: vec![(
                Commit {
                    id: cid(0),
                    parent: None,
                    record: Recorded::None,
                },
                SharedFiles::new(),
            )],
            queues: BTreeMap::new(),
            machines: (0..n)
                .map(|i| Machine {
                    name: format!("m{i}"),
                    view: 0,
                    seen: Vec::new(),
                    jobs: Vec::new(),
                    answers: BTreeMap::new(),
                    dead_ops: Vec::new(),
                    stopped: false,
                })
                .collect(),
            facts: Facts::at(now),
            next_id: 0,
        }
    }

    fn tip(&self) -> usize {
        self.chain.len() - 1
    }

    /// The chain from commit `at` back to the root, tip first.
    fn chain_from(&self, at: usize) -> Vec<Commit> {
        self.chain[..=at]
            .iter()
            .rev()
            .map(|(c, _)| c.clone())
            .collect()
    }

    fn ask(&mut self, m: usize, kind: u8, task: usize, session: usize) {
        let task = TASKS[task % TASKS.len()].to_string();
        let request = if kind.is_multiple_of(2) {
            Request::Claim(ClaimRequest {
                task,
                ..ClaimRequest::default()
            })
        } else {
            Request::Release {
                task,
                touched: vec![],
                done: false,
            }
        };
        self.next_id += 1;
        let id = format!("op-{}", self.next_id);
        self.machines[m].jobs.push(Job {
            id,
            session: SESSIONS[session % SESSIONS.len()].to_string(),
            request,
            base: None,
        });
    }

    fn fetch(&mut self, m: usize) {
        let tip = self.tip();
        let seen: Vec<Queue> = self.queues.values().cloned().collect();
        let me = &mut self.machines[m];
        me.view = tip;
        me.seen = seen;
    }

    fn refused_on(&self, at: usize, job: &Job) -> bool {
        ops::plan(
            &snapshot::texts(&self.chain[at].1),
            &self.facts,
            &job.session,
            &job.request,
        )
        .is_err()
    }

    /// Learns the fates of this machine's published jobs from the chain up to its view.
    fn learn(&mut self, m: usize) {
        let view = self.machines[m].view;
        let chain = self.chain_from(view);
        let name = self.machines[m].name.clone();
        let jobs = std::mem::take(&mut self.machines[m].jobs);
        let mut left = Vec::new();
        for mut job in jobs {
            let Some(base) = job.base.clone() else {
                left.push(job);
                continue;
            };
            match queue::fate(&name, &job.id, &base, &chain) {
                Fate::Decided { outcome, .. } => {
                    self.machines[m]
                        .answers
                        .insert(job.id.clone(), Answer::Decided(outcome));
                }
                Fate::Pending {
                    refusal_final: true,
                } if self.refused_on(view, &job) => {
                    self.machines[m]
                        .answers
                        .insert(job.id.clone(), Answer::EarlyRefusal);
                }
                Fate::Pending { .. } => left.push(job),
                Fate::Dead => {
                    self.machines[m].dead_ops.push((job.id.clone(), view));
                    job.base = None;
                    left.push(job);
                }
                Fate::Unknown => panic!("the whole chain was read: {job:?}"),
            }
        }
        self.machines[m].jobs = left;
    }

    fn publish(&mut self, m: usize) {
        let view_id = self.chain[self.machines[m].view].0.id.clone();
        let me = &mut self.machines[m];
        for job in &mut me.jobs {
            job.base.get_or_insert_with(|| view_id.clone());
        }
        let ops: Vec<Op> = me
            .jobs
            .iter()
            .map(|j| Op {
                id: j.id.clone(),
                base: j.base.clone().unwrap(),
                session: j.session.clone(),
                request: j.request.clone(),
                extra_log: vec![],
                now_ms: 0,
                deadline_ms: i64::MAX,
            })
            .collect();
        let text = queue::render_queue(&me.name, &ops);
        let parsed = queue::parse_queue(&me.name, &text).unwrap();
        assert!(parsed.dropped.is_empty(), "{:?}", parsed.dropped);
        self.queues.insert(me.name.clone(), parsed);
    }

    /// A round that commits: fold on the view, push; rejected unless the view is the tip.
    fn commit(&mut self, m: usize) {
        self.learn(m);
        let view = self.machines[m].view;
        let name = self.machines[m].name.clone();
        let (tip_commit, base_files) = self.chain[view].clone();
        let seen = self.machines[m].seen.clone();
        let foreign: Vec<(String, Op)> = queue::eligible(&self.chain_from(view), &seen, &name)
            .into_iter()
            .map(|c| (c.machine.to_string(), c.op.clone()))
            .collect();
        let jobs = self.machines[m].jobs.clone();
        let mut folding: Vec<Folding<'_>> = jobs
            .iter()
            .map(|j| Folding {
                session: &j.session,
                request: &j.request,
                extra_log: &[],
                now: self.facts.now,
                foreign: false,
                expired: false,
                machine: None,
            })
            .collect();
        folding.extend(foreign.iter().map(|(_, op)| Folding {
            session: &op.session,
            request: &op.request,
            extra_log: &[],
            now: self.facts.now,
            foreign: true,
            expired: false,
            machine: None,
        }));
        let mut files = base_files.clone();
        let (verdicts, _) = queue::fold(&mut files, &self.facts, &folding);
        let outcome = |v: &queue::FoldVerdict| match v {
            queue::FoldVerdict::Planned { changed, .. } => {
                json!({ "done": true, "changed": changed })
            }
            _ => json!({ "done": false }),
        };
        if view != self.tip() {
            // Rejected: the queue rides on the same push. Refusals on the base are answered
            // where the window allows; the rest is published.
            let chain = self.chain_from(view);
            let mut left = Vec::new();
            for (job, v) in jobs.into_iter().zip(&verdicts) {
                let final_refusal = match &job.base {
                    None => true,
                    Some(b) => {
                        queue::fate(&name, &job.id, b, &chain)
                            == Fate::Pending {
                                refusal_final: true,
                            }
                    }
                };
                if matches!(v, queue::FoldVerdict::Refused { on_base: true, .. }) && final_refusal {
                    self.machines[m]
                        .answers
                        .insert(job.id.clone(), Answer::EarlyRefusal);
                } else {
                    left.push(job);
                }
            }
            self.machines[m].jobs = left;
            self.publish(m);
            return;
        }
        let mut decided: Vec<OpDecision> = Vec::new();
        for (job, v) in jobs.iter().zip(&verdicts) {
            decided.push(OpDecision {
                machine: name.clone(),
                id: job.id.clone(),
                outcome: outcome(v),
            });
            self.machines[m]
                .answers
                .insert(job.id.clone(), Answer::Decided(outcome(v)));
        }
        for ((machine, op), v) in foreign.iter().zip(&verdicts[jobs.len()..]) {
            decided.push(OpDecision {
                machine: machine.clone(),
                id: op.id.clone(),
                outcome: outcome(v),
            });
        }
        self.machines[m].jobs.clear();
        let record = Recorded::Some(Record {
            machine: name,
            decided,
            ..Default::default()
        });
        // Through the message, as the remote carries it.
        let message = match &record {
            Recorded::Some(r) => queue::render_message("rail: round", r),
            _ => unreachable!(),
        };
        assert_eq!(queue::read_message(&message), record);
        let id = cid(self.chain.len());
        self.chain.push((
            Commit {
                id,
                parent: Some(tip_commit.id),
                record,
            },
            files,
        ));
    }

    /// An older Rail's round: a commit on the tip with no record, deciding no queued operation.
    fn old_commit(&mut self, task: usize) {
        let tip = self.tip();
        let mut files = self.chain[tip].1.clone();
        let request = Request::Claim(ClaimRequest {
            task: TASKS[task % TASKS.len()].into(),
            ..ClaimRequest::default()
        });
        if let Ok(plan) = ops::plan(&snapshot::texts(&files), &self.facts, "old", &request) {
            let new = snapshot::apply_plan(&files, &plan, &[]).unwrap();
            files.extend(new);
        }
        let id = cid(self.chain.len());
        let parent = Some(self.chain[tip].0.id.clone());
        self.chain.push((
            Commit {
                id,
                parent,
                record: Recorded::None,
            },
            files,
        ));
    }

    /// One step of the schedule: `action` out of 20, weighted towards asking, fetching and
    /// committing (where machines race).
    fn step(&mut self, action: u8, m: usize, a: u8, b: u8) {
        let m = m % self.machines.len();
        let action = action % 20;
        if self.machines[m].stopped && action != 19 {
            return;
        }
        match action {
            0..=4 => self.ask(m, a, a as usize / 2, b as usize),
            5..=8 => self.fetch(m),
            9..=10 => self.learn(m),
            11..=15 => self.commit(m),
            16..=17 => {
                self.learn(m);
                self.publish(m);
            }
            18 => self.old_commit(a as usize),
            _ => self.machines[m].stopped = b.is_multiple_of(4),
        }
    }

    /// Every decision in the chain, by (machine, id), with the commit that made it, checked to
    /// be the only one.
    fn decisions(&self) -> BTreeMap<(String, String), (usize, serde_json::Value)> {
        let mut all = BTreeMap::new();
        for (i, (c, _)) in self.chain.iter().enumerate() {
            if let Recorded::Some(r) = &c.record {
                for d in &r.decided {
                    let again =
                        all.insert((d.machine.clone(), d.id.clone()), (i, d.outcome.clone()));
                    assert!(again.is_none(), "{} decided twice", d.id);
                }
            }
        }
        all
    }

    fn check(&self) {
        let all = self.decisions();
        for m in &self.machines {
            for (id, answer) in &m.answers {
                let decided = all.get(&(m.name.clone(), id.clone())).map(|(_, o)| o);
                match answer {
                    Answer::Decided(o) => assert_eq!(Some(o), decided, "{id}: learned {o}"),
                    Answer::EarlyRefusal => {
                        if let Some(o) = decided {
                            assert_eq!(o["done"], false, "{id} answered refused, then applied");
                        }
                    }
                }
            }
            // Found dead at a view: no commit up to it decided the operation (a decision
            // later is of the copy its machine published again).
            for (id, view) in &m.dead_ops {
                if let Some((at, _)) = all.get(&(m.name.clone(), id.clone())) {
                    assert!(at > view, "{id} found dead at {view}, decided at {at}");
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn every_queued_operation_is_decided_at_most_once_and_answered_truly(
        n in 2usize..4,
        steps in proptest::collection::vec((0u8..20, 0usize..4, any::<u8>(), any::<u8>()), 1..100),
    ) {
        let mut w = World::new(n);
        for (action, m, a, b) in steps {
            w.step(action, m, a, b);
            w.check();
        }
        // Every machine still running gets its operations answered: fetch, learn, commit.
        for _ in 0..6 {
            for m in 0..n {
                if !w.machines[m].stopped {
                    w.fetch(m);
                    w.commit(m);
                }
            }
            w.check();
        }
        for m in w.machines.iter().filter(|m| !m.stopped) {
            prop_assert!(m.jobs.is_empty(), "{} left {:?}", m.name, m.jobs);
        }
        let mut held: BTreeMap<String, usize> = BTreeMap::new();
        let tip = &w.chain[w.tip()].1;
        let doc = rail_core::formats::claims_md::parse(tip.get("claims.md").map_or("", String::as_str));
        for (_, c) in doc.claims() {
            *held.entry(c.task.clone()).or_default() += 1;
        }
        prop_assert!(held.values().all(|n| *n == 1), "{held:?}");
    }
}
