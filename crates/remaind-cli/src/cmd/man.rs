//! `remaind man`: roff man pages generated from the clap definitions.

use std::process::ExitCode;

use clap::CommandFactory;

use crate::args::man::Args;
use crate::cli_error::CliError;

fn render(cmd: clap::Command) -> Result<Vec<u8>, CliError> {
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd)
        .render(&mut out)
        .map_err(|e| CliError::runtime(format!("cannot render the man page: {e}")))?;
    Ok(out)
}

pub(crate) fn run(args: Args) -> Result<ExitCode, CliError> {
    let cmd = crate::Cli::command();
    let Some(dir) = args.out else {
        super::completions::write_stdout(&render(cmd)?)?;
        return Ok(ExitCode::SUCCESS);
    };
    std::fs::create_dir_all(&dir)
        .map_err(|e| CliError::runtime(format!("{dir}: cannot create: {e}")))?;
    clap_mangen::generate_to(cmd, &dir)
        .map_err(|e| CliError::runtime(format!("{dir}: cannot write the man pages: {e}")))?;
    let pages = std::fs::read_dir(&dir)
        .map_err(|e| CliError::runtime(format!("{dir}: cannot list: {e}")))?
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with("remaind"))
        .count();
    println!("wrote {pages} man pages to {dir}");
    Ok(ExitCode::SUCCESS)
}
