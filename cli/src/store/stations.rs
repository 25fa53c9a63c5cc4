//! Each station's work in flight as git tells it (issue 43, "Behind!"): what is uncommitted in
//! the station and what its branch committed since it forked from the base — two git processes
//! per station, all stations at once, limited to the folders asked about; a station's commits
//! are asked again only when its HEAD or the base moved (kept by [`super::flight`]'s
//! `branch_files`). Facts only: whose work it is and how it stands are judged above
//! (`ops::flight` names the session by the claims; the shared marks carry it as the branch's).

use std::path::{Path, PathBuf};

use rail_core::formats::gitobject;
use rail_core::model::behind::WorkKind;
use rail_core::text::time::Time;

use crate::git::objects::{self, Head, ObjectFiles};
use crate::git::repo::{self, Repo};

/// A station: a linked worktree of this repository, not the main checkout.
#[derive(Clone, Debug)]
pub struct StationDir {
    /// Its folder with links resolved, as work in flight names checkouts.
    pub checkout: String,
    pub branch: String,
    pub dir: PathBuf,
}

/// The branch of the station checked out in `checkout` (named as work in flight names
/// checkouts), if it is one of `stations`.
pub fn branch_at(stations: &[StationDir], checkout: &str) -> Option<String> {
    (stations.iter())
        .find(|s| s.checkout == checkout)
        .map(|s| s.branch.clone())
}

/// One file of a station's work in flight.
#[derive(Clone, Debug)]
pub struct StationFile {
    pub checkout: String,
    pub branch: String,
    /// Repo-relative, `/`-separated.
    pub path: String,
    pub kind: WorkKind,
    /// The file's last change (uncommitted), or the station's HEAD commit (unmerged).
    pub at: Time,
}

/// The repository's stations: linked worktrees on a branch that are checkouts of this
/// repository (a folder whose `.git` names another repository, or a link, is not followed).
pub fn stations(repo: &Repo) -> Vec<StationDir> {
    let dirs = repo::worktree_dirs(repo);
    let canon = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let main = canon(&repo.main_checkout());
    dirs.iter()
        .filter(|d| d.admin.is_some() && canon(&d.path) != main)
        .filter(|d| {
            repo::is_checkout_of(&d.path, d.admin.as_deref(), &repo.common_dir)
                && !std::fs::symlink_metadata(&d.path).is_ok_and(|m| m.file_type().is_symlink())
        })
        .filter_map(|d| {
            Some(StationDir {
                checkout: canon(&d.path).display().to_string(),
                branch: d.branch.clone()?,
                dir: d.path.clone(),
            })
        })
        .collect()
}

/// The branch stations fork from: `configured` (rail.yaml's `stations.base`), else the main
/// checkout's (core's `station::base_branch`).
pub fn base_branch(repo: &Repo, configured: Option<&str>) -> Option<String> {
    let head = repo::head_branch(&repo.common_dir);
    rail_core::model::station::base_branch(configured, head.as_deref())
}

/// The folders (or files) git is asked about for `patterns`: each pattern's literal part before
/// its first wildcard; none when one of them has no literal part (then all of the checkout).
pub fn roots(patterns: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for p in patterns {
        let p = rail_core::model::scope::normalize_path(p);
        let cut = p.find(['*', '?', '[', '{', '\\']).unwrap_or(p.len());
        let lit = &p[..cut];
        // A cut inside a name keeps only the folders above it.
        let lit = if cut < p.len() {
            lit.rfind('/').map_or("", |i| &lit[..i])
        } else {
            lit
        };
        if lit.is_empty() || lit == "." {
            return Vec::new();
        }
        out.push(format!(":(literal){lit}"));
    }
    out.sort();
    out.dedup();
    out
}

/// Every station's uncommitted files, and those its branch committed since it forked from
/// `base` (a branch name; `None`: not asked), under `roots` ([`roots`]); Rail's own files left
/// out. Best effort: a station git cannot read is said on stderr and left out. `now` dates a
/// file whose time cannot be read.
pub fn files(
    repo: &Repo,
    stations: &[StationDir],
    base: Option<&str>,
    roots: &[String],
    now: Time,
) -> Vec<StationFile> {
    // The base's commit: a station's commits are asked of git again only when its HEAD or the
    // base moved.
    let base_commit = base.and_then(|b| branch_commit(repo, b));
    let found: Vec<_> = std::thread::scope(|scope| {
        let jobs: Vec<_> = stations
            .iter()
            .map(|s| {
                let head = StationHead::of(&s.dir);
                let key = head.as_ref().and_then(|h| h.key(base_commit.as_deref()));
                let kept = key
                    .as_deref()
                    .and_then(|k| super::flight::branch_files(repo, &s.checkout, k));
                let ask = if kept.is_some() { None } else { base };
                let job = scope.spawn(move || crate::git::work_in(&s.dir, ask, roots));
                (s, head, key, kept, job)
            })
            .collect();
        jobs.into_iter()
            .map(|(s, head, key, kept, job)| {
                let result = job.join().ok().map(|(uncommitted, asked)| {
                    if let (Some(key), Some(Ok(files))) = (&key, &asked) {
                        super::flight::save_branch_files(repo, &s.checkout, key, files);
                    }
                    (uncommitted, kept.map(Ok).or(asked))
                });
                (s, head, result)
            })
            .collect()
    });
    let mut out = Vec::new();
    for (s, head, result) in found {
        let Some((uncommitted, unmerged)) = result else {
            continue;
        };
        match uncommitted {
            Ok(files) => {
                for path in rail_core::formats::rail_files::work_files(files) {
                    let at = changed_at(&s.dir, &path).unwrap_or(now);
                    out.push(s.file(path, WorkKind::Uncommitted, at));
                }
            }
            Err(e) => errln!("rail: work in flight in {}: {e}", s.checkout),
        }
        match unmerged {
            Some(Ok(files)) => out.extend(s.unmerged(files, head.as_ref(), now)),
            Some(Err(e)) => errln!("rail: work in flight in {}: {e}", s.checkout),
            None => {}
        }
    }
    out
}

/// Each station's files committed on its branch since it forked from `base`, from what was
/// kept for its HEAD and the base's commit (a file read), git asked only for a station whose
/// HEAD or base moved since (a tool call's budget: one process per new commit, not per call).
/// Stations in `except` (a checkout) are skipped.
pub fn unmerged(
    repo: &Repo,
    stations: &[StationDir],
    base: &str,
    except: &str,
    now: Time,
) -> Vec<StationFile> {
    let Some(base_commit) = branch_commit(repo, base) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for s in stations.iter().filter(|s| s.checkout != except) {
        let head = StationHead::of(&s.dir);
        let Some(key) = head.as_ref().and_then(|h| h.key(Some(&base_commit))) else {
            continue;
        };
        let files = match super::flight::branch_files(repo, &s.checkout, &key) {
            Some(files) => files,
            None => match crate::git::unmerged_in(&s.dir, base) {
                Ok(files) => {
                    super::flight::save_branch_files(repo, &s.checkout, &key, &files);
                    files
                }
                Err(_) => continue,
            },
        };
        out.extend(s.unmerged(files, head.as_ref(), now));
    }
    out
}

impl StationDir {
    /// One of this station's files.
    fn file(&self, path: String, kind: WorkKind, at: Time) -> StationFile {
        StationFile {
            checkout: self.checkout.clone(),
            branch: self.branch.clone(),
            path,
            kind,
            at,
        }
    }

    /// `files` its branch committed since the base, Rail's own left out, each dated by its
    /// HEAD's commit (`now` when that cannot be read).
    fn unmerged(
        &self,
        files: Vec<String>,
        head: Option<&StationHead>,
        now: Time,
    ) -> Vec<StationFile> {
        if files.is_empty() {
            return Vec::new();
        }
        let at = head.and_then(StationHead::committed_at).unwrap_or(now);
        rail_core::formats::rail_files::work_files(files)
            .into_iter()
            .map(|path| self.file(path, WorkKind::Unmerged, at))
            .collect()
    }
}

/// The commit `branch` points at (read from git's files).
fn branch_commit(repo: &Repo, branch: &str) -> Option<String> {
    let name = format!("refs/heads/{branch}");
    objects::refs_under(&repo.common_dir, &[name.as_str()])?
        .into_iter()
        .next()
        .map(|(_, id)| id)
}

/// A station's HEAD commit, read once from git's files: what its commits since the base are
/// kept under, and when they were last added to.
struct StationHead {
    common_dir: PathBuf,
    oid: gitobject::Oid,
}

impl StationHead {
    /// `None`: not a checkout, or a branch with no commit yet.
    fn of(dir: &Path) -> Option<StationHead> {
        let there = repo::discover(dir)?;
        match objects::head(&there)? {
            Head::Commit(oid) => Some(StationHead {
                common_dir: there.common_dir,
                oid,
            }),
            Head::Unborn => None,
        }
    }

    /// What its commits since the base are kept under: its HEAD's and the base's commits.
    fn key(&self, base_commit: Option<&str>) -> Option<String> {
        Some(format!("{} {}", gitobject::hex(&self.oid), base_commit?))
    }

    /// When its HEAD was committed.
    fn committed_at(&self) -> Option<Time> {
        let secs = ObjectFiles::open(&self.common_dir)?.commit_time(&self.oid)?;
        chrono::DateTime::from_timestamp(secs, 0)
    }
}

/// When the file at `rel` was last changed: its own time, or for a file removed its folder's.
fn changed_at(dir: &Path, rel: &str) -> Option<Time> {
    let at = dir.join(rel);
    let m = std::fs::symlink_metadata(&at)
        .ok()
        .or_else(|| std::fs::symlink_metadata(at.parent()?).ok())?;
    Some(m.modified().ok()?.into())
}
