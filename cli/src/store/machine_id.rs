//! This clone's machine id on a shared rail (`<git dir>/rail/exchange/machine`): the name of
//! its queue and marks refs, and the machine a claim made here records (core's
//! `ident::on_machine` judges whose claims are whose by it). Made once, from the host name and
//! random hex (core's `queue::machine_id`).

use std::fs;
use std::path::Path;

use rail_core::change::queue;

/// The machine id's file in the exchange directory.
pub const MACHINE: &str = "machine";

/// This machine's id, made once (host name and random hex) and kept in `exchange_dir`.
pub fn machine(exchange_dir: &Path) -> Result<String, String> {
    let path = exchange_dir.join(MACHINE);
    if let Ok(text) = fs::read_to_string(&path) {
        let id = text.trim();
        if queue::machine_ok(id) {
            return Ok(id.to_string());
        }
    }
    let id = queue::machine_id(&super::lock::hostname(), &crate::sys::random_hex());
    let tmp = path.with_extension(format!("{}.tmp", std::process::id()));
    fs::write(&tmp, format!("{id}\n"))
        .and_then(|()| fs::rename(&tmp, &path))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(id)
}

/// The machine id kept in `exchange_dir`, if one was ever made there (read only).
pub fn existing(exchange_dir: &Path) -> Option<String> {
    let text = fs::read_to_string(exchange_dir.join(MACHINE)).ok()?;
    let id = text.trim();
    queue::machine_ok(id).then(|| id.to_string())
}
