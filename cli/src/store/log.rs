//! claims.log, which only grows: read from its end, at most `limits::LOG_READ_BYTES`, and
//! sealed into a segment under the lock (docs/lock-protocol.md, *Writing*): the old log copied
//! whole to `claims-log/<hash>.log` first, then the switch journalled as any change. What is
//! due, where a tail starts and what a new log carries are core's (`formats::segments`,
//! `change::seal`).

use std::fs;
use std::io::{self, Read};

use rail_core::formats::journal::{Action, JournalEntry};
use rail_core::formats::rail_files::LOG_FILE;
use rail_core::formats::segments;
use rail_core::model::input::RailTexts;

use rail_core::model::input::FileText;
use rail_core::text::limits;

use super::{fsync_wanted, to_time, write_checked, Old, RailDir, StoreError};
use crate::faults::crash_point;
use crate::store::lock::RailLock;
use crate::sys::railfile;

impl RailDir {
    /// claims.log as operations read it: its last [`limits::LOG_READ_BYTES`] at most, from a
    /// whole line (`formats::segments`), bytes that are not UTF-8 read as U+FFFD. The log only
    /// records, so no size and no byte in it can stop an operation; a log that is read in part
    /// or not as it is, is sealed whole by the next change ([`RailDir::apply`]).
    pub(super) fn read_log(&self) -> Result<Option<FileText>, StoreError> {
        let path = self.path(LOG_FILE);
        let read = railfile::read_tail(&path, limits::LOG_READ_BYTES as u64);
        let (bytes, modified, _) = match read {
            Ok(Some(read)) => read,
            Ok(None) => return Ok(None),
            Err(error) => {
                return Err(StoreError {
                    path,
                    error,
                    bad_input: false,
                })
            }
        };
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        };
        Ok(Some(FileText {
            path: LOG_FILE.to_string(),
            text,
            modified: Some(to_time(modified)),
        }))
    }

    /// Under the lock, for a change about to be journalled: seals claims.log into a segment if
    /// it is due (`formats::segments`), or if the change rewrites a log that was not read as it
    /// is (a tail, or bytes that are not UTF-8). The old log is copied whole into its segment
    /// first; then the change's own lines for claims.log become one `file` record of the new
    /// log (the `sealed` line, the carried lines, then them), so the switch is journalled like
    /// any write. A crash between the two leaves a copy no log names yet: a retry names the
    /// same segment (its name is its content's hash), and nothing is lost either way.
    pub(super) fn seal_if_due(
        &self,
        lock: &RailLock,
        texts: &RailTexts,
        entries: &mut Vec<JournalEntry>,
    ) -> Result<(), String> {
        let path = self.path(LOG_FILE);
        let len = match fs::symlink_metadata(&path) {
            Ok(m) => m.len(),
            Err(_) => return Ok(()),
        };
        let rewritten = (entries.iter()).any(|e| e.action == Action::File && e.path == LOG_FILE);
        let read = texts.log.as_ref().map(|l| l.text.as_str()).unwrap_or("");
        let unlike = rewritten && (read.len() as u64 != len || read.contains('\u{FFFD}'));
        if !segments::due(len) && !unlike {
            return Ok(());
        }
        let (segment, sealed) = self.copy_to_segment().map_err(|e| {
            format!(
                "sealing claims.log into {}/: {}",
                segments::SEGMENT_DIR,
                railfile::describe(&path, &e)
            )
        })?;
        crash_point("after-segment");
        let now = crate::sys::clock::now();
        let rail = rail_core::model::Rail::load(texts);
        let mut text =
            rail_core::change::seal::new_log(&rail, now, &lock.session, &segment, sealed);
        // What the change writes to the log, in its order: a whole new log (a shared rail's
        // mirror), then the lines it appends.
        entries.retain(|e| {
            if e.path != LOG_FILE {
                return true;
            }
            text.push_str(&String::from_utf8_lossy(&e.bytes));
            false
        });
        entries.push(JournalEntry::file(LOG_FILE, text));
        Ok(())
    }

    /// Copies claims.log, streamed (any size), into `claims-log/<hash>.log`: written to a temp
    /// file, then linked to its name, which fails if the name exists. A segment of that name with
    /// the same bytes is this copy already (a crash's retry); another content gets the next
    /// name. Returns the segment's path and length.
    fn copy_to_segment(&self) -> io::Result<(String, u64)> {
        let dir = self.path(segments::SEGMENT_DIR);
        railfile::ensure_dir(&dir)?;
        let tmp = dir.join(".seal.rail-tmp");
        match fs::remove_file(&tmp) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        let log = self.path(LOG_FILE);
        let mut from = railfile::open_read(&log)?
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "claims.log is gone"))?;
        let copied = (|| -> io::Result<(u64, u64)> {
            let mut to = railfile::create_new(&tmp)?;
            let mut hash = segments::SegmentHash::default();
            let mut buf = vec![0; 1 << 16];
            let mut len = 0u64;
            loop {
                let n = from.read(&mut buf)?;
                if n == 0 {
                    break;
                }
                hash.update(&buf[..n]);
                write_checked(&mut to, LOG_FILE, &buf[..n])?;
                len += n as u64;
            }
            if fsync_wanted() {
                to.sync_all()?;
            }
            Ok((hash.finish(), len))
        })();
        let (hash, len) = match copied {
            Ok(c) => c,
            Err(e) => {
                let _ = fs::remove_file(&tmp);
                return Err(e);
            }
        };
        let linked = (|| {
            for attempt in 0..1000 {
                let name = segments::segment_path(hash, attempt);
                match fs::hard_link(&tmp, self.path(&name)) {
                    Ok(()) => return Ok(name),
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                        if same_bytes(&tmp, &self.path(&name))? {
                            return Ok(name);
                        }
                    }
                    Err(e) => return Err(e),
                }
            }
            Err(io::Error::other("a thousand segments share this hash"))
        })();
        let _ = fs::remove_file(&tmp);
        Ok((linked?, len))
    }

    /// What a file a change replaces holds now, to undo the change. claims.log replaced by a
    /// seal is already copied whole into the segment its new first line names: that copy is
    /// the undo, however large the log (it is not read).
    pub(super) fn old_of(&self, rel: &str, entry: &JournalEntry) -> io::Result<Old> {
        let path = self.path(rel);
        if rel == LOG_FILE {
            let text = String::from_utf8_lossy(&entry.bytes[..entry.bytes.len().min(4096)]);
            let first = rail_core::formats::log::parse(text.lines().next().unwrap_or(""));
            let named = (first.entries.first())
                .filter(|e| e.event == rail_core::formats::log::LogEvent::Sealed)
                .and_then(|e| e.details.get("segment"))
                .filter(|s| segments::is_segment_path(s));
            let len = |p: &std::path::Path| fs::symlink_metadata(p).map(|m| m.len()).ok();
            if let Some(segment) = named {
                if len(&path).is_some() && len(&path) == len(&self.path(segment)) {
                    return Ok(Old::CopyIn(self.path(segment)));
                }
            }
        }
        Ok(match railfile::read(&path)? {
            Some((bytes, _)) => Old::Bytes(bytes),
            None => Old::Missing,
        })
    }
}

/// Are the files at `a` and `b` byte for byte the same? (Streamed: a segment may be large.)
fn same_bytes(a: &std::path::Path, b: &std::path::Path) -> io::Result<bool> {
    let (Some(mut x), Some(mut y)) = (railfile::open_read(a)?, railfile::open_read(b)?) else {
        return Ok(false);
    };
    if x.metadata()?.len() != y.metadata()?.len() {
        return Ok(false);
    }
    let (mut p, mut q) = (vec![0; 1 << 16], vec![0; 1 << 16]);
    loop {
        let n = x.read(&mut p)?;
        if n == 0 {
            return Ok(true);
        }
        y.read_exact(&mut q[..n])?;
        if p[..n] != q[..n] {
            return Ok(false);
        }
    }
}
