//! The conflict engine's tests: budgets, grouping and what is listed and counted.

use super::*;
use crate::model::input::{Facts, FileText, RailTexts};
use crate::model::Rail;

/// Claims of `n` patterns each, one claim per `(session, pattern builder)`.
fn wide(claims: &[(&str, &dyn Fn(usize) -> String)], n: usize) -> Evaluation {
    let mut text = String::from("# Claims\n\n");
    for (i, (session, pattern)) in claims.iter().enumerate() {
        let paths: Vec<String> = (0..n).map(pattern).collect();
        text.push_str(&format!(
            "t{i} | {session} | 2026-10-22T14:00Z | paths: {}\n",
            paths.join(", ")
        ));
    }
    evaluate(text)
}

fn evaluate(text: String) -> Evaluation {
    let texts = RailTexts {
        claims: Some(FileText {
            path: "claims.md".into(),
            text,
            modified: None,
        }),
        ..RailTexts::default()
    };
    let facts = Facts::at(crate::text::time::parse_time("2026-10-22T14:30:00Z").unwrap());
    Rail::load(&texts).evaluate(&facts)
}

/// Issue 28, finding 4: two claims of 400 patterns each, every pair of which overlaps and
/// needs the automata (`**/*a7*` and `**/*b9*` both cover `b9a7`). Each pair was bounded,
/// their number was not: 160,000 searches, 277 s for `rail board`. The whole question now
/// has one budget, and the claims still conflict.
#[test]
fn wide_claims_are_judged_within_one_budget() {
    let a = |k: usize| format!("**/*a{k}*");
    let b = |k: usize| format!("**/*b{k}*");
    let eval = wide(&[("alice", &a), ("bob", &b)], 400);
    assert_eq!(eval.claims[0].paths.len(), 400);
    let (found, work) = path_overlaps_counted(&eval.claims);
    assert!(
        work.spent <= glob::MAX_RAIL_STEPS,
        "{} work units for one board (budget {})",
        work.spent,
        glob::MAX_RAIL_STEPS
    );
    assert!(work.searches <= 1_000, "{} searches", work.searches);
    assert_eq!(found.list.len(), 1, "{:?}", found.list);
    assert_eq!(found.list[0].sessions, ["alice", "bob"]);
    assert!(
        found.list[0].message.contains("overlaps"),
        "{}",
        found.list[0].message
    );
}

/// `n` claims, each of its own session, the pattern of claim `i` given by `pattern`.
fn crowd(n: usize, pattern: impl Fn(usize) -> String) -> Evaluation {
    let mut text = String::from("# Claims\n\n");
    for i in 0..n {
        text.push_str(&format!(
            "t{i} | s{i} | 2026-10-22T14:00Z | paths: {}\n",
            pattern(i)
        ));
    }
    evaluate(text)
}

/// Issue 41, finding 5: 1,500 claims of `src/**` were 1.1 million conflicts of two claims. They
/// are one conflict, naming six claims and counting the rest, and each claim lists it once.
#[test]
fn one_pattern_claimed_by_many_sessions_is_one_conflict() {
    let eval = crowd(1_500, |_| "src/**".to_string());
    let found = detect(&eval);
    assert_eq!(found.list.len(), 1, "{:?}", &found.list[..2]);
    let c = &found.list[0];
    assert_eq!(c.claims, [0, 1, 2, 3, 4, 5]);
    assert_eq!(c.sessions.len(), 6);
    assert_eq!(c.claims_unlisted, 1_494);
    assert!(
        c.message.starts_with(
            "s0 (t0), s1 (t1), s2 (t2), s3 (t3), s4 (t4), s5 (t5) and 1494 more all claim `src/**`"
        ),
        "{}",
        c.message
    );
    assert_eq!(found.members(0).len(), 1_500);
    for mine in &found.of_claim {
        assert_eq!(mine.listed, [0]);
        assert_eq!(mine.unlisted, 0);
    }
}

/// Two claims overlapping in several patterns are one conflict, as before grouping.
#[test]
fn two_claims_are_one_conflict_however_many_patterns_meet() {
    let eval = evaluate(
        "# Claims\n\n\
         a | alice | 2026-10-22T14:00Z | paths: src/a/**, docs/**\n\
         b | bob | 2026-10-22T14:00Z | paths: src/a/x.ts, docs/y.md\n"
            .to_string(),
    );
    let found = detect(&eval);
    assert_eq!(found.list.len(), 1, "{:?}", found.list);
    assert_eq!(found.list[0].claims, [0, 1]);
    assert_eq!(found.list[0].overlaps.len(), 2);
    assert!(
        found.list[0]
            .message
            .starts_with("alice (a) and bob (b) both claim"),
        "{}",
        found.list[0].message
    );
}

/// Hundreds of distinct patterns that all overlap one another: the conflicts grow with the
/// patterns (each gets eight of its own), the pairs past that are counted, and every claim is
/// still in a conflict.
#[test]
fn many_distinct_overlapping_patterns_make_conflicts_in_proportion() {
    let n = 300;
    let eval = crowd(n, |i| format!("src/**/x{i}/**"));
    let found = detect(&eval);
    assert!(
        found.list.len() <= LISTED_PER_PATTERN * n,
        "{} conflicts",
        found.list.len()
    );
    assert!(found.overlaps_unlisted > 0);
    assert_eq!(
        found.list.len() + found.overlaps_unlisted,
        n * (n - 1) / 2,
        "every overlapping pair is a conflict or counted"
    );
    for mine in &found.of_claim {
        assert!(!mine.listed.is_empty());
        assert!(mine.listed.len() <= LISTED_PER_CLAIM);
    }
}

/// A claim not written yet is judged with every pattern of its own listed, however crowded the
/// patterns it meets: a claim about to be refused is never let through by a cap.
#[test]
fn a_probe_meets_every_pattern_it_overlaps() {
    let n = 300;
    let eval = crowd(n, |i| format!("src/**/x{i}/**"));
    let mut probe = Claim::probe(
        "late",
        "late",
        crate::text::time::parse_time("2026-10-22T14:30:00Z").unwrap(),
        chrono::TimeDelta::hours(2),
    );
    probe.paths = vec!["src/x7/x9/f.ts".to_string()];
    let found = conflicts_of(&eval.claims, probe.clone());
    let mut named: Vec<usize> = found.iter().flat_map(|c| c.claims.clone()).collect();
    named.sort_unstable();
    assert_eq!(named, [7, 9], "{found:?}");
    // The backlog's judgement of the same task names the same claims.
    assert_eq!(clashing(&eval.claims, vec![probe]), [vec![7, 9]]);
}

/// A branch's session and its agents act for one another (`ident::acts_for`): their claims of
/// one pattern are no conflict, two sibling agents' are, and the branch's own new claim is not
/// refused for the group its agents are in.
#[test]
fn a_branch_and_its_agents_are_one_side_and_siblings_two() {
    let eval = evaluate(
        "# Claims\n\n\
         a | main | 2026-10-22T14:00Z | paths: src/**\n\
         b | main~claude-a1 | 2026-10-22T14:00Z | paths: src/**\n"
            .to_string(),
    );
    assert!(detect(&eval).list.is_empty());
    let eval = evaluate(
        "# Claims\n\n\
         a | main~claude-a1 | 2026-10-22T14:00Z | paths: src/**\n\
         b | main~claude-b2 | 2026-10-22T14:00Z | paths: src/**\n"
            .to_string(),
    );
    assert_eq!(detect(&eval).list.len(), 1);
    let at = crate::text::time::parse_time("2026-10-22T14:30:00Z").unwrap();
    let mut probe = Claim::probe("c", "main", at, chrono::TimeDelta::hours(2));
    probe.paths = vec!["src/x.ts".to_string()];
    assert!(conflicts_of(&eval.claims, probe.clone()).is_empty());
    assert_eq!(
        clashing(&eval.claims, vec![probe.clone()]),
        [Vec::<usize>::new()]
    );
    probe.session = "bob".to_string();
    assert_eq!(conflicts_of(&eval.claims, probe.clone()).len(), 1);
    assert_eq!(clashing(&eval.claims, vec![probe]), [vec![0, 1]]);
}
