//! Standard output that a closed pipe does not crash.
//!
//! `println!` panics when stdout's reader is gone (`rail board --json | head -1`, `| true`):
//! a backtrace and exit 101 for what other Unix tools take quietly. Output goes through
//! [`outln!`] and [`out!`] instead: a reader that went away means nobody wants the rest, so the
//! rest is dropped and the command ends with its own exit code (a claim that was made is still
//! exit 0). Any other write error is reported once on stderr, as an environment failure.
//!
//! Text output is terminal-safe (issue 17, finding 7): what Rail prints comes largely from
//! files anyone can write (a purpose, a session, a lock's host), so [`outln!`], [`out!`] and
//! [`errln!`] escape every control, bidi and invisible format character (core's
//! `text::terminal_safe_lines`) — a claim cannot set the window title, clear the screen or
//! write the clipboard. Two outputs skip it: JSON ([`outln_raw!`]; serde escapes controls, and
//! its readers are programs) and the coloured board, whose renderer escapes each value itself
//! (`render::safe`) so its own colour codes survive.

use std::fmt;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set by `rail mcp`: stdout carries the protocol and nothing else.
static STDOUT_IS_PROTOCOL: AtomicBool = AtomicBool::new(false);

/// From now on stdout belongs to a protocol (`rail mcp`'s JSON-RPC): whatever a command would
/// print through these macros goes to stderr instead, so no stray line can break a client.
pub fn reserve_stdout_for_protocol() {
    STDOUT_IS_PROTOCOL.store(true, Ordering::SeqCst);
}

/// `println!` for the CLI's answers, terminal-safe (see the module docs).
macro_rules! outln {
    () => {
        $crate::out::write(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::out::write_safe(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` for the CLI's answers, terminal-safe (see the module docs).
#[allow(unused_macros, reason = "kept beside outln! for symmetry")]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::out::write_safe(format_args!($($arg)*))
    };
}

/// `println!` for JSON and for text already made terminal-safe: written as it is.
macro_rules! outln_raw {
    ($($arg:tt)*) => {
        $crate::out::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` for text already made terminal-safe (the coloured board).
macro_rules! out_raw {
    ($($arg:tt)*) => {
        $crate::out::write(format_args!($($arg)*))
    };
}

/// `eprintln!`, terminal-safe: error messages quote file text (sessions, tasks, marker lines).
macro_rules! errln {
    ($($arg:tt)*) => {
        eprintln!("{}", rail_core::text::terminal_safe_lines(&format!($($arg)*)))
    };
}

/// Writes `args` with every unsafe character escaped (line feeds and tabs stay).
pub fn write_safe(args: fmt::Arguments<'_>) {
    let text = args.to_string();
    write(format_args!(
        "{}",
        rail_core::text::terminal_safe_lines(&text)
    ));
}

pub fn write(args: fmt::Arguments<'_>) {
    if STDOUT_IS_PROTOCOL.load(Ordering::SeqCst) {
        let _ = io::stderr().lock().write_fmt(args);
        return;
    }
    let mut stdout = io::stdout().lock();
    match stdout.write_fmt(args).and_then(|()| stdout.flush()) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {}
        Err(e) => {
            eprintln!("rail: cannot write to standard output: {e}");
            std::process::exit(crate::fail::ENVIRONMENT);
        }
    }
}

/// `value` as pretty JSON on stdout (as written: JSON is for programs).
pub fn print_json<T: serde::Serialize>(value: &T) {
    outln_raw!(
        "{}",
        serde_json::to_string_pretty(value).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    );
}

// After the macros: they are in scope for the modules declared below them.
pub mod hint;
pub mod outcome;
pub mod render;
