//! The board: one serializable view of the whole rail at one moment.
//!
//! `rail board --json`, the VS Code extension and the web board all show this model; none of
//! them recomputes a state, a conflict or a lease. Field names are stable and documented in
//! docs/format.md ("The board model").

use std::collections::BTreeMap;

use serde::Serialize;

use crate::formats::log::LogEntry;
use crate::formats::markdown;
use crate::model::backlog::{self, Blocked};
use crate::model::conflict::{self, Conflict, ConflictKind};
use crate::model::input::{Facts, RailTexts};
use crate::model::lease::{Activity, LeaseState};
use crate::model::verification;
use crate::model::{Claim, Evaluation, Origin, Rail};
use crate::text::diagnostic::{Code, Diagnostic, Located, Severity};
use crate::text::ident::resource_key;
use crate::text::time::{format_duration, format_time, Time};
use crate::text::{LineIndex, Span};

/// Version of the board JSON; bumped on incompatible changes.
pub const BOARD_VERSION: u32 = 2;

/// How many log entries the board carries (newest first).
pub const DEFAULT_LOG_LIMIT: usize = 50;

#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Board {
    pub version: u32,
    pub now: String,
    pub settings: Settings,
    pub summary: Summary,
    pub claims: Vec<BoardClaim>,
    pub released: Vec<BoardReleased>,
    pub conflicts: Vec<Conflict>,
    pub blocked: Vec<Blocked>,
    /// The backlog (`- [ ] task` lines of claims.md) and where each task stands.
    pub planned: Vec<backlog::PlannedView>,
    pub resources: Vec<ResourceUse>,
    pub sessions: Vec<SessionView>,
    /// Each session's work in flight (files changed, not merged), when the host gathered it.
    pub in_flight: Vec<crate::model::behind::FlightView>,
    pub diagnostics: Vec<Located>,
    pub log: Vec<LogEntry>,
    /// A shared rail: whether its state is proven, in core's words (every host shows `text`,
    /// as a warning when `warning`), and the machine the board was judged on. Left out for a
    /// local rail.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub shared: Option<crate::model::verification::SharedView>,
}

#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Settings {
    pub lease_secs: i64,
    pub expiring_secs: i64,
}

#[derive(Clone, Debug, Default, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Summary {
    pub claims: usize,
    pub live: usize,
    pub expiring: usize,
    pub stale: usize,
    pub blocked: usize,
    pub conflicts: usize,
    /// Overlapping pattern pairs with no conflict of their own (each pattern already has eight,
    /// `conflict::LISTED_PER_PATTERN`): their claims are in other conflicts. Present only when
    /// there are some.
    #[serde(skip_serializing_if = "crate::model::is_zero")]
    #[cfg_attr(feature = "ts", ts(as = "Option<usize>", optional))]
    pub overlaps_unlisted: usize,
    pub errors: usize,
    pub warnings: usize,
}

/// The board column a claim is shown in. A blocked claim is under `Blocked` whatever its
/// lease says: a stale claim that waits for another task is not work anyone can start, so it
/// is not offered as free to take (it can still be taken over; `takeable` says so).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Column {
    Live,
    Expiring,
    Stale,
    Blocked,
}

impl Column {
    /// The column of a claim in `state`, blocked or not.
    pub fn of(state: LeaseState, blocked: bool) -> Column {
        match (blocked, state) {
            (true, _) => Column::Blocked,
            (false, LeaseState::Live) => Column::Live,
            (false, LeaseState::Expiring) => Column::Expiring,
            (false, LeaseState::Stale) => Column::Stale,
        }
    }

    /// Every column, in the order boards show them.
    pub const ALL: [Column; 4] = [
        Column::Live,
        Column::Expiring,
        Column::Stale,
        Column::Blocked,
    ];
}

/// One claim on the board. A field that is `None` or an empty list is left out of the JSON
/// (readers take a missing field as `null` or `[]`): most claims have no renewal, purpose, pid,
/// blocker, conflict or resource, and on a board of 10,000 claims leaving them out makes the
/// JSON a fifth smaller and the wasm `board()` in Node (which builds a JS value of every field)
/// about 10% faster.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BoardClaim {
    pub id: usize,
    /// Left out for a claim file that claims paths and resources but no task.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub task: Option<String>,
    pub session: String,
    pub branch: String,
    /// On a shared rail, the machine whose session made the claim: only it renews, updates or
    /// releases it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub machine: Option<String>,
    /// Made on another machine than the one the board was judged on (when it says which it
    /// is): no session of this machine acts for it, whatever its name. Left out when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(feature = "ts", ts(as = "Option<bool>", optional))]
    pub elsewhere: bool,
    /// `machine` as every board shows it: `laptop-3f2a… (this machine)`, `… (another
    /// machine's: only it changes this claim)`, or the id alone where the host does not say
    /// which machine it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub machine_text: Option<String>,
    /// Where it is written: `claims.md` or `claims/<owner>.yaml`, one-based line.
    pub file: String,
    pub line: u32,
    /// A claim file that adds paths or resources to this claims.md line.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub also: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub claimed_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub renewed_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub last_commit_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub lease_start: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub lease_end: Option<String>,
    pub lease_secs: i64,
    /// Negative once the lease ran out; left out when no time is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub lease_left_secs: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub lease_left_text: Option<String>,
    /// The lease for people: `1h12m left`, `ran out 2h ago`, `stale: owner gone`,
    /// `ran out 5m ago; owner alive`, `no time known`.
    pub lease_text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub age_secs: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub age_text: Option<String>,
    pub state: LeaseState,
    pub activity: Activity,
    pub reason: String,
    /// False for a duplicate claim that lost to an earlier one.
    pub holds: bool,
    pub blocked: bool,
    /// Where every board shows it (decided here, once): see [`Column`].
    pub column: Column,
    /// Whether `rail take` would take this claim for any session but its own: a stale claim of
    /// a task that holds its task (not a duplicate that lost).
    pub takeable: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<String>>", optional))]
    pub blocked_by: Vec<String>,
    /// Indexes into `conflicts`: the first four conflicts the claim is in.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<usize>>", optional))]
    pub conflicts: Vec<usize>,
    /// How many more conflicts the claim is in than `conflicts` lists.
    #[serde(skip_serializing_if = "crate::model::is_zero")]
    #[cfg_attr(feature = "ts", ts(as = "Option<usize>", optional))]
    pub conflicts_unlisted: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<String>>", optional))]
    pub paths: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<String>>", optional))]
    pub resources: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<String>>", optional))]
    pub after: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub purpose: Option<String>,
    /// `purpose` rendered from markdown; safe to insert as HTML.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub purpose_html: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub pid: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BoardReleased {
    pub task: Option<String>,
    pub session: String,
    pub file: String,
    pub released_at: String,
    pub touched: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ResourceHolder {
    pub claim: usize,
    pub session: String,
    pub task: Option<String>,
    pub shared: bool,
    pub state: LeaseState,
}

#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ResourceUse {
    /// Without the `shared:` prefix, e.g. `port:3000`.
    pub name: String,
    /// The part before the first `:` (`port`, `simulator`, `checkout`), or `""`.
    pub kind: String,
    pub holders: Vec<ResourceHolder>,
    /// Two holding sessions and at least one exclusive holder.
    pub clash: bool,
}

#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SessionView {
    pub name: String,
    pub branch: String,
    pub worktree: Option<String>,
    pub last_commit_at: Option<String>,
    pub claims: Vec<usize>,
    pub live: usize,
    pub expiring: usize,
    pub stale: usize,
    /// The agent whose Rail hook was last seen for this session, and when (`None`: never).
    pub hook: Option<SessionHook>,
    /// Holds claims that hold (live or expiring) and no Rail hook was seen for it since it
    /// made them ([`MARK_VOUCHES`] of slack): its agent works unguarded, or it works outside
    /// any agent. A mark speaks for the claims it could have seen, not for claims made long
    /// after it (a hook call 14 days ago vouched for every later claim of that name).
    pub unguarded: bool,
    /// Core's words for the guard status, for every host to show as they are: `guarded: claude
    /// 3m ago`, `Rail hook last seen 14d ago, before its claims: …`, `no Rail hook seen…`; empty
    /// for a session that holds nothing and was never seen.
    pub guard_text: String,
}

pub use super::guard::MARK_VOUCHES;

/// A session's last Rail hook call, as the board shows it.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SessionHook {
    pub agent: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub version: Option<String>,
    pub seen_at: String,
    /// "3m ago"; "just now" under a minute (and for a time after now).
    pub seen_text: String,
    /// The machine it was seen on, when another machine shared it (a shared rail).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub host: Option<String>,
}

fn time_str(t: Option<Time>) -> Option<String> {
    t.map(format_time)
}

/// Builds the board from the rail's texts and the host's facts.
pub fn build(texts: &RailTexts, facts: &Facts) -> Board {
    let rail = Rail::load(texts);
    build_from(&rail, facts, DEFAULT_LOG_LIMIT)
}

pub fn build_from(rail: &Rail, facts: &Facts, log_limit: usize) -> Board {
    let eval = rail.evaluate(facts);
    let mut conflicts = conflict::detect(&eval);
    let blocked = backlog::blocked(&eval, rail.log());
    let planned = backlog::backlog(&eval, rail.log(), None);
    let now = facts.now;

    // Per claim id: its conflicts, whether it lost a duplicate, what it waits for.
    let n = eval.claims.len();
    let mut claim_conflicts = std::mem::take(&mut conflicts.of_claim);
    claim_conflicts.resize_with(n, Default::default);
    let loser = conflict::losers(&eval.claims);
    let mut blocked_by: Vec<Option<Vec<String>>> = vec![None; n];
    for b in &blocked {
        if let Some(slot) = blocked_by.get_mut(b.claim) {
            *slot = Some(b.waiting_for.iter().map(|w| w.task.clone()).collect());
        }
    }

    let released = eval
        .released
        .iter()
        .map(|r| BoardReleased {
            task: r.task.clone(),
            session: r.session.clone(),
            file: r.file.clone(),
            released_at: format_time(r.released_at),
            touched: r.touched.clone(),
        })
        .collect();

    let resources = resources(&eval);
    let sessions = sessions(&eval, facts);
    let mut diagnostics = rail.diagnostics();
    diagnostics.extend(semantic_diagnostics(
        rail,
        &eval,
        &conflicts.list,
        &claim_conflicts,
        &blocked,
        facts.now,
    ));

    // Last: the claims' strings move into the board instead of being copied.
    let claims: Vec<BoardClaim> = eval
        .claims
        .into_iter()
        .map(|c| {
            let age = c.age(now);
            let reason = c.lease_reason();
            let lease = c.lease_state;
            let purpose_html = c.purpose.as_deref().map(markdown::render);
            let blocked = blocked_by[c.id].is_some();
            let holds = !loser[c.id];
            let takeable = holds && lease.state == LeaseState::Stale && c.task.is_some();
            let elsewhere =
                !crate::text::ident::on_machine(c.machine.as_deref(), facts.machine.as_deref());
            let machine_text = (c.machine.as_deref())
                .map(|m| verification::machine_text(m, facts.machine.as_deref()));
            BoardClaim {
                id: c.id,
                task: c.task,
                session: c.session,
                branch: c.branch,
                machine: c.machine,
                elsewhere,
                machine_text,
                file: c.file,
                line: c.line,
                also: c.also,
                claimed_at: time_str(c.claimed_at),
                renewed_at: time_str(c.renewed_at),
                last_commit_at: time_str(c.last_commit_at),
                lease_start: time_str(lease.start),
                lease_end: time_str(lease.end),
                lease_secs: c.lease.num_seconds(),
                lease_left_secs: lease.left.map(|d| d.num_seconds()),
                lease_left_text: lease.left.map(format_duration),
                lease_text: crate::model::lease::phrase(lease.left, lease.state),
                age_secs: age.map(|d| d.num_seconds()),
                age_text: age.map(format_duration),
                state: lease.state,
                activity: lease.activity,
                reason,
                holds,
                blocked,
                column: Column::of(lease.state, blocked),
                takeable,
                blocked_by: blocked_by[c.id].take().unwrap_or_default(),
                conflicts: std::mem::take(&mut claim_conflicts[c.id].listed),
                conflicts_unlisted: claim_conflicts[c.id].unlisted,
                paths: c.paths,
                resources: c.resources,
                after: c.after,
                purpose: c.purpose,
                purpose_html,
                pid: c.pid,
            }
        })
        .collect();

    // The newest entries by time (a log merged from several machines is not in time order).
    let mut newest: Vec<&LogEntry> = rail.log().entries.iter().collect();
    crate::text::sort::sort_by(&mut newest, |a, b| {
        b.time.cmp(&a.time).then(b.line.cmp(&a.line))
    });
    let log: Vec<LogEntry> = newest.into_iter().take(log_limit).cloned().collect();

    let mut summary = Summary {
        claims: claims.len(),
        blocked: blocked.len(),
        conflicts: conflicts.list.len(),
        overlaps_unlisted: conflicts.overlaps_unlisted,
        ..Summary::default()
    };
    for c in &claims {
        match c.state {
            LeaseState::Live => summary.live += 1,
            LeaseState::Expiring => summary.expiring += 1,
            LeaseState::Stale => summary.stale += 1,
        }
    }
    for d in &diagnostics {
        match d.severity {
            Severity::Error => summary.errors += 1,
            Severity::Warning => summary.warnings += 1,
            Severity::Info => {}
        }
    }

    Board {
        version: BOARD_VERSION,
        now: format_time(now),
        settings: Settings {
            lease_secs: rail.config.lease.num_seconds(),
            expiring_secs: rail.config.expiring.num_seconds(),
        },
        summary,
        claims,
        released,
        conflicts: conflicts.list,
        blocked,
        planned,
        resources,
        sessions,
        in_flight: crate::model::behind::views(&facts.in_flight, now),
        diagnostics,
        log,
        shared: (facts.shared.as_ref()).map(|f| verification::judge(f, facts.machine.as_deref())),
    }
}

fn resources(eval: &Evaluation) -> Vec<ResourceUse> {
    let mut by_name: BTreeMap<String, Vec<ResourceHolder>> = BTreeMap::new();
    // A claim that lost its task to another claim of it holds no resource.
    let lost = conflict::losers(&eval.claims);
    for claim in (eval.claims.iter()).filter(|c| !lost.get(c.id).copied().unwrap_or(false)) {
        for r in &claim.resources {
            let (name, shared) = resource_key(r);
            by_name
                .entry(name.to_string())
                .or_default()
                .push(ResourceHolder {
                    claim: claim.id,
                    session: claim.session.clone(),
                    task: claim.task.clone(),
                    shared,
                    state: claim.state(),
                });
        }
    }
    by_name
        .into_iter()
        .map(|(name, holders)| {
            let holding: Vec<&ResourceHolder> =
                holders.iter().filter(|h| h.state.holds()).collect();
            let mut sessions: Vec<&str> = holding.iter().map(|h| h.session.as_str()).collect();
            crate::text::sort::sort_by(&mut sessions, |a, b| a.cmp(b));
            sessions.dedup();
            let clash = sessions.len() > 1 && holding.iter().any(|h| !h.shared);
            ResourceUse {
                kind: name
                    .split_once(':')
                    .map(|(k, _)| k.to_string())
                    .unwrap_or_default(),
                name,
                holders,
                clash,
            }
        })
        .collect()
}

fn sessions(eval: &Evaluation, facts: &Facts) -> Vec<SessionView> {
    let mut by_name: BTreeMap<String, SessionView> = BTreeMap::new();
    // Each session's newest claim that holds (live or expiring), by its claim time.
    let mut newest_holding: BTreeMap<String, Time> = BTreeMap::new();
    for claim in &eval.claims {
        let view = by_name
            .entry(claim.session.clone())
            .or_insert_with(|| SessionView {
                name: claim.session.clone(),
                branch: claim.branch.clone(),
                worktree: None,
                last_commit_at: time_str(claim.last_commit_at),
                claims: Vec::new(),
                live: 0,
                expiring: 0,
                stale: 0,
                hook: None,
                unguarded: false,
                guard_text: String::new(),
            });
        view.claims.push(claim.id);
        if claim.state() != LeaseState::Stale {
            if let Some(at) = claim.claimed_at {
                let newest = newest_holding.entry(claim.session.clone()).or_insert(at);
                *newest = (*newest).max(at);
            }
        }
        match claim.state() {
            LeaseState::Live => view.live += 1,
            LeaseState::Expiring => view.expiring += 1,
            LeaseState::Stale => view.stale += 1,
        }
    }
    for wt in &facts.worktrees {
        let Some(branch) = &wt.branch else { continue };
        match by_name.values_mut().find(|v| &v.branch == branch) {
            Some(view) => view.worktree = Some(wt.path.clone()),
            None => {
                by_name.insert(
                    branch.clone(),
                    SessionView {
                        name: branch.clone(),
                        branch: branch.clone(),
                        worktree: Some(wt.path.clone()),
                        last_commit_at: time_str(facts.last_commit(branch)),
                        claims: Vec::new(),
                        live: 0,
                        expiring: 0,
                        stale: 0,
                        hook: None,
                        unguarded: false,
                        guard_text: String::new(),
                    },
                );
            }
        }
    }
    for view in by_name.values_mut() {
        let newest = newest_holding.get(&view.name).copied();
        super::guard::judge(view, facts, newest);
    }
    by_name.into_values().collect()
}

/// Conflicts and blocks as diagnostics on the lines involved, for Problems panels and
/// `rail validate`.
fn semantic_diagnostics(
    rail: &Rail,
    eval: &Evaluation,
    conflicts: &[Conflict],
    of_claim: &[conflict::ClaimConflicts],
    blocked: &[Blocked],
    now: Time,
) -> Vec<Located> {
    // Claim files are small, but a file with many conflicts would be indexed once per
    // diagnostic: index each at most once.
    let mut file_index: Vec<Option<LineIndex>> = vec![None; rail.files.len()];
    let mut locate = |claim: &Claim, d: Diagnostic| -> Located {
        match claim.origin {
            Origin::Line(_) => d.locate(&rail.claims_path, rail.claims.text(), &rail.claims_index),
            Origin::File(i) => {
                let file = &rail.files[i];
                let index = file_index[i].get_or_insert_with(|| LineIndex::new(file.text()));
                d.locate(&file.path, file.text(), index)
            }
        }
    };
    // A diagnostic on each claim for each conflict it lists (the last one saying how many more
    // it is in): as many as the claims, however many pairs of them clash. In the order of the
    // conflicts, each one's claims as it lists them.
    let mut conflicted: Vec<(usize, usize, &Claim, Diagnostic)> = Vec::new();
    for claim in &eval.claims {
        let Some(mine) = of_claim.get(claim.id) else {
            continue;
        };
        for (k, &index) in mine.listed.iter().enumerate() {
            let conflict = &conflicts[index];
            let (code, severity) = match conflict.kind {
                ConflictKind::DuplicateTask => (Code::DuplicateClaim, Severity::Error),
                ConflictKind::PathOverlap => (Code::PathOverlap, Severity::Warning),
                ConflictKind::ResourceClash => (Code::ResourceClash, Severity::Warning),
            };
            let mut message = conflict.message.clone();
            if k + 1 == mine.listed.len() && mine.unlisted > 0 {
                message.push_str(&format!(
                    " (this claim is in {} more conflicts)",
                    mine.unlisted
                ));
            }
            let at = (conflict.claims.iter())
                .position(|id| *id == claim.id)
                .unwrap_or(conflict.claims.len() + claim.id);
            let d = Diagnostic {
                code,
                severity,
                span: claim.span,
                message,
            };
            conflicted.push((index, at, claim, d));
        }
    }
    crate::text::sort::sort_by(&mut conflicted, |a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    let mut out = Vec::new();
    for (_, _, claim, d) in conflicted {
        out.push(locate(claim, d));
    }
    for b in blocked {
        let claim = &eval.claims[b.claim];
        let d = Diagnostic {
            code: Code::Blocked,
            severity: Severity::Info,
            span: claim.span,
            message: b.message.clone(),
        };
        out.push(locate(claim, d));
    }
    for (claim, d) in super::lookalike::confusable_diagnostics(rail, eval) {
        out.push(locate(claim, d));
    }
    for claim in &eval.claims {
        if claim.claimed_at.is_none() && claim.renewed_at.is_none() {
            let d = Diagnostic::warning(
                Code::NoClaimTime,
                claim.span,
                "no claim time is known for this claim file; add `since:` so its lease can run out",
            );
            out.push(locate(claim, d));
        }
        for (time, span) in future_times(rail, claim, now) {
            let d = Diagnostic::warning(
                Code::FutureTime,
                span,
                format!(
                    "{} is after this machine's clock ({}); the lease counts from when this \
                     machine saw it, not from that time (is a clock wrong?)",
                    format_time(time),
                    format_time(now)
                ),
            );
            out.push(locate(claim, d));
        }
    }
    out
}

/// A claim's claim and renewal times that lie in the future as of `now`, each with the span of
/// the value that says it (issue 31 finding 6).
fn future_times(rail: &Rail, claim: &Claim, now: Time) -> Vec<(Time, Span)> {
    let mut out = Vec::new();
    let mut add = |time: Option<Time>, span: Option<Span>| {
        if let (Some(t), Some(span)) = (time, span) {
            if crate::model::lease::is_future(t, now) {
                out.push((t, span));
            }
        }
    };
    match claim.origin {
        Origin::Line(n) => {
            if let Some(crate::formats::claims_md::LineKind::Claim(c)) =
                rail.claims.lines.get(n).map(|l| &l.kind)
            {
                add(Some(c.time), Some(c.time_span));
                let renewed = c.fields.iter().find(|f| f.key == "renewed");
                add(c.renewed, renewed.map(|f| f.value_span));
            }
        }
        Origin::File(i) => {
            let file = &rail.files[i];
            let span = |key: &str| file.yaml.get(key).map(|e| e.value.span);
            add(file.since, span("since"));
            add(file.renewed, span("renewed"));
        }
    }
    out
}
