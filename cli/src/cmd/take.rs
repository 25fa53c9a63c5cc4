//! `rail take TASK`: take over a stale claim (refused while it is live).

use crate::context::Ctx;
use crate::fail::Fail;

#[derive(clap::Args, Debug)]
pub struct TakeArgs {
    /// The stale claim's task.
    pub task: String,
    /// Why (recorded in the log; default: why the claim is stale).
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,
    /// The branch whose commits keep the taken claim alive (default: the branch named like the session).
    #[arg(long, value_name = "BRANCH")]
    pub branch: Option<String>,
}

pub fn run(ctx: &Ctx, args: TakeArgs) -> Result<(), Fail> {
    crate::ops::write::take(ctx, &args.task, args.reason, args.branch)?.print(ctx.json);
    Ok(())
}
