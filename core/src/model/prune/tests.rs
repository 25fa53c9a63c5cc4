//! The pruning verdict, case by case: each worktree state with what keeps it (by `kind`, as
//! the JSON names it), or that it goes.

use super::*;
use crate::model::lease::LeaseState;
use crate::model::station::{StationFacts, StationState};

/// A linked worktree, clean, every commit in `main`, nobody in it.
fn clean() -> StationFacts {
    StationFacts {
        path: "/r/.claude/worktrees/fix".into(),
        branch: Some("worktree-fix".into()),
        dirty: Some(Vec::new()),
        base: Some("main".into()),
        unmerged: Some(0),
        head: Some("abc".into()),
        ..StationFacts::default()
    }
}

fn seen() -> Occupancy {
    Occupancy {
        processes: Some(Vec::new()),
        ..Occupancy::default()
    }
}

fn claim(state: LeaseState) -> StationClaim {
    StationClaim {
        task: Some("fix".into()),
        session: "worktree-fix".into(),
        state,
    }
}

const CLAUDE_LOCK: &str = "claude session fix (pid 4242 start 1225262)";

struct Case {
    name: &'static str,
    facts: fn(&mut StationFacts),
    claims: Vec<StationClaim>,
    occupancy: fn(&mut Occupancy),
    /// The kinds that keep it, in order; empty: it goes.
    kept: &'static [&'static str],
}

fn none(_: &mut StationFacts) {}
fn nobody(_: &mut Occupancy) {}

fn cases() -> Vec<Case> {
    let locked = |f: &mut StationFacts| f.locked = true;
    vec![
        Case {
            name: "merged and clean",
            facts: none,
            claims: vec![],
            occupancy: nobody,
            kept: &[],
        },
        Case {
            name: "a stale claim does not keep it (released as it goes)",
            facts: none,
            claims: vec![claim(LeaseState::Stale)],
            occupancy: nobody,
            kept: &[],
        },
        Case {
            name: "the main checkout",
            facts: |f| f.main = true,
            claims: vec![],
            occupancy: |o| o.here = true,
            kept: &["main-checkout"],
        },
        Case {
            name: "an uncommitted change",
            facts: |f| f.dirty = Some(vec!["a.rs".into()]),
            claims: vec![],
            occupancy: nobody,
            kept: &["dirty"],
        },
        Case {
            name: "git could not tell what is uncommitted",
            facts: |f| f.dirty = None,
            claims: vec![],
            occupancy: nobody,
            kept: &["dirty-unknown"],
        },
        Case {
            name: "commits not in the base",
            facts: |f| f.unmerged = Some(2),
            claims: vec![],
            occupancy: nobody,
            kept: &["unmerged"],
        },
        Case {
            name: "no base to judge by",
            facts: |f| {
                f.base = None;
                f.unmerged = None;
            },
            claims: vec![],
            occupancy: nobody,
            kept: &["no-base"],
        },
        Case {
            name: "a live claim",
            facts: none,
            claims: vec![claim(LeaseState::Live)],
            occupancy: nobody,
            kept: &["live-claim"],
        },
        Case {
            name: "an expiring claim",
            facts: none,
            claims: vec![claim(LeaseState::Expiring)],
            occupancy: nobody,
            kept: &["live-claim"],
        },
        Case {
            name: "this command's directory",
            facts: none,
            claims: vec![],
            occupancy: |o| o.here = true,
            kept: &["here"],
        },
        Case {
            name: "a process inside",
            facts: none,
            claims: vec![],
            occupancy: |o| {
                o.processes = Some(vec![Occupant {
                    pid: 7,
                    name: "claude".into(),
                }])
            },
            kept: &["processes"],
        },
        Case {
            name: "processes unseen: claims and locks decide",
            facts: none,
            claims: vec![],
            occupancy: |o| o.processes = None,
            kept: &[],
        },
        Case {
            name: "locked by a person",
            facts: locked,
            claims: vec![],
            occupancy: |o| o.lock_reason = Some("on a USB disk".into()),
            kept: &["locked"],
        },
        Case {
            name: "locked with no reason",
            facts: locked,
            claims: vec![],
            occupancy: |o| o.lock_reason = Some(String::new()),
            kept: &["locked"],
        },
        Case {
            name: "locked by a running Claude Code session",
            facts: locked,
            claims: vec![],
            occupancy: |o| {
                o.lock_reason = Some(CLAUDE_LOCK.into());
                o.lock_holder = Some(HolderSeen::Running {
                    start: Some("1225262".into()),
                });
            },
            kept: &["locked-by-session"],
        },
        Case {
            name: "locked by Claude Code, its pid running, start not comparable here",
            facts: locked,
            claims: vec![],
            occupancy: |o| {
                o.lock_reason = Some(CLAUDE_LOCK.into());
                o.lock_holder = Some(HolderSeen::Running { start: None });
            },
            kept: &["locked-by-session"],
        },
        Case {
            name: "locked by Claude Code, the host could not look",
            facts: locked,
            claims: vec![],
            occupancy: |o| {
                o.lock_reason = Some(CLAUDE_LOCK.into());
                o.lock_holder = Some(HolderSeen::Unknown);
            },
            kept: &["locked-by-session"],
        },
        Case {
            name: "locked by a Claude Code session that is gone",
            facts: locked,
            claims: vec![],
            occupancy: |o| {
                o.lock_reason = Some(CLAUDE_LOCK.into());
                o.lock_holder = Some(HolderSeen::Gone);
            },
            kept: &[],
        },
        Case {
            name: "locked by a Claude Code session whose pid a later process has",
            facts: locked,
            claims: vec![],
            occupancy: |o| {
                o.lock_reason = Some(CLAUDE_LOCK.into());
                o.lock_holder = Some(HolderSeen::Running {
                    start: Some("99".into()),
                });
            },
            kept: &[],
        },
        Case {
            name: "a gone session's lock, but work inside",
            facts: |f| {
                f.locked = true;
                f.dirty = Some(vec!["notes.md".into()]);
            },
            claims: vec![],
            occupancy: |o| {
                o.lock_reason = Some(CLAUDE_LOCK.into());
                o.lock_holder = Some(HolderSeen::Gone);
            },
            kept: &["dirty"],
        },
        Case {
            name: "an unreadable part",
            facts: none,
            claims: vec![],
            occupancy: |o| o.unreadable = Some("/r/x/secret".into()),
            kept: &["unreadable"],
        },
        Case {
            name: "a path that is a link",
            facts: |f| f.link = true,
            claims: vec![],
            occupancy: nobody,
            kept: &["link"],
        },
        Case {
            name: "a directory that is gone",
            facts: |f| f.missing = true,
            claims: vec![],
            occupancy: nobody,
            kept: &["missing"],
        },
        Case {
            name: "another checkout at its path",
            facts: |f| f.foreign = true,
            claims: vec![],
            occupancy: nobody,
            kept: &["foreign"],
        },
        Case {
            name: "everything at once is all said",
            facts: |f| {
                f.dirty = Some(vec!["a".into()]);
                f.unmerged = Some(1);
            },
            claims: vec![claim(LeaseState::Live)],
            occupancy: |o| {
                o.here = true;
                o.processes = Some(vec![Occupant {
                    pid: 9,
                    name: "zsh".into(),
                }]);
            },
            kept: &["dirty", "unmerged", "live-claim", "here", "processes"],
        },
    ]
}

fn kind(k: &Keep) -> String {
    serde_json::to_value(k).unwrap()["kind"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn each_state_is_kept_for_its_reason_or_goes() {
    for case in cases() {
        let mut facts = clean();
        (case.facts)(&mut facts);
        let mut occupancy = seen();
        (case.occupancy)(&mut occupancy);
        let station = Station {
            facts,
            state: StationState::Unclaimed,
            claims: case.claims.clone(),
        };
        let p = pruning(&station, &occupancy);
        let kinds: Vec<String> = p.kept.iter().map(kind).collect();
        assert_eq!(kinds, case.kept, "{}: {}", case.name, p.message);
        assert_eq!(p.remove, case.kept.is_empty(), "{}", case.name);
        if p.remove {
            // Never by force, and what goes is what `rail worktree remove` would close.
            assert!(p.removal.allowed && !p.removal.forced, "{}", case.name);
            assert!(p.message.contains("may be pruned"), "{}", p.message);
        } else {
            assert!(p.message.starts_with("kept "), "{}", p.message);
            assert_eq!(p.unlock, None, "{}", case.name);
        }
    }
}

#[test]
fn a_gone_sessions_lock_is_lifted_only_to_remove() {
    let mut facts = clean();
    facts.locked = true;
    let station = Station {
        facts,
        state: StationState::Unclaimed,
        claims: vec![],
    };
    let occupancy = Occupancy {
        lock_reason: Some(CLAUDE_LOCK.into()),
        lock_holder: Some(HolderSeen::Gone),
        ..seen()
    };
    let p = pruning(&station, &occupancy);
    assert!(p.remove);
    assert_eq!(p.unlock.map(|h| h.pid), Some(4242));
    assert!(
        p.message
            .contains("lock is left from a session that is gone"),
        "{}",
        p.message
    );
    assert!(p.removal.delete_branch);
}

#[test]
fn a_stale_claim_is_released_and_the_merged_branch_deleted() {
    let station = Station {
        facts: clean(),
        state: StationState::Stale,
        claims: vec![claim(LeaseState::Stale)],
    };
    let p = pruning(&station, &seen());
    assert!(p.remove);
    assert_eq!(p.removal.release, vec![claim(LeaseState::Stale)]);
    assert!(p.removal.delete_branch);
}

#[test]
fn reasons_read_as_sentences() {
    let station = Station {
        facts: clean(),
        state: StationState::Live,
        claims: vec![claim(LeaseState::Live)],
    };
    let occupancy = Occupancy {
        here: true,
        processes: Some(
            (1..=7)
                .map(|pid| Occupant {
                    pid,
                    name: "node".into(),
                })
                .collect(),
        ),
        ..Occupancy::default()
    };
    assert_eq!(
        pruning(&station, &occupancy).message,
        "kept /r/.claude/worktrees/fix (branch worktree-fix): session worktree-fix holds fix there (live claim); \
         this command runs inside it; processes are working inside: node (pid 1), node (pid 2), node (pid 3), \
         node (pid 4), node (pid 5) and 2 more"
    );
    let mut facts = clean();
    facts.locked = true;
    let locked = Station {
        facts,
        state: StationState::Unclaimed,
        claims: vec![],
    };
    let by = |reason: &str, holder| {
        pruning(
            &locked,
            &Occupancy {
                lock_reason: Some(reason.into()),
                lock_holder: holder,
                ..seen()
            },
        )
        .message
    };
    assert!(by("on a USB disk", None).ends_with(
        "it is locked (`git worktree lock`: on a USB disk); `git worktree unlock` it first if it may go"
    ));
    assert!(by(CLAUDE_LOCK, Some(HolderSeen::Running { start: None }))
        .ends_with("locked by a live Claude Code session (pid 4242)"));
}

#[test]
fn lock_reasons_of_agent_sessions_are_read_and_nothing_else() {
    let holder = |pid, start: Option<&str>| LockHolder {
        agent: "Claude Code".into(),
        pid,
        start: start.map(str::to_string),
    };
    for (reason, expected) in [
        (CLAUDE_LOCK, Some(holder(4242, Some("1225262")))),
        (
            "claude agent agent-a1b2 (pid 77 start 12)",
            Some(holder(77, Some("12"))),
        ),
        // Windows: Claude Code writes no start time.
        (
            "claude session my task (pid 1234)",
            Some(holder(1234, None)),
        ),
        // A name with parentheses: the last `(pid …)` is the holder.
        (
            "claude session a (pid 1) b (pid 5 start 9)",
            Some(holder(5, Some("9"))),
        ),
        ("claude session fix (pid 0)", None),
        ("claude session fix (pid -4)", None),
        ("claude session fix (pid 12 start )", None),
        ("claude session fix (pid 12 start 1 2)", None),
        ("claude session fix (pid 12", None),
        ("claude worktree fix (pid 12)", None),
        ("kept by alice", None),
        ("", None),
    ] {
        assert_eq!(lock_holder(reason), expected, "{reason:?}");
    }
}

#[test]
fn byte_counts_read_as_people_read_them() {
    for (bytes, text) in [
        (0, "0 B"),
        (1023, "1023 B"),
        (1024, "1.0 KiB"),
        (1536, "1.5 KiB"),
        (5 * 1024 * 1024, "5.0 MiB"),
        (111 * 1024 * 1024 * 1024, "111.0 GiB"),
        (u64::MAX, "16.0 EiB"),
    ] {
        assert_eq!(human_bytes(bytes), text, "{bytes}");
    }
}
