//! A hostile repository cannot make Rail write elsewhere, lose a claim, or hang (issue 17).
//!
//! Rail's files arrive through `git pull` and merges, so anything in the rail directory may be
//! a symbolic link, a FIFO, a device, or a file that cannot be written. Each test names the
//! finding it covers, runs real `rail` processes on a real repository, and bounds every run
//! with a watchdog: a command that hangs fails the test (and is killed) instead of hanging the
//! suite.
#![cfg(unix)]

use crate::common::NoSession;
use std::collections::BTreeMap;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use crate::common::*;

/// Runs `rail ARGS` in `dir`, and fails the test if it has not finished within 60 s (then it is
/// killed): the event waited for is the process's exit, the deadline only catches a hang.
fn bounded(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(rail_bin());
    cmd.args(args);
    run_bounded(cmd, dir, env)
}

/// Runs `rail ARGS` through `sh` with the file size limit `ulimit -f BLOCKS` (512-byte blocks)
/// and SIGXFSZ ignored: a write past the limit then fails with EFBIG, "File too large", the
/// way a full disk fails a write — a real failed write, with no root and no fault injection.
fn with_file_limit(dir: &Path, blocks: u32, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!(
            "ulimit -f {blocks} && trap '' XFSZ && exec \"$0\" \"$@\""
        ))
        .arg(rail_bin())
        .args(args);
    run_bounded(cmd, dir, env)
}

fn run_bounded(mut cmd: Command, dir: &Path, env: &[(&str, &str)]) -> Output {
    cmd.current_dir(dir)
        .no_session()
        .env_remove("RAIL_DIR")
        .env_remove("RAIL_NOW")
        .env_remove("RAIL_TEST_CRASH")
        .env_remove("RAIL_TEST_FAIL_WRITE")
        .env("RAIL_LOCK_TIMEOUT_MS", "5000")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let child = cmd.spawn().unwrap();
    let pid = child.id();
    let (done, exited) = std::sync::mpsc::channel();
    std::thread::spawn(move || done.send(child.wait_with_output().unwrap()));
    exited
        .recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|_| {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!("rail {:?} hung (killed after 60 s)", cmd.get_args());
        })
}

/// Every file under `dir` (but .git) with its bytes: to show nothing changed, byte for byte,
/// and no file appeared (a journal, a temp file).
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.file_name().is_some_and(|n| n == ".git") {
                continue;
            }
            let meta = std::fs::symlink_metadata(&p).unwrap();
            if meta.is_dir() {
                stack.push(p);
            } else if meta.is_file() {
                files.insert(
                    p.strip_prefix(dir).unwrap().to_path_buf(),
                    std::fs::read(&p).unwrap(),
                );
            } else {
                files.insert(p.strip_prefix(dir).unwrap().to_path_buf(), Vec::new());
            }
        }
    }
    files
}

fn assert_unchanged(before: &BTreeMap<PathBuf, Vec<u8>>, dir: &Path, what: &str) {
    let after = snapshot(dir);
    let names = |m: &BTreeMap<PathBuf, Vec<u8>>| m.keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        names(&after),
        names(before),
        "{what}: files appeared or vanished"
    );
    for (name, bytes) in before {
        assert!(
            after[name] == *bytes,
            "{what}: {} changed:\n{}",
            name.display(),
            String::from_utf8_lossy(&after[name])
        );
    }
}

/// A repository with a rail holding one claim (`a`) and a log line.
fn repo_with_a_claim() -> Repo {
    let repo = Repo::new();
    let out = repo.rail(&["claim", "a", "--session", "s"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    repo
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success(), "mkfifo {}", path.display());
}

fn replace_with_link(repo: &Repo, name: &str, target: &Path) {
    let path = repo.file(name);
    if std::fs::symlink_metadata(&path).is_ok() {
        std::fs::remove_file(&path).unwrap();
    }
    symlink(target, &path).unwrap();
}

// Finding 2: symbolic links are not followed.

#[test]
fn symlinked_claims_md_is_refused() {
    let repo = repo_with_a_claim();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("bashrc");
    std::fs::write(&target, "export PATH=/usr/bin\n").unwrap();
    replace_with_link(&repo, "claims.md", &target);
    let before = snapshot(repo.path());
    for args in [
        &["claim", "b", "--session", "s"][..],
        &["board"][..],
        &["validate"][..],
    ] {
        let out = bounded(repo.path(), args, &[]);
        assert_eq!(code(&out), 3, "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("claims.md is a symbolic link; Rail does not follow links"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "export PATH=/usr/bin\n",
        "the claim line was written through the link"
    );
    assert_unchanged(&before, repo.path(), "after refusing a linked claims.md");
}

#[test]
fn symlinked_claims_log_is_refused() {
    let repo = repo_with_a_claim();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("notes.txt");
    std::fs::write(&target, "mine\n").unwrap();
    replace_with_link(&repo, "claims.log", &target);
    let before = snapshot(repo.path());
    let out = bounded(repo.path(), &["claim", "b", "--session", "s"], &[]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("claims.log is a symbolic link"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "mine\n");
    assert!(repo.holders("b").is_empty(), "the claim landed anyway");
    assert_unchanged(&before, repo.path(), "after refusing a linked claims.log");
}

#[test]
fn dangling_symlinked_journal_never_creates_its_target() {
    let repo = repo_with_a_claim();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("created-by-rail");
    replace_with_link(&repo, "claims.md.journal", &target);
    let before = snapshot(repo.path());
    let out = bounded(repo.path(), &["claim", "b", "--session", "s"], &[]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("claims.md.journal is a symbolic link"),
        "{}",
        stderr(&out)
    );
    assert!(!target.exists(), "the link's target was created");
    assert_unchanged(&before, repo.path(), "after refusing a linked journal");
    // Readers refuse it too, rather than read what it points to.
    let out = bounded(repo.path(), &["board"], &[]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
}

#[test]
fn symlinked_claims_dir_is_refused() {
    let repo = Repo::new();
    let outside = tempfile::tempdir().unwrap();
    let claim = "owner: s\ntask: t\npaths:\n- src/**\n";
    std::fs::write(outside.path().join("s.yaml"), claim).unwrap();
    replace_with_link(&repo, "claims", outside.path());
    let before = snapshot(repo.path());
    for args in [
        &["release", "t", "--session", "s", "--no-touched"][..],
        &["board"][..],
    ] {
        let out = bounded(repo.path(), args, &[]);
        assert_eq!(code(&out), 3, "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("claims is a symbolic link"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    assert_eq!(
        std::fs::read_to_string(outside.path().join("s.yaml")).unwrap(),
        claim,
        "the claim file outside the repository was rewritten"
    );
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 1);
    assert_unchanged(&before, repo.path(), "after refusing a linked claims/");
}

#[test]
fn symlinked_claim_file_and_rail_yaml_are_refused() {
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("private.yaml");
    std::fs::write(&target, "owner: s\ntask: t\n").unwrap();
    for name in ["claims/s.yaml", "rail.yaml"] {
        let repo = repo_with_a_claim();
        std::fs::create_dir_all(repo.file("claims")).unwrap();
        replace_with_link(&repo, name, &target);
        let before = snapshot(repo.path());
        for args in [&["claim", "b", "--session", "s"][..], &["board"][..]] {
            let out = bounded(repo.path(), args, &[]);
            assert_eq!(code(&out), 3, "{name} {args:?}: {}", stderr(&out));
            assert!(
                stderr(&out).contains(&format!("{name} is a symbolic link")),
                "{name} {args:?}: {}",
                stderr(&out)
            );
        }
        assert_unchanged(&before, repo.path(), name);
    }
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "owner: s\ntask: t\n"
    );
}

// Finding 3: special files neither hang a command nor exhaust memory.

#[test]
fn fifos_in_the_rail_directory_fail_fast_naming_the_fifo() {
    for name in [
        "claims.md",
        "claims.md.lock",
        "claims.md.journal",
        "rail.yaml",
        "claims.log",
        "claims/s.yaml",
    ] {
        let repo = repo_with_a_claim();
        std::fs::create_dir_all(repo.file("claims")).unwrap();
        let path = repo.file(name);
        if path.exists() {
            std::fs::remove_file(&path).unwrap();
        }
        mkfifo(&path);
        let before = snapshot(repo.path());
        // Every command that reads or writes that file (readers take no lock).
        let mut commands = vec![&["claim", "b", "--session", "s"][..]];
        if name != "claims.md.lock" {
            commands.extend([&["board"][..], &["validate"][..]]);
        }
        for args in commands {
            let out = bounded(repo.path(), args, &[]);
            assert_eq!(code(&out), 3, "{name} {args:?}: {}", stderr(&out));
            assert!(
                stderr(&out).contains(&format!("{name} is a FIFO")),
                "{name} {args:?}: {}",
                stderr(&out)
            );
        }
        // (Not read through `holders`: reading the FIFO would hang this test.)
        assert_unchanged(&before, repo.path(), name);
    }
}

/// A dangling link as the lock once made `rail claim` spin forever (past the lock timeout)
/// while `rail lock` called the lock free. Both now stop at once, naming the link.
#[test]
fn a_dangling_link_as_the_lock_ends_at_once_and_is_not_called_free() {
    let repo = repo_with_a_claim();
    replace_with_link(&repo, "claims.md.lock", Path::new("/nonexistent/rail-lock"));
    let before = snapshot(repo.path());
    let out = bounded(
        repo.path(),
        &["claim", "b", "--session", "s"],
        &[("RAIL_LOCK_TIMEOUT_MS", "600000")],
    );
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("claims.md.lock is a symbolic link"),
        "{}",
        stderr(&out)
    );
    let out = bounded(repo.path(), &["lock"], &[]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("claims.md.lock is a symbolic link"),
        "{}",
        stderr(&out)
    );
    assert_unchanged(&before, repo.path(), "claims.md.lock");
    assert!(repo.holders("b").is_empty());
}

#[test]
fn a_directory_as_the_lock_ends_at_once_naming_it() {
    let repo = repo_with_a_claim();
    std::fs::create_dir(repo.file("claims.md.lock")).unwrap();
    // A lock timeout far longer than the watchdog: the wait must not even start.
    let out = bounded(
        repo.path(),
        &["claim", "b", "--session", "s"],
        &[("RAIL_LOCK_TIMEOUT_MS", "600000")],
    );
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("claims.md.lock is a directory"),
        "{}",
        stderr(&out)
    );
    assert!(repo.holders("b").is_empty());
}

#[test]
fn a_claim_file_linked_to_dev_zero_is_refused_not_read_forever() {
    let repo = repo_with_a_claim();
    std::fs::create_dir_all(repo.file("claims")).unwrap();
    replace_with_link(&repo, "claims/x.yaml", Path::new("/dev/zero"));
    for args in [&["board"][..], &["validate"][..]] {
        let out = bounded(repo.path(), args, &[]);
        assert_eq!(code(&out), 3, "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("claims/x.yaml is a symbolic link"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    // Named directly, the device itself is refused, not read until memory runs out.
    let out = bounded(repo.path(), &["validate", "/dev/zero"], &[]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("/dev/zero is a device"),
        "{}",
        stderr(&out)
    );
}

// Finding 6: writes are all or nothing, also when the disk fills or a file is not writable.

/// No journal, no lock, no temp file of any kind in the rail directory.
fn assert_no_leftovers(repo: &Repo, what: &str) {
    let left: Vec<String> = snapshot(repo.path())
        .into_keys()
        .map(|p| p.display().to_string())
        .filter(|n| n.starts_with("claims.md.") || n.ends_with("tmp"))
        .collect();
    assert!(left.is_empty(), "{what}: left behind: {left:?}");
}

#[test]
fn a_full_disk_while_writing_claims_md_leaves_it_untouched() {
    let repo = repo_with_a_claim();
    for t in ["b", "c"] {
        assert_eq!(code(&repo.rail(&["claim", t, "--session", "s"])), 0);
    }
    let before = snapshot(repo.path());
    // A release rewrites claims.md from the middle: the failed write tears it halfway.
    let out = bounded(
        repo.path(),
        &["release", "b", "--session", "s", "--no-touched"],
        &[("RAIL_TEST_FAIL_WRITE", "claims.md")],
    );
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("claims.md: No space left on device"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("nothing was changed"),
        "{}",
        stderr(&out)
    );
    assert_unchanged(&before, repo.path(), "after a failed in-place write");
    assert_no_leftovers(&repo, "after a failed in-place write");
    // The rail works on, with nothing to recover.
    let out = bounded(
        repo.path(),
        &["release", "b", "--session", "s", "--no-touched"],
        &[],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(!stderr(&out).contains("crash"), "{}", stderr(&out));
    assert!(repo.holders("b").is_empty());
    assert_eq!(repo.holders("c").len(), 1);
}

#[test]
fn a_full_disk_while_writing_a_claim_file_leaves_it_untouched() {
    let repo = Repo::new();
    std::fs::create_dir(repo.file("claims")).unwrap();
    std::fs::write(
        repo.file("claims/s.yaml"),
        "owner: s\ntask: t\npaths:\n- src/**\n",
    )
    .unwrap();
    let before = snapshot(repo.path());
    let out = bounded(
        repo.path(),
        &["release", "t", "--session", "s", "--no-touched"],
        &[("RAIL_TEST_FAIL_WRITE", "claims/s.yaml")],
    );
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("claims/s.yaml.rail-tmp: No space left on device")
            || stderr(&out).contains("claims/s.yaml: No space left on device"),
        "{}",
        stderr(&out)
    );
    assert_unchanged(&before, repo.path(), "after a failed claim file write");
    assert_no_leftovers(&repo, "after a failed claim file write");
}

#[test]
fn a_full_disk_while_writing_the_journal_leaves_nothing_behind() {
    let repo = repo_with_a_claim();
    // Claims big enough that the journal (which holds all of claims.md) passes the 512-byte
    // limit, while the lock's owner record (a few hundred bytes) does not.
    for i in 0..12 {
        let out = repo.rail(&["claim", &format!("task-{i}"), "--session", "s"]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    }
    let before = snapshot(repo.path());
    let out = with_file_limit(repo.path(), 1, &["claim", "b", "--session", "s"], &[]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("claims.md.journal: File too large"),
        "{}",
        stderr(&out)
    );
    assert_unchanged(&before, repo.path(), "after a failed journal write");
    assert_no_leftovers(&repo, "after a failed journal write");
}

#[test]
fn a_full_disk_while_taking_the_lock_leaves_no_temp_file() {
    let repo = repo_with_a_claim();
    let before = snapshot(repo.path());
    let out = with_file_limit(repo.path(), 0, &["claim", "b", "--session", "s"], &[]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(stderr(&out).contains("File too large"), "{}", stderr(&out));
    assert_unchanged(&before, repo.path(), "after a failed lock record");
    assert_no_leftovers(&repo, "after a failed lock record");
}

/// A log bigger than the file size limit: appending to it fails with EFBIG, after claims.md
/// (small) was written in place.
fn repo_with_a_big_log() -> Repo {
    let repo = repo_with_a_claim();
    let line = std::fs::read_to_string(repo.file("claims.log")).unwrap();
    assert!(line.ends_with('\n') && !line.is_empty(), "{line:?}");
    std::fs::write(repo.file("claims.log"), line.repeat(8192 / line.len() + 1)).unwrap();
    assert!(std::fs::metadata(repo.file("claims.md")).unwrap().len() < 1024);
    repo
}

#[test]
fn a_claims_log_that_cannot_be_appended_to_keeps_the_claim_out_of_claims_md() {
    let repo = repo_with_a_big_log();
    let before = snapshot(repo.path());
    let out = with_file_limit(repo.path(), 4, &["claim", "b", "--session", "s"], &[]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("claims.log: File too large"),
        "the error names the file: {}",
        stderr(&out)
    );
    assert!(
        repo.holders("b").is_empty(),
        "the claim landed without its log line"
    );
    assert_unchanged(&before, repo.path(), "after a failed log append");
    assert_no_leftovers(&repo, "after a failed log append");
    // Later writes work: nothing was left that cannot be replayed.
    let out = bounded(repo.path(), &["claim", "b", "--session", "s"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(repo.holders("b").len(), 1);
}

/// The same limit with SIGXFSZ at its default (as a shell's `ulimit -f` leaves it): the signal
/// would kill rail with no word of its own; rail ignores it, so the write fails with EFBIG and
/// rail says which file could not be written (issue 31, finding 9).
#[test]
fn a_file_size_limit_is_reported_not_a_silent_kill() {
    let repo = repo_with_a_big_log();
    let before = snapshot(repo.path());
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg("ulimit -f 4 && exec \"$0\" \"$@\"")
        .arg(rail_bin())
        .args(["claim", "b", "--session", "s"]);
    let out = run_bounded(cmd, repo.path(), &[]);
    assert_eq!(
        code(&out),
        3,
        "killed by a signal? {:?} {}",
        out.status,
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("claims.log: File too large"),
        "{}",
        stderr(&out)
    );
    assert!(repo.holders("b").is_empty());
    assert_unchanged(&before, repo.path(), "after a write past the size limit");
}

#[test]
fn an_unwritable_claims_log_keeps_the_claim_out_of_claims_md() {
    let repo = repo_with_a_claim();
    let log = repo.file("claims.log");
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    // As root, chmod does not stop a write: the same refusal to open is injected instead
    // (the chmod path runs wherever the tests do not run as root).
    let env: Vec<(&str, &str)> = if root {
        eprintln!("an_unwritable_claims_log: running as root; chmod 0444 replaced by RAIL_TEST_FAIL_WRITE=claims.log:open");
        vec![("RAIL_TEST_FAIL_WRITE", "claims.log:open")]
    } else {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&log, std::fs::Permissions::from_mode(0o444)).unwrap();
        vec![]
    };
    let before = snapshot(repo.path());
    let out = bounded(repo.path(), &["claim", "b", "--session", "s"], &env);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("claims.log: Permission denied"),
        "the error names the file: {}",
        stderr(&out)
    );
    assert!(
        repo.holders("b").is_empty(),
        "the claim landed without its log line"
    );
    assert_unchanged(&before, repo.path(), "after an unwritable log");
    assert_no_leftovers(&repo, "after an unwritable log");
    if !root {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&log, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    let out = bounded(repo.path(), &["claim", "b", "--session", "s"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(repo.holders("b").len(), 1);
}

#[test]
fn a_journal_that_cannot_be_replayed_is_kept_and_named() {
    let repo = repo_with_a_big_log();
    // A writer dies after its journal: the next command must replay it.
    let out = bounded(
        repo.path(),
        &["claim", "b", "--session", "s"],
        &[("RAIL_TEST_CRASH", "after-journal")],
    );
    assert_ne!(code(&out), 0, "the crash hook did not fire");
    assert!(repo.file("claims.md.journal").exists());
    let mut before = snapshot(repo.path());
    // The dead writer's lock is broken by the next command, rightly: not part of "unchanged".
    before.remove(Path::new("claims.md.lock"));
    // The replay cannot append to the log: the journal is kept, nothing changes, and the
    // message names the journal, the file and what to do.
    let out = with_file_limit(repo.path(), 4, &["claim", "c", "--session", "s"], &[]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("claims.md.journal"), "{err}");
    assert!(err.contains("claims.log: File too large"), "{err}");
    assert!(err.contains("run any rail command"), "{err}");
    assert_unchanged(&before, repo.path(), "after a replay that failed");
    // Once the file can be written, the next command finishes the change and its own.
    let out = bounded(repo.path(), &["claim", "c", "--session", "s"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("interrupted by a crash"),
        "{}",
        stderr(&out)
    );
    assert_eq!(repo.holders("b").len(), 1);
    assert_eq!(repo.holders("c").len(), 1);
    assert!(!repo.file("claims.md.journal").exists());
}

#[test]
fn a_crash_journal_is_finished_not_overwritten_by_a_log_only_write() {
    // Found on the way: commands that only append a log line (a bypass, a broken lock, the
    // gate) took the lock without replaying a crashed writer's journal, and wrote their own
    // journal over it: the crashed claim was lost. (Now the journal is created new, so it
    // would not be overwritten; and it is finished first.)
    let repo = repo_with_a_claim();
    let out = bounded(
        repo.path(),
        &["claim", "b", "--session", "s"],
        &[("RAIL_TEST_CRASH", "after-journal")],
    );
    assert_ne!(code(&out), 0, "the crash hook did not fire");
    let out = bounded(
        repo.path(),
        &["check", "--session", "s"],
        &[("RAIL_BYPASS", "hostile test")],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("interrupted by a crash"),
        "{}",
        stderr(&out)
    );
    assert_eq!(repo.holders("b").len(), 1, "the crashed claim was lost");
    assert!(repo.read("claims.log").contains("hostile test"));
    assert!(!repo.file("claims.md.journal").exists());
}

// Finding 10a: --rail / RAIL_DIR must name a rail.

#[test]
fn rail_dir_naming_a_directory_that_is_not_a_rail_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    for (args, env) in [
        (vec!["--rail", d, "claim", "a", "--session", "s"], vec![]),
        (vec!["claim", "a", "--session", "s"], vec![("RAIL_DIR", d)]),
        (vec!["--rail", d, "board"], vec![]),
    ] {
        let out = bounded(elsewhere.path(), &args, &env);
        assert_eq!(code(&out), 3, "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("is not a rail"), "{}", stderr(&out));
        assert!(stderr(&out).contains("rail init"), "{}", stderr(&out));
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "{args:?}: a rail was made anyway"
        );
    }
    // `rail init` makes one there, and then it is a rail.
    let out = bounded(elsewhere.path(), &["--rail", d, "init"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = bounded(
        elsewhere.path(),
        &["--rail", d, "claim", "a", "--session", "s"],
        &[],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(std::fs::read_to_string(dir.path().join("claims.md"))
        .unwrap()
        .contains("\na | s | "));
}

#[test]
fn rail_dir_naming_a_repository_main_checkout_is_a_rail_to_be() {
    // Where Rail puts a new rail by default; the VS Code extension passes it with --rail.
    let dir = tempfile::tempdir().unwrap();
    crate::common::git_in(dir.path(), &["init", "-q", "-b", "main"]);
    let d = dir.path().to_str().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let out = bounded(
        elsewhere.path(),
        &["--rail", d, "claim", "a", "--session", "s"],
        &[],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(dir.path().join("claims.md").is_file());
}

/// Three renewals at the same second render three equal log lines; each is an event and the
/// log must keep all three (the journal's "already appended" check once swallowed them). The
/// claim line, unchanged by the second and third renewal, is not rewritten for them.
#[test]
fn every_renewal_is_logged_even_within_one_second() {
    let repo = Repo::new();
    let now = "--now=2026-10-22T14:05:00Z";
    let out = repo.rail(&["claim", "billing", "--session", "session-a", now]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    for _ in 0..3 {
        let out = repo.rail(&["renew", "billing", "--session", "session-a", now]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    }
    let log = repo.read("claims.log");
    let renewed = log.lines().filter(|l| l.contains("| renewed |")).count();
    assert_eq!(renewed, 3, "{log}");
    assert_eq!(
        repo.holders("billing"),
        ["billing | session-a | 2026-10-22T14:05:00Z | renewed: 2026-10-22T14:05:00Z"]
    );
}

/// This machine's name as the CLI records it (as `commands.rs` reads it).
fn hostname() -> String {
    let out = std::process::Command::new("uname")
        .arg("-n")
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// A lock record for pid 0 (hand-written, or brought by a merge) names no process: asking the
/// OS would even say "alive" (`kill(0, 0)` signals our own process group). Its verdict says
/// the owner can never be judged, `rail lock` and a waiter that timed out both name the
/// remedy, and the forced break that remedy names works.
#[test]
fn a_lock_for_pid_0_says_what_to_do() {
    let repo = Repo::new();
    let host = hostname();
    std::fs::write(
        repo.file("claims.md.lock"),
        format!("pid: 0\nhost: {host}\nsession: x\ncommand: test\nstarted: 2026-10-22T14:05:00Z\nnonce: abc123\n"),
    )
    .unwrap();
    let remedy = "`rail lock --break --force`, after making sure nobody holds it";
    let out = repo.rail(&["lock"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let said = stdout(&out);
    assert!(said.contains("pid 0 names no process"), "{said}");
    assert!(said.contains(remedy), "{said}");
    assert!(!said.contains("is alive"), "{said}");
    let out = repo.rail(&["lock", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["verdict"]["state"], "unjudgeable");
    assert_eq!(v["verdict"]["breakable"], false);
    assert_eq!(v["verdict"]["hint"]["kind"], "force-break");
    // A waiter is not told to wait for a process that does not exist: it times out with the
    // remedy, and changes nothing.
    let out = repo.rail_env(
        &["claim", "billing", "--session", "session-a"],
        &[("RAIL_LOCK_TIMEOUT_MS", "200")],
    );
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    let said = stderr(&out);
    assert!(said.contains("timed out waiting"), "{said}");
    assert!(said.contains("pid 0 names no process"), "{said}");
    assert!(said.contains(remedy), "{said}");
    assert!(repo.holders("billing").is_empty());
    // Not broken without --force; the remedy works.
    let out = repo.rail(&["lock", "--break", "--session", "s"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(repo.file("claims.md.lock").exists());
    let out = repo.rail(&["lock", "--break", "--force", "--session", "s"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(!repo.file("claims.md.lock").exists());
    let out = repo.rail(&["claim", "billing", "--session", "session-a"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

/// Issue 17's pattern (`{a,b}` ×6, `*?` ×235) is refused as too complex (bad input, nothing
/// written); a pattern within the limits whose overlap the search cannot decide within its
/// budget makes a claim refused as a path conflict that says so — never a silent allow.
#[test]
fn hostile_patterns_are_refused_or_count_as_overlapping() {
    let repo = Repo::new();
    let issue = format!("{}{}", "{a,b}".repeat(6), "*?".repeat(235));
    let out = repo.rail(&["claim", "hostile", "--session", "s1", "--path", &issue]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("is too complex"), "{}", stderr(&out));
    assert!(repo.holders("hostile").is_empty());
    let stars = |last: char| format!("{}{}{last}", "{a,b}".repeat(3), "*a".repeat(240));
    let out = repo.rail(&["claim", "first", "--session", "s1", "--path", &stars('0')]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = repo.rail(&["claim", "second", "--session", "s2", "--path", &stars('1')]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        stderr(&out)
            .contains("too complex to compare within Rail's limits, so they count as overlapping"),
        "{}",
        stderr(&out)
    );
    assert!(repo.holders("second").is_empty());
}

// Issue 28, finding 3: `rail init` and `rail init --agents` write work-tree files a branch
// commits (.gitattributes, .gitignore, CLAUDE.md, AGENTS.md, .mcp.json, .claude/…). A committed
// link there must not make Rail write outside the repository.

/// For each file `rail init` (with `args`) writes, a repository where that file, or the
/// directory holding it, is a link to a file or directory outside: Rail exits non-zero naming
/// the link, and nothing outside changed — nor anything inside (one refused file means nothing
/// is written).
#[test]
fn init_never_writes_through_a_committed_link() {
    // (link name in the repository, whether the target is a directory, `rail` arguments)
    let cases: &[(&str, bool, &[&str])] = &[
        (".gitattributes", false, &["init"]),
        (".gitignore", false, &["init"]),
        ("CLAUDE.md", false, &["init", "--agents"]),
        ("AGENTS.md", false, &["init", "--agents"]),
        (".mcp.json", false, &["init", "--agents"]),
        (".claude", true, &["init", "--agents"]),
        // A committed hooks directory (core.hooksPath) that is a link.
        (".githooks", true, &["init", "--hooks"]),
    ];
    // Every case is tried, and every failure named: not only the first.
    let mut failures = Vec::new();
    for (name, is_dir, args) in cases {
        let repo = Repo::new();
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("target");
        if *is_dir {
            std::fs::create_dir(&target).unwrap();
            std::fs::write(target.join("settings.json"), "{\"mine\": true}\n").unwrap();
            std::fs::write(target.join("pre-commit"), "#!/bin/sh\n# a hook of mine\n").unwrap();
        } else if name.ends_with(".json") {
            // Valid JSON, so that only the link can stop Rail merging into it.
            std::fs::write(&target, "{\"mine\": true}\n").unwrap();
        } else {
            std::fs::write(&target, "# my own file, not the repository's\n").unwrap();
        }
        if *name == ".githooks" {
            repo.git(&["config", "core.hooksPath", ".githooks"]);
        }
        if name.starts_with(".gitattr") || name.starts_with(".gitignore") {
            // `rail init` wrote them already: the branch's link replaces them.
            std::fs::remove_file(repo.file(name)).unwrap();
        }
        replace_with_link(&repo, name, &target);
        let outside_before = snapshot(outside.path());
        let inside_before = snapshot(repo.path());
        let out = bounded(repo.path(), args, &[]);
        let err = stderr(&out);
        if code(&out) != 3 {
            failures.push(format!(
                "{name}: rail {args:?} exited {}, not 3: {}",
                code(&out),
                stdout(&out)
            ));
        } else if !(err.contains(name) && err.contains("symbolic link")) {
            failures.push(format!("{name}: the refusal does not name the link: {err}"));
        }
        if snapshot(outside.path()) != outside_before {
            failures.push(format!("{name}: a file outside the repository changed"));
        }
        // `rail init` sets up the rail before it reaches .gitattributes/.gitignore; otherwise
        // one refused file means nothing at all is written.
        if !name.starts_with(".gitattr")
            && !name.starts_with(".gitignore")
            && snapshot(repo.path()) != inside_before
        {
            failures.push(format!("{name}: files in the repository changed"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `rail board --html FILE` writes where it is told, but never through a link left at that name.
#[test]
fn board_html_never_writes_through_a_link() {
    let repo = repo_with_a_claim();
    let out = bounded(repo.path(), &["board", "--html", "board.html"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(repo.read("board.html").contains("<html") || repo.read("board.html").contains("<!"));
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("bashrc");
    std::fs::write(&target, "# mine\n").unwrap();
    replace_with_link(&repo, "board.html", &target);
    let out = bounded(repo.path(), &["board", "--html", "board.html"], &[]);
    assert_ne!(code(&out), 0, "{}", stdout(&out));
    assert!(
        stderr(&out).contains("board.html is a symbolic link"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "# mine\n");
}
