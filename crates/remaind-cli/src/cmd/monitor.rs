//! `remaind monitor`.

use std::process::ExitCode;

use remaind_resume::TokenSource;

use crate::cli_error::CliError;
use crate::global::Global;

/// Classify the context's token use into a band (normal, warning, hard, emergency) and record a
/// band change as a `monitor` event.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  remaind monitor --used 142000          # the agent reports its count\n  remaind monitor --used 90000 --window 128000 --json\n  remaind monitor                        # count the tokens a resume would load now"
)]
pub(crate) struct Args {
    /// Tokens the agent has used; without it, Remaind counts the tokens of the packet a resume
    /// would load now with the configured tokenizer.
    #[arg(long, value_name = "N")]
    used: Option<u64>,
    /// Context window in tokens (default: `context_window` in thresholds.json).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    window: Option<u64>,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

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
