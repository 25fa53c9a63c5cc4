//! The tools `rail mcp` serves, each the operation its CLI command runs (`ops::write`,
//! `ops::read`, `ops::check`) called the way the CLI calls it: same context, same lock, same
//! result.
//!
//! A tool's arguments are a JSON object checked against its struct (unknown fields refused);
//! a result carries the command's `--json` document as `structuredContent` (always an object)
//! and its text as a `text` block. A refusal, bad arguments or a failure is a tool error
//! (`isError: true`) whose text says what happened and what to do, with core's hint worded as
//! the tool to call.

use std::path::PathBuf;

use rail_core::text::hint::Hint;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::context::Ctx;
use crate::fail::Fail;
use crate::ops::check::{self, Checked};
use crate::ops::read;
use crate::ops::write::{self, Changes, ClaimOptions, Touched};
use crate::out::outcome::Report;
use crate::out::render;

/// How `rail mcp` was started: the global flags every call's context is made from.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub rail: Option<PathBuf>,
    pub session: Option<String>,
    pub now: Option<String>,
    pub fetch: bool,
}

impl Options {
    /// A fresh context for one call, as a CLI process would make it: the session (`--session`,
    /// `RAIL_SESSION`, else the branch of the server's working directory) and the time are
    /// read at each call, so a long-lived server never acts on a stale clock or branch.
    pub fn ctx(&self, tool: Name) -> Result<Ctx, Fail> {
        let flags = crate::context::Flags {
            rail: self.rail.clone(),
            session: self.session.clone(),
            now: self.now.clone(),
            json: true,
        };
        let mut ctx = Ctx::new(flags, false)?;
        // The lock's owner record names what holds it.
        ctx.command_line = format!("rail mcp ({})", tool.as_str());
        Ok(ctx)
    }
}

/// The tools, in the order `tools/list` gives them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Name {
    Claim,
    Release,
    Renew,
    Take,
    Update,
    Who,
    Check,
    Board,
    Ready,
    LockStatus,
}

impl Name {
    pub const ALL: [Name; 10] = [
        Name::Claim,
        Name::Release,
        Name::Renew,
        Name::Take,
        Name::Update,
        Name::Who,
        Name::Check,
        Name::Board,
        Name::Ready,
        Name::LockStatus,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Name::Claim => "claim",
            Name::Release => "release",
            Name::Renew => "renew",
            Name::Take => "take",
            Name::Update => "update",
            Name::Who => "who",
            Name::Check => "check",
            Name::Board => "board",
            Name::Ready => "ready",
            Name::LockStatus => "lock_status",
        }
    }

    pub fn parse(name: &str) -> Option<Name> {
        Name::ALL.into_iter().find(|n| n.as_str() == name)
    }

    fn changes_rail(self) -> bool {
        matches!(
            self,
            Name::Claim | Name::Release | Name::Renew | Name::Take | Name::Update
        )
    }
}

/// Arguments of `claim` (`rail claim TASK …`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClaimInput {
    /// The task id, e.g. `auth-refresh` (letters, digits, `-`, `_`, `.`, `/`).
    pub task: String,
    /// Paths, directories or globs this task will change, e.g. `src/auth/**`.
    #[serde(default)]
    pub paths: Vec<String>,
    /// Shared resources this task uses, e.g. `port:3000` (`shared:` prefix for shared use).
    #[serde(default)]
    pub resources: Vec<String>,
    /// What the task is for (one line, markdown).
    #[serde(default)]
    pub purpose: Option<String>,
    /// The lease, e.g. `45m` or `4h` (default: rail.yaml `lease`, else 2h).
    #[serde(default)]
    pub lease: Option<String>,
    /// Tasks this one waits for.
    #[serde(default)]
    pub after: Vec<String>,
    /// The owning process as PID or PID@HOST (default: $RAIL_OWNER_PID of the server), so a
    /// dead owner frees the claim at once.
    #[serde(default)]
    pub pid: Option<String>,
    /// The branch whose commits keep this claim alive (default: the branch named like the session).
    #[serde(default)]
    pub branch: Option<String>,
    /// Claim even over another live session's work in flight (its files changed and not
    /// merged); that session is told. Without it such a claim is refused, naming the work.
    #[serde(default)]
    pub over_flight: bool,
}

/// Arguments of `release` (`rail release TASK …`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReleaseInput {
    /// The task to release (the session's own claim).
    pub task: String,
    /// Record these files as touched instead of asking git.
    #[serde(default)]
    pub touched: Vec<String>,
    /// Record no touched files.
    #[serde(default)]
    pub no_touched: bool,
    /// The branch the session forked from, for the touched-files diff (default: the main
    /// checkout's branch).
    #[serde(default)]
    pub base: Option<String>,
}

/// Arguments of `renew`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskInput {
    /// The task whose lease runs again from now (the session's own claim).
    pub task: String,
}

/// Arguments of `take`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TakeInput {
    /// The task whose stale claim to take over (refused while it is live).
    pub task: String,
    /// Why (recorded in the log; default: why the claim is stale).
    #[serde(default)]
    pub reason: Option<String>,
    /// The branch whose commits keep the taken claim alive (default: the branch named like the session).
    #[serde(default)]
    pub branch: Option<String>,
}

/// Arguments of `update`: each field given replaces what the claim has.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateInput {
    /// The task to change (the session's own claim).
    pub task: String,
    /// Replace the paths with these (`[]` removes them all; leave out to keep them).
    #[serde(default)]
    pub paths: Option<Vec<String>>,
    /// Replace the resources with these (`[]` removes them all; leave out to keep them).
    #[serde(default)]
    pub resources: Option<Vec<String>>,
    /// Replace the purpose.
    #[serde(default)]
    pub purpose: Option<String>,
    /// Add these paths to those the claim holds (kept), e.g. one more file the task needs.
    #[serde(default)]
    pub add_paths: Vec<String>,
    /// Add these resources to those the claim holds (kept).
    #[serde(default)]
    pub add_resources: Vec<String>,
    /// Add paths even over another live session's work in flight; that session is told.
    #[serde(default)]
    pub over_flight: bool,
}

/// Arguments of `who`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WhoInput {
    /// Paths to ask about, relative to the repository root.
    pub paths: Vec<String>,
}

/// Arguments of `check` (`rail check …`; the pre-push form reads stdin and is the CLI's only).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckInput {
    /// Files to check (default: everything the session changed since it forked).
    #[serde(default)]
    pub files: Vec<String>,
    /// Check the files staged for commit instead.
    #[serde(default)]
    pub staged: bool,
    /// Report changes outside the session's declared paths without failing.
    #[serde(default)]
    pub warn_drift: bool,
    /// The branch the session forked from (default: the main checkout's branch).
    #[serde(default)]
    pub base: Option<String>,
}

/// Arguments of `ready`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadyInput {
    /// Show every backlog task with its status, not only the ready ones.
    #[serde(default)]
    pub all: bool,
}

/// No arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoInput {}

/// The tool list: names, descriptions, argument schemas, hints for clients.
pub fn list() -> Vec<Tool> {
    Name::ALL.into_iter().map(describe).collect()
}

fn describe(name: Name) -> Tool {
    use rmcp::handler::server::tool::schema_for_type as schema;
    let (title, description, input) = match name {
        Name::Claim => (
            "Claim a task",
            "Claim a task for this session before editing its files: name the paths (globs) and resources it will change. Refused, naming the holder, if another session holds the task, an overlapping path or a resource.",
            schema::<ClaimInput>(),
        ),
        Name::Release => (
            "Release a claim",
            "Release this session's claim when the work is done; records the files touched (from git, unless given).",
            schema::<ReleaseInput>(),
        ),
        Name::Renew => (
            "Renew a claim",
            "Renew this session's claim: its lease runs again from now.",
            schema::<TaskInput>(),
        ),
        Name::Take => (
            "Take over a stale claim",
            "Take over another session's stale claim (refused while it is live).",
            schema::<TakeInput>(),
        ),
        Name::Update => (
            "Update a claim",
            "Change the paths, resources or purpose of this session's claim; a field given replaces the claim's.",
            schema::<UpdateInput>(),
        ),
        Name::Who => (
            "Who holds these paths",
            "Which sessions' claims cover each path, with the task, the claim's state and the matching pattern.",
            schema::<WhoInput>(),
        ),
        Name::Check => (
            "Check changes against claims",
            "Check this session's changed files against its claims: files outside its declared paths, or inside another session's. An error result when the check fails.",
            schema::<CheckInput>(),
        ),
        Name::Board => (
            "The board",
            "Every claim with its state and lease, conflicts, resources, sessions and the backlog: the text board, and the board model (what `rail board --json` prints) as structured content.",
            schema::<NoInput>(),
        ),
        Name::Ready => (
            "Ready backlog tasks",
            "Backlog tasks (`- [ ] task` lines of claims.md) whose dependencies are released and that nobody holds.",
            schema::<ReadyInput>(),
        ),
        Name::LockStatus => (
            "Rail lock status",
            "Who holds the rail lock, if anyone, and whether that process is alive.",
            schema::<NoInput>(),
        ),
    };
    let read_only = !name.changes_rail();
    let annotations = ToolAnnotations::with_title(title)
        .read_only(read_only)
        .destructive(matches!(name, Name::Release | Name::Take | Name::Update))
        .idempotent(read_only || matches!(name, Name::Claim | Name::Renew))
        .open_world(false);
    Tool::new(name.as_str(), description, input)
        .with_title(title)
        .annotate(annotations)
}

/// What a tool answers: its text and its structured content.
struct Answer {
    text: String,
    structured: Value,
    error: bool,
}

impl Answer {
    fn ok(text: String, structured: Value) -> Answer {
        Answer {
            text,
            structured,
            error: false,
        }
    }
}

/// Runs tool `name` with `arguments` and returns its result; never panics on bad input.
pub fn call(opts: &Options, name: Name, arguments: JsonObject) -> CallToolResult {
    let answer = run(opts, name, Value::Object(arguments)).unwrap_or_else(failure);
    let content = vec![ContentBlock::text(answer.text)];
    let mut result = if answer.error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    result.structured_content = Some(answer.structured);
    result
}

fn args<T: serde::de::DeserializeOwned>(name: Name, value: Value) -> Result<T, Fail> {
    serde_json::from_value(value).map_err(|e| {
        Fail::usage(format!(
            "{}: bad arguments: {e} (the tool's input schema lists them)",
            name.as_str()
        ))
    })
}

fn run(opts: &Options, name: Name, arguments: Value) -> Result<Answer, Fail> {
    if name.changes_rail() {
        change(opts, name, arguments)
    } else {
        read_tool(opts, name, arguments)
    }
}

/// A tool that changes the rail, as its command does.
fn change(opts: &Options, name: Name, arguments: Value) -> Result<Answer, Fail> {
    // Arguments first: a malformed call is told so whatever state the rail is in.
    match name {
        Name::Claim => {
            let a: ClaimInput = args(name, arguments)?;
            let ctx = opts.ctx(name)?;
            let claim = ClaimOptions {
                paths: a.paths,
                resources: a.resources,
                purpose: a.purpose,
                lease: a.lease,
                after: a.after,
                pid: a.pid,
                branch: a.branch,
                over_flight: a.over_flight,
            };
            write::claim(&ctx, &a.task, &claim).map(planned)
        }
        Name::Release => {
            let a: ReleaseInput = args(name, arguments)?;
            let ctx = opts.ctx(name)?;
            let touched = if a.no_touched {
                Touched::Nothing
            } else if !a.touched.is_empty() {
                Touched::Named(a.touched)
            } else {
                Touched::Changed {
                    base: a.base.as_deref(),
                }
            };
            write::release(&ctx, &a.task, touched).map(planned)
        }
        Name::Renew => {
            let a: TaskInput = args(name, arguments)?;
            write::renew(&opts.ctx(name)?, &a.task).map(planned)
        }
        Name::Take => {
            let a: TakeInput = args(name, arguments)?;
            write::take(&opts.ctx(name)?, &a.task, a.reason, a.branch).map(planned)
        }
        Name::Update => {
            let a: UpdateInput = args(name, arguments)?;
            let ctx = opts.ctx(name)?;
            let changes = Changes {
                paths: a.paths,
                resources: a.resources,
                purpose: a.purpose,
                add_paths: a.add_paths,
                add_resources: a.add_resources,
                over_flight: a.over_flight,
            };
            write::update(&ctx, &a.task, changes).map(planned)
        }
        _ => read_tool(opts, name, arguments),
    }
}

/// A tool that reads the rail: its answer as text and as data, with a shared rail's age.
fn read_tool(opts: &Options, name: Name, arguments: Value) -> Result<Answer, Fail> {
    // Arguments first: a malformed call is told so whatever state the rail is in.
    match name {
        Name::Who => {
            let a: WhoInput = args(name, arguments)?;
            if a.paths.is_empty() {
                return Err(Fail::usage("who: name at least one path in `paths`"));
            }
            let ctx = opts.ctx(name)?;
            let note = before_read(opts, &ctx, false)?;
            let answers = read::who_holds(&ctx, &a.paths)?;
            Ok(Answer::ok(
                with_note(render::who_text(&answers, ctx.now), note),
                json!({ "answers": answers }),
            ))
        }
        Name::Check => {
            let a: CheckInput = args(name, arguments)?;
            let ctx = opts.ctx(name)?;
            let note = before_read(opts, &ctx, false)?;
            let check = check::CheckArgs {
                staged: a.staged,
                pre_push: false,
                warn_drift: a.warn_drift,
                base: a.base,
                files: a.files,
            };
            match check::check_scope(&ctx, &check)? {
                Checked::Bypassed => Ok(Answer::ok(
                    "check bypassed by RAIL_BYPASS; this is recorded in claims.log".into(),
                    json!({ "bypassed": true }),
                )),
                Checked::Judged { report, failure } => {
                    let mut text = render::scope(&report);
                    if let Some(failure) = &failure {
                        text = format!("{failure}\n{text}");
                    }
                    Ok(Answer {
                        text: with_note(text, note),
                        structured: serde_json::to_value(&report).unwrap_or_default(),
                        error: failure.is_some(),
                    })
                }
            }
        }
        Name::Board => {
            let _: NoInput = args(name, arguments)?;
            let ctx = opts.ctx(name)?;
            let note = before_read(opts, &ctx, true)?;
            let board = read::board_model(&ctx)?;
            let text = render::board(&board, &ctx.rail.root, false);
            Ok(Answer::ok(
                with_note(text, note),
                serde_json::to_value(&board).unwrap_or_default(),
            ))
        }
        Name::Ready => {
            let a: ReadyInput = args(name, arguments)?;
            let ctx = opts.ctx(name)?;
            let note = before_read(opts, &ctx, false)?;
            let ready = read::ready_tasks(&ctx, a.all)?;
            Ok(Answer::ok(
                with_note(render::ready_text(ready.backlog, &ready.tasks), note),
                serde_json::to_value(&ready).unwrap_or_default(),
            ))
        }
        Name::LockStatus => {
            let _: NoInput = args(name, arguments)?;
            let status = read::lock_status(&opts.ctx(name)?)?;
            let text = match &status.found {
                None => "the rail lock is free".to_string(),
                Some((_, verdict)) => {
                    let mut text = format!(
                        "the rail lock is {}",
                        say(&verdict.message, verdict.hint.as_ref())
                    );
                    if verdict.breakable {
                        text.push_str(
                            "\nit may be broken: the next change breaks it, or `rail lock --break`",
                        );
                    }
                    text
                }
            };
            Ok(Answer::ok(text, status.to_json()))
        }
        _ => change(opts, name, arguments),
    }
}

/// A shared rail's reads say how old the local copy is (and fetch it first with `--fetch`),
/// as the CLI's reads do.
/// `shown`: the answer is a board, which says how far the shared rail is verified itself.
fn before_read(opts: &Options, ctx: &Ctx, shown: bool) -> Result<Option<String>, Fail> {
    match ctx.remote() {
        Ok(Some(remote)) => crate::shared::before_read(ctx, remote, opts.fetch, shown),
        Ok(None) => Ok(None),
        // Refused: the local copy is shown, and why it is not the shared one.
        Err(refused) => Ok(Some(format!("{}; showing the local rail", refused.message))),
    }
}

fn with_note(text: String, note: Option<String>) -> String {
    match note {
        Some(note) => format!("{note}\n{text}"),
        None => text,
    }
}

/// An operation that was done: core's message with its hint as a tool call, the plan as data
/// (`{"ok": true, "plan": …}`, what `--json` prints).
fn planned(outcome: Report) -> Answer {
    let json = outcome.json.unwrap_or_else(|| json!({ "ok": true }));
    let text = core_message(&json["plan"]).unwrap_or(outcome.text);
    Answer::ok(text, json)
}

/// A failure as a tool error: a refusal's message (which names the holder) with its hint
/// worded as the tool to call; the same JSON the CLI prints with `--json`.
fn failure(f: Fail) -> Answer {
    let refusal = f.json.as_ref().map(|j| &j["refusal"]);
    let text = refusal
        .and_then(core_message)
        .unwrap_or_else(|| f.message.clone());
    let structured = match f.json {
        Some(Value::Object(o)) => Value::Object(o),
        Some(other) => json!({ "ok": false, "code": f.code, "error": f.message, "detail": other }),
        None => json!({ "ok": false, "code": f.code, "error": f.message }),
    };
    Answer {
        text,
        structured,
        error: true,
    }
}

/// Core's `message` in a plan's or refusal's JSON, followed by its `hint` worded for MCP.
///
/// The JSON, not the typed value: on a shared rail the plan or refusal may have been made by
/// another Rail process (the exchange's leader) and reaches this one as JSON.
fn core_message(value: &Value) -> Option<String> {
    let message = value.get("message")?.as_str()?;
    Some(format!("{message}{}", how(value.get("hint"))))
}

/// What to do about a hint (core's `Hint` as JSON: `{"kind": "take", "task": "auth"}`), worded
/// as the tool to call; the CLI words the same hints as command lines (`crate::out::hint::say`).
fn how(hint: Option<&Value>) -> String {
    let Some(hint) = hint.filter(|h| h.is_object()) else {
        return String::new();
    };
    let task = |key: &str| {
        hint.get(key)
            .and_then(Value::as_str)
            .map(|t| serde_json::to_string(t).unwrap_or_default())
    };
    match (hint["kind"].as_str().unwrap_or(""), task("task")) {
        ("take", Some(t)) => format!(": call `take` with {{\"task\": {t}}}"),
        ("claim", Some(t)) => format!(": call `claim` with {{\"task\": {t}}}"),
        ("renew-or-update", _) => {
            "; call `renew` to extend it or `update` to change its paths".to_string()
        }
        ("validate", _) => " (`rail validate` lists the problems)".to_string(),
        ("merge-driver", _) => " (rail's merge driver avoids these: `rail init`)".to_string(),
        ("force-break", _) => {
            ": break it only with `rail lock --break --force` after asking its owner".to_string()
        }
        ("add-paths", Some(t)) => format!(
            " (call `update` with {{\"task\": {t}, \"add_paths\": [...]}}: it keeps the paths held)"
        ),
        ("add-paths", None) => {
            ": call `update` with the task and `add_paths` (it keeps the paths held).".to_string()
        }
        ("claim-first", _) => ": call `claim` with the task and its paths first.".to_string(),
        ("fix-check", Some(t)) => format!(
            ". Fix the check command (rail.yaml `check:`) and run `rail done {}` again",
            t.trim_matches('"')
        ),
        ("other-work", _) => {
            let take = task("take")
                .map(|t| format!("; if its claim goes stale, call `take` with {{\"task\": {t}}}"))
                .unwrap_or_default();
            format!(" (other work: the `board` and `ready` tools{take}).")
        }
        _ => String::new(),
    }
}

/// `message` followed by what to do about `hint`, worded as the tool to call.
pub fn say(message: &str, hint: Option<&Hint>) -> String {
    let hint = hint.and_then(|h| serde_json::to_value(h).ok());
    format!("{message}{}", how(hint.as_ref()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_an_object_schema_and_a_unique_name() {
        let tools = list();
        assert_eq!(tools.len(), Name::ALL.len());
        for (tool, name) in tools.iter().zip(Name::ALL) {
            assert_eq!(tool.name, name.as_str());
            assert_eq!(Name::parse(&tool.name), Some(name));
            assert_eq!(tool.input_schema.get("type"), Some(&json!("object")));
        }
        let claim = &tools[0].input_schema;
        assert_eq!(claim["required"], json!(["task"]));
        assert_eq!(claim["additionalProperties"], json!(false));
    }

    #[test]
    fn bad_arguments_are_a_usage_error_naming_the_tool() {
        let e = args::<ClaimInput>(Name::Claim, json!({ "task": "a", "path": ["x"] })).unwrap_err();
        assert_eq!(e.code, crate::fail::USAGE);
        assert!(e
            .message
            .starts_with("claim: bad arguments: unknown field `path`"));
        let e = args::<ClaimInput>(Name::Claim, json!({})).unwrap_err();
        assert!(e.message.contains("missing field `task`"), "{}", e.message);
    }

    #[test]
    fn hints_read_as_tool_calls() {
        assert_eq!(
            say(
                "m",
                Some(&Hint::Take {
                    task: "a\"b".into()
                })
            ),
            "m: call `take` with {\"task\": \"a\\\"b\"}"
        );
        assert_eq!(say("m", None), "m");
    }
}
