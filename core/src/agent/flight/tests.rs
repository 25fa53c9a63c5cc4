//! Work in flight: recording a session's writes, when they end, and the hook's verdict on a
//! write over them.

use chrono::{DateTime, TimeDelta, Utc};

use super::*;
use crate::agent::hook::{Decision, HookVerdict};

const BETA: &str = "main~claude-bbbb2222";
const ALPHA: &str = "main~claude-aaaa1111";
const SHARED: &str = "/w/app";

fn t(s: &str) -> DateTime<Utc> {
    s.parse().unwrap()
}

fn allowed() -> HookVerdict {
    HookVerdict {
        decision: Decision::Allow,
        message: String::new(),
        held: Vec::new(),
        held_unlisted: 0,
        outside: Vec::new(),
        hint: None,
    }
}

fn beta_wrote(paths: &[&str]) -> SessionFlight {
    let mut f = SessionFlight::new(BETA);
    let paths: Vec<String> = paths.iter().map(|p| p.to_string()).collect();
    f.record(&paths, SHARED, t("2026-12-01T10:00:00Z"));
    f
}

#[test]
fn a_write_is_recorded_once_at_its_latest_time_and_the_oldest_go_past_the_bound() {
    let mut f = beta_wrote(&["src/auth/token.ts", "src/a.ts"]);
    f.record(
        &["src/auth/token.ts".into()],
        SHARED,
        t("2026-12-01T10:05:00Z"),
    );
    assert_eq!(f.entries.len(), 2);
    assert_eq!(f.entries[1].path, "src/auth/token.ts");
    assert_eq!(f.entries[1].at, t("2026-12-01T10:05:00Z"));
    let many: Vec<String> = (0..MAX_ENTRIES + 5).map(|i| format!("f/{i}")).collect();
    f.record(&many, SHARED, t("2026-12-01T10:06:00Z"));
    assert_eq!(f.entries.len(), MAX_ENTRIES);
    assert_eq!(
        f.entries.last().unwrap().path,
        format!("f/{}", MAX_ENTRIES + 4)
    );
}

#[test]
fn the_file_reads_back_and_hostile_ones_speak_for_nobody() {
    let mut f = beta_wrote(&["src/auth/token.ts"]);
    f.ended = Some(t("2026-12-01T11:00:00Z"));
    let name = crate::formats::heartbeat::file_name(BETA);
    assert_eq!(parse(&name, &render(&f)), Some(f.clone()));
    // A copied file names another session than its file name: nobody's.
    let other = crate::formats::heartbeat::file_name(ALPHA);
    assert_eq!(parse(&other, &render(&f)), None);
    assert_eq!(parse(&name, "not json"), None);
    assert_eq!(parse(&name, "{\"session\":3}"), None);
    // Paths that are not plain repo-relative paths are dropped, never followed.
    let text = render(&f).replace("src/auth/token.ts", "../../etc/passwd");
    assert!(parse(&name, &text).unwrap().entries.is_empty());
    for bad in ["/etc/passwd", "a//b", "./a", "a\nb", ""] {
        let mut g = SessionFlight::new(BETA);
        g.record(&[bad.to_string()], SHARED, t("2026-12-01T10:00:00Z"));
        assert!(g.entries.is_empty(), "{bad:?}");
    }
}

#[test]
fn a_call_wrote_the_paths_whose_stat_changed() {
    let call = PendingCall {
        session: "s".into(),
        checkout: SHARED.into(),
        writes: vec![
            ("same.ts".into(), Some((1, 2, 3, 4))),
            ("rewritten.ts".into(), Some((1, 2, 3, 4))),
            ("made.ts".into(), None),
            ("removed.ts".into(), Some((1, 2, 3, 4))),
            ("never.ts".into(), None),
        ],
    };
    let after = [
        Some((1, 2, 3, 4)),
        Some((1, 2, 9, 4)),
        Some((5, 6, 7, 8)),
        None,
        None,
    ];
    assert_eq!(
        written(&call, &after),
        ["rewritten.ts", "made.ts", "removed.ts"]
    );
    assert_eq!(parse_pending(&render_pending(&call)), Some(call));
}

#[test]
fn work_ends_when_the_file_is_heads() {
    let blob = |s: &str| PathNow::Blob(s.into());
    assert!(ended(&blob("abc"), Ok(Some("ABC"))), "committed");
    assert!(!ended(&blob("abc"), Ok(Some("def"))), "changed since HEAD");
    assert!(!ended(&blob("abc"), Ok(None)), "a new file");
    assert!(ended(&PathNow::Missing, Ok(None)), "a new file removed");
    assert!(!ended(&PathNow::Missing, Ok(Some("abc"))), "a deletion");
    assert!(!ended(&PathNow::Unknown, Ok(Some("abc"))));
    assert!(
        !ended(&blob("abc"), Err(())),
        "HEAD unreadable: still in flight"
    );
}

#[test]
fn a_session_counts_while_seen_within_a_lease_and_not_once_ended() {
    let f = beta_wrote(&["a"]);
    let at = t("2026-12-01T10:00:00Z");
    let lease = TimeDelta::hours(2);
    let now = t("2026-12-01T13:00:00Z");
    assert_eq!(standing(&f, at, None, now, lease), FlightStanding::Stale);
    let seen = Some(t("2026-12-01T12:30:00Z"));
    assert_eq!(standing(&f, at, seen, now, lease), FlightStanding::Live);
    let mut ended = f.clone();
    ended.ended = Some(t("2026-12-01T11:00:00Z"));
    assert_eq!(
        standing(&ended, at, seen, now, lease),
        FlightStanding::Ended
    );
    // A write after its session's end (a resumed session) counts again.
    let later = t("2026-12-01T11:30:00Z");
    assert_eq!(
        standing(&ended, later, seen, now, lease),
        FlightStanding::Live
    );
}

#[test]
fn only_other_sessions_in_the_same_checkout_collide() {
    let beta = beta_wrote(&["src/auth/token.ts", "src/ui/a.ts"]);
    let mut station = SessionFlight::new("beta~claude-cccc3333");
    station.record(
        &["src/auth/token.ts".into()],
        "/w/app-beta",
        t("2026-12-01T10:00:00Z"),
    );
    let flights = [beta, station];
    let hits =
        |actor: &str, target: &str| collisions(actor, SHARED, &[target.to_string()], &flights);
    assert_eq!(hits(ALPHA, "src/auth/token.ts"), [(0, 0)]);
    assert_eq!(hits(ALPHA, "./src/auth/token.ts"), [(0, 0)]);
    assert_eq!(hits(ALPHA, "src/auth"), [(0, 0)], "a directory above it");
    assert_eq!(hits(ALPHA, "src/**/*.ts"), [(0, 0), (0, 1)], "a pattern");
    assert_eq!(hits(ALPHA, "src/auth/token.tsx"), []);
    assert_eq!(hits(ALPHA, "src/aut"), []);
    assert_eq!(hits(BETA, "src/auth/token.ts"), [], "its own");
    assert_eq!(
        hits("main", "src/auth/token.ts"),
        [],
        "its branch answers for it"
    );
    assert_eq!(
        hits(&format!("{BETA}~sub-dddd4444"), "src/auth/token.ts"),
        [],
        "its subagent"
    );
}

#[test]
fn a_live_sessions_file_is_denied_naming_it_and_a_stale_ones_only_named() {
    let f = beta_wrote(&["src/auth/token.ts"]);
    let now = t("2026-12-01T10:03:00Z");
    let lease = TimeDelta::hours(2);
    let live = hit(&f, &f.entries[0], None, now, lease);
    let v = join(allowed(), std::slice::from_ref(&live));
    assert_eq!(v.decision, Decision::Deny);
    assert!(
        v.message.starts_with(&format!(
            "Rail: src/auth/token.ts has {BETA}'s uncommitted change (written 3m ago)"
        )),
        "{}",
        v.message
    );
    let stale = hit(&f, &f.entries[0], None, t("2026-12-01T13:00:00Z"), lease);
    let v = join(allowed(), &[stale]);
    assert_eq!(v.decision, Decision::Warn, "{}", v.message);
    assert!(v.message.contains("not seen for a lease"), "{}", v.message);
    assert!(v.message.contains(BETA));
    assert_eq!(join(allowed(), &[]), allowed());
    // A warning already there stays said, and the denial comes first.
    let mut warned = allowed();
    warned.decision = Decision::Warn;
    warned.message = "Rail: outside".into();
    let v = join(warned, &[live]);
    assert_eq!(v.decision, Decision::Deny);
    assert!(v.message.contains("uncommitted change"));
}

#[test]
fn a_commit_takes_what_its_line_and_the_status_say() {
    use crate::agent::shell::GitCommit;
    let e = |path: &str, staged: bool, untracked: bool| StatusEntry {
        path: path.into(),
        staged,
        untracked,
    };
    let status = [
        e("a.ts", true, false),
        e("b.ts", false, false),
        e("new.ts", false, true),
        e("src/c.ts", false, false),
    ];
    let takes = |c: GitCommit| commit_takes(&c, &status);
    let v = |xs: &[&str]| Some(xs.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    assert_eq!(takes(GitCommit::default()), v(&["a.ts"]));
    let all = GitCommit {
        all: true,
        ..GitCommit::default()
    };
    assert_eq!(takes(all.clone()), v(&["a.ts", "b.ts", "src/c.ts"]));
    assert_eq!(
        takes(GitCommit {
            new_files: true,
            ..all
        }),
        v(&["a.ts", "b.ts", "new.ts", "src/c.ts"])
    );
    assert_eq!(
        takes(GitCommit {
            added: vec!["src".into(), "new.ts".into()],
            ..GitCommit::default()
        }),
        v(&["a.ts", "new.ts", "src/c.ts"])
    );
    // Pathspecs: only those, and an untracked file only when the line adds it.
    assert_eq!(
        takes(GitCommit {
            only: vec!["b.ts".into(), "new.ts".into()],
            ..GitCommit::default()
        }),
        v(&["b.ts"])
    );
    assert_eq!(
        takes(GitCommit {
            unknown: true,
            ..GitCommit::default()
        }),
        None
    );
}

#[test]
fn a_write_another_session_wrote_over_later_is_no_longer_in_flight() {
    // Beta wrote the file at 10:00; it was committed (or beta ended) and gamma wrote it at
    // 10:05. Beta's entry lingers until pruned, and the file differs from HEAD again: it is
    // gamma's work in the file now, not beta's.
    let beta = beta_wrote(&["src/auth/token.ts", "src/a.ts"]);
    let mut gamma = SessionFlight::new("main~codex-cccc3333");
    gamma.record(
        &["src/auth/token.ts".into()],
        SHARED,
        t("2026-12-01T10:05:00Z"),
    );
    let flights = vec![beta, gamma];
    let hit = |target: &str| {
        collisions(ALPHA, SHARED, &[target.to_string()], &flights)
            .into_iter()
            .map(|(i, _)| flights[i].session.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(hit("src/auth/token.ts"), ["main~codex-cccc3333"]);
    assert_eq!(hit("src/a.ts"), [BETA]);
    // In another checkout the same path is another file.
    let mut elsewhere = SessionFlight::new("main~gemini-dddd4444");
    elsewhere.record(
        &["src/a.ts".into()],
        "/w/station",
        t("2026-12-01T10:09:00Z"),
    );
    let mut flights = flights;
    flights.push(elsewhere);
    let latest = latest_writes(&flights);
    assert!(is_latest(&latest, &flights[0].entries[1]));
}
