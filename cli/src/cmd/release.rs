//! `rail release TASK`: release a claim, recording the files the session touched.

use crate::context::Ctx;
use crate::fail::Fail;
use crate::ops::write::{self, Touched};

#[derive(clap::Args, Debug)]
pub struct ReleaseArgs {
    /// The task this session holds.
    pub task: String,
    /// Record these files instead of asking git (repeatable).
    #[arg(long = "touched", value_name = "FILE")]
    pub touched: Vec<String>,
    /// Do not record touched files.
    #[arg(long, conflicts_with = "touched")]
    pub no_touched: bool,
    /// Branch the session forked from, for the touched-files diff (default: the main checkout's branch).
    #[arg(long, value_name = "REF")]
    pub base: Option<String>,
}

pub fn run(ctx: &Ctx, args: ReleaseArgs) -> Result<(), Fail> {
    let touched = if args.no_touched {
        Touched::Nothing
    } else if !args.touched.is_empty() {
        Touched::Named(args.touched)
    } else {
        Touched::Changed {
            base: args.base.as_deref(),
        }
    };
    write::release(ctx, &args.task, touched)?.print(ctx.json);
    Ok(())
}
