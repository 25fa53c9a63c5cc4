//! `rail init`: claims.md if missing, the merge driver and the rail's lines in .gitattributes
//! and .gitignore (idempotent); with `--hooks` git's hooks, with `--agents` each agent's hooks
//! and the MCP server, with `--remote` a shared rail.

use std::fs;
use std::path::Path;

use rail_core::formats::rail_files::{CLAIMS_MD, LOG_FILE};

use crate::context::Ctx;
use crate::fail::Fail;
use crate::git;

const CLAIMS_HEADER: &str = "# Claims\n\n<!-- The rail: one line per claimed task, `task | session | time`, written by `rail claim`.\n     Lines inside comments or code blocks are never claims. -->\n";

#[derive(clap::Args, Debug)]
pub struct InitArgs {
    /// Also install the pre-commit and pre-push checks (chaining hooks already there).
    #[arg(long)]
    pub hooks: bool,
    /// Also write the rail section of AGENTS.md / CLAUDE.md and configure each agent found (or
    /// named with --agent): its hooks and the `rail mcp` server, merged into its own files.
    #[arg(long)]
    pub agents: bool,
    /// Share the rail across machines through this git remote (e.g. origin).
    #[arg(long, value_name = "NAME")]
    pub remote: Option<String>,
    #[command(flatten)]
    pub agent_args: crate::ops::setup::AgentsArgs,
}

/// Appends `line` to the work-tree file `path` (inside `root`) unless a line equal to it is
/// already there. True if written. Through [`crate::sys::railfile::write_inside`]: a committed link
/// (`.gitattributes -> ~/.bashrc`) is refused, never followed.
fn ensure_line(root: &Path, path: &Path, line: &str) -> Result<bool, Fail> {
    let describe = |e: std::io::Error| Fail::env(crate::sys::railfile::describe(path, &e));
    let existing = crate::sys::railfile::read_inside(root, path)
        .map_err(describe)?
        .unwrap_or_default();
    if existing.lines().any(|l| l.trim() == line) {
        return Ok(false);
    }
    let mut text = existing;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(line);
    text.push('\n');
    crate::sys::railfile::write_inside(root, path, text.as_bytes(), false).map_err(describe)?;
    Ok(true)
}

pub fn run(ctx: &Ctx, args: &InitArgs) -> Result<(), Fail> {
    // Naming agents asks for them.
    let agents = args.agents || !args.agent_args.only.is_empty();
    if args.agent_args.print && !agents {
        return Err(Fail::usage("--print goes with --agents"));
    }
    if agents && args.agent_args.print {
        crate::ops::setup::init_agents(ctx, &args.agent_args, &crate::ops::setup::rail_command())?;
        return Ok(());
    }
    let mut done: Vec<String> = Vec::new();
    let claims = ctx.rail.path(CLAIMS_MD);
    // Created only as a new file (a dangling link's target is never created); one already
    // there must be a plain file, as for every other command.
    let describe = |e: std::io::Error| Fail::env(crate::sys::railfile::describe(&claims, &e));
    match crate::sys::railfile::create_new(&claims) {
        Ok(mut f) => {
            use std::io::Write;
            if let Err(e) = f.write_all(CLAIMS_HEADER.as_bytes()) {
                drop(f);
                let _ = fs::remove_file(&claims);
                return Err(describe(e));
            }
            done.push(format!("created {}", claims.display()));
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            crate::sys::railfile::open_read(&claims).map_err(describe)?;
        }
        Err(e) => return Err(describe(e)),
    }
    let repo = ctx.repo.as_ref();
    if let Some(repo) = repo {
        let top = repo.main_checkout();
        // Paths in .gitattributes/.gitignore are relative to the checkout root.
        let rel = ctx.rail.root.canonicalize().ok().and_then(|r| {
            top.canonicalize()
                .ok()
                .and_then(|t| r.strip_prefix(t).ok().map(Path::to_path_buf))
        });
        if let Some(rel) = rel {
            let prefix = if rel.as_os_str().is_empty() {
                String::new()
            } else {
                format!("{}/", rel.display())
            };
            let attrs = top.join(".gitattributes");
            let ignore = top.join(".gitignore");
            // Both looked at before either is written: one refused means neither changes.
            for path in [&attrs, &ignore] {
                crate::sys::railfile::check_inside(&top, path)
                    .map_err(|e| Fail::env(crate::sys::railfile::describe(path, &e)))?;
            }
            if ensure_line(&top, &attrs, &format!("{prefix}{CLAIMS_MD} merge=rail"))? {
                done.push(format!(
                    "{}: {prefix}{CLAIMS_MD} merge=rail",
                    attrs.display()
                ));
            }
            if ensure_line(&top, &attrs, &format!("{prefix}{LOG_FILE} merge=union"))? {
                done.push(format!(
                    "{}: {prefix}{LOG_FILE} merge=union",
                    attrs.display()
                ));
            }
            for pattern in ["claims.md.lock*", "claims.md.journal", "claims/*.rail-tmp"] {
                if ensure_line(&top, &ignore, &format!("{prefix}{pattern}"))? {
                    done.push(format!("{}: {prefix}{pattern}", ignore.display()));
                }
            }
        }
        let driver = format!(
            "{} merge-driver %O %A %B %P",
            crate::ops::setup::rail_command()
        );
        if git::config_get(&top, "merge.rail.driver").as_deref() != Some(driver.as_str()) {
            git::config_set(&top, "merge.rail.name", "Rail claims merge").map_err(Fail::env)?;
            git::config_set(&top, "merge.rail.driver", &driver).map_err(Fail::env)?;
            done.push(format!("git config merge.rail.driver \"{driver}\""));
        }
        if args.hooks {
            done.extend(crate::ops::git_hooks::install_hooks(repo)?);
        }
        if agents {
            done.extend(crate::ops::setup::init_agents(
                ctx,
                &args.agent_args,
                &crate::ops::setup::rail_command(),
            )?);
        }
        if let Some(remote) = &args.remote {
            done.extend(crate::shared::init_remote(ctx, remote)?);
        }
    } else if args.hooks || args.remote.is_some() {
        return Err(Fail::env("--hooks needs a git repository"));
    }
    if ctx.json {
        outln_raw!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({ "ok": true, "done": done }))
                .unwrap_or_default()
        );
    } else if done.is_empty() {
        outln!("rail is already set up in {}", ctx.rail.root.display());
    } else {
        for d in &done {
            outln!("{d}");
        }
    }
    Ok(())
}
