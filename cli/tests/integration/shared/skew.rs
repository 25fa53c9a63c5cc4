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
    let mut child = cmd
        .process_group(0)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("faketime (Debian package `faketime`; scripts/bootstrap.sh installs it)");
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > within {
            let group = format!("-{}", child.id());
            let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
            let out = child.wait_with_output().unwrap();
            panic!(
                "{what}: still running after {within:?} (a spin)\n{}",
                stderr(&out)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
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
