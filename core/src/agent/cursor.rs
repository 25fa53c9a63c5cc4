//! Cursor: its hook payloads (preToolUse for Write, Delete, Shell and `MCP:` tools;
//! beforeShellExecution; stop; sessionEnd), its answer and what `rail init --agents` installs
//! (`.cursor/hooks.json`, `.cursor/mcp.json`).
//!
//! Its hooks are installed with `failClosed`, which blocks on empty output: every answer, allows
//! included, is explicit JSON. Cursor also runs Claude Code's hooks (opt-in): those payloads
//! are read here and answered Claude's way ([`super::claude`]).

use serde_json::{json, Map, Value};

use super::{
    field, is_pre_tool, is_version, mcp, non_empty, Agent, Answer, Event, Harness, Outcome, Spec,
    ToolWrites,
};
use crate::agent::setup::{self, FileChanges};

pub const AGENT: Agent = Agent::new(&Cursor);

struct Cursor;

fn ours(v: &Value) -> bool {
    setup::runs(v, "hook cursor")
}

impl Spec for Cursor {
    fn name(&self) -> &'static str {
        "cursor"
    }

    fn title(&self) -> &'static str {
        "Cursor"
    }

    fn hook_help(&self) -> Option<&'static str> {
        Some("Cursor: preToolUse, postToolUse and postToolUseFailure (Write, Delete, Shell, MCP), beforeShellExecution, stop, sessionEnd")
    }

    fn event(&self, harness: Harness, name: &str, payload: &Map<String, Value>) -> Option<Event> {
        if is_pre_tool(name) {
            // Its MCP tools may carry their arguments as a JSON string.
            return Some(super::tool_call(self, payload, true));
        }
        // A failed call has an event of its own, and may have written all the same.
        if super::is_post_tool(name) || name.eq_ignore_ascii_case("postToolUseFailure") {
            return Some(super::after_tool(payload, "tool_name"));
        }
        // Only its own hooks file has this event.
        if harness.answers_as == AGENT && name.eq_ignore_ascii_case("beforeShellExecution") {
            return Some(match payload.get("command").and_then(Value::as_str) {
                Some(command) => super::shell_call("Shell", command, None),
                None => Event::Malformed("beforeShellExecution without `command`".into()),
            });
        }
        None
    }

    fn tool(
        &self,
        tool: &str,
        input: &Value,
        _: &Map<String, Value>,
    ) -> Result<ToolWrites, String> {
        let mut found = ToolWrites::default();
        match tool {
            "Write" | "Delete" | "Edit" | "StrReplace" | "MultiEdit" => {
                found
                    .targets
                    .push(field(tool, input, &["file_path", "path"])?)
            }
            "Shell" | "Bash" => {
                // Shell's own `cwd` is where the command runs.
                let dir = input.get("cwd").and_then(Value::as_str);
                super::command(tool, input, dir, &mut found)?
            }
            _ => match tool.strip_prefix("MCP:") {
                Some(name) => mcp(None, name, tool, input, &mut found),
                None => super::by_verb(tool, input, &mut found),
            },
        }
        Ok(found)
    }

    /// failClosed: empty output blocks, so every answer is explicit.
    fn answer(&self, outcome: &Outcome) -> Answer {
        Answer::json(match outcome {
            // No worktree hook here: a worktree outcome is answered as a plain allow or deny.
            Outcome::Allow | Outcome::Worktree(Ok(_)) => json!({ "permission": "allow" }),
            Outcome::Warn(m) => json!({
                "permission": "allow", "user_message": m, "agent_message": m
            }),
            Outcome::Deny(m) | Outcome::Worktree(Err(m)) => json!({
                "permission": "deny", "user_message": non_empty(m), "agent_message": non_empty(m)
            }),
            Outcome::After(m) => json!({ "additional_context": m, "user_message": m }),
            Outcome::Lifecycle(_) => json!({}),
        })
    }

    /// Cursor does not wait for its session-end hooks at all (Rail installs them with 10 s).
    fn lifecycle_budget_ms(&self, event: &Event) -> u64 {
        match event {
            Event::SessionEnd => 1_500,
            _ => 5_000,
        }
    }

    fn project_dir_vars(&self) -> &'static [&'static str] {
        &["CURSOR_PROJECT_DIR"]
    }

    /// Cursor's payloads carry `cursor_version`; its hooks' environment `CURSOR_VERSION`.
    fn version(
        &self,
        payload: &Map<String, Value>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Option<String> {
        payload
            .get("cursor_version")
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| env("CURSOR_VERSION"))
            .filter(|v| is_version(v))
    }

    fn markers(&self) -> &'static [&'static str] {
        &[".cursor", ".cursorrules"]
    }

    fn needs(&self) -> &'static str {
        "reload Cursor so it reads .cursor/hooks.json, and enable the `rail` MCP server in Cursor's MCP settings; the hooks fail closed (`failClosed`), so a missing `rail` binary blocks every tool call until it is on PATH"
    }

    fn files(&self, rail: &str, rail_exe: &str) -> Vec<FileChanges> {
        let command = format!("{rail} hook cursor");
        // failClosed: a crash or timeout blocks; Rail answers every call explicitly.
        let gate =
            json!({ "command": command, "type": "command", "timeout": 10, "failClosed": true });
        let after = json!({ "command": command, "type": "command", "timeout": 10 });
        vec![
            setup::versioned_hooks(
                ".cursor/hooks.json",
                ours,
                vec![
                    ("preToolUse", gate.clone()),
                    ("beforeShellExecution", gate),
                    ("postToolUse", after.clone()),
                    ("postToolUseFailure", after.clone()),
                    ("stop", after.clone()),
                    ("sessionEnd", after),
                ],
            ),
            setup::set_json(
                ".cursor/mcp.json",
                &["mcpServers", "rail"],
                setup::mcp(rail_exe),
            ),
        ]
    }

    fn evidence_files(&self) -> &'static [&'static str] {
        &[".cursor/hooks.json"]
    }
}

#[cfg(test)]
mod tests {
    use super::super::{answer, Harness};
    use super::*;

    #[test]
    fn every_answer_is_explicit() {
        assert_eq!(
            answer(Harness::of(AGENT), &Outcome::Allow).stdout.unwrap(),
            r#"{"permission":"allow"}"#
        );
    }
    #[test]
    fn the_after_tool_event_is_read_and_answered_in_its_own_format() {
        let call = super::super::tests::read(
            AGENT,
            r#"{"hook_event_name":"postToolUse","conversation_id":"c","workspace_roots":["/w"],"tool_name":"Shell","tool_use_id":"toolu_9","tool_input":{"command":"python3 x.py"}}"#,
        );
        assert_eq!(
            call.event,
            Event::AfterTool {
                tool: "Shell".into()
            }
        );
        assert_eq!(call.call_id.as_deref(), Some("toolu_9"));
        let a = super::super::answer(Harness::of(AGENT), &Outcome::After("put back".into()));
        assert_eq!(
            (a.code, a.stdout.as_deref()),
            (
                0,
                Some(r#"{"additional_context":"put back","user_message":"put back"}"#)
            )
        );
        let installed = format!("{:?}", AGENT.files("rail", "rail"));
        assert!(installed.contains("postToolUse"), "{installed}");
        // A failed call (its own event) is checked the same way.
        let failed = super::super::tests::read(
            AGENT,
            r#"{"hook_event_name":"postToolUseFailure","conversation_id":"c","workspace_roots":["/w"],"tool_name":"Shell","tool_use_id":"toolu_9","tool_input":{"command":"python3 x.py; exit 3"},"error_message":"exit 3"}"#,
        );
        assert_eq!(failed.event, call.event);
        assert!(installed.contains("postToolUseFailure"), "{installed}");
    }
}
