//! `rail validate`: every diagnostic of the rail (or of the files named) as
//! `file:line:col: severity[code]: message`, or as GitHub's annotations in CI.

use std::path::PathBuf;

use rail_core::model::board;
use rail_core::text::diagnostic::Severity;

use crate::context::{Commits, Ctx};
use crate::fail::{self, Fail};
use crate::out::print_json;

#[derive(clap::Args, Debug)]
pub struct ValidateArgs {
    /// For a CI job: fail on anything a hosted merge (which never runs the merge driver) can
    /// leave behind — conflict markers, duplicate claims, an unreadable rail — and print
    /// GitHub Actions annotations when $GITHUB_ACTIONS is set.
    #[arg(long)]
    pub ci: bool,
    /// Files to validate (default: the whole rail).
    pub files: Vec<PathBuf>,
}

pub fn run(ctx: &Ctx, args: &ValidateArgs) -> Result<(), Fail> {
    let diagnostics = if args.files.is_empty() {
        let texts = ctx.read_on_disk()?;
        let facts = ctx.facts(&texts, Commits::IfNeeded);
        board::build(&texts, &facts).diagnostics
    } else {
        crate::ops::read::validate_files(&args.files)?
    };
    let errors = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    if ctx.json {
        if errors == 0 {
            print_json(&diagnostics);
        }
    } else {
        let github = args.ci && crate::sys::env::env().github_actions;
        for d in &diagnostics {
            if github {
                let level = match d.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                    Severity::Info => "notice",
                };
                outln!(
                    "::{level} file={},line={},col={}::{}: {}",
                    d.file,
                    d.line,
                    d.column,
                    d.code,
                    crate::out::hint::say(&d.message, d.code.hint().as_ref()).replace('\n', " ")
                );
            } else {
                outln!("{}", crate::out::hint::one_line(d));
            }
        }
        if diagnostics.is_empty() {
            outln!("no problems found");
        }
    }
    if errors > 0 {
        return Err(Fail {
            code: fail::REFUSED,
            message: format!("{errors} error(s) found"),
            json: Some(serde_json::to_value(&diagnostics).unwrap_or_default()),
        });
    }
    Ok(())
}
