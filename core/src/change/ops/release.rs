//! `release`: ends this session's claims of a task, recording what it touched and whether it is
//! done.

use crate::formats::claim_file::{self, NewValue};
use crate::formats::claims_md;
use crate::formats::log::LogEvent;
use crate::model::Origin;
use crate::text::edit::FileEdits;
use crate::text::glob;
use crate::text::time::format_time;

use super::{Plan, Planner, Refusal};

impl Planner<'_> {
    pub(super) fn release(&self, touched: &[String], done: bool) -> Result<Plan, Refusal> {
        let own = self.own_claims()?;
        let mut touched_norm: Vec<String> = touched
            .iter()
            .map(|t| crate::model::scope::normalize_path(t))
            .filter(|t| !t.is_empty())
            .collect();
        crate::text::sort::sort_by(&mut touched_norm, |a, b| a.cmp(b));
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
                    edits: claim_file::set_keys(file, &values),
                });
            }
        }
        if done {
            if let Some(p) = self.eval.planned_of(self.task) {
                md_edits.extend(claims_md::tick(&self.rail.claims, p.line_index));
            }
        }
        let mut edits = Vec::new();
        if !md_edits.is_empty() {
            edits.push(self.claims_md_edits(md_edits));
        }
        edits.extend(files);
        let log = self
            .log_of(LogEvent::Released, &own)
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
}
