//! git's index, read as git reads it, without a process: the stage-0 entries under some
//! folders (versions 2 to 4, SHA-1 ids) and git's own test of whether a file is the one the
//! index recorded (its stat data, and a change before the index was written, else "racily
//! clean": not trusted). The after-tool check uses it to know which files are unchanged, whose
//! prior content is then their blob. Hosts read the index file's bytes and its time.

use crate::agent::after::Stat;

/// One entry of git's index: what git last saw of a tracked file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Indexed {
    pub oid: String,
    pub size: u32,
    pub mtime: (u32, u32),
    pub ctime: (u32, u32),
    pub ino: u32,
}

/// The index's entries by path, and when it was written (seconds, nanoseconds).
pub type Index = (Vec<(String, Indexed)>, (i64, i64));

/// How many entries an index says it has, from its first 12 bytes; 0 for anything else.
pub fn count(head: &[u8]) -> u32 {
    match head.get(..12) {
        Some(h) if &h[..4] == b"DIRC" => u32::from_be_bytes([h[8], h[9], h[10], h[11]]),
        _ => 0,
    }
}

/// The stage-0 entries of an index's `bytes` under `roots` (folders relative to the worktree,
/// `""` for all of it), in the index's order (sorted by path); `None` for bytes that are not an
/// index of version 2 to 4 or end early. Conflicted, intent-to-add and skip-worktree entries
/// are left out: they are not a clean file's blob.
pub fn entries(bytes: &[u8], roots: &[String]) -> Option<Vec<(String, Indexed)>> {
    let be32 = |at: usize| -> Option<u32> {
        Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
    };
    if bytes.get(..4)? != b"DIRC" {
        return None;
    }
    let version = be32(4)?;
    if !(2..=4).contains(&version) {
        return None;
    }
    let count = be32(8)? as usize;
    let prefixes: Vec<String> = roots.iter().map(|r| format!("{r}/")).collect();
    let whole = roots.iter().any(String::is_empty);
    let under = |p: &str| whole || prefixes.iter().any(|r| p.starts_with(r.as_str()));
    let mut out = Vec::new();
    let mut at = 12;
    let mut prev: Vec<u8> = Vec::new();
    for _ in 0..count {
        let word = |i: usize| be32(at + 4 * i);
        let (cs, cn, ms, mn) = (word(0)?, word(1)?, word(2)?, word(3)?);
        let (ino, size) = (word(5)?, word(9)?);
        let oid = bytes.get(at + 40..at + 60)?;
        let flags = u16::from_be_bytes(bytes.get(at + 60..at + 62)?.try_into().ok()?);
        let extended = version >= 3 && flags & 0x4000 != 0;
        let mut p = at + 62 + if extended { 2 } else { 0 };
        let name: Vec<u8>;
        if version == 4 {
            // A varint of bytes to drop from the previous name, then the rest, NUL-ended.
            let mut strip: usize = 0;
            loop {
                let b = *bytes.get(p)?;
                p += 1;
                strip = (strip << 7) | usize::from(b & 0x7f);
                if b & 0x80 == 0 {
                    break;
                }
                strip += 1;
            }
            let end = p + bytes.get(p..)?.iter().position(|b| *b == 0)?;
            let keep = prev.len().checked_sub(strip)?;
            let mut n = prev[..keep].to_vec();
            n.extend_from_slice(&bytes[p..end]);
            name = n;
            at = end + 1;
        } else {
            let end = p + bytes.get(p..)?.iter().position(|b| *b == 0)?;
            name = bytes[p..end].to_vec();
            // Padded with NULs to a multiple of eight bytes.
            let len = end - at;
            at += (len + 8) & !7;
        }
        prev = name.clone();
        let stage = (flags >> 12) & 3;
        // Conflicted, intent-to-add or skip-worktree entries: not a clean file's blob.
        if stage != 0 || extended {
            continue;
        }
        let Ok(name) = String::from_utf8(name) else {
            continue;
        };
        if !under(&name) {
            continue;
        }
        let oid: String = oid.iter().map(|b| format!("{b:02x}")).collect();
        out.push((
            name,
            Indexed {
                oid,
                size,
                mtime: (ms, mn),
                ctime: (cs, cn),
                ino,
            },
        ));
    }
    Some(out)
}

/// Whether the file as walked is the one git's index recorded (git's own test: the stat data,
/// and a change time before the index was written, else "racily clean": not trusted).
pub fn clean(stat: &Stat, e: &Indexed, index_at: (i64, i64)) -> bool {
    let split = |ns: i64| (ns.div_euclid(1_000_000_000), ns.rem_euclid(1_000_000_000));
    let (ms, mn) = split(stat.mtime_ns);
    let (cs, cn) = split(stat.ctime_ns);
    let same =
        |(s, n): (i64, i64), (is, inn): (u32, u32)| s as u32 == is && (inn == 0 || n as u32 == inn);
    stat.size as u32 == e.size
        && same((ms, mn), e.mtime)
        && same((cs, cn), e.ctime)
        && (e.ino == 0 || stat.ino as u32 == e.ino)
        && (ms, mn) < index_at
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A version 2 index of one entry, `a/x` (real indexes are checked against `git ls-files -s`
    /// in the CLI's tests).
    fn one_entry() -> Vec<u8> {
        let mut b = b"DIRC".to_vec();
        b.extend_from_slice(&2u32.to_be_bytes());
        b.extend_from_slice(&1u32.to_be_bytes());
        for word in [1u32, 2, 3, 4, 0, 7, 0o100644, 0, 0, 5] {
            b.extend_from_slice(&word.to_be_bytes());
        }
        b.extend_from_slice(&[0xab; 20]);
        b.extend_from_slice(&3u16.to_be_bytes());
        b.extend_from_slice(b"a/x");
        while !(b.len() - 12).is_multiple_of(8) || b.last() != Some(&0) {
            b.push(0);
        }
        b
    }

    #[test]
    fn an_entry_is_read_and_a_short_or_foreign_index_is_none() {
        let bytes = one_entry();
        assert_eq!(count(&bytes), 1);
        let got = entries(&bytes, &["a".into()]).unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].0, "a/x");
        assert_eq!(got[0].1.size, 5);
        assert_eq!(got[0].1.oid, "ab".repeat(20));
        assert!(entries(&bytes, &["b".into()]).unwrap().is_empty());
        // Every truncation before the name's end is refused, never read past its end (12 bytes
        // of header, 62 of entry, the 3 of the name).
        for end in 0..12 + 62 + 3 {
            let cut = &bytes[..end];
            assert!(
                entries(cut, &["a".into()]).is_none_or(|e| e.is_empty()),
                "{end}"
            );
        }
        assert_eq!(count(b"PACK\0\0\0\x02\0\0\0\x01"), 0);
    }
}
