//! The lock protocol on every platform: real `rail` processes racing on a rail directory, a
//! killed holder, a reused pid, a crash at every write step. Nothing here runs git or a shell,
//! so these tests also run on Windows under Wine (scripts/test-windows.sh), where the other
//! integration tests cannot (they run git and sh).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A rail directory outside any repository, and a runner for `rail --rail DIR`.
struct Rail {
    dir: tempfile::TempDir,
}

impl Rail {
    /// A new rail, made as a person makes one: `rail init` in an empty directory (`--rail`
    /// must name a rail; only `init` may name an empty directory).
    fn new() -> Rail {
        let dir = tempfile::Builder::new()
            .prefix("rail-portable-")
            .tempdir()
            .unwrap();
        let rail = Rail { dir };
        let out = rail.run(&["init"]);
        assert_eq!(code(&out), 0, "rail init: {}", stderr(&out));
        assert!(
            rail.file("claims.md").is_file(),
            "rail init made no claims.md"
        );
        rail
    }

    fn file(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.file(name)).unwrap_or_default()
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_rail"));
        cmd.arg("--rail")
            .arg(self.dir.path())
            .args(args)
            .current_dir(self.dir.path())
            .env_remove("RAIL_SESSION")
            .env_remove("RAIL_DIR")
            .env_remove("RAIL_NOW")
            .env_remove("RAIL_LOCK_TIMEOUT_MS")
            .env_remove("RAIL_TEST_HOLD_MS")
            .env_remove("RAIL_TEST_CRASH");
        cmd
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    fn run_env(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut cmd = self.command(args);
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    }

    fn spawn(&self, args: &[&str], env: &[(&str, &str)]) -> Child {
        let mut cmd = self.command(args);
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// The claims.md lines claiming `task` (the seed's own rule: `task |` at the line start).
    fn holders(&self, task: &str) -> Vec<String> {
        let prefix = format!("{task} |");
        self.read("claims.md")
            .lines()
            .filter(|l| l.starts_with(&prefix))
            .map(str::to_string)
            .collect()
    }

    fn log_events(&self, event: &str) -> usize {
        let log = rail_core::formats::log::parse(&self.read("claims.log"));
        assert!(
            log.diagnostics.is_empty(),
            "torn log: {:?}",
            log.diagnostics
        );
        log.entries
            .iter()
            .filter(|e| e.event.as_str() == event)
            .count()
    }

    /// Starts `rail claim TASK` that holds the lock until killed, and waits until its lock
    /// record is on disk (the observable event), so the caller knows it holds the lock.
    fn holder_in_lock(&self, task: &str) -> Child {
        let child = self.spawn(
            &["claim", task, "--session", "victim"],
            &[("RAIL_TEST_HOLD_MS", "600000")],
        );
        let lock = self.file("claims.md.lock");
        let want = format!("pid: {}\n", child.id());
        wait_for(|| std::fs::read_to_string(&lock).is_ok_and(|t| t.contains(&want)));
        // The lock file comes first, the claims.md lock second: wait for that too. A shared
        // lock attempt is refused exactly while a writer holds it (std's lock is flock on Unix
        // and covers Rail's far byte on Windows).
        wait_for(|| {
            let Ok(file) = std::fs::File::open(self.file("claims.md")) else {
                return false;
            };
            match file.try_lock_shared() {
                Err(std::fs::TryLockError::WouldBlock) => true,
                Ok(()) => {
                    let _ = file.unlock();
                    false
                }
                Err(e) => panic!("probing the claims.md lock: {e}"),
            }
        });
        child
    }
}

fn code(out: &Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Waits for an observable event that has no notification of its own (a lock file's content,
/// another process's lock): looks again every few milliseconds, and fails the test after a
/// minute (a hang, not a slow machine). The condition decides; the pause only paces the looking.
fn wait_for(mut seen: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !seen() {
        assert!(Instant::now() < deadline, "the awaited event never came");
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn exit_codes(children: Vec<Child>) -> Vec<i32> {
    children
        .into_iter()
        .map(|c| code(&c.wait_with_output().unwrap()))
        .collect()
}

fn this_host(rail: &Rail) -> String {
    // The host as `rail` itself names it: from a claim with an owner pid.
    let me = std::process::id().to_string();
    let out = rail.run(&["claim", "host-probe", "--session", "probe", "--pid", &me]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let line = rail.holders("host-probe").pop().unwrap();
    let host = line
        .split(&format!("pid: {me}@"))
        .nth(1)
        .unwrap()
        .trim()
        // `PID@HOST/START`: the host is what comes before the start time.
        .split('/')
        .next()
        .unwrap()
        .to_string();
    let out = rail.run(&[
        "release",
        "host-probe",
        "--session",
        "probe",
        "--no-touched",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    host
}

#[test]
fn processes_racing_for_one_task_leave_exactly_one_holder() {
    let rail = Rail::new();
    for round in 0..3 {
        let racers: Vec<Child> = (0..10)
            .map(|i| {
                rail.spawn(
                    &["claim", "hot", "--session", &format!("r{round}-{i}")],
                    &[],
                )
            })
            .collect();
        let codes = exit_codes(racers);
        assert_eq!(
            codes.iter().filter(|c| **c == 0).count(),
            1,
            "round {round}: exactly one claim succeeds: {codes:?}"
        );
        assert!(codes.iter().all(|c| *c == 0 || *c == 1), "{codes:?}");
        let holders = rail.holders("hot");
        assert_eq!(holders.len(), 1, "round {round}: {holders:?}");
        let winner = holders[0].split(" | ").nth(1).unwrap().to_string();
        let out = rail.run(&["release", "hot", "--session", &winner, "--no-touched"]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    }
    assert!(!rail.file("claims.md.lock").exists());
    assert_eq!(rail.log_events("claimed"), 3);
}

#[test]
fn processes_claiming_different_tasks_all_land() {
    let rail = Rail::new();
    let racers: Vec<Child> = (0..12)
        .map(|i| {
            rail.spawn(
                &["claim", &format!("t{i}"), "--session", &format!("s{i}")],
                &[],
            )
        })
        .collect();
    assert_eq!(exit_codes(racers), vec![0; 12]);
    for i in 0..12 {
        assert_eq!(rail.holders(&format!("t{i}")).len(), 1, "t{i} was lost");
    }
    assert_eq!(rail.log_events("claimed"), 12, "no log line lost");
}

#[test]
fn a_killed_holder_is_recovered_by_exactly_one_waiter() {
    let rail = Rail::new();
    let mut victim = rail.holder_in_lock("victim-task");
    victim.kill().unwrap();
    victim.wait().unwrap();
    assert!(
        rail.file("claims.md.lock").exists(),
        "the killed holder left its lock"
    );
    let racers: Vec<Child> = (0..6)
        .map(|i| {
            rail.spawn(
                &["claim", &format!("n{i}"), "--session", &format!("s{i}")],
                &[],
            )
        })
        .collect();
    assert_eq!(exit_codes(racers), vec![0; 6]);
    assert_eq!(
        rail.log_events("lock-broken"),
        1,
        "one waiter broke the dead lock"
    );
    assert!(
        rail.holders("victim-task").is_empty(),
        "the killed claim never happened"
    );
    assert!(!rail.file("claims.md.lock").exists());
    let leftovers: Vec<String> = std::fs::read_dir(rail.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("claims.md.lock"))
        .collect();
    assert!(
        leftovers.is_empty(),
        "tombstones or temp files left: {leftovers:?}"
    );
}

#[test]
fn lock_status_says_who_holds_it_and_whether_it_is_alive() {
    let rail = Rail::new();
    let out = rail.run(&["lock", "--json"]);
    assert_eq!(stdout(&out).trim(), r#"{"held":false}"#);
    let mut holder = rail.holder_in_lock("held-task");
    let out = rail.run(&["lock", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["held"], true, "{v}");
    assert_eq!(v["record"]["pid"], holder.id(), "{v}");
    assert_eq!(v["verdict"]["state"], "alive", "{v}");
    assert_eq!(v["verdict"]["breakable"], false, "{v}");
    // A live holder is never broken without --force.
    let out = rail.run(&["lock", "--break", "--session", "s"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    holder.kill().unwrap();
    holder.wait().unwrap();
    let out = rail.run(&["lock", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["verdict"]["state"], "dead", "{v}");
    assert_eq!(v["verdict"]["breakable"], true, "{v}");
    let out = rail.run(&["lock", "--break", "--session", "s"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(!rail.file("claims.md.lock").exists());
}

#[test]
fn a_live_pid_with_another_start_time_is_a_dead_owner() {
    let rail = Rail::new();
    let host = this_host(&rail);
    let me = std::process::id();
    let record = |start: &str| {
        format!(
            "pid: {me}\nhost: {host}\nsession: x\ncommand: test\nstarted: 2026-10-22T14:05:00Z\nnonce: n{}\n{start}",
            start.len()
        )
    };
    // This test process is alive; with no start time recorded it is the owner: never broken.
    std::fs::write(rail.file("claims.md.lock"), record("")).unwrap();
    let out = rail.run_env(
        &["claim", "a", "--session", "s"],
        &[("RAIL_LOCK_TIMEOUT_MS", "300")],
    );
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(stderr(&out).contains("timed out"), "{}", stderr(&out));
    assert!(rail.holders("a").is_empty());
    // The same pid recorded with another start time is a process that is gone: the pid was
    // reused. (Every platform Rail is tested on can tell start times.)
    std::fs::write(rail.file("claims.md.lock"), record("proc_start: 1\n")).unwrap();
    let out = rail.run(&["claim", "a", "--session", "s"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("recovered a stale lock"),
        "{}",
        stderr(&out)
    );
    assert_eq!(rail.holders("a").len(), 1);
}

#[test]
fn a_crash_at_every_write_step_leaves_the_old_or_the_new_rail() {
    for point in ["after-journal", "mid-write", "before-log"] {
        let rail = Rail::new();
        for t in ["a", "b", "c"] {
            assert_eq!(code(&rail.run(&["claim", t, "--session", "s"])), 0);
        }
        let out = rail.run_env(
            &["release", "b", "--session", "s", "--no-touched"],
            &[("RAIL_TEST_CRASH", point)],
        );
        assert_ne!(code(&out), 0, "{point}: the crash hook did not fire");
        // Readers see the intended state.
        let board = rail.run(&["board", "--json"]);
        assert_eq!(code(&board), 0, "{point}: {}", stderr(&board));
        let v: serde_json::Value = serde_json::from_str(&stdout(&board)).unwrap();
        let tasks: Vec<&str> = v["claims"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["task"].as_str().unwrap())
            .collect();
        assert_eq!(tasks, ["a", "c"], "{point}: {}", rail.read("claims.md"));
        // The next writer finishes the interrupted change, once.
        let out = rail.run(&["claim", "d", "--session", "s"]);
        assert_eq!(code(&out), 0, "{point}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("interrupted by a crash"),
            "{point}: {}",
            stderr(&out)
        );
        assert!(rail.holders("b").is_empty(), "{point}");
        assert_eq!(rail.log_events("released"), 1, "{point}: logged once");
        assert!(!rail.file("claims.md.journal").exists(), "{point}");
    }
}

/// Every file of a rail directory (and claims/) with its bytes.
fn files(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    for sub in ["", "claims"] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
            continue;
        };
        for e in entries {
            let e = e.unwrap();
            if e.file_type().unwrap().is_file() {
                let name = format!("{sub}/{}", e.file_name().to_string_lossy());
                out.insert(name, std::fs::read(e.path()).unwrap());
            }
        }
    }
    out
}

#[test]
fn a_write_that_fails_midway_changes_nothing_and_leaves_nothing() {
    // A full disk (or an unwritable file) at each file of a change, injected: on every platform
    // the files already written are put back (claims.md in place, a renamed claim file renamed
    // back, the log cut to its length), temp files and the journal are removed, and the error
    // names the file.
    for (fault, task) in [
        ("claims.md.journal", "b"),
        ("claims.md", "b"),
        ("claims.log", "b"),
        ("claims.log:open", "b"),
        ("claims/s.yaml", "t"),
        ("claims.log", "t"),
    ] {
        let rail = Rail::new();
        // b before a: releasing b rewrites claims.md from the middle (a failed write tears it).
        for t in ["b", "a"] {
            assert_eq!(code(&rail.run(&["claim", t, "--session", "s"])), 0);
        }
        std::fs::create_dir(rail.file("claims")).unwrap();
        std::fs::write(
            rail.file("claims/s.yaml"),
            "owner: s\ntask: t\npaths:\n- src/**\n",
        )
        .unwrap();
        let before = files(rail.dir.path());
        let args = ["release", task, "--session", "s", "--no-touched"];
        let out = rail.run_env(&args, &[("RAIL_TEST_FAIL_WRITE", fault)]);
        assert_eq!(code(&out), 3, "{fault}: {}", stderr(&out));
        let file = fault.trim_end_matches(":open");
        assert!(stderr(&out).contains(file), "{fault}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("nothing was changed"),
            "{fault}: {}",
            stderr(&out)
        );
        assert!(
            files(rail.dir.path()) == before,
            "{fault}: the rail changed or a file was left: {:?}",
            files(rail.dir.path()).keys().collect::<Vec<_>>()
        );
        let out = rail.run(&args);
        assert_eq!(code(&out), 0, "{fault}: then it works: {}", stderr(&out));
        assert!(!stderr(&out).contains("crash"), "{fault}: {}", stderr(&out));
    }
}

#[test]
fn a_reader_is_never_refused_while_a_writer_holds_the_lock() {
    // On Windows the claims.md lock is mandatory for the bytes it covers; Rail's covers none
    // of the content, so a reader that takes no lock (an editor, git) still reads.
    let rail = Rail::new();
    assert_eq!(code(&rail.run(&["claim", "a", "--session", "s"])), 0);
    let before = rail.read("claims.md");
    let mut holder = rail.holder_in_lock("b");
    assert_eq!(
        std::fs::read_to_string(rail.file("claims.md")).unwrap(),
        before
    );
    holder.kill().unwrap();
    holder.wait().unwrap();
}

#[test]
fn a_rail_directory_that_does_not_exist_is_an_environment_error() {
    let rail = Rail::new();
    let missing: &Path = &rail.file("nowhere");
    let out = Command::new(env!("CARGO_BIN_EXE_rail"))
        .arg("--rail")
        .arg(missing)
        .args(["claim", "a", "--session", "s"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(stderr(&out).contains("does not exist"), "{}", stderr(&out));
}

#[cfg(unix)]
#[test]
fn a_lock_name_that_cannot_be_opened_times_out_instead_of_spinning() {
    // A dangling symlink exists for link() and not for open(): before, `rail claim` retried
    // at once, forever, at full CPU, whatever the lock timeout.
    let rail = Rail::new();
    std::os::unix::fs::symlink(rail.file("nowhere"), rail.file("claims.md.lock")).unwrap();
    let child = rail
        .command(&["claim", "a", "--session", "s"])
        .env("RAIL_LOCK_TIMEOUT_MS", "300")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for the process to exit (the event), with a watchdog for the old endless spin.
    let pid = child.id();
    let (done, exited) = std::sync::mpsc::channel();
    std::thread::spawn(move || done.send(child.wait_with_output().unwrap()));
    let out = exited
        .recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|_| {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!("rail claim never gave up on a lock it cannot open");
        });
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("cannot be opened"),
        "{}",
        stderr(&out)
    );
    assert!(rail.holders("a").is_empty());
}

#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    // `rail board --json | true`: the reader is gone before rail writes. Before, println!
    // panicked ("failed printing to stdout: Broken pipe"), with a backtrace and exit 101.
    let rail = Rail::new();
    let lines: String = (0..400)
        .map(|i| {
            format!(
                "task-{i} | s{} | 2026-10-22T14:05Z | paths: src/m{i}/**\n",
                i % 7
            )
        })
        .collect();
    std::fs::write(rail.file("claims.md"), lines).unwrap();
    for args in [&["board", "--json"][..], &["board"][..], &["log"][..]] {
        let mut child = rail.spawn(args, &[("RAIL_NOW", "2026-10-22T15:00:00Z")]);
        drop(child.stdout.take()); // the reader goes away at once
        let out = child.wait_with_output().unwrap();
        assert!(
            !stderr(&out).contains("panicked"),
            "{args:?}: {}",
            stderr(&out)
        );
        assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
    }
}
