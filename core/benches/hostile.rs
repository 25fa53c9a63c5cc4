//! Hostile patterns (issue 17, finding 9): the issue's pattern pair, three claims of it, and
//! 4,000 claims with leading wildcards. Target: each under a second in a release build.
//! Peak memory is not criterion's to measure: `core/examples/hostile.rs` under
//! `/usr/bin/time -v` (bench/README.md).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use rail_core::model::board;
use rail_core::model::input::{Facts, FileText, RailTexts};
use rail_core::text::glob;
use rail_core::text::time::parse_time;

/// `{a,b}` six times, then `*?` 235 times: 500 bytes, 64 alternatives.
fn issue_pattern() -> String {
    format!("{}{}", "{a,b}".repeat(6), "*?".repeat(235))
}

/// Within the limits, and not simplified by any rewriting: the search runs into its budget.
fn stars(i: usize) -> String {
    format!("{}{}{i}", "{a,b}".repeat(3), "*a".repeat(240))
}

fn texts(paths: impl Iterator<Item = String>) -> RailTexts {
    let mut text = String::from("# Claims\n\n");
    for (i, p) in paths.enumerate() {
        text.push_str(&format!(
            "task-{i} | session-{i} | 2026-10-22T14:00Z | paths: {p}\n"
        ));
    }
    RailTexts {
        claims: Some(FileText {
            path: "claims.md".into(),
            text,
            modified: None,
        }),
        ..RailTexts::default()
    }
}

fn hostile(c: &mut Criterion) {
    let facts = Facts::at(parse_time("2026-10-22T15:00:00Z").unwrap());
    let mut group = c.benchmark_group("hostile");
    group.sample_size(10);
    let p = issue_pattern();
    assert!(glob::overlaps(&p, &p));
    group.bench_function("issue pattern pair, overlap", |b| {
        b.iter(|| glob::overlap(black_box(&p), black_box(&p)))
    });
    let three = texts((0..3).map(|_| issue_pattern()));
    group.bench_function("3 claims of the issue pattern, board", |b| {
        b.iter(|| board::build(black_box(&three), black_box(&facts)))
    });
    let three_stars = texts((0..3).map(stars));
    assert_eq!(board::build(&three_stars, &facts).summary.conflicts, 3);
    group.bench_function("3 claims of *a x240, board (undecided)", |b| {
        b.iter(|| board::build(black_box(&three_stars), black_box(&facts)))
    });
    let wild = texts((0..4000).map(|i| format!("*/d{i}/**")));
    assert_eq!(board::build(&wild, &facts).summary.conflicts, 0);
    group.bench_function("4000 claims */dN/**, board", |b| {
        b.iter(|| board::build(black_box(&wild), black_box(&facts)))
    });
    let ext = texts((0..4000).map(|i| format!("**/*.x{i}")));
    group.bench_function("4000 claims **/*.xN, board", |b| {
        b.iter(|| board::build(black_box(&ext), black_box(&facts)))
    });
    group.finish();
}

criterion_group!(benches, hostile);
criterion_main!(benches);
