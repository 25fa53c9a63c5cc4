//! What each agent's hook says, and how to answer it: the wire formats of Claude Code, Codex,
//! Cursor, Gemini CLI and VS Code's agent, as rules.
//!
//! A host reads the payload's text from stdin and hands it to [`read`]: the call's event, where
//! the agent works, and for a tool call the paths it writes and what in it cannot be judged
//! (shell commands through [`crate::shell`], Codex patches through [`crate::patch`], MCP tools by
//! the table below). The decision itself is [`crate::hook::judge`], the same for every agent.
//! [`answer`] turns the decision into the exact bytes and exit code that agent obeys — each
//! has its own trap (docs/agents.md):
//!
//! - **Codex** fails open: a deny must be exactly its `hookSpecificOutput` object (one extra key
//!   and the JSON is invalid, the hook "failed", the tool runs); exit 2 with an empty stderr is
//!   no block either. So a denial is always that object, on exit 0.
//! - **Cursor** with `failClosed` blocks on empty output: every answer, allows included, is
//!   explicit JSON.
//! - **Gemini CLI** reads `{"decision":"deny","reason":…}`.
//! - **Copilot CLI** fails open (a hook that fails or times out is skipped) and its camelCase
//!   payloads name no event: the installed command says which (`--event`), and a tool's
//!   arguments arrive as JSON text inside the JSON. A denial is `permissionDecision: "deny"` on
//!   exit 0; an `agentStop` answer never says `block` (that would force another turn).
//! - **Claude Code** blocks on exit 2 with the reason on stderr. Its settings file is also loaded
//!   by VS Code's agent (camelCase payloads, its own tool names) and by Cursor (opt-in), so the
//!   Claude hook recognises their payloads by shape and judges them with their tool tables.
//!
//! Stop and session-end events are never answered with an edit denial: they renew or release,
//! within each agent's limit for that event ([`lifecycle_budget_ms`]), and always let the agent
//! stop.

use serde_json::{json, Map, Value};

use crate::{patch, shell};

/// The `rail hook <agent>` subcommand that received the payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agent {
    Claude,
    Codex,
    Cursor,
    Gemini,
    Copilot,
}

impl Agent {
    pub fn name(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Cursor => "cursor",
            Agent::Gemini => "gemini",
            Agent::Copilot => "copilot",
        }
    }
}

/// Who actually sent the payload (the Claude hook also runs inside VS Code and Cursor).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Harness {
    ClaudeCode,
    VsCode,
    /// Cursor running Claude Code's hooks (Settings → third-party skills): Cursor's payload,
    /// answered Claude's way.
    CursorViaClaude,
    Codex,
    Cursor,
    Gemini,
    /// GitHub Copilot CLI (`.github/hooks/*.json`). VS Code's agent loads the same files; its
    /// payloads (camelCase with `hookEventName`) are read as [`Harness::VsCode`].
    Copilot,
}

impl Harness {
    pub fn name(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "Claude Code",
            Harness::VsCode => "VS Code",
            Harness::CursorViaClaude | Harness::Cursor => "Cursor",
            Harness::Codex => "Codex",
            Harness::Gemini => "Gemini CLI",
            Harness::Copilot => "Copilot CLI",
        }
    }
}

/// What a hook call is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A tool call, before it runs: the paths it writes (as written: relative to `cwd`, or
    /// absolute) and the parts Rail cannot judge.
    Tool {
        tool: String,
        targets: Vec<String>,
        unanalysed: Vec<String>,
    },
    /// The agent finished a turn: it is active, its lease is renewed.
    Stop,
    /// The session ended: its claims are released (rail.yaml `on_stop`).
    SessionEnd,
    /// An event Rail has nothing to do with (answered with the agent's plain "go on").
    Pass,
    /// The payload cannot be read: the hook cannot judge (never a silent allow).
    Malformed(String),
}

impl Event {
    /// Stop and session end: answered in their own terms, never with an edit denial.
    pub fn is_lifecycle(&self) -> bool {
        matches!(self, Event::Stop | Event::SessionEnd)
    }
}

/// A hook call, read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    pub harness: Harness,
    /// The payload's event name as sent (for messages).
    pub event_name: String,
    pub event: Event,
    /// Where the agent works: the payload's `cwd`, else its first workspace root (Cursor's
    /// file tools carry no `cwd`). `None`: the host's own working directory.
    pub cwd: Option<String>,
}

/// Reads a hook payload sent to `rail hook <agent>`.
pub fn read(agent: Agent, input: &str) -> Call {
    read_event(agent, input, None)
}

/// Reads a hook payload, with the event name the installed command gave (`rail hook copilot
/// --event preToolUse`) for payloads that carry none. The payload's own name wins.
pub fn read_event(agent: Agent, input: &str, event: Option<&str>) -> Call {
    let default = match agent {
        Agent::Claude => Harness::ClaudeCode,
        Agent::Codex => Harness::Codex,
        Agent::Cursor => Harness::Cursor,
        Agent::Gemini => Harness::Gemini,
        Agent::Copilot => Harness::Copilot,
    };
    let malformed = |why: String| Call {
        harness: default,
        event_name: String::new(),
        event: Event::Malformed(why),
        cwd: None,
    };
    // Cursor on Windows starts each payload with a byte-order mark.
    let input = input.strip_prefix('\u{feff}').unwrap_or(input);
    let payload = match serde_json::from_str::<Value>(input) {
        Ok(Value::Object(map)) => map,
        Ok(_) => return malformed("the hook input is not a JSON object".into()),
        Err(e) => return malformed(format!("the hook input is not JSON ({e})")),
    };
    let harness = match agent {
        Agent::Claude => claude_caller(&payload),
        // VS Code's agent loads `.github/hooks` too, and sends its own payloads.
        Agent::Copilot if payload.contains_key("hookEventName") => Harness::VsCode,
        _ => default,
    };
    let text = |key: &str| payload.get(key).and_then(Value::as_str);
    let event_name = text("hook_event_name")
        .or_else(|| text("hookEventName"))
        .or(event.filter(|e| !e.is_empty()))
        .or_else(|| {
            // Copilot's camelCase tool payloads name no event; only a tool call has a tool.
            (harness == Harness::Copilot && payload.contains_key("toolName"))
                .then_some("preToolUse")
        })
        .unwrap_or("")
        .to_string();
    let cwd = text("cwd")
        .filter(|c| !c.is_empty())
        .map(str::to_string)
        .or_else(|| {
            payload
                .get("workspace_roots")
                .and_then(Value::as_array)
                .and_then(|roots| roots.iter().find_map(Value::as_str))
                .map(workspace_root)
        });
    if event_name.is_empty() {
        return Call {
            cwd,
            ..malformed("the hook input has no hook_event_name".into())
        };
    }
    let event = match (harness, event_name.as_str()) {
        (Harness::Cursor | Harness::CursorViaClaude, name) if is_pre_tool(name) => {
            tool_call(harness, &payload)
        }
        (Harness::Cursor, name) if name.eq_ignore_ascii_case("beforeShellExecution") => {
            match text("command") {
                Some(command) => shell_call("Shell", command, None),
                None => Event::Malformed("beforeShellExecution without `command`".into()),
            }
        }
        (Harness::Gemini, "BeforeTool") => tool_call(harness, &payload),
        (Harness::Gemini, "AfterAgent") => Event::Stop,
        (Harness::Copilot, name) if is_pre_tool(name) => copilot_call(&payload),
        (Harness::Copilot, name) if name.eq_ignore_ascii_case("agentStop") => Event::Stop,
        (Harness::ClaudeCode | Harness::VsCode | Harness::Codex, "PreToolUse") => {
            tool_call(harness, &payload)
        }
        (_, name) if name.eq_ignore_ascii_case("stop") => Event::Stop,
        (_, name) if name.eq_ignore_ascii_case("sessionend") => Event::SessionEnd,
        _ => Event::Pass,
    };
    Call {
        harness,
        event_name,
        event,
        cwd,
    }
}

fn is_pre_tool(name: &str) -> bool {
    name.eq_ignore_ascii_case("pretooluse")
}

/// Cursor on Windows reports workspace roots as `/C:/…`.
fn workspace_root(root: &str) -> String {
    let b = root.as_bytes();
    if b.len() >= 3 && b[0] == b'/' && b[1].is_ascii_alphabetic() && b[2] == b':' {
        root[1..].to_string()
    } else {
        root.to_string()
    }
}

/// Who sent a payload to the Claude hook, by its shape: VS Code's agent writes camelCase
/// (`hookEventName`, `sessionId`); Cursor sends `conversation_id` and `cursor_version`.
fn claude_caller(payload: &Map<String, Value>) -> Harness {
    if payload.contains_key("cursor_version") || payload.contains_key("conversation_id") {
        Harness::CursorViaClaude
    } else if payload.contains_key("hookEventName") || payload.contains_key("sessionId") {
        Harness::VsCode
    } else {
        Harness::ClaudeCode
    }
}

/// Writes found in a tool call, while reading it.
#[derive(Default)]
struct Found {
    targets: Vec<String>,
    unanalysed: Vec<String>,
}

impl Found {
    fn event(self, tool: &str) -> Event {
        Event::Tool {
            tool: tool.to_string(),
            targets: self.targets,
            unanalysed: self.unanalysed,
        }
    }
}

fn tool_call(harness: Harness, payload: &Map<String, Value>) -> Event {
    let Some(tool) = payload.get("tool_name").and_then(Value::as_str) else {
        return Event::Malformed("a tool call without `tool_name`".into());
    };
    // Cursor's MCP tools may carry their arguments as a JSON string.
    let parsed;
    let input = match payload.get("tool_input") {
        Some(Value::String(s)) if harness_is_cursor(harness) => {
            parsed = serde_json::from_str::<Value>(s).unwrap_or(Value::Null);
            &parsed
        }
        Some(v) => v,
        None => &Value::Null,
    };
    match tool_writes(harness, tool, input, payload) {
        Ok(found) => found.event(tool),
        Err(why) => Event::Malformed(why),
    }
}

/// A Copilot CLI tool call: `toolName` and `toolArgs`, the arguments as JSON text (an object
/// in some versions), or `tool_name` and `tool_input` when the hook is installed under a
/// PascalCase event name.
fn copilot_call(payload: &Map<String, Value>) -> Event {
    let Some(tool) = ["toolName", "tool_name"]
        .iter()
        .find_map(|k| payload.get(*k).and_then(Value::as_str))
    else {
        return Event::Malformed("a tool call without `toolName`".into());
    };
    // A reader passes, whatever its arguments.
    if COPILOT_READERS.contains(&tool) {
        return Found::default().event(tool);
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
    match tool_writes(Harness::Copilot, tool, input, payload) {
        Ok(found) => found.event(tool),
        Err(why) => Event::Malformed(why),
    }
}

/// Copilot CLI's tools that only read, ask or plan.
const COPILOT_READERS: &[&str] = &[
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
fn copilot_tool(tool: &str, input: &Value) -> Result<Found, String> {
    let mut found = Found::default();
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

fn harness_is_cursor(h: Harness) -> bool {
    matches!(h, Harness::Cursor | Harness::CursorViaClaude)
}

/// A string field of the tool input, required: a writing tool without its path cannot be judged.
fn field(tool: &str, input: &Value, names: &[&str]) -> Result<String, String> {
    names
        .iter()
        .find_map(|n| {
            input
                .get(*n)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        })
        .map(str::to_string)
        .ok_or_else(|| format!("{tool} call without `tool_input.{}`", names[0]))
}

fn shell_call(tool: &str, command: &str, dir: Option<&str>) -> Event {
    let mut found = Found::default();
    shell_writes(command, dir, &mut found);
    found.event(tool)
}

/// A shell command's writes: the shell reader's, plus any `apply_patch` envelope written out in
/// it (heredoc bodies are data to the shell reader). `dir`: where the command runs, relative to
/// the agent's `cwd` (Gemini's `dir_path`).
fn shell_writes(command: &str, dir: Option<&str>, found: &mut Found) {
    let writes = shell::writes(command);
    let mut targets = writes.targets;
    found.unanalysed.extend(writes.unanalysed);
    for patch in patch::embedded(command) {
        match patch {
            Ok(paths) => targets.extend(paths),
            Err(why) => found
                .unanalysed
                .push(format!("a patch in the command ({why})")),
        }
    }
    match dir.filter(|d| !d.is_empty() && *d != ".") {
        Some(dir) => found.targets.extend(targets.into_iter().map(|t| {
            if t.starts_with('/') {
                t
            } else {
                format!("{}/{t}", dir.trim_end_matches('/'))
            }
        })),
        None => found.targets.extend(targets),
    }
}

fn apply_patch(text: &str, found: &mut Found) -> Result<(), String> {
    let paths = patch::paths(text).map_err(|why| format!("apply_patch: {why}"))?;
    found.targets.extend(paths);
    Ok(())
}

/// The paths a tool call writes, by harness and tool name. `Err`: a writing tool whose input
/// lacks what it writes (cannot judge).
fn tool_writes(
    harness: Harness,
    tool: &str,
    input: &Value,
    payload: &Map<String, Value>,
) -> Result<Found, String> {
    let mut found = Found::default();
    let command = |found: &mut Found, dir: Option<&str>| -> Result<(), String> {
        let c = field(tool, input, &["command"])?;
        shell_writes(&c, dir, found);
        Ok(())
    };
    match harness {
        Harness::ClaudeCode => match tool {
            "Edit" | "Write" | "MultiEdit" => {
                found.targets.push(field(tool, input, &["file_path"])?)
            }
            "NotebookEdit" => found.targets.push(field(tool, input, &["notebook_path"])?),
            "Bash" => command(&mut found, None)?,
            _ => mcp_by_name(tool, input, &mut found),
        },
        Harness::Codex => match tool {
            "Bash" => command(&mut found, None)?,
            // `tool_input.command` is the raw patch (function and freeform forms alike).
            "apply_patch" | "Write" | "Edit" => apply_patch(
                &field(tool, input, &["command", "input", "patch"])?,
                &mut found,
            )?,
            _ => mcp_by_name(tool, input, &mut found),
        },
        Harness::Cursor | Harness::CursorViaClaude => {
            match tool {
                "Write" | "Delete" | "Edit" | "StrReplace" | "MultiEdit" => found
                    .targets
                    .push(field(tool, input, &["file_path", "path"])?),
                "Shell" | "Bash" => {
                    // Shell's own `cwd` is where the command runs.
                    let dir = input.get("cwd").and_then(Value::as_str);
                    command(&mut found, dir)?
                }
                _ => match tool.strip_prefix("MCP:") {
                    Some(name) => mcp(None, name, tool, input, &mut found),
                    None => by_verb(tool, input, &mut found),
                },
            }
        }
        Harness::Gemini => match tool {
            "write_file" | "replace" | "edit" => {
                found.targets.push(field(tool, input, &["file_path"])?)
            }
            "run_shell_command" => {
                let dir = input.get("dir_path").and_then(Value::as_str);
                command(&mut found, dir)?
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
        },
        Harness::VsCode => vscode_tool(tool, input, &mut found)?,
        Harness::Copilot => return copilot_tool(tool, input),
    }
    Ok(found)
}

/// `mcp__<server>__<tool>` (Claude Code, Codex, VS Code); other names write nothing Rail knows.
fn mcp_by_name(tool: &str, input: &Value, found: &mut Found) {
    if let Some(rest) = tool.strip_prefix("mcp__") {
        let (server, name) = match rest.split_once("__") {
            Some((s, n)) => (Some(s), n),
            None => (None, rest),
        };
        mcp(server, name, tool, input, found);
    }
}

/// Rail's own MCP tools (`rail mcp`): they change the rail through its lock and core's
/// operations, which judge them; they edit nobody's work.
pub const RAIL_MCP_TOOLS: &[&str] = &[
    "claim", "release", "renew", "take", "update", "who", "check", "board", "ready", "lock",
];

/// Verbs of a tool name that only read.
const READ_VERBS: &[&str] = &[
    "get", "list", "read", "search", "find", "query", "fetch", "describe", "show", "view",
    "lookup", "grep", "glob", "stat", "count", "check", "inspect", "explain", "who", "board",
    "ready", "status", "diff", "log", "resolve",
];

/// Verbs of a tool name that write.
const WRITE_VERBS: &[&str] = &[
    "write", "edit", "create", "replace", "delete", "remove", "rename", "move", "patch", "insert",
    "update", "append", "save", "put", "set", "mkdir", "copy", "apply", "modify", "upload",
    "truncate", "rm", "mv", "cp", "touch",
];

/// Argument names that hold a path a tool writes.
const PATH_FIELDS: &[&str] = &[
    "file_path",
    "filePath",
    "path",
    "notebook_path",
    "dir_path",
    "dirPath",
    "destination",
    "target",
    "new_path",
    "newPath",
    "source",
];
const PATH_LISTS: &[&str] = &["paths", "files", "filePaths", "file_paths"];

/// Words of a tool name that say it does something more than its first verb (`fetch_to_file`,
/// `get_or_create_file`, `find_and_replace`, `download_file`).
const WRITE_WORDS: &[&str] = &[
    "to",
    "into",
    "and",
    "or",
    "then",
    "save",
    "download",
    "output",
    "export",
    "dump",
    "store",
    "add",
    "new",
    "make",
    "generate",
    "gen",
    "overwrite",
    "rewrite",
    "change",
    "fix",
    "format",
    "refactor",
    "upsert",
    "sync",
    "install",
    "init",
    "clear",
    "reset",
    "restore",
    "revert",
    "commit",
    "merge",
    "checkout",
    "extract",
    "unzip",
    "clone",
    "run",
    "exec",
    "execute",
];

/// The words of a tool name, lower case (`write_file`, `createFile`, `list-dir`, `fs.read`).
fn words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// A name that says, as a whole, that the tool only reads: it starts with a read verb and no
/// word of it writes or joins another action (`read_file`, `list_dir`, `get_issue`; not
/// `search_replace`, `fetch_to_file`, `get_or_create_file`).
fn says_read_only(name: &str) -> bool {
    let w = words(name);
    w.first().is_some_and(|v| READ_VERBS.contains(&v.as_str())) && !says_write(name)
}

/// A word anywhere in the name that writes (`search_replace`, `fs_write`, `fetch_to_file`).
fn says_write(name: &str) -> bool {
    words(name)
        .iter()
        .any(|w| WRITE_VERBS.contains(&w.as_str()) || WRITE_WORDS.contains(&w.as_str()))
}

fn path_arguments(input: &Value) -> Vec<String> {
    let mut out: Vec<String> = PATH_FIELDS
        .iter()
        .filter_map(|f| input.get(*f).and_then(Value::as_str))
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    for list in PATH_LISTS {
        if let Some(items) = input.get(*list).and_then(Value::as_array) {
            out.extend(items.iter().filter_map(|v| {
                match v {
                    Value::String(s) => Some(s.clone()),
                    other => other
                        .get("path")
                        .or_else(|| other.get("filePath"))
                        .and_then(Value::as_str)
                        .map(str::to_string),
                }
            }));
        }
    }
    out
}

/// An MCP tool call. Rail's own tools pass; a tool whose whole name says it only reads passes
/// ([`says_read_only`]: a read verb first is not enough); any other tool with path arguments is
/// judged by them; the rest cannot be judged (a warning, or a denial with
/// `hook_unanalysed: deny`).
fn mcp(server: Option<&str>, name: &str, full: &str, input: &Value, found: &mut Found) {
    if server == Some("rail") && RAIL_MCP_TOOLS.contains(&name) {
        return;
    }
    if says_read_only(name) {
        return;
    }
    let paths = path_arguments(input);
    if !paths.is_empty() {
        found.targets.extend(paths);
        return;
    }
    let whose = match server {
        Some(s) => format!("server `{s}`"),
        None => "an unnamed server".to_string(),
    };
    found.unanalysed.push(format!(
        "`{full}` (an MCP tool of {whose}; Rail cannot tell what it writes)"
    ));
}

/// A tool Rail has no table for: judged by its path arguments if a word of its name says it
/// writes (`search_replace` too, not only `write_file`).
fn by_verb(tool: &str, input: &Value, found: &mut Found) {
    if !says_write(tool) {
        return;
    }
    let paths = path_arguments(input);
    if paths.is_empty() {
        found.unanalysed.push(format!(
            "`{tool}` (a tool that writes, with no path Rail can read)"
        ));
    } else {
        found.targets.extend(paths);
    }
}

/// VS Code's agent (Local harness): its built-in tools, camelCase arguments. Its hooks run for
/// every tool (matchers are ignored), so tools that only read must pass quietly.
fn vscode_tool(tool: &str, input: &Value, found: &mut Found) -> Result<(), String> {
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

/// What Rail decided, in the hook's terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Let the tool run; nothing to say.
    Allow,
    /// Let it run and tell the agent (and the person) this.
    Warn(String),
    /// Block the tool call, with the reason.
    Deny(String),
    /// A Stop or session-end event was handled; an optional note (something went wrong). The
    /// agent always stops: never a block, never an edit denial.
    Lifecycle(Option<String>),
}

/// The hook's answer: what to print on each stream and the exit code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// JSON for stdout (printed as is).
    pub stdout: Option<String>,
    /// Text for stderr.
    pub stderr: Option<String>,
    pub code: i32,
}

/// Claude Code's blocking exit code (also VS Code's and Cursor's for Claude-format hooks).
pub const CLAUDE_BLOCK: i32 = 2;

/// The answer `harness` obeys for `outcome`.
pub fn answer(harness: Harness, outcome: &Outcome) -> Answer {
    let out = |v: Value| Answer {
        stdout: Some(v.to_string()),
        stderr: None,
        code: 0,
    };
    let quiet = Answer {
        stdout: None,
        stderr: None,
        code: 0,
    };
    match harness {
        Harness::ClaudeCode | Harness::VsCode | Harness::CursorViaClaude => match outcome {
            Outcome::Allow | Outcome::Lifecycle(None) => quiet,
            // Never an "allow", which would skip the user's own permission prompts.
            Outcome::Warn(m) => out(json!({
                "systemMessage": m,
                "hookSpecificOutput": { "hookEventName": "PreToolUse", "additionalContext": m }
            })),
            Outcome::Deny(m) => Answer {
                stdout: None,
                stderr: Some(m.clone()),
                code: CLAUDE_BLOCK,
            },
            Outcome::Lifecycle(Some(m)) => out(json!({ "systemMessage": m })),
        },
        // Exactly these keys: Codex rejects (and so runs the tool past) any other.
        Harness::Codex => match outcome {
            Outcome::Allow | Outcome::Lifecycle(None) => quiet,
            Outcome::Warn(m) | Outcome::Lifecycle(Some(m)) => out(json!({ "systemMessage": m })),
            Outcome::Deny(m) => out(json!({
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": non_empty(m),
                }
            })),
        },
        // failClosed: empty output blocks, so every answer is explicit.
        Harness::Cursor => match outcome {
            Outcome::Allow => out(json!({ "permission": "allow" })),
            Outcome::Warn(m) => out(json!({
                "permission": "allow", "user_message": m, "agent_message": m
            })),
            Outcome::Deny(m) => out(json!({
                "permission": "deny", "user_message": non_empty(m), "agent_message": non_empty(m)
            })),
            Outcome::Lifecycle(_) => out(json!({})),
        },
        Harness::Gemini => match outcome {
            Outcome::Allow | Outcome::Lifecycle(None) => quiet,
            Outcome::Warn(m) | Outcome::Lifecycle(Some(m)) => out(json!({ "systemMessage": m })),
            Outcome::Deny(m) => out(json!({ "decision": "deny", "reason": non_empty(m) })),
        },
        // A warning goes to the model as context and to the person on stderr; an agentStop
        // answer with `decision` would force another turn, so lifecycle notes are stderr only.
        Harness::Copilot => match outcome {
            Outcome::Allow | Outcome::Lifecycle(None) => quiet,
            Outcome::Warn(m) => Answer {
                stdout: Some(json!({ "additionalContext": m }).to_string()),
                stderr: Some(m.clone()),
                code: 0,
            },
            Outcome::Deny(m) => out(json!({
                "permissionDecision": "deny",
                "permissionDecisionReason": non_empty(m),
            })),
            Outcome::Lifecycle(Some(m)) => Answer {
                stdout: None,
                stderr: Some(m.clone()),
                code: 0,
            },
        },
    }
}

/// The answer to an event Rail passes (`Event::Pass`) or a tool it allows.
pub fn pass(harness: Harness, call_event: &Event) -> Answer {
    if call_event.is_lifecycle() {
        answer(harness, &Outcome::Lifecycle(None))
    } else {
        answer(harness, &Outcome::Allow)
    }
}

fn non_empty(m: &str) -> &str {
    if m.trim().is_empty() {
        "Rail denied this tool call"
    } else {
        m
    }
}

/// How long a Stop or session-end hook may take, in milliseconds, by each agent's limit for
/// that event (with a margin for starting the process): Codex caps SessionEnd at 3 s; Claude
/// Code's SessionEnd budget is 1.5 s unless a hook's `timeout` raises it (Rail installs 30 s);
/// Gemini and Cursor do not wait for their session-end hooks at all (Rail installs them with 2 s
/// and 10 s). A Stop comes at every turn's end, so it is kept short everywhere.
pub fn lifecycle_budget_ms(harness: Harness, event: &Event) -> u64 {
    match (harness, event) {
        (Harness::Codex, Event::SessionEnd) => 2_500,
        (Harness::Gemini | Harness::Cursor, Event::SessionEnd) => 1_500,
        // Rail installs Gemini's AfterAgent hook with a 5,000 ms timeout.
        (Harness::Gemini, Event::Stop) => 4_000,
        _ => 5_000,
    }
}

/// How long a lifecycle event may wait for the rail lock: half its budget, so the answer still
/// comes in time when another writer holds the lock.
pub fn lifecycle_lock_wait_ms(harness: Harness, event: &Event) -> u64 {
    lifecycle_budget_ms(harness, event) / 2
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(call: &Call) -> (&[String], &[String]) {
        match &call.event {
            Event::Tool {
                targets,
                unanalysed,
                ..
            } => (targets, unanalysed),
            other => panic!("not a tool call: {other:?}"),
        }
    }

    #[test]
    fn the_claude_hook_knows_vscode_and_cursor_payloads() {
        let vs = read(
            Agent::Claude,
            r#"{"hookEventName":"PreToolUse","sessionId":"s","cwd":"/w","tool_name":"replace_string_in_file","tool_input":{"filePath":"/w/src/a.ts"}}"#,
        );
        assert_eq!(vs.harness, Harness::VsCode);
        assert_eq!(tool(&vs).0, ["/w/src/a.ts"]);
        let read_only = read(
            Agent::Claude,
            r#"{"hookEventName":"PreToolUse","sessionId":"s","cwd":"/w","tool_name":"read_file","tool_input":{"filePath":"/w/src/a.ts"}}"#,
        );
        assert_eq!(tool(&read_only), (&[][..], &[][..]));
        let cursor = read(
            Agent::Claude,
            r#"{"hook_event_name":"preToolUse","conversation_id":"c","cursor_version":"3.9","workspace_roots":["/w"],"tool_name":"Write","tool_input":{"file_path":"/w/x"}}"#,
        );
        assert_eq!(cursor.harness, Harness::CursorViaClaude);
        assert_eq!(cursor.cwd.as_deref(), Some("/w"));
        assert_eq!(tool(&cursor).0, ["/w/x"]);
    }

    #[test]
    fn codex_patches_and_mcp_tools() {
        let p = read(
            Agent::Codex,
            r#"{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Update File: a.rs\n*** Move to: b.rs\n@@\n-x\n+y\n*** End Patch\n"}}"#,
        );
        assert_eq!(tool(&p).0, ["a.rs", "b.rs"]);
        let bad = read(
            Agent::Codex,
            r#"{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Add File: a\n+x\n"}}"#,
        );
        assert!(matches!(bad.event, Event::Malformed(ref m) if m.contains("End Patch")));
        let own = read(
            Agent::Codex,
            r#"{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"mcp__rail__claim","tool_input":{"task":"t"}}"#,
        );
        assert_eq!(tool(&own), (&[][..], &[][..]));
        let fs = read(
            Agent::Codex,
            r#"{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"mcp__fs__write_file","tool_input":{"path":"src/a","content":"x"}}"#,
        );
        assert_eq!(tool(&fs).0, ["src/a"]);
        let unknown = read(
            Agent::Codex,
            r#"{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"mcp__db__migrate","tool_input":{}}"#,
        );
        assert!(tool(&unknown).1[0].contains("mcp__db__migrate"));
        let lister = read(
            Agent::Codex,
            r#"{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"mcp__db__list_tables","tool_input":{}}"#,
        );
        assert_eq!(tool(&lister), (&[][..], &[][..]));
    }

    /// Issue 28, finding 5: a read verb first is not a read-only name. Each tool below writes
    /// the path it is given, and is judged by it; each tool without one is named.
    #[test]
    fn a_read_verb_first_does_not_make_a_tool_read_only() {
        let call = |agent: Agent, payload: String| read(agent, &payload);
        for name in [
            "search_replace",
            "find_and_replace",
            "fetch_to_file",
            "get_or_create_file",
            "searchAndReplace",
            "read-modify-write",
            "list_and_delete",
        ] {
            let input = r#"{"path":"src/auth/a.ts"}"#;
            for (agent, payload) in [
                (
                    Agent::Claude,
                    format!(
                        r#"{{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"mcp__srv__{name}","tool_input":{input}}}"#
                    ),
                ),
                (
                    Agent::Codex,
                    format!(
                        r#"{{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"mcp__srv__{name}","tool_input":{input}}}"#
                    ),
                ),
                (
                    Agent::Cursor,
                    format!(
                        r#"{{"hook_event_name":"preToolUse","workspace_roots":["/w"],"tool_name":"MCP:{name}","tool_input":{input}}}"#
                    ),
                ),
                (
                    Agent::Cursor,
                    format!(
                        r#"{{"hook_event_name":"preToolUse","workspace_roots":["/w"],"tool_name":"{name}","tool_input":{input}}}"#
                    ),
                ),
                (
                    Agent::Gemini,
                    format!(
                        r#"{{"hook_event_name":"BeforeTool","cwd":"/w","tool_name":"mcp_srv_{name}","mcp_context":{{"server_name":"srv"}},"tool_input":{input}}}"#
                    ),
                ),
                (
                    Agent::Copilot,
                    format!(r#"{{"toolName":"srv-{name}","toolArgs":{input:?}}}"#),
                ),
            ] {
                let c = call(agent, payload.clone());
                assert_eq!(tool(&c).0, ["src/auth/a.ts"], "{payload}");
            }
            let bare = call(
                Agent::Claude,
                format!(
                    r#"{{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"mcp__srv__{name}","tool_input":{{}}}}"#
                ),
            );
            assert!(tool(&bare).1[0].contains(name), "{name}: {:?}", tool(&bare));
        }
        for name in [
            "read_file",
            "list_dir",
            "get_issue",
            "searchCode",
            "read_multiple_files",
        ] {
            let c = call(
                Agent::Claude,
                format!(
                    r#"{{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"mcp__srv__{name}","tool_input":{{"path":"src/auth/a.ts"}}}}"#
                ),
            );
            assert_eq!(tool(&c), (&[][..], &[][..]), "{name}");
        }
    }

    #[test]
    fn gemini_shell_runs_in_its_dir_path() {
        let g = read(
            Agent::Gemini,
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
    fn answers_in_each_wire_format() {
        let deny = Outcome::Deny("held".into());
        assert_eq!(
            answer(Harness::Codex, &deny).stdout.unwrap(),
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"held"}}"#
        );
        assert_eq!(
            answer(Harness::Cursor, &Outcome::Allow).stdout.unwrap(),
            r#"{"permission":"allow"}"#
        );
        assert_eq!(
            answer(Harness::Gemini, &deny).stdout.unwrap(),
            r#"{"decision":"deny","reason":"held"}"#
        );
        let claude = answer(Harness::ClaudeCode, &deny);
        assert_eq!((claude.code, claude.stderr.as_deref()), (2, Some("held")));
        // A stop is never blocked, in any format.
        for h in [
            Harness::ClaudeCode,
            Harness::VsCode,
            Harness::Codex,
            Harness::Cursor,
            Harness::Gemini,
            Harness::Copilot,
        ] {
            let a = answer(h, &Outcome::Lifecycle(Some("lock busy".into())));
            assert_eq!(a.code, 0);
            // Copilot has no lifecycle output but `decision`, which would force another turn:
            // its note goes to stderr, on exit 0.
            assert!(a.stderr.is_none() || h == Harness::Copilot);
            let stdout = a.stdout.unwrap_or_default();
            assert!(!stdout.contains("deny") && !stdout.contains("block"));
        }
    }

    #[test]
    fn copilot_payloads_name_their_tool_and_arguments_as_json_text() {
        let ev = Some("preToolUse");
        let bash = read_event(
            Agent::Copilot,
            r#"{"sessionId":"s","timestamp":1,"cwd":"/w","toolName":"bash","toolArgs":"{\"command\":\"rm src/a.ts\",\"description\":\"clean\"}"}"#,
            ev,
        );
        assert_eq!(bash.harness, Harness::Copilot);
        assert_eq!(bash.event_name, "preToolUse");
        assert_eq!(bash.cwd.as_deref(), Some("/w"));
        if cfg!(feature = "shell") {
            assert_eq!(tool(&bash).0, ["src/a.ts"]);
        } else {
            assert!(!tool(&bash).1.is_empty());
        }
        // Without --event, a payload with a tool is a tool call.
        let edit = read(
            Agent::Copilot,
            r#"{"cwd":"/w","toolName":"edit","toolArgs":{"path":"/w/src/b.ts","old_str":"a","new_str":"b"}}"#,
        );
        assert_eq!(tool(&edit).0, ["/w/src/b.ts"]);
        let view = read(
            Agent::Copilot,
            r#"{"cwd":"/w","toolName":"view","toolArgs":"{\"path\":\"src/b.ts\"}"}"#,
        );
        assert_eq!(tool(&view), (&[][..], &[][..]));
        let ps = read(
            Agent::Copilot,
            r#"{"cwd":"/w","toolName":"powershell","toolArgs":"{\"command\":\"Remove-Item x\"}"}"#,
        );
        assert!(tool(&ps).1[0].contains("PowerShell"));
        let patch = read(
            Agent::Copilot,
            r#"{"cwd":"/w","toolName":"apply_patch","toolArgs":"*** Begin Patch\n*** Delete File: src/c.ts\n*** End Patch\n"}"#,
        );
        assert_eq!(tool(&patch).0, ["src/c.ts"]);
        let own = read(
            Agent::Copilot,
            r#"{"cwd":"/w","toolName":"rail-claim","toolArgs":"{\"task\":\"t\"}"}"#,
        );
        assert_eq!(tool(&own), (&[][..], &[][..]));
        let fs = read(
            Agent::Copilot,
            r#"{"cwd":"/w","toolName":"my-fs-write_file","toolArgs":"{\"path\":\"src/d\"}"}"#,
        );
        assert_eq!(tool(&fs).0, ["src/d"]);
        let pascal = read(
            Agent::Copilot,
            r#"{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/w","tool_name":"create","tool_input":{"path":"src/e"}}"#,
        );
        assert_eq!(tool(&pascal).0, ["src/e"]);
        let vscode = read(
            Agent::Copilot,
            r#"{"hookEventName":"PreToolUse","sessionId":"s","cwd":"/w","tool_name":"create_file","tool_input":{"filePath":"/w/f"}}"#,
        );
        assert_eq!(vscode.harness, Harness::VsCode);
        assert_eq!(tool(&vscode).0, ["/w/f"]);
        for bad in [
            r#"{"cwd":"/w","toolName":"create","toolArgs":"not json"}"#,
            r#"{"cwd":"/w","toolName":"create"}"#,
            r#"{"cwd":"/w","toolName":"edit","toolArgs":"{}"}"#,
        ] {
            assert!(
                matches!(
                    read_event(Agent::Copilot, bad, ev).event,
                    Event::Malformed(_)
                ),
                "{bad}"
            );
        }
    }

    #[test]
    fn copilot_denies_on_exit_0_and_never_blocks_a_stop() {
        let stop = read_event(
            Agent::Copilot,
            r#"{"sessionId":"s","cwd":"/w","transcriptPath":"/t","stopReason":"end_turn"}"#,
            Some("agentStop"),
        );
        assert_eq!(stop.event, Event::Stop);
        let end = read_event(
            Agent::Copilot,
            r#"{"sessionId":"s","cwd":"/w","reason":"complete"}"#,
            Some("sessionEnd"),
        );
        assert_eq!(end.event, Event::SessionEnd);
        let prompt = read_event(
            Agent::Copilot,
            r#"{"sessionId":"s","cwd":"/w","prompt":"hi"}"#,
            Some("userPromptSubmitted"),
        );
        assert_eq!(prompt.event, Event::Pass);
        let nameless = read(Agent::Copilot, r#"{"sessionId":"s","cwd":"/w"}"#);
        assert!(matches!(nameless.event, Event::Malformed(_)));
        let deny = answer(Harness::Copilot, &Outcome::Deny("held".into()));
        assert_eq!(deny.code, 0);
        assert_eq!(
            deny.stdout.unwrap(),
            r#"{"permissionDecision":"deny","permissionDecisionReason":"held"}"#
        );
        let warn = answer(Harness::Copilot, &Outcome::Warn("Rail: careful".into()));
        assert_eq!(
            warn.stdout.unwrap(),
            r#"{"additionalContext":"Rail: careful"}"#
        );
        assert_eq!(warn.stderr.as_deref(), Some("Rail: careful"));
        let note = answer(Harness::Copilot, &Outcome::Lifecycle(Some("busy".into())));
        assert_eq!((note.stdout, note.code), (None, 0));
    }

    #[test]
    fn bad_payloads_cannot_be_judged() {
        for bad in ["", "nope", "[1]", r#"{"tool_name":"Edit"}"#] {
            assert!(
                matches!(read(Agent::Cursor, bad).event, Event::Malformed(_)),
                "{bad}"
            );
        }
        let no_path = read(
            Agent::Gemini,
            r#"{"hook_event_name":"BeforeTool","tool_name":"write_file","tool_input":{}}"#,
        );
        assert!(matches!(no_path.event, Event::Malformed(ref m) if m.contains("file_path")));
        let bom = read(
            Agent::Cursor,
            "\u{feff}{\"hook_event_name\":\"stop\",\"status\":\"completed\"}",
        );
        assert_eq!(bom.event, Event::Stop);
    }
}
