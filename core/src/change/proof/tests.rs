//! The proof's tests: allowed signers read, signatures judged, steps replayed and read back,
//! forged claims found, the walk and its restores, marks, and what a server refuses.

use super::*;
use crate::change::ops::ClaimRequest;
use crate::change::queue::Record;

const NOW: i64 = 1_796_000_000_000;

struct Commits(BTreeMap<String, SharedFiles>);

impl Loader for Commits {
    fn files(&mut self, commit: &str) -> Option<SharedFiles> {
        self.0.get(commit).cloned()
    }
    fn merge_base(&mut self, _: &str, _: &str) -> Option<Option<String>> {
        Some(None)
    }
}

fn claim(task: &str, session: &str) -> Step {
    Step::Op {
        machine: "a-1".into(),
        session: session.into(),
        request: Request::Claim(ClaimRequest {
            task: task.into(),
            ..ClaimRequest::default()
        }),
        extra_log: Vec::new(),
        now_ms: NOW,
    }
}

fn record(machine: &str, steps: Vec<Step>) -> Recorded {
    Recorded::Some(Record {
        machine: machine.into(),
        steps,
        ..Record::default()
    })
}

fn none() -> Commits {
    Commits(BTreeMap::new())
}

fn allowed() -> Signers {
    signers("a-1 namespaces=\"git\" ssh-ed25519 AAAAC3Nz a@x\nb-2 ssh-ed25519 AAAAC3Nz b@y\n")
}

#[test]
fn signers_name_machine_ids_in_gits_namespace() {
    let s = signers(
        "# the team\na-1,b-2 namespaces=\"git\" ssh-ed25519 AAAA k\nMallory ssh-ed25519 AAAA\n\
         c-3 namespaces=\"file\" ssh-ed25519 AAAA\nd-4\n",
    );
    assert_eq!(
        s.principals.iter().map(String::as_str).collect::<Vec<_>>(),
        ["a-1", "b-2"]
    );
    assert_eq!(
        s.problems.iter().map(|p| p.0).collect::<Vec<_>>(),
        [3, 4, 5]
    );
}

#[test]
fn a_signature_must_be_the_record_machines() {
    let good = Signature::Good {
        principal: "a-1".into(),
    };
    let rec = record("a-1", vec![]);
    assert_eq!(check_signature(&good, &rec, &allowed()), Ok("a-1".into()));
    let other = record("b-2", vec![]);
    assert!(check_signature(&good, &other, &allowed())
        .unwrap_err()
        .contains("says it was made by `b-2`"));
    assert!(check_signature(&Signature::Unsigned, &rec, &allowed())
        .unwrap_err()
        .contains("not signed"));
    let stranger = Signature::Good {
        principal: "z-9".into(),
    };
    assert!(check_signature(&stranger, &record("z-9", vec![]), &allowed()).is_err());
    assert!(check_signature(&good, &Recorded::None, &allowed()).is_err());
    assert_eq!(
        Signature::from_git("U", "a-1"),
        Signature::Bad("signed by a key the allowed signers do not name".into())
    );
}

#[test]
fn a_claim_replays_and_a_forged_line_does_not() {
    let parent = SharedFiles::new();
    let made = replay(&parent, None, &[claim("auth", "alice")], &mut none()).unwrap();
    let rec = record("a-1", vec![claim("auth", "alice")]);
    assert_eq!(follows(&parent, None, &made, &rec, &mut none()), Ok(()));
    // The same commit with the holder's name changed by hand.
    let mut forged = made.clone();
    let text = forged[CLAIMS_MD].replace("alice", "mallory");
    forged.insert(CLAIMS_MD.into(), text);
    let why = follows(&parent, None, &forged, &rec, &mut none()).unwrap_err();
    assert!(
        why.contains("claims.md") && why.contains("mallory"),
        "{why}"
    );
    // A commit that records nothing changes no claim; the log is attributed, not replayed.
    let rec0 = record("a-1", vec![]);
    let why = follows(&made, None, &forged, &rec0, &mut none()).unwrap_err();
    assert!(why.contains("0 steps"), "{why}");
    let mut logged = made.clone();
    logged.insert(LOG_FILE.into(), "a line\n".into());
    assert_eq!(follows(&made, None, &logged, &rec0, &mut none()), Ok(()));
}

#[test]
fn an_operation_refused_on_its_parent_does_not_replay() {
    let held = replay(
        &SharedFiles::new(),
        None,
        &[claim("auth", "alice")],
        &mut none(),
    )
    .unwrap();
    let why = replay(&held, None, &[claim("auth", "mallory")], &mut none()).unwrap_err();
    assert!(
        why.contains("claim auth by mallory") && why.contains("refused"),
        "{why}"
    );
}

#[test]
fn a_walk_keeps_the_last_proven_state_until_a_restore_answers() {
    let sig = |p: &str| Signature::Good {
        principal: p.into(),
    };
    let ok = || Ok(());
    let mut w = Walk::from(Some("p0".into()));
    w.step("c1", &sig("a-1"), &record("a-1", vec![]), &allowed(), ok);
    assert_eq!(w.proven.as_deref(), Some("c1"));
    w.step("f1", &Signature::Unsigned, &Recorded::None, &allowed(), ok);
    w.step("c2", &sig("b-2"), &record("b-2", vec![]), &allowed(), ok);
    w.step(
        "f2",
        &sig("b-2"),
        &record("b-2", vec![]),
        &allowed(),
        || Err("claims.md differs".into()),
    );
    assert_eq!(w.proven.as_deref(), Some("c1"));
    let open = w.open.clone().unwrap();
    assert_eq!(
        (
            open.kept.as_deref(),
            open.first.as_str(),
            open.last.as_str()
        ),
        (Some("c1"), "f1", "f2")
    );
    // A restore of another range does not answer it; the right one does.
    let wrong = record(
        "a-1",
        vec![Step::Restore {
            base: "f1".into(),
            kept: Some("c1".into()),
        }],
    );
    w.step("r0", &sig("a-1"), &wrong, &allowed(), ok);
    assert!(w.open.is_some());
    let right = record(
        "a-1",
        vec![Step::Restore {
            base: "f2".into(),
            kept: Some("c1".into()),
        }],
    );
    w.step("r1", &sig("a-1"), &right, &allowed(), ok);
    assert_eq!((w.open.clone(), w.proven.as_deref()), (None, Some("r1")));
    assert_eq!(w.found.last().unwrap().what, Found::Restored);
}

#[test]
fn history_before_keys_is_taken_until_the_first_signed_commit() {
    let mut w = Walk::from(None);
    let ok = || Ok(());
    w.step("u1", &Signature::Unsigned, &Recorded::None, &allowed(), ok);
    w.step("u2", &Signature::Unsigned, &Recorded::None, &allowed(), ok);
    let sig = Signature::Good {
        principal: "a-1".into(),
    };
    w.step("s1", &sig, &record("a-1", vec![]), &allowed(), ok);
    w.step("u3", &Signature::Unsigned, &Recorded::None, &allowed(), ok);
    assert_eq!(w.proven.as_deref(), Some("s1"));
    assert_eq!(w.open.as_ref().map(|o| o.first.as_str()), Some("u3"));
}

#[test]
fn a_restore_replays_as_the_merge_of_the_kept_state() {
    let p0 = replay(
        &SharedFiles::new(),
        None,
        &[claim("auth", "alice")],
        &mut none(),
    )
    .unwrap();
    let mut forged = p0.clone();
    forged.insert(CLAIMS_MD.into(), p0[CLAIMS_MD].replace("alice", "mallory"));
    let after = replay(&forged, None, &[claim("db", "bob")], &mut none()).unwrap();
    let mut loader = Commits(BTreeMap::from([
        ("p0".to_string(), p0.clone()),
        ("f1".to_string(), forged.clone()),
    ]));
    let steps = [Step::Restore {
        base: "f1".into(),
        kept: Some("p0".into()),
    }];
    let restored = replay(&after, None, &steps, &mut loader).unwrap();
    let claims = &restored[CLAIMS_MD];
    assert!(claims.contains("alice") && !claims.contains("mallory") && claims.contains("bob"));
}

#[test]
fn steps_read_back_as_written() {
    let steps = vec![
        claim("auth", "alice"),
        Step::Appended { text: "x\n".into() },
        Step::Restore {
            base: "f".into(),
            kept: None,
        },
        Step::Rejoin { seen: "s".into() },
    ];
    let rec = Record {
        machine: "a-1".into(),
        steps: steps.clone(),
        ..Record::default()
    };
    let msg = queue::render_message("rail: x", &rec);
    match queue::read_message(&msg) {
        Recorded::Some(r) => assert_eq!(r.steps, steps),
        other => panic!("{other:?}"),
    }
}

#[test]
fn marks_are_read_only_signed_by_the_machine_they_name() {
    let good = |p: &str| Signature::Good {
        principal: p.into(),
    };
    assert_eq!(check_marks(&good("a-1"), "a-1", &allowed()), Ok(()));
    assert!(check_marks(&good("b-2"), "a-1", &allowed()).is_err());
    assert!(check_marks(&good("z-9"), "z-9", &allowed()).is_err());
    assert!(check_marks(&Signature::Unsigned, "a-1", &allowed()).is_err());
}

#[test]
fn shared_marks_from_the_future_are_clamped_to_now() {
    use crate::formats::heartbeat;
    let now = crate::text::time::parse_time("2026-12-06T08:00:00Z").unwrap();
    let text = "session s1\nagent claude\nat 2099-01-01T00:00:00Z\n\nsession s2\nagent codex\nat 2026-12-06T07:00:00Z\n\n";
    let kept = heartbeat::parse_machine("m-1", &heartbeat::clamp_shared(text, now));
    let at: BTreeMap<String, String> = kept
        .into_iter()
        .map(|(s, seen)| (s, crate::text::time::format_time(seen.at)))
        .collect();
    assert_eq!(at["s1"], crate::text::time::format_time(now));
    assert_eq!(at["s2"], "2026-12-06T07:00:00Z");
}

#[test]
fn a_server_refuses_deletions_rewinds_and_refs_rail_never_pushes() {
    assert_eq!(pushed_ref("refs/rail/claims"), PushedRef::Claims);
    assert_eq!(pushed_ref("refs/rail/seen/a-1"), PushedRef::Machine("a-1"));
    assert_eq!(pushed_ref("refs/rail/queue/b-2"), PushedRef::Machine("b-2"));
    assert_eq!(pushed_ref("refs/rail/seen/UP"), PushedRef::Unknown);
    assert_eq!(pushed_ref("refs/heads/main"), PushedRef::Other);
    assert!(push_refused("refs/rail/claims", true, false).is_some());
    assert!(push_refused("refs/rail/claims", false, true).is_some());
    assert!(push_refused("refs/rail/seen/a-1", true, false).is_some());
    assert!(push_refused("refs/rail/evil", false, false).is_some());
    assert_eq!(push_refused("refs/rail/claims", false, false), None);
    assert_eq!(push_refused("refs/heads/x", true, true), None);
}
