//! One machine's exchanges with a shared rail's remote: the exchange lock and the job queue
//! (docs/shared-rail.md, "Many processes on one machine").
//!
//! Every process of a machine — each worktree's agents — fetches into and pushes from the same
//! repository. Left to race there, they failed each other: concurrent fetches into one
//! repository caught each other's refs half made (`bad object refs/rail/tmp/…`, reported as an
//! unreachable remote), and M × P processes racing for the remote's one compare-and-swap
//! collapsed (8 clones × 8 processes: 3.5 successful claims/s against 9.2 for 4 × 4, the
//! slowest claim 18 s, and "gave up after 16 attempts" under load).
//!
//! So a process does not talk to the remote itself. It writes its operation as a job into the
//! repository's queue (`<git dir>/rail/exchange/<id>.job`) and waits for the job's outcome
//! (`<id>.done`). Whichever waiter holds the exchange lock (`exchange.lock`, taken like the rail
//! lock: a complete owner record linked into place, a dead holder's lock broken by exactly one
//! waiter) is the leader: it serves every queued job in one round — one fetch, every job planned
//! in queue order on that state, one commit, one push — and writes each job's outcome. A rejected
//! push starts a new round, which also takes in jobs queued meanwhile. So one machine puts at
//! most one process on the remote at a time, one fetch serves every job queued before it ends
//! (the round takes in those queued while it fetched), and a machine's queued operations share
//! one commit and one push.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rail_core::change::ops::Request;
use serde::{Deserialize, Serialize};

use rail_core::change::round::Contention;

use crate::context::Ctx;
use crate::fail::Fail;
use crate::out::outcome::Report;
use crate::store::lock::{self, Backoff, FileLock, LockOwner};

/// The exchange lock's file name in the queue directory.
pub const LOCK: &str = "exchange.lock";

/// Written when a leader's push is rejected (the round's length in ms): machines contend.
const CONTENDED: &str = "contended";

/// The commit this machine pushed last (its id), written after each accepted push: while it is
/// fresh and nobody was seen to contend since, the next round plans on it without a fetch.
const PUSHED: &str = "pushed";

/// How often a waiter asks whether a leader that holds the exchange lock is still alive.
const LEADER_CHECK: Duration = Duration::from_millis(200);

/// How long a waiter waits past its job's deadline for a live leader that has not answered (a
/// git command hanging on the network) before it withdraws the job and says so.
const GRACE: Duration = Duration::from_secs(30);

/// One operation waiting for the remote.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Job {
    pub id: String,
    /// The rail (its directory) and remote the job is for: a leader serves only its own.
    pub rail: PathBuf,
    pub remote: String,
    pub session: String,
    /// `None`: a sync — deliver this machine's outbox, fetch, mirror.
    pub request: Option<Request>,
    /// Log lines to write before the operation's own (the gate's verdict before its release).
    pub extra_log: Vec<String>,
    /// The requester's "now" (`--now` included), for its leases and log line: ms since 1970.
    pub now_ms: i64,
    /// Past this (ms since 1970) a leader stops retrying the job and answers "gave up".
    pub deadline_ms: i64,
    /// When it was queued (ns since 1970): jobs are planned in this order.
    pub queued_ns: i64,
}

/// A repository's queue directory.
pub struct Exchange {
    dir: PathBuf,
}

impl Exchange {
    /// The queue of the repository holding the rail at `rail_root`.
    pub fn of(ctx: &Ctx) -> Result<Exchange, Fail> {
        let git_dir = crate::store::gitguard::git_dir_of(&ctx.rail.root).ok_or_else(|| {
            Fail::env("a shared rail must lie in a git work tree (its remote is a git remote)")
        })?;
        let dir = git_dir.join("rail").join("exchange");
        fs::create_dir_all(&dir)
            .map_err(|e| Fail::env(format!("creating {}: {e}", dir.display())))?;
        Ok(Exchange { dir })
    }

    fn path(&self, id: &str, ext: &str) -> PathBuf {
        self.dir.join(format!("{id}.{ext}"))
    }

    /// Writes `text` to `path` whole: a reader sees the old file or the new one, never a part.
    fn write_whole(&self, path: &Path, text: &str) -> io::Result<()> {
        let tmp = path.with_extension(format!("{}.tmp", std::process::id()));
        fs::write(&tmp, text)?;
        fs::rename(&tmp, path).inspect_err(|_| {
            let _ = fs::remove_file(&tmp);
        })
    }

    fn enqueue(&self, job: &Job) -> Result<(), Fail> {
        let text = serde_json::to_string(job)
            .map_err(|e| Fail::env(format!("queueing the operation: {e}")))?;
        self.write_whole(&self.path(&job.id, "job"), &text)
            .map_err(|e| {
                Fail::env(format!(
                    "queueing the operation in {}: {e}",
                    self.dir.display()
                ))
            })
    }

    /// The queued jobs for this rail and remote, oldest first. A job file that does not parse
    /// (written by another version of Rail) is left for a leader that reads it.
    pub fn jobs(&self, rail: &Path, remote: &str) -> Vec<Job> {
        let Ok(entries) = fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut jobs: Vec<Job> = entries
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().ends_with(".job"))
            .filter_map(|e| fs::read_to_string(e.path()).ok())
            .filter_map(|t| serde_json::from_str::<Job>(&t).ok())
            .filter(|j| j.rail == rail && j.remote == remote)
            .collect();
        jobs.sort_by(|a, b| (a.queued_ns, &a.id).cmp(&(b.queued_ns, &b.id)));
        jobs
    }

    /// Answers a job: its outcome first, then the job is gone from the queue.
    pub fn finish(&self, id: &str, outcome: &Report) -> Result<(), Fail> {
        let text = serde_json::to_string(outcome)
            .map_err(|e| Fail::env(format!("answering a queued operation: {e}")))?;
        self.write_whole(&self.path(id, "done"), &text)
            .map_err(|e| Fail::env(format!("answering a queued operation: {e}")))?;
        let _ = fs::remove_file(self.path(id, "job"));
        Ok(())
    }

    /// Whether job `id` has its answer (waiting for its process).
    pub fn answered(&self, id: &str) -> bool {
        self.path(id, "done").exists()
    }

    fn take_outcome(&self, id: &str) -> Option<Report> {
        let path = self.path(id, "done");
        let text = fs::read_to_string(&path).ok()?;
        let _ = fs::remove_file(&path);
        Some(serde_json::from_str(&text).unwrap_or_else(|e| {
            Report::from_fail(&Fail::env(format!(
                "the answer to this operation in {} could not be read ({e}); `rail sync` and look whether it was made",
                path.display()
            )))
        }))
    }

    /// Removes answers nobody came for (their process was killed while waiting) once they are
    /// an hour old, so the queue directory does not grow.
    ///
    /// An answer's age is judged by the file system's clock alone: against the time of a file
    /// made here just now, never against this process's clock. With the process clock an hour
    /// or more ahead of the file system's (an NFS server behind), a sweep by `elapsed()`
    /// removed the answer it had just written, and its waiter led again and again (issue 42,
    /// finding 5). When the file system's time cannot be read, nothing is removed.
    pub fn sweep(&self) {
        let Some(now) = self.file_system_now() else {
            return;
        };
        let Ok(entries) = fs::read_dir(&self.dir) else {
            return;
        };
        for e in entries.filter_map(|e| e.ok()) {
            let name = e.file_name().to_string_lossy().into_owned();
            let old = e
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| now.duration_since(t).ok())
                .is_some_and(|age| age > Duration::from_secs(3600));
            if old && (name.ends_with(".done") || name.ends_with(".tmp")) {
                let _ = fs::remove_file(e.path());
            }
        }
    }

    /// The file system's "now": the modification time of a file created in the queue directory
    /// just now (then removed). `None` when it cannot be made or read.
    fn file_system_now(&self) -> Option<std::time::SystemTime> {
        let probe = self.dir.join(format!(
            "clock-{}-{}.probe",
            std::process::id(),
            crate::sys::random_hex()
        ));
        let file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&probe)
            .ok()?;
        let at = file.metadata().and_then(|m| m.modified());
        drop(file);
        let _ = fs::remove_file(&probe);
        at.ok()
    }

    /// A leader's push was rejected after a round of `round`: machines are contending.
    pub fn note_contention(&self, round: Duration) {
        let _ = self.write_whole(
            &self.dir.join(CONTENDED),
            &round.as_millis().min(60_000).to_string(),
        );
    }

    /// The queue directory (the exchange's files: jobs, answers, the lock, the leader's state).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// How long ago a push of this machine was last rejected (ms), if one was.
    fn rejected_age_ms(&self) -> Option<u64> {
        age_ms(&self.dir.join(CONTENDED))
    }

    /// Whether a push of this machine was rejected within core's contention memory of a round of
    /// `round_ms` (`round::memory::contention_memory_ms`).
    pub fn contended(&self, round_ms: u64) -> bool {
        let memory = rail_core::change::round::memory::contention_memory_ms(round_ms);
        self.rejected_age_ms().is_some_and(|age| age <= memory)
    }

    /// This machine's last rejected push, as core's pacing reads it: how long ago, and how long
    /// that round had taken.
    pub fn contention(&self) -> Option<Contention> {
        let round_ms = fs::read_to_string(self.dir.join(CONTENDED))
            .ok()?
            .trim()
            .parse()
            .ok()?;
        Some(Contention {
            age_ms: self.rejected_age_ms()?,
            round_ms,
        })
    }

    /// An accepted push of `commit`: the remote's state, as far as this machine knows.
    pub fn note_pushed(&self, commit: &str) {
        let _ = self.write_whole(&self.dir.join(PUSHED), commit);
    }

    /// The commit this machine pushed last, when core says a round may plan on it
    /// (`round::memory::trusts_own_push`: within `trust`, and no push of this machine rejected
    /// since).
    pub fn own_push(&self, trust: Duration) -> Option<String> {
        let pushed = self.dir.join(PUSHED);
        let age = age_ms(&pushed)?;
        let rejected_since = self.rejected_age_ms().is_some_and(|r| r <= age);
        let trust_ms = trust.as_millis().min(u64::MAX as u128) as u64;
        if !rail_core::change::round::memory::trusts_own_push(age, trust_ms, rejected_since) {
            return None;
        }
        let id = fs::read_to_string(&pushed).ok()?.trim().to_string();
        (id.len() >= 40 && id.bytes().all(|b| b.is_ascii_hexdigit())).then_some(id)
    }

    fn try_lead(&self, ctx: &Ctx, session: &str) -> Result<Option<FileLock>, Fail> {
        lock::try_lock_file(&self.dir, LOCK, &owner(ctx, session))
            .map_err(|e| Fail::env(format!("the shared rail's exchange lock: {e}")))
    }

    /// Holds the exchange lock outright (publishing the first shared state), waiting until
    /// `deadline`.
    pub fn hold(&self, ctx: &Ctx, session: &str, deadline: Instant) -> Result<FileLock, Fail> {
        let mut backoff = Backoff::new(session);
        loop {
            if let Some(held) = self.try_lead(ctx, session)? {
                return Ok(held);
            }
            if Instant::now() >= deadline {
                return Err(Fail::env(format!(
                    "timed out waiting for the shared rail's exchange lock {} (held by another rail process of this machine)",
                    self.dir.join(LOCK).display()
                )));
            }
            backoff.sleep(deadline);
        }
    }
}

/// How long ago `path` was last written (ms), by the file system's clock against this
/// process's: `None` when it is not there, or was written in the future.
fn age_ms(path: &Path) -> Option<u64> {
    let at = fs::metadata(path).ok()?.modified().ok()?;
    let age = crate::sys::clock::system().duration_since(at).ok()?;
    Some(age.as_millis().min(u64::MAX as u128) as u64)
}

fn owner(ctx: &Ctx, session: &str) -> LockOwner {
    LockOwner {
        session: session.to_string(),
        command: ctx.command_line.clone(),
    }
}

/// A job that was served but whose answer is gone (removed by something other than its
/// waiter): the operation was planned, and may have been made.
fn lost_answer(queue: &Exchange) -> Fail {
    Fail::env(format!(
        "the answer to this operation vanished from {} after it was served; the operation may or may not have reached the remote: `rail sync` and look",
        queue.dir.display()
    ))
}

/// A new job's id: unique on this machine (pid, time, random).
pub fn new_id() -> String {
    format!(
        "{}-{}-{}",
        crate::sys::clock::now()
            .timestamp_nanos_opt()
            .unwrap_or_default(),
        std::process::id(),
        crate::sys::random_hex()
    )
}

/// Queues `job` and waits for its outcome, leading whenever the exchange lock is free: the
/// leader (`lead`) serves every queued job, this one included. Returns the outcome, or the
/// failure to report.
pub fn submit(
    ctx: &Ctx,
    queue: &Exchange,
    job: Job,
    lead: impl Fn(&Exchange) -> Result<(), Fail>,
) -> Result<Report, Fail> {
    queue.enqueue(&job)?;
    let mut backoff = Backoff::new(&job.id);
    // Whether the leader is alive is asked of the lock (its owner's process) at most every
    // LEADER_CHECK while its lock is there: a waiter looks for its answer far more often than
    // that, and every look at the owner read /proc (with a hundred waiters, the waiters' own
    // polling was a tenth of the machine's CPU in the 20-machine bench).
    let mut next_check = Instant::now();
    let give_up = Instant::now()
        + Duration::from_millis((job.deadline_ms - crate::sys::clock::now_ms()).max(0) as u64)
        + GRACE;
    loop {
        if let Some(outcome) = queue.take_outcome(&job.id) {
            return outcome.into_result();
        }
        let leader_there = queue.dir.join(LOCK).exists();
        let check = !leader_there || Instant::now() >= next_check;
        if check {
            next_check = Instant::now() + LEADER_CHECK;
        }
        if let Some(held) = check
            .then(|| queue.try_lead(ctx, &job.session))
            .transpose()?
            .flatten()
        {
            for b in &held.broken {
                errln!(
                    "rail: recovered the shared rail's exchange lock held by {}: {}",
                    b.holder,
                    b.reason
                );
            }
            // Served between our look and our lock?
            if let Some(outcome) = queue.take_outcome(&job.id) {
                return outcome.into_result();
            }
            let led = lead(queue);
            queue.sweep();
            drop(held);
            led?;
            if let Some(outcome) = queue.take_outcome(&job.id) {
                return outcome.into_result();
            }
            // Led, and our job is neither queued nor answered: nobody will answer it, so
            // leading again would only spin (issue 42, finding 5: an answer removed under us).
            if !queue.path(&job.id, "job").exists() {
                return Err(lost_answer(queue));
            }
            // Lead again at once, unless the deadline has passed: then give up below, like a
            // waiter (the `continue` here used to skip that check).
            if Instant::now() < give_up {
                continue;
            }
        }
        if Instant::now() >= give_up {
            let _ = fs::remove_file(queue.path(&job.id, "job"));
            // Answered while we gave up: the answer stands.
            if let Some(outcome) = queue.take_outcome(&job.id) {
                return outcome.into_result();
            }
            return Err(Fail::env(format!(
                "the process holding the shared rail's exchange lock ({}) did not answer in time; the operation may or may not have reached the remote: `rail sync` and look",
                queue.dir.join(LOCK).display()
            )));
        }
        // Waiting for the leader: 1 ms doubling to 50 ms, jittered.
        backoff.sleep(give_up);
    }
}
