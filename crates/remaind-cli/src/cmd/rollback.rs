//! `remaind rollback`.

use std::process::ExitCode;

use crate::args::rollback::Args;
use crate::cli_error::CliError;
use crate::global::Global;

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
