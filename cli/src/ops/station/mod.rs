//! Stations: every worktree of the repository with the facts core judges it by — which
//! worktrees git recorded, whether each path is a link or another checkout, what `git status`
//! shows uncommitted, how many commits are not in the base — and, in the modules below,
//! making one ([`make`]), closing one ([`close`]), pruning every one that may go ([`prune`]) and an
//! agent's worktree hook ([`agent`]).
//! Core's `station` decides; this gathers and carries out.

pub mod agent;
pub mod close;
pub mod make;
pub mod prune;

use std::path::{Path, PathBuf};

use rail_core::model::station::{self, Station, StationFacts};
use rail_core::model::Rail;

use crate::context::{Commits, Ctx};
use crate::fail::Fail;
use crate::git::{
    self,
    repo::{self, Repo},
};

/// Every station with its facts and claims, and the base they are judged against.
pub struct Survey {
    pub stations: Vec<Station>,
    pub base: Option<String>,
    /// The base's commit, read in the main checkout: a name can mean something else in each
    /// worktree (`HEAD`, `@`, `@{-1}`, `refs/worktree/…`), and inside a station `HEAD` is the
    /// station's own commit, which would make every branch look merged. `None`: it names no
    /// commit there, and Rail cannot tell what is merged.
    base_commit: Option<String>,
    dirs: Vec<repo::WorktreeDir>,
    rail: Rail,
    eval: rail_core::model::Evaluation,
}

pub fn repo_of(ctx: &Ctx) -> Result<&Repo, Fail> {
    ctx.repo
        .as_ref()
        .ok_or_else(|| Fail::env("rail worktree needs a git repository"))
}

pub fn valid_base(base: Option<&str>) -> Result<(), Fail> {
    crate::ops::touched::given_base(base)?;
    match base {
        Some(b) => rail_core::text::ident::validate_session(b).map_err(|e| {
            Fail::usage(format!(
                "--base: {}",
                e.0.replacen("session name", "branch", 1)
            ))
        }),
        None => Ok(()),
    }
}

pub fn same(a: &Path, b: &Path) -> bool {
    matches!((a.canonicalize(), b.canonicalize()), (Ok(a), Ok(b)) if a == b)
}

/// Every worktree with what the file system says of it (no git process yet: see
/// [`Survey::inspect`]). `base`: `--base`, else rail.yaml `stations.base`, else the main
/// checkout's branch.
pub fn survey(ctx: &Ctx, base: Option<&str>) -> Result<Survey, Fail> {
    valid_base(base)?;
    let repo = repo_of(ctx)?;
    let texts = ctx.read(false)?;
    let rail = Rail::load(&texts);
    let eval = ctx.judge(&rail, Commits::IfNeeded).eval;
    let main = repo.main_checkout();
    let main_branch = repo::head_branch(&repo.common_dir);
    let base = station::base_branch(
        base.or(rail.config.stations.base.as_deref()),
        main_branch.as_deref(),
    );
    let base_commit = base.as_deref().and_then(|b| {
        let spec = format!("{b}^{{commit}}");
        git::run(
            &main,
            &git::GitLine::new(&["rev-parse", "--verify", "--quiet"]).operand(spec),
        )
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
    });
    let dirs = repo::worktree_dirs(repo);
    let mut stations = Vec::with_capacity(dirs.len());
    for (i, wt) in dirs.iter().enumerate() {
        let link = std::fs::symlink_metadata(&wt.path).is_ok_and(|m| m.file_type().is_symlink());
        let missing = !link && !wt.path.is_dir();
        let foreign = !link
            && !missing
            && !repo::is_checkout_of(&wt.path, wt.admin.as_deref(), &repo.common_dir);
        let locked = wt
            .admin
            .as_ref()
            .is_some_and(|a| std::fs::symlink_metadata(a.join("locked")).is_ok());
        let branch_elsewhere = wt.branch.is_some()
            && dirs
                .iter()
                .enumerate()
                .any(|(j, other)| j != i && other.branch == wt.branch);
        let facts = StationFacts {
            path: wt.path.display().to_string(),
            branch: wt.branch.clone(),
            main: wt.admin.is_none() || same(&wt.path, &main),
            link,
            foreign,
            missing,
            locked,
            dirty: None,
            base: base.clone(),
            unmerged: None,
            head: None,
            branch_elsewhere,
        };
        stations.push(Station::new(facts, &eval));
    }
    Ok(Survey {
        stations,
        base,
        base_commit,
        dirs,
        rail,
        eval,
    })
}

impl Survey {
    /// Asks git what is uncommitted in station `i`, how many of its commits are not in the
    /// base, and where its HEAD is (three processes at once). A link, a foreign or a missing
    /// directory is not looked into.
    pub fn inspect(&mut self, ctx: &Ctx, i: usize) {
        let Some(station) = self.stations.get_mut(i) else {
            return;
        };
        let f = &mut station.facts;
        if f.link || f.missing || f.foreign {
            return;
        }
        let Some(path) = self.dirs.get(i).map(|d| d.path.clone()) else {
            return;
        };
        let state = git::worktree_state(&path, self.base_commit.as_deref());
        f.dirty = state
            .uncommitted
            .ok()
            .map(|files| crate::ops::touched::without_rail_files(ctx, &path, files));
        f.unmerged = state.not_in_base.and_then(Result::ok);
        f.head = state.head;
    }
}

/// Whether the agents set up in the main checkout (`main`) have their Rail hook in a worktree:
/// `None` for one Rail cannot look into (a link, gone, another checkout) and for the main
/// checkout itself.
#[derive(Debug, serde::Serialize)]
pub struct GuardStatus {
    /// Agents set up in the main checkout with a Rail hook here.
    pub agents: Vec<String>,
    /// Agents set up in the main checkout with no Rail hook here: they would run unguarded.
    pub missing: Vec<String>,
}

pub fn guard_status(station: &Station, main: &[rail_core::agent::Agent]) -> Option<GuardStatus> {
    let f = &station.facts;
    if f.main || f.link || f.missing || f.foreign {
        return None;
    }
    let here = crate::ops::setup::configured_in(Path::new(&f.path));
    let title = |t: &rail_core::agent::Agent| t.title().to_string();
    Some(GuardStatus {
        agents: main
            .iter()
            .filter(|t| here.contains(t))
            .map(title)
            .collect(),
        missing: rail_core::agent::setup::unguarded(main, &here)
            .iter()
            .map(title)
            .collect(),
    })
}

/// Does `arg` name only a path (not a task or a branch)? Task ids have no separators; branch
/// names may (`feature/search`) but never start with a dot or a slash.
fn only_a_path(arg: &str) -> bool {
    arg.starts_with('.') || arg.starts_with('~') || Path::new(arg).is_absolute()
}

/// The station `arg` names: a path (`/…`, `./…`, `../…`); else a task id or branch (core's
/// `station::find`), or, for a name with a `/`, first a path relative to here.
pub fn target(survey: &Survey, arg: &str) -> Result<usize, Fail> {
    if arg.is_empty() {
        return Err(Fail::usage("name a station: a task id, a branch or a path"));
    }
    let by_name = || {
        station::find(
            &survey.stations,
            &survey.eval,
            &survey.rail.log().entries,
            arg,
        )
        .map_err(Fail::usage)
    };
    let separated = arg.contains('/') || arg.contains(std::path::MAIN_SEPARATOR);
    if !separated && !only_a_path(arg) {
        return by_name();
    }
    let given = PathBuf::from(arg);
    let cwd = std::env::current_dir().unwrap_or_default();
    let absolute = if given.is_absolute() {
        given.clone()
    } else {
        cwd.join(&given)
    };
    // The path as git recorded it first (a station whose path became a link is named by it,
    // not taken for what the link leads to); then the named directory with links followed.
    let found = survey
        .stations
        .iter()
        .position(|s| Path::new(&s.facts.path) == absolute)
        .or_else(|| {
            survey
                .stations
                .iter()
                .position(|s| same(Path::new(&s.facts.path), &absolute))
        });
    match found {
        Some(i) => Ok(i),
        // `feature/search`: a branch, when no station is at that path.
        None if !only_a_path(arg) => by_name(),
        None => Err(Fail::usage(format!(
            "no station at {}: it is not a worktree of this repository (see `rail worktree list`)",
            absolute.display()
        ))),
    }
}
