//! The CLI's commands on real repositories: exit codes, refusals, bad input that must never
//! touch the rail, crash recovery, the merge driver through `git merge`, and the pre-commit hook.

use crate::common::*;

#[test]
fn claim_renew_take_update_release_with_a_clock() {
    let repo = Repo::new();
    let at = |t: &str| format!("--now={t}");
    let out = repo.rail(&[
        "claim",
        "billing",
        "--session",
        "session-a",
        "--path",
        "src/billing/**",
        "--lease",
        "1h",
        &at("2026-10-22T14:05:00Z"),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        repo.holders("billing"),
        ["billing | session-a | 2026-10-22T14:05:00Z | lease: 1h | paths: src/billing/**"]
    );
    // Live: take is refused and the refusal names holder, age and lease left.
    let out = repo.rail(&[
        "take",
        "billing",
        "--session",
        "session-b",
        "--json",
        &at("2026-10-22T14:35:00Z"),
    ]);
    assert_eq!(code(&out), 1);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["refusal"]["kind"], "not-stale");
    assert_eq!(v["refusal"]["holder"], "session-a");
    assert_eq!(v["refusal"]["age_secs"], 1800);
    assert_eq!(v["refusal"]["lease_left_secs"], 1800);
    // Renewal moves the lease.
    let out = repo.rail(&[
        "renew",
        "billing",
        "--session",
        "session-a",
        &at("2026-10-22T14:50:00Z"),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(repo.holders("billing")[0].contains("renewed: 2026-10-22T14:50:00Z"));
    // Still live at 15:40; stale at 15:51.
    let out = repo.rail(&[
        "take",
        "billing",
        "--session",
        "session-b",
        &at("2026-10-22T15:40:00Z"),
    ]);
    assert_eq!(code(&out), 1);
    let out = repo.rail(&[
        "take",
        "billing",
        "--session",
        "session-b",
        "--reason",
        "session-a went quiet",
        &at("2026-10-22T15:51:00Z"),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        repo.holders("billing"),
        ["billing | session-b | 2026-10-22T15:51:00Z | lease: 1h | paths: src/billing/**"]
    );
    let log = repo.read("claims.log");
    assert!(
        log.contains(
            "| taken | billing | session-b | from: session-a | reason: session-a went quiet"
        ),
        "{log}"
    );
    // Update, then release with explicit touched files.
    let out = repo.rail(&[
        "update",
        "billing",
        "--session",
        "session-b",
        "--path",
        "src/billing/**",
        "--path",
        "docs/billing.md",
        "--purpose",
        "totals",
        &at("2026-10-22T16:00:00Z"),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(repo.holders("billing")[0]
        .ends_with("| paths: src/billing/**, docs/billing.md | purpose: totals"));
    // Adding keeps what the claim held, and the answer says what it holds now (issue 46,
    // item 1: following the hint `--path` had dropped README.md from the claim).
    let out = repo.rail(&[
        "update",
        "billing",
        "--session",
        "session-b",
        "--add-path",
        "src/tax/**",
        "--add-path",
        "docs/billing.md",
        "--add-resource",
        "port:4000",
        &at("2026-10-22T16:05:00Z"),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out).trim(),
        "updated billing: paths src/billing/**, docs/billing.md, src/tax/**; resources port:4000"
    );
    assert!(repo.holders("billing")[0].contains(
        "| paths: src/billing/**, docs/billing.md, src/tax/** | resources: port:4000 | purpose: totals"
    ), "{:?}", repo.holders("billing"));
    let out = repo.rail(&[
        "release",
        "billing",
        "--session",
        "session-b",
        "--touched",
        "src/billing/tax.rs",
        &at("2026-10-22T16:10:00Z"),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(repo.holders("billing").is_empty());
    assert!(repo
        .read("claims.log")
        .contains("| released | billing | session-b | touched: src/billing/tax.rs"));
    // Releasing again: not claimed.
    let out = repo.rail(&[
        "release",
        "billing",
        "--session",
        "session-b",
        "--no-touched",
    ]);
    assert_eq!(code(&out), 1);
}

#[test]
fn release_records_the_files_the_session_touched() {
    let repo = Repo::new();
    let wt = repo.path().parent().unwrap().join(format!(
        "{}-station",
        repo.path().file_name().unwrap().to_string_lossy()
    ));
    let out = repo.rail(&[
        "worktree",
        "search",
        "--session",
        "search-session",
        "--dir",
        wt.to_str().unwrap(),
        "--path",
        "src/search/**",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    std::fs::create_dir_all(wt.join("src/search")).unwrap();
    std::fs::write(wt.join("src/search/index.rs"), "fn main() {}\n").unwrap();
    git_in(&wt, &["add", "."]);
    git_in(
        &wt,
        &[
            "-c",
            "user.email=t@e.invalid",
            "-c",
            "user.name=t",
            "commit",
            "-qm",
            "index",
        ],
    );
    std::fs::write(wt.join("notes.txt"), "draft\n").unwrap();
    // Main moves on meanwhile: its new files are not the session's (diffed from the fork point).
    std::fs::write(repo.path().join("elsewhere.txt"), "main\n").unwrap();
    git_in(repo.path(), &["add", "elsewhere.txt"]);
    git_in(
        repo.path(),
        &[
            "-c",
            "user.email=t@e.invalid",
            "-c",
            "user.name=t",
            "commit",
            "-qm",
            "elsewhere",
        ],
    );
    // From inside the station: the rail is found in the main checkout, the session is the branch.
    let out = repo.rail_in(&wt, &["release", "search"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let log = repo.read("claims.log");
    assert!(
        log.contains(
            "| released | search | search-session | touched: notes.txt, src/search/index.rs"
        ),
        "{log}"
    );
    let _ = std::fs::remove_dir_all(&wt);
}

#[test]
fn bad_input_is_refused_with_exit_2_and_the_rail_untouched() {
    let repo = Repo::new();
    assert_eq!(code(&repo.rail(&["claim", "ok-task", "--session", "s"])), 0);
    let before = repo.read("claims.md");
    for args in [
        vec!["claim", "../x", "--session", "s"],
        vec!["claim", "a|b", "--session", "s"],
        vec!["claim", "x", "--session", "bad session"],
        vec!["claim", "x", "--session", "s", "--path", "/etc/passwd"],
        vec!["claim", "x", "--session", "s", "--lease", "soon"],
        vec!["claim", "x", "--session", "s", "--purpose", "two\nlines"],
        vec!["claim", "x", "--session", "s", "--frobnicate"],
        vec!["claim", "x", "--session", "s", "--now", "yesterday"],
        vec!["bogus-command"],
    ] {
        let out = repo.rail(&args);
        assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
        assert!(!stderr(&out).is_empty(), "{args:?} must explain itself");
        assert_eq!(repo.read("claims.md"), before, "{args:?} changed the rail");
    }
}

/// A duration that parses but is nothing says that zero is the problem, not its form.
#[test]
fn a_zero_lease_says_zero_is_the_problem() {
    let repo = Repo::new();
    for lease in ["0s", "0h0m"] {
        let out = repo.rail(&["claim", "x", "--session", "s", "--lease", lease]);
        assert_eq!(code(&out), 2, "{lease}: {}", stderr(&out));
        assert!(stderr(&out).contains("zero"), "{lease}: {}", stderr(&out));
        assert!(
            !stderr(&out).contains("expected a duration like"),
            "{lease}: {}",
            stderr(&out)
        );
    }
    let out = repo.rail(&["claim", "x", "--session", "s", "--lease", "soon"]);
    assert!(
        stderr(&out).contains("expected a duration like"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_corrupt_or_huge_claims_md_is_never_rewritten() {
    let repo = Repo::new();
    let path = repo.file("claims.md");
    // Not UTF-8.
    let garbage = b"ok | s | 2026-10-22T14:05Z\n\xff\xfe broken\n".to_vec();
    std::fs::write(&path, &garbage).unwrap();
    let out = repo.rail(&["claim", "x", "--session", "s"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("not valid UTF-8"), "{}", stderr(&out));
    assert_eq!(std::fs::read(&path).unwrap(), garbage);
    // Conflict markers left by a textual merge.
    let marked = "<<<<<<< HEAD\na | s | 2026-10-22T14:05Z\n=======\nb | t | 2026-10-22T14:06Z\n>>>>>>> other\n";
    std::fs::write(&path, marked).unwrap();
    let out = repo.rail(&["claim", "x", "--session", "s"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("claims.md:1 has a merge conflict marker"),
        "{}",
        stderr(&out)
    );
    // Core's hint, worded by the CLI as the command that avoids it.
    assert!(
        stderr(&out).contains("(rail's merge driver avoids these: `rail init`)"),
        "{}",
        stderr(&out)
    );
    let json = repo.rail(&["claim", "x", "--session", "s", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert_eq!(v["refusal"]["kind"], "conflict-marker");
    assert_eq!(v["refusal"]["hint"]["kind"], "merge-driver");
    assert_eq!(v["refusal"]["location"]["line"], 1);
    let validate = repo.rail(&["validate"]);
    assert!(
        stdout(&validate).contains(
            "error[conflict-marker]: merge conflict marker left in the rail; resolve it (rail's merge driver avoids these: `rail init`)"
        ),
        "{}",
        stdout(&validate)
    );
    assert_eq!(repo.read("claims.md"), marked);
    // 50 MB.
    let line = "filler | s | 2026-10-22T14:05Z\n";
    let big = line.repeat(50 * 1024 * 1024 / line.len());
    std::fs::write(&path, &big).unwrap();
    let out = repo.rail(&["claim", "x", "--session", "s"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("more than the 16 MB"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::metadata(&path).unwrap().len(), big.len() as u64);
}

#[test]
fn environment_problems_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(rail_bin())
        .args(["board"])
        .current_dir(dir.path())
        .env_remove("RAIL_DIR")
        .output()
        .unwrap();
    assert_eq!(code(&out), 3);
    assert!(stderr(&out).contains("not inside a git repository"));
    // A lock held by a live process: the wait times out, naming the holder.
    let repo = Repo::new();
    let mut holder = std::process::Command::new(rail_bin())
        .args(["claim", "slow", "--session", "holder"])
        .current_dir(repo.path())
        .env("RAIL_TEST_HOLD_MS", "3000")
        .spawn()
        .unwrap();
    wait_for(
        "the holder never locked",
        std::time::Duration::from_secs(60),
        || repo.file("claims.md.lock").exists(),
    );
    let out = repo.rail_env(
        &["claim", "other", "--session", "waiter"],
        &[("RAIL_LOCK_TIMEOUT_MS", "300")],
    );
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("held by {}@", holder.id())),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("is alive"), "{}", stderr(&out));
    holder.wait().unwrap();
}

/// A waiter says who holds the lock while it waits (issue 46, item 5: `rail claim` was silent
/// for the whole lock timeout behind a holder): the line comes once, after a second, and the
/// claim goes through when the holder is gone.
#[test]
fn a_waiter_says_who_holds_the_lock_while_it_waits() {
    use std::io::{BufRead, BufReader};
    let repo = Repo::new();
    let mut holder = std::process::Command::new(rail_bin())
        .args(["claim", "slow", "--session", "holder"])
        .current_dir(repo.path())
        .env("RAIL_TEST_HOLD_MS", "600000")
        .spawn()
        .unwrap();
    wait_for(
        "the holder never locked",
        std::time::Duration::from_secs(60),
        || repo.file("claims.md.lock").exists(),
    );
    let mut waiter = std::process::Command::new(rail_bin())
        .args(["claim", "other", "--session", "waiter"])
        .current_dir(repo.path())
        .env("RAIL_LOCK_TIMEOUT_MS", "600000")
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(waiter.stderr.take().unwrap()).lines();
    let said = lines.next().unwrap().unwrap();
    assert!(
        said.starts_with("rail: waiting for the rail lock: it is held by"),
        "{said}"
    );
    assert!(said.contains(&format!("{}@", holder.id())), "{said}");
    assert!(said.contains("is alive"), "{said}");
    // The holder dies; its lock is broken as a dead owner's, and the claim is made.
    holder.kill().unwrap();
    holder.wait().unwrap();
    let rest: Vec<String> = lines.map(|l| l.unwrap()).collect();
    assert!(waiter.wait().unwrap().success(), "{rest:?}");
    assert!(
        !rest.iter().any(|l| l.contains("waiting for")),
        "said once: {rest:?}"
    );
    assert_eq!(repo.holders("other").len(), 1);
}

/// The same while a `flock claims.md …` one-liner holds claims.md: the waiter says so, and
/// claims once the one-liner is done.
#[cfg(unix)]
#[test]
fn a_waiter_says_a_flock_holds_claims_md() {
    use std::io::{BufRead, BufReader};
    let repo = Repo::new();
    // `flock claims.md cat`: holds the lock until its stdin closes.
    let mut one_liner = std::process::Command::new("flock")
        .args(["claims.md", "-c", "echo locked; cat"])
        .current_dir(repo.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(one_liner.stdout.take().unwrap()).lines();
    assert_eq!(out.next().unwrap().unwrap(), "locked");
    let mut waiter = std::process::Command::new(rail_bin())
        .args(["claim", "other", "--session", "waiter"])
        .current_dir(repo.path())
        .env("RAIL_LOCK_TIMEOUT_MS", "600000")
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(waiter.stderr.take().unwrap()).lines();
    let said = lines.next().unwrap().unwrap();
    assert!(said.starts_with("rail: waiting for "), "{said}");
    assert!(
        said.contains("claims.md: another process holds its flock"),
        "{said}"
    );
    drop(one_liner.stdin.take());
    one_liner.wait().unwrap();
    let rest: Vec<String> = lines.map(|l| l.unwrap()).collect();
    assert!(waiter.wait().unwrap().success(), "{rest:?}");
    assert_eq!(repo.holders("other").len(), 1);
}

#[test]
fn merges_through_the_driver_are_clean_and_order_independent() {
    let repo = Repo::new();
    for t in ["shared-1", "shared-2"] {
        assert_eq!(
            code(&repo.rail(&[
                "claim",
                t,
                "--session",
                "s0",
                "--now",
                "2026-10-22T10:00:00Z"
            ])),
            0
        );
    }
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "rail"]);
    repo.git(&["branch", "left"]);
    repo.git(&["branch", "right"]);
    let commit_on = |branch: &str, ops: &[&[&str]]| {
        repo.git(&["checkout", "-q", branch]);
        for op in ops {
            let out = repo.rail(op);
            assert_eq!(code(&out), 0, "{op:?}: {}", stderr(&out));
        }
        repo.git(&["commit", "-qam", branch]);
    };
    commit_on(
        "left",
        &[
            &[
                "claim",
                "left-task",
                "--session",
                "l",
                "--now",
                "2026-10-22T11:00:00Z",
            ],
            &["release", "shared-1", "--session", "s0", "--no-touched"],
        ],
    );
    commit_on(
        "right",
        &[
            &[
                "claim",
                "right-task",
                "--session",
                "r",
                "--now",
                "2026-10-22T11:05:00Z",
            ],
            &[
                "renew",
                "shared-2",
                "--session",
                "s0",
                "--now",
                "2026-10-22T11:06:00Z",
            ],
        ],
    );
    let merged = |into: &str, from: &str| {
        repo.git(&["checkout", "-q", "-B", &format!("m-{into}"), into]);
        repo.git(&["merge", "-q", "--no-edit", from]);
        repo.read("claims.md")
    };
    let a = merged("left", "right");
    let b = merged("right", "left");
    assert_eq!(a, b, "merging in either order gives identical files");
    assert!(!a.contains("<<<<<<<") && !a.contains(">>>>>>>"));
    for (task, n) in [
        ("left-task", 1),
        ("right-task", 1),
        ("shared-1", 0),
        ("shared-2", 1),
    ] {
        assert_eq!(
            a.lines()
                .filter(|l| l.starts_with(&format!("{task} |")))
                .count(),
            n,
            "{task} in {a}"
        );
    }
    assert!(a.contains("renewed: 2026-10-22T11:06:00Z"));
}

#[test]
fn the_pre_commit_hook_blocks_another_sessions_paths_and_chains_the_old_hook() {
    let repo = Repo::new();
    let hooks = repo.path().join(".git/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    let user_hook = hooks.join("pre-commit");
    std::fs::write(
        &user_hook,
        "#!/bin/sh\necho user-hook-ran >> \"$(git rev-parse --git-dir)/user-hook.log\"\n",
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&user_hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let out = repo.rail(&["init", "--hooks"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(hooks.join("pre-commit.rail-chained").exists());
    // Idempotent.
    let again = repo.rail(&["init", "--hooks"]);
    assert!(
        stdout(&again).contains("already set up"),
        "{}",
        stdout(&again)
    );

    assert_eq!(
        code(&repo.rail(&[
            "claim",
            "auth",
            "--session",
            "session-a",
            "--path",
            "src/auth/**"
        ])),
        0
    );
    repo.git(&["checkout", "-q", "-b", "session-b"]);
    std::fs::create_dir_all(repo.file("src/auth")).unwrap();
    std::fs::write(repo.file("src/auth/token.ts"), "x\n").unwrap();
    repo.git(&["add", "src/auth/token.ts"]);
    let out = std::process::Command::new("git")
        .args(["commit", "-qm", "sneaky"])
        .current_dir(repo.path())
        .output()
        .unwrap();
    assert!(!out.status.success(), "the commit must be blocked");
    // git passes hook output through on stderr.
    let err = stderr(&out);
    assert!(err.contains("session-a"), "{err}");
    assert!(err.contains("src/auth/token.ts"), "{err}");
    assert!(
        std::fs::read_to_string(repo.path().join(".git/user-hook.log"))
            .unwrap()
            .contains("user-hook-ran")
    );
    // A file nobody holds commits fine.
    repo.git(&["reset", "-q"]);
    std::fs::write(repo.file("README"), "hi\n").unwrap();
    repo.git(&["add", "README"]);
    let out = std::process::Command::new("git")
        .args(["commit", "-qm", "fine"])
        .current_dir(repo.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn validate_prints_file_line_col() {
    let repo = Repo::new();
    std::fs::write(
        repo.file("claims.md"),
        "# Claims\nça | s | 2026-10-22T14:05Z\n😀x | s | nope\n",
    )
    .unwrap();
    let out = repo.rail(&["validate"]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stdout(&out).lines().next().unwrap(),
        "claims.md:3:1: error[invalid-task]: task id `😀x` must start with a letter or digit"
    );
    let out = repo.rail(&["validate", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v[1]["code"], "bad-time");
    // `😀x | s | ` is 9 characters but 10 UTF-16 units (the emoji is a surrogate pair).
    assert_eq!(v[1]["column"], 10, "one-based column in characters");
    assert_eq!(
        v[1]["range"]["start"]["character"], 10,
        "zero-based UTF-16 offset"
    );
    assert_eq!(v[1]["range"]["start"]["line"], 2);
}

#[test]
fn who_and_check_name_the_holder() {
    let repo = Repo::new();
    assert_eq!(
        code(&repo.rail(&["claim", "auth", "--session", "a", "--path", "src/auth/**"])),
        0
    );
    assert_eq!(
        code(&repo.rail(&["claim", "ui", "--session", "b", "--path", "web/**"])),
        0
    );
    let out = repo.rail(&["who", "src/auth/token.ts", "README.md"]);
    assert_eq!(
        stdout(&out),
        "src/auth/token.ts: a (auth, live) via `src/auth/**`\nREADME.md: nobody\n"
    );
    // A directory names what is under it, as a write of it would (issue 46, item 3: `rail who
    // src/auth` said nobody while `src/auth/**` was held).
    let out = repo.rail(&["who", "src/auth", "src", "src/", "web/index.html", "docs"]);
    assert_eq!(
        stdout(&out),
        "src/auth: a (auth, live) via `src/auth/**`\nsrc: a (auth, live) via `src/auth/**`\nsrc: a (auth, live) via `src/auth/**`\nweb/index.html: b (ui, live) via `web/**`\ndocs: nobody\n"
    );
    let out = repo.rail(&[
        "check",
        "--session",
        "b",
        "web/index.html",
        "src/auth/token.ts",
        "docs/x.md",
    ]);
    assert_eq!(code(&out), 1);
    let text = stdout(&out);
    assert!(text.contains("in scope: web/index.html"), "{text}");
    assert!(
        text.contains(
            "HELD BY ANOTHER SESSION: src/auth/token.ts — held by a (auth, `src/auth/**`)"
        ),
        "{text}"
    );
    assert!(
        text.contains("OUT OF SCOPE: docs/x.md (unclaimed)"),
        "{text}"
    );
    let out = repo.rail(&[
        "check",
        "--session",
        "b",
        "--warn-drift",
        "web/a",
        "docs/x.md",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

#[test]
fn lock_command_shows_and_breaks_only_dead_owners() {
    let repo = Repo::new();
    let out = repo.rail(&["lock"]);
    assert_eq!(stdout(&out), "the rail lock is free\n");
    // A lock of a live process (this test) cannot be broken without --force.
    let me = std::process::id();
    let host = rustix_hostname();
    std::fs::write(
        repo.file("claims.md.lock"),
        format!("pid: {me}\nhost: {host}\nsession: x\ncommand: test\nstarted: 2026-10-22T14:05:00Z\nnonce: abc123\n"),
    )
    .unwrap();
    let out = repo.rail(&["lock"]);
    assert!(
        stdout(&out).contains(&format!("held by {me}@{host}")),
        "{}",
        stdout(&out)
    );
    assert!(stdout(&out).contains("is alive"));
    let out = repo.rail(&["lock", "--break", "--session", "s"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(repo.file("claims.md.lock").exists());
    let out = repo.rail(&["lock", "--break", "--force", "--session", "s"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(!repo.file("claims.md.lock").exists());
    assert!(repo
        .read("claims.log")
        .contains("| lock-broken | - | s | holder:"));
}

fn rustix_hostname() -> String {
    String::from_utf8(
        std::process::Command::new("uname")
            .arg("-n")
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap()
    .trim()
    .to_string()
}

/// A complete journal whose checksums match but which names a file outside the rail was not
/// written by Rail: it is neither replayed nor dropped, and the command says which file.
#[test]
fn a_journal_naming_a_file_outside_the_rail_is_never_replayed() {
    use rail_core::formats::journal::{render, JournalEntry};
    for hostile in [
        "../escaped.txt",
        ".git/config",
        "/tmp/rail-journal-escape",
        "claims/../x.yaml",
        "src/main.rs",
    ] {
        let repo = Repo::new();
        assert_eq!(code(&repo.rail(&["claim", "a", "--session", "s"])), 0);
        let claims = repo.read("claims.md");
        let git_config = repo.read(".git/config");
        let journal = render(&[
            JournalEntry::file("claims.md", "hijacked | evil | 2026-10-22T14:05Z\n"),
            JournalEntry::file(hostile, "pwned\n"),
        ]);
        std::fs::write(repo.file("claims.md.journal"), &journal).unwrap();
        let out = repo.rail(&["claim", "b", "--session", "s"]);
        assert_eq!(code(&out), 3, "{hostile}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains("claims.md.journal"), "{hostile}: {err}");
        assert!(err.contains(hostile), "{hostile}: {err}");
        assert!(err.contains("not replayed"), "{hostile}: {err}");
        assert_eq!(repo.read("claims.md"), claims, "{hostile}");
        assert_eq!(repo.read(".git/config"), git_config, "{hostile}");
        assert!(!repo.path().parent().unwrap().join("escaped.txt").exists());
        assert!(!std::path::Path::new("/tmp/rail-journal-escape").exists());
        assert!(!repo.file("src/main.rs").exists());
        assert_eq!(
            std::fs::read(repo.file("claims.md.journal")).unwrap(),
            journal
        );
    }
}

#[test]
fn a_failed_station_keeps_a_claim_the_session_already_held() {
    let repo = Repo::new();
    let out = repo.rail(&["claim", "auth", "--session", "auth"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // git worktree add refuses a directory that exists and is not empty.
    let taken = repo.path().join("occupied");
    std::fs::create_dir_all(&taken).unwrap();
    std::fs::write(taken.join("file"), "x").unwrap();
    let out = repo.rail(&["worktree", "auth", "--dir", taken.to_str().unwrap()]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("creating the worktree"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        repo.holders("auth").len(),
        1,
        "the claim held before stays held"
    );
    // A claim the failed station made itself is undone.
    let out = repo.rail(&["worktree", "billing", "--dir", taken.to_str().unwrap()]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(repo.holders("billing").is_empty());
}

#[test]
fn take_records_the_takers_branch() {
    let repo = Repo::new();
    let out = repo.rail(&[
        "claim",
        "t",
        "--session",
        "old",
        "--now",
        "2026-10-22T10:00:00Z",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = repo.rail(&[
        "take",
        "t",
        "--session",
        "new",
        "--branch",
        "feature-x",
        "--now",
        "2026-10-22T15:00:00Z",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let holders = repo.holders("t");
    assert_eq!(holders.len(), 1, "{holders:?}");
    assert!(
        holders[0].starts_with("t | new |") && holders[0].contains("branch: feature-x"),
        "{holders:?}"
    );
}

#[test]
fn merge_driver_refuses_a_side_that_already_holds_conflict_markers() {
    // Issue 17, finding 11: a side carrying markers from an earlier textual merge was merged
    // through and the driver exited 0, so git recorded claims.md as resolved, markers and all.
    let repo = Repo::new();
    let claim = |task: &str, session: &str| {
        let out = repo.rail(&[
            "claim",
            task,
            "--session",
            session,
            "--now",
            "2026-10-22T10:00:00Z",
        ]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    };
    claim("base-task", "s0");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "rail"]);
    repo.git(&["checkout", "-q", "-b", "marked"]);
    let marked = format!(
        "{}<<<<<<< HEAD\nx | a | 2026-10-22T10:01:00Z\n=======\nx | b | 2026-10-22T10:02:00Z\n>>>>>>> other\n",
        repo.read("claims.md")
    );
    std::fs::write(repo.file("claims.md"), &marked).unwrap();
    repo.git(&["commit", "-qam", "a bad hand merge"]);
    repo.git(&["checkout", "-q", "main"]);
    claim("main-task", "s1");
    repo.git(&["commit", "-qam", "main claims"]);
    let ours = repo.read("claims.md");
    let line = marked.lines().position(|l| l == "<<<<<<< HEAD").unwrap() + 1;

    let out = std::process::Command::new("git")
        .args(["merge", "--no-edit", "marked"])
        .current_dir(repo.path())
        .output()
        .unwrap();
    assert!(!out.status.success(), "git must report a conflict");
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "rail merge claims.md: theirs already holds a conflict marker at line {line} (`<<<<<<< HEAD`)"
        )),
        "{err}"
    );
    assert_eq!(
        repo.git(&["diff", "--name-only", "--diff-filter=U"]).trim(),
        "claims.md",
        "claims.md is left conflicted, not resolved"
    );
    assert_eq!(repo.read("claims.md"), ours, "%A stays ours, as it was");

    // The driver itself: exit 1, %A untouched.
    let dir = tempfile::tempdir().unwrap();
    let (b, o, t) = (
        dir.path().join("b"),
        dir.path().join("o"),
        dir.path().join("t"),
    );
    std::fs::write(&b, "").unwrap();
    std::fs::write(&o, &marked).unwrap();
    std::fs::write(&t, "y | c | 2026-10-22T10:03:00Z\n").unwrap();
    let out = repo.rail(&[
        "merge-driver",
        b.to_str().unwrap(),
        o.to_str().unwrap(),
        t.to_str().unwrap(),
        "claims.md",
    ]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains("ours"), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&o).unwrap(), marked);
}

#[test]
fn terminal_control_sequences_from_files_are_printed_as_escapes() {
    // Issue 17, finding 7: a purpose, a lock's host and session, and the messages quoting them
    // printed OSC/CSI sequences raw (window title, screen clear, OSC 52 clipboard writes).
    let repo = Repo::new();
    let esc = "\u{1b}]0;pwned\u{7}\u{1b}[2J\u{1b}]52;c;ZXZpbA==\u{7}\u{202e}";
    std::fs::write(
        repo.file("claims.md"),
        format!(
            "a | s | 2026-10-22T14:05Z | purpose: x{esc}\u{0}\nb{esc} | s | 2026-10-22T14:05Z\n"
        ),
    )
    .unwrap();
    let no_raw = |what: &str, text: &str| {
        assert!(
            !text.chars().any(rail_core::text::is_unsafe_char),
            "{what} prints a raw control character: {text:?}"
        );
    };
    let now = ["--now", "2026-10-22T15:00:00Z"];
    let out = repo.rail(&["board", now[0], now[1]]);
    no_raw("board", &stdout(&out));
    assert!(
        stdout(&out).contains("x\\u{1b}]0;pwned\\u{7}"),
        "{}",
        stdout(&out)
    );
    let out = repo.rail(&["claim", "a", "--session", "t", now[0], now[1]]);
    assert_eq!(code(&out), 1);
    no_raw("a refusal", &stderr(&out));
    // validate warns, with line and column, where it used to be silent (the NUL too).
    let out = repo.rail(&["validate"]);
    let text = stdout(&out);
    no_raw("validate", &text);
    assert!(
        text.contains("claims.md:1:39: warning[control-character]"),
        "{text}"
    );
    std::fs::write(
        repo.file("claims.md.lock"),
        format!("pid: 1\nhost: h{esc}\nsession: x{esc}\ncommand: test{esc}\nstarted: 2026-10-22T14:05:00Z\nnonce: abc123\n"),
    )
    .unwrap();
    let out = repo.rail(&["lock"]);
    no_raw("rail lock", &stdout(&out));
    no_raw("rail lock", &stderr(&out));
    assert!(
        stdout(&out).contains("h\\u{1b}]0;pwned"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn claim_after_unclosed_fence_is_refused() {
    // Issue 17, finding 4: claims.md ending inside an unclosed fence (or comment) took the new
    // claim line into it, where it is not a claim: `rail claim` said yes, a second session got
    // the same task, `rail who` said nobody and `rail validate` found no problem.
    for (tail, opening) in [
        ("```\nold | x | 2026-10-20T09:00Z\n", "claims.md:3:1"),
        ("<!-- old claims\n", "claims.md:3:1"),
    ] {
        let repo = Repo::new();
        let text = format!("# Claims\n\n{tail}");
        std::fs::write(repo.file("claims.md"), &text).unwrap();
        for session in ["s1", "s2"] {
            let out = repo.rail(&[
                "claim",
                "auth",
                "--session",
                session,
                "--path",
                "src/auth/**",
            ]);
            assert_eq!(code(&out), 2, "{}", stderr(&out));
            assert!(
                stderr(&out).contains(opening) && stderr(&out).contains("never closed"),
                "{}",
                stderr(&out)
            );
        }
        assert_eq!(repo.read("claims.md"), text, "a refusal changes nothing");
        let out = repo.rail(&["claim", "auth", "--session", "s1", "--json"]);
        let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(v["refusal"]["kind"], "hidden-claim");
        assert_eq!(v["refusal"]["location"]["line"], 3);
        let out = repo.rail(&["validate"]);
        assert!(
            stdout(&out).contains(&format!("{opening}: warning[unclosed-block]")),
            "{}",
            stdout(&out)
        );
    }
}

#[test]
fn confusable_task_is_refused_and_validate_warns() {
    // Issue 17, finding 8: `аuth` (Cyrillic а) and `auth` were claimed by two sessions and
    // validate was silent.
    let repo = Repo::new();
    let now = ["--now", "2026-10-22T15:00:00Z"];
    let out = repo.rail(&["claim", "auth", "--session", "s1", now[0], now[1]]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let before = repo.read("claims.md");
    let out = repo.rail(&["claim", "\u{430}uth", "--session", "s2", now[0], now[1]]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("\u{430}uth looks like task auth but is a different name")
            && stderr(&out).contains("U+0430 (Cyrillic)")
            && stderr(&out).contains("held by s1"),
        "{}",
        stderr(&out)
    );
    assert_eq!(repo.read("claims.md"), before, "a refusal changes nothing");
    // ASCII look-alikes are different tasks people tell apart.
    let out = repo.rail(&["claim", "l1", "--session", "s2", now[0], now[1]]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = repo.rail(&["claim", "ll", "--session", "s3", now[0], now[1]]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));

    // Written by hand (or by an old rail), the pair is flagged on both lines.
    std::fs::write(
        repo.file("claims.md"),
        format!("{before}\u{430}uth | s2 | 2026-10-22T14:06Z\n"),
    )
    .unwrap();
    let out = repo.rail(&["validate", now[0], now[1]]);
    let text = stdout(&out);
    let last = repo.read("claims.md").lines().count();
    assert!(
        text.contains(&format!(
            "claims.md:{last}:1: warning[confusable-name]: task id `\u{430}uth` looks like `auth`"
        )),
        "{text}"
    );
    assert_eq!(text.matches("confusable-name").count(), 2, "{text}");
}

/// A branch carrying an old claim (bob's, months ago, long stale) merged after alice claimed the
/// task now: the driver follows the board's rule, so alice's live claim stays, bob's stale one
/// is dropped, and the drop is named in claims.log with the line as written, in either order.
#[test]
fn a_merge_never_drops_a_live_claim_for_a_stale_one() {
    for into_old in [false, true] {
        let repo = Repo::new();
        let out = repo.rail(&["init", "--hooks"]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-qm", "hooks", "--allow-empty"]);
        // The branch comes from elsewhere (a clone, months ago): its claim was never made on
        // this rail, so Rail has no record of it to put back.
        repo.git(&["checkout", "-q", "-b", "old"]);
        let mut claims = repo.read("claims.md");
        claims.push_str("auth | bob | 2026-06-01T10:00:00Z\n");
        std::fs::write(repo.file("claims.md"), claims).unwrap();
        repo.git(&["commit", "-qam", "bob claims auth"]);
        repo.git(&["checkout", "-q", "main"]);
        // Alice claims it now, by the real clock: her lease has not run out.
        let out = repo.rail(&["claim", "auth", "--session", "alice"]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        repo.git(&["commit", "-qam", "alice claims auth"]);
        if into_old {
            repo.git(&["checkout", "-q", "old"]);
            repo.git(&["merge", "-q", "--no-edit", "main"]);
        } else {
            repo.git(&["merge", "-q", "--no-edit", "old"]);
        }
        let holders = repo.holders("auth");
        assert_eq!(holders.len(), 1, "{holders:?}");
        assert!(holders[0].starts_with("auth | alice |"), "{holders:?}");
        let log = repo.read("claims.log");
        let dropped = log
            .lines()
            .find(|l| l.contains("| dropped | auth | bob |"))
            .unwrap_or_else(|| panic!("no drop logged: {log}"));
        assert!(dropped.contains("kept: alice"), "{dropped}");
        assert!(
            dropped.contains("auth \\| bob \\| 2026-06-01T10:00:00Z"),
            "the dropped line is recoverable from the log: {dropped}"
        );
        // A third session cannot take the task alice holds.
        let out = repo.rail(&["take", "auth", "--session", "carol"]);
        assert_eq!(code(&out), 1, "{}", stderr(&out));
    }
}

/// `rail.remote` is read from git's own files, as git reads them, with no git process once the
/// files' places are known (issue 30: `git config --get` ran on every command); where this reader
/// cannot be sure (an include, config from the environment) git itself is asked. Each case is
/// checked against what the real git says.
#[cfg(unix)]
#[test]
fn the_shared_remote_is_read_as_git_reads_it_and_without_git_where_it_can_be() {
    let repo = Repo::new();
    let home = tempfile::tempdir().unwrap();
    let bin = tempfile::tempdir().unwrap();
    let (path, calls) = logging_git(bin.path());
    let system = home.path().join("system-gitconfig");
    let home_s = home.path().to_str().unwrap().to_string();
    let system_s = system.to_str().unwrap().to_string();
    let base = [
        ("PATH".to_string(), path.clone()),
        ("HOME".to_string(), home_s.clone()),
        ("XDG_CONFIG_HOME".to_string(), format!("{home_s}/xdg")),
        ("GIT_CONFIG_SYSTEM".to_string(), system_s.clone()),
        ("RAIL_SESSION".to_string(), "s".to_string()),
    ];
    let write = |p: &std::path::Path, text: &str| {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    let local = repo.file(".git/config");
    let local_text = std::fs::read_to_string(&local).unwrap();
    let global = home.path().join(".gitconfig");
    let xdg = home.path().join("xdg/git/config");
    // (case, files to write, extra environment, whether git must be asked)
    type Case<'a> = (
        &'a str,
        Vec<(std::path::PathBuf, String)>,
        Vec<(&'a str, &'a str)>,
        bool,
    );
    let cases: Vec<Case> = vec![
        ("nothing set", vec![], vec![], false),
        ("global", vec![(global.clone(), "[rail]\n\tremote = /nowhere/global\n".into())], vec![], false),
        (
            "xdg then home",
            vec![
                (xdg.clone(), "[rail]\n\tremote = /nowhere/xdg\n".into()),
                (global.clone(), "[user]\n\tname = x\n".into()),
            ],
            vec![],
            false,
        ),
        (
            "local over global",
            vec![
                (global.clone(), "[rail]\n\tremote = /nowhere/global\n".into()),
                (local.clone(), format!("{local_text}[Rail]\n\tRemote = \"/nowhere/local\" # mine\n")),
            ],
            vec![],
            false,
        ),
        ("system", vec![(system.clone(), "[rail]\nremote=/nowhere/system\n".into())], vec![], false),
        (
            "worktree config",
            vec![
                (
                    local.clone(),
                    format!("{local_text}[extensions]\n\tworktreeConfig = true\n[rail]\n\tremote = /nowhere/local\n"),
                ),
                (repo.file(".git/config.worktree"), "[rail]\n\tremote = /nowhere/worktree\n".into()),
            ],
            vec![],
            false,
        ),
        (
            "include",
            vec![
                (global.clone(), "[include]\n\tpath = inc\n".into()),
                (home.path().join("inc"), "[rail]\n\tremote = /nowhere/included\n".into()),
            ],
            vec![],
            true,
        ),
        (
            "environment",
            vec![],
            vec![
                ("GIT_CONFIG_COUNT", "1"),
                ("GIT_CONFIG_KEY_0", "rail.remote"),
                ("GIT_CONFIG_VALUE_0", "/nowhere/env"),
            ],
            true,
        ),
    ];
    for (i, (case, files, extra, asks_git)) in cases.into_iter().enumerate() {
        for p in [&global, &xdg, &system, &repo.file(".git/config.worktree")] {
            let _ = std::fs::remove_file(p);
        }
        std::fs::write(&local, &local_text).unwrap();
        for (p, text) in &files {
            write(p, text);
        }
        let mut env: Vec<(&str, &str)> =
            base.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        env.extend(extra.iter().copied());
        // What git says, with the same environment.
        let mut git = std::process::Command::new("git");
        git.args(["config", "--get", "rail.remote"])
            .current_dir(repo.path());
        for (k, v) in &env {
            git.env(k, v);
        }
        let want = String::from_utf8(git.output().unwrap().stdout).unwrap();
        let want = want.trim();
        // Learn the places once, outside the count.
        let _ = repo.rail_env(&["board"], &env);
        let _ = std::fs::remove_file(&calls);
        let task = format!("t{i}");
        let out = repo.rail_env(&["claim", &task], &env);
        if want.is_empty() {
            assert_eq!(code(&out), 0, "{case}: {}", stderr(&out));
        } else {
            assert_ne!(code(&out), 0, "{case}: the remote {want} went unseen");
            assert!(stderr(&out).contains(want), "{case}: {}", stderr(&out));
        }
        let calls = std::fs::read_to_string(&calls).unwrap_or_default();
        let asked = calls.lines().any(|l| l.starts_with("config"));
        assert_eq!(asked, asks_git, "{case}: git processes: {calls}");
        if !asks_git && want.is_empty() {
            assert_eq!(calls, "", "{case}: a local claim ran git");
        }
    }
}

/// Issue 31 finding 6: a claim timestamped in the future (`--now 2099-…`, or a machine whose
/// clock runs ahead) held forever ("26327d4h left of 2h"), `take` was refused and `validate`
/// said nothing. Its lease now counts from when this machine saw it (claims.md's mtime, by the
/// local clock), so it runs out by the local clock; `validate` names the time as a warning.
#[test]
fn a_claim_from_the_future_runs_out_by_the_local_clock() {
    let repo = Repo::new();
    let out = repo.rail(&[
        "claim",
        "t1",
        "--session",
        "alice",
        "--lease",
        "2h",
        "--now",
        "2099-01-01T00:00Z",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // "Now" as the local clock has it, in whole minutes after claims.md was written.
    let written = chrono::DateTime::<chrono::Utc>::from(
        std::fs::metadata(repo.file("claims.md"))
            .unwrap()
            .modified()
            .unwrap(),
    );
    let at = |minutes: i64| {
        format!(
            "--now={}",
            (written + chrono::TimeDelta::minutes(minutes)).format("%Y-%m-%dT%H:%M:%SZ")
        )
    };
    // An hour later by the local clock: one hour left of two, not decades.
    let out = repo.rail(&["board", "--json", &at(60)]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let board: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let claim = &board["claims"][0];
    assert_eq!(claim["state"], "live", "{claim}");
    let left = claim["lease_left_secs"].as_i64().unwrap();
    assert!(left <= 3600 && left > 3500, "{claim}");
    assert!(claim["age_secs"].as_i64().unwrap() >= 3500, "{claim}");
    let out = repo.rail(&["take", "t1", "--session", "bob", &at(60)]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    // validate warns, at the time's line and column, and still exits 0 (a warning).
    let out = repo.rail(&["validate", &at(60)]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("claims.md:")
            && text.contains("future-time")
            && text.contains("2099-01-01T00:00:00Z"),
        "{text}"
    );
    let line = text.lines().find(|l| l.contains("future-time")).unwrap();
    let col = repo.holders("t1")[0].find("2099").unwrap() + 1;
    assert!(line.contains(&format!(":{col}")), "{line}");
    // Once the lease ran out by the local clock, bob takes it.
    let out = repo.rail(&["take", "t1", "--session", "bob", &at(121)]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(repo.holders("t1")[0].starts_with("t1 | bob |"));
}

/// Issue 28 finding 6: `rail release` appended `released:`/`touched:` at column 0 of a claim
/// file indented as a whole (valid YAML, validated cleanly), so the file became a YAML error,
/// the claim counted as live again and bob was refused, after Rail printed "released auth".
/// Every edit of a claim file (release, renew, update) writes at the document's own
/// indentation, and the edited file reads back as what was meant.
#[test]
fn edits_of_an_indented_claim_file_keep_it_valid() {
    let repo = Repo::new();
    std::fs::create_dir_all(repo.file("claims")).unwrap();
    let write = |name: &str, text: &str| std::fs::write(repo.file(name), text).unwrap();
    let validate_clean = |what: &str| {
        let out = repo.rail(&["validate"]);
        assert_eq!(
            stdout(&out).trim(),
            "no problems found",
            "{what}: {}{}",
            stdout(&out),
            stderr(&out)
        );
    };
    write(
        "claims/alice.yaml",
        "  owner: alice\n  task: auth\n  paths: [src/auth/**]\n",
    );
    validate_clean("as written");
    // renew and update rewrite and add keys in place.
    let out = repo.rail(&["renew", "auth", "--session", "alice"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    validate_clean("after renew");
    let out = repo.rail(&[
        "update",
        "auth",
        "--session",
        "alice",
        "--path",
        "src/auth/**",
        "--path",
        "src/login/**",
        "--resource",
        "port:3000",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    validate_clean("after update");
    let out = repo.rail(&["board", "--json"]);
    let board: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        board["claims"][0]["paths"],
        serde_json::json!(["src/auth/**", "src/login/**"]),
        "{}",
        repo.read("claims/alice.yaml")
    );
    assert_eq!(
        board["claims"][0]["resources"],
        serde_json::json!(["port:3000"])
    );
    // release: the file parses cleanly, the claim is released, and bob can claim the task.
    let out = repo.rail(&[
        "release",
        "auth",
        "--session",
        "alice",
        "--touched",
        "src/auth/a.ts",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = repo.read("claims/alice.yaml");
    assert!(text.starts_with("  owner: alice\n  task: auth\n"), "{text}");
    validate_clean("after release");
    let out = repo.rail(&["board", "--json"]);
    let board: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(board["claims"].as_array().unwrap().len(), 0, "{text}");
    assert_eq!(
        board["released"][0]["touched"],
        serde_json::json!(["src/auth/a.ts"])
    );
    let out = repo.rail(&["claim", "auth", "--session", "bob"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
}

/// The `pid` field of `task`'s claims.md line.
#[cfg(unix)]
fn pid_field(repo: &Repo, task: &str) -> String {
    let line = repo.holders(task).pop().unwrap();
    line.split("pid: ")
        .nth(1)
        .and_then(|rest| rest.split([' ', '|']).next())
        .unwrap_or_else(|| panic!("no pid in {line}"))
        .to_string()
}

/// Issue 28 finding 7: a claim's `pid: PID@HOST` recorded no start time, so once the owner died
/// and its pid was reused the claim was "owner alive" past its lease forever. Claims record the
/// owner's start time (`PID@HOST/START`); a live process with that pid that started at another
/// time is not the owner. Real processes: a live owner keeps its claim past the lease, a live
/// process under the same pid with another start time does not, a killed owner frees it at once.
#[cfg(unix)]
#[test]
fn a_reused_pid_is_not_the_claims_owner() {
    let repo = Repo::new();
    let mut owner = std::process::Command::new("sleep")
        .arg("600")
        .spawn()
        .unwrap();
    let id = owner.id().to_string();
    let out = repo.rail(&[
        "claim",
        "t1",
        "--session",
        "alice",
        "--pid",
        &id,
        "--lease",
        "1h",
        "--now",
        "2026-10-22T14:00Z",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let pid = pid_field(&repo, "t1");
    // PID@HOST/START: the start time as the OS counts it.
    let (who, start) = pid
        .rsplit_once('/')
        .unwrap_or_else(|| panic!("no start time in {pid}"));
    assert!(who.starts_with(&format!("{id}@")), "{pid}");
    let start: u64 = start.parse().unwrap();
    // Past its lease, the live owner keeps it.
    let late = "--now=2026-10-22T18:00Z";
    let out = repo.rail(&["take", "t1", "--session", "bob", late]);
    let said = format!("{}{}", stdout(&out), stderr(&out));
    assert_eq!(code(&out), 1, "{said}");
    assert!(said.contains("alive"), "{said}");
    // The same pid, but a process that started after the recorded owner: not the owner.
    let claims = repo.read("claims.md");
    let reused = claims.replace(&pid, &format!("{who}/{}", start.saturating_sub(1)));
    std::fs::write(repo.file("claims.md"), reused).unwrap();
    let out = repo.rail(&["board", "--json", late]);
    let board: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        board["claims"][0]["state"], "stale",
        "{}",
        board["claims"][0]
    );
    let out = repo.rail(&["take", "t1", "--session", "bob", late]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    // An old claim without a start time still reads, and its live pid still counts as alive.
    let out = repo.rail(&[
        "claim",
        "t2",
        "--session",
        "carol",
        "--pid",
        who,
        "--lease",
        "1h",
        "--now",
        "2026-10-22T14:00Z",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(pid_field(&repo, "t2"), who);
    let out = repo.rail(&["take", "t2", "--session", "bob", late]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    // The owner dies: its claim is free at once, well within its lease.
    let out = repo.rail(&[
        "claim",
        "t3",
        "--session",
        "dave",
        "--pid",
        &id,
        "--lease",
        "1h",
        "--now",
        "2026-10-22T14:00Z",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    owner.kill().unwrap();
    owner.wait().unwrap();
    let out = repo.rail(&["take", "t3", "--session", "bob", "--now=2026-10-22T14:05Z"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
}

/// A session whose stale claim another session took is told at its agent's next hook call on
/// this machine (the call is stopped once, naming the taker and the reason), not only by the
/// log (issue 31: a lost claim is reported to its session). A session whose hook was never seen
/// here gets no notice left for it.
#[test]
fn a_session_whose_claim_was_taken_is_told_at_its_next_hook_call() {
    let repo = Repo::new();
    let bash = claude_bash(repo.path(), "ls");
    for (task, session) in [("billing", "session-a"), ("ui", "session-c")] {
        let out = repo.rail(&[
            "claim",
            task,
            "--session",
            session,
            "--lease",
            "1h",
            "--now=2026-10-22T14:05:00Z",
        ]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    }
    // session-a's agent works here (its hook has run); session-c's never did.
    let seen = hook_call("claude", repo.path(), &bash, Some("session-a"), &[]);
    assert_eq!(code(&seen), 0, "{}", stderr(&seen));
    for task in ["billing", "ui"] {
        let out = repo.rail(&[
            "take",
            task,
            "--session",
            "session-b",
            "--reason",
            "went quiet",
            "--now=2026-10-22T16:00:00Z",
        ]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    }
    let told = hook_call("claude", repo.path(), &bash, Some("session-a"), &[]);
    assert_eq!(code(&told), 2, "{}", stderr(&told));
    let said = stderr(&told);
    assert!(
        said.contains("session-a's claim of billing is no longer theirs")
            && said.contains("session-b took it (went quiet)")
            && said.contains("session-b holds billing"),
        "{said}"
    );
    let next = hook_call("claude", repo.path(), &bash, Some("session-a"), &[]);
    assert_eq!(code(&next), 0, "told once: {}", stderr(&next));
    let taker = hook_call("claude", repo.path(), &bash, Some("session-b"), &[]);
    assert_eq!(code(&taker), 0, "{}", stderr(&taker));
    let common = repo.git(&["rev-parse", "--git-common-dir"]);
    let notices = repo.path().join(common.trim()).join("rail/notices");
    assert!(
        !notices.join("session-c").exists(),
        "no notice left where session-c's hook never ran"
    );
}

/// The board says each thing once (issue 46, item 6): a claim's time once, each conflict once
/// (not again under DIAGNOSTICS), a pattern two sessions both claim as such, no resource held by
/// a claim that lost its task, one line for sessions no hook was seen for, counts in the
/// singular for one; and it exits 1 on the errors `rail validate` fails on.
#[test]
fn the_board_says_each_thing_once() {
    let repo = Repo::new();
    let mut claims = repo.read("claims.md");
    claims.push_str(
        "ui-x | session-e | 2026-10-22T14:00Z | paths: src/ui/**\n\
         ui-x | session-f | 2026-10-22T14:01Z | resources: port:3000\n\
         server | session-g | 2026-10-22T14:02Z | resources: port:3000\n\
         dark | session-i | 2026-10-22T14:04Z | paths: src/ui/**\n",
    );
    std::fs::write(repo.file("claims.md"), claims).unwrap();
    let out = repo.rail_env(
        &["board", "--now", "2026-10-22T15:00:00Z"],
        &[("NO_COLOR", "1")],
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        "rail: the rail has 2 errors (`rail validate` lists them)\n"
    );
    let text = stdout(&out);
    let body = text.split_once('\n').unwrap().1;
    assert!(
        text.starts_with("Rail ")
            && text.lines().next().unwrap().ends_with(
                "(4 claims: 4 live, 0 expiring, 0 stale; 2 conflicts) at 2026-10-22T15:00:00Z"
            ),
        "{text}"
    );
    assert_eq!(
        body,
        "
LIVE
  ui-x    session-e     1h left  of 2h (until 2026-10-22T16:00:00Z); claimed 1h ago  [conflict]
          paths: src/ui/**
  ui-x    session-f   1h1m left  of 2h (until 2026-10-22T16:01:00Z); claimed 59m ago  [duplicate: does not hold]  [conflict]
          resources: port:3000
  server  session-g   1h2m left  of 2h (until 2026-10-22T16:02:00Z); claimed 58m ago
          resources: port:3000
  dark    session-i   1h4m left  of 2h (until 2026-10-22T16:04:00Z); claimed 56m ago  [conflict]
          paths: src/ui/**

CONFLICTS
  ! same task twice: task ui-x is claimed more than once: session-e (claims.md:5) holds it; also claimed by session-f (claims.md:6)
  ! paths overlap: session-e (ui-x) and session-i (dark) both claim `src/ui/**`

SESSIONS
  no agent's Rail hook has run yet: `rail init --agents` sets them up, `rail doctor` checks

RESOURCES
  port:3000                 session-g (server)
"
    );
    // With --json the board is the one document on stdout, and the exit code the same.
    let out = repo.rail(&["board", "--json", "--now", "2026-10-22T15:00:00Z"]);
    assert_eq!(code(&out), 1);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["summary"]["claims"], 4);
    // A task name one slip from a claimed one is suggested.
    let out = repo.rail(&["release", "servr", "--session", "session-g"]);
    assert!(
        stderr(&out).contains("servr is not claimed by anyone; did you mean server?"),
        "{}",
        stderr(&out)
    );
    // One claim, no error: "1 claim", exit 0.
    let one = Repo::new();
    assert_eq!(code(&one.rail(&["claim", "t", "--session", "s"])), 0);
    let out = one.rail(&["board"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("(1 claim: 1 live, 0 expiring, 0 stale; 0 conflicts)"));
}
