//! git's index, read as git reads it, without a process: the stage-0 entries under some
//! folders (versions 2 to 4, SHA-1 ids) and git's own test of whether a file is the one the
//! index recorded (its stat data, and a change before the index was written, else "racily
//! clean": not trusted). The after-tool check uses it to know which files are unchanged, whose
//! prior content is then their blob. Hosts read the index file's bytes and its time.

use crate::formats::gitobject::{self, Oid};

/// One entry of git's index: what git last saw of a tracked file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Indexed {
    pub oid: String,
    pub size: u32,
    pub mtime: (u32, u32),
    pub ctime: (u32, u32),
    pub ino: u32,
}

/// The index's entries by path, and when it was written (seconds, nanoseconds).
pub type Index = (Vec<(String, Indexed)>, (i64, i64));

/// How many entries an index says it has, from its first 12 bytes; 0 for anything else.
pub fn count(head: &[u8]) -> u32 {
    match head.get(..12) {
        Some(h) if &h[..4] == b"DIRC" => u32::from_be_bytes([h[8], h[9], h[10], h[11]]),
        _ => 0,
    }
}

/// The stage-0 entries of an index's `bytes` under `roots` (folders relative to the worktree,
/// `""` for all of it), in the index's order (sorted by path); `None` for bytes that are not an
/// index of version 2 to 4 or end early. Conflicted, intent-to-add and skip-worktree entries
/// are left out: they are not a clean file's blob; so are names that are not UTF-8.
pub fn entries(bytes: &[u8], roots: &[String]) -> Option<Vec<(String, Indexed)>> {
    let prefixes: Vec<String> = roots.iter().map(|r| format!("{r}/")).collect();
    let whole = roots.iter().any(String::is_empty);
    let under = |p: &[u8]| whole || prefixes.iter().any(|r| p.starts_with(r.as_bytes()));
    // Only the roots' names are made into entries: a snapshot of a few directories does not
    // pay for the whole index.
    let index = read_only(bytes, &under)?;
    Some(
        index
            .entries
            .into_iter()
            .filter(|e| e.stage == 0 && !e.skip_worktree && !e.intent_to_add)
            .map(|e| {
                let indexed = Indexed {
                    oid: gitobject::hex(&e.oid),
                    size: e.size,
                    mtime: e.mtime,
                    ctime: e.ctime,
                    ino: e.ino,
                };
                (e.path, indexed)
            })
            .collect(),
    )
}

/// One entry of git's index, all of what git recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexEntry {
    pub path: String,
    /// `0o100644`, `0o100755`, `0o120000` (a link) or `0o160000` (a submodule).
    pub mode: u32,
    pub oid: Oid,
    pub ctime: (u32, u32),
    pub mtime: (u32, u32),
    pub dev: u32,
    pub ino: u32,
    pub uid: u32,
    pub gid: u32,
    pub size: u32,
    /// 0, or 1 to 3 for the sides of a conflict.
    pub stage: u8,
    /// `git update-index --assume-unchanged`.
    pub assume_valid: bool,
    /// Outside a sparse checkout (`--skip-worktree`).
    pub skip_worktree: bool,
    /// `git add --intent-to-add`.
    pub intent_to_add: bool,
}

/// One directory of the cache-tree extension (`TREE`), in the extension's pre-order: its name
/// (the root's is empty), how many index entries it covers (negative: invalidated since it
/// was written), how many subdirectories follow, and its tree's id while valid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeNode {
    pub name: String,
    pub entries: i64,
    pub subtrees: usize,
    pub oid: Option<Oid>,
}

/// An index as read: its entries in order, its cache-tree, and what in it only git can follow.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IndexFile {
    pub entries: Vec<IndexEntry>,
    pub tree: Vec<TreeNode>,
    /// Set when the file holds something this reader does not follow: a split index, a sparse
    /// index's directory entries, file-system monitor data, an extension git requires readers
    /// to know, an entry name that is not UTF-8 (left out of `entries`) or that git would refuse
    /// (`..`, `.git`, an empty name).
    pub asks_git: Option<&'static str>,
}

/// An index file's `bytes` read as git reads them (versions 2 to 4, SHA-1 ids); `None` for
/// bytes that are not one or end early. The trailing checksum is not verified.
pub fn read(bytes: &[u8]) -> Option<IndexFile> {
    read_only(bytes, &|_| true)
}

/// [`read`], keeping only the entries whose name `keep` accepts (the others are passed over
/// as they are met: no name made, none judged).
fn read_only(bytes: &[u8], keep: &dyn Fn(&[u8]) -> bool) -> Option<IndexFile> {
    let be32 = |at: usize| -> Option<u32> {
        Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
    };
    if bytes.get(..4)? != b"DIRC" {
        return None;
    }
    let version = be32(4)?;
    if !(2..=4).contains(&version) {
        return None;
    }
    let count = be32(8)? as usize;
    let mut out = IndexFile::default();
    let mut at = 12;
    let mut prev: Vec<u8> = Vec::new();
    for _ in 0..count {
        let word = |i: usize| be32(at + 4 * i);
        let oid: Oid = bytes.get(at + 40..at + 60)?.try_into().ok()?;
        let flags = u16::from_be_bytes(bytes.get(at + 60..at + 62)?.try_into().ok()?);
        let extended = version >= 3 && flags & 0x4000 != 0;
        let more = if extended {
            u16::from_be_bytes(bytes.get(at + 62..at + 64)?.try_into().ok()?)
        } else {
            0
        };
        let stat = [
            word(0)?,
            word(1)?,
            word(2)?,
            word(3)?,
            word(4)?,
            word(5)?,
            word(6)?,
            word(7)?,
            word(8)?,
            word(9)?,
        ];
        let mut p = at + 62 + if extended { 2 } else { 0 };
        let name: &[u8];
        if version == 4 {
            // A varint of bytes to drop from the previous name, then the rest, NUL-ended.
            let mut strip: usize = 0;
            loop {
                let b = *bytes.get(p)?;
                p += 1;
                strip = strip.checked_shl(7)? | usize::from(b & 0x7f);
                if b & 0x80 == 0 {
                    break;
                }
                strip = strip.checked_add(1)?;
            }
            let end = p + bytes.get(p..)?.iter().position(|b| *b == 0)?;
            let shared = prev.len().checked_sub(strip)?;
            prev.truncate(shared);
            prev.extend_from_slice(&bytes[p..end]);
            name = &prev;
            at = end + 1;
        } else {
            let end = p + bytes.get(p..)?.iter().position(|b| *b == 0)?;
            name = &bytes[p..end];
            // Padded with NULs to a multiple of eight bytes.
            let len = end - at;
            at += (len + 8) & !7;
        }
        if !keep(name) {
            continue;
        }
        let Ok(path) = String::from_utf8(name.to_vec()) else {
            out.asks_git = Some("a file name that is not UTF-8");
            continue;
        };
        // git never writes such a path (its `verify_path`): a hand-made or hostile index.
        if path
            .split('/')
            .any(|c| c.is_empty() || c == "." || c == ".." || c.eq_ignore_ascii_case(".git"))
        {
            out.asks_git = Some("an index path git would refuse");
        }
        out.entries.push(IndexEntry {
            path,
            ctime: (stat[0], stat[1]),
            mtime: (stat[2], stat[3]),
            dev: stat[4],
            ino: stat[5],
            mode: stat[6],
            uid: stat[7],
            gid: stat[8],
            size: stat[9],
            oid,
            stage: ((flags >> 12) & 3) as u8,
            assume_valid: flags & 0x8000 != 0,
            skip_worktree: more & 0x4000 != 0,
            intent_to_add: more & 0x2000 != 0,
        });
    }
    // Extensions, up to the 20-byte checksum: a signature, a size, the data.
    let end = bytes.len().checked_sub(20)?;
    while at < end {
        let sig = bytes.get(at..at + 4)?;
        let size = be32(at + 4)? as usize;
        let data = bytes.get(at + 8..(at + 8).checked_add(size)?)?;
        if at + 8 + size > end {
            return None;
        }
        match sig {
            b"TREE" => match cache_tree(data) {
                Some(tree) => out.tree = tree,
                None => out.asks_git = Some("a cache-tree this reader does not follow"),
            },
            b"link" => out.asks_git = Some("a split index"),
            b"sdir" => out.asks_git = Some("a sparse index"),
            b"FSMN" => out.asks_git = Some("file-system monitor data"),
            // Optional extensions start with a capital: a reader may leave them.
            [b'A'..=b'Z', ..] => {}
            _ => out.asks_git = Some("an index extension this reader does not know"),
        }
        at += 8 + size;
    }
    Some(out)
}

/// The cache-tree extension's directories: name NUL, `entries subtrees` LF, then the id while
/// `entries` is not negative.
fn cache_tree(mut data: &[u8]) -> Option<Vec<TreeNode>> {
    let mut out = Vec::new();
    while !data.is_empty() {
        let nul = data.iter().position(|b| *b == 0)?;
        let name = std::str::from_utf8(&data[..nul]).ok()?.to_string();
        data = &data[nul + 1..];
        let lf = data.iter().position(|b| *b == b'\n')?;
        let (entries, subtrees) = std::str::from_utf8(&data[..lf]).ok()?.split_once(' ')?;
        let (entries, subtrees): (i64, usize) = (entries.parse().ok()?, subtrees.parse().ok()?);
        data = &data[lf + 1..];
        let oid = if entries >= 0 {
            let oid: Oid = data.get(..20)?.try_into().ok()?;
            data = &data[20..];
            Some(oid)
        } else {
            None
        };
        out.push(TreeNode {
            name,
            entries,
            subtrees,
            oid,
        });
    }
    Some(out)
}

/// What the host found at an entry's path (`lstat`: no link followed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnDisk {
    /// Nothing there, or a link among the folders above it (git counts the file as removed).
    Missing,
    Dir,
    File(FileStat),
    Link(FileStat),
    /// A FIFO, a socket, a device.
    Other,
}

/// A file's stat data, as git records it in the index (each field is compared in 32 bits).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FileStat {
    pub size: u64,
    /// Seconds and nanoseconds.
    pub mtime: (i64, u32),
    pub ctime: (i64, u32),
    pub dev: u64,
    pub ino: u64,
    pub uid: u32,
    pub gid: u32,
    /// The permission bits (`st_mode & 0o777`).
    pub perm: u32,
}

/// git's verdict on an entry against the file found at its path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatusVerdict {
    /// `git status` does not list it.
    Unchanged,
    /// `git status` lists it.
    Changed,
    /// Only the content can tell: the file's (or link's) blob id against the entry's, as git
    /// compares them (for a file, exact only where no attribute or `core.autocrlf` converts it).
    CompareContent,
    /// Something only git follows: a submodule, an entry outside a sparse checkout or marked
    /// assume-unchanged, a mode git does not write.
    AskGit,
}

/// How `git status` judges one index entry against what is at its path: git refreshes the
/// index in memory (read-cache.c, `ie_match_stat` then `ie_modified`), then lists what is still
/// not up to date. `index_mtime` is when the index file was written; `filemode` is
/// `core.filemode` (whether the executable bit counts).
///
/// Stricter than git where that is safe: every stat field is compared, so a difference git
/// would overlook only sends the file to the content comparison, whose answer is git's. An
/// entry is racily clean when it was written in the same second as the index or later (git's
/// test when built without nanosecond times, and a superset of it when built with them):
/// content again. Nanoseconds count when the index recorded them.
pub fn verdict(
    e: &IndexEntry,
    found: &OnDisk,
    index_mtime: (i64, u32),
    filemode: bool,
) -> StatusVerdict {
    if e.stage != 0 || e.intent_to_add {
        return StatusVerdict::Changed;
    }
    if e.skip_worktree || e.assume_valid {
        return StatusVerdict::AskGit;
    }
    let (fs, link) = match (e.mode, found) {
        (0o160000, _) => return StatusVerdict::AskGit,
        (0o100644 | 0o100755 | 0o120000, OnDisk::Missing | OnDisk::Dir | OnDisk::Other) => {
            return StatusVerdict::Changed
        }
        (0o100644 | 0o100755, OnDisk::Link(_)) | (0o120000, OnDisk::File(_)) => {
            return StatusVerdict::Changed
        }
        (0o100644 | 0o100755, OnDisk::File(fs)) => (fs, false),
        (0o120000, OnDisk::Link(fs)) => (fs, true),
        _ => return StatusVerdict::AskGit,
    };
    if !link && filemode && (e.mode ^ fs.perm) & 0o100 != 0 {
        return StatusVerdict::Changed;
    }
    let ns = e.mtime.1 != 0 || e.ctime.1 != 0;
    let same_time = |(s, n): (i64, u32), (es, en): (u32, u32)| s as u32 == es && (!ns || n == en);
    let same = fs.size as u32 == e.size
        && same_time(fs.mtime, e.mtime)
        && same_time(fs.ctime, e.ctime)
        && fs.dev as u32 == e.dev
        && fs.ino as u32 == e.ino
        && fs.uid == e.uid
        && fs.gid == e.gid;
    let racy = index_mtime.0 != 0 && index_mtime.0 <= i64::from(e.mtime.0);
    // An entry git recorded with size 0 but a blob that is not empty was "smudged" as racily
    // clean when the index was written: its content decides.
    let smudged = e.size == 0 && e.oid != gitobject::EMPTY_BLOB;
    if same && !racy && !smudged {
        StatusVerdict::Unchanged
    } else if e.size != 0 && fs.size as u32 != e.size {
        StatusVerdict::Changed
    } else {
        StatusVerdict::CompareContent
    }
}

/// The id of the tree `git write-tree` would write from this index (the cache-tree's ids
/// where still valid, the rest hashed here); `None` where only git can tell: a conflict, a
/// folder holding nothing but intent-to-add entries, a name that is both a file and a folder.
pub fn tree_id(index: &IndexFile) -> Option<Oid> {
    let mut at = 0;
    let cached = (!index.tree.is_empty()).then(|| cached_dir(&index.tree, &mut at));
    write_tree(
        &index.entries,
        0,
        cached.as_ref().and_then(Option::as_ref),
        &mut |_, _| {},
    )
}

/// Like [`tree_id`], also handing `each_dir` every folder's path (`""`, `a/`, `a/b/`) and id.
pub fn tree_ids(index: &IndexFile, each_dir: &mut dyn FnMut(&str, Oid)) -> Option<Oid> {
    write_tree(&index.entries, 0, None, each_dir)
}

/// The cache-tree as nested folders.
struct CachedDir {
    oid: Option<Oid>,
    subdirs: Vec<(String, CachedDir)>,
}

/// The folder whose node is at `at` in the pre-order list, with its subfolders; `None` for a
/// list that does not hold as many nodes as it says.
fn cached_dir(nodes: &[TreeNode], at: &mut usize) -> Option<CachedDir> {
    let node = nodes.get(*at)?;
    *at += 1;
    let mut subdirs = Vec::new();
    for _ in 0..node.subtrees {
        let name = nodes.get(*at)?.name.clone();
        subdirs.push((name, cached_dir(nodes, at)?));
    }
    Some(CachedDir {
        oid: node.oid,
        subdirs,
    })
}

fn write_tree(
    entries: &[IndexEntry],
    prefix_len: usize,
    cached: Option<&CachedDir>,
    each_dir: &mut dyn FnMut(&str, Oid),
) -> Option<Oid> {
    if let Some(oid) = cached.and_then(|c| c.oid) {
        return Some(oid);
    }
    let mut body = Vec::new();
    let mut last = "";
    let mut i = 0;
    while i < entries.len() {
        let e = &entries[i];
        if e.stage != 0 {
            return None;
        }
        let rest = e.path.get(prefix_len..)?;
        let name = match rest.find('/') {
            Some(slash) => {
                let dir = &e.path[..prefix_len + slash + 1];
                let n = entries[i..]
                    .iter()
                    .take_while(|x| x.path.starts_with(dir))
                    .count();
                let name = &rest[..slash];
                let sub = cached.and_then(|c| c.subdirs.iter().find(|(n, _)| n == name));
                let oid = write_tree(&entries[i..i + n], dir.len(), sub.map(|(_, d)| d), each_dir)?;
                body.extend_from_slice(format!("40000 {name}\0").as_bytes());
                body.extend_from_slice(&oid);
                i += n;
                name
            }
            None => {
                i += 1;
                if e.intent_to_add {
                    continue;
                }
                body.extend_from_slice(format!("{:o} {rest}\0", e.mode).as_bytes());
                body.extend_from_slice(&e.oid);
                rest
            }
        };
        if name == last || name.is_empty() {
            return None;
        }
        last = name;
    }
    if body.is_empty() && prefix_len > 0 {
        return None;
    }
    let oid = gitobject::id(gitobject::ObjectKind::Tree, &body);
    let path = entries.first().map_or("", |e| &e.path[..prefix_len]);
    each_dir(path, oid);
    Some(oid)
}

/// What the host's walk found of one file (`lstat`): enough to tell that a write happened (a
/// write changes the change time, which a program cannot set back), and to compare with what
/// the index recorded ([`clean`]). The after-tool check keeps it per file it watches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stat {
    pub size: u64,
    /// Modification and status-change times, nanoseconds since the epoch.
    pub mtime_ns: i64,
    pub ctime_ns: i64,
    pub ino: u64,
    /// Executable (kept when the content is put back).
    pub exec: bool,
    /// A symbolic link (never followed; its target is not kept).
    pub link: bool,
}

/// Whether the file as walked is the one git's index recorded (git's own test: the stat data,
/// and a change time before the index was written, else "racily clean": not trusted).
pub fn clean(stat: &Stat, e: &Indexed, index_at: (i64, i64)) -> bool {
    let split = |ns: i64| (ns.div_euclid(1_000_000_000), ns.rem_euclid(1_000_000_000));
    let (ms, mn) = split(stat.mtime_ns);
    let (cs, cn) = split(stat.ctime_ns);
    let same =
        |(s, n): (i64, i64), (is, inn): (u32, u32)| s as u32 == is && (inn == 0 || n as u32 == inn);
    stat.size as u32 == e.size
        && same((ms, mn), e.mtime)
        && same((cs, cn), e.ctime)
        && (e.ino == 0 || stat.ino as u32 == e.ino)
        && (ms, mn) < index_at
}

#[cfg(test)]
mod tests;
