//! What a session asks for: [`Request`] (claim, release, renew, take, update, plan) and how it reads
//! from JSON through one flat wire struct.

use serde::{Deserialize, Serialize};

/// What a session asks for. As JSON: `{"op": "claim", "task": "…", "paths": […]}`,
/// `{"op": "release", "task": "…", "touched": […]}`, `{"op": "renew", "task": "…"}`,
/// `{"op": "take", "task": "…", "reason": "…"}`, `{"op": "update", "task": "…", "paths": […]}`
/// (or `"add_paths": […]`, which keeps the paths held), `{"op": "plan", "task": "…", "paths": […],
/// "purpose": "…"}` (a backlog entry).
///
/// Read through [`WireRequest`], one flat struct, rather than serde's internally tagged enum
/// code, which buffers the whole object in serde's `Content` first (about 7 KB of the wasm
/// build). Same JSON either way; fields that do not belong to the op are ignored, as before.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "kebab-case", try_from = "WireRequest")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Request {
    Claim(ClaimRequest),
    /// `touched`: the files the session actually changed (from git), recorded in the log and,
    /// for claim files, in the file.
    Release {
        task: String,
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(optional = nullable))]
        touched: Vec<String>,
        /// The task is finished (the gate passed): also tick its backlog entry.
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(optional = nullable))]
        done: bool,
    },
    Renew {
        task: String,
    },
    Take {
        task: String,
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(optional = nullable))]
        reason: Option<String>,
        /// The taker's branch, when it is not named like the session.
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(optional = nullable))]
        branch: Option<String>,
    },
    Update {
        task: String,
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(optional = nullable))]
        paths: Option<Vec<String>>,
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(optional = nullable))]
        resources: Option<Vec<String>>,
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(optional = nullable))]
        purpose: Option<String>,
        /// Paths added to those the claim holds (after `paths`, when it replaces them): an
        /// agent that needs one more file keeps what it held.
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(optional = nullable))]
        add_paths: Vec<String>,
        /// Resources added to those the claim holds, as [`Request::Update::add_paths`].
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(optional = nullable))]
        add_resources: Vec<String>,
    },
    /// Put the task on the backlog (`- [ ] task | paths: … | purpose: …` in claims.md), unless
    /// it is on the rail already (planned, or claimed in any state): an agent's task list
    /// (Claude Code's TaskCreated) becomes the rail's.
    Plan {
        task: String,
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(optional = nullable))]
        paths: Vec<String>,
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(optional = nullable))]
        purpose: Option<String>,
    },
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ClaimRequest {
    pub task: String,
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub paths: Vec<String>,
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub resources: Vec<String>,
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub purpose: Option<String>,
    /// As written by the user, e.g. `45m`.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub lease: Option<String>,
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub after: Vec<String>,
    /// `pid@host` of the owning process, if the host knows it.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub pid: Option<String>,
    /// The session's branch, when it is not named like the session.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub branch: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Op {
    Claim,
    Release,
    Renew,
    Take,
    Update,
    Plan,
}

/// Every field any op has, as they come over the wire (`null` and absent alike).
#[derive(Deserialize)]
struct WireRequest {
    op: Op,
    task: Option<String>,
    paths: Option<Vec<String>>,
    resources: Option<Vec<String>>,
    purpose: Option<String>,
    lease: Option<String>,
    after: Option<Vec<String>>,
    pid: Option<String>,
    branch: Option<String>,
    touched: Option<Vec<String>>,
    done: Option<bool>,
    reason: Option<String>,
    add_paths: Option<Vec<String>>,
    add_resources: Option<Vec<String>>,
}

/// The one way a wire request can be wrong once its fields have their types.
#[derive(Debug)]
pub struct MissingTask;

impl std::fmt::Display for MissingTask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("missing field `task`")
    }
}

impl TryFrom<WireRequest> for Request {
    type Error = MissingTask;

    fn try_from(w: WireRequest) -> Result<Request, MissingTask> {
        // A claim's fields all have defaults (an empty task is refused by the planner, with
        // its own message); every other op needs its task.
        let task = match (&w.op, w.task) {
            (Op::Claim, task) => task.unwrap_or_default(),
            (_, Some(task)) => task,
            (_, None) => return Err(MissingTask),
        };
        Ok(match w.op {
            Op::Claim => Request::Claim(ClaimRequest {
                task,
                paths: w.paths.unwrap_or_default(),
                resources: w.resources.unwrap_or_default(),
                purpose: w.purpose,
                lease: w.lease,
                after: w.after.unwrap_or_default(),
                pid: w.pid,
                branch: w.branch,
            }),
            Op::Release => Request::Release {
                task,
                touched: w.touched.unwrap_or_default(),
                done: w.done.unwrap_or_default(),
            },
            Op::Renew => Request::Renew { task },
            Op::Take => Request::Take {
                task,
                reason: w.reason,
                branch: w.branch,
            },
            Op::Update => Request::Update {
                task,
                paths: w.paths,
                resources: w.resources,
                purpose: w.purpose,
                add_paths: w.add_paths.unwrap_or_default(),
                add_resources: w.add_resources.unwrap_or_default(),
            },
            Op::Plan => Request::Plan {
                task,
                paths: w.paths.unwrap_or_default(),
                purpose: w.purpose,
            },
        })
    }
}

impl Request {
    /// Each value against its limit (`text::limits`): the field, its size and the limit named.
    /// The planner checks this before anything else; a host that queues a request for another
    /// machine (a shared rail) checks it before it publishes anything.
    pub fn check_limits(&self) -> Result<(), String> {
        use crate::text::limits::{self, check_list, check_text};
        let text = |field: &str, value: &Option<String>, max: usize| match value {
            Some(v) => check_text(field, v, max),
            None => Ok(()),
        };
        let list = |field: &str, values: &Option<Vec<String>>, limit| match values {
            Some(v) => check_list(field, v, limit),
            None => Ok(()),
        };
        match self {
            Request::Claim(c) => {
                check_list("paths", &c.paths, limits::PATHS)?;
                check_list("resources", &c.resources, limits::RESOURCES)?;
                check_list("after", &c.after, limits::AFTER)?;
                text("purpose", &c.purpose, limits::PURPOSE_BYTES)?;
                text("lease", &c.lease, limits::LEASE_BYTES)?;
                text("pid", &c.pid, limits::PID_BYTES)?;
                text("branch", &c.branch, crate::text::ident::MAX_NAME_LEN)
            }
            Request::Release { touched, .. } => check_list("touched", touched, limits::TOUCHED),
            Request::Renew { .. } => Ok(()),
            Request::Take { reason, branch, .. } => {
                text("reason", reason, limits::REASON_BYTES)?;
                text("branch", branch, crate::text::ident::MAX_NAME_LEN)
            }
            Request::Update {
                paths,
                resources,
                purpose,
                add_paths,
                add_resources,
                ..
            } => {
                list("paths", paths, limits::PATHS)?;
                list("resources", resources, limits::RESOURCES)?;
                check_list("add_paths", add_paths, limits::PATHS)?;
                check_list("add_resources", add_resources, limits::RESOURCES)?;
                text("purpose", purpose, limits::PURPOSE_BYTES)
            }
            Request::Plan { paths, purpose, .. } => {
                check_list("paths", paths, limits::PATHS)?;
                text("purpose", purpose, limits::PURPOSE_BYTES)
            }
        }
    }

    pub fn task(&self) -> &str {
        match self {
            Request::Claim(c) => &c.task,
            Request::Release { task, .. }
            | Request::Renew { task }
            | Request::Take { task, .. }
            | Request::Update { task, .. }
            | Request::Plan { task, .. } => task,
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Request::Claim(_) => "claim",
            Request::Release { .. } => "release",
            Request::Renew { .. } => "renew",
            Request::Take { .. } => "take",
            Request::Update { .. } => "update",
            Request::Plan { .. } => "plan",
        }
    }
}
