//! A rail commit's SSH signature checked in this process (docs/shared-rail.md, "Who can change
//! what"): git's payload and signature as core takes the commit apart
//! ([`proof::signed_commit`]), the armored SSHSIG read and its Ed25519 signature checked with
//! RustCrypto's `ssh-key`, and whose key it is asked of core ([`proof::Signers::owner_of`]).
//! What follows from the answer (the record's machine, the marks' machine) stays core's.
//!
//! git's own check (`git log %G?`) runs one `ssh-keygen -Y verify` process per signed commit,
//! about 30 ms on a loaded machine; this is tens of microseconds. Keys this build does not
//! verify (RSA, ECDSA, security keys, certificates) and allowed-signers lines with options only
//! `ssh-keygen` judges are left to git: [`SignatureCheck::AskGit`], never an allow.

use rail_core::change::proof::{self, KeyOwner, Signature, SignedCommit, Signers};
use ssh_key::{Algorithm, HashAlg, PublicKey, SshSig};

/// What this process can say of a commit's signature.
#[derive(Debug, PartialEq, Eq)]
pub enum SignatureCheck {
    /// The verdict, as git's check would give it.
    Known(Signature),
    /// Not checked here (why): git's check decides.
    AskGit(String),
}

/// The signature of the commit object `raw` against `signers`, for a commit `wanted` (the
/// machine its record or its ref names) is said to be made by.
pub fn check(raw: &[u8], signers: &Signers, wanted: &str) -> SignatureCheck {
    let (payload, armor) = match proof::signed_commit(raw) {
        SignedCommit::Unsigned => return SignatureCheck::Known(Signature::Unsigned),
        SignedCommit::Unreadable(why) => return bad(why),
        SignedCommit::Signed { payload, armor } => (payload, armor),
    };
    let sig = match SshSig::from_pem(armor.as_bytes()) {
        Ok(sig) => sig,
        Err(e) => return bad(format!("its signature is not an SSH signature ({e})")),
    };
    if sig.namespace() != proof::NAMESPACE {
        return bad(format!(
            "signed in the namespace `{}`, not git's `{}`",
            rail_core::text::terminal_safe(sig.namespace()),
            proof::NAMESPACE
        ));
    }
    let key = sig.public_key().clone();
    if key.algorithm() != Algorithm::Ed25519 {
        return SignatureCheck::AskGit(format!("a {} key", key.algorithm()));
    }
    let fingerprint = key.fingerprint(HashAlg::Sha256);
    let public = PublicKey::from(key);
    let text = match public.to_openssh() {
        Ok(text) => text,
        Err(e) => return bad(format!("its key cannot be read ({e})")),
    };
    let principal = match signers.owner_of(&text, wanted) {
        KeyOwner::Named(p) => p,
        KeyOwner::NotNamed => {
            return bad(format!(
                "signed by the key {fingerprint}, which the allowed signers do not name"
            ))
        }
        KeyOwner::Unsure(why) => return SignatureCheck::AskGit(why),
    };
    match public.verify(proof::NAMESPACE, &payload, &sig) {
        Ok(()) => SignatureCheck::Known(Signature::Good { principal }),
        Err(_) => bad(format!(
            "a bad signature: the key {fingerprint} did not sign this commit"
        )),
    }
}

/// Each of `payloads` signed in git's namespace with the private key file `key`, armored as
/// `ssh-keygen -Y sign` writes it (SHA-512, as it does): when `key` is an Ed25519 key without a
/// passphrase. `None`: `ssh-keygen` signs (a public key whose private half ssh-agent holds, a
/// passphrase, another key type, a file that cannot be read).
pub fn sign_here(key: &std::path::Path, payloads: &[Vec<u8>]) -> Option<Vec<String>> {
    let text = std::fs::read(key).ok()?;
    let private = ssh_key::PrivateKey::from_openssh(&text).ok()?;
    if private.is_encrypted() || private.algorithm() != Algorithm::Ed25519 {
        return None;
    }
    (payloads.iter())
        .map(|payload| {
            let sig = private
                .sign(proof::NAMESPACE, HashAlg::Sha512, payload)
                .ok()?;
            sig.to_pem(ssh_key::LineEnding::LF).ok()
        })
        .collect()
}

fn bad(why: impl Into<String>) -> SignatureCheck {
    SignatureCheck::Known(Signature::Bad(why.into()))
}

// These run git and ssh-keygen: a Windows build under Wine cannot wait on a Linux child, so
// they run on Unix only (scripts/test-windows.sh names them as skipped there).
#[cfg(all(test, unix))]
mod tests {
    //! Signatures made by real `ssh-keygen` and commits signed by real git (`gpg.format ssh`),
    //! checked here and, for the same commits, by git's own check.

    use super::*;
    use std::path::{Path, PathBuf};
    use std::process::Command;

    fn run(dir: &Path, program: &str, args: &[&str]) -> String {
        let out = Command::new(program)
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{program} {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// A new key of `kind` (`ed25519`, `ecdsa`) in `dir`: its private key file.
    fn keygen(dir: &Path, name: &str, kind: &str) -> PathBuf {
        let key = dir.join(name);
        let path = key.to_str().unwrap();
        run(
            dir,
            "ssh-keygen",
            &["-q", "-t", kind, "-N", "", "-C", name, "-f", path],
        );
        key
    }

    fn public(key: &Path) -> String {
        std::fs::read_to_string(key.with_extension("pub")).unwrap()
    }

    /// A repository whose HEAD commit git signed with `key`: its raw bytes.
    fn signed_by_git(dir: &Path, key: &Path) -> Vec<u8> {
        let d = dir.join("repo");
        std::fs::create_dir_all(&d).unwrap();
        run(&d, "git", &["init", "-q"]);
        let signing = format!("user.signingkey={}", key.display());
        run(
            &d,
            "git",
            &[
                "-c",
                "user.name=a",
                "-c",
                "user.email=a@x",
                "-c",
                "gpg.format=ssh",
                "-c",
                &signing,
                "commit",
                "-q",
                "-S",
                "--allow-empty",
                "-m",
                "rail: claim auth",
            ],
        );
        run(&d, "git", &["cat-file", "commit", "HEAD"]).into_bytes()
    }

    /// `payload` signed by `ssh-keygen -Y sign` in `namespace`, as a commit's `gpgsig` header.
    fn with_ssh_signature(dir: &Path, key: &Path, namespace: &str, payload: &[u8]) -> Vec<u8> {
        let file = dir.join("payload");
        std::fs::write(&file, payload).unwrap();
        let (k, f) = (key.to_str().unwrap(), file.to_str().unwrap());
        run(
            dir,
            "ssh-keygen",
            &["-q", "-Y", "sign", "-n", namespace, "-f", k, f],
        );
        let armor = std::fs::read_to_string(dir.join("payload.sig")).unwrap();
        std::fs::remove_file(dir.join("payload.sig")).unwrap();
        with_header(
            payload,
            &format!("gpgsig {}\n", armor.trim_end().replace('\n', "\n ")),
        )
    }

    /// `raw` with `header` added after its other headers.
    fn with_header(raw: &[u8], header: &str) -> Vec<u8> {
        let at = raw.windows(2).position(|w| w == b"\n\n").unwrap();
        let mut out = raw[..at + 1].to_vec();
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(&raw[at + 1..]);
        out
    }

    fn unsigned(raw: &[u8]) -> Vec<u8> {
        match proof::signed_commit(raw) {
            SignedCommit::Signed { payload, .. } => payload,
            other => panic!("{other:?}"),
        }
    }

    fn bad(checked: SignatureCheck) -> String {
        match checked {
            SignatureCheck::Known(Signature::Bad(why)) => why,
            other => panic!("not refused: {other:?}"),
        }
    }

    fn good(principal: &str) -> SignatureCheck {
        SignatureCheck::Known(Signature::Good {
            principal: principal.into(),
        })
    }

    #[test]
    fn a_commit_git_signed_verifies_here_and_a_tampered_one_does_not() {
        let d = tempfile::tempdir().unwrap();
        let key = keygen(d.path(), "a", "ed25519");
        let signers = proof::signers(&format!("m-a namespaces=\"git\" {}", public(&key)));
        let raw = signed_by_git(d.path(), &key);
        assert_eq!(check(&raw, &signers, "m-a"), good("m-a"));
        // git's own check says the same of the same commit.
        let file = d.path().join("allowed");
        std::fs::write(&file, format!("m-a {}", public(&key))).unwrap();
        let allowed = format!("gpg.ssh.allowedSignersFile={}", file.display());
        let git_says = run(
            &d.path().join("repo"),
            "git",
            &["-c", &allowed, "log", "-1", "--format=%G?%GS"],
        );
        assert_eq!(git_says.trim(), "Gm-a");
        // The same signature over a commit whose message, or tree, was changed.
        let text = String::from_utf8(raw).unwrap();
        let tampered = text.replace("claim auth", "claim AUTH");
        assert!(bad(check(tampered.as_bytes(), &signers, "m-a")).contains("did not sign"));
        let tree = text.lines().next().unwrap().to_string();
        let other_tree = text.replacen(&tree, &format!("tree {}", "0".repeat(40)), 1);
        assert_ne!(other_tree, text);
        assert!(bad(check(other_tree.as_bytes(), &signers, "m-a")).contains("did not sign"));
    }

    #[test]
    fn a_signature_by_ssh_keygen_verifies_over_the_commit_it_signed() {
        let d = tempfile::tempdir().unwrap();
        let key = keygen(d.path(), "a", "ed25519");
        let signers = proof::signers(&format!("m-a {}", public(&key)));
        let payload = b"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n\nrail: claim\n";
        let raw = with_ssh_signature(d.path(), &key, "git", payload);
        assert_eq!(check(&raw, &signers, "m-a"), good("m-a"));
        // Signed over another payload, put on this one.
        let other = with_ssh_signature(d.path(), &key, "git", b"tree 0\n\nanother\n");
        let moved = with_header(
            payload,
            &String::from_utf8_lossy(&other)
                .lines()
                .skip_while(|l| !l.starts_with("gpgsig"))
                .take_while(|l| !l.is_empty())
                .map(|l| format!("{l}\n"))
                .collect::<String>(),
        );
        assert_eq!(unsigned(&moved), payload);
        assert!(bad(check(&moved, &signers, "m-a")).contains("did not sign"));
    }

    #[test]
    fn a_commit_signed_here_verifies_by_git_and_here() {
        let d = tempfile::tempdir().unwrap();
        let key = keygen(d.path(), "a", "ed25519");
        let signers = proof::signers(&format!("m-a {}", public(&key)));
        // git's own signed commit, taken apart, and its payload signed here.
        let payload = unsigned(&signed_by_git(d.path(), &key));
        let sigs = sign_here(&key, std::slice::from_ref(&payload)).unwrap();
        let raw = with_header(
            &payload,
            &format!("gpgsig {}\n", sigs[0].trim_end().replace('\n', "\n ")),
        );
        assert_eq!(check(&raw, &signers, "m-a"), good("m-a"));
        let repo = d.path().join("repo");
        let file = d.path().join("signed");
        std::fs::write(&file, &raw).unwrap();
        let f = file.to_str().unwrap();
        let id = run(&repo, "git", &["hash-object", "-t", "commit", "-w", f]);
        let allowed = d.path().join("allowed");
        std::fs::write(&allowed, format!("m-a {}", public(&key))).unwrap();
        let allowed = format!("gpg.ssh.allowedSignersFile={}", allowed.display());
        let git_says = run(
            &repo,
            "git",
            &["-c", &allowed, "log", "-1", "--format=%G?%GS", id.trim()],
        );
        assert_eq!(git_says.trim(), "Gm-a");
        // A key in ssh-agent (its public half named), or with a passphrase: ssh-keygen signs.
        assert_eq!(
            sign_here(&key.with_extension("pub"), std::slice::from_ref(&payload)),
            None
        );
        let locked = d.path().join("locked");
        let l = locked.to_str().unwrap();
        run(
            d.path(),
            "ssh-keygen",
            &["-q", "-t", "ed25519", "-N", "secret", "-f", l],
        );
        assert_eq!(sign_here(&locked, &[payload]), None);
    }

    #[test]
    fn a_signature_in_another_namespace_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let key = keygen(d.path(), "a", "ed25519");
        let signers = proof::signers(&format!("m-a {}", public(&key)));
        let raw = with_ssh_signature(d.path(), &key, "file", b"tree 0\n\nrail: claim\n");
        assert_eq!(
            bad(check(&raw, &signers, "m-a")),
            "signed in the namespace `file`, not git's `git`"
        );
    }

    #[test]
    fn a_key_the_allowed_signers_do_not_name_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let (key, stranger) = (
            keygen(d.path(), "a", "ed25519"),
            keygen(d.path(), "s", "ed25519"),
        );
        let signers = proof::signers(&format!("m-a {}", public(&key)));
        let raw = signed_by_git(d.path(), &stranger);
        let why = bad(check(&raw, &signers, "m-a"));
        assert!(why.starts_with("signed by the key SHA256:"), "{why}");
        assert!(
            why.ends_with("which the allowed signers do not name"),
            "{why}"
        );
        // Listed only outside git's namespace: the same.
        let file_only = proof::signers(&format!("m-a namespaces=\"file\" {}", public(&stranger)));
        assert!(bad(check(&raw, &file_only, "m-a")).contains("do not name"));
    }

    #[test]
    fn a_key_of_another_machine_is_that_machines_and_core_refuses_it() {
        let d = tempfile::tempdir().unwrap();
        let (a, b) = (
            keygen(d.path(), "a", "ed25519"),
            keygen(d.path(), "b", "ed25519"),
        );
        let signers = proof::signers(&format!("m-a {}m-b {}", public(&a), public(&b)));
        let raw = signed_by_git(d.path(), &b);
        assert_eq!(check(&raw, &signers, "m-a"), good("m-b"));
        let SignatureCheck::Known(signature) = check(&raw, &signers, "m-a") else {
            unreachable!()
        };
        let record = rail_core::change::queue::Recorded::Some(rail_core::change::queue::Record {
            machine: "m-a".into(),
            ..Default::default()
        });
        let why = proof::check_signature(&signature, &record, &signers).unwrap_err();
        assert!(
            why.contains("signed by `m-b` but its record says it was made by `m-a`"),
            "{why}"
        );
        assert!(proof::check_marks(&signature, "m-a", &signers).is_err());
    }

    #[test]
    fn a_malformed_or_huge_signature_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let key = keygen(d.path(), "a", "ed25519");
        let signers = proof::signers(&format!("m-a {}", public(&key)));
        let raw = signed_by_git(d.path(), &key);
        let text = String::from_utf8(raw).unwrap();
        // A character of the armor's base64 changed: not read, or not this key's signature.
        let armor_line = text.lines().find(|l| l.starts_with(" U1NIU0lH")).unwrap();
        let mut broken = armor_line.to_string();
        broken.replace_range(12..13, if &broken[12..13] == "A" { "B" } else { "A" });
        let why = bad(check(
            text.replace(armor_line, &broken).as_bytes(),
            &signers,
            "m-a",
        ));
        assert!(
            why.contains("not an SSH signature") || why.contains("did not sign"),
            "{why}"
        );
        let garbage = with_header(
            b"tree 0\n\nm\n",
            "gpgsig -----BEGIN SSH SIGNATURE-----\n !!\n -----END SSH SIGNATURE-----\n",
        );
        assert!(bad(check(&garbage, &signers, "m-a")).contains("not an SSH signature"));
        let not_armor = with_header(b"tree 0\n\nm\n", "gpgsig hello\n");
        assert!(bad(check(&not_armor, &signers, "m-a")).contains("not an SSH signature"));
        let huge = with_header(
            b"tree 0\n\nm\n",
            &format!(
                "gpgsig x\n{}",
                " AAAA\n".repeat(proof::MAX_SIGNATURE_BYTES / 4)
            ),
        );
        assert!(bad(check(&huge, &signers, "m-a")).contains("longer than"));
        let unsigned = b"tree 0\n\nm\n";
        assert_eq!(
            check(unsigned, &signers, "m-a"),
            SignatureCheck::Known(Signature::Unsigned)
        );
    }

    #[test]
    fn keys_and_lines_this_build_does_not_judge_are_left_to_git() {
        let d = tempfile::tempdir().unwrap();
        for kind in ["ecdsa", "rsa"] {
            let key = keygen(d.path(), kind, kind);
            let signers = proof::signers(&format!("m-a {}", public(&key)));
            let raw = signed_by_git(d.path(), &key);
            std::fs::remove_dir_all(d.path().join("repo")).unwrap();
            assert!(
                matches!(check(&raw, &signers, "m-a"), SignatureCheck::AskGit(_)),
                "{kind}"
            );
        }
        let ed = keygen(d.path(), "a", "ed25519");
        let raw = with_ssh_signature(d.path(), &ed, "git", b"tree 0\n\nm\n");
        for options in ["cert-authority", "valid-after=\"20200101\""] {
            let signers = proof::signers(&format!("m-a {options} {}", public(&ed)));
            assert!(
                matches!(check(&raw, &signers, "m-a"), SignatureCheck::AskGit(_)),
                "{options}"
            );
        }
    }
}
