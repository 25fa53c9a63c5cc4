//! What Rail reads of git's index and a file's stat without a process: a file's stat as git's
//! index records it (`stat_of`), the index's stage-0 entries (core's `gitindex` reading), and
//! whether the repository's ids are SHA-256 (which that reader does not read). The after-tool
//! check and work in flight judge by them whether a file is the one git recorded.

use std::path::Path;

use rail_core::formats::gitindex::{self, Stat};

use crate::git::repo::Repo;

/// A SHA-256 repository: its index holds 32-byte ids, which this reader does not read.
pub fn sha256(repo: &Repo) -> bool {
    crate::git::config::get(Some(repo), &repo.worktree, "extensions.objectformat")
        .is_some_and(|f| f.eq_ignore_ascii_case("sha256"))
}

/// A file's stat (`lstat`) as git's index compares it.
pub fn stat_of(m: &std::fs::Metadata) -> Stat {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Stat {
            size: m.size(),
            mtime_ns: m.mtime().saturating_mul(1_000_000_000) + m.mtime_nsec(),
            ctime_ns: m.ctime().saturating_mul(1_000_000_000) + m.ctime_nsec(),
            ino: m.ino(),
            exec: m.mode() & 0o111 != 0,
            link: m.file_type().is_symlink(),
        }
    }
    #[cfg(not(unix))]
    {
        let mtime_ns = m
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_nanos() as i64)
            .unwrap_or(0);
        Stat {
            size: m.len(),
            mtime_ns,
            ctime_ns: 0,
            ino: 0,
            exec: false,
            link: m.file_type().is_symlink(),
        }
    }
}

/// The stage-0 entries of git's index under `roots` (core's reading: `gitindex::entries`), with
/// the index's own modification time; `None`: no index, or one Rail cannot read (then every
/// file's bytes are kept instead). Reading it costs no process: `git status` would cost one per
/// tool call.
pub fn read_index(git_dir: &Path, roots: &[String]) -> Option<gitindex::Index> {
    let path = git_dir.join("index");
    let (bytes, modified) = crate::sys::railfile::read_max(&path, 256 * 1024 * 1024).ok()??;
    let since = modified.duration_since(std::time::UNIX_EPOCH).ok()?;
    let stamp = (since.as_secs() as i64, i64::from(since.subsec_nanos()));
    Some((gitindex::entries(&bytes, roots)?, stamp))
}
