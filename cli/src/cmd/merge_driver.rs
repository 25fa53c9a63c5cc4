//! `rail merge-driver %O %A %B %P`: git's merge driver for claims.md (configured by `rail
//! init`). It merges into %A with core's rules (a claim that still holds beats a stale one, as
//! on the board), logs every claim it drops, and refuses a side that holds conflict markers.

use std::fs;
use std::path::{Path, PathBuf};

use rail_core::formats::rail_files::CLAIMS_MD;

use crate::context::facts::probe_owners;
use crate::context::Ctx;
use crate::fail::Fail;
use crate::git;
use crate::store::lock;

#[derive(clap::Args, Debug)]
pub struct MergeDriverArgs {
    /// The common ancestor's claims.md (git's %O).
    pub base: PathBuf,
    /// Ours (git's %A): the merge is written here.
    pub ours: PathBuf,
    /// Theirs (git's %B).
    pub theirs: PathBuf,
    /// The merged file's path in the repository (git's %P), for messages.
    pub pathname: Option<String>,
}

/// `rail merge-driver %O %A %B %P`: merges into %A, reports losing claims on stderr.
pub fn run(args: &MergeDriverArgs) -> Result<(), Fail> {
    let (base, ours, theirs) = (&args.base, &args.ours, &args.theirs);
    let pathname = args.pathname.as_deref();
    let read = |p: &Path| {
        fs::read(p)
            .map_err(|e| Fail::refused(format!("{}: {e}", p.display()), None))
            .and_then(|b| {
                String::from_utf8(b).map_err(|_| {
                    Fail::refused(
                        format!("{} is not UTF-8; leaving the merge to you", p.display()),
                        None,
                    )
                })
            })
    };
    let (b, o, t) = (read(base)?, read(ours)?, read(theirs)?);
    // The board's rule needs the time and lease facts: which claims still hold now. Without a
    // rail to read them from (a merge outside any checkout), every claim counts as holding.
    let ctx = Ctx::new(crate::context::Flags::default(), false).ok();
    let (facts, config) = match &ctx {
        Some(ctx) => merge_facts(ctx, [&b, &o, &t]),
        None => (
            rail_core::model::input::Facts::at(crate::sys::clock::now()),
            rail_core::formats::config::Config::default(),
        ),
    };
    let holding = rail_core::change::merge::Holding {
        facts: &facts,
        lease: config.lease,
        expiring: config.expiring,
    };
    let result = rail_core::change::merge::driver_at(&b, &o, &t, Some(&holding));
    let name = pathname.unwrap_or(CLAIMS_MD);
    if let Some(marked) = &result.refused {
        // %A is not written: git keeps it, ours as it was, as the conflicted file, and exit 1
        // makes git report the conflict instead of recording the markers as resolved.
        errln!(
            "rail merge {name}: {} already holds a conflict marker at line {} (`{}`), left by an \
             earlier merge; not merging: resolve that conflict by hand, then merge again",
            marked.side,
            marked.line,
            // A marker's label can be a whole line of anything: quote its start only.
            if marked.text.chars().count() > 60 {
                format!("{}…", marked.text.chars().take(60).collect::<String>())
            } else {
                marked.text.clone()
            }
        );
        return Err(Fail::refused(String::new(), None));
    }
    // A merge that would make claims.md larger than Rail reads is left to a person, as a
    // conflict: written, it would stop every command of every session.
    if let Err(e) = rail_core::text::limits::check_file(name, result.text.len()) {
        errln!("rail merge {name}: {e}; not merging: resolve claims.md by hand");
        return Err(Fail::refused(String::new(), None));
    }
    // A dropped claim is named in claims.log, its line as written, so it can be put back;
    // written before the merge result: if the log cannot be written, the merge is refused
    // (git reports a conflict) rather than a claim dropped with only a note on stderr.
    if !result.losers.is_empty() {
        let logged = ctx
            .as_ref()
            .ok_or_else(|| "not inside a rail".to_string())
            .and_then(|ctx| log_dropped(ctx, &result.losers));
        if let Err(why) = logged {
            errln!(
                "rail merge {name}: a claim would be dropped and claims.log cannot record it \
                 ({why}); not merging: resolve claims.md by hand"
            );
            return Err(Fail::refused(String::new(), None));
        }
    }
    fs::write(ours, &result.text)
        .map_err(|e| Fail::refused(format!("{}: {e}", ours.display()), None))?;
    for l in &result.losers {
        errln!(
            "rail merge {name}: {} was claimed on both sides; kept {}'s claim, dropped {}'s: {}",
            l.task,
            l.kept_session,
            l.lost_session,
            l.lost_line
        );
    }
    Ok(())
}

/// The facts the merge driver judges leases by: now, the rail's lease settings, the liveness
/// of owner processes on this host named in any side, and branch commit times.
fn merge_facts(
    ctx: &Ctx,
    sides: [&str; 3],
) -> (
    rail_core::model::input::Facts,
    rail_core::formats::config::Config,
) {
    let mut facts = rail_core::model::input::Facts::at(ctx.now);
    facts.host = lock::hostname();
    let config = ctx.settings();
    for side in sides {
        let doc = rail_core::formats::claims_md::parse(side);
        let pids = doc.lines.iter().filter_map(|line| match &line.kind {
            rail_core::formats::claims_md::LineKind::Claim(c) => c.pid.as_deref(),
            _ => None,
        });
        probe_owners(pids, &mut facts);
    }
    let base = ctx
        .repo
        .as_ref()
        .and_then(|r| crate::git::repo::head_branch(&r.common_dir));
    facts.commits = git::branch_commit_times(&ctx.rail.root, base.as_deref());
    (facts, config)
}

/// Appends a `dropped` entry per claim the merge dropped, under the rail lock, waiting briefly:
/// git holds its index lock meanwhile, and a Rail command holding the rail lock may wait on it.
fn log_dropped(ctx: &Ctx, losers: &[rail_core::change::merge::Loser]) -> Result<(), String> {
    // The merge running this driver holds its checkout's index lock; the log is all this
    // writes (claims.md is git's to write from %A), so that lock is not waited for.
    if let Some(repo) = &ctx.repo {
        crate::store::gitguard::parent_git_holds(&repo.git_dir);
    }
    let held = ctx
        .lock_within("merge-driver", Some(std::time::Duration::from_secs(2)))
        .map_err(|f| f.message)?;
    let texts = ctx.read(true).map_err(|f| f.message)?;
    let lines: Vec<String> = losers
        .iter()
        .map(|l| l.log_line(ctx.now, "merge"))
        .collect();
    crate::shared::record_local(ctx, &held, &texts, &lines)
}
