//! `rail completions SHELL`: the completion script clap_complete derives from the command
//! definitions, so it never lags a new command or flag.

use crate::fail::Fail;

#[derive(clap::Args, Debug)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, powershell or elvish.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Written through `out!` (a closed pipe is not a crash).
/// `cli`: the command definitions (main's).
pub fn run(args: &CompletionsArgs, mut cli: clap::Command) -> Result<(), Fail> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cli, "rail", &mut script);
    out!("{}", String::from_utf8_lossy(&script));
    Ok(())
}
