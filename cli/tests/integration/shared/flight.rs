//! Work in flight across machines (issue 43, item 5): a machine's sessions' uncommitted writes
//! travel, as paths only, with its guard marks on the shared rail, and count on every other
//! machine: a claim there over them is refused naming the session and its machine, the board
//! shows them; once committed, the next share drops them.

use super::{machine_id, machines, Machine, Remote};
use crate::common::*;

const BETA: &str = "0b2c3d4e-0000-4000-8000-0000000be7a2";
const FILE: &str = "src/auth/token.ts";

/// Claude Code's agent on `m` writes `text` into `file` through its hooks.
fn agent_writes(m: &Machine, file: &str, text: &str, call: &str) {
    let at = m.path().join(file);
    let payload = |event: &str| {
        claude_payload("write.json", BETA, m.path(), &at.display().to_string())
            .replace("toolu_01WriteA", call)
            .replace("\"PreToolUse\"", &format!("\"{event}\""))
    };
    let pre = hook_call("claude", m.path(), &payload("PreToolUse"), None, &[]);
    assert_eq!(code(&pre), 0, "{}", stderr(&pre));
    std::fs::create_dir_all(at.parent().unwrap()).unwrap();
    std::fs::write(&at, text).unwrap();
    let post = hook_call("claude", m.path(), &payload("PostToolUse"), None, &[]);
    assert_eq!(code(&post), 0, "{}", stderr(&post));
}

#[test]
fn work_in_flight_on_one_machine_stops_a_claim_on_another() {
    let remote = Remote::by_path();
    let ms = machines(&remote, 2);
    let (a, b) = (&ms[0], &ms[1]);
    commit(b.path(), FILE, "export const token = 1;\n");
    agent_writes(b, FILE, "b's fix\n", "toolu_b1");
    let out = b.rail(&["sync"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let id = machine_id(b);

    let out = a.rail(&["sync"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = a.rail(
        &[
            "claim",
            "auth",
            "--session",
            "alice",
            "--path",
            "src/auth/**",
        ],
        &[],
    );
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    let said = stderr(&out);
    assert!(
        said.contains("main~claude-000be7a2 in the shared checkout")
            && said.contains(&format!(
                "on machine {id}: {FILE} (uncommitted, written by its agent"
            )),
        "{said}"
    );
    let board = stdout(&a.rail(&["board"], &[]));
    assert!(
        board.contains("IN FLIGHT") && board.contains(&format!("on machine {id}")),
        "{board}"
    );

    // Committed on b and shared again: nothing in flight, the claim goes through.
    git_in(b.path(), &["add", "--", FILE]);
    git_in(b.path(), &["commit", "-qm", "b's fix"]);
    let out = b.rail(&["sync"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = a.rail(&["sync"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = a.rail(
        &[
            "claim",
            "auth",
            "--session",
            "alice",
            "--path",
            "src/auth/**",
        ],
        &[],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

/// A station's work travels too: on machine b, a station (`git worktree add`) with a change
/// not committed and one committed on its branch and not merged; a claim on machine a over
/// either is refused, naming the station's branch, its machine and the files.
#[test]
fn a_stations_work_on_one_machine_stops_a_claim_on_another() {
    let remote = Remote::by_path();
    let ms = machines(&remote, 2);
    let (a, b) = (&ms[0], &ms[1]);
    commit(b.path(), FILE, "export const token = 1;\n");
    commit(b.path(), "src/auth/session.ts", "export const s = 1;\n");
    let stations = tempfile::tempdir().unwrap();
    let station = stations.path().join("beta");
    git_in(
        b.path(),
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "beta",
            station.to_str().unwrap(),
        ],
    );
    std::fs::write(station.join("src/auth/session.ts"), "beta's session\n").unwrap();
    git_in(&station, &["commit", "-qam", "beta's session"]);
    std::fs::write(station.join(FILE), "beta's token, uncommitted\n").unwrap();
    let out = b.rail(&["sync"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let id = machine_id(b);

    let out = a.rail(&["sync"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let claim = |path: &str| {
        a.rail(
            &["claim", "auth", "--session", "alice", "--path", path],
            &[],
        )
    };
    let out = claim("src/auth/**");
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    let said = stderr(&out);
    assert!(
        said.contains("beta in its station")
            && said.contains("(branch beta)")
            && said.contains(&format!("on machine {id}"))
            && said.contains(&format!("{FILE} (uncommitted"))
            && said.contains("src/auth/session.ts (committed, not merged"),
        "{said}"
    );

    // Merged into the base and the station clean: shared again, nothing in flight.
    git_in(&station, &["checkout", "-q", "--", FILE]);
    git_in(b.path(), &["merge", "-q", "--ff-only", "beta"]);
    let out = b.rail(&["sync"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = a.rail(&["sync"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = claim("src/auth/**");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}
