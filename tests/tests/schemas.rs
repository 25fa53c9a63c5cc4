//! The JSON Schemas for editors (schemas/*.schema.json) name exactly the keys and the values core
//! reads: a key core learns, or an `on_stop` it gains, fails here until the schema has it too.
//! Whether the schemas accept the same values as core is checked over the fixture corpus and
//! value by value in schemas/test/schemas.test.mjs (against core's wasm build).

#![allow(
    clippy::disallowed_methods,
    reason = "native only: the wasm size lints of clippy.toml bind core and wasm"
)]

use std::path::Path;

use rail_core::formats::claim_file;
use rail_core::formats::config::{self, HookFailure, HookUnanalysed, OnDone, OnStop};

fn schema(name: &str) -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../schemas")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"))
}

fn keys(schema: &serde_json::Value) -> Vec<String> {
    let mut keys: Vec<String> = schema["properties"]
        .as_object()
        .expect("properties")
        .keys()
        .cloned()
        .collect();
    keys.sort();
    keys
}

fn sorted(keys: &[&str]) -> Vec<String> {
    let mut keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
    keys.sort();
    keys
}

#[test]
fn claim_file_schema_has_core_s_keys() {
    let schema = schema("claim-file.schema.json");
    assert_eq!(keys(&schema), sorted(claim_file::KNOWN_KEYS));
    assert_eq!(schema["required"], serde_json::json!(["owner"]));
    assert_eq!(schema["additionalProperties"], false);
}

#[test]
fn rail_yaml_schema_has_core_s_settings_and_values() {
    let schema = schema("rail.schema.json");
    assert_eq!(keys(&schema), sorted(config::KNOWN_KEYS));
    let values = |key: &str| -> Vec<serde_json::Value> {
        schema["properties"][key]["enum"]
            .as_array()
            .unwrap_or_else(|| panic!("{key} has an enum"))
            .iter()
            .filter(|v| !v.is_null())
            .cloned()
            .collect()
    };
    // Every variant, spelled as core spells it (its serde names). The matches make a new
    // variant a compile error here, so it cannot be missed.
    let _ = |v: OnStop| match v {
        OnStop::Release | OnStop::Renew | OnStop::Nothing => (),
    };
    let _ = |v: HookFailure| match v {
        HookFailure::Deny | HookFailure::Warn => (),
    };
    let on_stop =
        [OnStop::Release, OnStop::Renew, OnStop::Nothing].map(|v| serde_json::to_value(v).unwrap());
    assert_eq!(values("on_stop"), on_stop);
    let hook_failure =
        [HookFailure::Deny, HookFailure::Warn].map(|v| serde_json::to_value(v).unwrap());
    assert_eq!(values("hook_failure"), hook_failure);
    let _ = |v: HookUnanalysed| match v {
        HookUnanalysed::Warn | HookUnanalysed::Deny => (),
    };
    let hook_unanalysed =
        [HookUnanalysed::Warn, HookUnanalysed::Deny].map(|v| serde_json::to_value(v).unwrap());
    assert_eq!(values("hook_unanalysed"), hook_unanalysed);
    // And each is what config::parse reads.
    for (key, list) in [
        ("on_stop", &on_stop[..]),
        ("hook_failure", &hook_failure[..]),
        ("hook_unanalysed", &hook_unanalysed[..]),
    ] {
        for v in list {
            let (_, diags) = config::parse(&format!("{key}: {}\n", v.as_str().unwrap()));
            assert!(diags.is_empty(), "{key}: {v}: {diags:?}");
        }
    }
    // `stations:`, a mapping of its own: the same keys and values as core.
    let stations = &schema["properties"]["stations"];
    assert_eq!(stations["additionalProperties"], false);
    let mut station_keys: Vec<String> = stations["properties"]
        .as_object()
        .expect("stations.properties")
        .keys()
        .cloned()
        .collect();
    station_keys.sort();
    assert_eq!(station_keys, sorted(config::STATION_KEYS));
    let _ = |v: OnDone| match v {
        OnDone::Keep | OnDone::Remove => (),
    };
    let on_done = [OnDone::Keep, OnDone::Remove].map(|v| serde_json::to_value(v).unwrap());
    let listed: Vec<serde_json::Value> = stations["properties"]["on_done"]["enum"]
        .as_array()
        .expect("stations.on_done has an enum")
        .iter()
        .filter(|v| !v.is_null())
        .cloned()
        .collect();
    assert_eq!(listed, on_done);
    for v in &on_done {
        let text = format!("stations:\n  on_done: {}\n", v.as_str().unwrap());
        let (_, diags) = config::parse(&text);
        assert!(diags.is_empty(), "{text}: {diags:?}");
    }
}
