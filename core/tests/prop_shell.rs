//! The Bash hook's shell reader (`shell::writes`), under generated commands: a write wrapped in
//! any stack of compound forms, lists, pipelines, substitutions and strings run as commands is
//! still found; any input at all is read without a panic, the same way twice.
#![cfg(feature = "shell")]

mod common;

use proptest::prelude::*;
use rail_core::agent::shell::writes;

/// Commands that write `{p}`.
const WRITES: &[&str] = &[
    "rm {p}",
    "rm -rf {p}",
    "touch {p}",
    "echo x > {p}",
    "printf x >> {p}",
    "cat <<'EOF' > {p}\nbody > other\nEOF\n",
    "cp -r a {p}",
    "mv a {p}",
    "sed -i s/a/b/ {p}",
    "tee -a {p} < /dev/null",
    "truncate -s 0 {p}",
    "mkdir -p {p}",
    "chmod 644 {p}",
    "dd if=/dev/zero of={p}",
    "install -m 644 a {p}",
    "ln -sf a {p}",
    "find {p} -delete",
    "git checkout -- {p}",
    "git rm -r {p}",
    "awk -i inplace 1 {p}",
    "perl -pi -e s/a/b/ {p}",
    "tar -xf a.tar -C {p}",
    "unzip -o a.zip -d {p}",
    "rsync -a a/ {p}",
    "cp -t {p} a b",
    "'rm' \"{p}\"",
];

/// Forms around a command `{c}` (a newline-terminated here-document included).
const WRAPS: &[&str] = &[
    "if true; then {c}\nfi",
    "if false; then :; else {c}\nfi",
    "if false; then :; elif true; then {c}\nfi",
    "for i in 1 2; do {c}\ndone",
    "for ((i=0; i<2; i++)); do {c}\ndone",
    "while true; do {c}\nbreak; done",
    "until false; do {c}\ndone",
    "case x in *) {c}\n;; esac",
    "! {c}",
    "{ {c}\n}",
    "( {c}\n)",
    "true && {c}",
    "false || {c}",
    "echo a; {c}",
    "echo a | {c}",
    "{c}\necho after",
    "f() { {c}\n}; f",
    "time {c}",
    "echo \"$( {c}\n)\"",
    "bash -c {q}",
    "sh -c {q}",
    "zsh -c {q}",
    "eval {q}",
];

/// Single-quoted for the shell: `'` becomes `'\''`.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

fn wrap(cmd: &str, how: &str) -> String {
    how.replace("{q}", &quote(cmd)).replace("{c}", cmd)
}

proptest! {
    #![proptest_config(common::cases(400))]

    #[test]
    fn a_write_is_found_inside_any_form(
        path in "[a-z]{1,6}(/[a-z]{1,6}){0,2}",
        write in 0..WRITES.len(),
        wraps in prop::collection::vec(0..WRAPS.len(), 0..4),
    ) {
        let mut cmd = WRITES[write].replace("{p}", &path);
        // Strings run as commands are read to a bounded depth: keep under it.
        let mut strings = 0;
        for w in wraps {
            let how = WRAPS[w];
            if how.contains("{q}") {
                strings += 1;
                if strings > rail_core::agent::shell::MAX_DEPTH {
                    continue;
                }
            }
            cmd = wrap(&cmd, how);
        }
        let got = writes(&cmd);
        // Some stacks are not valid shell, or not read by the grammar as the shell would
        // (`! if …; then f() { … }`): then the reader says it met a syntax error. Never silence.
        let syntax = got.unanalysed.iter().any(|u| u.contains("syntax error"));
        prop_assert!(
            got.targets.iter().any(|t| t == &path) || syntax,
            "{cmd:?} must write {path:?}: {got:?}"
        );
        // And nothing else goes unjudged.
        prop_assert!(
            got.unanalysed.iter().all(|u| u.contains("syntax error")),
            "{cmd:?}: {got:?}"
        );
    }

    #[test]
    fn any_input_is_read_without_a_panic_the_same_way_twice(
        pieces in prop::collection::vec(
            prop_oneof![
                "[ -~]{0,12}",
                Just("\n".to_string()),
                Just("$(".to_string()),
                Just("`".to_string()),
                Just("'".to_string()),
                Just("\"".to_string()),
                Just("<<EOF\n".to_string()),
                Just("EOF\n".to_string()),
                Just(" -exec rm {} \\; ".to_string()),
                Just("bash -c '".to_string()),
                Just("; then ".to_string()),
                Just(" done ".to_string()),
                Just("( ".to_string()),
                Just(" )".to_string()),
                Just("{ ".to_string()),
                Just("\\".to_string()),
                Just("ç😀".to_string()),
            ],
            0..40,
        )
    ) {
        let cmd: String = pieces.concat();
        let once = writes(&cmd);
        prop_assert_eq!(&once, &writes(&cmd));
        prop_assert!(once.targets.iter().all(|t| !t.is_empty()));
    }
}
