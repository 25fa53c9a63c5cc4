//! The leader's rounds on a shared rail (docs/shared-rail.md, "How an operation works" and "One
//! round answers every machine"): under the exchange lock, serve this machine's queued jobs —
//! fetch the shared ref with every machine's queue, learn what other machines' commits decided
//! for the jobs this machine published, then, as core's `change::queue` says, commit (this
//! machine's jobs and every other machine's that the commit may decide, in one commit, one
//! push), publish this machine's jobs for the machine that made the tip, or wait for it — until
//! every job is answered. The git plumbing (fetch, commit, push, mirror) is `shared`'s.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use rail_core::change::ops::Request;
use rail_core::change::queue::{
    self, Fate, FoldVerdict as Verdict, Folding, Move, Op, OpDecision as Decision, Record,
};
use rail_core::change::remote::{fetch_protocol, measure_due, Listing};
use rail_core::change::snapshot;
use rail_core::formats::rail_files::{CLAIMS_MD, LOG_FILE};

use crate::context::Ctx;
use crate::exchange::{Job, Outcome, Queue};
use crate::fail::Fail;
use crate::git;
use crate::queues::{self, State, View};
use crate::shared::{self, NewCommit, Pushed, Snapshot, Update};

/// How long past its deadline a job this machine published may wait for a commit to say what
/// became of it (the waiter itself gives up 30 s past it).
const PUBLISHED_GRACE_MS: i64 = 20_000;

/// `RAIL_SHARED_TRACE=<file>`: one line per round and per push appended to the file (time in
/// ms, process, machine, what the round saw and did) — how bench/README.md's timelines of a
/// shared rail under load were read. Off unless set.
fn trace(what: &str) {
    if let Some(path) = std::env::var_os("RAIL_SHARED_TRACE") {
        use std::io::Write;
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            let _ = writeln!(
                f,
                "{} {} {what}",
                Utc::now().timestamp_millis(),
                std::process::id()
            );
        }
    }
}

/// This machine's queue side for one leader: its id, its state, whether queues are on, and
/// what its rounds read kept for the next (a poll that finds nothing new starts only the fetch;
/// the refs it brought are read from their files).
struct Queues {
    machine: String,
    state: State,
    dir: std::path::PathBuf,
    on: bool,
    reader: queues::Reader,
    /// The last state read, by its commit.
    snapshot: Option<Snapshot>,
    /// What the fetched and kept refs hold as this leader left them (`None`: read them).
    seen: Option<shared::Seen>,
    /// Rounds this leader ran.
    rounds: u32,
}

impl Queues {
    fn open(queue: &Queue) -> Queues {
        let dir = queue.dir().to_path_buf();
        let machine = queues::machine(&dir).ok();
        Queues {
            on: queues::enabled() && machine.is_some(),
            machine: machine.unwrap_or_else(|| "machine".into()),
            state: State::load(&dir),
            dir,
            reader: queues::Reader::default(),
            snapshot: None,
            seen: None,
            rounds: 0,
        }
    }

    fn save(&self) {
        // Only pacing and what was published: a lost write costs a wait, not a wrong answer.
        let _ = self.state.save(&self.dir);
    }

    /// Other machines' operations were seen waiting within the last few rounds.
    fn others_lately(&self, now_ms: i64) -> bool {
        now_ms - self.state.others_at < (self.state.round_ms() as i64 * 4).max(5000)
    }
}

/// The leader's work, under the exchange lock: serve the queued jobs of this rail and remote in
/// rounds until every job it has seen is answered, or its own (`own`, the job of the process
/// leading) is and a round has ended: then it hands the lock on, and a process still waiting
/// leads the rest — a leader that served its machine's jobs as they kept coming kept its own
/// command waiting (seen at 20 machines × 8 agents: a claim made in 7 s returned after 13 s).
/// A round that loses the race for the remote (rejected push) backs off with jitter, then starts
/// over with a new fetch — taking in the jobs queued meanwhile — until each job's deadline.
/// Every job gets an outcome: done, refused, failed (unreachable remote) or gave up.
pub fn lead(ctx: &Ctx, remote: &str, rail: &Path, queue: &Queue, own: &str) -> Result<(), Fail> {
    let dir = shared::repo_dir(ctx);
    let mut q = Queues::open(queue);
    let mut attempt = 0u32;
    // Rounds lost to another machine's push: a job that then fails at its deadline says so,
    // not only that the last exchange was cut off (which reads as an unreachable remote).
    let mut lost = 0u32;
    let mut rng =
        (std::process::id() as u64) ^ ((Utc::now().timestamp_subsec_nanos() as u64) << 16) | 1;
    // Fairness between machines that each commit their own jobs. A machine that wins a round
    // starts its next one at once, while the losers only learn they lost when their own push
    // comes back, on average half a round later: left alone, the winner keeps winning (with two
    // CPU hogs beside the three-machine race, a leader lost 17 and 19 rounds in a row and its
    // job gave up after 60 s, in 2 of 4 runs). So while machines contend, a new leader first
    // waits a random part of a round, as long on average as a loser loses. Not while other
    // machines' queues are seen: then the tip's machine decides for everyone, and waiting only
    // delays publishing.
    let pause = match q.on && q.others_lately(Utc::now().timestamp_millis()) {
        true => None,
        false => queue.contention_pause(&mut rng),
    };
    if let Some(pause) = pause {
        std::thread::sleep(pause);
    }
    // Without contention, the state this machine pushed last is most likely still the remote's:
    // the first round plans on it and pushes at once, saving the fetch (at internet distance
    // about half of a round's round trips). The push is the compare-and-swap as always; a
    // rejected guess, or a job the guess would refuse, is planned again on a fetched state.
    let mut known = match pause {
        None => queue.own_tip(shared::shared_trust()),
        Some(_) => None,
    };
    loop {
        let jobs = queue.jobs(rail, remote);
        let now_ms = Utc::now().timestamp_millis();
        // A job past its deadline gives up here, unless a copy this machine published may still
        // be decided by another machine's commit: then a commit says what became of it (a
        // decider answers "gave up" past the deadline), within a grace.
        let (mut live, expired): (Vec<Job>, Vec<Job>) = jobs.into_iter().partition(|j| {
            j.deadline_ms > now_ms
                || (q.state.published(&j.id).is_some()
                    && now_ms < j.deadline_ms + PUBLISHED_GRACE_MS)
        });
        for job in &expired {
            let mut text = format!(
                "gave up after {attempt} attempts in {} s: the shared rail kept changing under us (other machines are busy); try again",
                shared::shared_timeout().as_secs()
            );
            if q.state.published(&job.id).is_some() {
                text = format!(
                    "{text}; it was queued on {remote} for the other machines' rounds, and no commit said what became of it: it may or may not have been made — `rail sync` and look"
                );
            }
            queue.finish(&job.id, &Outcome::from_fail(&Fail::env(text)))?;
        }
        if live.is_empty() {
            q.save();
            return Ok(());
        }
        attempt += 1;
        // The remote is given until the last deadline (with the grace of a job this machine
        // published, whose answer may be a commit of another machine's).
        let last = live
            .iter()
            .map(|j| match q.state.published(&j.id) {
                Some(_) => j.deadline_ms + PUBLISHED_GRACE_MS,
                None => j.deadline_ms,
            })
            .max()
            .unwrap_or(now_ms);
        let deadline = Instant::now() + Duration::from_millis((last - now_ms).max(0) as u64);
        let started = Instant::now();
        let contended =
            queue.contended_within(Duration::from_millis((q.state.round_ms() * 3).max(5000)));
        // The jobs queued here while the round fetched, that it may serve too.
        let since = |served: &[Job]| -> Vec<Job> {
            queue
                .jobs(rail, remote)
                .into_iter()
                .filter(|j| !served.iter().any(|s| s.id == j.id) && j.deadline_ms > now_ms)
                .collect()
        };
        let r = round(
            ctx,
            remote,
            &dir,
            &mut live,
            &since,
            deadline,
            known.take().as_deref(),
            contended,
            &mut q,
        );
        match r {
            Round::Stale => continue,
            Round::Done(outcomes, pushed) => {
                if let Some(commit) = pushed {
                    queue.note_pushed(&commit);
                }
                for (job, outcome) in live.iter().zip(outcomes) {
                    queue.finish(&job.id, &outcome)?;
                }
                q.save();
                return Ok(());
            }
            Round::Failed(fail) => {
                let fail = shared::after_lost_rounds(lost, fail);
                for job in &live {
                    let mut fail = fail.clone();
                    if q.state.published(&job.id).is_some() {
                        fail.message = format!(
                            "{}; it was also queued on {remote} for the other machines' rounds and may still be made before its deadline: `rail sync` and look",
                            fail.message
                        );
                    }
                    queue.finish(&job.id, &Outcome::from_fail(&fail))?;
                }
                q.save();
                return Ok(());
            }
            Round::Rejected(answered) => {
                lost += 1;
                queue.note_contention(started.elapsed());
                for (i, outcome) in answered {
                    queue.finish(&live[i].id, &outcome)?;
                }
                q.save();
                if queue.answered(own) {
                    return Ok(());
                }
                // Another machine's commit landed first. Jittered exponential backoff, 20 ms
                // doubling to 320 ms: leaders of different machines spread out instead of
                // fetching and pushing in lockstep.
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let cap = 20u64 << attempt.min(2);
                std::thread::sleep(Duration::from_millis(10 + rng % cap));
            }
            Round::Waiting(answered, pause) => {
                for (i, outcome) in answered {
                    queue.finish(&live[i].id, &outcome)?;
                }
                q.save();
                if queue.answered(own) {
                    return Ok(());
                }
                std::thread::sleep(pause);
            }
        }
    }
}

enum Round {
    /// Pushed (the commit) or nothing to push: one outcome per job, in order.
    Done(Vec<Outcome>, Option<String>),
    /// Planned on the state this machine pushed last, and either the remote has moved on
    /// (push rejected) or a job came out refused or unchanged there: plan again on a fetch,
    /// at once. Nothing was answered.
    Stale,
    /// Another writer moved the ref first: plan again on the new state. The jobs answered
    /// already (index, outcome): refused on the fetched state where no other commit could
    /// decide otherwise, or decided by another machine's commit.
    Rejected(Vec<(usize, Outcome)>),
    /// This machine left its jobs to the machine that made the tip (published, or published
    /// before and still decidable): the jobs answered meanwhile, and the pause before looking
    /// again.
    Waiting(Vec<(usize, Outcome)>, Duration),
    /// The remote or git failed: every job fails with this.
    Failed(Fail),
}

/// Where a job stands before this round plans anything.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Standing {
    /// Answered by what the fetch showed.
    Answered,
    /// Never published, or its published copy died: only this machine can decide it now.
    Unpublished,
    /// Published, and a commit to come may decide it.
    Pending { refusal_final: bool },
}

/// One round: fetch (with every machine's queue), learn what other machines' commits decided
/// for this machine's published jobs, then commit, publish or wait (core's [`queue::next_move`]).
///
/// `live`: the jobs to serve; a round that fetches adds those queued meanwhile (`since` names
/// them), and answers every job in `live` as it leaves it.
///
/// `known`: the commit this machine pushed last. If it is still the fetched ref, every job is a
/// claim-like change (no sync, no take: those read the remote's branches) and nothing of this
/// machine's is published or seen waiting elsewhere, the round plans on it without fetching; it
/// gives up (`Stale`) rather than answer a refusal or a no-op from a state the remote may have
/// left, and when the push is rejected.
#[allow(clippy::too_many_arguments)]
fn round(
    ctx: &Ctx,
    remote: &str,
    dir: &Path,
    live: &mut Vec<Job>,
    since: &dyn Fn(&[Job]) -> Vec<Job>,
    deadline: Instant,
    known: Option<&str>,
    contended: bool,
    q: &mut Queues,
) -> Round {
    let now_ms = Utc::now().timestamp_millis();
    let branches = live.iter().any(reads_branches);
    // What died once matters only for the jobs still here.
    q.state.died.retain(|id| live.iter().any(|j| &j.id == id));
    let seen = q.seen.take().unwrap_or_else(|| shared::seen_states(dir));
    let first = q.rounds == 0;
    q.rounds += 1;
    let published_here = live.iter().any(|j| q.state.published(&j.id).is_some());
    // Planning on its own last push, a machine does not see the queues other machines publish
    // meanwhile: it does so only for a couple of rounds after a fetch (a burst of its own
    // operations), or the machine that keeps winning would keep the others waiting unseen.
    let seen_lately = now_ms - q.state.fetched_at < (q.state.round_ms() as i64 * 2).max(1000);
    let trusted = known.filter(|k| {
        !branches
            && !published_here
            && (!q.on || (seen_lately && !q.others_lately(now_ms)))
            && seen.kept.is_none()
            && seen.fetched.as_deref() == Some(*k)
            && shared::read_provisional(ctx).is_empty()
    });
    // While machines contend, a new leader whose machine fetched a moment ago (the leader before
    // it, answering the jobs it served) starts from that fetch: its first move is most often to
    // publish, and a state a fetch old is as good a base as the window allows. A commit on it is
    // the compare-and-swap as always. Without contention a round fetches (or plans on its own
    // push), as before.
    let recent = now_ms - q.state.fetched_at < (q.state.round_ms() / 2) as i64;
    let contending = q.others_lately(now_ms) || contended;
    let fresh = (first && q.on && contending && recent && !branches && seen.kept.is_none())
        .then(|| shared::listed_refs(dir, true).ok())
        .flatten()
        .filter(|f| f.commit.is_some() && f.commit == seen.fetched && f.commit == q.state.tip);
    let mut fetch_ms = None;
    let fetched = match (trusted, fresh) {
        (Some(k), _) => shared::Fetched {
            commit: Some(k.to_string()),
            ..shared::Fetched::default()
        },
        (None, Some(f)) => f,
        (None, None) => {
            let t0 = Instant::now();
            // The remote's listing is measured beside the fetch, once a day: it decides whether
            // the next fetches save a round trip (core's `change::remote`). A small listing
            // arrives in fewer round trips than the fetch takes; one still on its way as long
            // again after the fetch (and at least 2 s), or that could not be had, counts as
            // large until the next measure (version 2: never worse than its one round trip), so
            // no round waits on it for long and none measures again before a day has passed.
            let listing = q.state.listing;
            let measure = measure_due(listing, now_ms)
                .then(|| shared::measure_listing(dir, remote, deadline));
            let version = fetch_protocol(listing, now_ms);
            let result = shared::fetch_with(dir, remote, branches, q.on, version, deadline);
            if let Some(measure) = measure {
                let wait = t0.elapsed().max(Duration::from_secs(2));
                let size = measure.recv_timeout(wait).ok().flatten();
                q.state.listing = Some(Listing {
                    bytes: size.unwrap_or(u64::MAX),
                    at_ms: now_ms,
                });
            }
            match result {
                Ok(f) => {
                    let ms = t0.elapsed().as_millis() as u64;
                    crate::faults::pause_after_fetch();
                    // A fetch takes round trips; the processes of this machine that asked
                    // meanwhile (a burst: every agent at once) are served by this round too,
                    // not a round later. Jobs that need the remote's branches need a fetch
                    // of their own.
                    let more: Vec<Job> = since(live)
                        .into_iter()
                        .filter(|j| branches || !reads_branches(j))
                        .collect();
                    live.extend(more);
                    fetch_ms = Some(ms);
                    q.state.note_fetch(ms);
                    q.state.fetched_at = Utc::now().timestamp_millis();
                    keep_marks(ctx, dir, q, &f);
                    f
                }
                Err(e) => return Round::Failed(e.fail()),
            }
        }
    };
    let jobs = &live[..];
    let cached = q.snapshot.take().filter(|s| s.commit == fetched.commit);
    let snapshot = match cached {
        Some(s) => s,
        None => {
            let read = match q.reader.objects(dir) {
                Ok(objects) => shared::read_commit_via(objects, dir, fetched.commit.as_deref()),
                Err(_) => shared::read_commit(dir, fetched.commit.as_deref()),
            };
            match read {
                Ok(s) => s,
                Err(e) => return Round::Failed(e.fail()),
            }
        }
    };
    q.snapshot = Some(snapshot.clone());
    let mut files = snapshot.files.clone();
    let mut changed: BTreeMap<String, String> = BTreeMap::new();
    let mut warnings = Vec::new();
    // A state this machine pushed itself cannot be a rewind of what it saw.
    let rewound = match trusted {
        Some(_) => None,
        None => match shared::rewind(ctx, dir, remote, &seen, &snapshot, &mut q.reader) {
            Ok(r) => r,
            Err(e) => return Round::Failed(e.fail()),
        },
    };
    if let Some(r) = &rewound {
        files = r.files.clone();
        changed = r.changed.clone();
        warnings.push(r.message.clone());
    }
    // The refs as this round leaves them, unless a rewind's merge-back is under way.
    if rewound.is_none() && seen.kept.is_none() {
        q.seen = Some(shared::Seen {
            kept: None,
            fetched: fetched.commit.clone(),
        });
    }
    // What the fetch shows of every machine's queue, and the commits that may have decided
    // this machine's published jobs.
    let bases: BTreeSet<String> = jobs
        .iter()
        .filter_map(|j| q.state.published(&j.id).map(|o| o.base.clone()))
        .collect();
    let view = if q.on {
        let refs = match rewound {
            // A merge-back round decides only this machine's jobs.
            Some(_) => &[][..],
            None => &fetched.queues[..],
        };
        match q
            .reader
            .view(dir, fetched.commit.as_deref(), refs, &q.machine, &bases)
        {
            Ok(v) => v,
            Err(e) => return Round::Failed(Fail::env(e)),
        }
    } else {
        View::default()
    };
    let still_ms = q.state.note_tip(fetched.commit.as_deref(), now_ms);
    // Learn: what became of the jobs this machine published.
    let mut answered: Vec<(usize, Outcome)> = Vec::new();
    let mut standing = vec![Standing::Unpublished; jobs.len()];
    for (i, job) in jobs.iter().enumerate() {
        let Some(op) = q.state.published(&job.id) else {
            continue;
        };
        match queue::fate(&q.machine, &job.id, &op.base, &view.chain) {
            Fate::Decided { outcome, by } => {
                answered.push((i, learned(outcome, &by, job, &snapshot.files)));
                standing[i] = Standing::Answered;
            }
            Fate::Pending { refusal_final } => standing[i] = Standing::Pending { refusal_final },
            Fate::Dead => {
                if !q.state.died.contains(&job.id) {
                    q.state.died.push(job.id.clone());
                }
            }
            Fate::Unknown => {
                answered.push((i, unknown(remote, rewound.is_some())));
                standing[i] = Standing::Answered;
            }
        }
    }
    let shared_log = files.get(LOG_FILE).cloned().unwrap_or_default();
    let pending = snapshot::undelivered(&shared::read_outbox(ctx), &shared_log);
    if !pending.is_empty() {
        let log = snapshot::log_with(&shared_log, &pending);
        files.insert(LOG_FILE.to_string(), log.clone());
        changed.insert(LOG_FILE.to_string(), log);
    }
    let base_texts = snapshot::texts(&files);
    // The facts leases need are gathered only for a round that plans (a round that waits does
    // not).
    let mut base_facts = None;
    let provisional = shared::read_provisional(ctx);
    let mut offered = shared::OfferedClaims::default();
    if !provisional.is_empty() {
        let facts =
            base_facts.get_or_insert_with(|| shared::shared_facts(ctx, remote, &base_texts));
        let claims;
        (claims, offered) = shared::offer_provisional(ctx, remote, &files, facts, &provisional);
        if let Some(claims) = claims {
            files.insert(CLAIMS_MD.to_string(), claims.clone());
            changed.insert(CLAIMS_MD.to_string(), claims);
        }
        if !offered.log.is_empty() {
            let text =
                snapshot::log_with(files.get(LOG_FILE).map_or("", String::as_str), &offered.log);
            files.insert(LOG_FILE.to_string(), text.clone());
            changed.insert(LOG_FILE.to_string(), text);
        }
        warnings.extend(offered.said.iter().cloned());
    }
    let base_texts = snapshot::texts(&files);
    // Which other machines' operations the next commit may decide, and the move.
    let candidates = match rewound {
        None => queue::eligible(&view.chain, &view.queues, &q.machine),
        Some(_) => Vec::new(),
    };
    if !candidates.is_empty() {
        q.state.others_at = now_ms;
    }
    let open = |i: &usize| standing[*i] != Standing::Answered;
    let own: Vec<usize> = (0..jobs.len()).filter(open).collect();
    if own.is_empty() {
        // Every job was answered by other machines' commits: nothing to commit for them (a
        // commit for the others alone is left to the machines waiting, which lead anyway).
        finish_answered(ctx, remote, q, &snapshot, &mut answered, &warnings);
        return Round::Waiting(answered, Duration::ZERO);
    }
    let tip_id = fetched.commit.clone().unwrap_or_default();
    let mv = if q.on && crate::faults::always_publish() {
        Move::Commit { publish: true }
    } else if !q.on || rewound.is_some() || branches {
        // Syncs and takes fetch the remote's branches and are never published: commit.
        Move::Commit {
            publish: q.on && !candidates.is_empty(),
        }
    } else {
        queue::next_move(&queue::Situation {
            me: &q.machine,
            tip: &tip_id,
            unpublished: own
                .iter()
                .filter(|i| standing[**i] == Standing::Unpublished)
                .count(),
            pending: own
                .iter()
                .filter(|i| matches!(standing[**i], Standing::Pending { .. }))
                .count(),
            died: own.iter().any(|i| q.state.died.contains(&jobs[*i].id)),
            expired: own.iter().any(|i| jobs[*i].deadline_ms <= now_ms),
            waiting: candidates
                .iter()
                .map(|c| c.machine)
                .collect::<BTreeSet<&str>>()
                .into_iter()
                .collect(),
            contended,
            fetched: trusted.is_none(),
            can_publish: q.state.can_publish(now_ms),
            still_ms,
            round_ms: q.state.round_ms(),
        })
    };
    trace(&format!(
        "{} round jobs={} answered={} cands={} tip={} by={:?} move={mv:?} still={still_ms} round_ms={} fetch_ms={fetch_ms:?}",
        q.machine,
        jobs.len(),
        answered.len(),
        candidates.len(),
        &tip_id[..tip_id.len().min(8)],
        view.tip().and_then(|t| t.record.machine()),
        q.state.round_ms()
    ));
    // Looking again costs a fetch; a quarter round keeps the answer close behind the commit.
    let pause = Duration::from_millis(q.state.round_ms() / 4);
    match mv {
        Move::Wait => {
            finish_answered(ctx, remote, q, &snapshot, &mut answered, &warnings);
            Round::Waiting(answered, pause)
        }
        Move::Publish => {
            // Jobs the tip refuses are answered now: never published, so no other commit can
            // decide them on another state. The rest go on this machine's queue.
            let mut publish = Vec::new();
            let unpublished: Vec<usize> = own
                .iter()
                .copied()
                .filter(|i| standing[*i] == Standing::Unpublished)
                .collect();
            let base_facts =
                base_facts.get_or_insert_with(|| shared::shared_facts(ctx, remote, &base_texts));
            for i in unpublished {
                let job = &jobs[i];
                let Some(request) = &job.request else {
                    continue;
                };
                let mut facts = base_facts.clone();
                facts.now = DateTime::from_timestamp_millis(job.now_ms).unwrap_or(facts.now);
                match rail_core::change::ops::plan(&base_texts, &facts, &job.session, request) {
                    Err(refusal) => {
                        answered
                            .push((i, Outcome::from_fail(&crate::cmd::mutate::refused(refusal))));
                        standing[i] = Standing::Answered;
                    }
                    Ok(_) => publish.push(i),
                }
            }
            if !publish.is_empty() && !tip_id.is_empty() {
                let ops = queue_ops(q, jobs, &standing, &publish, &tip_id);
                publish_only(dir, remote, deadline, q, ops);
            }
            finish_answered(ctx, remote, q, &snapshot, &mut answered, &warnings);
            Round::Waiting(answered, pause)
        }
        Move::Commit { publish } => {
            let ctx_round = Commit {
                ctx,
                remote,
                dir,
                jobs,
                deadline,
                trusted,
            };
            ctx_round.commit(
                q,
                Folded {
                    snapshot,
                    files,
                    changed,
                    warnings,
                    rewound,
                    provisional,
                    offered,
                    base_facts: base_facts
                        .unwrap_or_else(|| shared::shared_facts(ctx, remote, &base_texts)),
                    standing,
                    answered,
                    candidates: candidates
                        .iter()
                        .map(|c| (c.machine.to_string(), c.op.clone()))
                        .collect(),
                    publish,
                    tip_id,
                },
            )
        }
    }
}

/// A sync or a take: judged on the remote's branches, which only a fetch that brings them has.
fn reads_branches(job: &Job) -> bool {
    matches!(job.request, None | Some(Request::Take { .. }))
}

/// What a round has when it commits.
struct Folded {
    snapshot: Snapshot,
    files: BTreeMap<String, String>,
    changed: BTreeMap<String, String>,
    warnings: Vec<String>,
    rewound: Option<shared::Rewound>,
    provisional: Vec<String>,
    offered: shared::OfferedClaims,
    base_facts: rail_core::model::input::Facts,
    standing: Vec<Standing>,
    answered: Vec<(usize, Outcome)>,
    candidates: Vec<(String, Op)>,
    publish: bool,
    tip_id: String,
}

/// One operation of a commit's fold: a job of this machine's (its index) or another machine's
/// (its index among the candidates).
#[derive(Clone, Copy)]
enum Slot {
    Own(usize),
    Foreign(usize),
}

/// The round's fixed inputs, for its commit.
struct Commit<'a> {
    ctx: &'a Ctx,
    remote: &'a str,
    dir: &'a Path,
    jobs: &'a [Job],
    deadline: Instant,
    trusted: Option<&'a str>,
}

impl Commit<'_> {
    /// Folds this machine's open jobs and the other machines' eligible operations into one
    /// commit whose message records every decision, and pushes it (with this machine's queue
    /// when `publish`, so a lost push still leaves the jobs for the winner's next commit).
    fn commit(&self, q: &mut Queues, mut f: Folded) -> Round {
        let (ctx, remote, dir, jobs) = (self.ctx, self.remote, self.dir, self.jobs);
        let now_ms = Utc::now().timestamp_millis();
        // The fold: this machine's jobs and the others' in the order they were asked for.
        let own: Vec<usize> = (0..jobs.len())
            .filter(|i| f.standing[*i] != Standing::Answered && jobs[*i].request.is_some())
            .collect();
        let mut order: Vec<Slot> = own.iter().map(|&i| Slot::Own(i)).collect();
        order.extend((0..f.candidates.len()).map(Slot::Foreign));
        let key = |s: &Slot| match *s {
            Slot::Own(i) => (jobs[i].now_ms, q.machine.as_str(), jobs[i].id.as_str()),
            Slot::Foreign(k) => {
                let (m, op) = &f.candidates[k];
                (op.now_ms, m.as_str(), op.id.as_str())
            }
        };
        order.sort_by(|a, b| key(a).cmp(&key(b)));
        let time = |ms: i64, or: DateTime<Utc>| DateTime::from_timestamp_millis(ms).unwrap_or(or);
        let folding: Vec<Folding<'_>> = order
            .iter()
            .map(|slot| match *slot {
                Slot::Own(i) => {
                    let j = &jobs[i];
                    Folding {
                        session: &j.session,
                        request: j.request.as_ref().expect("own jobs with a request"),
                        extra_log: &j.extra_log,
                        now: time(j.now_ms, f.base_facts.now),
                        foreign: false,
                        expired: j.deadline_ms <= now_ms,
                    }
                }
                Slot::Foreign(k) => {
                    let op = &f.candidates[k].1;
                    Folding {
                        session: &op.session,
                        request: &op.request,
                        extra_log: &op.extra_log,
                        now: time(op.now_ms, f.base_facts.now),
                        foreign: true,
                        expired: op.deadline_ms <= now_ms,
                    }
                }
            })
            .collect();
        let (verdicts, folded_changes) = queue::fold(&mut f.files, &f.base_facts, &folding);
        f.changed.extend(folded_changes);
        // Outcomes, as this machine words them, for its jobs and for the record.
        let mut outcomes: Vec<Outcome> = jobs.iter().map(|_| Outcome::default()).collect();
        let mut done = Vec::new();
        let mut decided = Vec::new();
        let mut early: Vec<usize> = Vec::new();
        for (slot, verdict) in order.iter().zip(&verdicts) {
            let outcome = worded(verdict);
            if let Verdict::Planned {
                plan,
                changed: true,
            } = verdict
            {
                done.push(format!("{} {} by {}", plan.op, plan.task, plan.session));
            }
            let (machine, id) = match *slot {
                Slot::Own(i) => {
                    let final_refusal = match f.standing[i] {
                        Standing::Unpublished => true,
                        Standing::Pending { refusal_final } => refusal_final,
                        Standing::Answered => false,
                    };
                    let on_base = matches!(
                        verdict,
                        Verdict::Refused { on_base: true, .. } | Verdict::Expired
                    );
                    if on_base && final_refusal {
                        early.push(i);
                    }
                    outcomes[i] = outcome.clone();
                    (q.machine.clone(), jobs[i].id.clone())
                }
                Slot::Foreign(k) => (f.candidates[k].0.clone(), f.candidates[k].1.id.clone()),
            };
            decided.push(Decision {
                machine,
                id,
                outcome: serde_json::to_value(&outcome).unwrap_or_default(),
            });
        }
        // Answered already (learned from other machines' commits).
        for (i, outcome) in &f.answered {
            outcomes[*i] = outcome.clone();
        }
        let answered_here: BTreeSet<usize> = f.answered.iter().map(|(i, _)| *i).collect();
        let all_own_settled = own
            .iter()
            .all(|i| outcomes[*i].code == 0 && outcomes[*i].changed);
        if self.trusted.is_some() && !all_own_settled {
            return Round::Stale;
        }
        let foreign_decided = !f.candidates.is_empty();
        let mut pushed = None;
        let commit_id = if f.changed.is_empty() && !foreign_decided {
            // A `rail sync` with nothing for the rail still shares this machine's guard marks.
            if jobs.iter().any(|j| j.request.is_none()) {
                share_marks_alone(ctx, dir, remote, self.deadline, q);
            }
            shared::settle_provisional(ctx, &f.provisional, &f.offered);
            if f.rewound.is_some() {
                let _ = git::run(dir, &["update-ref", "-d", shared::BEFORE_REWIND]);
            }
            f.snapshot.commit.clone()
        } else {
            let summary = match done.as_slice() {
                [] if foreign_decided => "rail: answers to other machines' operations".to_string(),
                [] => format!("rail: log lines recorded on {}", crate::lock::hostname()),
                [one] => format!("rail: {one}"),
                many => format!("rail: {} operations\n\n{}", many.len(), many.join("\n")),
            };
            let summary = match &f.rewound {
                Some(r) => format!("{summary}\n\n{}", r.message),
                None => summary,
            };
            let message = if q.on {
                queue::render_message(
                    &summary,
                    &Record {
                        machine: q.machine.clone(),
                        decided,
                    },
                )
            } else {
                summary
            };
            // This machine's queue rides in the same push: its open jobs, but not those a lost
            // push answers at once (refused on the fetched state, where no commit can decide
            // them otherwise).
            let mut publish_now: Vec<usize> = Vec::new();
            if f.publish && q.state.can_publish(now_ms) && !f.tip_id.is_empty() {
                publish_now = own
                    .iter()
                    .copied()
                    .filter(|i| !early.contains(i) && !answered_here.contains(i))
                    .filter(|i| !matches!(jobs[*i].request, Some(Request::Take { .. })))
                    .collect();
            }
            let queue_ops = (!publish_now.is_empty())
                .then(|| queue_ops(q, jobs, &f.standing, &publish_now, &f.tip_id));
            let merged = f.rewound.as_ref().map(|r| r.seen.as_str());
            let rail_commit = NewCommit {
                tmp: shared::NEW,
                parent: f.snapshot.commit.as_deref(),
                merged,
                changed: &f.changed,
                message: &message,
            };
            let queue_commit = queue_ops.as_ref().map(|ops| QueueCommit::of(dir, q, ops));
            // This machine's guard marks ride along when they tell something new.
            let marks = MarksCommit::of(ctx, dir, q);
            let mut new = vec![rail_commit];
            new.extend(queue_commit.as_ref().map(QueueCommit::new_commit));
            new.extend(marks.as_ref().map(MarksCommit::new_commit));
            let ids = match shared::commits(dir, &new) {
                Ok(ids) => ids,
                Err(e) => return Round::Failed(e.fail()),
            };
            let queue_ref = format!("{}{}", queue::QUEUE_REFS, q.machine);
            let mut previous = Vec::new();
            let mut updates = vec![Update {
                commit: &ids[0],
                dst: shared::REF,
                expect: self.trusted,
            }];
            if let (Some(ops), Some(id)) = (&queue_ops, ids.get(1)) {
                updates.push(Update {
                    commit: id,
                    dst: &queue_ref,
                    expect: None,
                });
                previous = intend(q, ops);
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
            let results = match shared::push_refs(dir, remote, &updates, self.deadline) {
                Ok(r) => r,
                Err(e) => return Round::Failed(e.fail()),
            };
            let push_ms = t0.elapsed().as_millis() as u64;
            q.state.note_push(push_ms);
            trace(&format!(
                "{} pushed {:?} folded={} push_ms={push_ms}",
                q.machine,
                results,
                verdicts.len()
            ));
            if let (Some(m), Some(at)) = (&marks, marks_at) {
                m.settle(ctx, dir, &ids[ids.len() - 1], results.get(at));
            }
            if let (Some(ops), Some(result)) = (queue_ops, results.get(1)) {
                settle_queue_push(q, result, &ids[1], ops, previous, now_ms);
            }
            match &results[0] {
                Pushed::Done => {
                    let _ = git::run(dir, &["update-ref", shared::FETCHED, &ids[0]]);
                    q.seen = f.rewound.is_none().then(|| shared::Seen {
                        kept: None,
                        fetched: Some(ids[0].clone()),
                    });
                    pushed = Some(ids[0].clone());
                    q.state.tip = Some(ids[0].clone());
                    q.state.tip_since = now_ms;
                    shared::settle_provisional(ctx, &f.provisional, &f.offered);
                    if f.rewound.is_some() {
                        let _ = git::run(dir, &["update-ref", "-d", shared::BEFORE_REWIND]);
                    }
                    Some(ids[0].clone())
                }
                Pushed::Rejected if self.trusted.is_some() => return Round::Stale,
                Pushed::Rejected => {
                    let mut answered = f.answered;
                    for i in early {
                        answered.push((i, outcomes[i].clone()));
                    }
                    return Round::Rejected(answered);
                }
                Pushed::Declined(reason) => {
                    return Round::Failed(Fail::env(format!(
                        "{remote} declined the push to {}, nothing was changed: {reason}",
                        shared::REF
                    )))
                }
            }
        };
        // Every own job is answered: drop them from what this machine has published.
        q.state
            .published
            .retain(|o| !jobs.iter().any(|j| j.id == o.id));
        shared::mark_synced(ctx);
        let state = Snapshot {
            commit: commit_id,
            files: f.files,
            foreign: f.snapshot.foreign.clone(),
        };
        q.state.mirrored = state.commit.clone();
        let mirrored = shared::mirror(ctx, &state);
        for (job, outcome) in jobs.iter().zip(outcomes.iter_mut()) {
            outcome.warnings.extend(f.warnings.iter().cloned());
            match (&job.request, &mirrored) {
                (None, Ok(())) => {
                    outcome.text = format!(
                        "synced the shared rail from {remote} ({} files{})",
                        state.files.len(),
                        state
                            .commit
                            .as_deref()
                            .map(|c| format!(", {}", &c[..c.len().min(12)]))
                            .unwrap_or_default()
                    );
                    outcome.json = Some(serde_json::json!({
                        "ok": true, "remote": remote, "commit": state.commit, "files": state.files.len()
                    }));
                }
                (None, Err(f)) => *outcome = Outcome::from_fail(f),
                (Some(_), Err(f)) if outcome.code == 0 && outcome.changed => {
                    outcome.warnings.push(format!(
                        "done on {remote}, but the local copy was not updated: {}",
                        f.message
                    ))
                }
                _ => {}
            }
        }
        Round::Done(outcomes, pushed)
    }
}

/// Keeps the other machines' guard marks a fetch brought (read only when a machine's marks ref
/// moved: at most every few minutes a machine, `heartbeat::SHARE_EVERY_SECS`).
fn keep_marks(ctx: &Ctx, dir: &Path, q: &mut Queues, fetched: &shared::Fetched) {
    let Some(repo) = &ctx.repo else {
        return;
    };
    let me = queues::machine(&q.dir).unwrap_or_default();
    let reader = std::cell::RefCell::new(&mut q.reader);
    crate::heartbeat::keep_shared(repo, &me, &fetched.marks, |commit| {
        reader.borrow_mut().text(
            dir,
            &format!("{commit}:{}", crate::heartbeat::MARKS_FILE),
            rail_core::formats::heartbeat::MAX_SHARED_BYTES as usize,
        )
    });
}

/// This machine's guard marks as a commit on its marks ref, when core says they tell something
/// new (`None` otherwise, or when the machine has no id).
struct MarksCommit {
    dst: String,
    text: String,
    files: BTreeMap<String, String>,
    parent: Option<String>,
}

impl MarksCommit {
    fn of(ctx: &Ctx, dir: &Path, q: &Queues) -> Option<MarksCommit> {
        let repo = ctx.repo.as_ref()?;
        let me = queues::machine(&q.dir).ok()?;
        let text = crate::heartbeat::to_share(repo)?;
        let fetched = format!("{}{me}", crate::heartbeat::FETCHED_REFS);
        let parent = git::run(dir, &["rev-parse", "--verify", "--quiet", &fetched])
            .ok()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty());
        Some(MarksCommit {
            dst: format!("{}{me}", crate::heartbeat::SHARED_REFS),
            files: BTreeMap::from([(crate::heartbeat::MARKS_FILE.to_string(), text.clone())]),
            text,
            parent,
        })
    }

    fn new_commit(&self) -> NewCommit<'_> {
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
    fn settle(&self, ctx: &Ctx, dir: &Path, commit: &str, result: Option<&Pushed>) {
        if let (Some(repo), Some(Pushed::Done)) = (&ctx.repo, result) {
            crate::heartbeat::shared(repo, &self.text);
            let fetched = self.dst.replacen(
                crate::heartbeat::SHARED_REFS,
                crate::heartbeat::FETCHED_REFS,
                1,
            );
            let _ = git::run(dir, &["update-ref", &fetched, commit]);
        }
    }
}

/// Pushes this machine's guard marks alone (never contended: the ref is this machine's), when
/// they tell something new.
fn share_marks_alone(ctx: &Ctx, dir: &Path, remote: &str, deadline: Instant, q: &Queues) {
    let Some(marks) = MarksCommit::of(ctx, dir, q) else {
        return;
    };
    let Ok(ids) = shared::commits(dir, &[marks.new_commit()]) else {
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

/// A verdict as `rail` answers it.
fn worded(verdict: &Verdict) -> Outcome {
    match verdict {
        Verdict::Planned { plan, changed } => shared::planned(plan, *changed),
        Verdict::Refused { refusal, .. } => {
            Outcome::from_fail(&crate::cmd::mutate::refused(refusal.clone()))
        }
        Verdict::Expired => Outcome::from_fail(&Fail::env(format!(
            "gave up: the operation's deadline of {} s passed before a round could make it; nothing was changed",
            shared::shared_timeout().as_secs()
        ))),
        Verdict::Broken(e) => Outcome::from_fail(&Fail::env(format!(
            "internal error applying a plan's edits: {e}"
        ))),
    }
}

/// An answer another machine's commit recorded for `job`, checked against the fetched state as
/// far as it can be: a claim said made must be held there by its session.
fn learned(
    outcome: serde_json::Value,
    by: &str,
    job: &Job,
    files: &snapshot::SharedFiles,
) -> Outcome {
    let outcome: Outcome = match serde_json::from_value(outcome) {
        Ok(o) => o,
        Err(e) => {
            return Outcome::from_fail(&Fail::env(format!(
                "machine {by} decided this operation on the shared rail, but its answer cannot be read ({e}); `rail sync` and look"
            )))
        }
    };
    if let Some(Request::Claim(c)) = &job.request {
        if outcome.code == 0 && outcome.changed {
            let claims = files.get(CLAIMS_MD).map_or("", String::as_str);
            let held = rail_core::formats::claims_md::parse(claims)
                .claims()
                .any(|(_, h)| h.task == c.task && h.session == job.session);
            if !held {
                return Outcome::from_fail(&Fail::env(format!(
                    "machine {by} recorded {} as claimed for {} on the shared rail, but the shared rail does not hold that claim now (released or taken since, or the record is wrong): `rail sync` and look",
                    c.task, job.session
                )));
            }
        }
    }
    Outcome {
        warnings: Vec::new(),
        ..outcome
    }
}

/// The answer to a published job whose fate cannot be read from the fetched chain.
fn unknown(remote: &str, rewound: bool) -> Outcome {
    let why = if rewound {
        "the shared rail was rewound since"
    } else {
        "the shared rail moved on further than this machine reads back, or a commit's record cannot be read"
    };
    Outcome::from_fail(&Fail::env(format!(
        "this operation was queued on {remote} for the other machines' rounds, and {why}: it may or may not have been made — `rail sync` and look"
    )))
}

/// This machine's queue as the next push publishes it: the jobs still pending keep their
/// copies (and bases), the jobs in `new` are published on `tip`.
fn queue_ops(q: &Queues, jobs: &[Job], standing: &[Standing], new: &[usize], tip: &str) -> Vec<Op> {
    let op = |j: &Job, base: &str| Op {
        id: j.id.clone(),
        base: base.to_string(),
        session: j.session.clone(),
        request: j.request.clone().expect("published jobs carry a request"),
        extra_log: j.extra_log.clone(),
        now_ms: j.now_ms,
        deadline_ms: j.deadline_ms,
    };
    let mut ops: Vec<Op> = Vec::new();
    for (i, j) in jobs.iter().enumerate() {
        let keep = matches!(standing[i], Standing::Pending { .. }) && !new.contains(&i);
        if let (true, Some(old)) = (keep, q.state.published(&j.id)) {
            ops.push(old.clone());
        }
    }
    for &i in new {
        match (standing[i], q.state.published(&jobs[i].id)) {
            (Standing::Pending { .. }, Some(old)) => ops.push(old.clone()),
            _ => ops.push(op(&jobs[i], tip)),
        }
    }
    ops
}

/// This machine's next queue commit: `ops` as its queue file, on the commit its ref holds —
/// the one it pushed last, else its ref as fetched (none before the first).
struct QueueCommit {
    files: BTreeMap<String, String>,
    parent: Option<String>,
}

impl QueueCommit {
    fn of(dir: &Path, q: &Queues, ops: &[Op]) -> QueueCommit {
        let fetched = || {
            let name = format!("{}{}", queues::FETCHED_QUEUES, q.machine);
            git::run(dir, &["rev-parse", "--verify", "--quiet", &name])
                .ok()
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
        };
        QueueCommit {
            files: BTreeMap::from([(
                queue::QUEUE_FILE.to_string(),
                queue::render_queue(&q.machine, ops),
            )]),
            parent: q.state.queue_tip.clone().or_else(fetched),
        }
    }

    fn new_commit(&self) -> NewCommit<'_> {
        NewCommit {
            tmp: queues::NEW_QUEUE,
            parent: self.parent.as_deref(),
            merged: None,
            changed: &self.files,
            message: "rail: operations waiting for the next round",
        }
    }
}

/// Publishes `ops` as this machine's queue, alone in a push (never contended: the ref is this
/// machine's).
fn publish_only(dir: &Path, remote: &str, deadline: Instant, q: &mut Queues, ops: Vec<Op>) {
    let queue_commit = QueueCommit::of(dir, q, &ops);
    let Ok(ids) = shared::commits(dir, &[queue_commit.new_commit()]) else {
        return;
    };
    let dst = format!("{}{}", queue::QUEUE_REFS, q.machine);
    let previous = intend(q, &ops);
    let update = Update {
        commit: &ids[0],
        dst: &dst,
        expect: None,
    };
    let t0 = Instant::now();
    let now_ms = Utc::now().timestamp_millis();
    // Not reached: the ops may or may not be out, and the window tells within its commits.
    if let Ok(results) = shared::push_refs(dir, remote, &[update], deadline) {
        q.state.note_push(t0.elapsed().as_millis() as u64);
        settle_queue_push(q, &results[0], &ids[0], ops, previous, now_ms);
    }
}

/// After a push carrying this machine's queue `ops` (`previous`: what the ref held before, as
/// far as this machine knows): what the ref now holds.
fn settle_queue_push(
    q: &mut Queues,
    result: &Pushed,
    commit: &str,
    ops: Vec<Op>,
    previous: Vec<Op>,
    now_ms: i64,
) {
    match result {
        Pushed::Done => {
            q.state.queue_tip = Some(commit.to_string());
            q.state.published = ops;
        }
        // Someone else wrote this machine's ref (or its history is not this clone's): the next
        // queue goes on the fetched copy. Nothing new was published.
        Pushed::Rejected => {
            q.state.queue_tip = None;
            q.state.published = previous;
        }
        // The server will not take queue refs: commit without them for a while.
        Pushed::Declined(_) => {
            q.state.declined_at = now_ms;
            q.state.queue_tip = None;
            q.state.published = previous;
        }
    }
}

/// Records `ops` as published before the push that publishes them (with what the ref held
/// before, which stays in the record until the push says): a leader that dies in the push
/// leaves its successor looking for all of them in the commits to come. Returns what was there.
fn intend(q: &mut Queues, ops: &[Op]) -> Vec<Op> {
    let previous = q.state.published.clone();
    let mut intent = ops.to_vec();
    intent.extend(
        previous
            .iter()
            .filter(|o| !ops.iter().any(|n| n.id == o.id))
            .cloned(),
    );
    q.state.published = intent;
    q.save();
    previous
}

/// Answers learned in a round that does not commit: mirrored into the checkout when they
/// or the fetched state are new here, with the round's warnings.
fn finish_answered(
    ctx: &Ctx,
    remote: &str,
    q: &mut Queues,
    snapshot: &Snapshot,
    answered: &mut [(usize, Outcome)],
    warnings: &[String],
) {
    shared::mark_synced(ctx);
    let mut problem = None;
    if q.state.mirrored != snapshot.commit || !answered.is_empty() {
        match shared::mirror(ctx, snapshot) {
            Ok(()) => q.state.mirrored = snapshot.commit.clone(),
            Err(f) => problem = Some(f.message),
        }
    }
    for (_, outcome) in answered.iter_mut() {
        outcome.warnings.extend(warnings.iter().cloned());
        if let (Some(p), 0, true) = (&problem, outcome.code, outcome.changed) {
            outcome.warnings.push(format!(
                "done on {remote}, but the local copy was not updated: {p}"
            ));
        }
    }
}
