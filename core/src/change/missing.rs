//! The shared ref found missing on its remote: what a machine may do about it.
//!
//! Git answers a fetch of a ref that is not there with "couldn't find remote ref", the same
//! for a remote that never had a shared rail and for one whose ref was deleted (a `git push
//! --mirror` from a clone without it, a migration, a restore). Read as "no shared state yet",
//! a deletion started an empty rail: the next claim published a new root, every live claim
//! gone, a task held on the lost state granted again, and the machine that still had the lost
//! state merged it back later and gave the task to both (issue 42, finding 3). So a missing
//! ref is judged on what the machine knows:
//!
//! - it saw a state of the ref (the host keeps the last one it fetched or pushed): the ref was
//!   deleted; that state is put back, as a commit on top of it, and the command says so loudly
//!   (a rewind to nothing, merged back like any rewind);
//! - it never saw one, but the remote holds other refs only a shared rail makes (machines'
//!   queues, guard marks): the ref was deleted too, and this machine has nothing to put back;
//!   it refuses to start a rail over the others' state, and names what it found;
//! - it never saw one and the remote holds nothing of a shared rail: a new rail, as before.
//!
//! A new root over a deleted ref is made only on an explicit reset (`rail sync
//! --reset-shared`), which the host does outside this judgement.

/// What a machine does about the shared ref missing on its remote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Missing {
    /// Put back the state this machine last saw (a commit id) and build on it.
    Restore { seen: String },
    /// No shared rail has been there as far as this machine can tell: start one.
    Start,
    /// Other machines' refs show a shared rail was there, and this machine has nothing to put
    /// back: change nothing, and say why.
    Refuse { why: String },
}

/// The most refs of other machines a refusal names.
const NAMED: usize = 3;

/// Judges the shared ref `shared_ref` missing on `remote`: `seen` is the last state of it this
/// machine saw (a commit id), `others` the remote's other refs under `refs/rail/`.
pub fn judge(remote: &str, shared_ref: &str, seen: Option<&str>, others: &[String]) -> Missing {
    if let Some(seen) = seen.filter(|s| !s.is_empty()) {
        return Missing::Restore {
            seen: seen.to_string(),
        };
    }
    if others.is_empty() {
        return Missing::Start;
    }
    let named: Vec<&str> = others.iter().take(NAMED).map(String::as_str).collect();
    let more = others.len().saturating_sub(NAMED);
    let and_more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    Missing::Refuse {
        why: format!(
            "{remote} has no {shared_ref}, but it has refs only a shared rail makes ({}{and_more}): \
             the shared rail was deleted there, and this clone never saw it, so it has nothing to \
             put back; nothing was changed. A machine that used the rail puts it back with its \
             next `rail sync`; to start a new, empty rail on purpose, `rail sync --reset-shared`",
            named.join(", ")
        ),
    }
}

/// What every command that put the state back says (on stderr), naming the state.
pub fn restored_message(remote: &str, shared_ref: &str, seen: &str) -> String {
    format!(
        "the shared rail's ref {shared_ref} is MISSING on {remote} (deleted, or pushed over by a \
         `git push --mirror`): put back the state this machine last saw ({}) and built on it; \
         claims made on {remote} since this machine last looked are not in it. `rail sync \
         --reset-shared` starts a new rail instead",
        &seen[..seen.len().min(12)]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_seen_is_put_back_whatever_else_is_there() {
        let seen = Some("0123456789abcdef");
        for others in [vec![], vec!["refs/rail/queue/m-a".to_string()]] {
            assert_eq!(
                judge("origin", "refs/rail/claims", seen, &others),
                Missing::Restore {
                    seen: "0123456789abcdef".into()
                }
            );
        }
    }

    #[test]
    fn a_remote_without_any_rail_ref_starts_a_rail() {
        assert_eq!(
            judge("origin", "refs/rail/claims", None, &[]),
            Missing::Start
        );
        assert_eq!(
            judge("origin", "refs/rail/claims", Some(""), &[]),
            Missing::Start
        );
    }

    #[test]
    fn other_machines_refs_without_a_state_seen_refuse_and_are_named() {
        let others: Vec<String> = (0..5).map(|i| format!("refs/rail/queue/m-{i}")).collect();
        let Missing::Refuse { why } = judge("origin", "refs/rail/claims", None, &others) else {
            panic!("not refused");
        };
        assert!(why.contains("origin has no refs/rail/claims"), "{why}");
        assert!(why.contains("refs/rail/queue/m-0"), "{why}");
        assert!(why.contains("and 2 more"), "{why}");
        assert!(why.contains("rail sync --reset-shared"), "{why}");
    }

    #[test]
    fn the_restore_names_the_state() {
        let m = restored_message("origin", "refs/rail/claims", "0123456789abcdef");
        assert!(m.contains("MISSING on origin"), "{m}");
        assert!(m.contains("0123456789ab)"), "{m}");
    }
}
