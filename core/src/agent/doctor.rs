//! `rail doctor`'s judgements: what an agent's trust of a folder can be, and of each of Rail's
//! hooks where it also trusts hooks one by one ([`HookTrust`]); the path rules its trust files
//! share (each agent's module reads its own file, [`crate::agent::TrustFile`]; the host finds and
//! reads it), and the findings as the host reports them. Where a file says nothing Rail can read
//! for certain, the answer is [`Trust::Unknown`] or [`HookTrust::Unknown`] with the reason, never
//! a silent "trusted".

use serde::Serialize;

use crate::agent::Agent;

/// What an agent's own trust file says about a folder.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "trust", content = "why", rename_all = "snake_case")]
pub enum Trust {
    Trusted,
    NotTrusted,
    Unknown(String),
}

/// One problem `rail doctor` found, with its exact fix.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The agent concerned (`None`: the repository's own setup).
    pub agent: Option<String>,
    /// Where: a checkout's path, a file, a setting.
    pub place: String,
    pub problem: String,
    pub fix: String,
    /// Whether it leaves an agent writing unguarded (then `rail doctor` exits 1); `false` for
    /// a problem that weakens the guard less (the merge driver, a note).
    pub unguarded: bool,
}

/// What an agent that trusts hooks one by one (Codex) says of one of Rail's hooks: it runs only
/// a trusted one, and skips the others without a word.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "trust", content = "why", rename_all = "snake_case")]
pub enum HookTrust {
    Trusted,
    /// Never trusted (new to the agent).
    NotTrusted,
    /// Trusted once, changed since: skipped until trusted again.
    Changed,
    /// Turned off by the person in the agent's own list of hooks.
    Disabled,
    Unknown(String),
}

/// One of Rail's hooks in the agent's hook file: its event, and what the agent's trust says.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct JudgedHook {
    pub event: String,
    #[serde(flatten)]
    pub trust: HookTrust,
}

/// What an agent's per-hook trust is judged from ([`crate::agent::PerHook::judge`]).
#[derive(Clone, Copy, Debug)]
pub struct HookCheck<'a> {
    /// The trust file's text (empty when there is none), or why it cannot be read.
    pub trust_file: Result<&'a str, &'a str>,
    /// The hook file's path, spelled as the agent spells it (it keys the trust by it).
    pub hook_file: &'a str,
    /// The hook file's text.
    pub hooks: &'a str,
    /// Whether the agent runs on Windows (where a hook's Windows command is the one it runs).
    pub windows: bool,
}

/// The findings of an agent's per-hook trust in `folder` (the main checkout; `hook_file` and
/// `trust_file` as the host shows them): one per kind of problem, naming its hooks; `judged` is
/// [`crate::agent::PerHook::judge`]'s answer (an error: the agent cannot read the hook file).
pub fn hook_findings(
    agent: Agent,
    folder: &str,
    hook_file: &str,
    trust_file: &str,
    judged: Result<Vec<JudgedHook>, String>,
    fix: &str,
) -> Vec<Finding> {
    let title = agent.title();
    let finding = |problem: String, fix: String| Finding {
        agent: Some(title.to_string()),
        place: folder.to_string(),
        problem,
        fix,
        unguarded: true,
    };
    let judged = match judged {
        Ok(j) => j,
        Err(why) => {
            return vec![finding(
                format!("{title} cannot read {hook_file} ({why}): it runs none of the hooks in it"),
                format!(
                    "correct {hook_file} as {title} reads it, or move it aside and run `rail init --agents --agent {}`",
                    agent.name()
                ),
            )]
        }
    };
    let events = |want: &dyn Fn(&HookTrust) -> bool| -> Option<String> {
        let names: Vec<&str> = judged
            .iter()
            .filter(|h| want(&h.trust))
            .map(|h| h.event.as_str())
            .collect();
        (!names.is_empty()).then(|| names.join(", "))
    };
    let mut out = Vec::new();
    if let Some(e) = events(&|t| *t == HookTrust::NotTrusted) {
        out.push(finding(
            format!("{title} has not trusted Rail's hooks in {hook_file} ({e}; no trusted hash in {trust_file}): it skips them without a word, and writes unguarded"),
            fix.to_string(),
        ));
    }
    if let Some(e) = events(&|t| *t == HookTrust::Changed) {
        out.push(finding(
            format!("Rail's hooks in {hook_file} changed since {title} trusted them ({e}; the hash in {trust_file} is another): it skips them until they are trusted again, and writes unguarded"),
            format!("check what changed in {hook_file} (`rail init --agents --agent {}` writes Rail's entries back), then {fix}", agent.name()),
        ));
    }
    if let Some(e) = events(&|t| *t == HookTrust::Disabled) {
        out.push(finding(
            format!("Rail's hooks in {hook_file} are turned off in {title} ({e}; `enabled = false` in {trust_file}): they do not run"),
            fix.to_string(),
        ));
    }
    let mut unknown: Vec<(&str, Vec<&str>)> = Vec::new();
    for h in &judged {
        if let HookTrust::Unknown(why) = &h.trust {
            match unknown.iter_mut().find(|(w, _)| *w == why.as_str()) {
                Some((_, events)) => events.push(&h.event),
                None => unknown.push((why, vec![&h.event])),
            }
        }
    }
    for (why, events) in unknown {
        out.push(finding(
            format!(
                "cannot tell whether {title} trusts Rail's hooks in {hook_file} ({}): {why}",
                events.join(", ")
            ),
            fix.to_string(),
        ));
    }
    out
}

/// Is `inner` the folder `outer` or inside it? Paths as the host spells them, `/` or `\`
/// separated; a trailing separator is ignored.
pub fn within(inner: &str, outer: &str) -> bool {
    let trim = |p: &str| -> String {
        let p = p.replace('\\', "/");
        let t = p.trim_end_matches('/');
        if t.is_empty() {
            "/".to_string()
        } else {
            t.to_string()
        }
    };
    let (inner, outer) = (trim(inner), trim(outer));
    inner == outer || outer == "/" || inner.starts_with(&format!("{outer}/"))
}

/// The folder holding `path`, as the host spells it.
pub fn parent(path: &str) -> Option<String> {
    let p = path.replace('\\', "/");
    let p = p.trim_end_matches('/');
    p.rfind('/').map(|i| {
        if i == 0 {
            "/".to_string()
        } else {
            p[..i].to_string()
        }
    })
}
