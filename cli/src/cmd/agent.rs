//! Agents follow the rail: the Claude Code hook, the instruction snippet and the hook settings.
//!
//! `rail hook claude` reads a hook payload on stdin. For PreToolUse it denies (exit 2, reason
//! on stderr — the only exits Claude Code treats as blocking besides a JSON deny) an edit to a
//! path another live session holds, warns (exit 0 with a `systemMessage`, never an "allow",
//! which would skip the user's permission prompts) on an edit outside the session's claim, and
//! allows everything else silently. Stop renews the session's claims (the agent is active);
//! SessionEnd releases them (or renews, or nothing: rail.yaml `on_stop`). When the rail cannot
//! be read it fails closed by default (rail.yaml `hook_failure: warn` to only warn), and it never
//! runs past a time bound.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, Subcommand};
use rail_core::config::{HookFailure, HookUnanalysed, OnStop};
use rail_core::hook::{self, Decision};
use rail_core::log::{Event, LogEntry};
use rail_core::model::Rail;
use rail_core::ops::Request;
use serde_json::{json, Value};

use crate::context::{Commits, Ctx};
use crate::fail::{self, Fail};
use crate::repo;

#[derive(Subcommand, Debug)]
pub enum HookKind {
    /// Claude Code: PreToolUse (Edit, Write, MultiEdit, NotebookEdit, Bash), Stop, SessionEnd.
    Claude,
}

/// Exit code Claude Code treats as "block this tool call".
const BLOCK: i32 = 2;

fn hook_timeout() -> Duration {
    std::env::var("RAIL_HOOK_TIMEOUT_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map(Duration::from_millis)
        .unwrap_or(Duration::from_secs(8))
}

fn failure_mode(rail_dir: Option<&Path>) -> HookFailure {
    match std::env::var("RAIL_HOOK_FAILURE").as_deref() {
        Ok("warn") => return HookFailure::Warn,
        Ok("deny") => return HookFailure::Deny,
        _ => {}
    }
    rail_dir
        // Not a plain read: a rail.yaml that is a FIFO would hang the watchdog itself.
        .and_then(|d| crate::railfile::read_text(&d.join(rail_core::model::CONFIG_FILE)).ok())
        .flatten()
        .map(|t| rail_core::config::parse(&t).0.hook_failure)
        .unwrap_or(HookFailure::Deny)
}

/// Fail safe: deny (or only warn, by config) with a clear reason. Never exit 1, which Claude
/// Code would treat as a non-blocking error.
fn fail_safe(reason: &str, rail_dir: Option<&Path>) -> i32 {
    match failure_mode(rail_dir) {
        HookFailure::Deny => {
            errln!(
                "Rail could not check this edit: {reason}. Edits are denied until the rail can be read (set `hook_failure: warn` in rail.yaml to only warn)."
            );
            BLOCK
        }
        HookFailure::Warn => {
            outln_raw!(
                "{}",
                json!({ "systemMessage": format!("Rail could not check this edit: {reason}") })
            );
            fail::OK
        }
    }
}

/// Entry point; returns the process exit code (the hook speaks through exit codes).
pub fn claude(ctx_result: Result<Ctx, Fail>) -> i32 {
    // The bound: whatever happens below, answer in time.
    let bound = hook_timeout();
    let rail_dir_for_watchdog = ctx_result.as_ref().ok().map(|c| c.rail.root.clone());
    std::thread::spawn(move || {
        std::thread::sleep(bound);
        let code = fail_safe(
            &format!("the check took longer than {} ms", bound.as_millis()),
            rail_dir_for_watchdog.as_deref(),
        );
        std::process::exit(code);
    });

    let mut input = String::new();
    if let Err(e) = std::io::stdin()
        .take(16 * 1024 * 1024)
        .read_to_string(&mut input)
    {
        return fail_safe(&format!("cannot read the hook input: {e}"), None);
    }
    let payload: Value = match serde_json::from_str(&input) {
        Ok(v @ Value::Object(_)) => v,
        Ok(_) => return fail_safe("the hook input is not a JSON object", None),
        Err(e) => return fail_safe(&format!("the hook input is not JSON ({e})"), None),
    };
    let ctx = match ctx_result {
        Ok(ctx) => ctx,
        Err(f) => return fail_safe(&f.message, None),
    };
    let event = payload["hook_event_name"].as_str().unwrap_or("");
    match event {
        "PreToolUse" => pre_tool_use(&ctx, &payload),
        "Stop" => {
            // Ending a turn is activity: keep the lease. Never block a stop.
            let _ = on_session(&ctx, OnStop::Renew);
            fail::OK
        }
        "SessionEnd" => {
            let on_stop = ctx
                .read(false)
                .ok()
                .and_then(|t| {
                    t.config
                        .map(|c| rail_core::config::parse(&c.text).0.on_stop)
                })
                .unwrap_or(OnStop::Release);
            if let Err(e) = on_session(&ctx, on_stop) {
                errln!("rail: at session end: {e}");
            }
            fail::OK
        }
        "" => fail_safe(
            "the hook input has no hook_event_name",
            Some(&ctx.rail.root),
        ),
        _ => fail::OK,
    }
}

/// The paths a tool call writes, as the payload gives them.
fn tool_targets(payload: &Value) -> Result<(Vec<String>, Vec<String>), String> {
    let tool = payload["tool_name"].as_str().unwrap_or("");
    let input = &payload["tool_input"];
    let field = |name: &str| -> Result<Vec<String>, String> {
        match input[name].as_str() {
            Some(p) if !p.is_empty() => Ok(vec![p.to_string()]),
            _ => Err(format!("{tool} call without `tool_input.{name}`")),
        }
    };
    match tool {
        "Edit" | "Write" | "MultiEdit" => Ok((field("file_path")?, Vec::new())),
        "NotebookEdit" => Ok((field("notebook_path")?, Vec::new())),
        "Bash" => {
            let command = input["command"]
                .as_str()
                .ok_or("Bash call without `tool_input.command`")?;
            let writes = rail_core::shell::writes(command);
            Ok((writes.targets, writes.unanalysed))
        }
        _ => Ok((Vec::new(), Vec::new())),
    }
}

fn pre_tool_use(ctx: &Ctx, payload: &Value) -> i32 {
    let root = Some(ctx.rail.root.as_path());
    let (raw_targets, mut unanalysed) = match tool_targets(payload) {
        Ok(t) => t,
        Err(e) => return fail_safe(&e, root),
    };
    if raw_targets.is_empty() && unanalysed.is_empty() {
        return fail::OK;
    }
    let cwd = payload["cwd"]
        .as_str()
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default();
    let session = match session_at(ctx, &cwd) {
        Ok(s) => s,
        Err(e) => return fail_safe(&e, root),
    };
    // Every checkout of this repository, symlinks resolved: a path is judged in whichever one
    // it lands in.
    let worktrees: Vec<String> = ctx
        .repo
        .as_ref()
        .map(|r| {
            repo::worktrees(r)
                .into_iter()
                .map(|(p, _)| p.canonicalize().unwrap_or(p))
                .map(|p| p.display().to_string())
                .collect()
        })
        .unwrap_or_default();
    let cwd = cwd.canonicalize().unwrap_or(cwd);
    let rail_root = ctx
        .rail
        .root
        .canonicalize()
        .ok()
        .map(|p| p.display().to_string());
    let landings: Vec<(String, hook::Landing)> = raw_targets
        .iter()
        .map(|t| (t.clone(), land(&cwd, t)))
        .collect();
    let landed = hook::land(&worktrees, rail_root.as_deref(), &landings);
    unanalysed.extend(landed.unanalysed);
    if landed.targets.is_empty() && unanalysed.is_empty() {
        return fail::OK;
    }
    let texts = match ctx.read(false) {
        Ok(t) => t,
        Err(f) => return fail_safe(&f.message, root),
    };
    let mode = texts
        .config
        .as_ref()
        .map(|c| rail_core::config::parse(&c.text).0.hook_unanalysed)
        .unwrap_or(HookUnanalysed::Warn);
    let facts = ctx.facts(&texts, Commits::IfNeeded);
    let eval = Rail::load(&texts).evaluate(&facts);
    let verdict = hook::judge(&eval, &session, &landed.targets, &unanalysed, mode);
    match verdict.decision {
        Decision::Deny => {
            log_refusal(ctx, &session, &verdict);
            errln!(
                "{}",
                crate::hint::say(&verdict.message, verdict.hint.as_ref())
            );
            BLOCK
        }
        Decision::Warn => {
            let message = crate::hint::say(&verdict.message, verdict.hint.as_ref());
            outln_raw!(
                "{}",
                json!({
                    "systemMessage": message,
                    "hookSpecificOutput": { "hookEventName": "PreToolUse", "additionalContext": message }
                })
            );
            fail::OK
        }
        Decision::Allow => fail::OK,
    }
}

/// Symlinks followed before Rail gives up on a path (the kernel's own limit is 40).
const MAX_SYMLINKS: usize = 40;

/// Where a write of `written` (relative to `cwd`, or absolute) lands: every symlink on the way
/// followed, also one that points at something that does not exist yet (the write creates it
/// there); the part that does not exist, and a glob tail, appended as written. The rule — what
/// a landing means — is core's (`hook::land`); this is only the file system's answer.
fn land(cwd: &Path, written: &str) -> hook::Landing {
    use std::collections::VecDeque;
    use std::path::Component;
    let path = cwd.join(written);
    let mut at = PathBuf::new();
    let mut rest: VecDeque<std::ffi::OsString> = VecDeque::new();
    for c in path.components() {
        match c {
            Component::Prefix(_) | Component::RootDir => at.push(c.as_os_str()),
            other => rest.push_back(other.as_os_str().to_owned()),
        }
    }
    let mut exists = true;
    let mut hops = 0;
    while let Some(part) = rest.pop_front() {
        let text = part.to_string_lossy();
        if text == "." {
            continue;
        }
        if text == ".." {
            // `at` has no symlinks in it, so its parent is the physical parent.
            at.pop();
            continue;
        }
        if !exists || text.contains(['*', '?', '[', '{']) {
            // Past what exists, or a pattern: the rest as written.
            exists = false;
            at.push(&part);
            continue;
        }
        let next = at.join(&part);
        match std::fs::symlink_metadata(&next) {
            Ok(m) if m.file_type().is_symlink() => {
                hops += 1;
                if hops > MAX_SYMLINKS {
                    return hook::Landing::Unresolved(format!(
                        "more than {MAX_SYMLINKS} symlinks, a loop at {}",
                        next.display()
                    ));
                }
                let target = match std::fs::read_link(&next) {
                    Ok(t) => t,
                    Err(e) => return hook::Landing::Unresolved(format!("{}: {e}", next.display())),
                };
                if target.has_root() {
                    at = PathBuf::new();
                }
                let mut parts: Vec<std::ffi::OsString> = Vec::new();
                for c in target.components() {
                    match c {
                        Component::Prefix(_) | Component::RootDir => at.push(c.as_os_str()),
                        other => parts.push(other.as_os_str().to_owned()),
                    }
                }
                for p in parts.into_iter().rev() {
                    rest.push_front(p);
                }
            }
            Ok(_) => at = next,
            Err(e)
                if e.kind() == std::io::ErrorKind::NotFound
                    || e.kind() == std::io::ErrorKind::NotADirectory =>
            {
                exists = false;
                at = next;
            }
            Err(e) => return hook::Landing::Unresolved(format!("{}: {e}", next.display())),
        }
    }
    hook::Landing::At(at.display().to_string())
}

/// Denials are recorded, so a person can see what agents were kept from doing.
fn log_refusal(ctx: &Ctx, session: &str, verdict: &hook::HookVerdict) {
    // A denial must not wait long on the lock just to be logged.
    let Ok(lock) = ctx.lock_within(session, Some(Duration::from_millis(500))) else {
        return;
    };
    let Ok(texts) = ctx.read(true) else { return };
    let line = match verdict.held.first() {
        Some(first) => LogEntry::new(
            ctx.now,
            Event::Refused,
            first.task.as_deref(),
            Some(session),
        )
        .with("path", first.path.clone())
        .with("holder", first.session.clone()),
        // Denied because it could not be judged (`hook_unanalysed: deny`).
        None => LogEntry::new(ctx.now, Event::Refused, None, Some(session))
            .with("reason", "not analysed"),
    }
    .with("by", "hook claude")
    .render();
    let _ = crate::shared::record_local(ctx, &lock, &texts, &[line]);
}

/// The session of the agent working in `cwd`: RAIL_SESSION / --session, else that checkout's
/// branch.
fn session_at(ctx: &Ctx, cwd: &Path) -> Result<String, String> {
    if let Some(s) = ctx.explicit_session() {
        return Ok(s.to_string());
    }
    let repo =
        repo::discover(cwd).ok_or_else(|| format!("{} is not in a git checkout", cwd.display()))?;
    let branch = repo
        .branch()
        .ok_or("HEAD is detached; set RAIL_SESSION for this agent")?;
    rail_core::ident::validate_session(&branch).map_err(|e| e.0)?;
    Ok(branch)
}

/// Renews or releases every claim of the session (Stop / SessionEnd).
fn on_session(ctx: &Ctx, what: OnStop) -> Result<(), String> {
    let cwd = std::env::current_dir().map_err(|e| e.to_string())?;
    let session = session_at(ctx, &cwd)?;
    let texts = ctx.read(false).map_err(|f| f.message)?;
    let facts = ctx.facts(&texts, Commits::IfNeeded);
    let eval = Rail::load(&texts).evaluate(&facts);
    let tasks: Vec<String> = eval
        .claims
        .iter()
        .filter(|c| c.session == session)
        .filter_map(|c| c.task.clone())
        .collect();
    for task in tasks {
        let request = match what {
            OnStop::Nothing => return Ok(()),
            OnStop::Renew => Request::Renew { task },
            OnStop::Release => Request::Release {
                touched: crate::cmd::mutate::touched_files(ctx, None),
                task,
                done: false,
            },
        };
        crate::cmd::mutate::mutate(ctx, &session, request).map_err(|f| f.message)?;
    }
    Ok(())
}

#[derive(Args, Debug, Default)]
pub struct AgentsArgs {
    /// Print the instruction section and the hook settings instead of writing them.
    #[arg(long)]
    pub print: bool,
    /// Instruction files to write (default: AGENTS.md and CLAUDE.md that exist, else both).
    #[arg(long = "file", value_name = "PATH")]
    pub files: Vec<PathBuf>,
}

const BEGIN: &str = "<!-- rail:begin -->";
const END: &str = "<!-- rail:end -->";

/// The section for AGENTS.md / CLAUDE.md.
pub fn instructions() -> String {
    format!(
        "{BEGIN}
## Working beside other agents: the rail

Several agent sessions work on this repository at once. Rail keeps them off each other's work;
its hooks enforce the rules below, so follow them rather than fight them.

- **Claim before you edit.** Look at `rail board`, then `rail claim TASK --path GLOB… --purpose \"…\"`
  (add `--resource port:3000` etc. for shared things you will use). If the claim is refused, the
  task or its files are someone else's: pick other work (`rail ready`).
- **Work in your station**: one worktree and branch per task, `rail worktree TASK --path GLOB…`.
- **Keep your lease**: commit on your branch or run `rail renew TASK`. A claim idle past its lease
  (2h by default) goes stale and may be taken.
- **Never edit another session's paths** (`rail who PATH` tells who holds a file). If you need a
  file outside your claim, add it first: `rail update TASK --path …`.
- **Finish through the gate**: `rail done TASK` runs the checks and releases the claim only when
  they pass and your changes are in scope. If you stop early, `rail release TASK`. Never delete
  your worktree yourself: `rail done` closes the station when rail.yaml asks for it and nothing
  would be lost; otherwise it stays for review (`rail worktree remove` is for whoever merges it).
{END}
"
    )
}

/// Puts the section into `text`: replaces an existing one in place, or appends it. Nothing else
/// in the file changes.
pub fn upsert_section(text: &str, section: &str) -> String {
    if let (Some(start), Some(end)) = (text.find(BEGIN), text.find(END)) {
        if start < end {
            let mut after = end + END.len();
            if text[after..].starts_with("\r\n") {
                after += 2;
            } else if text[after..].starts_with('\n') {
                after += 1;
            }
            return format!("{}{section}{}", &text[..start], &text[after..]);
        }
    }
    let mut out = text.to_string();
    if !out.is_empty() {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push('\n');
    }
    out.push_str(section);
    out
}

/// The hook settings Claude Code reads from `.claude/settings.json`.
pub fn claude_hooks(rail: &str) -> Value {
    let command = format!("{rail} hook claude");
    json!({
        "PreToolUse": [{
            "matcher": "Edit|Write|MultiEdit|NotebookEdit|Bash",
            "hooks": [{ "type": "command", "command": command, "timeout": 10 }]
        }],
        "Stop": [{ "hooks": [{ "type": "command", "command": command, "timeout": 10 }] }],
        "SessionEnd": [{ "hooks": [{ "type": "command", "command": command, "timeout": 30 }] }]
    })
}

fn is_rail_hook(group: &Value) -> bool {
    group["hooks"].as_array().is_some_and(|hooks| {
        hooks.iter().any(|h| {
            h["command"]
                .as_str()
                .is_some_and(|c| c.ends_with("hook claude"))
        })
    })
}

/// Merges Rail's hooks into existing settings: Rail's groups are replaced in place or appended;
/// every other key and hook stays as it was.
pub fn merge_settings(existing: Value, rail: &str) -> Result<Value, String> {
    let mut settings = match existing {
        Value::Object(map) => map,
        Value::Null => serde_json::Map::new(),
        _ => return Err("is not a JSON object".into()),
    };
    let hooks = settings
        .entry("hooks")
        .or_insert_with(|| Value::Object(serde_json::Map::new()));
    let Value::Object(hooks) = hooks else {
        return Err("`hooks` is not an object".into());
    };
    let Value::Object(ours) = claude_hooks(rail) else {
        return Err("internal: hook settings".into());
    };
    for (event, groups) in ours {
        let ours_group = groups[0].clone();
        let list = hooks.entry(event.clone()).or_insert_with(|| json!([]));
        let Value::Array(list) = list else {
            return Err(format!("`hooks.{event}` is not a list"));
        };
        match list.iter().position(is_rail_hook) {
            Some(i) => list[i] = ours_group,
            None => list.push(ours_group),
        }
    }
    Ok(Value::Object(settings))
}

pub fn init_agents(ctx: &Ctx, args: &AgentsArgs, rail: &str) -> Result<Vec<String>, Fail> {
    let section = instructions();
    if args.print {
        outln!("{section}");
        outln!(
            "# .claude/settings.json (merged into existing settings by `rail init --agents`):\n{}",
            serde_json::to_string_pretty(&json!({ "hooks": claude_hooks(rail) }))
                .unwrap_or_default()
        );
        return Ok(Vec::new());
    }
    let top = ctx
        .repo
        .as_ref()
        .map(|r| r.worktree.clone())
        .unwrap_or_else(|| ctx.rail.root.clone());
    let mut done = Vec::new();
    // Read everything first, so a bad settings file changes nothing at all.
    let settings_path = top.join(".claude/settings.json");
    let existing = match std::fs::read_to_string(&settings_path) {
        Ok(t) if t.trim().is_empty() => Value::Null,
        Ok(t) => serde_json::from_str(&t).map_err(|e| {
            Fail::usage(format!(
                "{}: not valid JSON ({e}); fix it, then run `rail init --agents` again (nothing was changed)",
                settings_path.display()
            ))
        })?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Value::Null,
        Err(e) => return Err(Fail::env(format!("{}: {e}", settings_path.display()))),
    };
    let merged = merge_settings(existing.clone(), rail).map_err(|e| {
        Fail::usage(format!(
            "{}: {e}; nothing was changed",
            settings_path.display()
        ))
    })?;

    let files: Vec<PathBuf> = if args.files.is_empty() {
        let present: Vec<PathBuf> = ["AGENTS.md", "CLAUDE.md"]
            .iter()
            .map(|n| top.join(n))
            .filter(|p| p.exists())
            .collect();
        if present.is_empty() {
            vec![top.join("AGENTS.md"), top.join("CLAUDE.md")]
        } else {
            present
        }
    } else {
        args.files
            .iter()
            .map(|f| {
                if f.is_absolute() {
                    f.clone()
                } else {
                    top.join(f)
                }
            })
            .collect()
    };
    for file in files {
        let old = match std::fs::read_to_string(&file) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(Fail::env(format!("{}: {e}", file.display()))),
        };
        let new = upsert_section(&old, &section);
        if new != old {
            std::fs::write(&file, new)
                .map_err(|e| Fail::env(format!("{}: {e}", file.display())))?;
            done.push(format!("wrote the rail section of {}", file.display()));
        }
    }
    if merged != existing {
        if let Some(parent) = settings_path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| Fail::env(format!("{}: {e}", parent.display())))?;
        }
        let text = serde_json::to_string_pretty(&merged).unwrap_or_default() + "\n";
        std::fs::write(&settings_path, text)
            .map_err(|e| Fail::env(format!("{}: {e}", settings_path.display())))?;
        done.push(format!(
            "merged Rail's hooks into {}",
            settings_path.display()
        ));
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn section_is_replaced_in_place_never_duplicated() {
        let section = instructions();
        let user = "# Agents\n\nBe nice.\n";
        let once = upsert_section(user, &section);
        assert!(once.starts_with(user));
        assert_eq!(upsert_section(&once, &section), once);
        let edited = once.replace("Keep your lease", "Keep the lease");
        let fixed = upsert_section(&format!("{edited}\n## After\nmore\n"), &section);
        assert_eq!(fixed, format!("{once}\n## After\nmore\n"));
    }

    #[test]
    fn settings_merge_keeps_the_users_things() {
        let existing = json!({
            "model": "opus",
            "hooks": {
                "PreToolUse": [{ "matcher": "Bash", "hooks": [{ "type": "command", "command": "my-guard" }] }],
                "PostToolUse": [{ "matcher": "Edit", "hooks": [{ "type": "command", "command": "fmt" }] }]
            }
        });
        let merged = merge_settings(existing, "rail").unwrap();
        assert_eq!(merged["model"], "opus");
        assert_eq!(merged["hooks"]["PreToolUse"].as_array().unwrap().len(), 2);
        assert_eq!(
            merged["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
            "my-guard"
        );
        assert_eq!(
            merged["hooks"]["PostToolUse"][0]["hooks"][0]["command"],
            "fmt"
        );
        assert_eq!(
            merged["hooks"]["SessionEnd"][0]["hooks"][0]["command"],
            "rail hook claude"
        );
        // Idempotent, and a moved binary updates in place.
        assert_eq!(merge_settings(merged.clone(), "rail").unwrap(), merged);
        let moved = merge_settings(merged, "/opt/rail").unwrap();
        assert_eq!(moved["hooks"]["PreToolUse"].as_array().unwrap().len(), 2);
        assert_eq!(
            moved["hooks"]["PreToolUse"][1]["hooks"][0]["command"],
            "/opt/rail hook claude"
        );
    }
}
