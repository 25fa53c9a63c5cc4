//! The wall clock, read here and nowhere else. A command's own "now" (`--now`, `RAIL_NOW`: the
//! time leases and log lines are judged at) is its context's (`Ctx::now`); this is the time
//! things really happen at: a shared operation's deadline, a job's id, when a mirror was synced,
//! a lock record's time, the pacing of a shared rail's rounds.

use chrono::{DateTime, Utc};

/// Now, as the system clock says.
pub fn now() -> DateTime<Utc> {
    Utc::now()
}

/// [`now`] in milliseconds since 1970.
pub fn now_ms() -> i64 {
    now().timestamp_millis()
}

/// [`now`] as the file system's times are compared with it (a file's age).
pub fn system() -> std::time::SystemTime {
    std::time::SystemTime::now()
}
