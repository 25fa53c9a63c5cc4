//! A round's look at the shared rail, up to its move: where it reads the state (core's
//! `round::look`: its own last push, a fetch of a moment ago, or a new fetch, taking in the jobs
//! queued meanwhile), the state read, a rewind found and merged back, the queues other machines
//! published, what the fetched chain says of this machine's published jobs, the log lines and
//! provisional claims this machine has to deliver, and core's move.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::{Duration, Instant};

use rail_core::change::missing::{self, Missing};
use rail_core::change::queue::{self, Fate, Op, Situation};
use rail_core::change::remote::Listing;
use rail_core::change::round::{self, Decide, Decided, Look, Standing, Start};
use rail_core::change::snapshot;
use rail_core::formats::rail_files::{CLAIMS_MD, LOG_FILE};
use rail_core::model::input::{Facts, RailTexts};

use super::{answer, trace, Leader};
use crate::context::Ctx;
use crate::fail::Fail;
use crate::out::outcome::Report;
use crate::shared::exchange::Job;
use crate::shared::machine::View;
use crate::shared::remote::Fetched;
use crate::shared::rewind::{Rewound, Seen};
use crate::shared::state::SharedState;
use crate::shared::{self, proof, OfferedClaims};
use crate::sys::clock;

/// What a round is given.
pub struct Inputs<'a> {
    pub ctx: &'a Ctx,
    pub remote: &'a str,
    /// Where git runs.
    pub dir: &'a Path,
    /// The jobs queued here since the round's jobs were read (given those), that it may serve
    /// too.
    pub since: &'a dyn Fn(&[Job]) -> Vec<Job>,
    /// The remote is given until then.
    pub deadline: Instant,
    /// The commit this machine pushed last, when a round may plan on it.
    pub own_push: Option<String>,
    /// A push of this machine was rejected lately.
    pub contended: bool,
}

/// What a round saw, and its move.
pub struct Looked {
    /// The state read (the fetched commit's, or this machine's own push's).
    pub state: SharedState,
    /// The state the round plans on: with a rewind merged back, the outbox's lines and the
    /// provisional claims offered.
    pub files: BTreeMap<String, String>,
    /// What of `files` differs from `state`'s.
    pub changed: BTreeMap<String, String>,
    /// Said to every job's requester.
    pub warnings: Vec<String>,
    pub rewound: Option<Rewound>,
    /// The provisional claims offered, and what became of them.
    pub provisional: Vec<String>,
    pub offered: OfferedClaims,
    /// The text the provisional claims appended to claims.md (a step of the commit's record).
    pub appended: Option<String>,
    /// The facts leases need on the remote's branches, gathered once a move needs them.
    base_facts: Option<Facts>,
    pub standing: Vec<Standing>,
    /// Jobs answered already (index, answer).
    pub answered: Vec<(usize, Report)>,
    /// Other machines' operations the next commit may decide (machine, operation).
    pub candidates: Vec<(String, Op)>,
    /// The fetched tip's id ("" before the first shared state).
    pub tip: String,
    /// The round planned on this machine's own last push.
    pub own_push: Option<String>,
    /// A job of the round is a sync or a take.
    pub branches: bool,
    pub decided: Decided,
}

impl Looked {
    /// The texts the round plans on.
    pub fn texts(&self) -> RailTexts {
        snapshot::texts(&self.files)
    }

    /// The facts leases need on the remote's branches (gathered on first use).
    pub fn facts(&mut self, ctx: &Ctx, remote: &str) -> &Facts {
        let texts = self.texts();
        self.base_facts
            .get_or_insert_with(|| shared::shared_facts(ctx, remote, &texts))
    }
}

/// Looks at the shared rail and decides the round's move.
pub fn look(inputs: &Inputs<'_>, live: &mut Vec<Job>, l: &mut Leader) -> Result<Looked, Fail> {
    let (ctx, remote, dir) = (inputs.ctx, inputs.remote, inputs.dir);
    let now_ms = clock::now_ms();
    let branches = live
        .iter()
        .any(|j| round::reads_branches(j.request.as_ref()));
    // What died once matters only for the jobs still here.
    l.memory.forget_died(live.iter().map(|j| j.id.as_str()));
    let seen = l.seen.take().unwrap_or_else(|| shared::seen_states(dir));
    let first = l.rounds == 0;
    l.rounds += 1;
    let start = Start {
        now_ms,
        first,
        queues_on: l.on,
        branches,
        published_here: live.iter().any(|j| l.memory.published(&j.id).is_some()),
        own_push: inputs.own_push.as_deref(),
        fetched: seen.fetched.as_deref(),
        merging_back: seen.kept.is_some(),
        provisional: !shared::read_provisional(ctx).is_empty(),
        contended: inputs.contended,
    };
    let looked = round::look(&l.memory, &start);
    let own_push = match looked {
        Look::OwnPush(own) => Some(own.to_string()),
        _ => None,
    };
    let (mut fetched, fetch_ms) = read_refs(inputs, looked, &seen, live, l, branches, now_ms)?;
    let restored = restore_missing(remote, &seen, &mut fetched)?;
    let state = read_state(dir, &fetched, l)?;
    let mut files = state.files.clone();
    let mut changed: BTreeMap<String, String> = BTreeMap::new();
    let mut warnings = Vec::new();
    if let Some(message) = restored {
        // Every file of the state put back, so the round commits (and pushes) it whatever
        // its jobs change.
        changed = files.clone();
        warnings.push(message);
    }
    // A state this machine pushed itself cannot be a rewind of what it saw, nor unproven.
    let rewound = match own_push {
        Some(_) => None,
        None => match shared::rewind(ctx, dir, remote, &seen, &state, &mut l.reader)
            .map_err(|e| e.fail())?
        {
            Some(r) => Some(r),
            None => prove(ctx, dir, remote, &state, l)?,
        },
    };
    if let Some(r) = &rewound {
        files = r.files.clone();
        changed = r.changed.clone();
        warnings.push(r.message.clone());
    }
    // The refs as this round leaves them, unless a rewind's merge-back is under way.
    if rewound.is_none() && seen.kept.is_none() {
        l.seen = Some(Seen {
            kept: None,
            fetched: fetched.commit.clone(),
        });
    }
    let view = view(inputs, &fetched, rewound.is_some(), live, l)?;
    let still_ms = l.memory.note_tip(fetched.commit.as_deref(), now_ms);
    let (standing, answered) = learn(remote, live, &view, rewound.is_some(), &state, l);
    seal_log(ctx, &state.foreign, &mut files, &mut changed);
    deliver_outbox(ctx, &mut files, &mut changed);
    let mut looked = Looked {
        state,
        files,
        changed,
        warnings,
        rewound,
        provisional: shared::read_provisional(ctx),
        offered: OfferedClaims::default(),
        appended: None,
        base_facts: None,
        standing,
        answered,
        candidates: Vec::new(),
        tip: fetched.commit.clone().unwrap_or_default(),
        own_push,
        branches,
        decided: Decided {
            next: queue::Move::Wait,
            pause_ms: 0,
        },
    };
    offer_provisional(ctx, remote, &mut looked);
    // Which other machines' operations the next commit may decide, and the move.
    let candidates = match looked.rewound {
        None => queue::eligible(&view.chain, &view.queues, &l.machine),
        Some(_) => Vec::new(),
    };
    if !candidates.is_empty() {
        l.memory.others_at = now_ms;
    }
    looked.decided = decide(inputs, live, l, &looked, &candidates, still_ms, now_ms);
    trace(&format!(
        "{} round jobs={} answered={} cands={} tip={} by={:?} move={:?} still={still_ms} round_ms={} fetch_ms={fetch_ms:?}",
        l.machine,
        live.len(),
        looked.answered.len(),
        candidates.len(),
        &looked.tip[..looked.tip.len().min(8)],
        view.tip().and_then(|t| t.record.machine()),
        looked.decided.next,
        l.memory.round_ms()
    ));
    looked.candidates = (candidates.iter())
        .map(|c| (c.machine.to_string(), c.op.clone()))
        .collect();
    Ok(looked)
}

/// The shared ref missing on the remote (core's `change::missing`): a state this machine saw
/// is put back (the round reads and builds on it, and says so: `Some`), and without one a
/// remote that holds other machines' rail refs changes nothing (exit 3). Only a remote with
/// nothing of a shared rail starts one.
fn restore_missing(
    remote: &str,
    seen: &Seen,
    fetched: &mut Fetched,
) -> Result<Option<String>, Fail> {
    let Some(others) = &fetched.missing else {
        return Ok(None);
    };
    let last = seen.kept.as_deref().or(seen.fetched.as_deref());
    match missing::judge(remote, shared::REF, last, others) {
        Missing::Start => Ok(None),
        Missing::Refuse { why } => Err(Fail::env(why)),
        Missing::Restore { seen } => {
            let message = missing::restored_message(remote, shared::REF, &seen);
            trace(&format!("missing ref: restoring {seen}"));
            fetched.commit = Some(seen);
            Ok(Some(message))
        }
    }
}

/// The fetched state proven from the last state this machine proved (core's `proof::Walk`),
/// when the team set keys up: a state that is not proven is not built on — the last proven
/// state is merged back over the commits that are not (a restore, core's `proof::Step`), every
/// claim that merge drops is logged, and the sessions whose claims the unproven commits changed
/// are told at their next hook call.
fn prove(
    ctx: &Ctx,
    dir: &Path,
    remote: &str,
    state: &SharedState,
    l: &mut Leader,
) -> Result<Option<Rewound>, Fail> {
    let (Some(keys), Some(tip)) = (&l.keys, state.commit.as_deref()) else {
        return Ok(None);
    };
    let from = match &ctx.repo {
        Some(repo) => proof::last_proven(dir, &repo.common_dir),
        None => None,
    };
    if from.as_deref() == Some(tip) {
        return Ok(None);
    }
    let objects = l.reader.objects(dir).map_err(Fail::env)?;
    let t0 = std::time::Instant::now();
    let walk = proof::prove(dir, objects, keys, from.as_deref(), tip).map_err(|e| e.fail())?;
    trace(&format!(
        "{} proved commits={} prove_ms={}",
        l.machine,
        walk.walked,
        t0.elapsed().as_millis()
    ));
    let Some(open) = walk.open else {
        if let Some(p) = &walk.proven {
            let common = ctx.repo.as_ref().map(|r| r.common_dir.as_path());
            proof::proved(dir, common, p);
        }
        return Ok(None);
    };
    let base = proof::files_of(dir, objects, Some(&open.last));
    let kept = proof::files_of(dir, objects, open.kept.as_deref());
    let mut r = snapshot::rejoin(&base, &kept, &state.files, None);
    let mut message = rail_core::change::proof::unproven_message(remote, &open);
    if !r.losers.is_empty() {
        let lines: Vec<String> = (r.losers.iter())
            .map(|loser| loser.log_line(ctx.now, "restore"))
            .collect();
        let log = snapshot::log_with(r.files.get(LOG_FILE).map_or("", String::as_str), &lines);
        r.files.insert(LOG_FILE.to_string(), log.clone());
        r.changed.insert(LOG_FILE.to_string(), log);
    }
    let robbed = rail_core::change::proof::robbed(&kept, &base);
    if !robbed.is_empty() {
        message.push_str(&format!(
            "; claims the unproven commits changed: {}",
            (robbed.iter())
                .map(|(s, t)| format!("{s}'s claim of {t}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if let Some(repo) = &ctx.repo {
        for (session, task) in &robbed {
            let notice = rail_core::formats::notice::Notice {
                session: session.clone(),
                task: task.clone(),
                holder: session.clone(),
                why: rail_core::formats::notice::LossCause::Unproven(open.first.clone()),
                at: ctx.now,
            };
            crate::store::notice::post(repo, &notice, false);
        }
    }
    Ok(Some(Rewound {
        seen: None,
        step: rail_core::change::proof::Step::Restore {
            base: open.last.clone(),
            kept: open.kept.clone(),
        },
        files: r.files,
        changed: r.changed,
        message,
    }))
}

/// The refs the round reads: this machine's own last push, the refs a fetch of a moment ago
/// left (when they still show the tip), or a fetch's. A fetch takes in the jobs queued while it
/// was under way (core's `round::takes_in`), and is timed for the pacing.
fn read_refs(
    inputs: &Inputs<'_>,
    looked: Look<'_>,
    seen: &Seen,
    live: &mut Vec<Job>,
    l: &mut Leader,
    branches: bool,
    now_ms: i64,
) -> Result<(Fetched, Option<u64>), Fail> {
    let fetch = match looked {
        Look::OwnPush(own) => {
            let fetched = Fetched {
                commit: Some(own.to_string()),
                ..Fetched::default()
            };
            return Ok((fetched, None));
        }
        Look::LastFetch { fetch } => {
            let listed = shared::listed_refs(inputs.dir, true).ok();
            let commit = listed.as_ref().and_then(|f| f.commit.as_deref());
            if round::reuses_fetch(&l.memory, commit, seen.fetched.as_deref()) {
                return Ok((listed.unwrap_or_default(), None));
            }
            fetch
        }
        Look::Fetch(fetch) => fetch,
    };
    let (ctx, dir) = (inputs.ctx, inputs.dir);
    let t0 = Instant::now();
    // The remote's listing is measured beside the fetch, once a day: it decides whether the
    // next fetches save a round trip (core's `change::remote`). A small listing arrives in
    // fewer round trips than the fetch takes; one still on its way as long again after the
    // fetch (and at least 2 s), or that could not be had, counts as large until the next
    // measure (version 2: never worse than its one round trip), so no round waits on it for
    // long and none measures again before a day has passed.
    let measure =
        (fetch.measure).then(|| shared::measure_listing(dir, inputs.remote, inputs.deadline));
    let result = shared::fetch_with(
        dir,
        inputs.remote,
        fetch.branches,
        l.on,
        fetch.protocol,
        inputs.deadline,
    );
    if let Some(measure) = measure {
        let wait = t0.elapsed().max(Duration::from_secs(2));
        let size = measure.recv_timeout(wait).ok().flatten();
        l.memory.listing = Some(Listing {
            bytes: size.unwrap_or(u64::MAX),
            at_ms: now_ms,
        });
    }
    let fetched = result.map_err(|e| e.fail())?;
    let ms = t0.elapsed().as_millis() as u64;
    crate::faults::pause_after_fetch();
    // The processes of this machine that asked while the fetch was under way.
    let more: Vec<Job> = ((inputs.since)(live).into_iter())
        .filter(|j| round::takes_in(branches, round::reads_branches(j.request.as_ref())))
        .collect();
    live.extend(more);
    l.memory.fetched(ms, clock::now_ms());
    super::publish::keep_marks(ctx, dir, l, &fetched);
    Ok((fetched, Some(ms)))
}

/// The shared state at the fetched commit: the last one read when it is the same commit.
fn read_state(dir: &Path, fetched: &Fetched, l: &mut Leader) -> Result<SharedState, Fail> {
    let cached = l.state.take().filter(|s| s.commit == fetched.commit);
    let state = match cached {
        Some(s) => s,
        None => {
            let read = match l.reader.objects(dir) {
                Ok(objects) => shared::read_commit_via(objects, dir, fetched.commit.as_deref()),
                Err(_) => shared::read_commit(dir, fetched.commit.as_deref()),
            };
            read.map_err(|e| e.fail())?
        }
    };
    l.state = Some(state.clone());
    Ok(state)
}

/// The fetched chain and every other machine's queue (none on a merge-back round, which decides
/// only this machine's jobs), read back as far as this machine's published jobs' bases.
fn view(
    inputs: &Inputs<'_>,
    fetched: &Fetched,
    rewound: bool,
    live: &[Job],
    l: &mut Leader,
) -> Result<View, Fail> {
    if !l.on {
        return Ok(View::default());
    }
    let bases: BTreeSet<String> = (live.iter())
        .filter_map(|j| l.memory.published(&j.id).map(|o| o.base.clone()))
        .collect();
    let refs = if rewound {
        &[][..]
    } else {
        &fetched.queues[..]
    };
    l.reader
        .view(
            inputs.dir,
            fetched.commit.as_deref(),
            refs,
            &l.machine,
            &bases,
            l.keys.as_ref(),
        )
        .map_err(Fail::env)
}

/// What became of the jobs this machine published, from the fetched chain: each job's standing
/// (core's `round::Standing`) and the answers learned.
fn learn(
    remote: &str,
    live: &[Job],
    view: &View,
    rewound: bool,
    state: &SharedState,
    l: &mut Leader,
) -> (Vec<Standing>, Vec<(usize, Report)>) {
    let mut answered = Vec::new();
    let mut standing = vec![Standing::Unpublished; live.len()];
    for (i, job) in live.iter().enumerate() {
        let Some(op) = l.memory.published(&job.id) else {
            continue;
        };
        let fate = queue::fate(&l.machine, &job.id, &op.base, &view.chain);
        standing[i] = Standing::of(&fate);
        match fate {
            Fate::Decided { outcome, by } => {
                answered.push((i, answer::learned(outcome, &by, job, &state.files)))
            }
            Fate::Unknown => answered.push((i, answer::unknown(remote, rewound))),
            Fate::Dead => l.memory.died(&job.id),
            Fate::Pending { .. } => {}
        }
    }
    (standing, answered)
}

/// The shared log sealed into a segment when it is due (core's `seal::shared`), before this
/// round's lines join it: the segment is written beside it in the shared tree, which every
/// later commit keeps and no round reads.
fn seal_log(
    ctx: &Ctx,
    foreign: &[String],
    files: &mut BTreeMap<String, String>,
    changed: &mut BTreeMap<String, String>,
) {
    let session = ctx.session().unwrap_or_else(|_| "rail".to_string());
    if let Some(seal) = rail_core::change::seal::shared(files, foreign, ctx.now, &session) {
        changed.insert(seal.segment, seal.segment_text);
        files.insert(LOG_FILE.to_string(), seal.log.clone());
        changed.insert(LOG_FILE.to_string(), seal.log);
    }
}

/// The log lines this machine recorded that the shared log lacks, delivered with the round.
fn deliver_outbox(
    ctx: &Ctx,
    files: &mut BTreeMap<String, String>,
    changed: &mut BTreeMap<String, String>,
) {
    let shared_log = files.get(LOG_FILE).cloned().unwrap_or_default();
    let pending = snapshot::undelivered(&shared::read_outbox(ctx), &shared_log);
    if !pending.is_empty() {
        let log = snapshot::log_with(&shared_log, &pending);
        files.insert(LOG_FILE.to_string(), log.clone());
        changed.insert(LOG_FILE.to_string(), log);
    }
}

/// The provisional claims made with `RAIL_LOCAL=1` offered to the state the round plans on.
fn offer_provisional(ctx: &Ctx, remote: &str, looked: &mut Looked) {
    if looked.provisional.is_empty() {
        return;
    }
    let facts = looked.facts(ctx, remote).clone();
    let (claims, offered) =
        shared::offer_provisional(ctx, remote, &looked.files, &facts, &looked.provisional);
    if let Some(claims) = claims {
        let mut before = looked.files.get(CLAIMS_MD).cloned().unwrap_or_default();
        if !before.is_empty() && !before.ends_with('\n') {
            before.push('\n');
        }
        looked.appended = claims.strip_prefix(before.as_str()).map(str::to_string);
        looked.files.insert(CLAIMS_MD.to_string(), claims.clone());
        looked.changed.insert(CLAIMS_MD.to_string(), claims);
    }
    if !offered.log.is_empty() {
        let old = looked.files.get(LOG_FILE).map_or("", String::as_str);
        let text = snapshot::log_with(old, &offered.log);
        looked.files.insert(LOG_FILE.to_string(), text.clone());
        looked.changed.insert(LOG_FILE.to_string(), text);
    }
    looked.warnings.extend(offered.said.iter().cloned());
    looked.offered = offered;
}

/// Core's move for the round (a test build may force every round to publish).
fn decide(
    inputs: &Inputs<'_>,
    live: &[Job],
    l: &Leader,
    looked: &Looked,
    candidates: &[queue::Candidate<'_>],
    still_ms: u64,
    now_ms: i64,
) -> Decided {
    let open: Vec<usize> = (0..live.len())
        .filter(|i| looked.standing[*i] != Standing::Answered)
        .collect();
    let count =
        |pick: fn(Standing) -> bool| open.iter().filter(|i| pick(looked.standing[**i])).count();
    let situation = Situation {
        me: &l.machine,
        tip: &looked.tip,
        unpublished: count(|s| s == Standing::Unpublished),
        pending: count(|s| matches!(s, Standing::Pending { .. })),
        died: open.iter().any(|i| l.memory.died.contains(&live[*i].id)),
        expired: open.iter().any(|i| live[*i].deadline_ms <= now_ms),
        waiting: (candidates.iter())
            .map(|c| c.machine)
            .collect::<BTreeSet<&str>>()
            .into_iter()
            .collect(),
        contended: inputs.contended,
        fetched: looked.own_push.is_none(),
        can_publish: l.memory.can_publish(now_ms),
        still_ms,
        round_ms: l.memory.round_ms(),
    };
    let mut decided = round::decide(
        &l.memory,
        &Decide {
            situation,
            open: open.len(),
            queues_on: l.on,
            rewound: looked.rewound.is_some(),
            branches: looked.branches,
            candidates: candidates.len(),
        },
    );
    if !open.is_empty() && l.on && crate::faults::always_publish() {
        decided.next = queue::Move::Commit { publish: true };
    }
    decided
}
