//! Task ids and sessions that look like another one on the rail (`аuth` with a Cyrillic `а`
//! beside `auth`), or mix look-alike alphabets in one word: the board's warnings on every claim
//! naming one, at the name (docs/format.md, "Look-alike names"; the table is `text::confusable`).

use crate::model::conflict::LISTED_CLAIMS;
use crate::model::{Claim, Evaluation, Origin, Rail};
use crate::text::confusable;
use crate::text::diagnostic::{Code, Diagnostic};

/// Task ids and sessions that look like another one on the rail, or mix look-alike alphabets
/// in one word (issue 17, finding 8): a warning on every claim naming one, at the name.
pub(super) fn confusable_diagnostics<'a>(
    rail: &Rail,
    eval: &'a Evaluation,
) -> Vec<(&'a Claim, Diagnostic)> {
    let mut out = Vec::new();
    // Most rails are all ASCII: nothing can be confusable then.
    let any = eval
        .claims
        .iter()
        .any(|c| !c.session.is_ascii() || c.task.as_deref().is_some_and(|t| !t.is_ascii()));
    if !any {
        return out;
    }
    for kind in ["task id", "session"] {
        let name_of = |c: &'a Claim| -> Option<&'a str> {
            if kind == "task id" {
                c.task.as_deref()
            } else {
                Some(c.session.as_str())
            }
        };
        let names: Vec<&str> = eval.claims.iter().filter_map(name_of).collect();
        let groups = confusable::groups(&names);
        // Each name's group and the first claim naming it, looked up once (in lists sorted by
        // name, searched by halves): a claim per name searched among all claims was quadratic,
        // and a group of hundreds of look-alikes named in every one of their messages more so.
        let mut group_of: Vec<(&str, usize)> = Vec::new();
        for (g, group) in groups.iter().enumerate() {
            group_of.extend(group.iter().map(|n| (*n, g)));
        }
        crate::text::sort::sort_by(&mut group_of, |a, b| a.cmp(b));
        let mut first_of: Vec<(&str, usize)> = (eval.claims.iter())
            .filter_map(|c| Some((name_of(c)?, c.id)))
            .collect();
        crate::text::sort::sort_by(&mut first_of, |a, b| a.cmp(b));
        let find = |list: &[(&str, usize)], name: &str| -> Option<usize> {
            let at = list.partition_point(|(n, _)| *n < name);
            list.get(at).filter(|(n, _)| *n == name).map(|(_, i)| *i)
        };
        for claim in &eval.claims {
            let Some(name) = name_of(claim) else {
                continue;
            };
            // An ASCII name is flagged only when a look-alike of it is on the rail.
            let group = find(&group_of, name).map(|g| &groups[g]);
            if group.is_none() && name.is_ascii() {
                continue;
            }
            let span = name_span(rail, claim, kind == "task id");
            let message = match group {
                Some(group) => {
                    let mut others: Vec<String> = group
                        .iter()
                        .filter(|n| **n != name)
                        .take(LISTED_CLAIMS)
                        .map(|other| {
                            let at = find(&first_of, other)
                                .map(|i| &eval.claims[i])
                                .map(|c| format!(" ({}:{})", c.file, c.line))
                                .unwrap_or_default();
                            format!("`{other}`{at}")
                        })
                        .collect();
                    let unlisted = group.len() - 1 - others.len();
                    if unlisted > 0 {
                        others.push(format!("{unlisted} more"));
                    }
                    let odd = group
                        .iter()
                        .find(|n| !n.is_ascii())
                        .copied()
                        .unwrap_or(name);
                    let risk = if kind == "task id" {
                        "two sessions may hold what reads as one task"
                    } else {
                        "one session can pass for the other"
                    };
                    format!(
                        "{kind} `{name}` looks like {} but is a different name ({} in `{odd}`): \
                         {risk}",
                        others.join(", "),
                        confusable::describe(odd)
                    )
                }
                None => match confusable::mixed_script(name) {
                    Some((word, a, b)) => format!(
                        "{kind} `{name}` mixes {} and {} letters in `{word}` ({}): it can pass for \
                         another name",
                        a.name(),
                        b.name(),
                        confusable::describe(word)
                    ),
                    None => continue,
                },
            };
            out.push((
                claim,
                Diagnostic::warning(Code::ConfusableName, span, message),
            ));
        }
    }
    out
}

/// Where a claim writes its task id (`task`) or session: the field on a claims.md line, the
/// claim's span (a claim file's owner) otherwise.
fn name_span(rail: &Rail, claim: &Claim, task: bool) -> crate::text::Span {
    match claim.origin {
        Origin::Line(n) => match rail.claims.lines.get(n).map(|l| &l.kind) {
            Some(crate::formats::claims_md::LineKind::Claim(c)) => {
                if task {
                    c.task_span
                } else {
                    c.session_span
                }
            }
            _ => claim.span,
        },
        Origin::File(_) => claim.span,
    }
}
