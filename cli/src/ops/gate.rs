//! The gate before "done", run for a session: rail.yaml's check (or the one given), the
//! session's changes judged against its claim (core's `agent::gate`), the verdict logged, and
//! the claim released — its backlog entry ticked — only on a pass. `rail done` runs it, and so
//! does Claude Code's TaskCompleted hook for the teammate completing a task.

use std::path::Path;
use std::process::{Command, Stdio};

use rail_core::agent::gate::{self, CheckOutcome, GateResult};
use rail_core::change::ops::Request;
use rail_core::formats::config::OnDone;
use rail_core::formats::log::{LogEntry, LogEvent};
use rail_core::model::scope::{self, ScopeReport};
use rail_core::model::Rail;

use crate::context::{Commits, Ctx};
use crate::fail::Fail;
use crate::out::outcome::Report;

/// Where the check's own output goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckOutput {
    /// To this process's streams (`rail done`).
    Inherit,
    /// Kept, its end told with a failure (a hook's streams are its answer).
    Capture,
}

/// What the check is.
pub enum CheckCommand {
    /// This command, else rail.yaml's `check`; neither is a usage error.
    Required(Option<String>),
    /// rail.yaml's `check` when it sets one; else the scope alone is judged.
    IfSet,
}

/// The gate's run.
pub struct GateRun {
    pub result: GateResult,
    pub report: ScopeReport,
    /// The release, on a pass.
    pub released: Option<Report>,
    /// What rail.yaml says to do with a finished task's station.
    pub on_done: OnDone,
}

/// The most of a captured check's output told with its failure (its end: where errors are).
const OUTPUT_TAIL: usize = 2000;

/// Runs the gate for `session` finishing `task`. `announce` is told the check and where it
/// runs, before it starts. A refusal before the check (the task is not the session's) is the
/// result's `NotClaimed` verdict, not an error.
pub fn run(
    ctx: &Ctx,
    session: &str,
    task: &str,
    check: CheckCommand,
    base: Option<&str>,
    output: CheckOutput,
    announce: impl FnOnce(&str, &Path),
) -> Result<GateRun, Fail> {
    rail_core::text::ident::validate_task(task).map_err(|e| Fail::usage(e.0))?;
    let texts = ctx.read(false)?;
    let rail = Rail::load(&texts);
    let check = match check {
        CheckCommand::Required(given) => {
            Some(given.or_else(|| rail.config.check.clone()).ok_or_else(|| {
                Fail::usage(format!(
                    "no check command: set `check: …` in {} or pass --check CMD",
                    ctx.rail
                        .path(rail_core::formats::rail_files::CONFIG_FILE)
                        .display()
                ))
            })?)
        }
        CheckCommand::IfSet => rail.config.check.clone(),
    };
    let on_done = rail.config.stations.on_done;
    let eval = ctx.judge(&rail, Commits::IfNeeded).eval;
    let changed = crate::ops::touched::touched_files(ctx, base);
    let report = scope::classify(&eval, session, &changed);
    if let Err(refused) = gate::admit(&eval, task, session) {
        return Ok(GateRun {
            result: refused,
            report,
            released: None,
            on_done,
        });
    }
    let workdir = ctx
        .repo
        .as_ref()
        .map(|r| r.worktree.clone())
        .unwrap_or_else(|| ctx.rail.root.clone());
    let (label, outcome, said) = match &check {
        Some(check) => {
            announce(check, &workdir);
            let (outcome, said) = run_check(check, &workdir, output);
            (check.clone(), outcome, said)
        }
        // Nothing to run: the scope alone decides.
        None => (
            "no check set in rail.yaml".to_string(),
            CheckOutcome::Passed,
            String::new(),
        ),
    };
    let mut result = gate::judge(task, &label, &outcome, &report);
    result.message = crate::out::hint::say(&result.message, result.hint.as_ref());
    if !said.is_empty() && !result.release {
        result.message = format!("{}\nThe check's output ended with:\n{said}", result.message);
    }
    let mut line = LogEntry::new(ctx.now, LogEvent::Done, Some(task), Some(session))
        .with("verdict", result.verdict.as_str())
        .with("check", label)
        .with("files", result.files.join(", "));
    if let CheckOutcome::Failed { code: Some(c), .. } = &outcome {
        line = line.with("exit", c.to_string());
    }
    let line = line.render();
    let released = if result.release {
        let touched = crate::ops::touched::recorded(changed);
        Some(crate::ops::write::mutate_with_log(
            ctx,
            session,
            Request::Release {
                task: task.to_string(),
                touched,
                done: true,
            },
            vec![line],
        )?)
    } else {
        crate::ops::write::record(ctx, session, &[line])?;
        None
    };
    Ok(GateRun {
        result,
        report,
        released,
        on_done,
    })
}

/// Runs the check in `workdir`: how it ended, and (captured) the end of what it printed.
fn run_check(check: &str, workdir: &Path, output: CheckOutput) -> (CheckOutcome, String) {
    let mut command = shell(check);
    command.current_dir(workdir);
    let ran = match output {
        CheckOutput::Inherit => command.status().map(|s| (s, String::new())),
        CheckOutput::Capture => command
            .stdin(Stdio::null())
            .output()
            .map(|o| (o.status, tail(&o.stdout, &o.stderr))),
    };
    match ran {
        Ok((status, said)) => (
            gate::outcome_from_exit(status.code(), signal_of(&status), check),
            said,
        ),
        Err(e) => (
            CheckOutcome::NotStarted {
                reason: format!("cannot run `{} {} {check}`: {e}", SHELL[0], SHELL[1]),
            },
            String::new(),
        ),
    }
}

/// The end of a check's output (stdout, then stderr), at most [`OUTPUT_TAIL`] bytes, made safe
/// for a terminal and a model.
fn tail(stdout: &[u8], stderr: &[u8]) -> String {
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(stdout),
        String::from_utf8_lossy(stderr)
    );
    let all = all.trim_end();
    let mut start = all.len().saturating_sub(OUTPUT_TAIL);
    while !all.is_char_boundary(start) {
        start += 1;
    }
    rail_core::text::terminal_safe_lines(&all[start..]).into_owned()
}

/// The signal that ended the check, where the OS has signals.
#[cfg(unix)]
fn signal_of(status: &std::process::ExitStatus) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    status.signal()
}

#[cfg(not(unix))]
fn signal_of(_status: &std::process::ExitStatus) -> Option<i32> {
    None
}

/// The shell a check command runs in: `sh -c` where there is one; `cmd /C` on Windows, where
/// `sh` is only on PATH inside Git Bash.
#[cfg(not(windows))]
const SHELL: [&str; 2] = ["sh", "-c"];
#[cfg(windows)]
const SHELL: [&str; 2] = ["cmd", "/C"];

fn shell(check: &str) -> Command {
    let mut command = Command::new(SHELL[0]);
    command.arg(SHELL[1]).arg(check);
    command
}
