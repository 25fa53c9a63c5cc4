//! The git hooks Rail installs (`rail init --hooks`): the pre-commit and pre-push checks, and
//! `rail reconcile` after the git commands that rewrite claims.md without Rail's lock; a hook
//! that was there before is kept and runs first.

use std::fs;
use std::path::{Path, PathBuf};

use crate::fail::Fail;
use crate::git::{self, repo::Repo};

const HOOK_MARK: &str = "# installed by rail init --hooks";

/// The hooks directory git uses (core.hooksPath, else <common dir>/hooks).
pub fn hooks_dir(repo: &Repo) -> PathBuf {
    match git::config_get(&repo.worktree, "core.hooksPath") {
        Some(p) => {
            let p = PathBuf::from(p);
            if p.is_absolute() {
                p
            } else {
                repo.worktree.join(p)
            }
        }
        None => repo.common_dir.join("hooks"),
    }
}

pub fn install_hooks(repo: &Repo) -> Result<Vec<String>, Fail> {
    let dir = hooks_dir(repo);
    // The hooks are written as every work-tree file: no link followed below the checkout (a
    // committed core.hooksPath directory) or the git directory; a hooks directory the user
    // configured elsewhere (a shared one in their home) is theirs, only its files are checked.
    let root = [&repo.worktree, &repo.common_dir]
        .into_iter()
        .find(|r| dir.starts_with(r))
        .cloned()
        .or_else(|| dir.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| dir.clone());
    let describe =
        |path: &Path, e: std::io::Error| Fail::env(crate::sys::railfile::describe(path, &e));
    let mut done = Vec::new();
    let rail = super::setup::rail_command();
    for (name, command) in [
        ("pre-commit", format!("{rail} check --staged")),
        ("pre-push", format!("{rail} check --pre-push")),
        // git rewrites claims.md in these without Rail's lock: put back what they dropped.
        ("post-checkout", format!("{rail} reconcile")),
        ("post-merge", format!("{rail} reconcile")),
        ("post-rewrite", format!("{rail} reconcile")),
    ] {
        let path = dir.join(name);
        let chained = dir.join(format!("{name}.rail-chained"));
        let script = format!(
            "#!/bin/sh\n{HOOK_MARK}\n# A hook that was here before runs first, unchanged: {name}.rail-chained\nhere=$(dirname \"$0\")\nif [ -x \"$here/{name}.rail-chained\" ]; then\n  \"$here/{name}.rail-chained\" \"$@\" || exit $?\nfi\nexec {command}\n"
        );
        // A hook that is a link (to a script kept elsewhere) is the user's: it is moved aside
        // as a link (rename moves the name, it does not follow it) and chained like any other.
        let existing = if fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
            Some(String::new())
        } else {
            crate::sys::railfile::read_bytes_inside(&root, &path)
                .map_err(|e| describe(&path, e))?
                .map(|b| String::from_utf8_lossy(&b).into_owned())
        };
        match existing {
            // Ours already: as it should be, or rewritten below.
            Some(existing) if existing == script => continue,
            Some(existing) if existing.contains(HOOK_MARK) => {}
            Some(_) => {
                if fs::symlink_metadata(&chained).is_ok() {
                    return Err(Fail::env(format!(
                        "{} and {} both exist; merge them by hand",
                        path.display(),
                        chained.display()
                    )));
                }
                fs::rename(&path, &chained)
                    .map_err(|e| Fail::env(format!("{}: {e}", path.display())))?;
                done.push(format!(
                    "kept your {name} hook as {} (it runs first)",
                    chained.display()
                ));
            }
            None => {}
        }
        crate::sys::railfile::write_inside(&root, &path, script.as_bytes(), true)
            .map_err(|e| describe(&path, e))?;
        done.push(format!("installed {}", path.display()));
    }
    Ok(done)
}
