//! The commands, one file each: its arguments (clap) and what it does with them, reading the
//! one resolved invocation (`crate::context::Ctx`) and printing what the operation it runs
//! (`crate::ops`) returns. Commands never import each other: what two share lives in `ops` (or
//! lower). This module lists them and dispatches.

pub mod board;
pub mod check;
pub mod claim;
pub mod completions;
pub mod doctor;
pub mod done;
pub mod flight;
pub mod hook;
pub mod init;
pub mod lock;
pub mod log;
pub mod man;
pub mod mcp;
pub mod merge_driver;
pub mod ready;
pub mod reconcile;
pub mod release;
pub mod renew;
pub mod sync;
pub mod take;
pub mod update;
pub mod validate;
pub mod verify_push;
pub mod who;
pub mod worktree;

use clap::Subcommand;

use crate::context::Ctx;
use crate::fail::Fail;

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Create claims.md if missing and configure the merge driver (idempotent).
    Init(init::InitArgs),
    /// Claim a task (refused if someone holds it or its paths/resources).
    Claim(claim::ClaimArgs),
    /// Release your claim; records the files actually touched (from git).
    Release(release::ReleaseArgs),
    /// Renew your claim: its lease runs again from now.
    Renew(renew::RenewArgs),
    /// Take over a stale claim (refused while it is live).
    Take(take::TakeArgs),
    /// Change the paths, resources or purpose of your claim.
    Update(update::UpdateArgs),
    /// Show the board: every claim, its state, conflicts, resources.
    #[command(alias = "status")]
    Board(board::BoardArgs),
    /// Who holds these paths.
    Who(who::WhoArgs),
    /// Work in flight: each session's files changed and not merged (all, or under PATHs).
    Flight(flight::FlightArgs),
    /// Check changes against your claims: outside your scope, or inside another session's.
    Check(check::CheckArgs),
    /// Print diagnostics as file:line:col: severity[code]: message.
    Validate(validate::ValidateArgs),
    /// Is every agent set up here guarded? Hooks in every worktree, hook commands that
    /// resolve, the agents' own folder trust, git hooks and merge driver; exit 1 if not.
    Doctor,
    /// Show who holds the rail lock and whether that process is alive; break only a dead one.
    Lock(lock::LockArgs),
    /// Show the log of what happened.
    Log(log::LogArgs),
    /// The git merge driver for claims.md (configured by `rail init`).
    MergeDriver(merge_driver::MergeDriverArgs),
    /// Fetch the shared rail (and the remote's branches) and mirror it into the main checkout.
    Sync(sync::SyncArgs),
    /// Put back claims that claims.md lost outside Rail (a git reset, stash, checkout or merge).
    Reconcile(reconcile::ReconcileArgs),
    /// Backlog tasks (`- [ ] task` lines) whose dependencies are released and nobody holds.
    Ready(ready::ReadyArgs),
    /// Agent hooks: `rail hook <agent>` reads that agent's payload on stdin.
    #[command(about = crate::agent::hook::about())]
    Hook {
        #[command(subcommand)]
        kind: crate::agent::hook::HookCall,
    },
    /// An MCP server on stdio: the rail's commands as tools for agents (docs/agents.md).
    Mcp,
    /// The gate: run the check, judge the diff against the claim, release only on a pass.
    Done(done::DoneArgs),
    /// Stations: `rail worktree TASK` makes one (a new worktree and branch, then the claim);
    /// `list` shows them; `remove` closes one.
    Worktree(worktree::WorktreeArgs),
    /// Print the completion script for a shell (README: "Shell completions and man page").
    Completions(completions::CompletionsArgs),
    /// For a git server's pre-receive hook: accept a push of one of the shared rail's refs only
    /// when it is proven (never a deletion, a rewind, an unsigned or unprovable commit, or a
    /// machine's ref signed by another machine). Reads the allowed signers from `HEAD`.
    VerifyPush(verify_push::VerifyPushArgs),
    /// Print rail's man page (roff): `rail man | man -l -`; `--dir` writes rail.1 and one page per command.
    Man(man::ManArgs),
}

impl Command {
    /// Whether the command makes a rail (`rail init`): `--rail DIR` need not hold one yet.
    pub fn creates(&self) -> bool {
        matches!(self, Command::Init(_))
    }

    /// Whether the command only reads the rail: on a shared rail it says how old its copy is
    /// first (a change asks the remote for itself; each asking is a git process).
    pub fn reads(&self) -> bool {
        match self {
            Command::Board(_)
            | Command::Who(_)
            | Command::Flight(_)
            | Command::Check(_)
            | Command::Validate(_)
            | Command::Log(_)
            | Command::Ready(_) => true,
            Command::Worktree(w) => w.lists(),
            _ => false,
        }
    }

    /// Whether the command's own output says how far the shared rail is verified (a board in
    /// every form, `rail flight --json` for the VS Code extension): then a read does not say it
    /// on stderr as well.
    pub fn shows_verification(&self, json: bool) -> bool {
        match self {
            Command::Board(_) => true,
            Command::Flight(_) => json,
            _ => false,
        }
    }

    /// Runs a command that works on a rail, with the invocation resolved.
    pub fn run(self, ctx: &Ctx) -> Result<(), Fail> {
        match self {
            Command::Init(args) => init::run(ctx, &args),
            Command::Claim(args) => claim::run(ctx, &args),
            Command::Release(args) => release::run(ctx, args),
            Command::Renew(args) => renew::run(ctx, &args),
            Command::Take(args) => take::run(ctx, args),
            Command::Update(args) => update::run(ctx, args),
            Command::Board(args) => board::run(ctx, &args),
            Command::Who(args) => who::run(ctx, &args),
            Command::Flight(args) => flight::run(ctx, &args),
            Command::Check(args) => check::run(ctx, &args),
            Command::Validate(args) => validate::run(ctx, &args),
            Command::Doctor => doctor::run(ctx),
            Command::Lock(args) => lock::run(ctx, &args),
            Command::Log(args) => log::run(ctx, &args),
            Command::Worktree(args) => worktree::run(ctx, args),
            Command::Done(args) => done::run(ctx, args),
            Command::Sync(args) => sync::run(ctx, &args),
            Command::Reconcile(args) => reconcile::run(ctx, &args),
            Command::Ready(args) => ready::run(ctx, &args),
            Command::MergeDriver(_)
            | Command::Hook { .. }
            | Command::Mcp
            | Command::Completions(_)
            | Command::VerifyPush(_)
            | Command::Man(_) => Err(Fail::usage(
                "this command is handled before the rail is located",
            )),
        }
    }
}
