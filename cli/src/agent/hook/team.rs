//! An agent team's task list on the rail (Claude Code's TaskCreated, TaskUpdate and
//! TaskCompleted; core's `agent::team` holds the rules): a task created goes on the backlog, the
//! agent setting it in progress claims it (or is denied it, the holder named), and its
//! completion passes Rail's gate (`ops::gate`, as `rail done` runs it) or is refused with the
//! reason, which the agent's model reads.

use rail_core::agent::team::{self, TaskEvent};
use rail_core::agent::{self, Outcome};
use rail_core::change::ops::{ClaimRequest, Request};

use super::Here;
use crate::context::Ctx;
use crate::git::repo::Repo;
use crate::ops::gate::{CheckCommand, CheckOutput};

/// The answer to a task-list event.
pub fn on_task(ctx: &Ctx, call: &agent::Call, here: &Here, event: &TaskEvent) -> Outcome {
    let (Some(session), Some(repo), Some(id)) = (
        here.session(),
        ctx.repo.as_ref(),
        call.agent_session.as_deref(),
    ) else {
        // No session to act for (an unnamed checkout), no git, or no agent session to follow
        // the list by: nothing Rail can hold.
        return Outcome::Allow;
    };
    let agent = call.harness.sender.name();
    match event {
        TaskEvent::Created {
            id: list_id,
            subject,
            description,
        } => created(
            ctx,
            repo,
            (agent, id),
            session,
            list_id,
            subject,
            description,
        ),
        TaskEvent::Started { id: list_id } => {
            match crate::store::tasks::recall(repo, agent, id, list_id) {
                Some(task) => started(ctx, session, &task),
                // A task Rail never saw created: nothing on the rail to take.
                None => Outcome::Allow,
            }
        }
        TaskEvent::Completed { id: list_id, .. } => {
            match crate::store::tasks::recall(repo, agent, id, list_id) {
                Some(task) => completed(ctx, session, &task),
                None => Outcome::Allow,
            }
        }
    }
}

/// A task created: on the backlog (once), and which rail task it is kept for the events that
/// name only its list id. Never blocks the creation: a task Rail could not plan is said.
fn created(
    ctx: &Ctx,
    repo: &Repo,
    (agent, id): (&str, &str),
    session: &str,
    list_id: &str,
    subject: &str,
    description: &str,
) -> Outcome {
    let task = team::rail_task(list_id, subject);
    let request = Request::Plan {
        task: task.clone(),
        paths: team::described_paths(description),
        purpose: team::purpose_of(subject),
    };
    if let Err(f) = crate::ops::write::mutate(ctx, session, request) {
        return Outcome::Lifecycle(Some(format!(
            "Rail: task {list_id} ({}) is not on the rail's backlog: {}",
            rail_core::text::terminal_safe(subject),
            f.message
        )));
    }
    match crate::store::tasks::remember(repo, agent, id, list_id, &task) {
        Ok(()) => Outcome::Allow,
        Err(e) => Outcome::Lifecycle(Some(format!(
            "Rail: {task} is on the backlog, but which task {list_id} is could not be kept ({e}): its claim and gate are not followed"
        ))),
    }
}

/// An agent setting the task in progress takes its claim, with the backlog entry's paths; a
/// task another session holds (one this agent does not act for) is denied it, the holder named.
fn started(ctx: &Ctx, session: &str, task: &str) -> Outcome {
    let request = Request::Claim(ClaimRequest {
        task: task.to_string(),
        ..ClaimRequest::default()
    });
    match crate::ops::write::mutate(ctx, session, request) {
        Ok(_) => Outcome::Allow,
        Err(f) => Outcome::Deny(format!(
            "Rail: {session} cannot take {task}: {}. Take another task",
            f.message
        )),
    }
}

/// A completion passes Rail's gate for the completing session: the check (rail.yaml's, when it
/// sets one) and its changes against its claim. A pass releases the claim and ticks the backlog
/// entry; a failure keeps the task pending, with the reason. A task the session holds no claim
/// of (nobody took it, or only a session it does not act for) is not Rail's to judge.
fn completed(ctx: &Ctx, session: &str, task: &str) -> Outcome {
    use rail_core::agent::gate::GateVerdict;
    let run = crate::ops::gate::run(
        ctx,
        session,
        task,
        CheckCommand::IfSet,
        None,
        CheckOutput::Capture,
        |_, _| {},
    );
    match run {
        Ok(run) => match run.result.verdict {
            GateVerdict::Passed | GateVerdict::NotClaimed => Outcome::Allow,
            _ => Outcome::Deny(format!(
                "Rail: {task} is not done: {}",
                run.result.message
            )),
        },
        Err(f) => Outcome::Deny(format!(
            "Rail: {task} is not done: its gate could not run ({}); run `rail done {task}` to see why",
            f.message
        )),
    }
}
