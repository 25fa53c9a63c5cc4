//! One rail across machines on a git remote: a bare repository served by path and by
//! `git daemon` on 127.0.0.1, and clones as machines.

use crate::common::NoSession;
use std::collections::BTreeMap;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::*;

mod boards;
mod flight;
mod keys;
mod marks;
mod missing;
mod ownership;
mod queues;
#[cfg(unix)]
mod skew;

struct Remote {
    dir: tempfile::TempDir,
    daemon: Option<Child>,
    url: String,
}

impl Remote {
    fn bare(path: &Path) {
        git_in(
            path.parent().unwrap(),
            &["init", "-q", "--bare", "-b", "main", path.to_str().unwrap()],
        );
    }

    fn by_path() -> Remote {
        let dir = tempfile::tempdir().unwrap();
        let bare = dir.path().join("rail.git");
        Remote::bare(&bare);
        Remote {
            url: bare.display().to_string(),
            dir,
            daemon: None,
        }
    }

    fn by_daemon() -> Remote {
        let dir = tempfile::tempdir().unwrap();
        let bare = dir.path().join("rail.git");
        Remote::bare(&bare);
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        // The `git-daemon` binary itself: `git daemon` is a wrapper, and killing the wrapper
        // would leave the real server running.
        let exec_path = git_in(dir.path(), &["--exec-path"]);
        let daemon = Command::new(Path::new(exec_path.trim()).join("git-daemon"))
            .args([
                "--reuseaddr",
                "--export-all",
                "--enable=receive-pack",
                "--listen=127.0.0.1",
                &format!("--port={port}"),
                &format!("--base-path={}", dir.path().display()),
                dir.path().to_str().unwrap(),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        wait_for("git daemon did not start", Duration::from_secs(60), || {
            TcpStream::connect(("127.0.0.1", port)).is_ok()
        });
        Remote {
            url: format!("git://127.0.0.1:{port}/rail.git"),
            dir,
            daemon: Some(daemon),
        }
    }

    fn bare_path(&self) -> PathBuf {
        self.dir.path().join("rail.git")
    }

    fn git(&self, args: &[&str]) -> String {
        let bare = self.bare_path();
        let mut full = vec!["--git-dir", bare.to_str().unwrap()];
        full.extend_from_slice(args);
        git_in(self.dir.path(), &full)
    }

    /// git in the bare repository, fed `input` on stdin; its stdout.
    fn git_stdin(&self, args: &[&str], input: &[u8]) -> String {
        let bare = self.bare_path();
        let mut all = vec!["--git-dir", bare.to_str().unwrap()];
        all.extend(args);
        git_stdin(&bare, &all, input)
    }

    fn shared_file(&self, name: &str) -> String {
        self.git(&["show", &format!("refs/rail/claims:{name}")])
    }

    fn stop(&mut self) {
        if let Some(mut d) = self.daemon.take() {
            let _ = d.kill();
            let _ = d.wait();
        }
    }
}

impl Drop for Remote {
    fn drop(&mut self) {
        self.stop();
    }
}

struct Machine {
    dir: tempfile::TempDir,
}

impl Machine {
    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn rail(&self, args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
        let mut cmd = Command::new(rail_bin());
        cmd.args(args).current_dir(self.path()).no_session();
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    }
}

/// A machine's id, as its clone keeps it.
fn machine_id(m: &Machine) -> String {
    let path = m.path().join(".git/rail/exchange/machine");
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .trim()
        .to_string()
}

/// Clones as machines; the first one publishes the rail.
fn machines(remote: &Remote, n: usize) -> Vec<Machine> {
    let mut out = Vec::new();
    for i in 0..n {
        let dir = tempfile::tempdir().unwrap();
        git_in(dir.path(), &["clone", "-q", &remote.url, "."]);
        git_in(dir.path(), &["config", "user.email", "m@e.invalid"]);
        git_in(dir.path(), &["config", "user.name", "machine"]);
        if i == 0 {
            git_in(dir.path(), &["commit", "-q", "--allow-empty", "-m", "init"]);
            git_in(dir.path(), &["push", "-q", "origin", "HEAD:main"]);
        } else {
            git_in(dir.path(), &["pull", "-q", "origin", "main"]);
        }
        let m = Machine { dir };
        let init = m.rail(&["init", "--remote", "origin"], &[]);
        assert_eq!(code(&init), 0, "{}", stderr(&init));
        out.push(m);
    }
    out
}

fn race(remote: &Remote) {
    let ms = machines(remote, 3);
    let tasks: Vec<String> = (0..20).map(|i| format!("task-{i}")).collect();
    let started = Instant::now();
    let mut children = Vec::new();
    for (mi, m) in ms.iter().enumerate() {
        for p in 0..8 {
            let order: Vec<&str> = (0..20)
                .map(|i| tasks[(i + p * 5 + mi * 7) % 20].as_str())
                .collect();
            let script = format!(
                // A claim that neither wins nor loses (exit 2 or more) keeps its stderr, so a
                // failure here says what git or rail reported.
                "for t in {}; do \"$RAIL\" claim \"$t\" --session m{mi}-p{p} >/dev/null 2>err-{p}.txt; c=$?; \
                 [ $c -gt 1 ] && cat err-{p}.txt >>failed-{p}.txt; echo \"$t $c\"; done",
                order.join(" ")
            );
            children.push((
                format!("m{mi}-p{p}"),
                m.path().join(format!("failed-{p}.txt")),
                Command::new("sh")
                    .arg("-c")
                    .arg(script)
                    .current_dir(m.path())
                    .env("RAIL", rail_bin())
                    .no_session()
                    .stdout(Stdio::piped())
                    .spawn()
                    .unwrap(),
            ));
        }
    }
    let mut wins: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (who, failed, child) in children {
        let out = child.wait_with_output().unwrap();
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let (task, code) = line.split_once(' ').unwrap();
            match code {
                "0" => wins.entry(task.to_string()).or_default().push(who.clone()),
                "1" => {}
                other => panic!(
                    "{who}: {task} exited {other}: {}",
                    std::fs::read_to_string(&failed).unwrap_or_default().trim()
                ),
            }
        }
    }
    let elapsed = started.elapsed();
    for t in &tasks {
        assert_eq!(wins.get(t).map(Vec::len), Some(1), "{t}: {:?}", wins.get(t));
    }
    let shared = remote.shared_file("claims.md");
    let doc = rail_core::formats::claims_md::parse(&shared);
    let claims: Vec<_> = doc
        .claims()
        .map(|(_, c)| (c.task.clone(), c.session.clone()))
        .collect();
    assert_eq!(claims.len(), 20, "{shared}");
    for (task, session) in &claims {
        assert_eq!(&wins[task][0], session, "the winner is the holder");
    }
    // At most one commit per successful operation after the one that published the rail: the
    // operations one machine queued at once share a commit.
    let commits: usize = remote
        .git(&["rev-list", "--count", "refs/rail/claims"])
        .trim()
        .parse()
        .unwrap();
    assert!((2..=21).contains(&commits), "{commits} commits");
    let log = rail_core::formats::log::parse(&remote.shared_file("claims.log"));
    assert_eq!(
        log.entries
            .iter()
            .filter(|e| e.event.as_str() == "claimed")
            .count(),
        20
    );
    eprintln!(
        "3 machines x 8 processes, 20 tasks over {}: {:.1}s, {:.1} successful claims/s",
        remote.url,
        elapsed.as_secs_f64(),
        20.0 / elapsed.as_secs_f64()
    );
    // Every machine's mirror converges on the shared state after a sync.
    for m in &ms {
        assert_eq!(code(&m.rail(&["sync"], &[])), 0);
        assert_eq!(
            std::fs::read_to_string(m.path().join("claims.md")).unwrap(),
            shared
        );
        // Reads say how old the mirror is, and how to refresh it.
        let out = m.rail(&["board"], &[]);
        let note = stderr(&out);
        assert!(
            note.contains("shared via origin, fetched ") && note.contains("(`--fetch` to refresh)"),
            "{note}"
        );
    }
}

#[test]
fn three_machines_race_over_a_path_remote() {
    race(&Remote::by_path());
}

#[test]
fn three_machines_race_over_git_daemon() {
    race(&Remote::by_daemon());
}

/// Processes of one machine share one repository: claims, syncs and fetching reads all at once
/// must never fail each other (a local race is not an unreachable remote), and every claim is
/// made exactly once.
#[test]
fn one_machines_processes_never_fail_each_other() {
    let remote = Remote::by_daemon();
    let ms = machines(&remote, 1);
    let m = &ms[0];
    let mut children = Vec::new();
    for p in 0..12 {
        let script = format!(
            "for k in 0 1 2; do \"$RAIL\" claim p{p}-t$k --session p{p} >/dev/null 2>>err-{p}.txt || echo \"claim $k $?\"; \
             \"$RAIL\" sync >/dev/null 2>>err-{p}.txt || echo \"sync $k $?\"; \
             \"$RAIL\" board --fetch >/dev/null 2>>err-{p}.txt || echo \"board $k $?\"; done"
        );
        children.push((
            p,
            Command::new("sh")
                .arg("-c")
                .arg(script)
                .current_dir(m.path())
                .env("RAIL", rail_bin())
                .no_session()
                .stdout(Stdio::piped())
                .spawn()
                .unwrap(),
        ));
    }
    for (p, child) in children {
        let out = child.wait_with_output().unwrap();
        let failed = String::from_utf8_lossy(&out.stdout).to_string();
        let err =
            std::fs::read_to_string(m.path().join(format!("err-{p}.txt"))).unwrap_or_default();
        assert!(failed.is_empty(), "p{p}: {failed}\n{err}");
        assert!(
            !err.contains("STALE") && !err.contains("unreachable"),
            "p{p}: {err}"
        );
    }
    let log = rail_core::formats::log::parse(&remote.shared_file("claims.log"));
    let claimed = log
        .entries
        .iter()
        .filter(|e| e.event.as_str() == "claimed")
        .count();
    assert_eq!(claimed, 36);
    let shared = rail_core::formats::claims_md::parse(&remote.shared_file("claims.md"));
    assert_eq!(shared.claims().count(), 36);
}

/// A round serves the jobs its machine's processes queued while it fetched, in the same commit:
/// in a burst (every agent of a machine asking at once) the first leader's fetch is under way
/// when the other processes queue theirs, and leaving them to the next round cost them a round.
#[test]
fn jobs_queued_while_a_round_fetches_share_its_commit() {
    let remote = Remote::by_daemon();
    let ms = machines(&remote, 1);
    let m = &ms[0];
    let commits = || remote.git(&["rev-list", "--count", "refs/rail/claims"]);
    let before = commits();
    let pause = tempfile::tempdir().unwrap();
    let spawn = |task: &str, env: &[(&str, &Path)]| {
        let mut cmd = Command::new(rail_bin());
        cmd.args(["claim", task, "--session", task])
            .current_dir(m.path())
            .no_session()
            // Fetch first: the round under test is one that fetches.
            .env("RAIL_SHARED_TRUST_MS", "0")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.spawn().unwrap()
    };
    let leader = spawn("first", &[("RAIL_TEST_PAUSE_AFTER_FETCH", pause.path())]);
    wait_for(
        "the leader's round never fetched",
        Duration::from_secs(60),
        || pause.path().join("paused").exists(),
    );
    let exchange = m.path().join(".git/rail/exchange");
    let queued = || {
        std::fs::read_dir(&exchange)
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".job"))
            })
            .count()
    };
    assert_eq!(queued(), 1);
    let waiter = spawn("second", &[]);
    wait_for(
        "the second job was never queued",
        Duration::from_secs(60),
        || queued() == 2,
    );
    std::fs::write(pause.path().join("go"), b"").unwrap();
    for child in [leader, waiter] {
        let out = child.wait_with_output().unwrap();
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    }
    let after = commits();
    assert_eq!(
        after.trim().parse::<u32>().unwrap(),
        before.trim().parse::<u32>().unwrap() + 1,
        "one commit made both claims"
    );
    let message = remote.git(&["log", "-1", "--format=%B", "refs/rail/claims"]);
    assert!(
        message.contains("claim first by first") && message.contains("claim second by second"),
        "{message}"
    );
}

/// What one machine records locally — a bypass of the hooks, a failed gate — is never erased by
/// mirroring the shared rail: it stays in the local claims.log and `rail log`, and reaches the
/// shared log with the next exchange, so every machine sees it.
#[test]
fn local_log_lines_survive_syncs_and_reach_every_machine() {
    let remote = Remote::by_path();
    let ms = machines(&remote, 2);
    let (a, b) = (&ms[0], &ms[1]);
    let out = a.rail(
        &["check", "--session", "alice"],
        &[("RAIL_BYPASS", "hotfix agreed with bob")],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = a.rail(&["claim", "gated", "--session", "alice"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = a.rail(
        &["done", "gated", "--session", "alice", "--check", "false"],
        &[],
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let local = std::fs::read_to_string(a.path().join("claims.log")).unwrap();
    let recorded: Vec<String> = local
        .lines()
        .filter(|l| l.contains("| bypass |") || l.contains("verdict: failed"))
        .map(str::to_string)
        .collect();
    assert_eq!(recorded.len(), 2, "{local}");
    // a syncs, another machine claims, a syncs again.
    let out = a.rail(&["sync"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = b.rail(&["claim", "elsewhere", "--session", "bob"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = a.rail(&["sync"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let local = std::fs::read_to_string(a.path().join("claims.log")).unwrap();
    assert!(local.contains("| claimed | elsewhere | bob"), "{local}");
    let shown = stdout(&a.rail(&["log"], &[]));
    let shared = remote.shared_file("claims.log");
    let out = b.rail(&["sync"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let on_b = stdout(&b.rail(&["log"], &[]));
    for line in &recorded {
        assert!(local.contains(line.as_str()), "{line}\n{local}");
        assert!(shown.contains(line.as_str()), "{line}\n{shown}");
        assert_eq!(shared.matches(line.as_str()).count(), 1, "{line}\n{shared}");
        assert!(on_b.contains(line.as_str()), "{line}\n{on_b}");
    }
}

/// Times on a shared rail come from each machine's clock (`--now` is refused there), so bob's
/// machine is moved forward by `faketime` instead.
#[test]
fn pushing_commits_keeps_a_claim_across_machines() {
    let remote = Remote::by_path();
    let ms = machines(&remote, 2);
    let (a, b) = (&ms[0], &ms[1]);
    let out = a.rail(&["claim", "feature", "--session", "alice"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(code(&b.rail(&["sync"], &[])), 0);
    let claimed = chrono::Utc::now();
    // alice works on her branch and pushes a commit 90 minutes in.
    git_in(a.path(), &["checkout", "-q", "-b", "alice"]);
    std::fs::write(a.path().join("work.txt"), "w\n").unwrap();
    git_in(a.path(), &["add", "work.txt"]);
    let at = (claimed + chrono::TimeDelta::minutes(90)).to_rfc3339();
    let out = Command::new("git")
        .args(["commit", "-qm", "work"])
        .current_dir(a.path())
        .env("GIT_COMMITTER_DATE", &at)
        .env("GIT_AUTHOR_DATE", &at)
        .output()
        .unwrap();
    assert!(out.status.success());
    git_in(a.path(), &["push", "-q", "origin", "alice"]);
    let take_at = |offset: &str| {
        Command::new("faketime")
            .args(["-f", offset])
            .arg(rail_bin())
            .args(["take", "feature", "--session", "bob"])
            .current_dir(b.path())
            .no_session()
            .env_remove("RAIL_NOW")
            .output()
            .expect("faketime (Debian package `faketime`; scripts/bootstrap.sh installs it)")
    };
    // 2h30 in, the claim is past its lease but alice pushed an hour ago: bob may not take it.
    let out = take_at("+150m");
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("last commit on alice"),
        "{}",
        stderr(&out)
    );
    // alice stops; 3h31 in, her last push is more than 2h old: bob takes it.
    let out = take_at("+211m");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(remote.shared_file("claims.md").contains("feature | bob |"));
    assert!(remote
        .shared_file("claims.log")
        .contains("| taken | feature | bob | from: alice | reason: no commit on alice for 2h"));
}

#[test]
fn a_remote_that_dies_mid_operation_changes_nothing_anywhere() {
    let mut remote = Remote::by_daemon();
    let ms = machines(&remote, 1);
    let m = &ms[0];
    assert_eq!(
        code(&m.rail(&["claim", "before", "--session", "s"], &[])),
        0
    );
    let local_before = std::fs::read_to_string(m.path().join("claims.md")).unwrap();
    let shared_before = remote.shared_file("claims.md");
    // The claim fetches and plans, then the remote goes away before the push.
    let pause = tempfile::tempdir().unwrap();
    let child = Command::new(rail_bin())
        .args(["claim", "during", "--session", "s"])
        .current_dir(m.path())
        .env("RAIL_TEST_PAUSE_BEFORE_PUSH", pause.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Stop the remote once the claim has fetched and planned, and only then let it push.
    wait_for(
        "the claim never reached its push",
        Duration::from_secs(120),
        || pause.path().join("paused").exists(),
    );
    remote.stop();
    std::fs::write(pause.path().join("go"), b"").unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("unreachable, nothing was changed"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read_to_string(m.path().join("claims.md")).unwrap(),
        local_before
    );
    assert_eq!(remote.shared_file("claims.md"), shared_before);
    // Reads still work from the last fetched state, marked stale.
    let out = m.rail(&["board", "--fetch", "--json"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("shared via origin: STALE, could not fetch (")
            && stderr(&out).contains("); showing the state fetched "),
        "{}",
        stderr(&out)
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["claims"][0]["task"], "before");
    // Mutations fail cleanly while it is down.
    let out = m.rail(&["claim", "after", "--session", "s"], &[]);
    assert_eq!(code(&out), 3);
}

#[test]
fn validate_ci_catches_what_a_hosted_merge_leaves() {
    let repo = Repo::new();
    std::fs::write(
        repo.file("claims.md"),
        "# Claims\n<<<<<<< HEAD\na | s | 2026-10-22T14:05Z\n=======\na | t | 2026-10-22T14:06Z\n>>>>>>> b\n",
    )
    .unwrap();
    let out = repo.rail_env(&["validate", "--ci"], &[("GITHUB_ACTIONS", "true")]);
    assert_eq!(code(&out), 1);
    let text = stdout(&out);
    assert!(
        text.contains("::error file=claims.md,line=2,col=1::conflict-marker"),
        "{text}"
    );
    assert!(text.contains("duplicate-claim"), "{text}");
}

/// A shared tree may hold anything a remote's writer put there; core's mirror plan writes only
/// the rail's own data files and the CLI names the rest instead of writing them.
#[test]
fn a_shared_tree_never_writes_outside_the_rail() {
    let remote = Remote::by_path();
    let ms = machines(&remote, 1);
    let m = &ms[0];
    let out = m.rail(&["claim", "t", "--session", "s"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let config_before = std::fs::read(m.path().join("rail.yaml")).ok();
    // Someone pushes a tree with files that are not the rail's next to the rail's own.
    let script = r#"set -e
git fetch -q origin refs/rail/claims
export GIT_INDEX_FILE="$PWD/.git/hostile-index"
git read-tree FETCH_HEAD
add() { blob=$(printf '%s' "$2" | git hash-object -w --stdin); git update-index --add --cacheinfo "100644,$blob,$1"; }
add src/evil.sh 'rm -rf ~'
add rail.yaml 'lease: 1s'
add claims/nested/x.yaml 'task: x'
add claims/other.yaml 'owner: other'
tree=$(git write-tree)
commit=$(git commit-tree "$tree" -p FETCH_HEAD -m hostile)
git push -q origin "$commit:refs/rail/claims"
"#;
    let pushed = Command::new("sh")
        .args(["-c", script])
        .current_dir(m.path())
        .output()
        .unwrap();
    assert!(pushed.status.success(), "{}", stderr(&pushed));
    let out = m.rail(&["sync"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let err = stderr(&out);
    // One line for all of them (src/evil.sh, rail.yaml, claims/nested/x.yaml), the first named.
    assert!(
        err.contains("the shared rail has 3 entries that are not the rail's (first: claims/nested/x.yaml); ignored"),
        "{err}"
    );
    assert!(!m.path().join("src/evil.sh").exists());
    assert!(!m.path().join("claims/nested").exists());
    assert_eq!(
        std::fs::read(m.path().join("rail.yaml")).ok(),
        config_before
    );
    // The rail's own files of the same tree are mirrored.
    assert_eq!(
        std::fs::read_to_string(m.path().join("claims/other.yaml")).unwrap(),
        "owner: other"
    );
    assert!(std::fs::read_to_string(m.path().join("claims.md"))
        .unwrap()
        .contains("t | s |"));
}

/// A `git://` remote that accepts every connection and never says a word: Rail's git calls
/// against it must stop at the operation's deadline (issue 31, finding 5), not hang the
/// leader and, with it, every shared operation of the machine.
#[test]
fn a_remote_that_accepts_and_never_answers_ends_at_the_deadline() {
    let remote = Remote::by_path();
    let ms = machines(&remote, 1);
    let m = &ms[0];
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    // Accepts and holds every connection, answering nothing (ends with the test process).
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for conn in listener.incoming() {
            held.push(conn);
        }
    });
    git_in(
        m.path(),
        &[
            "remote",
            "set-url",
            "origin",
            &format!("git://127.0.0.1:{port}/rail.git"),
        ],
    );
    let env = [("RAIL_SHARED_TIMEOUT_MS", "2000")];
    for args in [
        &["claim", "t1", "--session", "s1"][..],
        &["sync"][..],
        &["claim", "t2", "--session", "s2"][..],
    ] {
        let mut cmd = Command::new(rail_bin());
        cmd.args(args)
            .current_dir(m.path())
            .no_session()
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().unwrap();
        // A watchdog, not a timing assertion: before the fix the claim was still running
        // after 40 s; the bound only keeps a hang from hanging the test run.
        let ended = {
            let until = Instant::now() + Duration::from_secs(90);
            loop {
                if child.try_wait().unwrap().is_some() {
                    break true;
                }
                if Instant::now() >= until {
                    break false;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        };
        if !ended {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "`rail {}` hung on a remote that never answers",
                args.join(" ")
            );
        }
        let out = child.wait_with_output().unwrap();
        assert_eq!(code(&out), 3, "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("unreachable, nothing was changed")
                && stderr(&out).contains(
                    "did not answer a fetch within the shared rail's deadline of 2000 ms"
                ),
            "{args:?}: {}",
            stderr(&out)
        );
        assert!(
            !stderr(&out).contains("exchange lock"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    let md = std::fs::read_to_string(m.path().join("claims.md")).unwrap();
    assert!(!md.contains("t1") && !md.contains("t2"), "{md}");
}

/// A server that declines every push (a pre-receive hook exiting 1) is not a lost race: Rail
/// shows the server's reason and stops at once, instead of retrying until its deadline and
/// calling it contention (issue 31, finding 7).
#[test]
fn a_push_the_server_declines_shows_its_reason_and_stops() {
    let remote = Remote::by_path();
    let ms = machines(&remote, 1);
    let m = &ms[0];
    let before = remote.shared_file("claims.md");
    let hook = remote.bare_path().join("hooks").join("pre-receive");
    std::fs::write(
        &hook,
        "#!/bin/sh\necho 'the rail is frozen for the release, ask ops' >&2\nexit 1\n",
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let out = m.rail(
        &["claim", "t1", "--session", "s1"],
        &[("RAIL_SHARED_TIMEOUT_MS", "20000")],
    );
    let err = stderr(&out);
    assert_eq!(code(&out), 3, "{err}");
    assert!(
        err.contains("declined the push")
            && err.contains("the rail is frozen for the release, ask ops")
            && err.contains("nothing was changed"),
        "{err}"
    );
    assert!(!err.contains("kept changing"), "{err}");
    assert_eq!(remote.shared_file("claims.md"), before);
    let md = std::fs::read_to_string(m.path().join("claims.md")).unwrap();
    assert!(!md.contains("t1"), "{md}");
}

/// Files in the shared ref that are not the rail's — a non-UTF-8 file, a submodule entry,
/// 3,000 strays — are ignored with one summary line, never break or flood an operation
/// (issue 31, finding 8).
#[test]
fn foreign_entries_in_the_shared_rail_are_ignored_with_one_line() {
    let remote = Remote::by_path();
    let ms = machines(&remote, 2);
    let head = git_in(ms[0].path(), &["rev-parse", "HEAD"])
        .trim()
        .to_string();
    let mut stream: Vec<u8> = Vec::new();
    stream.extend_from_slice(
        b"commit refs/rail/claims\ncommitter X <x@e.invalid> 0 +0000\ndata 7\nforeign\nfrom refs/rail/claims^0\n",
    );
    stream.extend_from_slice(b"M 100644 inline notes/latin1.txt\ndata 2\n\xe9\xff\n");
    stream.extend_from_slice(format!("M 160000 {head} vendor/sub\n").as_bytes());
    for i in 0..3000 {
        stream.extend_from_slice(format!("M 100644 inline stray/{i}.txt\ndata 1\nx\n").as_bytes());
    }
    stream.extend_from_slice(b"done\n");
    remote.git_stdin(&["fast-import", "--quiet", "--done"], &stream);
    for (m, args) in [
        (&ms[1], &["claim", "t5", "--session", "s5"][..]),
        (&ms[0], &["sync"][..]),
    ] {
        let out = m.rail(args, &[]);
        let err = stderr(&out);
        assert_eq!(code(&out), 0, "{args:?}: {err}");
        let lines: Vec<&str> = err
            .lines()
            .filter(|l| l.contains("shared rail has"))
            .collect();
        assert_eq!(lines.len(), 1, "{args:?}: {err}");
        assert!(
            lines[0].contains("3002 entries that are not the rail's"),
            "{args:?}: {err}"
        );
        assert!(err.lines().count() < 5, "{args:?}: {err}");
    }
    let md = std::fs::read_to_string(ms[0].path().join("claims.md")).unwrap();
    assert!(md.contains("t5"), "{md}");
    assert!(!ms[0].path().join("stray").exists());
}

/// A shared ref moved back to an older commit (a force-push, a restored backup) is a rewind:
/// found by the next machine that had seen the newer state, named, and merged back with the
/// rail's merge rules, never taken as the truth (issue 31, finding 3). Machine B, which saw
/// A's claim, is refused it; machine C, which never saw it, claims it; A's next sync brings its
/// claim and its log lines back and names C's claim of the same task as the one dropped.
#[test]
fn a_rewound_remote_is_named_and_merged_never_taken_as_the_truth() {
    let remote = Remote::by_path();
    let ms = machines(&remote, 3);
    let (a, b, c) = (&ms[0], &ms[1], &ms[2]);
    // The state before A's claim, as a backup would hold it.
    let out = a.rail(&["claim", "warmup", "--session", "alice"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let old = remote.git(&["rev-parse", "refs/rail/claims"]);
    let out = a.rail(&["claim", "auth", "--session", "alice"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // B syncs (it has now seen alice's claim of auth).
    let out = b.rail(&["sync"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // The remote is rewound.
    remote.git(&["update-ref", "refs/rail/claims", old.trim()]);
    // B is refused: the claim it saw is merged back first.
    let out = b.rail(&["claim", "auth", "--session", "bob"], &[]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains("alice"), "{}", stderr(&out));
    assert!(stderr(&out).contains("rewound"), "{}", stderr(&out));
    assert!(remote.shared_file("claims.md").contains("auth | alice |"));
    // Rewound again; C never saw alice's claim, so it may claim auth on what it sees.
    remote.git(&["update-ref", "refs/rail/claims", old.trim()]);
    let out = c.rail(&["claim", "auth", "--session", "carol"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // Carol's agent works on C: its hook has been seen there.
    let seen = hook_call(
        "claude",
        c.path(),
        &claude_bash(c.path(), "ls"),
        Some("carol"),
        &[],
    );
    assert_eq!(code(&seen), 0, "{}", stderr(&seen));
    // A's next sync finds the rewind: alice's claim and log lines are back, carol's later claim
    // of the same task is the one dropped, and the log names it with the holder kept.
    let out = a.rail(&["sync"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stderr(&out).contains("rewound"), "{}", stderr(&out));
    let claims = remote.shared_file("claims.md");
    assert!(claims.contains("auth | alice |"), "{claims}");
    assert!(claims.contains("warmup | alice |"), "{claims}");
    assert!(!claims.contains("auth | carol |"), "{claims}");
    let log = remote.shared_file("claims.log");
    assert!(log.contains("| claimed | auth | alice"), "{log}");
    assert!(log.contains("| claimed | auth | carol"), "{log}");
    assert!(
        log.contains("| dropped | auth | carol | by: rewind | kept: alice"),
        "{log}"
    );
    let local = std::fs::read_to_string(a.path().join("claims.md")).unwrap();
    assert!(local.contains("auth | alice |"), "{local}");
    // The state A had seen stays reachable from the shared ref.
    let seen = remote.git(&["rev-list", "refs/rail/claims"]);
    assert!(seen.lines().count() >= 4, "{seen}");
    // C, where carol was told she holds auth, is told she no longer does, naming the holder:
    // by the command that mirrors it, and at her agent's next hook call there.
    let out = c.rail(&["sync"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let rewound = "carol's claim of auth is no longer theirs";
    assert!(
        stderr(&out).contains(rewound)
            && stderr(&out).contains("the shared rail was rewound and merged back, and the merge kept alice's claim): alice holds auth"),
        "{}",
        stderr(&out)
    );
    let out = c.rail(&["sync"], &[]);
    assert!(
        !stderr(&out).contains("no longer"),
        "told once: {}",
        stderr(&out)
    );
    let bash = claude_bash(c.path(), "ls");
    let told = hook_call("claude", c.path(), &bash, Some("carol"), &[]);
    assert_eq!(code(&told), 2, "{}", stderr(&told));
    assert!(stderr(&told).contains(rewound), "{}", stderr(&told));
    let next = hook_call("claude", c.path(), &bash, Some("carol"), &[]);
    assert_eq!(code(&next), 0, "told once: {}", stderr(&next));
}

/// A claim made while the shared rail cannot be reached (`RAIL_LOCAL=1`) is provisional: it
/// says so, is offered to the shared rail at the next operation, and a lost race is reported
/// to its session and logged with the holder named, never erased in silence (issue 31,
/// finding 4).
#[test]
fn an_offline_claim_is_provisional_and_a_lost_race_is_reported() {
    let remote = Remote::by_path();
    let ms = machines(&remote, 2);
    let (a, b) = (&ms[0], &ms[1]);
    let away = remote.dir.path().join("away.git");
    std::fs::rename(remote.bare_path(), &away).unwrap();
    let out = a.rail(&["claim", "t5", "--session", "s5"], &[]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    let local = [("RAIL_LOCAL", "1")];
    for task in ["t5", "t6"] {
        let out = a.rail(&["claim", task, "--session", "s5"], &local);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert!(stderr(&out).contains("provisional"), "{}", stderr(&out));
    }
    std::fs::rename(&away, remote.bare_path()).unwrap();
    // Another machine, which could not know, claims t5 on the shared rail.
    let out = b.rail(&["claim", "t5", "--session", "bob"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = a.rail(&["sync"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let said = stderr(&out);
    assert!(said.contains("s5's provisional claim of t5"), "{said}");
    assert!(said.contains("LOST: bob holds t5"), "{said}");
    assert!(
        said.contains("s5's provisional claim of t6") && said.contains("on the shared rail"),
        "{said}"
    );
    let claims = remote.shared_file("claims.md");
    assert!(claims.contains("t5 | bob |"), "{claims}");
    assert!(!claims.contains("t5 | s5 |"), "{claims}");
    assert!(claims.contains("t6 | s5 |"), "{claims}");
    let log = remote.shared_file("claims.log");
    assert!(log.contains("| claimed | t5 | s5"), "{log}");
    assert!(
        log.lines()
            .any(|l| l.contains("| lost | t5 | s5 |") && l.contains("| to: bob")),
        "{log}"
    );
    // Reported once: the next sync says nothing more of it.
    let out = a.rail(&["sync"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(!stderr(&out).contains("provisional"), "{}", stderr(&out));
    // And to s5's agent, at its next hook call on this machine: the call is stopped once with
    // the notice (whatever it does), naming the holder; the next call is judged as usual.
    let told = hook_call(
        "claude",
        a.path(),
        &claude_bash(a.path(), "ls"),
        Some("s5"),
        &[],
    );
    assert_eq!(code(&told), 2, "{}", stderr(&told));
    let said = stderr(&told);
    assert!(
        said.contains("s5's claim of t5 is no longer theirs")
            && said.contains("bob got t5 there first")
            && said.contains("bob holds t5. Stop work on t5"),
        "{said}"
    );
    assert!(!said.contains("t6"), "t6 is s5's: {said}");
    let next = hook_call(
        "claude",
        a.path(),
        &claude_bash(a.path(), "ls"),
        Some("s5"),
        &[],
    );
    assert_eq!(code(&next), 0, "told once: {}", stderr(&next));
    // Another session on this machine was told nothing.
    let other = hook_call(
        "claude",
        a.path(),
        &claude_bash(a.path(), "ls"),
        Some("s6"),
        &[],
    );
    assert_eq!(code(&other), 0, "{}", stderr(&other));
    let local_claims = std::fs::read_to_string(a.path().join("claims.md")).unwrap();
    assert!(
        local_claims.contains("t5 | bob |") && local_claims.contains("t6 | s5 |"),
        "{local_claims}"
    );
}

/// The git commands a machine ran that talk to the remote, from a `logging_git` log.
#[cfg(unix)]
fn remote_calls(calls: &Path) -> (usize, usize) {
    let log = std::fs::read_to_string(calls).unwrap_or_default();
    let fetches = log.lines().filter(|l| l.contains(" fetch ")).count();
    let pushes = log.lines().filter(|l| l.contains("push ")).count();
    (fetches, pushes)
}

/// At internet distance a fetch is about half of a round's round trips. A machine whose own
/// push is the last state it knows plans its next operation on it and pushes at once; the push
/// is the compare-and-swap that says whether the guess held, so nothing is lost when it did not.
#[cfg(unix)]
#[test]
fn a_machine_plans_on_its_own_last_push_without_fetching() {
    let remote = Remote::by_path();
    let ms = machines(&remote, 1);
    let m = &ms[0];
    let bin = tempfile::tempdir().unwrap();
    let (path, calls) = logging_git(bin.path());
    let env = [("PATH", path.as_str()), ("RAIL_SHARED_TRUST_MS", "3600000")];
    let first = m.rail(&["claim", "t1", "--session", "s1"], &env);
    assert_eq!(code(&first), 0, "{}", stderr(&first));
    let after_first = remote_calls(&calls);
    assert_eq!(after_first.1, 1, "one push for the first claim");
    let second = m.rail(&["claim", "t2", "--session", "s2"], &env);
    assert_eq!(code(&second), 0, "{}", stderr(&second));
    let after_second = remote_calls(&calls);
    assert_eq!(
        after_second.0, after_first.0,
        "the second claim fetched although this machine's push was the last state it knew"
    );
    assert_eq!(after_second.1, 2, "one push for the second claim");
    let shared = rail_core::formats::claims_md::parse(&remote.shared_file("claims.md"));
    let held: Vec<(String, String)> = shared
        .claims()
        .map(|(_, c)| (c.task.clone(), c.session.clone()))
        .collect();
    assert_eq!(
        held,
        vec![("t1".into(), "s1".into()), ("t2".into(), "s2".into())]
    );
    // With the trust turned off, every round fetches first, as before.
    let third = m.rail(
        &["claim", "t3", "--session", "s3"],
        &[("PATH", path.as_str()), ("RAIL_SHARED_TRUST_MS", "0")],
    );
    assert_eq!(code(&third), 0, "{}", stderr(&third));
    assert_eq!(remote_calls(&calls).0, after_second.0 + 1);
}

/// A shared rail's fetch speaks git's protocol version 0, a round trip fewer than version 2,
/// only while the remote's whole ref listing is small: measured beside a fetch (once a day), it
/// is what version 0 would receive on every fetch. A remote that grew to thousands of refs (a
/// hosted remote's pull requests) is fetched with version 2 again, which lists only the rail's.
#[cfg(unix)]
#[test]
fn a_fetch_saves_a_round_trip_only_while_the_remote_lists_few_refs() {
    let remote = Remote::by_path();
    let ms = machines(&remote, 1);
    let m = &ms[0];
    let bin = tempfile::tempdir().unwrap();
    let (path, calls) = logging_git(bin.path());
    let env = [("PATH", path.as_str()), ("RAIL_SHARED_TRUST_MS", "0")];
    let fetch_versions = || -> Vec<String> {
        std::fs::read_to_string(&calls)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains(" fetch "))
            .map(|l| {
                l.split_whitespace()
                    .find_map(|w| w.strip_prefix("protocol.version="))
                    .unwrap_or("none")
                    .to_string()
            })
            .collect()
    };
    // `rail init --remote` measured the listing: two refs.
    let first = m.rail(&["claim", "t1", "--session", "s1"], &env);
    assert_eq!(code(&first), 0, "{}", stderr(&first));
    assert_eq!(fetch_versions(), ["0"]);
    // The remote grows to 2,000 more refs, and the measure is a day old.
    let main = remote.git(&["rev-parse", "refs/heads/main"]);
    let refs: String = (0..2000)
        .map(|n| format!("create refs/pull/{n}/head {}\n", main.trim()))
        .collect();
    remote.git_stdin(&["update-ref", "--stdin"], refs.as_bytes());
    let state_path = m.path().join(".git/rail/exchange/queue-state.json");
    let mut state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&state_path).unwrap()).unwrap();
    assert!(
        state["listing"]["bytes"].as_u64().unwrap() < 1024,
        "{state}"
    );
    state["listing"]["at_ms"] = serde_json::json!(1);
    std::fs::write(&state_path, state.to_string()).unwrap();
    // A day-old measure is not trusted: the next round speaks version 2 and measures again;
    // the listing is large now, so the round after speaks version 2 too.
    let second = m.rail(&["claim", "t2", "--session", "s2"], &env);
    assert_eq!(code(&second), 0, "{}", stderr(&second));
    let measured = std::fs::read_to_string(&calls).unwrap();
    assert!(
        measured.contains("protocol.version=0 ls-remote"),
        "{measured}"
    );
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&state_path).unwrap()).unwrap();
    assert!(
        state["listing"]["bytes"].as_u64().unwrap() > 64 * 1024,
        "{state}"
    );
    let third = m.rail(&["claim", "t3", "--session", "s3"], &env);
    assert_eq!(code(&third), 0, "{}", stderr(&third));
    assert_eq!(fetch_versions(), ["0", "2", "2"]);
    let shared = remote.shared_file("claims.md");
    for t in ["t1", "t2", "t3"] {
        assert!(shared.contains(&format!("{t} | s")), "{shared}");
    }
}

/// A remote reset to an ancestor of this machine's own last push is a rewind even for a round
/// planned on that push without fetching: the push is conditional on the remote still holding
/// exactly that commit (`--force-with-lease`), so it is refused, the round is planned again on
/// a fetch, and the rewind is named and merged back as for any other round (a plain push would
/// have fast-forwarded over the reset and brought the state back unnamed).
#[test]
fn a_guess_over_a_remote_reset_to_its_ancestor_finds_the_rewind() {
    let remote = Remote::by_path();
    let ms = machines(&remote, 1);
    let m = &ms[0];
    let trust = [("RAIL_SHARED_TRUST_MS", "3600000")];
    assert_eq!(
        code(&m.rail(&["claim", "t1", "--session", "s1"], &trust)),
        0
    );
    let old = remote.git(&["rev-parse", "refs/rail/claims"]);
    assert_eq!(
        code(&m.rail(&["claim", "t2", "--session", "s2"], &trust)),
        0
    );
    // The remote goes back to the state before t2 (its parent: a fast-forward away).
    remote.git(&["update-ref", "refs/rail/claims", old.trim()]);
    let out = m.rail(&["claim", "t3", "--session", "s3"], &trust);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stderr(&out).contains("rewound"), "{}", stderr(&out));
    let claims = remote.shared_file("claims.md");
    for task in ["t1 | s1 |", "t2 | s2 |", "t3 | s3 |"] {
        assert!(claims.contains(task), "{task} missing: {claims}");
    }
}

/// The guess is wrong when another machine pushed meanwhile: the push is rejected, the
/// operation is planned again on a fetched state, and both machines' claims are held.
#[cfg(unix)]
#[test]
fn a_wrong_guess_is_rejected_by_the_remote_and_planned_again_on_a_fetch() {
    let remote = Remote::by_path();
    let ms = machines(&remote, 2);
    let trust = [("RAIL_SHARED_TRUST_MS", "3600000")];
    assert_eq!(
        code(&ms[0].rail(&["claim", "a1", "--session", "a"], &trust)),
        0
    );
    assert_eq!(
        code(&ms[1].rail(&["claim", "b1", "--session", "b"], &trust)),
        0
    );
    let bin = tempfile::tempdir().unwrap();
    let (path, calls) = logging_git(bin.path());
    let out = ms[0].rail(
        &["claim", "a2", "--session", "a"],
        &[("PATH", path.as_str()), trust[0]],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        remote_calls(&calls),
        (1, 2),
        "a rejected guess, then a fetch and a push"
    );
    let shared = rail_core::formats::claims_md::parse(&remote.shared_file("claims.md"));
    let tasks: std::collections::BTreeSet<String> =
        shared.claims().map(|(_, c)| c.task.clone()).collect();
    assert_eq!(
        tasks,
        ["a1", "a2", "b1"].map(String::from).into_iter().collect()
    );
}

/// A refusal is never answered from the state a machine pushed itself: the task may have been
/// freed on another machine since. The remote's state decides.
#[cfg(unix)]
#[test]
fn a_refusal_on_the_guessed_state_is_asked_of_the_remote() {
    let remote = Remote::by_path();
    let ms = machines(&remote, 2);
    let trust = [("RAIL_SHARED_TRUST_MS", "3600000")];
    // s1 claims on the second machine; the first machine's last push shows it held.
    assert_eq!(
        code(&ms[1].rail(&["claim", "t", "--session", "s1"], &trust)),
        0
    );
    assert_eq!(
        code(&ms[0].rail(&["claim", "u", "--session", "s0"], &trust)),
        0
    );
    // Freed on its own machine (only it may release it): the first machine's last push still
    // shows it held.
    let freed = ms[1].rail(&["release", "t", "--session", "s1"], &trust);
    assert_eq!(code(&freed), 0, "{}", stderr(&freed));
    let out = ms[0].rail(&["claim", "t", "--session", "s2"], &trust);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let shared = rail_core::formats::claims_md::parse(&remote.shared_file("claims.md"));
    let held: Vec<String> = shared.claims().map(|(_, c)| c.session.clone()).collect();
    assert_eq!(held, vec!["s0", "s2"]);
}

/// `git ARGS` in `dir` with `input` on its stdin; its stdout.
pub fn git_stdin(dir: &Path, args: &[&str], input: &[u8]) -> String {
    use std::io::Write as _;
    let mut child = Command::new("git")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "git {args:?} failed");
    String::from_utf8_lossy(&out.stdout).into_owned()
}
