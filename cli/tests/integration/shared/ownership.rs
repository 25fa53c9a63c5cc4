//! A claim on a shared rail is its machine's (issue 42, findings 1 and 2): only the machine
//! whose session made it renews, updates or releases it; another machine takes it once it is
//! stale. And a branch's session on two machines is two sessions: an agent on `main` on machine
//! B is denied machine A's `main` claims, and its session end leaves them alone.

use super::*;

fn holder_line(remote: &Remote, task: &str) -> Option<String> {
    remote
        .shared_file("claims.md")
        .lines()
        .find(|l| l.starts_with(&format!("{task} |")))
        .map(str::to_string)
}

#[test]
fn only_the_owning_machine_changes_a_claim_and_another_takes_it_once_stale() {
    let remote = Remote::by_path();
    let ms = machines(&remote, 2);
    let (a, b) = (&ms[0], &ms[1]);
    let out = a.rail(
        &["claim", "auth", "--session", "alice", "--lease", "2s"],
        &[],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let line = holder_line(&remote, "auth").unwrap();

    // From B, alice's name is not enough.
    for args in [
        &["--session", "alice", "release", "auth"][..],
        &["--session", "alice", "renew", "auth"][..],
        &["--session", "alice", "update", "auth", "--path", "src/**"][..],
    ] {
        let out = b.rail(args, &[]);
        assert_eq!(code(&out), 1, "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains(&format!("only machine {}", machine_id(a))),
            "{args:?}: {err}"
        );
    }
    assert_eq!(holder_line(&remote, "auth").unwrap(), line, "unchanged");
    assert!(
        line.contains(&format!("| machine: {}", machine_id(a))),
        "the claim records its machine: {line}"
    );
    // Nor may alice on B claim more while she holds a claim on A.
    let out = b.rail(&["claim", "billing", "--session", "alice"], &[]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("session alice is on machine {}", machine_id(a))),
        "{}",
        stderr(&out)
    );

    // On A, alice renews as ever.
    let out = a.rail(&["--session", "alice", "renew", "auth"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));

    // Once the lease ran out, B takes it, and the claim is B's machine's.
    wait_for("alice's claim goes stale", Duration::from_secs(30), || {
        let out = b.rail(&["board", "--fetch", "--json"], &[]);
        let board: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        board["claims"].as_array().is_some_and(|cs| {
            cs.iter()
                .any(|c| c["task"] == "auth" && c["state"] == "stale")
        })
    });
    let out = b.rail(&["take", "auth", "--session", "bob"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let line = holder_line(&remote, "auth").unwrap();
    assert!(line.starts_with("auth | bob |"), "{line}");
    assert!(
        line.contains(&format!("| machine: {}", machine_id(b))) && !line.contains(&machine_id(a)),
        "{line}"
    );
    // And now A's alice cannot release it.
    let out = a.rail(&["--session", "bob", "release", "auth"], &[]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
}

#[test]
fn one_branch_on_two_machines_is_two_sessions() {
    let remote = Remote::by_path();
    let ms = machines(&remote, 2);
    let (a, b) = (&ms[0], &ms[1]);
    // The person on A works on main: the session is the branch.
    let out = a.rail(&["claim", "auth", "--path", "src/auth/**"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(holder_line(&remote, "auth")
        .unwrap()
        .starts_with("auth | main |"));
    let out = b.rail(&["sync"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));

    // An agent on main on B is not A's main: denied A's paths, naming the machine.
    let agent = "7d1e9a00-1b2c-4d3e-8f40-5a6b7c8d9e0f";
    let file = b.path().join("src/auth/token.ts").display().to_string();
    let out = hook_call(
        "claude",
        b.path(),
        &claude_payload("write.json", agent, b.path(), &file),
        None,
        &[],
    );
    assert_eq!(
        code(&out),
        2,
        "B's agent writes A's claimed path: {}",
        stdout(&out)
    );
    assert!(stderr(&out).contains("auth"), "{}", stderr(&out));
    // B's board says whose machine the claim is.
    let out = b.rail(&["board"], &[]);
    assert!(
        stdout(&out).contains(&format!(
            "machine: {} (another machine's: only it changes this claim)",
            machine_id(a)
        )),
        "{}",
        stdout(&out)
    );
    // The person on B, on main too, is told main is A's.
    let out = b.rail(&["claim", "ui", "--path", "src/ui/**"], &[]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("session main is on machine {}", machine_id(a))),
        "{}",
        stderr(&out)
    );
    // The agent's session end on B leaves A's claim alone.
    let out = hook_call(
        "claude",
        b.path(),
        &claude_payload("session-end.json", agent, b.path(), ""),
        None,
        &[],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        holder_line(&remote, "auth").is_some(),
        "{}",
        remote.shared_file("claims.md")
    );
    // On A, main's own agent still works on main's claim.
    let file = a.path().join("src/auth/token.ts").display().to_string();
    let out = hook_call(
        "claude",
        a.path(),
        &claude_payload("write.json", agent, a.path(), &file),
        None,
        &[],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}
