//! claims.log in segments: the log only grows, so what Rail reads of it is bounded instead.
//!
//! claims.log is the active segment. Once it is past [`limits::LOG_SEAL_BYTES`], the next
//! change that writes under the lock seals it: its bytes, exactly as they are, are copied to
//! a sealed segment `claims-log/<hash>.log` (named by a hash of its content, so a crash and a
//! retry name the same file), and then claims.log is replaced — through the journal, like every
//! other change — by a new one that starts with a `sealed` line naming that segment and carries
//! copies of the lines a reader of claims.log alone still needs (`change::seal`). Nothing is
//! dropped: every line is in a segment, and the segments form a chain through their first
//! lines. A sealed segment is never written again, and never read by an operation.
//!
//! A claims.log larger than Rail reads (a rail from before segments, or one a merged branch
//! made huge) is read from its last [`limits::LOG_READ_BYTES`], from the first line that
//! starts there ([`tail_start`]), and sealed whole by the next change.

use crate::formats::journal::fnv1a;
use crate::text::limits;

/// The folder of sealed segments, beside claims.log.
pub const SEGMENT_DIR: &str = "claims-log";

/// Is claims.log, at `len` bytes, due to be sealed?
pub fn due(len: u64) -> bool {
    len > limits::LOG_SEAL_BYTES as u64
}

/// Where a segment with this content hash lives (relative to the rail directory); `attempt`
/// counts names already taken by another content (a hash two contents share).
pub fn segment_path(hash: u64, attempt: u32) -> String {
    match attempt {
        0 => format!("{SEGMENT_DIR}/{hash:016x}.log"),
        n => format!("{SEGMENT_DIR}/{hash:016x}-{n}.log"),
    }
}

/// The hash a segment is named by, fed piece by piece (the host streams the file).
#[derive(Clone, Copy, Debug)]
pub struct SegmentHash(u64);

impl Default for SegmentHash {
    fn default() -> Self {
        SegmentHash(fnv1a(b""))
    }
}

impl SegmentHash {
    pub fn update(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    pub fn finish(self) -> u64 {
        self.0
    }
}

/// Is `path` (relative to the rail directory) a sealed segment's name Rail gives?
pub fn is_segment_path(path: &str) -> bool {
    let Some(name) = path
        .strip_prefix(SEGMENT_DIR)
        .and_then(|r| r.strip_prefix('/'))
    else {
        return false;
    };
    let Some(stem) = name.strip_suffix(".log") else {
        return false;
    };
    let (hash, attempt) = stem.split_once('-').unwrap_or((stem, "1"));
    hash.len() == 16
        && hash.bytes().all(|b| b.is_ascii_hexdigit())
        && !attempt.is_empty()
        && attempt.len() <= 4
        && attempt.bytes().all(|b| b.is_ascii_digit())
}

/// Where the lines of a tail read start: the bytes of claims.log from some offset on, `whole`
/// when the offset is 0. A tail that begins mid-line skips to the next line; one with no line
/// break at all is read as empty (a single line larger than Rail reads is not a log line).
pub fn tail_start(bytes: &[u8], whole: bool) -> usize {
    if whole {
        return 0;
    }
    bytes
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_content_hash_and_nothing_else_is_a_segment() {
        let mut h = SegmentHash::default();
        h.update(b"ab");
        h.update(b"c");
        assert_eq!(h.finish(), fnv1a(b"abc"), "the journal's FNV-1a, streamed");
        let p = segment_path(0xabc, 0);
        assert_eq!(p, "claims-log/0000000000000abc.log");
        assert!(is_segment_path(&p));
        assert!(is_segment_path(&segment_path(0xabc, 2)));
        for not in [
            "claims.log",
            "claims-log/x.log",
            "claims-log/../claims.md",
            "claims-log/0000000000000abc.yaml",
            "claims-log/0000000000000abc-.log",
            "claims-log/sub/0000000000000abc.log",
        ] {
            assert!(!is_segment_path(not), "{not}");
        }
    }

    #[test]
    fn a_tail_starts_at_a_whole_line() {
        assert_eq!(tail_start(b"half\nwhole\n", true), 0);
        assert_eq!(tail_start(b"half\nwhole\n", false), 5);
        assert_eq!(tail_start(b"no break", false), 8);
        assert!(due(limits::LOG_SEAL_BYTES as u64 + 1));
        assert!(!due(limits::LOG_SEAL_BYTES as u64));
    }
}
