//! `git status`'s list of uncommitted and untracked files, read without a git process where
//! Rail can be sure of git's answer: every release lists the files its checkout touched, and
//! the `git status` process was the largest part of a release (bench/README.md, "CLI pair").
//!
//! What git does, done here with core's rules: the index read (`gitindex`), HEAD's tree
//! against the index's (`gitobjects`: no staged change, or the staged paths from the two
//! trees), each tracked file's stat data against its entry and, where git would, its content
//! hashed (`gitindex::verdict`), and the untracked files found by walking the checkout with
//! git's ignore rules (`gitignore`). Anything Rail cannot judge exactly as git would returns
//! the reason instead, and the caller runs `git status`: a submodule, a sparse, split or
//! monitored index, a conflict, a changed file whose content an attribute or `core.autocrlf`
//! could convert, a repository inside the checkout, an ignore pattern this reader does not
//! follow, config that only git can read, a checkout other than a main one, and so on.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rail_core::formats::gitattributes;
use rail_core::formats::gitconfig::{self, Key, Lookup};
use rail_core::formats::gitignore::{self, Patterns};
use rail_core::formats::gitindex::{
    self, IndexEntry as Entry, IndexFile, OnDisk as Found, StatusVerdict as Verdict,
};
use rail_core::formats::gitobject::{self, ObjectKind as Kind, Oid};

use crate::git::objects::{self, Head, ObjectFiles};
use crate::git::repo::Repo;

/// Why git must answer instead.
pub type AskGit = &'static str;

/// Environment variables under which git reads another repository, index, object store or
/// config than the files say, or other attributes.
const ENV_ASK_GIT: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_REPLACE_REF_BASE",
    "GIT_NO_REPLACE_OBJECTS",
    "GIT_ATTR_SOURCE",
    "GIT_ATTR_NOSYSTEM",
];
/// An index, `.gitignore` or attributes file larger than this is git's to read.
const MAX_INDEX: u64 = 256 << 20;
const MAX_PATTERNS: u64 = 1 << 20;
/// Folders nested deeper than this are git's to walk.
const MAX_DEPTH: usize = 200;
/// From this many index entries, they are judged on several threads (git's preload starts
/// threads from about a thousand).
const PARALLEL_FROM: usize = 2000;

/// The paths `git status --porcelain --untracked-files=all --no-renames --ignore-submodules=none`
/// lists for `repo`'s checkout (changed, staged, deleted, conflicted and untracked files,
/// relative to the checkout, sorted), or why git must be asked.
pub fn uncommitted(repo: &Repo) -> Result<Vec<String>, AskGit> {
    if !cfg!(unix) {
        return Err("file stat data is git's to read on this system");
    }
    if ENV_ASK_GIT
        .iter()
        .any(|v| crate::sys::env::var_os(v).is_some())
    {
        return Err("a GIT_ variable in the environment");
    }
    if repo.git_dir != repo.worktree.join(".git") || repo.git_dir != repo.common_dir {
        return Err("not a main checkout with its own .git");
    }
    if !owned_by_us(&repo.worktree) || !owned_by_us(&repo.git_dir) {
        return Err("a checkout another user owns (git's safe.directory)");
    }
    let settings = Settings::read(repo)?;
    let (index, index_mtime) = read_index(&repo.git_dir)?;
    if let Some(why) = index.asks_git {
        return Err(why);
    }
    let mut out = staged(repo, &index)?;
    let globals = global_ignores(repo, &settings)?;
    let mut untracked = Vec::new();
    let mut walk = Walk {
        worktree: &repo.worktree,
        index: &index,
        settings: &settings,
        lists: Vec::new(),
        globals,
        out: &mut untracked,
    };
    // A large index is judged in parallel, as git's preload does, beside the walk.
    let entries = &index.entries;
    let parts = if entries.len() < PARALLEL_FROM {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get().clamp(1, 8))
    };
    let attributes = Attributes::new(repo, &settings, &index);
    let job = Judge {
        worktree: &repo.worktree,
        index_mtime,
        filemode: settings.filemode,
        attributes: &attributes,
    };
    let (judged, walked) = std::thread::scope(|scope| {
        let workers: Vec<_> = entries
            .chunks(entries.len().div_ceil(parts).max(1))
            .skip(1)
            .map(|part| scope.spawn(|| job.run(part)))
            .collect();
        let first = entries.len().div_ceil(parts).min(entries.len());
        let mut judged = vec![job.run(&entries[..first])];
        let walked = walk.dir("");
        for w in workers {
            judged.push(w.join().unwrap_or(Err("a thread that failed")));
        }
        (judged, walked)
    });
    for part in judged {
        out.extend(part?);
    }
    walked?;
    out.extend(untracked);
    out.sort();
    out.dedup();
    Ok(out)
}

/// git's verdict on index entries, on whichever thread runs it.
struct Judge<'a> {
    worktree: &'a Path,
    index_mtime: (i64, u32),
    filemode: bool,
    attributes: &'a Attributes<'a>,
}

impl Judge<'_> {
    /// The paths of `entries` git lists: by their stat data, else by their content.
    fn run(&self, entries: &[Entry]) -> Result<Vec<String>, AskGit> {
        let mut listed = Vec::new();
        let mut folders = Folders::open(self.worktree)?;
        let mut attributes = self.attributes.clone();
        for e in entries {
            let found = folders.found(&e.path)?;
            let changed =
                match gitindex::verdict(e, &found, self.index_mtime, self.filemode) {
                    Verdict::Unchanged => false,
                    Verdict::Changed => true,
                    Verdict::CompareContent => {
                        !same_content(self.worktree, e, &found, &mut attributes)?
                    }
                    Verdict::AskGit => return Err(
                        "an index entry only git follows (a submodule, sparse or assume-unchanged)",
                    ),
                };
            if changed {
                listed.push(e.path.clone());
            }
        }
        Ok(listed)
    }
}

#[cfg(unix)]
fn owned_by_us(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(path).is_ok_and(|m| m.uid() == rustix::process::geteuid().as_raw())
}

#[cfg(not(unix))]
fn owned_by_us(_: &Path) -> bool {
    false
}

/// The config git's answer depends on, read once.
struct Settings {
    filemode: bool,
    /// `core.autocrlf` may convert a file's content before git hashes it.
    autocrlf: bool,
    /// `core.precomposeUnicode`: git renames what it reads from folders (macOS).
    precompose: bool,
    excludes_file: Option<PathBuf>,
    attributes_file: Option<PathBuf>,
    /// `None`: git does not say where (a git older than 2.42).
    attr_system: Option<String>,
}

impl Settings {
    fn read(repo: &Repo) -> Result<Settings, AskGit> {
        let files =
            crate::git::config::files(repo, &repo.worktree).ok_or("config only git can read")?;
        let flag = |key: &str, default: bool| {
            files
                .flag(key, default)
                .ok_or("a config value only git can read")
        };
        let value = |key: &str| match Key::parse(key).map(|k| files.lookup(&k)) {
            Some(Lookup::Value(v)) => Ok(Some(v)),
            Some(Lookup::Unset) => Ok(None),
            _ => Err("a config value only git can read"),
        };
        if !flag("core.symlinks", true)? || flag("core.ignorecase", false)? {
            return Err("core.symlinks or core.ignoreCase");
        }
        if flag("core.bare", false)? || value("core.worktree")?.is_some() {
            return Err("core.bare or core.worktree");
        }
        if flag("core.sparsecheckout", false)? {
            return Err("a sparse checkout");
        }
        if value("attr.tree")?.is_some() {
            return Err("attributes read from a tree (attr.tree)");
        }
        if value("core.fsmonitor")?.is_some_and(|v| gitconfig::truthy(&v) != Some(false)) {
            return Err("a file-system monitor (core.fsmonitor)");
        }
        if value("extensions.objectformat")?.is_some_and(|v| !v.eq_ignore_ascii_case("sha1")) {
            return Err("a SHA-256 repository");
        }
        if value("extensions.refstorage")?.is_some_and(|v| !v.eq_ignore_ascii_case("files")) {
            return Err("a ref store other than files");
        }
        let autocrlf =
            value("core.autocrlf")?.is_some_and(|v| gitconfig::truthy(&v) != Some(false));
        Ok(Settings {
            filemode: flag("core.filemode", true)?,
            autocrlf,
            precompose: flag("core.precomposeunicode", false)?,
            excludes_file: user_file(value("core.excludesfile")?, "ignore")?,
            attributes_file: user_file(value("core.attributesfile")?, "attributes")?,
            attr_system: files.attr_system.clone(),
        })
    }
}

/// A path from config as git expands it (`~/`), else git's default under the XDG config home.
fn user_file(configured: Option<String>, default_name: &str) -> Result<Option<PathBuf>, AskGit> {
    let home = crate::sys::env::var_os("HOME").filter(|h| !h.is_empty());
    match configured {
        Some(p) if p.starts_with('/') => Ok(Some(PathBuf::from(p))),
        Some(p) => match (p.strip_prefix("~/"), home) {
            (Some(rest), Some(h)) => Ok(Some(PathBuf::from(h).join(rest))),
            _ => Err("a config path only git can expand"),
        },
        None => Ok(
            match crate::sys::env::var_os("XDG_CONFIG_HOME").filter(|x| !x.is_empty()) {
                Some(x) => Some(PathBuf::from(x).join("git").join(default_name)),
                None => home.map(|h| {
                    PathBuf::from(h)
                        .join(".config")
                        .join("git")
                        .join(default_name)
                }),
            },
        ),
    }
}

/// The index and when it was written; an empty index when there is none.
fn read_index(git_dir: &Path) -> Result<(IndexFile, (i64, u32)), AskGit> {
    let path = git_dir.join("index");
    match crate::sys::railfile::read_max(&path, MAX_INDEX) {
        Ok(Some((bytes, modified))) => {
            let since = modified
                .duration_since(std::time::UNIX_EPOCH)
                .map_err(|_| "an index written before 1970")?;
            let index = gitindex::read(&bytes).ok_or("an index this reader does not follow")?;
            Ok((index, (since.as_secs() as i64, since.subsec_nanos())))
        }
        Ok(None) => Ok((IndexFile::default(), (0, 0))),
        Err(_) => Err("an index that cannot be read plainly"),
    }
}

/// The staged paths: the index's tree against HEAD's (every entry when HEAD has no commit).
fn staged(repo: &Repo, index: &IndexFile) -> Result<Vec<String>, AskGit> {
    let head = objects::head(repo).ok_or("HEAD as only git resolves it")?;
    let commit = match head {
        Head::Unborn => return Ok(index.entries.iter().map(|e| e.path.clone()).collect()),
        Head::Commit(c) => c,
    };
    let mut objects = ObjectFiles::open(&repo.common_dir).ok_or("replace refs")?;
    let head_tree = objects
        .commit_tree(&commit)
        .ok_or("a HEAD commit this reader cannot find or read")?;
    let index_tree = gitindex::tree_id(index).ok_or("an index only git can write a tree of")?;
    if head_tree == index_tree {
        return Ok(Vec::new());
    }
    let mut dirs: HashMap<String, Oid> = HashMap::new();
    gitindex::tree_ids(index, &mut |path, oid| {
        dirs.insert(path.to_string(), oid);
    })
    .ok_or("an index only git can write a tree of")?;
    let mut out = Vec::new();
    diff_tree(&mut objects, index, &dirs, "", &head_tree, &mut out)?;
    Ok(out)
}

/// The paths under `prefix` (`""` or `a/b/`) where HEAD's tree `oid` and the index differ:
/// subtrees whose ids match are passed over, others compared name by name.
fn diff_tree(
    objects: &mut ObjectFiles,
    index: &IndexFile,
    dirs: &HashMap<String, Oid>,
    prefix: &str,
    oid: &Oid,
    out: &mut Vec<String>,
) -> Result<(), AskGit> {
    let entries = objects
        .tree(oid)
        .ok_or("a HEAD tree this reader cannot find or read")?;
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for t in &entries {
        let path = format!("{prefix}{}", t.name);
        seen.insert(&t.name);
        if t.is_tree() {
            let sub = format!("{path}/");
            match dirs.get(&sub) {
                Some(o) if o == &t.oid => {}
                Some(_) => diff_tree(objects, index, dirs, &sub, &t.oid, out)?,
                None => all_files(objects, &sub, &t.oid, out)?,
            }
            // A file of the folder's name in the index is staged too.
            if index_has(index, &path) {
                out.push(path);
            }
        } else {
            match entry(index, &path) {
                Some(e) if e.oid == t.oid && e.mode == t.mode => {}
                _ => out.push(path.clone()),
            }
            // Files under a folder of this name in the index.
            out.extend(under(index, &format!("{path}/")).map(|e| e.path.clone()));
        }
    }
    // What the index has here that HEAD's tree does not.
    for e in under(index, prefix) {
        if e.intent_to_add {
            continue;
        }
        let first = e.path[prefix.len()..].split('/').next().unwrap_or("");
        if !seen.contains(&first) {
            out.push(e.path.clone());
        }
    }
    Ok(())
}

/// Every file of HEAD's tree `oid` (at `prefix`): a folder the index no longer has.
fn all_files(
    objects: &mut ObjectFiles,
    prefix: &str,
    oid: &Oid,
    out: &mut Vec<String>,
) -> Result<(), AskGit> {
    for t in objects
        .tree(oid)
        .ok_or("a HEAD tree this reader cannot find or read")?
    {
        let path = format!("{prefix}{}", t.name);
        if t.is_tree() {
            all_files(objects, &format!("{path}/"), &t.oid, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}

/// The index's stage-0 entry at `path`.
fn entry<'a>(index: &'a IndexFile, path: &str) -> Option<&'a Entry> {
    let at = index.entries.partition_point(|e| e.path.as_str() < path);
    index.entries[at..]
        .iter()
        .take_while(|e| e.path == path)
        .find(|e| e.stage == 0)
}

/// Whether the index has an entry at `path` (any stage).
fn index_has(index: &IndexFile, path: &str) -> bool {
    let at = index.entries.partition_point(|e| e.path.as_str() < path);
    index.entries.get(at).is_some_and(|e| e.path == path)
}

/// The entries under the folder `prefix` (`""` for all, else ending in `/`).
fn under<'a>(index: &'a IndexFile, prefix: &'a str) -> impl Iterator<Item = &'a Entry> {
    let at = index.entries.partition_point(|e| e.path.as_str() < prefix);
    index.entries[at..]
        .iter()
        .take_while(move |e| e.path.starts_with(prefix))
}

/// What is at each tracked path, found by its name in its opened folder (`fstatat`, no link
/// followed), folder by folder as the index's order walks them: each lookup walks one name, and
/// a folder that is a link (or missing, or a file) leaves nothing below it, as git counts it.
#[cfg(unix)]
struct Folders {
    root: rustix::fd::OwnedFd,
    /// The folders open along the current path: `a/`, `a/b/`...; `None` from the first that
    /// is not a real folder.
    open: Vec<(String, Option<rustix::fd::OwnedFd>)>,
}

#[cfg(unix)]
impl Folders {
    fn open(worktree: &Path) -> Result<Folders, AskGit> {
        use rustix::fs::{Mode, OFlags};
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let root = rustix::fs::open(worktree, flags, Mode::empty())
            .map_err(|_| "a checkout that cannot be read")?;
        Ok(Folders {
            root,
            open: Vec::new(),
        })
    }

    fn found(&mut self, path: &str) -> Result<Found, AskGit> {
        use rustix::fs::{AtFlags, Mode, OFlags};
        use rustix::io::Errno;
        let (parent, name) = match path.rfind('/') {
            Some(i) => (&path[..=i], &path[i + 1..]),
            None => ("", path),
        };
        while self
            .open
            .last()
            .is_some_and(|(dir, _)| !parent.starts_with(dir.as_str()))
        {
            self.open.pop();
        }
        let missing = |e: Errno| matches!(e, Errno::NOENT | Errno::NOTDIR | Errno::LOOP);
        while parent.len() > self.open.last().map_or(0, |(d, _)| d.len()) {
            let from = self.open.last().map_or(0, |(d, _)| d.len());
            let end = from + parent[from..].find('/').unwrap_or(parent.len() - from - 1) + 1;
            let fd = match self.open.last() {
                Some((_, None)) => None,
                last => {
                    let at = match last {
                        Some((_, Some(fd))) => fd,
                        _ => &self.root,
                    };
                    let flags =
                        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
                    match rustix::fs::openat(at, &parent[from..end - 1], flags, Mode::empty()) {
                        Ok(fd) => Some(fd),
                        Err(e) if missing(e) => None,
                        Err(_) => return Err("a folder that cannot be read"),
                    }
                }
            };
            self.open.push((parent[..end].to_string(), fd));
        }
        let at = match self.open.last() {
            Some((_, None)) => return Ok(Found::Missing),
            Some((_, Some(fd))) => fd,
            None => &self.root,
        };
        match rustix::fs::statat(at, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) => Ok(found(&st)),
            Err(e) if missing(e) => Ok(Found::Missing),
            Err(_) => Err("a file that cannot be read"),
        }
    }
}

/// The stat data git keeps, from `fstatat`'s (field widths differ by platform).
#[cfg(unix)]
#[allow(
    clippy::unnecessary_cast,
    reason = "the stat fields' types differ by platform"
)]
fn found(st: &rustix::fs::Stat) -> Found {
    use rustix::fs::FileType;
    let stat = gitindex::FileStat {
        size: st.st_size as u64,
        mtime: (st.st_mtime as i64, st.st_mtime_nsec as u32),
        ctime: (st.st_ctime as i64, st.st_ctime_nsec as u32),
        dev: st.st_dev as u64,
        ino: st.st_ino as u64,
        uid: st.st_uid as u32,
        gid: st.st_gid as u32,
        perm: st.st_mode as u32 & 0o777,
    };
    match FileType::from_raw_mode(st.st_mode as _) {
        FileType::RegularFile => Found::File(stat),
        FileType::Symlink => Found::Link(stat),
        FileType::Directory => Found::Dir,
        _ => Found::Other,
    }
}

/// Elsewhere the status is always git's ([`uncommitted`] says so first).
#[cfg(not(unix))]
struct Folders;

#[cfg(not(unix))]
impl Folders {
    fn open(_: &Path) -> Result<Folders, AskGit> {
        Err("file stat data is git's to read on this system")
    }

    fn found(&mut self, _: &str) -> Result<Found, AskGit> {
        Err("file stat data is git's to read on this system")
    }
}

fn missing(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
    )
}

/// Whether the file (or link) at `e`'s path still has `e`'s blob, as git compares them: the
/// bytes hashed as they are, which is git's hash only where nothing converts them.
fn same_content(
    worktree: &Path,
    e: &Entry,
    found: &Found,
    attributes: &mut Attributes,
) -> Result<bool, AskGit> {
    let path = worktree.join(&e.path);
    let oid = match found {
        Found::Link(_) => {
            let target = std::fs::read_link(&path).map_err(|_| "a link that cannot be read")?;
            gitobject::id(Kind::Blob, link_bytes(&target)?)
        }
        Found::File(_) => {
            attributes.check(&e.path)?;
            blob_of(&path)?
        }
        _ => return Err("a file that changed while read"),
    };
    Ok(oid == e.oid)
}

#[cfg(unix)]
fn link_bytes(target: &Path) -> Result<&[u8], AskGit> {
    use std::os::unix::ffi::OsStrExt;
    Ok(target.as_os_str().as_bytes())
}

#[cfg(not(unix))]
fn link_bytes(_: &Path) -> Result<&[u8], AskGit> {
    Err("a link, on this system")
}

/// The blob id of a file's bytes, read as they come.
fn blob_of(path: &Path) -> Result<Oid, AskGit> {
    use std::io::Read;
    let mut file = std::fs::File::open(path).map_err(|_| "a file that cannot be read")?;
    let size = file
        .metadata()
        .map_err(|_| "a file that cannot be read")?
        .len();
    let mut hasher = gitobject::Hasher::new(Kind::Blob, size);
    let mut buf = vec![0u8; 64 * 1024];
    let mut read = 0u64;
    loop {
        let n = file
            .read(&mut buf)
            .map_err(|_| "a file that cannot be read")?;
        if n == 0 {
            break;
        }
        read += n as u64;
        hasher.update(&buf[..n]);
    }
    if read != size {
        return Err("a file that changed while read");
    }
    Ok(hasher.finish())
}

/// Whether attributes could convert a file's content: `core.autocrlf`, the system, global and
/// `info/attributes` files, and the `.gitattributes` of each folder above the file (or the
/// index's copy, which git reads when the file is missing). Each file judged once (per thread).
#[derive(Clone)]
struct Attributes<'a> {
    worktree: &'a Path,
    index: &'a IndexFile,
    /// Whether the files outside the checkout allow hashing as is (`Err`: they do not).
    outside: Result<(), AskGit>,
    folders: HashMap<String, bool>,
}

impl<'a> Attributes<'a> {
    fn new(repo: &'a Repo, settings: &Settings, index: &'a IndexFile) -> Attributes<'a> {
        let outside = if settings.autocrlf {
            Err("core.autocrlf converts content")
        } else {
            let system = settings.attr_system.as_ref().map(PathBuf::from);
            let info = repo.common_dir.join("info").join("attributes");
            match &system {
                None => Err("a system attributes file git does not name"),
                Some(system) => [Some(system), settings.attributes_file.as_ref(), Some(&info)]
                    .into_iter()
                    .flatten()
                    .try_for_each(|p| match read_outside(p)? {
                        Some(text) if gitattributes::may_convert(&text) => {
                            Err("an attributes file that may convert content")
                        }
                        _ => Ok(()),
                    }),
            }
        };
        Attributes {
            worktree: &repo.worktree,
            index,
            outside,
            folders: HashMap::new(),
        }
    }

    /// `Ok` when nothing can convert the content of the file at `path`.
    fn check(&mut self, path: &str) -> Result<(), AskGit> {
        self.outside?;
        let mut end = 0;
        loop {
            let dir = &path[..end];
            let safe = match self.folders.get(dir) {
                Some(s) => *s,
                None => {
                    let s = self.folder_is_safe(dir)?;
                    self.folders.insert(dir.to_string(), s);
                    s
                }
            };
            if !safe {
                return Err("a .gitattributes that may convert content");
            }
            match path[end..].find('/') {
                Some(slash) => end += slash + 1,
                None => return Ok(()),
            }
        }
    }

    fn folder_is_safe(&self, dir: &str) -> Result<bool, AskGit> {
        let rel = format!("{dir}.gitattributes");
        match std::fs::symlink_metadata(self.worktree.join(&rel)) {
            Ok(m) if m.is_file() => {
                let text = read_text(&self.worktree.join(&rel))?;
                Ok(!gitattributes::may_convert(&text))
            }
            Ok(_) => Err("a .gitattributes that is not a file"),
            Err(e) if missing(&e) => {
                if index_has(self.index, &rel) {
                    Err("a .gitattributes only the index has")
                } else {
                    Ok(true)
                }
            }
            Err(_) => Err("a .gitattributes that cannot be read"),
        }
    }
}

/// A file outside the checkout (links followed, as git follows them): `None` when missing.
fn read_outside(path: &Path) -> Result<Option<String>, AskGit> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() && m.len() <= MAX_PATTERNS => {
            let bytes = std::fs::read(path).map_err(|_| "a git file that cannot be read")?;
            String::from_utf8(bytes)
                .map(Some)
                .map_err(|_| "a git file that is not UTF-8")
        }
        Ok(_) => Err("a git file that is not a small file"),
        Err(e) if missing(&e) => Ok(None),
        Err(_) => Err("a git file that cannot be read"),
    }
}

fn read_text(path: &Path) -> Result<String, AskGit> {
    match read_outside(path)? {
        Some(text) => Ok(text),
        None => Err("a file that changed while read"),
    }
}

/// `info/exclude`, then `core.excludesFile`: the lists after every `.gitignore`.
fn global_ignores(repo: &Repo, settings: &Settings) -> Result<Vec<Patterns>, AskGit> {
    let info = repo.common_dir.join("info").join("exclude");
    let mut out = Vec::new();
    for path in [Some(&info), settings.excludes_file.as_ref()]
        .into_iter()
        .flatten()
    {
        if let Some(text) = read_outside(path)? {
            out.push(Patterns::parse(text.as_bytes(), "").map_err(|e| e.0)?);
        }
    }
    Ok(out)
}

/// The walk for untracked files: every folder git would read (not `.git`, not an ignored
/// one), each file in it neither tracked nor ignored listed.
struct Walk<'a> {
    worktree: &'a Path,
    index: &'a IndexFile,
    settings: &'a Settings,
    /// The `.gitignore` lists of the folders above, the root's first.
    lists: Vec<Patterns>,
    globals: Vec<Patterns>,
    out: &'a mut Vec<String>,
}

impl Walk<'_> {
    /// The folder `rel` (`""` or `a/b/`).
    fn dir(&mut self, rel: &str) -> Result<(), AskGit> {
        if self.lists.len() > MAX_DEPTH {
            return Err("folders nested too deep");
        }
        let here = self.worktree.join(rel);
        let reader = std::fs::read_dir(&here).map_err(|_| "a folder that cannot be read")?;
        let mut names = Vec::new();
        for entry in reader {
            let entry = entry.map_err(|_| "a folder that cannot be read")?;
            let name = entry
                .file_name()
                .into_string()
                .map_err(|_| "a file name that is not UTF-8")?;
            if self.settings.precompose && !name.is_ascii() {
                return Err("a name core.precomposeUnicode may rewrite");
            }
            let kind = entry
                .file_type()
                .map_err(|_| "a folder that cannot be read")?;
            names.push((name, kind));
        }
        // The index's entries under this folder, in its (byte) order, met name by name.
        let start = self
            .index
            .entries
            .partition_point(|e| e.path.as_str() < rel);
        let tracked = &self.index.entries[start..];
        let tracked = &tracked[..tracked.partition_point(|e| e.path.starts_with(rel))];
        if !rel.is_empty() && tracked.is_empty() && names.iter().any(|(n, _)| n == ".git") {
            return Err("a repository inside the checkout");
        }
        names.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let mut next = 0;
        self.lists.push(self.gitignore(rel)?);
        for (name, kind) in names {
            if name == ".git" {
                continue;
            }
            while tracked
                .get(next)
                .is_some_and(|e| &e.path[rel.len()..] < name.as_str())
            {
                next += 1;
            }
            let is_tracked = tracked
                .get(next)
                .is_some_and(|e| e.path[rel.len()..] == name);
            let path = format!("{rel}{name}");
            if !kind.is_dir() && is_tracked {
                continue;
            }
            let lists = self.lists.iter().rev().chain(&self.globals);
            if gitignore::excluded(lists, &path, kind.is_dir()) {
                continue;
            }
            if kind.is_dir() {
                self.dir(&format!("{path}/"))?;
            } else if kind.is_file() || kind.is_symlink() {
                self.out.push(path);
            }
        }
        self.lists.pop();
        Ok(())
    }

    /// The folder's `.gitignore` (git reads it without following a link).
    fn gitignore(&self, rel: &str) -> Result<Patterns, AskGit> {
        let path = self.worktree.join(format!("{rel}.gitignore"));
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.is_file() && m.len() <= MAX_PATTERNS => {
                let bytes = std::fs::read(&path).map_err(|_| "a .gitignore that cannot be read")?;
                Patterns::parse(&bytes, rel).map_err(|e| e.0)
            }
            Ok(_) => Err("a .gitignore that is a link, a folder or large"),
            // Missing (git reads the index's copy only for an entry outside a sparse
            // checkout, which is git's case anyway).
            Err(e) if missing(&e) => Ok(Patterns::default()),
            Err(_) => Err("a .gitignore that cannot be read"),
        }
    }
}
