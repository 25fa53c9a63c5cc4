//! Stations end to end: `rail worktree list` and `rail worktree remove` on real repositories
//! with real worktrees, and `rail done` closing its station as rail.yaml says. Every refusal is
//! checked to have left the station exactly as it was: its directory, its files, its branch (at
//! the same commit), its claim.

#![allow(
    clippy::disallowed_methods,
    reason = "native only: the wasm size lints of clippy.toml bind core and wasm"
)]

use std::path::{Path, PathBuf};

use crate::common::{code, commit, git_in, stderr, stdout, Repo};

/// A repository and a directory for its stations (removed with it); worktree_prune.rs adds
/// its own steps.
pub(crate) struct Site {
    pub(crate) repo: Repo,
    stations: tempfile::TempDir,
}

impl Site {
    pub(crate) fn new() -> Site {
        Site {
            repo: Repo::new(),
            stations: tempfile::Builder::new()
                .prefix("rail-stations-")
                .tempdir()
                .unwrap(),
        }
    }

    pub(crate) fn dir(&self, name: &str) -> PathBuf {
        self.stations.path().join(name)
    }

    /// `rail worktree TASK --dir …` (the branch and session are the task).
    pub(crate) fn station(&self, task: &str, env: &[(&str, &str)]) -> PathBuf {
        let dir = self.dir(task);
        let out = self.repo.rail_env(
            &[
                "worktree",
                task,
                "--dir",
                dir.to_str().unwrap(),
                "--path",
                &format!("{task}/**"),
            ],
            env,
        );
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        dir
    }

    pub(crate) fn rail(&self, args: &[&str]) -> std::process::Output {
        self.repo.rail(args)
    }

    /// The commit a branch is at, or `None` when it does not exist.
    pub(crate) fn branch(&self, name: &str) -> Option<String> {
        let out = std::process::Command::new("git")
            .args([
                "rev-parse",
                "--verify",
                "--quiet",
                &format!("refs/heads/{name}"),
            ])
            .current_dir(self.repo.path())
            .output()
            .unwrap();
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    }

    pub(crate) fn worktrees(&self) -> String {
        self.repo.git(&["worktree", "list", "--porcelain"])
    }

    pub(crate) fn log(&self) -> String {
        self.repo.read("claims.log")
    }
}

/// Everything a refusal must leave as it was.
#[derive(Debug, PartialEq)]
struct Snapshot {
    files: Vec<(String, Vec<u8>)>,
    branch: Option<String>,
    claims: Vec<String>,
    worktrees: String,
}

fn snapshot(site: &Site, dir: &Path, task: &str) -> Snapshot {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let p = e.path();
            let rel = p.strip_prefix(dir).unwrap().display().to_string();
            if e.file_type().unwrap().is_dir() {
                stack.push(p);
            } else {
                files.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    files.sort();
    Snapshot {
        files,
        branch: site.branch(task),
        claims: site.repo.holders(task),
        worktrees: site.worktrees(),
    }
}

#[test]
fn uncommitted_changes_keep_the_station() {
    let site = Site::new();
    let dir = site.station("auth", &[]);
    commit(&dir, "auth/token.rs", "v1\n");
    git_in(site.repo.path(), &["merge", "-q", "auth"]);
    // A change to a tracked file, and, in another case, only a new untracked file.
    for (case, write) in [
        ("modified", "auth/token.rs"),
        ("untracked", "auth/draft.rs"),
    ] {
        git_in(&dir, &["checkout", "-q", "--", "."]);
        let _ = std::fs::remove_file(dir.join("auth/draft.rs"));
        std::fs::write(dir.join(write), format!("unsaved work ({case})\n")).unwrap();
        let before = snapshot(&site, &dir, "auth");
        let out = site.rail(&["worktree", "remove", "auth"]);
        assert_eq!(code(&out), 1, "{case}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains("1 file uncommitted"), "{case}: {err}");
        assert!(err.contains(write), "{case}: names the file: {err}");
        assert!(err.contains("rail worktree remove auth --force"), "{err}");
        assert_eq!(
            snapshot(&site, &dir, "auth"),
            before,
            "{case}: nothing changed"
        );
        assert_eq!(before.claims.len(), 1, "the claim stays");
    }
    assert!(!site.log().contains("station-removed"));
}

#[test]
fn ignored_files_are_nobodys_work() {
    let site = Site::new();
    let dir = site.station("auth", &[]);
    commit(&dir, ".gitignore", "target/\n");
    git_in(site.repo.path(), &["merge", "-q", "auth"]);
    std::fs::create_dir_all(dir.join("target")).unwrap();
    std::fs::write(dir.join("target/build.o"), "x").unwrap();
    let out = site.rail(&["worktree", "remove", "auth"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(!dir.exists());
}

#[test]
fn unmerged_commits_keep_the_station_and_force_keeps_the_branch() {
    let site = Site::new();
    let dir = site.station("auth", &[]);
    commit(&dir, "auth/a.rs", "a\n");
    commit(&dir, "auth/b.rs", "b\n");
    let before = snapshot(&site, &dir, "auth");
    let out = site.rail(&["worktree", "remove", "auth"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("2 commits not in main"),
        "{}",
        stderr(&out)
    );
    assert_eq!(snapshot(&site, &dir, "auth"), before, "nothing changed");

    // The refusal as data: core's verdict, its hint for the editor's "Force close".
    let out = site.rail(&["--json", "worktree", "remove", "auth"]);
    assert_eq!(code(&out), 1);
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(doc["ok"], false);
    assert_eq!(doc["refusal"]["forceable"], true);
    assert_eq!(doc["refusal"]["hint"]["kind"], "force-close");
    assert_eq!(doc["refusal"]["blockers"][0]["kind"], "unmerged");
    assert_eq!(doc["refusal"]["blockers"][0]["commits"], 2);
    assert_eq!(snapshot(&site, &dir, "auth"), before);

    // --force: the worktree goes, the claim is released, the branch keeps the commits, and
    // the log says what was overridden.
    let tip = site.branch("auth");
    let out = site.rail(&["--session", "lead", "worktree", "remove", "auth", "--force"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let said = stdout(&out);
    assert!(said.contains("forced: 2 commits not in main"), "{said}");
    assert!(
        said.contains("kept branch auth: 2 commits not in main"),
        "{said}"
    );
    assert!(!dir.exists());
    assert_eq!(site.branch("auth"), tip, "the branch keeps its commits");
    assert!(site.repo.holders("auth").is_empty(), "released");
    let log = site.log();
    let removed = log
        .lines()
        .find(|l| l.contains("| station-removed |"))
        .expect(&log);
    assert!(removed.contains("| auth | lead |"), "{removed}");
    assert!(
        removed.contains("forced: 2 commits not in main"),
        "{removed}"
    );
    assert!(log.contains("| released | auth | auth"), "{log}");
}

#[test]
fn the_main_checkout_is_never_removed() {
    let site = Site::new();
    let main = site.repo.path().to_str().unwrap().to_string();
    let before = site.worktrees();
    for args in [
        vec!["worktree", "remove", main.as_str()],
        vec!["worktree", "remove", main.as_str(), "--force"],
        vec!["worktree", "remove", "main", "--force"],
        vec!["worktree", "remove", "."],
    ] {
        let out = site.rail(&args);
        assert_eq!(code(&out), 1, "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("it is the main checkout"),
            "{args:?}: {}",
            stderr(&out)
        );
        assert!(!stderr(&out).contains("--force`"), "no force offered");
    }
    assert_eq!(site.worktrees(), before);
    assert!(site.repo.file("claims.md").exists());
    // Named from inside a station, too.
    let dir = site.station("auth", &[]);
    let out = site
        .repo
        .rail_in(&dir, &["worktree", "remove", &main, "--force"], &[]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(site.repo.path().join(".git").is_dir());
}

#[test]
fn merged_work_is_removed_and_its_claim_released() {
    let site = Site::new();
    let dir = site.station("auth", &[]);
    commit(&dir, "auth/token.rs", "v1\n");
    git_in(site.repo.path(), &["merge", "-q", "auth"]);
    assert_eq!(site.repo.holders("auth").len(), 1);
    let out = site.rail(&["worktree", "remove", "auth"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out).trim(),
        format!(
            "removed station {}; released auth; deleted branch auth (merged into main)",
            dir.display()
        )
    );
    assert!(!dir.exists(), "the directory is gone");
    assert!(!site.worktrees().contains(dir.to_str().unwrap()));
    assert_eq!(site.branch("auth"), None, "the merged branch is deleted");
    assert!(
        site.repo.holders("auth").is_empty(),
        "the claim is released"
    );
    let log = site.log();
    let lines: Vec<&str> = log.lines().collect();
    let removed = lines
        .iter()
        .position(|l| l.contains("| station-removed | auth |"))
        .expect(&log);
    assert!(
        lines[removed + 1].contains("| released | auth | auth"),
        "{log}"
    );
    assert!(!lines[removed].contains("forced"), "{log}");
    // The merged work is main's now.
    assert_eq!(site.repo.read("auth/token.rs"), "v1\n");
}

#[test]
fn a_station_is_named_by_task_branch_or_path() {
    let site = Site::new();
    // A station whose branch (session) is not its task.
    let dir = site.dir("search");
    let out = site.rail(&[
        "worktree",
        "search-index",
        "--session",
        "feature/search",
        "--dir",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let plain = site.station("billing", &[]);
    let out = site.rail(&["--json", "worktree", "remove", "search-index"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(doc["closed"]["branch"], "feature/search");
    assert_eq!(doc["closed"]["released"][0], "search-index");
    assert_eq!(doc["closed"]["branch_deleted"], true);
    assert!(!dir.exists());
    // By a path relative to where rail runs.
    let relative = format!(
        "../{}/billing",
        site.stations.path().file_name().unwrap().to_string_lossy()
    );
    let out = site.rail(&["worktree", "remove", &relative]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(!plain.exists());
    // Names that are nobody's: a clear error, nothing removed, no panic.
    for name in ["nobody", "a;rm -rf ~", "$(touch pwned)", "../nowhere", ""] {
        let out = site.rail(&["worktree", "remove", name]);
        assert_eq!(code(&out), 2, "{name}: {}", stderr(&out));
        assert!(!stderr(&out).contains("panicked"), "{name}");
    }
    assert!(!site.repo.file("pwned").exists());
}

#[cfg(unix)]
#[test]
fn a_station_path_that_became_a_link_is_not_followed() {
    let site = Site::new();
    let dir = site.station("auth", &[]);
    // The station's directory is moved away and a link put in its place, pointing at the main
    // checkout: removing "the station" must not remove what the link points at.
    let moved = site.dir("moved");
    std::fs::rename(&dir, &moved).unwrap();
    std::os::unix::fs::symlink(site.repo.path(), &dir).unwrap();
    let before = site.worktrees();
    for force in [false, true] {
        let mut args = vec!["worktree", "remove", "auth"];
        if force {
            args.push("--force");
        }
        let out = site.rail(&args);
        assert_eq!(code(&out), 1, "{}", stderr(&out));
        assert!(stderr(&out).contains("symbolic link"), "{}", stderr(&out));
    }
    assert_eq!(site.worktrees(), before);
    assert!(site.repo.file("claims.md").exists());
    assert!(moved.join(".git").exists());
    assert_eq!(site.repo.holders("auth").len(), 1);
    let out = site.rail(&["worktree", "list"]);
    assert!(
        stdout(&out).contains("path is a symbolic link"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn list_shows_each_stations_state() {
    let site = Site::new();
    let t0 = [("RAIL_NOW", "2026-10-22T10:00:00Z")];
    let stale = site.station("old", &t0);
    let live = site.station("auth", &[("RAIL_NOW", "2026-10-22T11:30:00Z")]);
    commit(&live, "auth/a.rs", "a\n");
    std::fs::write(live.join("notes.txt"), "draft\n").unwrap();
    let bare = site.dir("spike");
    site.repo.git(&[
        "worktree",
        "add",
        "-q",
        "-b",
        "spike",
        bare.to_str().unwrap(),
    ]);
    let now = [("RAIL_NOW", "2026-10-22T12:30:00Z")];
    let out = site.repo.rail_env(&["--json", "worktree", "list"], &now);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(doc["base"], "main");
    let stations = doc["stations"].as_array().unwrap();
    let by_branch = |b: &str| {
        stations
            .iter()
            .find(|s| s["branch"] == b)
            .unwrap_or_else(|| panic!("{b}: {doc}"))
    };
    let main = by_branch("main");
    assert_eq!(main["main"], true);
    assert_eq!(main["state"], "unclaimed");
    let auth = by_branch("auth");
    assert_eq!(auth["state"], "live");
    assert_eq!(auth["claims"][0]["task"], "auth");
    assert_eq!(auth["dirty"], serde_json::json!(["notes.txt"]));
    assert_eq!(auth["unmerged"], 1);
    assert_eq!(auth["path"], live.to_str().unwrap());
    let old = by_branch("old");
    assert_eq!(old["state"], "stale");
    assert_eq!(old["unmerged"], 0);
    assert_eq!(old["path"], stale.to_str().unwrap());
    let spike = by_branch("spike");
    assert_eq!(spike["state"], "unclaimed");
    assert_eq!(spike["claims"], serde_json::json!([]));

    let out = site.repo.rail_env(&["worktree", "list"], &now);
    let text = stdout(&out);
    let line = |b: &str| {
        text.lines()
            .find(|l| l.split_whitespace().nth(1) == Some(b) || l.contains(&format!(" {b} ")))
            .unwrap_or_else(|| panic!("{b}: {text}"))
            .to_string()
    };
    assert!(text.starts_with("STATION"), "{text}");
    assert!(line("auth").contains("live"), "{text}");
    assert!(
        line("auth").contains("1 uncommitted, 1 not in main"),
        "{text}"
    );
    assert!(line("old").contains("stale"), "{text}");
    assert!(line("spike").contains("unclaimed"), "{text}");
    assert!(text.contains("(main checkout)"), "{text}");
    // A task named like a subcommand is still a task after `--`.
    let out = site.rail(&[
        "worktree",
        "--dir",
        site.dir("l").to_str().unwrap(),
        "--",
        "list",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(site.repo.holders("list").len(), 1);
}

#[test]
fn done_closes_or_keeps_the_station_as_rail_yaml_says() {
    let site = Site::new();
    // Default: keep.
    std::fs::write(site.repo.file("rail.yaml"), "check: \"true\"\n").unwrap();
    let kept = site.station("keep", &[]);
    let out = site.repo.rail_in(&kept, &["done", "keep"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(kept.exists(), "on_done defaults to keep");
    assert!(site.branch("keep").is_some());

    std::fs::write(
        site.repo.file("rail.yaml"),
        "check: \"true\"\nstations:\n  on_done: remove\n",
    )
    .unwrap();
    // Unmerged work: the gate passes and releases, the station stays, and says why.
    let busy = site.station("busy", &[]);
    commit(&busy, "busy/a.rs", "a\n");
    let tip = site.branch("busy");
    let out = site.repo.rail_in(&busy, &["done", "busy"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("station kept: station"),
        "{}",
        stdout(&out)
    );
    assert!(
        stdout(&out).contains("1 commit not in main"),
        "{}",
        stdout(&out)
    );
    assert!(busy.join("busy/a.rs").exists());
    assert_eq!(site.branch("busy"), tip);
    assert!(site.repo.holders("busy").is_empty(), "the gate released it");
    // ... and once merged, `rail worktree remove busy` finds it by the released task.
    git_in(site.repo.path(), &["merge", "-q", "busy"]);
    let out = site.rail(&["worktree", "remove", "busy"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(!busy.exists());

    // Nothing left to merge: done removes the station it runs in.
    let done = site.station("tidy", &[]);
    let out = site.repo.rail_in(&done, &["--json", "done", "tidy"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(doc["station"]["kept"], false, "{doc}");
    assert_eq!(doc["station"]["closed"]["branch_deleted"], true, "{doc}");
    assert!(!done.exists());
    assert_eq!(site.branch("tidy"), None);
}

#[test]
fn a_bad_on_done_is_diagnosed_and_keeps_the_station() {
    let site = Site::new();
    std::fs::write(
        site.repo.file("rail.yaml"),
        "check: \"true\"\nstations:\n  on_done: delete\n",
    )
    .unwrap();
    let out = site.rail(&["validate"]);
    let said = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        said.contains("stations.on_done is keep or remove"),
        "{said}"
    );
    let dir = site.station("auth", &[]);
    let out = site.repo.rail_in(&dir, &["done", "auth"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(dir.exists());
}

#[test]
fn a_locked_station_is_left_alone_even_by_force() {
    let site = Site::new();
    let dir = site.station("auth", &[]);
    site.repo.git(&[
        "worktree",
        "lock",
        "--reason",
        "on a USB disk",
        dir.to_str().unwrap(),
    ]);
    let before = snapshot(&site, &dir, "auth");
    for args in [
        vec!["worktree", "remove", "auth"],
        vec!["worktree", "remove", "auth", "--force"],
    ] {
        let out = site.rail(&args);
        assert_eq!(code(&out), 1, "{}", stderr(&out));
        assert!(
            stderr(&out).contains("git worktree lock"),
            "{}",
            stderr(&out)
        );
    }
    assert_eq!(snapshot(&site, &dir, "auth"), before);
    let out = site.rail(&["worktree", "list"]);
    assert!(
        stdout(&out).contains("locked (git worktree lock)"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn removed_from_inside_the_station_itself() {
    let site = Site::new();
    let dir = site.station("auth", &[]);
    commit(&dir, "auth/a.rs", "a\n");
    git_in(site.repo.path(), &["merge", "-q", "auth"]);
    // The agent's shell is in the station: it may close it (its work is merged).
    let out = site
        .repo
        .rail_in(&dir, &["worktree", "remove", "auth"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(!dir.exists());
    assert!(site.repo.holders("auth").is_empty());
    assert!(
        site.log().contains("| station-removed | auth | auth |"),
        "{}",
        site.log()
    );
}

#[test]
fn a_station_path_with_spaces_and_shell_characters() {
    let site = Site::new();
    let dir = site.dir("odd name;$(touch pwned)");
    let out = site.rail(&["worktree", "odd", "--dir", dir.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    std::fs::write(dir.join("draft"), "x").unwrap();
    let named = dir.to_str().unwrap();
    let out = site.rail(&["worktree", "remove", named]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    // The hint's command line is one the shell reads back as this path.
    assert!(
        stderr(&out).contains(&format!("`rail worktree remove '{named}' --force`")),
        "{}",
        stderr(&out)
    );
    assert!(dir.join("draft").exists());
    std::fs::remove_file(dir.join("draft")).unwrap();
    let out = site.rail(&["worktree", "remove", named]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(!dir.exists());
    assert!(!site.repo.file("pwned").exists());
    assert!(!site.stations.path().join("pwned").exists());
}

#[test]
fn a_branch_with_a_slash_names_its_station() {
    let site = Site::new();
    let dir = site.dir("search");
    let out = site.rail(&[
        "worktree",
        "search-index",
        "--session",
        "feature/søk-1",
        "--dir",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = site.rail(&["worktree", "list"]);
    assert!(stdout(&out).contains("feature/søk-1"), "{}", stdout(&out));
    let out = site.rail(&["worktree", "remove", "feature/søk-1"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(!dir.exists());
    assert_eq!(site.branch("feature/søk-1"), None);
}

#[test]
fn a_checkout_whose_git_file_names_another_worktree_is_not_removed() {
    let site = Site::new();
    let a = site.station("auth", &[]);
    let b = site.station("billing", &[]);
    // auth's .git now points at billing's git dir: removing "auth" would act on billing's
    // records with auth's files.
    let billing_git = std::fs::read_to_string(b.join(".git")).unwrap();
    std::fs::write(a.join(".git"), &billing_git).unwrap();
    for force in [false, true] {
        let mut args = vec!["worktree", "remove", "auth"];
        if force {
            args.push("--force");
        }
        let out = site.rail(&args);
        assert_eq!(code(&out), 1, "{}", stderr(&out));
        assert!(
            stderr(&out).contains("not that worktree"),
            "{}",
            stderr(&out)
        );
    }
    assert!(a.exists() && b.exists());
    assert!(site.branch("auth").is_some() && site.branch("billing").is_some());
}

/// A base that means something else in each worktree (`HEAD`, `@`) is read in the main
/// checkout, as the user meant it: inside the station, `HEAD` is the station's own commit and
/// every branch would look merged. (`@` and `@{-1}` are refused as bases: not branch names.)
#[test]
fn a_base_named_head_is_the_main_checkouts_head() {
    let site = Site::new();
    {
        let (base, task) = ("HEAD", "s2");
        let dir = site.station(task, &[]);
        commit(&dir, &format!("{task}/a.rs"), "a\n");
        let tip = site.branch(task);
        let out = site.rail(&["worktree", "remove", task, "--base", base]);
        assert_eq!(code(&out), 1, "{base}: {}", stdout(&out));
        assert!(
            stderr(&out).contains("1 commit not in"),
            "{base}: {}",
            stderr(&out)
        );
        assert!(dir.exists(), "{base}: the station stays");
        assert_eq!(site.branch(task), tip, "{base}: the branch stays");
    }

    // rail.yaml `stations: {on_done: remove, base: HEAD}` with `rail done`, run in the station.
    std::fs::write(
        site.repo.file("rail.yaml"),
        "check: \"true\"\nstations:\n  on_done: remove\n  base: HEAD\n",
    )
    .unwrap();
    let busy = site.station("busy", &[]);
    commit(&busy, "busy/a.rs", "a\n");
    let tip = site.branch("busy");
    let out = site.repo.rail_in(&busy, &["done", "busy"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("station kept: station"),
        "{}",
        stdout(&out)
    );
    assert!(busy.join("busy/a.rs").exists());
    assert_eq!(site.branch("busy"), tip, "the branch keeps its commit");
}

/// `--force` on a station whose HEAD is detached (a checked-out commit, a rebase stopped half
/// way): no branch holds its commits, so Rail keeps a rescue branch for them and names it.
#[test]
fn force_on_a_detached_station_keeps_its_commits_on_a_rescue_branch() {
    let site = Site::new();
    let dir = site.station("det", &[]);
    commit(&dir, "det/a.rs", "a\n");
    git_in(&dir, &["checkout", "-q", "--detach"]);
    commit(&dir, "det/b.rs", "b\n");
    let lost = git_in(&dir, &["rev-parse", "HEAD"]).trim().to_string();
    // The branch moves back: only the detached HEAD holds the two commits.
    git_in(site.repo.path(), &["branch", "-f", "det", "main"]);

    // A detached station is named by its path (no branch names it).
    let path = dir.to_str().unwrap();
    let out = site.rail(&["worktree", "remove", path]);
    assert_eq!(code(&out), 1, "{}{}", stdout(&out), stderr(&out));
    assert!(dir.exists());

    let out = site.rail(&["worktree", "remove", path, "--force"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(!dir.exists());
    let said = stdout(&out);
    assert!(said.contains("rail-rescue/det"), "{said}");
    assert_eq!(
        site.branch("rail-rescue/det").as_deref(),
        Some(lost.as_str()),
        "{said}"
    );
    // Every commit it made is reachable from a ref.
    let reachable = site.repo.git(&["branch", "--contains", &lost]);
    assert!(reachable.contains("rail-rescue/det"), "{reachable}");
}
