//! One rail across machines, on a git remote (docs/shared-rail.md).
//!
//! The rail's state lives on the remote at `refs/rail/claims`: a small history of commits whose
//! tree holds claims.md, claims/*.yaml and claims.log. A push that is not a fast-forward is
//! rejected by every git server, which is an atomic compare-and-swap; Rail needs nothing else.
//!
//! A mutation is queued for this machine's leader (`exchange`), which serves every queued job
//! in one round: fetch the ref, let core plan each job on that state in turn, commit the result
//! on top (one commit per round, made with `git fast-import` on a private temporary ref), push
//! without force. Rejected: someone else won; back off with jitter, fetch, re-plan (now maybe a
//! refusal naming the holder), until each job's deadline. Unreachable: exit 3 and change
//! nothing. After a success the main checkout's files mirror the new state.
//!
//! Log lines recorded on this machine (refusals, bypasses, gate verdicts, recovered locks) go
//! to claims.log and to an outbox in the git dir; every round delivers the outbox's lines the
//! shared log lacks, and mirroring keeps them in claims.log until the shared log has them.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use rail_core::change::ops::{Plan, Request};
use rail_core::change::snapshot;
use rail_core::formats::log::{LogEntry, LogEvent as Event};
use rail_core::formats::rail_files::{CLAIMS_MD, LOG_FILE};
use rail_core::model::freshness::FreshnessFacts;
use rail_core::model::input::RailTexts;

use crate::context::Ctx;
use crate::exchange::{self, Job, Outcome, Queue};
use crate::fail::{self, Fail};
use crate::git;
use crate::lock::RailLock;

pub const REF: &str = "refs/rail/claims";
/// Where the last fetched state is kept locally, and when it was fetched.
pub const FETCHED: &str = "refs/rail/fetched";
/// Where a new commit is made before it is pushed.
pub const NEW: &str = "refs/rail/new";
const SYNCED_STAMP: &str = "rail-synced";
/// The state this machine had seen when it found the remote rewound, kept until it is merged
/// back and pushed (a failed round must not lose it: the fetched ref has moved on).
pub const BEFORE_REWIND: &str = "refs/rail/before-rewind";
/// This machine's log lines not yet in the shared log, in `<git dir>/rail/`.
const OUTBOX: &str = "outbox.log";
/// Claims made here while the shared rail was not used (`RAIL_LOCAL=1`), their claims.md lines
/// as written, in `<git dir>/rail/`: offered to the shared rail at the next round.
const PROVISIONAL: &str = "provisional.md";

/// The remote this rail is shared through, if any: `git config rail.remote`, else rail.yaml
/// `remote:`.
pub fn remote_of(ctx: &Ctx) -> Option<String> {
    if local_only() {
        return None;
    }
    configured_remote(ctx)
}

/// `RAIL_LOCAL=1`: this command works on the local rail only.
pub fn local_only() -> bool {
    std::env::var("RAIL_LOCAL").is_ok_and(|v| v == "1")
}

/// The remote this rail is configured to share through, whether or not `RAIL_LOCAL` is set.
pub fn configured_remote(ctx: &Ctx) -> Option<String> {
    let dir = &ctx.rail.root;
    crate::gitconfig::get(ctx.repo.as_ref(), dir, "rail.remote")
        .or_else(|| crate::context::rail_config(ctx).remote)
}

/// A snapshot of the shared rail: the commit (None before the first operation) and its files.
#[derive(Clone, Debug)]
pub struct Snapshot {
    pub commit: Option<String>,
    pub files: BTreeMap<String, String>,
    /// Entries of the tree that are not the rail's (stray files, submodule entries): never
    /// read, so a non-UTF-8 file or a gitlink cannot break an operation.
    pub foreign: Vec<String>,
}

/// How an unreachable remote's failure starts; reads show only what git said after it.
const UNREACHABLE: &str = "the shared rail's remote is unreachable, nothing was changed: ";

/// Why talking to the remote failed.
#[derive(Debug)]
pub enum RemoteError {
    /// The remote could not be reached (or refused us): nothing was changed.
    Unreachable(String),
    /// Anything else git said.
    Git(String),
}

impl RemoteError {
    pub fn fail(self) -> Fail {
        match self {
            RemoteError::Unreachable(m) => Fail::env(format!("{UNREACHABLE}{m}")),
            RemoteError::Git(m) => Fail::env(m),
        }
    }
}

/// A git command that talks to the remote, stopped at `deadline`: a remote that accepts the
/// connection and never answers must not hold the operation (and this machine's exchange
/// lock) past its deadline. `None`: stopped unanswered. The command runs in its own process
/// group on Unix, so a transport helper it started (`ssh`, `git-remote-https`) is stopped too
/// and cannot keep the output pipes open.
fn git_remote(
    dir: &Path,
    args: &[&str],
    deadline: Instant,
) -> Result<Option<std::process::Output>, RemoteError> {
    let mut cmd = Command::new("git");
    cmd.args(args)
        .current_dir(dir)
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| RemoteError::Git(format!("cannot run git: {e}")))?;
    // Each pipe is read to its end on a thread that then says so: git (and the transport
    // helpers that share its pipes) has exited when both have ended, so the wait below starts
    // then instead of polling git all along (a poll every 50 ms cost a fetch or push 25 ms on
    // average, and a round at a distance runs four of them).
    let (ended, closed) = std::sync::mpsc::channel::<()>();
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        let ended = ended.clone();
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut buf);
            }
            let _ = ended.send(());
            buf
        })
    };
    let out = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    drop(ended);
    let mut open_pipes = 2;
    while open_pipes > 0 {
        let left = deadline.saturating_duration_since(Instant::now());
        match closed.recv_timeout(left) {
            Ok(()) => open_pipes -= 1,
            // Both threads gone: nothing more will come.
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => break,
        }
    }
    // A process that closed its pipes and lives on is still waited for, until the deadline.
    let mut wait_ms = 1;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() >= deadline => break None,
            Ok(None) => {
                let left = deadline.saturating_duration_since(Instant::now());
                std::thread::sleep(Duration::from_millis(wait_ms).min(left));
                wait_ms = (wait_ms * 2).min(50);
            }
            Err(e) => return Err(RemoteError::Git(format!("cannot wait for git: {e}"))),
        }
    };
    let Some(status) = status else {
        crate::sys::kill_group(child.id());
        let _ = child.kill();
        let _ = child.wait();
        let _ = out.join();
        let _ = err.join();
        return Ok(None);
    };
    Ok(Some(std::process::Output {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    }))
}

/// A round's failure, told with the rounds this machine lost to other machines before it: a
/// job starved by a busy rail until its deadline cut off the last fetch is "busy", not
/// "unreachable".
pub fn after_lost_rounds(lost: u32, mut fail: Fail) -> Fail {
    if lost > 0 {
        fail.message = format!(
            "{lost} round{} lost to other machines' pushes (the shared rail is busy), then: {}",
            if lost == 1 { "" } else { "s" },
            fail.message
        );
    }
    fail
}

/// What a remote that did not answer in time is told as.
fn no_answer(remote: &str, what: &str) -> String {
    format!(
        "{remote} did not answer {what} within the shared rail's deadline of {} ms (RAIL_SHARED_TIMEOUT_MS)",
        shared_timeout().as_millis()
    )
}

/// Whether git failed on another process of this machine rather than on the remote: a lock
/// that process holds in the local repository (`cannot lock ref …`, `Unable to create
/// '….lock': File exists`), or that process's private ref caught half made by this fetch's
/// connectivity check (`bad object refs/rail/tmp/…`, then "did not send all necessary
/// objects", seen with eight racers on one clone). A passing state, not a remote's fault.
fn local_lock_busy(stderr: &str) -> bool {
    stderr.contains("cannot lock ref")
        || (stderr.contains(".lock") && stderr.contains("File exists"))
        || stderr.contains("bad object refs/rail/tmp/")
}

/// Fetches the shared ref (and, with `branches`, the remote's branch heads for leases).
/// Returns the fetched commit, `None` if the ref does not exist yet.
pub fn fetch(
    dir: &Path,
    remote: &str,
    branches: bool,
    deadline: Instant,
) -> Result<Option<String>, RemoteError> {
    fetch_with(dir, remote, branches, false, 2, deadline).map(|f| f.commit)
}

/// The size of the remote's whole ref listing as git's protocol version 0 sends it (bytes of
/// `ls-remote` output; core's `change::remote` judges it), measured on a thread of its own
/// beside a fetch, until `deadline`: the receiver gets the size, or `None` when it could not be
/// had.
pub fn measure_listing(
    dir: &Path,
    remote: &str,
    deadline: Instant,
) -> std::sync::mpsc::Receiver<Option<u64>> {
    let (dir, remote) = (dir.to_path_buf(), remote.to_string());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let args = ["-c", "protocol.version=0", "ls-remote", remote.as_str()];
        let size = match git_remote(&dir, &args, deadline) {
            Ok(Some(out)) if out.status.success() => Some(out.stdout.len() as u64),
            _ => None,
        };
        let _ = tx.send(size);
    });
    rx
}

/// What a fetch brought: the shared ref's commit and, when asked for, every machine's queue ref
/// (machine id, commit) as this repository now has them.
#[derive(Debug, Default)]
pub struct Fetched {
    pub commit: Option<String>,
    pub queues: Vec<(String, String)>,
    /// Every machine's guard marks ref (machine id, commit): `refs/rail/seen/<machine>`.
    pub marks: Vec<(String, String)>,
}

/// Fetches the shared ref, with `queues` every machine's queue ref (into `refs/rail/queues/`,
/// in the same fetch), and with `branches` the remote's branch heads for leases, speaking git's
/// protocol `version` (core's `change::remote::fetch_protocol`). A failure
/// caused by another git process of this machine (a ref lock it holds) is retried until
/// `deadline`: it says nothing about the remote, so it is never reported as an unreachable one.
pub fn fetch_with(
    dir: &Path,
    remote: &str,
    branches: bool,
    queues: bool,
    version: u8,
    deadline: Instant,
) -> Result<Fetched, RemoteError> {
    // Straight into the fetched ref: this machine's exchanges with the remote are one at a time
    // (the exchange lock), so no other Rail process updates or reads it half made. (Private
    // refs per process were how concurrent fetches were kept apart before; each cost two more
    // git processes inside the race window.)
    // Rail fetches often: no automatic gc or maintenance after each of them.
    let mut args = vec![
        "-c".to_string(),
        "gc.auto=0".into(),
        "-c".into(),
        "maintenance.auto=false".into(),
        "-c".into(),
        format!("protocol.version={version}"),
        "fetch".to_string(),
        "--quiet".into(),
        "--no-write-fetch-head".into(),
        "--no-tags".into(),
        remote.to_string(),
        format!("+{REF}:{FETCHED}"),
    ];
    if branches {
        args.push(format!("+refs/heads/*:refs/remotes/{remote}/*"));
    }
    // Every machine's guard marks, for the board (cli/src/heartbeat.rs).
    args.push(format!(
        "+{}*:{}*",
        crate::heartbeat::SHARED_REFS,
        crate::heartbeat::FETCHED_REFS
    ));
    if queues {
        args.push(format!(
            "+{}*:{}*",
            rail_core::change::queue::QUEUE_REFS,
            crate::queues::FETCHED_QUEUES
        ));
    }
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let unanswered = || RemoteError::Unreachable(no_answer(remote, "a fetch"));
    let mut out = git_remote(dir, &argv, deadline)?.ok_or_else(unanswered)?;
    // Rail's own fetches are serialised per repository (the exchange lock), but a person's
    // `git fetch` or `git gc` may hold a ref's lock for a moment.
    let mut wait_ms = 15;
    while !out.status.success()
        && local_lock_busy(&String::from_utf8_lossy(&out.stderr))
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(wait_ms));
        wait_ms = (wait_ms * 2).min(250);
        out = git_remote(dir, &argv, deadline)?.ok_or_else(unanswered)?;
    }
    let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
    if !out.status.success() {
        if stderr.contains("couldn't find remote ref") {
            // No shared state yet; but the remote is there.
            if branches {
                let _ = git_remote(dir, &["fetch", "--quiet", "--no-tags", remote], deadline);
            }
            return Ok(Fetched::default());
        }
        if local_lock_busy(&stderr) {
            return Err(RemoteError::Git(format!(
                "another git process of this machine kept a ref of {} locked: {stderr}",
                dir.display()
            )));
        }
        return Err(RemoteError::Unreachable(stderr));
    }
    let fetched = listed_refs(dir, queues)?;
    if fetched.commit.is_none() {
        return Err(RemoteError::Git(format!(
            "{FETCHED} is missing after a fetch of {remote} {REF}"
        )));
    }
    Ok(fetched)
}

/// The fetched ref and (with `queues`) every machine's queue as this repository has them from
/// its last fetch ([`refs_of`]).
pub fn listed_refs(dir: &Path, queues: bool) -> Result<Fetched, RemoteError> {
    let names = [
        FETCHED,
        crate::queues::FETCHED_QUEUES,
        crate::heartbeat::FETCHED_REFS,
    ];
    let listed = refs_of(dir, &names).map_err(RemoteError::Git)?;
    let mut fetched = Fetched::default();
    for (name, id) in listed {
        if name == FETCHED {
            fetched.commit = Some(id);
        } else if let Some(machine) = name.strip_prefix(crate::queues::FETCHED_QUEUES) {
            if queues {
                fetched.queues.push((machine.to_string(), id));
            }
        } else if let Some(machine) = name.strip_prefix(crate::heartbeat::FETCHED_REFS) {
            fetched.marks.push((machine.to_string(), id));
        }
    }
    Ok(fetched)
}

/// Reads every file of a rail commit with git's own listing (`ls-tree`) and one `cat-file`
/// process, for a caller with no object reader of its own ([`read_commit_via`]).
pub fn read_commit(dir: &Path, commit: Option<&str>) -> Result<Snapshot, RemoteError> {
    let Some(id) = commit else {
        return Ok(Snapshot {
            commit: None,
            files: BTreeMap::new(),
            foreign: Vec::new(),
        });
    };
    let mut objects = git::Objects::start(dir).map_err(RemoteError::Git)?;
    let listing = listing_by_git(dir, id)?;
    read_files(&mut objects, id, listing)
}

/// [`read_commit`] through a cat-file process a leader keeps for its rounds (`objects`): the
/// commit's tree walked in `git ls-tree -r`'s order and the rail's files read, with no process
/// of their own (a round's `ls-tree` and `cat-file` were two of the processes that bound a
/// busy machine's rounds). Where the objects hold what this walk does not follow (a name that
/// is not UTF-8, a tree not where the commit says), git's own listing answers.
pub fn read_commit_via(
    objects: &mut git::Objects,
    dir: &Path,
    commit: Option<&str>,
) -> Result<Snapshot, RemoteError> {
    let Some(id) = commit else {
        return read_commit(dir, commit);
    };
    let listing = match listing_via(objects, id).map_err(RemoteError::Git)? {
        Some(listing) => listing,
        None => listing_by_git(dir, id)?,
    };
    read_files(objects, id, listing)
}

/// Whether an entry of the shared ref's tree is one of the rail's files (a blob at a rail path);
/// every other entry is foreign, never read.
fn is_rail_file(path: &str, blob: bool) -> bool {
    blob && rail_core::formats::rail_files::rail_data_path(path).is_ok()
}

/// `git ls-tree -r` of commit `id`, as a [`Listing`].
fn listing_by_git(dir: &Path, id: &str) -> Result<Listing, RemoteError> {
    let listing = git::run(dir, &["ls-tree", "-r", "-z", id]).map_err(RemoteError::Git)?;
    let (mut entries, mut foreign) = (Vec::new(), Vec::new());
    for entry in listing.split('\0').filter(|e| !e.is_empty()) {
        let Some((meta, path)) = entry.split_once('\t') else {
            continue;
        };
        let mut meta = meta.split_whitespace();
        let kind = meta.nth(1).unwrap_or("");
        let sha = meta.next().unwrap_or("").to_string();
        if is_rail_file(path, kind == "blob") {
            entries.push((path.to_string(), sha));
        } else {
            foreign.push(path.to_string());
        }
    }
    Ok((entries, foreign))
}

/// The rail's files of a listing of commit `id`, read through `objects`: each UTF-8 and at most
/// the size Rail reads of a rail file.
fn read_files(
    objects: &mut git::Objects,
    id: &str,
    (entries, foreign): Listing,
) -> Result<Snapshot, RemoteError> {
    let limit = crate::railfile::MAX_RAIL_BYTES as usize;
    let mut files = BTreeMap::new();
    for (path, oid) in entries {
        match objects.get(&oid, limit).map_err(RemoteError::Git)? {
            git::Object::Read { kind, bytes } if kind == "blob" => {
                let text = String::from_utf8(bytes).map_err(|_| {
                    RemoteError::Git(format!("{path} in the shared rail is not UTF-8"))
                })?;
                files.insert(path, text);
            }
            git::Object::TooLarge { size } => {
                return Err(RemoteError::Git(format!(
                    "{path} in the shared rail is {size} bytes, over the {} MiB Rail reads of a rail file",
                    limit / 1024 / 1024
                )))
            }
            _ => {
                return Err(RemoteError::Git(format!(
                    "{path} of the shared rail's commit {id} is not in this repository's objects"
                )))
            }
        }
    }
    Ok(Snapshot {
        commit: Some(id.to_string()),
        files,
        foreign,
    })
}

/// The rail's files of commit `id` (path, blob id) and the other entries' paths, in `git
/// ls-tree -r`'s order; `None` where only git can tell.
type Listing = (Vec<(String, String)>, Vec<String>);

fn listing_via(objects: &mut git::Objects, id: &str) -> Result<Option<Listing>, String> {
    use rail_core::formats::gitobject;
    // Deeper than any rail, and bounded whatever a tree holds.
    const MAX_DEPTH: usize = 64;
    const MAX_TREES: usize = 10_000;
    let git::Object::Read { kind, bytes } = objects.get(id, 1 << 20)? else {
        return Ok(None);
    };
    let tree = match (kind.as_str(), bytes.strip_prefix(b"tree ")) {
        ("commit", Some(rest)) => rest.get(..40).and_then(gitobject::parse_hex),
        _ => None,
    };
    let Some(tree) = tree else {
        return Ok(None);
    };
    let (mut entries, mut foreign) = (Vec::new(), Vec::new());
    // Depth first, each tree's entries in order: ls-tree -r's order.
    let mut stack: Vec<(String, std::vec::IntoIter<gitobject::TreeEntry>)> = Vec::new();
    let mut trees = 0;
    let mut open = |oid: &gitobject::Oid| -> Result<Option<Vec<gitobject::TreeEntry>>, String> {
        trees += 1;
        if trees > MAX_TREES {
            return Ok(None);
        }
        match objects.get(&gitobject::hex(oid), 16 << 20)? {
            git::Object::Read { kind, bytes } if kind == "tree" => {
                Ok(gitobject::tree_entries(&bytes))
            }
            _ => Ok(None),
        }
    };
    let Some(root) = open(&tree)? else {
        return Ok(None);
    };
    stack.push((String::new(), root.into_iter()));
    while let Some((prefix, items)) = stack.last_mut() {
        let Some(entry) = items.next() else {
            stack.pop();
            continue;
        };
        let path = format!("{prefix}{}", entry.name);
        if entry.is_tree() {
            if stack.len() >= MAX_DEPTH {
                return Ok(None);
            }
            let Some(sub) = open(&entry.oid)? else {
                return Ok(None);
            };
            stack.push((format!("{path}/"), sub.into_iter()));
            continue;
        }
        // A gitlink (a submodule's commit) is no blob; a link's target is one, as ls-tree says.
        if is_rail_file(&path, entry.mode != 0o160000) {
            entries.push((path, gitobject::hex(&entry.oid)));
        } else {
            foreign.push(path);
        }
    }
    Ok(Some((entries, foreign)))
}

/// Makes the commit for `files` on top of `parent` (with `git fast-import`, on a private ref).
fn commit(
    dir: &Path,
    parent: Option<&str>,
    merged: Option<&str>,
    changed: &BTreeMap<String, String>,
    message: &str,
) -> Result<String, RemoteError> {
    let one = NewCommit {
        tmp: NEW,
        parent,
        merged,
        changed,
        message,
    };
    Ok(commits(dir, &[one])?.remove(0))
}

/// A commit to make: on `tmp` (a private ref, overwritten), on top of `parent`, the files in
/// `changed` written over the parent's tree (the rest of it kept).
pub struct NewCommit<'a> {
    pub tmp: &'a str,
    pub parent: Option<&'a str>,
    /// A second parent (a rewound remote's merge keeps the state this machine had seen).
    pub merged: Option<&'a str>,
    pub changed: &'a BTreeMap<String, String>,
    pub message: &'a str,
}

/// Makes each commit in one `git fast-import` process (a round's rail commit and its queue
/// commit together); returns their ids in order.
pub fn commits(dir: &Path, new: &[NewCommit<'_>]) -> Result<Vec<String>, RemoteError> {
    // Fixed refs, overwritten (`--force`): commits are made one at a time per repository (the
    // exchange lock), and deleting a private ref afterwards was one more git process.
    let now = Utc::now().timestamp();
    let mut stream = Vec::new();
    for (i, c) in new.iter().enumerate() {
        let mark = i + 1;
        let _ = writeln!(stream, "commit {}", c.tmp);
        let _ = writeln!(stream, "mark :{mark}");
        let _ = writeln!(stream, "committer Rail <rail@localhost> {now} +0000");
        let _ = writeln!(stream, "data {}", c.message.len());
        stream.extend_from_slice(c.message.as_bytes());
        stream.push(b'\n');
        if let Some(p) = c.parent {
            let _ = writeln!(stream, "from {p}");
        }
        if let Some(m) = c.merged {
            let _ = writeln!(stream, "merge {m}");
        }
        for (path, text) in c.changed {
            let _ = writeln!(stream, "M 100644 inline {path}");
            let _ = writeln!(stream, "data {}", text.len());
            stream.extend_from_slice(text.as_bytes());
            stream.push(b'\n');
        }
    }
    // The commits' ids come back on stdout: no rev-parse needed.
    for i in 0..new.len() {
        let _ = writeln!(stream, "get-mark :{}", i + 1);
    }
    let _ = writeln!(stream, "done");
    let mut child = Command::new("git")
        .args(["fast-import", "--quiet", "--done", "--force"])
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| RemoteError::Git(format!("cannot run git fast-import: {e}")))?;
    child
        .stdin
        .take()
        .ok_or(RemoteError::Git("no stdin".into()))?
        .write_all(&stream)
        .map_err(|e| RemoteError::Git(e.to_string()))?;
    let out = child
        .wait_with_output()
        .map_err(|e| RemoteError::Git(e.to_string()))?;
    if !out.status.success() {
        return Err(RemoteError::Git(format!(
            "git fast-import failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let ids: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .map(str::to_string)
        .collect();
    if ids.len() != new.len()
        || !ids
            .iter()
            .all(|id| id.len() >= 40 && id.bytes().all(|b| b.is_ascii_hexdigit()))
    {
        return Err(RemoteError::Git(format!(
            "git fast-import did not report the commits (`{}`)",
            ids.join(" ")
        )));
    }
    Ok(ids)
}

/// What became of one ref of a push.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pushed {
    Done,
    /// Someone else moved the ref first.
    Rejected,
    /// The server declined it for its own reasons (a hook, a protected ref): its reason.
    Declined(String),
}

/// One ref a push updates: `commit` to `dst`, on condition that the remote still holds
/// `expect` there when it is given.
#[derive(Debug, Clone, Copy)]
pub struct Update<'a> {
    pub commit: &'a str,
    pub dst: &'a str,
    pub expect: Option<&'a str>,
}

/// Pushes `commit` to the shared ref. `expect`: the commit the remote must still hold for the
/// push to land (a round planned on this machine's own last push, without a fetch): with it the
/// push is a compare-and-swap on that exact commit (`--force-with-lease`), so a remote reset to
/// an ancestor of it refuses the push instead of being fast-forwarded over unseen, and the round
/// fetched next finds the rewind. Without it, a plain push: git refuses anything but a
/// fast-forward of what the remote holds.
fn push(
    dir: &Path,
    remote: &str,
    commit: &str,
    expect: Option<&str>,
    deadline: Instant,
) -> Result<Pushed, RemoteError> {
    let update = Update {
        commit,
        dst: REF,
        expect,
    };
    match push_refs(dir, remote, &[update], deadline)?.remove(0) {
        Pushed::Declined(reason) => Err(RemoteError::Git(format!(
            "{remote} declined the push to {REF}, nothing was changed: {reason}"
        ))),
        other => Ok(other),
    }
}

/// Pushes several refs in one `git push` (one connection, the round trips of one push), each
/// judged on its own: a queue ref lands even when the shared ref's compare-and-swap is lost.
pub fn push_refs(
    dir: &Path,
    remote: &str,
    updates: &[Update<'_>],
    deadline: Instant,
) -> Result<Vec<Pushed>, RemoteError> {
    crate::faults::pause_before_push();
    let leases: Vec<String> = updates
        .iter()
        .filter_map(|u| {
            u.expect
                .map(|k| format!("--force-with-lease={}:{k}", u.dst))
        })
        .collect();
    let refspecs: Vec<String> = updates
        .iter()
        .map(|u| format!("{}:{}", u.commit, u.dst))
        .collect();
    let mut argv = vec!["push", "--porcelain", "--quiet"];
    argv.extend(leases.iter().map(String::as_str));
    argv.push(remote);
    argv.extend(refspecs.iter().map(String::as_str));
    let Some(out) = git_remote(dir, &argv, deadline)? else {
        // The push may have landed before the remote went quiet: not "nothing was changed".
        return Err(RemoteError::Git(format!(
            "{}; the operation may or may not have reached the remote: `rail sync` and look",
            no_answer(remote, "a push")
        )));
    };
    crate::faults::die_after_push();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
    if out.status.success() {
        return Ok(updates.iter().map(|_| Pushed::Done).collect());
    }
    // Porcelain: `<flag>\t<src>:<dst>\t<summary>` per ref; `!` is a ref the remote refused.
    let line_of = |dst: &str| {
        stdout.lines().find(|l| {
            l.split('\t')
                .nth(1)
                .and_then(|spec| spec.rsplit_once(':'))
                .is_some_and(|(_, d)| d == dst)
        })
    };
    let any_line = updates.iter().any(|u| line_of(u.dst).is_some());
    if !any_line {
        // No ref reached a verdict: the remote was not reached (or git failed before).
        let refused = stderr.contains("[rejected]")
            || stderr.contains("[remote rejected]")
            || stderr.contains("fetch first")
            || stderr.contains("cannot lock ref");
        if !refused {
            return Err(RemoteError::Unreachable(stderr));
        }
    }
    Ok(updates
        .iter()
        .map(|u| match line_of(u.dst) {
            Some(line) if line.starts_with('!') => {
                // `[remote rejected]` is the server's own verdict, usually a hook's: not a lost
                // race unless the reason is the ref's lock or its old value (a concurrent
                // update). Retrying would only hear the same no until the deadline.
                match declined(line, &stderr) {
                    Some(reason) => Pushed::Declined(reason),
                    None => Pushed::Rejected,
                }
            }
            Some(_) => Pushed::Done,
            None => Pushed::Rejected,
        })
        .collect())
}

/// The server's reason when it declined a push for its own reasons (`[remote rejected]`
/// that is not a concurrent update), with what it printed (`remote: …` lines); `None` for a
/// lost race or anything else.
fn declined(stdout: &str, stderr: &str) -> Option<String> {
    let line = stdout
        .lines()
        .chain(stderr.lines())
        .find(|l| l.contains("[remote rejected]"))?;
    let reason = line
        .split_once("[remote rejected]")
        .map(|(_, r)| r.trim().trim_start_matches('(').trim_end_matches(')'))
        .unwrap_or("")
        .to_string();
    let race = ["lock", "incorrect old value", "stale info", "fetch first"];
    // A server's ref update lost to a concurrent one says `failed to update ref` with the
    // cause on its `remote:` lines (`cannot lock ref …: is at X but expected Y`).
    if race.iter().any(|r| reason.contains(r))
        || stderr.contains("cannot lock ref")
        || stderr.contains("but expected")
    {
        return None;
    }
    let said: Vec<String> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("remote:"))
        .map(|l| {
            l.replace("\x1b[K", "")
                .trim()
                .chars()
                .map(|c| if c.is_control() { '?' } else { c })
                .collect::<String>()
        })
        .filter(|l| !l.is_empty())
        .take(20)
        .collect();
    let reason = if reason.is_empty() {
        "no reason given".to_string()
    } else {
        reason
    };
    Some(if said.is_empty() {
        reason
    } else {
        format!("{reason}; the server said: {}", said.join(" / "))
    })
}

pub fn repo_dir(ctx: &Ctx) -> PathBuf {
    ctx.repo
        .as_ref()
        .map(|r| r.worktree.clone())
        .unwrap_or_else(|| ctx.rail.root.clone())
}

/// A mutation of the shared rail. Exactly one of any number of racing machines wins a task:
/// the remote accepts only fast-forwards, so a second writer is rejected and re-plans. The
/// operation goes through this machine's queue (`exchange`): one process of the machine at a
/// time talks to the remote, for every operation queued.
pub fn mutate(
    ctx: &Ctx,
    remote: &str,
    session: &str,
    request: Request,
    extra_log: &[String],
) -> Result<Outcome, Fail> {
    submit(ctx, remote, session, Some(request), extra_log)
}

/// Queues one job for `remote` and waits for its outcome (leading the queue when it can).
fn submit(
    ctx: &Ctx,
    remote: &str,
    session: &str,
    request: Option<Request>,
    extra_log: &[String],
) -> Result<Outcome, Fail> {
    let queue = Queue::of(ctx)?;
    let rail = rail_key(ctx);
    let job = Job {
        id: exchange::new_id(),
        rail: rail.clone(),
        remote: remote.to_string(),
        session: session.to_string(),
        request,
        extra_log: extra_log.to_vec(),
        now_ms: ctx.now.timestamp_millis(),
        deadline_ms: (Utc::now() + shared_timeout()).timestamp_millis(),
        queued_ns: Utc::now().timestamp_nanos_opt().unwrap_or_default(),
    };
    let own = job.id.clone();
    exchange::submit(ctx, &queue, job, |queue| {
        crate::round::lead(ctx, remote, &rail, queue, &own)
    })
}

/// The rail a job is for, as every process of the machine names it.
fn rail_key(ctx: &Ctx) -> PathBuf {
    ctx.rail
        .root
        .canonicalize()
        .unwrap_or_else(|_| ctx.rail.root.clone())
}

/// The states this machine last saw of the shared rail: the state kept when an earlier round
/// found the remote rewound and did not finish merging it back, and the fetched ref
/// ([`refs_of`]).
pub fn seen_states(dir: &Path) -> Seen {
    let listed = refs_of(dir, &[FETCHED, BEFORE_REWIND]).unwrap_or_default();
    let mut seen = Seen::default();
    for (name, id) in listed {
        match name.as_str() {
            BEFORE_REWIND => seen.kept = Some(id),
            FETCHED => seen.fetched = Some(id),
            _ => {}
        }
    }
    seen
}

/// The refs `names` (a full name, or a folder ending in `/`) of the repository whose checkout is
/// `dir`, with their ids, as `git for-each-ref` lists them: read from the ref files, and asked
/// of git wherever they cannot be read plainly (or the checkout's `.git` is not its repository's
/// folder).
fn refs_of(dir: &Path, names: &[&str]) -> Result<Vec<(String, String)>, String> {
    let git_dir = dir.join(".git");
    let from_files = std::fs::symlink_metadata(&git_dir)
        .is_ok_and(|m| m.is_dir())
        .then(|| crate::gitobjects::refs_under(&git_dir, names))
        .flatten();
    if let Some(refs) = from_files {
        return Ok(refs);
    }
    let mut args = vec!["for-each-ref", "--format=%(refname) %(objectname)"];
    args.extend(names);
    Ok(git::run(dir, &args)?
        .lines()
        .filter_map(|l| l.split_once(' '))
        .map(|(name, id)| (name.to_string(), id.to_string()))
        .collect())
}

#[derive(Clone, Debug, Default)]
pub struct Seen {
    pub kept: Option<String>,
    pub fetched: Option<String>,
}

/// A remote found rewound, merged with the state this machine had seen.
pub struct Rewound {
    /// The seen state's commit (the merge's second parent).
    pub seen: String,
    pub files: BTreeMap<String, String>,
    pub changed: BTreeMap<String, String>,
    /// What the requester is told and the commit message says.
    pub message: String,
}

/// Whether the fetched state no longer contains what this machine saw before (`seen`): then the
/// two are merged with the rail's merge rules (core's [`snapshot::rejoin`]) from their common
/// ancestor, every claim dropped is logged with the one kept, and the seen state is kept under
/// [`BEFORE_REWIND`] until the merge is pushed.
pub fn rewind(
    ctx: &Ctx,
    dir: &Path,
    remote: &str,
    seen: &Seen,
    fetched: &Snapshot,
    reader: &mut crate::queues::Reader,
) -> Result<Option<Rewound>, RemoteError> {
    let Some(new) = fetched.commit.as_deref() else {
        return Ok(None);
    };
    // An unfinished merge-back first: the fetched ref may already be the rewound state.
    let Some(old) = seen.kept.as_ref().or(seen.fetched.as_ref()) else {
        return Ok(None);
    };
    if old == new {
        return Ok(None);
    }
    // Most often the remote only moved on a few commits: the leader's object reader walks back
    // to OLD without a process. Past that walk, git decides.
    if seen.kept.is_none() && reader.moved_on_from(dir, new, old, 64).unwrap_or(false) {
        return Ok(None);
    }
    // `git merge-base OLD NEW`: OLD itself when the remote only moved on; exit 1 when the two
    // share no history.
    let base = match Command::new("git")
        .args(["merge-base", old, new])
        .current_dir(dir)
        .output()
    {
        Ok(out) if out.status.success() => {
            Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
        }
        Ok(out) if out.status.code() == Some(1) && out.stderr.is_empty() => None,
        // The seen commit is gone (a person deleted objects): nothing to merge back.
        Ok(_) => return Ok(None),
        Err(e) => return Err(RemoteError::Git(format!("cannot run git merge-base: {e}"))),
    };
    if base.as_deref() == Some(old.as_str()) {
        // The remote only moved on (and holds any state kept from an earlier rewind).
        if seen.kept.is_some() {
            let _ = git::run(dir, &["update-ref", "-d", BEFORE_REWIND]);
        }
        return Ok(None);
    }
    let _ = git::run(dir, &["update-ref", BEFORE_REWIND, old]);
    let objects = reader.objects(dir).map_err(RemoteError::Git)?;
    let seen_files = read_commit_via(objects, dir, Some(old))?.files;
    let base_files = match &base {
        Some(b) => read_commit_via(objects, dir, Some(b))?.files,
        None => BTreeMap::new(),
    };
    let config = crate::context::rail_config(ctx);
    let facts = shared_facts(ctx, remote, &snapshot::texts(&fetched.files));
    let holding = rail_core::change::merge::Holding {
        facts: &facts,
        lease: config.lease,
        expiring: config.expiring,
    };
    let mut r = snapshot::rejoin(&base_files, &seen_files, &fetched.files, Some(&holding));
    let short = |c: &str| c[..c.len().min(12)].to_string();
    let mut message = format!(
        "the shared rail on {remote} was rewound (force-pushed or restored): it no longer holds          the state this machine last saw ({} is not in {}); merged that state back with the          rail's merge rules",
        short(old),
        short(new)
    );
    if !r.losers.is_empty() {
        let dropped: Vec<String> = r
            .losers
            .iter()
            .map(|l| {
                format!(
                    "{}'s claim of {} (kept {}'s)",
                    l.lost_session, l.task, l.kept_session
                )
            })
            .collect();
        message.push_str(&format!("; dropped {}, logged", dropped.join(", ")));
        let lines: Vec<String> = r
            .losers
            .iter()
            .map(|l| l.log_line(ctx.now, "rewind"))
            .collect();
        let log = snapshot::log_with(r.files.get(LOG_FILE).map_or("", String::as_str), &lines);
        r.files.insert(LOG_FILE.to_string(), log.clone());
        r.changed.insert(LOG_FILE.to_string(), log);
    }
    Ok(Some(Rewound {
        seen: old.clone(),
        files: r.files,
        changed: r.changed,
        message,
    }))
}

fn provisional_path(ctx: &Ctx) -> Option<PathBuf> {
    crate::gitguard::git_dir_of(&ctx.rail.root).map(|d| d.join("rail").join(PROVISIONAL))
}

/// The provisional claims waiting to be offered, one claims.md line each.
pub fn read_provisional(ctx: &Ctx) -> Vec<String> {
    provisional_path(ctx)
        .and_then(|p| crate::railfile::read_text(&p).ok().flatten())
        .map(|t| {
            t.lines()
                .filter(|l| !l.trim().is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// Forgets the provisional claims `offered` (now on the shared rail, or reported lost); lines
/// recorded meanwhile stay.
fn clear_provisional(ctx: &Ctx, offered: &[String]) {
    if offered.is_empty() {
        return;
    }
    let Some(path) = provisional_path(ctx) else {
        return;
    };
    let left: Vec<String> = read_provisional(ctx)
        .into_iter()
        .filter(|l| !offered.contains(l))
        .collect();
    let _ = if left.is_empty() {
        std::fs::remove_file(&path)
    } else {
        std::fs::write(
            &path,
            left.iter().map(|l| format!("{l}\n")).collect::<String>(),
        )
    };
}

/// What offering the provisional claims gives: the log lines, the messages, and the notices for
/// the sessions that lost theirs (left for them once the round is on the remote).
#[derive(Default)]
pub struct OfferedClaims {
    pub log: Vec<String>,
    pub said: Vec<String>,
    lost: Vec<rail_core::formats::notice::Notice>,
}

/// Offers the provisional claims to the shared state (core's [`snapshot::offer`]): the new
/// claims.md if it changed, and the log lines, messages and notices for each claim, a lost one
/// naming its holder.
pub fn offer_provisional(
    ctx: &Ctx,
    remote: &str,
    files: &BTreeMap<String, String>,
    facts: &rail_core::model::input::Facts,
    lines: &[String],
) -> (Option<String>, OfferedClaims) {
    let config = crate::context::rail_config(ctx);
    let holding = rail_core::change::merge::Holding {
        facts,
        lease: config.lease,
        expiring: config.expiring,
    };
    let (claims, offered) = snapshot::offer(files, lines, &holding);
    let (mut log, mut said, mut lost) = (Vec::new(), Vec::new(), Vec::new());
    for o in offered {
        match o {
            snapshot::Offered::Held { task, session } => said.push(format!(
                "{session}'s provisional claim of {task} (made with RAIL_LOCAL=1) is on the shared rail on {remote} now"
            )),
            snapshot::Offered::Lost {
                task,
                session,
                holder,
                line,
            } => {
                said.push(format!(
                    "{session}'s provisional claim of {task} (made with RAIL_LOCAL=1) is LOST: {holder} holds {task} on the shared rail on {remote}; {session} must stop work on it"
                ));
                lost.push(rail_core::formats::notice::Notice {
                    session: session.clone(),
                    task: task.clone(),
                    holder: holder.clone(),
                    why: rail_core::formats::notice::LossCause::Provisional,
                    at: ctx.now,
                });
                log.push(
                    LogEntry::new(ctx.now, Event::Other("lost".into()), Some(&task), Some(&session))
                        .with("to", holder)
                        .with("why", "claimed while not on the shared rail")
                        .with("line", line)
                        .render(),
                );
            }
            snapshot::Offered::Unreadable { line } => said.push(format!(
                "a provisional claim record is not a claim line and was not offered: {line}"
            )),
        }
    }
    (claims, OfferedClaims { log, said, lost })
}

/// The provisional claims are settled on the remote: they leave the record, and a session that
/// lost one finds the notice at its next hook call.
pub fn settle_provisional(ctx: &Ctx, provisional: &[String], offered: &OfferedClaims) {
    clear_provisional(ctx, provisional);
    if let Some(repo) = &ctx.repo {
        for lost in &offered.lost {
            crate::notice::post(repo, lost, true);
        }
    }
}

/// After a claim made with `RAIL_LOCAL=1` in a rail configured to share through a remote:
/// records its claims.md line to be offered to the shared rail at the next round, and its log
/// lines in the outbox (so the shared log gets them). Returns what the claimer is told.
pub fn record_provisional(
    ctx: &Ctx,
    session: &str,
    task: &str,
    log_lines: &[String],
) -> Option<String> {
    let remote = configured_remote(ctx)?;
    // Called under the rail lock this claim was written with.
    let texts = ctx.read(true).ok()?;
    let claims = texts.claims.as_ref()?;
    let doc = rail_core::formats::claims_md::parse(&claims.text);
    let line = doc.lines.iter().find_map(|l| match &l.kind {
        rail_core::formats::claims_md::LineKind::Claim(c)
            if c.task == task && c.session == session =>
        {
            Some(l.content.slice(&claims.text).to_string())
        }
        _ => None,
    })?;
    let path = provisional_path(ctx)?;
    let mut old = read_provisional(ctx);
    if !old.contains(&line) {
        old.push(line);
    }
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let kept = std::fs::write(
        &path,
        old.iter().map(|l| format!("{l}\n")).collect::<String>(),
    );
    let _ = append_outbox(ctx, log_lines);
    Some(match kept {
        Ok(()) => format!(
            "provisional: {task} is claimed on this machine only (RAIL_LOCAL=1), not on the shared rail on {remote}; the next shared operation (`rail sync`) offers it there and says whether another session got {task} first"
        ),
        Err(e) => format!(
            "provisional: {task} is claimed on this machine only (RAIL_LOCAL=1), and recording it for the shared rail on {remote} failed ({}: {e}): it will not be offered there",
            path.display()
        ),
    })
}

/// A plan's outcome: core's message with the hint worded as a command line, and the JSON.
pub fn planned(plan: &Plan, changed: bool) -> Outcome {
    Outcome {
        code: 0,
        changed,
        text: crate::hint::say(&plan.message, plan.hint.as_ref()),
        json: Some(serde_json::json!({ "ok": true, "plan": plan })),
        warnings: Vec::new(),
    }
}

/// How long after this machine's own accepted push a round may plan on it without fetching
/// (`RAIL_SHARED_TRUST_MS`, 0: always fetch first). A wrong guess costs one rejected push.
pub fn shared_trust() -> Duration {
    std::env::var("RAIL_SHARED_TRUST_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map(Duration::from_millis)
        .unwrap_or(Duration::from_secs(30))
}

pub fn shared_timeout() -> Duration {
    std::env::var("RAIL_SHARED_TIMEOUT_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map(Duration::from_millis)
        .unwrap_or(Duration::from_secs(60))
}

/// Facts for the shared rail: leases run on the branches as pushed to the remote (remote-
/// tracking refs, commits not on the remote's main branch), together with local branches.
pub fn shared_facts(ctx: &Ctx, remote: &str, texts: &RailTexts) -> rail_core::model::input::Facts {
    let mut facts = ctx.facts(texts, crate::context::Commits::IfNeeded);
    // As for local branches: commit times only when a lease could depend on them (a claim
    // that is not live without them). Two git processes fewer in the race window otherwise.
    let need = rail_core::model::Rail::load(texts)
        .evaluate(&facts)
        .claims
        .iter()
        .any(|c| c.state() != rail_core::model::lease::LeaseState::Live);
    if !need {
        return facts;
    }
    let dir = repo_dir(ctx);
    let base = git::run(
        &dir,
        &[
            "symbolic-ref",
            "--short",
            &format!("refs/remotes/{remote}/HEAD"),
        ],
    )
    .ok()
    .map(|s| s.trim().to_string())
    .or_else(|| Some(format!("{remote}/main")));
    for (branch, time) in git::remote_commit_times(&dir, remote, base.as_deref()) {
        let entry = facts.commits.entry(branch).or_insert(time);
        if *entry < time {
            *entry = time;
        }
    }
    facts
}

fn stamp_path(ctx: &Ctx) -> Option<PathBuf> {
    ctx.repo.as_ref().map(|r| r.common_dir.join(SYNCED_STAMP))
}

pub fn mark_synced(ctx: &Ctx) {
    if let Some(p) = stamp_path(ctx) {
        let _ = std::fs::write(p, Utc::now().to_rfc3339());
    }
}

/// When the local mirror was last synced with the remote.
pub fn last_synced(ctx: &Ctx) -> Option<DateTime<Utc>> {
    let text = std::fs::read_to_string(stamp_path(ctx)?).ok()?;
    DateTime::parse_from_rfc3339(text.trim())
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// Where this machine keeps the log lines it recorded locally in a shared rail (refusals,
/// bypasses, gate verdicts, recovered locks) until the shared log has them: in the git dir,
/// which neither mirroring nor any git command writes.
fn outbox_path(ctx: &Ctx) -> Option<PathBuf> {
    crate::gitguard::git_dir_of(&ctx.rail.root).map(|d| d.join("rail").join(OUTBOX))
}

pub fn read_outbox(ctx: &Ctx) -> String {
    outbox_path(ctx)
        .and_then(|p| std::fs::read_to_string(p).ok())
        .unwrap_or_default()
}

/// Records log lines made on this machine (under the rail lock `lock`, on the texts read under
/// it): appended to claims.log as always, and in a shared rail also to the outbox first, so the
/// next exchange with the remote delivers them to the shared log and no mirror erases them
/// meanwhile.
pub fn record_local(
    ctx: &Ctx,
    lock: &RailLock,
    texts: &RailTexts,
    lines: &[String],
) -> Result<(), String> {
    if lines.is_empty() {
        return Ok(());
    }
    if remote_of(ctx).is_some() {
        append_outbox(ctx, lines)?;
    }
    ctx.rail.apply(lock, texts, &[], lines)
}

/// Appends to the outbox (under the rail lock, like its pruning in `mirror`).
fn append_outbox(ctx: &Ctx, lines: &[String]) -> Result<(), String> {
    let path = outbox_path(ctx).ok_or("a shared rail must lie in a git work tree")?;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    let mut text = String::new();
    // A line cut short by a crash must not swallow the next one.
    if let Ok(old) = std::fs::read(&path) {
        if !old.is_empty() && !old.ends_with(b"\n") {
            text.push('\n');
        }
    }
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Writes the shared state into the main checkout (under the local lock, claims.md in place),
/// as core plans it: local rail files the shared state does not have are left alone, files of
/// the shared tree that are not the rail's are never written (a warning names them), and the
/// log lines of this machine's outbox that the shared log lacks stay in claims.log after the
/// shared ones. Then the outbox keeps only those: the shared log has the rest.
pub fn mirror(ctx: &Ctx, snapshot: &Snapshot) -> Result<(), Fail> {
    let session = ctx.explicit_session().unwrap_or("sync").to_string();
    let lock = ctx.lock(&session)?;
    // What taking the lock cleaned up is recorded like any local line: it reaches the shared
    // log with the next exchange.
    let mut notes: Vec<String> = lock
        .broken
        .iter()
        .map(|b| {
            errln!(
                "rail: recovered a stale lock held by {}: {}",
                b.holder,
                b.reason
            );
            LogEntry::new(ctx.now, Event::LockBroken, None, Some(&session))
                .with("holder", b.holder.clone())
                .with("reason", b.reason.clone())
                .render()
        })
        .collect();
    let recovered = ctx
        .rail
        .recover(&lock)
        .map_err(|e| Fail::env(format!("recovering an interrupted write: {e}")))?;
    for note in lock.recovered.iter().cloned().chain(recovered) {
        errln!("rail: {note}");
        notes.push(
            LogEntry::new(ctx.now, Event::Recovered, None, Some(&session))
                .with("note", note)
                .render(),
        );
    }
    if !notes.is_empty() {
        append_outbox(ctx, &notes).map_err(Fail::env)?;
    }
    let local = ctx.read(true)?;
    let outbox = read_outbox(ctx);
    // A claim this copy held that the shared state lost for its session (a rewind merge dropped
    // it, another machine's session took it): said by whichever command mirrors it first, and
    // left for that session's next hook call where its hook runs, besides the log line.
    let claims_here = local.claims.as_ref().map(|c| c.text.as_str());
    for lost in snapshot::lost_in_mirror(claims_here, &snapshot.files) {
        errln!(
            "{}",
            rail_core::formats::notice::message(std::slice::from_ref(&lost))
        );
        if let Some(repo) = &ctx.repo {
            crate::notice::post(repo, &lost, false);
        }
    }
    let plan = snapshot::mirror(&snapshot.files, &local, &outbox);
    for foreign in &plan.ignored {
        errln!("rail: the shared rail has {foreign}; not written here");
    }
    if let Some(first) = snapshot.foreign.first() {
        // One line, however many: 3,000 stray files once printed 3,000 lines per operation.
        errln!(
            "rail: the shared rail has {} entries that are not the rail's (first: {first}); ignored",
            snapshot.foreign.len()
        );
    }
    ctx.rail
        .apply(&lock, &local, &plan.writes, &[])
        .map_err(Fail::env)?;
    // Lines the shared log now has leave the outbox (appends wait for the rail lock we hold).
    let shared_log = snapshot
        .files
        .get(LOG_FILE)
        .map(String::as_str)
        .unwrap_or("");
    let left = snapshot::log_with("", &snapshot::undelivered(&outbox, shared_log));
    if left != outbox {
        if let Some(path) = outbox_path(ctx) {
            let tmp = path.with_extension(format!("{}.tmp", std::process::id()));
            std::fs::write(&tmp, &left)
                .and_then(|()| std::fs::rename(&tmp, &path))
                .map_err(|e| Fail::env(format!("{}: {e}", path.display())))?;
        }
    }
    Ok(())
}

/// The log lines this machine recorded that the shared log does not have yet (for `rail log`:
/// normally the mirror already shows them in claims.log).
pub fn undelivered_lines(ctx: &Ctx, log: &str) -> Vec<String> {
    snapshot::undelivered(&read_outbox(ctx), log)
}

/// `rail sync`: deliver this machine's recorded log lines, fetch the shared rail (and the
/// remote's branches) and mirror it locally. Through the queue like any exchange: a sync
/// waiting behind a leader is served by the leader's fetch.
pub fn sync(ctx: &Ctx, remote: &str) -> Result<Outcome, Fail> {
    let session = ctx.explicit_session().unwrap_or("sync").to_string();
    submit(ctx, remote, &session, None, &[])
}

/// Makes a repository share its rail through `remote`: records it, and publishes the local
/// rail as the first shared state if the remote has none.
pub fn init_remote(ctx: &Ctx, remote: &str) -> Result<Vec<String>, Fail> {
    let dir = repo_dir(ctx);
    git::run(&dir, &["remote", "get-url", remote]).map_err(|_| {
        Fail::usage(format!(
            "there is no git remote named `{remote}` (see `git remote -v`)"
        ))
    })?;
    let mut done = Vec::new();
    if git::config_get(&dir, "rail.remote").as_deref() != Some(remote) {
        git::config_set(&dir, "rail.remote", remote).map_err(Fail::env)?;
        done.push(format!("git config rail.remote {remote}"));
    }
    {
        // This machine's exchanges with the remote are one at a time, this one too.
        let deadline = Instant::now() + shared_timeout();
        let _held = Queue::of(ctx)?.hold(ctx, "init", deadline)?;
        let fetched = fetch(&dir, remote, false, deadline).map_err(RemoteError::fail)?;
        if fetched.is_none() {
            let local = ctx.read(false)?;
            let mut files = BTreeMap::new();
            if let Some(c) = &local.claims {
                files.insert(CLAIMS_MD.to_string(), c.text.clone());
            }
            if let Some(l) = &local.log {
                files.insert(LOG_FILE.to_string(), l.text.clone());
            }
            for f in &local.claim_files {
                files.insert(f.path.clone(), f.text.clone());
            }
            let new = commit(&dir, None, None, &files, "rail: share this rail")
                .map_err(RemoteError::fail)?;
            match push(&dir, remote, &new, None, deadline).map_err(RemoteError::fail)? {
                Pushed::Done => done.push(format!("published the rail to {remote} {REF}")),
                // `push` turns a declined push into its error.
                Pushed::Rejected | Pushed::Declined(_) => {
                    done.push(format!("{remote} already has a shared rail"))
                }
            }
        }
    }
    sync(ctx, remote)?;
    done.push(format!(
        "mirrored the shared rail into {}",
        ctx.rail.root.display()
    ));
    Ok(done)
}

/// For reads: the shared rail's age (core's sentence), and a refresh first with `--fetch`.
pub fn before_read(ctx: &Ctx, remote: &str, fetch_first: bool) -> Result<Option<String>, Fail> {
    let mut fetch_error = None;
    if fetch_first {
        match sync(ctx, remote) {
            Ok(_) => {}
            Err(f) if f.code == fail::ENVIRONMENT => {
                let why = f.message.strip_prefix(UNREACHABLE).unwrap_or(&f.message);
                fetch_error = Some(why.to_string());
            }
            Err(f) => return Err(f),
        }
    }
    let note = rail_core::model::freshness::describe(&FreshnessFacts {
        remote: remote.to_string(),
        fetched_at: last_synced(ctx),
        now: Utc::now(),
        fetch_error,
    });
    Ok(Some(if fetch_first || note.stale {
        note.text
    } else {
        format!("{} (`--fetch` to refresh)", note.text)
    }))
}

#[cfg(test)]
mod tests {
    use super::{after_lost_rounds, declined, local_lock_busy, no_answer};
    use crate::fail::Fail;

    #[test]
    fn a_job_starved_by_a_busy_rail_says_so_not_only_that_the_remote_was_slow() {
        let cut_off = || Fail::env(no_answer("origin", "a fetch"));
        let told = after_lost_rounds(36, cut_off()).message;
        assert!(
            told.starts_with("36 rounds lost to other machines' pushes (the shared rail is busy), then: origin did not answer a fetch"),
            "{told}"
        );
        assert_eq!(
            after_lost_rounds(1, cut_off()).message.split(' ').nth(1),
            Some("round")
        );
        // A remote that never answered, with no round lost, is told as before.
        assert_eq!(after_lost_rounds(0, cut_off()).message, cut_off().message);
    }

    #[test]
    fn a_hook_s_no_is_told_from_a_lost_race() {
        let hook = declined(
            "To x\n!\tHEAD:refs/rail/claims\t[remote rejected] (pre-receive hook declined)\nDone\n",
            "remote: frozen, ask ops        \x1b[K\nerror: failed to push some refs to 'x'",
        );
        assert_eq!(
            hook.as_deref(),
            Some("pre-receive hook declined; the server said: frozen, ask ops")
        );
        for race in [
            "!\tHEAD:refs/rail/claims\t[remote rejected] (failed to lock)",
            "!\tHEAD:refs/rail/claims\t[remote rejected] (cannot lock ref 'refs/rail/claims')",
            "!\tHEAD:refs/rail/claims\t[rejected] (fetch first)",
        ] {
            assert_eq!(declined(race, ""), None, "{race}");
        }
        // Seen with three machines racing on a path remote.
        assert_eq!(
            declined(
                "!\tHEAD:refs/rail/claims\t[remote rejected] (failed to update ref)",
                "remote: error: cannot lock ref 'refs/rail/claims': is at f4d6 but expected b991",
            ),
            None
        );
    }

    #[test]
    fn a_busy_local_lock_is_told_from_an_unreachable_remote() {
        assert!(local_lock_busy(
            "error: cannot lock ref 'refs/remotes/origin/main': is at 1f2e but expected 9a8b"
        ));
        assert!(local_lock_busy(
            "fatal: Unable to create '/r/.git/refs/rail/fetched.lock': File exists.\n\nAnother git process seems to be running"
        ));
        assert!(!local_lock_busy(
            "fatal: '/gone' does not appear to be a git repository\nfatal: Could not read from remote repository."
        ));
        assert!(local_lock_busy(
            "fatal: bad object refs/rail/tmp/new-9567-1796094638539106840\nerror: /tmp/.tmp4eNZwH/rail.git did not send all necessary objects"
        ));
        assert!(!local_lock_busy(
            "fatal: bad object refs/heads/main\nerror: /r.git did not send all necessary objects"
        ));
        assert!(!local_lock_busy(
            "fatal: unable to connect to 127.0.0.1:9418: Connection refused"
        ));
    }
}

// They run real git: not under Wine, where the Windows build's unit tests run without it.
#[cfg(all(test, unix))]
mod object_tests {
    use super::{listing_via, read_commit, read_commit_via};
    use crate::git::testing::{git, write_files};
    use crate::git::Objects;

    /// A rail commit read through the leader's object reader is what git's ls-tree and
    /// cat-file read: the rail's files, and every other entry (a stray file, a nested folder, a
    /// link, a submodule) in ls-tree's order, also where folder and file names sort across
    /// each other.
    #[test]
    fn a_rail_commit_reads_as_ls_tree_and_cat_file_read_it() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        git(d, &["init", "-q"]);
        write_files(
            d,
            &[
                ("claims.md", "t1 | s1 | 2026-12-05T10:00Z\n"),
                ("claims.log", "line\n"),
                ("claims/s1.yaml", "task: t1\n"),
                ("claims/s2.yaml", "task: t2\n"),
                ("claims.md.txt", "a stray file\n"),
                ("claims-x/y.yaml", "not the rail's\n"),
                ("notes/deep/a.txt", "x\n"),
            ],
        );
        std::os::unix::fs::symlink("claims.md", d.join("link")).unwrap();
        git(d, &["add", "-A"]);
        git(d, &["commit", "-q", "-m", "rail"]);
        // A submodule's entry (a gitlink), as a merged branch can bring one.
        let head = git(d, &["rev-parse", "HEAD"]).trim().to_string();
        git(
            d,
            &[
                "update-index",
                "--add",
                "--cacheinfo",
                &format!("160000,{head},vendor/sub"),
            ],
        );
        git(d, &["commit", "-q", "-m", "gitlink"]);
        let commit = git(d, &["rev-parse", "HEAD"]).trim().to_string();
        let by_git = read_commit(d, Some(&commit)).unwrap();
        let mut objects = Objects::start(d).unwrap();
        // Read by the objects themselves, not by the fallback to git.
        let (entries, foreign) = listing_via(&mut objects, &commit).unwrap().unwrap();
        assert_eq!((entries.len(), &foreign), (4, &by_git.foreign));
        let by_objects = read_commit_via(&mut objects, d, Some(&commit)).unwrap();
        assert_eq!(by_objects.files, by_git.files);
        assert_eq!(by_objects.foreign, by_git.foreign);
        assert_eq!(by_objects.files.len(), 4, "{:?}", by_objects.files.keys());
        assert!(by_objects.foreign.contains(&"vendor/sub".to_string()));
        // No commit: an empty rail, as before.
        assert!(read_commit_via(&mut objects, d, None)
            .unwrap()
            .files
            .is_empty());
    }
}
