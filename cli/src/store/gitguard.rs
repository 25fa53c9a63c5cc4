//! git and Rail never write the main checkout's claims.md at the same time (core `checkout`).
//!
//! git rewrites a work-tree file by removing it and writing a new one, and only while it holds
//! the work tree's `index.lock`. A claim written between git's "is claims.md unchanged?" check
//! and its rewrite went to the removed file and was lost; a claim written while git was writing
//! the new file interleaved with it and tore it (measured: 39 of 40 claims racing `git merge`
//! lost, and claims.md cut to two lines). So while Rail holds the rail lock it also holds
//! `index.lock`, created the way git creates it (exclusively), holding Rail's lock record so
//! that one left by a Rail that died can be told from git's own. Then, with git kept out,
//! claims.md is opened again if git replaced it before the lock was taken.
//!
//! The receipts half (claims git dropped while nobody held anything, e.g. `git reset --hard`)
//! is [`Receipt`].

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use rail_core::change::checkout::{self, IndexLockStep};
use rail_core::change::lock::LockRecord;

use crate::git::repo;
use crate::store::lock::{Backoff, LockError, Observed};

/// Rail's hold on a work tree's `index.lock`. Dropping it removes the file if it is still ours.
#[derive(Debug)]
pub struct IndexLock {
    path: PathBuf,
    nonce: String,
}

impl Drop for IndexLock {
    fn drop(&mut self) {
        if let Ok(Some(seen)) = Observed::read(&self.path) {
            if seen.record.as_ref().map(|r| r.nonce.as_str()) == Some(self.nonce.as_str()) {
                let _ = fs::remove_file(&self.path);
            }
        }
    }
}

/// The git dir of the work tree that holds the rail, if the rail is in one.
pub fn git_dir_of(rail_root: &Path) -> Option<PathBuf> {
    repo::discover(rail_root).map(|r| r.git_dir)
}

/// Is this process run by a git command that holds the index lock itself (a `pre-commit` hook
/// of `git commit -a`, which points `GIT_INDEX_FILE` at the lock file)? Waiting for that lock
/// would wait for our own parent; that git command does not rewrite the work tree meanwhile.
fn parent_git_holds_index() -> bool {
    crate::sys::env::var_os("GIT_INDEX_FILE")
        .is_some_and(|f| f.to_string_lossy().ends_with(".lock"))
}

/// The git dir whose index lock the git command running this process holds, when it says so
/// by running us as its merge driver ([`parent_git_holds`]).
static PARENT_INDEX: std::sync::Mutex<Option<PathBuf>> = std::sync::Mutex::new(None);

/// This process runs inside a git command that holds `git_dir`'s index lock (a merge running
/// its merge driver): waiting for that lock would wait for our own parent until the timeout.
pub fn parent_git_holds(git_dir: &Path) {
    if let Ok(mut held) = PARENT_INDEX.lock() {
        *held = Some(fs::canonicalize(git_dir).unwrap_or_else(|_| git_dir.to_path_buf()));
    }
}

fn parent_holds(git_dir: &Path) -> bool {
    let Ok(held) = PARENT_INDEX.lock() else {
        return false;
    };
    held.as_ref().is_some_and(|held| {
        fs::canonicalize(git_dir).unwrap_or_else(|_| git_dir.to_path_buf()) == *held
    })
}

/// Takes `index.lock` in `git_dir` for `me` by the deadline. `removed` gets a note for a
/// leftover of a dead Rail that was removed on the way.
pub fn lock_index(
    git_dir: &Path,
    me: &LockRecord,
    deadline: Instant,
    removed: &mut Vec<String>,
) -> Result<Option<IndexLock>, LockError> {
    if parent_git_holds_index() || !git_dir.is_dir() || parent_holds(git_dir) {
        return Ok(None);
    }
    let path = git_dir.join(checkout::INDEX_LOCK);
    let tmp = git_dir.join(format!("rail-index-lock.{}.tmp", me.nonce));
    // Never seen empty: written in full, then linked into place (as the rail lock is).
    File::create(&tmp)
        .and_then(|mut f| f.write_all(me.render().as_bytes()))
        .map_err(|e| {
            // A full disk must not leave the half-written private file behind.
            let _ = fs::remove_file(&tmp);
            LockError::Io(format!("writing {}", tmp.display()), e)
        })?;
    let result = link_when_free(&tmp, &path, me, deadline, removed);
    let _ = fs::remove_file(&tmp);
    result.map(Some)
}

fn link_when_free(
    tmp: &Path,
    path: &Path,
    me: &LockRecord,
    deadline: Instant,
    removed: &mut Vec<String>,
) -> Result<IndexLock, LockError> {
    let host = crate::store::lock::hostname();
    let mut backoff = Backoff::new(&me.nonce);
    loop {
        match fs::hard_link(tmp, path) {
            Ok(()) => {
                return Ok(IndexLock {
                    path: path.to_path_buf(),
                    nonce: me.nonce.clone(),
                })
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(LockError::Io(format!("creating {}", path.display()), e)),
        }
        let seen = match Observed::read(path) {
            Ok(seen) => seen,
            Err(e) => return Err(LockError::Io(format!("reading {}", path.display()), e)),
        };
        let verdict = seen.as_ref().map(|s| s.verdict(&host));
        let record = seen.as_ref().and_then(|s| s.record.as_ref());
        if let (Some(record), Some(verdict)) = (record, &verdict) {
            if let IndexLockStep::Remove { reason } =
                checkout::index_lock_step(Some(record), verdict)
            {
                // Only a Rail holding the rail lock touches index.lock, and we hold it: no
                // other Rail can be removing or taking this one meanwhile.
                match fs::remove_file(path) {
                    Ok(()) => removed.push(format!("removed {}, {reason}", path.display())),
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                    Err(e) => return Err(LockError::Io(format!("removing {}", path.display()), e)),
                }
                continue;
            }
        }
        if Instant::now() >= deadline {
            let rail_verdict = record.and(verdict.as_ref());
            return Err(LockError::Timeout {
                verdict: None,
                what: checkout::index_lock_timeout(&path.display().to_string(), rail_verdict),
            });
        }
        backoff.sleep(deadline);
    }
}

/// What Rail last wrote to claims.md, kept in the git dir (`rail/claims.md.receipt`), where
/// git commands never write, for `checkout::restore`.
#[derive(Clone, Debug)]
pub struct Receipt {
    path: PathBuf,
}

impl Receipt {
    /// The receipt of the rail at `rail_root`, if it lies in a git work tree.
    pub fn of(rail_root: &Path) -> Option<Receipt> {
        let git_dir = git_dir_of(rail_root)?;
        Some(Receipt {
            path: git_dir.join("rail").join("claims.md.receipt"),
        })
    }

    /// The text, if there is a receipt (a missing or unreadable one restores nothing).
    pub fn read(&self) -> Option<String> {
        fs::read_to_string(&self.path).ok()
    }

    /// Replaces the receipt with `text`, atomically.
    pub fn write(&self, text: &str) -> io::Result<()> {
        if let Some(dir) = self.path.parent() {
            fs::create_dir_all(dir)?;
        }
        let tmp = self
            .path
            .with_extension(format!("{}.tmp", std::process::id()));
        fs::write(&tmp, text)?;
        fs::rename(&tmp, &self.path).inspect_err(|_| {
            let _ = fs::remove_file(&tmp);
        })
    }
}

/// Did a git command write `name` (in `root`'s work tree) as it is now? git records the stat of
/// every file it writes (checkout, reset, stash, merge) in its index entry; a file rewritten
/// since by anyone else (an editor, `sed -i`) has another mtime or inode. A file git does not
/// track, there as it is, git did not write: a reset, stash or checkout that leaves an untracked
/// file in place does not touch it (`git stash -u` and `git clean` remove it, and a missing file
/// is judged as below), so what it lost was taken out by hand — the seed's own `sed -i` release,
/// where claims.md is never committed (issue 41, finding 9). Unknown (no git, the file missing,
/// git's answer unreadable) counts as written by git: a lost claim is then put back, as before,
/// rather than taken for a release.
pub fn git_wrote(root: &Path, name: &str) -> bool {
    let Ok(meta) = fs::symlink_metadata(root.join(name)) else {
        return true;
    };
    let debug = crate::git::GitLine::new(&["ls-files", "--debug"]).paths([name]);
    let Ok(out) = crate::git::line::process(root, &debug).and_then(|p| {
        p.stdout(std::process::Stdio::piped())
            .output()
            .map_err(|e| e.to_string())
    }) else {
        return true;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    if out.status.success() && text.trim().is_empty() {
        return false; // untracked, and in place: git never wrote it
    }
    let field = |key: &str| {
        // `  dev: 2049\tino: 1234`: several fields a line, split by tabs.
        text.lines()
            .flat_map(|l| l.split('\t'))
            .find_map(|l| l.trim_start().strip_prefix(key))
            .map(str::trim)
            .map(str::to_string)
    };
    let (Some(mtime), Some(size)) = (field("mtime:"), field("size:")) else {
        return true;
    };
    let Ok(modified) = meta.modified() else {
        return true;
    };
    let Ok(since) = modified.duration_since(std::time::UNIX_EPOCH) else {
        return true;
    };
    // git keeps 32-bit seconds and nanoseconds (nanoseconds only when built with USE_NSEC).
    let (secs, nanos) = mtime.split_once(':').unwrap_or((mtime.as_str(), "0"));
    let same_time = secs.parse::<u64>().ok() == Some(since.as_secs() & 0xffff_ffff)
        && nanos
            .parse::<u32>()
            .is_ok_and(|n| n == 0 || n == since.subsec_nanos());
    let same_size = size.parse::<u64>().ok() == Some(meta.len() & 0xffff_ffff);
    #[cfg(unix)]
    let same_inode = {
        use std::os::unix::fs::MetadataExt;
        field("ino:").and_then(|i| i.parse::<u64>().ok()) == Some(meta.ino() & 0xffff_ffff)
    };
    #[cfg(not(unix))]
    let same_inode = true;
    same_time && same_size && same_inode
}
