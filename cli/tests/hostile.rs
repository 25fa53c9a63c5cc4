//! What a hostile or unlucky rail does to the CLI (issue 17): repeated events that render the
//! same log line, and a lock record whose owner can never be judged.

mod common;

use common::*;

/// Three renewals at the same second render three equal log lines; each is an event and the
/// log must keep all three (the journal's "already appended" check once swallowed them). The
/// claim line, unchanged by the second and third renewal, is not rewritten for them.
#[test]
fn every_renewal_is_logged_even_within_one_second() {
    let repo = Repo::new();
    let now = "--now=2026-10-22T14:05:00Z";
    let out = repo.rail(&["claim", "billing", "--session", "session-a", now]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    for _ in 0..3 {
        let out = repo.rail(&["renew", "billing", "--session", "session-a", now]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    }
    let log = repo.read("claims.log");
    let renewed = log.lines().filter(|l| l.contains("| renewed |")).count();
    assert_eq!(renewed, 3, "{log}");
    assert_eq!(
        repo.holders("billing"),
        ["billing | session-a | 2026-10-22T14:05:00Z | renewed: 2026-10-22T14:05:00Z"]
    );
}
