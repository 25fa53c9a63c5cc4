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
use rail_core::journal::{self, Action, Entry as JournalEntry, Parsed};
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
            if let Ok(Some(journal)) = self.read_journal().map(|j| j.and_then(Parsed::complete)) {
                for entry in journal {
                    if entry.action == Action::File && entry.path == CLAIMS_MD {
                        if let (Some(c), Ok(text)) =
                            (texts.claims.as_mut(), String::from_utf8(entry.bytes))
                        {
                            c.text = text;
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

    fn read_journal(&self) -> io::Result<Option<Parsed>> {
        match fs::read(self.path(JOURNAL)) {
            Ok(bytes) => Ok(Some(journal::parse(&bytes))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Under the lock: finish or drop a journal left by a crashed writer. Returns a message if
    /// there was one. A complete journal that names a file outside the rail is neither replayed
    /// nor removed: that is an error naming it.
    pub fn recover(&self, lock: &RailLock) -> io::Result<Option<String>> {
        let path = self.path(JOURNAL);
        if !path.exists() {
            return Ok(None);
        }
        match self.read_journal()?.unwrap_or(Parsed::Incomplete) {
            Parsed::Foreign(foreign) => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{} names {foreign}, which is not one of the rail's files; it was not replayed and nothing was written: look at it, then remove it",
                    path.display()
                ),
            )),
            Parsed::Complete(entries) => {
                self.write_entries(lock, &entries, Replay::Yes)?;
                fs::remove_file(&path)?;
                Ok(Some(
                    "finished a change interrupted by a crash (replayed claims.md.journal)".into(),
                ))
            }
            Parsed::Incomplete => {
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
            // An edit that changes nothing (a second renewal within the same second sets the
            // same `renewed:` time) is not written: the log line alone records it.
            if new == old {
                continue;
            }
            entries.push(JournalEntry::file(fe.file.clone(), new));
        }
        for line in log_lines {
            entries.push(JournalEntry::append(LOG_FILE, format!("{line}\n")));
        }
        if entries.is_empty() {
            return Ok(());
        }
        let journal = self.path(JOURNAL);
        let io = |what: &str, e: io::Error| format!("{what}: {e}");
        {
            let mut f = File::create(&journal).map_err(|e| io("writing the journal", e))?;
            f.write_all(&journal::render(&entries))
                .map_err(|e| io("writing the journal", e))?;
            if fsync_wanted() {
                f.sync_all().map_err(|e| io("syncing the journal", e))?;
            }
        }
        crash_point("after-journal");
        self.write_entries(lock, &entries, Replay::No)
            .map_err(|e| io("writing the rail", e))?;
        fs::remove_file(&journal).map_err(|e| io("removing the journal", e))?;
        Ok(())
    }

    fn write_entries(
        &self,
        lock: &RailLock,
        entries: &[JournalEntry],
        replay: Replay,
    ) -> io::Result<()> {
        for JournalEntry {
            action,
            path,
            bytes,
        } in entries
        {
            match action {
                Action::File if path == CLAIMS_MD => {
                    write_in_place(&lock.claims, bytes)?;
                }
                Action::File => {
                    let target = self.path(path);
                    if let Some(parent) = target.parent() {
                        fs::create_dir_all(parent)?;
                    }
                    // Claim files are nobody's flock target: replace them atomically.
                    let tmp = target.with_extension("yaml.rail-tmp");
                    fs::write(&tmp, bytes)?;
                    fs::rename(&tmp, &target)?;
                }
                Action::Append => {
                    crash_point("before-log");
                    let target = self.path(path);
                    // Replaying must not append twice: a line that already ends the log was
                    // appended before the crash. Only on replay: in a first write nothing of
                    // this journal is in the log yet, and a line equal to the log's last one is
                    // a new event (three renewals within one second render three equal lines,
                    // and each must be recorded).
                    if replay == Replay::Yes {
                        if let Ok(existing) = fs::read(&target) {
                            if existing.ends_with(bytes) {
                                continue;
                            }
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

/// Is a journal being written for the first time, or replayed after a crash?
#[derive(Clone, Copy, PartialEq, Eq)]
enum Replay {
    No,
    Yes,
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
