//! `rail hook <agent>`: an agent's hook call (its payload on stdin), answered by the agent host
//! (`crate::agent::hook`). A hook answers through its exit code, whatever goes wrong.

use crate::agent::hook::{self, HookCall};
use crate::context::{Ctx, Flags};

/// Answers the call and returns the exit code. The hook moves to the agent's directory before it
/// finds the rail: a relative `--rail` means the one from where the hook was started.
pub fn run(kind: &HookCall, mut flags: Flags) -> i32 {
    flags.rail = flags.rail.map(|p| std::path::absolute(&p).unwrap_or(p));
    hook::run(kind, move || Ctx::new(flags, false))
}
