//! Claude Code: its hook payloads (PreToolUse for Edit, Write, MultiEdit, NotebookEdit, Bash and
//! `mcp__*` tools; Stop; SessionEnd), its answer — a block is exit 2 with the reason on stderr —
//! and what `rail init --agents` installs (`.claude/settings.json`, `.mcp.json`).
//!
//! Its settings file is also loaded by VS Code's agent (camelCase payloads, its own tool names)
//! and by Cursor (opt-in): the Claude hook recognises their payloads by shape ([`Spec::guest`])
//! and reads them with their own tool tables.

use serde_json::{json, Map, Value};

use super::{
    cursor, field, is_version, mcp_by_name, vscode, Agent, Answer, Event, Found, Harness, Outcome,
    Spec,
};
use crate::agent::setup::{self, FileChanges};

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
        (
            "PreToolUse",
            json!({ "matcher": tools, "hooks": [hook(10)] }),
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
    ]
}

/// `.claude/settings.json` with Rail's hook groups (VS Code's agent runs the same file).
pub(super) fn settings(rail: &str) -> FileChanges {
    FileChanges::Json {
        path: ".claude/settings.json",
        changes: hooks(rail)
            .into_iter()
            .map(|(event, group)| setup::upsert(&["hooks", event], ours, group))
            .collect(),
    }
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
    }
}

impl Spec for Claude {
    fn name(&self) -> &'static str {
        "claude"
    }

    fn title(&self) -> &'static str {
        "Claude Code"
    }

    fn hook_help(&self) -> Option<&'static str> {
        Some("Claude Code: PreToolUse, PostToolUse and PostToolUseFailure (Edit, Write, MultiEdit, NotebookEdit, Bash, MCP), Stop, SessionEnd; also VS Code's agent and Cursor, which load Claude Code's settings file")
    }

    /// VS Code's agent writes camelCase (`hookEventName`, `sessionId`); Cursor sends
    /// `conversation_id` and `cursor_version`, and is answered Claude's way.
    fn guest(&self, payload: &Map<String, Value>) -> Option<Harness> {
        if payload.contains_key("cursor_version") || payload.contains_key("conversation_id") {
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
            "PreToolUse" => Some(super::tool_call(self, payload, false)),
            "PostToolUse" | "PostToolUseFailure" => Some(super::after_tool(payload, "tool_name")),
            _ => None,
        }
    }

    fn tool(&self, tool: &str, input: &Value, _: &Map<String, Value>) -> Result<Found, String> {
        let mut found = Found::default();
        match tool {
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
    /// installs 30 s): the default holds.
    fn lifecycle_budget_ms(&self, _: &Event) -> u64 {
        5_000
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
    use super::super::tests::tool;
    use super::super::{read, Harness};
    use super::*;

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

    #[test]
    fn a_denial_is_exit_2_with_the_reason_on_stderr() {
        let claude = super::super::answer(Harness::of(AGENT), &Outcome::Deny("held".into()));
        assert_eq!((claude.code, claude.stderr.as_deref()), (2, Some("held")));
    }
    #[test]
    fn the_after_tool_event_is_read_and_answered_in_its_own_format() {
        let call = super::super::read(
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
        let failed = super::super::read(
            AGENT,
            r#"{"session_id":"cd391bed","transcript_path":"/h/t.jsonl","cwd":"/w","prompt_id":"7c9b4068","permission_mode":"bypassPermissions","effort":{"level":"medium"},"hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"python3 -c \"open('owned/a.txt', 'w').write('x')\"; exit 3","description":"e2e"},"tool_use_id":"toolu_9","error":"Exit code 3","is_interrupt":false,"duration_ms":271}"#,
        );
        assert_eq!(failed.event, call.event);
        assert_eq!(failed.call_id, call.call_id);
        assert!(installed.contains("PostToolUseFailure"), "{installed}");
    }
}
