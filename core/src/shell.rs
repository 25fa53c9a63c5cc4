//! Which files a shell command would write, as far as a command line can tell.
//!
//! Agents edit files through Bash as well as through edit tools (`cat > f <<EOF`, `tee`, `sed -i`,
//! `cp`, `mv`, `rm`...). This reads a command line the way sh splits it — quotes, escapes,
//! `;` `&&` `||` `|` `&`, newlines, subshell parentheses and braces, redirections — and lists the
//! paths each simple command writes.
//!
//! Covered: output redirections (`>`, `>>`, `>|`, `&>`, `&>>`, `N>`, `<>`; not `>&N`
//! duplications), `tee`, `cp`, `mv`, `install` (the destination, or `-t DIR`), `rm`, `rmdir`,
//! `unlink`, `touch`, `mkdir`, `truncate`, `ln` (the link), `dd of=`, `sed -i`/`--in-place` and
//! `perl -i` (their file operands), `chmod`/`chown`/`chgrp` (their operands), `git checkout --`
//! / `git restore` (their paths), and the same behind `sudo`, `env`, `command`, `nohup`, `time`,
//! `xargs` is not (its arguments come from stdin).
//!
//! Not covered (reported in `unanalysed` so a host can say so): paths in variables (`> $F`),
//! command substitution (`$(…)`, backticks), `eval`, `bash -c '…'` strings, and programs that
//! write files themselves (`python script.py`, `make`, `npm`). Glob arguments (`rm src/*`) are
//! returned as written; hosts compare them as patterns.

use serde::Serialize;

/// What a command line writes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Writes {
    /// Paths as written in the command (relative to its working directory, or absolute).
    pub targets: Vec<String>,
    /// Parts Rail could not analyse, in words.
    pub unanalysed: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Word(Word),
    /// `;`, `&&`, `||`, `|`, `&`, newline, `{`, `}`.
    Separator,
    /// `(`: a subshell, whose `cd` does not outlive its `)`.
    Open,
    Close,
    /// An output redirection; the next word is its target.
    RedirectOut,
    /// `<` or `<<`-style input; the next word is not a write.
    RedirectIn,
    /// A here-document operator; the next word is its delimiter.
    HereDoc,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Word {
    text: String,
    /// Contains `$` expansion, `$(…)` or backticks outside single quotes.
    dynamic: bool,
}

// The `finish!` macro resets its state even after the last word, where nothing reads it again.
#[allow(unused_assignments)]
fn tokenize(command: &str, unanalysed: &mut Vec<String>) -> Vec<Token> {
    let chars: Vec<char> = command.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    let mut word = String::new();
    let mut in_word = false;
    let mut dynamic = false;
    let mut heredoc_pending: Vec<String> = Vec::new();

    // Ends the current word; a word right after `<<` is a here-document delimiter, whose body
    // is skipped at the next newline.
    macro_rules! finish {
        () => {
            if in_word {
                let text = std::mem::take(&mut word);
                if tokens.last() == Some(&Token::HereDoc) {
                    heredoc_pending.push(text.clone());
                }
                tokens.push(Token::Word(Word { text, dynamic }));
                in_word = false;
                dynamic = false;
            }
        };
    }

    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' if i + 1 < chars.len() => {
                if chars[i + 1] != '\n' {
                    word.push(chars[i + 1]);
                    in_word = true;
                }
                i += 2;
            }
            '\'' => {
                in_word = true;
                i += 1;
                while i < chars.len() && chars[i] != '\'' {
                    word.push(chars[i]);
                    i += 1;
                }
                i += 1;
            }
            '"' => {
                in_word = true;
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    if chars[i] == '\\' && i + 1 < chars.len() && "\"\\$`".contains(chars[i + 1]) {
                        word.push(chars[i + 1]);
                        i += 2;
                        continue;
                    }
                    if chars[i] == '$' || chars[i] == '`' {
                        dynamic = true;
                    }
                    word.push(chars[i]);
                    i += 1;
                }
                i += 1;
            }
            '$' | '`' => {
                dynamic = true;
                in_word = true;
                if c == '$' && chars.get(i + 1) == Some(&'(') {
                    // Skip a command substitution as one opaque piece of the word.
                    let mut depth = 0;
                    while i < chars.len() {
                        if chars[i] == '(' {
                            depth += 1;
                        } else if chars[i] == ')' {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        word.push(chars[i]);
                        i += 1;
                    }
                    word.push(')');
                    unanalysed.push("command substitution `$(…)`".into());
                    i += 1;
                } else if c == '`' {
                    word.push(c);
                    i += 1;
                    while i < chars.len() && chars[i] != '`' {
                        word.push(chars[i]);
                        i += 1;
                    }
                    word.push('`');
                    unanalysed.push("command substitution in backticks".into());
                    i += 1;
                } else {
                    word.push(c);
                    i += 1;
                }
            }
            ' ' | '\t' => {
                finish!();
                i += 1;
            }
            '\n' => {
                finish!();
                tokens.push(Token::Separator);
                i += 1;
                // Skip here-document bodies.
                for delim in std::mem::take(&mut heredoc_pending) {
                    loop {
                        let start = i;
                        while i < chars.len() && chars[i] != '\n' {
                            i += 1;
                        }
                        let line: String = chars[start..i].iter().collect();
                        i += 1;
                        if line.trim_start_matches('\t') == delim || i >= chars.len() {
                            break;
                        }
                    }
                }
            }
            '#' if !in_word => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '(' | ')' => {
                finish!();
                tokens.push(if c == '(' { Token::Open } else { Token::Close });
                i += 1;
            }
            ';' | '|' | '&' => {
                // `&>` and `&>>` redirect both streams to a file.
                if c == '&' && chars.get(i + 1) == Some(&'>') {
                    finish!();
                    tokens.push(Token::RedirectOut);
                    i += 2;
                    if chars.get(i) == Some(&'>') {
                        i += 1;
                    }
                    continue;
                }
                finish!();
                tokens.push(Token::Separator);
                i += 1;
                if i < chars.len() && (chars[i] == c && (c == '|' || c == '&' || c == ';')) {
                    i += 1;
                }
            }
            '{' | '}'
                if !in_word
                    && chars
                        .get(i + 1)
                        .is_none_or(|n| n.is_whitespace() || *n == ';') =>
            {
                finish!();
                tokens.push(Token::Separator);
                i += 1;
            }
            '>' | '<' => {
                // A file descriptor number right before (`2>`) belongs to the operator.
                if in_word && word.chars().all(|d| d.is_ascii_digit()) {
                    word.clear();
                    in_word = false;
                    dynamic = false;
                } else {
                    finish!();
                }
                if c == '<' {
                    if chars.get(i + 1) == Some(&'<') {
                        // `<<`, `<<-` here-document, or `<<<` here-string.
                        i += 2;
                        if chars.get(i) == Some(&'<') {
                            i += 1;
                            tokens.push(Token::RedirectIn);
                            continue;
                        }
                        if chars.get(i) == Some(&'-') {
                            i += 1;
                        }
                        tokens.push(Token::HereDoc);
                        continue;
                    }
                    if chars.get(i + 1) == Some(&'>') {
                        // `<>` opens for reading and writing.
                        tokens.push(Token::RedirectOut);
                        i += 2;
                        continue;
                    }
                    tokens.push(Token::RedirectIn);
                    i += 1;
                    continue;
                }
                i += 1;
                if chars.get(i) == Some(&'>') || chars.get(i) == Some(&'|') {
                    i += 1;
                }
                if chars.get(i) == Some(&'&') {
                    // `>&2`: a duplication, not a file.
                    i += 1;
                    while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '-') {
                        i += 1;
                    }
                    continue;
                }
                tokens.push(Token::RedirectOut);
            }
            _ => {
                word.push(c);
                in_word = true;
                i += 1;
            }
        }
    }
    finish!();
    tokens
}

/// Commands that only wrap another command.
const WRAPPERS: &[&str] = &[
    "sudo", "env", "command", "nohup", "time", "nice", "exec", "builtin",
];

fn base_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// The operands of a command: words that are not options (everything after `--` counts).
fn operands(args: &[Word]) -> Vec<&Word> {
    let mut out = Vec::new();
    let mut options_done = false;
    for a in args {
        if !options_done && a.text == "--" {
            options_done = true;
            continue;
        }
        if !options_done && a.text.starts_with('-') && a.text.len() > 1 {
            continue;
        }
        out.push(a);
    }
    out
}

/// The value of `-t DIR`, `-tDIR`, `--target-directory DIR` or `--target-directory=DIR`.
fn target_directory(args: &[Word]) -> Option<Word> {
    for (i, a) in args.iter().enumerate() {
        let value = if a.text == "-t" || a.text == "--target-directory" {
            args.get(i + 1).map(|w| w.text.clone())
        } else if let Some(v) = a.text.strip_prefix("--target-directory=") {
            Some(v.to_string())
        } else if a.text.starts_with("-t") && !a.text.starts_with("--") && a.text.len() > 2 {
            Some(a.text[2..].to_string())
        } else {
            None
        };
        if let Some(text) = value {
            return Some(Word {
                text,
                dynamic: a.dynamic,
            });
        }
    }
    None
}

/// Where relative paths of the next command are: `Some("")` for the starting directory,
/// `Some("sub")` after `cd sub`, `None` once a `cd` went somewhere Rail cannot follow.
type Cwd = Option<String>;

fn join(cwd: &str, path: &str) -> String {
    if cwd.is_empty() || path.starts_with('/') {
        path.to_string()
    } else {
        format!("{}/{path}", cwd.trim_end_matches('/'))
    }
}

fn simple_command(words: &[Word], writes: &mut Writes, cwd: &mut Cwd) {
    let mut words = words;
    // Leading variable assignments (`FOO=1 cmd`) and wrappers.
    loop {
        match words.first() {
            Some(w)
                if w.text.contains('=')
                    && !w.text.starts_with('=')
                    && !w.text.starts_with('-')
                    && words.len() > 1
                    && !w.text.contains('/') =>
            {
                words = &words[1..]
            }
            Some(w) if WRAPPERS.contains(&base_name(&w.text)) => {
                // Options of the wrapper, with their values (`sudo -u me`, `nice -n 5`).
                let takes_value: &[&str] = match base_name(&w.text) {
                    "sudo" => &["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"],
                    "env" => &["-u", "-C", "-S"],
                    "nice" => &["-n"],
                    _ => &[],
                };
                words = &words[1..];
                while let Some(opt) = words.first().filter(|w| w.text.starts_with('-')) {
                    let skip = if takes_value.contains(&opt.text.as_str()) {
                        2
                    } else {
                        1
                    };
                    words = words.get(skip..).unwrap_or(&[]);
                }
            }
            _ => break,
        }
    }
    let Some(cmd) = words.first() else { return };
    let args = &words[1..];
    if base_name(&cmd.text) == "cd" || base_name(&cmd.text) == "pushd" {
        let dir = operands(args).first().map(|w| (*w).clone());
        *cwd = match (cwd.take(), dir) {
            (Some(cur), Some(d)) if !d.dynamic && d.text != "-" && !d.text.starts_with('~') => {
                Some(join(&cur, &d.text))
            }
            _ => {
                writes
                    .unanalysed
                    .push("a `cd` to a directory Rail cannot follow".into());
                None
            }
        };
        return;
    }
    let here = cwd.clone();
    let mut push = |w: &Word| {
        if w.text.is_empty() {
            return;
        }
        if w.dynamic {
            writes
                .unanalysed
                .push(format!("a path built from variables: `{}`", w.text));
        } else if let Some(dir) = &here {
            writes.targets.push(join(dir, &w.text));
        } else if w.text.starts_with('/') {
            writes.targets.push(w.text.clone());
        } else {
            writes
                .unanalysed
                .push(format!("`{}` after a `cd` Rail cannot follow", w.text));
        }
    };
    match base_name(&cmd.text) {
        "tee" | "rm" | "rmdir" | "unlink" | "touch" | "mkdir" | "truncate" | "shred" => {
            let mut ops = operands(args);
            if base_name(&cmd.text) == "truncate" {
                // `truncate -s 0 file`: the size is an option value, not a file.
                ops.retain(|w| {
                    !args
                        .iter()
                        .zip(args.iter().skip(1))
                        .any(|(a, b)| (a.text == "-s" || a.text == "--size") && std::ptr::eq(b, *w))
                });
            }
            for w in ops {
                push(w);
            }
        }
        "cp" | "mv" | "install" | "ln" => {
            if let Some(dir) = target_directory(args) {
                push(&dir);
            } else if let Some(last) = operands(args).last() {
                push(last);
            }
            if base_name(&cmd.text) == "mv" {
                // Moving a file away changes its source too.
                let ops = operands(args);
                for w in ops.iter().take(ops.len().saturating_sub(1)) {
                    push(w);
                }
            }
        }
        "dd" => {
            for a in args {
                if let Some(path) = a.text.strip_prefix("of=") {
                    push(&Word {
                        text: path.to_string(),
                        dynamic: a.dynamic,
                    });
                }
            }
        }
        "sed" | "perl" => {
            let in_place = args.iter().any(|a| {
                a.text == "-i"
                    || a.text.starts_with("--in-place")
                    || (a.text.starts_with("-i") && !a.text.starts_with("--"))
                    || (base_name(&cmd.text) == "perl"
                        && a.text.starts_with("-p")
                        && a.text.contains('i'))
                    || (a.text.starts_with('-')
                        && !a.text.starts_with("--")
                        && a.text.contains('i')
                        && base_name(&cmd.text) == "sed")
            });
            if !in_place {
                return;
            }
            // The script is the first operand unless given with -e/-f.
            let has_script_option = args.iter().any(|a| {
                a.text == "-e"
                    || a.text == "-f"
                    || a.text.starts_with("--expression")
                    || a.text.starts_with("--file")
            });
            let mut skip_next = false;
            let mut ops = Vec::new();
            for a in args {
                if skip_next {
                    skip_next = false;
                    continue;
                }
                if a.text == "-e" || a.text == "-f" {
                    skip_next = true;
                    continue;
                }
                if a.text.starts_with('-') && a.text.len() > 1 {
                    continue;
                }
                ops.push(a);
            }
            let files = if has_script_option {
                &ops[..]
            } else {
                ops.get(1..).unwrap_or(&[])
            };
            for w in files {
                push(w);
            }
        }
        "chmod" | "chown" | "chgrp" => {
            // The first operand is the mode or owner.
            for w in operands(args).into_iter().skip(1) {
                push(w);
            }
        }
        "git" => {
            let sub = args.first().map(|a| a.text.as_str());
            match sub {
                Some("restore") => {
                    for w in operands(&args[1..]) {
                        push(w);
                    }
                }
                Some("checkout") => {
                    if let Some(dd) = args.iter().position(|a| a.text == "--") {
                        for w in &args[dd + 1..] {
                            push(w);
                        }
                    }
                }
                Some("rm") | Some("mv") => {
                    for w in operands(&args[1..]) {
                        push(w);
                    }
                }
                _ => {}
            }
        }
        "eval" => writes.unanalysed.push("`eval`".into()),
        "sh" | "bash" | "zsh" | "dash" if args.iter().any(|a| a.text == "-c") => {
            writes
                .unanalysed
                .push(format!("a `{} -c` script", base_name(&cmd.text)));
        }
        _ => {}
    }
}

/// Ends one simple command: resolves its redirections in the directory it runs in, then its
/// own writes.
fn end_command(
    words: &mut Vec<Word>,
    redirects: &mut Vec<Word>,
    cwd: &mut Cwd,
    result: &mut Writes,
) {
    for target in redirects.drain(..) {
        if target.dynamic {
            result
                .unanalysed
                .push(format!("a redirection to `{}`", target.text));
        } else if target.text.starts_with("/dev/") {
            // /dev/null, /dev/stderr: not files of the repository.
        } else if let Some(dir) = cwd.as_ref() {
            result.targets.push(join(dir, &target.text));
        } else if target.text.starts_with('/') {
            result.targets.push(target.text.clone());
        } else {
            result.unanalysed.push(format!(
                "a redirection to `{}` after a `cd` Rail cannot follow",
                target.text
            ));
        }
    }
    simple_command(words, result, cwd);
    words.clear();
}

/// The paths a command line writes.
pub fn writes(command: &str) -> Writes {
    let mut result = Writes::default();
    let tokens = tokenize(command, &mut result.unanalysed);
    let mut words: Vec<Word> = Vec::new();
    let mut cwd: Cwd = Some(String::new());
    // Redirections belong to the command they appear in, which runs in the directory current
    // when it starts; collect them and resolve at the end of the command.
    let mut redirects: Vec<Word> = Vec::new();
    let mut saved: Vec<Cwd> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            Token::Word(w) => words.push(w.clone()),
            Token::Separator => end_command(&mut words, &mut redirects, &mut cwd, &mut result),
            Token::Open => {
                end_command(&mut words, &mut redirects, &mut cwd, &mut result);
                saved.push(cwd.clone());
            }
            Token::Close => {
                end_command(&mut words, &mut redirects, &mut cwd, &mut result);
                if let Some(outer) = saved.pop() {
                    cwd = outer;
                }
            }
            Token::RedirectOut => {
                if let Some(Token::Word(target)) = tokens.get(i + 1) {
                    redirects.push(target.clone());
                    i += 1;
                }
            }
            Token::RedirectIn | Token::HereDoc => {
                // The next word is an input file or a delimiter.
                i += 1;
            }
        }
        i += 1;
    }
    end_command(&mut words, &mut redirects, &mut cwd, &mut result);
    let mut seen = std::collections::HashSet::new();
    result.targets.retain(|t| seen.insert(t.clone()));
    result.unanalysed.dedup();
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(cmd: &str) -> Vec<String> {
        writes(cmd).targets
    }

    #[test]
    fn redirections() {
        assert_eq!(t("echo hi > a.txt"), ["a.txt"]);
        assert_eq!(t("echo hi >> 'b c.txt' 2>&1"), ["b c.txt"]);
        assert_eq!(t("cmd 2> err.log >/dev/null"), ["err.log"]);
        assert_eq!(t("cmd &> all.log"), ["all.log"]);
        assert_eq!(t("cat < in.txt > out.txt"), ["out.txt"]);
        assert_eq!(
            t("cat > src/x.ts <<'EOF'\nline > not-a-file\nEOF\necho done > d"),
            ["src/x.ts", "d"]
        );
        assert_eq!(t("echo '>' x"), Vec::<String>::new());
    }

    #[test]
    fn commands() {
        assert_eq!(t("tee -a log.txt other.txt < x"), ["log.txt", "other.txt"]);
        assert_eq!(t("cp -r a b dest/"), ["dest/"]);
        assert_eq!(t("cp -t dest a b"), ["dest"]);
        assert_eq!(t("mv old.ts new.ts"), ["new.ts", "old.ts"]);
        assert_eq!(t("rm -rf src/auth build"), ["src/auth", "build"]);
        assert_eq!(t("sed -i 's/a/b/' f1 f2"), ["f1", "f2"]);
        assert_eq!(t("sed -i.bak -e 's/a/b/' f1"), ["f1"]);
        assert_eq!(t("sed 's/a/b/' f1"), Vec::<String>::new());
        assert_eq!(t("perl -pi -e 's/a/b/' f1"), ["f1"]);
        assert_eq!(
            t("touch a && mkdir -p b/c || true; truncate -s 0 d"),
            ["a", "b/c", "d"]
        );
        assert_eq!(t("dd if=/dev/zero of=img bs=1"), ["img"]);
        assert_eq!(t("sudo -u me rm x"), ["x"]);
        assert_eq!(t("FOO=1 rm y"), ["y"]);
        assert_eq!(t("chmod +x run.sh"), ["run.sh"]);
        assert_eq!(t("git checkout -- a.ts b.ts"), ["a.ts", "b.ts"]);
        assert_eq!(t("git restore --staged c.ts"), ["c.ts"]);
        assert_eq!(t("(cd sub && rm z) | cat"), ["sub/z"]);
        assert_eq!(
            t("cd src && echo x >> auth/token.ts"),
            ["src/auth/token.ts"]
        );
        assert_eq!(t("(cd a && touch x); touch y"), ["a/x", "y"]);
        assert_eq!(t("cd /tmp; rm f"), ["/tmp/f"]);
        assert_eq!(t("ls -la; cat x | grep y"), Vec::<String>::new());
        assert_eq!(t("echo \"quoted; rm nothing\""), Vec::<String>::new());
    }

    #[test]
    fn what_cannot_be_analysed_is_said() {
        let w = writes("rm \"$TARGET\"; echo x > $(pick); eval \"$cmd\"; bash -c 'rm q'");
        assert!(w.targets.is_empty(), "{:?}", w.targets);
        assert_eq!(w.unanalysed.len(), 5, "{:?}", w.unanalysed);
        let w = writes("cd \"$D\" && rm f");
        assert!(w.targets.is_empty());
        assert_eq!(w.unanalysed.len(), 2, "{:?}", w.unanalysed);
    }
}
