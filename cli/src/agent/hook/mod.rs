//! `rail hook <agent>`: the agents' hooks, one subcommand per agent of core's list
//! (`rail_core::agent::AGENTS`) that has a hook command.
//!
//! `rail hook claude|codex|cursor|gemini|copilot` reads one hook payload on stdin. What the payload means
//! and how each agent must be answered are core's rules (`rail_core::agent`); the decision is
//! core's one hook judge (`rail_core::agent::hook`). This host reads stdin, follows symlinks
//! ([`tool`]), reads the rail, renews or releases ([`session`]), and writes the answer core
//! worded. Whatever happens it answers, and within a bound ([`watchdog`]).

pub mod session;
pub mod team;
pub mod tool;
pub mod watchdog;

use std::io::Read;
use std::time::Duration;

use rail_core::agent::team::TaskEvent;
use rail_core::agent::{self, Agent, Event, Harness, Outcome};
use rail_core::text::ident::Acting;

use self::session::{agent_dir, call_cwd};
use self::watchdog::{fail_safe, Awaited, Watchdog};
use crate::context::Ctx;
use crate::fail::{self, Fail};
use crate::sys::env::env;

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

/// Entry point of `rail hook <agent>`; returns the process exit code (hooks speak through exit
/// codes and stdout).
///
/// The rail is found from where the agent works (the payload's `cwd` or workspace root), not
/// from wherever the agent started the hook process (Cursor may start it with no useful cwd).
pub fn run(kind: &HookCall, make_ctx: impl FnOnce() -> Result<Ctx, Fail>) -> i32 {
    let agent = kind.agent;
    // Until the payload says who sent it: the hook's own agent.
    let dog = Watchdog::start(Harness::of(agent));
    let mut input = String::new();
    if let Err(e) = std::io::stdin()
        .take(16 * 1024 * 1024)
        .read_to_string(&mut input)
    {
        let outcome = fail_safe(&format!("cannot read the hook input: {e}"));
        return answer(&outcome, Harness::of(agent));
    }
    let call = agent::read_call(agent, &input, kind.event.as_deref(), &|var| {
        crate::sys::env::var(var)
    });
    if let Some(dir) = agent_dir(&call).filter(|d| d.is_dir()) {
        let _ = std::env::set_current_dir(dir);
    }
    let ctx = make_ctx().map(|mut ctx| {
        if call.event.is_lifecycle() || matches!(call.event, Event::Task(_)) {
            // A Stop, a session end or a task-list event must answer within its agent's limit,
            // lock wait included.
            let wait = agent::lifecycle_lock_wait_ms(call.harness, &call.event);
            ctx.lock_cap = Some(Duration::from_millis(wait));
        }
        watchdog::keep(ctx)
    });
    let here = Here::of(&call, ctx.as_ref().ok().copied());
    if let (Ok(ctx), Some(session)) = (&ctx, here.session()) {
        mark(ctx, &call, session);
    }
    watch(&dog, &call);
    crate::faults::hook_panic();
    let outcome = judge(agent, &call, &ctx, &here);
    // A claim this session lost (to another machine, a rewind, a take) is told to its agent
    // now, at this call, in the answer it reads (core decides how it joins the answer).
    let (outcome, told) = with_notices(outcome, &call, &ctx, here.session());
    // Before an allowed tool call: the snapshot its after-tool call is judged from.
    // And the note of what it may write, recorded after it as this session's work in flight.
    if let (Event::Tool { targets, .. }, Ok(ctx), Some(session)) =
        (&call.event, &ctx, here.session())
    {
        if !matches!(outcome, Outcome::Deny(_)) {
            let id = call.call_id.as_deref();
            crate::agent::after::before(ctx, session, &here.cwd, id);
            crate::agent::flight::before(session, &here.cwd, id, targets);
        }
    }
    let code = answer(&outcome, call.harness);
    crate::store::notice::told(&told);
    drop(dog);
    code
}

/// Writes `outcome` as `harness`'s agent reads it; the exit code.
fn answer(outcome: &Outcome, harness: Harness) -> i32 {
    watchdog::emit(&agent::answer(harness, outcome)).unwrap_or(fail::OK)
}

/// Where a hook call was made and who works there, found once for the whole call.
pub struct Here {
    /// Where the agent works (the payload's `cwd`, its project directory, else this process's).
    pub cwd: std::path::PathBuf,
    /// Who acts there (core's reading of `--session`/`RAIL_SESSION` and the branch); `None`
    /// for a worktree event (it acts for the station it makes, which has no session yet) and
    /// without a rail; `Err` when `cwd` is in no git checkout.
    pub acting: Option<Result<Acting, String>>,
}

impl Here {
    fn of(call: &agent::Call, ctx: Option<&Ctx>) -> Here {
        let cwd = call_cwd(call);
        let acting = ctx
            .filter(|_| !matches!(call.event, Event::Worktree(_)))
            .map(|ctx| session::acting_at(ctx, call, &cwd));
        Here { cwd, acting }
    }

    /// The session this call acts for, when it is one (not an unnamed checkout).
    pub fn session(&self) -> Option<&str> {
        match &self.acting {
            Some(Ok(Acting::Session(s))) => Some(s),
            _ => None,
        }
    }
}

/// Guard status: this session's agent runs Rail's hook (shown on the board).
fn mark(ctx: &Ctx, call: &agent::Call, session: &str) {
    if let Some(repo) = &ctx.repo {
        let seen = rail_core::formats::heartbeat::HookSeen {
            agent: call.harness.sender.name().to_string(),
            version: call.version.clone(),
            at: ctx.now,
            host: None,
        };
        crate::store::heartbeat::mark(repo, session, &seen);
    }
}

/// Tells the watchdog what the call is: a Stop or session end has its own, shorter limit and
/// its own answer on timeout; a worktree event the agent's limit for it (a fresh checkout takes
/// its time); a tool call the hook's.
fn watch(dog: &Watchdog, call: &agent::Call) {
    let harness = call.harness;
    let timeout = env().hook_timeout;
    if call.event.is_lifecycle() {
        let budget = Duration::from_millis(agent::lifecycle_budget_ms(harness, &call.event));
        let kind = Awaited::Lifecycle(call.event_name.clone());
        dog.watch(harness, kind, budget.min(timeout));
    } else if let Event::Worktree(_) = call.event {
        let budget = Duration::from_millis(agent::lifecycle_budget_ms(harness, &call.event));
        dog.watch(harness, Awaited::Worktree, budget);
    } else if let Event::Task(task) = &call.event {
        let budget = Duration::from_millis(agent::lifecycle_budget_ms(harness, &call.event));
        let kind = match task {
            // A task created is never blocked: a note, and the task is made.
            TaskEvent::Created { .. } => Awaited::Lifecycle(call.event_name.clone()),
            TaskEvent::Started { .. } => Awaited::Tool,
            TaskEvent::Completed { .. } => Awaited::Gate,
        };
        dog.watch(harness, kind, budget);
    } else {
        dog.watch(harness, Awaited::Tool, timeout);
    }
}

/// What the call is answered, before any notice joins it.
fn judge(
    agent: Agent,
    call: &agent::Call,
    ctx: &Result<&'static Ctx, Fail>,
    here: &Here,
) -> Outcome {
    match &call.event {
        Event::Malformed(why) => fail_safe(why),
        Event::Pass => Outcome::Allow,
        // Never a warning (`hook_failure: warn`): there is no tool to let run, only a worktree
        // that is made or not.
        Event::Worktree(event) => Outcome::Worktree(match (event, ctx) {
            (Err(why), _) => Err(why.clone()),
            (Ok(event), Ok(ctx)) => session::worktree(ctx, agent, event),
            (Ok(_), Err(f)) => Err(format!("Rail: {}", f.message)),
        }),
        Event::AfterTool { .. } => match ctx {
            Ok(ctx) => tool::after_tool(ctx, agent, call, here),
            // The tool ran already: nothing to deny, and no rail to judge it by.
            Err(_) => Outcome::Allow,
        },
        // A call that writes nothing needs no rail.
        Event::Tool {
            targets,
            unanalysed,
            commits,
            ..
        } if targets.is_empty() && unanalysed.is_empty() && commits.is_empty() => Outcome::Allow,
        Event::Tool {
            targets,
            unanalysed,
            commits,
            ..
        } => match ctx {
            Ok(ctx) => tool::pre_tool_use(ctx, agent, here, targets, unanalysed, commits),
            Err(f) => fail_safe(&f.message),
        },
        Event::Task(task) => match ctx {
            Ok(ctx) => team::on_task(ctx, call, here, task),
            Err(f) => match task {
                TaskEvent::Created { .. } => {
                    Outcome::Lifecycle(Some(format!("Rail: at {}: {}", call.event_name, f.message)))
                }
                _ => fail_safe(&f.message),
            },
        },
        Event::Stop | Event::SessionEnd => Outcome::Lifecycle(match ctx {
            Ok(ctx) => session::on_lifecycle(ctx, call, here).err().map(|e| {
                format!(
                    "Rail: at {}, the session's claims were left as they were: {e}",
                    call.event_name
                )
            }),
            Err(f) => Some(format!("Rail: at {}: {}", call.event_name, f.message)),
        }),
    }
}

/// `outcome` with the notices waiting for `session` joined to it (core decides how), and the
/// notice files to remove once the answer is out.
fn with_notices(
    outcome: Outcome,
    call: &agent::Call,
    ctx: &Result<&'static Ctx, Fail>,
    session: Option<&str>,
) -> (Outcome, Vec<std::path::PathBuf>) {
    let repo = ctx.as_ref().ok().and_then(|c| c.repo.as_ref());
    match (repo, session, session::notice_call(&call.event)) {
        (Some(repo), Some(session), Some(at)) => {
            let (told, notices): (Vec<_>, Vec<_>) = crate::store::notice::pending(repo, session)
                .into_iter()
                .unzip();
            (rail_core::agent::hook::tell(outcome, at, &notices), told)
        }
        _ => (outcome, Vec::new()),
    }
}
