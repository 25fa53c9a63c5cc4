//! Generators shared by the property tests.

#![allow(dead_code)]

use proptest::prelude::*;
use rail_core::text::diagnostic::Diagnostic;

/// Pieces that make the claims.md parser take its interesting paths, mixed with noise.
pub fn rail_fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => claim_line(),
        1 => Just("auth-refresh | session-a | 2026-10-22T14:05Z".to_string()),
        1 => Just("| task | session | time |".to_string()),
        1 => Just("|---|:---:|".to_string()),
        1 => Just("```".to_string()),
        1 => Just("~~~".to_string()),
        1 => Just("<!--".to_string()),
        1 => Just("-->".to_string()),
        1 => Just("<details>".to_string()),
        1 => Just("\u{feff}".to_string()),
        4 => Just("\n".to_string()),
        2 => Just("\r\n".to_string()),
        1 => Just("\r".to_string()),
        2 => Just(" | ".to_string()),
        1 => Just("|".to_string()),
        1 => Just("\\|".to_string()),
        1 => Just(" | lease: 4h".to_string()),
        1 => Just(" | purpose: a | b".to_string()),
        1 => Just(" | paths: src/**, a.md".to_string()),
        1 => Just(" | colour: red".to_string()),
        1 => Just("<<<<<<< ours".to_string()),
        1 => Just("=======".to_string()),
        1 => Just(">>>>>>> theirs".to_string()),
        1 => Just("- ".to_string()),
        1 => Just("1. ".to_string()),
        1 => Just("    ".to_string()),
        1 => Just("\t".to_string()),
        1 => Just("ç😀".to_string()),
        1 => Just("2026-".to_string()),
        2 => "[a-z ]{0,8}",
        2 => any::<String>().prop_map(|s| s.chars().take(12).collect()),
    ]
}

/// A claims.md-like text.
pub fn rail_text() -> impl Strategy<Value = String> {
    prop::collection::vec(rail_fragment(), 0..40).prop_map(|v| v.concat())
}

/// A claim-shaped line, valid or nearly so.
pub fn claim_line() -> impl Strategy<Value = String> {
    (
        prop_oneof![Just(""), Just("- "), Just("| "), Just("  * ")],
        prop_oneof![
            Just("a"),
            Just("b"),
            Just("tâche"),
            Just("../x"),
            Just("a b")
        ],
        prop_oneof![
            Just("s1"),
            Just("s2"),
            Just("feature/x"),
            Just(""),
            Just("two words")
        ],
        prop_oneof![
            Just("2026-10-22T14:05Z"),
            Just("2026-10-22T14:05:30+02:00"),
            Just("2026-10-22T14:05-05"),
            Just("yesterday"),
            Just("2026-13-01T00:00Z"),
        ],
        prop::collection::vec(
            prop_oneof![
                Just("lease: 45m"),
                Just("lease: soon"),
                Just("paths: src/**, docs/x.md"),
                Just("paths: /abs"),
                Just("resources: port:3000"),
                Just("after: a"),
                Just("renewed: 2026-10-22T15:00Z"),
                Just("pid: 1@h"),
                Just("purpose: fix | it"),
                Just("odd"),
            ],
            0..3,
        ),
        prop_oneof![Just(""), Just(" |")],
    )
        .prop_map(|(marker, task, session, time, fields, end)| {
            let mut line = format!("{marker}{task} | {session} | {time}");
            for f in fields {
                line.push_str(" | ");
                line.push_str(f);
            }
            line.push_str(end);
            line
        })
}

/// Pieces of YAML, in and out of the subset Rail reads.
pub fn yaml_fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop_oneof![
            Just("owner: "), Just("paths:"), Just("resources: "), Just("purpose: "),
            Just("since: "), Just("task: "), Just("lease: "), Just("touched:"),
        ]
        .prop_map(str::to_string),
        4 => Just("\n".to_string()),
        1 => Just("\r\n".to_string()),
        2 => Just("- ".to_string()),
        2 => Just("  ".to_string()),
        1 => Just("[a, 'b', \"c\"]".to_string()),
        1 => Just("[".to_string()),
        1 => Just("]".to_string()),
        1 => Just(",".to_string()),
        1 => Just("\"".to_string()),
        1 => Just("'".to_string()),
        1 => Just("\\".to_string()),
        1 => Just("|".to_string()),
        1 => Just("|-".to_string()),
        1 => Just(">+2".to_string()),
        1 => Just("&a".to_string()),
        1 => Just("*a".to_string()),
        1 => Just("!!str".to_string()),
        1 => Just("{a: b}".to_string()),
        1 => Just("---".to_string()),
        1 => Just("...".to_string()),
        1 => Just("%YAML 1.2".to_string()),
        1 => Just("? ".to_string()),
        1 => Just(": ".to_string()),
        1 => Just("# c".to_string()),
        1 => Just("\t".to_string()),
        1 => Just("\u{feff}".to_string()),
        1 => Just("ç😀".to_string()),
        1 => Just("2026-10-22T14:05Z".to_string()),
        2 => "[a-z:/*.]{0,8}",
        1 => any::<String>().prop_map(|s| s.chars().take(8).collect()),
    ]
}

pub fn yaml_text() -> impl Strategy<Value = String> {
    prop::collection::vec(yaml_fragment(), 0..40).prop_map(|v| v.concat())
}

/// Every diagnostic points inside the text, at character boundaries.
pub fn assert_spans_fit(text: &str, diags: &[Diagnostic]) {
    for d in diags {
        assert!(d.span.start <= d.span.end, "{d:?}");
        assert!(d.span.end <= text.len(), "{d:?} past the end of {text:?}");
        assert!(
            text.is_char_boundary(d.span.start) && text.is_char_boundary(d.span.end),
            "{d:?} splits a character in {text:?}"
        );
    }
}

/// A well-formed claim file in one of the many ways the subset allows: keys in any order,
/// block lists at two indentations, flow lists, quoted and block scalars, comments, `---`,
/// CRLF, a missing final newline.
pub fn claim_file_text() -> impl Strategy<Value = String> {
    let list = |items: Vec<&'static str>| {
        let items2 = items.clone();
        prop_oneof![
            Just(
                format!(
                    "\n{}",
                    items.iter().map(|i| format!("- {i}\n")).collect::<String>()
                )
                .trim_end()
                .to_string()
            ),
            Just(
                format!(
                    "\n{}",
                    items2
                        .iter()
                        .map(|i| format!("  - {i}  # note\n"))
                        .collect::<String>()
                )
                .trim_end()
                .to_string()
            ),
            Just(format!(" [{}]", items.join(", "))),
            Just(format!(
                " [{}]",
                items
                    .iter()
                    .map(|i| format!("\"{i}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        ]
    };
    let entries = (
        prop_oneof![
            Just(" session-a"),
            Just(" \"session-a\""),
            Just(" 'session-a' # me")
        ],
        list(vec!["src/a.ts", "web/**"]),
        list(vec!["port:3000"]),
        prop_oneof![
            Just(" fix it"),
            Just(" \"fix: it\""),
            Just(" |\n  line one\n    line two\n"),
            Just(" >-\n  folded\n  text"),
            Just(" a plain value\n  continued"),
        ],
        prop_oneof![Just(" 2026-10-22T14:05Z"), Just(" '2026-10-22T14:05Z'")],
        any::<bool>(),
    )
        .prop_map(|(owner, paths, resources, purpose, since, with_task)| {
            let mut v = vec![
                format!("owner:{owner}"),
                format!("paths:{paths}"),
                format!("resources:{resources}"),
                format!("purpose:{}", purpose.trim_end_matches('\n')),
                format!("since:{since}"),
            ];
            if with_task {
                v.push("task: auth-refresh".to_string());
            }
            v
        });
    (
        entries,
        any::<u64>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(mut entries, seed, crlf, final_newline, marker, comments)| {
                // A deterministic shuffle from the drawn seed.
                let mut s = seed;
                for i in (1..entries.len()).rev() {
                    s = s
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    entries.swap(i, (s >> 33) as usize % (i + 1));
                }
                let mut text = String::new();
                if marker {
                    text.push_str("---\n");
                }
                for e in entries {
                    if comments {
                        text.push_str("# about the next key\n\n");
                    }
                    text.push_str(&e);
                    text.push('\n');
                }
                if !final_newline {
                    text.pop();
                }
                if crlf {
                    text = text.replace('\n', "\r\n");
                }
                text
            },
        )
}

/// A valid claim line in any of its forms, fields included.
pub fn valid_claim_line() -> impl Strategy<Value = String> {
    (
        prop_oneof![Just(""), Just("- "), Just("| "), Just("12. ")],
        "[a-z][a-z0-9-]{0,6}",
        "[a-z][a-z0-9-]{0,6}",
        prop_oneof![Just("2026-10-22T14:05Z"), Just("2026-10-22T16:05:30+02:00")],
        prop::collection::vec(
            prop_oneof![
                Just("lease: 45m"),
                Just("paths: src/**, docs/x.md"),
                Just("resources: port:3000"),
                Just("renewed: 2026-10-22T15:00Z"),
                Just("purpose: fix | it"),
            ],
            0..3,
        ),
    )
        .prop_map(|(marker, task, session, time, fields)| {
            let mut line = format!("{marker}{task} | {session} | {time}");
            let table = marker == "| ";
            for f in fields {
                // A table row's purpose may not hold a bare `|`.
                let f = if table {
                    f.replace("fix | it", "fix it")
                } else {
                    f.to_string()
                };
                line.push_str(" | ");
                line.push_str(&f);
            }
            if table {
                line.push_str(" |");
            }
            line
        })
}

/// A claims.md-like text with at least one valid claim somewhere.
pub fn rail_text_with_claim() -> impl Strategy<Value = String> {
    (rail_text(), valid_claim_line(), rail_text())
        .prop_map(|(before, claim, after)| format!("{before}\n{claim}\n{after}"))
}

/// `cases` unless `PROPTEST_CASES` asks for another number (for long runs).
pub fn cases(cases: u32) -> proptest::test_runner::Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(cases);
    proptest::test_runner::Config {
        // Some generated inputs are set aside (e.g. a claim that landed in a code fence).
        max_global_rejects: cases.max(1024),
        ..proptest::test_runner::Config::with_cases(cases)
    }
}
