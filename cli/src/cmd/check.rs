//! `rail check`: the session's changes against its claims — outside its declared paths, or
//! inside another session's (also the pre-commit and pre-push hooks' check).

use crate::context::Ctx;
use crate::fail::{self, Fail};
use crate::ops::check::{check_scope, Checked};
use crate::out::{print_json, render};

pub use crate::ops::check::CheckArgs;

pub fn run(ctx: &Ctx, args: &CheckArgs) -> Result<(), Fail> {
    let Checked::Judged { report, failure } = check_scope(ctx, args)? else {
        return Ok(());
    };
    // On failure the JSON goes out once, with the error (see main::run).
    if ctx.json && failure.is_none() {
        print_json(&report);
    } else if !ctx.json {
        out!("{}", render::scope(&report));
    }
    if let Some(message) = failure {
        return Err(Fail {
            code: fail::REFUSED,
            message,
            json: Some(serde_json::to_value(&report).unwrap_or_default()),
        });
    }
    Ok(())
}
