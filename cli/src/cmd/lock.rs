//! `rail lock`: who holds the rail lock and whether that process is alive; `--break` breaks
//! only a dead holder's (or any, with `--force`), and logs it.

use rail_core::formats::log::{LogEntry, LogEvent};

use crate::context::Ctx;
use crate::fail::Fail;
use crate::store::lock;

#[derive(clap::Args, Debug)]
pub struct LockArgs {
    /// Break the lock if its owner is dead (or the file is abandoned).
    #[arg(long = "break")]
    pub break_lock: bool,
    /// With --break: break it even if its owner is alive or on another host.
    #[arg(long, requires = "break_lock")]
    pub force: bool,
}

pub fn run(ctx: &Ctx, args: &LockArgs) -> Result<(), Fail> {
    if !args.break_lock {
        let status = crate::ops::read::lock_status(ctx)?;
        if ctx.json {
            let json = status.to_json();
            if status.found.is_some() {
                outln_raw!(
                    "{}",
                    serde_json::to_string_pretty(&json).unwrap_or_default()
                );
            } else {
                outln_raw!("{json}");
            }
            return Ok(());
        }
        match &status.found {
            None => outln!("the rail lock is free"),
            Some((_, verdict)) => {
                outln!(
                    "the rail lock is {}",
                    crate::out::hint::say(&verdict.message, verdict.hint.as_ref())
                );
                if verdict.breakable {
                    outln!("it may be broken: `rail lock --break`");
                }
            }
        }
        return Ok(());
    }
    let session = ctx.session().unwrap_or_else(|_| "unknown".into());
    match lock::break_on_request(&ctx.rail.root, args.force, &session) {
        Ok(None) => {
            if ctx.json {
                outln_raw!("{}", serde_json::json!({ "ok": true, "broken": null }));
            } else {
                outln!("the rail lock is free; nothing to break");
            }
            Ok(())
        }
        Ok(Some(broken)) => {
            if ctx.json {
                outln_raw!(
                    "{}",
                    serde_json::json!({
                        "ok": true,
                        "broken": { "holder": broken.holder, "reason": broken.reason }
                    })
                );
            } else {
                outln!(
                    "broke the lock held by {}: {}",
                    broken.holder,
                    broken.reason
                );
            }
            // Record it, under the lock like every other log line.
            let line = LogEntry::new(ctx.now, LogEvent::LockBroken, None, Some(&session))
                .with("holder", broken.holder)
                .with("reason", broken.reason)
                .render();
            crate::ops::write::record(ctx, &session, &[line])
        }
        Err(message) => Err(Fail::refused(message, None)),
    }
}
