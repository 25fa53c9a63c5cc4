//! What a machine remembers between a shared rail's rounds, and the pacing rules that read it:
//! how long a round takes here, when the tip last moved, when other machines were last seen
//! waiting, what this machine published. The host keeps it in a file between leaders (as JSON,
//! as it is) and passes in what it observed; nothing here reads a clock or a file.

use serde::{Deserialize, Serialize};

use crate::change::queue::Op;
use crate::change::remote::Listing;

/// How long a declined queue push keeps this machine from publishing (ms).
pub const DECLINED_FOR_MS: i64 = 10 * 60 * 1000;
/// How long past its deadline a job this machine published may wait for a commit to say what
/// became of it (the waiter itself gives up 30 s past it).
pub const PUBLISHED_GRACE_MS: i64 = 20_000;

/// What this machine remembers between rounds (and between leaders).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Memory {
    /// This machine's queue ref as it last pushed it; `None`: take the fetched copy's.
    pub queue_tip: Option<String>,
    /// The operations on that ref, with their bases: written before the push that publishes
    /// them (a leader that dies in the push leaves its successor knowing they may be out).
    pub published: Vec<Op>,
    /// Operations whose published copy died undecided once.
    pub died: Vec<String>,
    /// A fetch and a push here, smoothed (ms).
    pub fetch_ms: u64,
    pub push_ms: u64,
    /// When other machines' operations were last seen waiting (ms since 1970).
    pub others_at: i64,
    /// When the shared ref was last fetched (ms since 1970).
    pub fetched_at: i64,
    /// The shared ref's commit as last fetched, and since when (ms since 1970) it was.
    pub tip: Option<String>,
    pub tip_since: i64,
    /// The tip last mirrored into the checkout.
    pub mirrored: Option<String>,
    /// When the remote last declined this machine's queue push (ms since 1970).
    pub declined_at: i64,
    /// The remote's ref listing as last measured (`change::remote`); `None`: never.
    pub listing: Option<Listing>,
}

fn smooth(old: u64, new: u64) -> u64 {
    if old == 0 {
        new
    } else {
        (old * 3 + new) / 4
    }
}

impl Memory {
    /// A fetch that took `ms`, returned at `now_ms`.
    pub fn fetched(&mut self, ms: u64, now_ms: i64) {
        self.fetch_ms = smooth(self.fetch_ms, ms);
        self.fetched_at = now_ms;
    }

    /// A push that took `ms`.
    pub fn pushed(&mut self, ms: u64) {
        self.push_ms = smooth(self.push_ms, ms);
    }

    /// A round of fetch and push here (ms): what moves are paced by. Before any was measured,
    /// twice the fetch, or a second.
    pub fn round_ms(&self) -> u64 {
        match (self.fetch_ms, self.push_ms) {
            (0, _) => 1000,
            (f, 0) => f * 2,
            (f, p) => f + p,
        }
        .max(20)
    }

    /// How long a round that waits for another machine's commit pauses before it looks again:
    /// looking costs a fetch, and a quarter round keeps the answer close behind the commit.
    pub fn look_again_ms(&self) -> u64 {
        self.round_ms() / 4
    }

    /// The tip as fetched at `now_ms`: how long it has stood still.
    pub fn note_tip(&mut self, tip: Option<&str>, now_ms: i64) -> u64 {
        if self.tip.as_deref() != tip {
            self.tip = tip.map(str::to_string);
            self.tip_since = now_ms;
        }
        (now_ms - self.tip_since).max(0) as u64
    }

    /// This machine's commit `tip` landed at `now_ms`.
    pub fn landed(&mut self, tip: &str, now_ms: i64) {
        self.tip = Some(tip.to_string());
        self.tip_since = now_ms;
    }

    /// Whether this machine may publish its queue: not within [`DECLINED_FOR_MS`] of the
    /// remote declining it.
    pub fn can_publish(&self, now_ms: i64) -> bool {
        now_ms - self.declined_at > DECLINED_FOR_MS
    }

    /// The published copy of operation `id`.
    pub fn published(&self, id: &str) -> Option<&Op> {
        self.published.iter().find(|o| o.id == id)
    }

    /// Other machines' operations were seen waiting within the last few rounds (at least 5 s).
    pub fn others_lately(&self, now_ms: i64) -> bool {
        now_ms - self.others_at < (self.round_ms() as i64 * 4).max(5000)
    }

    /// This machine fetched within the last two rounds (at least a second): a burst of its own
    /// operations.
    pub fn fetched_lately(&self, now_ms: i64) -> bool {
        now_ms - self.fetched_at < (self.round_ms() as i64 * 2).max(1000)
    }

    /// This machine fetched within half a round: the leader before this one, answering the
    /// jobs it served.
    pub fn fetched_just_now(&self, now_ms: i64) -> bool {
        now_ms - self.fetched_at < (self.round_ms() / 2) as i64
    }

    /// Forgets the operations that died once but are no longer among `live` (ids).
    pub fn forget_died<'a>(&mut self, live: impl Iterator<Item = &'a str> + Clone) {
        self.died.retain(|id| live.clone().any(|l| l == id));
    }

    /// Operation `id`'s published copy died undecided.
    pub fn died(&mut self, id: &str) {
        if !self.died.iter().any(|d| d == id) {
            self.died.push(id.to_string());
        }
    }

    /// Records `ops` as published before the push that publishes them, with what the ref held
    /// before (which stays in the record until the push says): a leader that dies in the push
    /// leaves its successor looking for all of them in the commits to come. Returns what was
    /// there.
    pub fn intend(&mut self, ops: &[Op]) -> Vec<Op> {
        let previous = self.published.clone();
        let mut intent = ops.to_vec();
        intent.extend(
            previous
                .iter()
                .filter(|o| !ops.iter().any(|n| n.id == o.id))
                .cloned(),
        );
        self.published = intent;
        previous
    }

    /// After a push carrying this machine's queue `ops` as `commit` (`previous`: what the ref
    /// held before, as far as this machine knows): what the ref now holds.
    pub fn queue_pushed(
        &mut self,
        outcome: &Pushed,
        commit: &str,
        ops: Vec<Op>,
        previous: Vec<Op>,
        now_ms: i64,
    ) {
        match outcome {
            Pushed::Done => {
                self.queue_tip = Some(commit.to_string());
                self.published = ops;
            }
            // Someone else wrote this machine's ref (or its history is not this clone's): the
            // next queue goes on the fetched copy. Nothing new was published.
            Pushed::Rejected => {
                self.queue_tip = None;
                self.published = previous;
            }
            // The server will not take queue refs: commit without them for a while.
            Pushed::Declined(_) => {
                self.declined_at = now_ms;
                self.queue_tip = None;
                self.published = previous;
            }
        }
    }
}

/// What became of one ref of a push, as the host read git's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pushed {
    Done,
    /// Someone else moved the ref first.
    Rejected,
    /// The server declined it for its own reasons (a hook, a protected ref): its reason.
    Declined(String),
}

/// Whether a job past its deadline at `now_ms` gives up now: unless a copy this machine
/// published may still be decided by another machine's commit (a decider answers "gave up"
/// past the deadline), within [`PUBLISHED_GRACE_MS`].
pub fn gives_up(deadline_ms: i64, published: bool, now_ms: i64) -> bool {
    deadline_ms <= now_ms && !(published && now_ms < deadline_ms + PUBLISHED_GRACE_MS)
}

/// The deadline a job gives the remote: its own, with the grace of a job this machine published
/// (whose answer may be a commit of another machine's).
pub fn remote_deadline(deadline_ms: i64, published: bool) -> i64 {
    if published {
        deadline_ms + PUBLISHED_GRACE_MS
    } else {
        deadline_ms
    }
}

/// How far back a rejected push of this machine still counts as contention: the last few rounds,
/// at least 5 s (ms).
pub fn contention_memory_ms(round_ms: u64) -> u64 {
    round_ms.saturating_mul(3).max(5000)
}

/// What the host saw of this machine's last rejected push: how long ago it was, and how long
/// that round had taken (ms).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Contention {
    pub age_ms: u64,
    pub round_ms: u64,
}

/// How long a new leader waits before its first round. Fairness between machines that each
/// commit their own jobs: a machine that wins a round starts its next one at once, while the
/// losers only learn they lost when their own push comes back, on average half a round later;
/// left alone, the winner keeps winning (with two CPU hogs beside the three-machine race, a
/// leader lost 17 and 19 rounds in a row and its job gave up after 60 s, in 2 of 4 runs). So
/// while machines contend (a rejection within [`contention_memory_ms`] of the rejected round), a
/// new leader first waits a random part of a round (`random`: any number), as long on average
/// as a loser loses. Not while other machines' queues are seen: then the tip's machine decides
/// for everyone, and waiting only delays publishing.
pub fn first_pause(
    memory: &Memory,
    queues_on: bool,
    now_ms: i64,
    contention: Option<Contention>,
    random: u64,
) -> Option<u64> {
    if queues_on && memory.others_lately(now_ms) {
        return None;
    }
    let c = contention?;
    if c.round_ms == 0 || c.age_ms > contention_memory_ms(c.round_ms) {
        return None;
    }
    Some(random % c.round_ms)
}

/// Whether a round may plan on this machine's own last push without fetching, as the host found
/// it: pushed `age_ms` ago, within the `trust_ms` window, and no push of this machine rejected
/// since. Without contention the state this machine pushed last is most likely still the
/// remote's, and planning on it saves the fetch (at internet distance about half of a round's
/// round trips); the push is the compare-and-swap as always.
pub fn trusts_own_push(age_ms: u64, trust_ms: u64, rejected_since: bool) -> bool {
    age_ms <= trust_ms && !rejected_since
}

/// The pause after a round lost to another machine's push (`attempt`: rounds so far, `random`:
/// any number): jittered exponential backoff, 20 ms doubling to 80 ms of jitter over 10 ms, so
/// leaders of different machines spread out instead of fetching and pushing in lockstep (ms).
pub fn backoff_ms(attempt: u32, random: u64) -> u64 {
    let cap = 20u64 << attempt.min(2);
    10 + random % cap
}

/// The next number of a leader's xorshift sequence (pauses and backoff need spread, not
/// secrecy).
pub fn next_random(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}
