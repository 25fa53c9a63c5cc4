//! Machine keys and a proven shared history (issue 42, findings 1 and 6): machines sign the
//! rail's commits with SSH keys the team lists in `.rail/allowed-signers` on the main branch,
//! and a machine proves every fetched state before it builds on it. Forgeries are made the way
//! an attacker makes them: plain git on another clone, pushed as a fast-forward.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::{git_stdin, machine_id, machines, Machine, Remote};
use crate::common::*;

/// A fresh Ed25519 key in `dir`: its private key file.
fn keygen(dir: &Path, name: &str) -> PathBuf {
    let key = dir.join(name);
    let out = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", name, "-f"])
        .arg(&key)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    key
}

/// Two machines whose keys the team committed on main; each signs with its own. Returns the
/// machines and their keys.
fn keyed(remote: &Remote, keys: &Path) -> (Vec<Machine>, Vec<PathBuf>) {
    let ms = machines(remote, 2);
    let mut lines = String::new();
    let mut paths = Vec::new();
    for (i, m) in ms.iter().enumerate() {
        let key = keygen(keys, &format!("m{i}"));
        git_in(
            m.path(),
            &["config", "rail.signingKey", key.to_str().unwrap()],
        );
        let public = std::fs::read_to_string(key.with_extension("pub")).unwrap();
        lines.push_str(&format!("{} namespaces=\"git\" {}", machine_id(m), public));
        paths.push(key);
    }
    let a = &ms[0];
    std::fs::create_dir_all(a.path().join(".rail")).unwrap();
    std::fs::write(a.path().join(".rail/allowed-signers"), lines).unwrap();
    git_in(a.path(), &["add", ".rail/allowed-signers"]);
    git_in(a.path(), &["commit", "-q", "-m", "the team's machines"]);
    git_in(a.path(), &["push", "-q", "origin", "HEAD:main"]);
    git_in(ms[1].path(), &["pull", "-q", "origin", "main"]);
    (ms, paths)
}

/// On `m`, with plain git: a commit on top of the remote's shared ref whose claims.md is
/// `edit`ed, pushed as a fast-forward (signed with `key` when given, recording nothing).
fn forge(m: &Machine, key: Option<&Path>, edit: impl Fn(&str) -> String) -> String {
    let commit = forged_commit(m, key, edit, "tidy up");
    git_in(
        m.path(),
        &[
            "push",
            "-q",
            "origin",
            &format!("{commit}:refs/rail/claims"),
        ],
    );
    commit
}

/// On `m`, with plain git: a commit (`message`) on top of the remote's shared ref, fetched as
/// `refs/forge`, whose claims.md is `edit`ed (signed with `key` when given), not pushed.
fn forged_commit(
    m: &Machine,
    key: Option<&Path>,
    edit: impl Fn(&str) -> String,
    message: &str,
) -> String {
    git_in(
        m.path(),
        &["fetch", "-q", "origin", "+refs/rail/claims:refs/forge"],
    );
    let claims = git_in(m.path(), &["show", "refs/forge:claims.md"]);
    let blob = git_stdin(
        m.path(),
        &["hash-object", "-w", "--stdin"],
        edit(&claims).as_bytes(),
    );
    let listing = git_in(m.path(), &["ls-tree", "refs/forge"]);
    let tree_text: String = listing
        .lines()
        .map(|l| match l.split_once('\t') {
            Some((_, "claims.md")) => format!("100644 blob {}\tclaims.md\n", blob.trim()),
            _ => format!("{l}\n"),
        })
        .collect();
    let tree = git_stdin(m.path(), &["mktree"], tree_text.as_bytes());
    signed_commit_tree(m, key, &[tree.trim(), "-p", "refs/forge", "-m", message])
}

/// `git commit-tree ARGS` on `m`, signed with `key` (git's SSH signing) when given.
fn signed_commit_tree(m: &Machine, key: Option<&Path>, args: &[&str]) -> String {
    let signing = key.map(|k| format!("user.signingkey={}", k.display()));
    let mut line = vec![];
    if let Some(s) = &signing {
        line.extend(["-c", "gpg.format=ssh", "-c", s.as_str()]);
    }
    line.push("commit-tree");
    line.extend(args);
    if key.is_some() {
        line.push("-S");
    }
    git_in(m.path(), &line).trim().to_string()
}

fn ok(out: &std::process::Output) -> String {
    assert_eq!(code(out), 0, "{}", stderr(out));
    stderr(out)
}

/// Finding 1: machine B, with plain git, fast-forwards the shared ref to a commit where alice's
/// claim reads mallory's (signed with B's own allowed key, recording nothing), then to one where
/// it is gone (unsigned). A's next sync names each forgery, builds nothing on it, restores
/// alice's claim from the last proven state, and alice's agent is told at its next hook call.
#[test]
fn a_forged_fast_forward_is_not_built_on_and_is_named() {
    let remote = Remote::by_path();
    let keys = tempfile::tempdir().unwrap();
    let (ms, paths) = keyed(&remote, keys.path());
    let (a, b) = (&ms[0], &ms[1]);
    ok(&a.rail(&["claim", "auth", "--session", "alice"], &[]));
    // alice's agent runs on a: its hook is seen there.
    let hook = hook_call(
        "claude",
        a.path(),
        &claude_bash(a.path(), "ls"),
        Some("alice"),
        &[],
    );
    assert_eq!(code(&hook), 0, "{}", stderr(&hook));
    ok(&b.rail(&["sync"], &[]));

    let forged = forge(b, Some(&paths[1]), |c| {
        c.replace("| alice |", "| mallory |")
    });
    assert!(remote.shared_file("claims.md").contains("| mallory |"));
    let said = ok(&a.rail(&["sync"], &[]));
    assert!(said.contains("not proven"), "{said}");
    assert!(said.contains(&forged[..12]), "{said}");
    assert!(said.contains("alice's claim of auth"), "{said}");
    let claims = remote.shared_file("claims.md");
    assert!(claims.contains("auth | alice |"), "{claims}");
    assert!(!claims.contains("mallory"), "{claims}");
    // The restore is itself proven: b builds on it without a word.
    let out = b.rail(&["claim", "billing", "--session", "bob"], &[]);
    let said_b = ok(&out);
    assert!(!said_b.contains("not proven"), "{said_b}");
    // alice's agent hears of it at its next hook call on a.
    let told = hook_call(
        "claude",
        a.path(),
        &claude_bash(a.path(), "ls"),
        Some("alice"),
        &[],
    );
    let said = format!("{}{}", stdout(&told), stderr(&told));
    assert!(
        said.contains("alice's claim of auth was changed on the shared rail")
            && said.contains(&forged[..12]),
        "{said}"
    );

    // Rail's own commits are signed as git signs them: git itself verifies them.
    let signers = a.path().join(".rail/allowed-signers");
    let verify = git_in(
        a.path(),
        &[
            "-c",
            &format!("gpg.ssh.allowedSignersFile={}", signers.display()),
            "log",
            "-1",
            "--format=%G? %GS",
            "origin/main",
        ],
    );
    assert_eq!(verify.trim(), "N", "main's own commit is not Rail's");
    let signed = remote.git(&["cat-file", "-p", "refs/rail/claims"]);
    assert!(
        signed.contains("gpgsig -----BEGIN SSH SIGNATURE-----"),
        "{signed}"
    );
    // Unsigned, the line gone.
    let forged = forge(b, None, |c| {
        c.lines()
            .filter(|l| !l.contains("| alice |"))
            .map(|l| format!("{l}\n"))
            .collect()
    });
    // A CI job proving the remote's history sees it before any machine does.
    let out = b.rail(&["validate", "--ci", "--shared"], &[]);
    assert_eq!(code(&out), 1, "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains(&forged[..12]), "{}", stdout(&out));
    let said = ok(&a.rail(&["sync"], &[]));
    assert!(
        said.contains(&forged[..12]) && said.contains("not signed"),
        "{said}"
    );
    let claims = remote.shared_file("claims.md");
    assert!(
        claims.contains("auth | alice |") && claims.contains("billing | bob |"),
        "{claims}"
    );
    // From the remote's whole history, every forgery is answered by a restore.
    let out = a.rail(&["validate", "--ci", "--shared"], &[]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let _ = b;
}

/// On `m`, with plain git: `name` on the remote set (forced) to a commit whose `seen` holds
/// `text`, signed with `key` when given.
fn forge_marks(m: &Machine, name: &str, text: &str, key: Option<&Path>) {
    let commit = marks_commit(m, text, key);
    git_in(
        m.path(),
        &["push", "-q", "origin", &format!("+{commit}:{name}")],
    );
}

/// On `m`, with plain git: a commit whose `seen` holds `text` (signed with `key` when given), not
/// pushed.
fn marks_commit(m: &Machine, text: &str, key: Option<&Path>) -> String {
    let blob = git_stdin(m.path(), &["hash-object", "-w", "--stdin"], text.as_bytes());
    let entry = format!("100644 blob {}\tseen\n", blob.trim());
    let tree = git_stdin(m.path(), &["mktree"], entry.as_bytes());
    signed_commit_tree(m, key, &[tree.trim(), "-m", "marks"])
}

/// Finding 6: guard marks are read only when signed by the machine their ref names. An empty
/// mark pushed over a's (unsigned, or signed with b's own key) leaves alice guarded; marks for a
/// session that never ran a hook, dated 2099, under a made-up machine are not read, and under
/// b's own (signed by b: b speaks for its sessions) are dated no later than b's reading.
#[test]
fn guard_marks_are_read_only_from_the_machine_they_name() {
    let remote = Remote::by_path();
    let keys = tempfile::tempdir().unwrap();
    let (ms, paths) = keyed(&remote, keys.path());
    let (a, b) = (&ms[0], &ms[1]);
    ok(&a.rail(&["claim", "auth", "--session", "alice"], &[]));
    ok(&b.rail(&["claim", "web", "--session", "ghost"], &[]));
    super::marks::stop(a, "alice");
    ok(&b.rail(&["sync"], &[]));
    let a_id = machine_id(a);
    assert_eq!(
        super::marks::session(b, "alice")["hook"]["host"],
        a_id.as_str()
    );
    // On a third clone (anyone who can push), and with b's key.
    let ghost = "session ghost\nagent claude\nat 2099-01-01T00:00:00Z\n\n";
    forge_marks(b, &format!("refs/rail/seen/{a_id}"), "", None);
    forge_marks(b, "refs/rail/seen/evil-1", ghost, None);
    let said = ok(&b.rail(&["sync"], &[]));
    let alice = super::marks::session(b, "alice");
    assert_eq!(alice["hook"]["host"], a_id.as_str(), "{alice}");
    assert_eq!(alice["unguarded"], false, "{alice}");
    assert!(
        said.contains(&format!("refs/rail/seen/{a_id} are not read")),
        "{said}"
    );
    let g = super::marks::session(b, "ghost");
    assert!(g["hook"].is_null(), "{g}");
    // Signed with b's key over a's marks: not a's.
    forge_marks(b, &format!("refs/rail/seen/{a_id}"), "", Some(&paths[1]));
    let said = ok(&b.rail(&["sync"], &[]));
    assert!(said.contains("not by"), "{said}");
    assert_eq!(super::marks::session(b, "alice")["unguarded"], false);
    // b's own ref, signed by b, dated 2099, read on a: clamped to a's now.
    let b_id = machine_id(b);
    forge_marks(b, &format!("refs/rail/seen/{b_id}"), ghost, Some(&paths[1]));
    ok(&a.rail(&["sync"], &[]));
    let g = super::marks::session(a, "ghost");
    let at = g["hook"]["seen_at"].as_str().unwrap_or("").to_string();
    assert!(at.starts_with("20") && !at.starts_with("2099"), "{g}");
}

/// `rail verify-push` as the remote's pre-receive hook: the machines' own pushes land; a
/// forged commit (signed with b's key, recording nothing), an unsigned one, a deletion, a
/// rewind and marks pushed over a's ref with b's key are refused by the server itself.
#[cfg(unix)]
#[test]
fn a_servers_hook_refuses_what_cannot_be_proven() {
    use std::os::unix::fs::PermissionsExt;
    let remote = Remote::by_path();
    let keys = tempfile::tempdir().unwrap();
    let (ms, paths) = keyed(&remote, keys.path());
    let (a, b) = (&ms[0], &ms[1]);
    let hook = remote.bare_path().join("hooks/pre-receive");
    std::fs::write(
        &hook,
        format!(
            "#!/bin/sh\nwhile read old new ref; do '{}' verify-push \"$old\" \"$new\" \"$ref\" || exit 1; done\n",
            rail_bin().display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    // The machines' own operations (signed, proven; their marks and queues by themselves).
    ok(&a.rail(&["claim", "auth", "--session", "alice"], &[]));
    super::marks::stop(a, "alice");
    ok(&b.rail(&["claim", "web", "--session", "bob"], &[]));
    ok(&a.rail(&["sync"], &[]));
    let tip = remote.git(&["rev-parse", "refs/rail/claims"]);
    let push = |m: &Machine, spec: &str| {
        let out = Command::new("git")
            .args(["push", "origin", spec])
            .current_dir(m.path())
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let attempt = |key: Option<&Path>| {
        forged_commit(
            b,
            key,
            |claims| claims.replace("| alice |", "| mallory |"),
            "x",
        )
    };
    for key in [Some(paths[1].as_path()), None] {
        let forged = attempt(key);
        let (landed, said) = push(b, &format!("{forged}:refs/rail/claims"));
        assert!(!landed && said.contains("not proven"), "{said}");
    }
    let (landed, said) = push(b, ":refs/rail/claims");
    assert!(!landed && said.contains("deletes"), "{said}");
    let parent = remote.git(&["rev-parse", "refs/rail/claims~1"]);
    let (landed, said) = push(b, &format!("+{}:refs/rail/claims", parent.trim()));
    assert!(!landed && said.contains("rewinds"), "{said}");
    let a_id = machine_id(a);
    let marks = remote.git(&["rev-parse", &format!("refs/rail/seen/{a_id}")]);
    forge_marks_try(b, &a_id, &paths[1], &push);
    assert_eq!(remote.git(&["rev-parse", "refs/rail/claims"]), tip);
    assert_eq!(
        remote.git(&["rev-parse", &format!("refs/rail/seen/{a_id}")]),
        marks
    );
    // And the machines carry on.
    ok(&a.rail(&["release", "auth", "--session", "alice"], &[]));
}

#[cfg(unix)]
fn forge_marks_try(
    b: &Machine,
    a_id: &str,
    key: &Path,
    push: &dyn Fn(&Machine, &str) -> (bool, String),
) {
    let commit = marks_commit(b, "", Some(key));
    let (landed, said) = push(b, &format!("+{commit}:refs/rail/seen/{a_id}"));
    assert!(!landed && said.contains("not by"), "{said}");
}

/// A team without keys keeps working, told on every read that the shared rail is unverified;
/// `rail init --remote` takes an existing `~/.ssh/id_ed25519`, records it and writes this
/// machine's allowed-signers line for the team to commit — once it is on main, the warning goes.
#[test]
fn init_sets_a_machines_key_up_and_reads_warn_until_the_team_has_keys() {
    let remote = Remote::by_path();
    let ms = machines(&remote, 1);
    let a = &ms[0];
    // The board says it itself (its other reads on stderr).
    let out = a.rail(&["board"], &[]);
    ok(&out);
    let said = stdout(&out);
    assert!(said.contains("UNVERIFIED"), "{said}");
    let said = ok(&a.rail(&["log"], &[]));
    assert!(said.contains("UNVERIFIED"), "{said}");
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".ssh")).unwrap();
    let key = keygen(&home.path().join(".ssh"), "id_ed25519");
    let home_env = [("HOME", home.path().to_str().unwrap())];
    let out = a.rail(&["init", "--remote", "origin"], &home_env);
    ok(&out);
    let told = stdout(&out);
    assert!(
        told.contains("rail.signingKey") && told.contains(".rail/allowed-signers"),
        "{told}"
    );
    assert_eq!(
        git_in(a.path(), &["config", "rail.signingKey"]).trim(),
        key.to_str().unwrap()
    );
    let line = std::fs::read_to_string(a.path().join(".rail/allowed-signers")).unwrap();
    assert!(
        line.starts_with(&format!(
            "{} namespaces=\"git\" ssh-ed25519 ",
            machine_id(a)
        )),
        "{line}"
    );
    git_in(a.path(), &["add", ".rail/allowed-signers"]);
    git_in(a.path(), &["commit", "-q", "-m", "a's key"]);
    git_in(a.path(), &["push", "-q", "origin", "HEAD:main"]);
    ok(&a.rail(&["claim", "auth", "--session", "alice"], &home_env));
    let out = a.rail(&["board"], &[]);
    let said = format!("{}{}", ok(&out), stdout(&out));
    assert!(!said.contains("UNVERIFIED"), "{said}");
    let said = ok(&a.rail(&["log"], &[]));
    assert!(!said.contains("UNVERIFIED"), "{said}");
    // Every board says how far the state is proven, as core words it.
    let out = a.rail(&["board", "--json"], &[]);
    ok(&out);
    let board: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(board["shared"]["verified"], "proven", "{}", board["shared"]);
    assert_eq!(board["shared"]["warning"], false, "{}", board["shared"]);
    let text = board["shared"]["text"].as_str().unwrap();
    assert!(
        text.starts_with("the shared rail on origin is proven up to ")
            && text.ends_with(":.rail/allowed-signers)"),
        "{text}"
    );
    let out = a.rail(&["validate", "--ci", "--shared"], &[]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("is proven up to"), "{}", stdout(&out));
}

/// A queue pushed under another machine's name is not read: otherwise anyone who can push
/// could have an honest machine make (and sign) an operation in a's name — here, releasing
/// alice's claim.
#[test]
fn a_queue_is_read_only_from_the_machine_it_names() {
    let remote = Remote::by_path();
    let keys = tempfile::tempdir().unwrap();
    let (ms, _paths) = keyed(&remote, keys.path());
    let (a, b) = (&ms[0], &ms[1]);
    ok(&a.rail(&["claim", "auth", "--session", "alice"], &[]));
    let a_id = machine_id(a);
    let tip = remote.git(&["rev-parse", "refs/rail/claims"]);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let queue = serde_json::json!({
        "v": 1, "machine": a_id, "ops": [{
            "id": "forged-1", "base": tip.trim(), "session": "alice",
            "request": {"op": "release", "task": "auth"},
            "now_ms": now, "deadline_ms": now + 600_000
        }]
    })
    .to_string();
    let blob = git_stdin(
        b.path(),
        &["hash-object", "-w", "--stdin"],
        queue.as_bytes(),
    );
    let entry = format!("100644 blob {}\tqueue.json\n", blob.trim());
    let tree = git_stdin(b.path(), &["mktree"], entry.as_bytes());
    let commit = git_in(b.path(), &["commit-tree", tree.trim(), "-m", "queue"]);
    git_in(
        b.path(),
        &[
            "push",
            "-q",
            "origin",
            &format!("+{}:refs/rail/queue/{a_id}", commit.trim()),
        ],
    );
    ok(&b.rail(&["claim", "web", "--session", "bob"], &[]));
    let claims = remote.shared_file("claims.md");
    assert!(claims.contains("auth | alice |"), "{claims}");
    let log = remote.shared_file("claims.log");
    assert!(!log.contains("| released | auth"), "{log}");
    // A machine the list does not name changes nothing, and says why.
    // (A session of its own: bob's claims are the old id's, and a session lives on one machine.)
    std::fs::write(b.path().join(".git/rail/exchange/machine"), "newcomer-1\n").unwrap();
    let out = b.rail(&["claim", "docs", "--session", "newbie"], &[]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("newcomer-1) is not among the team's allowed signers"),
        "{}",
        stderr(&out)
    );
    assert!(!remote.shared_file("claims.md").contains("docs |"));
}

/// Keyed machines racing, their operations folded into each other's commits (every commit
/// publishes its machine's queue: `RAIL_TEST_PUBLISH`): every claim lands, no machine takes an
/// honest commit for unproven, and the whole history proves.
#[test]
fn keyed_machines_racing_prove_each_others_commits() {
    let remote = Remote::by_path();
    let keys = tempfile::tempdir().unwrap();
    let (ms, _paths) = keyed(&remote, keys.path());
    let mut children = Vec::new();
    for (mi, m) in ms.iter().enumerate() {
        for p in 0..4 {
            let script = format!(
                "for t in 1 2 3; do \"$RAIL\" claim m{mi}-p{p}-$t --session m{mi}-p{p} || exit $?; done"
            );
            children.push(
                Command::new("sh")
                    .arg("-c")
                    .arg(script)
                    .current_dir(m.path())
                    .env("RAIL", rail_bin())
                    .env("RAIL_TEST_PUBLISH", "1")
                    .env_remove("RAIL_SESSION")
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap(),
            );
        }
    }
    for child in children {
        let out = child.wait_with_output().unwrap();
        let said = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{said}");
        assert!(!said.contains("not proven"), "{said}");
    }
    for m in &ms {
        let said = ok(&m.rail(&["sync"], &[]));
        assert!(!said.contains("not proven"), "{said}");
    }
    let claims = remote.shared_file("claims.md");
    for mi in 0..2 {
        for p in 0..4 {
            for t in 1..=3 {
                assert!(claims.contains(&format!("m{mi}-p{p}-{t} |")), "{claims}");
            }
        }
    }
    let out = ms[0].rail(&["validate", "--ci", "--shared"], &[]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    // Some commit folded another machine's operation, and its record says who asked.
    let log = remote.git(&["log", "--format=%B", "refs/rail/claims"]);
    assert!(log.contains("\"step\":\"op\""), "{log}");
    let folded = log
        .split("rail-record v1\n")
        .skip(1)
        .filter_map(|r| serde_json::from_str::<serde_json::Value>(r.lines().next()?).ok())
        .filter(|r| {
            (r["steps"].as_array().into_iter().flatten()).any(|s| s["machine"] != r["machine"])
        })
        .count();
    eprintln!("commits that made another machine's operation: {folded}");
}

/// The cost of a proof (issue 42's acceptance): a machine proving the commits another machine
/// signed checks each signature in its own process, not with an `ssh-keygen -Y verify` per
/// commit as git's check runs it. Every `ssh-keygen` Rail or git starts is logged by one put
/// first on PATH; the proof must still hold, and a forged commit still be named.
#[test]
fn proving_fetched_commits_runs_no_ssh_keygen_per_commit() {
    let remote = Remote::by_path();
    let keys = tempfile::tempdir().unwrap();
    let (ms, paths) = keyed(&remote, keys.path());
    let (a, b) = (&ms[0], &ms[1]);
    for t in 1..=4 {
        ok(&a.rail(&["claim", &format!("t{t}"), "--session", "alice"], &[]));
    }
    let bin = tempfile::tempdir().unwrap();
    let log = bin.path().join("ssh-keygen.log");
    let real = String::from_utf8(
        Command::new("sh")
            .args(["-c", "command -v ssh-keygen"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let wrapper = bin.path().join("ssh-keygen");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
            log.display(),
            real.trim()
        ),
    )
    .unwrap();
    Command::new("chmod")
        .arg("+x")
        .arg(&wrapper)
        .status()
        .unwrap();
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap()
    );
    let said = ok(&b.rail(&["sync"], &[("PATH", &path)]));
    assert!(!said.contains("not proven"), "{said}");
    let tip = remote.git(&["rev-parse", "refs/rail/claims"]);
    let proven = git_in(b.path(), &["rev-parse", "refs/rail/proven"]);
    assert_eq!(proven.trim(), tip.trim());
    let out = b.rail(&["validate", "--ci", "--shared"], &[("PATH", &path)]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let ran = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        !ran.contains("-Y verify") && !ran.contains("find-principals"),
        "{ran}"
    );
    // The same check still refuses: a commit signed with b's allowed key that records nothing.
    forge(b, Some(&paths[1]), |c| {
        c.replace("| alice |", "| mallory |")
    });
    let said = ok(&a.rail(&["sync"], &[("PATH", &path)]));
    assert!(said.contains("not proven"), "{said}");
    let ran = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        !ran.contains("-Y verify") && !ran.contains("find-principals"),
        "{ran}"
    );
}

/// `.rail/allowed-signers` is a file a branch commits: a link there (or at `.rail`) is refused,
/// never followed, so `rail init --remote` cannot be made to append to a file outside the
/// repository.
#[cfg(unix)]
#[test]
fn init_refuses_an_allowed_signers_file_that_is_a_link() {
    let remote = Remote::by_path();
    let ms = machines(&remote, 1);
    let a = &ms[0];
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".ssh")).unwrap();
    keygen(&home.path().join(".ssh"), "id_ed25519");
    let outside = home.path().join("elsewhere");
    std::fs::write(&outside, "untouched\n").unwrap();
    std::fs::create_dir_all(a.path().join(".rail")).unwrap();
    std::os::unix::fs::symlink(&outside, a.path().join(".rail/allowed-signers")).unwrap();
    let out = a.rail(
        &["init", "--remote", "origin"],
        &[("HOME", home.path().to_str().unwrap())],
    );
    assert_ne!(code(&out), 0, "{}", stdout(&out));
    assert!(stderr(&out).contains("allowed-signers"), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "untouched\n");
}
