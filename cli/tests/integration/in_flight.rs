//! Work in flight in one shared checkout (issue 43, the articles' failure): two Claude Code
//! sessions on `main`, neither holding a claim. Beta's agent writes `src/auth/token.ts` through
//! its hooks (allowed: nobody holds it) and the after-tool call records it as beta's work in
//! flight; alpha's agent then writes the same file: denied, naming beta, and beta's change is
//! untouched; once beta commits it, alpha's write is allowed. Real git, the recorded payloads of
//! tests/fixtures/hooks/claude.

use std::path::Path;

use crate::common::{claude_payload, code, commit, hook_call, stderr, stdout, Repo};

const ALPHA: &str = "0a1b2c3d-0000-4000-8000-00000a1f1a11";
const BETA: &str = "0b2c3d4e-0000-4000-8000-0000000be7a2";
const BETA_SESSION: &str = "main~claude-000be7a2";
const FILE: &str = "src/auth/token.ts";

/// The recorded Write payload of session `id`, as its `event` (PreToolUse, or PostToolUse
/// after the tool ran), for tool call `call`.
fn write_payload(event: &str, id: &str, cwd: &Path, file: &str, call: &str) -> String {
    claude_payload("write.json", id, cwd, file)
        .replace("toolu_01WriteA", call)
        .replace("\"PreToolUse\"", &format!("\"{event}\""))
}

/// Session `id`'s agent writes `text` into `file` as Claude Code does: the pre-tool hook, the
/// write when allowed, the after-tool hook. The pre-tool answer.
fn agent_writes(repo: &Repo, id: &str, file: &str, text: &str, call: &str) -> std::process::Output {
    agent_writes_in(repo.path(), id, file, text, call)
}

/// [`agent_writes`] by an agent working in `dir` (a checkout: the main one or a station).
fn agent_writes_in(
    dir: &Path,
    id: &str,
    file: &str,
    text: &str,
    call: &str,
) -> std::process::Output {
    let target = dir.join(file);
    let at = target.display().to_string();
    let hook = |event: &str| {
        hook_call(
            "claude",
            dir,
            &write_payload(event, id, dir, &at, call),
            None,
            &[],
        )
    };
    let pre = hook("PreToolUse");
    if code(&pre) == 0 {
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(&target, text).unwrap();
        let post = hook("PostToolUse");
        assert_eq!(code(&post), 0, "after the tool: {}", stderr(&post));
    }
    pre
}

/// The station `rail worktree NAME` made beside `repo`.
fn station_of(repo: &Repo, name: &str) -> std::path::PathBuf {
    repo.path().parent().unwrap().join(format!(
        "{}-{name}",
        repo.path().file_name().unwrap().to_string_lossy()
    ))
}

/// Session `id`'s agent ends its session (Claude Code's SessionEnd); the hook's answer.
fn session_ends(repo: &Repo, id: &str) -> std::process::Output {
    let end = claude_payload("session-end.json", id, repo.path(), "");
    hook_call("claude", repo.path(), &end, None, &[])
}

#[test]
fn an_uncommitted_change_in_a_shared_checkout_is_not_written_over() {
    let repo = Repo::new();
    commit(repo.path(), FILE, "export const token = 1;\n");

    // Beta's agent fixes the file: nobody holds it, so it is allowed (with the usual warning).
    let out = agent_writes(&repo, BETA, FILE, "beta's fix\n", "toolu_beta1");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // Its own next write of the same file is its own business.
    let out = agent_writes(&repo, BETA, FILE, "beta's fix, again\n", "toolu_beta2");
    assert_eq!(code(&out), 0, "{}", stderr(&out));

    // Alpha's agent writes the same file: denied before the tool runs, naming beta and the file.
    let out = agent_writes(&repo, ALPHA, FILE, "alpha's rewrite\n", "toolu_alpha1");
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    let said = stderr(&out);
    assert!(
        said.contains(&format!(
            "{FILE} has {BETA_SESSION}'s uncommitted change (written "
        )),
        "{said}"
    );
    // Nothing beta wrote was touched by the denial.
    assert_eq!(repo.read(FILE), "beta's fix, again\n");
    let log = repo.read("claims.log");
    assert!(
        log.contains(&format!("path: {FILE}")) && log.contains("reason: in flight"),
        "{log}"
    );
    // A file beta did not write is alpha's to write.
    let out = agent_writes(&repo, ALPHA, "src/auth/other.ts", "alpha\n", "toolu_alpha2");
    assert_eq!(code(&out), 0, "{}", stderr(&out));

    // Beta commits its fix: its work is no longer in flight, and alpha may write the file.
    repo.git(&["add", "--", FILE]);
    repo.git(&["commit", "-qm", "beta's fix"]);
    let out = agent_writes(&repo, ALPHA, FILE, "alpha's rewrite\n", "toolu_alpha3");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(repo.read(FILE), "alpha's rewrite\n");
    // Now alpha's change is in flight, and beta is the one kept off it.
    let out = agent_writes(&repo, BETA, FILE, "beta again\n", "toolu_beta3");
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    assert_eq!(repo.read(FILE), "alpha's rewrite\n");
}

#[test]
fn a_change_put_back_to_head_or_left_by_an_ended_session_does_not_block() {
    let repo = Repo::new();
    commit(repo.path(), FILE, "export const token = 1;\n");
    let out = agent_writes(&repo, BETA, FILE, "beta's fix\n", "toolu_beta1");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // Beta puts the file back as HEAD has it: nothing of beta's is in it any more.
    repo.git(&["checkout", "--", FILE]);
    let out = agent_writes(&repo, ALPHA, FILE, "alpha\n", "toolu_alpha1");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    repo.git(&["checkout", "--", FILE]);

    // A new file of beta's, then beta's session ends: named to alpha, not blocking.
    let out = agent_writes(
        &repo,
        BETA,
        "src/new.ts",
        "beta's new file\n",
        "toolu_beta2",
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = session_ends(&repo, BETA);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = agent_writes(&repo, ALPHA, "src/new.ts", "alpha\n", "toolu_alpha2");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let said = String::from_utf8_lossy(&out.stdout).into_owned() + &stderr(&out);
    assert!(
        said.contains(BETA_SESSION) && said.contains("its session ended"),
        "{said}"
    );
    // Not blocking, but nothing beta wrote is lost: a copy was kept before alpha's write.
    assert!(said.contains("a copy of it is kept"), "{said}");
    let aside = repo.path().join(".git/rail/after/aside");
    let kept: Vec<String> = std::fs::read_dir(&aside)
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    assert!(kept.contains(&"beta's new file\n".to_string()), "{kept:?}");
}

/// A file git converts on checkout (here `core.autocrlf`, as on Windows; `eol` and filters
/// alike) never hashes to the blob its commit made: once committed, git's index says it is the
/// committed file, and it is no longer in flight.
#[test]
fn a_committed_file_git_converts_on_checkout_is_no_longer_in_flight() {
    let repo = Repo::new();
    repo.git(&["config", "core.autocrlf", "true"]);
    commit(repo.path(), FILE, "export const token = 1;\r\n");
    let out = agent_writes(&repo, BETA, FILE, "beta's fix\r\n", "toolu_beta1");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = agent_writes(&repo, ALPHA, FILE, "alpha\r\n", "toolu_alpha1");
    assert_eq!(
        code(&out),
        2,
        "in flight before the commit: {}",
        stdout(&out)
    );

    repo.git(&["add", "--", FILE]);
    repo.git(&["commit", "-qm", "beta's fix"]);
    // The checkout keeps CRLF, HEAD's blob has LF: the bytes alone would say "uncommitted".
    assert_eq!(repo.read(FILE), "beta's fix\r\n");
    let out = agent_writes(&repo, ALPHA, FILE, "alpha\r\n", "toolu_alpha2");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

/// The first scenario: beta's station fixes a file outside its claim (uncommitted); a
/// claim over it by alpha is refused, naming beta, its station and the file; `rail who` names
/// it; on purpose (`--over-flight`) the claim is made and beta's agent is told at its next tool
/// call. Once committed on beta's branch (not merged), it is still beta's work in flight.
#[test]
fn a_claim_over_a_stations_work_in_flight_is_refused_until_made_on_purpose() {
    let repo = Repo::new();
    commit(repo.path(), FILE, "export const token = 1;\n");
    commit(repo.path(), "src/app.ts", "app\n");
    let out = repo.rail(&["worktree", "beta", "--path", "src/app.ts"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let station = station_of(&repo, "beta");
    assert!(station.join("src/app.ts").is_file(), "{}", stdout(&out));

    // Beta's agent fixes src/auth/token.ts in its station: outside its claim, only warned.
    let out = agent_writes_in(&station, BETA, FILE, "beta's fix\n", "toolu_beta1");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // And beta edits another file by hand (an editor): uncommitted, no hook saw it.
    std::fs::write(station.join("src/auth/by-hand.ts"), "beta by hand\n").unwrap();

    let claim = |extra: &[&str]| {
        let mut args = vec![
            "--session",
            "alpha",
            "claim",
            "auth",
            "--path",
            "src/auth/**",
        ];
        args.extend_from_slice(extra);
        repo.rail(&args)
    };
    let out = claim(&[]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    let said = stderr(&out);
    let station_name = station.canonicalize().unwrap().display().to_string();
    assert!(said.contains("auth: refused"), "{said}");
    assert!(
        said.contains(&format!("beta~claude-000be7a2 in its station {station_name} (branch beta): {FILE} (uncommitted, written by its agent")),
        "{said}"
    );
    assert!(
        said.contains(&format!(
            "beta in its station {station_name} (branch beta): src/auth/by-hand.ts (uncommitted"
        )),
        "{said}"
    );
    assert!(said.contains("--over-flight"), "{said}");
    assert!(repo.holders("auth").is_empty(), "nothing claimed");

    // `rail who` names the work in flight beside the claims.
    let out = repo.rail(&["who", FILE]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains(&format!(
            "{FILE}: in flight: beta~claude-000be7a2 in its station"
        )),
        "{}",
        stdout(&out)
    );

    // The board names each session's work in flight, as text and as JSON.
    let out = repo.rail(&["board"]);
    let text = stdout(&out);
    assert!(
        text.contains("IN FLIGHT") && text.contains("src/auth/by-hand.ts  uncommitted"),
        "{text}"
    );
    let out = repo.rail(&["--json", "board"]);
    let board: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let groups = board["in_flight"].as_array().unwrap();
    assert!(
        groups.iter().any(|g| g["session"] == "beta"
            && g["station"] == "beta"
            && g["standing"] == "live"
            && g["files"][0]["path"] == "src/auth/by-hand.ts"),
        "{groups:?}"
    );

    // `rail flight` lists it, all of it or under a path.
    let out = repo.rail(&["--json", "flight", "src/auth"]);
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let files: Vec<&str> = doc["in_flight"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["path"].as_str().unwrap())
        .collect();
    assert!(
        files.contains(&FILE) && files.contains(&"src/auth/by-hand.ts"),
        "{doc}"
    );
    assert!(stdout(&repo.rail(&["flight"])).contains("src/auth/by-hand.ts  uncommitted"));

    // On purpose: claimed, said, and beta's agent hears it at its very next tool call.
    let out = claim(&["--over-flight"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("claimed over work in flight, on purpose"),
        "{}",
        stderr(&out)
    );
    assert_eq!(repo.holders("auth").len(), 1);
    assert!(repo.holders("auth")[0].contains("| alpha |"));
    let out = agent_writes_in(&station, BETA, "src/app.ts", "app 2\n", "toolu_beta2");
    assert_eq!(
        code(&out),
        2,
        "the notice stops the call once: {}",
        stdout(&out)
    );
    let told = stderr(&out);
    assert!(
        told.contains("Behind! alpha claimed auth on purpose") && told.contains(FILE),
        "{told}"
    );
    // Told once: the next call is judged as usual.
    let out = agent_writes_in(&station, BETA, "src/app.ts", "app 2\n", "toolu_beta3");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // Nothing beta wrote was touched.
    assert_eq!(
        std::fs::read_to_string(station.join(FILE)).unwrap(),
        "beta's fix\n"
    );

    // Committed on beta's branch, not merged: still in flight, for any other claim.
    crate::common::git_in(&station, &["add", "-A"]);
    crate::common::git_in(&station, &["commit", "-qm", "beta's fix"]);
    let out = repo.rail(&["--session", "gamma", "claim", "tokens", "--path", FILE]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(
        stderr(&out).contains(&format!(
            "beta in its station {station_name} (branch beta): {FILE} (committed, not merged"
        )),
        "{}",
        stderr(&out)
    );
}

/// The second scenario, for claims: in one shared checkout, beta's agent's uncommitted
/// write is work in flight a claim by another session is refused over.
#[test]
fn a_claim_over_a_shared_checkouts_uncommitted_write_is_refused() {
    let repo = Repo::new();
    commit(repo.path(), FILE, "export const token = 1;\n");
    let out = agent_writes(&repo, BETA, FILE, "beta's fix\n", "toolu_beta1");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = repo.rail(&["--session", "alpha", "claim", "auth", "--path", "src/auth"]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    let here = repo.path().canonicalize().unwrap().display().to_string();
    assert!(
        stderr(&out).contains(&format!(
            "{BETA_SESSION} in the shared checkout {here}: {FILE}"
        )),
        "{}",
        stderr(&out)
    );
    // Its own agent's work is its own: the branch's claim over it is not refused.
    let out = repo.rail(&["--session", "main", "claim", "auth", "--path", "src/auth"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = repo.rail(&["--session", "main", "release", "auth", "--no-touched"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // Committed: no longer in flight, nothing refused.
    repo.git(&["add", "--", FILE]);
    repo.git(&["commit", "-qm", "beta's fix"]);
    let out = repo.rail(&["--session", "alpha", "claim", "auth2", "--path", "src/auth"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

/// Item 3 across stations: beta's agent has a file in flight in its station; alpha's agent,
/// in the main checkout, writing the same file is called "Behind!" before its edit — stopped
/// once so that its model reads it whatever the agent shows of a warning, then let through
/// with the warning — and beta's agent is told of the write at its next tool call.
#[test]
fn a_write_of_a_file_in_flight_in_another_station_is_called_out_once_and_told() {
    let repo = Repo::new();
    commit(repo.path(), FILE, "export const token = 1;\n");
    let out = repo.rail(&["worktree", "beta", "--path", "src/app.ts"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let station = station_of(&repo, "beta");
    let out = agent_writes_in(&station, BETA, FILE, "beta's fix\n", "toolu_beta1");
    assert_eq!(code(&out), 0, "{}", stderr(&out));

    let out = agent_writes(&repo, ALPHA, FILE, "alpha\n", "toolu_alpha1");
    assert_eq!(code(&out), 2, "stopped once: {}", stdout(&out));
    let said = stderr(&out);
    assert!(
        said.contains("Behind!") && said.contains("beta~claude-000be7a2 in its station"),
        "{said}"
    );
    assert_eq!(repo.read(FILE), "export const token = 1;\n", "not written");
    // The same write again goes through, with the warning (Claude Code's additionalContext:
    // its model reads it).
    let out = agent_writes(&repo, ALPHA, FILE, "alpha\n", "toolu_alpha2");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("Behind!"), "{}", stdout(&out));
    assert_eq!(repo.read(FILE), "alpha\n");
    // Beta's agent hears of it at its next tool call; its own file is untouched.
    let out = agent_writes_in(&station, BETA, "src/auth/b.ts", "b\n", "toolu_beta2");
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    assert!(
        stderr(&out).contains(
            "Behind! main~claude-0a1f1a11 is writing src/auth/token.ts in another checkout"
        ),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read_to_string(station.join(FILE)).unwrap(),
        "beta's fix\n"
    );
    // Told once.
    let out = agent_writes_in(&station, BETA, "src/auth/b.ts", "b\n", "toolu_beta3");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

/// A commit that would sweep another session's uncommitted writes into this session's (`git add
/// -A` by one of several agents in one checkout) is refused by the pre-commit hook, naming the
/// session; committing only its own files goes through. Real git, real hooks.
#[test]
fn a_commit_sweeping_another_sessions_work_in_flight_is_refused() {
    use crate::common::NoSession;
    let repo = Repo::new();
    let out = repo.rail(&["init", "--hooks"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    commit(repo.path(), FILE, "export const token = 1;\n");
    let out = agent_writes(&repo, BETA, FILE, "beta's fix\n", "toolu_beta1");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = agent_writes(&repo, ALPHA, "src/other.ts", "alpha\n", "toolu_alpha1");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // Alpha's agent commits as agents often do: everything.
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(repo.path())
            .no_session()
            .env("CLAUDE_CODE_SESSION_ID", ALPHA)
            .output()
            .unwrap()
    };
    assert!(git(&["add", "-A"]).status.success());
    let out = git(&["commit", "-qm", "alpha's work"]);
    assert!(!out.status.success(), "the sweep was committed");
    let said = stderr(&out);
    assert!(
        said.contains("another session has in flight here")
            && said.contains(&format!("{BETA_SESSION} in the shared checkout"))
            && said.contains(FILE),
        "{said}"
    );
    // Its own file only: committed; beta's change still uncommitted, in place.
    let out = git(&["commit", "-qm", "alpha's work", "--", "src/other.ts"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(repo.read(FILE), "beta's fix\n");
    assert!(repo
        .git(&["status", "--porcelain"])
        .contains("src/auth/token.ts"));
}

/// The same sweep from a shell that names no session of its agent's: Gemini CLI's
/// (`GEMINI_CLI=1`) and Copilot CLI's (`COPILOT_AGENT_SESSION_ID`, which Rail does not take as
/// the shell's session). The commit is that agent's, not the whole branch's: Claude Code's
/// uncommitted write is refused, the agent's own goes through. A person's commit (no agent's
/// variables) answers for the branch's agents: committed, with their files named.
#[test]
fn a_sweep_from_a_shell_that_names_only_its_agent_is_refused() {
    use crate::common::NoSession;
    let repo = Repo::new();
    let out = repo.rail(&["init", "--hooks"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    commit(repo.path(), FILE, "export const token = 1;\n");
    let out = agent_writes(&repo, BETA, FILE, "beta's fix\n", "toolu_beta1");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    std::fs::write(repo.path().join("notes.md"), "the agent's own\n").unwrap();
    let git = |vars: &[(&str, &str)], args: &[&str]| {
        let mut cmd = std::process::Command::new("git");
        cmd.args(args).current_dir(repo.path()).no_session();
        for (k, v) in vars {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    };
    assert!(git(&[], &["add", "-A"]).status.success());
    for shell in [
        &[("GEMINI_CLI", "1")][..],
        &[(
            "COPILOT_AGENT_SESSION_ID",
            "7d3e9a61-2b1c-4f0e-9a8d-5c6b7a8f9e01",
        )][..],
    ] {
        let out = git(shell, &["commit", "-qm", "everything"]);
        assert!(!out.status.success(), "{shell:?}: the sweep was committed");
        let said = stderr(&out);
        assert!(
            said.contains("another session has in flight here")
                && said.contains(BETA_SESSION)
                && said.contains(FILE),
            "{shell:?}: {said}"
        );
    }
    // Its own file only: committed.
    let out = git(
        &[("GEMINI_CLI", "1")],
        &["commit", "-qm", "notes", "--", "notes.md"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    // Beta's session ends, its fix still uncommitted: an agent committing is at work and beta
    // is not, so the fix is not its own either; still refused, named as ended.
    let out = session_ends(&repo, BETA);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = git(&[("GEMINI_CLI", "1")], &["commit", "-qm", "everything"]);
    assert!(!out.status.success(), "an ended session's work was swept");
    assert!(
        stderr(&out).contains("its session ended"),
        "{}",
        stderr(&out)
    );
    // A person on the branch commits the agent's work on purpose (a rescue): taken, and named.
    let out = git(&[], &["commit", "-qm", "beta's fix, reviewed"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(
        said.contains("other agents have in flight here") && said.contains(BETA_SESSION),
        "{said}"
    );
}

/// Work a station committed and has not merged is in flight too: beta's agent fixes the file in
/// its station and commits it there; alpha's agent, in the main checkout, writing the same file
/// is called "Behind!" (stopped once), naming beta's station and the unmerged commit. Once
/// beta's branch is merged, nothing is called.
#[test]
fn a_write_of_a_file_a_station_committed_and_not_merged_is_called_out() {
    let repo = Repo::new();
    commit(repo.path(), FILE, "export const token = 1;\n");
    let out = repo.rail(&["worktree", "beta", "--path", "src/app.ts"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let station = station_of(&repo, "beta");
    let out = agent_writes_in(&station, BETA, FILE, "beta's fix\n", "toolu_beta1");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(&station)
            .env(
                "RAIL_BYPASS",
                "committing outside beta's claim, for the test",
            )
            .output()
            .unwrap()
    };
    let out = git(&["commit", "-qam", "beta's fix"]);
    assert!(out.status.success(), "{}", stderr(&out));

    let out = agent_writes(&repo, ALPHA, FILE, "alpha\n", "toolu_alpha1");
    assert_eq!(code(&out), 2, "stopped once: {}", stdout(&out));
    let said = stderr(&out);
    assert!(
        said.contains("Behind!")
            && said.contains("in its station")
            && said.contains("(branch beta)")
            && said.contains("committed, not merged"),
        "{said}"
    );
    assert_eq!(repo.read(FILE), "export const token = 1;\n", "not written");

    // Merged: the same file is nobody's work in flight any more.
    let out = std::process::Command::new("git")
        .args(["merge", "-q", "--ff-only", "beta"])
        .current_dir(repo.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let out = agent_writes(&repo, ALPHA, "src/auth/other.ts", "x\n", "toolu_alpha2");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = agent_writes(&repo, ALPHA, FILE, "alpha\n", "toolu_alpha3");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(!stdout(&out).contains("Behind!"), "{}", stdout(&out));
}

/// A station's commits since the base are kept for its HEAD, whoever asks: a claim of one folder
/// must not keep only that folder's files, or a claim of another folder over the same station's
/// commits would find nothing kept for it and pass.
#[test]
fn a_stations_commits_are_kept_whole_whichever_claim_asked_first() {
    let repo = Repo::new();
    commit(repo.path(), "src/auth/token.ts", "t\n");
    commit(repo.path(), "lib/util.ts", "u\n");
    let out = repo.rail(&["worktree", "beta", "--path", "src/app.ts"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let station = station_of(&repo, "beta");
    std::fs::write(station.join("src/auth/token.ts"), "beta t\n").unwrap();
    std::fs::write(station.join("lib/util.ts"), "beta u\n").unwrap();
    let out = std::process::Command::new("git")
        .args(["commit", "-qam", "beta's work"])
        .current_dir(&station)
        .env("RAIL_BYPASS", "outside beta's claim, for the test")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    for (task, path, file) in [
        ("auth", "src/auth/**", "src/auth/token.ts"),
        ("util", "lib/**", "lib/util.ts"),
    ] {
        let out = repo.rail(&["--session", "alpha", "claim", task, "--path", path]);
        assert_eq!(code(&out), 1, "{task}: {}", stdout(&out));
        let said = stderr(&out);
        assert!(
            said.contains(&format!("{file} (committed, not merged")),
            "{task}: {said}"
        );
    }
}

/// Gemini CLI runs its shell commands with git's hooks turned off (it sets `core.hooksPath` to
/// nothing through `GIT_CONFIG_*`: seen in bench/collisions), so the pre-commit hook never
/// judges its commits. The BeforeTool hook reads the commit in the command line and judges
/// what it would take: `git add -A && git commit` over another session's uncommitted write is
/// denied before it runs, in Gemini's format; committing only its own file goes through.
#[test]
fn a_shell_commit_sweeping_work_in_flight_is_denied_before_it_runs() {
    let repo = Repo::new();
    let out = repo.rail(&["init"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    commit(repo.path(), FILE, "export const token = 1;\n");
    let out = agent_writes(&repo, BETA, FILE, "beta's fix\n", "toolu_beta1");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    std::fs::write(repo.path().join("notes.md"), "gemini's own\n").unwrap();
    let shell = |command: &str| {
        let payload = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/hooks/gemini/shell.json"),
        )
        .unwrap()
        .replace("{{CWD}}", &repo.path().display().to_string())
        .replace("\"{{COMMAND}}\"", &serde_json::to_string(command).unwrap());
        hook_call("gemini", repo.path(), &payload, None, &[])
    };
    for command in [
        "git add -A && git commit -m everything",
        "git commit -qam everything",
        "git add . && git commit --no-verify -m everything",
    ] {
        let out = shell(command);
        let said = stdout(&out) + &stderr(&out);
        assert!(
            said.contains("deny") && said.contains(BETA_SESSION) && said.contains(FILE),
            "{command}: {said}"
        );
    }
    let said = std::fs::read_to_string(repo.path().join("claims.log")).unwrap_or_default();
    assert!(said.contains("reason: commit sweeps in flight"), "{said}");
    // Its own file: nothing of beta's taken, let through.
    let out = shell("git add notes.md && git commit -m notes -- notes.md");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(!stdout(&out).contains("deny"), "{}", stdout(&out));
    // A pathspec only known when it runs: named, not silently let through.
    let out = shell("git add \"$F\" && git commit -m x");
    let said = stdout(&out) + &stderr(&out);
    assert!(said.contains("cannot tell from the command line"), "{said}");
}
