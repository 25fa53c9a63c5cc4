//! Verifying after the tool: what a tool call changed in another live session's claimed paths,
//! judged from a snapshot the host took before it, and what to put back.
//!
//! Before a tool call runs (and only when it is allowed), the host walks the directories that
//! hold other live sessions' claimed paths ([`watched`], [`roots`]) in the checkout where the
//! agent works and keeps a [`PreToolSnapshot`]: each file's [`Stat`] (git's index compares the same
//! data, [`crate::formats::gitindex::clean`]) and how to get its content back
//! ([`Prior`]: its bytes for a file changed or untracked, the index's blob for one git's index
//! says is unchanged, nothing past the byte cap). After the call it walks the same directories again
//! and [`verdict`] says, per file in another live session's paths that changed, what to do: put
//! its prior content back, remove a file the snapshot proves did not exist, or only report it.
//! Never a file of the acting session's own claims, never one whose owner's claim no longer
//! holds (stale, dead owner), never the rail's own files. The text of a snapshot is this
//! module's ([`render`], [`parse`]): length-prefixed, so any bytes and any file name survive.

use crate::formats::gitindex::Stat;
use crate::model::Evaluation;
use crate::text::glob;

/// A path pattern another session holds, with who holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Watched {
    pub pattern: String,
    pub session: String,
    pub task: Option<String>,
}

/// The patterns of every claim that holds (live or expiring) and that `session` does not act
/// for ([`crate::text::ident::acts_for`]).
pub fn watched(eval: &Evaluation, session: &str) -> Vec<Watched> {
    eval.claims
        .iter()
        .filter(|c| !eval.acts_for(session, c) && c.state().holds())
        .flat_map(|c| {
            c.paths.iter().map(|p| Watched {
                pattern: p.clone(),
                session: c.session.clone(),
                task: c.task.clone(),
            })
        })
        .collect()
}

/// The directories to walk for `watched` (repo-relative; `""` is the whole checkout): each
/// pattern's literal prefix, a file's parent, each once, none inside another.
pub fn roots(watched: &[Watched]) -> Vec<String> {
    let mut dirs: Vec<String> = watched
        .iter()
        .map(|w| {
            let prefix = glob::literal_prefix(&w.pattern);
            if glob::is_literal(&w.pattern) && !glob::names_directory(&w.pattern) {
                // A file: its parent (the file may be created, or a sibling renamed onto it).
                prefix.rsplit_once('/').map(|(d, _)| d).unwrap_or("")
            } else {
                prefix
            }
            .trim_end_matches('/')
            .to_string()
        })
        .collect();
    crate::text::sort::sort_by(&mut dirs, |a, b| a.len().cmp(&b.len()).then(a.cmp(b)));
    let mut out: Vec<String> = Vec::new();
    for d in dirs {
        let inside = out
            .iter()
            .any(|o| o.is_empty() || d == *o || d.starts_with(&format!("{o}/")));
        if !inside {
            out.push(d);
        }
    }
    out
}

/// How a file's content before the call can be had again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Prior {
    /// Kept in the snapshot (git called it changed or untracked).
    Bytes(Vec<u8>),
    /// Tracked and unchanged since git's index recorded it: the index's blob (its object id).
    Blob(String),
    /// Not kept (past the snapshot's byte cap, a link, or unreadable): a change is reported only.
    Lost(String),
}

/// One file of a watched path as it was before the call: its stat and how to get it back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WatchedFile {
    pub path: String,
    pub stat: Stat,
    pub prior: Prior,
}

/// The state of other sessions' paths before a tool call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreToolSnapshot {
    /// The call it was taken for (the agent's tool-use id), when the payload has one.
    pub call: Option<String>,
    /// The directories walked.
    pub roots: Vec<String>,
    /// Every file found there was listed: a file found after the call and not listed did not
    /// exist before it.
    pub complete: bool,
    pub entries: Vec<WatchedFile>,
}

/// At most this many bytes of content are kept in one snapshot; past it a file's change is
/// reported, not put back.
pub const MAX_KEPT_BYTES: u64 = 1 << 20;
/// At most this many files are listed in one snapshot; past it the walk stops, and new files are
/// reported rather than removed.
pub const MAX_FILES: usize = 20_000;
/// Above this many tracked files, the before-and-after check is skipped (prediction and the
/// pre-commit check remain): the walk and `git status` would pass the hook's budget
/// (bench/README.md, *after-tool*).
pub const MAX_TRACKED: u32 = 50_000;

/// A snapshot whose after-tool call has not come this long after it was taken never will (the
/// call was denied by another hook, the agent died, a failed call went to an event Rail was not
/// given): the next snapshot taken removes it, so the folder does not grow without bound. Far
/// past any tool call's time limit (Claude Code's longest Bash call is 10 minutes).
pub const SNAPSHOT_TTL_SECS: i64 = 24 * 3600;

/// Whether a snapshot taken `age_secs` ago is left over (see [`SNAPSHOT_TTL_SECS`]).
pub fn left_over(age_secs: i64) -> bool {
    age_secs > SNAPSHOT_TTL_SECS
}

/// Whether a repository of `tracked` files is checked after each tool call (`limit`:
/// [`MAX_TRACKED`] unless the host was told another).
pub fn fits(tracked: u32, limit: u32) -> bool {
    tracked <= limit
}

/// What `rail doctor` says of a repository too large for the check: its problem and fix.
pub fn too_large(tracked: u32, limit: u32) -> (String, String) {
    (
        format!(
            "{tracked} tracked files, above the {limit} up to which Rail checks after each tool call what it changed: here a write by a program the hook cannot predict (`python3 -c`, a project script) is caught only by the pre-commit check"
        ),
        "keep other sessions' claims narrow and rely on `rail check --staged` (the pre-commit hook); RAIL_AFTER_MAX_TRACKED raises the limit, at the cost of each tool call's latency (bench/after_tool.py)".into(),
    )
}

/// What to do with one changed file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fix {
    /// Write this content back (the file changed or was removed).
    Write(Vec<u8>, bool),
    /// Write this git blob (its object id) back.
    WriteBlob(String, bool),
    /// Remove it: it did not exist before the call.
    Remove,
    /// Leave it: Rail cannot put it back exactly (the reason).
    Report(String),
}

/// A file in another live session's paths that the tool call changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub path: String,
    pub session: String,
    pub task: Option<String>,
    pub pattern: String,
    pub fix: Fix,
}

/// The verdict: which files in other live sessions' paths (as the claims stand after the call)
/// changed between `before` and `after` (the same roots walked again: each file with its stat),
/// and what to put back. `rail_here`: the checkout holds the rail (its own files are nobody's).
pub fn verdict(
    before: &PreToolSnapshot,
    after: &[(String, Stat)],
    eval: &Evaluation,
    session: &str,
    rail_here: bool,
) -> Vec<Violation> {
    let watched = watched(eval, session);
    let own: Vec<&str> = eval
        .claims
        .iter()
        .filter(|c| eval.acts_for(session, c))
        .flat_map(|c| c.paths.iter().map(String::as_str))
        .collect();
    let owner = |path: &str| -> Option<&Watched> {
        if rail_here && crate::formats::rail_files::is_rail_file(path) {
            return None;
        }
        if own.iter().any(|p| glob::covers(p, path)) {
            return None;
        }
        watched.iter().find(|w| glob::covers(&w.pattern, path))
    };
    let mut out = Vec::new();
    let mut push = |path: &str, fix: Fix| {
        if let Some(w) = owner(path) {
            out.push(Violation {
                path: path.to_string(),
                session: w.session.clone(),
                task: w.task.clone(),
                pattern: w.pattern.clone(),
                fix,
            });
        }
    };
    let back = |e: &WatchedFile| match &e.prior {
        _ if e.stat.link => Fix::Report("a symbolic link, whose target Rail does not keep".into()),
        Prior::Bytes(b) => Fix::Write(b.clone(), e.stat.exec),
        Prior::Blob(oid) => Fix::WriteBlob(oid.clone(), e.stat.exec),
        Prior::Lost(why) => Fix::Report(why.clone()),
    };
    let mut now = std::collections::BTreeMap::new();
    for (p, st) in after {
        now.insert(p.as_str(), st);
    }
    let mut was = std::collections::BTreeSet::new();
    for e in &before.entries {
        was.insert(e.path.as_str());
    }
    for e in &before.entries {
        match now.get(e.path.as_str()).map(|st| (&e.path, *st)) {
            Some((_, now)) if *now == e.stat => {}
            _ => push(&e.path, back(e)),
        }
    }
    let prefixes: Vec<String> = before.roots.iter().map(|r| format!("{r}/")).collect();
    for (path, stat) in after {
        if was.contains(path.as_str()) {
            continue;
        }
        let walked = before.roots.iter().any(String::is_empty)
            || prefixes.iter().any(|r| path.starts_with(r.as_str()));
        let fix = if stat.link {
            Fix::Report("a new symbolic link".into())
        } else if before.complete && walked {
            Fix::Remove
        } else {
            Fix::Report("Rail cannot tell that it did not exist before".into())
        };
        push(path, fix);
    }
    out
}

/// `violations` with the files their holder's own agent wrote while the call ran left as they
/// are (`writes`: each path a session's tool call was writing then, or recorded as written since
/// the snapshot, with that session): a holder writing its own claimed file is no bypass, and
/// putting it back would undo its work (found by bench/collisions: a `git add -A` call's check
/// put back the holder's write made meanwhile). Reported, never dropped: the notes are files any
/// agent can write, so a forged one leaves a bypass in place but never hides it.
pub fn holders_writes_left(
    violations: Vec<Violation>,
    writes: &[(String, String)],
) -> Vec<Violation> {
    violations
        .into_iter()
        .map(|mut v| {
            let by = writes.iter().find(|(path, by)| {
                *path == v.path
                    && (crate::text::ident::acts_for(by, &v.session)
                        || crate::text::ident::acts_for(&v.session, by))
            });
            if let Some((_, by)) = by {
                v.fix = Fix::Report(format!(
                    "{by}, whose claim it is, was writing it meanwhile: left as it is"
                ));
            }
            v
        })
        .collect()
}

/// What happened to one violation, as the host did it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Done {
    PutBack,
    Removed,
    /// Left as the tool left it, with why.
    Left(String),
}

/// What the agent is told after the call: every file written into another session's paths and
/// what Rail did about it.
pub fn message(done: &[(Violation, Done)]) -> String {
    let lines: Vec<String> = done
        .iter()
        .map(|(v, d)| {
            let task = v
                .task
                .as_deref()
                .map_or("no task".to_string(), |t| format!("task {t}"));
            let what = match d {
                Done::PutBack => "its previous content is back".to_string(),
                Done::Removed => "it did not exist before the call and was removed".to_string(),
                Done::Left(why) => format!("left as it is ({why}): tell {}", v.session),
            };
            format!(
                "{} is claimed by {} ({task}, via `{}`): {what}",
                v.path, v.session, v.pattern
            )
        })
        .collect();
    format!(
        "Rail: this tool call wrote into another session's claimed paths: {}. Do not write there, by any program: work on something else, or ask {} to release it",
        lines.join("; "),
        done.first().map(|(v, _)| v.session.as_str()).unwrap_or("its owner")
    )
}

fn put_text(out: &mut Vec<u8>, s: &[u8]) {
    use std::io::Write;
    // Writing into a Vec cannot fail.
    let _ = write!(out, "{}:", s.len());
    out.extend_from_slice(s);
    out.push(b'\n');
}

const MAGIC: &[u8] = b"rail-after 1\n";

/// The snapshot's bytes.
pub fn render(s: &PreToolSnapshot) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    put_text(&mut out, s.call.as_deref().unwrap_or("").as_bytes());
    put_text(&mut out, if s.complete { b"1" } else { b"0" });
    put_text(&mut out, s.roots.len().to_string().as_bytes());
    for r in &s.roots {
        put_text(&mut out, r.as_bytes());
    }
    let mut stat = String::new();
    for e in &s.entries {
        put_text(&mut out, e.path.as_bytes());
        let st = e.stat;
        stat.clear();
        {
            use std::fmt::Write;
            let _ = write!(
                stat,
                "{} {} {} {} {} {}",
                st.size, st.mtime_ns, st.ctime_ns, st.ino, st.exec as u8, st.link as u8
            );
        }
        put_text(&mut out, stat.as_bytes());
        match &e.prior {
            Prior::Bytes(b) => {
                put_text(&mut out, b"b");
                put_text(&mut out, b);
            }
            Prior::Blob(oid) => {
                put_text(&mut out, b"g");
                put_text(&mut out, oid.as_bytes());
            }
            Prior::Lost(why) => {
                put_text(&mut out, b"l");
                put_text(&mut out, why.as_bytes());
            }
        }
    }
    out
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn field(&mut self) -> Option<&'a [u8]> {
        let colon = self.0.iter().position(|b| *b == b':')?;
        let len: usize = std::str::from_utf8(&self.0[..colon]).ok()?.parse().ok()?;
        let start = colon + 1;
        let end = start.checked_add(len)?;
        if self.0.get(end) != Some(&b'\n') {
            return None;
        }
        let f = &self.0[start..end];
        self.0 = &self.0[end + 1..];
        Some(f)
    }
    fn text(&mut self) -> Option<String> {
        String::from_utf8(self.field()?.to_vec()).ok()
    }
}

/// A snapshot back from its bytes; `None` for anything else (a snapshot Rail cannot read is no
/// snapshot: nothing is put back).
pub fn parse(bytes: &[u8]) -> Option<PreToolSnapshot> {
    let mut r = Reader(bytes.strip_prefix(MAGIC)?);
    let opt = |s: String| (!s.is_empty()).then_some(s);
    let call = opt(r.text()?);
    let complete = r.field()? == b"1";
    let n: usize = r.text()?.parse().ok()?;
    let mut roots = Vec::new();
    for _ in 0..n.min(MAX_FILES) {
        roots.push(r.text()?);
    }
    let mut entries = Vec::new();
    while !r.0.is_empty() {
        let path = r.text()?;
        let stat = r.text()?;
        let f: Vec<&str> = stat.split(' ').collect();
        if f.len() != 6 {
            return None;
        }
        let stat = Stat {
            size: f[0].parse().ok()?,
            mtime_ns: f[1].parse().ok()?,
            ctime_ns: f[2].parse().ok()?,
            ino: f[3].parse().ok()?,
            exec: f[4] == "1",
            link: f[5] == "1",
        };
        let prior = match r.field()? {
            b"b" => Prior::Bytes(r.field()?.to_vec()),
            b"g" => Prior::Blob(r.text()?),
            b"l" => Prior::Lost(r.text()?),
            _ => return None,
        };
        entries.push(WatchedFile { path, stat, prior });
    }
    Some(PreToolSnapshot {
        call,
        roots,
        complete,
        entries,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(claims: &str) -> Evaluation {
        let texts = crate::model::input::RailTexts {
            claims: Some(crate::model::input::FileText {
                path: "claims.md".into(),
                text: format!("# Claims\n\n{claims}"),
                modified: None,
            }),
            ..Default::default()
        };
        let facts = crate::model::input::Facts::at("2026-12-01T00:10:00Z".parse().unwrap());
        crate::model::Rail::load(&texts).evaluate(&facts)
    }

    fn st(size: u64, ctime: i64) -> Stat {
        Stat {
            size,
            mtime_ns: ctime,
            ctime_ns: ctime,
            ino: 7,
            exec: false,
            link: false,
        }
    }

    const CLAIMS: &str = "own | alpha | 2026-12-01T00:00:00Z | paths: owned/**\n\
        mine | beta | 2026-12-01T00:00:00Z | paths: mine/**\n\
        old | gamma | 2026-11-01T00:00:00Z | lease: 1h | paths: old/**\n";

    #[test]
    fn only_other_live_sessions_paths_are_watched() {
        let e = eval(CLAIMS);
        let w = watched(&e, "beta");
        assert_eq!(
            w.iter().map(|w| w.pattern.as_str()).collect::<Vec<_>>(),
            ["owned/**"]
        );
        let w2 = vec![
            Watched {
                pattern: "a/b/**".into(),
                session: "s".into(),
                task: None,
            },
            Watched {
                pattern: "a/**".into(),
                session: "s".into(),
                task: None,
            },
            Watched {
                pattern: "c/file.txt".into(),
                session: "s".into(),
                task: None,
            },
        ];
        assert_eq!(roots(&w2), ["a", "c"]);
    }

    #[test]
    fn a_changed_file_is_put_back_a_new_one_removed_own_and_stale_paths_left() {
        let e = eval(CLAIMS);
        let before = PreToolSnapshot {
            call: Some("t1".into()),
            roots: vec!["owned".into(), "mine".into(), "old".into()],
            complete: true,
            entries: vec![
                WatchedFile {
                    path: "owned/a.txt".into(),
                    stat: st(5, 1),
                    prior: Prior::Bytes(b"owner".to_vec()),
                },
                WatchedFile {
                    path: "owned/clean.txt".into(),
                    stat: st(3, 1),
                    prior: Prior::Blob("abc".into()),
                },
                WatchedFile {
                    path: "owned/big.bin".into(),
                    stat: st(9, 1),
                    prior: Prior::Lost("past the snapshot's 1 MiB".into()),
                },
                WatchedFile {
                    path: "owned/same.txt".into(),
                    stat: st(3, 1),
                    prior: Prior::Blob("abc".into()),
                },
                WatchedFile {
                    path: "mine/x".into(),
                    stat: st(1, 1),
                    prior: Prior::Blob("abc".into()),
                },
                WatchedFile {
                    path: "old/y".into(),
                    stat: st(1, 1),
                    prior: Prior::Blob("abc".into()),
                },
            ],
        };
        let after = vec![
            ("owned/a.txt".to_string(), st(1, 2)),
            ("owned/big.bin".to_string(), st(1, 2)),
            ("owned/same.txt".to_string(), st(3, 1)),
            ("owned/new.txt".to_string(), st(1, 2)),
            ("mine/x".to_string(), st(2, 2)),
            ("old/y".to_string(), st(2, 2)),
        ];
        let v = verdict(&before, &after, &e, "beta", false);
        let got: Vec<(&str, &Fix)> = v.iter().map(|v| (v.path.as_str(), &v.fix)).collect();
        assert_eq!(
            got,
            [
                ("owned/a.txt", &Fix::Write(b"owner".to_vec(), false)),
                ("owned/clean.txt", &Fix::WriteBlob("abc".into(), false)),
                (
                    "owned/big.bin",
                    &Fix::Report("past the snapshot's 1 MiB".into())
                ),
                ("owned/new.txt", &Fix::Remove),
            ]
        );
        assert!(v.iter().all(|v| v.session == "alpha"));
        // An incomplete walk proves nothing about new files.
        let partial = PreToolSnapshot {
            complete: false,
            ..before.clone()
        };
        let v = verdict(&partial, &after, &e, "beta", false);
        assert!(matches!(
            v.iter().find(|v| v.path == "owned/new.txt").unwrap().fix,
            Fix::Report(_)
        ));
        // The owner's own changes are never undone.
        assert!(verdict(&before, &after, &e, "alpha", false)
            .iter()
            .all(|v| !v.path.starts_with("owned/")));
    }

    #[test]
    fn the_rails_own_files_are_nobodys() {
        let e = eval("all | alpha | 2026-12-01T00:00:00Z | paths: **\n");
        let before = PreToolSnapshot {
            call: None,
            roots: vec!["".into()],
            complete: true,
            entries: vec![],
        };
        let after = vec![
            ("claims.log".to_string(), st(1, 1)),
            ("src/x".to_string(), st(1, 1)),
        ];
        let v = verdict(&before, &after, &e, "beta", true);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].path, "src/x");
    }

    #[test]
    fn snapshots_read_back_byte_for_byte() {
        let s = PreToolSnapshot {
            call: Some("toolu_1".into()),
            roots: vec!["".into(), "a b".into()],
            complete: false,
            entries: vec![
                WatchedFile {
                    path: "a b/\n:x".into(),
                    stat: st(3, -4),
                    prior: Prior::Bytes(vec![0, b'\n', 255]),
                },
                WatchedFile {
                    path: "c".into(),
                    stat: Stat {
                        exec: true,
                        link: true,
                        ..st(0, 1)
                    },
                    prior: Prior::Lost("why: not\n".into()),
                },
                WatchedFile {
                    path: "d".into(),
                    stat: st(1, 1),
                    prior: Prior::Blob("abc".into()),
                },
            ],
        };
        assert_eq!(parse(&render(&s)), Some(s.clone()));
        let bytes = render(&s);
        for cut in 0..bytes.len() {
            // Any prefix reads as a snapshot, or as nothing; never a panic.
            let _ = parse(&bytes[..cut]);
        }
        assert_eq!(parse(b"nope"), None);
    }
}
