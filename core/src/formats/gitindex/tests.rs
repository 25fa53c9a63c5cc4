//! Unit tests of git's index reader: entries, the refresh rule, trees (real indexes are
//! checked against git itself in the CLI's tests).

use super::*;

/// A version 2 index of one entry, `a/x` (real indexes are checked against `git ls-files -s`
/// in the CLI's tests).
fn one_entry() -> Vec<u8> {
    let mut b = b"DIRC".to_vec();
    b.extend_from_slice(&2u32.to_be_bytes());
    b.extend_from_slice(&1u32.to_be_bytes());
    for word in [1u32, 2, 3, 4, 0, 7, 0o100644, 0, 0, 5] {
        b.extend_from_slice(&word.to_be_bytes());
    }
    b.extend_from_slice(&[0xab; 20]);
    b.extend_from_slice(&3u16.to_be_bytes());
    b.extend_from_slice(b"a/x");
    while !(b.len() - 12).is_multiple_of(8) || b.last() != Some(&0) {
        b.push(0);
    }
    b
}

/// A version 2 index of `(path, mode, blob)` entries (sorted by the caller) and, when
/// given, a cache-tree extension, with a checksum's worth of trailer.
fn index_of(entries: &[(&str, u32, Oid)], tree: Option<&[u8]>) -> Vec<u8> {
    let mut b = b"DIRC".to_vec();
    b.extend_from_slice(&2u32.to_be_bytes());
    b.extend_from_slice(&(entries.len() as u32).to_be_bytes());
    for (path, mode, oid) in entries {
        let start = b.len();
        for word in [0u32, 0, 0, 0, 0, 0, *mode, 0, 0, 0] {
            b.extend_from_slice(&word.to_be_bytes());
        }
        b.extend_from_slice(oid);
        b.extend_from_slice(&(path.len() as u16).to_be_bytes());
        b.extend_from_slice(path.as_bytes());
        b.push(0);
        while !(b.len() - start).is_multiple_of(8) {
            b.push(0);
        }
    }
    if let Some(t) = tree {
        b.extend_from_slice(b"TREE");
        b.extend_from_slice(&(t.len() as u32).to_be_bytes());
        b.extend_from_slice(t);
    }
    b.extend_from_slice(&[0; 20]);
    b
}

fn oid(hex: &str) -> Oid {
    gitobject::parse_hex(hex.as_bytes()).unwrap()
}

#[test]
fn tree_ids_are_git_write_trees() {
    let e = gitobject::EMPTY_BLOB;
    // `touch a d/b; chmod +x d/b; git add -A; git write-tree`, then with `a-b` too (it
    // sorts before `a/`'s would-be place, as in a tree: the index's order is the trees').
    let two = [("a", 0o100644, e), ("d/b", 0o100755, e)];
    let index = read(&index_of(&two, None)).unwrap();
    assert_eq!(
        tree_id(&index),
        Some(oid("20f64fb88eb7d7e601ee5741f72ca55f109d889a"))
    );
    let mut dirs = Vec::new();
    tree_ids(&index, &mut |p, o| {
        dirs.push((p.to_string(), gitobject::hex(&o)))
    });
    assert_eq!(
        dirs,
        [
            (
                "d/".to_string(),
                "8e7e7231639f222f603535b084c897b3195d8128".to_string()
            ),
            (
                String::new(),
                "20f64fb88eb7d7e601ee5741f72ca55f109d889a".to_string()
            ),
        ]
    );
    let three = [
        ("a", 0o100644, e),
        ("a-b", 0o100644, e),
        ("d/b", 0o100755, e),
    ];
    assert_eq!(
        tree_id(&read(&index_of(&three, None)).unwrap()),
        Some(oid("d3bcf2cb5f34c443f20a558402bfbd7065480cb8"))
    );
    // A valid cache-tree root is taken as it is; an invalid one is recomputed.
    let mut ext = b"\x001 0\n".to_vec();
    ext.extend_from_slice(&[7; 20]);
    let cached = read(&index_of(&two, Some(&ext))).unwrap();
    assert_eq!(tree_id(&cached), Some([7; 20]));
    let stale = read(&index_of(&two, Some(b"\0-1 1\nd\0-1 0\n"))).unwrap();
    assert_eq!(stale.tree.len(), 2);
    assert_eq!(tree_id(&stale), tree_id(&index));
    // A name that is a file and a folder at once: git's to say.
    let both = [("a", 0o100644, e), ("a/b", 0o100644, e)];
    assert_eq!(tree_id(&read(&index_of(&both, None)).unwrap()), None);
    assert_eq!(tree_id(&IndexFile::default()), Some(gitobject::EMPTY_TREE));
}

#[test]
fn extensions_git_requires_are_named() {
    let e = [("a", 0o100644, gitobject::EMPTY_BLOB)];
    let mut bytes = index_of(&e, None);
    let at = bytes.len() - 20;
    bytes.splice(at..at, b"link\0\0\0\0".iter().copied());
    assert_eq!(read(&bytes).unwrap().asks_git, Some("a split index"));
    let mut bytes = index_of(&e, None);
    bytes.splice(at..at, b"UNTR\0\0\0\0".iter().copied());
    assert_eq!(read(&bytes).unwrap().asks_git, None);
    for hostile in ["../x", "a//b", "a/./b", ".git/config", "a/.GIT/b"] {
        let index = read(&index_of(
            &[(hostile, 0o100644, gitobject::EMPTY_BLOB)],
            None,
        ));
        assert_eq!(
            index.unwrap().asks_git,
            Some("an index path git would refuse"),
            "{hostile}"
        );
    }
}

fn entry(mode: u32, size: u32) -> IndexEntry {
    IndexEntry {
        path: "f".into(),
        mode,
        oid: [1; 20],
        ctime: (100, 5),
        mtime: (100, 5),
        dev: 1,
        ino: 2,
        uid: 3,
        gid: 4,
        size,
        stage: 0,
        assume_valid: false,
        skip_worktree: false,
        intent_to_add: false,
    }
}

fn stat_of(e: &IndexEntry, perm: u32) -> FileStat {
    FileStat {
        size: u64::from(e.size),
        mtime: (i64::from(e.mtime.0), e.mtime.1),
        ctime: (i64::from(e.ctime.0), e.ctime.1),
        dev: 1,
        ino: 2,
        uid: 3,
        gid: 4,
        perm,
    }
}

#[test]
fn verdicts_follow_gits_refresh() {
    let later = (200, 0);
    let e = entry(0o100644, 5);
    let same = stat_of(&e, 0o644);
    assert_eq!(
        verdict(&e, &OnDisk::File(same), later, true),
        StatusVerdict::Unchanged
    );
    // Written in the index's second or after: racily clean, the content decides.
    assert_eq!(
        verdict(&e, &OnDisk::File(same), (100, 9), true),
        StatusVerdict::CompareContent
    );
    // Another size: changed without reading; the same size and another time: content.
    let bigger = FileStat { size: 6, ..same };
    assert_eq!(
        verdict(&e, &OnDisk::File(bigger), later, true),
        StatusVerdict::Changed
    );
    let touched = FileStat {
        mtime: (150, 0),
        ..same
    };
    assert_eq!(
        verdict(&e, &OnDisk::File(touched), later, true),
        StatusVerdict::CompareContent
    );
    // Nanoseconds count only when the index has them.
    let ns = FileStat {
        mtime: (100, 6),
        ..same
    };
    assert_eq!(
        verdict(&e, &OnDisk::File(ns), later, true),
        StatusVerdict::CompareContent
    );
    let mut no_ns = e.clone();
    (no_ns.mtime.1, no_ns.ctime.1) = (0, 0);
    assert_eq!(
        verdict(&no_ns, &OnDisk::File(ns), later, true),
        StatusVerdict::Unchanged
    );
    // The executable bit, when core.filemode says it counts.
    let exec = FileStat {
        perm: 0o755,
        ..same
    };
    assert_eq!(
        verdict(&e, &OnDisk::File(exec), later, true),
        StatusVerdict::Changed
    );
    assert_eq!(
        verdict(&e, &OnDisk::File(exec), later, false),
        StatusVerdict::Unchanged
    );
    // Types: a file that became a link, a folder, nothing.
    assert_eq!(
        verdict(&e, &OnDisk::Link(same), later, true),
        StatusVerdict::Changed
    );
    assert_eq!(
        verdict(&e, &OnDisk::Dir, later, true),
        StatusVerdict::Changed
    );
    assert_eq!(
        verdict(&e, &OnDisk::Missing, later, true),
        StatusVerdict::Changed
    );
    assert_eq!(
        verdict(&e, &OnDisk::Other, later, true),
        StatusVerdict::Changed
    );
    // A link entry against a link.
    let l = entry(0o120000, 5);
    assert_eq!(
        verdict(&l, &OnDisk::Link(stat_of(&l, 0o777)), later, true),
        StatusVerdict::Unchanged
    );
    // Smudged (size 0, a blob that is not empty): content, whatever the stat says.
    let smudged = entry(0o100644, 0);
    let st = stat_of(&smudged, 0o644);
    assert_eq!(
        verdict(&smudged, &OnDisk::File(st), later, true),
        StatusVerdict::CompareContent
    );
    let mut empty = smudged.clone();
    empty.oid = gitobject::EMPTY_BLOB;
    assert_eq!(
        verdict(&empty, &OnDisk::File(st), later, true),
        StatusVerdict::Unchanged
    );
    // Conflicts and intent-to-add entries are listed; what only git follows is git's.
    let conflict = IndexEntry {
        stage: 2,
        ..e.clone()
    };
    assert_eq!(
        verdict(&conflict, &OnDisk::Missing, later, true),
        StatusVerdict::Changed
    );
    let ita = IndexEntry {
        intent_to_add: true,
        ..e.clone()
    };
    assert_eq!(
        verdict(&ita, &OnDisk::File(same), later, true),
        StatusVerdict::Changed
    );
    let sub = entry(0o160000, 0);
    assert_eq!(
        verdict(&sub, &OnDisk::Dir, later, true),
        StatusVerdict::AskGit
    );
    let skip = IndexEntry {
        skip_worktree: true,
        ..e.clone()
    };
    assert_eq!(
        verdict(&skip, &OnDisk::Missing, later, true),
        StatusVerdict::AskGit
    );
    let weird = entry(0o100664, 5);
    assert_eq!(
        verdict(&weird, &OnDisk::File(same), later, true),
        StatusVerdict::AskGit
    );
}

#[test]
fn an_entry_is_read_and_a_short_or_foreign_index_is_none() {
    let bytes = one_entry();
    assert_eq!(count(&bytes), 1);
    let got = entries(&bytes, &["a".into()]).unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].0, "a/x");
    assert_eq!(got[0].1.size, 5);
    assert_eq!(got[0].1.oid, "ab".repeat(20));
    assert!(entries(&bytes, &["b".into()]).unwrap().is_empty());
    // Every truncation before the name's end is refused, never read past its end (12 bytes
    // of header, 62 of entry, the 3 of the name).
    for end in 0..12 + 62 + 3 {
        let cut = &bytes[..end];
        assert!(
            entries(cut, &["a".into()]).is_none_or(|e| e.is_empty()),
            "{end}"
        );
    }
    assert_eq!(count(b"PACK\0\0\0\x02\0\0\0\x01"), 0);
}
