//! Codex CLI: its hook payloads (PreToolUse for Bash, `apply_patch` and `mcp__*` tools; Stop;
//! SessionEnd), its answer and what `rail init --agents` installs (`.codex/hooks.json`, the MCP
//! server in `.codex/config.toml`), and the trust it asks for: of the project, and of each hook
//! (`hook_trust.rs` reads Codex's per-hook trust for `rail doctor`).
//!
//! Codex fails open: a deny must be exactly its `hookSpecificOutput` object (one extra key and
//! the JSON is invalid, the hook "failed", the tool runs); exit 2 with an empty stderr is no
//! block either. So a denial is always that object, on exit 0.

use serde_json::{json, Map, Value};

use super::{
    apply_patch, field, mcp_by_name, non_empty, Agent, Answer, Event, Harness, Outcome, PerHook,
    Spec, ToolWrites, TrustEnv, TrustFile,
};
use crate::agent::doctor::Trust;
use crate::agent::setup::{self, FileChanges};

mod hook_trust;

pub const AGENT: Agent = Agent::new(&Codex);

struct Codex;

fn ours(v: &Value) -> bool {
    setup::runs(v, "hook codex")
}

impl Spec for Codex {
    fn name(&self) -> &'static str {
        "codex"
    }

    fn title(&self) -> &'static str {
        "Codex"
    }

    fn hook_help(&self) -> Option<&'static str> {
        Some("Codex CLI: PreToolUse and PostToolUse (Bash, apply_patch, MCP), Stop, SessionEnd")
    }

    fn event(&self, _: Harness, name: &str, payload: &Map<String, Value>) -> Option<Event> {
        match name {
            "PreToolUse" => Some(super::tool_call(self, payload, false)),
            "PostToolUse" => Some(super::after_tool(payload, "tool_name")),
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
            "Bash" => super::command(tool, input, None, &mut found)?,
            // `tool_input.command` is the raw patch (function and freeform forms alike).
            "apply_patch" | "Write" | "Edit" => apply_patch(
                &field(tool, input, &["command", "input", "patch"])?,
                &mut found,
            )?,
            _ => mcp_by_name(tool, input, &mut found),
        }
        Ok(found)
    }

    /// Exactly these keys: Codex rejects (and so runs the tool past) any other.
    fn answer(&self, outcome: &Outcome) -> Answer {
        match outcome {
            // No worktree hook here: a worktree outcome is answered as a plain allow or deny.
            Outcome::Allow | Outcome::Lifecycle(None) | Outcome::Worktree(Ok(_)) => Answer::QUIET,
            Outcome::Warn(m) | Outcome::Lifecycle(Some(m)) => {
                Answer::json(json!({ "systemMessage": m }))
            }
            Outcome::Deny(m) | Outcome::Worktree(Err(m)) => Answer::json(json!({
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": non_empty(m),
                }
            })),
            // PostToolUse's `decision: block` gives the model the reason in place of the
            // tool's output (the tool already ran).
            Outcome::After(m) => {
                Answer::json(json!({ "decision": "block", "reason": non_empty(m) }))
            }
        }
    }

    /// Codex caps SessionEnd at 3 s.
    fn lifecycle_budget_ms(&self, event: &Event) -> u64 {
        match event {
            Event::SessionEnd => 2_500,
            _ => 5_000,
        }
    }

    fn markers(&self) -> &'static [&'static str] {
        &[".codex"]
    }

    fn needs(&self) -> &'static str {
        "trust this project (accept Codex's trust prompt, or set `trust_level = \"trusted\"` for it under [projects] in ~/.codex/config.toml): project hooks and MCP servers load only in a trusted project; then run `codex` in the main checkout and trust Rail's four hooks (\"Trust all and continue\" at its \"Hooks need review\" prompt, or /hooks): Codex skips a new or changed hook without a word until it is trusted, in its stations too; `codex exec` cannot review hooks (--dangerously-bypass-hook-trust runs them for one run). `rail doctor` says which are not trusted"
    }

    fn files(&self, rail: &str, rail_exe: &str) -> Vec<FileChanges> {
        let command = format!("{rail} hook codex");
        let hook =
            |timeout: u32| json!({ "type": "command", "command": command, "timeout": timeout });
        vec![
            // Only `hooks` at the top: Codex rejects a hooks file with any other key but
            // `description`.
            FileChanges::Json {
                path: ".codex/hooks.json",
                changes: vec![
                    setup::upsert(
                        &["hooks", "PreToolUse"],
                        ours,
                        json!({ "matcher": "Bash|apply_patch|mcp__.*", "hooks": [{
                            "type": "command", "command": command, "timeout": 10,
                            "statusMessage": "rail: checking claims" }] }),
                    ),
                    setup::upsert(
                        &["hooks", "PostToolUse"],
                        ours,
                        json!({ "matcher": "Bash|apply_patch|mcp__.*", "hooks": [hook(10)] }),
                    ),
                    setup::upsert(&["hooks", "Stop"], ours, json!({ "hooks": [hook(10)] })),
                    // Codex caps SessionEnd hooks at 3 s.
                    setup::upsert(
                        &["hooks", "SessionEnd"],
                        ours,
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

    fn evidence_files(&self) -> &'static [&'static str] {
        &[".codex/hooks.json"]
    }

    fn trust(&self) -> Option<TrustFile> {
        Some(TrustFile {
            trust_all: None,
            env: TrustEnv::Dir("CODEX_HOME"),
            home_dir: ".codex",
            file: "config.toml",
            judge: trusts,
            fix: |folder| {
                format!(
                "run `codex` once in {folder} and trust the project (or add [projects.\"{folder}\"] trust_level = \"trusted\" to ~/.codex/config.toml), then trust Rail's hooks in /hooks"
            )
            },
            // Codex trusts a project by its main checkout, which covers the stations.
            by_main_checkout: true,
            // Codex reads a linked worktree's hooks from the main checkout's `.codex/` (seen
            // with 0.171.0: a station's own copy is not what it runs), so their trust is judged
            // there once.
            hooks: Some(PerHook {
                file: ".codex/hooks.json",
                judge: hook_trust::hooks_trusted,
                fix: |folder| {
                    format!(
                        "run `codex` in {folder} and trust Rail's hooks: \"Trust all and continue\" at its \"Hooks need review\" prompt, or /hooks, then t (space turns a hook that is off back on); `codex exec` cannot review hooks and skips untrusted ones (--dangerously-bypass-hook-trust runs them for one run)"
                    )
                },
            }),
        })
    }
}

/// Codex: `[projects."<path>"]` with `trust_level = "trusted"` in its `config.toml` trusts the
/// project at that path (a station is covered by its main checkout's entry). `project` is the
/// main checkout's path.
fn trusts(config_toml: &str, project: &str) -> Trust {
    let mut here = false;
    let mut seen = false;
    for line in config_toml.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            here = false;
            let Some(inner) = line
                .strip_prefix("[projects.")
                .and_then(|r| r.split('#').next())
                .map(str::trim)
                .and_then(|r| r.strip_suffix(']'))
            else {
                continue;
            };
            let key = match toml_key(inner.trim()) {
                Some(k) => k,
                None => {
                    return Trust::Unknown(format!("a [projects.…] table Rail cannot read: {line}"))
                }
            };
            if key.trim_end_matches('/') == project.trim_end_matches('/') {
                here = true;
                seen = true;
            }
            continue;
        }
        if !here {
            continue;
        }
        if let Some((k, v)) = line.split_once('=') {
            if k.trim() == "trust_level" {
                let v = v.split('#').next().unwrap_or("").trim();
                return match v.trim_matches('"').trim_matches('\'') {
                    "trusted" => Trust::Trusted,
                    _ => Trust::NotTrusted,
                };
            }
        }
    }
    if seen {
        Trust::NotTrusted
    } else if config_toml.contains("projects") && config_toml.contains('{') {
        Trust::Unknown("projects written in a form Rail does not read (an inline table)".into())
    } else {
        Trust::NotTrusted
    }
}

/// A TOML key as written in a table header: `"basic"` (with `\"` and `\\`), `'literal'` or bare.
fn toml_key(k: &str) -> Option<String> {
    if let Some(inner) = k.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        let mut out = String::new();
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next()? {
                    '"' => out.push('"'),
                    '\\' => out.push('\\'),
                    _ => return None,
                },
                '"' => return None,
                c => out.push(c),
            }
        }
        return Some(out);
    }
    if let Some(inner) = k.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) {
        return (!inner.contains('\'')).then(|| inner.to_string());
    }
    k.chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        .then(|| k.to_string())
}

#[cfg(test)]
mod tests {
    use super::super::tests::read;
    use super::super::tests::tool;
    use super::super::{answer, Harness};
    use super::*;

    #[test]
    fn codex_patches_and_mcp_tools() {
        let p = read(
            AGENT,
            r#"{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Update File: a.rs\n*** Move to: b.rs\n@@\n-x\n+y\n*** End Patch\n"}}"#,
        );
        assert_eq!(tool(&p).0, ["a.rs", "b.rs"]);
        let bad = read(
            AGENT,
            r#"{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Add File: a\n+x\n"}}"#,
        );
        assert!(matches!(bad.event, Event::Malformed(ref m) if m.contains("End Patch")));
        let own = read(
            AGENT,
            r#"{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"mcp__rail__claim","tool_input":{"task":"t"}}"#,
        );
        assert_eq!(tool(&own), (&[][..], &[][..]));
        let fs = read(
            AGENT,
            r#"{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"mcp__fs__write_file","tool_input":{"path":"src/a","content":"x"}}"#,
        );
        assert_eq!(tool(&fs).0, ["src/a"]);
        let unknown = read(
            AGENT,
            r#"{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"mcp__db__migrate","tool_input":{}}"#,
        );
        assert!(tool(&unknown).1[0].contains("mcp__db__migrate"));
        let lister = read(
            AGENT,
            r#"{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"mcp__db__list_tables","tool_input":{}}"#,
        );
        assert_eq!(tool(&lister), (&[][..], &[][..]));
    }

    #[test]
    fn a_path_written_twice_in_one_call_is_judged_once() {
        // Seen with Codex 0.171.0: `apply_patch <<'EOF' …` through exec_command is read by the
        // shell reader (the `apply_patch` program) and by the patch scan, and the denial named
        // the file twice; a patch that adds then updates a file did the same.
        let shell = read(
            AGENT,
            r#"{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Bash","tool_input":{"command":"apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: owned/x\n+x\n*** End Patch\nEOF"}}"#,
        );
        assert_eq!(tool(&shell).0, ["owned/x"]);
        let patch = read(
            AGENT,
            r#"{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Add File: a\n+x\n*** Update File: a\n@@\n-x\n+y\n*** Update File: b\n*** Move to: a\n@@\n-x\n+y\n*** End Patch\n"}}"#,
        );
        assert_eq!(tool(&patch).0, ["a", "b"]);
    }

    #[test]
    fn a_denial_is_exactly_the_deny_object() {
        assert_eq!(
            answer(Harness::of(AGENT), &Outcome::Deny("held".into()))
                .stdout
                .unwrap(),
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"held"}}"#
        );
    }

    #[test]
    fn codex_trust_is_read_from_its_projects_tables() {
        let cfg = "model = \"x\"\n[projects.\"/w/app\"]\ntrust_level = \"trusted\"\n[projects.'/w/other']\ntrust_level = \"untrusted\"\n";
        assert_eq!(trusts(cfg, "/w/app"), Trust::Trusted);
        assert_eq!(trusts(cfg, "/w/app/"), Trust::Trusted);
        assert_eq!(trusts(cfg, "/w/other"), Trust::NotTrusted);
        assert_eq!(trusts(cfg, "/w/none"), Trust::NotTrusted);
        assert_eq!(trusts("", "/w/app"), Trust::NotTrusted);
        assert_eq!(
            trusts(
                "[projects.\"C:\\\\w\\\\app\"]\ntrust_level = \"trusted\"\n",
                "C:\\w\\app"
            ),
            Trust::Trusted
        );
        assert!(matches!(
            trusts(
                "projects = { \"/w/app\" = { trust_level = \"trusted\" } }\n",
                "/w/app"
            ),
            Trust::Unknown(_)
        ));
        assert!(matches!(
            trusts("[projects.\"bad\\q\"]\n", "/w"),
            Trust::Unknown(_)
        ));
    }
    #[test]
    fn the_after_tool_event_is_read_and_answered_in_its_own_format() {
        let call = super::super::tests::read(
            AGENT,
            r#"{"hook_event_name":"PostToolUse","cwd":"/w","tool_name":"Bash","tool_use_id":"toolu_9","tool_input":{"command":"python3 x.py"},"tool_response":"ok"}"#,
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
            (a.code, a.stdout.as_deref()),
            (0, Some(r#"{"decision":"block","reason":"put back"}"#))
        );
        let installed = format!("{:?}", AGENT.files("rail", "rail"));
        assert!(installed.contains("PostToolUse"), "{installed}");
    }
}
