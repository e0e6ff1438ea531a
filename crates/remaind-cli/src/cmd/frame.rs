//! `remaind frame`.

use std::process::ExitCode;

use remaind_resume::FrameRequest;

use crate::cli_error::CliError;
use crate::global::Global;

/// Record the runtime framing of the next run (workspace root, shell, OS, date and time zone,
/// model, settings) into active/framing.json. Anything not given is detected from the
/// environment; the model and settings carry over from the previous framing.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  remaind frame                                   # detect everything\n  remaind frame --model gpt-5 --set thinking=high --set sandbox=workspace-write\n  remaind frame --set thinking=                   # remove a setting\n  remaind frame --time-zone Europe/Paris --json"
)]
pub(crate) struct Args {
    /// The workspace root (default: the folder holding .context/).
    #[arg(long, value_name = "PATH")]
    workspace_root: Option<String>,
    /// The shell family (default: the basename of $SHELL).
    #[arg(long)]
    shell: Option<String>,
    /// The operating system (default: this machine's OS and architecture).
    #[arg(long)]
    os: Option<String>,
    /// The date the run believes it is, YYYY-MM-DD (default: today in the time zone).
    #[arg(long, value_name = "YYYY-MM-DD")]
    date: Option<String>,
    /// The IANA time zone (default: the system's).
    #[arg(long, value_name = "TZ")]
    time_zone: Option<String>,
    /// The model in force (default: $REMAIND_MODEL, else the previous framing's).
    #[arg(long)]
    model: Option<String>,
    /// A setting `key=value` (repeatable); an empty value removes the key.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    settings: Vec<String>,
    /// Print the recorded framing as JSON.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    let ctx = global.context()?;
    let settings = args
        .settings
        .iter()
        .map(|s| parse_setting(s))
        .collect::<Result<Vec<_>, _>>()?;
    let req = FrameRequest {
        workspace_root: args.workspace_root,
        shell: args.shell,
        os: args.os,
        date: args.date,
        time_zone: args.time_zone,
        model: args.model,
        settings,
        recorded_at: None,
    };
    let f = remaind_resume::record_framing(&ctx, &req)?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string(&f).map_err(|e| CliError::runtime(e.to_string()))?
        );
    } else {
        print!("recorded {}\n{f}", ctx.framing_path());
    }
    Ok(ExitCode::SUCCESS)
}

/// Parses a `key=value` setting as given to `--set`.
fn parse_setting(s: &str) -> Result<(String, String), CliError> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_owned(), v.to_owned())),
        _ => Err(CliError::invalid(format!(
            "--set: `{s}` is not `key=value`; e.g. `--set thinking=high`"
        ))),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_setting_is_key_equals_value() {
        assert!(super::parse_setting("novalue").is_err());
        assert_eq!(
            super::parse_setting("a=b=c").unwrap(),
            ("a".to_owned(), "b=c".to_owned())
        );
    }
}
