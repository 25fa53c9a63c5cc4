//! `rail mcp` spoken to as a client would: JSON-RPC lines over the child's stdin and stdout, on
//! a real repository. The handshake, the tool list, a claim and another session's refusal
//! naming the holder, what a malformed line gets (an error, and the server keeps serving), and
//! the end of input ending the server with exit 0. Every stdout line must be a JSON-RPC message.

use crate::common::NoSession;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use crate::common::{git_in, rail_bin, Repo};
use serde_json::{json, Value};

/// A safety net for a server that stopped answering (a hung test says nothing); no test waits
/// on time otherwise.
const NO_ANSWER: Duration = Duration::from_secs(60);

struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: u64,
}

impl Server {
    fn start(repo: &Repo, args: &[&str], env: &[(&str, &str)]) -> Server {
        Server::start_in(repo.path(), args, env)
    }

    fn start_in(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Server {
        Server::start_at(dir, None, args, env)
    }

    /// `clock`: the server's clock moved by this offset (`+3h`), with `faketime`.
    fn start_at(dir: &Path, clock: Option<&str>, args: &[&str], env: &[(&str, &str)]) -> Server {
        let mut cmd = match clock {
            Some(offset) => {
                let mut c = Command::new("faketime");
                c.args(["-f", offset]).arg(rail_bin());
                c
            }
            None => Command::new(rail_bin()),
        };
        cmd.arg("mcp")
            .args(args)
            .current_dir(dir)
            .no_session()
            .env_remove("RAIL_DIR")
            .env_remove("RAIL_NOW")
            .env_remove("RAIL_OWNER_PID")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().unwrap();
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Server {
            child,
            stdin,
            lines,
            next_id: 0,
        }
    }

    /// Starts a server and does the handshake.
    fn ready(repo: &Repo, args: &[&str], env: &[(&str, &str)]) -> (Server, Value) {
        Server::ready_in(repo.path(), args, env)
    }

    fn ready_in(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (Server, Value) {
        Server::ready_at(dir, None, args, env)
    }

    fn ready_at(
        dir: &Path,
        clock: Option<&str>,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> (Server, Value) {
        let mut server = Server::start_at(dir, clock, args, env);
        let init = server.request(
            "initialize",
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": { "name": "rail-tests", "version": "0" }
            }),
        );
        server.send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        (server, init)
    }

    fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// The next message the server writes; every line must be one.
    fn next(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(NO_ANSWER)
            .expect("the server answered nothing");
        let message: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout carried a line that is not JSON ({e}): {line}"));
        assert_eq!(message["jsonrpc"], "2.0", "not JSON-RPC: {line}");
        message
    }

    /// Sends a request and returns its response (the whole message).
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let line = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        self.send_line(&line.to_string());
        loop {
            let message = self.next();
            if message["id"] == id {
                return message;
            }
            assert!(
                message.get("id").is_none(),
                "an answer to something not asked: {message}"
            );
        }
    }

    /// Calls a tool and returns its result.
    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let response = self.request(
            "tools/call",
            json!({ "name": tool, "arguments": arguments }),
        );
        assert!(
            response.get("error").is_none(),
            "a protocol error: {response}"
        );
        response["result"].clone()
    }

    /// Closes stdin and returns the exit code.
    fn end(mut self) -> Option<i32> {
        drop(self.stdin.take());
        let (tx, rx) = mpsc::channel();
        let mut child = self.child;
        std::thread::spawn(move || {
            let _ = tx.send(child.wait());
        });
        let status = rx
            .recv_timeout(NO_ANSWER)
            .expect("the server did not end at the end of its input")
            .unwrap();
        // Nothing more on stdout after the last answer.
        assert!(
            self.lines.recv_timeout(NO_ANSWER).is_err(),
            "output after the end"
        );
        status.code()
    }
}

fn text(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn is_error(result: &Value) -> bool {
    result["isError"] == json!(true)
}

#[test]
fn handshake_tools_claim_and_a_refusal_naming_the_holder() {
    let repo = Repo::new();
    let (mut alice, init) = Server::ready(&repo, &[], &[("RAIL_SESSION", "alice")]);
    let info = &init["result"];
    assert_eq!(info["serverInfo"]["name"], "rail");
    assert!(info["capabilities"]["tools"].is_object(), "{init}");
    assert!(
        info["instructions"]
            .as_str()
            .unwrap()
            .contains("session `alice`"),
        "{init}"
    );

    let list = alice.request("tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "claim",
            "release",
            "renew",
            "take",
            "update",
            "who",
            "check",
            "board",
            "ready",
            "lock_status"
        ]
    );
    for tool in tools {
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
        assert!(tool["description"].as_str().unwrap().len() > 20, "{tool}");
    }
    let claim_schema = &tools[0]["inputSchema"];
    assert_eq!(claim_schema["required"], json!(["task"]));
    assert_eq!(claim_schema["properties"]["paths"]["type"], "array");

    let claimed = alice.call(
        "claim",
        json!({ "task": "auth", "paths": ["src/auth/**"], "purpose": "token refresh" }),
    );
    assert!(!is_error(&claimed), "{claimed}");
    assert_eq!(text(&claimed), "claimed auth for alice");
    let plan = &claimed["structuredContent"]["plan"];
    assert_eq!(plan["op"], "claim");
    assert_eq!(plan["session"], "alice");
    assert_eq!(repo.holders("auth").len(), 1);
    assert!(repo.holders("auth")[0].starts_with("auth | alice |"));

    // The CLI sees what the server wrote: one rail, one writer's code.
    let who = repo.rail(&["who", "src/auth/login.rs"]);
    assert!(String::from_utf8_lossy(&who.stdout).contains("alice (auth, live)"));

    // Another session, by `--session` on the server's command line.
    let (mut bob, _) = Server::ready(&repo, &["--session", "bob"], &[]);
    let refused = bob.call("claim", json!({ "task": "auth" }));
    assert!(is_error(&refused), "{refused}");
    assert!(
        text(&refused).contains("auth is held by alice"),
        "{refused}"
    );
    let refusal = &refused["structuredContent"]["refusal"];
    assert_eq!(refusal["holder"], "alice");
    assert_eq!(refusal["kind"], "held");

    // A path inside alice's claim: refused, naming her and her task.
    let overlap = bob.call(
        "claim",
        json!({ "task": "login", "paths": ["src/auth/login.rs"] }),
    );
    assert!(is_error(&overlap), "{overlap}");
    assert!(text(&overlap).contains("alice"), "{overlap}");
    assert!(repo.holders("login").is_empty());

    // No tool acts as another session: there is no argument for it.
    let impersonate = bob.call("release", json!({ "task": "auth", "session": "alice" }));
    assert!(is_error(&impersonate), "{impersonate}");
    assert!(
        text(&impersonate).contains("unknown field `session`"),
        "{impersonate}"
    );
    let not_yours = bob.call("release", json!({ "task": "auth" }));
    assert!(is_error(&not_yours), "{not_yours}");
    assert!(text(&not_yours).contains("alice"), "{not_yours}");
    assert_eq!(repo.holders("auth").len(), 1);

    // Alice releases; bob can claim.
    let released = alice.call("release", json!({ "task": "auth", "no_touched": true }));
    assert!(!is_error(&released), "{released}");
    assert!(repo.holders("auth").is_empty());
    let claimed = bob.call("claim", json!({ "task": "auth" }));
    assert!(!is_error(&claimed), "{claimed}");
    assert!(repo.holders("auth")[0].starts_with("auth | bob |"));

    // The reads: the board model is `rail board --json`'s.
    let board = bob.call("board", json!({}));
    assert!(!is_error(&board), "{board}");
    assert_eq!(board["structuredContent"]["summary"]["claims"], 1);
    assert_eq!(board["structuredContent"]["claims"][0]["session"], "bob");
    assert!(text(&board).contains("auth"), "{board}");
    let who = bob.call("who", json!({ "paths": ["README.md"] }));
    assert_eq!(who["structuredContent"]["answers"][0]["path"], "README.md");
    assert_eq!(text(&who), "README.md: nobody\n");
    let lock = bob.call("lock_status", json!({}));
    assert_eq!(lock["structuredContent"], json!({ "held": false }));
    let ready = bob.call("ready", json!({}));
    assert_eq!(ready["structuredContent"]["backlog"], 0);

    assert_eq!(alice.end(), Some(0));
    assert_eq!(bob.end(), Some(0));
}

#[test]
fn malformed_input_gets_an_error_and_the_server_keeps_serving() {
    let repo = Repo::new();
    let (mut server, _) = Server::ready(&repo, &["--session", "carol"], &[]);

    server.send_line("{this is not json");
    let parse = server.next();
    assert_eq!(parse["id"], Value::Null, "{parse}");
    assert_eq!(parse["error"]["code"], -32700, "{parse}");

    // JSON, but not a request this server reads: answered with its id.
    server.send_line(r#"{"jsonrpc":"2.0","id":"x1","method":7}"#);
    let invalid = server.next();
    assert_eq!(invalid["id"], "x1", "{invalid}");
    assert_eq!(invalid["error"]["code"], -32600, "{invalid}");

    // An unknown tool is a protocol error; bad arguments are a tool error saying which.
    let unknown = server.request("tools/call", json!({ "name": "steal", "arguments": {} }));
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    assert!(unknown["error"]["message"]
        .as_str()
        .unwrap()
        .contains("claim, release"));
    let bad = server.call("claim", json!({ "task": 42 }));
    assert!(is_error(&bad), "{bad}");
    assert!(text(&bad).starts_with("claim: bad arguments"), "{bad}");
    let bad_task = server.call("claim", json!({ "task": "no spaces allowed" }));
    assert!(is_error(&bad_task), "{bad_task}");
    assert_eq!(bad_task["structuredContent"]["code"], 2, "{bad_task}");

    // Still serving.
    let claimed = server.call("claim", json!({ "task": "still-here" }));
    assert!(!is_error(&claimed), "{claimed}");
    assert_eq!(server.end(), Some(0));
}

/// JSON-RPC: a known method with parameters of the wrong shape is "Invalid params" (-32602),
/// not "Method not found" (-32601) and not "Invalid Request".
#[test]
fn tools_call_without_object_params_is_invalid_params() {
    let repo = Repo::new();
    let (mut server, _) = Server::ready(&repo, &["--session", "carol"], &[]);
    for (id, line) in [
        ("p1", r#"{"jsonrpc":"2.0","id":"p1","method":"tools/call"}"#),
        (
            "p2",
            r#"{"jsonrpc":"2.0","id":"p2","method":"tools/call","params":7}"#,
        ),
        (
            "p3",
            r#"{"jsonrpc":"2.0","id":"p3","method":"tools/call","params":[1]}"#,
        ),
        (
            "p4",
            r#"{"jsonrpc":"2.0","id":"p4","method":"tools/call","params":null}"#,
        ),
    ] {
        server.send_line(line);
        let answer = server.next();
        assert_eq!(answer["id"], id, "{answer}");
        assert_eq!(answer["error"]["code"], -32602, "{line}: {answer}");
    }
    // Still serving.
    let claimed = server.call("claim", json!({ "task": "still-here" }));
    assert!(!is_error(&claimed), "{claimed}");
    assert_eq!(server.end(), Some(0));
}

#[test]
fn the_end_of_input_ends_the_server_even_before_the_handshake() {
    let repo = Repo::new();
    let server = Server::start(&repo, &[], &[("RAIL_SESSION", "dave")]);
    assert_eq!(server.end(), Some(0));
}

#[test]
fn without_a_session_the_tools_that_need_one_say_how_to_name_it() {
    let repo = Repo::new();
    repo.git(&["checkout", "-q", "--detach"]);
    let (mut server, _) = Server::ready(&repo, &[], &[]);
    let refused = server.call("claim", json!({ "task": "t" }));
    assert!(is_error(&refused), "{refused}");
    assert!(text(&refused).contains("RAIL_SESSION"), "{refused}");
    // Reads need none.
    let board = server.call("board", json!({}));
    assert!(!is_error(&board), "{board}");
    assert_eq!(server.end(), Some(0));
}

/// On a shared rail the operation goes through the machine's exchange, and its plan or refusal
/// comes back as JSON (maybe from another process): the hint is still worded as a tool call.
#[test]
fn on_a_shared_rail_refusals_name_the_holder_and_the_tool_to_call() {
    let remote = tempfile::tempdir().unwrap();
    let bare = remote.path().join("rail.git");
    git_in(
        remote.path(),
        &["init", "-q", "--bare", "-b", "main", bare.to_str().unwrap()],
    );
    let machine = |first: bool| {
        let dir = tempfile::tempdir().unwrap();
        git_in(dir.path(), &["clone", "-q", bare.to_str().unwrap(), "."]);
        git_in(dir.path(), &["config", "user.email", "m@e.invalid"]);
        git_in(dir.path(), &["config", "user.name", "machine"]);
        if first {
            git_in(dir.path(), &["commit", "-q", "--allow-empty", "-m", "init"]);
            git_in(dir.path(), &["push", "-q", "origin", "HEAD:main"]);
        } else {
            git_in(dir.path(), &["pull", "-q", "origin", "main"]);
        }
        let init = Command::new(rail_bin())
            .args(["init", "--remote", "origin"])
            .current_dir(dir.path())
            .no_session()
            .output()
            .unwrap();
        assert!(init.status.success(), "{init:?}");
        dir
    };
    let (one, two) = (machine(true), machine(false));
    // A shared rail's changes take no `--now`: "three hours on" is bob's clock moved (faketime).
    let (mut alice, _) = Server::ready_in(one.path(), &["--session", "alice"], &[]);
    let claimed = alice.call("claim", json!({ "task": "auth", "paths": ["src/**"] }));
    assert!(!is_error(&claimed), "{claimed}");
    assert_eq!(claimed["structuredContent"]["plan"]["session"], "alice");

    let (mut bob, _) = Server::ready_in(two.path(), &["--session", "bob"], &[]);
    let refused = bob.call("claim", json!({ "task": "auth" }));
    assert!(is_error(&refused), "{refused}");
    assert!(text(&refused).contains("held by alice"), "{refused}");
    assert_eq!(refused["structuredContent"]["refusal"]["holder"], "alice");

    // Three hours on, the 2h lease has run out: the refusal says which tool takes it over.
    let (mut later, _) = Server::ready_at(two.path(), Some("+3h"), &["--session", "bob"], &[]);
    let stale = later.call("claim", json!({ "task": "auth" }));
    assert!(is_error(&stale), "{stale}");
    assert!(
        text(&stale).contains("call `take` with {\"task\": \"auth\"}"),
        "{stale}"
    );
    let taken = later.call("take", json!({ "task": "auth" }));
    assert!(!is_error(&taken), "{taken}");
    assert_eq!(taken["structuredContent"]["plan"]["session"], "bob");

    for server in [alice, bob, later] {
        assert_eq!(server.end(), Some(0));
    }
}

/// The 2026-07-28 revision has no handshake: `server/discover`, then requests that carry their
/// protocol version in `_meta`. rmcp serves that form too, through the same transport.
#[test]
fn the_stateless_revision_needs_no_handshake() {
    let repo = Repo::new();
    let mut server = Server::start(&repo, &["--session", "erin"], &[]);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let discover = server.request("server/discover", json!({ "_meta": meta }));
    let versions = discover["result"]["supportedVersions"].as_array().unwrap();
    assert!(versions.contains(&json!("2026-07-28")), "{discover}");
    assert!(versions.contains(&json!("2025-11-25")), "{discover}");
    let claimed = server.request(
        "tools/call",
        json!({ "name": "claim", "arguments": { "task": "s" }, "_meta": meta }),
    );
    assert_eq!(
        claimed["result"]["content"][0]["text"], "claimed s for erin",
        "{claimed}"
    );
    assert_eq!(server.end(), Some(0));
}

/// Issue 41, finding 1: `check` is advertised read-only, and agents' hooks let Rail's own tools
/// through; its `base` went to `git diff --merge-base` as is, and `--output=F` made git empty F
/// before it rejected the command. Another session's uncommitted file, and claims.md (every
/// live claim), were emptied that way. Now no value reaches git as an option: the call is an
/// error that says why, and every file is as it was.
#[test]
fn a_base_that_is_a_git_option_empties_no_file() {
    let repo = Repo::new();
    let (mut server, _) = Server::ready(&repo, &[], &[("RAIL_SESSION", "mallory")]);
    let claimed = server.call("claim", json!({ "task": "held", "paths": ["src/**"] }));
    assert!(!is_error(&claimed), "{claimed}");
    std::fs::write(repo.file("work.txt"), "someone's uncommitted work\n").unwrap();
    let claims = repo.read("claims.md");
    assert!(claims.contains("held | mallory |"), "{claims}");
    for (tool, target) in [("check", "work.txt"), ("release", "claims.md")] {
        let base = format!("--output={}", repo.file(target).display());
        let mut args = json!({ "base": base });
        if tool == "release" {
            args["task"] = json!("held");
        }
        let answer = server.call(tool, args);
        assert!(is_error(&answer), "{tool}: {answer}");
        assert!(
            text(&answer).contains("would reach git as an option"),
            "{tool}: {answer}"
        );
    }
    assert_eq!(repo.read("work.txt"), "someone's uncommitted work\n");
    assert_eq!(repo.read("claims.md"), claims, "claims.md was touched");
    assert_eq!(server.end(), Some(0));
}

/// A field of `/proc/PID/status` in kB (`VmRSS`, `VmHWM`).
#[cfg(target_os = "linux")]
fn status_kb(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches(" kB").parse().ok())
        .unwrap_or(0)
}

/// Issue 41, finding 6: a client that sends faster than it reads made the server keep every
/// answer (607 MB after 40,000 unread requests, and growing). Now the server stops reading once
/// 32 requests are unanswered on stdout: the client's writes block (seen in the kernel: its
/// writing thread waits in `pipe_write`) while the server stays small; and once the client
/// reads, every request gets its answer, none lost.
#[cfg(target_os = "linux")]
#[test]
fn a_client_that_does_not_read_is_not_read_either_and_nothing_is_lost() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    const REQUESTS: usize = 12_000;
    let repo = Repo::new();
    let mut child = Command::new(rail_bin())
        .arg("mcp")
        .current_dir(repo.path())
        .env("RAIL_SESSION", "flood")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let written = std::sync::Arc::new(AtomicUsize::new(0));
    let (tid_tx, tid_rx) = mpsc::channel();
    let writer = {
        let written = written.clone();
        std::thread::spawn(move || {
            let _ = tid_tx.send(std::fs::read_link("/proc/thread-self").unwrap());
            let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "flood", "version": "0"}}});
            writeln!(stdin, "{init}").unwrap();
            writeln!(
                stdin,
                r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
            )
            .unwrap();
            for id in 1..=REQUESTS {
                // tools/list: a few kB of answer each, and no work: only the answers weigh.
                let line =
                    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{}}}}"#);
                if writeln!(stdin, "{line}").is_err() {
                    return None;
                }
                written.store(id, Ordering::SeqCst);
            }
            // Kept open until the server's peak is read: it ends when its input does.
            Some(stdin)
        })
    };
    let thread = tid_rx.recv().unwrap();
    let wchan = format!("/proc/{}/wchan", thread.display());
    // The observable event: the writing thread waits in the kernel for the server to read.
    crate::common::wait_for(
        "the client's writes to block, or all of them to go through",
        NO_ANSWER,
        || {
            written.load(Ordering::SeqCst) == REQUESTS
                || std::fs::read_to_string(&wchan).is_ok_and(|w| w.contains("pipe_write"))
        },
    );
    let sent = written.load(Ordering::SeqCst);
    assert!(
        sent < REQUESTS,
        "the server read all {REQUESTS} requests while no answer was read"
    );
    let rss_blocked = status_kb(pid, "VmRSS");

    // Now read: every request is answered, once.
    let mut ids = std::collections::BTreeSet::new();
    for line in BufReader::new(stdout).lines() {
        let message: Value = serde_json::from_str(&line.unwrap()).unwrap();
        assert!(message.get("error").is_none(), "{message}");
        let id = message["id"].as_u64().unwrap();
        assert!(ids.insert(id), "answered twice: {id}");
        if ids.len() == REQUESTS + 1 {
            break;
        }
    }
    let stdin = writer.join().unwrap();
    assert!(stdin.is_some(), "a write failed");
    let peak = status_kb(pid, "VmHWM");
    drop(stdin);
    assert_eq!(ids.len(), REQUESTS + 1);
    assert_eq!(child.wait().unwrap().code(), Some(0));
    // 12,000 answers of 9 kB each are 108 MB; 32 of them are 0.3 MB.
    eprintln!("rail mcp under a flood: {rss_blocked} kB while blocked, {peak} kB at its peak");
    assert!(
        peak > 0 && rss_blocked < 48 * 1024 && peak < 48 * 1024,
        "the server held {rss_blocked} kB while blocked, {peak} kB at its peak"
    );
}

/// Issue 44: an agent's MCP server acts as that agent's own session (Claude Code gives its MCP
/// servers `CLAUDE_CODE_SESSION_ID`, as it gives its shell commands), so its claims are the ones
/// its hooks protect, and another agent on the same branch is refused them.
#[test]
fn an_agents_mcp_server_claims_as_that_agent() {
    let repo = Repo::new();
    let env_a = [(
        "CLAUDE_CODE_SESSION_ID",
        "5f0c2d1e-7a4b-4c39-9f1e-2b8d6a0c4e11",
    )];
    let env_b = [(
        "CLAUDE_CODE_SESSION_ID",
        "7d1e9a00-1b2c-4d3e-8f40-5a6b7c8d9e0f",
    )];
    let (mut a, _) = Server::ready(&repo, &[], &env_a);
    let result = a.call("claim", json!({ "task": "auth", "paths": ["src/auth/**"] }));
    assert_ne!(result["isError"], true, "{result}");
    assert!(repo.holders("auth")[0].starts_with("auth | main~claude-6a0c4e11 |"));
    let (mut b, _) = Server::ready(&repo, &[], &env_b);
    let result = b.call(
        "claim",
        json!({ "task": "auth2", "paths": ["src/auth/**"] }),
    );
    assert_eq!(result["isError"], true, "{result}");
    assert!(
        result.to_string().contains("main~claude-6a0c4e11"),
        "the refusal names the other agent: {result}"
    );
    assert_eq!(a.end(), Some(0));
    assert_eq!(b.end(), Some(0));
}
