//! Operations as pure planners: claim, release, renew, take, update, plan (a backlog entry).
//!
//! Each takes the rail's texts, the facts, the acting session and the request, and returns
//! either a [`Plan`] — the minimal edits per file plus the log line to append — or a
//! [`Refusal`] that names the holder, the claim's age and the lease left. A refused operation
//! changes nothing. Hosts apply plans under the rail lock, re-reading the files first, so the
//! plan always matches the text it was made from.
//!
//! One file per operation (`claim`, `release`, `renew`, `take`, `update`, `plan`), each an
//! `impl Planner` block; the request and refusal types in `request` and `refusal`; the
//! planner, the checks every plan passes and [`plan`] itself here.

// A refusal is returned at most once per command and carries everything the user needs to
// know; boxing it would only add noise at every construction site.
#![allow(clippy::result_large_err)]

mod claim;
mod plan;
mod refusal;
mod release;
mod renew;
mod request;
mod take;
mod update;

use update::ClaimChanges;

#[cfg(test)]
mod tests;

use serde::Serialize;

use crate::formats::claim_file;
use crate::formats::claims_md::{self, LineKind, NewClaim};
use crate::formats::log::{LogEntry, LogEvent};
use crate::formats::markdown;
use crate::model::conflict::{self, holder_of, Conflict};
use crate::model::input::{Facts, RailTexts};
use crate::model::{Claim, Evaluation, Rail};
use crate::text::diagnostic::{Code, Diagnostic};
use crate::text::edit::{self, FileEdits, TextEdit};
use crate::text::glob;
pub use crate::text::hint::Hint;
use crate::text::ident;
use crate::text::time;
use crate::text::Span;

use refusal::describe_holder;
pub use refusal::{Refusal, RefusalKind};
pub use request::{ClaimRequest, MissingTask, Request};

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

/// Plans `request` for `session`. Never panics; any input gives a plan or a refusal.
pub fn plan(
    texts: &RailTexts,
    facts: &Facts,
    session: &str,
    request: &Request,
) -> Result<Plan, Refusal> {
    plan_on(&Rail::load(texts), facts, session, request)
}

/// [`plan`] on a rail the host has loaded already (from the same texts), so a command that
/// also gathered its facts with it parses the rail once.
pub fn plan_on(
    rail: &Rail,
    facts: &Facts,
    session: &str,
    request: &Request,
) -> Result<Plan, Refusal> {
    plan_evaluated(rail, &rail.evaluate(facts), facts, session, request)
}

/// [`plan_on`] with the rail's evaluation on `facts` made already (a host that judged the rail
/// to gather its facts evaluates it once).
pub fn plan_evaluated(
    rail: &Rail,
    eval: &Evaluation,
    facts: &Facts,
    session: &str,
    request: &Request,
) -> Result<Plan, Refusal> {
    plan_landed(rail, eval, facts, session, request).map(|(plan, _)| plan)
}

/// [`plan_evaluated`], with the claims.md the plan writes as its check read it (`None` when the
/// plan leaves claims.md as it is): operations planned one after another
/// ([`crate::change::snapshot::Planning`]) plan the next on it instead of parsing it again.
pub fn plan_landed(
    rail: &Rail,
    eval: &Evaluation,
    facts: &Facts,
    session: &str,
    request: &Request,
) -> Result<(Plan, Option<claims_md::RailDoc>), Refusal> {
    let task = request.task();
    ident::validate_task(task).map_err(|e| Refusal::bad(task, e.0))?;
    ident::validate_session(session).map_err(|e| Refusal::bad(task, e.0))?;
    if let Some(machine) = &facts.machine {
        ident::validate_machine(machine).map_err(|e| {
            Refusal::bad(
                task,
                format!(
                    "this machine's id on the shared rail cannot be had ({e}); nothing changed"
                ),
            )
        })?;
    }
    request
        .check_limits()
        .map_err(|e| Refusal::too_large(task, format!("{e}; nothing changed")))?;
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
        rail,
        eval,
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
            add_paths,
            add_resources,
            ..
        } => planner.update(ClaimChanges {
            paths: paths.as_deref(),
            resources: resources.as_deref(),
            purpose: purpose.as_deref(),
            add_paths,
            add_resources,
        }),
        Request::Plan { paths, purpose, .. } => planner.plan_backlog(paths, purpose.as_deref()),
    }?;
    let landed = check_lands(rail, &plan)?;
    Ok((plan, landed))
}

/// Every file a plan writes must stay within what every host reads (`text::limits`), its log
/// line within a log line's limit: no sequence of accepted operations leaves a rail that Rail
/// refuses to read (issue 41, finding 3: five claims with 4 MB purposes took claims.md past
/// 16 MiB, and from then on every command of every session failed). Counted from the edits,
/// without applying them.
fn check_sizes(rail: &Rail, plan: &Plan) -> Result<(), Refusal> {
    use crate::text::limits;
    for fe in &plan.edits {
        let old = if fe.file == rail.claims_path {
            rail.claims.text().len()
        } else {
            (rail.files.iter())
                .find(|f| f.path == fe.file)
                .map_or(0, |f| f.text().len())
        };
        let removed: usize = fe.edits.iter().map(|e| e.span.len()).sum();
        let added: usize = fe.edits.iter().map(|e| e.text.len()).sum();
        let len = (old + added).saturating_sub(removed);
        if len > old {
            limits::check_file(&fe.file, len).map_err(|e| {
                Refusal::too_large(
                    &plan.task,
                    format!("{e}; nothing changed: release claims or remove lines from it first"),
                )
            })?;
        }
    }
    if let Some(line) = &plan.log_line {
        limits::check_text("the log line", line, limits::LOG_LINE_BYTES)
            .map_err(|e| Refusal::too_large(&plan.task, format!("{e}; nothing changed")))?;
    }
    Ok(())
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
        let new = claim_file::parse(&old.path, &text);
        let errors = |f: &claim_file::ClaimFile| {
            (f.diagnostics.iter())
                .filter(|d| d.severity == crate::text::diagnostic::Severity::Error)
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
/// `Ok`: the claims.md the plan writes, parsed (`None`: the plan does not edit it).
fn check_lands(rail: &Rail, plan: &Plan) -> Result<Option<claims_md::RailDoc>, Refusal> {
    check_sizes(rail, plan)?;
    check_claim_files(rail, plan)?;
    let Some(md) = plan.edits.iter().find(|f| f.file == rail.claims_path) else {
        return Ok(None);
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
    // Only the lines the plan changes are read again.
    let new = claims_md::reparse(old, &md.edits)
        .map_err(|e| Refusal::bad(&plan.task, format!("internal: {e}")))?;
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
        let counts = match &line.kind {
            LineKind::Claim(c) => c.task == plan.task,
            LineKind::Planned(p) => p.task == plan.task && plan.op == "plan",
            _ => false,
        };
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
    Ok(Some(new))
}

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
        claims_md::check_value("purpose", p).map_err(|e| Refusal::bad(task, e))?;
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

    fn log(&self, event: LogEvent) -> LogEntry {
        LogEntry::new(self.now(), event, Some(self.task), Some(self.session))
    }

    /// The log line of a change to `own` claims: it names their session, and the acting one
    /// (`by:`) when that is another it acts for — an agent releasing its branch's claim is logged
    /// as `main`'s release by `main~claude-…`, so every reader of the log finds the claim's end
    /// under the session that held it.
    fn log_of(&self, event: LogEvent, own: &[&Claim]) -> LogEntry {
        match own.first().map(|c| c.session.as_str()) {
            Some(holder) if holder != self.session && own.iter().all(|c| c.session == holder) => {
                LogEntry::new(self.now(), event, Some(self.task), Some(holder))
                    .with("by", self.session.to_string())
            }
            _ => self.log(event),
        }
    }

    fn claims_md_edits(&self, edits: Vec<TextEdit>) -> FileEdits {
        FileEdits {
            file: self.rail.claims_path.clone(),
            create: self.rail.claims.text().is_empty(),
            edits,
        }
    }

    /// The claim of this task that holds it, and this session's own claims of it: its own and
    /// those of a session it acts for (an agent's branch, a subagent's agent).
    fn holder(&self) -> (Option<&'a Claim>, Vec<&'a Claim>) {
        let all = self.eval.claims_of(self.task);
        let own = all
            .iter()
            .copied()
            .filter(|c| self.eval.acts_for(self.session, c))
            .collect();
        (holder_of(&all), own)
    }

    /// Conflicts the hypothetical claim `probe` would have with other sessions.
    fn conflicts_with(&self, probe: Claim) -> Vec<Conflict> {
        if !conflict::may_conflict(&probe) {
            // Then the claims need not be named as seen from here.
            return Vec::new();
        }
        conflict::conflicts_of(&self.eval.claims_seen_here(), probe)
    }

    fn conflict_refusal(&self, mut conflicts: Vec<Conflict>) -> Refusal {
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
            .find(|c| !self.eval.acts_for(self.session, c));
        // A claim of `src/**` on a rail of 1,500 claims of it would clash with every one: the
        // refusal lists as many as a claim on the board does, and counts the rest.
        let unlisted = conflicts.len().saturating_sub(conflict::LISTED_PER_CLAIM);
        conflicts.truncate(conflict::LISTED_PER_CLAIM);
        let mut details = conflicts
            .iter()
            .map(|c| c.message.clone())
            .collect::<Vec<_>>()
            .join("; ");
        if unlisted > 0 {
            details.push_str(&format!("; and {unlisted} more conflicts"));
        }
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
        refusal.conflicts_unlisted = unlisted;
        refusal
    }

    /// A claim as it would be evaluated if written now.
    fn probe(&self, new: &NewClaim) -> Claim {
        let mut probe = Claim::probe(
            &new.task,
            &new.session,
            self.now(),
            new.lease.unwrap_or(self.rail.config.lease),
        );
        probe.file = self.rail.claims_path.clone();
        probe.branch =
            (new.branch.clone()).unwrap_or_else(|| ident::branch_session(&new.session).to_string());
        probe.pid = new.pid.clone();
        probe.after = new.after.clone();
        probe.paths = new.paths.clone();
        probe.resources = new.resources.clone();
        probe.purpose = new.purpose.clone();
        probe
    }

    /// This session's claims of the task, or the refusal saying why there are none.
    /// `; did you mean auth-refresh?` when a claimed or planned task is one slip from the task
    /// asked for (a session's own first); else nothing.
    fn did_you_mean(&self) -> String {
        let own = (self.eval.claims.iter())
            .filter(|c| c.session == self.session)
            .filter_map(|c| c.task.as_deref());
        let others = (self.eval.claims.iter())
            .filter(|c| c.session != self.session)
            .filter_map(|c| c.task.as_deref());
        let planned = self.eval.planned.iter().map(|p| p.task.as_str());
        ident::closest(self.task, own.chain(others).chain(planned))
            .map(|t| format!("; did you mean {t}?"))
            .unwrap_or_default()
    }

    /// On a shared rail a session lives on one machine (issue 42): a claim by a session that
    /// holds claims made on another machine is refused, naming the machine, rather than making
    /// two machines' sessions one (each would act for the other's claims).
    fn refuse_session_elsewhere(&self) -> Result<(), Refusal> {
        let Some(here) = self.facts.machine.as_deref() else {
            return Ok(());
        };
        let elsewhere = (self.eval.claims.iter()).find(|c| {
            c.session == self.session
                && c.state().holds()
                && c.machine.as_deref().is_some_and(|m| m != here)
        });
        let Some(other) = elsewhere else {
            return Ok(());
        };
        let now = self.now();
        Err(Refusal::about(
            RefusalKind::NotYours,
            other,
            now,
            format!(
                "session {} is on machine {}, not this one ({here}): it holds {} there ({}); \
                 a session lives on one machine, so act here under a session name of its own \
                 (--session or RAIL_SESSION)",
                self.session,
                other.machine.as_deref().unwrap_or_default(),
                other.task.as_deref().unwrap_or("paths"),
                describe_holder(other, now)
            ),
        ))
    }

    fn own_claims(&self) -> Result<Vec<&'a Claim>, Refusal> {
        let (holder, own) = self.holder();
        if !own.is_empty() {
            return Ok(own);
        }
        let now = self.now();
        Err(match holder {
            // Its session by name, but another machine's: only that machine changes it.
            Some(h) if ident::acts_for(self.session, &h.session) => Refusal {
                hint: Some(Hint::Take {
                    task: self.task.to_string(),
                }),
                ..Refusal::about(
                    RefusalKind::NotYours,
                    h,
                    now,
                    format!(
                        "{} is not yours here: it is {}; only machine {} renews, updates or \
                         releases it (this is {}), and from here it can only be taken once it is \
                         stale (`rail take`)",
                        self.task,
                        describe_holder(h, now),
                        h.machine.as_deref().unwrap_or_default(),
                        self.facts
                            .machine
                            .as_deref()
                            .unwrap_or("a machine of no id"),
                    ),
                )
            },
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
                message: format!(
                    "{} is not claimed by anyone{}",
                    self.task,
                    self.did_you_mean()
                ),
                ..Refusal::bad(self.task, "")
            },
        })
    }
}

/// Several new fields inserted at one point become one insertion (edits may not share a point).
fn merge_inserts(edits: &mut Vec<TextEdit>) {
    crate::text::sort::sort_by_key(edits, |e| (e.span.start, e.span.end));
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
