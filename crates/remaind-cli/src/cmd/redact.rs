//! `remaind redact`.

use std::io::{Read, Write};
use std::process::ExitCode;

use crate::args::redact::Args;
use crate::cli_error::CliError;
use crate::global::Global;

pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    let input = match &args.file {
        Some(f) => {
            std::fs::read(f).map_err(|e| CliError::invalid(format!("{f}: cannot read: {e}")))?
        }
        None => {
            let mut input = Vec::new();
            std::io::stdin()
                .lock()
                .read_to_end(&mut input)
                .map_err(|e| CliError::runtime(format!("cannot read stdin: {e}")))?;
            input
        }
    };
    let redacted = remaind_service::redact(&global.context()?, &input)?;
    let mut out = std::io::stdout().lock();
    let written = if args.json {
        let doc = serde_json::json!({
            "text": String::from_utf8_lossy(&redacted.bytes),
            "redactions": redacted.applied,
        });
        writeln!(out, "{doc}")
    } else {
        out.write_all(&redacted.bytes)
    };
    written
        .and_then(|()| out.flush())
        .map_err(|e| CliError::runtime(format!("cannot write stdout: {e}")))?;
    if !args.json {
        eprintln!("remaind: {}", redacted.summary());
    }
    Ok(ExitCode::SUCCESS)
}
