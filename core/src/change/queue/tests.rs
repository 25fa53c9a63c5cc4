//! The queue's tests: queues and records read back and refused, the window, fates, the fold and
//! the move.

use serde_json::json;

use super::*;
use crate::change::ops::ClaimRequest;

const B0: &str = "0000000000000000000000000000000000000000";
const B1: &str = "1111111111111111111111111111111111111111";
const B2: &str = "2222222222222222222222222222222222222222";
const B3: &str = "3333333333333333333333333333333333333333";

fn claim(id: &str, base: &str, task: &str, session: &str) -> Op {
    Op {
        id: id.into(),
        base: base.into(),
        session: session.into(),
        request: Request::Claim(ClaimRequest {
            task: task.into(),
            ..ClaimRequest::default()
        }),
        extra_log: Vec::new(),
        now_ms: 1_000,
        deadline_ms: 61_000,
    }
}

fn record(machine: &str, decided: &[(&str, &str)]) -> Recorded {
    Recorded::Some(Record {
        machine: machine.into(),
        decided: decided
            .iter()
            .map(|(m, id)| OpDecision {
                machine: (*m).into(),
                id: (*id).into(),
                outcome: json!({ "code": 0, "id": id }),
            })
            .collect(),
        ..Default::default()
    })
}

fn commit(id: &str, parent: Option<&str>, record: Recorded) -> Commit {
    Commit {
        id: id.into(),
        parent: parent.map(str::to_string),
        record,
    }
}

#[test]
fn a_queue_reads_back_what_was_rendered() {
    let ops = vec![claim("op-1", B1, "t1", "s1"), claim("op-2", B1, "t2", "s2")];
    let text = render_queue("host-ab12", &ops);
    let q = parse_queue("host-ab12", &text).unwrap();
    assert_eq!(q.ops, ops);
    assert!(q.dropped.is_empty());
}

#[test]
fn a_queue_under_another_name_or_too_large_is_not_read() {
    let text = render_queue("host-ab12", &[claim("op-1", B1, "t1", "s1")]);
    assert!(parse_queue("other", &text)
        .unwrap_err()
        .contains("names machine `host-ab12`"));
    assert!(parse_queue("Bad/Name", &text).is_err());
    let huge = format!(
        "{{\"v\":1,\"machine\":\"m\",\"ops\":[],\"pad\":\"{}\"}}",
        "x".repeat(MAX_QUEUE_BYTES)
    );
    assert!(parse_queue("m", &huge).unwrap_err().contains("over the"));
    assert!(parse_queue("m", "not json").is_err());
    assert!(parse_queue("m", "{\"v\":2,\"machine\":\"m\",\"ops\":[]}")
        .unwrap_err()
        .contains("version 2"));
}

#[test]
fn operations_a_rail_command_could_not_queue_are_left_out_one_by_one() {
    let mut take = claim("op-take", B1, "t", "s");
    take.request = Request::Take {
        task: "t".into(),
        reason: None,
        branch: None,
    };
    let mut bad_log = claim("op-log", B1, "t", "s");
    bad_log.extra_log =
        vec!["2026-01-01T00:00:00Z | gate | t | s\n2026-01-01T00:00:00Z | x | t | s".into()];
    let mut bad_base = claim("op-base", B1, "t", "s");
    bad_base.base = "HEAD".into();
    let ops = vec![
        claim("op-ok", B1, "t1", "s1"),
        take,
        bad_log,
        bad_base,
        claim("op bad id", B1, "t", "s"),
        claim("op-session", B1, "t", "bad session"),
        claim("op-task", B1, "a/b", "s"),
    ];
    let mut text = render_queue("m", &ops);
    // One entry that is no operation at all.
    text = text.replacen("\"ops\":[", "\"ops\":[{\"id\":3},", 1);
    let q = parse_queue("m", &text).unwrap();
    assert_eq!(
        q.ops.iter().map(|o| o.id.as_str()).collect::<Vec<_>>(),
        ["op-ok"]
    );
    assert_eq!(q.dropped.len(), 7, "{:?}", q.dropped);
    assert!(q.dropped.iter().any(|d| d.contains("a take is decided")));
}

#[test]
fn a_queue_reads_at_most_its_share_of_operations() {
    let ops: Vec<Op> = (0..MAX_QUEUE_OPS + 3)
        .map(|i| claim(&format!("op-{i}"), B1, &format!("t{i}"), "s"))
        .collect();
    let q = parse_queue("m", &render_queue("m", &ops)).unwrap();
    assert_eq!(q.ops.len(), MAX_QUEUE_OPS);
    assert!(q.dropped.last().unwrap().starts_with("3 operations past"));
}

#[test]
fn a_commit_message_carries_its_record_after_the_summary() {
    let rec = Record {
        machine: "m1".into(),
        decided: vec![OpDecision {
            machine: "m2".into(),
            id: "op-1".into(),
            outcome: json!({ "code": 1, "text": "t is held by s" }),
        }],
        ..Default::default()
    };
    let msg = render_message("rail: 2 operations\n\nclaim t by s\n", &rec);
    assert!(msg.starts_with("rail: 2 operations\n\nclaim t by s\n\nrail-record v1\n{"));
    assert_eq!(read_message(&msg), Recorded::Some(rec));
    // An older Rail's message, or a person's, decided nothing.
    assert_eq!(read_message("rail: claim t by s"), Recorded::None);
    assert!(matches!(
        read_message("x\n\nrail-record v1\n{not json"),
        Recorded::Unreadable(_)
    ));
    assert!(matches!(
        read_message("x\n\nrail-record v1\n{\"machine\":\"../x\"}"),
        Recorded::Unreadable(_)
    ));
}

#[test]
fn machine_ids_are_ref_safe_whatever_the_host_is_called() {
    for (host, hex, want) in [
        ("Build-Box.local", "00AB12", "build-box-local-00ab12"),
        ("", "ff", "ff"),
        ("-", "", "machine"),
        ("日本", "1", "1"),
    ] {
        let id = machine_id(host, hex);
        assert_eq!(id, want);
        assert!(machine_ok(&id), "{id}");
    }
    assert!(machine_ok(&machine_id(&"x".repeat(200), &"a".repeat(40))));
    assert!(!machine_ok("-x") && !machine_ok("") && !machine_ok("a.b") && !machine_ok("A"));
}

/// Chain: B3 (tip) -> B2 -> B1 -> B0, with the given records, tip first.
fn chain_of(records: [Recorded; 4]) -> Vec<Commit> {
    let [r3, r2, r1, r0] = records;
    vec![
        commit(B3, Some(B2), r3),
        commit(B2, Some(B1), r2),
        commit(B1, Some(B0), r1),
        commit(B0, None, r0),
    ]
}

const B9: &str = "9999999999999999999999999999999999999999";

fn ids<'a>(c: &[Candidate<'a>]) -> Vec<&'a str> {
    c.iter().map(|c| c.op.id.as_str()).collect()
}

#[test]
fn the_next_commit_may_decide_what_is_based_in_the_window_and_undecided_since() {
    let queues = vec![
        Queue {
            machine: "m2".into(),
            ops: vec![
                claim("on-tip", B3, "a", "s"),
                claim("on-b1", B1, "b", "s"),
                claim("decided", B1, "c", "s"),
                claim("on-b0", B0, "d", "s"),
                claim("elsewhere", B9, "f", "s"),
            ],
            dropped: vec![],
        },
        Queue {
            machine: "me".into(),
            ops: vec![claim("mine", B3, "e", "s")],
            dropped: vec![],
        },
    ];
    // B2 decided `decided` (made on B1); B0 is three commits back: still in the window of four.
    let chain = chain_of([
        Recorded::None,
        record("m3", &[("m2", "decided")]),
        Recorded::None,
        Recorded::None,
    ]);
    assert_eq!(
        ids(&eligible(&chain, &queues, "me")),
        ["on-b0", "on-b1", "on-tip"]
    );
    // One commit more puts B0 outside the window.
    let mut longer = vec![commit(B9, Some(B3), Recorded::None)];
    longer.extend(chain.clone());
    assert_eq!(
        ids(&eligible(&longer, &queues, "me")),
        ["elsewhere", "on-b1", "on-tip"]
    );
    // A record that cannot be read may have decided what was based before it.
    let unreadable = chain_of([
        Recorded::None,
        Recorded::Unreadable("x".into()),
        Recorded::None,
        Recorded::None,
    ]);
    assert_eq!(ids(&eligible(&unreadable, &queues, "me")), ["on-tip"]);
}

#[test]
fn an_operation_copied_into_another_queue_is_decided_by_neither() {
    let op = claim("op-1", B1, "t", "s");
    let queues = vec![
        Queue {
            machine: "m1".into(),
            ops: vec![op.clone(), op.clone()],
            dropped: vec![],
        },
        Queue {
            machine: "m2".into(),
            ops: vec![claim("op-2", B1, "u", "s")],
            dropped: vec![],
        },
    ];
    let tip = [commit(B1, Some(B0), Recorded::None)];
    assert_eq!(
        eligible(&tip, &queues, "me").len(),
        2,
        "one per id in one queue"
    );
    let mut forged = queues.clone();
    forged[1].ops.push(op);
    let ids: Vec<&str> = eligible(&tip, &forged, "me")
        .iter()
        .map(|c| c.op.id.as_str())
        .collect();
    assert_eq!(ids, ["op-2"]);
}

#[test]
fn candidates_come_in_the_order_they_were_asked_for() {
    let mut late = claim("late", B1, "a", "s");
    late.now_ms = 9;
    let mut early = claim("early", B1, "b", "s");
    early.now_ms = 3;
    let queues = vec![
        Queue {
            machine: "m1".into(),
            ops: vec![late],
            dropped: vec![],
        },
        Queue {
            machine: "m2".into(),
            ops: vec![early],
            dropped: vec![],
        },
    ];
    let tip = [commit(B1, None, Recorded::None)];
    let ids: Vec<&str> = eligible(&tip, &queues, "me")
        .iter()
        .map(|c| c.op.id.as_str())
        .collect();
    assert_eq!(ids, ["early", "late"]);
}

#[test]
fn an_operation_s_fate_is_known_a_window_of_commits_after_its_base() {
    let decided_in = |at: usize| {
        let mut records = [
            Recorded::None,
            Recorded::None,
            Recorded::None,
            Recorded::None,
        ];
        records[at] = record("m2", &[("me", "x")]);
        chain_of(records)
    };
    // Based on B0: B1, B2, B3 and the commit after B3 may decide it.
    for at in 0..3 {
        match fate("me", "x", B0, &decided_in(at)) {
            Fate::Decided { outcome, by } => {
                assert_eq!(by, "m2");
                assert_eq!(outcome["id"], "x");
            }
            other => panic!("{other:?}"),
        }
        // The same id decided for another machine is not this machine's answer.
        assert_eq!(
            fate("other", "x", B0, &decided_in(at)),
            Fate::Pending {
                refusal_final: true
            }
        );
    }
    let none = decided_in(3);
    assert_eq!(
        fate("me", "y", B0, &none),
        Fate::Pending {
            refusal_final: true
        }
    );
    for base in [B1, B2, B3] {
        assert_eq!(
            fate("me", "y", base, &none),
            Fate::Pending {
                refusal_final: false
            }
        );
    }
    // Four commits after its base and decided by none: dead.
    let mut longer = vec![commit(B9, Some(B3), Recorded::None)];
    longer.extend(none.clone());
    assert_eq!(fate("me", "y", B0, &longer), Fate::Dead);
    // A base not in the chain: rewound, or further back than was read.
    assert_eq!(fate("me", "y", &"8".repeat(40), &none), Fate::Unknown);
    // An unreadable record on the way: cannot tell.
    let mut unreadable = none.clone();
    unreadable[1].record = Recorded::Unreadable("x".into());
    assert_eq!(fate("me", "x", B0, &unreadable), Fate::Unknown);
}

#[test]
fn contention_leaves_the_commit_to_one_machine_of_those_waiting() {
    let base = Situation {
        me: "me",
        tip: B1,
        waiting: vec!["m1", "m2", "m3"],
        unpublished: 2,
        can_publish: true,
        round_ms: 500,
        ..Situation::default()
    };
    // Alone on its own last push: commit, as always, and publish nothing.
    let alone = Situation {
        waiting: vec![],
        ..base.clone()
    };
    assert_eq!(next_move(&alone), Move::Commit { publish: false });
    // Alone on a fetched state: commit, with its queue in the same push (others may race it
    // unseen), unless the remote declines queues.
    let fetched = Situation {
        fetched: true,
        ..alone.clone()
    };
    assert_eq!(next_move(&fetched), Move::Commit { publish: true });
    let declined = Situation {
        can_publish: false,
        ..fetched.clone()
    };
    assert_eq!(next_move(&declined), Move::Commit { publish: false });
    // A few machines contend: each commits, folding the others', its own out in the same push.
    for waiting in [vec![], vec!["m1"], vec!["m1", "m2"]] {
        let few = Situation {
            waiting,
            contended: true,
            ..base.clone()
        };
        assert_eq!(next_move(&few), Move::Commit { publish: true });
    }
    // More wait: publish for the commit one of them makes, unless this machine ranks first
    // among them and itself (it has operations: its leader runs), then commit for all.
    let names = ["m1", "m2", "m3", "me"];
    let first = |tip: &str| names.iter().copied().min_by_key(|m| (rank(m, tip), *m));
    let not_me = (0..64)
        .map(|i| format!("{i:040x}"))
        .find(|t| first(t) != Some("me"))
        .unwrap();
    let me_first = (0..64)
        .map(|i| format!("{i:040x}"))
        .find(|t| first(t) == Some("me"))
        .unwrap();
    for (tip, want) in [
        (&not_me, Move::Publish),
        (&me_first, Move::Commit { publish: true }),
    ] {
        let s = Situation {
            tip,
            ..base.clone()
        };
        assert_eq!(next_move(&s), want, "{tip}");
    }
    // Exactly one of the machines waiting on a tip commits for all of them, whichever tip.
    for tip in [B0, B1, B2, B3] {
        let committing: Vec<&str> = names
            .iter()
            .copied()
            .filter(|me| {
                let waiting: Vec<&str> = names.iter().copied().filter(|m| m != me).collect();
                next_move(&Situation {
                    me,
                    tip,
                    waiting,
                    unpublished: 0,
                    pending: 1,
                    ..base.clone()
                }) == Move::Commit { publish: true }
            })
            .collect();
        assert_eq!(committing.len(), 1, "{tip}: {committing:?}");
    }
    // Died once, past its deadline, or no queue to publish: commit itself.
    for s in [
        Situation {
            died: true,
            ..base.clone()
        },
        Situation {
            expired: true,
            ..base.clone()
        },
        Situation {
            can_publish: false,
            ..base.clone()
        },
    ] {
        assert_eq!(next_move(&s), Move::Commit { publish: true });
    }
    // Published and waiting for a machine that does not commit: wait while the tip stands
    // still for two to four rounds, then commit.
    let waiting = Situation {
        tip: &not_me,
        unpublished: 0,
        pending: 2,
        still_ms: 999,
        ..base.clone()
    };
    assert_eq!(next_move(&waiting), Move::Wait);
    let limit = still_limit(&waiting);
    assert!((1000..2000).contains(&limit), "{limit}");
    let still = Situation {
        still_ms: limit,
        ..waiting.clone()
    };
    assert_eq!(next_move(&still), Move::Commit { publish: true });
    // Machines waiting on one tip do not all give up at once.
    let limits: std::collections::BTreeSet<u64> = (0..20)
        .map(|i| {
            let me = format!("m{i}");
            still_limit(&Situation {
                me: &me,
                ..waiting.clone()
            })
        })
        .collect();
    assert!(limits.len() > 10, "{limits:?}");
}

fn texts_with(claims: &str) -> SharedFiles {
    let mut files = SharedFiles::new();
    files.insert("claims.md".into(), claims.into());
    files
}

#[test]
fn the_fold_refuses_another_machine_s_operation_its_base_refuses() {
    let now = crate::text::time::parse_time("2026-01-01T00:00:00Z").unwrap();
    let facts = Facts::at(now);
    let held = "t | holder | 2026-01-01T00:00:00Z\n";
    let release = Request::Release {
        task: "t".into(),
        touched: vec![],
        done: false,
    };
    let claim_t = Request::Claim(ClaimRequest {
        task: "t".into(),
        ..ClaimRequest::default()
    });
    let op = |session, request, foreign| Folding {
        session,
        request,
        extra_log: &[],
        now,
        foreign,
        expired: false,
        machine: None,
    };
    // The holder's release first, then a claim of the task: mine is planned on the state the
    // release leaves, another machine's is refused by the base (its machine answered so).
    let mut files = texts_with(held);
    let (v, changed) = fold(
        &mut files,
        &facts,
        &[
            op("holder", &release, false),
            op("me", &claim_t, false),
            op("them", &claim_t, true),
        ],
    );
    assert!(matches!(v[0], FoldVerdict::Planned { changed: true, .. }));
    assert!(matches!(v[1], FoldVerdict::Planned { changed: true, .. }));
    assert!(matches!(v[2], FoldVerdict::Refused { on_base: true, .. }));
    assert!(files["claims.md"].contains("t | me |"));
    assert!(changed.contains_key("claims.log"));
    // Refused only after the round's earlier operations: not on the base.
    let mut files = texts_with("");
    let (v, _) = fold(
        &mut files,
        &facts,
        &[op("a", &claim_t, false), op("b", &claim_t, false)],
    );
    assert!(matches!(v[1], FoldVerdict::Refused { on_base: false, .. }));
    let mut expired = op("a", &claim_t, true);
    expired.expired = true;
    let (v, changed) = fold(&mut texts_with(""), &facts, &[expired]);
    assert!(matches!(v[0], FoldVerdict::Expired) && changed.is_empty());
}

#[test]
fn a_commit_object_gives_its_first_parent_and_record() {
    let rec = Record {
        machine: "m1".into(),
        decided: vec![],
        ..Default::default()
    };
    let msg = render_message("rail: claim t by s", &rec);
    let bytes = format!(
        "tree {B0}\nparent {B1}\nparent {B2}\nauthor R <r@l> 1 +0000\ncommitter R <r@l> 1 +0000\n\n{msg}"
    );
    let c = commit_object(B3, bytes.as_bytes()).unwrap();
    assert_eq!(c.parent.as_deref(), Some(B1));
    assert_eq!(c.record, Recorded::Some(rec));
    let root = commit_object(B0, format!("tree {B0}\n\nfirst").as_bytes()).unwrap();
    assert_eq!((root.parent, root.record), (None, Recorded::None));
    assert!(commit_object(B0, b"blob?").is_none());
}
