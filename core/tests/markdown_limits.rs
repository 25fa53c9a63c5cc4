//! Adversarial markdown: deep nesting and many unclosed openers stay linear.
//!
//! pulldown-cmark, which Rail used before, took 1.1 s on 10,000 nested list levels and 343 s on
//! 100,000. Each input below has 100,000 of something (markers, openers, brackets) and goes
//! through both paths: `excluded_ranges` (claims.md) and `render` (purposes). The bound is
//! deliberately generous — 5 s per input on an unoptimised build on a shared machine — so it
//! cannot flake; a quadratic path would take minutes. (Linear inputs take milliseconds.)

use std::time::{Duration, Instant};

use rail_core::markdown::{excluded_ranges, render};
use rail_core::rail;

const N: usize = 100_000;

fn inputs() -> Vec<(&'static str, String)> {
    let blank_lines = "\n".repeat(N);
    let lazy_lines = "x\n".repeat(N);
    vec![
        (
            "nested list markers, then blank and lazy lines",
            format!("{}x\n{lazy_lines}{blank_lines}", "- ".repeat(N)),
        ),
        (
            "nested block quotes, then `>` lines",
            format!("{}x\n{}", "> ".repeat(N), ">\n".repeat(N)),
        ),
        (
            "quotes and list items, then blank lines",
            format!("{}x\n{blank_lines}y\n", "> 1. ".repeat(N / 2)),
        ),
        (
            "nested items with a fence inside",
            format!("{}```\n{}", "* ".repeat(N), "   code\n".repeat(N / 10)),
        ),
        ("HTML block openers", "<div>".repeat(N)),
        ("unclosed tags", "x <a b='1' ".repeat(N)),
        ("unclosed comments", "x <!-- ".repeat(N)),
        ("unclosed CDATA", "x <![CDATA[ ".repeat(N)),
        ("unclosed declarations", "x <!A ".repeat(N)),
        ("unclosed processing instructions", "x <? ".repeat(N)),
        ("open brackets", format!("{}](u)", "[".repeat(N))),
        (
            "nested images",
            format!("{}x{}", "![".repeat(N), "](u)".repeat(N)),
        ),
        ("link openers", "[a](b ".repeat(N)),
        ("destinations with parentheses", "[a](x(".repeat(N)),
        ("emphasis openers", "*a _b ".repeat(N)),
        (
            "one run, many closers",
            format!("{}{}", "*".repeat(N), "a*".repeat(N)),
        ),
        ("strikethrough", "~a ~~b ".repeat(N)),
        ("backtick runs", "`a ``b ".repeat(N)),
        (
            "escapes and entities",
            "\\* &amp; &#1234; &bogus; ".repeat(N),
        ),
        ("autolink starts", "<http://a <a@b ".repeat(N)),
        (
            "multi-line comment in a paragraph",
            format!("a <!--\n{}-->\n", "b |\n".repeat(N)),
        ),
    ]
}

#[test]
fn deep_and_unclosed_input_is_linear() {
    let bound = Duration::from_secs(5);
    for (name, text) in inputs() {
        let started = Instant::now();
        let ranges = excluded_ranges(&text);
        let doc = rail::parse(&text);
        let html = render(&text);
        let took = started.elapsed();
        assert!(ranges.iter().all(|r| r.end <= text.len()), "{name}");
        assert_eq!(doc.to_string(), text, "{name}");
        assert!(!html.is_empty() || text.trim().is_empty(), "{name}");
        eprintln!("{name}: {took:?}");
        assert!(took < bound, "{name}: {took:?} (bound {bound:?})");
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
    let doc = rail::parse(&text);
    assert_eq!(doc.claims().count(), 0);
    // And the render of 100,000 nested items is 100,000 nested `<ul>` (no recursion). (Without
    // the `x` the line would be a thematic break.)
    let html = render(&format!("{}x", "- ".repeat(N)));
    assert_eq!(html.matches("<ul>").count(), N);
}
