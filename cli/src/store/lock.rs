//! The rail lock (docs/lock-protocol.md).
//!
//! 1. The lock is the file `claims.md.lock`, created atomically with a complete owner record:
//!    the record is written to a private temp file, fsynced, then hard-linked into place
//!    (`link` fails if the lock exists, and the lock is never seen empty).
//! 2. Then `flock(claims.md, LOCK_EX)`, so people using the plain `flock claims.md …` one-liner
//!    are excluded too. claims.md is only ever rewritten in place (same inode). On Windows this
//!    step is a `LockFileEx` on one byte past any content (see `sys`).
//! 3. A lock whose owner is dead on this host (or an unreadable lock older than the grace period)
//!    is broken by exactly one waiter: to break the lock with identity N, a waiter must first
//!    create the tombstone `claims.md.lock.break.N.1` exclusively, then re-read the lock and
//!    unlink it only if it is still N. Nobody but the tombstone holder can remove N, so the
//!    unlink removes N and nothing else. A tombstone whose creator died is superseded by
//!    `…N.2`, and so on.

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use chrono::TimeDelta;
use rail_core::change::lock::{
    self as core_lock, FileIdentity, LockFacts, LockRecord, LockVerdict, TombstoneStep,
};

use crate::store::gitguard::{self, IndexLock};
use crate::sys::railfile;
use crate::sys::{self, FileId, LockKind};

pub const LOCK_NAME: &str = rail_core::formats::rail_files::LOCK_NAME;

/// What the holder of a lock is doing, for its owner record.
#[derive(Clone, Debug)]
pub struct LockOwner {
    pub session: String,
    pub command: String,
}

/// A held rail lock. Dropping it releases the lock.
#[derive(Debug)]
pub struct RailLock {
    lock_path: PathBuf,
    nonce: String,
    /// claims.md, flocked exclusively for as long as the lock is held.
    pub claims: File,
    /// Locks this acquisition broke on the way (for the log and the user).
    pub broken: Vec<Broken>,
    /// What else this acquisition cleaned up (an `index.lock` a dead Rail left), for the log.
    pub recovered: Vec<String>,
    /// git's `index.lock` of the work tree holding the rail, while the rail lock is held.
    index: Option<IndexLock>,
    /// The session the lock was taken for (a seal's log line names it).
    pub session: String,
}

/// A stale lock that was broken.
#[derive(Clone, Debug)]
pub struct Broken {
    pub holder: String,
    pub reason: String,
}

#[derive(Debug)]
pub enum LockError {
    /// Waited too long; `verdict` says who holds it.
    Timeout {
        verdict: Option<LockVerdict>,
        what: String,
    },
    Io(String, io::Error),
}

impl std::fmt::Display for LockError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LockError::Timeout { verdict, what, .. } => match verdict {
                Some(v) => write!(
                    f,
                    "timed out waiting for {what}: {}",
                    crate::out::hint::say(&v.message, v.hint.as_ref())
                ),
                None => write!(f, "timed out waiting for {what}"),
            },
            LockError::Io(what, e) => write!(f, "{what}: {e}"),
        }
    }
}

fn io_err(what: impl Into<String>) -> impl FnOnce(io::Error) -> LockError {
    let what = what.into();
    move |e| LockError::Io(what, e)
}

/// This machine's name, as recorded in lock records and claim `pid@host` fields.
pub fn hostname() -> String {
    sys::hostname()
}

/// Is process `pid` alive on this host? (`sys::process_alive`; `None` if it cannot be told.)
/// When process `pid` started, as this OS counts it (a claim's `PID@HOST/START`); `None` if
/// unknown.
pub fn process_start(pid: u32) -> Option<u64> {
    sys::process_start(pid)
}

pub fn pid_alive(pid: u32, started: Option<u64>) -> Option<bool> {
    sys::process_alive(pid, started)
}

/// On Windows a file being deleted keeps its name until every handle on it is closed: opening
/// it, or linking a new file to its name, fails with "access denied" meanwhile. That is another
/// process's lock going away, so it is waited out like a held lock, up to the lock timeout.
fn busy_name(e: &io::Error) -> bool {
    cfg!(windows) && e.kind() == io::ErrorKind::PermissionDenied
}

/// A lock file as found on disk.
#[derive(Clone, Debug)]
pub(crate) struct Observed {
    pub(crate) record: Option<LockRecord>,
    /// What names this file (core's lock key and `same_lock` take it as observed).
    identity: FileIdentity,
}

impl Observed {
    /// A lock or tombstone that is a link, a FIFO, a directory… is refused (see `railfile`):
    /// Rail never makes one, no Rail process will remove it, and opening it could block.
    pub(crate) fn read(path: &Path) -> io::Result<Option<Observed>> {
        let Some(file) = railfile::open_read(path)? else {
            return Ok(None);
        };
        let meta = file.metadata()?;
        let id = FileId::of(&file)?;
        let modified_ns = meta
            .modified()?
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.as_nanos() as i128)
            .unwrap_or(0);
        let mut text = String::new();
        // An owner record is a few hundred bytes; a bigger file is unreadable as a record
        // (core's `limits::LOCK_RECORD_BYTES`), and is not read past that.
        let max = rail_core::text::limits::LOCK_RECORD_BYTES as u64;
        let record = match (&file).take(max + 1).read_to_string(&mut text) {
            Ok(_) => core_lock::parse(&text),
            Err(_) => None,
        };
        Ok(Some(Observed {
            record,
            identity: FileIdentity {
                dev: id.volume,
                file: id.index,
                modified_ns,
                len: meta.len(),
            },
        }))
    }

    /// Names this particular lock (not just "a lock"); core's rule.
    fn key(&self) -> String {
        core_lock::lock_key(self.record.as_ref(), &self.identity)
    }

    fn same_lock(&self, other: &Observed) -> bool {
        core_lock::same_lock(
            (self.record.as_ref(), &self.identity),
            (other.record.as_ref(), &other.identity),
        )
    }

    fn age(&self) -> TimeDelta {
        let now = crate::sys::clock::system()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.as_nanos() as i128)
            .unwrap_or(0);
        TimeDelta::nanoseconds(
            ((now - self.identity.modified_ns).max(0)).min(i64::MAX as i128) as i64,
        )
    }

    pub(crate) fn verdict(&self, host: &str) -> LockVerdict {
        let owner_alive = self
            .record
            .as_ref()
            .filter(|r| r.host == host)
            .and_then(|r| pid_alive(r.pid, r.proc_start));
        core_lock::assess(
            self.record.as_ref(),
            &LockFacts {
                now: crate::sys::clock::now(),
                host: host.to_string(),
                owner_alive,
                file_age: self.age(),
            },
        )
    }
}

/// Who holds the lock now, and what that means. `None` if nobody does.
pub fn inspect(dir: &Path) -> io::Result<Option<(Option<LockRecord>, LockVerdict)>> {
    let host = hostname();
    Ok(Observed::read(&dir.join(LOCK_NAME))?.map(|o| {
        let verdict = o.verdict(&host);
        (o.record, verdict)
    }))
}

/// Breaks the lock seen as `seen`, race-free (see the module docs). Returns true if this call
/// removed it; false if someone else is breaking it or it changed meanwhile.
fn break_lock(dir: &Path, seen: &Observed, me: &LockRecord, host: &str) -> io::Result<bool> {
    break_named(dir, LOCK_NAME, seen, me, host)
}

/// [`break_lock`] for the lock file `name` in `dir`.
fn break_named(
    dir: &Path,
    name: &str,
    seen: &Observed,
    me: &LockRecord,
    host: &str,
) -> io::Result<bool> {
    let lock_path = dir.join(name);
    let key = seen.key();
    let tomb = |generation: u32| dir.join(core_lock::tombstone_name_of(name, &key, generation));
    let mut generation = 1;
    let mine = loop {
        let path = tomb(generation);
        match railfile::create_new(&path) {
            Ok(mut f) => {
                f.write_all(me.render().as_bytes())?;
                break path;
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                // Someone is breaking this lock. Supersede them only if they died doing it.
                let Some(other) = Observed::read(&path)? else {
                    continue; // vanished: try the same generation again
                };
                match core_lock::on_existing_tombstone(generation, &other.verdict(host)) {
                    TombstoneStep::Supersede { generation: next } => {
                        generation = next;
                        continue;
                    }
                    TombstoneStep::Wait => return Ok(false),
                }
            }
            Err(e) => return Err(e),
        }
    };
    // Only the tombstone holder may remove the lock `seen`; check it is still that lock.
    let removed = match Observed::read(&lock_path)? {
        Some(now) if now.same_lock(seen) => match fs::remove_file(&lock_path) {
            Ok(()) => true,
            Err(e) if e.kind() == io::ErrorKind::NotFound => false,
            Err(e) => return Err(e),
        },
        _ => false,
    };
    // Clear every tombstone of this key (the lock they were about is gone or changed).
    for g in 1..=generation {
        let _ = fs::remove_file(tomb(g));
    }
    let _ = fs::remove_file(&mine);
    Ok(removed)
}

/// Breaks the current lock on request (`rail lock --break [--force]`). Refuses a live or
/// unverifiable owner unless `force`. Returns what was broken.
pub fn break_on_request(dir: &Path, force: bool, session: &str) -> Result<Option<Broken>, String> {
    let host = hostname();
    let lock_path = dir.join(LOCK_NAME);
    let seen = match Observed::read(&lock_path) {
        Ok(Some(o)) => o,
        Ok(None) => return Ok(None),
        Err(e) => {
            return Err(format!(
                "cannot read the lock: {}",
                railfile::describe(&lock_path, &e)
            ))
        }
    };
    let verdict = seen.verdict(&host);
    if !verdict.breakable && !force {
        return Err(format!(
            "the lock is {}; not breaking it (add --force to break it anyway)",
            crate::out::hint::say(&verdict.message, verdict.hint.as_ref())
        ));
    }
    let me = own_record(session, "rail lock --break");
    match break_lock(dir, &seen, &me, &host) {
        Ok(true) => Ok(Some(Broken {
            holder: seen
                .record
                .as_ref()
                .map(|r| r.holder())
                .unwrap_or_else(|| "an unreadable lock file".into()),
            reason: if force && !verdict.breakable {
                format!("forced: {}", verdict.message)
            } else {
                verdict.message
            },
        })),
        Ok(false) => Err(
            "the lock changed or another process is breaking it; look again with `rail lock`"
                .into(),
        ),
        Err(e) => Err(format!("breaking the lock: {e}")),
    }
}

fn own_record(session: &str, command: &str) -> LockRecord {
    let pid = std::process::id();
    LockRecord {
        pid,
        host: hostname(),
        session: session.to_string(),
        command: command.to_string(),
        started: crate::sys::clock::now(),
        nonce: sys::random_hex(),
        proc_start: sys::process_start(pid),
    }
}

/// Takes the rail lock in `dir`, waiting up to `timeout`: the lock file first (a complete
/// owner record linked into place, a dead holder's lock broken by exactly one waiter), then the
/// `flock` on claims.md and git's index lock (see `gitguard`).
pub fn acquire(dir: &Path, owner: &LockOwner, timeout: Duration) -> Result<RailLock, LockError> {
    let deadline = Instant::now() + timeout;
    let me = own_record(&owner.session, &owner.command);
    let lock_path = dir.join(LOCK_NAME);
    let tmp = dir.join(format!("{LOCK_NAME}.{}.tmp", me.nonce));
    write_record(&tmp, &me)?;
    let mut backoff = Backoff::new(&me.nonce);
    let linked = link(dir, &lock_path, &tmp, &me, deadline, &mut backoff);
    let _ = fs::remove_file(&tmp);
    let broken = linked?;
    // The lock file is ours. Now exclude flock users of claims.md as well.
    let (claims, index, recovered) = match lock_claims(dir, &me, deadline, &mut backoff) {
        Ok(held) => held,
        Err(e) => {
            let _ = fs::remove_file(&lock_path);
            return Err(e);
        }
    };
    Ok(RailLock {
        lock_path,
        nonce: me.nonce,
        claims,
        broken,
        recovered,
        index,
        session: owner.session.clone(),
    })
}

/// Writes this process's owner record to its private file `tmp`, whole or not at all.
fn write_record(tmp: &Path, me: &LockRecord) -> Result<(), LockError> {
    let mut f = railfile::create_new(tmp).map_err(io_err(format!("creating {}", tmp.display())))?;
    // No fsync: the record only has to survive its writer dying, which the page cache
    // guarantees (RAIL_FSYNC=1 adds durability against power loss).
    let written = f.write_all(me.render().as_bytes()).and_then(|_| {
        if crate::sys::env::env().fsync {
            f.sync_all()
        } else {
            Ok(())
        }
    });
    if let Err(e) = written {
        // A full disk must not leave a half-written private file behind.
        drop(f);
        let _ = fs::remove_file(tmp);
        return Err(LockError::Io(format!("writing {}", tmp.display()), e));
    }
    Ok(())
}

/// After this long waiting for the lock, a waiter says who holds it (once): a lock held by a
/// `flock` one-liner or a slow command otherwise left `rail claim` silent until its timeout.
const WAIT_NOTICE: Duration = Duration::from_secs(1);

/// Says once, on stderr, what a wait is for, when it has lasted [`WAIT_NOTICE`].
struct WaitNotice {
    since: Instant,
    said: bool,
}

impl WaitNotice {
    fn new() -> WaitNotice {
        WaitNotice {
            since: Instant::now(),
            said: false,
        }
    }

    fn tell(&mut self, deadline: Instant, what: impl FnOnce() -> String) {
        if self.said || self.since.elapsed() < WAIT_NOTICE {
            return;
        }
        self.said = true;
        let left = deadline
            .saturating_duration_since(Instant::now())
            .as_secs_f32();
        errln!("rail: waiting for {} (at most {left:.0} s more)", what());
    }
}

/// Links the complete record `tmp` into place as the lock file, until `deadline`: a holder core
/// judges breakable is broken (each one broken is returned, for the log), any other is waited
/// for.
fn link(
    dir: &Path,
    lock_path: &Path,
    tmp: &Path,
    me: &LockRecord,
    deadline: Instant,
    backoff: &mut Backoff,
) -> Result<Vec<Broken>, LockError> {
    let host = &me.host;
    let mut broken = Vec::new();
    let mut notice = WaitNotice::new();
    loop {
        match fs::hard_link(tmp, lock_path) {
            Ok(()) => return Ok(broken),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) if busy_name(&e) && Instant::now() < deadline => {
                backoff.sleep(deadline);
                continue;
            }
            Err(e) => {
                return Err(LockError::Io(
                    format!("creating {}", lock_path.display()),
                    e,
                ))
            }
        }
        let seen = match Observed::read(lock_path) {
            Ok(Some(seen)) => seen,
            // A link, FIFO, directory… where the lock should be: no Rail process made it and none
            // will remove it, so waiting cannot end well. Say what it is, now.
            Err(e) if railfile::refusal(&e).is_some() => {
                return Err(LockError::Io("the rail lock cannot be opened".into(), e));
            }
            // Released meanwhile: try again at once, but never past the deadline (a name that
            // exists for `link` and not for `open` is this case every time).
            Ok(None) if Instant::now() < deadline => {
                backoff.sleep(deadline);
                continue;
            }
            Ok(None) => {
                return Err(LockError::Timeout {
                    verdict: None,
                    what: format!(
                        "the rail lock {} (it exists but cannot be opened)",
                        lock_path.display()
                    ),
                });
            }
            Err(e) if busy_name(&e) && Instant::now() < deadline => {
                backoff.sleep(deadline);
                continue;
            }
            Err(e) => {
                return Err(LockError::Io(format!("reading {}", lock_path.display()), e));
            }
        };
        let verdict = seen.verdict(host);
        if verdict.breakable {
            match break_lock(dir, &seen, me, host) {
                Ok(true) => {
                    broken.push(Broken {
                        holder: seen
                            .record
                            .as_ref()
                            .map(|r| r.holder())
                            .unwrap_or_else(|| "an unreadable lock file".into()),
                        reason: verdict.message.clone(),
                    });
                    continue;
                }
                Ok(false) => {}
                Err(e) => return Err(LockError::Io("breaking a stale lock".into(), e)),
            }
        }
        if Instant::now() >= deadline {
            return Err(LockError::Timeout {
                verdict: Some(verdict),
                what: format!("the rail lock {}", lock_path.display()),
            });
        }
        notice.tell(deadline, || {
            format!(
                "the rail lock: it is {}",
                crate::out::hint::say(&verdict.message, verdict.hint.as_ref())
            )
        });
        backoff.sleep(deadline);
    }
}

/// With the lock file held: `flock` on claims.md (as the seed's one-liner takes it) and git's
/// index lock, by `deadline`, and claims.md made sure to be the file now at its name. Returns
/// the handle, the index lock and what taking it recovered.
fn lock_claims(
    dir: &Path,
    me: &LockRecord,
    deadline: Instant,
    backoff: &mut Backoff,
) -> Result<(File, Option<IndexLock>, Vec<String>), LockError> {
    let claims_path = dir.join(rail_core::formats::rail_files::CLAIMS_MD);
    // flock on claims.md, by the deadline.
    let flock = |claims: &File, backoff: &mut Backoff| -> Result<(), LockError> {
        let mut notice = WaitNotice::new();
        loop {
            match sys::try_lock(claims, LockKind::Exclusive) {
                Ok(true) => return Ok(()),
                Ok(false) => {
                    if Instant::now() >= deadline {
                        return Err(LockError::Timeout {
                            verdict: None,
                            what: format!(
                                "flock on {} (another process, e.g. a `flock claims.md …` one-liner, holds it)",
                                claims_path.display()
                            ),
                        });
                    }
                    notice.tell(deadline, || {
                        format!(
                            "{}: another process holds its flock (a `flock claims.md …` one-liner, or a tool that locks it)",
                            claims_path.display()
                        )
                    });
                    backoff.sleep(deadline);
                }
                Err(e) => return Err(LockError::Io(format!("flock {}", claims_path.display()), e)),
            }
        }
    };
    let open_error = |e: io::Error| LockError::Io(format!("opening {}", claims_path.display()), e);
    // Keep git from rewriting claims.md while we read and write it (see `gitguard`), then make
    // sure the file we hold is the one that is there: git may have replaced it just before.
    let mut recovered = Vec::new();
    let lock_index = |recovered: &mut Vec<String>| match gitguard::git_dir_of(dir) {
        Some(git_dir) => gitguard::lock_index(&git_dir, me, deadline, recovered),
        None => Ok(None),
    };
    let (claims, index) = match railfile::open_rw(&claims_path) {
        // claims.md is there: flock it (as the seed's one-liner does), then keep git out.
        Ok(Some(claims)) => {
            flock(&claims, backoff)?;
            match lock_index(&mut recovered) {
                Ok(index) => (claims, index),
                Err(e) => {
                    let _ = sys::unlock(&claims);
                    return Err(e);
                }
            }
        }
        // Missing: a new rail, or a git command between removing claims.md and writing it
        // again. Creating it now would make an empty claims.md that git then cannot write (its
        // new file exists) and every claim in it would be lost: keep git out first, then
        // create it (git, done, has written it back if it was rewriting it).
        Ok(None) => {
            let index = lock_index(&mut recovered)?;
            let claims = railfile::open_rw_create(&claims_path).map_err(open_error)?;
            flock(&claims, backoff)?;
            (claims, index)
        }
        Err(e) => return Err(open_error(e)),
    };
    let claims = lock_current(claims, &claims_path, deadline, backoff)?;
    Ok((claims, index, recovered))
}

/// Returns a flocked handle on the file now at `path`: `held` if it still is that file, else
/// the new file, flocked by the deadline (the old one is unlocked).
fn lock_current(
    held: File,
    path: &Path,
    deadline: Instant,
    backoff: &mut Backoff,
) -> Result<File, LockError> {
    let held_id = FileId::of(&held).map_err(io_err(format!("reading {}", path.display())))?;
    let now = match railfile::open_rw_create(path) {
        Ok(f) => f,
        Err(e) => {
            let _ = sys::unlock(&held);
            return Err(LockError::Io(format!("opening {}", path.display()), e));
        }
    };
    let now_id = FileId::of(&now).map_err(io_err(format!("reading {}", path.display())))?;
    if now_id == held_id {
        return Ok(held);
    }
    let _ = sys::unlock(&held);
    loop {
        match sys::try_lock(&now, LockKind::Exclusive) {
            Ok(true) => return Ok(now),
            Ok(false) if Instant::now() < deadline => backoff.sleep(deadline),
            Ok(false) => {
                return Err(LockError::Timeout {
                    verdict: None,
                    what: format!(
                    "flock on {} (another process, e.g. a `flock claims.md …` one-liner, holds it)",
                    path.display()
                ),
                })
            }
            Err(e) => return Err(LockError::Io(format!("flock {}", path.display()), e)),
        }
    }
}

impl Drop for RailLock {
    fn drop(&mut self) {
        // Let git in again before anyone else may take the rail lock.
        self.index.take();
        // Remove the lock file only if it is still ours (a forced break may have replaced it).
        if let Ok(Some(seen)) = Observed::read(&self.lock_path) {
            if seen.record.as_ref().map(|r| r.nonce.as_str()) == Some(self.nonce.as_str()) {
                let _ = fs::remove_file(&self.lock_path);
            }
        }
        let _ = sys::unlock(&self.claims);
    }
}

/// A lock file other than the rail lock, taken by the same protocol (a complete owner record
/// linked into place; a dead holder's lock broken by exactly one waiter through tombstones),
/// without claims.md's `flock` or git's `index.lock`: the shared rail's exchange lock, which
/// serialises one repository's fetches and pushes. Dropping it removes the file if it is still
/// ours.
#[derive(Debug)]
pub struct FileLock {
    path: PathBuf,
    nonce: String,
    /// Locks this acquisition broke on the way.
    pub broken: Vec<Broken>,
}

impl Drop for FileLock {
    fn drop(&mut self) {
        if let Ok(Some(seen)) = Observed::read(&self.path) {
            if seen.record.as_ref().map(|r| r.nonce.as_str()) == Some(self.nonce.as_str()) {
                let _ = fs::remove_file(&self.path);
            }
        }
    }
}

/// One attempt at the lock file `name` in `dir`: `Some` if this process now holds it, `None`
/// if a live (or unverifiable) holder has it. A dead holder's lock is broken on the way, as the
/// rail lock's is. The caller waits and tries again as it sees fit.
pub fn try_lock_file(
    dir: &Path,
    name: &str,
    owner: &LockOwner,
) -> Result<Option<FileLock>, LockError> {
    let host = hostname();
    let lock_path = dir.join(name);
    // Waiters poll: the common answer, a live holder, costs one read and writes nothing (the
    // own record, which reads this process's start time, is made only to take the lock).
    if let Ok(Some(seen)) = Observed::read(&lock_path) {
        if !seen.verdict(&host).breakable {
            return Ok(None);
        }
    }
    let me = own_record(&owner.session, &owner.command);
    let tmp = dir.join(format!("{name}.{}.tmp", me.nonce));
    fs::write(&tmp, me.render()).map_err(io_err(format!("creating {}", tmp.display())))?;
    let mut broken = Vec::new();
    // Twice at most: once more right after breaking a dead holder's lock.
    let result = (|| {
        for _ in 0..2 {
            match fs::hard_link(&tmp, &lock_path) {
                Ok(()) => {
                    return Ok(Some(FileLock {
                        path: lock_path.clone(),
                        nonce: me.nonce.clone(),
                        broken: std::mem::take(&mut broken),
                    }))
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists || busy_name(&e) => {}
                Err(e) => {
                    return Err(LockError::Io(
                        format!("creating {}", lock_path.display()),
                        e,
                    ))
                }
            }
            let seen = match Observed::read(&lock_path) {
                Ok(Some(seen)) => seen,
                Ok(None) => continue,
                Err(e) if busy_name(&e) => return Ok(None),
                Err(e) => return Err(LockError::Io(format!("reading {}", lock_path.display()), e)),
            };
            let verdict = seen.verdict(&host);
            if !verdict.breakable {
                return Ok(None);
            }
            match break_named(dir, name, &seen, &me, &host) {
                Ok(true) => broken.push(Broken {
                    holder: seen
                        .record
                        .as_ref()
                        .map(|r| r.holder())
                        .unwrap_or_else(|| "an unreadable lock file".into()),
                    reason: verdict.message.clone(),
                }),
                Ok(false) => return Ok(None),
                Err(e) => return Err(LockError::Io("breaking a stale lock".into(), e)),
            }
        }
        Ok(None)
    })();
    let _ = fs::remove_file(&tmp);
    result
}

/// Whether nobody holds the rail lock on `path` right now (a shared lock is granted at once):
/// for work that is worth doing before taking the lock only if it will not wait for it.
pub fn free_now(path: &Path) -> bool {
    let Ok(Some(file)) = railfile::open_read(path) else {
        return true;
    };
    let free = matches!(sys::try_lock(&file, LockKind::Shared), Ok(true));
    let _ = sys::unlock(&file);
    free
}

/// Readers take a shared flock on claims.md so they never see a write half done.
pub fn read_shared(path: &Path) -> io::Result<Option<(Vec<u8>, SystemTime)>> {
    let Some(file) = railfile::open_read(path)? else {
        return Ok(None);
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut backoff = Backoff::new("reader");
    loop {
        match sys::try_lock(&file, LockKind::Shared) {
            Ok(true) => break,
            Ok(false) if Instant::now() < deadline => backoff.sleep(deadline),
            // Past the deadline, read anyway: a stuck writer must not make the board unreadable.
            _ => break,
        }
    }
    let read = railfile::read_open(&file, path, railfile::MAX_RAIL_BYTES);
    let _ = sys::unlock(&file);
    let bytes = read?;
    let modified = file.metadata()?.modified()?;
    Ok(Some((bytes, modified)))
}

/// Exponential backoff with jitter: 1 ms doubling to 50 ms.
pub(crate) struct Backoff {
    next: u64,
    seed: u64,
}

impl Backoff {
    pub(crate) fn new(seed: &str) -> Self {
        let seed = seed.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
        });
        Backoff {
            next: 1,
            seed: seed | 1,
        }
    }

    pub(crate) fn sleep(&mut self, deadline: Instant) {
        self.seed ^= self.seed << 13;
        self.seed ^= self.seed >> 7;
        self.seed ^= self.seed << 17;
        let jitter = self.seed % (self.next + 1);
        let wait = Duration::from_millis(self.next / 2 + jitter);
        let left = deadline.saturating_duration_since(Instant::now());
        std::thread::sleep(wait.min(left).max(Duration::from_micros(200)));
        self.next = (self.next * 2).min(50);
    }
}
