//! `remaind init`.

use std::process::ExitCode;

use crate::args::init::Args;
use crate::cli_error::CliError;
use crate::global::Global;

pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    let ctx = global.init_target()?;
    if let Some(setting) = global.store_setting()? {
        let report = remaind_service::join(&ctx, &setting.url, &setting.project)?;
        if args.json {
            println!(
                "{}",
                serde_json::to_string(&report).map_err(|e| CliError::runtime(e.to_string()))?
            );
        } else {
            println!(
                "{} is a replica of project {:?} of {}{} (seq {}; {} events and {} files copied)",
                report.root,
                report.project,
                remaind_pg::mask_password(&setting.url),
                if report.created_project {
                    ", created from it"
                } else {
                    ""
                },
                report.head,
                report.events,
                report.files
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    let report = remaind_resume::init(&ctx, args.force)?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string(&report).map_err(|e| CliError::runtime(e.to_string()))?
        );
    } else if report.existed && report.created.is_empty() {
        println!("{} is already initialized; nothing changed", report.root);
    } else if report.existed {
        println!("{}: restored {}", report.root, report.created.join(", "));
    } else {
        println!(
            "initialized {} ({} files and folders)",
            report.root,
            report.created.len()
        );
    }
    Ok(ExitCode::SUCCESS)
}
