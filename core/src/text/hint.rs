//! What a person can do next, as data.
//!
//! Core's messages say what happened; how to act on it is each host's own: the CLI prints a
//! command line (`rail take auth-refresh`), the editor offers a button. A refusal, a plan, a
//! lock verdict, the gate's result and the edit hook's verdict carry a [`Hint`] for that.

use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Hint {
    /// The holder's claim is stale: the task may be taken over.
    Take { task: String },
    /// Nobody holds the task: claim it.
    Claim { task: String },
    /// The task is already the session's: renew it to extend the lease, update it to change
    /// its paths.
    RenewOrUpdate { task: String },
    /// A broken line: the rail's diagnostics say what is wrong with it.
    Validate,
    /// A merge conflict marker: Rail's merge driver (installed with the rail) avoids them.
    MergeDriver,
    /// A lock Rail cannot judge (held on another host, liveness unknown, or a record naming no
    /// process): only a forced break, after making sure nobody holds it.
    ForceBreak,
    /// Files outside the claim: add them to the claim's paths (`task` when known).
    AddPaths {
        #[cfg_attr(feature = "ts", ts(optional = nullable))]
        task: Option<String>,
    },
    /// The session holds no claim: claim its task, with its paths, before editing.
    ClaimFirst,
    /// The gate's check did not start: fix the check command and run the gate again.
    FixCheck { task: String },
    /// Another session's paths: look for other work; `take` names the task to take over if
    /// its claim goes stale.
    OtherWork {
        #[cfg_attr(feature = "ts", ts(optional = nullable))]
        take: Option<String>,
    },
    /// A station that holds work would be lost by removing it: commit and merge it first, or
    /// close it with force (`station` as the person named it: a task or a path).
    ForceClose { station: String },
}
