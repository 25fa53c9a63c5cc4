//! `renew`: restarts the lease of this session's claims of a task from now.

use crate::formats::claim_file::{self, NewValue};
use crate::formats::claims_md;
use crate::formats::log::LogEvent;
use crate::model::Origin;
use crate::text::edit::FileEdits;
use crate::text::time::{format_duration, format_time};

use super::{Plan, Planner, Refusal};

impl Planner<'_> {
    pub(super) fn renew(&self) -> Result<Plan, Refusal> {
        let own = self.own_claims()?;
        let now = format_time(self.now());
        let mut md_edits = Vec::new();
        let mut files = Vec::new();
        for claim in &own {
            match claim.origin {
                Origin::Line(n) => {
                    md_edits.extend(claims_md::set_field(&self.rail.claims, n, "renewed", &now))
                }
                Origin::File(i) => {
                    let file = &self.rail.files[i];
                    files.push(FileEdits {
                        file: file.path.clone(),
                        create: false,
                        edits: claim_file::set_keys(
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
            self.log_of(LogEvent::Renewed, &own),
            format!(
                "renewed {}: lease of {} runs from now",
                self.task,
                format_duration(lease)
            ),
        ))
    }
}
