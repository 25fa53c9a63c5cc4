//! A hook always answers, and within a bound: a watchdog thread answers for it when the bound
//! passes, and a panic is answered too — for a tool call as a failure to check (denied by
//! default, rail.yaml `hook_failure: warn` to only warn), for a Stop or session end in that
//! event's own terms (the agent always stops), for a worktree event as a refusal. Only the
//! first answer is ever written.

use std::sync::mpsc;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use rail_core::agent::{self, Answer, Harness, Outcome};
use rail_core::formats::config::HookFailure;

use crate::context::Ctx;
use crate::sys::env::env;

/// Only one answer is ever written: the first of the hook and its watchdog.
static ANSWERED: Mutex<bool> = Mutex::new(false);

/// What the hook is answering, for the panic hook.
static CURRENT: Mutex<Option<Watch>> = Mutex::new(None);

/// The hook's context, once made: a failure to check is answered as its rail.yaml says.
static RAIL: OnceLock<Ctx> = OnceLock::new();

/// Keeps the hook's context for the rest of the process and returns it.
pub fn keep(ctx: Ctx) -> &'static Ctx {
    RAIL.get_or_init(|| ctx)
}

/// How a tool call Rail could not check is answered: `RAIL_HOOK_FAILURE`, else the rail's
/// rail.yaml once the rail is known, else core's default (deny).
fn failure_mode() -> HookFailure {
    env().hook_failure.unwrap_or_else(|| {
        RAIL.get()
            .map(|c| c.settings())
            .unwrap_or_default()
            .hook_failure
    })
}

/// A tool call Rail could not check: denied (or only warned about, by config), with the reason.
pub fn fail_safe(reason: &str) -> Outcome {
    match failure_mode() {
        HookFailure::Deny => Outcome::Deny(format!(
            "Rail could not check this edit: {reason}. It is denied because Rail cannot tell whether it is safe (set `hook_failure: warn` in rail.yaml to only warn)."
        )),
        HookFailure::Warn => Outcome::Warn(format!("Rail could not check this edit: {reason}")),
    }
}

/// Writes the answer (unless one was written already) and returns the exit code.
pub fn emit(answer: &Answer) -> Option<i32> {
    let mut answered = ANSWERED.lock().unwrap_or_else(|e| e.into_inner());
    if *answered {
        return None;
    }
    *answered = true;
    write(answer);
    Some(answer.code)
}

fn write(answer: &Answer) {
    if let Some(out) = &answer.stdout {
        outln_raw!("{out}");
    }
    if let Some(err) = &answer.stderr {
        errln!("{err}");
    }
}

/// What the watchdog answers when the bound passes.
#[derive(Clone, Debug)]
pub struct Watch {
    deadline: Instant,
    /// The bound the deadline stands for.
    bound: Duration,
    harness: Harness,
    kind: Awaited,
}

/// What a hook call is, for the answer its watchdog (or a panic) gives.
#[derive(Clone, Debug)]
pub enum Awaited {
    /// A tool call (or not yet known): a failure to check.
    Tool,
    /// A Stop or session end (its name): the agent stops, the claims as they were.
    Lifecycle(String),
    /// A worktree event: refused, and the station maybe half made.
    Worktree,
    /// A task's completion at Rail's gate: refused, the task kept pending.
    Gate,
}

/// The watchdog of one hook call: told what the call turned out to be, it answers when that
/// call's bound has passed since `start`.
pub struct Watchdog {
    start: Instant,
    updates: mpsc::Sender<Watch>,
}

impl Watchdog {
    /// Starts the watchdog (and the panic answer) for a call of `harness`'s agent, as a tool call
    /// until [`Watchdog::watch`] says otherwise.
    pub fn start(harness: Harness) -> Watchdog {
        let start = Instant::now();
        let bound = env().hook_timeout;
        let watch = Watch {
            deadline: start + bound,
            bound,
            harness,
            kind: Awaited::Tool,
        };
        set_current(&watch);
        answer_panics();
        let (updates, rx) = mpsc::channel();
        std::thread::spawn(move || watchdog(watch, rx));
        Watchdog { start, updates }
    }

    /// The call is `kind`, answered as `harness`'s, within `bound` of its start.
    pub fn watch(&self, harness: Harness, kind: Awaited, bound: Duration) {
        let watch = Watch {
            deadline: self.start + bound,
            bound,
            harness,
            kind,
        };
        set_current(&watch);
        let _ = self.updates.send(watch);
    }
}

/// The answer when the hook cannot finish (`why`): a tool call fails safe; a Stop or session end
/// says so and lets the agent stop.
fn failure_outcome(watch: &Watch, why: &str) -> Outcome {
    match &watch.kind {
        Awaited::Lifecycle(event) => Outcome::Lifecycle(Some(format!(
            "Rail: {event} was not finished ({why}); the session's claims were left as they were and keep their lease"
        ))),
        Awaited::Worktree => Outcome::Worktree(Err(format!(
            "Rail: the station was not finished ({why}); see `rail worktree list` for what is there"
        ))),
        Awaited::Gate => Outcome::Deny(format!(
            "Rail: the gate did not finish ({why}); the task stays pending: run `rail done TASK` to see why"
        )),
        Awaited::Tool => fail_safe(why),
    }
}

/// A panic is a failure like any other: the agent gets the fail-safe answer in its own format,
/// not an exit code it would read as "go on" (Claude Code runs the tool on exit 101).
fn answer_panics() {
    std::panic::set_hook(Box::new(|info| {
        let watch = CURRENT.lock().ok().and_then(|w| w.clone());
        let Some(watch) = watch else { return };
        // The answer may be half written already: then nothing more is said.
        let Ok(mut answered) = ANSWERED.try_lock() else {
            return;
        };
        if *answered {
            return;
        }
        *answered = true;
        let answer = agent::answer(
            watch.harness,
            &failure_outcome(&watch, &format!("an internal error: {info}")),
        );
        write(&answer);
        std::process::exit(answer.code);
    }));
}

fn watchdog(mut watch: Watch, updates: mpsc::Receiver<Watch>) {
    loop {
        let now = Instant::now();
        if now >= watch.deadline {
            break;
        }
        match updates.recv_timeout(watch.deadline - now) {
            Ok(w) => watch = w,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                std::thread::sleep(watch.deadline.saturating_duration_since(Instant::now()))
            }
        }
    }
    let took = watch.bound.as_millis();
    let why = match &watch.kind {
        Awaited::Gate => format!("the check took longer than {took} ms"),
        Awaited::Lifecycle(_) | Awaited::Worktree => format!(
            "it took longer than {took} ms: the rail lock is busy or the rail is slow to read"
        ),
        Awaited::Tool => format!("the check took longer than {took} ms"),
    };
    let outcome = failure_outcome(&watch, &why);
    if let Some(code) = emit(&agent::answer(watch.harness, &outcome)) {
        std::process::exit(code);
    }
}

fn set_current(watch: &Watch) {
    if let Ok(mut current) = CURRENT.lock() {
        *current = Some(watch.clone());
    }
}
