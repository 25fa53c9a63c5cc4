//! Agents: one module per agent, each holding all Rail knows of it, and what they share.
//!
//! Each agent's file (`claude.rs`, `codex/`, `cursor.rs`, `gemini.rs`, `vscode.rs`,
//! `copilot.rs`) implements [`Spec`]: how its hook payloads read (events, tool table), the exact
//! answer it obeys, how long it allows a Stop or session end, and what `rail init --agents`
//! installs for it (files, markers, the evidence that it is set up, station paths, the trust it
//! asks for). [`AGENTS`] lists them; everything else goes over that list, so a new agent is its
//! file and its entry there.
//!
//! A host reads the payload's text from stdin and hands it to [`read_call`]: the call's event, where
//! the agent works, and for a tool call the paths it writes and what in it cannot be judged
//! (shell commands through [`shell`], patches through [`patch`], MCP tools by the shared rules
//! of `mcp.rs`). The decision itself is [`hook::judge`], the same for every agent. [`answer`]
//! turns the decision into the exact bytes and exit code that agent obeys — each has its own trap
//! (docs/agents.md; each agent's file says which).
//!
//! A payload may come from another agent than the hook's own ([`Harness`]): Claude Code's
//! settings file is also loaded by VS Code's agent and, opt-in, by Cursor; Copilot CLI's hook
//! files by VS Code's agent. The hook recognises their payloads by shape and reads them with
//! their own tool tables.
//!
//! Stop and session-end events are never answered with an edit denial: they renew or release,
//! within each agent's limit for that event ([`lifecycle_budget_ms`]), and always let the agent
//! stop.

use serde_json::{Map, Value};

use doctor::{HookCheck, JudgedHook, Trust};
use setup::FileChanges;

pub use mcp::RAIL_MCP_TOOLS;
use mcp::{by_verb, mcp, mcp_by_name, path_arguments};

// One module per agent; adding an agent is a new file here and an entry in `AGENTS`.
pub mod claude;
pub mod codex;
pub mod copilot;
pub mod cursor;
pub mod gemini;
mod mcp;
pub mod vscode;

// What every agent shares: the hook's verdicts and what they read.
pub mod after;
pub mod doctor;
pub mod flight;
pub mod gate;
pub mod hook;
pub mod patch;
pub mod setup;
pub mod shell;
pub mod team;

mod call;
pub(crate) use call::is_version;
use call::{
    after_tool, apply_patch, command, field, is_post_tool, is_pre_tool, shell_call, shell_writes,
    tool_call, tool_event,
};
pub use call::{
    agent_of_env, read_call, shell_agent_of_env, Call, ToolWrites, SESSION_VARS, SHELL_MARKS,
};

pub use claude::CLAUDE_BLOCK;

/// Every agent Rail supports, in the order `rail init --agents` and the board list them.
pub const AGENTS: &[Agent] = &[
    claude::AGENT,
    codex::AGENT,
    cursor::AGENT,
    gemini::AGENT,
    vscode::AGENT,
    copilot::AGENT,
];

/// All Rail knows of one agent. Each method says which side uses it: the hook (`rail hook
/// <agent>`), `rail init --agents` and the station guard, or `rail doctor`.
pub trait Spec: Sync {
    /// Its name on the command line: `rail hook <name>`, `rail init --agents --agent <name>`.
    fn name(&self) -> &'static str;
    /// Its name for people.
    fn title(&self) -> &'static str;

    // The hook.

    /// The help line of `rail hook <name>`; `None`: it has no hook command of its own (it runs
    /// another agent's).
    fn hook_help(&self) -> Option<&'static str> {
        None
    }
    /// The help of the hook command's `--event NAME`, for an agent whose payloads name no event.
    fn hook_event_help(&self) -> Option<&'static str> {
        None
    }
    /// Who sent a payload to this agent's hook, when not this agent (by the payload's shape).
    fn guest(&self, _payload: &Map<String, Value>) -> Option<Harness> {
        None
    }
    /// The event of one of this agent's payloads that names none (and the command neither).
    fn default_event(&self, _payload: &Map<String, Value>) -> Option<&'static str> {
        None
    }
    /// This agent's own events (`name` as the payload or command gives it); `None`: the shared
    /// ones (`stop`, `sessionEnd`), else [`Event::Pass`].
    fn event(&self, harness: Harness, name: &str, payload: &Map<String, Value>) -> Option<Event>;
    /// The writes of a tool call, by this agent's tool table. `Err`: a writing tool whose input
    /// lacks what it writes (cannot judge).
    fn tool(
        &self,
        tool: &str,
        input: &Value,
        payload: &Map<String, Value>,
    ) -> Result<ToolWrites, String>;
    /// The answer this agent obeys for `outcome`.
    fn answer(&self, outcome: &Outcome) -> Answer;
    /// How long a Stop or session-end hook may take, in milliseconds (the agent's limit for the
    /// event, with a margin for starting the process).
    fn lifecycle_budget_ms(&self, _event: &Event) -> u64 {
        5_000
    }

    // `rail init --agents` and the station guard.

    /// Files or folders whose presence at the repository's top says the agent is used there.
    fn markers(&self) -> &'static [&'static str];
    /// The instruction file the agent reads, when it reads one of its own (the others read
    /// AGENTS.md or CLAUDE.md, which `rail init --agents` writes by default).
    fn own_instructions(&self) -> Option<&'static str> {
        None
    }
    /// What the person must do once for the installed files to take effect.
    fn needs(&self) -> &'static str;
    /// The files `rail init --agents` changes. `rail` is the command line that runs Rail in a
    /// shell (hooks); `rail_exe` the program an MCP client starts (no shell).
    fn files(&self, rail: &str, rail_exe: &str) -> Vec<FileChanges>;
    /// The files whose text says whether the agent is set up in a checkout (its hook files).
    fn evidence_files(&self) -> &'static [&'static str];
    /// Whether one of [`Spec::evidence_files`], parsed, says so: a hook runs `rail hook <name>`.
    fn set_up(&self, file: &Value) -> bool {
        let hook = format!("hook {}", self.name());
        setup::hooks_run(file, |entry| setup::runs(entry, &hook))
    }
    /// Project files the agent also reads from a local, untracked variant, which a station gets
    /// instead (docs/agents.md, "Stations"): `(project file, local variant)`.
    fn station_paths(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }

    /// The variables in which the agent names the folder it works in, for a payload that
    /// carries no `cwd` (the hook's own directory is the last resort).
    fn project_dir_vars(&self) -> &'static [&'static str] {
        &[]
    }
    /// The agent's version, where what it gives its hook says: `payload` is the call's, `env`
    /// looks a variable up in the hook's environment (the host reads it; core never does).
    /// Shown with the session's guard status.
    fn version(
        &self,
        _payload: &Map<String, Value>,
        _env: &dyn Fn(&str) -> Option<String>,
    ) -> Option<String> {
        None
    }

    // `rail doctor`.

    /// Where the agent records which folders it trusts, when it asks: without that trust it
    /// loads no project hook.
    fn trust(&self) -> Option<TrustFile> {
        None
    }
}

/// An agent: a handle on its [`Spec`] (compared by name).
#[derive(Clone, Copy)]
pub struct Agent(&'static dyn Spec);

impl Agent {
    pub const fn new(spec: &'static dyn Spec) -> Agent {
        Agent(spec)
    }

    /// The agent named `name` (as on the command line, any case).
    pub fn named(name: &str) -> Option<Agent> {
        let name = name.trim().to_ascii_lowercase();
        AGENTS.iter().copied().find(|a| a.name() == name)
    }

    /// [`Agent::named`], or the message naming the known agents.
    pub fn parse(name: &str) -> Result<Agent, String> {
        Agent::named(name).ok_or_else(|| {
            let known: Vec<&str> = AGENTS.iter().map(|a| a.name()).collect();
            format!("unknown agent `{name}` (known: {})", known.join(", "))
        })
    }

    /// The agent whose hook command is `rail hook <name>` (exactly that name).
    pub fn hooked(name: &str) -> Option<Agent> {
        AGENTS
            .iter()
            .copied()
            .find(|a| a.name() == name && a.hook_help().is_some())
    }
}

impl std::ops::Deref for Agent {
    type Target = dyn Spec;
    fn deref(&self) -> &Self::Target {
        self.0
    }
}

impl PartialEq for Agent {
    fn eq(&self, other: &Agent) -> bool {
        self.name() == other.name()
    }
}

impl Eq for Agent {}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Who sent a payload, and whose answer it obeys: the hook's own agent, or another that loads
/// its hook file (VS Code's agent answers its own way, Cursor running Claude Code's hooks
/// Claude Code's way).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Harness {
    /// Whose payload it is: its events and tool table read it.
    pub sender: Agent,
    /// Whose answer format, and limits for a Stop or session end, it obeys.
    pub answers_as: Agent,
}

impl Harness {
    /// A payload of the hook's own agent.
    pub const fn of(agent: Agent) -> Harness {
        Harness {
            sender: agent,
            answers_as: agent,
        }
    }

    pub fn name(self) -> &'static str {
        self.sender.title()
    }
}

/// Where an agent keeps the folders it trusts (read by the host, judged by `judge`).
#[derive(Clone, Copy, Debug)]
pub struct TrustFile {
    /// A variable that, set to `"true"`, trusts every folder.
    pub trust_all: Option<&'static str>,
    /// The variable naming the file, or its folder ([`TrustFile::file`] in it).
    pub env: TrustEnv,
    /// The folder under the home directory, when the variable is unset.
    pub home_dir: &'static str,
    pub file: &'static str,
    /// What the file's text says of a folder.
    pub judge: fn(&str, &str) -> Trust,
    /// How to trust a folder.
    pub fix: fn(&str) -> String,
    /// Trust of the main checkout covers its stations.
    pub by_main_checkout: bool,
    /// Trust the agent also keeps in that file for each hook, when it does.
    pub hooks: Option<PerHook>,
}

/// Trust an agent keeps hook by hook, beside its trust of the folder (Codex: a hash of each hook
/// as it was trusted): it skips a hook it has not trusted, or that changed since.
#[derive(Clone, Copy, Debug)]
pub struct PerHook {
    /// The project's hook file whose hooks it trusts, in the main checkout (the agent reads a
    /// station's hooks from there too).
    pub file: &'static str,
    /// Rail's hooks in that file and the trust of each; an error when the agent cannot read the
    /// file (then it runs none of them).
    pub judge: fn(&HookCheck) -> Result<Vec<JudgedHook>, String>,
    /// How to trust them, in the folder given.
    pub fix: fn(&str) -> String,
}

#[derive(Clone, Copy, Debug)]
pub enum TrustEnv {
    File(&'static str),
    Dir(&'static str),
}

/// What a hook call is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A tool call, before it runs: the paths it writes (as written: relative to `cwd`, or
    /// absolute) and the parts Rail cannot judge.
    Tool {
        tool: String,
        targets: Vec<String>,
        unanalysed: Vec<String>,
        /// The commits a shell command makes ([`shell::GitCommit`]), judged for what they take.
        commits: Vec<shell::GitCommit>,
    },
    /// A tool call, after it ran: what it changed is checked against the snapshot taken before
    /// it ([`after`]).
    AfterTool { tool: String },
    /// The agent finished a turn: it is active, its lease is renewed.
    Stop,
    /// The session ended: its claims are released (rail.yaml `on_stop`).
    SessionEnd,
    /// The agent asks its hook to make or close a worktree itself (Claude Code's WorktreeCreate
    /// and WorktreeRemove): a Rail station. `Err`: the payload names no usable worktree (the
    /// reason, worded for the person whose agent does not start).
    Worktree(Result<WorktreeEvent, String>),
    /// The agent's own task list (Claude Code's agent teams): a task created, taken or
    /// completed ([`team`]).
    Task(team::TaskEvent),
    /// An event Rail has nothing to do with (answered with the agent's plain "go on").
    Pass,
    /// The payload cannot be read: the hook cannot judge (never a silent allow).
    Malformed(String),
}

/// A worktree the agent asks its hook to make or close.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WorktreeEvent {
    /// Make one for `name`, a valid task id: the station's task (and, unless a session is named,
    /// its branch and session).
    Create { name: String },
    /// Close the one at `path` (absolute), which the hook made.
    Remove { path: String },
}

impl Event {
    /// Stop and session end: answered in their own terms, never with an edit denial.
    pub fn is_lifecycle(&self) -> bool {
        matches!(self, Event::Stop | Event::SessionEnd)
    }
}

/// The answer `harness` obeys for `outcome`.
pub fn answer(harness: Harness, outcome: &Outcome) -> Answer {
    harness.answers_as.answer(outcome)
}

/// What Rail decided, in the hook's terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Let the tool run; nothing to say.
    Allow,
    /// Let it run and tell the agent (and the person) this.
    Warn(String),
    /// Block the tool call, with the reason.
    Deny(String),
    /// After the tool: it wrote into another session's claimed paths; the message says which
    /// files and what was put back. The tool already ran: the answer is the agent's way of
    /// telling the model at once (each agent's file says what it does with it).
    After(String),
    /// A Stop or session-end event was handled; an optional note (something went wrong). The
    /// agent always stops: never a block, never an edit denial.
    Lifecycle(Option<String>),
    /// A worktree event was handled (`Ok`), or refused with the reason (`Err`): the worktree is
    /// not made, or kept. Never a silent success: a refusal is the agent's failure.
    Worktree(Result<WorktreeDone, String>),
}

/// What the hook did for a worktree event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WorktreeDone {
    /// The station at this path (absolute) is ready: the agent works there.
    Made(String),
    /// The station is closed; what was done, in a sentence.
    Closed(String),
}

/// The hook's answer: what to print on each stream and the exit code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// JSON for stdout (printed as is).
    pub stdout: Option<String>,
    /// Text for stderr.
    pub stderr: Option<String>,
    pub code: i32,
}

impl Answer {
    /// Nothing printed, exit 0.
    const QUIET: Answer = Answer {
        stdout: None,
        stderr: None,
        code: 0,
    };

    /// `v` on stdout, exit 0.
    fn json(v: Value) -> Answer {
        Answer {
            stdout: Some(v.to_string()),
            ..Answer::QUIET
        }
    }
}

/// The answer to an event Rail passes (`Event::Pass`) or a tool it allows.
pub fn pass(harness: Harness, call_event: &Event) -> Answer {
    if call_event.is_lifecycle() {
        answer(harness, &Outcome::Lifecycle(None))
    } else {
        answer(harness, &Outcome::Allow)
    }
}

fn non_empty(m: &str) -> &str {
    if m.trim().is_empty() {
        "Rail denied this tool call"
    } else {
        m
    }
}

/// How long a Stop or session-end hook may take, in milliseconds, by the limit for that event
/// of the agent whose hook file it came through (each agent's file says its own). A Stop comes
/// at every turn's end, so it is kept short everywhere.
pub fn lifecycle_budget_ms(harness: Harness, event: &Event) -> u64 {
    harness.answers_as.lifecycle_budget_ms(event)
}

/// How long a lifecycle event may wait for the rail lock: half its budget, so the answer still
/// comes in time when another writer holds the lock.
pub fn lifecycle_lock_wait_ms(harness: Harness, event: &Event) -> u64 {
    lifecycle_budget_ms(harness, event) / 2
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A payload read as `rail hook <agent>` reads it, with no event named by the command and
    /// no environment.
    pub(crate) fn read(agent: Agent, input: &str) -> Call {
        read_call(agent, input, None, &|_| None)
    }

    /// [`read`], with the event name the installed command gives (`--event preToolUse`).
    pub(crate) fn read_event(agent: Agent, input: &str, event: Option<&str>) -> Call {
        read_call(agent, input, event, &|_| None)
    }

    /// A tool call's targets and what could not be judged.
    pub(crate) fn tool(call: &Call) -> (&[String], &[String]) {
        match &call.event {
            Event::Tool {
                targets,
                unanalysed,
                ..
            } => (targets, unanalysed),
            other => panic!("not a tool call: {other:?}"),
        }
    }

    #[test]
    fn a_stop_is_never_blocked_in_any_format() {
        let mut harnesses: Vec<Harness> = AGENTS.iter().map(|a| Harness::of(*a)).collect();
        harnesses.push(Harness {
            sender: cursor::AGENT,
            answers_as: claude::AGENT,
        });
        for h in harnesses {
            let a = answer(h, &Outcome::Lifecycle(Some("lock busy".into())));
            assert_eq!(a.code, 0);
            // Copilot has no lifecycle output but `decision`, which would force another turn:
            // its note goes to stderr, on exit 0.
            assert!(a.stderr.is_none() || h == Harness::of(copilot::AGENT));
            let stdout = a.stdout.unwrap_or_default();
            assert!(!stdout.contains("deny") && !stdout.contains("block"));
        }
    }

    #[test]
    fn bad_payloads_cannot_be_judged() {
        for bad in ["", "nope", "[1]", r#"{"tool_name":"Edit"}"#] {
            assert!(
                matches!(read(cursor::AGENT, bad).event, Event::Malformed(_)),
                "{bad}"
            );
        }
        let no_path = read(
            gemini::AGENT,
            r#"{"hook_event_name":"BeforeTool","tool_name":"write_file","tool_input":{}}"#,
        );
        assert!(matches!(no_path.event, Event::Malformed(ref m) if m.contains("file_path")));
        let bom = read(
            cursor::AGENT,
            "\u{feff}{\"hook_event_name\":\"stop\",\"status\":\"completed\"}",
        );
        assert_eq!(bom.event, Event::Stop);
    }

    /// Each agent's version is read where that agent puts it (seen on the real programs:
    /// Claude Code 2.1.332's `AI_AGENT`, the Copilot CLI 1.0.102's `COPILOT_CLI_BINARY_VERSION`;
    /// Cursor's payload field), and only when it reads as a version.
    #[test]
    fn versions_come_from_where_each_agent_puts_them() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        let stop = r#"{"hook_event_name":"Stop"}"#;
        let version = |agent: Agent, input: &str, vars: &'static [(&'static str, &'static str)]| {
            read_call(agent, input, None, &env(vars)).version
        };
        let claude_env: &[(&str, &str)] = &[("AI_AGENT", "claude-code_2-1-332_harness")];
        assert_eq!(
            version(claude::AGENT, stop, claude_env).as_deref(),
            Some("2.1.332")
        );
        // Another tool's tag, or none, says nothing.
        assert_eq!(
            version(claude::AGENT, stop, &[("AI_AGENT", "aider_0-9_x")]),
            None
        );
        assert_eq!(version(claude::AGENT, stop, &[]), None);
        // A tag that is not a version is not shown (it is the environment's to fill).
        for bad in [
            "claude-code_$(rm -rf ~)_h",
            "claude-code__h",
            "claude-code_2\n1_h",
        ] {
            let vars: &'static [(&'static str, &'static str)] =
                Box::leak(Box::new([("AI_AGENT", bad)]));
            assert_eq!(version(claude::AGENT, stop, vars), None, "{bad}");
        }
        let copilot_stop = r#"{"sessionId":"s","cwd":"/w","stopReason":"end_turn"}"#;
        assert_eq!(
            read_call(
                copilot::AGENT,
                copilot_stop,
                Some("agentStop"),
                &env(&[("COPILOT_CLI_BINARY_VERSION", "1.0.102")])
            )
            .version
            .as_deref(),
            Some("1.0.102")
        );
        // Cursor's payload through Claude Code's hook file: the sender's (Cursor's) version.
        let cursor = r#"{"hook_event_name":"stop","conversation_id":"c","cursor_version":"3.9.1","workspace_roots":["/w"]}"#;
        assert_eq!(
            version(claude::AGENT, cursor, claude_env).as_deref(),
            Some("3.9.1")
        );
        assert_eq!(
            version(cursor::AGENT, cursor, &[]).as_deref(),
            Some("3.9.1")
        );
        // Codex and Gemini CLI name no version to their hooks.
        assert_eq!(version(codex::AGENT, stop, claude_env), None);
        assert_eq!(
            version(gemini::AGENT, r#"{"hook_event_name":"AfterAgent"}"#, &[]),
            None
        );
        assert!(is_version("1.0.102-beta.1+b7"));
        assert!(!is_version(&"1".repeat(41)));
    }
}
