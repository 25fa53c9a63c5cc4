//! Issue 41, finding 3: no field can make the rail unreadable. A value over its limit is refused
//! by name, with its size and the limit, and nothing that would take a rail file past what Rail
//! reads is written (through a real MCP client over stdio, and through the CLI).

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::{claude_bash, code, hook_call, rail_bin, stderr, stdout, Repo};

const MIB: usize = 1024 * 1024;

/// A `rail mcp` server for `session`, spoken to over its stdin and stdout as a client would.
struct Mcp {
    child: std::process::Child,
    lines: mpsc::Receiver<String>,
    id: u64,
}

impl Mcp {
    fn start(repo: &Repo, session: &str) -> Mcp {
        let mut child = Command::new(rail_bin())
            .arg("mcp")
            .current_dir(repo.path())
            .env("RAIL_SESSION", session)
            .env_remove("RAIL_DIR")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in out.lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        let mut mcp = Mcp {
            child,
            lines,
            id: 0,
        };
        let init = json!({ "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": { "name": "limits", "version": "0" } });
        mcp.request("initialize", init);
        mcp.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
        mcp
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(message.to_string().as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.id += 1;
        let id = self.id;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        loop {
            let line = (self.lines.recv_timeout(Duration::from_secs(120)))
                .expect("the server answered nothing");
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == id {
                return message;
            }
        }
    }

    /// A tool's result: whether it is an error, and its text.
    fn call(&mut self, tool: &str, arguments: Value) -> (bool, String) {
        let answer = self.request(
            "tools/call",
            json!({ "name": tool, "arguments": arguments }),
        );
        let result = &answer["result"];
        assert!(result.is_object(), "a protocol error: {answer}");
        let text = result["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .to_string();
        (result["isError"] == json!(true), text)
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

/// What every session does all day works: a claim, the board, and an edit hook's call.
fn still_readable(repo: &Repo, task: &str) {
    let out = repo.rail(&["--session", "bob", "claim", task, "--path", "bob/**"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let board = repo.rail(&["board", "--json"]);
    assert_eq!(code(&board), 0, "{}", stderr(&board));
    let hook = hook_call(
        "claude",
        repo.path(),
        &claude_bash(repo.path(), "touch bob/x"),
        Some("bob"),
        &[],
    );
    assert_eq!(code(&hook), 0, "{}", stderr(&hook));
    assert!(
        !stdout(&hook).contains("deny"),
        "the hook denies: {}",
        stdout(&hook)
    );
}

/// The five claims with purposes of 3.5 MB, each within the 4 MB an MCP message may be:
/// before, every one was accepted, claims.md grew past the 16 MiB Rail reads, and then every
/// command of every session failed (exit 2) and the edit hook denied every edit.
#[test]
fn an_mcp_purpose_over_its_limit_is_refused_and_the_rail_stays_readable() {
    let repo = Repo::new();
    let mut mcp = Mcp::start(&repo, "alice");
    let purpose = "p".repeat(3_500_000);
    for i in 0..5 {
        let (error, text) = mcp.call(
            "claim",
            json!({ "task": format!("t{i}"), "purpose": purpose }),
        );
        assert!(error, "claim {i} was accepted: {text}");
        assert!(
            text.contains("purpose is 3,500,000 bytes, over the limit of 4,096 bytes"),
            "{text}"
        );
    }
    // A release naming 3.7 MB of touched files (issue's finding 4) is refused the same way.
    let (error, _) = mcp.call("claim", json!({ "task": "small", "purpose": "fits" }));
    assert!(!error);
    let touched: Vec<String> = (0..120_000)
        .map(|i| format!("src/generated/file{i}.rs"))
        .collect();
    let (error, text) = mcp.call("release", json!({ "task": "small", "touched": touched }));
    assert!(error, "{text}");
    assert!(
        text.contains("touched has 120,000 entries, over the limit of 1,000"),
        "{text}"
    );
    assert!(repo.read("claims.md").len() < 4096);
    assert!(repo.read("claims.log").len() < 4096);
    still_readable(&repo, "after-mcp");
}

/// Whatever each field holds, no change may take a rail file past what Rail reads: a claims.md
/// people filled to within a few bytes of 16 MiB takes no claim that would cross it (before,
/// the claim was written, and every later command failed on the file).
#[test]
fn a_change_that_would_make_claims_md_unreadable_is_refused() {
    let repo = Repo::new();
    let mut text = repo.read("claims.md");
    let line = format!("{}\n", "n".repeat(99));
    while text.len() + line.len() <= 16 * MIB - 300 {
        text.push_str(&line);
    }
    std::fs::write(repo.file("claims.md"), &text).unwrap();
    let out = repo.rail(&[
        "--session",
        "alice",
        "claim",
        "big",
        "--purpose",
        &"p".repeat(4000),
    ]);
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.contains("claims.md would be")
            && err.contains("over the 16,777,216 bytes (16 MiB) Rail reads"),
        "{err}"
    );
    assert_eq!(repo.read("claims.md"), text, "nothing changed");
    // A claim that fits is still made, and the rail reads.
    let out = repo.rail(&["--session", "alice", "claim", "small"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let board = repo.rail(&["board", "--json"]);
    assert_eq!(code(&board), 0, "{}", stderr(&board));
}

/// Issue 41, finding 4: claims.log bricked the rail with age. Before, a log past 16 MiB made
/// every claim, release and board exit 2. Now the next change seals it whole into a segment
/// and starts a new claims.log that names it and carries what readers still need; every byte
/// of the old log is in the segment.
fn aged(repo: &Repo, mib: usize) -> String {
    let mut log = repo.read("claims.log");
    let line = "2026-01-05T10:00:00Z | renewed | old-task | old-session\n";
    log.push_str(&line.repeat(mib * MIB / line.len() + 1));
    std::fs::write(repo.file("claims.log"), &log).unwrap();
    log
}

fn segments(repo: &Repo) -> Vec<std::path::PathBuf> {
    let found: std::collections::BTreeSet<_> = std::fs::read_dir(repo.file("claims-log"))
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    found.into_iter().collect()
}

#[test]
fn a_log_past_what_rail_reads_is_sealed_and_nothing_is_lost() {
    let repo = Repo::new();
    let run = |args: &[&str]| {
        let out = repo.rail(args);
        assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
        out
    };
    run(&["--session", "alice", "claim", "dep"]);
    run(&["--session", "alice", "release", "dep"]);
    let old = aged(&repo, 3);
    // A claim waiting for `dep`, released 3 MiB of log ago.
    run(&["--session", "bob", "claim", "next", "--after", "dep"]);
    let found = segments(&repo);
    assert_eq!(found.len(), 1, "{found:?}");
    let sealed = std::fs::read_to_string(&found[0]).unwrap();
    assert!(sealed == old, "the segment is the old log, byte for byte");
    let log = repo.read("claims.log");
    assert!(log.len() < 4096, "{log}");
    let name = found[0].file_name().unwrap().to_string_lossy().into_owned();
    let first = log.lines().next().unwrap();
    assert!(
        first.contains("| sealed |") && first.contains(&format!("segment: claims-log/{name}")),
        "{first}"
    );
    assert!(log.contains("| released | dep | alice | carried: claims-log/"));
    assert!(log.contains("| claimed | next | bob"));
    // `dep` still reads as released: `next` waits for nothing.
    let board: Value = serde_json::from_str(&stdout(&run(&["board", "--json"]))).unwrap();
    assert_eq!(board["blocked"], json!([]), "{}", board["blocked"]);
    still_readable(&repo, "after-seal");
    run(&["--session", "bob", "release", "next"]);
    assert_eq!(segments(&repo).len(), 1, "sealed once");
    // A log from before segments, past the 16 MiB Rail reads (before: every command exited 2),
    // is read from its end and sealed whole.
    let old = aged(&repo, 20);
    run(&["--session", "bob", "claim", "later"]);
    let found = segments(&repo);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found
        .iter()
        .any(|f| std::fs::read_to_string(f).unwrap() == old));
    still_readable(&repo, "after-old-seal");
    // A rail file of Rail's own: no one's work.
    let check = repo.rail(&["--session", "bob", "check"]);
    assert!(!stdout(&check).contains("claims-log"), "{}", stdout(&check));
}

#[test]
fn a_crash_while_sealing_loses_nothing_and_the_retry_names_the_same_segment() {
    let repo = Repo::new();
    let old = aged(&repo, 2);
    let out = repo.rail_env(
        &["--session", "a", "claim", "t1"],
        &[("RAIL_TEST_CRASH", "after-segment")],
    );
    assert_ne!(code(&out), 0, "the crash hook did not fire");
    assert_eq!(repo.read("claims.log"), old, "claims.log not switched yet");
    assert_eq!(segments(&repo).len(), 1);
    assert!(!repo.read("claims.md").contains("t1 |"));
    let out = repo.rail(&["--session", "a", "claim", "t1"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let found = segments(&repo);
    assert_eq!(
        found.len(),
        1,
        "the retry names the same segment: {found:?}"
    );
    assert_eq!(std::fs::read_to_string(&found[0]).unwrap(), old);
    assert!(repo.read("claims.log").contains("| claimed | t1 | a"));
}

/// Two clones seal their logs and merge: claims.log merges as a union, the segments sit side
/// by side under their own names, and every line of both is still there.
#[test]
fn two_branches_that_sealed_merge_without_losing_a_line() {
    let repo = Repo::new();
    aged(&repo, 2);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "an aged log"]);
    repo.git(&["checkout", "-qb", "other"]);
    let out = repo.rail(&["--session", "b", "claim", "tb"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = repo.rail(&["--session", "b", "release", "tb"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "b"]);
    let theirs = repo.read("claims.log");
    repo.git(&["checkout", "-q", "main"]);
    aged(&repo, 1);
    let out = repo.rail(&["--session", "a", "claim", "ta"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "a"]);
    let ours = repo.read("claims.log");
    let merged = std::process::Command::new("git")
        .args(["merge", "-q", "--no-edit", "other"])
        .current_dir(repo.path())
        .output()
        .unwrap();
    assert!(merged.status.success(), "{}", stderr(&merged));
    let log = repo.read("claims.log");
    for line in ours.lines().chain(theirs.lines()) {
        assert!(log.contains(line), "lost {line}");
    }
    assert_eq!(
        segments(&repo).len(),
        2,
        "each side's segment, side by side"
    );
}
