//! What a host hands to core: the rail's texts and the facts it observed.
//!
//! Core reads no file and no clock. The CLI reads files and asks git; the VS Code extension and
//! the web board do the same in their own way; all of them fill these structs.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::formats::heartbeat::HookSeen;
use crate::text::time::Time;

/// One file's text, with its path relative to the rail directory.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FileText {
    /// `claims.md`, `claims/session-a.yaml`, `claims.log`, `rail.yaml`.
    pub path: String,
    pub text: String,
    /// Last modification time, used as a claim file's `since` when it has none.
    #[serde(default, with = "crate::text::serde_time::opt")]
    #[cfg_attr(feature = "ts", ts(type = "string | null", optional))]
    pub modified: Option<Time>,
}

/// The rail's files as the host found them. Missing files are `None` / empty.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RailTexts {
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub claims: Option<FileText>,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub claim_files: Vec<FileText>,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub log: Option<FileText>,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub config: Option<FileText>,
}

/// A worktree the host found (for the sessions view).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Worktree {
    pub path: String,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub branch: Option<String>,
}

/// What the host observed, all optional except the time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Facts {
    /// "Now" for every lease decision. Hosts pass the clock; tests and replays pass any time.
    #[serde(with = "crate::text::serde_time")]
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub now: Time,
    /// This machine's host name (to judge `pid@host` owners).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub host: String,
    /// Last commit time per branch (`refs/heads/<branch>`), for leases.
    #[serde(default, with = "time_map")]
    #[cfg_attr(feature = "ts", ts(type = "Record<string, string>", optional = nullable))]
    pub commits: BTreeMap<String, Time>,
    /// Liveness of owner processes, keyed `pid@host` (a claim's `pid` field without its start
    /// time; a key with one is read too).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub processes: BTreeMap<String, bool>,
    /// When each live owner process started, as the OS counts it (the unit of a claim's
    /// `PID@HOST/START`), keyed `pid@host`: a live pid whose start differs from the claim's
    /// recorded one is another process that was given the same pid, not the owner.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub process_starts: BTreeMap<String, u64>,
    /// Liveness of whole sessions, when a host knows it (e.g. an agent harness).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub sessions: BTreeMap<String, bool>,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub worktrees: Vec<Worktree>,
    /// The last Rail hook call seen per session ([`crate::formats::heartbeat`]): guard status.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub hooks: BTreeMap<String, HookSeen>,
}

impl Facts {
    pub fn at(now: Time) -> Self {
        Facts {
            now,
            host: String::new(),
            commits: BTreeMap::new(),
            processes: BTreeMap::new(),
            process_starts: BTreeMap::new(),
            sessions: BTreeMap::new(),
            worktrees: Vec::new(),
            hooks: BTreeMap::new(),
        }
    }
}

impl Facts {
    /// Is the owner of a claim alive, as far as this host knows? By its `pid` field when the
    /// host observed that process, else by its session's liveness. A live process under the
    /// recorded pid that started at another time than the recorded start is not the owner (it
    /// was given the dead owner's pid): the owner is dead (issue 28, finding 7).
    pub fn owner_alive(&self, pid: Option<&str>, session: &str) -> Option<bool> {
        let by_pid = pid.and_then(|field| {
            let owner = crate::formats::pid::OwnerProcess::parse(field);
            let key = owner.map(|o| o.key());
            let alive = (self.processes.get(field).copied())
                .or_else(|| key.as_ref().and_then(|k| self.processes.get(k).copied()))?;
            let recorded = owner.and_then(|o| o.start);
            let actual = key
                .as_ref()
                .and_then(|k| self.process_starts.get(k).copied());
            match (alive, recorded, actual) {
                (true, Some(recorded), Some(actual)) if recorded != actual => Some(false),
                _ => Some(alive),
            }
        });
        by_pid.or_else(|| self.sessions.get(session).copied())
    }
}

mod time_map {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Deserializer, Serializer};

    use crate::text::time::{format_time, parse_time, Time};

    pub fn serialize<S: Serializer>(m: &BTreeMap<String, Time>, s: S) -> Result<S::Ok, S::Error> {
        // Keys stay in the map's order; a map rather than `collect()` into a new BTreeMap, whose
        // FromIterator sorts (another copy of std's sort in the wasm build).
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(m.len()))?;
        for (k, v) in m {
            map.serialize_entry(k, &format_time(*v))?;
        }
        map.end()
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<BTreeMap<String, Time>, D::Error> {
        let mut out = BTreeMap::new();
        // Inserted one by one: `collect()` into a BTreeMap sorts first (see `serialize`).
        for (k, v) in BTreeMap::<String, String>::deserialize(d)? {
            let t = parse_time(&v).map_err(|e| serde::de::Error::custom(format!("`{v}`: {e}")))?;
            out.insert(k, t);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_pid_that_started_at_another_time_is_not_the_owner() {
        let mut facts = Facts::at(crate::text::time::parse_time("2026-10-22T14:00Z").unwrap());
        facts.processes.insert("4242@devbox".into(), true);
        facts.process_starts.insert("4242@devbox".into(), 900);
        // The recorded owner: same start.
        assert_eq!(facts.owner_alive(Some("4242@devbox/900"), "a"), Some(true));
        // Issue 28 finding 7: the pid was given to a process that started later.
        assert_eq!(facts.owner_alive(Some("4242@devbox/800"), "a"), Some(false));
        // No start recorded (an old claim) or none observed: the pid's liveness, as before.
        assert_eq!(facts.owner_alive(Some("4242@devbox"), "a"), Some(true));
        facts.process_starts.clear();
        assert_eq!(facts.owner_alive(Some("4242@devbox/800"), "a"), Some(true));
        // A dead pid is dead whatever was recorded; an unknown one falls back to the session.
        facts.processes.insert("4242@devbox".into(), false);
        assert_eq!(facts.owner_alive(Some("4242@devbox/900"), "a"), Some(false));
        facts.sessions.insert("a".into(), true);
        assert_eq!(facts.owner_alive(Some("7@elsewhere/1"), "a"), Some(true));
        assert_eq!(facts.owner_alive(None, "b"), None);
    }
}
