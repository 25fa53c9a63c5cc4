//! Claude Code: its hook payloads (PreToolUse, PostToolUse and PostToolUseFailure for Edit,
//! Write, MultiEdit, NotebookEdit, Bash and `mcp__*` tools; Stop; SessionEnd; WorktreeCreate and
//! WorktreeRemove; an agent team's TaskCreated, TaskUpdate, TaskCompleted, TeammateIdle and
//! SubagentStop), its answer — a block is
//! exit 2 with the reason on stderr; a worktree made is its path alone on stdout — and what `rail
//! init --agents` installs (`.claude/settings.json`, `.mcp.json`).
//!
//! WorktreeCreate replaces Claude Code's own `git worktree add` (`claude --worktree NAME`, a
//! subagent's worktree isolation): the hook makes the worktree and prints its path, and Rail
//! makes a station there. Its contract, as 2.1.332 keeps it: the payload's `name` is the
//! worktree's name (`worktree_name` in some documentation, read too); exit 0 with the path on
//! stdout makes the session start there, any other exit fails `claude` with the hook's stderr.
//! WorktreeRemove carries `worktree_path` and comes only for a worktree such a hook made.
//!
//! Its settings file is also loaded by VS Code's agent (camelCase payloads, its own tool names)
//! and by Cursor (opt-in): the Claude hook recognises their payloads by shape ([`Spec::guest`])
//! and reads them with their own tool tables.

use serde_json::{json, Map, Value};

use super::{
    copilot, cursor, field, is_version, mcp_by_name, vscode, Agent, Answer, Event, Harness,
    Outcome, Spec, ToolWrites, WorktreeDone, WorktreeEvent,
};
use crate::agent::setup::{self, FileChanges};
use crate::formats::jsonc::Change;

pub const AGENT: Agent = Agent::new(&Claude);

struct Claude;

/// Claude Code's blocking exit code (also VS Code's and Cursor's for Claude-format hooks).
pub const CLAUDE_BLOCK: i32 = 2;

/// Whether a hook entry is Rail's Claude hook.
pub(super) fn ours(v: &Value) -> bool {
    setup::runs(v, "hook claude")
}

/// Claude Code's hook groups (`.claude/settings.json`), also run by VS Code's agent and, opt-in,
/// by Cursor.
pub fn hooks(rail: &str) -> Vec<(&'static str, Value)> {
    let command = format!("{rail} hook claude");
    let hook = |timeout: u32| json!({ "type": "command", "command": command, "timeout": timeout });
    let tools = "Edit|Write|MultiEdit|NotebookEdit|Bash|mcp__.*";
    vec![
        // TaskUpdate too: a teammate setting a task in progress takes its claim.
        (
            "PreToolUse",
            json!({ "matcher": format!("{tools}|TaskUpdate"), "hooks": [hook(10)] }),
        ),
        // After the tool: what it changed in other sessions' paths is checked and put back.
        (
            "PostToolUse",
            json!({ "matcher": tools, "hooks": [hook(10)] }),
        ),
        // A call that failed (a Bash command's non-zero exit) reaches this event instead of
        // PostToolUse (seen in 2.1.332), and may have written all the same.
        (
            "PostToolUseFailure",
            json!({ "matcher": tools, "hooks": [hook(10)] }),
        ),
        ("Stop", json!({ "hooks": [hook(10)] })),
        ("SessionEnd", json!({ "hooks": [hook(30)] })),
        // An agent team's task list: a task created is on the backlog; its completion passes
        // Rail's gate, which runs the check (the bound is the hook's own, GATE_BUDGET_MS).
        ("TaskCreated", json!({ "hooks": [hook(10)] })),
        (TASK_COMPLETED, json!({ "hooks": [hook(GATE_TIMEOUT_S)] })),
        // An idle teammate renews like a Stop; a subagent's end releases its own claims.
        ("TeammateIdle", json!({ "hooks": [hook(10)] })),
        ("SubagentStop", json!({ "hooks": [hook(30)] })),
        // `claude --worktree NAME` makes a Rail station (a fresh checkout of a large repository
        // takes a while: the bound is the hook's own, WORKTREE_BUDGET_MS).
        (
            WORKTREE_CREATE,
            json!({ "hooks": [hook(WORKTREE_TIMEOUT_S)] }),
        ),
        (
            WORKTREE_REMOVE,
            json!({ "hooks": [hook(WORKTREE_TIMEOUT_S)] }),
        ),
    ]
}

const WORKTREE_CREATE: &str = "WorktreeCreate";
const TASK_COMPLETED: &str = "TaskCompleted";

/// The timeout Rail installs on TaskCompleted (the gate runs rail.yaml's check), and the time
/// it allows itself within it.
const GATE_TIMEOUT_S: u32 = 600;
const GATE_BUDGET_MS: u64 = 590_000;
const WORKTREE_REMOVE: &str = "WorktreeRemove";

/// The timeout Rail installs on its worktree hooks, and the time it allows itself within it.
const WORKTREE_TIMEOUT_S: u32 = 300;
const WORKTREE_BUDGET_MS: u64 = 290_000;

/// A longer `worktree_path` is no path Rail made.
const MAX_PATH_LEN: usize = 4096;

/// What leaving a user's own worktree hook means.
const THEIR_WORKTREE_HOOK: &str = "Claude Code runs every WorktreeCreate hook and uses one path, so Rail's is not added beside a hook of your own: `claude --worktree` keeps making its worktrees with yours, and `rail worktree guard PATH` guards each one";

/// `.claude/settings.json` with Rail's hook groups (VS Code's agent runs the same file). The
/// worktree pair goes in only where no hook of the user's answers either event.
pub(super) fn settings(rail: &str) -> FileChanges {
    let among = || {
        [WORKTREE_CREATE, WORKTREE_REMOVE]
            .map(|e| vec!["hooks".to_string(), e.to_string()])
            .to_vec()
    };
    FileChanges::Json {
        path: ".claude/settings.json",
        changes: hooks(rail)
            .into_iter()
            .map(|(event, group)| match event {
                WORKTREE_CREATE | WORKTREE_REMOVE => Change::UpsertAlone {
                    path: vec!["hooks".into(), event.into()],
                    ours,
                    value: group,
                    among: among(),
                    note: THEIR_WORKTREE_HOOK,
                },
                _ => setup::upsert(&["hooks", event], ours, group),
            })
            .collect(),
    }
}

/// A worktree event's payload: the name of the worktree to make (a valid task id: it becomes
/// the station's task; a name that is not one is refused, never rewritten, so two names never
/// become one task), or the absolute path of the one to close.
fn worktree(event: &str, payload: &Map<String, Value>) -> Result<WorktreeEvent, String> {
    let text = |key: &str| payload.get(key).and_then(Value::as_str);
    if event == WORKTREE_REMOVE {
        let path = text("worktree_path")
            .filter(|p| !p.is_empty())
            .ok_or("Rail: WorktreeRemove without `worktree_path`: no station is closed")?;
        if !std::path::Path::new(path).is_absolute()
            || path.chars().any(char::is_control)
            || path.len() > MAX_PATH_LEN
        {
            return Err(format!(
                "Rail: WorktreeRemove names `{}`, not an absolute path: no station is closed",
                crate::text::terminal_safe(path)
            ));
        }
        return Ok(WorktreeEvent::Remove { path: path.into() });
    }
    let name = text("name")
        .or_else(|| text("worktree_name"))
        .ok_or("Rail: WorktreeCreate without a worktree `name`: no station is made")?;
    let refuse = |why: String| {
        format!(
            "Rail: the worktree name becomes the station's task id and branch, and {why}: no station is made. Name it with ASCII letters, digits and . _ - (`claude --worktree auth-fix`)"
        )
    };
    crate::text::ident::validate_task(name).map_err(|e| refuse(e.0))?;
    // Claude Code's own rule for a segment; a task id has one (no `/`). Nothing else reaches a
    // branch or a directory name.
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
    {
        return Err(refuse(format!(
            "`{}` holds `{c}`",
            crate::text::terminal_safe(name)
        )));
    }
    Ok(WorktreeEvent::Create { name: name.into() })
}

/// The answer in Claude Code's format (VS Code's agent and Cursor read it too).
pub(super) fn answer(outcome: &Outcome) -> Answer {
    match outcome {
        Outcome::Allow | Outcome::Lifecycle(None) => Answer::QUIET,
        // Never an "allow", which would skip the user's own permission prompts.
        Outcome::Warn(m) => Answer::json(json!({
            "systemMessage": m,
            "hookSpecificOutput": { "hookEventName": "PreToolUse", "additionalContext": m }
        })),
        // After the tool, exit 2 puts stderr before the model at once (the tool already ran).
        Outcome::Deny(m) | Outcome::After(m) => Answer {
            stdout: None,
            stderr: Some(m.clone()),
            code: CLAUDE_BLOCK,
        },
        Outcome::Lifecycle(Some(m)) => Answer::json(json!({ "systemMessage": m })),
        // The path alone: Claude Code takes stdout as the worktree's path (a JSON answer there
        // fails the worktree as "not a directory").
        Outcome::Worktree(Ok(WorktreeDone::Made(path))) => Answer {
            stdout: Some(path.clone()),
            ..Answer::QUIET
        },
        Outcome::Worktree(Ok(WorktreeDone::Closed(m))) => Answer {
            stderr: Some(m.clone()),
            ..Answer::QUIET
        },
        // Any exit but 0 fails it; Claude Code shows stderr (`Error creating worktree: …`).
        Outcome::Worktree(Err(m)) => Answer {
            stdout: None,
            stderr: Some(m.clone()),
            code: WORKTREE_REFUSED,
        },
    }
}

/// The exit code of a worktree event Rail refused (any but 0 fails it).
const WORKTREE_REFUSED: i32 = 1;

impl Spec for Claude {
    fn name(&self) -> &'static str {
        "claude"
    }

    fn title(&self) -> &'static str {
        "Claude Code"
    }

    fn hook_help(&self) -> Option<&'static str> {
        Some("Claude Code: PreToolUse, PostToolUse and PostToolUseFailure (Edit, Write, MultiEdit, NotebookEdit, Bash, MCP), Stop, SessionEnd, WorktreeCreate and WorktreeRemove (`claude --worktree NAME` makes a Rail station), an agent team's TaskCreated (the backlog), TaskUpdate (the claim), TaskCompleted (the gate), TeammateIdle and SubagentStop; also VS Code's agent and Cursor, which load Claude Code's settings file")
    }

    /// VS Code's agent writes camelCase (`hookEventName`, `sessionId`); Cursor sends
    /// `conversation_id` and `cursor_version`, and is answered Claude's way. GitHub Copilot CLI
    /// (1.0.102) runs Claude Code's settings file's hooks too, with Claude's names and a
    /// `timestamp` Claude Code never sends: it is Copilot's session (the one its own hooks
    /// name), answered Claude's way.
    fn guest(&self, payload: &Map<String, Value>) -> Option<Harness> {
        if payload.contains_key("timestamp") && payload.contains_key("hook_event_name") {
            Some(Harness {
                sender: copilot::AGENT,
                answers_as: AGENT,
            })
        } else if payload.contains_key("cursor_version") || payload.contains_key("conversation_id")
        {
            Some(Harness {
                sender: cursor::AGENT,
                answers_as: AGENT,
            })
        } else if payload.contains_key("hookEventName") || payload.contains_key("sessionId") {
            Some(Harness::of(vscode::AGENT))
        } else {
            None
        }
    }

    fn event(&self, _: Harness, name: &str, payload: &Map<String, Value>) -> Option<Event> {
        match name {
            "PreToolUse"
                if payload.get("tool_name").and_then(Value::as_str) == Some("TaskUpdate") =>
            {
                Some(super::team::update_event(
                    payload.get("tool_input").unwrap_or(&Value::Null),
                ))
            }
            "PreToolUse" => Some(super::tool_call(self, payload, false)),
            "TaskCreated" | TASK_COMPLETED => Some(super::team::list_event(name, payload)),
            // An idle teammate is a turn's end; a subagent's end (its `agent_id`) is that
            // session's end. A SubagentStop without one would read as the lead's end: passed.
            "TeammateIdle" => Some(Event::Stop),
            "SubagentStop"
                if payload
                    .get("agent_id")
                    .and_then(Value::as_str)
                    .is_some_and(|a| !a.is_empty()) =>
            {
                Some(Event::SessionEnd)
            }
            "SubagentStop" => Some(Event::Pass),
            "PostToolUse" | "PostToolUseFailure" => Some(super::after_tool(payload, "tool_name")),
            WORKTREE_CREATE | WORKTREE_REMOVE => Some(Event::Worktree(worktree(name, payload))),
            _ => None,
        }
    }

    fn tool(
        &self,
        tool: &str,
        input: &Value,
        _: &Map<String, Value>,
    ) -> Result<ToolWrites, String> {
        let mut found = ToolWrites::default();
        match tool {
            // Copilot CLI's apply_patch, through this file's hooks: `Edit` with the patch as its
            // input (Claude Code's own input is always an object).
            "Edit" if input.is_string() => {
                super::apply_patch(input.as_str().unwrap_or_default(), &mut found)?
            }
            "Edit" | "Write" | "MultiEdit" => {
                found.targets.push(field(tool, input, &["file_path"])?)
            }
            "NotebookEdit" => found.targets.push(field(tool, input, &["notebook_path"])?),
            "Bash" => super::command(tool, input, None, &mut found)?,
            _ => mcp_by_name(tool, input, &mut found),
        }
        Ok(found)
    }

    fn answer(&self, outcome: &Outcome) -> Answer {
        answer(outcome)
    }

    /// Claude Code's SessionEnd budget is 1.5 s unless a hook's `timeout` raises it (Rail
    /// installs 30 s): the default holds. A worktree event has the timeout Rail installs on it.
    fn lifecycle_budget_ms(&self, event: &Event) -> u64 {
        match event {
            Event::Worktree(_) => WORKTREE_BUDGET_MS,
            Event::Task(super::team::TaskEvent::Completed { .. }) => GATE_BUDGET_MS,
            _ => 5_000,
        }
    }

    fn project_dir_vars(&self) -> &'static [&'static str] {
        &["CLAUDE_PROJECT_DIR"]
    }

    /// Claude Code names itself in its hooks' environment: `AI_AGENT=claude-code_2-1-332_harness`
    /// (seen in 2.1.332; the payload carries no version).
    fn version(
        &self,
        _payload: &Map<String, Value>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Option<String> {
        let tag = env("AI_AGENT")?;
        let mut parts = tag.split('_');
        (parts.next()? == "claude-code")
            .then(|| parts.next())
            .flatten()
            .map(|v| v.replace('-', "."))
            .filter(|v| is_version(v))
    }

    fn markers(&self) -> &'static [&'static str] {
        &[".claude", "CLAUDE.md", ".mcp.json"]
    }

    fn needs(&self) -> &'static str {
        "approve the project MCP server `rail` when Claude Code asks (or in /mcp); the hooks in .claude/settings.json apply from the next session (review them in /hooks)"
    }

    fn files(&self, rail: &str, rail_exe: &str) -> Vec<FileChanges> {
        vec![
            settings(rail),
            setup::set_json(
                ".mcp.json",
                &["mcpServers", "rail"],
                setup::mcp_stdio(rail_exe),
            ),
        ]
    }

    fn evidence_files(&self) -> &'static [&'static str] {
        &[".claude/settings.json", ".claude/settings.local.json"]
    }

    /// Claude Code merges `.claude/settings.local.json` over `.claude/settings.json`.
    fn station_paths(&self) -> &'static [(&'static str, &'static str)] {
        &[(".claude/settings.json", ".claude/settings.local.json")]
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::read;
    use super::super::tests::tool;
    use super::super::Harness;
    use super::*;

    /// GitHub Copilot CLI 1.0.102 runs this file's hooks too: Claude's names, a `timestamp`, and
    /// its apply_patch as `Edit` with the patch for input (recorded by bench/collisions). It is
    /// Copilot's session, the patch's files its targets, answered Claude's way.
    #[test]
    fn copilot_through_claudes_settings_is_copilot_and_its_patch_is_read() {
        let call = read(
            AGENT,
            r#"{"hook_event_name":"PreToolUse","session_id":"7d1bf381-0000-4000-8000-000774f6842a","timestamp":"2026-12-06T08:13:04.410Z","cwd":"/w","tool_name":"Edit","tool_input":"*** Begin Patch\n*** Update File: src/auth/token.ts\n@@\n-a\n+b\n*** End Patch\n"}"#,
        );
        assert_eq!(
            call.harness,
            Harness {
                sender: copilot::AGENT,
                answers_as: AGENT
            }
        );
        assert_eq!(tool(&call).0, ["src/auth/token.ts"]);
        // Claude Code's own Edit is read as before.
        let own = read(
            AGENT,
            r#"{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/w","tool_name":"Edit","tool_input":{"file_path":"/w/src/a.ts","old_string":"a","new_string":"b"}}"#,
        );
        assert_eq!(own.harness, Harness::of(AGENT));
        assert_eq!(tool(&own).0, ["/w/src/a.ts"]);
    }

    #[test]
    fn the_claude_hook_knows_vscode_and_cursor_payloads() {
        let vs = read(
            AGENT,
            r#"{"hookEventName":"PreToolUse","sessionId":"s","cwd":"/w","tool_name":"replace_string_in_file","tool_input":{"filePath":"/w/src/a.ts"}}"#,
        );
        assert_eq!(vs.harness, Harness::of(vscode::AGENT));
        assert_eq!(tool(&vs).0, ["/w/src/a.ts"]);
        let read_only = read(
            AGENT,
            r#"{"hookEventName":"PreToolUse","sessionId":"s","cwd":"/w","tool_name":"read_file","tool_input":{"filePath":"/w/src/a.ts"}}"#,
        );
        assert_eq!(tool(&read_only), (&[][..], &[][..]));
        let cursor = read(
            AGENT,
            r#"{"hook_event_name":"preToolUse","conversation_id":"c","cursor_version":"3.9","workspace_roots":["/w"],"tool_name":"Write","tool_input":{"file_path":"/w/x"}}"#,
        );
        assert_eq!(
            cursor.harness,
            Harness {
                sender: cursor::AGENT,
                answers_as: AGENT
            }
        );
        assert_eq!(cursor.cwd.as_deref(), Some("/w"));
        assert_eq!(tool(&cursor).0, ["/w/x"]);
    }

    /// The payloads as Claude Code 2.1.332 sent them (tests/fixtures/hooks/claude/worktree-*.json).
    #[test]
    fn worktree_events_read_a_task_name_or_an_absolute_path_and_nothing_else() {
        let create = |name: &str| {
            super::super::tests::read(
                AGENT,
                &json!({"session_id":"s","cwd":"/r","hook_event_name":"WorktreeCreate","name":name})
                    .to_string(),
            )
            .event
        };
        assert_eq!(
            create("auth-fix"),
            Event::Worktree(Ok(WorktreeEvent::Create {
                name: "auth-fix".into()
            }))
        );
        // Never rewritten: a name that is no task id is refused with the reason.
        for bad in [
            "../evil",
            "feature/auth",
            "-x",
            "a b",
            "x;$(id)",
            "ünï",
            "a:b",
            "",
            "a\u{7}",
            &"a".repeat(200),
        ] {
            let Event::Worktree(Err(why)) = create(bad) else {
                panic!("{bad:?} accepted");
            };
            assert!(why.contains("no station is made"), "{why}");
        }
        // The name as some documentation spells it.
        let old = super::super::tests::read(
            AGENT,
            r#"{"hook_event_name":"WorktreeCreate","cwd":"/r","worktree_name":"web"}"#,
        );
        assert_eq!(
            old.event,
            Event::Worktree(Ok(WorktreeEvent::Create { name: "web".into() }))
        );
        let remove = |path: &Value| {
            super::super::tests::read(
                AGENT,
                &json!({"cwd":"/r-auth","hook_event_name":"WorktreeRemove","worktree_path":path})
                    .to_string(),
            )
            .event
        };
        assert_eq!(
            remove(&json!("/r-auth")),
            Event::Worktree(Ok(WorktreeEvent::Remove {
                path: "/r-auth".into()
            }))
        );
        for bad in [json!("r-auth"), json!(""), json!(3), json!("/r\n-auth")] {
            assert!(
                matches!(remove(&bad), Event::Worktree(Err(_))),
                "{bad} accepted"
            );
        }
    }

    #[test]
    fn a_station_is_its_path_alone_on_stdout_and_a_refusal_fails_the_worktree() {
        let answer = |o: Outcome| super::super::answer(Harness::of(AGENT), &o);
        let made = answer(Outcome::Worktree(Ok(WorktreeDone::Made("/r-auth".into()))));
        assert_eq!(
            (made.stdout.as_deref(), made.stderr, made.code),
            (Some("/r-auth"), None, 0)
        );
        let refused = answer(Outcome::Worktree(Err("held".into())));
        assert_eq!(
            (refused.stdout, refused.stderr.as_deref(), refused.code),
            (None, Some("held"), 1)
        );
        let closed = answer(Outcome::Worktree(Ok(WorktreeDone::Closed("gone".into()))));
        assert_eq!((closed.stdout, closed.code), (None, 0));
        // Installed beside the other hooks, with their own (long) timeout.
        let installed = format!("{:?}", AGENT.files("rail", "rail"));
        assert!(
            installed.contains("WorktreeCreate") && installed.contains("WorktreeRemove"),
            "{installed}"
        );
    }

    #[test]
    fn a_denial_is_exit_2_with_the_reason_on_stderr() {
        let claude = super::super::answer(Harness::of(AGENT), &Outcome::Deny("held".into()));
        assert_eq!((claude.code, claude.stderr.as_deref()), (2, Some("held")));
    }
    #[test]
    fn the_after_tool_event_is_read_and_answered_in_its_own_format() {
        let call = super::super::tests::read(
            AGENT,
            r#"{"hook_event_name":"PostToolUse","cwd":"/w","tool_name":"Bash","tool_use_id":"toolu_9","tool_input":{"command":"python3 x.py"},"tool_response":{}}"#,
        );
        assert_eq!(
            call.event,
            Event::AfterTool {
                tool: "Bash".into()
            }
        );
        assert_eq!(call.call_id.as_deref(), Some("toolu_9"));
        let a = super::super::answer(Harness::of(AGENT), &Outcome::After("put back".into()));
        assert_eq!(
            (a.code, a.stderr.as_deref(), a.stdout),
            (2, Some("put back"), None)
        );
        let installed = format!("{:?}", AGENT.files("rail", "rail"));
        assert!(installed.contains("PostToolUse"), "{installed}");
        // A Bash call that exits non-zero reaches PostToolUseFailure instead (recorded from
        // Claude Code 2.1.332): checked the same way, or a write that then fails goes unseen.
        let failed = super::super::tests::read(
            AGENT,
            r#"{"session_id":"cd391bed","transcript_path":"/h/t.jsonl","cwd":"/w","prompt_id":"7c9b4068","permission_mode":"bypassPermissions","effort":{"level":"medium"},"hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"python3 -c \"open('owned/a.txt', 'w').write('x')\"; exit 3","description":"e2e"},"tool_use_id":"toolu_9","error":"Exit code 3","is_interrupt":false,"duration_ms":271}"#,
        );
        assert_eq!(failed.event, call.event);
        assert_eq!(failed.call_id, call.call_id);
        assert!(installed.contains("PostToolUseFailure"), "{installed}");
    }
}
