//! The answers a round gives its jobs, worded as `rail` reports them: core's verdicts, answers
//! another machine's commit recorded (checked against the fetched state), and the failures
//! that end a job — a deadline passed, an unreachable remote, a fate that cannot be read.

use rail_core::change::ops::Request;
use rail_core::change::queue::FoldVerdict;
use rail_core::change::snapshot;
use rail_core::formats::rail_files::CLAIMS_MD;

use super::Leader;
use crate::context::Ctx;
use crate::fail::Fail;
use crate::out::outcome::Report;
use crate::shared;
use crate::shared::exchange::Job;
use crate::shared::state::SharedState;
use crate::sys::env::env;

/// A job past its deadline, given up before a round could make it (`attempt`: the rounds run;
/// `published`: a copy of it is on the remote for other machines' rounds).
pub fn gave_up(attempt: u32, published: bool, remote: &str) -> Report {
    let mut text = format!(
        "gave up after {attempt} attempts in {} s: the shared rail kept changing under us (other machines are busy); try again",
        env().shared_timeout.as_secs()
    );
    if published {
        text = format!(
            "{text}; it was queued on {remote} for the other machines' rounds, and no commit said what became of it: it may or may not have been made — `rail sync` and look"
        );
    }
    Report::from_fail(&Fail::env(text))
}

/// A round that failed, as each of its jobs is answered (`published`: as [`gave_up`]).
pub fn failed(fail: &Fail, published: bool, remote: &str) -> Report {
    let mut fail = fail.clone();
    if published {
        fail.message = format!(
            "{}; it was also queued on {remote} for the other machines' rounds and may still be made before its deadline: `rail sync` and look",
            fail.message
        );
    }
    Report::from_fail(&fail)
}

/// A verdict as `rail` answers it.
pub fn worded(verdict: &FoldVerdict) -> Report {
    match verdict {
        FoldVerdict::Planned { plan, changed } => crate::out::outcome::Report::planned(plan, *changed),
        FoldVerdict::Refused { refusal, .. } => {
            Report::from_fail(&crate::out::outcome::refused(refusal.clone()))
        }
        FoldVerdict::Expired => Report::from_fail(&Fail::env(format!(
            "gave up: the operation's deadline of {} s passed before a round could make it; nothing was changed",
            crate::sys::env::env().shared_timeout.as_secs()
        ))),
        FoldVerdict::Broken(e) => Report::from_fail(&Fail::env(format!(
            "internal error applying a plan's edits: {e}"
        ))),
    }
}

/// An answer another machine's commit recorded for `job`, checked against the fetched state as
/// far as it can be: a claim said made must be held there by its session.
pub fn learned(
    outcome: serde_json::Value,
    by: &str,
    job: &Job,
    files: &snapshot::SharedFiles,
) -> Report {
    let outcome: Report = match serde_json::from_value(outcome) {
        Ok(o) => o,
        Err(e) => {
            return Report::from_fail(&Fail::env(format!(
                "machine {by} decided this operation on the shared rail, but its answer cannot be read ({e}); `rail sync` and look"
            )))
        }
    };
    if let Some(Request::Claim(c)) = &job.request {
        if outcome.code == 0 && outcome.changed {
            let claims = files.get(CLAIMS_MD).map_or("", String::as_str);
            let held = rail_core::formats::claims_md::parse(claims)
                .claims()
                .any(|(_, h)| h.task == c.task && h.session == job.session);
            if !held {
                return Report::from_fail(&Fail::env(format!(
                    "machine {by} recorded {} as claimed for {} on the shared rail, but the shared rail does not hold that claim now (released or taken since, or the record is wrong): `rail sync` and look",
                    c.task, job.session
                )));
            }
        }
    }
    Report {
        warnings: Vec::new(),
        ..outcome
    }
}

/// The answer to a published job whose fate cannot be read from the fetched chain.
pub fn unknown(remote: &str, rewound: bool) -> Report {
    let why = if rewound {
        "the shared rail was rewound since"
    } else {
        "the shared rail moved on further than this machine reads back, or a commit's record cannot be read"
    };
    Report::from_fail(&Fail::env(format!(
        "this operation was queued on {remote} for the other machines' rounds, and {why}: it may or may not have been made — `rail sync` and look"
    )))
}

/// Answers learned in a round that does not commit: mirrored into the checkout when they
/// or the fetched state are new here, with the round's warnings.
pub fn finish_answered(
    ctx: &Ctx,
    remote: &str,
    l: &mut Leader,
    state: &SharedState,
    answered: &mut [(usize, Report)],
    warnings: &[String],
) {
    shared::mark_synced(ctx);
    let mut problem = None;
    if l.memory.mirrored != state.commit || !answered.is_empty() {
        match shared::mirror(ctx, state) {
            Ok(()) => l.memory.mirrored = state.commit.clone(),
            Err(f) => problem = Some(f.message),
        }
    }
    for (_, outcome) in answered.iter_mut() {
        outcome.warnings.extend(warnings.iter().cloned());
        if let (Some(p), 0, true) = (&problem, outcome.code, outcome.changed) {
            outcome.warnings.push(format!(
                "done on {remote}, but the local copy was not updated: {p}"
            ));
        }
    }
}
