//! `update`: changes the paths, resources or purpose of this session's claim of a task.

use crate::formats::claim_file::{self, NewValue};
use crate::formats::claims_md;
use crate::formats::log::LogEvent;
use crate::model::Origin;
use crate::text::edit::FileEdits;

use super::{
    check_purpose, check_resources, merge_inserts, normalize_paths, Plan, Planner, Refusal,
};

impl Planner<'_> {
    pub(super) fn update(
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
                        claims_md::remove_field(&self.rail.claims, n, key)
                    } else {
                        claims_md::set_field(&self.rail.claims, n, key, &text)
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
                    edits: claim_file::set_keys(file, &changes),
                }]
            }
        };
        let mut log = self.log(LogEvent::Updated);
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
