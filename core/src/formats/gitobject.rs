//! git's objects as bytes, for a host reading a repository without running git: object ids
//! (SHA-1 of `kind size\0body`; SHA-256 repositories are git's to read), a loose object's
//! header once inflated, a commit's tree, a tree's entries, a pack entry's header, a pack
//! index's fan-out and a delta applied to its base. Hosts read the files and inflate them; this
//! only parses, and says `None` for anything it does not follow, never a guess.

use sha1::{Digest, Sha1};

/// A SHA-1 object id.
pub type Oid = [u8; 20];

/// The id of the empty blob (what an index entry of an empty file names).
pub const EMPTY_BLOB: Oid = [
    0xe6, 0x9d, 0xe2, 0x9b, 0xb2, 0xd1, 0xd6, 0x43, 0x4b, 0x8b, 0x29, 0xae, 0x77, 0x5a, 0xd8, 0xc2,
    0xe4, 0x8c, 0x53, 0x91,
];

/// The id of the empty tree.
pub const EMPTY_TREE: Oid = [
    0x4b, 0x82, 0x5d, 0xc6, 0x42, 0xcb, 0x6e, 0xb9, 0xa0, 0x60, 0xe5, 0x4b, 0xf8, 0xd6, 0x92, 0x88,
    0xfb, 0xee, 0x49, 0x04,
];

/// The kinds of object a commit's tree is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectKind {
    Commit,
    Tree,
    Blob,
    Tag,
}

impl ObjectKind {
    pub fn name(self) -> &'static str {
        match self {
            ObjectKind::Commit => "commit",
            ObjectKind::Tree => "tree",
            ObjectKind::Blob => "blob",
            ObjectKind::Tag => "tag",
        }
    }

    fn from_name(name: &[u8]) -> Option<ObjectKind> {
        Some(match name {
            b"commit" => ObjectKind::Commit,
            b"tree" => ObjectKind::Tree,
            b"blob" => ObjectKind::Blob,
            b"tag" => ObjectKind::Tag,
            _ => return None,
        })
    }
}

/// The id git gives an object of `kind` with this `body`.
pub fn id(kind: ObjectKind, body: &[u8]) -> Oid {
    let mut h = Hasher::new(kind, body.len() as u64);
    h.update(body);
    h.finish()
}

/// An object id computed piece by piece (a large file is hashed as it is read).
#[derive(Clone, Debug)]
pub struct Hasher(Sha1);

impl Hasher {
    /// For an object of `kind` whose body will be `size` bytes.
    pub fn new(kind: ObjectKind, size: u64) -> Hasher {
        let mut h = Sha1::new();
        h.update(format!("{} {size}\0", kind.name()).as_bytes());
        Hasher(h)
    }

    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    pub fn finish(self) -> Oid {
        self.0.finalize().into()
    }
}

/// An id as git prints it.
pub fn hex(oid: &Oid) -> String {
    // Called for every index entry a snapshot keeps: no formatter per byte.
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(oid.len() * 2);
    for b in oid {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
    out
}

/// An id from its 40 hex digits (lower case, as git writes them in refs and commits).
pub fn parse_hex(text: &[u8]) -> Option<Oid> {
    if text.len() != 40 {
        return None;
    }
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let mut oid = [0u8; 20];
    for (i, pair) in text.chunks(2).enumerate() {
        oid[i] = digit(pair[0])? << 4 | digit(pair[1])?;
    }
    Some(oid)
}

/// A loose object once inflated: its kind and body (`kind size\0body`, the size checked).
pub fn loose(inflated: &[u8]) -> Option<(ObjectKind, &[u8])> {
    let nul = inflated.iter().position(|b| *b == 0)?;
    let (kind, size) = inflated[..nul].split_at(inflated[..nul].iter().position(|b| *b == b' ')?);
    let size: usize = std::str::from_utf8(&size[1..]).ok()?.parse().ok()?;
    let body = &inflated[nul + 1..];
    (body.len() == size).then_some((ObjectKind::from_name(kind)?, body))
}

/// The tree a commit's body names on its first line (`tree <hex>`).
pub fn commit_tree(body: &[u8]) -> Option<Oid> {
    let line = body.strip_prefix(b"tree ")?;
    let end = line.iter().position(|b| *b == b'\n')?;
    parse_hex(&line[..end])
}

/// When a commit was committed, from its body's header (`committer <who> <seconds> <zone>`):
/// seconds since 1970.
pub fn commit_time(body: &[u8]) -> Option<i64> {
    let header = &body[..body
        .windows(2)
        .position(|w| w == b"\n\n")
        .unwrap_or(body.len())];
    let line = header
        .split(|b| *b == b'\n')
        .find(|l| l.starts_with(b"committer "))?;
    let text = std::str::from_utf8(line).ok()?;
    let mut words = text.rsplitn(3, ' ');
    let _zone = words.next()?;
    words.next()?.parse().ok()
}

/// One entry of a tree object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeEntry {
    pub mode: u32,
    pub name: String,
    pub oid: Oid,
}

impl TreeEntry {
    pub fn is_tree(&self) -> bool {
        self.mode == 0o40000
    }
}

/// A tree object's entries (`mode name\0` and 20 bytes of id each), in its order; `None` for a
/// body that is not one, or a name that is not UTF-8.
pub fn tree_entries(body: &[u8]) -> Option<Vec<TreeEntry>> {
    let mut out = Vec::new();
    let mut rest = body;
    while !rest.is_empty() {
        let sp = rest.iter().position(|b| *b == b' ')?;
        let mode = std::str::from_utf8(&rest[..sp]).ok()?;
        let mode = u32::from_str_radix(mode, 8).ok()?;
        let nul = sp + rest[sp..].iter().position(|b| *b == 0)?;
        let name = std::str::from_utf8(&rest[sp + 1..nul]).ok()?.to_string();
        let oid: Oid = rest.get(nul + 1..nul + 21)?.try_into().ok()?;
        if name.is_empty() || name.contains('/') {
            return None;
        }
        out.push(TreeEntry { mode, name, oid });
        rest = &rest[nul + 21..];
    }
    Some(out)
}

/// Where a pack entry's delta takes its base from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base {
    /// An earlier entry of the same pack, at this offset.
    Offset(u64),
    /// The object with this id.
    Id(Oid),
}

/// A pack entry's header: the kind (`None` for a delta, with its `base`), the size of what
/// inflating its data gives, and where that zlib data starts in the bytes given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PackEntry {
    pub kind: Option<ObjectKind>,
    pub base: Option<Base>,
    pub size: u64,
    pub data_at: usize,
}

/// The header of the pack entry at `offset`, from `bytes` read there (a few dozen bytes are
/// enough); `None` for a kind this reader does not know or a header cut short.
pub fn pack_entry(bytes: &[u8], offset: u64) -> Option<PackEntry> {
    let mut at = 0;
    let first = *bytes.first()?;
    let kind_bits = (first >> 4) & 7;
    let mut size = u64::from(first & 0x0f);
    let mut shift = 4;
    let mut byte = first;
    while byte & 0x80 != 0 {
        at += 1;
        byte = *bytes.get(at)?;
        if shift > 57 {
            return None;
        }
        size |= u64::from(byte & 0x7f) << shift;
        shift += 7;
    }
    at += 1;
    let (kind, base) = match kind_bits {
        1 => (Some(ObjectKind::Commit), None),
        2 => (Some(ObjectKind::Tree), None),
        3 => (Some(ObjectKind::Blob), None),
        4 => (Some(ObjectKind::Tag), None),
        6 => {
            // The distance back to the base: big-endian groups of seven bits, each
            // continuation adding one (so that no two encodings name the same distance).
            let mut b = *bytes.get(at)?;
            at += 1;
            let mut back = u64::from(b & 0x7f);
            while b & 0x80 != 0 {
                b = *bytes.get(at)?;
                at += 1;
                back = back.checked_add(1)?.checked_mul(128)? | u64::from(b & 0x7f);
            }
            (None, Some(Base::Offset(offset.checked_sub(back)?)))
        }
        7 => {
            let oid: Oid = bytes.get(at..at + 20)?.try_into().ok()?;
            at += 20;
            (None, Some(Base::Id(oid)))
        }
        _ => return None,
    };
    Some(PackEntry {
        kind,
        base,
        size,
        data_at: at,
    })
}

/// A delta (inflated) applied to its base: `None` when the delta does not fit the base.
pub fn apply_delta(base: &[u8], delta: &[u8]) -> Option<Vec<u8>> {
    let mut at = 0;
    let mut varint = || -> Option<u64> {
        let mut v = 0u64;
        let mut shift = 0;
        loop {
            let b = *delta.get(at)?;
            at += 1;
            if shift > 63 {
                return None;
            }
            v |= u64::from(b & 0x7f) << shift;
            shift += 7;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
    };
    let (source, target) = (varint()?, varint()?);
    if source != base.len() as u64 {
        return None;
    }
    let target = usize::try_from(target).ok()?;
    let mut out = Vec::with_capacity(target.min(1 << 24));
    while at < delta.len() {
        let op = delta[at];
        at += 1;
        if op & 0x80 != 0 {
            // Copy from the base: offset and size bytes present as the low seven bits say.
            let mut field = |bits: std::ops::Range<u32>| -> Option<usize> {
                let mut v = 0usize;
                for (i, bit) in bits.enumerate() {
                    if op & (1 << bit) != 0 {
                        v |= usize::from(*delta.get(at)?) << (8 * i);
                        at += 1;
                    }
                }
                Some(v)
            };
            let from = field(0..4)?;
            let len = match field(4..7)? {
                0 => 0x10000,
                n => n,
            };
            out.extend_from_slice(base.get(from..from.checked_add(len)?)?);
        } else if op != 0 {
            out.extend_from_slice(delta.get(at..at + usize::from(op))?);
            at += usize::from(op);
        } else {
            return None;
        }
        if out.len() > target {
            return None;
        }
    }
    (out.len() == target).then_some(out)
}

/// A version 2 pack index's header and fan-out table (its first 1,032 bytes): how many objects
/// it lists, and the range of their sorted positions whose id starts with `first`.
pub fn idx_range(head: &[u8], first: u8) -> Option<(u32, std::ops::Range<u32>)> {
    if head.get(..8)? != b"\xfftOc\0\0\0\x02" {
        return None;
    }
    let fan = |i: usize| -> Option<u32> {
        Some(u32::from_be_bytes(
            head.get(8 + 4 * i..12 + 4 * i)?.try_into().ok()?,
        ))
    };
    let total = fan(255)?;
    let end = fan(usize::from(first))?;
    let start = if first == 0 {
        0
    } else {
        fan(usize::from(first) - 1)?
    };
    (start <= end && end <= total).then_some((total, start..end))
}

/// Where a version 2 pack index keeps, for `total` objects: the sorted ids, the 4-byte offsets
/// and the 8-byte large offsets (byte positions in the index file).
pub fn idx_tables(total: u32) -> (u64, u64, u64) {
    let n = u64::from(total);
    let ids = 8 + 256 * 4;
    let offsets = ids + 20 * n + 4 * n;
    (ids, offsets, offsets + 4 * n)
}

#[cfg(test)]
mod tests {

    #[test]
    fn commit_time_is_the_committers() {
        let body = b"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@x> 1700000000 +0100\ncommitter C <c@x> 1733472000 -0500\n\nmessage\ncommitter X <x> 1 +0000\n";
        assert_eq!(commit_time(body), Some(1_733_472_000));
        assert_eq!(commit_time(b"tree x\n\nno committer"), None);
    }
    use super::*;

    #[test]
    fn ids_are_gits() {
        assert_eq!(id(ObjectKind::Blob, b""), EMPTY_BLOB);
        assert_eq!(id(ObjectKind::Tree, b""), EMPTY_TREE);
        // `printf 'hello\n' | git hash-object --stdin`
        assert_eq!(
            hex(&id(ObjectKind::Blob, b"hello\n")),
            "ce013625030ba8dba906f756967f9e9ca394464a"
        );
        assert_eq!(parse_hex(hex(&EMPTY_BLOB).as_bytes()), Some(EMPTY_BLOB));
        assert_eq!(parse_hex(b"E69DE29BB2D1D6434B8B29AE775AD8C2E48C5391"), None);
        assert_eq!(parse_hex(b"e69d"), None);
    }

    #[test]
    fn loose_headers_and_commits() {
        let body = b"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor a <a> 1 +0000\n";
        let mut obj = format!("commit {}\0", body.len()).into_bytes();
        obj.extend_from_slice(body);
        let (kind, got) = loose(&obj).unwrap();
        assert_eq!(kind, ObjectKind::Commit);
        assert_eq!(commit_tree(got), Some(EMPTY_TREE));
        // A size that does not match, an unknown kind, no header.
        assert_eq!(loose(b"commit 3\0ab"), None);
        assert_eq!(loose(b"note 2\0ab"), None);
        assert_eq!(loose(b"commit"), None);
        assert_eq!(
            commit_tree(b"parent 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"),
            None
        );
    }

    #[test]
    fn tree_entries_are_read_and_odd_ones_refused() {
        let mut body = b"100644 a.txt\0".to_vec();
        body.extend_from_slice(&EMPTY_BLOB);
        body.extend_from_slice(b"40000 d\0");
        body.extend_from_slice(&EMPTY_TREE);
        let got = tree_entries(&body).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!((got[0].mode, got[0].name.as_str()), (0o100644, "a.txt"));
        assert!(got[1].is_tree());
        assert_eq!(tree_entries(&body[..body.len() - 1]), None);
        assert_eq!(tree_entries(b"100644 a/b\0aaaaaaaaaaaaaaaaaaaa"), None);
    }

    #[test]
    fn pack_headers() {
        // A commit of 300 bytes: kind 1, size 300 = 0b1_0010_1100.
        let e = pack_entry(&[0x80 | 0x10 | 0x0c, 0x12, 0x78], 100).unwrap();
        assert_eq!(
            (e.kind, e.size, e.data_at),
            (Some(ObjectKind::Commit), 300, 2)
        );
        // An offset delta 130 bytes back: 130 = (0 + 1) * 128 + 2.
        let e = pack_entry(&[0x60 | 5, 0x80, 0x02, 0x78], 1000).unwrap();
        assert_eq!((e.kind, e.base), (None, Some(Base::Offset(870))));
        assert_eq!(e.data_at, 3);
        // A base before the pack's start; kind 5 (reserved); cut short.
        assert_eq!(pack_entry(&[0x60 | 5, 0x7f], 10), None);
        assert_eq!(pack_entry(&[0x50], 10), None);
        assert_eq!(pack_entry(&[0x90], 10), None);
    }

    #[test]
    fn deltas_copy_and_insert_within_bounds() {
        let base = b"hello, world";
        // source 12, target 11: copy 5 from 0, insert "!!", copy 4 from 8.
        let delta = [12, 11, 0x90, 5, 2, b'!', b'!', 0x91, 8, 4];
        assert_eq!(apply_delta(base, &delta).unwrap(), b"hello!!orld");
        // Wrong source size; a copy past the base's end; op 0; a target size not reached.
        assert_eq!(apply_delta(base, &[11, 0]), None);
        assert_eq!(apply_delta(base, &[12, 5, 0x91, 10, 5]), None);
        assert_eq!(apply_delta(base, &[12, 1, 0]), None);
        assert_eq!(apply_delta(base, &[12, 6, 0x90, 5]), None);
    }

    #[test]
    fn idx_fanout() {
        let mut head = b"\xfftOc\0\0\0\x02".to_vec();
        for i in 0..256u32 {
            let count: u32 = if i < 128 {
                0
            } else if i < 255 {
                3
            } else {
                6
            };
            head.extend_from_slice(&count.to_be_bytes());
        }
        assert_eq!(idx_range(&head, 0), Some((6, 0..0)));
        assert_eq!(idx_range(&head, 128), Some((6, 0..3)));
        assert_eq!(idx_range(&head, 255), Some((6, 3..6)));
        assert_eq!(idx_range(&head[..100], 255), None);
        assert_eq!(idx_tables(2), (1032, 1032 + 48, 1032 + 56));
    }
}
