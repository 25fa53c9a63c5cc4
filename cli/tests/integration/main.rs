//! The CLI's integration tests, one binary with a module per feature: each runs real `rail`
//! processes on real repositories (real git, real worktrees, real remotes and servers on
//! 127.0.0.1, real shells). They run git or sh, so not under Wine; the lock protocol's tests,
//! which run neither, are their own binary (`cli/tests/portable.rs`) and run there too.
//!
//! One binary, so one link and one process start for the suite (there were ten); tests of
//! different modules run side by side in it, so none may change the process's environment or
//! working directory (each passes what it needs to the processes it starts).

mod common;

mod after_tool;
mod agents;
mod arguments;
mod commands;
mod crowded;
mod gate;
mod git_rewrites;
mod hostile;
mod in_flight;
mod limits;
mod mcp;
mod race;
mod sessions;
mod shared;
mod shell;
mod status;
mod teams;
mod worktree;
mod worktree_hook;
mod worktree_prune;
