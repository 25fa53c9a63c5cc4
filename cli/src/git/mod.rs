//! The git commands Rail runs: commit times for leases, changed files for scope and release,
//! and configuration for `rail init` (reading a value goes through [`crate::git::config`] first,
//! a main checkout's uncommitted files through [`crate::git::status`]). Each is one process; none
//! runs on the claim fast path, nor on a main checkout's release where Rail can read git's
//! answer itself.

pub mod config;
pub mod index;
pub mod line;
pub mod objects;
pub mod repo;
pub mod status;

use std::collections::BTreeMap;
use std::path::Path;

use chrono::{DateTime, Utc};
use rail_core::formats::gitobject::{parse_hex, ObjectKind};
use rail_core::model::lease;

pub use self::line::GitLine;
use crate::git::repo::Repo;

/// Runs git in `dir`; stdout on success, a readable error otherwise.
pub fn run(dir: &Path, line: &GitLine) -> Result<String, String> {
    finish(started(dir, line), line)
}

/// Time of the last commit each local branch has of its own: the tip's commit time, for
/// branches with commits not on `base` (the main checkout's branch). Core decides which rows
/// count ([`lease::commit_times`]); this runs one `git for-each-ref`, and git older than 2.41
/// (no `ahead-behind`) falls back to plain tips.
pub fn branch_commit_times(dir: &Path, base: Option<&str>) -> BTreeMap<String, DateTime<Utc>> {
    let prefix = "refs/heads/";
    let rows = |base: Option<&str>| {
        let fmt = lease::for_each_ref_format(base);
        let line = GitLine::new(&["for-each-ref"])
            .set("--format=", format_of(&fmt))
            .operand(prefix);
        run(dir, &line).ok()
    };
    let out = base.and_then(|b| rows(Some(b))).or_else(|| rows(None));
    out.map(|rows| lease::commit_times(&rows, prefix))
        .unwrap_or_default()
}

/// Like [`branch_commit_times`] for the remote-tracking branches of `remote` (the branches as
/// other machines pushed them), counting only commits not on `base` (e.g. `origin/main`).
pub fn remote_commit_times(
    dir: &Path,
    remote: &str,
    base: Option<&str>,
) -> BTreeMap<String, DateTime<Utc>> {
    let prefix = format!("refs/remotes/{remote}/");
    let fmt = lease::for_each_ref_format(base);
    let line = GitLine::new(&["for-each-ref"])
        .set("--format=", format_of(&fmt))
        .operand(prefix.as_str());
    match run(dir, &line) {
        Ok(rows) => lease::commit_times(&rows, &prefix),
        Err(_) => BTreeMap::new(),
    }
}

/// The format of core's `--format=…` word (it is one word either way).
fn format_of(word: &str) -> &str {
    word.strip_prefix("--format=").unwrap_or(word)
}

fn nul_list(text: &str) -> Vec<String> {
    text.split('\0')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// Files staged for commit in the worktree at `dir`.
pub fn staged_files(dir: &Path) -> Result<Vec<String>, String> {
    let line = GitLine::new(&[
        "diff",
        "--cached",
        "--name-only",
        "-z",
        "--no-renames",
        "--diff-filter=ACDMRTUXB",
    ]);
    run(dir, &line).map(|s| nul_list(&s))
}

/// Every changed file of the checkout at `dir` as `git status` tells it: staged or not,
/// tracked or not (one process, no index lock taken).
pub fn status_entries(dir: &Path) -> Result<Vec<rail_core::agent::flight::StatusEntry>, String> {
    let out = run(dir, &GitLine::new(&UNCOMMITTED))?;
    Ok(status_items(&out)
        .into_iter()
        .map(|(xy, path)| rail_core::agent::flight::StatusEntry {
            path: path.to_string(),
            staged: !matches!(xy.chars().next(), Some(' ' | '?' | '!') | None),
            untracked: xy == "??",
        })
        .collect())
}

/// Everything the session changed: commits on its branch since it forked from `base`, plus
/// uncommitted and untracked files in its worktree.
pub fn session_changes(dir: &Path, base: Option<&str>) -> Result<Vec<String>, String> {
    // No base (the main checkout releasing): uncommitted and untracked files are all there is,
    // and one `git status` lists both: one process instead of two (every release runs this).
    let Some(b) = base else {
        return run(dir, &GitLine::new(&UNCOMMITTED)).map(|out| status_paths(&out));
    };
    // The base is a user's or an agent's word: refused before any git starts if it is not one.
    let since_fork =
        GitLine::new(&["diff", "--name-only", "-z", "--no-renames", "--merge-base"]).operand(b);
    since_fork.argv()?;
    // Two git processes at once: untracked files, and the diff since the fork point — found by
    // the diff itself (`--merge-base`, one process instead of `git merge-base` and `git diff`).
    let others = GitLine::new(&["ls-files", "--others", "--exclude-standard", "-z"]);
    let untracked = started(dir, &others);
    let diff_head = GitLine::new(&["diff", "--name-only", "-z", "--no-renames", "HEAD"]);
    // No common history with the base: uncommitted changes only, as without a base.
    let mut files = run(dir, &since_fork).or_else(|_| run(dir, &diff_head))?;
    files.push('\0');
    files.push_str(&finish(untracked, &others)?);
    let mut list = nul_list(&files);
    list.sort();
    list.dedup();
    Ok(list)
}

/// [`session_changes`] of `repo`'s checkout. With no base, Rail reads what `git status` would
/// list itself where it can be sure of git's answer ([`crate::git::status`]), and asks git
/// otherwise.
pub fn session_changes_of(repo: &Repo, base: Option<&str>) -> Result<Vec<String>, String> {
    if base.is_none() && crate::faults::status_source() != Some("git") {
        let read = crate::git::status::uncommitted(repo);
        if crate::faults::status_source() == Some("explain") {
            match &read {
                Ok(_) => errln!("rail: status read by rail"),
                Err(why) => errln!("rail: status asked of git: {why}"),
            }
        }
        if let Ok(files) = read {
            return Ok(files);
        }
    }
    session_changes(&repo.worktree, base)
}

/// What `rail worktree` needs to know of one worktree, from three git processes run at once.
pub struct WorktreeState {
    /// Uncommitted changes: modified, staged, deleted, and untracked files that are not
    /// ignored (`git status --porcelain`; ignored files are nobody's work).
    pub uncommitted: Result<Vec<String>, String>,
    /// How many commits of HEAD are not in the base (`None`: no base given).
    pub not_in_base: Option<Result<u32, String>>,
    /// The commit HEAD is at.
    pub head: Option<String>,
}

const STATUS: [&str; 5] = [
    "status",
    "--porcelain=v1",
    "-z",
    "--untracked-files=all",
    "--ignore-submodules=none",
];
/// Uncommitted changes and untracked files of a release with no base (`--no-optional-locks`:
/// a release never writes git's index; a new repository without HEAD lists its staged files).
const UNCOMMITTED: [&str; 7] = [
    "--no-optional-locks",
    "status",
    "--porcelain=v1",
    "-z",
    "--untracked-files=all",
    "--no-renames",
    "--ignore-submodules=none",
];
const HEAD: [&str; 4] = ["rev-parse", "--verify", "--quiet", "HEAD"];

/// The state of the worktree at `dir`, its commits judged against `base`.
pub fn worktree_state(dir: &Path, base: Option<&str>) -> WorktreeState {
    let count_line = base.map(|b| {
        // `^BASE HEAD`, not `BASE..HEAD`: the base is checked as an operand of its own.
        GitLine::new(&["rev-list", "--count"])
            .operand(format!("^{b}"))
            .operand("HEAD")
    });
    let status_line = GitLine::new(&STATUS);
    let head_line = GitLine::new(&HEAD);
    let status = started(dir, &status_line);
    let count = count_line.map(|line| {
        let refused = base.map(rail_core::text::ident::validate_operand);
        (started(dir, &line), line, refused)
    });
    let head = started(dir, &head_line);
    let uncommitted = finish(status, &status_line).map(|out| status_paths(&out));
    let not_in_base = count.map(|(child, line, refused)| {
        if let Some(Err(e)) = refused {
            return Err(format!("the base: {e}"));
        }
        let out = finish(child, &line)?;
        out.trim()
            .parse::<u32>()
            .map_err(|_| format!("git rev-list --count printed `{}`", out.trim()))
    });
    let head = finish(head, &head_line)
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty());
    WorktreeState {
        uncommitted,
        not_in_base,
        head,
    }
}

/// What [`work_in`] found: the uncommitted paths, and the paths committed since the base.
pub type StationWork = (
    Result<Vec<String>, String>,
    Option<Result<Vec<String>, String>>,
);

/// A station's work in flight: the paths uncommitted there under `roots` (folders or files
/// relative to it; none: all of it; modified, staged, deleted, untracked and not ignored), and
/// all those its commits changed since they forked from `base` (`None`: not asked; all of
/// them, whatever `roots` says: the list is kept for the station's HEAD, whoever asks next).
/// Two processes at once, neither taking git's index lock.
pub fn work_in(dir: &Path, base: Option<&str>, roots: &[String]) -> StationWork {
    let status_line = GitLine::new(&UNCOMMITTED).paths(roots.iter().map(String::as_str));
    let status = started(dir, &status_line);
    let diff = base.map(|b| {
        let line = unmerged_line(b);
        (started(dir, &line), line)
    });
    let uncommitted = finish(status, &status_line).map(|out| status_paths(&out));
    let unmerged = diff.map(|(child, line)| finish(child, &line).map(|out| name_list(&out)));
    (uncommitted, unmerged)
}

/// The paths a station's commits changed since they forked from `base` (one git process).
pub fn unmerged_in(dir: &Path, base: &str) -> Result<Vec<String>, String> {
    let line = unmerged_line(base);
    finish(started(dir, &line), &line).map(|out| name_list(&out))
}

fn unmerged_line(base: &str) -> GitLine<'static> {
    GitLine::new(&[
        "--no-optional-locks",
        "diff",
        "--name-only",
        "-z",
        "--no-renames",
    ])
    .operand(format!("{base}...HEAD"))
}

/// `git … --name-only -z` output: the paths, sorted, each once.
fn name_list(out: &str) -> Vec<String> {
    let mut files: Vec<String> = out
        .split('\0')
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect();
    files.sort();
    files.dedup();
    files
}

/// The paths of `git status --porcelain=v1 -z`: entries are `XY path`; a rename or copy is
/// followed by its source path as an entry of its own.
fn status_paths(out: &str) -> Vec<String> {
    let mut files: Vec<String> = status_items(out)
        .into_iter()
        .map(|(_, path)| path.to_string())
        .collect();
    files.sort();
    files.dedup();
    files
}

/// The entries of `git status --porcelain=v1 -z`, each its `XY` and path; a rename's or copy's
/// source, which follows as an entry of its own, is skipped.
fn status_items(out: &str) -> Vec<(&str, &str)> {
    let mut items = Vec::new();
    let mut entries = out.split('\0').filter(|e| !e.is_empty());
    while let Some(entry) = entries.next() {
        let (xy, path) = (entry.get(..2).unwrap_or(""), entry.get(3..).unwrap_or(""));
        items.push((xy, path));
        if xy.contains('R') || xy.contains('C') {
            entries.next();
        }
    }
    items
}

/// A git process started in the background (stdin closed, output captured, as
/// `Command::output` does); [`finish`] waits for it and reads its result.
fn started(dir: &Path, line: &GitLine) -> Result<std::process::Child, String> {
    line::process(dir, line)?
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run git: {e}"))
}

/// stdout of a git process on success, a readable error otherwise.
fn finish(child: Result<std::process::Child, String>, line: &GitLine) -> Result<String, String> {
    let out = child?
        .wait_with_output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "git {} failed: {}",
            line.shown(),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// A git config value of the repository at `dir`.
pub fn config_get(dir: &Path, key: &str) -> Option<String> {
    run(dir, &GitLine::new(&["config", "--get"]).operand(key))
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

pub fn config_set(dir: &Path, key: &str, value: &str) -> Result<(), String> {
    run(dir, &GitLine::new(&["config"]).operand(key).operand(value)).map(|_| ())
}

/// Objects read one at a time by name (`<commit>`, `<rev>:<path>`), so a round reads the
/// shared ref's last commits and every machine's queue and decides what to read next from what
/// it read. An object named by its id is read from the repository's files in this process where
/// they hold it ([`objects::ObjectFiles`]: a round's reads were a dozen round trips to a
/// process that, on a busy machine, waits its turn for a core each time); everything else is
/// asked of one `git cat-file --batch` process, started when first needed.
pub struct CatFile {
    dir: std::path::PathBuf,
    /// The repository and its object files, when they are read in this process.
    files: Option<(repo::Repo, objects::ObjectFiles)>,
    batch: Option<Batch>,
}

/// The `git cat-file --batch` process.
struct Batch {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    out: std::io::BufReader<std::process::ChildStdout>,
}

impl std::fmt::Debug for CatFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CatFile")
            .field("dir", &self.dir)
            .field("pid", &self.batch.as_ref().map(|b| b.child.id()))
            .finish()
    }
}

/// An object read by [`CatFile::get`].
#[derive(Debug)]
pub enum Object {
    /// Not in the repository (or the name names nothing).
    Missing,
    /// Larger than the limit asked for: its bytes were skipped, not kept.
    TooLarge { size: usize },
    /// Its type (`commit`, `blob`, …) and bytes.
    Read { kind: String, bytes: Vec<u8> },
}

impl CatFile {
    /// Objects of the repository whose checkout (or git dir) is `dir`. Its files are read in
    /// this process only when nothing in the environment moves the repository or its objects.
    pub fn start(dir: &Path) -> Result<CatFile, String> {
        let files = objects::plain_objects()
            .then(|| repo::discover(dir))
            .flatten()
            .and_then(|r| {
                let files = objects::ObjectFiles::open(&r.common_dir)?;
                Some((r, files))
            });
        Ok(CatFile {
            dir: dir.to_path_buf(),
            files,
            batch: None,
        })
    }

    /// The object `name` names, keeping at most `limit` bytes of it.
    pub fn get(&mut self, name: &str, limit: usize) -> Result<Object, String> {
        if name.is_empty() || name.contains(['\n', '\r', '\0']) {
            return Ok(Object::Missing);
        }
        match self.read_here(name) {
            Some(Some((_, bytes))) if bytes.len() > limit => {
                return Ok(Object::TooLarge { size: bytes.len() })
            }
            Some(Some((kind, bytes))) => {
                return Ok(Object::Read {
                    kind: kind.name().to_string(),
                    bytes,
                })
            }
            Some(None) => return Ok(Object::Missing),
            None => {}
        }
        self.batch()?.get(name, limit)
    }

    /// `name` read from the files in this process: an object id, or `<rev>:<path>` where
    /// `<rev>` is a commit's id or a full ref name (`refs/…`) and `<path>` a plain path in its
    /// tree. `Some(None)`: there is surely no such object; `None`: git must say.
    fn read_here(&mut self, name: &str) -> Option<Option<(ObjectKind, Vec<u8>)>> {
        let (repo, files) = self.files.as_mut()?;
        let Some((rev, path)) = name.split_once(':') else {
            return files.object(&parse_hex(name.as_bytes())?).map(Some);
        };
        let parts: Vec<&str> = path.split('/').collect();
        if parts
            .iter()
            .any(|p| p.is_empty() || *p == "." || *p == "..")
        {
            return None;
        }
        let commit = match parse_hex(rev.as_bytes()) {
            Some(oid) => oid,
            None if rev.starts_with("refs/") => {
                match objects::resolve_ref(&repo.common_dir, rev)? {
                    Some(oid) => oid,
                    None => return Some(None),
                }
            }
            None => return None,
        };
        let mut at = files.commit_tree(&commit)?;
        for (i, part) in parts.iter().enumerate() {
            let entries = files.tree(&at)?;
            let Some(entry) = entries.iter().find(|e| e.name == *part) else {
                return Some(None);
            };
            let last = i + 1 == parts.len();
            if !last && !entry.is_tree() {
                return Some(None);
            }
            at = entry.oid;
        }
        files.object(&at).map(Some)
    }

    /// Writes `body` as an object of `kind` into the repository as `git hash-object -w` does:
    /// in this process where objects are read here and git's config leaves nothing to git
    /// (another hash, shared permissions, a fsync asked for). Its id, else `None`: ask git.
    pub fn write(&mut self, kind: ObjectKind, body: &[u8]) -> Option<String> {
        let (repo, _) = self.files.as_ref()?;
        let settings = config::files(repo, &self.dir)?;
        for name in [
            "extensions.objectformat",
            "core.sharedrepository",
            "core.fsync",
            "core.fsyncobjectfiles",
            "core.fsyncmethod",
            "core.loosecompression",
        ] {
            let key = rail_core::formats::gitconfig::Key::parse(name)?;
            if settings.lookup(&key) != rail_core::formats::gitconfig::Lookup::Unset {
                return None;
            }
        }
        objects::write_loose(&repo.common_dir, kind, body)
            .map(|id| rail_core::formats::gitobject::hex(&id))
    }

    fn batch(&mut self) -> Result<&mut Batch, String> {
        if self.batch.is_none() {
            self.batch = Some(Batch::start(&self.dir)?);
        }
        Ok(self.batch.as_mut().expect("started above"))
    }
}

impl Batch {
    fn start(dir: &Path) -> Result<Batch, String> {
        let mut child = line::process(dir, &GitLine::new(&["cat-file", "--batch"]))?
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot run git cat-file: {e}"))?;
        let stdin = child.stdin.take().ok_or("git cat-file: no stdin")?;
        let out = child.stdout.take().ok_or("git cat-file: no stdout")?;
        Ok(Batch {
            child,
            stdin,
            out: std::io::BufReader::new(out),
        })
    }

    fn get(&mut self, name: &str, limit: usize) -> Result<Object, String> {
        use std::io::{BufRead, Read, Write};
        let broken = |e: std::io::Error| format!("git cat-file: {e}");
        writeln!(self.stdin, "{name}").map_err(broken)?;
        self.stdin.flush().map_err(broken)?;
        let mut header = String::new();
        self.out.read_line(&mut header).map_err(broken)?;
        let mut fields = header.split_whitespace();
        let (Some(_), Some(kind), Some(size)) = (fields.next(), fields.next(), fields.next())
        else {
            // `<name> missing`, `<name> ambiguous`, or the process ended.
            if header.is_empty() {
                return Err("git cat-file ended early".into());
            }
            return Ok(Object::Missing);
        };
        let size: usize = size
            .parse()
            .map_err(|_| format!("git cat-file: bad header `{}`", header.trim()))?;
        let kind = kind.to_string();
        if size > limit {
            // Read past it in pieces: its size is the remote's choice.
            std::io::copy(
                &mut (&mut self.out).take(size as u64 + 1),
                &mut std::io::sink(),
            )
            .map_err(broken)?;
            return Ok(Object::TooLarge { size });
        }
        let mut bytes = vec![0; size + 1];
        self.out.read_exact(&mut bytes).map_err(broken)?;
        bytes.pop();
        Ok(Object::Read { kind, bytes })
    }
}

impl Drop for Batch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The refs `names` (a full name, or a folder ending in `/`) of the repository whose checkout is
/// `dir`, with their ids, as `git for-each-ref` lists them: read from the ref files, and asked
/// of git wherever they cannot be read plainly (or the checkout's `.git` is not its repository's
/// folder).
pub fn refs_of(dir: &Path, names: &[&str]) -> Result<Vec<(String, String)>, String> {
    let git_dir = dir.join(".git");
    let from_files = std::fs::symlink_metadata(&git_dir)
        .is_ok_and(|m| m.is_dir())
        .then(|| objects::refs_under(&git_dir, names))
        .flatten();
    if let Some(refs) = from_files {
        return Ok(refs);
    }
    let mut line = GitLine::new(&["for-each-ref", "--format=%(refname) %(objectname)"]);
    for name in names {
        line = line.operand(*name);
    }
    Ok(run(dir, &line)?
        .lines()
        .filter_map(|l| l.split_once(' '))
        .map(|(name, id)| (name.to_string(), id.to_string()))
        .collect())
}

/// How many files the checkout's index tracks (its header's count; 0 without an index).
pub fn tracked_count(repo: &Repo) -> u32 {
    let Ok(Some(file)) = crate::sys::railfile::open_read(&repo.git_dir.join("index")) else {
        return 0;
    };
    let mut head = [0u8; 12];
    use std::io::Read;
    match (&file).read_exact(&mut head) {
        Ok(()) => rail_core::formats::gitindex::count(&head),
        Err(_) => 0,
    }
}

/// For the unit tests that run real git (not under Wine, where the Windows build's unit tests
/// run without it).
#[cfg(all(test, unix))]
pub mod testing {
    use std::path::Path;
    use std::process::Command;

    /// `git ARGS` in `dir` as a fixed author; its output. Fails the test when git does.
    pub fn git(dir: &Path, args: &[&str]) -> String {
        let out = Command::new("git")
            .current_dir(dir)
            .args(["-c", "user.name=t", "-c", "user.email=t@e.invalid"])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}");
        String::from_utf8(out.stdout).unwrap()
    }

    /// Writes each (path, text) under `dir`, making folders as needed.
    pub fn write_files(dir: &Path, files: &[(&str, &str)]) {
        for (p, t) in files {
            std::fs::create_dir_all(dir.join(p).parent().unwrap()).unwrap();
            std::fs::write(dir.join(p), t).unwrap();
        }
    }
}
