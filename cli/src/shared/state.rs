//! A shared rail's state as a commit holds it: its tree walked (through the leader's one `git
//! cat-file` process where it can, `git ls-tree` where only git can tell) and the rail's files
//! read, each within the size Rail reads of a rail file; every other entry is foreign, never
//! read.

use std::collections::BTreeMap;
use std::path::Path;

use super::remote::RemoteError;
use crate::git;

/// A snapshot of the shared rail: the commit (None before the first operation) and its files.
#[derive(Clone, Debug)]
pub struct SharedState {
    pub commit: Option<String>,
    pub files: BTreeMap<String, String>,
    /// Entries of the tree that are not the rail's (stray files, submodule entries): never
    /// read, so a non-UTF-8 file or a gitlink cannot break an operation.
    pub foreign: Vec<String>,
}

/// Reads every file of a rail commit with git's own listing (`ls-tree`) and one `cat-file`
/// process, for a caller with no object reader of its own ([`read_commit_via`]).
pub fn read_commit(dir: &Path, commit: Option<&str>) -> Result<SharedState, RemoteError> {
    let Some(id) = commit else {
        return Ok(SharedState {
            commit: None,
            files: BTreeMap::new(),
            foreign: Vec::new(),
        });
    };
    let mut objects = git::CatFile::start(dir).map_err(RemoteError::Git)?;
    let listing = listing_by_git(dir, id)?;
    read_files(&mut objects, id, listing)
}

/// [`read_commit`] through a cat-file process a leader keeps for its rounds (`objects`): the
/// commit's tree walked in `git ls-tree -r`'s order and the rail's files read, with no process
/// of their own (a round's `ls-tree` and `cat-file` were two of the processes that bound a
/// busy machine's rounds). Where the objects hold what this walk does not follow (a name that
/// is not UTF-8, a tree not where the commit says), git's own listing answers.
pub fn read_commit_via(
    objects: &mut git::CatFile,
    dir: &Path,
    commit: Option<&str>,
) -> Result<SharedState, RemoteError> {
    let Some(id) = commit else {
        return read_commit(dir, commit);
    };
    let listing = match listing_via(objects, id).map_err(RemoteError::Git)? {
        Some(listing) => listing,
        None => listing_by_git(dir, id)?,
    };
    read_files(objects, id, listing)
}

/// Whether an entry of the shared ref's tree is one of the rail's files (a blob at a rail path);
/// every other entry is foreign, never read.
fn is_rail_file(path: &str, blob: bool) -> bool {
    blob && rail_core::formats::rail_files::rail_data_path(path).is_ok()
}

/// `git ls-tree -r` of commit `id`, as a [`Listing`].
fn listing_by_git(dir: &Path, id: &str) -> Result<Listing, RemoteError> {
    let listing = git::run(
        dir,
        &git::GitLine::new(&["ls-tree", "-r", "-z"]).operand(id),
    )
    .map_err(RemoteError::Git)?;
    let (mut entries, mut foreign) = (Vec::new(), Vec::new());
    for entry in listing.split('\0').filter(|e| !e.is_empty()) {
        let Some((meta, path)) = entry.split_once('\t') else {
            continue;
        };
        let mut meta = meta.split_whitespace();
        let kind = meta.nth(1).unwrap_or("");
        let sha = meta.next().unwrap_or("").to_string();
        if is_rail_file(path, kind == "blob") {
            entries.push((path.to_string(), sha));
        } else {
            foreign.push(path.to_string());
        }
    }
    Ok((entries, foreign))
}

/// The rail's files of a listing of commit `id`, read through `objects`: each UTF-8 and at most
/// the size Rail reads of a rail file.
fn read_files(
    objects: &mut git::CatFile,
    id: &str,
    (entries, foreign): Listing,
) -> Result<SharedState, RemoteError> {
    let limit = crate::sys::railfile::MAX_RAIL_BYTES as usize;
    let mut files = BTreeMap::new();
    for (path, oid) in entries {
        match objects.get(&oid, limit).map_err(RemoteError::Git)? {
            git::Object::Read { kind, bytes } if kind == "blob" => {
                let text = String::from_utf8(bytes).map_err(|_| {
                    RemoteError::Git(format!("{path} in the shared rail is not UTF-8"))
                })?;
                files.insert(path, text);
            }
            git::Object::TooLarge { size } => {
                return Err(RemoteError::Git(format!(
                    "{path} in the shared rail is {size} bytes, over the {} MiB Rail reads of a rail file",
                    limit / 1024 / 1024
                )))
            }
            _ => {
                return Err(RemoteError::Git(format!(
                    "{path} of the shared rail's commit {id} is not in this repository's objects"
                )))
            }
        }
    }
    Ok(SharedState {
        commit: Some(id.to_string()),
        files,
        foreign,
    })
}

/// The rail's files of commit `id` (path, blob id) and the other entries' paths, in `git
/// ls-tree -r`'s order; `None` where only git can tell.
type Listing = (Vec<(String, String)>, Vec<String>);

fn listing_via(objects: &mut git::CatFile, id: &str) -> Result<Option<Listing>, String> {
    use rail_core::formats::gitobject;
    // Deeper than any rail, and bounded whatever a tree holds.
    const MAX_DEPTH: usize = 64;
    const MAX_TREES: usize = 10_000;
    let git::Object::Read { kind, bytes } = objects.get(id, 1 << 20)? else {
        return Ok(None);
    };
    let tree = match (kind.as_str(), bytes.strip_prefix(b"tree ")) {
        ("commit", Some(rest)) => rest.get(..40).and_then(gitobject::parse_hex),
        _ => None,
    };
    let Some(tree) = tree else {
        return Ok(None);
    };
    let (mut entries, mut foreign) = (Vec::new(), Vec::new());
    // Depth first, each tree's entries in order: ls-tree -r's order.
    let mut stack: Vec<(String, std::vec::IntoIter<gitobject::TreeEntry>)> = Vec::new();
    let mut trees = 0;
    let mut open = |oid: &gitobject::Oid| -> Result<Option<Vec<gitobject::TreeEntry>>, String> {
        trees += 1;
        if trees > MAX_TREES {
            return Ok(None);
        }
        match objects.get(&gitobject::hex(oid), 16 << 20)? {
            git::Object::Read { kind, bytes } if kind == "tree" => {
                Ok(gitobject::tree_entries(&bytes))
            }
            _ => Ok(None),
        }
    };
    let Some(root) = open(&tree)? else {
        return Ok(None);
    };
    stack.push((String::new(), root.into_iter()));
    while let Some((prefix, items)) = stack.last_mut() {
        let Some(entry) = items.next() else {
            stack.pop();
            continue;
        };
        let path = format!("{prefix}{}", entry.name);
        if entry.is_tree() {
            if stack.len() >= MAX_DEPTH {
                return Ok(None);
            }
            let Some(sub) = open(&entry.oid)? else {
                return Ok(None);
            };
            stack.push((format!("{path}/"), sub.into_iter()));
            continue;
        }
        // A gitlink (a submodule's commit) is no blob; a link's target is one, as ls-tree says.
        if is_rail_file(&path, entry.mode != 0o160000) {
            entries.push((path, gitobject::hex(&entry.oid)));
        } else {
            foreign.push(path);
        }
    }
    Ok(Some((entries, foreign)))
}

#[cfg(all(test, unix))]
mod object_tests {
    use super::{listing_via, read_commit, read_commit_via};
    use crate::git::testing::{git, write_files};
    use crate::git::CatFile;

    /// A rail commit read through the leader's object reader is what git's ls-tree and
    /// cat-file read: the rail's files, and every other entry (a stray file, a nested folder, a
    /// link, a submodule) in ls-tree's order, also where folder and file names sort across
    /// each other.
    #[test]
    fn a_rail_commit_reads_as_ls_tree_and_cat_file_read_it() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        git(d, &["init", "-q"]);
        write_files(
            d,
            &[
                ("claims.md", "t1 | s1 | 2026-12-05T10:00Z\n"),
                ("claims.log", "line\n"),
                ("claims/s1.yaml", "task: t1\n"),
                ("claims/s2.yaml", "task: t2\n"),
                ("claims.md.txt", "a stray file\n"),
                ("claims-x/y.yaml", "not the rail's\n"),
                ("notes/deep/a.txt", "x\n"),
            ],
        );
        std::os::unix::fs::symlink("claims.md", d.join("link")).unwrap();
        git(d, &["add", "-A"]);
        git(d, &["commit", "-q", "-m", "rail"]);
        // A submodule's entry (a gitlink), as a merged branch can bring one.
        let head = git(d, &["rev-parse", "HEAD"]).trim().to_string();
        git(
            d,
            &[
                "update-index",
                "--add",
                "--cacheinfo",
                &format!("160000,{head},vendor/sub"),
            ],
        );
        git(d, &["commit", "-q", "-m", "gitlink"]);
        let commit = git(d, &["rev-parse", "HEAD"]).trim().to_string();
        let by_git = read_commit(d, Some(&commit)).unwrap();
        let mut objects = CatFile::start(d).unwrap();
        // Read by the objects themselves, not by the fallback to git.
        let (entries, foreign) = listing_via(&mut objects, &commit).unwrap().unwrap();
        assert_eq!((entries.len(), &foreign), (4, &by_git.foreign));
        let by_objects = read_commit_via(&mut objects, d, Some(&commit)).unwrap();
        assert_eq!(by_objects.files, by_git.files);
        assert_eq!(by_objects.foreign, by_git.foreign);
        assert_eq!(by_objects.files.len(), 4, "{:?}", by_objects.files.keys());
        assert!(by_objects.foreign.contains(&"vendor/sub".to_string()));
        // No commit: an empty rail, as before.
        assert!(read_commit_via(&mut objects, d, None)
            .unwrap()
            .files
            .is_empty());
    }
}
