//! What `rail init --agents` installs for each agent: its hook entries and Rail's MCP server
//! (`rail mcp` on stdio), file by file, as changes merged into what is there (JSON through
//! [`crate::jsonc`], TOML by the host's format-preserving editor), and what the person must do
//! once. Shapes: docs/agents.md.

use serde_json::{json, Value};

use crate::jsonc::Change;

/// An agent `rail init --agents` can configure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Claude,
    Codex,
    Cursor,
    Gemini,
    VsCode,
    Copilot,
}

pub const TARGETS: [Target; 6] = [
    Target::Claude,
    Target::Codex,
    Target::Cursor,
    Target::Gemini,
    Target::VsCode,
    Target::Copilot,
];

impl Target {
    pub fn name(self) -> &'static str {
        match self {
            Target::Claude => "claude",
            Target::Codex => "codex",
            Target::Cursor => "cursor",
            Target::Gemini => "gemini",
            Target::VsCode => "vscode",
            Target::Copilot => "copilot",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Target::Claude => "Claude Code",
            Target::Codex => "Codex",
            Target::Cursor => "Cursor",
            Target::Gemini => "Gemini CLI",
            Target::VsCode => "VS Code",
            Target::Copilot => "Copilot CLI",
        }
    }

    pub fn parse(name: &str) -> Result<Target, String> {
        TARGETS
            .into_iter()
            .find(|t| t.name() == name.trim().to_ascii_lowercase())
            .ok_or_else(|| {
                format!(
                    "unknown agent `{name}` (known: {})",
                    TARGETS.map(Target::name).join(", ")
                )
            })
    }

    /// Files or folders whose presence at the repository's top says the agent is used there.
    pub fn markers(self) -> &'static [&'static str] {
        match self {
            Target::Claude => &[".claude", "CLAUDE.md", ".mcp.json"],
            Target::Codex => &[".codex"],
            Target::Cursor => &[".cursor", ".cursorrules"],
            Target::Gemini => &[".gemini", "GEMINI.md"],
            Target::VsCode => &[".vscode", ".github/copilot-instructions.md"],
            Target::Copilot => &[".github/hooks", ".copilot"],
        }
    }

    /// The instruction file the agent reads, when it reads one of its own (the others read
    /// AGENTS.md or CLAUDE.md, which `rail init --agents` writes by default).
    pub fn own_instructions(self) -> Option<&'static str> {
        match self {
            Target::Gemini => Some("GEMINI.md"),
            _ => None,
        }
    }

    /// What the person must do once for the installed files to take effect.
    pub fn needs(self) -> &'static str {
        match self {
            Target::Claude => "approve the project MCP server `rail` when Claude Code asks (or in /mcp); the hooks in .claude/settings.json apply from the next session (review them in /hooks)",
            Target::Codex => "trust this project (accept Codex's trust prompt, or set `trust_level = \"trusted\"` for it under [projects] in ~/.codex/config.toml): project hooks and MCP servers load only in a trusted project; then review and trust the `rail hook codex` hook in /hooks (new hooks are skipped until trusted; `codex exec` needs --dangerously-bypass-hook-trust)",
            Target::Cursor => "reload Cursor so it reads .cursor/hooks.json, and enable the `rail` MCP server in Cursor's MCP settings; the hooks fail closed (`failClosed`), so a missing `rail` binary blocks every tool call until it is on PATH",
            Target::Gemini => "trust this folder in Gemini CLI (project hooks load only in a trusted folder; `--skip-trust` alone loads none, silently: trust the folder or set GEMINI_CLI_TRUST_WORKSPACE=true); the first run warns about the new hooks, then runs them; restart gemini",
            Target::VsCode => "VS Code's agent runs the hooks in .claude/settings.json (agent hooks are a preview: allow them if your settings restrict `chat.hookFilesLocations`); start and trust the `rail` server from .vscode/mcp.json in the MCP view",
            Target::Copilot => "trust this folder in Copilot CLI (the trust prompt, or --trust-folder): it loads .github/hooks only in a trusted folder and otherwise runs every tool unjudged, silently; then start a new `copilot` session in this repository: it reads .github/hooks/rail.json and the `rail` server in .mcp.json (check with /mcp); Copilot skips a hook that fails or times out, so a missing `rail` binary lets every tool call through unjudged: keep `rail` on PATH",
        }
    }
}

/// One file's changes.
#[derive(Clone, Debug)]
pub enum FileChanges {
    Json {
        path: &'static str,
        changes: Vec<Change>,
    },
    /// Sets `entries` in the TOML table at `table` (created if missing).
    Toml {
        path: &'static str,
        table: Vec<&'static str>,
        entries: Vec<(&'static str, Value)>,
    },
}

impl FileChanges {
    pub fn path(&self) -> &'static str {
        match self {
            FileChanges::Json { path, .. } | FileChanges::Toml { path, .. } => path,
        }
    }
}

fn path(p: &[&str]) -> Vec<String> {
    p.iter().map(|s| s.to_string()).collect()
}

/// The command lines of a hook entry: `command`, Copilot's `bash` and `powershell`, and those of
/// a group's `hooks`.
fn commands_of(v: &Value) -> Vec<&str> {
    fn own(h: &Value) -> impl Iterator<Item = &str> {
        ["command", "bash", "powershell"]
            .into_iter()
            .filter_map(move |k| h[k].as_str())
    }
    let mut out: Vec<&str> = own(v).collect();
    if let Some(hooks) = v["hooks"].as_array() {
        out.extend(hooks.iter().flat_map(own));
    }
    out
}

/// Whether a hook entry runs `rail … <hook>`, with or without a trailing `--event NAME`.
fn runs(v: &Value, hook: &str) -> bool {
    commands_of(v).iter().any(|c| {
        let c = c.trim_end();
        let c = match c.rsplit_once(" --event ") {
            Some((head, event)) if !event.is_empty() && !event.contains(' ') => head,
            _ => c,
        };
        c.trim_end().ends_with(hook)
    })
}

/// The programs the hook commands of `target` in one of its hook files (`text`) start: what an
/// agent runs, to check that it resolves (`rail`, or an absolute path, shell-quoted or not).
pub fn hook_programs(target: Target, text: &str) -> Vec<String> {
    let hook = format!(" hook {}", target.name());
    let Ok(node) = crate::jsonc::parse(text) else {
        return Vec::new();
    };
    let doc = node.to_value();
    let entries: Vec<&Value> = doc["hooks"]
        .as_object()
        .map(|events| {
            events
                .values()
                .filter_map(Value::as_array)
                .flatten()
                .collect()
        })
        .unwrap_or_default();
    let mut out: Vec<String> = entries
        .iter()
        .flat_map(|e| commands_of(e))
        .filter_map(|c| c.find(&hook).map(|i| c[..i].trim()))
        // PowerShell's call operator (`& 'C:\…\rail.exe' hook copilot`).
        .map(|p| p.strip_prefix("& ").map_or(p, str::trim))
        .map(
            |p| match p.strip_prefix('\'').and_then(|q| q.strip_suffix('\'')) {
                Some(inner) => inner.replace("'\\''", "'").replace("''", "'"),
                None => p.trim_matches('"').to_string(),
            },
        )
        .filter(|p| !p.is_empty())
        .collect();
    crate::sort::sort_by(&mut out, |a, b| a.cmp(b));
    out.dedup();
    out
}

/// The files of `target` whose hook commands [`hook_programs`] reads.
pub fn hook_files(target: Target) -> &'static [&'static str] {
    evidence(target).0
}

fn is_claude(v: &Value) -> bool {
    runs(v, "hook claude")
}
fn is_codex(v: &Value) -> bool {
    runs(v, "hook codex")
}
fn is_cursor(v: &Value) -> bool {
    runs(v, "hook cursor")
}
fn is_gemini(v: &Value) -> bool {
    runs(v, "hook gemini")
}
fn is_copilot(v: &Value) -> bool {
    runs(v, "hook copilot")
}

/// The program `exe` as a PowerShell command: `rail` on PATH, else the call operator on the
/// path in single quotes (where only `'` is special, doubled).
pub fn powershell_command(exe: &str) -> String {
    if exe == "rail" {
        exe.to_string()
    } else {
        format!("& '{}'", exe.replace('\'', "''"))
    }
}

/// A hooks file of the `{"version": 1, "hooks": {EVENT: [entry, …]}}` shape (Cursor's, the
/// Copilot CLI's): the version, and Rail's entry under each event.
fn versioned_hooks(
    path: &'static str,
    ours: fn(&Value) -> bool,
    entries: Vec<(&str, Value)>,
) -> FileChanges {
    let mut changes = vec![Change::Set {
        path: self::path(&["version"]),
        value: json!(1),
    }];
    changes.extend(
        entries
            .into_iter()
            .map(|(event, entry)| upsert(&["hooks", event], ours, entry)),
    );
    FileChanges::Json { path, changes }
}

fn upsert(p: &[&str], ours: fn(&Value) -> bool, value: Value) -> Change {
    Change::Upsert {
        path: path(p),
        ours,
        value,
    }
}

/// Claude Code's hook groups (`.claude/settings.json`), also run by VS Code's agent and, opt-in,
/// by Cursor.
pub fn claude_hooks(rail: &str) -> Vec<(&'static str, Value)> {
    let command = format!("{rail} hook claude");
    let hook = |timeout: u32| json!({ "type": "command", "command": command, "timeout": timeout });
    vec![
        (
            "PreToolUse",
            json!({ "matcher": "Edit|Write|MultiEdit|NotebookEdit|Bash|mcp__.*", "hooks": [hook(10)] }),
        ),
        ("Stop", json!({ "hooks": [hook(10)] })),
        ("SessionEnd", json!({ "hooks": [hook(30)] })),
    ]
}

fn claude_settings(rail: &str) -> FileChanges {
    FileChanges::Json {
        path: ".claude/settings.json",
        changes: claude_hooks(rail)
            .into_iter()
            .map(|(event, group)| upsert(&["hooks", event], is_claude, group))
            .collect(),
    }
}

/// The files `rail init --agents` changes for `target`. `rail` is the command line that runs
/// Rail in a shell (hooks); `rail_exe` the program an MCP client starts (no shell).
pub fn files(target: Target, rail: &str, rail_exe: &str) -> Vec<FileChanges> {
    let mcp = json!({ "command": rail_exe, "args": ["mcp"] });
    let mcp_stdio = json!({ "type": "stdio", "command": rail_exe, "args": ["mcp"] });
    match target {
        Target::Claude => vec![
            claude_settings(rail),
            FileChanges::Json {
                path: ".mcp.json",
                changes: vec![Change::Set {
                    path: path(&["mcpServers", "rail"]),
                    value: mcp_stdio,
                }],
            },
        ],
        Target::Codex => {
            let command = format!("{rail} hook codex");
            let hook =
                |timeout: u32| json!({ "type": "command", "command": command, "timeout": timeout });
            vec![
                // Only `hooks` at the top: Codex rejects a hooks file with any other key but
                // `description`.
                FileChanges::Json {
                    path: ".codex/hooks.json",
                    changes: vec![
                        upsert(
                            &["hooks", "PreToolUse"],
                            is_codex,
                            json!({ "matcher": "Bash|apply_patch|mcp__.*", "hooks": [{
                                "type": "command", "command": command, "timeout": 10,
                                "statusMessage": "rail: checking claims" }] }),
                        ),
                        upsert(&["hooks", "Stop"], is_codex, json!({ "hooks": [hook(10)] })),
                        // Codex caps SessionEnd hooks at 3 s.
                        upsert(
                            &["hooks", "SessionEnd"],
                            is_codex,
                            json!({ "hooks": [hook(3)] }),
                        ),
                    ],
                },
                FileChanges::Toml {
                    path: ".codex/config.toml",
                    table: vec!["mcp_servers", "rail"],
                    entries: vec![("command", json!(rail_exe)), ("args", json!(["mcp"]))],
                },
            ]
        }
        Target::Cursor => {
            let command = format!("{rail} hook cursor");
            // failClosed: a crash or timeout blocks; Rail answers every call explicitly.
            let gate =
                json!({ "command": command, "type": "command", "timeout": 10, "failClosed": true });
            let after = json!({ "command": command, "type": "command", "timeout": 10 });
            vec![
                versioned_hooks(
                    ".cursor/hooks.json",
                    is_cursor,
                    vec![
                        ("preToolUse", gate.clone()),
                        ("beforeShellExecution", gate),
                        ("stop", after.clone()),
                        ("sessionEnd", after),
                    ],
                ),
                FileChanges::Json {
                    path: ".cursor/mcp.json",
                    changes: vec![Change::Set {
                        path: path(&["mcpServers", "rail"]),
                        value: mcp.clone(),
                    }],
                },
            ]
        }
        Target::Gemini => {
            let command = format!("{rail} hook gemini");
            // Gemini's timeouts are in milliseconds; the tool gate's is above Rail's own 8 s
            // bound, so Rail (not a kill) answers.
            let hook = |name: &str, timeout: u32| json!({ "name": name, "type": "command", "command": command, "timeout": timeout });
            vec![FileChanges::Json {
                path: ".gemini/settings.json",
                changes: vec![
                    upsert(
                        &["hooks", "BeforeTool"],
                        is_gemini,
                        json!({ "matcher": "write_file|replace|run_shell_command|mcp_.*",
                                "hooks": [hook("rail", 10000)] }),
                    ),
                    upsert(
                        &["hooks", "AfterAgent"],
                        is_gemini,
                        json!({ "hooks": [hook("rail-renew", 5000)] }),
                    ),
                    upsert(
                        &["hooks", "SessionEnd"],
                        is_gemini,
                        json!({ "hooks": [hook("rail-end", 2000)] }),
                    ),
                    Change::Set {
                        path: path(&["mcpServers", "rail"]),
                        value: mcp,
                    },
                ],
            }]
        }
        Target::Copilot => {
            // Copilot's camelCase payloads name no event: each command names its own. Both
            // shells, so the same file serves Windows.
            let ps = powershell_command(rail_exe);
            let hook = |event: &str| {
                json!({ "type": "command",
                        "bash": format!("{rail} hook copilot --event {event}"),
                        "powershell": format!("{ps} hook copilot --event {event}"),
                        "timeoutSec": 10 })
            };
            vec![
                versioned_hooks(
                    ".github/hooks/rail.json",
                    is_copilot,
                    ["preToolUse", "agentStop", "sessionEnd"]
                        .into_iter()
                        .map(|event| (event, hook(event)))
                        .collect(),
                ),
                FileChanges::Json {
                    path: ".mcp.json",
                    changes: vec![Change::Set {
                        path: path(&["mcpServers", "rail"]),
                        value: mcp_stdio,
                    }],
                },
            ]
        }
        Target::VsCode => vec![
            claude_settings(rail),
            FileChanges::Json {
                path: ".vscode/mcp.json",
                changes: vec![Change::Set {
                    path: path(&["servers", "rail"]),
                    value: mcp_stdio,
                }],
            },
        ],
    }
}

/// Where a station gets the file `path` of `rail init --agents` (docs/agents.md, "Stations"):
/// the agent's own local, untracked variant where it has one (Claude Code merges
/// `.claude/settings.local.json` over `.claude/settings.json`), else the project file itself.
pub fn station_path(path: &'static str) -> &'static str {
    match path {
        ".claude/settings.json" => ".claude/settings.local.json",
        p => p,
    }
}

/// The files whose text says whether `target` is set up in a checkout, and what in them says so.
fn evidence(target: Target) -> (&'static [&'static str], fn(&Value) -> bool) {
    fn hooks_run(v: &Value, ours: fn(&Value) -> bool) -> bool {
        v["hooks"].as_object().is_some_and(|events| {
            events
                .values()
                .any(|e| e.as_array().is_some_and(|a| a.iter().any(ours)))
        })
    }
    match target {
        Target::Claude => (
            &[".claude/settings.json", ".claude/settings.local.json"],
            |v| hooks_run(v, is_claude),
        ),
        Target::Codex => (&[".codex/hooks.json"], |v| hooks_run(v, is_codex)),
        Target::Cursor => (&[".cursor/hooks.json"], |v| hooks_run(v, is_cursor)),
        Target::Gemini => (&[".gemini/settings.json"], |v| hooks_run(v, is_gemini)),
        Target::Copilot => (&[".github/hooks/rail.json"], |v| hooks_run(v, is_copilot)),
        Target::VsCode => (&[".vscode/mcp.json"], |v| v["servers"]["rail"].is_object()),
    }
}

/// The agents Rail is set up for in a checkout, judged from the text of its files (`read` gives
/// a file's text by its path from the checkout's top, `None` when it is missing): an agent whose
/// hook file runs `rail hook <agent>` (VS Code: whose MCP file names the `rail` server). A file
/// that does not parse counts as not set up.
pub fn configured(read: impl Fn(&str) -> Option<String>) -> Vec<Target> {
    TARGETS
        .into_iter()
        .filter(|t| {
            let (paths, says) = evidence(*t);
            paths.iter().any(|p| {
                read(p)
                    .and_then(|text| crate::jsonc::parse(&text).ok())
                    .is_some_and(|node| says(&node.to_value()))
            })
        })
        .collect()
}

/// The agents set up in the main checkout (`main`) that a worktree (`here`, read the same way
/// by [`configured`]) has no Rail hook for: an agent started there would run unguarded.
pub fn unguarded(main: &[Target], here: &[Target]) -> Vec<Target> {
    main.iter().filter(|t| !here.contains(t)).copied().collect()
}

/// The comment that opens Rail's lines in the repository's `info/exclude`.
pub const EXCLUDE_HEADER: &str =
    "# rail: agent files `rail worktree` wrote into stations whose branch does not track them (docs/agents.md)";

/// `info/exclude` with an anchored line for each of `paths` (from the checkout's top) that it
/// does not list yet, under Rail's header; `None` when nothing is missing. Lines already there
/// (Rail's or the user's) stay as they are.
pub fn with_excludes(text: &str, paths: &[&str]) -> Option<String> {
    let has = |line: &str| text.lines().any(|l| l.trim() == line);
    let missing: Vec<String> = paths
        .iter()
        .map(|p| format!("/{}", p.trim_start_matches('/')))
        .filter(|l| !has(l))
        .fold(Vec::new(), |mut acc, l| {
            if !acc.contains(&l) {
                acc.push(l);
            }
            acc
        });
    if missing.is_empty() {
        return None;
    }
    let mut out = text.to_string();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    if !has(EXCLUDE_HEADER) {
        out.push_str(EXCLUDE_HEADER);
        out.push('\n');
    }
    for l in missing {
        out.push_str(&l);
        out.push('\n');
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonc;

    #[test]
    fn every_json_file_is_idempotent_and_keeps_foreign_hooks() {
        for t in TARGETS {
            for f in files(t, "rail", "rail") {
                let FileChanges::Json { changes, path } = f else {
                    continue;
                };
                let start = "{\n  // theirs\n  \"hooks\": { \"X\": [] },\n  \"other\": true\n}\n";
                let once = jsonc::apply(start, &changes).unwrap();
                assert_eq!(jsonc::apply(&once, &changes).unwrap(), once, "{path}");
                assert!(
                    once.starts_with("{\n  // theirs\n  \"hooks\": { \"X\": []"),
                    "{path}: {once}"
                );
                assert!(once.contains("\"other\": true"), "{path}");
                // A moved binary is replaced in place, not added twice.
                let moved = files(t, "/opt/rail", "/opt/rail");
                let FileChanges::Json { changes: c2, .. } =
                    moved.into_iter().find(|m| m.path() == path).unwrap()
                else {
                    unreachable!()
                };
                let again = jsonc::apply(&once, &c2).unwrap();
                for key in ["command", "bash"] {
                    let old = format!("\"{key}\": \"rail");
                    let new = format!("\"{key}\": \"/opt/rail");
                    assert!(!again.contains(&old), "{path}: {again}");
                    assert_eq!(
                        again.matches(&new).count(),
                        once.matches(&old).count(),
                        "{path}: {again}"
                    );
                }
                assert!(!again.contains("\"powershell\": \"rail"), "{path}: {again}");
            }
        }
    }

    #[test]
    fn copilot_entries_name_their_event_for_both_shells() {
        let files = files(Target::Copilot, "'/o p/rail'", "/o p/it's/rail");
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
            assert!(is_copilot(e) && !is_claude(e));
        }
        assert_eq!(powershell_command("rail"), "rail");
    }

    #[test]
    fn configured_agents_are_read_from_their_hook_files() {
        let claude = jsonc::apply(
            "",
            &match &files(Target::Claude, "/x/rail", "/x/rail")[0] {
                FileChanges::Json { changes, .. } => changes.clone(),
                _ => unreachable!(),
            },
        )
        .unwrap();
        let read = |p: &str| match p {
            ".claude/settings.local.json" => Some(claude.clone()),
            ".gemini/settings.json" => Some("{ not json".to_string()),
            ".codex/hooks.json" => Some(
                r#"{"hooks":{"PreToolUse":[{"hooks":[{"command":"./mine.sh"}]}]}}"#.to_string(),
            ),
            _ => None,
        };
        assert_eq!(configured(read), vec![Target::Claude]);
        assert_eq!(configured(|_| None), Vec::<Target>::new());
        assert_eq!(
            unguarded(&[Target::Claude, Target::Gemini], &[Target::Claude]),
            vec![Target::Gemini]
        );
        assert_eq!(
            station_path(".claude/settings.json"),
            ".claude/settings.local.json"
        );
        assert_eq!(
            station_path(".gemini/settings.json"),
            ".gemini/settings.json"
        );
    }

    #[test]
    fn excludes_are_added_once_under_rails_header() {
        let user = "# git ls-files --others --exclude-from=.git/info/exclude\n*.log";
        let once = with_excludes(user, &[".mcp.json", "/AGENTS.md", ".mcp.json"]).unwrap();
        assert_eq!(
            once,
            format!("{user}\n{EXCLUDE_HEADER}\n/.mcp.json\n/AGENTS.md\n")
        );
        assert_eq!(with_excludes(&once, &["AGENTS.md"]), None);
        let more = with_excludes(&once, &[".gemini/settings.json"]).unwrap();
        assert_eq!(more, format!("{once}/.gemini/settings.json\n"));
        assert_eq!(more.matches(EXCLUDE_HEADER).count(), 1);
    }
}
