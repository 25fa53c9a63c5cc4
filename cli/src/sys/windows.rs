//! Windows, through the Win32 API (windows-sys). Each call is a plain query on a handle this
//! module opens and closes itself, or on a `File` the caller owns.
#![allow(unsafe_code)]

use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::os::windows::fs::{MetadataExt, OpenOptionsExt};
use std::os::windows::io::AsRawHandle;

use windows_sys::Win32::Foundation::{
    CloseHandle, GetLastError, ERROR_ACCESS_DENIED, ERROR_INVALID_PARAMETER, ERROR_LOCK_VIOLATION,
    FILETIME, HANDLE, WAIT_OBJECT_0, WAIT_TIMEOUT,
};
use windows_sys::Win32::Storage::FileSystem::{
    GetFileInformationByHandle, LockFileEx, UnlockFileEx, BY_HANDLE_FILE_INFORMATION,
    FILE_ATTRIBUTE_REPARSE_POINT, FILE_FLAG_OPEN_REPARSE_POINT, LOCKFILE_EXCLUSIVE_LOCK,
    LOCKFILE_FAIL_IMMEDIATELY,
};
use windows_sys::Win32::System::SystemInformation::{ComputerNameDnsHostname, GetComputerNameExW};
use windows_sys::Win32::System::Threading::{
    GetProcessTimes, OpenProcess, WaitForSingleObject, PROCESS_QUERY_LIMITED_INFORMATION,
    PROCESS_SYNCHRONIZE,
};
use windows_sys::Win32::System::IO::OVERLAPPED;

use super::{FileId, LockKind, NotAFile};

pub fn hostname() -> String {
    let mut buf = [0u16; 256];
    let mut len = buf.len() as u32;
    // SAFETY: `buf` is writable for `len` UTF-16 units; on success the call stores the name's
    // length (without the NUL) in `len`.
    let ok = unsafe { GetComputerNameExW(ComputerNameDnsHostname, buf.as_mut_ptr(), &mut len) };
    if ok == 0 {
        return super::env::var("COMPUTERNAME").unwrap_or_default();
    }
    String::from_utf16_lossy(&buf[..(len as usize).min(buf.len())])
}

/// A process handle closed on drop.
struct Process(HANDLE);

impl Process {
    /// `Err(Some(false))`: no such process; `Err(None)`: it exists or may, but cannot be opened.
    fn open(pid: u32, access: u32) -> Result<Process, Option<bool>> {
        // SAFETY: a plain query; the handle returned (if any) is owned by `Process` and closed
        // once, on drop.
        let handle = unsafe { OpenProcess(access, 0, pid) };
        if !handle.is_null() {
            return Ok(Process(handle));
        }
        // SAFETY: reads the calling thread's last-error value.
        match unsafe { GetLastError() } {
            ERROR_INVALID_PARAMETER => Err(Some(false)),
            ERROR_ACCESS_DENIED => Err(Some(true)),
            _ => Err(None),
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        // SAFETY: the handle came from OpenProcess and is closed exactly once.
        unsafe { CloseHandle(self.0) };
    }
}

/// A process exists until its object is signalled (it exited). Pid 0 (the idle process) and
/// 4 (System) are never a lock owner; OpenProcess refuses them, which reads as "cannot tell".
pub fn process_exists(pid: u32) -> Option<bool> {
    if pid == 0 {
        return None;
    }
    let process = match Process::open(pid, PROCESS_SYNCHRONIZE) {
        Ok(p) => p,
        // Access denied: it exists (another user's, or protected).
        Err(Some(true)) => return Some(true),
        Err(other) => return other,
    };
    // SAFETY: waits zero milliseconds on a handle opened with SYNCHRONIZE.
    match unsafe { WaitForSingleObject(process.0, 0) } {
        WAIT_OBJECT_0 => Some(false),
        WAIT_TIMEOUT => Some(true),
        _ => None,
    }
}

/// Creation time in 100 ns units since 1601 (`GetProcessTimes`).
pub fn process_start(pid: u32) -> Option<u64> {
    let process = Process::open(pid, PROCESS_QUERY_LIMITED_INFORMATION).ok()?;
    let zero = FILETIME {
        dwLowDateTime: 0,
        dwHighDateTime: 0,
    };
    let (mut created, mut exited, mut kernel, mut user) = (zero, zero, zero, zero);
    // SAFETY: four writable FILETIMEs and a handle with PROCESS_QUERY_LIMITED_INFORMATION.
    let ok =
        unsafe { GetProcessTimes(process.0, &mut created, &mut exited, &mut kernel, &mut user) };
    (ok != 0).then(|| (u64::from(created.dwHighDateTime) << 32) | u64::from(created.dwLowDateTime))
}

/// Windows gives no supported way to read another process's current directory.
pub fn process_dirs() -> Option<Vec<super::ProcessDir>> {
    None
}

pub fn disk_bytes(meta: &Metadata) -> u64 {
    meta.len()
}

pub fn hard_link_id(_meta: &Metadata) -> Option<(u64, u64)> {
    None
}

pub fn file_id(file: &File) -> io::Result<FileId> {
    // SAFETY: an all-zero BY_HANDLE_FILE_INFORMATION is valid (integers and FILETIMEs).
    let mut info: BY_HANDLE_FILE_INFORMATION = unsafe { std::mem::zeroed() };
    // SAFETY: the handle is the open file's, `info` is writable.
    let ok = unsafe { GetFileInformationByHandle(file.as_raw_handle(), &mut info) };
    if ok == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(FileId {
        volume: u64::from(info.dwVolumeSerialNumber),
        index: (u64::from(info.nFileIndexHigh) << 32) | u64::from(info.nFileIndexLow),
    })
}

pub fn no_follow(opts: &mut OpenOptions) {
    // Opens a link or junction as itself; `not_a_file` then refuses it. (Named pipes and
    // devices do not live in ordinary directories on Windows; a directory does not open without
    // FILE_FLAG_BACKUP_SEMANTICS.)
    opts.custom_flags(FILE_FLAG_OPEN_REPARSE_POINT);
}

pub fn not_a_file(meta: &Metadata) -> Option<NotAFile> {
    if meta.file_attributes() & FILE_ATTRIBUTE_REPARSE_POINT != 0 {
        Some(NotAFile::Link)
    } else if meta.is_dir() {
        Some(NotAFile::Directory)
    } else if meta.is_file() {
        None
    } else {
        Some(NotAFile::Other)
    }
}

/// Windows byte-range locks are mandatory: while one handle holds a range exclusively, reads
/// of it through any other handle fail. std's `File::lock` locks the whole file, which would
/// make every reader that takes no lock (git, an editor, the VS Code extension) fail while Rail
/// writes. Rail's lock is one byte far past any content instead: it excludes other Rail
/// writers and readers exactly as `flock` does, and blocks nobody's reads.
const LOCK_OFFSET: u64 = 1 << 62;

fn overlapped_at(offset: u64) -> OVERLAPPED {
    // SAFETY: an all-zero OVERLAPPED is valid (integers, a null event).
    let mut o: OVERLAPPED = unsafe { std::mem::zeroed() };
    o.Anonymous.Anonymous.Offset = offset as u32;
    o.Anonymous.Anonymous.OffsetHigh = (offset >> 32) as u32;
    o
}

pub fn try_lock(file: &File, kind: LockKind) -> io::Result<bool> {
    let mut flags = LOCKFILE_FAIL_IMMEDIATELY;
    if kind == LockKind::Exclusive {
        flags |= LOCKFILE_EXCLUSIVE_LOCK;
    }
    let mut overlapped = overlapped_at(LOCK_OFFSET);
    // SAFETY: the handle is the open file's; `overlapped` lives across this synchronous call.
    let ok = unsafe { LockFileEx(file.as_raw_handle(), flags, 0, 1, 0, &mut overlapped) };
    if ok != 0 {
        return Ok(true);
    }
    let e = io::Error::last_os_error();
    if e.raw_os_error() == Some(ERROR_LOCK_VIOLATION as i32) {
        return Ok(false);
    }
    Err(e)
}

pub fn unlock(file: &File) -> io::Result<()> {
    let mut overlapped = overlapped_at(LOCK_OFFSET);
    // SAFETY: as in `try_lock`.
    let ok = unsafe { UnlockFileEx(file.as_raw_handle(), 0, 1, 0, &mut overlapped) };
    if ok == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(any(feature = "fault-injection", debug_assertions))]
pub fn die_now() -> ! {
    // SAFETY: ends this process at once, as SIGKILL would on Unix (no destructors run).
    use windows_sys::Win32::System::Threading::{GetCurrentProcess, TerminateProcess};
    unsafe { TerminateProcess(GetCurrentProcess(), 137) };
    std::process::abort()
}

/// Process groups are a Unix notion: the caller kills the child itself.
pub fn kill_group(_pid: u32) {}
