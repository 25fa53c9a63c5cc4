//! Work in flight on disk: each session's file of what its tool calls wrote and has not
//! committed, in `<git common dir>/rail/flight/<session>`, and the note an allowed tool call
//! leaves for its after-tool call in `<git common dir>/rail/flight/pending/` (core's
//! [`rail_core::agent::flight`] says what they hold and how they read). Written through Rail's
//! one safe writer, read without following links and bounded; best effort: a hook never fails
//! on them. And which recorded writes are still uncommitted ([`recorded`], judged by
//! [`GitFacts`]: git's index and HEAD's tree read from git's files, for those paths only), and
//! each station's commits since the base as last asked of git ([`branch_files`]).

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use rail_core::agent::flight::{
    self, PendingCall, SessionFlight, FLIGHT_DIR, MAX_FILE_BYTES, MAX_SESSIONS, PENDING_DIR,
};
use rail_core::formats::heartbeat::file_name;

use rail_core::agent::flight::PathNow;
use rail_core::formats::gitindex;
use rail_core::formats::gitobject::{self, ObjectKind, Oid};

use crate::git::objects::{self, Head, ObjectFiles};
use crate::git::repo::Repo;

fn dir_of(repo: &Repo) -> PathBuf {
    repo.common_dir.join("rail").join(FLIGHT_DIR)
}

fn pending_path(repo: &Repo, session: &str, call: Option<&str>, checkout: &str) -> PathBuf {
    let mut name = file_name(session);
    if let Some(id) = call {
        name.push('.');
        name.push_str(&file_name(id));
    }
    let wt = file_name(checkout);
    let hash = crate::sys::fnv(wt.as_bytes());
    dir_of(repo)
        .join(PENDING_DIR)
        .join(format!("{name}@{hash:016x}"))
}

fn read_text(path: &Path) -> Option<String> {
    let (bytes, _) = crate::sys::railfile::read_max(path, MAX_FILE_BYTES).ok()??;
    String::from_utf8(bytes).ok()
}

fn write(repo: &Repo, path: &Path, text: &str) {
    // Each folder from `rail/` down, one level at a time (none followed if a link).
    let Ok(rel) = path.strip_prefix(&repo.common_dir) else {
        return;
    };
    let mut dir = repo.common_dir.clone();
    let folders: Vec<_> = rel
        .parent()
        .into_iter()
        .flat_map(Path::components)
        .collect();
    for part in folders {
        dir.push(part);
        if crate::sys::railfile::ensure_dir(&dir).is_err() {
            return;
        }
    }
    // Not synced: a note lost in a crash only means a write not recorded.
    let _ = crate::sys::railfile::write_inside_as(
        &repo.common_dir,
        path,
        text.as_bytes(),
        false,
        false,
    );
}

/// Leaves the note of a tool call about to run: the paths it may write, with what each is now.
pub fn note(repo: &Repo, session: &str, call: Option<&str>, pending: &PendingCall) {
    let path = pending_path(repo, session, call, &pending.checkout);
    if pending.writes.is_empty() {
        let _ = std::fs::remove_file(&path);
        return;
    }
    write(repo, &path, &flight::render_pending(pending));
}

/// Takes the note its pre-tool call left (removing it).
pub fn take_note(
    repo: &Repo,
    session: &str,
    call: Option<&str>,
    checkout: &str,
) -> Option<PendingCall> {
    let path = pending_path(repo, session, call, checkout);
    let text = read_text(&path);
    let _ = std::fs::remove_file(&path);
    flight::parse_pending(&text?)
}

/// `session`'s own file (a new one when it has none or it does not read).
pub fn own(repo: &Repo, session: &str) -> SessionFlight {
    let name = file_name(session);
    read_text(&dir_of(repo).join(&name))
        .and_then(|text| flight::parse(&name, &text))
        .unwrap_or_else(|| SessionFlight::new(session))
}

/// Writes `session`'s file back; an empty one is removed.
pub fn save(repo: &Repo, flight: &SessionFlight) {
    let path = dir_of(repo).join(file_name(&flight.session));
    if flight.is_empty() {
        let _ = std::fs::remove_file(&path);
        return;
    }
    write(repo, &path, &flight::render(flight));
}

/// Who wrote what in `checkout` since `since`: each path a tool call is writing now (its
/// pending note), and each recorded as written at or after `since`, with the session. For
/// another session's after-tool check, which must not put back a holder's own write.
pub fn writes_since(repo: &Repo, checkout: &str, since: DateTime<Utc>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir_of(repo).join(PENDING_DIR)) {
        for e in entries.flatten().take(MAX_SESSIONS) {
            if !e.file_type().is_ok_and(|t| t.is_file()) {
                continue;
            }
            let Some(call) = read_text(&e.path()).and_then(|t| flight::parse_pending(&t)) else {
                continue;
            };
            if call.checkout == checkout && !call.session.is_empty() {
                out.extend(
                    call.writes
                        .into_iter()
                        .map(|(p, _)| (p, call.session.clone())),
                );
            }
        }
    }
    for f in read_all(repo) {
        for e in &f.entries {
            if e.checkout == checkout && e.at >= since {
                out.push((e.path.clone(), f.session.clone()));
            }
        }
    }
    out
}

/// Marks `session`'s work in flight as left by an ended session (named, not blocking).
pub fn end(repo: &Repo, session: &str, at: DateTime<Utc>) {
    let mut flight = own(repo, session);
    if flight.entries.is_empty() {
        return;
    }
    flight.ended = Some(at);
    save(repo, &flight);
}

/// Every session's file that reads (not `.`-names, not links, not folders; at most
/// [`MAX_SESSIONS`]). No folder: none (the common case, one `stat`).
pub fn read_all(repo: &Repo) -> Vec<SessionFlight> {
    let Ok(entries) = std::fs::read_dir(dir_of(repo)) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| e.file_name().into_string().ok().map(|n| (n, e.path())))
        .filter(|(name, _)| !name.starts_with('.'))
        .take(MAX_SESSIONS)
        .filter_map(|(name, path)| flight::parse(&name, &read_text(&path)?))
        .collect()
}

/// The folder of each station's files committed since the base, as last asked of git.
const BRANCHES_DIR: &str = "branches";
/// The most paths kept of one station's commits (past it, git is asked each time).
const MAX_BRANCH_FILES: usize = 20_000;

fn branch_path(repo: &Repo, checkout: &str) -> PathBuf {
    dir_of(repo)
        .join(BRANCHES_DIR)
        .join(format!("{:016x}", crate::sys::fnv(checkout.as_bytes())))
}

/// The files a station's commits changed since the base, kept for `key` (its HEAD and the
/// base's commit): `None` when none are kept for that key.
pub fn branch_files(repo: &Repo, checkout: &str, key: &str) -> Option<Vec<String>> {
    let text = read_text(&branch_path(repo, checkout))?;
    let (first, rest) = text.split_once('\n')?;
    (first == key).then(|| {
        rest.split('\0')
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect()
    })
}

/// Keeps `files` for `key` (see [`branch_files`]).
pub fn save_branch_files(repo: &Repo, checkout: &str, key: &str, files: &[String]) {
    if files.len() > MAX_BRANCH_FILES || key.contains('\n') {
        return;
    }
    let text = format!("{key}\n{}", files.join("\0"));
    if text.len() as u64 > MAX_FILE_BYTES {
        return;
    }
    write(repo, &branch_path(repo, checkout), &text);
}

/// The largest file whose content is hashed to tell whether it is HEAD's (past it: still in
/// flight until its session goes stale).
const MAX_HASHED: u64 = 8 << 20;

/// Every session's recorded writes under `patterns`, in any checkout of the repository, that
/// are still uncommitted there: each with its session and when that session ended (if it did).
/// A checkout that is gone is left out (its files went with it).
pub fn recorded(
    repo: &Repo,
    patterns: &[String],
    except: Option<&str>,
) -> Vec<(SessionFlight, flight::FlightEntry)> {
    recorded_in(repo, &read_all(repo), patterns, except)
}

/// [`recorded`] of `flights`, the sessions' files as the caller read them.
pub fn recorded_in(
    repo: &Repo,
    flights: &[SessionFlight],
    patterns: &[String],
    except: Option<&str>,
) -> Vec<(SessionFlight, flight::FlightEntry)> {
    // A write another session's later write of the same file replaced is no one's work now.
    let latest = flight::latest_writes(flights);
    // The entries asked about, by checkout: each checkout's index and HEAD read once.
    let mut by_checkout: std::collections::BTreeMap<
        &str,
        Vec<(&SessionFlight, &flight::FlightEntry)>,
    > = std::collections::BTreeMap::new();
    for f in flights {
        for e in &f.entries {
            if Some(e.checkout.as_str()) != except
                && flight::is_latest(&latest, e)
                && patterns
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
        let same = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
        if same(&there.common_dir) != same(&repo.common_dir) {
            continue;
        }
        let paths: Vec<&str> = entries.iter().map(|(_, e)| e.path.as_str()).collect();
        let mut facts = GitFacts::of(&there, &paths);
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

/// This machine's work in flight as its shared marks carry it: its sessions' recorded writes
/// still uncommitted, in any checkout, and each station's uncommitted and unmerged files
/// (stations forking from `base`), under the station's branch as its session (the claim a
/// station is made for is named after it). Judged live: whoever reads them judges their
/// standing.
pub fn local_work(
    repo: &Repo,
    base: Option<&str>,
    now: DateTime<Utc>,
) -> Vec<rail_core::model::behind::InFlight> {
    use rail_core::model::behind::{FlightStanding, InFlight, WorkKind};
    let stations = super::stations::stations(repo);
    let mut work: Vec<InFlight> = recorded(repo, &["**".to_string()], None)
        .into_iter()
        .map(|(f, e)| InFlight {
            station: super::stations::branch_at(&stations, &e.checkout),
            path: e.path,
            session: f.session,
            checkout: e.checkout,
            kind: WorkKind::Written,
            at: e.at,
            standing: FlightStanding::Live,
            machine: None,
        })
        .collect();
    if stations.is_empty() {
        return work;
    }
    let recorded = work.len();
    for f in super::stations::files(repo, &stations, base, &[], now) {
        let (known, _) = work.split_at(recorded);
        if known
            .iter()
            .any(|w| w.path == f.path && w.checkout == f.checkout)
        {
            continue;
        }
        work.push(InFlight {
            session: f.branch.clone(),
            station: Some(f.branch),
            path: f.path,
            checkout: f.checkout,
            kind: f.kind,
            at: f.at,
            standing: FlightStanding::Live,
            machine: None,
        });
    }
    work
}

/// Whether `rel`'s work is over: core's [`flight::ended`] on its file now and HEAD's.
pub fn ended(facts: &mut GitFacts, rel: &str) -> bool {
    let now = facts.path_now(rel);
    let head = facts.head.blob(rel);
    flight::ended(&now, head.as_ref().map(|h| h.as_deref()).map_err(|_| ()))
}

/// What a call reads of git to tell whether paths in flight are still uncommitted: HEAD's tree
/// and the checkout's index, each read once and only when first needed.
pub struct GitFacts<'a> {
    repo: &'a Repo,
    /// The folders whose index entries are read (the parents of the paths asked about).
    roots: Vec<String>,
    head: HeadTree<'a>,
    /// `None`: not read yet; `Some(None)`: no index Rail reads (a SHA-256 repository, none).
    index: Option<Option<gitindex::Index>>,
}

impl<'a> GitFacts<'a> {
    /// For asking about `paths` (repo-relative): only their folders' index entries are read.
    pub fn of(repo: &'a Repo, paths: &[&str]) -> GitFacts<'a> {
        let mut roots: Vec<String> = paths
            .iter()
            .map(|p| p.rsplit_once('/').map_or("", |(dir, _)| dir).to_string())
            .collect();
        roots.sort();
        roots.dedup();
        GitFacts {
            repo,
            roots,
            head: HeadTree::of(repo),
            index: None,
        }
    }

    /// The file at `rel` as a blob id: the index's when git's own stat test says the file is
    /// the one it recorded — a file git converts on checkout (`core.autocrlf`, `eol`, filters)
    /// never hashes to its blob, and a commit leaves it clean in the index — else its bytes
    /// hashed as git hashes them.
    pub fn path_now(&mut self, rel: &str) -> PathNow {
        let at = self.repo.worktree.join(rel);
        let m = match std::fs::symlink_metadata(&at) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return PathNow::Missing,
            Err(_) => return PathNow::Unknown,
            Ok(m) => m,
        };
        if !m.is_file() {
            return PathNow::Unknown;
        }
        let stat = crate::git::index::stat_of(&m);
        let repo = self.repo;
        let index = self.index.get_or_insert_with(|| {
            (!crate::git::index::sha256(repo))
                .then(|| crate::git::index::read_index(&repo.git_dir, &self.roots))
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
