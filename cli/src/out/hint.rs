//! Core's hints as the CLI words them: the command line to run.
//!
//! Core says what happened and names what can be done ([`Hint`]); the CLI adds its own how-to,
//! so its output reads as it always has (`…; it is free to take: \`rail take auth\``).

use rail_core::text::diagnostic::Located;
use rail_core::text::hint::Hint;

/// A diagnostic's one-line form with the CLI's how-to for its code.
pub fn one_line(d: &Located) -> String {
    say(&d.one_line(), d.code.hint().as_ref())
}

/// `message` followed by the CLI's way of acting on `hint`.
pub fn say(message: &str, hint: Option<&Hint>) -> String {
    let Some(hint) = hint else {
        return message.to_string();
    };
    let how = match hint {
        Hint::Take { task } => format!(": `rail take {task}`"),
        Hint::Claim { task } => format!(": use `rail claim {task}`"),
        Hint::RenewOrUpdate { .. } => {
            "; use `rail renew` to extend it or `rail update` to change paths".to_string()
        }
        Hint::Validate => " (see `rail validate`)".to_string(),
        Hint::MergeDriver => " (rail's merge driver avoids these: `rail init`)".to_string(),
        Hint::ForceBreak => {
            ": break it only with `rail lock --break --force`, after making sure nobody holds it (ask its owner)".to_string()
        }
        Hint::AddPaths { task: Some(task) } => format!(" (`rail update {task} --add-path …`)"),
        Hint::AddPaths { task: None } => ": `rail update TASK --add-path …`.".to_string(),
        Hint::ClaimFirst => ": `rail claim TASK --path GLOB`.".to_string(),
        Hint::FixCheck { task } => format!(
            ". Fix the check command (rail.yaml `check:` or --check) and run `rail done {task}` again"
        ),
        Hint::OtherWork { take } => {
            let take = take
                .as_ref()
                .map(|t| format!("; if its claim goes stale, `rail take {t}`"))
                .unwrap_or_default();
            format!(" (other work: `rail board`, `rail ready`{take}).")
        }
        Hint::ForceClose { station } => {
            let station = shell_word(station);
            format!(
                ". Commit the work and merge it into the base branch (or `git stash` it), then run `rail worktree remove {station}` again; to discard it, `rail worktree remove {station} --force` (a branch with unmerged commits is kept even then)"
            )
        }
    };
    format!("{message}{how}")
}

/// `word` as one shell word: as it is when it is plain, else single-quoted.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_alphanumeric() || "._-+/@:#=,".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// `s` as one shell word: as it is when it needs no quoting, else in single quotes.
pub fn shell_quote(s: &str) -> String {
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The command lines the CLI printed before core's messages left them to the hosts.
    #[test]
    fn hints_read_as_command_lines() {
        let task = || "auth".to_string();
        let table = [
            (None, "m"),
            (Some(Hint::Take { task: task() }), "m: `rail take auth`"),
            (Some(Hint::Claim { task: task() }), "m: use `rail claim auth`"),
            (
                Some(Hint::RenewOrUpdate { task: task() }),
                "m; use `rail renew` to extend it or `rail update` to change paths",
            ),
            (Some(Hint::Validate), "m (see `rail validate`)"),
            (
                Some(Hint::MergeDriver),
                "m (rail's merge driver avoids these: `rail init`)",
            ),
            (
                Some(Hint::ForceBreak),
                "m: break it only with `rail lock --break --force`, after making sure nobody holds it (ask its owner)",
            ),
            (
                Some(Hint::AddPaths { task: Some(task()) }),
                "m (`rail update auth --add-path …`)",
            ),
            (
                Some(Hint::AddPaths { task: None }),
                "m: `rail update TASK --add-path …`.",
            ),
            (Some(Hint::ClaimFirst), "m: `rail claim TASK --path GLOB`."),
            (
                Some(Hint::FixCheck { task: task() }),
                "m. Fix the check command (rail.yaml `check:` or --check) and run `rail done auth` again",
            ),
            (
                Some(Hint::OtherWork { take: Some(task()) }),
                "m (other work: `rail board`, `rail ready`; if its claim goes stale, `rail take auth`).",
            ),
            (
                Some(Hint::ForceClose { station: task() }),
                "m. Commit the work and merge it into the base branch (or `git stash` it), then run `rail worktree remove auth` again; to discard it, `rail worktree remove auth --force` (a branch with unmerged commits is kept even then)",
            ),
            (
                Some(Hint::OtherWork { take: None }),
                "m (other work: `rail board`, `rail ready`).",
            ),
        ];
        for (hint, said) in table {
            assert_eq!(say("m", hint.as_ref()), said, "{hint:?}");
        }
    }

    #[test]
    fn a_station_path_is_one_shell_word() {
        assert_eq!(shell_word("../repo-auth"), "../repo-auth");
        assert_eq!(shell_word("/tmp/my station"), "'/tmp/my station'");
        assert_eq!(shell_word("it's;rm"), "'it'\\''s;rm'");
        assert_eq!(shell_word(""), "''");
    }
}
