//! Unit tests of the planners' shared guards (claim-file read-back, lands-where-it-says).

use super::*;

/// A claim-file edit that would not read back as the claim it changes is refused before
/// anything is written (issue 28 finding 6's guard, whatever shape the file has).
#[test]
fn a_claim_file_edit_that_breaks_the_file_is_refused() {
    let texts = RailTexts {
        claim_files: vec![crate::model::input::FileText {
            path: "claims/alice.yaml".into(),
            text: "  owner: alice\n  task: auth\n".into(),
            modified: None,
        }],
        ..Default::default()
    };
    let rail = Rail::load(&texts);
    let plan = |op: &str, insert: &str| Plan {
        op: op.into(),
        task: "auth".into(),
        session: "alice".into(),
        edits: vec![FileEdits {
            file: "claims/alice.yaml".into(),
            create: false,
            edits: vec![TextEdit::insert(texts.claim_files[0].text.len(), insert)],
        }],
        log_line: None,
        message: String::new(),
        noop: false,
        hint: None,
    };
    // What the old edit wrote: keys at column 0 end the document.
    let err = check_lands(&rail, &plan("release", "released: 2026-10-22T15:00Z\n"));
    let err = err.unwrap_err();
    assert_eq!(err.kind, RefusalKind::HiddenClaim);
    assert!(err.message.contains("claims/alice.yaml"), "{}", err.message);
    // A release whose file would not say `released` is refused too.
    assert!(check_lands(&rail, &plan("release", "  renewed: 2026-10-22T15:00Z\n")).is_err());
    // At the document's indentation it reads back.
    assert!(check_lands(&rail, &plan("release", "  released: 2026-10-22T15:00Z\n")).is_ok());
}

fn read(json: &str) -> Result<Request, String> {
    serde_json::from_str(json).map_err(|e| e.to_string())
}

/// The wire struct reads exactly the JSON the tagged enum writes, for every op.
#[test]
fn requests_round_trip_through_the_wire_form() {
    let all = [
        Request::Claim(ClaimRequest {
            task: "a".into(),
            paths: vec!["src/**".into()],
            resources: vec!["port:3000".into()],
            purpose: Some("p".into()),
            lease: Some("45m".into()),
            after: vec!["b".into()],
            pid: Some("1@h".into()),
            branch: Some("br".into()),
        }),
        Request::Release {
            task: "a".into(),
            touched: vec!["x".into()],
            done: true,
        },
        Request::Renew { task: "a".into() },
        Request::Take {
            task: "a".into(),
            reason: Some("r".into()),
            branch: None,
        },
        Request::Update {
            task: "a".into(),
            paths: None,
            resources: Some(vec![]),
            purpose: Some("q".into()),
            add_paths: vec!["b".into()],
            add_resources: Vec::new(),
        },
        Request::Plan {
            task: "a".into(),
            paths: vec!["a/**".into()],
            purpose: Some("p".into()),
        },
    ];
    for r in all {
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(read(&json), Ok(r), "{json}");
    }
}

#[test]
fn the_wire_form_fills_defaults_and_names_what_is_wrong() {
    assert_eq!(
        read(r#"{"op":"claim"}"#),
        Ok(Request::Claim(ClaimRequest::default()))
    );
    assert_eq!(
        read(r#"{"op":"release","task":"a","touched":null,"paths":["ignored"]}"#),
        Ok(Request::Release {
            task: "a".into(),
            touched: vec![],
            done: false
        })
    );
    assert_eq!(
        read(r#"{"op":"renew"}"#),
        Err("missing field `task`".to_string())
    );
    let unknown = read(r#"{"op":"steal","task":"a"}"#).unwrap_err();
    assert!(unknown.starts_with("unknown variant `steal`"), "{unknown}");
    let missing = read(r#"{"task":"a"}"#).unwrap_err();
    assert!(missing.starts_with("missing field `op`"), "{missing}");
    let wrong = read(r#"{"op":"claim","task":"a","paths":"src"}"#).unwrap_err();
    assert!(wrong.starts_with("invalid type: string"), "{wrong}");
}

/// A claims.md with a merge conflict marker refuses every operation, with where the first
/// marker is; an operation on a clean rail is not affected by a marker-like line in code.
#[test]
fn a_conflict_marker_refuses_every_operation_with_its_location() {
    use crate::model::input::FileText;
    let texts = |claims: &str| RailTexts {
        claims: Some(FileText {
            path: "claims.md".into(),
            text: claims.into(),
            modified: None,
        }),
        ..RailTexts::default()
    };
    let now = time::parse_time("2026-10-22T14:10:00Z").unwrap();
    let marked = "# Rail\n\n<<<<<<< HEAD\na | s | 2026-10-22T14:05Z\n=======\nb | t | 2026-10-22T14:06Z\n>>>>>>> other\n";
    let requests = [
        Request::Claim(ClaimRequest {
            task: "x".into(),
            ..ClaimRequest::default()
        }),
        Request::Release {
            task: "a".into(),
            touched: vec![],
            done: false,
        },
        Request::Renew { task: "a".into() },
        Request::Take {
            task: "b".into(),
            reason: None,
            branch: None,
        },
    ];
    for request in &requests {
        let refusal = plan(&texts(marked), &Facts::at(now), "s", request).unwrap_err();
        assert_eq!(refusal.kind, RefusalKind::ConflictMarker, "{request:?}");
        assert_eq!(refusal.exit_code(), 2);
        assert_eq!(
            refusal.message,
            "claims.md:3 has a merge conflict marker; resolve it before changing the rail"
        );
        assert_eq!(refusal.hint, Some(Hint::MergeDriver));
        let at = refusal.location.expect("location");
        assert_eq!((at.file.as_str(), at.line, at.column), ("claims.md", 3, 1));
        assert_eq!(&marked[at.span.start..at.span.end], "<<<<<<< HEAD");
    }
    let fenced = "```\n<<<<<<< HEAD\n```\n";
    assert!(plan(&texts(fenced), &Facts::at(now), "s", &requests[0]).is_ok());
}

fn claims(text: &str) -> RailTexts {
    RailTexts {
        claims: Some(crate::model::input::FileText {
            path: "claims.md".into(),
            text: text.into(),
            modified: None,
        }),
        ..Default::default()
    }
}

fn now() -> Facts {
    Facts::at(crate::text::time::parse_time("2026-12-01T10:00Z").unwrap())
}

/// Every value of a request has a limit, and a request over one is refused naming the field,
/// its size and the limit, before anything is planned (issue 41, finding 3).
#[test]
fn a_value_over_its_limit_is_refused_naming_it() {
    let texts = claims("# Claims\n\nmine | alice | 2026-12-01T09:00Z\n");
    let claim = |f: &dyn Fn(&mut ClaimRequest)| {
        let mut req = ClaimRequest {
            task: "t".into(),
            ..Default::default()
        };
        f(&mut req);
        plan(&texts, &now(), "alice", &Request::Claim(req))
    };
    type Set<'a> = &'a dyn Fn(&mut ClaimRequest);
    let cases: [(Set, &str); 5] = [
        (
            &|r| r.purpose = Some("p".repeat(4097)),
            "purpose is 4,097 bytes, over the limit of 4,096 bytes",
        ),
        (
            &|r| r.paths = (0..1001).map(|i| format!("p{i}")).collect(),
            "paths has 1,001 entries",
        ),
        (
            &|r| r.resources = vec!["r".repeat(100); 100],
            "resources is 10,000 bytes in all",
        ),
        (
            &|r| r.after = (0..257).map(|i| format!("t{i}")).collect(),
            "after has 257 entries",
        ),
        (
            &|r| r.lease = Some("1".repeat(100)),
            "lease is 100 bytes, over the limit of 64 bytes",
        ),
    ];
    for (set, said) in cases {
        let err = claim(set).unwrap_err();
        assert_eq!(err.kind, RefusalKind::TooLarge);
        assert_eq!(err.exit_code(), 2);
        assert!(err.message.contains(said), "{}", err.message);
    }
    assert!(claim(&|r| r.purpose = Some("p".repeat(4096))).is_ok());
    let take = Request::Take {
        task: "mine".into(),
        reason: Some("r".repeat(2000)),
        branch: None,
    };
    let err = plan(&texts, &now(), "bob", &take).unwrap_err();
    assert!(
        err.message.contains("reason is 2,000 bytes"),
        "{}",
        err.message
    );
    let release = Request::Release {
        task: "mine".into(),
        touched: vec!["f".repeat(100); 1000],
        done: false,
    };
    let err = plan(&texts, &now(), "alice", &release).unwrap_err();
    assert!(
        err.message.contains("touched is 100,000 bytes in all"),
        "{}",
        err.message
    );
    let update = Request::Update {
        task: "mine".into(),
        paths: None,
        resources: None,
        purpose: Some("p".repeat(5000)),
        add_paths: Vec::new(),
        add_resources: Vec::new(),
    };
    assert_eq!(
        plan(&texts, &now(), "alice", &update).unwrap_err().kind,
        RefusalKind::TooLarge
    );
}

/// No plan takes a rail file past what Rail reads, whatever its fields: the file is counted
/// as it would be written. A plan that makes it smaller is always allowed (a release of a
/// claims.md people filled past the limit by hand frees it).
#[test]
fn no_plan_makes_a_file_larger_than_rail_reads() {
    let limit = crate::text::limits::RAIL_FILE_BYTES;
    let mut text = String::from("# Claims\n\nmine | alice | 2026-12-01T09:00Z\n");
    let filler = format!("{}\n", "x".repeat(1023));
    while text.len() + filler.len() < limit - 100 {
        text.push_str(&filler);
    }
    let texts = claims(&text);
    let claim = |purpose: &str| {
        Request::Claim(ClaimRequest {
            task: "t".into(),
            purpose: Some(purpose.into()),
            ..Default::default()
        })
    };
    let err = plan(&texts, &now(), "alice", &claim(&"p".repeat(2000))).unwrap_err();
    assert_eq!(err.kind, RefusalKind::TooLarge);
    assert!(
        err.message.starts_with("claims.md would be 16,7"),
        "{}",
        err.message
    );
    assert!(plan(&texts, &now(), "alice", &claim("short")).is_ok());
    let release = Request::Release {
        task: "mine".into(),
        touched: Vec::new(),
        done: false,
    };
    assert!(plan(&texts, &now(), "alice", &release).is_ok());
}

/// A task put on the backlog reads back as a planned task that `rail ready` lists and `rail
/// claim` takes its paths from; planned again, or once claimed, nothing changes.
#[test]
fn a_planned_task_goes_on_the_backlog_once() {
    let texts = claims("# Claims\n\nbeta | bob | 2026-12-01T09:00Z\n");
    let request = |task: &str| Request::Plan {
        task: task.into(),
        paths: vec!["alpha/**".into(), "alpha/**".into()],
        purpose: Some("the alpha part".into()),
    };
    let plan = super::plan(&texts, &now(), "main~claude-1", &request("alpha")).unwrap();
    assert!(!plan.noop);
    let text = crate::text::edit::apply(
        texts.claims.as_ref().unwrap().text.as_str(),
        &plan.edits[0].edits,
    )
    .unwrap();
    assert!(
        text.ends_with("beta | bob | 2026-12-01T09:00Z\n- [ ] alpha | paths: alpha/** | purpose: the alpha part\n"),
        "{text}"
    );
    assert!(
        plan.log_line.as_deref().unwrap().contains("planned"),
        "{:?}",
        plan.log_line
    );
    let after = claims(&text);
    let eval = crate::model::Rail::load(&after).evaluate(&now());
    let planned = eval.planned_of("alpha").expect("on the backlog");
    assert_eq!(planned.paths, ["alpha/**"]);
    assert_eq!(planned.purpose.as_deref(), Some("the alpha part"));
    for (texts, task) in [(&after, "alpha"), (&texts, "beta")] {
        let again = super::plan(texts, &now(), "main~claude-1", &request(task)).unwrap();
        assert!(again.noop && again.edits.is_empty(), "{task}: {again:?}");
    }
    // A purpose that would end the entry early is refused, not cut.
    let bad = Request::Plan {
        task: "gamma".into(),
        paths: Vec::new(),
        purpose: Some("a | b".into()),
    };
    assert!(super::plan(&texts, &now(), "main~claude-1", &bad).is_err());
}

/// On a shared rail a claim is its machine's (issue 42): only the machine that made it renews,
/// updates or releases it, whatever session names itself; a session holding a claim on one
/// machine claims nothing on another; a claim made records the asking machine.
#[test]
fn a_claim_is_changed_only_from_its_machine() {
    let texts = claims("# Claims\n\nauth | alice | 2026-12-01T09:30Z | machine: laptop-1\n");
    let on = |machine: Option<&str>| {
        let mut facts = now();
        facts.machine = machine.map(str::to_string);
        facts
    };
    let ops = [
        Request::Release {
            task: "auth".into(),
            touched: Vec::new(),
            done: false,
        },
        Request::Renew {
            task: "auth".into(),
        },
    ];
    for op in &ops {
        let err = plan(&texts, &on(Some("desk-2")), "alice", op).unwrap_err();
        assert_eq!(err.kind, RefusalKind::NotYours, "{op:?}");
        assert!(
            err.message
                .contains("only machine laptop-1 renews, updates or releases it (this is desk-2)"),
            "{}",
            err.message
        );
        assert!(plan(&texts, &on(Some("laptop-1")), "alice", op).is_ok());
        // An agent of alice's on the other machine acts for none of hers there.
        let agent = plan(&texts, &on(Some("desk-2")), "alice~claude-1234abcd", op);
        assert!(agent.is_err(), "{op:?}");
    }
    let claim = |task: &str| {
        Request::Claim(ClaimRequest {
            task: task.into(),
            ..Default::default()
        })
    };
    let err = plan(&texts, &on(Some("desk-2")), "alice", &claim("billing")).unwrap_err();
    assert!(
        err.message
            .starts_with("session alice is on machine laptop-1, not this one (desk-2)"),
        "{}",
        err.message
    );
    let made = plan(&texts, &on(Some("desk-2")), "bob", &claim("billing")).unwrap();
    let line = &made.edits[0].edits[0].text;
    assert!(line.contains("| machine: desk-2"), "{line}");
    // A host that names no machine writes none, as on a local rail.
    let made = plan(&texts, &now(), "bob", &claim("billing")).unwrap();
    assert!(!made.edits[0].edits[0].text.contains("machine"));
    // An id that is not one is refused, not written.
    let err = plan(&texts, &on(Some("-")), "bob", &claim("billing")).unwrap_err();
    assert_eq!(err.kind, RefusalKind::BadInput);
}

/// A take writes the taker's machine over the old one, or adds it to a line without one.
#[test]
fn a_take_makes_the_claim_the_takers_machines() {
    let mut facts = now();
    facts.machine = Some("desk-2".into());
    let take = Request::Take {
        task: "auth".into(),
        reason: None,
        branch: None,
    };
    for line in [
        "auth | alice | 2026-11-30T09:00Z | pid: 1@gone | machine: laptop-1 | purpose: x | y",
        "auth | alice | 2026-11-30T09:00Z | renewed: 2026-11-30T09:10Z | pid: 1@gone | purpose: x",
        "auth | alice | 2026-11-30T09:00Z | branch: b | pid: 1@gone",
    ] {
        let texts = claims(&format!("# Claims\n\n{line}\n"));
        let plan = plan(&texts, &facts, "bob", &take).unwrap_or_else(|r| panic!("{line}: {r:?}"));
        let text =
            crate::text::edit::apply(&texts.claims.as_ref().unwrap().text, &plan.edits[0].edits)
                .unwrap();
        let doc = crate::formats::claims_md::parse(&text);
        let (_, taken) = doc.claims().next().unwrap();
        assert_eq!(taken.session, "bob", "{text}");
        assert_eq!(taken.machine.as_deref(), Some("desk-2"), "{text}");
        assert!(doc.diagnostics.is_empty(), "{text}: {:?}", doc.diagnostics);
    }
}

/// A claim made here whose paths overlap a claim another machine's `main` holds conflicts with
/// it, though an agent of `main` here would act for `main`'s claims made here.
#[test]
fn another_machines_claim_conflicts_whatever_its_sessions_name() {
    let texts = claims(
        "# Claims\n\nauth | main | 2026-12-01T09:30Z | machine: laptop-1 | paths: src/auth/**\n",
    );
    let mut facts = now();
    facts.machine = Some("desk-2".into());
    let req = Request::Claim(ClaimRequest {
        task: "login".into(),
        paths: vec!["src/auth/login.rs".into()],
        ..Default::default()
    });
    let err = plan(&texts, &facts, "main~claude-1234abcd", &req).unwrap_err();
    assert_eq!(err.kind, RefusalKind::PathConflict, "{}", err.message);
    assert!(err.message.contains("machine laptop-1"), "{}", err.message);
    facts.machine = Some("laptop-1".into());
    assert!(plan(&texts, &facts, "main~claude-1234abcd", &req).is_ok());
}
