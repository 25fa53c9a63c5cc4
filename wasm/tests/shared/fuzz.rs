//! Garbage in, clean errors out: every export is called with random values of every JS type,
//! with structurally plausible rails built from fragments (so the parsers and evaluators run deep),
//! with lone surrogates and with large texts. Each call must return a value or throw a JS `Error`
//! whose message starts with `rail: `; a panic would trap and fail the test.

use js_sys::{Array, BigInt, Function, Object, Reflect, Symbol};
use wasm_bindgen::{JsError, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

use super::{message, utf16};

/// xorshift64*: deterministic, so a failure names its seed and replays.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Pieces of claims.md, claim files, logs, configs and markdown, good and broken.
const FRAGMENTS: &[&str] = &[
    "auth-refresh | session-a | 2026-10-22T14:05Z",
    "billing | session-b | 2026-10-22T12:00Z | paths: src/billing/**",
    "| search | session-c | 2026-10-22T14:59Z |",
    "- docs | session-d | 2026-10-22T14:00:30+02:00 | lease: 45m | after: auth-refresh",
    " | paths: src/**, {a,b}/*.ts, [x-z]?.rs | resources: port:3000, shared:simulator",
    " | renewed: 2026-10-22T14:55Z | pid: 4242@devbox | branch: feat/x",
    " | purpose: fix **totals** <script>alert(1)</script> [x](javascript:y)",
    "task | | 2026-10-22",
    "a | b | c | d: e | lease: 0m | lease: 99999999999d",
    "tâche😀 | séssion | 9999-12-31T23:59:59Z",
    "x | y | 0000-01-01T00:00Z",
    "<<<<<<< ours",
    "=======",
    ">>>>>>> theirs",
    "```",
    "~~~",
    "<!--",
    "-->",
    "<div>",
    "    indented code | s | 2026-10-22T14:05Z",
    "# Claims",
    "owner: session-a",
    "task: auth-refresh",
    "paths:",
    "  - src/auth/**",
    "- [a, \"b\", 'c']",
    "resources: [port:3000",
    "since: 2026-10-22T14:05Z",
    "released: 2026-10-22T16:00Z",
    "touched:\n  - a.ts",
    "purpose: |\n  multi\n  line",
    "key: &anchor *alias !tag {a: b}",
    "lease: 2h",
    "expiring: 15m",
    "on_stop: release",
    "2026-10-22T14:05:03Z | claimed | auth | session-a | paths: src/**",
    "2026-10-22T18:02:00Z | taken | billing | session-b | from: a \\| b",
    "garbage | line",
    "\t",
    "   ",
    "\u{feff}",
    "\r",
    "\\",
    ":",
    "|",
    "||||",
    "*",
    "**/",
    "../..",
    "/etc/passwd",
    "ç",
    "😀",
    "\u{0}",
    "\u{7f}",
    "\u{2028}",
];

/// Random text from fragments, separators and raw code units (lone surrogates included).
fn text(rng: &mut Rng, max_parts: usize) -> JsValue {
    let mut units: Vec<u16> = Vec::new();
    for _ in 0..rng.below(max_parts + 1) {
        match rng.below(10) {
            0 => units.push(rng.below(0x1_0000) as u16),
            1 => units.push(0xD800 + rng.below(0x800) as u16),
            2 => units.extend("\r\n".encode_utf16()),
            3 => units.extend(" | ".encode_utf16()),
            _ => units.extend(rng.pick(FRAGMENTS).encode_utf16()),
        }
        if rng.chance(40) {
            units.push(u16::from(b'\n'));
        }
    }
    utf16(&units)
}

/// A value of any JS type, nested a little.
fn garbage(rng: &mut Rng, depth: usize) -> JsValue {
    match rng.below(if depth > 2 { 9 } else { 12 }) {
        0 => JsValue::UNDEFINED,
        1 => JsValue::NULL,
        2 => JsValue::from(rng.chance(50)),
        3 => JsValue::from(*rng.pick(&[
            0.0,
            -0.0,
            -1.0,
            0.5,
            f64::NAN,
            f64::INFINITY,
            1e300,
            9_007_199_254_740_993.0,
            4_294_967_296.0,
        ])),
        4 => BigInt::from(rng.next()).into(),
        5 => Symbol::for_("rail").into(),
        6 => Function::new_no_args("return 1").into(),
        7 | 8 => text(rng, 6),
        9 => {
            let array = Array::new();
            for _ in 0..rng.below(4) {
                array.push(&garbage(rng, depth + 1));
            }
            array.into()
        }
        _ => {
            let object = Object::new();
            for _ in 0..rng.below(5) {
                let key = *rng.pick(&[
                    "claims",
                    "claim_files",
                    "path",
                    "text",
                    "now",
                    "remote",
                    "task",
                    "paths",
                    "span",
                    "start",
                    "end",
                    "line",
                    "character",
                    "modified",
                    "fetched_at",
                ]);
                set(&object, key, &garbage(rng, depth + 1));
            }
            object.into()
        }
    }
}

fn set(object: &Object, key: &str, value: &JsValue) {
    Reflect::set(object, &key.into(), value).unwrap();
}

fn file(rng: &mut Rng, path: &str, parts: usize) -> JsValue {
    let object = Object::new();
    set(&object, "path", &path.into());
    set(&object, "text", &text(rng, parts));
    if rng.chance(20) {
        set(&object, "modified", &time(rng));
    }
    object.into()
}

fn time(rng: &mut Rng) -> JsValue {
    (*rng.pick(&[
        "2026-10-22T15:00:00Z",
        "2026-10-22T14:06Z",
        "2026-10-23T00:00:00+05:30",
        "9999-12-31T23:59:59Z",
        "0000-01-01T00:00:00Z",
        "2026-10-22T15:00:00.999999999Z",
    ]))
    .into()
}

/// Mostly a well-formed RailTexts with random contents; sometimes garbage.
fn texts(rng: &mut Rng) -> JsValue {
    if rng.chance(10) {
        return garbage(rng, 0);
    }
    let object = Object::new();
    if rng.chance(85) {
        set(&object, "claims", &file(rng, "claims.md", 40));
    }
    let files = Array::new();
    for i in 0..rng.below(4) {
        let path = match rng.below(4) {
            0 => "claims/session-a.yaml".to_string(),
            1 => format!("claims/session-{i}.yaml"),
            2 => "claims/x.yml".to_string(),
            _ => "weird/../path".to_string(),
        };
        files.push(&file(rng, &path, 12));
    }
    set(&object, "claim_files", &files);
    if rng.chance(50) {
        set(&object, "log", &file(rng, "claims.log", 10));
    }
    if rng.chance(30) {
        set(&object, "config", &file(rng, "rail.yaml", 6));
    }
    object.into()
}

fn facts(rng: &mut Rng) -> JsValue {
    if rng.chance(10) {
        return garbage(rng, 0);
    }
    let object = Object::new();
    set(&object, "now", &time(rng));
    set(&object, "host", &"devbox".into());
    let commits = Object::new();
    set(&commits, "session-a", &time(rng));
    set(&object, "commits", &commits);
    let alive = Object::new();
    set(&alive, "4242@devbox", &rng.chance(50).into());
    set(&object, "processes", &alive);
    let starts = Object::new();
    set(&starts, "4242@devbox", &number(rng));
    set(&object, "process_starts", &starts);
    let sessions = Object::new();
    set(&sessions, "session-b", &rng.chance(50).into());
    set(&object, "sessions", &sessions);
    object.into()
}

fn strings(rng: &mut Rng) -> JsValue {
    if rng.chance(15) {
        return garbage(rng, 0);
    }
    let array = Array::new();
    for _ in 0..rng.below(5) {
        array.push(&text(rng, 3));
    }
    array.into()
}

fn session(rng: &mut Rng) -> JsValue {
    if rng.chance(15) {
        return garbage(rng, 0);
    }
    (*rng.pick(&[
        "session-a",
        "session-b",
        "session-c",
        "",
        "bad session",
        "x@y",
    ]))
    .into()
}

fn number(rng: &mut Rng) -> JsValue {
    if rng.chance(30) {
        return garbage(rng, 0);
    }
    JsValue::from(rng.below(200) as u32)
}

fn position(rng: &mut Rng) -> JsValue {
    if rng.chance(20) {
        return garbage(rng, 0);
    }
    let object = Object::new();
    set(&object, "line", &number(rng));
    set(&object, "character", &number(rng));
    object.into()
}

fn span(rng: &mut Rng) -> JsValue {
    if rng.chance(20) {
        return garbage(rng, 0);
    }
    let object = Object::new();
    set(&object, "start", &number(rng));
    set(&object, "end", &number(rng));
    object.into()
}

fn freshness_facts(rng: &mut Rng) -> JsValue {
    if rng.chance(20) {
        return garbage(rng, 0);
    }
    let object = Object::new();
    set(
        &object,
        "remote",
        &(*rng.pick(&["origin", "", "up stream"])).into(),
    );
    set(&object, "now", &time(rng));
    if rng.chance(2) {
        set(&object, "fetched_at", &time(rng));
    }
    if rng.chance(2) {
        set(&object, "fetch_error", &text(rng, 4));
    }
    object.into()
}

/// rail.yaml: its keys with good and bad values, or random text.
fn config_text(rng: &mut Rng) -> JsValue {
    if rng.chance(30) {
        return text(rng, 8);
    }
    let mut yaml = String::new();
    for _ in 0..rng.below(6) {
        let key = *rng.pick(&[
            "lease",
            "expiring",
            "check",
            "on_stop",
            "hook_failure",
            "hook_unanalysed",
            "lock_timeout",
            "remote",
            "unknown",
        ]);
        let value = *rng.pick(&[
            "2h",
            "0m",
            "99999999999d",
            "-5m",
            "release",
            "warn",
            "cargo test",
            "[a, b]",
            "",
            "😀",
        ]);
        yaml.push_str(&format!("{key}: {value}\n"));
    }
    yaml.into()
}

/// Ok, or a JS `Error` from this crate's one error helper.
fn check(export: &str, seed: u64, result: Result<JsValue, JsError>) {
    if let Err(e) = result {
        let m = message(e);
        assert!(
            m.starts_with("rail: "),
            "{export} (seed {seed}) threw {m:?}"
        );
    }
}

fn round(seed: u64) {
    let rng = &mut Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    check("board", seed, rail_wasm::board(texts(rng), facts(rng)));
    check("validate", seed, rail_wasm::validate(texts(rng)));
    check(
        "merge",
        seed,
        rail_wasm::merge(text(rng, 30), text(rng, 30), text(rng, 30)),
    );
    check(
        "who",
        seed,
        rail_wasm::who(texts(rng), facts(rng), strings(rng)),
    );
    check(
        "scope",
        seed,
        rail_wasm::scope(texts(rng), facts(rng), session(rng), strings(rng)),
    );
    check(
        "parseConfig",
        seed,
        rail_wasm::parse_config(config_text(rng)),
    );
    check(
        "describeFreshness",
        seed,
        rail_wasm::describe_freshness(freshness_facts(rng)),
    );
    check(
        "renderMarkdown",
        seed,
        rail_wasm::render_markdown(text(rng, 20)),
    );
    check(
        "positionAt",
        seed,
        rail_wasm::position_at(text(rng, 8), number(rng)),
    );
    check(
        "offsetAt",
        seed,
        rail_wasm::offset_at(text(rng, 8), position(rng)),
    );
    check(
        "rangeOf",
        seed,
        rail_wasm::range_of(text(rng, 8), span(rng)),
    );
    check("isRailFile", seed, rail_wasm::is_rail_file(text(rng, 4)));
    check("workFiles", seed, rail_wasm::work_files(strings(rng)));
    check(
        "commitTimes",
        seed,
        rail_wasm::commit_times(text(rng, 8), text(rng, 2)),
    );
    check(
        "forEachRefFormat",
        seed,
        rail_wasm::for_each_ref_format(text(rng, 2)),
    );
    check(
        "ownerProbes",
        seed,
        rail_wasm::owner_probes(strings(rng), facts(rng)),
    );
    check("handedFile", seed, rail_wasm::handed_file(text(rng, 4)));
    check("railFilesIn", seed, rail_wasm::rail_files_in(strings(rng)));
    // Every argument garbage.
    check(
        "sharedRemote",
        seed,
        rail_wasm::shared_remote(garbage(rng, 0)),
    );
    check(
        "board",
        seed,
        rail_wasm::board(garbage(rng, 0), garbage(rng, 0)),
    );
    check(
        "scope",
        seed,
        rail_wasm::scope(
            garbage(rng, 0),
            garbage(rng, 0),
            garbage(rng, 0),
            garbage(rng, 0),
        ),
    );
    check(
        "merge",
        seed,
        rail_wasm::merge(garbage(rng, 0), garbage(rng, 0), garbage(rng, 0)),
    );
    check(
        "rangeOf",
        seed,
        rail_wasm::range_of(garbage(rng, 0), garbage(rng, 0)),
    );
    check(
        "describeFreshness",
        seed,
        rail_wasm::describe_freshness(garbage(rng, 0)),
    );
    check(
        "parseConfig",
        seed,
        rail_wasm::parse_config(garbage(rng, 0)),
    );
}

#[wasm_bindgen_test]
fn random_inputs_give_values_or_clean_errors() {
    for seed in 0..400 {
        round(seed);
    }
}

#[wasm_bindgen_test]
fn large_inputs_give_values_or_clean_errors() {
    let rng = &mut Rng(7);
    // About 1 MB of claims.md: thousands of claims, some broken, with surrogates sprinkled in.
    let mut units: Vec<u16> = Vec::new();
    for i in 0..12_000 {
        let line = format!(
            "task-{i} | session-{} | 2026-10-22T14:{:02}Z | paths: src/m{}/** | resources: port:{}\n",
            i % 37,
            i % 60,
            i % 500,
            3000 + i % 50
        );
        units.extend(line.encode_utf16());
        if rng.chance(3) {
            units.push(0xDC00);
        }
    }
    let big = utf16(&units);
    let texts = Object::new();
    let claims = Object::new();
    set(&claims, "path", &"claims.md".into());
    set(&claims, "text", &big);
    set(&texts, "claims", &claims);
    let facts = Object::new();
    set(&facts, "now", &"2026-10-22T15:00:00Z".into());
    let texts: JsValue = texts.into();
    let facts: JsValue = facts.into();
    check("board", 0, rail_wasm::board(texts.clone(), facts.clone()));
    check("validate", 0, rail_wasm::validate(texts.clone()));
    check(
        "merge",
        0,
        rail_wasm::merge(big.clone(), big.clone(), "".into()),
    );
    check("renderMarkdown", 0, rail_wasm::render_markdown(big.clone()));
    check(
        "positionAt",
        0,
        rail_wasm::position_at(big.clone(), JsValue::from(1_000_000)),
    );
    // One 4 MB line.
    let line: JsValue = "a".repeat(4 << 20).into();
    check("validate", 0, rail_wasm::validate(line.clone()));
    check("renderMarkdown", 0, rail_wasm::render_markdown(line));
}

#[wasm_bindgen_test]
fn exotic_values_give_clean_errors() {
    // A number where a string belongs, a BigInt offset, an array of symbols...
    for value in [
        JsValue::from(Symbol::for_("x")),
        BigInt::from(5u64).into(),
        Function::new_no_args("return 'claims.md'").into(),
        Array::of1(&Symbol::for_("x").into()).into(),
    ] {
        check("board", 0, rail_wasm::board(value.clone(), value.clone()));
        check(
            "positionAt",
            0,
            rail_wasm::position_at("abc".into(), value.clone()),
        );
        check(
            "who",
            0,
            rail_wasm::who(JsValue::NULL, value.clone(), value.clone()),
        );
        check(
            "renderMarkdown",
            0,
            rail_wasm::render_markdown(value.clone()),
        );
    }
}

/// A claim file nested thousands of levels deep (about 12 MB of indentation) once exhausted the
/// engine's stack and trapped; the YAML reader now stops at `yaml::MAX_DEPTH` with a diagnostic.
#[wasm_bindgen_test]
fn deeply_nested_yaml_gives_a_value_or_a_clean_error() {
    let mut yaml = String::from("owner: session-a\n");
    for i in 0..5_000 {
        yaml.push_str(&" ".repeat(i));
        yaml.push_str("k:\n");
    }
    let texts = Object::new();
    let file = Object::new();
    set(&file, "path", &"claims/session-a.yaml".into());
    set(&file, "text", &yaml.into());
    set(&texts, "claim_files", &Array::of1(&file));
    check("validate", 0, rail_wasm::validate(texts.into()));
}
