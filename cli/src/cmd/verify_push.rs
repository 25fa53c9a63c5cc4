//! `rail verify-push OLD NEW [REF]`: a git server's pre-receive hook's check of one ref a push
//! updates (docs/shared-rail.md, "Who can change what"). Run in the server's repository, where
//! the pushed objects are readable: the shared ref only moves forward and every commit it gains
//! is proven (signed by an allowed machine, following from its parent by the steps it records);
//! a machine's marks and queue refs take only that machine's signed commits; nothing of the
//! rail's is deleted. The allowed signers are the ones committed on the server's main branch
//! (`HEAD`). Exit 0: accepted; 1: refused, with the reason on stderr.

use std::path::PathBuf;

use rail_core::change::proof::{self, PushedRef};

use crate::fail::{self, Fail};
use crate::git::{self, GitLine};
use crate::shared::proof as keys;

#[derive(clap::Args, Debug)]
pub struct VerifyPushArgs {
    /// The ref's commit before the push (all zeros: the ref is new).
    pub old: String,
    /// The ref's commit after the push (all zeros: the push deletes it).
    pub new: String,
    /// The ref the push updates.
    #[arg(default_value = "refs/rail/claims")]
    pub refname: String,
}

fn zero(id: &str) -> bool {
    !id.is_empty() && id.bytes().all(|b| b == b'0')
}

fn refused(why: String) -> Fail {
    Fail {
        code: fail::REFUSED,
        message: format!("push refused: {why}"),
        json: None,
    }
}

pub fn run(args: &VerifyPushArgs) -> Result<(), Fail> {
    let name = args.refname.as_str();
    if pushed_ref_other(name) {
        return Ok(());
    }
    let dir = std::env::current_dir().map_err(|e| Fail::env(e.to_string()))?;
    let deleted = zero(&args.new);
    let old = (!zero(&args.old)).then_some(args.old.as_str());
    let rewinds = match (old, deleted) {
        (Some(old), false) => {
            let line = GitLine::new(&["merge-base", "--is-ancestor"])
                .operand(old)
                .operand(args.new.as_str());
            let status = git::line::process(&dir, &line)
                .map_err(Fail::env)?
                .output()
                .map_err(|e| Fail::env(e.to_string()))?
                .status;
            !status.success()
        }
        _ => false,
    };
    if let Some(why) = proof::push_refused(name, deleted, rewinds) {
        return Err(refused(why));
    }
    let common =
        git::run(&dir, &GitLine::new(&["rev-parse", "--git-common-dir"])).map_err(Fail::env)?;
    let common = dir.join(PathBuf::from(common.trim()));
    let heads = ["HEAD".to_string(), "refs/heads/main".to_string()];
    let Some(team) = keys::keys_on(&dir, &common, &heads, None) else {
        return Err(refused(format!(
            "no {} is committed on this repository's main branch: nothing can be proven",
            proof::ALLOWED_SIGNERS
        )));
    };
    match proof::pushed_ref(name) {
        PushedRef::Claims => {
            let mut objects = git::CatFile::start(&dir).map_err(Fail::env)?;
            let walk =
                keys::prove(&dir, &mut objects, &team, old, &args.new).map_err(|e| e.fail())?;
            if let Some(open) = &walk.open {
                return Err(refused(format!(
                    "commit {} is not proven: {}",
                    &open.first[..open.first.len().min(12)],
                    open.why
                )));
            }
            Ok(())
        }
        PushedRef::Machine(machine) => {
            let signature =
                keys::signature_of(&dir, &team, &args.new, machine).map_err(Fail::env)?;
            proof::check_marks(&signature, machine, &team.signers)
                .map_err(|why| refused(format!("{name}: {why}")))
        }
        PushedRef::Unknown | PushedRef::Other => Ok(()),
    }
}

fn pushed_ref_other(name: &str) -> bool {
    proof::pushed_ref(name) == PushedRef::Other
}
