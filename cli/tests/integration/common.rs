//! Helpers for the CLI's integration tests: throw-away git repositories and a `rail` runner.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Waits for an observable event that has no notification of its own (a lock file appearing, a
/// port answering, a marker a paused process wrote): looks again every few milliseconds and
/// fails the test, naming `what`, once `within` has passed (a hang, not a slow machine). The
/// condition decides; the pause only paces the looking.
pub fn wait_for(what: &str, within: std::time::Duration, mut seen: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + within;
    while !seen() {
        assert!(std::time::Instant::now() < deadline, "{what}");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

pub fn rail_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rail"))
}

pub struct Repo {
    pub dir: tempfile::TempDir,
}

impl Repo {
    /// A new repository with one commit on `main` and `rail init` done.
    pub fn new() -> Repo {
        let dir = tempfile::Builder::new()
            .prefix("rail-test-")
            .tempdir()
            .unwrap();
        let repo = Repo { dir };
        repo.git(&["init", "-q", "-b", "main"]);
        repo.git(&["config", "user.email", "test@example.invalid"]);
        repo.git(&["config", "user.name", "Rail Test"]);
        repo.git(&["commit", "-q", "--allow-empty", "-m", "init"]);
        let out = repo.rail(&["init"]);
        assert!(out.status.success(), "{}", stderr(&out));
        // As users do: commit what `rail init` set up.
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-qm", "rail init"]);
        repo
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn file(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.file(name)).unwrap_or_default()
    }

    pub fn git(&self, args: &[&str]) -> String {
        git_in(self.path(), args)
    }

    pub fn rail(&self, args: &[&str]) -> Output {
        self.rail_in(self.path(), args, &[])
    }

    pub fn rail_env(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        self.rail_in(self.path(), args, env)
    }

    pub fn rail_in(&self, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut cmd = Command::new(rail_bin());
        cmd.args(args)
            .current_dir(dir)
            .no_session()
            .env_remove("RAIL_DIR")
            .env_remove("RAIL_NOW");
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    }

    /// Lines of claims.md that claim `task` (by the seed's own rule, `^task |`).
    pub fn holders(&self, task: &str) -> Vec<String> {
        self.read("claims.md")
            .lines()
            .filter(|l| l.starts_with(&format!("{task} |")))
            .map(str::to_string)
            .collect()
    }
}

/// The session id the recorded Claude Code payloads carry (tests/fixtures/hooks/claude).
pub const RECORDED_CLAUDE_SESSION: &str = "5f0c2d1e-7a4b-4c39-9f1e-2b8d6a0c4e11";

/// A recorded Claude Code payload (`tests/fixtures/hooks/claude/FIXTURE`) as session `id` sends
/// it from `cwd`, about `file` (its `{{FILE}}`).
pub fn claude_payload(fixture: &str, id: &str, cwd: &Path, file: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/hooks/claude")
        .join(fixture);
    std::fs::read_to_string(path)
        .unwrap()
        .replace(RECORDED_CLAUDE_SESSION, id)
        .replace("{{CWD}}", &cwd.display().to_string())
        .replace("{{FILE}}", file)
}

pub fn git_in(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Writes `file` (relative to the checkout `dir`, its folders made) and commits it there.
pub fn commit(dir: &Path, file: &str, text: &str) {
    if let Some(parent) = Path::new(file).parent() {
        std::fs::create_dir_all(dir.join(parent)).unwrap();
    }
    std::fs::write(dir.join(file), text).unwrap();
    git_in(dir, &["add", "--", file]);
    git_in(
        dir,
        &[
            "-c",
            "user.email=t@e.invalid",
            "-c",
            "user.name=t",
            "commit",
            "-qm",
            file,
        ],
    );
}

/// A `git` first on PATH that logs each call's arguments to a file, then runs the real git: the
/// PATH value to run with and the log's path (Unix).
#[cfg(unix)]
pub fn logging_git(bin: &Path) -> (String, PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let real_git = String::from_utf8(
        Command::new("sh")
            .args(["-c", "command -v git"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let calls = bin.join("calls");
    let wrapper = bin.join("git");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
            calls.display(),
            real_git.trim()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    (path, calls)
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

pub fn code(out: &Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

/// The session `name` of a `rail board --json` answer; fails the test when it is not there.
pub fn board_session(board: &serde_json::Value, name: &str) -> serde_json::Value {
    board["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .cloned()
        .unwrap_or_else(|| panic!("no session {name}: {board}"))
}

/// Runs `rail hook <agent>` (words after `hook`, e.g. `copilot --event preToolUse`) in `dir`,
/// fed `stdin` as the agent would, acting for `session` (`None`: no RAIL_SESSION, as an agent
/// started outside Rail), with `env` added.
pub fn hook_call(
    agent: &str,
    dir: &Path,
    stdin: &str,
    session: Option<&str>,
    env: &[(&str, &str)],
) -> Output {
    use std::io::Write;
    let mut cmd = Command::new(rail_bin());
    cmd.arg("hook")
        .args(agent.split_whitespace())
        .current_dir(dir)
        .no_session();
    if let Some(s) = session {
        cmd.env("RAIL_SESSION", s);
    }
    let mut child = cmd
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // An agent's payload is small; a hook that exits before reading it all is its own failure.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}

/// A Claude Code PreToolUse payload for a Bash `command` run in `cwd`.
pub fn claude_bash(cwd: &Path, command: &str) -> String {
    serde_json::json!({
        "hook_event_name": "PreToolUse",
        "session_id": "agent-session",
        "cwd": cwd,
        "tool_name": "Bash",
        "tool_input": { "command": command },
    })
    .to_string()
}

/// A `rail` started as from a person's terminal: no `RAIL_SESSION`, and none of the variables
/// an agent gives its children (`CLAUDE_CODE_SESSION_ID`, …), so a test run from inside an
/// agent's shell acts as the branch unless it names a session itself.
pub trait NoSession {
    fn no_session(&mut self) -> &mut Self;
}

impl NoSession for Command {
    fn no_session(&mut self) -> &mut Self {
        self.env_remove("RAIL_SESSION");
        for (var, _, _) in rail_core::agent::SESSION_VARS {
            self.env_remove(var);
        }
        for (var, _, _) in rail_core::agent::SHELL_MARKS {
            self.env_remove(var);
        }
        self
    }
}
