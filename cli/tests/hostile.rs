//! What a hostile or unlucky rail does to the CLI (issue 17): repeated events that render the
//! same log line, and a lock record whose owner can never be judged.

mod common;

use common::*;

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
        stderr(&out).contains("too complex to compare within Rail's limits, so they count as overlapping"),
        "{}",
        stderr(&out)
    );
    assert!(repo.holders("second").is_empty());
}
