//! Guard status on disk: each hook call's mark for its session in `<git common dir>/rail/seen/`
//! (core's [`rail_core::agent::heartbeat`] writes and reads the text), read back for the board.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rail_core::agent::heartbeat::{self, HookSeen};

use crate::repo::Repo;

const DIR: &str = "seen";
/// More marks than this are not read (a board stays cheap whatever is put there).
const MAX_MARKS: usize = 1000;
const MAX_MARK_BYTES: u64 = 4096;

fn dir_of(repo: &Repo) -> PathBuf {
    repo.common_dir.join("rail").join(DIR)
}

/// Leaves the mark of a hook call for `session`. Best effort: a hook never fails, or slows,
/// on its mark (a failed write leaves the old mark, and the board says how old it is).
pub fn mark(repo: &Repo, session: &str, seen: &HookSeen) {
    let dir = dir_of(repo);
    if crate::railfile::ensure_dir(&dir).is_err() {
        return;
    }
    let path = dir.join(heartbeat::file_name(session));
    let _ = crate::railfile::write_inside(
        &repo.common_dir,
        &path,
        heartbeat::render(session, seen).as_bytes(),
        false,
    );
}

/// Whether a hook call for `session` ever left its mark on this machine (where its agent's
/// hook runs, so where a notice for it is told).
pub fn seen_here(repo: &Repo, session: &str) -> bool {
    dir_of(repo).join(heartbeat::file_name(session)).is_file()
}

/// Every session's last mark.
pub fn read_all(repo: &Repo) -> BTreeMap<String, HookSeen> {
    let mut out = BTreeMap::new();
    let Ok(entries) = std::fs::read_dir(dir_of(repo)) else {
        return out;
    };
    for entry in entries.flatten().take(MAX_MARKS) {
        let path: &Path = &entry.path();
        let Ok(Some((bytes, _))) = crate::railfile::read_max(path, MAX_MARK_BYTES) else {
            continue;
        };
        let Ok(text) = String::from_utf8(bytes) else {
            continue;
        };
        // A mark counts only under its own session's name (core decides).
        if let Some((session, seen)) = entry
            .file_name()
            .to_str()
            .and_then(|name| heartbeat::read(name, &text))
        {
            out.insert(session, seen);
        }
    }
    out
}
