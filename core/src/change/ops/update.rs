//! `update`: changes the paths, resources or purpose of this session's claim of a task.

use crate::formats::claim_file::{self, NewValue};
use crate::formats::claims_md;
use crate::formats::log::LogEvent;
use crate::model::Origin;
use crate::text::edit::FileEdits;

use super::{
    check_purpose, check_resources, merge_inserts, normalize_paths, Plan, Planner, Refusal,
};

/// What an update sets: `paths` and `resources` replace what the claim holds; `add_paths` and
/// `add_resources` are added to it (to the replacement, when both are given); `None` and empty
/// leave it as it is.
pub(super) struct ClaimChanges<'a> {
    pub paths: Option<&'a [String]>,
    pub resources: Option<&'a [String]>,
    pub purpose: Option<&'a str>,
    pub add_paths: &'a [String],
    pub add_resources: &'a [String],
}

/// `base` with `added` after it, each once, in order.
fn with_added(base: &[String], added: &[String]) -> Vec<String> {
    let mut out = base.to_vec();
    for a in added {
        if !out.contains(a) {
            out.push(a.clone());
        }
    }
    out
}

impl Planner<'_> {
    pub(super) fn update(&self, u: ClaimChanges<'_>) -> Result<Plan, Refusal> {
        let task = self.task;
        let own = self.own_claims()?;
        let mine = own[0];
        // What is added is added to the replacement, else to what the claim holds now.
        let paths = match (u.paths, u.add_paths.is_empty()) {
            (Some(p), _) => Some(with_added(p, u.add_paths)),
            (None, false) => Some(with_added(&mine.paths, u.add_paths)),
            (None, true) => None,
        };
        let resources = match (u.resources, u.add_resources.is_empty()) {
            (Some(r), _) => Some(with_added(r, u.add_resources)),
            (None, false) => Some(with_added(&mine.resources, u.add_resources)),
            (None, true) => None,
        };
        let paths = paths.map(|p| normalize_paths(task, &p)).transpose()?;
        // Two spellings of one path (`./a`, `a`) are one path once normalized.
        let paths = paths.map(|p| with_added(&[], &p));
        let resources = (resources.as_deref())
            .map(|r| check_resources(task, r))
            .transpose()?;
        let purpose = u.purpose;
        check_purpose(task, purpose)?;
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
        // What the claim holds now, so an agent sees at once what it kept and what it added.
        let held = |set: Option<&Vec<String>>, now: &[String]| {
            let list = set.map_or(now, Vec::as_slice);
            if list.is_empty() {
                "none".to_string()
            } else {
                list.join(", ")
            }
        };
        let message = format!(
            "updated {task}: paths {}; resources {}",
            held(paths.as_ref(), &mine.paths),
            held(resources.as_ref(), &mine.resources)
        );
        Ok(self.plan("update", edits, log, message))
    }
}
