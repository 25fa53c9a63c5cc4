//! Work in flight in a shared checkout (issue 43): the files a session's own tool calls wrote
//! that are not committed yet, and the rule that keeps another session's agent from writing
//! over them.
//!
//! Two agents in one checkout are two sessions (`main~claude-…`), yet before this one's
//! uncommitted fix was invisible to the other: beta's agent writes `src/auth/token.ts`
//! (unclaimed: allowed), alpha's agent then writes the same file (allowed), and beta's fix is
//! gone. Now the host keeps, per session, what its tool calls wrote ([`SessionFlight`], in
//! `<git common dir>/rail/flight/`): before an allowed call it notes the stat of each path the
//! call may write ([`PendingCall`]), after the call the paths whose stat changed are recorded
//! ([`written`], [`SessionFlight::record`]). An entry ends when the file is committed or put
//! back to HEAD ([`ended`], from facts the host reads for the few paths a call touches: git's
//! index and HEAD's tree, never a scan of the checkout). Before a tool call, [`collisions`]
//! finds the other sessions' entries it would write over, [`standing`] says whether each
//! session still counts (live; stale or ended sessions are named, never blocking), and
//! [`join`] makes the hook's verdict say so — a denial naming the session and the file.
//!
//! The files are hostile input like every file an agent can reach: parsed with limits
//! ([`MAX_ENTRIES`], [`MAX_PATH`]), a path that is not a plain repo-relative path dropped, a
//! file whose session is not its name's ignored.

use chrono::{DateTime, TimeDelta, Utc};
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::agent::hook::{Decision, HookVerdict};
use crate::formats::gitindex::Stat;
use crate::text::ident::acts_for;
use crate::text::time::format_duration;
use crate::text::time::Time;

/// The folder under `<git common dir>/rail/` holding one file per session.
pub const FLIGHT_DIR: &str = "flight";
/// The folder under [`FLIGHT_DIR`] holding one file per tool call under way.
pub const PENDING_DIR: &str = "pending";
/// At most this many files in flight are kept per session: past it the oldest are forgotten
/// (a session writing more than this uncommitted is protected for its newest writes).
pub const MAX_ENTRIES: usize = 256;
/// At most this many paths one tool call's pending note keeps (a script writing thousands of
/// files is recorded for its first ones).
pub const MAX_PENDING: usize = 64;
/// The longest path kept, in bytes.
pub const MAX_PATH: usize = 4096;
/// The most a host reads of one session's file or one pending note.
pub const MAX_FILE_BYTES: u64 = 2 * MAX_ENTRIES as u64 * (MAX_PATH as u64 + 128);
/// At most this many sessions' files are read.
pub const MAX_SESSIONS: usize = 256;

/// One file a session's tool call wrote and has not committed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlightEntry {
    /// Repo-relative, `/`-separated.
    pub path: String,
    /// The checkout it was written in (its absolute path, as the host names it).
    pub checkout: String,
    /// When the write was recorded (the latest write of the path).
    #[serde(with = "crate::text::serde_time")]
    pub at: DateTime<Utc>,
}

/// A session's files in flight, as its file in [`FLIGHT_DIR`] holds them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionFlight {
    pub session: String,
    /// When the session ended (its agent's session end): what it left is named, never blocking.
    #[serde(default, with = "crate::text::serde_time::opt")]
    pub ended: Option<DateTime<Utc>>,
    #[serde(default)]
    pub entries: Vec<FlightEntry>,
    /// The files this session's agent was called "Behind!" about: another session's work in
    /// flight in another checkout (`crate::model::behind::elsewhere`), and whether that session
    /// was told of the write since.
    #[serde(default)]
    pub called: Vec<Called>,
    /// When its entries were last all checked for their end (committed, put back): the host
    /// does so at most every [`PRUNE_EVERY_SECS`].
    #[serde(default, with = "crate::text::serde_time::opt")]
    pub pruned: Option<DateTime<Utc>>,
}

/// How often a session's entries are all checked for their end (readers skip ended entries
/// anyway: this only keeps the file small).
pub const PRUNE_EVERY_SECS: i64 = 60;

impl SessionFlight {
    /// Whether its entries are due for a check of their end at `now`.
    pub fn prune_due(&self, now: DateTime<Utc>) -> bool {
        self.pruned
            .is_none_or(|at| now - at >= TimeDelta::seconds(PRUNE_EVERY_SECS) || at > now)
    }
}

/// One "Behind!" call: `path` is in flight in `session`'s checkout.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Called {
    pub path: String,
    pub session: String,
    /// The write went ahead and `session` was told.
    #[serde(default)]
    pub told: bool,
}

impl SessionFlight {
    pub fn new(session: &str) -> SessionFlight {
        SessionFlight {
            session: session.to_string(),
            ended: None,
            entries: Vec::new(),
            called: Vec::new(),
            pruned: None,
        }
    }

    /// Whether the session holds nothing worth keeping a file for.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty() && self.called.is_empty()
    }

    /// `paths` written in `checkout` at `at`: each once (a rewrite moves it to the end, with its
    /// new time), the oldest forgotten past [`MAX_ENTRIES`]. A session writing again is not
    /// ended.
    pub fn record(&mut self, paths: &[String], checkout: &str, at: DateTime<Utc>) {
        for path in paths.iter().filter(|p| plain_path(p)) {
            self.entries
                .retain(|e| !(e.path == *path && e.checkout == checkout));
            self.entries.push(FlightEntry {
                path: path.clone(),
                checkout: checkout.to_string(),
                at,
            });
        }
        if !paths.is_empty() {
            self.ended = None;
        }
        let over = self.entries.len().saturating_sub(MAX_ENTRIES);
        self.entries.drain(..over);
    }
}

/// A repo-relative path as Rail keeps it: not empty, not absolute, no `.`/`..` segment, no
/// control character, at most [`MAX_PATH`] bytes.
fn plain_path(p: &str) -> bool {
    !p.is_empty()
        && p.len() <= MAX_PATH
        && !p.starts_with('/')
        && !p.chars().any(char::is_control)
        && p.split('/').all(|s| !s.is_empty() && s != "." && s != "..")
}

/// The text of a session's file.
pub fn render(flight: &SessionFlight) -> String {
    serde_json::to_string(flight).unwrap_or_default()
}

/// A session's file read back; `None` when it is not one, or names another session than the
/// one its file name says (`file_name`: [`crate::formats::heartbeat::file_name`] of a session):
/// a copied file speaks for nobody. Entries that are not plain paths, or past the limits, are
/// dropped.
pub fn parse(file_name: &str, text: &str) -> Option<SessionFlight> {
    let mut flight: SessionFlight = serde_json::from_str(text).ok()?;
    if crate::formats::heartbeat::file_name(&flight.session) != file_name {
        return None;
    }
    flight
        .entries
        .retain(|e| plain_path(&e.path) && e.checkout.len() <= MAX_PATH);
    let over = flight.entries.len().saturating_sub(MAX_ENTRIES);
    flight.entries.drain(..over);
    flight
        .called
        .retain(|c| plain_path(&c.path) && c.session.len() <= MAX_PATH);
    let over = flight.called.len().saturating_sub(MAX_ENTRIES);
    flight.called.drain(..over);
    Some(flight)
}

/// What a host saw of a file (no link followed): size, times, inode. A write changes the
/// change time, which no program can set back.
pub type FileSeen = (u64, i64, i64, u64);

/// A file's [`FileSeen`] from the host's stat.
pub fn seen(stat: &Stat) -> FileSeen {
    (stat.size, stat.mtime_ns, stat.ctime_ns, stat.ino)
}

/// The paths an allowed tool call may write, noted before it runs, with what each was then
/// (`None`: absent). Its after-tool call records those that changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingCall {
    pub checkout: String,
    pub writes: Vec<(String, Option<FileSeen>)>,
    /// The session whose call it is (another session's after-tool check asks who is writing
    /// what right now).
    #[serde(default)]
    pub session: String,
}

/// The pending note's text, at most [`MAX_PENDING`] paths.
pub fn render_pending(call: &PendingCall) -> String {
    let mut call = call.clone();
    call.writes.truncate(MAX_PENDING);
    serde_json::to_string(&call).unwrap_or_default()
}

/// A pending note read back (plain paths only, at most [`MAX_PENDING`]).
pub fn parse_pending(text: &str) -> Option<PendingCall> {
    let mut call: PendingCall = serde_json::from_str(text).ok()?;
    call.writes.retain(|(p, _)| plain_path(p));
    call.writes.truncate(MAX_PENDING);
    Some(call)
}

/// Which of a call's noted paths it wrote: those whose [`FileSeen`] after it (`None`: absent)
/// differs from before — a file made, rewritten or removed. A regular file only: the host
/// reports a link or a directory as absent.
pub fn written(call: &PendingCall, after: &[Option<FileSeen>]) -> Vec<String> {
    call.writes
        .iter()
        .zip(after)
        .filter(|((_, before), after)| before != *after)
        .map(|((p, _), _)| p.clone())
        .collect()
}

/// What the host found of a path in flight, to tell whether it is still uncommitted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathNow {
    /// No file there.
    Missing,
    /// The file's blob id: the index's when git's index says the file is unchanged, else its
    /// bytes hashed.
    Blob(String),
    /// The host could not tell (too large, unreadable, a link): still in flight.
    Unknown,
}

/// Whether a path's work is no longer in flight: its file is what HEAD holds (committed, or
/// put back), or it is absent and HEAD has none (a new file removed). `head`: HEAD's blob at
/// the path, `Ok(None)` when HEAD has no file there, `Err(())` when the host could not read
/// HEAD (then still in flight: a wrong "in flight" denies a write, a wrong "ended" loses one).
pub fn ended(now: &PathNow, head: Result<Option<&str>, ()>) -> bool {
    match (now, head) {
        (PathNow::Missing, Ok(None)) => true,
        (PathNow::Blob(oid), Ok(Some(h))) => oid.eq_ignore_ascii_case(h),
        _ => false,
    }
}

pub use crate::model::behind::FlightStanding;

/// How `flight`'s entry written `at` stands `now`: ended when the session ended after it; stale
/// when neither its agent's last hook call (`last_seen`, its guard mark) nor the write is within
/// `lease` (rail.yaml's `lease`, as for a claim); else live.
pub fn standing(
    flight: &SessionFlight,
    at: DateTime<Utc>,
    last_seen: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
    lease: TimeDelta,
) -> FlightStanding {
    crate::model::behind::standing(flight.ended, at, last_seen, false, now, lease)
}

/// Another session's entry a tool call would write over: `(index into flights, index into its
/// entries)`. Only entries in `checkout` (a station's files are its own), of sessions `actor`
/// does not act for either way ([`acts_for`]: an agent and its subagents, a branch and its
/// agents never block each other), that a target names: the path itself, a directory above it,
/// or a pattern covering it.
pub fn collisions(
    actor: &str,
    checkout: &str,
    targets: &[String],
    flights: &[SessionFlight],
) -> Vec<(usize, usize)> {
    let latest = latest_writes(flights);
    let mut out = Vec::new();
    for (i, f) in flights.iter().enumerate() {
        if acts_for(actor, &f.session) || acts_for(&f.session, actor) {
            continue;
        }
        for (j, e) in f.entries.iter().enumerate() {
            if e.checkout == checkout
                && is_latest(&latest, e)
                && targets.iter().any(|t| names(t, &e.path))
            {
                out.push((i, j));
            }
        }
    }
    out
}

/// When each (checkout, path) was last written by any session: a write recorded before
/// another session's later write of the same file is no longer in the file (it was let
/// through because the first was committed, stale or ended — a copy kept), so it is not that
/// session's work in flight any more, though the file still differs from HEAD.
pub fn latest_writes(flights: &[SessionFlight]) -> BTreeMap<(&str, &str), DateTime<Utc>> {
    let mut latest: BTreeMap<(&str, &str), DateTime<Utc>> = BTreeMap::new();
    for e in flights.iter().flat_map(|f| &f.entries) {
        let at = latest
            .entry((e.checkout.as_str(), e.path.as_str()))
            .or_insert(e.at);
        *at = (*at).max(e.at);
    }
    latest
}

/// Whether `entry` is its file's latest recorded write ([`latest_writes`]; writes of one second
/// both count).
pub fn is_latest(latest: &BTreeMap<(&str, &str), DateTime<Utc>>, entry: &FlightEntry) -> bool {
    latest
        .get(&(entry.checkout.as_str(), entry.path.as_str()))
        .is_none_or(|at| entry.at >= *at)
}

/// Whether writing `target` writes `path`.
pub(crate) fn names(target: &str, path: &str) -> bool {
    crate::model::behind::covers(target, path)
}

/// One collision, judged: whose file, since when, and whether it blocks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FlightHit {
    pub path: String,
    pub session: String,
    pub checkout: String,
    #[serde(with = "crate::text::serde_time")]
    pub at: DateTime<Utc>,
    /// How long ago it was written, when judged.
    #[serde(skip)]
    pub age: TimeDelta,
    pub standing: FlightStanding,
    /// The host kept a copy of the file's content before a write over it (a stale or ended
    /// session's work, which does not block: nothing it wrote is lost).
    #[serde(skip)]
    pub kept: bool,
}

/// `flight`'s `entry` as a hit judged `now` ([`standing`]).
pub fn hit(
    flight: &SessionFlight,
    entry: &FlightEntry,
    last_seen: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
    lease: TimeDelta,
) -> FlightHit {
    FlightHit {
        path: entry.path.clone(),
        session: flight.session.clone(),
        checkout: entry.checkout.clone(),
        at: entry.at,
        age: (now - entry.at).max(TimeDelta::zero()),
        standing: standing(flight, entry.at, last_seen, now, lease),
        kept: false,
    }
}

/// What a hit says: the file, whose change it holds, how old, and why it does not block.
fn described(hit: &FlightHit) -> String {
    let age = format_duration(hit.age);
    let mut why = match hit.standing {
        FlightStanding::Live => String::new(),
        FlightStanding::Stale => ", its agent not seen for a lease".to_string(),
        FlightStanding::Ended => ", its session ended".to_string(),
    };
    if hit.kept {
        why.push_str("; a copy of it is kept in <git common dir>/rail/after/aside/");
    }
    format!(
        "{} has {}'s uncommitted change (written {age} ago{why})",
        hit.path, hit.session
    )
}

/// The hook's `verdict` with work in flight it would write over: a live session's file turns
/// it into a denial naming the session and the file (a denial already there keeps its reason
/// and names them too); a stale or ended session's is named (a warning where the call was
/// allowed), never blocking. No hits: the verdict as it was.
pub fn join(mut verdict: HookVerdict, hits: &[FlightHit]) -> HookVerdict {
    if hits.is_empty() {
        return verdict;
    }
    let live: Vec<String> = hits
        .iter()
        .filter(|h| h.standing == FlightStanding::Live)
        .map(described)
        .collect();
    let named: Vec<String> = hits
        .iter()
        .filter(|h| h.standing != FlightStanding::Live)
        .map(described)
        .collect();
    let add = |message: &mut String, text: String| {
        if message.trim().is_empty() {
            *message = text;
        } else {
            message.push_str("; ");
            message.push_str(&text);
        }
    };
    if !live.is_empty() {
        let first = hits
            .iter()
            .find(|h| h.standing == FlightStanding::Live)
            .map_or("", |h| h.session.as_str());
        let text = format!(
            "Rail: {}. Writing it would lose that work: leave the file to {first} until it commits it, or ask {first} to commit or hand it over",
            live.join("; ")
        );
        if verdict.decision == Decision::Deny {
            add(&mut verdict.message, text);
        } else {
            verdict.decision = Decision::Deny;
            verdict.message = text;
            verdict.hint = None;
        }
    }
    if !named.is_empty() {
        let text = format!(
            "Rail: {}: not blocking; its work is still in the file, rescue it before writing over it",
            named.join("; ")
        );
        add(&mut verdict.message, text);
        if verdict.decision == Decision::Allow {
            verdict.decision = Decision::Warn;
        }
    }
    verdict
}

/// What a write that lands on another checkout's work in flight does (`model::behind::elsewhere`), given what `own` (the writer's flight
/// file) says it was called about before.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallOut {
    /// Nothing elsewhere: the verdict as it was.
    None,
    /// First time: the call is stopped once, so that every agent's model reads it (a warning
    /// reaches only the person in some agents); the same write again goes through.
    Stop(String),
    /// Called before: the write goes ahead with the warning, and these sessions are told of it
    /// (each once), with the files.
    Pass(String, BTreeMap<String, Vec<String>>),
}

/// The "Behind!" call for a write of `items` (live work elsewhere), given `own`'s record of
/// earlier calls; `own` is updated (the calls made, the sessions told).
pub fn call_out(
    items: &[&crate::model::behind::InFlight],
    own: &mut SessionFlight,
    now: Time,
) -> CallOut {
    let Some(text) = crate::model::behind::warning(items, now) else {
        return CallOut::None;
    };
    let known = |w: &crate::model::behind::InFlight, own: &SessionFlight| {
        own.called
            .iter()
            .position(|c| c.path == w.path && c.session == w.session)
    };
    if items.iter().any(|w| known(w, own).is_none()) {
        for w in items {
            if known(w, own).is_none() {
                own.called.push(Called {
                    path: w.path.clone(),
                    session: w.session.clone(),
                    told: false,
                });
            }
        }
        let over = own.called.len().saturating_sub(MAX_ENTRIES);
        own.called.drain(..over);
        return CallOut::Stop(format!(
            "{text}\nThis write was not run, so that this is read; the same write again goes through."
        ));
    }
    let mut tell: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for w in items {
        if let Some(i) = known(w, own) {
            if !own.called[i].told {
                own.called[i].told = true;
                tell.entry(w.session.clone())
                    .or_default()
                    .push(w.path.clone());
            }
        }
    }
    CallOut::Pass(text, tell)
}

/// The hook's `verdict` with the [`call_out`] joined: a stop denies (keeping a denial's own reason
/// first), a pass warns where it allowed; a denial already there stays one.
pub fn join_call(
    mut verdict: crate::agent::hook::HookVerdict,
    call: &CallOut,
) -> crate::agent::hook::HookVerdict {
    use crate::agent::hook::Decision;
    let (text, stop) = match call {
        CallOut::None => return verdict,
        CallOut::Stop(t) => (t, true),
        CallOut::Pass(t, _) => (t, false),
    };
    if verdict.message.trim().is_empty() {
        verdict.message = text.clone();
    } else {
        verdict.message = format!("{}; {text}", verdict.message);
    }
    verdict.decision = match (verdict.decision, stop) {
        (Decision::Deny, _) | (_, true) => Decision::Deny,
        _ => Decision::Warn,
    };
    verdict
}

/// One changed file of a checkout as `git status` tells it (repo-relative).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatusEntry {
    pub path: String,
    /// Its change is staged (git's index differs from HEAD).
    pub staged: bool,
    /// Git does not track it (and it is not ignored).
    pub untracked: bool,
}

/// The files a `git commit` of a command line would take, given its checkout's status before
/// the line runs (`commit`'s pathspecs made repo-relative by the host); `None` when the line
/// cannot say (a pathspec only known when it runs). With pathspecs (`git commit -- PATH…`): the
/// changed files they cover, tracked or staged by the line; else what is staged, every tracked
/// change with `-a`/`add -u`, every untracked file too with `add -A`, and what its `git add
/// PATH…` covers.
pub fn commit_takes(
    commit: &crate::agent::shell::GitCommit,
    status: &[StatusEntry],
) -> Option<Vec<String>> {
    if commit.unknown {
        return None;
    }
    let covered =
        |specs: &[String], path: &str| specs.iter().any(|s| crate::model::behind::covers(s, path));
    let took = status.iter().filter(|e| {
        let added = covered(&commit.added, &e.path) || (commit.new_files && e.untracked);
        if !commit.only.is_empty() {
            return covered(&commit.only, &e.path) && (!e.untracked || added);
        }
        e.staged || added || (commit.all && !e.untracked)
    });
    Some(took.map(|e| e.path.clone()).collect())
}

#[cfg(test)]
mod tests;
