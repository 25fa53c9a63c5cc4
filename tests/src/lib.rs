//! The fixture corpus of Rail: loading and evaluating it.
//!
//! The corpus lives in `tests/fixtures/`, one folder per kind:
//!
//! | kind      | one fixture                    | evaluated with                                   |
//! |-----------|--------------------------------|--------------------------------------------------|
//! | `parse`   | `{valid,invalid}/NAME.md`      | [`rail_core::formats::claims_md::parse`]         |
//! | `yaml`    | `{valid,invalid}/NAME.yaml`    | [`rail_core::formats::claim_file::parse`]        |
//! | `rewrite` | `NAME/` (rail files + request) | [`rail_core::change::ops::plan`] + edits applied |
//! | `board`   | `NAME/` (rail files + facts)   | [`rail_core::model::board::build`]               |
//! | `merge`   | `NAME/{base,ours,theirs}.md`   | [`rail_core::change::merge::merge`]              |
//!
//! [`evaluate_fixture`] turns one fixture into a `serde_json::Value` that depends on the
//! fixture's files only (never on where the corpus sits, the clock or the machine), so the same
//! fixture can be evaluated natively and through the wasm package and the two JSON values
//! compared (for rewrite fixtures, only their rails' boards: plans are computed natively only).
//! [`expected_outputs`] renders that value into the snapshot files the runner
//! (`tests/tests/fixtures.rs`) compares with what is checked in.
//!
//! A rail folder (rewrite and board fixtures) may hold `claims.md`, `claims/*.yaml`,
//! `claims.log`, `rail.yaml`, `facts.json` (a serde [`Facts`]; when absent, [`default_facts`])
//! and `modified.json` (`{"claims/x.yaml": "2026-10-22T14:05Z"}`: the modification times a host
//! would report for claim files, since the fixture's own file times are not part of it).

#![allow(
    clippy::disallowed_methods,
    reason = "native only: the wasm size lints of clippy.toml bind core and wasm"
)]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use rail_core::change::merge;
use rail_core::change::ops::{self, Request};
use rail_core::formats::claim_file;
use rail_core::formats::claims_md::{self, Form, LineKind};
use rail_core::formats::yaml::{self, Value as YamlValue, YamlNode};
use rail_core::model::input::{Facts, FileText, RailTexts};
use rail_core::text::diagnostic::{Located, Severity};
use rail_core::text::edit;
use rail_core::text::time::{format_duration_exact, format_time, parse_time};
use rail_core::text::LineIndex;
use serde_json::{json, Value};

/// The file name diagnostics of parse fixtures are reported against.
pub const CLAIMS_MD: &str = "claims.md";

/// "Now" for a rail folder without `facts.json`.
pub const DEFAULT_NOW: &str = "2026-10-22T15:00:00Z";

/// The five kinds of fixture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    Parse,
    Yaml,
    Rewrite,
    Board,
    Merge,
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::Parse,
        Kind::Yaml,
        Kind::Rewrite,
        Kind::Board,
        Kind::Merge,
    ];

    /// The kind's folder under `tests/fixtures/`.
    pub fn dir_name(self) -> &'static str {
        match self {
            Kind::Parse => "parse",
            Kind::Yaml => "yaml",
            Kind::Rewrite => "rewrite",
            Kind::Board => "board",
            Kind::Merge => "merge",
        }
    }

    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.dir_name() == name)
    }
}

/// One fixture: a file (parse, yaml) or a folder (rewrite, board, merge).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fixture {
    pub kind: Kind,
    /// `valid/seed` for parse and yaml fixtures, the folder name for the others.
    pub name: String,
    pub path: PathBuf,
    /// For parse and yaml fixtures: filed under `valid/` (true) or `invalid/` (false).
    pub valid: Option<bool>,
}

/// `tests/fixtures/` of this checkout.
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn read_opt(path: &Path) -> Option<String> {
    path.is_file().then(|| read(path))
}

fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = match fs::read_dir(dir) {
        Ok(entries) => entries.filter_map(|e| e.ok().map(|e| e.path())).collect(),
        Err(_) => Vec::new(),
    };
    out.sort();
    out
}

/// Every fixture of a kind, in name order.
pub fn list(kind: Kind) -> Vec<Fixture> {
    let root = fixtures_dir().join(kind.dir_name());
    let mut out = Vec::new();
    match kind {
        Kind::Parse | Kind::Yaml => {
            let ext = if kind == Kind::Parse { "md" } else { "yaml" };
            for (sub, valid) in [("valid", true), ("invalid", false)] {
                for path in sorted_entries(&root.join(sub)) {
                    if path.extension().and_then(|e| e.to_str()) != Some(ext) {
                        continue;
                    }
                    let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
                    out.push(Fixture {
                        kind,
                        name: format!("{sub}/{stem}"),
                        path,
                        valid: Some(valid),
                    });
                }
            }
        }
        Kind::Rewrite | Kind::Board | Kind::Merge => {
            for path in sorted_entries(&root) {
                if path.is_dir() {
                    out.push(Fixture {
                        kind,
                        name: path.file_name().unwrap().to_string_lossy().into_owned(),
                        path,
                        valid: None,
                    });
                }
            }
        }
    }
    out
}

/// The facts used when a rail folder has no `facts.json`.
pub fn default_facts() -> Facts {
    Facts::at(parse_time(DEFAULT_NOW).unwrap())
}

/// Reads a rail folder: `claims.md`, `claims/*.yaml` (and `.yml`), `claims.log`, `rail.yaml`,
/// `facts.json` and `modified.json`. Paths in the texts are relative to the rail folder.
pub fn load_rail_dir(dir: &Path) -> (RailTexts, Facts) {
    let modified: BTreeMap<String, String> = match read_opt(&dir.join("modified.json")) {
        Some(text) => serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{}/modified.json: {e}", dir.display())),
        None => BTreeMap::new(),
    };
    let file = |name: &str| {
        read_opt(&dir.join(name)).map(|text| FileText {
            path: name.to_string(),
            text,
            modified: None,
        })
    };
    let mut claim_files = Vec::new();
    for path in sorted_entries(&dir.join("claims")) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !(name.ends_with(".yaml") || name.ends_with(".yml")) {
            continue;
        }
        let rel = format!("claims/{name}");
        let modified = modified.get(&rel).map(|t| {
            parse_time(t).unwrap_or_else(|e| panic!("{}/modified.json `{t}`: {e}", dir.display()))
        });
        claim_files.push(FileText {
            path: rel,
            text: read(&path),
            modified,
        });
    }
    let texts = RailTexts {
        claims: file("claims.md"),
        claim_files,
        log: file("claims.log"),
        config: file("rail.yaml"),
    };
    let facts = match read_opt(&dir.join("facts.json")) {
        Some(text) => serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{}/facts.json: {e}", dir.display())),
        None => default_facts(),
    };
    (texts, facts)
}

/// A rewrite fixture's inputs.
#[derive(Clone, Debug)]
pub struct RewriteInput {
    pub texts: RailTexts,
    pub facts: Facts,
    pub session: String,
    pub request: Request,
}

/// Reads a rewrite folder: a rail folder plus `session.txt` and `request.json`.
pub fn load_rewrite(dir: &Path) -> RewriteInput {
    let (texts, facts) = load_rail_dir(dir);
    let session = read(&dir.join("session.txt")).trim().to_string();
    let request: Request = serde_json::from_str(&read(&dir.join("request.json")))
        .unwrap_or_else(|e| panic!("{}/request.json: {e}", dir.display()));
    RewriteInput {
        texts,
        facts,
        session,
        request,
    }
}

/// A merge fixture's three versions of claims.md.
#[derive(Clone, Debug)]
pub struct MergeInput {
    pub base: String,
    pub ours: String,
    pub theirs: String,
}

pub fn load_merge(dir: &Path) -> MergeInput {
    MergeInput {
        base: read(&dir.join("base.md")),
        ours: read(&dir.join("ours.md")),
        theirs: read(&dir.join("theirs.md")),
    }
}

/// Evaluates one fixture (a `.md`/`.yaml` file for parse and yaml, a folder for the others)
/// into JSON that depends only on the fixture's files.
pub fn evaluate_fixture(kind: Kind, path: &Path) -> Value {
    canonical(evaluate_unordered(kind, path))
}

/// Object keys in sorted order, at every depth. serde_json keeps insertion order when any crate
/// of the build enables its `preserve_order` feature (the CLI does), so without this the same
/// fixture would print differently in a workspace build and a single-crate build.
pub fn canonical(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k, canonical(v)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.into_iter().map(canonical).collect()),
        other => other,
    }
}

fn evaluate_unordered(kind: Kind, path: &Path) -> Value {
    match kind {
        Kind::Parse => parse_json(&read(path)),
        Kind::Yaml => {
            let name = path.file_name().unwrap().to_string_lossy();
            yaml_json(&format!("claims/{name}"), &read(path))
        }
        Kind::Rewrite => rewrite_json(&load_rewrite(path)),
        Kind::Board => {
            let (texts, facts) = load_rail_dir(path);
            board_json(&texts, &facts)
        }
        Kind::Merge => {
            let m = load_merge(path);
            merge_json(&m.base, &m.ours, &m.theirs)
        }
    }
}

fn located(
    file: &str,
    text: &str,
    diags: &[rail_core::text::diagnostic::Diagnostic],
) -> Vec<Located> {
    let index = LineIndex::new(text);
    diags.iter().map(|d| d.locate(file, text, &index)).collect()
}

fn form_name(form: Form) -> &'static str {
    match form {
        Form::Plain => "plain",
        Form::ListItem => "list-item",
        Form::TableRow => "table-row",
    }
}

/// What claims.md says: its claims, broken lines, conflict markers and diagnostics (reported
/// against `claims.md`, with zero-based UTF-16 ranges).
pub fn parse_json(text: &str) -> Value {
    let doc = claims_md::parse(text);
    let mut claims = Vec::new();
    let mut broken = Vec::new();
    let mut markers = Vec::new();
    let mut planned = Vec::new();
    for (n, line) in doc.lines.iter().enumerate() {
        match &line.kind {
            LineKind::Claim(c) => claims.push(json!({
                "line": n + 1,
                "form": form_name(c.form),
                "task": c.task,
                "session": c.session,
                "time": format_time(c.time),
                "fields": c.fields.iter().map(|f| f.key.clone()).collect::<Vec<_>>(),
                "lease": c.lease.map(format_duration_exact),
                "branch": c.branch,
                "pid": c.pid,
                "after": c.after,
                "paths": c.paths,
                "resources": c.resources,
                "renewed": c.renewed.map(format_time),
                "purpose": c.purpose,
            })),
            LineKind::Broken { task } => broken.push(json!({ "line": n + 1, "task": task })),
            LineKind::ConflictMarker => markers.push(json!(n + 1)),
            LineKind::Planned(p) => planned.push(json!({
                "line": n + 1,
                "task": p.task,
                "done": p.done,
                "after": p.after,
                "paths": p.paths,
                "resources": p.resources,
                "purpose": p.purpose,
            })),
            LineKind::Text => {}
        }
    }
    json!({
        "lines": doc.lines.len(),
        "claims": claims,
        "broken": broken,
        "conflict_markers": markers,
        "planned": planned,
        "diagnostics": located(CLAIMS_MD, text, &doc.diagnostics),
    })
}

fn yaml_tree(node: Option<&YamlNode>) -> Value {
    let Some(node) = node else {
        return Value::Null;
    };
    match &node.value {
        YamlValue::Null => Value::Null,
        YamlValue::Scalar(s) => Value::String(s.clone()),
        YamlValue::Seq(items) => Value::Array(items.iter().map(|n| yaml_tree(Some(n))).collect()),
        YamlValue::Map(entries) => Value::Array(
            entries
                .iter()
                .map(|e| json!({ "key": e.key, "value": yaml_tree(Some(&e.value)) }))
                .collect(),
        ),
    }
}

/// What a claim file means (`path` is its rail-relative path, e.g. `claims/session-a.yaml`),
/// the YAML tree read (a mapping as a list of `{"key", "value"}` entries, in order, duplicates
/// kept) and the diagnostics.
pub fn yaml_json(path: &str, text: &str) -> Value {
    let file = claim_file::parse(path, text);
    json!({
        "path": path,
        "owner": file.owner,
        "task": file.task,
        "paths": file.paths,
        "resources": file.resources,
        "after": file.after,
        "purpose": file.purpose,
        "since": file.since.map(format_time),
        "renewed": file.renewed.map(format_time),
        "lease": file.lease.map(format_duration_exact),
        "branch": file.branch,
        "pid": file.pid,
        "released": file.released.map(format_time),
        "touched": file.touched,
        "tree": yaml_tree(file.yaml.root.as_ref()),
        "diagnostics": located(path, text, &file.diagnostics),
    })
}

/// The texts of the files a plan edits, after its edits (a file the plan creates starts
/// empty). Fails when an edit does not apply.
pub fn apply_plan(texts: &RailTexts, plan: &ops::Plan) -> Result<BTreeMap<String, String>, String> {
    let mut out = BTreeMap::new();
    for file in &plan.edits {
        let claims_path = texts
            .claims
            .as_ref()
            .map(|f| f.path.as_str())
            .unwrap_or(rail_core::formats::rail_files::CLAIMS_MD);
        let original = if file.file == claims_path {
            texts.claims.as_ref().map(|f| f.text.clone())
        } else {
            texts
                .claim_files
                .iter()
                .find(|f| f.path == file.file)
                .map(|f| f.text.clone())
        };
        let original = match (original, file.create) {
            (Some(text), _) => text,
            (None, true) => String::new(),
            (None, false) => return Err(format!("the plan edits {} which is missing", file.file)),
        };
        let base = out.get(&file.file).cloned().unwrap_or(original);
        let edited = edit::apply(&base, &file.edits).map_err(|e| format!("{}: {e}", file.file))?;
        out.insert(file.file.clone(), edited);
    }
    Ok(out)
}

/// The request, the plan or refusal, and the edited files' texts.
pub fn rewrite_json(input: &RewriteInput) -> Value {
    let result = ops::plan(&input.texts, &input.facts, &input.session, &input.request);
    match result {
        Ok(plan) => {
            let files = apply_plan(&input.texts, &plan);
            json!({
                "session": input.session,
                "request": input.request,
                "outcome": "plan",
                "plan": plan,
                "refusal": null,
                "files": files.as_ref().ok(),
                "apply_error": files.err(),
            })
        }
        Err(refusal) => json!({
            "session": input.session,
            "request": input.request,
            "outcome": "refusal",
            "plan": null,
            "refusal": refusal,
            "files": null,
            "apply_error": null,
        }),
    }
}

pub fn board_json(texts: &RailTexts, facts: &Facts) -> Value {
    serde_json::to_value(rail_core::model::board::build(texts, facts)).unwrap()
}

/// The owner processes a host on `facts.host` would probe for a rail folder's claims before it
/// observed any (the fixture's `processes` left out), as the CLI asks (over the evaluation);
/// the conformance check compares it with the wasm `ownerProbes` over the board's claims, as
/// the VS Code extension asks.
pub fn owner_probes_json(dir: &Path) -> Value {
    let (texts, mut facts) = load_rail_dir(dir);
    facts.processes.clear();
    let eval = rail_core::model::Rail::load(&texts).evaluate(&facts);
    canonical(serde_json::to_value(eval.owner_probes(&facts)).unwrap())
}

pub fn merge_json(base: &str, ours: &str, theirs: &str) -> Value {
    serde_json::to_value(merge::driver(base, ours, theirs)).unwrap()
}

/// One line per located diagnostic: `file:line:col: severity[code]: message @L:C-L:C`, the
/// range zero-based in UTF-16 code units.
pub fn diagnostic_line(d: &Value) -> String {
    let located: Located = serde_json::from_value(d.clone()).unwrap();
    let r = located.range;
    format!(
        "{} @{}:{}-{}:{}",
        located.one_line(),
        r.start.line,
        r.start.character,
        r.end.line,
        r.end.character
    )
}

/// The diagnostics of an evaluated parse or yaml fixture.
pub fn diagnostics_of(value: &Value) -> Vec<Located> {
    value["diagnostics"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|d| serde_json::from_value(d.clone()).unwrap())
                .collect()
        })
        .unwrap_or_default()
}

/// How many diagnostics of a severity.
pub fn count_severity(value: &Value, severity: Severity) -> usize {
    diagnostics_of(value)
        .iter()
        .filter(|d| d.severity == severity)
        .count()
}

fn show(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(show).collect::<Vec<_>>().join(", ")
        ),
        other => other.to_string(),
    }
}

/// The `.expected` text of a parse fixture.
pub fn render_parse(value: &Value) -> String {
    let mut out = String::new();
    out.push_str(&format!("lines: {}\n", value["lines"]));
    for c in value["claims"].as_array().unwrap() {
        out.push_str(&format!(
            "claim {}: {} | {} | {} ({})\n",
            c["line"],
            show(&c["task"]),
            show(&c["session"]),
            show(&c["time"]),
            show(&c["form"])
        ));
        for key in [
            "lease",
            "branch",
            "pid",
            "after",
            "paths",
            "resources",
            "renewed",
            "purpose",
        ] {
            let v = &c[key];
            let empty = v.is_null() || v.as_array().is_some_and(|a| a.is_empty());
            if !empty {
                let shown = if key == "purpose" {
                    v.to_string()
                } else {
                    show(v)
                };
                out.push_str(&format!("  {key}: {shown}\n"));
            }
        }
        let fields = c["fields"].as_array().unwrap();
        if !fields.is_empty() {
            out.push_str(&format!("  fields: {}\n", show(&c["fields"])));
        }
    }
    for b in value["broken"].as_array().unwrap() {
        out.push_str(&format!("broken {}: task {}\n", b["line"], b["task"]));
    }
    for p in value["planned"].as_array().into_iter().flatten() {
        out.push_str(&format!(
            "planned {}: {} {}{}{}\n",
            p["line"],
            if p["done"].as_bool() == Some(true) {
                "[x]"
            } else {
                "[ ]"
            },
            p["task"].as_str().unwrap_or(""),
            p["after"]
                .as_array()
                .filter(|a| !a.is_empty())
                .map(|a| format!(
                    " after {}",
                    a.iter()
                        .filter_map(|x| x.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
                .unwrap_or_default(),
            p["paths"]
                .as_array()
                .filter(|a| !a.is_empty())
                .map(|a| format!(
                    " paths {}",
                    a.iter()
                        .filter_map(|x| x.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
                .unwrap_or_default(),
        ));
    }
    for m in value["conflict_markers"].as_array().unwrap() {
        out.push_str(&format!("conflict marker {m}\n"));
    }
    for d in value["diagnostics"].as_array().unwrap() {
        out.push_str(&diagnostic_line(d));
        out.push('\n');
    }
    out
}

fn render_tree(v: &Value, indent: usize, out: &mut String) {
    let pad = "  ".repeat(indent);
    let entry = |item: &Value| item.as_object().filter(|o| o.contains_key("key")).cloned();
    match v {
        Value::Array(items) if items.is_empty() => out.push_str(&format!("{pad}[]\n")),
        Value::Array(items) => {
            for item in items {
                if let Some(e) = entry(item) {
                    let key = e["key"].as_str().unwrap_or_default();
                    match &e["value"] {
                        Value::Array(a) if !a.is_empty() => {
                            out.push_str(&format!("{pad}{key}:\n"));
                            render_tree(&e["value"], indent + 1, out);
                        }
                        Value::Array(_) => out.push_str(&format!("{pad}{key}: []\n")),
                        leaf => out.push_str(&format!("{pad}{key}: {leaf}\n")),
                    }
                } else if item.is_array() {
                    out.push_str(&format!("{pad}-\n"));
                    render_tree(item, indent + 1, out);
                } else {
                    out.push_str(&format!("{pad}- {item}\n"));
                }
            }
        }
        leaf => out.push_str(&format!("{pad}{leaf}\n")),
    }
}

/// The `.expected` text of a yaml fixture.
pub fn render_yaml(value: &Value) -> String {
    let mut out = String::new();
    for key in [
        "owner",
        "task",
        "paths",
        "resources",
        "after",
        "purpose",
        "since",
        "renewed",
        "lease",
        "branch",
        "pid",
        "released",
        "touched",
    ] {
        let v = &value[key];
        let empty = v.is_null() || v.as_array().is_some_and(|a| a.is_empty());
        if !empty {
            let shown = if key == "purpose" {
                v.to_string()
            } else {
                show(v)
            };
            out.push_str(&format!("{key}: {shown}\n"));
        }
    }
    out.push_str("tree:\n");
    render_tree(&value["tree"], 1, &mut out);
    for d in value["diagnostics"].as_array().unwrap() {
        out.push_str(&diagnostic_line(d));
        out.push('\n');
    }
    out
}

fn pretty(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap();
    s.push('\n');
    s
}

/// The snapshot files of a fixture, by path, rendered from its evaluated JSON. For parse and
/// yaml fixtures that is `NAME.expected` beside the input; for the folder kinds:
///
/// - rewrite: on a plan, `expected.md` (claims.md afterwards), `expected-claims/NAME.yaml` for
///   each claim file the plan edits and `expected-plan.txt` (message, no-op flag, log line); on
///   a refusal, `expected-refusal.json`;
/// - board: `expected.json`;
/// - merge: `expected.md`, `expected-losers.json` when a claim lost, and
///   `expected-refusal.json` when the driver refuses a side holding conflict markers.
pub fn expected_outputs(fixture: &Fixture, value: &Value) -> Vec<(PathBuf, String)> {
    let dir = &fixture.path;
    match fixture.kind {
        Kind::Parse => vec![(dir.with_extension("expected"), render_parse(value))],
        Kind::Yaml => vec![(dir.with_extension("expected"), render_yaml(value))],
        Kind::Board => vec![(dir.join("expected.json"), pretty(value))],
        Kind::Merge => {
            let mut out = vec![(
                dir.join("expected.md"),
                value["text"].as_str().unwrap().to_string(),
            )];
            if value["losers"].as_array().is_some_and(|l| !l.is_empty()) {
                out.push((dir.join("expected-losers.json"), pretty(&value["losers"])));
            }
            if value.get("refused").is_some_and(|r| !r.is_null()) {
                out.push((dir.join("expected-refusal.json"), pretty(&value["refused"])));
            }
            out
        }
        Kind::Rewrite => {
            if value["outcome"] == "refusal" {
                return vec![(dir.join("expected-refusal.json"), pretty(&value["refusal"]))];
            }
            let plan = &value["plan"];
            let files = value["files"].as_object().cloned().unwrap_or_default();
            let claims_md = match files.get("claims.md") {
                Some(text) => text.as_str().unwrap().to_string(),
                None => read_opt(&dir.join("claims.md")).unwrap_or_default(),
            };
            let mut out = vec![(dir.join("expected.md"), claims_md)];
            for (path, text) in &files {
                if let Some(name) = path.strip_prefix("claims/") {
                    out.push((
                        dir.join("expected-claims").join(name),
                        text.as_str().unwrap().to_string(),
                    ));
                }
            }
            let mut summary = format!(
                "op: {}\nnoop: {}\nmessage: {}\nlog: {}\n",
                show(&plan["op"]),
                plan["noop"],
                show(&plan["message"]),
                show(&plan["log_line"])
            );
            if !plan["hint"].is_null() {
                summary.push_str(&format!("hint: {}\n", plan["hint"]));
            }
            for file in plan["edits"].as_array().unwrap() {
                summary.push_str(&format!(
                    "edits {}: {}{}\n",
                    show(&file["file"]),
                    file["edits"].as_array().unwrap().len(),
                    if file["create"] == true {
                        " (creates it)"
                    } else {
                        ""
                    }
                ));
            }
            out.push((dir.join("expected-plan.txt"), summary));
            out
        }
    }
}

/// Files in a fixture that look like snapshots (`expected*`, and `expected-claims/*`), so the
/// runner can tell stale ones from current ones.
pub fn existing_snapshots(fixture: &Fixture) -> Vec<PathBuf> {
    match fixture.kind {
        Kind::Parse | Kind::Yaml => {
            let p = fixture.path.with_extension("expected");
            if p.is_file() {
                vec![p]
            } else {
                Vec::new()
            }
        }
        _ => {
            let mut out = Vec::new();
            for path in sorted_entries(&fixture.path) {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                if name == "expected-claims" && path.is_dir() {
                    out.extend(sorted_entries(&path));
                } else if name.starts_with("expected") && path.is_file() {
                    out.push(path);
                }
            }
            out
        }
    }
}

/// The YAML reader's tree of a text, as JSON (for tests of the reader alone).
pub fn yaml_tree_json(text: &str) -> Value {
    yaml_tree(yaml::parse(text).root.as_ref())
}
