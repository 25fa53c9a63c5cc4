//! How large each value Rail writes may be: one table, so that no sequence of accepted
//! operations can leave a rail that Rail (or any of its hosts) refuses to read.
//!
//! A value from a request (a `purpose`, `paths`, a take's `reason`, a release's `touched`) is
//! checked against its limit before anything is planned, and refused with the field, its size
//! and the limit named (docs/format.md, "Limits"). Every file a plan writes is checked whole:
//! the result must stay within [`RAIL_FILE_BYTES`], what every host reads of a rail file. The
//! log is kept small another way: it is sealed into segments (`formats::segments`), and read
//! from its end, at most [`LOG_READ_BYTES`].

/// The largest rail file a host reads (claims.md, a claim file, claims.log, rail.yaml): a
/// bigger one is refused, never truncated. `model::MAX_RAIL_BYTES` is this.
pub const RAIL_FILE_BYTES: usize = 16 * 1024 * 1024;

/// A claim's purpose (one line in claims.md; a block scalar in a claim file).
pub const PURPOSE_BYTES: usize = 4 * 1024;
/// A take's reason, as the log records it.
pub const REASON_BYTES: usize = 1024;
/// A lease as written (`45m`, `1h30m`): far more than any duration needs.
pub const LEASE_BYTES: usize = 64;
/// A claim's `pid` field (`PID@HOST/START`: a host name is at most 255 bytes).
pub const PID_BYTES: usize = 512;

/// A list Rail writes: at most `items` entries and `bytes` bytes in all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListLimit {
    pub items: usize,
    pub bytes: usize,
}

/// A claim's paths (each also at most 512 bytes: `text::glob`).
pub const PATHS: ListLimit = ListLimit {
    items: 1000,
    bytes: 64 * 1024,
};
/// A claim's resources (each also at most 128 bytes: `text::ident`).
pub const RESOURCES: ListLimit = ListLimit {
    items: 256,
    bytes: 8 * 1024,
};
/// The tasks a claim waits for (each a task id, at most 128 bytes).
pub const AFTER: ListLimit = ListLimit {
    items: 256,
    bytes: 8 * 1024,
};
/// The files a release records as touched. A host that lists them itself (git's diff) keeps
/// what fits ([`fit`]) and records how many it left out.
pub const TOUCHED: ListLimit = ListLimit {
    items: 1000,
    bytes: 64 * 1024,
};

/// One value of a log line (`touched`, `paths`, a merge's dropped `line`…). A request's values
/// are within it by the limits above; a value a host takes from a file (a lock record, a
/// hand-written claim line, a hook's payload) is cut to it when the line is rendered.
pub const LOG_VALUE_BYTES: usize = 128 * 1024;
/// One log line, all its values together.
pub const LOG_LINE_BYTES: usize = 256 * 1024;

/// claims.log past this is sealed into a segment by the next change (`formats::segments`):
/// what an operation reads of the log stays about this size, however old the rail.
pub const LOG_SEAL_BYTES: usize = 1024 * 1024;
/// What a host reads of claims.log at most: its last bytes, from a whole line. Larger than a
/// log that is sealed on time can be (the seal size plus one change's lines), so only a log
/// from before segments, or one a merged branch made huge, is read in part.
pub const LOG_READ_BYTES: usize = 4 * 1024 * 1024;

/// The lock file: Rail's own record is a few hundred bytes; a bigger file, or one with a
/// field over [`LOCK_FIELD_BYTES`], is not a record Rail wrote (read as unreadable).
pub const LOCK_RECORD_BYTES: usize = 4 * 1024;
pub const LOCK_FIELD_BYTES: usize = 1024;

/// `n` with thousands separated: `4,194,304`.
pub fn count(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A value over its limit, in words: `purpose is 4,194,304 bytes, over the limit of 4,096`.
pub fn check_text(field: &str, value: &str, max: usize) -> Result<(), String> {
    if value.len() <= max {
        return Ok(());
    }
    Err(format!(
        "{field} is {} bytes, over the limit of {} bytes",
        count(value.len()),
        count(max)
    ))
}

/// A list over its limit (entries, or bytes in all), in words.
pub fn check_list(field: &str, values: &[String], limit: ListLimit) -> Result<(), String> {
    if values.len() > limit.items {
        return Err(format!(
            "{field} has {} entries, over the limit of {}",
            count(values.len()),
            count(limit.items)
        ));
    }
    let bytes: usize = values.iter().map(String::len).sum();
    if bytes > limit.bytes {
        return Err(format!(
            "{field} is {} bytes in all, over the limit of {} bytes",
            count(bytes),
            count(limit.bytes)
        ));
    }
    Ok(())
}

/// The first entries of `values` that fit `limit`, and how many were left out.
pub fn fit(values: Vec<String>, limit: ListLimit) -> (Vec<String>, usize) {
    let mut kept = Vec::new();
    let mut bytes = 0;
    let total = values.len();
    for v in values {
        if kept.len() == limit.items || bytes + v.len() > limit.bytes {
            break;
        }
        bytes += v.len();
        kept.push(v);
    }
    let left = total - kept.len();
    (kept, left)
}

/// A file a plan would write, over what every host reads.
pub fn check_file(path: &str, len: usize) -> Result<(), String> {
    if len <= RAIL_FILE_BYTES {
        return Ok(());
    }
    Err(format!(
        "{path} would be {} bytes, over the {} bytes (16 MiB) Rail reads of a rail file",
        count(len),
        count(RAIL_FILE_BYTES)
    ))
}

/// `value` cut to at most `max` bytes at a character boundary, saying how much was cut: for a
/// value a host takes from a file it did not write (never for a request's: those are refused).
pub fn cut(value: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if value.len() <= max {
        return value.into();
    }
    let note_room = 48.min(max);
    let mut end = max - note_room;
    while !value.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}… ({} bytes cut)",
        &value[..end],
        count(value.len() - end)
    )
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_read_as_people_write_them() {
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1000), "1,000");
        assert_eq!(count(4_194_304), "4,194,304");
    }

    #[test]
    fn a_value_over_its_limit_is_named_with_its_size_and_the_limit() {
        assert_eq!(check_text("purpose", "abc", 3), Ok(()));
        assert_eq!(
            check_text("purpose", &"x".repeat(5000), PURPOSE_BYTES).unwrap_err(),
            "purpose is 5,000 bytes, over the limit of 4,096 bytes"
        );
        let many: Vec<String> = (0..1001).map(|i| format!("p{i}")).collect();
        assert_eq!(
            check_list("paths", &many, PATHS).unwrap_err(),
            "paths has 1,001 entries, over the limit of 1,000"
        );
        let long = vec!["x".repeat(5000); 2];
        assert_eq!(
            check_list("resources", &long, RESOURCES).unwrap_err(),
            "resources is 10,000 bytes in all, over the limit of 8,192 bytes"
        );
    }

    #[test]
    fn fit_keeps_what_fits_in_order_and_counts_the_rest() {
        let files: Vec<String> = (0..1500).map(|i| format!("src/f{i}.rs")).collect();
        let (kept, left) = fit(files.clone(), TOUCHED);
        assert_eq!((kept.len(), left), (1000, 500));
        assert_eq!(kept[..], files[..1000]);
        let big = vec!["a".repeat(40_000), "b".repeat(40_000), "c".into()];
        let (kept, left) = fit(big, TOUCHED);
        assert_eq!(
            (kept.len(), left),
            (1, 2),
            "the list stops at the first that does not fit"
        );
        assert!(check_list("touched", &kept, TOUCHED).is_ok());
    }

    #[test]
    fn cut_stays_within_its_bound_on_a_character_boundary() {
        assert_eq!(cut("short", 10), "short");
        let long = "é".repeat(1000);
        let c = cut(&long, 100);
        assert!(c.len() <= 100, "{}", c.len());
        assert!(c.ends_with("bytes cut)"), "{c}");
    }
}
