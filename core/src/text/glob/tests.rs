//! The glob module's tests: validation, covering and overlap, with the fast paths checked
//! against the full ones.

use super::overlap::{fixed_segments_disjoint, suffixes_disjoint};
use super::*;

/// The fast path never changes an answer: over every string of up to four characters from
/// an alphabet of what matters (segment separators, dots, stars, refused bytes, non-ASCII),
/// and over longer strings mixing them, `normalize` and the full checks agree exactly.
#[test]
fn the_fast_path_agrees_with_the_full_checks() {
    let alphabet = [
        "a", ".", "*", "/", "|", ",", "\\", "[", "{", "}", "!", "é", "\u{1}", "\u{7f}", "b.c",
    ];
    let mut patterns = vec![String::new()];
    for _ in 0..4 {
        let longer: Vec<String> = patterns
            .iter()
            .flat_map(|p| alphabet.iter().map(move |a| format!("{p}{a}")))
            .collect();
        patterns.extend(longer);
    }
    patterns.sort();
    patterns.dedup();
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    for _ in 0..20_000 {
        let mut p = String::new();
        for _ in 0..(seed % 24) {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            p.push_str(alphabet[(seed % alphabet.len() as u64) as usize]);
        }
        patterns.push(p);
    }
    patterns.push("a/".repeat(MAX_PATTERN_LEN / 2));
    patterns.push(format!("{}b", "a/".repeat(MAX_PATTERN_LEN / 2)));
    let mut fast = 0;
    for p in &patterns {
        fast += usize::from(plain(p));
        assert_eq!(normalize(p), checked(p), "{p:?}");
    }
    // The fast path is really taken, and not for everything.
    assert!(
        fast > 1_000 && fast < patterns.len() / 2,
        "{fast} of {}",
        patterns.len()
    );
}

#[test]
fn normalizes_and_refuses() {
    assert_eq!(normalize("src/billing/").unwrap(), "src/billing");
    assert_eq!(normalize("src/**").unwrap(), "src/**");
    for bad in [
        "",
        "/etc/passwd",
        "../x",
        "a/./b",
        "a//b",
        "a\\b",
        "!a",
        "a**",
        "src/[a-z",
        "src/{a,b",
        "[ç]",
        "a|b",
        "a,b",
    ] {
        assert!(normalize(bad).is_err(), "{bad}");
    }
}

#[test]
fn covering() {
    assert!(covers("src/billing", "src/billing/tax.rs"));
    assert!(covers("src/billing", "src/billing"));
    assert!(!covers("src/billing", "src/billing2/x"));
    assert!(covers("src/*.ts", "src/main.ts"));
    assert!(!covers("src/*.ts", "src/a/main.ts"));
    assert!(covers("src/auth/**", "src/auth/token.ts"));
    assert!(covers("src/*", "src/a/b.ts"));
    // Files do not contain files.
    assert!(!covers("src/main.rs", "src/main.rs/x"));
    assert!(!covers("**/*.md", "docs/a.md/b"));
    assert!(covers(".github", ".github/workflows/ci.yml"));
    assert!(covers("{src,docs/a.md}", "src/x.rs"));
    assert!(!covers("{src,docs/a.md}", "docs/a.md/x"));
}

#[test]
fn literal_prefixes() {
    assert_eq!(literal_prefix("src/auth/**"), "src/auth");
    assert_eq!(literal_prefix("src/*.ts"), "src");
    assert_eq!(literal_prefix("docs/billing.md"), "docs/billing.md");
    assert_eq!(literal_prefix("**/x"), "");
    assert_eq!(literal_prefix("{a,b}/c"), "");
}

#[test]
fn overlaps_from_the_issue() {
    assert!(overlaps("src/auth/**", "src/auth/token.ts"));
    assert!(overlaps("src/*.ts", "src/main.ts"));
    assert!(overlaps("src/billing", "src/billing/tax.rs"));
    assert!(overlaps("src/*.ts", "src/m*"));
    assert!(overlaps("**/*.md", "docs/billing.md"));
    assert!(
        overlaps("src/*", "src/a/b.ts"),
        "directory match covers its files"
    );
    assert!(overlaps("a/**/b", "a/b"));
    assert!(overlaps("{web,api}/src/**", "api/src/x.ts"));
    assert!(overlaps("src/[a-c]*.rs", "src/b*"));
    assert!(!overlaps("src/*.ts", "src/*.rs"));
    assert!(!overlaps("src/*.ts", "lib/*.ts"));
    assert!(!overlaps("src/[a-c].rs", "src/[d-f].rs"));
    assert!(!overlaps("src/billing", "src/billing2"));
    assert!(!overlaps("src/*.ts", "src/a/*.rs"));
    assert!(!overlaps("{web,api}/x", "cli/x"));
    // A file claim does not meet every extension glob through imaginary subdirectories.
    assert!(!overlaps("src/main.rs", "**/*.md"));
    assert!(!overlaps("docs/billing.md", "docs/billing.md/**"));
    assert!(overlaps("docs", "**/*.md"));
    assert!(overlaps("src/main.rs", "src/*.rs"));
    assert!(!overlaps("a/?", "a/bc"));
}

/// Issue 17's pattern is refused with a message that says why, at the pattern (the
/// parsers put a path's error at its span); patterns of ordinary size are not.
#[test]
fn a_pattern_too_costly_to_compare_is_refused() {
    let hostile = format!("{}{}", "{a,b}".repeat(6), "*?".repeat(235));
    let e = normalize(&hostile).unwrap_err();
    assert!(e.0.contains("is too complex"), "{e}");
    assert!(e.0.contains("64 alternatives add up to 30464 bytes"), "{e}");
    let e = normalize(&"{a,b}".repeat(7)).unwrap_err();
    assert!(e.0.contains("is too complex"), "{e}");
    for fine in [
        "{web,api}/src/**/*.{ts,tsx}",
        &format!("{}{}", "{a,b}".repeat(6), "x".repeat(100)),
    ] {
        assert!(normalize(fine).is_ok(), "{fine}");
    }
}

/// The cheap checks before the automata (fixed literal segments, file suffixes) never
/// decide otherwise than the automata alone: over random small patterns of the shapes
/// they look at.
#[test]
fn prefilters_agree_with_the_automata() {
    let pieces = [
        "*", "a", "b", "*.ts", "*.rs", "a.ts", "**", "?", "[ab]", "x*", "*b", ".ts", "a*.ts",
    ];
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut random = || {
        let n = 1 + next() % 4;
        (0..n)
            .map(|_| pieces[(next() % pieces.len() as u64) as usize])
            .collect::<Vec<_>>()
            .join("/")
    };
    let mut decided_early = 0;
    for _ in 0..3_000 {
        let (a, b) = (random(), random());
        let (Ok(a), Ok(b)) = (normalize(&a), normalize(&b)) else {
            continue;
        };
        let (pa, pb) = (Pattern::new(&a), Pattern::new(&b));
        let automata = pa.nfa().intersection(pb.nfa(), usize::MAX).0;
        if fixed_segments_disjoint(&pa, &pb) || suffixes_disjoint(&pa, &pb) {
            decided_early += 1;
            assert_eq!(automata, OverlapVerdict::Disjoint, "{a} {b}");
        }
        assert_eq!(
            overlap_of(&pa, &pb).may_overlap(),
            automata.may_overlap(),
            "{a} {b}"
        );
    }
    assert!(decided_early > 300, "{decided_early}");
}

/// Hostile pairs within the limits are decided or undecided, never slow: the search
/// stops at its budget, and an undecided pair counts as overlapping.
#[test]
fn a_hostile_pair_is_bounded_and_undecided_means_overlapping() {
    // The issue's pattern, compared directly (normalize refuses it): `*?` runs compile
    // to `?`s and one star, so this is decided, and overlaps.
    let hostile = format!("{}{}", "{a,b}".repeat(6), "*?".repeat(235));
    assert!(matches!(
        overlap(&hostile, &hostile),
        OverlapVerdict::Overlapping(_)
    ));
    // Stars between literals cannot be simplified: past the budget it is undecided.
    let a = format!("{}{}0", "{a,b}".repeat(3), "*a".repeat(240));
    let b = format!("{}{}1", "{a,b}".repeat(3), "*a".repeat(240));
    assert_eq!(normalize(&a).as_deref(), Ok(a.as_str()));
    assert_eq!(overlap(&a, &b), OverlapVerdict::Undecided);
    assert!(overlaps(&a, &b));
}

#[test]
fn star_runs_mean_at_least_their_question_marks() {
    assert!(overlaps("a/*?*?", "a/bc"));
    assert!(!overlaps("a/*?*?", "a/b"));
    assert!(overlaps("a/?*?", "a/**"));
    assert!(!overlaps("x/*?*.ts", "x/.ts"));
    assert!(overlaps("a/**/**/b", "a/b"));
    assert!(overlaps("**/**", "x"));
}

#[test]
fn witnesses_are_covered_by_both() {
    let pairs = [
        ("src/*.ts", "src/m*"),
        ("**/*.md", "docs/**"),
        ("a/**/b/*.rs", "a/x/**"),
        ("src/[!a]?", "src/b*"),
    ];
    for (a, b) in pairs {
        let OverlapVerdict::Overlapping(w) = overlap(a, b) else {
            panic!("{a} {b}")
        };
        assert!(covers(a, &w) && covers(b, &w), "{a} {b} {w}");
    }
}
