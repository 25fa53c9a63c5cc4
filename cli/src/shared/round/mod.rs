//! The leader's rounds on a shared rail (docs/shared-rail.md, "How an operation works" and "One
//! round answers every machine"): under the exchange lock, serve this machine's queued jobs in
//! rounds until each is answered. Every decision is core's `change::round` — where a round
//! looks, the move, the fold's order, what a push's answer means, the pacing between rounds;
//! this host does the git plumbing each step asks for: [`look`] reads the shared state and what
//! the fetched chain says of this machine's published jobs, [`commit`] folds, commits and
//! pushes, [`publish`] writes this machine's queue and guard marks, [`answer`] words the
//! answers. The transport itself (fetch, commit, push, mirror) is `shared`'s.

mod answer;
mod commit;
mod look;
mod publish;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rail_core::change::queue::Move;
use rail_core::change::round::memory::{self as pace, Memory};

use super::exchange::{Exchange, Job};
use super::machine;
use super::rewind::Seen;
use super::state::SharedState;
use crate::context::Ctx;
use crate::fail::Fail;
use crate::out::outcome::Report;
use crate::sys::clock;
use crate::sys::env::env;

/// `RAIL_SHARED_TRACE=<file>`: one line per round and per push appended to the file (time in
/// ms, process, machine, what the round saw and did) — how bench/README.md's timelines of a
/// shared rail under load were read. Off unless set.
fn trace(what: &str) {
    if let Some(path) = &env().shared_trace {
        use std::io::Write;
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            let _ = writeln!(f, "{} {} {what}", clock::now_ms(), std::process::id());
        }
    }
}

/// One leader: this machine's id, its memory between rounds, whether queues are on, and what
/// its rounds read kept for the next (a poll that finds nothing new starts only the fetch; the
/// refs it brought are read from their files).
struct Leader {
    machine: String,
    memory: Memory,
    dir: PathBuf,
    on: bool,
    reader: machine::ChainReader,
    /// The last state read, by its commit.
    state: Option<SharedState>,
    /// What the fetched and kept refs hold as this leader left them (`None`: read them).
    seen: Option<Seen>,
    /// Rounds this leader ran.
    rounds: u32,
    /// The team's keys, when it set them up (`None`: the shared rail is unverified).
    keys: Option<super::proof::Keys>,
}

impl Leader {
    fn open(exchange: &Exchange) -> Leader {
        let dir = exchange.dir().to_path_buf();
        let machine = machine::machine(&dir).ok();
        Leader {
            on: env().shared_queues && machine.is_some(),
            machine: machine.unwrap_or_else(|| "machine".into()),
            memory: machine::load(&dir),
            dir,
            reader: machine::ChainReader::default(),
            state: None,
            seen: None,
            rounds: 0,
            keys: None,
        }
    }

    fn save(&self) {
        // Only pacing and what was published: a lost write costs a wait, not a wrong answer.
        let _ = machine::save(&self.memory, &self.dir);
    }
}

/// The commits `ids` (made by `shared::commits`) signed with this machine's key when the team
/// set keys up (`proof::sign`), as they are otherwise. A machine of such a team without a key
/// changes nothing: every other machine would take its commits for forgeries.
fn signed(dir: &Path, l: &mut Leader, ids: Vec<String>) -> Result<Vec<String>, Fail> {
    let Some(keys) = &l.keys else {
        return Ok(ids);
    };
    let Some(key) = &keys.key else {
        return Err(Fail::usage(format!(
            "this machine has no key to sign the shared rail's commits with, and its team signs \
             them ({}): `rail init --remote REMOTE` sets one up (git config rail.signingKey), \
             then add the line it prints to {} on the main branch",
            keys.from,
            rail_core::change::proof::ALLOWED_SIGNERS
        )));
    };
    if !keys.signers.principals.contains(&l.machine) {
        return Err(Fail::usage(format!(
            "this machine ({}) is not among the team's allowed signers ({}): every other \
             machine would take its commits for forgeries. `rail init --remote REMOTE` writes \
             its line into {}; commit it on the main branch",
            l.machine,
            keys.from,
            rail_core::change::proof::ALLOWED_SIGNERS
        )));
    }
    let objects = l.reader.objects(dir).map_err(Fail::env)?;
    let t0 = std::time::Instant::now();
    let signed = super::proof::sign(dir, &l.dir, objects, key, &ids).map_err(|e| e.fail());
    trace(&format!(
        "{} signed commits={} sign_ms={}",
        l.machine,
        ids.len(),
        t0.elapsed().as_millis()
    ));
    signed
}

/// How a round ended.
enum Round {
    /// Pushed (the commit) or nothing to push: one answer per job, in order.
    Done(Vec<Report>, Option<String>),
    /// Planned on the state this machine pushed last, and either the remote has moved on
    /// (push rejected) or a job came out refused or unchanged there: plan again on a fetch,
    /// at once. Nothing was answered.
    Stale,
    /// Another writer moved the ref first: plan again on the new state. The jobs answered
    /// already (index, answer): refused on the fetched state where no other commit could
    /// decide otherwise, or decided by another machine's commit.
    Rejected(Vec<(usize, Report)>),
    /// This machine left its jobs to the machine that made the tip (published, or published
    /// before and still decidable): the jobs answered meanwhile, and the pause before looking
    /// again.
    Waiting(Vec<(usize, Report)>, Duration),
    /// The remote or git failed: every job fails with this.
    Failed(Fail),
}

/// The leader's work, under the exchange lock: serve the queued jobs of this rail and remote in
/// rounds until every job it has seen is answered, or its own (`own`, the job of the process
/// leading) is and a round has ended: then it hands the lock on, and a process still waiting
/// leads the rest — a leader that served its machine's jobs as they kept coming kept its own
/// command waiting (seen at 20 machines × 8 agents: a claim made in 7 s returned after 13 s).
/// A round that loses the race for the remote (rejected push) backs off, then starts over with
/// a new fetch — taking in the jobs queued meanwhile — until each job's deadline. Every job
/// gets an answer: done, refused, failed (unreachable remote) or gave up.
pub fn lead(
    ctx: &Ctx,
    remote: &str,
    rail: &Path,
    exchange: &Exchange,
    own: &str,
) -> Result<(), Fail> {
    let dir = ctx.repo_dir();
    let mut l = Leader::open(exchange);
    l.keys = (ctx.repo.as_ref()).and_then(|r| super::proof::keys(r, &dir, remote));
    let mut attempt = 0u32;
    // Rounds lost to another machine's push: a job that then fails at its deadline says so,
    // not only that the last exchange was cut off (which reads as an unreachable remote).
    let mut lost = 0u32;
    let mut rng =
        (std::process::id() as u64) ^ ((clock::now().timestamp_subsec_nanos() as u64) << 16) | 1;
    let pause = pace::first_pause(
        &l.memory,
        l.on,
        clock::now_ms(),
        exchange.contention(),
        pace::next_random(&mut rng),
    );
    if let Some(ms) = pause {
        std::thread::sleep(Duration::from_millis(ms));
    }
    // Without contention, the state this machine pushed last is most likely still the remote's.
    let mut own_push = match pause {
        None => exchange.own_push(env().shared_trust),
        Some(_) => None,
    };
    loop {
        let Some(mut live) = serve_or_expire(exchange, rail, remote, &l, attempt)? else {
            l.save();
            return Ok(());
        };
        attempt += 1;
        let now_ms = clock::now_ms();
        let last = (live.iter())
            .map(|j| pace::remote_deadline(j.deadline_ms, l.memory.published(&j.id).is_some()))
            .max()
            .unwrap_or(now_ms);
        let deadline = Instant::now() + Duration::from_millis((last - now_ms).max(0) as u64);
        let started = Instant::now();
        let contended = exchange.contended(l.memory.round_ms());
        // The jobs queued here while the round fetched, that it may serve too.
        let since = |served: &[Job]| -> Vec<Job> {
            (exchange.jobs(rail, remote).into_iter())
                .filter(|j| !served.iter().any(|s| s.id == j.id) && j.deadline_ms > now_ms)
                .collect()
        };
        let inputs = look::Inputs {
            ctx,
            remote,
            dir: &dir,
            since: &since,
            deadline,
            own_push: own_push.take(),
            contended,
        };
        let r = round(&inputs, &mut live, &mut l);
        match r {
            Round::Stale => continue,
            Round::Done(answers, pushed) => {
                if let Some(commit) = pushed {
                    exchange.note_pushed(&commit);
                }
                for (job, answer) in live.iter().zip(answers) {
                    exchange.finish(&job.id, &answer)?;
                }
                l.save();
                return Ok(());
            }
            Round::Failed(fail) => {
                let fail = super::remote::after_lost_rounds(lost, fail);
                for job in &live {
                    let published = l.memory.published(&job.id).is_some();
                    let answer = answer::failed(&fail, published, remote);
                    exchange.finish(&job.id, &answer)?;
                }
                l.save();
                return Ok(());
            }
            Round::Rejected(answered) => {
                lost += 1;
                exchange.note_contention(started.elapsed());
                for (i, answer) in answered {
                    exchange.finish(&live[i].id, &answer)?;
                }
                l.save();
                if exchange.answered(own) {
                    return Ok(());
                }
                let ms = pace::backoff_ms(attempt, pace::next_random(&mut rng));
                std::thread::sleep(Duration::from_millis(ms));
            }
            Round::Waiting(answered, pause) => {
                for (i, answer) in answered {
                    exchange.finish(&live[i].id, &answer)?;
                }
                l.save();
                if exchange.answered(own) {
                    return Ok(());
                }
                std::thread::sleep(pause);
            }
        }
    }
}

/// The jobs of this rail and remote still to serve: each past its deadline gives up here
/// (unless a copy this machine published may still be decided: core's `memory::gives_up`) and
/// is answered so; `None` when none is left.
fn serve_or_expire(
    exchange: &Exchange,
    rail: &Path,
    remote: &str,
    l: &Leader,
    attempt: u32,
) -> Result<Option<Vec<Job>>, Fail> {
    let now_ms = clock::now_ms();
    let (expired, live): (Vec<Job>, Vec<Job>) = (exchange.jobs(rail, remote).into_iter())
        .partition(|j| pace::gives_up(j.deadline_ms, l.memory.published(&j.id).is_some(), now_ms));
    for job in &expired {
        let published = l.memory.published(&job.id).is_some();
        exchange.finish(&job.id, &answer::gave_up(attempt, published, remote))?;
    }
    Ok((!live.is_empty()).then_some(live))
}

/// One round: look (fetch, with every machine's queue), learn what other machines' commits
/// decided for this machine's published jobs, then commit, publish or wait as core decides.
///
/// `live`: the jobs to serve; a round that fetches adds those queued meanwhile, and answers
/// every job in `live` as it leaves it.
fn round(inputs: &look::Inputs<'_>, live: &mut Vec<Job>, l: &mut Leader) -> Round {
    let mut looked = match look::look(inputs, live, l) {
        Ok(looked) => looked,
        Err(fail) => return Round::Failed(fail),
    };
    match looked.decided.next {
        Move::Wait => {
            let (ctx, remote) = (inputs.ctx, inputs.remote);
            answer::finish_answered(
                ctx,
                remote,
                l,
                &looked.state,
                &mut looked.answered,
                &looked.warnings,
            );
            let pause = Duration::from_millis(looked.decided.pause_ms);
            Round::Waiting(looked.answered, pause)
        }
        Move::Publish => publish::publish_round(inputs, live, l, looked),
        Move::Commit { publish } => commit::commit(inputs, live, l, looked, publish),
    }
}
