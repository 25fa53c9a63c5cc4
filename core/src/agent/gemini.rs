//! Gemini CLI: its hook payloads (BeforeTool for write_file, replace, run_shell_command and
//! `mcp_*` tools; AfterAgent; SessionEnd), its answer — `{"decision":"deny","reason":…}` — what
//! `rail init --agents` installs (`.gemini/settings.json`, `GEMINI.md`) and the folder trust
//! it asks for.

use serde_json::{json, Map, Value};

use super::{
    field, mcp, non_empty, Agent, Answer, Event, Harness, Outcome, Spec, ToolWrites, TrustEnv,
    TrustFile,
};
use crate::agent::doctor::{within, Trust};
use crate::agent::setup::{self, FileChanges};
use crate::formats::jsonc::Change;

pub const AGENT: Agent = Agent::new(&Gemini);

struct Gemini;

fn ours(v: &Value) -> bool {
    setup::runs(v, "hook gemini")
}

impl Spec for Gemini {
    fn name(&self) -> &'static str {
        "gemini"
    }

    fn title(&self) -> &'static str {
        "Gemini CLI"
    }

    fn hook_help(&self) -> Option<&'static str> {
        Some("Gemini CLI: BeforeTool and AfterTool (write_file, replace, run_shell_command, MCP), AfterAgent, SessionEnd")
    }

    fn event(&self, _: Harness, name: &str, payload: &Map<String, Value>) -> Option<Event> {
        match name {
            "BeforeTool" => Some(super::tool_call(self, payload, false)),
            "AfterTool" => Some(super::after_tool(payload, "tool_name")),
            "AfterAgent" => Some(Event::Stop),
            _ => None,
        }
    }

    fn tool(
        &self,
        tool: &str,
        input: &Value,
        payload: &Map<String, Value>,
    ) -> Result<ToolWrites, String> {
        let mut found = ToolWrites::default();
        match tool {
            "write_file" | "replace" | "edit" => {
                found.targets.push(field(tool, input, &["file_path"])?)
            }
            "run_shell_command" => {
                let dir = input.get("dir_path").and_then(Value::as_str);
                super::command(tool, input, dir, &mut found)?
            }
            _ => {
                if let Some(rest) = tool.strip_prefix("mcp_") {
                    let ctx = payload.get("mcp_context");
                    let server = ctx
                        .and_then(|c| c.get("server_name").or_else(|| c.get("serverName")))
                        .and_then(Value::as_str);
                    let name = match server.and_then(|s| rest.strip_prefix(s)) {
                        Some(t) => t.trim_start_matches('_'),
                        None => rest,
                    };
                    mcp(server, name, tool, input, &mut found)
                }
            }
        }
        Ok(found)
    }

    fn answer(&self, outcome: &Outcome) -> Answer {
        match outcome {
            // No worktree hook here: a worktree outcome is answered as a plain allow or deny.
            Outcome::Allow | Outcome::Lifecycle(None) | Outcome::Worktree(Ok(_)) => Answer::QUIET,
            Outcome::Warn(m) | Outcome::Lifecycle(Some(m)) => {
                Answer::json(json!({ "systemMessage": m }))
            }
            // AfterTool's deny puts the reason before the model in place of the tool's output.
            Outcome::Deny(m) | Outcome::After(m) | Outcome::Worktree(Err(m)) => {
                Answer::json(json!({ "decision": "deny", "reason": non_empty(m) }))
            }
        }
    }

    /// Gemini does not wait for its session-end hooks at all (Rail installs them with 2 s); Rail
    /// installs its AfterAgent hook with a 5,000 ms timeout.
    fn lifecycle_budget_ms(&self, event: &Event) -> u64 {
        match event {
            Event::SessionEnd => 1_500,
            Event::Stop => 4_000,
            _ => 5_000,
        }
    }

    fn project_dir_vars(&self) -> &'static [&'static str] {
        &["GEMINI_PROJECT_DIR"]
    }

    fn markers(&self) -> &'static [&'static str] {
        &[".gemini", "GEMINI.md"]
    }

    fn own_instructions(&self) -> Option<&'static str> {
        Some("GEMINI.md")
    }

    fn needs(&self) -> &'static str {
        "trust this folder in Gemini CLI (project hooks load only in a trusted folder; `--skip-trust` alone loads none, silently: trust the folder or set GEMINI_CLI_TRUST_WORKSPACE=true); the first run warns about the new hooks, then runs them; restart gemini"
    }

    fn files(&self, rail: &str, rail_exe: &str) -> Vec<FileChanges> {
        let command = format!("{rail} hook gemini");
        // Gemini's timeouts are in milliseconds; the tool gate's is above Rail's own 8 s
        // bound, so Rail (not a kill) answers.
        let hook = |name: &str, timeout: u32| json!({ "name": name, "type": "command", "command": command, "timeout": timeout });
        vec![FileChanges::Json {
            path: ".gemini/settings.json",
            changes: vec![
                setup::upsert(
                    &["hooks", "BeforeTool"],
                    ours,
                    json!({ "matcher": "write_file|replace|run_shell_command|mcp_.*",
                            "hooks": [hook("rail", 10000)] }),
                ),
                setup::upsert(
                    &["hooks", "AfterTool"],
                    ours,
                    json!({ "matcher": "write_file|replace|run_shell_command|mcp_.*",
                            "hooks": [hook("rail-after", 10000)] }),
                ),
                setup::upsert(
                    &["hooks", "AfterAgent"],
                    ours,
                    json!({ "hooks": [hook("rail-renew", 5000)] }),
                ),
                setup::upsert(
                    &["hooks", "SessionEnd"],
                    ours,
                    json!({ "hooks": [hook("rail-end", 2000)] }),
                ),
                Change::Set {
                    path: vec!["mcpServers".into(), "rail".into()],
                    value: setup::mcp(rail_exe),
                },
            ],
        }]
    }

    fn evidence_files(&self) -> &'static [&'static str] {
        &[".gemini/settings.json"]
    }

    fn trust(&self) -> Option<TrustFile> {
        Some(TrustFile {
            trust_all: Some("GEMINI_CLI_TRUST_WORKSPACE"),
            env: TrustEnv::File("GEMINI_CLI_TRUSTED_FOLDERS_PATH"),
            home_dir: ".gemini",
            file: "trustedFolders.json",
            judge: trusts,
            fix: |folder| {
                format!(
                "run `gemini` in {folder} and choose \"Trust folder\" (or add \"{folder}\": \"TRUST_FOLDER\" to ~/.gemini/trustedFolders.json); --skip-trust alone loads no project hook"
            )
            },
            by_main_checkout: false,
            hooks: None,
        })
    }
}

/// Gemini CLI: `trustedFolders.json` maps paths to `TRUST_FOLDER` (that folder and below),
/// `TRUST_PARENT` (its parent and below) or `DO_NOT_TRUST`; the most specific rule that covers
/// `folder` decides.
fn trusts(trusted_folders: &str, folder: &str) -> Trust {
    let Ok(node) = crate::formats::jsonc::parse(trusted_folders) else {
        return Trust::Unknown("trustedFolders.json does not parse".into());
    };
    let value = node.to_value();
    let Some(rules) = value.as_object() else {
        return Trust::Unknown("trustedFolders.json is not an object".into());
    };
    let mut best: Option<(usize, bool)> = None;
    for (path, level) in rules {
        let (root, trusted) = match level.as_str() {
            Some("TRUST_FOLDER") => (Some(path.clone()), true),
            Some("TRUST_PARENT") => (crate::agent::doctor::parent(path), true),
            Some("DO_NOT_TRUST") => (Some(path.clone()), false),
            _ => {
                return Trust::Unknown(format!(
                    "trustedFolders.json: `{path}` has a level Rail does not know"
                ))
            }
        };
        let Some(root) = root else { continue };
        if within(folder, &root) && best.is_none_or(|(len, _)| root.len() >= len) {
            best = Some((root.len(), trusted));
        }
    }
    match best {
        Some((_, true)) => Trust::Trusted,
        _ => Trust::NotTrusted,
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::read;
    use super::super::tests::tool;
    use super::super::{answer, Harness};
    use super::*;

    #[test]
    fn gemini_shell_runs_in_its_dir_path() {
        let g = read(
            AGENT,
            r#"{"hook_event_name":"BeforeTool","cwd":"/w","tool_name":"run_shell_command","tool_input":{"command":"rm x /tmp/y","dir_path":"src"}}"#,
        );
        if cfg!(feature = "shell") {
            assert_eq!(tool(&g).0, ["src/x", "/tmp/y"]);
        } else {
            // Without the grammar the command is named as not judged, never allowed silently.
            assert!(!tool(&g).1.is_empty());
        }
    }

    #[test]
    fn a_denial_is_a_decision() {
        assert_eq!(
            answer(Harness::of(AGENT), &Outcome::Deny("held".into()))
                .stdout
                .unwrap(),
            r#"{"decision":"deny","reason":"held"}"#
        );
    }

    #[test]
    fn gemini_trust_takes_the_most_specific_rule() {
        let f = r#"{"/w": "TRUST_FOLDER", "/w/app/vendor": "DO_NOT_TRUST", "/home/u/p/x": "TRUST_PARENT"}"#;
        assert_eq!(trusts(f, "/w/app"), Trust::Trusted);
        assert_eq!(trusts(f, "/w/app/vendor/lib"), Trust::NotTrusted);
        assert_eq!(trusts(f, "/home/u/p/station"), Trust::Trusted);
        assert_eq!(trusts(f, "/elsewhere"), Trust::NotTrusted);
        assert_eq!(trusts(f, "/wx"), Trust::NotTrusted);
        assert!(matches!(trusts("{", "/w"), Trust::Unknown(_)));
        assert!(matches!(
            trusts(r#"{"/w": "MAYBE"}"#, "/w"),
            Trust::Unknown(_)
        ));
    }
    #[test]
    fn the_after_tool_event_is_read_and_answered_in_its_own_format() {
        let call = super::super::tests::read(
            AGENT,
            r#"{"hook_event_name":"AfterTool","cwd":"/w","tool_name":"run_shell_command","tool_use_id":"toolu_9","tool_input":{"command":"python3 x.py"},"tool_response":{}}"#,
        );
        assert_eq!(
            call.event,
            Event::AfterTool {
                tool: "run_shell_command".into()
            }
        );
        assert_eq!(call.call_id.as_deref(), Some("toolu_9"));
        let a = super::super::answer(Harness::of(AGENT), &Outcome::After("put back".into()));
        assert_eq!(
            (a.code, a.stdout.as_deref()),
            (0, Some(r#"{"decision":"deny","reason":"put back"}"#))
        );
        let installed = format!("{:?}", AGENT.files("rail", "rail"));
        assert!(installed.contains("AfterTool"), "{installed}");
    }
}
