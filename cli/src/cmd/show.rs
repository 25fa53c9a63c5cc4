//! The commands that read: board, who, check, validate, log.
//!
//! Board, who, check and ready each have a function returning core's result as data
//! (`board_model`, `who_holds`, `check_scope`, `ready_tasks`), which the CLI prints and `rail
//! mcp` returns as a tool result; their text forms (`who_text`, `ready_text`) are shared too.

use std::path::PathBuf;

use clap::Args;
use rail_core::model::board;
use rail_core::model::scope::{self, FileClass};
use rail_core::model::Rail;
use rail_core::text::diagnostic::Severity;

use crate::context::{Commits, Ctx};
use crate::fail::{self, Fail};
use crate::git;
use crate::render;

#[derive(Args, Debug)]
pub struct BoardArgs {
    /// Write a self-contained HTML board (page, wasm and this rail) to FILE.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

fn print_json<T: serde::Serialize>(value: &T) {
    outln_raw!(
        "{}",
        serde_json::to_string_pretty(value).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    );
}

/// The board model: what `rail board --json` prints.
pub fn board_model(ctx: &Ctx) -> Result<board::Board, Fail> {
    let texts = ctx.read(false)?;
    let facts = ctx.facts(&texts, Commits::Always);
    Ok(board::build(&texts, &facts))
}

pub fn board(ctx: &Ctx, args: &BoardArgs) -> Result<(), Fail> {
    if let Some(path) = &args.html {
        let texts = ctx.read(false)?;
        let facts = ctx.facts(&texts, Commits::Always);
        return crate::cmd::html::write_board_html(&texts, &facts, path);
    }
    let board = board_model(ctx)?;
    if ctx.json {
        print_json(&board);
    } else {
        // The board escapes each value itself, so its colour codes survive.
        out_raw!(
            "{}",
            render::board(&board, &ctx.rail.root, render::use_color())
        );
    }
    Ok(())
}

/// Who holds each of `paths` (core's `scope::who`).
pub fn who_holds(ctx: &Ctx, paths: &[String]) -> Result<Vec<scope::Who>, Fail> {
    let texts = ctx.read(false)?;
    let rail = Rail::load(&texts);
    let facts = ctx.facts_for(&rail, Commits::IfNeeded);
    let eval = rail.evaluate(&facts);
    Ok(scope::who(&eval, paths))
}

/// `rail who`'s text: a line per path and holder.
pub fn who_text(answers: &[scope::Who]) -> String {
    let mut text = String::new();
    for answer in answers {
        if answer.holders.is_empty() {
            text.push_str(&format!("{}: nobody\n", answer.path));
            continue;
        }
        for h in &answer.holders {
            text.push_str(&format!(
                "{}: {} ({}, {}) via `{}`\n",
                answer.path,
                h.session,
                h.task.as_deref().unwrap_or("no task"),
                h.state.as_str(),
                h.pattern
            ));
        }
    }
    text
}

pub fn who(ctx: &Ctx, paths: &[String]) -> Result<(), Fail> {
    let answers = who_holds(ctx, paths)?;
    if ctx.json {
        print_json(&answers);
    } else {
        out!("{}", who_text(&answers));
    }
    Ok(())
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Check the files staged for commit (for the pre-commit hook).
    #[arg(long, conflicts_with = "files")]
    pub staged: bool,
    /// Check the commits being pushed, read from stdin as git's pre-push hook gives them.
    #[arg(long, conflicts_with_all = ["files", "staged"])]
    pub pre_push: bool,
    /// Report changes outside your declared paths without failing.
    #[arg(long)]
    pub warn_drift: bool,
    /// Branch the session forked from (default: the main checkout's branch).
    #[arg(long, value_name = "REF")]
    pub base: Option<String>,
    /// Files to check (default: everything the session changed).
    pub files: Vec<String>,
}

/// `RAIL_BYPASS=reason`: a person's explicit way past the hooks, always logged.
fn bypass(ctx: &Ctx, session: &str, what: &str) -> Result<bool, Fail> {
    let named = (!session.is_empty()).then_some(session);
    let Some(reason) = std::env::var("RAIL_BYPASS").ok().filter(|r| !r.is_empty()) else {
        return Ok(false);
    };
    let reason = if reason == "1" {
        "no reason given".to_string()
    } else {
        reason
    };
    let lock = ctx.lock(named.unwrap_or("(no session)"))?;
    let texts = ctx.read(true)?;
    let line = rail_core::formats::log::LogEntry::new(
        ctx.now,
        rail_core::formats::log::LogEvent::Bypass,
        None,
        named,
    )
    .with("check", what)
    .with("reason", reason.clone())
    .render();
    crate::shared::record_local(ctx, &lock, &texts, &[line]).map_err(Fail::env)?;
    errln!("rail: {what} bypassed by RAIL_BYPASS ({reason}); this is recorded in claims.log");
    Ok(true)
}

/// Files changed by the commits git is about to push (pre-push stdin:
/// `<local ref> <local sha> <remote ref> <remote sha>` per line): every commit of the local
/// side that the remote side (or, for a new branch, any remote branch) does not have.
fn pushed_files(repo: &crate::repo::Repo) -> Result<Vec<String>, Fail> {
    use std::io::Read;
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .map_err(|e| Fail::env(format!("reading the pushed refs: {e}")))?;
    let zero = |sha: &str| sha.chars().all(|c| c == '0');
    let mut files = Vec::new();
    for line in input.lines() {
        let parts: Vec<&str> = line.split_whitespace().collect();
        let [_, local, _, remote] = parts.as_slice() else {
            continue;
        };
        if zero(local) {
            continue; // a deletion pushes no files
        }
        let not = if zero(remote) {
            "--remotes".to_string()
        } else {
            remote.to_string()
        };
        let out = git::run(
            &repo.worktree,
            &[
                "log",
                "--format=",
                "--name-only",
                "-z",
                "--no-renames",
                local,
                "--not",
                &not,
            ],
        )
        .map_err(Fail::env)?;
        files.extend(
            out.split(['\0', '\n'])
                .filter(|s| !s.is_empty())
                .map(str::to_string),
        );
    }
    files.sort();
    files.dedup();
    Ok(files)
}

/// What `rail check` found.
#[derive(Debug)]
pub enum Checked {
    /// `RAIL_BYPASS` was set: nothing was checked (the bypass is in the log).
    Bypassed,
    /// The session's changes against the claims; `failure` says why the check fails, if it does.
    Judged {
        report: Box<scope::ScopeReport>,
        failure: Option<String>,
    },
}

/// Checks the session's changes (or `args.files`) against its claims.
pub fn check_scope(ctx: &Ctx, args: &CheckArgs) -> Result<Checked, Fail> {
    // A checkout whose branch cannot name a session (`fix$(id)`), or a detached HEAD (a commit
    // in the middle of a rebase), is a valid place to commit: it holds no claim, so only other
    // sessions' paths are refused — never every commit.
    let session = match ctx.session() {
        Ok(s) => s,
        Err(_) if ctx.explicit_session().is_none() && ctx.repo.is_some() => String::new(),
        Err(f) => return Err(f),
    };
    let what = if args.pre_push {
        "pre-push"
    } else if args.staged {
        "pre-commit"
    } else {
        "check"
    };
    if bypass(ctx, &session, what)? {
        return Ok(Checked::Bypassed);
    }
    let changed = if !args.files.is_empty() {
        args.files.clone()
    } else {
        let repo = ctx
            .repo
            .as_ref()
            .ok_or_else(|| Fail::env("rail check needs a git repository (or pass FILE...)"))?;
        if args.staged {
            crate::cmd::mutate::without_rail_files(
                ctx,
                &repo.worktree,
                git::staged_files(&repo.worktree).map_err(Fail::env)?,
            )
        } else if args.pre_push {
            crate::cmd::mutate::without_rail_files(ctx, &repo.worktree, pushed_files(repo)?)
        } else {
            let main_branch = crate::repo::head_branch(&repo.common_dir);
            let own = repo.branch();
            let base = args
                .base
                .clone()
                .or_else(|| main_branch.filter(|m| Some(m) != own.as_ref()));
            crate::cmd::mutate::without_rail_files(
                ctx,
                &repo.worktree,
                git::session_changes_of(repo, base.as_deref()).map_err(Fail::env)?,
            )
        }
    };
    let texts = ctx.read(false)?;
    let rail = Rail::load(&texts);
    let facts = ctx.facts_for(&rail, Commits::IfNeeded);
    let eval = rail.evaluate(&facts);
    let report = scope::classify(&eval, &session, &changed);
    let mut parts = Vec::new();
    if !report.conflicts.is_empty() {
        parts.push(format!(
            "{} file(s) held by another session",
            report.conflicts.len()
        ));
    }
    if !report.out_of_scope.is_empty() && !args.warn_drift {
        parts.push(format!(
            "{} file(s) outside {session}'s declared paths",
            report.out_of_scope.len()
        ));
    }
    let failure = (!parts.is_empty()).then(|| format!("check failed: {}", parts.join(", ")));
    Ok(Checked::Judged {
        report: Box::new(report),
        failure,
    })
}

pub fn check(ctx: &Ctx, args: &CheckArgs) -> Result<(), Fail> {
    let Checked::Judged { report, failure } = check_scope(ctx, args)? else {
        return Ok(());
    };
    // On failure the JSON goes out once, with the error (see main::run).
    if ctx.json && failure.is_none() {
        print_json(&report);
    } else if !ctx.json {
        out!("{}", render::scope(&report));
    }
    if let Some(message) = failure {
        return Err(Fail {
            code: fail::REFUSED,
            message,
            json: Some(serde_json::to_value(&report).unwrap_or_default()),
        });
    }
    Ok(())
}

#[derive(Args, Debug)]
pub struct ValidateArgs {
    /// For a CI job: fail on anything a hosted merge (which never runs the merge driver) can
    /// leave behind — conflict markers, duplicate claims, an unreadable rail — and print
    /// GitHub Actions annotations when $GITHUB_ACTIONS is set.
    #[arg(long)]
    pub ci: bool,
    /// Files to validate (default: the whole rail).
    pub files: Vec<PathBuf>,
}

pub fn validate(ctx: &Ctx, args: &ValidateArgs) -> Result<(), Fail> {
    let diagnostics = if args.files.is_empty() {
        let texts = ctx.read_on_disk()?;
        let facts = ctx.facts(&texts, Commits::IfNeeded);
        board::build(&texts, &facts).diagnostics
    } else {
        crate::cmd::admin::validate_files(&args.files)?
    };
    let errors = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    if ctx.json {
        if errors == 0 {
            print_json(&diagnostics);
        }
    } else {
        let github = args.ci && std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true");
        for d in &diagnostics {
            if github {
                let level = match d.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                    Severity::Info => "notice",
                };
                outln!(
                    "::{level} file={},line={},col={}::{}: {}",
                    d.file,
                    d.line,
                    d.column,
                    d.code,
                    crate::hint::say(&d.message, d.code.hint().as_ref()).replace('\n', " ")
                );
            } else {
                outln!("{}", crate::hint::one_line(d));
            }
        }
        if diagnostics.is_empty() {
            outln!("no problems found");
        }
    }
    if errors > 0 {
        return Err(Fail {
            code: fail::REFUSED,
            message: format!("{errors} error(s) found"),
            json: Some(serde_json::to_value(&diagnostics).unwrap_or_default()),
        });
    }
    Ok(())
}

/// The backlog and the tasks `rail ready` shows from it.
#[derive(Debug, serde::Serialize)]
pub struct Ready {
    /// How many tasks the backlog has in all.
    pub backlog: usize,
    /// The ready ones (with `all`, every one, each with its status).
    pub tasks: Vec<rail_core::model::conflict::PlannedView>,
}

/// `rail ready`: backlog tasks whose dependencies are released and that nobody holds.
pub fn ready_tasks(ctx: &Ctx, all: bool) -> Result<Ready, Fail> {
    let texts = ctx.read(false)?;
    let rail = Rail::load(&texts);
    let facts = ctx.facts_for(&rail, Commits::IfNeeded);
    let eval = rail.evaluate(&facts);
    let backlog = rail_core::model::conflict::backlog(&eval, rail.log());
    Ok(Ready {
        backlog: backlog.len(),
        tasks: backlog
            .into_iter()
            .filter(|p| all || p.status == rail_core::model::conflict::PlannedStatus::Ready)
            .collect(),
    })
}

/// `rail ready`'s text.
pub fn ready_text(ready: &Ready) -> String {
    if ready.backlog == 0 {
        return "no backlog: list tasks in claims.md as `- [ ] task | after: other | paths: src/**`\n"
            .to_string();
    }
    let mut text = String::new();
    if ready.tasks.is_empty() {
        text.push_str(
            "nothing is ready: every planned task is claimed, done or waiting (`rail ready --all`)\n",
        );
    }
    for p in &ready.tasks {
        let mut line = format!(
            "{}  {}",
            p.task,
            serde_json::to_value(p.status)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default()
        );
        if let Some(h) = &p.held_by {
            line.push_str(&format!(" by {h}"));
        }
        if !p.waiting_for.is_empty() {
            let w: Vec<&str> = p.waiting_for.iter().map(|w| w.task.as_str()).collect();
            line.push_str(&format!(", waits for {}", w.join(", ")));
        }
        if !p.paths.is_empty() {
            line.push_str(&format!("  paths: {}", p.paths.join(", ")));
        }
        if let Some(purpose) = &p.purpose {
            line.push_str(&format!("  — {purpose}"));
        }
        text.push_str(&line);
        text.push('\n');
    }
    text
}

pub fn ready(ctx: &Ctx, all: bool) -> Result<(), Fail> {
    let ready = ready_tasks(ctx, all)?;
    if ctx.json {
        print_json(&ready.tasks);
    } else {
        out!("{}", ready_text(&ready));
    }
    Ok(())
}

pub fn log(ctx: &Ctx, limit: Option<usize>) -> Result<(), Fail> {
    let texts = ctx.read(false)?;
    let mut text = texts
        .log
        .as_ref()
        .map(|l| l.text.clone())
        .unwrap_or_default();
    // In a shared rail, lines this machine recorded and has not delivered yet are shown too
    // (the mirror keeps them in claims.log; this covers a claims.log replaced since, by git).
    if crate::shared::remote_of(ctx).is_some() {
        let pending = crate::shared::undelivered_lines(ctx, &text);
        text = rail_core::change::snapshot::log_with(&text, &pending);
    }
    let log = rail_core::formats::log::parse(&text);
    let skip = limit
        .map(|n| log.entries.len().saturating_sub(n))
        .unwrap_or(0);
    let entries = &log.entries[skip..];
    if ctx.json {
        print_json(&entries);
        return Ok(());
    }
    if entries.is_empty() {
        outln!("the log is empty");
    }
    for e in entries {
        outln!("{}", e.render());
    }
    Ok(())
}

/// Keeps FileClass in use for the text renderer's exhaustive match.
pub fn class_label(class: FileClass) -> &'static str {
    match class {
        FileClass::InScope => "in scope",
        FileClass::OutOfScope => "OUT OF SCOPE",
        FileClass::Conflict => "HELD BY ANOTHER SESSION",
        FileClass::Undeclared => "no declared scope",
    }
}
