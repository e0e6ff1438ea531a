//! `remaind init`.

use std::process::ExitCode;

use crate::cli_error::CliError;
use crate::global::Global;

/// Create a .context/ folder: contract, schemas, configuration and an empty ledger.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  remaind init                  # creates ./.context\n  remaind init --dir /srv/agent/.context\n  remaind init --force          # restore missing files only; never overwrites\n  remaind init --store postgres://remaind@db.internal/remaind --project web-app\n                                # share the project through PostgreSQL (docs/fleet.md)\n\nWith --store and --project, the folder becomes a replica of that project of the store\n(created from this folder when missing, joined when it exists) and store.json records it,\nso every command and hook on this folder appends through the store."
)]
pub(crate) struct Args {
    /// Restore missing files of an existing folder (existing files are never overwritten).
    #[arg(long)]
    force: bool,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

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
