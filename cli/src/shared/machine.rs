//! This machine's side of the queues on a shared rail's remote (docs/shared-rail.md, "One round
//! answers every machine"): its machine id, its memory between rounds (core's
//! `change::round::Memory`: what it published on `refs/rail/queue/<machine>` and the timings it
//! paces its moves by) kept in one small file in the exchange directory, written only by the
//! leader, under the exchange lock — and, after a fetch, the shared ref's last commits and the
//! other machines' queues read back in one `git cat-file` process. What they mean is core's
//! (`rail_core::change::queue`).

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use rail_core::change::queue::{self, Commit, Queue, Recorded};
use rail_core::change::round::Memory;

use crate::git::{CatFile, Object};

/// Where a fetch puts every machine's queue ref: `refs/rail/queues/<machine>`.
pub const FETCHED_QUEUES: &str = "refs/rail/queues/";
/// Where this machine's next queue commit is made before it is pushed.
pub const NEW_QUEUE: &str = "refs/rail/queue-new";
const STATE: &str = "queue-state.json";

pub use crate::store::machine_id::machine;

/// This machine's memory kept in `exchange_dir`; a missing or unreadable one is a fresh start
/// (it only paces moves and names what was published: the window bounds what a lost one
/// costs).
pub fn load(exchange_dir: &Path) -> Memory {
    fs::read_to_string(exchange_dir.join(STATE))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

/// Keeps `memory` in `exchange_dir`, whole or not at all.
pub fn save(memory: &Memory, exchange_dir: &Path) -> Result<(), String> {
    let path = exchange_dir.join(STATE);
    let tmp = path.with_extension(format!("{}.tmp", std::process::id()));
    let text = serde_json::to_string(memory).map_err(|e| e.to_string())?;
    fs::write(&tmp, text)
        .and_then(|()| fs::rename(&tmp, &path))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// The shared ref's last commits (the tip first, each commit's first parent after it) and the
/// other machines' queues, as this repository has them after a fetch.
#[derive(Debug, Default)]
pub struct View {
    pub chain: Vec<Commit>,
    pub queues: Vec<Queue>,
    /// Queues, and operations in them, that were not read, and why.
    pub skipped: Vec<String>,
}

impl View {
    pub fn tip(&self) -> Option<&Commit> {
        self.chain.first()
    }
}

/// Reads what a round needs to know of the shared ref and the queues, for one leader: one `git
/// cat-file` process for all its rounds, and what it read kept (a commit never changes, nor a
/// queue commit), so a round that finds nothing new reads nothing.
#[derive(Debug, Default)]
pub struct ChainReader {
    objects: Option<CatFile>,
    commits: std::collections::BTreeMap<String, Commit>,
    queues: std::collections::BTreeMap<String, Result<Queue, String>>,
    /// Queue commits (`machine commit`) whose signature was found to be their machine's.
    verified: BTreeSet<String>,
}

impl ChainReader {
    /// The leader's one `git cat-file` process, started on first use.
    pub fn objects(&mut self, dir: &Path) -> Result<&mut CatFile, String> {
        if self.objects.is_none() {
            self.objects = Some(CatFile::start(dir)?);
        }
        Ok(self.objects.as_mut().expect("started above"))
    }

    fn commit(&mut self, dir: &Path, id: &str) -> Result<Option<Commit>, String> {
        if let Some(c) = self.commits.get(id) {
            return Ok(Some(c.clone()));
        }
        let commit = match self.objects(dir)?.get(id, queue::MAX_MESSAGE_BYTES)? {
            Object::Read { kind, bytes } if kind == "commit" => queue::commit_object(id, &bytes)
                .unwrap_or(Commit {
                    id: id.to_string(),
                    parent: None,
                    record: Recorded::Unreadable("not a commit".into()),
                }),
            Object::TooLarge { size } => Commit {
                id: id.to_string(),
                parent: None,
                record: Recorded::Unreadable(format!("a commit of {size} bytes")),
            },
            _ => return Ok(None),
        };
        self.commits.insert(id.to_string(), commit.clone());
        Ok(Some(commit))
    }

    /// Whether `old` is `new` or one of its first parents at most `steps` commits back (then
    /// the ref only moved on from `old`); `false` says only that this walk did not find it.
    pub fn moved_on_from(
        &mut self,
        dir: &Path,
        new: &str,
        old: &str,
        steps: usize,
    ) -> Result<bool, String> {
        let mut at = new.to_string();
        for _ in 0..=steps {
            if at == old {
                return Ok(true);
            }
            match self.commit(dir, &at)?.and_then(|c| c.parent) {
                Some(parent) => at = parent,
                None => return Ok(false),
            }
        }
        Ok(false)
    }

    fn queue(
        &mut self,
        dir: &Path,
        machine: &str,
        commit: &str,
    ) -> Result<Result<Queue, String>, String> {
        let key = format!("{machine} {commit}");
        if let Some(q) = self.queues.get(&key) {
            return Ok(q.clone());
        }
        let name = format!("{commit}:{}", queue::QUEUE_FILE);
        let read = match self.objects(dir)?.get(&name, queue::MAX_QUEUE_BYTES)? {
            Object::Read { bytes, .. } => {
                queue::parse_queue(machine, &String::from_utf8_lossy(&bytes))
            }
            Object::TooLarge { size } => Err(format!(
                "{size} bytes, over the {} a queue may hold",
                queue::MAX_QUEUE_BYTES
            )),
            Object::Missing => Err(format!("no {} in its ref", queue::QUEUE_FILE)),
        };
        self.queues.insert(key, read.clone());
        Ok(read)
    }

    /// With keys, a queue is read only signed by its machine (core's `proof::check_marks`, the
    /// rule for every machine's own ref): the queue commits not read yet are checked in this
    /// process (`proof::signature_in`), and one that is not its machine's is kept as unreadable, saying why — else anyone
    /// who can push could put operations in another machine's name for an honest machine to
    /// make and sign.
    ///
    /// Only a queue holding an operation the next commit may decide (its base in `window`, as
    /// `queue::eligible` requires) is checked — the others' operations are never made — and
    /// each queue commit once per leader.
    fn check_queues(
        &mut self,
        dir: &Path,
        refs: &[(String, String)],
        me: &str,
        keys: &super::proof::Keys,
        window: &BTreeSet<&str>,
    ) -> Result<(), String> {
        let mut new: Vec<&(String, String)> = Vec::new();
        for pair in (refs.iter())
            .filter(|(m, _)| m != me && queue::machine_ok(m))
            .take(queue::MAX_QUEUES)
        {
            let key = format!("{} {}", pair.0, pair.1);
            if self.verified.contains(&key) {
                continue;
            }
            let live = match self.queue(dir, &pair.0, &pair.1)? {
                Ok(q) => q.ops.iter().any(|op| window.contains(op.base.as_str())),
                Err(_) => false,
            };
            if live {
                new.push(pair);
            }
        }
        for (machine, commit) in new {
            let objects = self.objects(dir)?;
            let signature = super::proof::signature_in(dir, objects, keys, commit, machine)?;
            let key = format!("{machine} {commit}");
            match rail_core::change::proof::check_marks(&signature, machine, &keys.signers) {
                Ok(()) => {
                    self.verified.insert(key);
                }
                Err(why) => {
                    self.queues.insert(key, Err(format!("not read: {why}")));
                }
            }
        }
        Ok(())
    }

    /// The text of the blob `name` (`<commit>:<path>`), when it is there and at most `max`
    /// bytes (longer, or unreadable: `None`).
    pub fn text(&mut self, dir: &Path, name: &str, max: usize) -> Option<String> {
        match self.objects(dir).ok()?.get(name, max).ok()? {
            Object::Read { bytes, .. } => String::from_utf8(bytes).ok(),
            _ => None,
        }
    }

    /// The chain from `tip` back over the window and as far as the oldest of `bases` (at most
    /// [`queue::CHAIN_DEPTH`] commits), and the queues of `refs` (machine, commit) other than
    /// `me`'s.
    pub fn view(
        &mut self,
        dir: &Path,
        tip: Option<&str>,
        refs: &[(String, String)],
        me: &str,
        bases: &BTreeSet<String>,
        keys: Option<&super::proof::Keys>,
    ) -> Result<View, String> {
        let mut view = View::default();
        let mut next = tip.map(str::to_string);
        let mut missing: BTreeSet<&str> = bases.iter().map(String::as_str).collect();
        while let Some(id) = next.take() {
            let Some(commit) = self.commit(dir, &id)? else {
                break;
            };
            missing.remove(id.as_str());
            let more = !missing.is_empty() || view.chain.len() + 1 < queue::WINDOW;
            if more && view.chain.len() + 1 < queue::CHAIN_DEPTH {
                next = commit.parent.clone();
            }
            view.chain.push(commit);
        }
        if let Some(keys) = keys {
            let window: BTreeSet<&str> = (view.chain.iter().take(queue::WINDOW))
                .map(|c| c.id.as_str())
                .collect();
            self.check_queues(dir, refs, me, keys, &window)?;
        }
        let mut read = 0;
        for (machine, commit) in refs {
            if machine == me || !queue::machine_ok(machine) {
                continue;
            }
            if read == queue::MAX_QUEUES {
                view.skipped.push(format!(
                    "queues past the first {} (from {machine} on)",
                    queue::MAX_QUEUES
                ));
                break;
            }
            read += 1;
            match self.queue(dir, machine, commit)? {
                Ok(q) => {
                    view.skipped
                        .extend(q.dropped.iter().map(|d| format!("{machine}: {d}")));
                    view.queues.push(q);
                }
                Err(why) => view.skipped.push(format!("{machine}: {why}")),
            }
        }
        // What is no longer a ref's is forgotten (a leader of many rounds keeps only the live).
        if self.queues.len() > refs.len() * 2 + 64 {
            let live: BTreeSet<String> = refs.iter().map(|(m, c)| format!("{m} {c}")).collect();
            self.queues.retain(|k, _| live.contains(k));
            self.verified.retain(|k| live.contains(k));
        }
        if self.commits.len() > 4 * queue::CHAIN_DEPTH {
            self.commits.clear();
        }
        Ok(view)
    }
}
