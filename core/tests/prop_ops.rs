//! Property tests of the operation planners: on random rails and requests, a plan's edits apply,
//! touch only the lines of the task they are about (or append a line), leave every other line as
//! it was, add no error, and do what the operation promises.

#![allow(clippy::disallowed_methods, reason = "tests are not in the wasm build")]

mod common;

use proptest::prelude::*;
use rail_core::change::ops::{plan, ClaimRequest, RefusalKind, Request};
use rail_core::change::snapshot::{self, Planning, SharedFiles};
use rail_core::formats::claim_file;
use rail_core::formats::claims_md::{self, LineKind, RailDoc};
use rail_core::model::input::{Facts, FileText, RailTexts};
use rail_core::model::{Claim, Rail};
use rail_core::text::diagnostic::Severity;
use rail_core::text::edit::apply;
use rail_core::text::glob;
use rail_core::text::time::parse_time;

const TASKS: [&str; 5] = ["t1", "t2", "t3", "t4", "t5"];
const SESSIONS: [&str; 3] = ["s1", "s2", "s3"];
/// Relative to now (15:00): live, expiring, stale.
const TIMES: [&str; 3] = [
    "2026-10-22T14:50Z",
    "2026-10-22T13:10Z",
    "2026-10-22T11:00Z",
];
const PATHS: [&str; 6] = [
    "src/a/**",
    "src/a/x.ts",
    "src/*.ts",
    "docs/**",
    "web/b.ts",
    "lib",
];
const RESOURCES: [&str; 3] = ["port:1", "shared:port:1", "db"];

fn subset(items: &'static [&'static str]) -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(prop::sample::select(items), 0..3).prop_map(|v| {
        let mut out: Vec<String> = Vec::new();
        for i in v {
            if !out.iter().any(|o| o == i) {
                out.push(i.to_string());
            }
        }
        out
    })
}

fn claim_line() -> impl Strategy<Value = String> {
    (
        0..3usize,
        prop::sample::select(&TASKS[..4]),
        prop::sample::select(&SESSIONS[..]),
        prop::sample::select(&TIMES[..]),
        subset(&PATHS),
        subset(&RESOURCES),
        prop::collection::vec(
            prop::sample::select(
                &[
                    "renewed: 2026-10-22T14:00Z",
                    "pid: 1@h",
                    "lease: 1h",
                    "purpose: fix | it",
                    "after: t1",
                ][..],
            ),
            0..2,
        ),
    )
        .prop_map(|(form, task, session, time, paths, resources, extra)| {
            let mut fields: Vec<String> = Vec::new();
            if !paths.is_empty() {
                fields.push(format!("paths: {}", paths.join(", ")));
            }
            if !resources.is_empty() {
                fields.push(format!("resources: {}", resources.join(", ")));
            }
            let mut extra = extra;
            extra.dedup();
            // purpose runs to the end of a plain line: keep it last.
            extra.sort_by_key(|f| f.starts_with("purpose"));
            for f in extra {
                fields.push(if form == 2 {
                    f.replace(" | ", " \\| ")
                } else {
                    f.to_string()
                });
            }
            let mut line = format!("{task} | {session} | {time}");
            for f in fields {
                line.push_str(" | ");
                line.push_str(&f);
            }
            match form {
                0 => line,
                1 => format!("- {line}"),
                _ => format!("| {line} |"),
            }
        })
}

fn rail_line() -> impl Strategy<Value = String> {
    prop_oneof![
        12 => claim_line(),
        2 => Just("# Claims".to_string()),
        4 => Just(String::new()),
        2 => Just("Prose | with a pipe.".to_string()),
        1 => Just("t4 | s2 | yesterday".to_string()),
    ]
}

#[derive(Clone, Debug)]
struct Case {
    texts: RailTexts,
    facts: Facts,
    session: String,
    request: Request,
}

fn request() -> impl Strategy<Value = Request> {
    let task = prop::sample::select(&TASKS[..]).prop_map(str::to_string);
    prop_oneof![
        3 => (task.clone(), subset(&PATHS), subset(&RESOURCES)).prop_map(|(task, paths, resources)| {
            Request::Claim(ClaimRequest { task, paths, resources, ..Default::default() })
        }),
        2 => (task.clone(), subset(&PATHS)).prop_map(|(task, touched)| Request::Release { task, touched, done: false }),
        2 => task.clone().prop_map(|task| Request::Renew { task }),
        2 => task.clone().prop_map(|task| Request::Take { task, reason: None, branch: None }),
        2 => (task.clone(), subset(&PATHS), prop::option::of(subset(&RESOURCES))).prop_map(|(task, paths, resources)| {
            Request::Update { task, paths: Some(paths), resources, purpose: None, add_paths: Vec::new(), add_resources: Vec::new() }
        }),
        1 => (task.clone(), subset(&PATHS).prop_filter("something to add", |v| !v.is_empty())).prop_map(|(task, add_paths)| {
            Request::Update { task, paths: None, resources: None, purpose: None, add_paths, add_resources: Vec::new() }
        }),
        1 => (task, subset(&PATHS)).prop_map(|(task, paths)| {
            Request::Plan { task, paths, purpose: Some("planned".into()) }
        }),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec(rail_line(), 0..10),
        any::<bool>(),
        any::<bool>(),
        prop::option::of((
            prop::sample::select(&SESSIONS[..]),
            subset(&PATHS),
            prop::sample::select(&TIMES[..]),
        )),
        prop::sample::select(&SESSIONS[..]),
        request(),
        prop::option::of(any::<bool>()),
        (
            any::<prop::sample::Index>(),
            0..4u8,
            prop::sample::select(&SESSIONS[..]),
        ),
    )
        .prop_map(
            |(lines, crlf, final_newline, file, session, request, alive, (pick, bias, other))| {
                let nl = if crlf { "\r\n" } else { "\n" };
                let mut text = lines.join(nl);
                if final_newline && !lines.is_empty() {
                    text.push_str(nl);
                }
                let claim_files: Vec<FileText> = file
                    .map(|(owner, paths, since)| {
                        let paths = paths.iter().map(|p| format!("- {p}\n")).collect::<String>();
                        FileText {
                            path: format!("claims/{owner}.yaml"),
                            text: format!(
                                "owner: {owner}\ntask: t5\npaths:\n{paths}since: {since}\n"
                            ),
                            modified: None,
                        }
                    })
                    .into_iter()
                    .collect();
                let mut facts = Facts::at(parse_time("2026-10-22T15:00Z").unwrap());
                facts.host = "h".into();
                if let Some(alive) = alive {
                    facts.processes.insert("1@h".into(), alive);
                }
                // Mostly ask about a task that is claimed, as its owner or (for take) as another
                // session, so that plans and not only refusals are exercised.
                let mut session = session.to_string();
                let mut request = request;
                let mut claimed: Vec<(String, String)> = claims_md::parse(&text)
                    .claims()
                    .map(|(_, c)| (c.task.clone(), c.session.clone()))
                    .collect();
                for f in &claim_files {
                    let owner = f
                        .path
                        .trim_start_matches("claims/")
                        .trim_end_matches(".yaml");
                    claimed.push(("t5".to_string(), owner.to_string()));
                }
                if bias > 0 && !claimed.is_empty() {
                    let (task, owner) = claimed[pick.index(claimed.len())].clone();
                    let not_owner = SESSIONS
                        .iter()
                        .find(|s| **s != owner && **s != other)
                        .unwrap_or(&other);
                    session = match request {
                        Request::Take { .. } if other == owner => not_owner.to_string(),
                        Request::Take { .. } => other.to_string(),
                        Request::Claim(_) if bias == 1 => other.to_string(),
                        _ => owner,
                    };
                    match &mut request {
                        Request::Claim(r) => r.task = task,
                        Request::Release { task: t, .. }
                        | Request::Renew { task: t }
                        | Request::Take { task: t, .. }
                        | Request::Update { task: t, .. }
                        | Request::Plan { task: t, .. } => *t = task,
                    }
                }
                Case {
                    texts: RailTexts {
                        claims: Some(FileText {
                            path: "claims.md".into(),
                            text,
                            modified: None,
                        }),
                        claim_files,
                        log: None,
                        config: None,
                    },
                    facts,
                    session,
                    request,
                }
            },
        )
}

fn errors(doc: &RailDoc) -> usize {
    doc.diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count()
}

/// Contents of the lines that are not claims of `task`, in order.
fn other_lines(doc: &RailDoc, task: &str) -> Vec<String> {
    doc.lines
        .iter()
        .filter(|l| match &l.kind {
            LineKind::Claim(c) => c.task != task,
            // The task's own backlog entry (a plan appends it, a passing gate ticks it).
            LineKind::Planned(p) => p.task != task,
            _ => true,
        })
        .map(|l| l.content.slice(doc.text()).to_string())
        .collect()
}

proptest! {
    #![proptest_config(common::cases(1000))]

    #[test]
    fn plans_touch_only_their_task(c in case()) {
        let text = c.texts.claims.as_ref().unwrap().text.clone();
        let before = claims_md::parse(&text);
        let task = c.request.task().to_string();
        let result = plan(&c.texts, &c.facts, &c.session, &c.request);
        let plan = match result {
            Err(refusal) => {
                prop_assert!(refusal.kind != RefusalKind::BadInput, "valid request refused as bad input: {:?}", refusal);
                return Ok(());
            }
            Ok(plan) => plan,
        };
        if plan.noop {
            prop_assert!(plan.edits.is_empty());
            prop_assert!(plan.log_line.is_none());
            return Ok(());
        }
        prop_assert!(plan.log_line.is_some());
        let mut after_text = text.clone();
        let mut after_texts = c.texts.clone();
        for file in &plan.edits {
            if file.file == "claims.md" {
                // Every edit is inside a line claiming this task, or appends at the end.
                for e in &file.edits {
                    let appends = e.span.is_empty() && e.span.start == text.len();
                    let inside_task_line = before.lines.iter().any(|l| {
                        matches!(&l.kind, LineKind::Claim(cl) if cl.task == task)
                            && l.full.start <= e.span.start
                            && e.span.end <= l.full.end
                    });
                    prop_assert!(appends || inside_task_line, "edit {:?} strays outside task {}'s lines in {:?}", e, task, text);
                }
                after_text = apply(&text, &file.edits).unwrap();
                after_texts.claims.as_mut().unwrap().text = after_text.clone();
            } else {
                let original = after_texts.claim_files.iter_mut().find(|f| f.path == file.file).unwrap();
                let edited = apply(&original.text, &file.edits).unwrap();
                let parsed = claim_file::parse(&file.file, &edited);
                prop_assert!(
                    parsed.diagnostics.iter().all(|d| d.severity != Severity::Error),
                    "{:?} became {:?}: {:?}", original.text, edited, parsed.diagnostics
                );
                original.text = edited;
            }
        }
        let after = claims_md::parse(&after_text);
        prop_assert!(errors(&after) <= errors(&before), "new errors in {:?}", after_text);
        prop_assert_eq!(other_lines(&after, &task), other_lines(&before, &task), "other lines changed: {:?} -> {:?}", text, after_text);
        // What the operation promised, judged on the whole rail afterwards (claim files too).
        let now = c.facts.now;
        let eval = Rail::load(&after_texts).evaluate(&c.facts);
        let mine: Vec<&Claim> = eval
            .claims
            .iter()
            .filter(|cl| cl.task.as_deref() == Some(task.as_str()) && cl.session == c.session)
            .collect();
        let normalized = |v: &[String]| v.iter().map(|p| glob::normalize(p).unwrap()).collect::<Vec<_>>();
        match &c.request {
            Request::Claim(req) => {
                prop_assert_eq!(mine.len(), 1, "{:?}", after_text);
                prop_assert_eq!(mine[0].claimed_at, Some(now));
                prop_assert_eq!(&mine[0].paths, &normalized(&req.paths));
            }
            Request::Release { .. } => {
                prop_assert!(mine.is_empty(), "still claimed: {:?}", after_texts);
            }
            Request::Renew { .. } => {
                prop_assert!(!mine.is_empty());
                for claim in &mine {
                    prop_assert_eq!(claim.renewed_at, Some(now));
                }
            }
            Request::Take { .. } => {
                prop_assert!(mine.iter().any(|cl| cl.claimed_at == Some(now)), "{:?}", after_texts);
            }
            Request::Plan { .. } => {
                prop_assert!(
                    eval.planned_of(&task).is_some() || !eval.claims_of(&task).is_empty(),
                    "{:?}", after_texts
                );
            }
            Request::Update { paths, resources, add_paths, .. } => {
                // The session's first claim of the task is the one updated; a second claim of
                // the same task by the same session (a duplicate, itself an error) is left as it is.
                prop_assert!(
                    mine.iter().any(|cl| paths.as_ref().is_none_or(|p| cl.paths == normalized(p))
                        && resources.as_ref().is_none_or(|r| &cl.resources == r)),
                    "no claim of {} by {} was updated: {:?}", task, c.session, after_texts
                );
                // What is added is held afterwards, and nothing held before is lost.
                let held_before = Rail::load(&c.texts).evaluate(&c.facts);
                let before: Vec<String> = held_before.claims.iter()
                    .find(|cl| cl.session == c.session && cl.task.as_deref() == Some(task.as_str()))
                    .map(|cl| cl.paths.clone())
                    .unwrap_or_default();
                if paths.is_none() && !add_paths.is_empty() {
                    for p in normalized(add_paths).iter().chain(&before) {
                        prop_assert!(mine.iter().any(|cl| cl.paths.contains(p)), "{p} not held after adding {:?}: {:?}", add_paths, after_texts);
                    }
                }
            }
        }
    }
}

/// A row of operations, each by a session at a minute after 15:00, on a rail of lines that may
/// open or close code and comments, with a claim file of `t5` and a log.
fn row() -> impl Strategy<Value = (SharedFiles, Vec<(String, Request, i64)>)> {
    let line = prop_oneof![
        8 => rail_line(),
        1 => Just("```".to_string()),
        1 => Just("<!--".to_string()),
        1 => Just("-->".to_string()),
        1 => Just("    t3 | s1 | 2026-10-22T14:50Z".to_string()),
    ];
    (
        prop::collection::vec(line, 0..8),
        any::<bool>(),
        prop::collection::vec(
            (prop::sample::select(&SESSIONS[..]), request(), 0..90i64),
            1..8,
        ),
    )
        .prop_map(|(lines, file, ops)| {
            let mut files = SharedFiles::new();
            files.insert("claims.md".into(), lines.join("\n"));
            files.insert(
                "claims.log".into(),
                "2026-10-22T14:00Z claimed t1 by s1\n".into(),
            );
            if file {
                files.insert(
                    "claims/s2.yaml".into(),
                    "owner: s2\ntask: t5\npaths:\n- lib\nsince: 2026-10-22T14:50Z\n".into(),
                );
            }
            let ops = (ops.into_iter())
                .map(|(s, r, minute)| (s.to_string(), r, minute))
                .collect();
            (files, ops)
        })
}

proptest! {
    #![proptest_config(common::cases(500))]

    /// Operations planned in a row on one `Planning` (a round's fold, a proof's replay: each
    /// state's claims.md parsed once) plan and write exactly what `ops::plan` does on each
    /// state's texts, parsed from scratch.
    #[test]
    fn a_row_planned_on_one_parse_is_the_row_planned_anew((files, ops) in row()) {
        let mut planning = Planning::new(files.clone());
        let mut anew = files;
        for (session, request, minute) in &ops {
            let mut facts = Facts::at(parse_time("2026-10-22T15:00Z").unwrap());
            facts.now += chrono::Duration::minutes(*minute);
            let kept = planning.plan(&facts, session, request);
            let fresh = plan(&snapshot::texts(&anew), &facts, session, request);
            prop_assert_eq!(&kept, &fresh);
            if let Ok(p) = fresh {
                if !p.noop {
                    let a = planning.apply(&p, &[]).map_err(|e| e.to_string());
                    let b = snapshot::apply_plan(&anew, &p, &[]).map_err(|e| e.to_string());
                    prop_assert_eq!(&a, &b);
                    anew.extend(b.unwrap_or_default());
                }
            }
            prop_assert_eq!(planning.files(), &anew);
        }
    }
}
