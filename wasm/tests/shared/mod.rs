//! The facade's tests, run in Node (`tests/node.rs`) and in headless Chromium
//! (`tests/browser.rs`). They call the exports as JavaScript would: with `JsValue`s built from
//! JSON or from raw UTF-16, and read the results back as JSON.

use js_sys::JsString;
use serde_json::{json, Value};
use wasm_bindgen::{JsCast, JsError, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

use rail_core::model::input::{Facts, RailTexts};

mod fuzz;

const NOW: &str = "2026-10-22T15:00:00Z";

const CLAIMS: &str = "# Claims\n\nauth-refresh | session-a | 2026-10-22T14:05Z | paths: src/auth/**, docs/auth.md | resources: port:3000\nbilling | session-b | 2026-10-22T12:00Z | paths: src/billing/** | purpose: fix **totals**\n";

/// A JSON value as JavaScript would pass it (plain objects, arrays, numbers, strings).
pub fn js(value: &Value) -> JsValue {
    use serde::Serialize;
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .unwrap()
}

/// A JS string made of exactly these UTF-16 code units (lone surrogates included).
pub fn utf16(units: &[u16]) -> JsValue {
    // `String.fromCharCode` takes its units as arguments: a few thousand at a time.
    units
        .chunks(4096)
        .fold(JsString::from(""), |s, chunk| {
            s.concat(&JsString::from_char_code(chunk))
        })
        .into()
}

/// A JS string with a lone high surrogate spliced in at every `~`.
fn with_lone_surrogates(text: &str) -> JsValue {
    let units: Vec<u16> = text
        .encode_utf16()
        .map(|u| if u == u16::from(b'~') { 0xD83D } else { u })
        .collect();
    utf16(&units)
}

/// What an export returned, as JSON (the way `JSON.stringify` would see it).
pub fn json_of(value: JsValue) -> Value {
    serde_wasm_bindgen::from_value(value).unwrap()
}

pub fn ok(result: Result<JsValue, JsError>) -> Value {
    match result {
        Ok(v) => json_of(v),
        Err(e) => panic!("unexpected error: {}", message(e)),
    }
}

/// The message of a thrown error; fails unless it is a real JS `Error`.
pub fn message(error: JsError) -> String {
    let value: JsValue = error.into();
    let error = value
        .dyn_into::<js_sys::Error>()
        .expect("exports throw JS Error objects");
    error.message().into()
}

fn err(result: Result<JsValue, JsError>) -> String {
    match result {
        Ok(v) => panic!("expected an error, got {:?}", json_of(v)),
        Err(e) => message(e),
    }
}

fn texts_json(claims: &str) -> Value {
    json!({ "claims": { "path": "claims.md", "text": claims } })
}

fn facts_json() -> Value {
    json!({ "now": NOW })
}

fn native_texts(value: &Value) -> RailTexts {
    serde_json::from_value(value.clone()).unwrap()
}

fn native_facts(value: &Value) -> Facts {
    serde_json::from_value(value.clone()).unwrap()
}

#[wasm_bindgen_test]
fn board_matches_serde_json_of_core() {
    let texts = texts_json(CLAIMS);
    let facts = json!({
        "now": NOW,
        "commits": { "session-a": "2026-10-22T14:50:00Z" },
        "worktrees": [{ "path": "/work/app-billing", "branch": "session-b" }],
    });
    let got = ok(rail_wasm::board(js(&texts), js(&facts)));
    let want = serde_json::to_value(rail_core::model::board::build(
        &native_texts(&texts),
        &native_facts(&facts),
    ))
    .unwrap();
    assert_eq!(got, want);
    assert_eq!(got["claims"][0]["task"], "auth-refresh");
    assert_eq!(got["claims"][0]["last_commit_at"], "2026-10-22T14:50:00Z");
    assert_eq!(got["claims"][1]["state"], "stale");
    assert_eq!(
        got["claims"][1]["purpose_html"],
        "<p>fix <strong>totals</strong></p>"
    );
    // Absent values are `null`, never `undefined`: the result survives JSON.stringify whole.
    assert!(got["claims"][0]["pid"].is_null());
}

#[wasm_bindgen_test]
fn pushed_commits_keep_a_lease_as_local_ones_do() {
    // billing (session-b, claimed 12:00) is stale at 15:00 without a commit since 12:50.
    let board = |facts: Value| ok(rail_wasm::board(js(&texts_json(CLAIMS)), js(&facts)));
    let stale = board(json!({ "now": NOW, "commits": { "session-b": "2026-10-22T12:10:00Z" } }));
    assert_eq!(stale["claims"][1]["state"], "stale");
    let pushed = board(json!({
        "now": NOW,
        "commits": { "session-b": "2026-10-22T12:10:00Z" },
        "pushed_commits": { "session-b": "2026-10-22T14:50:00Z" },
    }));
    assert_eq!(pushed["claims"][1]["state"], "live");
    assert_eq!(
        pushed["claims"][1]["last_commit_at"],
        "2026-10-22T14:50:00Z"
    );
    // The later of the two counts, whichever side it is on.
    let local = board(json!({
        "now": NOW,
        "commits": { "session-b": "2026-10-22T14:55:00Z" },
        "pushed_commits": { "session-b": "2026-10-22T14:50:00Z" },
    }));
    assert_eq!(local["claims"][1]["last_commit_at"], "2026-10-22T14:55:00Z");
    let m = err(rail_wasm::board(
        js(&texts_json(CLAIMS)),
        js(&json!({ "now": NOW, "pushed_commits": { "b": "soon" } })),
    ));
    assert!(m.starts_with("rail: facts:"), "{m}");
}

#[wasm_bindgen_test]
fn board_of_an_empty_rail() {
    let got = ok(rail_wasm::board(js(&json!({})), js(&facts_json())));
    assert_eq!(got["summary"]["claims"], 0);
    assert_eq!(got["now"], NOW);
}

#[wasm_bindgen_test]
fn validate_reports_every_file() {
    let texts = json!({
        "claims": { "path": "claims.md", "text": "auth | session-a | yesterday\n" },
        "claim_files": [{ "path": "claims/session-b.yaml", "text": "owner: [\n" }],
    });
    let got = ok(rail_wasm::validate(js(&texts)));
    let files: Vec<&str> = got
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["file"].as_str().unwrap())
        .collect();
    assert!(files.contains(&"claims.md"), "{got}");
    assert!(files.contains(&"claims/session-b.yaml"), "{got}");
}

/// The start column of the first diagnostic on "nope" must be the JS string index of "nope".
fn check_diagnostic_column(text: JsValue) {
    let js_text: JsString = text.clone().unchecked_into();
    let expected = js_text.index_of("nope", 0);
    assert!(expected > 0);
    let line_start = js_text.last_index_of("\n", expected) + 1;
    let texts = js_sys::Object::new();
    let claims = js_sys::Object::new();
    js_sys::Reflect::set(&claims, &"path".into(), &"claims.md".into()).unwrap();
    js_sys::Reflect::set(&claims, &"text".into(), &text).unwrap();
    js_sys::Reflect::set(&texts, &"claims".into(), &claims).unwrap();
    let got = ok(rail_wasm::validate(texts.into()));
    let d = got
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "bad-time")
        .unwrap_or_else(|| panic!("no bad-time diagnostic in {got}"));
    assert_eq!(d["range"]["start"]["line"], 1, "{d}");
    assert_eq!(
        d["range"]["start"]["character"],
        expected - line_start,
        "{d}"
    );
    assert_eq!(
        d["range"]["end"]["character"],
        expected - line_start + 4,
        "{d}"
    );
}

#[wasm_bindgen_test]
fn diagnostic_ranges_count_utf16_units() {
    // ç is 1 unit (2 bytes), 😀 is 2 units (4 bytes).
    check_diagnostic_column("# ç\nçç😀 | session-a | nope\n".into());
    // A lone surrogate becomes U+FFFD in Rust: still one unit, so columns stay true.
    check_diagnostic_column(with_lone_surrogates("# ~\nç~😀~ | session-a | nope\n"));
}

#[wasm_bindgen_test]
fn positions_are_utf16() {
    let text = "ab\nç😀x\r\nend";
    let x = text.find('x').unwrap();
    let p = ok(rail_wasm::position_at(text.into(), JsValue::from(x as u32)));
    assert_eq!(p, json!({ "line": 1, "character": 3 }));
    let back = ok(rail_wasm::offset_at(text.into(), js(&p)));
    assert_eq!(back, json!(x));
    // Inside the emoji (byte offset) clamps back to its start; half a surrogate pair too.
    let emoji = text.find('😀').unwrap();
    let inside = ok(rail_wasm::position_at(
        text.into(),
        JsValue::from(emoji as u32 + 2),
    ));
    assert_eq!(inside, json!({ "line": 1, "character": 1 }));
    let half = ok(rail_wasm::offset_at(
        text.into(),
        js(&json!({ "line": 1, "character": 2 })),
    ));
    assert_eq!(half, json!(emoji));
    let range = ok(rail_wasm::range_of(
        text.into(),
        js(&json!({ "start": emoji, "end": x + 1 })),
    ));
    assert_eq!(
        range,
        json!({ "start": { "line": 1, "character": 1 }, "end": { "line": 1, "character": 4 } })
    );
    // Past the end clamps to the end.
    let end = ok(rail_wasm::position_at(text.into(), JsValue::from(9999)));
    assert_eq!(end, json!({ "line": 2, "character": 3 }));
}

#[wasm_bindgen_test]
fn positions_after_lone_surrogates_match_js_indexes() {
    // "a<lone>b": in Rust "a\u{FFFD}b", b at byte 4; in JS, b at index 2.
    let text = utf16(&[0x61, 0xD800, 0x62, 0x0A, 0xDC00, 0x63]);
    let p = ok(rail_wasm::position_at(text.clone(), JsValue::from(4)));
    assert_eq!(p, json!({ "line": 0, "character": 2 }));
    let c = ok(rail_wasm::offset_at(
        text,
        js(&json!({ "line": 1, "character": 1 })),
    ));
    // Line 1 starts at byte 6 ("a" + 3 + "b" + "\n"); the lone low surrogate is 3 bytes.
    assert_eq!(c, json!(9));
}

#[wasm_bindgen_test]
fn merge_is_the_driver() {
    let base = "auth | session-a | 2026-10-22T14:05Z\n";
    let ours = format!("{base}search | session-c | 2026-10-22T15:00Z\n");
    let theirs = format!("{base}search | session-d | 2026-10-22T14:59Z\n");
    let got = ok(rail_wasm::merge(
        base.into(),
        ours.as_str().into(),
        theirs.as_str().into(),
    ));
    assert_eq!(
        got,
        serde_json::to_value(rail_core::change::merge::merge(base, &ours, &theirs)).unwrap()
    );
    assert_eq!(got["losers"][0]["lost_session"], "session-c");
}

#[wasm_bindgen_test]
fn who_and_scope() {
    let texts = js(&texts_json(CLAIMS));
    let got = ok(rail_wasm::who(
        texts.clone(),
        js(&facts_json()),
        js(&json!(["./src/auth/token.ts", "README.md"])),
    ));
    assert_eq!(got[0]["path"], "src/auth/token.ts");
    assert_eq!(got[0]["holders"][0]["session"], "session-a");
    assert_eq!(got[1]["holders"], json!([]));

    let got = ok(rail_wasm::scope(
        texts,
        js(&facts_json()),
        "session-a".into(),
        js(&json!([
            "src/auth/a.ts",
            "src/other.ts",
            "src/billing/x.ts"
        ])),
    ));
    assert_eq!(got["in_scope"], json!(["src/auth/a.ts"]));
    // session-b's billing claim is stale: touching its paths is no conflict, only drift.
    assert_eq!(
        got["out_of_scope"],
        json!(["src/other.ts", "src/billing/x.ts"])
    );
    assert_eq!(got["conflicts"], json!([]));
    assert_eq!(got["clean"], false);
}

#[wasm_bindgen_test]
fn the_rails_own_files_are_core_s_list() {
    for (path, own) in [
        ("claims.md", true),
        ("claims.md.lock", true),
        ("claims.log", true),
        ("rail.yaml", true),
        ("claims/alice.yaml", true),
        ("docs/claims.md", false),
        ("src/a.ts", false),
    ] {
        assert_eq!(
            ok(rail_wasm::is_rail_file(path.into())),
            json!(own),
            "{path}"
        );
    }
    let work = ok(rail_wasm::work_files(js(&json!([
        "src/a.ts",
        "claims.md",
        "claims/b.yaml",
        "docs/claims.md"
    ]))));
    assert_eq!(work, json!(["src/a.ts", "docs/claims.md"]));
    let m = err(rail_wasm::work_files(js(&json!("claims.md"))));
    assert!(m.starts_with("rail: paths:"), "{m}");
}

#[wasm_bindgen_test]
fn commit_times_are_cores_reading_of_for_each_ref_rows() {
    assert_eq!(
        ok(rail_wasm::for_each_ref_format("main".into())),
        json!(rail_core::model::lease::for_each_ref_format(Some("main")))
    );
    assert_eq!(
        ok(rail_wasm::for_each_ref_format(JsValue::NULL)),
        json!(rail_core::model::lease::for_each_ref_format(None))
    );
    // 1792677900 = 2026-10-22T14:05:00Z. `fresh` has no commit of its own (ahead 0) and the
    // remote's HEAD is an alias: neither counts.
    let rows = "refs/remotes/origin/auth\x001792677900\x003 1\n\
                refs/remotes/origin/fresh\x001792677900\x000 0\n\
                refs/remotes/origin/HEAD\x001792677900\x001 0\n\
                garbage\n";
    let got = ok(rail_wasm::commit_times(
        rows.into(),
        "refs/remotes/origin/".into(),
    ));
    assert_eq!(got, json!({ "auth": "2026-10-22T14:05:00Z" }));
    let m = err(rail_wasm::commit_times(
        JsValue::from(3),
        "refs/heads/".into(),
    ));
    assert!(m.starts_with("rail: rows:"), "{m}");
}

#[wasm_bindgen_test]
fn owner_probes_are_cores() {
    let fields = json!([
        "4242@devbox",
        "4242@devbox/900",
        "7@devbox",
        "5@elsewhere/1",
        "0@devbox",
        "garbage"
    ]);
    let facts = json!({ "now": NOW, "host": "devbox", "processes": { "7@devbox": false } });
    let got = ok(rail_wasm::owner_probes(js(&fields), js(&facts)));
    assert_eq!(
        got,
        json!([{ "pid": 4242, "key": "4242@devbox", "wants_start": true }])
    );
    let native: Vec<&str> = fields
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(
        got,
        serde_json::to_value(native_facts(&facts).owner_probes(native)).unwrap()
    );
    // What the host then observes frees a reused pid on the board: a claim that recorded
    // start 900, its pid alive but started at 950.
    let claims = "t | s | 2026-10-22T14:50Z | pid: 4242@devbox/900\n";
    let observed = |start: u64| {
        json!({
            "now": NOW, "host": "devbox",
            "processes": { "4242@devbox": true }, "process_starts": { "4242@devbox": start }
        })
    };
    let board = |start| {
        ok(rail_wasm::board(
            js(&texts_json(claims)),
            js(&observed(start)),
        ))
    };
    assert_eq!(board(950)["claims"][0]["state"], "stale");
    assert_eq!(board(900)["claims"][0]["state"], "live");
    let m = err(rail_wasm::owner_probes(
        js(&json!("4242@devbox")),
        js(&facts),
    ));
    assert!(m.starts_with("rail: pidFields:"), "{m}");
    let m = err(rail_wasm::owner_probes(js(&fields), js(&json!({}))));
    assert!(m.starts_with("rail: facts:"), "{m}");
}

#[wasm_bindgen_test]
fn the_shared_remote_is_cores_lookup() {
    let remote = |facts: Value| ok(rail_wasm::shared_remote(js(&facts)));
    let yaml = "remote: upstream\n";
    assert_eq!(remote(json!({})), Value::Null);
    assert_eq!(remote(json!({ "config_text": yaml })), json!("upstream"));
    assert_eq!(
        remote(json!({ "git_config": "origin\n", "config_text": yaml })),
        json!("origin")
    );
    assert_eq!(
        remote(json!({ "git_config": "", "config_text": yaml, "rail_local": null })),
        json!("upstream")
    );
    assert_eq!(
        remote(json!({ "rail_local": "1", "git_config": "origin", "config_text": yaml })),
        Value::Null
    );
    assert_eq!(
        remote(json!({ "rail_local": "0", "git_config": "origin" })),
        json!("origin")
    );
    let m = err(rail_wasm::shared_remote(js(&json!({ "git_config": 3 }))));
    assert!(
        m.starts_with("rail: facts.git_config: expected a string"),
        "{m}"
    );
    let m = err(rail_wasm::shared_remote(js(&json!("origin"))));
    assert!(m.starts_with("rail: facts: expected an object"), "{m}");
}

#[wasm_bindgen_test]
fn constants_are_cores() {
    let got = ok(rail_wasm::constants());
    assert_eq!(
        got,
        serde_json::to_value(rail_core::model::host_constants()).unwrap()
    );
    assert_eq!(got["synced_stamp"], "rail-synced");
    assert_eq!(got["local_env"], "RAIL_LOCAL");
    assert_eq!(got["remote_key"], "rail.remote");
    assert_eq!(got["max_rail_bytes"], 16 * 1024 * 1024);
}

#[wasm_bindgen_test]
fn handed_files_and_folders_are_placed_by_core() {
    let handed = |name: &str| ok(rail_wasm::handed_file(name.into()));
    assert_eq!(
        handed("claims.md"),
        json!({ "name": "claims.md", "path": "claims.md", "role": "claims" })
    );
    assert_eq!(
        handed("dl/session-a.YML"),
        json!({ "name": "dl/session-a.YML", "path": "claims/session-a.YML", "role": "claim-file" })
    );
    assert_eq!(handed("rail.yml")["role"], "config");
    assert_eq!(handed("old.log")["path"], "claims.log");
    assert_eq!(handed("claims.md.lock"), Value::Null);
    let folder = ok(rail_wasm::rail_files_in(js(&json!([
        "repo/README.md",
        "repo/claims.md",
        "repo/claims/a.yaml",
        "repo/rail.yml",
        "repo/docs/claims.md"
    ]))));
    assert_eq!(
        folder,
        json!([
            { "name": "repo/claims.md", "path": "claims.md", "role": "claims" },
            { "name": "repo/claims/a.yaml", "path": "claims/a.yaml", "role": "claim-file" }
        ])
    );
    let m = err(rail_wasm::rail_files_in(js(&json!("claims.md"))));
    assert!(m.starts_with("rail: paths:"), "{m}");
    let m = err(rail_wasm::handed_file(JsValue::from(1)));
    assert!(m.starts_with("rail: name:"), "{m}");
}

#[wasm_bindgen_test]
fn describe_freshness_says_how_old_the_shared_copy_is() {
    let fresh = ok(rail_wasm::describe_freshness(js(&json!({
        "remote": "origin", "fetched_at": "2026-10-22T14:59:39.250Z", "now": NOW
    }))));
    assert_eq!(fresh["text"], "shared via origin, fetched 20s ago");
    assert_eq!(fresh["stale"], false);
    let stale = ok(rail_wasm::describe_freshness(js(&json!({
        "remote": "origin", "fetched_at": null, "now": NOW, "fetch_error": "fatal: gone\n"
    }))));
    assert_eq!(
        stale["text"],
        "shared via origin: STALE, could not fetch (fatal: gone); nothing was fetched yet"
    );
    assert_eq!(stale["stale"], true);
    let m = err(rail_wasm::describe_freshness(js(
        &json!({ "remote": "origin", "now": "soon" }),
    )));
    assert!(m.starts_with("rail: facts: "), "{m}");
}

#[wasm_bindgen_test]
fn parse_config_is_core_s_reading_of_rail_yaml() {
    let text = "lease: 45m\non_stop: renew\nremote: origin\nexpiring: soon\n";
    let got = ok(rail_wasm::parse_config(text.into()));
    assert_eq!(
        got,
        serde_json::to_value(rail_core::formats::config::parse(text).0).unwrap()
    );
    // Durations in seconds; a bad value keeps its default (15 minutes).
    assert_eq!(got["lease"], 45 * 60);
    assert_eq!(got["expiring"], 15 * 60);
    assert_eq!(got["on_stop"], "renew");
    assert_eq!(got["remote"], "origin");
    assert!(got["check"].is_null());
    let defaults = ok(rail_wasm::parse_config("".into()));
    assert_eq!(defaults["lease"], 2 * 60 * 60);
    assert_eq!(defaults["hook_failure"], "deny");
}

#[wasm_bindgen_test]
fn markdown_is_safe_html() {
    let html = rail_wasm::render_markdown("<script>x</script> [a](javascript:alert(1))".into())
        .unwrap()
        .as_string()
        .unwrap();
    assert!(!html.contains("<script"), "{html}");
    assert!(!html.contains("href"), "{html}");
}

/// The texts argument is read field by field (src/text_in.rs), each text copied in with
/// `TextEncoder.encodeInto`: the same texts as serde would read, and errors naming the field.
#[wasm_bindgen_test]
fn texts_are_read_field_by_field() {
    let purpose = "tâche — ça 😀 \u{10ffff}";
    let line = format!("auth | s | 2026-10-22T14:05Z | purpose: {purpose}\n");
    // Text outside ASCII, in claims.md and in a claim file, in and out again whole.
    let board = ok(rail_wasm::board(
        js(&json!({
            "claims": { "path": "claims.md", "text": line },
            "claim_files": [{ "path": "claims/é.yaml", "text": "owner: é\ntask: ü\n", "modified": "2026-10-22T14:00:00Z" }],
            "log": null,
        })),
        js(&facts_json()),
    ));
    assert_eq!(board["claims"][0]["purpose"], purpose);
    assert_eq!(board["claims"][1]["session"], "é");
    assert_eq!(board["claims"][1]["claimed_at"], "2026-10-22T14:00:00Z");
    // A lone surrogate becomes U+FFFD, as wasm-bindgen's own conversion does.
    let texts = js_sys::Object::new();
    let claims = js_sys::Object::new();
    js_sys::Reflect::set(&claims, &"path".into(), &"claims.md".into()).unwrap();
    js_sys::Reflect::set(
        &claims,
        &"text".into(),
        &with_lone_surrogates("x | s | 2026-10-22T14:05Z | purpose: a~b\n"),
    )
    .unwrap();
    js_sys::Reflect::set(&texts, &"claims".into(), &claims).unwrap();
    let board = ok(rail_wasm::board(texts.into(), js(&facts_json())));
    assert_eq!(board["claims"][0]["purpose"], "a\u{fffd}b");
    // Absent in every spelling.
    for empty in [json!({}), json!({ "claims": null, "claim_files": null })] {
        let board = ok(rail_wasm::board(js(&empty), js(&facts_json())));
        assert_eq!(board["claims"], json!([]));
    }
    let cases = [
        (
            json!(3),
            "rail: texts: invalid type: number, expected an object",
        ),
        (
            json!(null),
            "rail: texts: invalid type: null, expected an object",
        ),
        (
            json!({ "claims": "x" }),
            "rail: texts.claims: invalid type: string, expected a file",
        ),
        (
            json!({ "claims": { "path": "claims.md", "text": 3 } }),
            "rail: texts.claims.text: invalid type: number, expected a string",
        ),
        (
            json!({ "log": { "text": "" } }),
            "rail: texts.log.path: invalid type: undefined, expected a string",
        ),
        (
            json!({ "claim_files": {} }),
            "rail: texts.claim_files: invalid type: object, expected a list",
        ),
        (
            json!({ "claim_files": [{ "path": "a", "text": "" }, 3] }),
            "rail: texts.claim_files[1]: invalid type: number, expected a file",
        ),
        (
            json!({ "claim_files": [null] }),
            "rail: texts.claim_files[0]: invalid type: null, expected a file",
        ),
        (
            json!({ "config": { "path": "rail.yaml", "text": "", "modified": "soon" } }),
            "rail: texts.config.modified: `soon`: expected a time",
        ),
        (
            json!({ "config": { "path": "rail.yaml", "text": "", "modified": 1 } }),
            "rail: texts.config.modified: invalid type: number, expected a time",
        ),
    ];
    for (texts, want) in cases {
        let m = err(rail_wasm::board(js(&texts), js(&facts_json())));
        assert!(m.starts_with(want), "{m:?} should start with {want:?}");
    }
    // A getter that throws is an error, not a trap.
    let texts = js_sys::Object::new();
    let throws = js_sys::Function::new_no_args("throw new Error('no')");
    let descriptor = js_sys::Object::new();
    js_sys::Reflect::set(&descriptor, &"get".into(), &throws).unwrap();
    js_sys::Object::define_property(&texts, &"claims".into(), &descriptor);
    let m = err(rail_wasm::board(texts.into(), js(&facts_json())));
    assert!(
        m.starts_with("rail: texts.claims: could not be read"),
        "{m}"
    );
}

#[wasm_bindgen_test]
fn wrong_argument_types_throw_errors_that_name_the_argument() {
    let cases: Vec<(String, Result<JsValue, JsError>)> = vec![
        (
            "rail: texts: invalid type".into(),
            rail_wasm::board(JsValue::from(3), js(&facts_json())),
        ),
        (
            "rail: facts: missing field `now`".into(),
            rail_wasm::board(js(&json!({})), js(&json!({}))),
        ),
        (
            "rail: facts: `soon`: expected a time".into(),
            rail_wasm::board(js(&json!({})), js(&json!({ "now": "soon" }))),
        ),
        (
            "rail: session: expected a string".into(),
            rail_wasm::scope(
                js(&json!({})),
                js(&facts_json()),
                JsValue::NULL,
                js(&json!([])),
            ),
        ),
        (
            "rail: changed: ".into(),
            rail_wasm::scope(js(&json!({})), js(&facts_json()), "s".into(), "a".into()),
        ),
        (
            "rail: ours: expected a string".into(),
            rail_wasm::merge("".into(), JsValue::UNDEFINED, "".into()),
        ),
        (
            "rail: paths: ".into(),
            rail_wasm::who(js(&json!({})), js(&facts_json()), "src".into()),
        ),
        (
            "rail: offset: invalid type".into(),
            rail_wasm::position_at("abc".into(), JsValue::from(-1)),
        ),
        (
            "rail: position: missing field `line`".into(),
            rail_wasm::offset_at("abc".into(), js(&json!({}))),
        ),
        (
            "rail: span: invalid type".into(),
            rail_wasm::range_of("abc".into(), js(&json!("0..1"))),
        ),
        (
            "rail: text: expected a string".into(),
            rail_wasm::parse_config(JsValue::from(3)),
        ),
    ];
    for (want, result) in cases {
        let m = err(result);
        assert!(m.starts_with(&want), "{m:?} should start with {want:?}");
    }
}
