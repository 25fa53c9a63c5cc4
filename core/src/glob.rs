//! Path patterns in claims: validation, matching and glob-vs-glob overlap.
//!
//! A claim's path is a repo-relative file, directory or glob. It covers a file when it matches
//! the file or one of the file's parent directories (so `src/billing` covers
//! `src/billing/tax.rs`, like a gitignore line). Matching is done by the `fast-glob` crate.
//! Overlap of two patterns ("could some path be covered by both?") is decided exactly, by
//! searching the product of two byte-level automata that model fast-glob's semantics:
//!
//! - `*` matches any run of bytes without `/`; `?` one byte that is not `/`;
//! - `**` as a whole segment matches any number of segments (`a/**/b` matches `a/b`);
//! - `[abc]`, `[a-z]`, `[!a]`/`[^a]` match one byte, never `/`;
//! - `{a,b}` alternatives, nested.
//!
//! Patterns Rail refuses (with a diagnostic): absolute paths, `.`/`..` segments, empty
//! segments, backslashes, a leading `!`, `**` inside a segment, non-ASCII inside `[...]`,
//! unclosed brackets or braces.

use std::collections::HashSet;

/// Why a path pattern was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternError(pub String);

impl std::fmt::Display for PatternError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PatternError {}

pub const MAX_PATTERN_LEN: usize = 512;
const MAX_ALTERNATIVES: usize = 64;

/// Checks a pattern and returns its normal form (a trailing `/` removed).
pub fn normalize(pattern: &str) -> Result<String, PatternError> {
    if plain(pattern) {
        return Ok(pattern.strip_suffix('/').unwrap_or(pattern).to_string());
    }
    checked(pattern)
}

/// [`normalize`] without the fast path: every check, each with its message.
fn checked(pattern: &str) -> Result<String, PatternError> {
    let err = |m: String| Err(PatternError(m));
    if pattern.is_empty() {
        return err("path is empty".into());
    }
    if pattern.len() > MAX_PATTERN_LEN {
        return err(format!("path is longer than {MAX_PATTERN_LEN} bytes"));
    }
    if let Some(c) = pattern
        .chars()
        .find(|c| c.is_control() || *c == '|')
        .or_else(|| top_level_comma(pattern).then_some(','))
    {
        return err(format!(
            "path `{pattern}` contains {}",
            if c.is_control() {
                format!("a control character (U+{:04X})", c as u32)
            } else {
                format!("`{c}`")
            }
        ));
    }
    if pattern.starts_with('/') {
        return err(format!(
            "path `{pattern}` is absolute; write it relative to the repository root"
        ));
    }
    if pattern.contains('\\') {
        return err(format!(
            "path `{pattern}` contains `\\`; use `/` between directories"
        ));
    }
    if pattern.starts_with('!') {
        return err(format!(
            "path `{pattern}` starts with `!`; negated patterns are not supported"
        ));
    }
    let trimmed = pattern.strip_suffix('/').unwrap_or(pattern);
    for segment in trimmed.split('/') {
        match segment {
            "" => return err(format!("path `{pattern}` has an empty segment (`//`)")),
            "." | ".." => {
                return err(format!(
                    "path `{pattern}` contains a `{segment}` segment; write the path from the repository root"
                ))
            }
            "**" => {}
            s if s.as_bytes().windows(2).any(|w| w == b"**") => {
                return err(format!(
                "path `{pattern}`: `**` must be a whole segment (`a/**/b`); use `*` inside a segment"
            ))
            }
            _ => {}
        }
    }
    // Without classes or braces (backslashes are refused above) fast-glob's validation, the
    // class check and brace expansion below have nothing to find: the common case stops here.
    if !trimmed.bytes().any(|b| b == b'[' || b == b'{') {
        return Ok(trimmed.to_string());
    }
    if let Err(e) = fast_glob::validate(trimmed) {
        return err(format!(
            "path `{pattern}` is not a valid glob ({:?} at byte {})",
            e.kind, e.index
        ));
    }
    // Classes are byte-based in fast-glob; non-ASCII inside them would match half characters.
    let bytes = trimmed.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'[' {
            let end = class_end(bytes, i).unwrap_or(bytes.len());
            if !bytes[i..end].is_ascii() {
                return err(format!(
                    "path `{pattern}`: only ASCII characters are supported inside `[...]`"
                ));
            }
            i = end;
        } else {
            i += 1;
        }
    }
    let alternatives = expand_braces(trimmed.as_bytes());
    if alternatives.len() > MAX_ALTERNATIVES {
        return err(format!(
            "path `{pattern}` expands to more than {MAX_ALTERNATIVES} alternatives"
        ));
    }
    Ok(trimmed.to_string())
}

/// The common case, decided in one pass over the bytes: an ASCII pattern without control
/// characters or any of `| , \ [ {`, neither absolute nor negated, within the length limit,
/// whose segments are not empty, `.`, `..`, or `**` glued to other text. [`normalize`] accepts
/// every such pattern unchanged but for a trailing `/`; anything else takes its full checks
/// (which also word the error). Paths are most of a claims.md line, so this is parsing's hot path.
fn plain(pattern: &str) -> bool {
    let bytes = pattern.as_bytes();
    if bytes.len() > MAX_PATTERN_LEN || matches!(bytes.first(), None | Some(b'/' | b'!')) {
        return false;
    }
    let trimmed = bytes.strip_suffix(b"/").unwrap_or(bytes);
    // Per segment: its length, how many `.` it has, whether it has `**` somewhere.
    let (mut len, mut dots, mut double, mut prev_star) = (0usize, 0usize, false, false);
    // A `/` after the last byte closes the last segment. (Indexing rather than chaining an
    // iterator onto the bytes: the chain's per-byte checks showed in wasm profiles.)
    for i in 0..=trimmed.len() {
        let b = trimmed.get(i).copied().unwrap_or(b'/');
        match b {
            b'/' => {
                let dot_segment = dots == len && len <= 2;
                if len == 0 || dot_segment || double && len != 2 {
                    return false;
                }
                (len, dots, double, prev_star) = (0, 0, false, false);
                continue;
            }
            b'.' => dots += 1,
            b'*' => double |= prev_star,
            0..=0x1f | 0x7f..=0xff | b'|' | b',' | b'\\' | b'[' | b'{' => return false,
            _ => {}
        }
        prev_star = b == b'*';
        len += 1;
    }
    true
}

/// A `,` outside `{…}`: in a claims.md list it would split the path in two.
fn top_level_comma(pattern: &str) -> bool {
    let mut depth = 0usize;
    for c in pattern.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => return true,
            _ => {}
        }
    }
    false
}

/// Does a (brace-free) pattern name directories as well as files? Its last segment does,
/// unless it has an extension (a `.` after its first character): `src/billing`, `src/*`,
/// `.github` and `src/**` name directories and cover what lies below them; `src/main.rs`,
/// `*.md` and `docs/billing.md` name files only. Without this rule a file claim such as
/// `src/main.rs` would "overlap" every glob like `**/*.md` (through `src/main.rs/x.md`).
pub fn names_directory(pattern: &str) -> bool {
    let last = pattern.rsplit('/').next().unwrap_or(pattern);
    !last.char_indices().any(|(i, c)| c == '.' && i > 0)
}

/// True when the pattern has no glob syntax at all.
pub fn is_literal(pattern: &str) -> bool {
    !pattern.contains(['*', '?', '[', '{'])
}

/// The leading whole segments of a pattern that contain no glob syntax (`src/auth/**` →
/// `src/auth`). Two patterns can only overlap when one's literal prefix is a segment prefix of
/// the other's; conflict detection indexes patterns by it.
pub fn literal_prefix(pattern: &str) -> &str {
    let mut end = 0;
    for (i, segment) in pattern.split('/').enumerate() {
        if !is_literal(segment) {
            break;
        }
        end = if i == 0 {
            segment.len()
        } else {
            end + 1 + segment.len()
        };
    }
    &pattern[..end]
}

/// The cheap half of [`overlaps`]: false when the patterns' literal prefixes rule an overlap
/// out (neither is a segment prefix of the other), true when only [`overlaps`] can tell.
pub fn may_overlap(a: &str, b: &str) -> bool {
    let (a, b) = (literal_prefix(a), literal_prefix(b));
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short.is_empty()
        || (long.starts_with(short)
            && (long.len() == short.len() || long.as_bytes()[short.len()] == b'/'))
}

/// Does `pattern` cover `path` (match it, or match one of its parent directories)?
/// `path` is repo-relative with `/` separators.
pub fn covers(pattern: &str, path: &str) -> bool {
    let covers_one = |alternative: &str| {
        fast_glob::glob_match(alternative, path)
            || (names_directory(alternative)
                && path
                    .match_indices('/')
                    .any(|(i, _)| fast_glob::glob_match(alternative, &path[..i])))
    };
    if !pattern.contains('{') {
        return covers_one(pattern);
    }
    // Whether an alternative names a directory is decided per alternative.
    expand_braces(pattern.as_bytes())
        .iter()
        .any(|alt| covers_one(&String::from_utf8_lossy(alt)))
}

/// Could some path be covered by both patterns? Patterns must be normalized.
pub fn overlaps(a: &str, b: &str) -> bool {
    overlap_witness(a, b).is_some()
}

/// A path covered by both patterns, if there is one (the proof behind [`overlaps`]).
pub fn overlap_witness(a: &str, b: &str) -> Option<String> {
    if is_literal(a) && is_literal(b) {
        // The common case, decided without automata.
        return literal_overlap(a, b);
    }
    // A literal path covered by the other pattern is the shortest witness there is: everything
    // a literal covers is the path itself or lies below it. (A broad glob such as `docs/**`
    // meets many literal files; this spares building two automata for each.)
    for (literal, other) in [(a, b), (b, a)] {
        if is_literal(literal) && covers(other, literal) {
            return Some(literal.to_string());
        }
    }
    let na = Nfa::covering(a);
    let nb = Nfa::covering(b);
    na.intersection_witness(&nb)
}

fn literal_overlap(a: &str, b: &str) -> Option<String> {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if long == short
        || (names_directory(short)
            && long.starts_with(short)
            && long.as_bytes()[short.len()] == b'/')
    {
        Some(long.to_string())
    } else {
        None
    }
}

/// A state of the product automaton: one state of each side.
type Pair = (usize, usize);

/// A set of bytes, as four 64-bit words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct ByteSet([u64; 4]);

impl ByteSet {
    const EMPTY: ByteSet = ByteSet([0; 4]);
    const ALL: ByteSet = ByteSet([u64::MAX; 4]);

    fn single(b: u8) -> Self {
        let mut s = ByteSet::EMPTY;
        s.insert(b);
        s
    }

    fn insert(&mut self, b: u8) {
        self.0[(b >> 6) as usize] |= 1 << (b & 63);
    }

    fn remove(&mut self, b: u8) {
        self.0[(b >> 6) as usize] &= !(1 << (b & 63));
    }

    fn contains(&self, b: u8) -> bool {
        self.0[(b >> 6) as usize] & (1 << (b & 63)) != 0
    }

    fn not_slash() -> Self {
        let mut s = ByteSet::ALL;
        s.remove(b'/');
        s
    }

    fn and(self, other: ByteSet) -> ByteSet {
        ByteSet([
            self.0[0] & other.0[0],
            self.0[1] & other.0[1],
            self.0[2] & other.0[2],
            self.0[3] & other.0[3],
        ])
    }

    fn is_empty(&self) -> bool {
        self.0 == [0; 4]
    }

    /// A readable member, for witnesses: a letter or digit if there is one.
    fn pick(&self) -> Option<u8> {
        b"abcxyz0123456789ABCZ._-/"
            .iter()
            .copied()
            .chain(0u8..=255)
            .find(|b| self.contains(*b))
    }
}

/// A Thompson automaton over bytes: edges carry byte sets, `eps` are free moves.
#[derive(Debug, Default)]
struct Nfa {
    edges: Vec<Vec<(ByteSet, usize)>>,
    eps: Vec<Vec<usize>>,
    accept: Vec<bool>,
}

impl Nfa {
    fn state(&mut self) -> usize {
        self.edges.push(Vec::new());
        self.eps.push(Vec::new());
        self.accept.push(false);
        self.edges.len() - 1
    }

    /// The automaton for "covered by pattern": the pattern, or the pattern followed by `/` and
    /// at least one more byte (a path inside a matched directory).
    fn covering(pattern: &str) -> Nfa {
        let mut nfa = Nfa::default();
        let start = nfa.state();
        let end = nfa.state();
        // Alternatives that name directories also lead to "/ and anything below".
        let below = nfa.state();
        let slash = nfa.state();
        let inside = nfa.state();
        for alternative in expand_braces(pattern.as_bytes()) {
            let s = nfa.state();
            nfa.eps[start].push(s);
            let e = nfa.compile(&alternative, s);
            nfa.eps[e].push(end);
            if names_directory(&String::from_utf8_lossy(&alternative)) {
                nfa.eps[e].push(below);
            }
        }
        nfa.accept[end] = true;
        nfa.edges[below].push((ByteSet::single(b'/'), slash));
        nfa.edges[slash].push((ByteSet::ALL, inside));
        nfa.edges[inside].push((ByteSet::ALL, inside));
        nfa.accept[inside] = true;
        nfa
    }

    /// Adds states for one brace-free alternative starting at `from`; returns its end state.
    fn compile(&mut self, pattern: &[u8], from: usize) -> usize {
        let segments: Vec<&[u8]> = pattern.split(|b| *b == b'/').collect();
        let mut cur = from;
        let last = segments.len() - 1;
        let mut i = 0;
        while i <= last {
            let segment = segments[i];
            if segment == b"**" {
                if i == last {
                    // Trailing `**`: anything at all, including nothing (fast-glob: `src/**`
                    // matches `src/` and everything below, but not `src`; a leading
                    // `**` alone matches everything).
                    let any = self.state();
                    self.eps[cur].push(any);
                    self.edges[any].push((ByteSet::ALL, any));
                    cur = any;
                } else {
                    // `**/` : zero or more whole segments each followed by `/`.
                    let loop_state = self.state();
                    self.eps[cur].push(loop_state);
                    let in_segment = self.state();
                    self.edges[loop_state].push((ByteSet::not_slash(), in_segment));
                    self.edges[in_segment].push((ByteSet::not_slash(), in_segment));
                    self.edges[in_segment].push((ByteSet::single(b'/'), loop_state));
                    cur = loop_state;
                }
                i += 1;
                continue;
            }
            cur = self.compile_segment(segment, cur);
            if i < last {
                let next = self.state();
                self.edges[cur].push((ByteSet::single(b'/'), next));
                cur = next;
            }
            i += 1;
        }
        cur
    }

    fn compile_segment(&mut self, segment: &[u8], from: usize) -> usize {
        let mut cur = from;
        let mut i = 0;
        while i < segment.len() {
            match segment[i] {
                b'*' => {
                    let star = self.state();
                    self.eps[cur].push(star);
                    self.edges[star].push((ByteSet::not_slash(), star));
                    cur = star;
                    i += 1;
                }
                b'?' => {
                    let next = self.state();
                    self.edges[cur].push((ByteSet::not_slash(), next));
                    cur = next;
                    i += 1;
                }
                b'[' => {
                    let end = class_end(segment, i).unwrap_or(segment.len());
                    let set = class_set(&segment[i + 1..end.saturating_sub(1).max(i + 1)]);
                    let next = self.state();
                    self.edges[cur].push((set, next));
                    cur = next;
                    i = end;
                }
                b => {
                    let next = self.state();
                    self.edges[cur].push((ByteSet::single(b), next));
                    cur = next;
                    i += 1;
                }
            }
        }
        cur
    }

    fn closure(&self, states: &mut Vec<usize>) {
        let mut seen: HashSet<usize> = states.iter().copied().collect();
        let mut stack = states.clone();
        while let Some(s) = stack.pop() {
            for &t in &self.eps[s] {
                if seen.insert(t) {
                    states.push(t);
                    stack.push(t);
                }
            }
        }
    }

    /// Breadth-first search of the product automaton; returns the shortest common string.
    fn intersection_witness(&self, other: &Nfa) -> Option<String> {
        use std::collections::{HashMap, VecDeque};
        let start = (0usize, 0usize);
        let mut parent: HashMap<Pair, Option<(Pair, u8)>> = HashMap::new();
        parent.insert(start, None);
        let mut queue = VecDeque::from([start]);
        while let Some((a, b)) = queue.pop_front() {
            let mut xs = vec![a];
            self.closure(&mut xs);
            let mut ys = vec![b];
            other.closure(&mut ys);
            if xs.iter().any(|s| self.accept[*s]) && ys.iter().any(|s| other.accept[*s]) {
                let mut bytes = Vec::new();
                let mut cur = (a, b);
                while let Some(Some((prev, byte))) = parent.get(&cur) {
                    bytes.push(*byte);
                    cur = *prev;
                }
                bytes.reverse();
                return Some(String::from_utf8_lossy(&bytes).into_owned());
            }
            for &x in &xs {
                for &(sx, tx) in &self.edges[x] {
                    for &y in &ys {
                        for &(sy, ty) in &other.edges[y] {
                            let both = sx.and(sy);
                            if both.is_empty() || parent.contains_key(&(tx, ty)) {
                                continue;
                            }
                            let byte = both.pick().unwrap_or(b'a');
                            parent.insert((tx, ty), Some(((a, b), byte)));
                            queue.push_back((tx, ty));
                        }
                    }
                }
            }
        }
        None
    }
}

/// Index just past the `]` closing the class that starts at `open`, fast-glob style: a `]`
/// right after `[`, `[!` or `[^` is a member, not the end.
fn class_end(bytes: &[u8], open: usize) -> Option<usize> {
    let mut i = open + 1;
    if i < bytes.len() && (bytes[i] == b'!' || bytes[i] == b'^') {
        i += 1;
    }
    if i < bytes.len() && bytes[i] == b']' {
        i += 1;
    }
    while i < bytes.len() {
        if bytes[i] == b']' {
            return Some(i + 1);
        }
        i += 1;
    }
    None
}

/// The bytes a class body (between `[` and `]`) matches. Classes never match `/`.
fn class_set(body: &[u8]) -> ByteSet {
    let (negated, body) = match body.first() {
        Some(b'!') | Some(b'^') => (true, &body[1..]),
        _ => (false, body),
    };
    let mut set = ByteSet::EMPTY;
    let mut i = 0;
    while i < body.len() {
        if i + 2 < body.len() && body[i + 1] == b'-' {
            let (lo, hi) = (body[i], body[i + 2]);
            for b in lo.min(hi)..=lo.max(hi) {
                set.insert(b);
            }
            i += 3;
        } else {
            set.insert(body[i]);
            i += 1;
        }
    }
    if negated {
        set = ByteSet([!set.0[0], !set.0[1], !set.0[2], !set.0[3]]);
    }
    set.remove(b'/');
    set
}

/// Expands `{a,b}` alternatives (nested) into brace-free patterns. Braces inside `[...]` are
/// class members, not alternatives.
fn expand_braces(pattern: &[u8]) -> Vec<Vec<u8>> {
    let mut i = 0;
    while i < pattern.len() {
        match pattern[i] {
            b'[' => i = class_end(pattern, i).unwrap_or(pattern.len()),
            b'{' => {
                let mut depth = 0;
                let mut parts = Vec::new();
                let mut part_start = i + 1;
                let mut j = i;
                while j < pattern.len() {
                    match pattern[j] {
                        b'[' => {
                            j = class_end(pattern, j).unwrap_or(pattern.len());
                            continue;
                        }
                        b'{' => depth += 1,
                        b'}' => {
                            depth -= 1;
                            if depth == 0 {
                                parts.push(&pattern[part_start..j]);
                                break;
                            }
                        }
                        b',' if depth == 1 => {
                            parts.push(&pattern[part_start..j]);
                            part_start = j + 1;
                        }
                        _ => {}
                    }
                    j += 1;
                }
                if j >= pattern.len() {
                    // Unclosed: validation refuses these; treat the rest literally.
                    return vec![pattern.to_vec()];
                }
                let mut out = Vec::new();
                for part in parts {
                    let mut combined = pattern[..i].to_vec();
                    combined.extend_from_slice(part);
                    combined.extend_from_slice(&pattern[j + 1..]);
                    for expanded in expand_braces(&combined) {
                        if out.len() > MAX_ALTERNATIVES {
                            return out;
                        }
                        out.push(expanded);
                    }
                }
                return out;
            }
            _ => i += 1,
        }
    }
    vec![pattern.to_vec()]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast path never changes an answer: over every string of up to four characters from
    /// an alphabet of what matters (segment separators, dots, stars, refused bytes, non-ASCII),
    /// and over longer strings mixing them, `normalize` and the full checks agree exactly.
    #[test]
    fn the_fast_path_agrees_with_the_full_checks() {
        let alphabet = [
            "a", ".", "*", "/", "|", ",", "\\", "[", "{", "}", "!", "é", "\u{1}", "\u{7f}", "b.c",
        ];
        let mut patterns = vec![String::new()];
        for _ in 0..4 {
            let longer: Vec<String> = patterns
                .iter()
                .flat_map(|p| alphabet.iter().map(move |a| format!("{p}{a}")))
                .collect();
            patterns.extend(longer);
        }
        patterns.sort();
        patterns.dedup();
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..20_000 {
            let mut p = String::new();
            for _ in 0..(seed % 24) {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                p.push_str(alphabet[(seed % alphabet.len() as u64) as usize]);
            }
            patterns.push(p);
        }
        patterns.push("a/".repeat(MAX_PATTERN_LEN / 2));
        patterns.push(format!("{}b", "a/".repeat(MAX_PATTERN_LEN / 2)));
        let mut fast = 0;
        for p in &patterns {
            fast += usize::from(plain(p));
            assert_eq!(normalize(p), checked(p), "{p:?}");
        }
        // The fast path is really taken, and not for everything.
        assert!(
            fast > 1_000 && fast < patterns.len() / 2,
            "{fast} of {}",
            patterns.len()
        );
    }

    #[test]
    fn normalizes_and_refuses() {
        assert_eq!(normalize("src/billing/").unwrap(), "src/billing");
        assert_eq!(normalize("src/**").unwrap(), "src/**");
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/./b",
            "a//b",
            "a\\b",
            "!a",
            "a**",
            "src/[a-z",
            "src/{a,b",
            "[ç]",
            "a|b",
            "a,b",
        ] {
            assert!(normalize(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn covering() {
        assert!(covers("src/billing", "src/billing/tax.rs"));
        assert!(covers("src/billing", "src/billing"));
        assert!(!covers("src/billing", "src/billing2/x"));
        assert!(covers("src/*.ts", "src/main.ts"));
        assert!(!covers("src/*.ts", "src/a/main.ts"));
        assert!(covers("src/auth/**", "src/auth/token.ts"));
        assert!(covers("src/*", "src/a/b.ts"));
        // Files do not contain files.
        assert!(!covers("src/main.rs", "src/main.rs/x"));
        assert!(!covers("**/*.md", "docs/a.md/b"));
        assert!(covers(".github", ".github/workflows/ci.yml"));
        assert!(covers("{src,docs/a.md}", "src/x.rs"));
        assert!(!covers("{src,docs/a.md}", "docs/a.md/x"));
    }

    #[test]
    fn literal_prefixes() {
        assert_eq!(literal_prefix("src/auth/**"), "src/auth");
        assert_eq!(literal_prefix("src/*.ts"), "src");
        assert_eq!(literal_prefix("docs/billing.md"), "docs/billing.md");
        assert_eq!(literal_prefix("**/x"), "");
        assert_eq!(literal_prefix("{a,b}/c"), "");
    }

    #[test]
    fn overlaps_from_the_issue() {
        assert!(overlaps("src/auth/**", "src/auth/token.ts"));
        assert!(overlaps("src/*.ts", "src/main.ts"));
        assert!(overlaps("src/billing", "src/billing/tax.rs"));
        assert!(overlaps("src/*.ts", "src/m*"));
        assert!(overlaps("**/*.md", "docs/billing.md"));
        assert!(
            overlaps("src/*", "src/a/b.ts"),
            "directory match covers its files"
        );
        assert!(overlaps("a/**/b", "a/b"));
        assert!(overlaps("{web,api}/src/**", "api/src/x.ts"));
        assert!(overlaps("src/[a-c]*.rs", "src/b*"));
        assert!(!overlaps("src/*.ts", "src/*.rs"));
        assert!(!overlaps("src/*.ts", "lib/*.ts"));
        assert!(!overlaps("src/[a-c].rs", "src/[d-f].rs"));
        assert!(!overlaps("src/billing", "src/billing2"));
        assert!(!overlaps("src/*.ts", "src/a/*.rs"));
        assert!(!overlaps("{web,api}/x", "cli/x"));
        // A file claim does not meet every extension glob through imaginary subdirectories.
        assert!(!overlaps("src/main.rs", "**/*.md"));
        assert!(!overlaps("docs/billing.md", "docs/billing.md/**"));
        assert!(overlaps("docs", "**/*.md"));
        assert!(overlaps("src/main.rs", "src/*.rs"));
        assert!(!overlaps("a/?", "a/bc"));
    }

    #[test]
    fn witnesses_are_covered_by_both() {
        let pairs = [
            ("src/*.ts", "src/m*"),
            ("**/*.md", "docs/**"),
            ("a/**/b/*.rs", "a/x/**"),
            ("src/[!a]?", "src/b*"),
        ];
        for (a, b) in pairs {
            let w = overlap_witness(a, b).unwrap();
            assert!(covers(a, &w) && covers(b, &w), "{a} {b} {w}");
        }
    }
}
