//! Adversarial markdown inputs: deep nesting and many unclosed openers, 100,000 of something
//! each. Shared by `core/tests/markdown_limits.rs` (what they mean) and the `parse` bench (how
//! long they take).

pub const N: usize = 100_000;

pub fn inputs() -> Vec<(&'static str, String)> {
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
