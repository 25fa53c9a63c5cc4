//! The gate before "done": a task is released only when its check passed and its changes stay
//! inside its declared paths.
//!
//! "The check did not start" (command missing, not executable, could not be spawned) is a
//! different event from "the check ran and failed", and both from "it passed but the diff
//! reaches outside the task's scope". Each gets its own verdict; only `passed` releases.

use serde::Serialize;

use crate::model::scope::ScopeReport;
use crate::model::Evaluation;
use crate::text::hint::Hint;

/// What running the check command gave.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum CheckOutcome {
    Passed,
    /// Ran and exited non-zero (or was killed by a signal).
    Failed {
        code: Option<i32>,
        signal: Option<i32>,
    },
    /// Never ran: not found, not executable, could not be spawned.
    NotStarted {
        reason: String,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum GateVerdict {
    Passed,
    Failed,
    NotStarted,
    OutOfScope,
    /// The session holds no claim of the task: there is nothing to finish (the check is not run).
    NotClaimed,
}

impl GateVerdict {
    pub fn as_str(self) -> &'static str {
        match self {
            GateVerdict::Passed => "passed",
            GateVerdict::Failed => "failed",
            GateVerdict::NotStarted => "not-started",
            GateVerdict::OutOfScope => "out-of-scope",
            GateVerdict::NotClaimed => "not-claimed",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct GateResult {
    pub verdict: GateVerdict,
    /// Release the claim? Only on `passed`.
    pub release: bool,
    /// Files that keep the task from passing (out of scope, or held by others).
    pub files: Vec<String>,
    pub message: String,
    /// What to do next when the task stays claimed.
    pub hint: Option<Hint>,
}

/// How a shell reports that a command could not be run at all.
pub fn outcome_from_exit(code: Option<i32>, signal: Option<i32>, command: &str) -> CheckOutcome {
    match (code, signal) {
        (Some(0), _) => CheckOutcome::Passed,
        (Some(127), _) => CheckOutcome::NotStarted {
            reason: format!("`{command}`: command not found (exit 127)"),
        },
        (Some(126), _) => CheckOutcome::NotStarted {
            reason: format!("`{command}`: not executable (exit 126)"),
        },
        (code, signal) => CheckOutcome::Failed { code, signal },
    }
}

/// Before the check runs: may `session` finish `task` at all? Only if it holds a claim of it,
/// or acts for a session that does (an agent finishing its branch's task); otherwise the verdict is [`GateVerdict::NotClaimed`] and the check is not run.
pub fn admit(eval: &Evaluation, task: &str, session: &str) -> Result<(), GateResult> {
    if eval
        .claims_of(task)
        .iter()
        .any(|c| eval.acts_for(session, c))
    {
        return Ok(());
    }
    Err(GateResult {
        verdict: GateVerdict::NotClaimed,
        release: false,
        files: Vec::new(),
        message: format!("{task} is not claimed by {session}; nothing to finish"),
        hint: None,
    })
}

/// Judges a task at the gate.
pub fn judge(task: &str, check: &str, outcome: &CheckOutcome, scope: &ScopeReport) -> GateResult {
    let mut scope_files: Vec<String> = scope.conflicts.clone();
    scope_files.extend(scope.out_of_scope.iter().cloned());
    match outcome {
        CheckOutcome::NotStarted { reason } => GateResult {
            verdict: GateVerdict::NotStarted,
            release: false,
            files: Vec::new(),
            message: format!("the check did not start ({reason}); {task} stays claimed"),
            hint: Some(Hint::FixCheck {
                task: task.to_string(),
            }),
        },
        CheckOutcome::Failed { code, signal } => {
            let how = match (code, signal) {
                (Some(c), _) => format!("exit {c}"),
                (None, Some(s)) => format!("killed by signal {s}"),
                _ => "failed".to_string(),
            };
            GateResult {
                verdict: GateVerdict::Failed,
                release: false,
                files: Vec::new(),
                message: format!(
                    "the check ran and failed (`{check}`: {how}); {task} stays claimed until it passes"
                ),
                hint: None,
            }
        }
        CheckOutcome::Passed if !scope_files.is_empty() => {
            let mut parts = Vec::new();
            if !scope.out_of_scope.is_empty() {
                parts.push(format!(
                    "outside {}'s declared paths: {}",
                    scope.session,
                    scope.out_of_scope.join(", ")
                ));
            }
            if !scope.conflicts.is_empty() {
                parts.push(format!(
                    "held by another session: {}",
                    scope.conflicts.join(", ")
                ));
            }
            GateResult {
                verdict: GateVerdict::OutOfScope,
                release: false,
                files: scope_files,
                message: format!(
                    "the check passed but the changes reach out of scope ({}); {task} stays claimed: revert those files or add them to the claim",
                    parts.join("; ")
                ),
                hint: Some(Hint::AddPaths {
                    task: Some(task.to_string()),
                }),
            }
        }
        CheckOutcome::Passed => GateResult {
            verdict: GateVerdict::Passed,
            release: true,
            files: Vec::new(),
            message: format!(
                "the check passed (`{check}`) and the changes are in scope; {task} is released"
            ),
            hint: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::input::{Facts, FileText, RailTexts};
    use crate::model::Rail;

    #[test]
    fn only_a_holder_of_the_task_may_finish_it() {
        let texts = RailTexts {
            claims: Some(FileText {
                path: "claims.md".into(),
                text: "auth | alice | 2026-10-22T14:05Z\nstale | bob | 2020-01-01T00:00Z\n".into(),
                modified: None,
            }),
            ..RailTexts::default()
        };
        let now = crate::text::time::parse_time("2026-10-22T14:10:00Z").unwrap();
        let eval = Rail::load(&texts).evaluate(&Facts::at(now));
        let table = [
            ("auth", "alice", None),
            ("stale", "bob", None),
            (
                "auth",
                "bob",
                Some("auth is not claimed by bob; nothing to finish"),
            ),
            (
                "free",
                "alice",
                Some("free is not claimed by alice; nothing to finish"),
            ),
        ];
        for (task, session, refused) in table {
            let got = admit(&eval, task, session);
            match refused {
                None => assert_eq!(got, Ok(()), "{task} {session}"),
                Some(message) => {
                    let r = got.expect_err(task);
                    assert_eq!(r.verdict, GateVerdict::NotClaimed);
                    assert!(!r.release);
                    assert_eq!(r.message, message);
                }
            }
        }
    }
}
