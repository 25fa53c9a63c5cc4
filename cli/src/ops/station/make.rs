//! Making a station: the claim first, then the worktree on its branch, then its guard (the
//! agents set up in the main checkout get their files there too). The one station code behind
//! `rail worktree TASK` and an agent's worktree hook.

use std::path::PathBuf;

use rail_core::change::ops::{ClaimRequest, Request};

use crate::context::Ctx;
use crate::fail::Fail;
use crate::git;
use crate::ops::write::{claim_request, mutate_with_log};
use crate::out::outcome::Report;

/// What to do when the station's branch has a worktree already.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Existing {
    /// `rail worktree TASK`: git refuses the branch, and nothing is made.
    Refuse,
    /// An agent's `--worktree NAME`: go back into it (core `station::reentry`), as the agent
    /// would into its own worktree of that name.
    Reenter,
}

/// A station made, or gone back into: the one station code behind `rail worktree TASK` and an
/// agent's worktree hook (`rail hook claude` on WorktreeCreate). Prints nothing.
pub struct Made {
    pub task: String,
    pub dir: PathBuf,
    pub branch: String,
    /// The claim, as `rail claim` would report it.
    pub claim: Report,
    /// An existing worktree of the branch was gone back into ([`Existing::Reenter`]).
    pub reentered: bool,
    pub guarded: Option<crate::ops::setup::Guarded>,
    /// Why the station is not guarded, when it could not be.
    pub unguarded: Option<String>,
}

impl Made {
    pub fn dir_text(&self) -> String {
        self.dir.display().to_string()
    }
}

/// A station for `task`: the claim first (a station for a task someone else holds is never
/// made), then the worktree on its branch — the task, unless `--session`/`RAIL_SESSION` names
/// the session — at `dir` (default `../<repo>-<branch>`), then its guard: the agents set up in
/// the main checkout get their files there too, committed or not. A worktree that cannot be
/// made releases the claim it made. A station that could not be guarded is kept, and says so.
pub fn station(
    ctx: &Ctx,
    task: &str,
    base: Option<&str>,
    dir: Option<PathBuf>,
    args: &crate::ops::write::ClaimOptions,
    existing: Existing,
) -> Result<Made, Fail> {
    rail_core::text::ident::validate_task(task).map_err(|e| Fail::usage(e.0))?;
    super::valid_base(base)?;
    let repo = ctx
        .repo
        .as_ref()
        .ok_or_else(|| Fail::env("rail worktree needs a git repository"))?;
    // The station's branch is the session: --session / RAIL_SESSION if given, else the task.
    let branch = ctx
        .explicit_session()
        .map(str::to_string)
        .unwrap_or_else(|| task.to_string());
    rail_core::text::ident::validate_session(&branch).map_err(|e| Fail::usage(e.0))?;
    let main = repo.main_checkout();
    let there = match existing {
        Existing::Refuse => None,
        Existing::Reenter => {
            let survey = super::survey(ctx, None)?;
            rail_core::model::station::reentry(&survey.stations, &branch)
                .map_err(Fail::usage)?
                .map(|i| PathBuf::from(&survey.stations[i].facts.path))
        }
    };
    let reentered = there.is_some();
    let dir = there.or(dir).unwrap_or_else(|| {
        let name = main
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "repo".into());
        main.parent()
            .unwrap_or(&main)
            .join(format!("{name}-{}", branch.replace('/', "-")))
    });
    // Claim first: a station for a task someone else holds must not be created.
    let req = claim_request(task, args)?;
    let branch_for_claim = ClaimRequest {
        branch: None,
        ..req
    };
    // Over another live session's work in flight: refused, unless on purpose.
    let check = crate::ops::flight::FlightCheck {
        session: branch.clone(),
        task: task.to_string(),
        verb: "claim",
        patterns: args.paths.clone(),
        on_purpose: args.over_flight,
    };
    let claim = crate::ops::write::mutate_over_flight(
        ctx,
        &branch,
        Request::Claim(branch_for_claim),
        check,
        Vec::new(),
    )?;
    let dir_s = dir.display().to_string();
    if !reentered {
        let mut line = git::GitLine::new(&["worktree", "add"])
            .set("-b", &branch)
            .operand(dir_s.as_str());
        if let Some(b) = base {
            line = line.operand(b);
        }
        if let Err(e) = git::run(&main, &line) {
            // Undo the claim so a failed station does not hold the task; but only a claim this
            // command made: a task the session already held stays held.
            let undone = claim.changed
                && mutate_with_log(
                    ctx,
                    &branch,
                    Request::Release {
                        task: task.to_string(),
                        touched: Vec::new(),
                        done: false,
                    },
                    Vec::new(),
                )
                .is_ok();
            return Err(Fail::env(format!(
                "creating the worktree: {e}{}",
                if undone {
                    format!("; the claim of {task} made for it is released again")
                } else {
                    String::new()
                }
            )));
        }
    }
    let (guarded, unguarded) =
        match crate::ops::setup::guard_station(repo, &dir, &crate::ops::setup::rail_command()) {
            Ok(g) => (Some(g), None),
            Err(e) => (
                None,
                Some(format!(
                    "the station is not guarded: {}; agents started there run without Rail's hooks until `rail worktree guard {}` succeeds",
                    e.message,
                    crate::out::hint::shell_quote(&dir_s)
                )),
            ),
        };
    Ok(Made {
        task: task.to_string(),
        dir,
        branch,
        claim,
        reentered,
        guarded,
        unguarded,
    })
}
