//! `remaind completions`: shell completion scripts generated from the clap definitions.

use std::process::ExitCode;

use clap::CommandFactory;
use clap_complete::Shell;

use crate::cli_error::CliError;

/// Print a shell completion script for remaind.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  remaind completions bash > ~/.local/share/bash-completion/completions/remaind\n  remaind completions zsh > ~/.zfunc/_remaind      # with fpath+=(~/.zfunc) in ~/.zshrc\n  remaind completions fish > ~/.config/fish/completions/remaind.fish"
)]
pub(crate) struct Args {
    /// The shell to generate for.
    #[arg(value_enum, value_name = "SHELL")]
    shell: CompletionShell,
}

/// The shells Remaind ships completions for.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum CompletionShell {
    Bash,
    Zsh,
    Fish,
}

pub(crate) fn run(args: Args) -> Result<ExitCode, CliError> {
    let shell = match args.shell {
        CompletionShell::Bash => Shell::Bash,
        CompletionShell::Zsh => Shell::Zsh,
        CompletionShell::Fish => Shell::Fish,
    };
    let mut cmd = crate::Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "remaind", &mut out);
    write_stdout(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// Writes bytes to stdout; a closed pipe (`| head`) is not an error.
pub(crate) fn write_stdout(bytes: &[u8]) -> Result<(), CliError> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(CliError::stdout)
}
