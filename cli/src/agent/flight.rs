//! Work in flight, the host's part (issue 43): before an allowed tool call, the paths it may
//! write noted with their stat; after it, those it changed recorded as the session's work in
//! flight; before a call, the other sessions' work in flight it would write over found, with
//! the facts that say whether each is still uncommitted (the file's blob against HEAD's, for
//! those few paths only: never a scan of the checkout) and whether its session still counts
//! (its guard mark). Every rule is core's ([`rail_core::agent::flight`]); files are
//! `crate::store::flight`'s.

use std::path::Path;

use rail_core::agent::flight::{self, FileSeen, FlightHit, PendingCall, SessionFlight};

use rail_core::model::behind;

use crate::context::Ctx;
use crate::git::repo::Repo;
use crate::store::flight::{ended, GitFacts};

/// The checkout's name as entries record it: its path with links resolved.
fn checkout_of(repo: &Repo) -> String {
    let wt = &repo.worktree;
    wt.canonicalize()
        .unwrap_or_else(|_| wt.clone())
        .display()
        .to_string()
}

/// What a path is now, for [`flight::written`]: a regular file's stat, else absent (links and
/// folders are never followed or recorded).
fn seen_at(worktree: &Path, rel: &str) -> Option<FileSeen> {
    let m = std::fs::symlink_metadata(worktree.join(rel)).ok()?;
    m.is_file()
        .then(|| flight::seen(&crate::git::index::stat_of(&m)))
}

/// Before an allowed tool call: the note of what it may write (`targets` as the payload names
/// them, relative to `cwd` or absolute; those outside the checkout, patterns and the
/// checkout's own root left out).
pub fn before(session: &str, cwd: &Path, call: Option<&str>, targets: &[String]) {
    let Some(repo) = crate::git::repo::discover(cwd) else {
        return;
    };
    let checkout = checkout_of(&repo);
    let cwd = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
    let writes: Vec<(String, Option<FileSeen>)> = targets
        .iter()
        .filter(|t| rail_core::text::glob::is_literal(t))
        .filter_map(|t| {
            rail_core::agent::hook::repo_relative(&checkout, &cwd.display().to_string(), t)
        })
        .take(flight::MAX_PENDING)
        .map(|rel| {
            let seen = seen_at(&repo.worktree, &rel);
            (rel, seen)
        })
        .collect();
    let pending = PendingCall {
        checkout,
        writes,
        session: session.to_string(),
    };
    crate::store::flight::note(&repo, session, call, &pending);
}

/// After a tool call: the noted paths it changed, recorded as `session`'s work in flight, and
/// its entries in this checkout that are HEAD's again (committed, put back) dropped.
pub fn after(ctx: &Ctx, session: &str, cwd: &Path, call: Option<&str>) {
    let Some(repo) = crate::git::repo::discover(cwd) else {
        return;
    };
    let checkout = checkout_of(&repo);
    let Some(note) = crate::store::flight::take_note(&repo, session, call, &checkout) else {
        return;
    };
    let now: Vec<Option<FileSeen>> = note
        .writes
        .iter()
        .map(|(rel, _)| seen_at(&repo.worktree, rel))
        .collect();
    let wrote = flight::written(&note, &now);
    if wrote.is_empty() {
        return;
    }
    let mut own = crate::store::flight::own(&repo, session);
    own.record(&wrote, &checkout, ctx.now);
    // Entries whose file is HEAD's again (committed, put back) are pruned: those just written
    // (a write that put the file back), and all of this checkout's at most once a minute —
    // readers skip ended entries anyway, so a call pays for the whole check only now and then
    // (bench/in_flight.py: checking every entry on every call doubled the call).
    let all = own.prune_due(ctx.now);
    if all {
        own.pruned = Some(ctx.now);
    }
    let here: Vec<String> = (own.entries.iter())
        .filter(|e| e.checkout == checkout && (all || wrote.contains(&e.path)))
        .map(|e| e.path.clone())
        .collect();
    let mut facts = GitFacts::of(&repo, &here.iter().map(String::as_str).collect::<Vec<_>>());
    own.entries.retain(|e| {
        !here.contains(&e.path) || e.checkout != checkout || !ended(&mut facts, &e.path)
    });
    crate::store::flight::save(&repo, &own);
}

/// A session's end: its work in flight stays named, no longer blocking.
pub fn end(ctx: &Ctx, session: &str) {
    if let Some(repo) = &ctx.repo {
        crate::store::flight::end(repo, session, ctx.now);
    }
}

/// Before a write from the checkout at `cwd` of `targets` (repo-relative): the other sessions'
/// work in flight there it would write over ([`hits`]) and the "Behind!" call for their work
/// in the repository's other checkouts ([`called_out`]), the sessions' flight files read once.
pub fn before_write(
    ctx: &Ctx,
    eval: &rail_core::model::Evaluation,
    actor: &str,
    cwd: &Path,
    targets: &[String],
) -> (Vec<FlightHit>, flight::CallOut) {
    let Some(repo) = crate::git::repo::discover(cwd) else {
        return (Vec::new(), flight::CallOut::None);
    };
    let flights = crate::store::flight::read_all(&repo);
    (
        hits(ctx, &repo, &flights, actor, targets),
        called_out(ctx, eval, &repo, &flights, actor, targets),
    )
}

/// Other sessions' work in flight (`flights`) in `repo`'s checkout that writing `targets`
/// (repo-relative) would write over, each judged: still uncommitted (else left out), and its
/// session's standing.
fn hits(
    ctx: &Ctx,
    repo: &Repo,
    flights: &[SessionFlight],
    actor: &str,
    targets: &[String],
) -> Vec<FlightHit> {
    if flights.is_empty() {
        return Vec::new();
    }
    let checkout = checkout_of(repo);
    let found = flight::collisions(actor, &checkout, targets, flights);
    if found.is_empty() {
        return Vec::new();
    }
    let lease = ctx.settings().lease;
    let paths: Vec<&str> = (found.iter())
        .map(|&(i, j)| flights[i].entries[j].path.as_str())
        .collect();
    let mut facts = GitFacts::of(repo, &paths);
    let mut out = Vec::new();
    for (i, j) in found {
        let (f, e) = (&flights[i], &flights[i].entries[j]);
        if ended(&mut facts, &e.path) {
            continue;
        }
        let seen = last_seen(repo, &f.session);
        let mut hit = flight::hit(f, e, seen, ctx.now, lease);
        // A stale or ended session's work does not block: a copy is kept before the write, so
        // nothing it wrote is lost (bench/collisions lost an ended Gemini session's file so).
        if hit.standing != flight::FlightStanding::Live {
            hit.kept = crate::agent::after::set_aside(ctx, repo, &f.session, &e.path).is_ok();
        }
        out.push(hit);
    }
    out
}

/// Before a write from `repo`'s checkout: other sessions' live work in flight in the
/// repository's other checkouts (their stations) that `targets` (repo-relative) land on — their
/// agents' recorded writes (`flights`), and the stations' commits not merged yet — core's
/// "Behind!" call ([`behind::call`]), with the writer's record of its calls kept and, when the
/// write goes ahead, each such session's agents told at their next tool call. `eval`: the rail
/// as judged, to name a station's session by its claim.
fn called_out(
    ctx: &Ctx,
    eval: &rail_core::model::Evaluation,
    repo: &Repo,
    flights: &[SessionFlight],
    actor: &str,
    targets: &[String],
) -> flight::CallOut {
    if actor.is_empty() || targets.is_empty() {
        return flight::CallOut::None;
    }
    let checkout = checkout_of(repo);
    let found = crate::store::flight::recorded_in(repo, flights, targets, Some(&checkout));
    let lease = ctx.settings().lease;
    // Read once: the stations name the recorded writes' checkouts and hold the commits asked.
    let stations = crate::store::stations::stations(repo);
    let mut work: Vec<behind::InFlight> = found
        .into_iter()
        .map(|(f, e)| behind::InFlight {
            standing: flight::standing(&f, e.at, last_seen(repo, &f.session), ctx.now, lease),
            station: crate::store::stations::branch_at(&stations, &e.checkout),
            path: e.path,
            session: f.session,
            checkout: e.checkout,
            kind: behind::WorkKind::Written,
            at: e.at,
            machine: None,
        })
        .collect();
    for w in crate::ops::flight::stations_unmerged(ctx, eval, repo, &stations, &checkout, targets) {
        if !work
            .iter()
            .any(|r| r.path == w.path && r.checkout == w.checkout)
        {
            work.push(w);
        }
    }
    let items = behind::elsewhere(actor, &checkout, targets, &work);
    if items.is_empty() {
        return flight::CallOut::None;
    }
    let mut own = crate::store::flight::own(repo, actor);
    let call = flight::call_out(&items, &mut own, ctx.now);
    crate::store::flight::save(repo, &own);
    if let flight::CallOut::Pass(_, tell) = &call {
        for (session, files) in tell {
            let first = files.first().map_or("", String::as_str);
            crate::store::notice::post_behind(repo, session, actor, first, files, true, ctx.now);
        }
    }
    call
}

/// `session`'s last hook call here (its guard mark).
fn last_seen(repo: &Repo, session: &str) -> Option<chrono::DateTime<chrono::Utc>> {
    let name = rail_core::formats::heartbeat::file_name(session);
    let path = repo
        .common_dir
        .join("rail")
        .join(rail_core::formats::heartbeat::MARKS_DIR)
        .join(&name);
    let (bytes, _) =
        crate::sys::railfile::read_max(&path, rail_core::formats::heartbeat::MAX_MARK_BYTES)
            .ok()??;
    let text = String::from_utf8(bytes).ok()?;
    rail_core::formats::heartbeat::read(&name, &text).map(|(_, seen)| seen.at)
}
