//! Issue 41, finding 1: no value from outside Rail reaches git as an option. A `--base` from a
//! user or an agent's Bash call, the ids on a pre-push hook's stdin, and the remote named in a
//! committed rail.yaml or in git's config are each tried as the attack they allowed: a file
//! emptied by `git diff --output=F`, a command run by `git fetch --upload-pack=CMD`. Each must
//! fail with words, and leave every file as it was.

use crate::common::NoSession;
use std::process::{Command, Stdio};

use crate::common::{code, stderr, Repo};

/// A file the attacks aim at, with content that must survive.
fn target(repo: &Repo, name: &str) -> std::path::PathBuf {
    let path = repo.file(name);
    std::fs::write(&path, "someone's uncommitted work\n").unwrap();
    path
}

#[test]
fn a_base_that_is_a_git_option_is_refused_by_check_release_done_and_worktree() {
    let repo = Repo::new();
    let out = repo.rail(&["claim", "t", "--session", "s", "--path", "src/**"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let victim = target(&repo, "work.txt");
    let claims = repo.read("claims.md");
    let base = format!("--base=--output={}", victim.display());
    let tries: [&[&str]; 4] = [
        &["check", "--session", "s", &base],
        &["release", "t", "--session", "s", &base],
        &["done", "t", "--session", "s", "--check", "true", &base],
        &["worktree", "w", "--session", "w", &base],
    ];
    for args in tries {
        let out = repo.rail(args);
        assert_ne!(code(&out), 0, "{args:?} passed");
        assert!(
            stderr(&out).contains("would reach git as an option"),
            "{args:?}: {}",
            stderr(&out)
        );
        assert_eq!(
            repo.read("work.txt"),
            "someone's uncommitted work\n",
            "{args:?} emptied the file"
        );
    }
    assert_eq!(repo.read("claims.md"), claims, "a claim changed");
    let worktrees = repo.git(&["worktree", "list", "--porcelain"]);
    assert_eq!(worktrees.matches("worktree ").count(), 1, "{worktrees}");
}

/// git gives a pre-push hook `<local ref> <local id> <remote ref> <remote id>` lines; whoever
/// runs `rail check --pre-push` may give anything.
#[test]
fn pre_push_ids_are_operands() {
    let repo = Repo::new();
    let victim = target(&repo, "work.txt");
    let zero = "0".repeat(40);
    for input in [
        format!(
            "refs/heads/main --output={} refs/heads/main {zero}\n",
            victim.display()
        ),
        format!(
            "refs/heads/main HEAD refs/heads/main --output={}\n",
            victim.display()
        ),
    ] {
        let mut child = Command::new(crate::common::rail_bin())
            .args(["check", "--pre-push", "--session", "s"])
            .current_dir(repo.path())
            .no_session()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert_ne!(code(&out), 0, "{input}");
        assert!(
            stderr(&out).contains("would reach git as an option"),
            "{input}: {}",
            stderr(&out)
        );
        assert_eq!(
            repo.read("work.txt"),
            "someone's uncommitted work\n",
            "{input}"
        );
    }
}

/// rail.yaml is committed: any branch merged in writes it. `remote: --upload-pack=CMD` ran CMD
/// on the next `rail claim` of everyone who pulled it; a URL there would share the rail with
/// whoever it names. A remote must be one of this clone's remotes, by name.
#[test]
fn a_remote_from_rail_yaml_or_git_config_is_a_configured_remote_name() {
    let repo = Repo::new();
    let pwned = repo.path().join("PWNED");
    let yaml = repo.read("rail.yaml");
    let hostile = format!(
        "{yaml}remote: \"--upload-pack=touch {};\"\n",
        pwned.display()
    );
    std::fs::write(repo.file("rail.yaml"), &hostile).unwrap();
    // Changes stop; reads show the local copy, saying why it is not the shared one, and fail
    // on rail.yaml's error as validate does.
    for args in [
        &["claim", "t", "--session", "s"][..],
        &["sync"][..],
        &["board"][..],
        &["validate"][..],
    ] {
        let out = repo.rail(args);
        assert_ne!(code(&out), 0, "{args:?}");
        assert!(
            stderr(&out).contains("rail.yaml's `remote:` is not a git remote's name"),
            "{args:?}: {}",
            stderr(&out)
        );
        assert!(!pwned.exists(), "{args:?} ran the remote's command");
    }
    // validate names the line and column.
    let out = repo.rail(&["validate"]);
    let line = yaml.lines().count() + 1;
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(&format!("rail.yaml:{line}:9: error")),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(!repo.read("claims.md").contains("t | s"));

    // A URL or a path is not a remote's name; a name this clone lacks is said so.
    for (value, says) in [
        (
            "https://example.invalid/r.git",
            "is not a git remote's name",
        ),
        ("../elsewhere", "is not a git remote's name"),
        ("nosuch", "is not a remote of this clone"),
    ] {
        std::fs::write(repo.file("rail.yaml"), format!("{yaml}remote: '{value}'\n")).unwrap();
        let out = repo.rail(&["claim", "t", "--session", "s"]);
        assert_ne!(code(&out), 0, "{value}");
        assert!(stderr(&out).contains(says), "{value}: {}", stderr(&out));
    }
    std::fs::write(repo.file("rail.yaml"), &yaml).unwrap();
    repo.git(&["config", "rail.remote", "--upload-pack=x"]);
    let out = repo.rail(&["claim", "t", "--session", "s"]);
    assert!(
        stderr(&out).contains("git config rail.remote is not a git remote's name"),
        "{}",
        stderr(&out)
    );
    // RAIL_LOCAL=1 asks for no remote: the local rail works.
    let out = repo.rail_env(&["claim", "t", "--session", "s"], &[("RAIL_LOCAL", "1")]);
    assert!(out.status.success(), "{}", stderr(&out));
}
