//! `git config --get KEY` without a git process, where Rail can be sure of the answer.
//!
//! Every command asks for `rail.remote`; the process cost more than the rest of a local claim.
//! Git's files are read here and core ([`rail_core::formats::gitconfig`]) reads the value out of
//! them. Where git keeps its system and global files is learnt once from `git var -l` and kept in
//! `<common dir>/rail/git-config-places`, stamped with what decides those places (the git
//! program found on PATH, its size and time, and the environment variables git consults).
//! Anything this cannot follow (config given on the command line or in the environment, an
//! include, an unreadable file, a git too old for `git var` to say) is asked of git itself.

use std::path::{Path, PathBuf};

use rail_core::formats::gitconfig::{self, Key, Lookup, Places};

use crate::git;
use crate::git::repo::Repo;

const PLACES_FILE: &str = "git-config-places";
/// A config file larger than this is git's to read.
const MAX_CONFIG: u64 = 1 << 20;
/// Environment variables that change which files git reads, or add settings of their own.
const ENV_STAMP: &[&str] = &[
    "HOME",
    "XDG_CONFIG_HOME",
    "USERPROFILE",
    "HOMEDRIVE",
    "HOMEPATH",
    "PREFIX",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_NOSYSTEM",
    "GIT_EXEC_PATH",
];
/// With any of these set, git's answer depends on more than the files: ask git.
const ENV_ASK_GIT: &[&str] = &[
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG",
    "GIT_DIR",
    "GIT_COMMON_DIR",
    "GIT_WORK_TREE",
];

/// The value git prints for `git config --get KEY` in `dir` (empty counts as unset).
pub fn get(repo: Option<&Repo>, dir: &Path, key: &str) -> Option<String> {
    match read(repo, dir, key) {
        Some(Lookup::Value(v)) => Some(v).filter(|v| !v.is_empty()),
        Some(Lookup::Unset) => None,
        Some(Lookup::Unknown(_)) | None => git::config_get(dir, key),
    }
}

/// What the files say, or `None` where only git can tell.
fn read(repo: Option<&Repo>, dir: &Path, key: &str) -> Option<Lookup> {
    let key = Key::parse(key)?;
    Some(files(repo?, dir)?.lookup(&key))
}

/// git's config files for the checkout at `dir`, read once for several keys, and where git
/// keeps its system attributes file.
#[derive(Debug)]
pub struct ConfigFiles {
    texts: Vec<String>,
    pub attr_system: Option<String>,
}

impl ConfigFiles {
    /// What the files say about `key`.
    pub fn lookup(&self, key: &Key) -> Lookup {
        gitconfig::lookup(self.texts.iter().map(String::as_str), key)
    }

    /// `key`'s value as git reads a boolean, `default` when unset; `None` where only git can
    /// tell.
    pub fn flag(&self, key: &str, default: bool) -> Option<bool> {
        match self.lookup(&Key::parse(key)?) {
            Lookup::Unset => Some(default),
            Lookup::Value(v) => gitconfig::truthy(&v),
            Lookup::Unknown(_) => None,
        }
    }
}

/// The files git reads for `git config` in `dir` (system, global, the common dir's `config`
/// and, with `extensions.worktreeConfig`, `config.worktree`), or `None` where only git can tell.
pub fn files(repo: &Repo, dir: &Path) -> Option<ConfigFiles> {
    if ENV_ASK_GIT
        .iter()
        .any(|v| crate::sys::env::var_os(v).is_some())
    {
        return None;
    }
    // Only in the main checkout is the local file plainly the common dir's.
    if !same_dir(dir, &repo.main_checkout()) {
        return None;
    }
    let places = places(&repo.common_dir)?;
    let local = read_file(&repo.common_dir.join("config"))?;
    let mut texts: Vec<String> = Vec::new();
    for p in places.system.iter().chain(&places.global) {
        texts.push(read_file(Path::new(p))?);
    }
    let worktree_config = Key::parse("extensions.worktreeConfig")?;
    let per_worktree = match gitconfig::lookup([local.as_str()], &worktree_config) {
        Lookup::Unset => false,
        Lookup::Value(v) => gitconfig::truthy(&v)?,
        Lookup::Unknown(_) => return None,
    };
    texts.push(local);
    if per_worktree {
        texts.push(read_file(&repo.common_dir.join("config.worktree"))?);
    }
    Some(ConfigFiles {
        texts,
        attr_system: places.attr_system,
    })
}

/// A config file's text, empty when it does not exist; `None` when it cannot be read as git
/// would (too large, not UTF-8, not a file, an error).
fn read_file(path: &Path) -> Option<String> {
    use std::io::Read;
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Some(String::new()),
        Err(_) => return None,
    };
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(MAX_CONFIG + 1).read_to_end(&mut bytes).ok()?;
    if bytes.len() as u64 > MAX_CONFIG {
        return None;
    }
    String::from_utf8(bytes).ok()
}

fn same_dir(a: &Path, b: &Path) -> bool {
    a == b || matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
}

/// Where git reads system and global config, from the kept answer when its stamp still holds,
/// else from one `git var -l` (then kept).
fn places(common_dir: &Path) -> Option<Places> {
    let stamp = stamp()?;
    let kept = common_dir.join("rail").join(PLACES_FILE);
    if let Ok(Some(text)) = crate::sys::railfile::read_text(&kept) {
        if let Some(rest) = text.strip_prefix(&stamp).and_then(|r| r.strip_prefix('\n')) {
            return gitconfig::places(rest);
        }
    }
    let out = git::run(common_dir, &git::GitLine::new(&["var", "-l"])).ok()?;
    let lines: String = out
        .lines()
        .filter(|l| {
            [
                "GIT_CONFIG_SYSTEM=",
                "GIT_CONFIG_GLOBAL=",
                "GIT_ATTR_SYSTEM=",
            ]
            .iter()
            .any(|p| l.starts_with(p))
        })
        .map(|l| format!("{l}\n"))
        .collect();
    // Kept even when git is too old to name them: the next command asks git config at once.
    let dir = common_dir.join("rail");
    if crate::sys::railfile::ensure_dir(&dir).is_ok() {
        let _ = crate::sys::railfile::write_inside(
            common_dir,
            &kept,
            format!("{stamp}\n{lines}").as_bytes(),
            false,
        );
    }
    gitconfig::places(&lines)
}

/// What decides where git looks: the program PATH finds and the variables it reads. A line of
/// its own (no newline inside), or `None` when git cannot be found here.
fn stamp() -> Option<String> {
    let exe = find_git()?;
    let meta = std::fs::metadata(&exe).ok()?;
    let modified = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_nanos();
    let mut s = format!(
        "rail-git-config-places 2\t{}\t{}\t{modified}",
        exe.display(),
        meta.len()
    );
    for v in ENV_STAMP {
        s.push('\t');
        s.push_str(v);
        if let Some(val) = crate::sys::env::var_os(v) {
            s.push('=');
            s.push_str(&val.to_string_lossy());
        }
    }
    (!s.contains('\n') && !s.contains('\r')).then_some(s)
}

/// The git program `Command::new("git")` would start: the first on PATH.
fn find_git() -> Option<PathBuf> {
    crate::sys::on_path("git")
}
