//! Work in flight gathered for claims, `rail who` and the board (issue 43, "Behind!"): each
//! session's files changed and not merged, as core's [`InFlight`] facts — the writes its agent's
//! tool calls recorded in any checkout and that are still uncommitted
//! ([`crate::agent::flight::recorded`]), and for each station what is uncommitted there and what
//! its branch committed since it forked from the base (two git processes per station, all
//! stations at once, limited to the folders asked about). Every rule is core's
//! ([`rail_core::model::behind`]): who counts, what blocks, what is said.

use rail_core::model::behind::{self, Behind, InFlight, WorkKind};
use rail_core::model::lease::LeaseState;
use rail_core::model::Evaluation;
use rail_core::text::ident::{acts_for, branch_session};
use rail_core::text::time::Time;

use crate::context::Ctx;
use crate::fail::Fail;
use crate::git::repo::Repo;
use crate::store::flight::recorded;
use crate::store::stations::{StationDir, StationFile};

/// When `session`, or an agent or branch acting with it, was last seen by a hook here.
fn last_seen(
    marks: &std::collections::BTreeMap<String, rail_core::formats::heartbeat::HookSeen>,
    session: &str,
) -> Option<Time> {
    marks
        .iter()
        .filter(|(k, _)| *k == session || acts_for(session, k) || acts_for(k, session))
        .map(|(_, seen)| seen.at)
        .max()
}

/// Whether `session` (or one acting with it) holds a claim that holds.
fn claim_live(eval: &Evaluation, session: &str) -> bool {
    eval.claims.iter().any(|c| {
        matches!(c.state(), LeaseState::Live | LeaseState::Expiring)
            && (c.session == session
                || acts_for(session, &c.session)
                || acts_for(&c.session, session))
    })
}

/// Every live, stale or ended session's work in flight under `patterns` (`**` for all), each
/// judged. Best effort: a station git cannot read is left out, and said on stderr.
pub fn gather(ctx: &Ctx, eval: &Evaluation, patterns: &[String]) -> Vec<InFlight> {
    let Some(repo) = &ctx.repo else {
        return Vec::new();
    };
    let marks = crate::store::heartbeat::read_all(repo);
    let lease = ctx.settings().lease;
    let now = ctx.now;
    let stations = crate::store::stations::stations(repo);
    let mut work: Vec<InFlight> = recorded(repo, patterns, None)
        .into_iter()
        .map(|(flight, entry)| InFlight {
            standing: behind::standing(
                flight.ended,
                entry.at,
                last_seen(&marks, &flight.session),
                claim_live(eval, &flight.session),
                now,
                lease,
            ),
            station: crate::store::stations::branch_at(&stations, &entry.checkout),
            path: entry.path,
            session: flight.session,
            checkout: entry.checkout,
            kind: WorkKind::Written,
            at: entry.at,
            machine: None,
        })
        .collect();
    // Other machines' work in flight, as their shared marks carried it (a shared rail).
    for (machine, text) in crate::store::heartbeat::shared_texts(repo) {
        for mut w in behind::parse_shared(&machine, &text) {
            if !patterns.iter().any(|p| behind::covers(p, &w.path)) {
                continue;
            }
            w.standing = behind::standing(
                None,
                w.at,
                last_seen(&marks, &w.session),
                claim_live(eval, &w.session),
                now,
                lease,
            );
            work.push(w);
        }
    }
    if !stations.is_empty() {
        let judge = Judge {
            ctx,
            eval,
            marks: &marks,
            patterns,
        };
        stations_work(&judge, repo, &stations, &mut work);
    }
    work
}

/// Other stations' files committed on their branch and not merged, under `targets`, each
/// named and judged as [`gather`] does — for a tool call, which has no time for a `git status`
/// per station: each station's list is kept for its HEAD ([`crate::store::stations::unmerged`]).
/// `stations`: the repository's, as the caller read them; `except`: the caller's own checkout.
pub fn stations_unmerged(
    ctx: &Ctx,
    eval: &Evaluation,
    repo: &Repo,
    stations: &[StationDir],
    except: &str,
    targets: &[String],
) -> Vec<InFlight> {
    if stations.is_empty() {
        return Vec::new();
    }
    let Some(base) =
        crate::store::stations::base_branch(repo, ctx.settings().stations.base.as_deref())
    else {
        return Vec::new();
    };
    let files: Vec<StationFile> =
        crate::store::stations::unmerged(repo, stations, &base, except, ctx.now)
            .into_iter()
            .filter(|f| targets.iter().any(|t| behind::covers(t, &f.path)))
            .collect();
    if files.is_empty() {
        return Vec::new();
    }
    let marks = crate::store::heartbeat::read_all(repo);
    let mut judge = StationJudge::new(ctx, eval, &marks);
    files.into_iter().map(|f| judge.judge(f)).collect()
}

/// Names and judges stations' files as work in flight: each under the session whose station it
/// is (its branch's claim holder, else the branch), that session's last hook call and live
/// claim asked once per branch.
struct StationJudge<'a> {
    ctx: &'a Ctx,
    eval: &'a Evaluation,
    marks: &'a std::collections::BTreeMap<String, rail_core::formats::heartbeat::HookSeen>,
    /// Per branch: its session, when it was last seen, whether its claim holds.
    branches: std::collections::BTreeMap<String, (String, Option<Time>, bool)>,
}

impl<'a> StationJudge<'a> {
    fn new(
        ctx: &'a Ctx,
        eval: &'a Evaluation,
        marks: &'a std::collections::BTreeMap<String, rail_core::formats::heartbeat::HookSeen>,
    ) -> Self {
        StationJudge {
            ctx,
            eval,
            marks,
            branches: std::collections::BTreeMap::new(),
        }
    }

    fn branch(&mut self, branch: &str) -> &(String, Option<Time>, bool) {
        let (eval, marks) = (self.eval, self.marks);
        self.branches.entry(branch.to_string()).or_insert_with(|| {
            let session = station_session(eval, branch);
            let seen = last_seen(marks, &session);
            let live = claim_live(eval, &session);
            (session, seen, live)
        })
    }

    /// The session whose station is on `branch`.
    fn session(&mut self, branch: &str) -> String {
        self.branch(branch).0.clone()
    }

    fn judge(&mut self, f: StationFile) -> InFlight {
        let (lease, now) = (self.ctx.settings().lease, self.ctx.now);
        let (session, seen, live_claim) = self.branch(&f.branch).clone();
        InFlight {
            standing: behind::standing(None, f.at, seen, live_claim, now, lease),
            session,
            path: f.path,
            checkout: f.checkout,
            station: Some(f.branch),
            kind: f.kind,
            at: f.at,
            machine: None,
        }
    }
}

/// What judging a station's work needs besides the station.
struct Judge<'a> {
    ctx: &'a Ctx,
    eval: &'a Evaluation,
    marks: &'a std::collections::BTreeMap<String, rail_core::formats::heartbeat::HookSeen>,
    patterns: &'a [String],
}

/// Each station's uncommitted and unmerged files under the patterns, added to `work` (those its
/// own agents' recorded writes name already left out), each under the session whose station it
/// is: its branch's claim holder, else the branch.
fn stations_work(
    judge: &Judge<'_>,
    repo: &Repo,
    stations: &[StationDir],
    work: &mut Vec<InFlight>,
) {
    let Judge {
        ctx,
        eval,
        marks,
        patterns,
    } = *judge;
    let base = crate::store::stations::base_branch(repo, ctx.settings().stations.base.as_deref());
    let roots = crate::store::stations::roots(patterns);
    let files = crate::store::stations::files(repo, stations, base.as_deref(), &roots, ctx.now);
    let recorded = work.len();
    let mut station = StationJudge::new(ctx, eval, marks);
    for f in files {
        if !patterns.iter().any(|p| behind::covers(p, &f.path)) {
            continue;
        }
        let session = station.session(&f.branch);
        // Written by one of the station's own agents: recorded already, under its name.
        let (known, _) = work.split_at(recorded);
        if known.iter().any(|w| {
            w.path == f.path
                && w.checkout == f.checkout
                && (acts_for(&w.session, &session) || acts_for(&session, &w.session))
        }) {
            continue;
        }
        work.push(station.judge(f));
    }
}

/// The session whose station is on `branch`: the branch's claim holder (a live one first),
/// else the branch.
fn station_session(eval: &Evaluation, branch: &str) -> String {
    eval.claims
        .iter()
        .filter(|c| c.branch == branch || branch_session(&c.session) == branch)
        .max_by_key(|c| matches!(c.state(), LeaseState::Live | LeaseState::Expiring))
        .map_or_else(|| branch.to_string(), |c| c.session.clone())
}

/// A claim (or update, or station) of `patterns` by `session` against the work in flight, on
/// the rail as judged (`eval`): refused (exit 1) over a live session's work unless
/// `on_purpose`; else what to say besides the claim's result and whom to tell. `verb`: the
/// command, for the refusal's words.
pub fn judge_claim(ctx: &Ctx, eval: &Evaluation, claim: &FlightCheck) -> Result<Behind, Fail> {
    if claim.patterns.is_empty() {
        return Ok(Behind::default());
    }
    let work = gather(ctx, eval, &claim.patterns);
    let found = behind::for_claim(&claim.session, &claim.patterns, &work);
    if !claim.on_purpose {
        if let Some(message) = behind::refusal(&claim.task, claim.verb, &found, ctx.now) {
            let json = serde_json::json!({ "ok": false, "in_flight": found });
            return Err(Fail::refused(message, Some(json)));
        }
    }
    Ok(found)
}

/// What a claim asks of the work in flight: whose claim, of what, how, and whether on purpose.
pub struct FlightCheck {
    pub session: String,
    pub task: String,
    pub verb: &'static str,
    pub patterns: Vec<String>,
    pub on_purpose: bool,
}

/// After a claim made over work in flight: says so on stderr, and tells each live session whose
/// work it is at its agent's next hook call (and its agents, when it is a branch).
pub fn claimed_over(ctx: &Ctx, holder: &str, task: &str, found: &Behind, on_purpose: bool) {
    if let Some(note) = behind::note(found, on_purpose, ctx.now) {
        errln!("rail: {task}: {note}");
    }
    if !on_purpose {
        return;
    }
    let Some(repo) = &ctx.repo else {
        return;
    };
    for (session, files) in found.told() {
        crate::store::notice::post_behind(repo, &session, holder, task, &files, false, ctx.now);
    }
}
