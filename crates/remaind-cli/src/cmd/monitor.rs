//! `remaind monitor`.

use std::process::ExitCode;

use remaind_resume::TokenSource;

use crate::args::monitor::Args;
use crate::cli_error::CliError;
use crate::global::Global;

pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    let ctx = global.context()?;
    let r = remaind_resume::monitor(&ctx, args.used, args.window)?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string(&r).map_err(|e| CliError::runtime(e.to_string()))?
        );
    } else {
        let source = match r.source {
            TokenSource::Reported => "reported",
            TokenSource::ResumePacket => "resume packet",
        };
        println!(
            "{}: {} of {} tokens ({:.1} %, {source}); action: {}",
            r.band,
            r.tokens,
            r.window,
            r.ratio * 100.0,
            r.action
        );
        if let Some(id) = r.event {
            println!(
                "band changed from {}; recorded as {id}",
                r.previous_band
                    .map_or_else(|| "normal".to_owned(), |b| b.to_string())
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
