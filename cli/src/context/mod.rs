//! One command's resolved invocation: where the rail is, the repository, who the session is,
//! what time it is, rail.yaml's settings and the remote the rail is shared through — each found
//! once, on first use, and read by every command and hook from here (`Ctx`), never looked up
//! again halfway down. The facts core judges by are gathered in [`facts`].

pub mod facts;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use chrono::{DateTime, Utc};
use rail_core::formats::config::Config;
use rail_core::formats::rail_files::CONFIG_FILE;
use rail_core::model::input::RailTexts;

pub use self::facts::Commits;
use crate::fail::Fail;
use crate::git::repo::{self, Repo};
use crate::store::lock::{self, LockOwner, RailLock};
use crate::store::{RailDir, StoreError};
use crate::sys::env::env;
use crate::sys::railfile;

/// What the command line said before anything was looked up: the global flags.
#[derive(Clone, Debug, Default)]
pub struct Flags {
    pub rail: Option<PathBuf>,
    pub session: Option<String>,
    pub now: Option<String>,
    pub json: bool,
}

#[derive(Debug)]
pub struct Ctx {
    pub repo: Option<Repo>,
    pub rail: RailDir,
    session_flag: Option<String>,
    pub now: DateTime<Utc>,
    /// `now` was given (`--now`, `RAIL_NOW`) rather than read from the clock: a shared rail's
    /// changes refuse it.
    pub now_given: bool,
    pub json: bool,
    pub command_line: String,
    /// The longest this invocation may wait for the rail lock, whatever rail.yaml says (a hook's
    /// Stop must answer within its agent's limit).
    pub lock_cap: Option<Duration>,
    /// The acting session, once asked for.
    session: OnceLock<Result<String, Fail>>,
    /// rail.yaml's settings, once read (from the file, or from the texts a command read first).
    config: OnceLock<Result<Config, Fail>>,
    /// The remote the rail is configured to share through, once looked up (or why none can be).
    remote: OnceLock<Result<Option<String>, Fail>>,
}

impl Ctx {
    /// `creating`: the command makes a rail (`rail init`), so `--rail DIR` need not hold one.
    pub fn new(flags: Flags, creating: bool) -> Result<Ctx, Fail> {
        let cwd = std::env::current_dir()
            .map_err(|e| Fail::env(format!("cannot read the current directory: {e}")))?;
        let repo = repo::discover(&cwd);
        let named = match flags.rail {
            Some(dir) => Some((dir, "--rail")),
            None => env().rail_dir.clone().map(|d| (d, "RAIL_DIR")),
        };
        let rail_root = match named {
            Some((dir, by)) => {
                if !dir.is_dir() {
                    return Err(Fail::env(format!(
                        "rail directory {} does not exist",
                        dir.display()
                    )));
                }
                if !creating && !is_rail(&dir) {
                    return Err(Fail::env(format!(
                        "{} ({by}) is not a rail: it holds no claims.md, rail.yaml or claims/, and it is not a git repository's main checkout. Nothing was written there. Point {by} at the directory that holds claims.md, or make a rail there with `rail init --rail {}`",
                        dir.display(),
                        dir.display()
                    )));
                }
                dir
            }
            None => match &repo {
                Some(r) => r.main_checkout(),
                None => {
                    return Err(Fail::env(format!(
                    "{} is not inside a git repository; run rail in a checkout or pass --rail DIR",
                    cwd.display()
                )))
                }
            },
        };
        let given = flags.now.or_else(|| env().now.clone());
        let now_given = given.is_some();
        let now = match given {
            Some(text) => rail_core::text::time::parse_time(&text)
                .map_err(|e| Fail::usage(format!("--now `{text}`: {e}")))?,
            None => crate::sys::clock::now(),
        };
        Ok(Ctx {
            repo,
            rail: RailDir::new(rail_root),
            session_flag: flags.session.or_else(|| env().session.clone()),
            now,
            now_given,
            json: flags.json,
            command_line: command_line(),
            lock_cap: None,
            session: OnceLock::new(),
            config: OnceLock::new(),
            remote: OnceLock::new(),
        })
    }

    /// This invocation, for the rail of another repository (a hook call whose paths land in
    /// another repository is judged there).
    pub fn for_repo(&self, repo: Repo) -> Ctx {
        Ctx {
            rail: RailDir::new(repo.main_checkout()),
            repo: Some(repo),
            session_flag: self.session_flag.clone(),
            now: self.now,
            now_given: self.now_given,
            json: self.json,
            command_line: self.command_line.clone(),
            lock_cap: self.lock_cap,
            session: OnceLock::new(),
            config: OnceLock::new(),
            remote: OnceLock::new(),
        }
    }

    /// The acting session: `--session`, else `RAIL_SESSION`, else the current branch — or,
    /// run by an agent, that agent's own session under it (`main~claude-9fd28a1b`).
    pub fn session(&self) -> Result<String, Fail> {
        self.session
            .get_or_init(|| {
                let branch = self.repo.as_ref().and_then(|r| r.branch());
                session_of(self.session_flag.as_deref(), branch.as_deref())
            })
            .clone()
    }

    /// The session named by `--session` or `RAIL_SESSION`, if any.
    pub fn explicit_session(&self) -> Option<&str> {
        self.session_flag.as_deref()
    }

    /// rail.yaml's settings (core's defaults where there is none, or it cannot be read as
    /// text): the one place the CLI turns rail.yaml into settings, so no command repeats a
    /// default of core's. A rail.yaml that is a link or a FIFO is refused, named, rather than
    /// followed or read forever.
    pub fn config(&self) -> Result<&Config, Fail> {
        self.config
            .get_or_init(|| {
                let path = self.rail.path(CONFIG_FILE);
                match railfile::read_text(&path) {
                    Ok(text) => Ok(parse_config(text.as_deref())),
                    Err(e) if railfile::refusal(&e).is_some() => {
                        Err(Fail::env(railfile::describe(&path, &e)))
                    }
                    Err(_) => Ok(Config::default()),
                }
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// [`Ctx::config`], or core's defaults where rail.yaml is refused (commands that have no
    /// rail.yaml of their own to refuse: the merge driver, a shared round, a hook's answer).
    pub fn settings(&self) -> Config {
        self.config().cloned().unwrap_or_default()
    }

    /// Seeds the settings from texts a command read (the same rail.yaml, read once).
    fn seed_config(&self, texts: &RailTexts) {
        let _ = self.config.set(Ok(parse_config(
            texts.config.as_ref().map(|c| c.text.as_str()),
        )));
    }

    /// The remote this rail is configured to share through, whether or not `RAIL_LOCAL` is set:
    /// `git config rail.remote`, else rail.yaml's `remote:`.
    ///
    /// Refused (core's `shared::configured_remote`) where it is not a remote's name, or names no
    /// remote of this clone: rail.yaml is committed, and every fetch and push hands the name to
    /// git, so a URL or path there would share the rail with whoever it names.
    pub fn configured_remote(&self) -> Result<Option<&str>, Fail> {
        self.remote
            .get_or_init(|| {
                use rail_core::model::shared::{self, RemoteSource};
                let repo = self.repo.as_ref();
                let git = crate::git::config::get(repo, &self.rail.root, shared::REMOTE_KEY);
                let name = shared::configured_remote(git.as_deref(), &self.settings())
                    .map_err(|e| Fail::env(e.to_string()))?;
                let Some(name) = name else {
                    return Ok(None);
                };
                let url = format!("remote.{name}.url");
                if crate::git::config::get(repo, &self.rail.root, &url).is_none() {
                    let from = if git.as_deref().is_some_and(|g| !g.trim().is_empty()) {
                        RemoteSource::GitConfig
                    } else {
                        RemoteSource::RailYaml
                    };
                    let place = match from {
                        RemoteSource::GitConfig => "git config rail.remote",
                        RemoteSource::RailYaml => "rail.yaml's `remote:`",
                    };
                    return Err(Fail::env(format!(
                        "{place} names `{name}`, which is not a remote of this clone (git remote -v); nothing was changed: add it (git remote add {name} URL), or set RAIL_LOCAL=1 to work on the local rail"
                    )));
                }
                Ok(Some(name))
            })
            .as_ref()
            .map(Option::as_deref)
            .map_err(Clone::clone)
    }

    /// The remote this command shares the rail through: none with `RAIL_LOCAL=1` (core's
    /// `shared::remote`).
    pub fn remote(&self) -> Result<Option<&str>, Fail> {
        if env().local {
            return Ok(None);
        }
        self.configured_remote()
    }

    /// Where git runs for this rail: the checkout, else the rail's directory.
    pub fn repo_dir(&self) -> PathBuf {
        self.repo
            .as_ref()
            .map(|r| r.worktree.clone())
            .unwrap_or_else(|| self.rail.root.clone())
    }

    /// How long to wait for the rail lock: `RAIL_LOCK_TIMEOUT_MS`, else rail.yaml's
    /// `lock_timeout`; never past [`Ctx::lock_cap`].
    pub fn lock_timeout(&self) -> Result<Duration, Fail> {
        let configured = match env().lock_timeout {
            Some(t) => t,
            None => self
                .config()?
                .lock_timeout
                .to_std()
                .unwrap_or(Duration::from_secs(10)),
        };
        Ok(self.lock_cap.map_or(configured, |cap| configured.min(cap)))
    }

    pub fn lock(&self, session: &str) -> Result<RailLock, Fail> {
        self.lock_within(session, None)
    }

    /// Takes the rail lock, waiting at most `timeout` (default: the configured lock timeout).
    pub fn lock_within(&self, session: &str, timeout: Option<Duration>) -> Result<RailLock, Fail> {
        let configured = self.lock_timeout()?;
        let timeout = timeout.map_or(configured, |t| self.lock_cap.map_or(t, |cap| t.min(cap)));
        lock::acquire(
            &self.rail.root,
            &LockOwner {
                session: session.to_string(),
                command: self.command_line.clone(),
            },
            timeout,
        )
        .map_err(|e| Fail::env(e.to_string()))
    }

    /// The rail's files. Without the lock, claims a git command dropped from claims.md since
    /// Rail wrote them are read as still there (the next change writes them back): a reader
    /// must not see a task free that its holder was never told it lost.
    pub fn read(&self, locked: bool) -> Result<RailTexts, Fail> {
        let texts = self.rail.read(locked).map_err(store_fail)?;
        self.seed_config(&texts);
        if locked {
            return Ok(texts);
        }
        let restore = self.rail.lost_claims(&texts, self.now);
        Ok(put_back(texts, &restore))
    }

    /// [`Ctx::read`] unlocked, without claims.log unless putting back lost claims needs it:
    /// for judging the claims (the hook, on every tool call), which never looks at the log.
    pub fn read_claims(&self) -> Result<RailTexts, Fail> {
        let mut texts = self.rail.read_without_log().map_err(store_fail)?;
        self.seed_config(&texts);
        let restore = self
            .rail
            .lost_claims_reading_log(&mut texts, self.now)
            .map_err(store_fail)?;
        Ok(put_back(texts, &restore))
    }

    /// The rail's files exactly as they are on disk (what `rail validate` reports on).
    pub fn read_on_disk(&self) -> Result<RailTexts, Fail> {
        let texts = self.rail.read(false).map_err(store_fail)?;
        self.seed_config(&texts);
        Ok(texts)
    }
}

fn parse_config(text: Option<&str>) -> Config {
    text.map(|t| rail_core::formats::config::parse(t).0)
        .unwrap_or_default()
}

/// The session named by `explicit` (`--session`, `RAIL_SESSION`), else by `branch`, as core
/// reads them; a usage failure when neither names one.
fn session_of(explicit: Option<&str>, branch: Option<&str>) -> Result<String, Fail> {
    use rail_core::text::ident::{acting, Acting, Unnamed};
    match acting(explicit, branch, crate::sys::env::env().agent_self()) {
        Acting::Session(s) => Ok(s),
        Acting::Unnamed(Unnamed::NoBranch) => Err(Fail::usage(
            "no session: HEAD is detached or this is not a git checkout; pass --session NAME or set RAIL_SESSION",
        )),
        Acting::Unnamed(Unnamed::BadExplicit(e) | Unnamed::BadBranch(e)) => Err(Fail::usage(e.0)),
    }
}

/// Is `dir` a rail Rail may write to? It holds one of the rail's files (whatever kind of entry:
/// a claims.md that is a link is still a rail, refused later with the reason), or it is the
/// main checkout of a git repository, where Rail puts a new rail by default (the VS Code
/// extension passes that directory with `--rail`). Any other directory is most likely a typo,
/// and a new rail there would silently go unseen by everyone else.
fn is_rail(dir: &Path) -> bool {
    if crate::store::holds_rail_files(dir) {
        return true;
    }
    let same = |a: &Path, b: &Path| matches!((a.canonicalize(), b.canonicalize()), (Ok(a), Ok(b)) if a == b);
    repo::discover(dir).is_some_and(|r| same(&r.main_checkout(), dir))
}

pub fn store_fail(e: StoreError) -> Fail {
    if e.bad_input {
        Fail::usage(e.to_string())
    } else {
        Fail::env(e.to_string())
    }
}

fn command_line() -> String {
    let args: Vec<String> = std::env::args().collect();
    let mut line = String::from("rail");
    for a in args.iter().skip(1) {
        line.push(' ');
        line.push_str(a);
    }
    line.chars().filter(|c| !c.is_control()).take(200).collect()
}

/// The texts as a reader must see them: claims a git command dropped since Rail wrote them
/// are read as still there (`restore`'s edit of claims.md applied in memory).
fn put_back(mut texts: RailTexts, restore: &rail_core::change::checkout::Restore) -> RailTexts {
    if let Some(fe) = restore.edits.first() {
        let old = texts.claims.as_ref().map(|c| c.text.as_str()).unwrap_or("");
        if let Ok(text) = rail_core::text::edit::apply(old, &fe.edits) {
            match texts.claims.as_mut() {
                Some(claims) => claims.text = text,
                None => {
                    texts.claims = Some(rail_core::model::input::FileText {
                        path: rail_core::formats::rail_files::CLAIMS_MD.into(),
                        text,
                        modified: None,
                    })
                }
            }
        }
    }
    texts
}
