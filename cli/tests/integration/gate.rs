//! After the agent: the pre-push hook blocking commits into another session's paths (and the
//! logged bypass), the gate (`rail done`: its check passing, failing, not starting, catching
//! scope), and `rail ready`'s backlog ticked by a passing gate.

use std::process::{Command, Output};

use crate::common::*;

#[test]
fn pre_push_blocks_commits_into_held_paths_and_bypass_is_logged() {
    let repo = Repo::new();
    let out = repo.rail(&["init", "--hooks"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let remote = tempfile::tempdir().unwrap();
    git_in(remote.path(), &["init", "-q", "--bare"]);
    repo.git(&["remote", "add", "origin", remote.path().to_str().unwrap()]);
    assert_eq!(
        code(&repo.rail(&[
            "claim",
            "auth",
            "--session",
            "auth",
            "--path",
            "src/auth/**"
        ])),
        0
    );
    repo.git(&["checkout", "-q", "-b", "intruder"]);
    std::fs::create_dir_all(repo.file("src/auth")).unwrap();
    std::fs::write(repo.file("src/auth/token.ts"), "x\n").unwrap();
    repo.git(&["add", "src/auth/token.ts"]);
    // Past the pre-commit hook with an explicit override…
    let out = Command::new("git")
        .args(["commit", "-qm", "sneak"])
        .current_dir(repo.path())
        .env("RAIL_BYPASS", "emergency fix, agreed with auth")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    // …but the push is checked again.
    let out = Command::new("git")
        .args(["push", "-q", "origin", "intruder"])
        .current_dir(repo.path())
        .output()
        .unwrap();
    assert!(!out.status.success(), "the push must be blocked");
    let said = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        said.contains("src/auth/token.ts") && said.contains("held by auth"),
        "{said}"
    );
    let log = repo.read("claims.log");
    assert!(
        log.contains(
            "| bypass | - | intruder | check: pre-commit | reason: emergency fix, agreed with auth"
        ),
        "{log}"
    );
}

#[test]
fn the_gate_passes_fails_does_not_start_and_catches_scope() {
    let repo = Repo::new();
    let at = |task: &str, check: &str| -> Output {
        repo.rail(&["done", task, "--session", "s", "--check", check])
    };
    std::fs::create_dir_all(repo.file("src/a")).unwrap();
    repo.git(&["checkout", "-q", "-b", "s"]);
    assert_eq!(code(&repo.rail(&["claim", "t", "--path", "src/a/**"])), 0);
    std::fs::write(repo.file("src/a/x.rs"), "x\n").unwrap();

    let out = at("t", "exit 3");
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("the check ran and failed (`exit 3`: exit 3)"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        repo.holders("t").len(),
        1,
        "a failed check leaves the claim live"
    );

    let out = at("t", "definitely-not-a-command-xyz");
    assert_eq!(code(&out), 3);
    assert!(
        stderr(&out).contains("the check did not start"),
        "{}",
        stderr(&out)
    );
    assert_eq!(repo.holders("t").len(), 1);

    std::fs::write(repo.file("README.md"), "drift\n").unwrap();
    let out = at("t", "true");
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("outside s's declared paths: README.md"),
        "{}",
        stderr(&out)
    );
    assert_eq!(repo.holders("t").len(), 1);

    std::fs::remove_file(repo.file("README.md")).unwrap();
    let out = at("t", "test -f src/a/x.rs");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(repo.holders("t").is_empty(), "a pass releases");
    let log = repo.read("claims.log");
    let verdicts: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("| done | t | s |"))
        .filter_map(|l| l.split("verdict: ").nth(1))
        .collect();
    assert_eq!(
        verdicts,
        ["failed", "not-started", "out-of-scope", "passed"],
        "{log}"
    );
    assert!(
        log.contains("files: README.md"),
        "the out-of-scope verdict names the files: {log}"
    );
    assert!(log.contains("| released | t | s | touched: src/a/x.rs"));
}

#[test]
fn ready_lists_the_backlog_and_a_passing_gate_ticks_it() {
    let repo = Repo::new();
    let mut claims = repo.read("claims.md");
    claims.push_str("\n## Backlog\n- [ ] api | paths: src/api/** | purpose: the new endpoints\n- [ ] docs | after: api | paths: docs/**\n- [ ] write the docs by hand\n");
    std::fs::write(repo.file("claims.md"), claims).unwrap();
    repo.git(&["commit", "-qam", "backlog"]);
    let out = repo.rail(&["ready"]);
    assert_eq!(
        stdout(&out),
        "api  ready  paths: src/api/**  — the new endpoints\n"
    );
    // Claiming takes the planned paths and purpose.
    repo.git(&["checkout", "-q", "-b", "dev"]);
    assert_eq!(code(&repo.rail(&["claim", "api"])), 0);
    assert!(repo.holders("api")[0].ends_with("| paths: src/api/** | purpose: the new endpoints"));
    let out = repo.rail(&["ready", "--all", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v[0]["status"], "claimed");
    assert_eq!(v[1]["status"], "blocked");
    assert_eq!(v[1]["waiting_for"][0]["task"], "api");
    // The gate passes: the claim goes, the backlog entry is ticked, and docs becomes ready.
    std::fs::create_dir_all(repo.file("src/api")).unwrap();
    std::fs::write(repo.file("src/api/mod.rs"), "\n").unwrap();
    let out = repo.rail(&["done", "api", "--check", "true"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(repo
        .read("claims.md")
        .contains("- [x] api | paths: src/api/**"));
    assert!(repo.holders("api").is_empty());
    let out = repo.rail(&["ready"]);
    assert_eq!(stdout(&out), "docs  ready  paths: docs/**\n");
}

/// `rail ready` offers only work a claim would get (issue 46, item 2: it offered a task whose
/// paths another session held, and `rail claim` then refused it): such a task is busy, listed
/// with `--all` naming the holder, in aligned columns; the asking session's own claim makes
/// nothing busy for it.
#[test]
fn ready_leaves_out_a_task_whose_paths_another_session_holds() {
    let repo = Repo::new();
    let mut claims = repo.read("claims.md");
    claims.push_str(
        "\n## Backlog\n- [ ] ui-dark-mode | paths: src/ui/**\n- [ ] docs | paths: docs/**\n",
    );
    std::fs::write(repo.file("claims.md"), claims).unwrap();
    repo.git(&["commit", "-qam", "backlog"]);
    let held = repo.rail(&[
        "claim",
        "ui-polish",
        "--session",
        "session-c",
        "--path",
        "src/ui/**",
    ]);
    assert_eq!(code(&held), 0, "{}", stderr(&held));
    let out = repo.rail(&["ready", "--session", "alice"]);
    assert_eq!(stdout(&out), "docs  ready  paths: docs/**\n");
    let out = repo.rail(&["ready", "--all", "--session", "alice"]);
    assert_eq!(
        stdout(&out),
        "ui-dark-mode  busy   its paths or resources are held: session-c (ui-polish)  paths: src/ui/**\ndocs          ready  paths: docs/**\n"
    );
    // What `ready` offered, a claim gets; what it left out, a claim is refused.
    assert_eq!(
        code(&repo.rail(&["claim", "docs", "--session", "alice"])),
        0
    );
    assert_eq!(
        code(&repo.rail(&["claim", "ui-dark-mode", "--session", "alice"])),
        1
    );
    // For the holder itself the task is not busy.
    let out = repo.rail(&["ready", "--session", "session-c"]);
    assert_eq!(stdout(&out), "ui-dark-mode  ready  paths: src/ui/**\n");
}
