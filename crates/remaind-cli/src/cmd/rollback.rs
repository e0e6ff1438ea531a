//! `remaind rollback`.

use std::process::ExitCode;

use crate::cli_error::CliError;
use crate::global::Global;

/// Restore every derived file (state.json, handover.md, framing.json, resume_packet.md) to its
/// version as of a time, keeping the current versions in history so the rollback can itself
/// be rolled back. logs/events.jsonl is never touched.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  remaind rollback --list\n  remaind rollback --to 2026-11-21T21:03:35.123456Z\n  remaind rollback --to 2026-11-21T21:03:35.123456Z --json   # prints undo_to"
)]
pub(crate) struct Args {
    /// Restore the derived files as of this RFC 3339 time.
    #[arg(
        long,
        value_name = "TIME",
        required_unless_present = "list",
        conflicts_with = "list"
    )]
    to: Option<String>,
    /// List the history points of the derived files.
    #[arg(long)]
    list: bool,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    let ctx = global.context()?;
    if args.list {
        let points = remaind_resume::rollback_points(&ctx)?;
        if args.json {
            println!("{}", to_json(&points)?);
        } else if points.is_empty() {
            println!("no history yet");
        } else {
            const HEADER: &str =
                "changed at (--to keeps it)   what      file                --to undoes it";
            println!("{HEADER}");
            for p in &points {
                let what = if p.prior_existed {
                    "replaced"
                } else {
                    "created"
                };
                println!("{}  {what:<8}  {:<18}  {}", p.time, p.file, p.before);
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    let Some(to) = args.to else {
        return Err(CliError::invalid("give --to TIME or --list"));
    };
    let ts = remaind_resume::parse_time(&to)?;
    let r = remaind_resume::rollback_to(&ctx, ts)?;
    if args.json {
        println!("{}", to_json(&r)?);
    } else if r.changed.is_empty() {
        println!("every derived file already has its version as of {}", r.to);
    } else {
        let restored: Vec<&str> = r
            .changed
            .iter()
            .filter(|f| !r.removed.contains(f))
            .map(String::as_str)
            .collect();
        if !restored.is_empty() {
            println!("restored {} as of {}", restored.join(", "), r.to);
        }
        if !r.removed.is_empty() {
            println!(
                "removed {} (they did not exist as of {})",
                r.removed.join(", "),
                r.to
            );
        }
        if let Some(undo) = &r.undo_to {
            println!("undo with: remaind rollback --to {undo}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn to_json<T: serde::Serialize>(value: &T) -> Result<String, CliError> {
    serde_json::to_string(value).map_err(|e| CliError::runtime(e.to_string()))
}
