//! What a host hands to core: the rail's texts and the facts it observed.
//!
//! Core reads no file and no clock. The CLI reads files and asks git; the VS Code extension and
//! the web board do the same in their own way; all of them fill these structs.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::time::Time;

/// One file's text, with its path relative to the rail directory.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FileText {
    /// `claims.md`, `claims/session-a.yaml`, `claims.log`, `rail.yaml`.
    pub path: String,
    pub text: String,
    /// Last modification time, used as a claim file's `since` when it has none.
    #[serde(default, with = "opt_time")]
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
    #[serde(with = "time_str")]
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
    /// Liveness of owner processes, keyed `pid@host`.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub processes: BTreeMap<String, bool>,
    /// Liveness of whole sessions, when a host knows it (e.g. an agent harness).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub sessions: BTreeMap<String, bool>,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub worktrees: Vec<Worktree>,
    /// The last Rail hook call seen per session ([`crate::heartbeat`]): guard status.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub hooks: BTreeMap<String, crate::heartbeat::HookSeen>,
}

impl Facts {
    pub fn at(now: Time) -> Self {
        Facts {
            now,
            host: String::new(),
            commits: BTreeMap::new(),
            processes: BTreeMap::new(),
            sessions: BTreeMap::new(),
            worktrees: Vec::new(),
            hooks: BTreeMap::new(),
        }
    }
}

pub(crate) mod time_str {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::time::{format_time, parse_time, Time};

    pub fn serialize<S: Serializer>(t: &Time, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format_time(*t))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Time, D::Error> {
        let text = String::deserialize(d)?;
        parse_time(&text).map_err(|e| serde::de::Error::custom(format!("`{text}`: {e}")))
    }
}

pub(crate) mod opt_time {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::time::{format_time, parse_time, Time};

    pub fn serialize<S: Serializer>(t: &Option<Time>, s: S) -> Result<S::Ok, S::Error> {
        match t {
            Some(t) => s.serialize_str(&format_time(*t)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Time>, D::Error> {
        match Option::<String>::deserialize(d)? {
            None => Ok(None),
            Some(text) => parse_time(&text)
                .map(Some)
                .map_err(|e| serde::de::Error::custom(format!("`{text}`: {e}"))),
        }
    }
}

mod time_map {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Deserializer, Serializer};

    use crate::time::{format_time, parse_time, Time};

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
