//! Commits on a shared rail's refs, made with one `git fast-import` process: a round's rail
//! commit, its queue commit and its guard marks commit together, each on a private ref.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::Stdio;

use super::remote::RemoteError;
use super::NEW;

/// A commit to make: on `tmp` (a private ref, overwritten), on top of `parent`, the files in
/// `changed` written over the parent's tree (the rest of it kept).
pub struct NewCommit<'a> {
    pub tmp: &'a str,
    pub parent: Option<&'a str>,
    /// A second parent (a rewound remote's merge keeps the state this machine had seen).
    pub merged: Option<&'a str>,
    pub changed: &'a BTreeMap<String, String>,
    pub message: &'a str,
}

/// Makes each commit in one `git fast-import` process (a round's rail commit and its queue
/// commit together); returns their ids in order.
pub fn commits(dir: &Path, new: &[NewCommit<'_>]) -> Result<Vec<String>, RemoteError> {
    // Fixed refs, overwritten (`--force`): commits are made one at a time per repository (the
    // exchange lock), and deleting a private ref afterwards was one more git process.
    let now = crate::sys::clock::now().timestamp();
    let mut stream = Vec::new();
    for (i, c) in new.iter().enumerate() {
        let mark = i + 1;
        let _ = writeln!(stream, "commit {}", c.tmp);
        let _ = writeln!(stream, "mark :{mark}");
        let _ = writeln!(stream, "committer Rail <rail@localhost> {now} +0000");
        let _ = writeln!(stream, "data {}", c.message.len());
        stream.extend_from_slice(c.message.as_bytes());
        stream.push(b'\n');
        if let Some(p) = c.parent {
            let _ = writeln!(stream, "from {p}");
        }
        if let Some(m) = c.merged {
            let _ = writeln!(stream, "merge {m}");
        }
        for (path, text) in c.changed {
            let _ = writeln!(stream, "M 100644 inline {path}");
            let _ = writeln!(stream, "data {}", text.len());
            stream.extend_from_slice(text.as_bytes());
            stream.push(b'\n');
        }
    }
    // The commits' ids come back on stdout: no rev-parse needed.
    for i in 0..new.len() {
        let _ = writeln!(stream, "get-mark :{}", i + 1);
    }
    let _ = writeln!(stream, "done");
    let import = crate::git::GitLine::new(&["fast-import", "--quiet", "--done", "--force"]);
    let mut child = crate::git::line::process(dir, &import)
        .map_err(RemoteError::Git)?
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| RemoteError::Git(format!("cannot run git fast-import: {e}")))?;
    child
        .stdin
        .take()
        .ok_or(RemoteError::Git("no stdin".into()))?
        .write_all(&stream)
        .map_err(|e| RemoteError::Git(e.to_string()))?;
    let out = child
        .wait_with_output()
        .map_err(|e| RemoteError::Git(e.to_string()))?;
    if !out.status.success() {
        return Err(RemoteError::Git(format!(
            "git fast-import failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let ids: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .map(str::to_string)
        .collect();
    if ids.len() != new.len()
        || !ids
            .iter()
            .all(|id| id.len() >= 40 && id.bytes().all(|b| b.is_ascii_hexdigit()))
    {
        return Err(RemoteError::Git(format!(
            "git fast-import did not report the commits (`{}`)",
            ids.join(" ")
        )));
    }
    Ok(ids)
}

/// Makes the commit for `files` on top of `parent` (with `git fast-import`, on a private ref).
pub(super) fn commit(
    dir: &Path,
    parent: Option<&str>,
    merged: Option<&str>,
    changed: &BTreeMap<String, String>,
    message: &str,
) -> Result<String, RemoteError> {
    let one = NewCommit {
        tmp: NEW,
        parent,
        merged,
        changed,
        message,
    };
    Ok(commits(dir, &[one])?.remove(0))
}
