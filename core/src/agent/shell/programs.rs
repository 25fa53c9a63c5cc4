//! What each program writes: Rail's table, applied to a simple command's words after quote
//! removal. A program not in the table writes nothing Rail can know of (a build tool, a test
//! runner, a script: docs/agents.md says so); a program that runs code given on its command line
//! or on standard input, or that writes files named by something only known when it runs, adds
//! a line to `unanalysed`.

use super::read::{join, nested, Cwd, ShellReader, Val};
use super::Writes;

/// A command's arguments split into options (with their values) and operands.
#[derive(Debug, Default)]
struct Args {
    opts: Vec<(String, Option<Val>)>,
    ops: Vec<Val>,
}

impl Args {
    /// `takes`: the options that take a value (`-t DIR`, `-tDIR`, `--target-directory DIR`,
    /// `--target-directory=DIR`). Everything after `--` is an operand.
    fn parse(args: &[Val], takes: &[&str]) -> Args {
        let mut out = Args::default();
        let mut i = 0;
        let mut done = false;
        while i < args.len() {
            let a = &args[i];
            i += 1;
            let t = a.text.as_str();
            if done || a.dynamic || !t.starts_with('-') || t == "-" {
                out.ops.push(a.clone());
                continue;
            }
            if t == "--" {
                done = true;
                continue;
            }
            if let Some(long) = t.strip_prefix("--") {
                if let Some((name, value)) = long.split_once('=') {
                    out.opts
                        .push((format!("--{name}"), Some(Val::fixed(value))));
                } else if takes.contains(&t) {
                    out.opts.push((t.to_string(), args.get(i).cloned()));
                    i += 1;
                } else {
                    out.opts.push((t.to_string(), None));
                }
                continue;
            }
            // A cluster of short options: `-rf`, `-tDIR`, `-n5`.
            let body: Vec<char> = t.chars().skip(1).collect();
            for (k, c) in body.iter().enumerate() {
                let name = format!("-{c}");
                if takes.contains(&name.as_str()) {
                    let rest: String = body[k + 1..].iter().collect();
                    if rest.is_empty() {
                        out.opts.push((name, args.get(i).cloned()));
                        i += 1;
                    } else {
                        out.opts.push((name, Some(Val::fixed(rest))));
                    }
                    break;
                }
                out.opts.push((name, None));
            }
        }
        out
    }

    fn has(&self, names: &[&str]) -> bool {
        self.opts.iter().any(|(n, _)| names.contains(&n.as_str()))
    }

    fn value(&self, names: &[&str]) -> Option<&Val> {
        self.opts
            .iter()
            .rev()
            .find(|(n, _)| names.contains(&n.as_str()))
            .and_then(|(_, v)| v.as_ref())
    }

    fn values<'a>(&'a self, names: &'a [&'a str]) -> impl Iterator<Item = &'a Val> + 'a {
        self.opts
            .iter()
            .filter(move |(n, _)| names.contains(&n.as_str()))
            .filter_map(|(_, v)| v.as_ref())
    }
}

fn base_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// Programs that run the command after their own options.
const WRAPPERS: &[(&str, &[&str])] = &[
    (
        "sudo",
        &[
            "-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "--user", "--group",
            "--chdir",
        ],
    ),
    ("doas", &["-u", "-C"]),
    ("nohup", &[]),
    // `! ! cmd`: the grammar reads the second `!` as a command name; the shell negates again.
    ("!", &[]),
    ("nice", &["-n", "--adjustment"]),
    ("ionice", &["-c", "-n", "-p", "--class", "--classdata"]),
    (
        "stdbuf",
        &["-i", "-o", "-e", "--input", "--output", "--error"],
    ),
    ("setsid", &[]),
    ("builtin", &[]),
    ("unbuffer", &[]),
    ("npx", &["-p", "--package", "-c", "--call"]),
    ("bunx", &["-p", "--package"]),
    ("pnpx", &[]),
    ("chronic", &[]),
    ("caffeinate", &["-t", "-w"]),
];

/// Programs known to write nothing (used for `xargs` and `find -exec`, whose operands come
/// from elsewhere: a writer there cannot be judged, a reader is harmless).
const READERS: &[&str] = &[
    "cat",
    "head",
    "tail",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "ag",
    "wc",
    "ls",
    "file",
    "stat",
    "echo",
    "printf",
    "du",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "test",
    "[",
    "true",
    "false",
    "diff",
    "cmp",
    "less",
    "more",
    "jq",
    "cut",
    "tr",
    "nl",
    "od",
    "xxd",
    "hexdump",
    "strings",
    "wc",
];

/// Interpreters, and the options that give them code on the command line.
const INTERPRETERS: &[(&str, &[&str])] = &[
    ("python", &["-c"]),
    ("node", &["-e", "--eval", "-p", "--print"]),
    ("nodejs", &["-e", "--eval", "-p", "--print"]),
    ("deno", &["eval"]),
    ("bun", &["-e", "--eval", "-p", "--print"]),
    ("php", &["-r"]),
    ("lua", &["-e"]),
    ("Rscript", &["-e"]),
    ("pwsh", &["-c", "-Command", "-command"]),
    ("powershell", &["-c", "-Command", "-command"]),
    ("osascript", &["-e"]),
    ("tclsh", &[]),
    ("irb", &[]),
];

const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "busybox",
];

/// Applies the table to one simple command.
pub(super) fn run(r: &mut ShellReader, words: &[Val], cwd: &mut Cwd) {
    let mut words = words;
    // Wrappers and `env NAME=VALUE`.
    loop {
        let Some(first) = words.first() else { return };
        if first.dynamic {
            r.note(format!(
                "a command named by something only known when it runs: `{}`",
                first.text
            ));
            return;
        }
        let name = base_name(&first.text);
        // The grammar reads some compound commands it does not expect in a place (`! if …`,
        // `! { …; }`) as simple commands named `if`, `then`, `{`…, without marking an error.
        // The words after such a keyword are a command all the same.
        if matches!(
            first.text.as_str(),
            "if" | "then"
                | "else"
                | "elif"
                | "fi"
                | "do"
                | "done"
                | "while"
                | "until"
                | "{"
                | "}"
                | "esac"
                | ";;"
        ) || is_braces(&first.text)
        {
            words = &words[1..];
            continue;
        }
        if matches!(
            first.text.as_str(),
            "for" | "case" | "select" | "in" | "function" | "coproc"
        ) {
            r.note(format!(
                "a part Rail could not read (a syntax error: the grammar could not place `{}`)",
                first.text
            ));
            return;
        }
        if let Some((_, takes)) = WRAPPERS.iter().find(|(n, _)| *n == name) {
            words = after_options(&words[1..], takes);
            continue;
        }
        match name {
            "env" => {
                let mut rest = &words[1..];
                loop {
                    match rest.first() {
                        Some(w) if w.text == "-C" || w.text == "--chdir" => {
                            chdir(r, rest.get(1), cwd, true);
                            rest = rest.get(2..).unwrap_or(&[]);
                        }
                        Some(w) if w.text == "-S" || w.text == "--split-string" => {
                            r.note("`env -S` (a command line in one string)".into());
                            return;
                        }
                        Some(w) if w.text == "-u" || w.text == "--unset" => {
                            rest = rest.get(2..).unwrap_or(&[]);
                        }
                        Some(w)
                            if w.text.starts_with('-')
                                || (w.text.contains('=') && !w.text.starts_with('=')) =>
                        {
                            rest = &rest[1..];
                        }
                        _ => break,
                    }
                }
                words = rest;
            }
            "time" => {
                let rest = &words[1..];
                let args = Args::parse(rest, &["-f", "-o", "--format", "--output"]);
                for out in args.values(&["-o", "--output"]) {
                    r.path(out, cwd, "`time -o`");
                }
                words = after_options(rest, &["-f", "-o", "--format", "--output"]);
            }
            "timeout" => {
                let rest = after_options(&words[1..], &["-s", "-k", "--signal", "--kill-after"]);
                words = rest.get(1..).unwrap_or(&[]); // the duration
            }
            "command" => {
                let rest = &words[1..];
                if rest
                    .first()
                    .is_some_and(|w| w.text == "-v" || w.text == "-V")
                {
                    return; // a lookup
                }
                words = after_options(rest, &[]);
            }
            "exec" => words = after_options(&words[1..], &["-a"]),
            "flock" => {
                let rest = &words[1..];
                let args = Args::parse(rest, &["-w", "-E", "--timeout", "--conflict-exit-code"]);
                if let Some(code) = args.value(&["-c", "--command"]) {
                    if code.dynamic {
                        r.note("`flock -c` with a command only known when it runs".into());
                    } else {
                        let mut own = cwd.clone();
                        nested(r, &code.text, &mut own, "`flock -c`");
                    }
                    return;
                }
                // flock FILE COMMAND…
                let rest = after_options(rest, &["-w", "-E", "--timeout", "--conflict-exit-code"]);
                words = rest.get(1..).unwrap_or(&[]);
            }
            "uv" | "poetry" | "pipenv" | "pdm" | "hatch" | "rye"
                if words.get(1).is_some_and(|w| w.text == "run") =>
            {
                words = after_options(&words[2..], &["--with", "-p", "--python", "--env"]);
            }
            "bundle" | "pnpm" | "yarn" | "conda" | "mise" | "asdf"
                if words
                    .get(1)
                    .is_some_and(|w| w.text == "exec" || w.text == "dlx" || w.text == "run") =>
            {
                if (name == "pnpm" || name == "yarn")
                    && words.get(1).is_some_and(|w| w.text == "run")
                {
                    return; // a package.json script: like `npm run`
                }
                words = after_options(&words[2..], &["-n", "--name"]);
            }
            _ => break,
        }
    }
    let Some(first) = words.first() else { return };
    let name = base_name(&first.text).to_string();
    let args = &words[1..];
    program(r, &name, args, cwd);
}

/// The words after a wrapper's own options.
fn after_options<'a>(words: &'a [Val], takes: &[&str]) -> &'a [Val] {
    let mut i = 0;
    while let Some(w) = words.get(i) {
        if w.dynamic || !w.text.starts_with('-') {
            break;
        }
        if w.text == "--" {
            i += 1;
            break;
        }
        i += if takes.contains(&w.text.as_str()) {
            2
        } else {
            1
        };
    }
    words.get(i..).unwrap_or(&[])
}

/// `cd DIR`: the next commands run there (`None` when Rail cannot follow).
fn chdir(r: &mut ShellReader, dir: Option<&Val>, cwd: &mut Cwd, say: bool) {
    *cwd = match (cwd.take(), dir) {
        (Some(cur), Some(d)) if !d.dynamic && d.text != "-" && !d.text.is_empty() => {
            Some(join(&cur, &d.text))
        }
        _ => {
            if say {
                r.note(format!(
                    "a `cd` to {} Rail cannot follow",
                    dir.map(|d| format!("`{}`", d.text))
                        .unwrap_or_else(|| "the home directory".into())
                ));
            }
            None
        }
    };
}

fn program(r: &mut ShellReader, name: &str, args: &[Val], cwd: &mut Cwd) {
    match name {
        "cd" | "pushd" | "chdir" => {
            let a = Args::parse(args, &[]);
            chdir(r, a.ops.first(), cwd, true);
        }
        // Back to a directory Rail may not know.
        "popd" => *cwd = None,
        "tee" | "rm" | "rmdir" | "unlink" | "touch" | "mkdir" | "truncate" | "shred" | "mkfifo"
        | "mknod" => {
            let takes: &[&str] = match name {
                "touch" => &["-d", "-r", "-t", "--date", "--reference"],
                "mkdir" | "mkfifo" | "mknod" => &["-m", "--mode", "-Z", "--context"],
                "truncate" => &["-s", "-r", "--size", "--reference"],
                "shred" => &["-n", "-s", "--iterations", "--size", "--random-source"],
                _ => &[],
            };
            let a = Args::parse(args, takes);
            let ops = if name == "mknod" {
                &a.ops[..a.ops.len().min(1)]
            } else {
                &a.ops[..]
            };
            for w in ops {
                r.path(w, cwd, &format!("`{name}` of"));
            }
        }
        "cp" | "mv" | "install" | "ln" | "rsync" | "scp" => copy(r, name, args, cwd),
        "dd" => {
            for a in args {
                if let Some(p) = a.text.strip_prefix("of=") {
                    let v = Val {
                        text: if a.dynamic {
                            a.text.clone()
                        } else {
                            p.to_string()
                        },
                        dynamic: a.dynamic,
                    };
                    r.path(&v, cwd, "`dd of=`");
                }
            }
        }
        "chmod" | "chown" | "chgrp" | "setfacl" | "chattr" => {
            let a = Args::parse(args, &["--reference", "-m", "-x"]);
            let skip = usize::from(!a.has(&["--reference"]) && name != "setfacl");
            for w in a.ops.iter().skip(skip) {
                r.path(w, cwd, &format!("`{name}` of"));
            }
        }
        "sed" => sed(r, args, cwd),
        "perl" | "ruby" => perl(r, name, args, cwd),
        "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk" => awk(r, name, args, cwd),
        "sort" => {
            let a = Args::parse(
                args,
                &[
                    "-o",
                    "--output",
                    "-k",
                    "--key",
                    "-t",
                    "--field-separator",
                    "-S",
                    "--buffer-size",
                    "-T",
                    "--temporary-directory",
                    "--parallel",
                ],
            );
            for o in a.values(&["-o", "--output"]) {
                r.path(o, cwd, "`sort -o`");
            }
        }
        "uniq" => {
            let a = Args::parse(args, &["-f", "-s", "-w"]);
            if let Some(out) = a.ops.get(1) {
                r.path(out, cwd, "`uniq`'s output");
            }
        }
        "split" | "csplit" => r.note(format!("`{name}` (names its files itself)")),
        "tar" | "bsdtar" | "gtar" => tar(r, args, cwd),
        "unzip" => {
            let a = Args::parse(args, &["-d", "-P", "-x"]);
            if a.has(&["-l", "-t", "-v", "-Z", "-p", "-c", "-z"]) {
                return;
            }
            let dir = a.value(&["-d"]).cloned().unwrap_or_else(|| Val::fixed("."));
            r.path(&dir, cwd, "`unzip` into");
        }
        "7z" | "7za" | "unrar" => {
            if args.first().is_some_and(|w| w.text == "x" || w.text == "e") {
                let out = args
                    .iter()
                    .find_map(|w| w.text.strip_prefix("-o").map(Val::fixed))
                    .unwrap_or_else(|| Val::fixed("."));
                r.path(&out, cwd, "an archive extracted into");
            }
        }
        "gunzip" | "gzip" | "bunzip2" | "bzip2" | "xz" | "unxz" | "zstd" | "unzstd" => {
            let a = Args::parse(args, &["-S", "--suffix", "-o"]);
            if a.has(&["-c", "--stdout", "-l", "--list", "-t", "--test"]) {
                return;
            }
            for w in &a.ops {
                // The file is replaced by its (de)compressed form beside it.
                r.path(w, cwd, &format!("`{name}` of"));
            }
            for o in a.values(&["-o"]) {
                r.path(o, cwd, &format!("`{name} -o`"));
            }
        }
        "curl" => {
            let a = Args::parse(
                args,
                &[
                    "-o",
                    "--output",
                    "-D",
                    "--dump-header",
                    "-c",
                    "--cookie-jar",
                    "-H",
                    "--header",
                    "-d",
                    "--data",
                    "--data-raw",
                    "--data-binary",
                    "-X",
                    "--request",
                    "-u",
                    "--user",
                    "-A",
                    "--user-agent",
                    "-e",
                    "--referer",
                    "-F",
                    "--form",
                    "-b",
                    "--cookie",
                    "-m",
                    "--max-time",
                    "--connect-timeout",
                    "-w",
                    "--write-out",
                    "-x",
                    "--proxy",
                    "-T",
                    "--upload-file",
                    "--output-dir",
                    "-K",
                    "--config",
                    "-r",
                    "--range",
                    "--retry",
                    "-E",
                    "--cert",
                    "--cacert",
                    "-C",
                    "--continue-at",
                    "--url",
                ],
            );
            for o in a.values(&[
                "-o",
                "--output",
                "-D",
                "--dump-header",
                "-c",
                "--cookie-jar",
            ]) {
                if o.text != "-" {
                    r.path(o, cwd, "`curl` output");
                }
            }
            if a.has(&["-O", "--remote-name", "--remote-name-all", "-J"]) {
                let dir = a
                    .value(&["--output-dir"])
                    .cloned()
                    .unwrap_or_else(|| Val::fixed("."));
                r.path(&dir, cwd, "`curl -O` into");
            }
        }
        "wget" => {
            let a = Args::parse(
                args,
                &[
                    "-O",
                    "--output-document",
                    "-P",
                    "--directory-prefix",
                    "-o",
                    "--output-file",
                    "-a",
                    "--append-output",
                    "-U",
                    "--user-agent",
                    "--header",
                    "-t",
                    "--tries",
                    "-T",
                    "--timeout",
                ],
            );
            let named = a
                .values(&["-O", "--output-document"])
                .cloned()
                .collect::<Vec<_>>();
            for o in &named {
                if o.text != "-" {
                    r.path(o, cwd, "`wget` output");
                }
            }
            for o in a.values(&["-o", "--output-file", "-a", "--append-output"]) {
                r.path(o, cwd, "`wget` log");
            }
            if named.is_empty() {
                let dir = a
                    .value(&["-P", "--directory-prefix"])
                    .cloned()
                    .unwrap_or_else(|| Val::fixed("."));
                r.path(&dir, cwd, "`wget` into");
            }
        }
        "git" => git(r, args, cwd),
        "find" => find(r, args, cwd),
        "xargs" => xargs(r, args, cwd),
        "eval" => {
            if args.iter().any(|a| a.dynamic) {
                r.note("`eval` of a string only known when it runs".into());
            } else if !args.is_empty() {
                let code: Vec<&str> = args.iter().map(|a| a.text.as_str()).collect();
                nested(r, &code.join(" "), cwd, "`eval`");
            }
        }
        "source" | "." => r.note(format!(
            "`{name} {}` (a script run in this shell)",
            args.first().map(|a| a.text.as_str()).unwrap_or("")
        )),
        "apply_patch" | "applypatch" => apply_patch(r, name, args, cwd),
        "patch" => {
            let a = Args::parse(
                args,
                &[
                    "-p",
                    "-d",
                    "-i",
                    "-o",
                    "-r",
                    "-B",
                    "-z",
                    "-F",
                    "-V",
                    "--input",
                    "--output",
                    "--directory",
                    "--strip",
                ],
            );
            if a.has(&["--dry-run", "-C", "--check"]) {
                return;
            }
            if let Some(dir) = a.value(&["-d", "--directory"]) {
                let mut own = cwd.clone();
                chdir(r, Some(dir), &mut own, true);
                patch_targets(r, &a, &own);
            } else {
                patch_targets(r, &a, cwd);
            }
        }
        "prettier" | "eslint" | "rustfmt" | "black" | "isort" | "gofmt" | "autopep8" | "yapf"
        | "clang-format" | "shfmt" | "stylelint" | "biome" | "ruff" | "dprint" => {
            formatter(r, name, args, cwd)
        }
        n if SHELLS.contains(&n) => shell(r, n, args, cwd),
        n => {
            let key = if n.starts_with("python") { "python" } else { n };
            if let Some((_, code)) = INTERPRETERS.iter().find(|(i, _)| *i == key) {
                interpreter(r, n, code, args);
            }
        }
    }
}

/// Codex's `apply_patch`: its patch is its argument, or its standard input. A patch written out
/// in the command (a literal, a heredoc, a here-string) is read and its files judged where the
/// command runs; one Rail cannot see (a file, a pipe, `"$(cat p)"`) is named as not judged.
fn apply_patch(r: &mut ShellReader, name: &str, args: &[Val], cwd: &Cwd) {
    let text = match args.first() {
        Some(a) if a.dynamic => {
            r.note(format!(
                "`{name} {}` (a patch only known when it runs)",
                a.text
            ));
            return;
        }
        Some(a) => a.text.clone(),
        None => match r.stdin.clone() {
            Some(t) => t,
            None => {
                r.note(format!(
                    "`{name}` reading its patch from a file or pipe Rail cannot see"
                ));
                return;
            }
        },
    };
    match crate::agent::patch::paths(&text) {
        Ok(paths) => {
            for p in paths {
                r.path(&Val::fixed(p), cwd, &format!("`{name}` of"));
            }
        }
        Err(why) => r.note(format!("`{name}` (a patch Rail cannot read: {why})")),
    }
}

fn patch_targets(r: &mut ShellReader, a: &Args, cwd: &Cwd) {
    for o in a.values(&["-o", "--output"]) {
        r.path(o, cwd, "`patch -o`");
    }
    if a.value(&["-o", "--output"]).is_some() {
        return;
    }
    match a.ops.first() {
        Some(file) => r.path(file, cwd, "`patch` of"),
        None => r.note("`patch` (the files it writes are named in the patch)".into()),
    }
}

/// `cp`, `mv`, `install`, `ln`, `rsync`, `scp`: the destination (or `-t DIR`); `mv` (and
/// `rsync --remove-source-files`) also change their sources.
fn copy(r: &mut ShellReader, name: &str, args: &[Val], cwd: &mut Cwd) {
    let takes: &[&str] = match name {
        "install" => &[
            "-t",
            "--target-directory",
            "-m",
            "--mode",
            "-o",
            "--owner",
            "-g",
            "--group",
            "-S",
            "--suffix",
        ],
        "rsync" => &[
            "-e",
            "--rsh",
            "--exclude",
            "--include",
            "--filter",
            "-f",
            "--files-from",
            "--exclude-from",
            "--include-from",
            "--chmod",
            "--rsync-path",
            "--temp-dir",
            "-T",
            "--partial-dir",
            "--backup-dir",
            "--log-file",
            "--password-file",
            "--port",
            "--timeout",
            "--bwlimit",
            "--max-size",
            "--min-size",
            "-B",
            "--block-size",
            "--suffix",
            "--compare-dest",
            "--copy-dest",
            "--link-dest",
            "--out-format",
            "--info",
            "--debug",
        ],
        "scp" => &["-P", "-i", "-o", "-F", "-c", "-l", "-S", "-J"],
        _ => &["-t", "--target-directory", "-S", "--suffix"],
    };
    let a = Args::parse(args, takes);
    let what = format!("`{name}` to");
    let remote = |v: &Val| {
        !v.dynamic
            && (v.text.starts_with("rsync://")
                || v.text
                    .split_once(':')
                    .is_some_and(|(host, _)| !host.contains('/')))
    };
    if name == "rsync" && a.has(&["-n", "--dry-run"]) {
        return;
    }
    if name == "install" && a.has(&["-d", "--directory"]) {
        for w in &a.ops {
            r.path(w, cwd, "`install -d` of");
        }
        return;
    }
    if let Some(dir) = a.value(&["-t", "--target-directory"]) {
        let dir = dir.clone();
        r.path(&dir, cwd, &what);
        if name == "mv" {
            for w in &a.ops {
                r.path(w, cwd, "`mv` of");
            }
        }
        return;
    }
    if name == "ln" && a.ops.len() == 1 {
        // `ln -s ../x`: the link is made in the current directory, named after its target.
        let link = Val {
            text: base_name(&a.ops[0].text).to_string(),
            dynamic: a.ops[0].dynamic,
        };
        r.path(&link, cwd, "`ln` of");
        return;
    }
    if a.ops.len() < 2 {
        return;
    }
    let Some((dest, sources)) = a.ops.split_last() else {
        return;
    };
    if !remote(dest) {
        r.path(dest, cwd, &what);
    }
    if name == "mv" || (name == "rsync" && a.has(&["--remove-source-files"])) {
        for w in sources.iter().filter(|w| !remote(w)) {
            r.path(w, cwd, &format!("`{name}` of"));
        }
    }
    for log in a.values(&["--log-file"]) {
        r.path(log, cwd, "`rsync --log-file`");
    }
}

/// `sed -i`/`--in-place`: its file operands (the script is the first operand unless given with
/// `-e`/`-f`). BSD's `sed -i '' …` has an empty suffix word, skipped.
fn sed(r: &mut ShellReader, args: &[Val], cwd: &Cwd) {
    let mut list: Vec<Val> = Vec::new();
    for (k, a) in args.iter().enumerate() {
        if a.text.is_empty() && !a.dynamic && k > 0 && args[k - 1].text == "-i" {
            continue;
        }
        list.push(a.clone());
    }
    let a = Args::parse(
        &list,
        &["-e", "-f", "--expression", "--file", "-l", "--line-length"],
    );
    let in_place = a.has(&["-i", "--in-place"]);
    let scripted = a.has(&["-e", "-f", "--expression", "--file"]);
    let files = if scripted {
        &a.ops[..]
    } else {
        a.ops.get(1..).unwrap_or(&[])
    };
    // `w file` commands in the script write too.
    let scripts: Vec<&Val> = if scripted {
        a.values(&["-e", "--expression"]).collect()
    } else {
        a.ops.first().into_iter().collect()
    };
    for s in scripts {
        if !s.dynamic && sed_writes(&s.text) {
            r.note(format!("a `sed` script that writes files (`{}`)", s.text));
        }
    }
    if in_place {
        for w in files {
            r.path(w, cwd, "`sed -i` of");
        }
    }
}

/// A sed script with a `w FILE`/`W FILE` command or an `s///w FILE` flag. Over-eager on
/// purpose (a `w` in a substitution's flags, however written): a warning costs little.
fn sed_writes(script: &str) -> bool {
    script.split(['\n', ';']).any(|cmd| {
        let cmd = cmd.trim_start_matches(|c: char| {
            c.is_whitespace() || c.is_ascii_digit() || "$,!".contains(c)
        });
        if cmd.starts_with("w ") || cmd.starts_with("W ") {
            return true;
        }
        let mut chars = cmd.chars();
        if chars.next() != Some('s') {
            return false;
        }
        let Some(delim) = chars.next() else {
            return false;
        };
        // s<d>pattern<d>replacement<d>flags: the flags follow the third unescaped delimiter.
        let mut seen = 0;
        let mut escaped = false;
        let mut flags = String::new();
        for c in chars {
            if seen == 2 {
                flags.push(c);
            } else if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == delim {
                seen += 1;
            }
        }
        flags.contains('w')
    })
}

/// `perl -i` / `ruby -i`: the file operands. Code given with `-e` and no `-i` is not read.
fn perl(r: &mut ShellReader, name: &str, args: &[Val], cwd: &Cwd) {
    let a = Args::parse(
        args,
        &["-e", "-E", "-I", "-M", "-m", "-r", "-C", "-x", "-0"],
    );
    // `-i`, `-i.bak`, `-pi`: an `i` in a cluster of short options.
    let in_place = a.has(&["-i"]);
    let code = a.has(&["-e", "-E"]);
    let files = if code {
        &a.ops[..]
    } else {
        a.ops.get(1..).unwrap_or(&[])
    };
    if in_place {
        for w in files {
            r.path(w, cwd, &format!("`{name} -i` of"));
        }
    } else if code {
        r.note(format!("`{name} -e` code"));
    } else if a.ops.is_empty() || a.ops[0].text == "-" {
        r.note(format!("`{name}` reading a program from standard input"));
    }
}

/// `awk -i inplace`: its files. An awk program that prints into files or runs commands
/// (`print > "f"`, `system(…)`, `"cmd" | getline`) is not read.
fn awk(r: &mut ShellReader, name: &str, args: &[Val], cwd: &Cwd) {
    let a = Args::parse(
        args,
        &[
            "-f",
            "-v",
            "-F",
            "-i",
            "-l",
            "-e",
            "--include",
            "--file",
            "--assign",
            "--field-separator",
            "--source",
            "--load",
        ],
    );
    let in_place = a
        .values(&["-i", "--include"])
        .any(|v| v.text == "inplace" || v.text == "inplace.awk");
    let sourced = a.has(&["-f", "--file", "-e", "--source"]);
    let (program, files) = if sourced {
        (None, &a.ops[..])
    } else {
        (a.ops.first(), a.ops.get(1..).unwrap_or(&[]))
    };
    let mut programs: Vec<&Val> = a.values(&["-e", "--source"]).collect();
    programs.extend(program);
    for p in programs {
        if p.dynamic || awk_writes(&p.text) {
            r.note(format!(
                "an `{name}` program that may write files or run commands"
            ));
        }
    }
    if a.has(&["-f", "--file"]) {
        r.note(format!("an `{name} -f` program file"));
    }
    if in_place {
        for w in files {
            r.path(w, cwd, &format!("`{name} -i inplace` of"));
        }
    }
}

fn awk_writes(program: &str) -> bool {
    if program.contains("system") || program.contains("getline") || program.contains("|&") {
        return true;
    }
    // `print … > "file"` / `printf … >> f` / `print | "cmd"`: a `>` or `|` after a print in
    // the same statement.
    program.match_indices("print").any(|(at, _)| {
        let rest = &program[at..];
        let end = rest.find([';', '}', '\n']).unwrap_or(rest.len());
        rest[..end].contains('>') || rest[..end].contains('|')
    })
}

/// `tar`: extracting writes into `-C DIR` (or the current directory); creating writes the
/// archive (`-f FILE`).
fn tar(r: &mut ShellReader, args: &[Val], cwd: &Cwd) {
    let mut list: Vec<Val> = args.to_vec();
    // Old style: `tar xzf a.tgz` is `tar -xzf a.tgz`.
    if let Some(first) = list.first_mut() {
        if !first.dynamic
            && !first.text.starts_with('-')
            && !first.text.is_empty()
            && first.text.chars().all(|c| c.is_ascii_alphabetic())
        {
            first.text = format!("-{}", first.text);
        }
    }
    let a = Args::parse(
        &list,
        &[
            "-f",
            "--file",
            "-C",
            "--directory",
            "-T",
            "--files-from",
            "-X",
            "--exclude-from",
            "-b",
            "--blocking-factor",
            "-H",
            "--format",
            "-I",
            "--use-compress-program",
            "-g",
            "--listed-incremental",
            "-K",
            "-N",
            "-V",
            "--label",
            "--transform",
            "--exclude",
            "--strip-components",
            "--owner",
            "--group",
            "--mode",
            "--mtime",
        ],
    );
    if a.has(&["-x", "--extract", "--get"]) {
        let dir = a
            .value(&["-C", "--directory"])
            .cloned()
            .unwrap_or_else(|| Val::fixed("."));
        r.path(&dir, cwd, "`tar -x` into");
    } else if a.has(&[
        "-c",
        "--create",
        "-r",
        "--append",
        "-u",
        "--update",
        "-A",
        "--catenate",
        "--delete",
    ]) {
        if let Some(f) = a.value(&["-f", "--file"]) {
            if f.text != "-" {
                let f = f.clone();
                r.path(&f, cwd, "`tar` archive");
            }
        }
    }
}

/// `git`: the commands that write the work tree. Those that rewrite files Rail cannot list
/// from the command line (a branch switch, a merge, a patch) are named as not analysed.
fn git(r: &mut ShellReader, args: &[Val], cwd: &mut Cwd) {
    // Global options: `-C DIR` moves, `-c k=v` and the like do not.
    let mut here = cwd.clone();
    let mut i = 0;
    while let Some(w) = args.get(i) {
        match w.text.as_str() {
            "-C" => {
                chdir(r, args.get(i + 1), &mut here, true);
                i += 2;
            }
            "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--exec-path" => {
                if w.text == "--work-tree" {
                    r.note("`git --work-tree` (another work tree)".into());
                    return;
                }
                i += 2;
            }
            t if t.starts_with("--work-tree=") => {
                r.note("`git --work-tree` (another work tree)".into());
                return;
            }
            t if t.starts_with('-') => i += 1,
            _ => break,
        }
    }
    let Some(sub) = args.get(i) else { return };
    let rest = &args[i + 1..];
    let whole = |r: &mut ShellReader, what: &str| {
        r.note(format!(
            "`git {what}` (rewrites files of the work tree Rail cannot list)"
        ))
    };
    let cwd = &here;
    match sub.text.as_str() {
        "add" | "stage" => stage(r, rest, cwd),
        "commit" => commit(r, rest, cwd),
        _ => {}
    }
    // The diff family (`diff`, `show`, `log`, `format-patch`…) and `archive` write their output
    // into `--output=FILE`.
    if !matches!(sub.text.as_str(), "config" | "bugreport" | "diagnose") {
        let mut k = 0;
        while let Some(w) = rest.get(k) {
            if w.text == "--" {
                break;
            }
            if let Some(f) = w.text.strip_prefix("--output=") {
                r.path(&Val::fixed(f), cwd, &format!("`git {} --output`", sub.text));
            } else if w.text == "--output" || (sub.text == "archive" && w.text == "-o") {
                if let Some(f) = rest.get(k + 1) {
                    let f = f.clone();
                    r.path(&f, cwd, &format!("`git {} --output`", sub.text));
                }
                k += 1;
            } else if sub.text == "archive" {
                if let Some(f) = w.text.strip_prefix("-o").filter(|f| !f.is_empty()) {
                    r.path(&Val::fixed(f), cwd, "`git archive -o`");
                }
            }
            k += 1;
        }
    }
    match sub.text.as_str() {
        "checkout" => {
            let a = Args::parse(
                rest,
                &[
                    "-b",
                    "-B",
                    "--orphan",
                    "--conflict",
                    "-U",
                    "--pathspec-from-file",
                ],
            );
            if let Some(dd) = rest.iter().position(|w| w.text == "--") {
                for w in &rest[dd + 1..] {
                    r.path(w, cwd, "`git checkout --` of");
                }
                return;
            }
            if a.has(&["--pathspec-from-file"]) {
                whole(r, "checkout --pathspec-from-file");
                return;
            }
            match a.ops.len() {
                // `-f` throws away every change of the work tree; `-p` and `-m` rewrite too.
                0 if a.has(&["-f", "--force", "-p", "--patch", "-m", "--merge"]) => {
                    whole(r, "checkout -f")
                }
                0 => {}
                _ if a.has(&["-b", "-B", "--orphan"]) => whole(r, "checkout -b NAME START"),
                _ => {
                    // A branch to switch to, or paths to restore: the same words.
                    for w in &a.ops {
                        r.path(w, cwd, "`git checkout` of");
                    }
                    whole(r, &format!("checkout {}", a.ops[0].text));
                }
            }
        }
        "restore" => {
            let a = Args::parse(rest, &["-s", "--source", "--pathspec-from-file"]);
            if a.has(&["--staged", "-S"]) && !a.has(&["--worktree", "-W"]) {
                return; // the index only
            }
            if a.ops.is_empty() {
                whole(r, "restore");
            }
            for w in &a.ops {
                r.path(w, cwd, "`git restore` of");
            }
        }
        "rm" | "mv" => {
            let a = Args::parse(rest, &["--pathspec-from-file"]);
            if a.has(&["--cached", "-n", "--dry-run"]) {
                return;
            }
            for w in &a.ops {
                r.path(w, cwd, &format!("`git {}` of", sub.text));
            }
        }
        "reset"
            if rest
                .iter()
                .any(|w| matches!(w.text.as_str(), "--hard" | "--merge" | "--keep")) =>
        {
            whole(r, "reset --hard");
        }
        "stash" => {
            let action = rest.first().map(|w| w.text.as_str()).unwrap_or("push");
            match action {
                "list" | "show" | "drop" | "clear" | "create" | "store" => {}
                _ => {
                    if let Some(dd) = rest.iter().position(|w| w.text == "--") {
                        for w in &rest[dd + 1..] {
                            r.path(w, cwd, "`git stash` of");
                        }
                    } else if rest.is_empty() {
                        whole(r, "stash");
                    } else {
                        whole(r, &format!("stash {action}"));
                    }
                }
            }
        }
        "clean" => {
            let a = Args::parse(rest, &["-e", "--exclude"]);
            if a.has(&["-n", "--dry-run"]) {
                return;
            }
            if a.ops.is_empty() {
                whole(r, "clean");
            }
            for w in &a.ops {
                r.path(w, cwd, "`git clean` of");
            }
        }
        "apply" => {
            let a = Args::parse(rest, &["-p", "-C", "--directory", "--exclude", "--include"]);
            if a.has(&["--check", "--stat", "--numstat", "--summary", "--cached"])
                && !a.has(&["--index"])
            {
                return;
            }
            whole(r, "apply");
        }
        "switch" => {
            let a = Args::parse(
                rest,
                &["-c", "-C", "--create", "--force-create", "--orphan"],
            );
            if a.has(&["-c", "-C", "--create", "--force-create"])
                && a.ops.is_empty()
                && !a.has(&["-f", "--force", "--discard-changes", "-m", "--merge"])
            {
                return; // a new branch at HEAD: no file changes
            }
            whole(r, "switch");
        }
        "am" | "merge" | "rebase" | "pull" | "cherry-pick" | "revert" | "read-tree"
        | "checkout-index" | "bisect" | "submodule" | "sparse-checkout" | "worktree" => {
            let first = rest.first().map(|w| w.text.as_str()).unwrap_or("");
            // Listing commands; `--abort` of a merge or rebase does rewrite files, so it counts.
            let harmless = matches!(
                (sub.text.as_str(), first),
                ("worktree", "list" | "prune")
                    | ("submodule", "status")
                    | ("bisect", "log" | "visualize" | "view")
            );
            if !harmless {
                whole(r, &sub.text);
            }
        }
        "format-patch" => {
            let a = Args::parse(rest, &["-o", "--output-directory", "--suffix"]);
            if a.has(&["--stdout", "--output"]) || rest.iter().any(|w| w.text.starts_with("--output=")) {
                return;
            }
            // Files named by their commits (`0001-subject.patch`), in the directory.
            let suffix = a
                .value(&["--suffix"])
                .map(|v| v.text.clone())
                .unwrap_or_else(|| ".patch".into());
            let files = match a.value(&["-o", "--output-directory"]) {
                Some(dir) => Val {
                    text: format!("{}/*{suffix}", dir.text.trim_end_matches('/')),
                    dynamic: dir.dynamic,
                },
                None => Val::fixed(format!("*{suffix}")),
            };
            r.path(&files, cwd, "`git format-patch` into");
        }
        "bundle" => {
            if rest.first().is_some_and(|w| w.text == "create") {
                let a = Args::parse(&rest[1..], &["--version"]);
                if let Some(file) = a.ops.first().filter(|f| f.text != "-") {
                    r.path(file, cwd, "`git bundle create`");
                }
            }
        }
        "merge-file" => {
            let a = Args::parse(rest, &["-L", "--marker-size", "--diff-algorithm"]);
            if !a.has(&["-p", "--stdout", "--object-id"]) {
                if let Some(file) = a.ops.first() {
                    r.path(file, cwd, "`git merge-file` of");
                }
            }
        }
        "clone" => {
            let a = Args::parse(
                rest,
                &[
                    "-o", "--origin", "-b", "--branch", "-u", "--upload-pack", "--reference",
                    "--separate-git-dir", "--depth", "--shallow-since", "--shallow-exclude",
                    "-c", "--config", "--filter", "-j", "--jobs", "--template", "--bundle-uri",
                    "--server-option", "--ref-format", "--revision",
                ],
            );
            match (a.ops.first(), a.ops.get(1)) {
                (_, Some(dir)) => r.path(dir, cwd, "`git clone` into"),
                (Some(url), None) => {
                    let name = base_name(url.text.trim_end_matches('/'));
                    let name = name.strip_suffix(".git").unwrap_or(name);
                    let name = name.rsplit(':').next().unwrap_or(name);
                    r.path(
                        &Val {
                            text: name.to_string(),
                            dynamic: url.dynamic,
                        },
                        cwd,
                        "`git clone` into",
                    );
                }
                _ => {}
            }
        }
        "init" => {
            let a = Args::parse(rest, &["--template", "--separate-git-dir", "-b", "--initial-branch", "--object-format", "--ref-format", "--shared"]);
            if let Some(dir) = a.ops.first() {
                r.path(dir, cwd, "`git init` of");
            }
        }
        "config" => {
            let a = Args::parse(rest, &["-f", "--file", "--blob", "--type", "--default", "--comment"]);
            let reads = a.has(&["--get", "--get-all", "--get-regexp", "--get-urlmatch", "-l", "--list", "--get-color", "--get-colorbool", "-e", "--edit"])
                || a.ops.first().is_some_and(|w| matches!(w.text.as_str(), "get" | "list"))
                || (a.ops.len() == 1 && !a.has(&["--unset", "--unset-all", "--remove-section", "--rename-section"]));
            if let Some(file) = a.value(&["-f", "--file"]) {
                if !reads || a.has(&["-e", "--edit"]) {
                    let file = file.clone();
                    r.path(&file, cwd, "`git config --file`");
                }
            }
        }
        "bugreport" | "diagnose" => {
            let a = Args::parse(rest, &["-o", "--output-directory", "-s", "--suffix", "--mode"]);
            let files = match a.value(&["-o", "--output-directory"]) {
                Some(dir) => Val {
                    text: format!("{}/git-{}-*", dir.text.trim_end_matches('/'), sub.text),
                    dynamic: dir.dynamic,
                },
                None => Val::fixed(format!("git-{}-*", sub.text)),
            };
            r.path(&files, cwd, &format!("`git {}` into", sub.text));
        }
        // Tools run on the work tree's files (a merge tool saves into them), and commands that
        // check files out.
        "mergetool" | "difftool" | "filter-branch" | "lfs" | "gui" | "citool" | "rerere"
        | "unpack-file" => {
            let first = rest.first().map(|w| w.text.as_str()).unwrap_or("");
            let harmless = matches!(
                (sub.text.as_str(), first),
                ("lfs", "ls-files" | "status" | "env" | "version" | "track" | "untrack" | "locks" | "fetch" | "push" | "logs")
                    | ("rerere", "status" | "diff" | "remaining" | "gc")
            );
            if !harmless {
                whole(r, &sub.text);
            }
        }
        s if GIT_READERS.contains(&s) => {}
        // An alias or an extension (`git-NAME` on the PATH) may run anything.
        s => r.note(format!(
            "`git {s}` (a git command Rail does not know: an alias or an extension may write anything)"
        )),
    }
}

/// A pathspec of `git add` or `git commit`, joined to where the command runs; `None` (and the
/// commit marked unknown) when it is only known when it runs.
fn pathspec(w: &Val, cwd: &Cwd) -> Option<String> {
    if w.dynamic {
        return None;
    }
    let dir = cwd.as_deref()?;
    Some(if w.text == "." {
        if dir.is_empty() {
            ".".to_string()
        } else {
            dir.trim_end_matches('/').to_string()
        }
    } else {
        join(dir, &w.text)
    })
}

/// `git add` / `git stage`: what it stages, for the next `git commit` in the line.
fn stage(r: &mut ShellReader, args: &[Val], cwd: &Cwd) {
    let mut operands = false;
    for w in args {
        let t = w.text.as_str();
        if !operands && t == "--" {
            operands = true;
            continue;
        }
        if !operands && t.starts_with('-') && t.len() > 1 {
            match t {
                "-A" | "--all" | "--no-ignore-removal" => {
                    r.staging.all = true;
                    r.staging.new_files = true;
                }
                "-u" | "--update" => r.staging.all = true,
                "-n" | "--dry-run" => return,
                _ if t.starts_with("--pathspec-from-file") => r.staging.unknown = true,
                _ => {}
            }
            continue;
        }
        match pathspec(w, cwd) {
            Some(p) => r.staging.added.push(p),
            None => r.staging.unknown = true,
        }
    }
}

/// `git commit`: what it takes — the staged files, with `-a` every tracked change, with
/// pathspecs only those (`-i`: those besides the staged).
fn commit(r: &mut ShellReader, args: &[Val], cwd: &Cwd) {
    // The options whose value is the next word (or the rest of a short cluster).
    const SHORT_TAKES: &str = "mFCct";
    const LONG_TAKES: &[&str] = &[
        "--message",
        "--file",
        "--reuse-message",
        "--reedit-message",
        "--template",
        "--author",
        "--date",
        "--cleanup",
        "--fixup",
        "--squash",
        "--trailer",
        "--pathspec-from-file",
    ];
    let mut c = std::mem::take(&mut r.staging);
    let mut paths = Vec::new();
    let mut include = false;
    let mut operands = false;
    let mut i = 0;
    while let Some(w) = args.get(i) {
        i += 1;
        let t = w.text.as_str();
        if operands || w.dynamic || !t.starts_with('-') || t == "-" {
            match pathspec(w, cwd) {
                Some(p) => paths.push(p),
                None => c.unknown = true,
            }
            continue;
        }
        if t == "--" {
            operands = true;
        } else if let Some(long) = t.strip_prefix("--") {
            let name = long.split_once('=').map_or(long, |(n, _)| n);
            match name {
                "all" => c.all = true,
                "include" => include = true,
                "pathspec-from-file" => c.unknown = true,
                "dry-run" => return,
                _ => {}
            }
            if !long.contains('=') && LONG_TAKES.contains(&t) {
                i += 1;
            }
        } else {
            for (k, ch) in t[1..].char_indices() {
                match ch {
                    'a' => c.all = true,
                    'i' => include = true,
                    _ if SHORT_TAKES.contains(ch) => {
                        // The value is the rest of the cluster, else the next word.
                        if k + 1 + ch.len_utf8() >= t.len() {
                            i += 1;
                        }
                        break;
                    }
                    _ => {}
                }
            }
        }
    }
    if include {
        c.added.extend(paths);
    } else {
        c.only = paths;
    }
    r.out.commits.push(c);
}

/// git's commands that write nothing into the work tree (their `--output` is read above).
const GIT_READERS: &[&str] = &[
    "status",
    "log",
    "diff",
    "show",
    "branch",
    "tag",
    "fetch",
    "push",
    "remote",
    "rev-parse",
    "rev-list",
    "ls-files",
    "ls-tree",
    "ls-remote",
    "cat-file",
    "blame",
    "annotate",
    "grep",
    "shortlog",
    "describe",
    "reflog",
    "commit",
    "add",
    "stage",
    "notes",
    "help",
    "version",
    "count-objects",
    "fsck",
    "gc",
    "prune",
    "repack",
    "verify-commit",
    "verify-tag",
    "verify-pack",
    "merge-base",
    "name-rev",
    "show-ref",
    "symbolic-ref",
    "update-ref",
    "for-each-ref",
    "hash-object",
    "update-index",
    "write-tree",
    "commit-tree",
    "mktree",
    "mktag",
    "var",
    "whatchanged",
    "range-diff",
    "cherry",
    "check-ignore",
    "check-attr",
    "check-ref-format",
    "check-mailmap",
    "interpret-trailers",
    "column",
    "credential",
    "maintenance",
    "diff-tree",
    "diff-files",
    "diff-index",
    "show-branch",
    "request-pull",
    "send-email",
    "replace",
    "archive",
    "reset",
    "fast-export",
    "instaweb",
    "mailinfo",
    "mailsplit",
    "patch-id",
    "stripspace",
    "show-index",
    "multi-pack-index",
    "commit-graph",
    "pack-refs",
    "merge-tree",
    "replay",
    "backfill",
    "refs",
    "last-modified",
];

/// `find`: `-delete` and writers run by `-exec`/`-execdir`/`-ok`/`-okdir` write what it finds,
/// which is under its starting points; `-fprint FILE` writes FILE.
fn find(r: &mut ShellReader, args: &[Val], cwd: &mut Cwd) {
    let mut starts: Vec<Val> = Vec::new();
    let mut i = 0;
    // Options before the starting points.
    while let Some(w) = args.get(i) {
        if matches!(w.text.as_str(), "-H" | "-L" | "-P")
            || w.text.starts_with("-O")
            || w.text == "-D"
        {
            i += if w.text == "-D" { 2 } else { 1 };
        } else {
            break;
        }
    }
    while let Some(w) = args.get(i) {
        if !w.dynamic && (w.text.starts_with('-') || w.text == "(" || w.text == "!") {
            break;
        }
        starts.push(w.clone());
        i += 1;
    }
    if starts.is_empty() {
        starts.push(Val::fixed("."));
    }
    let found = |r: &mut ShellReader, cwd: &Cwd, what: &str| {
        for s in &starts {
            r.path(s, cwd, what);
        }
    };
    while let Some(w) = args.get(i) {
        i += 1;
        match w.text.as_str() {
            "-delete" => found(r, cwd, "`find -delete` under"),
            "-fprint" | "-fprint0" | "-fls" | "-fprintf" => {
                if let Some(f) = args.get(i) {
                    let f = f.clone();
                    r.path(&f, cwd, "`find -fprint`");
                }
                i += if w.text == "-fprintf" { 2 } else { 1 };
            }
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let end = args[i..]
                    .iter()
                    .position(|a| a.text == ";" || a.text == "+")
                    .map(|p| i + p)
                    .unwrap_or(args.len());
                let inner = &args[i..end];
                i = end + 1;
                // The found files stand in for `{}`: every file under the starting points.
                let mut sub = Scratch {
                    out: Writes::default(),
                };
                for s in &starts {
                    let spot = if s.text == "." || s.text.is_empty() {
                        "**".to_string()
                    } else {
                        format!("{}/**", s.text.trim_end_matches('/'))
                    };
                    let words: Vec<Val> = inner
                        .iter()
                        .map(|a| {
                            if a.text.contains("{}") {
                                Val {
                                    text: a.text.replace("{}", &spot),
                                    dynamic: a.dynamic || s.dynamic,
                                }
                            } else {
                                a.clone()
                            }
                        })
                        .collect();
                    let mut own = cwd.clone();
                    sub.run(r, &words, &mut own);
                }
                sub.finish(r);
            }
            _ => {}
        }
    }
}

/// Runs a command on a scratch result, to look at what it would write before keeping it.
struct Scratch {
    out: Writes,
}

impl Scratch {
    fn run(&mut self, r: &mut ShellReader, words: &[Val], cwd: &mut Cwd) {
        let mut inner = ShellReader {
            src: r.src,
            out: &mut self.out,
            depth: r.depth,
            stdin: None,
            staging: super::GitCommit::default(),
        };
        run(&mut inner, words, cwd);
    }

    fn finish(self, r: &mut ShellReader) {
        r.out.targets.extend(self.out.targets);
        r.out.unanalysed.extend(self.out.unanalysed);
        r.out.commits.extend(self.out.commits);
    }
}

/// `xargs CMD`: CMD's operands come from standard input. A command that writes its operands
/// cannot be judged; one that only reads is harmless.
fn xargs(r: &mut ShellReader, args: &[Val], cwd: &mut Cwd) {
    let takes = [
        "-I",
        "-i",
        "-n",
        "-P",
        "-d",
        "-L",
        "-l",
        "-E",
        "-e",
        "-s",
        "-a",
        "--arg-file",
        "--delimiter",
        "--max-args",
        "--max-procs",
        "--max-lines",
        "--replace",
        "--eof",
        "--max-chars",
        "--process-slot-var",
    ];
    let inner = after_options(args, &takes);
    let replace = Args::parse(&args[..args.len() - inner.len()], &takes)
        .value(&["-I", "-i", "--replace"])
        .map(|v| v.text.clone());
    let Some(program) = inner.first() else {
        return; // `xargs` alone echoes
    };
    if program.dynamic {
        r.note(format!("`xargs {}`", program.text));
        return;
    }
    let name = base_name(&program.text);
    // Look at what the command writes with a marker standing in for its input.
    const MARK: &str = "\u{1}stdin\u{1}";
    let mut words: Vec<Val> = inner.to_vec();
    match &replace {
        Some(rep) if !rep.is_empty() => {
            for w in &mut words {
                w.text = w.text.replace(rep.as_str(), MARK);
            }
        }
        _ => words.push(Val::fixed(MARK)),
    }
    let mut scratch = Scratch {
        out: Writes::default(),
    };
    let mut own = cwd.clone();
    scratch.run(r, &words, &mut own);
    let from_input = scratch.out.targets.iter().any(|t| t.contains(MARK))
        || scratch.out.unanalysed.iter().any(|t| t.contains(MARK));
    scratch.out.targets.retain(|t| !t.contains(MARK));
    scratch.out.unanalysed.retain(|t| !t.contains(MARK));
    if from_input || !is_known(name) {
        r.note(format!(
            "`xargs {name}` (its operands come from standard input)"
        ));
    }
    scratch.finish(r);
}

/// Programs whose writes the table knows (readers, and writers it reads the operands of):
/// anything else run by `xargs` is not judged.
fn is_known(name: &str) -> bool {
    READERS.contains(&name)
        || matches!(
            name,
            "tee"
                | "rm"
                | "rmdir"
                | "unlink"
                | "touch"
                | "mkdir"
                | "truncate"
                | "shred"
                | "cp"
                | "mv"
                | "install"
                | "ln"
                | "chmod"
                | "chown"
                | "chgrp"
                | "sed"
                | "sort"
                | "uniq"
                | "git"
                | "gzip"
                | "gunzip"
        )
}

/// Code-formatting tools that rewrite their file operands in place.
fn formatter(r: &mut ShellReader, name: &str, args: &[Val], cwd: &Cwd) {
    let a = Args::parse(
        args,
        &[
            "--config",
            "-c",
            "--ignore-path",
            "--parser",
            "--stdin-filepath",
            "--ext",
            "--target-version",
            "-l",
            "--line-length",
            "--edition",
            "--style",
        ],
    );
    let sub = a.ops.first().map(|w| w.text.as_str());
    let checking = a.has(&["--check", "--diff", "-d"]);
    let writes = match name {
        "prettier" => a.has(&["--write", "-w"]),
        "biome" => a.has(&["--write", "--apply"]),
        "dprint" => sub == Some("fmt"),
        "eslint" | "stylelint" => a.has(&["--fix"]),
        "gofmt" | "shfmt" => a.has(&["-w"]),
        "clang-format" => a.has(&["-i"]),
        "autopep8" | "yapf" => a.has(&["-i", "--in-place"]),
        "ruff" => {
            (sub == Some("format") && !checking) || (sub == Some("check") && a.has(&["--fix"]))
        }
        // black, isort, rustfmt rewrite their operands unless asked only to check.
        _ => !checking,
    };
    if !writes {
        return;
    }
    let skip = usize::from(matches!(name, "ruff" | "biome" | "dprint") && !a.ops.is_empty());
    let files = a.ops.get(skip..).unwrap_or(&[]);
    if files.is_empty() {
        r.path(&Val::fixed("."), cwd, &format!("`{name}` of"));
    }
    for w in files {
        r.path(w, cwd, &format!("`{name}` of"));
    }
}

/// `bash -c '…'` (and the other shells): the string is read as a command line, in the same
/// directory. A script file or standard input is not read.
fn shell(r: &mut ShellReader, name: &str, args: &[Val], cwd: &mut Cwd) {
    let a = Args::parse(args, &["-o", "+o", "-O", "+O", "--rcfile", "--init-file"]);
    let has_c = a.has(&["-c"]);
    if name == "busybox" {
        return;
    }
    if has_c {
        match a.ops.first() {
            Some(code) if code.dynamic => r.note(format!(
                "a `{name} -c` script only known when it runs (`{}`)",
                code.text
            )),
            Some(code) => {
                let mut own = cwd.clone();
                nested(r, &code.text, &mut own, &format!("a `{name} -c` script"));
            }
            None => {}
        }
        return;
    }
    if (a.has(&["-s"]) || a.ops.is_empty()) && !a.has(&["--version", "--help"]) {
        r.note(format!("`{name}` reading commands from standard input"));
    }
}

/// Interpreters given code on their command line or standard input.
fn interpreter(r: &mut ShellReader, name: &str, code_opts: &[&str], args: &[Val]) {
    if name == "deno" {
        if args.first().is_some_and(|w| w.text == "eval") {
            r.note("`deno eval` code".into());
        }
        return;
    }
    if let Some(opt) = args
        .iter()
        .take_while(|w| w.text.starts_with('-') || code_opts.contains(&w.text.as_str()))
        .find(|w| {
            code_opts.contains(&w.text.as_str())
                || (w.text.starts_with('-')
                    && !w.text.starts_with("--")
                    && code_opts
                        .iter()
                        .any(|c| c.len() == 2 && w.text.len() > 2 && w.text.ends_with(&c[1..])))
        })
    {
        r.note(format!("`{name} {}` code", opt.text));
        return;
    }
    let takes: &[&str] = match name {
        n if n.starts_with("python") => &["-m", "-W", "-X", "-Q"],
        "node" | "nodejs" | "bun" => &["-r", "--require", "--import", "--loader", "--input-type"],
        _ => &[],
    };
    let a = Args::parse(args, takes);
    if a.has(&["-m", "--version", "-V", "--help", "-h", "-v"]) {
        return;
    }
    if a.ops.first().is_none_or(|w| w.text == "-") {
        r.note(format!("`{name}` reading a program from standard input"));
    }
}

/// A word the grammar made of several braces (`! { { cp a b; }; }` reads as a command named
/// `{ {`): keywords of nested groups, not a program.
fn is_braces(word: &str) -> bool {
    word.contains('{') && word.chars().all(|c| c == '{' || c.is_whitespace())
}
