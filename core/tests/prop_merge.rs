//! Property tests of the claims.md merge driver.
//!
//! Base files are built from claim lines (a few tasks, sessions and times, so sides collide),
//! prose and markdown structure; each side applies random edits to the base: releases, new
//! claims, renewals, takes, prose edits, moves.

#![allow(clippy::disallowed_methods, reason = "tests are not in the wasm build")]

mod common;

use std::collections::BTreeSet;

use proptest::prelude::*;
use rail_core::change::merge::merge;
use rail_core::formats::claims_md::{self, LineKind};
use rail_core::text::diagnostic::Severity;

const TASKS: [&str; 4] = ["auth", "billing", "search", "docs"];
const SESSIONS: [&str; 3] = ["session-a", "session-b", "session-c"];
const TIMES: [&str; 3] = [
    "2026-10-22T14:05Z",
    "2026-10-22T14:10Z",
    "2026-10-22T15:00Z",
];

fn claim(task: usize, session: usize, time: usize, extra: usize) -> String {
    let extra = [
        "",
        " | renewed: 2026-10-22T15:30Z",
        " | paths: src/**",
        " | lease: 1h",
        " | renewed: 2026-10-22T16:00Z",
    ][extra % 5];
    format!(
        "{} | {} | {}{extra}",
        TASKS[task % 4],
        SESSIONS[session % 3],
        TIMES[time % 3]
    )
}

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => (0..4usize, 0..3usize, 0..3usize, 0..5usize).prop_map(|(t, s, m, e)| claim(t, s, m, e)),
        1 => (0..4usize, 0..3usize).prop_map(|(t, s)| format!("- {}", claim(t, s, 0, 0))),
        1 => (0..4usize, 0..3usize).prop_map(|(t, s)| format!("| {} |", claim(t, s, 1, 0))),
        1 => Just("# Claims".to_string()),
        2 => Just(String::new()),
        1 => Just("Some prose | with a pipe.".to_string()),
        1 => "[A-Z][a-z ]{0,10}\\.",
        1 => Just("broken | session-a | yesterday".to_string()),
    ]
}

#[derive(Clone, Debug)]
enum Edit {
    Delete(usize),
    Insert(usize, String),
    /// Renew or otherwise rewrite the claim at an index, keeping task, session and time.
    Renew(usize, usize),
    /// Someone else takes the task at an index.
    Take(usize, usize),
    Move(usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => any::<usize>().prop_map(Edit::Delete),
        3 => (any::<usize>(), line()).prop_map(|(i, l)| Edit::Insert(i, l)),
        2 => (any::<usize>(), 1..5usize).prop_map(|(i, e)| Edit::Renew(i, e)),
        1 => (any::<usize>(), 0..3usize).prop_map(|(i, s)| Edit::Take(i, s)),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(i, j)| Edit::Move(i, j)),
    ]
}

fn apply_edits(base: &[String], edits: &[Edit]) -> Vec<String> {
    let mut lines = base.to_vec();
    for e in edits {
        let n = lines.len();
        match e {
            Edit::Delete(i) if n > 0 => {
                lines.remove(i % n);
            }
            Edit::Insert(i, l) => lines.insert(i % (n + 1), l.clone()),
            Edit::Renew(i, extra) | Edit::Take(i, extra) if n > 0 => {
                let i = i % n;
                let doc = claims_md::parse(&lines[i]);
                let found = doc.claims().next().map(|(_, c)| c.clone());
                if let Some(c) = found {
                    let t = TASKS.iter().position(|t| *t == c.task).unwrap_or(0);
                    let s = SESSIONS.iter().position(|s| *s == c.session).unwrap_or(0);
                    let m = TIMES
                        .iter()
                        .position(|m| rail_core::text::time::parse_time(m).ok() == Some(c.time))
                        .unwrap_or(0);
                    lines[i] = match e {
                        Edit::Renew(..) => claim(t, s, m, *extra),
                        _ => claim(t, *extra, 2, 0),
                    };
                }
            }
            Edit::Move(i, j) if n > 1 => {
                let l = lines.remove(i % n);
                lines.insert(j % n, l);
            }
            _ => {}
        }
    }
    lines
}

#[derive(Clone, Debug)]
struct Case {
    base: String,
    ours: String,
    theirs: String,
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec(line(), 0..12),
        prop::collection::vec(edit(), 0..6),
        prop::collection::vec(edit(), 0..6),
        any::<bool>(),
        (any::<bool>(), any::<bool>(), any::<bool>()),
    )
        .prop_map(|(base, e1, e2, crlf, newlines)| {
            let nl = if crlf { "\r\n" } else { "\n" };
            let join = |lines: &[String], end: bool| {
                let mut s = lines.join(nl);
                if end && !lines.is_empty() {
                    s.push_str(nl);
                }
                s
            };
            Case {
                ours: join(&apply_edits(&base, &e1), newlines.1),
                theirs: join(&apply_edits(&base, &e2), newlines.2),
                base: join(&base, newlines.0),
            }
        })
}

/// Error diagnostics of a text, by code and line content (positions move in a merge).
fn errors(text: &str) -> BTreeSet<(String, String)> {
    let doc = claims_md::parse(text);
    let index = rail_core::text::LineIndex::new(text);
    doc.diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| {
            let line = index.line_of(d.span.start);
            let content = doc.lines[line].content.slice(text);
            (
                d.code.to_string(),
                content.trim_start_matches('\u{feff}').to_string(),
            )
        })
        .collect()
}

/// The claim lines of a task, as written.
fn claims_of(text: &str, task: &str) -> Vec<String> {
    let doc = claims_md::parse(text);
    let mut out: Vec<String> = doc
        .lines
        .iter()
        .filter(|l| matches!(&l.kind, LineKind::Claim(c) if c.task == task))
        .map(|l| {
            l.content
                .slice(text)
                .trim_start_matches('\u{feff}')
                .to_string()
        })
        .collect();
    out.sort();
    out
}

proptest! {
    #![proptest_config(common::cases(1000))]

    #[test]
    fn merge_is_symmetric(c in case()) {
        let one = merge(&c.base, &c.ours, &c.theirs);
        let other = merge(&c.base, &c.theirs, &c.ours);
        prop_assert_eq!(&one.text, &other.text);
        prop_assert_eq!(&one.losers, &other.losers);
    }

    #[test]
    fn an_unchanged_side_gives_the_other(c in case()) {
        prop_assert_eq!(merge(&c.base, &c.ours, &c.base).text, c.ours.clone());
        prop_assert_eq!(merge(&c.base, &c.base, &c.ours).text, c.ours.clone());
        prop_assert_eq!(merge(&c.base, &c.ours, &c.ours).text, c.ours.clone());
    }

    #[test]
    fn merge_adds_no_error(c in case()) {
        let out = merge(&c.base, &c.ours, &c.theirs).text;
        let mut known = errors(&c.base);
        known.extend(errors(&c.ours));
        known.extend(errors(&c.theirs));
        let new: Vec<_> = errors(&out).difference(&known).cloned().collect();
        prop_assert!(new.is_empty(), "new errors {:?} in {:?}", new, out);
    }

    /// A task whose claims both sides agree on keeps exactly those claims.
    #[test]
    fn claims_both_sides_agree_on_survive(c in case()) {
        let out = merge(&c.base, &c.ours, &c.theirs).text;
        for task in TASKS {
            let ours = claims_of(&c.ours, task);
            if ours == claims_of(&c.theirs, task) {
                prop_assert_eq!(claims_of(&out, task), ours, "task {} in {:?}", task, out);
            }
        }
    }

    /// A claim new on one side (a task, session and claim time the base does not have) is never
    /// dropped silently: the merge keeps it, or reports it as the loser to another claim.
    #[test]
    fn new_claims_are_kept_or_reported(c in case()) {
        let result = merge(&c.base, &c.ours, &c.theirs);
        let identity = |text: &str| -> BTreeSet<(String, String, String)> {
            claims_md::parse(text)
                .claims()
                .map(|(_, c)| (c.task.clone(), c.session.clone(), c.time.to_rfc3339()))
                .collect()
        };
        let base = identity(&c.base);
        let kept = identity(&result.text);
        let lost: BTreeSet<_> = result.losers.iter().flat_map(|l| identity(&l.lost_line)).collect();
        for side in [&c.ours, &c.theirs] {
            for id in identity(side).difference(&base) {
                prop_assert!(
                    kept.contains(id) || lost.contains(id),
                    "new claim {:?} vanished from {:?}", id, result.text
                );
            }
        }
    }

    /// A merged file is as good as its sides: every claim in it is one some side wrote.
    #[test]
    fn merged_claims_come_from_a_side(c in case()) {
        let out = merge(&c.base, &c.ours, &c.theirs).text;
        for task in TASKS {
            for line in claims_of(&out, task) {
                prop_assert!(
                    claims_of(&c.ours, task).contains(&line) || claims_of(&c.theirs, task).contains(&line),
                    "{:?} is in neither side", line
                );
            }
        }
    }
}
