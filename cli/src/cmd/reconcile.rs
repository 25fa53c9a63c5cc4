//! `rail reconcile`: put back claims Rail wrote that claims.md lost outside Rail (a git reset,
//! stash, checkout or merge; the post-checkout, post-merge and post-rewrite hooks run it).

use clap::Args;

use crate::context::Ctx;
use crate::fail::Fail;

#[derive(Args, Debug)]
pub struct ReconcileArgs {
    /// Say nothing when nothing was lost (git's hooks run it after every checkout, merge and
    /// rewrite).
    #[arg(long)]
    pub quiet: bool,
}

/// `rail reconcile`: puts back claims Rail wrote that claims.md lost outside Rail (the
/// post-checkout, post-merge and post-rewrite hooks run it; every change runs it first anyway).
pub fn run(ctx: &Ctx, args: &ReconcileArgs) -> Result<(), Fail> {
    let session = ctx.session().unwrap_or_else(|_| "reconcile".to_string());
    let lock = ctx.lock(&session)?;
    match ctx.rail.recover(&lock) {
        Ok(Some(note)) => errln!("rail: {note}"),
        Ok(None) => {}
        Err(e) => return Err(Fail::env(format!("recovering an interrupted write: {e}"))),
    }
    let texts = ctx.read(true)?;
    let restore = ctx.rail.lost_claims(&texts, ctx.now);
    crate::ops::write::restore_lost(ctx, &lock, texts)?;
    drop(lock);
    let restored: Vec<_> = restore.lost.iter().filter(|l| l.restored).collect();
    if ctx.json {
        let lost: Vec<_> = restore
            .lost
            .iter()
            .map(|l| {
                serde_json::json!({
                    "task": l.task, "session": l.session, "restored": l.restored, "note": l.note
                })
            })
            .collect();
        outln!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({ "ok": true, "lost": lost }))
                .unwrap_or_default()
        );
    } else if restore.lost.is_empty() {
        if !args.quiet {
            outln!("claims.md has every claim Rail wrote");
        }
    } else {
        outln!(
            "restored {} of {} claims claims.md lost outside Rail",
            restored.len(),
            restore.lost.len()
        );
    }
    Ok(())
}
