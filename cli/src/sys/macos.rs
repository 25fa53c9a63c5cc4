//! macOS: a process's state and start time from `proc_pidinfo(PROC_PIDTBSDINFO)`.
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
