//! The commit HEAD names and the trees it is made of, read from git's files without a process
//! (for [`crate::git::status`]): `HEAD`, loose refs and `packed-refs`, loose objects (inflated
//! here) and packs through their version 2 indexes, deltas applied by core's `gitobject`.
//! `None` wherever git would have to say: a ref store other than files, replace refs, an object
//! not found here (an alternate store, a version 1 pack index), anything malformed.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use rail_core::formats::gitobject::{self, Base, ObjectKind as Kind, Oid};

use crate::git::repo::Repo;

/// The most a loose object or a pack entry may inflate to here (trees and commits are far
/// smaller; a larger one is git's to read).
const MAX_OBJECT: u64 = 64 << 20;
/// Delta chains git writes are at most 50 deep by default.
const MAX_DEPTH: usize = 100;

/// What HEAD names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Head {
    /// A branch with no commit yet (a new repository).
    Unborn,
    Commit(Oid),
}

/// HEAD of `repo`'s checkout, as `git rev-parse HEAD` would resolve it.
pub fn head(repo: &Repo) -> Option<Head> {
    let text = read_small(&repo.git_dir.join("HEAD"))??;
    let mut target = match symbolic(&text) {
        Some(name) => name,
        None => return direct(&text).map(Head::Commit),
    };
    for _ in 0..5 {
        match read_small(&repo.common_dir.join(&target))? {
            Some(text) => match symbolic(&text) {
                Some(next) => target = next,
                None => return direct(&text).map(Head::Commit),
            },
            None => {
                return Some(match packed_ref(&repo.common_dir, &target)? {
                    Some(oid) => Head::Commit(oid),
                    None => Head::Unborn,
                })
            }
        }
    }
    None
}

/// The commit a full ref name (`refs/…`) points to in the common dir `git_dir`, following
/// symbolic refs as git does: `Some(None)` when there is no such ref; `None` wherever git must
/// say (the cases [`refs_under`] leaves to git, a ref file this does not read plainly).
pub fn resolve_ref(git_dir: &Path, name: &str) -> Option<Option<Oid>> {
    if !plain_refs(git_dir) {
        return None;
    }
    let mut target = symbolic(&format!("ref: {name}"))?;
    for _ in 0..5 {
        let path = git_dir.join(&target);
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.is_file() => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return packed_ref(git_dir, &target);
            }
            // A folder of refs (`refs/remotes/origin`) or a link: git's to say.
            _ => return None,
        }
        let text = read_small(&path)??;
        match symbolic(&text) {
            Some(next) => target = next,
            None => return direct(&text).map(Some),
        }
    }
    None
}

/// Writes `body` as a loose object of `kind` into the store of the common dir `git_dir` as
/// `git hash-object -w` does — deflated, written to a temporary file beside it, made read-only
/// and renamed to its id — and returns its id; `None`, with nothing left behind, wherever git
/// must write it (environment that moves the store, a link or anything not a folder where the
/// object's folder is, an error). What git's config says of writing objects (another hash,
/// shared permissions, a fsync) is the caller's to check first ([`crate::git::CatFile::write`]).
pub fn write_loose(git_dir: &Path, kind: Kind, body: &[u8]) -> Option<Oid> {
    if !plain_objects() {
        return None;
    }
    let id = gitobject::id(kind, body);
    let hex = gitobject::hex(&id);
    let store = git_dir.join("objects");
    let dir = store.join(&hex[..2]);
    let path = dir.join(&hex[2..]);
    let is_dir = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir());
    if !is_dir(&store) {
        return None;
    }
    match std::fs::symlink_metadata(&path) {
        // The same bytes under the same id: already written.
        Ok(m) if m.is_file() => return Some(id),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        _ => return None,
    }
    if !is_dir(&dir) {
        match std::fs::create_dir(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && is_dir(&dir) => {}
            Err(_) => return None,
        }
    }
    let mut raw = format!("{} {}\0", kind.name(), body.len()).into_bytes();
    raw.extend_from_slice(body);
    // git's own level for loose objects (`core.looseCompression` unset: the fastest).
    let deflated = miniz_oxide::deflate::compress_to_vec_zlib(&raw, 1);
    let tmp = dir.join(format!(
        "tmp_obj_rail_{}_{}",
        std::process::id(),
        &hex[2..10]
    ));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .and_then(|mut file| {
            use std::io::Write;
            file.write_all(&deflated)?;
            let mut perms = file.metadata()?.permissions();
            perms.set_readonly(true);
            file.set_permissions(perms)
        });
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
        return None;
    }
    match std::fs::rename(&tmp, &path) {
        Ok(()) => Some(id),
        Err(_) => {
            let _ = std::fs::remove_file(&tmp);
            // Another writer put the same object there first.
            std::fs::symlink_metadata(&path)
                .is_ok_and(|m| m.is_file())
                .then_some(id)
        }
    }
}

/// `ref: refs/...` names another ref: a plain path under `refs/`, or `None`.
fn symbolic(text: &str) -> Option<String> {
    let name = text.strip_prefix("ref:")?.trim();
    let plain = name.starts_with("refs/")
        && name
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != ".." && !c.contains('\\'));
    plain.then(|| name.to_string())
}

/// A ref file holding an id (and nothing but white space after it).
fn direct(text: &str) -> Option<Oid> {
    let text = text.trim_end();
    gitobject::parse_hex(text.as_bytes())
}

/// `name` in `packed-refs`: `Some(None)` when it is not there (or the file is missing).
fn packed_ref(common_dir: &Path, name: &str) -> Option<Option<Oid>> {
    let Some(text) = read_small(&common_dir.join("packed-refs"))? else {
        return Some(None);
    };
    for line in text.lines() {
        if line.starts_with('#') || line.starts_with('^') {
            continue;
        }
        let (oid, refname) = line.split_once(' ')?;
        if refname == name {
            return gitobject::parse_hex(oid.as_bytes()).map(Some);
        }
    }
    Some(None)
}

/// The refs named in `names` (a full name, or a folder ending in `/` for every ref under it)
/// with their ids, sorted by name as `git for-each-ref` lists them: loose refs in the common
/// dir `git_dir` over `packed-refs`. `None` wherever git would have to say: a ref store other
/// than files, environment that moves the repository, a symbolic ref, a ref file or name this
/// does not read plainly. Saves a process on every round of a shared rail.
pub fn refs_under(git_dir: &Path, names: &[&str]) -> Option<Vec<(String, String)>> {
    if !plain_refs(git_dir) {
        return None;
    }
    let wanted = |name: &str| {
        names.iter().any(|n| match n.strip_suffix('/') {
            Some(_) => name.starts_with(n),
            None => name == *n,
        })
    };
    let mut found = std::collections::BTreeMap::new();
    if let Some(text) = read_small(&git_dir.join("packed-refs"))? {
        for line in text.lines() {
            if line.starts_with('#') || line.starts_with('^') {
                continue;
            }
            let (oid, name) = line.split_once(' ')?;
            gitobject::parse_hex(oid.as_bytes())?;
            if wanted(name) {
                found.insert(name.to_string(), oid.to_string());
            }
        }
    }
    for name in names {
        let mut stack = vec![name.trim_end_matches('/').to_string()];
        while let Some(rel) = stack.pop() {
            let path = git_dir.join(&rel);
            let meta = match std::fs::symlink_metadata(&path) {
                Ok(m) => m,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(_) => return None,
            };
            if meta.is_dir() {
                for entry in std::fs::read_dir(&path).ok()? {
                    let entry = entry.ok()?;
                    let child = entry.file_name().into_string().ok()?;
                    // git's own lock files beside a ref being written.
                    if child.ends_with(".lock") {
                        continue;
                    }
                    stack.push(format!("{rel}/{child}"));
                }
            } else if meta.is_file() && wanted(&rel) {
                let text = read_small(&path)??;
                let oid = text.trim_end();
                gitobject::parse_hex(oid.as_bytes())?;
                found.insert(rel, oid.to_string());
            } else if !meta.is_file() {
                return None;
            }
        }
    }
    Some(found.into_iter().collect())
}

/// Environment that moves a repository, or its objects, away from where its files say.
const MOVED_BY: &[&str] = &["GIT_DIR", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY"];

fn any_set(names: &[&str]) -> bool {
    names.iter().any(|v| crate::sys::env::var_os(v).is_some())
}

/// Are the refs of the common dir `git_dir` plain files that Rail may read and write as git
/// does? Not with another ref store, or with environment that moves the repository.
fn plain_refs(git_dir: &Path) -> bool {
    !any_set(MOVED_BY) && !any_set(&["GIT_REF_PARANOIA"]) && !git_dir.join("reftable").exists()
}

/// May a repository's objects be read and written in its own files as git does? Not with
/// environment that moves them or adds other stores.
pub fn plain_objects() -> bool {
    !any_set(MOVED_BY) && !any_set(&["GIT_ALTERNATE_OBJECT_DIRECTORIES"])
}

/// Points the ref `name` (a plain name under `refs/`) of the common dir `git_dir` at the commit
/// `id` as `git update-ref` does with loose refs — `<ref>.lock` created exclusively, written,
/// renamed over the ref — without a process (a keyed shared rail records what it proved every
/// round). `false`, with nothing changed, wherever git must do it: the cases [`refs_under`]
/// leaves to git, a ref with a reflog (git appends to it), a symbolic ref, a link or anything
/// not a plain file or folder on the way, a lock held by another writer, any error.
pub fn write_ref(git_dir: &Path, name: &str, id: &str) -> bool {
    let plain_name = name.starts_with("refs/")
        && name.split('/').all(|c| {
            !c.is_empty()
                && !c.starts_with('.')
                && !c.ends_with(".lock")
                && c.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
        });
    if !plain_name || gitobject::parse_hex(id.as_bytes()).is_none() || !plain_refs(git_dir) {
        return false;
    }
    if std::fs::symlink_metadata(git_dir.join("logs").join(name)).is_ok() {
        return false;
    }
    let mut path = git_dir.to_path_buf();
    let parts: Vec<&str> = name.split('/').collect();
    for dir in &parts[..parts.len() - 1] {
        path.push(dir);
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.is_dir() => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if std::fs::create_dir(&path).is_err() {
                    return false;
                }
            }
            _ => return false,
        }
    }
    path.push(parts[parts.len() - 1]);
    match std::fs::symlink_metadata(&path) {
        // A symbolic ref (`ref: …`) is git's to follow.
        Ok(m) if m.is_file() => {
            if read_small(&path)
                .flatten()
                .and_then(|t| direct(&t))
                .is_none()
            {
                return false;
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        _ => return false,
    }
    let lock = path.with_file_name(format!("{}.lock", parts[parts.len() - 1]));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&lock)
        .map(|mut file| {
            use std::io::Write;
            file.write_all(format!("{id}\n").as_bytes())
        });
    match written {
        // Another writer holds the lock: git would fail too; it is left to git to say so.
        Err(_) => false,
        Ok(result) => {
            if result.and_then(|()| std::fs::rename(&lock, &path)).is_ok() {
                return true;
            }
            let _ = std::fs::remove_file(&lock);
            false
        }
    }
}

/// A small git file's text: `Some(None)` when missing, `None` when it cannot be read plainly.
fn read_small(path: &Path) -> Option<Option<String>> {
    match crate::sys::railfile::read_max(path, 1 << 20) {
        Ok(Some((bytes, _))) => String::from_utf8(bytes).ok().map(Some),
        Ok(None) => Some(None),
        Err(_) => None,
    }
}

/// The object store of a repository: loose objects and packs.
#[derive(Debug)]
pub struct ObjectFiles {
    dir: PathBuf,
    /// Each pack's index and pack file, opened on first use.
    packs: Vec<(PathBuf, Option<(File, File)>)>,
}

impl ObjectFiles {
    /// The store in `common_dir`; `None` when replace refs could swap an object for another.
    pub fn open(common_dir: &Path) -> Option<ObjectFiles> {
        let replace = common_dir.join("refs").join("replace");
        if std::fs::read_dir(&replace).is_ok_and(|mut d| d.next().is_some()) {
            return None;
        }
        if let Some(text) = read_small(&common_dir.join("packed-refs"))? {
            if text.contains(" refs/replace/") {
                return None;
            }
        }
        let dir = common_dir.join("objects");
        let mut packs: Vec<PathBuf> = match std::fs::read_dir(dir.join("pack")) {
            Ok(entries) => entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "idx"))
                .collect(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(_) => return None,
        };
        packs.sort();
        Some(ObjectFiles {
            dir,
            packs: packs.into_iter().map(|p| (p, None)).collect(),
        })
    }

    /// The tree of the commit `oid`.
    pub fn commit_tree(&mut self, oid: &Oid) -> Option<Oid> {
        match self.read(oid, 0)? {
            (Kind::Commit, body) => gitobject::commit_tree(&body),
            _ => None,
        }
    }

    /// When the commit `oid` was committed (seconds since 1970).
    pub fn commit_time(&mut self, oid: &Oid) -> Option<i64> {
        match self.read(oid, 0)? {
            (Kind::Commit, body) => gitobject::commit_time(&body),
            _ => None,
        }
    }

    /// The entries of the tree `oid`.
    pub fn tree(&mut self, oid: &Oid) -> Option<Vec<gitobject::TreeEntry>> {
        match self.read(oid, 0)? {
            (Kind::Tree, body) => gitobject::tree_entries(&body),
            _ => None,
        }
    }

    /// The object `oid`: its kind and bytes; `None` where only git can say (not in these
    /// files — a pack written since they were opened, an alternate store — or beyond this
    /// reader).
    pub fn object(&mut self, oid: &Oid) -> Option<(Kind, Vec<u8>)> {
        self.read(oid, 0)
    }

    fn read(&mut self, oid: &Oid, depth: usize) -> Option<(Kind, Vec<u8>)> {
        if depth > MAX_DEPTH {
            return None;
        }
        let hex = gitobject::hex(oid);
        let loose = self.dir.join(&hex[..2]).join(&hex[2..]);
        match crate::sys::railfile::read_max(&loose, MAX_OBJECT) {
            Ok(Some((bytes, _))) => {
                let inflated = inflate(&bytes, MAX_OBJECT as usize + 64)?;
                let (kind, body) = gitobject::loose(&inflated)?;
                return Some((kind, body.to_vec()));
            }
            Ok(None) => {}
            Err(_) => return None,
        }
        for i in 0..self.packs.len() {
            if let Some(offset) = self.find(i, oid)? {
                return self.entry(i, offset, depth);
            }
        }
        None
    }

    /// The offset of `oid` in pack `i` (`Some(None)`: not in it), by binary search over its
    /// index's sorted ids.
    fn find(&mut self, i: usize, oid: &Oid) -> Option<Option<u64>> {
        let (idx_path, open) = &mut self.packs[i];
        if open.is_none() {
            let idx = File::open(&*idx_path).ok()?;
            let pack = File::open(idx_path.with_extension("pack")).ok()?;
            *open = Some((idx, pack));
        }
        let (idx, _) = open.as_mut()?;
        let head = read_at(idx, 0, 8 + 256 * 4)?;
        let (total, range) = gitobject::idx_range(&head, oid[0])?;
        let (ids, offsets, large) = gitobject::idx_tables(total);
        let (mut lo, mut hi) = (range.start, range.end);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let id = read_at(idx, ids + 20 * u64::from(mid), 20)?;
            match id.as_slice().cmp(oid.as_slice()) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    let word = read_at(idx, offsets + 4 * u64::from(mid), 4)?;
                    let small = u32::from_be_bytes(word.try_into().ok()?);
                    if small & 0x8000_0000 == 0 {
                        return Some(Some(u64::from(small)));
                    }
                    let at = large + 8 * u64::from(small & 0x7fff_ffff);
                    let word = read_at(idx, at, 8)?;
                    return Some(Some(u64::from_be_bytes(word.try_into().ok()?)));
                }
            }
        }
        Some(None)
    }

    /// The object at `offset` in pack `i`, its delta (if one) applied to its base.
    fn entry(&mut self, i: usize, offset: u64, depth: usize) -> Option<(Kind, Vec<u8>)> {
        if depth > MAX_DEPTH {
            return None;
        }
        let (_, pack) = self.packs[i].1.as_mut()?;
        let head = read_up_to(pack, offset, 32)?;
        let e = gitobject::pack_entry(&head, offset)?;
        if e.size > MAX_OBJECT {
            return None;
        }
        // zlib adds at most a few bytes per 16 KiB block and a small header and trailer.
        let room = e.size + e.size / 1000 + 64;
        let data = read_up_to(pack, offset + e.data_at as u64, room)?;
        let body = inflate(&data, e.size as usize)?;
        if body.len() as u64 != e.size {
            return None;
        }
        match (e.kind, e.base) {
            (Some(kind), None) => Some((kind, body)),
            (None, Some(Base::Offset(at))) => {
                let (kind, base) = self.entry(i, at, depth + 1)?;
                Some((kind, gitobject::apply_delta(&base, &body)?))
            }
            (None, Some(Base::Id(oid))) => {
                let (kind, base) = self.read(&oid, depth + 1)?;
                Some((kind, gitobject::apply_delta(&base, &body)?))
            }
            _ => None,
        }
    }
}

/// zlib data inflated, at most `limit` bytes of it (bytes after the stream's end are left).
fn inflate(data: &[u8], limit: usize) -> Option<Vec<u8>> {
    miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(data, limit).ok()
}

/// Exactly `len` bytes of `file` at `at`.
fn read_at(file: &mut File, at: u64, len: usize) -> Option<Vec<u8>> {
    let mut buf = vec![0u8; len];
    file.seek(SeekFrom::Start(at)).ok()?;
    file.read_exact(&mut buf).ok()?;
    Some(buf)
}

/// Up to `len` bytes of `file` at `at` (fewer at the file's end).
fn read_up_to(file: &mut File, at: u64, len: u64) -> Option<Vec<u8>> {
    let mut buf = Vec::new();
    file.seek(SeekFrom::Start(at)).ok()?;
    file.take(len).read_to_end(&mut buf).ok()?;
    Some(buf)
}

// They run real git: not under Wine, where the Windows build's unit tests run without it.
#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::git::testing::git;

    fn listed(d: &Path, names: &[&str]) -> Vec<(String, String)> {
        let mut args = vec!["for-each-ref", "--format=%(refname) %(objectname)"];
        args.extend(names);
        git(d, &args)
            .lines()
            .map(|l| {
                let (n, o) = l.split_once(' ').unwrap();
                (n.to_string(), o.to_string())
            })
            .collect()
    }

    /// Refs read from the files list as `git for-each-ref` lists them: loose, packed, a loose
    /// one over its packed copy, deleted ones gone, a lock file beside a ref passed over.
    #[test]
    fn refs_read_as_for_each_ref_lists_them() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        git(d, &["init", "-q"]);
        git(d, &["commit", "-q", "--allow-empty", "-m", "one"]);
        let one = git(d, &["rev-parse", "HEAD"]).trim().to_string();
        git(d, &["commit", "-q", "--allow-empty", "-m", "two"]);
        let two = git(d, &["rev-parse", "HEAD"]).trim().to_string();
        let names = [
            "refs/rail/fetched",
            "refs/rail/queues/",
            "refs/rail/seen-fetched/",
        ];
        let check = |step: &str| {
            assert_eq!(
                refs_under(&d.join(".git"), &names).as_deref(),
                Some(&listed(d, &names)[..]),
                "{step}"
            );
        };
        check("no refs yet");
        git(d, &["update-ref", "refs/rail/fetched", &one]);
        git(d, &["update-ref", "refs/rail/queues/vm-b", &one]);
        git(d, &["update-ref", "refs/rail/queues/vm-a", &two]);
        git(d, &["update-ref", "refs/rail/queue/not-listed", &two]);
        git(d, &["update-ref", "refs/rail/fetchedx", &two]);
        check("loose");
        git(d, &["pack-refs", "--all"]);
        check("packed");
        git(d, &["update-ref", "refs/rail/queues/vm-b", &two]);
        git(d, &["update-ref", "refs/rail/seen-fetched/laptop", &one]);
        git(d, &["update-ref", "-d", "refs/rail/queues/vm-a"]);
        std::fs::write(
            d.join(".git/refs/rail/queues/vm-c.lock"),
            format!("{one}\n"),
        )
        .unwrap();
        check("loose over packed, one deleted, a lock file");
        // A ref this does not read plainly is git's to list.
        std::fs::write(
            d.join(".git/refs/rail/queues/vm-d"),
            "ref: refs/heads/main\n",
        )
        .unwrap();
        assert_eq!(refs_under(&d.join(".git"), &names), None);
    }

    /// A ref written in this process reads back through git as `git update-ref` would have
    /// left it — new, over a loose one, over a packed one — and git can move it on after; where
    /// git must write (a lock held, a symbolic ref, a reflog, a link on the way, a bad name or
    /// id) nothing is changed and the caller is told to ask git.
    #[test]
    fn a_ref_written_here_is_the_ref_git_reads() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let g = d.join(".git");
        git(d, &["init", "-q"]);
        git(d, &["commit", "-q", "--allow-empty", "-m", "one"]);
        let one = git(d, &["rev-parse", "HEAD"]).trim().to_string();
        git(d, &["commit", "-q", "--allow-empty", "-m", "two"]);
        let two = git(d, &["rev-parse", "HEAD"]).trim().to_string();
        let at = |name: &str| git(d, &["rev-parse", "--verify", name]).trim().to_string();
        const NAME: &str = "refs/rail/proven";

        assert!(write_ref(&g, NAME, &one), "a new ref, its folder made");
        assert_eq!(at(NAME), one);
        assert!(write_ref(&g, NAME, &two), "over a loose ref");
        assert_eq!(at(NAME), two);
        git(d, &["pack-refs", "--all"]);
        assert!(!g.join(NAME).exists());
        assert!(write_ref(&g, NAME, &one), "over a packed ref");
        assert_eq!(at(NAME), one);
        git(d, &["update-ref", NAME, &two, &one]);
        assert_eq!(at(NAME), two, "git moves it on: no lock left behind");

        let unchanged = |why: &str, name: &str, id: &str| {
            assert!(!write_ref(&g, name, id), "{why}");
            assert_eq!(at(NAME), two, "{why}");
        };
        std::fs::write(g.join("refs/rail/proven.lock"), "").unwrap();
        unchanged("a lock held", NAME, &one);
        std::fs::remove_file(g.join("refs/rail/proven.lock")).unwrap();
        unchanged("not a ref name", "refs/rail/../proven", &one);
        unchanged("a lock's name", "refs/rail/proven.lock", &one);
        unchanged("not under refs/", "HEAD", &one);
        unchanged("not an id", NAME, "main");
        std::fs::create_dir_all(g.join("logs/refs/rail")).unwrap();
        std::fs::write(g.join("logs/refs/rail/proven"), "").unwrap();
        unchanged("a reflog git appends to", NAME, &one);
        std::fs::remove_dir_all(g.join("logs/refs/rail")).unwrap();
        std::fs::write(g.join("refs/rail/sym"), "ref: refs/heads/main\n").unwrap();
        unchanged("a symbolic ref", "refs/rail/sym", &one);
        let elsewhere = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), g.join("refs/linked")).unwrap();
        unchanged("a link on the way", "refs/linked/proven", &one);
        assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
        assert!(write_ref(&g, NAME, &one), "and then it writes again");
        assert_eq!(at(NAME), one);
    }

    /// Objects read by id from the files in this process are the ones `git cat-file` prints,
    /// loose and packed (deltas applied); a name only git resolves (`<rev>:<path>`) and an id
    /// the files do not hold go to git; a limit is kept either way.
    #[test]
    fn objects_read_here_are_the_ones_git_prints() {
        use crate::git::{CatFile, Object};
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        git(d, &["init", "-q", "-b", "main"]);
        std::fs::create_dir(d.join(".rail")).unwrap();
        std::fs::write(d.join(".rail/allowed-signers"), "vm-a ssh-ed25519 AAAA\n").unwrap();
        git(d, &["add", ".rail"]);
        let mut ids = Vec::new();
        for round in 0..3 {
            let text: String = (0..200)
                .map(|i| format!("line {i} of round {round}\n"))
                .collect();
            std::fs::write(d.join("claims.md"), text).unwrap();
            git(d, &["add", "claims.md"]);
            git(d, &["commit", "-q", "-m", &format!("round {round}")]);
            let head = git(d, &["rev-parse", "HEAD"]).trim().to_string();
            ids.push(head.clone());
            ids.push(git(d, &["rev-parse", "HEAD^{tree}"]).trim().to_string());
            ids.push(git(d, &["rev-parse", "HEAD:claims.md"]).trim().to_string());
        }
        let printed = |id: &str| {
            let kind = git(d, &["cat-file", "-t", id]).trim().to_string();
            let out = std::process::Command::new("git")
                .current_dir(d)
                .args(["cat-file", &kind, id])
                .output()
                .unwrap();
            (kind, out.stdout)
        };
        let check = |step: &str, in_process: bool| {
            let mut objects = CatFile::start(d).unwrap();
            for id in &ids {
                match objects.get(id, 1 << 20).unwrap() {
                    Object::Read { kind, bytes } => {
                        assert_eq!((kind, bytes), printed(id), "{step}: {id}")
                    }
                    other => panic!("{step}: {id}: {other:?}"),
                }
            }
            // By path in a commit named by id or by a ref, the ref symbolic or not; a path or
            // a ref that is not there is surely missing.
            let tip = &ids[ids.len() - 3];
            let blob = printed(&format!("{tip}:.rail/allowed-signers"));
            for name in [
                format!("{tip}:.rail/allowed-signers"),
                "refs/heads/main:.rail/allowed-signers".to_string(),
                "refs/remotes/origin/HEAD:.rail/allowed-signers".to_string(),
            ] {
                match objects.get(&name, 1 << 20).unwrap() {
                    Object::Read { kind, bytes } => {
                        assert_eq!((kind, bytes), blob, "{step}: {name}")
                    }
                    other => panic!("{step}: {name}: {other:?}"),
                }
            }
            for name in [
                format!("{tip}:.rail/nothing"),
                format!("{tip}:claims.md/below"),
                "refs/remotes/origin/gone:.rail/allowed-signers".to_string(),
            ] {
                let got = objects.get(&name, 1 << 20).unwrap();
                assert!(matches!(got, Object::Missing), "{step}: {name}");
            }
            assert_eq!(
                objects.batch.is_none(),
                in_process,
                "{step}: read without git"
            );
            let claims = git(d, &["rev-parse", "HEAD:claims.md"]).trim().to_string();
            assert!(matches!(
                objects.get(&claims, 10).unwrap(),
                Object::TooLarge { .. }
            ));
            let by_git = objects.get("HEAD:claims.md", 1 << 20).unwrap();
            assert!(matches!(by_git, Object::Read { ref kind, .. } if kind == "blob"));
            assert!(objects.batch.is_some(), "{step}: HEAD is git's to resolve");
            let unknown = "0123456789abcdef0123456789abcdef01234567";
            assert!(matches!(
                objects.get(unknown, 1 << 20).unwrap(),
                Object::Missing
            ));
        };
        git(d, &["update-ref", "refs/remotes/origin/main", "main"]);
        git(
            d,
            &[
                "symbolic-ref",
                "refs/remotes/origin/HEAD",
                "refs/remotes/origin/main",
            ],
        );
        check("loose", true);
        git(d, &["gc", "-q", "--aggressive"]);
        assert!(
            std::fs::read_dir(d.join(".git/objects/pack"))
                .unwrap()
                .count()
                > 0
        );
        check("packed, with deltas", true);
    }

    /// An object written in this process is the one `git hash-object -w` writes: the same id,
    /// read back by git, checked whole by `git fsck`; written twice, it is there once; where
    /// git's config has a say in writing objects, git is left to write it.
    #[test]
    fn an_object_written_here_is_the_one_git_writes() {
        use crate::git::CatFile;
        let dir = tempfile::tempdir().unwrap();
        let d = &dir.path().canonicalize().unwrap();
        git(d, &["init", "-q"]);
        git(d, &["commit", "-q", "--allow-empty", "-m", "one"]);
        let head = git(d, &["cat-file", "commit", "HEAD"]);
        let body = head.replace("one\n", "one, rewritten here\n");
        let mut objects = CatFile::start(d).unwrap();
        let id = objects
            .write(Kind::Commit, body.as_bytes())
            .expect("written here");
        std::fs::write(d.join("body"), &body).unwrap();
        let by_git = git(d, &["hash-object", "-t", "commit", "body"]);
        assert_eq!(id, by_git.trim());
        assert_eq!(git(d, &["cat-file", "commit", &id]), body);
        git(d, &["update-ref", "refs/rail/written", &id]);
        git(d, &["fsck", "--strict", "--no-dangling"]);
        assert_eq!(
            objects.write(Kind::Commit, body.as_bytes()),
            Some(id.clone())
        );
        let folder = d.join(".git/objects").join(&id[..2]);
        let names: Vec<String> = std::fs::read_dir(&folder)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, [id[2..].to_string()], "no temporary file left");
        git(d, &["config", "core.sharedRepository", "group"]);
        assert_eq!(
            objects.write(Kind::Blob, b"shared\n"),
            None,
            "git's to write"
        );
    }
}
