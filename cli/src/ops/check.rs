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

/// The staged files that are another session's work in flight in this checkout, in words
/// (`None`: none), and a warning for agents' writes the commit takes on the committer's say.
/// The committer is who the pre-commit hook's environment says (core's `behind::Committer`).
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
    sweep_words(ctx, session, &found)
}

/// A sweep in words: the refusal (`None`: nothing swept), and the note for what the commit
/// takes on the committer's say.
fn sweep_words(
    ctx: &Ctx,
    session: &str,
    found: &rail_core::model::behind::Sweep<'_>,
) -> (Option<String>, Option<String>) {
    use rail_core::model::behind;
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
            "rail: this commit takes {} file(s) other agents have in flight here, uncommitted — {}: committed as {session}'s; if they are not yours, `git restore --staged FILE` and leave them to {}",
            found.unsure.len(),
            behind::describe(&found.unsure, ctx.now),
            names(&found.unsure)
        )
    });
    (refused, noted)
}

/// What a shell command's commits would take of other sessions' work, judged before it runs.
#[derive(Debug)]
pub enum CommitSweep {
    /// Refused: the words, and the first file swept with its session (for the log).
    Refused {
        message: String,
        path: String,
        holder: String,
    },
    /// Let through with a warning.
    Noted(String),
}

/// Before a shell command run by `session`'s agent in `cwd` that makes `commits`: what they
/// would take (core's `flight::commit_takes` on the checkout's `git status`), judged as the
/// pre-commit hook judges a commit (core's `behind::swept`) — for agents whose shells run git
/// with its hooks turned off (Gemini CLI), and any `--no-verify`. `None`: nothing to say.
pub fn commit_sweep(
    ctx: &Ctx,
    session: &str,
    cwd: &std::path::Path,
    commits: &[rail_core::agent::shell::GitCommit],
) -> Option<CommitSweep> {
    use rail_core::agent::shell::GitCommit;
    use rail_core::model::behind::{self, Committer};
    let repo = crate::git::repo::discover(cwd)?;
    let root = repo.worktree.canonicalize().ok()?.display().to_string();
    let here = cwd.canonicalize().ok()?.display().to_string();
    let status = match git::status_entries(&repo.worktree) {
        Ok(s) => s,
        Err(e) => {
            return Some(CommitSweep::Noted(format!(
                "Rail: cannot tell what this commit takes ({e}): check it takes no other session's work (`rail flight`)"
            )))
        }
    };
    let spec = |p: &String| rail_core::agent::hook::pathspec_relative(&root, &here, p);
    let mut takes = std::collections::BTreeSet::new();
    let mut unknown = false;
    for c in commits {
        let c = GitCommit {
            added: c.added.iter().filter_map(spec).collect(),
            only: c.only.iter().filter_map(spec).collect(),
            ..c.clone()
        };
        match rail_core::agent::flight::commit_takes(&c, &status) {
            Some(files) => takes.extend(files),
            None => unknown = true,
        }
    }
    let takes = without_rail_files(ctx, &repo.worktree, takes.into_iter().collect());
    let checkout = root;
    let texts = ctx.read_claims().ok()?;
    let rail = Rail::load(&texts);
    let eval = ctx.judge(&rail, Commits::IfNeeded).eval;
    if unknown {
        // What the line commits is only known when it runs: every other session's live work
        // here is named, never silently let through.
        let everything: Vec<String> = status.iter().map(|e| e.path.clone()).collect();
        let work = crate::ops::flight::gather(ctx, &eval, &everything);
        let found = behind::swept(Committer::Session(session), &checkout, &everything, &work);
        return (!found.swept.is_empty()).then(|| {
            CommitSweep::Noted(format!(
                "Rail: cannot tell from the command line what this commit takes; other sessions have work in flight here, uncommitted — {}: commit only your own files (`git commit -- FILE…`)",
                behind::describe(&found.swept, ctx.now)
            ))
        });
    }
    if takes.is_empty() {
        return None;
    }
    let work = crate::ops::flight::gather(ctx, &eval, &takes);
    let found = behind::swept(Committer::Session(session), &checkout, &takes, &work);
    let first = found
        .swept
        .first()
        .map(|w| (w.path.clone(), w.session.clone()));
    match (sweep_words(ctx, session, &found), first) {
        ((Some(message), _), Some((path, holder))) => Some(CommitSweep::Refused {
            message: format!("Rail: {message}"),
            path,
            holder,
        }),
        ((_, Some(note)), _) => Some(CommitSweep::Noted(note)),
        _ => None,
    }
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
