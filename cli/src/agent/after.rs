//! Verifying after the tool, on disk: the snapshot a hook takes before an allowed tool call
//! (other live sessions' claimed directories walked; git's index, read without a process by
//! core's `gitindex`, says which files are unchanged, whose content is then its blob; the others' bytes kept), kept in `<git common dir>/rail/after/`, and, after the call, the same walk
//! again, core's verdict ([`rail_core::agent::after::verdict`]) carried out — prior content written
//! back, a file the snapshot proves new removed, each file the tool left set aside first in
//! `<git common dir>/rail/after/aside/` so nothing written is lost — and a `bypass` line logged
//! per file. The rules are core's; this module is only the file system's and git's answers.

use std::path::{Path, PathBuf};

use rail_core::agent::after::{
    self, Done, Fix, PreToolSnapshot as Snapshot, Prior, Violation, WatchedFile as Entry,
};
use rail_core::formats::gitindex::{self, Stat};
use rail_core::formats::log::{LogEntry, LogEvent};
use rail_core::model::Rail;

use crate::context::{Commits, Ctx};
use crate::git::index::{read_index, sha256, stat_of};
use crate::git::repo::Repo;

const DIR: &str = "after";

fn dir_of(repo: &Repo) -> PathBuf {
    repo.common_dir.join("rail").join(DIR)
}

/// The snapshot's file: one per session and tool call (its id, when the agent sends one).
fn snapshot_path(repo: &Repo, session: &str, call: Option<&str>) -> PathBuf {
    let mut name = rail_core::formats::heartbeat::file_name(session);
    if let Some(id) = call {
        name.push('.');
        name.push_str(&rail_core::formats::heartbeat::file_name(id));
    }
    // Stations share the common dir: the checkout is part of the name.
    let wt = rail_core::formats::heartbeat::file_name(&repo.worktree.display().to_string());
    dir_of(repo).join(format!("{name}@{:016x}", crate::sys::fnv(wt.as_bytes())))
}

/// Every file under `roots` of `worktree` (links not followed, `.git` skipped), at most
/// `after::MAX_FILES`; `false`: the walk stopped there.
fn walk(worktree: &Path, roots: &[String]) -> (Vec<(String, Stat)>, bool) {
    let mut out = Vec::new();
    let mut stack: Vec<String> = roots.to_vec();
    while let Some(rel) = stack.pop() {
        let dir = if rel.is_empty() {
            worktree.to_path_buf()
        } else {
            worktree.join(&rel)
        };
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                continue;
            };
            if name == ".git" {
                continue;
            }
            let path = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            // A directory entry's metadata is `fstatat` of its name: links not followed.
            let Ok(m) = entry.metadata() else {
                continue;
            };
            if m.is_dir() {
                stack.push(path);
            } else {
                if out.len() >= after::MAX_FILES {
                    return (out, false);
                }
                out.push((path, stat_of(&m)));
            }
        }
    }
    (out, true)
}

/// What the watched roots of `eval` are for `session` in `repo`'s checkout.
fn roots_for(eval: &rail_core::model::Evaluation, session: &str) -> Vec<String> {
    after::roots(&after::watched(eval, session))
}

fn rail_here(ctx: &Ctx, repo: &Repo) -> bool {
    match (ctx.rail.root.canonicalize(), repo.worktree.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Before an allowed tool call: the snapshot of other live sessions' paths in the checkout at
/// `cwd`. Best effort: a snapshot that cannot be taken is no snapshot (prediction and the
/// pre-commit check remain), and never slows the answer past the walk and one `git status`.
pub fn before(ctx: &Ctx, session: &str, cwd: &Path, call: Option<&str>) {
    let Some(repo) = crate::git::repo::discover(cwd) else {
        return;
    };
    let path = snapshot_path(&repo, session, call);
    if !after::fits(
        crate::git::tracked_count(&repo),
        crate::sys::env::env().after_limit(),
    ) {
        return;
    }
    let Ok(texts) = ctx.read_claims() else {
        return;
    };
    let rail = Rail::load(&texts);
    let eval = ctx.judge(&rail, Commits::IfNeeded).eval;
    let roots = roots_for(&eval, session);
    if roots.is_empty() {
        let _ = std::fs::remove_file(&path);
        return;
    }
    let (files, complete) = walk(&repo.worktree, &roots);
    let index = if files.is_empty() || sha256(&repo) {
        None
    } else {
        read_index(&repo.git_dir, &roots)
    };
    let blob = |p: &str, stat: &Stat| -> Option<String> {
        let (entries, at) = index.as_ref()?;
        let i = entries.binary_search_by(|(n, _)| n.as_str().cmp(p)).ok()?;
        let e = &entries[i].1;
        gitindex::clean(stat, e, *at).then(|| e.oid.clone())
    };
    let mut kept: u64 = 0;
    let mut entries = Vec::with_capacity(files.len());
    for (p, stat) in files {
        let prior = if stat.link {
            Prior::Lost("a symbolic link".into())
        } else if let Some(oid) = blob(&p, &stat) {
            Prior::Blob(oid)
        } else if kept + stat.size > after::MAX_KEPT_BYTES {
            Prior::Lost(format!(
                "past the snapshot's {} KiB of kept content",
                after::MAX_KEPT_BYTES / 1024
            ))
        } else {
            match crate::sys::railfile::read_max(
                &repo.worktree.join(&p),
                after::MAX_KEPT_BYTES - kept,
            ) {
                Ok(Some((bytes, _))) => {
                    kept += bytes.len() as u64;
                    Prior::Bytes(bytes)
                }
                _ => Prior::Lost("unreadable before the call".into()),
            }
        };
        entries.push(Entry {
            path: p,
            stat,
            prior,
        });
    }
    let snap = Snapshot {
        call: call.map(str::to_string),
        roots,
        complete,
        entries,
    };
    if crate::sys::railfile::ensure_dir(&dir_of(&repo)).is_ok() {
        remove_left_over(&repo);
        let _ =
            // Not synced: a snapshot lost in a crash only means no check after this call.
            crate::sys::railfile::write_inside_as(
                &repo.common_dir,
                &path,
                &after::render(&snap),
                false,
                false,
            );
    }
}

/// Removes the snapshots whose after-tool call never came (core's [`after::left_over`]): only
/// plain files directly in the snapshot folder, never the set-aside copies in `aside/`.
fn remove_left_over(repo: &Repo) {
    let Ok(entries) = std::fs::read_dir(dir_of(repo)) else {
        return;
    };
    // The clock the files' times were written by (not `--now`, which may be any time).
    let now = crate::sys::clock::system();
    for entry in entries.flatten() {
        let Ok(meta) = entry.metadata() else {
            continue;
        };
        let age = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok())
            .map_or(0, |d| d.as_secs() as i64);
        if meta.is_file() && after::left_over(age) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// After the tool call: what it changed in other live sessions' paths, put back, logged, and
/// the message for the agent (`None`: nothing to say).
pub fn after(ctx: &Ctx, session: &str, cwd: &Path, call: Option<&str>, by: &str) -> Option<String> {
    let repo = crate::git::repo::discover(cwd)?;
    let path = snapshot_path(&repo, session, call);
    // Metadata of MAX_FILES entries and the kept content, with room to spare.
    let (bytes, taken) =
        crate::sys::railfile::read_max(&path, after::MAX_KEPT_BYTES + 16 * 1024 * 1024)
            .ok()
            .flatten()?;
    let _ = std::fs::remove_file(&path);
    let snap = after::parse(&bytes)?;
    let texts = ctx.read_claims().ok()?;
    let rail = Rail::load(&texts);
    let eval = ctx.judge(&rail, Commits::IfNeeded).eval;
    let (now, _) = walk(&repo.worktree, &snap.roots);
    let violations = after::verdict(&snap, &now, &eval, session, rail_here(ctx, &repo));
    if violations.is_empty() {
        return None;
    }
    // What a holder's own agent wrote meanwhile is its own (the snapshot's time, by the file
    // system's clock, less a second for coarse clocks).
    let since = chrono::DateTime::<chrono::Utc>::from(taken) - chrono::TimeDelta::seconds(1);
    let checkout = (repo.worktree.canonicalize())
        .unwrap_or_else(|_| repo.worktree.clone())
        .display()
        .to_string();
    let writes = crate::store::flight::writes_since(&repo, &checkout, since);
    let violations = after::holders_writes_left(violations, &writes);
    let done: Vec<(Violation, Done)> = violations
        .into_iter()
        .map(|v| {
            let d = fix(ctx, &repo, session, &v);
            (v, d)
        })
        .collect();
    log(ctx, session, by, &done);
    Some(after::message(&done))
}

/// The file as the tool left it, set aside before Rail changes it (nothing written is lost).
pub(crate) fn set_aside(ctx: &Ctx, repo: &Repo, session: &str, rel: &str) -> Result<(), String> {
    let at = repo.worktree.join(rel);
    let bytes = match crate::sys::railfile::read_max(&at, 64 * 1024 * 1024) {
        Ok(Some((b, _))) => b,
        Ok(None) => return Ok(()),
        Err(e) => return Err(format!("cannot read it to set it aside: {e}")),
    };
    let dir = dir_of(repo).join("aside");
    for d in [repo.common_dir.join("rail"), dir_of(repo), dir.clone()] {
        crate::sys::railfile::ensure_dir(&d).map_err(|e| e.to_string())?;
    }
    let name = format!(
        "{}.{}.{}",
        ctx.now.format("%Y%m%dT%H%M%S%.fZ"),
        rail_core::formats::heartbeat::file_name(session),
        rail_core::formats::heartbeat::file_name(rel)
    );
    crate::sys::railfile::write_inside(&repo.common_dir, &dir.join(name), &bytes, false)
        .map_err(|e| format!("cannot set it aside: {e}"))
}

fn fix(ctx: &Ctx, repo: &Repo, session: &str, v: &Violation) -> Done {
    let at = repo.worktree.join(&v.path);
    let write = |bytes: &[u8], exec: bool| -> Done {
        if let Err(why) = set_aside(ctx, repo, session, &v.path) {
            return Done::Left(why);
        }
        match crate::sys::railfile::write_inside(&repo.worktree, &at, bytes, exec) {
            Ok(()) => Done::PutBack,
            Err(e) => Done::Left(format!("cannot write it back: {e}")),
        }
    };
    match &v.fix {
        Fix::Write(bytes, exec) => write(bytes, *exec),
        Fix::WriteBlob(oid, exec) => {
            let blob = crate::git::GitLine::new(&["cat-file", "blob"]).operand(oid.as_str());
            let out = crate::git::line::process(&repo.worktree, &blob).map(|p| {
                p.stderr(std::process::Stdio::null())
                    .stdout(std::process::Stdio::piped())
                    .output()
            });
            match out {
                Ok(Ok(o)) if o.status.success() => write(&o.stdout, *exec),
                _ => Done::Left("git has no previous content for it".into()),
            }
        }
        Fix::Remove => {
            if let Err(why) = set_aside(ctx, repo, session, &v.path) {
                return Done::Left(why);
            }
            if crate::sys::railfile::check_inside(&repo.worktree, &at).is_err() {
                return Done::Left("it is not inside the checkout".into());
            }
            match std::fs::remove_file(&at) {
                Ok(()) => Done::Removed,
                Err(e) => Done::Left(format!("cannot remove it: {e}")),
            }
        }
        Fix::Report(why) => Done::Left(why.clone()),
    }
}

/// One `bypass` line per file: a write past the hook's prediction, and what Rail did.
fn log(ctx: &Ctx, session: &str, by: &str, done: &[(Violation, Done)]) {
    let Ok(lock) = ctx.lock_within(session, Some(std::time::Duration::from_millis(500))) else {
        return;
    };
    let lines: Vec<String> = done
        .iter()
        .map(|(v, d)| {
            let entry = LogEntry::new(ctx.now, LogEvent::Bypass, v.task.as_deref(), Some(session))
                .with("path", v.path.clone())
                .with("holder", v.session.clone())
                .with("check", "after the tool")
                .with(
                    "fix",
                    match d {
                        Done::PutBack => "put back",
                        Done::Removed => "removed",
                        Done::Left(_) => "left",
                    },
                )
                .with("by", by.to_string());
            match d {
                Done::Left(why) => entry.with("why", why.clone()),
                _ => entry,
            }
            .render()
        })
        .collect();
    let texts = rail_core::model::input::RailTexts::default();
    let _ = crate::shared::record_local(ctx, &lock, &texts, &lines);
}

// They run real git: not under Wine, where the Windows build's unit tests run without it.
#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::git::testing::{git, write_files};

    /// The index read here agrees with `git ls-files -s`, in every index version git writes.
    #[test]
    fn the_index_reads_as_git_reads_it() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        git(d, &["init", "-q"]);
        // Names outside the root on both sides of it: a version 4 index compresses each name
        // against the one before, skipped or not.
        write_files(
            d,
            &[
                ("0/zero.txt", "0"),
                ("a/one.txt", "1"),
                ("a/b/two.txt", "2"),
                ("a/b/two-longer-name.txt", "22"),
                ("c.txt", "3"),
            ],
        );
        git(d, &["add", "-A"]);
        for version in ["2", "3", "4"] {
            git(d, &["update-index", "--index-version", version]);
            let expected: Vec<(String, String)> = git(d, &["ls-files", "-s", "--", "a"])
                .lines()
                .map(|l| {
                    let (meta, path) = l.split_once('\t').unwrap();
                    (
                        path.to_string(),
                        meta.split(' ').nth(1).unwrap().to_string(),
                    )
                })
                .collect();
            let (got, _) = read_index(&d.join(".git"), &["a".to_string()]).unwrap();
            let got: Vec<(String, String)> = got.into_iter().map(|(p, e)| (p, e.oid)).collect();
            assert_eq!(got, expected, "index version {version}");
        }
    }
}
