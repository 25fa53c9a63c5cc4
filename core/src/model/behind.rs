//! "Behind!" (issue 43): other sessions' work in flight — files they changed and have not
//! merged — seen by claims, by `rail who`, by the board and by edits in other stations.
//!
//! A kitchen does not stop at tickets: a cook passing with a hot pan calls "Behind!" so nobody
//! turns into him. Rail's tickets are claims; work nobody claimed was invisible to them: beta's
//! agent fixes `src/auth/token.ts` in its station (uncommitted, outside its claim), then alpha
//! claims `src/auth/**` and is told nothing, and beta's commit is refused later. The host
//! gathers each session's work in flight as [`InFlight`] facts — the files its tool calls
//! wrote in a shared checkout ([`WorkKind::Written`]), what is uncommitted in its station
//! ([`WorkKind::Uncommitted`]) and what its branch committed and its base does not have
//! ([`WorkKind::Unmerged`]) — each judged live, stale or ended ([`standing`]). Here:
//! - a claim over another live session's work in flight is refused, naming the session,
//!   where it works and the files; claimed on purpose, the session is told ([`for_claim`]);
//! - a write in one checkout of a file another live session has in flight in another (a
//!   merge both will have to read) is a warning the agent sees ([`elsewhere`]);
//! - a stale or ended session's work is named, never blocking, so it can be rescued.

use std::collections::BTreeMap;

use chrono::TimeDelta;
use serde::{Deserialize, Serialize};

use crate::text::glob;
use crate::text::ident::acts_for;
use crate::text::time::{format_duration, Time};

/// How many files of one session's work a message names (the rest are counted).
pub const NAMED_FILES: usize = 5;
/// How many sessions' work one message names (the rest are counted).
pub const NAMED_SESSIONS: usize = 4;

/// Whether a session's work in flight still counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum FlightStanding {
    /// Its agent was seen within the lease: its files are not to be written over.
    Live,
    /// Its agent has not been seen for a lease: named, so it can be rescued, not blocking.
    Stale,
    /// Its agent's session ended: named, not blocking.
    Ended,
}

/// What kind of work in flight a file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum WorkKind {
    /// Its agent's tool calls wrote it in a checkout several sessions share; not committed.
    Written,
    /// Changed and not committed in its station (git's status there).
    Uncommitted,
    /// Committed on its branch and not in the base branch yet.
    Unmerged,
}

impl WorkKind {
    pub fn as_str(self) -> &'static str {
        match self {
            WorkKind::Written => "uncommitted, written by its agent",
            WorkKind::Uncommitted => "uncommitted",
            WorkKind::Unmerged => "committed, not merged",
        }
    }
}

/// One file of one session's work in flight, as the host found it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct InFlight {
    /// Repo-relative, `/`-separated.
    pub path: String,
    pub session: String,
    /// The checkout it is in (its absolute path).
    pub checkout: String,
    /// The branch of the station it is in, when the checkout is a station of its own
    /// (`None`: the main checkout, shared).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub station: Option<String>,
    pub kind: WorkKind,
    /// When it was written (the write, the file's change, the commit).
    #[serde(with = "crate::text::serde_time")]
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub at: Time,
    pub standing: FlightStanding,
    /// The machine it is on, when another machine's (a shared rail).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub machine: Option<String>,
}

/// How a session's work in flight stands `now`: ended when its session ended after the work
/// (`ended`); live when it holds a live claim (`claim_live`), or its agent's last hook call
/// (`last_seen`) or the work itself (`at`) is within `lease`; else stale. Work nobody can vouch
/// for is live until a lease has passed since it was last touched: a wrong "stale" lets a
/// claim or a write lose it, a wrong "live" only asks for `--over-flight`.
pub fn standing(
    ended: Option<Time>,
    at: Time,
    last_seen: Option<Time>,
    claim_live: bool,
    now: Time,
    lease: TimeDelta,
) -> FlightStanding {
    if ended.is_some_and(|end| end >= at) {
        return FlightStanding::Ended;
    }
    let last = last_seen.map_or(at, |seen| seen.max(at));
    if claim_live || now - last <= lease {
        FlightStanding::Live
    } else {
        FlightStanding::Stale
    }
}

/// Whether `pattern` (a claim's path, a directory, a glob, a file; a tool call's target)
/// covers `path`: the path itself, a directory above it, or a pattern matching it.
pub fn covers(pattern: &str, path: &str) -> bool {
    let t = crate::model::scope::normalize_path(pattern);
    if t == "**" || t.is_empty() || t == "." {
        return true;
    }
    if glob::is_literal(&t) {
        path == t
            || path
                .strip_prefix(t.as_str())
                .is_some_and(|r| r.starts_with('/'))
    } else {
        glob::covers(&t, path)
    }
}

/// Others' work in flight under `patterns`: work of sessions `actor` does not act for either way
/// ([`acts_for`]: an agent and its branch, a subagent and its lead are one) and every other
/// machine's, sorted by session,
/// checkout and path, each once.
pub fn under<'a>(actor: &str, patterns: &[String], work: &'a [InFlight]) -> Vec<&'a InFlight> {
    let mut out: Vec<&InFlight> = covered(patterns, work)
        .into_iter()
        // Another machine's work is always another's: no session here acts for it (a claim
        // of another machine is that machine's, whatever its session is called).
        .filter(|w| {
            w.machine.is_some() || (!acts_for(actor, &w.session) && !acts_for(&w.session, actor))
        })
        .collect();
    out.dedup_by(|a, b| a.session == b.session && a.checkout == b.checkout && a.path == b.path);
    out
}

/// Where a session's work is, in words: `in its station /x/beta (branch beta)`, `in the
/// shared checkout /x/repo`, `on machine m`.
fn place(w: &InFlight) -> String {
    let at = match &w.station {
        Some(branch) => format!("in its station {} (branch {branch})", w.checkout),
        None => format!("in the shared checkout {}", w.checkout),
    };
    match &w.machine {
        Some(m) => format!("{at} on machine {m}"),
        None => at,
    }
}

/// `items` in words, grouped by session and place: `beta in its station /x (branch beta):
/// src/a.ts (uncommitted, 3m ago), …and 4 more`; at most [`NAMED_SESSIONS`] groups and
/// [`NAMED_FILES`] files each, the rest counted.
pub fn describe(items: &[&InFlight], now: Time) -> String {
    let mut groups: BTreeMap<(String, String), Vec<&InFlight>> = BTreeMap::new();
    for w in items {
        groups
            .entry((w.session.clone(), place(w)))
            .or_default()
            .push(w);
    }
    let mut parts = Vec::new();
    for ((session, place), files) in groups.iter().take(NAMED_SESSIONS) {
        let mut named: Vec<String> = files
            .iter()
            .take(NAMED_FILES)
            .map(|w| {
                let age = format_duration((now - w.at).max(TimeDelta::zero()));
                let why = match w.standing {
                    FlightStanding::Live => String::new(),
                    FlightStanding::Stale => ", its session not seen for a lease".to_string(),
                    FlightStanding::Ended => ", its session ended".to_string(),
                };
                format!("{} ({}, {age} ago{why})", w.path, w.kind.as_str())
            })
            .collect();
        if files.len() > NAMED_FILES {
            named.push(format!("and {} more", files.len() - NAMED_FILES));
        }
        parts.push(format!("{session} {place}: {}", named.join(", ")));
    }
    if groups.len() > NAMED_SESSIONS {
        parts.push(format!(
            "and {} more sessions' work",
            groups.len() - NAMED_SESSIONS
        ));
    }
    parts.join("; ")
}

/// The first line of the block a machine's shared marks text carries its work in flight in
/// (the guard marks' parser passes over it: no key, no mark).
pub const SHARED_HEAD: &str = "in-flight";
/// The most files in flight one machine shares (its newest), and the longest path shared.
pub const MAX_SHARED_FILES: usize = 256;
pub const MAX_SHARED_PATH: usize = 1024;

/// One file of a machine's work in flight as shared: paths only, never content.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct SharedFile {
    session: String,
    path: String,
    kind: WorkKind,
    #[serde(with = "crate::text::serde_time")]
    at: Time,
    checkout: String,
    #[serde(default)]
    station: Option<String>,
}

/// A plain repo-relative path of at most [`MAX_SHARED_PATH`] bytes, no control character.
fn shareable(path: &str) -> bool {
    !path.is_empty()
        && path.len() <= MAX_SHARED_PATH
        && !path.starts_with('/')
        && !path.chars().any(char::is_control)
        && path
            .split('/')
            .all(|s| !s.is_empty() && s != "." && s != "..")
}

/// This machine's work in flight as the block its shared marks text ends with: [`SHARED_HEAD`]
/// then one JSON line (session, path, kind, time, checkout, station of each file; the newest
/// [`MAX_SHARED_FILES`]); empty when there is none. Another machine's work is never passed on.
pub fn render_shared(work: &[InFlight]) -> String {
    let mut own: Vec<&InFlight> = work
        .iter()
        .filter(|w| w.machine.is_none() && shareable(&w.path))
        .collect();
    if own.is_empty() {
        return String::new();
    }
    crate::text::sort::sort_by(&mut own, |a, b| b.at.cmp(&a.at).then(a.path.cmp(&b.path)));
    let files: Vec<SharedFile> = own
        .iter()
        .take(MAX_SHARED_FILES)
        .map(|w| SharedFile {
            session: w.session.clone(),
            path: w.path.clone(),
            kind: w.kind,
            at: w.at,
            checkout: w.checkout.chars().take(MAX_SHARED_PATH).collect(),
            station: w.station.clone(),
        })
        .collect();
    format!(
        "\n{SHARED_HEAD}\n{}\n",
        serde_json::to_string(&files).unwrap_or_default()
    )
}

/// The work in flight a machine's shared text carries ([`render_shared`]), each file with
/// `machine` set and judged `Live` (the host judges its standing by the shared guard marks and
/// its age); damaged or oversized entries are dropped, past [`MAX_SHARED_FILES`] none read.
pub fn parse_shared(machine: &str, text: &str) -> Vec<InFlight> {
    let Some(block) = text
        .split("\n\n")
        .map(|b| b.trim_start_matches('\n'))
        .find(|b| b.starts_with(SHARED_HEAD) && b[SHARED_HEAD.len()..].starts_with('\n'))
    else {
        return Vec::new();
    };
    let json = block[SHARED_HEAD.len()..].trim();
    let Ok(files) = serde_json::from_str::<Vec<serde_json::Value>>(json) else {
        return Vec::new();
    };
    files
        .into_iter()
        .take(MAX_SHARED_FILES)
        .filter_map(|v| serde_json::from_value::<SharedFile>(v).ok())
        .filter(|f| shareable(&f.path) && f.checkout.len() <= MAX_SHARED_PATH)
        .filter(|f| !f.session.is_empty() && !f.session.chars().any(char::is_control))
        .map(|f| InFlight {
            path: f.path,
            session: f.session,
            checkout: f.checkout,
            station: f.station.filter(|b| !b.chars().any(char::is_control)),
            kind: f.kind,
            at: f.at,
            standing: FlightStanding::Live,
            machine: Some(machine.to_string()),
        })
        .collect()
}

/// The work-in-flight block of another machine's shared text as this machine keeps it beside
/// its marks: read with every limit ([`parse_shared`]), each time after `now` (this machine's
/// clock when it read them) set to `now`, written again ([`render_shared`]).
pub fn keep_shared(text: &str, now: Time) -> String {
    let work: Vec<InFlight> = parse_shared("", text)
        .into_iter()
        .map(|w| InFlight {
            machine: None,
            at: w.at.min(now),
            ..w
        })
        .collect();
    render_shared(&work)
}

/// Whether this machine's work in flight (`now`'s files) differs from what its last shared text
/// (`published`) carried: a file added or gone (a rewrite of the same file is not news).
pub fn worth_sharing(published: Option<&str>, now: &[InFlight]) -> bool {
    let key = |w: &InFlight| (w.session.clone(), w.path.clone());
    let was: std::collections::BTreeSet<_> = published
        .map(|t| parse_shared("", t).iter().map(key).collect())
        .unwrap_or_default();
    let mut own: Vec<&InFlight> = now.iter().filter(|w| shareable(&w.path)).collect();
    crate::text::sort::sort_by(&mut own, |a, b| b.at.cmp(&a.at).then(a.path.cmp(&b.path)));
    let is: std::collections::BTreeSet<_> =
        own.into_iter().take(MAX_SHARED_FILES).map(key).collect();
    was != is
}

/// One session's work in flight in one place, as the board shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FlightView {
    pub session: String,
    pub checkout: String,
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub station: Option<String>,
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub machine: Option<String>,
    /// The group's standing: live when any of its files is.
    pub standing: FlightStanding,
    /// Core's words for where it is: `in its station /x (branch beta)`.
    pub place: String,
    pub files: Vec<FlightFile>,
    /// How many more files than `files` lists ([`BOARD_FILES`]).
    pub files_unlisted: usize,
}

/// One file of a [`FlightView`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FlightFile {
    pub path: String,
    pub kind: WorkKind,
    /// Core's words for the kind: `uncommitted`, `committed, not merged`.
    pub kind_text: String,
    pub at: String,
    /// `3m ago`.
    pub age_text: String,
}

/// How many files of one session's work in one place the board lists.
pub const BOARD_FILES: usize = 50;

/// The board's view of `work`: one group per session and place, live ones first, each group's
/// files newest first.
pub fn views(work: &[InFlight], now: Time) -> Vec<FlightView> {
    let mut groups: BTreeMap<(String, String, Option<String>), Vec<&InFlight>> = BTreeMap::new();
    for w in work {
        groups
            .entry((w.session.clone(), w.checkout.clone(), w.machine.clone()))
            .or_default()
            .push(w);
    }
    let mut out: Vec<FlightView> = groups
        .into_values()
        .map(|mut files| {
            crate::text::sort::sort_by(&mut files, |a, b| {
                b.at.cmp(&a.at).then(a.path.cmp(&b.path))
            });
            let first = files[0];
            let standing = if files.iter().any(|w| w.standing == FlightStanding::Live) {
                FlightStanding::Live
            } else {
                first.standing
            };
            FlightView {
                session: first.session.clone(),
                checkout: first.checkout.clone(),
                station: first.station.clone(),
                machine: first.machine.clone(),
                standing,
                place: place(first),
                files_unlisted: files.len().saturating_sub(BOARD_FILES),
                files: files
                    .iter()
                    .take(BOARD_FILES)
                    .map(|w| FlightFile {
                        path: w.path.clone(),
                        kind: w.kind,
                        kind_text: w.kind.as_str().to_string(),
                        at: crate::text::time::format_time(w.at),
                        age_text: format!(
                            "{} ago",
                            format_duration((now - w.at).max(TimeDelta::zero()))
                        ),
                    })
                    .collect(),
            }
        })
        .collect();
    crate::text::sort::sort_by_key(&mut out, |v| {
        (v.standing != FlightStanding::Live, v.session.clone())
    });
    out
}

/// What a claim's paths find of others' work in flight.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Behind {
    /// Live sessions' work: refuses the claim unless claimed on purpose.
    pub live: Vec<InFlight>,
    /// Stale or ended sessions' work: named, never blocking.
    pub named: Vec<InFlight>,
}

impl Behind {
    /// The sessions to tell when the claim is made over their live work, each with its files.
    pub fn told(&self) -> BTreeMap<String, Vec<String>> {
        let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for w in &self.live {
            let files = out.entry(w.session.clone()).or_default();
            if !files.contains(&w.path) {
                files.push(w.path.clone());
            }
        }
        out
    }
}

/// `task`'s claim of `patterns` by `actor`, against the work in flight: the live and the
/// named work under its paths.
pub fn for_claim(actor: &str, patterns: &[String], work: &[InFlight]) -> Behind {
    let mut behind = Behind::default();
    for w in under(actor, patterns, work) {
        if w.standing == FlightStanding::Live {
            behind.live.push(w.clone());
        } else {
            behind.named.push(w.clone());
        }
    }
    behind
}

/// The refusal of a claim of `task` over live work in flight (`None`: nothing live under its
/// paths). `verb`: what was asked (`claim`, `update`, a station's claim).
pub fn refusal(task: &str, verb: &str, behind: &Behind, now: Time) -> Option<String> {
    if behind.live.is_empty() {
        return None;
    }
    let items: Vec<&InFlight> = behind.live.iter().collect();
    let sessions = behind.told();
    let whom = sessions.keys().cloned().collect::<Vec<_>>().join(", ");
    Some(format!(
        "{task}: refused: its paths cover work in flight of {whom}, not merged yet — {}. Claiming it would leave that change to be overwritten or merged over: ask {whom} to commit and hand it over, or {verb} on purpose with --over-flight ({whom} will be told)",
        describe(&items, now)
    ))
}

/// What a claim made over stale or ended sessions' work, or on purpose over live work, says
/// besides its result (`None`: nothing to say).
pub fn note(behind: &Behind, on_purpose: bool, now: Time) -> Option<String> {
    let mut parts = Vec::new();
    if on_purpose && !behind.live.is_empty() {
        let items: Vec<&InFlight> = behind.live.iter().collect();
        parts.push(format!(
            "claimed over work in flight, on purpose: {} (told)",
            describe(&items, now)
        ));
    }
    if !behind.named.is_empty() {
        let items: Vec<&InFlight> = behind.named.iter().collect();
        parts.push(format!(
            "work in flight under its paths, not blocking: {} — rescue it before changing those files",
            describe(&items, now)
        ));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// A write by `actor` in `checkout` of `targets` (repo-relative), against other sessions' work
/// in flight in OTHER checkouts (their stations): the live work it lands on, for a warning the
/// agent sees before its edit — a merge both will have to read. (In the same checkout the
/// write is denied: `agent::flight`.)
pub fn elsewhere<'a>(
    actor: &str,
    checkout: &str,
    targets: &[String],
    work: &'a [InFlight],
) -> Vec<&'a InFlight> {
    under(actor, targets, work)
        .into_iter()
        .filter(|w| w.checkout != checkout && w.standing == FlightStanding::Live)
        .collect()
}

/// Who makes a commit, as far as its process can tell (the pre-commit hook runs in the
/// committer's environment).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Committer<'a> {
    /// A session by name: one given (`--session`, `RAIL_SESSION`), an agent whose shells name
    /// the session its hooks act as (Claude Code, Codex), or a branch's session where no agent's
    /// variables are set (a person, who answers for the branch's agents).
    Session(&'a str),
    /// An agent of kind `agent` on the branch's session `branch` whose shell does not name the
    /// session its hooks act as: Gemini CLI's (`GEMINI_CLI=1`, no id), Copilot CLI's (`id`:
    /// its lead's session id, or a subagent's that no hook names).
    Agent {
        branch: &'a str,
        agent: &'a str,
        id: Option<&'a str>,
    },
}

/// What a commit's staged files take of other sessions' work in flight in its checkout.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Sweep<'a> {
    /// Other live sessions' uncommitted writes: the commit is refused.
    pub swept: Vec<&'a InFlight>,
    /// Live agents' uncommitted writes the committer answers for or cannot be told from (a
    /// person's commit on the branch of agents at work; one of two Gemini sessions, whose
    /// shells carry no id): committed, and named in a warning.
    pub unsure: Vec<&'a InFlight>,
}

/// A commit by `committer` in `checkout` of `staged` files (repo-relative), against other
/// sessions' work in flight there: another agent's uncommitted writes recorded in the same
/// checkout, which the commit would take under the wrong session. (What `git status` lists in a
/// station is the station's own work, whoever commits it.)
///
/// An agent committing is at work, so the writes of a session no longer live (ended, or not
/// seen for a lease) are not its own either: it is refused them too — they are rescued on
/// purpose, by a person, not swept into an agent's commit. A person (the branch's session, no
/// agent's variables) answers for the branch's agents and may rescue anyone's: committed,
/// named.
///
/// An agent whose shell does not say which session it is ([`Committer::Agent`]) is still known
/// by its kind: a Gemini shell's `git add -A` takes Claude Code's writes, never its own. Among
/// live sessions of its own kind it is the one its id names, else the only one at work in the
/// checkout; with several and no id, it cannot be told from its siblings, and their writes are
/// [`Sweep::unsure`], named rather than refused (the commit may be the writer's own).
pub fn swept<'a>(
    committer: Committer<'_>,
    checkout: &str,
    staged: &[String],
    work: &'a [InFlight],
) -> Sweep<'a> {
    use crate::text::ident::{agent_of_session, agent_top, is_above, AgentSelf};
    let here = |w: &&InFlight| {
        w.kind == WorkKind::Written && w.checkout == checkout && w.machine.is_none()
    };
    let live = |w: &InFlight| w.standing == FlightStanding::Live;
    let mut out = Sweep::default();
    let (branch, agent, id) = match committer {
        Committer::Session(actor) => {
            let person = agent_of_session(actor).is_none();
            for w in under(actor, staged, work).into_iter().filter(here) {
                if live(w) || !person {
                    out.swept.push(w);
                } else {
                    out.unsure.push(w);
                }
            }
            // A branch's session answers for its agents: their work is committed on its say,
            // and named.
            if person {
                out.unsure.extend(
                    covered(staged, work)
                        .into_iter()
                        .filter(here)
                        .filter(|w| is_above(actor, &w.session)),
                );
            }
            return out;
        }
        Committer::Agent { branch, agent, id } => (branch, agent, id),
    };
    let at_work: Vec<&InFlight> = work.iter().filter(here).filter(|w| live(w)).collect();
    let mine = id.map(|id| {
        AgentSelf {
            agent,
            id,
            sub: None,
        }
        .session_under(branch)
    });
    // The id names a session at work here: the committer is known exactly.
    let known = mine
        .as_deref()
        .filter(|m| at_work.iter().any(|w| agent_top(&w.session) == Some(*m)));
    let kin: std::collections::BTreeSet<&str> = at_work
        .iter()
        .filter(|w| agent_of_session(&w.session) == Some(agent))
        .filter_map(|w| agent_top(&w.session))
        .collect();
    for w in covered(staged, work).into_iter().filter(here) {
        if w.session != branch && !is_above(branch, &w.session) {
            // Another branch's or an explicitly named session, in this checkout (a branch's
            // session has none above it: nothing else acts for it either way).
            out.swept.push(w);
            continue;
        }
        if w.session == branch {
            // The branch's own writes (an agent that named no session): every agent's to commit.
            continue;
        }
        if agent_of_session(&w.session) != Some(agent) || !live(w) {
            out.swept.push(w);
            continue;
        }
        match known {
            Some(me) if agent_top(&w.session) == Some(me) => {}
            Some(_) => out.swept.push(w),
            None if kin.len() <= 1 => {}
            None => out.unsure.push(w),
        }
    }
    out.swept
        .dedup_by(|a, b| a.session == b.session && a.path == b.path);
    out.unsure
        .dedup_by(|a, b| a.session == b.session && a.path == b.path);
    out
}

/// The work in flight on any of `patterns`, sorted by session, checkout, path and kind (the
/// order every list of it is named in).
fn covered<'a>(patterns: &[String], work: &'a [InFlight]) -> Vec<&'a InFlight> {
    let mut all: Vec<&InFlight> = work
        .iter()
        .filter(|w| patterns.iter().any(|p| covers(p, &w.path)))
        .collect();
    crate::text::sort::sort_by(&mut all, |a, b| {
        (&a.session, &a.checkout, &a.path, a.kind).cmp(&(&b.session, &b.checkout, &b.path, b.kind))
    });
    all
}

/// The warning for [`elsewhere`]'s work.
pub fn warning(items: &[&InFlight], now: Time) -> Option<String> {
    if items.is_empty() {
        return None;
    }
    let whom: Vec<String> = {
        let mut s: Vec<String> = items.iter().map(|w| w.session.clone()).collect();
        s.dedup();
        s
    };
    Some(format!(
        "Rail: Behind! this file is also in flight elsewhere — {}. Both changes will meet in a merge: coordinate with {} (`rail who FILE`), or leave the file to them",
        describe(items, now),
        whom.join(", ")
    ))
}

#[cfg(test)]
mod tests;
