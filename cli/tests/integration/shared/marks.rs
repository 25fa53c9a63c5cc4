//! Guard marks across machines (issue 27): a machine shares its sessions' marks on its own ref
//! with its rail updates, and another machine's board names the session guarded and where.

use super::{git_stdin, machine_id, machines, Machine, Remote};
use crate::common::*;

/// A Stop hook call of Claude Code (2.1.332 names itself in its hooks' environment) for
/// `session` on `m`: it leaves the session's mark there.
pub(super) fn stop(m: &Machine, session: &str) {
    let payload = serde_json::json!({
        "session_id": "s", "hook_event_name": "Stop", "cwd": m.path(), "stop_hook_active": false
    })
    .to_string();
    let out = hook_call(
        "claude",
        m.path(),
        &payload,
        Some(session),
        &[("AI_AGENT", "claude-code_2-1-332_harness")],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

pub(super) fn session(m: &Machine, name: &str) -> serde_json::Value {
    let out = m.rail(&["board", "--json"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let board: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    board_session(&board, name)
}

fn marks_ref(remote: &Remote, machine: &str) -> String {
    remote.git(&[
        "rev-parse",
        "--verify",
        "-q",
        &format!("refs/rail/seen/{machine}"),
    ])
}

#[test]
fn guard_marks_travel_with_the_shared_rail_and_name_their_machine() {
    let remote = Remote::by_path();
    let ms = machines(&remote, 2);
    let (a, b) = (&ms[0], &ms[1]);
    let out = a.rail(&["claim", "auth", "--session", "alice"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // b knows the claim, and nothing yet of alice's agent.
    let out = b.rail(&["sync"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let alice = session(b, "alice");
    assert!(alice["hook"].is_null(), "{alice}");
    assert_eq!(alice["unguarded"], true, "{alice}");
    // alice's agent ends a turn on a: its Stop renews the claim on the remote, and a's marks
    // ride in the same push; b's next exchange brings them.
    stop(a, "alice");
    let id = machine_id(a);
    let shared = marks_ref(&remote, &id);
    assert!(
        !shared.trim().is_empty(),
        "no refs/rail/seen/{id} on the remote"
    );
    let out = b.rail(&["sync"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let alice = session(b, "alice");
    assert_eq!(alice["hook"]["agent"], "claude", "{alice}");
    assert_eq!(alice["hook"]["version"], "2.1.332", "{alice}");
    assert_eq!(alice["hook"]["host"], id.as_str(), "{alice}");
    assert_eq!(alice["unguarded"], false, "{alice}");
    let text = stdout(&b.rail(&["board"], &[]));
    assert!(
        text.contains(&format!("guarded: claude just now on {id}")),
        "{text}"
    );
    // On a, alice's mark is a's own.
    let alice = session(a, "alice");
    assert!(alice["hook"]["host"].is_null(), "{alice}");
    // A hook call moments later tells nothing new: the exchanges after it push no new marks.
    stop(a, "alice");
    let out = a.rail(&["claim", "billing", "--session", "alice"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = a.rail(&["sync"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(marks_ref(&remote, &id), shared);
    // A new session is news: it rides with a's next rail update.
    stop(a, "carol");
    let out = a.rail(&["claim", "docs", "--session", "carol"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_ne!(marks_ref(&remote, &id), shared);
    let out = b.rail(&["sync"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(session(b, "carol")["hook"]["host"], id.as_str());
}

/// Marks refs another machine (or anyone who can push) put on the remote are read as marks
/// only: a name that is no machine id, a huge or garbled text, a mark for b's own session —
/// none of it stops a sync or the board, and b's own mark is never replaced by an older one.
#[test]
fn forged_marks_refs_are_read_as_marks_only() {
    let remote = Remote::by_path();
    let ms = machines(&remote, 2);
    let (a, b) = (&ms[0], &ms[1]);
    let out = b.rail(&["claim", "web", "--session", "bob"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    stop(b, "bob");
    // A commit with `seen` holding `text`, put on `name` of the remote by hand (through a).
    let forge = |name: &str, text: &[u8]| {
        let blob = git_stdin(a.path(), &["hash-object", "-w", "--stdin"], text);
        let tree = git_stdin(
            a.path(),
            &["mktree"],
            format!("100644 blob {}\tseen\n", blob.trim()).as_bytes(),
        );
        let commit = git_in(a.path(), &["commit-tree", tree.trim(), "-m", "forged"]);
        git_in(
            a.path(),
            &["push", "-q", "origin", &format!("{}:{name}", commit.trim())],
        );
    };
    let old_bob = "session bob\nagent evil\nat 2001-01-01T00:00:00Z\n\n";
    forge("refs/rail/seen/evil-1", old_bob.as_bytes());
    forge(
        "refs/rail/seen/UPPER",
        b"session bob\nagent x\nat 2099-01-01T00:00:00Z\n\n",
    );
    forge("refs/rail/seen/huge-1", &vec![b'x'; 2 << 20]);
    forge("refs/rail/seen/garbled-1", &[0xff, 0xfe, 0x00, 0x41]);
    let out = b.rail(&["sync"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let bob = session(b, "bob");
    assert_eq!(bob["hook"]["agent"], "claude", "{bob}");
    assert!(bob["hook"]["host"].is_null(), "{bob}");
    let kept: Vec<String> = std::fs::read_dir(b.path().join(".git/rail/seen-shared"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    assert_eq!(
        kept,
        ["evil-1"],
        "only a machine id's readable marks are kept"
    );
}
