//! A small reader of Rust source for the tidy rules: tokens with their lines (comments, strings,
//! characters and lifetimes told apart, so a `{` or a `crate::` inside one is never code), the
//! paths a file names (every `use` tree expanded, and paths in expressions), the public types
//! it declares, and its functions with the lines they span. Not a parser: it knows exactly what
//! the rules ask and is tested below on what would fool a grep.

/// What a token is. Comments are dropped; a string literal keeps its text (raw, escapes as
/// written), for the rules that read a path out of one (`include_str!`, `serde(with = "…")`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    Ident(String),
    /// `::`
    PathSep,
    Punct(char),
    Str(String),
    /// A character or byte literal.
    Char,
    /// A lifetime or label (`'a`, `'static`).
    Lifetime,
    Num,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub tok: Tok,
    /// One-based.
    pub line: usize,
}

impl Token {
    pub fn is_ident(&self, name: &str) -> bool {
        matches!(&self.tok, Tok::Ident(i) if i == name)
    }

    pub fn is_punct(&self, c: char) -> bool {
        self.tok == Tok::Punct(c)
    }
}

/// The tokens of `src`. Never panics: an unterminated literal or comment runs to the end.
pub fn lex(src: &str) -> Vec<Token> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line = 1;
    // Advances over `b[from..to]`, counting its newlines.
    let lines_in = |from: usize, to: usize| {
        b[from..to.min(b.len())]
            .iter()
            .filter(|&&c| c == b'\n')
            .count()
    };
    while i < b.len() {
        let c = b[i];
        let start = i;
        let start_line = line;
        let next = |k: usize| b.get(i + k).copied().unwrap_or(0);
        if c == b'\n' {
            line += 1;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        // Comments: `//` to the end of the line; `/* */` nested.
        if c == b'/' && next(1) == b'/' {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'/' && next(1) == b'*' {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            line += lines_in(start, i);
            continue;
        }
        // Raw strings: r"…", r#"…"#, br#"…"#, cr"…".
        let prefix = match (c, next(1)) {
            (b'b' | b'c', b'r') => 2,
            (b'r', _) => 1,
            _ => 0,
        };
        if prefix > 0 {
            let mut j = i + prefix;
            while b.get(j) == Some(&b'#') {
                j += 1;
            }
            let hashes = j - (i + prefix);
            if b.get(j) == Some(&b'"') {
                let body = j + 1;
                let close: Vec<u8> = std::iter::once(b'"')
                    .chain(std::iter::repeat_n(b'#', hashes))
                    .collect();
                let end = find(b, body, &close).unwrap_or(b.len());
                let text = String::from_utf8_lossy(&b[body..end]).into_owned();
                i = (end + close.len()).min(b.len());
                line += lines_in(start, i);
                out.push(Token {
                    tok: Tok::Str(text),
                    line: start_line,
                });
                continue;
            }
            // `r#ident`: a raw identifier.
            if c == b'r' && hashes == 1 && is_ident_start(b.get(j).copied().unwrap_or(0)) {
                let end = ident_end(b, j);
                out.push(Token {
                    tok: Tok::Ident(src[j..end].to_string()),
                    line,
                });
                i = end;
                continue;
            }
        }
        // Strings: "…", b"…", c"…".
        let quote = if c == b'"' {
            Some(i + 1)
        } else if (c == b'b' || c == b'c') && next(1) == b'"' {
            Some(i + 2)
        } else {
            None
        };
        if let Some(body) = quote {
            let mut j = body;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            let end = j.min(b.len());
            let text = String::from_utf8_lossy(&b[body..end]).into_owned();
            i = (end + 1).min(b.len());
            line += lines_in(start, i);
            out.push(Token {
                tok: Tok::Str(text),
                line: start_line,
            });
            continue;
        }
        // A character literal ('x', '\n', '\u{1F600}', b'x') or a lifetime ('a, 'static).
        if c == b'\'' || (c == b'b' && next(1) == b'\'') {
            let q = if c == b'b' { i + 1 } else { i };
            let after = b.get(q + 1).copied().unwrap_or(0);
            if after == b'\\' {
                // Past the escaped character, to the closing quote.
                let mut j = q + 3;
                while j < b.len() && b[j] != b'\'' && b[j] != b'\n' {
                    j += 1;
                }
                i = (j + 1).min(b.len());
                out.push(Token {
                    tok: Tok::Char,
                    line,
                });
                continue;
            }
            // One character (of any width) followed by a quote is a character literal.
            let ch_len = src[q + 1..].chars().next().map_or(1, char::len_utf8);
            if b.get(q + 1 + ch_len) == Some(&b'\'') && after != b'\'' {
                i = q + 2 + ch_len;
                if after == b'\n' {
                    line += 1;
                }
                out.push(Token {
                    tok: Tok::Char,
                    line: start_line,
                });
                continue;
            }
            if c == b'\'' {
                i = ident_end(b, q + 1).max(q + 1);
                out.push(Token {
                    tok: Tok::Lifetime,
                    line,
                });
                continue;
            }
        }
        if is_ident_start(c) {
            let end = ident_end(b, i);
            out.push(Token {
                tok: Tok::Ident(src[i..end].to_string()),
                line,
            });
            i = end;
            continue;
        }
        if c.is_ascii_digit() {
            let mut j = i;
            while j < b.len()
                && (b[j].is_ascii_alphanumeric()
                    || b[j] == b'_'
                    || (b[j] == b'.' && b.get(j + 1).is_some_and(u8::is_ascii_digit)))
            {
                j += 1;
            }
            i = j;
            out.push(Token {
                tok: Tok::Num,
                line,
            });
            continue;
        }
        if c == b':' && next(1) == b':' {
            out.push(Token {
                tok: Tok::PathSep,
                line,
            });
            i += 2;
            continue;
        }
        let ch = src[i..].chars().next().unwrap_or('\u{fffd}');
        out.push(Token {
            tok: Tok::Punct(ch),
            line,
        });
        i += ch.len_utf8();
    }
    out
}

fn find(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    (from..hay.len().saturating_sub(needle.len() - 1)).find(|&k| hay[k..].starts_with(needle))
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c >= 0x80
}

fn ident_end(b: &[u8], from: usize) -> usize {
    let mut j = from;
    while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_' || b[j] >= 0x80) {
        j += 1;
    }
    j
}

/// A path a file names: its segments, the line it is on, and whether it is imported by `use`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedPath {
    pub segments: Vec<String>,
    pub line: usize,
    pub imported: bool,
    /// The module the path is written in, relative to the file (inline `mod x { … }` blocks it
    /// sits in), for resolving `super::`.
    pub inline_mods: Vec<String>,
}

impl NamedPath {
    pub fn text(&self) -> String {
        self.segments.join("::")
    }
}

/// Every path `tokens` name: each leaf of each `use` tree, expanded (`use crate::{a::{x, y},
/// b}` names `crate::a::x`, `crate::a::y` and `crate::b`; `self` in a group names the group's
/// own path), and each path of two or more segments elsewhere (`crate::model::Rail::load`,
/// `super::super::read`). A string that is exactly a path of this crate
/// (`#[serde(with = "crate::text::serde_time")]`) counts: a derive reads it as code.
pub fn paths(tokens: &[Token]) -> Vec<NamedPath> {
    let mut out = Vec::new();
    let mut mods: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    let here = |mods: &[(String, usize)]| mods.iter().map(|(m, _)| m.clone()).collect::<Vec<_>>();
    while i < tokens.len() {
        let t = &tokens[i];
        match &t.tok {
            Tok::Punct('{') => {
                depth += 1;
            }
            Tok::Punct('}') => {
                depth = depth.saturating_sub(1);
                if mods.last().is_some_and(|(_, d)| *d == depth) {
                    mods.pop();
                }
            }
            Tok::Ident(kw) if kw == "mod" => {
                if let (Some(Tok::Ident(name)), Some(open)) =
                    (tokens.get(i + 1).map(|t| &t.tok), tokens.get(i + 2))
                {
                    if open.is_punct('{') {
                        mods.push((name.clone(), depth));
                        depth += 1;
                        i += 3;
                        continue;
                    }
                }
            }
            Tok::Ident(kw) if kw == "use" => {
                let inline = here(&mods);
                let mut j = i + 1;
                if tokens.get(j).is_some_and(|t| t.tok == Tok::PathSep) {
                    j += 1;
                }
                let mut leaves = Vec::new();
                j = use_tree(tokens, j, &mut Vec::new(), &mut leaves);
                for (segments, line) in leaves {
                    out.push(NamedPath {
                        segments,
                        line,
                        imported: true,
                        inline_mods: inline.clone(),
                    });
                }
                // To the end of the statement.
                while j < tokens.len() && !tokens[j].is_punct(';') {
                    j += 1;
                }
                i = j + 1;
                continue;
            }
            Tok::Ident(first) => {
                // Inside a path already read (`a::b`), unless the `::` leads it (`::std::fs`).
                let after_sep = i > 1
                    && tokens[i - 1].tok == Tok::PathSep
                    && matches!(tokens[i - 2].tok, Tok::Ident(_));
                if !after_sep && tokens.get(i + 1).is_some_and(|t| t.tok == Tok::PathSep) {
                    let mut segments = vec![first.clone()];
                    let mut j = i + 1;
                    while tokens.get(j).is_some_and(|t| t.tok == Tok::PathSep) {
                        match tokens.get(j + 1).map(|t| &t.tok) {
                            Some(Tok::Ident(s)) => segments.push(s.clone()),
                            _ => break,
                        }
                        j += 2;
                    }
                    if segments.len() > 1 {
                        out.push(NamedPath {
                            segments,
                            line: t.line,
                            imported: false,
                            inline_mods: here(&mods),
                        });
                    }
                    i = j;
                    continue;
                }
            }
            Tok::Str(s) => {
                let parts: Vec<&str> = s.split("::").collect();
                let plain = parts.iter().all(|p| {
                    !p.is_empty() && p.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
                });
                if parts.len() > 1 && parts[0] == "crate" && plain {
                    let segments = parts.iter().map(|p| p.to_string()).collect();
                    out.push(NamedPath {
                        segments,
                        line: t.line,
                        imported: false,
                        inline_mods: here(&mods),
                    });
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Reads one use tree at `i` under `prefix`, pushing each leaf; returns the index after it.
fn use_tree(
    tokens: &[Token],
    mut i: usize,
    prefix: &mut Vec<String>,
    out: &mut Vec<(Vec<String>, usize)>,
) -> usize {
    let depth = prefix.len();
    loop {
        match tokens.get(i).map(|t| (&t.tok, t.line)) {
            Some((Tok::Ident(s), line)) => {
                i += 1;
                if tokens.get(i).is_some_and(|t| t.tok == Tok::PathSep) {
                    prefix.push(s.clone());
                    i += 1;
                    continue;
                }
                let mut leaf = prefix.clone();
                if s != "self" {
                    leaf.push(s.clone());
                }
                out.push((leaf, line));
                // `as name`
                if tokens.get(i).is_some_and(|t| t.is_ident("as")) {
                    i += 2;
                }
                break;
            }
            Some((Tok::Punct('*'), line)) => {
                let mut leaf = prefix.clone();
                leaf.push("*".into());
                out.push((leaf, line));
                i += 1;
                break;
            }
            Some((Tok::Punct('{'), _)) => {
                i += 1;
                loop {
                    match tokens.get(i).map(|t| &t.tok) {
                        None => break,
                        Some(Tok::Punct('}')) => {
                            i += 1;
                            break;
                        }
                        Some(Tok::Punct(',')) => i += 1,
                        Some(_) => {
                            let mut inner = prefix.clone();
                            let next = use_tree(tokens, i, &mut inner, out);
                            i = next.max(i + 1);
                        }
                    }
                }
                break;
            }
            _ => break,
        }
    }
    prefix.truncate(depth);
    i
}

/// A type a file declares public (`pub`, or `pub(…)` of any reach): its kind, name and line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PubType {
    pub kind: String,
    pub name: String,
    pub line: usize,
}

pub fn pub_types(tokens: &[Token]) -> Vec<PubType> {
    let mut out = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        if !t.is_ident("pub") {
            continue;
        }
        let mut j = i + 1;
        if tokens.get(j).is_some_and(|t| t.is_punct('(')) {
            while j < tokens.len() && !tokens[j].is_punct(')') {
                j += 1;
            }
            j += 1;
        }
        let (Some(kw), Some(name)) = (tokens.get(j), tokens.get(j + 1)) else {
            continue;
        };
        let kind = ["struct", "enum", "type", "trait", "union"]
            .into_iter()
            .find(|k| kw.is_ident(k));
        if let (Some(kind), Tok::Ident(name)) = (kind, &name.tok) {
            out.push(PubType {
                kind: kind.to_string(),
                name: name.clone(),
                line: kw.line,
            });
        }
    }
    out
}

/// A function with a body: its name, the line of its `fn` and of its closing brace, and the
/// first line of the item (its attributes and qualifiers; doc comments are above it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    pub item_line: usize,
    pub fn_line: usize,
    pub end_line: usize,
}

impl Function {
    /// Lines from `fn` to the closing brace, both counted.
    pub fn lines(&self) -> usize {
        self.end_line - self.fn_line + 1
    }
}

/// Every function with a body, nested ones and methods included; `fn` pointer types and
/// bodiless declarations (a trait's, an `extern` block's) are not functions here.
pub fn functions(tokens: &[Token]) -> Vec<Function> {
    let mut out = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        if !t.is_ident("fn") {
            continue;
        }
        let Some(Tok::Ident(name)) = tokens.get(i + 1).map(|t| &t.tok) else {
            continue;
        };
        // The body's `{`: the first one outside parentheses and brackets (a `where` clause or
        // return type has none), unless a `;` ends a declaration first.
        let (mut j, mut nest) = (i + 2, 0i32);
        let open = loop {
            match tokens.get(j).map(|t| &t.tok) {
                None => break None,
                Some(Tok::Punct('(' | '[')) => nest += 1,
                Some(Tok::Punct(')' | ']')) => nest -= 1,
                Some(Tok::Punct(';')) if nest == 0 => break None,
                Some(Tok::Punct('{')) if nest == 0 => break Some(j),
                _ => {}
            }
            j += 1;
        };
        let Some(open) = open else { continue };
        let mut depth = 0;
        let mut end = None;
        for tok in &tokens[open..] {
            if tok.is_punct('{') {
                depth += 1;
            } else if tok.is_punct('}') {
                depth -= 1;
                if depth == 0 {
                    end = Some(tok.line);
                    break;
                }
            }
        }
        let end_line = end.unwrap_or_else(|| tokens.last().map_or(t.line, |t| t.line));
        out.push(Function {
            name: name.clone(),
            item_line: item_start(tokens, i),
            fn_line: t.line,
            end_line,
        });
    }
    out
}

/// The line of the first token of the item whose `fn` is at `i`: back over qualifiers
/// (`pub(crate) const async unsafe extern "C"`) and outer attributes (`#[…]`).
fn item_start(tokens: &[Token], i: usize) -> usize {
    const QUALIFIERS: [&str; 10] = [
        "pub", "crate", "super", "self", "in", "const", "async", "unsafe", "extern", "default",
    ];
    let mut k = i;
    while let Some(prev) = k.checked_sub(1).map(|p| &tokens[p]) {
        let qualifier = matches!(&prev.tok, Tok::Ident(w) if QUALIFIERS.contains(&w.as_str()))
            || matches!(prev.tok, Tok::Str(_) | Tok::PathSep | Tok::Punct('(' | ')'));
        if qualifier {
            k -= 1;
            continue;
        }
        if !prev.is_punct(']') {
            break;
        }
        // Back to the matching `[`, then its `#`.
        let mut depth = 0;
        let mut p = k - 1;
        loop {
            if tokens[p].is_punct(']') {
                depth += 1;
            } else if tokens[p].is_punct('[') {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            if p == 0 {
                return tokens[i].line;
            }
            p -= 1;
        }
        if p == 0 || !tokens[p - 1].is_punct('#') {
            break;
        }
        k = p - 1;
    }
    tokens[k].line
}

/// Whether a `// long: <reason>` comment sits right above `f`: in the run of comment lines
/// directly above its item, or between the item's first line and its `fn` (after a doc
/// comment, among its attributes). `lines` is the file's text split in lines.
pub fn marked_long(lines: &[&str], f: &Function) -> bool {
    let is_marker = |l: &str| {
        l.trim_start()
            .strip_prefix("// long:")
            .is_some_and(|reason| !reason.trim().is_empty())
    };
    // Lines are one-based; index `n - 1` is line `n`.
    let mut n = f.item_line;
    while n > 1 && lines[n - 2].trim_start().starts_with("//") {
        n -= 1;
    }
    (n..f.fn_line).any(|l| lines.get(l - 1).is_some_and(|t| is_marker(t)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idents(src: &str) -> Vec<String> {
        lex(src)
            .into_iter()
            .filter_map(|t| match t.tok {
                Tok::Ident(s) => Some(s),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn comments_strings_and_chars_are_not_code() {
        let src = r####"
// fn in_line_comment() { std::fs::read("x") }
/* fn in_block_comment() { /* nested */ crate::agent::x } */
let s = "fn in_string() { crate::agent::y }";
let r = r#"a "quoted" } brace"#;
let rr = r##"has "# inside"##;
let b = b"bytes {";
let c = '{';
let e = '\'';
let u = '\u{1F600}';
let q = '"';
fn d<'a>(x: &'a str) -> &'static str { x }
"####;
        let words = idents(src);
        for hidden in [
            "in_line_comment",
            "in_block_comment",
            "nested",
            "in_string",
            "agent",
            "quoted",
            "inside",
        ] {
            assert!(!words.contains(&hidden.to_string()), "{hidden}");
        }
        assert!(words.contains(&"d".to_string()));
        let strs: Vec<String> = lex(src)
            .into_iter()
            .filter_map(|t| match t.tok {
                Tok::Str(s) => Some(s),
                _ => None,
            })
            .collect();
        assert_eq!(
            strs,
            [
                "fn in_string() { crate::agent::y }",
                r#"a "quoted" } brace"#,
                r##"has "# inside"##,
                "bytes {",
            ]
        );
        // Braces: only the function's two.
        let braces = lex(src)
            .iter()
            .filter(|t| t.is_punct('{') || t.is_punct('}'))
            .count();
        assert_eq!(braces, 2);
        let lifetimes = lex(src).iter().filter(|t| t.tok == Tok::Lifetime).count();
        assert_eq!(lifetimes, 3);
    }

    #[test]
    fn lines_are_counted_through_multi_line_literals_and_comments() {
        let src = "/*\n\n*/\nlet a = \"x\ny\";\nlet r = r#\"\n\"#;\nb";
        let toks = lex(src);
        assert_eq!(toks.last().unwrap().line, 8);
        assert!(toks.iter().any(|t| t.is_ident("a") && t.line == 4));
    }

    #[test]
    fn use_trees_are_expanded_to_every_leaf() {
        let src =
            "use crate::{a::{x, y::{self, z as w}}, b};\nuse super::super::c::*;\nuse ::std::fs;";
        let got: Vec<String> = paths(&lex(src))
            .iter()
            .filter(|p| p.imported)
            .map(NamedPath::text)
            .collect();
        assert_eq!(
            got,
            [
                "crate::a::x",
                "crate::a::y",
                "crate::a::y::z",
                "crate::b",
                "super::super::c::*",
                "std::fs",
            ]
        );
    }

    #[test]
    fn paths_in_expressions_strings_and_inline_modules_are_found() {
        let src = r#"
#[serde(with = "crate::model::input::time_str")]
fn f() { let x = crate::formats::heartbeat::file_name(s); Vec::<u8>::new(); ::std::fs::read(p); }
mod tests {
    mod deeper { fn g() { super::super::read(); } }
    fn h() { super::x::y(); }
}
pub(crate) fn k() {}
"#;
        let found = paths(&lex(src));
        let text: Vec<(String, usize, Vec<String>)> = found
            .iter()
            .map(|p| (p.text(), p.line, p.inline_mods.clone()))
            .collect();
        assert!(text.contains(&("crate::model::input::time_str".into(), 2, vec![])));
        assert!(text.contains(&("crate::formats::heartbeat::file_name".into(), 3, vec![])));
        assert!(text.contains(&("std::fs::read".into(), 3, vec![])));
        assert!(text.contains(&(
            "super::super::read".into(),
            5,
            vec!["tests".into(), "deeper".into()]
        )));
        assert!(text.contains(&("super::x::y".into(), 6, vec!["tests".into()])));
        // `pub(crate)` names no path; a turbofish ends one (`Vec` alone is no path).
        assert!(!text
            .iter()
            .any(|(t, ..)| t == "crate" || t.starts_with("Vec")));
    }

    #[test]
    fn public_types_of_any_reach_are_found() {
        let src = "pub struct A;
pub(crate) enum B {}
pub(in crate::x) type C = u8;
struct D;
pub trait E {}
// pub struct F;
pub fn g() {}";
        let names: Vec<(String, usize)> = pub_types(&lex(src))
            .into_iter()
            .map(|t| (t.name, t.line))
            .collect();
        assert_eq!(
            names,
            [
                ("A".into(), 1),
                ("B".into(), 2),
                ("C".into(), 3),
                ("E".into(), 5)
            ]
        );
    }

    #[test]
    fn functions_span_from_fn_to_their_closing_brace() {
        let src = r#"
trait T {
    fn declared(&self) -> u8;
    fn provided(&self) -> u8 { 1 }
}
/// Doc.
#[inline]
pub(crate) async fn outer<'a, F: Fn(u8) -> u8>(f: F, s: &'a str) -> impl Fn() -> u8
where
    F: Copy,
{
    let brace = '}';
    let text = "}}}";
    fn inner() {}
    let p: fn(u8) -> u8 = |x| x;
    move || 1
}
"#;
        let fns = functions(&lex(src));
        let got: Vec<(&str, usize, usize, usize)> = fns
            .iter()
            .map(|f| (f.name.as_str(), f.item_line, f.fn_line, f.end_line))
            .collect();
        assert_eq!(
            got,
            [
                ("provided", 4, 4, 4),
                ("outer", 7, 8, 17),
                ("inner", 14, 14, 14)
            ]
        );
        assert_eq!(fns[1].lines(), 10);
    }

    #[test]
    fn the_long_marker_sits_above_the_item_or_among_its_attributes() {
        let src = "// long: one table
/// Doc.
#[allow(x)]
fn a() {
}

/// Doc.
// long: a parser
#[allow(
    y
)]
fn b() {
}
// long:
fn c() {
}
// long: far

fn d() {
}
";
        let lines: Vec<&str> = src.lines().collect();
        let marked: Vec<(String, bool)> = functions(&lex(src))
            .iter()
            .map(|f| (f.name.clone(), marked_long(&lines, f)))
            .collect();
        assert_eq!(
            marked,
            [
                ("a".to_string(), true),
                ("b".to_string(), true),
                ("c".to_string(), false),
                ("d".to_string(), false),
            ]
        );
    }
}
