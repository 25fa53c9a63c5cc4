//! This machine's side of a proven shared rail (docs/shared-rail.md, "Who can change what"): the
//! team's allowed signers as committed on the remote's main branch, this machine's signing key
//! (git's own: `rail.signingKey`, else `user.signingKey` with `gpg.format ssh`), its commits
//! signed in this process (`super::signature`; `ssh-keygen -Y sign`, every commit of a round in
//! one process, for a key in ssh-agent or with a passphrase), and a fetched
//! history walked with each commit's signature checked in this process (`super::signature`;
//! git's check, `git log %G?`, for keys it does not verify) and each commit's files read for
//! core's replay (`rail_core::change::proof`). What is proven, and what a walk found, is core's.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rail_core::change::proof::{self, Loader, Signature, Signers, Walk};
use rail_core::change::queue;
use rail_core::change::snapshot::SharedFiles;

use super::remote::RemoteError;
use super::signature::{self, SignatureCheck};
use super::state::read_commit_via;
use crate::git::repo::Repo;
use crate::git::{self, CatFile, GitLine, Object};
use rail_core::formats::gitconfig::{Key, Lookup};

/// The last state this machine proved, kept locally.
pub const PROVEN: &str = "refs/rail/proven";
/// Where the allowed signers are written for git's signature check, in `<git common dir>/rail/`.
const SIGNERS_FILE: &str = "allowed-signers";

/// A rail whose team set keys up: the allowed signers, and this machine's key.
#[derive(Clone, Debug)]
pub struct Keys {
    pub signers: Signers,
    /// The allowed signers as committed, where git's signature check reads them.
    pub file: PathBuf,
    /// Where they were read (`origin/main:.rail/allowed-signers`).
    pub from: String,
    /// This machine's signing key: a private key file, or a public one whose private half an
    /// ssh-agent holds.
    pub key: Option<PathBuf>,
    /// Whether signatures are checked in this process: not when git's config names a
    /// revocation file (`gpg.ssh.revocationFile`), which only git's check reads.
    pub in_process: bool,
}

/// The allowed signers committed on the first of `heads` that has them, and where they were.
/// One `git cat-file` process for every head asked (a read asks on every command: three
/// processes were most of what an unkeyed rail paid for the question).
fn committed_signers(dir: &Path, heads: &[String]) -> Option<(String, String)> {
    let mut objects = CatFile::start(dir).ok()?;
    heads.iter().find_map(|head| {
        let name = format!("{head}:{}", proof::ALLOWED_SIGNERS);
        let text = match objects.get(&name, MAX_SIGNERS_BYTES).ok()? {
            Object::Read { kind, bytes } if kind == "blob" => String::from_utf8(bytes).ok()?,
            _ => return None,
        };
        let short = head.trim_start_matches("refs/remotes/");
        Some((format!("{short}:{}", proof::ALLOWED_SIGNERS), text))
    })
}

/// An allowed-signers file larger than this is not read (a line is about 120 bytes a machine).
const MAX_SIGNERS_BYTES: usize = 1 << 20;

/// The team's keys for `remote` (its main branch as this clone last fetched it), or `None`: no
/// allowed signers are committed there (the shared rail is unverified, today's behaviour).
pub fn keys(repo: &Repo, dir: &Path, remote: &str) -> Option<Keys> {
    let heads = [
        format!("refs/remotes/{remote}/HEAD"),
        format!("refs/remotes/{remote}/main"),
        format!("refs/remotes/{remote}/master"),
    ];
    keys_on(dir, &repo.common_dir, &heads, Some(repo))
}

/// The team's keys as committed on the first of `heads` that has them (a server's: `HEAD`);
/// `repo`, when the checkout is one, lets git's config be read without a process.
pub fn keys_on(
    dir: &Path,
    common_dir: &Path,
    heads: &[String],
    repo: Option<&Repo>,
) -> Option<Keys> {
    let (from, text) = committed_signers(dir, heads)?;
    let file = common_dir.join("rail").join(SIGNERS_FILE);
    if std::fs::read_to_string(&file).ok().as_deref() != Some(text.as_str()) {
        let _ = std::fs::create_dir_all(common_dir.join("rail"));
        let tmp = file.with_extension(format!("{}.tmp", std::process::id()));
        let _ = std::fs::write(&tmp, &text).and_then(|()| std::fs::rename(&tmp, &file));
    }
    let config = signing_config(repo, dir);
    Some(Keys {
        signers: proof::signers(&text),
        file,
        from,
        key: key_of(&config),
        in_process: !config.contains_key("gpg.ssh.revocationfile"),
    })
}

/// The git config settings a keyed rail reads: the signing key's and a revocation file's.
const SIGNING_CONFIG: [&str; 4] = [
    "rail.signingkey",
    "gpg.format",
    "user.signingkey",
    "gpg.ssh.revocationfile",
];

/// The git config a keyed rail reads ([`SIGNING_CONFIG`], the last value of each, empty
/// counting as unset): from git's files in this process where they can be read plainly
/// (`crate::git::config`), else from one `git config` process.
fn signing_config(repo: Option<&Repo>, dir: &Path) -> BTreeMap<String, String> {
    if let Some(read) = repo
        .and_then(|r| crate::git::config::files(r, dir))
        .and_then(|files| read_signing_config(&files))
    {
        return read;
    }
    let names: Vec<String> = SIGNING_CONFIG
        .iter()
        .map(|n| n.replace('.', "\\."))
        .collect();
    let pattern = format!("^({})$", names.join("|"));
    let line = GitLine::new(&["config", "--get-regexp"]).operand(&pattern);
    let listed = git::run(dir, &line).unwrap_or_default();
    (listed.lines())
        .filter_map(|l| l.split_once(' ').or(Some((l, ""))))
        .map(|(k, v)| (k.to_ascii_lowercase(), v.trim().to_string()))
        .filter(|(_, v)| !v.is_empty())
        .collect()
}

/// [`SIGNING_CONFIG`] as the files say, or `None` where only git can tell.
fn read_signing_config(
    files: &crate::git::config::ConfigFiles,
) -> Option<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    for name in SIGNING_CONFIG {
        match files.lookup(&Key::parse(name)?) {
            Lookup::Value(v) if !v.trim().is_empty() => {
                out.insert(name.to_string(), v.trim().to_string());
            }
            Lookup::Value(_) | Lookup::Unset => {}
            Lookup::Unknown(_) => return None,
        }
    }
    Some(out)
}

/// This machine's signing key as git's config names it.
pub fn signing_key(repo: Option<&Repo>, dir: &Path) -> Option<PathBuf> {
    key_of(&signing_config(repo, dir))
}

fn key_of(config: &BTreeMap<String, String>) -> Option<PathBuf> {
    let named = config.get("rail.signingkey").or_else(|| {
        (config.get("gpg.format").map(String::as_str) == Some("ssh"))
            .then(|| config.get("user.signingkey"))
            .flatten()
    })?;
    let named = named.trim();
    if named.is_empty() || named.starts_with("key::") {
        return None;
    }
    Some(match named.strip_prefix("~/") {
        Some(rest) => crate::sys::env::home()?.join(rest),
        None => PathBuf::from(named),
    })
}

/// Signs the commits `ids` (made unsigned by `git fast-import`) with `key`: each commit's bytes
/// signed in git's namespace — in this process for an Ed25519 key file without a passphrase,
/// else by one `ssh-keygen -Y sign` for all of them — the signature put in as git puts it (a
/// `gpgsig` header), the signed commits written in this process where objects can be
/// ([`CatFile::write`]), else by one `git hash-object`. Returns the signed commits' ids, in
/// order.
pub fn sign(
    dir: &Path,
    scratch: &Path,
    objects: &mut CatFile,
    key: &Path,
    ids: &[String],
) -> Result<Vec<String>, RemoteError> {
    let fail = |what: String| RemoteError::Git(format!("cannot sign the rail's commit: {what}"));
    let mut raws = Vec::new();
    for id in ids {
        match objects.get(id, queue::MAX_MESSAGE_BYTES).map_err(fail)? {
            Object::Read { kind, bytes } if kind == "commit" => raws.push(bytes),
            _ => return Err(fail(format!("{id} is not a commit"))),
        }
    }
    let files: Vec<PathBuf> = (0..raws.len())
        .map(|i| scratch.join(format!("sign-{}-{i}", std::process::id())))
        .collect();
    let cleanup = |files: &[PathBuf]| {
        for f in files {
            let _ = std::fs::remove_file(f);
            let _ = std::fs::remove_file(sig_path(f));
            let _ = std::fs::remove_file(signed_path(f));
        }
    };
    let sigs = match signature::sign_here(key, &raws) {
        Some(sigs) => sigs,
        None => {
            let sigs = sign_with_ssh_keygen(key, &files, &raws).map_err(fail);
            if sigs.is_err() {
                cleanup(&files);
            }
            sigs?
        }
    };
    // Written in this process where it can be; else all of them by one `git hash-object`.
    let here: Option<Vec<String>> = (raws.iter().zip(&sigs))
        .map(|(raw, sig)| {
            objects.write(
                rail_core::formats::gitobject::ObjectKind::Commit,
                &with_signature(raw, sig),
            )
        })
        .collect();
    if let Some(ids) = here {
        cleanup(&files);
        return Ok(ids);
    }
    let mut signed = Vec::new();
    for ((f, raw), sig) in files.iter().zip(&raws).zip(&sigs) {
        if let Err(e) = std::fs::write(signed_path(f), with_signature(raw, sig)) {
            cleanup(&files);
            return Err(fail(format!("{}: {e}", signed_path(f).display())));
        }
        signed.push(signed_path(f).to_string_lossy().into_owned());
    }
    let written = git::run(
        dir,
        &GitLine::new(&["hash-object", "-t", "commit", "-w"])
            .paths(signed.iter().map(String::as_str)),
    );
    cleanup(&files);
    let ids: Vec<String> = written
        .map_err(fail)?
        .split_whitespace()
        .map(str::to_string)
        .collect();
    if ids.len() != raws.len() {
        return Err(fail("git hash-object did not write every commit".into()));
    }
    Ok(ids)
}

/// `raws` signed by one `ssh-keygen -Y sign` (through `files`, where it writes `<file>.sig`):
/// their armored signatures, in order.
fn sign_with_ssh_keygen(
    key: &Path,
    files: &[PathBuf],
    raws: &[Vec<u8>],
) -> Result<Vec<String>, String> {
    for (f, raw) in files.iter().zip(raws) {
        std::fs::write(f, raw).map_err(|e| format!("{}: {e}", f.display()))?;
    }
    let out = std::process::Command::new("ssh-keygen")
        .args(["-q", "-Y", "sign", "-n", proof::NAMESPACE, "-f"])
        .arg(key)
        .args(files)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot run ssh-keygen: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "ssh-keygen -Y sign with {} failed: {}",
            key.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    (files.iter())
        .map(|f| std::fs::read_to_string(sig_path(f)).map_err(|e| e.to_string()))
        .collect()
}

fn sig_path(f: &Path) -> PathBuf {
    PathBuf::from(format!("{}.sig", f.display()))
}

fn signed_path(f: &Path) -> PathBuf {
    PathBuf::from(format!("{}.signed", f.display()))
}

/// A commit object's bytes with `sig` as its `gpgsig` header (after the other headers, each
/// line after the first indented by one space, as git writes it).
fn with_signature(raw: &[u8], sig: &str) -> Vec<u8> {
    let at = raw
        .windows(2)
        .position(|w| w == b"\n\n")
        .unwrap_or(raw.len());
    let mut out = raw[..at].to_vec();
    out.extend_from_slice(b"\ngpgsig ");
    out.extend_from_slice(sig.trim_end().replace('\n', "\n ").as_bytes());
    out.extend_from_slice(&raw[at..]);
    out
}

/// Commits' files read through one object reader, kept while a walk needs them.
struct Reading<'a> {
    dir: &'a Path,
    objects: &'a mut CatFile,
    cache: BTreeMap<String, SharedFiles>,
}

impl Loader for Reading<'_> {
    fn files(&mut self, commit: &str) -> Option<SharedFiles> {
        if let Some(f) = self.cache.get(commit) {
            return Some(f.clone());
        }
        let files = read_commit_via(self.objects, self.dir, Some(commit))
            .ok()?
            .files;
        if self.cache.len() > 8 {
            self.cache.clear();
        }
        self.cache.insert(commit.to_string(), files.clone());
        Some(files)
    }

    fn merge_base(&mut self, a: &str, b: &str) -> Option<Option<String>> {
        let line = GitLine::new(&["merge-base"]).operand(a).operand(b);
        let out = git::line::process(self.dir, &line).ok()?.output().ok()?;
        match out.status.code() {
            Some(0) => Some(Some(
                String::from_utf8_lossy(&out.stdout).trim().to_string(),
            )),
            Some(1) if out.stderr.is_empty() => Some(None),
            _ => None,
        }
    }
}

/// The files of `commit` (none for `None`), through `objects`.
pub fn files_of(dir: &Path, objects: &mut CatFile, commit: Option<&str>) -> SharedFiles {
    match commit {
        Some(c) => read_commit_via(objects, dir, Some(c))
            .map(|s| s.files)
            .unwrap_or_default(),
        None => SharedFiles::new(),
    }
}

/// Walks the history of `tip` after `from` (the last proven state; `None`: from the root),
/// oldest first along first parents: each commit's record and files read, its signature checked
/// against the allowed signers for the machine its record names ([`signature_in`]), and core's
/// walk told what each is.
pub fn prove(
    dir: &Path,
    objects: &mut CatFile,
    keys: &Keys,
    from: Option<&str>,
    tip: &str,
) -> Result<Walk, RemoteError> {
    let rows = match from.and_then(|f| first_parents(objects, f, tip)) {
        Some(rows) => rows,
        None => listed(dir, from, tip)?,
    };
    let mut walk = Walk::from(from.map(str::to_string));
    let mut reading = Reading {
        dir,
        objects,
        cache: BTreeMap::new(),
    };
    for (id, parent) in rows {
        let id = id.as_str();
        let raw = match reading.objects.get(id, queue::MAX_MESSAGE_BYTES) {
            Ok(Object::Read { kind, bytes }) if kind == "commit" => Some(bytes),
            _ => None,
        };
        let record = match &raw {
            Some(bytes) => queue::commit_object(id, bytes)
                .map(|c| c.record)
                .unwrap_or_default(),
            None => queue::Recorded::Unreadable("the commit cannot be read".into()),
        };
        let machine = record.machine().unwrap_or_default();
        let signature = match raw.as_deref().map(|r| checked(keys, r, machine)) {
            Some(SignatureCheck::Known(s)) => s,
            _ => by_git(dir, keys, id).map_err(RemoteError::Git)?,
        };
        let signers = &keys.signers;
        walk.step(id, &signature, &record, signers, || {
            let parent_files = match &parent {
                Some(p) => reading
                    .files(p)
                    .ok_or_else(|| "its parent cannot be read".to_string())?,
                None => SharedFiles::new(),
            };
            let files = reading
                .files(id)
                .ok_or_else(|| "its files cannot be read".to_string())?;
            proof::follows(
                &parent_files,
                parent.as_deref(),
                &files,
                &record,
                &mut reading,
            )
        });
    }
    Ok(walk)
}

/// At most this many commits are walked back through the object reader to the last proven
/// state; a longer way (or none) is listed by `git log`.
const MAX_CHAIN: usize = 64;

/// The commits after `from` on `tip`'s first-parent chain, oldest first, each with its first
/// parent, read through `objects` (no process: a round proves one or two new commits); `None`
/// when `from` is not met within [`MAX_CHAIN`] commits or a commit cannot be read here. On a
/// first-parent chain that meets `from`, these are exactly `git log --first-parent tip ^from`.
fn first_parents(
    objects: &mut CatFile,
    from: &str,
    tip: &str,
) -> Option<Vec<(String, Option<String>)>> {
    let mut rows = Vec::new();
    let mut at = tip.to_string();
    while at != from {
        if rows.len() == MAX_CHAIN {
            return None;
        }
        let parent = match objects.get(&at, queue::MAX_MESSAGE_BYTES).ok()? {
            Object::Read { kind, bytes } if kind == "commit" => {
                queue::commit_object(&at, &bytes)?.parent
            }
            _ => return None,
        };
        rows.push((at, parent.clone()));
        at = parent?;
    }
    rows.reverse();
    Some(rows)
}

/// `git log --first-parent --reverse tip ^from`: each commit with its first parent.
fn listed(
    dir: &Path,
    from: Option<&str>,
    tip: &str,
) -> Result<Vec<(String, Option<String>)>, RemoteError> {
    let mut line = GitLine::new(&[])
        .opt("log")
        .opt("--first-parent")
        .opt("--reverse")
        .opt("--format=%H%x1f%P")
        .operand(tip);
    let exclude = from.map(|f| format!("^{f}"));
    if let Some(x) = &exclude {
        line = line.operand(x.as_str());
    }
    let listed = git::run(dir, &line).map_err(RemoteError::Git)?;
    Ok((listed.lines())
        .filter_map(|row| {
            let (id, parents) = row.split_once('\x1f').unwrap_or((row, ""));
            let parent = parents.split_whitespace().next().map(str::to_string);
            (!id.is_empty()).then(|| (id.to_string(), parent))
        })
        .collect())
}

/// The in-process check of a commit object's signature, when this rail checks in-process.
fn checked(keys: &Keys, raw: &[u8], wanted: &str) -> SignatureCheck {
    if keys.in_process {
        signature::check(raw, &keys.signers, wanted)
    } else {
        SignatureCheck::AskGit("git's config names a revocation file".into())
    }
}

/// Records `commit` as the last state this machine proved: the ref file written in this
/// process where git keeps refs as plain files (`common_dir`), else by `git update-ref`.
pub fn proved(dir: &Path, common_dir: Option<&Path>, commit: &str) {
    if common_dir.is_some_and(|c| crate::git::objects::write_ref(c, PROVEN, commit)) {
        return;
    }
    let _ = git::run(dir, &GitLine::new(&["update-ref", PROVEN]).operand(commit));
}

/// The last state this machine proved: read from the ref files in `common_dir` where they can
/// be read plainly, else by `git rev-parse`.
pub fn last_proven(dir: &Path, common_dir: &Path) -> Option<String> {
    if let Some(refs) = crate::git::objects::refs_under(common_dir, &[PROVEN]) {
        return refs
            .into_iter()
            .find(|(name, _)| name == PROVEN)
            .map(|(_, id)| id);
    }
    git::run(
        dir,
        &GitLine::new(&["rev-parse", "--verify", "--quiet"]).operand(PROVEN),
    )
    .ok()
    .map(|s| s.trim().to_string())
    .filter(|s| !s.is_empty())
}

/// A commit's signature against the allowed signers, for the machine `wanted` it is said to be
/// made by: checked in this process ([`super::signature`]), or by git where that cannot say
/// (a key type this build does not verify, a line with options, a revocation file).
pub fn signature_in(
    dir: &Path,
    objects: &mut CatFile,
    keys: &Keys,
    commit: &str,
    wanted: &str,
) -> Result<Signature, String> {
    if let Ok(Object::Read { kind, bytes }) = objects.get(commit, queue::MAX_MESSAGE_BYTES) {
        if kind == "commit" {
            if let SignatureCheck::Known(s) = checked(keys, &bytes, wanted) {
                return Ok(s);
            }
        }
    }
    by_git(dir, keys, commit)
}

/// [`signature_in`] with an object reader of its own (one commit: a server's hook).
pub fn signature_of(
    dir: &Path,
    keys: &Keys,
    commit: &str,
    wanted: &str,
) -> Result<Signature, String> {
    let mut objects = CatFile::start(dir)?;
    signature_in(dir, &mut objects, keys, commit, wanted)
}

/// git's signature check of one commit against the allowed signers (`git log %G?`, one
/// `ssh-keygen -Y verify`): core's [`Signature`].
fn by_git(dir: &Path, keys: &Keys, commit: &str) -> Result<Signature, String> {
    let file = keys.file.to_string_lossy().into_owned();
    let line = GitLine::new(&[])
        .config("gpg.ssh.allowedSignersFile", &file)
        .opt("log")
        .opt("-1")
        .opt("--format=%G?%x1f%GS")
        .operand(commit);
    let out = git::run(dir, &line)?;
    let (letter, signer) = out
        .trim_end()
        .split_once('\x1f')
        .unwrap_or((out.trim(), ""));
    Ok(Signature::from_git(letter, signer))
}

/// Whether `machine`'s guard marks commit is signed by `machine` (core's `proof::check_marks`).
pub fn marks_signed(
    dir: &Path,
    objects: &mut CatFile,
    keys: &Keys,
    machine: &str,
    commit: &str,
) -> Result<(), String> {
    let signature = signature_in(dir, objects, keys, commit, machine)?;
    proof::check_marks(&signature, machine, &keys.signers)
}

// They run real git: not under Wine, where the Windows build's unit tests run without it.
#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::git::testing::git;

    /// The signing settings read from git's files in this process are the ones a `git config`
    /// process lists, setting by setting: none, git's own SSH signing, Rail's key given twice
    /// (the last wins), an empty value, a revocation file; and an include, which only git
    /// follows, is left to git.
    #[test]
    fn the_signing_config_read_here_is_what_git_lists() {
        let dir = tempfile::tempdir().unwrap();
        let d = &dir.path().canonicalize().unwrap();
        git(d, &["init", "-q"]);
        let repo = crate::git::repo::discover(d).unwrap();
        let here = || crate::git::config::files(&repo, d).and_then(|f| read_signing_config(&f));
        let same = |step: &str| {
            let by_git = signing_config(None, d);
            assert_eq!(signing_config(Some(&repo), d), by_git, "{step}");
            by_git
        };
        assert_eq!(here(), Some(BTreeMap::new()));
        assert!(same("nothing set").is_empty());
        git(d, &["config", "gpg.format", "ssh"]);
        git(d, &["config", "user.signingKey", "~/.ssh/id_ed25519.pub"]);
        assert_eq!(same("git's own signing").len(), 2);
        git(d, &["config", "--add", "rail.signingKey", "/keys/first"]);
        git(d, &["config", "--add", "rail.signingKey", "/keys/second"]);
        assert_eq!(
            same("Rail's key twice")["rail.signingkey"],
            "/keys/second",
            "the last value wins"
        );
        git(d, &["config", "user.signingKey", ""]);
        assert!(!same("an empty value").contains_key("user.signingkey"));
        git(d, &["config", "gpg.ssh.revocationFile", "/keys/revoked"]);
        assert_eq!(same("a revocation file").len(), 3);
        assert!(here().is_some(), "all read without git");
        std::fs::write(
            d.join("more.config"),
            "[rail]\n\tsigningKey = /keys/included\n",
        )
        .unwrap();
        git(d, &["config", "include.path", "../more.config"]);
        assert_eq!(
            same("an include")["rail.signingkey"],
            "/keys/included",
            "git's answer"
        );
        assert_eq!(here(), None, "left to git");
    }
}
