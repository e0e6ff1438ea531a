//! `remaind artifact`.

use std::io::Write;
use std::process::ExitCode;

use crate::args::artifact::{Args, Sub};
use crate::cli_error::CliError;
use crate::global::Global;

pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    let ctx = global.context()?;
    match args.command {
        Sub::Show { hash } => {
            let bytes = remaind_service::artifact(&ctx, &hash)?;
            let mut out = std::io::stdout().lock();
            out.write_all(&bytes)
                .and_then(|()| out.flush())
                .map_err(CliError::stdout)?;
        }
        Sub::List { json } => {
            let list = remaind_service::artifacts(&ctx)?;
            if json {
                let line =
                    serde_json::to_string(&list).map_err(|e| CliError::runtime(e.to_string()))?;
                println!("{line}");
            } else {
                for h in list {
                    println!("{h}");
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
