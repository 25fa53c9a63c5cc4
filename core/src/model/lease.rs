//! Leases: how long a claim holds without activity, and what state it is in now.
//!
//! A lease runs from the latest activity: the claim time, the last renewal, or the last commit on
//! the session's branch. It lasts the claim's own `lease:` or the repo default (2h). With less
//! than the `expiring` threshold left it is `expiring`; past its end it is `stale`, free to take.
//! Liveness facts override time: an owner process known dead on this host makes the claim stale
//! at once; an owner known alive is never stale by time alone.
//!
//! On a shared rail a claim's times were written by another machine's clock, which may be hours
//! off this one's. There the host also says when this machine first saw each claim's activity
//! (`observed_at`, by its own clock), and an activity counts from the later of its recorded time
//! and that sighting: a clock ahead cannot make a renewal it just saw look hours old, and a
//! clock behind cannot write a claim that is born stale (issue 42, finding 4).

use chrono::TimeDelta;
use serde::Serialize;

use crate::text::time::{format_duration, format_time, Time};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum LeaseState {
    Live,
    Expiring,
    Stale,
}

impl LeaseState {
    pub fn as_str(self) -> &'static str {
        match self {
            LeaseState::Live => "live",
            LeaseState::Expiring => "expiring",
            LeaseState::Stale => "stale",
        }
    }

    /// Live and expiring claims hold; stale ones are free to take.
    pub fn holds(self) -> bool {
        self != LeaseState::Stale
    }
}

/// What last kept the lease going.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Activity {
    Claimed,
    Renewed,
    Commit,
    /// No time known at all.
    None,
}

/// Everything a lease decision needs about one claim.
#[derive(Clone, Debug)]
pub struct LeaseInput<'a> {
    pub claimed_at: Option<Time>,
    pub renewed_at: Option<Time>,
    pub last_commit_at: Option<Time>,
    pub lease: TimeDelta,
    pub branch: &'a str,
    /// `pid@host` of the owner, when recorded.
    pub owner: Option<&'a str>,
    /// What the host knows of the owner: alive, dead, or nothing.
    pub owner_alive: Option<bool>,
    /// When this host first saw the claim as it is (the host's own clock, e.g. the mtime of the
    /// file that holds it). A claim or renewal time after `now` (another machine's clock runs
    /// ahead, or a `--now` in the future) counts from here, never from itself.
    pub seen_at: Option<Time>,
    /// On a shared rail: when this machine first saw this claim with these claim and renewal
    /// times, by its own clock (`Facts::observed`). `None` off a shared rail.
    pub observed_at: Option<Time>,
}

/// A claim or renewal time as a lease counts it.
///
/// With an observation (a shared rail): the later of the time and when this machine first saw
/// it, a time after `now` counting from that sighting alone; never after `now`. The recorded time
/// comes from another machine's clock and cannot move the lease's start before this machine
/// knew of it, however far that clock is off.
///
/// Without one: a time after `now` has not happened yet by this host's clock, so it counts from
/// when the host first saw it (`seen_at`, when that is not itself after `now`), else from `now`;
/// never later than the time itself.
pub fn counted_time(t: Time, seen_at: Option<Time>, observed_at: Option<Time>, now: Time) -> Time {
    if let Some(seen) = observed_at {
        let from = if t > now { seen } else { t.max(seen) };
        return from.min(now);
    }
    if t <= now {
        return t;
    }
    seen_at.filter(|s| *s <= now).unwrap_or(now).min(t)
}

/// What names a claim's activity for [`LeaseInput::observed_at`]: its task (or file), session,
/// claim time and renewal, as written. A renewal or a take is a new activity, seen anew.
pub fn activity_key(
    what: &str,
    session: &str,
    since: Option<Time>,
    renewed: Option<Time>,
) -> String {
    let time = |t: Option<Time>| t.map(format_time).unwrap_or_else(|| "-".to_string());
    format!("{what}\t{session}\t{}\t{}", time(since), time(renewed))
}

/// Is `t` far enough after `now` to be worth a `future-time` warning? A few minutes of clock
/// difference between machines is normal and says nothing.
pub fn is_future(t: Time, now: Time) -> bool {
    t - now > FUTURE_TOLERANCE
}

/// How far ahead of this host's clock a claim time may be before `rail validate` warns.
pub const FUTURE_TOLERANCE: TimeDelta = TimeDelta::minutes(5);

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lease {
    pub start: Option<Time>,
    pub end: Option<Time>,
    /// Negative once the lease ran out.
    pub left: Option<TimeDelta>,
    pub activity: Activity,
    pub state: LeaseState,
    /// What the lease's sentence says, kept as facts: [`Lease::reason`] writes it only when it
    /// is shown (a replay evaluates every claim once an operation and shows none). `None` for a
    /// lease not judged yet ([`Lease::unjudged`]), which has no sentence.
    words: Option<Words>,
}

/// The facts of a lease's sentence beside its times (the lease is `end - start`; the time idle,
/// `end - start - left`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Words {
    why: Why,
    /// The latest recorded claim or renewal time after the evaluation's `now`.
    future: Option<Time>,
    /// The recorded time of the latest activity, when a sighting counted it later.
    raised: Option<Time>,
}

/// Which rule decided the state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Why {
    /// No time at all: stale when the owner is dead, else the lease cannot run out.
    NoTime,
    /// The owner is known dead.
    Dead,
    /// The lease ran out, but the owner is known alive.
    OutButAlive,
    /// The lease ran out.
    Out,
    /// Time is left.
    Left,
}

impl Lease {
    /// A lease not judged yet, live from `start`: a claim before it is made, or before its
    /// evaluation. Its sentence is empty.
    pub fn unjudged(start: Option<Time>, activity: Activity) -> Lease {
        Lease {
            start,
            end: None,
            left: None,
            activity,
            state: LeaseState::Live,
            words: None,
        }
    }

    /// The lease in a sentence, why it is in its state: "1h5m left of 2h (until …); claimed 55m
    /// ago". `branch` and `owner` are the claim's (its [`LeaseInput`]'s), which the sentence
    /// names.
    pub fn reason(&self, branch: &str, owner: Option<&str>) -> String {
        let Some(w) = self.words else {
            return String::new();
        };
        let owner = || match owner {
            Some(pid) => format!("owner process {pid}"),
            None => "its owner".to_string(),
        };
        let (Some(start), Some(end), Some(left)) = (self.start, self.end, self.left) else {
            return match self.state {
                LeaseState::Stale => format!("{} is dead", owner()),
                _ => {
                    "no claim time is known (add `since:`), so the lease cannot run out".to_string()
                }
            };
        };
        let lease = end - start;
        let idle = lease - left;
        let lease_text = format_duration(lease);
        let since = || {
            let mut text = match self.activity {
                Activity::Commit => format!("last commit on {branch} {} ago", ago(idle)),
                Activity::Renewed => format!("renewed {} ago", ago(idle)),
                _ => format!("claimed {} ago", ago(idle)),
            };
            if let Some(t) = w.future {
                text.push_str(&format!(
                    " (its time {} is in the future: counted from {}, when this host saw it)",
                    format_time(t),
                    format_time(start)
                ));
            } else if let Some(t) = w.raised.filter(|t| *t < start) {
                text.push_str(&format!(
                    " (its time {} is before this machine first saw it: counted from {})",
                    format_time(t),
                    format_time(start)
                ));
            }
            text
        };
        match w.why {
            Why::Dead | Why::NoTime => format!("{} is dead ({})", owner(), since()),
            Why::OutButAlive => format!(
                "lease of {lease_text} ran out {} ago, but {} is alive",
                ago(-left),
                owner()
            ),
            Why::Out => match self.activity {
                Activity::Commit => {
                    format!(
                        "no commit on {branch} for {} (lease {lease_text})",
                        ago(idle)
                    )
                }
                Activity::Renewed => format!(
                    "no renewal or commit on {branch} for {} (lease {lease_text})",
                    ago(idle)
                ),
                _ => format!(
                    "claimed {} ago with no commit on {branch} or renewal since (lease \
                     {lease_text})",
                    ago(idle)
                ),
            },
            Why::Left => format!(
                "{} left of {lease_text} (until {}); {}",
                format_duration(left),
                format_time(end),
                since()
            ),
        }
    }
}

pub fn evaluate(input: &LeaseInput<'_>, now: Time, expiring: TimeDelta) -> Lease {
    // A claim or renewal time after `now` counts from when this host first saw it, so its
    // lease runs out by this host's clock and time left never exceeds the lease.
    let counted =
        |t: Option<Time>| t.map(|t| counted_time(t, input.seen_at, input.observed_at, now));
    let future = [input.claimed_at, input.renewed_at]
        .iter()
        .flatten()
        .copied()
        .filter(|t| *t > now)
        .max();
    // The recorded time of the activity a sighting moved later, named in the reason.
    let recorded = |a: Activity| match a {
        Activity::Claimed => input.claimed_at,
        Activity::Renewed => input.renewed_at,
        _ => None,
    };
    let candidates = [
        (counted(input.claimed_at), Activity::Claimed),
        (counted(input.renewed_at), Activity::Renewed),
        // A commit "after now" has not happened yet as of `now` (a replay with an earlier
        // time, or another machine's clock running ahead): it does not count.
        (input.last_commit_at.filter(|t| *t <= now), Activity::Commit),
    ];
    // The latest activity; on equal times the earlier-listed kind is named.
    let latest = candidates
        .iter()
        .filter_map(|(t, a)| t.map(|t| (t, *a)))
        .fold(None::<(Time, Activity)>, |best, (t, a)| match best {
            Some((bt, _)) if bt >= t => best,
            _ => Some((t, a)),
        });
    let words = |why: Why, raised: Option<Time>| {
        Some(Words {
            why,
            future,
            raised,
        })
    };

    let Some((start, activity)) = latest else {
        // No time at all (a claim file without `since` and no mtime from the host).
        let dead = input.owner_alive == Some(false);
        return Lease {
            start: None,
            end: None,
            left: None,
            activity: Activity::None,
            state: if dead {
                LeaseState::Stale
            } else {
                LeaseState::Live
            },
            words: words(Why::NoTime, None),
        };
    };

    let raised = recorded(activity).filter(|_| input.observed_at.is_some());
    let end = start + input.lease;
    let left = end - now;
    let (state, why) = if input.owner_alive == Some(false) {
        (LeaseState::Stale, Why::Dead)
    } else if left <= TimeDelta::zero() {
        if input.owner_alive == Some(true) {
            (LeaseState::Live, Why::OutButAlive)
        } else {
            (LeaseState::Stale, Why::Out)
        }
    } else if left <= expiring {
        (LeaseState::Expiring, Why::Left)
    } else {
        (LeaseState::Live, Why::Left)
    };
    Lease {
        start: Some(start),
        end: Some(end),
        left: Some(left),
        activity,
        state,
        words: words(why, raised),
    }
}

/// A non-negative duration for "… ago" texts (clock skew can make activity lie in the future).
fn ago(d: TimeDelta) -> String {
    format_duration(d.max(TimeDelta::zero()))
}

/// The `git for-each-ref` format whose rows [`commit_times`] reads: ref name, committer time
/// (Unix seconds) and, when `base` is given, `%(ahead-behind:<base>)`, separated by NUL.
pub fn for_each_ref_format(base: Option<&str>) -> String {
    match base {
        Some(b) => format!("--format=%(refname)%00%(committerdate:unix)%00%(ahead-behind:{b})"),
        None => "--format=%(refname)%00%(committerdate:unix)".to_string(),
    }
}

/// Which commits count for a lease, from the rows of `git for-each-ref` (see
/// [`for_each_ref_format`]) over the refs under `prefix` (`refs/heads/`,
/// `refs/remotes/origin/`): each branch's tip time, keyed by the branch name under `prefix`.
///
/// A branch with no commit ahead of the base (just cut from it) is left out: the base's history
/// must not keep its claims alive. So is a remote's `HEAD`, which is an alias, not a branch.
/// Rows without an ahead-behind column (git older than 2.41, or no base) count as they are.
/// Unreadable rows are skipped; a branch listed twice keeps its latest time.
pub fn commit_times(rows: &str, prefix: &str) -> std::collections::BTreeMap<String, Time> {
    let mut times = std::collections::BTreeMap::new();
    for row in rows.lines() {
        if let Some((branch, time)) = commit_row(row, prefix) {
            let entry = times.entry(branch.to_string()).or_insert(time);
            if *entry < time {
                *entry = time;
            }
        }
    }
    times
}

fn commit_row<'a>(row: &'a str, prefix: &str) -> Option<(&'a str, Time)> {
    let mut fields = row.split('\0');
    let branch = fields.next()?.strip_prefix(prefix)?;
    if branch.is_empty() || branch == "HEAD" {
        return None;
    }
    let secs: i64 = fields.next()?.trim().parse().ok()?;
    if let Some(ahead_behind) = fields.next() {
        let ahead: u64 = ahead_behind.split_whitespace().next()?.parse().ok()?;
        if ahead == 0 {
            return None;
        }
    }
    Some((branch, Time::from_timestamp(secs, 0)?))
}

/// A lease in words, as every board shows it: `1h20m left`, `ran out 3m ago`, `stale: owner gone`.
pub fn phrase(left: Option<chrono::TimeDelta>, state: LeaseState) -> String {
    match left {
        None => "no time known".to_string(),
        Some(l) if l.num_seconds() > 0 && state == LeaseState::Stale => {
            "stale: owner gone".to_string()
        }
        Some(l) if l.num_seconds() > 0 => format!("{} left", crate::text::time::format_duration(l)),
        Some(l) if state == LeaseState::Stale => {
            format!("ran out {} ago", crate::text::time::format_duration(-l))
        }
        Some(l) => format!(
            "ran out {} ago; owner alive",
            crate::text::time::format_duration(-l)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::time::parse_time;

    fn t(s: &str) -> Time {
        parse_time(s).unwrap()
    }

    /// The sentence of `l`, evaluated from [`input`] or a change of it.
    fn said(l: &Lease, i: &LeaseInput) -> String {
        l.reason(i.branch, i.owner)
    }

    fn input() -> LeaseInput<'static> {
        LeaseInput {
            claimed_at: Some(t("2026-10-22T14:05Z")),
            renewed_at: None,
            last_commit_at: None,
            lease: TimeDelta::hours(2),
            branch: "session-a",
            owner: Some("4242@devbox"),
            owner_alive: None,
            seen_at: None,
            observed_at: None,
        }
    }

    #[test]
    fn states_over_time() {
        let exp = TimeDelta::minutes(15);
        let live = evaluate(&input(), t("2026-10-22T15:00Z"), exp);
        assert_eq!(live.state, LeaseState::Live);
        assert_eq!(
            said(&live, &input()),
            "1h5m left of 2h (until 2026-10-22T16:05:00Z); claimed 55m ago"
        );
        assert_eq!(
            evaluate(&input(), t("2026-10-22T15:55Z"), exp).state,
            LeaseState::Expiring
        );
        let stale = evaluate(&input(), t("2026-10-22T16:18Z"), exp);
        assert_eq!(stale.state, LeaseState::Stale);
        assert_eq!(
            said(&stale, &input()),
            "claimed 2h13m ago with no commit on session-a or renewal since (lease 2h)"
        );
    }

    #[test]
    fn commits_keep_the_ticket() {
        let mut i = input();
        i.last_commit_at = Some(t("2026-10-22T15:30Z"));
        let l = evaluate(&i, t("2026-10-22T16:18Z"), TimeDelta::minutes(15));
        assert_eq!(l.state, LeaseState::Live);
        assert_eq!(l.activity, Activity::Commit);
        let l = evaluate(&i, t("2026-10-22T17:43Z"), TimeDelta::minutes(15));
        assert_eq!(said(&l, &i), "no commit on session-a for 2h13m (lease 2h)");
    }

    #[test]
    fn commits_after_now_do_not_count() {
        let mut i = input();
        i.last_commit_at = Some(t("2026-10-22T18:00Z"));
        let l = evaluate(&i, t("2026-10-22T16:18Z"), TimeDelta::minutes(15));
        assert_eq!(l.state, LeaseState::Stale);
        assert_eq!(l.activity, Activity::Claimed);
    }

    #[test]
    fn a_future_time_counts_from_when_it_was_seen() {
        // Issue 31 finding 6: `--now 2099-…` (or a clock running ahead) held forever.
        let exp = TimeDelta::minutes(15);
        let mut i = input();
        i.claimed_at = Some(t("2099-01-01T00:00Z"));
        i.seen_at = Some(t("2026-10-22T14:00Z"));
        let l = evaluate(&i, t("2026-10-22T15:00Z"), exp);
        assert_eq!(l.state, LeaseState::Live);
        assert_eq!(l.left, Some(TimeDelta::hours(1)));
        assert_eq!(l.start, Some(t("2026-10-22T14:00Z")));
        assert!(
            said(&l, &i).contains("2099-01-01T00:00:00Z is in the future"),
            "{}",
            said(&l, &i)
        );
        // Its lease runs out by this host's clock.
        let l = evaluate(&i, t("2026-10-22T16:01Z"), exp);
        assert_eq!(l.state, LeaseState::Stale, "{}", said(&l, &i));
        // A renewal from the future is no different.
        let mut r = input();
        r.renewed_at = Some(t("2099-01-01T00:00Z"));
        r.seen_at = Some(t("2026-10-22T15:00Z"));
        assert_eq!(
            evaluate(&r, t("2026-10-22T17:01Z"), exp).state,
            LeaseState::Stale
        );
        // Whatever the host knows, time left never exceeds the lease.
        for seen in [
            None,
            Some(t("2098-01-01T00:00Z")),
            Some(t("2026-10-22T15:00Z")),
        ] {
            i.seen_at = seen;
            let l = evaluate(&i, t("2026-10-22T15:00Z"), exp);
            assert!(l.left.unwrap() <= i.lease, "{seen:?}: {l:?}");
        }
        // A past time is untouched by what the host saw.
        let mut p = input();
        p.seen_at = Some(t("2026-10-22T15:59Z"));
        assert_eq!(
            evaluate(&p, t("2026-10-22T16:18Z"), exp).state,
            LeaseState::Stale
        );
        assert!(is_future(t("2026-10-22T15:06Z"), t("2026-10-22T15:00Z")));
        assert!(!is_future(t("2026-10-22T15:04Z"), t("2026-10-22T15:00Z")));
    }

    #[test]
    fn liveness_overrides_time() {
        let mut i = input();
        i.owner_alive = Some(false);
        let l = evaluate(&i, t("2026-10-22T14:06Z"), TimeDelta::minutes(15));
        assert_eq!(l.state, LeaseState::Stale);
        assert!(said(&l, &i).starts_with("owner process 4242@devbox is dead"));
        i.owner_alive = Some(true);
        let l = evaluate(&i, t("2026-10-23T14:06Z"), TimeDelta::minutes(15));
        assert_eq!(l.state, LeaseState::Live);
        assert!(said(&l, &i).contains("alive"));
        // Without a pid the liveness is the session's (regression: "owner process its owner").
        i.owner = None;
        i.owner_alive = Some(false);
        let l = evaluate(&i, t("2026-10-22T14:06Z"), TimeDelta::minutes(15));
        assert_eq!(said(&l, &i), "its owner is dead (claimed 1m ago)");
        i.owner_alive = Some(true);
        let l = evaluate(&i, t("2026-10-23T14:06Z"), TimeDelta::minutes(15));
        assert_eq!(
            said(&l, &i),
            "lease of 2h ran out 22h1m ago, but its owner is alive"
        );
    }

    #[test]
    fn which_commits_count_for_a_lease() {
        let t = |s: i64| Time::from_timestamp(s, 0).unwrap();
        let rows = [
            "refs/heads/ahead\u{0}1761141900\u{0}2 5",
            "refs/heads/just-cut\u{0}1761141900\u{0}0 3",
            "refs/heads/plain\u{0}1761141800",
            "refs/heads/feature/x\u{0}1761141700\u{0}1 0",
            "refs/heads/HEAD\u{0}1761141900\u{0}1 0",
            "refs/heads/\u{0}1761141900\u{0}1 0",
            "refs/tags/v1\u{0}1761141900",
            "refs/heads/garbled\u{0}yesterday",
            "refs/heads/bad-ahead\u{0}1761141900\u{0}many",
            "refs/heads/ahead\u{0}1761141000\u{0}1 5",
            "",
        ]
        .join("\n");
        let times = commit_times(&rows, "refs/heads/");
        let expected: Vec<(&str, Time)> = vec![
            ("ahead", t(1761141900)),
            ("feature/x", t(1761141700)),
            ("plain", t(1761141800)),
        ];
        assert_eq!(
            times
                .iter()
                .map(|(b, t)| (b.as_str(), *t))
                .collect::<Vec<_>>(),
            expected
        );
        let remote = "refs/remotes/origin/HEAD\u{0}1761141900\u{0}1 0\nrefs/remotes/origin/s\u{0}1761141900\u{0}3 0\n";
        assert_eq!(
            commit_times(remote, "refs/remotes/origin/")
                .keys()
                .collect::<Vec<_>>(),
            ["s"]
        );
        assert!(for_each_ref_format(Some("main")).ends_with("%00%(ahead-behind:main)"));
        assert!(!for_each_ref_format(None).contains("ahead-behind"));
    }
}
