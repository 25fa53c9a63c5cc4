//! `take`: moves a stale (or, with a reason, a live) claim of another session to this one.

use crate::formats::claim_file::{self, NewValue};
use crate::formats::claims_md::{self, NewClaim};
use crate::formats::log::LogEvent;
use crate::model::Origin;
use crate::text::edit::{FileEdits, TextEdit};
use crate::text::ident;
use crate::text::time::format_time;

use super::{describe_holder, Hint, Plan, Planner, Refusal, RefusalKind};

impl Planner<'_> {
    pub(super) fn take(&self, reason: Option<&str>, branch: Option<&str>) -> Result<Plan, Refusal> {
        if let Some(r) = reason {
            claims_md::check_value("reason", r).map_err(|e| Refusal::bad(self.task, e))?;
        }
        if let Some(b) = branch {
            ident::validate_session(b)
                .map_err(|e| Refusal::bad(self.task, e.0.replace("session name", "branch")))?;
        }
        let (holder, own) = self.holder();
        let Some(holder) = holder else {
            return Err(Refusal {
                kind: RefusalKind::NotClaimed,
                message: format!(
                    "{} is not claimed by anyone{}",
                    self.task,
                    self.did_you_mean()
                ),
                hint: Some(Hint::Claim {
                    task: self.task.to_string(),
                }),
                ..Refusal::bad(self.task, "")
            });
        };
        let now = self.now();
        if self.eval.acts_for(self.session, holder) || !own.is_empty() && holder.state().holds() {
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
                    holder.lease_reason()
                ),
            ));
        }
        let stamp = format_time(now);
        let why = reason
            .map(str::to_string)
            .unwrap_or_else(|| holder.lease_reason());
        let mut edits = Vec::new();
        match holder.origin {
            Origin::Line(n) => {
                let claims_md::LineKind::Claim(line) = &self.rail.claims.lines[n].kind else {
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
                // The old owner's renewal, process and branch do not carry over; the machine is
                // the taker's.
                for key in ["renewed", "pid", "branch"] {
                    md.extend(claims_md::remove_field(&self.rail.claims, n, key));
                }
                md.extend(match &self.facts.machine {
                    Some(m) => claims_md::set_field(&self.rail.claims, n, "machine", m),
                    None => claims_md::remove_field(&self.rail.claims, n, "machine"),
                });
                edits.push(self.claims_md_edits(md));
            }
            Origin::File(i) => {
                let file = &self.rail.files[i];
                edits.push(FileEdits {
                    file: file.path.clone(),
                    create: false,
                    edits: claim_file::set_keys(
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
                    machine: self.facts.machine.clone(),
                    after: holder.after.clone(),
                    paths: holder.paths.clone(),
                    resources: holder.resources.clone(),
                    purpose: holder.purpose.clone(),
                };
                let line = claims_md::render_claim(&new, now);
                edits.push(self.claims_md_edits(vec![self.rail.claims.append_line(&line)]));
            }
        }
        let log = self
            .log(LogEvent::Taken)
            .with("from", holder.session.clone())
            .with("reason", why.clone());
        Ok(self.plan(
            "take",
            edits,
            log,
            format!("took {} from {} ({why})", self.task, holder.session),
        ))
    }
}
