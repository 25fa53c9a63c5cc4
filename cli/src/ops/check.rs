//! `rail check`'s judgement as data: the session's changes (or the files named, the files
//! staged for a commit, the commits a push sends) against the claims — outside its declared
//! paths, or inside another session's — with `RAIL_BYPASS` as a person's logged way past it.
//! The CLI prints it, the git hooks exit by it, `rail mcp` returns it.

use rail_core::model::scope;
use rail_core::model::Rail;

use super::touched::{base_of, without_rail_files};
use crate::context::{Commits, Ctx};
use crate::fail::Fail;
use crate::git;

#[derive(clap::Args, Debug, Default)]
pub struct CheckArgs {
    /// Check the files staged for commit (for the pre-commit hook).
    #[arg(long, conflicts_with = "files")]
    pub staged: bool,
    /// Check the commits being pushed, read from stdin as git's pre-push hook gives them.
    #[arg(long, conflicts_with_all = ["files", "staged"])]
    pub pre_push: bool,
    /// Report changes outside your declared paths without failing.
    #[arg(long)]
    pub warn_drift: bool,
    /// Branch the session forked from (default: the main checkout's branch).
    #[arg(long, value_name = "REF")]
    pub base: Option<String>,
    /// Files to check (default: everything the session changed).
    pub files: Vec<String>,
}

/// `RAIL_BYPASS=reason`: a person's explicit way past the hooks, always logged.
fn bypass(ctx: &Ctx, session: &str, what: &str) -> Result<bool, Fail> {
    let named = (!session.is_empty()).then_some(session);
    let Some(reason) = crate::sys::env::env().bypass.clone() else {
        return Ok(false);
    };
    let reason = if reason == "1" {
        "no reason given".to_string()
    } else {
        reason
    };
    let line = rail_core::formats::log::LogEntry::new(
        ctx.now,
        rail_core::formats::log::LogEvent::Bypass,
        None,
        named,
    )
    .with("check", what)
    .with("reason", reason.clone())
    .render();
    super::write::record(ctx, named.unwrap_or("(no session)"), &[line])?;
    errln!("rail: {what} bypassed by RAIL_BYPASS ({reason}); this is recorded in claims.log");
    Ok(true)
}

/// Files changed by the commits git is about to push (pre-push stdin:
/// `<local ref> <local sha> <remote ref> <remote sha>` per line): every commit of the local
/// side that the remote side (or, for a new branch, any remote branch) does not have.
fn pushed_files(repo: &crate::git::repo::Repo) -> Result<Vec<String>, Fail> {
    use std::io::Read;
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .map_err(|e| Fail::env(format!("reading the pushed refs: {e}")))?;
    let zero = |sha: &str| sha.chars().all(|c| c == '0');
    let mut files = Vec::new();
    for line in input.lines() {
        let parts: Vec<&str> = line.split_whitespace().collect();
        let [_, local, _, remote] = parts.as_slice() else {
            continue;
        };
        if zero(local) {
            continue; // a deletion pushes no files
        }
        // The ids come on stdin (git's, or whoever runs `rail check --pre-push`): operands.
        for id in [local, remote] {
            rail_core::text::ident::validate_operand(id)
                .map_err(|e| Fail::usage(format!("pre-push input: {e}; nothing was checked")))?;
        }
        let log = git::GitLine::new(&["log", "--format=", "--name-only", "-z", "--no-renames"]);
        let line = if zero(remote) {
            // `--not --remotes --not`: what no remote-tracking branch has, then LOCAL itself.
            log.opt("--not")
                .opt("--remotes")
                .opt("--not")
                .operand(*local)
        } else {
            log.operand(*local).operand(format!("^{remote}"))
        };
        let out = git::run(&repo.worktree, &line).map_err(Fail::env)?;
        files.extend(
            out.split(['\0', '\n'])
                .filter(|s| !s.is_empty())
                .map(str::to_string),
        );
    }
    files.sort();
    files.dedup();
    Ok(files)
}

/// What `rail check` found.
#[derive(Debug)]
pub enum Checked {
    /// `RAIL_BYPASS` was set: nothing was checked (the bypass is in the log).
    Bypassed,
    /// The session's changes against the claims; `failure` says why the check fails, if it does.
    Judged {
        report: Box<scope::ScopeReport>,
        failure: Option<String>,
    },
}

/// The staged files that are another live session's work in flight in this checkout, in words
/// (`None`: none), and a warning for live agents' writes the commit takes on the committer's say.
fn swept(
    ctx: &Ctx,
    eval: &rail_core::model::Evaluation,
    session: &str,
    staged: &[String],
) -> (Option<String>, Option<String>) {
    use rail_core::model::behind::{self, Committer};
    let Some(repo) = ctx.repo.as_ref() else {
        return (None, None);
    };
    if staged.is_empty() {
        return (None, None);
    }
    let checkout = (repo.worktree.canonicalize())
        .unwrap_or_else(|_| repo.worktree.clone())
        .display()
        .to_string();
    let work = crate::ops::flight::gather(ctx, eval, staged);
    // A shell that names no session of its agent's (Gemini CLI's, Copilot CLI's) still says
    // which agent it is: the commit is that agent's, not the whole branch's.
    let shell = crate::sys::env::env().shell_agent.as_ref();
    let committer = match shell {
        Some((agent, id))
            if ctx.explicit_session().is_none()
                && rail_core::text::ident::agent_of_session(session).is_none() =>
        {
            Committer::Agent {
                branch: session,
                agent,
                id: id.as_deref(),
            }
        }
        _ => Committer::Session(session),
    };
    let found = behind::swept(committer, &checkout, staged, &work);
    let names = |items: &[&behind::InFlight]| {
        let whom: std::collections::BTreeSet<&str> =
            items.iter().map(|w| w.session.as_str()).collect();
        whom.into_iter().collect::<Vec<_>>().join(", ")
    };
    let refused = (!found.swept.is_empty()).then(|| {
        let whom = names(&found.swept);
        format!(
            "{} staged file(s) another session has in flight here, uncommitted — {}: committing them would sweep {whom}'s work into this commit; commit only your own files (`git commit -- FILE…`, `git restore --staged FILE`), or leave them to {whom}",
            found.swept.len(),
            behind::describe(&found.swept, ctx.now),
        )
    });
    let noted = (!found.unsure.is_empty()).then(|| {
        format!(
            "rail: this commit takes {} file(s) live agents have in flight here, uncommitted — {}: committed as {session}'s; if they are not yours, `git restore --staged FILE` and leave them to {}",
            found.unsure.len(),
            behind::describe(&found.unsure, ctx.now),
            names(&found.unsure)
        )
    });
    (refused, noted)
}

/// Checks the session's changes (or `args.files`) against its claims.
pub fn check_scope(ctx: &Ctx, args: &CheckArgs) -> Result<Checked, Fail> {
    super::touched::given_base(args.base.as_deref())?;
    // A checkout whose branch cannot name a session (`fix$(id)`), or a detached HEAD (a commit
    // in the middle of a rebase), is a valid place to commit: it holds no claim, so only other
    // sessions' paths are refused — never every commit.
    let session = match ctx.session() {
        Ok(s) => s,
        Err(_) if ctx.explicit_session().is_none() && ctx.repo.is_some() => String::new(),
        Err(f) => return Err(f),
    };
    let what = if args.pre_push {
        "pre-push"
    } else if args.staged {
        "pre-commit"
    } else {
        "check"
    };
    if bypass(ctx, &session, what)? {
        return Ok(Checked::Bypassed);
    }
    let changed = if !args.files.is_empty() {
        args.files.clone()
    } else {
        let repo = ctx
            .repo
            .as_ref()
            .ok_or_else(|| Fail::env("rail check needs a git repository (or pass FILE...)"))?;
        if args.staged {
            without_rail_files(
                ctx,
                &repo.worktree,
                git::staged_files(&repo.worktree).map_err(Fail::env)?,
            )
        } else if args.pre_push {
            without_rail_files(ctx, &repo.worktree, pushed_files(repo)?)
        } else {
            let base = base_of(repo, args.base.as_deref());
            without_rail_files(
                ctx,
                &repo.worktree,
                git::session_changes_of(repo, base.as_deref()).map_err(Fail::env)?,
            )
        }
    };
    let texts = ctx.read(false)?;
    let rail = Rail::load(&texts);
    let eval = ctx.judge(&rail, Commits::IfNeeded).eval;
    let report = scope::classify(&eval, &session, &changed);
    let mut parts = Vec::new();
    if !report.conflicts.is_empty() {
        parts.push(format!(
            "{} file(s) held by another session",
            report.conflicts.len()
        ));
    }
    if !report.out_of_scope.is_empty() && !args.warn_drift {
        parts.push(format!(
            "{} file(s) outside {session}'s declared paths",
            report.out_of_scope.len()
        ));
    }
    // A commit that would sweep another live session's uncommitted writes in this checkout into
    // this session's (`git add -A`, `git commit -a` by one of several agents in one checkout).
    if args.staged {
        let (refused, noted) = swept(ctx, &eval, &session, &changed);
        parts.extend(refused);
        if let Some(noted) = noted {
            errln!("{noted}");
        }
    }
    let failure = (!parts.is_empty()).then(|| format!("check failed: {}", parts.join(", ")));
    Ok(Checked::Judged {
        report: Box::new(report),
        failure,
    })
}
