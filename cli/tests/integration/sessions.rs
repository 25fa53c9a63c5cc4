//! Every agent its own session (issue 44): two Claude Code sessions in one checkout on `main`,
//! no RAIL_SESSION. Each acts as `main~claude-<id>`: its hooks from their payload's
//! `session_id`, its shell commands' `rail` from `CLAUDE_CODE_SESSION_ID` (the variable Claude
//! Code gives them). Two sessions on the board, each denied the other's paths, both free in the
//! branch's own claims, and one's session end leaving the other's claims alone.

use std::path::Path;

use crate::common::{board_session, claude_payload, code, hook_call, stderr, stdout, Repo};

const A: &str = "5f0c2d1e-7a4b-4c39-9f1e-2b8d6a0c4e11";
const B: &str = "7d1e9a00-1b2c-4d3e-8f40-5a6b7c8d9e0f";
const A_SESSION: &str = "main~claude-6a0c4e11";
const B_SESSION: &str = "main~claude-7c8d9e0f";

fn write(repo: &Repo, id: &str, file: &str) -> std::process::Output {
    let file = repo.file(file).display().to_string();
    hook_call(
        "claude",
        repo.path(),
        &claude_payload("write.json", id, repo.path(), &file),
        None,
        &[],
    )
}

/// `rail …` as a shell command of session `id` runs it.
fn shell(repo: &Repo, id: &str, args: &[&str]) -> std::process::Output {
    repo.rail_env(args, &[("CLAUDE_CODE_SESSION_ID", id)])
}

#[test]
fn two_agents_in_one_checkout_are_two_sessions() {
    let repo = Repo::new();
    for (id, task, path) in [(A, "auth", "src/auth/**"), (B, "ui", "src/ui/**")] {
        let out = shell(&repo, id, &["claim", task, "--path", path]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    }
    // The person's own terminal is the branch, as before.
    let out = repo.rail(&["claim", "docs", "--path", "docs/**"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(repo.holders("auth")[0].starts_with(&format!("auth | {A_SESSION} |")));
    assert!(repo.holders("ui")[0].starts_with(&format!("ui | {B_SESSION} |")));
    assert!(repo.holders("docs")[0].starts_with("docs | main |"));

    let board: serde_json::Value =
        serde_json::from_str(&stdout(&repo.rail(&["board", "--json"]))).unwrap();
    for name in [A_SESSION, B_SESSION, "main"] {
        assert_eq!(board_session(&board, name)["live"], 1, "{name}");
    }

    // Each is denied the other's paths, naming it; each writes its own and the branch's.
    let out = write(&repo, A, "src/ui/view.ts");
    assert_eq!(code(&out), 2, "a writes b's path: {}", stdout(&out));
    assert!(stderr(&out).contains(B_SESSION), "{}", stderr(&out));
    let out = write(&repo, B, "src/auth/token.ts");
    assert_eq!(code(&out), 2, "b writes a's path: {}", stdout(&out));
    assert!(stderr(&out).contains(A_SESSION), "{}", stderr(&out));
    for (id, file) in [(A, "src/auth/token.ts"), (A, "docs/a.md"), (B, "docs/b.md")] {
        let out = write(&repo, id, file);
        assert_eq!(code(&out), 0, "{file}: {}", stderr(&out));
    }
    // A shell command's `rail` knows its agent: b may not release a's claim.
    let out = shell(&repo, B, &["release", "auth"]);
    assert_ne!(code(&out), 0, "{}", stdout(&out));
    assert!(!repo.holders("auth").is_empty());

    // a's session ends: its claim goes; b's stays, and so does the branch's while b holds one.
    let end = |id: &str| {
        hook_call(
            "claude",
            repo.path(),
            &claude_payload("session-end.json", id, repo.path(), ""),
            None,
            &[],
        )
    };
    let out = end(A);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(repo.holders("auth").is_empty());
    assert_eq!(repo.holders("ui").len(), 1);
    assert_eq!(repo.holders("docs").len(), 1);
    // The last agent on the branch ends: its claim and the branch's go, as one agent's did.
    let out = end(B);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(repo.holders("ui").is_empty() && repo.holders("docs").is_empty());
    let log = repo.read("claims.log");
    assert!(
        log.contains(&format!("| released | docs | main | by: {B_SESSION}")),
        "{log}"
    );
}

/// An explicit RAIL_SESSION still wins over the agent's own session.
#[test]
fn rail_session_wins_over_the_agents_id() {
    let repo = Repo::new();
    let out = repo.rail_env(
        &["claim", "auth", "--path", "src/auth/**"],
        &[("CLAUDE_CODE_SESSION_ID", A), ("RAIL_SESSION", "alice")],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(repo.holders("auth")[0].starts_with("auth | alice |"));
}

/// A subagent's tool call (Claude Code 2.1.332 sends `agent_id` in it, its lead's `session_id`)
/// acts one hop below its agent: denied a sibling subagent's claimed paths, free in its own and
/// its agent's; its agent, and the person on the branch, act for it.
#[test]
fn a_subagent_is_told_from_its_siblings_by_its_agent_id() {
    let repo = Repo::new();
    let x = "main~claude-6a0c4e11~sub-18e98e4a"; // agent_id a5c9704e718e98e4a, the fixture's
    let y = "main~claude-6a0c4e11~sub-00000002";
    for (session, task, path) in [(x, "x", "src/x/**"), (y, "y", "src/y/**")] {
        let out = repo.rail(&["claim", task, "--session", session, "--path", path]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    }
    let bash = |agent_id: &str, command: &str| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/hooks/claude/bash-subagent.json");
        let payload = std::fs::read_to_string(path)
            .unwrap()
            .replace("a5c9704e718e98e4a", agent_id)
            .replace("{{CWD}}", &repo.path().display().to_string())
            .replace("{{COMMAND}}", command);
        hook_call("claude", repo.path(), &payload, None, &[])
    };
    let out = bash("a5c9704e718e98e4a", "echo x > src/y/a.ts");
    assert_eq!(code(&out), 2, "x writes y's path: {}", stdout(&out));
    assert!(stderr(&out).contains(y), "{}", stderr(&out));
    let out = bash("a5c9704e718e98e4a", "echo x > src/x/a.ts");
    assert_eq!(code(&out), 0, "x writes its own: {}", stderr(&out));
    let out = bash("b000000000000002", "echo x > src/x/a.ts");
    assert_eq!(code(&out), 2, "y writes x's path: {}", stdout(&out));
    // The lead (no agent_id) acts for both.
    let out = write(&repo, A, "src/y/b.ts");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

/// A Copilot CLI subagent (its `task` tool, what `/fleet` runs; payload recorded from copilot
/// 1.0.102) sends its own id as `sessionId` and `agentId` and its lead's as `parentAgentId`: it
/// acts below its lead, free in the lead's claimed paths, not beside it, where the lead's
/// claims would have been another session's and its own work denied.
#[test]
fn a_copilot_subagent_acts_below_its_lead() {
    let repo = Repo::new();
    // The lead's claim, as its MCP server makes it (Copilot gives MCP servers the hook's id).
    let lead = "main~copilot-2e244028"; // parentAgentId 1029f8ee-…-9c35-08c82e244028
    let out = repo.rail(&[
        "claim",
        "lead-work",
        "--session",
        lead,
        "--path",
        "src/lead/**",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = repo.rail(&["claim", "other", "--session", "bob", "--path", "src/bob/**"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let bash = |command: &str| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/hooks/copilot/bash-subagent.json");
        let payload = std::fs::read_to_string(path)
            .unwrap()
            .replace("{{CWD}}", &repo.path().display().to_string())
            .replace("{{COMMAND}}", command);
        hook_call(
            "copilot --event preToolUse",
            repo.path(),
            &payload,
            None,
            &[],
        )
    };
    // Copilot's deny is its JSON answer on stdout (exit 0).
    let denied =
        |out: &std::process::Output| stdout(out).contains(r#""permissionDecision":"deny""#);
    let out = bash("echo x > src/lead/a.ts");
    assert!(
        !denied(&out),
        "the subagent works on its lead's claim: {}",
        stdout(&out)
    );
    let out = bash("echo x > src/bob/a.ts");
    assert!(denied(&out), "another session's path: {}", stdout(&out));
    // Its shell's `rail` does not take COPILOT_AGENT_SESSION_ID (a subagent's names no hook's
    // session): it acts as the branch, which its lead and it act for.
    let out = repo.rail_env(
        &["claim", "sub-work", "--path", "src/sub/**"],
        &[(
            "COPILOT_AGENT_SESSION_ID",
            "da794a00-ddcf-49ce-8ea2-545fa120ce64",
        )],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(repo.holders("sub-work")[0].starts_with("sub-work | main |"));
    let out = bash("echo x > src/sub/a.ts");
    assert!(!denied(&out), "{}", stdout(&out));
}
