//! What task ids, session names and resource names may contain.
//!
//! Task ids name a line in claims.md and appear in `grep "^TASK |"`, so they are one token with
//! no path separators. Session names default to git branch names, so they may contain `/`.
//! Both refuse whitespace, pipes, control characters and `..`.

pub const MAX_NAME_LEN: usize = 128;

/// Why a name was refused, in words fit for an error message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameError(pub String);

impl std::fmt::Display for NameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NameError {}

/// Whether `name` has `pair` somewhere: a plain byte scan. `str::contains` with a two-byte
/// needle sets up the two-way searcher, which for names this short costs more than the scan
/// (several times more in wasm, where every claim line is checked on each board).
fn has_pair(name: &str, pair: &[u8; 2]) -> bool {
    name.as_bytes().windows(2).any(|w| w == pair)
}

fn common(kind: &str, name: &str) -> Result<(), NameError> {
    if name.is_empty() {
        return Err(NameError(format!("{kind} is empty")));
    }
    if name.len() > MAX_NAME_LEN {
        return Err(NameError(format!(
            "{kind} is longer than {MAX_NAME_LEN} bytes"
        )));
    }
    if let Some(c) = name.chars().find(|c| c.is_control()) {
        return Err(NameError(format!(
            "{kind} contains a control character (U+{:04X})",
            c as u32
        )));
    }
    if name.chars().any(char::is_whitespace) {
        return Err(NameError(format!("{kind} `{name}` contains whitespace")));
    }
    if name.contains('|') {
        return Err(NameError(format!(
            "{kind} `{name}` contains `|`, the field separator"
        )));
    }
    if has_pair(name, b"..") {
        return Err(NameError(format!("{kind} `{name}` contains `..`")));
    }
    let first = name.chars().next().unwrap_or(' ');
    if !first.is_alphanumeric() {
        return Err(NameError(format!(
            "{kind} `{name}` must start with a letter or digit"
        )));
    }
    Ok(())
}

/// A task id: starts with a letter or digit; then letters, digits and `. _ - + # : @`.
pub fn validate_task(task: &str) -> Result<(), NameError> {
    common("task id", task)?;
    if task.contains('/') || task.contains('\\') {
        return Err(NameError(format!(
            "task id `{task}` contains a path separator"
        )));
    }
    if let Some(c) = task
        .chars()
        .find(|c| !(c.is_alphanumeric() || matches!(c, '.' | '_' | '-' | '+' | '#' | ':' | '@')))
    {
        return Err(NameError(format!("task id `{task}` contains `{c}`")));
    }
    Ok(())
}

/// Who acts in a checkout, decided once for every host (the CLI's commands, its hooks and MCP
/// server): a session, or no session and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Acting {
    Session(String),
    Unnamed(Unnamed),
}

/// [`Acting`] as data for the JS hosts: the session, or why there is none.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ActingView {
    pub session: Option<String>,
    pub why: Option<String>,
}

impl Acting {
    pub fn view(&self) -> ActingView {
        match self {
            Acting::Session(s) => ActingView {
                session: Some(s.clone()),
                why: None,
            },
            Acting::Unnamed(u) => ActingView {
                session: None,
                why: Some(u.message()),
            },
        }
    }
}

/// Why a checkout acts under no session name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unnamed {
    /// `--session` / `RAIL_SESSION` names something that cannot be a session.
    BadExplicit(NameError),
    /// No explicit name, and HEAD is detached (or there is no checkout).
    NoBranch,
    /// No explicit name, and the branch cannot be a session name (`fix$(id)`).
    BadBranch(NameError),
}

impl Unnamed {
    pub fn message(&self) -> String {
        match self {
            Unnamed::BadExplicit(e) => format!("RAIL_SESSION: {}", e.0),
            Unnamed::NoBranch => "HEAD is detached".into(),
            Unnamed::BadBranch(e) => format!("the branch cannot be a session name: {}", e.0),
        }
    }
}

/// The acting session: the name given explicitly (`--session`, `RAIL_SESSION`, an editor
/// setting) wins; else the checkout's branch, and under it the agent's own session when an
/// agent acts ([`AgentSelf`]: its hook payload or the variables it gives its children). Either
/// must be a valid session name.
pub fn acting(explicit: Option<&str>, branch: Option<&str>, agent: Option<AgentSelf>) -> Acting {
    let (name, bad): (&str, fn(NameError) -> Unnamed) = match (explicit, branch) {
        (Some(s), _) => (s, Unnamed::BadExplicit),
        (None, Some(b)) => (b, Unnamed::BadBranch),
        (None, None) => return Acting::Unnamed(Unnamed::NoBranch),
    };
    if let Err(e) = validate_session(name) {
        return Acting::Unnamed(bad(e));
    }
    match (explicit, agent) {
        (None, Some(agent)) => Acting::Session(agent.session_under(name)),
        _ => Acting::Session(name.to_string()),
    }
}

/// Separates a branch's session from the session of an agent working on that branch
/// (`main~claude-9fd28a1b`), and an agent's from its subagent's
/// (`main~claude-9fd28a1b~sub-2c41aa07`). Git refuses `~` in a branch name, so no branch's
/// session ever looks like an agent's.
pub const AGENT_SEP: char = '~';

/// How many hops below its branch an agent's session may be: the agent, its subagent and that
/// one's.
pub const MAX_AGENT_DEPTH: usize = 3;

/// The longest short id a hop keeps of its agent's session id.
const SHORT_ID: usize = 8;

/// An agent acting on its own: which agent (`claude`), the session id it reports (in its hook
/// payload, or in the variable it gives its child processes), and the id of the subagent or
/// teammate making the call, where the payload names one. Ids are foreign text: only their
/// ASCII letters and digits are kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgentSelf<'a> {
    pub agent: &'a str,
    pub id: &'a str,
    pub sub: Option<&'a str>,
}

impl AgentSelf<'_> {
    /// The agent's session under the branch's session `base`, when its id has anything to keep
    /// and the name fits; else `base` itself (the agent then acts as its branch does, as every
    /// agent did before it had a session of its own).
    pub fn session_under(self, base: &str) -> String {
        let Some(hop) = agent_hop(self.agent, self.id) else {
            return base.to_string();
        };
        let mut name = format!("{base}{hop}");
        if let Some(sub) = self.sub.and_then(|s| agent_hop("sub", s)) {
            name.push_str(&sub);
        }
        if validate_session(&name).is_ok() {
            name
        } else {
            base.to_string()
        }
    }
}

/// One hop of an agent's session: `~claude-9fd28a1b`: the agent's name (letters only), then
/// the last [`SHORT_ID`] letters and digits of its id (lowercase: the last, since some ids
/// start with a timestamp — two Codex sessions begun in the same minute share their first eight).
fn agent_hop(agent: &str, id: &str) -> Option<String> {
    let agent: String = agent
        .chars()
        .filter(char::is_ascii_alphabetic)
        .map(|c| c.to_ascii_lowercase())
        .take(16)
        .collect();
    let kept: Vec<char> = id
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    if agent.is_empty() || kept.is_empty() {
        return None;
    }
    let short: String = kept[kept.len().saturating_sub(SHORT_ID)..].iter().collect();
    Some(format!("{AGENT_SEP}{agent}-{short}"))
}

/// The session of the branch a session works on: itself, or the part before its first
/// [`AGENT_SEP`] for an agent's session. Git refs, stations and commit activity use this.
pub fn branch_session(session: &str) -> &str {
    session
        .split_once(AGENT_SEP)
        .map_or(session, |(base, _)| base)
}

/// The session one hop up: an agent's branch session, a subagent's agent; `None` for a branch's.
pub fn parent_session(session: &str) -> Option<&str> {
    session.rsplit_once(AGENT_SEP).map(|(parent, _)| parent)
}

/// The agent a session's first hop below its branch names (`main~claude-9fd28a1b~sub-2c41aa07`:
/// `claude`); `None` for a branch's session, or a hop that names no agent.
pub fn agent_of_session(session: &str) -> Option<&str> {
    let (_, below) = session.split_once(AGENT_SEP)?;
    let hop = below.split(AGENT_SEP).next().unwrap_or(below);
    let (agent, _) = hop.split_once('-')?;
    (!agent.is_empty()).then_some(agent)
}

/// The agent's own session a session belongs to: itself or, for a subagent's, the session of
/// the agent that runs it (`main~claude-9fd28a1b~sub-2c41aa07`: `main~claude-9fd28a1b`); `None`
/// for a branch's session.
pub fn agent_top(session: &str) -> Option<&str> {
    let base = branch_session(session).len();
    let rest = &session[base..];
    let rest = rest.strip_prefix(AGENT_SEP)?;
    let end = rest.find(AGENT_SEP).map_or(session.len(), |i| base + 1 + i);
    Some(&session[..end])
}

/// Whether `ancestor` is `session`'s branch session or an agent above it (not itself).
pub fn is_above(ancestor: &str, session: &str) -> bool {
    session.len() > ancestor.len()
        && session.starts_with(ancestor)
        && session[ancestor.len()..].starts_with(AGENT_SEP)
}

/// Whether `actor` may act on what `holder` holds (edit its paths, renew, release, finish its
/// task) as on its own: the same session, one above it (an agent works on its branch's claims,
/// a subagent on its agent's), or one below it (a branch's session answers for its agents).
/// Siblings — two agents on one branch — are each other's others.
pub fn acts_for(actor: &str, holder: &str) -> bool {
    actor == holder || is_above(holder, actor) || is_above(actor, holder)
}

/// A machine id on a shared rail (`.git/rail/exchange/machine`, a claim's `machine:` field, a
/// queue ref's last segment): 1 to 64 bytes of lowercase ASCII letters, digits and `-`, starting
/// with a letter or digit.
pub fn validate_machine(id: &str) -> Result<(), NameError> {
    let ok = (1..=64).contains(&id.len())
        && id.as_bytes()[0].is_ascii_alphanumeric()
        && (id.bytes()).all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(NameError(format!(
            "machine id `{id}` is not 1 to 64 lowercase letters, digits and `-`"
        )))
    }
}

/// Whether a claim recorded as made from machine `owner` may be acted on from machine `here`
/// as its session's own (issue 42): on a shared rail a session lives on one machine, so
/// `main` on machine B is not `main` on machine A, and an agent of B's `main` does not act
/// for A's. A claim that records no machine (a local rail, a line written by hand or by an
/// older Rail) is judged by its session alone, and so is every claim where the host does not
/// say which machine it is (`here` is `None`: a JS host showing a board; the CLI always says).
pub fn on_machine(owner: Option<&str>, here: Option<&str>) -> bool {
    match (owner, here) {
        (Some(owner), Some(here)) => owner == here,
        _ => true,
    }
}

/// A session name: like a git branch name. Starts with a letter or digit; then letters, digits
/// and `. _ - + @ /`; no empty `//` segment, no segment starting with `.`, no trailing `/` or
/// `.lock`. An agent's session adds up to [`MAX_AGENT_DEPTH`] hops of `~agent-id` (lowercase
/// letters, then letters and digits).
pub fn validate_session(session: &str) -> Result<(), NameError> {
    let mut hops = session.split(AGENT_SEP);
    let base = hops.next().unwrap_or("");
    if base.len() < session.len() {
        common("session name", session)?;
    }
    branch_like("session name", base)?;
    let mut depth = 0;
    for hop in hops {
        depth += 1;
        let ok = hop.split_once('-').is_some_and(|(agent, id)| {
            !agent.is_empty()
                && agent.bytes().all(|b| b.is_ascii_lowercase())
                && !id.is_empty()
                && id
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        });
        if !ok {
            return Err(NameError(format!(
                "session name `{session}`: after `{AGENT_SEP}` comes an agent and its id (`main~claude-9fd28a1b`)"
            )));
        }
    }
    if depth > MAX_AGENT_DEPTH {
        return Err(NameError(format!(
            "session name `{session}` is more than {MAX_AGENT_DEPTH} agents deep"
        )));
    }
    Ok(())
}

/// A git remote's name as Rail takes it from `git config rail.remote` or rail.yaml's `remote:`:
/// shaped as a branch name is (a letter or digit first; letters, digits and `. _ - + @ /`), so
/// never an option (`--upload-pack=…`), a URL (`ext::…`, `host:path`) or an absolute path.
/// Whether this clone has a remote of that name is the host's to find out.
pub fn validate_remote(remote: &str) -> Result<(), NameError> {
    branch_like("remote name", remote)
}

/// A name git could take as a branch's: what sessions and remotes share.
fn branch_like(kind: &str, name: &str) -> Result<(), NameError> {
    common(kind, name)?;
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_alphanumeric() || matches!(c, '.' | '_' | '-' | '+' | '@' | '/')))
    {
        return Err(NameError(format!("{kind} `{name}` contains `{c}`")));
    }
    if name.ends_with('/') || has_pair(name, b"//") {
        return Err(NameError(format!(
            "{kind} `{name}` has an empty path segment"
        )));
    }
    if name.split('/').any(|seg| seg.starts_with('.')) {
        return Err(NameError(format!(
            "{kind} `{name}` has a segment starting with `.`"
        )));
    }
    if name.ends_with(".lock") || name.ends_with('.') {
        return Err(NameError(format!(
            "{kind} `{name}` may not end with `.lock` or `.`"
        )));
    }
    Ok(())
}

/// A value Rail passes to git as an operand (a revision, a ref, a remote, a refspec, a
/// directory) that came from outside Rail: a user's `--base`, an agent's MCP argument, a rail
/// file, the remote. It may not look like an option — git parses some operands as options even
/// after them (`git diff --merge-base --output=F` empties F) — nor hold a control character. The
/// hosts put such values after `--end-of-options` too; this rule is what holds on every git.
pub fn validate_operand(value: &str) -> Result<(), NameError> {
    if value.starts_with('-') {
        return Err(NameError(format!(
            "`{}` would reach git as an option (it begins with `-`); a branch, commit or remote never does",
            shown(value)
        )));
    }
    if let Some(c) = value.chars().find(|c| c.is_control()) {
        return Err(NameError(format!(
            "`{}` contains a control character (U+{:04X})",
            shown(value),
            c as u32
        )));
    }
    Ok(())
}

/// At most 80 characters of `value`, control characters escaped: a refused value is named in a
/// message without carrying its payload along.
fn shown(value: &str) -> String {
    let mut out: String = value
        .chars()
        .take(80)
        .flat_map(char::escape_debug)
        .collect();
    if value.chars().nth(80).is_some() {
        out.push('…');
    }
    out
}

/// A resource: one token, `kind:name` by convention (`port:3000`, `checkout:test-lock`,
/// `simulator:iphone-15`). A `shared:` prefix marks a resource several sessions may hold at once.
pub fn validate_resource(resource: &str) -> Result<(), NameError> {
    if resource.is_empty() {
        return Err(NameError("resource is empty".into()));
    }
    if resource.len() > MAX_NAME_LEN {
        return Err(NameError(format!(
            "resource is longer than {MAX_NAME_LEN} bytes"
        )));
    }
    if let Some(c) = resource
        .chars()
        .find(|c| c.is_control() || c.is_whitespace() || matches!(c, '|' | ','))
    {
        return Err(NameError(format!(
            "resource `{resource}` contains {}",
            describe(c)
        )));
    }
    let name = resource.strip_prefix(SHARED_PREFIX).unwrap_or(resource);
    if name.is_empty() {
        return Err(NameError("resource after `shared:` is empty".into()));
    }
    Ok(())
}

/// Marks a resource that several live sessions may hold together.
pub const SHARED_PREFIX: &str = "shared:";

/// Splits `shared:port:3000` into (`port:3000`, true) and `port:3000` into (`port:3000`, false).
pub fn resource_key(resource: &str) -> (&str, bool) {
    match resource.strip_prefix(SHARED_PREFIX) {
        Some(rest) => (rest, true),
        None => (resource, false),
    }
}

fn describe(c: char) -> String {
    if c.is_whitespace() {
        "whitespace".into()
    } else if c.is_control() {
        format!("a control character (U+{:04X})", c as u32)
    } else {
        format!("`{c}`")
    }
}

/// The claim file of an owner: `claims/<owner>.yaml`, with `/` in the owner written as `%2F`
/// (session names never contain `%`, so the mapping is reversible).
pub fn claim_file_name(owner: &str) -> String {
    format!("{}.yaml", owner.replace('/', "%2F"))
}

/// The owner a claim file name stands for, if it is one (`feature%2Fx.yaml` → `feature/x`).
pub fn owner_from_file_name(file_name: &str) -> Option<String> {
    let stem = file_name
        .strip_suffix(".yaml")
        .or_else(|| file_name.strip_suffix(".yml"))?;
    Some(stem.replace("%2F", "/").replace("%2f", "/"))
}

/// The name among `names` closest to `name` when it is one slip away: at most two edits
/// (insert, delete, replace, or swap two neighbours) for names of eight characters or more, one
/// below (a short name is too easily near anything); the first such name, or `None`.
pub fn closest<'a>(name: &str, names: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let a: Vec<char> = name.chars().collect();
    let limit = if a.len() >= 8 { 2 } else { 1 };
    let mut best: Option<(usize, &str)> = None;
    for candidate in names {
        let b: Vec<char> = candidate.chars().collect();
        if candidate == name || a.len().abs_diff(b.len()) > limit {
            continue;
        }
        let d = edits(&a, &b);
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, candidate));
        }
    }
    best.map(|(_, n)| n)
}

/// The optimal-string-alignment distance of `a` and `b` (Levenshtein with neighbour swaps).
fn edits(a: &[char], b: &[char]) -> usize {
    let mut prev2: Vec<usize> = Vec::new();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut row = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            row[j] = (prev[j] + 1).min(row[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                row[j] = row[j].min(prev2[j - 2] + 1);
            }
        }
        prev2 = std::mem::replace(&mut prev, row);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_explicit_name_wins_then_the_branch_each_checked() {
        use super::{acting, Acting, Unnamed};
        assert_eq!(
            acting(Some("a"), Some("b"), None),
            Acting::Session("a".into())
        );
        assert_eq!(acting(None, Some("b"), None), Acting::Session("b".into()));
        assert_eq!(acting(None, None, None), Acting::Unnamed(Unnamed::NoBranch));
        let Acting::Unnamed(why) = acting(Some("a b"), Some("b"), None) else {
            panic!("a bad explicit name is not replaced by the branch")
        };
        assert!(why
            .message()
            .starts_with("RAIL_SESSION: session name `a b`"));
        let Acting::Unnamed(why) = acting(None, Some("fix$(id)"), None) else {
            panic!("a branch that cannot be a name acts unnamed")
        };
        assert!(why
            .message()
            .starts_with("the branch cannot be a session name"));
    }

    use super::*;

    const CLAUDE: AgentSelf = AgentSelf {
        agent: "claude",
        id: "4267e419-4b3b-421a-9fd6-f75489fd28a1",
        sub: None,
    };

    #[test]
    fn a_sessions_agent_and_its_top_are_read_from_its_hops() {
        assert_eq!(agent_of_session("main"), None);
        assert_eq!(agent_of_session("main~claude-89fd28a1"), Some("claude"));
        assert_eq!(
            agent_of_session("main~copilot-1234abcd~sub-2c41aa07"),
            Some("copilot")
        );
        assert_eq!(agent_of_session("main~nohyphen"), None);
        assert_eq!(agent_top("main"), None);
        assert_eq!(
            agent_top("main~claude-89fd28a1"),
            Some("main~claude-89fd28a1")
        );
        assert_eq!(
            agent_top("feat/x~codex-0a1b2c3d~sub-2c41aa07"),
            Some("feat/x~codex-0a1b2c3d")
        );
    }

    #[test]
    fn an_agent_acts_under_its_branch_unless_a_name_is_given() {
        assert_eq!(
            acting(None, Some("main"), Some(CLAUDE)),
            Acting::Session("main~claude-89fd28a1".into())
        );
        // A Codex id begins with its time: two sessions of one minute differ at the end.
        let codex = |id| AgentSelf {
            agent: "codex",
            id,
            sub: None,
        };
        assert_ne!(
            codex("01a249ca-861d-7ac0-bfa1-006ebdef1f22").session_under("main"),
            codex("01a249ca-9911-7ac0-bfa1-77aa0c3d9e01").session_under("main")
        );
        assert_eq!(
            acting(Some("alice"), Some("main"), Some(CLAUDE)),
            Acting::Session("alice".into()),
            "RAIL_SESSION wins over the agent"
        );
        let sub = AgentSelf {
            sub: Some("a1b2c3d4e5f6"),
            ..CLAUDE
        };
        assert_eq!(
            sub.session_under("fix/x"),
            "fix/x~claude-89fd28a1~sub-c3d4e5f6"
        );
        assert!(validate_session(&sub.session_under("fix/x")).is_ok());
    }

    #[test]
    fn a_hostile_or_empty_id_never_shapes_a_name() {
        for id in ["", "../..", "| |", "\u{1b}~", "---", "üï"] {
            let agent = AgentSelf { id, ..CLAUDE };
            assert_eq!(agent.session_under("main"), "main", "{id:?}");
        }
        let odd = AgentSelf {
            agent: "Cl4ude~x",
            id: "AB|C\n",
            sub: None,
        };
        assert_eq!(odd.session_under("main"), "main~cludex-abc");
        let escape = AgentSelf {
            id: "\u{1b}[2J | x",
            ..CLAUDE
        };
        assert_eq!(escape.session_under("main"), "main~claude-2jx");
        // Too long to fit: the agent acts as its branch.
        let long = "b".repeat(MAX_NAME_LEN - 4);
        assert_eq!(CLAUDE.session_under(&long), long);
    }

    #[test]
    fn an_agent_acts_for_its_branch_and_subagents_not_its_siblings() {
        let a = "main~claude-aaaa";
        let b = "main~claude-bbbb";
        let a_sub = "main~claude-aaaa~sub-1234";
        assert!(acts_for(a, "main"), "an agent works on its branch's claims");
        assert!(acts_for("main", a), "the branch answers for its agents");
        assert!(acts_for(a, a_sub) && acts_for(a_sub, a) && acts_for(a_sub, "main"));
        assert!(
            !acts_for(a, b) && !acts_for(b, a_sub),
            "siblings are others"
        );
        assert!(!acts_for("main", "main2~claude-aaaa"));
        assert!(!acts_for("mai", "main"));
        assert_eq!(branch_session(a_sub), "main");
        assert_eq!(parent_session(a_sub), Some(a));
        assert_eq!(parent_session("main"), None);
    }

    #[test]
    fn an_agent_hop_is_checked_like_the_rest_of_a_name() {
        for bad in [
            "main~",
            "main~claude",
            "main~Claude-1",
            "main~claude-",
            "main~claude-a.b",
            "~claude-1",
            "main~claude-1~x-1~y-1~z-1",
            "fix$(id)~claude-1",
        ] {
            assert!(validate_session(bad).is_err(), "{bad}");
        }
        assert!(validate_session("main~claude-1~x-1~y-1").is_ok());
    }

    #[test]
    fn a_name_one_slip_away_is_suggested() {
        let names = ["auth-refresh", "billing", "ui-dark-mode"];
        assert_eq!(closest("auth-refesh", names), Some("auth-refresh"));
        assert_eq!(closest("auth-rxyzesh", names), None, "three edits");
        assert_eq!(
            closest("auth-rfeersh", names),
            Some("auth-refresh"),
            "two swaps"
        );
        assert_eq!(closest("biling", names), Some("billing"));
        assert_eq!(closest("bilingg", names), None, "two edits on a short name");
        assert_eq!(
            closest("ui-drak-mode", names),
            Some("ui-dark-mode"),
            "a swap is one edit"
        );
        assert_eq!(
            closest("billing", names),
            None,
            "the name itself is no suggestion"
        );
        assert_eq!(closest("zz", names), None);
    }

    #[test]
    fn tasks() {
        for ok in [
            "auth-refresh",
            "JIRA-123",
            "gh#42",
            "v1.2_fix",
            "tâche",
            "a:b@c",
        ] {
            assert!(validate_task(ok).is_ok(), "{ok}");
        }
        for bad in [
            "", "../x", "a|b", "a/b", "a b", "-x", "#x", "a..b", "a\u{7}", "x\\y",
        ] {
            assert!(validate_task(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn sessions() {
        for ok in ["session-a", "feature/x", "alice@laptop", "claude.2"] {
            assert!(validate_session(ok).is_ok(), "{ok}");
        }
        for bad in [
            "", "a|b", "a b", "/x", "x/", "a//b", "a/.b", "a.lock", "a..b", "-x",
        ] {
            assert!(validate_session(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn resources() {
        assert!(validate_resource("port:3000").is_ok());
        assert_eq!(resource_key("shared:port:3000"), ("port:3000", true));
        assert!(validate_resource("shared:").is_err());
        assert!(validate_resource("a,b").is_err());
    }

    #[test]
    fn claim_file_names_round_trip() {
        assert_eq!(claim_file_name("feature/x"), "feature%2Fx.yaml");
        assert_eq!(
            owner_from_file_name("feature%2Fx.yaml").as_deref(),
            Some("feature/x")
        );
        assert_eq!(owner_from_file_name("notes.txt"), None);
    }

    #[test]
    fn a_remote_is_a_name_never_an_option_url_or_path() {
        use super::validate_remote;
        for fine in ["origin", "upstream", "team/shared", "my-remote_2", "a+b@c"] {
            assert_eq!(validate_remote(fine), Ok(()), "{fine}");
        }
        for bad in [
            "--upload-pack=touch x",
            "-x",
            "ext::sh -c touch% x",
            "https://example.com/r.git",
            "git@host:r.git",
            "/srv/repo",
            "../other",
            "./here",
            "a b",
            "",
            "origin/",
        ] {
            assert!(validate_remote(bad).is_err(), "{bad:?}");
        }
        assert!(validate_remote("--upload-pack=x")
            .unwrap_err()
            .0
            .starts_with("remote name `--upload-pack=x`"));
    }

    #[test]
    fn an_operand_never_looks_like_an_option() {
        use super::validate_operand;
        for fine in [
            "main",
            "origin/main",
            "HEAD~2",
            "v1.0^{commit}",
            "",
            "+refs/a:refs/b",
        ] {
            assert_eq!(validate_operand(fine), Ok(()), "{fine}");
        }
        let e = validate_operand("--output=/tmp/F").unwrap_err().0;
        assert_eq!(
            e,
            "`--output=/tmp/F` would reach git as an option (it begins with `-`); a branch, commit or remote never does"
        );
        let e = validate_operand("main\n--output=x").unwrap_err().0;
        assert!(e.contains("U+000A"), "{e}");
        assert!(e.contains("main\\n--output"), "named escaped: {e}");
        let long = format!("-{}", "x".repeat(500));
        assert!(
            validate_operand(&long).unwrap_err().0.len() < 200,
            "named shortly"
        );
    }
}

#[cfg(test)]
mod machine_tests {
    use super::*;

    #[test]
    fn a_claim_of_another_machine_is_nobody_s_here() {
        assert!(on_machine(Some("a-1"), Some("a-1")));
        assert!(!on_machine(Some("a-1"), Some("b-2")));
        // Not recorded, or not said: judged by the session alone.
        assert!(on_machine(None, Some("b-2")));
        assert!(on_machine(Some("a-1"), None));
        assert!(validate_machine("laptop-3f2a").is_ok());
        for bad in ["", "-a", "Laptop", "a b", &"a".repeat(65)] {
            assert!(validate_machine(bad).is_err(), "{bad:?}");
        }
    }
}
