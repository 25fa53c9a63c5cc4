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
    /// Also fetch the shared rail's whole history from its remote and prove it: every commit
    /// signed by a machine of the team's allowed signers and following from its parent by the
    /// operations it records (docs/shared-rail.md, "Who can change what"). Fails on a commit
    /// that is not proven and not answered by a restore, and on a rail without keys.
    #[arg(long)]
    pub shared: bool,
    /// Files to validate (default: the whole rail).
    pub files: Vec<PathBuf>,
}

pub fn run(ctx: &Ctx, args: &ValidateArgs) -> Result<(), Fail> {
    let shared = match args.shared {
        true => Some(prove_shared(ctx)?),
        false => None,
    };
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
    if let Some(Err(fail)) = shared {
        return Err(fail);
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

/// `--shared`: the remote's shared ref fetched (into a ref of its own, so no round of this
/// machine mistakes it for what it saw) and its whole history walked as core's `proof::Walk`
/// judges it; what it found is printed. The outer `Err`: the walk could not be made; the inner
/// one: the history is not proven.
fn prove_shared(ctx: &Ctx) -> Result<Result<(), Fail>, Fail> {
    use rail_core::change::proof::Found;
    let remote = ctx
        .remote()?
        .ok_or_else(|| Fail::usage("--shared: this rail is not shared (`rail init --remote`)"))?;
    let dir = ctx.repo_dir();
    let repo = ctx
        .repo
        .as_ref()
        .ok_or_else(|| Fail::usage("--shared: not in a git repository"))?;
    const CHECKED: &str = "refs/rail/validated";
    let spec = format!("+{}:{CHECKED}", crate::shared::REF);
    crate::git::run(
        &dir,
        &crate::git::GitLine::new(&["fetch", "-q", "--no-tags"])
            .operand(remote)
            .operand(spec.as_str()),
    )
    .map_err(|e| Fail::env(format!("{}{remote}: {e}", crate::shared::UNREACHABLE)))?;
    let tip = crate::git::run(
        &dir,
        &crate::git::GitLine::new(&["rev-parse", "--verify", "--quiet"]).operand(CHECKED),
    )
    .map_err(Fail::env)?
    .trim()
    .to_string();
    let Some(keys) = crate::shared::proof::keys(repo, &dir, remote) else {
        let why = rail_core::model::verification::unverified(remote);
        outln!("{why}");
        return Ok(Err(Fail {
            code: fail::REFUSED,
            message: why,
            json: None,
        }));
    };
    let mut objects = crate::git::CatFile::start(&dir).map_err(Fail::env)?;
    let walk =
        crate::shared::proof::prove(&dir, &mut objects, &keys, None, &tip).map_err(|e| e.fail())?;
    let short = |c: &str| c[..c.len().min(12)].to_string();
    let mut before_keys = 0;
    for f in &walk.found {
        match &f.what {
            Found::BeforeKeys => before_keys += 1,
            Found::Unproven(why) => outln!("{}: not proven: {why}", short(&f.commit)),
            Found::Restored => outln!(
                "{}: restores the last proven state over the commits before it",
                short(&f.commit)
            ),
        }
    }
    if let Some(open) = &walk.open {
        let why = rail_core::change::proof::unproven_message(remote, open);
        outln!("{why}");
        return Ok(Err(Fail {
            code: fail::REFUSED,
            message: format!("the shared rail on {remote} is not proven"),
            json: None,
        }));
    }
    outln!(
        "the shared rail on {remote} is proven up to {} (signers from {}){}",
        short(&tip),
        keys.from,
        match before_keys {
            0 => String::new(),
            n => format!("; {n} commit(s) before the first signed one taken as they are"),
        }
    );
    Ok(Ok(()))
}
