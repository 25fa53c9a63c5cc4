//! `rail man`: the man pages, rendered by clap_mangen from the command definitions: rail(1)
//! lists the commands, the global options and the exit codes; with `--dir`, each command's page
//! (rail-claim(1), …, which rail(1) refers to) is written beside it.

use std::path::PathBuf;

use crate::fail::Fail;

#[derive(clap::Args, Debug)]
pub struct ManArgs {
    /// Write rail.1 and rail-COMMAND.1 into this directory (e.g. ~/.local/share/man/man1).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// `cli`: the command definitions (main's).
pub fn run(args: &ManArgs, cli: clap::Command) -> Result<(), Fail> {
    if let Some(dir) = &args.dir {
        std::fs::create_dir_all(dir)
            .and_then(|()| clap_mangen::generate_to(cli, dir))
            .map_err(|e| Fail::env(format!("{}: {e}", dir.display())))?;
        outln!("wrote rail.1 and a page per command to {}", dir.display());
        return Ok(());
    }
    let mut page = Vec::new();
    clap_mangen::Man::new(cli)
        .render(&mut page)
        .map_err(|e| Fail::env(format!("cannot render the man page: {e}")))?;
    out!("{}", String::from_utf8_lossy(&page));
    Ok(())
}
