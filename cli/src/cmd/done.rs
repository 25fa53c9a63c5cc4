//! `rail done TASK`: the gate (`ops::gate`). Runs the check, classifies the session's diff
//! against its claim, records the verdict, and releases only on a pass.

use rail_core::agent::gate::GateVerdict as Verdict;
use rail_core::formats::config::OnDone;

use crate::context::Ctx;
use crate::fail::{self, Fail};
use crate::ops::gate::{CheckCommand, CheckOutput};

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
    let (task, base) = (args.task.as_str(), args.base.as_deref());
    crate::ops::touched::given_base(base)?;
    let session = ctx.session()?;
    let run = crate::ops::gate::run(
        ctx,
        &session,
        task,
        CheckCommand::Required(args.check),
        base,
        CheckOutput::Inherit,
        |check, workdir| errln!("rail done: running `{check}` in {}", workdir.display()),
    )?;
    let (result, report) = (run.result, run.report);
    if result.verdict == Verdict::NotClaimed {
        return Err(Fail::refused(result.message, None));
    }
    // With --json, stdout carries one document: the gate's, below.
    if let (Some(released), false) = (&run.released, ctx.json) {
        released.print(false);
    }
    let mut json = serde_json::json!({ "ok": result.release, "gate": result, "scope": report });
    let code = match result.verdict {
        Verdict::Passed => {
            // The task is finished: the station is closed or kept, as rail.yaml says (closed
            // only when core's removal verdict allows it without force).
            let station = match run.on_done {
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
