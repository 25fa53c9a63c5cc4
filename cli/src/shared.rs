//! One rail across machines, on a git remote (docs/shared-rail.md).
//!
//! The rail's state lives on the remote at `refs/rail/claims`: a small history of commits whose
//! tree holds claims.md, claims/*.yaml and claims.log. A push that is not a fast-forward is
//! rejected by every git server, which is an atomic compare-and-swap; Rail needs nothing else.
//!
//! A mutation: fetch the ref, let core plan on that state, commit the result on top (one commit
//! per operation, made with `git fast-import` on a private temporary ref), push without force.
//! Rejected: someone else won; fetch, re-plan (now maybe a refusal naming the holder), retry
//! with bounded, jittered backoff. Unreachable: exit 3 and change nothing. After a success the
//! main checkout's files mirror the new state.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use rail_core::freshness::FreshnessFacts;
use rail_core::input::RailTexts;
use rail_core::model::{CLAIMS_MD, CONFIG_FILE, LOG_FILE};
use rail_core::ops::{self, Plan, Request};
use rail_core::snapshot;

use crate::context::Ctx;
use crate::fail::{self, Fail};
use crate::git;

pub const REF: &str = "refs/rail/claims";
/// Where the last fetched state is kept locally, and when it was fetched.
const FETCHED: &str = "refs/rail/fetched";
const SYNCED_STAMP: &str = "rail-synced";

/// The remote this rail is shared through, if any: `git config rail.remote`, else rail.yaml
/// `remote:`.
pub fn remote_of(ctx: &Ctx) -> Option<String> {
    if std::env::var("RAIL_LOCAL").is_ok_and(|v| v == "1") {
        return None;
    }
    let dir = &ctx.rail.root;
    git::config_get(dir, "rail.remote").or_else(|| {
        crate::railfile::read_text(&dir.join(CONFIG_FILE))
            .ok()
            .flatten()
            .and_then(|t| rail_core::config::parse(&t).0.remote)
    })
}

/// A snapshot of the shared rail: the commit (None before the first operation) and its files.
#[derive(Debug)]
pub struct Snapshot {
    pub commit: Option<String>,
    pub files: BTreeMap<String, String>,
}

impl Snapshot {
    /// What core plans on (core decides which of the tree's files count).
    pub fn texts(&self) -> RailTexts {
        snapshot::texts(&self.files)
    }
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
    fn fail(self) -> Fail {
        match self {
            RemoteError::Unreachable(m) => Fail::env(format!("{UNREACHABLE}{m}")),
            RemoteError::Git(m) => Fail::env(m),
        }
    }
}

fn git_out(dir: &Path, args: &[&str]) -> Result<std::process::Output, RemoteError> {
    Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .map_err(|e| RemoteError::Git(format!("cannot run git: {e}")))
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

fn unique() -> String {
    format!(
        "{}-{}",
        std::process::id(),
        Utc::now().timestamp_nanos_opt().unwrap_or_default()
    )
}

/// Fetches the shared ref (and, with `branches`, the remote's branch heads for leases).
/// Returns the fetched commit, `None` if the ref does not exist yet.
pub fn fetch(dir: &Path, remote: &str, branches: bool) -> Result<Option<String>, RemoteError> {
    // A private ref per process: concurrent fetches on one machine must not fight over one ref.
    let tmp = format!("refs/rail/tmp/fetch-{}", unique());
    // Rail fetches often: no automatic gc or maintenance after each of them.
    let mut args = vec![
        "-c".to_string(),
        "gc.auto=0".into(),
        "-c".into(),
        "maintenance.auto=false".into(),
        "fetch".to_string(),
        "--quiet".into(),
        "--no-write-fetch-head".into(),
        "--no-tags".into(),
        remote.to_string(),
        format!("+{REF}:{tmp}"),
    ];
    if branches {
        args.push(format!("+refs/heads/*:refs/remotes/{remote}/*"));
    }
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut out = git_out(dir, &argv)?;
    // Processes of one machine fetch into the same repository: one may find a ref's lock taken
    // by another for a moment. That is no sign of an unreachable remote: try again, briefly.
    for wait_ms in [15, 40, 100, 250] {
        if out.status.success() || !local_lock_busy(&String::from_utf8_lossy(&out.stderr)) {
            break;
        }
        std::thread::sleep(Duration::from_millis(wait_ms));
        out = git_out(dir, &argv)?;
    }
    let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
    if !out.status.success() {
        if stderr.contains("couldn't find remote ref") {
            // No shared state yet; but the remote is there.
            if branches {
                let _ = git_out(dir, &["fetch", "--quiet", "--no-tags", remote]);
            }
            return Ok(None);
        }
        return Err(RemoteError::Unreachable(stderr));
    }
    let commit = git::run(dir, &["rev-parse", "--verify", "--quiet", &tmp])
        .map(|s| s.trim().to_string())
        .map_err(RemoteError::Git)?;
    // Remember the newest state we have seen (best effort: concurrent updates race benignly).
    let _ = git::run(dir, &["update-ref", FETCHED, &commit]);
    let _ = git::run(dir, &["update-ref", "-d", &tmp]);
    Ok(Some(commit))
}

/// Reads every file of a rail commit, in two git processes.
pub fn read_commit(dir: &Path, commit: Option<&str>) -> Result<Snapshot, RemoteError> {
    let Some(commit) = commit else {
        return Ok(Snapshot {
            commit: None,
            files: BTreeMap::new(),
        });
    };
    let listing = git::run(dir, &["ls-tree", "-r", "-z", commit]).map_err(RemoteError::Git)?;
    let mut entries: Vec<(String, String)> = Vec::new();
    for entry in listing.split('\0').filter(|e| !e.is_empty()) {
        let Some((meta, path)) = entry.split_once('\t') else {
            continue;
        };
        let sha = meta.split_whitespace().nth(2).unwrap_or("").to_string();
        entries.push((path.to_string(), sha));
    }
    let mut child = Command::new("git")
        .args(["cat-file", "--batch"])
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| RemoteError::Git(format!("cannot run git cat-file: {e}")))?;
    let mut stdin = child
        .stdin
        .take()
        .ok_or(RemoteError::Git("no stdin".into()))?;
    let request: String = entries.iter().map(|(_, sha)| format!("{sha}\n")).collect();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(request.as_bytes());
    });
    let mut out = Vec::new();
    child
        .stdout
        .take()
        .ok_or(RemoteError::Git("no stdout".into()))?
        .read_to_end(&mut out)
        .map_err(|e| RemoteError::Git(e.to_string()))?;
    let _ = writer.join();
    let _ = child.wait();
    let mut files = BTreeMap::new();
    let mut pos = 0;
    for (path, _) in &entries {
        let nl = out[pos..]
            .iter()
            .position(|b| *b == b'\n')
            .ok_or(RemoteError::Git("truncated cat-file output".into()))?;
        let header = String::from_utf8_lossy(&out[pos..pos + nl]).to_string();
        let size: usize = header
            .split_whitespace()
            .nth(2)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| RemoteError::Git(format!("bad cat-file header `{header}`")))?;
        let start = pos + nl + 1;
        let body = out
            .get(start..start + size)
            .ok_or(RemoteError::Git("truncated blob".into()))?;
        files.insert(
            path.clone(),
            String::from_utf8(body.to_vec())
                .map_err(|_| RemoteError::Git(format!("{path} in the shared rail is not UTF-8")))?,
        );
        pos = start + size + 1;
    }
    Ok(Snapshot {
        commit: Some(commit.to_string()),
        files,
    })
}

/// Makes the commit for `files` on top of `parent` (with `git fast-import`, on a private ref).
fn commit(
    dir: &Path,
    parent: Option<&str>,
    changed: &BTreeMap<String, String>,
    message: &str,
) -> Result<String, RemoteError> {
    let tmp = format!("refs/rail/tmp/new-{}", unique());
    let now = Utc::now().timestamp();
    let mut stream = Vec::new();
    let _ = writeln!(stream, "commit {tmp}");
    let _ = writeln!(stream, "mark :1");
    let _ = writeln!(stream, "committer Rail <rail@localhost> {now} +0000");
    let _ = writeln!(stream, "data {}", message.len());
    stream.extend_from_slice(message.as_bytes());
    stream.push(b'\n');
    if let Some(p) = parent {
        let _ = writeln!(stream, "from {p}");
    }
    for (path, text) in changed {
        let _ = writeln!(stream, "M 100644 inline {path}");
        let _ = writeln!(stream, "data {}", text.len());
        stream.extend_from_slice(text.as_bytes());
        stream.push(b'\n');
    }
    // The commit's id comes back on stdout: no rev-parse needed.
    let _ = writeln!(stream, "get-mark :1");
    let _ = writeln!(stream, "done");
    let mut child = Command::new("git")
        .args(["fast-import", "--quiet", "--done"])
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
    let sha = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if sha.len() < 40 || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(RemoteError::Git(format!(
            "git fast-import did not report the commit (`{sha}`)"
        )));
    }
    let _ = git::run(dir, &["update-ref", "-d", &tmp]);
    Ok(sha)
}

enum Pushed {
    Done,
    /// Someone else moved the ref first.
    Rejected,
}

fn push(dir: &Path, remote: &str, commit: &str) -> Result<Pushed, RemoteError> {
    if let Some(ms) = std::env::var("RAIL_TEST_BEFORE_PUSH_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        std::thread::sleep(Duration::from_millis(ms));
    }
    let refspec = format!("{commit}:{REF}");
    let out = git_out(dir, &["push", "--porcelain", "--quiet", remote, &refspec])?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
    if out.status.success() {
        return Ok(Pushed::Done);
    }
    // `!` lines are refs the remote refused: not a fast-forward, or a concurrent update held
    // the ref's lock. Either way another writer got there first.
    let refused = stdout.lines().any(|l| l.starts_with('!'))
        || stderr.contains("[rejected]")
        || stderr.contains("[remote rejected]")
        || stderr.contains("fetch first")
        || stderr.contains("cannot lock ref");
    if refused {
        Ok(Pushed::Rejected)
    } else {
        Err(RemoteError::Unreachable(stderr))
    }
}

/// Applies a plan's edits to a snapshot: the changed files' new contents (log line appended).
fn apply(
    snapshot: &Snapshot,
    plan: &Plan,
    extra_log: &[String],
) -> Result<BTreeMap<String, String>, Fail> {
    snapshot::apply_plan(&snapshot.files, plan, extra_log)
        .map_err(|e| Fail::env(format!("internal error applying a plan's edits: {e}")))
}

fn repo_dir(ctx: &Ctx) -> PathBuf {
    ctx.repo
        .as_ref()
        .map(|r| r.worktree.clone())
        .unwrap_or_else(|| ctx.rail.root.clone())
}

/// A mutation of the shared rail. Exactly one of any number of racing machines wins a task:
/// the remote accepts only fast-forwards, so a second writer is rejected and re-plans.
pub fn mutate(
    ctx: &Ctx,
    remote: &str,
    session: &str,
    request: Request,
    extra_log: &[String],
) -> Result<Plan, Fail> {
    let dir = repo_dir(ctx);
    let deadline = Instant::now() + shared_timeout();
    let mut attempt = 0u32;
    let mut rng =
        (std::process::id() as u64) ^ (Utc::now().timestamp_subsec_nanos() as u64) << 16 | 1;
    loop {
        attempt += 1;
        let fetched = fetch(&dir, remote, matches!(request, Request::Take { .. }))
            .map_err(RemoteError::fail)?;
        let snapshot = read_commit(&dir, fetched.as_deref()).map_err(RemoteError::fail)?;
        let texts = snapshot.texts();
        let facts = shared_facts(ctx, remote, &texts);
        let plan = match ops::plan(&texts, &facts, session, &request) {
            Ok(plan) => plan,
            Err(refusal) => {
                // The refusal is about the shared state; show it locally too.
                let _ = mirror(ctx, &snapshot);
                return Err(crate::cmd::mutate::refused(refusal));
            }
        };
        if plan.noop {
            let _ = mirror(ctx, &snapshot);
            return Ok(plan);
        }
        let changed = apply(&snapshot, &plan, extra_log)?;
        let message = format!("rail: {} {} by {}", plan.op, plan.task, plan.session);
        let new = commit(&dir, snapshot.commit.as_deref(), &changed, &message)
            .map_err(RemoteError::fail)?;
        match push(&dir, remote, &new).map_err(RemoteError::fail)? {
            Pushed::Done => {
                let _ = git::run(&dir, &["update-ref", FETCHED, &new]);
                let mut files = snapshot.files.clone();
                files.extend(changed);
                mark_synced(ctx);
                // The operation is done on the remote; a local mirror problem is only a warning.
                if let Err(f) = mirror(
                    ctx,
                    &Snapshot {
                        commit: Some(new),
                        files,
                    },
                ) {
                    errln!(
                        "rail: done on {remote}, but the local copy was not updated: {}",
                        f.message
                    );
                }
                return Ok(plan);
            }
            Pushed::Rejected => {
                if Instant::now() >= deadline {
                    return Err(Fail::env(format!(
                        "gave up after {attempt} attempts: the shared rail kept changing under us (other machines are busy); try again"
                    )));
                }
                // Jittered exponential backoff: 20 ms doubling to 640 ms.
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let cap = 20u64 << attempt.min(5);
                std::thread::sleep(Duration::from_millis(10 + rng % cap));
            }
        }
    }
}

fn shared_timeout() -> Duration {
    std::env::var("RAIL_SHARED_TIMEOUT_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map(Duration::from_millis)
        .unwrap_or(Duration::from_secs(60))
}

/// Facts for the shared rail: leases run on the branches as pushed to the remote (remote-
/// tracking refs, commits not on the remote's main branch), together with local branches.
pub fn shared_facts(ctx: &Ctx, remote: &str, texts: &RailTexts) -> rail_core::input::Facts {
    let mut facts = ctx.facts(texts, crate::context::Commits::IfNeeded);
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

fn mark_synced(ctx: &Ctx) {
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

/// Writes the shared state into the main checkout (under the local lock, claims.md in place),
/// as core plans it: local rail files the shared state does not have are left alone, and files
/// of the shared tree that are not the rail's are never written (a warning names them).
pub fn mirror(ctx: &Ctx, snapshot: &Snapshot) -> Result<(), Fail> {
    let session = ctx.explicit_session().unwrap_or("sync").to_string();
    let lock = ctx.lock(&session)?;
    ctx.rail
        .recover(&lock)
        .map_err(|e| Fail::env(format!("recovering an interrupted write: {e}")))?;
    let local = ctx.read(true)?;
    let plan = snapshot::mirror(&snapshot.files, &local);
    for foreign in &plan.ignored {
        errln!("rail: the shared rail has {foreign}; not written here");
    }
    ctx.rail
        .apply(&lock, &local, &plan.writes, &[])
        .map_err(Fail::env)
}

/// `rail sync`: fetch the shared rail (and the remote's branches) and mirror it locally.
pub fn sync(ctx: &Ctx, remote: &str) -> Result<Snapshot, Fail> {
    let dir = repo_dir(ctx);
    let fetched = fetch(&dir, remote, true).map_err(RemoteError::fail)?;
    let snapshot = read_commit(&dir, fetched.as_deref()).map_err(RemoteError::fail)?;
    mark_synced(ctx);
    mirror(ctx, &snapshot)?;
    Ok(snapshot)
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
    let fetched = fetch(&dir, remote, false).map_err(RemoteError::fail)?;
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
        let new = commit(&dir, None, &files, "rail: share this rail").map_err(RemoteError::fail)?;
        match push(&dir, remote, &new).map_err(RemoteError::fail)? {
            Pushed::Done => done.push(format!("published the rail to {remote} {REF}")),
            Pushed::Rejected => done.push(format!("{remote} already has a shared rail")),
        }
    }
    let snapshot = sync(ctx, remote)?;
    done.push(format!(
        "mirrored the shared rail ({} files) into {}",
        snapshot.files.len(),
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
    let note = rail_core::freshness::describe(&FreshnessFacts {
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
    use super::local_lock_busy;

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
