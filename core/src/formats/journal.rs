//! The redo journal's bytes (docs/lock-protocol.md, *Writing*), so any host can replay any
//! other host's journal.
//!
//! ```text
//! rail-journal 1\n
//! file <path> <length> <checksum>\n<length bytes>\n      the whole new content of <path>
//! append <path> <length> <checksum>\n<length bytes>\n    bytes to append to <path>
//! end <count> <checksum>\n
//! ```
//!
//! [`parse`] says whether a journal is complete (every length and checksum matches, the `end`
//! line counts the records and sums every byte before it, nothing follows) and whether every
//! path is one the rail's writers write ([`crate::formats::rail_files::rail_data_path`]). A torn
//! journal is what a writer that died while writing it leaves; a complete journal naming any other
//! path was not written by Rail, and replaying it would write outside the rail.

use crate::formats::rail_files::{self, ForeignPath};

const MAGIC: &[u8] = b"rail-journal 1\n";

/// What one record asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// The whole new content of a file.
    File,
    /// Bytes to append to a file (the log), unless they already end it.
    Append,
}

impl Action {
    fn word(self) -> &'static str {
        match self {
            Action::File => "file",
            Action::Append => "append",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JournalEntry {
    pub action: Action,
    /// Relative to the rail directory.
    pub path: String,
    pub bytes: Vec<u8>,
}

impl JournalEntry {
    pub fn file(path: impl Into<String>, bytes: impl Into<Vec<u8>>) -> JournalEntry {
        JournalEntry {
            action: Action::File,
            path: path.into(),
            bytes: bytes.into(),
        }
    }

    pub fn append(path: impl Into<String>, bytes: impl Into<Vec<u8>>) -> JournalEntry {
        JournalEntry {
            action: Action::Append,
            path: path.into(),
            bytes: bytes.into(),
        }
    }
}

/// What a journal's bytes are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Parsed {
    /// Complete, every checksum matches and every path is the rail's: replay it.
    Complete(Vec<JournalEntry>),
    /// Torn, garbled or not a journal: its writer died before any file was touched. Drop it.
    Incomplete,
    /// Complete, but a record names a path that is not one of the rail's files. Neither
    /// replay nor drop it: a person must look.
    Foreign(ForeignPath),
}

impl Parsed {
    /// The entries of a complete journal; `None` for anything else.
    pub fn complete(self) -> Option<Vec<JournalEntry>> {
        match self {
            Parsed::Complete(entries) => Some(entries),
            _ => None,
        }
    }
}

/// 64-bit FNV-1a (offset basis `0xcbf29ce484222325`, prime `0x100000001b3`).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// A journal's bytes. Paths are written as given: a path with a space or a newline cannot be
/// read back ([`parse`] says `Incomplete`), and Rail's own paths have neither.
pub fn render(entries: &[JournalEntry]) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    for e in entries {
        out.extend_from_slice(
            format!(
                "{} {} {} {:016x}\n",
                e.action.word(),
                e.path,
                e.bytes.len(),
                fnv1a(&e.bytes)
            )
            .as_bytes(),
        );
        out.extend_from_slice(&e.bytes);
        out.push(b'\n');
    }
    out.extend_from_slice(format!("end {} {:016x}\n", entries.len(), fnv1a(&out)).as_bytes());
    out
}

/// Reads a journal. Never panics; see [`Parsed`] for the three answers.
pub fn parse(bytes: &[u8]) -> Parsed {
    let Some(entries) = parse_records(bytes) else {
        return Parsed::Incomplete;
    };
    for e in &entries {
        if let Err(foreign) = rail_files::rail_data_path(&e.path) {
            return Parsed::Foreign(foreign);
        }
    }
    Parsed::Complete(entries)
}

/// A decimal length or count as the renderer writes it: digits only (no sign, no spaces).
fn decimal(text: &str) -> Option<usize> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// 1 to 16 hex digits, either case, as every host has read them (writers write 16 lowercase).
fn checksum(text: &str) -> Option<u64> {
    if text.is_empty() || text.len() > 16 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(text, 16).ok()
}

fn parse_records(bytes: &[u8]) -> Option<Vec<JournalEntry>> {
    let mut rest = bytes.strip_prefix(MAGIC)?;
    let mut entries = Vec::new();
    loop {
        let nl = rest.iter().position(|b| *b == b'\n')?;
        let header = std::str::from_utf8(&rest[..nl]).ok()?;
        let mut parts = header.split(' ');
        let word = parts.next()?;
        if word == "end" {
            let consumed = bytes.len() - rest.len();
            let count = decimal(parts.next()?)?;
            let sum = checksum(parts.next()?)?;
            let complete = parts.next().is_none()
                && count == entries.len()
                && sum == fnv1a(&bytes[..consumed])
                && rest.len() == nl + 1;
            return complete.then_some(entries);
        }
        let action = match word {
            "file" => Action::File,
            "append" => Action::Append,
            _ => return None,
        };
        let (path, len, sum) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() {
            return None;
        }
        let len = decimal(len)?;
        let sum = checksum(sum)?;
        let start = nl + 1;
        let end = start.checked_add(len)?;
        let body = rest.get(start..end)?;
        if fnv1a(body) != sum || rest.get(end) != Some(&b'\n') {
            return None;
        }
        entries.push(JournalEntry {
            action,
            path: path.to_string(),
            bytes: body.to_vec(),
        });
        rest = &rest[end + 1..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<JournalEntry> {
        vec![
            JournalEntry::file("claims.md", "a | s | 2026-10-22T14:05Z\n"),
            JournalEntry::file("claims/alice.yaml", "task: a\n"),
            JournalEntry::append("claims.log", "line\n"),
        ]
    }

    #[test]
    fn the_documented_bytes() {
        let bytes = render(&[JournalEntry::append("claims.log", "x\n")]);
        let text = String::from_utf8(bytes.clone()).unwrap();
        let head = "rail-journal 1\nappend claims.log 2 ";
        assert!(text.starts_with(head), "{text}");
        assert_eq!(
            &text[head.len()..head.len() + 17],
            format!("{:016x}\n", fnv1a(b"x\n"))
        );
        let end = format!("end 1 {:016x}\n", fnv1a(&bytes[..bytes.len() - 23]));
        assert!(text.ends_with(&end), "{text}");
        // FNV-1a's published test vectors.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn round_trip_and_every_torn_prefix() {
        let bytes = render(&sample());
        assert_eq!(parse(&bytes), Parsed::Complete(sample()));
        assert_eq!(parse(&render(&[])), Parsed::Complete(Vec::new()));
        for cut in 0..bytes.len() {
            assert_eq!(parse(&bytes[..cut]), Parsed::Incomplete, "cut at {cut}");
        }
        for i in 0..bytes.len() {
            let mut flipped = bytes.clone();
            flipped[i] ^= 1;
            assert_ne!(
                parse(&flipped),
                Parsed::Complete(sample()),
                "flipped byte {i}"
            );
        }
        let mut trailing = bytes.clone();
        trailing.push(b'\n');
        assert_eq!(parse(&trailing), Parsed::Incomplete);
    }

    #[test]
    fn a_complete_journal_naming_a_foreign_path_is_refused() {
        let hostile = [
            "../x",
            "/etc/passwd",
            ".git/config",
            "claims/../../.git/config",
            "claims/a/b.yaml",
            "claims/..\\x.yaml",
            "claims/a\0.yaml",
            "rail.yaml",
            "src/main.rs",
        ];
        for path in hostile {
            for entry in [
                JournalEntry::file(path, "x"),
                JournalEntry::append(path, "x"),
            ] {
                let bytes = render(&[JournalEntry::file("claims.md", ""), entry]);
                match parse(&bytes) {
                    Parsed::Foreign(f) => assert_eq!(f.path, path),
                    other => panic!("{path:?}: {other:?}"),
                }
            }
        }
    }

    #[test]
    fn headers_are_read_strictly() {
        let body = |header: &str| {
            let mut out = MAGIC.to_vec();
            out.extend_from_slice(header.as_bytes());
            out.extend_from_slice(b"x\n");
            out.extend_from_slice(format!("end 1 {:016x}\n", fnv1a(&out)).as_bytes());
            out
        };
        let sum = format!("{:016x}", fnv1a(b"x"));
        for good in [sum.clone(), sum.to_uppercase()] {
            assert!(matches!(
                parse(&body(&format!("file claims.md 1 {good}\n"))),
                Parsed::Complete(_)
            ));
        }
        for bad in [
            format!("file claims.md +1 {sum}\n"),
            format!("file claims.md 1 +{}\n", &sum[1..]),
            format!("file claims.md 1 0{sum}\n"),
            format!("file claims.md 1 {sum} extra\n"),
            format!("file  claims.md 1 {sum}\n"),
            format!("move claims.md 1 {sum}\n"),
            format!("file claims.md 99999999999999999999999 {sum}\n"),
        ] {
            assert_eq!(parse(&body(&bad)), Parsed::Incomplete, "{bad}");
        }
    }
}
