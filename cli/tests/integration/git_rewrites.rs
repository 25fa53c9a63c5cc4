//! git commands in the main checkout rewrite claims.md without Rail's lock. No claim Rail
//! reported as made may be lost to them (issue 17, finding 5; core `checkout`, cli `gitguard`).

use std::process::{Command, Stdio};

use crate::common::*;

fn claim_lines(repo: &Repo) -> Vec<String> {
    repo.read("claims.md")
        .lines()
        .filter(|l| l.contains(" | 20"))
        .map(str::to_string)
        .collect()
}

/// Real `git merge`s that rewrite claims.md, each racing a `rail claim`. Before, 39 of 40
/// claims were lost and claims.md was torn (two lines left of 57). Each round is checked
/// before any other Rail command runs, so the receipts cannot have put anything back.
#[test]
fn claims_racing_git_merges_are_never_lost_or_torn() {
    let repo = Repo::new();
    let mut merged = Vec::new();
    let mut made = Vec::new();
    for i in 0..30 {
        repo.git(&["checkout", "-q", "-b", &format!("b{i}")]);
        let mut text = repo.read("claims.md");
        text.push_str(&format!("other{i} | x | 2026-12-01T05:00Z\n"));
        std::fs::write(repo.file("claims.md"), text).unwrap();
        repo.git(&["commit", "-qam", &format!("b{i}")]);
        repo.git(&["checkout", "-q", "main"]);
        let claim = Command::new(rail_bin())
            .args(["claim", &format!("t{i}"), "--session", &format!("s{i}")])
            .current_dir(repo.path())
            .env_remove("RAIL_DIR")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let merge = Command::new("git")
            .args(["merge", "-q", "--no-edit", &format!("b{i}")])
            .current_dir(repo.path())
            .output()
            .unwrap();
        let claim = claim.wait_with_output().unwrap();
        if claim.status.success() {
            made.push(format!("t{i}"));
        }
        if merge.status.success() {
            merged.push(format!("other{i}"));
        }
        let lines = claim_lines(&repo);
        for task in made.iter().chain(&merged) {
            assert!(
                lines.iter().any(|l| l.starts_with(&format!("{task} |"))),
                "round {i}: {task} is gone from claims.md:\n{}",
                repo.read("claims.md")
            );
        }
        repo.git(&["add", "-A"]);
        let _ = Command::new("git")
            .args(["commit", "-qm", &format!("round {i}")])
            .current_dir(repo.path())
            .output()
            .unwrap();
    }
    assert!(made.len() >= 25, "too few claims went through: {made:?}");
    assert!(!merged.is_empty(), "no merge went through");
    assert!(!repo.file(".git/index.lock").exists());
}

/// `git stash`, `git reset --hard` and `git checkout` of another branch drop uncommitted claim
/// lines. Readers still see the claim, nobody else can take the task, and the next change (or
/// the post-checkout hook) writes the line back, as Rail wrote it, with a log line.
#[test]
fn claims_dropped_by_stash_reset_and_checkout_come_back() {
    let repo = Repo::new();
    let out = repo.rail(&["init", "--hooks"]);
    assert!(out.status.success(), "{}", stderr(&out));
    repo.git(&["branch", "elsewhere"]);
    let out = repo.rail(&["claim", "a", "--session", "s1", "--purpose", "fix it"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let line = repo.holders("a");
    assert_eq!(line.len(), 1);

    // stash: no hook runs.
    repo.git(&["stash", "-q"]);
    assert!(repo.holders("a").is_empty());
    let board = repo.rail(&["board", "--json"]);
    assert!(
        stdout(&board).contains("\"task\": \"a\""),
        "the board lost a:\n{}",
        stdout(&board)
    );
    let who = repo.rail(&["who", "--json", "x"]);
    assert!(who.status.success(), "{}", stderr(&who));
    let out = repo.rail(&["claim", "a", "--session", "s2"]);
    assert_eq!(code(&out), 1, "s2 was given a: {}", stderr(&out));
    assert!(
        stderr(&out).contains("restored s1's claim of a"),
        "{}",
        stderr(&out)
    );
    assert_eq!(repo.holders("a"), line);
    assert!(repo.read("claims.log").contains("| recovered | a | s1 |"));

    // reset --hard: no hook runs either.
    repo.git(&["reset", "-q", "--hard"]);
    assert!(repo.holders("a").is_empty());
    let out = repo.rail(&["reconcile"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("restored 1 of 1"), "{}", stdout(&out));
    assert_eq!(repo.holders("a"), line);

    // checkout: the post-checkout hook puts it back at once.
    repo.git(&["stash", "-q"]);
    repo.git(&["checkout", "-q", "elsewhere"]);
    assert_eq!(repo.holders("a"), line, "{}", repo.read("claims.md"));
    // Back and forth with nothing lost: the hook says nothing on every checkout.
    let back = std::process::Command::new("git")
        .args(["checkout", "-q", "-"])
        .current_dir(repo.path())
        .output()
        .unwrap();
    assert!(back.status.success(), "{}", stderr(&back));
    assert_eq!(stdout(&back), "", "the post-checkout hook spoke");
    assert_eq!(stderr(&back), "", "the post-checkout hook spoke");

    // A release is not undone: the receipt follows Rail's own writes.
    let out = repo.rail(&["release", "a", "--session", "s1", "--no-touched"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = repo.rail(&["reconcile"]);
    assert!(stdout(&out).contains("every claim"), "{}", stdout(&out));
    assert!(repo.holders("a").is_empty());
}

const DEAD_RAIL: &str = "pid: 999999999\nhost: HOST\nsession: s0\ncommand: rail claim old\nstarted: 2026-12-01T05:00:00Z\nnonce: 0123456789abcdef\n";

/// An `index.lock` left by a Rail that died is removed (and logged); git's own is waited for
/// until the lock timeout, never removed, and the message says what it is.
#[test]
fn index_lock_of_a_dead_rail_is_removed_and_gits_own_is_left() {
    let repo = Repo::new();
    let index_lock = repo.file(".git/index.lock");
    let host = {
        let out = repo.rail(&["claim", "probe", "--session", "p"]);
        assert!(out.status.success(), "{}", stderr(&out));
        let lock = repo.read("claims.md");
        assert!(lock.contains("probe | p |"));
        rail_host(&repo)
    };
    std::fs::write(&index_lock, DEAD_RAIL.replace("HOST", &host)).unwrap();
    let out = repo.rail(&["claim", "a", "--session", "s1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!index_lock.exists());
    assert!(
        repo.read("claims.log").contains("| recovered |")
            && repo.read("claims.log").contains("index.lock"),
        "{}",
        repo.read("claims.log")
    );

    std::fs::write(&index_lock, b"DIRC\0\0\0\x02").unwrap();
    let out = repo.rail_env(
        &["claim", "b", "--session", "s1"],
        &[("RAIL_LOCK_TIMEOUT_MS", "300")],
    );
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("index.lock") && stderr(&out).contains("git command"),
        "{}",
        stderr(&out)
    );
    assert!(index_lock.exists(), "git's lock was removed");
    assert!(repo.holders("b").is_empty());
    assert!(!repo.file("claims.md.lock").exists());

    // Run by a git command that holds the index itself (`git commit -a` runs pre-commit with
    // GIT_INDEX_FILE pointing at index.lock): no wait for our own parent.
    let out = repo.rail_env(
        &["claim", "b", "--session", "s1"],
        &[
            ("RAIL_LOCK_TIMEOUT_MS", "300"),
            ("GIT_INDEX_FILE", index_lock.to_str().unwrap()),
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    std::fs::remove_file(&index_lock).unwrap();
}

/// The host name Rail records, as `rail lock` shows it in a claim's `pid` field.
fn rail_host(repo: &Repo) -> String {
    let out = repo.rail(&["claim", "hostprobe", "--session", "h", "--pid", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let line = repo.holders("hostprobe").pop().unwrap();
    line.split("pid: 1@")
        .nth(1)
        .and_then(|rest| rest.split([' ', '|', '/']).next())
        .unwrap()
        .to_string()
}

/// The seed's hand release — deleting one's own line with `flock claims.md sed -i` — is a
/// release: logged as one, the task free, the line never put back. A git command that drops a
/// line afterwards (`git stash`) still has it put back: told apart by git's own record of the
/// file it wrote (its index entry's stat), not by guessing.
#[test]
fn a_hand_release_is_a_release_and_a_git_drop_is_put_back() {
    let repo = Repo::new();
    for (task, session) in [("t1", "a"), ("t2", "b")] {
        let out = repo.rail(&["claim", task, "--session", session]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    }
    let out = Command::new("flock")
        .args(["claims.md", "sed", "-i", "/^t1 |/d", "claims.md"])
        .current_dir(repo.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    // The next Rail command reads the deletion as a's release.
    let out = repo.rail(&["board"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        !stderr(&out).contains("restored"),
        "a hand release is not undone: {}",
        stderr(&out)
    );
    let out = repo.rail(&["claim", "t3", "--session", "c"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(repo.holders("t1").is_empty(), "{}", repo.read("claims.md"));
    let log = repo.read("claims.log");
    assert!(
        log.lines()
            .any(|l| l.contains("| released | t1 | a |") && l.contains("by: hand")),
        "{log}"
    );
    // The task is free: another session claims it without a take.
    let out = repo.rail(&["claim", "t1", "--session", "d"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // A git command dropping the uncommitted claims is still undone.
    repo.git(&["stash", "-q"]);
    assert!(repo.holders("t2").is_empty());
    let out = repo.rail(&["board"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = repo.rail(&["claim", "t4", "--session", "e"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    for (task, session) in [("t1", "d"), ("t2", "b"), ("t3", "c")] {
        let holders = repo.holders(task);
        assert!(
            holders.len() == 1 && holders[0].starts_with(&format!("{task} | {session} |")),
            "{task}: {}",
            repo.read("claims.md")
        );
    }
}

/// Issue 41, finding 9: the articles never commit claims.md. With it untracked, the seed's hand
/// release (`flock claims.md sed -i '/^t1 |/d' claims.md`) was undone ("restored a's claim of
/// t1") and the task refused to the next session: an untracked file was taken for one git may
/// have rewritten. No git reset, stash or checkout rewrites an untracked file it leaves in
/// place, so the loss is a hand release.
#[test]
fn a_hand_release_of_an_untracked_claims_md_is_a_release() {
    let repo = Repo::new();
    repo.git(&["rm", "-q", "--cached", "claims.md"]);
    repo.git(&[
        "commit",
        "-qm",
        "claims.md is not committed, as in the articles",
    ]);
    let out = repo.rail(&["claim", "t1", "--session", "a"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(repo.git(&["ls-files", "claims.md"]).is_empty(), "tracked");
    let out = Command::new("flock")
        .args(["claims.md", "sed", "-i", "/^t1 |/d", "claims.md"])
        .current_dir(repo.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let out = repo.rail(&["claim", "t1", "--session", "b"]);
    assert_eq!(
        code(&out),
        0,
        "the hand release was undone: {}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("restored"), "{}", stderr(&out));
    let holders = repo.holders("t1");
    assert!(
        holders.len() == 1 && holders[0].starts_with("t1 | b |"),
        "{}",
        repo.read("claims.md")
    );
    let log = repo.read("claims.log");
    assert!(
        log.lines()
            .any(|l| l.contains("| released | t1 | a |") && l.contains("by: hand")),
        "{log}"
    );
    // git leaves an untracked claims.md where it is: a stash and a checkout lose nothing.
    repo.git(&["branch", "other"]);
    repo.git(&["stash", "-q"]);
    repo.git(&["checkout", "-q", "other"]);
    assert_eq!(repo.holders("t1"), holders);
}
