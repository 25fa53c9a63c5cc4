//! A machine's sightings of a shared rail: when it first saw each claim's activity (a claim, a
//! renewal, a take), by its own clock (docs/shared-rail.md, "Leases across machines").
//!
//! The times in a shared rail are written by other machines' clocks. A clock hours ahead made a
//! renewal seconds old look hours old, and a clock behind wrote claims born stale (issue 42,
//! finding 4). What no clock elsewhere can move is when this machine first saw an activity, by
//! its own clock: a lease counts from the later of the two ([`super::lease::counted_time`]).
//! The host keeps the sightings in a file (`<git common dir>/rail/observed`) and passes them in
//! [`super::input::Facts::observed`]; the rule for the file is here.
//!
//! The file, one sighting a line: `<unix ms> <TAB> <activity key>`. A sighting is kept while the
//! rail holds its activity; one whose claim was renewed, taken or released is dropped, so the
//! file holds at most one line per claim. A line that does not read is dropped too: the claim
//! then counts as seen now, which can only make it hold longer, never free it.

use std::collections::BTreeMap;

use crate::text::time::Time;

/// The sightings a file's text holds.
pub fn parse(text: &str) -> BTreeMap<String, Time> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let Some((ms, key)) = line.split_once('\t') else {
            continue;
        };
        let Some(at) = ms.parse().ok().and_then(Time::from_timestamp_millis) else {
            continue;
        };
        if !key.is_empty() {
            out.insert(key.to_string(), at);
        }
    }
    out
}

/// The sightings after this machine saw a state whose claims have the activities `keys` at
/// `now` (its own clock): each activity seen before keeps its first sighting, a new one is seen
/// now, and one no longer on the rail is forgotten. Also whether that changed anything (the
/// host writes the file only then).
pub fn record<'a>(
    before: &BTreeMap<String, Time>,
    keys: impl IntoIterator<Item = &'a str>,
    now: Time,
) -> (BTreeMap<String, Time>, bool) {
    let mut after = BTreeMap::new();
    for key in keys {
        let at = before.get(key).copied().unwrap_or(now);
        after.insert(key.to_string(), at);
    }
    let changed = after != *before;
    (after, changed)
}

/// The file's text for `sightings`.
pub fn render(sightings: &BTreeMap<String, Time>) -> String {
    let mut out = String::new();
    for (key, at) in sightings {
        out.push_str(&format!("{}\t{key}\n", at.timestamp_millis()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::input::{Facts, RailTexts};
    use crate::model::lease::LeaseState;
    use crate::model::Rail;
    use crate::text::time::parse_time;

    fn t(s: &str) -> Time {
        parse_time(s).unwrap()
    }

    fn rail(claims: &str) -> Rail {
        Rail::load(&RailTexts {
            claims: Some(crate::model::input::FileText {
                path: "claims.md".into(),
                text: claims.into(),
                modified: None,
            }),
            ..Default::default()
        })
    }

    /// The state of `task` on `rail` at `now`, with this machine's `sightings`.
    fn state(rail: &Rail, sightings: &BTreeMap<String, Time>, now: Time) -> LeaseState {
        let mut facts = Facts::at(now);
        facts.observing = true;
        facts.observed = sightings.clone();
        rail.evaluate(&facts).claims[0].state()
    }

    fn keys(rail: &Rail) -> Vec<String> {
        let eval = rail.evaluate(&Facts::at(t("2026-10-22T00:00Z")));
        eval.claims.iter().map(|c| c.activity_key()).collect()
    }

    #[test]
    fn a_clock_hours_off_neither_frees_a_live_claim_nor_writes_one_born_stale() {
        // Renewed at 14:00 by a correct clock; this machine's clock runs 3h ahead and saw the
        // renewal at its 17:00.
        let renewed = rail("auth | alice | 2026-10-22T10:00:00Z | renewed: 2026-10-22T14:00:00Z\n");
        let (seen, _) = record(
            &BTreeMap::new(),
            keys(&renewed).iter().map(String::as_str),
            t("2026-10-22T17:00Z"),
        );
        assert_eq!(
            state(&renewed, &seen, t("2026-10-22T17:01Z")),
            LeaseState::Live
        );
        assert_eq!(
            state(&renewed, &seen, t("2026-10-22T19:01Z")),
            LeaseState::Stale
        );
        // Claimed at 14:00 by a clock 3h behind (written 11:00); seen here at 14:00.
        let behind = rail("auth | carol | 2026-10-22T11:00:00Z\n");
        let (seen, _) = record(
            &BTreeMap::new(),
            keys(&behind).iter().map(String::as_str),
            t("2026-10-22T14:00Z"),
        );
        assert_eq!(
            state(&behind, &seen, t("2026-10-22T14:01Z")),
            LeaseState::Live
        );
        let eval = {
            let mut f = Facts::at(t("2026-10-22T14:01Z"));
            f.observing = true;
            f.observed = seen.clone();
            behind.evaluate(&f)
        };
        assert!(
            eval.claims[0].lease_reason().contains(
                "its time 2026-10-22T11:00:00Z is before this machine first saw it: counted from 2026-10-22T14:00:00Z"
            ),
            "{}",
            eval.claims[0].lease_reason()
        );
        assert_eq!(
            state(&behind, &seen, t("2026-10-22T16:01Z")),
            LeaseState::Stale
        );
        // Dated in the future: counted from the sighting, and it runs out by this clock.
        let ahead = rail("auth | dave | 2099-01-01T00:00:00Z\n");
        let (seen, _) = record(
            &BTreeMap::new(),
            keys(&ahead).iter().map(String::as_str),
            t("2026-10-22T14:00Z"),
        );
        assert_eq!(
            state(&ahead, &seen, t("2026-10-22T15:00Z")),
            LeaseState::Live
        );
        assert_eq!(
            state(&ahead, &seen, t("2026-10-22T16:01Z")),
            LeaseState::Stale
        );
        // Never seen: seen now, so it holds for a whole lease from here.
        assert_eq!(
            state(&ahead, &BTreeMap::new(), t("2030-01-01T00:00Z")),
            LeaseState::Live
        );
    }

    #[test]
    fn a_sighting_is_kept_while_its_activity_lasts_and_reads_back() {
        let claimed = rail("auth | alice | 2026-10-22T10:00:00Z\n");
        let (first, changed) = record(
            &BTreeMap::new(),
            keys(&claimed).iter().map(String::as_str),
            t("2026-10-22T10:01Z"),
        );
        assert!(changed);
        let (again, changed) = record(
            &first,
            keys(&claimed).iter().map(String::as_str),
            t("2026-10-22T12:00Z"),
        );
        assert!(!changed);
        assert_eq!(again, first);
        // A renewal is a new activity, seen when it is seen; the old sighting goes.
        let renewed = rail("auth | alice | 2026-10-22T10:00:00Z | renewed: 2026-10-22T11:00:00Z\n");
        let (after, changed) = record(
            &first,
            keys(&renewed).iter().map(String::as_str),
            t("2026-10-22T11:30Z"),
        );
        assert!(changed);
        assert_eq!(
            after.values().copied().collect::<Vec<_>>(),
            [t("2026-10-22T11:30Z")]
        );
        assert_eq!(parse(&render(&after)), after);
        // Lines that do not read are dropped, not guessed.
        let text = format!("{}junk\nnot-ms\tkey\n12\t\n", render(&after));
        assert_eq!(parse(&text), after);
    }
}
