//! The rail read as data: the board model, who holds a path, the ready backlog, the lock's
//! holder, single files' diagnostics. The CLI prints them; `rail mcp` returns them as tool
//! results; neither recomputes what core said.

use std::path::PathBuf;

use rail_core::formats::rail_files::CONFIG_FILE;
use rail_core::model::board;
use rail_core::model::scope;
use rail_core::model::Rail;
use rail_core::text::diagnostic::Located;
use rail_core::text::LineIndex;

use crate::context::{Commits, Ctx};
use crate::fail::{self, Fail};
use crate::store::lock;

/// The board model: what `rail board --json` prints.
pub fn board_model(ctx: &Ctx) -> Result<board::Board, Fail> {
    let texts = ctx.read(false)?;
    let facts = board_facts(ctx, &texts);
    Ok(board::build(&texts, &facts))
}

/// The facts a board is built on: [`Ctx::facts`] with every session's work in flight.
pub fn board_facts(
    ctx: &Ctx,
    texts: &rail_core::model::input::RailTexts,
) -> rail_core::model::input::Facts {
    let rail = Rail::load(texts);
    let judged = ctx.judge(&rail, Commits::Always);
    let mut facts = judged.facts;
    facts.in_flight = crate::ops::flight::gather(ctx, &judged.eval, &["**".to_string()]);
    facts.shared = shared_rail(ctx);
    facts
}

/// A shared rail's verification as this machine knows it (`shared::verification`), for a
/// board; `None` for a local rail.
pub fn shared_rail(ctx: &Ctx) -> Option<rail_core::model::verification::SharedRailFacts> {
    match ctx.remote() {
        Ok(Some(remote)) => Some(crate::shared::verification(ctx, remote)),
        _ => None,
    }
}

/// Every session's work in flight under `patterns` (`ops::flight::gather`).
pub fn in_flight(
    ctx: &Ctx,
    patterns: &[String],
) -> Result<Vec<rail_core::model::behind::InFlight>, Fail> {
    let texts = ctx.read(false)?;
    let rail = Rail::load(&texts);
    let eval = ctx.judge(&rail, Commits::IfNeeded).eval;
    Ok(crate::ops::flight::gather(ctx, &eval, patterns))
}

/// Who holds each of `paths` (core's `scope::who`).
pub fn who_holds(ctx: &Ctx, paths: &[String]) -> Result<Vec<scope::Who>, Fail> {
    let texts = ctx.read(false)?;
    let rail = Rail::load(&texts);
    let eval = ctx.judge(&rail, Commits::IfNeeded).eval;
    let mut answers = scope::who(&eval, paths);
    let work = crate::ops::flight::gather(ctx, &eval, paths);
    scope::who_in_flight(&mut answers, &work);
    Ok(answers)
}

/// The backlog and the tasks `rail ready` shows from it.
#[derive(Debug, serde::Serialize)]
pub struct Ready {
    /// How many tasks the backlog has in all.
    pub backlog: usize,
    /// The ready ones (with `all`, every one, each with its status).
    pub tasks: Vec<rail_core::model::backlog::PlannedView>,
}

/// `rail ready`: backlog tasks whose dependencies are released, that nobody holds, and whose
/// paths and resources no other session's claim holds (with `all`, every one, with its status).
pub fn ready_tasks(ctx: &Ctx, all: bool) -> Result<Ready, Fail> {
    let texts = ctx.read(false)?;
    let rail = Rail::load(&texts);
    let eval = ctx.judge(&rail, Commits::IfNeeded).eval;
    // Busy is judged for the session asking: its own claims never make a task busy for it.
    let session = ctx.session().ok();
    let backlog = rail_core::model::backlog::backlog(&eval, rail.log(), session.as_deref());
    Ok(Ready {
        backlog: backlog.len(),
        tasks: backlog
            .into_iter()
            .filter(|p| all || p.status == rail_core::model::backlog::PlannedStatus::Ready)
            .collect(),
    })
}

/// Who holds the rail lock, if anyone, and core's verdict on it (`rail lock`).
#[derive(Debug)]
pub struct LockStatus {
    /// The lock file's owner record (`None`: unreadable) and the verdict; `None`: the lock is free.
    pub found: Option<(
        Option<rail_core::change::lock::LockRecord>,
        rail_core::change::lock::LockVerdict,
    )>,
}

impl LockStatus {
    /// What `rail lock --json` prints.
    pub fn to_json(&self) -> serde_json::Value {
        match &self.found {
            None => serde_json::json!({ "held": false }),
            Some((record, verdict)) => {
                serde_json::json!({ "held": true, "record": record, "verdict": verdict })
            }
        }
    }
}

pub fn lock_status(ctx: &Ctx) -> Result<LockStatus, Fail> {
    let found =
        lock::inspect(&ctx.rail.root).map_err(|e| Fail::env(format!("reading the lock: {e}")))?;
    Ok(LockStatus { found })
}

/// Diagnostics of single files, the kind chosen by name.
pub fn validate_files(paths: &[PathBuf]) -> Result<Vec<Located>, Fail> {
    let mut out = Vec::new();
    for path in paths {
        // The same reading as the rail's own: a link, a FIFO or a device is refused (exit 3)
        // instead of followed or read forever.
        let bytes = match crate::sys::railfile::read(path) {
            Ok(Some((bytes, _))) => bytes,
            Ok(None) => return Err(Fail::usage(format!("{}: no such file", path.display()))),
            Err(e) if crate::sys::railfile::refusal(&e).is_some() => {
                return Err(Fail::env(crate::sys::railfile::describe(path, &e)))
            }
            Err(e) => {
                return Err(Fail {
                    code: fail::USAGE,
                    message: format!("{}: {e}", path.display()),
                    json: None,
                })
            }
        };
        let text = String::from_utf8(bytes)
            .map_err(|_| Fail::usage(format!("{} is not UTF-8", path.display())))?;
        let name = path.display().to_string();
        let file_name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let diags = if file_name == CONFIG_FILE {
            rail_core::formats::config::parse(&text).1
        } else if file_name.ends_with(".yaml") || file_name.ends_with(".yml") {
            rail_core::formats::claim_file::parse(&format!("claims/{file_name}"), &text).diagnostics
        } else if file_name.ends_with(".log") {
            rail_core::formats::log::parse(&text).diagnostics
        } else {
            rail_core::formats::claims_md::parse(&text).diagnostics
        };
        let index = LineIndex::new(&text);
        out.extend(diags.iter().map(|d| d.locate(&name, &text, &index)));
    }
    Ok(out)
}
