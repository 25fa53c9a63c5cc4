//! Notices on disk: a session's lost claims, one file each in `<git common dir>/rail/notices/
//! <session>/`, made where the loss is found and removed once the session's hook told it (core's
//! [`rail_core::formats::notice`] writes and reads the text and says how it joins the hook's answer).

use std::path::{Path, PathBuf};

use rail_core::formats::heartbeat;
use rail_core::formats::notice::{self, Notice};

use crate::git::repo::Repo;

const DIR: &str = "notices";
/// More files than this in one session's folder are not looked at (a hook stays cheap whatever
/// is put there); the oldest are told first, so the rest come at later calls.
const MAX_FILES: usize = 64;
const MAX_BYTES: u64 = 4096;

fn folder(repo: &Repo, session: &str) -> PathBuf {
    repo.common_dir
        .join("rail")
        .join(DIR)
        .join(heartbeat::file_name(session))
}

/// Leaves `n` for its session's next hook call, where its agent's hook runs: on this machine
/// when the session's hook was seen here, or `always` (the claim was made here, with
/// `RAIL_LOCAL=1`). Best effort, like the heartbeat: the log line is the record, the notice
/// its delivery; a failure to leave it is said on stderr.
pub fn post(repo: &Repo, n: &Notice, always: bool) {
    if !always && !crate::store::heartbeat::seen_here(repo, &n.session) {
        return;
    }
    let dir = folder(repo, &n.session);
    let made = crate::sys::railfile::ensure_dir(&repo.common_dir.join("rail").join(DIR))
        .and_then(|()| crate::sys::railfile::ensure_dir(&dir));
    // Named by time, then process and a counter: sorted by name, the oldest first.
    static COUNT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let name = format!(
        "{}-{}-{}",
        rail_core::text::time::format_time(n.at).replace(':', ""),
        std::process::id(),
        COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    let written = made.and_then(|()| {
        crate::sys::railfile::write_inside(
            &repo.common_dir,
            &dir.join(name),
            notice::render(n).as_bytes(),
            false,
        )
    });
    if let Err(e) = written {
        errln!(
            "rail: could not leave {}'s hook the notice of {} ({}: {e}); the log has it",
            n.session,
            n.task,
            dir.display()
        );
    }
}

/// The notices waiting for `session` (oldest first, at most [`notice::MAX_TOLD`]) and their
/// files, to remove once told. No folder (the usual case): one failed `open`.
pub fn pending(repo: &Repo, session: &str) -> Vec<(PathBuf, Notice)> {
    let dir = folder(repo, session);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut names: Vec<PathBuf> = entries
        .flatten()
        .take(MAX_FILES)
        .map(|e| e.path())
        .filter(|p| {
            // Rail's own temporary files are not notices yet.
            !p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with('.'))
        })
        .collect();
    names.sort();
    let folder_name = heartbeat::file_name(session);
    let mut out = Vec::new();
    for path in names {
        let Ok(Some((bytes, _))) = crate::sys::railfile::read_max(&path, MAX_BYTES) else {
            continue;
        };
        let Some(n) = String::from_utf8(bytes)
            .ok()
            .and_then(|t| notice::read(&folder_name, &t))
        else {
            // Not Rail's (or damaged): never told, never removed, not read past the cap.
            continue;
        };
        out.push((path, n));
        if out.len() == notice::MAX_TOLD {
            break;
        }
    }
    out
}

/// Removes the notices a hook answer carried.
pub fn told(paths: &[PathBuf]) {
    for p in paths {
        let _ = std::fs::remove_file(Path::new(p));
    }
}

/// "Behind!": tells `session` that `holder` claimed `task` over its work in flight (`files`,
/// [`notice::LossCause::ClaimedOver`]), or, with `written`, that `holder`'s agent is writing
/// `files` in another checkout ([`notice::LossCause::WrittenBeside`]). Delivered to the
/// session's agents whose hook was seen here: the session itself, and when it is a branch, each
/// agent working for it; none seen, to the session's own folder, for its next hook call.
pub fn post_behind(
    repo: &Repo,
    session: &str,
    holder: &str,
    task: &str,
    files: &[String],
    written: bool,
    at: rail_core::text::time::Time,
) {
    let listed = files.join(", ");
    let why = if written {
        notice::LossCause::WrittenBeside(listed)
    } else {
        notice::LossCause::ClaimedOver(listed)
    };
    let marks = crate::store::heartbeat::read_all(repo);
    let mut to: Vec<&str> = marks
        .keys()
        .map(String::as_str)
        .filter(|s| *s == session || rail_core::text::ident::acts_for(session, s))
        .filter(|s| crate::store::heartbeat::seen_here(repo, s))
        .collect();
    if to.is_empty() {
        to.push(session);
    }
    for s in to {
        let n = Notice {
            session: s.to_string(),
            task: task.to_string(),
            holder: holder.to_string(),
            why: why.clone(),
            at,
        };
        post(repo, &n, true);
    }
}
