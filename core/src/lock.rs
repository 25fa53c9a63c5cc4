//! The lock file's owner record and the rule for when a lock may be broken.
//!
//! The host creates `claims.md.lock` atomically with this record in it (see
//! docs/lock-protocol.md); anyone who finds the lock held reads the record to say who holds it
//! and asks [`assess`] whether it may be broken. Core decides; the host checks the process.
//!
//! ```yaml
//! pid: 4242
//! host: devbox
//! session: session-a
//! command: rail claim auth-refresh
//! started: 2026-10-22T14:05:03Z
//! nonce: 5f1c2a9e0b7d4c36
//! ```

use chrono::TimeDelta;
use serde::{Deserialize, Deserializer, Serialize};

use crate::time::{self, Time};
use crate::yaml::{self, render_scalar, Value};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LockRecord {
    pub pid: u32,
    pub host: String,
    pub session: String,
    pub command: String,
    #[serde(
        serialize_with = "crate::serde_time::serialize",
        deserialize_with = "crate::serde_time::deserialize"
    )]
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub started: Time,
    /// Unique per acquisition: tells one holder from the next even if pids repeat.
    pub nonce: String,
    /// The owner's process start time as the OS counts it (Linux: clock ticks since boot), so a
    /// reused pid is not mistaken for the owner. Empty when unknown.
    pub proc_start: Option<u64>,
}

impl LockRecord {
    pub fn render(&self) -> String {
        let mut out = format!(
            "pid: {}\nhost: {}\nsession: {}\ncommand: {}\nstarted: {}\nnonce: {}\n",
            self.pid,
            render_scalar(&self.host),
            render_scalar(&self.session),
            render_scalar(&self.command),
            time::format_time(self.started),
            render_scalar(&self.nonce),
        );
        if let Some(start) = self.proc_start {
            out.push_str(&format!("proc_start: {start}\n"));
        }
        out
    }

    /// `4242@devbox`
    pub fn holder(&self) -> String {
        format!("{}@{}", self.pid, self.host)
    }
}

/// Reads a record; `None` if the text is empty or not a complete record.
pub fn parse(text: &str) -> Option<LockRecord> {
    let doc = yaml::parse(text);
    let get = |key: &str| match doc.get(key).map(|e| &e.value.value) {
        Some(Value::Scalar(s)) => Some(s.clone()),
        _ => None,
    };
    Some(LockRecord {
        pid: get("pid")?.parse().ok()?,
        host: get("host")?,
        session: get("session").unwrap_or_default(),
        command: get("command").unwrap_or_default(),
        started: time::parse_time(&get("started")?).ok()?,
        nonce: get("nonce")?,
        proc_start: get("proc_start").and_then(|s| s.parse().ok()),
    })
}

/// What the host knows about the lock file and its owner. As JSON (from JS hosts):
/// `{"now": "2026-10-22T14:05:03Z", "host": "devbox", "owner_alive": null, "file_age_ms": 1500}`.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LockFacts {
    #[serde(with = "crate::input::time_str")]
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub now: Time,
    /// This machine's host name.
    pub host: String,
    /// Is the recorded pid (with matching start time, where known) running here? Only
    /// meaningful when the record's host is this host; `None` if it could not be checked.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub owner_alive: Option<bool>,
    /// How long ago the lock file was last modified (milliseconds in JSON, as JS hosts measure
    /// it: `Date.now() - stat.mtimeMs`).
    #[serde(rename = "file_age_ms", deserialize_with = "millis")]
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub file_age: TimeDelta,
}

fn millis<'de, D: Deserializer<'de>>(d: D) -> Result<TimeDelta, D::Error> {
    let ms = f64::deserialize(d)?;
    // `as` saturates (NaN becomes 0); try_milliseconds refuses what TimeDelta cannot hold.
    TimeDelta::try_milliseconds(ms as i64)
        .filter(|_| ms.is_finite())
        .ok_or_else(|| serde::de::Error::custom(format!("file age {ms} ms is out of range")))
}

/// How long an empty or unreadable lock file is given to be written before it counts as
/// abandoned. Rail itself never leaves one (it links a complete record into place), but other
/// tools or a full disk might.
pub const UNREADABLE_GRACE: TimeDelta = TimeDelta::seconds(2);

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum LockState {
    /// The owner runs on this host and is alive.
    Alive,
    /// The owner was on this host and its process is gone.
    Dead,
    /// The owner is on another host; its liveness cannot be checked from here.
    ForeignHost,
    /// Liveness could not be determined on this host.
    Unknown,
    /// The lock file is empty or garbled and older than the grace period.
    Abandoned,
    /// The lock file is empty or garbled but young: probably being written right now.
    Young,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LockVerdict {
    pub state: LockState,
    /// May a waiter break it without being told to?
    pub breakable: bool,
    /// What to say: who holds it and what can be done.
    pub message: String,
}

/// Decides what a found lock means.
pub fn assess(record: Option<&LockRecord>, facts: &LockFacts) -> LockVerdict {
    let Some(record) = record else {
        let age = time::format_duration(facts.file_age);
        return if facts.file_age >= UNREADABLE_GRACE {
            LockVerdict {
                state: LockState::Abandoned,
                breakable: true,
                message: format!(
                    "the lock file is empty or unreadable and {age} old: its writer crashed before recording itself"
                ),
            }
        } else {
            LockVerdict {
                state: LockState::Young,
                breakable: false,
                message: format!(
                    "the lock file is empty or unreadable but only {age} old: its owner may be writing it"
                ),
            }
        };
    };
    let held = format!(
        "held by {} (session {}, `{}`, since {})",
        record.holder(),
        if record.session.is_empty() {
            "?"
        } else {
            &record.session
        },
        record.command,
        time::format_time(record.started)
    );
    if record.host != facts.host {
        return LockVerdict {
            state: LockState::ForeignHost,
            breakable: false,
            message: format!(
                "{held}; that host is not this one ({}), so it cannot be checked here: break it only with --break --force after asking its owner",
                facts.host
            ),
        };
    }
    match facts.owner_alive {
        Some(true) => LockVerdict {
            state: LockState::Alive,
            breakable: false,
            message: format!("{held}; process {} is alive", record.pid),
        },
        Some(false) => LockVerdict {
            state: LockState::Dead,
            breakable: true,
            message: format!("{held}; process {} is dead", record.pid),
        },
        None => LockVerdict {
            state: LockState::Unknown,
            breakable: false,
            message: format!(
                "{held}; could not tell whether process {} is alive",
                record.pid
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> LockRecord {
        LockRecord {
            pid: 4242,
            host: "devbox".into(),
            session: "session-a".into(),
            command: "rail claim auth-refresh".into(),
            started: time::parse_time("2026-10-22T14:05:03Z").unwrap(),
            nonce: "5f1c2a9e0b7d4c36".into(),
            proc_start: Some(123),
        }
    }

    #[test]
    fn round_trip() {
        assert_eq!(parse(&record().render()), Some(record()));
        assert_eq!(parse(""), None);
        assert_eq!(parse("pid: 12\n"), None);
    }

    #[test]
    fn verdicts() {
        let facts = |alive, host: &str, age| LockFacts {
            now: record().started,
            host: host.into(),
            owner_alive: alive,
            file_age: TimeDelta::seconds(age),
        };
        let r = record();
        assert_eq!(
            assess(Some(&r), &facts(Some(true), "devbox", 0)).state,
            LockState::Alive
        );
        let dead = assess(Some(&r), &facts(Some(false), "devbox", 0));
        assert!(dead.breakable);
        assert!(dead.message.contains("4242@devbox"));
        assert!(!assess(Some(&r), &facts(Some(false), "other", 0)).breakable);
        assert!(!assess(None, &facts(None, "devbox", 1)).breakable);
        assert!(assess(None, &facts(None, "devbox", 5)).breakable);
    }
}
