//! Reading the rail's files and writing changes to them, crash-safely.
//!
//! claims.md is changed in place, never replaced, so a `flock claims.md …` waiter always locks
//! the file everyone else locks (replacing it would hand newcomers a new inode). In-place writes
//! are made crash-safe with a redo journal: before touching any file, the full new contents
//! (and the log lines to append) are written to `claims.md.journal` with a checksum; then the
//! files are written; then the journal is removed. Whoever takes the lock next finds a complete
//! journal and replays it, or an incomplete one (the crash happened before any file was touched)
//! and drops it. So after SIGKILL at any point, the rail is the old version or the new one.

pub mod flight;
pub mod gitguard;
pub mod heartbeat;
pub mod lock;
mod log;
pub mod machine_id;
pub mod notice;
pub mod observed;
pub mod stations;
pub mod tasks;

use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::PathBuf;
use std::time::SystemTime;

use chrono::{DateTime, Utc};
use rail_core::change::checkout;
use rail_core::formats::journal::{self, Action, JournalEntry, Parsed};
use rail_core::formats::rail_files::{CLAIMS_DIR, CLAIMS_MD, CONFIG_FILE, LOG_FILE};
use rail_core::model::input::{FileText, RailTexts};
use rail_core::text::edit::{self, FileEdits};

use crate::store::gitguard::Receipt;
use crate::store::lock::RailLock;
use crate::sys::railfile;

pub const JOURNAL: &str = rail_core::formats::rail_files::JOURNAL;

use crate::faults::crash_point;

#[derive(Clone, Debug)]
pub struct RailDir {
    pub root: PathBuf,
    /// Where what Rail last wrote to claims.md is kept, when the rail is in a git work tree.
    receipt: Option<Receipt>,
}

/// Whether `dir` holds one of the rail's files (claims.md, rail.yaml, claims/), whatever kind
/// of entry: a claims.md that is a link still makes a rail, refused later with the reason.
pub fn holds_rail_files(dir: &std::path::Path) -> bool {
    [CLAIMS_MD, CONFIG_FILE, CLAIMS_DIR]
        .iter()
        .any(|name| fs::symlink_metadata(dir.join(name)).is_ok())
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
        f.write_str(&railfile::describe(&self.path, &self.error))
    }
}

impl RailDir {
    pub fn new(root: PathBuf) -> Self {
        let receipt = Receipt::of(&root);
        RailDir { root, receipt }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    fn read_file(&self, name: &str, shared: bool) -> Result<Option<FileText>, StoreError> {
        let path = self.path(name);
        let read = if shared {
            lock::read_shared(&path)
        } else {
            railfile::read(&path)
        };
        let (bytes, modified) = match read {
            Ok(Some(read)) => read,
            Ok(None) => return Ok(None),
            Err(e) => {
                // Too big is bad input (exit 2, as before); a link or a special file is the
                // environment (exit 3), like any file Rail cannot use.
                let bad_input = matches!(
                    railfile::refusal(&e).map(|r| &r.why),
                    Some(railfile::Unusable::TooBig(_))
                );
                return Err(StoreError {
                    path,
                    error: e,
                    bad_input,
                });
            }
        };
        let text = String::from_utf8(bytes).map_err(|e| StoreError {
            path: path.clone(),
            error: io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "is not valid UTF-8 (at byte {}); it was not changed",
                    e.utf8_error().valid_up_to()
                ),
            ),
            bad_input: true,
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
        self.read_some(locked, true)
    }

    /// Every file of the rail but claims.log, without the lock: what a judge of the claims
    /// needs (the hook, on every tool call). The log only grows; reading it is the one cost
    /// that grows with the rail's age.
    pub fn read_without_log(&self) -> Result<RailTexts, StoreError> {
        self.read_some(false, false)
    }

    fn read_some(&self, locked: bool, log: bool) -> Result<RailTexts, StoreError> {
        let mut texts = RailTexts {
            claims: self.read_file(CLAIMS_MD, !locked)?,
            claim_files: Vec::new(),
            log: if log { self.read_log()? } else { None },
            config: self.read_file(CONFIG_FILE, false)?,
        };
        // An unlocked reader that finds a crashed writer's complete journal reads what the
        // writer meant to write. A journal that is a link or a special file is refused like
        // any other rail file; one that cannot be read for another reason is left to writers.
        if !locked {
            let journal = match self.read_journal() {
                Ok(j) => j.and_then(Parsed::complete),
                Err(e) if railfile::refusal(&e).is_some() => {
                    return Err(StoreError {
                        path: self.path(JOURNAL),
                        error: e,
                        bad_input: false,
                    })
                }
                Err(_) => None,
            };
            for entry in journal.into_iter().flatten() {
                if entry.action == Action::File && entry.path == CLAIMS_MD {
                    if let (Some(c), Ok(text)) =
                        (texts.claims.as_mut(), String::from_utf8(entry.bytes))
                    {
                        c.text = text;
                    }
                }
            }
        }
        let dir = self.path(CLAIMS_DIR);
        // claims/ must be a real directory: through a link, claim files would be read (and
        // written) outside the repository.
        let is_dir = railfile::real_dir(&dir).map_err(|error| StoreError {
            path: dir.clone(),
            error,
            bad_input: false,
        })?;
        if let Some(entries) = is_dir.then(|| fs::read_dir(&dir).ok()).flatten() {
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
        Ok(railfile::read_max(&self.path(JOURNAL), MAX_JOURNAL_BYTES)?
            .map(|(bytes, _)| journal::parse(&bytes)))
    }

    /// Under the lock: finish or drop a journal left by a crashed writer. Returns a message if
    /// there was one. A complete journal that names a file outside the rail is neither replayed
    /// nor removed: that is an error naming it. So is one that cannot be replayed (a file it
    /// names cannot be written): it is kept, nothing is changed, and the error says what to do.
    pub fn recover(&self, lock: &RailLock) -> io::Result<Option<String>> {
        let path = self.path(JOURNAL);
        let Some(parsed) = self.read_journal()? else {
            return Ok(None);
        };
        match parsed {
            Parsed::Foreign(foreign) => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{} names {foreign}, which is not one of the rail's files; it was not replayed and nothing was written: look at it, then remove it",
                    path.display()
                ),
            )),
            Parsed::Complete(entries) => {
                match self.write_entries(lock, &entries, Replay::Yes) {
                    Ok(()) => {}
                    Err(failed) => {
                        return Err(io::Error::other(format!(
                            "{} holds a change a crashed command did not finish, and it cannot be replayed: {failed}. The journal was kept; {}make that file writable (or free disk space), then run any rail command: it finishes the change",
                            path.display(),
                            if failed.undone { "nothing was changed; " } else { "" },
                        )))
                    }
                }
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
    /// appends the log lines. All or nothing, as every reader sees it: every file is opened
    /// for writing before the journal is written (an unwritable claims.log stops the change
    /// before claims.md is touched), and a write that fails midway (a full disk) is undone.
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
        // Callers that only log (a bypass, a broken lock, the gate) take the lock without
        // recovering first: a crashed writer's journal is finished here, not overwritten.
        match self.recover(lock) {
            Ok(Some(note)) => {
                errln!("rail: {note}");
                // Edits planned on the files as they were before the replay would undo it.
                if edits.iter().any(|fe| !fe.edits.is_empty()) {
                    return Err("a change interrupted by a crash was finished first; this change was planned before it and was not made: run the command again".into());
                }
            }
            Ok(None) => {}
            Err(e) => return Err(format!("recovering an interrupted write: {e}")),
        }
        let nothing = "; nothing was changed";
        self.seal_if_due(lock, texts, &mut entries)
            .map_err(|e| format!("{e}{nothing}"))?;
        let mut targets = self
            .prepare(lock, &entries, Replay::No)
            .map_err(|e| format!("{e}{nothing}"))?;
        let journal = self.path(JOURNAL);
        if let Err(e) = write_journal(&journal, &journal::render(&entries)) {
            targets.discard();
            return Err(format!("{}{nothing}", Failed::new(journal, e)));
        }
        crash_point("after-journal");
        match targets.commit() {
            Ok(()) => {
                fs::remove_file(&journal).map_err(|e| {
                    format!("removing {}", railfile::describe(&journal, &e))
                })?;
                self.keep_receipt(&entries);
                Ok(())
            }
            Err(failed) if failed.undone => {
                let _ = fs::remove_file(&journal);
                Err(format!("{failed}; the change was undone{nothing}"))
            }
            Err(failed) => Err(format!(
                "{failed}; undoing it failed too, so {} was kept: the next rail command finishes the change once the file can be written",
                journal.display()
            )),
        }
    }

    /// After writing claims.md: keep what was written, so that claims a git command drops later
    /// can be put back (`checkout::restore`). Failing to keep it loses no data, only that
    /// protection, so it is a warning.
    fn keep_receipt(&self, entries: &[JournalEntry]) {
        let Some(receipt) = &self.receipt else { return };
        let Some(entry) = entries
            .iter()
            .rfind(|e| e.action == Action::File && e.path == CLAIMS_MD)
        else {
            return;
        };
        let Ok(text) = std::str::from_utf8(&entry.bytes) else {
            return;
        };
        if let Err(e) = receipt.write(text) {
            errln!("rail: warning: could not keep a receipt of claims.md: {e}");
        }
    }

    /// Under the lock: plans putting back claims Rail wrote that claims.md lost outside Rail
    /// since (`checkout::restore`). Empty when the rail is not in a git work tree.
    pub fn lost_claims(&self, texts: &RailTexts, now: DateTime<Utc>) -> checkout::Restore {
        match self.receipt.as_ref().and_then(Receipt::read) {
            Some(receipt) => {
                let git_wrote = self.git_wrote_claims(&receipt, texts);
                checkout::restore_as(&receipt, texts, now, git_wrote)
            }
            None => checkout::Restore::default(),
        }
    }

    /// [`RailDir::lost_claims`] for texts read without claims.log: the log is read only when
    /// claims.md differs from what Rail last wrote (it says which lost claims had ended).
    pub fn lost_claims_reading_log(
        &self,
        texts: &mut RailTexts,
        now: DateTime<Utc>,
    ) -> Result<checkout::Restore, StoreError> {
        let Some(receipt) = self.receipt.as_ref().and_then(Receipt::read) else {
            return Ok(checkout::Restore::default());
        };
        let current = texts.claims.as_ref().map(|c| c.text.as_str()).unwrap_or("");
        if receipt != current {
            texts.log = self.read_log()?;
        }
        let git_wrote = self.git_wrote_claims(&receipt, texts);
        Ok(checkout::restore_as(&receipt, texts, now, git_wrote))
    }

    /// Is claims.md as a git command last wrote it? Asked only when it differs from what Rail
    /// wrote (the receipt); see `gitguard::git_wrote`.
    fn git_wrote_claims(&self, receipt: &str, texts: &RailTexts) -> bool {
        let current = texts.claims.as_ref().map(|c| c.text.as_str()).unwrap_or("");
        receipt == current || crate::store::gitguard::git_wrote(&self.root, CLAIMS_MD)
    }

    fn write_entries(
        &self,
        lock: &RailLock,
        entries: &[JournalEntry],
        replay: Replay,
    ) -> Result<(), Failed> {
        self.prepare(lock, entries, replay)?.commit()
    }

    /// Opens every file a change writes, before any byte is written: if one cannot be written
    /// (not writable, a link, a FIFO), nothing is touched. Reads what each holds now, to undo.
    fn prepare<'a>(
        &self,
        lock: &'a RailLock,
        entries: &'a [JournalEntry],
        replay: Replay,
    ) -> Result<Targets<'a>, Failed> {
        let mut targets = Targets { list: Vec::new() };
        for entry in entries {
            let rel = entry.path.as_str();
            let path = self.path(rel);
            let prepared = (|| -> io::Result<Target<'a>> {
                fault_on_open(rel)?;
                Ok(match entry.action {
                    Action::File if rel == CLAIMS_MD => Target::InPlace {
                        file: &lock.claims,
                        old: railfile::read_open(&lock.claims, &path, railfile::MAX_RAIL_BYTES)?,
                        entry,
                        path: path.clone(),
                    },
                    Action::File => {
                        // claims/ must be a real directory; the rail directory itself is the
                        // user's to name, through links if they like.
                        if let Some(parent) = path.parent().filter(|p| *p != self.root) {
                            railfile::ensure_dir(parent)?;
                        }
                        let old = self.old_of(rel, entry)?;
                        // Claim files (and a sealed claims.log) are nobody's flock target:
                        // replaced atomically through a temp file. A stale one from a crash is
                        // removed (it is Rail's own; a link there is removed as a name, its
                        // target untouched).
                        let mut tmp = path.clone().into_os_string();
                        tmp.push(".rail-tmp");
                        let tmp = PathBuf::from(tmp);
                        match fs::remove_file(&tmp) {
                            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                            _ => {}
                        }
                        let file = railfile::create_new(&tmp)?;
                        Target::Replace {
                            file: Some(file),
                            tmp,
                            old,
                            renamed: false,
                            entry,
                            path: path.clone(),
                        }
                    }
                    Action::Append => {
                        let (mut file, created) = railfile::open_append(&path)?;
                        let old_len = file.metadata()?.len();
                        // Replaying must not append twice: a line that already ends the log
                        // was appended before the crash. Only on replay: in a first write
                        // nothing of this journal is in the log yet, and a line equal to the
                        // log's last one is a new event (three renewals within one second
                        // render three equal lines, and each must be recorded).
                        let n = entry.bytes.len() as u64;
                        let mut done = false;
                        if replay == Replay::Yes && old_len >= n && n > 0 {
                            let mut tail = vec![0; entry.bytes.len()];
                            file.seek(SeekFrom::Start(old_len - n))?;
                            file.read_exact(&mut tail)?;
                            done = tail == entry.bytes;
                        }
                        Target::Append {
                            file,
                            old_len,
                            created,
                            skip: done,
                            entry,
                            path: path.clone(),
                        }
                    }
                })
            })();
            match prepared {
                Ok(t) => targets.list.push(t),
                Err(e) => {
                    targets.discard();
                    return Err(Failed::new(path, e));
                }
            }
        }
        Ok(targets)
    }
}

/// What a replaced file held, to put it back.
enum Old {
    Missing,
    Bytes(Vec<u8>),
    /// The same bytes, in this file (a sealed segment).
    CopyIn(PathBuf),
}

/// Bound on the journal: it holds every file a change writes.
const MAX_JOURNAL_BYTES: u64 = 8 * railfile::MAX_RAIL_BYTES;

/// Writes the journal as a new file (a journal left by a crash was replayed or dropped under
/// this lock before; one there now, or a link, is not overwritten). On failure nothing of it
/// is left.
fn write_journal(path: &std::path::Path, bytes: &[u8]) -> io::Result<()> {
    let mut f = railfile::create_new(path)?;
    let written = write_checked(&mut f, JOURNAL, bytes).and_then(|_| {
        if fsync_wanted() {
            f.sync_all()
        } else {
            Ok(())
        }
    });
    if written.is_err() {
        drop(f);
        let _ = fs::remove_file(path);
    }
    written
}

/// A write that failed, with the file it concerns, and whether the files were put back as
/// they were.
#[derive(Debug)]
pub struct Failed {
    path: PathBuf,
    error: io::Error,
    undone: bool,
}

impl Failed {
    fn new(path: PathBuf, error: io::Error) -> Failed {
        Failed {
            path,
            error,
            undone: true,
        }
    }
}

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match railfile::refusal(&self.error) {
            Some(refused) => write!(f, "{refused}"),
            None => write!(f, "writing {}: {}", self.path.display(), self.error),
        }
    }
}

/// One file of a change, opened for writing.
enum Target<'a> {
    /// claims.md: rewritten in place on the lock's handle (it keeps its inode).
    InPlace {
        file: &'a File,
        old: Vec<u8>,
        entry: &'a JournalEntry,
        path: PathBuf,
    },
    /// Any other whole file: written to `tmp`, then renamed over the file.
    Replace {
        /// Closed before the rename (Windows renames a closed file most reliably).
        file: Option<File>,
        tmp: PathBuf,
        old: Old,
        renamed: bool,
        entry: &'a JournalEntry,
        path: PathBuf,
    },
    /// Log lines appended (`skip`: already there, a replay).
    Append {
        file: File,
        old_len: u64,
        created: bool,
        skip: bool,
        entry: &'a JournalEntry,
        path: PathBuf,
    },
}

/// The files of one change, all opened.
struct Targets<'a> {
    list: Vec<Target<'a>>,
}

impl Targets<'_> {
    /// Writes every file. If one fails, the ones written (and the one half written) are put
    /// back as they were, temp files are removed, and the error names the file.
    fn commit(mut self) -> Result<(), Failed> {
        let mut failure = None;
        for (i, target) in self.list.iter_mut().enumerate() {
            if let Err(e) = target.write() {
                failure = Some((i, e));
                break;
            }
        }
        let Some((failed_at, error)) = failure else {
            return Ok(());
        };
        let path = self.list[failed_at].path().to_path_buf();
        // Undo from the failed file backwards; keep going if one undo fails (report it).
        let mut undone = true;
        for target in self.list[..=failed_at].iter_mut().rev() {
            if target.undo().is_err() {
                undone = false;
            }
        }
        self.discard();
        Err(Failed {
            path,
            error,
            undone,
        })
    }

    /// Removes what preparing created and nobody will use: temp files, a log created empty.
    fn discard(&mut self) {
        for target in &self.list {
            match target {
                Target::Replace { tmp, renamed, .. } if !renamed => {
                    let _ = fs::remove_file(tmp);
                }
                Target::Append {
                    created: true,
                    file,
                    path,
                    ..
                } if file.metadata().is_ok_and(|m| m.len() == 0) => {
                    let _ = fs::remove_file(path);
                }
                _ => {}
            }
        }
    }
}

impl Target<'_> {
    fn path(&self) -> &std::path::Path {
        match self {
            Target::InPlace { path, .. }
            | Target::Replace { path, .. }
            | Target::Append { path, .. } => path,
        }
    }

    fn write(&mut self) -> io::Result<()> {
        match self {
            Target::InPlace {
                file, old, entry, ..
            } => write_in_place(file, &entry.path, old, &entry.bytes),
            Target::Replace {
                file,
                tmp,
                renamed,
                entry,
                path,
                ..
            } => {
                let mut written = file
                    .take()
                    .ok_or_else(|| io::Error::other("written twice"))?;
                write_checked(&mut written, &entry.path, &entry.bytes)?;
                drop(written);
                fs::rename(&*tmp, &*path)?;
                *renamed = true;
                Ok(())
            }
            Target::Append {
                file, skip, entry, ..
            } => {
                crash_point("before-log");
                if *skip {
                    return Ok(());
                }
                write_checked(&mut *file, &entry.path, &entry.bytes)
            }
        }
    }

    /// Puts the file back as it was before this change (also after a partial write).
    fn undo(&mut self) -> io::Result<()> {
        match self {
            Target::InPlace {
                file, old, entry, ..
            } => {
                // The old bytes go back into blocks the file already had (the failed write
                // only got as far as the old length, or past it), so a full disk does not stop
                // the undo.
                let mut f: &File = file;
                let common = common_prefix(old, &entry.bytes);
                f.seek(SeekFrom::Start(common as u64))?;
                f.write_all(&old[common..])?;
                file.set_len(old.len() as u64)?;
                Ok(())
            }
            Target::Replace { renamed: false, .. } => Ok(()),
            Target::Replace { old, path, tmp, .. } => match old {
                // Written and renamed into place: put the old content back the same way.
                Old::Bytes(old) => {
                    let _ = fs::remove_file(&*tmp);
                    let mut f = railfile::create_new(tmp)?;
                    f.write_all(old)?;
                    drop(f);
                    fs::rename(&*tmp, &*path)
                }
                Old::CopyIn(copy) => {
                    let _ = fs::remove_file(&*tmp);
                    let mut f = railfile::create_new(tmp)?;
                    io::copy(
                        &mut railfile::open_read(copy)?.ok_or(io::ErrorKind::NotFound)?,
                        &mut f,
                    )?;
                    drop(f);
                    fs::rename(&*tmp, &*path)
                }
                Old::Missing => fs::remove_file(&*path),
            },
            Target::Append {
                old_len,
                created,
                path,
                ..
            } => {
                if *created {
                    fs::remove_file(&*path)
                } else {
                    // Through a handle opened for writing: Windows does not let an append-only
                    // handle set the length.
                    railfile::open_write(path)?.set_len(*old_len)
                }
            }
        }
    }
}

/// Is a journal being written for the first time, or replayed after a crash?
#[derive(Clone, Copy, PartialEq, Eq)]
enum Replay {
    No,
    Yes,
}

fn fsync_wanted() -> bool {
    crate::sys::env::env().fsync
}

fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b.iter()).take_while(|(x, y)| x == y).count()
}

/// Rewrites an open file in place: only from the first changed byte, then truncates.
fn write_in_place(file: &File, rel: &str, old: &[u8], new: &[u8]) -> io::Result<()> {
    let mut f = file;
    let common = common_prefix(old, new);
    if common < new.len() {
        crash_point("mid-write");
        f.seek(SeekFrom::Start(common as u64))?;
        write_checked(&mut f, rel, &new[common..])?;
    }
    if new.len() < old.len() {
        file.set_len(new.len() as u64)?;
    }
    if fsync_wanted() {
        file.sync_all()?;
    }
    Ok(())
}

/// A write fault a test injected for this rail file ([`crate::faults::write_fault`]): "no
/// space left on device" halfway through, or "permission denied" on open.
fn fault(rel: &str) -> Option<bool> {
    crate::faults::write_fault(rel)
}

fn fault_on_open(rel: &str) -> io::Result<()> {
    if fault(rel) == Some(true) {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "Permission denied (RAIL_TEST_FAIL_WRITE)",
        ));
    }
    Ok(())
}

/// `write_all`, unless a test injected a fault for this file (see [`fault`]).
fn write_checked(mut w: impl Write, rel: &str, bytes: &[u8]) -> io::Result<()> {
    if fault(rel) == Some(false) {
        w.write_all(&bytes[..bytes.len() / 2])?;
        return Err(io::Error::new(
            io::ErrorKind::StorageFull,
            "No space left on device (RAIL_TEST_FAIL_WRITE)",
        ));
    }
    w.write_all(bytes)
}
