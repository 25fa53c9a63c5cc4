//! The changes to the rail: claim, release, renew, take, update, and the one way each is
//! carried out.
//!
//! Each one: take the lock, finish any crashed write, read the files, let core plan, apply the
//! plan's edits and log line, release the lock. Refusals change nothing. On a shared rail the
//! operation goes to this machine's exchange instead (`crate::shared`), whose leader does the
//! same on the remote's state.
//!
//! Each returns what happened as data and prints nothing on stdout: a [`Report`], core's plan as
//! the `--json` document (`{"ok": true, "plan": …}`) with its message as the CLI words it. The
//! CLI prints it; `rail mcp` returns it as a tool result; a hook's Stop renews through it. All
//! run these same functions, under the same lock.

use rail_core::change::ops::{self, ClaimRequest, Request};
use rail_core::formats::log::{LogEntry, LogEvent};
use rail_core::formats::rail_files::CLAIMS_MD;
use rail_core::model::input::RailTexts;
use rail_core::model::Rail;

use super::touched::{recorded, touched_in};
use crate::context::{Commits, Ctx};
use crate::fail::Fail;
use crate::ops::flight::FlightCheck;
use crate::out::outcome::{refused, Report};
use crate::store::lock::{self, RailLock};
use crate::sys::env::env;

/// What a claim asks for besides its task (the `rail claim` flags, a station's, an MCP call's).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ClaimOptions {
    /// A path, directory or glob this task will change (repeatable).
    #[arg(long = "path", value_name = "GLOB")]
    pub paths: Vec<String>,
    /// A shared resource this task uses, e.g. port:3000 (repeatable; `shared:` prefix for shared use).
    #[arg(long = "resource", value_name = "RES")]
    pub resources: Vec<String>,
    /// What the task is for (one line, markdown).
    #[arg(long, value_name = "TEXT")]
    pub purpose: Option<String>,
    /// Lease for this claim, e.g. 45m or 4h (default: rail.yaml `lease`, else 2h).
    #[arg(long, value_name = "DUR")]
    pub lease: Option<String>,
    /// A task this one waits for (repeatable).
    #[arg(long = "after", value_name = "TASK")]
    pub after: Vec<String>,
    /// The owning process as PID or PID@HOST (default: $RAIL_OWNER_PID), so a dead owner frees the claim at once.
    #[arg(long, value_name = "PID")]
    pub pid: Option<String>,
    /// The branch whose commits keep this claim alive (default: the branch named like the session).
    #[arg(long, value_name = "BRANCH")]
    pub branch: Option<String>,
    /// Claim even over another live session's work in flight (its files changed and not merged):
    /// that session is told.
    #[arg(long)]
    pub over_flight: bool,
}

/// The claim `args` ask for: the owner named by `--pid` (or `RAIL_OWNER_PID`) with its host and,
/// for a process alive now, its start time.
pub fn claim_request(task: &str, args: &ClaimOptions) -> Result<ClaimRequest, Fail> {
    let pid = match args.pid.clone().or_else(|| env().owner_pid.clone()) {
        Some(p) if p.contains('@') => Some(p),
        Some(p) => {
            let pid = p
                .parse::<u32>()
                .map_err(|_| Fail::usage(format!("--pid `{p}`: expected a process id")))?;
            // With its start time, so a later process given the same pid is not taken for
            // the owner (issue 28, finding 7). Only for a process alive now: a dead one has
            // no start time to read.
            let owner = rail_core::formats::pid::OwnerProcess {
                pid,
                host: &lock::hostname(),
                start: lock::process_start(pid),
            };
            Some(owner.render())
        }
        None => None,
    };
    Ok(ClaimRequest {
        task: task.to_string(),
        paths: args.paths.clone(),
        resources: args.resources.clone(),
        purpose: args.purpose.clone(),
        lease: args.lease.clone(),
        after: args.after.clone(),
        pid,
        branch: args.branch.clone(),
    })
}

pub fn claim(ctx: &Ctx, task: &str, args: &ClaimOptions) -> Result<Report, Fail> {
    let session = ctx.session()?;
    let req = claim_request(task, args)?;
    let check = FlightCheck {
        session: session.clone(),
        task: task.to_string(),
        verb: "claim",
        patterns: args.paths.clone(),
        on_purpose: args.over_flight,
    };
    mutate_over_flight(ctx, &session, Request::Claim(req), check, Vec::new())
}

/// What a release records of the session's work: the files it names, none, or (`Changed`) what
/// git says the session changed since it forked from `base` (default: the main checkout's
/// branch).
pub enum Touched<'a> {
    Named(Vec<String>),
    Nothing,
    Changed { base: Option<&'a str> },
}

pub fn release(ctx: &Ctx, task: &str, touched: Touched<'_>) -> Result<Report, Fail> {
    let session = ctx.session()?;
    rail_core::text::ident::validate_task(task).map_err(|e| Fail::usage(e.0))?;
    let release = |touched| Request::Release {
        task: task.to_string(),
        touched,
        done: false,
    };
    let base = match touched {
        Touched::Named(files) => return mutate(ctx, &session, release(files)),
        Touched::Nothing => return mutate(ctx, &session, release(Vec::new())),
        Touched::Changed { base } => base,
    };
    crate::ops::touched::given_base(base)?;
    // git lists the touched files in a thread of its own while this one reads the rail and
    // gathers its facts: the release waits for the slower of the two, not for both.
    let (repo, root) = (ctx.repo.clone(), ctx.rail.root.clone());
    std::thread::scope(|scope| {
        let lister = scope.spawn(|| recorded(touched_in(repo.as_ref(), &root, base)));
        mutate_then(
            ctx,
            &session,
            task,
            || release(lister.join().unwrap_or_default()),
            Vec::new(),
            None,
        )
    })
}

pub fn renew(ctx: &Ctx, task: &str) -> Result<Report, Fail> {
    let session = ctx.session()?;
    let task = task.to_string();
    mutate(ctx, &session, Request::Renew { task })
}

pub fn take(
    ctx: &Ctx,
    task: &str,
    reason: Option<String>,
    branch: Option<String>,
) -> Result<Report, Fail> {
    let session = ctx.session()?;
    let task = task.to_string();
    mutate(
        ctx,
        &session,
        Request::Take {
            task,
            reason,
            branch,
        },
    )
}

/// What an update sets: each `None` leaves that part of the claim as it is; what is added is
/// added to what the claim holds (or to the replacement given beside it).
#[derive(Debug, Default)]
pub struct Changes {
    pub paths: Option<Vec<String>>,
    pub resources: Option<Vec<String>>,
    pub purpose: Option<String>,
    pub add_paths: Vec<String>,
    pub add_resources: Vec<String>,
    /// Even over another live session's work in flight (see [`ClaimOptions::over_flight`]).
    pub over_flight: bool,
}

pub fn update(ctx: &Ctx, task: &str, changes: Changes) -> Result<Report, Fail> {
    let session = ctx.session()?;
    // The paths it names; those the claim holds already are left out where it is judged.
    let check = FlightCheck {
        session: session.clone(),
        task: task.to_string(),
        verb: "update",
        patterns: (changes.paths.iter().flatten())
            .chain(&changes.add_paths)
            .cloned()
            .collect(),
        on_purpose: changes.over_flight,
    };
    let request = Request::Update {
        task: task.to_string(),
        paths: changes.paths,
        resources: changes.resources,
        purpose: changes.purpose,
        add_paths: changes.add_paths,
        add_resources: changes.add_resources,
    };
    mutate_over_flight(ctx, &session, request, check, Vec::new())
}

/// [`mutate_with_log`] of a request that claims paths, checked first against other sessions'
/// work in flight on the rail it is planned on (refused over a live session's, unless on
/// purpose), and then the sessions it was made over told.
pub fn mutate_over_flight(
    ctx: &Ctx,
    session: &str,
    request: Request,
    mut check: FlightCheck,
    extra_log: Vec<String>,
) -> Result<Report, Fail> {
    let task = request.task().to_string();
    let mut found = None;
    let mut judge = |eval: &rail_core::model::Evaluation| -> Result<(), Fail> {
        // An update's paths that the claim holds already are its own.
        check.patterns.retain(|p| {
            !eval.claims.iter().any(|c| {
                c.task.as_deref() == Some(task.as_str())
                    && c.session == session
                    && c.paths.contains(p)
            })
        });
        found = Some(crate::ops::flight::judge_claim(ctx, eval, &check)?);
        Ok(())
    };
    let report = mutate_then(ctx, session, &task, || request, extra_log, Some(&mut judge))?;
    if let (true, Some(found)) = (report.changed, &found) {
        crate::ops::flight::claimed_over(ctx, session, &task, found, check.on_purpose);
    }
    Ok(report)
}

/// Runs one operation under the lock and returns what was done.
pub fn mutate(ctx: &Ctx, session: &str, request: Request) -> Result<Report, Fail> {
    mutate_with_log(ctx, session, request, Vec::new())
}

/// Runs one operation under the lock; `extra_log` lines are appended before the operation's
/// own line, in the same journalled write (the gate's verdict before its release). Returns
/// the plan that was applied (`changed` is false when core planned a no-op, e.g. a claim the
/// session already holds). Prints nothing on stdout (notes about recovered locks go to stderr).
pub fn mutate_with_log(
    ctx: &Ctx,
    session: &str,
    request: Request,
    extra_log: Vec<String>,
) -> Result<Report, Fail> {
    let task = request.task().to_string();
    mutate_then(ctx, session, &task, || request, extra_log, None)
}

/// [`mutate_with_log`] of the request `make` gives for `task`, asked for only once the rail has
/// been read and its facts gathered (a release's touched files are listed meanwhile).
/// A judgement of the rail a plan is made on, before the plan ([`mutate_then`]'s `check`).
type PlanCheck<'a> = dyn FnMut(&rail_core::model::Evaluation) -> Result<(), Fail> + 'a;

/// `check`, when given, judges the rail the plan is made on before it is (work in flight): on
/// the rail read before the lock when nobody held it, else under the lock.
fn mutate_then(
    ctx: &Ctx,
    session: &str,
    task: &str,
    make: impl FnOnce() -> Request,
    extra_log: Vec<String>,
    mut check: Option<&mut PlanCheck<'_>>,
) -> Result<Report, Fail> {
    // Refused here, at the edge, before the lock or the shared rail's queue is touched; core's
    // plan checks the request again for the hosts that have no edge of their own (wasm).
    rail_core::text::ident::validate_task(task).map_err(|e| Fail::usage(e.0))?;
    if let Some(remote) = ctx.remote()? {
        // A value over its limit never reaches the queue other machines read.
        let request = make();
        request
            .check_limits()
            .map_err(|e| Fail::usage(format!("{task}: {e}; nothing changed")))?;
        if let Some(check) = check.as_mut() {
            let texts = ctx.read(false)?;
            check(&ctx.judge(&Rail::load(&texts), Commits::IfNeeded).eval)?;
        }
        return crate::shared::mutate(ctx, remote, session, request, &extra_log);
    }
    // Planned before the lock, on the rail as it is now: the plan (overlap searches, commit
    // times, owner probes) is the expensive part, and every other claim and git command waits
    // while the lock is held (issue 28). Under the lock the plan is used as it is when the rail
    // is what it was planned on, byte for byte and time for time, else planned again. Only
    // when nobody holds the lock now: a read would wait for the holder, and then for the lock.
    let free = lock::free_now(&ctx.rail.path(CLAIMS_MD));
    let early = free.then(|| ctx.rail.read(false).ok()).flatten();
    let early = early.map(|texts| {
        let rail = Rail::load(&texts);
        let judged = ctx.judge(&rail, Commits::IfNeeded);
        (texts, rail, judged)
    });
    if let (Some((_, _, judged)), Some(check)) = (&early, check.as_mut()) {
        check(&judged.eval)?;
    }
    // Asked for now: after the slow reading, before the plan.
    let request = make();
    let early = early.map(|(texts, rail, judged)| {
        let plan = ops::plan_evaluated(&rail, &judged.eval, &judged.facts, session, &request);
        (texts, plan)
    });
    let held = Locked::take(ctx, session)?;
    let texts = restore_lost(ctx, &held.lock, ctx.read(true)?)?;
    let checked = early.is_some();
    let planned = match early {
        Some((before, plan)) if before == texts => plan,
        _ => {
            let rail = Rail::load(&texts);
            let judged = ctx.judge(&rail, Commits::IfNeeded);
            if let (false, Some(check)) = (checked, check.as_mut()) {
                if let Err(f) = check(&judged.eval) {
                    write_log_only(ctx, &held.lock, &texts, &held.log)?;
                    return Err(f);
                }
            }
            ops::plan_evaluated(&rail, &judged.eval, &judged.facts, session, &request)
        }
    };
    let Locked {
        lock,
        log: mut log_lines,
    } = held;
    let plan = match planned {
        Ok(plan) => plan,
        Err(refusal) => {
            write_log_only(ctx, &lock, &texts, &log_lines)?;
            return Err(refused(refusal));
        }
    };
    log_lines.extend(extra_log);
    log_lines.extend(plan.log_line.iter().cloned());
    ctx.rail
        .apply(&lock, &texts, &plan.edits, &log_lines)
        .map_err(Fail::env)?;
    // A take: the session it was taken from hears of it at its next hook call.
    if let (Some(repo), Some(lost)) = (
        &ctx.repo,
        (plan.log_line.as_deref()).and_then(rail_core::formats::notice::of_log_line),
    ) {
        crate::store::notice::post(repo, &lost, false);
    }
    // A claim in a shared rail made with RAIL_LOCAL=1 is provisional until the shared rail has
    // it.
    if !plan.noop && matches!(request, Request::Claim(_)) && env().local {
        if let Some(note) = crate::shared::record_provisional(ctx, session, &plan.task, &log_lines)
        {
            errln!("rail: {note}");
        }
    }
    Ok(Report::planned(&plan, !plan.noop))
}

/// The rail lock, held, with a crash's interrupted write finished, and the log lines that say
/// what taking it cleaned up (a stale lock broken, a journal replayed).
pub struct Locked {
    pub lock: RailLock,
    pub log: Vec<String>,
}

impl Locked {
    /// Takes the rail lock for `session`; each recovery is said on stderr and becomes a log
    /// line for the change about to be written.
    pub fn take(ctx: &Ctx, session: &str) -> Result<Locked, Fail> {
        let lock = ctx.lock(session)?;
        crate::faults::hold_lock();
        let mut log = Vec::new();
        for b in &lock.broken {
            errln!(
                "rail: recovered a stale lock held by {}: {}",
                b.holder,
                b.reason
            );
            log.push(
                LogEntry::new(ctx.now, LogEvent::LockBroken, None, Some(session))
                    .with("holder", b.holder.clone())
                    .with("reason", b.reason.clone())
                    .render(),
            );
        }
        let replayed = ctx
            .rail
            .recover(&lock)
            .map_err(|e| Fail::env(format!("recovering an interrupted write: {e}")))?;
        for note in lock.recovered.iter().cloned().chain(replayed) {
            errln!("rail: {note}");
            log.push(
                LogEntry::new(ctx.now, LogEvent::Recovered, None, Some(session))
                    .with("note", note)
                    .render(),
            );
        }
        Ok(Locked { lock, log })
    }
}

/// Under the lock: puts back claims Rail wrote that claims.md lost outside Rail since (a git
/// reset, stash, checkout or merge: `checkout::restore_as`) and logs those deleted by hand as
/// released, says so on stderr, and returns the texts as they now are. Before any operation,
/// so nobody is given a task a git command took from its holder.
pub fn restore_lost(ctx: &Ctx, lock: &RailLock, texts: RailTexts) -> Result<RailTexts, Fail> {
    let restore = ctx.rail.lost_claims(&texts, ctx.now);
    for lost in &restore.lost {
        errln!("rail: {}", lost.note);
    }
    // A hand release has a log line and no edit: it is recorded all the same.
    if restore.edits.is_empty() && restore.log_lines.is_empty() {
        return Ok(texts);
    }
    ctx.rail
        .apply(lock, &texts, &restore.edits, &restore.log_lines)
        .map_err(Fail::env)?;
    ctx.read(true)
}

/// Appends `line` to the log under the lock (an event with no claim to change).
pub fn log_only(ctx: &Ctx, session: &str, line: String) -> Result<(), Fail> {
    let lock = ctx.lock(session)?;
    let texts = ctx.read(true)?;
    write_log_only(ctx, &lock, &texts, &[line])
}

/// Records `lines` made on this machine under the rail lock (taken here, for `session`): in
/// claims.log, and on a shared rail in the outbox for the shared log.
pub fn record(ctx: &Ctx, session: &str, lines: &[String]) -> Result<(), Fail> {
    let lock = ctx.lock(session)?;
    let texts = ctx.read(true)?;
    crate::shared::record_local(ctx, &lock, &texts, lines).map_err(Fail::env)
}

fn write_log_only(
    ctx: &Ctx,
    lock: &RailLock,
    texts: &RailTexts,
    log_lines: &[String],
) -> Result<(), Fail> {
    if log_lines.is_empty() {
        return Ok(());
    }
    ctx.rail
        .apply(lock, texts, &[], log_lines)
        .map_err(Fail::env)
}
