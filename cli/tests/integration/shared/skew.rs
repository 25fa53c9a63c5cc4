//! Machines whose clocks are hours off (issue 42, findings 4 and 5), each process's clock set by
//! `faketime` (Debian's `faketime`, which scripts/bootstrap.sh installs): a clock ahead or behind
//! can neither take a live claim nor lose its own, and a process clock far from the file
//! system's never spins.

use std::process::{Command, Output, Stdio};
use std::time::Duration;

use super::{machines, Machine, Remote};
use crate::common::*;

/// `rail ARGS` on `m` with its clock moved by `offset` (`+3h`, `-3h`), the git it runs too.
fn skewed(m: &Machine, offset: &str, args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new("faketime");
    cmd.args(["-f", offset])
        .arg(rail_bin())
        .args(args)
        .current_dir(m.path())
        .no_session()
        .env_remove("RAIL_NOW");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

/// Runs `cmd` to its end, which must come within `within` (a spin, not a slow machine, when it
/// does not): its process group is killed (faketime runs `rail` as its child) and the test
/// fails, naming `what`.
fn ends_within(what: &str, within: Duration, mut cmd: Command) -> Output {
    use std::os::unix::process::CommandExt;
    let child = cmd
        .process_group(0)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("faketime (Debian package `faketime`; scripts/bootstrap.sh installs it)");
    // The end is the event waited for, on a thread of its own; `within` only bounds it.
    let group = format!("-{}", child.id());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(within) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
            let out = rx.recv().unwrap().unwrap();
            panic!(
                "{what}: still running after {within:?} (a spin)\n{}",
                stderr(&out)
            );
        }
    }
}

/// Finding 5: a process clock more than an hour ahead of the file system's (an NFS server
/// behind) swept the answer it had just written as an hour old, and the waiter led round after
/// round past its deadline, though its claim had landed. Now the answer is kept and told, and a
/// sync and a fetching read end too.
#[test]
fn a_process_clock_hours_ahead_of_the_file_system_ends_with_its_answer() {
    let remote = Remote::by_path();
    let ms = machines(&remote, 1);
    let m = &ms[0];
    // The deadline is short, and the bound is past it and the 30 s grace: a command still
    // running then is spinning.
    let env = [("RAIL_SHARED_TIMEOUT_MS", "5000")];
    let bound = Duration::from_secs(60);
    let out = ends_within(
        "claim with the clock 2h ahead",
        bound,
        skewed(m, "+2h", &["claim", "t1", "--session", "alice"], &env),
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("claimed t1 for alice"),
        "{}",
        stdout(&out)
    );
    assert!(remote.shared_file("claims.md").contains("t1 | alice |"));
    for args in [&["sync"][..], &["board", "--fetch"][..]] {
        let out = ends_within(
            &format!("{args:?} with the clock 2h ahead"),
            bound,
            skewed(m, "+2h", args, &env),
        );
        assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
    }
    // The queue keeps no answer nobody came for, and still sweeps one an hour old by the file
    // system's clock.
    let exchange = m.path().join(".git/rail/exchange");
    let old = exchange.join("1-1-dead.done");
    std::fs::write(&old, "{}").unwrap();
    let two_hours_ago = std::time::SystemTime::now() - Duration::from_secs(7200);
    std::fs::File::options()
        .write(true)
        .open(&old)
        .unwrap()
        .set_modified(two_hours_ago)
        .unwrap();
    let out = m.rail(&["claim", "t2", "--session", "alice"], &env);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(!old.exists(), "an answer two hours old is swept");
    let left: Vec<_> = std::fs::read_dir(&exchange)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".done") || n.ends_with(".job") || n.ends_with(".probe"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// `rail ARGS` on `m` with its clock moved by `offset`, to its end (a bound far past any
/// operation's: a hang fails the test).
fn run_skewed(m: &Machine, offset: &str, args: &[&str]) -> Output {
    ends_within(
        &format!("{args:?} at {offset}"),
        Duration::from_secs(120),
        skewed(m, offset, args, &[]),
    )
}

/// The shared claims.md line of `task`.
fn shared_line(remote: &Remote, task: &str) -> String {
    let claims = remote.shared_file("claims.md");
    claims
        .lines()
        .find(|l| l.starts_with(&format!("{task} |")))
        .unwrap_or_else(|| panic!("no {task} in\n{claims}"))
        .to_string()
}

/// Finding 4: a machine whose clock is 3 h ahead took a claim seconds after its owner renewed
/// it (the renewal's time looked 3 h old by its clock). Now the renewal counts from when that
/// machine first saw it, and its take is refused.
#[test]
fn a_clock_hours_ahead_cannot_take_a_claim_just_renewed() {
    let remote = Remote::by_path();
    let ms = machines(&remote, 2);
    let (a, b) = (&ms[0], &ms[1]);
    let out = a.rail(&["claim", "auth", "--session", "alice"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = a.rail(&["renew", "auth", "--session", "alice"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = run_skewed(b, "+3h", &["take", "auth", "--session", "bob"]);
    assert_eq!(code(&out), 1, "{}{}", stdout(&out), stderr(&out));
    assert!(
        stderr(&out).contains("only a stale claim can be taken"),
        "{}",
        stderr(&out)
    );
    assert!(shared_line(&remote, "auth").starts_with("auth | alice |"));
    // Its board agrees: live.
    let out = run_skewed(b, "+3h", &["board", "--json"]);
    let board: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(board["claims"][0]["state"], "live", "{board}");
}

/// Finding 4: a machine whose clock is 3 h behind wrote claims dated 3 h ago, which every other
/// machine took at once. Now a claim counts from when each machine first saw it.
#[test]
fn a_clock_hours_behind_writes_no_claim_born_stale() {
    let remote = Remote::by_path();
    let ms = machines(&remote, 2);
    let (a, c) = (&ms[0], &ms[1]);
    let out = run_skewed(c, "-3h", &["claim", "auth", "--session", "carol"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = a.rail(&["take", "auth", "--session", "alice"], &[]);
    assert_eq!(code(&out), 1, "{}{}", stdout(&out), stderr(&out));
    assert!(
        stderr(&out).contains("is before this machine first saw it"),
        "{}",
        stderr(&out)
    );
    assert!(shared_line(&remote, "auth").starts_with("auth | carol |"));
    // The machine behind keeps its claim on its own clock too.
    let out = run_skewed(c, "-3h", &["renew", "auth", "--session", "carol"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = a.rail(&["take", "auth", "--session", "alice"], &[]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
}

/// Finding 4: the board and `take` disagreed on a claim dated in the future (the board counted
/// from the mirror's mtime, `take` from its own now, so the claim held as long as its clock was
/// ahead). Both now count from when this machine first saw it, and a claim that ran out by that
/// count is taken, on a correct clock as on one 3 h ahead.
#[test]
fn board_and_take_judge_a_claim_from_the_future_alike() {
    let remote = Remote::by_path();
    let ms = machines(&remote, 3);
    let (a, b, d) = (&ms[0], &ms[1], &ms[2]);
    // dave's clock runs 3 h ahead; his claims' leases are short, so they run out in the test.
    for task in ["flaky-a", "flaky-b"] {
        let out = run_skewed(
            d,
            "+3h",
            &["claim", task, "--session", "dave", "--lease", "3s"],
        );
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    }
    // alice's machine (a correct clock) and bob's (3 h ahead too) look at them.
    assert_eq!(code(&a.rail(&["sync"], &[])), 0);
    assert_eq!(code(&run_skewed(b, "+3h", &["sync"])), 0);
    let state = |out: Output, task: &str| -> String {
        let board: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        let claims = board["claims"].as_array().unwrap();
        let claim = claims.iter().find(|c| c["task"] == task).unwrap();
        claim["state"].as_str().unwrap().to_string()
    };
    wait_for(
        "alice's board never showed flaky-a stale",
        Duration::from_secs(60),
        || state(a.rail(&["board", "--json"], &[]), "flaky-a") == "stale",
    );
    let out = a.rail(&["take", "flaky-a", "--session", "alice"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(shared_line(&remote, "flaky-a").starts_with("flaky-a | alice |"));
    wait_for(
        "bob's board never showed flaky-b stale",
        Duration::from_secs(60),
        || state(run_skewed(b, "+3h", &["board", "--json"]), "flaky-b") == "stale",
    );
    let out = run_skewed(b, "+3h", &["take", "flaky-b", "--session", "bob"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(shared_line(&remote, "flaky-b").starts_with("flaky-b | bob |"));
}

/// Finding 4: `--now` (or `RAIL_NOW`) dated a shared change as it pleased: `--now 2099-…` held a
/// claim on every machine, a past one wrote it stale. A shared rail's changes refuse it; reads
/// may still look at another time.
#[test]
fn a_made_up_now_changes_no_shared_rail() {
    let remote = Remote::by_path();
    let ms = machines(&remote, 1);
    let m = &ms[0];
    let before = remote.shared_file("claims.md");
    let out = m.rail(
        &[
            "claim",
            "auth",
            "--session",
            "alice",
            "--now",
            "2099-01-01T00:00:00Z",
        ],
        &[],
    );
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--now (or RAIL_NOW) cannot change a shared rail"),
        "{}",
        stderr(&out)
    );
    let out = m.rail(
        &["claim", "auth", "--session", "alice"],
        &[("RAIL_NOW", "2020-01-01T00:00:00Z")],
    );
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert_eq!(remote.shared_file("claims.md"), before);
    let out = m.rail(&["claim", "auth", "--session", "alice"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = m.rail(&["board", "--now", "2099-01-01T00:00:00Z"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

/// A machine's own claim is seen by it when it is made, not at its next look at the remote:
/// with no round since, its board still shows the claim running out.
#[test]
fn a_machines_own_claim_runs_out_on_its_board_without_another_look() {
    let remote = Remote::by_path();
    let ms = machines(&remote, 1);
    let m = &ms[0];
    let out = m.rail(
        &["claim", "brief", "--session", "alice", "--lease", "2s"],
        &[],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    wait_for(
        "the claim never ran out on its own machine's board",
        Duration::from_secs(60),
        || {
            let out = m.rail(&["board", "--json"], &[]);
            let board: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
            board["claims"][0]["state"] == "stale"
        },
    );
}
