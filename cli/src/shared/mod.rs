//! One rail across machines, on a git remote (docs/shared-rail.md).
//!
//! The rail's state lives on the remote at `refs/rail/claims`: a small history of commits whose
//! tree holds claims.md, claims/*.yaml and claims.log. A push that is not a fast-forward is
//! rejected by every git server, which is an atomic compare-and-swap; Rail needs nothing else.
//!
//! A mutation is queued for this machine's leader (`exchange`), which serves every queued job
//! in one round: fetch the ref, let core plan each job on that state in turn, commit the result
//! on top (one commit per round, made with `git fast-import` on a private temporary ref), push
//! without force. Rejected: someone else won; back off with jitter, fetch, re-plan (now maybe a
//! refusal naming the holder), until each job's deadline. Unreachable: exit 3 and change
//! nothing. After a success the main checkout's files mirror the new state.
//!
//! Log lines recorded on this machine (refusals, bypasses, gate verdicts, recovered locks) go
//! to claims.log and to an outbox in the git dir; every round delivers the outbox's lines the
//! shared log lacks, and mirroring keeps them in claims.log until the shared log has them.

pub mod commit;
pub mod exchange;
pub mod machine;
pub mod outbox;
pub mod proof;
pub mod provisional;
pub mod remote;
pub mod rewind;
pub mod round;
pub mod signature;
pub mod state;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use chrono::{DateTime, Utc};
use rail_core::change::missing::{self, Missing};
use rail_core::change::ops::Request;
use rail_core::formats::rail_files::{CLAIMS_MD, LOG_FILE};
use rail_core::model::freshness::FreshnessFacts;
use rail_core::model::input::RailTexts;
use rail_core::model::verification::SharedRailFacts;

pub use self::commit::{commits, NewCommit};
use self::exchange::{Exchange, Job};
pub use self::outbox::{mirror, read_outbox, record_local, undelivered_lines};
pub use self::provisional::{
    offer_provisional, read_provisional, record_provisional, settle_provisional, OfferedClaims,
};
pub use self::remote::{
    fetch_with, listed_refs, measure_listing, push_refs, Fetched, Pushed, RemoteError, UNREACHABLE,
};
pub use self::rewind::{rewind, seen_states, Seen};
pub use self::state::{read_commit, read_commit_via};
use crate::context::Ctx;
use crate::fail::{self, Fail};
use crate::git;
use crate::out::outcome::Report;

pub const REF: &str = "refs/rail/claims";
/// Where the last fetched state is kept locally, and when it was fetched.
pub const FETCHED: &str = "refs/rail/fetched";
/// Where a new commit is made before it is pushed.
pub const NEW: &str = "refs/rail/new";
/// The state this machine had seen when it found the remote rewound, kept until it is merged
/// back and pushed (a failed round must not lose it: the fetched ref has moved on).
pub const BEFORE_REWIND: &str = "refs/rail/before-rewind";
/// This machine's log lines not yet in the shared log, in `<git dir>/rail/`.
const OUTBOX: &str = "outbox.log";
/// Claims made here while the shared rail was not used (`RAIL_LOCAL=1`), their claims.md lines
/// as written, in `<git dir>/rail/`: offered to the shared rail at the next round.
const PROVISIONAL: &str = "provisional.md";

/// A mutation of the shared rail. Exactly one of any number of racing machines wins a task:
/// the remote accepts only fast-forwards, so a second writer is rejected and re-plans. The
/// operation goes through this machine's queue (`exchange`): one process of the machine at a
/// time talks to the remote, for every operation queued.
pub fn mutate(
    ctx: &Ctx,
    remote: &str,
    session: &str,
    request: Request,
    extra_log: &[String],
) -> Result<Report, Fail> {
    // A change's times are read by every machine's leases; a time made up for one command
    // (`--now 2099-…`, or a past one) would hold a claim or free one there (issue 42, finding 4).
    if ctx.now_given {
        return Err(Fail::usage(
            "--now (or RAIL_NOW) cannot change a shared rail: its times are judged by every machine's leases, so they come from this machine's clock; nothing was changed. Drop --now, or set RAIL_LOCAL=1 to work on the local rail",
        ));
    }
    submit(ctx, remote, session, Some(request), extra_log)
}

/// Queues one job for `remote` and waits for its outcome (leading the queue when it can).
fn submit(
    ctx: &Ctx,
    remote: &str,
    session: &str,
    request: Option<Request>,
    extra_log: &[String],
) -> Result<Report, Fail> {
    let queue = Exchange::of(ctx)?;
    let rail = rail_key(ctx);
    let job = Job {
        id: exchange::new_id(),
        rail: rail.clone(),
        remote: remote.to_string(),
        session: session.to_string(),
        request,
        extra_log: extra_log.to_vec(),
        now_ms: ctx.now.timestamp_millis(),
        deadline_ms: (crate::sys::clock::now() + crate::sys::env::env().shared_timeout)
            .timestamp_millis(),
        queued_ns: crate::sys::clock::now()
            .timestamp_nanos_opt()
            .unwrap_or_default(),
    };
    let own = job.id.clone();
    exchange::submit(ctx, &queue, job, |queue| {
        crate::shared::round::lead(ctx, remote, &rail, queue, &own)
    })
}

/// The rail a job is for, as every process of the machine names it.
fn rail_key(ctx: &Ctx) -> PathBuf {
    ctx.rail
        .root
        .canonicalize()
        .unwrap_or_else(|_| ctx.rail.root.clone())
}

/// Facts for the shared rail: leases run on the branches as pushed to the remote (remote-
/// tracking refs, commits not on the remote's main branch), together with local branches.
pub fn shared_facts(ctx: &Ctx, remote: &str, texts: &RailTexts) -> rail_core::model::input::Facts {
    let rail = rail_core::model::Rail::load(texts);
    // What this machine sees now is recorded before it is judged: a claim first seen in this
    // very state counts from now (issue 42, finding 4).
    observe(ctx, &rail);
    let judged = ctx.judge(&rail, crate::context::Commits::IfNeeded);
    let mut facts = judged.facts;
    // As for local branches: commit times only when a lease could depend on them (a claim
    // that is not live without them). Two git processes fewer in the race window otherwise.
    let need =
        (judged.eval.claims.iter()).any(|c| c.state() != rail_core::model::lease::LeaseState::Live);
    if !need {
        return facts;
    }
    let dir = ctx.repo_dir();
    let head = format!("refs/remotes/{remote}/HEAD");
    let base = git::run(
        &dir,
        &git::GitLine::new(&["symbolic-ref", "--short"]).operand(head),
    )
    .ok()
    .map(|s| s.trim().to_string())
    .or_else(|| Some(format!("{remote}/main")));
    // Core takes each branch's later commit, its own or as pushed (`Facts::last_commit`).
    facts.pushed_commits = git::remote_commit_times(&dir, remote, base.as_deref());
    facts
}

/// Records that this machine sees `rail`'s claims now ([`crate::store::observed::observe`]).
pub fn observe(ctx: &Ctx, rail: &rail_core::model::Rail) {
    if let Some(repo) = &ctx.repo {
        crate::store::observed::observe(repo, rail);
    }
}

fn stamp_path(ctx: &Ctx) -> Option<PathBuf> {
    ctx.repo
        .as_ref()
        .map(|r| r.common_dir.join(rail_core::model::shared::SYNCED_STAMP))
}

pub fn mark_synced(ctx: &Ctx) {
    if let Some(p) = stamp_path(ctx) {
        let _ = std::fs::write(p, crate::sys::clock::now().to_rfc3339());
    }
}

/// When the local mirror was last synced with the remote.
pub fn last_synced(ctx: &Ctx) -> Option<DateTime<Utc>> {
    let text = std::fs::read_to_string(stamp_path(ctx)?).ok()?;
    DateTime::parse_from_rfc3339(text.trim())
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// `rail sync`: deliver this machine's recorded log lines, fetch the shared rail (and the
/// remote's branches) and mirror it locally. Through the queue like any exchange: a sync
/// waiting behind a leader is served by the leader's fetch.
pub fn sync(ctx: &Ctx, remote: &str) -> Result<Report, Fail> {
    let session = ctx.explicit_session().unwrap_or("sync").to_string();
    submit(ctx, remote, &session, None, &[])
}

/// Makes a repository share its rail through `remote`: records it, and publishes the local
/// rail as the first shared state if the remote has none.
pub fn init_remote(ctx: &Ctx, remote: &str) -> Result<Vec<String>, Fail> {
    rail_core::text::ident::validate_remote(remote).map_err(|e| {
        Fail::usage(format!(
            "--remote: {e} (name one of `git remote`'s remotes)"
        ))
    })?;
    let dir = ctx.repo_dir();
    git::run(
        &dir,
        &git::GitLine::new(&["remote", "get-url"]).operand(remote),
    )
    .map_err(|_| {
        Fail::usage(format!(
            "there is no git remote named `{remote}` (see `git remote -v`)"
        ))
    })?;
    let mut done = Vec::new();
    if git::config_get(&dir, "rail.remote").as_deref() != Some(remote) {
        git::config_set(&dir, "rail.remote", remote).map_err(Fail::env)?;
        done.push(format!("git config rail.remote {remote}"));
    }
    {
        // This machine's exchanges with the remote are one at a time, this one too.
        let deadline = Instant::now() + crate::sys::env::env().shared_timeout;
        let _held = Exchange::of(ctx)?.hold(ctx, "init", deadline)?;
        let fetched =
            fetch_with(&dir, remote, false, false, 2, deadline).map_err(RemoteError::fail)?;
        if let Some(others) = &fetched.missing {
            let seen = seen_states(&dir);
            let seen = seen.kept.or(seen.fetched);
            match missing::judge(remote, REF, seen.as_deref(), others) {
                Missing::Start => done.push(publish_local(ctx, &dir, remote, None, deadline)?),
                // The sync below puts it back, loudly.
                Missing::Restore { .. } => {}
                Missing::Refuse { why } => return Err(Fail::env(why)),
            }
        }
    }
    sync(ctx, remote)?;
    done.push(format!(
        "mirrored the shared rail into {}",
        ctx.rail.root.display()
    ));
    done.extend(set_up_key(ctx, remote)?);
    Ok(done)
}

/// This machine's key for signing the shared rail, set up where it can be in one step: git's
/// own signing key (`user.signingKey` with `gpg.format ssh`) or `rail.signingKey` if set, else an
/// existing `~/.ssh/id_ed25519` (recorded as `rail.signingKey`); and this machine's line for the
/// team's allowed signers, added to `.rail/allowed-signers` in the checkout for a person to
/// commit on the main branch (reviewed like code) when it is not there yet.
fn set_up_key(ctx: &Ctx, remote: &str) -> Result<Vec<String>, Fail> {
    let dir = ctx.repo_dir();
    let mut done = Vec::new();
    let key = match proof::signing_key(ctx.repo.as_ref(), &dir) {
        Some(key) => key,
        None => {
            let home = crate::sys::env::home();
            match home
                .map(|h| h.join(".ssh/id_ed25519"))
                .filter(|k| k.is_file())
            {
                Some(key) => {
                    let shown = key.to_string_lossy().into_owned();
                    git::config_set(&dir, "rail.signingkey", &shown).map_err(Fail::env)?;
                    done.push(format!("git config rail.signingKey {shown}"));
                    key
                }
                None => {
                    done.push(format!(
                        "no SSH key to sign the shared rail with: make one (`ssh-keygen -t \
                         ed25519`) or name yours (`git config rail.signingKey PATH`), then run \
                         `rail init --remote {remote}` again"
                    ));
                    return Ok(done);
                }
            }
        }
    };
    let public = if key.extension().is_some_and(|e| e == "pub") {
        key.clone()
    } else {
        PathBuf::from(format!("{}.pub", key.display()))
    };
    let Ok(public_text) = std::fs::read_to_string(&public) else {
        done.push(format!(
            "no public key at {}: this machine's line for {} cannot be written",
            public.display(),
            rail_core::change::proof::ALLOWED_SIGNERS
        ));
        return Ok(done);
    };
    let machine = machine::machine(Exchange::of(ctx)?.dir()).map_err(Fail::env)?;
    let line = format!(
        "{machine} namespaces=\"{}\" {}",
        rail_core::change::proof::NAMESPACE,
        public_text.trim()
    );
    let committed = ctx
        .repo
        .as_ref()
        .and_then(|r| proof::keys(r, &dir, remote))
        .is_some_and(|k| k.signers.principals.contains(&machine));
    if committed {
        done.push(format!(
            "this machine ({machine}) signs the shared rail with {}",
            key.display()
        ));
        return Ok(done);
    }
    // A work-tree file a branch commits: read and written through Rail's one way in for those
    // (no link followed on the way or at the file), and never overwritten when unreadable.
    let file = dir.join(rail_core::change::proof::ALLOWED_SIGNERS);
    let refused = |e: std::io::Error| Fail::env(crate::sys::railfile::describe(&file, &e));
    let old = match crate::sys::railfile::read(&file).map_err(refused)? {
        None => String::new(),
        Some((bytes, _)) => String::from_utf8(bytes).map_err(|_| {
            Fail::env(format!(
                "{} is not UTF-8 text: this machine's line was not added; nothing was changed",
                file.display()
            ))
        })?,
    };
    if !old.lines().any(|l| l.trim() == line) {
        let mut text = old;
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&line);
        text.push('\n');
        crate::sys::railfile::write_inside(&dir, &file, text.as_bytes(), false).map_err(refused)?;
    }
    done.push(format!(
        "added this machine ({machine}) to {}: commit it on the main branch and push (the team \
         reviews it like code); until {remote}'s main branch has it, the shared rail is unverified, \
         or, if the team has keys already, this machine cannot change it",
        rail_core::change::proof::ALLOWED_SIGNERS
    ));
    Ok(done)
}

/// Publishes this checkout's rail as the shared ref's state: a new root, or a commit on top of
/// `parent` (a state this machine saw, so machines that saw it too take the new state as a
/// move forward rather than a rewind to merge back). Once it landed, it is what this machine
/// saw last.
fn publish_local(
    ctx: &Ctx,
    dir: &std::path::Path,
    remote: &str,
    parent: Option<&str>,
    deadline: Instant,
) -> Result<String, Fail> {
    let local = ctx.read(false)?;
    let mut files = BTreeMap::new();
    if let Some(c) = &local.claims {
        files.insert(CLAIMS_MD.to_string(), c.text.clone());
    }
    if let Some(l) = &local.log {
        files.insert(LOG_FILE.to_string(), l.text.clone());
    }
    for f in &local.claim_files {
        files.insert(f.path.clone(), f.text.clone());
    }
    // A new root is made unique: a root of the same files made in the same second would be
    // the same commit as the rail that was deleted, and operations other machines queued on that
    // rail (their base: that root) would be folded into the new one as if made on it.
    let message = match parent {
        None => format!(
            "rail: share this rail\n\nnew rail {}",
            crate::sys::random_hex()
        ),
        Some(p) => format!("rail: reset the shared rail (rail sync --reset-shared; it was missing, last seen here at {p})"),
    };
    let new = commit::commit(dir, parent, None, &files, &message).map_err(RemoteError::fail)?;
    match remote::push(dir, remote, &new, None, deadline).map_err(RemoteError::fail)? {
        Pushed::Done => {
            let _ = git::run(
                dir,
                &git::GitLine::new(&["update-ref", FETCHED]).operand(new.as_str()),
            );
            let _ = git::run(
                dir,
                &git::GitLine::new(&["update-ref", "-d", BEFORE_REWIND]),
            );
            Ok(format!("published the rail to {remote} {REF}"))
        }
        // `push` turns a declined push into its error.
        Pushed::Rejected | Pushed::Declined(_) => Ok(format!("{remote} already has a shared rail")),
    }
}

/// `rail sync --reset-shared`: where the shared ref is missing on `remote` (deleted), publish
/// this checkout's rail there on purpose — the one way to start a rail over a deleted ref
/// (core's `change::missing`). Made on top of the state this machine last saw, if any. Where
/// the ref is there, nothing is reset.
pub fn reset_shared(ctx: &Ctx, remote: &str) -> Result<String, Fail> {
    let dir = ctx.repo_dir();
    let deadline = Instant::now() + crate::sys::env::env().shared_timeout;
    let _held = Exchange::of(ctx)?.hold(ctx, "reset", deadline)?;
    let fetched = fetch_with(&dir, remote, false, false, 2, deadline).map_err(RemoteError::fail)?;
    if let Some(at) = fetched.commit {
        return Err(Fail::usage(format!(
            "{remote} has {REF} ({}): --reset-shared starts a new rail only where the shared \
             ref is missing; nothing was changed",
            &at[..at.len().min(12)]
        )));
    }
    let seen = seen_states(&dir);
    let seen = seen.kept.or(seen.fetched);
    publish_local(ctx, &dir, remote, seen.as_deref(), deadline)
}

/// What this machine knows of how the shared rail on `remote` is verified, for core's
/// `model::verification` (docs/shared-rail.md, "Who can change what"): where the team's allowed
/// signers are committed (the remote's main branch as last fetched; none: unverified), the
/// state last fetched and the last one proven (refs read from the files, no process), and
/// whether this machine can sign.
pub fn verification(ctx: &Ctx, remote: &str) -> SharedRailFacts {
    let dir = ctx.repo_dir();
    let keys = (ctx.repo.as_ref()).and_then(|r| proof::keys(r, &dir, remote));
    let mut facts = SharedRailFacts {
        remote: remote.to_string(),
        known: true,
        ..SharedRailFacts::default()
    };
    let Some(keys) = keys else {
        return facts;
    };
    for (name, id) in git::refs_of(&dir, &[FETCHED, proof::PROVEN]).unwrap_or_default() {
        match name.as_str() {
            FETCHED => facts.fetched = Some(id),
            proof::PROVEN => facts.proven = Some(id),
            _ => {}
        }
    }
    let machine = Exchange::of(ctx)
        .ok()
        .and_then(|x| machine::machine(x.dir()).ok());
    facts.can_sign =
        keys.key.is_some() && machine.is_some_and(|m| keys.signers.principals.contains(&m));
    facts.signers = Some(keys.from);
    facts
}

/// For reads: the shared rail's age (core's sentence), and a refresh first with `--fetch`; and,
/// unless the command's own output carries it (`shown`: a board, `rail flight --json`), how far
/// its state is verified when that is a warning (core's words).
pub fn before_read(
    ctx: &Ctx,
    remote: &str,
    fetch_first: bool,
    shown: bool,
) -> Result<Option<String>, Fail> {
    let mut fetch_error = None;
    if fetch_first {
        match sync(ctx, remote) {
            Ok(_) => {}
            Err(f) if f.code == fail::ENVIRONMENT => {
                let why = f.message.strip_prefix(UNREACHABLE).unwrap_or(&f.message);
                fetch_error = Some(why.to_string());
            }
            Err(f) => return Err(f),
        }
    }
    let note = rail_core::model::freshness::describe(&FreshnessFacts {
        remote: remote.to_string(),
        fetched_at: last_synced(ctx),
        now: crate::sys::clock::now(),
        fetch_error,
    });
    let text = if fetch_first || note.stale {
        note.text
    } else {
        format!("{} (`--fetch` to refresh)", note.text)
    };
    // A team that has not set keys up keeps working, told on every read that nothing proves
    // what the remote holds (and a keyed one when what it holds is not proven).
    if shown {
        return Ok(Some(text));
    }
    let standing = rail_core::model::verification::judge(&verification(ctx, remote), None);
    Ok(Some(match standing.warning {
        false => text,
        true => format!("{text}\nrail: {}", standing.text),
    }))
}

// They run real git: not under Wine, where the Windows build's unit tests run without it.
