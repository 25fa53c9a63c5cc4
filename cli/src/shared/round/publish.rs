//! What a round writes besides the shared ref: this machine's queue (`refs/rail/queue/<me>`),
//! published alone or riding on the round's push, and its guard marks (`refs/rail/seen/<me>`),
//! shared when core says they tell something new; and the other machines' marks a fetch
//! brought, kept for the board.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use rail_core::change::queue::{self, Op};
use rail_core::change::round::{self, Standing};

use super::look::{Inputs, Looked};
use super::{answer, Leader, Round};
use crate::context::Ctx;
use crate::git;
use crate::out::outcome::{refused, Report};
use crate::shared::exchange::Job;
use crate::shared::machine;
use crate::shared::remote::{Pushed, Update};
use crate::shared::{self, NewCommit};
use crate::sys::clock;

/// `git rev-parse` of one name, nothing printed when it names nothing.
const VERIFY: [&str; 3] = ["rev-parse", "--verify", "--quiet"];

/// A round whose move is to publish: the jobs the tip refuses are answered now (never
/// published, so no other commit can decide them on another state); the rest go on this
/// machine's queue for the machine chosen to commit.
pub fn publish_round(
    inputs: &Inputs<'_>,
    live: &[Job],
    l: &mut Leader,
    mut looked: Looked,
) -> Round {
    let (ctx, remote) = (inputs.ctx, inputs.remote);
    let texts = looked.texts();
    let facts = looked.facts(ctx, remote).clone();
    let mut publish = Vec::new();
    for (i, job) in live.iter().enumerate() {
        if looked.standing[i] != Standing::Unpublished {
            continue;
        }
        let Some(request) = &job.request else {
            continue;
        };
        let mut facts = facts.clone();
        facts.now = chrono::DateTime::from_timestamp_millis(job.now_ms).unwrap_or(facts.now);
        match rail_core::change::ops::plan(&texts, &facts, &job.session, request) {
            Err(refusal) => {
                looked
                    .answered
                    .push((i, Report::from_fail(&refused(refusal))));
                looked.standing[i] = Standing::Answered;
            }
            Ok(_) => publish.push(i),
        }
    }
    if !publish.is_empty() && !looked.tip.is_empty() {
        let ops = queue_ops(l, live, &looked.standing, &publish, &looked.tip);
        publish_only(inputs.dir, remote, inputs.deadline, l, ops);
    }
    answer::finish_answered(
        ctx,
        remote,
        l,
        &looked.state,
        &mut looked.answered,
        &looked.warnings,
    );
    Round::Waiting(
        looked.answered,
        Duration::from_millis(looked.decided.pause_ms),
    )
}

/// This machine's queue as the next push publishes it (core's `round::queue_ops`): the jobs
/// still pending keep their copies (and bases), the jobs in `new` are published on `tip`.
pub fn queue_ops(
    l: &Leader,
    jobs: &[Job],
    standing: &[Standing],
    new: &[usize],
    tip: &str,
) -> Vec<Op> {
    let ids: Vec<&str> = jobs.iter().map(|j| j.id.as_str()).collect();
    round::queue_ops(&l.memory, &ids, standing, new, tip, |i, base| {
        let j = &jobs[i];
        Op {
            id: j.id.clone(),
            base: base.to_string(),
            session: j.session.clone(),
            request: j.request.clone().expect("published jobs carry a request"),
            extra_log: j.extra_log.clone(),
            now_ms: j.now_ms,
            deadline_ms: j.deadline_ms,
        }
    })
}

/// Keeps the other machines' guard marks a fetch brought (read only when a machine's marks ref
/// moved: at most every few minutes a machine, `heartbeat::SHARE_EVERY_SECS`).
pub fn keep_marks(ctx: &Ctx, dir: &Path, l: &mut Leader, fetched: &shared::Fetched) {
    let Some(repo) = &ctx.repo else {
        return;
    };
    let me = machine::machine(&l.dir).unwrap_or_default();
    let reader = std::cell::RefCell::new(&mut l.reader);
    let keys = l.keys.as_ref();
    crate::store::heartbeat::keep_shared(repo, &me, &fetched.marks, |machine, commit| {
        // A team with keys reads a machine's marks only signed by that machine.
        if let Some(keys) = keys {
            let signed = match reader.borrow_mut().objects(dir) {
                Ok(objects) => shared::proof::marks_signed(dir, objects, keys, machine, commit),
                Err(e) => Err(e),
            };
            if let Err(why) = signed {
                errln!("rail: the guard marks on refs/rail/seen/{machine} are not read: {why}");
                return None;
            }
        }
        reader.borrow_mut().text(
            dir,
            &format!("{commit}:{}", crate::store::heartbeat::MARKS_FILE),
            rail_core::formats::heartbeat::MAX_SHARED_BYTES as usize,
        )
    });
}

/// This machine's guard marks as a commit on its marks ref, when core says they tell something
/// new (`None` otherwise, or when the machine has no id).
pub struct MarksCommit {
    pub dst: String,
    text: String,
    files: BTreeMap<String, String>,
    parent: Option<String>,
}

impl MarksCommit {
    pub fn of(ctx: &Ctx, dir: &Path, l: &Leader) -> Option<MarksCommit> {
        let repo = ctx.repo.as_ref()?;
        let me = machine::machine(&l.dir).ok()?;
        let base =
            crate::store::stations::base_branch(repo, ctx.settings().stations.base.as_deref());
        let text = crate::store::heartbeat::to_share(repo, base.as_deref(), ctx.now)?;
        let fetched = format!("{}{me}", crate::store::heartbeat::FETCHED_REFS);
        let parent = git::run(dir, &git::GitLine::new(&VERIFY).operand(fetched.as_str()))
            .ok()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty());
        Some(MarksCommit {
            dst: format!("{}{me}", crate::store::heartbeat::SHARED_REFS),
            files: BTreeMap::from([(
                crate::store::heartbeat::MARKS_FILE.to_string(),
                text.clone(),
            )]),
            text,
            parent,
        })
    }

    pub fn new_commit(&self) -> NewCommit<'_> {
        NewCommit {
            tmp: "refs/rail/seen-new",
            parent: self.parent.as_deref(),
            merged: None,
            changed: &self.files,
            message: "rail: guard marks of this machine's sessions",
        }
    }

    /// After the push that carried it as `commit`: remembered as shared once it landed, and the
    /// next marks commit made on it (a fast-forward of what the remote now holds).
    pub fn settle(&self, ctx: &Ctx, dir: &Path, commit: &str, result: Option<&Pushed>) {
        if let (Some(repo), Some(Pushed::Done)) = (&ctx.repo, result) {
            crate::store::heartbeat::shared(repo, &self.text);
            let fetched = self.dst.replacen(
                crate::store::heartbeat::SHARED_REFS,
                crate::store::heartbeat::FETCHED_REFS,
                1,
            );
            let _ = git::run(
                dir,
                &git::GitLine::new(&["update-ref"])
                    .operand(fetched.as_str())
                    .operand(commit),
            );
        }
    }
}

/// Pushes this machine's guard marks alone (never contended: the ref is this machine's), when
/// they tell something new.
pub fn share_marks_alone(ctx: &Ctx, dir: &Path, remote: &str, deadline: Instant, l: &mut Leader) {
    let Some(marks) = MarksCommit::of(ctx, dir, l) else {
        return;
    };
    let Ok(ids) = shared::commits(dir, &[marks.new_commit()]) else {
        return;
    };
    let Ok(ids) = super::signed(dir, l, ids) else {
        return;
    };
    let update = Update {
        commit: &ids[0],
        dst: &marks.dst,
        expect: None,
    };
    if let Ok(results) = shared::push_refs(dir, remote, &[update], deadline) {
        marks.settle(ctx, dir, &ids[0], results.first());
    }
}

/// This machine's next queue commit: `ops` as its queue file, on the commit its ref holds —
/// the one it pushed last, else its ref as fetched (none before the first).
pub struct QueueCommit {
    files: BTreeMap<String, String>,
    parent: Option<String>,
}

impl QueueCommit {
    pub fn of(dir: &Path, l: &Leader, ops: &[Op]) -> QueueCommit {
        let fetched = || {
            let name = format!("{}{}", machine::FETCHED_QUEUES, l.machine);
            git::run(dir, &git::GitLine::new(&VERIFY).operand(name.as_str()))
                .ok()
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
        };
        QueueCommit {
            files: BTreeMap::from([(
                queue::QUEUE_FILE.to_string(),
                queue::render_queue(&l.machine, ops),
            )]),
            parent: l.memory.queue_tip.clone().or_else(fetched),
        }
    }

    pub fn new_commit(&self) -> NewCommit<'_> {
        NewCommit {
            tmp: machine::NEW_QUEUE,
            parent: self.parent.as_deref(),
            merged: None,
            changed: &self.files,
            message: "rail: operations waiting for the next round",
        }
    }
}

/// Publishes `ops` as this machine's queue, alone in a push (never contended: the ref is this
/// machine's).
pub fn publish_only(dir: &Path, remote: &str, deadline: Instant, l: &mut Leader, ops: Vec<Op>) {
    let queue_commit = QueueCommit::of(dir, l, &ops);
    let Ok(ids) = shared::commits(dir, &[queue_commit.new_commit()]) else {
        return;
    };
    let Ok(ids) = super::signed(dir, l, ids) else {
        return;
    };
    let dst = format!("{}{}", queue::QUEUE_REFS, l.machine);
    let previous = l.memory.intend(&ops);
    l.save();
    let update = Update {
        commit: &ids[0],
        dst: &dst,
        expect: None,
    };
    let t0 = Instant::now();
    let now_ms = clock::now_ms();
    // Not reached: the ops may or may not be out, and the window tells within its commits.
    if let Ok(results) = shared::push_refs(dir, remote, &[update], deadline) {
        l.memory.pushed(t0.elapsed().as_millis() as u64);
        l.memory
            .queue_pushed(&results[0], &ids[0], ops, previous, now_ms);
    }
}
