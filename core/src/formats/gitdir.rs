//! Finding a repository from git's own files, the steps that need no file system: what a
//! worktree's `.git` file, a git dir's `commondir` and `HEAD`, and a linked worktree's admin
//! `gitdir` file say, and when those files are not enough and a host must ask git.
//!
//! Hosts (the CLI, the VS Code extension through wasm) read the files and resolve the paths
//! these return, each with its platform's rule for absolute paths: a relative `gitdir:` target is
//! relative to the folder holding the `.git` file, a relative `commondir` to the git dir. From any
//! worktree the main checkout is the parent of the common dir, where the rail lives.

/// The environment variables that move git's directories away from where the files say: when
/// either is set, a host asks git (`git rev-parse`) instead of reading the files.
pub const ASK_GIT_ENV: [&str; 2] = ["GIT_DIR", "GIT_COMMON_DIR"];

/// The git dir a worktree's `.git` file names (`gitdir: PATH`), as written; `None` when the text
/// is not such a file.
pub fn dot_git_target(text: &str) -> Option<&str> {
    let target = text.trim().strip_prefix("gitdir:")?.trim();
    (!target.is_empty()).then_some(target)
}

/// The common dir a linked worktree's git dir names in its `commondir` file, as written; `None`
/// for an empty file (then the git dir is its own common dir, as when the file is absent).
pub fn commondir_target(text: &str) -> Option<&str> {
    let target = text.trim();
    (!target.is_empty()).then_some(target)
}

/// The branch a `HEAD` file checks out; `None` when HEAD is detached (a commit id) or names
/// something other than a branch.
pub fn head_branch(text: &str) -> Option<&str> {
    let branch = text.trim().strip_prefix("ref: refs/heads/")?;
    (!branch.is_empty()).then_some(branch)
}

/// The `.git` file of the worktree a linked worktree's admin dir (`<common>/worktrees/<name>`)
/// belongs to, from that dir's `gitdir` file; the worktree is its parent folder.
pub fn worktree_dot_git(text: &str) -> Option<&str> {
    let path = text.trim();
    (!path.is_empty()).then_some(path)
}

/// Whether the files alone place the rail: only when the common dir is a checkout's `.git`
/// folder, whose parent is the main checkout. A bare or separate common dir (any other name)
/// has no such parent: a host asks git where the worktree and its dirs are.
pub fn files_suffice(common_dir_name: Option<&str>) -> bool {
    common_dir_name == Some(".git")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_file_says_what_git_wrote_in_it() {
        assert_eq!(
            dot_git_target("gitdir: /r/.git/worktrees/a\n"),
            Some("/r/.git/worktrees/a")
        );
        assert_eq!(
            dot_git_target("gitdir:../.git/worktrees/a"),
            Some("../.git/worktrees/a")
        );
        assert_eq!(
            dot_git_target("gitdir: C:\\r\\.git\\worktrees\\a\r\n"),
            Some("C:\\r\\.git\\worktrees\\a")
        );
        assert_eq!(dot_git_target("ref: refs/heads/main\n"), None);
        assert_eq!(dot_git_target("gitdir:   \n"), None);
        assert_eq!(commondir_target("../..\n"), Some("../.."));
        assert_eq!(commondir_target("\n"), None);
        assert_eq!(
            head_branch("ref: refs/heads/feature/x\n"),
            Some("feature/x")
        );
        assert_eq!(
            head_branch("0123456789abcdef0123456789abcdef01234567\n"),
            None
        );
        assert_eq!(head_branch("ref: refs/remotes/origin/main\n"), None);
        assert_eq!(head_branch("ref: refs/heads/\n"), None);
        assert_eq!(
            worktree_dot_git("/w/station/.git\n"),
            Some("/w/station/.git")
        );
        assert_eq!(worktree_dot_git(""), None);
        assert!(files_suffice(Some(".git")));
        assert!(!files_suffice(Some("repo.git")));
        assert!(!files_suffice(None));
    }
}
