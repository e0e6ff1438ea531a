//! `remaind completions`: shell completion scripts generated from the clap definitions.

use std::process::ExitCode;

use clap::CommandFactory;
use clap_complete::Shell;

use crate::args::completions::{Args, CompletionShell};
use crate::cli_error::CliError;

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
