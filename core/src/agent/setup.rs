//! What `rail init --agents` installs, over the list of agents (each agent's own files are its
//! module's, [`crate::agent`]): the shapes of a file's changes (JSON through
//! [`crate::formats::jsonc`], TOML by the host's format-preserving editor) and the helpers the
//! agents build them with, which agents a checkout is set up for, where a station gets each file,
//! the mark of a station an agent's worktree hook made, and the lines Rail adds to
//! `info/exclude`. Shapes: docs/agents.md.

use serde_json::{json, Value};

use crate::agent::{Agent, AGENTS};
use crate::formats::jsonc::Change;

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
pub fn runs(v: &Value, hook: &str) -> bool {
    commands_of(v).iter().any(|c| {
        let c = c.trim_end();
        let c = match c.rsplit_once(" --event ") {
            Some((head, event)) if !event.is_empty() && !event.contains(' ') => head,
            _ => c,
        };
        c.trim_end().ends_with(hook)
    })
}

/// The programs the hook commands of `agent` in one of its hook files (`text`) start: what an
/// agent runs, to check that it resolves (`rail`, or an absolute path, shell-quoted or not).
pub fn hook_programs(agent: Agent, text: &str) -> Vec<String> {
    let hook = format!(" hook {}", agent.name());
    let Ok(node) = crate::formats::jsonc::parse(text) else {
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
    crate::text::sort::sort_by(&mut out, |a, b| a.cmp(b));
    out.dedup();
    out
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
pub fn versioned_hooks(
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

pub fn upsert(p: &[&str], ours: fn(&Value) -> bool, value: Value) -> Change {
    Change::Upsert {
        path: path(p),
        ours,
        value,
    }
}

/// A JSON file in which `keys` is set to `value` (an MCP server entry).
pub fn set_json(path: &'static str, keys: &[&str], value: Value) -> FileChanges {
    FileChanges::Json {
        path,
        changes: vec![Change::Set {
            path: self::path(keys),
            value,
        }],
    }
}

/// Rail's MCP server entry: `rail_exe mcp`.
pub fn mcp(rail_exe: &str) -> Value {
    json!({ "command": rail_exe, "args": ["mcp"] })
}

/// Rail's MCP server entry with its transport named (`stdio`).
pub fn mcp_stdio(rail_exe: &str) -> Value {
    json!({ "type": "stdio", "command": rail_exe, "args": ["mcp"] })
}

/// Whether a hooks file (`{"hooks": {EVENT: [entry, …]}}`) has an entry that is `ours`.
pub fn hooks_run(file: &Value, ours: impl Fn(&Value) -> bool) -> bool {
    file["hooks"].as_object().is_some_and(|events| {
        events
            .values()
            .any(|e| e.as_array().is_some_and(|a| a.iter().any(&ours)))
    })
}

/// The hook events `rail init --agents` gives `agent` in its hooks file `path` that `file` (that
/// file, parsed) has no Rail entry for: a file written by an older Rail, or edited since. Each
/// such event runs no Rail hook until `rail init --agents` is run again.
pub fn missing_hooks(agent: Agent, path: &str, file: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for changes in agent.files("rail", "rail") {
        let FileChanges::Json { path: p, changes } = changes else {
            continue;
        };
        if p != path {
            continue;
        }
        for change in changes {
            let Change::Upsert {
                path: keys, ours, ..
            } = change
            else {
                continue;
            };
            if keys.first().map(String::as_str) != Some("hooks") {
                continue;
            }
            let entries = keys.iter().fold(file, |v, k| &v[k.as_str()]);
            let there = entries.as_array().is_some_and(|a| a.iter().any(ours));
            if !there {
                out.push(keys[1..].join("."));
            }
        }
    }
    out
}

/// Where a station gets the file `path` of `rail init --agents` (docs/agents.md, "Stations"):
/// the agent's own local, untracked variant where it has one (each agent's
/// [`crate::agent::Spec::station_paths`]), else the project file itself.
pub fn station_path(path: &'static str) -> &'static str {
    AGENTS
        .iter()
        .flat_map(|a| a.station_paths())
        .find(|(project, _)| *project == path)
        .map_or(path, |(_, local)| local)
}

/// The other files an agent merges with `path` (a project file and its local variant, each
/// agent's [`crate::agent::Spec::station_paths`]): what is in them counts as in `path`.
pub fn merged_with(path: &str) -> Vec<&'static str> {
    AGENTS
        .iter()
        .flat_map(|a| a.station_paths())
        .filter_map(|(project, local)| match path {
            p if p == *project => Some(*local),
            p if p == *local => Some(*project),
            _ => None,
        })
        .collect()
}

/// The agents Rail is set up for in a checkout, judged from the text of its files (`read` gives
/// a file's text by its path from the checkout's top, `None` when it is missing): an agent whose
/// hook file runs `rail hook <agent>` (VS Code: whose MCP file names the `rail` server). A file
/// that does not parse counts as not set up.
pub fn configured(read: impl Fn(&str) -> Option<String>) -> Vec<Agent> {
    AGENTS
        .iter()
        .copied()
        .filter(|a| {
            a.evidence_files().iter().any(|p| {
                read(p)
                    .and_then(|text| crate::formats::jsonc::parse(&text).ok())
                    .is_some_and(|node| a.set_up(&node.to_value()))
            })
        })
        .collect()
}

/// The agents set up in the main checkout (`main`) that a worktree (`here`, read the same way
/// by [`configured`]) has no Rail hook for: an agent started there would run unguarded.
pub fn unguarded(main: &[Agent], here: &[Agent]) -> Vec<Agent> {
    main.iter().filter(|t| !here.contains(t)).copied().collect()
}

/// The file in a worktree's own git directory (`<common dir>/worktrees/<id>/`) that says Rail
/// made the worktree for an agent's worktree hook: only such a station is closed by that
/// agent's WorktreeRemove (never one `rail worktree` or a person made, whatever a payload
/// names). It goes with the worktree: `git worktree remove` and `prune` delete that directory.
pub const HOOK_MADE_FILE: &str = "rail-hook-station";

/// The text of [`HOOK_MADE_FILE`] for a station made by `agent`'s hook (`rail hook <agent>`).
pub fn hook_made(agent: &str, task: &str, session: &str) -> String {
    format!("made by: rail hook {agent}\ntask: {task}\nsession: {session}\n")
}

/// Whether [`HOOK_MADE_FILE`]'s text says `agent`'s hook made the station.
pub fn made_by_hook(text: &str, agent: &str) -> bool {
    text.lines().next() == Some(&format!("made by: rail hook {agent}"))
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
    use crate::agent::{claude, gemini};
    use crate::formats::jsonc;

    #[test]
    fn every_json_file_is_idempotent_and_keeps_foreign_hooks() {
        for t in AGENTS {
            for f in t.files("rail", "rail") {
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
                let moved = t.files("/opt/rail", "/opt/rail");
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
    fn configured_agents_are_read_from_their_hook_files() {
        let claude = jsonc::apply(
            "",
            &match &claude::AGENT.files("/x/rail", "/x/rail")[0] {
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
        assert_eq!(configured(read), vec![claude::AGENT]);
        assert_eq!(configured(|_| None), Vec::<Agent>::new());
        assert_eq!(
            unguarded(&[claude::AGENT, gemini::AGENT], &[claude::AGENT]),
            vec![gemini::AGENT]
        );
        assert_eq!(
            station_path(".claude/settings.json"),
            ".claude/settings.local.json"
        );
        assert_eq!(
            station_path(".gemini/settings.json"),
            ".gemini/settings.json"
        );
        assert_eq!(
            merged_with(".claude/settings.local.json"),
            [".claude/settings.json"]
        );
        assert_eq!(
            merged_with(".claude/settings.json"),
            [".claude/settings.local.json"]
        );
        assert!(merged_with(".gemini/settings.json").is_empty());
    }

    #[test]
    fn only_a_station_the_agents_hook_made_says_so() {
        let text = hook_made("claude", "auth", "auth");
        assert!(made_by_hook(&text, "claude"));
        assert!(!made_by_hook(&text, "codex"));
        assert!(!made_by_hook("", "claude"));
        assert!(!made_by_hook("made by: rail hook claude-x\n", "claude"));
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

    /// A hooks file written before Rail installed an event names that event; one `rail init
    /// --agents` writes is complete.
    #[test]
    fn hooks_missing_from_an_older_file_are_named() {
        use crate::agent::claude;
        let file = |groups: &[(&str, Value)]| {
            let mut hooks = serde_json::Map::new();
            for (event, group) in groups {
                hooks.insert(event.to_string(), json!([group]));
            }
            json!({ "hooks": hooks })
        };
        let all = claude::hooks("rail");
        let complete = file(&all);
        assert!(missing_hooks(claude::AGENT, ".claude/settings.json", &complete).is_empty());
        let older: Vec<_> = all
            .iter()
            .filter(|(e, _)| *e != "PostToolUseFailure")
            .cloned()
            .collect();
        assert_eq!(
            missing_hooks(claude::AGENT, ".claude/settings.json", &file(&older)),
            ["PostToolUseFailure"]
        );
        // Another tool's entry under the event is not Rail's.
        let mut theirs = older.clone();
        theirs.push((
            "PostToolUseFailure",
            json!({"hooks": [{"type": "command", "command": "lint"}]}),
        ));
        assert_eq!(
            missing_hooks(claude::AGENT, ".claude/settings.json", &file(&theirs)),
            ["PostToolUseFailure"]
        );
        assert!(missing_hooks(claude::AGENT, ".mcp.json", &json!({})).is_empty());
    }
}
