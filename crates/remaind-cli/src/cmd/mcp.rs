//! `remaind mcp`.

use std::process::ExitCode;

use crate::args::mcp::Args;
use crate::cli_error::CliError;
use crate::global::Global;

pub(crate) fn run(global: &Global, _args: Args) -> Result<ExitCode, CliError> {
    let locator = remaind_mcp::Locator {
        explicit: global.dir.clone(),
        cwd: global.cwd()?,
    };
    remaind_mcp::serve_stdio(locator).map_err(|e| CliError::runtime(e.to_string()))?;
    Ok(ExitCode::SUCCESS)
}
