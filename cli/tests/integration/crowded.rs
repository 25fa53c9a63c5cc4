//! A crowded rail: what Rail says grows with the rail, not with its pairs (issue 41, finding 5).
//!
//! 1,500 one-line claims of `src/**`, each its own session: every pair of them overlaps. Each
//! pair was its own conflict, with a diagnostic on both lines: `rail validate --ci` printed
//! 254 MB and `rail board --json` died at 1.5 GB. Real `rail` processes on a real repository;
//! sizes and counts are asserted, never times (those are bench/crowded_claims.py's).

use std::process::Output;

use crate::common::*;

const CLAIMS: usize = 1_500;
const NOW: &str = "2026-10-22T14:30:00Z";

/// A repository whose claims.md holds `CLAIMS` live claims of `src/**`, one session each (73 KB,
/// as in the issue).
fn crowded() -> Repo {
    let repo = Repo::new();
    let mut text = repo.read("claims.md");
    for i in 0..CLAIMS {
        text.push_str(&format!(
            "t{i:04} | s{i:04} | 2026-10-22T14:00Z | paths: src/**\n"
        ));
    }
    std::fs::write(repo.file("claims.md"), text).unwrap();
    repo
}

/// `rail ARGS` on the repository, judged as of [`NOW`] (the claims are live then).
fn rail(repo: &Repo, args: &[&str]) -> Output {
    repo.rail_env(args, &[("RAIL_NOW", NOW)])
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", stdout(out).chars().take(300).collect::<String>()))
}

#[test]
fn validate_and_the_board_grow_with_the_claims_not_their_pairs() {
    let repo = crowded();
    assert!(repo.read("claims.md").len() < 80_000);

    // One warning per claim line, each naming a few of the claims and counting the rest.
    let out = rail(&repo, &["validate", "--ci"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        out.stdout.len() < 1_000_000,
        "validate printed {} bytes",
        out.stdout.len()
    );
    let text = stdout(&out);
    assert_eq!(text.lines().count(), CLAIMS);
    assert!(
        text.lines()
            .all(|l| l.contains("and 1494 more all claim `src/**`")),
        "{}",
        text.lines().next().unwrap()
    );

    let out = rail(&repo, &["board", "--json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        out.stdout.len() < 100_000_000,
        "board --json printed {} bytes",
        out.stdout.len()
    );
    let board = json(&out);
    let conflicts = board["conflicts"].as_array().unwrap();
    assert_eq!(conflicts.len(), 1, "one pattern, one conflict");
    assert_eq!(conflicts[0]["claims"].as_array().unwrap().len(), 6);
    assert_eq!(conflicts[0]["claims_unlisted"], 1_494);
    assert_eq!(board["summary"]["conflicts"], 1);
    for claim in board["claims"].as_array().unwrap() {
        assert_eq!(claim["conflicts"], serde_json::json!([0]), "{claim}");
    }
    assert_eq!(board["diagnostics"].as_array().unwrap().len(), CLAIMS);

    let out = rail(&repo, &["board"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        out.stdout.len() < 1_000_000,
        "board printed {} bytes",
        out.stdout.len()
    );
    assert_eq!(stdout(&out).matches("all claim `src/**`").count(), 1);
}

#[test]
fn a_claim_who_check_and_the_hook_name_a_few_holders_and_count_the_rest() {
    let repo = crowded();

    // A new claim of the crowded paths: refused, with one conflict (the claims of `src/**` and
    // the new one) naming six claims and counting the rest.
    let out = rail(
        &repo,
        &[
            "--session",
            "late",
            "--json",
            "claim",
            "late",
            "--path",
            "src/a.ts",
        ],
    );
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(
        out.stdout.len() < 20_000,
        "the refusal is {} bytes",
        out.stdout.len()
    );
    let answer = json(&out);
    let refusal = &answer["refusal"];
    assert_eq!(refusal["kind"], "path-conflict", "{answer}");
    let conflicts = refusal["conflicts"].as_array().unwrap();
    assert_eq!(conflicts.len(), 1, "{answer}");
    // Six claims in it are named (the new one among them, left out of `claims`: it has no id).
    assert_eq!(conflicts[0]["claims_unlisted"], CLAIMS + 1 - 6);
    assert!(
        refusal["message"]
            .as_str()
            .unwrap()
            .contains(&format!("and {} more all claim src/a.ts", CLAIMS + 1 - 6)),
        "{answer}"
    );
    assert!(!repo.read("claims.md").contains("late |"));

    // 100 paths, each held by every claim: each names 16 holders.
    let paths: Vec<String> = (0..100).map(|i| format!("src/f{i}.ts")).collect();
    let mut args = vec!["--json", "who"];
    args.extend(paths.iter().map(String::as_str));
    let out = rail(&repo, &args);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        out.stdout.len() < 1_000_000,
        "who printed {} bytes",
        out.stdout.len()
    );
    for answer in json(&out).as_array().unwrap() {
        assert_eq!(answer["holders"].as_array().unwrap().len(), 16);
        assert_eq!(answer["holders_unlisted"], CLAIMS - 16);
    }

    // A change of 100 files by another session: each file held, 16 holders named.
    let mut args = vec!["--session", "late", "--json", "check"];
    args.extend(paths.iter().map(String::as_str));
    let out = rail(&repo, &args);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        out.stdout.len() < 2_000_000,
        "check printed {} bytes",
        out.stdout.len()
    );
    let report = json(&out);
    for file in report["files"].as_array().unwrap() {
        assert_eq!(file["class"], "conflict");
        assert_eq!(file["others"].as_array().unwrap().len(), 16);
        assert_eq!(file["others_unlisted"], CLAIMS - 16);
    }

    // An agent about to write those 100 files: denied, the answer naming 16 (file, claim) pairs
    // of the 150,000 and counting the rest.
    let command = format!("rm -f {}", paths.join(" "));
    let out = hook_call(
        "claude",
        repo.path(),
        &claude_bash(repo.path(), &command),
        Some("late"),
        &[("RAIL_NOW", NOW)],
    );
    // Claude Code is denied by exit 2, the reason on stderr.
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    let answer = stderr(&out);
    assert!(
        answer.len() < 20_000,
        "the hook answered {} bytes",
        answer.len()
    );
    assert!(
        answer.contains("Do not edit another session's paths"),
        "{answer}"
    );
    assert!(
        answer.contains(&format!("and {} more held", 100 * CLAIMS - 16)),
        "{answer}"
    );
}
