//! Machines answering each other through their queues (`refs/rail/queue/<machine>`): a machine
//! lost right after publishing has its operation made once by another machine's commit and
//! learns it when it comes back; a machine without queues (an older Rail) races as before and
//! its commits decide nothing of the others'; forged and malformed queues are skipped without
//! stopping a round.

use crate::common::NoSession;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use rail_core::change::queue::{self, Recorded};

use super::{machine_id, machines, Machine, Remote};
use crate::common::*;

/// Every commit of the remote's shared ref, newest first: (id, record).
fn records(remote: &Remote) -> Vec<(String, Recorded)> {
    let log = remote.git(&["log", "--format=%H%n%B%x00", "refs/rail/claims"]);
    log.split('\0')
        .map(|c| c.trim_start_matches('\n'))
        .filter(|c| !c.is_empty())
        .map(|c| {
            let (id, message) = c.split_once('\n').unwrap_or((c, ""));
            (id.to_string(), queue::read_message(message))
        })
        .collect()
}

/// How many `claimed` lines for `task` the shared log has.
fn claimed_lines(remote: &Remote, task: &str) -> usize {
    rail_core::formats::log::parse(&remote.shared_file("claims.log"))
        .entries
        .iter()
        .filter(|e| e.event.as_str() == "claimed" && e.task.as_deref() == Some(task))
        .count()
}

fn holders(remote: &Remote) -> Vec<(String, String)> {
    rail_core::formats::claims_md::parse(&remote.shared_file("claims.md"))
        .claims()
        .map(|(_, c)| (c.task.clone(), c.session.clone()))
        .collect()
}

/// Starts `rail claim TASK --session SESSION` on `m` publishing its queue with its push, paused
/// before the push and dying right after it: a machine lost with its operation published.
fn claim_then_die(m: &Machine, task: &str, session: &str, pause: &Path) -> std::process::Child {
    Command::new(rail_bin())
        .args(["claim", task, "--session", session])
        .current_dir(m.path())
        .no_session()
        .env("RAIL_TEST_PAUSE_BEFORE_PUSH", pause)
        .env("RAIL_TEST_PUBLISH", "1")
        .env("RAIL_TEST_DIE_AFTER_PUSH", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// `m`'s leader plans `task`, pauses, loses its push to `winner`'s claim, publishes its queue in
/// the same push and dies.
fn lose_and_die(m: &Machine, task: &str, session: &str, winner: impl FnOnce()) {
    let pause = tempfile::tempdir().unwrap();
    let child = claim_then_die(m, task, session, pause.path());
    wait_for(
        "the leader did not reach its push",
        Duration::from_secs(60),
        || pause.path().join("paused").exists(),
    );
    winner();
    std::fs::write(pause.path().join("go"), "").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        !out.status.success(),
        "the leader was to die after its push: {}",
        stderr(&out)
    );
}

/// A machine lost right after its push — its compare-and-swap lost, its queue published — has
/// its operation made by the next machine that commits, exactly once, and the commit's record
/// says so; when it comes back, its next leader learns that answer instead of deciding again.
#[test]
fn a_machine_lost_after_publishing_is_answered_by_another_machine_s_commit() {
    let remote = Remote::by_daemon();
    let ms = machines(&remote, 2);
    let (a, b) = (&ms[0], &ms[1]);
    lose_and_die(a, "a1", "sa", || {
        let out = b.rail(&["claim", "b1", "--session", "sb"], &[]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    });
    let a_id = machine_id(a);
    let queues = remote.git(&["for-each-ref", "--format=%(refname)", "refs/rail/queue/"]);
    assert!(
        queues.contains(&format!("refs/rail/queue/{a_id}")),
        "{queues}"
    );
    assert_eq!(claimed_lines(&remote, "a1"), 0, "a lost push made nothing");
    // B's next round sees A's queue and makes A's claim with its own, in one commit.
    let out = b.rail(
        &["claim", "b2", "--session", "sb"],
        &[("RAIL_SHARED_TRUST_MS", "0")],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let held = holders(&remote);
    for want in [("a1", "sa"), ("b1", "sb"), ("b2", "sb")] {
        assert!(
            held.contains(&(want.0.into(), want.1.into())),
            "{want:?} not in {held:?}"
        );
    }
    assert_eq!(claimed_lines(&remote, "a1"), 1);
    let b_id = machine_id(b);
    let deciders: Vec<String> = records(&remote)
        .into_iter()
        .filter_map(|(_, r)| match r {
            Recorded::Some(r) if r.decided.iter().any(|d| d.machine == a_id) => Some(r.machine),
            _ => None,
        })
        .collect();
    assert_eq!(deciders, vec![b_id], "one commit, B's, decided A's claim");
    // A comes back: its next leader finds the job its lost leader published answered by B's
    // commit, and makes nothing twice.
    let out = a.rail(&["sync"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(claimed_lines(&remote, "a1"), 1);
    assert!(
        std::fs::read_to_string(a.path().join("claims.md"))
            .unwrap()
            .contains("a1 | sa |"),
        "A's copy mirrors its claim"
    );
    let left: Vec<_> = std::fs::read_dir(a.path().join(".git/rail/exchange"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".job"))
        .collect();
    assert!(left.is_empty(), "the lost job was answered: {left:?}");
}

/// A push made on a fetched state carries its machine's queue even with no contention seen (a
/// burst's losers are then out for the winner's next commit a round sooner). Its own commit
/// decides what it published, so the queue left on the remote is never folded again: the next
/// machine's round reads it and decides nothing of it, and every claim is made once.
#[test]
fn a_queue_published_with_a_winning_push_is_decided_once_by_its_own_commit() {
    let remote = Remote::by_path();
    let ms = machines(&remote, 2);
    let (a, b) = (&ms[0], &ms[1]);
    let fetch_first = [("RAIL_SHARED_TRUST_MS", "0")];
    let out = a.rail(&["claim", "a1", "--session", "sa"], &fetch_first);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let a_id = machine_id(a);
    let queue_ref = format!("refs/rail/queue/{a_id}");
    let queued = remote.git(&["show", &format!("{queue_ref}:queue.json")]);
    assert!(
        queued.contains("\"a1\""),
        "A's claim rode on its push: {queued}"
    );
    for (i, task) in ["b1", "b2"].iter().enumerate() {
        let out = b.rail(&["claim", task, "--session", "sb"], &fetch_first);
        assert_eq!(code(&out), 0, "claim {i}: {}", stderr(&out));
    }
    let decisions: Vec<String> = records(&remote)
        .into_iter()
        .filter_map(|(_, r)| match r {
            Recorded::Some(r) => Some(r),
            _ => None,
        })
        .flat_map(|r| {
            let by = r.machine.clone();
            r.decided
                .into_iter()
                .filter(|d| d.machine == a_id)
                .map(move |_| by.clone())
        })
        .collect();
    assert_eq!(
        decisions,
        vec![a_id.clone()],
        "decided once, by A's own commit"
    );
    assert_eq!(claimed_lines(&remote, "a1"), 1);
    let held = holders(&remote);
    for want in [("a1", "sa"), ("b1", "sb"), ("b2", "sb")] {
        assert!(
            held.contains(&(want.0.into(), want.1.into())),
            "{want:?} not in {held:?}"
        );
    }
}

/// A machine without queues (`RAIL_SHARED_QUEUES=off`: as Rail was before them) fetches none,
/// writes no record and folds nothing: its pushes race the others' as before. An operation
/// another machine published and nobody folded dies undecided within the window, and its
/// machine makes it itself when it comes back — once.
#[test]
fn a_machine_without_queues_races_as_before_and_decides_nothing_of_others() {
    let remote = Remote::by_daemon();
    let ms = machines(&remote, 2);
    let (old, new) = (&ms[0], &ms[1]);
    let off = [("RAIL_SHARED_QUEUES", "off"), ("RAIL_SHARED_TRUST_MS", "0")];
    lose_and_die(new, "n1", "sn", || {
        let out = old.rail(&["claim", "o1", "--session", "so"], &off);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    });
    // The old machine commits past the window without ever making the new machine's claim.
    for i in 2..2 + queue::WINDOW {
        let out = old.rail(&["claim", &format!("o{i}"), "--session", "so"], &off);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert!(!stderr(&out).contains("queue"), "{}", stderr(&out));
    }
    assert_eq!(claimed_lines(&remote, "n1"), 0);
    let old_refs = git_in(old.path(), &["for-each-ref", "refs/rail/"]);
    assert!(
        !old_refs.contains("refs/rail/queues/"),
        "the old machine fetched no queue: {old_refs}"
    );
    for (id, record) in records(&remote).iter().take(queue::WINDOW + 1) {
        assert_eq!(
            record,
            &Recorded::None,
            "{id}: an old machine writes no record"
        );
    }
    // The new machine comes back: its operation died undecided, so it makes it itself.
    let out = new.rail(&["sync"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(claimed_lines(&remote, "n1"), 1);
    assert!(holders(&remote).contains(&("n1".into(), "sn".into())));
    // And the old machine still reads the shared rail as before.
    let out = old.rail(&["board", "--fetch"], &off);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

/// Writes a queue commit holding `text` as `queue.json` under `refs/rail/queue/<name>` on the
/// remote, as anyone who can push there could.
fn put_queue(remote: &Remote, name: &str, text: &str) {
    let blob = remote.git_stdin(&["hash-object", "-w", "--stdin"], text.as_bytes());
    let entry = format!("100644 blob {}\t{}\n", blob.trim(), queue::QUEUE_FILE);
    let tree = remote.git_stdin(&["mktree"], entry.as_bytes());
    let commit = remote.git(&["commit-tree", tree.trim(), "-m", "forged"]);
    remote.git(&[
        "update-ref",
        &format!("refs/rail/queue/{name}"),
        commit.trim(),
    ]);
}

fn op(id: &str, base: &str, session: &str, request: serde_json::Value) -> serde_json::Value {
    serde_json::json!({
        "id": id, "base": base, "session": session, "request": request,
        "now_ms": 1_000, "deadline_ms": 4_102_444_800_000i64,
    })
}

fn claim_req(task: &str) -> serde_json::Value {
    serde_json::json!({ "op": "claim", "task": task })
}

fn doc(machine: &str, ops: Vec<serde_json::Value>) -> String {
    serde_json::json!({ "v": 1, "machine": machine, "ops": ops }).to_string()
}

/// Anyone who can push to the remote can write a queue ref, as they can write the shared ref
/// itself. What a round takes from one is what a `rail` command of some clone could ask, once,
/// in its window, before its deadline: a queue under a name that is not a machine id or that
/// names another machine, malformed, too large, a take, an operation based outside the window,
/// an operation copied into a second queue — none of these is made, none stops the round, and
/// an operation past its deadline is recorded as given up. A well-formed request is made like
/// any other, and the commit's record names the queue it came from.
#[test]
fn forged_and_malformed_queues_are_skipped_and_never_stop_a_round() {
    let remote = Remote::by_path();
    let ms = machines(&remote, 1);
    let m = &ms[0];
    let no_guess = [("RAIL_SHARED_TRUST_MS", "0")];
    // A history longer than the window, with t0 held by its owner.
    for i in 0..=queue::WINDOW {
        let out = m.rail(
            &["claim", &format!("t{i}"), "--session", "owner"],
            &no_guess,
        );
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    }
    let tip = remote
        .git(&["rev-parse", "refs/rail/claims"])
        .trim()
        .to_string();
    let root = remote
        .git(&["rev-list", "--max-parents=0", "refs/rail/claims"])
        .trim()
        .to_string();
    put_queue(
        &remote,
        "replay",
        &doc("replay", vec![op("old-1", &root, "x", claim_req("old"))]),
    );
    let mut late = op("late-1", &tip, "x", claim_req("late"));
    late["deadline_ms"] = serde_json::json!(1);
    put_queue(&remote, "late", &doc("late", vec![late]));
    put_queue(
        &remote,
        "taker",
        &doc(
            "taker",
            vec![op(
                "take-1",
                &tip,
                "x",
                serde_json::json!({ "op": "take", "task": "t0" }),
            )],
        ),
    );
    put_queue(&remote, "junk", "not json at all {");
    put_queue(
        &remote,
        "huge",
        &format!(
            "{{\"v\":1,\"machine\":\"huge\",\"ops\":[],\"pad\":\"{}\"}}",
            "x".repeat(queue::MAX_QUEUE_BYTES + 1)
        ),
    );
    put_queue(
        &remote,
        "mallory",
        &doc("alice", vec![op("m-1", &tip, "x", claim_req("stolen"))]),
    );
    put_queue(
        &remote,
        "Bad_Name",
        &doc("Bad_Name", vec![op("b-1", &tip, "x", claim_req("badname"))]),
    );
    for name in ["copy-one", "copy-two"] {
        put_queue(
            &remote,
            name,
            &doc(name, vec![op("dup-1", &tip, "x", claim_req("dup"))]),
        );
    }
    let mut released = op(
        "release-1",
        &tip,
        "owner",
        serde_json::json!({ "op": "release", "task": "t1" }),
    );
    released["extra_log"] = serde_json::json!(["not a log line"]);
    put_queue(
        &remote,
        "fair",
        &doc(
            "fair",
            vec![op("fair-1", &tip, "someone", claim_req("fair")), released],
        ),
    );
    let out = m.rail(&["claim", "mine", "--session", "me"], &no_guess);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let held: Vec<String> = holders(&remote).into_iter().map(|(t, _)| t).collect();
    assert!(held.contains(&"mine".to_string()) && held.contains(&"fair".to_string()));
    for never in ["old", "late", "stolen", "badname", "dup"] {
        assert!(!held.contains(&never.to_string()), "{never}: {held:?}");
    }
    // Neither the take nor the release with a forged log line was made.
    assert!(held.contains(&"t0".to_string()) && held.contains(&"t1".to_string()));
    assert!(!remote.shared_file("claims.log").contains("not a log line"));
    let (_, record) = &records(&remote)[0];
    let Recorded::Some(record) = record else {
        panic!("the round's commit has a record: {record:?}");
    };
    let decided: Vec<(&str, &str, i64)> = record
        .decided
        .iter()
        .map(|d| {
            (
                d.machine.as_str(),
                d.id.as_str(),
                d.outcome["code"].as_i64().unwrap_or(-1),
            )
        })
        .collect();
    assert!(decided.contains(&("fair", "fair-1", 0)), "{decided:?}");
    assert!(decided.contains(&("late", "late-1", 3)), "{decided:?}");
    assert!(
        decided
            .iter()
            .all(|(m, ..)| ["fair", "late"].contains(m) || *m == machine_id(&ms[0])),
        "{decided:?}"
    );
}
