//! `rail hook <agent>`: the agents' edit hooks, one subcommand per agent of core's list
//! (`rail_core::agent::AGENTS`) that has a hook command.
//!
//! `rail hook claude|codex|cursor|gemini|copilot` reads one hook payload on stdin. What the payload means
//! and how each agent must be answered are core's rules (`rail_core::agent`); the decision is
//! core's one hook judge (`rail_core::agent::hook`). This host reads stdin, follows symlinks, reads
//! the rail, renews or releases, and writes the answer core worded. Whatever happens it answers,
//! and within a bound: a watchdog answers for it when the bound passes — for a tool call as a
//! failure to check (denied by default, rail.yaml `hook_failure: warn` to only warn), for a Stop or
//! session end in that event's own terms (the agent always stops), for a worktree event
//! (`claude --worktree`: a station made or closed by `cmd::station::for_agent`) as a refusal.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rail_core::agent::hook::{self, Actor, Decision};
use rail_core::agent::{self, Agent, Answer, Event, Harness, Outcome};
use rail_core::agent::{WorktreeDone, WorktreeEvent};
use rail_core::change::ops::Request;
use rail_core::formats::config::{HookFailure, OnStop};
use rail_core::formats::log::{LogEntry, LogEvent};
use rail_core::model::Rail;

use crate::context::{Commits, Ctx};
use crate::fail::{self, Fail};
use crate::repo;

/// The help line of `rail hook`, naming each agent's hook command.
pub fn about() -> String {
    let names: Vec<&str> = agent::AGENTS
        .iter()
        .filter(|a| a.hook_help().is_some())
        .map(|a| a.name())
        .collect();
    format!(
        "Agent hooks: `rail hook {}` reads that agent's payload on stdin",
        names.join("|")
    )
}

/// `rail hook <agent>`: which agent's hook it is (a subcommand per agent of core's list that has
/// a hook command of its own), and the event the installed command names, for agents whose
/// payloads name none (`--event`).
#[derive(Clone, Debug)]
pub struct HookCall {
    pub agent: Agent,
    pub event: Option<String>,
}

impl clap::FromArgMatches for HookCall {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let (name, sub) = matches
            .subcommand()
            .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::MissingSubcommand))?;
        let agent = Agent::hooked(name)
            .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::InvalidSubcommand))?;
        let event = match agent.hook_event_help() {
            Some(_) => sub.get_one::<String>("event").cloned(),
            None => None,
        };
        Ok(HookCall { agent, event })
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = HookCall::from_arg_matches(matches)?;
        Ok(())
    }
}

impl clap::Subcommand for HookCall {
    fn augment_subcommands(cmd: clap::Command) -> clap::Command {
        agent::AGENTS.iter().fold(cmd, |cmd, agent| {
            let Some(help) = agent.hook_help() else {
                return cmd;
            };
            let mut sub = clap::Command::new(agent.name()).about(help);
            if let Some(event) = agent.hook_event_help() {
                sub = sub.arg(
                    clap::Arg::new("event")
                        .long("event")
                        .value_name("EVENT")
                        .help(event),
                );
            }
            cmd.subcommand(sub)
        })
    }

    fn augment_subcommands_for_update(cmd: clap::Command) -> clap::Command {
        HookCall::augment_subcommands(cmd)
    }

    fn has_subcommand(name: &str) -> bool {
        Agent::hooked(name).is_some()
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
        .and_then(|d| {
            crate::railfile::read_text(&d.join(rail_core::formats::rail_files::CONFIG_FILE)).ok()
        })
        .flatten()
        .map(|t| rail_core::formats::config::parse(&t).0)
        .unwrap_or_default()
        .hook_failure
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
    kind: Watched,
}

/// What a hook call is, for the answer its watchdog (or a panic) gives.
#[derive(Clone, Debug)]
enum Watched {
    /// A tool call (or not yet known): a failure to check.
    Tool,
    /// A Stop or session end (its name): the agent stops, the claims as they were.
    Lifecycle(String),
    /// A worktree event: refused, and the station maybe half made.
    Worktree,
}

/// The rail's directory, once found (the watchdog's failure mode is read from its rail.yaml).
static RAIL_DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// What the hook is answering, for the panic hook.
static CURRENT: Mutex<Option<Watch>> = Mutex::new(None);

/// The answer when the hook cannot finish (`why`): a tool call fails safe; a Stop or session end
/// says so and lets the agent stop.
fn failure_outcome(watch: &Watch, why: &str) -> Outcome {
    match &watch.kind {
        Watched::Lifecycle(event) => Outcome::Lifecycle(Some(format!(
            "Rail: {event} was not finished ({why}); the session's claims were left as they were and keep their lease"
        ))),
        Watched::Worktree => Outcome::Worktree(Err(format!(
            "Rail: the station was not finished ({why}); see `rail worktree list` for what is there"
        ))),
        Watched::Tool => fail_safe(why, RAIL_DIR.get().map(PathBuf::as_path)),
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
    let why = match &watch.kind {
        Watched::Lifecycle(_) | Watched::Worktree => format!(
            "it took longer than {took} ms: the rail lock is busy or the rail is slow to read"
        ),
        Watched::Tool => format!("the check took longer than {took} ms"),
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
pub fn run(kind: &HookCall, make_ctx: impl FnOnce() -> Result<Ctx, Fail>) -> i32 {
    let agent = kind.agent;
    let start = Instant::now();
    // Until the payload says who sent it: the hook's own agent.
    let default_harness = Harness::of(agent);
    let (tx, rx) = mpsc::channel();
    {
        let watch = Watch {
            deadline: start + hook_timeout(),
            bound: hook_timeout(),
            harness: default_harness,
            kind: Watched::Tool,
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
    let call = agent::read_call(agent, &input, kind.event.as_deref(), &|var| {
        std::env::var(var).ok()
    });
    let harness = call.harness;
    if let Some(dir) = agent_dir(&call).filter(|d| d.is_dir()) {
        let _ = std::env::set_current_dir(dir);
    }
    let mut ctx_result = make_ctx();
    // The session this call acts for, when it is one (not the main checkout's person). A
    // worktree event acts for the station it makes, which has no session yet.
    let session = ctx_result
        .as_ref()
        .ok()
        .filter(|_| !matches!(call.event, Event::Worktree(_)))
        .and_then(|ctx| match acting_at(ctx, &call_cwd(&call)) {
            Ok(Acting::Session(session)) => Some(session),
            _ => None,
        });
    // Guard status: this session's agent runs Rail's hook (shown on the board).
    if let (Ok(ctx), Some(session)) = (&ctx_result, &session) {
        if let Some(repo) = &ctx.repo {
            let seen = rail_core::formats::heartbeat::HookSeen {
                agent: call.harness.sender.name().to_string(),
                version: call.version.clone(),
                at: ctx.now,
                host: None,
            };
            crate::heartbeat::mark(repo, session, &seen);
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
            kind: Watched::Lifecycle(call.event_name.clone()),
        };
        set_current(&watch);
        let _ = tx.send(watch);
        if let Ok(ctx) = ctx_result.as_mut() {
            ctx.lock_cap = Some(Duration::from_millis(agent::lifecycle_lock_wait_ms(
                harness,
                &call.event,
            )));
        }
    } else if let Event::Worktree(_) = call.event {
        // A fresh checkout takes its time: the bound is the agent's for the event, not a
        // tool call's.
        let budget = Duration::from_millis(agent::lifecycle_budget_ms(harness, &call.event));
        let watch = Watch {
            deadline: start + budget,
            bound: budget,
            harness,
            kind: Watched::Worktree,
        };
        set_current(&watch);
        let _ = tx.send(watch);
    } else {
        let watch = Watch {
            deadline: start + hook_timeout(),
            bound: hook_timeout(),
            harness,
            kind: Watched::Tool,
        };
        set_current(&watch);
        let _ = tx.send(watch);
    }
    crate::faults::hook_panic();
    let outcome = match &call.event {
        Event::Malformed(why) => fail_safe(why, rail_dir.as_deref()),
        Event::Pass => Outcome::Allow,
        // Never a warning (`hook_failure: warn`): there is no tool to let run, only a worktree
        // that is made or not.
        Event::Worktree(event) => Outcome::Worktree(match (event, &ctx_result) {
            (Err(why), _) => Err(why.clone()),
            (Ok(event), Ok(ctx)) => worktree(ctx, agent, event),
            (Ok(_), Err(f)) => Err(format!("Rail: {}", f.message)),
        }),
        Event::AfterTool { .. } => match &ctx_result {
            Ok(ctx) => after_tool(ctx, agent, &call),
            // The tool ran already: nothing to deny, and no rail to judge it by.
            Err(_) => Outcome::Allow,
        },
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
    // A claim this session lost (to another machine, a rewind, a take) is told to its agent
    // now, at this call, in the answer it reads (core decides how it joins the answer).
    let mut told = Vec::new();
    let outcome = match (&ctx_result, &session, notice_call(&call.event)) {
        (
            Ok(Ctx {
                repo: Some(repo), ..
            }),
            Some(session),
            Some(at),
        ) => {
            let (paths, notices): (Vec<_>, Vec<_>) =
                crate::notice::pending(repo, session).into_iter().unzip();
            told = paths;
            rail_core::agent::hook::tell(outcome, at, &notices)
        }
        _ => outcome,
    };
    // Before an allowed tool call: the snapshot its after-tool call is judged from.
    if let (Event::Tool { .. }, Ok(ctx), Some(session)) = (&call.event, &ctx_result, &session) {
        if !matches!(outcome, Outcome::Deny(_)) {
            crate::after::before(ctx, session, &call_cwd(&call), call.call_id.as_deref());
        }
    }
    let code = answer(outcome, harness);
    crate::notice::told(&told);
    drop(tx);
    code
}

/// Where a call stands for a notice: the calls whose answer an agent reads.
fn notice_call(event: &Event) -> Option<rail_core::agent::hook::CallStage> {
    use rail_core::agent::hook::CallStage as Call;
    match event {
        Event::Tool { .. } => Some(Call::BeforeTool),
        Event::AfterTool { .. } => Some(Call::AfterTool),
        Event::Stop | Event::SessionEnd => Some(Call::Lifecycle),
        Event::Pass | Event::Malformed(_) | Event::Worktree(_) => None,
    }
}

/// A worktree event: the station made or closed (`cmd::station::for_agent`), or Rail's reason
/// why not.
fn worktree(ctx: &Ctx, agent: Agent, event: &WorktreeEvent) -> Result<WorktreeDone, String> {
    crate::cmd::station::for_agent(ctx, agent, event).map_err(|f| format!("Rail: {}", f.message))
}

/// After a tool call: what it wrote into other live sessions' paths is put back where Rail
/// can, logged, and told to the agent (`crate::after`).
fn after_tool(ctx: &Ctx, agent: Agent, call: &agent::Call) -> Outcome {
    let cwd = call_cwd(call);
    let Ok(Acting::Session(session)) = acting_at(ctx, &cwd) else {
        return Outcome::Allow;
    };
    let by = format!("hook {}", agent.name());
    match crate::after::after(ctx, &session, &cwd, call.call_id.as_deref(), &by) {
        Some(message) => Outcome::After(message),
        None => Outcome::Allow,
    }
}

/// Where the agent works, as the payload or the agent's environment says (the sender's own
/// variables first: some agents also set another's, e.g. `CLAUDE_PROJECT_DIR`).
fn agent_dir(call: &agent::Call) -> Option<PathBuf> {
    call.cwd.as_deref().map(PathBuf::from).or_else(|| {
        std::iter::once(call.harness.sender)
            .chain(agent::AGENTS.iter().copied())
            .flat_map(|a| a.project_dir_vars().iter())
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
            rail_core::formats::rail_files::CLAIMS_MD,
            rail_core::formats::rail_files::CONFIG_FILE,
            rail_core::formats::rail_files::CLAIMS_DIR,
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
    let rail = Rail::load(&texts);
    let facts = ctx.facts_for(&rail, Commits::IfNeeded);
    let eval = rail.evaluate(&facts);
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
    let texts = rail_core::model::input::RailTexts::default();
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
        match rail_core::text::ident::acting(ctx.explicit_session(), branch.as_deref()) {
            rail_core::text::ident::Acting::Session(s) => Acting::Session(s),
            rail_core::text::ident::Acting::Unnamed(why) => Acting::Unnamed(why.message()),
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
    let rail = Rail::load(&texts);
    let facts = ctx.facts_for(&rail, Commits::IfNeeded);
    let eval = rail.evaluate(&facts);
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
