//! The git hooks Rail installs (`rail init --hooks`): the pre-commit and pre-push checks, and
//! `rail reconcile` after the git commands that rewrite claims.md without Rail's lock; a hook
//! that was there before is kept and runs first.

use std::fs;
use std::path::{Path, PathBuf};

use crate::fail::Fail;
use crate::git::{self, repo::Repo};

const HOOK_MARK: &str = "# installed by rail init --hooks";

/// The hooks `rail init --hooks` installs and the `rail` arguments each runs.
pub const HOOKS: [(&str, &str); 5] = [
    ("pre-commit", "check --staged"),
    ("pre-push", "check --pre-push"),
    // git rewrites claims.md in these without Rail's lock: put back what they dropped, and
    // say nothing after every checkout when nothing was.
    ("post-checkout", "reconcile --quiet"),
    ("post-merge", "reconcile --quiet"),
    ("post-rewrite", "reconcile --quiet"),
];

/// The program one of Rail's hook scripts runs (its `exec PROGRAM …` line), `None` for a hook
/// Rail did not write.
pub fn program_of(script: &str) -> Option<String> {
    if !script.contains(HOOK_MARK) {
        return None;
    }
    let line = script.lines().rev().find_map(|l| l.strip_prefix("exec "))?;
    first_word(line)
}

/// A command line's program, as the shell reads the first word of a line Rail wrote (plain, or
/// single-quoted by `shell_quote`).
pub fn first_word(command: &str) -> Option<String> {
    let command = command.trim_start();
    let Some(quoted) = command.strip_prefix('\'') else {
        return command.split_whitespace().next().map(str::to_string);
    };
    // `'it'\''s'`: quoted runs joined by escaped quotes.
    let mut word = String::new();
    let mut rest = quoted;
    loop {
        let end = rest.find('\'')?;
        word.push_str(&rest[..end]);
        rest = &rest[end + 1..];
        match rest.strip_prefix("\\''") {
            Some(more) => {
                word.push('\'');
                rest = more;
            }
            None => return Some(word),
        }
    }
}

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
    for (name, args) in HOOKS {
        let path = dir.join(name);
        let chained = dir.join(format!("{name}.rail-chained"));
        // A `rail` no longer where it was (not on PATH in this shell, uninstalled) is said in
        // words, not as the shell's `exec: rail: not found` on every commit.
        let script = format!(
            "#!/bin/sh\n{HOOK_MARK}\n# A hook that was here before runs first, unchanged: {name}.rail-chained\nhere=$(dirname \"$0\")\nif [ -x \"$here/{name}.rail-chained\" ]; then\n  \"$here/{name}.rail-chained\" \"$@\" || exit $?\nfi\ncommand -v {rail} >/dev/null 2>&1 || {{ echo \"rail: this {name} hook runs {rail}, which is not found (not on PATH here, or moved): put it on PATH, or run rail init --hooks again with the rail you use; rail doctor checks\" >&2; exit 1; }}\nexec {rail} {args}\n"
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_program_of_a_hook_or_driver_is_read_as_the_shell_reads_it() {
        assert_eq!(first_word("rail check --staged").as_deref(), Some("rail"));
        assert_eq!(
            first_word("'/opt/my tools/rail' merge-driver %O").as_deref(),
            Some("/opt/my tools/rail")
        );
        assert_eq!(
            first_word("'/home/o'\\''brien/rail' check").as_deref(),
            Some("/home/o'brien/rail")
        );
        assert_eq!(first_word("'unclosed"), None);
        let ours = format!("#!/bin/sh\n{HOOK_MARK}\nexec '/x y/rail' check --staged\n");
        assert_eq!(program_of(&ours).as_deref(), Some("/x y/rail"));
        assert_eq!(
            program_of("#!/bin/sh\nexec rail check\n"),
            None,
            "not Rail's"
        );
    }
}
