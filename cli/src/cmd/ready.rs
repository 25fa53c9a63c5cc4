//! `rail ready`: backlog tasks (`- [ ] task` lines) whose dependencies are released and that
//! nobody holds.

use crate::context::Ctx;
use crate::fail::Fail;
use crate::out::{print_json, render};

#[derive(clap::Args, Debug)]
pub struct ReadyArgs {
    /// Show every backlog task with its status.
    #[arg(long)]
    pub all: bool,
}

pub fn run(ctx: &Ctx, args: &ReadyArgs) -> Result<(), Fail> {
    let ready = crate::ops::read::ready_tasks(ctx, args.all)?;
    if ctx.json {
        print_json(&ready.tasks);
    } else {
        out!("{}", render::ready_text(ready.backlog, &ready.tasks));
    }
    Ok(())
}
