//! Every git command line Rail runs, and the one place a git process is started.
//!
//! A value Rail did not write itself — a `--base` from a user, an MCP argument from an agent, a
//! hook payload, rail.yaml's remote or station base, an id read from the remote or from a file
//! of the rail — never reaches git as an option. `check {"base": "--output=F"}` once made
//! `git diff --merge-base --output=F` empty the file F, and rail.yaml's `remote:
//! --upload-pack=CMD` ran CMD on every fetch (issue 41). So a [`GitLine`] keeps git's options
//! and the values apart by type:
//! - an option is Rail's own word, a `&'static str` ([`GitLine::new`], [`GitLine::opt`]);
//! - an option's value is joined to it as one word (`--format=…`, `-b…`, `-c key=…`:
//!   [`GitLine::set`], [`GitLine::config`]), where git never reads it as an option of its own;
//! - any other value is an operand ([`GitLine::operand`]): it follows `--end-of-options`, and one
//!   that still looks like an option (or holds a control character) is refused before git
//!   starts, by core's rule ([`rail_core::text::ident::validate_operand`]);
//! - paths follow `--` ([`GitLine::paths`]).
//!
//! [`process`] is the only `Command::new("git")` of the CLI (a tidy test holds that), and a
//! [`GitProcess`] has no way to add an argument.

use std::borrow::Cow;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

/// One git command line: git's global options, the subcommand and its options, then the
/// operands after `--end-of-options`, then the paths after `--`.
#[derive(Clone, Debug, Default)]
pub struct GitLine<'a> {
    words: Vec<Cow<'a, str>>,
    operands: Vec<Cow<'a, str>>,
    paths: Vec<Cow<'a, str>>,
}

impl<'a> GitLine<'a> {
    /// A command line of Rail's own words: `GitLine::new(&["diff", "--name-only", "-z"])`.
    pub fn new(words: &[&'static str]) -> GitLine<'a> {
        GitLine {
            words: words.iter().map(|w| Cow::Borrowed(*w)).collect(),
            ..GitLine::default()
        }
    }

    /// One more of Rail's own words.
    pub fn opt(mut self, word: &'static str) -> GitLine<'a> {
        self.words.push(Cow::Borrowed(word));
        self
    }

    /// An option with its value as one word: `--name=value` for a long option (`name` given as
    /// `--name=`), `-Xvalue` for a short one (`-X`): git reads the whole word as that option,
    /// whatever the value starts with.
    pub fn set(mut self, name: &'static str, value: &str) -> GitLine<'a> {
        self.words.push(Cow::Owned(format!("{name}{value}")));
        self
    }

    /// `-c key=value` before the subcommand (call it first).
    pub fn config(mut self, key: &'static str, value: &str) -> GitLine<'a> {
        self.words.push(Cow::Borrowed("-c"));
        self.words.push(Cow::Owned(format!("{key}={value}")));
        self
    }

    /// A value from anywhere: a revision, a ref, a remote, a refspec, a worktree's directory.
    pub fn operand(mut self, value: impl Into<Cow<'a, str>>) -> GitLine<'a> {
        self.operands.push(value.into());
        self
    }

    /// Paths, after `--`, read as paths whatever they start with.
    pub fn paths<S: Into<Cow<'a, str>>>(
        mut self,
        paths: impl IntoIterator<Item = S>,
    ) -> GitLine<'a> {
        self.paths.extend(paths.into_iter().map(Into::into));
        self
    }

    /// The arguments git is started with; an error naming the operand that is refused.
    pub fn argv(&self) -> Result<Vec<&str>, String> {
        let mut argv: Vec<&str> = self.words.iter().map(|w| w.as_ref()).collect();
        if !self.operands.is_empty() {
            argv.push("--end-of-options");
            for value in &self.operands {
                rail_core::text::ident::validate_operand(value).map_err(|e| {
                    format!(
                        "refused to run git {}: {e}",
                        self.words.first().map(|w| w.as_ref()).unwrap_or("")
                    )
                })?;
                argv.push(value);
            }
        }
        if !self.paths.is_empty() {
            argv.push("--");
            argv.extend(self.paths.iter().map(|p| p.as_ref()));
        }
        Ok(argv)
    }

    /// The line as a person would type it, for messages.
    pub fn shown(&self) -> String {
        let mut words: Vec<&str> = self.words.iter().map(|w| w.as_ref()).collect();
        words.extend(self.operands.iter().map(|w| w.as_ref()));
        words.join(" ")
    }
}

/// A git process about to start: its streams and environment may be set, its arguments not.
#[derive(Debug)]
pub struct GitProcess(Command);

/// The git process for `line` in `dir` (stdin closed unless set otherwise), or why it is refused.
pub fn process(dir: &Path, line: &GitLine) -> Result<GitProcess, String> {
    let mut command = Command::new("git");
    command
        .args(line.argv()?)
        .current_dir(dir)
        .stdin(Stdio::null());
    Ok(GitProcess(command))
}

impl GitProcess {
    pub fn env(mut self, key: &str, value: &str) -> GitProcess {
        self.0.env(key, value);
        self
    }

    pub fn stdin(mut self, stdin: Stdio) -> GitProcess {
        self.0.stdin(stdin);
        self
    }

    pub fn stdout(mut self, stdout: Stdio) -> GitProcess {
        self.0.stdout(stdout);
        self
    }

    pub fn stderr(mut self, stderr: Stdio) -> GitProcess {
        self.0.stderr(stderr);
        self
    }

    /// Starts it in a process group of its own on Unix, so a transport helper it starts (`ssh`,
    /// `git-remote-https`) can be stopped with it.
    #[cfg(unix)]
    pub fn own_group(mut self) -> GitProcess {
        use std::os::unix::process::CommandExt;
        self.0.process_group(0);
        self
    }

    /// Elsewhere a child stays in Rail's group: Windows has no process groups to join.
    #[cfg(not(unix))]
    pub fn own_group(self) -> GitProcess {
        self
    }

    pub fn spawn(mut self) -> std::io::Result<Child> {
        self.0.spawn()
    }

    /// Runs it to the end, its output captured.
    pub fn output(mut self) -> std::io::Result<Output> {
        self.0.output()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_follow_end_of_options_and_paths_follow_dashes() {
        let line = GitLine::new(&["diff", "--name-only"])
            .opt("-z")
            .set("--format=", "%(refname) --x")
            .operand("main")
            .paths(["-weird-file"]);
        assert_eq!(
            line.argv().unwrap(),
            [
                "diff",
                "--name-only",
                "-z",
                "--format=%(refname) --x",
                "--end-of-options",
                "main",
                "--",
                "-weird-file"
            ]
        );
        assert_eq!(
            GitLine::new(&["status"]).argv().unwrap(),
            ["status"],
            "no operands: no --end-of-options"
        );
        let config = GitLine::default()
            .config("protocol.version", "2")
            .opt("fetch");
        assert_eq!(
            config.argv().unwrap(),
            ["-c", "protocol.version=2", "fetch"]
        );
    }

    #[test]
    fn an_operand_that_looks_like_an_option_is_refused_before_git_starts() {
        for bad in [
            "--output=/tmp/x",
            "-b",
            "--upload-pack=touch x",
            "a\nb",
            "x\0y",
        ] {
            let line = GitLine::new(&["diff", "--merge-base"]).operand(bad);
            let err = line.argv().unwrap_err();
            assert!(
                err.starts_with("refused to run git diff: "),
                "{bad:?}: {err}"
            );
            assert!(process(Path::new("."), &line).is_err(), "{bad:?}");
        }
        // Not an option: kept as given (git judges whether it names anything).
        for fine in [
            "main",
            "origin/main",
            "HEAD~2",
            "",
            "+refs/rail/claims:refs/rail/fetched",
        ] {
            assert!(
                GitLine::new(&["x"]).operand(fine).argv().is_ok(),
                "{fine:?}"
            );
        }
    }
}
