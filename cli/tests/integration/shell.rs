//! Shell integration: the completion scripts and the man pages `rail` prints are what the shells
//! and `man` accept, and they know every command. Needs bash and man (man-db; installed by
//! scripts/bootstrap.sh test).

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn rail(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rail"))
        .args(args)
        .output()
        .expect("run rail")
}

fn text(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).expect("utf-8")
}

/// Runs `program args` with `input` on stdin; its stdout, or a failure that says what is missing.
fn pipe(program: &str, args: &[&str], input: &str, env: &[(&str, &str)]) -> String {
    let mut child = Command::new(program)
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{program}: {e} (scripts/bootstrap.sh test installs it)"));
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{program} {args:?} exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Every command a user can type, read from `rail --help` (so a new command is covered too).
fn commands() -> Vec<String> {
    let help = text(&rail(&["--help"]));
    let list = help
        .split("Commands:")
        .nth(1)
        .expect("a Commands section")
        .split("\n\n")
        .next()
        .unwrap();
    let names: Vec<String> = list
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .filter(|n| n != "help")
        .collect();
    assert!(names.len() > 15, "{names:?}");
    assert!(names.iter().any(|n| n == "merge-driver"));
    names
}

#[test]
fn bash_completion_is_valid_bash_and_completes_every_command() {
    let script = text(&rail(&["completions", "bash"]));
    pipe("bash", &["-n"], &script, &[]);
    // Loaded into a shell, it completes `rail wo` to the worktree command and `rail claim --pa`.
    let complete = |words: &str| {
        let probe = format!(
            "{script}\nCOMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); \
             _rail rail \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"; \
             printf '%s\\n' \"${{COMPREPLY[@]}}\""
        );
        pipe("bash", &[], &probe, &[])
    };
    assert_eq!(complete("rail wo").trim(), "worktree");
    assert!(complete("rail claim --pa").lines().any(|l| l == "--path"));
    for command in commands() {
        assert!(
            script.contains(&format!("rail,{command})")),
            "bash completion lacks {command}"
        );
    }
}

#[test]
fn every_shell_gets_a_script_naming_every_command() {
    let commands = commands();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let script = text(&rail(&["completions", shell]));
        for command in &commands {
            assert!(script.contains(command.as_str()), "{shell} lacks {command}");
        }
    }
    let out = rail(&["completions", "tcsh"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "an unknown shell is a usage error"
    );
}

#[test]
fn man_renders_with_every_command_and_the_exit_codes() {
    let roff = text(&rail(&["man"]));
    let shown = pipe(
        "man",
        &["-l", "-"],
        &roff,
        &[("MANWIDTH", "100"), ("MAN_KEEP_FORMATTING", "0")],
    );
    // man may print with overstrike when its output is not a terminal; compare plain text.
    let plain: String = {
        let mut s = String::new();
        for c in shown.chars() {
            if c == '\u{8}' {
                s.pop();
            } else {
                s.push(c);
            }
        }
        // man justifies lines, so words may be two spaces apart: compare words.
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .replace("\u{2010} ", "")
    };
    // groff justifies wrapped lines, putting the extra spaces at alternate ends of alternate
    // lines: whether `Exit codes: 0 done` reads with single spaces depends on how many lines
    // come before it (a command more or a longer description flips it). Compare words.
    let plain = plain
        .split(' ')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(plain.contains("NAME"), "{plain}");
    assert!(plain.contains("rail - A ticket rail"), "{plain}");
    assert!(plain.contains("Exit codes: 0 done"), "{plain}");
    for command in commands() {
        assert!(
            plain.contains(&format!("rail-{command}(1)")),
            "man page lacks {command}"
        );
    }
}

#[test]
fn man_dir_writes_the_page_every_command_refers_to() {
    let dir = tempfile::tempdir().unwrap();
    let man1: PathBuf = dir.path().join("man1");
    text(&rail(&["man", "--dir", man1.to_str().unwrap()]));
    for command in commands() {
        let page = man1.join(format!("rail-{command}.1"));
        let roff = std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{page:?}: {e}"));
        let shown = pipe("man", &["-l", "-"], &roff, &[("MANWIDTH", "100")]);
        assert!(shown.contains("SYNOPSIS"), "{command}: {shown}");
    }
    assert!(man1.join("rail.1").is_file());
}
