//! The round's steps, each from what a host would observe, without git: where a round looks,
//! which jobs join it, the move, the fold's order, what a push's answer means, and the pacing
//! that carries a machine from one round to the next.

use super::memory::{self, gives_up, remote_deadline, PUBLISHED_GRACE_MS};
use super::*;
use crate::change::ops::{ClaimRequest, Plan, Refusal};
use crate::change::queue::Op;

const NOW: i64 = 1_800_000_000_000;
const TIP: &str = "1111111111111111111111111111111111111111";
const OTHER: &str = "2222222222222222222222222222222222222222";

fn op(id: &str, now_ms: i64) -> Op {
    Op {
        id: id.into(),
        base: TIP.into(),
        session: "s".into(),
        request: Request::Claim(ClaimRequest {
            task: "t".into(),
            ..ClaimRequest::default()
        }),
        extra_log: Vec::new(),
        now_ms,
        deadline_ms: now_ms + 60_000,
    }
}

/// A machine that fetched a moment ago and measured the listing today: small, so version 0.
fn memory() -> Memory {
    Memory {
        fetch_ms: 400,
        push_ms: 400,
        fetched_at: NOW - 100,
        tip: Some(TIP.into()),
        listing: Some(crate::change::remote::Listing {
            bytes: 1000,
            at_ms: NOW - 1000,
        }),
        ..Memory::default()
    }
}

fn start() -> Start<'static> {
    Start {
        now_ms: NOW,
        queues_on: true,
        own_push: Some(TIP),
        fetched: Some(TIP),
        ..Start::default()
    }
}

#[test]
fn a_round_plans_on_its_own_push_only_when_nothing_can_have_moved_it_unseen() {
    let m = memory();
    assert_eq!(look(&m, &start()), Look::OwnPush(TIP));
    let fetch = Look::Fetch(Fetch {
        protocol: 0,
        measure: false,
        branches: false,
    });
    // The ref as fetched is not that push; a job published; a merge-back; a provisional claim.
    for s in [
        Start {
            fetched: Some(OTHER),
            ..start()
        },
        Start {
            published_here: true,
            ..start()
        },
        Start {
            merging_back: true,
            ..start()
        },
        Start {
            provisional: true,
            ..start()
        },
        Start {
            own_push: None,
            ..start()
        },
    ] {
        assert_eq!(look(&m, &s), fetch, "{s:?}");
    }
    // A sync or a take reads the remote's branches: always a fetch that brings them.
    let s = Start {
        branches: true,
        ..start()
    };
    assert_eq!(
        look(&m, &s),
        Look::Fetch(Fetch {
            protocol: 0,
            measure: false,
            branches: true
        })
    );
    // With queues on, only within two rounds of a fetch and with no other machine seen waiting.
    let long_ago = Memory {
        fetched_at: NOW - 10_000,
        ..memory()
    };
    assert_eq!(look(&long_ago, &start()), fetch);
    let others = Memory {
        others_at: NOW - 1,
        ..memory()
    };
    assert!(matches!(look(&others, &start()), Look::Fetch(_)));
    // Without queues the fetch's age does not matter.
    let off = Start {
        queues_on: false,
        ..start()
    };
    assert_eq!(look(&long_ago, &off), Look::OwnPush(TIP));
}

#[test]
fn a_new_leader_while_machines_contend_starts_from_its_machine_s_fetch_of_a_moment_ago() {
    let m = Memory {
        fetched_at: NOW - 50,
        ..memory()
    };
    let s = Start {
        first: true,
        own_push: None,
        contended: true,
        ..start()
    };
    assert!(matches!(look(&m, &s), Look::LastFetch { .. }));
    // Not in a later round, not without contention, not half a round after the fetch.
    for s in [
        Start {
            first: false,
            ..s.clone()
        },
        Start {
            contended: false,
            ..s.clone()
        },
        Start {
            branches: true,
            ..s.clone()
        },
    ] {
        assert!(matches!(look(&m, &s), Look::Fetch(_)), "{s:?}");
    }
    let old = Memory {
        fetched_at: NOW - 500,
        ..memory()
    };
    assert!(matches!(look(&old, &s), Look::Fetch(_)));
    // Its refs stand for a fetch only when they still show the tip this machine saw.
    assert!(reuses_fetch(&m, Some(TIP), Some(TIP)));
    assert!(!reuses_fetch(&m, Some(OTHER), Some(TIP)));
    assert!(!reuses_fetch(&m, Some(TIP), Some(OTHER)));
    assert!(!reuses_fetch(&m, None, None));
}

#[test]
fn a_fetch_speaks_version_2_and_measures_when_the_listing_is_unknown_or_a_day_old() {
    let unmeasured = Memory {
        listing: None,
        ..memory()
    };
    let s = Start {
        own_push: None,
        ..start()
    };
    assert_eq!(
        look(&unmeasured, &s),
        Look::Fetch(Fetch {
            protocol: 2,
            measure: true,
            branches: false
        })
    );
}

#[test]
fn jobs_queued_during_a_fetch_join_it_unless_they_need_branches_it_did_not_bring() {
    assert!(takes_in(false, false));
    assert!(takes_in(true, true));
    assert!(takes_in(true, false));
    assert!(!takes_in(false, true));
    assert!(reads_branches(None));
    let take = Request::Take {
        task: "t".into(),
        reason: None,
        branch: None,
    };
    assert!(reads_branches(Some(&take)));
    let renew = Request::Renew { task: "t".into() };
    assert!(!reads_branches(Some(&renew)));
}

#[test]
fn a_published_job_stands_as_its_fate_says() {
    let decided = Fate::Decided {
        outcome: serde_json::json!({}),
        by: "m".into(),
    };
    assert_eq!(Standing::of(&decided), Standing::Answered);
    assert_eq!(Standing::of(&Fate::Unknown), Standing::Answered);
    assert_eq!(Standing::of(&Fate::Dead), Standing::Unpublished);
    let last = Standing::of(&Fate::Pending {
        refusal_final: true,
    });
    assert!(last.refusal_is_final());
    assert!(!Standing::of(&Fate::Pending {
        refusal_final: false
    })
    .refusal_is_final());
    assert!(Standing::Unpublished.refusal_is_final());
    assert!(!Standing::Answered.refusal_is_final());
}

#[test]
fn the_move_commits_where_nothing_can_be_left_to_others_and_waits_when_all_is_answered() {
    let m = memory();
    let d = Decide {
        open: 1,
        queues_on: true,
        situation: Situation {
            me: "a",
            tip: TIP,
            unpublished: 1,
            fetched: true,
            can_publish: true,
            round_ms: 800,
            ..Situation::default()
        },
        ..Decide::default()
    };
    assert_eq!(
        decide(&m, &d).next,
        Move::Commit { publish: true },
        "alone on a fetched state: commit, queue riding along"
    );
    assert_eq!(decide(&m, &d).pause_ms, m.round_ms() / 4);
    let all_answered = Decide {
        open: 0,
        ..d.clone()
    };
    assert_eq!(
        decide(&m, &all_answered),
        Decided {
            next: Move::Wait,
            pause_ms: 0
        }
    );
    for forced in [
        Decide {
            rewound: true,
            ..d.clone()
        },
        Decide {
            branches: true,
            ..d.clone()
        },
    ] {
        assert_eq!(decide(&m, &forced).next, Move::Commit { publish: false });
    }
    let with_others = Decide {
        branches: true,
        candidates: 2,
        ..d.clone()
    };
    assert_eq!(
        decide(&m, &with_others).next,
        Move::Commit { publish: true }
    );
    let off = Decide {
        queues_on: false,
        candidates: 2,
        ..d
    };
    assert_eq!(decide(&m, &off).next, Move::Commit { publish: false });
}

#[test]
fn the_fold_takes_every_machine_s_operations_in_the_order_they_were_asked_for() {
    let (o1, o2) = (op("b-op", 500), op("a-op", 500));
    let candidates = [
        Candidate {
            machine: "zz",
            op: &o1,
        },
        Candidate {
            machine: "aa",
            op: &o2,
        },
    ];
    let own = [
        OwnJob {
            index: 0,
            now_ms: 900,
            id: "x",
        },
        OwnJob {
            index: 1,
            now_ms: 500,
            id: "y",
        },
    ];
    assert_eq!(
        fold_order("mm", &own, &candidates),
        vec![
            Slot::Foreign(1),
            Slot::Own(1),
            Slot::Foreign(0),
            Slot::Own(0)
        ]
    );
}

#[allow(
    clippy::result_large_err,
    reason = "a test helper, as ops::plan returns it"
)]
fn planned_or_refused(task: &str) -> Result<Plan, Refusal> {
    let facts =
        crate::model::input::Facts::at(chrono::DateTime::from_timestamp_millis(NOW).unwrap());
    let request = Request::Claim(ClaimRequest {
        task: task.into(),
        ..ClaimRequest::default()
    });
    crate::change::ops::plan(
        &crate::model::input::RailTexts::default(),
        &facts,
        "s",
        &request,
    )
}

fn refused(on_base: bool) -> FoldVerdict {
    FoldVerdict::Refused {
        refusal: planned_or_refused("not a task!").unwrap_err(),
        on_base,
    }
}

fn planned(changed: bool) -> FoldVerdict {
    FoldVerdict::Planned {
        plan: planned_or_refused("t").unwrap(),
        changed,
    }
}

#[test]
fn a_lost_push_answers_at_once_only_what_no_other_commit_can_decide() {
    let order = [Slot::Own(0), Slot::Foreign(0), Slot::Own(1), Slot::Own(2)];
    let verdicts = [refused(true), refused(true), refused(true), planned(true)];
    let standing = [
        Standing::Unpublished,
        Standing::Pending {
            refusal_final: false,
        },
        Standing::Unpublished,
    ];
    let s = Settled::of(&order, &verdicts, &standing);
    assert_eq!(s.early, vec![0]);
    assert!(!s.all_changed);
    assert!(replan(true, &s));
    assert!(!replan(false, &s));
    let all = Settled::of(&[Slot::Own(0)], &[planned(true)], &[Standing::Unpublished]);
    assert!(all.all_changed && all.early.is_empty());
    let noop = Settled::of(&[Slot::Own(0)], &[planned(false)], &[Standing::Unpublished]);
    assert!(!noop.all_changed);
    let expired = Settled::of(
        &[Slot::Own(0)],
        &[FoldVerdict::Expired],
        &[Standing::Unpublished],
    );
    assert_eq!(expired.early, vec![0]);
}

#[test]
fn jobs_ride_on_the_push_as_a_queue_when_the_remote_takes_queues() {
    let m = memory();
    let settled = Settled {
        early: vec![1],
        all_changed: false,
    };
    let open = [(0, false), (1, false), (2, true), (3, false)];
    assert_eq!(
        publish_with_commit(true, &m, NOW, Some(TIP), &open, &settled, &[3]),
        vec![0]
    );
    assert!(publish_with_commit(false, &m, NOW, Some(TIP), &open, &settled, &[]).is_empty());
    assert!(publish_with_commit(true, &m, NOW, None, &open, &settled, &[]).is_empty());
    let declined = Memory {
        declined_at: NOW - 1000,
        ..memory()
    };
    assert!(publish_with_commit(true, &declined, NOW, Some(TIP), &open, &settled, &[]).is_empty());
}

#[test]
fn a_queue_keeps_the_copies_still_pending_and_adds_the_new_on_the_tip() {
    let mut m = memory();
    let old = Op {
        base: OTHER.into(),
        ..op("p", 1)
    };
    m.published = vec![old.clone()];
    let ids = ["p", "n"];
    let standing = [
        Standing::Pending {
            refusal_final: false,
        },
        Standing::Unpublished,
    ];
    let ops = queue_ops(&m, &ids, &standing, &[1], TIP, |i, base| Op {
        base: base.into(),
        ..op(ids[i], 2)
    });
    assert_eq!(ops.len(), 2);
    assert_eq!(ops[0], old);
    assert_eq!((ops[1].id.as_str(), ops[1].base.as_str()), ("n", TIP));
}

#[test]
fn a_push_s_answer_says_whether_the_round_landed_replans_or_lost() {
    assert_eq!(after_push(&Pushed::Done, true), AfterPush::Landed);
    assert_eq!(after_push(&Pushed::Rejected, true), AfterPush::Replan);
    assert_eq!(after_push(&Pushed::Rejected, false), AfterPush::Lost);
    assert_eq!(
        after_push(&Pushed::Declined("no".into()), false),
        AfterPush::Declined
    );
}

#[test]
fn a_job_gives_up_at_its_deadline_unless_a_published_copy_may_still_be_decided() {
    assert!(!gives_up(NOW + 1, false, NOW));
    assert!(gives_up(NOW, false, NOW));
    assert!(!gives_up(NOW, true, NOW));
    assert!(!gives_up(NOW, true, NOW + PUBLISHED_GRACE_MS - 1));
    assert!(gives_up(NOW, true, NOW + PUBLISHED_GRACE_MS));
    assert_eq!(remote_deadline(NOW, false), NOW);
    assert_eq!(remote_deadline(NOW, true), NOW + PUBLISHED_GRACE_MS);
}

#[test]
fn pacing_waits_a_random_part_of_a_contended_round_and_backs_off_after_a_lost_one() {
    let m = Memory::default();
    let fresh = Contention {
        age_ms: 100,
        round_ms: 700,
    };
    assert_eq!(
        memory::first_pause(&m, false, NOW, Some(fresh), 1234),
        Some(1234 % 700)
    );
    assert_eq!(memory::first_pause(&m, false, NOW, None, 1), None);
    let stale = Contention {
        age_ms: 5001,
        round_ms: 700,
    };
    assert_eq!(memory::first_pause(&m, false, NOW, Some(stale), 1), None);
    // Other machines' queues seen lately: the tip's machine decides, nobody waits first.
    let seen = Memory {
        others_at: NOW - 10,
        ..m
    };
    assert_eq!(memory::first_pause(&seen, true, NOW, Some(fresh), 1), None);
    assert_eq!(memory::backoff_ms(1, 65), 10 + 65 % 40);
    assert_eq!(memory::backoff_ms(9, 1000), 10 + 1000 % 80);
    assert!(memory::trusts_own_push(100, 30_000, false));
    assert!(!memory::trusts_own_push(100, 30_000, true));
    assert!(!memory::trusts_own_push(30_001, 30_000, false));
    let mut r = 7u64;
    let (a, b) = (memory::next_random(&mut r), memory::next_random(&mut r));
    assert_ne!(a, b);
}

#[test]
fn memory_paces_by_the_rounds_it_measured() {
    let mut m = Memory::default();
    assert_eq!(m.round_ms(), 1000);
    m.fetched(400, NOW);
    assert_eq!(m.round_ms(), 800);
    m.pushed(200);
    assert_eq!(m.round_ms(), 600);
    m.fetched(800, NOW);
    assert_eq!(m.fetch_ms, 500, "smoothed");
    assert_eq!(m.note_tip(Some(TIP), NOW), 0);
    assert_eq!(m.note_tip(Some(TIP), NOW + 300), 300);
    assert_eq!(m.note_tip(Some(OTHER), NOW + 400), 0);
    m.died("x");
    m.died("x");
    m.forget_died(["y"].into_iter());
    assert!(m.died.is_empty());
    let previous = m.intend(&[op("a", 1)]);
    assert!(previous.is_empty() && m.published("a").is_some());
    m.queue_pushed(
        &Pushed::Declined("no".into()),
        "c",
        vec![op("a", 1)],
        previous,
        NOW,
    );
    assert!(!m.can_publish(NOW) && m.published.is_empty() && m.queue_tip.is_none());
}
