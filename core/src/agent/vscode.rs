//! VS Code's agent (its Local harness): its payloads (camelCase, `hookEventName`) and built-in
//! tools, its answer (Claude Code's format) and what `rail init --agents` installs for it (the
//! hooks in `.claude/settings.json`, the `rail` server in `.vscode/mcp.json`).
//!
//! It has no hook command of its own: it runs Claude Code's settings file and Copilot CLI's
//! `.github/hooks` files, whose hooks recognise its payloads ([`Spec::guest`]) and read them
//! here.

use serde_json::{Map, Value};

use super::{
    apply_patch, by_verb, claude, field, mcp_by_name, path_arguments, shell_writes, Agent, Answer,
    Event, Harness, Outcome, Spec, ToolWrites,
};
use crate::agent::setup::{self, FileChanges};

pub const AGENT: Agent = Agent::new(&VsCode);

struct VsCode;

impl Spec for VsCode {
    fn name(&self) -> &'static str {
        "vscode"
    }

    fn title(&self) -> &'static str {
        "VS Code"
    }

    fn event(&self, _: Harness, name: &str, payload: &Map<String, Value>) -> Option<Event> {
        (name == "PreToolUse").then(|| super::tool_call(self, payload, false))
    }

    fn tool(
        &self,
        name: &str,
        input: &Value,
        _: &Map<String, Value>,
    ) -> Result<ToolWrites, String> {
        let mut found = ToolWrites::default();
        tool(name, input, &mut found)?;
        Ok(found)
    }

    fn answer(&self, outcome: &Outcome) -> Answer {
        claude::answer(outcome)
    }

    fn markers(&self) -> &'static [&'static str] {
        &[".vscode", ".github/copilot-instructions.md"]
    }

    fn needs(&self) -> &'static str {
        "VS Code's agent runs the hooks in .claude/settings.json (agent hooks are a preview: allow them if your settings restrict `chat.hookFilesLocations`); start and trust the `rail` server from .vscode/mcp.json in the MCP view"
    }

    fn files(&self, rail: &str, rail_exe: &str) -> Vec<FileChanges> {
        vec![
            claude::settings(rail),
            setup::set_json(
                ".vscode/mcp.json",
                &["servers", "rail"],
                setup::mcp_stdio(rail_exe),
            ),
        ]
    }

    fn evidence_files(&self) -> &'static [&'static str] {
        &[".vscode/mcp.json"]
    }

    /// Its MCP file names the `rail` server (its hooks are Claude Code's).
    fn set_up(&self, file: &Value) -> bool {
        file["servers"]["rail"].is_object()
    }
}

/// VS Code's agent (Local harness): its built-in tools, camelCase arguments. Its hooks run for
/// every tool (matchers are ignored), so tools that only read must pass quietly.
fn tool(tool: &str, input: &Value, found: &mut ToolWrites) -> Result<(), String> {
    match tool {
        "create_file"
        | "createFile"
        | "replace_string_in_file"
        | "replaceString"
        | "insert_edit_into_file"
        | "insertEdit"
        | "edit_notebook_file"
        | "editNotebook"
        | "create_new_jupyter_notebook" => {
            found
                .targets
                .push(field(tool, input, &["filePath", "file_path", "path"])?);
        }
        "create_directory" | "createDirectory" => {
            found
                .targets
                .push(field(tool, input, &["dirPath", "path", "filePath"])?);
        }
        "multi_replace_string_in_file" | "editFiles" | "edit_files" => {
            let mut paths = path_arguments(input);
            if let Some(items) = input.get("replacements").and_then(Value::as_array) {
                paths.extend(
                    items
                        .iter()
                        .filter_map(|r| r.get("filePath").and_then(Value::as_str))
                        .map(str::to_string),
                );
            }
            if paths.is_empty() {
                return Err(format!("{tool} call without a file path"));
            }
            found.targets.extend(paths);
        }
        "apply_patch" | "applyPatch" => {
            apply_patch(&field(tool, input, &["input", "patch", "command"])?, found)?
        }
        "run_in_terminal" | "runInTerminal" | "runTerminalCommand" | "run_terminal_command" => {
            let c = field(tool, input, &["command"])?;
            shell_writes(&c, None, found);
        }
        _ if tool.starts_with("mcp_") && tool.contains("__") => mcp_by_name(tool, input, found),
        _ => by_verb(tool, input, found),
    }
    Ok(())
}
