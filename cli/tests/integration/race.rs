//! Real processes racing on one rail: claims, stale locks, releases and the seed's flock
//! one-liner. Every test checks the rail afterwards: one holder per task, nothing lost or torn.

use crate::common::NoSession;
use std::collections::BTreeMap;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::common::*;

fn spawn_sh(repo: &Repo, script: &str) -> Child {
    Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(repo.path())
        .env("RAIL", rail_bin())
        .no_session()
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn parse_rail(repo: &Repo) -> rail_core::formats::claims_md::RailDoc {
    let doc = rail_core::formats::claims_md::parse(&repo.read("claims.md"));
    let errors: Vec<_> = doc
        .diagnostics
        .iter()
        .filter(|d| d.severity == rail_core::text::diagnostic::Severity::Error)
        .collect();
    assert!(
        errors.is_empty(),
        "claims.md has errors: {errors:?}\n{}",
        repo.read("claims.md")
    );
    doc
}

fn log_events(repo: &Repo, event: &str) -> Vec<rail_core::formats::log::LogEntry> {
    let log = rail_core::formats::log::parse(&repo.read("claims.log"));
    assert!(
        log.diagnostics.is_empty(),
        "torn log: {:?}",
        log.diagnostics
    );
    log.entries
        .into_iter()
        .filter(|e| e.event.as_str() == event)
        .collect()
}

#[test]
fn sixteen_processes_race_for_twenty_tasks() {
    let repo = Repo::new();
    let workers: Vec<Child> = (0..16)
        .map(|w| {
            // Each worker walks the tasks from a different starting point.
            let order: Vec<String> = (0..20).map(|i| format!("task-{}", (i + w * 3) % 20)).collect();
            spawn_sh(
                &repo,
                &format!(
                    "for t in {}; do \"$RAIL\" claim \"$t\" --session worker-{w} >/dev/null 2>&1; echo \"$t $?\"; done",
                    order.join(" ")
                ),
            )
        })
        .collect();
    let mut wins: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (w, child) in workers.into_iter().enumerate() {
        let out = child.wait_with_output().unwrap();
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let (task, code) = line.split_once(' ').unwrap();
            match code {
                "0" => wins.entry(task.to_string()).or_default().push(w),
                "1" => {}
                other => panic!("worker {w} got exit {other} for {task}"),
            }
        }
    }
    let doc = parse_rail(&repo);
    let claims: Vec<_> = doc
        .claims()
        .map(|(_, c)| (c.task.clone(), c.session.clone()))
        .collect();
    assert_eq!(claims.len(), 20, "{}", repo.read("claims.md"));
    for i in 0..20 {
        let task = format!("task-{i}");
        let winners = &wins[&task];
        assert_eq!(winners.len(), 1, "{task} won by {winners:?}");
        let holders: Vec<_> = claims.iter().filter(|(t, _)| *t == task).collect();
        assert_eq!(holders.len(), 1);
        assert_eq!(holders[0].1, format!("worker-{}", winners[0]));
    }
    let claimed = log_events(&repo, "claimed");
    assert_eq!(claimed.len(), 20, "one `claimed` per winner");
}

/// Starts a claim that holds the lock, waits until it does, and SIGKILLs it.
fn leave_stale_lock(repo: &Repo) {
    let mut child = Command::new(rail_bin())
        .args(["claim", "victim-task", "--session", "victim"])
        .current_dir(repo.path())
        .env("RAIL_TEST_HOLD_MS", "20000")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let lock = repo.file("claims.md.lock");
    wait_for(
        "the victim never took the lock",
        Duration::from_secs(10),
        || {
            std::fs::read_to_string(&lock)
                .is_ok_and(|t| t.contains(&format!("pid: {}", child.id())))
        },
    );
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    assert!(lock.exists(), "the killed holder left its lock behind");
}

#[test]
fn a_killed_holder_is_recovered_and_the_log_says_so() {
    let repo = Repo::new();
    leave_stale_lock(&repo);
    let out = repo.rail(&["claim", "next", "--session", "s"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("recovered a stale lock held by"),
        "{}",
        stderr(&out)
    );
    assert_eq!(log_events(&repo, "lock-broken").len(), 1);
    assert!(!repo.file("claims.md.lock").exists());
    assert!(
        repo.holders("victim-task").is_empty(),
        "the killed claim never happened"
    );
}

#[test]
fn exactly_one_waiter_takes_over_a_stale_lock() {
    for trial in 0..12 {
        let repo = Repo::new();
        leave_stale_lock(&repo);
        let racers: Vec<Child> = (0..16)
            .map(|i| {
                spawn_sh(
                    &repo,
                    &format!("\"$RAIL\" claim contested --session racer-{i}; echo \"exit $?\""),
                )
            })
            .collect();
        let mut winners = 0;
        for child in racers {
            let out = child.wait_with_output().unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            if text.contains("exit 0") {
                winners += 1;
            } else {
                assert!(
                    text.contains("exit 1"),
                    "trial {trial}: {text} {}",
                    String::from_utf8_lossy(&out.stderr)
                );
            }
        }
        assert_eq!(winners, 1, "trial {trial}");
        assert_eq!(repo.holders("contested").len(), 1, "trial {trial}");
        assert_eq!(
            log_events(&repo, "lock-broken").len(),
            1,
            "trial {trial}: exactly one waiter broke the stale lock"
        );
        parse_rail(&repo);
    }
}

#[test]
fn a_release_racing_sixteen_claims_never_gives_two_holders() {
    for trial in 0..10 {
        let repo = Repo::new();
        let out = repo.rail(&["claim", "hot", "--session", "owner"]);
        assert_eq!(code(&out), 0);
        let mut children = vec![spawn_sh(
            &repo,
            "\"$RAIL\" release hot --session owner --no-touched >/dev/null 2>&1; echo \"exit $?\"",
        )];
        for i in 0..16 {
            children.push(spawn_sh(
                &repo,
                &format!("\"$RAIL\" claim hot --session c{i} >/dev/null 2>&1; echo \"exit $?\""),
            ));
        }
        for c in children {
            c.wait_with_output().unwrap();
        }
        let holders = repo.holders("hot");
        assert!(holders.len() <= 1, "trial {trial}: {holders:?}");
        parse_rail(&repo);
    }
}

/// The seed article's claim, verbatim but for the names.
const ONE_LINER: &str = r#"flock claims.md -c 'grep -q "^{TASK} |" claims.md || echo "{TASK} | {SESSION} | $(date -u +%FT%RZ)" >> claims.md'"#;

fn one_liner(task: &str, session: &str) -> String {
    ONE_LINER
        .replace("{TASK}", task)
        .replace("{SESSION}", session)
}

#[test]
fn the_seed_one_liner_and_rail_see_each_other() {
    let repo = Repo::new();
    // One-liner first: rail refuses and names the holder.
    let mut c = spawn_sh(&repo, &one_liner("seeded", "human"));
    assert!(c.wait().unwrap().success());
    let out = repo.rail(&["claim", "seeded", "--session", "agent"]);
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("held by human"), "{}", stderr(&out));
    // Rail first: the one-liner's grep sees rail's line and appends nothing.
    let out = repo.rail(&["claim", "railed", "--session", "agent"]);
    assert_eq!(code(&out), 0);
    let mut c = spawn_sh(&repo, &one_liner("railed", "human"));
    assert!(c.wait().unwrap().success());
    assert_eq!(repo.holders("railed").len(), 1);
    assert!(repo.holders("railed")[0].contains("agent"));
    parse_rail(&repo);
}

#[test]
fn one_liners_rail_claims_and_releases_mixed_never_double_claim() {
    // Replacing claims.md instead of rewriting it in place double-claims here in about one
    // trial in ten, so forty trials catch it reliably.
    for trial in 0..40 {
        let repo = Repo::new();
        assert_eq!(code(&repo.rail(&["claim", "T1", "--session", "first"])), 0);
        let mut children = vec![spawn_sh(
            &repo,
            "\"$RAIL\" release T1 --session first --no-touched >/dev/null 2>&1",
        )];
        for i in 0..8 {
            children.push(spawn_sh(&repo, &one_liner("T1", &format!("liner{i}"))));
            children.push(spawn_sh(
                &repo,
                &format!("\"$RAIL\" claim T1 --session agent{i} >/dev/null 2>&1"),
            ));
        }
        for c in children {
            c.wait_with_output().unwrap();
        }
        let holders = repo.holders("T1");
        assert!(
            holders.len() <= 1,
            "trial {trial}: two holders: {holders:?}"
        );
        parse_rail(&repo);
    }
}
