//! `rail flight [PATH…]`: every session's work in flight — files changed and not merged — or
//! those under PATHs, as the board's "In flight" shows it; `--json` lists core's facts (what the
//! VS Code extension's board and decorations are built on).

use crate::context::Ctx;
use crate::fail::Fail;
use crate::out::{print_json, render};

#[derive(clap::Args, Debug)]
pub struct FlightArgs {
    /// Files, directories or globs, relative to the repository (none: all of it).
    pub paths: Vec<String>,
}

pub fn run(ctx: &Ctx, args: &FlightArgs) -> Result<(), Fail> {
    let patterns = if args.paths.is_empty() {
        vec!["**".to_string()]
    } else {
        args.paths.clone()
    };
    let work = crate::ops::read::in_flight(ctx, &patterns)?;
    if ctx.json {
        // With the facts the VS Code extension's board needs from here besides: this clone's
        // machine id (whose claims are whose) and the shared rail's verification.
        let machine = ctx.machine_here();
        print_json(&serde_json::json!({
            "in_flight": work,
            "machine": machine,
            "shared": crate::ops::read::shared_rail(ctx),
        }));
    } else {
        out!("{}", render::flight_text(&work, ctx.now));
    }
    Ok(())
}
