//! `rail doctor`: is every agent set up here actually guarded? Prints what `ops::doctor` finds,
//! each problem with its exact fix; exit 1 when one leaves an agent unguarded.

use crate::context::Ctx;
use crate::fail::Fail;

/// `rail doctor`.
pub fn run(ctx: &Ctx) -> Result<(), Fail> {
    let found = crate::ops::doctor::findings(ctx)?;
    let unguarded = found.iter().filter(|f| f.unguarded).count();
    let doc = serde_json::json!({ "ok": unguarded == 0, "findings": found });
    if ctx.json && unguarded == 0 {
        outln_raw!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
    } else if !ctx.json {
        if found.is_empty() {
            outln!("rail doctor: every agent set up here is guarded, in every worktree");
        }
        for f in &found {
            let who = f
                .agent
                .as_deref()
                .map(|a| format!("{a}: "))
                .unwrap_or_default();
            outln!(
                "{} {who}{}\n    at {}\n    fix: {}",
                if f.unguarded { "✗" } else { "!" },
                crate::out::render::safe(&f.problem),
                crate::out::render::safe(&f.place),
                crate::out::render::safe(&f.fix)
            );
        }
    }
    if unguarded == 0 {
        return Ok(());
    }
    Err(Fail {
        code: crate::fail::REFUSED,
        message: format!("{unguarded} problem(s) leave an agent unguarded"),
        json: Some(doc),
    })
}
