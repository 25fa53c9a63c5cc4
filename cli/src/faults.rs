//! Fault injection, for tests only: a crash at a write step, a write that fails, a panic in the
//! hook, a lock held long, a pause after a fetch or before a push, a death after a push, a queue
//! always published. Each is asked for by a `RAIL_TEST_*` environment variable, and compiled
//! only into builds that test: debug builds (`cargo test`, the suites' `target/debug/rail`) and
//! a release build with the `fault-injection` feature. The binary users get (release, default
//! features) has none of them: there, each function here does nothing, whatever the
//! environment says.

#[cfg(any(feature = "fault-injection", debug_assertions))]
mod on {
    use std::path::PathBuf;
    use std::time::{Duration, Instant};

    /// `RAIL_TEST_CRASH=after-journal|mid-write|before-log`: die at that write step the way
    /// SIGKILL would (no destructors, no flushing).
    pub fn crash_point(name: &str) {
        if crate::sys::env::var("RAIL_TEST_CRASH").as_deref() == Some(name) {
            crate::sys::die_now();
        }
    }

    /// The way a full disk or a read-only file would fail: `RAIL_TEST_FAIL_WRITE=<file>` makes
    /// writing that rail file (`claims.md`, `claims.log`, `claims.md.journal`, `claims/x.yaml`)
    /// stop halfway (`Some(false)`); `<file>:open` makes opening it for writing fail
    /// (`Some(true)`; for tests that run as root, where `chmod` does not stop a write).
    pub fn write_fault(rel: &str) -> Option<bool> {
        let spec = crate::sys::env::var("RAIL_TEST_FAIL_WRITE")?;
        match spec.strip_suffix(":open") {
            Some(file) if file == rel => Some(true),
            None if spec == rel => Some(false),
            _ => None,
        }
    }

    /// `RAIL_TEST_HOOK_PANIC`: the hook panics (tests of the panic answer).
    pub fn hook_panic() {
        if crate::sys::env::var_os("RAIL_TEST_HOOK_PANIC").is_some() {
            panic!("RAIL_TEST_HOOK_PANIC is set (tests of the panic answer)");
        }
    }

    /// `RAIL_TEST_STATUS=git`: list touched files with `git status` even where Rail could read
    /// them itself; `=explain`: say on stderr which of the two answered, and why git did.
    pub fn status_source() -> Option<&'static str> {
        match crate::sys::env::var("RAIL_TEST_STATUS").as_deref() {
            Some("git") => Some("git"),
            Some("explain") => Some("explain"),
            _ => None,
        }
    }

    /// `RAIL_TEST_HOLD_MS`: keep the rail lock this long (tests kill a holder mid-operation).
    pub fn hold_lock() {
        if let Some(ms) =
            crate::sys::env::var("RAIL_TEST_HOLD_MS").and_then(|v| v.parse::<u64>().ok())
        {
            std::thread::sleep(Duration::from_millis(ms));
        }
    }

    /// `RAIL_TEST_DIE_AFTER_PUSH=1`: die the way SIGKILL would as soon as a push to the shared
    /// rail has returned, before anything is answered or recorded here (a machine lost with
    /// operations it published for other machines).
    pub fn die_after_push() {
        if crate::sys::env::var_os("RAIL_TEST_DIE_AFTER_PUSH").is_some() {
            crate::sys::die_now();
        }
    }

    /// `RAIL_TEST_PUBLISH=1`: a round that commits publishes this machine's queue in the same
    /// push even without contention (tests make a lost push leave its operations out).
    pub fn always_publish() -> bool {
        crate::sys::env::var_os("RAIL_TEST_PUBLISH").is_some()
    }

    /// `RAIL_TEST_PAUSE_BEFORE_PUSH=<dir>`: stop before pushing to the shared rail until told to
    /// go, so a test can act between the plan and the push (`<dir>/paused` says we are here;
    /// `<dir>/go` lets us on; a minute at most).
    pub fn pause_before_push() {
        pause_at("RAIL_TEST_PAUSE_BEFORE_PUSH");
    }

    /// `RAIL_TEST_PAUSE_AFTER_FETCH=<dir>`: the same, as soon as a round's fetch of the shared
    /// rail has returned (a test queues another job of the machine while the round fetches).
    pub fn pause_after_fetch() {
        pause_at("RAIL_TEST_PAUSE_AFTER_FETCH");
    }

    fn pause_at(var: &str) {
        if let Some(dir) = crate::sys::env::var_os(var).map(PathBuf::from) {
            let _ = std::fs::write(dir.join("paused"), b"");
            let until = Instant::now() + Duration::from_secs(60);
            while !dir.join("go").exists() && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
    }
}

#[cfg(not(any(feature = "fault-injection", debug_assertions)))]
mod on {
    pub fn crash_point(_: &str) {}
    pub fn write_fault(_: &str) -> Option<bool> {
        None
    }
    pub fn hook_panic() {}
    pub fn hold_lock() {}
    pub fn pause_before_push() {}
    pub fn pause_after_fetch() {}
    pub fn die_after_push() {}
    pub fn always_publish() -> bool {
        false
    }
    pub fn status_source() -> Option<&'static str> {
        None
    }
}

pub use on::*;
