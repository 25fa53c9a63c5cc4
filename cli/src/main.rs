//! `rail`: the native host for agents, git hooks and the merge driver.
//!
//! The CLI reads files, takes the lock, asks git, and prints; every decision is rail-core's.
//! Its layers, each using only those below it: `sys`, `fail`, `faults` and `out` (the OS, exit
//! codes, output) under `git` (git's plumbing) under `store` (the rail's files: the lock, the
//! journal, what Rail keeps in the git dir) under `context` (one resolved invocation) under
//! `shared` (the shared rail's transport) under `ops` (the operations, as data) under `agent`
//! (the agent host: hooks, the after-tool check, the MCP server) under `cmd` (a file per
//! command). docs/architecture.md has the code map.

#![allow(
    clippy::disallowed_methods,
    reason = "native only: the wasm size lints of clippy.toml bind core and wasm"
)]

#[macro_use]
mod out;

mod agent;
mod cmd;
mod context;
mod fail;
mod faults;
mod git;
mod ops;
mod shared;
mod store;
mod sys;

use std::path::PathBuf;

use clap::{CommandFactory, Parser};

use crate::cmd::Command;
use crate::context::{Ctx, Flags};
use crate::fail::Fail;

#[derive(Parser, Debug)]
#[command(
    name = "rail",
    version,
    about = "A ticket rail for parallel coding agents: claim tasks, paths and resources; see who holds what.",
    after_help = "Exit codes: 0 done · 1 refused or conflict found · 2 bad input or usage · 3 environment (not a git repo, lock wait timed out, I/O error)"
)]
pub struct Cli {
    /// Act as this session (default: $RAIL_SESSION, else the current branch; run by an agent, that
    /// agent's own session under the branch, e.g. main~claude-6a0c4e11).
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
    match dispatch(cli) {
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
    let flags = Flags {
        rail: cli.rail,
        session: cli.session,
        now: cli.now,
        json: cli.json,
    };
    match cli.command {
        // The merge driver runs inside git with no rail of its own; shell integration describes
        // the arguments: neither needs a rail.
        Command::MergeDriver(args) => return cmd::merge_driver::run(&args),
        Command::Completions(args) => return cmd::completions::run(&args, Cli::command()),
        Command::Man(args) => return cmd::man::run(&args, Cli::command()),
        // A hook answers through its exit code, whatever goes wrong.
        Command::Hook { kind } => std::process::exit(cmd::hook::run(&kind, flags)),
        Command::Mcp => return cmd::mcp::run(flags, cli.fetch),
        // A server's hook runs in a bare repository: no rail there.
        Command::VerifyPush(args) => return cmd::verify_push::run(&args),
        _ => {}
    }
    let ctx = Ctx::new(flags, cli.command.creates())?;
    // Reads of a shared rail say how old it is. Only reads ask (a change asks for itself): each
    // asking is a git process.
    // A remote that is refused (not a remote's name) stops every change; a read shows the local
    // copy and says why it is not the shared one (validate names the line of rail.yaml).
    let remote = match cli.command.reads().then(|| ctx.remote()) {
        Some(Ok(remote)) => remote,
        Some(Err(refused)) => {
            errln!("rail: {}; showing the local rail", refused.message);
            None
        }
        None => None,
    };
    if let Some(remote) = remote {
        let shown = cli.command.shows_verification(cli.json);
        if let Some(note) = shared::before_read(&ctx, remote, cli.fetch, shown)? {
            errln!("rail: {note}");
        }
    }
    cli.command.run(&ctx)
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// Every command, argument and option says what it is in `--help` (issue 46, item 6:
    /// `rail update --help` showed a bare `<TASK>` and `--purpose`).
    #[test]
    fn every_command_and_argument_has_a_description() {
        fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
            if cmd.get_about().is_none() && !path.is_empty() {
                missing.push(format!("`rail {path}` has no description"));
            }
            for arg in cmd.get_arguments() {
                let id = arg.get_id().as_str();
                if arg.is_hide_set() || matches!(id, "help" | "version") {
                    continue;
                }
                if arg.get_help().is_none() && arg.get_long_help().is_none() {
                    missing.push(format!("`rail {path}`: `{id}` has no description"));
                }
            }
            for sub in cmd.get_subcommands() {
                let name = format!("{path} {}", sub.get_name()).trim().to_string();
                walk(sub, &name, missing);
            }
        }
        let mut missing = Vec::new();
        walk(&super::Cli::command(), "", &mut missing);
        assert!(missing.is_empty(), "\n{}\n", missing.join("\n"));
    }
}
