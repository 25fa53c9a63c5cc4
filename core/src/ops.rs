//! Operations as pure planners: claim, release, renew, take, update.
//!
//! Each takes the rail's texts, the facts, the acting session and the request, and returns
//! either a [`Plan`] — the minimal edits per file plus the log line to append — or a
//! [`Refusal`] that names the holder, the claim's age and the lease left. A refused operation
//! changes nothing. Hosts apply plans under the rail lock, re-reading the files first, so the
//! plan always matches the text it was made from.

// A refusal is returned at most once per command and carries everything the user needs to
// know; boxing it would only add noise at every construction site.
#![allow(clippy::result_large_err)]

use chrono::TimeDelta;
use serde::{Deserialize, Serialize};

use crate::claimfile::{self, NewValue};
use crate::conflict::{self, holder_of, Conflict};
use crate::diagnostic::{Code, Diagnostic, Located};
use crate::edit::{self, FileEdits, TextEdit};
use crate::glob;
pub use crate::hint::Hint;
use crate::ident;
use crate::input::{Facts, RailTexts};
use crate::lease::State;
use crate::log::{Event, LogEntry};
use crate::markdown;
use crate::model::{Claim, Evaluation, Origin, Rail};
use crate::rail::{self, LineKind, NewClaim};
use crate::text::Span;
use crate::time::{self, format_duration, format_time};

/// What a session asks for. As JSON: `{"op": "claim", "task": "…", "paths": […]}`,
/// `{"op": "release", "task": "…", "touched": […]}`, `{"op": "renew", "task": "…"}`,
/// `{"op": "take", "task": "…", "reason": "…"}`, `{"op": "update", "task": "…", "paths": […]}`.
///
/// Read through [`WireRequest`], one flat struct, rather than serde's internally tagged enum
/// code, which buffers the whole object in serde's `Content` first (about 7 KB of the wasm
/// build). Same JSON either way; fields that do not belong to the op are ignored, as before.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "kebab-case", try_from = "WireRequest")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Request {
    Claim(ClaimRequest),
    /// `touched`: the files the session actually changed (from git), recorded in the log and,
    /// for claim files, in the file.
    Release {
        task: String,
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(optional = nullable))]
        touched: Vec<String>,
        /// The task is finished (the gate passed): also tick its backlog entry.
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(optional = nullable))]
        done: bool,
    },
    Renew {
        task: String,
    },
    Take {
        task: String,
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(optional = nullable))]
        reason: Option<String>,
        /// The taker's branch, when it is not named like the session.
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(optional = nullable))]
        branch: Option<String>,
    },
    Update {
        task: String,
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(optional = nullable))]
        paths: Option<Vec<String>>,
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(optional = nullable))]
        resources: Option<Vec<String>>,
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(optional = nullable))]
        purpose: Option<String>,
    },
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ClaimRequest {
    pub task: String,
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub paths: Vec<String>,
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub resources: Vec<String>,
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub purpose: Option<String>,
    /// As written by the user, e.g. `45m`.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub lease: Option<String>,
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub after: Vec<String>,
    /// `pid@host` of the owning process, if the host knows it.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub pid: Option<String>,
    /// The session's branch, when it is not named like the session.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub branch: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Op {
    Claim,
    Release,
    Renew,
    Take,
    Update,
}

/// Every field any op has, as they come over the wire (`null` and absent alike).
#[derive(Deserialize)]
struct WireRequest {
    op: Op,
    task: Option<String>,
    paths: Option<Vec<String>>,
    resources: Option<Vec<String>>,
    purpose: Option<String>,
    lease: Option<String>,
    after: Option<Vec<String>>,
    pid: Option<String>,
    branch: Option<String>,
    touched: Option<Vec<String>>,
    done: Option<bool>,
    reason: Option<String>,
}

/// The one way a wire request can be wrong once its fields have their types.
#[derive(Debug)]
pub struct MissingTask;

impl std::fmt::Display for MissingTask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("missing field `task`")
    }
}

impl TryFrom<WireRequest> for Request {
    type Error = MissingTask;

    fn try_from(w: WireRequest) -> Result<Request, MissingTask> {
        // A claim's fields all have defaults (an empty task is refused by the planner, with
        // its own message); every other op needs its task.
        let task = match (&w.op, w.task) {
            (Op::Claim, task) => task.unwrap_or_default(),
            (_, Some(task)) => task,
            (_, None) => return Err(MissingTask),
        };
        Ok(match w.op {
            Op::Claim => Request::Claim(ClaimRequest {
                task,
                paths: w.paths.unwrap_or_default(),
                resources: w.resources.unwrap_or_default(),
                purpose: w.purpose,
                lease: w.lease,
                after: w.after.unwrap_or_default(),
                pid: w.pid,
                branch: w.branch,
            }),
            Op::Release => Request::Release {
                task,
                touched: w.touched.unwrap_or_default(),
                done: w.done.unwrap_or_default(),
            },
            Op::Renew => Request::Renew { task },
            Op::Take => Request::Take {
                task,
                reason: w.reason,
                branch: w.branch,
            },
            Op::Update => Request::Update {
                task,
                paths: w.paths,
                resources: w.resources,
                purpose: w.purpose,
            },
        })
    }
}

impl Request {
    pub fn task(&self) -> &str {
        match self {
            Request::Claim(c) => &c.task,
            Request::Release { task, .. }
            | Request::Renew { task }
            | Request::Take { task, .. }
            | Request::Update { task, .. } => task,
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Request::Claim(_) => "claim",
            Request::Release { .. } => "release",
            Request::Renew { .. } => "renew",
            Request::Take { .. } => "take",
            Request::Update { .. } => "update",
        }
    }
}

/// What to change: edits per file and the log line to append.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Plan {
    pub op: String,
    pub task: String,
    pub session: String,
    pub edits: Vec<FileEdits>,
    /// The line to append to claims.log (without newline); `null` when nothing happens.
    pub log_line: Option<String>,
    pub message: String,
    /// Nothing to do (e.g. claiming a task the session already holds and nothing changes).
    pub noop: bool,
    /// What the session can do instead, when nothing was done.
    pub hint: Option<Hint>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum RefusalKind {
    /// Another session holds the task (live or expiring).
    Held,
    /// Another session's claim is stale: free to take with `take`, not to `claim` over.
    StaleHeld,
    /// The task is not claimed.
    NotClaimed,
    /// The task is held by another session.
    NotYours,
    /// `take` of a claim that is not stale.
    NotStale,
    /// The requested paths overlap another session's live claim.
    PathConflict,
    /// An exclusive resource is held by another session.
    ResourceConflict,
    /// A broken line in claims.md names the task.
    BrokenLine,
    /// claims.md has a merge conflict marker: no change until it is resolved.
    ConflictMarker,
    /// The change would not count: the new claim line would land inside a code block or HTML
    /// (an unclosed ```` ``` ```` or `<!--` at the end of claims.md), or the edit would hide
    /// or reveal other lines. No change until the file is fixed.
    HiddenClaim,
    /// The task id looks like another task on the rail but is not the same (`аuth` with a
    /// Cyrillic `а` beside `auth`): claiming it would let two sessions hold "one" task.
    Confusable,
    /// The request itself is invalid (bad task id, path, duration...).
    BadInput,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Refusal {
    pub kind: RefusalKind,
    pub task: String,
    /// The session that holds what was asked for.
    pub holder: Option<String>,
    pub holder_claim: Option<usize>,
    pub claimed_at: Option<String>,
    pub age_secs: Option<i64>,
    pub lease_left_secs: Option<i64>,
    pub state: Option<State>,
    /// Why the holder's claim is in its state.
    pub reason: Option<String>,
    pub conflicts: Vec<Conflict>,
    /// What happened, without the how-to: that is `hint`, which each host words its own way.
    pub message: String,
    /// What the session can do about it, if there is something to do.
    pub hint: Option<Hint>,
    /// Where in the rail the problem is (the first conflict marker; the unclosed block).
    pub location: Option<Located>,
}

impl Refusal {
    /// The CLI's exit code: 2 for bad input (the request, or a claims.md a person must fix
    /// first: a conflict marker, an unclosed block), 1 for every other refusal.
    pub fn exit_code(&self) -> i32 {
        if matches!(
            self.kind,
            RefusalKind::BadInput | RefusalKind::ConflictMarker | RefusalKind::HiddenClaim
        ) {
            2
        } else {
            1
        }
    }

    fn bad(task: &str, message: impl Into<String>) -> Refusal {
        Refusal {
            kind: RefusalKind::BadInput,
            task: task.to_string(),
            holder: None,
            holder_claim: None,
            claimed_at: None,
            age_secs: None,
            lease_left_secs: None,
            state: None,
            reason: None,
            conflicts: Vec::new(),
            message: message.into(),
            hint: None,
            location: None,
        }
    }

    fn about(kind: RefusalKind, claim: &Claim, now: time::Time, message: String) -> Refusal {
        Refusal {
            kind,
            task: claim.task.clone().unwrap_or_default(),
            holder: Some(claim.session.clone()),
            holder_claim: Some(claim.id),
            claimed_at: claim.claimed_at.map(format_time),
            age_secs: claim.age(now).map(|d| d.num_seconds()),
            lease_left_secs: claim.lease_state.left.map(|d| d.num_seconds()),
            state: Some(claim.state()),
            reason: Some(claim.lease_state.reason.clone()),
            conflicts: Vec::new(),
            message,
            hint: None,
            location: None,
        }
    }
}

/// "held by session-a since 2026-10-22T14:05:00Z (1h12m ago, claims.md:3); 48m left of its 2h lease"
fn describe_holder(claim: &Claim, now: time::Time) -> String {
    let since = match claim.claimed_at {
        Some(t) => format!(
            " since {} ({} ago)",
            format_time(t),
            format_duration((now - t).max(TimeDelta::zero()))
        ),
        None => String::new(),
    };
    // The state decides the wording: a dead owner makes a claim stale with time left, a live
    // owner keeps it holding past its end.
    let lease = match claim.lease_state.left {
        _ if claim.state() == State::Stale => format!("; stale: {}", claim.lease_state.reason),
        Some(left) if left > TimeDelta::zero() => format!(
            "; {} left of its {} lease",
            format_duration(left),
            format_duration(claim.lease)
        ),
        Some(_) => format!("; {}", claim.lease_state.reason),
        None => String::new(),
    };
    format!(
        "held by {}{since} at {}:{}{lease}",
        claim.session, claim.file, claim.line
    )
}

/// Plans `request` for `session`. Never panics; any input gives a plan or a refusal.
pub fn plan(
    texts: &RailTexts,
    facts: &Facts,
    session: &str,
    request: &Request,
) -> Result<Plan, Refusal> {
    let task = request.task();
    ident::validate_task(task).map_err(|e| Refusal::bad(task, e.0))?;
    ident::validate_session(session).map_err(|e| Refusal::bad(task, e.0))?;
    let rail = Rail::load(texts);
    if let Some(marker) = rail
        .claims
        .diagnostics
        .iter()
        .find(|d| d.code == Code::ConflictMarker)
    {
        let at = marker.locate(&rail.claims_path, rail.claims.text(), &rail.claims_index);
        return Err(Refusal {
            kind: RefusalKind::ConflictMarker,
            message: format!(
                "{}:{} has a merge conflict marker; resolve it before changing the rail",
                at.file, at.line
            ),
            hint: Some(Hint::MergeDriver),
            location: Some(at),
            ..Refusal::bad(task, "")
        });
    }
    let eval = rail.evaluate(facts);
    if let Some(b) = eval.broken.iter().find(|b| b.task == task) {
        return Err(Refusal {
            kind: RefusalKind::BrokenLine,
            message: format!(
                "{}:{} names task {task} but the line is broken; fix it first",
                b.file, b.line
            ),
            hint: Some(Hint::Validate),
            ..Refusal::bad(task, "")
        });
    }
    let planner = Planner {
        rail: &rail,
        eval: &eval,
        facts,
        session,
        task,
    };
    let plan = match request {
        Request::Claim(req) => planner.claim(req),
        Request::Release { touched, done, .. } => planner.release(touched, *done),
        Request::Renew { .. } => planner.renew(),
        Request::Take { reason, branch, .. } => planner.take(reason.as_deref(), branch.as_deref()),
        Request::Update {
            paths,
            resources,
            purpose,
            ..
        } => planner.update(paths.as_deref(), resources.as_deref(), purpose.as_deref()),
    }?;
    check_lands(&rail, &plan)?;
    Ok(plan)
}

/// An edited claim file must read back as the same claim with what the plan set: no error the
/// file did not have before, the same owner and task, and `released` set by a release. A file
/// in a shape the edit does not keep (issue 28, finding 6: keys appended at column 0 of an
/// indented file made it a YAML error and the released claim live again) is refused before
/// anything is written.
fn check_claim_files(rail: &Rail, plan: &Plan) -> Result<(), Refusal> {
    for fe in plan.edits.iter().filter(|f| !f.create) {
        let Some(old) = rail.files.iter().find(|f| f.path == fe.file) else {
            continue;
        };
        let text = edit::apply(old.text(), &fe.edits)
            .map_err(|e| Refusal::bad(&plan.task, format!("internal: {e}")))?;
        let new = claimfile::parse(&old.path, &text);
        let errors = |f: &claimfile::ClaimFile| {
            (f.diagnostics.iter())
                .filter(|d| d.severity == crate::diagnostic::Severity::Error)
                .count()
        };
        let released_lost =
            matches!(plan.op.as_str(), "release" | "take") && new.released.is_none();
        if errors(&new) > errors(old)
            || new.owner != old.owner
            || new.task != old.task
            || released_lost
        {
            return Err(Refusal {
                kind: RefusalKind::HiddenClaim,
                hint: Some(Hint::Validate),
                ..Refusal::bad(
                    &plan.task,
                    format!(
                        "{} is written in a shape this change cannot keep (it would not read back as the same claim); nothing changed: edit it by hand",
                        old.path
                    ),
                )
            });
        }
    }
    Ok(())
}

/// A plan must do what it says once written: a claim line it adds must read as a claim, and no
/// other line may slip into or out of code or HTML. Without this check, claims.md ending inside
/// an unclosed ```` ``` ```` or `<!--` took every new claim into the block, where it is not a
/// claim: `rail claim` said yes, and the next session was given the same task (issue 17,
/// finding 4). Refusing is the safe answer: closing the block would rewrite what a person wrote.
fn check_lands(rail: &Rail, plan: &Plan) -> Result<(), Refusal> {
    check_claim_files(rail, plan)?;
    let Some(md) = plan.edits.iter().find(|f| f.file == rail.claims_path) else {
        return Ok(());
    };
    let old = &rail.claims;
    let refuse = |message: String, at: Option<Span>| {
        let location = at.map(|span| {
            Diagnostic::error(Code::UnclosedBlock, span, message.clone()).locate(
                &rail.claims_path,
                old.text(),
                &rail.claims_index,
            )
        });
        Refusal {
            kind: RefusalKind::HiddenClaim,
            message,
            hint: Some(Hint::Validate),
            location,
            ..Refusal::bad(&plan.task, "")
        }
    };
    let text = edit::apply(old.text(), &md.edits)
        .map_err(|e| Refusal::bad(&plan.task, format!("internal: {e}")))?;
    let new = rail::parse(&text);
    // Old lines map to new ones in order, less the whole lines the plan deletes; the plan's
    // own new lines come after them.
    let mut kept = 0usize;
    for line in &old.lines {
        let deleted = md
            .edits
            .iter()
            .any(|e| e.span == line.full && e.text.is_empty() && !line.full.is_empty());
        if deleted {
            continue;
        }
        let Some(now) = new.lines.get(kept) else {
            break;
        };
        if now.in_markup != line.in_markup {
            let number = rail.claims_index.line_of(line.content.start) + 1;
            let how = if now.in_markup {
                "put it inside code or HTML, where no line is a claim"
            } else {
                "take it out of the code or HTML it is in"
            };
            return Err(refuse(
                format!(
                    "this change would {how} ({}:{number}; a `<!--` and a `-->` on different lines of a paragraph make the lines between a comment); nothing changed",
                    rail.claims_path
                ),
                Some(line.content),
            ));
        }
        kept += 1;
    }
    for line in new.lines.iter().skip(kept) {
        let counts = matches!(&line.kind, LineKind::Claim(c) if c.task == plan.task);
        if counts && !line.in_markup {
            continue;
        }
        return Err(match markdown::unclosed_at_end(old.text()) {
            Some(open) => {
                let at = rail.claims_index.position(
                    old.text(),
                    open.span.start,
                    crate::text::Encoding::Chars,
                );
                refuse(
                    format!(
                        "{}:{}:{}: the {} there is never closed, so a claim added at the end would be inside it and not count; close it with {} first",
                        rail.claims_path,
                        at.line + 1,
                        at.character + 1,
                        open.what,
                        open.closer
                    ),
                    Some(open.span),
                )
            }
            None => refuse(
                format!(
                    "the new line for {} would not read as a claim at the end of {}; nothing changed",
                    plan.task, rail.claims_path
                ),
                None,
            ),
        });
    }
    Ok(())
}

/// The id of a claim that is not in the rail yet (a `claim` being planned).
const NOT_WRITTEN: usize = usize::MAX;

struct Planner<'a> {
    rail: &'a Rail,
    eval: &'a Evaluation,
    facts: &'a Facts,
    session: &'a str,
    task: &'a str,
}

fn normalize_paths(task: &str, paths: &[String]) -> Result<Vec<String>, Refusal> {
    let mut out: Vec<String> = Vec::new();
    for p in paths {
        let n = glob::normalize(p).map_err(|e| Refusal::bad(task, e.0))?;
        if !out.contains(&n) {
            out.push(n);
        }
    }
    Ok(out)
}

fn check_resources(task: &str, resources: &[String]) -> Result<Vec<String>, Refusal> {
    let mut out: Vec<String> = Vec::new();
    for r in resources {
        ident::validate_resource(r).map_err(|e| Refusal::bad(task, e.0))?;
        if !out.contains(r) {
            out.push(r.clone());
        }
    }
    Ok(out)
}

fn check_purpose(task: &str, purpose: Option<&str>) -> Result<(), Refusal> {
    if let Some(p) = purpose {
        rail::check_value("purpose", p).map_err(|e| Refusal::bad(task, e))?;
    }
    Ok(())
}

impl<'a> Planner<'a> {
    fn now(&self) -> time::Time {
        self.facts.now
    }

    fn plan(&self, op: &str, edits: Vec<FileEdits>, log: LogEntry, message: String) -> Plan {
        Plan {
            op: op.to_string(),
            task: self.task.to_string(),
            session: self.session.to_string(),
            edits,
            log_line: Some(log.render()),
            message,
            noop: false,
            hint: None,
        }
    }

    fn log(&self, event: Event) -> LogEntry {
        LogEntry::new(self.now(), event, Some(self.task), Some(self.session))
    }

    fn claims_md_edits(&self, edits: Vec<TextEdit>) -> FileEdits {
        FileEdits {
            file: self.rail.claims_path.clone(),
            create: self.rail.claims.text().is_empty(),
            edits,
        }
    }

    /// The claim of this task that holds it, and this session's own claims of it.
    fn holder(&self) -> (Option<&'a Claim>, Vec<&'a Claim>) {
        let all = self.eval.claims_of(self.task);
        let own = all
            .iter()
            .copied()
            .filter(|c| c.session == self.session)
            .collect();
        (holder_of(&all), own)
    }

    /// Conflicts the hypothetical claim `probe` would have with other sessions.
    fn conflicts_with(&self, probe: Claim) -> Vec<Conflict> {
        let probe_id = probe.id;
        let mut claims: Vec<Claim> = self
            .eval
            .claims
            .iter()
            .filter(|c| c.id != probe_id)
            .cloned()
            .collect();
        let probe_index = claims.len();
        let mut probe = probe;
        probe.id = probe_index;
        // Ids must be positions for the conflict functions.
        for (i, c) in claims.iter_mut().enumerate() {
            c.id = i;
        }
        let original_ids: Vec<usize> = self
            .eval
            .claims
            .iter()
            .filter(|c| c.id != probe_id)
            .map(|c| c.id)
            .collect();
        claims.push(probe);
        let mut found = conflict::path_overlaps(&claims);
        found.extend(conflict::resource_clashes(&claims));
        found
            .into_iter()
            .filter(|c| c.claims.contains(&probe_index))
            .map(|mut c| {
                // Ids name claims of the rail as it is; a claim not written yet has none, so it
                // is left out (an update's probe keeps the id of the claim it changes).
                c.claims = c
                    .claims
                    .iter()
                    .filter_map(|id| match original_ids.get(*id) {
                        Some(original) => Some(*original),
                        None => (probe_id != NOT_WRITTEN).then_some(probe_id),
                    })
                    .collect();
                c
            })
            .collect()
    }

    fn conflict_refusal(&self, conflicts: Vec<Conflict>) -> Refusal {
        let kind = if conflicts
            .iter()
            .any(|c| c.kind == conflict::ConflictKind::PathOverlap)
        {
            RefusalKind::PathConflict
        } else {
            RefusalKind::ResourceConflict
        };
        let first = conflicts
            .iter()
            .flat_map(|c| c.claims.iter())
            .filter_map(|id| self.eval.claims.get(*id))
            .find(|c| c.session != self.session);
        let details = conflicts
            .iter()
            .map(|c| c.message.clone())
            .collect::<Vec<_>>()
            .join("; ");
        let mut refusal = match first {
            Some(holder) => Refusal::about(
                kind,
                holder,
                self.now(),
                format!(
                    "{} would conflict with a live claim: {details}. That claim is {}",
                    self.task,
                    describe_holder(holder, self.now())
                ),
            ),
            None => Refusal::bad(self.task, details),
        };
        refusal.kind = kind;
        refusal.task = self.task.to_string();
        refusal.conflicts = conflicts;
        refusal
    }

    fn claim(&self, req: &ClaimRequest) -> Result<Plan, Refusal> {
        let task = self.task;
        // A backlog entry supplies what the request leaves out.
        let mut filled;
        let req = match self.eval.planned_of(task) {
            Some(p) => {
                filled = req.clone();
                if filled.paths.is_empty() {
                    filled.paths = p.paths.clone();
                }
                if filled.resources.is_empty() {
                    filled.resources = p.resources.clone();
                }
                if filled.after.is_empty() {
                    filled.after = p.after.clone();
                }
                if filled.purpose.is_none() {
                    filled.purpose = p.purpose.clone();
                }
                if filled.lease.is_none() {
                    filled.lease = p.lease.map(time::format_duration_exact);
                }
                &filled
            }
            None => req,
        };
        let paths = normalize_paths(task, &req.paths)?;
        let resources = check_resources(task, &req.resources)?;
        check_purpose(task, req.purpose.as_deref())?;
        let lease = match &req.lease {
            Some(text) => Some(
                time::parse_duration(text)
                    .map_err(|e| Refusal::bad(task, format!("lease `{text}`: {e}")))?,
            ),
            None => None,
        };
        for dep in &req.after {
            ident::validate_task(dep).map_err(|e| Refusal::bad(task, e.0))?;
        }
        if let Some(branch) = &req.branch {
            ident::validate_session(branch)
                .map_err(|e| Refusal::bad(task, e.0.replace("session name", "branch")))?;
        }
        if let Some(pid) = &req.pid {
            rail::check_value("pid", pid).map_err(|e| Refusal::bad(task, e))?;
            if pid.contains(char::is_whitespace) {
                return Err(Refusal::bad(task, "pid must be `pid@host`"));
            }
        }

        self.refuse_confusable()?;
        let (holder, own) = self.holder();
        if let Some(holder) = holder {
            if holder.session != self.session {
                let now = self.now();
                return Err(if holder.state().holds() {
                    Refusal::about(
                        RefusalKind::Held,
                        holder,
                        now,
                        format!(
                            "{task} is {}; pick another task",
                            describe_holder(holder, now)
                        ),
                    )
                } else {
                    Refusal {
                        hint: Some(Hint::Take {
                            task: task.to_string(),
                        }),
                        ..Refusal::about(
                            RefusalKind::StaleHeld,
                            holder,
                            now,
                            format!(
                                "{task} is {}; it is free to take",
                                describe_holder(holder, now)
                            ),
                        )
                    }
                });
            }
        }
        if let Some(mine) = own.first() {
            return Ok(Plan {
                op: "claim".into(),
                task: task.into(),
                session: self.session.into(),
                edits: Vec::new(),
                log_line: None,
                message: format!(
                    "{task} is already yours ({}:{}, {})",
                    mine.file,
                    mine.line,
                    mine.state().as_str()
                ),
                noop: true,
                hint: Some(Hint::RenewOrUpdate {
                    task: task.to_string(),
                }),
            });
        }

        let new = NewClaim {
            task: task.to_string(),
            session: self.session.to_string(),
            time: Some(self.now()),
            lease,
            branch: req.branch.clone().filter(|b| b != self.session),
            pid: req.pid.clone(),
            after: req.after.clone(),
            paths: paths.clone(),
            resources: resources.clone(),
            purpose: req.purpose.clone().filter(|p| !p.trim().is_empty()),
        };
        let probe = self.probe(&new);
        let conflicts = self.conflicts_with(probe);
        if !conflicts.is_empty() {
            return Err(self.conflict_refusal(conflicts));
        }
        let line = rail::render_claim(&new, self.now());
        let edit = self.rail.claims.append_line(&line);
        let log = self
            .log(Event::Claimed)
            .with("paths", paths.join(", "))
            .with("resources", resources.join(", "))
            .with(
                "lease",
                lease.map(time::format_duration_exact).unwrap_or_default(),
            )
            .with("pid", req.pid.clone().unwrap_or_default());
        Ok(self.plan(
            "claim",
            vec![self.claims_md_edits(vec![edit])],
            log,
            format!("claimed {task} for {}", self.session),
        ))
    }

    /// Refuses a new task id that looks like a task already on the rail (claimed, or planned
    /// on the backlog) without being it (issue 17, finding 8): `аuth` beside `auth`. Without
    /// this, a second session could claim "the same" task and neither would know. No escape
    /// hatch: a look-alike name is never needed, a clearly different one always works.
    fn refuse_confusable(&self) -> Result<(), Refusal> {
        let task = self.task;
        let claimed = self.eval.claims.iter().filter_map(|c| c.task.as_deref());
        let planned = self.eval.planned.iter().map(|p| p.task.as_str());
        let Some(other) = claimed
            .chain(planned)
            .find(|t| crate::confusable::confusable(task, t))
        else {
            return Ok(());
        };
        let odd = if task.is_ascii() { other } else { task };
        let what = format!(
            "{task} looks like task {other} but is a different name ({} in `{odd}`)",
            crate::confusable::describe(odd)
        );
        let now = self.now();
        let holders = self.eval.claims_of(other);
        Err(match holder_of(&holders) {
            Some(holder) => {
                let hint = if holder.state().holds() {
                    Hint::OtherWork { take: None }
                } else {
                    Hint::Take {
                        task: other.to_string(),
                    }
                };
                Refusal {
                    hint: Some(hint),
                    ..Refusal::about(
                        RefusalKind::Confusable,
                        holder,
                        now,
                        format!(
                            "{what}; {other} is {}; two look-alike tasks would be two claims on what reads as one",
                            describe_holder(holder, now)
                        ),
                    )
                }
            }
            None => Refusal {
                kind: RefusalKind::Confusable,
                message: format!("{what}, on the backlog; claim {other} if you mean it"),
                hint: Some(Hint::Claim {
                    task: other.to_string(),
                }),
                ..Refusal::bad(task, "")
            },
        })
    }

    /// A claim as it would be evaluated if written now.
    fn probe(&self, new: &NewClaim) -> Claim {
        Claim {
            id: NOT_WRITTEN,
            task: Some(new.task.clone()),
            session: new.session.clone(),
            origin: Origin::Line(usize::MAX),
            file: self.rail.claims_path.clone(),
            line: 0,
            span: Default::default(),
            also: None,
            claimed_at: Some(self.now()),
            renewed_at: None,
            last_commit_at: None,
            lease: new.lease.unwrap_or(self.rail.config.lease),
            branch: new.branch.clone().unwrap_or_else(|| new.session.clone()),
            pid: new.pid.clone(),
            after: new.after.clone(),
            paths: new.paths.clone(),
            resources: new.resources.clone(),
            purpose: new.purpose.clone(),
            seen_at: None,
            lease_state: crate::lease::Lease {
                start: Some(self.now()),
                end: None,
                left: None,
                activity: crate::lease::Activity::Claimed,
                state: State::Live,
                reason: String::new(),
            },
        }
    }

    /// This session's claims of the task, or the refusal saying why there are none.
    fn own_claims(&self) -> Result<Vec<&'a Claim>, Refusal> {
        let (holder, own) = self.holder();
        if !own.is_empty() {
            return Ok(own);
        }
        let now = self.now();
        Err(match holder {
            Some(h) => Refusal::about(
                RefusalKind::NotYours,
                h,
                now,
                format!(
                    "{} is not yours: it is {}",
                    self.task,
                    describe_holder(h, now)
                ),
            ),
            None => Refusal {
                kind: RefusalKind::NotClaimed,
                message: format!("{} is not claimed by anyone", self.task),
                ..Refusal::bad(self.task, "")
            },
        })
    }

    fn release(&self, touched: &[String], done: bool) -> Result<Plan, Refusal> {
        let own = self.own_claims()?;
        let mut touched_norm: Vec<String> = touched
            .iter()
            .map(|t| crate::scope::normalize_path(t))
            .filter(|t| !t.is_empty())
            .collect();
        crate::sort::sort_by(&mut touched_norm, |a, b| a.cmp(b));
        touched_norm.dedup();
        let now = format_time(self.now());
        let mut md_edits = Vec::new();
        let mut files = Vec::new();
        for claim in &own {
            match claim.origin {
                Origin::Line(n) => md_edits.extend(self.rail.claims.remove_line(n)),
                Origin::File(_) => {}
            }
            let yaml = match (claim.origin, &claim.also) {
                (Origin::File(i), _) => Some(i),
                (Origin::Line(_), Some(path)) => {
                    self.rail.files.iter().position(|f| &f.path == path)
                }
                _ => None,
            };
            if let Some(i) = yaml {
                let file = &self.rail.files[i];
                let mut values = vec![("released", NewValue::Scalar(now.clone()))];
                // Touched paths must be valid patterns to be read back; others go to the log only.
                let valid: Vec<String> = touched_norm
                    .iter()
                    .filter(|t| glob::normalize(t).is_ok())
                    .cloned()
                    .collect();
                values.push(("touched", NewValue::List(valid)));
                files.push(FileEdits {
                    file: file.path.clone(),
                    create: false,
                    edits: claimfile::set_keys(file, &values),
                });
            }
        }
        if done {
            if let Some(p) = self.eval.planned_of(self.task) {
                md_edits.extend(rail::tick(&self.rail.claims, p.line_index));
            }
        }
        let mut edits = Vec::new();
        if !md_edits.is_empty() {
            edits.push(self.claims_md_edits(md_edits));
        }
        edits.extend(files);
        let log = self
            .log(Event::Released)
            .with("touched", touched_norm.join(", "));
        let n = touched_norm.len();
        Ok(self.plan(
            "release",
            edits,
            log,
            format!(
                "released {} ({n} file{} touched)",
                self.task,
                if n == 1 { "" } else { "s" }
            ),
        ))
    }

    fn renew(&self) -> Result<Plan, Refusal> {
        let own = self.own_claims()?;
        let now = format_time(self.now());
        let mut md_edits = Vec::new();
        let mut files = Vec::new();
        for claim in &own {
            match claim.origin {
                Origin::Line(n) => {
                    md_edits.extend(rail::set_field(&self.rail.claims, n, "renewed", &now))
                }
                Origin::File(i) => {
                    let file = &self.rail.files[i];
                    files.push(FileEdits {
                        file: file.path.clone(),
                        create: false,
                        edits: claimfile::set_keys(
                            file,
                            &[("renewed", NewValue::Scalar(now.clone()))],
                        ),
                    });
                }
            }
        }
        let mut edits = Vec::new();
        if !md_edits.is_empty() {
            edits.push(self.claims_md_edits(md_edits));
        }
        edits.extend(files);
        let lease = own[0].lease;
        Ok(self.plan(
            "renew",
            edits,
            self.log(Event::Renewed),
            format!(
                "renewed {}: lease of {} runs from now",
                self.task,
                format_duration(lease)
            ),
        ))
    }

    fn take(&self, reason: Option<&str>, branch: Option<&str>) -> Result<Plan, Refusal> {
        if let Some(r) = reason {
            rail::check_value("reason", r).map_err(|e| Refusal::bad(self.task, e))?;
        }
        if let Some(b) = branch {
            ident::validate_session(b)
                .map_err(|e| Refusal::bad(self.task, e.0.replace("session name", "branch")))?;
        }
        let (holder, own) = self.holder();
        let Some(holder) = holder else {
            return Err(Refusal {
                kind: RefusalKind::NotClaimed,
                message: format!("{} is not claimed by anyone", self.task),
                hint: Some(Hint::Claim {
                    task: self.task.to_string(),
                }),
                ..Refusal::bad(self.task, "")
            });
        };
        let now = self.now();
        if holder.session == self.session || !own.is_empty() && holder.state().holds() {
            return Ok(Plan {
                op: "take".into(),
                task: self.task.into(),
                session: self.session.into(),
                edits: Vec::new(),
                log_line: None,
                message: format!("{} is already yours; nothing to take", self.task),
                noop: true,
                hint: None,
            });
        }
        if holder.state().holds() {
            return Err(Refusal::about(
                RefusalKind::NotStale,
                holder,
                now,
                format!(
                    "{} is {}; only a stale claim can be taken (it is {}: {})",
                    self.task,
                    describe_holder(holder, now),
                    holder.state().as_str(),
                    holder.lease_state.reason
                ),
            ));
        }
        let stamp = format_time(now);
        let why = reason
            .map(str::to_string)
            .unwrap_or_else(|| holder.lease_state.reason.clone());
        let mut edits = Vec::new();
        match holder.origin {
            Origin::Line(n) => {
                let rail::LineKind::Claim(line) = &self.rail.claims.lines[n].kind else {
                    return Err(Refusal::bad(self.task, "internal: claim line vanished"));
                };
                let mut time_text = stamp.clone();
                if let Some(b) = branch.filter(|b| *b != self.session) {
                    time_text.push_str(&format!(" | branch: {b}"));
                }
                let mut md = vec![
                    TextEdit::replace(line.session_span, self.session),
                    TextEdit::replace(line.time_span, time_text),
                ];
                // The old owner's renewal, process and branch do not carry over.
                for key in ["renewed", "pid", "branch"] {
                    md.extend(rail::remove_field(&self.rail.claims, n, key));
                }
                edits.push(self.claims_md_edits(md));
            }
            Origin::File(i) => {
                let file = &self.rail.files[i];
                edits.push(FileEdits {
                    file: file.path.clone(),
                    create: false,
                    edits: claimfile::set_keys(
                        file,
                        &[
                            ("released", NewValue::Scalar(stamp.clone())),
                            ("touched", NewValue::List(Vec::new())),
                        ],
                    ),
                });
                let new = NewClaim {
                    task: self.task.to_string(),
                    session: self.session.to_string(),
                    time: Some(now),
                    lease: file.lease,
                    branch: branch.filter(|b| *b != self.session).map(str::to_string),
                    pid: None,
                    after: holder.after.clone(),
                    paths: holder.paths.clone(),
                    resources: holder.resources.clone(),
                    purpose: holder.purpose.clone(),
                };
                let line = rail::render_claim(&new, now);
                edits.push(self.claims_md_edits(vec![self.rail.claims.append_line(&line)]));
            }
        }
        let log = self
            .log(Event::Taken)
            .with("from", holder.session.clone())
            .with("reason", why.clone());
        Ok(self.plan(
            "take",
            edits,
            log,
            format!("took {} from {} ({why})", self.task, holder.session),
        ))
    }

    fn update(
        &self,
        paths: Option<&[String]>,
        resources: Option<&[String]>,
        purpose: Option<&str>,
    ) -> Result<Plan, Refusal> {
        let task = self.task;
        let paths = paths.map(|p| normalize_paths(task, p)).transpose()?;
        let resources = resources.map(|r| check_resources(task, r)).transpose()?;
        check_purpose(task, purpose)?;
        let own = self.own_claims()?;
        let mine = own[0];
        let mut probe = mine.clone();
        if let Some(p) = &paths {
            probe.paths = p.clone();
        }
        if let Some(r) = &resources {
            probe.resources = r.clone();
        }
        let conflicts = self.conflicts_with(probe);
        if !conflicts.is_empty() {
            return Err(self.conflict_refusal(conflicts));
        }
        let mut changes: Vec<(&str, NewValue)> = Vec::new();
        if let Some(p) = &paths {
            changes.push(("paths", NewValue::List(p.clone())));
        }
        if let Some(r) = &resources {
            changes.push(("resources", NewValue::List(r.clone())));
        }
        if let Some(p) = purpose {
            changes.push(("purpose", NewValue::Scalar(p.to_string())));
        }
        if changes.is_empty() {
            return Err(Refusal::bad(
                task,
                "nothing to update: give paths, resources or a purpose",
            ));
        }
        let edits = match mine.origin {
            Origin::Line(n) => {
                let mut md = Vec::new();
                for (key, value) in &changes {
                    let text = match value {
                        NewValue::List(items) => items.join(", "),
                        NewValue::Scalar(s) => s.clone(),
                    };
                    let edit = if text.is_empty() {
                        rail::remove_field(&self.rail.claims, n, key)
                    } else {
                        rail::set_field(&self.rail.claims, n, key, &text)
                    };
                    md.extend(edit);
                }
                merge_inserts(&mut md);
                vec![self.claims_md_edits(md)]
            }
            Origin::File(i) => {
                let file = &self.rail.files[i];
                vec![FileEdits {
                    file: file.path.clone(),
                    create: false,
                    edits: claimfile::set_keys(file, &changes),
                }]
            }
        };
        let mut log = self.log(Event::Updated);
        if let Some(p) = &paths {
            log = log.with("paths", p.join(", "));
        }
        if let Some(r) = &resources {
            log = log.with("resources", r.join(", "));
        }
        if let Some(p) = purpose {
            log = log.with("purpose", p);
        }
        Ok(self.plan("update", edits, log, format!("updated {task}")))
    }
}

/// Several new fields inserted at one point become one insertion (edits may not share a point).
fn merge_inserts(edits: &mut Vec<TextEdit>) {
    crate::sort::sort_by_key(edits, |e| (e.span.start, e.span.end));
    let mut out: Vec<TextEdit> = Vec::new();
    for e in edits.drain(..) {
        match out.last_mut() {
            Some(last)
                if last.span.is_empty() && e.span.is_empty() && last.span.start == e.span.start =>
            {
                last.text.push_str(&e.text);
            }
            _ => out.push(e),
        }
    }
    *edits = out;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A claim-file edit that would not read back as the claim it changes is refused before
    /// anything is written (issue 28 finding 6's guard, whatever shape the file has).
    #[test]
    fn a_claim_file_edit_that_breaks_the_file_is_refused() {
        let texts = RailTexts {
            claim_files: vec![crate::input::FileText {
                path: "claims/alice.yaml".into(),
                text: "  owner: alice\n  task: auth\n".into(),
                modified: None,
            }],
            ..Default::default()
        };
        let rail = Rail::load(&texts);
        let plan = |op: &str, insert: &str| Plan {
            op: op.into(),
            task: "auth".into(),
            session: "alice".into(),
            edits: vec![FileEdits {
                file: "claims/alice.yaml".into(),
                create: false,
                edits: vec![TextEdit::insert(texts.claim_files[0].text.len(), insert)],
            }],
            log_line: None,
            message: String::new(),
            noop: false,
            hint: None,
        };
        // What the old edit wrote: keys at column 0 end the document.
        let err = check_lands(&rail, &plan("release", "released: 2026-10-22T15:00Z\n"));
        let err = err.unwrap_err();
        assert_eq!(err.kind, RefusalKind::HiddenClaim);
        assert!(err.message.contains("claims/alice.yaml"), "{}", err.message);
        // A release whose file would not say `released` is refused too.
        assert!(check_lands(&rail, &plan("release", "  renewed: 2026-10-22T15:00Z\n")).is_err());
        // At the document's indentation it reads back.
        assert!(check_lands(&rail, &plan("release", "  released: 2026-10-22T15:00Z\n")).is_ok());
    }

    fn read(json: &str) -> Result<Request, String> {
        serde_json::from_str(json).map_err(|e| e.to_string())
    }

    /// The wire struct reads exactly the JSON the tagged enum writes, for every op.
    #[test]
    fn requests_round_trip_through_the_wire_form() {
        let all = [
            Request::Claim(ClaimRequest {
                task: "a".into(),
                paths: vec!["src/**".into()],
                resources: vec!["port:3000".into()],
                purpose: Some("p".into()),
                lease: Some("45m".into()),
                after: vec!["b".into()],
                pid: Some("1@h".into()),
                branch: Some("br".into()),
            }),
            Request::Release {
                task: "a".into(),
                touched: vec!["x".into()],
                done: true,
            },
            Request::Renew { task: "a".into() },
            Request::Take {
                task: "a".into(),
                reason: Some("r".into()),
                branch: None,
            },
            Request::Update {
                task: "a".into(),
                paths: None,
                resources: Some(vec![]),
                purpose: Some("q".into()),
            },
        ];
        for r in all {
            let json = serde_json::to_string(&r).unwrap();
            assert_eq!(read(&json), Ok(r), "{json}");
        }
    }

    #[test]
    fn the_wire_form_fills_defaults_and_names_what_is_wrong() {
        assert_eq!(
            read(r#"{"op":"claim"}"#),
            Ok(Request::Claim(ClaimRequest::default()))
        );
        assert_eq!(
            read(r#"{"op":"release","task":"a","touched":null,"paths":["ignored"]}"#),
            Ok(Request::Release {
                task: "a".into(),
                touched: vec![],
                done: false
            })
        );
        assert_eq!(
            read(r#"{"op":"renew"}"#),
            Err("missing field `task`".to_string())
        );
        let unknown = read(r#"{"op":"steal","task":"a"}"#).unwrap_err();
        assert!(unknown.starts_with("unknown variant `steal`"), "{unknown}");
        let missing = read(r#"{"task":"a"}"#).unwrap_err();
        assert!(missing.starts_with("missing field `op`"), "{missing}");
        let wrong = read(r#"{"op":"claim","task":"a","paths":"src"}"#).unwrap_err();
        assert!(wrong.starts_with("invalid type: string"), "{wrong}");
    }

    /// A claims.md with a merge conflict marker refuses every operation, with where the first
    /// marker is; an operation on a clean rail is not affected by a marker-like line in code.
    #[test]
    fn a_conflict_marker_refuses_every_operation_with_its_location() {
        use crate::input::FileText;
        let texts = |claims: &str| RailTexts {
            claims: Some(FileText {
                path: "claims.md".into(),
                text: claims.into(),
                modified: None,
            }),
            ..RailTexts::default()
        };
        let now = time::parse_time("2026-10-22T14:10:00Z").unwrap();
        let marked = "# Rail\n\n<<<<<<< HEAD\na | s | 2026-10-22T14:05Z\n=======\nb | t | 2026-10-22T14:06Z\n>>>>>>> other\n";
        let requests = [
            Request::Claim(ClaimRequest {
                task: "x".into(),
                ..ClaimRequest::default()
            }),
            Request::Release {
                task: "a".into(),
                touched: vec![],
                done: false,
            },
            Request::Renew { task: "a".into() },
            Request::Take {
                task: "b".into(),
                reason: None,
                branch: None,
            },
        ];
        for request in &requests {
            let refusal = plan(&texts(marked), &Facts::at(now), "s", request).unwrap_err();
            assert_eq!(refusal.kind, RefusalKind::ConflictMarker, "{request:?}");
            assert_eq!(refusal.exit_code(), 2);
            assert_eq!(
                refusal.message,
                "claims.md:3 has a merge conflict marker; resolve it before changing the rail"
            );
            assert_eq!(refusal.hint, Some(Hint::MergeDriver));
            let at = refusal.location.expect("location");
            assert_eq!((at.file.as_str(), at.line, at.column), ("claims.md", 3, 1));
            assert_eq!(&marked[at.span.start..at.span.end], "<<<<<<< HEAD");
        }
        let fenced = "```\n<<<<<<< HEAD\n```\n";
        assert!(plan(&texts(fenced), &Facts::at(now), "s", &requests[0]).is_ok());
    }
}
