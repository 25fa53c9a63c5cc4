//! An agent's own task list on the rail (Claude Code's agent teams): a task the lead creates is
//! a backlog entry, the teammate that sets it in progress claims it, and its completion passes
//! Rail's gate (docs/agents.md, "Agent teams drive the rail").
//!
//! The task list names a task by its own id (`"1"`) and a subject (`"alpha"`); the rail by a
//! task id. [`rail_task`] is the one rule from the first to the second; the host keeps which
//! rail task each of a session's list ids became ([`map_dir`], [`mapped`]), because a later
//! `TaskUpdate` names only the list's id.

use serde_json::{Map, Value};

use super::Event;
use crate::text::glob;
use crate::text::ident;

/// What an agent's task list did, as its hook tells it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TaskEvent {
    /// A task was created (Claude Code's `TaskCreated`): it goes on the backlog.
    Created {
        id: String,
        subject: String,
        description: String,
    },
    /// The calling agent is setting the task in progress (a `TaskUpdate` tool call with
    /// `status: "in_progress"`, before it runs): it takes the task's claim, or is denied it.
    Started { id: String },
    /// The task is being marked completed (`TaskCompleted`): Rail's gate decides.
    Completed { id: String, subject: String },
}

/// The longest task-list id Rail keeps (Claude Code's are small numbers).
const MAX_LIST_ID: usize = 64;

/// A task-list id Rail can keep and name (a file name in [`map_dir`]): letters, digits, `-` and `_`, at most 64. A number
/// (`"taskId": 1`) is read as its digits.
fn list_id(v: Option<&Value>) -> Option<String> {
    let id = match v? {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        _ => return None,
    };
    let ok = !id.is_empty()
        && id.len() <= MAX_LIST_ID
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'));
    ok.then_some(id)
}

/// The event of a `TaskCreated` or `TaskCompleted` payload; one without a usable `task_id` is
/// nothing Rail can follow ([`Event::Pass`]).
pub(super) fn list_event(name: &str, payload: &Map<String, Value>) -> Event {
    let Some(id) = list_id(payload.get("task_id")) else {
        return Event::Pass;
    };
    let text = |key: &str| {
        payload
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    Event::Task(if name == "TaskCreated" {
        TaskEvent::Created {
            id,
            subject: text("task_subject"),
            description: text("task_description"),
        }
    } else {
        TaskEvent::Completed {
            id,
            subject: text("task_subject"),
        }
    })
}

/// A `TaskUpdate` tool call: setting a task in progress takes it; any other update writes no
/// file and is let through (a tool call with no targets).
pub(super) fn update_event(input: &Value) -> Event {
    let starts = input.get("status").and_then(Value::as_str) == Some("in_progress");
    match list_id(input.get("taskId")).filter(|_| starts) {
        Some(id) => Event::Task(TaskEvent::Started { id }),
        None => Event::Tool {
            tool: "TaskUpdate".into(),
            targets: Vec::new(),
            unanalysed: Vec::new(),
            commits: Vec::new(),
        },
    }
}

/// The longest task id made from a subject.
const MAX_SLUG: usize = 64;

/// The rail's task id for a task-list task: its subject in lowercase ASCII letters and digits,
/// every other run of characters one `-` (`Fix the login bug!` → `fix-the-login-bug`), at most
/// 64 characters; a subject that leaves nothing (or no valid id) gives `task-<id>`. Only ASCII,
/// so two subjects that look alike never become two ids that look alike.
pub fn rail_task(list_id: &str, subject: &str) -> String {
    let mut slug = String::new();
    for c in subject.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
        if slug.len() >= MAX_SLUG {
            break;
        }
    }
    slug.truncate(MAX_SLUG);
    let slug = slug.trim_end_matches('-');
    if !slug.is_empty() && ident::validate_task(slug).is_ok() {
        slug.to_string()
    } else {
        format!("task-{list_id}")
    }
}

/// The paths a task's description names, where it names them: a line `paths: a/**, b.md`
/// (any case, also as a list item `- paths: …`), comma- or space-separated. Each is a path
/// from the repository's root as a claim holds it; one that is not (`../x`, `./a`) is left out.
pub fn described_paths(description: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in description.lines() {
        let line = line.trim().trim_start_matches(['-', '*']).trim_start();
        let Some((key, rest)) = line.split_once(':') else {
            continue;
        };
        if !key.trim().eq_ignore_ascii_case("paths") {
            continue;
        }
        for p in rest.split([',', ' ', '\t']).filter(|p| !p.is_empty()) {
            let p = p.trim_matches('`');
            if let Ok(n) = glob::normalize(p) {
                if !out.contains(&n) {
                    out.push(n);
                }
            }
        }
    }
    out
}

/// The purpose a backlog entry takes from a subject: one line, no `|` (which would end the
/// entry's field), at most 200 characters.
pub fn purpose_of(subject: &str) -> Option<String> {
    let one: String = subject
        .chars()
        .map(|c| if c == '|' || c.is_control() { ' ' } else { c })
        .take(200)
        .collect();
    let one = one.split_whitespace().collect::<Vec<_>>().join(" ");
    (!one.is_empty()).then_some(one)
}

/// The folder in which the host keeps a session's task-list mapping, one file per list id
/// holding the rail's task: the agent and its session id's letters and digits (at most 64), a
/// plain name. A file per id, so two hooks at once never write one file.
pub fn map_dir(agent: &str, session_id: &str) -> Option<String> {
    let id: String = session_id
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(64)
        .collect();
    (!id.is_empty()).then(|| format!("{agent}-{id}"))
}

/// The rail task a mapping file names, when it names a valid one.
pub fn mapped(text: &str) -> Option<String> {
    let task = text.trim();
    ident::validate_task(task).is_ok().then(|| task.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subject_becomes_a_task_id_or_the_lists_id() {
        assert_eq!(rail_task("1", "alpha"), "alpha");
        assert_eq!(rail_task("2", "Fix the login bug!"), "fix-the-login-bug");
        assert_eq!(rail_task("3", "  --API v2: refresh--  "), "api-v2-refresh");
        assert_eq!(rail_task("4", "ünïcode"), "n-code");
        assert_eq!(rail_task("5", "日本語"), "task-5");
        assert_eq!(rail_task("6", ""), "task-6");
        let long = rail_task("7", &"word ".repeat(40));
        assert!(long.len() <= 64 && !long.ends_with('-'), "{long}");
        assert!(ident::validate_task(&long).is_ok());
    }

    #[test]
    fn paths_come_from_a_paths_line_of_the_description() {
        assert_eq!(described_paths("paths: alpha/**"), ["alpha/**"]);
        assert_eq!(
            described_paths("Build it.\n- Paths: `src/a/**`, docs/a.md  src/a/**\nmore"),
            ["src/a/**", "docs/a.md"]
        );
        assert!(described_paths("no paths here\npath: x").is_empty());
        assert_eq!(described_paths("paths: ../x, ./y, ok/*"), ["ok/*"]);
    }

    #[test]
    fn a_purpose_is_one_line_without_a_bar() {
        assert_eq!(purpose_of("a | b\nc").as_deref(), Some("a b c"));
        assert_eq!(purpose_of(" \n"), None);
    }

    #[test]
    fn the_mapping_is_a_folder_per_session_and_a_file_per_list_id() {
        assert_eq!(
            map_dir("claude", "5f0c2d1e-7a4b-4c39").as_deref(),
            Some("claude-5f0c2d1e7a4b4c39")
        );
        assert_eq!(map_dir("claude", "--"), None);
        assert_eq!(mapped("alpha\n").as_deref(), Some("alpha"));
        assert_eq!(mapped("../x"), None);
        assert_eq!(mapped(""), None);
    }

    /// The payloads as Claude Code 2.1.332 sent them (tests/fixtures/hooks/claude/task-*.json).
    #[test]
    fn task_events_are_read_from_the_payloads() {
        let payload = |json: &str| match serde_json::from_str::<Value>(json).unwrap() {
            Value::Object(m) => m,
            _ => unreachable!(),
        };
        let created = payload(
            r#"{"session_id":"s","hook_event_name":"TaskCreated","task_id":"1","task_subject":"alpha","task_description":"paths: alpha/**"}"#,
        );
        assert_eq!(
            list_event("TaskCreated", &created),
            Event::Task(TaskEvent::Created {
                id: "1".into(),
                subject: "alpha".into(),
                description: "paths: alpha/**".into()
            })
        );
        let done = payload(r#"{"task_id":2,"task_subject":"b"}"#);
        assert_eq!(
            list_event("TaskCompleted", &done),
            Event::Task(TaskEvent::Completed {
                id: "2".into(),
                subject: "b".into()
            })
        );
        assert_eq!(
            list_event("TaskCompleted", &payload(r#"{"task_id":"a b"}"#)),
            Event::Pass
        );
        let start = serde_json::json!({"taskId": "1", "status": "in_progress"});
        assert_eq!(
            update_event(&start),
            Event::Task(TaskEvent::Started { id: "1".into() })
        );
        let finish = serde_json::json!({"taskId": "1", "status": "completed"});
        assert!(
            matches!(update_event(&finish), Event::Tool { ref targets, .. } if targets.is_empty())
        );
    }
}
