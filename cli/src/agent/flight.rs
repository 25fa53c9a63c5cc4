//! Work in flight, the host's part (issue 43): before an allowed tool call, the paths it may
//! write noted with their stat; after it, those it changed recorded as the session's work in
//! flight; before a call, the other sessions' work in flight it would write over found, with
//! the facts that say whether each is still uncommitted (the file's blob against HEAD's, for
//! those few paths only: never a scan of the checkout) and whether its session still counts
//! (its guard mark). Every rule is core's ([`rail_core::agent::flight`]); files are
//! `crate::store::flight`'s.

use std::path::Path;

use rail_core::agent::flight::{self, FileSeen, FlightHit, PathNow, PendingCall, SessionFlight};
use rail_core::formats::gitindex;
use rail_core::formats::gitobject::{self, ObjectKind, Oid};

use rail_core::model::behind;

use crate::context::Ctx;
use crate::git::objects::{self, Head, ObjectFiles};
use crate::git::repo::Repo;

/// The largest file whose content is hashed to tell whether it is HEAD's (past it: still in
/// flight until its session goes stale).
const MAX_HASHED: u64 = 8 << 20;

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
        .then(|| flight::seen(&crate::agent::after::stat_of(&m)))
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
    let pending = PendingCall { checkout, writes };
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
    let mut facts = Facts::of(&repo);
    own.entries
        .retain(|e| e.checkout != checkout || !ended(&mut facts, &e.path));
    crate::store::flight::save(&repo, &own);
}

/// A session's end: its work in flight stays named, no longer blocking.
pub fn end(ctx: &Ctx, session: &str) {
    if let Some(repo) = &ctx.repo {
        crate::store::flight::end(repo, session, ctx.now);
    }
}

/// Other sessions' work in flight in the checkout at `cwd` that writing `targets`
/// (repo-relative) would write over, each judged: still uncommitted (else left out), and its
/// session's standing.
pub fn hits(ctx: &Ctx, actor: &str, cwd: &Path, targets: &[String]) -> Vec<FlightHit> {
    let Some(repo) = crate::git::repo::discover(cwd) else {
        return Vec::new();
    };
    let flights: Vec<SessionFlight> = crate::store::flight::read_all(&repo);
    if flights.is_empty() {
        return Vec::new();
    }
    let checkout = checkout_of(&repo);
    let found = flight::collisions(actor, &checkout, targets, &flights);
    if found.is_empty() {
        return Vec::new();
    }
    let lease = ctx.settings().lease;
    let mut facts = Facts::of(&repo);
    let mut out = Vec::new();
    for (i, j) in found {
        let (f, e) = (&flights[i], &flights[i].entries[j]);
        if ended(&mut facts, &e.path) {
            continue;
        }
        let seen = last_seen(&repo, &f.session);
        out.push(flight::hit(f, e, seen, ctx.now, lease));
    }
    out
}

/// Every session's recorded writes under `patterns`, in any checkout of the repository, that
/// are still uncommitted there: each with its session and when that session ended (if it did).
/// A checkout that is gone is left out (its files went with it).
pub fn recorded(repo: &Repo, patterns: &[String]) -> Vec<(SessionFlight, flight::FlightEntry)> {
    let flights = crate::store::flight::read_all(repo);
    // The entries asked about, by checkout: each checkout's index and HEAD read once.
    let mut by_checkout: std::collections::BTreeMap<
        &str,
        Vec<(&SessionFlight, &flight::FlightEntry)>,
    > = std::collections::BTreeMap::new();
    for f in &flights {
        for e in &f.entries {
            if patterns
                .iter()
                .any(|p| rail_core::model::behind::covers(p, &e.path))
            {
                by_checkout
                    .entry(e.checkout.as_str())
                    .or_default()
                    .push((f, e));
            }
        }
    }
    let mut out = Vec::new();
    for (checkout, entries) in by_checkout {
        let Some(there) = crate::git::repo::discover(Path::new(checkout)) else {
            continue;
        };
        if !crate::ops::station::same(&there.common_dir, &repo.common_dir) {
            continue;
        }
        let mut facts = Facts::of(&there);
        for (f, e) in entries {
            if ended(&mut facts, &e.path) {
                continue;
            }
            let mut who = SessionFlight::new(&f.session);
            who.ended = f.ended;
            out.push((who, e.clone()));
        }
    }
    out
}

/// Before a write from the checkout at `cwd`: other sessions' live work in flight in the
/// repository's other checkouts (their stations) that `targets` (repo-relative) land on — core's
/// "Behind!" call ([`behind::call`]), with the writer's record of its calls kept and, when the
/// write goes ahead, each such session's agents told at their next tool call.
pub fn called_out(ctx: &Ctx, actor: &str, cwd: &Path, targets: &[String]) -> behind::Call {
    if actor.is_empty() || targets.is_empty() {
        return behind::Call::None;
    }
    let Some(repo) = crate::git::repo::discover(cwd) else {
        return behind::Call::None;
    };
    let checkout = checkout_of(&repo);
    let found: Vec<_> = recorded(&repo, targets)
        .into_iter()
        .filter(|(_, e)| e.checkout != checkout)
        .collect();
    if found.is_empty() {
        return behind::Call::None;
    }
    let lease = ctx.settings().lease;
    let stations = crate::git::repo::worktree_dirs(&repo);
    let branch_of = |dir: &str| {
        stations
            .iter()
            .find(|d| {
                d.admin.is_some()
                    && d.path
                        .canonicalize()
                        .is_ok_and(|p| p.display().to_string() == dir)
            })
            .and_then(|d| d.branch.clone())
    };
    let work: Vec<behind::InFlight> = found
        .into_iter()
        .map(|(f, e)| behind::InFlight {
            standing: flight::standing(&f, e.at, last_seen(&repo, &f.session), ctx.now, lease),
            station: branch_of(&e.checkout),
            path: e.path,
            session: f.session,
            checkout: e.checkout,
            kind: behind::WorkKind::Written,
            at: e.at,
            machine: None,
        })
        .collect();
    let items = behind::elsewhere(actor, &checkout, targets, &work);
    if items.is_empty() {
        return behind::Call::None;
    }
    let mut own = crate::store::flight::own(&repo, actor);
    let call = behind::call(&items, &mut own, ctx.now);
    crate::store::flight::save(&repo, &own);
    if let behind::Call::Pass(_, tell) = &call {
        for (session, files) in tell {
            let first = files.first().map_or("", String::as_str);
            crate::store::notice::post_behind(&repo, session, actor, first, files, true, ctx.now);
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

/// Whether `rel`'s work is over: core's [`flight::ended`] on its file now and HEAD's.
fn ended(facts: &mut Facts, rel: &str) -> bool {
    let now = facts.path_now(rel);
    let head = facts.head.blob(rel);
    flight::ended(&now, head.as_ref().map(|h| h.as_deref()).map_err(|_| ()))
}

/// What a call reads of git to tell whether paths in flight are still uncommitted: HEAD's tree
/// and the checkout's index, each read once and only when first needed.
struct Facts<'a> {
    repo: &'a Repo,
    head: HeadTree<'a>,
    /// `None`: not read yet; `Some(None)`: no index Rail reads (a SHA-256 repository, none).
    index: Option<Option<gitindex::Index>>,
}

impl<'a> Facts<'a> {
    fn of(repo: &'a Repo) -> Facts<'a> {
        Facts {
            repo,
            head: HeadTree::of(repo),
            index: None,
        }
    }

    /// The file at `rel` as a blob id: the index's when git's own stat test says the file is
    /// the one it recorded — a file git converts on checkout (`core.autocrlf`, `eol`, filters)
    /// never hashes to its blob, and a commit leaves it clean in the index — else its bytes
    /// hashed as git hashes them.
    fn path_now(&mut self, rel: &str) -> PathNow {
        let at = self.repo.worktree.join(rel);
        let m = match std::fs::symlink_metadata(&at) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return PathNow::Missing,
            Err(_) => return PathNow::Unknown,
            Ok(m) => m,
        };
        if !m.is_file() {
            return PathNow::Unknown;
        }
        let stat = crate::agent::after::stat_of(&m);
        let repo = self.repo;
        let index = self.index.get_or_insert_with(|| {
            (!crate::agent::after::sha256(repo))
                .then(|| crate::agent::after::read_index(&repo.git_dir, &[String::new()]))
                .flatten()
        });
        if let Some((entries, written)) = index {
            if let Ok(i) = entries.binary_search_by(|(n, _)| n.as_str().cmp(rel)) {
                let e = &entries[i].1;
                if gitindex::clean(&stat, e, *written) {
                    return PathNow::Blob(e.oid.clone());
                }
            }
        }
        if m.len() > MAX_HASHED {
            return PathNow::Unknown;
        }
        match crate::sys::railfile::read_max(&at, MAX_HASHED) {
            Ok(Some((bytes, _))) => {
                PathNow::Blob(gitobject::hex(&gitobject::id(ObjectKind::Blob, &bytes)))
            }
            Ok(None) => PathNow::Missing,
            Err(_) => PathNow::Unknown,
        }
    }
}

/// HEAD's tree, read from git's files once per call when first needed.
struct HeadTree<'a> {
    repo: &'a Repo,
    /// `None`: not read yet; `Some(Err)`: unreadable; `Some(Ok(None))`: an unborn branch.
    root: Option<Result<Option<(ObjectFiles, Oid)>, ()>>,
}

impl<'a> HeadTree<'a> {
    fn of(repo: &'a Repo) -> HeadTree<'a> {
        HeadTree { repo, root: None }
    }

    /// HEAD's blob at `rel`: `Ok(None)` when HEAD has no file there, `Err` when unreadable.
    fn blob(&mut self, rel: &str) -> Result<Option<String>, ()> {
        let repo = self.repo;
        let root = self
            .root
            .get_or_insert_with(|| match objects::head(repo).ok_or(())? {
                Head::Unborn => Ok(None),
                Head::Commit(c) => {
                    let mut files = ObjectFiles::open(&repo.common_dir).ok_or(())?;
                    let tree = files.commit_tree(&c).ok_or(())?;
                    Ok(Some((files, tree)))
                }
            });
        let (files, mut tree) = match root {
            Err(()) => return Err(()),
            Ok(None) => return Ok(None),
            Ok(Some((files, tree))) => (files, *tree),
        };
        let parts: Vec<&str> = rel.split('/').collect();
        for (k, part) in parts.iter().enumerate() {
            let entries = files.tree(&tree).ok_or(())?;
            let Some(entry) = entries.iter().find(|e| e.name == *part) else {
                return Ok(None);
            };
            let is_tree = entry.mode == 0o040000;
            if k + 1 == parts.len() {
                return Ok((!is_tree).then(|| gitobject::hex(&entry.oid)));
            }
            if !is_tree {
                return Ok(None);
            }
            tree = entry.oid;
        }
        Ok(None)
    }
}
