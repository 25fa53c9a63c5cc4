//! Rail's own reading of `git status` (cli/src/git/status.rs: a release lists its touched files
//! without a git process) against git's answer, on real repositories: one per state a checkout
//! can be in, each checked for the same list as `git status --porcelain --untracked-files=all
//! --no-renames` and for who answered (Rail, or git and why), then random file operations from
//! fixed seeds with the lists compared after every step. `rail check --json` shows the list
//! (the rail's own files left out, on both sides); `RAIL_TEST_STATUS=explain` says who answered.
//! Unix only: elsewhere Rail always asks git.
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use super::common::*;

/// An environment of its own for git and Rail alike: no global or system config of the
/// machine's, and Rail saying who answered.
struct Env {
    home: tempfile::TempDir,
}

impl Env {
    fn new() -> Env {
        Env {
            home: tempfile::tempdir().unwrap(),
        }
    }

    fn vars(&self) -> Vec<(&'static str, String)> {
        let home = self.home.path().to_str().unwrap().to_string();
        vec![
            ("HOME", home.clone()),
            ("XDG_CONFIG_HOME", format!("{home}/xdg")),
            ("GIT_CONFIG_NOSYSTEM", "1".into()),
            ("RAIL_SESSION", "s".into()),
            ("RAIL_TEST_STATUS", "explain".into()),
        ]
    }

    /// `git status`'s paths in `dir`, the rail's own files left out, sorted.
    fn git_status(&self, dir: &Path) -> Vec<String> {
        let out = Command::new("git")
            .args([
                "--no-optional-locks",
                "status",
                "--porcelain=v1",
                "-z",
                "--untracked-files=all",
                "--no-renames",
                "--ignore-submodules=none",
            ])
            .current_dir(dir)
            .envs(self.vars())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        let paths: std::collections::BTreeSet<String> = String::from_utf8(out.stdout)
            .unwrap()
            .split('\0')
            .filter(|e| !e.is_empty())
            .map(|e| e[3..].trim_end_matches('/').to_string())
            .filter(|p| !rail_file(p))
            .collect();
        paths.into_iter().collect()
    }

    /// Rail's list in `repo`'s checkout and, when git answered, why.
    fn rail_status(&self, repo: &Repo) -> (Vec<String>, Option<String>) {
        let vars = self.vars();
        let env: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let out = repo.rail_env(&["--json", "check"], &env);
        let report: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {} {}", stdout(&out), stderr(&out)));
        let files = report["files"]
            .as_array()
            .unwrap_or_else(|| panic!("{report}"))
            .iter()
            .map(|f| f["path"].as_str().unwrap().to_string())
            .collect();
        let err = stderr(&out);
        let why = if err.contains("rail: status read by rail") {
            None
        } else {
            let line = err
                .lines()
                .find_map(|l| l.strip_prefix("rail: status asked of git: "))
                .unwrap_or_else(|| panic!("who answered? {err}"));
            Some(line.to_string())
        };
        (files, why)
    }

    /// Rail's list equals git's; `asks_git`: the reason Rail gives git the question (a part of
    /// it), `None` when Rail must answer itself.
    fn check(&self, repo: &Repo, case: &str, asks_git: Option<&str>) {
        let git = self.git_status(repo.path());
        let (rail, why) = self.rail_status(repo);
        assert_eq!(rail, git, "{case}: Rail's list (who answered: {why:?})");
        match (asks_git, &why) {
            (None, None) => {}
            (Some(want), Some(got)) => assert!(got.contains(want), "{case}: asked git: {got}"),
            _ => panic!("{case}: expected git asked for {asks_git:?}, got {why:?}"),
        }
    }
}

fn rail_file(p: &str) -> bool {
    p == "claims.md"
        || p.starts_with("claims.md.")
        || p == "claims.log"
        || p == "rail.yaml"
        || p.starts_with("claims/")
}

fn write(repo: &Repo, path: &str, text: &str) {
    let p = repo.file(path);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn git(repo: &Repo, args: &[&str]) {
    repo.git(args);
}

/// A repository with a few committed files: `src/a.rs`, `src/deep/b.rs`, `lib/c.txt`, a link
/// `link -> src/a.rs`, and ignore files at the root and in `src/`.
fn base() -> Repo {
    let repo = Repo::new();
    write(&repo, "src/a.rs", "fn a() {}\n");
    write(&repo, "src/deep/b.rs", "fn b() {}\n");
    write(&repo, "lib/c.txt", "c\n");
    std::os::unix::fs::symlink("src/a.rs", repo.file("link")).unwrap();
    write(
        &repo,
        ".gitignore",
        "claims.md.lock*\ntarget/\n*.log\n!keep.log\n",
    );
    write(&repo, "src/.gitignore", "*.tmp\n/only-here\n");
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-qm", "base"]);
    repo
}

/// The states a checkout can be in, each in a repository of its own: Rail's list is git's,
/// and Rail answers itself except where only git can be sure.
#[test]
fn rails_list_is_git_status_in_every_state() {
    let env = Env::new();
    type Setup = fn(&Repo);
    let cases: Vec<(&str, Setup, Option<&str>)> = vec![
        ("clean", |_| {}, None),
        ("modified", |r| write(r, "src/a.rs", "fn a() { 1 }\n"), None),
        (
            "modified, same size",
            |r| write(r, "src/a.rs", "fn b() {}\n"),
            None,
        ),
        (
            "touched, same content",
            |r| {
                let f = std::fs::File::options()
                    .write(true)
                    .open(r.file("src/a.rs"))
                    .unwrap();
                f.set_modified(
                    std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1 << 30),
                )
                .unwrap();
            },
            None,
        ),
        (
            "deleted",
            |r| std::fs::remove_file(r.file("lib/c.txt")).unwrap(),
            None,
        ),
        (
            "staged only",
            |r| {
                write(r, "new.rs", "new\n");
                git(r, &["add", "new.rs"]);
            },
            None,
        ),
        (
            "staged, then changed again",
            |r| {
                write(r, "src/a.rs", "one\n");
                git(r, &["add", "src/a.rs"]);
                write(r, "src/a.rs", "fn a() {}\n");
            },
            None,
        ),
        (
            "removed from the index only",
            |r| git(r, &["rm", "-q", "--cached", "lib/c.txt"]),
            None,
        ),
        (
            "untracked, ignored and re-included",
            |r| {
                write(r, "notes.txt", "n\n");
                write(r, "deep/er/new.txt", "n\n");
                write(r, "target/out.bin", "x\n");
                write(r, "run.log", "x\n");
                write(r, "keep.log", "x\n");
                write(r, "src/x.tmp", "x\n");
                write(r, "src/deep/y.tmp", "x\n");
                write(r, "src/only-here", "x\n");
                write(r, "src/deep/only-here", "x\n");
            },
            None,
        ),
        (
            "nested .gitignore with negation and anchored patterns",
            |r| {
                write(r, "a/.gitignore", "*\n!*.keep\n!sub/\n");
                write(r, "a/x.keep", "k\n");
                write(r, "a/x.drop", "d\n");
                write(r, "a/sub/y.keep", "k\n");
                write(r, "b/.gitignore", "/c/*\n!/c/d\nfoo**/bar\n**/deep\n");
                write(r, "b/c/e", "e\n");
                write(r, "b/c/d", "d\n");
                write(r, "b/foox/y/bar", "q\n");
                write(r, "b/z/deep", "q\n");
            },
            None,
        ),
        (
            "an ignored folder holding tracked files",
            |r| {
                write(r, "gen/tracked.txt", "t\n");
                git(r, &["add", "gen/tracked.txt"]);
                git(r, &["commit", "-qm", "gen"]);
                write(r, ".git/info/exclude", "gen/\n");
                write(r, "gen/untracked.txt", "u\n");
                write(r, "gen/tracked.txt", "changed\n");
            },
            None,
        ),
        (
            "core.excludesFile",
            |r| {
                let file = r.file(".git/my-ignore");
                std::fs::write(&file, "*.bak\n").unwrap();
                git(r, &["config", "core.excludesFile", file.to_str().unwrap()]);
                write(r, "x.bak", "b\n");
                write(r, "x.txt", "t\n");
            },
            None,
        ),
        (
            "a link pointed elsewhere",
            |r| {
                std::fs::remove_file(r.file("link")).unwrap();
                std::os::unix::fs::symlink("lib/c.txt", r.file("link")).unwrap();
            },
            None,
        ),
        (
            "a link replaced by a file, a file by a link",
            |r| {
                std::fs::remove_file(r.file("link")).unwrap();
                write(r, "link", "src/a.rs");
                std::fs::remove_file(r.file("lib/c.txt")).unwrap();
                std::os::unix::fs::symlink("../src/a.rs", r.file("lib/c.txt")).unwrap();
            },
            None,
        ),
        (
            "an untracked link to a folder",
            |r| std::os::unix::fs::symlink("src", r.file("src-link")).unwrap(),
            None,
        ),
        (
            "a folder replaced by a link to a folder",
            |r| {
                std::fs::remove_dir_all(r.file("src/deep")).unwrap();
                std::os::unix::fs::symlink("../lib", r.file("src/deep")).unwrap();
            },
            None,
        ),
        (
            "a file replaced by a folder, a folder by a file",
            |r| {
                std::fs::remove_file(r.file("lib/c.txt")).unwrap();
                write(r, "lib/c.txt/inner", "i\n");
                std::fs::remove_dir_all(r.file("src/deep")).unwrap();
                write(r, "src/deep", "now a file\n");
            },
            None,
        ),
        (
            "the executable bit",
            |r| {
                let p = r.file("src/a.rs");
                std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
            },
            None,
        ),
        (
            "the executable bit, core.filemode false",
            |r| {
                git(r, &["config", "core.filemode", "false"]);
                let p = r.file("src/a.rs");
                std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
            },
            None,
        ),
        (
            "renamed with git mv",
            |r| git(r, &["mv", "src/a.rs", "src/renamed.rs"]),
            None,
        ),
        (
            "renamed without git",
            |r| std::fs::rename(r.file("lib/c.txt"), r.file("lib/d.txt")).unwrap(),
            None,
        ),
        (
            "intent to add",
            |r| {
                write(r, "ita.rs", "i\n");
                git(r, &["add", "-N", "ita.rs"]);
            },
            None,
        ),
        (
            "an index no older than its files (racily clean)",
            |r| {
                // The file's time is after the index's: git trusts no stat data of it.
                let later = std::time::SystemTime::now() + std::time::Duration::from_secs(3600);
                write(r, "racy.txt", "aaaa\n");
                let f = std::fs::File::options()
                    .write(true)
                    .open(r.file("racy.txt"))
                    .unwrap();
                f.set_modified(later).unwrap();
                git(r, &["add", "racy.txt"]);
                git(r, &["commit", "-qm", "racy"]);
                std::fs::write(r.file("racy.txt"), "bbbb\n").unwrap();
                let f = std::fs::File::options()
                    .write(true)
                    .open(r.file("racy.txt"))
                    .unwrap();
                f.set_modified(later).unwrap();
            },
            None,
        ),
        (
            "index version 4",
            |r| {
                git(r, &["update-index", "--index-version", "4"]);
                write(r, "src/deep/b.rs", "changed\n");
            },
            None,
        ),
        (
            "packed objects and refs, HEAD's commit stored as a delta",
            |r| {
                let long = "a long message line ".repeat(100);
                for i in 0..6 {
                    write(r, "lib/c.txt", &format!("{i}\n"));
                    git(r, &["commit", "-qam", &format!("{long}{i}")]);
                }
                git(r, &["repack", "-q", "-adf", "--window=250", "--depth=50"]);
                git(r, &["pack-refs", "--all"]);
                git(r, &["checkout", "-q", "--detach", "HEAD~2"]);
                write(r, "src/a.rs", "changed\n");
                git(r, &["add", "src/a.rs"]);
                // `git verify-pack -v`: a delta's line names its depth and base.
                let head = r.git(&["rev-parse", "HEAD"]);
                let pack = std::fs::read_dir(r.file(".git/objects/pack"))
                    .unwrap()
                    .flatten()
                    .map(|e| e.path())
                    .find(|p| p.extension().is_some_and(|x| x == "idx"))
                    .unwrap();
                let listing = r.git(&["verify-pack", "-v", pack.to_str().unwrap()]);
                let line = listing
                    .lines()
                    .find(|l| l.starts_with(head.trim()))
                    .unwrap();
                assert!(line.split_whitespace().count() >= 7, "not a delta: {line}");
            },
            None,
        ),
        (
            "a repository without commits",
            |r| {
                std::fs::remove_dir_all(r.file(".git")).unwrap();
                git(r, &["init", "-q", "-b", "main"]);
                git(r, &["add", "src"]);
            },
            None,
        ),
        (
            "staged changes after a rebase (the cache-tree invalid)",
            |r| {
                git(r, &["reset", "-q", "HEAD~1"]);
                write(r, "src/a.rs", "x\n");
                git(r, &["add", "src/a.rs"]);
            },
            None,
        ),
        (
            "an index large enough to be judged on several threads",
            |r| {
                for i in 0..2100 {
                    write(r, &format!("many/d{}/f{i}.txt", i % 30), &format!("{i}\n"));
                }
                git(r, &["add", "many"]);
                git(r, &["commit", "-qm", "many"]);
                for i in [3, 1500, 2099] {
                    write(r, &format!("many/d{}/f{i}.txt", i % 30), "changed!\n");
                }
                std::fs::remove_file(r.file("many/d0/f1800.txt")).unwrap();
                write(r, "many/d7/new.txt", "new\n");
            },
            None,
        ),
        (
            "a submodule",
            |r| {
                let sub = r.file("sub-origin");
                std::fs::create_dir_all(&sub).unwrap();
                git_in(&sub, &["init", "-q"]);
                commit(&sub, "s.txt", "s\n");
                git(
                    r,
                    &[
                        "-c",
                        "protocol.file.allow=always",
                        "submodule",
                        "add",
                        "-q",
                        "./sub-origin",
                        "sm",
                    ],
                );
            },
            Some("a submodule"),
        ),
        (
            "a repository inside the checkout",
            |r| {
                std::fs::create_dir_all(r.file("inner")).unwrap();
                git_in(&r.file("inner"), &["init", "-q"]);
            },
            Some("a repository inside the checkout"),
        ),
        (
            "skip-worktree",
            |r| git(r, &["update-index", "--skip-worktree", "lib/c.txt"]),
            Some("only git follows"),
        ),
        (
            "a sparse checkout",
            |r| git(r, &["sparse-checkout", "set", "src"]),
            Some("sparse"),
        ),
        (
            "assume-unchanged",
            |r| git(r, &["update-index", "--assume-unchanged", "lib/c.txt"]),
            Some("only git follows"),
        ),
        (
            "a split index",
            |r| git(r, &["update-index", "--split-index"]),
            Some("a split index"),
        ),
        (
            "a conflict",
            |r| {
                git(r, &["checkout", "-q", "-b", "side"]);
                write(r, "lib/c.txt", "side\n");
                git(r, &["commit", "-qam", "side"]);
                git(r, &["checkout", "-q", "main"]);
                write(r, "lib/c.txt", "main\n");
                git(r, &["commit", "-qam", "main"]);
                let out = Command::new("git")
                    .args(["merge", "-q", "side"])
                    .current_dir(r.path())
                    .output()
                    .unwrap();
                assert!(!out.status.success());
            },
            Some("write a tree"),
        ),
        (
            "a touched file an attribute may convert",
            |r| {
                write(r, ".gitattributes", "* text=auto\n");
                git(r, &["commit", "-qam", "attributes"]);
                let f = std::fs::File::options()
                    .write(true)
                    .open(r.file("src/a.rs"))
                    .unwrap();
                f.set_modified(std::time::SystemTime::UNIX_EPOCH).unwrap();
            },
            Some("may convert"),
        ),
        (
            "a touched file core.autocrlf may convert",
            |r| {
                git(r, &["config", "core.autocrlf", "true"]);
                let f = std::fs::File::options()
                    .write(true)
                    .open(r.file("src/a.rs"))
                    .unwrap();
                f.set_modified(std::time::SystemTime::UNIX_EPOCH).unwrap();
            },
            Some("core.autocrlf"),
        ),
        (
            "a pattern this reader does not follow",
            |r| write(r, "lib/.gitignore", "[[:digit:]]*\n"),
            Some("[:class:]"),
        ),
        (
            "a .gitignore that is a link",
            |r| std::os::unix::fs::symlink("../.gitignore", r.file("lib/.gitignore")).unwrap(),
            Some("a .gitignore that is a link"),
        ),
        (
            "a SHA-256 repository",
            |r| {
                std::fs::remove_dir_all(r.file(".git")).unwrap();
                git(r, &["init", "-q", "-b", "main", "--object-format=sha256"]);
                git(r, &["add", "src"]);
            },
            Some("SHA-256"),
        ),
    ];
    for (case, setup, asks_git) in cases {
        let repo = base();
        setup(&repo);
        env.check(&repo, case, asks_git);
    }
}

/// A release in the main checkout lists what `git status` lists, and starts no git process
/// for it (issue 30): counted through a `git` on PATH that logs its arguments.
#[test]
fn a_main_checkout_release_runs_no_git() {
    let repo = base();
    let bin = tempfile::tempdir().unwrap();
    let (path, calls) = logging_git(bin.path());
    let env = [("PATH", path.as_str()), ("RAIL_SESSION", "s")];
    let out = repo.rail_env(&["claim", "t"], &env);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    write(&repo, "src/a.rs", "changed\n");
    write(&repo, "staged.txt", "new\n");
    repo.git(&["add", "staged.txt"]);
    write(&repo, "dir/untracked.txt", "draft\n");
    write(&repo, "target/ignored", "x\n");
    let _ = std::fs::remove_file(&calls);
    let out = repo.rail_env(&["release", "t"], &env);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let log = repo.read("claims.log");
    assert!(
        log.contains("| released | t | s | touched: dir/untracked.txt, src/a.rs, staged.txt"),
        "{log}"
    );
    let calls = std::fs::read_to_string(&calls).unwrap_or_default();
    assert_eq!(calls, "", "git processes of a release");
}

/// A small deterministic random number generator (no dependency, the same steps every run).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// Random file operations from fixed seeds, Rail's list compared with git's after every step;
/// every pattern and operation here is one Rail follows, so Rail answers every time.
#[test]
fn random_file_operations_keep_rails_list_gits() {
    let dirs = ["", "a/", "a/b/", "c/", "a/b/d/"];
    let names = ["x.txt", "y.log", "z.c", "keep.log", "tmp", "build", "n.o"];
    let contents = [
        "",
        "1\n",
        "2\n",
        "22\n",
        "a longer line\n",
        "b longer line\n",
    ];
    let patterns = [
        "*.log",
        "!keep.log",
        "build/",
        "/tmp",
        "**/z.c",
        "a/**/x.txt",
        "*.o",
        "[xy].*",
        "b/",
        "!b/",
        "d*/",
        "?.c",
        "a/b",
        "\\!x",
        "c/*",
        "**/build/**",
    ];
    let env = Env::new();
    for seed in [1u64, 7, 2026] {
        let repo = Repo::new();
        let mut rng = Lcg(seed);
        for step in 0..40 {
            let path = format!("{}{}", rng.pick(&dirs), rng.pick(&names));
            let what = match rng.below(10) {
                0..=2 => {
                    let text = rng.pick(&contents);
                    let p = repo.file(&path);
                    if p.is_dir() || p.is_symlink() {
                        continue;
                    }
                    write(&repo, &path, text);
                    format!("write {path}")
                }
                3 => {
                    let _ = std::fs::remove_file(repo.file(&path));
                    format!("remove {path}")
                }
                4 => {
                    let _ = Command::new("git")
                        .args(["add", "-A", "--", &path])
                        .current_dir(repo.path())
                        .output();
                    format!("git add {path}")
                }
                5 => {
                    git(&repo, &["commit", "-qam", "step", "--allow-empty"]);
                    "commit -a".to_string()
                }
                6 => {
                    let dir = rng.pick(&dirs);
                    let gitignore = repo.file(&format!("{dir}.gitignore"));
                    let mut text = std::fs::read_to_string(&gitignore).unwrap_or_default();
                    text.push_str(rng.pick(&patterns));
                    text.push('\n');
                    write(&repo, &format!("{dir}.gitignore"), &text);
                    format!("ignore in {dir}: {text:?}")
                }
                7 => {
                    let p = repo.file(&path);
                    if p.is_file() {
                        let mode = if rng.below(2) == 0 { 0o755 } else { 0o644 };
                        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode))
                            .unwrap();
                    }
                    format!("chmod {path}")
                }
                8 => {
                    let p = repo.file(&path);
                    if std::fs::symlink_metadata(&p).is_err() {
                        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                        std::os::unix::fs::symlink(rng.pick(&names), &p).unwrap();
                    }
                    format!("link {path}")
                }
                _ => {
                    let _ = Command::new("git")
                        .args(["rm", "-q", "--cached", "--", &path])
                        .current_dir(repo.path())
                        .output();
                    format!("git rm --cached {path}")
                }
            };
            env.check(&repo, &format!("seed {seed} step {step}: {what}"), None);
        }
    }
}
