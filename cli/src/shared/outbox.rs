//! What this machine records for the shared rail, and the shared rail written back here: log
//! lines made on this machine (refusals, bypasses, gate verdicts, recovered locks) go to
//! claims.log and to an outbox in the git dir until the shared log has them; the mirror writes
//! the shared state into the main checkout, keeping the outbox's lines the shared log lacks.

use std::io::Write;
use std::path::PathBuf;

use rail_core::change::snapshot;
use rail_core::formats::log::{LogEntry, LogEvent};
use rail_core::formats::rail_files::LOG_FILE;
use rail_core::model::input::RailTexts;

use super::state::SharedState;
use super::OUTBOX;
use crate::context::Ctx;
use crate::fail::Fail;
use crate::store::lock::RailLock;

/// Where this machine keeps the log lines it recorded locally in a shared rail (refusals,
/// bypasses, gate verdicts, recovered locks) until the shared log has them: in the git dir,
/// which neither mirroring nor any git command writes.
fn outbox_path(ctx: &Ctx) -> Option<PathBuf> {
    crate::store::gitguard::git_dir_of(&ctx.rail.root).map(|d| d.join("rail").join(OUTBOX))
}

pub fn read_outbox(ctx: &Ctx) -> String {
    outbox_path(ctx)
        .and_then(|p| std::fs::read_to_string(p).ok())
        .unwrap_or_default()
}

/// Records log lines made on this machine (under the rail lock `lock`, on the texts read under
/// it): appended to claims.log as always, and in a shared rail also to the outbox first, so the
/// next exchange with the remote delivers them to the shared log and no mirror erases them
/// meanwhile.
pub fn record_local(
    ctx: &Ctx,
    lock: &RailLock,
    texts: &RailTexts,
    lines: &[String],
) -> Result<(), String> {
    if lines.is_empty() {
        return Ok(());
    }
    if ctx.remote().map_err(|e| e.message)?.is_some() {
        append_outbox(ctx, lines)?;
    }
    ctx.rail.apply(lock, texts, &[], lines)
}

/// Appends to the outbox (under the rail lock, like its pruning in `mirror`).
pub(super) fn append_outbox(ctx: &Ctx, lines: &[String]) -> Result<(), String> {
    let path = outbox_path(ctx).ok_or("a shared rail must lie in a git work tree")?;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    let mut text = String::new();
    // A line cut short by a crash must not swallow the next one.
    if let Ok(old) = std::fs::read(&path) {
        if !old.is_empty() && !old.ends_with(b"\n") {
            text.push('\n');
        }
    }
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Writes the shared state into the main checkout (under the local lock, claims.md in place),
/// as core plans it: local rail files the shared state does not have are left alone, files of
/// the shared tree that are not the rail's are never written (a warning names them), and the
/// log lines of this machine's outbox that the shared log lacks stay in claims.log after the
/// shared ones. Then the outbox keeps only those: the shared log has the rest.
pub fn mirror(ctx: &Ctx, snapshot: &SharedState) -> Result<(), Fail> {
    // The state mirrored is one this machine sees now, its own new claims included: recorded
    // before a later round's look, which could be hours away (issue 42, finding 4).
    let seen = rail_core::model::Rail::load(&snapshot::texts(&snapshot.files));
    crate::shared::observe(ctx, &seen);
    let session = ctx.explicit_session().unwrap_or("sync").to_string();
    let lock = ctx.lock(&session)?;
    // What taking the lock cleaned up is recorded like any local line: it reaches the shared
    // log with the next exchange.
    let mut notes: Vec<String> = lock
        .broken
        .iter()
        .map(|b| {
            errln!(
                "rail: recovered a stale lock held by {}: {}",
                b.holder,
                b.reason
            );
            LogEntry::new(ctx.now, LogEvent::LockBroken, None, Some(&session))
                .with("holder", b.holder.clone())
                .with("reason", b.reason.clone())
                .render()
        })
        .collect();
    let recovered = ctx
        .rail
        .recover(&lock)
        .map_err(|e| Fail::env(format!("recovering an interrupted write: {e}")))?;
    for note in lock.recovered.iter().cloned().chain(recovered) {
        errln!("rail: {note}");
        notes.push(
            LogEntry::new(ctx.now, LogEvent::Recovered, None, Some(&session))
                .with("note", note)
                .render(),
        );
    }
    if !notes.is_empty() {
        append_outbox(ctx, &notes).map_err(Fail::env)?;
    }
    let local = ctx.read(true)?;
    let outbox = read_outbox(ctx);
    // A claim this copy held that the shared state lost for its session (a rewind merge dropped
    // it, another machine's session took it): said by whichever command mirrors it first, and
    // left for that session's next hook call where its hook runs, besides the log line.
    let claims_here = local.claims.as_ref().map(|c| c.text.as_str());
    for lost in snapshot::lost_in_mirror(claims_here, &snapshot.files) {
        errln!(
            "{}",
            rail_core::formats::notice::message(std::slice::from_ref(&lost))
        );
        if let Some(repo) = &ctx.repo {
            crate::store::notice::post(repo, &lost, false);
        }
    }
    let plan = snapshot::mirror(&snapshot.files, &local, &outbox);
    for foreign in &plan.ignored {
        errln!("rail: the shared rail has {foreign}; not written here");
    }
    // Sealed segments of the shared log are the rail's own, kept and never read.
    let foreign: Vec<&String> = (snapshot.foreign.iter())
        .filter(|p| !rail_core::formats::segments::is_segment_path(p))
        .collect();
    if let Some(first) = foreign.first() {
        // One line, however many: 3,000 stray files once printed 3,000 lines per operation.
        errln!(
            "rail: the shared rail has {} entries that are not the rail's (first: {first}); ignored",
            foreign.len()
        );
    }
    ctx.rail
        .apply(&lock, &local, &plan.writes, &[])
        .map_err(Fail::env)?;
    // Lines the shared log now has leave the outbox (appends wait for the rail lock we hold).
    let shared_log = snapshot
        .files
        .get(LOG_FILE)
        .map(String::as_str)
        .unwrap_or("");
    let left = snapshot::log_with("", &snapshot::undelivered(&outbox, shared_log));
    if left != outbox {
        if let Some(path) = outbox_path(ctx) {
            let tmp = path.with_extension(format!("{}.tmp", std::process::id()));
            std::fs::write(&tmp, &left)
                .and_then(|()| std::fs::rename(&tmp, &path))
                .map_err(|e| Fail::env(format!("{}: {e}", path.display())))?;
        }
    }
    Ok(())
}

/// The log lines this machine recorded that the shared log does not have yet (for `rail log`:
/// normally the mirror already shows them in claims.log).
pub fn undelivered_lines(ctx: &Ctx, log: &str) -> Vec<String> {
    snapshot::undelivered(&read_outbox(ctx), log)
}
