//! Work in flight on disk: each session's file of what its tool calls wrote and has not
//! committed, in `<git common dir>/rail/flight/<session>`, and the note an allowed tool call
//! leaves for its after-tool call in `<git common dir>/rail/flight/pending/` (core's
//! [`rail_core::agent::flight`] says what they hold and how they read). Written through Rail's
//! one safe writer, read without following links and bounded; best effort: a hook never fails
//! on them.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use rail_core::agent::flight::{
    self, PendingCall, SessionFlight, FLIGHT_DIR, MAX_FILE_BYTES, MAX_SESSIONS, PENDING_DIR,
};
use rail_core::formats::heartbeat::file_name;

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
