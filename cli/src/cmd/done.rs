//! `rail done TASK`: the gate. Runs the check, classifies the session's diff against its claim,
//! records the verdict, and releases only on a pass.

use std::process::Command;

use rail_core::agent::gate::{self, CheckOutcome, GateVerdict as Verdict};
use rail_core::change::ops::Request;
use rail_core::formats::config::OnDone;
use rail_core::formats::log::{LogEntry, LogEvent as Event};
use rail_core::model::scope;
use rail_core::model::Rail;

use crate::context::{Commits, Ctx};
use crate::fail::{self, Fail};

#[derive(clap::Args, Debug)]
pub struct DoneArgs {
    /// The task this session holds and has finished.
    pub task: String,
    /// The check command (default: rail.yaml `check`).
    #[arg(long, value_name = "CMD")]
    pub check: Option<String>,
    /// Branch the session forked from (default: the main checkout's branch).
    #[arg(long, value_name = "REF")]
    pub base: Option<String>,
}

pub fn run(ctx: &Ctx, args: DoneArgs) -> Result<(), Fail> {
    let (task, check, base) = (args.task.as_str(), args.check, args.base.as_deref());
    crate::ops::touched::given_base(base)?;
    let session = ctx.session()?;
    rail_core::text::ident::validate_task(task).map_err(|e| Fail::usage(e.0))?;
    let texts = ctx.read(false)?;
    let rail = Rail::load(&texts);
    let check = check.or_else(|| rail.config.check.clone()).ok_or_else(|| {
        Fail::usage(format!(
            "no check command: set `check: …` in {} or pass --check CMD",
            ctx.rail
                .path(rail_core::formats::rail_files::CONFIG_FILE)
                .display()
        ))
    })?;
    let eval = ctx.judge(&rail, Commits::IfNeeded).eval;
    if let Err(refused) = gate::admit(&eval, task, &session) {
        return Err(Fail::refused(refused.message, None));
    }
    let changed = crate::ops::touched::touched_files(ctx, base);
    let report = scope::classify(&eval, &session, &changed);

    let workdir = ctx
        .repo
        .as_ref()
        .map(|r| r.worktree.clone())
        .unwrap_or_else(|| ctx.rail.root.clone());
    errln!("rail done: running `{check}` in {}", workdir.display());
    let outcome = match shell(&check).current_dir(&workdir).status() {
        Ok(status) => gate::outcome_from_exit(status.code(), signal_of(&status), &check),
        Err(e) => CheckOutcome::NotStarted {
            reason: format!("cannot run `{} {} {check}`: {e}", SHELL[0], SHELL[1]),
        },
    };
    let mut result = gate::judge(task, &check, &outcome, &report);
    result.message = crate::out::hint::say(&result.message, result.hint.as_ref());
    let mut line = LogEntry::new(ctx.now, Event::Done, Some(task), Some(&session))
        .with("verdict", result.verdict.as_str())
        .with("check", check.clone())
        .with("files", result.files.join(", "));
    if let CheckOutcome::Failed { code: Some(c), .. } = &outcome {
        line = line.with("exit", c.to_string());
    }
    let line = line.render();

    if result.release {
        let touched = crate::ops::touched::recorded(changed.clone());
        let outcome = crate::ops::write::mutate_with_log(
            ctx,
            &session,
            Request::Release {
                task: task.to_string(),
                touched,
                done: true,
            },
            vec![line],
        )?;
        // With --json, stdout carries one document: the gate's, below.
        if !ctx.json {
            outcome.print(false);
        }
    } else {
        crate::ops::write::record(ctx, &session, &[line])?;
    }
    let mut json = serde_json::json!({ "ok": result.release, "gate": result, "scope": report });
    let code = match result.verdict {
        Verdict::Passed => {
            // The task is finished: the station is closed or kept, as rail.yaml says (closed
            // only when core's removal verdict allows it without force).
            let station = match rail.config.stations.on_done {
                OnDone::Keep => None,
                OnDone::Remove => crate::ops::station::close::close_after_done(ctx, task),
            };
            if let Some((_, value)) = &station {
                json["station"] = value.clone();
            }
            if ctx.json {
                outln_raw!(
                    "{}",
                    serde_json::to_string_pretty(&json).unwrap_or_default()
                );
            } else {
                outln!("{}", result.message);
                if let Some((said, _)) = &station {
                    outln!("{said}");
                }
            }
            return Ok(());
        }
        Verdict::NotStarted => fail::ENVIRONMENT,
        Verdict::Failed | Verdict::OutOfScope | Verdict::NotClaimed => fail::REFUSED,
    };
    Err(Fail {
        code,
        message: result.message,
        json: Some(json),
    })
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
