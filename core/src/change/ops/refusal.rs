//! Why an operation changed nothing: [`Refusal`], its [`RefusalKind`] and exit code, and the
//! one-line description of the claim that holds a task.

use chrono::TimeDelta;
use serde::Serialize;

use crate::model::conflict::Conflict;
use crate::model::lease::LeaseState;
use crate::model::Claim;
use crate::text::diagnostic::Located;
use crate::text::time::{self, format_duration, format_time};

use super::Hint;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum RefusalKind {
    /// Another session holds the task (live or expiring).
    Held,
    /// Another session's claim is stale: free to take with `take`, not to `claim` over.
    StaleHeld,
    /// The task is not claimed.
    NotClaimed,
    /// The task is held by another session.
    NotYours,
    /// `take` of a claim that is not stale.
    NotStale,
    /// The requested paths overlap another session's live claim.
    PathConflict,
    /// An exclusive resource is held by another session.
    ResourceConflict,
    /// A broken line in claims.md names the task.
    BrokenLine,
    /// claims.md has a merge conflict marker: no change until it is resolved.
    ConflictMarker,
    /// The change would not count: the new claim line would land inside a code block or HTML
    /// (an unclosed ```` ``` ```` or `<!--` at the end of claims.md), or the edit would hide
    /// or reveal other lines. No change until the file is fixed.
    HiddenClaim,
    /// The task id looks like another task on the rail but is not the same (`аuth` with a
    /// Cyrillic `а` beside `auth`): claiming it would let two sessions hold "one" task.
    Confusable,
    /// The request itself is invalid (bad task id, path, duration...).
    BadInput,
    /// A value of the request is over its limit, or the change would make a rail file larger
    /// than Rail reads (`text::limits`): nothing is written that would leave the rail
    /// unreadable.
    TooLarge,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Refusal {
    pub kind: RefusalKind,
    pub task: String,
    /// The session that holds what was asked for.
    pub holder: Option<String>,
    pub holder_claim: Option<usize>,
    pub claimed_at: Option<String>,
    pub age_secs: Option<i64>,
    pub lease_left_secs: Option<i64>,
    pub state: Option<LeaseState>,
    /// Why the holder's claim is in its state.
    pub reason: Option<String>,
    /// The conflicts the claim would have, at most four (a claim's conflicts as the board lists
    /// them).
    pub conflicts: Vec<Conflict>,
    /// How many more conflicts it would have than `conflicts` lists. Present only when some
    /// are left out.
    #[serde(skip_serializing_if = "crate::model::is_zero")]
    #[cfg_attr(feature = "ts", ts(as = "Option<usize>", optional))]
    pub conflicts_unlisted: usize,
    /// What happened, without the how-to: that is `hint`, which each host words its own way.
    pub message: String,
    /// What the session can do about it, if there is something to do.
    pub hint: Option<Hint>,
    /// Where in the rail the problem is (the first conflict marker; the unclosed block).
    pub location: Option<Located>,
}

impl Refusal {
    /// The CLI's exit code: 2 for bad input (the request, or a claims.md a person must fix
    /// first: a conflict marker, an unclosed block), 1 for every other refusal.
    pub fn exit_code(&self) -> i32 {
        if matches!(
            self.kind,
            RefusalKind::BadInput
                | RefusalKind::ConflictMarker
                | RefusalKind::HiddenClaim
                | RefusalKind::TooLarge
        ) {
            2
        } else {
            1
        }
    }

    pub(super) fn bad(task: &str, message: impl Into<String>) -> Refusal {
        Refusal {
            kind: RefusalKind::BadInput,
            task: task.to_string(),
            holder: None,
            holder_claim: None,
            claimed_at: None,
            age_secs: None,
            lease_left_secs: None,
            state: None,
            reason: None,
            conflicts: Vec::new(),
            conflicts_unlisted: 0,
            message: message.into(),
            hint: None,
            location: None,
        }
    }

    /// A value over its limit, or a file the change would make too large to read.
    pub(super) fn too_large(task: &str, message: impl Into<String>) -> Refusal {
        Refusal {
            kind: RefusalKind::TooLarge,
            ..Refusal::bad(task, message)
        }
    }

    pub(super) fn about(
        kind: RefusalKind,
        claim: &Claim,
        now: time::Time,
        message: String,
    ) -> Refusal {
        Refusal {
            kind,
            task: claim.task.clone().unwrap_or_default(),
            holder: Some(claim.session.clone()),
            holder_claim: Some(claim.id),
            claimed_at: claim.claimed_at.map(format_time),
            age_secs: claim.age(now).map(|d| d.num_seconds()),
            lease_left_secs: claim.lease_state.left.map(|d| d.num_seconds()),
            state: Some(claim.state()),
            reason: Some(claim.lease_reason()),
            conflicts: Vec::new(),
            conflicts_unlisted: 0,
            message,
            hint: None,
            location: None,
        }
    }
}

/// "held by session-a since 2026-10-22T14:05:00Z (1h12m ago, claims.md:3); 48m left of its 2h lease"
pub(super) fn describe_holder(claim: &Claim, now: time::Time) -> String {
    let since = match claim.claimed_at {
        Some(t) => format!(
            " since {} ({} ago)",
            format_time(t),
            format_duration((now - t).max(TimeDelta::zero()))
        ),
        None => String::new(),
    };
    // The state decides the wording: a dead owner makes a claim stale with time left, a live
    // owner keeps it holding past its end.
    let lease = match claim.lease_state.left {
        _ if claim.state() == LeaseState::Stale => format!("; stale: {}", claim.lease_reason()),
        Some(left) if left > TimeDelta::zero() => format!(
            "; {} left of its {} lease",
            format_duration(left),
            format_duration(claim.lease)
        ),
        Some(_) => format!("; {}", claim.lease_reason()),
        None => String::new(),
    };
    let machine = match &claim.machine {
        Some(m) => format!(" on machine {m}"),
        None => String::new(),
    };
    format!(
        "held by {}{machine}{since} at {}:{}{lease}",
        claim.session, claim.file, claim.line
    )
}
