//! Agents follow the rail: the agents' edit hooks, the instruction snippet and the hook settings.
//!
//! `rail hook claude|codex|cursor|gemini|copilot` reads one hook payload on stdin. What the payload means
//! and how each agent must be answered are core's rules (`rail_core::agent`); the decision is
//! core's one hook judge (`rail_core::hook`). This host reads stdin, follows symlinks, reads the
//! rail, renews or releases, and writes the answer core worded. Whatever happens it answers, and
//! within a bound: a watchdog answers for it when the bound passes — for a tool call as a failure
//! to check (denied by default, rail.yaml `hook_failure: warn` to only warn), for a Stop or
//! session end in that event's own terms (the agent always stops).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use clap::{Args, Subcommand};
use rail_core::agent::{self, Agent, Answer, Event, Harness, Outcome};
use rail_core::config::{HookFailure, OnStop};
use rail_core::hook::{self, Actor, Decision};
use rail_core::jsonc;
use rail_core::log::{Event as LogEvent, LogEntry};
use rail_core::model::Rail;
use rail_core::ops::Request;
use rail_core::setup::{self, FileChanges, Target};
use serde_json::Value;

use crate::context::{Commits, Ctx};
use crate::fail::{self, Fail};
use crate::repo;

#[derive(Subcommand, Debug)]
pub enum HookKind {
    /// Claude Code: PreToolUse (Edit, Write, MultiEdit, NotebookEdit, Bash, MCP), Stop,
    /// SessionEnd; also VS Code's agent and Cursor, which load Claude Code's settings file.
    Claude,
    /// Codex CLI: PreToolUse (Bash, apply_patch, MCP), Stop, SessionEnd.
    Codex,
    /// Cursor: preToolUse (Write, Delete, Shell, MCP), beforeShellExecution, stop, sessionEnd.
    Cursor,
    /// Gemini CLI: BeforeTool (write_file, replace, run_shell_command, MCP), AfterAgent,
    /// SessionEnd.
    Gemini,
    /// GitHub Copilot CLI: preToolUse (bash, create, edit, apply_patch, MCP), agentStop,
    /// sessionEnd; also VS Code's agent, which loads the same `.github/hooks` files.
    Copilot {
        /// The event the hook is installed for: Copilot's camelCase payloads do not name it.
        #[arg(long, value_name = "EVENT")]
        event: Option<String>,
    },
}

impl HookKind {
    pub fn agent(&self) -> Agent {
        match self {
            HookKind::Claude => Agent::Claude,
            HookKind::Codex => Agent::Codex,
            HookKind::Cursor => Agent::Cursor,
            HookKind::Gemini => Agent::Gemini,
            HookKind::Copilot { .. } => Agent::Copilot,
        }
    }

    /// The event named on the command line, for payloads that name none.
    pub fn event(&self) -> Option<&str> {
        match self {
            HookKind::Copilot { event } => event.as_deref(),
            _ => None,
        }
    }
}

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

/// A tool call Rail could not check: denied (or only warned about, by config), with the reason.
fn fail_safe(reason: &str, rail_dir: Option<&Path>) -> Outcome {
    match failure_mode(rail_dir) {
        HookFailure::Deny => Outcome::Deny(format!(
            "Rail could not check this edit: {reason}. It is denied because Rail cannot tell whether it is safe (set `hook_failure: warn` in rail.yaml to only warn)."
        )),
        HookFailure::Warn => Outcome::Warn(format!("Rail could not check this edit: {reason}")),
    }
}

/// Only one answer is ever written: the first of the hook and its watchdog.
static ANSWERED: Mutex<bool> = Mutex::new(false);

/// Writes the answer (unless one was written already) and returns the exit code.
fn emit(answer: &Answer) -> Option<i32> {
    let mut answered = ANSWERED.lock().unwrap_or_else(|e| e.into_inner());
    if *answered {
        return None;
    }
    *answered = true;
    if let Some(out) = &answer.stdout {
        outln_raw!("{out}");
    }
    if let Some(err) = &answer.stderr {
        errln!("{err}");
    }
    Some(answer.code)
}

/// What the watchdog answers when the bound passes.
#[derive(Clone, Debug)]
struct Watch {
    deadline: Instant,
    /// The bound the deadline stands for.
    bound: Duration,
    harness: Harness,
    /// The lifecycle event's name, for a Stop or session end.
    lifecycle: Option<String>,
}

/// The rail's directory, once found (the watchdog's failure mode is read from its rail.yaml).
static RAIL_DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// What the hook is answering, for the panic hook.
static CURRENT: Mutex<Option<Watch>> = Mutex::new(None);

/// The answer when the hook cannot finish (`why`): a tool call fails safe; a Stop or session end
/// says so and lets the agent stop.
fn failure_outcome(watch: &Watch, why: &str) -> Outcome {
    match &watch.lifecycle {
        Some(event) => Outcome::Lifecycle(Some(format!(
            "Rail: {event} was not finished ({why}); the session's claims were left as they were and keep their lease"
        ))),
        None => fail_safe(why, RAIL_DIR.get().map(PathBuf::as_path)),
    }
}

/// A panic is a failure like any other: the agent gets the fail-safe answer in its own format,
/// not an exit code it would read as "go on" (Claude Code runs the tool on exit 101).
fn answer_panics() {
    std::panic::set_hook(Box::new(|info| {
        let watch = CURRENT.lock().ok().and_then(|w| w.clone());
        let Some(watch) = watch else { return };
        // The answer may be half written already: then nothing more is said.
        let Ok(mut answered) = ANSWERED.try_lock() else {
            return;
        };
        if *answered {
            return;
        }
        *answered = true;
        let answer = agent::answer(
            watch.harness,
            &failure_outcome(&watch, &format!("an internal error: {info}")),
        );
        if let Some(out) = &answer.stdout {
            outln_raw!("{out}");
        }
        if let Some(err) = &answer.stderr {
            errln!("{err}");
        }
        std::process::exit(answer.code);
    }));
}

fn watchdog(mut watch: Watch, updates: mpsc::Receiver<Watch>) {
    loop {
        let now = Instant::now();
        if now >= watch.deadline {
            break;
        }
        match updates.recv_timeout(watch.deadline - now) {
            Ok(w) => watch = w,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                std::thread::sleep(watch.deadline.saturating_duration_since(Instant::now()))
            }
        }
    }
    let took = watch.bound.as_millis();
    let why = match &watch.lifecycle {
        Some(_) => format!(
            "it took longer than {took} ms: the rail lock is busy or the rail is slow to read"
        ),
        None => format!("the check took longer than {took} ms"),
    };
    let outcome = failure_outcome(&watch, &why);
    if let Some(code) = emit(&agent::answer(watch.harness, &outcome)) {
        std::process::exit(code);
    }
}

fn set_current(watch: &Watch) {
    if let Ok(mut current) = CURRENT.lock() {
        *current = Some(watch.clone());
    }
}

/// Entry point of `rail hook <agent>`; returns the process exit code (hooks speak through exit
/// codes and stdout).
///
/// The rail is found from where the agent works (the payload's `cwd` or workspace root), not
/// from wherever the agent started the hook process (Cursor may start it with no useful cwd).
pub fn run(kind: &HookKind, make_ctx: impl FnOnce() -> Result<Ctx, Fail>) -> i32 {
    let agent = kind.agent();
    let start = Instant::now();
    let default_harness = agent::read(agent, "").harness;
    let (tx, rx) = mpsc::channel();
    {
        let watch = Watch {
            deadline: start + hook_timeout(),
            bound: hook_timeout(),
            harness: default_harness,
            lifecycle: None,
        };
        set_current(&watch);
        answer_panics();
        std::thread::spawn(move || watchdog(watch, rx));
    }
    let answer = |outcome: Outcome, harness: Harness| {
        emit(&agent::answer(harness, &outcome)).unwrap_or(fail::OK)
    };

    let mut input = String::new();
    if let Err(e) = std::io::stdin()
        .take(16 * 1024 * 1024)
        .read_to_string(&mut input)
    {
        return answer(
            fail_safe(&format!("cannot read the hook input: {e}"), None),
            default_harness,
        );
    }
    let call = agent::read_event(agent, &input, kind.event());
    let harness = call.harness;
    if let Some(dir) = agent_dir(&call).filter(|d| d.is_dir()) {
        let _ = std::env::set_current_dir(dir);
    }
    let mut ctx_result = make_ctx();
    // Guard status: this session's agent runs Rail's hook (shown on the board).
    if let Ok(ctx) = &ctx_result {
        if let (Some(repo), Ok(Acting::Session(session))) =
            (&ctx.repo, acting_at(ctx, &call_cwd(&call)))
        {
            let seen = rail_core::heartbeat::HookSeen {
                agent: agent.name().to_string(),
                version: None,
                at: ctx.now,
            };
            crate::heartbeat::mark(repo, &session, &seen);
        }
    }
    let rail_dir = ctx_result.as_ref().ok().map(|c| c.rail.root.clone());
    if let Some(dir) = &rail_dir {
        let _ = RAIL_DIR.set(dir.clone());
    }
    if call.event.is_lifecycle() {
        // A Stop or session end has its own, shorter limit, and its own answer on timeout.
        let budget = Duration::from_millis(agent::lifecycle_budget_ms(harness, &call.event))
            .min(hook_timeout());
        let watch = Watch {
            deadline: start + budget,
            bound: budget,
            harness,
            lifecycle: Some(call.event_name.clone()),
        };
        set_current(&watch);
        let _ = tx.send(watch);
        if let Ok(ctx) = ctx_result.as_mut() {
            ctx.lock_cap = Some(Duration::from_millis(agent::lifecycle_lock_wait_ms(
                harness,
                &call.event,
            )));
        }
    } else {
        let watch = Watch {
            deadline: start + hook_timeout(),
            bound: hook_timeout(),
            harness,
            lifecycle: None,
        };
        set_current(&watch);
        let _ = tx.send(watch);
    }
    if std::env::var_os("RAIL_TEST_HOOK_PANIC").is_some() {
        panic!("RAIL_TEST_HOOK_PANIC is set (tests of the panic answer)");
    }
    let outcome = match &call.event {
        Event::Malformed(why) => fail_safe(why, rail_dir.as_deref()),
        Event::Pass => Outcome::Allow,
        // A call that writes nothing needs no rail.
        Event::Tool {
            targets,
            unanalysed,
            ..
        } if targets.is_empty() && unanalysed.is_empty() => Outcome::Allow,
        Event::Tool {
            targets,
            unanalysed,
            ..
        } => match &ctx_result {
            Ok(ctx) => pre_tool_use(ctx, agent, &call, targets, unanalysed),
            Err(f) => fail_safe(&f.message, None),
        },
        Event::Stop | Event::SessionEnd => Outcome::Lifecycle(match &ctx_result {
            Ok(ctx) => on_lifecycle(ctx, &call).err().map(|e| {
                format!(
                    "Rail: at {}, the session's claims were left as they were: {e}",
                    call.event_name
                )
            }),
            Err(f) => Some(format!("Rail: at {}: {}", call.event_name, f.message)),
        }),
    };
    let code = answer(outcome, harness);
    drop(tx);
    code
}

/// Where the agent works, as the payload or the agent's environment says.
fn agent_dir(call: &agent::Call) -> Option<PathBuf> {
    call.cwd.as_deref().map(PathBuf::from).or_else(|| {
        [
            "CURSOR_PROJECT_DIR",
            "CLAUDE_PROJECT_DIR",
            "GEMINI_PROJECT_DIR",
        ]
        .iter()
        .find_map(|v| std::env::var_os(v).filter(|d| !d.is_empty()))
        .map(PathBuf::from)
    })
}

/// Where the agent works, else this process's working directory.
fn call_cwd(call: &agent::Call) -> PathBuf {
    agent_dir(call)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default()
}

fn pre_tool_use(
    ctx: &Ctx,
    agent: Agent,
    call: &agent::Call,
    raw_targets: &[String],
    unanalysed: &[String],
) -> Outcome {
    let root = Some(ctx.rail.root.as_path());
    let cwd = call_cwd(call);
    let acting = match acting_at(ctx, &cwd) {
        Ok(a) => a,
        Err(e) => return fail_safe(&e, root),
    };
    let cwd = cwd.canonicalize().unwrap_or(cwd);
    let landings: Vec<(String, hook::Landing)> = raw_targets
        .iter()
        .map(|t| (t.clone(), land(&cwd, t)))
        .collect();
    // This repository's verdict (with what could not be judged), then one per other repository
    // a path lands in (a Cursor workspace's second root, a Gemini write into a station from
    // another checkout): each path is judged against the rail of the repository it lands in.
    let primary = match verdict_in(ctx, &acting, &landings, unanalysed) {
        Ok(v) => v,
        Err(e) => return fail_safe(&e, root),
    };
    let mut judged: Vec<(Ctx, hook::HookVerdict)> = Vec::new();
    let mut elsewhere: Vec<(crate::repo::Repo, Vec<(String, hook::Landing)>)> = Vec::new();
    let here = ctx.repo.as_ref().map(|r| r.common_dir.clone());
    let ours = checkouts(ctx);
    for (written, landing) in &landings {
        let hook::Landing::At(at) = landing else {
            continue;
        };
        if hook::in_checkouts(&ours, at) {
            continue;
        }
        let Some(other) = repo_of(Path::new(at)) else {
            continue;
        };
        // A repository with no rail has no claims to judge against.
        let has_rail = [
            rail_core::model::CLAIMS_MD,
            rail_core::model::CONFIG_FILE,
            rail_core::model::CLAIMS_DIR,
        ]
        .iter()
        .any(|f| std::fs::symlink_metadata(other.main_checkout().join(f)).is_ok());
        if Some(&other.common_dir) == here.as_ref() || !has_rail {
            continue;
        }
        match elsewhere
            .iter_mut()
            .find(|(r, _)| r.common_dir == other.common_dir)
        {
            Some((_, list)) => list.push((written.clone(), landing.clone())),
            None => elsewhere.push((other, vec![(written.clone(), landing.clone())])),
        }
    }
    for (other, list) in elsewhere {
        let octx = ctx.for_repo(other);
        match verdict_in(&octx, &acting, &list, &[]) {
            Ok(Some(v)) => judged.push((octx, v)),
            Ok(None) => {}
            Err(e) => return fail_safe(&e, root),
        }
    }
    for (c, v) in &judged {
        if v.decision == Decision::Deny {
            log_refusal(c, acting.session(), agent, v);
        }
    }
    if let Some(v) = primary.as_ref().filter(|v| v.decision == Decision::Deny) {
        log_refusal(ctx, acting.session(), agent, v);
    }
    let all: Vec<hook::HookVerdict> = primary
        .into_iter()
        .chain(judged.into_iter().map(|(_, v)| v))
        .collect();
    if all.is_empty() {
        return Outcome::Allow;
    }
    let verdict = hook::combine(all);
    let message = || crate::hint::say(&verdict.message, verdict.hint.as_ref());
    match verdict.decision {
        Decision::Deny => Outcome::Deny(message()),
        Decision::Warn => Outcome::Warn(message()),
        Decision::Allow => Outcome::Allow,
    }
}

/// Every checkout of `ctx`'s repository, symlinks resolved.
fn checkouts(ctx: &Ctx) -> Vec<String> {
    ctx.repo
        .as_ref()
        .map(|r| {
            repo::worktrees(r)
                .into_iter()
                .map(|(p, _)| p.canonicalize().unwrap_or(p))
                .map(|p| p.display().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The repository holding `at` (which may not exist yet): found from its nearest existing
/// directory by reading `.git` files, as for the working directory.
fn repo_of(at: &Path) -> Option<crate::repo::Repo> {
    let mut dir = at;
    loop {
        if dir.is_dir() {
            return repo::discover(dir);
        }
        dir = dir.parent()?;
    }
}

/// `ctx`'s rail's verdict on the landings in its repository's checkouts, and on `unanalysed`;
/// `None` when nothing of it is this rail's to judge.
fn verdict_in(
    ctx: &Ctx,
    acting: &Acting,
    landings: &[(String, hook::Landing)],
    unanalysed: &[String],
) -> Result<Option<hook::HookVerdict>, String> {
    // Every checkout of this repository, symlinks resolved: a path is judged in whichever one
    // it lands in.
    let worktrees = checkouts(ctx);
    let rail_root = ctx
        .rail
        .root
        .canonicalize()
        .ok()
        .map(|p| p.display().to_string());
    let landed = hook::land(&worktrees, rail_root.as_deref(), landings);
    let mut unanalysed = unanalysed.to_vec();
    unanalysed.extend(landed.unanalysed);
    if landed.targets.is_empty() && unanalysed.is_empty() {
        return Ok(None);
    }
    // Not claims.log: it only grows, and judging never reads it.
    let texts = ctx.read_claims().map_err(|f| f.message)?;
    let mode = crate::context::config_of(Some(&texts)).hook_unanalysed;
    let facts = ctx.facts(&texts, Commits::IfNeeded);
    let eval = Rail::load(&texts).evaluate(&facts);
    Ok(Some(hook::judge_as(
        &eval,
        acting.actor(),
        &landed.targets,
        &unanalysed,
        mode,
    )))
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
fn log_refusal(ctx: &Ctx, session: Option<&str>, agent: Agent, verdict: &hook::HookVerdict) {
    // A denial must not wait long on the lock just to be logged.
    let Ok(lock) = ctx.lock_within(session.unwrap_or("hook"), Some(Duration::from_millis(500)))
    else {
        return;
    };
    // Only a line appended (opened without following links, like every rail file): no file is
    // planned on, so none is read — claims.log above all, which only grows.
    let texts = rail_core::input::RailTexts::default();
    let line = match verdict.held.first() {
        Some(first) => LogEntry::new(ctx.now, LogEvent::Refused, first.task.as_deref(), session)
            .with("path", first.path.clone())
            .with("holder", first.session.clone()),
        // Denied because it could not be judged (`hook_unanalysed: deny`).
        None => {
            LogEntry::new(ctx.now, LogEvent::Refused, None, session).with("reason", "not analysed")
        }
    }
    .with("by", format!("hook {}", agent.name()))
    .render();
    let _ = crate::shared::record_local(ctx, &lock, &texts, &[line]);
}

/// Who works in a checkout: a session, or an agent whose checkout names none.
enum Acting {
    Session(String),
    Unnamed(String),
}

impl Acting {
    fn actor(&self) -> Actor<'_> {
        match self {
            Acting::Session(s) => Actor::Session(s),
            Acting::Unnamed(why) => Actor::Unnamed { why },
        }
    }

    fn session(&self) -> Option<&str> {
        match self {
            Acting::Session(s) => Some(s),
            Acting::Unnamed(_) => None,
        }
    }
}

/// The session of the agent working in `cwd`: RAIL_SESSION / --session, else that checkout's
/// branch. A branch that cannot be a session name (`fix$(id)`) and a detached HEAD are valid
/// situations, not failures: that agent simply holds no claim. `Err` only when `cwd` is not in
/// a git checkout at all.
fn acting_at(ctx: &Ctx, cwd: &Path) -> Result<Acting, String> {
    let branch = match ctx.explicit_session() {
        Some(_) => None,
        None => repo::discover(cwd)
            .ok_or_else(|| format!("{} is not in a git checkout", cwd.display()))?
            .branch(),
    };
    Ok(
        match rail_core::ident::acting(ctx.explicit_session(), branch.as_deref()) {
            rail_core::ident::Acting::Session(s) => Acting::Session(s),
            rail_core::ident::Acting::Unnamed(why) => Acting::Unnamed(why.message()),
        },
    )
}

/// Stop renews every claim of the session (the agent is active); session end releases them, or
/// renews, or does nothing (rail.yaml `on_stop`). The lock wait is capped by the caller
/// (`Ctx::lock_cap`) to fit the agent's limit for the event.
fn on_lifecycle(ctx: &Ctx, call: &agent::Call) -> Result<(), String> {
    let session = match acting_at(ctx, &call_cwd(call))? {
        Acting::Session(s) => s,
        // Nothing can be held under no name: nothing to renew or release.
        Acting::Unnamed(_) => return Ok(()),
    };
    let texts = ctx.read(false).map_err(|f| f.message)?;
    let what = match call.event {
        Event::SessionEnd => crate::context::config_of(Some(&texts)).on_stop,
        _ => OnStop::Renew,
    };
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
    /// Print what would be written (the instruction section and each agent file as merged)
    /// instead of writing it.
    #[arg(long)]
    pub print: bool,
    /// Instruction files to write (default: AGENTS.md, CLAUDE.md, GEMINI.md that exist, else
    /// AGENTS.md and CLAUDE.md).
    #[arg(long = "file", value_name = "PATH")]
    pub files: Vec<PathBuf>,
    /// The agents to configure, comma-separated: claude, codex, cursor, gemini, vscode, copilot
    /// (default: those the repository shows signs of, else claude).
    #[arg(
        long = "agent",
        id = "agent",
        value_name = "NAMES",
        value_delimiter = ','
    )]
    pub only: Vec<String>,
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

/// The agents to configure: those named, else those whose files are in the repository, else
/// Claude Code (what `rail init --agents` always configured).
fn targets(args: &AgentsArgs, top: &Path) -> Result<Vec<Target>, Fail> {
    if !args.only.is_empty() {
        let mut out: Vec<Target> = Vec::new();
        for name in &args.only {
            let t = Target::parse(name).map_err(Fail::usage)?;
            if !out.contains(&t) {
                out.push(t);
            }
        }
        return Ok(out);
    }
    let found: Vec<Target> = setup::TARGETS
        .into_iter()
        .filter(|t| t.markers().iter().any(|m| top.join(m).exists()))
        .collect();
    Ok(if found.is_empty() {
        vec![Target::Claude]
    } else {
        found
    })
}

/// Sets `entries` in the TOML table at `table`, keeping everything else as it was (toml_edit
/// keeps comments, order and formatting); a value already equal is left untouched.
fn merge_toml(text: &str, table: &[&str], entries: &[(&str, Value)]) -> Result<String, String> {
    let mut doc: toml_edit::DocumentMut =
        text.parse().map_err(|e| format!("not valid TOML ({e})"))?;
    let mut at: &mut toml_edit::Table = doc.as_table_mut();
    for (i, key) in table.iter().enumerate() {
        if !at.contains_key(key) {
            let mut t = toml_edit::Table::new();
            // `[mcp_servers.rail]` alone, not an empty `[mcp_servers]` header above it.
            t.set_implicit(i + 1 < table.len());
            at.insert(key, toml_edit::Item::Table(t));
        }
        at = match at.get_mut(key) {
            Some(toml_edit::Item::Table(t)) => t,
            _ => return Err(format!("`{}` is not a table", table[..=i].join("."))),
        };
    }
    for (key, value) in entries {
        let wanted = toml_value(value)?;
        let same = at
            .get(key)
            .and_then(|i| i.as_value())
            .is_some_and(|v| v.to_string().trim() == wanted.to_string().trim());
        if !same {
            at.insert(key, toml_edit::Item::Value(wanted));
        }
    }
    let out = doc.to_string();
    // An unchanged document prints back as it was read; keep the original bytes regardless.
    if out == text {
        return Ok(text.to_string());
    }
    Ok(out)
}

fn toml_value(v: &Value) -> Result<toml_edit::Value, String> {
    Ok(match v {
        Value::String(s) => s.as_str().into(),
        Value::Bool(b) => (*b).into(),
        Value::Number(n) => n.as_i64().ok_or("not an integer")?.into(),
        Value::Array(items) => {
            let mut a = toml_edit::Array::new();
            for i in items {
                a.push(toml_value(i)?);
            }
            toml_edit::Value::Array(a)
        }
        _ => return Err("not a TOML value Rail writes".into()),
    })
}

/// The program an MCP client starts (no shell, so no quoting): `rail` on PATH, else this one.
fn rail_exe(rail: &str) -> String {
    if rail == "rail" {
        return rail.into();
    }
    std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| rail.to_string())
}

/// One file Rail would write: where, what is there (`None`: missing), and the text Rail wants.
struct Planned {
    path: PathBuf,
    /// An instruction file (the rail section), not an agent's config.
    section: bool,
    old: Option<String>,
    new: String,
}

impl Planned {
    fn changes(&self) -> bool {
        self.old.as_deref() != Some(self.new.as_str())
    }
}

/// Every file `targets` need under `top`, read and merged (nothing written): the agents' config
/// files (each at `place(path)`: the project file, or for a station the agent's local variant,
/// core's `setup::station_path`), then the rail section of each of `instruction_files`. One
/// unreadable or unparsable file anywhere is an error before anything is written. This is the
/// one implementation behind `rail init --agents` and a station's guard.
fn plan(
    top: &Path,
    targets: &[Target],
    instruction_files: Vec<PathBuf>,
    rail: &str,
    place: fn(&'static str) -> &'static str,
) -> Result<Vec<Planned>, Fail> {
    let exe = rail_exe(rail);
    let mut writes: Vec<Planned> = Vec::new();
    for target in targets {
        for file in setup::files(*target, rail, &exe) {
            let path = top.join(place(file.path()));
            // A file merged already (Claude's settings serve VS Code too) is merged again from
            // the merged text: the changes are idempotent.
            let (text, old) = match writes.iter().position(|w| w.path == path) {
                Some(i) => {
                    let w = writes.remove(i);
                    (w.new, w.old)
                }
                // Read without following a link, the directories on the way included (a
                // committed `.claude -> ~/.claude` is refused here, before anything is written).
                None => match crate::railfile::read_inside(top, &path) {
                    Ok(Some(t)) => (t.clone(), Some(t)),
                    Ok(None) => (String::new(), None),
                    Err(e) => return Err(Fail::env(crate::railfile::describe(&path, &e))),
                },
            };
            let new = match &file {
                FileChanges::Json { changes, .. } => jsonc::apply(&text, changes),
                FileChanges::Toml { table, entries, .. } => merge_toml(&text, table, entries),
            }
            .map_err(|e| {
                Fail::usage(format!(
                    "{}: {e}; fix it, then run `rail init --agents` again (nothing was changed)",
                    path.display()
                ))
            })?;
            writes.push(Planned {
                path,
                section: false,
                old,
                new,
            });
        }
    }
    let section = instructions();
    let mut instruction_files = instruction_files;
    instruction_files.dedup();
    // Each instruction file read now, in the same read phase: a refused one changes nothing.
    for file in instruction_files {
        let old = crate::railfile::read_inside(top, &file)
            .map_err(|e| Fail::env(crate::railfile::describe(&file, &e)))?;
        let new = upsert_section(old.as_deref().unwrap_or_default(), &section);
        writes.push(Planned {
            path: file,
            section: true,
            old,
            new,
        });
    }
    Ok(writes)
}

/// Writes `planned` under `top` through Rail's one safe writer (no link followed, no directory
/// created through one).
fn write_planned(top: &Path, planned: &Planned) -> Result<(), Fail> {
    crate::railfile::write_inside(top, &planned.path, planned.new.as_bytes(), false)
        .map_err(|e| Fail::env(crate::railfile::describe(&planned.path, &e)))
}

fn rel(top: &Path, path: &Path) -> String {
    path.strip_prefix(top)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Which of `paths` (relative to `top`) git tracks in the checkout `top`.
fn tracked(top: &Path, paths: &[String]) -> Result<Vec<String>, Fail> {
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let mut args = vec!["--literal-pathspecs", "ls-files", "-z", "--"];
    args.extend(paths.iter().map(String::as_str));
    let out = crate::git::run(top, &args).map_err(Fail::env)?;
    Ok(out
        .split('\0')
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect())
}

pub fn init_agents(ctx: &Ctx, args: &AgentsArgs, rail: &str) -> Result<Vec<String>, Fail> {
    let top = ctx
        .repo
        .as_ref()
        .map(|r| r.worktree.clone())
        .unwrap_or_else(|| ctx.rail.root.clone());
    let targets = targets(args, &top)?;
    let mut instruction_files: Vec<PathBuf> = if args.files.is_empty() {
        let present: Vec<PathBuf> = ["AGENTS.md", "CLAUDE.md", "GEMINI.md"]
            .iter()
            .map(|n| top.join(n))
            // Present in any form: a link counts (and is then refused, never followed).
            .filter(|p| std::fs::symlink_metadata(p).is_ok())
            .collect();
        let mut files = if present.is_empty() {
            vec![top.join("AGENTS.md"), top.join("CLAUDE.md")]
        } else {
            present
        };
        // An agent that reads only its own file gets the section there too.
        for own in targets.iter().filter_map(|t| t.own_instructions()) {
            let path = top.join(own);
            if !files.contains(&path) {
                files.push(path);
            }
        }
        files
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
    instruction_files.dedup();
    let planned = plan(&top, &targets, instruction_files, rail, |p| p)?;

    if args.print {
        outln!("{}", instructions());
        for w in planned.iter().filter(|w| !w.section) {
            outln!(
                "# {} (merged into what is there by `rail init --agents`):\n{}",
                rel(&top, &w.path),
                w.new.trim_end()
            );
        }
        for t in &targets {
            outln!("# {}: {}", t.title(), t.needs());
        }
        return Ok(Vec::new());
    }

    let mut done = Vec::new();
    // The sections first, then the agents' files (as before: what a reader meets first).
    let (sections, configs): (Vec<&Planned>, Vec<&Planned>) =
        planned.iter().partition(|w| w.section);
    for w in sections.iter().filter(|w| w.changes()) {
        write_planned(&top, w)?;
        done.push(format!("wrote the rail section of {}", w.path.display()));
    }
    for w in configs.iter().filter(|w| w.changes()) {
        write_planned(&top, w)?;
        done.push(format!("merged Rail's entries into {}", w.path.display()));
    }
    if !done.is_empty() {
        for t in &targets {
            done.push(format!("{}: {}", t.title(), t.needs()));
        }
    }
    // What a clone (a teammate's, or a station made from a commit) gets only once committed.
    if ctx.repo.is_some() {
        let mut files: Vec<String> = planned.iter().map(|w| rel(&top, &w.path)).collect();
        files.dedup();
        let known = tracked(&top, &files).unwrap_or_default();
        let untracked: Vec<String> = files.into_iter().filter(|f| !known.contains(f)).collect();
        if !untracked.is_empty() {
            done.push(format!(
                "commit these so teammates' clones and stations made from later commits are guarded too: git add -f -- {} && git commit -m \"Rail: agent hooks\" (until then `rail worktree` copies them into each new station; -f: stations list them in .git/info/exclude)",
                untracked.join(" ")
            ));
        }
        // What still leaves an agent unguarded here (trust, stations): `rail doctor`'s findings.
        if let Ok(found) = crate::cmd::doctor::findings(ctx) {
            for f in found.iter().filter(|f| f.unguarded && f.agent.is_some()) {
                done.push(format!(
                    "rail doctor: {}: {} (at {}); fix: {}",
                    f.agent.as_deref().unwrap_or(""),
                    f.problem,
                    f.place,
                    f.fix
                ));
            }
        }
    }
    Ok(done)
}

/// The agents Rail is set up for in the checkout `top` (core `setup::configured`, from the
/// files as they are there: tracked, or written by Rail).
pub fn configured_in(top: &Path) -> Vec<Target> {
    setup::configured(|p| {
        crate::railfile::read_inside(top, &top.join(p))
            .ok()
            .flatten()
    })
}

/// What guarding a station did.
#[derive(Debug, Default, serde::Serialize)]
pub struct Guarded {
    /// The agents set up in the main checkout, by title.
    pub agents: Vec<String>,
    /// Files written into the station (relative to it).
    pub wrote: Vec<String>,
    /// Files left as they were: tracked by the station's branch, or already there.
    pub kept: Vec<String>,
    /// Patterns added to the repository's info/exclude.
    pub excluded: Vec<String>,
}

impl Guarded {
    pub fn message(&self) -> Option<String> {
        if self.agents.is_empty() {
            return None;
        }
        let mut m = format!("guarded for {}", self.agents.join(", "));
        if self.wrote.is_empty() {
            m.push_str(": its branch tracks the agents' files");
        } else {
            m.push_str(&format!(
                ": wrote {} (not tracked by its branch; kept out of git by info/exclude)",
                self.wrote.join(", ")
            ));
        }
        if !self.kept.is_empty() {
            m.push_str(&format!("; left as they are: {}", self.kept.join(", ")));
        }
        // Their trust is per folder, and a station is a folder of its own.
        let per_folder: Vec<&str> = ["Gemini CLI", "Copilot CLI"]
            .into_iter()
            .filter(|a| self.agents.iter().any(|t| t == a))
            .collect();
        if !per_folder.is_empty() {
            m.push_str(&format!(
                "; {} load project hooks only in a trusted folder: trust this one (or a folder above it and the main checkout)",
                per_folder.join(" and ")
            ));
        }
        Some(m)
    }
}

/// Gives the checkout `station` (a worktree of `repo`) every agent set up in the main checkout:
/// each agent file and rail section `rail init --agents` writes (the same plan, at each agent's
/// station path), written only where the station's branch does not track the file and no file
/// is there, so nothing the user tracks or wrote changes; each written path is listed in the
/// common dir's info/exclude, so `git status`, Rail's scope checks, `git add -A` and
/// `git worktree remove` leave it out. Design: docs/agents.md, "Stations".
pub fn guard_station(repo: &repo::Repo, station: &Path, rail: &str) -> Result<Guarded, Fail> {
    let main = repo.main_checkout();
    let read_main = |p: &str| {
        crate::railfile::read_inside(&main, &main.join(p))
            .ok()
            .flatten()
    };
    let targets = configured_in(&main);
    let mut guarded = Guarded {
        agents: targets.iter().map(|t| t.title().to_string()).collect(),
        ..Guarded::default()
    };
    if targets.is_empty() {
        return Ok(guarded);
    }
    // The instruction files that carry the rail section in the main checkout, and each agent's
    // own one.
    let mut files: Vec<PathBuf> = ["AGENTS.md", "CLAUDE.md", "GEMINI.md"]
        .into_iter()
        .filter(|n| read_main(n).is_some_and(|t| t.contains(BEGIN)))
        .map(|n| station.join(n))
        .collect();
    for own in targets.iter().filter_map(|t| t.own_instructions()) {
        let path = station.join(own);
        if !files.contains(&path) {
            files.push(path);
        }
    }
    // An agent whose Rail hook the station has already (its branch tracks the agent's files)
    // needs nothing more: no second copy of its hooks beside the committed ones.
    let needed = setup::unguarded(&targets, &configured_in(station));
    let planned = plan(station, &needed, files, rail, setup::station_path)?;
    let rels: Vec<String> = planned.iter().map(|w| rel(station, &w.path)).collect();
    let known = tracked(station, &rels)?;
    let mut writes = Vec::new();
    for (w, r) in planned.iter().zip(&rels) {
        if known.contains(r) || w.old.is_some() {
            // A file Rail wrote before (guarded again) is what Rail would write: not news.
            if w.changes() {
                guarded.kept.push(r.clone());
            }
            continue;
        }
        writes.push((w, r));
    }
    // Excluded before the files appear: `git status` never shows them, even for a moment.
    let exclude = repo.common_dir.join("info").join("exclude");
    let paths: Vec<&str> = writes.iter().map(|(_, r)| r.as_str()).collect();
    let old = crate::railfile::read_inside(&repo.common_dir, &exclude)
        .map_err(|e| Fail::env(crate::railfile::describe(&exclude, &e)))?
        .unwrap_or_default();
    if let Some(text) = setup::with_excludes(&old, &paths) {
        crate::railfile::write_inside(&repo.common_dir, &exclude, text.as_bytes(), false)
            .map_err(|e| Fail::env(crate::railfile::describe(&exclude, &e)))?;
        guarded.excluded = text
            .lines()
            .filter(|l| !old.lines().any(|o| o.trim() == l.trim()))
            .filter(|l| !l.starts_with('#'))
            .map(str::to_string)
            .collect();
    }
    for (w, r) in writes {
        write_planned(station, w)?;
        guarded.wrote.push(r.clone());
    }
    Ok(guarded)
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
    fn toml_is_merged_in_place_and_idempotently() {
        let text =
            "# my codex config\nmodel = \"gpt-5\" # pinned\n\n[mcp_servers.db]\ncommand = \"db\"\n";
        let entries = [
            ("command", serde_json::json!("rail")),
            ("args", serde_json::json!(["mcp"])),
        ];
        let once = merge_toml(text, &["mcp_servers", "rail"], &entries).unwrap();
        assert!(once.starts_with(text), "{once}");
        assert!(
            once.ends_with("[mcp_servers.rail]\ncommand = \"rail\"\nargs = [\"mcp\"]\n"),
            "{once}"
        );
        assert_eq!(
            merge_toml(&once, &["mcp_servers", "rail"], &entries).unwrap(),
            once
        );
        let empty = merge_toml("", &["mcp_servers", "rail"], &entries).unwrap();
        assert_eq!(
            empty,
            "[mcp_servers.rail]\ncommand = \"rail\"\nargs = [\"mcp\"]\n"
        );
        assert!(merge_toml("mcp_servers = 3\n", &["mcp_servers", "rail"], &entries).is_err());
        assert!(merge_toml("[x\n", &["mcp_servers", "rail"], &entries).is_err());
    }
}
