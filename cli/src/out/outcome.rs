//! What became of an operation, worded as its requester reports it: exit code, message, the
//! `--json` document and warnings. A change made here and one a shared rail's leader made for
//! this process (docs/shared-rail.md) come back as the same [`Report`], which the CLI prints
//! and `rail mcp` returns as a tool result.

use rail_core::change::ops::{Plan, Refusal};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::fail::Fail;

/// What became of an operation.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Report {
    /// The exit code: 0 done, 1 refused, 3 environment.
    pub code: i32,
    /// Whether the operation changed the rail (false for a no-op and for a sync).
    pub changed: bool,
    /// The message: what was done, or why not.
    pub text: String,
    /// The `--json` document.
    pub json: Option<Value>,
    /// Printed on stderr by the requester (the local mirror could not be updated).
    pub warnings: Vec<String>,
}

impl Report {
    /// A plan carried out: core's message with its hint worded as a command line, and the plan
    /// as the JSON (each consumer words the hint its own way).
    pub fn planned(plan: &Plan, changed: bool) -> Report {
        Report {
            code: 0,
            changed,
            text: super::hint::say(&plan.message, plan.hint.as_ref()),
            json: Some(serde_json::json!({ "ok": true, "plan": plan })),
            warnings: Vec::new(),
        }
    }

    pub fn from_fail(fail: &Fail) -> Report {
        Report {
            code: fail.code,
            changed: false,
            text: fail.message.clone(),
            json: fail.json.clone(),
            warnings: Vec::new(),
        }
    }

    /// The report as a command's result: its warnings said on stderr, a failure as a [`Fail`].
    pub fn into_result(self) -> Result<Report, Fail> {
        for w in &self.warnings {
            errln!("rail: {w}");
        }
        if self.code == 0 {
            Ok(self)
        } else {
            Err(Fail {
                code: self.code,
                message: self.text,
                json: self.json,
            })
        }
    }

    /// Prints it: the message, or with `json` the document.
    pub fn print(&self, json: bool) {
        match (&self.json, json) {
            (Some(doc), true) => {
                outln_raw!("{}", serde_json::to_string_pretty(doc).unwrap_or_default())
            }
            _ => outln!("{}", self.text),
        }
    }
}

/// A refusal as the CLI reports it: exit code, and on stderr the message with the hint as a
/// command line. The JSON keeps core's message and the hint as data.
pub fn refused(refusal: Refusal) -> Fail {
    Fail {
        code: refusal.exit_code(),
        message: super::hint::say(&refusal.message, refusal.hint.as_ref()),
        json: Some(serde_json::json!({ "ok": false, "refusal": refusal })),
    }
}
