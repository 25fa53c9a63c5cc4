//! Which files are Rail's own: their names, and two questions, one place:
//!
//! - [`is_rail_file`]: is a path (relative to the rail directory) part of the rail rather than
//!   anyone's work? claims.md and its lock, journal and temporary files (`claims.md.*`),
//!   claims.log, rail.yaml and everything under `claims/`. Touched files, `rail check` and the
//!   edit hooks leave these out; the editor leaves them undecorated.
//! - [`rail_data_path`]: may a host *write* this path because a journal or a shared snapshot
//!   says so? Only the files Rail's operations write: claims.md, claims.log and
//!   `claims/<name>.yaml`. Anything else (`../x`, `/etc/passwd`, `.git/config`, `a\b`, a NUL)
//!   is refused with the reason, so a hostile journal or remote can never make a host write
//!   outside the rail.

use serde::Serialize;

/// The rail: one line per claim.
pub const CLAIMS_MD: &str = "claims.md";
/// The folder of claim files (`claims/<owner>.yaml`).
pub const CLAIMS_DIR: &str = "claims";
pub const LOG_FILE: &str = "claims.log";
pub const CONFIG_FILE: &str = "rail.yaml";
/// The redo journal of a write in progress (docs/lock-protocol.md).
pub const JOURNAL: &str = "claims.md.journal";
/// The lock file, in the rail directory (docs/lock-protocol.md; `change::lock` says when it
/// may be broken).
pub const LOCK_NAME: &str = "claims.md.lock";

/// Is `path` (relative to the rail directory, `/`-separated) one of the rail's own files?
pub fn is_rail_file(path: &str) -> bool {
    let path = path.strip_prefix("./").unwrap_or(path);
    path == CLAIMS_MD
        || path.starts_with("claims.md.")
        || path == LOG_FILE
        || path == CONFIG_FILE
        || path
            .strip_prefix(CLAIMS_DIR)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// `paths` without the rail's own files, in their order: the files that are someone's work.
pub fn work_files(paths: Vec<String>) -> Vec<String> {
    let mut paths = paths;
    paths.retain(|p| !is_rail_file(p));
    paths
}

/// Why a path is not one a journal or a snapshot may make a host write.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ForeignPath {
    pub path: String,
    pub reason: String,
}

impl std::fmt::Display for ForeignPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}` {}", self.path.escape_debug(), self.reason)
    }
}

/// Accepts exactly the files Rail's operations write: `claims.md`, `claims.log` and
/// `claims/<name>.yaml` (or `.yml`), where `<name>` is one plain file name.
pub fn rail_data_path(path: &str) -> Result<(), ForeignPath> {
    let refuse = |reason: &str| {
        Err(ForeignPath {
            path: path.to_string(),
            reason: reason.to_string(),
        })
    };
    if path == CLAIMS_MD || path == LOG_FILE {
        return Ok(());
    }
    let Some(name) = path
        .strip_prefix(CLAIMS_DIR)
        .and_then(|rest| rest.strip_prefix('/'))
    else {
        return refuse("is not claims.md, claims.log or a claim file (claims/<name>.yaml)");
    };
    if name.contains('/') || name.contains('\\') {
        return refuse("is not a file directly in claims/");
    }
    if name.chars().any(char::is_control) {
        return refuse("contains a control character");
    }
    if name.starts_with('.') {
        return refuse("is a hidden file, not a claim file");
    }
    let stem = name
        .strip_suffix(".yaml")
        .or_else(|| name.strip_suffix(".yml"));
    match stem {
        Some(stem) if !stem.is_empty() => Ok(()),
        _ => refuse("is not a claim file (claims/<name>.yaml)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rails_own_files() {
        let table = [
            ("claims.md", true),
            ("./claims.md", true),
            ("claims.md.lock", true),
            ("claims.md.journal", true),
            ("claims.md.lock.break.ab12.1", true),
            ("claims.log", true),
            ("rail.yaml", true),
            ("claims/alice.yaml", true),
            ("claims/notes/x.txt", true),
            ("claims", false),
            ("claims.mdx", false),
            ("claimsx/a.yaml", false),
            ("docs/claims.md", false),
            ("src/rail.yaml", false),
            ("claims.log.old", false),
            ("README.md", false),
            ("", false),
        ];
        for (path, own) in table {
            assert_eq!(is_rail_file(path), own, "{path}");
        }
        assert_eq!(
            work_files(vec![
                "src/a.rs".into(),
                "claims.md".into(),
                "claims/b.yaml".into(),
                "docs/claims.md".into(),
            ]),
            vec!["src/a.rs".to_string(), "docs/claims.md".to_string()]
        );
    }

    #[test]
    fn only_rail_data_files_may_be_written() {
        for ok in [
            "claims.md",
            "claims.log",
            "claims/alice.yaml",
            "claims/feature%2Fx.yaml",
            "claims/old.yml",
            "claims/tâche.yaml",
        ] {
            assert_eq!(rail_data_path(ok), Ok(()), "{ok}");
        }
        let hostile = [
            ("../x", "is not claims.md"),
            ("/etc/passwd", "is not claims.md"),
            (".git/config", "is not claims.md"),
            ("rail.yaml", "is not claims.md"),
            ("claims.md.lock", "is not claims.md"),
            ("./claims.md", "is not claims.md"),
            ("claims/../../x.yaml", "directly in claims/"),
            ("claims/a/b.yaml", "directly in claims/"),
            ("claims/..\\x.yaml", "directly in claims/"),
            ("claims\\a.yaml", "is not claims.md"),
            ("claims/a\0.yaml", "control character"),
            ("claims/a\n.yaml", "control character"),
            ("claims/.yaml", "hidden"),
            ("claims/..yaml", "hidden"),
            ("claims/a.txt", "not a claim file"),
            ("claims/", "not a claim file"),
            ("", "is not claims.md"),
        ];
        for (path, why) in hostile {
            let err = rail_data_path(path).expect_err(path);
            assert!(err.reason.contains(why), "{path:?}: {}", err.reason);
            assert_eq!(err.path, path);
        }
    }
}
