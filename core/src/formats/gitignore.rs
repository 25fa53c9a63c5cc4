//! git's ignore rules (gitignore(5)), read and matched as git's `dir.c` and `wildmatch.c` do:
//! which untracked files `git status` leaves out. A file of patterns is parsed once per folder;
//! [`excluded`] takes the lists in git's order of precedence (the deepest `.gitignore` first,
//! then `info/exclude`, then `core.excludesFile`): the first list with a matching pattern
//! decides, and within a list the last matching pattern.
//!
//! A pattern this reader does not follow exactly (a `[[:class:]]`, an unclosed `[`, a trailing
//! backslash, `**` before an escaped slash) makes the whole file [`Unfollowed`], and the host
//! asks git. Case-insensitive matching (`core.ignoreCase`) is git's too.

/// A file of patterns git would read that this reader does not follow exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unfollowed(pub &'static str);

/// The patterns of one file, relative to the folder it applies to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Patterns {
    /// The folder, `""` for the checkout's root, else `a/b/`.
    base: String,
    list: Vec<Pattern>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Pattern {
    negative: bool,
    dir_only: bool,
    how: How,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum How {
    /// No slash in the pattern: it matches a path's last name.
    Name(Glob),
    /// Anchored to the folder: the literal head (compared as is), then the glob on the rest.
    Path { head: Vec<u8>, rest: Glob },
}

/// A wildcard pattern compiled to steps; `*` stays inside one name when `/` separates names.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Glob(Vec<Step>);

#[derive(Clone, Debug, PartialEq, Eq)]
enum Step {
    Byte(u8),
    /// `?`: one byte, not `/`.
    One,
    /// `[...]`: one byte in (or, negated, not in) the set, never `/`.
    Set {
        negated: bool,
        set: Box<[bool; 256]>,
    },
    /// `*`: any run of bytes without `/`.
    Star,
    /// `**` at the end, after `/` or alone: anything.
    All,
    /// `**/` after `/` or at the start: nothing, or anything that ends with `/`.
    Dirs,
}

impl Patterns {
    /// The patterns of a file's `text` (a `.gitignore` in the folder `base`, `""` or ending
    /// in `/`; `info/exclude` and `core.excludesFile` apply at the root).
    pub fn parse(text: &[u8], base: &str) -> Result<Patterns, Unfollowed> {
        let text = text.strip_prefix(b"\xef\xbb\xbf").unwrap_or(text);
        let mut list = Vec::new();
        let mut lines: Vec<&[u8]> = text.split(|b| *b == b'\n').collect();
        // The last line needs no newline; an empty one after the last newline is no line.
        if lines.last().is_some_and(|l| l.is_empty()) {
            lines.pop();
        }
        for line in lines {
            if line.is_empty() || line[0] == b'#' {
                continue;
            }
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if let Some(p) = pattern(trim_trailing_spaces(line))? {
                list.push(p);
            }
        }
        Ok(Patterns {
            base: base.to_string(),
            list,
        })
    }

    /// The verdict of this file's last pattern matching `path` (relative to the checkout):
    /// `Some(true)` ignored, `Some(false)` re-included by a `!` pattern, `None` no pattern
    /// matches.
    fn last_match(&self, path: &str, is_dir: bool) -> Option<bool> {
        let path = path.as_bytes();
        let name = match path.iter().rposition(|b| *b == b'/') {
            Some(i) => &path[i + 1..],
            None => path,
        };
        let inside = if self.base.is_empty() {
            Some(path)
        } else {
            path.strip_prefix(self.base.as_bytes())
        };
        self.list.iter().rev().find_map(|p| {
            if p.dir_only && !is_dir {
                return None;
            }
            let hit = match &p.how {
                How::Name(glob) => glob.matches(name),
                How::Path { head, rest } => inside
                    .and_then(|rel| rel.strip_prefix(head.as_slice()))
                    .is_some_and(|tail| rest.matches(tail)),
            };
            hit.then_some(!p.negative)
        })
    }
}

/// Whether git leaves the untracked `path` out, by `lists` in git's order of precedence (see
/// the module's head); `is_dir` for a folder (a link is not one).
pub fn excluded<'a>(
    lists: impl IntoIterator<Item = &'a Patterns>,
    path: &str,
    is_dir: bool,
) -> bool {
    lists
        .into_iter()
        .find_map(|l| l.last_match(path, is_dir))
        .unwrap_or(false)
}

/// Trailing spaces go unless escaped with a backslash (`dir.c`'s `trim_trailing_spaces`: a
/// backslash keeps the byte after it, and a trailing backslash keeps the line as it is).
fn trim_trailing_spaces(line: &[u8]) -> &[u8] {
    let mut cut = None;
    let mut i = 0;
    while i < line.len() {
        match line[i] {
            b' ' => {
                cut.get_or_insert(i);
            }
            b'\\' => {
                i += 1;
                if i == line.len() {
                    return line;
                }
                cut = None;
            }
            _ => cut = None,
        }
        i += 1;
    }
    &line[..cut.unwrap_or(line.len())]
}

/// One line's pattern (`dir.c`'s `parse_path_pattern`); `None` for one that matches nothing.
fn pattern(line: &[u8]) -> Result<Option<Pattern>, Unfollowed> {
    let (negative, p) = match line.strip_prefix(b"!") {
        Some(rest) => (true, rest),
        None => (false, line),
    };
    let (dir_only, p) = match p.strip_suffix(b"/") {
        Some(rest) => (true, rest),
        None => (false, p),
    };
    if p.is_empty() {
        return Ok(None);
    }
    let how = if !p.contains(&b'/') {
        How::Name(Glob::compile(p, false)?)
    } else {
        // The literal head runs to the first wildcard or backslash (git compares it as is and
        // hands only the rest to wildmatch, whose start is then the rest's start).
        let p = p.strip_prefix(b"/").unwrap_or(p);
        let head = p
            .iter()
            .position(|b| matches!(b, b'*' | b'?' | b'[' | b'\\'))
            .unwrap_or(p.len());
        How::Path {
            head: p[..head].to_vec(),
            rest: Glob::compile(&p[head..], true)?,
        }
    };
    Ok(Some(Pattern {
        negative,
        dir_only,
        how,
    }))
}

impl Glob {
    /// `pattern` compiled; `paths`: matched against a path whose names `/` separates (git's
    /// `WM_PATHNAME`), else against one name (where `**` is `*`).
    fn compile(pattern: &[u8], paths: bool) -> Result<Glob, Unfollowed> {
        let mut steps = Vec::new();
        let mut i = 0;
        while i < pattern.len() {
            match pattern[i] {
                b'\\' => {
                    let c = *pattern
                        .get(i + 1)
                        .ok_or(Unfollowed("a pattern ending in a backslash"))?;
                    steps.push(Step::Byte(c));
                    i += 2;
                }
                b'?' => {
                    steps.push(Step::One);
                    i += 1;
                }
                b'[' => {
                    let (step, next) = set(pattern, i + 1)?;
                    steps.push(step);
                    i = next;
                }
                b'*' => {
                    let run = pattern[i..].iter().take_while(|b| **b == b'*').count();
                    let after = i + run;
                    let starts_name = i == 0 || pattern[i - 1] == b'/';
                    if !paths || run == 1 || !starts_name {
                        steps.push(Step::Star);
                        i = after;
                    } else if after == pattern.len() {
                        steps.push(Step::All);
                        i = after;
                    } else if pattern[after] == b'/' {
                        steps.push(Step::Dirs);
                        i = after + 1;
                    } else if pattern[after..].starts_with(b"\\/") {
                        return Err(Unfollowed("`**` before an escaped slash"));
                    } else {
                        steps.push(Step::Star);
                        i = after;
                    }
                }
                c => {
                    steps.push(Step::Byte(c));
                    i += 1;
                }
            }
        }
        Ok(Glob(steps))
    }

    /// Whether the glob matches all of `text`: the set of positions reachable after each step,
    /// one pass over the text per step.
    fn matches(&self, text: &[u8]) -> bool {
        let n = text.len();
        let mut at = vec![false; n + 1];
        at[0] = true;
        for step in &self.0 {
            let mut next = vec![false; n + 1];
            match step {
                Step::Byte(_) | Step::One | Step::Set { .. } => {
                    for j in 0..n {
                        next[j + 1] = at[j] && step.takes(text[j]);
                    }
                }
                Step::Star => {
                    for j in 0..=n {
                        next[j] = at[j] || (j > 0 && next[j - 1] && text[j - 1] != b'/');
                    }
                }
                Step::All => {
                    for j in 0..=n {
                        next[j] = at[j] || (j > 0 && next[j - 1]);
                    }
                }
                Step::Dirs => {
                    let mut seen = false;
                    for j in 0..=n {
                        next[j] = at[j] || (seen && text[j - 1] == b'/');
                        seen |= at[j];
                    }
                }
            }
            if !next.contains(&true) {
                return false;
            }
            at = next;
        }
        at[n]
    }
}

impl Step {
    /// Whether a one-byte step takes `c`.
    fn takes(&self, c: u8) -> bool {
        match self {
            Step::Byte(b) => *b == c,
            Step::One => c != b'/',
            Step::Set { negated, set } => c != b'/' && set[usize::from(c)] != *negated,
            _ => false,
        }
    }
}

/// A bracket expression whose content starts at `at` (after `[`): the step and where the
/// pattern goes on. As `wildmatch.c` reads one: `!` or `^` negates, a `]` first is a member,
/// `a-z` is a range (a `-` first or last is itself), a backslash escapes.
fn set(p: &[u8], mut at: usize) -> Result<(Step, usize), Unfollowed> {
    let unclosed = Unfollowed("an unclosed `[`");
    let negated = matches!(p.get(at), Some(b'!' | b'^'));
    if negated {
        at += 1;
    }
    let mut set = [false; 256];
    let mut prev: Option<u8> = None;
    let mut first = true;
    loop {
        let c = *p.get(at).ok_or(unclosed)?;
        if c == b']' && !first {
            let set = Box::new(set);
            return Ok((Step::Set { negated, set }, at + 1));
        }
        first = false;
        if c == b'\\' {
            at += 1;
            let e = *p.get(at).ok_or(unclosed)?;
            set[usize::from(e)] = true;
            prev = Some(e);
        } else if c == b'-' && prev.is_some() && p.get(at + 1).is_some_and(|n| *n != b']') {
            at += 1;
            let mut hi = p[at];
            if hi == b'\\' {
                at += 1;
                hi = *p.get(at).ok_or(unclosed)?;
            }
            let lo = prev.unwrap_or(0);
            for b in lo..=hi {
                set[usize::from(b)] = true;
            }
            prev = None;
        } else if c == b'[' && p.get(at + 1) == Some(&b':') {
            return Err(Unfollowed("a `[:class:]` in a pattern"));
        } else {
            set[usize::from(c)] = true;
            prev = Some(c);
        }
        at += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ignored(text: &str, base: &str, path: &str, is_dir: bool) -> bool {
        excluded(
            [&Patterns::parse(text.as_bytes(), base).unwrap()],
            path,
            is_dir,
        )
    }

    #[test]
    fn names_paths_and_folders() {
        assert!(ignored("*.o\n", "", "a/b/x.o", false));
        assert!(!ignored("*.o\n", "", "a/b/x.c", false));
        assert!(ignored("build/\n", "", "a/build", true));
        assert!(!ignored("build/\n", "", "a/build", false));
        // A slash anchors the pattern to its file's folder.
        assert!(ignored("/top\n", "", "top", false));
        assert!(!ignored("/top\n", "", "a/top", false));
        assert!(ignored("doc/*.txt\n", "", "doc/a.txt", false));
        assert!(!ignored("doc/*.txt\n", "", "doc/x/a.txt", false));
        assert!(ignored("x.o\n", "sub/", "sub/deep/x.o", false));
        assert!(ignored("/x.o\n", "sub/", "sub/x.o", false));
        assert!(!ignored("/x.o\n", "sub/", "sub/deep/x.o", false));
        assert!(!ignored("/x.o\n", "sub/", "x.o", false));
    }

    #[test]
    fn double_stars() {
        assert!(ignored("**/foo\n", "", "foo", false));
        assert!(ignored("**/foo\n", "", "a/b/foo", false));
        assert!(ignored("a/**/b\n", "", "a/b", false));
        assert!(ignored("a/**/b\n", "", "a/x/y/b", false));
        assert!(ignored("a/**\n", "", "a/x/y", false));
        assert!(!ignored("a/**\n", "", "a", true));
        // Not after a slash: one star.
        assert!(ignored("a**b/c\n", "", "axb/c", false));
        assert!(!ignored("a**b/c\n", "", "ax/yb/c", false));
        // git's literal head: `foo**/bar` hands `**/bar` to wildmatch, whose start it is, so
        // there the stars count as after a slash.
        assert!(ignored("foo**/bar\n", "", "foox/y/bar", false));
        assert!(ignored("a/x**/c\n", "", "a/xy/z/c", false));
    }

    #[test]
    fn negation_and_precedence() {
        let text = "*.log\n!keep.log\n";
        assert!(ignored(text, "", "x.log", false));
        assert!(!ignored(text, "", "keep.log", false));
        // The deeper file decides first; only when it says nothing does the next.
        let root = Patterns::parse(b"*.log\n", "").unwrap();
        let sub = Patterns::parse(b"!a.log\n", "s/").unwrap();
        assert!(!excluded([&sub, &root], "s/a.log", false));
        assert!(excluded([&sub, &root], "s/b.log", false));
    }

    #[test]
    fn lines_as_git_reads_them() {
        // Comments, CRLF, a BOM, trailing spaces (kept when escaped), escaped `#` and `!`.
        let text = "\u{feff}# c\r\nx.o  \r\n\\#h\ny\\ \n\\!bang\n";
        assert!(ignored(text, "", "x.o", false));
        assert!(ignored(text, "", "#h", false));
        assert!(ignored(text, "", "y ", false));
        assert!(ignored(text, "", "!bang", false));
        assert!(!ignored(text, "", "# c", false));
        assert_eq!(trim_trailing_spaces(b"a \\  "), b"a \\ ");
        assert_eq!(trim_trailing_spaces(b"a  \\"), b"a  \\");
    }

    #[test]
    fn brackets() {
        assert!(ignored("[ab].c\n", "", "a.c", false));
        assert!(!ignored("[!ab].c\n", "", "a.c", false));
        assert!(ignored("[^ab].c\n", "", "z.c", false));
        assert!(ignored("[a-c]x\n", "", "bx", false));
        assert!(ignored("[]a]x\n", "", "]x", false));
        assert!(ignored("[a-]x\n", "", "-x", false));
        assert!(ignored("d/[!x]\n", "", "d/y", false));
        assert!(!ignored("d[/]e\n", "", "d/e", false));
        assert_eq!(
            Patterns::parse(b"[[:alpha:]]\n", "").unwrap_err(),
            Unfollowed("a `[:class:]` in a pattern")
        );
        assert!(Patterns::parse(b"[ab\n", "").is_err());
        assert!(Patterns::parse(b"ab\\\n", "").is_err());
        assert!(Patterns::parse(b"a/**\\/b\n", "").is_err());
    }

    #[test]
    fn stars_stay_in_one_name() {
        assert!(ignored("a/*\n", "", "a/b", false));
        assert!(!ignored("a/*\n", "", "a/b/c", false));
        assert!(ignored("a/*/c\n", "", "a/b/c", false));
        assert!(ignored("a/?\n", "", "a/b", false));
        assert!(!ignored("a?b/c\n", "", "a/b/c", false));
        assert!(ignored("*\n", "", "deep/er", false));
    }
}
