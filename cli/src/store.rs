//! Reading the rail's files and writing changes to them, crash-safely.
//!
//! claims.md is changed in place, never replaced, so a `flock claims.md …` waiter always locks
//! the file everyone else locks (replacing it would hand newcomers a new inode). In-place writes
//! are made crash-safe with a redo journal: before touching any file, the full new contents
//! (and the log lines to append) are written to `claims.md.journal` with a checksum; then the
//! files are written; then the journal is removed. Whoever takes the lock next finds a complete
//! journal and replays it, or an incomplete one (the crash happened before any file was touched)
//! and drops it. So after SIGKILL at any point, the rail is the old version or the new one.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::PathBuf;
use std::time::SystemTime;

use chrono::{DateTime, Utc};
use rail_core::edit::{self, FileEdits};
use rail_core::input::{FileText, RailTexts};
use rail_core::model::{CLAIMS_DIR, CLAIMS_MD, CONFIG_FILE, LOG_FILE};

use crate::lock::{self, RailLock};

pub const JOURNAL: &str = "claims.md.journal";

/// Largest claims.md Rail will read (bigger files are refused, never truncated).
pub const MAX_RAIL_BYTES: u64 = 16 * 1024 * 1024;

/// Crash-injection points for tests (`RAIL_TEST_CRASH=after-journal|mid-write|before-log`).
fn crash_point(name: &str) {
    if std::env::var("RAIL_TEST_CRASH").as_deref() == Ok(name) {
        // Die the way SIGKILL would: no destructors, no flushing.
        crate::sys::die_now();
    }
}

#[derive(Clone, Debug)]
pub struct RailDir {
    pub root: PathBuf,
}

fn to_time(t: SystemTime) -> DateTime<Utc> {
    DateTime::<Utc>::from(t)
}

/// A read failure with the file it concerns.
#[derive(Debug)]
pub struct StoreError {
    pub path: PathBuf,
    pub error: io::Error,
    /// Bad input (too big, not UTF-8) rather than an environment problem.
    pub bad_input: bool,
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.error)
    }
}

impl RailDir {
    pub fn new(root: PathBuf) -> Self {
        RailDir { root }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    fn read_file(&self, name: &str, shared: bool) -> Result<Option<FileText>, StoreError> {
        let path = self.path(name);
        let err = |error: io::Error, bad_input: bool| StoreError {
            path: path.clone(),
            error,
            bad_input,
        };
        match fs::metadata(&path) {
            Ok(m) if m.len() > MAX_RAIL_BYTES => {
                return Err(err(
                    io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!(
                            "is {} bytes, more than the {} MB Rail reads; it was not changed",
                            m.len(),
                            MAX_RAIL_BYTES / 1024 / 1024
                        ),
                    ),
                    true,
                ))
            }
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(err(e, false)),
        }
        let (bytes, modified) = if shared {
            match lock::read_shared(&path).map_err(|e| err(e, false))? {
                Some((bytes, m)) => (bytes, m),
                None => return Ok(None),
            }
        } else {
            let mut f = match File::open(&path) {
                Ok(f) => f,
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(err(e, false)),
            };
            let mut b = Vec::new();
            f.read_to_end(&mut b).map_err(|e| err(e, false))?;
            let m = f
                .metadata()
                .and_then(|m| m.modified())
                .map_err(|e| err(e, false))?;
            (b, m)
        };
        let text = String::from_utf8(bytes).map_err(|e| {
            err(
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "is not valid UTF-8 (at byte {}); it was not changed",
                        e.utf8_error().valid_up_to()
                    ),
                ),
                true,
            )
        })?;
        Ok(Some(FileText {
            path: name.to_string(),
            text,
            modified: Some(to_time(modified)),
        }))
    }

    /// Reads every file of the rail. `locked`: the caller holds the rail lock (no shared flock
    /// needed, and a pending journal has been replayed).
    pub fn read(&self, locked: bool) -> Result<RailTexts, StoreError> {
        let mut texts = RailTexts {
            claims: self.read_file(CLAIMS_MD, !locked)?,
            claim_files: Vec::new(),
            log: self.read_file(LOG_FILE, false)?,
            config: self.read_file(CONFIG_FILE, false)?,
        };
        // An unlocked reader that finds a crashed writer's complete journal reads what the
        // writer meant to write.
        if !locked {
            if let Ok(Some(journal)) = self.read_journal() {
                for entry in journal {
                    if let JournalEntry::File { path, bytes } = entry {
                        if path == CLAIMS_MD {
                            if let (Some(c), Ok(text)) =
                                (texts.claims.as_mut(), String::from_utf8(bytes))
                            {
                                c.text = text;
                            }
                        }
                    }
                }
            }
        }
        let dir = self.path(CLAIMS_DIR);
        if let Ok(entries) = fs::read_dir(&dir) {
            let mut names: Vec<String> = entries
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".yaml") || n.ends_with(".yml"))
                .collect();
            names.sort();
            for name in names {
                let rel = format!("{CLAIMS_DIR}/{name}");
                if let Some(f) = self.read_file(&rel, false)? {
                    texts.claim_files.push(f);
                }
            }
        }
        Ok(texts)
    }

    fn read_journal(&self) -> io::Result<Option<Vec<JournalEntry>>> {
        match fs::read(self.path(JOURNAL)) {
            Ok(bytes) => Ok(parse_journal(&bytes)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Under the lock: finish or drop a journal left by a crashed writer. Returns a message if
    /// there was one.
    pub fn recover(&self, lock: &RailLock) -> io::Result<Option<String>> {
        let path = self.path(JOURNAL);
        if !path.exists() {
            return Ok(None);
        }
        match self.read_journal()? {
            Some(entries) => {
                self.write_entries(lock, &entries)?;
                fs::remove_file(&path)?;
                Ok(Some(
                    "finished a change interrupted by a crash (replayed claims.md.journal)".into(),
                ))
            }
            None => {
                fs::remove_file(&path)?;
                Ok(Some(
                    "dropped an incomplete journal left by a crash before any file was changed"
                        .into(),
                ))
            }
        }
    }

    /// Under the lock: applies a plan's edits against the texts they were made from, and
    /// appends the log lines.
    pub fn apply(
        &self,
        lock: &RailLock,
        texts: &RailTexts,
        edits: &[FileEdits],
        log_lines: &[String],
    ) -> Result<(), String> {
        let mut entries = Vec::new();
        for fe in edits {
            if fe.edits.is_empty() {
                continue;
            }
            fn find(f: &Option<FileText>) -> Option<&str> {
                f.as_ref().map(|f| f.text.as_str())
            }
            let old = match fe.file.as_str() {
                CLAIMS_MD => find(&texts.claims),
                LOG_FILE => find(&texts.log),
                CONFIG_FILE => find(&texts.config),
                other => texts
                    .claim_files
                    .iter()
                    .find(|f| f.path == other)
                    .map(|f| f.text.as_str()),
            }
            .unwrap_or("");
            let new = edit::apply(old, &fe.edits)
                .map_err(|e| format!("internal error applying edits to {}: {e}", fe.file))?;
            entries.push(JournalEntry::File {
                path: fe.file.clone(),
                bytes: new.into_bytes(),
            });
        }
        for line in log_lines {
            entries.push(JournalEntry::Append {
                path: LOG_FILE.to_string(),
                bytes: format!("{line}\n").into_bytes(),
            });
        }
        if entries.is_empty() {
            return Ok(());
        }
        let journal = self.path(JOURNAL);
        let io = |what: &str, e: io::Error| format!("{what}: {e}");
        {
            let mut f = File::create(&journal).map_err(|e| io("writing the journal", e))?;
            f.write_all(&render_journal(&entries))
                .map_err(|e| io("writing the journal", e))?;
            if fsync_wanted() {
                f.sync_all().map_err(|e| io("syncing the journal", e))?;
            }
        }
        crash_point("after-journal");
        self.write_entries(lock, &entries)
            .map_err(|e| io("writing the rail", e))?;
        fs::remove_file(&journal).map_err(|e| io("removing the journal", e))?;
        Ok(())
    }

    fn write_entries(&self, lock: &RailLock, entries: &[JournalEntry]) -> io::Result<()> {
        for entry in entries {
            match entry {
                JournalEntry::File { path, bytes } if path == CLAIMS_MD => {
                    write_in_place(&lock.claims, bytes)?;
                }
                JournalEntry::File { path, bytes } => {
                    let target = self.path(path);
                    if let Some(parent) = target.parent() {
                        fs::create_dir_all(parent)?;
                    }
                    // Claim files are nobody's flock target: replace them atomically.
                    let tmp = target.with_extension("yaml.rail-tmp");
                    fs::write(&tmp, bytes)?;
                    fs::rename(&tmp, &target)?;
                }
                JournalEntry::Append { path, bytes } => {
                    crash_point("before-log");
                    let target = self.path(path);
                    // Replaying must not append twice.
                    if let Ok(existing) = fs::read(&target) {
                        if existing.ends_with(bytes) {
                            continue;
                        }
                    }
                    let mut f = OpenOptions::new().create(true).append(true).open(&target)?;
                    f.write_all(bytes)?;
                }
            }
        }
        Ok(())
    }
}

fn fsync_wanted() -> bool {
    std::env::var("RAIL_FSYNC").is_ok_and(|v| v == "1")
}

/// Rewrites an open file in place: only from the first changed byte, then truncates.
fn write_in_place(file: &File, new: &[u8]) -> io::Result<()> {
    let mut f = file;
    let len = f.seek(SeekFrom::End(0))?;
    let mut old = Vec::with_capacity(len as usize);
    f.seek(SeekFrom::Start(0))?;
    f.read_to_end(&mut old)?;
    let common = old
        .iter()
        .zip(new.iter())
        .take_while(|(a, b)| a == b)
        .count();
    if common < new.len() {
        crash_point("mid-write");
        f.seek(SeekFrom::Start(common as u64))?;
        f.write_all(&new[common..])?;
    }
    if (new.len() as u64) < len {
        file.set_len(new.len() as u64)?;
    }
    if fsync_wanted() {
        file.sync_all()?;
    }
    Ok(())
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum JournalEntry {
    /// The whole new content of a file.
    File { path: String, bytes: Vec<u8> },
    /// Bytes to append to a file (the log).
    Append { path: String, bytes: Vec<u8> },
}

fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ *b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

fn render_journal(entries: &[JournalEntry]) -> Vec<u8> {
    let mut out = b"rail-journal 1\n".to_vec();
    for e in entries {
        let (kind, path, bytes) = match e {
            JournalEntry::File { path, bytes } => ("file", path, bytes),
            JournalEntry::Append { path, bytes } => ("append", path, bytes),
        };
        out.extend_from_slice(
            format!("{kind} {path} {} {:016x}\n", bytes.len(), fnv(bytes)).as_bytes(),
        );
        out.extend_from_slice(bytes);
        out.push(b'\n');
    }
    out.extend_from_slice(format!("end {} {:016x}\n", entries.len(), fnv(&out)).as_bytes());
    out
}

/// Parses a journal; `None` unless it is complete and every checksum matches.
fn parse_journal(bytes: &[u8]) -> Option<Vec<JournalEntry>> {
    let mut rest = bytes.strip_prefix(b"rail-journal 1\n")?;
    let mut entries = Vec::new();
    loop {
        let nl = rest.iter().position(|b| *b == b'\n')?;
        let header = std::str::from_utf8(&rest[..nl]).ok()?;
        let parts: Vec<&str> = header.split(' ').collect();
        if parts.first() == Some(&"end") {
            let consumed = bytes.len() - rest.len();
            let count: usize = parts.get(1)?.parse().ok()?;
            let sum = u64::from_str_radix(parts.get(2)?, 16).ok()?;
            if count != entries.len() || sum != fnv(&bytes[..consumed]) || rest.len() != nl + 1 {
                return None;
            }
            return Some(entries);
        }
        let [kind, path, len, sum] = parts.as_slice() else {
            return None;
        };
        let len: usize = len.parse().ok()?;
        let sum = u64::from_str_radix(sum, 16).ok()?;
        let body = rest.get(nl + 1..nl + 1 + len)?;
        if fnv(body) != sum || rest.get(nl + 1 + len) != Some(&b'\n') {
            return None;
        }
        let entry = match *kind {
            "file" => JournalEntry::File {
                path: path.to_string(),
                bytes: body.to_vec(),
            },
            "append" => JournalEntry::Append {
                path: path.to_string(),
                bytes: body.to_vec(),
            },
            _ => return None,
        };
        entries.push(entry);
        rest = &rest[nl + 2 + len..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn journal_round_trip_and_torn_journals() {
        let entries = vec![
            JournalEntry::File {
                path: "claims.md".into(),
                bytes: b"a | s | 2026-10-22T14:05Z\n".to_vec(),
            },
            JournalEntry::Append {
                path: "claims.log".into(),
                bytes: b"line\n".to_vec(),
            },
        ];
        let bytes = render_journal(&entries);
        assert_eq!(parse_journal(&bytes), Some(entries));
        for cut in 0..bytes.len() {
            assert_eq!(parse_journal(&bytes[..cut]), None, "cut at {cut}");
        }
        let mut flipped = bytes.clone();
        flipped[20] ^= 1;
        assert_eq!(parse_journal(&flipped), None);
    }
}
