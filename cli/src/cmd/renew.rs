//! `rail renew TASK`: the claim's lease runs again from now.

use crate::context::Ctx;
use crate::fail::Fail;

#[derive(clap::Args, Debug)]
pub struct RenewArgs {
    /// The task this session holds.
    pub task: String,
}

pub fn run(ctx: &Ctx, args: &RenewArgs) -> Result<(), Fail> {
    crate::ops::write::renew(ctx, &args.task)?.print(ctx.json);
    Ok(())
}
