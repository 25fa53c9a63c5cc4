//! `rail sync`: deliver this machine's recorded log lines, fetch the shared rail (and the
//! remote's branches) and mirror it into the main checkout.

use crate::context::Ctx;
use crate::fail::Fail;

pub fn run(ctx: &Ctx) -> Result<(), Fail> {
    let remote = ctx.remote()?.ok_or_else(|| {
        Fail::usage(
            "this rail is not shared; `rail init --remote NAME` shares it through a git remote",
        )
    })?;
    let outcome = crate::shared::sync(ctx, remote)?;
    match (&outcome.json, ctx.json) {
        (Some(json), true) => outln_raw!("{json}"),
        _ => outln!("{}", outcome.text),
    }
    Ok(())
}
