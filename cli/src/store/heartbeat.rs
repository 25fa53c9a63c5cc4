//! Guard status on disk: each hook call's mark for its session in `<git common dir>/rail/seen/`
//! (core's [`rail_core::formats::heartbeat`] writes and reads the text), read back for the board.
//! On a shared rail each machine also shares its own marks (`refs/rail/seen/<machine>`, pushed
//! with its rail updates when core says they tell something new), and the other machines'
//! marks, fetched with the rail, are kept in `<git common dir>/rail/seen-shared/<machine>`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rail_core::formats::heartbeat::{self, HookSeen};
use rail_core::model::behind;

use crate::git::repo::Repo;

use heartbeat::{
    MARKS_DIR as DIR, MAX_MARK_BYTES, MAX_MARK_FILES as MAX_MARKS, MAX_SHARED_BYTES,
    SHARED_MARKS_DIR as SHARED_DIR,
};
/// The marks this machine last shared, as pushed.
const PUBLISHED: &str = "seen-published";
/// Which commit of each machine's marks ref `seen-shared` holds (`machine commit` lines).
const MIRRORED: &str = ".commits";

/// Where a shared rail's machines share their marks, `refs/rail/seen/<machine>` (a commit whose
/// tree holds [`MARKS_FILE`]).
pub const SHARED_REFS: &str = "refs/rail/seen/";
/// Where a fetch puts them.
pub const FETCHED_REFS: &str = "refs/rail/seen-fetched/";
/// The file of a marks commit's tree.
pub const MARKS_FILE: &str = "seen";

fn shared_dir(repo: &Repo) -> PathBuf {
    repo.common_dir.join("rail").join(SHARED_DIR)
}

fn dir_of(repo: &Repo) -> PathBuf {
    repo.common_dir.join("rail").join(DIR)
}

/// Leaves the mark of a hook call for `session`. Best effort: a hook never fails, or slows,
/// on its mark (a failed write leaves the old mark, and the board says how old it is).
pub fn mark(repo: &Repo, session: &str, seen: &HookSeen) {
    let dir = dir_of(repo);
    // `rail/` first: in a repository where nothing made it yet, the mark would never be left.
    let rail = repo.common_dir.join("rail");
    if crate::sys::railfile::ensure_dir(&rail).is_err()
        || crate::sys::railfile::ensure_dir(&dir).is_err()
    {
        return;
    }
    let path = dir.join(heartbeat::file_name(session));
    let old = crate::sys::railfile::read_max(&path, MAX_MARK_BYTES)
        .ok()
        .flatten()
        .and_then(|(bytes, _)| String::from_utf8(bytes).ok());
    if !heartbeat::worth_marking(old.as_deref(), session, seen) {
        return;
    }
    // Not synced: a mark lost in a crash only makes the board's "last seen" older, and a
    // sync is the dearest step of the write.
    let _ = crate::sys::railfile::write_inside_as(
        &repo.common_dir,
        &path,
        heartbeat::render(session, seen).as_bytes(),
        false,
        false,
    );
}

/// Whether a hook call for `session` ever left its mark on this machine (where its agent's
/// hook runs, so where a notice for it is told).
pub fn seen_here(repo: &Repo, session: &str) -> bool {
    dir_of(repo).join(heartbeat::file_name(session)).is_file()
}

/// Every session's last mark: this machine's, and the newer of another machine's where a shared
/// rail brought one (core's `heartbeat::collect`).
pub fn read_all(repo: &Repo) -> BTreeMap<String, HookSeen> {
    let own = files(&dir_of(repo), MAX_MARK_BYTES);
    let shared = files(&shared_dir(repo), MAX_SHARED_BYTES);
    heartbeat::collect(
        own.iter().map(|(a, b)| (a.as_str(), b.as_str())),
        shared.iter().map(|(a, b)| (a.as_str(), b.as_str())),
    )
}

/// This machine's own marks.
pub fn own(repo: &Repo) -> BTreeMap<String, HookSeen> {
    let own = files(&dir_of(repo), MAX_MARK_BYTES);
    heartbeat::collect(own.iter().map(|(a, b)| (a.as_str(), b.as_str())), [])
}

/// The text files of `dir` by name (not `.`-names, not links, at most `max` bytes each, at most
/// [`MAX_MARKS`] of them).
fn files(dir: &Path, max: u64) -> Vec<(String, String)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok().map(|n| (n, e.path())))
        .filter(|(name, _)| !name.starts_with('.'))
        .take(MAX_MARKS)
        .filter_map(|(name, path)| {
            let (bytes, _) = crate::sys::railfile::read_max(&path, max).ok()??;
            Some((name, String::from_utf8(bytes).ok()?))
        })
        .collect()
}

/// This machine's marks as it would share them now, when they say something its last shared
/// marks did not (core's `worth_sharing`); `None`: nothing to share.
///
/// The text ends with this machine's work in flight (its sessions' recorded writes still
/// uncommitted, its stations' uncommitted and unmerged files — stations forking from `base`:
/// paths only, core's `behind::render_shared`), shared when a file was added or is gone too.
pub fn to_share(
    repo: &Repo,
    base: Option<&str>,
    now: rail_core::text::time::Time,
) -> Option<String> {
    let own = own(repo);
    let published = crate::sys::railfile::read_text(&repo.common_dir.join("rail").join(PUBLISHED))
        .ok()
        .flatten();
    let flight = crate::store::flight::local_work(repo, base, now);
    let news = heartbeat::worth_sharing(published.as_deref(), &own)
        || behind::worth_sharing(published.as_deref(), &flight);
    news.then(|| heartbeat::render_machine(&own) + &behind::render_shared(&flight))
}

/// The other machines' shared texts kept from the last fetch (machine, text): their marks and
/// their work in flight.
pub fn shared_texts(repo: &Repo) -> Vec<(String, String)> {
    files(&shared_dir(repo), MAX_SHARED_BYTES)
}

/// Records that `text` (from [`to_share`]) reached the remote.
pub fn shared(repo: &Repo, text: &str) {
    let _ = crate::sys::railfile::write_inside_as(
        &repo.common_dir,
        &repo.common_dir.join("rail").join(PUBLISHED),
        text.as_bytes(),
        false,
        false,
    );
}

/// Keeps the other machines' marks a fetch brought (`fetched`: machine and commit of each
/// `refs/rail/seen/<machine>`, this machine's own left out): a machine whose commit is new here
/// has its marks read (`read(commit)`) and written to `seen-shared/<machine>`; a machine gone
/// from the remote has its file removed.
pub fn keep_shared(
    repo: &Repo,
    me: &str,
    fetched: &[(String, String)],
    read: impl Fn(&str, &str) -> Option<String>,
) {
    let dir = shared_dir(repo);
    let index = dir.join(MIRRORED);
    let before = crate::sys::railfile::read_text(&index)
        .ok()
        .flatten()
        .unwrap_or_default();
    let known: BTreeMap<&str, &str> = before.lines().filter_map(|l| l.split_once(' ')).collect();
    let mut after = String::new();
    let mut wrote = false;
    for (machine, commit) in fetched.iter().take(MAX_MARKS) {
        if machine == me || !rail_core::change::queue::machine_ok(machine) {
            continue;
        }
        if known.get(machine.as_str()) != Some(&commit.as_str()) {
            // Not read (too large, not UTF-8, not the machine's): the marks kept stay.
            let Some(text) = read(machine, commit) else {
                continue;
            };
            // Its marks and its work in flight (issue 43), each dated no later than now here.
            let now = crate::sys::clock::now();
            let text = rail_core::formats::heartbeat::clamp_shared(&text, now)
                + &behind::keep_shared(&text, now);
            if crate::sys::railfile::ensure_dir(&dir).is_err() {
                return;
            }
            let _ = crate::sys::railfile::write_inside_as(
                &repo.common_dir,
                &dir.join(machine),
                text.as_bytes(),
                false,
                false,
            );
            wrote = true;
        }
        after.push_str(&format!("{machine} {commit}\n"));
    }
    for machine in known.keys() {
        if !fetched.iter().any(|(m, _)| m == machine) {
            let _ = std::fs::remove_file(dir.join(machine));
            wrote = true;
        }
    }
    if wrote || after != before {
        let _ = crate::sys::railfile::ensure_dir(&dir);
        let _ = crate::sys::railfile::write_inside_as(
            &repo.common_dir,
            &index,
            after.as_bytes(),
            false,
            false,
        );
    }
}
