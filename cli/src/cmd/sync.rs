//! `rail sync`: deliver this machine's recorded log lines, fetch the shared rail (and the
//! remote's branches) and mirror it into the main checkout.

use crate::context::Ctx;
use crate::fail::Fail;

#[derive(clap::Args, Debug)]
pub struct SyncArgs {
    /// Where the shared ref is missing on the remote (deleted), publish this checkout's rail
    /// there as the shared rail's state, on purpose (otherwise a machine that saw the rail puts
    /// it back, and one that did not refuses). Refused where the ref is there.
    #[arg(long)]
    pub reset_shared: bool,
}

pub fn run(ctx: &Ctx, args: &SyncArgs) -> Result<(), Fail> {
    let remote = ctx.remote()?.ok_or_else(|| {
        Fail::usage(
            "this rail is not shared; `rail init --remote NAME` shares it through a git remote",
        )
    })?;
    if args.reset_shared {
        let done = crate::shared::reset_shared(ctx, remote)?;
        errln!("rail: {done}");
    }
    let outcome = crate::shared::sync(ctx, remote)?;
    match (&outcome.json, ctx.json) {
        (Some(json), true) => outln_raw!("{json}"),
        _ => outln!("{}", outcome.text),
    }
    Ok(())
}
