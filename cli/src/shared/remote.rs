//! Talking to the shared rail's remote: a fetch of the shared ref (with every machine's queue
//! and guard marks), a push of several refs at once (each judged on its own), the remote's ref
//! listing measured, and what git's answers mean — a lost race, a server's own no, an
//! unreachable remote, or another git process of this machine holding a lock. Every command
//! that talks to the remote is stopped at its deadline.

use std::io::Read;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use super::{FETCHED, REF};

/// How an unreachable remote's failure starts; reads show only what git said after it.
pub const UNREACHABLE: &str = "the shared rail's remote is unreachable, nothing was changed: ";
use crate::fail::Fail;
use crate::git::{self, GitLine};

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
    line: &GitLine,
    deadline: Instant,
) -> Result<Option<std::process::Output>, RemoteError> {
    let mut child = crate::git::line::process(dir, line)
        .map_err(RemoteError::Git)?
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .own_group()
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
        crate::sys::env::env().shared_timeout.as_millis()
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
        let line = GitLine::default()
            .config("protocol.version", "0")
            .opt("ls-remote")
            .operand(remote.as_str());
        let size = match git_remote(&dir, &line, deadline) {
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
    /// The shared ref is not on the remote: the remote's other refs under `refs/rail/` (core's
    /// `change::missing` judges what that means).
    pub missing: Option<Vec<String>>,
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
    let mut line = GitLine::new(&["-c", "gc.auto=0", "-c", "maintenance.auto=false"])
        .config("protocol.version", &version.to_string())
        .opt("fetch")
        .opt("--quiet")
        .opt("--no-write-fetch-head")
        .opt("--no-tags")
        .operand(remote)
        .operand(format!("+{REF}:{FETCHED}"));
    if branches {
        line = line.operand(format!("+refs/heads/*:refs/remotes/{remote}/*"));
    }
    // Every machine's guard marks, for the board (cli/src/store/heartbeat.rs).
    line = line.operand(format!(
        "+{}*:{}*",
        crate::store::heartbeat::SHARED_REFS,
        crate::store::heartbeat::FETCHED_REFS
    ));
    if queues {
        line = line.operand(format!(
            "+{}*:{}*",
            rail_core::change::queue::QUEUE_REFS,
            crate::shared::machine::FETCHED_QUEUES
        ));
    }
    let unanswered = || RemoteError::Unreachable(no_answer(remote, "a fetch"));
    let mut out = git_remote(dir, &line, deadline)?.ok_or_else(unanswered)?;
    // Rail's own fetches are serialised per repository (the exchange lock), but a person's
    // `git fetch` or `git gc` may hold a ref's lock for a moment.
    let mut wait_ms = 15;
    while !out.status.success()
        && local_lock_busy(&String::from_utf8_lossy(&out.stderr))
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(wait_ms));
        wait_ms = (wait_ms * 2).min(250);
        out = git_remote(dir, &line, deadline)?.ok_or_else(unanswered)?;
    }
    let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
    if !out.status.success() {
        if stderr.contains("couldn't find remote ref") {
            // No shared state, or none any more (a deleted ref): what else of a shared rail
            // the remote holds tells the two apart (core's `change::missing`).
            if branches {
                let branch_heads = GitLine::new(&["fetch", "--quiet", "--no-tags"]).operand(remote);
                let _ = git_remote(dir, &branch_heads, deadline);
            }
            return Ok(Fetched {
                missing: Some(rail_refs(dir, remote, deadline)?),
                ..Fetched::default()
            });
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

/// The remote's refs under `refs/rail/` (the shared ref aside), asked of it with `git
/// ls-remote`: one round trip more, made only when the shared ref was not found.
fn rail_refs(dir: &Path, remote: &str, deadline: Instant) -> Result<Vec<String>, RemoteError> {
    let line = GitLine::new(&["ls-remote"])
        .operand(remote)
        .operand("refs/rail/*");
    let out = git_remote(dir, &line, deadline)?
        .ok_or_else(|| RemoteError::Unreachable(no_answer(remote, "a listing of its refs")))?;
    if !out.status.success() {
        return Err(RemoteError::Unreachable(
            String::from_utf8_lossy(&out.stderr).trim().to_string(),
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_once('\t').map(|(_, name)| name.trim().to_string()))
        .filter(|name| name != REF)
        .collect())
}

/// The fetched ref and (with `queues`) every machine's queue as this repository has them from
/// its last fetch ([`refs_of`]).
pub fn listed_refs(dir: &Path, queues: bool) -> Result<Fetched, RemoteError> {
    let names = [
        FETCHED,
        crate::shared::machine::FETCHED_QUEUES,
        crate::store::heartbeat::FETCHED_REFS,
    ];
    let listed = git::refs_of(dir, &names).map_err(RemoteError::Git)?;
    let mut fetched = Fetched::default();
    for (name, id) in listed {
        if name == FETCHED {
            fetched.commit = Some(id);
        } else if let Some(machine) = name.strip_prefix(crate::shared::machine::FETCHED_QUEUES) {
            if queues {
                fetched.queues.push((machine.to_string(), id));
            }
        } else if let Some(machine) = name.strip_prefix(crate::store::heartbeat::FETCHED_REFS) {
            fetched.marks.push((machine.to_string(), id));
        }
    }
    Ok(fetched)
}

pub use rail_core::change::round::Pushed;

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
pub(super) fn push(
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
        .filter_map(|u| u.expect.map(|k| format!("{}:{k}", u.dst)))
        .collect();
    let refspecs: Vec<String> = updates
        .iter()
        .map(|u| format!("{}:{}", u.commit, u.dst))
        .collect();
    let mut line = GitLine::new(&["push", "--porcelain", "--quiet"]);
    for lease in &leases {
        line = line.set("--force-with-lease=", lease);
    }
    line = line.operand(remote);
    for refspec in &refspecs {
        line = line.operand(refspec.as_str());
    }
    let Some(out) = git_remote(dir, &line, deadline)? else {
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
