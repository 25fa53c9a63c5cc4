//! model::behind's tests: standing, which work a claim sees, the words, the calls across checkouts.

use super::*;
use crate::text::time::parse_time;

fn t(s: &str) -> Time {
    parse_time(s).unwrap()
}

const NOW: &str = "2026-12-06T10:00:00Z";

fn work(session: &str, path: &str, station: Option<&str>, standing: FlightStanding) -> InFlight {
    InFlight {
        path: path.into(),
        session: session.into(),
        checkout: match station {
            Some(b) => format!("/w/{b}"),
            None => "/w/repo".into(),
        },
        station: station.map(str::to_string),
        kind: if station.is_some() {
            WorkKind::Uncommitted
        } else {
            WorkKind::Written
        },
        at: t("2026-12-06T09:57:00Z"),
        standing,
        machine: None,
    }
}

#[test]
fn standing_counts_the_session_its_claim_and_the_work_itself() {
    let lease = TimeDelta::hours(2);
    let now = t(NOW);
    let old = t("2026-12-06T07:00:00Z");
    let recent = t("2026-12-06T09:00:00Z");
    // Touched within the lease: live, whoever vouches.
    assert_eq!(
        standing(None, recent, None, false, now, lease),
        FlightStanding::Live
    );
    // Old work, but its agent was seen lately, or its claim is live: live.
    assert_eq!(
        standing(None, old, Some(recent), false, now, lease),
        FlightStanding::Live
    );
    assert_eq!(
        standing(None, old, None, true, now, lease),
        FlightStanding::Live
    );
    // Nobody for a lease: stale. A session that ended after it: ended, whatever else.
    assert_eq!(
        standing(None, old, Some(old), false, now, lease),
        FlightStanding::Stale
    );
    assert_eq!(
        standing(Some(recent), old, Some(recent), true, now, lease),
        FlightStanding::Ended
    );
    // An end before the work (the session wrote again since): not ended.
    assert_eq!(
        standing(Some(old), recent, None, false, now, lease),
        FlightStanding::Live
    );
}

#[test]
fn a_claim_sees_only_others_work_under_its_paths() {
    let all = vec![
        work(
            "beta",
            "src/auth/token.ts",
            Some("beta"),
            FlightStanding::Live,
        ),
        work("beta", "src/app.ts", Some("beta"), FlightStanding::Live),
        work(
            "main~claude-1",
            "src/auth/session.ts",
            None,
            FlightStanding::Live,
        ),
        work(
            "alpha~codex-2",
            "src/auth/own.ts",
            None,
            FlightStanding::Live,
        ),
        work(
            "gamma",
            "src/auth/old.ts",
            Some("gamma"),
            FlightStanding::Stale,
        ),
    ];
    let pats = vec!["src/auth/**".to_string()];
    let b = for_claim("alpha", &pats, &all);
    let live: Vec<&str> = b.live.iter().map(|w| w.path.as_str()).collect();
    // Its own agent's work never counts; src/app.ts is outside the paths.
    assert_eq!(live, ["src/auth/token.ts", "src/auth/session.ts"]);
    assert_eq!(b.named.len(), 1);
    assert_eq!(
        b.told().keys().cloned().collect::<Vec<_>>(),
        ["beta", "main~claude-1"]
    );
    let said = refusal("auth", "claim", &b, t(NOW)).unwrap();
    assert!(
        said.contains(
            "beta in its station /w/beta (branch beta): src/auth/token.ts (uncommitted, 3m ago)"
        ),
        "{said}"
    );
    assert!(
        said.contains("main~claude-1 in the shared checkout /w/repo: src/auth/session.ts"),
        "{said}"
    );
    assert!(said.contains("--over-flight"), "{said}");
    // The stale one is named by the note, not refused.
    let note = note(&b, false, t(NOW)).unwrap();
    assert!(
        note.contains("gamma") && note.contains("its session not seen for a lease"),
        "{note}"
    );
    assert!(!note.contains("beta"), "{note}");
    // A file, a directory and a glob each cover what they name.
    for p in ["src/auth/token.ts", "src/auth", "src/**/*.ts", "**"] {
        assert!(
            !for_claim("alpha", &[p.to_string()], &all).live.is_empty(),
            "{p}"
        );
    }
    for p in ["src/authx", "src/auth/token.tsx", "lib/**"] {
        assert!(
            for_claim("alpha", &[p.to_string()], &all).live.is_empty(),
            "{p}"
        );
    }
    // Nothing live: no refusal.
    assert_eq!(
        refusal(
            "auth",
            "claim",
            &for_claim("beta", &pats, &all[..2]),
            t(NOW)
        ),
        None
    );
}

#[test]
fn a_long_list_is_named_in_part_and_counted() {
    let mut all = Vec::new();
    for s in 0..6 {
        for f in 0..8 {
            all.push(work(
                &format!("s{s}"),
                &format!("src/f{f}.ts"),
                Some(&format!("s{s}")),
                FlightStanding::Live,
            ));
        }
    }
    let items: Vec<&InFlight> = all.iter().collect();
    let said = describe(&items, t(NOW));
    assert_eq!(said.matches("and 3 more").count(), NAMED_SESSIONS, "{said}");
    assert!(said.ends_with("and 2 more sessions' work"), "{said}");
}

#[test]
fn an_edit_is_warned_of_live_work_in_other_checkouts_only() {
    let all = vec![
        work(
            "beta",
            "src/auth/token.ts",
            Some("beta"),
            FlightStanding::Live,
        ),
        work(
            "gamma",
            "src/auth/token.ts",
            Some("gamma"),
            FlightStanding::Stale,
        ),
        work("delta", "src/auth/token.ts", None, FlightStanding::Live),
    ];
    let files = vec!["src/auth/token.ts".to_string()];
    // From the shared checkout: beta's station is elsewhere, delta's write is here (denied by
    // the hook, not warned of), gamma's is stale.
    let found = elsewhere("alpha", "/w/repo", &files, &all);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].session, "beta");
    let said = warning(&found, t(NOW)).unwrap();
    assert!(
        said.starts_with("Rail: Behind!") && said.contains("beta"),
        "{said}"
    );
    assert_eq!(warning(&[], t(NOW)), None);
    // Its own station's work is its own.
    assert!(elsewhere("beta~claude-9", "/w/alpha", &files, &all[..1]).is_empty());
}

#[test]
fn a_machines_work_in_flight_travels_as_paths_and_reads_back_bounded() {
    let mut all = vec![
        work(
            "beta",
            "src/auth/token.ts",
            Some("beta"),
            FlightStanding::Live,
        ),
        work("main~claude-1", "src/a.ts", None, FlightStanding::Live),
    ];
    let mut remote = work("x", "src/x.ts", None, FlightStanding::Live);
    remote.machine = Some("other".into());
    all.push(remote);
    let block = render_shared(&all);
    // Alongside guard marks: the marks parser passes over it.
    let text = format!("session s\nagent claude\nat 2026-12-06T09:00:00Z\n{block}");
    assert_eq!(
        crate::formats::heartbeat::parse_machine("m", &text).len(),
        1
    );
    let read = parse_shared("laptop-1", &text);
    assert_eq!(read.len(), 2, "another machine's work is not passed on");
    assert!(read
        .iter()
        .all(|w| w.machine.as_deref() == Some("laptop-1")));
    assert!(read
        .iter()
        .any(|w| w.path == "src/auth/token.ts" && w.station.as_deref() == Some("beta")));
    assert!(!worth_sharing(Some(&text), &all[..2]));
    assert!(worth_sharing(Some(&text), &all[..1]));
    assert!(worth_sharing(None, &all[..1]));
    assert!(!worth_sharing(None, &[]));
    // Hostile texts: bad paths and damaged JSON are dropped, never a panic.
    for bad in [
        "in-flight\n[{\"session\":\"s\",\"path\":\"../etc/passwd\",\"kind\":\"written\",\"at\":\"2026-12-06T09:00:00Z\",\"checkout\":\"/x\"}]\n",
        "in-flight\n[{\"session\":\"s\",\"path\":\"a\\u0007b\",\"kind\":\"written\",\"at\":\"2026-12-06T09:00:00Z\",\"checkout\":\"/x\"}]\n",
        "in-flight\n[{]\n",
        "in-flight\nnot json\n",
    ] {
        assert!(parse_shared("m", bad).is_empty(), "{bad}");
    }
    let many: Vec<InFlight> = (0..MAX_SHARED_FILES + 10)
        .map(|i| work("s", &format!("f{i}"), None, FlightStanding::Live))
        .collect();
    assert_eq!(
        parse_shared("m", &render_shared(&many)).len(),
        MAX_SHARED_FILES
    );
}

/// The sessions a commit's sweep names, refused and unsure, for `committer` staging `staged`
/// over `work` in `/w/repo`.
fn sweep_of(
    committer: Committer,
    staged: &[&str],
    work: &[InFlight],
) -> (Vec<String>, Vec<String>) {
    let staged: Vec<String> = staged.iter().map(|s| s.to_string()).collect();
    let found = swept(committer, "/w/repo", &staged, work);
    let names = |v: &[&InFlight]| {
        v.iter()
            .map(|w| format!("{}:{}", w.session, w.path))
            .collect()
    };
    (names(&found.swept), names(&found.unsure))
}

#[test]
fn a_commit_sweeping_another_agents_writes_is_refused_by_kind_when_the_shell_names_no_session() {
    let live = FlightStanding::Live;
    let at_work = vec![
        work("main~claude-11111111", "a.ts", None, live),
        work("main~gemini-22222222", "b.ts", None, live),
        work("main~copilot-33333333", "c.ts", None, live),
        work("main~copilot-33333333~sub-44444444", "d.ts", None, live),
        work("alpha", "e.ts", None, live),
        work("main", "f.ts", None, live),
        work("main~codex-55555555", "g.ts", None, FlightStanding::Stale),
        work("main~claude-11111111", "h.ts", Some("beta"), live),
    ];
    let all = [
        "a.ts", "b.ts", "c.ts", "d.ts", "e.ts", "f.ts", "g.ts", "h.ts",
    ];
    // Gemini's shell (`GEMINI_CLI=1`, no id), the only Gemini session here: its own write and the
    // branch's are its to commit; Claude's, Copilot's (and its subagent's), alpha's and the stale
    // Codex session's are not; another checkout's never count.
    let gemini = Committer::Agent {
        branch: "main",
        agent: "gemini",
        id: None,
    };
    let (refused, unsure) = sweep_of(gemini, &all, &at_work);
    assert_eq!(
        refused,
        [
            "alpha:e.ts",
            "main~claude-11111111:a.ts",
            "main~codex-55555555:g.ts",
            "main~copilot-33333333:c.ts",
            "main~copilot-33333333~sub-44444444:d.ts"
        ]
    );
    assert!(unsure.is_empty());
    // Copilot's lead shell names its lead's id: its subagent's writes are its own too.
    let lead = Committer::Agent {
        branch: "main",
        agent: "copilot",
        id: Some("c0ffee00-0000-0000-0000-000033333333"),
    };
    let (refused, _) = sweep_of(lead, &["c.ts", "d.ts", "b.ts"], &at_work);
    assert_eq!(refused, ["main~gemini-22222222:b.ts"]);
    // A subagent's shell carries an id no hook names: still the only Copilot at work here.
    let sub = Committer::Agent {
        branch: "main",
        agent: "copilot",
        id: Some("99999999"),
    };
    let (refused, unsure) = sweep_of(sub, &["c.ts", "d.ts"], &at_work);
    assert!(refused.is_empty() && unsure.is_empty());
    // Claude Code's shell names its session: it is refused its sibling's work, as before.
    let (refused, _) = sweep_of(
        Committer::Session("main~claude-11111111"),
        &["a.ts", "b.ts"],
        &at_work,
    );
    assert_eq!(refused, ["main~gemini-22222222:b.ts"]);
    // Nor a stale session's: an agent committing is at work, that session is not.
    let (refused, _) = sweep_of(
        Committer::Session("main~claude-11111111"),
        &["g.ts"],
        &at_work,
    );
    assert_eq!(refused, ["main~codex-55555555:g.ts"]);
    // A person on the branch answers for its agents and may rescue a stale session's work:
    // nothing refused but alpha's live work, the agents' writes named.
    let (refused, unsure) = sweep_of(Committer::Session("main"), &all, &at_work);
    assert_eq!(refused, ["alpha:e.ts"]);
    assert_eq!(
        unsure,
        [
            "main~claude-11111111:a.ts",
            "main~codex-55555555:g.ts",
            "main~copilot-33333333:c.ts",
            "main~copilot-33333333~sub-44444444:d.ts",
            "main~gemini-22222222:b.ts"
        ]
    );
}

#[test]
fn two_sessions_of_one_agent_whose_shells_name_none_are_named_not_refused() {
    let live = FlightStanding::Live;
    let at_work = vec![
        work("main~gemini-22222222", "b.ts", None, live),
        work("main~gemini-66666666", "c.ts", None, live),
        work("main~claude-11111111", "a.ts", None, live),
    ];
    let gemini = Committer::Agent {
        branch: "main",
        agent: "gemini",
        id: None,
    };
    let (refused, unsure) = sweep_of(gemini, &["a.ts", "b.ts", "c.ts"], &at_work);
    assert_eq!(refused, ["main~claude-11111111:a.ts"]);
    assert_eq!(
        unsure,
        ["main~gemini-22222222:b.ts", "main~gemini-66666666:c.ts"]
    );
    // An id that names one of them settles it.
    let known = Committer::Agent {
        branch: "main",
        agent: "gemini",
        id: Some("aaaa-66666666"),
    };
    let (refused, unsure) = sweep_of(known, &["b.ts", "c.ts"], &at_work);
    assert_eq!(refused, ["main~gemini-22222222:b.ts"]);
    assert!(unsure.is_empty());
}
