//! Property tests of the redo journal's format: no bytes make `parse` panic, a rendered journal
//! reads back as itself, a cut or a flipped byte never reads as a complete journal, and a
//! complete journal naming a file outside the rail is refused, never replayed. Also the two
//! other readers of host-supplied text next to it: which paths a host may write, and the
//! `for-each-ref` rows of lease commit times.

mod common;

use proptest::prelude::*;
use rail_core::formats::journal::{self, Action, JournalEntry, Parsed};

fn rail_path() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("claims.md".to_string()),
        Just("claims.log".to_string()),
        "[a-zA-Z0-9%._-]{1,12}".prop_filter_map("a claim file", |stem| {
            (!stem.starts_with('.')).then(|| format!("claims/{stem}.yaml"))
        }),
    ]
}

fn entry() -> impl Strategy<Value = JournalEntry> {
    (
        prop_oneof![Just(Action::File), Just(Action::Append)],
        rail_path(),
        proptest::collection::vec(any::<u8>(), 0..64),
    )
        .prop_map(|(action, path, bytes)| JournalEntry {
            action,
            path,
            bytes,
        })
}

proptest! {
    #![proptest_config(common::cases(512))]

    #[test]
    fn any_bytes_parse_without_panicking(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = journal::parse(&bytes);
        let mut framed = b"rail-journal 1\n".to_vec();
        framed.extend_from_slice(&bytes);
        let _ = journal::parse(&framed);
    }

    #[test]
    fn render_then_parse_round_trips(entries in proptest::collection::vec(entry(), 0..6)) {
        let bytes = journal::render(&entries);
        prop_assert_eq!(journal::parse(&bytes), Parsed::Complete(entries.clone()));
    }

    #[test]
    fn a_torn_or_flipped_journal_is_never_complete(
        entries in proptest::collection::vec(entry(), 1..4),
        cut in any::<prop::sample::Index>(),
        flip in any::<prop::sample::Index>(),
        bit in 0u8..8,
    ) {
        let bytes = journal::render(&entries);
        let cut = cut.index(bytes.len());
        prop_assert_eq!(journal::parse(&bytes[..cut]), Parsed::Incomplete);
        let mut flipped = bytes.clone();
        let at = flip.index(bytes.len());
        flipped[at] ^= 1 << bit;
        // Checksums are read in either case (as every host has read them), so flipping the
        // case of a checksum's hex letter is the one change that reads the same.
        if journal::parse(&flipped) == Parsed::Complete(entries) {
            prop_assert!(
                bytes[at].is_ascii_hexdigit() && flipped[at].eq_ignore_ascii_case(&bytes[at]),
                "flipping byte {} read as the same journal", at
            );
        }
    }

    #[test]
    fn foreign_paths_are_refused(
        entries in proptest::collection::vec(entry(), 0..3),
        path in prop_oneof![
            "\\.\\./[a-z]{1,8}",
            "/[a-z/]{1,12}",
            "\\.git/[a-z]{1,8}",
            "claims/[a-z]{0,4}[/\\\\\u{0}][a-z.]{0,6}\\.yaml",
            "[a-z]{1,8}\\.(rs|sh|toml)",
        ],
    ) {
        let mut all = entries;
        all.push(JournalEntry { action: Action::File, path: path.clone(), bytes: b"x".to_vec() });
        match journal::parse(&journal::render(&all)) {
            Parsed::Foreign(f) => prop_assert_eq!(f.path, path),
            other => prop_assert!(false, "{:?} gave {:?}", path, other),
        }
    }
}

proptest! {
    #![proptest_config(common::cases(1024))]

    /// Whatever a journal or a shared tree names, an accepted path stays inside the rail
    /// directory: relative, no `..`, no backslash, no control character, one of the rail's
    /// data files.
    #[test]
    fn an_accepted_path_stays_in_the_rail(
        path in prop_oneof![
            any::<String>(),
            "(claims/)?[a-z./\\\\\u{0}\u{1f}]{0,12}(\\.yaml|\\.yml)?",
        ],
    ) {
        if rail_core::formats::rail_files::rail_data_path(&path).is_ok() {
            prop_assert!(!path.starts_with('/'), "{path:?}");
            prop_assert!(!path.split('/').any(|s| s == ".." || s == "." || s.is_empty()), "{path:?}");
            prop_assert!(!path.contains('\\'), "{path:?}");
            prop_assert!(!path.chars().any(char::is_control), "{path:?}");
            prop_assert!(
                path == "claims.md"
                    || path == "claims.log"
                    || (path.starts_with("claims/") && path.matches('/').count() == 1),
                "{path:?}"
            );
        }
    }

    /// `for-each-ref` rows: any text gives branch times without panicking, never `HEAD` or an
    /// empty name.
    #[test]
    fn commit_rows_never_panic(rows in any::<String>(), prefix in "(refs/heads/|)") {
        for branch in rail_core::model::lease::commit_times(&rows, &prefix).keys() {
            prop_assert!(!branch.is_empty() && branch != "HEAD");
        }
    }
}
