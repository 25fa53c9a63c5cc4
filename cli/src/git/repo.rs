//! Where the rail is, and who is asking.
//!
//! From any worktree, the main checkout is the parent of the git common dir; claims.md and its
//! companions live there, so every worktree shares one rail. This is found by reading `.git`
//! files (`.git` as a directory, or a `gitdir:` file in a linked worktree, then its `commondir`)
//! rather than spawning git; unusual setups (GIT_DIR in the environment, a bare common dir) fall
//! back to `git rev-parse`. What each file says is core's (`rail_core::formats::gitdir`, which the
//! VS Code extension uses too); this module reads the files and resolves the paths.

use std::fs;
use std::path::{Path, PathBuf};

use rail_core::formats::gitdir;

/// A git checkout as found from the working directory.
#[derive(Clone, Debug)]
pub struct Repo {
    /// The worktree's top directory.
    pub worktree: PathBuf,
    /// The worktree's own git dir (`.git`, or `.git/worktrees/<name>`).
    pub git_dir: PathBuf,
    /// The shared git dir.
    pub common_dir: PathBuf,
}

impl Repo {
    /// The main checkout: the parent of the common dir.
    pub fn main_checkout(&self) -> PathBuf {
        self.common_dir
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| self.common_dir.clone())
    }

    /// The branch checked out in this worktree (`None` when HEAD is detached).
    pub fn branch(&self) -> Option<String> {
        head_branch(&self.git_dir)
    }
}

/// The branch a git dir's HEAD points to.
pub fn head_branch(git_dir: &Path) -> Option<String> {
    let head = fs::read_to_string(git_dir.join("HEAD")).ok()?;
    gitdir::head_branch(&head).map(str::to_string)
}

fn read_gitdir_file(dot_git: &Path) -> Option<PathBuf> {
    let text = fs::read_to_string(dot_git).ok()?;
    let path = Path::new(gitdir::dot_git_target(&text)?);
    Some(if path.is_absolute() {
        path.to_path_buf()
    } else {
        dot_git.parent()?.join(path)
    })
}

fn common_dir_of(git_dir: &Path) -> PathBuf {
    let text = fs::read_to_string(git_dir.join("commondir")).ok();
    match text.as_deref().and_then(gitdir::commondir_target) {
        Some(target) => {
            let p = Path::new(target);
            let joined = if p.is_absolute() {
                p.to_path_buf()
            } else {
                git_dir.join(p)
            };
            joined.canonicalize().unwrap_or(joined)
        }
        None => git_dir.to_path_buf(),
    }
}

/// Finds the repository containing `start` by reading `.git` files.
pub fn discover(start: &Path) -> Option<Repo> {
    if gitdir::ASK_GIT_ENV
        .iter()
        .any(|v| crate::sys::env::var_os(v).is_some())
    {
        return discover_with_git(start);
    }
    let start = start.canonicalize().ok()?;
    let mut dir: &Path = &start;
    loop {
        let dot_git = dir.join(".git");
        if let Ok(meta) = fs::symlink_metadata(&dot_git) {
            let git_dir = if meta.is_dir() {
                dot_git.clone()
            } else {
                read_gitdir_file(&dot_git)?
            };
            let git_dir = git_dir.canonicalize().unwrap_or(git_dir);
            let common_dir = common_dir_of(&git_dir);
            if !gitdir::files_suffice(common_dir.file_name().and_then(|n| n.to_str())) {
                // A bare or separate common dir: let git say where things are.
                return discover_with_git(&start);
            }
            return Some(Repo {
                worktree: dir.to_path_buf(),
                git_dir,
                common_dir,
            });
        }
        dir = dir.parent()?;
    }
}

fn git_path(start: &Path, words: &[&'static str]) -> Option<PathBuf> {
    let out = super::line::process(start, &super::GitLine::new(words))
        .ok()?
        .stdout(std::process::Stdio::piped())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    Some(PathBuf::from(text.trim_end_matches('\n')))
}

fn discover_with_git(start: &Path) -> Option<Repo> {
    let worktree = git_path(start, &["rev-parse", "--show-toplevel"])?;
    let git_dir = git_path(start, &["rev-parse", "--path-format=absolute", "--git-dir"])?;
    let common_dir = git_path(
        start,
        &["rev-parse", "--path-format=absolute", "--git-common-dir"],
    )?;
    Some(Repo {
        worktree,
        git_dir,
        common_dir,
    })
}

/// Every worktree of the repository: (path, branch). Read from the common dir's files.
pub fn worktrees(repo: &Repo) -> Vec<(PathBuf, Option<String>)> {
    worktree_dirs(repo)
        .into_iter()
        .map(|w| (w.path, w.branch))
        .collect()
}

/// A worktree as `rail worktree list` and `remove` see it.
#[derive(Clone, Debug)]
pub struct WorktreeDir {
    /// The directory git recorded for it.
    pub path: PathBuf,
    pub branch: Option<String>,
    /// Its own git dir (`<common>/worktrees/<name>`); `None` for the main checkout.
    pub admin: Option<PathBuf>,
}

/// Every worktree of the repository, the main checkout first, with each one's git dir.
pub fn worktree_dirs(repo: &Repo) -> Vec<WorktreeDir> {
    let mut out = vec![WorktreeDir {
        path: repo.main_checkout(),
        branch: head_branch(&repo.common_dir),
        admin: None,
    }];
    if let Ok(entries) = fs::read_dir(repo.common_dir.join("worktrees")) {
        let mut dirs: Vec<PathBuf> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
        dirs.sort();
        for admin in dirs {
            let Some(path) = fs::read_to_string(admin.join("gitdir"))
                .ok()
                .and_then(|s| gitdir::worktree_dot_git(&s).map(PathBuf::from))
                .and_then(|p| p.parent().map(Path::to_path_buf))
            else {
                continue;
            };
            out.push(WorktreeDir {
                path,
                branch: head_branch(&admin),
                admin: Some(admin),
            });
        }
    }
    out
}

/// Whether the directory at `path` is the checkout of the worktree whose git dir is `admin`
/// (`None`: the main checkout, whose `.git` is the common dir itself): its `.git` says so.
pub fn is_checkout_of(path: &Path, admin: Option<&Path>, common_dir: &Path) -> bool {
    let dot_git = path.join(".git");
    let Ok(meta) = fs::symlink_metadata(&dot_git) else {
        return false;
    };
    let same = |a: &Path, b: &Path| matches!((a.canonicalize(), b.canonicalize()), (Ok(a), Ok(b)) if a == b);
    match admin {
        None => meta.is_dir() && same(&dot_git, common_dir),
        Some(admin) => {
            meta.is_file() && read_gitdir_file(&dot_git).is_some_and(|g| same(&g, admin))
        }
    }
}
