//! How a machine talks to its shared rail's remote (docs/shared-rail.md, "How far one rail ref
//! goes"): which version of git's protocol its fetches speak.
//!
//! Version 2 lists only the refs a fetch asks for, but costs a round trip more than version 0:
//! its capabilities, the ref listing and the fetch are three exchanges, where version 0's first
//! answer already lists every ref. A shared rail fetches every round, so at internet distance
//! that round trip is a fifth of a fetch. Version 0 lists **every** ref of the remote each
//! time, though (a hosted remote's pull-request refs included), and a push already receives
//! that listing (git's receive side has no version 2): so a fetch speaks version 0 only while
//! the remote's listing, measured, is small. The host measures it (a version-0 `ls-remote`,
//! run beside a round's fetch, so it costs no wall time) and passes the measure in; nothing
//! here reads the network or a clock.

/// A listing up to this size (bytes of `ls-remote` output: about a thousand refs) is worth
/// receiving again instead of the round trip version 2 spends asking for a part of it.
pub const SMALL_LISTING: u64 = 64 * 1024;
/// A measure older than this is taken again (a remote's refs grow with its pull requests).
pub const MEASURE_EVERY_MS: i64 = 24 * 60 * 60 * 1000;

/// The remote's ref listing as last measured: its size and when (ms since 1970). A host keeps
/// it between runs as it is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Listing {
    pub bytes: u64,
    pub at_ms: i64,
}

/// The protocol version a fetch from the shared rail's remote speaks: 0 when a measure younger
/// than a day says the listing is small, 2 otherwise (unmeasured, large, or measured too long
/// ago: version 2 never costs more than its one round trip).
pub fn fetch_protocol(listing: Option<Listing>, now_ms: i64) -> u8 {
    match listing {
        Some(l) if l.bytes <= SMALL_LISTING && !stale(l, now_ms) => 0,
        _ => 2,
    }
}

/// Whether the listing should be measured (again) at `now_ms`.
pub fn measure_due(listing: Option<Listing>, now_ms: i64) -> bool {
    listing.is_none_or(|l| stale(l, now_ms))
}

fn stale(l: Listing, now_ms: i64) -> bool {
    // A measure from the future (a clock set back) is as good as none.
    now_ms < l.at_ms || now_ms - l.at_ms >= MEASURE_EVERY_MS
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_800_000_000_000;

    #[test]
    fn a_small_listing_measured_today_is_fetched_with_version_0() {
        let small = Listing {
            bytes: 3_000,
            at_ms: NOW - 60_000,
        };
        assert_eq!(fetch_protocol(Some(small), NOW), 0);
        assert!(!measure_due(Some(small), NOW));
        let edge = Listing {
            bytes: SMALL_LISTING,
            ..small
        };
        assert_eq!(fetch_protocol(Some(edge), NOW), 0);
    }

    #[test]
    fn large_unmeasured_old_or_future_listings_keep_version_2() {
        assert_eq!(fetch_protocol(None, NOW), 2);
        assert!(measure_due(None, NOW));
        let large = Listing {
            bytes: SMALL_LISTING + 1,
            at_ms: NOW - 1,
        };
        assert_eq!(fetch_protocol(Some(large), NOW), 2);
        assert!(!measure_due(Some(large), NOW));
        let old = Listing {
            bytes: 10,
            at_ms: NOW - MEASURE_EVERY_MS,
        };
        assert_eq!(fetch_protocol(Some(old), NOW), 2);
        assert!(measure_due(Some(old), NOW));
        let future = Listing {
            bytes: 10,
            at_ms: NOW + 1,
        };
        assert_eq!(fetch_protocol(Some(future), NOW), 2);
        assert!(measure_due(Some(future), NOW));
    }
}
