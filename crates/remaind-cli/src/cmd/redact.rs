//! `remaind redact`.

use std::io::{Read, Write};
use std::process::ExitCode;

use camino::Utf8PathBuf;

use crate::cli_error::CliError;
use crate::global::Global;

/// Print text as the ledger would store it: the project's redaction rules applied (built-ins,
/// schemas/redaction.json, schemas/redaction.toml and the gitleaks files it lists). Writes
/// nothing. Use it to try a rule file, or to see what a tool's output would keep.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
printenv | remaind redact\n  \
remaind redact .env --json | jq '.redactions'\n  \
remaind redact build.log > build.redacted.log\n\n\
A bad rule file is an error naming the file and the rule (exit 1), as it is for every command \
that opens the ledger. The rules: docs/redaction.md.")]
pub(crate) struct Args {
    /// The file to read (default: stdin).
    #[arg(value_name = "FILE")]
    file: Option<Utf8PathBuf>,
    /// Print `{"text": …, "redactions": [{"rule", "placeholder"}, …]}` instead of the text.
    #[arg(long)]
    json: bool,
}

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
