//! A round whose move is to commit: this machine's open jobs and the other machines' eligible
//! operations folded into one commit (core's `round::fold_order` and `queue::fold`), whose
//! message records every decision, pushed with this machine's queue and guard marks when they
//! ride along; then what the push's answer means (core's `round::after_push`), and the state
//! mirrored into the checkout.

use std::time::Instant;

use chrono::{DateTime, Utc};
use rail_core::change::ops::Request;
use rail_core::change::proof::Step;
use rail_core::change::queue::{self, FoldVerdict, Folding, Op, OpDecision, Record};
use rail_core::change::round::{self, AfterPush, OwnJob, Settled, Slot, Standing};

use super::look::{Inputs, Looked};
use super::publish::{queue_ops, share_marks_alone, MarksCommit, QueueCommit};
use super::{answer, trace, Leader, Round};
use crate::fail::Fail;
use crate::git;
use crate::out::outcome::Report;
use crate::shared::exchange::Job;
use crate::shared::remote::{Pushed, Update};
use crate::shared::state::SharedState;
use crate::shared::{self, NewCommit};
use crate::sys::clock;

/// Drops the state kept from before a rewind.
const DROP_REWIND: [&str; 3] = ["update-ref", "-d", shared::BEFORE_REWIND];

/// Folds, commits and pushes (with this machine's queue when `publish`, so a lost push still
/// leaves the jobs for the winner's next commit).
pub fn commit(
    inputs: &Inputs<'_>,
    jobs: &[Job],
    l: &mut Leader,
    mut looked: Looked,
    publish: bool,
) -> Round {
    let (ctx, remote) = (inputs.ctx, inputs.remote);
    let now_ms = clock::now_ms();
    let facts = looked.facts(ctx, remote).clone();
    // This machine's open jobs with an operation (a sync has none).
    let own: Vec<usize> = (0..jobs.len())
        .filter(|i| looked.standing[*i] != Standing::Answered && jobs[*i].request.is_some())
        .collect();
    let order = {
        let own_jobs: Vec<OwnJob<'_>> = (own.iter())
            .map(|&index| OwnJob {
                index,
                now_ms: jobs[index].now_ms,
                id: &jobs[index].id,
            })
            .collect();
        let candidates: Vec<queue::Candidate<'_>> = (looked.candidates.iter())
            .map(|(machine, op)| queue::Candidate { machine, op })
            .collect();
        round::fold_order(&l.machine, &own_jobs, &candidates)
    };
    let folding = folding(&order, jobs, &looked.candidates, &l.machine, &facts, now_ms);
    let (verdicts, folded) = queue::fold(&mut looked.files, &facts, &folding);
    looked.changed.extend(folded);
    let settled = Settled::of(&order, &verdicts, &looked.standing);
    let mut answers: Vec<Report> = jobs.iter().map(|_| Report::default()).collect();
    let (done, decided) = record(
        &order,
        &verdicts,
        jobs,
        &looked.candidates,
        &l.machine,
        &mut answers,
    );
    // Answered already (learned from other machines' commits).
    for (i, answer) in &looked.answered {
        answers[*i] = answer.clone();
    }
    if round::replan(looked.own_push.is_some(), &settled) {
        return Round::Stale;
    }
    let foreign_decided = !looked.candidates.is_empty();
    let (commit_id, pushed) = if looked.changed.is_empty() && !foreign_decided {
        // A `rail sync` with nothing for the rail still shares this machine's guard marks.
        if jobs.iter().any(|j| j.request.is_none()) {
            share_marks_alone(ctx, inputs.dir, remote, inputs.deadline, l);
        }
        shared::settle_provisional(ctx, &looked.provisional, &looked.offered);
        if looked.rewound.is_some() {
            let _ = git::run(inputs.dir, &git::GitLine::new(&DROP_REWIND));
        }
        (looked.state.commit.clone(), None)
    } else {
        let steps = steps(&looked, &order, &verdicts, jobs, &l.machine);
        let message = message(l, &looked, &done, decided, steps, foreign_decided);
        let answered: Vec<usize> = looked.answered.iter().map(|(i, _)| *i).collect();
        let open: Vec<(usize, bool)> = (own.iter())
            .map(|&i| (i, matches!(jobs[i].request, Some(Request::Take { .. }))))
            .collect();
        let tip = Some(looked.tip.as_str());
        let publish_now =
            round::publish_with_commit(publish, &l.memory, now_ms, tip, &open, &settled, &answered);
        let folded = verdicts.len();
        let landed = match push(
            inputs,
            jobs,
            l,
            &looked,
            &message,
            &publish_now,
            folded,
            now_ms,
        ) {
            Ok(pushed) => pushed,
            Err(fail) => return Round::Failed(fail),
        };
        match round::after_push(&landed.0, looked.own_push.is_some()) {
            AfterPush::Landed => {
                let id = landed.1;
                let _ = git::run(
                    inputs.dir,
                    &git::GitLine::new(&["update-ref", shared::FETCHED]).operand(id.as_str()),
                );
                if l.keys.is_some() {
                    let common = ctx.repo.as_ref().map(|r| r.common_dir.as_path());
                    shared::proof::proved(inputs.dir, common, &id);
                }
                l.seen = (looked.rewound.is_none()).then(|| shared::Seen {
                    kept: None,
                    fetched: Some(id.clone()),
                });
                l.memory.landed(&id, now_ms);
                shared::settle_provisional(ctx, &looked.provisional, &looked.offered);
                if looked.rewound.is_some() {
                    let _ = git::run(inputs.dir, &git::GitLine::new(&DROP_REWIND));
                }
                (Some(id.clone()), Some(id))
            }
            AfterPush::Replan => return Round::Stale,
            AfterPush::Lost => {
                let mut answered = looked.answered;
                for i in settled.early {
                    answered.push((i, answers[i].clone()));
                }
                return Round::Rejected(answered);
            }
            AfterPush::Declined => {
                let reason = match landed.0 {
                    Pushed::Declined(reason) => reason,
                    _ => String::new(),
                };
                return Round::Failed(Fail::env(format!(
                    "{remote} declined the push to {}, nothing was changed: {reason}",
                    shared::REF
                )));
            }
        }
    };
    // Every own job is answered: drop them from what this machine has published.
    (l.memory.published).retain(|o| !jobs.iter().any(|j| j.id == o.id));
    shared::mark_synced(ctx);
    let state = SharedState {
        commit: commit_id,
        files: looked.files,
        foreign: looked.state.foreign.clone(),
    };
    l.memory.mirrored = state.commit.clone();
    let mirrored = shared::mirror(ctx, &state);
    for (job, answer) in jobs.iter().zip(answers.iter_mut()) {
        answer.warnings.extend(looked.warnings.iter().cloned());
        mirrored_answer(remote, job, answer, &state, &mirrored);
    }
    Round::Done(answers, pushed)
}

/// The fold's operations, in `order`, each at its requester's time.
fn folding<'a>(
    order: &[Slot],
    jobs: &'a [Job],
    candidates: &'a [(String, Op)],
    machine: &'a str,
    facts: &rail_core::model::input::Facts,
    now_ms: i64,
) -> Vec<Folding<'a>> {
    let time = |ms: i64, or: DateTime<Utc>| DateTime::from_timestamp_millis(ms).unwrap_or(or);
    (order.iter())
        .map(|slot| match *slot {
            Slot::Own(i) => {
                let j = &jobs[i];
                Folding {
                    session: &j.session,
                    request: j.request.as_ref().expect("own jobs with a request"),
                    extra_log: &j.extra_log,
                    now: time(j.now_ms, facts.now),
                    foreign: false,
                    expired: j.deadline_ms <= now_ms,
                    machine: Some(machine),
                }
            }
            Slot::Foreign(k) => {
                let (asker, op) = (&candidates[k].0, &candidates[k].1);
                Folding {
                    session: &op.session,
                    request: &op.request,
                    extra_log: &op.extra_log,
                    // Another machine's clock, never later than this one's: its leases are
                    // judged against this machine's sightings (issue 42, finding 4).
                    now: time(op.now_ms.min(now_ms), facts.now),
                    foreign: true,
                    expired: op.deadline_ms <= now_ms,
                    machine: Some(asker),
                }
            }
        })
        .collect()
}

/// The answers, as this machine words them, for its jobs (into `answers`) and for the commit's
/// record; and the operations the commit made, for its message.
fn record(
    order: &[Slot],
    verdicts: &[FoldVerdict],
    jobs: &[Job],
    candidates: &[(String, Op)],
    me: &str,
    answers: &mut [Report],
) -> (Vec<String>, Vec<OpDecision>) {
    let mut done = Vec::new();
    let mut decided = Vec::new();
    for (slot, verdict) in order.iter().zip(verdicts) {
        let answer = answer::worded(verdict);
        if let FoldVerdict::Planned {
            plan,
            changed: true,
        } = verdict
        {
            done.push(format!("{} {} by {}", plan.op, plan.task, plan.session));
        }
        let (machine, id) = match *slot {
            Slot::Own(i) => {
                answers[i] = answer.clone();
                (me.to_string(), jobs[i].id.clone())
            }
            Slot::Foreign(k) => (candidates[k].0.clone(), candidates[k].1.id.clone()),
        };
        decided.push(OpDecision {
            machine,
            id,
            outcome: serde_json::to_value(&answer).unwrap_or_default(),
        });
    }
    (done, decided)
}

/// The commit's message: what it made, a rewind's merge-back, and (with queues) the record of
/// every decision.
fn message(
    l: &Leader,
    looked: &Looked,
    done: &[String],
    decided: Vec<OpDecision>,
    steps: Vec<Step>,
    foreign_decided: bool,
) -> String {
    let summary = match done {
        [] if foreign_decided => "rail: answers to other machines' operations".to_string(),
        [] => format!(
            "rail: log lines recorded on {}",
            crate::store::lock::hostname()
        ),
        [one] => format!("rail: {one}"),
        many => format!("rail: {} operations\n\n{}", many.len(), many.join("\n")),
    };
    let summary = match &looked.rewound {
        Some(r) => format!("{summary}\n\n{}", r.message),
        None => summary,
    };
    // A team with keys proves every commit by its record, queues or not.
    if !l.on && l.keys.is_none() {
        return summary;
    }
    let record = Record {
        machine: l.machine.clone(),
        decided,
        steps,
    };
    queue::render_message(&summary, &record)
}

/// What the commit carries, in the order it was applied, for anyone to replay (core's
/// `proof::Step`): a merge-back, the provisional claims appended, then every operation made,
/// with the machine that asked for it.
fn steps(
    looked: &Looked,
    order: &[Slot],
    verdicts: &[FoldVerdict],
    jobs: &[Job],
    me: &str,
) -> Vec<Step> {
    let mut steps: Vec<Step> = looked.rewound.iter().map(|r| r.step.clone()).collect();
    if let Some(text) = &looked.appended {
        steps.push(Step::Appended { text: text.clone() });
    }
    for (slot, verdict) in order.iter().zip(verdicts) {
        if !matches!(verdict, FoldVerdict::Planned { changed: true, .. }) {
            continue;
        }
        let (machine, session, request, extra_log, now_ms) = match *slot {
            Slot::Own(i) => {
                let j = &jobs[i];
                let request = j.request.clone().expect("own jobs with a request");
                (me.to_string(), &j.session, request, &j.extra_log, j.now_ms)
            }
            Slot::Foreign(k) => {
                let (m, op) = &looked.candidates[k];
                (
                    m.clone(),
                    &op.session,
                    op.request.clone(),
                    &op.extra_log,
                    op.now_ms,
                )
            }
        };
        steps.push(Step::Op {
            machine,
            session: session.clone(),
            request,
            extra_log: extra_log.clone(),
            now_ms,
        });
    }
    steps
}

/// Makes the round's commit (with this machine's queue of `publish_now` and its guard marks
/// when they ride along) and pushes it. Returns the shared ref's push result and the commit.
#[allow(
    clippy::too_many_arguments,
    reason = "the round's parts, each read once"
)]
fn push(
    inputs: &Inputs<'_>,
    jobs: &[Job],
    l: &mut Leader,
    looked: &Looked,
    message: &str,
    publish_now: &[usize],
    folded: usize,
    now_ms: i64,
) -> Result<(Pushed, String), Fail> {
    let (ctx, dir, remote) = (inputs.ctx, inputs.dir, inputs.remote);
    let queue_ops = (!publish_now.is_empty())
        .then(|| queue_ops(l, jobs, &looked.standing, publish_now, &looked.tip));
    let rail_commit = NewCommit {
        tmp: shared::NEW,
        parent: looked.state.commit.as_deref(),
        merged: looked.rewound.as_ref().and_then(|r| r.seen.as_deref()),
        changed: &looked.changed,
        message,
    };
    let queue_commit = queue_ops.as_ref().map(|ops| QueueCommit::of(dir, l, ops));
    // This machine's guard marks ride along when they tell something new.
    let marks = MarksCommit::of(ctx, dir, l);
    let mut new = vec![rail_commit];
    new.extend(queue_commit.as_ref().map(QueueCommit::new_commit));
    new.extend(marks.as_ref().map(MarksCommit::new_commit));
    let ids = shared::commits(dir, &new).map_err(|e| e.fail())?;
    let ids = super::signed(dir, l, ids)?;
    let queue_ref = format!("{}{}", queue::QUEUE_REFS, l.machine);
    let mut previous = Vec::new();
    let mut updates = vec![Update {
        commit: &ids[0],
        dst: shared::REF,
        expect: looked.own_push.as_deref(),
    }];
    if let (Some(ops), Some(id)) = (&queue_ops, ids.get(1)) {
        updates.push(Update {
            commit: id,
            dst: &queue_ref,
            expect: None,
        });
        previous = l.memory.intend(ops);
        l.save();
    }
    let marks_at = marks.as_ref().map(|m| {
        updates.push(Update {
            commit: &ids[ids.len() - 1],
            dst: &m.dst,
            expect: None,
        });
        updates.len() - 1
    });
    let t0 = Instant::now();
    let results =
        shared::push_refs(dir, remote, &updates, inputs.deadline).map_err(|e| e.fail())?;
    let push_ms = t0.elapsed().as_millis() as u64;
    l.memory.pushed(push_ms);
    trace(&format!(
        "{} pushed {:?} folded={} push_ms={push_ms}",
        l.machine, results, folded
    ));
    if let (Some(m), Some(at)) = (&marks, marks_at) {
        m.settle(ctx, dir, &ids[ids.len() - 1], results.get(at));
    }
    if let (Some(ops), Some(result)) = (queue_ops, results.get(1)) {
        l.memory
            .queue_pushed(result, &ids[1], ops, previous, now_ms);
    }
    Ok((results[0].clone(), ids[0].clone()))
}

/// A job's answer once the state is mirrored here: a sync says what it synced; a change made
/// on the remote whose local copy could not be updated says so.
fn mirrored_answer(
    remote: &str,
    job: &Job,
    answer: &mut Report,
    state: &SharedState,
    mirrored: &Result<(), Fail>,
) {
    match (&job.request, mirrored) {
        (None, Ok(())) => {
            answer.text = format!(
                "synced the shared rail from {remote} ({} files{})",
                state.files.len(),
                state
                    .commit
                    .as_deref()
                    .map(|c| format!(", {}", &c[..c.len().min(12)]))
                    .unwrap_or_default()
            );
            answer.json = Some(serde_json::json!({
                "ok": true, "remote": remote, "commit": state.commit, "files": state.files.len()
            }));
        }
        (None, Err(f)) => *answer = Report::from_fail(f),
        (Some(_), Err(f)) if answer.code == 0 && answer.changed => answer.warnings.push(format!(
            "done on {remote}, but the local copy was not updated: {}",
            f.message
        )),
        _ => {}
    }
}
