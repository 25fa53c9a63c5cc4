//! `claim`: a new claim of a task (or the same one again, a no-op), with the refusals for a task
//! held by another session, overlapping paths and look-alike task ids.

use crate::formats::claims_md::{self, NewClaim};
use crate::formats::log::LogEvent;
use crate::model::conflict::holder_of;
use crate::text::ident;
use crate::text::time;

use super::{
    check_purpose, check_resources, describe_holder, normalize_paths, ClaimRequest, Hint, Plan,
    Planner, Refusal, RefusalKind,
};

impl<'a> Planner<'a> {
    pub(super) fn claim(&self, req: &ClaimRequest) -> Result<Plan, Refusal> {
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
            claims_md::check_value("pid", pid).map_err(|e| Refusal::bad(task, e))?;
            if pid.contains(char::is_whitespace) {
                return Err(Refusal::bad(task, "pid must be `pid@host`"));
            }
        }

        self.refuse_confusable()?;
        self.refuse_session_elsewhere()?;
        let (holder, own) = self.holder();
        if let Some(holder) = holder {
            if !self.eval.acts_for(self.session, holder) {
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
            machine: self.facts.machine.clone(),
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
        let line = claims_md::render_claim(&new, self.now());
        let edit = self.rail.claims.append_line(&line);
        let log = self
            .log(LogEvent::Claimed)
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
            // A station's session is named after its task: `claimed auth for auth` said nothing.
            if self.session == task {
                format!("claimed {task}")
            } else {
                format!("claimed {task} for {}", self.session)
            },
        ))
    }

    /// Refuses a new task id that looks like a task already on the rail (claimed, or planned
    /// on the backlog) without being it (issue 17, finding 8): `аuth` beside `auth`. Without
    /// this, a second session could claim "the same" task and neither would know. No escape
    /// hatch: a look-alike name is never needed, a clearly different one always works.
    pub(super) fn refuse_confusable(&self) -> Result<(), Refusal> {
        let task = self.task;
        let claimed = self.eval.claims.iter().filter_map(|c| c.task.as_deref());
        let planned = self.eval.planned.iter().map(|p| p.task.as_str());
        let Some(other) = claimed
            .chain(planned)
            .find(|t| crate::text::confusable::confusable(task, t))
        else {
            return Ok(());
        };
        let odd = if task.is_ascii() { other } else { task };
        let what = format!(
            "{task} looks like task {other} but is a different name ({} in `{odd}`)",
            crate::text::confusable::describe(odd)
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
}
