//! A hook call read from its payload: which agent sent it, the event, where it works, the
//! tool call's targets (each agent's tool table and the shell and patch readers), and who acts
//! (the agent's own session id, for [`crate::text::ident::acting`]).

use serde_json::{Map, Value};

use super::{patch, shell, Agent, Event, Harness, Spec};

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
    /// The tool call's id (`tool_use_id`, `toolUseId`, `call_id`), the same before and after
    /// it: the snapshot taken before is the one judged after.
    pub call_id: Option<String>,
    /// The sending agent's version, where the payload or its environment says
    /// ([`Spec::version`]).
    pub version: Option<String>,
    /// The agent's own session id (`session_id`, `sessionId`, Cursor's `conversation_id`) and,
    /// for a call a subagent makes, that subagent's id (`agent_id`): who acts, below the branch
    /// ([`Call::agent_self`]).
    pub agent_session: Option<String>,
    pub subagent: Option<String>,
}

impl Call {
    /// The agent acting in this call, for [`crate::text::ident::acting`]: the sender and the
    /// ids its payload carries.
    pub fn agent_self(&self) -> Option<crate::text::ident::AgentSelf<'_>> {
        self.agent_session
            .as_deref()
            .map(|id| crate::text::ident::AgentSelf {
                agent: self.harness.sender.name(),
                id,
                sub: self.subagent.as_deref(),
            })
    }
}

/// The variables an agent gives the processes it starts naming its own session, each with the
/// agent's name and whether a shell command may take it (else only an MCP server: `rail mcp`):
/// `rail` run by an agent acts as the session that agent's hooks act as. Read from the real
/// programs (docs/agents.md, "Every agent its own session"): Claude Code gives its session id
/// to shell commands (a subagent's too: its lead's) and MCP servers, Codex to shell commands
/// only, Gemini CLI to its hooks only. Copilot CLI gives its MCP servers the session id its
/// hooks carry, but a subagent's shell commands (`task`, what `/fleet` runs) an id no hook ever
/// names: taken there, a subagent's claim would be nobody's it acts for, and its own edits
/// denied. When several are set (one agent run inside another) the first in this order is taken.
pub const SESSION_VARS: &[(&str, &str, bool)] = &[
    ("CLAUDE_CODE_SESSION_ID", "claude", true),
    ("COPILOT_AGENT_SESSION_ID", "copilot", false),
    ("CODEX_THREAD_ID", "codex", true),
    ("GEMINI_SESSION_ID", "gemini", true),
];

/// The agent whose child this process is, and its session id, as [`SESSION_VARS`] say for a
/// shell command (`mcp_server: false`) or an MCP server.
pub fn agent_of_env(
    env: &dyn Fn(&str) -> Option<String>,
    mcp_server: bool,
) -> Option<(&'static str, String)> {
    SESSION_VARS
        .iter()
        .filter(|(_, _, shells)| *shells || mcp_server)
        .find_map(|(var, agent, _)| {
            env(var)
                .filter(|id| !id.is_empty())
                .map(|id| (*agent, id.chars().take(256).collect()))
        })
}

/// The variables by which an agent marks the shell commands it runs, for those whose shells do
/// not name the session their hooks act as ([`SESSION_VARS`]): which agent, and whether the
/// value is an id. Gemini CLI sets `GEMINI_CLI=1` (its docs, "Shell tool"); Copilot CLI gives
/// its lead's shells the session id its hooks carry and a subagent's one no hook names. What
/// a commit's pre-commit check knows of an agent that cannot say which of its sessions it is
/// (`behind::Committer::Agent`).
pub const SHELL_MARKS: &[(&str, &str, bool)] = &[
    ("COPILOT_AGENT_SESSION_ID", "copilot", true),
    ("GEMINI_CLI", "gemini", false),
];

/// The agent whose shell this process runs in by [`SHELL_MARKS`], with the id its variable
/// carries, if it carries one.
pub fn shell_agent_of_env(
    env: &dyn Fn(&str) -> Option<String>,
) -> Option<(&'static str, Option<String>)> {
    SHELL_MARKS.iter().find_map(|(var, agent, id)| {
        let value = env(var).filter(|v| !v.is_empty())?;
        Some((*agent, id.then(|| value.chars().take(256).collect())))
    })
}

/// Reads a hook payload sent to `rail hook <agent>`: with the event name the installed command
/// gave (`rail hook copilot --event preToolUse`) for payloads that carry none (the payload's own
/// name wins), and the hook's environment to look variables up in (`env`), which some agents
/// name their version in.
pub fn read_call(
    agent: Agent,
    input: &str,
    event: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Call {
    let default = Harness::of(agent);
    let malformed = |why: String| Call {
        harness: default,
        event_name: String::new(),
        event: Event::Malformed(why),
        cwd: None,
        call_id: None,
        version: None,
        agent_session: None,
        subagent: None,
    };
    // Cursor on Windows starts each payload with a byte-order mark.
    let input = input.strip_prefix('\u{feff}').unwrap_or(input);
    let payload = match serde_json::from_str::<Value>(input) {
        Ok(Value::Object(map)) => map,
        Ok(_) => return malformed("the hook input is not a JSON object".into()),
        Err(e) => return malformed(format!("the hook input is not JSON ({e})")),
    };
    let harness = agent.guest(&payload).unwrap_or(default);
    let text = |key: &str| payload.get(key).and_then(Value::as_str);
    let event_name = text("hook_event_name")
        .or_else(|| text("hookEventName"))
        .or(event.filter(|e| !e.is_empty()))
        .or_else(|| harness.sender.default_event(&payload))
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
    let call_id = ["tool_use_id", "toolUseId", "call_id", "toolCallId"]
        .iter()
        .find_map(|k| text(k))
        .filter(|id| !id.is_empty())
        .map(str::to_string);
    let id_at = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| text(k))
            .filter(|id| !id.is_empty())
            .map(|id| id.chars().take(256).collect::<String>())
    };
    // A Copilot CLI subagent's payload carries its own id as `sessionId` and `agentId`, and its
    // lead's as `parentAgentId`: it acts below its lead, as a Claude Code subagent does.
    let agent_session = id_at(&[
        "parentAgentId",
        "session_id",
        "sessionId",
        "conversation_id",
    ]);
    let subagent = id_at(&["agent_id", "agentId"]).filter(|id| Some(id) != agent_session.as_ref());
    if event_name.is_empty() {
        return Call {
            cwd,
            agent_session,
            subagent,
            ..malformed("the hook input has no hook_event_name".into())
        };
    }
    let event = harness
        .sender
        .event(harness, &event_name, &payload)
        .unwrap_or_else(|| {
            if event_name.eq_ignore_ascii_case("stop") {
                Event::Stop
            } else if event_name.eq_ignore_ascii_case("sessionend") {
                Event::SessionEnd
            } else {
                Event::Pass
            }
        });
    Call {
        harness,
        event_name,
        event,
        cwd,
        call_id,
        version: harness.sender.version(&payload, env),
        agent_session,
        subagent,
    }
}

/// Whether `v` reads as a version (`2.1.332`, `1.0.102-beta.1`): what an agent's environment
/// says is shown only then.
pub(crate) fn is_version(v: &str) -> bool {
    v.len() <= 40
        && v.starts_with(|c: char| c.is_ascii_digit())
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+'))
}

pub(super) fn is_pre_tool(name: &str) -> bool {
    name.eq_ignore_ascii_case("pretooluse")
}

pub(super) fn is_post_tool(name: &str) -> bool {
    name.eq_ignore_ascii_case("posttooluse")
}

/// The after-tool event of a payload naming its tool in `key` (any tool: what changed is read
/// from the file system, not from the tool's input).
pub(super) fn after_tool(payload: &Map<String, Value>, key: &str) -> Event {
    Event::AfterTool {
        tool: payload
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
    }
}

/// Cursor on Windows reports workspace roots as `/C:/…`.
pub(super) fn workspace_root(root: &str) -> String {
    let b = root.as_bytes();
    if b.len() >= 3 && b[0] == b'/' && b[1].is_ascii_alphabetic() && b[2] == b':' {
        root[1..].to_string()
    } else {
        root.to_string()
    }
}

/// Writes found in a tool call, while reading it.
#[derive(Debug, Default)]
pub struct ToolWrites {
    pub targets: Vec<String>,
    pub unanalysed: Vec<String>,
    pub commits: Vec<shell::GitCommit>,
}

impl ToolWrites {
    /// The tool event, each target once, in the order first found: a path both the shell reader
    /// and the patch scan find, or that a patch names twice, is one write.
    pub(super) fn event(self, tool: &str) -> Event {
        let mut seen = std::collections::BTreeSet::new();
        let targets = self
            .targets
            .into_iter()
            .filter(|t| seen.insert(t.clone()))
            .collect();
        Event::Tool {
            tool: tool.to_string(),
            targets,
            unanalysed: self.unanalysed,
            commits: self.commits,
        }
    }
}

/// A tool call of the `tool_name` and `tool_input` shape, read by `sender`'s tool table.
/// `text_input`: the input may be JSON text (Cursor's MCP tools).
pub(super) fn tool_call(
    sender: &dyn Spec,
    payload: &Map<String, Value>,
    text_input: bool,
) -> Event {
    let Some(tool) = payload.get("tool_name").and_then(Value::as_str) else {
        return Event::Malformed("a tool call without `tool_name`".into());
    };
    let parsed;
    let input = match payload.get("tool_input") {
        Some(Value::String(s)) if text_input => {
            parsed = serde_json::from_str::<Value>(s).unwrap_or(Value::Null);
            &parsed
        }
        Some(v) => v,
        None => &Value::Null,
    };
    tool_event(sender, tool, input, payload)
}

pub(super) fn tool_event(
    sender: &dyn Spec,
    tool: &str,
    input: &Value,
    payload: &Map<String, Value>,
) -> Event {
    match sender.tool(tool, input, payload) {
        Ok(found) => found.event(tool),
        Err(why) => Event::Malformed(why),
    }
}

/// A string field of the tool input, required: a writing tool without its path cannot be judged.
pub(super) fn field(tool: &str, input: &Value, names: &[&str]) -> Result<String, String> {
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

/// A tool's required `command`, read as a shell command run in `dir`.
pub(super) fn command(
    tool: &str,
    input: &Value,
    dir: Option<&str>,
    found: &mut ToolWrites,
) -> Result<(), String> {
    let c = field(tool, input, &["command"])?;
    shell_writes(&c, dir, found);
    Ok(())
}

pub(super) fn shell_call(tool: &str, command: &str, dir: Option<&str>) -> Event {
    let mut found = ToolWrites::default();
    shell_writes(command, dir, &mut found);
    found.event(tool)
}

/// A shell command's writes: the shell reader's, plus any `apply_patch` envelope written out in
/// it (heredoc bodies are data to the shell reader). `dir`: where the command runs, relative to
/// the agent's `cwd` (Gemini's `dir_path`).
pub(super) fn shell_writes(command: &str, dir: Option<&str>, found: &mut ToolWrites) {
    let writes = shell::writes(command);
    let mut targets = writes.targets;
    found.unanalysed.extend(writes.unanalysed);
    // A path as written, relative to `dir` (`.`: `dir` itself).
    let under = |t: String| match dir.filter(|d| !d.is_empty() && *d != ".") {
        Some(dir) if !t.starts_with('/') => {
            if t == "." {
                dir.trim_end_matches('/').to_string()
            } else {
                format!("{}/{t}", dir.trim_end_matches('/'))
            }
        }
        _ => t,
    };
    found
        .commits
        .extend(writes.commits.into_iter().map(|c| shell::GitCommit {
            added: c.added.into_iter().map(under).collect(),
            only: c.only.into_iter().map(under).collect(),
            ..c
        }));
    for patch in patch::embedded(command) {
        match patch {
            Ok(paths) => targets.extend(paths),
            Err(why) => found
                .unanalysed
                .push(format!("a patch in the command ({why})")),
        }
    }
    found.targets.extend(targets.into_iter().map(under));
}

pub(super) fn apply_patch(text: &str, found: &mut ToolWrites) -> Result<(), String> {
    let paths = patch::paths(text).map_err(|why| format!("apply_patch: {why}"))?;
    found.targets.extend(paths);
    Ok(())
}
