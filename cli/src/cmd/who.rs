//! `rail who PATH…`: who holds each path.

use crate::context::Ctx;
use crate::fail::Fail;
use crate::out::{print_json, render};

#[derive(clap::Args, Debug)]
pub struct WhoArgs {
    /// Files, directories or globs, relative to the repository (a directory: anything under it).
    #[arg(required = true)]
    pub paths: Vec<String>,
}

pub fn run(ctx: &Ctx, args: &WhoArgs) -> Result<(), Fail> {
    let answers = crate::ops::read::who_holds(ctx, &args.paths)?;
    if ctx.json {
        print_json(&answers);
    } else {
        out!("{}", render::who_text(&answers, ctx.now));
    }
    Ok(())
}
