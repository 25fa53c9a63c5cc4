//! `plan`: a task put on the backlog (`- [ ] task | paths: … | purpose: …`), once: a task on the
//! rail already, planned or claimed in any state, is left as it is.

use crate::formats::claims_md;
use crate::formats::log::LogEvent;

use super::{check_purpose, normalize_paths, Plan, Planner, Refusal};

impl Planner<'_> {
    pub(super) fn plan_backlog(
        &self,
        paths: &[String],
        purpose: Option<&str>,
    ) -> Result<Plan, Refusal> {
        let task = self.task;
        let known = self.eval.planned_of(task).is_some() || !self.eval.claims_of(task).is_empty();
        if known {
            return Ok(Plan {
                op: "plan".into(),
                task: task.into(),
                session: self.session.into(),
                edits: Vec::new(),
                log_line: None,
                message: format!("{task} is on the rail already"),
                noop: true,
                hint: None,
            });
        }
        let paths = normalize_paths(task, paths)?;
        check_purpose(task, purpose)?;
        if purpose.is_some_and(|p| p.contains('|')) {
            return Err(Refusal::bad(
                task,
                "a backlog entry's purpose may not contain `|`",
            ));
        }
        self.refuse_confusable()?;
        let line = claims_md::render_planned(task, &paths, purpose);
        let edit = self.rail.claims.append_line(&line);
        let log = self.log(LogEvent::Planned).with("paths", paths.join(", "));
        Ok(self.plan(
            "plan",
            vec![self.claims_md_edits(vec![edit])],
            log,
            format!("{task} is on the backlog"),
        ))
    }
}
