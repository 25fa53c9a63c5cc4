//! `rail update TASK`: change a claim's paths, resources or purpose.

use crate::context::Ctx;
use crate::fail::Fail;
use crate::ops::write::{self, Changes};

#[derive(clap::Args, Debug)]
pub struct UpdateArgs {
    pub task: String,
    /// Replace the paths with these (repeatable).
    #[arg(long = "path", value_name = "GLOB")]
    pub paths: Vec<String>,
    /// Remove all paths.
    #[arg(long, conflicts_with = "paths")]
    pub clear_paths: bool,
    /// Replace the resources with these (repeatable).
    #[arg(long = "resource", value_name = "RES")]
    pub resources: Vec<String>,
    /// Remove all resources.
    #[arg(long, conflicts_with = "resources")]
    pub clear_resources: bool,
    #[arg(long, value_name = "TEXT")]
    pub purpose: Option<String>,
}

pub fn run(ctx: &Ctx, args: UpdateArgs) -> Result<(), Fail> {
    let changes = Changes {
        paths: (args.clear_paths || !args.paths.is_empty()).then_some(args.paths),
        resources: (args.clear_resources || !args.resources.is_empty()).then_some(args.resources),
        purpose: args.purpose,
    };
    write::update(ctx, &args.task, changes)?.print(ctx.json);
    Ok(())
}
