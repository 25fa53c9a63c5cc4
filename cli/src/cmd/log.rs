//! `rail log`: the log of what happened, with the lines this machine recorded for a shared rail
//! that the shared log does not have yet.

use crate::context::Ctx;
use crate::fail::Fail;
use crate::out::print_json;

#[derive(clap::Args, Debug)]
pub struct LogArgs {
    /// Only the last N entries.
    #[arg(short = 'n', long, value_name = "N")]
    pub limit: Option<usize>,
}

pub fn run(ctx: &Ctx, args: &LogArgs) -> Result<(), Fail> {
    let texts = ctx.read(false)?;
    let mut text = texts
        .log
        .as_ref()
        .map(|l| l.text.clone())
        .unwrap_or_default();
    // In a shared rail, lines this machine recorded and has not delivered yet are shown too
    // (the mirror keeps them in claims.log; this covers a claims.log replaced since, by git).
    if ctx.remote().ok().flatten().is_some() {
        let pending = crate::shared::undelivered_lines(ctx, &text);
        text = rail_core::change::snapshot::log_with(&text, &pending);
    }
    let log = rail_core::formats::log::parse(&text);
    let skip = args
        .limit
        .map(|n| log.entries.len().saturating_sub(n))
        .unwrap_or(0);
    let entries = &log.entries[skip..];
    if ctx.json {
        print_json(&entries);
        return Ok(());
    }
    if entries.is_empty() {
        outln!("the log is empty");
    }
    for e in entries {
        outln!("{}", e.render());
    }
    Ok(())
}
