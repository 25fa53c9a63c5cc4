//! Codex's trust of each of Rail's hooks, for `rail doctor`. Codex skips a hook without a word
//! unless the person trusted it, as it is now, in its `/hooks` review; it keeps that trust in its
//! user config.toml (`[hooks.state]`: per hook, the hash of the hook as trusted and whether it is
//! turned off), and skips its whole hooks file if it cannot read it. Read here as Codex 0.171.0
//! reads them; the facts and how they were checked against the real program: docs/agents.md
//! (Codex CLI, "Hook trust").

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::agent::doctor::{HookCheck, HookTrust, JudgedHook};
use crate::agent::setup;
use crate::formats::jsonc::{self, JsonKind, JsonNode, Member};

/// The keys of a hooks file's `hooks` that Codex 0.171.0 reads (it ignores any other).
const HOOK_EVENTS: [&str; 14] = [
    "PreModelRequest",
    "PostModelRequest",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PreCompact",
    "PostCompact",
    "SessionStart",
    "SessionEnd",
    "UserPromptSubmit",
    "SubagentStart",
    "SubagentStop",
    "Stop",
    "Interrupt",
];

/// The events Rail installs hooks for, with the label Codex keys their trust by.
const RAIL_EVENTS: [(&str, &str); 4] = [
    ("PreToolUse", "pre_tool_use"),
    ("PostToolUse", "post_tool_use"),
    ("Stop", "stop"),
    ("SessionEnd", "session_end"),
];

/// Codex's trust of each of Rail's hooks in its `.codex/hooks.json`, from the `[hooks.state]`
/// of its user config.toml. Codex 0.171.0 keys a hook by `<hooks.json path as it spells
/// it>:<event label>:<group>:<handler>` (positions in the file) and runs it only when that
/// entry's `trusted_hash` is the hook's hash now ([`hook_hash`]) and `enabled` is not `false`;
/// a hook without an entry is new, one with another hash changed: both are skipped without a
/// word. An error: Codex would not read the hooks file at all.
pub(super) fn hooks_trusted(check: &HookCheck) -> Result<Vec<JudgedHook>, String> {
    let doc = codex_reads(check.hooks)?;
    let states = check
        .trust_file
        .map_err(str::to_string)
        .and_then(hook_states);
    let mut out = Vec::new();
    let events = get(object(&doc), "hooks").map(object).unwrap_or_default();
    for (event, label) in RAIL_EVENTS {
        let Some(groups) = get(events, event) else {
            continue;
        };
        for (g, group) in items(groups).iter().enumerate() {
            let group = group.to_value();
            let handlers = group["hooks"].as_array().cloned().unwrap_or_default();
            for (h, handler) in handlers.iter().enumerate() {
                if !setup::runs(handler, "hook codex") {
                    continue;
                }
                let key = format!("{}:{label}:{g}:{h}", check.hook_file);
                let hash = hook_hash(event, label, &group, handler, check.windows);
                out.push(JudgedHook {
                    event: if (g, h) == (0, 0) {
                        event.to_string()
                    } else {
                        format!("{event} (group {}, hook {})", g + 1, h + 1)
                    },
                    trust: verdict(&states, &key, hash),
                });
            }
        }
    }
    Ok(out)
}

/// One `[hooks.state."<key>"]` entry of Codex's user config.
#[derive(Debug)]
struct HookState {
    enabled: Option<bool>,
    trusted_hash: Option<String>,
}

/// The `[hooks.state]` entries of Codex's user config.toml, by key, as its `/hooks` review writes
/// them (`[hooks.state."<key>"]` with `trusted_hash` and, once a hook is turned off or on,
/// `enabled`); any TOML form of the same table reads the same. An entry with a value of the wrong
/// type is `None` (Codex ignores it). An error: Codex would not load the file.
fn hook_states(config: &str) -> Result<Vec<(String, Option<HookState>)>, String> {
    let doc = toml_edit::Document::parse(config).map_err(|e| {
        // Counted in bytes: a span is not promised to fall on a character's start.
        let line = e.span().map_or(0, |s| {
            let before = &config.as_bytes()[..s.start.min(config.len())];
            before.iter().filter(|b| **b == b'\n').count() + 1
        });
        format!(
            "its config is not TOML Codex reads (line {line}: {})",
            e.message()
        )
    })?;
    let Some(hooks) = doc.get("hooks") else {
        return Ok(Vec::new());
    };
    let state = match hooks.as_table_like() {
        Some(t) => t.get("state"),
        None => return Err("its config's `hooks` is not a table".into()),
    };
    let Some(state) = state else {
        return Ok(Vec::new());
    };
    let state = state
        .as_table_like()
        .ok_or("its config's `hooks.state` is not a table")?;
    let read = |v: &toml_edit::Item| -> Option<HookState> {
        let t = v.as_table_like()?;
        Some(HookState {
            enabled: match t.get("enabled") {
                Some(i) => Some(i.as_bool()?),
                None => None,
            },
            trusted_hash: match t.get("trusted_hash") {
                Some(i) => Some(i.as_str()?.to_string()),
                None => None,
            },
        })
    };
    Ok(state
        .iter()
        .filter(|(k, _)| !k.trim().is_empty())
        .map(|(k, v)| (k.trim().to_string(), read(v)))
        .collect())
}

/// What Codex does with the hook keyed `key` whose hash now is `hash`.
fn verdict(
    states: &Result<Vec<(String, Option<HookState>)>, String>,
    key: &str,
    hash: Result<String, String>,
) -> HookTrust {
    let states = match states {
        Ok(s) => s,
        Err(why) => return HookTrust::Unknown(why.clone()),
    };
    let hash = match hash {
        Ok(h) => h,
        Err(why) => return HookTrust::Unknown(why),
    };
    // Codex reads the entries into a map: the last of a key wins.
    match states.iter().rev().find(|(k, _)| k == key) {
        Some((_, None)) => HookTrust::Unknown(format!(
            "its entry [hooks.state.\"{key}\"] is not one Codex reads (`enabled` must be true or false, `trusted_hash` a string)"
        )),
        Some((_, Some(s))) if s.enabled == Some(false) => HookTrust::Disabled,
        Some((_, Some(s))) => match &s.trusted_hash {
            Some(h) if *h == hash => HookTrust::Trusted,
            Some(_) => HookTrust::Changed,
            None => HookTrust::NotTrusted,
        },
        None => match states.iter().find(|(k, _)| same_place(k, key)) {
            Some((k, _)) => HookTrust::Unknown(format!(
                "[hooks.state] has an entry for it under a path spelled otherwise (\"{k}\"), and Codex looks it up as it spells the path, which Rail can only guess"
            )),
            None => HookTrust::NotTrusted,
        },
    }
}

/// The same key but for how the path is spelled (case, separators, a `\\?\` prefix).
fn same_place(a: &str, b: &str) -> bool {
    let norm = |k: &str| {
        let k = k.replace('\\', "/").to_lowercase();
        k.strip_prefix("//?/").map(str::to_string).unwrap_or(k)
    };
    norm(a) == norm(b)
}

/// The hash Codex 0.171.0 keeps for a command hook it trusts: `sha256:` and the hex SHA-256 of
/// the compact JSON, keys sorted, of the hook as Codex normalises it — its event's label, the
/// group's matcher (none for Stop), and this one handler: `type`, the command (on Windows its
/// `commandWindows` when it has one), the timeout filled in (600 s unless given, at least 1; a
/// session end's 1 s unless given, within 1..=3), `async`, `statusMessage` when set and
/// `additionalContextLimit` only for a tool event and only when not the default 2,500. Checked
/// against the real program: the hashes its `/hooks` review writes and its app-server's
/// `hooks/list` reports (docs/agents.md).
fn hook_hash(
    event: &str,
    label: &str,
    group: &Value,
    handler: &Value,
    windows: bool,
) -> Result<String, String> {
    // Codex hashes the TOML form of the hook, which holds no integer past i64.
    let toml_int = |n: u64| -> Result<String, String> {
        i64::try_from(n)
            .map(|n| n.to_string())
            .map_err(|_| format!("its {event} hook holds a number TOML cannot ({n})"))
    };
    let windows_command = windows
        .then(|| {
            handler
                .get("commandWindows")
                .or_else(|| handler.get("command_windows"))
                .and_then(Value::as_str)
        })
        .flatten();
    let command = windows_command
        .or_else(|| handler["command"].as_str())
        .unwrap_or_default();
    let timeout = handler["timeout"].as_u64();
    let timeout = if event == "SessionEnd" {
        timeout.unwrap_or(1).clamp(1, 3)
    } else {
        timeout.unwrap_or(600).max(1)
    };
    let mut hook = vec![
        ("type", json_text("command")),
        ("command", json_text(command)),
        ("timeout", toml_int(timeout)?),
        (
            "async",
            handler["async"].as_bool().unwrap_or(false).to_string(),
        ),
    ];
    if let Some(m) = handler["statusMessage"].as_str() {
        hook.push(("statusMessage", json_text(m)));
    }
    let limit = handler["additionalContextLimit"].as_u64();
    if let Some(l) = limit.filter(|l| *l != 2_500 && event.ends_with("ToolUse")) {
        hook.push(("additionalContextLimit", toml_int(l)?));
    }
    let mut identity = vec![
        ("event_name", json_text(label)),
        ("hooks", format!("[{}]", json_object(hook))),
    ];
    if let Some(m) = group["matcher"].as_str().filter(|_| event != "Stop") {
        identity.push(("matcher", json_text(m)));
    }
    let digest = Sha256::digest(json_object(identity).as_bytes());
    Ok(digest.iter().fold("sha256:".to_string(), |mut out, b| {
        out.push_str(&format!("{b:02x}"));
        out
    }))
}

/// A string as compact JSON writes it (serde_json's escapes, as Codex's).
fn json_text(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// A JSON object of values already written, its keys sorted as Codex sorts them (bytewise).
fn json_object(mut fields: Vec<(&str, String)>) -> String {
    crate::text::sort::sort_by(&mut fields, |a, b| a.0.cmp(b.0));
    let fields: Vec<String> = fields
        .iter()
        .map(|(k, v)| format!("{}:{v}", json_text(k)))
        .collect();
    format!("{{{}}}", fields.join(","))
}

/// Whether Codex 0.171.0 reads a hooks file at all, and the file's tree when it does. Codex
/// reads it with serde into its own types and skips the whole file on any error (a warning in
/// its logs only, every hook in it silent): a comment or trailing comma, a top-level key other
/// than `description` and `hooks`, a duplicate key, a handler of a type it does not know, a
/// field of the wrong type. Keys it does not know deeper in are ignored, as Codex ignores them.
fn codex_reads(text: &str) -> Result<JsonNode, String> {
    serde_json::from_str::<serde::de::IgnoredAny>(text)
        .map_err(|e| format!("not strict JSON: {e}"))?;
    let root = jsonc::parse(text)?;
    let JsonKind::Object(top) = &root.kind else {
        return Err("its top is not an object".into());
    };
    fields(top, &["description", "hooks"], true, "the top")?;
    typed(top, "description", Is::Str, "the top")?;
    let Some(hooks) = get(top, "hooks") else {
        return Ok(root);
    };
    let JsonKind::Object(events) = &hooks.kind else {
        return Err("`hooks` is not an object".into());
    };
    fields(events, &HOOK_EVENTS, false, "`hooks`")?;
    for m in events
        .iter()
        .filter(|m| HOOK_EVENTS.contains(&m.key.as_str()))
    {
        let JsonKind::Array(groups) = &m.value.kind else {
            return Err(format!("`{}` is not a list", m.key));
        };
        for group in groups {
            let JsonKind::Object(g) = &group.kind else {
                return Err(format!("a `{}` entry is not an object", m.key));
            };
            let at = format!("a `{}` entry", m.key);
            fields(g, &["matcher", "hooks"], false, &at)?;
            typed(g, "matcher", Is::Str, &at)?;
            match get(g, "hooks").map(|h| &h.kind) {
                None => {}
                Some(JsonKind::Array(handlers)) => {
                    for h in handlers {
                        handler_reads(h, &m.key)?;
                    }
                }
                Some(_) => return Err(format!("{at}'s `hooks` is not a list")),
            }
        }
    }
    Ok(root)
}

/// One handler as Codex's typed reading of it accepts it.
fn handler_reads(h: &JsonNode, event: &str) -> Result<(), String> {
    let at = format!("a `{event}` hook");
    let JsonKind::Object(h) = &h.kind else {
        return Err(format!("{at} is not an object"));
    };
    let ty = match get(h, "type").map(|t| &t.kind) {
        Some(JsonKind::Scalar(Value::String(t))) => t.as_str(),
        Some(_) => return Err(format!("{at}'s `type` is not a string")),
        None => return Err(format!("{at} has no `type`")),
    };
    match ty {
        "command" => {
            fields(
                h,
                &[
                    "type",
                    "command",
                    "commandWindows",
                    "timeout",
                    "async",
                    "statusMessage",
                    "additionalContextLimit",
                ],
                false,
                &at,
            )?;
            // `command_windows` is the other spelling of one field: both is a duplicate.
            if get(h, "commandWindows").is_some() && get(h, "command_windows").is_some() {
                return Err(format!("{at} has `commandWindows` twice"));
            }
            fields(h, &["command_windows"], false, &at)?;
            required(h, "command", &at)?;
            typed(h, "command", Is::Str, &at)?;
            typed(h, "commandWindows", Is::Str, &at)?;
            typed(h, "command_windows", Is::Str, &at)?;
            typed(h, "timeout", Is::U64, &at)?;
            typed(h, "async", Is::Bool, &at)?;
            typed(h, "statusMessage", Is::Str, &at)?;
            typed(h, "additionalContextLimit", Is::U64, &at)
        }
        "mcp_tool" => {
            let known = [
                "type",
                "server",
                "tool",
                "input",
                "timeout",
                "statusMessage",
            ];
            fields(h, &known, false, &at)?;
            required(h, "server", &at)?;
            required(h, "tool", &at)?;
            typed(h, "server", Is::Str, &at)?;
            typed(h, "tool", Is::Str, &at)?;
            typed(h, "input", Is::Object, &at)?;
            typed(h, "timeout", Is::U64, &at)?;
            typed(h, "statusMessage", Is::Str, &at)
        }
        "prompt" | "agent" => Ok(()),
        other => Err(format!(
            "{at} has `type` \"{other}\", which Codex does not know"
        )),
    }
}

/// What a field of Codex's types holds. `Str` and `U64` are optional (null reads as unset);
/// `Bool` and `Object` are not (null is an error).
#[derive(Clone, Copy)]
enum Is {
    Str,
    U64,
    Bool,
    Object,
}

fn typed(m: &[Member], key: &str, want: Is, at: &str) -> Result<(), String> {
    let Some(v) = get(m, key) else {
        return Ok(());
    };
    let ok = match (&v.kind, want) {
        (JsonKind::Scalar(Value::Null), Is::Str | Is::U64) => true,
        (JsonKind::Scalar(Value::String(_)), Is::Str) => true,
        (JsonKind::Scalar(Value::Number(n)), Is::U64) => n.is_u64(),
        (JsonKind::Scalar(Value::Bool(_)), Is::Bool) => true,
        (JsonKind::Object(_), Is::Object) => true,
        _ => false,
    };
    if ok {
        return Ok(());
    }
    let what = match want {
        Is::Str => "a string",
        Is::U64 => "a whole number of zero or more",
        Is::Bool => "true or false",
        Is::Object => "an object",
    };
    Err(format!("{at}'s `{key}` is not {what}"))
}

fn required(m: &[Member], key: &str, at: &str) -> Result<(), String> {
    match get(m, key) {
        Some(_) => Ok(()),
        None => Err(format!("{at} has no `{key}`")),
    }
}

/// No key of `known` twice; with `deny_others`, no other key at all.
fn fields(m: &[Member], known: &[&str], deny_others: bool, at: &str) -> Result<(), String> {
    for (i, member) in m.iter().enumerate() {
        let key = member.key.as_str();
        if !known.contains(&key) {
            if deny_others {
                return Err(format!(
                    "{at} has `{key}`, which Codex does not allow there"
                ));
            }
            continue;
        }
        if m[..i].iter().any(|o| o.key == key) {
            return Err(format!("{at} has `{key}` twice"));
        }
    }
    Ok(())
}

fn get<'a>(m: &'a [Member], key: &str) -> Option<&'a JsonNode> {
    m.iter().find(|x| x.key == key).map(|x| &x.value)
}

fn object(n: &JsonNode) -> &[Member] {
    match &n.kind {
        JsonKind::Object(m) => m,
        _ => &[],
    }
}

fn items(n: &JsonNode) -> &[JsonNode] {
    match &n.kind {
        JsonKind::Array(a) => a,
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `.codex/hooks.json` as `rail init --agents --agent codex` writes it.
    const RAIL_HOOKS: &str = r#"{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash|apply_patch|mcp__.*",
        "hooks": [
          {
            "type": "command",
            "command": "rail hook codex",
            "timeout": 10,
            "statusMessage": "rail: checking claims"
          }
        ]
      }
    ],
    "PostToolUse": [
      {
        "matcher": "Bash|apply_patch|mcp__.*",
        "hooks": [{ "type": "command", "command": "rail hook codex", "timeout": 10 }]
      }
    ],
    "Stop": [{ "hooks": [{ "type": "command", "command": "rail hook codex", "timeout": 10 }] }],
    "SessionEnd": [{ "hooks": [{ "type": "command", "command": "rail hook codex", "timeout": 3 }] }]
  }
}
"#;

    const PATH: &str = "/w/app/.codex/hooks.json";

    /// Codex 0.171.0's config.toml after "t" in /hooks on each of Rail's hooks: as its review
    /// wrote it (the empty `[hooks.state]` table included), with the hashes it computed.
    const TRUSTED: &str = r#"model = "gpt-5.5"
[projects."/w/app"]
trust_level = "trusted"

[hooks.state]

[hooks.state."/w/app/.codex/hooks.json:pre_tool_use:0:0"]
trusted_hash = "sha256:be31a50ae9f15ec9cee04b41d5d4e9e9ae906e22cc9ca250e7c27460ecc1752a"

[hooks.state."/w/app/.codex/hooks.json:post_tool_use:0:0"]
trusted_hash = "sha256:873cf9fee89b77784e34aee8ddfd377b46403262c45d623f271444b050c76f08"

[hooks.state."/w/app/.codex/hooks.json:session_end:0:0"]
trusted_hash = "sha256:654353f8ebfff9e5f68f4aceeb7002978756050827a84e535119359c4ad1b790"

[hooks.state."/w/app/.codex/hooks.json:stop:0:0"]
trusted_hash = "sha256:a319d7b856aa005877ab1356f7f0f624644941fe571aeb8bab1f4a9b2e695bab"
"#;

    fn judge(config: &str, hooks: &str) -> Result<Vec<(String, HookTrust)>, String> {
        hooks_trusted(&HookCheck {
            trust_file: Ok(config),
            hook_file: PATH,
            hooks,
            windows: false,
        })
        .map(|v| v.into_iter().map(|h| (h.event, h.trust)).collect())
    }

    fn all(trust: HookTrust) -> Vec<(String, HookTrust)> {
        ["PreToolUse", "PostToolUse", "Stop", "SessionEnd"]
            .map(|e| (e.to_string(), trust.clone()))
            .to_vec()
    }

    #[test]
    fn rails_hooks_hash_as_codex_hashes_them() {
        // Each expected hash is what Codex 0.171.0 itself wrote or reported for that hook.
        let hash = |event: &str, label: &str, group: &str, handler: &str| {
            let group: Value = serde_json::from_str(group).unwrap();
            let handler: Value = serde_json::from_str(handler).unwrap();
            hook_hash(event, label, &group, &handler, false).unwrap()
        };
        let tools = r#"{"matcher": "Bash|apply_patch|mcp__.*"}"#;
        // Normalised as Codex does: a session end's timeout clamped to 3 s (or 1 s unset), a
        // Stop's matcher dropped, the default context limit and the Windows command dropped, a
        // timeout of 0 read as 1 s, unknown keys left out; escapes and non-ASCII as serde_json
        // writes them.
        let seen = [
            (
                "PreToolUse",
                "pre_tool_use",
                tools,
                r#"{"type": "command", "command": "rail hook codex", "timeout": 10, "statusMessage": "rail: checking claims"}"#,
                "be31a50ae9f15ec9cee04b41d5d4e9e9ae906e22cc9ca250e7c27460ecc1752a",
            ),
            (
                "SessionEnd",
                "session_end",
                "{}",
                r#"{"type": "command", "command": "rail hook codex", "timeout": 10}"#,
                "654353f8ebfff9e5f68f4aceeb7002978756050827a84e535119359c4ad1b790",
            ),
            (
                "SessionEnd",
                "session_end",
                "{}",
                r#"{"type": "command", "command": "rail hook codex --event SessionEnd"}"#,
                "02922ddf559261bcb9b2c341fc51da0ca87841d208625fbd7a04aafe034ca17d",
            ),
            (
                "SessionEnd",
                "session_end",
                r#"{"matcher": "q"}"#,
                r#"{"type": "command", "command": "rail hook codex", "timeout": 3}"#,
                "6ee3ebe0e63d1f4620cee0dd4ff290186d8d27766782e5e14c4ee66f8ccff94f",
            ),
            (
                "Stop",
                "stop",
                r#"{"matcher": "x"}"#,
                r#"{"type": "command", "command": "rail hook codex", "unknownKey": 5}"#,
                "7ae43f61846ebd67b3c6288827cc54ec81b313a8c8d742a568e0e1a07dc80300",
            ),
            (
                "PostToolUse",
                "post_tool_use",
                r#"{"matcher": ""}"#,
                r#"{"type": "command", "command": "rail hook codex", "additionalContextLimit": 2500, "statusMessage": null}"#,
                "b53d57e03ef06dcab1e77f37822647f7db4ed4a97d656ee290137e5a975de19d",
            ),
            (
                "PreToolUse",
                "pre_tool_use",
                "{}",
                r#"{"type": "command", "command": "rail hook codex", "command_windows": "w", "additionalContextLimit": 2500}"#,
                "ae97b9d2ca8dedc99306b656e290be6ec94390a67d8e9bd0048ba3c61905c318",
            ),
            (
                "PreToolUse",
                "pre_tool_use",
                r#"{"matcher": "*"}"#,
                r#"{"type": "command", "command": "/opt/r a/rail hook codex", "commandWindows": "rail.exe hook codex", "additionalContextLimit": 100, "async": true, "statusMessage": "ü \"q\" \t é / \u0001 <&>", "timeout": 0}"#,
                "c1661a0412d4d62977a3dd8ab4e0ed44998197abb869aa5052a2070b7052767b",
            ),
        ];
        for (event, label, group, handler, expected) in seen {
            assert_eq!(
                hash(event, label, group, handler),
                format!("sha256:{expected}"),
                "{handler}"
            );
        }
        // On Windows the Windows command is the one hashed.
        let group: Value = serde_json::from_str("{}").unwrap();
        let both: Value = serde_json::from_str(
            r#"{"command": "a hook codex", "commandWindows": "b hook codex"}"#,
        )
        .unwrap();
        let windows_only: Value = serde_json::from_str(r#"{"command": "b hook codex"}"#).unwrap();
        assert_eq!(
            hook_hash("Stop", "stop", &group, &both, true),
            hook_hash("Stop", "stop", &group, &windows_only, false)
        );
        assert!(hook_hash(
            "Stop",
            "stop",
            &group,
            &serde_json::json!({"command": "x", "timeout": u64::MAX}),
            false
        )
        .is_err());
    }

    #[test]
    fn hook_trust_is_read_from_the_state_codex_writes() {
        assert_eq!(judge(TRUSTED, RAIL_HOOKS), Ok(all(HookTrust::Trusted)));
        // No state at all, no config file, or the state of another checkout: new to Codex.
        assert_eq!(
            judge("model = \"x\"\n", RAIL_HOOKS),
            Ok(all(HookTrust::NotTrusted))
        );
        assert_eq!(judge("", RAIL_HOOKS), Ok(all(HookTrust::NotTrusted)));
        assert_eq!(
            judge(&TRUSTED.replace("/w/app/", "/w/other/"), RAIL_HOOKS),
            Ok(all(HookTrust::NotTrusted))
        );
        // One hook changed since it was trusted: Codex shows it "modified" and skips it.
        let changed = judge(
            TRUSTED,
            &RAIL_HOOKS.replacen("\"timeout\": 10", "\"timeout\": 11", 1),
        )
        .unwrap();
        assert_eq!(changed[0], ("PreToolUse".into(), HookTrust::Changed));
        assert_eq!(changed[1..], all(HookTrust::Trusted)[1..]);
        // Turned off in /hooks (space): `enabled = false` beside the hash; turned on again: true.
        let off = TRUSTED.replacen("c1752a\"\n", "c1752a\"\nenabled = false\n", 1);
        assert_eq!(judge(&off, RAIL_HOOKS).unwrap()[0].1, HookTrust::Disabled);
        let on = off.replace("enabled = false", "enabled = true");
        assert_eq!(judge(&on, RAIL_HOOKS), Ok(all(HookTrust::Trusted)));
        // Only Rail's own hooks are judged, at their positions in the file.
        let mixed = r#"{"hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo other"}]},
            {"hooks": [{"type": "command", "command": "lint"}, {"type": "command", "command": "'/opt/r a/rail' hook codex"}]}]}}"#;
        let state =
            "[hooks.state.\"/w/app/.codex/hooks.json:pre_tool_use:1:1\"]\nenabled = false\n";
        assert_eq!(
            judge(state, mixed),
            Ok(vec![(
                "PreToolUse (group 2, hook 2)".into(),
                HookTrust::Disabled
            )])
        );
    }

    #[test]
    fn any_toml_form_of_the_state_reads_the_same_and_odd_ones_are_unknown() {
        let key = "/w/app/.codex/hooks.json:stop:0:0";
        let hash = "sha256:a319d7b856aa005877ab1356f7f0f624644941fe571aeb8bab1f4a9b2e695bab";
        let stop = r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "rail hook codex", "timeout": 10}]}]}}"#;
        let one = |config: &str| judge(config, stop).map(|v| v[0].1.clone());
        for form in [
            format!("[hooks.state.'{key}']\ntrusted_hash = '{hash}'\n"),
            format!("[hooks]\nstate.\"{key}\".trusted_hash = \"{hash}\"\n"),
            format!("hooks.state.\"{key}\" = {{ trusted_hash = \"{hash}\" }}\n"),
            format!("hooks = {{ state = {{ \"{key}\" = {{ trusted_hash = \"{hash}\", extra = 1 }} }} }}\n"),
            format!("[hooks.state.\" {key} \"]\ntrusted_hash = \"{hash}\" # trusted\n"),
        ] {
            assert_eq!(one(&form), Ok(HookTrust::Trusted), "{form}");
        }
        // Not what Codex reads: never "trusted".
        let unknown = |config: &str| matches!(one(config), Ok(HookTrust::Unknown(_)));
        assert!(unknown(&format!(
            "[hooks.state.\"{key}\"]\ntrusted_hash = 7\n"
        )));
        assert!(unknown(&format!(
            "[hooks.state.\"{key}\"]\ntrusted_hash = \"{hash}\"\nenabled = \"yes\"\n"
        )));
        assert!(unknown(&format!(
            "[hooks.state.\"{key}\"]\ntrusted_hash = \"{hash}\"\n[hooks.state.\"{key}\"]\n"
        )));
        assert!(unknown("hooks = 3\n"));
        assert!(unknown("[hooks]\nstate = [1]\n"));
        assert!(unknown("[hooks.state\nx = 1\n"));
        assert!(unknown(&format!(
            "[hooks.state.\"{}\"]\ntrusted_hash = \"{hash}\"\n",
            key.to_uppercase()
        )));
        assert!(matches!(
            hooks_trusted(&HookCheck { trust_file: Err("config.toml is not UTF-8"), hook_file: PATH, hooks: stop, windows: false }).unwrap()[0].trust,
            HookTrust::Unknown(ref why) if why.contains("UTF-8")
        ));
        // Hostile: deep nesting is an error (toml_edit's recursion limit), not a crash; a
        // large state is read.
        assert!(unknown(&format!(
            "x = {}{}\n",
            "[".repeat(100_000),
            "]".repeat(100_000)
        )));
        let mut big: String = (0..50_000)
            .map(|i| format!("[hooks.state.\"/o/{i}:stop:0:0\"]\ntrusted_hash = \"h\"\n"))
            .collect();
        big.push_str(&format!(
            "[hooks.state.\"{key}\"]\ntrusted_hash = \"{hash}\"\n"
        ));
        assert_eq!(one(&big), Ok(HookTrust::Trusted));
    }

    #[test]
    fn a_hooks_file_codex_refuses_runs_none_of_its_hooks() {
        let rail = r#"{"type": "command", "command": "rail hook codex", "timeout": 10}"#;
        let with = |s: &str| s.replace("RAIL", rail);
        // Each refused by Codex 0.171.0 ("failed to parse hooks config"; seen with hooks/list).
        for bad in [
            with(r#"{"$schema": "x", "hooks": {"Stop": [{"hooks": [RAIL]}]}}"#),
            with(r#"{"hooks": {// note
                "Stop": [{"hooks": [RAIL]}]}}"#),
            with(r#"{"hooks": {"Stop": [{"hooks": [RAIL]}],}}"#),
            with(r#"{"hooks": {"Stop": [{"hooks": [RAIL]}], "Stop": []}}"#),
            with(r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "foo"}]}], "Stop": [{"hooks": [RAIL]}]}}"#),
            with(r#"{"hooks": {"PreToolUse": [{"hooks": [{"command": "x"}]}], "Stop": [{"hooks": [RAIL]}]}}"#),
            with(r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "timeout": "10"}]}], "Stop": [{"hooks": [RAIL]}]}}"#),
            r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "rail hook codex", "async": null}]}]}}"#.to_string(),
            r#"{"hooks": null}"#.to_string(),
            r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "rail hook codex", "commandWindows": "a", "command_windows": "b"}]}]}}"#.to_string(),
            format!("{}1{}", "[".repeat(200), "]".repeat(200)),
            "[]".to_string(),
        ] {
            assert!(judge(TRUSTED, &bad).is_err(), "{bad}");
        }
        // Read by Codex: keys it does not know below the top are ignored.
        for good in [
            with(
                r#"{"description": "d", "hooks": {"Foo": [], "Stop": [{"if": "x", "hooks": [RAIL]}]}}"#,
            ),
            with(
                r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "rail hook codex", "timeout": 10, "zzz": [1]}]}]}}"#,
            ),
            with(
                r#"{"hooks": {"PreToolUse": [{"matcher": null, "hooks": [{"type": "mcp_tool", "server": "s", "tool": "t", "input": {}}, {"type": "prompt"}]}], "Stop": [{"hooks": [RAIL]}]}}"#,
            ),
        ] {
            assert_eq!(judge(TRUSTED, &good).map(|v| v.len()), Ok(1), "{good}");
        }
    }
}
