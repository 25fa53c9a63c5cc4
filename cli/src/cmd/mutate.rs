//! The commands that change the rail: claim, release, renew, take, update, worktree.
//!
//! Each one: take the lock, finish any crashed write, read the files, let core plan, apply the
//! plan's edits and log line, release the lock. Refusals change nothing.
//!
//! Each returns what happened as data and prints nothing on stdout: an [`Outcome`], core's plan
//! as the `--json` document (`{"ok": true, "plan": …}`) with its message as the CLI words it.
//! It is an `Outcome` rather than the plan itself because on a shared rail the operation may be
//! carried out by another Rail process of the machine (the exchange's leader), which hands back
//! exactly that. The CLI prints it ([`print_outcome`]); `rail mcp` returns it as a tool result.
//! Both hosts run these same functions, under the same lock.

use std::path::{Path, PathBuf};

use rail_core::change::ops::{self, ClaimRequest, Request};
use rail_core::formats::log::{LogEntry, LogEvent as Event};
use rail_core::model::input::RailTexts;

use crate::context::{Commits, Ctx};
pub use crate::exchange::Outcome;
use crate::fail::Fail;
use crate::git;
use crate::lock::{self, RailLock};
use crate::repo::Repo;
use crate::ClaimArgs;

fn claim_request(task: &str, args: &ClaimArgs) -> Result<ClaimRequest, Fail> {
    let pid = match args.pid.clone().or_else(|| {
        std::env::var("RAIL_OWNER_PID")
            .ok()
            .filter(|s| !s.is_empty())
    }) {
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

pub fn claim(ctx: &Ctx, task: &str, args: &ClaimArgs) -> Result<Outcome, Fail> {
    let session = ctx.session()?;
    let req = claim_request(task, args)?;
    mutate(ctx, &session, Request::Claim(req))
}

pub fn release(
    ctx: &Ctx,
    task: &str,
    touched: Vec<String>,
    no_touched: bool,
    base: Option<&str>,
) -> Result<Outcome, Fail> {
    let session = ctx.session()?;
    rail_core::text::ident::validate_task(task).map_err(|e| Fail::usage(e.0))?;
    let release = |touched| Request::Release {
        task: task.to_string(),
        touched,
        done: false,
    };
    if no_touched || !touched.is_empty() {
        return mutate(ctx, &session, release(touched));
    }
    // git lists the touched files in a thread of its own while this one reads the rail and
    // gathers its facts: the release waits for the slower of the two, not for both.
    let (repo, root) = (ctx.repo.clone(), ctx.rail.root.clone());
    std::thread::scope(|scope| {
        let lister = scope.spawn(|| touched_in(repo.as_ref(), &root, base));
        mutate_then(
            ctx,
            &session,
            task,
            || release(lister.join().unwrap_or_default()),
            Vec::new(),
        )
    })
}

/// The files this session's worktree changed since it forked from the main checkout's branch.
pub fn touched_files(ctx: &Ctx, base: Option<&str>) -> Vec<String> {
    touched_in(ctx.repo.as_ref(), &ctx.rail.root, base)
}

/// [`touched_files`] of the checkout `repo`, for the rail at `rail_root`.
fn touched_in(repo: Option<&Repo>, rail_root: &Path, base: Option<&str>) -> Vec<String> {
    let Some(repo) = repo else {
        return Vec::new();
    };
    let main_branch = crate::repo::head_branch(&repo.common_dir);
    let own = repo.branch();
    let base = base
        .map(str::to_string)
        .or_else(|| main_branch.filter(|m| Some(m) != own.as_ref()));
    match git::session_changes_of(repo, base.as_deref()) {
        Ok(files) => work_files(rail_root, &repo.worktree, files),
        Err(e) => {
            errln!("rail: could not list touched files ({e}); releasing without them");
            Vec::new()
        }
    }
}

/// The rail's own files are not part of anyone's work (core's
/// [`rail_core::formats::rail_files::is_rail_file`]). `files` are relative to `worktree`; they are
/// the rail's only where the rail lives at that worktree's root.
pub fn without_rail_files(
    ctx: &Ctx,
    worktree: &std::path::Path,
    files: Vec<String>,
) -> Vec<String> {
    work_files(&ctx.rail.root, worktree, files)
}

fn work_files(rail_root: &Path, worktree: &Path, files: Vec<String>) -> Vec<String> {
    let same_dir = worktree.canonicalize().ok() == rail_root.canonicalize().ok();
    if !same_dir {
        return files;
    }
    rail_core::formats::rail_files::work_files(files)
}

pub fn renew(ctx: &Ctx, task: &str) -> Result<Outcome, Fail> {
    let session = ctx.session()?;
    mutate(
        ctx,
        &session,
        Request::Renew {
            task: task.to_string(),
        },
    )
}

pub fn take(
    ctx: &Ctx,
    task: &str,
    reason: Option<String>,
    branch: Option<String>,
) -> Result<Outcome, Fail> {
    let session = ctx.session()?;
    mutate(
        ctx,
        &session,
        Request::Take {
            task: task.to_string(),
            reason,
            branch,
        },
    )
}

pub fn update(
    ctx: &Ctx,
    task: &str,
    paths: Option<Vec<String>>,
    resources: Option<Vec<String>>,
    purpose: Option<String>,
) -> Result<Outcome, Fail> {
    let session = ctx.session()?;
    mutate(
        ctx,
        &session,
        Request::Update {
            task: task.to_string(),
            paths,
            resources,
            purpose,
        },
    )
}

/// Runs one operation under the lock and returns what was done.
pub fn mutate(ctx: &Ctx, session: &str, request: Request) -> Result<Outcome, Fail> {
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
) -> Result<Outcome, Fail> {
    let task = request.task().to_string();
    mutate_then(ctx, session, &task, || request, extra_log)
}

/// [`mutate_with_log`] of the request `make` gives for `task`, asked for only once the rail has
/// been read and its facts gathered (a release's touched files are listed meanwhile).
fn mutate_then(
    ctx: &Ctx,
    session: &str,
    task: &str,
    make: impl FnOnce() -> Request,
    extra_log: Vec<String>,
) -> Result<Outcome, Fail> {
    rail_core::text::ident::validate_task(task).map_err(|e| Fail::usage(e.0))?;
    if let Some(remote) = crate::shared::remote_of(ctx) {
        return crate::shared::mutate(ctx, &remote, session, make(), &extra_log);
    }
    // Planned before the lock, on the rail as it is now: the plan (overlap searches, commit
    // times, owner probes) is the expensive part, and every other claim and git command waits
    // while the lock is held (issue 28). Under the lock the plan is used as it is when the rail
    // is what it was planned on, byte for byte and time for time, else planned again. Only
    // when nobody holds the lock now: a read would wait for the holder, and then for the lock.
    let free = crate::lock::free_now(&ctx.rail.path(rail_core::formats::rail_files::CLAIMS_MD));
    let early = free
        .then(|| ctx.rail.read(false).ok())
        .flatten()
        .map(|texts| {
            let rail = rail_core::model::Rail::load(&texts);
            let facts = ctx.facts_for(&rail, Commits::IfNeeded);
            (texts, rail, facts)
        });
    // Asked for now: after the slow reading, before the plan.
    let request = make();
    let early = early.map(|(texts, rail, facts)| {
        let plan = ops::plan_on(&rail, &facts, session, &request);
        (texts, plan)
    });
    let lock = ctx.lock(session)?;
    crate::faults::hold_lock();
    let mut log_lines = Vec::new();
    for b in &lock.broken {
        errln!(
            "rail: recovered a stale lock held by {}: {}",
            b.holder,
            b.reason
        );
        log_lines.push(
            LogEntry::new(ctx.now, Event::LockBroken, None, Some(session))
                .with("holder", b.holder.clone())
                .with("reason", b.reason.clone())
                .render(),
        );
    }
    for note in &lock.recovered {
        errln!("rail: {note}");
        log_lines.push(
            LogEntry::new(ctx.now, Event::Recovered, None, Some(session))
                .with("note", note.clone())
                .render(),
        );
    }
    match ctx.rail.recover(&lock) {
        Ok(Some(note)) => {
            errln!("rail: {note}");
            log_lines.push(
                LogEntry::new(ctx.now, Event::Recovered, None, Some(session))
                    .with("note", note)
                    .render(),
            );
        }
        Ok(None) => {}
        Err(e) => return Err(Fail::env(format!("recovering an interrupted write: {e}"))),
    }
    let texts = restore_lost(ctx, &lock, ctx.read(true)?)?;
    let planned = match early {
        Some((before, plan)) if before == texts => plan,
        _ => {
            let rail = rail_core::model::Rail::load(&texts);
            let facts = ctx.facts_for(&rail, Commits::IfNeeded);
            ops::plan_on(&rail, &facts, session, &request)
        }
    };
    match planned {
        Ok(plan) => {
            log_lines.extend(extra_log);
            if let Some(line) = &plan.log_line {
                log_lines.push(line.clone());
            }
            ctx.rail
                .apply(&lock, &texts, &plan.edits, &log_lines)
                .map_err(Fail::env)?;
            let outcome = crate::shared::planned(&plan, !plan.noop);
            // A take: the session it was taken from hears of it at its next hook call.
            if let (Some(repo), Some(lost)) = (
                &ctx.repo,
                plan.log_line
                    .as_deref()
                    .and_then(rail_core::formats::notice::of_log_line),
            ) {
                crate::notice::post(repo, &lost, false);
            }
            // A claim in a shared rail made with RAIL_LOCAL=1 is provisional until the shared
            // rail has it.
            if !plan.noop && matches!(request, Request::Claim(_)) && crate::shared::local_only() {
                if let Some(note) =
                    crate::shared::record_provisional(ctx, session, &plan.task, &log_lines)
                {
                    errln!("rail: {note}");
                }
            }
            drop(lock);
            Ok(outcome)
        }
        Err(refusal) => {
            write_log_only(ctx, &lock, &texts, &log_lines)?;
            drop(lock);
            Err(refused(refusal))
        }
    }
}

/// Under the lock: puts back claims Rail wrote that claims.md lost outside Rail since (a git
/// reset, stash, checkout or merge: `checkout::restore_as`) and logs those deleted by hand as
/// released, says so on stderr, and returns the
/// texts as they now are. Before any operation, so nobody is given a task a git command took
/// from its holder.
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

/// Prints what an operation did: core's message with its hint worded as a command line, or
/// with `--json` the plan as data (each consumer words the hint its own way: the VS Code
/// extension as a button, `rail mcp` as a tool call).
pub fn print_outcome(ctx: &Ctx, outcome: &Outcome) {
    match (&outcome.json, ctx.json) {
        (Some(json), true) => {
            outln_raw!("{}", serde_json::to_string_pretty(json).unwrap_or_default())
        }
        _ => outln!("{}", outcome.text),
    }
}

/// A refusal as the CLI reports it: exit code, and on stderr the message with the hint as a
/// command line. The JSON keeps core's message and the hint as data.
pub fn refused(refusal: ops::Refusal) -> Fail {
    Fail {
        code: refusal.exit_code(),
        message: crate::hint::say(&refusal.message, refusal.hint.as_ref()),
        json: Some(serde_json::json!({ "ok": false, "refusal": refusal })),
    }
}

/// Appends `line` to the log under the lock (an event with no claim to change).
pub fn log_only(ctx: &Ctx, session: &str, line: String) -> Result<(), Fail> {
    let lock = ctx.lock(session)?;
    let texts = ctx.read(true)?;
    write_log_only(ctx, &lock, &texts, &[line])
}

fn write_log_only(
    ctx: &Ctx,
    lock: &lock::RailLock,
    texts: &rail_core::model::input::RailTexts,
    log_lines: &[String],
) -> Result<(), Fail> {
    if log_lines.is_empty() {
        return Ok(());
    }
    ctx.rail
        .apply(lock, texts, &[], log_lines)
        .map_err(Fail::env)
}

/// What to do when the station's branch has a worktree already.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Existing {
    /// `rail worktree TASK`: git refuses the branch, and nothing is made.
    Refuse,
    /// An agent's `--worktree NAME`: go back into it (core `station::reentry`), as the agent
    /// would into its own worktree of that name.
    Reenter,
}

/// A station made, or gone back into: the one station code behind `rail worktree TASK` and an
/// agent's worktree hook (`rail hook claude` on WorktreeCreate). Prints nothing.
pub struct Made {
    pub task: String,
    pub dir: PathBuf,
    pub branch: String,
    /// The claim, as `rail claim` would report it.
    pub claim: Outcome,
    /// An existing worktree of the branch was gone back into ([`Existing::Reenter`]).
    pub reentered: bool,
    pub guarded: Option<crate::cmd::agents::Guarded>,
    /// Why the station is not guarded, when it could not be.
    pub unguarded: Option<String>,
}

impl Made {
    pub fn dir_text(&self) -> String {
        self.dir.display().to_string()
    }
}

/// A station for `task`: the claim first (a station for a task someone else holds is never
/// made), then the worktree on its branch — the task, unless `--session`/`RAIL_SESSION` names
/// the session — at `dir` (default `../<repo>-<branch>`), then its guard: the agents set up in
/// the main checkout get their files there too, committed or not. A worktree that cannot be
/// made releases the claim it made. A station that could not be guarded is kept, and says so.
pub fn station(
    ctx: &Ctx,
    task: &str,
    base: Option<&str>,
    dir: Option<PathBuf>,
    args: &ClaimArgs,
    existing: Existing,
) -> Result<Made, Fail> {
    rail_core::text::ident::validate_task(task).map_err(|e| Fail::usage(e.0))?;
    let repo = ctx
        .repo
        .as_ref()
        .ok_or_else(|| Fail::env("rail worktree needs a git repository"))?;
    // The station's branch is the session: --session / RAIL_SESSION if given, else the task.
    let branch = ctx
        .explicit_session()
        .map(str::to_string)
        .unwrap_or_else(|| task.to_string());
    rail_core::text::ident::validate_session(&branch).map_err(|e| Fail::usage(e.0))?;
    let main = repo.main_checkout();
    let there = match existing {
        Existing::Refuse => None,
        Existing::Reenter => {
            let survey = crate::cmd::station::survey(ctx, None)?;
            rail_core::model::station::reentry(&survey.stations, &branch)
                .map_err(Fail::usage)?
                .map(|i| PathBuf::from(&survey.stations[i].facts.path))
        }
    };
    let reentered = there.is_some();
    let dir = there.or(dir).unwrap_or_else(|| {
        let name = main
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "repo".into());
        main.parent()
            .unwrap_or(&main)
            .join(format!("{name}-{}", branch.replace('/', "-")))
    });
    // Claim first: a station for a task someone else holds must not be created.
    let req = claim_request(task, args)?;
    let branch_for_claim = ClaimRequest {
        branch: None,
        ..req
    };
    let claim = mutate_with_log(ctx, &branch, Request::Claim(branch_for_claim), Vec::new())?;
    let dir_s = dir.display().to_string();
    if !reentered {
        let mut git_args = vec!["worktree", "add", "-b", branch.as_str(), dir_s.as_str()];
        if let Some(b) = base {
            git_args.push(b);
        }
        if let Err(e) = git::run(&main, &git_args) {
            // Undo the claim so a failed station does not hold the task; but only a claim this
            // command made: a task the session already held stays held.
            let undone = claim.changed
                && mutate_with_log(
                    ctx,
                    &branch,
                    Request::Release {
                        task: task.to_string(),
                        touched: Vec::new(),
                        done: false,
                    },
                    Vec::new(),
                )
                .is_ok();
            return Err(Fail::env(format!(
                "creating the worktree: {e}{}",
                if undone {
                    format!("; the claim of {task} made for it is released again")
                } else {
                    String::new()
                }
            )));
        }
    }
    let (guarded, unguarded) =
        match crate::cmd::agents::guard_station(repo, &dir, &crate::cmd::admin::rail_command()) {
            Ok(g) => (Some(g), None),
            Err(e) => (
                None,
                Some(format!(
                    "the station is not guarded: {}; agents started there run without Rail's hooks until `rail worktree guard {}` succeeds",
                    e.message,
                    crate::cmd::admin::shell_quote(&dir_s)
                )),
            ),
        };
    Ok(Made {
        task: task.to_string(),
        dir,
        branch,
        claim,
        reentered,
        guarded,
        unguarded,
    })
}

/// `rail worktree TASK`: a station — the claim, a new worktree and branch, its guard.
pub fn worktree(
    ctx: &Ctx,
    task: &str,
    base: Option<&str>,
    dir: Option<PathBuf>,
    args: &ClaimArgs,
) -> Result<(), Fail> {
    let made = station(ctx, task, base, dir, args, Existing::Refuse)?;
    let (dir_s, branch) = (made.dir_text(), &made.branch);
    // With --json, stdout carries one document: the station's (or the refusal or error, from
    // main) — never the claim's plan followed by a worktree error.
    if ctx.json {
        outln_raw!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "ok": true, "task": task, "dir": dir_s, "branch": branch,
                // The editor shows this sentence: it says the station is guarded, and by what.
                "message": match made.guarded.as_ref().and_then(|g| g.message()) {
                    Some(g) => format!("station ready: {dir_s} on branch {branch}; {g}"),
                    None => format!("station ready: {dir_s} on branch {branch}"),
                },
                "guarded": made.guarded, "unguarded": made.unguarded,
            }))
            .unwrap_or_default()
        );
    } else {
        print_outcome(ctx, &made.claim);
        outln!("station ready: {dir_s} on branch {branch}");
        if let Some(m) = made.guarded.as_ref().and_then(|g| g.message()) {
            outln!("{m}");
        }
        outln!("work there: cd {dir_s}");
    }
    if let Some(m) = &made.unguarded {
        errln!("rail: {m}");
    }
    Ok(())
}
