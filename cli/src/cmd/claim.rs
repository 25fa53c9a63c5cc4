//! `rail claim TASK`: claim a task with its paths, resources and purpose.

use crate::context::Ctx;
use crate::fail::Fail;
use crate::ops::write::{self, ClaimOptions};

#[derive(clap::Args, Debug)]
pub struct ClaimArgs {
    /// The task id to claim, e.g. auth-refresh (letters, digits, `-`, `_`, `.`, `/`).
    pub task: String,
    #[command(flatten)]
    pub claim: ClaimOptions,
}

pub fn run(ctx: &Ctx, args: &ClaimArgs) -> Result<(), Fail> {
    write::claim(ctx, &args.task, &args.claim)?.print(ctx.json);
    Ok(())
}
