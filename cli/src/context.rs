//! Per-invocation context: where the rail is, who the session is, what time it is, and the
//! facts core needs (commit times, process liveness, worktrees).

use std::path::PathBuf;
use std::time::Duration;

use chrono::{DateTime, Utc};
use rail_core::model::input::{Facts, RailTexts, Worktree};
use rail_core::model::lease::LeaseState as State;
use rail_core::model::Rail;

use crate::fail::Fail;
use crate::git;
use crate::lock::{self, Owner, RailLock};
use crate::repo::{self, Repo};
use crate::store::{RailDir, StoreError};

#[derive(Debug)]
pub struct Ctx {
    pub repo: Option<Repo>,
    pub rail: RailDir,
    session_flag: Option<String>,
    pub now: DateTime<Utc>,
    pub json: bool,
    pub command_line: String,
    /// The longest this invocation may wait for the rail lock, whatever rail.yaml says (a hook's
    /// Stop must answer within its agent's limit).
    pub lock_cap: Option<Duration>,
}

/// How much effort to spend on commit times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Commits {
    /// Always ask git (the board shows them).
    Always,
    /// Only if some claim is not plainly live without them (commits can only extend leases).
    IfNeeded,
}

impl Ctx {
    /// `creating`: the command makes a rail (`rail init`), so `--rail DIR` need not hold one.
    pub fn new(
        rail_flag: Option<PathBuf>,
        session: Option<String>,
        now: Option<String>,
        json: bool,
        creating: bool,
    ) -> Result<Ctx, Fail> {
        let cwd = std::env::current_dir()
            .map_err(|e| Fail::env(format!("cannot read the current directory: {e}")))?;
        let repo = repo::discover(&cwd);
        let named = match rail_flag {
            Some(dir) => Some((dir, "--rail")),
            None => std::env::var_os("RAIL_DIR").map(|d| (PathBuf::from(d), "RAIL_DIR")),
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
        let now = match now.or_else(|| std::env::var("RAIL_NOW").ok()) {
            Some(text) => rail_core::text::time::parse_time(&text)
                .map_err(|e| Fail::usage(format!("--now `{text}`: {e}")))?,
            None => Utc::now(),
        };
        let session_flag =
            session.or_else(|| std::env::var("RAIL_SESSION").ok().filter(|s| !s.is_empty()));
        Ok(Ctx {
            repo,
            rail: RailDir::new(rail_root),
            session_flag,
            now,
            json,
            command_line: command_line(),
            lock_cap: None,
        })
    }

    /// The acting session: `--session`, else `RAIL_SESSION`, else the current branch.
    /// This invocation, for the rail of another repository (a hook call whose paths land in
    /// another repository is judged there).
    pub fn for_repo(&self, repo: Repo) -> Ctx {
        Ctx {
            rail: RailDir::new(repo.main_checkout()),
            repo: Some(repo),
            session_flag: self.session_flag.clone(),
            now: self.now,
            json: self.json,
            command_line: self.command_line.clone(),
            lock_cap: self.lock_cap,
        }
    }

    pub fn session(&self) -> Result<String, Fail> {
        use rail_core::text::ident::{acting, Acting, Unnamed};
        let branch = self.repo.as_ref().and_then(|r| r.branch());
        match acting(self.session_flag.as_deref(), branch.as_deref()) {
            Acting::Session(s) => Ok(s),
            Acting::Unnamed(Unnamed::NoBranch) => Err(Fail::usage(
                "no session: HEAD is detached or this is not a git checkout; pass --session NAME or set RAIL_SESSION",
            )),
            Acting::Unnamed(Unnamed::BadExplicit(e) | Unnamed::BadBranch(e)) => {
                Err(Fail::usage(e.0))
            }
        }
    }

    /// The session named by `--session` or `RAIL_SESSION`, if any.
    pub fn explicit_session(&self) -> Option<&str> {
        self.session_flag.as_deref()
    }

    pub fn lock_timeout(&self, texts_config: Option<&RailTexts>) -> Duration {
        let configured = self.configured_lock_timeout(texts_config);
        match self.lock_cap {
            Some(cap) => configured.min(cap),
            None => configured,
        }
    }

    fn configured_lock_timeout(&self, texts_config: Option<&RailTexts>) -> Duration {
        if let Some(ms) = std::env::var("RAIL_LOCK_TIMEOUT_MS")
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
        {
            return Duration::from_millis(ms);
        }
        config_of(texts_config)
            .lock_timeout
            .to_std()
            .unwrap_or(Duration::from_secs(10))
    }

    pub fn lock(&self, session: &str) -> Result<RailLock, Fail> {
        self.lock_within(session, None)
    }

    /// Takes the rail lock, waiting at most `timeout` (default: the configured lock timeout).
    pub fn lock_within(&self, session: &str, timeout: Option<Duration>) -> Result<RailLock, Fail> {
        let config_path = self.rail.path(rail_core::formats::rail_files::CONFIG_FILE);
        // A rail.yaml that is a link or a FIFO stops here, named, rather than hanging the read.
        let config_text = match crate::railfile::read_text(&config_path) {
            Ok(text) => text,
            Err(e) if crate::railfile::refusal(&e).is_some() => {
                return Err(Fail::env(crate::railfile::describe(&config_path, &e)))
            }
            Err(_) => None,
        };
        let texts = RailTexts {
            config: config_text.map(|text| rail_core::model::input::FileText {
                path: rail_core::formats::rail_files::CONFIG_FILE.into(),
                text,
                modified: None,
            }),
            ..RailTexts::default()
        };
        let timeout = timeout.unwrap_or_else(|| self.lock_timeout(Some(&texts)));
        let timeout = self.lock_cap.map_or(timeout, |cap| timeout.min(cap));
        lock::acquire(
            &self.rail.root,
            &Owner {
                session: session.to_string(),
                command: self.command_line.clone(),
            },
            timeout,
        )
        .map_err(|e| match e {
            lock::LockError::Timeout { .. } => Fail::env(e.to_string()),
            lock::LockError::Io(..) => Fail::env(e.to_string()),
        })
    }

    /// The rail's files. Without the lock, claims a git command dropped from claims.md since
    /// Rail wrote them are read as still there (the next change writes them back): a reader
    /// must not see a task free that its holder was never told it lost.
    pub fn read(&self, locked: bool) -> Result<RailTexts, Fail> {
        let texts = self.rail.read(locked).map_err(store_fail)?;
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
        let restore = self
            .rail
            .lost_claims_reading_log(&mut texts, self.now)
            .map_err(store_fail)?;
        Ok(put_back(texts, &restore))
    }

    /// The rail's files exactly as they are on disk (what `rail validate` reports on).
    pub fn read_on_disk(&self) -> Result<RailTexts, Fail> {
        self.rail.read(false).map_err(store_fail)
    }

    /// Facts as of `self.now` for these texts.
    pub fn facts(&self, texts: &RailTexts, commits: Commits) -> Facts {
        self.facts_for(&Rail::load(texts), commits)
    }

    /// [`Ctx::facts`] for a rail already loaded (a command that judges with it too loads and
    /// parses it once).
    pub fn facts_for(&self, rail: &Rail, commits: Commits) -> Facts {
        let mut facts = Facts::at(self.now);
        facts.host = lock::hostname();
        let eval = rail.evaluate(&facts);
        probe_owners(
            eval.claims.iter().filter_map(|c| c.pid.as_deref()),
            &mut facts,
        );
        let need = match commits {
            Commits::Always => true,
            Commits::IfNeeded => eval.claims.iter().any(|c| c.state() != State::Live),
        };
        if need {
            let base = self
                .repo
                .as_ref()
                .and_then(|r| repo::head_branch(&r.common_dir));
            facts.commits = git::branch_commit_times(&self.rail.root, base.as_deref());
        }
        if commits == Commits::Always {
            if let Some(repo) = &self.repo {
                facts.hooks = crate::heartbeat::read_all(repo);
                facts.worktrees = repo::worktrees(repo)
                    .into_iter()
                    .map(|(path, branch)| Worktree {
                        path: path.display().to_string(),
                        branch,
                    })
                    .collect();
            }
        }
        facts
    }
}

/// Is `dir` a rail Rail may write to? It holds one of the rail's files (whatever kind of entry:
/// a claims.md that is a link is still a rail, refused later with the reason), or it is the
/// main checkout of a git repository, where Rail puts a new rail by default (the VS Code
/// extension passes that directory with `--rail`). Any other directory is most likely a typo,
/// and a new rail there would silently go unseen by everyone else.
/// rail.yaml's settings as read into `texts` (core's defaults where there is none): the one
/// place the CLI turns rail.yaml into settings, so no command repeats a default of core's.
pub fn config_of(texts: Option<&RailTexts>) -> rail_core::formats::config::Config {
    texts
        .and_then(|t| t.config.as_ref())
        .map(|c| rail_core::formats::config::parse(&c.text).0)
        .unwrap_or_default()
}

/// This checkout's rail.yaml settings read from the file alone (core's defaults where there is
/// none), for commands that have not read the rail's texts (the merge driver, a shared round:
/// rail.yaml is each checkout's own, not the shared tree's).
pub fn rail_config(ctx: &Ctx) -> rail_core::formats::config::Config {
    crate::railfile::read_text(&ctx.rail.path(rail_core::formats::rail_files::CONFIG_FILE))
        .ok()
        .flatten()
        .map(|t| rail_core::formats::config::parse(&t).0)
        .unwrap_or_default()
}

/// Records in `facts` whether each owner process named by `pids` (`PID@HOST[/START]`) that runs
/// on this host is alive and, for a live one whose claim recorded a start time, when it started
/// (core decides whether it is the owner); other hosts' pids and pids already known are left
/// alone.
pub fn probe_owners<'a>(pids: impl Iterator<Item = &'a str>, facts: &mut Facts) {
    for field in pids {
        let Some(owner) = rail_core::formats::pid::OwnerProcess::parse(field) else {
            continue;
        };
        let key = owner.key();
        if owner.host != facts.host || facts.processes.contains_key(&key) {
            continue;
        }
        if let Some(alive) = lock::pid_alive(owner.pid, None) {
            facts.processes.insert(key.clone(), alive);
            if alive && owner.start.is_some() {
                if let Some(start) = lock::process_start(owner.pid) {
                    facts.process_starts.insert(key, start);
                }
            }
        }
    }
}

fn is_rail(dir: &std::path::Path) -> bool {
    use rail_core::formats::rail_files::{CLAIMS_DIR, CLAIMS_MD, CONFIG_FILE};
    if [CLAIMS_MD, CONFIG_FILE, CLAIMS_DIR]
        .iter()
        .any(|name| std::fs::symlink_metadata(dir.join(name)).is_ok())
    {
        return true;
    }
    let same = |a: &std::path::Path, b: &std::path::Path| matches!((a.canonicalize(), b.canonicalize()), (Ok(a), Ok(b)) if a == b);
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
