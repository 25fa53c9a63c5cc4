//! macOS: a process's state and start time from `proc_pidinfo(PROC_PIDTBSDINFO)`; every
//! process's current directory from `proc_pidinfo(PROC_PIDVNODEPATHINFO)`.
#![allow(unsafe_code)]

/// What Rail reads of a process's BSD info.
pub struct BsdInfo {
    pub zombie: bool,
    /// Start time, microseconds since the epoch.
    pub start_us: u64,
}

/// `SZOMB` in `<sys/proc.h>`: exited, not yet reaped.
const SZOMB: u32 = 5;

pub fn bsd_info(pid: u32) -> Option<BsdInfo> {
    let pid = i32::try_from(pid).ok()?;
    let mut info = std::mem::MaybeUninit::<libc::proc_bsdinfo>::zeroed();
    let size = std::mem::size_of::<libc::proc_bsdinfo>() as i32;
    // SAFETY: `info` is a writable buffer of exactly `size` bytes, as the call requires; it is
    // zero-initialised, so every field is a valid integer even if the kernel writes fewer bytes,
    // and it is read only when the kernel reports writing the whole struct.
    let written = unsafe {
        libc::proc_pidinfo(
            pid,
            libc::PROC_PIDTBSDINFO,
            0,
            info.as_mut_ptr().cast(),
            size,
        )
    };
    if written != size {
        return None;
    }
    // SAFETY: the kernel filled all `size` bytes (checked above) over a zeroed struct of plain
    // integers.
    let info = unsafe { info.assume_init() };
    Some(BsdInfo {
        zombie: info.pbi_status == SZOMB,
        start_us: info.pbi_start_tvsec * 1_000_000 + info.pbi_start_tvusec,
    })
}

/// Every process whose current directory this user may read (`proc_listallpids`, then
/// `PROC_PIDVNODEPATHINFO` and `proc_name` for each).
pub fn process_dirs() -> Option<Vec<super::ProcessDir>> {
    use std::os::unix::ffi::OsStrExt;
    // SAFETY: a null buffer of size 0 asks only for the number of processes.
    let n = unsafe { libc::proc_listallpids(std::ptr::null_mut(), 0) };
    let n = usize::try_from(n).ok().filter(|n| *n > 0)?;
    // Room for processes started since.
    let mut pids = vec![0 as libc::pid_t; n + 64];
    let bytes = i32::try_from(pids.len() * std::mem::size_of::<libc::pid_t>()).ok()?;
    // SAFETY: `pids` is a writable buffer of exactly `bytes` bytes.
    let got = unsafe { libc::proc_listallpids(pids.as_mut_ptr().cast(), bytes) };
    pids.truncate(usize::try_from(got).ok()?.min(pids.len()));
    let mut out = Vec::new();
    for pid in pids.into_iter().filter(|p| *p > 0) {
        let mut info = std::mem::MaybeUninit::<libc::proc_vnodepathinfo>::zeroed();
        let size = std::mem::size_of::<libc::proc_vnodepathinfo>() as i32;
        // SAFETY: as in `bsd_info`: a zeroed writable buffer of exactly `size` bytes.
        let written = unsafe {
            libc::proc_pidinfo(
                pid,
                libc::PROC_PIDVNODEPATHINFO,
                0,
                info.as_mut_ptr().cast(),
                size,
            )
        };
        if written != size {
            continue;
        }
        // SAFETY: the kernel filled all `size` bytes over a zeroed struct of plain data.
        let info = unsafe { info.assume_init() };
        let raw: Vec<u8> = info
            .pvi_cdir
            .vip_path
            .iter()
            .flatten()
            .map(|c| *c as u8)
            .take_while(|b| *b != 0)
            .collect();
        if raw.is_empty() {
            continue;
        }
        let cwd = std::path::PathBuf::from(std::ffi::OsStr::from_bytes(&raw));
        let mut name = [0u8; 256];
        // SAFETY: `name` is a writable buffer of the size given.
        let len = unsafe { libc::proc_name(pid, name.as_mut_ptr().cast(), name.len() as u32) };
        let name = usize::try_from(len)
            .ok()
            .and_then(|l| name.get(..l))
            .map(|n| String::from_utf8_lossy(n).into_owned())
            .unwrap_or_default();
        out.push(super::ProcessDir {
            pid: pid as u32,
            name,
            cwd,
        });
    }
    Some(out)
}
