//! The one way the CLI opens the rail's files (claims.md, its lock and journal, claims.log,
//! rail.yaml, claims/*.yaml).
//!
//! Those files arrive through `git pull` and merges, so they are hostile input: a merged branch
//! can make claims.md a symbolic link to `~/.bashrc`, claims.log a FIFO, or a claim file a link to
//! `/dev/zero`. Following the link would make Rail write outside the repository; opening a FIFO
//! blocks until a writer comes (never); reading a device never ends. So every open here
//!
//! - refuses a symbolic link as the last component (`O_NOFOLLOW`; on Windows the reparse point
//!   itself is opened and refused), also when creating: a dangling link's target is never
//!   created;
//! - never waits (`O_NONBLOCK`, so a FIFO opens at once), then looks at the opened handle
//!   (`fstat`, not a separate `lstat`, so nothing can swap the file between the look and the use)
//!   and refuses anything that is not a regular file;
//! - reads at most [`MAX_RAIL_BYTES`] (+1 to tell "too big"), whatever the size the file claims.
//!
//! A refusal is an `io::Error` carrying a [`Refused`], whose message names the file, what it is,
//! and what to do; [`describe`] prints any error of these functions with the file named once.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::sys::{self, NotAFile};

/// Largest rail file Rail will read (bigger files are refused, never truncated).
pub const MAX_RAIL_BYTES: u64 = rail_core::model::MAX_RAIL_BYTES;

/// Unusable a rail file was not used.
#[derive(Debug)]
pub enum Unusable {
    /// Not a regular file.
    Not(NotAFile),
    /// Larger than the bound: the size the file reports, if that is how it was seen.
    TooBig(Option<u64>),
}

/// A rail file Rail will not open or read.
#[derive(Debug)]
pub struct Refused {
    pub path: PathBuf,
    pub why: Unusable,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = self.path.display();
        let what = match &self.why {
            Unusable::TooBig(size) => {
                let size = size.map(|n| format!(" {n} bytes,")).unwrap_or_default();
                return write!(
                    f,
                    "{path} is{size} more than the {} MB Rail reads; it was not read or changed",
                    MAX_RAIL_BYTES / 1024 / 1024
                );
            }
            Unusable::Not(NotAFile::Link) => {
                return write!(
                    f,
                    "{path} is a symbolic link; Rail does not follow links in the repository (one could point outside it). Nothing was changed: replace the link with the file itself, or remove it"
                )
            }
            Unusable::Not(NotAFile::Fifo) => "a FIFO (named pipe)",
            Unusable::Not(NotAFile::Device) => "a device",
            Unusable::Not(NotAFile::Socket) => "a socket",
            Unusable::Not(NotAFile::Directory) => "a directory",
            Unusable::Not(NotAFile::Other) => "not a regular file",
        };
        write!(
            f,
            "{path} is {what}; Rail reads and writes only plain files in the rail directory. Nothing was changed: remove it (`rail init` makes a new rail's files)"
        )
    }
}

impl std::error::Error for Refused {}

fn refused(path: &Path, why: Unusable) -> io::Error {
    // InvalidData: the file is not what a rail file may be (not an environment failure of the
    // OS), but callers report it as an environment problem with the file named.
    io::Error::new(
        io::ErrorKind::InvalidData,
        Refused {
            path: path.to_path_buf(),
            why,
        },
    )
}

/// The refusal inside an error of this module, if it is one.
pub fn refusal(e: &io::Error) -> Option<&Refused> {
    e.get_ref()
        .and_then(|inner| inner.downcast_ref::<Refused>())
}

/// An error about `path` as a sentence naming the file once.
pub fn describe(path: &Path, e: &io::Error) -> String {
    match refusal(e) {
        Some(r) => r.to_string(),
        None => format!("{}: {e}", path.display()),
    }
}

/// Opens `path` with `opts` plus no-follow and no-wait, and refuses anything but a regular file.
fn open_with(path: &Path, opts: &mut OpenOptions) -> io::Result<File> {
    sys::no_follow(opts);
    let file = match opts.open(path) {
        Ok(f) => f,
        Err(e) => {
            // The open failed (ELOOP for a link on Unix): say what the name is, if it is a link.
            // Looking only after the failure races with nothing: nothing was opened.
            if e.kind() != io::ErrorKind::NotFound
                && e.kind() != io::ErrorKind::AlreadyExists
                && fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
            {
                return Err(refused(path, Unusable::Not(NotAFile::Link)));
            }
            return Err(e);
        }
    };
    // The handle, not the name: what was opened is what is checked.
    let meta = file.metadata()?;
    if let Some(not) = sys::not_a_file(&meta) {
        return Err(refused(path, Unusable::Not(not)));
    }
    Ok(file)
}

/// Opens a rail file for reading; `None` if there is none.
pub fn open_read(path: &Path) -> io::Result<Option<File>> {
    match open_with(path, OpenOptions::new().read(true)) {
        Ok(f) => Ok(Some(f)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Opens a rail file for reading and writing, creating it if missing (never truncating):
/// claims.md under the lock.
pub fn open_rw_create(path: &Path) -> io::Result<File> {
    open_with(
        path,
        OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false),
    )
}

/// Opens an existing rail file for reading and writing; `None` if there is none (never
/// creating it: claims.md missing under a git command that is rewriting it must not be made
/// anew before git is done).
pub fn open_rw(path: &Path) -> io::Result<Option<File>> {
    match open_with(path, OpenOptions::new().read(true).write(true)) {
        Ok(f) => Ok(Some(f)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Opens an existing rail file for writing (never creating or truncating it).
pub fn open_write(path: &Path) -> io::Result<File> {
    open_with(path, OpenOptions::new().write(true))
}

/// Opens a rail file to append to it. Returns whether this call created it (so undoing the
/// append can remove it again).
pub fn open_append(path: &Path) -> io::Result<(File, bool)> {
    match open_with(path, OpenOptions::new().read(true).append(true)) {
        Ok(f) => Ok((f, false)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok((create_new(path)?, true)),
        Err(e) => Err(e),
    }
}

/// Creates a new file; fails if the name exists in any form (a dangling link included, so a
/// link's target is never created).
pub fn create_new(path: &Path) -> io::Result<File> {
    open_with(
        path,
        OpenOptions::new().read(true).write(true).create_new(true),
    )
}

/// Reads an opened rail file from its start, at most `max` bytes; more is refused.
pub fn read_open(mut file: &File, path: &Path, max: u64) -> io::Result<Vec<u8>> {
    let len = file.metadata()?.len();
    if len > max {
        return Err(refused(path, Unusable::TooBig(Some(len))));
    }
    file.seek(SeekFrom::Start(0))?;
    // Sized once (len is within the bound): claims.log only grows, and growing the buffer by
    // doubling copied it several times on every read.
    let mut bytes = Vec::with_capacity(len as usize + 1);
    // The bound is on the read itself: a file that grows, or claims a size it does not have,
    // is still read no further than max + 1 bytes.
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(refused(path, Unusable::TooBig(None)));
    }
    Ok(bytes)
}

/// Reads a rail file (at most [`MAX_RAIL_BYTES`]) and its modification time; `None` if missing.
pub fn read(path: &Path) -> io::Result<Option<(Vec<u8>, SystemTime)>> {
    read_max(path, MAX_RAIL_BYTES)
}

/// [`read`] with another bound (the journal holds several files).
pub fn read_max(path: &Path, max: u64) -> io::Result<Option<(Vec<u8>, SystemTime)>> {
    let Some(file) = open_read(path)? else {
        return Ok(None);
    };
    let bytes = read_open(&file, path, max)?;
    let modified = file.metadata()?.modified()?;
    Ok(Some((bytes, modified)))
}

/// Reads the end of a rail file: all of it up to `max` bytes, else its last `max` bytes from
/// the first whole line there (`segments::tail_start`), with its length on disk. claims.log
/// is read this way: it only grows, and what an operation reads of it must not.
pub fn read_tail(path: &Path, max: u64) -> io::Result<Option<(Vec<u8>, SystemTime, u64)>> {
    let Some(mut file) = open_read(path)? else {
        return Ok(None);
    };
    let meta = file.metadata()?;
    let len = meta.len();
    let from = len.saturating_sub(max);
    file.seek(SeekFrom::Start(from))?;
    let mut bytes = Vec::with_capacity(len.min(max) as usize + 1);
    // Bounded on the read: a file that grows meanwhile is still read no further.
    (&file).take(max).read_to_end(&mut bytes)?;
    let start = rail_core::formats::segments::tail_start(&bytes, from == 0);
    bytes.drain(..start);
    Ok(Some((bytes, meta.modified()?, len)))
}

/// Reads a small rail file as text (rail.yaml for a setting): `None` if missing or not UTF-8.
pub fn read_text(path: &Path) -> io::Result<Option<String>> {
    Ok(read(path)?.and_then(|(bytes, _)| String::from_utf8(bytes).ok()))
}

/// Is `path` a real directory? `Ok(false)` if missing; a link or anything else is refused
/// (the claims/ directory: a link there would send claim files outside the repository).
pub fn real_dir(path: &Path) -> io::Result<bool> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_dir() => Ok(true),
        Ok(m) if m.file_type().is_symlink() => Err(refused(path, Unusable::Not(NotAFile::Link))),
        Ok(m) => Err(refused(
            path,
            Unusable::Not(sys::not_a_file(&m).unwrap_or(NotAFile::Other)),
        )),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// Makes sure `path` is a real directory, creating it (one level) if missing.
pub fn ensure_dir(path: &Path) -> io::Result<()> {
    if real_dir(path)? {
        return Ok(());
    }
    match fs::create_dir(path) {
        Ok(()) => Ok(()),
        // Created by someone else meanwhile: look again.
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => real_dir(path).map(|_| ()),
        Err(e) => Err(e),
    }
}

// Work-tree files: the files Rail writes outside the rail directory (.gitattributes, .gitignore,
// the agents' instruction files and configs, git hooks). A branch commits them, so they are as
// hostile as the rail's own files: any of them, or any directory above it, may be a link to
// `~/.bashrc` or `~/.claude`. One way in for all of them.

fn outside(root: &Path, path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "{} is not inside {}; Rail writes only files inside the repository. Nothing was changed",
            path.display(),
            root.display()
        ),
    )
}

/// The directories between `root` and `path` (exclusive), each a real directory or missing
/// (then created, one level at a time, when `create`); a link or anything else is refused.
/// False if one is missing (and not created): the file cannot exist.
fn walk_parents(root: &Path, path: &Path, create: bool) -> io::Result<bool> {
    let rel = path.strip_prefix(root).map_err(|_| outside(root, path))?;
    let mut parts: Vec<_> = rel.components().collect();
    if parts.pop().is_none() {
        return Err(outside(root, path));
    }
    let mut dir = root.to_path_buf();
    for part in parts {
        match part {
            std::path::Component::Normal(name) => dir.push(name),
            _ => return Err(outside(root, path)),
        }
        if create {
            ensure_dir(&dir)?;
        } else if !real_dir(&dir)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// What is at `path` now: `None` if nothing, the file's permissions if a regular file; a link
/// or anything else is refused.
fn existing_file(path: &Path) -> io::Result<Option<fs::Permissions>> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_file() => Ok(Some(m.permissions())),
        Ok(m) if m.file_type().is_symlink() => Err(refused(path, Unusable::Not(NotAFile::Link))),
        Ok(m) => Err(refused(
            path,
            Unusable::Not(sys::not_a_file(&m).unwrap_or(NotAFile::Other)),
        )),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Checks that Rail may write `path` inside the work tree `root`: every directory on the way
/// is a real one (or missing), and the file is a regular file (or missing). For a command that
/// writes several files: check them all first, so one refusal means nothing is written.
pub fn check_inside(root: &Path, path: &Path) -> io::Result<()> {
    if walk_parents(root, path, false)? {
        existing_file(path)?;
    }
    Ok(())
}

/// Reads a work-tree file as text, after [`check_inside`]; `None` if it is missing. Not UTF-8
/// is an error (Rail merges into text, it never replaces what it cannot read).
pub fn read_inside(root: &Path, path: &Path) -> io::Result<Option<String>> {
    let Some(bytes) = read_bytes_inside(root, path)? else {
        return Ok(None);
    };
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"))
}

/// [`read_inside`] as bytes (a git hook may be a binary).
pub fn read_bytes_inside(root: &Path, path: &Path) -> io::Result<Option<Vec<u8>>> {
    if !walk_parents(root, path, false)? {
        return Ok(None);
    }
    existing_file(path)?;
    Ok(read(path)?.map(|(bytes, _)| bytes))
}

/// Writes `bytes` to `path` inside the work tree `root`: the directories on the way are real
/// ones (missing ones are created one level at a time, never through a link), the file is a
/// regular file or missing, and the new text goes to a new temp file in the same directory
/// that then replaces the name (so a link put there meanwhile is replaced, never followed).
/// An existing file keeps its mode; `executable` adds the execute bits (git hooks).
pub fn write_inside(root: &Path, path: &Path, bytes: &[u8], executable: bool) -> io::Result<()> {
    write_inside_as(root, path, bytes, executable, true)
}

/// [`write_inside`], `durable: false` without the `fsync` (for a file whose loss in a crash
/// costs nothing but itself: the after-tool snapshot, which a tool call needs only until it
/// ends).
pub fn write_inside_as(
    root: &Path,
    path: &Path,
    bytes: &[u8],
    executable: bool,
    durable: bool,
) -> io::Result<()> {
    use std::io::Write;
    walk_parents(root, path, true)?;
    let perms = existing_file(path)?;
    let name = path.file_name().ok_or_else(|| outside(root, path))?;
    let tmp = path.with_file_name(format!(
        ".{}.rail-tmp-{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let mut file = create_new(&tmp)?;
    let written = (|| {
        file.write_all(bytes)?;
        if let Some(perms) = perms {
            file.set_permissions(perms)?;
        }
        #[cfg(unix)]
        if executable {
            use std::os::unix::fs::PermissionsExt;
            let mut perms = file.metadata()?.permissions();
            perms.set_mode(perms.mode() | 0o755);
            file.set_permissions(perms)?;
        }
        #[cfg(not(unix))]
        let _ = executable;
        if durable {
            file.sync_all()?;
        }
        drop(file);
        fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regular_file_is_read_and_a_missing_one_is_none() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("claims.md");
        assert!(read(&p).unwrap().is_none());
        fs::write(&p, "a | s | 2026-10-22T14:05Z\n").unwrap();
        assert_eq!(read(&p).unwrap().unwrap().0, b"a | s | 2026-10-22T14:05Z\n");
    }

    #[test]
    fn reads_stop_at_the_bound() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("claims.log");
        fs::write(&p, vec![b'x'; 101]).unwrap();
        let e = read_max(&p, 100).unwrap_err();
        assert!(
            matches!(refusal(&e).map(|r| &r.why), Some(Unusable::TooBig(_))),
            "{e}"
        );
        assert_eq!(read_max(&p, 101).unwrap().unwrap().0.len(), 101);
    }

    #[cfg(unix)]
    #[test]
    fn links_and_special_files_are_refused_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        fs::write(&outside, "secret").unwrap();
        let link = dir.path().join("claims.md");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        for e in [
            read(&link).unwrap_err(),
            open_rw_create(&link).unwrap_err(),
            open_append(&link).unwrap_err(),
        ] {
            assert!(e.to_string().contains("symbolic link"), "{e}");
        }
        let dangling = dir.path().join("claims.log");
        std::os::unix::fs::symlink(dir.path().join("made"), &dangling).unwrap();
        assert!(open_append(&dangling).is_err());
        assert!(open_rw_create(&dangling).is_err());
        assert!(
            !dir.path().join("made").exists(),
            "a link's target was created"
        );
        let e = read(Path::new("/dev/zero")).unwrap_err();
        assert!(e.to_string().contains("is a device"), "{e}");
        let e = real_dir(&link).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert_eq!(fs::read_to_string(&outside).unwrap(), "secret");
    }

    #[cfg(unix)]
    #[test]
    fn work_tree_writes_keep_the_mode_and_never_pass_a_link() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        fs::create_dir(&root).unwrap();
        // A new file several levels down: the directories are made one by one.
        let deep = root.join("a/b/c.json");
        write_inside(&root, &deep, b"{}", false).unwrap();
        assert_eq!(fs::read(&deep).unwrap(), b"{}");
        // An existing file keeps its mode; the temp file is gone.
        fs::set_permissions(&deep, fs::Permissions::from_mode(0o600)).unwrap();
        write_inside(&root, &deep, b"[]", false).unwrap();
        assert_eq!(
            fs::metadata(&deep).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert_eq!(fs::read_dir(root.join("a/b")).unwrap().count(), 1);
        // A dangling directory link on the way: its target is never created.
        std::os::unix::fs::symlink(dir.path().join("made"), root.join("d")).unwrap();
        let e = write_inside(&root, &root.join("d/e/f"), b"x", false).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert!(check_inside(&root, &root.join("d/e/f")).is_err());
        assert!(!dir.path().join("made").exists());
        // Outside the root, or climbing out of it: refused.
        assert!(write_inside(&root, &dir.path().join("x"), b"x", false).is_err());
        assert!(write_inside(&root, &root.join("../x"), b"x", false).is_err());
        assert!(!dir.path().join("x").exists());
    }
}
