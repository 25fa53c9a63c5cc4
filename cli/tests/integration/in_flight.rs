//! Work in flight in one shared checkout (issue 43, the articles' failure): two Claude Code
//! sessions on `main`, neither holding a claim. Beta's agent writes `src/auth/token.ts` through
//! its hooks (allowed: nobody holds it) and the after-tool call records it as beta's work in
//! flight; alpha's agent then writes the same file: denied, naming beta, and beta's change is
//! untouched; once beta commits it, alpha's write is allowed. Real git, the recorded payloads of
//! tests/fixtures/hooks/claude.

use std::path::Path;

use crate::common::{code, commit, hook_call, stderr, stdout, Repo};

/// The id the recorded payloads carry, replaced by each session's.
const RECORDED: &str = "5f0c2d1e-7a4b-4c39-9f1e-2b8d6a0c4e11";
const ALPHA: &str = "0a1b2c3d-0000-4000-8000-00000a1f1a11";
const BETA: &str = "0b2c3d4e-0000-4000-8000-0000000be7a2";
const BETA_SESSION: &str = "main~claude-000be7a2";
const FILE: &str = "src/auth/token.ts";

/// The recorded Write payload of session `id`, as its `event` (PreToolUse, or PostToolUse
/// after the tool ran), for tool call `call`.
fn write_payload(event: &str, id: &str, cwd: &Path, file: &str, call: &str) -> String {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/hooks/claude/write.json");
    std::fs::read_to_string(path)
        .unwrap()
        .replace(RECORDED, id)
        .replace("{{CWD}}", &cwd.display().to_string())
        .replace("{{FILE}}", file)
        .replace("toolu_01WriteA", call)
        .replace("\"PreToolUse\"", &format!("\"{event}\""))
}

/// Session `id`'s agent writes `text` into `file` as Claude Code does: the pre-tool hook, the
/// write when allowed, the after-tool hook. The pre-tool answer.
fn agent_writes(repo: &Repo, id: &str, file: &str, text: &str, call: &str) -> std::process::Output {
    let at = repo.file(file).display().to_string();
    let hook = |event: &str| {
        hook_call(
            "claude",
            repo.path(),
            &write_payload(event, id, repo.path(), &at, call),
            None,
            &[],
        )
    };
    let pre = hook("PreToolUse");
    if code(&pre) == 0 {
        std::fs::create_dir_all(repo.file(file).parent().unwrap()).unwrap();
        std::fs::write(repo.file(file), text).unwrap();
        let post = hook("PostToolUse");
        assert_eq!(code(&post), 0, "after the tool: {}", stderr(&post));
    }
    pre
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
    let end = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/hooks/claude/session-end.json"),
    )
    .unwrap()
    .replace(RECORDED, BETA)
    .replace("{{CWD}}", &repo.path().display().to_string());
    let out = hook_call("claude", repo.path(), &end, None, &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = agent_writes(&repo, ALPHA, "src/new.ts", "alpha\n", "toolu_alpha2");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let said = String::from_utf8_lossy(&out.stdout).into_owned() + &stderr(&out);
    assert!(
        said.contains(BETA_SESSION) && said.contains("its session ended"),
        "{said}"
    );
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
