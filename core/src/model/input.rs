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
    /// On a shared rail, last commit time per branch as pushed to its remote
    /// (`refs/remotes/<remote>/<branch>`): a session's commits may reach the remote before
    /// this clone's branches or the other way round, and either renews its lease
    /// ([`Facts::last_commit`]).
    #[serde(default, with = "time_map")]
    #[cfg_attr(feature = "ts", ts(type = "Record<string, string>", optional = nullable))]
    pub pushed_commits: BTreeMap<String, Time>,
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
    /// Sessions' work in flight — files changed and not merged — as the host gathered it
    /// ([`crate::model::behind`]): the board shows it beside the claims.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub in_flight: Vec<crate::model::behind::InFlight>,
    /// A shared rail: leases count from this machine's own sightings ([`Facts::first_seen`]),
    /// not from the recorded times alone.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub observing: bool,
    /// On a shared rail, when this machine first saw each claim's activity, by its own clock,
    /// keyed by [`crate::model::lease::activity_key`] ([`crate::model::observed`]).
    #[serde(default, with = "time_map")]
    #[cfg_attr(feature = "ts", ts(type = "Record<string, string>", optional = nullable))]
    pub observed: BTreeMap<String, Time>,
    /// This clone's machine id on a shared rail (`.git/rail/exchange/machine`): a claim that
    /// records another machine is that machine's, which no session here acts for
    /// ([`crate::text::ident::on_machine`]). `None`: the host does not say (a JS host showing a
    /// board); the CLI, which enforces, always says on a clone that has one.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub machine: Option<String>,
    /// A shared rail's verification as the host found it ([`crate::model::verification`]): the
    /// board says whether its state is proven. `None`: not a shared rail, or a host that only
    /// judges (the hooks), never shows a board.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub shared: Option<crate::model::verification::SharedRailFacts>,
}

impl Facts {
    pub fn at(now: Time) -> Self {
        Facts {
            now,
            host: String::new(),
            commits: BTreeMap::new(),
            pushed_commits: BTreeMap::new(),
            processes: BTreeMap::new(),
            process_starts: BTreeMap::new(),
            sessions: BTreeMap::new(),
            worktrees: Vec::new(),
            hooks: BTreeMap::new(),
            in_flight: Vec::new(),
            observing: false,
            observed: BTreeMap::new(),
            machine: None,
            shared: None,
        }
    }
}

impl Facts {
    /// The last commit on `branch` that counts for a lease: the later of the branch's own
    /// ([`Facts::commits`]) and, on a shared rail, its pushed one ([`Facts::pushed_commits`]).
    /// Every reader of commit times asks this, so no host merges the two itself.
    pub fn last_commit(&self, branch: &str) -> Option<Time> {
        let local = self.commits.get(branch).copied();
        let pushed = self.pushed_commits.get(branch).copied();
        local.max(pushed)
    }

    /// When this machine first saw the activity that `key` names
    /// ([`crate::model::lease::activity_key`]), on a shared rail: as recorded, or now when it was
    /// never recorded (what this machine has not seen before, it sees now). `None` off a shared
    /// rail, where the key is not built.
    pub fn first_seen(&self, key: impl FnOnce() -> String) -> Option<Time> {
        self.observing
            .then(|| self.observed.get(&key()).copied().unwrap_or(self.now))
    }

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

/// One owner process a host should look at before the board is built: a claim's `pid` field
/// names it on this host (`PID@HOST[/START]`). The host records what it finds under `key`:
/// in [`Facts::processes`] whether the process lives, and in [`Facts::process_starts`] when it
/// started (as the OS counts it: the unit of the claims' `/START`). The host reports; core
/// decides, in [`Facts::owner_alive`], whether that process is the claim's owner.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct OwnerProbe {
    pub pid: u32,
    /// `PID@HOST`, the key of what was observed.
    pub key: String,
    /// Some claim naming this process recorded its start time: only then does the start time
    /// matter (a live process that started at another time is not the owner). Without it the
    /// start need not be read.
    pub wants_start: bool,
}

impl Facts {
    /// The owner processes a host should probe for these claims' `pid` fields: each process
    /// once, only on this host (another host's cannot be checked from here), only a pid a
    /// process can have ([`crate::formats::pid::plausible_pid`]: `kill(0, 0)` would signal the
    /// host's own process group and read as alive), and none already observed in
    /// [`Facts::processes`]; ordered by pid. The CLI's reads and the VS Code extension's board
    /// both ask this, so a reused pid frees a dead owner in both.
    pub fn owner_probes<'a>(
        &self,
        pid_fields: impl IntoIterator<Item = &'a str>,
    ) -> Vec<OwnerProbe> {
        let mut named: Vec<OwnerProbe> = Vec::new();
        for field in pid_fields {
            let Some(owner) = crate::formats::pid::OwnerProcess::parse(field) else {
                continue;
            };
            if owner.host != self.host || !crate::formats::pid::plausible_pid(owner.pid) {
                continue;
            }
            let key = owner.key();
            if !self.processes.contains_key(&key) {
                named.push(OwnerProbe {
                    pid: owner.pid,
                    key,
                    wants_start: owner.start.is_some(),
                });
            }
        }
        // Every pid is on this host, so the pid alone names the process: sorted by it, the
        // claims naming one process are neighbours (linear, where a search per claim was not).
        crate::text::sort::sort_by(&mut named, |a, b| a.pid.cmp(&b.pid));
        let mut probes: Vec<OwnerProbe> = Vec::with_capacity(named.len());
        for probe in named {
            match probes.last_mut() {
                // Two claims naming one process: its start is wanted if either recorded one.
                Some(last) if last.pid == probe.pid => last.wants_start |= probe.wants_start,
                _ => probes.push(probe),
            }
        }
        probes
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

    #[test]
    fn the_later_of_a_branchs_local_and_pushed_commit_counts() {
        let t = |s: &str| crate::text::time::parse_time(s).unwrap();
        let mut facts = Facts::at(t("2026-10-22T15:00Z"));
        facts
            .commits
            .insert("local-later".into(), t("2026-10-22T14:30Z"));
        facts
            .pushed_commits
            .insert("local-later".into(), t("2026-10-22T14:10Z"));
        facts
            .commits
            .insert("pushed-later".into(), t("2026-10-22T14:00Z"));
        facts
            .pushed_commits
            .insert("pushed-later".into(), t("2026-10-22T14:20Z"));
        facts
            .commits
            .insert("local-only".into(), t("2026-10-22T13:00Z"));
        facts
            .pushed_commits
            .insert("pushed-only".into(), t("2026-10-22T12:00Z"));
        let table = [
            ("local-later", Some(t("2026-10-22T14:30Z"))),
            ("pushed-later", Some(t("2026-10-22T14:20Z"))),
            ("local-only", Some(t("2026-10-22T13:00Z"))),
            ("pushed-only", Some(t("2026-10-22T12:00Z"))),
            ("neither", None),
        ];
        for (branch, want) in table {
            assert_eq!(facts.last_commit(branch), want, "{branch}");
        }
    }

    #[test]
    fn owner_probes_name_each_process_of_this_host_once() {
        let mut facts = Facts::at(crate::text::time::parse_time("2026-10-22T14:00Z").unwrap());
        facts.host = "devbox".into();
        facts.processes.insert("77@devbox".into(), true);
        let fields = [
            "4242@devbox",
            "4242@devbox/900", // the same process, and this claim recorded its start
            "31@devbox/12",
            "31@devbox/12",
            "5@elsewhere/1", // another host: cannot be checked here
            "77@devbox/3",   // already observed
            "0@devbox",      // no process has pid 0: kill(0, 0) is the own process group
            "2147483648@devbox",
            "not a pid",
            "9@devbox",
        ];
        let probe = |pid: u32, wants_start: bool| OwnerProbe {
            pid,
            key: format!("{pid}@devbox"),
            wants_start,
        };
        assert_eq!(
            facts.owner_probes(fields),
            vec![probe(9, false), probe(31, true), probe(4242, true)]
        );
        // An unknown host name matches no claim's.
        facts.host.clear();
        assert_eq!(facts.owner_probes(fields), vec![]);
    }

    /// What a host observes for the probes, recorded as they say, is what `owner_alive`
    /// judges: a live pid that started at another time than recorded is not the owner.
    #[test]
    fn probed_facts_free_a_reused_pid() {
        let mut facts = Facts::at(crate::text::time::parse_time("2026-10-22T14:00Z").unwrap());
        facts.host = "devbox".into();
        let claim = "4242@devbox/900";
        for probe in facts.owner_probes([claim]) {
            facts.processes.insert(probe.key.clone(), true);
            if probe.wants_start {
                facts.process_starts.insert(probe.key, 950);
            }
        }
        assert_eq!(facts.owner_alive(Some(claim), "a"), Some(false));
        facts.process_starts.insert("4242@devbox".into(), 900);
        assert_eq!(facts.owner_alive(Some(claim), "a"), Some(true));
    }
}
