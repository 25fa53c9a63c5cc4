//! The shell reader's tests: command lines and the files Rail must find they write (or the
//! words it must call unjudgeable).

use super::*;

fn t(cmd: &str) -> Vec<String> {
    writes(cmd).targets
}

fn said(cmd: &str) -> String {
    writes(cmd).unanalysed.join("; ")
}

#[test]
fn redirections() {
    assert_eq!(t("echo hi > a.txt"), ["a.txt"]);
    assert_eq!(t("echo hi >> 'b c.txt' 2>&1"), ["b c.txt"]);
    assert_eq!(t("cmd 2> err.log >/dev/null"), ["err.log"]);
    assert_eq!(t("cmd &> all.log"), ["all.log"]);
    assert_eq!(t("cat < in.txt > out.txt"), ["out.txt"]);
    assert_eq!(
        t("cat > src/x.ts <<'EOF'\nline > not-a-file\nEOF\necho done > d"),
        ["src/x.ts", "d"]
    );
    assert_eq!(t("echo '>' x"), Vec::<String>::new());
    assert_eq!(t("echo x >&2; echo y 1>&2 2>&-"), Vec::<String>::new());
}

#[test]
fn commands() {
    assert_eq!(t("tee -a log.txt other.txt < x"), ["log.txt", "other.txt"]);
    assert_eq!(t("cp -r a b dest/"), ["dest/"]);
    assert_eq!(t("cp -t dest a b"), ["dest"]);
    assert_eq!(t("mv old.ts new.ts"), ["new.ts", "old.ts"]);
    assert_eq!(t("rm -rf src/auth build"), ["src/auth", "build"]);
    assert_eq!(t("sed -i 's/a/b/' f1 f2"), ["f1", "f2"]);
    assert_eq!(t("sed -i.bak -e 's/a/b/' f1"), ["f1"]);
    assert_eq!(t("sed 's/a/b/' f1"), Vec::<String>::new());
    assert_eq!(t("perl -pi -e 's/a/b/' f1"), ["f1"]);
    assert_eq!(
        t("touch a && mkdir -p b/c || true; truncate -s 0 d"),
        ["a", "b/c", "d"]
    );
    assert_eq!(t("dd if=/dev/zero of=img bs=1"), ["img"]);
    assert_eq!(t("sudo -u me rm x"), ["x"]);
    assert_eq!(t("FOO=1 rm y"), ["y"]);
    assert_eq!(t("chmod +x run.sh"), ["run.sh"]);
    assert_eq!(t("git checkout -- a.ts b.ts"), ["a.ts", "b.ts"]);
    assert_eq!(t("git restore c.ts"), ["c.ts"]);
    assert_eq!(t("ls -la; cat x | grep y"), Vec::<String>::new());
    assert_eq!(t("echo \"quoted; rm nothing\""), Vec::<String>::new());
}

#[test]
fn cd_is_followed_through_every_form() {
    assert_eq!(t("(cd sub && rm z) | cat"), ["sub/z"]);
    assert_eq!(
        t("cd src && echo x >> auth/token.ts"),
        ["src/auth/token.ts"]
    );
    assert_eq!(t("(cd a && touch x); touch y"), ["a/x", "y"]);
    assert_eq!(t("cd /tmp; rm f"), ["/tmp/f"]);
    assert_eq!(t("{ cd a; }; rm f"), ["a/f"]);
    assert_eq!(
        t("cd a | true; rm f"),
        ["f"],
        "a pipeline's cd does not last"
    );
    assert_eq!(t("x && cd a && y > f || z > g"), ["a/f", "a/g"]);
    assert_eq!(t("git -C sub rm f"), ["sub/f"]);
    assert_eq!(t("env -C sub rm f"), ["sub/f"]);
    assert_eq!(t("cd a; bash -c 'rm f'"), ["a/f"]);
    // A cd in a branch or loop leaves the directory unknown after it.
    let w = writes("if x; then cd a; fi; rm f");
    assert!(w.targets.is_empty());
    assert!(said("if x; then cd a; fi; rm f").contains("after a `cd` Rail cannot follow"));
    assert!(said("for d in a b; do cd $d; done; rm f").contains("`cd`"));
    assert!(said("cd \"$D\" && rm f").contains("a `cd` to `\"$D\"`"));
}

#[test]
fn strings_run_as_commands_are_read_to_a_bound() {
    assert_eq!(t("bash -c 'rm a'"), ["a"]);
    assert_eq!(t("sh -c \"sh -c 'rm b'\""), ["b"]);
    assert_eq!(t("eval rm c"), ["c"]);
    let mut cmd = "rm deep".to_string();
    for _ in 0..MAX_DEPTH + 1 {
        cmd = format!("eval {}", quote(&cmd));
    }
    let w = writes(&cmd);
    assert!(w.targets.is_empty(), "{w:?}");
    assert!(
        w.unanalysed[0].contains("nested more than"),
        "{:?}",
        w.unanalysed
    );
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

#[test]
fn deep_nesting_is_bounded_not_a_stack_overflow() {
    for open in ["( ", "{ ", "$( ", "if true; then ", "! "] {
        let cmd = format!("{}rm x", open.repeat(5_000));
        let w = writes(&cmd);
        assert!(
            !w.unanalysed.is_empty() || w.targets == ["x"],
            "{open:?}: {w:?}"
        );
    }
    let ok = format!("{}rm x{}", "( ".repeat(50), " )".repeat(50));
    assert_eq!(t(&ok), ["x"]);
}

#[test]
fn what_cannot_be_judged_is_said() {
    let w = writes("rm \"$TARGET\"; echo x > $(pick); eval \"$cmd\"; bash -c \"$s\"");
    assert!(w.targets.is_empty(), "{:?}", w.targets);
    assert_eq!(w.unanalysed.len(), 4, "{:?}", w.unanalysed);
    for (cmd, named) in [
        ("python3 -c 'open(1)'", "`python3 -c` code"),
        ("node -e 1", "`node -e` code"),
        ("ls | xargs rm", "`xargs rm`"),
        ("git apply p.diff", "`git apply`"),
        ("patch -p1 < p.diff", "`patch`"),
        ("$EDITOR f", "`$EDITOR`"),
        ("rm ~/x", "`~/x`"),
        ("if then", "syntax error"),
    ] {
        assert!(said(cmd).contains(named), "{cmd}: {}", said(cmd));
    }
}

#[test]
fn find_writes_under_its_starting_points() {
    assert_eq!(t("find a b -name x -delete"), ["a", "b"]);
    assert_eq!(t("find -delete"), ["."]);
    assert_eq!(t("find a -exec rm {} +"), ["a/**"]);
    assert_eq!(t("find a -exec cp {} dest/ \\;"), ["dest/"]);
    assert_eq!(t("find a -exec grep x {} +"), Vec::<String>::new());
}

#[test]
fn sed_scripts_that_write_are_named() {
    assert!(said("sed 's/a/b/w out.txt' f").contains("`sed` script that writes"));
    assert!(said("sed -n '1,5w part.txt' f").contains("`sed` script that writes"));
    assert!(said("sed -e 's|a|b|gw log' f").contains("`sed` script that writes"));
    assert_eq!(said("sed -n 's/when/where/p' f"), "");
    assert_eq!(said("sed 's/w/x/g' f"), "");
}

/// Issue 28, finding 5: bash lets a redirection stand anywhere in a simple command, and the
/// grammar hangs the words after its file on the redirection; they are the command's operands
/// all the same. Each command is judged exactly as the same command without the redirection.
#[test]
fn redirections_anywhere_hide_no_operands() {
    for (with, without) in [
        ("rm < /dev/null src/auth/a.ts", "rm src/auth/a.ts"),
        ("sed </dev/null -i s/a/b/ FILE", "sed -i s/a/b/ FILE"),
        ("find </dev/null src -delete", "find src -delete"),
        ("git </dev/null checkout -- FILE", "git checkout -- FILE"),
        ("< /dev/null rm x", "rm x"),
        ("rm 2>/dev/null x <in y", "rm x y"),
        ("rm x 2>&1 y", "rm x y"),
        ("rm x > log y", "rm x y > log"),
        ("a && rm < /dev/null x", "a && rm x"),
        ("cat f | rm < /dev/null x", "cat f | rm x"),
        ("cd sub && rm </dev/null x", "cd sub && rm x"),
        ("rm <<< word x", "rm x"),
        ("! rm </dev/null x", "! rm x"),
        // The grammar reads `! { {` as one word: still the group's command.
        ("! { { cp -r a a\n}\n}", "cp -r a a"),
        ("a | rm </dev/null x | b", "a | rm x | b"),
        ("rm <<EOF src/auth/a.ts\nx\nEOF", "rm src/auth/a.ts"),
        ("rm <<'EOF' -f a b\nx\nEOF", "rm -f a b"),
        ("cat <<EOF > out extra\nx\nEOF", "cat extra > out"),
        ("echo hi > a.txt b", "echo hi b > a.txt"),
        ("xargs </dev/null rm", "xargs rm"),
        ("bash </dev/null -c 'rm x'", "bash -c 'rm x'"),
    ] {
        let sorted = |mut w: Writes| {
            w.targets.sort();
            w.unanalysed.sort();
            w
        };
        assert_eq!(
            sorted(writes(with)),
            sorted(writes(without)),
            "{with:?} against {without:?}"
        );
        assert!(
            !writes(without).targets.is_empty() || !writes(without).unanalysed.is_empty(),
            "{without:?} writes something"
        );
    }
}

/// Issue 28, finding 5: `apply_patch`'s patch is read when the command writes it out (a
/// literal, a heredoc, a here-string), and its files are judged where the command runs; a patch
/// Rail cannot see (a file, a pipe, a substitution) is named, never allowed silently.
#[test]
fn apply_patch_is_judged_or_named() {
    let patch = "*** Begin Patch\n*** Update File: auth/a.ts\n@@\n-x\n+y\n*** End Patch\n";
    for (cmd, targets) in [
        (
            format!("apply_patch <<'EOF'\n{patch}EOF"),
            vec!["auth/a.ts"],
        ),
        (
            format!("cd src && apply_patch <<'EOF'\n{patch}EOF"),
            vec!["src/auth/a.ts"],
        ),
        (format!("apply_patch '{patch}'"), vec!["auth/a.ts"]),
        (format!("apply_patch <<< '{patch}'"), vec!["auth/a.ts"]),
    ] {
        assert_eq!(t(&cmd), targets, "{cmd:?}");
        assert_eq!(said(&cmd), "", "{cmd:?}");
    }
    for (cmd, named) in [
        ("apply_patch < p.patch", "a file or pipe Rail cannot see"),
        ("cat p | apply_patch", "a file or pipe Rail cannot see"),
        ("apply_patch", "a file or pipe Rail cannot see"),
        (
            "apply_patch \"$(cat p)\"",
            "a patch only known when it runs",
        ),
        ("apply_patch <<< \"$P\"", "a file or pipe Rail cannot see"),
        ("apply_patch p.patch", "a patch Rail cannot read"),
        ("applypatch < p", "`applypatch`"),
    ] {
        assert!(t(cmd).is_empty(), "{cmd:?}");
        assert!(said(cmd).contains(named), "{cmd:?}: {}", said(cmd));
    }
}

/// Issue 28, finding 5: git commands that write files of the work tree, or files they are
/// told to, are judged or named; those that only read stay quiet.
#[test]
fn git_commands_that_write_files_are_judged_or_named() {
    for (cmd, targets) in [
        ("git diff --output=out.diff", vec!["out.diff"]),
        ("git diff HEAD --output out.diff -- a", vec!["out.diff"]),
        (
            "git show --output=src/auth/a.ts HEAD",
            vec!["src/auth/a.ts"],
        ),
        ("git log -p --output=l.txt", vec!["l.txt"]),
        ("git archive -o a.tar HEAD", vec!["a.tar"]),
        ("git archive -oa.zip HEAD", vec!["a.zip"]),
        ("git archive --output=a.tgz HEAD", vec!["a.tgz"]),
        ("git bundle create repo.bundle --all", vec!["repo.bundle"]),
        ("git format-patch -o out HEAD~2", vec!["out/*.patch"]),
        ("git format-patch HEAD~1", vec!["*.patch"]),
        ("git merge-file a.ts base.ts b.ts", vec!["a.ts"]),
        ("git clone https://x/y/lib.git", vec!["lib"]),
        ("git clone u vendor/lib", vec!["vendor/lib"]),
        ("git config -f .gitmodules a.b c", vec![".gitmodules"]),
        ("git bugreport", vec!["git-bugreport-*"]),
    ] {
        assert_eq!(t(cmd), targets, "{cmd:?}");
        assert_eq!(said(cmd), "", "{cmd:?}");
    }
    for (cmd, named) in [
        ("git checkout -f", "`git checkout -f`"),
        ("git checkout --force", "`git checkout -f`"),
        ("git switch -c b --discard-changes", "`git switch`"),
        ("git stash branch b", "`git stash branch`"),
        ("git stash pop", "`git stash pop`"),
        ("git mergetool", "`git mergetool`"),
        ("git co main", "`git co`"),
        ("git $SUB", "`git $SUB`"),
        ("git apply p.diff", "`git apply`"),
    ] {
        assert!(said(cmd).contains(named), "{cmd:?}: {}", said(cmd));
    }
    for cmd in [
        "git status",
        "git diff",
        "git log --oneline -5",
        "git show HEAD:a.ts",
        "git checkout",
        "git checkout -b new",
        "git switch -c new",
        "git commit -qm x",
        "git add -A",
        "git reset HEAD~1",
        "git format-patch --stdout HEAD~1",
        "git bundle verify x.bundle",
        "git config user.name",
        "git config -f .gitmodules --get a.b",
        "git stash list",
        "git -C sub fetch",
    ] {
        let w = writes(cmd);
        assert!(
            w.targets.is_empty() && w.unanalysed.is_empty(),
            "{cmd:?}: {w:?}"
        );
    }
}

#[test]
fn a_commit_says_what_it_takes() {
    let commit = |cmd: &str| {
        let w = writes(cmd);
        assert_eq!(w.commits.len(), 1, "{cmd:?}: {w:?}");
        w.commits[0].clone()
    };
    let c = |all: bool, added: &[&str], only: &[&str], unknown: bool| GitCommit {
        all,
        new_files: false,
        added: added.iter().map(|s| s.to_string()).collect(),
        only: only.iter().map(|s| s.to_string()).collect(),
        unknown,
    };
    assert_eq!(commit("git commit -qm x"), c(false, &[], &[], false));
    let everything = GitCommit {
        new_files: true,
        ..c(true, &[], &[], false)
    };
    assert_eq!(
        commit("git add -A && git commit -m 'all of it'"),
        everything
    );
    assert_eq!(
        commit("git add -u && git commit -m 'tracked'"),
        c(true, &[], &[], false)
    );
    assert_eq!(
        commit("git add . && git commit -m x"),
        c(false, &["."], &[], false)
    );
    assert_eq!(
        commit("cd src && git add . && git commit -m x"),
        c(false, &["src"], &[], false)
    );
    assert_eq!(
        commit("git commit -qam 'fix: typo'"),
        c(true, &[], &[], false)
    );
    assert_eq!(
        commit("git commit --all --message=x"),
        c(true, &[], &[], false)
    );
    assert_eq!(
        commit("git add a.ts b.ts && git commit -m 'a and b' -- a.ts b.ts"),
        c(false, &["a.ts", "b.ts"], &["a.ts", "b.ts"], false)
    );
    assert_eq!(
        commit("git commit -m msg a.ts"),
        c(false, &[], &["a.ts"], false)
    );
    assert_eq!(
        commit("git commit -i -m msg a.ts"),
        c(false, &["a.ts"], &[], false)
    );
    assert_eq!(
        commit("git -C sub commit -m x -- b.ts"),
        c(false, &[], &["sub/b.ts"], false)
    );
    assert_eq!(
        commit("git add \"$F\" && git commit -m x"),
        c(false, &[], &[], true)
    );
    assert_eq!(
        commit("git commit --no-verify -m x"),
        c(false, &[], &[], false)
    );
    // Staged by an earlier commit's `git add` is that commit's.
    let w = writes("git add -A && git commit -m one && git add b.ts && git commit -m two");
    assert_eq!(
        w.commits,
        [everything.clone(), c(false, &["b.ts"], &[], false)]
    );
    // A dry run commits nothing; a line without a commit makes none.
    assert!(writes("git commit --dry-run -a").commits.is_empty());
    assert!(writes("git add -A").commits.is_empty());
    // Inside `bash -c`, as on the line itself.
    assert_eq!(
        commit("bash -c 'git add -A && git commit -m x'"),
        everything
    );
}
