//! A shared rail found rewound (force-pushed or restored): the states this machine last saw,
//! and the merge of the one it saw back into the remote's with the rail's merge rules.

use std::collections::BTreeMap;
use std::path::Path;

use rail_core::change::snapshot;
use rail_core::formats::rail_files::LOG_FILE;

use super::remote::RemoteError;
use super::state::{read_commit_via, SharedState};
use super::{BEFORE_REWIND, FETCHED};
use crate::context::Ctx;
use crate::git::{self, GitLine};

/// The states this machine last saw of the shared rail: the state kept when an earlier round
/// found the remote rewound and did not finish merging it back, and the fetched ref
/// ([`refs_of`]).
pub fn seen_states(dir: &Path) -> Seen {
    let listed = git::refs_of(dir, &[FETCHED, BEFORE_REWIND]).unwrap_or_default();
    let mut seen = Seen::default();
    for (name, id) in listed {
        match name.as_str() {
            BEFORE_REWIND => seen.kept = Some(id),
            FETCHED => seen.fetched = Some(id),
            _ => {}
        }
    }
    seen
}

#[derive(Clone, Debug, Default)]
pub struct Seen {
    pub kept: Option<String>,
    pub fetched: Option<String>,
}

/// A remote found rewound, merged with the state this machine had seen.
pub struct Rewound {
    /// The seen state's commit (the merge's second parent); none for a restore over commits
    /// that were not proven (the state restored is in the history already).
    pub seen: Option<String>,
    /// What the commit's record says it carries (core's `proof::Step`).
    pub step: rail_core::change::proof::Step,
    pub files: BTreeMap<String, String>,
    pub changed: BTreeMap<String, String>,
    /// What the requester is told and the commit message says.
    pub message: String,
}

/// Whether the fetched state no longer contains what this machine saw before (`seen`): then the
/// two are merged with the rail's merge rules (core's [`snapshot::rejoin`]) from their common
/// ancestor, every claim dropped is logged with the one kept, and the seen state is kept under
/// [`BEFORE_REWIND`] until the merge is pushed.
pub fn rewind(
    ctx: &Ctx,
    dir: &Path,
    remote: &str,
    seen: &Seen,
    fetched: &SharedState,
    reader: &mut crate::shared::machine::ChainReader,
) -> Result<Option<Rewound>, RemoteError> {
    let Some(new) = fetched.commit.as_deref() else {
        return Ok(None);
    };
    // An unfinished merge-back first: the fetched ref may already be the rewound state.
    let Some(old) = seen.kept.as_ref().or(seen.fetched.as_ref()) else {
        return Ok(None);
    };
    if old == new {
        return Ok(None);
    }
    // Most often the remote only moved on a few commits: the leader's object reader walks back
    // to OLD without a process. Past that walk, git decides.
    if seen.kept.is_none() && reader.moved_on_from(dir, new, old, 64).unwrap_or(false) {
        return Ok(None);
    }
    // `git merge-base OLD NEW`: OLD itself when the remote only moved on; exit 1 when the two
    // share no history.
    let merge_base = GitLine::new(&["merge-base"])
        .operand(old.as_str())
        .operand(new);
    let output = git::line::process(dir, &merge_base)
        .map_err(RemoteError::Git)?
        .output();
    let base = match output {
        Ok(out) if out.status.success() => {
            Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
        }
        Ok(out) if out.status.code() == Some(1) && out.stderr.is_empty() => None,
        // The seen commit is gone (a person deleted objects): nothing to merge back.
        Ok(_) => return Ok(None),
        Err(e) => return Err(RemoteError::Git(format!("cannot run git merge-base: {e}"))),
    };
    if base.as_deref() == Some(old.as_str()) {
        // The remote only moved on (and holds any state kept from an earlier rewind).
        if seen.kept.is_some() {
            let _ = git::run(dir, &GitLine::new(&["update-ref", "-d", BEFORE_REWIND]));
        }
        return Ok(None);
    }
    let _ = git::run(
        dir,
        &GitLine::new(&["update-ref", BEFORE_REWIND]).operand(old.as_str()),
    );
    let objects = reader.objects(dir).map_err(RemoteError::Git)?;
    let seen_files = read_commit_via(objects, dir, Some(old))?.files;
    let base_files = match &base {
        Some(b) => read_commit_via(objects, dir, Some(b))?.files,
        None => BTreeMap::new(),
    };
    let config = ctx.settings();
    let facts = super::shared_facts(ctx, remote, &snapshot::texts(&fetched.files));
    let holding = rail_core::change::merge::Holding {
        facts: &facts,
        lease: config.lease,
        expiring: config.expiring,
    };
    let mut r = snapshot::rejoin(&base_files, &seen_files, &fetched.files, Some(&holding));
    let short = |c: &str| c[..c.len().min(12)].to_string();
    let mut message = format!(
        "the shared rail on {remote} was rewound (force-pushed or restored): it no longer holds          the state this machine last saw ({} is not in {}); merged that state back with the          rail's merge rules",
        short(old),
        short(new)
    );
    if !r.losers.is_empty() {
        let dropped: Vec<String> = r
            .losers
            .iter()
            .map(|l| {
                format!(
                    "{}'s claim of {} (kept {}'s)",
                    l.lost_session, l.task, l.kept_session
                )
            })
            .collect();
        message.push_str(&format!("; dropped {}, logged", dropped.join(", ")));
        let lines: Vec<String> = r
            .losers
            .iter()
            .map(|l| l.log_line(ctx.now, "rewind"))
            .collect();
        let log = snapshot::log_with(r.files.get(LOG_FILE).map_or("", String::as_str), &lines);
        r.files.insert(LOG_FILE.to_string(), log.clone());
        r.changed.insert(LOG_FILE.to_string(), log);
    }
    Ok(Some(Rewound {
        seen: Some(old.clone()),
        step: rail_core::change::proof::Step::Rejoin { seen: old.clone() },
        files: r.files,
        changed: r.changed,
        message,
    }))
}
