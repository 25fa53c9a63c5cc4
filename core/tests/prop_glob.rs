//! Glob overlap against brute force: `overlaps(a, b)` is decided on automata; here it is checked
//! against fast-glob itself (through `glob::covers`) on every path of a small universe.
//!
//! - if some path of the universe is covered by both patterns, `overlaps` must say so;
//! - if `overlaps` says so, its witness must be covered by both.

mod common;

use proptest::prelude::*;
use rail_core::glob::{covers, may_overlap, normalize, overlap_witness, overlaps};

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

fn check_pair(a: &str, b: &str, universe: &[String]) -> Result<(), TestCaseError> {
    let witness = overlap_witness(a, b);
    prop_assert_eq!(witness.is_some(), overlaps(a, b));
    // The literal-prefix shortcut never rules out a real overlap.
    prop_assert!(
        witness.is_none() || may_overlap(a, b),
        "may_overlap ruled out {} {}",
        a,
        b
    );
    prop_assert_eq!(
        witness.is_some(),
        overlap_witness(b, a).is_some(),
        "not symmetric: {} {}",
        a,
        b
    );
    if let Some(w) = &witness {
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
