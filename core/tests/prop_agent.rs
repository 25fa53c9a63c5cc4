//! Agents' hook payloads, `apply_patch` bodies and JSON settings files under generated input:
//! any text is read without a panic; a settings file Rail edits keeps every byte it had, gets
//! the value asked for, and a second edit changes nothing.

use proptest::prelude::*;
use rail_core::agent::patch;
use rail_core::agent::{self, AGENTS};
use rail_core::formats::jsonc::{self, Change};
use serde_json::{json, Value};

/// Is `small` a subsequence of `big` (every byte kept, in order)?
fn kept(small: &str, big: &str) -> bool {
    let mut rest = big.bytes();
    small.bytes().all(|b| rest.any(|c| c == b))
}

fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("{".to_string()),
        Just("}".to_string()),
        Just("[".to_string()),
        Just("]".to_string()),
        Just(",".to_string()),
        Just(":".to_string()),
        Just("\"hooks\"".to_string()),
        Just("\"a\\\"b\"".to_string()),
        Just("// c\n".to_string()),
        Just("/* c */".to_string()),
        Just("\r\n".to_string()),
        Just("\n  ".to_string()),
        Just("\t".to_string()),
        Just("1e3".to_string()),
        Just("null".to_string()),
        Just("*** Begin Patch\n".to_string()),
        Just("*** Update File: a\n".to_string()),
        Just("*** End Patch".to_string()),
        "[ -~]{0,6}",
        "\\PC{0,3}",
    ]
}

/// Settings files as people write them: objects with comments, trailing commas, odd spacing.
fn settings() -> impl Strategy<Value = String> {
    let member = (
        "[a-z]{1,6}",
        prop_oneof![
            Just("1".to_string()),
            Just("\"x\"".to_string()),
            Just("[]".to_string()),
            Just("[1, 2,]".to_string()),
            Just("{}".to_string()),
            Just("{ \"k\": true }".to_string()),
            Just("{\"hooks\": {\"Stop\": []}}".to_string()),
        ],
        prop_oneof![
            Just("".to_string()),
            Just(" // note".to_string()),
            Just(" /* b */".to_string())
        ],
    );
    (
        prop::collection::vec(member, 0..5),
        prop_oneof![Just("\n"), Just("\r\n")],
        prop_oneof![Just("  "), Just("\t"), Just("    ")],
        any::<bool>(),
    )
        .prop_map(|(members, nl, ind, trailing)| {
            let mut seen = std::collections::HashSet::new();
            let lines: Vec<String> = members
                .into_iter()
                .filter(|(k, _, _)| seen.insert(k.clone()))
                .map(|(k, v, c)| format!("{ind}\"{k}\": {v}{c}"))
                .collect();
            let mut body = String::new();
            for (i, l) in lines.iter().enumerate() {
                // A comment ends its line: the comma goes before it.
                let (value, comment) = match l.find(" //").or_else(|| l.find(" /*")) {
                    Some(at) => (&l[..at], &l[at..]),
                    None => (l.as_str(), ""),
                };
                let comma = if i + 1 < lines.len() || trailing {
                    ","
                } else {
                    ""
                };
                body.push_str(&format!("{value}{comma}{comment}{nl}"));
            }
            format!("// settings{nl}{{{nl}{body}}}{nl}")
        })
}

fn is_ours(v: &Value) -> bool {
    v["command"] == "rail hook x"
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn any_text_is_read_without_a_panic(parts in prop::collection::vec(fragment(), 0..30)) {
        let text: String = parts.concat();
        let _ = jsonc::parse(&text);
        let _ = patch::paths(&text);
        let _ = patch::embedded(&text);
        // Every agent with a hook command of its own.
        for a in AGENTS.iter().copied().filter(|a| a.hook_help().is_some()) {
            let _ = agent::read_call(a, &text, None, &|_| None);
            let wrapped = json!({"hook_event_name": "PreToolUse", "tool_name": "apply_patch",
                                 "tool_input": {"command": text}}).to_string();
            let _ = agent::read_call(a, &wrapped, None, &|_| None);
        }
        // Copilot's arguments are JSON text inside the JSON: any text, for each kind of tool.
        for tool in ["bash", "apply_patch", "edit", "srv-write_file", "view"] {
            let copilot = json!({"cwd": "/w", "toolName": tool, "toolArgs": text}).to_string();
            let _ = agent::read_call(agent::copilot::AGENT, &copilot, Some("preToolUse"), &|_| None);
        }
        if let (Ok(node), Ok(v)) = (jsonc::parse(&text), serde_json::from_str::<Value>(&text)) {
            prop_assert_eq!(node.to_value(), v);
        }
    }

    #[test]
    fn edits_keep_every_byte_and_are_idempotent(text in settings(), key in "[a-z]{1,6}") {
        let changes = [
            Change::Set { path: vec!["mcpServers".into(), "rail".into()], value: json!({"command": "rail"}) },
            Change::Upsert { path: vec!["hooks".into(), key.clone()], ours: is_ours,
                             value: json!({"command": "rail hook x"}) },
        ];
        match jsonc::apply(&text, &changes) {
            Ok(once) => {
                let v = jsonc::parse(&once).unwrap().to_value();
                prop_assert_eq!(&v["mcpServers"]["rail"]["command"], "rail");
                prop_assert!(v["hooks"][&key].as_array().unwrap().iter().any(is_ours));
                prop_assert_eq!(jsonc::apply(&once, &changes).unwrap(), once.clone());
                // A value Rail replaced aside, nothing that was there is gone.
                if jsonc::parse(&text).unwrap().to_value().get("mcpServers").is_none()
                    && jsonc::parse(&text).unwrap().to_value().get("hooks").is_none() {
                    prop_assert!(kept(&text, &once), "{:?} -> {:?}", text, once);
                }
                if text.contains("\r\n") {
                    prop_assert!(!once.replace("\r\n", "").contains('\n'), "{:?}", once);
                }
            }
            // Only a file where Rail's place holds something else is refused.
            Err(e) => prop_assert!(e.contains("is not"), "{}: {:?}", e, text),
        }
    }
}
