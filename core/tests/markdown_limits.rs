//! Adversarial markdown: deep nesting and many unclosed openers keep their meaning.
//!
//! pulldown-cmark, which Rail used before, took 1.1 s on 10,000 nested list levels and 343 s on
//! 100,000. Each input (`inputs/markdown.rs`) has 100,000 of something (markers, openers,
//! brackets) and goes through both paths: `excluded_ranges` (claims.md) and `render`
//! (purposes). How long they take is the `parse` bench's business (`adversarial markdown`
//! group, figures in bench/README.md), not a timed test's: a quadratic path shows there.

#[path = "inputs/markdown.rs"]
mod inputs;

use inputs::{inputs, N};
use rail_core::formats::claims_md;
use rail_core::formats::markdown::{excluded_ranges, render};

#[test]
fn deep_and_unclosed_input_is_read_whole() {
    for (name, text) in inputs() {
        let ranges = excluded_ranges(&text);
        let doc = claims_md::parse(&text);
        let html = render(&text);
        assert!(ranges.iter().all(|r| r.end <= text.len()), "{name}");
        assert_eq!(doc.to_string(), text, "{name}");
        assert!(!html.is_empty() || text.trim().is_empty(), "{name}");
    }
}

#[test]
fn deep_nesting_keeps_its_meaning() {
    // A fence at the bottom of 100,000 list items is still code: its lines are excluded.
    let text = format!(
        "{}```\n{}a | s | 2026-10-22T14:05Z\n",
        "- ".repeat(N),
        " ".repeat(2 * N)
    );
    let doc = claims_md::parse(&text);
    assert_eq!(doc.claims().count(), 0);
    // And the render of 100,000 nested items is 100,000 nested `<ul>` (no recursion). (Without
    // the `x` the line would be a thematic break.)
    let html = render(&format!("{}x", "- ".repeat(N)));
    assert_eq!(html.matches("<ul>").count(), N);
}
