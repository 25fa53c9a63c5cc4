//! Claude Code's agent teams drive the rail (issue 44): the payloads Claude Code 2.1.332 sent
//! (tests/fixtures/hooks/claude/task-*.json, subagent-stop.json) through the real binary. A task
//! the lead creates is on the backlog; the teammate setting it in progress claims it (another
//! is denied it); its completion passes Rail's gate — refused while its changes leave the
//! claim, allowed once they do not, releasing the claim and ticking the backlog entry.

use std::path::Path;

use crate::common::{code, hook_call, stderr, stdout, Repo};

/// The lead's session (the fixtures' `session_id`) and its teammate's (their `agent_id`).
const LEAD: &str = "main~claude-6a0c4e11";
const TEAMMATE: &str = "a5c9704e718e98e4a";
const TEAMMATE_SESSION: &str = "main~claude-6a0c4e11~sub-18e98e4a";
const OTHER: &str = "b000000000000002";

/// A recorded payload, with the teammate's `agent_id` replaced by `agent` where given.
fn send(repo: &Repo, fixture: &str, agent: Option<&str>) -> std::process::Output {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/hooks/claude")
        .join(fixture);
    let mut payload = std::fs::read_to_string(path)
        .unwrap()
        .replace("{{CWD}}", &repo.path().display().to_string());
    if let Some(agent) = agent {
        payload = payload.replace(TEAMMATE, agent);
    }
    hook_call("claude", repo.path(), &payload, None, &[])
}

#[test]
fn a_teams_task_is_planned_claimed_and_gated() {
    let repo = Repo::new();
    std::fs::write(repo.file("rail.yaml"), "check: test -f alpha/a.txt\n").unwrap();
    repo.git(&["add", "rail.yaml"]);
    repo.git(&["commit", "-qm", "check"]);

    // The lead creates "alpha" with `paths: alpha/**`: on the backlog, ready.
    let out = send(&repo, "task-created.json", None);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let claims = repo.read("claims.md");
    assert!(
        claims.contains("- [ ] alpha | paths: alpha/** | purpose: alpha\n"),
        "{claims}"
    );
    let ready = stdout(&repo.rail(&["ready"]));
    assert!(ready.contains("alpha"), "{ready}");
    // Created again (another hook run of the same task): not added twice.
    assert_eq!(code(&send(&repo, "task-created.json", None)), 0);
    assert_eq!(repo.read("claims.md").matches("alpha |").count(), 1);

    // The teammate sets it in progress: its claim, with the entry's paths.
    let out = send(&repo, "task-update-subagent.json", None);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let held = repo.holders("alpha");
    assert!(
        held[0].starts_with(&format!("alpha | {TEAMMATE_SESSION} |"))
            && held[0].contains("paths: alpha/**"),
        "{held:?}"
    );
    // A second teammate may not take it: denied, the holder named.
    let out = send(&repo, "task-update-subagent.json", Some(OTHER));
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    assert!(stderr(&out).contains(TEAMMATE_SESSION), "{}", stderr(&out));

    // Completed with a file outside the claim: refused, naming it, the claim kept.
    std::fs::write(repo.file("beta.txt"), "b\n").unwrap();
    std::fs::create_dir_all(repo.file("alpha")).unwrap();
    std::fs::write(repo.file("alpha/a.txt"), "a\n").unwrap();
    let out = send(&repo, "task-completed-subagent.json", None);
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    assert!(
        stderr(&out).contains("beta.txt") && stderr(&out).contains("alpha is not done"),
        "{}",
        stderr(&out)
    );
    assert_eq!(repo.holders("alpha").len(), 1);
    // The check failing refuses it too, with what it printed.
    std::fs::remove_file(repo.file("beta.txt")).unwrap();
    std::fs::remove_file(repo.file("alpha/a.txt")).unwrap();
    std::fs::write(repo.file("alpha/b.txt"), "b\n").unwrap();
    let out = send(&repo, "task-completed-subagent.json", None);
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    assert!(
        stderr(&out).contains("the check ran and failed"),
        "{}",
        stderr(&out)
    );
    // Inside the claim and the check passing: done, released, ticked.
    std::fs::write(repo.file("alpha/a.txt"), "a\n").unwrap();
    let out = send(&repo, "task-completed-subagent.json", None);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(repo.holders("alpha").is_empty());
    assert!(repo.read("claims.md").contains("- [x] alpha |"));
    let log = repo.read("claims.log");
    assert!(
        log.contains("| done | alpha |") && log.contains("verdict: passed"),
        "{log}"
    );

    // A completion of a task Rail never saw passes, saying nothing.
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/hooks/claude/task-completed-subagent.json");
    let payload = std::fs::read_to_string(path)
        .unwrap()
        .replace("{{CWD}}", &repo.path().display().to_string())
        .replace(r#""task_id":"1""#, r#""task_id":"9""#);
    let unseen = hook_call("claude", repo.path(), &payload, None, &[]);
    assert!(stderr(&unseen).is_empty(), "{}", stderr(&unseen));
    assert_eq!(code(&unseen), 0, "{}", stderr(&unseen));
}

/// An idle teammate renews; a stopped subagent releases its own claims, not its lead's.
#[test]
fn a_stopped_teammate_releases_its_own_claims_and_leaves_its_leads() {
    let repo = Repo::new();
    for (task, session) in [("lead-work", LEAD), ("mate-work", TEAMMATE_SESSION)] {
        let out = repo.rail(&["claim", task, "--session", session]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    }
    let idle = r#"{"session_id":"5f0c2d1e-7a4b-4c39-9f1e-2b8d6a0c4e11","cwd":"{{CWD}}","hook_event_name":"TeammateIdle","teammate_name":"mate","team_name":"t"}"#
        .replace("{{CWD}}", &repo.path().display().to_string());
    let out = hook_call("claude", repo.path(), &idle, None, &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(repo.read("claims.log").contains("| renewed |"));

    let out = send(&repo, "subagent-stop.json", None);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(repo.holders("mate-work").is_empty());
    assert_eq!(repo.holders("lead-work").len(), 1);
    // A SubagentStop naming no subagent is not the lead's end.
    let bare = r#"{"session_id":"5f0c2d1e-7a4b-4c39-9f1e-2b8d6a0c4e11","cwd":"{{CWD}}","hook_event_name":"SubagentStop"}"#
        .replace("{{CWD}}", &repo.path().display().to_string());
    let out = hook_call("claude", repo.path(), &bare, None, &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(repo.holders("lead-work").len(), 1);
}
