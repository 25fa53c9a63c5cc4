//! This machine's sightings of a shared rail's claims (issue 42, finding 4): when it first saw
//! each claim's activity, by its own clock, in `<git common dir>/rail/observed` — one machine,
//! however many worktrees. Core's `model::observed` reads, records and writes the text; leases
//! on a shared rail count from the later of a claim's recorded time and its sighting.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};

use crate::git::repo::Repo;

/// The largest sightings file read.
const MAX_BYTES: u64 = 16 * 1024 * 1024;

fn path_of(repo: &Repo) -> std::path::PathBuf {
    repo.common_dir.join("rail").join("observed")
}

/// The sightings this machine recorded (none when the file is missing or unreadable: every
/// claim then counts as seen now, which can only make it hold longer).
pub fn sightings(repo: &Repo) -> BTreeMap<String, DateTime<Utc>> {
    crate::sys::railfile::read_max(&path_of(repo), MAX_BYTES)
        .ok()
        .flatten()
        .map(|(bytes, _)| rail_core::model::observed::parse(&String::from_utf8_lossy(&bytes)))
        .unwrap_or_default()
}

/// Records that this machine sees `rail`'s claims now, by its own clock (never `--now`): each
/// activity keeps the time it was first seen. Written whole through Rail's safe writer (no link
/// followed), and only when it changed. A failure to write is not fatal: the claims new here
/// then count from now at every look.
pub fn observe(repo: &Repo, rail: &rail_core::model::Rail) {
    let now = crate::sys::clock::now();
    let eval = rail.evaluate(&rail_core::model::input::Facts::at(now));
    let keys: Vec<String> = eval.claims.iter().map(|c| c.activity_key()).collect();
    let keys = keys.iter().map(String::as_str);
    let (after, changed) = rail_core::model::observed::record(&sightings(repo), keys, now);
    if !changed {
        return;
    }
    let text = rail_core::model::observed::render(&after);
    let path = path_of(repo);
    let written = crate::sys::railfile::ensure_dir(&repo.common_dir.join("rail")).and_then(|()| {
        crate::sys::railfile::write_inside_as(
            &repo.common_dir,
            &path,
            text.as_bytes(),
            false,
            false,
        )
    });
    if let Err(e) = written {
        errln!(
            "rail: could not record what this machine saw of the shared rail in {}: {e}",
            path.display()
        );
    }
}
