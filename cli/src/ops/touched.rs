//! What a session changed: the files its checkout changed since it forked from its base (for a
//! release's record, the gate and `rail check`), without the rail's own files, which are
//! nobody's work (core's [`rail_core::formats::rail_files::is_rail_file`]).

use std::path::Path;

use crate::context::Ctx;
use crate::git::{self, repo::Repo};

/// The files this session's worktree changed since it forked from `base` (default: the main
/// checkout's branch).
pub fn touched_files(ctx: &Ctx, base: Option<&str>) -> Vec<String> {
    touched_in(ctx.repo.as_ref(), &ctx.rail.root, base)
}

/// [`touched_files`] of the checkout `repo`, for the rail at `rail_root`.
pub fn touched_in(repo: Option<&Repo>, rail_root: &Path, base: Option<&str>) -> Vec<String> {
    let Some(repo) = repo else {
        return Vec::new();
    };
    match git::session_changes_of(repo, base_of(repo, base).as_deref()) {
        Ok(files) => work_files(rail_root, &repo.worktree, files),
        Err(e) => {
            errln!("rail: could not list touched files ({e}); releasing without them");
            Vec::new()
        }
    }
}

/// A `--base` (or an MCP call's `base`) as it was given: refused, before anything is read or
/// changed, when git would take it for an option (core's `ident::validate_operand`).
pub fn given_base(base: Option<&str>) -> Result<(), crate::fail::Fail> {
    match base.map(rail_core::text::ident::validate_operand) {
        Some(Err(e)) => Err(crate::fail::Fail::usage(format!(
            "--base: {e}; nothing was changed"
        ))),
        _ => Ok(()),
    }
}

/// git's list of touched files as a release records it: what fits the limit (core's
/// `limits::TOUCHED`), the rest counted on stderr. Judging uses the whole list; only the record
/// is bounded. (A list an MCP client names itself is its own to shorten: over the limit, the
/// release is refused, naming it.)
pub fn recorded(files: Vec<String>) -> Vec<String> {
    use rail_core::text::limits::{self, TOUCHED};
    let (kept, left) = limits::fit(files, TOUCHED);
    if left > 0 {
        errln!(
            "rail: {} touched files recorded, {} more left out (a release records at most {} files, {} bytes)",
            limits::count(kept.len()),
            limits::count(left),
            limits::count(TOUCHED.items),
            limits::count(TOUCHED.bytes)
        );
    }
    kept
}

/// The branch a session's changes are judged against: `base`, else the main checkout's branch
/// when the session works on another one.
pub fn base_of(repo: &Repo, base: Option<&str>) -> Option<String> {
    let main_branch = crate::git::repo::head_branch(&repo.common_dir);
    let own = repo.branch();
    base.map(str::to_string)
        .or_else(|| main_branch.filter(|m| Some(m) != own.as_ref()))
}

/// `files` (relative to `worktree`) without the rail's own: they are the rail's only where the
/// rail lives at that worktree's root.
pub fn without_rail_files(ctx: &Ctx, worktree: &Path, files: Vec<String>) -> Vec<String> {
    work_files(&ctx.rail.root, worktree, files)
}

fn work_files(rail_root: &Path, worktree: &Path, files: Vec<String>) -> Vec<String> {
    let same_dir = worktree.canonicalize().ok() == rail_root.canonicalize().ok();
    if !same_dir {
        return files;
    }
    rail_core::formats::rail_files::work_files(files)
}
