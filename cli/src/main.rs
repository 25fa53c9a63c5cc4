//! `rail`: the native host for agents, git hooks and the merge driver.
//!
//! The CLI reads files, takes the lock, asks git, and prints; every decision is rail-core's.

#![allow(
    clippy::disallowed_methods,
    reason = "native only: the wasm size lints of clippy.toml bind core and wasm"
)]

#[macro_use]
mod out;

mod after;
mod cmd;
mod context;
mod exchange;
mod fail;
mod faults;
mod git;
mod gitconfig;
mod gitguard;
mod gitobjects;
mod gitstatus;
mod heartbeat;
mod hint;
mod lock;
mod mcp;
mod notice;
mod queues;
mod railfile;
mod render;
mod repo;
mod round;
mod shared;
mod store;
mod sys;

use std::path::PathBuf;

use clap::{Args, CommandFactory, Parser, Subcommand};

use crate::context::Ctx;
use crate::fail::Fail;

#[derive(Parser, Debug)]
#[command(
    name = "rail",
    version,
    about = "A ticket rail for parallel coding agents: claim tasks, paths and resources; see who holds what.",
    after_help = "Exit codes: 0 done · 1 refused or conflict found · 2 bad input or usage · 3 environment (not a git repo, lock wait timed out, I/O error)"
)]
struct Cli {
    /// Act as this session (default: $RAIL_SESSION, else the current branch).
    #[arg(long, global = true, value_name = "NAME")]
    session: Option<String>,
    /// The directory holding claims.md (default: $RAIL_DIR, else the main checkout).
    #[arg(long, global = true, value_name = "DIR")]
    rail: Option<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long, global = true)]
    json: bool,
    /// Evaluate as of this time (default: $RAIL_NOW, else now). For tests and replays.
    #[arg(long, global = true, value_name = "TIME")]
    now: Option<String>,
    /// With a shared rail: fetch it from the remote before reading.
    #[arg(long, global = true)]
    fetch: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Args, Debug, Clone, Default)]
pub struct ClaimArgs {
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
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Create claims.md if missing and configure the merge driver (idempotent).
    Init(cmd::admin::InitArgs),
    /// Claim a task (refused if someone holds it or its paths/resources).
    Claim {
        task: String,
        #[command(flatten)]
        args: ClaimArgs,
    },
    /// Release your claim; records the files actually touched (from git).
    Release {
        task: String,
        /// Record these files instead of asking git (repeatable).
        #[arg(long = "touched", value_name = "FILE")]
        touched: Vec<String>,
        /// Do not record touched files.
        #[arg(long, conflicts_with = "touched")]
        no_touched: bool,
        /// Branch the session forked from, for the touched-files diff (default: the main checkout's branch).
        #[arg(long, value_name = "REF")]
        base: Option<String>,
    },
    /// Renew your claim: its lease runs again from now.
    Renew { task: String },
    /// Take over a stale claim (refused while it is live).
    Take {
        task: String,
        /// Why (recorded in the log; default: why the claim is stale).
        #[arg(long, value_name = "TEXT")]
        reason: Option<String>,
        /// The branch whose commits keep the taken claim alive (default: the branch named like the session).
        #[arg(long, value_name = "BRANCH")]
        branch: Option<String>,
    },
    /// Change the paths, resources or purpose of your claim.
    Update {
        task: String,
        /// Replace the paths with these (repeatable).
        #[arg(long = "path", value_name = "GLOB")]
        paths: Vec<String>,
        /// Remove all paths.
        #[arg(long, conflicts_with = "paths")]
        clear_paths: bool,
        /// Replace the resources with these (repeatable).
        #[arg(long = "resource", value_name = "RES")]
        resources: Vec<String>,
        /// Remove all resources.
        #[arg(long, conflicts_with = "resources")]
        clear_resources: bool,
        #[arg(long, value_name = "TEXT")]
        purpose: Option<String>,
    },
    /// Show the board: every claim, its state, conflicts, resources.
    #[command(alias = "status")]
    Board(cmd::show::BoardArgs),
    /// Who holds these paths.
    Who {
        #[arg(required = true)]
        paths: Vec<String>,
    },
    /// Check changes against your claims: outside your scope, or inside another session's.
    Check(cmd::show::CheckArgs),
    /// Print diagnostics as file:line:col: severity[code]: message.
    Validate(cmd::show::ValidateArgs),
    /// Is every agent set up here guarded? Hooks in every worktree, hook commands that
    /// resolve, the agents' own folder trust, git hooks and merge driver; exit 1 if not.
    Doctor,
    /// Show who holds the rail lock and whether that process is alive; break only a dead one.
    Lock {
        /// Break the lock if its owner is dead (or the file is abandoned).
        #[arg(long = "break")]
        break_lock: bool,
        /// With --break: break it even if its owner is alive or on another host.
        #[arg(long, requires = "break_lock")]
        force: bool,
    },
    /// Show the log of what happened.
    Log {
        /// Only the last N entries.
        #[arg(short = 'n', long, value_name = "N")]
        limit: Option<usize>,
    },
    /// The git merge driver for claims.md (configured by `rail init`).
    MergeDriver {
        base: PathBuf,
        ours: PathBuf,
        theirs: PathBuf,
        pathname: Option<String>,
    },
    /// Fetch the shared rail (and the remote's branches) and mirror it into the main checkout.
    Sync,
    /// Put back claims that claims.md lost outside Rail (a git reset, stash, checkout or merge).
    Reconcile,
    /// Backlog tasks (`- [ ] task` lines) whose dependencies are released and nobody holds.
    Ready {
        /// Show every backlog task with its status.
        #[arg(long)]
        all: bool,
    },
    /// Agent hooks: `rail hook <agent>` reads that agent's payload on stdin.
    #[command(about = cmd::hook::about())]
    Hook {
        #[command(subcommand)]
        kind: cmd::hook::HookCall,
    },
    /// An MCP server on stdio: the rail's commands as tools for agents (docs/agents.md).
    Mcp,
    /// The gate: run the check, judge the diff against the claim, release only on a pass.
    Done {
        task: String,
        /// The check command (default: rail.yaml `check`).
        #[arg(long, value_name = "CMD")]
        check: Option<String>,
        /// Branch the session forked from (default: the main checkout's branch).
        #[arg(long, value_name = "REF")]
        base: Option<String>,
    },
    /// Stations: `rail worktree TASK` makes one (a new worktree and branch, then the claim);
    /// `list` shows them; `remove` closes one.
    Worktree(WorktreeArgs),
    /// Print the completion script for a shell (README: "Shell completions and man page").
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print rail's man page (roff): `rail man | man -l -`; `--dir` writes rail.1 and one page per command.
    Man {
        /// Write rail.1 and rail-COMMAND.1 into this directory (e.g. ~/.local/share/man/man1).
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

/// `rail worktree TASK [options]`, or `rail worktree list` / `rail worktree remove STATION`.
/// A task named like a subcommand is written after `--`: `rail worktree -- list`.
#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
struct WorktreeArgs {
    #[command(subcommand)]
    action: Option<WorktreeAction>,
    /// The task: its id is also the new branch (and session) unless --session names one.
    #[arg(required = true)]
    task: Option<String>,
    /// Start the branch from this ref (default: HEAD).
    #[arg(long, value_name = "REF")]
    base: Option<String>,
    /// Where to put the worktree (default: ../<repo>-<task>).
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    #[command(flatten)]
    args: ClaimArgs,
}

#[derive(Subcommand, Debug)]
enum WorktreeAction {
    /// Every station: path, branch, task, claim state, uncommitted files, commits not in the base.
    List {
        /// Judge commits against this branch (default: rail.yaml `stations.base`, else the main checkout's branch).
        #[arg(long, value_name = "BRANCH")]
        base: Option<String>,
    },
    /// Close a station: refused while it holds uncommitted changes or commits not in the base
    /// branch (unless --force); never the main checkout. Releases its claims, removes the
    /// worktree, deletes the branch only when merged.
    /// Give a worktree (one another tool made, or a station made before Rail's agent files
    /// existed) each agent's hooks, MCP server and rail section, as `rail worktree TASK` does:
    /// only files its branch does not track, kept out of git (docs/agents.md, "Stations").
    Guard {
        /// The worktree's path, a task id or a branch.
        station: String,
    },
    #[command(alias = "rm")]
    Remove {
        /// A task id, a branch, or the station's path (`./name` for one in this directory).
        station: String,
        /// Remove it even with uncommitted changes or unmerged commits (logged; a branch with
        /// unmerged commits is still kept).
        #[arg(long)]
        force: bool,
        /// Judge commits against this branch (default: rail.yaml `stations.base`, else the main checkout's branch).
        #[arg(long, value_name = "BRANCH")]
        base: Option<String>,
    },
}

fn main() {
    std::process::exit(run());
}

fn run() -> i32 {
    sys::no_file_size_signal();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() {
                fail::USAGE
            } else {
                fail::OK
            };
            let _ = e.print();
            return code;
        }
    };
    let json = cli.json;
    let result = dispatch(cli);
    match result {
        Ok(()) => fail::OK,
        Err(f) => {
            if json {
                let value = f.json.clone().unwrap_or_else(
                    || serde_json::json!({ "ok": false, "code": f.code, "error": f.message }),
                );
                outln_raw!(
                    "{}",
                    serde_json::to_string_pretty(&value).unwrap_or_default()
                );
            }
            if !f.message.is_empty() {
                errln!("rail: {}", f.message);
            }
            f.code
        }
    }
}

fn dispatch(cli: Cli) -> Result<(), Fail> {
    // The merge driver runs inside git with no rail of its own; it needs no context.
    if let Command::MergeDriver {
        base,
        ours,
        theirs,
        pathname,
    } = &cli.command
    {
        return cmd::admin::merge_driver(base, ours, theirs, pathname.as_deref());
    }
    // Shell integration describes the arguments; it needs no rail either.
    if let Command::Completions { shell } = cli.command {
        return completions(shell);
    }
    if let Command::Man { dir } = cli.command {
        return man_page(dir);
    }
    if let Command::Hook { kind } = &cli.command {
        // A hook answers through its exit code, whatever goes wrong.
        // The hook moves to the agent's directory before finding the rail: a relative --rail
        // means the one from where the hook was started.
        let rail = cli.rail.map(|p| std::path::absolute(&p).unwrap_or(p));
        let (session, now, json) = (cli.session, cli.now, cli.json);
        let make_ctx = move || Ctx::new(rail, session, now, json, false);
        std::process::exit(cmd::hook::run(kind, make_ctx));
    }
    if let Command::Mcp = &cli.command {
        // Each tool call makes its own context (the time and the branch are read per call).
        return mcp::serve(mcp::tools::Options {
            rail: cli.rail,
            session: cli.session,
            now: cli.now,
            fetch: cli.fetch,
        });
    }
    let creating = matches!(cli.command, Command::Init(_));
    let ctx = Ctx::new(cli.rail, cli.session, cli.now, cli.json, creating)?;
    // Reads of a shared rail say how old it is. Only reads ask (a mutation asks for itself):
    // each asking is a git process.
    let reads = matches!(
        cli.command,
        Command::Board(_)
            | Command::Who { .. }
            | Command::Check(_)
            | Command::Validate(_)
            | Command::Log { .. }
            | Command::Ready { .. }
            | Command::Worktree(WorktreeArgs {
                action: Some(WorktreeAction::List { .. }),
                ..
            })
    );
    if let Some(remote) = reads.then(|| shared::remote_of(&ctx)).flatten() {
        if let Some(note) = shared::before_read(&ctx, &remote, cli.fetch)? {
            errln!("rail: {note}");
        }
    }
    let print = |outcome: cmd::mutate::Outcome| cmd::mutate::print_outcome(&ctx, &outcome);
    match cli.command {
        Command::Init(args) => cmd::admin::init(&ctx, &args),
        Command::Claim { task, args } => cmd::mutate::claim(&ctx, &task, &args).map(print),
        Command::Release {
            task,
            touched,
            no_touched,
            base,
        } => cmd::mutate::release(&ctx, &task, touched, no_touched, base.as_deref()).map(print),
        Command::Renew { task } => cmd::mutate::renew(&ctx, &task).map(print),
        Command::Take {
            task,
            reason,
            branch,
        } => cmd::mutate::take(&ctx, &task, reason, branch).map(print),
        Command::Update {
            task,
            paths,
            clear_paths,
            resources,
            clear_resources,
            purpose,
        } => cmd::mutate::update(
            &ctx,
            &task,
            (clear_paths || !paths.is_empty()).then_some(paths),
            (clear_resources || !resources.is_empty()).then_some(resources),
            purpose,
        )
        .map(print),
        Command::Board(args) => cmd::show::board(&ctx, &args),
        Command::Who { paths } => cmd::show::who(&ctx, &paths),
        Command::Check(args) => cmd::show::check(&ctx, &args),
        Command::Validate(args) => cmd::show::validate(&ctx, &args),
        Command::Doctor => cmd::doctor::doctor(&ctx),
        Command::Lock { break_lock, force } => cmd::admin::lock(&ctx, break_lock, force),
        Command::Log { limit } => cmd::show::log(&ctx, limit),
        Command::Worktree(w) => match (w.action, w.task) {
            (Some(WorktreeAction::List { base }), _) => cmd::station::list(&ctx, base.as_deref()),
            (Some(WorktreeAction::Guard { station }), _) => cmd::station::guard(&ctx, &station),
            (
                Some(WorktreeAction::Remove {
                    station,
                    force,
                    base,
                }),
                _,
            ) => cmd::station::remove(&ctx, &station, force, base.as_deref()),
            (None, Some(task)) => {
                cmd::mutate::worktree(&ctx, &task, w.base.as_deref(), w.dir, &w.args)
            }
            (None, None) => Err(Fail::usage(
                "rail worktree needs a TASK, `list`, `guard` or `remove`",
            )),
        },
        Command::Done { task, check, base } => cmd::gate::done(&ctx, &task, check, base.as_deref()),
        Command::Sync => cmd::admin::sync(&ctx),
        Command::Reconcile => cmd::admin::reconcile(&ctx),
        Command::Ready { all } => cmd::show::ready(&ctx, all),
        Command::MergeDriver { .. }
        | Command::Hook { .. }
        | Command::Mcp
        | Command::Completions { .. }
        | Command::Man { .. } => handled_before_context(),
    }
}

/// The completion script clap_complete derives from the definitions above, so it never lags a
/// new command or flag. Written through `out!` (a closed pipe is not a crash).
fn completions(shell: clap_complete::Shell) -> Result<(), Fail> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "rail", &mut script);
    out!("{}", String::from_utf8_lossy(&script));
    Ok(())
}

/// The man pages, rendered by clap_mangen from the same definitions: rail(1) lists the commands,
/// the global options and the exit codes (`after_help`); with `dir`, each command's page
/// (rail-claim(1), …, which rail(1) refers to) is written beside it.
fn man_page(dir: Option<PathBuf>) -> Result<(), Fail> {
    if let Some(dir) = dir {
        std::fs::create_dir_all(&dir)
            .and_then(|()| clap_mangen::generate_to(Cli::command(), &dir))
            .map_err(|e| Fail::env(format!("{}: {e}", dir.display())))?;
        outln!("wrote rail.1 and a page per command to {}", dir.display());
        return Ok(());
    }
    let mut page = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut page)
        .map_err(|e| Fail::env(format!("cannot render the man page: {e}")))?;
    out!("{}", String::from_utf8_lossy(&page));
    Ok(())
}

fn handled_before_context() -> Result<(), Fail> {
    Err(Fail::usage(
        "this command is handled before the rail is located",
    ))
}
