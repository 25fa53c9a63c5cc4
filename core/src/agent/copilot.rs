//! GitHub Copilot CLI: its hook payloads (preToolUse for bash, create, edit, apply_patch and
//! `<server>-<tool>` MCP tools; agentStop; sessionEnd), its answer, what `rail init --agents`
//! installs (`.github/hooks/rail.json`, `.mcp.json`) and the folder trust it asks for.
//!
//! Copilot CLI fails open (a hook that fails or times out is skipped) and its camelCase
//! payloads name no event: the installed command says which (`--event`), and a tool's
//! arguments arrive as JSON text inside the JSON. A denial is `permissionDecision: "deny"` on
//! exit 0; an `agentStop` answer never says `block` (that would force another turn). VS Code's
//! agent loads the same hook files and sends its own payloads (camelCase with `hookEventName`),
//! read as [`super::vscode`]'s.

use serde_json::{json, Map, Value};

use super::{
    apply_patch, by_verb, field, is_pre_tool, is_version, mcp, non_empty, shell_writes, vscode,
    Agent, Answer, Event, Harness, Outcome, Spec, ToolWrites, TrustEnv, TrustFile,
};
use crate::agent::doctor::{within, Trust};
use crate::agent::setup::{self, FileChanges};

pub const AGENT: Agent = Agent::new(&Copilot);

struct Copilot;

pub(super) fn ours(v: &Value) -> bool {
    setup::runs(v, "hook copilot")
}

impl Spec for Copilot {
    fn name(&self) -> &'static str {
        "copilot"
    }

    fn title(&self) -> &'static str {
        "Copilot CLI"
    }

    fn hook_help(&self) -> Option<&'static str> {
        Some("GitHub Copilot CLI: preToolUse and postToolUse (bash, create, edit, apply_patch, MCP), agentStop, sessionEnd; also VS Code's agent, which loads the same `.github/hooks` files")
    }

    fn hook_event_help(&self) -> Option<&'static str> {
        Some("The event the hook is installed for: Copilot's camelCase payloads do not name it")
    }

    /// VS Code's agent loads `.github/hooks` too, and sends its own payloads.
    fn guest(&self, payload: &Map<String, Value>) -> Option<Harness> {
        payload
            .contains_key("hookEventName")
            .then_some(Harness::of(vscode::AGENT))
    }

    /// Its camelCase tool payloads name no event; only a tool call has a tool.
    fn default_event(&self, payload: &Map<String, Value>) -> Option<&'static str> {
        payload.contains_key("toolName").then_some("preToolUse")
    }

    fn event(&self, harness: Harness, name: &str, payload: &Map<String, Value>) -> Option<Event> {
        // Through Claude Code's settings file (Copilot CLI runs those hooks too): Claude's
        // payload shape, read by Claude's table, the session still Copilot's.
        if harness.answers_as == super::claude::AGENT {
            return super::claude::AGENT.event(harness, name, payload);
        }
        if is_pre_tool(name) {
            Some(call(payload))
        } else if super::is_post_tool(name) {
            Some(super::after_tool(payload, "toolName"))
        } else if name.eq_ignore_ascii_case("agentStop") {
            Some(Event::Stop)
        } else {
            None
        }
    }

    fn tool(
        &self,
        name: &str,
        input: &Value,
        _: &Map<String, Value>,
    ) -> Result<ToolWrites, String> {
        tool(name, input)
    }

    /// A warning goes to the model as context and to the person on stderr; an agentStop answer
    /// with `decision` would force another turn, so lifecycle notes are stderr only.
    fn answer(&self, outcome: &Outcome) -> Answer {
        match outcome {
            // No worktree hook here: a worktree outcome is answered as a plain allow or deny.
            Outcome::Allow | Outcome::Lifecycle(None) | Outcome::Worktree(Ok(_)) => Answer::QUIET,
            Outcome::Warn(m) | Outcome::After(m) => Answer {
                stdout: Some(json!({ "additionalContext": m }).to_string()),
                stderr: Some(m.clone()),
                code: 0,
            },
            Outcome::Deny(m) | Outcome::Worktree(Err(m)) => Answer::json(json!({
                "permissionDecision": "deny",
                "permissionDecisionReason": non_empty(m),
            })),
            Outcome::Lifecycle(Some(m)) => Answer {
                stdout: None,
                stderr: Some(m.clone()),
                code: 0,
            },
        }
    }

    fn project_dir_vars(&self) -> &'static [&'static str] {
        &["COPILOT_PROJECT_DIR"]
    }

    /// The Copilot CLI's hooks run with `COPILOT_CLI_BINARY_VERSION` (seen in 1.0.102; the
    /// payload carries no version).
    fn version(
        &self,
        _payload: &Map<String, Value>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Option<String> {
        env("COPILOT_CLI_BINARY_VERSION").filter(|v| is_version(v))
    }

    fn markers(&self) -> &'static [&'static str] {
        &[".github/hooks", ".copilot"]
    }

    fn needs(&self) -> &'static str {
        "trust this folder in Copilot CLI (the trust prompt, or --trust-folder): it loads .github/hooks only in a trusted folder and otherwise runs every tool unjudged, silently; then start a new `copilot` session in this repository: it reads .github/hooks/rail.json and the `rail` server in .mcp.json (check with /mcp); Copilot skips a hook that fails or times out, so a missing `rail` binary lets every tool call through unjudged: keep `rail` on PATH"
    }

    fn files(&self, rail: &str, rail_exe: &str) -> Vec<FileChanges> {
        // Copilot's camelCase payloads name no event: each command names its own. Both
        // shells, so the same file serves Windows.
        let ps = setup::powershell_command(rail_exe);
        let hook = |event: &str| {
            json!({ "type": "command",
                    "bash": format!("{rail} hook copilot --event {event}"),
                    "powershell": format!("{ps} hook copilot --event {event}"),
                    "timeoutSec": 10 })
        };
        vec![
            setup::versioned_hooks(
                ".github/hooks/rail.json",
                ours,
                ["preToolUse", "postToolUse", "agentStop", "sessionEnd"]
                    .into_iter()
                    .map(|event| (event, hook(event)))
                    .collect(),
            ),
            setup::set_json(
                ".mcp.json",
                &["mcpServers", "rail"],
                setup::mcp_stdio(rail_exe),
            ),
        ]
    }

    fn evidence_files(&self) -> &'static [&'static str] {
        &[".github/hooks/rail.json"]
    }

    fn trust(&self) -> Option<TrustFile> {
        Some(TrustFile {
            trust_all: None,
            env: TrustEnv::Dir("COPILOT_HOME"),
            home_dir: ".copilot",
            file: "config.json",
            judge: trusts,
            fix: |folder| {
                format!(
                "run `copilot` in {folder} and trust it for future sessions (or add \"{folder}\" to trusted_folders in ~/.copilot/config.json)"
            )
            },
            by_main_checkout: false,
            hooks: None,
        })
    }
}

/// A Copilot CLI tool call: `toolName` and `toolArgs`, the arguments as JSON text (an object
/// in some versions), or `tool_name` and `tool_input` when the hook is installed under a
/// PascalCase event name.
fn call(payload: &Map<String, Value>) -> Event {
    let Some(tool) = ["toolName", "tool_name"]
        .iter()
        .find_map(|k| payload.get(*k).and_then(Value::as_str))
    else {
        return Event::Malformed("a tool call without `toolName`".into());
    };
    // A reader passes, whatever its arguments.
    if READERS.contains(&tool) {
        return ToolWrites::default().event(tool);
    }
    let parsed;
    let input = match ["toolArgs", "tool_input"]
        .iter()
        .find_map(|k| payload.get(*k))
    {
        Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
            Ok(v) => {
                parsed = v;
                &parsed
            }
            // apply_patch's argument is the patch itself.
            Err(_) if tool == "apply_patch" => {
                parsed = json!({ "input": text });
                &parsed
            }
            Err(e) => {
                return Event::Malformed(format!("{tool}: its `toolArgs` are not JSON ({e})"))
            }
        },
        Some(v) => v,
        None => return Event::Malformed(format!("a {tool} call without `toolArgs`")),
    };
    super::tool_event(&Copilot, tool, input, payload)
}

/// Copilot CLI's tools that only read, ask or plan.
const READERS: &[&str] = &[
    "view",
    "glob",
    "grep",
    "web_fetch",
    "web_search",
    "ask_user",
    "read_bash",
    "stop_bash",
    "list_bash",
    "report_intent",
    "update_todo",
    "think",
    "fetch_copilot_cli_documentation",
];

/// Copilot CLI's built-in tools (snake_case arguments; its readers pass before this), then
/// `<server>-<tool>` MCP tools.
fn tool(tool: &str, input: &Value) -> Result<ToolWrites, String> {
    let mut found = ToolWrites::default();
    match tool {
        "bash" => shell_writes(&field(tool, input, &["command"])?, None, &mut found),
        // Text typed into a running interactive shell: a command line like any other.
        "write_bash" => shell_writes(
            &field(tool, input, &["input", "command"])?,
            None,
            &mut found,
        ),
        "powershell" => found.unanalysed.push(
            "a PowerShell command (Rail reads POSIX shell commands only; it cannot tell what \
             this one writes)"
                .to_string(),
        ),
        "create" | "edit" | "str_replace" | "insert" | "write" => {
            found
                .targets
                .push(field(tool, input, &["path", "file_path", "filePath"])?)
        }
        "str_replace_editor" => {
            if input.get("command").and_then(Value::as_str) != Some("view") {
                found
                    .targets
                    .push(field(tool, input, &["path", "file_path"])?);
            }
        }
        "apply_patch" => apply_patch(
            &field(tool, input, &["input", "patch", "command"])?,
            &mut found,
        )?,
        _ => match tool.rsplit_once('-') {
            Some((server, name)) => mcp(Some(server), name, tool, input, &mut found),
            None => by_verb(tool, input, &mut found),
        },
    }
    Ok(found)
}

/// Copilot CLI: the `trusted_folders` array of its `config.json` (older docs: `trustedFolders`)
/// trusts each folder and everything below it.
fn trusts(config_json: &str, folder: &str) -> Trust {
    let Ok(node) = crate::formats::jsonc::parse(config_json) else {
        return Trust::Unknown("config.json does not parse".into());
    };
    let value = node.to_value();
    let list = value
        .get("trusted_folders")
        .or_else(|| value.get("trustedFolders"));
    let Some(list) = list else {
        return Trust::NotTrusted;
    };
    let Some(list) = list.as_array() else {
        return Trust::Unknown("trusted_folders is not a list".into());
    };
    if list
        .iter()
        .filter_map(|v| v.as_str())
        .any(|root| within(folder, root))
    {
        Trust::Trusted
    } else {
        Trust::NotTrusted
    }
}

#[cfg(test)]
mod tests {
    use super::super::answer;
    use super::super::tests::tool;
    use super::super::tests::{read, read_event};
    use super::*;
    use crate::formats::jsonc;

    #[test]
    fn copilot_payloads_name_their_tool_and_arguments_as_json_text() {
        let ev = Some("preToolUse");
        let bash = read_event(
            AGENT,
            r#"{"sessionId":"s","timestamp":1,"cwd":"/w","toolName":"bash","toolArgs":"{\"command\":\"rm src/a.ts\",\"description\":\"clean\"}"}"#,
            ev,
        );
        assert_eq!(bash.harness, Harness::of(AGENT));
        assert_eq!(bash.event_name, "preToolUse");
        assert_eq!(bash.cwd.as_deref(), Some("/w"));
        if cfg!(feature = "shell") {
            assert_eq!(tool(&bash).0, ["src/a.ts"]);
        } else {
            assert!(!tool(&bash).1.is_empty());
        }
        // Without --event, a payload with a tool is a tool call.
        let edit = read(
            AGENT,
            r#"{"cwd":"/w","toolName":"edit","toolArgs":{"path":"/w/src/b.ts","old_str":"a","new_str":"b"}}"#,
        );
        assert_eq!(tool(&edit).0, ["/w/src/b.ts"]);
        let view = read(
            AGENT,
            r#"{"cwd":"/w","toolName":"view","toolArgs":"{\"path\":\"src/b.ts\"}"}"#,
        );
        assert_eq!(tool(&view), (&[][..], &[][..]));
        let ps = read(
            AGENT,
            r#"{"cwd":"/w","toolName":"powershell","toolArgs":"{\"command\":\"Remove-Item x\"}"}"#,
        );
        assert!(tool(&ps).1[0].contains("PowerShell"));
        let patch = read(
            AGENT,
            r#"{"cwd":"/w","toolName":"apply_patch","toolArgs":"*** Begin Patch\n*** Delete File: src/c.ts\n*** End Patch\n"}"#,
        );
        assert_eq!(tool(&patch).0, ["src/c.ts"]);
        let own = read(
            AGENT,
            r#"{"cwd":"/w","toolName":"rail-claim","toolArgs":"{\"task\":\"t\"}"}"#,
        );
        assert_eq!(tool(&own), (&[][..], &[][..]));
        let fs = read(
            AGENT,
            r#"{"cwd":"/w","toolName":"my-fs-write_file","toolArgs":"{\"path\":\"src/d\"}"}"#,
        );
        assert_eq!(tool(&fs).0, ["src/d"]);
        let pascal = read(
            AGENT,
            r#"{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/w","tool_name":"create","tool_input":{"path":"src/e"}}"#,
        );
        assert_eq!(tool(&pascal).0, ["src/e"]);
        let vscode = read(
            AGENT,
            r#"{"hookEventName":"PreToolUse","sessionId":"s","cwd":"/w","tool_name":"create_file","tool_input":{"filePath":"/w/f"}}"#,
        );
        assert_eq!(vscode.harness, Harness::of(vscode::AGENT));
        assert_eq!(tool(&vscode).0, ["/w/f"]);
        for bad in [
            r#"{"cwd":"/w","toolName":"create","toolArgs":"not json"}"#,
            r#"{"cwd":"/w","toolName":"create"}"#,
            r#"{"cwd":"/w","toolName":"edit","toolArgs":"{}"}"#,
        ] {
            assert!(
                matches!(read_event(AGENT, bad, ev).event, Event::Malformed(_)),
                "{bad}"
            );
        }
    }

    #[test]
    fn copilot_denies_on_exit_0_and_never_blocks_a_stop() {
        let stop = read_event(
            AGENT,
            r#"{"sessionId":"s","cwd":"/w","transcriptPath":"/t","stopReason":"end_turn"}"#,
            Some("agentStop"),
        );
        assert_eq!(stop.event, Event::Stop);
        let end = read_event(
            AGENT,
            r#"{"sessionId":"s","cwd":"/w","reason":"complete"}"#,
            Some("sessionEnd"),
        );
        assert_eq!(end.event, Event::SessionEnd);
        let prompt = read_event(
            AGENT,
            r#"{"sessionId":"s","cwd":"/w","prompt":"hi"}"#,
            Some("userPromptSubmitted"),
        );
        assert_eq!(prompt.event, Event::Pass);
        let nameless = read(AGENT, r#"{"sessionId":"s","cwd":"/w"}"#);
        assert!(matches!(nameless.event, Event::Malformed(_)));
        let deny = answer(Harness::of(AGENT), &Outcome::Deny("held".into()));
        assert_eq!(deny.code, 0);
        assert_eq!(
            deny.stdout.unwrap(),
            r#"{"permissionDecision":"deny","permissionDecisionReason":"held"}"#
        );
        let warn = answer(Harness::of(AGENT), &Outcome::Warn("Rail: careful".into()));
        assert_eq!(
            warn.stdout.unwrap(),
            r#"{"additionalContext":"Rail: careful"}"#
        );
        assert_eq!(warn.stderr.as_deref(), Some("Rail: careful"));
        let note = answer(Harness::of(AGENT), &Outcome::Lifecycle(Some("busy".into())));
        assert_eq!((note.stdout, note.code), (None, 0));
    }

    #[test]
    fn copilot_entries_name_their_event_for_both_shells() {
        let files = Copilot.files("'/o p/rail'", "/o p/it's/rail");
        let FileChanges::Json { path, changes } = &files[0] else {
            unreachable!()
        };
        assert_eq!(*path, ".github/hooks/rail.json");
        let text = jsonc::apply("", changes).unwrap();
        let v = jsonc::parse(&text).unwrap().to_value();
        assert_eq!(v["version"], 1);
        for event in ["preToolUse", "agentStop", "sessionEnd"] {
            let entries = v["hooks"][event].as_array().unwrap();
            assert_eq!(entries.len(), 1, "{event}");
            let e = &entries[0];
            assert_eq!(
                e["bash"],
                format!("'/o p/rail' hook copilot --event {event}"),
                "{event}"
            );
            assert_eq!(
                e["powershell"],
                format!("& '/o p/it''s/rail' hook copilot --event {event}")
            );
            assert!(ours(e) && !super::super::claude::ours(e));
        }
        assert_eq!(setup::powershell_command("rail"), "rail");
    }

    #[test]
    fn copilot_trust_covers_folders_below() {
        let c = r#"{"trusted_folders": ["/w/app"], "model": "x"}"#;
        assert_eq!(trusts(c, "/w/app/sub"), Trust::Trusted);
        assert_eq!(trusts(c, "/w/application"), Trust::NotTrusted);
        assert_eq!(
            trusts(r#"{"trustedFolders": ["/w"]}"#, "/w/app"),
            Trust::Trusted
        );
        assert_eq!(trusts("{}", "/w"), Trust::NotTrusted);
        assert!(matches!(
            trusts(r#"{"trusted_folders": "/w"}"#, "/w"),
            Trust::Unknown(_)
        ));
    }
    #[test]
    fn the_after_tool_event_is_read_and_answered_in_its_own_format() {
        // Copilot's payloads name no event: the installed command does.
        let call = super::super::tests::read_event(
            AGENT,
            r#"{"cwd":"/w","toolName":"bash","toolArgs":"{\"command\":\"python3 x.py\"}","toolResult":{"resultType":"success"}}"#,
            Some("postToolUse"),
        );
        assert_eq!(
            call.event,
            Event::AfterTool {
                tool: "bash".into()
            }
        );
        let a = super::super::answer(Harness::of(AGENT), &Outcome::After("put back".into()));
        assert_eq!(
            (a.code, a.stdout.as_deref(), a.stderr.as_deref()),
            (
                0,
                Some(r#"{"additionalContext":"put back"}"#),
                Some("put back")
            )
        );
        let installed = format!("{:?}", AGENT.files("rail", "rail"));
        assert!(installed.contains("--event postToolUse"), "{installed}");
    }
}
