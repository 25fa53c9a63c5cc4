//! Glob overlap against brute force: `overlaps(a, b)` is decided on automata; here it is checked
//! against fast-glob itself (through `glob::covers`) on every path of a small universe.
//!
//! - if some path of the universe is covered by both patterns, `overlaps` must say so;
//! - if `overlaps` says so, its witness must be covered by both.

mod common;

use proptest::prelude::*;
use rail_core::text::glob::{covers, may_overlap, normalize, overlap, overlaps, OverlapVerdict};

/// One path segment of a pattern, over the alphabet {a, b, c}.
fn segment() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[abc]{1,2}",
        2 => Just("*".to_string()),
        1 => Just("a*".to_string()),
        1 => Just("*b".to_string()),
        1 => Just("*a*".to_string()),
        1 => Just("?".to_string()),
        1 => Just("a?".to_string()),
        1 => Just("[ab]".to_string()),
        1 => Just("[!a]".to_string()),
        1 => Just("[a-b]c".to_string()),
        2 => Just("**".to_string()),
        // Runs of `*` and `?`, which the automaton compiles as the `?`s then one star.
        1 => "[*?]{2,4}",
        1 => "a[*?]{2,3}b",
    ]
}

fn pattern() -> impl Strategy<Value = String> {
    (prop::collection::vec(segment(), 1..4), any::<bool>()).prop_map(|(segments, slash)| {
        let mut p = segments.join("/");
        if slash {
            p.push('/'); // normalize() drops it
        }
        p
    })
}

/// Brace alternatives, which normalize() refuses (claims cannot spell `,`) but the matcher
/// supports; checked without normalize().
fn brace_pattern() -> impl Strategy<Value = String> {
    (pattern(), pattern(), pattern()).prop_map(|(a, b, rest)| {
        let a = a.trim_end_matches('/').to_string();
        let b = b.trim_end_matches('/').to_string();
        format!("{{{a},{b}}}/{}", rest.trim_end_matches('/'))
    })
}

/// Every path of up to four segments, each one or two letters of {a, b, c}, plus a few with
/// other bytes.
fn universe() -> Vec<String> {
    let letters = ["a", "b", "c"];
    let mut segments: Vec<String> = letters.iter().map(|s| s.to_string()).collect();
    for x in letters {
        for y in letters {
            segments.push(format!("{x}{y}"));
        }
    }
    let mut paths: Vec<String> = segments.clone();
    let mut last = segments.clone();
    for depth in 2..=3 {
        let mut next = Vec::new();
        for p in &last {
            for s in &segments {
                next.push(format!("{p}/{s}"));
            }
        }
        paths.extend(next.iter().cloned());
        last = next;
        let _ = depth;
    }
    // Depth four on the one-letter segments only, to keep the universe small.
    let short: Vec<String> = letters.iter().map(|s| s.to_string()).collect();
    for p in last.iter().filter(|p| p.split('/').all(|s| s.len() == 1)) {
        for s in &short {
            paths.push(format!("{p}/{s}"));
        }
    }
    paths.extend(["a/.c", "b/x.y", "abc", "a/b/c/d/e"].map(String::from));
    paths
}

/// The brute force is the reference: a witness must be covered by both patterns, and
/// "disjoint" must mean no path of the universe is covered by both. Small patterns are always
/// decided: the budget is for hostile ones.
fn check_pair(a: &str, b: &str, universe: &[String]) -> Result<(), TestCaseError> {
    let verdict = overlap(a, b);
    prop_assert!(verdict != OverlapVerdict::Undecided, "{} {}", a, b);
    prop_assert_eq!(verdict.may_overlap(), overlaps(a, b));
    // The literal-prefix shortcut never rules out a real overlap.
    prop_assert!(
        !verdict.may_overlap() || may_overlap(a, b),
        "may_overlap ruled out {} {}",
        a,
        b
    );
    prop_assert_eq!(
        verdict.may_overlap(),
        overlap(b, a).may_overlap(),
        "not symmetric: {} {}",
        a,
        b
    );
    if let OverlapVerdict::Overlapping(w) = &verdict {
        prop_assert!(
            covers(a, w) && covers(b, w),
            "witness {:?} of {:?} and {:?} is not covered by both (a: {}, b: {})",
            w,
            a,
            b,
            covers(a, w),
            covers(b, w)
        );
    } else if let Some(p) = universe.iter().find(|p| covers(a, p) && covers(b, p)) {
        prop_assert!(
            false,
            "{:?} and {:?} both cover {:?} but overlaps() says no",
            a,
            b,
            p
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(common::cases(2000))]

    #[test]
    fn overlaps_agrees_with_brute_force(a in pattern(), b in pattern()) {
        let (Ok(a), Ok(b)) = (normalize(&a), normalize(&b)) else {
            return Err(TestCaseError::reject("refused pattern"));
        };
        thread_local!(static UNIVERSE: Vec<String> = universe());
        UNIVERSE.with(|u| check_pair(&a, &b, u))?;
    }

    #[test]
    fn overlaps_agrees_with_brute_force_on_braces(a in brace_pattern(), b in pattern()) {
        thread_local!(static UNIVERSE: Vec<String> = universe());
        UNIVERSE.with(|u| check_pair(&a, b.trim_end_matches('/'), u))?;
    }

    /// A pattern always overlaps itself (when it covers anything at all).
    #[test]
    fn a_pattern_overlaps_itself(a in pattern()) {
        let Ok(a) = normalize(&a) else {
            return Err(TestCaseError::reject("refused pattern"));
        };
        thread_local!(static UNIVERSE: Vec<String> = universe());
        let covers_something = UNIVERSE.with(|u| u.iter().any(|p| covers(&a, p)));
        if covers_something {
            prop_assert!(overlaps(&a, &a), "{:?}", a);
        }
    }
}

/// Patterns that go to the conflict index's wildcard groups (no literal prefix, a literal
/// segment later) or to its free list, beside the ordinary ones.
fn indexed_pattern() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => pattern(),
        2 => ("[ab]", "[abc]{1,2}").prop_map(|(x, y)| format!("*/{x}/{y}")),
        2 => "[abc]".prop_map(|x| format!("*/{x}/**")),
        1 => "[abc]".prop_map(|x| format!("?/*/{x}")),
        2 => "[ab]{1,3}".prop_map(|x| format!("**/*.{x}")),
        1 => "[ab]{2,3}".prop_map(|x| format!("*/*{x}.a")),
        1 => "[abc]".prop_map(|x| format!("{x}/*/a")),
    ]
}

proptest! {
    #![proptest_config(common::cases(300))]

    /// The conflict index (literal prefixes, wildcard groups by fixed segment, one decision
    /// per distinct pattern pair) and its grouping (claims of overlapping patterns as one
    /// conflict) stand for exactly the claim pairs that comparing every pattern of every pair
    /// of claims finds.
    #[test]
    fn the_conflict_index_finds_what_all_pairs_find(
        claims in prop::collection::vec(
            (0..4usize, prop::collection::vec(indexed_pattern(), 1..3)),
            2..12,
        )
    ) {
        use rail_core::model::input::{Facts, FileText, RailTexts};
        use rail_core::model::Rail;
        let mut text = String::from("# Claims\n\n");
        for (i, (session, paths)) in claims.iter().enumerate() {
            let paths: Vec<String> = paths.iter().filter_map(|p| normalize(p).ok()).collect();
            if paths.is_empty() {
                continue;
            }
            text.push_str(&format!(
                "t{i} | s{session} | 2026-10-22T14:00Z | paths: {}\n",
                paths.join(", ")
            ));
        }
        let texts = RailTexts {
            claims: Some(FileText { path: "claims.md".into(), text, modified: None }),
            ..RailTexts::default()
        };
        let facts = Facts::at(rail_core::text::time::parse_time("2026-10-22T14:30:00Z").unwrap());
        let eval = Rail::load(&texts).evaluate(&facts);
        // Every two claims of different sessions in one conflict overlap: the pairs its
        // conflicts stand for, each conflict's members read in full.
        let conflicts = rail_core::model::conflict::path_overlaps(&eval.claims);
        let mut found: Vec<(usize, usize)> = Vec::new();
        for index in 0..conflicts.list.len() {
            let members = conflicts.members(index);
            for (k, &a) in members.iter().enumerate() {
                for &b in &members[k + 1..] {
                    if eval.claims[a].session != eval.claims[b].session {
                        found.push((a, b));
                    }
                }
            }
        }
        rail_core::text::sort::sort_by_key(&mut found, |p| *p);
        found.dedup();
        let mut all_pairs = Vec::new();
        for a in &eval.claims {
            for b in eval.claims.iter().filter(|b| b.id > a.id && b.session != a.session) {
                if a.paths.iter().any(|p| b.paths.iter().any(|q| overlap(p, q).may_overlap())) {
                    all_pairs.push((a.id, b.id));
                }
            }
        }
        // Every pair the conflicts stand for is a pair that overlaps, and with no overlaps left
        // unlisted (a pair of patterns that both have eight conflicts already), every one is
        // there; with some, every claim of an overlapping pair is still in a conflict.
        if conflicts.overlaps_unlisted == 0 {
            prop_assert_eq!(&found, &all_pairs);
        } else {
            prop_assert!(found.iter().all(|p| all_pairs.contains(p)), "{:?} {:?}", found, all_pairs);
        }
        for (a, b) in &all_pairs {
            for id in [a, b] {
                prop_assert!(
                    (0..conflicts.list.len()).any(|i| conflicts.members(i).contains(id)),
                    "claim {} overlaps but is in no conflict", id
                );
            }
        }
        // Each claim lists the first of the conflicts it is in and counts the others.
        for claim in &eval.claims {
            let all: Vec<usize> = (0..conflicts.list.len())
                .filter(|i| conflicts.members(*i).contains(&claim.id))
                .collect();
            let mine = &conflicts.of_claim[claim.id];
            let first: Vec<usize> = all.iter().copied().take(mine.listed.len()).collect();
            prop_assert_eq!(&mine.listed, &first);
            prop_assert_eq!(mine.listed.len() + mine.unlisted, all.len());
        }
        // A claim about to be written is refused exactly when it would overlap another
        // session's claim: the last claim, judged as a probe against the others.
        if let Some(last) = eval.claims.last() {
            let others: Vec<_> = eval.claims[..last.id].to_vec();
            let mut probe = last.clone();
            probe.id = usize::MAX;
            let refused = !rail_core::model::conflict::conflicts_of(&others, probe).is_empty();
            let overlaps = all_pairs.iter().any(|(_, b)| *b == last.id);
            prop_assert_eq!(refused, overlaps);
        }
    }
}
