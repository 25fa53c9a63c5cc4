//! Verifying after the tool, with real git and a real program outside the shell reader's table
//! (`python3 -c`): the pre-tool call's snapshot, the write, the after-tool call putting the
//! owner's content back, telling the agent in its own format and logging a bypass.

#![cfg(unix)]

use std::path::Path;
use std::process::{Command, Output};

use crate::common::*;

fn hook(agent: &str, dir: &Path, stdin: &str, session: &str) -> Output {
    hook_env(agent, dir, stdin, session, &[])
}

/// [`hook`] with `env` added.
fn hook_env(agent: &str, dir: &Path, stdin: &str, session: &str, env: &[(&str, &str)]) -> Output {
    hook_call(agent, dir, stdin, Some(session), env)
}

const SCRIPT: &str = "for p, t in [('owned/a.txt', 'x'), ('owned/clean.txt', 'y'), ('owned/new.txt', 'z'), ('mine/m.txt', 'mine now'), ('old/s.txt', 'taken')]: open(p, 'w').write(t)";

/// alpha holds owned/** (and has uncommitted work in owned/a.txt), beta holds mine/**, gamma's
/// claim on old/** is long stale.
fn setup() -> Repo {
    let repo = Repo::new();
    for (p, t) in [
        ("owned/a.txt", "head\n"),
        ("owned/clean.txt", "clean\n"),
        ("mine/m.txt", "m\n"),
        ("old/s.txt", "s\n"),
    ] {
        std::fs::create_dir_all(repo.file(p).parent().unwrap()).unwrap();
        std::fs::write(repo.file(p), t).unwrap();
    }
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "files"]);
    for (task, session, path) in [("own", "alpha", "owned/**"), ("mine", "beta", "mine/**")] {
        let out = repo.rail(&["claim", task, "--session", session, "--path", path]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    }
    let out = repo.rail(&[
        "claim",
        "old",
        "--session",
        "gamma",
        "--path",
        "old/**",
        "--lease",
        "1m",
        "--now",
        "2020-01-01T00:00:00Z",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    std::fs::write(repo.file("owned/a.txt"), "alpha's work\n").unwrap();
    repo
}

fn python(dir: &Path, script: &str) {
    let out = Command::new("python3")
        .args(["-c", script])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
}

fn claude(event: &str, cwd: &Path, id: &str, command: &str) -> String {
    serde_json::json!({
        "session_id": "s", "hook_event_name": event, "cwd": cwd, "tool_name": "Bash",
        "tool_use_id": id, "tool_input": { "command": command },
        "tool_response": { "stdout": "", "stderr": "" }
    })
    .to_string()
}

#[test]
fn a_write_by_a_program_outside_the_table_is_caught_after_the_tool_and_put_back() {
    let repo = setup();
    let command = format!("python3 -c \"{SCRIPT}\"");
    let pre = hook(
        "claude",
        repo.path(),
        &claude("PreToolUse", repo.path(), "toolu_1", &command),
        "beta",
    );
    assert_ne!(
        code(&pre),
        2,
        "the prediction cannot see it: {}",
        stderr(&pre)
    );
    python(repo.path(), SCRIPT);
    let post = hook(
        "claude",
        repo.path(),
        &claude("PostToolUse", repo.path(), "toolu_1", &command),
        "beta",
    );
    // Claude Code: exit 2, the reason on stderr, before the model at once.
    assert_eq!(code(&post), 2, "{}{}", stdout(&post), stderr(&post));
    let said = stderr(&post);
    assert!(said.contains("owned/a.txt is claimed by alpha"), "{said}");
    assert!(said.contains("its previous content is back"), "{said}");
    assert!(said.contains("owned/new.txt"), "{said}");
    // The owner's uncommitted work, HEAD's content of a clean file, a new file gone.
    assert_eq!(repo.read("owned/a.txt"), "alpha's work\n");
    assert_eq!(repo.read("owned/clean.txt"), "clean\n");
    assert!(!repo.file("owned/new.txt").exists());
    // The acting session's own path and a stale owner's path are left as the tool left them.
    assert_eq!(repo.read("mine/m.txt"), "mine now");
    assert_eq!(repo.read("old/s.txt"), "taken");
    assert!(
        !said.contains("mine/m.txt") && !said.contains("old/s.txt"),
        "{said}"
    );
    // Logged as a bypass, shown by the board's log.
    let log = repo.read("claims.log");
    let line = log
        .lines()
        .find(|l| l.contains("bypass") && l.contains("path: owned/a.txt"))
        .unwrap_or_else(|| panic!("{log}"));
    assert!(line.contains("holder: alpha"), "{line}");
    assert!(line.contains("fix: put back"), "{line}");
    let board = repo.rail(&["board", "--json"]);
    assert!(stdout(&board).contains("owned/a.txt"), "{}", stdout(&board));
    // Nothing the tool wrote is lost: what it left is set aside.
    let aside = repo.path().join(".git/rail/after/aside");
    let kept: Vec<String> = std::fs::read_dir(&aside)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    assert!(kept.contains(&"x".to_string()), "{kept:?}");
    // A second after-tool call for the same tool call finds no snapshot: nothing to say.
    let again = hook(
        "claude",
        repo.path(),
        &claude("PostToolUse", repo.path(), "toolu_1", &command),
        "beta",
    );
    assert_eq!(code(&again), 0, "{}", stderr(&again));
}

#[test]
fn a_tool_call_that_stays_in_its_own_paths_is_told_nothing() {
    let repo = setup();
    let script = "open('mine/m.txt', 'w').write('ok')";
    let command = format!("python3 -c \"{script}\"");
    let pre = hook(
        "claude",
        repo.path(),
        &claude("PreToolUse", repo.path(), "toolu_2", &command),
        "beta",
    );
    assert_ne!(code(&pre), 2, "{}", stderr(&pre));
    python(repo.path(), script);
    let post = hook(
        "claude",
        repo.path(),
        &claude("PostToolUse", repo.path(), "toolu_2", &command),
        "beta",
    );
    assert_eq!(
        (code(&post), stdout(&post), stderr(&post)),
        (0, String::new(), String::new())
    );
    assert_eq!(repo.read("mine/m.txt"), "ok");
    assert_eq!(repo.read("owned/a.txt"), "alpha's work\n");
    assert!(!repo.read("claims.log").contains("bypass"));
}

/// Each agent's after-tool event, installed as `rail init --agents` installs it, answered in
/// the form that agent shows its model.
#[test]
fn every_agent_is_told_after_the_tool_in_its_own_format() {
    let cases: [(&str, &str, &str); 4] = [
        ("codex", "PreToolUse", "PostToolUse"),
        ("gemini", "BeforeTool", "AfterTool"),
        ("copilot --event preToolUse", "", ""),
        ("cursor", "preToolUse", "postToolUse"),
    ];
    for (agent, pre_event, post_event) in cases {
        let repo = setup();
        let command = format!("python3 -c \"{SCRIPT}\"");
        let (pre, post, post_agent) = match agent {
            "codex" | "cursor" => {
                let tool = if agent == "codex" { "Bash" } else { "Shell" };
                let p = |e: &str| {
                    let mut v = serde_json::json!({
                        "hook_event_name": e, "cwd": repo.path(), "tool_name": tool,
                        "tool_use_id": "call_1", "tool_input": { "command": command }
                    });
                    if agent == "cursor" {
                        v["conversation_id"] = "c".into();
                        v["workspace_roots"] = serde_json::json!([repo.path()]);
                    }
                    v.to_string()
                };
                (p(pre_event), p(post_event), agent.to_string())
            }
            "gemini" => {
                let p = |e: &str| {
                    serde_json::json!({
                        "hook_event_name": e, "cwd": repo.path(), "tool_name": "run_shell_command",
                        "tool_input": { "command": command }
                    })
                    .to_string()
                };
                (p(pre_event), p(post_event), agent.to_string())
            }
            _ => {
                let p = serde_json::json!({
                    "cwd": repo.path(), "toolName": "bash",
                    "toolArgs": serde_json::json!({ "command": command }).to_string()
                })
                .to_string();
                (p.clone(), p, "copilot --event postToolUse".to_string())
            }
        };
        let out = hook(agent, repo.path(), &pre, "beta");
        assert_ne!(code(&out), 2, "{agent}: {}", stderr(&out));
        python(repo.path(), SCRIPT);
        let out = hook(&post_agent, repo.path(), &post, "beta");
        assert_eq!(repo.read("owned/a.txt"), "alpha's work\n", "{agent}");
        let said = format!("{}{}", stdout(&out), stderr(&out));
        assert!(
            said.contains("owned/a.txt is claimed by alpha"),
            "{agent}: {said}"
        );
        let json: serde_json::Value = serde_json::from_str(stdout(&out).trim())
            .unwrap_or_else(|e| panic!("{agent}: {e}: {said}"));
        match agent {
            "codex" => assert_eq!(json["decision"], "block", "{said}"),
            "gemini" => assert_eq!(json["decision"], "deny", "{said}"),
            "cursor" => assert!(json["additional_context"].is_string(), "{said}"),
            _ => assert!(json["additionalContext"].is_string(), "{said}"),
        }
        assert_eq!(code(&out), 0, "{agent}: {said}");
    }
}

/// Above the tracked-file limit the check is skipped, and `rail doctor` says so.
#[test]
fn a_repository_too_large_is_not_checked_after_the_tool_and_doctor_says_so() {
    let repo = setup();
    let env = [("RAIL_AFTER_MAX_TRACKED", "3")];
    let doctor = repo.rail_env(&["doctor"], &env);
    let said = stdout(&doctor) + &stderr(&doctor);
    assert!(said.contains("tracked files, above the 3"), "{said}");
    let command = format!("python3 -c \"{SCRIPT}\"");
    let run = |event: &str| {
        let payload = claude(event, repo.path(), "toolu_3", &command);
        hook_env("claude", repo.path(), &payload, "beta", &env)
    };
    run("PreToolUse");
    python(repo.path(), SCRIPT);
    let post = run("PostToolUse");
    assert_eq!(code(&post), 0, "{}", stderr(&post));
    assert_eq!(repo.read("owned/a.txt"), "x");
    let fine = repo.rail(&["doctor"]);
    assert!(
        !(stdout(&fine) + &stderr(&fine)).contains("tracked files, above"),
        "{}",
        stdout(&fine)
    );
}

/// A snapshot whose after-tool call never came (the call was denied elsewhere, the agent died)
/// is removed by a later snapshot once it is a day old; a newer one stays, and nothing set aside
/// is touched.
#[test]
fn a_snapshot_left_over_is_removed_a_day_later_and_nothing_set_aside_is() {
    let repo = setup();
    let pre = |id: &str| {
        let command = "python3 -c \"print(1)\"";
        let out = hook(
            "claude",
            repo.path(),
            &claude("PreToolUse", repo.path(), id, command),
            "beta",
        );
        assert_ne!(code(&out), 2, "{}", stderr(&out));
    };
    let dir = repo.file(".git/rail/after");
    let names = || -> Vec<String> {
        std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    };
    pre("toolu_old");
    pre("toolu_recent");
    let made = names();
    let find = |id: &str| made.iter().find(|n| n.contains(id)).cloned().unwrap();
    let (old, recent) = (find("toolu_old"), find("toolu_recent"));
    let age = |name: &str, secs: u64| {
        let f = std::fs::File::options()
            .write(true)
            .open(dir.join(name))
            .unwrap();
        f.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(secs))
            .unwrap();
    };
    age(&old, 25 * 3600);
    age(&recent, 23 * 3600);
    std::fs::create_dir_all(dir.join("aside")).unwrap();
    std::fs::write(dir.join("aside/kept"), "what a tool left").unwrap();
    let f = std::fs::File::options()
        .write(true)
        .open(dir.join("aside/kept"))
        .unwrap();
    f.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(30 * 86400))
        .unwrap();
    pre("toolu_next");
    let now = names();
    assert!(!now.contains(&old), "{now:?}");
    assert!(now.contains(&recent), "{now:?}");
    assert!(now.iter().any(|n| n.contains("toolu_next")), "{now:?}");
    assert_eq!(
        std::fs::read_to_string(dir.join("aside/kept")).unwrap(),
        "what a tool left"
    );
}

/// While beta's agent runs a command (its snapshot taken), alpha's own agent writes alpha's
/// claimed file through its hooks: beta's after-tool check leaves it as alpha wrote it, and
/// says so, instead of putting it back (bench/collisions found a `git add -A` call's check
/// undoing the holder's write made meanwhile).
#[test]
fn a_holders_own_write_made_during_another_call_is_not_put_back() {
    let repo = setup();
    let pre = hook(
        "claude",
        repo.path(),
        &claude("PreToolUse", repo.path(), "toolu_b1", "python3 -c 'pass'"),
        "beta",
    );
    assert_eq!(code(&pre), 0, "{}", stderr(&pre));
    let file = repo.file("owned/clean.txt").display().to_string();
    let write = |event: &str| {
        serde_json::json!({
            "session_id": "a", "hook_event_name": event, "cwd": repo.path(), "tool_name": "Write",
            "tool_use_id": "toolu_a1", "tool_input": { "file_path": file, "content": "alpha's own" },
            "tool_response": {}
        })
        .to_string()
    };
    let out = hook("claude", repo.path(), &write("PreToolUse"), "alpha");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    std::fs::write(repo.file("owned/clean.txt"), "alpha's own\n").unwrap();
    let out = hook("claude", repo.path(), &write("PostToolUse"), "alpha");
    assert_eq!(code(&out), 0, "{}", stderr(&out));

    let post = hook(
        "claude",
        repo.path(),
        &claude("PostToolUse", repo.path(), "toolu_b1", "python3 -c 'pass'"),
        "beta",
    );
    assert_eq!(
        repo.read("owned/clean.txt"),
        "alpha's own\n",
        "{}",
        stderr(&post)
    );
    let log = repo.read("claims.log");
    assert!(
        log.contains("path: owned/clean.txt")
            && log.contains("alpha, whose claim it is, was writing it meanwhile"),
        "{log}"
    );
    // alpha's uncommitted work elsewhere was not touched either.
    assert_eq!(repo.read("owned/a.txt"), "alpha's work\n");
}
