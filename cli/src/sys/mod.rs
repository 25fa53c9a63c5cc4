//! What the lock protocol needs from the operating system, one module per OS: this machine's
//! name, whether a process runs and when it started, a file's identity, random bytes, and the
//! advisory lock on claims.md.
//!
//! Every answer the OS cannot give is `None` ("cannot tell"), never a guess: core's `assess`
//! treats an owner whose liveness is unknown as one that may be alive.
//!
//! | | Linux | macOS | other Unix | Windows |
//! |-|-|-|-|-|
//! | alive | `kill(pid, 0)`, not a zombie | `kill(pid, 0)`, not a zombie | `kill(pid, 0)` | `OpenProcess`, not signalled |
//! | start time | `/proc/<pid>/stat` field 22 (ticks since boot) | `proc_pidinfo` (µs since the epoch) | unknown | `GetProcessTimes` (100 ns since 1601) |
//! | file identity | device + inode | device + inode | device + inode | volume serial + file index |
//! | claims.md lock | `flock(2)` through std's `File::lock` | the same | the same | `LockFileEx` on one byte past any content |
//! | opening a rail file | `O_NOFOLLOW \| O_NONBLOCK`, then `fstat` | the same | the same | `FILE_FLAG_OPEN_REPARSE_POINT`, then the handle's attributes |
//! | processes' current directories | `/proc/<pid>/cwd` | `proc_pidinfo(PROC_PIDVNODEPATHINFO)` (compiled, not run here) | unknown | unknown |
//! | bytes a file takes on disk | `st_blocks` × 512 | the same | the same | its length |
//!
//! A start time is only ever compared with another read on the same host, so each OS may use its
//! own unit.

pub mod clock;
pub mod env;
pub mod railfile;

#[cfg(target_os = "macos")]
mod macos;
#[cfg(unix)]
mod unix;
#[cfg(unix)]
use unix as os;

#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as os;

use std::fs::{File, Metadata, OpenOptions};
use std::io;

/// Stops the process group `pid` leads, on Unix (`kill(-pid, SIGKILL)`); nothing on Windows,
/// where the caller kills the child itself.
pub fn kill_group(pid: u32) {
    os::kill_group(pid)
}

/// A write past the file size limit (`ulimit -f`) fails with EFBIG instead of killing the
/// process with SIGXFSZ: the journal then undoes the write and rail says which file it could
/// not write, where the signal left no word (Unix; nothing elsewhere).
#[allow(unsafe_code)]
pub fn no_file_size_signal() {
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to SIG_IGN at start-up, before any thread.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

/// Whether `p` is a file this user could start as a program (on Unix: an execute bit).
pub fn runnable(p: &std::path::Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        p.is_file()
    }
}

/// The program `name` (a bare name) that PATH finds first, as `Command::new(name)` starts it
/// (with the platform's executable suffix tried too).
pub fn on_path(name: &str) -> Option<std::path::PathBuf> {
    let paths = env::var_os("PATH")?;
    std::env::split_paths(&paths).find_map(|d| {
        [
            d.join(name),
            d.join(format!("{name}{}", std::env::consts::EXE_SUFFIX)),
        ]
        .into_iter()
        .find(|p| runnable(p))
    })
}

/// This machine's name, as lock records and claims' `pid@host` fields spell it.
pub fn hostname() -> String {
    os::hostname()
}

/// When process `pid` started, in a unit of this OS (see the module docs); `None` if unknown.
pub fn process_start(pid: u32) -> Option<u64> {
    os::process_start(pid)
}

/// Is process `pid` alive on this host? A zombie (exited, not yet reaped) is dead; a pid now
/// used by a process that started at another time than `started` is dead. `None` if it cannot
/// be told.
pub fn process_alive(pid: u32, started: Option<u64>) -> Option<bool> {
    // Never ask the OS about pid 0 (or one outside `pid_t`): `kill(0, 0)` signals our own
    // process group and succeeds, so a lock file naming pid 0 would read as held by a live
    // process forever. No process can be judged by such a pid; core says what to do.
    if !rail_core::formats::pid::plausible_pid(pid) {
        return None;
    }
    let alive = os::process_exists(pid)?;
    if !alive {
        return Some(false);
    }
    if let (Some(recorded), Some(actual)) = (started, process_start(pid)) {
        if recorded != actual {
            return Some(false);
        }
    }
    Some(true)
}

/// A process and the directory it works in.
#[derive(Clone, Debug)]
pub struct ProcessDir {
    pub pid: u32,
    /// Its program's name, as the OS reports it.
    pub name: String,
    pub cwd: std::path::PathBuf,
}

/// Every process this user may look at, with its current directory (another user's processes
/// are not seen, except by root). `None` where the OS gives Rail no way to ask, or where the
/// answer is not to be trusted: it must at least show this process's own directory.
pub fn process_dirs() -> Option<Vec<ProcessDir>> {
    let all = os::process_dirs()?;
    let me = std::process::id();
    let here = std::env::current_dir().ok()?.canonicalize().ok()?;
    all.iter()
        .any(|p| p.pid == me && p.cwd == here)
        .then_some(all)
}

/// The bytes a file (or directory entry) takes on disk: allocated blocks where the OS says,
/// else its length.
pub fn disk_bytes(meta: &Metadata) -> u64 {
    os::disk_bytes(meta)
}

/// What tells hard links to one file apart from separate files (device and inode), for a file
/// with more than one link; `None` otherwise or where the OS does not say.
pub fn hard_link_id(meta: &Metadata) -> Option<(u64, u64)> {
    os::hard_link_id(meta)
}

/// What names one file on one machine, however it was reached: two opens of the same file give
/// equal ids, a file removed and created again under the same name does not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileId {
    pub volume: u64,
    pub index: u64,
}

impl FileId {
    pub fn of(file: &File) -> io::Result<FileId> {
        os::file_id(file)
    }
}

/// Eight random bytes as 16 hex digits (lock nonces): unique, not secret.
pub fn random_hex() -> String {
    let mut bytes = [0u8; 8];
    if getrandom::fill(&mut bytes).is_err() {
        // No OS randomness: time and pid still make a nonce that does not repeat here.
        let nanos = crate::sys::clock::system()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        bytes = ((nanos as u64) ^ ((std::process::id() as u64) << 32)).to_le_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// How an advisory lock on claims.md is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockKind {
    /// Writers: nobody else, shared or exclusive.
    Exclusive,
    /// Readers: other readers too, no writer.
    Shared,
}

/// Tries to take the advisory lock on claims.md without waiting: `Ok(false)` if another holds
/// it. On Unix this is `flock(2)`, the lock of the `flock claims.md …` one-liner.
pub fn try_lock(file: &File, kind: LockKind) -> io::Result<bool> {
    os::try_lock(file, kind)
}

/// Releases what [`try_lock`] took (closing the file does too).
pub fn unlock(file: &File) -> io::Result<()> {
    os::unlock(file)
}

/// What a name in the rail directory is when it is not a regular file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    windows,
    allow(
        dead_code,
        reason = "FIFOs, devices and sockets do not live in ordinary Windows directories"
    )
)]
pub enum NotAFile {
    /// A symbolic link (on Windows, any reparse point: links and junctions).
    Link,
    Fifo,
    /// A character or block device (`/dev/zero` reads forever).
    Device,
    Socket,
    Directory,
    Other,
}

/// Makes `opts` open the last path component itself, never what a link points to, and never
/// wait: on Unix `O_NOFOLLOW` (a link fails to open, also with `O_CREAT`, so a dangling link's
/// target is never created) and `O_NONBLOCK` (a FIFO opens at once instead of waiting for a
/// writer; on a regular file it changes nothing); on Windows `FILE_FLAG_OPEN_REPARSE_POINT` (a
/// link is opened as itself, and [`not_a_file`] then refuses it).
pub fn no_follow(opts: &mut OpenOptions) {
    os::no_follow(opts)
}

/// What an opened handle's metadata says it is, if not a regular file.
pub fn not_a_file(meta: &Metadata) -> Option<NotAFile> {
    os::not_a_file(meta)
}

/// Dies at once, the way SIGKILL would (no destructors, no flushing): crash tests (only in
/// builds with fault injection, `crate::faults`).
#[cfg(any(feature = "fault-injection", debug_assertions))]
pub fn die_now() -> ! {
    os::die_now()
}

/// The 64-bit FNV-1a hash of `bytes`: a short stable name for a path in a file name.
pub fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x100000001b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_keeps_its_start_time() {
        let me = std::process::id();
        let started = process_start(me);
        assert_eq!(process_alive(me, started), Some(true));
        assert_eq!(process_start(me), started, "a start time does not move");
        if let Some(s) = started {
            // The same pid with another start time is another process: dead to us.
            assert_eq!(process_alive(me, Some(s.wrapping_add(1))), Some(false));
        }
    }

    #[test]
    fn a_child_that_exited_is_dead() {
        let exe = std::env::current_exe().unwrap();
        // Runs the test binary with a filter matching nothing: it exits at once.
        let mut child = std::process::Command::new(exe)
            .arg("--list")
            .arg("no-test-has-this-name")
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let pid = child.id();
        child.wait().unwrap();
        assert_eq!(process_alive(pid, None), Some(false));
    }

    /// Pid 0 is never reported alive (`kill(0, 0)` would succeed: it signals our own process
    /// group), nor is a pid outside `pid_t`.
    #[test]
    fn a_pid_that_names_no_process_is_never_judged() {
        for pid in [0, u32::MAX, 1 << 31] {
            assert_eq!(process_alive(pid, None), None, "{pid}");
            assert_eq!(process_alive(pid, Some(1)), None, "{pid}");
        }
    }

    #[test]
    fn hostname_is_a_name() {
        let h = hostname();
        assert!(!h.is_empty() && !h.contains(char::is_control), "{h:?}");
    }

    #[test]
    fn file_ids_name_files() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        std::fs::write(&a, "x").unwrap();
        std::fs::write(&b, "x").unwrap();
        let id_a = FileId::of(&File::open(&a).unwrap()).unwrap();
        assert_eq!(id_a, FileId::of(&File::open(&a).unwrap()).unwrap());
        assert_ne!(id_a, FileId::of(&File::open(&b).unwrap()).unwrap());
        std::fs::hard_link(&a, dir.path().join("c")).unwrap();
        let id_c = FileId::of(&File::open(dir.path().join("c")).unwrap()).unwrap();
        assert_eq!(id_a, id_c, "a hard link is the same file");
    }

    #[test]
    fn locks_exclude_writers_and_share_readers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("claims.md");
        std::fs::write(&path, "a | s | 2026-10-22T14:05Z\n").unwrap();
        let open = || {
            std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open(&path)
                .unwrap()
        };
        let (w, r1, r2) = (open(), open(), open());
        assert!(try_lock(&w, LockKind::Exclusive).unwrap());
        assert!(
            !try_lock(&r1, LockKind::Shared).unwrap(),
            "a writer excludes readers"
        );
        // A reader that takes no lock can still read while a writer holds it (on Windows, too:
        // the lock covers no byte of the content).
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "a | s | 2026-10-22T14:05Z\n"
        );
        unlock(&w).unwrap();
        assert!(try_lock(&r1, LockKind::Shared).unwrap());
        assert!(try_lock(&r2, LockKind::Shared).unwrap(), "readers share");
        assert!(
            !try_lock(&w, LockKind::Exclusive).unwrap(),
            "readers exclude a writer"
        );
        unlock(&r1).unwrap();
        unlock(&r2).unwrap();
        assert!(try_lock(&w, LockKind::Exclusive).unwrap());
    }
}
