//! Hostile rails from issue 17, finding 9, built into a board once: for measuring time and
//! peak memory of one process (`/usr/bin/time -v`), which criterion cannot report.
//!
//! `cargo run --release -p rail-core --example hostile -- overlap|pair|three|stars|wildcards|extensions|two-wide [N]`

use std::time::Instant;

use rail_core::model::board;
use rail_core::model::input::{FileText, RailTexts};
use rail_core::text::time::parse_time;

/// `{a,b}` six times, then `*?` 235 times: 500 bytes, 64 alternatives (the pattern).
fn adversarial() -> String {
    format!("{}{}", "{a,b}".repeat(6), "*?".repeat(235))
}

/// What no rewriting of `*`/`?` runs simplifies: stars between literals, 8 alternatives, a
/// different last byte per claim so no two claims share a pattern.
fn stars(i: usize) -> String {
    format!("{}{}{i}", "{a,b}".repeat(3), "*a".repeat(240))
}

fn rail(lines: &[String]) -> RailTexts {
    let mut text = String::from("# Claims\n\n");
    for l in lines {
        text.push_str(l);
        text.push('\n');
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

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let case = args.get(1).map(String::as_str).unwrap_or("pair");
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(4000);
    let claim = |i: usize, path: &str| {
        format!("task-{i} | session-{i} | 2026-10-22T14:00Z | paths: {path}")
    };
    if case == "overlap" {
        // The pair compared directly: `normalize` now refuses the pattern, so a board
        // never gets here with it; this measures the search itself.
        let p = adversarial();
        let start = Instant::now();
        let verdict = rail_core::text::glob::overlap(&p, &p);
        println!(
            "overlap: {} in {:.3} s",
            if verdict.may_overlap() {
                "may overlap"
            } else {
                "disjoint"
            },
            start.elapsed().as_secs_f64()
        );
        return;
    }
    let lines: Vec<String> = match case {
        "pair" => (0..2).map(|i| claim(i, &adversarial())).collect(),
        "three" => (0..3).map(|i| claim(i, &adversarial())).collect(),
        "stars" => (0..3).map(|i| claim(i, &stars(i))).collect(),
        "wildcards" => (0..n).map(|i| claim(i, &format!("*/d{i}/**"))).collect(),
        "extensions" => (0..n).map(|i| claim(i, &format!("**/*.x{i}"))).collect(),
        // Issue 28, finding 4: two claims of N patterns each, every pair overlapping.
        "two-wide" => ["a", "b"]
            .iter()
            .enumerate()
            .map(|(i, letter)| {
                let paths: Vec<String> = (0..n).map(|k| format!("**/*{letter}{k}*")).collect();
                claim(i, &paths.join(", "))
            })
            .collect(),
        other => panic!("unknown case {other}: see the module docs"),
    };
    let texts = rail(&lines);
    let mut facts = rail_core::model::input::Facts::at(parse_time("2026-10-22T15:00:00Z").unwrap());
    facts.host = "devbox".into();
    let start = Instant::now();
    let built = board::build(&texts, &facts);
    println!(
        "{case}: {} claims, {} conflicts, {} diagnostics in {:.3} s",
        built.claims.len(),
        built.summary.conflicts,
        built.diagnostics.len(),
        start.elapsed().as_secs_f64()
    );
    for d in built.diagnostics.iter().take(3) {
        println!(
            "  {:?}: {}",
            d.code,
            d.message.chars().take(160).collect::<String>()
        );
    }
    for c in built.conflicts.iter().take(3) {
        println!("  {}", c.message.chars().take(200).collect::<String>());
    }
}
