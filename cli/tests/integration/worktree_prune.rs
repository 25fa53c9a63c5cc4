//! `rail worktree prune` on real repositories with real worktrees, made by Rail (`rail worktree
//! TASK`) and by hand (`git worktree add`, where Claude Code, Codex and Cursor put theirs): the
//! merged and clean ones go, with their size reported; each one with work or a session in it
//! stays, with its reason, exactly as it was. (`claude --worktree` itself: tests/agents/.)

#![allow(
    clippy::disallowed_methods,
    reason = "native only: the wasm size lints of clippy.toml bind core and wasm"
)]

use std::path::{Path, PathBuf};

use crate::common::{code, commit, git_in, stderr, stdout};
use crate::worktree::Site;

impl Site {
    /// `git worktree add -b BRANCH` by hand.
    fn by_hand(&self, branch: &str) -> PathBuf {
        let dir = self.dir(branch);
        self.repo
            .git(&["worktree", "add", "-q", "-b", branch, dir.to_str().unwrap()]);
        dir
    }

    /// Commits `file` on the worktree's branch and merges it into main: merged work.
    fn merged(&self, dir: &Path, branch: &str, file: &str) {
        commit(dir, file, "done\n");
        self.repo.git(&["merge", "-q", branch]);
    }

    fn prune(&self, args: &[&str]) -> serde_json::Value {
        self.prune_in(self.repo.path(), args)
    }

    fn prune_in(&self, cwd: &Path, args: &[&str]) -> serde_json::Value {
        let mut all = vec!["--json", "worktree", "prune"];
        all.extend(args);
        let out = self.repo.rail_in(cwd, &all, &[]);
        assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
        serde_json::from_str(&stdout(&out)).unwrap()
    }
}

/// The paths a report removed, and each kept path with the kinds of its reasons.
fn paths(report: &serde_json::Value, list: &str) -> Vec<String> {
    report["report"][list]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["path"].as_str().unwrap().to_string())
        .collect()
}

fn reasons(report: &serde_json::Value, dir: &Path) -> Vec<String> {
    let kept = report["report"]["kept"].as_array().unwrap();
    let row = kept
        .iter()
        .find(|k| k["path"] == dir.to_str().unwrap())
        .unwrap_or_else(|| panic!("{} not kept: {report:#}", dir.display()));
    row["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["kind"].as_str().unwrap().to_string())
        .collect()
}

/// Every file under `dir` with its bytes (the `.git` file included): what must not change.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.display().to_string(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn merged_clean_worktrees_go_whoever_made_them_and_their_bytes_are_counted() {
    let site = Site::new();
    let station = site.station("auth", &[]);
    site.merged(&station, "auth", "auth.rs");
    let out = site.repo.rail(&["release", "auth", "--session", "auth"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let hand = site.by_hand("hand");
    site.merged(&hand, "hand", "hand.rs");
    // Ignored build output is nobody's work: it goes, and is counted.
    commit(&hand, ".gitignore", "target/\n");
    site.repo.git(&["merge", "-q", "hand"]);
    std::fs::create_dir_all(hand.join("target")).unwrap();
    std::fs::write(hand.join("target/big.bin"), vec![7u8; 256 * 1024]).unwrap();

    // A dry run says so, and changes nothing.
    let before = site.repo.git(&["worktree", "list", "--porcelain"]);
    let dry = site.prune(&["--dry-run"]);
    assert_eq!(dry["report"]["dry_run"], true);
    let mut removed = paths(&dry, "removed");
    removed.sort();
    let mut expected = vec![station.display().to_string(), hand.display().to_string()];
    expected.sort();
    assert_eq!(removed, expected, "{dry:#}");
    assert_eq!(site.repo.git(&["worktree", "list", "--porcelain"]), before);
    assert!(station.exists() && hand.exists() && site.branch("hand").is_some());

    let report = site.prune(&[]);
    let mut removed = paths(&report, "removed");
    removed.sort();
    assert_eq!(removed, expected, "{report:#}");
    assert_eq!(
        paths(&report, "kept"),
        [site.repo.path().display().to_string()]
    );
    assert!(!station.exists() && !hand.exists());
    assert!(
        site.branch("auth").is_none() && site.branch("hand").is_none(),
        "merged branches deleted"
    );
    let freed = report["report"]["freed_bytes"].as_u64().unwrap();
    assert!(freed >= 256 * 1024, "{freed}");
    assert_eq!(freed, dry["report"]["freed_bytes"].as_u64().unwrap());
    let rows = report["report"]["removed"].as_array().unwrap();
    assert_eq!(
        rows.iter()
            .map(|r| r["bytes"].as_u64().unwrap())
            .sum::<u64>(),
        freed
    );
    // Each removal is in the journal, as `rail worktree remove` logs it, with its size.
    let log = site.repo.read("claims.log");
    for dir in [&station, &hand] {
        let line = log
            .lines()
            .find(|l| l.contains("| station-removed |") && l.contains(dir.to_str().unwrap()))
            .unwrap_or_else(|| panic!("{log}"));
        assert!(
            line.contains("pruned: ") && line.contains(" bytes"),
            "{line}"
        );
    }

    // In words: what went, what it freed, what stayed.
    let out = site.repo.rail(&["worktree", "prune"]);
    assert_eq!(code(&out), 0);
    let said = stdout(&out);
    assert!(said.contains("it is the main checkout"), "{said}");
    assert!(
        said.ends_with("pruned 0 worktrees, freed 0 B (0 bytes); kept 1 worktree\n"),
        "{said}"
    );
}

#[test]
fn each_worktree_with_work_or_a_session_in_it_is_kept_as_it_was() {
    let site = Site::new();
    // By hand, each in one risky state; each otherwise merged and clean.
    let modified = site.by_hand("modified");
    site.merged(&modified, "modified", "m.rs");
    std::fs::write(modified.join("m.rs"), "unsaved\n").unwrap();
    let untracked = site.by_hand("untracked");
    std::fs::write(untracked.join("notes.md"), "draft\n").unwrap();
    let unmerged = site.by_hand("unmerged");
    commit(&unmerged, "u.rs", "not merged\n");
    let locked = site.by_hand("locked");
    site.repo.git(&[
        "worktree",
        "lock",
        "--reason",
        "on a USB disk",
        locked.to_str().unwrap(),
    ]);
    let cwd = site.by_hand("cwd");
    // Rail's own: a station whose claim is live, merged and clean.
    let claimed = site.station("claimed", &[]);
    site.merged(&claimed, "claimed", "c.rs");
    // Rail's own, with uncommitted work and a released claim.
    let station_dirty = site.station("station-dirty", &[]);
    site.repo
        .rail(&["release", "station-dirty", "--session", "station-dirty"]);
    std::fs::write(station_dirty.join("wip.rs"), "wip\n").unwrap();

    let all = [
        &modified,
        &untracked,
        &unmerged,
        &locked,
        &cwd,
        &claimed,
        &station_dirty,
    ];
    let before: Vec<_> = all.iter().map(|d| files(d)).collect();
    let worktrees = site.repo.git(&["worktree", "list", "--porcelain"]);
    let branches = site.repo.git(&["for-each-ref", "refs/heads"]);
    let claims = site.repo.read("claims.md");

    // Run from inside `cwd`: the command's own directory is kept too.
    let report = site.prune_in(&cwd, &[]);
    assert!(paths(&report, "removed").is_empty(), "{report:#}");
    for (dir, kinds) in [
        (site.repo.path().to_path_buf(), vec!["main-checkout"]),
        (modified.clone(), vec!["dirty"]),
        (untracked.clone(), vec!["dirty"]),
        (unmerged.clone(), vec!["unmerged"]),
        (locked.clone(), vec!["locked"]),
        (cwd.clone(), vec!["here"]),
        (claimed.clone(), vec!["live-claim"]),
        (station_dirty.clone(), vec!["dirty"]),
    ] {
        assert_eq!(reasons(&report, &dir), kinds, "{}", dir.display());
    }
    let messages = report["report"]["kept"].to_string();
    for said in [
        "1 file uncommitted (m.rs)",
        "1 file uncommitted (notes.md)",
        "1 commit not in main",
        "on a USB disk",
        "this command runs inside it",
        "session claimed holds claimed there (live claim)",
    ] {
        assert!(messages.contains(said), "{said}: {messages}");
    }
    assert_eq!(report["report"]["freed_bytes"], 0);
    // Nothing changed: files, worktrees, locks, branches, claims.
    let after: Vec<_> = all.iter().map(|d| files(d)).collect();
    assert_eq!(after, before);
    assert_eq!(
        site.repo.git(&["worktree", "list", "--porcelain"]),
        worktrees
    );
    assert_eq!(site.repo.git(&["for-each-ref", "refs/heads"]), branches);
    assert_eq!(site.repo.read("claims.md"), claims);
    assert!(!site.repo.read("claims.log").contains("station-removed"));

    // From the main checkout, `cwd` has nobody in it: it goes, and only it.
    let report = site.prune(&[]);
    assert_eq!(paths(&report, "removed"), [cwd.display().to_string()]);
}

/// A process working inside a worktree (a shell, an agent) keeps it; so does a lock an agent
/// session holds while its process runs, and a gone session's lock does not.
#[cfg(any(target_os = "linux", target_os = "macos"))]
#[test]
fn a_process_inside_or_a_live_sessions_lock_keeps_it() {
    let site = Site::new();
    let busy = site.by_hand("busy");
    let mut sleeper = std::process::Command::new("sleep")
        .arg("60")
        .current_dir(&busy)
        .spawn()
        .unwrap();
    // Claude Code's own lock, naming a live process (that sleeper, its real start time) and a
    // gone one.
    let live_lock = site.by_hand("live-lock");
    let pid = sleeper.id();
    let start = proc_start(pid);
    let reason = match &start {
        Some(s) => format!("claude session live-lock (pid {pid} start {s})"),
        None => format!("claude session live-lock (pid {pid})"),
    };
    site.repo.git(&[
        "worktree",
        "lock",
        "--reason",
        &reason,
        live_lock.to_str().unwrap(),
    ]);
    let gone_lock = site.by_hand("gone-lock");
    let gone = {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    };
    site.repo.git(&[
        "worktree",
        "lock",
        "--reason",
        &format!("claude session gone-lock (pid {gone} start 1)"),
        gone_lock.to_str().unwrap(),
    ]);
    // Claude Code's lock on a pid a later process has (another start time): the session is gone.
    #[cfg(target_os = "linux")]
    let reused = {
        let dir = site.by_hand("reused");
        site.repo.git(&[
            "worktree",
            "lock",
            "--reason",
            &format!("claude session reused (pid {pid} start 1)"),
            dir.to_str().unwrap(),
        ]);
        dir
    };

    let report = site.prune(&[]);
    let _ = sleeper.kill();
    let _ = sleeper.wait();
    let kept = reasons(&report, &busy);
    assert_eq!(kept, ["processes"], "{report:#}");
    assert!(
        report["report"]["kept"]
            .to_string()
            .contains(&format!("sleep (pid {pid})")),
        "{report:#}"
    );
    assert_eq!(reasons(&report, &live_lock), ["locked-by-session"]);
    assert!(busy.exists() && live_lock.exists());
    let mut removed = paths(&report, "removed");
    removed.sort();
    #[allow(unused_mut)]
    let mut expected = vec![gone_lock.display().to_string()];
    #[cfg(target_os = "linux")]
    expected.push(reused.display().to_string());
    expected.sort();
    assert_eq!(removed, expected, "{report:#}");
    assert!(!gone_lock.exists());
    let log = site.repo.read("claims.log");
    assert!(
        log.lines()
            .any(|l| l.contains("station-removed")
                && l.contains("unlocked: Claude Code session pid")),
        "{log}"
    );
    // The process gone, its worktree goes.
    let report = site.prune(&[]);
    assert!(
        paths(&report, "removed").contains(&busy.display().to_string()),
        "{report:#}"
    );
}

/// A process's start time as Claude Code writes it in its lock (Linux: field 22 of
/// /proc/PID/stat); elsewhere none.
#[cfg(any(target_os = "linux", target_os = "macos"))]
fn proc_start(pid: u32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(19).map(str::to_string)
}

#[test]
fn a_missing_directory_and_an_unreadable_one_are_kept() {
    let site = Site::new();
    let gone = site.by_hand("gone");
    std::fs::remove_dir_all(&gone).unwrap();
    let report = site.prune(&[]);
    assert_eq!(reasons(&report, &gone), ["missing"]);
    // git's record of it stays for `git worktree prune` to forget.
    assert!(site
        .repo
        .git(&["worktree", "list", "--porcelain"])
        .contains(gone.to_str().unwrap()));
    assert!(site.branch("gone").is_some());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // Root reads everything: nothing to test there.
        let root = std::process::Command::new("id")
            .arg("-u")
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
        if !root {
            let shut = site.by_hand("shut");
            std::fs::create_dir(shut.join("private")).unwrap();
            std::fs::set_permissions(shut.join("private"), std::fs::Permissions::from_mode(0o000))
                .unwrap();
            let report = site.prune(&[]);
            std::fs::set_permissions(shut.join("private"), std::fs::Permissions::from_mode(0o755))
                .unwrap();
            let kinds = reasons(&report, &shut);
            assert!(!kinds.is_empty(), "{report:#}");
            assert!(shut.exists());
        }
    }
    git_in(site.repo.path(), &["worktree", "prune"]);
}
