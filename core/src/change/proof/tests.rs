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

const KEY_A: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAaaaa";
const KEY_B: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBbbbb";

#[test]
fn a_key_is_owned_by_the_wanted_machine_when_its_line_names_it() {
    let s = signers(&format!(
        "a-1 namespaces=\"git\" {KEY_A} a@x\nb-2,c-3 {KEY_B} shared\n"
    ));
    assert_eq!(s.owner_of(KEY_A, "a-1"), KeyOwner::Named("a-1".into()));
    // A key under two machines is the wanted one's; asked for another, the first named.
    assert_eq!(s.owner_of(KEY_B, "c-3"), KeyOwner::Named("c-3".into()));
    assert_eq!(s.owner_of(KEY_B, "a-1"), KeyOwner::Named("b-2".into()));
    // Spaces around the key's words do not matter; its comment is no part of it.
    assert_eq!(
        s.owner_of(&format!("  {KEY_A}  "), "a-1"),
        KeyOwner::Named("a-1".into())
    );
}

#[test]
fn a_key_no_line_holds_is_not_named() {
    let s = signers(&format!("a-1 {KEY_A}\nMallory {KEY_B}\n"));
    assert_eq!(s.owner_of(KEY_B, "a-1"), KeyOwner::NotNamed);
    assert_eq!(
        s.owner_of("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAaaab", "a-1"),
        KeyOwner::NotNamed
    );
    // The same base64 under another type is another key.
    assert_eq!(
        s.owner_of("ssh-rsa AAAAC3NzaC1lZDI1NTE5AAAAIAaaaa", "a-1"),
        KeyOwner::NotNamed
    );
}

#[test]
fn a_key_outside_gits_namespace_is_not_named() {
    let s = signers(&format!(
        "a-1 namespaces=\"file,ssh\" {KEY_A}\nb-2 namespaces=\"file,git\" {KEY_B}\n"
    ));
    assert_eq!(s.owner_of(KEY_A, "a-1"), KeyOwner::NotNamed);
    // A namespace list with git in it, however placed, is read whole.
    assert_eq!(s.owner_of(KEY_B, "b-2"), KeyOwner::Named("b-2".into()));
    assert_eq!(
        s.problems,
        vec![(1, "its namespaces do not include `git`".to_string())]
    );
}

#[test]
fn a_line_with_options_only_ssh_keygen_judges_is_left_to_it() {
    let s = signers(&format!(
        "a-1 cert-authority {KEY_A}\nb-2 namespaces=\"git\",valid-before=\"20300101\" {KEY_B}\n"
    ));
    assert!(matches!(s.owner_of(KEY_A, "a-1"), KeyOwner::Unsure(_)));
    assert!(matches!(s.owner_of(KEY_B, "b-2"), KeyOwner::Unsure(_)));
    assert!(matches!(s.owner_of(KEY_B, "a-1"), KeyOwner::Unsure(_)));
    assert_eq!(
        s.keys.iter().map(|k| k.plain).collect::<Vec<_>>(),
        [false, false]
    );
}

const UNSIGNED: &str = "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n\
    parent 1111111111111111111111111111111111111111\n\
    author a <a@x> 1796000000 +0000\ncommitter a <a@x> 1796000000 +0000\n\n\
    rail: claim auth\n\n gpgsig in the message is the message\n";

fn with_header(header: &str) -> String {
    UNSIGNED.replacen("committer", &format!("{header}committer"), 1)
}

#[test]
fn a_signed_commit_is_its_object_without_the_signature() {
    let armor = "-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n-----END SSH SIGNATURE-----\n";
    let raw = UNSIGNED.replacen(
        "\n\n",
        &format!("\ngpgsig {}\n\n", armor.trim_end().replace('\n', "\n ")),
        1,
    );
    assert_eq!(
        signed_commit(raw.as_bytes()),
        SignedCommit::Signed {
            payload: UNSIGNED.as_bytes().to_vec(),
            armor: armor.into()
        }
    );
    assert_eq!(signed_commit(UNSIGNED.as_bytes()), SignedCommit::Unsigned);
}

#[test]
fn another_signature_header_is_left_out_of_the_payload_as_git_does() {
    let raw = with_header("gpgsig-sha256 -----BEGIN SSH SIGNATURE-----\n xyz\n -----END\n")
        .replacen("\n\n", "\ngpgsig sig\n line\n\n", 1);
    assert_eq!(
        signed_commit(raw.as_bytes()),
        SignedCommit::Signed {
            payload: UNSIGNED.as_bytes().to_vec(),
            armor: "sig\nline\n".into()
        }
    );
    // Another header's continuation lines stay in the payload.
    let mergetag = with_header("mergetag object 11\n type commit\n");
    let raw = mergetag.replacen("\n\n", "\ngpgsig s\n\n", 1);
    assert_eq!(
        signed_commit(raw.as_bytes()),
        SignedCommit::Signed {
            payload: mergetag.into_bytes(),
            armor: "s\n".into()
        }
    );
}

#[test]
fn two_signatures_or_a_huge_one_are_refused() {
    let two = with_header("gpgsig a\ngpgsig b\n");
    assert_eq!(
        signed_commit(two.as_bytes()),
        SignedCommit::Unreadable("it has 2 gpgsig headers, not one".into())
    );
    let huge = with_header(&format!("gpgsig {}\n", " x\n".repeat(MAX_SIGNATURE_BYTES)));
    assert!(matches!(
        signed_commit(huge.as_bytes()),
        SignedCommit::Unreadable(why) if why.contains("longer than")
    ));
    let binary = with_header("gpgsig \u{0}\n").into_bytes();
    let mut binary = binary;
    let at = binary.iter().position(|&b| b == 0).unwrap();
    binary[at] = 0xff;
    assert_eq!(
        signed_commit(&binary),
        SignedCommit::Unreadable("its signature is not UTF-8 text".into())
    );
}
