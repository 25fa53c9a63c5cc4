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

mod overlap;
#[cfg(test)]
mod tests;

pub use overlap::{
    automata_overlap, automata_overlap_within, overlap, overlap_of, overlaps, quick_overlap,
    Budget, OverlapVerdict, Pattern, MAX_PRODUCT_STATES, MAX_PRODUCT_STEPS, MAX_RAIL_STEPS,
};

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
/// At most this many bytes in all of a pattern's brace alternatives together: what its
/// automaton's size follows. (Issue 17's `{a,b}` ×6 then `*?` ×235 is 64 alternatives of 476
/// bytes, 30,464 in all; real patterns such as `{web,api}/src/**/*.{ts,tsx}` stay under 100.)
pub const MAX_EXPANDED_LEN: usize = 8192;

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
            "path `{pattern}` is too complex: it expands to more than {MAX_ALTERNATIVES} alternatives"
        ));
    }
    let expanded: usize = alternatives.iter().map(Vec::len).sum();
    if expanded > MAX_EXPANDED_LEN {
        return err(format!(
            "path `{pattern}` is too complex: its {} alternatives add up to {expanded} bytes (at most {MAX_EXPANDED_LEN})",
            alternatives.len()
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
