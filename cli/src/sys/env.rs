//! The process environment, read here and nowhere else: every `RAIL_*` variable Rail obeys,
//! read once per process into [`Env`] (typed, with its default), and [`var_os`] for the names
//! other programs own (git's `GIT_*`, an agent's project directory, `HOME`), which the modules
//! that know them name.
//!
//! A command reads its settings from here instead of asking the environment halfway down: what
//! a variable means is written once, beside its name, and `grep RAIL_ cli/src/sys/env.rs` lists
//! them all (docs/agents.md and docs/lock-protocol.md document each). The fault-injection
//! variables (`RAIL_TEST_*`, cli/src/faults.rs) are read through [`var`] too, so a release build
//! has no other door to the environment.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use rail_core::formats::config::HookFailure;

/// Every `RAIL_*` setting (and the two other variables Rail's output obeys), as this process
/// started with them.
#[derive(Debug, Clone)]
pub struct Env {
    /// `RAIL_DIR`: the directory holding claims.md, unless `--rail` names one.
    pub rail_dir: Option<PathBuf>,
    /// `RAIL_NOW`: evaluate as of this time (tests and replays), unless `--now` says.
    pub now: Option<String>,
    /// `RAIL_SESSION`: the acting session, unless `--session` names one (empty: unset).
    pub session: Option<String>,
    /// `RAIL_LOCK_TIMEOUT_MS`: the rail lock's wait, over rail.yaml's `lock_timeout`.
    pub lock_timeout: Option<Duration>,
    /// `RAIL_OWNER_PID`: the process owning a new claim, unless `--pid` names one.
    pub owner_pid: Option<String>,
    /// `RAIL_HOOK_TIMEOUT_MS`: how long a hook call may take before its watchdog answers
    /// (default 8 s).
    pub hook_timeout: Duration,
    /// `RAIL_HOOK_FAILURE=warn|deny`: over rail.yaml's `hook_failure`.
    pub hook_failure: Option<HookFailure>,
    /// `RAIL_BYPASS=reason`: a person's explicit way past the git hooks, always logged.
    pub bypass: Option<String>,
    /// `RAIL_LOCAL=1`: this command works on the local rail only, even when it is shared.
    pub local: bool,
    /// `RAIL_SHARED_TRUST_MS`: how long after its own accepted push a round may plan on it
    /// without fetching (default 30 s; 0: always fetch).
    pub shared_trust: Duration,
    /// `RAIL_SHARED_TIMEOUT_MS`: a shared operation's deadline (default 60 s).
    pub shared_timeout: Duration,
    /// `RAIL_SHARED_QUEUES=off|0`: no queue is fetched or published (an older Rail's rounds).
    pub shared_queues: bool,
    /// `RAIL_SHARED_TRACE=<file>`: a line per round and push appended there.
    pub shared_trace: Option<PathBuf>,
    /// `RAIL_FSYNC=1`: every write is synced to disk before it counts.
    pub fsync: bool,
    /// `RAIL_AFTER_MAX_TRACKED`: the tracked-file count above which the after-tool check is
    /// skipped (default: core's).
    pub after_max_tracked: Option<u32>,
    /// `RAIL_STANDALONE_HTML`: the web board page `rail board --html` fills, instead of the one
    /// compiled in.
    pub standalone_html: Option<PathBuf>,
    /// `GITHUB_ACTIONS=true`: `rail validate --ci` prints GitHub's annotations.
    pub github_actions: bool,
    /// `NO_COLOR` set: the board is never coloured.
    pub no_color: bool,
    /// The agent this process was started by, and that agent's session id, from the variables
    /// agents give their children (core's `agent::SESSION_VARS`: `CLAUDE_CODE_SESSION_ID`, …):
    /// without `RAIL_SESSION`, `rail` acts as that agent's own session. As a shell command
    /// takes them, and as `rail mcp` does ([`serving_mcp`]).
    pub agent: Option<(&'static str, String)>,
    pub agent_mcp: Option<(&'static str, String)>,
    /// The agent whose shell this is when its variables name no session (core's
    /// `agent::SHELL_MARKS`: Gemini CLI's `GEMINI_CLI`, Copilot CLI's shells), and the id the
    /// variable carries: who a commit's pre-commit check takes the committer for.
    pub shell_agent: Option<(&'static str, Option<String>)>,
}

fn text(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

fn non_empty(name: &str) -> Option<String> {
    text(name).filter(|v| !v.is_empty())
}

fn millis(name: &str) -> Option<Duration> {
    text(name)
        .and_then(|v| v.parse::<u64>().ok())
        .map(Duration::from_millis)
}

impl Env {
    fn read() -> Env {
        Env {
            rail_dir: std::env::var_os("RAIL_DIR").map(PathBuf::from),
            now: text("RAIL_NOW"),
            session: non_empty("RAIL_SESSION"),
            lock_timeout: millis("RAIL_LOCK_TIMEOUT_MS"),
            owner_pid: non_empty("RAIL_OWNER_PID"),
            hook_timeout: millis("RAIL_HOOK_TIMEOUT_MS").unwrap_or(Duration::from_secs(8)),
            hook_failure: match text("RAIL_HOOK_FAILURE").as_deref() {
                Some("warn") => Some(HookFailure::Warn),
                Some("deny") => Some(HookFailure::Deny),
                _ => None,
            },
            bypass: non_empty("RAIL_BYPASS"),
            local: rail_core::model::shared::local_only(
                text(rail_core::model::shared::LOCAL_ENV).as_deref(),
            ),
            shared_trust: millis("RAIL_SHARED_TRUST_MS").unwrap_or(Duration::from_secs(30)),
            shared_timeout: millis("RAIL_SHARED_TIMEOUT_MS").unwrap_or(Duration::from_secs(60)),
            shared_queues: text("RAIL_SHARED_QUEUES").is_none_or(|v| v != "off" && v != "0"),
            shared_trace: std::env::var_os("RAIL_SHARED_TRACE").map(PathBuf::from),
            fsync: text("RAIL_FSYNC").is_some_and(|v| v == "1"),
            after_max_tracked: text("RAIL_AFTER_MAX_TRACKED").and_then(|v| v.parse().ok()),
            standalone_html: std::env::var_os("RAIL_STANDALONE_HTML").map(PathBuf::from),
            github_actions: text("GITHUB_ACTIONS").is_some_and(|v| v == "true"),
            no_color: std::env::var_os("NO_COLOR").is_some(),
            agent: rail_core::agent::agent_of_env(&text, false),
            agent_mcp: rail_core::agent::agent_of_env(&text, true),
            shell_agent: rail_core::agent::shell_agent_of_env(&text),
        }
    }
}

impl Env {
    /// [`Env::agent`] (or, in `rail mcp`, [`Env::agent_mcp`]) as core takes it.
    pub fn agent_self(&self) -> Option<rail_core::text::ident::AgentSelf<'_>> {
        let agent = if SERVING_MCP.get().is_some() {
            &self.agent_mcp
        } else {
            &self.agent
        };
        agent
            .as_ref()
            .map(|(agent, id)| rail_core::text::ident::AgentSelf {
                agent,
                id,
                sub: None,
            })
    }

    /// The tracked-file count above which the after-tool check is skipped:
    /// `RAIL_AFTER_MAX_TRACKED`, else core's.
    pub fn after_limit(&self) -> u32 {
        self.after_max_tracked
            .unwrap_or(rail_core::agent::after::MAX_TRACKED)
    }
}

static SERVING_MCP: OnceLock<()> = OnceLock::new();

/// This process is `rail mcp`: an agent's MCP server, which takes the agent's session from the
/// variables an agent gives its MCP servers ([`Env::agent_mcp`]).
pub fn serving_mcp() {
    let _ = SERVING_MCP.set(());
}

/// This process's settings, read from the environment on first use.
pub fn env() -> &'static Env {
    static ENV: OnceLock<Env> = OnceLock::new();
    ENV.get_or_init(Env::read)
}

/// A variable another program owns (git's, an agent's, the OS's), as it is now.
pub fn var_os(name: &str) -> Option<OsString> {
    std::env::var_os(name)
}

/// [`var_os`] as text (`None` when unset or not Unicode).
pub fn var(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// The user's home directory as git and the agents find it: `HOME`, else (Windows)
/// `USERPROFILE`; an empty value is none.
pub fn home() -> Option<PathBuf> {
    var_os("HOME")
        .or_else(|| var_os("USERPROFILE"))
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}
