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
//!
//! And what each file is when the rail is *read* ([`role`]), also for files a person hands to
//! the web board: one at a time ([`handed`]) or a whole folder ([`in_folder`]).

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
/// Where a team's allowed signers live: a file committed on the remote's main branch, in the
/// format `ssh-keygen -Y verify` reads (`ALLOWED SIGNERS` in ssh-keygen(1)), one line a machine,
/// its principal the machine's id: `laptop-1a2b namespaces="git" ssh-ed25519 AAAA… comment`
/// (docs/shared-rail.md, "Who can change what"; `change::proof` proves with it).
pub const ALLOWED_SIGNERS: &str = ".rail/allowed-signers";

/// Is `path` (relative to the rail directory, `/`-separated) one of the rail's own files?
pub fn is_rail_file(path: &str) -> bool {
    let path = path.strip_prefix("./").unwrap_or(path);
    path == CLAIMS_MD
        || path.starts_with("claims.md.")
        || path == LOG_FILE
        || path == CONFIG_FILE
        || crate::formats::segments::is_segment_path(path)
        || path
            .strip_prefix(CLAIMS_DIR)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// What a file is to the rail when the rail is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum FileRole {
    /// claims.md.
    Claims,
    /// A claim file, `claims/<name>.yaml`.
    ClaimFile,
    /// claims.log.
    Log,
    /// rail.yaml, the settings.
    Config,
}

/// The role of a path relative to the rail directory (`/`-separated), as Rail reads a rail:
/// claims.md, claims.log, rail.yaml, and every file directly in `claims/` whose name ends in
/// `.yaml` or `.yml`. `None` for anything else, the rail's lock, journal and temporary files
/// included: they are the rail's ([`is_rail_file`]) but never read as part of it.
pub fn role(path: &str) -> Option<FileRole> {
    match path {
        CLAIMS_MD => Some(FileRole::Claims),
        LOG_FILE => Some(FileRole::Log),
        CONFIG_FILE => Some(FileRole::Config),
        _ => {
            let name = path.strip_prefix(CLAIMS_DIR)?.strip_prefix('/')?;
            let yaml = name.ends_with(".yaml") || name.ends_with(".yml");
            (yaml && !name.contains('/')).then_some(FileRole::ClaimFile)
        }
    }
}

/// A file handed to a host that shows a rail, placed in it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RailFile {
    /// The name it was handed under (a path inside the folder chosen, for a folder's files).
    pub name: String,
    /// Its path in the rail (what diagnostics name): `claims.md`, `claims/<name>.yaml`, …
    pub path: String,
    pub role: FileRole,
}

/// A file a person hands over on its own (the web board's file picker, a drop, a paste), known
/// by its name alone. A name that is a rail path ([`role`]) is that file. Otherwise the last
/// component of the name says what the file holds (letter case aside, `/` or `\` separating
/// folders): `rail.yaml` (or `rail.yml`) the settings, any other `.yaml` or `.yml` a claim file
/// (`claims/<its name>`), `.log` the log, `.md`, `.markdown` or `.txt` claims.md, since a person
/// may hand a rail's files under other names (a download, a copy). `None`: not a rail's file.
pub fn handed(name: &str) -> Option<RailFile> {
    let (path, role) = match role(name) {
        Some(role) => (name.to_string(), role),
        None => placed_by_name(name)?,
    };
    Some(RailFile {
        name: name.to_string(),
        path,
        role,
    })
}

/// [`handed`] for a name that is not a rail path: by its last component.
fn placed_by_name(name: &str) -> Option<(String, FileRole)> {
    let base = &name[name.rfind(['/', '\\']).map_or(0, |i| i + 1)..];
    let lower = base.to_ascii_lowercase();
    let role = if lower == CONFIG_FILE || lower == "rail.yml" {
        FileRole::Config
    } else if lower.ends_with(".yaml") || lower.ends_with(".yml") {
        FileRole::ClaimFile
    } else if lower.ends_with(".log") {
        FileRole::Log
    } else if lower.ends_with(".md") || lower.ends_with(".markdown") || lower.ends_with(".txt") {
        FileRole::Claims
    } else {
        return None;
    };
    let path = match role {
        FileRole::Claims => CLAIMS_MD.to_string(),
        FileRole::Log => LOG_FILE.to_string(),
        FileRole::Config => CONFIG_FILE.to_string(),
        FileRole::ClaimFile => [CLAIMS_DIR, "/", base].concat(),
    };
    Some((path, role))
}

/// The rail's files among a folder's files (`paths` relative to the folder a person chose,
/// `/`-separated: a repository's main checkout, the rail directory itself, or a folder above
/// one). The rail is the shallowest folder holding claims.md or a claim file (`claims/*.yaml`);
/// its files are those there with a [`role`], exactly what Rail reads from a rail directory,
/// and nothing else of the folder (a README, a `docs/claims.md` below the rail, a `rail.yml`).
/// In the order given.
pub fn in_folder(paths: &[String]) -> Vec<RailFile> {
    let mut root: Option<&str> = None;
    for path in paths {
        if let Some(found) = rail_root_of(path) {
            let depth = |r: &str| r.bytes().filter(|&b| b == b'/').count();
            if root.is_none_or(|r| depth(found) < depth(r)) {
                root = Some(found);
            }
        }
    }
    let Some(root) = root else {
        return Vec::new();
    };
    let mut files = Vec::new();
    for path in paths {
        let Some(rest) = path.strip_prefix(root) else {
            continue;
        };
        if let Some(role) = role(rest) {
            files.push(RailFile {
                name: path.clone(),
                path: rest.to_string(),
                role,
            });
        }
    }
    files
}

/// The folder (`""` or a prefix ending in `/`) of which `path` is claims.md or a claim file:
/// the shallowest such, if any.
fn rail_root_of(path: &str) -> Option<&str> {
    let after_slash = (path.bytes().enumerate()).filter_map(|(i, b)| (b == b'/').then_some(i + 1));
    let starts = std::iter::once(0).chain(after_slash);
    starts.map(|at| path.split_at(at)).find_map(|(root, rest)| {
        matches!(role(rest), Some(FileRole::Claims | FileRole::ClaimFile)).then_some(root)
    })
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
    fn roles_of_the_files_rail_reads() {
        use FileRole::*;
        let table = [
            ("claims.md", Some(Claims)),
            ("claims.log", Some(Log)),
            ("rail.yaml", Some(Config)),
            ("claims/alice.yaml", Some(ClaimFile)),
            ("claims/old.yml", Some(ClaimFile)),
            ("claims/.hidden.yaml", Some(ClaimFile)),
            ("claims/rail.yaml", Some(ClaimFile)),
            ("claims/notes/x.yaml", None),
            ("claims/x.txt", None),
            ("claims.md.lock", None),
            ("claims.md.journal", None),
            ("rail.yml", None),
            ("./claims.md", None),
            ("Claims.md", None),
            ("docs/claims.md", None),
            ("", None),
        ];
        for (path, want) in table {
            assert_eq!(role(path), want, "{path}");
            // Every file read as the rail's is one of the rail's own.
            assert!(want.is_none() || is_rail_file(path), "{path}");
        }
    }

    #[test]
    fn a_file_handed_alone_is_placed_by_its_name() {
        use FileRole::*;
        let table = [
            ("claims.md", Some(("claims.md", Claims))),
            ("claims/rail.yaml", Some(("claims/rail.yaml", ClaimFile))),
            ("rail.yaml", Some(("rail.yaml", Config))),
            ("RAIL.YML", Some(("rail.yaml", Config))),
            ("export/claims-backup.md", Some(("claims.md", Claims))),
            ("notes.MARKDOWN", Some(("claims.md", Claims))),
            ("claims.txt", Some(("claims.md", Claims))),
            (
                "C:\\rail\\claims\\session-a.YAML",
                Some(("claims/session-a.YAML", ClaimFile)),
            ),
            ("session-b.yml", Some(("claims/session-b.yml", ClaimFile))),
            ("old.log", Some(("claims.log", Log))),
            ("claims.md.lock", None),
            ("claims.log.1", None),
            ("README", None),
            ("picture.png", None),
            ("", None),
        ];
        for (name, want) in table {
            let got = handed(name);
            assert_eq!(
                got.as_ref().map(|f| (f.path.as_str(), f.role)),
                want,
                "{name}"
            );
            if let Some(file) = got {
                assert_eq!(file.name, name);
                // Handed again under the path it landed at, it lands there again.
                let again = handed(&file.path).map(|f| (f.path, f.role));
                assert_eq!(again, Some((file.path, file.role)), "{name}");
            }
        }
    }

    #[test]
    fn a_folders_rail_is_its_shallowest_and_only_its_files_count() {
        let paths = |list: &[&str]| list.iter().map(|p| p.to_string()).collect::<Vec<_>>();
        let placed = |list: &[&str]| {
            in_folder(&paths(list))
                .into_iter()
                .map(|f| (f.name, f.path))
                .collect::<Vec<_>>()
        };
        let pair = |name: &str, path: &str| (name.to_string(), path.to_string());
        // A repository dropped whole: its top is the rail.
        assert_eq!(
            placed(&[
                "repo/README.md",
                "repo/docs/claims.md",
                "repo/claims/a.yaml",
                "repo/claims/notes.txt",
                "repo/claims.md",
                "repo/claims.log",
                "repo/rail.yaml",
                "repo/rail.yml",
                "repo/claims.md.lock",
                "repo/src/claims/b.yaml",
            ]),
            [
                pair("repo/claims/a.yaml", "claims/a.yaml"),
                pair("repo/claims.md", "claims.md"),
                pair("repo/claims.log", "claims.log"),
                pair("repo/rail.yaml", "rail.yaml"),
            ]
        );
        // The rail folder itself, chosen: its files are at the top.
        assert_eq!(
            placed(&["claims.md", "claims/x.yml", "other.md"]),
            [
                pair("claims.md", "claims.md"),
                pair("claims/x.yml", "claims/x.yml")
            ]
        );
        // Claim files alone make a rail; a deeper claims.md does not move it.
        assert_eq!(
            placed(&["a/b/claims.md", "a/claims/s.yaml", "a/rail.yaml"]),
            [
                pair("a/claims/s.yaml", "claims/s.yaml"),
                pair("a/rail.yaml", "rail.yaml")
            ]
        );
        // A claims/ folder that is itself in claims/.
        assert_eq!(
            placed(&["x/claims/claims.md"]),
            [pair("x/claims/claims.md", "claims.md")]
        );
        // No claims.md and no claim file: no rail (rail.yaml or a log alone is none).
        assert_eq!(
            placed(&["repo/rail.yaml", "repo/claims.log", "xclaims.md"]),
            []
        );
        assert_eq!(placed(&[]), []);
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
