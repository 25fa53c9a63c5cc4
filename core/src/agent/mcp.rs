//! MCP tools, and tools no agent's table knows, read the same for every agent: Rail's own MCP
//! tools pass, a tool whose whole name says it only reads passes, any other is judged by its
//! path arguments, and the rest cannot be judged.

use serde_json::Value;

use super::ToolWrites;

/// `mcp__<server>__<tool>` (Claude Code, Codex, VS Code); other names write nothing Rail knows.
pub(super) fn mcp_by_name(tool: &str, input: &Value, found: &mut ToolWrites) {
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

pub(super) fn path_arguments(input: &Value) -> Vec<String> {
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
pub(super) fn mcp(
    server: Option<&str>,
    name: &str,
    full: &str,
    input: &Value,
    found: &mut ToolWrites,
) {
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
pub(super) fn by_verb(tool: &str, input: &Value, found: &mut ToolWrites) {
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

#[cfg(test)]
mod tests {
    use super::super::tests::read;
    use super::super::tests::tool;
    use super::super::Agent;

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
                    super::super::claude::AGENT,
                    format!(
                        r#"{{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"mcp__srv__{name}","tool_input":{input}}}"#
                    ),
                ),
                (
                    super::super::codex::AGENT,
                    format!(
                        r#"{{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"mcp__srv__{name}","tool_input":{input}}}"#
                    ),
                ),
                (
                    super::super::cursor::AGENT,
                    format!(
                        r#"{{"hook_event_name":"preToolUse","workspace_roots":["/w"],"tool_name":"MCP:{name}","tool_input":{input}}}"#
                    ),
                ),
                (
                    super::super::cursor::AGENT,
                    format!(
                        r#"{{"hook_event_name":"preToolUse","workspace_roots":["/w"],"tool_name":"{name}","tool_input":{input}}}"#
                    ),
                ),
                (
                    super::super::gemini::AGENT,
                    format!(
                        r#"{{"hook_event_name":"BeforeTool","cwd":"/w","tool_name":"mcp_srv_{name}","mcp_context":{{"server_name":"srv"}},"tool_input":{input}}}"#
                    ),
                ),
                (
                    super::super::copilot::AGENT,
                    format!(r#"{{"toolName":"srv-{name}","toolArgs":{input:?}}}"#),
                ),
            ] {
                let c = call(agent, payload.clone());
                assert_eq!(tool(&c).0, ["src/auth/a.ts"], "{payload}");
            }
            let bare = call(
                super::super::claude::AGENT,
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
                super::super::claude::AGENT,
                format!(
                    r#"{{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"mcp__srv__{name}","tool_input":{{"path":"src/auth/a.ts"}}}}"#
                ),
            );
            assert_eq!(tool(&c), (&[][..], &[][..]), "{name}");
        }
    }
}
