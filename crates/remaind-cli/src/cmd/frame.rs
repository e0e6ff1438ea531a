//! `remaind frame`.

use std::process::ExitCode;

use remaind_resume::FrameRequest;

use crate::args::frame::Args;
use crate::cli_error::CliError;
use crate::global::Global;

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
