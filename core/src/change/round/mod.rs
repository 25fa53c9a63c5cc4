//! A leader's round on a shared rail, decided without I/O (docs/shared-rail.md, "How an
//! operation works" and "One round answers every machine").
//!
//! The host (the CLI's `shared::round`) does the git plumbing and asks here at each turn; each
//! step takes what the host observed and the machine's [`Memory`] and says what to do next:
//!
//! 1. [`look`]: where the round reads the shared state — this machine's own last push (no
//!    fetch), the fetch a leader made a moment ago, or a new fetch (with the protocol and
//!    whether to measure the remote's listing: `change::remote`).
//! 2. [`takes_in`]: which jobs queued while the fetch was under way join the round.
//! 3. [`Standing::of`]: what the fetched chain says of each job this machine published
//!    (`queue::fate`).
//! 4. [`decide`]: the move — commit (and publish with it), publish only, or wait
//!    (`queue::next_move`, with the cases that always commit), and the pause before looking
//!    again.
//! 5. [`fold_order`], then `queue::fold`, then [`Settled::of`]: the commit's operations in the
//!    order they were asked for, which answers a lost push gives at once, whether a round
//!    planned on its own push must plan again, and which jobs ride on the push as a queue.
//! 6. [`after_push`]: what the remote's answer means for the round.
//!
//! Between rounds, [`memory`] holds the pacing rules: when a job gives up, a new leader's first
//! pause, the backoff after a lost round, when a round may trust its own last push.

pub mod memory;

use crate::change::ops::Request;
use crate::change::queue::{self, Candidate, Fate, FoldVerdict, Move, Op, Situation};
use crate::change::remote::{fetch_protocol, measure_due};

pub use self::memory::{Contention, Memory, Pushed};

/// A sync or a take: judged on the remote's branches, which only a fetch that brings them has.
/// `None` is a sync.
pub fn reads_branches(request: Option<&Request>) -> bool {
    matches!(request, None | Some(Request::Take { .. }))
}

/// What the host knows when a round starts.
#[derive(Clone, Debug, Default)]
pub struct Start<'a> {
    pub now_ms: i64,
    /// The leader's first round.
    pub first: bool,
    /// Queues are fetched and published (`RAIL_SHARED_QUEUES` not off, and a machine id).
    pub queues_on: bool,
    /// A job of the round is a sync or a take ([`reads_branches`]).
    pub branches: bool,
    /// A job of the round was published by this machine.
    pub published_here: bool,
    /// The commit this machine pushed last, when [`memory::trusts_own_push`] says a round may
    /// plan on it.
    pub own_push: Option<&'a str>,
    /// The shared ref's commit as this machine last fetched it.
    pub fetched: Option<&'a str>,
    /// A rewound remote's merge-back is under way (the state seen before is kept).
    pub merging_back: bool,
    /// Claims made with `RAIL_LOCAL=1` wait to be offered.
    pub provisional: bool,
    /// A push of this machine was rejected lately.
    pub contended: bool,
}

/// Where a round reads the shared state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Look<'a> {
    /// Plan on this machine's own last push, without fetching: its push is the compare-and-swap
    /// as always, and a round that then finds anything amiss (a rejected push, a job refused or
    /// unchanged) plans again on a fetch.
    OwnPush(&'a str),
    /// Start from the fetch this machine made a moment ago, when its refs still show the tip
    /// ([`reuses_fetch`]); else fetch as `fetch` says.
    LastFetch { fetch: Fetch },
    /// Fetch.
    Fetch(Fetch),
}

/// How a round fetches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fetch {
    /// git's protocol version (`change::remote::fetch_protocol`).
    pub protocol: u8,
    /// Measure the remote's ref listing beside the fetch (`change::remote::measure_due`).
    pub measure: bool,
    /// Bring the remote's branches too (a sync or a take reads them).
    pub branches: bool,
}

/// Where the round reads the shared state. On its own last push, when every job is a claim-like
/// change (no sync, no take: those read the remote's branches), nothing of this machine's is
/// published, no rewind's merge-back or provisional claim waits, the ref as fetched is that
/// push, and, with queues on, this machine fetched within the last two rounds and saw no other
/// machine waiting: planning on its own push, a machine does not see the queues others publish
/// meanwhile, so it does so only for a couple of rounds after a fetch (a burst of its own
/// operations), or the machine that keeps winning would keep the others waiting unseen. While
/// machines contend, a new leader whose machine fetched a moment ago (the leader before it,
/// answering the jobs it served) starts from that fetch: its first move is most often to
/// publish, and a state a fetch old is as good a base as the window allows; a commit on it is
/// the compare-and-swap as always. Otherwise it fetches.
pub fn look<'a>(memory: &Memory, s: &Start<'a>) -> Look<'a> {
    let own = s.own_push.filter(|own| {
        !s.branches
            && !s.published_here
            && (!s.queues_on
                || (memory.fetched_lately(s.now_ms) && !memory.others_lately(s.now_ms)))
            && !s.merging_back
            && s.fetched == Some(*own)
            && !s.provisional
    });
    if let Some(own) = own {
        return Look::OwnPush(own);
    }
    let fetch = Fetch {
        protocol: fetch_protocol(memory.listing, s.now_ms),
        measure: measure_due(memory.listing, s.now_ms),
        branches: s.branches,
    };
    let contending = memory.others_lately(s.now_ms) || s.contended;
    let recent = memory.fetched_just_now(s.now_ms);
    if s.first && s.queues_on && contending && recent && !s.branches && !s.merging_back {
        return Look::LastFetch { fetch };
    }
    Look::Fetch(fetch)
}

/// Whether the refs a leader's machine fetched a moment ago may stand for a fetch
/// ([`Look::LastFetch`]): they show a commit, the one this machine last saw and last noted as
/// the tip.
pub fn reuses_fetch(memory: &Memory, listed: Option<&str>, seen: Option<&str>) -> bool {
    listed.is_some() && listed == seen && listed == memory.tip.as_deref()
}

/// Whether a job queued while the round's fetch was under way joins the round: a fetch takes
/// round trips, and the processes that asked meanwhile (a burst: every agent at once) are served
/// by it too, not a round later — except a sync or a take when the fetch did not bring the
/// remote's branches.
pub fn takes_in(round_branches: bool, job_branches: bool) -> bool {
    round_branches || !job_branches
}

/// Where a job stands before the round plans anything.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Standing {
    /// Answered by what the fetch showed (another machine's commit decided it, or whether it
    /// was applied cannot be told).
    Answered,
    /// Never published, or its published copy died: only this machine can decide it now.
    Unpublished,
    /// Published, and a commit to come may decide it.
    Pending { refusal_final: bool },
}

impl Standing {
    /// A published job's standing from its fate.
    pub fn of(fate: &Fate) -> Standing {
        match fate {
            Fate::Decided { .. } | Fate::Unknown => Standing::Answered,
            Fate::Pending { refusal_final } => Standing::Pending {
                refusal_final: *refusal_final,
            },
            Fate::Dead => Standing::Unpublished,
        }
    }

    /// Whether a refusal on the base state is the job's answer already: no commit of another
    /// machine can decide it otherwise (never published, or published where the one commit
    /// left to decide it is made on this tip).
    pub fn refusal_is_final(self) -> bool {
        match self {
            Standing::Unpublished => true,
            Standing::Pending { refusal_final } => refusal_final,
            Standing::Answered => false,
        }
    }
}

/// What a round knows when it chooses its move.
#[derive(Clone, Debug, Default)]
pub struct Decide<'a> {
    /// The rules of `queue::next_move`, as the host observed them.
    pub situation: Situation<'a>,
    /// This machine's jobs still open (not answered by the fetch).
    pub open: usize,
    /// Queues are on.
    pub queues_on: bool,
    /// The fetched state was found rewound: a merge-back round decides only this machine's
    /// jobs.
    pub rewound: bool,
    /// A job of the round reads the remote's branches (a sync or a take: never published).
    pub branches: bool,
    /// Other machines' operations the next commit may decide.
    pub candidates: usize,
}

/// A round's move and, when it leaves the jobs to others, how long to wait before looking
/// again (ms).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decided {
    pub next: Move,
    pub pause_ms: u64,
}

/// The round's move. With every job answered by other machines' commits there is nothing to
/// commit for them (a commit for the others alone is left to the machines waiting, which lead
/// anyway): wait, without pausing. Without queues, on a rewound state and for a sync or a take,
/// the machine commits itself (publishing with it when others wait). Otherwise
/// `queue::next_move`.
pub fn decide(memory: &Memory, d: &Decide<'_>) -> Decided {
    if d.open == 0 {
        return Decided {
            next: Move::Wait,
            pause_ms: 0,
        };
    }
    let next = if !d.queues_on || d.rewound || d.branches {
        Move::Commit {
            publish: d.queues_on && d.candidates > 0,
        }
    } else {
        queue::next_move(&d.situation)
    };
    Decided {
        next,
        pause_ms: memory.look_again_ms(),
    }
}

/// One operation of a commit's fold: a job of this machine's (its index among the round's
/// jobs) or another machine's (its index among the candidates).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    Own(usize),
    Foreign(usize),
}

/// A job of this machine's as the fold orders it: when it was asked for (ms) and its id.
#[derive(Clone, Copy, Debug)]
pub struct OwnJob<'a> {
    pub index: usize,
    pub now_ms: i64,
    pub id: &'a str,
}

/// The commit's operations in the order they were asked for — the requester's time, then the
/// machine, then the id — this machine's (`me`) and the other machines' candidates alike, so
/// every machine folds the same operations the same way (`queue::eligible` gives the
/// candidates in this order too).
pub fn fold_order(me: &str, own: &[OwnJob<'_>], candidates: &[Candidate<'_>]) -> Vec<Slot> {
    let mut order: Vec<(i64, &str, &str, Slot)> = own
        .iter()
        .map(|j| (j.now_ms, me, j.id, Slot::Own(j.index)))
        .collect();
    order.extend(
        (candidates.iter().enumerate())
            .map(|(k, c)| (c.op.now_ms, c.machine, c.op.id.as_str(), Slot::Foreign(k))),
    );
    crate::text::sort::sort_by(&mut order, |a, b| (a.0, a.1, a.2).cmp(&(b.0, b.1, b.2)));
    order.into_iter().map(|(.., slot)| slot).collect()
}

/// What a commit's fold settled for this machine's jobs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settled {
    /// Jobs (indices) a lost push answers at once: refused (or expired) on the base state where
    /// no other commit can decide them otherwise.
    pub early: Vec<usize>,
    /// Every own job folded came out changed: a round planned on its own last push may push.
    pub all_changed: bool,
}

impl Settled {
    /// From the fold's verdicts, in `order`, and each job's standing.
    pub fn of(order: &[Slot], verdicts: &[FoldVerdict], standing: &[Standing]) -> Settled {
        let mut settled = Settled {
            all_changed: true,
            ..Settled::default()
        };
        for (slot, verdict) in order.iter().zip(verdicts) {
            let Slot::Own(i) = *slot else { continue };
            let on_base = matches!(
                verdict,
                FoldVerdict::Refused { on_base: true, .. } | FoldVerdict::Expired
            );
            if on_base && standing[i].refusal_is_final() {
                settled.early.push(i);
            }
            if !matches!(verdict, FoldVerdict::Planned { changed: true, .. }) {
                settled.all_changed = false;
            }
        }
        settled
    }
}

/// Which of this machine's open jobs ride on the commit's push as its queue (so a lost push
/// still leaves them for the winner's next commit): when the move says publish, the remote
/// takes queues and there is a tip to base them on — every open job but those a lost push
/// answers at once, those answered already, and takes (judged on the remote's branches, never
/// published).
pub fn publish_with_commit(
    publish: bool,
    memory: &Memory,
    now_ms: i64,
    tip: Option<&str>,
    open: &[(usize, bool)],
    settled: &Settled,
    answered: &[usize],
) -> Vec<usize> {
    if !publish || !memory.can_publish(now_ms) || tip.is_none_or(str::is_empty) {
        return Vec::new();
    }
    (open.iter())
        .filter(|(i, take)| !take && !settled.early.contains(i) && !answered.contains(i))
        .map(|(i, _)| *i)
        .collect()
}

/// This machine's queue as the next push publishes it: the jobs still pending keep their
/// published copies (and bases); the jobs in `new` are published on `tip` (`make`: a job's
/// operation, given its base), or keep their copy when they have one.
pub fn queue_ops(
    memory: &Memory,
    ids: &[&str],
    standing: &[Standing],
    new: &[usize],
    tip: &str,
    make: impl Fn(usize, &str) -> Op,
) -> Vec<Op> {
    let mut ops: Vec<Op> = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        let keep = matches!(standing[i], Standing::Pending { .. }) && !new.contains(&i);
        if let (true, Some(old)) = (keep, memory.published(id)) {
            ops.push(old.clone());
        }
    }
    for &i in new {
        match (standing[i], memory.published(ids[i])) {
            (Standing::Pending { .. }, Some(old)) => ops.push(old.clone()),
            _ => ops.push(make(i, tip)),
        }
    }
    ops
}

/// Whether a round must give up its plan before pushing: planned on its own last push, a job
/// came out refused or unchanged there, which the remote's newer state might decide otherwise.
pub fn replan(own_push: bool, settled: &Settled) -> bool {
    own_push && !settled.all_changed
}

/// What the shared ref's push answered means for the round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AfterPush {
    /// The commit is the remote's: answer every job.
    Landed,
    /// Planned on its own push, and the remote has moved on: plan again on a fetch, at once,
    /// answering nothing.
    Replan,
    /// Another machine's commit landed first: answer what a lost push answers, back off, and
    /// plan again on the new state.
    Lost,
    /// The server declined the push for its own reasons: every job fails with its reason.
    Declined,
}

/// What the push of the round's commit answered (`own_push`: the round planned on this
/// machine's own last push).
pub fn after_push(pushed: &Pushed, own_push: bool) -> AfterPush {
    match pushed {
        Pushed::Done => AfterPush::Landed,
        Pushed::Rejected if own_push => AfterPush::Replan,
        Pushed::Rejected => AfterPush::Lost,
        Pushed::Declined(_) => AfterPush::Declined,
    }
}

#[cfg(test)]
mod tests;
