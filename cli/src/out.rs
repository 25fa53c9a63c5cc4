//! Standard output that a closed pipe does not crash.
//!
//! `println!` panics when stdout's reader is gone (`rail board --json | head -1`, `| true`):
//! a backtrace and exit 101 for what other Unix tools take quietly. Output goes through
//! [`outln!`] and [`out!`] instead: a reader that went away means nobody wants the rest, so the
//! rest is dropped and the command ends with its own exit code (a claim that was made is still
//! exit 0). Any other write error is reported once on stderr, as an environment failure.

use std::fmt;
use std::io::{self, Write};

/// `println!` for the CLI's answers (see the module docs).
macro_rules! outln {
    () => {
        $crate::out::write(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::out::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` for the CLI's answers (see the module docs).
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::out::write(format_args!($($arg)*))
    };
}

pub fn write(args: fmt::Arguments<'_>) {
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
