//! `rail update TASK`: change a claim's paths, resources or purpose; `--add-path` and
//! `--add-resource` add to what it holds.

use crate::context::Ctx;
use crate::fail::Fail;
use crate::ops::write::{self, Changes};

#[derive(clap::Args, Debug)]
pub struct UpdateArgs {
    /// The task this session holds.
    pub task: String,
    /// Add a path, directory or glob to those the claim holds, keeping them (repeatable).
    #[arg(long = "add-path", value_name = "GLOB")]
    pub add_paths: Vec<String>,
    /// Add a resource to those the claim holds, keeping them (repeatable).
    #[arg(long = "add-resource", value_name = "RES")]
    pub add_resources: Vec<String>,
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
    /// Replace the purpose (one line, markdown).
    #[arg(long, value_name = "TEXT")]
    pub purpose: Option<String>,
    /// Add paths even over another live session's work in flight (its files changed and not
    /// merged): that session is told.
    #[arg(long)]
    pub over_flight: bool,
}

pub fn run(ctx: &Ctx, args: UpdateArgs) -> Result<(), Fail> {
    let changes = Changes {
        paths: (args.clear_paths || !args.paths.is_empty()).then_some(args.paths),
        resources: (args.clear_resources || !args.resources.is_empty()).then_some(args.resources),
        purpose: args.purpose,
        add_paths: args.add_paths,
        add_resources: args.add_resources,
        over_flight: args.over_flight,
    };
    write::update(ctx, &args.task, changes)?.print(ctx.json);
    Ok(())
}
