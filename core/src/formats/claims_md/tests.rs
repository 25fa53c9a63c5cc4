//! The claims.md parser's tests: lines that are claims and lines that are not, spans, edits.

use super::*;

/// `list_items` against a plain reference: split at commas outside braces, trim, drop empties.
#[test]
fn list_items_split_at_commas_outside_braces() {
    fn reference(v: &str) -> Vec<String> {
        let (mut out, mut cur, mut depth) = (Vec::new(), String::new(), 0usize);
        for c in v.chars() {
            match c {
                '{' => depth += 1,
                '}' => depth = depth.saturating_sub(1),
                _ => {}
            }
            if c == ',' && depth == 0 {
                out.push(std::mem::take(&mut cur));
            } else {
                cur.push(c);
            }
        }
        out.push(cur);
        let items = out.iter().map(|s| s.trim());
        items
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    }
    let cases = [
        "",
        ",",
        "a",
        " a , b ",
        "a,,b,",
        "{a,b}/x, c",
        "{a,{b,c}}/**,d",
        "}a,b{",
        "é, ü/**",
        "src/a/**, src/b/**,src/c.rs",
        "{,}",
        " , a{b , c}d , ",
    ];
    for v in cases {
        let text = format!("xx{v}yy");
        let span = Span::new(2, 2 + v.len());
        let got: Vec<String> = list_items(&text, span)
            .map(|(sp, item)| {
                assert_eq!(sp.slice(&text), item);
                item.to_string()
            })
            .collect();
        assert_eq!(got, reference(v), "{v:?}");
    }
}
use crate::text::edit::apply;

fn kinds(text: &str) -> Vec<&'static str> {
    kinds_of(&parse(text))
}

#[test]
fn seed_line() {
    let doc = parse("auth-refresh | session-a | 2026-10-22T14:05Z\n");
    let (_, c) = doc.claims().next().unwrap();
    assert_eq!(c.task, "auth-refresh");
    assert_eq!(c.session, "session-a");
    assert_eq!(time::format_time(c.time), "2026-10-22T14:05:00Z");
    assert_eq!(c.form, Form::Plain);
    assert!(doc.diagnostics.is_empty());
}

#[test]
fn forms_and_prose() {
    let text = "# Claims\n\nRead this | then that.\n- a | s | 2026-10-22T14:05Z\n1. b | s | 2026-10-22T14:05Z\n| task | session | time |\n|---|---|---|\n| c | s | 2026-10-22T14:05Z |\n";
    assert_eq!(
        kinds(text),
        ["text", "text", "text", "claim", "claim", "text", "text", "claim"]
    );
    assert!(parse(text).diagnostics.is_empty());
}

#[test]
fn code_and_comments_are_never_claims() {
    let text = "```\na | s | 2026-10-22T14:05Z\n```\n<!--\nb | s | 2026-10-22T14:05Z\n-->\n\n    c | s | 2026-10-22T14:05Z\n";
    assert!(parse(text).claims().next().is_none());
    assert!(parse(text).diagnostics.is_empty());
}

#[test]
fn broken_lines_get_diagnostics() {
    let doc = parse("a | s | yesterday\nb | | 2026-10-22T14:05Z\nc | 2026-10-22T14:05Z\nd | s\n../x | s | 2026-10-22T14:05Z\n");
    let codes: Vec<_> = doc.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(
        codes,
        [
            Code::BadTime,
            Code::MissingSession,
            Code::MissingSession,
            Code::MissingTime,
            Code::InvalidTask
        ]
    );
    assert_eq!(
        doc.lines[0].kind,
        LineKind::Broken {
            task: Some("a".into())
        }
    );
}

#[test]
fn a_dated_line_with_a_spaced_task_is_a_broken_claim() {
    // Regression: these were taken for prose, so the claim silently did not count.
    let doc = parse("a b | s | 2026-10-22T14:05Z\n| ça 😀 | s | 2026-10-22T14:05Z |\nRead this | then that.\nSee the | docs | here\n");
    let codes: Vec<_> = doc.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, [Code::InvalidTask, Code::InvalidTask]);
    assert_eq!(kinds_of(&doc), ["broken", "broken", "text", "text"]);
}

fn kinds_of(doc: &RailDoc) -> Vec<&'static str> {
    doc.lines
        .iter()
        .map(|l| match l.kind {
            LineKind::Text => "text",
            LineKind::Claim(_) => "claim",
            LineKind::Broken { .. } => "broken",
            LineKind::ConflictMarker => "marker",
            LineKind::Planned(_) => "planned",
        })
        .collect()
}

#[test]
fn extra_fields() {
    let doc = parse("billing | s | 2026-10-22T14:05Z | lease: 4h | paths: src/billing/**, docs/billing.md | resources: port:3000 | purpose: fix | the totals\n");
    let (_, c) = doc.claims().next().unwrap();
    assert_eq!(c.lease, Some(TimeDelta::hours(4)));
    assert_eq!(c.paths, ["src/billing/**", "docs/billing.md"]);
    let doc = parse("web | s | 2026-10-22T14:05Z | paths: {web,api}/src/**, docs\n");
    assert_eq!(
        doc.claims().next().unwrap().1.paths,
        ["{web,api}/src/**", "docs"]
    );
    assert_eq!(c.resources, ["port:3000"]);
    assert_eq!(c.purpose.as_deref(), Some("fix | the totals"));
    assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
}

#[test]
fn planned_tasks() {
    let text = "## Backlog\n- [ ] search | after: auth | paths: src/search/** | purpose: rebuild it\n- [x] auth\n- [ ] write the docs\n* [ ] lone-task\n";
    let doc = parse(text);
    let planned: Vec<_> = doc
        .lines
        .iter()
        .filter_map(|l| match &l.kind {
            LineKind::Planned(p) => Some((p.task.as_str(), p.done, p.after.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        planned,
        [
            ("search", false, vec!["auth".to_string()]),
            ("auth", true, vec![]),
            ("lone-task", false, vec![])
        ]
    );
    assert!(doc.diagnostics.is_empty());
    let ticked = apply(text, &[tick(&doc, 1).unwrap()]).unwrap();
    assert!(ticked.contains("- [x] search | after: auth"));
    assert_eq!(tick(&doc, 2), None, "already done");
}

#[test]
fn lossless() {
    for text in [
        "",
        "\u{feff}a | s | 2026-10-22T14:05Z\r\nno newline",
        "x\r\n\r\n",
        "tâche | sé | 2026-10-22T14:05Z | purpose: ça 😀",
    ] {
        assert_eq!(parse(text).to_string(), text);
    }
}

#[test]
fn edits_touch_one_field() {
    let text = "# r\na | s | 2026-10-22T14:05Z | purpose: x | y\n| b | s | 2026-10-22T14:05Z |\n";
    let doc = parse(text);
    let e1 = set_field(&doc, 1, "renewed", "2026-10-22T15:00:00Z").unwrap();
    let e2 = set_field(&doc, 2, "lease", "1h").unwrap();
    let out = apply(text, &[e1, e2]).unwrap();
    assert_eq!(out, "# r\na | s | 2026-10-22T14:05Z | renewed: 2026-10-22T15:00:00Z | purpose: x | y\n| b | s | 2026-10-22T14:05Z | lease: 1h |\n");
    let doc = parse(&out);
    assert!(doc.diagnostics.is_empty());
    let out2 = apply(
        &out,
        &[
            remove_field(&doc, 1, "renewed").unwrap(),
            remove_field(&doc, 2, "lease").unwrap(),
        ],
    )
    .unwrap();
    assert_eq!(out2, text);
}
