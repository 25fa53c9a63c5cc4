//! Linux, macOS and the other Unixes.

use std::fs::{File, Metadata, OpenOptions, TryLockError};
use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};

use super::{FileId, LockKind, NotAFile};

pub fn hostname() -> String {
    rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned()
}

/// `kill(pid, 0)`: delivered or refused for permission means the process exists. A zombie
/// (killed, not yet reaped by its parent) still exists for `kill`, so it is asked apart.
pub fn process_exists(pid: u32) -> Option<bool> {
    let raw = i32::try_from(pid).ok()?;
    let pid_t = rustix::process::Pid::from_raw(raw)?;
    match rustix::process::test_kill_process(pid_t) {
        Ok(()) | Err(rustix::io::Errno::PERM) => {}
        Err(rustix::io::Errno::SRCH) => return Some(false),
        Err(_) => return None,
    }
    Some(!is_zombie(pid).unwrap_or(false))
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn proc_stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may itself hold spaces and ')'.
    let after = &stat[stat.rfind(')')? + 1..];
    Some(after.split_whitespace().map(str::to_string).collect())
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn is_zombie(pid: u32) -> Option<bool> {
    Some(proc_stat_fields(pid)?.first()?.starts_with('Z'))
}

/// The kernel's start time: clock ticks since boot, field 22 of `/proc/<pid>/stat`.
#[cfg(any(target_os = "linux", target_os = "android"))]
pub fn process_start(pid: u32) -> Option<u64> {
    proc_stat_fields(pid)?.get(19)?.parse().ok()
}

#[cfg(target_os = "macos")]
fn is_zombie(pid: u32) -> Option<bool> {
    Some(super::macos::bsd_info(pid)?.zombie)
}

/// Microseconds since the epoch, from `proc_pidinfo(PROC_PIDTBSDINFO)`.
#[cfg(target_os = "macos")]
pub fn process_start(pid: u32) -> Option<u64> {
    Some(super::macos::bsd_info(pid)?.start_us)
}

#[cfg(not(any(target_os = "linux", target_os = "android", target_os = "macos")))]
fn is_zombie(_pid: u32) -> Option<bool> {
    None
}

/// Not known on this Unix: reported as unknown, so a reused pid cannot be told from its owner.
#[cfg(not(any(target_os = "linux", target_os = "android", target_os = "macos")))]
pub fn process_start(_pid: u32) -> Option<u64> {
    None
}

/// Every process whose current directory this user may read: `/proc/<pid>/cwd`.
#[cfg(any(target_os = "linux", target_os = "android"))]
pub fn process_dirs() -> Option<Vec<super::ProcessDir>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        // Another user's process (EACCES), a zombie, or one that just ended: not seen.
        let Ok(cwd) = std::fs::read_link(entry.path().join("cwd")) else {
            continue;
        };
        let name = std::fs::read_to_string(entry.path().join("comm"))
            .map(|s| s.trim().to_string())
            .unwrap_or_default();
        out.push(super::ProcessDir { pid, name, cwd });
    }
    Some(out)
}

#[cfg(target_os = "macos")]
pub fn process_dirs() -> Option<Vec<super::ProcessDir>> {
    super::macos::process_dirs()
}

#[cfg(not(any(target_os = "linux", target_os = "android", target_os = "macos")))]
pub fn process_dirs() -> Option<Vec<super::ProcessDir>> {
    None
}

pub fn disk_bytes(meta: &Metadata) -> u64 {
    meta.blocks().saturating_mul(512)
}

pub fn hard_link_id(meta: &Metadata) -> Option<(u64, u64)> {
    (meta.nlink() > 1).then(|| (meta.dev(), meta.ino()))
}

pub fn file_id(file: &File) -> io::Result<FileId> {
    let meta = file.metadata()?;
    Ok(FileId {
        volume: meta.dev(),
        index: meta.ino(),
    })
}

pub fn no_follow(opts: &mut OpenOptions) {
    // std masks out the access mode bits and keeps its own O_CLOEXEC.
    opts.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
}

pub fn not_a_file(meta: &Metadata) -> Option<NotAFile> {
    let t = meta.file_type();
    Some(if t.is_file() {
        return None;
    } else if t.is_symlink() {
        NotAFile::Link
    } else if t.is_dir() {
        NotAFile::Directory
    } else if t.is_fifo() {
        NotAFile::Fifo
    } else if t.is_char_device() || t.is_block_device() {
        NotAFile::Device
    } else if t.is_socket() {
        NotAFile::Socket
    } else {
        NotAFile::Other
    })
}

/// std's `File::lock` family is `flock(2)` on Unix: the lock `flock(1)` takes.
pub fn try_lock(file: &File, kind: LockKind) -> io::Result<bool> {
    let tried = match kind {
        LockKind::Exclusive => file.try_lock(),
        LockKind::Shared => file.try_lock_shared(),
    };
    match tried {
        Ok(()) => Ok(true),
        Err(TryLockError::WouldBlock) => Ok(false),
        Err(TryLockError::Error(e)) if e.kind() == io::ErrorKind::Interrupted => Ok(false),
        Err(TryLockError::Error(e)) => Err(e),
    }
}

pub fn unlock(file: &File) -> io::Result<()> {
    file.unlock()
}

#[cfg(any(feature = "fault-injection", debug_assertions))]
pub fn die_now() -> ! {
    let _ = rustix::process::kill_process(rustix::process::getpid(), rustix::process::Signal::KILL);
    std::process::abort()
}

/// Stops every process of the group `pid` leads (a git command and its transport helpers).
pub fn kill_group(pid: u32) {
    if let Some(p) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(p, rustix::process::Signal::KILL);
    }
}
