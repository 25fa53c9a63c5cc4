//! Agents follow the rail: each agent's hook against a real rail with recorded payloads,
//! fail-safe behaviour, the instruction snippet and settings merge on disk, stations guarded
//! for every agent, guard status and `rail doctor`.

use crate::common::NoSession;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::common::*;

fn payload(name: &str, cwd: &Path, file: &str, command: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/hooks/claude")
        .join(name);
    std::fs::read_to_string(path)
        .unwrap()
        .replace("{{CWD}}", &cwd.display().to_string())
        .replace("{{FILE}}", file)
        .replace(
            "{{COMMAND}}",
            &command.replace('\\', "\\\\").replace('"', "\\\""),
        )
}

fn hook(dir: &Path, stdin: &str, env: &[(&str, &str)]) -> Output {
    run_hook("claude", dir, stdin, env)
}

/// `rail hook AGENT` with `stdin` as its payload; `agent` may carry arguments
/// (`copilot --event preToolUse`).
fn run_hook(agent: &str, dir: &Path, stdin: &str, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(rail_bin());
    cmd.arg("hook").args(agent.split_whitespace());
    feed(cmd, dir, stdin, env)
}

/// Runs `cmd` in `dir` as an agent runs its hook: no `RAIL_SESSION`, `env` added, `stdin` as
/// its input.
fn feed(mut cmd: Command, dir: &Path, stdin: &str, env: &[(&str, &str)]) -> Output {
    cmd.current_dir(dir)
        .no_session()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// A repo where session `auth` holds src/auth/** and session `web` (a station) holds web/**.
fn setup() -> (Repo, PathBuf) {
    let repo = Repo::new();
    std::fs::create_dir_all(repo.file("src/auth")).unwrap();
    std::fs::write(repo.file("src/auth/token.ts"), "x\n").unwrap();
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "app"]);
    assert_eq!(
        code(&repo.rail(&[
            "claim",
            "auth-refresh",
            "--session",
            "auth",
            "--path",
            "src/auth/**"
        ])),
        0
    );
    let station = repo.path().parent().unwrap().join(format!(
        "{}-web",
        repo.path().file_name().unwrap().to_string_lossy()
    ));
    let out = repo.rail(&[
        "worktree",
        "web-ui",
        "--session",
        "web",
        "--dir",
        station.to_str().unwrap(),
        "--path",
        "web/**",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    (repo, station)
}

#[test]
fn each_tool_is_denied_warned_or_allowed() {
    let (repo, station) = setup();
    let held = station.join("src/auth/token.ts").display().to_string();
    let own = station.join("web/app.ts").display().to_string();
    let outside = station.join("docs/notes.md").display().to_string();
    for tool in [
        "edit.json",
        "write.json",
        "multiedit.json",
        "notebookedit.json",
    ] {
        let out = hook(&station, &payload(tool, &station, &held, ""), &[]);
        assert_eq!(code(&out), 2, "{tool}: another session's path is denied");
        let err = stderr(&out);
        assert!(
            err.contains("src/auth/token.ts is claimed by auth (task auth-refresh"),
            "{tool}: {err}"
        );
        assert!(
            err.contains("Do not edit another session's paths"),
            "{tool}: {err}"
        );

        let out = hook(&station, &payload(tool, &station, &own, ""), &[]);
        assert_eq!(code(&out), 0, "{tool}: {}", stderr(&out));
        assert!(
            stdout(&out).is_empty(),
            "{tool}: own path is allowed silently"
        );

        let out = hook(&station, &payload(tool, &station, &outside, ""), &[]);
        assert_eq!(code(&out), 0, "{tool}: outside scope only warns");
        let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert!(
            v["systemMessage"]
                .as_str()
                .unwrap()
                .contains("docs/notes.md is outside web's claimed paths"),
            "{v}"
        );
        assert!(
            v["hookSpecificOutput"].get("permissionDecision").is_none(),
            "a warning never grants permission"
        );
    }
    // A tool that writes nothing is not checked.
    let out = hook(&station, &payload("read.json", &station, &held, ""), &[]);
    assert_eq!((code(&out), stdout(&out).as_str()), (0, ""));
    // The main checkout's copy of a held file is held too.
    let main_copy = repo.file("src/auth/token.ts").display().to_string();
    let out = hook(
        &station,
        &payload("edit.json", &station, &main_copy, ""),
        &[],
    );
    assert_eq!(code(&out), 2);
    // Denials are logged.
    assert!(repo.read("claims.log").contains(
        "| refused | auth-refresh | web~claude-6a0c4e11 | by: hook claude | holder: auth | path: src/auth/token.ts"
    ));
}

#[test]
fn bash_writes_into_held_paths_are_denied() {
    let (_repo, station) = setup();
    for command in [
        "echo hi > src/auth/token.ts",
        "cat > src/auth/new.ts <<'EOF'\nexport {}\nEOF",
        "printf x | tee -a src/auth/token.ts",
        "sed -i 's/a/b/' src/auth/token.ts",
        "cp /tmp/x src/auth/",
        "mv src/auth/token.ts web/token.ts",
        "rm -rf src/auth",
        "rm src/*",
        "cd src && echo x >> auth/token.ts",
    ] {
        let out = hook(&station, &payload("bash.json", &station, "", command), &[]);
        assert_eq!(
            code(&out),
            2,
            "{command:?} must be denied: {}",
            stderr(&out)
        );
    }
    for command in [
        "ls src/auth",
        "cat src/auth/token.ts | wc -l",
        "echo x > web/a.ts",
        "git status",
    ] {
        let out = hook(&station, &payload("bash.json", &station, "", command), &[]);
        assert_eq!(
            code(&out),
            0,
            "{command:?} must be allowed: {}",
            stderr(&out)
        );
        assert!(stdout(&out).is_empty(), "{command:?}: {}", stdout(&out));
    }
    // Unanalysable parts are named when the hook has something to say.
    let out = hook(
        &station,
        &payload(
            "bash.json",
            &station,
            "",
            "echo x > docs/$NAME; echo y > docs/a.md",
        ),
        &[],
    );
    assert_eq!(code(&out), 0);
    assert!(
        stdout(&out).contains("Rail could not judge: a redirection to `docs/$NAME`"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn malformed_input_and_an_unreadable_rail_fail_closed_or_warn_by_config() {
    let (repo, station) = setup();
    for bad in ["", "not json", "[1,2]", "{\"tool_name\":\"Edit\"}"] {
        let out = hook(&station, bad, &[]);
        assert_eq!(code(&out), 2, "{bad:?}");
        assert!(
            stderr(&out).contains("Rail could not check this edit"),
            "{bad:?}: {}",
            stderr(&out)
        );
    }
    let edit_without_path = payload("edit.json", &station, "", "");
    let out = hook(&station, &edit_without_path, &[]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("without `tool_input.file_path`"));

    // A corrupt rail: deny by default, warn when configured.
    std::fs::write(repo.file("claims.md"), b"\xff\xfe\n").unwrap();
    let own = station.join("web/app.ts").display().to_string();
    let out = hook(&station, &payload("edit.json", &station, &own, ""), &[]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("not valid UTF-8"));
    std::fs::write(repo.file("rail.yaml"), "hook_failure: warn\n").unwrap();
    let out = hook(&station, &payload("edit.json", &station, &own, ""), &[]);
    assert_eq!(code(&out), 0);
    assert!(stdout(&out).contains("Rail could not check this edit"));
}

#[test]
fn the_hook_never_hangs_past_its_bound() {
    let (repo, station) = setup();
    // A live process holds the lock's flock-protected read for a long time? Readers only wait
    // 10 s; the hook's own bound is shorter. Simulate a stuck stdin instead: never close it.
    let mut child = Command::new(rail_bin())
        .args(["hook", "claude"])
        .current_dir(&station)
        .env("RAIL_HOOK_TIMEOUT_MS", "300")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _keep_open = child.stdin.take();
    // The hook must end by itself while its stdin stays open. What is asserted is that it ended
    // and how, not how fast: a hook that waited for stdin would still be running after a
    // minute (a hang, not a slow machine), and is killed so the test fails instead of hanging.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("the hook was still waiting for its stdin after a minute");
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(code(&out), 2, "fail closed on timeout");
    assert!(stderr(&out).contains("took longer than 300 ms"));
    drop(repo);
}

#[test]
fn stop_renews_and_session_end_releases() {
    let (repo, station) = setup();
    let out = hook(
        &station,
        &payload("stop.json", &station, "", ""),
        &[("RAIL_NOW", "2030-01-01T00:00:00Z")],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        repo.holders("web-ui")[0].contains("renewed: 2030-01-01T00:00:00Z"),
        "{:?}",
        repo.holders("web-ui")
    );
    std::fs::create_dir_all(station.join("web")).unwrap();
    std::fs::write(station.join("web/app.ts"), "app\n").unwrap();
    let out = hook(
        &station,
        &payload("session-end.json", &station, "", ""),
        &[],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(repo.holders("web-ui").is_empty());
    assert!(repo
        .read("claims.log")
        .contains("| released | web-ui | web | by: web~claude-6a0c4e11 | touched: web/app.ts"));
    // on_stop: renew keeps the claim at session end.
    assert_eq!(
        code(&repo.rail_in(&station, &["claim", "web-ui-2", "--path", "web/**"], &[])),
        0
    );
    std::fs::write(repo.file("rail.yaml"), "on_stop: renew\n").unwrap();
    let out = hook(
        &station,
        &payload("session-end.json", &station, "", ""),
        &[],
    );
    assert_eq!(code(&out), 0);
    assert_eq!(repo.holders("web-ui-2").len(), 1);
}

#[test]
fn init_agents_writes_the_section_once_and_merges_settings() {
    let repo = Repo::new();
    std::fs::write(repo.file("AGENTS.md"), "# House rules\n\nUse tabs.\n").unwrap();
    std::fs::create_dir_all(repo.file(".claude")).unwrap();
    std::fs::write(
        repo.file(".claude/settings.json"),
        r#"{"permissions":{"allow":["Bash(npm test)"]},"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./guard.sh"}]}]}}"#,
    )
    .unwrap();
    for _ in 0..2 {
        let out = repo.rail(&["init", "--agents"]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    }
    let agents = repo.read("AGENTS.md");
    assert!(agents.starts_with("# House rules\n\nUse tabs.\n\n<!-- rail:begin -->"));
    assert_eq!(agents.matches("<!-- rail:begin -->").count(), 1);
    assert!(
        !repo.file("CLAUDE.md").exists(),
        "only existing instruction files are written"
    );
    let settings: serde_json::Value =
        serde_json::from_str(&repo.read(".claude/settings.json")).unwrap();
    assert_eq!(settings["permissions"]["allow"][0], "Bash(npm test)");
    let pre = settings["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre.len(), 2);
    assert_eq!(pre[0]["hooks"][0]["command"], "./guard.sh");
    assert!(pre[1]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .ends_with("hook claude"));
    assert!(settings["hooks"]["SessionEnd"].is_array());
    // --print touches nothing; a broken settings file is refused, untouched.
    let before = repo.read("AGENTS.md");
    let out = repo.rail(&["init", "--agents", "--print"]);
    assert!(stdout(&out).contains("Claim before you edit"));
    assert_eq!(repo.read("AGENTS.md"), before);
    std::fs::write(repo.file(".claude/settings.json"), "{ broken").unwrap();
    let out = repo.rail(&["init", "--agents"]);
    assert_eq!(code(&out), 2);
    assert_eq!(repo.read(".claude/settings.json"), "{ broken");
}

/// Core's one list of the rail's own files: the edit hook, `rail check --staged` (the
/// pre-commit hook) and release's touched files all leave them out, in the checkout that
/// holds the rail.
#[test]
fn the_rails_own_files_are_nobodys_work_everywhere() {
    let (repo, _station) = setup();
    let env = [("RAIL_SESSION", "auth")];
    for own in ["claims.md", "claims.log", "rail.yaml", "claims/auth.yaml"] {
        let file = repo.file(own).display().to_string();
        let out = hook(
            repo.path(),
            &payload("edit.json", repo.path(), &file, ""),
            &env,
        );
        assert_eq!(
            (code(&out), stdout(&out).as_str()),
            (0, ""),
            "{own}: {}",
            stderr(&out)
        );
    }
    let work = repo.file("docs/notes.md").display().to_string();
    let out = hook(
        repo.path(),
        &payload("edit.json", repo.path(), &work, ""),
        &env,
    );
    assert!(
        stdout(&out).contains("docs/notes.md is outside auth's claimed paths"),
        "{}",
        stdout(&out)
    );

    // Staged: the rail's files and one in scope.
    std::fs::write(repo.file("src/auth/token.ts"), "y\n").unwrap();
    std::fs::write(repo.file("rail.yaml"), "lease: 3h\n").unwrap();
    repo.git(&["add", "-A"]);
    let out = repo.rail(&["check", "--staged", "--session", "auth", "--json"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let text = report.to_string();
    assert!(text.contains("src/auth/token.ts"), "{text}");
    for own in ["claims.md", "claims.log", "rail.yaml"] {
        assert!(!text.contains(&format!("\"{own}\"")), "{own}: {text}");
    }

    // Release's touched files.
    let out = repo.rail(&["release", "auth-refresh", "--session", "auth"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let log = repo.read("claims.log");
    let released = log.lines().find(|l| l.contains("| released |")).unwrap();
    assert!(released.contains("src/auth/token.ts"), "{released}");
    assert!(!released.contains("rail.yaml"), "{released}");
    assert!(!released.contains("claims.md"), "{released}");
}

/// Issue 18, finding 1: shell forms the old reader fell through on. Each writes into the path
/// session auth holds, and must be denied.
#[test]
fn shell_forms_writing_held_paths_are_denied() {
    let (_repo, station) = setup();
    for command in [
        "if true; then rm src/auth/token.ts; fi",
        "! rm src/auth/token.ts",
        "for f in a b; do cp a src/auth/token.ts; done",
        "while true; do rm src/auth/token.ts; break; done",
        "case x in x) rm src/auth/token.ts;; esac",
        "{ rm src/auth/token.ts; }",
        "find src/auth -name '*.ts' -delete",
        "find src -name token.ts -exec rm {} \\;",
        "bash -c 'echo x > src/auth/token.ts'",
        "sh -c \"sed -i 's/a/b/' src/auth/token.ts\"",
        "zsh -c 'cd src && rm auth/token.ts'",
        "awk -i inplace '{print}' src/auth/token.ts",
        "rsync -a ../vendor/auth/ src/auth/",
        "tar -xzf x.tgz -C src/auth",
        "unzip -o x.zip -d src/auth",
        "git checkout HEAD -- src/auth/token.ts",
        "git clean -fdx src/auth",
        "echo $(rm src/auth/token.ts)",
        &format!("rm {}/src/auth/token.ts", station.display()),
        "cd web && rm ../src/auth/token.ts",
    ] {
        let out = hook(&station, &payload("bash.json", &station, "", command), &[]);
        assert_eq!(
            code(&out),
            2,
            "{command:?} must be denied: {}{}",
            stdout(&out),
            stderr(&out)
        );
        assert!(
            stderr(&out).contains("src/auth"),
            "{command:?}: {}",
            stderr(&out)
        );
    }
}

/// Issue 28, finding 5: an input redirection may stand anywhere in a simple command (bash runs
/// `rm < /dev/null FILE`); the words after its file are still the command's operands, judged
/// exactly as without the redirection.
#[test]
fn a_redirection_before_the_operands_hides_none_of_them() {
    let (_repo, station) = setup();
    for command in [
        "rm < /dev/null src/auth/token.ts",
        "sed </dev/null -i s/a/b/ src/auth/token.ts",
        "find </dev/null src/auth -delete",
        "git </dev/null checkout -- src/auth/token.ts",
        "< /dev/null rm src/auth/token.ts",
        "rm 2>/dev/null web/a.ts < /dev/null src/auth/token.ts",
        "true && cp web/a.ts > /dev/null src/auth/token.ts",
        "rm <<EOF src/auth/token.ts\nx\nEOF",
    ] {
        let out = hook(
            &station,
            &agent_payload("claude/bash.json", &station, "", command),
            &[],
        );
        assert_eq!(
            code(&out),
            2,
            "{command:?} must be denied: {}{}",
            stdout(&out),
            stderr(&out)
        );
        assert!(
            stderr(&out).contains("src/auth") && stderr(&out).contains("is claimed by auth"),
            "{command:?}: {}",
            stderr(&out)
        );
    }
}

/// Issue 28, finding 5: Codex's `apply_patch` run from the shell. A patch the command writes
/// out is judged where the command runs; one Rail cannot see is named as not judged (denied
/// with `hook_unanalysed: deny`), never allowed without a word.
#[test]
fn apply_patch_in_a_shell_command_is_judged_or_named() {
    let (repo, station) = setup();
    let patch = "*** Begin Patch\n*** Update File: auth/token.ts\n@@\n-x\n+y\n*** End Patch\n";
    for command in [
        format!("cd src && apply_patch <<'EOF'\n{patch}EOF"),
        format!("cd src; apply_patch '{patch}'"),
    ] {
        let out = run_hook(
            "codex",
            &station,
            &agent_payload("codex/bash.json", &station, "", &command),
            &[],
        );
        check_answer(Wire::Codex, "deny", &out, &command);
    }
    let unseen = [
        "apply_patch < p.patch",
        "cat p.patch | apply_patch",
        "apply_patch \"$(cat p.patch)\"",
    ];
    for command in unseen {
        let out = hook(&station, &payload("bash.json", &station, "", command), &[]);
        check_answer(Wire::Claude, "warn", &out, command);
        assert!(
            stdout(&out).contains("Rail could not judge") && stdout(&out).contains("`apply_patch"),
            "{command:?}: {}",
            stdout(&out)
        );
    }
    std::fs::write(repo.file("rail.yaml"), "hook_unanalysed: deny\n").unwrap();
    for command in unseen {
        let out = hook(&station, &payload("bash.json", &station, "", command), &[]);
        assert_eq!(code(&out), 2, "{command:?}: {}", stdout(&out));
        assert!(
            stderr(&out).contains("cannot judge") && stderr(&out).contains("`apply_patch"),
            "{command:?}: {}",
            stderr(&out)
        );
    }
}

/// Issue 28, finding 5: git commands that write files — into a file they are told to
/// (`--output`, `-o`, `bundle create`) or across the work tree (`checkout -f`) — are judged or
/// named, never allowed without a word.
#[test]
fn git_commands_that_write_files_are_judged_or_named() {
    let (_repo, station) = setup();
    for command in [
        "git diff --output=src/auth/token.ts",
        "git show --output=src/auth/token.ts HEAD",
        "git archive -o src/auth/a.tar HEAD",
        "git bundle create src/auth/r.bundle --all",
        "git format-patch -o src/auth HEAD~1",
    ] {
        let out = hook(&station, &payload("bash.json", &station, "", command), &[]);
        check_answer(Wire::Claude, "deny", &out, command);
    }
    for (command, named) in [
        ("git checkout -f", "`git checkout -f`"),
        ("git stash branch b", "`git stash branch`"),
        ("git co main", "`git co`"),
    ] {
        let out = hook(&station, &payload("bash.json", &station, "", command), &[]);
        check_answer(Wire::Claude, "warn", &out, command);
        assert!(
            stdout(&out).contains("Rail could not judge") && stdout(&out).contains(named),
            "{command:?}: {}",
            stdout(&out)
        );
    }
}

/// Issue 28, finding 5: an MCP tool whose name starts with a read verb but writes
/// (`search_replace`, `fetch_to_file`…) is judged by its path, not passed by its first word.
#[test]
fn mcp_tools_are_read_only_only_when_their_whole_name_says_so() {
    let (_repo, station) = setup();
    let held = station.join("src/auth/token.ts").display().to_string();
    let as_tool = |name: &str| {
        payload("mcp-write.json", &station, &held, "").replace(
            "mcp__filesystem__write_file",
            &format!("mcp__editor__{name}"),
        )
    };
    for name in [
        "search_replace",
        "find_and_replace",
        "fetch_to_file",
        "get_or_create_file",
    ] {
        let out = hook(&station, &as_tool(name), &[]);
        check_answer(Wire::Claude, "deny", &out, name);
    }
    for name in ["read_file", "list_dir"] {
        let out = hook(&station, &as_tool(name), &[]);
        check_answer(Wire::Claude, "allow", &out, name);
    }
}

/// Issue 28, finding 5: an agent working in several repositories. A Cursor workspace whose first
/// root is another repository and whose second is the station, and a Gemini session whose `cwd`
/// is in another repository: a write into the station's held path is judged against the rail of
/// the repository it lands in, and denied; its own paths there, and the other repository's, stay
/// writable.
#[test]
fn each_path_is_judged_by_the_rail_of_the_repository_it_lands_in() {
    let (_repo, station) = setup();
    let other = tempfile::tempdir().unwrap();
    let other = other.path().canonicalize().unwrap();
    git_in(&other, &["init", "-q", "-b", "main"]);
    git_in(&other, &["commit", "-q", "--allow-empty", "-m", "init"]);
    let out = Command::new(rail_bin())
        .arg("init")
        .current_dir(&other)
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let held = station.join("src/auth/token.ts").display().to_string();
    let own = station.join("web/app.ts").display().to_string();
    let theirs = other.join("README.md").display().to_string();
    let cursor = |file: &str| {
        agent_payload("cursor/write.json", &other, "", "")
            .replace(
                &format!("[\"{}\"]", other.display()),
                &format!("[\"{}\",\"{}\"]", other.display(), station.display()),
            )
            .replace("\"file_path\":\"\"", &format!("\"file_path\":\"{file}\""))
    };
    assert!(cursor(&held).contains(&held), "{}", cursor(&held));
    let gemini = |file: &str| {
        agent_payload("gemini/write-file.json", &other, "", "")
            .replace("\"file_path\":\"\"", &format!("\"file_path\":\"{file}\""))
    };
    assert!(gemini(&held).contains(&held), "{}", gemini(&held));
    let out = run_hook("cursor", &other, &cursor(&held), &[("RAIL_SESSION", "web")]);
    check_answer(
        Wire::Cursor,
        "deny",
        &out,
        "cursor, held path in the second root",
    );
    let out = run_hook("gemini", &other, &gemini(&held), &[("RAIL_SESSION", "web")]);
    check_answer(
        Wire::Gemini,
        "deny",
        &out,
        "gemini, held path from another repository",
    );
    // Without a session name, the other repository's branch names the agent: still denied.
    let out = run_hook("gemini", &other, &gemini(&held), &[]);
    check_answer(Wire::Gemini, "deny", &out, "gemini, unnamed");
    let out = run_hook("cursor", &other, &cursor(&own), &[("RAIL_SESSION", "web")]);
    check_answer(Wire::Cursor, "allow", &out, "cursor, own path");
    let out = run_hook("gemini", &other, &gemini(&own), &[("RAIL_SESSION", "web")]);
    check_answer(Wire::Gemini, "allow", &out, "gemini, own path");
    // The other repository's own file is judged by the other repository's rail (web holds
    // nothing there), as before.
    let out = run_hook(
        "gemini",
        &other,
        &gemini(&theirs),
        &[("RAIL_SESSION", "web")],
    );
    check_answer(Wire::Gemini, "warn", &out, "gemini, the other repository");
    assert!(
        stdout(&out).contains("web holds no claim"),
        "{}",
        stdout(&out)
    );
}

/// Issue 18, finding 1: what the reader cannot judge is never allowed silently: it is named in
/// a warning, or denied with `hook_unanalysed: deny`.
#[test]
fn what_cannot_be_judged_is_named_or_denied_never_allowed_silently() {
    let (repo, station) = setup();
    let cases = [
        ("rm $(pwd)/src/auth/token.ts", "$(pwd)"),
        ("rm \"$PWD/src/auth/token.ts\"", "$PWD"),
        ("eval \"$CMD\"", "eval"),
        (
            "python3 -c \"open('src/auth/token.ts','w')\"",
            "`python3 -c` code",
        ),
        (
            "node -e \"require('fs').writeFileSync('src/auth/token.ts','')\"",
            "`node -e` code",
        ),
        ("git apply fix.patch", "git apply"),
        ("patch -p1 < fix.diff", "patch"),
        ("ls src/auth | xargs rm", "xargs rm"),
        ("bash -c \"$SCRIPT\"", "bash -c"),
    ];
    for (command, named) in cases {
        let out = hook(&station, &payload("bash.json", &station, "", command), &[]);
        assert_eq!(code(&out), 0, "{command:?}: {}", stderr(&out));
        let said = stdout(&out);
        assert!(
            said.contains("Rail could not judge") && said.contains(named),
            "{command:?} must be named in a warning: {said:?}"
        );
    }
    std::fs::write(repo.file("rail.yaml"), "hook_unanalysed: deny\n").unwrap();
    for (command, named) in cases {
        let out = hook(&station, &payload("bash.json", &station, "", command), &[]);
        assert_eq!(code(&out), 2, "{command:?}: {}", stdout(&out));
        assert!(
            stderr(&out).contains("hook_unanalysed: deny") && stderr(&out).contains(named),
            "{command:?}: {}",
            stderr(&out)
        );
    }
    assert!(
        repo.read("claims.log").contains(
            "| refused | - | web~claude-6a0c4e11 | by: hook claude | reason: not analysed"
        ),
        "{}",
        repo.read("claims.log")
    );
    // What is fully judged is unchanged by the setting.
    for command in ["cargo test 2>&1 | tail", "echo x > web/a.ts"] {
        let out = hook(&station, &payload("bash.json", &station, "", command), &[]);
        assert_eq!((code(&out), stdout(&out).as_str()), (0, ""), "{command:?}");
    }
}

/// Issue 18, finding 2: a path is judged where it lands once symlinks are followed — inside
/// the station, from outside into it, into the main checkout, dangling — and a chain Rail
/// cannot follow is named, never allowed silently.
#[cfg(unix)]
#[test]
fn symlinks_are_judged_where_they_land() {
    use std::os::unix::fs::symlink;
    let (repo, station) = setup();
    symlink("src/auth", station.join("link")).unwrap();
    symlink(repo.file("src/auth"), station.join("web-main-auth")).unwrap();
    symlink("src/auth/not-yet.ts", station.join("dangling")).unwrap();
    symlink("loop-b", station.join("loop-a")).unwrap();
    symlink("loop-a", station.join("loop-b")).unwrap();
    let outside = tempfile::tempdir().unwrap();
    let from_outside = outside.path().join("into-station");
    symlink(station.join("src/auth"), &from_outside).unwrap();

    let denied_writes = [
        station.join("link/t.ts"),
        station.join("link/../auth/token.ts"),
        station.join("web-main-auth/t.ts"),
        station.join("dangling"),
        from_outside.join("t.ts"),
    ];
    for file in &denied_writes {
        let file = file.display().to_string();
        let out = hook(&station, &payload("write.json", &station, &file, ""), &[]);
        assert_eq!(code(&out), 2, "Write {file}: {}", stdout(&out));
        assert!(
            stderr(&out).contains("is claimed by auth"),
            "{file}: {}",
            stderr(&out)
        );
    }
    for command in [
        "echo x > link/t.ts".to_string(),
        "rm -rf link/".to_string(),
        "cp web/a.ts web-main-auth/".to_string(),
        "echo x > dangling".to_string(),
        format!("touch {}/t.ts", from_outside.display()),
        "cd link && echo x > t.ts".to_string(),
    ] {
        let out = hook(&station, &payload("bash.json", &station, "", &command), &[]);
        assert_eq!(code(&out), 2, "{command:?}: {}", stdout(&out));
    }
    // A loop cannot be followed: named in a warning (or denied by configuration).
    let looped = station.join("loop-a/x.ts").display().to_string();
    let out = hook(&station, &payload("write.json", &station, &looped, ""), &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("a symlink Rail cannot resolve"),
        "{}",
        stdout(&out)
    );
    // The station's own paths through a link of its own are still its own.
    std::fs::create_dir_all(station.join("web")).unwrap();
    symlink("web", station.join("web-link")).unwrap();
    let own = station.join("web-link/app.ts").display().to_string();
    let out = hook(&station, &payload("write.json", &station, &own, ""), &[]);
    assert_eq!((code(&out), stdout(&out).as_str()), (0, ""));
}

/// Judging reads the claims, never the history: claims.log only grows (every Stop and denial
/// appends to it), and the hook runs on every tool call. Here the log cannot be read at all (a
/// FIFO, which Rail refuses to read): the hook still judges, where it used to deny every edit
/// as one it could not check.
#[cfg(unix)]
#[test]
fn the_hook_judges_without_reading_claims_log() {
    let (repo, station) = setup();
    std::fs::remove_file(repo.file("claims.log")).unwrap();
    let status = Command::new("mkfifo")
        .arg(repo.file("claims.log"))
        .status()
        .unwrap();
    assert!(status.success());
    let own = station.join("web/app.ts").display().to_string();
    let out = hook(&station, &payload("write.json", &station, &own, ""), &[]);
    check_answer(Wire::Claude, "allow", &out, "own path");
    let held = station.join("src/auth/token.ts").display().to_string();
    let out = hook(&station, &payload("write.json", &station, &held, ""), &[]);
    check_answer(Wire::Claude, "deny", &out, "held path");
    std::fs::remove_file(repo.file("claims.log")).unwrap();
}

/// The wire format an answer must be in, by the folder of the payload that was sent.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Wire {
    Claude,
    Codex,
    Cursor,
    Gemini,
    Copilot,
}

fn wire_of(fixture: &str) -> Wire {
    match fixture.split('/').next().unwrap() {
        "codex" => Wire::Codex,
        "cursor" => Wire::Cursor,
        "gemini" => Wire::Gemini,
        "copilot" => Wire::Copilot,
        _ => Wire::Claude,
    }
}

/// A payload from tests/fixtures/hooks/<agent>/ with its placeholders filled in. A placeholder
/// quoted as `\"{{FILE}}\"` sits in JSON text inside a JSON string (Copilot's `toolArgs`) and is
/// escaped twice.
fn agent_payload(fixture: &str, cwd: &Path, rel: &str, command: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/hooks")
        .join(fixture);
    let file = if rel.is_empty() {
        String::new()
    } else {
        cwd.join(rel).display().to_string()
    };
    let json_escaped = |s: &str| {
        let quoted = serde_json::to_string(s).unwrap();
        quoted[1..quoted.len() - 1].to_string()
    };
    let cwd_text = cwd.display().to_string();
    let mut text =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    for (name, value) in [
        ("CWD", cwd_text.as_str()),
        ("FILE", file.as_str()),
        ("REL", rel),
        ("COMMAND", command),
    ] {
        text = text.replace(
            &format!("\\\"{{{{{name}}}}}\\\""),
            &format!("\\\"{}\\\"", json_escaped(&json_escaped(value))),
        );
    }
    text.replace("{{CWD}}", &cwd_text)
        .replace("{{FILE}}", &file)
        .replace("{{REL}}", rel)
        .replace("{{COMMAND}}", &json_escaped(command))
}

fn json_out(out: &Output) -> serde_json::Value {
    serde_json::from_str(stdout(out).trim())
        .unwrap_or_else(|e| panic!("stdout is not one JSON value ({e}): {:?}", stdout(out)))
}

/// Checks `out` is `expect` in `wire`'s exact format. Denials must name the reason; Codex's must
/// be exactly its deny object (any other key and Codex runs the tool), Cursor's every answer
/// explicit JSON (with failClosed, empty output blocks).
fn check_answer(wire: Wire, expect: &str, out: &Output, what: &str) {
    let ctx = format!(
        "{what}: exit {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        stdout(out),
        stderr(out)
    );
    let reason_ok = |reason: &str| match expect {
        "deny" => reason.contains("claimed by auth"),
        "fail" => reason.contains("Rail could not check this edit"),
        _ => true,
    };
    match (wire, expect) {
        (Wire::Claude, "deny" | "fail") => {
            assert_eq!(code(out), 2, "{ctx}");
            assert!(reason_ok(&stderr(out)), "{ctx}");
        }
        (Wire::Claude | Wire::Codex | Wire::Gemini | Wire::Copilot, "allow" | "stop") => {
            assert_eq!(code(out), 0, "{ctx}");
            assert_eq!(stdout(out).trim(), "", "{ctx}");
        }
        (Wire::Claude, "warn") => {
            assert_eq!(code(out), 0, "{ctx}");
            let v = json_out(out);
            assert!(
                v["systemMessage"].as_str().unwrap().starts_with("Rail"),
                "{ctx}"
            );
            assert!(v.get("permissionDecision").is_none(), "{ctx}");
        }
        (Wire::Codex, "deny" | "fail") => {
            assert_eq!(code(out), 0, "{ctx}");
            let v = json_out(out);
            let obj = v.as_object().unwrap();
            assert_eq!(
                obj.keys().collect::<Vec<_>>(),
                ["hookSpecificOutput"],
                "{ctx}"
            );
            let inner = v["hookSpecificOutput"].as_object().unwrap();
            assert_eq!(
                inner.keys().collect::<Vec<_>>(),
                [
                    "hookEventName",
                    "permissionDecision",
                    "permissionDecisionReason"
                ],
                "{ctx}"
            );
            assert_eq!(inner["hookEventName"], "PreToolUse", "{ctx}");
            assert_eq!(inner["permissionDecision"], "deny", "{ctx}");
            assert!(
                reason_ok(inner["permissionDecisionReason"].as_str().unwrap()),
                "{ctx}"
            );
        }
        (Wire::Codex | Wire::Gemini, "warn") => {
            assert_eq!(code(out), 0, "{ctx}");
            let v = json_out(out);
            assert_eq!(v.as_object().unwrap().len(), 1, "{ctx}");
            assert!(
                v["systemMessage"].as_str().unwrap().starts_with("Rail"),
                "{ctx}"
            );
        }
        (Wire::Cursor, _) => {
            assert_eq!(code(out), 0, "{ctx}");
            let v = json_out(out);
            match expect {
                "allow" => assert_eq!(v, serde_json::json!({"permission": "allow"}), "{ctx}"),
                "stop" => assert_eq!(v, serde_json::json!({}), "{ctx}"),
                "warn" => {
                    assert_eq!(v["permission"], "allow", "{ctx}");
                    assert!(
                        v["user_message"].as_str().unwrap().starts_with("Rail"),
                        "{ctx}"
                    );
                }
                _ => {
                    assert_eq!(v["permission"], "deny", "{ctx}");
                    assert!(reason_ok(v["user_message"].as_str().unwrap()), "{ctx}");
                    assert_eq!(v["user_message"], v["agent_message"], "{ctx}");
                }
            }
        }
        // Copilot: exactly its two keys, on exit 0 (it skips a hook that fails).
        (Wire::Copilot, "deny" | "fail") => {
            assert_eq!(code(out), 0, "{ctx}");
            let v = json_out(out);
            let obj = v.as_object().unwrap();
            assert_eq!(
                obj.keys().collect::<Vec<_>>(),
                ["permissionDecision", "permissionDecisionReason"],
                "{ctx}"
            );
            assert_eq!(v["permissionDecision"], "deny", "{ctx}");
            assert!(
                reason_ok(v["permissionDecisionReason"].as_str().unwrap()),
                "{ctx}"
            );
        }
        (Wire::Copilot, "warn") => {
            assert_eq!(code(out), 0, "{ctx}");
            let v = json_out(out);
            assert_eq!(v.as_object().unwrap().len(), 1, "{ctx}");
            assert!(
                v["additionalContext"].as_str().unwrap().starts_with("Rail"),
                "{ctx}"
            );
            assert!(stderr(out).starts_with("Rail"), "{ctx}");
        }
        (Wire::Gemini, "deny" | "fail") => {
            assert_eq!(code(out), 0, "{ctx}");
            let v = json_out(out);
            assert_eq!(v["decision"], "deny", "{ctx}");
            assert_eq!(v.as_object().unwrap().len(), 2, "{ctx}");
            assert!(reason_ok(v["reason"].as_str().unwrap()), "{ctx}");
        }
        other => panic!("no rule for {other:?}"),
    }
}

#[test]
fn every_agents_payloads_get_the_verdict_in_that_agents_format() {
    let (repo, station) = setup();
    let table = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/hooks/cases.tsv");
    let mut ran = 0;
    for line in std::fs::read_to_string(table).unwrap().lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        let [agent, fixture, rel, command, expect] = cols[..] else {
            panic!("cases.tsv: not five columns: {line:?}");
        };
        let command = command.replace('⏎', "\n");
        let stdin = agent_payload(fixture, &station, rel, &command);
        let env: &[(&str, &str)] = if expect == "stop" {
            &[("RAIL_NOW", "2030-01-01T00:00:00Z")]
        } else {
            &[]
        };
        let out = run_hook(agent, &station, &stdin, env);
        check_answer(wire_of(fixture), expect, &out, line);
        if expect == "stop" {
            assert!(
                repo.holders("web-ui")[0].contains("renewed: 2030-01-01T00:00:00Z"),
                "{line}: {:?}",
                repo.holders("web-ui")
            );
            // The next stop renews again, from the claim's state as it is now.
            assert_eq!(code(&repo.rail_in(&station, &["renew", "web-ui"], &[])), 0);
        }
        ran += 1;
    }
    assert!(ran >= 50, "only {ran} cases");
    // Denials are logged with the hook that made them.
    let log = repo.read("claims.log");
    for agent in ["claude", "codex", "cursor", "gemini", "copilot"] {
        assert!(log.contains(&format!("by: hook {agent}")), "{agent}: {log}");
    }
}

#[test]
fn malformed_input_follows_each_agents_fail_safe_rule() {
    let (repo, station) = setup();
    let bad = ["", "not json", "[1,2]", "{\"tool_name\":\"Write\"}"];
    for (agent, wire, event) in [
        ("claude", Wire::Claude, "PreToolUse"),
        ("codex", Wire::Codex, "PreToolUse"),
        ("cursor", Wire::Cursor, "preToolUse"),
        ("gemini", Wire::Gemini, "BeforeTool"),
        ("copilot --event preToolUse", Wire::Copilot, "preToolUse"),
    ] {
        let no_path = format!(
            "{{\"hook_event_name\":\"{event}\",\"cwd\":\"{}\",\"tool_name\":\"{}\",\"tool_input\":{{}}}}",
            station.display(),
            match wire {
                Wire::Codex => "apply_patch",
                Wire::Gemini => "write_file",
                Wire::Copilot => "create",
                _ => "Write",
            }
        );
        let no_tool = format!("{{\"hook_event_name\":\"{event}\"}}");
        for input in bad
            .iter()
            .copied()
            .chain([no_tool.as_str(), no_path.as_str()])
        {
            let out = run_hook(agent, &station, input, &[]);
            check_answer(wire, "fail", &out, &format!("{agent} {input:?}"));
        }
    }
    // `hook_failure: warn` turns each into that agent's warning.
    std::fs::write(repo.file("rail.yaml"), "hook_failure: warn\n").unwrap();
    for (agent, wire) in [
        ("codex", Wire::Codex),
        ("cursor", Wire::Cursor),
        ("gemini", Wire::Gemini),
        ("copilot --event preToolUse", Wire::Copilot),
    ] {
        let out = run_hook(agent, &station, "not json", &[]);
        check_answer(wire, "warn", &out, agent);
    }
}

#[test]
fn session_end_releases_for_every_agent() {
    let (repo, station) = setup();
    for (agent, fixture) in [
        ("codex", "codex/session-end.json"),
        ("cursor", "cursor/session-end.json"),
        ("gemini", "gemini/session-end.json"),
        ("claude", "claude/session-end.json"),
        ("copilot --event sessionEnd", "copilot/session-end.json"),
    ] {
        assert_eq!(repo.holders("web-ui").len(), 1, "{agent}");
        let out = run_hook(
            agent,
            &station,
            &agent_payload(fixture, &station, "", ""),
            &[],
        );
        assert_eq!(code(&out), 0, "{agent}: {}", stderr(&out));
        assert!(repo.holders("web-ui").is_empty(), "{agent} did not release");
        let claim = repo.rail_in(&station, &["claim", "web-ui", "--path", "web/**"], &[]);
        assert_eq!(code(&claim), 0, "{}", stderr(&claim));
    }
}

/// Issue 18 #6: a branch name that cannot be a session name is a valid situation. The old hook
/// denied every edit "until the rail can be read".
#[test]
fn a_branch_that_cannot_name_a_session_is_judged_not_blanket_denied() {
    let (repo, _station) = setup();
    let odd = repo.path().parent().unwrap().join(format!(
        "{}-odd",
        repo.path().file_name().unwrap().to_string_lossy()
    ));
    repo.git(&[
        "worktree",
        "add",
        "-q",
        "-b",
        "fix$(id)",
        odd.to_str().unwrap(),
    ]);
    for (agent, fixture, wire) in [
        ("claude", "claude/write.json", Wire::Claude),
        ("codex", "codex/apply-patch-update.json", Wire::Codex),
        ("cursor", "cursor/write.json", Wire::Cursor),
        ("gemini", "gemini/write-file.json", Wire::Gemini),
        (
            "copilot --event preToolUse",
            "copilot/create.json",
            Wire::Copilot,
        ),
    ] {
        let own = if agent == "claude" {
            payload(
                "write.json",
                &odd,
                &odd.join("docs/x.md").display().to_string(),
                "",
            )
        } else {
            agent_payload(fixture, &odd, "docs/x.md", "")
        };
        let out = run_hook(agent, &odd, &own, &[]);
        check_answer(wire, "warn", &out, agent);
        assert!(stdout(&out).contains("RAIL_SESSION"), "{}", stdout(&out));
        assert!(stdout(&out).contains("fix$(id)"), "{}", stdout(&out));
        let held = if agent == "claude" {
            payload(
                "write.json",
                &odd,
                &odd.join("src/auth/token.ts").display().to_string(),
                "",
            )
        } else {
            agent_payload(fixture, &odd, "src/auth/token.ts", "")
        };
        let out = run_hook(agent, &odd, &held, &[]);
        check_answer(wire, "deny", &out, agent);
    }
    let stop = run_hook("claude", &odd, &payload("stop.json", &odd, "", ""), &[]);
    assert_eq!(code(&stop), 0, "{}", stderr(&stop));
    assert_eq!(stdout(&stop).trim(), "");

    // The pre-commit check on that branch: an unclaimed file commits, a held one does not.
    std::fs::create_dir_all(odd.join("docs")).unwrap();
    std::fs::write(odd.join("docs/x.md"), "x\n").unwrap();
    git_in(&odd, &["add", "docs/x.md"]);
    let out = repo.rail_in(&odd, &["check", "--staged"], &[]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    std::fs::write(odd.join("src/auth/token.ts"), "changed\n").unwrap();
    git_in(&odd, &["add", "src/auth/token.ts"]);
    let out = repo.rail_in(&odd, &["check", "--staged"], &[]);
    assert_eq!(code(&out), 1, "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("held by auth"), "{}", stdout(&out));
}

/// Issue 18 #6: a Stop answers quickly in its own terms — exit 0, a note — and never with an
/// edit denial, whether the lock is a dangling link or held by a live writer.
#[test]
fn stop_answers_in_its_own_terms_when_the_lock_is_in_the_way() {
    let (repo, station) = setup();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("claims.md.lock.gone", repo.file("claims.md.lock")).unwrap();
        for (agent, fixture) in [("claude", "claude/stop.json"), ("codex", "codex/stop.json")] {
            let out = run_hook(
                agent,
                &station,
                &agent_payload(fixture, &station, "", ""),
                &[("RAIL_NOW", "2030-01-01T00:00:00Z")],
            );
            assert_eq!(code(&out), 0, "{agent}: {}", stderr(&out));
            let v = json_out(&out);
            let note = v["systemMessage"].as_str().unwrap();
            assert!(note.contains("symbolic link"), "{note}");
            assert!(!note.contains("could not check this edit"), "{note}");
        }
        std::fs::remove_file(repo.file("claims.md.lock")).unwrap();
    }
    // A live writer holds the lock far longer than a Stop may take.
    let mut holder = Command::new(rail_bin())
        .args(["renew", "web-ui"])
        .current_dir(&station)
        .env("RAIL_TEST_HOLD_MS", "120000")
        .env("RAIL_NOW", "2030-01-01T00:00:00Z")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for(
        "the holder never locked",
        std::time::Duration::from_secs(60),
        || repo.file("claims.md.lock").exists(),
    );
    // With the hook's bound shorter than the Stop's own budget, the watchdog answers; without,
    // the Stop's capped lock wait does. Both answer as a Stop.
    for env in [&[("RAIL_HOOK_TIMEOUT_MS", "300")][..], &[][..]] {
        let out = run_hook(
            "claude",
            &station,
            &payload("stop.json", &station, "", ""),
            env,
        );
        assert_eq!(code(&out), 0, "{env:?}: {}", stderr(&out));
        assert_eq!(stderr(&out).trim(), "", "{env:?}");
        let note = json_out(&out)["systemMessage"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(!note.contains("could not check this edit"), "{note}");
        assert!(note.contains("Stop"), "{note}");
    }
    let _ = holder.kill();
    let _ = holder.wait();
}

/// Each agent's files as a person left them: comments, their own hooks and servers, odd spacing.
const EXISTING: &[(&str, &str)] = &[
    (
        ".claude/settings.json",
        "{\n  // team settings\n  \"permissions\": { \"allow\": [\"Bash(npm test)\"] },\n  \"hooks\": {\n    \"PreToolUse\": [\n      { \"matcher\": \"Bash\", \"hooks\": [{ \"type\": \"command\", \"command\": \"./guard.sh\" }] }\n    ]\n  }\n}\n",
    ),
    (
        ".mcp.json",
        "{\n  \"mcpServers\": {\n    \"github\": { \"command\": \"gh-mcp\", \"args\": [] }\n  }\n}\n",
    ),
    (
        ".codex/config.toml",
        "# project config\nmodel = \"gpt-5.1-codex\"   # pinned\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\nargs = [\"--stdio\"]\n",
    ),
    (
        ".codex/hooks.json",
        "{\n    \"hooks\": {\n        \"PostToolUse\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"fmt.sh\"}]}]\n    }\n}\n",
    ),
    (
        ".cursor/hooks.json",
        "{\n  \"version\": 1,\n  \"hooks\": {\n    \"afterFileEdit\": [{ \"command\": \"./format.sh\" }], // format on save\n  }\n}\n",
    ),
    (
        ".cursor/mcp.json",
        "{ \"mcpServers\": { \"linear\": { \"url\": \"https://mcp.linear.app/sse\" } } }\n",
    ),
    (
        ".gemini/settings.json",
        "{\n  \"theme\": \"GitHub\",\n  /* keep */\n  \"mcpServers\": {}\n}\n",
    ),
    (
        ".vscode/mcp.json",
        "{\n\t\"servers\": {\n\t\t\"playwright\": {\"command\": \"npx\", \"args\": [\"@playwright/mcp\"]}\n\t},\n\t\"inputs\": []\n}\n",
    ),
];

#[test]
fn init_agents_configures_every_agent_keeping_the_rest_byte_for_byte() {
    let repo = Repo::new();
    for (path, text) in EXISTING {
        let p = repo.file(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    // --print shows and writes nothing.
    let out = repo.rail(&["init", "--agents", "--print"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    for (path, text) in EXISTING {
        assert_eq!(&repo.read(path), text, "--print changed {path}");
        assert!(
            stdout(&out).contains(&format!("# {path} (merged")),
            "{path}"
        );
    }
    assert!(
        stdout(&out).contains("trust this project"),
        "{}",
        stdout(&out)
    );

    let out = repo.rail(&["init", "--agents"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let said = stdout(&out);
    for title in [
        "Claude Code:",
        "Codex:",
        "Cursor:",
        "Gemini CLI:",
        "VS Code:",
    ] {
        assert!(said.contains(title), "{title} missing from: {said}");
    }
    let first: Vec<String> = EXISTING.iter().map(|(p, _)| repo.read(p)).collect();
    // Every byte of what was there is still there, in order: Rail only inserted.
    for ((path, before), after) in EXISTING.iter().zip(&first) {
        let mut rest = after.as_str();
        for ch in before.chars() {
            let at = rest
                .find(ch)
                .unwrap_or_else(|| panic!("{path}: lost {ch:?}\n{after}"));
            rest = &rest[at + ch.len_utf8()..];
        }
        assert_ne!(before, after, "{path} was not configured");
    }
    let json = |p: &str| -> serde_json::Value {
        let text = repo.read(p);
        let stripped: String = text
            .lines()
            .map(|l| l.split(" //").next().unwrap())
            .filter(|l| !l.trim_start().starts_with("//") && !l.contains("/*"))
            .collect::<Vec<_>>()
            .join("\n")
            .replace(",\n  }", "\n  }")
            .replace(", // format on save", "");
        serde_json::from_str(&stripped).unwrap_or_else(|e| panic!("{p}: {e}\n{stripped}"))
    };
    let claude = json(".claude/settings.json");
    assert_eq!(
        claude["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "./guard.sh"
    );
    assert!(claude["hooks"]["PreToolUse"][1]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .ends_with("hook claude"));
    assert_eq!(json(".mcp.json")["mcpServers"]["rail"]["args"][0], "mcp");
    assert_eq!(
        json(".mcp.json")["mcpServers"]["github"]["command"],
        "gh-mcp"
    );
    let codex = json(".codex/hooks.json");
    assert_eq!(
        codex.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["hooks"],
        "Codex rejects other top-level keys"
    );
    assert!(
        codex["hooks"]["SessionEnd"][0]["hooks"][0]["timeout"]
            .as_u64()
            .unwrap()
            <= 3
    );
    let toml = repo.read(".codex/config.toml");
    assert!(toml.starts_with(EXISTING[2].1), "{toml}");
    assert!(toml.contains("[mcp_servers.rail]\ncommand = "), "{toml}");
    let cursor = repo.read(".cursor/hooks.json");
    assert!(cursor.contains("\"failClosed\": true"), "{cursor}");
    assert!(cursor.contains("// format on save"), "{cursor}");
    let gemini = repo.read(".gemini/settings.json");
    assert!(
        gemini.contains("hook gemini") && gemini.contains("\"mcp\""),
        "{gemini}"
    );
    let vscode = repo.read(".vscode/mcp.json");
    assert!(
        vscode.contains("\t\t\"rail\": {"),
        "the file's tabs are kept: {vscode}"
    );

    // A second run changes nothing.
    let out = repo.rail(&["init", "--agents"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let second: Vec<String> = EXISTING.iter().map(|(p, _)| repo.read(p)).collect();
    assert_eq!(first, second);
    assert!(
        !stdout(&out).contains("merged"),
        "second run said: {}",
        stdout(&out)
    );

    // The hooks installed are the ones that answer: Cursor's answers explicitly.
    let out = run_hook(
        "cursor",
        repo.path(),
        &agent_payload("cursor/read.json", repo.path(), "a.txt", ""),
        &[],
    );
    assert_eq!(stdout(&out).trim(), "{\"permission\":\"allow\"}");
}

/// Copilot CLI: `.github/hooks/rail.json` beside the team's own hook files, each entry with a
/// command for bash and one for PowerShell that names its event; the commands installed are the
/// ones that judge, renew and release.
#[test]
fn init_agents_writes_copilots_hook_file_whose_commands_answer() {
    let (repo, station) = setup();
    let lint = "{\n  \"version\": 1,\n  \"hooks\": { \"postToolUse\": [{ \"type\": \"command\", \"bash\": \"./lint.sh\" }] }\n}\n";
    std::fs::create_dir_all(repo.file(".github/hooks")).unwrap();
    std::fs::write(repo.file(".github/hooks/lint.json"), lint).unwrap();
    let out = repo.rail(&["init", "--agents", "--agent", "copilot"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("Copilot CLI:"), "{}", stdout(&out));
    assert_eq!(repo.read(".github/hooks/lint.json"), lint);
    let first = repo.read(".github/hooks/rail.json");
    let v: serde_json::Value = serde_json::from_str(&first).unwrap();
    assert_eq!(v["version"], 1);
    let mcp: serde_json::Value = serde_json::from_str(&repo.read(".mcp.json")).unwrap();
    assert_eq!(mcp["mcpServers"]["rail"]["args"][0], "mcp");
    let out = repo.rail(&["init", "--agents", "--agent", "copilot"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        repo.read(".github/hooks/rail.json"),
        first,
        "a second run changes nothing"
    );

    let installed = |event: &str| -> String {
        let entries = v["hooks"][event].as_array().unwrap();
        assert_eq!(entries.len(), 1, "{event}: {first}");
        let e = &entries[0];
        assert_eq!(e["type"], "command");
        assert!(e["timeoutSec"].as_u64().unwrap() <= 30);
        let ps = e["powershell"].as_str().unwrap();
        assert!(
            ps.ends_with(&format!(" hook copilot --event {event}")),
            "{ps}"
        );
        let bash = e["bash"].as_str().unwrap().to_string();
        assert!(
            bash.ends_with(&format!(" hook copilot --event {event}")),
            "{bash}"
        );
        bash
    };
    // Copilot runs `bash` through a shell, in the repository, the payload on stdin.
    let run = |command: &str, payload: &str, env: &[(&str, &str)]| -> Output {
        let mut sh = Command::new("sh");
        sh.args(["-c", command]);
        feed(sh, &station, payload, env)
    };
    let pre = installed("preToolUse");
    let held = agent_payload("copilot/bash.json", &station, "", "rm src/auth/token.ts");
    check_answer(Wire::Copilot, "deny", &run(&pre, &held, &[]), "preToolUse");
    let own = agent_payload("copilot/create.json", &station, "web/new.ts", "");
    check_answer(Wire::Copilot, "allow", &run(&pre, &own, &[]), "preToolUse");

    let stop = agent_payload("copilot/agent-stop.json", &station, "", "");
    let out = run(
        &installed("agentStop"),
        &stop,
        &[("RAIL_NOW", "2030-01-01T00:00:00Z")],
    );
    check_answer(Wire::Copilot, "stop", &out, "agentStop");
    assert!(
        repo.holders("web-ui")[0].contains("renewed: 2030-01-01T00:00:00Z"),
        "{:?}",
        repo.holders("web-ui")
    );
    let end = agent_payload("copilot/session-end.json", &station, "", "");
    let out = run(&installed("sessionEnd"), &end, &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        repo.holders("web-ui").is_empty(),
        "sessionEnd did not release"
    );
}

#[test]
fn init_agents_configures_only_the_agents_named_or_found() {
    let repo = Repo::new();
    std::fs::create_dir_all(repo.file(".gemini")).unwrap();
    let out = repo.rail(&["init", "--agents"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(repo.file(".gemini/settings.json").exists());
    assert!(!repo.file(".cursor").exists() && !repo.file(".codex").exists());
    assert!(!repo.file(".claude").exists(), "found agents only");
    let out = repo.rail(&["init", "--agents", "--agent", "codex,cursor"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(repo.file(".codex/hooks.json").exists() && repo.file(".cursor/mcp.json").exists());
    let out = repo.rail(&["init", "--agents", "--agent", "emacs"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("unknown agent `emacs`"));
    // A broken file anywhere changes nothing anywhere.
    std::fs::write(repo.file(".codex/config.toml"), "[broken\n").unwrap();
    let before = repo.read(".cursor/hooks.json");
    std::fs::write(repo.file(".cursor/hooks.json"), "{}").unwrap();
    let out = repo.rail(&["init", "--agents", "--agent", "cursor,codex"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("config.toml"));
    assert_eq!(repo.read(".cursor/hooks.json"), "{}");
    assert_ne!(before, "{}");
}

/// Gemini CLI reads GEMINI.md and no other instruction file: set up for Gemini in a repository
/// with no instruction file, the rail section lands there too (it used to go to AGENTS.md and
/// CLAUDE.md only, which the Gemini model never sees); other agents' defaults are unchanged.
#[test]
fn init_agents_for_gemini_writes_the_section_into_gemini_md() {
    let repo = Repo::new();
    let out = repo.rail(&["init", "--agents", "--agent", "gemini"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let gemini = repo.read("GEMINI.md");
    assert_eq!(gemini.matches("<!-- rail:begin -->").count(), 1, "{gemini}");
    assert!(gemini.contains("rail claim"), "{gemini}");
    let text = stdout(&out);
    assert!(
        text.contains("--skip-trust"),
        "init names Gemini's trust caveat: {text}"
    );
    // Again: the section is not written twice.
    let out = repo.rail(&["init", "--agents", "--agent", "gemini"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(repo.read("GEMINI.md"), gemini);

    let other = Repo::new();
    let out = other.rail(&["init", "--agents", "--agent", "codex,copilot"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(!other.file("GEMINI.md").exists());
    assert!(other.file("AGENTS.md").exists() && other.file("CLAUDE.md").exists());
    assert!(
        stdout(&out).contains("--trust-folder"),
        "init names Copilot's folder trust"
    );
}

/// Cursor may start a hook with no useful working directory: the rail is found from the
/// payload's workspace root.
#[test]
fn the_rail_is_found_from_the_payload_not_the_hooks_own_directory() {
    let (_repo, station) = setup();
    let elsewhere = tempfile::tempdir().unwrap();
    let out = run_hook(
        "cursor",
        elsewhere.path(),
        &agent_payload("cursor/write.json", &station, "src/auth/token.ts", ""),
        &[],
    );
    check_answer(Wire::Cursor, "deny", &out, "cursor from elsewhere");
    let out = run_hook(
        "gemini",
        elsewhere.path(),
        &agent_payload("gemini/replace.json", &station, "web/app.ts", ""),
        &[],
    );
    check_answer(Wire::Gemini, "allow", &out, "gemini from elsewhere");
}

/// A panic inside the hook still answers in the agent's format: Claude Code would read a bare
/// exit 101 as "go on", Codex and Gemini too.
#[test]
fn a_panic_answers_fail_safe_in_each_format() {
    let (_repo, station) = setup();
    let panic = [("RAIL_TEST_HOOK_PANIC", "1")];
    for (agent, fixture, wire) in [
        ("codex", "codex/apply-patch-update.json", Wire::Codex),
        ("cursor", "cursor/write.json", Wire::Cursor),
        ("gemini", "gemini/write-file.json", Wire::Gemini),
        (
            "copilot --event preToolUse",
            "copilot/edit.json",
            Wire::Copilot,
        ),
    ] {
        let out = run_hook(
            agent,
            &station,
            &agent_payload(fixture, &station, "web/app.ts", ""),
            &panic,
        );
        check_answer(wire, "fail", &out, agent);
        assert!(stdout(&out).contains("internal error"), "{}", stdout(&out));
    }
    let out = run_hook(
        "claude",
        &station,
        &payload(
            "edit.json",
            &station,
            &station.join("web/a").display().to_string(),
            "",
        ),
        &panic,
    );
    check_answer(Wire::Claude, "fail", &out, "claude");
    // A Stop that panics still lets the agent stop.
    let out = run_hook(
        "claude",
        &station,
        &payload("stop.json", &station, "", ""),
        &panic,
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(json_out(&out)["systemMessage"]
        .as_str()
        .unwrap()
        .contains("internal error"));
}

/// The pre-tool hook command an agent's config file in `dir` holds, as the agent would run it
/// through its shell.
fn configured_hook(dir: &Path, agent: &str) -> String {
    let (file, pointer) = match agent {
        "claude" => (
            ".claude/settings.local.json",
            "/hooks/PreToolUse/0/hooks/0/command",
        ),
        "codex" => (".codex/hooks.json", "/hooks/PreToolUse/0/hooks/0/command"),
        "cursor" => (".cursor/hooks.json", "/hooks/preToolUse/0/command"),
        "gemini" => (
            ".gemini/settings.json",
            "/hooks/BeforeTool/0/hooks/0/command",
        ),
        "copilot" => (".github/hooks/rail.json", "/hooks/preToolUse/0/bash"),
        _ => unreachable!(),
    };
    let text = std::fs::read_to_string(dir.join(file))
        .unwrap_or_else(|e| panic!("{agent}: {file} is missing in {}: {e}", dir.display()));
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v.pointer(pointer)
        .and_then(|c| c.as_str())
        .unwrap_or_else(|| panic!("{agent}: no hook command in {file}: {text}"))
        .to_string()
}

/// README "Using it" line by line with nothing committed (issue 27): `rail init --hooks`,
/// `rail init --agents`, then `rail worktree TASK`. The new station has every configured agent's
/// hooks, MCP registration and rail section; the hook command each config holds, run there as the
/// agent runs it, denies a write into another session's claim; the copies are invisible to git
/// (status, `git add -A`, the station list, removal) and the main checkout's files are untouched.
#[test]
fn a_station_made_in_the_readmes_order_is_guarded_with_nothing_committed() {
    let repo = Repo::new();
    std::fs::create_dir_all(repo.file("src/auth")).unwrap();
    std::fs::write(repo.file("src/auth/token.ts"), "x\n").unwrap();
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "app"]);
    let out = repo.rail(&["init", "--hooks"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = repo.rail(&[
        "init",
        "--agents",
        "--agent",
        "claude,codex,cursor,gemini,vscode,copilot",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let said = stdout(&out);
    assert!(
        said.contains("commit these so teammates' clones")
            && said.contains(".claude/settings.json")
            && said.contains(".gemini/settings.json")
            && said.contains("GEMINI.md"),
        "{said}"
    );
    let settings_before = repo.read(".claude/settings.json");
    let out = repo.rail(&[
        "claim",
        "auth-refresh",
        "--session",
        "auth",
        "--path",
        "src/auth/**",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let station = repo.path().parent().unwrap().join(format!(
        "{}-web-ui",
        repo.path().file_name().unwrap().to_string_lossy()
    ));
    let out = repo.rail(&["worktree", "web-ui", "--path", "web/**"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out)
            .contains("guarded for Claude Code, Codex, Cursor, Gemini CLI, VS Code, Copilot CLI"),
        "{}",
        stdout(&out)
    );
    // Their trust is per folder: the station's message says to trust it.
    assert!(
        stdout(&out)
            .contains("Gemini CLI and Copilot CLI load project hooks only in a trusted folder"),
        "{}",
        stdout(&out)
    );
    for (file, says) in [
        (".claude/settings.local.json", "hook claude"),
        (".mcp.json", "\"mcp\""),
        (".codex/hooks.json", "hook codex"),
        (".codex/config.toml", "[mcp_servers.rail]"),
        (".cursor/hooks.json", "hook cursor"),
        (".cursor/mcp.json", "\"mcp\""),
        (".gemini/settings.json", "hook gemini"),
        (".vscode/mcp.json", "\"mcp\""),
        (".github/hooks/rail.json", "hook copilot"),
        ("AGENTS.md", "<!-- rail:begin -->"),
        ("CLAUDE.md", "<!-- rail:begin -->"),
        ("GEMINI.md", "<!-- rail:begin -->"),
    ] {
        let text = std::fs::read_to_string(station.join(file)).unwrap_or_default();
        assert!(text.contains(says), "{file} in the station: {text:?}");
    }
    // Claude Code's local file, not its project file: nothing a later merge would collide with.
    assert!(!station.join(".claude/settings.json").exists());

    for (agent, fixture, wire) in [
        ("claude", "claude/write.json", Wire::Claude),
        ("codex", "codex/apply-patch-update.json", Wire::Codex),
        ("cursor", "cursor/write.json", Wire::Cursor),
        ("gemini", "gemini/write-file.json", Wire::Gemini),
        ("copilot", "copilot/create.json", Wire::Copilot),
    ] {
        let command = configured_hook(&station, agent);
        let mut sh = Command::new("sh");
        sh.args(["-c", &command]);
        let held = if agent == "claude" {
            payload(
                "write.json",
                &station,
                &station.join("src/auth/token.ts").display().to_string(),
                "",
            )
        } else {
            agent_payload(fixture, &station, "src/auth/token.ts", "")
        };
        let out = feed(sh, &station, &held, &[]);
        check_answer(wire, "deny", &out, agent);
        let mut sh = Command::new("sh");
        sh.args(["-c", &command]);
        let own = if agent == "claude" {
            payload(
                "write.json",
                &station,
                &station.join("web/app.ts").display().to_string(),
                "",
            )
        } else {
            agent_payload(fixture, &station, "web/app.ts", "")
        };
        let out = feed(sh, &station, &own, &[]);
        check_answer(wire, "allow", &out, agent);
    }

    // Invisible to git and to Rail's scope checks; `git add -A` takes none of them.
    assert_eq!(git_in(&station, &["status", "--porcelain"]), "");
    git_in(&station, &["add", "-A"]);
    assert_eq!(git_in(&station, &["diff", "--cached", "--name-only"]), "");
    let out = repo.rail_in(&station, &["check"], &[]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let list = stdout(&repo.rail(&["worktree", "list"]));
    assert!(list.contains("clean, merged"), "{list}");
    // The main checkout's files: as they were, byte for byte.
    assert_eq!(repo.read(".claude/settings.json"), settings_before);
    // Ignored files do not make the station dirty: it closes without --force.
    let out = repo.rail(&["worktree", "remove", "web-ui"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
}

/// A station whose branch tracks an agent's files keeps them as they are: Rail writes only what
/// the branch does not track, and changes nothing the user committed.
#[test]
fn a_station_never_changes_what_its_branch_tracks() {
    let repo = Repo::new();
    std::fs::create_dir_all(repo.file(".gemini")).unwrap();
    let mine = "{ \"theme\": \"mine\" }\n";
    std::fs::write(repo.file(".gemini/settings.json"), mine).unwrap();
    std::fs::write(repo.file("AGENTS.md"), "# ours\n").unwrap();
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "our settings"]);
    let out = repo.rail(&["init", "--agents", "--agent", "claude,gemini"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = repo.rail(&["--json", "worktree", "t1", "--path", "web/**"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let dir = PathBuf::from(v["dir"].as_str().unwrap());
    assert_eq!(
        std::fs::read_to_string(dir.join(".gemini/settings.json")).unwrap(),
        mine
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("AGENTS.md")).unwrap(),
        "# ours\n"
    );
    let kept = v["guarded"]["kept"].to_string();
    assert!(
        kept.contains(".gemini/settings.json") && kept.contains("AGENTS.md"),
        "{v}"
    );
    assert!(dir.join(".claude/settings.local.json").exists(), "{v}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("; guarded for Claude Code, Gemini CLI"),
        "{v}"
    );
    assert!(dir.join("GEMINI.md").exists(), "{v}");
    assert_eq!(git_in(&dir, &["status", "--porcelain"]), "");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A worktree another tool made (Claude Code's `--worktree` puts one at
/// `.claude/worktrees/<name>` on branch `worktree-<name>`) is listed with its guard status, and
/// `rail worktree guard PATH` guards it as `rail worktree TASK` guards a new station.
#[test]
fn a_worktree_another_tool_made_is_shown_unguarded_and_guarded_with_one_command() {
    let repo = Repo::new();
    std::fs::create_dir_all(repo.file("src/auth")).unwrap();
    std::fs::write(repo.file("src/auth/token.ts"), "x\n").unwrap();
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "app"]);
    let out = repo.rail(&["init", "--agents", "--agent", "claude,gemini"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = repo.rail(&[
        "claim",
        "auth-refresh",
        "--session",
        "auth",
        "--path",
        "src/auth/**",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let wt = repo.file(".claude/worktrees/fix");
    repo.git(&[
        "worktree",
        "add",
        "-q",
        "-b",
        "worktree-fix",
        wt.to_str().unwrap(),
    ]);
    let list = stdout(&repo.rail(&["worktree", "list"]));
    assert!(
        list.contains("UNGUARDED: Claude Code, Gemini CLI (rail worktree guard"),
        "{list}"
    );
    let out = repo.rail(&["--json", "worktree", "list"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let other = v["stations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["branch"] == "worktree-fix")
        .unwrap();
    assert_eq!(
        other["guard"]["missing"].as_array().unwrap().len(),
        2,
        "{v}"
    );

    let out = repo.rail(&["worktree", "guard", wt.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(
        stdout(&out).contains("guarded for Claude Code, Gemini CLI"),
        "{}",
        stdout(&out)
    );
    let list = stdout(&repo.rail(&["worktree", "list"]));
    assert!(!list.contains("UNGUARDED"), "{list}");
    assert!(list.contains("guarded"), "{list}");
    for (agent, wire) in [("claude", Wire::Claude), ("gemini", Wire::Gemini)] {
        let mut sh = Command::new("sh");
        sh.args(["-c", &configured_hook(&wt, agent)]);
        let held = if agent == "claude" {
            payload(
                "write.json",
                &wt,
                &wt.join("src/auth/token.ts").display().to_string(),
                "",
            )
        } else {
            agent_payload("gemini/write-file.json", &wt, "src/auth/token.ts", "")
        };
        check_answer(wire, "deny", &feed(sh, &wt, &held, &[]), agent);
    }
    assert_eq!(git_in(&wt, &["status", "--porcelain"]), "");
    // Again: nothing more to write.
    let out = repo.rail(&["worktree", "guard", "worktree-fix"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // The main checkout is `rail init --agents`'s.
    let out = repo.rail(&["worktree", "guard", repo.path().to_str().unwrap()]);
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    assert!(
        stderr(&out).contains("rail init --agents"),
        "{}",
        stderr(&out)
    );
}

/// Agent files committed before the station was made: the station has them from its branch and
/// Rail writes no second copy (nor any exclude line).
#[test]
fn a_station_whose_branch_tracks_the_agents_files_gets_no_copies() {
    let repo = Repo::new();
    let out = repo.rail(&["init", "--agents", "--agent", "claude,gemini"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "agent files"]);
    let out = repo.rail(&["--json", "worktree", "t2", "--path", "web/**"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let dir = PathBuf::from(v["dir"].as_str().unwrap());
    assert_eq!(v["guarded"]["wrote"], serde_json::json!([]), "{v}");
    assert!(!dir.join(".claude/settings.local.json").exists());
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("its branch tracks the agents' files"),
        "{v}"
    );
    let exclude = std::fs::read_to_string(repo.file(".git/info/exclude")).unwrap_or_default();
    assert!(!exclude.contains("rail:"), "{exclude}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A station whose branch commits a link where an agent's file goes (`.claude -> elsewhere`):
/// Rail writes nothing through it, the station is still made, and the command says it is not
/// guarded and how to fix that.
#[cfg(unix)]
#[test]
fn a_link_in_the_stations_branch_is_never_written_through() {
    let repo = Repo::new();
    let out = repo.rail(&["init", "--agents", "--agent", "claude"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let elsewhere = tempfile::tempdir().unwrap();
    repo.git(&["checkout", "-q", "-b", "linked"]);
    std::fs::rename(repo.file(".claude"), repo.path().join("claude-saved")).unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), repo.file(".claude")).unwrap();
    repo.git(&["add", ".claude"]);
    repo.git(&["commit", "-qm", "a link"]);
    std::fs::remove_file(repo.file(".claude")).unwrap();
    repo.git(&["checkout", "-q", "main"]);
    std::fs::rename(repo.path().join("claude-saved"), repo.file(".claude")).unwrap();
    let out = repo.rail(&["worktree", "t3", "--base", "linked", "--path", "web/**"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(
        stderr(&out).contains("the station is not guarded")
            && stderr(&out).contains("rail worktree guard"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read_dir(elsewhere.path()).unwrap().count(),
        0,
        "nothing written through the link"
    );
    let dir = repo.path().parent().unwrap().join(format!(
        "{}-t3",
        repo.path().file_name().unwrap().to_string_lossy()
    ));
    assert!(dir.join(".git").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Guard status (issue 27, item 2): every hook call leaves a mark for its session, outside
/// claims.md and claims.log, and the board names, per session holding claims, the agent whose
/// hook it last saw, or that none was seen.
#[test]
fn the_board_names_each_sessions_guard_or_that_none_was_seen() {
    let (repo, station) = setup();
    let before = (repo.read("claims.md"), repo.read("claims.log"));
    // The station's agent (session web, from its branch) runs Rail's hook; auth's never does.
    // Claude Code names its version only in its hooks' environment (seen in 2.1.332).
    let out = hook(
        &station,
        &payload("edit.json", &station, "web/a.ts", ""),
        &[("AI_AGENT", "claude-code_2-1-332_harness")],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!((repo.read("claims.md"), repo.read("claims.log")), before);
    let out = repo.rail(&["board", "--json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let board: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let session = |name: &str| board_session(&board, name);
    let web = session("web");
    assert_eq!(web["hook"]["agent"], "claude", "{web}");
    assert_eq!(web["hook"]["version"], "2.1.332", "{web}");
    assert!(web["hook"]["seen_at"].is_string(), "{web}");
    assert_eq!(web["unguarded"], false);
    let auth = session("auth");
    assert!(auth["hook"].is_null(), "{auth}");
    assert_eq!(auth["unguarded"], true);
    let text = stdout(&repo.rail(&["board"]));
    assert!(text.contains("guarded: claude just now"), "{text}");
    assert!(text.contains("no Rail hook seen"), "{text}");
    // A mark another session's name was written under vouches for nobody.
    // (The agent's hooks mark its own session, web~claude-… from its payload's session id, which
    // vouches for web's claims it works on.)
    let seen = repo.file(".git/rail/seen");
    std::fs::write(
        seen.join("auth"),
        std::fs::read_to_string(seen.join("web%7Eclaude-6a0c4e11")).unwrap(),
    )
    .unwrap();
    let out = repo.rail(&["board", "--json"]);
    let board: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let auth = board["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "auth")
        .cloned()
        .unwrap();
    assert_eq!(auth["unguarded"], true, "{auth}");

    // Issue 41, finding 8: a mark speaks for the claims it could have seen. web's agent last
    // ran Rail's hook two weeks before web claims again: that call vouches for nothing since.
    let two_weeks_ago = chrono::Utc::now() - chrono::TimeDelta::days(14);
    std::fs::write(
        seen.join("web%7Eclaude-6a0c4e11"),
        format!(
            "session web~claude-6a0c4e11\nagent claude\nversion 2.1.332\nat {}\n",
            two_weeks_ago.format("%Y-%m-%dT%H:%M:%SZ")
        ),
    )
    .unwrap();
    let out = repo.rail(&[
        "claim",
        "web-later",
        "--session",
        "web",
        "--path",
        "web/later/**",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = repo.rail(&["board", "--json"]);
    let board: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let web = board_session(&board, "web");
    assert_eq!(web["hook"]["agent"], "claude", "{web}");
    assert_eq!(web["unguarded"], true, "a two-week-old mark vouched: {web}");
    let text = stdout(&repo.rail(&["board"]));
    assert!(
        text.contains("Rail hook last seen 14d ago, before its claims"),
        "{text}"
    );
}

/// `rail doctor` (issue 27, item 3): on a repository set up as the README says, with each agent
/// trusting the folders (and Codex Rail's hooks), it exits 0; it exits 1 and names the fix for a station missing an
/// agent's config, a hook command that does not resolve, an untrusted Codex project and a Gemini
/// or Copilot folder that is not trusted.
#[test]
fn doctor_names_what_leaves_an_agent_unguarded_and_its_fix() {
    let repo = Repo::new();
    let home = tempfile::tempdir().unwrap();
    let h = home.path().to_str().unwrap().to_string();
    let codex_home = home.path().join(".codex").display().to_string();
    let env = [
        ("HOME", h.as_str()),
        ("CODEX_HOME", codex_home.as_str()),
        ("RAIL_SESSION", "main"),
    ];
    init_agents(&repo, &env, "claude,codex,gemini,copilot");
    // Codex's hooks as Rail writes them with `rail` on PATH: those whose trust Codex recorded.
    let (codex_hooks, codex_trusted) = codex_trust_fixture(&repo.path().canonicalize().unwrap());
    std::fs::write(repo.file(".codex/hooks.json"), &codex_hooks).unwrap();
    let path = path_with_rail();
    let env = [env[0], env[1], env[2], ("PATH", path.as_str())];
    let station = repo.path().parent().unwrap().join(format!(
        "{}-doc",
        repo.path().file_name().unwrap().to_string_lossy()
    ));
    let out = repo.rail_env(
        &[
            "worktree",
            "docs",
            "--session",
            "doc",
            "--dir",
            station.to_str().unwrap(),
        ],
        &env,
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let main = repo.path().canonicalize().unwrap().display().to_string();
    let st = station.canonicalize().unwrap().display().to_string();
    let doctor = || {
        let out = repo.rail_env(&["doctor", "--json"], &env);
        let doc: serde_json::Value = serde_json::from_str(&stdout(&out))
            .unwrap_or_else(|e| panic!("{e}: {} {}", stdout(&out), stderr(&out)));
        (code(&out), doc)
    };
    // Nothing trusted yet: Codex for the project, Gemini and Copilot for each folder.
    let (c, doc) = doctor();
    assert_eq!(c, 1, "{doc}");
    let text = doc.to_string();
    for agent in ["Codex", "Gemini CLI", "Copilot CLI"] {
        assert!(
            text.contains(&format!("{agent} does not trust this folder")),
            "{agent}: {doc}"
        );
    }
    // Each agent trusts the folders, in its own file (Codex also its hooks): all guarded.
    std::fs::create_dir_all(home.path().join(".codex")).unwrap();
    std::fs::write(home.path().join(".codex/config.toml"), &codex_trusted).unwrap();
    std::fs::create_dir_all(home.path().join(".gemini")).unwrap();
    std::fs::write(
        home.path().join(".gemini/trustedFolders.json"),
        serde_json::json!({ main.clone(): "TRUST_FOLDER", st.clone(): "TRUST_FOLDER" }).to_string(),
    )
    .unwrap();
    std::fs::create_dir_all(home.path().join(".copilot")).unwrap();
    std::fs::write(
        home.path().join(".copilot/config.json"),
        serde_json::json!({ "trusted_folders": [main.clone(), st.clone()] }).to_string(),
    )
    .unwrap();
    let (c, doc) = doctor();
    assert_eq!(c, 0, "{doc}");
    assert_eq!(doc["ok"], true, "{doc}");
    let out = repo.rail_env(&["doctor"], &env);
    assert!(
        stdout(&out).contains("every agent set up here is guarded"),
        "{}",
        stdout(&out)
    );
    // A station without Gemini's hooks.
    std::fs::remove_file(station.join(".gemini/settings.json")).unwrap();
    let (c, doc) = doctor();
    assert_eq!(c, 1);
    assert!(
        doc.to_string()
            .contains(&format!("rail worktree guard {st}")),
        "{doc}"
    );
    let out = repo.rail_env(&["worktree", "guard", &st], &env);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(doctor().0, 0);
    // A hook command whose program is gone.
    let settings = repo.file(".claude/settings.json");
    let text = std::fs::read_to_string(&settings).unwrap();
    let rail = rail_bin().display().to_string();
    assert!(text.contains(&rail), "{text}");
    std::fs::write(&settings, text.replace(&rail, "/nowhere/rail")).unwrap();
    let (c, doc) = doctor();
    assert_eq!(c, 1);
    assert!(
        doc.to_string().contains("`/nowhere/rail` does not resolve"),
        "{doc}"
    );
    // Rail's hooks from an older Rail: one event it installs now is missing.
    let mut older: serde_json::Value = serde_json::from_str(&text).unwrap();
    older["hooks"]
        .as_object_mut()
        .unwrap()
        .remove("PostToolUseFailure")
        .expect("rail init --agents installs PostToolUseFailure");
    std::fs::write(&settings, older.to_string()).unwrap();
    let (c, doc) = doctor();
    assert_eq!(c, 1, "{doc}");
    let said = doc.to_string();
    assert!(
        said.contains("Rail's hooks here lack PostToolUseFailure")
            && said.contains("rail init --agents --agent claude"),
        "{doc}"
    );
    let out = repo.rail_env(&["init", "--agents", "--agent", "claude"], &env);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(doctor().0, 0);
    std::fs::write(&settings, text).unwrap();
    // Codex's project no longer trusted.
    std::fs::write(home.path().join(".codex/config.toml"), "model = \"x\"\n").unwrap();
    let (c, doc) = doctor();
    assert_eq!(c, 1);
    assert!(
        doc.to_string().contains("Codex does not trust this folder"),
        "{doc}"
    );
}

/// `rail init --hooks`, then `rail init --agents --agent <agents>`, as the README sets a
/// repository up.
fn init_agents(repo: &Repo, env: &[(&str, &str)], agents: &str) {
    for args in [
        vec!["init", "--hooks"],
        vec!["init", "--agents", "--agent", agents],
    ] {
        let out = repo.rail_env(&args, env);
        assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
    }
}

/// PATH with the `rail` under test first: `rail init --agents` then writes `rail hook …`.
fn path_with_rail() -> String {
    let bin = rail_bin().parent().unwrap().to_path_buf();
    let rest = std::env::var_os("PATH").unwrap_or_default();
    let all = std::iter::once(bin).chain(std::env::split_paths(&rest));
    std::env::join_paths(all)
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

/// Codex's per-hook trust as Codex 0.171.0 recorded it (tests/fixtures/hooks/codex-trust/), for
/// the main checkout `main`: Rail's `.codex/hooks.json` (`rail` on PATH), and the user
/// config.toml its /hooks review left after trusting those hooks (project trust included).
fn codex_trust_fixture(main: &Path) -> (String, String) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/hooks/codex-trust");
    let hooks = std::fs::read_to_string(dir.join("hooks.json")).unwrap();
    let hook_file = main.join(".codex").join("hooks.json");
    let config = std::fs::read_to_string(dir.join("config.toml"))
        .unwrap()
        .replace("{{HOOKS}}", &hook_file.display().to_string())
        .replace("{{MAIN}}", &main.display().to_string())
        .replace("{{PORT}}", "9");
    (hooks, config)
}

/// `rail doctor` and Codex's per-hook trust (issue 27, item 3): Codex skips a project hook without
/// a word until the person trusts it in its /hooks review, which keeps a hash of each hook in the
/// user config.toml. With the hooks Rail writes and the config Codex 0.171.0 wrote on trusting
/// them (recorded): no Codex finding. The project trusted but not the hooks: exit 1, naming
/// /hooks. A hook changed since, one turned off, a hooks file Codex refuses, a config it cannot
/// read: each named, and none of them "trusted".
#[test]
fn doctor_reads_codex_hook_trust() {
    let repo = Repo::new();
    let home = tempfile::tempdir().unwrap();
    let h = home.path().display().to_string();
    let codex_home = home.path().join("codex-home");
    std::fs::create_dir_all(&codex_home).unwrap();
    let ch = codex_home.display().to_string();
    let path = path_with_rail();
    let env = [
        ("HOME", h.as_str()),
        ("CODEX_HOME", ch.as_str()),
        ("PATH", path.as_str()),
        ("RAIL_SESSION", "main"),
    ];
    init_agents(&repo, &env, "codex");
    let main = repo.path().canonicalize().unwrap();
    let (hooks, trusted) = codex_trust_fixture(&main);
    // With `rail` on PATH Rail writes exactly the hooks whose hashes Codex recorded.
    let json = |t: &str| serde_json::from_str::<serde_json::Value>(t).unwrap();
    assert_eq!(json(&repo.read(".codex/hooks.json")), json(&hooks));
    let config = codex_home.join("config.toml");
    let doctor = || {
        let out = repo.rail_env(&["doctor", "--json"], &env);
        let doc: serde_json::Value = serde_json::from_str(&stdout(&out))
            .unwrap_or_else(|e| panic!("{e}: {} {}", stdout(&out), stderr(&out)));
        let codex: Vec<String> = doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["agent"] == "Codex")
            .map(|f| format!("{} | fix: {}", f["problem"], f["fix"]))
            .collect();
        (code(&out), codex)
    };
    // The project trusted, Rail's hooks not (what `codex exec --trust` leaves).
    let main_text = main.display().to_string();
    std::fs::write(
        &config,
        format!("[projects.\"{main_text}\"]\ntrust_level = \"trusted\"\n"),
    )
    .unwrap();
    let (c, found) = doctor();
    assert_eq!((c, found.len()), (1, 1), "{found:?}");
    for said in [
        "has not trusted Rail's hooks",
        "(PreToolUse, PostToolUse, Stop, SessionEnd;",
        "skips them without a word",
        "/hooks",
        "Trust all and continue",
    ] {
        assert!(found[0].contains(said), "{said}: {found:?}");
    }
    let out = repo.rail_env(&["doctor"], &env);
    assert_eq!(code(&out), 1);
    assert!(
        stdout(&out).contains(&format!(
            "fix: run `codex` in {main_text} and trust Rail's hooks"
        )),
        "{}",
        stdout(&out)
    );
    // Trusted as Codex's /hooks review wrote it: nothing for Codex, nothing unguarded.
    std::fs::write(&config, &trusted).unwrap();
    assert_eq!(doctor(), (0, vec![]));
    // A hook changed since it was trusted (Codex shows it "modified" and skips it).
    let hook_file = repo.file(".codex/hooks.json");
    std::fs::write(
        &hook_file,
        hooks.replacen("\"timeout\": 10", "\"timeout\": 11", 1),
    )
    .unwrap();
    let (c, found) = doctor();
    assert_eq!((c, found.len()), (1, 1), "{found:?}");
    assert!(
        found[0].contains("changed since Codex trusted them (PreToolUse;"),
        "{found:?}"
    );
    std::fs::write(&hook_file, &hooks).unwrap();
    // One turned off in /hooks.
    std::fs::write(
        &config,
        trusted.replace("enabled = true", "enabled = false"),
    )
    .unwrap();
    let (c, found) = doctor();
    assert_eq!(c, 1);
    assert!(
        found[0].contains("turned off in Codex (PreToolUse;"),
        "{found:?}"
    );
    // A hooks file Codex refuses whole: it runs none of its hooks.
    std::fs::write(&config, &trusted).unwrap();
    std::fs::write(&hook_file, hooks.replacen('{', "{\"$schema\": \"x\",", 1)).unwrap();
    let (c, found) = doctor();
    assert_eq!(c, 1);
    assert!(
        found
            .iter()
            .any(|f| f.contains("Codex cannot read") && f.contains("$schema")),
        "{found:?}"
    );
    std::fs::write(&hook_file, &hooks).unwrap();
    // A config Codex would not load, or Rail cannot read: cannot tell, never trusted.
    for bad in [
        trusted.replace("[hooks.state]", "[hooks.state"),
        trusted.replace("enabled = true", "enabled = \"yes\""),
    ] {
        std::fs::write(&config, bad).unwrap();
        let (c, found) = doctor();
        assert_eq!(c, 1);
        assert!(
            found
                .iter()
                .any(|f| f.contains("cannot tell whether Codex trusts Rail's hooks")),
            "{found:?}"
        );
    }
    let mut not_utf8 = trusted.clone().into_bytes();
    not_utf8.push(0xff);
    std::fs::write(&config, not_utf8).unwrap();
    let (c, found) = doctor();
    assert_eq!(c, 1);
    assert!(found.iter().any(|f| f.contains("cannot tell")), "{found:?}");
}

/// `rail doctor` checks what Rail installed for git resolves (issue 46, item 4): hooks written
/// with `rail` on PATH fail every commit in a shell where it is not, and said only `exec: rail:
/// not found`. Now the hook says what is wrong and doctor names the hook and the merge driver,
/// exit 1.
#[test]
fn doctor_names_git_hooks_and_a_merge_driver_whose_rail_is_gone() {
    let repo = Repo::new();
    let with_rail = path_with_rail();
    let out = repo.rail_env(&["init", "--hooks"], &[("PATH", with_rail.as_str())]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let hook = repo.read(".git/hooks/pre-commit");
    assert!(hook.contains("exec rail check --staged"), "{hook}");
    let doctor = |path: &str| {
        let out = repo.rail_env(&["doctor", "--json"], &[("PATH", path)]);
        let doc: serde_json::Value = serde_json::from_str(&stdout(&out))
            .unwrap_or_else(|e| panic!("{e}: {} {}", stdout(&out), stderr(&out)));
        (code(&out), doc.to_string())
    };
    let (_, fine) = doctor(&with_rail);
    assert!(!fine.contains("does not resolve"), "{fine}");
    // A PATH without rail (git and sh still on it).
    let without: String = std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .filter(|d| !d.join("rail").exists())
        .map(|d| d.display().to_string())
        .collect::<Vec<_>>()
        .join(":");
    let (c, said) = doctor(&without);
    assert_eq!(c, 1, "{said}");
    for name in ["pre-commit", "pre-push", "post-checkout"] {
        assert!(
            said.contains(&format!(
                "git's {name} hook runs `rail`, which does not resolve"
            )),
            "{name}: {said}"
        );
    }
    // The commit such a hook blocks says why, in words.
    std::fs::write(repo.file("x.txt"), "x\n").unwrap();
    repo.git(&["add", "x.txt"]);
    let commit = std::process::Command::new("git")
        .args(["commit", "-qm", "x"])
        .current_dir(repo.path())
        .env("PATH", &without)
        .output()
        .unwrap();
    assert!(!commit.status.success());
    let told = String::from_utf8_lossy(&commit.stderr);
    assert!(
        told.contains("this pre-commit hook runs rail, which is not found"),
        "{told}"
    );
    // The merge driver the same way.
    repo.git(&[
        "config",
        "merge.rail.driver",
        "/nowhere/rail merge-driver %O %A %B %P",
    ]);
    let (_, said) = doctor(&with_rail);
    assert!(
        said.contains("the merge driver runs `/nowhere/rail`, which does not resolve"),
        "{said}"
    );
}
