//! Reading one value out of git's config files without running git.
//!
//! `rail` asks for `rail.remote` on every command; a `git config --get` process costs more than
//! the rest of a claim. The host reads the files git would read (it learns their places once
//! from `git var`) and passes their texts here, in git's order; this answers with the value git
//! would print, or says it cannot tell (an include, a form this reader does not follow, a value
//! git would refuse), and the host then asks git itself. Never a guess: [`Lookup::Unknown`] is
//! the answer whenever this reader and git could differ.

/// What the config files say about one key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// The key is set: the last value wins, as `git config --get` prints it.
    Value(String),
    /// No file sets it.
    Unset,
    /// This reader cannot be sure what git would answer; ask git.
    Unknown(&'static str),
}

/// A config key, `section.key` or `section.subsection.key`, as git names them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Key<'a> {
    section: String,
    subsection: Option<&'a str>,
    name: String,
}

impl<'a> Key<'a> {
    /// `None` for a name git would not accept as a key (no section or no name).
    pub fn parse(full: &'a str) -> Option<Key<'a>> {
        let (head, name) = full.rsplit_once('.')?;
        let (section, subsection) = match head.split_once('.') {
            Some((s, sub)) => (s, Some(sub)),
            None => (head, None),
        };
        let ok_section = !section.is_empty()
            && section
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-');
        let ok_name = name.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
        (ok_section && ok_name).then(|| Key {
            section: section.to_ascii_lowercase(),
            subsection,
            name: name.to_ascii_lowercase(),
        })
    }
}

/// The value of `key` across `files`, given in the order git reads them (system, global, local,
/// worktree); the last setting wins.
pub fn lookup<'t>(files: impl IntoIterator<Item = &'t str>, key: &Key) -> Lookup {
    let mut found = Lookup::Unset;
    for text in files {
        match scan(text, key) {
            Lookup::Unset => {}
            Lookup::Unknown(why) => return Lookup::Unknown(why),
            value => found = value,
        }
    }
    found
}

/// One file: the last value of `key` in it.
fn scan(text: &str, key: &Key) -> Lookup {
    let b = text.as_bytes();
    let mut i = 0;
    // Whether the section being read is the key's, and whether any header came yet.
    let mut here = false;
    let mut in_section = false;
    let mut found = Lookup::Unset;
    // A byte-order mark is skipped, as git does.
    if b.starts_with(b"\xEF\xBB\xBF") {
        i = 3;
    }
    while i < b.len() {
        match b[i] {
            b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            b'#' | b';' => i = line_end(b, i),
            b'[' => {
                let Some((section, subsection, next)) = header(b, i + 1) else {
                    return Lookup::Unknown("a section header this reader does not follow");
                };
                if section == "include" || section == "includeif" {
                    return Lookup::Unknown("the config includes another file");
                }
                here = section == key.section && subsection.as_deref() == key.subsection;
                in_section = true;
                i = next;
            }
            c if c.is_ascii_alphabetic() => {
                if !in_section {
                    return Lookup::Unknown("a key before any section");
                }
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'-') {
                    i += 1;
                }
                let name = text[start..i].to_ascii_lowercase();
                while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
                    i += 1;
                }
                let value = match b.get(i) {
                    Some(b'=') => match value(b, i + 1) {
                        Some((v, next)) => {
                            i = next;
                            Some(v)
                        }
                        None => return Lookup::Unknown("a value this reader does not follow"),
                    },
                    None | Some(b'\n') | Some(b'\r') | Some(b'#') | Some(b';') => {
                        i = line_end(b, i);
                        None
                    }
                    Some(_) => return Lookup::Unknown("a line this reader does not follow"),
                };
                if here && name == key.name {
                    found = match value {
                        Some(v) => Lookup::Value(v),
                        // `key` alone is a boolean true: git prints it in its own way.
                        None => return Lookup::Unknown("the key is set without a value"),
                    };
                }
            }
            _ => return Lookup::Unknown("a line this reader does not follow"),
        }
    }
    found
}

fn line_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i] != b'\n' {
        i += 1;
    }
    i
}

/// `name]`, `name "sub"]` or the old `name.sub]`, from just after `[`: the section (lowercase),
/// the subsection, and where the line goes on.
fn header(b: &[u8], mut i: usize) -> Option<(String, Option<String>, usize)> {
    let start = i;
    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'-' || b[i] == b'.') {
        i += 1;
    }
    let name = std::str::from_utf8(&b[start..i]).ok()?;
    if name.is_empty() {
        return None;
    }
    match b.get(i)? {
        b']' => {
            let (section, sub) = match name.split_once('.') {
                // `[a.b]` is `[a "b"]` with the subsection lowercased.
                Some((s, sub)) => (s, Some(sub.to_ascii_lowercase())),
                None => (name, None),
            };
            if section.is_empty() || sub.as_deref() == Some("") {
                return None;
            }
            Some((section.to_ascii_lowercase(), sub, i + 1))
        }
        b' ' | b'\t' if !name.contains('.') => {
            while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
                i += 1;
            }
            if b.get(i) != Some(&b'"') {
                return None;
            }
            i += 1;
            let mut sub = Vec::new();
            loop {
                match *b.get(i)? {
                    b'"' => break,
                    b'\n' => return None,
                    b'\\' => {
                        let c = *b.get(i + 1)?;
                        if c == b'\n' {
                            return None;
                        }
                        sub.push(c);
                        i += 2;
                    }
                    c => {
                        sub.push(c);
                        i += 1;
                    }
                }
            }
            if b.get(i + 1) != Some(&b']') {
                return None;
            }
            let sub = String::from_utf8(sub).ok()?;
            Some((name.to_ascii_lowercase(), Some(sub), i + 2))
        }
        _ => None,
    }
}

/// A value from just after `=` to its line's end (continuations followed): git's unquoting,
/// escapes and trimming.
fn value(b: &[u8], mut i: usize) -> Option<(String, usize)> {
    let mut out = Vec::new();
    let mut quoted = false;
    // Whitespace seen but not yet kept: kept (as spaces) only if more of the value follows.
    let mut spaces = 0usize;
    loop {
        let Some(&c) = b.get(i) else {
            if quoted {
                return None;
            }
            break;
        };
        i += 1;
        match c {
            b'\n' => {
                if quoted {
                    return None;
                }
                break;
            }
            b' ' | b'\t' | b'\r' | b'\x0B' | b'\x0C' if !quoted => {
                if !out.is_empty() {
                    spaces += 1;
                }
            }
            b'#' | b';' if !quoted => {
                i = line_end(b, i);
                break;
            }
            _ => {
                out.extend(std::iter::repeat_n(b' ', spaces));
                spaces = 0;
                match c {
                    b'"' => quoted = !quoted,
                    b'\\' => {
                        let e = *b.get(i)?;
                        i += 1;
                        match e {
                            b'\n' => {}
                            // A continuation written with CRLF.
                            b'\r' if b.get(i) == Some(&b'\n') => i += 1,
                            b'n' => out.push(b'\n'),
                            b't' => out.push(b'\t'),
                            b'b' => out.push(0x08),
                            b'"' | b'\\' => out.push(e),
                            _ => return None,
                        }
                    }
                    _ => out.push(c),
                }
            }
        }
    }
    String::from_utf8(out).ok().map(|v| (v, i))
}

/// Where git reads its system and global config, from `git var -l` (git 2.42 and later print
/// `GIT_CONFIG_SYSTEM=` and one `GIT_CONFIG_GLOBAL=` per global file, in reading order).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Places {
    /// `None` when git reads no system file (`GIT_CONFIG_NOSYSTEM`).
    pub system: Option<String>,
    pub global: Vec<String>,
    /// The system attributes file (`GIT_ATTR_SYSTEM=`); `None` when git does not say.
    pub attr_system: Option<String>,
}

/// The places named in `git var -l` output; `None` when it names no global file (a git too old
/// to say, so only git itself can answer).
pub fn places(var_list: &str) -> Option<Places> {
    let mut out = Places::default();
    for line in var_list.lines() {
        if let Some(p) = line.strip_prefix("GIT_CONFIG_SYSTEM=") {
            out.system = Some(p.to_string()).filter(|p| !p.is_empty());
        } else if let Some(p) = line.strip_prefix("GIT_ATTR_SYSTEM=") {
            out.attr_system = Some(p.to_string()).filter(|p| !p.is_empty());
        } else if let Some(p) = line.strip_prefix("GIT_CONFIG_GLOBAL=") {
            if !p.is_empty() {
                out.global.push(p.to_string());
            }
        }
    }
    (!out.global.is_empty()).then_some(out)
}

/// Whether a boolean config value is true, as git reads one; `None` for a word git refuses.
pub fn truthy(value: &str) -> Option<bool> {
    match value.to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" | "1" => Some(true),
        "false" | "no" | "off" | "0" | "" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(files: &[&str], key: &str) -> Lookup {
        lookup(files.iter().copied(), &Key::parse(key).unwrap())
    }

    fn value_of(v: &str) -> Lookup {
        Lookup::Value(v.to_string())
    }

    #[test]
    fn the_last_setting_in_the_last_file_wins() {
        let system = "[rail]\n\tremote = sys\n";
        let local = "[core]\n\tbare = false\n[rail]\n\tremote = origin\n\tremote = team\n";
        assert_eq!(get(&[system, local], "rail.remote"), value_of("team"));
        assert_eq!(get(&[system, "[core]\n"], "rail.remote"), value_of("sys"));
        assert_eq!(
            get(&["", "[core]\nremote = x\n"], "rail.remote"),
            Lookup::Unset
        );
    }

    #[test]
    fn names_are_case_blind_and_subsections_are_not() {
        assert_eq!(get(&["[RAIL]\n  Remote=x\n"], "rail.remote"), value_of("x"));
        let remotes = "[remote \"Origin\"]\n\turl = a\n[remote \"origin\"]\n\turl = b\n";
        assert_eq!(get(&[remotes], "remote.origin.url"), value_of("b"));
        assert_eq!(get(&[remotes], "remote.Origin.url"), value_of("a"));
        // The old dotted form lowercases its subsection.
        assert_eq!(
            get(&["[remote.Up]\nurl = c\n"], "remote.up.url"),
            value_of("c")
        );
    }

    #[test]
    fn values_are_unquoted_and_trimmed_as_git_does() {
        for (text, want) in [
            ("[rail]\nremote = a b  \n", "a b"),
            ("[rail]\nremote = \"a # b\" # note\n", "a # b"),
            ("[rail]\nremote = x;comment\n", "x"),
            ("[rail]\nremote = a\\\nb\n", "ab"),
            ("[rail]\nremote = \"q\\\"\\\\\"\n", "q\"\\"),
            ("[rail]\nremote = a\tb\n", "a b"),
            ("[rail]\r\nremote = crlf\r\n", "crlf"),
            ("[rail]\nremote =\n", ""),
        ] {
            assert_eq!(get(&[text], "rail.remote"), value_of(want), "{text:?}");
        }
    }

    #[test]
    fn anything_this_reader_might_read_otherwise_than_git_is_unknown() {
        for text in [
            "[include]\npath = other\n[rail]\nremote = a\n",
            "[includeIf \"gitdir:~/w/\"]\npath = w\n",
            "[rail]\nremote\n",
            "[rail]\nremote = \"open\n",
            "[rail]\nremote = bad\\escape\n",
            "[rail\nremote = a\n",
            "[rail]\n0remote = a\n",
            "[rail \"x]\n",
            "remote = a\n[rail]\n",
        ] {
            assert!(
                matches!(get(&[text], "rail.remote"), Lookup::Unknown(_)),
                "{text:?}"
            );
        }
        // An include anywhere decides nothing, even after the value was found.
        assert!(matches!(
            get(
                &["[rail]\nremote = a\n", "[include]\npath = b\n"],
                "rail.remote"
            ),
            Lookup::Unknown(_)
        ));
    }

    #[test]
    fn comments_and_other_sections_are_passed_over() {
        let text = "# top\n; also\n[user]\n\tname = A # not rail\n[rail] # here\n\tremote = r\n";
        assert_eq!(get(&[text], "rail.remote"), value_of("r"));
        assert_eq!(get(&[text], "user.name"), value_of("A"));
    }

    #[test]
    fn keys_git_would_not_take_are_refused() {
        for k in ["rail", ".remote", "rail.", "rail.0x", "ra il.remote"] {
            assert!(Key::parse(k).is_none(), "{k}");
        }
        assert!(Key::parse("remote.a.b.url").is_some());
    }

    #[test]
    fn git_var_names_the_places_in_order() {
        let out = "GIT_EDITOR=vi\nGIT_ATTR_SYSTEM=/etc/gitattributes\nGIT_CONFIG_SYSTEM=/etc/gitconfig\nGIT_CONFIG_GLOBAL=/h/.config/git/config\nGIT_CONFIG_GLOBAL=/h/.gitconfig\ncore.bare=false\n";
        assert_eq!(
            places(out),
            Some(Places {
                system: Some("/etc/gitconfig".into()),
                global: vec!["/h/.config/git/config".into(), "/h/.gitconfig".into()],
                attr_system: Some("/etc/gitattributes".into()),
            })
        );
        assert_eq!(
            places("GIT_CONFIG_GLOBAL=/h/.gitconfig\n").unwrap().system,
            None
        );
        assert_eq!(places("GIT_EDITOR=vi\n"), None);
        assert_eq!(truthy("On"), Some(true));
        assert_eq!(truthy("maybe"), None);
    }

    #[test]
    fn any_input_gets_an_answer() {
        // Bytes at every position of a tricky text: never a panic.
        let text = "[a \"b\\\"c\"]\n\tk = \"v\\\n\" ; x\n[d.e]\nk=\\";
        for end in 0..=text.len() {
            if text.is_char_boundary(end) {
                let _ = get(&[&text[..end]], "a.b\"c.k");
            }
        }
    }
}
